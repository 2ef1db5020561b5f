/* test_advise.c — `faultline advise`: the race's statistics against a published paired test, and hand cases where
 * replication must win, where buddy must, where candidates tie; the answer read back from the database; bad input. */
#include "cli_util.h"
#include "fl_test.h"
#include "race.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Student's sleep data (Cushny & Peebles 1905, as R's `sleep`): extra hours of sleep of 10 patients under two
 * drugs. R: t.test(extra ~ group, data = sleep, paired = TRUE) gives t = -4.0621, df = 9, p-value = 0.002833
 * (two-sided), mean difference -1.58, 95 % CI -2.4598858 .. -0.7001142. */
static const double drug1[10] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
static const double drug2[10] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

static void test_race_paired_published(void)
{
  double mean, half;
  const double *y[2] = {drug1, drug2};
  int alive[2] = {1, 1}, drop[2];
  double p[2];
  fl_race_paired(drug2, drug1, 10, 0.95, &mean, &half);
  CU_ASSERT_DOUBLE_EQUAL(mean, 1.58, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(half, 2.4598858 - 1.58, 1e-6);
  /* drug 1's numbers are smaller (the leader); drug 2 is worse with one-sided p = 0.002833 / 2 */
  CU_ASSERT_EQUAL(fl_race_step(y, alive, 2, 10, 0.05, drop, p), 0);
  CU_ASSERT_DOUBLE_EQUAL(p[1], 0.002833 / 2, 2e-6);
  CU_ASSERT_EQUAL(drop[1], 1);
  CU_ASSERT_EQUAL(drop[0], 0);
  /* at a level below its p-value it stays */
  fl_race_step(y, alive, 2, 10, 0.001, drop, p);
  CU_ASSERT_EQUAL(drop[1], 0);
}

/* Holm's step-down: three challengers with one-sided p-values about 0.0014 (drug 2), 0.5 (the leader's own numbers
 * shifted by nothing: a tie) and one worse by a constant (p 0): at alpha 0.05 the constant and drug 2 are dropped
 * (0 <= 0.05/3, 0.0014 <= 0.05/2), the tie is not (1 > 0.05/1). */
static void test_race_holm(void)
{
  double shifted[10], same[10];
  const double *y[4] = {drug1, drug2, same, shifted};
  int alive[4] = {1, 1, 1, 1}, drop[4];
  double p[4];
  for (int i = 0; i < 10; i++) {
    shifted[i] = drug1[i] + 0.25;
    same[i] = drug1[i];
  }
  CU_ASSERT_EQUAL(fl_race_step(y, alive, 4, 10, 0.05, drop, p), 0);
  CU_ASSERT_EQUAL(drop[0], 0);
  CU_ASSERT_EQUAL(drop[1], 1);
  CU_ASSERT_EQUAL(drop[2], 0);
  CU_ASSERT_EQUAL(drop[3], 1);
  CU_ASSERT_DOUBLE_EQUAL(p[3], 0.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(p[2], 1.0, 0.0);
  /* a candidate out of the race is neither leader nor tested */
  alive[0] = 0;
  CU_ASSERT_EQUAL(fl_race_step(y, alive, 4, 10, 0.05, drop, p), 2);
  CU_ASSERT(isnan(p[0]));
}

/* A small job: 200 ranks, 24 h of work, 5 min checkpoints. */
static const char *const job = "[run]\nname = advise-hand\nseed = 11\nevents = none\n"
                               "[platform]\nnodes = %d\n"
                               "[failures]\nnode_mtbf = %s\nrepair = 1h\n"
                               "[app]\nnodes = 200\nwork = 24h\n"
                               "[strategy]\ncheckpoint_cost = 5min\nrestart_cost = 5min\ndowntime = 30s\n%s";

static json_t *advise_json(const char *ini, const char *extra)
{
  char args[1024];
  json_error_t err;
  json_t *j;
  snprintf(args, sizeof args, "advise %s --format json --quiet %s", ini, extra);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 300), 0);
  j = json_loads(fl_cli_out, 0, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(j);
  return j;
}

static const char *best_kind(json_t *j)
{
  json_t *first = json_array_get(json_object_get(j, "ranking"), 0);
  return json_string_value(json_object_get(json_object_get(first, "config"), "strategy.kind"));
}

/* Replication must win: nodes to spare for two copies (1000 for 2 x 200), and failures that a spare replaces at once
 * (200 ranks of 1-year nodes: a failure of the job every 44 h, so about one in two replicas meets one) but that
 * almost never take both copies of a rank: every replica of replication without checkpoints takes the work alone,
 * 24 h, which anything that checkpoints (5 min each) or restarts cannot match. (At 30-day nodes pairs do fail
 * together and replication with checkpoints wins instead: that is the race's call, not this test's.) */
static void test_replication_wins(void)
{
  char text[1024];
  json_t *j, *first;
  snprintf(text, sizeof text, job, 1000, "1y", "");
  fl_cli_write("repl.ini", text);
  j = advise_json("repl.ini", "--db repl.sqlite");
  first = json_array_get(json_object_get(j, "ranking"), 0);
  CU_ASSERT_STRING_EQUAL(best_kind(j), "replication");
  CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(first, "config"), "strategy.interval")),
                         "never");
  CU_ASSERT(json_is_true(json_object_get(j, "decided")));
  CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(first, "makespan_s")), 86400.0, 1e-6);
  /* every evaluated run is a row; the winner's rows are replication's without checkpoints */
  CU_ASSERT_EQUAL((long)fl_cli_query("repl.sqlite", "SELECT COUNT(*) FROM runs"),
                  (long)json_integer_value(json_object_get(j, "simulated")));
  CU_ASSERT((long)fl_cli_query("repl.sqlite", "SELECT COUNT(*) FROM runs WHERE strategy = 'replication' AND "
                                              "interval_rule IS NULL AND makespan_s = 86400") >= 10);
  /* substitution and hybrid cannot run a bsp job: refused with the reason */
  CU_ASSERT(json_array_size(json_object_get(j, "refused")) >= 2);
  json_decref(j);
}

/* Buddy must win: no nodes for a second copy (replication refused), buddy's checkpoints cost 1 min against the file
 * system's 5 min; its interval tuned around Daly's. Run again on the same database, the answer is read back. */
static void test_buddy_wins_and_reads_back(void)
{
  char text[1024];
  json_t *j, *again, *first;
  long simulated;
  snprintf(text, sizeof text, job, 250, "30d",
           "[run]\nsweep = strategy.kind+strategy.checkpoint_cost+strategy.restart_cost=checkpoint/5min/5min,"
           "buddy/1min/1min\n");
  fl_cli_write("buddy.ini", text);
  j = advise_json("buddy.ini", "--db buddy.sqlite --out best.ini");
  CU_ASSERT_STRING_EQUAL(best_kind(j), "buddy");
  first = json_array_get(json_object_get(j, "ranking"), 0);
  CU_ASSERT(json_real_value(json_object_get(first, "interval_s")) > 0);
  simulated = (long)json_integer_value(json_object_get(j, "simulated"));
  CU_ASSERT(simulated > 0 && simulated <= 2000);
  {
    /* the INI fragment: the winner's keys */
    FILE *f = fopen(fl_test_tmp("best.ini"), "r");
    char buf[2048] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "[strategy]\nkind = buddy\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "checkpoint_cost = 1min\n"));
    if (f)
      fclose(f);
  }
  again = advise_json("buddy.ini", "--db buddy.sqlite");
  CU_ASSERT_EQUAL(json_integer_value(json_object_get(again, "simulated")), 0);
  CU_ASSERT_EQUAL(json_integer_value(json_object_get(again, "reused")), simulated);
  CU_ASSERT(json_equal(json_object_get(j, "ranking"), json_object_get(again, "ranking")));
  json_decref(j);
  json_decref(again);
}

/* A tie: without failures every checkpointing strategy at one cost and one interval runs the same timeline, and
 * `none` (no checkpoints) takes the work alone: none is best; the identical ones tie among themselves. Here with
 * replication refused and `none` left out by a checkpoint it cannot skip: checkpoint, buddy and two-level priced
 * alike at a fixed interval are one timeline: tied, not decided. */
static void test_tie(void)
{
  char text[1024];
  json_t *j, *ranking;
  snprintf(text, sizeof text, job, 250, "30d",
           "interval = 1h\n[run]\nsweep = strategy.kind=checkpoint,buddy,two-level\n");
  fl_cli_write("tie.ini", text);
  j = advise_json("tie.ini", "--db tie.sqlite --budget 300");
  ranking = json_object_get(j, "ranking");
  CU_ASSERT(json_is_false(json_object_get(j, "decided")));
  CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(ranking, 0), "verdict")), "best (tied)");
  {
    int tied = 0;
    for (size_t i = 1; i < json_array_size(ranking); i++)
      tied += strcmp(json_string_value(json_object_get(json_array_get(ranking, i), "verdict")), "tied") == 0;
    CU_ASSERT(tied >= 2);
  }
  json_decref(j);
}

static void test_bad_input(void)
{
  char text[1024];
  snprintf(text, sizeof text, job, 250, "30d", "[run]\nsweep = failures.node_mtbf=30d,60d\n");
  fl_cli_write("swept.ini", text);
  CU_ASSERT_EQUAL(fl_cli_run("advise swept.ini --db bad.sqlite"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "failures.node_mtbf"));
  CU_ASSERT_EQUAL(fl_cli_run("advise swept.ini --objective speed"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--objective 'speed'"));
  CU_ASSERT_EQUAL(fl_cli_run("advise repl.ini --set app.nodes=x"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "app.nodes"));
  CU_ASSERT(!fl_cli_exists("bad.sqlite"));
}

/* Two-level's file-level period is tuned too: the family still racing after its intervals gets strategy.file_every
 * at 1/2 and 2 of its default (4: 2 and 8), then 3 and 5 around the best, each at the family's best interval; the
 * winner's --out carries it when it is not the default. */
static void test_file_every_tuned(void)
{
  char text[1024];
  json_t *j, *ranking;
  int seen[10] = {0};
  snprintf(text, sizeof text, job, 250, "30d",
           "file_cost = 5min\n[run]\nsweep = strategy.kind+strategy.file_cost=two-level/5min,two-level/6min\n");
  fl_cli_write("fe.ini", text);
  j = advise_json("fe.ini", "--db fe.sqlite --budget 3000");
  ranking = json_object_get(j, "ranking");
  for (size_t i = 0; i < json_array_size(ranking); i++) {
    json_t *cfg = json_object_get(json_array_get(ranking, i), "config");
    const char *fe = json_string_value(json_object_get(cfg, "strategy.file_every"));
    const char *kind = json_string_value(json_object_get(cfg, "strategy.kind"));
    if (fe) {
      CU_ASSERT_STRING_EQUAL(kind, "two-level");
      if (atoi(fe) >= 0 && atoi(fe) < 10)
        seen[atoi(fe)] = 1;
    }
  }
  CU_ASSERT(seen[2] && seen[8]);                       /* 1/2 and 2 of the default 4 */
  CU_ASSERT(seen[3] || seen[5] || seen[1] || seen[9]); /* then +-1 around the best of them */
  json_decref(j);
}

/* The spares a job holds are tuned when the scenario gives a number (app.spares = 4): x 1/2 and x 2 (2 and 8), then
 * x 2^+-1/2 around the best, at the family's best interval; and priced: node-hours charge each variant what it
 * holds. */
static void test_spares_tuned(void)
{
  char text[1024];
  json_t *j, *ranking;
  int seen2 = 0, seen8 = 0;
  snprintf(text, sizeof text, job, 250, "10d", "[app]\nspares = 4\n");
  fl_cli_write("sp.ini", text);
  j = advise_json("sp.ini", "--db sp.sqlite --objective node-hours --budget 4000");
  ranking = json_object_get(j, "ranking");
  for (size_t i = 0; i < json_array_size(ranking); i++) {
    json_t *r = json_array_get(ranking, i), *cfg = json_object_get(r, "config");
    const char *sp = json_string_value(json_object_get(cfg, "app.spares"));
    if (!sp)
      continue;
    seen2 |= strcmp(sp, "2") == 0;
    seen8 |= strcmp(sp, "8") == 0;
    /* 200 ranks + the spares, over the makespan */
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(r, "node_hours")),
                           (200.0 + atof(sp)) * json_real_value(json_object_get(r, "makespan_s")) / 3600.0,
                           1e-6 * json_real_value(json_object_get(r, "node_hours")));
  }
  CU_ASSERT(seen2 && seen8);
  json_decref(j);
}

static CU_TestInfo advise_tests[] = {
    {"paired differences: Student's sleep data as R's t.test", test_race_paired_published},
    {"Holm's step-down over several challengers", test_race_holm},
    {"replication must win", test_replication_wins},
    {"buddy must win; the answer read back from the database", test_buddy_wins_and_reads_back},
    {"identical configurations tie", test_tie},
    {"two-level's file-level period is tuned", test_file_every_tuned},
    {"the spares a job holds are tuned", test_spares_tuned},
    {"bad input: exit 2, nothing written", test_bad_input},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {{"advise", NULL, NULL, NULL, NULL, advise_tests}, CU_SUITE_INFO_NULL};

FL_TEST_MAIN(suites)
