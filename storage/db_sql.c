/* db_sql.c — the results database's statements (see db_impl.h): an SQLite error as ours, naming the file; a script
 * run; a transaction begun (the connection waits for another writer's lock, up to its busy timeout). */
#include "columns.h"
#include "db_impl.h"
#include "fl_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

fl_err fl_db_fail(fl_db *db, const char *what)
{
  return fl_err_set(FL_ERR_DB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

/* Run `sql` on connection `h`; an error names `path` (when given), what was being done, and SQLite's message */
fl_err fl_db_exec_h(sqlite3 *h, const char *path, const char *sql, const char *what)
{
  char *msg = NULL;
  if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
    fl_err rc =
        fl_err_set(FL_ERR_DB, "%s%s%s: %s", path ? path : "", path ? ": " : "", what, msg ? msg : sqlite3_errmsg(h));
    sqlite3_free(msg);
    return rc;
  }
  return FL_OK;
}

fl_err fl_db_exec(fl_db *db, const char *sql, const char *what)
{
  return fl_db_exec_h(db->h, db->path, sql, what);
}

/* BEGIN IMMEDIATE, waiting for another writer. The busy handler (10 s) covers the usual case; in WAL mode SQLite
 * also answers SQLITE_BUSY at once while another connection recovers or checkpoints the log, and a loaded machine
 * (sanitizer builds, many processes) can hold a writer past 10 s: keep trying for a minute in all. */
fl_err fl_db_begin(fl_db *db, const char *what)
{
  struct timespec t0, t;
  int x;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while ((x = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL)) == SQLITE_BUSY) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec >= 60)
      break;
    sqlite3_sleep(250);
  }
  if (x != SQLITE_OK)
    return fl_err_set(FL_ERR_DB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
  return FL_OK;
}
