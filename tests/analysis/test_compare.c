/* test_compare.c — `faultline report DB --baseline KEY=VALUE`: paired differences, checked against the same
 * differences computed here from the rows themselves (an SQL self-join on seed and replica, the mean, the sample
 * standard deviation and the Student-t quantile written out), in every format; a baseline value written in other
 * units finds the same rows; bad requests are one line, exit 2. */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SCEN = "[run]\nname = cmp\nseed = 7\nreplicas = 12\nevents = none\n"
                                "sweep = failures.node_mtbf=1y,4y strategy.kind=checkpoint,buddy,none\n"
                                "[platform]\nnodes = 600\n[app]\nnodes = 512\nwork = 24h\n"
                                "[strategy]\ncheckpoint_cost = 10min\nrestart_cost = 10min\n";

#define T_975_11 2.200985160082949 /* Student t, 0.975 quantile, 11 degrees of freedom (12 pairs) */

/* mean and 95 % half-width of a.col - b.col over the replicas where strategy a and checkpoint both completed */
static int by_hand(const char *expr, const char *strategy, double mtbf, double *mean, double *half)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double d[64];
  int n = 0;
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT %s FROM runs a JOIN runs b ON a.seed = b.seed AND a.replica = b.replica"
           " AND a.node_mtbf_s = b.node_mtbf_s WHERE a.strategy = '%s' AND b.strategy = 'checkpoint'"
           " AND a.node_mtbf_s = %.17g AND a.status = 'completed' AND b.status = 'completed'",
           expr, strategy, mtbf);
  if (sqlite3_open_v2(fl_test_tmp("cmp.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_close(h);
    return -1;
  }
  while (sqlite3_step(st) == SQLITE_ROW && n < 64)
    d[n++] = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  {
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++)
      s += d[i];
    *mean = s / n;
    for (int i = 0; i < n; i++)
      ss += (d[i] - *mean) * (d[i] - *mean);
    *half = T_975_11 * sqrt(ss / (n - 1)) / sqrt((double)n);
  }
  return n;
}

/* The field `name` of the CSV line of `strategy` at `mtbf` in fl_cli_out. */
static double csv_field(const char *name, const char *strategy, double mtbf)
{
  char head[4096], want[64];
  const char *line = strchr(fl_cli_out, '\n');
  int col = -1, c = 0;
  size_t hl = (size_t)(line - fl_cli_out);
  memcpy(head, fl_cli_out, hl < sizeof head ? hl : sizeof head - 1);
  head[hl < sizeof head ? hl : sizeof head - 1] = '\0';
  for (char *save = NULL, *t = strtok_r(head, ",", &save); t; t = strtok_r(NULL, ",", &save), c++)
    if (strcmp(t, name) == 0)
      col = c;
  if (col < 0)
    return NAN;
  snprintf(want, sizeof want, "\"cmp\",sim,\"%s\",%.17g,", strategy, mtbf);
  for (line = line + 1; *line; line = strchr(line, '\n') + 1) {
    if (strncmp(line, want, strlen(want)) == 0) {
      const char *p = line;
      for (int i = 0; i < col; i++)
        p = strchr(p, ',') + 1;
      return *p == ',' || *p == '\n' ? NAN : strtod(p, NULL);
    }
    if (!strchr(line, '\n'))
      break;
  }
  return NAN;
}

static void test_paired_by_hand(void)
{
  const double year = 365.25 * 86400;
  const char *strategies[] = {"buddy", "none"};
  fl_cli_write("cmp.ini", SCEN);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate cmp.ini --db cmp.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind=checkpoint --format csv", 60),
                        0);
  for (int s = 0; s < 2; s++)
    for (int m = 1; m <= 4; m += 3) {
      double mean, half;
      int n = by_hand("a.makespan_s - b.makespan_s", strategies[s], m * year, &mean, &half);
      CU_ASSERT_EQUAL(n, 12);
      CU_ASSERT_EQUAL(csv_field("pairs", strategies[s], m * year), n);
      CU_ASSERT_DOUBLE_EQUAL(csv_field("makespan_s_diff", strategies[s], m * year), mean, 1e-9 * (1 + fabs(mean)));
      CU_ASSERT_DOUBLE_EQUAL(csv_field("makespan_s_diff_ci95", strategies[s], m * year), half, 1e-9 * (1 + fabs(half)));
      n = by_hand("(1.0 - a.work_s / a.makespan_s) - (1.0 - b.work_s / b.makespan_s)", strategies[s], m * year, &mean,
                  &half);
      CU_ASSERT_DOUBLE_EQUAL(csv_field("waste_diff", strategies[s], m * year), mean, 1e-12);
      CU_ASSERT_DOUBLE_EQUAL(csv_field("waste_diff_ci95", strategies[s], m * year), half, 1e-12);
      n = by_hand("(a.platform_nodes * a.makespan_s - b.platform_nodes * b.makespan_s) / 3600.0", strategies[s],
                  m * year, &mean, &half);
      CU_ASSERT_DOUBLE_EQUAL(csv_field("node_hours_diff", strategies[s], m * year), mean, 1e-9 * (1 + fabs(mean)));
      n = by_hand("a.failures - b.failures", strategies[s], m * year, &mean, &half);
      CU_ASSERT_DOUBLE_EQUAL(csv_field("failures_diff", strategies[s], m * year), mean, 1e-12);
      by_hand("a.makespan_s", strategies[s], m * year, &mean, &half);
      {
        double mb, hb;
        by_hand("b.makespan_s", strategies[s], m * year, &mb, &hb);
        CU_ASSERT_DOUBLE_EQUAL(csv_field("makespan_s_ratio", strategies[s], m * year), mean / mb, 1e-12);
      }
    }
  /* the baseline is not compared with itself */
  CU_ASSERT(isnan(csv_field("pairs", "checkpoint", year)));
  /* the table says it in words: none against checkpoint at 1y, significant (checked by hand above: CI below 0) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind=checkpoint", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "verdict (lower is better):"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "strategy.kind=none  failures.node_mtbf=1y  (12 pairs)"));
  /* JSON: the same numbers */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind=checkpoint --format json", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"baseline\": {\"key\": \"strategy.kind\", \"value\": \"checkpoint\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"makespan_s_diff_ci95\":"));
}

static void test_baseline_units_and_refusals(void)
{
  static char a[sizeof fl_cli_out];
  /* a duration baseline in other units is the same value */
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report cmp.sqlite --baseline failures.node_mtbf=1y --format csv", 60), 0);
  snprintf(a, sizeof a, "%s", fl_cli_out);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report cmp.sqlite --baseline failures.node_mtbf=8766h --format csv", 60),
                        0);
  CU_ASSERT_STRING_EQUAL(a, fl_cli_out);
  CU_ASSERT_EQUAL(fl_cli_lines(a), 1 + 3); /* header, 3 strategies at 4y against their 1y */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind=twolevel", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no row has strategy.kind = twolevel (values in these rows: "));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline no.key=1", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no scenario key 'no.key'"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline failures.node_mtbf=-1y", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline run.db=x", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --baseline strategy.kind=none --where 'nosuch = 1'", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report cmp.sqlite --format csv --format json", 60), 2);
}

/* node_hours: every node the job holds for the makespan. Failure-free, replication (two copies of 256 ranks) holds
 * twice the nodes of the same job alone for the same makespan: twice the node-hours. */
static void test_node_hours(void)
{
  fl_cli_write("nh.ini", "[run]\nname = nh\nseed = 1\nreplicas = 1\nevents = none\n"
                         "sweep = strategy.kind+platform.nodes=none/256,replication/512\n"
                         "[failures]\nmodel = none\n[app]\nnodes = 256\nwork = 10h\n[strategy]\ninterval = never\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate nh.ini --db nh.sqlite --quiet", 120), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("nh.sqlite", "SELECT node_hours FROM runs WHERE strategy = 'none'"), 2560.0,
                         1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("nh.sqlite", "SELECT node_hours FROM runs WHERE strategy = 'replication'"),
                         5120.0, 1e-9);
  /* wasted node-hours: beyond the ranks' failure-free work, the copies' 2560 */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report nh.sqlite --format json", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"wasted_node_hours\":{\"n\":1,\"mean\":0.0,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"wasted_node_hours\":{\"n\":1,\"mean\":2560.0,"));
  /* the platforms differ, so these two do not pair: refused, naming the key that differs (it said so and exited 0) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report nh.sqlite --baseline strategy.kind=none", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no run pairs with a baseline run"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "differ in platform.nodes"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
}

/* Strategies with their own costs (buddy at 30 s, the file system at 5 and 10 min), the normal case: against a
 * strategy's baseline, a strategy's own keys are what is compared, so every run pairs with the baseline's run of its
 * seed and replica (it paired nothing). The differences equal an SQL self-join of the rows; a baseline two
 * configurations share is refused, naming the key, and given jointly it pairs. */
static void test_own_costs(void)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double d[16], s = 0, ss = 0, mean, half;
  int n = 0;
  char want[128];
  fl_cli_write("own.ini", "[run]\nname = own\nseed = 3\nreplicas = 12\nevents = none\n"
                          "sweep = strategy.kind+strategy.checkpoint_cost=checkpoint/5min,buddy/30s,checkpoint/10min\n"
                          "[platform]\nnodes = 600\n[app]\nnodes = 512\nwork = 24h\n[failures]\nnode_mtbf = 1y\n"
                          "[strategy]\nrestart_cost = 5min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate own.ini --db own.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report own.sqlite --baseline strategy.kind=checkpoint", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "two configurations have it on the same runs (they differ in "
                                            "strategy.checkpoint_cost)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--baseline 'strategy.kind+strategy.checkpoint_cost=...'"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report own.sqlite --baseline "
                                           "strategy.kind+strategy.checkpoint_cost=checkpoint/5min --format csv",
                                           60),
                        0);
  /* buddy minus checkpoint at 5 min, run for run */
  CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(fl_test_tmp("own.sqlite"), &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h,
                                           "SELECT a.makespan_s - b.makespan_s FROM runs a JOIN runs b ON a.seed = "
                                           "b.seed AND a.replica = b.replica WHERE a.strategy = 'buddy' AND "
                                           "b.strategy = 'checkpoint' AND b.checkpoint_cost_s = 300 AND a.status = "
                                           "'completed' AND b.status = 'completed'",
                                           -1, &st, NULL),
                        SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW && n < 16)
    d[n++] = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  CU_ASSERT_EQUAL_FATAL(n, 12);
  for (int i = 0; i < n; i++)
    s += d[i];
  mean = s / n;
  for (int i = 0; i < n; i++)
    ss += (d[i] - mean) * (d[i] - mean);
  half = T_975_11 * sqrt(ss / (n - 1)) / sqrt((double)n);
  snprintf(want, sizeof want, "\"own\",sim,\"buddy\",30,12,");
  {
    const char *line = strstr(fl_cli_out, want);
    double f[8];
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    line += strlen(want);
    for (int k = 0; k < 5; k++) { /* makespan, its baseline, the difference, its interval, the ratio */
      f[k] = strtod(line, NULL);
      line = strchr(line, ',') + 1;
    }
    CU_ASSERT_DOUBLE_EQUAL(f[2], mean, 1e-9 * (1 + fabs(mean)));
    CU_ASSERT_DOUBLE_EQUAL(f[3], half, 1e-9 * (1 + fabs(half)));
    CU_ASSERT(f[2] < 0); /* buddy's 30 s checkpoints win */
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"own\",sim,\"checkpoint\",600,12,"));
  /* in words: the configurations by their own keys */
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("report own.sqlite --baseline strategy.kind+strategy.checkpoint_cost=checkpoint/5min", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "paired against strategy.kind=checkpoint strategy.checkpoint_cost=5min"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "makespan: strategy.kind=buddy strategy.checkpoint_cost=30s is best"));
  /* a joint baseline's values: as many as its keys */
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("report own.sqlite --baseline strategy.kind+strategy.checkpoint_cost=checkpoint", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "strategy.checkpoint_cost has no value"));
}

/* Differences within a figure's last digits are none: buddy and checkpoint priced alike give equal runs; nudged by
 * 1e-15 relative (what summing the same terms in another order does), they still read as equal run for run, not as a
 * "significant" 1e-11 s. */
static void test_last_digits(void)
{
  sqlite3 *h = NULL;
  fl_cli_write("ld.ini", "[run]\nname = ld\nseed = 3\nreplicas = 6\nevents = none\n"
                         "sweep = strategy.kind=checkpoint,buddy\n[platform]\nnodes = 600\n[app]\nnodes = 512\n"
                         "work = 24h\n[failures]\nnode_mtbf = 1y\n[strategy]\ncheckpoint_cost = 10min\n"
                         "restart_cost = 10min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ld.ini --db ld.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("ld.sqlite"), &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, "UPDATE runs SET makespan_s = makespan_s * (1 + 1e-15) WHERE strategy = 'buddy'",
                               NULL, NULL, NULL),
                  SQLITE_OK);
  sqlite3_close(h);
  CU_ASSERT(fl_cli_query("ld.sqlite", "SELECT COUNT(*) FROM runs a JOIN runs b ON a.replica = b.replica WHERE "
                                      "a.strategy = 'buddy' AND b.strategy = 'checkpoint' AND "
                                      "a.makespan_s <> b.makespan_s") > 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report ld.sqlite --baseline strategy.kind=checkpoint", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_cli_out, "makespan: strategy.kind=buddy equals the baseline strategy.kind=checkpoint run for run"));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "    makespan       +"));
}

static CU_TestInfo compare_tests[] = {
    {"node-hours: replication holds twice the nodes", test_node_hours},
    {"strategies with their own costs pair on the same failures", test_own_costs},
    {"paired differences equal the hand computation", test_paired_by_hand},
    {"baseline values in any unit; refusals", test_baseline_units_and_refusals},
    {"differences in the last digits are none", test_last_digits},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"compare", NULL, NULL, NULL, NULL, compare_tests}, CU_SUITE_INFO_NULL};

FL_TEST_MAIN(suites)
