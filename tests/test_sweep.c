/* test_sweep.c — a sweep cut into shards (`simulate --shard I/N`) and merged back (`faultline merge`): the shards
 * are disjoint and together the whole sweep, row for row with identical figures; a re-run skips what is there;
 * merging is idempotent, never changes its inputs, says which shard is missing, refuses other files. */
#include "cli_util.h"
#include "fl_test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite --db other.sqlite"), 2);
  CU_ASSERT_EQUAL(fl_cli_run("merge other.sqlite"), 2);
  CU_ASSERT_EQUAL(fl_cli_run("simulate t.ini --db x.sqlite --shard 4/3"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--shard I '4': must be at most 3"));
}

static CU_TestInfo sweep_tests[] = {
    {"shards merge back to the sweep, row for row", test_shards_merge_to_the_sweep},
    {"merge refuses what is not its input", test_merge_refuses},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"sweep", NULL, NULL, NULL, NULL, sweep_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
