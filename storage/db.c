/* db.c — results database (see db.h): the schema and its upgrades, opening (and classifying) files, the row
 * insert and the event rows. The schema is created with IF NOT EXISTS so many studies can append to one file; a
 * `run_summary` view derives waste, so no derived figure is ever stored twice. The event log an engine fills is in
 * evlog.c, the writer thread in db_writer.c. */
#include "db.h"

#include "columns.h"
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
#include <xxhash.h>

struct fl_db {
  sqlite3 *h;
  char *path;
  sqlite3_stmt *ins_run, *ins_ev, *ins_ev_batch, *ins_input, *ins_text, *has_row, *ins_job;
  char text_stored[17]; /* the scenario text last committed to scenario_texts by this connection */
  int key_unique;       /* runs_key, a unique index on row_key, is there */
};

/* The tables but `runs`, whose CREATE TABLE comes from columns.h (fl_db_runs_sql). */
static const char fl_db_schema[] =
    "CREATE TABLE IF NOT EXISTS scenario_texts (\n"
    "  xxh64 TEXT PRIMARY KEY,\n"
    "  text TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS shards (\n"
    "  sweep TEXT NOT NULL,\n"
    "  shard INTEGER NOT NULL,\n"
    "  nshards INTEGER NOT NULL,\n"
    "  expected INTEGER NOT NULL,\n"
    "  PRIMARY KEY (sweep, shard, nshards)\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS input_files (\n"
    "  xxh64 TEXT NOT NULL,\n"
    "  size INTEGER NOT NULL,\n"
    "  path TEXT,\n"
    "  text TEXT,\n"
    "  PRIMARY KEY (xxh64, size)\n"
    ");\n"
    "CREATE INDEX IF NOT EXISTS runs_by_scenario ON runs(scenario, strategy, interval_s);\n"

    "CREATE TABLE IF NOT EXISTS event_kinds (\n"
    "  code INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  doc TEXT\n"
    ");\n"
    /* id = run_id * 2^32 + the event's number in its run: a run's events are one range of the rowid, appended in
     * order, so the table needs no index (one would cost as much as the inserts) */
    "CREATE TABLE IF NOT EXISTS events (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  t_s REAL NOT NULL,\n"
    "  kind INTEGER NOT NULL,\n"
    "  node INTEGER,\n"
    "  rank INTEGER,\n"
    "  peer INTEGER,\n"
    "  n INTEGER,\n"
    "  value REAL,\n"
    "  level TEXT,\n"
    "  label TEXT,\n"
    "  note TEXT\n"
    ");\n"
    /* workloads: one row per job of a run (db.h, fl_db_job) */
    "CREATE TABLE IF NOT EXISTS jobs (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  job INTEGER NOT NULL,\n"
    "  submit_s REAL NOT NULL,\n"
    "  start_s REAL,\n"
    "  end_s REAL,\n"
    "  run_s REAL NOT NULL,\n"
    "  nodes INTEGER NOT NULL,\n"
    "  failures INTEGER NOT NULL,\n"
    "  checkpoints INTEGER NOT NULL,\n"
    "  lost_work_s REAL NOT NULL,\n"
    "  checkpoint_s REAL NOT NULL,\n"
    "  restart_s REAL NOT NULL,\n"
    "  io_wait_s REAL NOT NULL,\n"
    "  copies INTEGER NOT NULL DEFAULT 1,\n"
    "  PRIMARY KEY (run_id, job)\n"
    ") WITHOUT ROWID;\n"
    "CREATE VIEW IF NOT EXISTS run_summary AS\n"
    "  SELECT id, scenario, mode, strategy, interval_s, nodes, node_mtbf_s, failure_model, seed, replica, status,\n"
    "         work_s, makespan_s, 1.0 - work_s / makespan_s AS waste, failures, interruptions, checkpoints,\n"
    "         CAST(complete_iterations AS REAL) / iterations AS resilience, error_linf, error_l1\n"
    "  FROM runs;\n";

/* The scenario text is stored once per database, content-addressed (schema 2): rows keep its xxh64 */
static const char fl_db_ins_text_sql[] = "INSERT OR IGNORE INTO scenario_texts (xxh64, text) VALUES (?1, ?2)";

static const char fl_db_ins_job_sql[] =
    "INSERT INTO jobs (run_id, job, submit_s, start_s, end_s, run_s, nodes, failures, checkpoints, lost_work_s, "
    "checkpoint_s, restart_s, io_wait_s, copies) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";

static const char fl_db_ins_input_sql[] =
    "INSERT OR IGNORE INTO input_files (xxh64, size, path, text) VALUES (?1, ?2, ?3, ?4)";

/* events inserted FL_DB_EV_BATCH rows a statement (fl_db_insert_events) */
#define FL_DB_EV_BATCH 64
static const char fl_db_ins_ev_sql[] = "INSERT INTO events (id, run_id, t_s, kind, node, rank, peer, n, value, level, "
                                       "label) VALUES (?,?,?,?,?,?,?,?,?,?,?)";

/* The kinds of events.h, as rows of event_kinds and as the detail sentence of events_text. */
static const struct {
  int code;
  const char *name, *variant, *doc, *detail_sql;
} fl_ev_kinds[] = {
#define FL_EV_ROW(e, code, name, variant, doc, sql) {code, name, variant, doc, sql},
    FL_EVENT_KINDS(FL_EV_ROW)
#undef FL_EV_ROW
};

const char *fl_ev_kind_name(int code)
{
  for (size_t k = 0; k < sizeof fl_ev_kinds / sizeof fl_ev_kinds[0]; k++)
    if (fl_ev_kinds[k].code == code)
      return fl_ev_kinds[k].name;
  return NULL;
}

/* CREATE VIEW events_text: the sentence of each built-in kind from its columns; rows converted from older files
 * keep the text they had (note; '' where they had none). */
static char *fl_db_events_view_sql(void)
{
  size_t cap = 512;
  char *sql, *p;
  for (size_t k = 0; k < sizeof fl_ev_kinds / sizeof fl_ev_kinds[0]; k++)
    cap += strlen(fl_ev_kinds[k].detail_sql) + 32;
  if (!(sql = malloc(cap)))
    return NULL;
  p = sql + sprintf(sql, "CREATE VIEW events_text AS SELECT e.run_id, e.t_s, k.name AS kind, k.variant, e.node,"
                         " e.rank, e.peer, e.n, e.value, e.level, e.label,"
                         " CASE WHEN e.note IS NOT NULL THEN NULLIF(e.note, '') ELSE CASE e.kind");
  for (size_t k = 0; k < sizeof fl_ev_kinds / sizeof fl_ev_kinds[0]; k++)
    p += sprintf(p, " WHEN %d THEN %s", fl_ev_kinds[k].code, fl_ev_kinds[k].detail_sql);
  sprintf(p, " END END AS detail, e.id FROM events e JOIN event_kinds k ON k.code = e.kind");
  return sql;
}

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

static fl_err fl_db_fail(fl_db *db, const char *what)
{
  return fl_err_set(FL_ERR_DB, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

/* Run `sql` on connection `h`; an error names `path` (when given), what was being done, and SQLite's message */
static fl_err fl_db_exec_h(sqlite3 *h, const char *path, const char *sql, const char *what)
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

static fl_err fl_db_exec(fl_db *db, const char *sql, const char *what)
{
  return fl_db_exec_h(db->h, db->path, sql, what);
}

/* BEGIN IMMEDIATE, waiting for another writer. The busy handler (10 s) covers the usual case; in WAL mode SQLite
 * also answers SQLITE_BUSY at once while another connection recovers or checkpoints the log, and a loaded machine
 * (sanitizer builds, many processes) can hold a writer past 10 s: keep trying for a minute in all. */
static fl_err fl_db_begin(fl_db *db, const char *what)
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

/* CREATE TABLE runs, from columns.h. sqlite3_malloc'd (NULL: out of memory). */
static char *fl_db_runs_sql(void)
{
  sqlite3_str *q = sqlite3_str_new(NULL);
  sqlite3_str_appendall(q, "CREATE TABLE IF NOT EXISTS runs (\n");
  for (int i = 0; i < fl_run_ncolumns(); i++)
    sqlite3_str_appendf(q, "  %s %s%s\n", fl_run_column(i)->name, fl_run_column(i)->decl,
                        i + 1 < fl_run_ncolumns() ? "," : "");
  sqlite3_str_appendall(q, ");\n");
  return sqlite3_str_finish(q);
}

/* INSERT INTO runs: every column the row fills (not id, created_at), in table order, bound by fl_db_bind_run. */
static char *fl_db_ins_run_sql(int key_unique)
{
  sqlite3_str *q = sqlite3_str_new(NULL);
  int n = 0;
  sqlite3_str_appendall(q, "INSERT INTO runs (");
  for (int i = 0; i < fl_run_ncolumns(); i++)
    if (fl_run_column(i)->how != FL_COL_AUTO)
      sqlite3_str_appendf(q, "%s%s", n++ ? ", " : "", fl_run_column(i)->name);
  sqlite3_str_appendall(q, ") VALUES (");
  for (int i = 0; i < n; i++)
    sqlite3_str_appendall(q, i ? ",?" : "?");
  sqlite3_str_appendall(q, key_unique ? ") ON CONFLICT (row_key) DO NOTHING" : ")");
  return sqlite3_str_finish(q);
}

/* Files written by an earlier faultline lack the columns added since: add each nullable column of columns.h that
 * the file does not have (ALTER TABLE ADD COLUMN), so old studies stay usable. */
static fl_err fl_db_add_missing_columns(fl_db *db)
{
  fl_err rc = FL_OK;
  for (int i = 0; i < fl_run_ncolumns(); i++) {
    const fl_column *c = fl_run_column(i);
    char sql[320];
    if (strstr(c->decl, "NOT NULL") || strstr(c->decl, "PRIMARY") || fl_db_has_column(db->h, "main", "runs", c->name))
      continue;
    snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s %s", c->name, c->decl);
    FL_TRY(fl_db_exec(db, sql, "adding a column to an older results file"));
  }
  /* jobs from before replicated workloads ran one copy */
  if (!fl_db_has_column(db->h, "main", "jobs", "copies"))
    FL_TRY(fl_db_exec(db, "ALTER TABLE jobs ADD COLUMN copies INTEGER NOT NULL DEFAULT 1",
                      "adding a column to an older results file"));
done:
  return rc;
}

int fl_db_has_column(sqlite3 *h, const char *schema, const char *table, const char *col)
{
  sqlite3_stmt *st = NULL;
  char *q = sqlite3_mprintf("SELECT 1 FROM pragma_table_info(%Q, %Q) WHERE name = %Q", table, schema, col);
  int have = q && sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  sqlite3_free(q);
  return have;
}

/* Schema 3's vocabulary in a writable file: every kind of events.h in event_kinds (a doc line changed by a newer
 * version is updated; codes never change), and the events_text view as this version builds it. */
static fl_err fl_db_events_vocabulary(fl_db *db)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  char *view = fl_db_events_view_sql();
  int same = 0;

  FL_CHECK(view != NULL, FL_ERR_NOMEM, "out of memory");
  FL_CHECK(sqlite3_prepare_v2(db->h,
                              "INSERT INTO event_kinds (code, name, variant, doc) VALUES (?1, ?2, ?3, ?4)"
                              " ON CONFLICT (code) DO UPDATE SET name = excluded.name, variant = excluded.variant,"
                              " doc = excluded.doc WHERE name IS NOT excluded.name OR variant IS NOT excluded.variant"
                              " OR doc IS NOT excluded.doc",
                              -1, &st, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s: %s", db->path, sqlite3_errmsg(db->h));
  for (size_t k = 0; k < sizeof fl_ev_kinds / sizeof fl_ev_kinds[0]; k++) {
    sqlite3_reset(st);
    sqlite3_bind_int(st, 1, fl_ev_kinds[k].code);
    sqlite3_bind_text(st, 2, fl_ev_kinds[k].name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, fl_ev_kinds[k].variant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, fl_ev_kinds[k].doc, -1, SQLITE_STATIC);
    FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_DB, "%s: recording the event kinds: %s", db->path,
             sqlite3_errmsg(db->h));
  }
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT sql FROM sqlite_schema WHERE type = 'view' AND name = 'events_text'", -1, &st,
                         NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    same = strcmp((const char *)sqlite3_column_text(st, 0), view) == 0;
  sqlite3_finalize(st);
  st = NULL;
  if (!same) {
    FL_TRY(fl_db_exec(db, "DROP VIEW IF EXISTS events_text", "recreating the events_text view"));
    FL_TRY(fl_db_exec(db, view, "creating the events_text view"));
  }
done:
  sqlite3_finalize(st);
  free(view);
  return rc;
}

fl_err fl_db_add_legacy_kinds(sqlite3 *h, const char *names_sql)
{
  fl_err rc = FL_OK;
  char *q = sqlite3_mprintf(
      "INSERT INTO main.event_kinds (code, name, variant, doc)"
      " SELECT (SELECT COALESCE(MAX(code) + 1, %d) FROM main.event_kinds WHERE code >= %d)"
      " + ROW_NUMBER() OVER (ORDER BY x.name) - 1, x.name, 'legacy', 'a kind of events written by an older faultline'"
      " FROM (SELECT DISTINCT name FROM (%s) WHERE name IS NOT NULL"
      " AND name NOT IN (SELECT name FROM main.event_kinds)) x",
      FL_EV_LEGACY_CODE, FL_EV_LEGACY_CODE, names_sql);
  FL_CHECK(q != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_db_exec_h(h, NULL, q, "recording the kinds of older events"));
done:
  sqlite3_free(q);
  return rc;
}

fl_err fl_db_copy_events(sqlite3 *h, const char *src_schema, const char *src_table, const char *map_sql)
{
  fl_err rc = FL_OK;
  char *names = NULL, *q = NULL;

  if (fl_db_has_column(h, src_schema, src_table, "detail")) {
    /* schema 1-2: kind names and detail text; the number within the run is the order the rows were written in */
    names = sqlite3_mprintf("SELECT kind AS name FROM \"%w\".\"%w\"", src_schema, src_table);
    FL_CHECK(names != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_db_add_legacy_kinds(h, names));
    q = sqlite3_mprintf(
        "INSERT INTO main.events (id, run_id, t_s, kind, node, note)"
        " SELECT m.new_id * 4294967296 + ROW_NUMBER() OVER (PARTITION BY e.run_id ORDER BY e.rowid) - 1,"
        " m.new_id, e.t_s, (SELECT MIN(k.code) FROM main.event_kinds k WHERE k.name = e.kind), e.node,"
        " COALESCE(e.detail, '') FROM \"%w\".\"%w\" e JOIN (%s) m ON m.old_id = e.run_id ORDER BY 1",
        src_schema, src_table, map_sql);
  } else if (fl_db_has_column(h, src_schema, src_table, "kind")) {
    /* schema 3: codes below FL_EV_LEGACY_CODE are the same in every file; legacy ones are mapped by name */
    names = sqlite3_mprintf("SELECT name FROM \"%w\".event_kinds WHERE code >= %d", src_schema, FL_EV_LEGACY_CODE);
    FL_CHECK(names != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_db_add_legacy_kinds(h, names));
    q = sqlite3_mprintf(
        "INSERT INTO main.events (id, run_id, t_s, kind, node, rank, peer, n, value, level, label, note)"
        " SELECT m.new_id * 4294967296 + (e.id & 4294967295), m.new_id, e.t_s,"
        " CASE WHEN e.kind < %d THEN e.kind ELSE (SELECT MIN(k.code) FROM main.event_kinds k"
        " JOIN \"%w\".event_kinds s ON s.name = k.name WHERE s.code = e.kind AND k.code >= %d) END,"
        " e.node, e.rank, e.peer, e.n, e.value, e.level, e.label, e.note"
        " FROM \"%w\".\"%w\" e JOIN (%s) m ON m.old_id = e.run_id ORDER BY 1",
        FL_EV_LEGACY_CODE, src_schema, FL_EV_LEGACY_CODE, src_schema, src_table, map_sql);
  } else {
    goto done; /* no events there */
  }
  FL_CHECK(q != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_db_exec_h(h, NULL, q, "copying events"));
done:
  sqlite3_free(names);
  sqlite3_free(q);
  return rc;
}

const char *fl_db_events_sql(sqlite3 *h)
{
  if (fl_db_has_column(h, "main", "events", "detail"))
    /* id in the run's range as schema 3 numbers them, so FL_DB_EVENTS_OF_RUN selects a run in either form */
    return "(SELECT run_id, t_s, kind, NULL AS variant, node, NULL AS rank, NULL AS peer, NULL AS n, NULL AS value,"
           " NULL AS level, NULL AS label, detail, run_id * 4294967296 + (rowid & 4294967295) AS id FROM events)";
  return "events_text";
}

/* An older file's `events` (text kinds and details) becomes schema 3's: renamed aside here, before the schema is
 * created, and copied back typed by fl_db_upgrade_events. *old: there was such a table. */
static fl_err fl_db_set_aside_old_events(fl_db *db, int *old)
{
  fl_err rc = FL_OK;
  *old = fl_db_has_column(db->h, "main", "events", "detail");
  if (*old) {
    FL_TRY(fl_db_exec(db, "DROP TABLE IF EXISTS events_v2; ALTER TABLE events RENAME TO events_v2",
                      "upgrading the events of an older results file"));
  }
done:
  return rc;
}

static fl_err fl_db_upgrade_events(fl_db *db)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_db_copy_events(db->h, "main", "events_v2", "SELECT id AS old_id, id AS new_id FROM main.runs"));
  FL_TRY(fl_db_exec(db, "DROP TABLE events_v2", "upgrading the events of an older results file"));
done:
  return rc;
}

/* Row keys are unique (schema 2): a row written twice (two processes simulating the same replica, a merge) is
 * one row, and the index does the check an insert needs anyway. A file of schema 1 had a plain index; it is
 * replaced, unless the file holds duplicate keys (then the plain index stays and writers check first). */
static fl_err fl_db_key_index(fl_db *db)
{
  sqlite3_stmt *st = NULL;
  int have = sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'runs_key'", -1,
                                &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  db->key_unique = 1;
  if (have)
    return FL_OK;
  if (sqlite3_exec(db->h,
                   "SAVEPOINT fl_key; CREATE UNIQUE INDEX runs_key ON runs(row_key); DROP INDEX IF EXISTS runs_by_key;"
                   " RELEASE fl_key",
                   NULL, NULL, NULL) == SQLITE_OK)
    return FL_OK;
  db->key_unique = 0;
  sqlite3_exec(db->h, "ROLLBACK TO fl_key; RELEASE fl_key", NULL, NULL, NULL);
  return fl_db_exec(db, "CREATE INDEX IF NOT EXISTS runs_by_key ON runs(row_key)", "indexing the row keys");
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

static void fl_bind_text(sqlite3_stmt *st, int i, const char *s)
{
  if (s)
    sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, i);
}

static void fl_bind_real(sqlite3_stmt *st, int i, double v)
{
  if (isfinite(v))
    sqlite3_bind_double(st, i, v);
  else
    sqlite3_bind_null(st, i); /* NAN: not applicable; INFINITY: never */
}

static void fl_bind_count(sqlite3_stmt *st, int i, long v)
{
  if (v >= 0)
    sqlite3_bind_int64(st, i, v);
  else
    sqlite3_bind_null(st, i);
}

/* The overrides that change what a row is: all but where it is written and how many replicas were asked for. */
static uint64_t fl_db_overrides_hash(const char *o)
{
  /* the kept lines, hashed one after the other: h = xxh64(line, seed = previous h) */
  uint64_t h = 0;
  for (const char *line = o ? o : ""; *line;) {
    size_t n = strcspn(line, "\n");
    if (!(strncmp(line, "run.db=", 7) == 0 || strncmp(line, "run.replicas=", 13) == 0))
      h = (uint64_t)XXH64(line, n, h) + 1;
    line += n + (line[n] == '\n');
  }
  return h;
}

void fl_db_sim_row_key(const char *scenario_text, const char *overrides, const fl_input *inputs, int ninputs,
                       uint64_t seed, long replica, char *buf, size_t size)
{
  const char *t = scenario_text ? scenario_text : "";
  int n = snprintf(buf, size, "sim:%016" PRIx64 ":%016" PRIx64 ":%" PRIu64 ":%ld", (uint64_t)XXH64(t, strlen(t), 0),
                   fl_db_overrides_hash(overrides), seed, replica);
  if (ninputs > 0 && n > 0 && (size_t)n < size) {
    /* the files' contents, not their paths: a checkout elsewhere is the same experiment, an edited file is not */
    XXH64_state_t *h = XXH64_createState();
    if (h) {
      XXH64_reset(h, 0);
      for (int i = 0; i < ninputs; i++) {
        XXH64_update(h, inputs[i].key, strlen(inputs[i].key) + 1);
        char hex[17];
        snprintf(hex, sizeof hex, "%016" PRIx64, inputs[i].xxh64);
        XXH64_update(h, hex, 16);
      }
      snprintf(buf + n, size - (size_t)n, ":%016" PRIx64, (uint64_t)XXH64_digest(h));
      XXH64_freeState(h);
    }
  }
}

void fl_db_row_key(const fl_db_run *r, char *buf, size_t size)
{
  if (r->mode && strcmp(r->mode, "sim") == 0) {
    fl_db_sim_row_key(r->scenario_text, r->overrides, r->inputs, r->ninputs, r->seed, r->replica, buf, size);
  } else if (r->job_id) {
    const char *t = r->scenario_text ? r->scenario_text : "";
    snprintf(buf, size, "real:%016" PRIx64 ":job:%s", (uint64_t)XXH64(t, strlen(t), 0), r->job_id);
  } else {
    /* a real run happened once: its key is the moment and the process that wrote it */
    struct timespec ts;
    const char *t = r->scenario_text ? r->scenario_text : "";
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, size, "real:%016" PRIx64 ":%lld.%09ld:%ld", (uint64_t)XXH64(t, strlen(t), 0), (long long)ts.tv_sec,
             ts.tv_nsec, (long)getpid());
  }
}

/* The key as a text (row_key) or as the value another file stored (key) */
static fl_err fl_db_has_key(fl_db *db, const char *row_key, sqlite3_value *key, int *found)
{
  fl_err rc = FL_OK;
  *found = 0;
  if (!db->has_row)
    FL_CHECK(sqlite3_prepare_v2(db->h, "SELECT 1 FROM runs WHERE row_key = ?1 LIMIT 1", -1, &db->has_row, NULL) ==
                 SQLITE_OK,
             FL_ERR_DB, "%s: %s", db->path, sqlite3_errmsg(db->h));
  sqlite3_reset(db->has_row);
  if (key)
    sqlite3_bind_value(db->has_row, 1, key);
  else
    sqlite3_bind_text(db->has_row, 1, row_key, -1, SQLITE_TRANSIENT);
  *found = sqlite3_step(db->has_row) == SQLITE_ROW;
  sqlite3_reset(db->has_row);
done:
  return rc;
}

fl_err fl_db_has_row(fl_db *db, const char *row_key, int *found)
{
  return fl_db_has_key(db, row_key, NULL, found);
}

fl_err fl_db_has_row_value(fl_db *db, sqlite3_value *key, int *found)
{
  return fl_db_has_key(db, NULL, key, found);
}

fl_err fl_db_record_shard(fl_db *db, const char *sweep, long shard, long nshards, long expected)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  FL_CHECK(sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO shards (sweep, shard, nshards, expected) VALUES (?,?,?,?)",
                              -1, &st, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s: %s", db->path, sqlite3_errmsg(db->h));
  sqlite3_bind_text(st, 1, sweep, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 2, shard);
  sqlite3_bind_int64(st, 3, nshards);
  sqlite3_bind_int64(st, 4, expected);
  FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_DB, "%s: recording the shard: %s", db->path, sqlite3_errmsg(db->h));
done:
  sqlite3_finalize(st);
  return rc;
}

/* Bind event `e` to columns base+1 .. base+11 of an events insert. The run's first event is numbered explicitly,
 * the others take SQLite's next rowid (the largest + 1: this run's previous event, the run being the newest): an
 * explicit id costs a uniqueness search per row, the next rowid a walk down the right edge. fl_db_insert_run
 * checks the last id. */
static void fl_bind_event(sqlite3_stmt *st, int base, int64_t run_id, const fl_evlog_entry *e, size_t seq)
{
  if (seq == 0)
    sqlite3_bind_int64(st, base + 1, run_id * 4294967296);
  else
    sqlite3_bind_null(st, base + 1);
  sqlite3_bind_int64(st, base + 2, run_id);
  sqlite3_bind_double(st, base + 3, e->t_s);
  sqlite3_bind_int(st, base + 4, e->kind);
  fl_bind_count(st, base + 5, e->node);
  fl_bind_count(st, base + 6, e->rank);
  fl_bind_count(st, base + 7, e->peer);
  fl_bind_count(st, base + 8, e->n);
  if (isnan(e->value))
    sqlite3_bind_null(st, base + 9);
  else
    sqlite3_bind_double(st, base + 9, e->value);
  if (e->level)
    sqlite3_bind_text(st, base + 10, e->level, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, base + 10);
  if (e->label)
    sqlite3_bind_text(st, base + 11, e->label, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, base + 11);
}

/* Insert n events of run `run_id`, *seq of its events inserted before them: FL_DB_EV_BATCH in one statement,
 * fewer one by one. */
static fl_err fl_db_insert_events(fl_db *db, int64_t run_id, const fl_evlog_entry *ev, int n, size_t *seq)
{
  sqlite3_stmt *st = n == FL_DB_EV_BATCH ? db->ins_ev_batch : db->ins_ev;
  for (int i = 0; i < n;) {
    int rows = n == FL_DB_EV_BATCH ? n : 1;
    sqlite3_reset(st);
    for (int r = 0; r < rows; r++, i++)
      fl_bind_event(st, 11 * r, run_id, &ev[i], (*seq)++);
    if (sqlite3_step(st) != SQLITE_DONE)
      return fl_db_fail(db, "inserting events");
  }
  return FL_OK;
}

fl_err fl_db_machine_row(const fl_db_machine *m, long k, fl_db_job *out)
{
  fl_err rc = FL_OK;
  long at;
  FL_CHECK(k >= 0 && k < m->nrows, FL_ERR_INTERNAL, "job row %ld of %ld", k, m->nrows);
  if (m->rows) {
    *out = m->rows[k];
    goto done;
  }
  at = m->rows_at + k * (long)sizeof *out;
  FL_CHECK(m->rows_file && (ftell(m->rows_file) == at || fseek(m->rows_file, at, SEEK_SET) == 0) &&
               fread(out, sizeof *out, 1, m->rows_file) == 1,
           FL_ERR_IO, "cannot read job row %ld of a replica's: %s", k, strerror(errno));
done:
  return rc;
}

/* Bind every column of row r to the runs insert `st`, in table order (columns.h's `how` says how each is held). */
static fl_err fl_db_bind_run(sqlite3_stmt *st, const fl_db_run *r, const char *text_hash)
{
  fl_err rc = FL_OK;
  int i = 1;
  for (int c = 0; c < fl_run_ncolumns(); c++) {
    const fl_column *col = fl_run_column(c);
    const char *field = (const char *)r + (col->how == FL_COL_MREAL || col->how == FL_COL_MCOUNT ? 0 : col->offset);
    switch (col->how) {
    case FL_COL_AUTO: continue;
    case FL_COL_TEXT: fl_bind_text(st, i, *(const char *const *)(const void *)field); break;
    case FL_COL_TEXT0: {
      const char *v = *(const char *const *)(const void *)field;
      fl_bind_text(st, i, v ? v : "");
      break;
    }
    case FL_COL_REAL: fl_bind_real(st, i, *(const double *)(const void *)field); break;
    case FL_COL_COUNT: fl_bind_count(st, i, *(const long *)(const void *)field); break;
    case FL_COL_INT: sqlite3_bind_int64(st, i, *(const long *)(const void *)field); break;
    case FL_COL_SEED:
      /* SQLite integers are signed 64-bit: a seed from 2^63 on is stored as the same 64 bits (seed - 2^64),
       * exactly; readers cast it back to unsigned (docs/results.md) */
      sqlite3_bind_int64(st, i, (sqlite3_int64) * (const uint64_t *)(const void *)field);
      break;
    case FL_COL_VERSION: fl_bind_text(st, i, FL_VERSION); break;
    case FL_COL_EMPTY:
      fl_bind_text(st, i, ""); /* the text is in scenario_texts, under scenario_xxh64 */
      break;
    case FL_COL_INPUTS: {
      char *inputs = r->ninputs ? fl_inputs_format(r->inputs, r->ninputs) : NULL;
      FL_CHECK(!r->ninputs || inputs, FL_ERR_NOMEM, "out of memory");
      fl_bind_text(st, i, inputs);
      free(inputs);
      break;
    }
    case FL_COL_KEY: {
      char key[160];
      fl_db_row_key(r, key, sizeof key);
      fl_bind_text(st, i, key);
      break;
    }
    case FL_COL_HASH: fl_bind_text(st, i, text_hash); break;
    case FL_COL_NODE_HOURS:
      fl_bind_real(st, i,
                   r->job_nodes >= 0        ? (double)r->job_nodes * r->makespan_s / 3600.0
                   : r->platform_nodes >= 0 ? (double)r->platform_nodes * r->makespan_s / 3600.0
                                            : NAN);
      break;
    case FL_COL_MREAL:
      fl_bind_real(st, i, r->machine ? *(const double *)(const void *)((const char *)r->machine + col->offset) : NAN);
      break;
    case FL_COL_MCOUNT:
      fl_bind_count(st, i, r->machine ? *(const long *)(const void *)((const char *)r->machine + col->offset) : -1);
      break;
    }
    i++;
  }
done:
  return rc;
}

/* The input files a run read, content-addressed: a file used by a thousand replicas is stored once. */
static fl_err fl_db_insert_inputs(fl_db *db, const fl_db_run *r)
{
  fl_err rc = FL_OK;
  for (int k = 0; k < r->ninputs; k++) {
    char hex[20];
    sqlite3_stmt *in = db->ins_input;
    snprintf(hex, sizeof hex, "%016" PRIx64, r->inputs[k].xxh64);
    sqlite3_reset(in);
    sqlite3_bind_text(in, 1, hex, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(in, 2, r->inputs[k].size);
    fl_bind_text(in, 3, r->inputs[k].path);
    fl_bind_text(in, 4, r->inputs[k].text);
    if (sqlite3_step(in) != SQLITE_DONE) {
      rc = fl_db_fail(db, "recording an input file");
      goto done;
    }
  }
done:
  return rc;
}

/* A run's events, in its range of ids (run_id * 2^32 + its number): from the log's temporary file first, then from
 * memory, FL_DB_EV_BATCH rows a statement. */
static fl_err fl_db_insert_evlog(fl_db *db, int64_t run_id, const fl_evlog *events)
{
  fl_err rc = FL_OK;
  fl_evlog_entry *chunk = NULL, batch[FL_DB_EV_BATCH];
  size_t nchunk = 0, k = 0, from_spill = 0, seq = 0;
  int nb = 0;
  FL_CHECK(fl_evlog_count(events) <= 4294967295u, FL_ERR_INPUT,
           "%zu events in one run: more than a run's range of event ids (2^32) holds", fl_evlog_count(events));
  if (events->spill) {
    FL_CHECK(fseek((FILE *)events->spill, 0, SEEK_SET) == 0, FL_ERR_IO, "events: cannot read back: %s",
             strerror(errno));
    FL_CHECK((chunk = malloc(FL_EVLOG_CHUNK * sizeof *chunk)) != NULL, FL_ERR_NOMEM, "out of memory");
  }
  for (;;) {
    const fl_evlog_entry *e = NULL;
    if (from_spill < events->nspilled) {
      if (k == nchunk) {
        nchunk = fread(chunk, sizeof *chunk, FL_EVLOG_CHUNK, (FILE *)events->spill);
        k = 0;
        if (nchunk == 0) {
          free(chunk);
          rc = fl_err_set(FL_ERR_IO, "events: the temporary file came back short");
          goto done;
        }
      }
      e = &chunk[k++];
      from_spill++;
    } else if (from_spill - events->nspilled < events->n) {
      e = &events->v[from_spill++ - events->nspilled];
    }
    if (e)
      batch[nb++] = *e;
    /* FL_DB_EV_BATCH rows a statement (a third less than a statement a row); the last few one by one */
    if (nb == FL_DB_EV_BATCH || (!e && nb > 0)) {
      rc = fl_db_insert_events(db, run_id, batch, nb, &seq);
      nb = 0;
      if (rc != FL_OK) {
        free(chunk);
        goto done;
      }
    }
    if (!e)
      break;
  }
  free(chunk);
  FL_CHECK(seq == 0 || sqlite3_last_insert_rowid(db->h) == run_id * 4294967296 + (int64_t)seq - 1, FL_ERR_DB,
           "%s: events of run %" PRId64 " were not numbered in its range (an event of a newer run in the table?)",
           db->path, run_id);
done:
  return rc;
}

/* A workload run's jobs: a `jobs` row each. */
static fl_err fl_db_insert_jobs(fl_db *db, int64_t run_id, const fl_db_machine *m)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *js = db->ins_job;
  for (long k = 0; k < m->nrows; k++) {
    fl_db_job row;
    const fl_db_job *j = &row;
    FL_TRY(fl_db_machine_row(m, k, &row));
    sqlite3_reset(js);
    sqlite3_bind_int64(js, 1, run_id);
    sqlite3_bind_int64(js, 2, j->job);
    fl_bind_real(js, 3, j->submit_s);
    fl_bind_real(js, 4, j->start_s);
    fl_bind_real(js, 5, j->end_s);
    fl_bind_real(js, 6, j->run_s);
    sqlite3_bind_int64(js, 7, j->nodes);
    sqlite3_bind_int64(js, 8, j->failures);
    sqlite3_bind_int64(js, 9, j->checkpoints);
    fl_bind_real(js, 10, j->lost_work_s);
    fl_bind_real(js, 11, j->checkpoint_s);
    fl_bind_real(js, 12, j->restart_s);
    fl_bind_real(js, 13, j->io_wait_s);
    sqlite3_bind_int64(js, 14, j->copies > 0 ? j->copies : 1);
    if (sqlite3_step(js) != SQLITE_DONE) {
      rc = fl_db_fail(db, "inserting the jobs of a workload run");
      goto done;
    }
  }
done:
  return rc;
}

fl_err fl_db_insert_run(fl_db *db, const fl_db_run *r, const fl_evlog *events, int64_t *id)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = db->ins_run;
  int began = 0;
  int64_t run_id;
  const char *text = r->scenario_text ? r->scenario_text : "";
  char text_hash[17];

  FL_CHECK(st != NULL, FL_ERR_DB, "%s: opened read-only", db->path);
  snprintf(text_hash, sizeof text_hash, "%016" PRIx64, (uint64_t)XXH64(text, strlen(text), 0));
  FL_CHECK(!(events && events->oom), FL_ERR_NOMEM, "out of memory logging events; the replica is not written");
  FL_TRY(fl_db_begin(db, "starting a transaction"));
  began = 1;
  if (r->job_id) {
    /* one row per real job: another process of it (a replica set finishing at the same moment) may have written
     * it; the write lock held since BEGIN IMMEDIATE makes the check and the insert one step */
    char key[160];
    int found = 0;
    fl_db_row_key(r, key, sizeof key);
    FL_TRY(fl_db_has_row(db, key, &found));
    if (found) {
      if (id)
        *id = 0;
      goto done; /* rolled back: nothing to add */
    }
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  FL_TRY(fl_db_bind_run(st, r, text_hash));
  if (sqlite3_step(st) != SQLITE_DONE) {
    rc = fl_db_fail(db, "inserting a run");
    goto done;
  }
  if (sqlite3_changes(db->h) == 0) {
    /* another process wrote this row (same key) since the caller looked: it is there once */
    if (id)
      *id = 0;
    goto done; /* rolled back: nothing to add */
  }
  run_id = sqlite3_last_insert_rowid(db->h); /* before any other insert changes it */
  if (strcmp(text_hash, db->text_stored) != 0) {
    sqlite3_reset(db->ins_text);
    sqlite3_bind_text(db->ins_text, 1, text_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(db->ins_text, 2, text, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(db->ins_text) != SQLITE_DONE) {
      rc = fl_db_fail(db, "recording the scenario text");
      goto done;
    }
  }
  FL_TRY(fl_db_insert_inputs(db, r));
  if (events && events->enabled)
    FL_TRY(fl_db_insert_evlog(db, run_id, events));
  if (r->machine && r->machine->nrows > 0)
    FL_TRY(fl_db_insert_jobs(db, run_id, r->machine));
  FL_TRY(fl_db_exec(db, "COMMIT", "committing a run"));
  began = 0;
  memcpy(db->text_stored, text_hash, sizeof text_hash);
  if (id)
    *id = run_id;
done:
  if (began)
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* A column's "not applicable" (its `how`, columns.h): NAN for a real, -1 for a count, NULL for a string. */
#define FL_COL_NA_REAL(n) row->n = NAN;
#define FL_COL_NA_COUNT(n) row->n = -1;
#define FL_COL_NA_AUTO(n)
#define FL_COL_NA_TEXT(n)
#define FL_COL_NA_TEXT0(n)
#define FL_COL_NA_INT(n)
#define FL_COL_NA_SEED(n)
#define FL_COL_NA_VERSION(n)
#define FL_COL_NA_EMPTY(n)
#define FL_COL_NA_INPUTS(n)
#define FL_COL_NA_KEY(n)
#define FL_COL_NA_HASH(n)
#define FL_COL_NA_NODE_HOURS(n)
#define FL_COL_NA_MREAL(n)
#define FL_COL_NA_MCOUNT(n)
#define FL_COL_NA(name, decl, how, unit, engines, sum, doc) FL_COL_NA_##how(name)

void fl_db_run_clear(fl_db_run *row)
{
  memset(row, 0, sizeof *row);
  FL_RUN_COLUMNS(FL_COL_NA)
}

void fl_db_run_scenario(fl_db_run *row, const fl_scenario *sc, const char *mode)
{
  fl_db_run_clear(row);
  row->scenario = sc->name;
  row->scenario_path = sc->abs_path ? sc->abs_path : sc->path;
  row->scenario_text = sc->text;
  row->overrides = sc->overrides;
  row->mode = mode;
}

void fl_db_run_real(fl_db_run *row, const fl_scenario *sc, const char *status, int kills)
{
  fl_db_run_scenario(row, sc, "real");
  row->app = sc->app;
  row->strategy = sc->strategy; /* what ran: the real engine refuses a strategy it cannot run (exec/engine.h) */
  row->failure_model = sc->time_scale > 0 ? sc->model : (kills ? "kill" : "none");
  row->status = status;
  row->seed = sc->seed;
  row->node_mtbf_s = sc->time_scale > 0 ? sc->node_mtbf_s / sc->time_scale : NAN;
}
