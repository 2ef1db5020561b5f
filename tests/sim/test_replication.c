/* test_replication.c — process replication: MNFTI against its closed form, the placement of copies, and
 * replication combined with checkpoints. One platform per process: 2000 generated nodes. */
#include "fl_test.h"
#include "replication.h"
#include "scenario.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_sim *make_sim(const char *text)
{
  char full[2048];
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  snprintf(full, sizeof full, "[platform]\nnodes = 2000\n%s", text);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(full, "<test>", fl_test_tmpdir(), &sc), FL_OK);
  if (fl_sim_create(sc, &sim) != FL_OK)
    fprintf(stderr, "fl_sim_create: %s\n", fl_err_msg());
  fl_scenario_destroy(&sc);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  return sim;
}

static void test_mnfti_closed_form(void)
{
  double m;
  CU_ASSERT_EQUAL(fl_pol_mnfti(2, 1, &m), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(m, 2.0, 1e-12); /* one pair: both must die */
  CU_ASSERT_EQUAL(fl_pol_mnfti(2, 2, &m), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(m, 16.0 / 6.0, 1e-12); /* 4^2 / C(4,2) */
  CU_ASSERT_EQUAL(fl_pol_mnfti(2, 1000, &m), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(m, 56.0569, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(m / sqrt(3.14159265358979323846 * 1000.0), 1.0, 0.001); /* ~ sqrt(pi b) */
  CU_ASSERT_EQUAL(fl_pol_mnfti(3, 1, &m), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(m, 3.0, 1e-12); /* one triple: all three must die */
  CU_ASSERT_EQUAL(fl_pol_mnfti(1, 50, &m), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(m, 1.0, 0.0);
  CU_ASSERT_EQUAL(fl_pol_mnfti(4, 10, &m), FL_ERR_INPUT);
}

/* b = 1000 duplicated ranks, no spare, no repair: failures until a rank loses both copies. */
static void test_mnfti_simulated(void)
{
  fl_sim *sim = make_sim("[run]\nseed = 4\nmax_time = 1000y\n[failures]\nnode_mtbf = 1y\nrepair = never\n"
                         "[app]\nnodes = 1000\nwork = 100y\n"
                         "[strategy]\nkind = replication\ndegree = 2\ninterval = never\nrestart_cost = 0s\n");
  const long n = 1000;
  double sum = 0, sum2 = 0, mean, se, expect;
  fl_sim_result r;
  for (long k = 0; k < n; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, k, &r, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "failed"); /* no node left for the dead rank */
    CU_ASSERT_EQUAL(r.interruptions, 1);
    CU_ASSERT(r.failures >= 2);
    sum += (double)r.failures;
    sum2 += (double)r.failures * (double)r.failures;
  }
  mean = sum / n;
  se = sqrt((sum2 / n - mean * mean) / (n - 1));
  fl_pol_mnfti(2, 1000, &expect);
  fprintf(stderr, "    MNFTI simulated %.2f +- %.2f (99%%), closed form %.2f\n", mean, 2.58 * se, expect);
  CU_ASSERT(fabs(mean - expect) <= 2.58 * se);
  /* the interruption MTBF used for intervals is MNFTI x node MTBF / nodes */
  CU_ASSERT_DOUBLE_EQUAL(fl_sim_job_mtbf(sim), expect * 365.25 * 86400.0 / 2000.0, 1e-6);
  fl_sim_destroy(&sim);
}

/* With spares and checkpoints: dead copies come back at the restart, and the makespan is accounted for. */
static void test_replication_with_checkpoints(void)
{
  fl_sim *sim = make_sim("[run]\nseed = 8\n[failures]\nnode_mtbf = 30d\nrepair = 2h\n"
                         "[app]\nnodes = 900\nwork = 48h\n"
                         "[strategy]\nkind = replication\ndegree = 2\ninterval = young\ncheckpoint_cost = 5min\n"
                         "restart_cost = 5min\ndowntime = 1min\n");
  fl_sim *plain = make_sim("[run]\nseed = 8\n[failures]\nnode_mtbf = 30d\nrepair = 2h\n"
                           "[app]\nnodes = 900\nwork = 48h\n"
                           "[strategy]\nkind = checkpoint\ninterval = young\ncheckpoint_cost = 5min\n"
                           "restart_cost = 5min\ndowntime = 1min\n");
  fl_sim_result r, p;
  long more_failures = 0, fewer_interruptions = 0;
  CU_ASSERT(fl_sim_interval(sim) > fl_sim_interval(plain)); /* replication interrupts less: longer interval */
  for (long k = 0; k < 20; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, k, &r, NULL), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(plain, k, &p, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s,
                           172800.0 + r.checkpoint_time_s + r.lost_work_s + r.restart_time_s + r.downtime_total_s +
                               r.wait_nodes_s,
                           1e-6 * r.makespan_s);
    CU_ASSERT(r.interruptions <= r.failures);
    more_failures += r.failures > p.failures;                 /* twice the nodes: more failures */
    fewer_interruptions += r.interruptions < p.interruptions; /* but fewer interruptions */
  }
  CU_ASSERT(more_failures >= 18);
  CU_ASSERT(fewer_interruptions >= 18);
  fl_sim_destroy(&sim);
  fl_sim_destroy(&plain);
}

static void test_not_enough_nodes(void)
{
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[platform]\nnodes = 2000\n[app]\nnodes = 1500\n"
                                              "[strategy]\nkind = replication\ndegree = 2\n",
                                              "r.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "r.ini:4: [app] nodes = '1500'"));
  fl_scenario_destroy(&sc);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[platform]\nnodes = 2000\n[app]\nnodes = 10\n"
                                              "[strategy]\nkind = replication\ndegree = 5\n",
                                              "d.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "d.ini:7: [strategy] degree = '5'"));
  fl_scenario_destroy(&sc);
}

static CU_TestInfo rep_tests[] = {
    {"MNFTI closed form", test_mnfti_closed_form},
    {"MNFTI simulated, b = 1000, within its CI", test_mnfti_simulated},
    {"replication with checkpoints", test_replication_with_checkpoints},
    {"not enough nodes for the copies", test_not_enough_nodes},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"replication", NULL, NULL, NULL, NULL, rep_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
