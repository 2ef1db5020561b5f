/* test_sweep.c — a sweep cut into shards (`simulate --shard I/N`) and merged back (`faultline merge`): the shards
 * are disjoint and together the whole sweep, row for row with identical figures; a re-run skips what is there;
 * merging is idempotent, never changes its inputs, says which shard is missing, refuses other files. */
#include "cli_util.h"
#include "db.h"
#include "fl_test.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SWEEP "--sweep failures.shape=0.5,0.9 --sweep strategy.kind=checkpoint,buddy --replicas 5"

/* "row_key|makespan|failures" of every row, sorted, into buf. */
static void rows_of(const char *name, char *buf, size_t size)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  size_t used = 0;
  buf[0] = '\0';
  if (sqlite3_open_v2(fl_test_tmp(name), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, "SELECT row_key, quote(makespan_s), failures, status FROM runs ORDER BY row_key", -1, &st,
                         NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW && used + 200 < size)
      used += (size_t)snprintf(buf + used, size - used, "%s|%s|%lld|%s\n", sqlite3_column_text(st, 0),
                               sqlite3_column_text(st, 1), (long long)sqlite3_column_int64(st, 2),
                               sqlite3_column_text(st, 3));
  sqlite3_finalize(st);
  sqlite3_close(h);
}

static void test_shards_merge_to_the_sweep(void)
{
  static char full[1 << 16], merged[1 << 16], one[1 << 16];
  char args[1024];
  long n0 = 0, n1 = 0;
  char *before, *after;
  fl_cli_write("s.ini", "[run]\nname = s\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                        "[app]\nnodes = 32\nwork = 12h\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate s.ini --db full.sqlite --quiet " SWEEP), 0);
  for (int i = 1; i <= 3; i++) {
    snprintf(args, sizeof args, "simulate s.ini --db shard%d.sqlite --shard %d/3 --quiet " SWEEP, i, i);
    CU_ASSERT_EQUAL(fl_cli_run(args), 0);
  }
  /* disjoint: 20 items round-robin into 7, 7, 6 */
  rows_of("shard3.sqlite", one, sizeof one);
  CU_ASSERT_EQUAL(fl_cli_lines(one), 6);
  /* a shard re-run (a cancelled array task) writes nothing new */
  CU_ASSERT_EQUAL(fl_cli_run("simulate s.ini --db shard2.sqlite --shard 2/3 " SWEEP), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows written, 7 already in shard2.sqlite"));
  before = fl_test_read_file(fl_test_tmp("shard1.sqlite"), &n0);
  /* two of three: merged, and the missing one named, exit 1 */
  CU_ASSERT_EQUAL(fl_cli_run("merge shard1.sqlite shard2.sqlite --db merged.sqlite"), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "shard 3/3 of that sweep is MISSING"));
  CU_ASSERT_EQUAL(fl_cli_run("merge shard1.sqlite shard2.sqlite shard3.sqlite --db merged.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "6 rows added, 14 already in merged.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run("merge shard1.sqlite shard2.sqlite shard3.sqlite --db merged.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows added, 20 already"));
  rows_of("full.sqlite", full, sizeof full);
  rows_of("merged.sqlite", merged, sizeof merged);
  CU_ASSERT_EQUAL(fl_cli_lines(full), 20);
  CU_ASSERT_STRING_EQUAL(full, merged); /* row for row, makespans to the bit (quote() prints them exactly) */
  after = fl_test_read_file(fl_test_tmp("shard1.sqlite"), &n1);
  CU_ASSERT(before && after && n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
  free(before);
  free(after);
  /* the same sweep through `faultline sweep`: 4 shards, 2 processes, merged: the same rows again */
  CU_ASSERT_EQUAL(fl_cli_run("sweep s.ini --jobs 2 --shards 4 --dir sw --db local.sqlite --quiet " SWEEP), 0);
  rows_of("local.sqlite", merged, sizeof merged);
  CU_ASSERT_STRING_EQUAL(full, merged);
  CU_ASSERT(fl_cli_exists("sw/shard-4.sqlite"));
  /* re-run: resumes, adds nothing */
  CU_ASSERT_EQUAL(fl_cli_run("sweep s.ini --jobs 2 --shards 4 --dir sw --db local.sqlite " SWEEP), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows added, 20 already in local.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run("sweep s.ini --dir sw2 --db bad.sqlite --sweep failures.shape=0.5,-1"), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_FALSE(fl_cli_exists("sw2"));
  /* events came along, re-keyed */
  {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    long orphans = -1;
    if (sqlite3_open_v2(fl_test_tmp("merged.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM events WHERE run_id NOT IN (SELECT id FROM runs)", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      orphans = (long)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    CU_ASSERT_EQUAL(orphans, 0);
  }
}

static void test_merge_refuses(void)
{
  fl_cli_write("notes.txt", "not a database\n");
  fl_cli_write("t.ini", "[run]\nname = t\nreplicas = 2\n[app]\nnodes = 8\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate t.ini --db other.sqlite --quiet"), 0);
  fl_cli_write("u.ini", "[run]\nname = u\nreplicas = 2\n[app]\nnodes = 9\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate u.ini --db third.sqlite --quiet"), 0);
  CU_ASSERT_EQUAL(fl_cli_run("merge notes.txt --db out.sqlite"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "notes.txt: not a SQLite database"));
  CU_ASSERT_FALSE(fl_cli_exists("out.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite third.sqlite --db out.sqlite"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "rows of another scenario"));
  CU_ASSERT_FALSE(fl_cli_exists("out.sqlite"));
  {
    /* faultline's tables without its constraints, and a row they would refuse: refused before anything is written */
    sqlite3 *h = NULL;
    CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate t.ini --db loose.sqlite --quiet"), 0);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("loose.sqlite"), &h), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h,
                                 "DROP VIEW run_summary; CREATE TABLE loose AS SELECT * FROM runs; DROP TABLE runs;"
                                 " ALTER TABLE loose RENAME TO runs; UPDATE runs SET mode = 'dream' WHERE id = 2",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(h);
    CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite loose.sqlite --db out.sqlite"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "loose.sqlite: 1 row the results schema refuses"));
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    CU_ASSERT_FALSE(fl_cli_exists("out.sqlite"));
  }
  {
    /* a shard still being written: refused, named, nothing written; the writer is not disturbed */
    char cmd[8192];
    FILE *f;
    long pid = 0;
    int waited = 0;
    double rows = 0;
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' simulate t.ini --replicas 1000000 --shard 1/2 --db busy.sqlite --quiet >/dev/null 2>&1 & "
             "echo $! > '%s'",
             fl_test_tmpdir(), getenv("FAULTLINE"), fl_test_tmp("busypid"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    while (waited++ < 3000 && !((rows = fl_cli_query("busy.sqlite", "SELECT COUNT(*) FROM runs")) >= 10)) {
      struct timespec ts = {0, 10000000};
      nanosleep(&ts, NULL);
    }
    CU_ASSERT(rows >= 10);
    CU_ASSERT_EQUAL(fl_cli_run("merge busy.sqlite --db out.sqlite"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "busy.sqlite: being written"));
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    CU_ASSERT_FALSE(fl_cli_exists("out.sqlite"));
    f = fopen(fl_test_tmp("busypid"), "r");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(fscanf(f, "%ld", &pid) == 1 && pid > 1);
    fclose(f);
    CU_ASSERT(pid > 1 && kill((pid_t)pid, 0) == 0); /* the refusal came while it was still writing */
    if (pid > 1)
      kill((pid_t)pid, SIGKILL);
  }
  {
    /* a sweep id faultline does not write (too long to keep whole): refused, named */
    sqlite3 *h = NULL;
    CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate t.ini --db longsweep.sqlite --shard 1/2 --quiet"), 0);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("longsweep.sqlite"), &h), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h, "UPDATE shards SET sweep = sweep || sweep || sweep", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    CU_ASSERT_EQUAL(fl_cli_run("merge longsweep.sqlite --db out.sqlite"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "longsweep.sqlite: shards table: sweep id '"));
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    CU_ASSERT_FALSE(fl_cli_exists("out.sqlite"));
  }
  CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite --db other.sqlite"), 2);
  CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite"), 2);
  CU_ASSERT_EQUAL(fl_cli_run("simulate t.ini --db x.sqlite --shard 4/3"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--shard I '4': must be at most 3"));
}

/* Turn a results file into what faultline wrote before schema 2: the scenario text in every row, no
 * scenario_texts table, a plain index on row_key, user_version 1. */
static int to_schema_1(const char *name)
{
  sqlite3 *h = NULL;
  int ok =
      sqlite3_open(fl_test_tmp(name), &h) == SQLITE_OK &&
      sqlite3_exec(h,
                   "PRAGMA journal_mode=DELETE;"
                   "UPDATE runs SET scenario_text = (SELECT text FROM scenario_texts WHERE xxh64 = scenario_xxh64);"
                   "ALTER TABLE runs DROP COLUMN scenario_xxh64; DROP TABLE scenario_texts; DROP INDEX runs_key;"
                   "CREATE INDEX runs_by_key ON runs(row_key);" FL_CLI_EVENTS_AS_TEXT_SQL "PRAGMA user_version = 1",
                   NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_close(h);
  return ok;
}

/* Schema 2 stores the scenario text once (scenario_texts) and makes row keys unique; a shard written before
 * (the text in every row) still merges with today's shards as the same scenario, its rows report in the same
 * group and re-simulate, and a file of schema 1 that held the same key twice keeps working. */
static void test_schema_1_shards(void)
{
  static char full[1 << 16], merged[1 << 16], rep_full[1 << 16];
  fl_cli_write("v.ini", "[run]\nname = v\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                        "[app]\nnodes = 32\nwork = 12h\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate v.ini --db vfull.sqlite --quiet " SWEEP), 0);
  CU_ASSERT_EQUAL(fl_cli_query("vfull.sqlite", "SELECT COUNT(*) FROM scenario_texts"), 1);
  CU_ASSERT_EQUAL(fl_cli_query("vfull.sqlite", "SELECT COUNT(*) FROM runs WHERE scenario_text <> ''"), 0);
  for (int i = 1; i <= 2; i++) {
    char args[512];
    snprintf(args, sizeof args, "simulate v.ini --db v%d.sqlite --shard %d/2 --quiet " SWEEP, i, i);
    CU_ASSERT_EQUAL(fl_cli_run(args), 0);
  }
  CU_ASSERT_FATAL(to_schema_1("v1.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_query("v1.sqlite", "SELECT COUNT(*) FROM runs WHERE scenario_text LIKE '[run]%'"), 10);
  CU_ASSERT_EQUAL(fl_cli_run("merge v1.sqlite v2.sqlite --db vmerged.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "20 rows added"));
  rows_of("vfull.sqlite", full, sizeof full);
  rows_of("vmerged.sqlite", merged, sizeof merged);
  CU_ASSERT_STRING_EQUAL(full, merged);
  /* the schema-1 shard's text events came along typed (kind codes by name, their sentence kept): the same events
   * as the sweep written at once, kind for kind, sentence for sentence */
  {
    static const char *const q[] = {
        "SELECT COUNT(*) FROM events_text",
        "SELECT COUNT(*) FROM events WHERE kind IS NULL OR kind >= 1000",
        "SELECT COUNT(DISTINCT kind) FROM events_text",
        "SELECT SUM(t_s) FROM events_text",
        "SELECT SUM(length(detail) * t_s) FROM events_text",
        "SELECT SUM(unicode(kind) * t_s) FROM events_text WHERE detail LIKE 'work %'",
        "SELECT COUNT(DISTINCT detail) FROM events_text",
    };
    CU_ASSERT(fl_cli_query("vfull.sqlite", q[0]) > 0);
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++)
      CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("vfull.sqlite", q[k]), fl_cli_query("vmerged.sqlite", q[k]), 1e-6);
    /* the converted ones keep the text they had; the others are typed */
    CU_ASSERT(fl_cli_query("vmerged.sqlite", "SELECT COUNT(*) FROM events WHERE note IS NOT NULL") > 0);
    CU_ASSERT(fl_cli_query("vmerged.sqlite", "SELECT COUNT(*) FROM events WHERE note IS NULL") > 0);
  }
  /* one experiment per sweep point, whichever schema wrote the row */
  CU_ASSERT_EQUAL(fl_cli_run("report vfull.sqlite --csv"), 0);
  snprintf(rep_full, sizeof rep_full, "%s", fl_cli_out);
  CU_ASSERT_EQUAL(fl_cli_run("report vmerged.sqlite --csv"), 0);
  CU_ASSERT_STRING_EQUAL(rep_full, fl_cli_out);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_out), 5);                                 /* header + 2 shapes x 2 strategies */
  CU_ASSERT(strstr(fl_cli_out, ",failures.shape,") < strchr(fl_cli_out, '\n')); /* each varying key a column */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"buddy\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, ",0.90000000000000002,"));
  /* a row that came from the schema-1 shard re-simulates from the text it carries */
  CU_ASSERT_EQUAL(fl_cli_run("rerun vmerged.sqlite 1"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "identical"));
  /* a schema-1 file holding one key twice: opened for writing it keeps a plain index, merges still add rows once */
  {
    sqlite3 *h = NULL;
    CU_ASSERT_FATAL(to_schema_1("v2.sqlite"));
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("v2.sqlite"), &h), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h,
                                 "INSERT INTO runs (faultline_version, scenario, scenario_text, overrides, mode, app,"
                                 " strategy, failure_model, seed, replica, nodes, platform_nodes, work_s, status,"
                                 " row_key) SELECT faultline_version, scenario, scenario_text, overrides, mode, app,"
                                 " strategy, failure_model, seed, replica, nodes, platform_nodes, work_s, status,"
                                 " row_key FROM runs WHERE id = 1",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(h);
  }
  CU_ASSERT_EQUAL(fl_cli_run("merge v1.sqlite --db v2.sqlite"), 1); /* 1: shard 2/2 not among the inputs */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "10 rows added, 0 already"));
  CU_ASSERT_EQUAL(fl_cli_run("merge v1.sqlite --db v2.sqlite"), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows added, 10 already"));
  CU_ASSERT_EQUAL(fl_cli_query("v2.sqlite", "SELECT COUNT(*) FROM runs"), 21);
  CU_ASSERT_EQUAL(fl_cli_query("v2.sqlite", "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'runs_key'"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("v2.sqlite", "PRAGMA user_version"), FL_DB_SCHEMA_VERSION); /* upgraded on open */
  /* its text events were converted in place: every one still there, typed, with its sentence */
  CU_ASSERT_EQUAL(fl_cli_query("v2.sqlite", "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'events_v2'"), 0);
  CU_ASSERT(fl_cli_query("v2.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind = 'checkpoint' AND detail LIKE"
                                      " 'work %s'") > 0);
  CU_ASSERT_EQUAL(fl_cli_query("v2.sqlite", "SELECT COUNT(*) FROM events WHERE run_id NOT IN (SELECT id FROM runs)"),
                  0);
}

/* Keys a foreign or damaged file may hold, on the row-by-row path (one row without a key sends a file there): a
 * BLOB key, a key with a NUL inside, rows without keys in two files whose long paths agree on their first hundred
 * characters. Each merge twice: the second adds nothing and fails nowhere (it met a UNIQUE constraint on the BLOB
 * and NUL keys, looked up as C text; the two keyless files were one, their identities cut to 96 characters). */
static void test_merge_odd_keys(void)
{
  char dir[2][1024], shard[2][1100], args[2400];
  sqlite3 *h = NULL;
  fl_cli_write("k.ini", "[run]\nname = k\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                        "[app]\nnodes = 32\nwork = 12h\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate k.ini --db kodd.sqlite --quiet --replicas 4"), 0);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("kodd.sqlite"), &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h,
                               "UPDATE runs SET row_key = NULL WHERE id = 1;"
                               "UPDATE runs SET row_key = CAST(row_key AS BLOB) WHERE id = 2;"
                               "UPDATE runs SET row_key = row_key || char(0) || 'x' WHERE id = 3",
                               NULL, NULL, NULL),
                  SQLITE_OK);
  sqlite3_close(h);
  CU_ASSERT_EQUAL(fl_cli_run("merge kodd.sqlite --db kout.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "4 rows added, 0 already"));
  CU_ASSERT_EQUAL(fl_cli_run("merge kodd.sqlite --db kout.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows added, 4 already"));
  CU_ASSERT_EQUAL(fl_cli_query("kout.sqlite", "SELECT COUNT(*) FROM runs"), 4);
  /* keyless rows in two files whose paths differ only after 100 characters */
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("kodd.sqlite"), &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, "UPDATE runs SET row_key = NULL", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  for (int i = 0; i < 2; i++) {
    char cmd[4096];
    snprintf(dir[i], sizeof dir[i], "%s/%0100d-%d", fl_test_tmp("klong"), 0, i);
    snprintf(shard[i], sizeof shard[i], "%s/shard.sqlite", dir[i]);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s'", dir[i], fl_test_tmp("kodd.sqlite"), shard[i]);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  }
  snprintf(args, sizeof args, "merge %s %s --db klong.sqlite", shard[0], shard[1]);
  CU_ASSERT_EQUAL(fl_cli_run(args), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "8 rows added, 0 already"));
  CU_ASSERT_EQUAL(fl_cli_run(args), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "0 rows added, 8 already"));
  CU_ASSERT_EQUAL(fl_cli_query("klong.sqlite", "SELECT COUNT(*) FROM runs"), 8);
}

/* A sweep killed half-way (SIGKILL to the whole process group, as a lost login session or a cancelled job would
 * end it) and run again: it completes, every row once, the same rows as one process's. */
static void test_killed_sweep_resumes(void)
{
  static char full[1 << 17], swept[1 << 17];
  char cmd[8192];
  const char *bin = getenv("FAULTLINE");
  double seen = 0;
  int waited = 0;
  fl_cli_write("k.ini", "[run]\nname = k\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                        "[app]\nnodes = 32\nwork = 12h\n");
#define KSWEEP "--sweep failures.shape=0.5,0.9 --sweep strategy.kind=checkpoint,buddy --replicas 300"
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate k.ini --db kfull.sqlite --quiet " KSWEEP), 0);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && setsid '%s' sweep k.ini --jobs 2 --shards 4 --dir ksw --db kswept.sqlite --quiet " KSWEEP
           " >/dev/null 2>&1 & echo $! > '%s'",
           fl_test_tmpdir(), bin, fl_test_tmp("kpid"));
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  /* until the shards hold some rows, but not all: then the whole group, sweep and shards, is killed */
  while (waited++ < 3000) {
    double a = fl_cli_query("ksw/shard-1.sqlite", "SELECT COUNT(*) FROM runs");
    double b = fl_cli_query("ksw/shard-2.sqlite", "SELECT COUNT(*) FROM runs");
    seen = (isnan(a) ? 0 : a) + (isnan(b) ? 0 : b);
    if (seen >= 40)
      break;
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  {
    /* setsid made the sweep its group's leader: the group is the sweep and its shards */
    FILE *f = fopen(fl_test_tmp("kpid"), "r");
    long pid = 0;
    struct timespec ts = {0, 200000000};
    CU_ASSERT_FATAL(f && fscanf(f, "%ld", &pid) == 1 && pid > 1);
    fclose(f);
    CU_ASSERT_EQUAL(kill(-(pid_t)pid, SIGKILL), 0);
    nanosleep(&ts, NULL);
  }
  CU_ASSERT(seen >= 40);
  CU_ASSERT_FALSE(fl_cli_exists("kswept.sqlite")); /* killed before its merge */
  CU_ASSERT_EQUAL(fl_cli_run("sweep k.ini --jobs 2 --shards 4 --dir ksw --db kswept.sqlite " KSWEEP), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "1200 rows added, 0 already"));
  CU_ASSERT_EQUAL(fl_cli_query("kswept.sqlite", "SELECT COUNT(*) FROM runs"), 1200);
  CU_ASSERT_EQUAL(fl_cli_query("kswept.sqlite", "SELECT COUNT(DISTINCT row_key) FROM runs"), 1200);
  rows_of("kfull.sqlite", full, sizeof full);
  rows_of("kswept.sqlite", swept, sizeof swept);
  CU_ASSERT_EQUAL(fl_cli_lines(full), 1200);
  CU_ASSERT_STRING_EQUAL(full, swept);
#undef KSWEEP
}

/* platform.* sweeps: SimGrid holds one platform per process, so each platform's combinations run in a process of
 * their own; the rows are those of the platforms run one by one, sharded or not; a platform that cannot hold the
 * job is one line before anything is written. */
static void test_platform_sweep(void)
{
  static char full[1 << 16], swept[1 << 16], one[1 << 16];
  fl_cli_write("p.ini", "[run]\nname = p\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                        "[app]\nnodes = 32\nwork = 12h\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate p.ini --db pfull.sqlite --quiet --replicas 3 "
                                   "--sweep platform.nodes=40,48,64 --sweep strategy.kind=checkpoint,buddy"),
                        0);
  CU_ASSERT_EQUAL(fl_cli_query("pfull.sqlite", "SELECT COUNT(*) FROM runs"), 18);
  CU_ASSERT_EQUAL(fl_cli_query("pfull.sqlite", "SELECT COUNT(DISTINCT platform_nodes) FROM runs"), 3);
  /* the same rows as each platform on its own */
  CU_ASSERT_EQUAL(fl_cli_run("simulate p.ini --db pone.sqlite --quiet --replicas 3 --set platform.nodes=48 "
                             "--sweep strategy.kind=checkpoint,buddy"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_query("pfull.sqlite", "SELECT COUNT(*) FROM runs WHERE platform_nodes = 48"), 6);
  {
    static char a[1 << 16], b[1 << 16];
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    const char *q = "SELECT group_concat(quote(makespan_s) || ':' || failures, ' ') FROM (SELECT * FROM runs"
                    " WHERE platform_nodes = 48 ORDER BY strategy, replica)";
    a[0] = b[0] = '\0';
    if (sqlite3_open_v2(fl_test_tmp("pfull.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      snprintf(a, sizeof a, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    if (sqlite3_open_v2(fl_test_tmp("pone.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      snprintf(b, sizeof b, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    CU_ASSERT(a[0] != '\0');
    CU_ASSERT_STRING_EQUAL(a, b);
  }
  /* sharded by the sweep (each shard runs each platform in its own process), merged: the same rows */
  CU_ASSERT_EQUAL(fl_cli_run("sweep p.ini --jobs 2 --shards 3 --dir psw --db pswept.sqlite --quiet --replicas 3 "
                             "--sweep platform.nodes=40,48,64 --sweep strategy.kind=checkpoint,buddy"),
                  0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "INCOMPLETE"));
  rows_of("pfull.sqlite", full, sizeof full);
  rows_of("pswept.sqlite", swept, sizeof swept);
  CU_ASSERT_EQUAL(fl_cli_lines(full), 18);
  CU_ASSERT_STRING_EQUAL(full, swept);
  /* the report and the plot see the platform key vary */
  CU_ASSERT_EQUAL(fl_cli_run("report pfull.sqlite --csv"), 0);
  CU_ASSERT(strstr(fl_cli_out, ",platform.nodes,") &&
            strstr(fl_cli_out, ",platform.nodes,") < strchr(fl_cli_out, '\n'));
  /* a platform too small for the job: one line, no file */
  CU_ASSERT_EQUAL(fl_cli_run("simulate p.ini --db pbad.sqlite --sweep platform.nodes=40,16"), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "only 16 hosts"));
  CU_ASSERT_FALSE(fl_cli_exists("pbad.sqlite"));
  rows_of("pbad.sqlite", one, sizeof one);
  CU_ASSERT_STRING_EQUAL(one, "");
  {
    /* a platform file SimGrid cannot parse, swept by 2 shards at once: one line for the sweep (the second shard's
     * check waits for the first's word), no directory, no file */
    char sc[8192], args[8192];
    fl_cli_write("broken.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n");
    snprintf(sc, sizeof sc,
             "[run]\nname = q\n[platform]\nfile = %s\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
             "[app]\nnodes = 28\nwork = 12h\n",
             fl_test_src("sim/platforms/small-cluster.xml"));
    fl_cli_write("q.ini", sc);
    snprintf(args, sizeof args,
             "sweep q.ini --jobs 2 --shards 2 --dir qsw --db qswept.sqlite --replicas 2 "
             "--sweep platform.file=%s,%s/broken.xml",
             fl_test_src("sim/platforms/small-cluster.xml"), fl_test_tmpdir());
    CU_ASSERT_EQUAL(fl_cli_run(args), 2);
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "broken.xml"));
    CU_ASSERT_FALSE(fl_cli_exists("qsw"));
    CU_ASSERT_FALSE(fl_cli_exists("qswept.sqlite"));
  }
}

/* A --set of a key the scenario's own run.sweep sweeps: the command line wins (that term of the file's sweep is left
 * out, and said), instead of the file's sweep putting the other values back; other terms still sweep. */
static void test_set_overrides_file_sweep(void)
{
  fl_cli_write("fs.ini", "[run]\nname = fs\nseed = 2\nreplicas = 2\nevents = none\n"
                         "sweep = strategy.kind+strategy.checkpoint_cost=checkpoint/5min,buddy/30s "
                         "failures.node_mtbf=2y,5y\n[platform]\nnodes = 100\n[app]\nnodes = 64\nwork = 6h\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate fs.ini --db fs.sqlite --set strategy.kind=none"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "sweep term 'strategy.kind+strategy.checkpoint_cost="));
  CU_ASSERT_EQUAL(fl_cli_query("fs.sqlite", "SELECT COUNT(*) FROM runs"), 4); /* 2 MTBFs x 2 replicas */
  CU_ASSERT_EQUAL(fl_cli_query("fs.sqlite", "SELECT COUNT(*) FROM runs WHERE strategy <> 'none'"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("fs.sqlite", "SELECT COUNT(DISTINCT node_mtbf_s) FROM runs"), 2);
}

static CU_TestInfo sweep_tests[] = {
    {"a --set of a swept key wins over the file's sweep", test_set_overrides_file_sweep},
    {"shards merge back to the sweep, row for row", test_shards_merge_to_the_sweep},
    {"merge refuses what is not its input", test_merge_refuses},
    {"shards of schema 1 (the text in every row) merge with today's", test_schema_1_shards},
    {"odd keys merge once: a BLOB, a NUL inside, keyless files with long paths", test_merge_odd_keys},
    {"a sweep killed half-way completes when run again, every row once", test_killed_sweep_resumes},
    {"platform.* sweeps: a process per platform, the same rows", test_platform_sweep},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"sweep", NULL, NULL, NULL, NULL, sweep_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
