/* db.c — results database (see db.h): opening (and classifying) files, the connection's statements, its SQL
 * functions, and closing. The schema and its upgrades are in db_schema.c, the rows' inserts in db_insert.c, the
 * event log an engine fills in evlog.c, the writer thread in db_writer.c. */
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
/* The scenario text is stored once per database, content-addressed (schema 2): rows keep its xxh64 */
static const char fl_db_ins_text_sql[] = "INSERT OR IGNORE INTO scenario_texts (xxh64, text) VALUES (?1, ?2)";

static const char fl_db_ins_job_sql[] =
    "INSERT INTO jobs (run_id, job, submit_s, start_s, end_s, run_s, nodes, failures, checkpoints, lost_work_s, "
    "checkpoint_s, restart_s, io_wait_s, copies) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

static const char fl_db_ins_input_sql[] =
    "INSERT OR IGNORE INTO input_files (xxh64, size, path, text) VALUES (?1, ?2, ?3, ?4)";

static const char fl_db_ins_ev_sql[] = "INSERT INTO events (id, run_id, t_s, kind, node, rank, peer, n, value, level, "
                                       "label) VALUES (?,?,?,?,?,?,?,?,?,?,?)";

/* The events insert of FL_DB_EV_BATCH rows: fl_db_ins_ev_sql with its VALUES tuple repeated */
static int fl_db_prepare_ev_batch(fl_db *db)
{
  const char *tuple = strstr(fl_db_ins_ev_sql, "VALUES ") + 7;
  size_t head = (size_t)(tuple - fl_db_ins_ev_sql), tl = strlen(tuple), len = head;
  char *sql = malloc(head + FL_DB_EV_BATCH * (tl + 1) + 1);
  int x;
  if (!sql)
    return SQLITE_NOMEM;
  memcpy(sql, fl_db_ins_ev_sql, head);
  for (int r = 0; r < FL_DB_EV_BATCH; r++) {
    if (r)
      sql[len++] = ',';
    memcpy(sql + len, tuple, tl);
    len += tl;
  }
  sql[len] = '\0';
  x = sqlite3_prepare_v2(db->h, sql, -1, &db->ins_ev_batch, NULL);
  free(sql);
  return x;
}

char *fl_db_reader_uri(const char *path)
{
  size_t n = strlen(path), len;
  char *uri = malloc(n * 3 + 32), *wal = malloc(n + 5);
  int has_wal;
  if (!uri || !wal) {
    free(uri);
    free(wal);
    return NULL;
  }
  sprintf(wal, "%s-wal", path);
  has_wal = access(wal, F_OK) == 0;
  free(wal);
  len = (size_t)sprintf(uri, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    len +=
        (size_t)(isalnum(*p) || strchr("/-_.~", *p) ? sprintf(uri + len, "%c", *p) : sprintf(uri + len, "%%%02X", *p));
  sprintf(uri + len, "?mode=ro%s", has_wal ? "" : "&immutable=1");
  return uri;
}

/* Open `path` for reading without creating anything beside it (fl_db_reader_uri). */
static int fl_db_open_reader(const char *path, sqlite3 **h)
{
  char *uri = fl_db_reader_uri(path);
  int r;
  if (!uri)
    return SQLITE_NOMEM;
  r = sqlite3_open_v2(uri, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
  free(uri);
  /* a writer switching the file to WAL, or creating it, holds it a moment: wait as a writer would (a reader
   * without a busy handler read "database is locked" while two simulations created one file) */
  if (r == SQLITE_OK)
    sqlite3_busy_timeout(*h, 10000);
  return r;
}

/* One line of a multi-line SQLite message. */
static const char *fl_db_oneline(const char *msg, char *buf, size_t size)
{
  size_t k = 0;
  for (; *msg && k + 3 < size; msg++)
    if (*msg == '\n') {
      buf[k++] = ';';
      buf[k++] = ' ';
    } else {
      buf[k++] = *msg;
    }
  buf[k] = '\0';
  return buf;
}

/* PRAGMA quick_check on an open connection: a damaged file is named before anything reads or writes rows. */
static fl_err fl_db_quick_check(sqlite3 *h, const char *path)
{
  fl_err rc = FL_OK;
  char line[512];
  sqlite3_stmt *st = NULL;
  int r;
  FL_CHECK(sqlite3_prepare_v2(h, "PRAGMA quick_check(1)", -1, &st, NULL) == SQLITE_OK, FL_ERR_INPUT,
           "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path, sqlite3_errmsg(h));
  r = sqlite3_step(st);
  FL_CHECK(r == SQLITE_ROW, FL_ERR_INPUT, "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path,
           sqlite3_errmsg(h));
  FL_CHECK(strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0, FL_ERR_INPUT,
           "%s: a damaged SQLite file (%s); it is left as it is", path,
           fl_db_oneline((const char *)sqlite3_column_text(st, 0), line, sizeof line));
done:
  sqlite3_finalize(st);
  return rc;
}

/* What a file at `path` is. The raw header says whether it is SQLite at all (read without SQLite, which must not
 * open a file that is not its own); application_id and user_version are then read through SQLite, read-only,
 * because in WAL mode the committed header lives in the -wal file until a checkpoint. Damaged files are named. */
typedef enum { FL_DB_ABSENT, FL_DB_EMPTY, FL_DB_OURS, FL_DB_UNMARKED, FL_DB_FOREIGN } fl_db_kind;

static int fl_db_pragma_int(sqlite3 *h, const char *sql, long *v)
{
  sqlite3_stmt *st = NULL;
  int ok = sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  if (ok)
    *v = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return ok;
}

static fl_err fl_db_classify_once(const char *path, fl_db_kind *kind, unsigned *app_id, unsigned *user_version,
                                  int *tables, int *our_tables)
{
  fl_err rc = FL_OK;
  unsigned char h[100];
  struct stat st;
  FILE *f = NULL;
  sqlite3 *db = NULL;
  sqlite3_stmt *q = NULL;
  size_t n;
  long app = 0, ver = 0;

  *app_id = *user_version = 0;
  *tables = *our_tables = 0;
  if (stat(path, &st) != 0) {
    FL_CHECK(errno == ENOENT, FL_ERR_INPUT, "%s: %s", path, strerror(errno));
    *kind = FL_DB_ABSENT;
    goto done;
  }
  FL_CHECK(S_ISREG(st.st_mode), FL_ERR_INPUT, "%s: not a regular file; a results database is a SQLite file", path);
  if (st.st_size == 0) {
    *kind = FL_DB_EMPTY;
    goto done;
  }
  f = fopen(path, "rb");
  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, strerror(errno));
  n = fread(h, 1, sizeof h, f);
  FL_CHECK(n == sizeof h && memcmp(h, "SQLite format 3", 16) == 0, FL_ERR_INPUT,
           "%s: not a SQLite database (a results database must be one); it is left as it is", path);
  FL_CHECK(fl_db_open_reader(path, &db) == SQLITE_OK, FL_ERR_INPUT, "%s: cannot read it as SQLite: %s", path,
           db ? sqlite3_errmsg(db) : "out of memory");
  /* every read below in one read transaction, so from one snapshot: read one by one, another faultline creating
   * the file could commit its schema and marks between them, and the file read as marked nowhere but holding
   * tables, "another program's" (two simulations starting on one new file, about 1 in 50) */
  FL_CHECK(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_INPUT,
           "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path, sqlite3_errmsg(db));
  FL_CHECK(fl_db_pragma_int(db, "PRAGMA application_id", &app) && fl_db_pragma_int(db, "PRAGMA user_version", &ver),
           FL_ERR_INPUT, "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path, sqlite3_errmsg(db));
  *app_id = (unsigned)app;
  *user_version = (unsigned)ver;
  *kind = *app_id == FL_DB_APPLICATION_ID ? FL_DB_OURS : *app_id == 0 ? FL_DB_UNMARKED : FL_DB_FOREIGN;
  if (*kind == FL_DB_FOREIGN)
    goto done;
  FL_TRY(fl_db_quick_check(db, path));
  FL_CHECK(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'table'", -1, &q, NULL) == SQLITE_OK,
           FL_ERR_INPUT, "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path, sqlite3_errmsg(db));
  for (int r; (r = sqlite3_step(q)) != SQLITE_DONE;) {
    FL_CHECK(r == SQLITE_ROW, FL_ERR_INPUT, "%s: a damaged or unreadable SQLite file (%s); it is left as it is", path,
             sqlite3_errmsg(db));
    (*tables)++;
    *our_tables += strcmp((const char *)sqlite3_column_text(q, 0), "runs") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "events") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "event_kinds") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "jobs") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "input_files") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "shards") == 0 ||
                   strcmp((const char *)sqlite3_column_text(q, 0), "scenario_texts") == 0;
  }
done:
  sqlite3_finalize(q);
  if (db && !sqlite3_get_autocommit(db))
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* a read transaction: nothing to keep */
  if (db)
    sqlite3_close(db);
  if (f)
    fclose(f);
  return rc;
}

/* What can change while a file is read: the file, its -wal and its -journal (existence, size, modification time) */
static void fl_db_fingerprint(const char *path, long long fp[9])
{
  static const char *side[3] = {"", "-wal", "-journal"};
  char p[4200];
  for (int k = 0; k < 3; k++) {
    struct stat st;
    snprintf(p, sizeof p, "%s%s", path, side[k]);
    if (stat(p, &st) != 0)
      memset(&st, 0, sizeof st);
    fp[3 * k] = (long long)st.st_size;
    fp[3 * k + 1] = (long long)st.st_mtim.tv_sec;
    fp[3 * k + 2] = (long long)st.st_mtim.tv_nsec;
  }
}

/* fl_db_classify_once, and a refusal only from a file that did not change while it was read. Another faultline
 * creating or closing the file at that moment could be read half-written (a file without a -wal is read immutable,
 * without locks: nothing is created beside a file that may be another program's), and answer "damaged" or "another
 * program's" for what is a moment later a good results file: read again, for up to 5 s, until it stands still. An
 * answer that lets the command go on is taken at once (a file written by a running sweep changes all the time). */
static fl_err fl_db_classify(const char *path, fl_db_kind *kind, unsigned *app_id, unsigned *user_version, int *tables,
                             int *our_tables)
{
  fl_err rc = FL_OK;
  int still = 0; /* refusals in a row from a file that stood still while it was read */
  for (int tries = 0;; tries++) {
    long long before[9], after[9];
    struct timespec ts = {0, 20000000};
    fl_db_fingerprint(path, before);
    rc = fl_db_classify_once(path, kind, app_id, user_version, tables, our_tables);
    fl_db_fingerprint(path, after);
    if (rc == FL_OK && *kind != FL_DB_FOREIGN && !(*kind == FL_DB_UNMARKED && *tables > 0))
      break;
    /* twice, 20 ms apart: a write under way when both looks were taken shows no change to either */
    still = memcmp(before, after, sizeof before) == 0 ? still + 1 : 0;
    if (still >= 2 || tries >= 250)
      break;
    if (rc != FL_OK)
      fl_err_clear();
    nanosleep(&ts, NULL);
  }
  return rc;
}

/* Before anything writes to `path`: it must be absent, empty, ours, or an unmarked SQLite file that holds no
 * table at all or exactly a faultline schema (files of faultline versions before the application id). Anything
 * else is refused, unchanged. */
static fl_err fl_db_check_writable(const char *path)
{
  fl_err rc = FL_OK;
  fl_db_kind kind;
  unsigned app_id, version;
  int tables, ours;

  FL_TRY(fl_db_classify(path, &kind, &app_id, &version, &tables, &ours));
  FL_CHECK(kind != FL_DB_FOREIGN, FL_ERR_INPUT,
           "%s: a SQLite file of another program (application id 0x%08x); faultline writes only its own results "
           "files, this one is left as it is",
           path, app_id);
  FL_CHECK(version <= FL_DB_SCHEMA_VERSION, FL_ERR_INPUT,
           "%s: results schema version %u is newer than this faultline's (%d); it is left as it is", path, version,
           FL_DB_SCHEMA_VERSION);
  FL_CHECK(kind != FL_DB_UNMARKED || tables == 0 || (version >= 1 && ours >= 2 && tables == ours), FL_ERR_INPUT,
           "%s: a SQLite database of another program (%d table%s, no faultline schema); it is left as it is", path,
           tables, tables == 1 ? "" : "s");
done:
  return rc;
}

static fl_err fl_db_open_flags(const char *path, int flags, int page_size, fl_db **out)
{
  /* no memory statistics: they take a global mutex at every allocation, a tenth of an event insert's cost once
   * a writer thread runs beside the simulation. Takes effect only before SQLite's first use in the process
   * (SQLITE_MISUSE after: then nothing changes). */
  static int configured;
  if (!configured) {
    configured = 1;
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  }
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  sqlite3_stmt *st = NULL;
  int version = 0, old_events = 0;

  *out = NULL;
  if (flags & SQLITE_OPEN_READWRITE) {
    FL_TRY(fl_db_check_writable(path));
  } else {
    fl_db_kind kind;
    unsigned app_id, v;
    int tables, ours;
    FL_TRY(fl_db_classify(path, &kind, &app_id, &v, &tables, &ours));
    FL_CHECK(kind != FL_DB_ABSENT, FL_ERR_INPUT, "%s: no such results database", path);
    FL_CHECK(kind != FL_DB_EMPTY, FL_ERR_INPUT, "%s: an empty file, not a results database", path);
    FL_CHECK(kind != FL_DB_FOREIGN, FL_ERR_INPUT,
             "%s: a SQLite file of another program (application id 0x%08x), not a faultline results database", path,
             app_id);
  }
  FL_ALLOC(db, 1);
  FL_ALLOC(db->path, strlen(path) + 1);
  strcpy(db->path, path);
  if ((flags & SQLITE_OPEN_READWRITE ? sqlite3_open_v2(path, &db->h, flags, NULL) : fl_db_open_reader(path, &db->h)) !=
      SQLITE_OK) {
    rc = fl_err_set(FL_ERR_DB, "%s: cannot open results database: %s", path,
                    db->h ? sqlite3_errmsg(db->h) : "out of memory");
    goto done;
  }
  sqlite3_busy_timeout(db->h, 10000);
  FL_CHECK(sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK, FL_ERR_INPUT,
           "%s: not a readable results database: %s", path, sqlite3_errmsg(db->h));
  if (sqlite3_step(st) == SQLITE_ROW)
    version = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(version <= FL_DB_SCHEMA_VERSION, FL_ERR_INPUT, /* bad input, as simulate says it (exit 2) */
           "%s: results schema version %d is newer than this faultline's (%d); it is left as it is", path, version,
           FL_DB_SCHEMA_VERSION);
  if (flags & SQLITE_OPEN_READWRITE) {
    char pragma[64];
    if (page_size > 0) {
      /* takes effect only on a file without tables yet */
      snprintf(pragma, sizeof pragma, "PRAGMA page_size=%d", page_size);
      FL_TRY(fl_db_exec(db, pragma, "setting the page size"));
    }
    {
      /* Switching to WAL takes an exclusive lock, and SQLite returns SQLITE_BUSY at once (no busy handler, to avoid
       * a deadlock) when another process is switching or creating the file at the same moment: retry for as
       * long as the busy timeout would have waited. */
      int tries = 0, x;
      while ((x = sqlite3_exec(db->h, "PRAGMA journal_mode=WAL", NULL, NULL, NULL)) == SQLITE_BUSY && tries++ < 400)
        sqlite3_sleep(25);
      if (x != SQLITE_OK) {
        rc = fl_db_fail(db, "setting up the journal");
        goto done;
      }
    }
    FL_TRY(fl_db_exec(db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;", "setting up the journal"));
    FL_TRY(fl_db_begin(db, "creating the schema"));
    rc = fl_db_set_aside_old_events(db, &old_events);
    if (rc == FL_OK) {
      char *runs = fl_db_runs_sql();
      rc = runs ? fl_db_exec(db, runs, "creating the schema") : fl_err_set(FL_ERR_NOMEM, "out of memory");
      sqlite3_free(runs);
    }
    if (rc == FL_OK)
      rc = fl_db_exec(db, fl_db_schema, "creating the schema");
    if (rc == FL_OK)
      rc = fl_db_events_vocabulary(db);
    if (rc == FL_OK && old_events)
      rc = fl_db_upgrade_events(db);
    if (rc == FL_OK)
      rc = fl_db_add_missing_columns(db);
    if (rc == FL_OK)
      rc = fl_db_key_index(db);
    snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d; PRAGMA application_id=%d", FL_DB_SCHEMA_VERSION,
             (int)FL_DB_APPLICATION_ID);
    if (rc == FL_OK)
      rc = fl_db_exec(db, pragma, "setting the schema version");
    if (rc != FL_OK) {
      sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
      goto done;
    }
    FL_TRY(fl_db_exec(db, "COMMIT", "creating the schema"));
    char *ins_run = fl_db_ins_run_sql(db->key_unique);
    FL_CHECK(ins_run != NULL, FL_ERR_NOMEM, "out of memory");
    int x = sqlite3_prepare_v2(db->h, ins_run, -1, &db->ins_run, NULL);
    sqlite3_free(ins_run);
    if (x != SQLITE_OK || sqlite3_prepare_v2(db->h, fl_db_ins_ev_sql, -1, &db->ins_ev, NULL) != SQLITE_OK ||
        fl_db_prepare_ev_batch(db) != SQLITE_OK ||
        sqlite3_prepare_v2(db->h, fl_db_ins_input_sql, -1, &db->ins_input, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->h, fl_db_ins_text_sql, -1, &db->ins_text, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->h, fl_db_ins_job_sql, -1, &db->ins_job, NULL) != SQLITE_OK) {
      rc = fl_db_fail(db, "preparing statements");
      goto done;
    }
  } else {
    FL_CHECK(version >= 1, FL_ERR_INPUT, "%s: not a faultline results database (no schema)", path);
  }
  *out = db;
  db = NULL;
done:
  sqlite3_finalize(st);
  fl_db_close(&db);
  return rc;
}

fl_err fl_db_open(const char *path, fl_db **out)
{
  /* URI filenames for ATTACH (merge attaches shards read-only); the path itself is opened as a plain path */
  /* no mutex of SQLite's around each call: a connection is used by one thread at a time (fl_db_writer's contract),
   * and a dozen uncontended lock pairs per event insert were a third of its cost */
  return fl_db_open_flags(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, 0,
                          out);
}

fl_err fl_db_open_large(const char *path, fl_db **out)
{
  return fl_db_open_flags(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                          65536, out);
}

fl_err fl_db_open_readonly(const char *path, fl_db **out)
{
  return fl_db_open_flags(path, SQLITE_OPEN_READONLY, 0, out);
}

void fl_db_close(fl_db **pdb)
{
  fl_db *db = pdb ? *pdb : NULL;
  if (!db)
    return;
  sqlite3_finalize(db->ins_run);
  sqlite3_finalize(db->ins_ev);
  sqlite3_finalize(db->ins_ev_batch);
  sqlite3_finalize(db->ins_input);
  sqlite3_finalize(db->ins_text);
  sqlite3_finalize(db->ins_job);
  sqlite3_finalize(db->has_row);
  if (db->h)
    sqlite3_close(db->h);
  free(db->path);
  free(db);
  *pdb = NULL;
}

static int fl_db_has_text_table(sqlite3 *h)
{
  sqlite3_stmt *st = NULL;
  int have = sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name = 'scenario_xxh64'", -1, &st,
                                NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return have;
}

const char *fl_db_text_sql(sqlite3 *h)
{
  return fl_db_has_text_table(h) ? "COALESCE((SELECT t.text FROM scenario_texts t WHERE t.xxh64 = runs.scenario_xxh64),"
                                   " runs.scenario_text)"
                                 : "runs.scenario_text";
}

const char *fl_db_text_hash_sql(sqlite3 *h)
{
  return fl_db_has_text_table(h) ? "COALESCE(runs.scenario_xxh64, fl_xxh64(runs.scenario_text))"
                                 : "fl_xxh64(runs.scenario_text)";
}

/* fl_xxh64(text): 16 hex digits, as scenario_xxh64 and the row keys spell a text's fingerprint */
static void fl_sql_xxh64(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const void *t = sqlite3_value_blob(argv[0]);
  char hex[17];
  (void)argc;
  snprintf(hex, sizeof hex, "%016" PRIx64, (uint64_t)XXH64(t ? t : "", (size_t)sqlite3_value_bytes(argv[0]), 0));
  sqlite3_result_text(ctx, hex, 16, SQLITE_TRANSIENT);
}

int fl_db_key_unique(const fl_db *db)
{
  return db->key_unique;
}

int fl_db_sql_functions(sqlite3 *h)
{
  return sqlite3_create_function(h, "fl_xxh64", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fl_sql_xxh64, NULL, NULL);
}

sqlite3 *fl_db_sqlite(fl_db *db)
{
  return db->h;
}
const char *fl_db_path(const fl_db *db)
{
  return db->path;
}
