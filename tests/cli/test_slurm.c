/* test_slurm.c — `faultline sweep --launcher slurm` on a real single-host Slurm (Debian's slurm-wlm and munge,
 * started by scripts/slurm-local.sh in the test's temporary directory and stopped after): the job array's shards,
 * merged, equal the local sweep's rows, row for row (same row keys, identical makespans). Slow; skipped (77) when
 * Slurm is not installed or this is not root (FL_TEST_ALL=1 scripts/test.sh installs it). */
#include "cli_util.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char slurm_dir[1024];

static int slurm(const char *cmd)
{
  char line[4096];
  int st;
  snprintf(line, sizeof line, "'%s' %s '%s' >'%s/slurm-local.txt' 2>&1", fl_test_src("scripts/slurm-local.sh"), cmd,
           slurm_dir, fl_test_tmpdir());
  st = system(line);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_sweep_on_slurm(void)
{
  char args[2048], conf[1200], *rows;
  long n = 0;
  snprintf(conf, sizeof conf, "%s/slurm.conf", slurm_dir);
  setenv("SLURM_CONF", conf, 1);
  fl_cli_write("s.ini", "[run]\nname = sw\nseed = 9\nreplicas = 6\nevents = none\n"
                        "sweep = failures.node_mtbf=1y,3y strategy.kind=checkpoint,buddy\n[platform]\nnodes = 600\n"
                        "[app]\nnodes = 512\nwork = 12h\n");
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("sweep s.ini --launcher slurm --shards 3 --dir d --db slurm.sqlite --quiet", 300), 0);
  CU_ASSERT(fl_cli_exists("d/sweep.sbatch"));
  CU_ASSERT(fl_cli_exists("d/shard-3.sqlite"));
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("sweep s.ini --launcher local --shards 2 --dir d2 --db local.sqlite --quiet", 300), 0);
  snprintf(args, sizeof args,
           "sqlite3 '%s/slurm.sqlite' \"ATTACH '%s/local.sqlite' AS l; SELECT (SELECT COUNT(*) FROM runs), (SELECT "
           "COUNT(*) FROM l.runs), (SELECT COUNT(*) FROM runs a JOIN l.runs b ON a.row_key = b.row_key AND "
           "a.makespan_s = b.makespan_s AND a.failures = b.failures)\" > '%s/cmp.txt'",
           fl_test_tmpdir(), fl_test_tmpdir(), fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(system(args), 0);
  rows = fl_test_read_file(fl_test_tmp("cmp.txt"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
  CU_ASSERT_STRING_EQUAL(rows, "24|24|24\n"); /* 2 x 2 points x 6 replicas, every one the same */
  free(rows);
  /* re-run: every row is there, nothing is added */
  CU_ASSERT_EQUAL(fl_cli_run_limited("sweep s.ini --launcher slurm --shards 3 --dir d --db slurm.sqlite --quiet", 300),
                  0);
  unsetenv("SLURM_CONF");
}

static int suite_init(void)
{
  snprintf(slurm_dir, sizeof slurm_dir, "%s/slurm", fl_test_tmpdir());
  return slurm("start") == 0 ? 0 : -1;
}

static int suite_clean(void)
{
  slurm("stop");
  return 0;
}

static CU_TestInfo slurm_tests[] = {
    {"a sweep as a Slurm job array equals the local sweep", test_sweep_on_slurm},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"slurm", suite_init, suite_clean, NULL, NULL, slurm_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  int st;
  char cmd[2048];
  /* can a Slurm start here at all? (installed, root) */
  snprintf(cmd, sizeof cmd, "command -v sbatch >/dev/null && [ -x /usr/sbin/slurmd ] && [ \"$(id -u)\" -eq 0 ]");
  st = system(cmd);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr,
            "Slurm is not installed or this is not root (FL_TEST_ALL=1 scripts/test.sh installs it): skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
