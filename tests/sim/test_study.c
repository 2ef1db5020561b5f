/* test_study.c — what a `simulate` command runs, as the library the CLI calls (sim/study.h): the sweep of the file
 * less the terms an override sets, then the command's; combinations grouped by platform; a combination that differs
 * only in keys its simulation ignores folded; the shards' rows; bad input refused before anything is set up.
 * SimGrid loads one platform a process: every set-up here uses the same generated 8 nodes. */
#include "fl_test.h"
#include "study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *write_scenario(const char *name, const char *text)
{
  const char *path = fl_test_tmp(name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
  return path;
}

#define BASE "[run]\nreplicas = 3\n[platform]\nnodes = 8\n[app]\nnodes = 8\nwork = 1d\n[failures]\nnode_mtbf = 30d\n"

/* The file's sweep less the term an override sets; the command's sweep after it. */
static void test_plan_sweep(void)
{
  const char *path = write_scenario("plan.ini", BASE "[run]\nsweep = strategy.kind=checkpoint,buddy "
                                                     "failures.node_mtbf=10d,20d,30d\n");
  char o1[] = "strategy.kind=none", o2[] = "\x01strategy.interval=1h,2h";
  char *sets[] = {o1, o2};
  fl_study *st = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_study_plan(path, sets, 2, &st), FL_OK);
  CU_ASSERT_STRING_EQUAL(st->dropped, "strategy.kind=checkpoint,buddy ");
  CU_ASSERT_EQUAL(st->ndims, 2); /* node_mtbf (3) x interval (2) */
  CU_ASSERT_EQUAL(st->ncombos, 6);
  CU_ASSERT_EQUAL(st->ngroups, 1);
  for (long c = 0; c < st->ncombos; c++) {
    CU_ASSERT_STRING_EQUAL(st->points[c].sc->strategy, "none");
    CU_ASSERT_PTR_NULL(st->points[c].sim); /* planned, not set up */
  }
  /* the first dimension varies slowest */
  CU_ASSERT_DOUBLE_EQUAL(st->points[0].sc->node_mtbf_s, 10 * 86400.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(st->points[1].sc->node_mtbf_s, 10 * 86400.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(st->points[5].sc->node_mtbf_s, 30 * 86400.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(st->points[1].sc->interval_s, 7200.0, 1e-9);
  fl_study_destroy(&st);
  CU_ASSERT_PTR_NULL(st);
  fl_study_destroy(&st); /* NULL: nothing */
}

/* Platforms: a process each; a group's set-up makes only its own simulations. */
static void test_groups(void)
{
  const char *path = write_scenario("groups.ini", BASE "[run]\nsweep = platform.nodes=8,16 strategy.kind=none,"
                                                       "checkpoint\n");
  fl_study *st = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_study_plan(path, NULL, 0, &st), FL_OK);
  CU_ASSERT_EQUAL(st->ncombos, 4);
  CU_ASSERT_EQUAL(st->ngroups, 2);
  CU_ASSERT(st->points[0].group == 0 && st->points[1].group == 0 && st->points[2].group == 1 &&
            st->points[3].group == 1);
  CU_ASSERT_EQUAL(fl_study_setup(st, 2), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "--platform-group 2: the sweep has 2 platforms"));
  CU_ASSERT_EQUAL_FATAL(fl_study_setup(st, 0), FL_OK);
  CU_ASSERT(st->points[0].sim && st->points[1].sim && !st->points[2].sim && !st->points[3].sim);
  /* the rows: those of the combinations set up here, every shard a disjoint share */
  CU_ASSERT_EQUAL(fl_study_rows(st, 1, 1), 6);
  CU_ASSERT_EQUAL(fl_study_rows(st, 1, 4) + fl_study_rows(st, 2, 4) + fl_study_rows(st, 3, 4) + fl_study_rows(st, 4, 4),
                  6);
  CU_ASSERT_EQUAL(fl_study_rows(st, 1, 4), 2); /* items 0 and 4 of 0..5 (the second group's 6..11 not here) */
  fl_study_destroy(&st);
}

/* A key the simulation does not read: its combinations would repeat the first's replicas, so they are folded. */
static void test_folded(void)
{
  const char *path =
      write_scenario("fold.ini", BASE "[strategy]\nkind = checkpoint\n[run]\nsweep = policy.kind=greedy,exact,mip "
                                      "failures.node_mtbf=10d,20d\n");
  fl_study *st = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_study_plan(path, NULL, 0, &st), FL_OK);
  CU_ASSERT_EQUAL(st->ncombos, 6);
  CU_ASSERT_EQUAL_FATAL(fl_study_setup(st, -1), FL_OK);
  /* policy.kind varies slowest: only its first value's two combinations run */
  for (long c = 0; c < st->ncombos; c++)
    CU_ASSERT_EQUAL(st->points[c].sim != NULL, c < 2);
  CU_ASSERT_EQUAL(fl_study_rows(st, 1, 1), 2 * 3);
  fl_study_destroy(&st);
}

/* Running it: the shards together write every row once, hooks heard per point and per row; run again, every row
 * is found in the database and skipped. */
typedef struct {
  int points, rows, done;
  long completed; /* replicas the points' tallies say completed */
} heard;
static void on_point(void *ctx, const fl_study *st, long c)
{
  (void)st;
  (void)c;
  ((heard *)ctx)->points++;
}
static void on_row(void *ctx, const fl_study *st, long c, long done, long total)
{
  (void)st;
  (void)c;
  CU_ASSERT(done >= 0 && done < total);
  ((heard *)ctx)->rows++;
}
static void on_done(void *ctx, const fl_study *st, long c, const fl_study_tally *t)
{
  (void)st;
  (void)c;
  CU_ASSERT(t->completed >= 0 && t->completed <= 3); /* a point has 3 replicas */
  ((heard *)ctx)->completed += t->completed;
  ((heard *)ctx)->done++;
}

static void test_run(void)
{
  const char *path = write_scenario("run.ini", BASE "[run]\nsweep = failures.node_mtbf=10d,20d\n");
  char db_set[600];
  char *sets[] = {db_set};
  fl_study *st = NULL;
  fl_db *db = NULL;
  fl_db_writer *w = NULL;
  heard h = {0, 0, 0, 0};
  fl_study_hooks hooks = {.ctx = &h, .point = on_point, .row = on_row, .point_done = on_done};
  snprintf(db_set, sizeof db_set, "run.db=%s", fl_test_tmp("run.sqlite"));
  CU_ASSERT_EQUAL_FATAL(fl_study_plan(path, sets, 1, &st), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_study_setup(st, -1), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_db_open(st->points[0].sc->db, &db), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_db_writer_start(db, 1, &w), FL_OK);
  for (long i = 1; i <= 2; i++) { /* two shards of 6 rows: 3 each */
    fl_study_tally t = {0};
    CU_ASSERT_EQUAL(fl_study_run(st, db, w, i, 2, &hooks, &t), FL_OK);
    CU_ASSERT_EQUAL(t.nown, 3u);
    CU_ASSERT_EQUAL(t.skipped, 0);
    free(t.own);
  }
  CU_ASSERT_EQUAL(h.points, 4); /* each shard runs both points */
  CU_ASSERT_EQUAL(h.rows, 6);
  CU_ASSERT_EQUAL(h.done, 4);
  CU_ASSERT_EQUAL(h.completed, 6); /* a day of work, 30-day nodes: every row completes, each counted once */
  {
    fl_study_tally t = {0};
    CU_ASSERT_EQUAL(fl_study_run(st, db, w, 1, 1, NULL, &t), FL_OK);
    CU_ASSERT_EQUAL(t.nown, 0u);
    CU_ASSERT_EQUAL(t.skipped, 6);
    free(t.own);
  }
  fl_db_writer_destroy(&w);
  fl_db_close(&db);
  fl_study_destroy(&st);
}

/* Bad input, before anything is set up: the message names where. */
static void test_refused(void)
{
  fl_study *st = NULL;
  const char *path = write_scenario("bad.ini", BASE "[run]\nsweep = run.db=a.sqlite,b.sqlite\n");
  char bad[] = "strategy.degree=x";
  char *sets[] = {bad};
  CU_ASSERT_EQUAL(fl_study_plan(path, NULL, 0, &st), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "run.db cannot be swept"));
  CU_ASSERT_PTR_NULL(st);
  path = write_scenario("bad2.ini", BASE);
  CU_ASSERT_EQUAL(fl_study_plan(path, sets, 1, &st), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "--set strategy.degree=x: not a whole number"));
  CU_ASSERT_PTR_NULL(st);
}

static CU_TestInfo study_tests[] = {
    {"the sweep: the file's less what an override sets, then the command's", test_plan_sweep},
    {"platform groups, set up one at a time; the shards' rows", test_groups},
    {"combinations that differ only in unread keys are folded", test_folded},
    {"shards write every row once, a re-run skips them", test_run},
    {"bad input refused before anything is set up", test_refused},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"study", NULL, NULL, NULL, NULL, study_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
