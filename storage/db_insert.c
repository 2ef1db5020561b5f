/* db_insert.c — the results database's rows (see db.h): a run's row bound from fl_db_run (columns.h), its events
 * in batches, its jobs and input files, in one transaction; a row's key (what makes it the same run), found again
 * to skip or resume; and a row's not-applicable defaults. */
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
