/* test_app.c — the application registry (apps/app.h), entry by entry: every kind is described, found, refused by
 * the engine that does not run it with a message naming the kinds it does, sized against the platform through its
 * own key, and its example runs in every engine that runs it (the simulator: a replica in a child process, since a
 * process holds one SimGrid platform; the real engine: its strategy set up against the real engine's capabilities;
 * tests/exec/test_mpi.c runs them on MPI ranks). Adding an app kind needs no change here. */
#include "app.h"
#include "engine.h"
#include "fl_test.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The app's example, with the blank-separated overrides `sets` (as --set gives them). */
static fl_scenario *example(const fl_app *app, const char *sets)
{
  char buf[1024], *save = NULL;
  fl_scenario *sc = NULL;
  if (fl_scenario_from_text(app->example, app->name, fl_test_tmpdir(), &sc) != FL_OK) {
    fprintf(stderr, "\n    %s's example: %s", app->name, fl_err_msg());
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", sets ? sets : "");
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
    if (fl_scenario_set(sc, t) != FL_OK) {
      fprintf(stderr, "\n    %s's example with %s: %s", app->name, t, fl_err_msg());
      fl_scenario_destroy(&sc);
    }
  return sc;
}

static void test_described(void)
{
  CU_ASSERT(fl_app_count() >= 5);
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    fl_scenario *sc = NULL;
    char key[64];
    CU_ASSERT_PTR_NOT_NULL_FATAL(app->name);
    CU_ASSERT(strlen(app->summary) > 20);
    CU_ASSERT(app->unit && app->unit[0]);
    CU_ASSERT(app->flags & (FL_APP_SIM | FL_APP_REAL)); /* some engine runs it */
    CU_ASSERT_PTR_EQUAL(fl_app_find(app->name), app);
    for (int j = 0; j < i; j++)
      CU_ASSERT_STRING_NOT_EQUAL(fl_app_at(j)->name, app->name);
    /* its size key is a scenario key: a value it cannot take is refused naming it */
    snprintf(key, sizeof key, "app.%s=-3", app->size_key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc = example(app, NULL));
    CU_ASSERT_STRING_EQUAL(sc->app, app->name);
    CU_ASSERT_EQUAL(fl_scenario_set(sc, key), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), key));
    fl_scenario_destroy(&sc);
  }
  CU_ASSERT_PTR_NULL(fl_app_find("bsp2"));
  CU_ASSERT_PTR_NULL(fl_app_at(fl_app_count()));
}

/* an unknown kind names every kind; a kind on the engine that does not run it names those it does */
static void test_refusals(void)
{
  const fl_app *got = NULL;
  char all[256], names[256], want[512];
  fl_scenario *sc = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[app]\nkind = bps\n", "typo.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_app_get(sc, FL_APP_SIM, &got), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(got);
  snprintf(want, sizeof want, "typo.ini:2: [app] kind = 'bps': unknown application 'bps' (known: %s)",
           fl_app_names(FL_APP_SIM | FL_APP_REAL, all, sizeof all));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), want));
  fl_scenario_destroy(&sc);
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    CU_ASSERT_PTR_NOT_NULL(strstr(all, app->name));
    for (unsigned engine = FL_APP_SIM; engine <= FL_APP_REAL; engine <<= 1) {
      CU_ASSERT_PTR_NOT_NULL_FATAL(sc = example(app, NULL));
      if (app->flags & engine) {
        CU_ASSERT_EQUAL(fl_app_get(sc, engine, &got), FL_OK);
        CU_ASSERT_PTR_EQUAL(got, app);
      } else {
        CU_ASSERT_EQUAL(fl_app_get(sc, engine, &got), FL_ERR_INPUT);
        fl_app_names(engine, names, sizeof names);
        CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "[app] kind"));
        CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), names));
      }
      fl_scenario_destroy(&sc);
    }
  }
}

/* The run's [app] keys against the kind: every key a kind lists is one of the table's [app] keys; every example
 * gives only keys its kind reads; a key the kind does not read is refused naming who reads it, unless app.kind was
 * chosen after it (agree runs a cg scenario as a bsp job): then it is passed over. */
static void test_core_keys(void)
{
  fl_scenario *sc = NULL;
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    char list[256], *save = NULL;
    snprintf(list, sizeof list, "%s", app->core_keys ? app->core_keys : "");
    for (char *k = strtok_r(list, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
      int found = 0;
      for (int j = 0; j < fl_scenario_key_count(); j++)
        found |= strcmp(fl_scenario_key_at(j)->section, "app") == 0 && strcmp(fl_scenario_key_at(j)->key, k) == 0;
      if (!found)
        fprintf(stderr, "\n    %s lists app.%s, which is no key", app->name, k);
      CU_ASSERT(found);
      CU_ASSERT(fl_app_is_core_key(k));
    }
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc = example(app, NULL));
    CU_ASSERT_EQUAL(fl_app_check_keys(sc), FL_OK);
    fl_scenario_destroy(&sc);
  }
  CU_ASSERT_FALSE(fl_app_is_core_key("kind"));
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[app]\nkind = bsp\nwork = 2h\n", "job.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_app_check_keys(sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "app.kind=cg"), FL_OK); /* chosen after the file's app.work: passed over */
  CU_ASSERT_EQUAL(fl_app_check_keys(sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "app.work=3h"), FL_OK); /* given for cg: refused */
  CU_ASSERT_EQUAL(fl_app_check_keys(sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_err_msg(), "--set app.work=3h: app.kind = cg does not read this key (app.kind = bsp"));
  fl_scenario_destroy(&sc);
  /* another kind's own key is refused whatever chose the kind */
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[app]\nkind = workflow\ngraph = x.dot\n", "wf.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "app.kind=bsp"), FL_OK);
  CU_ASSERT_EQUAL(fl_app_check_keys(sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "app.kind = workflow reads this key"));
  fl_scenario_destroy(&sc);
}

/* the job against a platform too small for it: the message names the key that sized the job */
static void test_sized(void)
{
  fl_scenario *sc = NULL;
  char want[64];
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    if (!(app->flags & FL_APP_SIM))
      continue;
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc = example(app, NULL));
    CU_ASSERT_EQUAL(fl_app_check(sc, 1), FL_OK);
    CU_ASSERT(fl_app_job_slots(sc, 1) >= 0);
    fl_scenario_destroy(&sc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sc = example(app, "platform.nodes=1 app.nodes=4"));
    CU_ASSERT_EQUAL(fl_app_check(sc, 1), FL_ERR_INPUT);
    snprintf(want, sizeof want, "app.%s=", app->size_key); /* the override, or the file's line */
    if (!strstr(fl_err_msg(), want))
      snprintf(want, sizeof want, "[app] %s = ", app->size_key);
    if (!strstr(fl_err_msg(), want))
      fprintf(stderr, "\n    %s: %s", app->name, fl_err_msg());
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), want));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "only 1 hosts"));
    fl_scenario_destroy(&sc);
  }
  /* bsp counts every copy of a rank */
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[platform]\nnodes = 8\n[app]\nnodes = 6\n", "few.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_app_job_slots(sc, 2), 12);
  CU_ASSERT_EQUAL(fl_app_check(sc, 1), FL_OK);
  CU_ASSERT_EQUAL(fl_app_check(sc, 2), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "few.ini:4: [app] nodes = '6'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "6 ranks x 2 copies but the platform has only 8 hosts"));
  fl_scenario_destroy(&sc);
}

/* A replica of the app's example in the simulator, in a child (a process loads one SimGrid platform): its row
 * names the app and the run ends. Exit 0 when it did. */
static int sim_child(const fl_app *app)
{
  fl_scenario *sc = example(app, "run.seed=3");
  fl_sim *sim = NULL;
  fl_sim_result res;
  fl_db_run row;
  if (!sc || fl_sim_create(sc, &sim) != FL_OK || fl_sim_run_replica(sim, 0, &res, NULL) != FL_OK) {
    fprintf(stderr, "\n    %s: %s", app->name, fl_err_msg());
    return 1;
  }
  fl_sim_fill_row(sim, sc, 0, &res, &row);
  if (strcmp(row.app, app->name) != 0 || strcmp(res.status, "completed") != 0 || !(res.makespan_s > 0) ||
      fl_sim_ranks(sim) < 1 || strcmp(fl_sim_unit(sim), app->unit) != 0) {
    fprintf(stderr, "\n    %s: row app %s, status %s, makespan %g, %ld %s", app->name, row.app, res.status,
            res.makespan_s, fl_sim_ranks(sim), fl_sim_unit(sim));
    return 1;
  }
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  return 0;
}

static void test_examples_run(void)
{
  int ran = 0;
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    if (app->flags & FL_APP_SIM) {
      int status = 0;
      pid_t pid;
      fflush(NULL);
      pid = fork();
      CU_ASSERT_FATAL(pid >= 0);
      if (pid == 0)
        _exit(sim_child(app));
      CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fprintf(stderr, "\n    %s's example did not run in the simulator (status %d)", app->name, status);
      CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      ran++;
    }
    if (app->flags & FL_APP_REAL) {
      fl_scenario *sc = example(app, NULL);
      fl_engine_caps caps;
      fl_strategy_run strat;
      CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
      fl_err rc = fl_exec_setup(sc, 4, &caps, &strat);
      if (rc != FL_OK)
        fprintf(stderr, "\n    %s: %s", app->name, fl_err_msg());
      CU_ASSERT_EQUAL(rc, FL_OK);
      CU_ASSERT_EQUAL(caps.task_recovery, (app->flags & FL_APP_REAL_TASKS) != 0);
      fl_scenario_destroy(&sc);
      ran++;
    }
  }
  CU_ASSERT(ran > fl_app_count()); /* the grid world in both */
}

/* The docs list every kind: architecture.md's table and scenarios.md's app.kind row. */
static void test_documented(void)
{
  long n = 0;
  char *arch = fl_test_read_file(fl_test_src("docs/architecture.md"), &n);
  char *keys = fl_test_read_file(fl_test_src("docs/scenarios.md"), &n);
  const char *row;
  CU_ASSERT_PTR_NOT_NULL_FATAL(arch);
  CU_ASSERT_PTR_NOT_NULL_FATAL(keys);
  row = strstr(keys, "| `app.kind` |");
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  for (int i = 0; i < fl_app_count(); i++) {
    char want[64];
    const char *end = strchr(row, '\n');
    snprintf(want, sizeof want, "\n| `%s` |", fl_app_at(i)->name);
    if (!strstr(arch, want))
      fprintf(stderr, "\n    docs/architecture.md lacks a row for %s", fl_app_at(i)->name);
    CU_ASSERT_PTR_NOT_NULL(strstr(arch, want));
    snprintf(want, sizeof want, "`%s`", fl_app_at(i)->name);
    CU_ASSERT(strstr(row, want) && strstr(row, want) < end);
  }
  free(arch);
  free(keys);
}

/* Is `name` one of the comma-separated list's? */
static int listed(const char *list, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

/* `faultline help simulate` says which apps each strategy runs for, from the strategies' set-up against each app:
 * the built-in kinds in or out as their capabilities have it (a kind added to the simulator may join a list) */
static void test_strategy_apps(void)
{
  static const struct {
    const char *strategy, *in, *out;
  } want[] = {
      {"substitution", "gridworld workflow", "bsp workload"}, {"checkpoint", "bsp workload", "gridworld workflow"},
      {"replication", "bsp gridworld workflow workload", ""}, {"two-level", "bsp workload", "gridworld workflow"},
      {"multilevel", "bsp workload", "gridworld workflow"},
  };
  char buf[256];
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char names[64], *save = NULL;
    fl_sim_strategy_apps(want[i].strategy, buf, sizeof buf);
    snprintf(names, sizeof names, "%s", want[i].in);
    for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save))
      CU_ASSERT(listed(buf, t));
    snprintf(names, sizeof names, "%s", want[i].out);
    for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save))
      CU_ASSERT_FALSE(listed(buf, t));
  }
  CU_ASSERT_STRING_EQUAL(fl_sim_strategy_apps("no-such-strategy", buf, sizeof buf), "");
}

static CU_TestInfo app_tests[] = {
    {"the run's [app] keys against the kind", test_core_keys},
    {"every kind described and found", test_described},
    {"refusals name the kinds an engine runs", test_refusals},
    {"the job against the platform, by the app's own key", test_sized},
    {"every example runs in every engine that runs it", test_examples_run},
    {"the docs list every kind", test_documented},
    {"which apps each strategy runs for", test_strategy_apps},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"app registry", NULL, NULL, NULL, NULL, app_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
