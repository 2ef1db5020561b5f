/* test_direct.c — the direct engine (sim/replica.c) against SimGrid's: every replica of a matrix of bsp and grid-world
 * scenarios (failure laws, repairs, spares, every strategy, process crashes, group failures, bursts, silent errors,
 * the hazard interval, the event budget, failures placed by work) is run on both under FAULTLINE_SIM_ENGINE=check,
 * which fails on any difference in a figure, an event or the clock SimGrid's engine is left at. A replica the
 * direct engine cannot order (two actors waking at one date: a trace of round dates and round costs) is handed to
 * SimGrid and gives SimGrid's row. A platform whose profiles SimGrid plays runs on SimGrid (through the command,
 * since SimGrid loads one platform per process). */
#include "cli_util.h"
#include "fl_test.h"
#include "scenario.h"
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLATFORM "[platform]\nnodes = 140\n"

static fl_sim *make_sim(const char *text)
{
  char full[4096];
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  snprintf(full, sizeof full, PLATFORM "%s", text);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(full, "<test>", fl_test_tmpdir(), &sc), FL_OK);
  if (fl_sim_create(sc, &sim) != FL_OK)
    fprintf(stderr, "\n    fl_sim_create: %s\n%s\n", fl_err_msg(), full);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  fl_scenario_destroy(&sc);
  return sim;
}

/* Run `replicas` replicas of `text` with events and phases logged; 1 when every replica ran. */
static int run_all(const char *text, long replicas)
{
  fl_sim *sim = make_sim(text);
  fl_evlog log;
  int ok = 1;
  fl_evlog_init(&log, 2);
  for (long r = 0; r < replicas && ok; r++) {
    fl_sim_result res;
    if (fl_sim_run_replica(sim, r, &res, &log) != FL_OK) {
      fprintf(stderr, "\n    replica %ld: %s\n%s\n", r, fl_err_msg(), text);
      ok = 0;
    }
  }
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);
  return ok;
}

static void test_matrix(void)
{
  static const char *const laws[] = {
      "model = weibull\nshape = 0.7\nnode_mtbf = 20d\n",
      "model = exponential\nnode_mtbf = 5d\n",
      "model = lognormal\nsigma = 1.5\nnode_mtbf = 10d\n",
  };
  static const char *const repairs[] = {"0s", "2h", "never"};
  static const char *const strategies[] = {
      "kind = checkpoint\n",
      "kind = none\n",
      "kind = replication\n",
      "kind = two-level\nfile_cost = 8min\n",
      "kind = multilevel\n",
      "kind = buddy\n",
      "kind = multilevel\nflush = async\n",
  };
  long before[3], after[3], n = 0;
  fl_sim_engine_counts(&before[0], &before[1], &before[2]);
  for (size_t l = 0; l < sizeof laws / sizeof *laws; l++)
    for (size_t r = 0; r < sizeof repairs / sizeof *repairs; r++)
      for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[failures]\n%srepair = %s\n[app]\nnodes = 64\nwork = 5d\n[strategy]\n%sdowntime = 1min\n", laws[l],
                 repairs[r], strategies[s]);
        CU_ASSERT(run_all(text, 3));
        n += 3;
      }
  fl_sim_engine_counts(&after[0], &after[1], &after[2]);
  /* every replica ran on the direct engine and matched SimGrid's: none was handed over, none ran on SimGrid alone */
  CU_ASSERT_EQUAL(after[0] - before[0], n);
  CU_ASSERT_EQUAL(after[1] - before[1], 0);
  CU_ASSERT_EQUAL(after[2] - before[2], 0);
}

static void test_failure_sources(void)
{
  static const char *const cases[] = {
      /* process crashes: a third actor; with no downtime, restart or repair time, failures and crashes at once */
      "[failures]\nnode_mtbf = 10d\nprocess_mtbf = 30d\n[app]\nnodes = 64\nwork = 5d\n",
      "[failures]\nnode_mtbf = 10d\nprocess_mtbf = 30d\nrepair = 0s\n[app]\nnodes = 64\nwork = 5d\n[strategy]\n"
      "downtime = 0s\nrestart_cost = 0s\n",
      /* group failures: many nodes at one date, the first interrupting the job */
      "[platform]\ncabinet = 8\n[failures]\nnode_mtbf = 10d\ngroup_mtbf = 20d\nrepair = 0s\n[app]\nnodes = 64\n"
      "work = 5d\n",
      "[failures]\nnode_mtbf = 10d\nburst_ratio = 0.5\nburst_time = 10min\n[app]\nnodes = 64\nwork = 5d\n",
      "[failures]\nnode_mtbf = 10d\nsdc_mtbf = 50d\n[app]\nnodes = 64\nwork = 5d\n[strategy]\nkind = checkpoint\n",
      "[failures]\nmodel = weibull\nnode_mtbf = 10d\nstart = fresh\n[app]\nnodes = 64\nwork = 5d\n[strategy]\n"
      "interval = hazard\n",
      "[failures]\nnode_mtbf = 10d\nstart = steady\nrepair = 1d\n[app]\nnodes = 64\nwork = 5d\n",
      "[run]\nmax_events = 50\n[failures]\nnode_mtbf = 2d\n[app]\nnodes = 64\nwork = 5d\n",
      "[run]\nmax_time = 3d\n[failures]\nnode_mtbf = 2d\n[app]\nnodes = 64\nwork = 5d\n",
      "[failures]\nnode_mtbf = 10d\n[app]\nnodes = 130\nwork = 5d\n", /* few spares: waits for repairs */
      "[failures]\nnode_mtbf = 20d\n[app]\nkind = gridworld\ngrid = 10x10\niterations = 200\n[strategy]\n"
      "kind = hybrid\n",
  };
  long before[3], after[3], n = 0;
  fl_sim_engine_counts(&before[0], &before[1], &before[2]);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    CU_ASSERT(run_all(cases[c], 4));
    n += 4;
  }
  fl_sim_engine_counts(&after[0], &after[1], &after[2]);
  CU_ASSERT_EQUAL(after[0] - before[0] + after[2] - before[2], n);
  CU_ASSERT_EQUAL(after[1] - before[1], 0);
}

/* failures.trace_clock = work: the coordinator fails nodes itself (a SimGrid call between its waits). */
static void test_by_work(void)
{
  FILE *f = fopen(fl_test_tmp("by-work.csv"), "w");
  fputs("250, 3\n300, 4\n300, 5\n999.5, 6\n", f);
  fclose(f);
  CU_ASSERT(run_all("[failures]\nmodel = trace\ntrace = by-work.csv\ntrace_clock = work\nrepair = never\n"
                    "[app]\nnodes = 60\nwork = 1000s\n[strategy]\ninterval = 100s\ncheckpoint_cost = 10s\n"
                    "restart_cost = 20s\ndowntime = 5s\n",
                    2));
}

/* Round dates and round costs: a failure at the very date a segment ends. SimGrid's engine orders the two actors
 * itself; the direct engine hands such a replica over, and the row is SimGrid's. */
static void test_tie_handed_over(void)
{
  const char *text = "[failures]\nmodel = trace\ntrace = round.csv\nrepair = 0s\n[app]\nnodes = 60\nwork = 10000s\n"
                     "[strategy]\ninterval = 1000s\ncheckpoint_cost = 0s\nrestart_cost = 0s\ndowntime = 0s\n";
  fl_sim_result d, g;
  long before[3], after[3];
  fl_sim *sim;
  FILE *f = fopen(fl_test_tmp("round.csv"), "w");
  fputs("2000, 3\n5000, 7\n", f);
  fclose(f);
  unsetenv("FAULTLINE_SIM_ENGINE");
  fl_sim_engine_counts(&before[0], &before[1], &before[2]);
  sim = make_sim(text);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &d, NULL), FL_OK);
  fl_sim_destroy(&sim);
  fl_sim_engine_counts(&after[0], &after[1], &after[2]);
  CU_ASSERT_EQUAL(after[2] - before[2], 1); /* handed over */
  CU_ASSERT_EQUAL(after[0] - before[0], 0);
  setenv("FAULTLINE_SIM_ENGINE", "simgrid", 1);
  sim = make_sim(text);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &g, NULL), FL_OK);
  fl_sim_destroy(&sim);
  setenv("FAULTLINE_SIM_ENGINE", "check", 1);
  CU_ASSERT_STRING_EQUAL(d.status, g.status);
  CU_ASSERT_EQUAL(memcmp(&d.makespan_s, &g.makespan_s, sizeof d.makespan_s), 0);
  CU_ASSERT_EQUAL(d.failures, g.failures);
  CU_ASSERT_EQUAL(d.interruptions, g.interruptions);
  CU_ASSERT_EQUAL(memcmp(&d.lost_work_s, &g.lost_work_s, sizeof d.lost_work_s), 0);
  /* the failure at 2000 s strikes as the second segment ends, before its (free) checkpoint: that segment is lost */
  CU_ASSERT_EQUAL(d.interruptions, 2);
}

/* The command: the engines' counts on stderr under check; a bad value refused; a platform with a profile SimGrid
 * plays (a grid world keeps its hosts' speed profiles) runs on SimGrid. */
static void test_command(void)
{
  fl_cli_write("d.ini", "[platform]\nnodes = 40\n[failures]\nnode_mtbf = 2d\n[app]\nnodes = 32\nwork = 2d\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate d.ini --replicas 3 --quiet --db d.sqlite"), 0);
  setenv("FAULTLINE_SIM_ENGINE", "fast", 1);
  CU_ASSERT_EQUAL(fl_cli_run("simulate d.ini --replicas 3 --quiet --db e.sqlite"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "FAULTLINE_SIM_ENGINE = 'fast'"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  setenv("FAULTLINE_SIM_ENGINE", "check", 1);
  CU_ASSERT_EQUAL(fl_cli_run("simulate d.ini --replicas 3 --quiet --db f.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_cli_err, "3 replicas checked on the direct engine against SimGrid, 0 run on SimGrid"));
  /* the rows of the direct engine (d.sqlite) are those of the check (f.sqlite), to the last bit of the sums */
  CU_ASSERT_EQUAL(fl_cli_query("d.sqlite", "SELECT SUM(makespan_s) FROM runs"),
                  fl_cli_query("f.sqlite", "SELECT SUM(makespan_s) FROM runs"));
  CU_ASSERT_EQUAL(fl_cli_query("d.sqlite", "SELECT SUM(energy_j) + SUM(lost_work_s) FROM runs"),
                  fl_cli_query("f.sqlite", "SELECT SUM(energy_j) + SUM(lost_work_s) FROM runs"));
  CU_ASSERT_EQUAL(fl_cli_query("d.sqlite", "SELECT COUNT(*) FROM events"),
                  fl_cli_query("f.sqlite", "SELECT COUNT(*) FROM events"));
  CU_ASSERT(fl_cli_query("d.sqlite", "SELECT SUM(failures) FROM runs") > 0);
  fl_cli_write("speed.txt", "0 1.0\n100 0.5\nLOOPAFTER 100\n");
  fl_cli_write("p.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                        "<platform version=\"4.1\"><zone id=\"site\" routing=\"Full\">\n"
                        "<cluster id=\"c\" prefix=\"cn-\" suffix=\"\" radical=\"0-11\" speed=\"1Gf\" bw=\"1GBps\" "
                        "lat=\"1us\"/>\n<zone id=\"frontend\" routing=\"None\">\n"
                        "<host id=\"controller\" speed=\"1Gf\" speed_file=\"speed.txt\"/>\n"
                        "</zone></zone></platform>\n");
  fl_cli_write("g.ini", "[platform]\nfile = p.xml\n[failures]\nnode_mtbf = 1h\nrepair = 10min\n[app]\nkind = "
                        "gridworld\ngrid = 3x3\niterations = 20\n[strategy]\nkind = replication\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate g.ini --replicas 2 --quiet --db g.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_cli_err, "0 replicas checked on the direct engine against SimGrid, 2 run on SimGrid"));
  unsetenv("FAULTLINE_SIM_ENGINE");
}

static CU_TestInfo tests[] = {
    {"matrix of laws, repairs and strategies: the engines agree bit for bit", test_matrix},
    {"crashes, groups, bursts, silent errors, hazard, budgets, grid world: the engines agree", test_failure_sources},
    {"failures placed by work: the engines agree", test_by_work},
    {"a tie is handed to SimGrid: SimGrid's row", test_tie_handed_over},
    {"the command: counts, a bad value refused, SimGrid for a played profile", test_command},
    CU_TEST_INFO_NULL,
};

static int setup(void)
{
  return setenv("FAULTLINE_SIM_ENGINE", "check", 1);
}

static CU_SuiteInfo suites[] = {
    {"direct engine", setup, NULL, NULL, NULL, tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
