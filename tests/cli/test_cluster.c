/* test_cluster.c — the real mode on a cluster: `faultline run --launcher slurm` on a 3-node test cluster
 * (scripts/cluster-local.sh: each node its own network namespace and host name, its own slurmd, Open MPI over TCP
 * between them), 2 nodes x 2 ranks + 1 spare node, scenarios/cg-buddy.ini. A whole node lost mid-run (its
 * processes killed, its link down) ends, under buddy, checkpoint and two-level, with the failure-free answer bit
 * for bit (every role's checksum), one row naming the lost node and failures = 1 node, by Slurm and by mpirun over a
 * host file; with no spare node the run fails cleanly (exit 3, one row); `agree` by node holds both engines to the
 * same node failures within 0.85-1.15; `cluster-local.sh stop` leaves no process and no namespace. Slow; skipped (77)
 * where Slurm is not installed, this is not root, or no network namespace can be made. */
#include "cli_util.h"
#include "fl_test.h"

#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char cluster_dir[512];

static int cluster(const char *cmd)
{
  char line[4096];
  int st;
  snprintf(line, sizeof line, "'%s' %s >>'%s/cluster-local.txt' 2>&1", fl_test_src("scripts/cluster-local.sh"), cmd,
           fl_test_tmpdir());
  st = system(line);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The cluster's environment (DIR/env, VAR=VALUE lines): Slurm's configuration, the node-kill command, Open MPI's
 * network. */
static int cluster_env(void)
{
  char path[1200], line[2048];
  FILE *f;
  snprintf(path, sizeof path, "%s/env", cluster_dir);
  if (!(f = fopen(path, "r")))
    return -1;
  while (fgets(line, sizeof line, f)) {
    char *eq = strchr(line, '=');
    line[strcspn(line, "\n")] = '\0';
    if (eq) {
      *eq = '\0';
      setenv(line, eq + 1, 1);
    }
  }
  fclose(f);
  return 0;
}

/* Every role's checksum in an outcome directory (rank-W.txt of the processes that completed), as one string
 * "role0 role1 role2 role3". */
static void role_checksums(const char *dir, char *out, size_t size)
{
  char pattern[1200], sums[4][32] = {{0}};
  glob_t g;
  snprintf(pattern, sizeof pattern, "%s/%s/rank-*.txt", fl_test_tmpdir(), dir);
  out[0] = '\0';
  if (glob(pattern, 0, NULL, &g) != 0)
    return;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    FILE *f = fopen(g.gl_pathv[i], "r");
    char line[2048], status[32], sum[32];
    int rank, role;
    long it;
    if (!f)
      continue;
    if (fgets(line, sizeof line, f) &&
        sscanf(line, "rank %d role %d status %31s iterations %ld checksum %31s", &rank, &role, status, &it, sum) == 5 &&
        strcmp(status, "completed") == 0 && role >= 0 && role < 4)
      snprintf(sums[role], sizeof sums[role], "%s", sum);
    fclose(f);
  }
  globfree(&g);
  snprintf(out, size, "%s %s %s %s", sums[0], sums[1], sums[2], sums[3]);
}

static char reference[256];

/* `faultline run` on scenarios/cg-buddy.ini with ARGS, at most `seconds` */
static int run_cg(const char *args, int seconds)
{
  char line[2048];
  snprintf(line, sizeof line, "run '%s' %s", fl_test_src("scenarios/cg-buddy.ini"), args);
  return seconds ? fl_cli_run_limited(line, seconds) : fl_cli_run(line);
}

/* The failure-free answer: the same placement on one machine (the local launcher), no kill. */
static void test_reference(void)
{
  CU_ASSERT_EQUAL_FATAL(run_cg("--np 4 --spares 0 --set mpi.ranks_per_node=2 --out ref --db ref.sqlite --quiet", 120),
                        0);
  role_checksums("ref", reference, sizeof reference);
  CU_ASSERT_EQUAL(strlen(reference), 4 * 16 + 3); /* four roles, each a 64-bit checksum */
}

static void node_lost_by(const char *strategy, const char *launcher)
{
  char args[1024], out[64], sums[256], sql[512];
  CU_ASSERT_EQUAL_FATAL(cluster_env(), 0);
  snprintf(args, sizeof args, "revive-node '%s' node2", cluster_dir); /* the node an earlier case took down */
  CU_ASSERT_EQUAL_FATAL(cluster(args), 0);
  snprintf(out, sizeof out, "out-%s-%s", strategy, launcher);
  snprintf(args, sizeof args,
           "--np 4 --spare-nodes 1 --set mpi.ranks_per_node=2 --set strategy.kind=%s --launcher %s%s "
           "--kill-node 1@300 --out %s --db %s.sqlite --quiet",
           strategy, launcher, strcmp(launcher, "mpirun") == 0 ? " --hostfile hosts.txt" : "", out, launcher);
  CU_ASSERT_EQUAL(run_cg(args, 240), 0);
  if (strstr(fl_cli_err, "error"))
    fprintf(stderr, "%s\n", fl_cli_err);
  role_checksums(out, sums, sizeof sums);
  CU_ASSERT_STRING_EQUAL(sums, reference); /* the failure-free answer, bit for bit */
  snprintf(sql, sizeof sql,
           "SELECT COUNT(*) FROM runs WHERE strategy = '%s' AND status = 'completed' AND failures = 1 AND "
           "hosts_lost = 'node2' AND hosts_used = 3 AND job_nodes = 3 AND interruptions = 1",
           strategy);
  snprintf(out, sizeof out, "%s.sqlite", launcher);
  CU_ASSERT_EQUAL(fl_cli_query(out, sql), 1.0);
}

static void node_lost(const char *strategy)
{
  node_lost_by(strategy, "slurm");
}

static void test_buddy(void)
{
  node_lost("buddy");
}
static void test_checkpoint(void)
{
  node_lost("checkpoint");
}
static void test_two_level(void)
{
  node_lost("two-level");
}

/* Open MPI's own launcher over a host file (its daemons started through the cluster's remote shell): the same. */
static void test_mpirun_hostfile(void)
{
  fl_cli_write("hosts.txt", "node1 slots=2\nnode2 slots=2\nnode3 slots=2\n");
  node_lost_by("buddy", "mpirun");
}

/* No spare node: the job stops cleanly, exit 3, one failed row that names the node (whichever of the three the
 * two-node allocation's second is). */
static void test_no_spare(void)
{
  char args[1024];
  CU_ASSERT_EQUAL_FATAL(cluster_env(), 0);
  snprintf(args, sizeof args, "revive-node '%s' node2", cluster_dir);
  CU_ASSERT_EQUAL_FATAL(cluster(args), 0);
  CU_ASSERT_EQUAL(run_cg("--np 4 --spare-nodes 0 --set mpi.ranks_per_node=2 --launcher slurm --kill-node 1@300 "
                         "--out out-nospare --db nospare.sqlite --quiet",
                         240),
                  3);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no spare left"));
  CU_ASSERT_EQUAL(fl_cli_query("nospare.sqlite", "SELECT COUNT(*) FROM runs"), 1.0);
  CU_ASSERT_EQUAL(fl_cli_query("nospare.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'failed' AND failures = 1 "
                                                 "AND hosts_lost GLOB 'node[1-3]'"),
                  1.0);
}

/* agree on the cluster: calibrated there, one node failure per strategy in both engines (the simulator failing a
 * node when the job's work reaches the iteration the real node is taken down at): the same failures, makespans
 * within 0.85-1.15 (exit 0). */
static void test_agree(void)
{
  char args[1024];
  int rc;
  CU_ASSERT_EQUAL_FATAL(cluster_env(), 0);
  snprintf(args, sizeof args, "revive-node '%s' node2", cluster_dir);
  CU_ASSERT_EQUAL_FATAL(cluster(args), 0);
  snprintf(args, sizeof args,
           "agree '%s' --np 4 --set mpi.ranks_per_node=2 --set app.grid=256x256 --launcher slurm "
           "--failures 1 --strategies buddy,checkpoint,two-level --db agree.sqlite",
           fl_test_src("scenarios/cg-buddy.ini"));
  rc = fl_cli_run_limited(args, 600);
  fprintf(stderr, "\n%s", fl_cli_out);
  if (rc == 1) {
    /* a ratio outside: the file level's cost on this machine's shared disk varies from run to run (0.005 to 0.009 s
     * a checkpoint measured), so a second round, calibrated afresh, is the verdict (both printed) */
    rc = fl_cli_run_limited(args, 600);
    fprintf(stderr, "\n  (again)\n%s", fl_cli_out);
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "1 node failures (node@iteration)"));
  CU_ASSERT(fl_cli_query("agree.sqlite", "SELECT COUNT(*) FROM runs WHERE mode = 'real' AND failures = 1 AND "
                                         "status = 'completed' AND hosts_lost IS NOT NULL AND job_nodes = 3") >= 3.0);
  CU_ASSERT_EQUAL(fl_cli_query("agree.sqlite", "SELECT COUNT(*) FROM runs WHERE mode = 'sim' AND failures != 1"), 0.0);
}

/* Placement refused before anything runs: a node index the run does not have, ranks that do not fill nodes. */
static void test_refused(void)
{
  CU_ASSERT_EQUAL(run_cg("--np 4 --spare-nodes 1 --set mpi.ranks_per_node=2 --launcher slurm --kill-node 3@10 "
                         "--db refused.sqlite --quiet",
                         0),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no node 3 (the run's nodes are 0..2"));
  CU_ASSERT_EQUAL(run_cg("--np 3 --set mpi.ranks_per_node=2 --launcher slurm --db refused.sqlite --quiet", 0), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "must fill whole nodes"));
  CU_ASSERT_FALSE(fl_cli_exists("refused.sqlite"));
}

/* stop: no process of the cluster left, no namespace. */
static void test_stop(void)
{
  char args[1200], cmd[4096];
  int st;
  snprintf(args, sizeof args, "stop '%s'", cluster_dir);
  CU_ASSERT_EQUAL(cluster(args), 0);
  /* the directory through the environment: a command line that names it would match itself */
  setenv("FL_CLUSTER_DIR", cluster_dir, 1);
  snprintf(cmd, sizeof cmd, "%s",
           "! ip netns list | grep -q \"^fl$(( $(printf '%s' \"$FL_CLUSTER_DIR\" | cksum | cut -d' ' -f1) % 200 + "
           "20 ))node\" && ! pgrep -f \"$FL_CLUSTER_DIR\" >/dev/null");
  st = system(cmd);
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int suite_init(void)
{
  char args[1200];
  snprintf(cluster_dir, sizeof cluster_dir, "%s/cluster", fl_test_tmpdir());
  snprintf(args, sizeof args, "start 3 '%s'", cluster_dir);
  return cluster(args) == 0 && cluster_env() == 0 ? 0 : -1;
}

static int suite_clean(void)
{
  char args[1200];
  snprintf(args, sizeof args, "stop '%s'", cluster_dir);
  cluster(args);
  return 0;
}

static CU_TestInfo cluster_tests[] = {
    {"the failure-free answer (one machine)", test_reference},
    {"a node lost under buddy: a spare node takes its roles, the same answer", test_buddy},
    {"a node lost under checkpoint", test_checkpoint},
    {"a node lost under two-level", test_two_level},
    {"a node lost under mpirun --hostfile", test_mpirun_hostfile},
    {"a node lost and no spare node: failed, exit 3, one row", test_no_spare},
    {"agree by node on the cluster: the same node failures, within 0.85-1.15", test_agree},
    {"placement and node kills checked before anything runs", test_refused},
    {"stop leaves no process and no namespace", test_stop},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"cluster", suite_init, suite_clean, NULL, NULL, cluster_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  int st = system("command -v sbatch >/dev/null && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ] && "
                  "[ \"$(id -u)\" -eq 0 ] && ip netns add flprobe$$ 2>/dev/null && ip netns del flprobe$$");
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "Slurm or munge is not installed, this is not root, or no network namespace can be made here "
                    "(FL_TEST_ALL=1 scripts/test.sh installs Slurm): skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
