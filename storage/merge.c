/* merge.c — `faultline merge`: shards of a sweep (each its own SQLite file, written by `simulate --shard I/N`)
 * into one results database.
 *
 * A row is identified by its row_key (scenario text, overrides but run.db and run.replicas, seed, replica), so
 * merging is idempotent: a row already in the output is skipped, merging twice adds nothing, and shards that
 * overlap (a shard re-run after a crash) give each row once. Inputs are opened read-only (immutable when they have
 * no WAL) and never changed. Rows are copied column by column by name, so a shard written by an older faultline
 * (fewer columns) merges into a newer file. Shards are attached in batches (as many as SQLite attaches at once),
 * each batch copied in one transaction (SQLite cannot ATTACH inside one), so a merge stopped half-way has whole
 * shards in, and running it again completes it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "merge.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define FL_MERGE_MAX_SHARDS 100000

static long fl_file_size(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

typedef struct fl_shard_info {
  char sweep[40];
  long shard, nshards, expected, rows;
  int keyed;     /* every row has a row_key */
  char hash[17]; /* the scenario text's xxh64 ("" when the file has no rows) */
  const char *path;
  fl_err rc; /* the scan's outcome, and its message */
  char msg[1024];
} fl_shard_info;

/* Has another process `path` open, SQLite in WAL mode? Every connection to a WAL database holds a read lock on
 * its -shm file's "DMS" byte while it is open (SQLite's unix VFS: byte 128, after the 8 WAL locks from 120) and
 * takes it exclusively only when it is the last to close; F_GETLK asks, without taking anything. A -shm file
 * nobody locks is what a killed writer leaves: not in use. */
static int fl_merge_in_use(const char *path)
{
  char shm[4200];
  struct flock l;
  int fd, busy;
  snprintf(shm, sizeof shm, "%s-shm", path);
  if ((fd = open(shm, O_RDONLY)) < 0)
    return 0;
  memset(&l, 0, sizeof l);
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  l.l_start = 128;
  l.l_len = 1;
  busy = fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK;
  close(fd);
  return busy;
}

static fl_err fl_merge_scan(const char *path, fl_shard_info *info)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  sqlite3_stmt *st = NULL;
  sqlite3 *h;

  memset(info, 0, sizeof *info);
  info->path = path;
  info->shard = info->nshards = info->expected = -1;
  /* a shard still being written would be merged in part, and its count would change under the merge */
  FL_CHECK(!fl_merge_in_use(path), FL_ERR_INPUT,
           "%s: being written (another process has it open: a shard still running?); merge it when that is done", path);
  FL_TRY(fl_db_open_readonly(path, &db));
  h = fl_db_sqlite(db);
  FL_CHECK(sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW,
           FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(h));
  info->rows = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  /* one scenario per merge: every row's scenario text is the same (its xxh64, stored since schema 2); and every
   * row one the results schema takes (a file with faultline's tables but not its constraints could hold others),
   * so that copying cannot fail half-way */
  {
    char *q = sqlite3_mprintf(
        "SELECT h, SUM(bad) FROM (SELECT %s AS h, (mode IS NULL OR mode NOT IN ('sim', 'real') OR"
        " faultline_version IS NULL OR scenario IS NULL OR scenario_text IS NULL OR overrides IS NULL OR app IS NULL"
        " OR strategy IS NULL OR failure_model IS NULL OR seed IS NULL OR replica IS NULL OR nodes IS NULL OR"
        " platform_nodes IS NULL OR work_s IS NULL OR status IS NULL OR created_at IS NULL) AS bad FROM runs)"
        " GROUP BY h",
        fl_db_text_hash_sql(h));
    int ok = q && fl_db_sql_functions(h) == SQLITE_OK && sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(q);
    FL_CHECK(ok, FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(h));
  }
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *x = (const char *)sqlite3_column_text(st, 0);
    FL_CHECK(!info->hash[0] || strcmp(x, info->hash) == 0, FL_ERR_INPUT,
             "%s: rows of two scenarios (scenario text xxh64 %s and %s); merge the shards of one sweep at a time", path,
             info->hash, x);
    FL_CHECK(sqlite3_column_int64(st, 1) == 0, FL_ERR_INPUT,
             "%s: %lld row%s the results schema refuses (a missing value, a mode other than sim or real); it is not a "
             "file faultline wrote",
             path, (long long)sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 1) == 1 ? "" : "s");
    snprintf(info->hash, sizeof info->hash, "%s", x);
  }
  sqlite3_finalize(st);
  st = NULL;
  /* the fast path (ATTACH) needs every row keyed: files of faultline versions before row keys are not */
  if (sqlite3_prepare_v2(h, "SELECT COUNT(*) - COUNT(row_key) FROM runs", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    info->keyed = sqlite3_column_int64(st, 0) == 0;
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(h, "SELECT sweep, shard, nshards, expected FROM shards", -1, &st, NULL) == SQLITE_OK) {
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char *sweep = (const char *)sqlite3_column_text(st, 0);
      FL_CHECK(++n == 1, FL_ERR_INPUT, "%s: written by more than one shard (--shard given different values)", path);
      /* faultline's sweep ids are 16 hex digits: a longer one, cut short, could pass for another sweep's */
      FL_CHECK(sweep && strlen(sweep) < sizeof info->sweep, FL_ERR_INPUT,
               "%s: shards table: sweep id '%.60s%s' is not one faultline writes", path, sweep ? sweep : "(null)",
               sweep && strlen(sweep) > 60 ? "..." : "");
      snprintf(info->sweep, sizeof info->sweep, "%s", sweep);
      info->shard = (long)sqlite3_column_int64(st, 1);
      info->nshards = (long)sqlite3_column_int64(st, 2);
      info->expected = (long)sqlite3_column_int64(st, 3);
    }
  }
done:
  sqlite3_finalize(st);
  fl_db_close(&db);
  return rc;
}

/* Copy what `src` has that `out` lacks; counts go to *added and *present. */
/* The event kinds of file `hi` that this version does not know become legacy kinds of the output (each event's text
 * kept in note). */
static fl_err fl_merge_kinds(sqlite3 *ho, sqlite3 *hi, const char *path)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *kinds = NULL;
  char *q = sqlite3_mprintf("SELECT DISTINCT kind FROM %s", fl_db_events_sql(hi));
  FL_CHECK(q && sqlite3_prepare_v2(hi, q, -1, &kinds, NULL) == SQLITE_OK, FL_ERR_INPUT, "%s: %s", path,
           sqlite3_errmsg(hi));
  while (rc == FL_OK && sqlite3_step(kinds) == SQLITE_ROW) {
    sqlite3_free(q);
    if (!(q = sqlite3_mprintf("SELECT %Q AS name", (const char *)sqlite3_column_text(kinds, 0))))
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    else
      rc = fl_db_add_legacy_kinds(ho, q);
  }
done:
  sqlite3_free(q);
  sqlite3_finalize(kinds);
  return rc;
}

/* The input files' content of file `hi`, content-addressed (a file the output holds already is kept once). */
static fl_err fl_merge_inputs(fl_db *out, sqlite3 *hi)
{
  fl_err rc = FL_OK;
  sqlite3 *ho = fl_db_sqlite(out);
  sqlite3_stmt *inp = NULL, *inp_ins = NULL;
  if (sqlite3_prepare_v2(hi, "SELECT xxh64, size, path, text FROM input_files", -1, &inp, NULL) == SQLITE_OK) {
    FL_CHECK(sqlite3_prepare_v2(ho, "INSERT OR IGNORE INTO input_files (xxh64, size, path, text) VALUES (?,?,?,?)", -1,
                                &inp_ins, NULL) == SQLITE_OK,
             FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));
    while (sqlite3_step(inp) == SQLITE_ROW) {
      sqlite3_reset(inp_ins);
      for (int k = 0; k < 4; k++)
        sqlite3_bind_value(inp_ins, k + 1, sqlite3_column_value(inp, k));
      FL_CHECK(sqlite3_step(inp_ins) == SQLITE_DONE, FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));
    }
  }
done:
  sqlite3_finalize(inp);
  sqlite3_finalize(inp_ins);
  return rc;
}

static fl_err fl_merge_copy(fl_db *out, const char *path, long *added, long *present)
{
  fl_err rc = FL_OK;
  fl_db *in = NULL;
  sqlite3 *hi, *ho = fl_db_sqlite(out);
  sqlite3_stmt *sel = NULL, *ins = NULL, *ev_sel = NULL, *ev_ins = NULL;
  char *sql = NULL, *key = NULL;
  int ncols, id_col = -1, key_col = -1, map[128], nmap = 0;
  size_t len = 0;

  FL_TRY(fl_db_open_readonly(path, &in));
  hi = fl_db_sqlite(in);
  sqlite3_exec(hi, "PRAGMA mmap_size = 1073741824; PRAGMA cache_size = -65536", NULL, NULL, NULL);
  FL_CHECK(sqlite3_prepare_v2(hi, "SELECT * FROM runs ORDER BY id", -1, &sel, NULL) == SQLITE_OK, FL_ERR_INPUT,
           "%s: %s", path, sqlite3_errmsg(hi));
  ncols = sqlite3_column_count(sel);
  FL_CHECK(ncols <= (int)(sizeof map / sizeof map[0]), FL_ERR_INPUT, "%s: %d columns in runs", path, ncols);
  /* the columns both files have, by name, but id (the output numbers its rows) */
  FL_ALLOC(sql, 64 + (size_t)ncols * 48);
  len = (size_t)sprintf(sql, "INSERT INTO runs (");
  for (int j = 0; j < ncols; j++) {
    const char *name = sqlite3_column_name(sel, j);
    sqlite3_stmt *probe = NULL;
    char q[160];
    if (strcmp(name, "id") == 0) {
      id_col = j;
      continue;
    }
    if (strcmp(name, "row_key") == 0)
      key_col = j;
    snprintf(q, sizeof q, "SELECT 1 FROM pragma_table_info('runs') WHERE name = '%.100s'", name);
    if (sqlite3_prepare_v2(ho, q, -1, &probe, NULL) == SQLITE_OK && sqlite3_step(probe) == SQLITE_ROW) {
      len += (size_t)sprintf(sql + len, "%s%s", nmap ? ", " : "", name);
      map[nmap++] = j;
    }
    sqlite3_finalize(probe);
  }
  FL_CHECK(id_col >= 0, FL_ERR_INPUT, "%s: runs has no id column", path);
  len += (size_t)sprintf(sql + len, "%s) VALUES (", key_col < 0 ? ", row_key" : "");
  for (int k = 0; k < nmap + (key_col < 0); k++)
    len += (size_t)sprintf(sql + len, "%s?", k ? "," : "");
  sprintf(sql + len, ")");
  FL_CHECK(sqlite3_prepare_v2(ho, sql, -1, &ins, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", fl_db_path(out),
           sqlite3_errmsg(ho));
  /* the events, typed as this version writes them: files of this path (before row keys) have text events */
  {
    char *q = sqlite3_mprintf("SELECT t_s, kind, node, detail, id FROM %s WHERE run_id = ?1 ORDER BY id",
                              fl_db_events_sql(hi));
    FL_CHECK(q != NULL, FL_ERR_NOMEM, "out of memory");
    if (sqlite3_prepare_v2(hi, q, -1, &ev_sel, NULL) != SQLITE_OK) {
      rc = fl_err_set(FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(hi));
      sqlite3_free(q);
      goto done;
    }
    sqlite3_free(q);
  }
  FL_TRY(fl_merge_kinds(ho, hi, path));
  FL_CHECK(sqlite3_prepare_v2(ho,
                              "INSERT INTO events (id, run_id, t_s, kind, node, note) VALUES (?1 * 4294967296 + ?2, ?1,"
                              " ?3, (SELECT MIN(code) FROM event_kinds WHERE name = ?4), ?5, COALESCE(?6, ''))",
                              -1, &ev_ins, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));

  for (int step; (step = sqlite3_step(sel)) != SQLITE_DONE;) {
    int found = 0;
    int64_t old_id, new_id;
    sqlite3_free(key);
    key = NULL;
    FL_CHECK(step == SQLITE_ROW, FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(hi));
    old_id = sqlite3_column_int64(sel, id_col);
    /* the key as stored, looked up as the unique index compares it; a legacy key whole, however long (a key cut
     * short would not find its row, and two cut alike would be one) */
    if (key_col >= 0 && sqlite3_column_type(sel, key_col) != SQLITE_NULL) {
      FL_TRY(fl_db_has_row_value(out, sqlite3_column_value(sel, key_col), &found));
    } else {
      /* a row from before row keys: its identity from what it stored */
      const void *t = NULL;
      size_t tn = 0;
      for (int j = 0; j < ncols; j++)
        if (strcmp(sqlite3_column_name(sel, j), "scenario_text") == 0) {
          t = sqlite3_column_blob(sel, j);
          tn = (size_t)sqlite3_column_bytes(sel, j);
        }
      key = sqlite3_mprintf("legacy:%016" PRIx64 ":%s:%" PRId64, (uint64_t)XXH64(t ? t : "", tn, 0), path, old_id);
      FL_CHECK(key != NULL, FL_ERR_NOMEM, "out of memory");
      FL_TRY(fl_db_has_row(out, key, &found));
    }
    if (found) {
      (*present)++;
      continue;
    }
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    for (int k = 0; k < nmap; k++)
      sqlite3_bind_value(ins, k + 1, sqlite3_column_value(sel, map[k]));
    if (key_col < 0)
      sqlite3_bind_text(ins, nmap + 1, key, -1, SQLITE_TRANSIENT);
    else if (sqlite3_column_type(sel, key_col) == SQLITE_NULL) {
      /* the row_key column is among the mapped ones: give it the identity computed above */
      for (int k = 0; k < nmap; k++)
        if (map[k] == key_col)
          sqlite3_bind_text(ins, k + 1, key, -1, SQLITE_TRANSIENT);
    }
    FL_CHECK(sqlite3_step(ins) == SQLITE_DONE, FL_ERR_DB, "%s: inserting a row of %s: %s", fl_db_path(out), path,
             sqlite3_errmsg(ho));
    new_id = sqlite3_last_insert_rowid(ho);
    sqlite3_reset(ev_sel);
    sqlite3_bind_int64(ev_sel, 1, old_id);
    for (int64_t seq = 0; sqlite3_step(ev_sel) == SQLITE_ROW; seq++) {
      sqlite3_reset(ev_ins);
      sqlite3_bind_int64(ev_ins, 1, new_id);
      sqlite3_bind_int64(ev_ins, 2, seq);
      sqlite3_bind_value(ev_ins, 3, sqlite3_column_value(ev_sel, 0));
      sqlite3_bind_value(ev_ins, 4, sqlite3_column_value(ev_sel, 1));
      sqlite3_bind_value(ev_ins, 5, sqlite3_column_value(ev_sel, 2));
      sqlite3_bind_value(ev_ins, 6, sqlite3_column_value(ev_sel, 3));
      FL_CHECK(sqlite3_step(ev_ins) == SQLITE_DONE, FL_ERR_DB, "%s: inserting events of %s: %s", fl_db_path(out), path,
               sqlite3_errmsg(ho));
    }
    (*added)++;
  }
  FL_TRY(fl_merge_inputs(out, hi));
done:
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  sqlite3_finalize(ev_sel);
  sqlite3_finalize(ev_ins);
  sqlite3_free(key);
  free(sql);
  fl_db_close(&in);
  return rc;
}

/* Does schema `in` of connection h have table `name`? */
static int fl_merge_has_table(sqlite3 *h, const char *in, const char *name)
{
  sqlite3_stmt *st = NULL;
  char *q = sqlite3_mprintf("SELECT 1 FROM %s.sqlite_schema WHERE type = 'table' AND name = %Q", in, name);
  int have = q && sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  sqlite3_free(q);
  return have;
}

/* Copy the rows of attached schema `in` (shard `path`, every row keyed) that the output lacks, their events and
 * the content-addressed tables, inside the caller's transaction. */
static fl_err fl_merge_attached(sqlite3 *ho, const char *out_path, int unique, const char *in, const char *path,
                                long rows, long *added, long *present)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  char *q = NULL, *cols = NULL;
  sqlite3_int64 before = 0, n;

  /* the columns both have, but id (the output numbers its rows) */
  q = sqlite3_mprintf("SELECT group_concat(i.name, ', ') FROM pragma_table_info('runs', %Q) i"
                      " JOIN pragma_table_info('runs', 'main') o ON o.name = i.name WHERE i.name <> 'id'",
                      in);
  FL_CHECK(q && sqlite3_prepare_v2(ho, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW, FL_ERR_DB,
           "%s: %s", path, sqlite3_errmsg(ho));
  cols = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
  FL_CHECK(cols, FL_ERR_NOMEM, "out of memory");
  sqlite3_finalize(st);
  st = NULL;
  sqlite3_free(q);
  /* rows inserted by this shard get ids above every id there now */
  FL_CHECK(sqlite3_prepare_v2(ho, "SELECT COALESCE(MAX(id), 0) FROM main.runs", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW,
           FL_ERR_DB, "%s: %s", out_path, sqlite3_errmsg(ho));
  before = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  /* rows whose key the output has are skipped: by the unique index itself where the output has one (one index
   * step a row), else by a lookup first (a schema-1 file that held duplicate keys). OR IGNORE rather than ON
   * CONFLICT DO NOTHING: a statement that cannot abort needs no statement journal, which would copy every index
   * page the shard touches (a third of the merge's time); what else IGNORE would skip (a row the schema refuses)
   * is caught below. */
  q = unique
          ? sqlite3_mprintf("INSERT OR IGNORE INTO main.runs (%s) SELECT %s FROM %s.runs r ORDER BY r.id", cols, cols,
                            in)
          : sqlite3_mprintf("INSERT INTO main.runs (%s) SELECT %s FROM %s.runs r"
                            " WHERE NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.row_key = r.row_key) ORDER BY r.id",
                            cols, cols, in);
  FL_CHECK(q && sqlite3_exec(ho, q, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: merging %s: %s", out_path, path,
           sqlite3_errmsg(ho));
  n = sqlite3_changes64(ho);
  *added += (long)n;
  *present += rows - (long)n;
  sqlite3_free(q);
  q = NULL;
  if (unique) {
    /* every row of the shard is in the output now, added or there before: a row IGNORE dropped for another
     * reason than its key (a NULL where the schema wants a value, an unknown mode) would not be */
    q = sqlite3_mprintf("SELECT COUNT(*) FROM %s.runs r WHERE NOT EXISTS (SELECT 1 FROM main.runs m"
                        " WHERE m.row_key = r.row_key)",
                        in);
    FL_CHECK(q && sqlite3_prepare_v2(ho, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW, FL_ERR_DB,
             "%s: %s", out_path, sqlite3_errmsg(ho));
    FL_CHECK(sqlite3_column_int64(st, 0) == 0, FL_ERR_INPUT,
             "%s: %lld row%s the results schema refuses (a missing value, an unknown mode); nothing of its batch of "
             "shards is merged",
             path, (long long)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 0) == 1 ? "" : "s");
    sqlite3_finalize(st);
    st = NULL;
    sqlite3_free(q);
    q = NULL;
  }
  if (n > 0 && fl_merge_has_table(ho, in, "events")) {
    /* typed as this version writes them, whichever version wrote the shard */
    q = sqlite3_mprintf("SELECT r.id AS old_id, m.id AS new_id FROM %s.runs r"
                        " JOIN main.runs m ON m.row_key = r.row_key AND m.id > %lld",
                        in, (long long)before);
    FL_CHECK(q != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_db_copy_events(ho, in, "events", q));
    sqlite3_free(q);
    q = NULL;
  }
  if (n > 0 && fl_merge_has_table(ho, in, "jobs")) {
    /* a workload run's jobs, under its new id (a shard from before replicated workloads: one copy each) */
    q = sqlite3_mprintf("INSERT INTO main.jobs (run_id, job, submit_s, start_s, end_s, run_s, nodes, failures,"
                        " checkpoints, lost_work_s, checkpoint_s, restart_s, io_wait_s, copies)"
                        " SELECT m.id, j.job, j.submit_s, j.start_s, j.end_s, j.run_s, j.nodes,"
                        " j.failures, j.checkpoints, j.lost_work_s, j.checkpoint_s, j.restart_s, j.io_wait_s, %s"
                        " FROM %s.jobs j JOIN %s.runs r ON r.id = j.run_id JOIN main.runs m ON m.row_key = r.row_key"
                        " AND m.id > %lld",
                        fl_db_has_column(ho, in, "jobs", "copies") ? "j.copies" : "1", in, in, (long long)before);
    FL_CHECK(q && sqlite3_exec(ho, q, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: merging the jobs of %s: %s",
             out_path, path, sqlite3_errmsg(ho));
    sqlite3_free(q);
    q = NULL;
  }
  /* the inputs' content and the scenario text, content-addressed */
  if (fl_merge_has_table(ho, in, "input_files")) {
    q = sqlite3_mprintf("INSERT OR IGNORE INTO main.input_files (xxh64, size, path, text)"
                        " SELECT xxh64, size, path, text FROM %s.input_files",
                        in);
    FL_CHECK(q && sqlite3_exec(ho, q, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: merging %s: %s", out_path, path,
             sqlite3_errmsg(ho));
    sqlite3_free(q);
    q = NULL;
  }
  if (fl_merge_has_table(ho, in, "scenario_texts")) {
    q = sqlite3_mprintf(
        "INSERT OR IGNORE INTO main.scenario_texts (xxh64, text) SELECT xxh64, text FROM %s.scenario_texts", in);
    FL_CHECK(q && sqlite3_exec(ho, q, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: merging %s: %s", out_path, path,
             sqlite3_errmsg(ho));
  }
done:
  sqlite3_finalize(st);
  sqlite3_free(q);
  sqlite3_free(cols);
  return rc;
}

/* The fast path: shards whose rows are all keyed, ATTACHed to the output's connection (as many at once as SQLite
 * allows) and copied by SQLite, in one transaction per batch: a commit rewrites the output's row-key index pages,
 * so fewer commits write far less. Each shard is opened read-only, nothing created beside it (fl_db_reader_uri). */
static fl_err fl_merge_batch(fl_db *out, const fl_shard_info *info, int n, long *added, long *present)
{
  fl_err rc = FL_OK;
  sqlite3 *ho = fl_db_sqlite(out);
  sqlite3_stmt *st = NULL;
  int attached = 0, began = 0;

  for (; attached < n; attached++) {
    const char *path = info[attached].path;
    char as[16], *uri = fl_db_reader_uri(path);
    FL_CHECK(uri != NULL, FL_ERR_NOMEM, "out of memory");
    snprintf(as, sizeof as, "fl_in%d", attached);
    if (sqlite3_prepare_v2(ho, "ATTACH ?1 AS ?2", -1, &st, NULL) != SQLITE_OK) {
      free(uri);
      rc = fl_err_set(FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));
      goto done;
    }
    sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, as, -1, SQLITE_TRANSIENT);
    free(uri);
    FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_INPUT, "%s: cannot attach it: %s", path, sqlite3_errmsg(ho));
    sqlite3_finalize(st);
    st = NULL;
  }
  FL_CHECK(sqlite3_exec(ho, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", fl_db_path(out),
           sqlite3_errmsg(ho));
  began = 1;
  for (int k = 0; k < n; k++) {
    char as[16];
    snprintf(as, sizeof as, "fl_in%d", k);
    FL_TRY(
        fl_merge_attached(ho, fl_db_path(out), fl_db_key_unique(out), as, info[k].path, info[k].rows, added, present));
  }
  FL_CHECK(sqlite3_exec(ho, "COMMIT", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", fl_db_path(out),
           sqlite3_errmsg(ho));
  began = 0;
done:
  sqlite3_finalize(st);
  if (began)
    sqlite3_exec(ho, "ROLLBACK", NULL, NULL, NULL);
  for (int k = 0; k < attached; k++) {
    char sql[32];
    snprintf(sql, sizeof sql, "DETACH fl_in%d", k);
    sqlite3_exec(ho, sql, NULL, NULL, NULL);
  }
  return rc;
}

/* The scans, several files at a time: each reads its whole file (integrity check, every row's scenario), and
 * they are independent. Each thread takes every nthreads-th file; the outcome stays with the file. */
typedef struct fl_scan_job {
  fl_shard_info *info;
  const char *const *paths;
  int n, first, step;
} fl_scan_job;

static void *fl_merge_scan_thread(void *arg)
{
  fl_scan_job *j = arg;
  for (int k = j->first; k < j->n; k += j->step) {
    fl_err rc = fl_merge_scan(j->paths[k], &j->info[k]);
    j->info[k].rc = rc;
    if (rc != FL_OK)
      snprintf(j->info[k].msg, sizeof j->info[k].msg, "%s", fl_err_msg());
  }
  return NULL;
}

static fl_err fl_merge_scan_all(const char *const *paths, int n, fl_shard_info *info)
{
  fl_err rc = FL_OK;
  enum { FL_SCAN_THREADS = 8 };
  pthread_t th[FL_SCAN_THREADS];
  fl_scan_job jobs[FL_SCAN_THREADS];
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = cores < 1 ? 1 : cores > FL_SCAN_THREADS ? FL_SCAN_THREADS : (int)cores, started = 0;
  if (nt > n)
    nt = n;
  for (int t = 0; t < nt; t++) {
    jobs[t] = (fl_scan_job){.info = info, .paths = paths, .n = n, .first = t, .step = nt};
    if (t > 0 && pthread_create(&th[t], NULL, fl_merge_scan_thread, &jobs[t]) == 0)
      started |= 1 << t;
  }
  for (int t = 0; t < nt; t++)
    if (!(started & (1 << t)))
      fl_merge_scan_thread(&jobs[t]); /* this thread's share, and that of any thread that could not start */
  for (int t = 1; t < nt; t++)
    if (started & (1 << t))
      pthread_join(th[t], NULL);
  /* the first bad file in the order given, as one run through them would have found */
  for (int k = 0; k < n; k++)
    FL_CHECK(info[k].rc == FL_OK, info[k].rc, "%s", info[k].msg);
done:
  return rc;
}

fl_err fl_db_merge(const char *out_path, const char *const *shards, int nshards, FILE *log, int *incomplete)
{
  fl_err rc = FL_OK;
  fl_shard_info *info = NULL, out_info = {.path = out_path};
  fl_db *out = NULL;
  const char *text_hash = NULL, *text_from = NULL;
  int began = 0;
  long added = 0, present = 0;
  char *out_real = NULL;

  *incomplete = 0;
  FL_CHECK(nshards >= 1 && nshards <= FL_MERGE_MAX_SHARDS, FL_ERR_INPUT, "merge: 1 to %d shards, not %d",
           FL_MERGE_MAX_SHARDS, nshards);
  FL_ALLOC(info, nshards);
  out_real = realpath(out_path, NULL);
  /* everything is checked before the output is opened: a bad shard changes nothing */
  for (int k = 0; k < nshards; k++) {
    char *r = realpath(shards[k], NULL);
    int same = r && out_real && strcmp(r, out_real) == 0;
    free(r);
    FL_CHECK(!same, FL_ERR_INPUT, "%s: is the output (--db) too; merge into another file", shards[k]);
  }
  FL_TRY(fl_merge_scan_all(shards, nshards, info));
  if (fl_file_size(out_path) > 0)
    FL_TRY(fl_merge_scan(out_path, &out_info)); /* its rows must be of the same scenario too */
  for (int k = 0; k <= nshards; k++) {
    const fl_shard_info *f = k < nshards ? &info[k] : &out_info;
    if (!f->hash[0])
      continue;
    FL_CHECK(!text_hash || strcmp(f->hash, text_hash) == 0, FL_ERR_INPUT,
             "%s: rows of another scenario than %s's (scenario text xxh64 %s, not %s); merge the shards of one sweep "
             "at a time",
             f->path, text_from, f->hash, text_hash);
    text_hash = f->hash;
    text_from = f->path;
  }
  /* completeness: per sweep, which of its N shards are here and whole */
  for (int k = 0; k < nshards; k++) {
    if (info[k].nshards < 0) {
      fprintf(log, "merge: %s: %ld rows (not written by simulate --shard)\n", info[k].path, info[k].rows);
      continue;
    }
    fprintf(log, "merge: %s: shard %ld/%ld, %ld of %ld rows%s\n", info[k].path, info[k].shard, info[k].nshards,
            info[k].rows, info[k].expected, info[k].rows < info[k].expected ? " (INCOMPLETE)" : "");
    if (info[k].rows < info[k].expected)
      *incomplete = 1;
  }
  for (int k = 0; k < nshards; k++) {
    int first = 1;
    if (info[k].nshards < 0)
      continue;
    for (int e = 0; e < k; e++)
      if (strcmp(info[e].sweep, info[k].sweep) == 0)
        first = 0;
    if (!first)
      continue;
    for (long i = 1; i <= info[k].nshards; i++) {
      int have = 0;
      for (int e = 0; e < nshards && !have; e++)
        have = strcmp(info[e].sweep, info[k].sweep) == 0 && info[e].shard == i;
      if (!have) {
        fprintf(log, "merge: shard %ld/%ld of that sweep is MISSING\n", i, info[k].nshards);
        *incomplete = 1;
      }
    }
  }
  /* a new output gets 64 KiB pages: a batch's commit then writes a sixteenth of the pages it would */
  FL_TRY(fl_db_open_large(out_path, &out));
  sqlite3_exec(fl_db_sqlite(out), "PRAGMA cache_size = -262144", NULL, NULL, NULL); /* 256 MiB: the indexes stay in */
  {
    int batch = sqlite3_limit(fl_db_sqlite(out), SQLITE_LIMIT_ATTACHED, -1);
    batch = batch < 1 ? 1 : batch;
    for (int k = 0; k < nshards;) {
      int n = 0;
      if (info[k].keyed) {
        while (k + n < nshards && n < batch && info[k + n].keyed)
          n++;
        FL_TRY(fl_merge_batch(out, &info[k], n, &added, &present));
        k += n;
        continue;
      }
      /* rows without keys (an older faultline's file): one by one */
      FL_CHECK(sqlite3_exec(fl_db_sqlite(out), "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s",
               out_path, sqlite3_errmsg(fl_db_sqlite(out)));
      began = 1;
      FL_TRY(fl_merge_copy(out, shards[k], &added, &present));
      FL_CHECK(sqlite3_exec(fl_db_sqlite(out), "COMMIT", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", out_path,
               sqlite3_errmsg(fl_db_sqlite(out)));
      began = 0;
      k++;
    }
  }
  fprintf(log, "merge: %ld row%s added, %ld already in %s, from %d file%s\n", added, added == 1 ? "" : "s", present,
          out_path, nshards, nshards == 1 ? "" : "s");
done:
  if (began)
    sqlite3_exec(fl_db_sqlite(out), "ROLLBACK", NULL, NULL, NULL);
  fl_db_close(&out);
  free(info);
  free(out_real);
  return rc;
}
