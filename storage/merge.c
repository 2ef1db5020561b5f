/* merge.c — `faultline merge`: shards of a sweep (each its own SQLite file, written by `simulate --shard I/N`)
 * into one results database.
 *
 * A row is identified by its row_key (scenario text, overrides but run.db and run.replicas, seed, replica), so
 * merging is idempotent: a row already in the output is skipped, merging twice adds nothing, and shards that
 * overlap (a shard re-run after a crash) give each row once. Inputs are opened read-only (immutable when they have
 * no WAL) and never changed. Rows are copied column by column by name, so a shard written by an older faultline
 * (fewer columns) merges into a newer file. Each shard is copied in one transaction (SQLite cannot ATTACH inside
 * one), so a merge stopped half-way has whole shards in, and running it again completes it. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "merge.h"

#include <ctype.h>
#include <inttypes.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  const char *path;
} fl_shard_info;

static fl_err fl_merge_scan(const char *path, fl_shard_info *info, uint64_t *text_hash, int *have_text)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  sqlite3_stmt *st = NULL;
  sqlite3 *h;

  memset(info, 0, sizeof *info);
  info->path = path;
  info->shard = info->nshards = info->expected = -1;
  FL_TRY(fl_db_open_readonly(path, &db));
  h = fl_db_sqlite(db);
  FL_CHECK(sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW,
           FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(h));
  info->rows = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  /* one scenario per merge: every row's scenario text is the same */
  FL_CHECK(sqlite3_prepare_v2(h, "SELECT DISTINCT scenario_text FROM runs", -1, &st, NULL) == SQLITE_OK, FL_ERR_INPUT,
           "%s: %s", path, sqlite3_errmsg(h));
  while (sqlite3_step(st) == SQLITE_ROW) {
    const void *t = sqlite3_column_blob(st, 0);
    uint64_t x = XXH64(t ? t : "", (size_t)sqlite3_column_bytes(st, 0), 0);
    FL_CHECK(!*have_text || x == *text_hash, FL_ERR_INPUT,
             "%s: rows of another scenario than the other shards' (scenario text xxh64 %016" PRIx64 ", not %016" PRIx64
             "); merge the shards of one sweep at a time",
             path, x, *text_hash);
    *text_hash = x;
    *have_text = 1;
  }
  sqlite3_finalize(st);
  st = NULL;
  if (sqlite3_prepare_v2(h, "SELECT sweep, shard, nshards, expected FROM shards", -1, &st, NULL) == SQLITE_OK) {
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
      FL_CHECK(++n == 1, FL_ERR_INPUT, "%s: written by more than one shard (--shard given different values)", path);
      snprintf(info->sweep, sizeof info->sweep, "%s", (const char *)sqlite3_column_text(st, 0));
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
static fl_err fl_merge_copy(fl_db *out, const char *path, long *added, long *present)
{
  fl_err rc = FL_OK;
  fl_db *in = NULL;
  sqlite3 *hi, *ho = fl_db_sqlite(out);
  sqlite3_stmt *sel = NULL, *ins = NULL, *ev_sel = NULL, *ev_ins = NULL, *inp = NULL, *inp_ins = NULL;
  char *sql = NULL;
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
  FL_CHECK(sqlite3_prepare_v2(hi, "SELECT t_s, kind, node, detail FROM events WHERE run_id = ?1", -1, &ev_sel, NULL) ==
               SQLITE_OK,
           FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(hi));
  FL_CHECK(sqlite3_prepare_v2(ho, "INSERT INTO events (run_id, t_s, kind, node, detail) VALUES (?1, ?2, ?3, ?4, ?5)", -1,
                              &ev_ins, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));

  for (int step; (step = sqlite3_step(sel)) != SQLITE_DONE;) {
    char key[96];
    int found = 0;
    int64_t old_id, new_id;
    FL_CHECK(step == SQLITE_ROW, FL_ERR_INPUT, "%s: %s", path, sqlite3_errmsg(hi));
    old_id = sqlite3_column_int64(sel, id_col);
    if (key_col >= 0 && sqlite3_column_type(sel, key_col) != SQLITE_NULL) {
      snprintf(key, sizeof key, "%s", (const char *)sqlite3_column_text(sel, key_col));
    } else {
      /* a row from before row keys: its identity from what it stored */
      const void *t = NULL;
      size_t tn = 0;
      for (int j = 0; j < ncols; j++)
        if (strcmp(sqlite3_column_name(sel, j), "scenario_text") == 0) {
          t = sqlite3_column_blob(sel, j);
          tn = (size_t)sqlite3_column_bytes(sel, j);
        }
      snprintf(key, sizeof key, "legacy:%016" PRIx64 ":%s:%" PRId64, (uint64_t)XXH64(t ? t : "", tn, 0), path, old_id);
    }
    FL_TRY(fl_db_has_row(out, key, &found));
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
    while (sqlite3_step(ev_sel) == SQLITE_ROW) {
      sqlite3_reset(ev_ins);
      sqlite3_bind_int64(ev_ins, 1, new_id);
      for (int k = 0; k < 4; k++)
        sqlite3_bind_value(ev_ins, k + 2, sqlite3_column_value(ev_sel, k));
      FL_CHECK(sqlite3_step(ev_ins) == SQLITE_DONE, FL_ERR_DB, "%s: inserting events of %s: %s", fl_db_path(out), path,
               sqlite3_errmsg(ho));
    }
    (*added)++;
  }
  /* the inputs' content, content-addressed */
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
  sqlite3_finalize(sel);
  sqlite3_finalize(ins);
  sqlite3_finalize(ev_sel);
  sqlite3_finalize(ev_ins);
  sqlite3_finalize(inp);
  sqlite3_finalize(inp_ins);
  free(sql);
  fl_db_close(&in);
  return rc;
}

/* The fast path: the shard ATTACHed to the output's connection and copied by SQLite in three statements (rows
 * whose key the output lacks, their events re-keyed by a join, the input files), in one transaction per shard.
 * Taken when every row of the shard has a row_key; 1 in *done when it was. */
static fl_err fl_merge_attach(fl_db *out, const char *path, long *added, long *present, int *done_fast)
{
  fl_err rc = FL_OK;
  sqlite3 *ho = fl_db_sqlite(out);
  sqlite3_stmt *st = NULL;
  char *uri = NULL, *cols = NULL, *sql = NULL, wal[4200];
  size_t len = 0;
  int attached = 0, began = 0;
  long total = 0, unkeyed = 0;

  *done_fast = 0;
  /* read-only, and immutable when no writer's WAL is beside it: nothing is created next to the shard */
  snprintf(wal, sizeof wal, "%s-wal", path);
  FL_ALLOC(uri, strlen(path) * 3 + 64);
  len = (size_t)sprintf(uri, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    len += (size_t)(isalnum(*p) || strchr("/-_.~", *p) ? sprintf(uri + len, "%c", *p) : sprintf(uri + len, "%%%02X", *p));
  sprintf(uri + len, "?mode=ro%s", access(wal, F_OK) == 0 ? "" : "&immutable=1");
  FL_CHECK(sqlite3_prepare_v2(ho, "ATTACH ?1 AS fl_in", -1, &st, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s",
           fl_db_path(out), sqlite3_errmsg(ho));
  sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
  FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_INPUT, "%s: cannot attach it: %s", path, sqlite3_errmsg(ho));
  sqlite3_finalize(st);
  st = NULL;
  attached = 1;
  /* every row keyed? (files of faultline versions before row keys are not) */
  if (sqlite3_prepare_v2(ho, "SELECT COUNT(*), COUNT(*) - COUNT(row_key) FROM fl_in.runs", -1, &st, NULL) !=
          SQLITE_OK ||
      sqlite3_step(st) != SQLITE_ROW)
    goto done; /* no row_key column: the row-by-row path */
  total = (long)sqlite3_column_int64(st, 0);
  unkeyed = (long)sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
  st = NULL;
  if (unkeyed > 0)
    goto done;
  /* the columns both have, but id */
  FL_CHECK(sqlite3_prepare_v2(ho,
                              "SELECT group_concat(i.name, ', ') FROM pragma_table_info('runs', 'fl_in') i"
                              " JOIN pragma_table_info('runs', 'main') o ON o.name = i.name WHERE i.name <> 'id'",
                              -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW,
           FL_ERR_DB, "%s: %s", path, sqlite3_errmsg(ho));
  FL_ALLOC(cols, (size_t)sqlite3_column_bytes(st, 0) + 1);
  strcpy(cols, (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  st = NULL;
  FL_ALLOC(sql, 2 * strlen(cols) + 1024);
  FL_CHECK(sqlite3_exec(ho, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", fl_db_path(out),
           sqlite3_errmsg(ho));
  began = 1;
  sprintf(sql,
          "CREATE TEMP TABLE fl_new AS SELECT r.id AS old_id, r.row_key FROM fl_in.runs r"
          " WHERE NOT EXISTS (SELECT 1 FROM main.runs m WHERE m.row_key = r.row_key);"
          "INSERT INTO main.runs (%s) SELECT %s FROM fl_in.runs WHERE id IN (SELECT old_id FROM temp.fl_new) ORDER BY id;"
          "INSERT INTO main.events (run_id, t_s, kind, node, detail)"
          " SELECT m.id, e.t_s, e.kind, e.node, e.detail FROM temp.fl_new n JOIN fl_in.events e ON e.run_id = n.old_id"
          " JOIN main.runs m ON m.row_key = n.row_key;",
          cols, cols);
  FL_CHECK(sqlite3_exec(ho, sql, NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: merging %s: %s", fl_db_path(out), path,
           sqlite3_errmsg(ho));
  if (sqlite3_prepare_v2(ho, "SELECT 1 FROM fl_in.sqlite_schema WHERE name = 'input_files'", -1, &st, NULL) ==
          SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    FL_CHECK(sqlite3_exec(ho,
                          "INSERT OR IGNORE INTO main.input_files (xxh64, size, path, text)"
                          " SELECT xxh64, size, path, text FROM fl_in.input_files",
                          NULL, NULL, NULL) == SQLITE_OK,
             FL_ERR_DB, "%s: merging %s: %s", fl_db_path(out), path, sqlite3_errmsg(ho));
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(sqlite3_prepare_v2(ho, "SELECT COUNT(*) FROM temp.fl_new", -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW,
           FL_ERR_DB, "%s: %s", fl_db_path(out), sqlite3_errmsg(ho));
  *added += (long)sqlite3_column_int64(st, 0);
  *present += total - (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(sqlite3_exec(ho, "DROP TABLE temp.fl_new; COMMIT", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s",
           fl_db_path(out), sqlite3_errmsg(ho));
  began = 0;
  *done_fast = 1;
done:
  sqlite3_finalize(st);
  if (began)
    sqlite3_exec(ho, "ROLLBACK; DROP TABLE IF EXISTS temp.fl_new", NULL, NULL, NULL);
  if (attached)
    sqlite3_exec(ho, "DETACH fl_in", NULL, NULL, NULL);
  free(uri);
  free(cols);
  free(sql);
  return rc;
}

fl_err fl_db_merge(const char *out_path, const char *const *shards, int nshards, FILE *log, int *incomplete)
{
  fl_err rc = FL_OK;
  fl_shard_info *info = NULL;
  fl_db *out = NULL;
  uint64_t text_hash = 0;
  int have_text = 0, began = 0;
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
    FL_TRY(fl_merge_scan(shards[k], &info[k], &text_hash, &have_text));
  }
  if (fl_file_size(out_path) > 0) {
    fl_shard_info o;
    FL_TRY(fl_merge_scan(out_path, &o, &text_hash, &have_text)); /* its rows must be of the same scenario too */
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
  FL_TRY(fl_db_open(out_path, &out));
  sqlite3_exec(fl_db_sqlite(out), "PRAGMA cache_size = -262144", NULL, NULL, NULL); /* 256 MiB: the indexes stay in */
  for (int k = 0; k < nshards; k++) {
    int fast = 0;
    FL_TRY(fl_merge_attach(out, shards[k], &added, &present, &fast));
    if (fast)
      continue;
    /* rows without keys (an older faultline's file): one by one */
    FL_CHECK(sqlite3_exec(fl_db_sqlite(out), "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s",
             out_path, sqlite3_errmsg(fl_db_sqlite(out)));
    began = 1;
    FL_TRY(fl_merge_copy(out, shards[k], &added, &present));
    FL_CHECK(sqlite3_exec(fl_db_sqlite(out), "COMMIT", NULL, NULL, NULL) == SQLITE_OK, FL_ERR_DB, "%s: %s", out_path,
             sqlite3_errmsg(fl_db_sqlite(out)));
    began = 0;
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
