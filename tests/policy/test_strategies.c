/* test_strategies.c — conformance of the strategy registry (policy/strategies) and of the simulator engine over
 * every registered strategy: each one either runs there, with failures, to a completed run whose row names it,
 * or is refused with the reason (a strategy for tasks on a rank-parallel job, and the reverse). The real engine's
 * half of the conformance loop is in test_mpi.c (it needs MPI). A new strategy is tested here at once.
 * SimGrid loads one platform per process: every scenario here uses the same 72 generated nodes. */
#include "engine.h"
#include "fl_test.h"
#include "scenario.h"
#include "sim.h"
#include "strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_exists(const char *section_dot_key)
{
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    char name[96];
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    if (strcmp(name, section_dot_key) == 0)
      return 1;
  }
  return 0;
}

static void test_registry(void)
{
  fl_scenario *sc = NULL;
  fl_strategy_run run;
  fl_engine_caps caps = {.name = "test", .shape = FL_SHAPE_RANKS, .levels = ~0u, .max_degree = 3};
  CU_ASSERT(fl_strat_count() >= 7);
  for (int i = 0; i < fl_strat_count(); i++) {
    const fl_strategy_ops *ops = fl_strat_at(i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
    CU_ASSERT(ops->name && ops->summary && ops->setup && ops->keys && ops->shapes);
    CU_ASSERT_PTR_EQUAL(fl_strat_find(ops->name), ops);
    for (int j = 0; j < i; j++)
      CU_ASSERT_STRING_NOT_EQUAL(fl_strat_at(j)->name, ops->name);
    for (const fl_strategy_key *k = ops->keys; k->key; k++) {
      if (!key_exists(k->key))
        fprintf(stderr, "\n    %s reads %s, which the scenario table lacks", ops->name, k->key);
      CU_ASSERT(key_exists(k->key));
      CU_ASSERT_PTR_NOT_NULL(k->use);
    }
  }
  CU_ASSERT_PTR_NULL(fl_strat_at(fl_strat_count()));
  CU_ASSERT_PTR_NULL(fl_strat_find("chekpoint"));
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[strategy]\nkind = chekpoint\n", "s.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_strat_setup(sc, &caps, &run), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "s.ini:2: [strategy] kind = 'chekpoint': unknown strategy"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "two-level"));
  fl_scenario_destroy(&sc);
}

/* The decisions themselves, engine-free. */
static void test_decisions(void)
{
  fl_scenario *sc = NULL;
  fl_strategy_run run;
  fl_engine_caps caps = {.name = "test",
                         .shape = FL_SHAPE_RANKS,
                         .levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE),
                         .max_degree = 3};
  fl_failure_view lost = {.copies_left = 0, .buddy_intact = 0, .buddy_version = 40, .file_version = 30};
  fl_failure_view kept = {.copies_left = 0, .buddy_intact = 1, .buddy_version = 40, .file_version = 30};
  fl_failure_view masked = {.copies_left = 1, .buddy_intact = 1, .buddy_version = -1, .file_version = -1};
  fl_recovery r;

  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[strategy]\nkind = two-level\nfile_every = 3\n", "t.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_strat_setup(sc, &caps, &run), FL_OK);
  for (long k = 1; k <= 6; k++)
    CU_ASSERT_EQUAL(fl_strat_next_level(&run), k % 3 == 0 ? FL_LEVEL_FILE : FL_LEVEL_BUDDY);
  r = fl_strat_on_failure(&run, &kept);
  CU_ASSERT(r.action == FL_ACT_ROLLBACK && r.level == FL_LEVEL_BUDDY && r.version == 40);
  r = fl_strat_on_failure(&run, &lost);
  CU_ASSERT(r.action == FL_ACT_ROLLBACK && r.level == FL_LEVEL_FILE && r.version == 30);
  lost.file_version = -1;
  CU_ASSERT_EQUAL(fl_strat_on_failure(&run, &lost).action, FL_ACT_RESTART);
  lost.file_version = 30;
  /* Daly re-evaluated with a measured cost: tau follows delta */
  CU_ASSERT_EQUAL(fl_strat_set_mtbf(sc, &run, 3600.0), FL_OK);
  fl_strat_observe(&run, FL_LEVEL_BUDDY, 2.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_strat_interval(&run),
                         sqrt(2 * 2.0 * 3600.0) * (1 + sqrt(2.0 / 7200) / 3 + 2.0 / 7200 / 9) - 2.0, 1e-9);
  fl_scenario_destroy(&sc);

  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[strategy]\nkind = buddy\n", "b.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_strat_setup(sc, &caps, &run), FL_OK);
  CU_ASSERT_EQUAL(fl_strat_on_failure(&run, &lost).action, FL_ACT_RESTART); /* no file level of its own */
  fl_scenario_destroy(&sc);

  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[strategy]\nkind = replication\n", "r.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_strat_setup(sc, &caps, &run), FL_OK);
  CU_ASSERT_EQUAL(run.degree, 2);
  CU_ASSERT_EQUAL(fl_strat_on_failure(&run, &masked).action, FL_ACT_CONTINUE);
  CU_ASSERT_EQUAL(fl_strat_on_failure(&run, &kept).action, FL_ACT_ROLLBACK); /* every copy dead: its files */
  caps.max_degree = 1;
  caps.why_no_replicas = "not here";
  CU_ASSERT_EQUAL(fl_strat_setup(sc, &caps, &run), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "cannot run 2 copies of a rank, which 'replication' needs: not here"));
  fl_scenario_destroy(&sc);

  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[strategy]\nkind = none\n", "n.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_strat_setup(sc, &caps, &run), FL_OK);
  CU_ASSERT_EQUAL(run.levels, 0u);
  CU_ASSERT(isinf(fl_strat_interval(&run)));
  CU_ASSERT_EQUAL(fl_strat_on_failure(&run, &kept).action, FL_ACT_RESTART);
  fl_scenario_destroy(&sc);
}

#define PLATFORM "[platform]\nnodes = 72\n"

static const char *const BSP = PLATFORM "[run]\nseed = 5\n[failures]\nmodel = exponential\nnode_mtbf = 30h\n"
                                        "[app]\nnodes = 16\nwork = 10h\n[strategy]\nkind = %s\ninterval = 1h\n"
                                        "checkpoint_cost = 1min\nrestart_cost = 1min\nfile_cost = 3min\n";
static const char *const TASKS = PLATFORM "[run]\nseed = 5\n[failures]\nmodel = exponential\nnode_mtbf = 20s\n"
                                          "repair = 20s\n[app]\nkind = gridworld\ngrid = 6x6\niterations = 40\n"
                                          "[strategy]\nkind = %s\n[policy]\nerror_budget = 50\n";

/* Every strategy × every application shape of the simulator: runs with failures, or refused naming why. */
static void test_sim_engine(void)
{
  for (int i = 0; i < fl_strat_count(); i++) {
    const fl_strategy_ops *ops = fl_strat_at(i);
    for (int shape = FL_SHAPE_RANKS; shape <= FL_SHAPE_TASKS; shape <<= 1) {
      char text[1024];
      fl_scenario *sc = NULL;
      fl_sim *sim = NULL;
      fl_err rc;
      long failures = 0;
      snprintf(text, sizeof text, shape == FL_SHAPE_RANKS ? BSP : TASKS, ops->name);
      CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "conf.ini", NULL, &sc), FL_OK);
      rc = fl_sim_create(sc, &sim);
      if (!(ops->shapes & (unsigned)shape)) {
        CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "cannot drive app"));
        fl_scenario_destroy(&sc);
        continue;
      }
      if (rc != FL_OK)
        fprintf(stderr, "\n    %s (%s): %s", ops->name, fl_shape_name((fl_shape)shape), fl_err_msg());
      CU_ASSERT_EQUAL_FATAL(rc, FL_OK);
      for (long rep = 0; rep < 3; rep++) {
        fl_sim_result res;
        fl_db_run row;
        CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, rep, &res, NULL), FL_OK);
        CU_ASSERT_STRING_EQUAL(res.status, "completed");
        failures += res.failures;
        fl_sim_fill_row(sim, sc, rep, &res, &row);
        CU_ASSERT_STRING_EQUAL(row.strategy, ops->name);
        if (shape == FL_SHAPE_RANKS) {
          CU_ASSERT(res.makespan_s >= 36000.0);
        } else {
          CU_ASSERT(isfinite(res.error_linf) && res.iterations > 0);
          /* the answer: exact when every failed task was re-executed; else what the policy accepted, recorded */
          if (strcmp(ops->name, "replication") == 0 && res.tasks_stale == 0)
            CU_ASSERT_EQUAL(res.error_linf, 0.0);
          if (strcmp(ops->name, "hybrid") == 0) {
            CU_ASSERT_STRING_EQUAL(row.policy, "greedy");
            CU_ASSERT_DOUBLE_EQUAL(row.error_budget, 50.0, 0.0);
            CU_ASSERT_PTR_NOT_NULL(res.policy_solver);
          }
        }
      }
      CU_ASSERT(failures > 0); /* the strategy met failures */
      fl_sim_destroy(&sim);
      fl_scenario_destroy(&sc);
    }
  }
}

/* The real engine's capabilities as the registry sees them: which strategies faultline-mpi runs, which it refuses. */
static void test_real_engine_caps(void)
{
  for (int i = 0; i < fl_strat_count(); i++) {
    const fl_strategy_ops *ops = fl_strat_at(i);
    char text[256];
    fl_scenario *sc = NULL;
    fl_engine_caps caps;
    fl_strategy_run run;
    fl_err rc;
    snprintf(text, sizeof text, "[app]\nkind = cg\ngrid = 64x64\n[strategy]\nkind = %s\n", ops->name);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "real.ini", NULL, &sc), FL_OK);
    rc = fl_exec_setup(sc, 4, &caps, &run);
    if (!(ops->shapes & FL_SHAPE_RANKS)) {
      CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
      CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "real"));
    } else if (strcmp(ops->name, "multilevel") == 0) {
      /* its default levels start with the node-local disk, which the real engine does not write */
      CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
      CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "cannot write local checkpoints"));
    } else {
      CU_ASSERT_EQUAL(rc, FL_OK);
    }
    fl_scenario_destroy(&sc);
    /* the grid world: by rows, or as tasks under a strategy that drives tasks only */
    snprintf(text, sizeof text, "[app]\nkind = gridworld\ngrid = 16x16\n[strategy]\nkind = %s\n", ops->name);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "real.ini", NULL, &sc), FL_OK);
    rc = fl_exec_setup(sc, 4, &caps, &run);
    if (strcmp(ops->name, "multilevel") == 0) {
      CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
    } else {
      CU_ASSERT_EQUAL(rc, FL_OK);
      CU_ASSERT_EQUAL(caps.shape, (ops->shapes & FL_SHAPE_RANKS) ? FL_SHAPE_RANKS : FL_SHAPE_TASKS);
    }
    fl_scenario_destroy(&sc);
  }
  /* a run's [app] key the kind does not read, and an interval rule the engine cannot honour: refused, named */
  {
    static const struct {
      const char *text, *want;
    } bad[] = {
        {"[app]\nkind = cg\ngrid = 64x64\nwork = 2h\n", "[app] work = '2h': app.kind = cg does not read this key "
                                                        "(app.kind = bsp does)"},
        {"[app]\nkind = gridworld\ngraph = x.dot\n", "app.kind = workflow reads this key; this scenario runs "
                                                     "app.kind = gridworld"},
        {"[app]\nkind = cg\n[strategy]\nkind = checkpoint\ninterval = hazard\n[failures]\nnode_mtbf = 1h\n[mpi]\n"
         "time_scale = 1\n",
         "the real engine cannot honour hazard, which strategy 'checkpoint' would checkpoint by: it needs the job's "
         "failure hazard"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      fl_scenario *sc = NULL;
      fl_engine_caps caps;
      fl_strategy_run run;
      CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(bad[i].text, "real.ini", NULL, &sc), FL_OK);
      CU_ASSERT_EQUAL(fl_exec_setup(sc, 4, &caps, &run), FL_ERR_INPUT);
      if (!strstr(fl_err_msg(), bad[i].want))
        fprintf(stderr, "\n    %s", fl_err_msg());
      CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i].want));
      fl_scenario_destroy(&sc);
    }
  }
}

/* The docs list every registered strategy: architecture.md's table, scenarios.md's strategy.kind. */
static void test_docs(void)
{
  long n = 0;
  char *arch = fl_test_read_file(fl_test_src("docs/architecture.md"), &n);
  char *keys = fl_test_read_file(fl_test_src("docs/scenarios.md"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(arch);
  CU_ASSERT_PTR_NOT_NULL_FATAL(keys);
  for (int i = 0; i < fl_strat_count(); i++) {
    char cell[64];
    snprintf(cell, sizeof cell, "| `%s` |", fl_strat_at(i)->name);
    if (!strstr(arch, cell) && !strstr(arch, cell + 2))
      fprintf(stderr, "\n    docs/architecture.md lacks a row for %s", fl_strat_at(i)->name);
    CU_ASSERT(strstr(arch, cell) || strstr(arch, cell + 2));
    snprintf(cell, sizeof cell, "`%s`", fl_strat_at(i)->name);
    CU_ASSERT_PTR_NOT_NULL(strstr(keys, cell));
  }
  free(arch);
  free(keys);
}

static CU_TestInfo strategy_tests[] = {
    {"the docs name every strategy", test_docs},
    {"registry: names, keys, unknown names", test_registry},
    {"decisions: levels, failures, intervals", test_decisions},
    {"every strategy in the simulator", test_sim_engine},
    {"the real engine runs or refuses each", test_real_engine_caps},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"strategies", NULL, NULL, NULL, NULL, strategy_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  return fl_test_run(suites);
}
