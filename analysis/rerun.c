/* rerun.c — a stored simulated row, simulated again from what the row holds: its scenario text, overrides, seed
 * and replica, and the input files it read (which must be unchanged). `faultline rerun` compares the two rows;
 * timelines (report --timeline, the HTML report) take a run's phases from it when the run was stored without
 * them. */
#include "rerun.h"

#include "app.h"
#include "columns.h"
#include "inputs.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Columns that measure the host, not the simulation: never compared. */
static int fl_rerun_skip_column(const char *name)
{
  const fl_column *c = fl_run_column_named(name);
  return strcmp(name, "id") == 0 || strcmp(name, "wall_s") == 0 || strcmp(name, "policy_time_s") == 0 ||
         strcmp(name, "created_at") == 0 || (c && fl_column_derived(c)); /* derived: their sources are compared */
}

/* Compare every numeric column of the stored row (`a`) with the re-simulated one (`b`), exactly. Prints each
 * difference; returns how many differ, and in *max_rel the largest relative difference (INFINITY where a value is
 * missing on one side). */
int fl_rerun_compare(sqlite3_stmt *a, sqlite3_stmt *b, int *compared, double *max_rel)
{
  int diffs = 0;
  *compared = 0;
  *max_rel = 0.0;
  for (int i = 0; i < sqlite3_column_count(b); i++) {
    const char *name = sqlite3_column_name(b, i), *decl = sqlite3_column_decltype(b, i);
    int j = -1, ta, tb;
    if (!decl || (strcmp(decl, "REAL") != 0 && strcmp(decl, "INTEGER") != 0) || fl_rerun_skip_column(name))
      continue;
    for (int k = 0; k < sqlite3_column_count(a); k++)
      if (strcmp(sqlite3_column_name(a, k), name) == 0)
        j = k;
    if (j < 0)
      continue; /* a column the stored file's schema predates */
    (*compared)++;
    ta = sqlite3_column_type(a, j);
    tb = sqlite3_column_type(b, i);
    if (ta == SQLITE_NULL && tb == SQLITE_NULL)
      continue;
    if (ta == SQLITE_NULL && (strcmp(name, "energy_j") == 0 || strcmp(name, "failure_free_s") == 0))
      continue; /* a row written before the figure was (its file took the column later) */
    if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER && sqlite3_column_int64(a, j) == sqlite3_column_int64(b, i))
      continue;
    if (ta != SQLITE_NULL && tb != SQLITE_NULL && sqlite3_column_double(a, j) == sqlite3_column_double(b, i))
      continue;
    printf("  %-22s stored %.17g, re-simulated %.17g\n", name, ta == SQLITE_NULL ? NAN : sqlite3_column_double(a, j),
           tb == SQLITE_NULL ? NAN : sqlite3_column_double(b, i));
    {
      double x = sqlite3_column_double(a, j), y = sqlite3_column_double(b, i);
      double rel = ta == SQLITE_NULL || tb == SQLITE_NULL ? INFINITY : fabs(x - y) / fmax(fabs(x), fabs(y));
      *max_rel = fmax(*max_rel, rel);
    }
    diffs++;
  }
  return diffs;
}

static fl_err fl_rerun_check_inputs(const char *db_path, double id, const char *stored, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  fl_input *now = NULL;
  int n = 0;
  char *copy = NULL, *save = NULL, *line;
  if (!stored || !*stored)
    goto done; /* a row of a faultline that did not record inputs */
  FL_TRY(fl_app_inputs(sc, &now, &n));
  FL_ALLOC(copy, strlen(stored) + 1);
  strcpy(copy, stored);
  for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char key[64], path[4096], hex[24], nowhex[24];
    long size = -1;
    int k, found = -1;
    if (sscanf(line, "%63[^\t]\t%4095[^\t]\t%ld\t%23s", key, path, &size, hex) != 4)
      continue;
    /* platform.file and failures.trace are one each; state and speed profiles are told apart by their path */
    for (k = 0; k < n; k++)
      if (strcmp(now[k].key, key) == 0 &&
          (strcmp(key, "platform.file") == 0 || strncmp(key, "platform.", 9) != 0 || strcmp(now[k].path, path) == 0))
        found = k;
    FL_CHECK(found >= 0, FL_ERR_INPUT, "%s: run %.0f read %s %s, which the scenario no longer names", db_path, id, key,
             path);
    snprintf(nowhex, sizeof nowhex, "%016" PRIx64, now[found].xxh64);
    FL_CHECK(now[found].size == size && strcmp(nowhex, hex) == 0, FL_ERR_INPUT,
             "%s: run %.0f: %s %s changed since the run (then %ld bytes, xxh64 %s; now %ld bytes, xxh64 %s); the "
             "row's copy: SELECT text FROM input_files WHERE xxh64 = '%s'",
             db_path, id, key, now[found].path, size, hex, now[found].size, nowhex, hex);
  }
done:
  free(copy);
  fl_inputs_free(&now, n);
  return rc;
}

fl_err fl_rerun_load(const char *path, double id, fl_db **db, sqlite3_stmt **st, int cols[FL_RR_N])
{
  fl_err rc = FL_OK;
  static const char *const names[FL_RR_N] = {"fl_scenario_text", "overrides", "scenario_path", "replica", "mode",
                                             "inputs",           "status"};
  FL_TRY(fl_db_open_readonly(path, db));
  {
    char *q =
        sqlite3_mprintf("SELECT *, %s AS fl_scenario_text FROM runs WHERE id = ?", fl_db_text_sql(fl_db_sqlite(*db)));
    int ok = q && sqlite3_prepare_v2(fl_db_sqlite(*db), q, -1, st, NULL) == SQLITE_OK;
    sqlite3_free(q);
    FL_CHECK(ok, FL_ERR_DB, "%s: %s", path, sqlite3_errmsg(fl_db_sqlite(*db)));
  }
  sqlite3_bind_int64(*st, 1, (sqlite3_int64)id);
  FL_CHECK(sqlite3_step(*st) == SQLITE_ROW, FL_ERR_INPUT, "%s: no run with id %.0f", path, id);
  for (int c = 0; c < FL_RR_N; c++) {
    cols[c] = -1;
    for (int k = 0; k < sqlite3_column_count(*st); k++)
      if (strcmp(sqlite3_column_name(*st, k), names[c]) == 0)
        cols[c] = k;
    FL_CHECK(cols[c] >= 0 || c == FL_RR_INPUTS, FL_ERR_INPUT, "%s: not a faultline results database (columns missing)",
             path);
  }
  FL_CHECK(strcmp((const char *)sqlite3_column_text(*st, cols[FL_RR_MODE]), "sim") == 0, FL_ERR_INPUT,
           "%s: run %.0f is a real run; only simulated runs can be re-simulated", path, id);
done:
  return rc;
}

fl_err fl_rerun_sim(const char *path, double id, sqlite3_stmt *st, const int cols[FL_RR_N], fl_evlog *log,
                    fl_scenario **sc, fl_sim **sim, fl_sim_result *res, fl_db **mem)
{
  fl_err rc = FL_OK;
  fl_db_run row;
  long replica = (long)sqlite3_column_int64(st, cols[FL_RR_REPLICA]);
  FL_TRY(fl_scenario_replay((const char *)sqlite3_column_text(st, cols[FL_RR_TEXT]),
                            (const char *)sqlite3_column_text(st, cols[FL_RR_OVER]),
                            (const char *)sqlite3_column_text(st, cols[FL_RR_PATH]), sc));
  FL_TRY(fl_rerun_check_inputs(
      path, id, cols[FL_RR_INPUTS] >= 0 ? (const char *)sqlite3_column_text(st, cols[FL_RR_INPUTS]) : NULL, *sc));
  FL_TRY(fl_sim_create(*sc, sim));
  FL_TRY(fl_sim_run_replica(*sim, replica, res, log));
  fl_sim_fill_row(*sim, *sc, replica, res, &row);
  FL_TRY(fl_db_open(":memory:", mem));
  FL_TRY(fl_db_insert_run(*mem, &row, log, NULL));
done:
  return rc;
}

fl_err fl_rerun_timeline(sqlite3 *h, const char *path, long run, fl_db **mem)
{
  fl_err rc = FL_OK;
  fl_db *ro = NULL;
  sqlite3_stmt *st = NULL, *q = NULL;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  fl_sim_result res;
  fl_evlog log;
  int cols[FL_RR_N], has = 0;
  char *sql;

  fl_evlog_init(&log, 2);
  sql = sqlite3_mprintf("SELECT (SELECT mode = 'sim' AND app IN ('bsp', 'gridworld', 'workflow') FROM runs WHERE "
                        "id = ?1), EXISTS (SELECT 1 FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " AND kind IN ('phase', "
                                                                                           "'task'))",
                        fl_db_events_sql(h));
  FL_CHECK(sql && sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", path, sqlite3_errmsg(h));
  sqlite3_bind_int64(q, 1, run);
  has = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1 && sqlite3_column_int(q, 1) == 0;
  if (!has)
    goto done; /* as stored: it has its phases (a workflow: its tasks), or is a run without them (real, workload) */
  rc = fl_rerun_load(path, (double)run, &ro, &st, cols);
  if (rc == FL_OK)
    rc = fl_rerun_sim(path, (double)run, st, cols, &log, &sc, &sim, &res, mem);
  if (rc != FL_OK && rc != FL_ERR_NOMEM) {
    /* an input file changed since, a platform this process cannot load: the stored events still draw */
    fprintf(stderr,
            "faultline: run %ld was stored without its phases and cannot be simulated again (%s): drawn "
            "from its stored events\n",
            run, fl_err_msg());
    fl_db_close(mem);
    rc = FL_OK;
    goto done;
  }
  FL_TRY(rc);
  {
    /* the run keeps its id in the copy (its events' ids are in its id's range) */
    char *renum = sqlite3_mprintf("PRAGMA foreign_keys = OFF; UPDATE runs SET id = %ld WHERE id = 1; UPDATE events "
                                  "SET run_id = %ld, id = id + %ld * 4294967296 WHERE run_id = 1",
                                  run, run, run - 1);
    int same = strcmp((const char *)sqlite3_column_text(st, cols[FL_RR_STATUS]), res.status) == 0;
    FL_CHECK(renum && sqlite3_exec(fl_db_sqlite(*mem), renum, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "timeline: %s",
             sqlite3_errmsg(fl_db_sqlite(*mem)));
    sqlite3_free(renum);
    for (int k = 0; k < sqlite3_column_count(st); k++)
      if (strcmp(sqlite3_column_name(st, k), "makespan_s") == 0)
        same &= sqlite3_column_double(st, k) == res.makespan_s;
    fprintf(stderr,
            same ? "faultline: run %ld was stored without its phases (run.events = phases logs them): simulated again "
                   "from its row for the timeline, to the same makespan and status\n"
                 : "faultline: run %ld was stored without its phases: simulated again from its row, it DIFFERS from "
                   "the stored row (faultline rerun says how); the timeline is the new simulation's\n",
            run);
  }
done:
  sqlite3_free(sql);
  sqlite3_finalize(q);
  sqlite3_finalize(st);
  fl_db_close(&ro);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  fl_evlog_free(&log);
  return rc;
}
