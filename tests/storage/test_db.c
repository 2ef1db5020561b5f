/* test_db.c — the results database: schema, atomic replica rows, refusals, and the report's statistics. */
#include "columns.h"
#include "db.h"
#include "fl_test.h"
#include "format.h"
#include "report.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fl_db_run sample_row(long replica, double makespan)
{
  fl_db_run r;
  memset(&r, 0, sizeof r);
  r.scenario = "unit";
  r.scenario_path = "/x/unit.ini";
  r.scenario_text = "[run]\nseed = 3\n";
  r.overrides = "run.replicas=3\n";
  r.mode = "sim";
  r.app = "bsp";
  r.strategy = "checkpoint";
  r.failure_model = "exponential";
  r.interval_rule = "daly";
  r.status = "completed";
  r.seed = 3;
  r.replica = replica;
  r.nodes = 100;
  r.platform_nodes = 110;
  r.node_mtbf_s = 1e6;
  r.repair_s = INFINITY; /* never: stored as NULL */
  r.interval_s = 600;
  r.checkpoint_cost_s = 60;
  r.restart_cost_s = 60;
  r.downtime_s = 0;
  r.work_s = 80.0;
  r.makespan_s = makespan;
  r.failures = replica;
  r.platform_failures = replica + 1;
  r.interruptions = replica;
  r.checkpoints = 4;
  r.lost_work_s = NAN; /* NULL */
  return r;
}

static long count(fl_db *db, const char *sql)
{
  sqlite3_stmt *st = NULL;
  long n = -1;
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(fl_db_sqlite(db), sql, -1, &st, NULL), SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

static void test_schema_and_rows(void)
{
  fl_db *db = NULL;
  fl_evlog log;
  fl_db_run row = sample_row(0, 100.0);
  int64_t id = 0;
  const char *path = fl_test_tmp("a.sqlite");

  CU_ASSERT_EQUAL_FATAL(fl_db_open(path, &db), FL_OK);
  CU_ASSERT_EQUAL(count(db, "PRAGMA user_version"), FL_DB_SCHEMA_VERSION);
  fl_evlog_init(&log, 1);
  fl_evlog_task(&log, 10.0, FL_EV_FAILURE_MOVE, 7, 7, 105, -1);
  fl_evlog_value(&log, 12.0, FL_EV_INTERRUPTION, 2.0, NULL);
  fl_evlog_value(&log, 13.0, FL_EV_CHECKPOINT_LEVEL, 1548.58, "buddy");
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, &log, &id), FL_OK);
  CU_ASSERT_EQUAL(id, 1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events WHERE run_id = 1"), 3);
  /* typed: a kind code, numbers in their columns, NULL where a column does not apply */
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events WHERE node = 7 AND rank = 7 AND peer = 105 AND kind = 2"
                            " AND value IS NULL AND n IS NULL AND level IS NULL"),
                  1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events e JOIN event_kinds k ON k.code = e.kind"
                            " WHERE e.node IS NULL AND k.name = 'interruption' AND e.value = 2.0"),
                  1);
  /* a run's events are its range of ids, in the order logged */
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events WHERE id BETWEEN 4294967296 AND 8589934591"), 3);
  CU_ASSERT_EQUAL(count(db, "SELECT MIN(id) FROM events"), 4294967296LL);
  /* the sentence form for people, as the events were worded before they were typed */
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events_text WHERE kind = 'failure' AND variant = 'move'"
                            " AND detail = 'rank 7 moves to node 105'"),
                  1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events_text WHERE detail = 'lost 2s'"), 1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events_text WHERE detail = 'work 1548.58s, buddy level'"), 1);
  /* every kind of events.h is in event_kinds, and every one has a sentence */
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM event_kinds WHERE code = 1 AND name = 'failure'"), 1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM event_kinds WHERE code = 82 AND name = 'vote'"), 1);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs WHERE repair_s IS NULL AND lost_work_s IS NULL"), 1);
  {
    /* the text is stored once, content-addressed; the row keeps its xxh64 */
    char q[512];
    snprintf(q, sizeof q, "SELECT COUNT(*) FROM runs WHERE %s = '[run]\nseed = 3\n' AND seed = 3",
             fl_db_text_sql(fl_db_sqlite(db)));
    CU_ASSERT_EQUAL(count(db, q), 1);
    CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM scenario_texts"), 1);
    CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs r JOIN scenario_texts t ON t.xxh64 = r.scenario_xxh64"
                              " WHERE r.scenario_text = '' AND r.row_key LIKE 'sim:' || t.xxh64 || ':%'"),
                    1);
  }
  CU_ASSERT_EQUAL(count(db, "SELECT CAST(ROUND(waste * 1000) AS INTEGER) FROM run_summary"), 200); /* 1 - 80/100 */
  fl_evlog_free(&log);
  fl_db_close(&db);
  CU_ASSERT_PTR_NULL(db);

  /* re-open appends */
  CU_ASSERT_EQUAL_FATAL(fl_db_open(path, &db), FL_OK);
  row = sample_row(1, 110.0);
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, &id), FL_OK);
  CU_ASSERT_EQUAL(id, 2);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 2);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM scenario_texts"), 1);
  /* a row of the same identity (another process simulated the same replica meanwhile) is there once */
  row.makespan_s = 999.0;
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, &id), FL_OK);
  CU_ASSERT_EQUAL(id, 0);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 2);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs WHERE makespan_s = 999"), 0);
  fl_db_close(&db);
}

/* A replica whose events could not all be kept is refused whole: no row, no events. */
/* The column table is the schema, the insert and the documentation: a fresh file's `runs` has its columns in its
 * order and types; every column a row fills comes back from the row's field of the same name; docs/results.md
 * holds the table `faultline columns` prints. A new column line is covered with no change here. */
static void test_column_table(void)
{
  fl_db *db = NULL;
  fl_db_run r = sample_row(0, 100.0);
  sqlite3_stmt *st = NULL;
  int64_t id = 0;
  int i = 0;
  char *gen = NULL, *docs;
  size_t ngen = 0;
  long n;
  FILE *f;

  /* a distinct value in every field the table names, the machine figures' too */
  fl_db_machine m;
  memset(&m, 0, sizeof m);
  r.machine = &m;
  for (int c = 0; c < fl_run_ncolumns(); c++) {
    const fl_column *col = fl_run_column(c);
    char *field = (char *)&r + col->offset;
    if (col->how == FL_COL_MREAL)
      *(double *)(void *)((char *)&m + col->offset) = c + 0.25;
    else if (col->how == FL_COL_MCOUNT)
      *(long *)(void *)((char *)&m + col->offset) = c;
    else if (col->how == FL_COL_TEXT || col->how == FL_COL_TEXT0)
      *(const char **)(void *)field = col->name;
    else if (col->how == FL_COL_REAL)
      *(double *)(void *)field = c + 0.25;
    else if (col->how == FL_COL_COUNT || col->how == FL_COL_INT)
      *(long *)(void *)field = c;
  }
  r.mode = "sim"; /* the CHECK constraint's */
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("columns.sqlite"), &db), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_db_insert_run(db, &r, NULL, &id), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      sqlite3_prepare_v2(fl_db_sqlite(db), "SELECT name, type FROM pragma_table_info('runs')", -1, &st, NULL),
      SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const fl_column *col = fl_run_column(i++);
    CU_ASSERT_PTR_NOT_NULL_FATAL(col);
    CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), col->name);
    CU_ASSERT_EQUAL(
        strncmp(col->decl, (const char *)sqlite3_column_text(st, 1), strlen((const char *)sqlite3_column_text(st, 1))),
        0);
  }
  sqlite3_finalize(st);
  CU_ASSERT_EQUAL(i, fl_run_ncolumns());
  for (int c = 0; c < fl_run_ncolumns(); c++) {
    const fl_column *col = fl_run_column(c);
    char *q = sqlite3_mprintf("SELECT %s FROM runs WHERE id = %lld", col->name, (long long)id);
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(fl_db_sqlite(db), q, -1, &st, NULL), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_step(st), SQLITE_ROW);
    if (col->how == FL_COL_TEXT || col->how == FL_COL_TEXT0) {
      CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), strcmp(col->name, "mode") ? col->name : "sim");
    } else if (col->how == FL_COL_REAL || col->how == FL_COL_MREAL) {
      CU_ASSERT_DOUBLE_EQUAL(sqlite3_column_double(st, 0), c + 0.25, 0.0);
    } else if (col->how == FL_COL_COUNT || col->how == FL_COL_INT || col->how == FL_COL_MCOUNT) {
      CU_ASSERT_EQUAL(sqlite3_column_int64(st, 0), c);
    } else if (col->how != FL_COL_INPUTS) {
      CU_ASSERT_NOT_EQUAL(sqlite3_column_type(st, 0), SQLITE_NULL); /* computed: version, key, hash, id, time */
    }
    CU_ASSERT(col->doc[0] != '\0' && strchr(col->doc, '|') == NULL);
    CU_ASSERT(strcmp(col->unit, "") == 0 || strcmp(col->unit, "s") == 0 || strcmp(col->unit, "B") == 0 ||
              strcmp(col->unit, "node-h") == 0 || strcmp(col->unit, "J") == 0);
    sqlite3_finalize(st);
    sqlite3_free(q);
  }
  fl_db_close(&db);

  f = open_memstream(&gen, &ngen);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fl_run_columns_markdown(f);
  fclose(f);
  docs = fl_test_read_file(fl_test_src("docs/results.md"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(docs);
  if (!strstr(docs, gen))
    fprintf(stderr, "\n    docs/results.md: its runs table is not `faultline columns`' output: paste it again");
  CU_ASSERT_PTR_NOT_NULL(strstr(docs, gen));
  free(docs);
  free(gen);
}

static void test_no_half_written_rows(void)
{
  fl_db *db = NULL;
  fl_evlog log;
  fl_db_run row = sample_row(0, 100.0);
  int64_t id = 0;
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("b.sqlite"), &db), FL_OK);
  fl_evlog_init(&log, 1);
  fl_evlog_add(&log, 1.0, FL_EV_FAILURE_SPARE, 1);
  log.oom = 1;
  CU_ASSERT_NOT_EQUAL(fl_db_insert_run(db, &row, &log, &id), FL_OK);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 0);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events"), 0);
  /* a row the schema refuses (mode must be sim or real) rolls back its events too */
  log.oom = 0;
  row.mode = "dream";
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, &log, &id), FL_ERR_DB);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 0);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events"), 0);
  /* and the connection is still usable */
  row.mode = "sim";
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, &log, &id), FL_OK);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events"), 1);
  fl_evlog_free(&log);
  fl_db_close(&db);
}

/* The writer thread: runs written in submission order, one transaction each, the caller's log swapped for an empty
 * one at each submit; a run the schema refuses comes back as an error with its message, nothing of it written, and
 * the writer goes on. */
static void test_writer_thread(void)
{
  fl_db *db = NULL;
  fl_db_writer *w = NULL;
  fl_evlog log;
  int64_t id[4] = {-1, -1, -1, -1};
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("w.sqlite"), &db), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_db_writer_start(db, 1, &w), FL_OK);
  fl_evlog_init(&log, 1);
  for (int r = 0; r < 3; r++) {
    fl_db_run row = sample_row(r, 100.0 + r);
    for (int k = 0; k <= r; k++)
      fl_evlog_value(&log, 10.0 * k, FL_EV_CHECKPOINT, 5.0 * k, NULL);
    CU_ASSERT_EQUAL(fl_db_writer_submit(w, &row, &log, &id[r]), FL_OK);
    CU_ASSERT_EQUAL(fl_evlog_count(&log), 0); /* a fresh log for the next replica */
    CU_ASSERT(log.enabled);
  }
  CU_ASSERT_EQUAL(fl_db_writer_sync(w), FL_OK);
  CU_ASSERT(id[0] == 1 && id[1] == 2 && id[2] == 3);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events"), 6);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events WHERE id BETWEEN 3 * 4294967296 AND 4 * 4294967296 - 1"), 3);
  {
    fl_db_run bad = sample_row(3, 100.0);
    bad.mode = "dream";
    fl_evlog_value(&log, 1.0, FL_EV_CHECKPOINT, 1.0, NULL);
    CU_ASSERT_EQUAL(fl_db_writer_submit(w, &bad, &log, &id[3]), FL_OK); /* taken; the error comes with the sync */
    CU_ASSERT_EQUAL(fl_db_writer_sync(w), FL_ERR_DB);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "CHECK constraint"));
    CU_ASSERT_EQUAL(fl_db_writer_sync(w), FL_OK); /* reported once */
    CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 3);
    CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM events"), 6);
  }
  fl_db_writer_destroy(&w);
  CU_ASSERT_PTR_NULL(w);
  fl_db_writer_destroy(&w); /* NULL: nothing */
  fl_evlog_free(&log);
  fl_db_close(&db);
}

static void test_refusals(void)
{
  fl_db *db = NULL;
  FILE *f;
  const char *junk = fl_test_tmp("junk.sqlite"), *newer = fl_test_tmp("newer.sqlite");
  f = fopen(junk, "w");
  fputs("this is not a database, it is a text file of more than a few bytes, long enough for sqlite", f);
  fclose(f);
  CU_ASSERT_EQUAL(fl_db_open(junk, &db), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "junk.sqlite"));

  CU_ASSERT_EQUAL_FATAL(fl_db_open(newer, &db), FL_OK);
  sqlite3_exec(fl_db_sqlite(db), "PRAGMA user_version = 99", NULL, NULL, NULL);
  fl_db_close(&db);
  CU_ASSERT_EQUAL(fl_db_open(newer, &db), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "newer than this faultline"));

  CU_ASSERT_EQUAL(fl_db_open_readonly(fl_test_tmp("absent.sqlite"), &db), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(db);
}

static int exists(const char *path)
{
  return access(path, F_OK) == 0;
}

/* Another program's SQLite file (with or without an application id), a damaged results file: refused by both the
 * writer and the reader, named in the message, and left byte for byte as it was, with no -wal or -shm beside. */
static void test_foreign_files_untouched(void)
{
  const char *paths[3] = {fl_test_tmp("other.db"), fl_test_tmp("marked.db"), fl_test_tmp("damaged.sqlite")};
  const char *want[3] = {"another program", "another program", "damaged"};
  char side[4200];
  sqlite3 *h = NULL;
  fl_db *db = NULL;
  fl_db_run row = sample_row(0, 100.0);

  CU_ASSERT_EQUAL_FATAL(sqlite3_open(paths[0], &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(paths[1], &h), SQLITE_OK);
  CU_ASSERT_EQUAL(
      sqlite3_exec(h, "PRAGMA application_id = 1234; CREATE TABLE runs(x); CREATE TABLE events(y)", NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close(h);
  /* a results file with rows, then a page overwritten in the middle */
  CU_ASSERT_EQUAL_FATAL(fl_db_open(paths[2], &db), FL_OK);
  for (int k = 0; k < 200; k++) {
    row.replica = k;
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, NULL), FL_OK);
  }
  sqlite3_exec(fl_db_sqlite(db), "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
  {
    /* the runs table's root page: its cell pointers are overwritten below */
    long root = count(db, "SELECT rootpage FROM sqlite_schema WHERE name = 'runs'");
    long page = count(db, "PRAGMA page_size");
    FILE *f;
    fl_db_close(&db);
    f = fopen(paths[2], "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, (root - 1) * page + 8, SEEK_SET);
    fputs("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", f);
    fclose(f);
  }
  for (int i = 0; i < 3; i++) {
    long n0 = 0, n1 = 0;
    char *before = fl_test_read_file(paths[i], &n0), *after;
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);
    CU_ASSERT_EQUAL(fl_db_open(paths[i], &db), FL_ERR_INPUT);
    CU_ASSERT_PTR_NULL(db);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), paths[i]));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), want[i]));
    CU_ASSERT_PTR_NULL(strchr(fl_err_msg(), '\n'));
    CU_ASSERT_EQUAL(fl_db_open_readonly(paths[i], &db), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), paths[i]));
    after = fl_test_read_file(paths[i], &n1);
    CU_ASSERT_EQUAL(n0, n1);
    CU_ASSERT(after && memcmp(before, after, (size_t)n0) == 0);
    snprintf(side, sizeof side, "%s-wal", paths[i]);
    CU_ASSERT_FALSE(exists(side));
    snprintf(side, sizeof side, "%s-shm", paths[i]);
    CU_ASSERT_FALSE(exists(side));
    free(before);
    free(after);
  }
}

/* An empty SQLite file and a file of an earlier faultline (no application id, the same tables) are taken; once
 * written, the file carries faultline's application id, which a second writer sees through the WAL. */
static void test_own_files_taken(void)
{
  const char *empty = fl_test_tmp("empty.sqlite"), *old = fl_test_tmp("old.sqlite");
  sqlite3 *h = NULL;
  fl_db *db = NULL, *db2 = NULL;
  fl_db_run row = sample_row(0, 100.0);
  FILE *f = fopen(empty, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fclose(f);
  CU_ASSERT_EQUAL(fl_db_open(empty, &db), FL_OK);
  CU_ASSERT_EQUAL(count(db, "PRAGMA application_id"), (long)FL_DB_APPLICATION_ID);
  /* a second writer while the first holds the file open: the id is only in the WAL so far */
  CU_ASSERT_EQUAL(fl_db_open(empty, &db2), FL_OK);
  fl_db_close(&db2);
  fl_db_close(&db);

  CU_ASSERT_EQUAL_FATAL(fl_db_open(old, &db), FL_OK);
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, NULL), FL_OK);
  sqlite3_exec(fl_db_sqlite(db), "PRAGMA application_id = 0", NULL, NULL, NULL);
  fl_db_close(&db);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(old, &h), SQLITE_OK);
  sqlite3_close(h);
  CU_ASSERT_EQUAL(fl_db_open(old, &db), FL_OK);
  CU_ASSERT_EQUAL(count(db, "SELECT COUNT(*) FROM runs"), 1);
  CU_ASSERT_EQUAL(count(db, "PRAGMA application_id"), (long)FL_DB_APPLICATION_ID);
  fl_db_close(&db);
}

static void test_stats(void)
{
  double x[] = {100.0, 110.0, 120.0}, m, h;
  fl_stats_ci(x, 3, 0.95, &m, &h);
  CU_ASSERT_DOUBLE_EQUAL(m, 110.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(h, 4.302652729911275 * 10.0 / sqrt(3.0), 1e-9); /* t(0.975, 2) s / sqrt(n) */
  fl_stats_ci(x, 1, 0.95, &m, &h);
  CU_ASSERT(isnan(h));
}

/* The report of db into buf (cut to fit, NUL-terminated). */
static void report_to(fl_db *db, const fl_report_opts *ro, char *buf, size_t size)
{
  FILE *out = fmemopen(buf, size, "w");
  size_t n;
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  CU_ASSERT_EQUAL(fl_report_print(fl_db_sqlite(db), ro, out), FL_OK);
  n = (size_t)ftell(out);
  fclose(out);
  buf[n < size ? n : size - 1] = '\0';
}

/* Two groups: checkpoint, makespans 100, 110, 120; none, one run of 500 (no interval). */
static void insert_two_groups(fl_db *db)
{
  double makespans[] = {100.0, 110.0, 120.0};
  fl_db_run other = sample_row(0, 500.0);
  for (int i = 0; i < 3; i++) {
    fl_db_run row = sample_row(i, makespans[i]);
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, NULL), FL_OK);
  }
  other.strategy = "none";
  other.overrides = "run.replicas=3\nstrategy.kind=none\n";
  other.interval_s = NAN;
  other.interval_rule = NULL;
  CU_ASSERT_EQUAL(fl_db_insert_run(db, &other, NULL, NULL), FL_OK);
}

/* The report groups rows and prints mean and CI; checked through its CSV form, and its text form's alignment. */
static void test_report(void)
{
  fl_db *db = NULL;
  fl_report_opts ro = {.format = &fl_format_csv};
  char buf[16384];
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("r.sqlite"), &db), FL_OK);
  insert_two_groups(db);
  {
    fl_db_run other = sample_row(0, 500.0);
    other.strategy = "none";
    other.overrides = "run.replicas=3\nstrategy.kind=none\n";
    other.interval_s = NAN;
    other.interval_rule = NULL;
    other.status = "timeout";
    other.replica = 1;
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &other, NULL, NULL), FL_OK);
  }
  report_to(db, &ro, buf, sizeof buf);
  /* typed (summary.h): checkpoint: 3 runs, 3 completed; makespan n 3, mean 110, CI 24.84, min 100, max 120; waste
   * mean (0.2 + 0.2727 + 0.3333)/3 */
  CU_ASSERT(strncmp(buf, "scenario,mode,app.kind,strategy.kind,failures.model,failures.node_mtbf,runs,completed,", 86) ==
            0);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n\"unit\",sim,\"bsp\",\"checkpoint\",\"exponential\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",3,3,0,0,0,0,0,3,110,24.841377117"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",100,120,3,0.26868686868686"));
  /* none: one completed, one timeout, separate group; figures over the completed run only */
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n\"unit\",sim,\"bsp\",\"none\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",2,1,0,1,0,0,0,1,500,,500,500,"));
  if (!strstr(buf, "24.841377117"))
    fprintf(stderr, "%s", buf);
  /* the text form: a header and one row per group, every column starting at the same character on every line
   * (the "±" of a CI is one character, two bytes) */
  ro.format = NULL;
  report_to(db, &ro, buf, sizeof buf);
  {
    const char *line = buf, *cols[] = {"makespan (95% CI)", "waste (95% CI)", "interruptions"};
    long at[3] = {-1, -1, -1}, lines = 0, misaligned = 0;
    for (int c = 0; c < 3; c++) {
      const char *h = strstr(buf, cols[c]);
      CU_ASSERT_PTR_NOT_NULL_FATAL(h);
      at[c] = 0; /* in characters: the header holds "δ" (two bytes) */
      for (const char *p = buf; p < h; p++)
        at[c] += ((unsigned char)*p & 0xC0) != 0x80;
    }
    CU_ASSERT(at[0] < at[1] && at[1] < at[2]);
    while (*line && *line != '\n') { /* the job table ends at an empty line */
      const char *end = strchr(line, '\n');
      long chars = 0;
      int c = 0;
      CU_ASSERT_PTR_NOT_NULL_FATAL(end);
      /* walk the line by characters: each column's start must be a blank-to-text edge at the header's offset */
      for (const char *p = line; p < end; p++) {
        if (((unsigned char)*p & 0xC0) == 0x80)
          continue;
        if (c < 3 && chars == at[c]) {
          misaligned += p == line || p[-1] != ' ' || *p == ' ';
          c++;
        }
        chars++;
      }
      misaligned += c != 3;
      lines++;
      line = end + 1;
    }
    CU_ASSERT_EQUAL(lines, 3); /* header, checkpoint, none */
    CU_ASSERT_EQUAL(misaligned, 0);
    if (misaligned)
      fprintf(stderr, "%s", buf);
  }
  fl_db_close(&db);
}

/* A key overridden twice (faultline run --kill A --kill B records mpi.kill=A, then mpi.kill=A B): the report
 * shows and groups by the value the run used, the last. */
static void test_report_override_twice(void)
{
  fl_db *db = NULL;
  fl_report_opts ro = {.format = &fl_format_csv};
  char buf[16384];
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("twice.sqlite"), &db), FL_OK);
  {
    fl_db_run a = sample_row(0, 100.0), b = sample_row(0, 200.0);
    a.overrides = "failures.shape=0.5\nfailures.shape=0.7\n";
    b.overrides = "failures.shape=0.9\n";
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &a, NULL, NULL), FL_OK);
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &b, NULL, NULL), FL_OK);
  }
  report_to(db, &ro, buf, sizeof buf);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",failures.shape,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0.69999999999999996,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0.90000000000000002,"));
  {
    int lines = 0; /* the header and two groups: 0.5, overridden, is no group of its own */
    for (const char *p = buf; (p = strchr(p, '\n')); p++)
      lines++;
    CU_ASSERT_EQUAL(lines, 3);
  }
  if (!strstr(buf, ",0.69999999999999996,"))
    fprintf(stderr, "%s", buf);
  fl_db_close(&db);
}

/* Two processes opening one new results file at the same moment (two simulations started on one --db): both
 * must take it. The second read the first one's schema and its marks (application id, user version) one by one,
 * outside one read transaction, so when the first committed in between it saw tables but no marks and refused the
 * file as "another program's" (about 1 time in 50 with two simulations). Many rounds, each on a new file, the
 * second side started a little later each round. */
static void test_two_processes_create_one_file(void)
{
  enum { ROUNDS = 400 };
  int refused = 0;
  for (int i = 0; i < ROUNDS; i++) {
    char name[64], path[4096];
    int go[2];
    pid_t pid;
    int st = 0;
    fl_db *db = NULL;
    char c = 0;
    snprintf(name, sizeof name, "race-%d.sqlite", i);
    snprintf(path, sizeof path, "%s", fl_test_tmp(name));
    CU_ASSERT_FATAL(pipe(go) == 0);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
      fl_err rc;
      close(go[1]);
      if (read(go[0], &c, 1) != 1)
        _exit(3);
      {
        /* a little later each round, 0 to 10 ms: the parent's open is then at every stage in turn */
        struct timespec ts = {0, (long)(i % 200) * 50000};
        nanosleep(&ts, NULL);
      }
      rc = fl_db_open(path, &db);
      if (rc != FL_OK)
        fprintf(stderr, "round %d, child: %s\n", i, fl_err_msg());
      fl_db_close(&db);
      _exit(rc == FL_OK ? 0 : 1);
    }
    close(go[0]);
    CU_ASSERT(write(go[1], &c, 1) == 1);
    close(go[1]);
    if (fl_db_open(path, &db) != FL_OK) {
      fprintf(stderr, "round %d, parent: %s\n", i, fl_err_msg());
      fl_err_clear();
      refused++;
    }
    fl_db_close(&db);
    waitpid(pid, &st, 0);
    refused += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    remove(path);
    snprintf(path + strlen(path), 16, "-wal");
    remove(path);
    snprintf(path + strlen(path) - 4, 16, "-shm");
    remove(path);
  }
  CU_ASSERT_EQUAL(refused, 0);
}

/* Every renderer of the registry (formats/format.h) on the same rows: each writes both groups, and those that
 * write the groups as data give the checkpoint group's mean makespan exactly; the names are unique and found. */
static void test_every_format(void)
{
  fl_db *db = NULL;
  char buf[32768];
  CU_ASSERT(fl_report_format_count() >= 4);
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("formats.sqlite"), &db), FL_OK);
  insert_two_groups(db);
  for (int i = 0; i < fl_report_format_count(); i++) {
    const fl_report_format *f = fl_report_format_at(i);
    fl_report_opts ro = {.format = f};
    CU_ASSERT_PTR_EQUAL(fl_report_format_find(f->name), f);
    CU_ASSERT(f->summary && strlen(f->summary) > 10);
    for (int j = 0; j < i; j++)
      CU_ASSERT_STRING_NOT_EQUAL(fl_report_format_at(j)->name, f->name);
    report_to(db, &ro, buf, sizeof buf);
    if (!strstr(buf, "checkpoint") || !strstr(buf, "none"))
      fprintf(stderr, "\n    format %s:\n%s", f->name, buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "checkpoint"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "none"));
    if (f->groups)
      CU_ASSERT_PTR_NOT_NULL(strstr(buf, "110")); /* the mean, as a number */
  }
  CU_ASSERT_PTR_NULL(fl_report_format_find("no-such-format"));
  CU_ASSERT_PTR_NULL(fl_report_format_at(fl_report_format_count()));
  fl_db_close(&db);
}

static CU_TestInfo db_tests[] = {
    {"schema, rows, events, view", test_schema_and_rows},
    {"the column table is schema, insert and docs", test_column_table},
    {"no half-written rows", test_no_half_written_rows},
    {"the writer thread", test_writer_thread},
    {"refusals", test_refusals},
    {"foreign and damaged files are refused untouched", test_foreign_files_untouched},
    {"empty and older own files are taken", test_own_files_taken},
    {"two processes creating one file both take it", test_two_processes_create_one_file},
    {"confidence intervals", test_stats},
    {"report groups and summarises", test_report},
    {"every report format renders the same rows", test_every_format},
    {"report: a key overridden twice shows its last value", test_report_override_twice},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"db", NULL, NULL, NULL, NULL, db_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
