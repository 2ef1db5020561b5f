/* test_export.c — `faultline export`: the results as typed data. An independent reader (tests/export_check.py:
 * Python's csv, json and sqlite3 modules) checks every column's type, every value against the file, and the SI
 * units of the scenario keys against hand conversions; bad requests are one line, exit 2, no file; an older file
 * exports under the same header. */
#include "cli_util.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SCEN = "[run]\nname = exportme\nseed = 18446744073709551557\nreplicas = 3\nevents = none\n"
                                "sweep = failures.node_mtbf=2y,5y strategy.kind=checkpoint,buddy\n"
                                "[platform]\nnodes = 600\n[failures]\nrepair = never\n"
                                "[app]\nnodes = 512\nwork = 24h\ncheckpoint_size = 2GiB\n"
                                "[strategy]\ncost = constant\ncheckpoint_cost = 10min\nrestart_cost = 10min\n";

static int check(const char *db, const char *csv, const char *json)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "python3 %s %s %s %s", fl_test_src("tests/export_check.py"), fl_test_tmp(db),
           fl_test_tmp(csv), fl_test_tmp(json));
  return system(cmd);
}

static void test_export_typed(void)
{
  fl_cli_write("ex.ini", SCEN);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ex.ini --db ex.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("export ex.sqlite -o ex.csv", 60), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("export ex.sqlite --format json -o ex.json", 60), 0);
  CU_ASSERT_EQUAL(check("ex.sqlite", "ex.csv", "ex.json"), 0);
  /* --all-columns: the columns empty in every row too (error_linf: a simulated bsp job has none) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite --all-columns", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, ",error_linf,"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite", 60), 0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, ",error_linf,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, ",platform.node_power.busy_w,"));
  /* stdout is the same bytes as -o */
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite --where \"strategy = 'buddy'\"", 60), 0);
  {
    int rows = 0; /* 2 MTBFs x 3 replicas (a row spans lines: its overrides field holds newlines) */
    for (const char *p = fl_cli_out; (p = strstr(p, ",\"exportme\",\"/")); p++)
      rows++;
    CU_ASSERT_EQUAL(rows, 6);
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, ",\"buddy\","));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, ",\"checkpoint\","));
  /* the seed above 2^63 comes back unsigned, as the scenario says */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, ",18446744073709551557,"));
}

static void test_export_bad_requests(void)
{
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite --where 'no_such_column > 1' -o bad.csv", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "ex.sqlite: --where 'no_such_column > 1': no such column"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite --format xml", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("export ex.sqlite --format json --format csv", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--format given twice"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("export missing.sqlite -o bad.csv", 60), 2);
  CU_ASSERT_FALSE(fl_cli_exists("bad.csv"));
}

/* A file written before some columns existed exports under the same header, those columns empty. */
static void test_export_older_file(void)
{
  char *now, *old;
  long n;
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("export ex.sqlite -o new.csv", 60), 0);
  {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && cp ex.sqlite old.sqlite && sqlite3 old.sqlite 'ALTER TABLE runs DROP COLUMN tasks_lost; "
             "ALTER TABLE runs DROP COLUMN policy_objective'",
             fl_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  }
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("export old.sqlite -o old.csv", 60), 0);
  now = fl_test_read_file(fl_test_tmp("new.csv"), &n);
  old = fl_test_read_file(fl_test_tmp("old.csv"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(now);
  CU_ASSERT_PTR_NOT_NULL_FATAL(old);
  CU_ASSERT_EQUAL(strcspn(now, "\n"), strcspn(old, "\n"));
  CU_ASSERT_EQUAL(strncmp(now, old, strcspn(now, "\n")), 0);
  free(now);
  free(old);
}

static CU_TestInfo export_tests[] = {
    {"typed columns, values and units, read by Python", test_export_typed},
    {"bad requests: one line, exit 2, no file", test_export_bad_requests},
    {"an older file: the same header", test_export_older_file},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"export", NULL, NULL, NULL, NULL, export_tests}, CU_SUITE_INFO_NULL};

FL_TEST_MAIN(suites)
