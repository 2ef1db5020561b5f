/* test_workload_cli.c — `faultline workload` on the shipped real traces: its schedules equal an independent
 * replay (tests/workload_check.py, Python, from the definitions) job for job under FCFS and EASY; the log's own
 * figures; bad traces are one line naming file, line and field, exit 2. */
#include "cli_util.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fl_check(const char *trace, const char *sched)
{
  char cmd[2048];
  const char *exe = getenv("FAULTLINE");
  snprintf(cmd, sizeof cmd, "python3 %s %s %s %s", fl_test_src("tests/workload_check.py"), exe ? exe : "faultline",
           fl_test_src(trace), sched);
  return system(cmd);
}

static void test_independent_replay(void)
{
  static const char *const traces[] = {"data/workloads/KTH-SP2-1996-2.1-cln.swf.gz",
                                       "data/workloads/NASA-iPSC-1993-3.1-cln.swf.gz"};
  for (int i = 0; i < 2; i++) {
    CU_ASSERT_EQUAL(fl_check(traces[i], "fcfs"), 0);
    CU_ASSERT_EQUAL(fl_check(traces[i], "easy"), 0);
  }
}

static void test_summary(void)
{
  char args[1024];
  snprintf(args, sizeof args, "workload %s", fl_test_src("data/workloads/KTH-SP2-1996-2.1-cln.swf.gz"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 60), 0);
  /* the 27,992 job lines on the header's 100 nodes; the log's utilisation and EASY's, which replays every job
   * with the same run time over nearly the same span */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "27992 jobs on 100 nodes"));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "never ran"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "logged      68.6%"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "easy        68.6%"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_out), 5);
  /* NASA: no wait times in the log, no requested times */
  snprintf(args, sizeof args, "workload %s --scheduler easy",
           fl_test_src("data/workloads/NASA-iPSC-1993-3.1-cln.swf.gz"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "18239 jobs on 128 nodes"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "18239 without a requested time"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "logged          -"));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "fcfs"));
}

static void test_bad_traces(void)
{
  char args[1024];
  fl_cli_write("bad.swf", "; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                          "2 5 0 10 8 -1 -1 8 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload bad.swf", 30), 2);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_cli_err, "bad.swf:3: field 5 (allocated processors) '8': larger than the machine (MaxProcs: 4)"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  /* --nodes smaller than a job */
  fl_cli_write("ok.swf", "1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 8 -1 -1 8 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload ok.swf --nodes 4", 30), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "ok.swf:2: field 5 (allocated processors) '8': 8 nodes, larger than the "
                                            "machine (4 nodes)"));
  /* no header, no --nodes */
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload ok.swf", 30), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no MaxNodes or MaxProcs: give the machine's --nodes"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload ok.swf --nodes 8 --scheduler sjf", 30), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload ok.swf --nodes 8 --jobs j.csv", 30), 2);
  CU_ASSERT_FALSE(fl_cli_exists("j.csv"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("workload ok.swf --nodes 8 --scheduler fcfs --jobs j.csv", 30), 0);
  long n = 0;
  char *csv = fl_test_read_file(fl_test_tmp("j.csv"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
  CU_ASSERT_STRING_EQUAL(csv, "job,submit_s,start_s,end_s,nodes\n1,0,0,10,2\n2,5,10,20,8\n"); /* job 2 waits for job 1's 2 nodes */
  free(csv);
  (void)args;
}

static CU_TestInfo fl_tests[] = {
    {"schedules equal an independent replay on two real traces", test_independent_replay},
    {"the log's figures beside each scheduler's", test_summary},
    {"bad traces and options: one line, exit 2", test_bad_traces},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo fl_suites[] = {
    {"workload", NULL, NULL, NULL, NULL, fl_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(fl_suites)
