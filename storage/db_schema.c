/* db_schema.c — the results database's schema (see db.h): created with IF NOT EXISTS so many studies can append to one
 * file (a `run_summary` view derives waste, so no derived figure is ever stored twice; `runs`' CREATE TABLE and its
 * INSERT come from columns.h), the event kinds' vocabulary and the events_text view, and the upgrades of files
 * written by older builds (columns added, events moved to schema 3, the row key's index). */
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

/* The tables but `runs`, whose CREATE TABLE comes from columns.h (fl_db_runs_sql). */
const char fl_db_schema[] =
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

/* CREATE TABLE runs, from columns.h. sqlite3_malloc'd (NULL: out of memory). */
char *fl_db_runs_sql(void)
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
char *fl_db_ins_run_sql(int key_unique)
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
fl_err fl_db_add_missing_columns(fl_db *db)
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
fl_err fl_db_events_vocabulary(fl_db *db)
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
fl_err fl_db_set_aside_old_events(fl_db *db, int *old)
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

fl_err fl_db_upgrade_events(fl_db *db)
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
fl_err fl_db_key_index(fl_db *db)
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
