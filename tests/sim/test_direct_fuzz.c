/* test_direct_fuzz.c — the direct engine against SimGrid's on scenarios drawn at random (a second suite of
 * test_direct): failure law, MTBF, repair, spares, strategy, interval, costs, downtime, process crashes, group
 * failures, bursts, silent errors, event budget and time limit, each replica run on both engines under
 * FAULTLINE_SIM_ENGINE=check (any difference in a figure, an event or the clock is an error). Half the scenarios take
 * round costs and intervals and a trace of round dates, so that actors wake at one date and the hand-over to SimGrid is
 * exercised too. */
#include "fl_test.h"
#include "scenario.h"
#include "sim.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_FUZZ_SCENARIOS 600
#define FL_FUZZ_REPLICAS 3

static const char *pick(gsl_rng *r, const char *const *v, size_t n)
{
  return v[gsl_rng_uniform_int(r, (unsigned long)n)];
}
#define PICK(r, v) pick(r, v, sizeof v / sizeof v[0])

static void test_random_scenarios(void)
{
  static const char *const laws[] = {"model = exponential\n", "model = weibull\nshape = 0.6\n",
                                     "model = weibull\nshape = 1.5\n", "model = lognormal\nsigma = 1.2\n",
                                     "model = gamma\nshape = 0.8\n"};
  static const char *const mtbfs[] = {"1d", "5d", "20d"};
  static const char *const repairs[] = {"0s", "30min", "6h", "never"};
  static const char *const strategies[] = {"checkpoint", "none", "replication", "two-level", "multilevel", "buddy"};
  static const char *const extras[] = {"",
                                       "process_mtbf = 20d\n",
                                       "group_mtbf = 10d\n",
                                       "burst_ratio = 0.4\nburst_time = 20min\n",
                                       "sdc_mtbf = 30d\n",
                                       "start = steady\n"};
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  long before[3], after[3], ran = 0;
  FILE *f = fopen(fl_test_tmp("round.csv"), "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  for (int k = 1; k <= 40; k++) /* round dates: a failure every 3,000 s on nodes 0..39 */
    fprintf(f, "%d, %d\n", 3000 * k, k % 40);
  fclose(f);
  gsl_rng_set(r, 20261128);
  fl_sim_engine_counts(&before[0], &before[1], &before[2]);
  for (int c = 0; c < FL_FUZZ_SCENARIOS; c++) {
    char text[2048];
    const char *strategy = PICK(r, strategies), *extra = PICK(r, extras);
    int round = c % 2, ranks = 40 + (int)gsl_rng_uniform_int(r, 20);
    fl_scenario *sc = NULL;
    fl_sim *sim = NULL;
    if (strcmp(strategy, "replication") == 0 && strstr(extra, "process_mtbf"))
      extra = ""; /* process crashes are modelled for unreplicated jobs only */
    if (round)
      snprintf(text, sizeof text,
               "[platform]\nnodes = 130\ncabinet = 8\n[failures]\nmodel = trace\ntrace = round.csv\nrepair = %s\n"
               "[app]\nnodes = %d\nwork = 30h\n[strategy]\nkind = %s\ninterval = %s\ncheckpoint_cost = %s\n"
               "restart_cost = %s\ndowntime = %s\n[run]\nmax_time = 20d\n",
               strcmp(PICK(r, repairs), "never") == 0 ? "never" : "1000s", ranks, strategy,
               gsl_rng_uniform(r) < 0.5 ? "1000s" : "3000s", gsl_rng_uniform(r) < 0.5 ? "0s" : "500s",
               gsl_rng_uniform(r) < 0.5 ? "0s" : "1000s", gsl_rng_uniform(r) < 0.5 ? "0s" : "500s");
    else
      snprintf(text, sizeof text,
               "[platform]\nnodes = 130\ncabinet = 8\n[failures]\n%snode_mtbf = %s\nrepair = %s\n%s"
               "[app]\nnodes = %d\nwork = %dh\n[strategy]\nkind = %s\ndowntime = %ds\ncheckpoint_cost = %ds\n"
               "[run]\nmax_events = %d\nmax_time = 60d\n",
               PICK(r, laws), PICK(r, mtbfs), PICK(r, repairs), extra, ranks, 10 + (int)gsl_rng_uniform_int(r, 100),
               strategy, (int)gsl_rng_uniform_int(r, 300), 1 + (int)gsl_rng_uniform_int(r, 600),
               gsl_rng_uniform(r) < 0.1 ? 40 : 100000);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<fuzz>", fl_test_tmpdir(), &sc), FL_OK);
    if (fl_sim_create(sc, &sim) != FL_OK) { /* a combination the strategy refuses: fine, but say which */
      fprintf(stderr, "\n    refused (%s): %s", strategy, fl_err_msg());
      fl_scenario_destroy(&sc);
      continue;
    }
    for (long rep = 0; rep < FL_FUZZ_REPLICAS; rep++) {
      fl_sim_result res;
      fl_evlog log;
      fl_evlog_init(&log, 2);
      if (fl_sim_run_replica(sim, rep, &res, &log) != FL_OK) {
        fprintf(stderr, "\n    scenario %d replica %ld: %s\n%s", c, rep, fl_err_msg(), text);
        CU_FAIL("the engines differ");
      }
      fl_evlog_free(&log);
      ran++;
    }
    fl_sim_destroy(&sim);
    fl_scenario_destroy(&sc);
  }
  fl_sim_engine_counts(&after[0], &after[1], &after[2]);
  fprintf(stderr, "\n    %ld replicas: %ld checked on both engines, %ld handed to SimGrid ", ran, after[0] - before[0],
          after[2] - before[2]);
  CU_ASSERT(ran >= FL_FUZZ_SCENARIOS * FL_FUZZ_REPLICAS * 3 / 4);
  CU_ASSERT_EQUAL(after[0] - before[0] + after[2] - before[2], ran);
  CU_ASSERT(after[2] - before[2] > 0); /* the round half makes ties: the hand-over ran */
  CU_ASSERT(after[0] - before[0] > ran / 2);
  gsl_rng_free(r);
}

static CU_TestInfo tests[] = {
    {"random scenarios: the direct engine gives SimGrid's rows, events and clock", test_random_scenarios},
    CU_TEST_INFO_NULL,
};

static int setup(void)
{
  return setenv("FAULTLINE_SIM_ENGINE", "check", 1);
}

static CU_SuiteInfo suites[] = {
    {"direct engine, fuzzed", setup, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
