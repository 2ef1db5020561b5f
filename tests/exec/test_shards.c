/* test_shards.c — `faultline sweep`'s launcher as a library (exec/shards.h): local shards run and merged, bad input
 * said once with nothing left behind, and the Slurm array script, whose words sh must read back as given (run here
 * with a stand-in for faultline that prints its arguments: no Slurm needed); and a shard's side, a simulate over
 * several platforms run as a process per platform. */
#include "cli_util.h"
#include "fl_test.h"
#include "shards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The binary under test (ctest sets FAULTLINE, as for every suite that runs it). */
static const char *faultline_exe(void)
{
  const char *exe = getenv("FAULTLINE");
  CU_ASSERT_PTR_NOT_NULL_FATAL(exe);
  return exe;
}

/* Two local shards of four rows, merged: every row once; run again, nothing to do. */
static void test_local(void)
{
  const char *pass[] = {"--replicas", "4"};
  char dir[512], out[512];
  int code = -1;
  fl_cli_write("sh.ini", "[platform]\nnodes = 4\n[app]\nnodes = 4\nwork = 1h\n[failures]\nnode_mtbf = 1d\n");
  snprintf(dir, sizeof dir, "%s", fl_test_tmp("sh-dir"));
  snprintf(out, sizeof out, "%s", fl_test_tmp("sh.sqlite"));
  fl_shards_opts o = {.self = faultline_exe(),
                      .path = fl_test_tmp("sh.ini"),
                      .pass = pass,
                      .npass = 2,
                      .dir = dir,
                      .out = out,
                      .name = "sh",
                      .nshards = 2,
                      .jobs = 2,
                      .quiet = 1};
  CU_ASSERT_EQUAL_FATAL(fl_shards_run(&o, &code), FL_OK);
  CU_ASSERT_EQUAL(code, 0);
  CU_ASSERT_EQUAL(fl_cli_query(out, "SELECT COUNT(DISTINCT replica) * 10 + COUNT(*) FROM runs"), 44);
  CU_ASSERT(fl_cli_exists("sh-dir/shard-1.sqlite") && fl_cli_exists("sh-dir/shard-2.sqlite"));
  CU_ASSERT_EQUAL(fl_shards_run(&o, &code), FL_OK);
  CU_ASSERT_EQUAL(code, 0);
  CU_ASSERT_EQUAL(fl_cli_query(out, "SELECT COUNT(*) FROM runs"), 4);
}

/* Bad input: the first shard says it (exit 2), the others leave silently, the directory made for it is gone. */
static void test_bad_input(void)
{
  const char *pass[] = {"--set", "strategy.degree=x"};
  char dir[512], out[512];
  int code = -1;
  struct stat st;
  snprintf(dir, sizeof dir, "%s", fl_test_tmp("bad-dir"));
  snprintf(out, sizeof out, "%s", fl_test_tmp("bad.sqlite"));
  fl_shards_opts o = {.self = faultline_exe(),
                      .path = fl_test_tmp("sh.ini"),
                      .pass = pass,
                      .npass = 2,
                      .dir = dir,
                      .out = out,
                      .name = "bad",
                      .nshards = 3,
                      .jobs = 3,
                      .quiet = 1};
  fl_cli_write("sh.ini", "[platform]\nnodes = 4\n[app]\nnodes = 4\nwork = 1h\n");
  CU_ASSERT_EQUAL_FATAL(fl_shards_run(&o, &code), FL_OK);
  CU_ASSERT_EQUAL(code, 2);
  CU_ASSERT_NOT_EQUAL(stat(dir, &st), 0);
  CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
}

/* The array script: its header, and its command read back by sh word for word, a quote in a value included. */
static void test_slurm_script(void)
{
  const char *pass[] = {"--set", "run.name=it's a test", "--sweep", "strategy.kind=none,buddy"};
  char script[512], cmd[1200];
  long n = 0;
  char *text;
  FILE *f;
  fl_shards_opts o = {.self = fl_test_tmp("echo-args.sh"),
                      .path = "unused",
                      .pass = pass,
                      .npass = 4,
                      .nshards = 8,
                      .jobs = 3,
                      .jobs_given = 1};
  fl_cli_write("echo-args.sh", "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n");
  CU_ASSERT_EQUAL_FATAL(chmod(fl_test_tmp("echo-args.sh"), 0755), 0);
  snprintf(script, sizeof script, "%s", fl_test_tmp("sweep.sbatch"));
  f = fopen(script, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fl_shards_slurm_script(f, &o, "/abs/my scenario.ini", "/abs/out dir");
  fclose(f);
  text = fl_test_read_file(script, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "#SBATCH --array=1-8%3\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "#SBATCH --output=/abs/out dir/slurm-%a.out\n"));
  free(text);
  snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=5 sh '%s' > '%s'", script, fl_test_tmp("args.txt"));
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  text = fl_test_read_file(fl_test_tmp("args.txt"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  CU_ASSERT_STRING_EQUAL(text, "[simulate]\n[/abs/my scenario.ini]\n[--set]\n[run.name=it's a test]\n[--sweep]\n"
                               "[strategy.kind=none,buddy]\n[--shard]\n[5/8]\n[--db]\n[/abs/out dir/shard-5.sqlite]\n"
                               "[--quiet]\n");
  free(text);
}

/* A simulate over two platforms (SimGrid holds one a process): a process per platform group, every group checked
 * and counted before anything is written, the shard's plan recorded with the rows of both groups. */
static void test_groups(void)
{
  char db[512], path[512];
  char *argv[] = {"simulate", path, "--db", db, "--quiet", "--shard", "2/2"};
  int code = -1;
  struct stat st;
  fl_groups_opts o = {.self = faultline_exe(), .argc = 7, .argv = argv, .ngroups = 2, .ready_fd = -1, .after_fd = -1,
                      .db = db, .shard_i = 2, .shard_n = 2, .sweep_id = "0123456789abcdef"};
  fl_cli_write("gr.ini", "[run]\nreplicas = 3\nsweep = platform.nodes=4,8\n[platform]\nnodes = 4\n[app]\nnodes = "
                         "4\nwork = 1h\n[failures]\nnode_mtbf = 1d\n");
  snprintf(path, sizeof path, "%s", fl_test_tmp("gr.ini"));
  snprintf(db, sizeof db, "%s", fl_test_tmp("gr.sqlite"));
  CU_ASSERT_EQUAL_FATAL(fl_shards_groups(&o, &code), FL_OK);
  CU_ASSERT_EQUAL(code, 0);
  /* items 0..5 (platform 4: replicas 0-2, platform 8: 0-2); shard 2 of 2 takes items 1, 3, 5 */
  CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs"), 3);
  CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE platform_nodes = 4 AND replica = 1"), 1);
  CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE platform_nodes = 8 AND replica IN (0, 2)"), 2);
  CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT expected * 100 + shard * 10 + nshards FROM shards WHERE sweep = "
                                   "'0123456789abcdef'"),
                  322);
  /* the second platform too small for the job: its group refuses, the first group's rows are not written */
  fl_cli_write("gr.ini", "[run]\nreplicas = 3\nsweep = platform.nodes=4,2\n[platform]\nnodes = 4\n[app]\nnodes = "
                         "4\nwork = 1h\n[failures]\nnode_mtbf = 1d\n");
  snprintf(db, sizeof db, "%s", fl_test_tmp("gr-bad.sqlite"));
  CU_ASSERT_EQUAL_FATAL(fl_shards_groups(&o, &code), FL_OK);
  CU_ASSERT_EQUAL(code, 2);
  CU_ASSERT_NOT_EQUAL(stat(db, &st), 0);
}

static CU_TestInfo shards_tests[] = {
    {"local shards run and merged; a second run adds nothing", test_local},
    {"bad input said once, nothing left behind", test_bad_input},
    {"the Slurm array script reads back word for word", test_slurm_script},
    {"a simulate over two platforms: a process each, checked first", test_groups},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"shards", NULL, NULL, NULL, NULL, shards_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
