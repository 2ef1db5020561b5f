/* test_energy.c — `energy_j`, the nodes' energy over a run: checked against SimGrid's own host energy plugin
 * (energy_plugin.c, which links no faultline code) playing a schedule this file derives from the model by hand,
 * on a platform whose hosts declare different wattages; against the hand figure on a generated platform;
 * replication draws twice the energy of the same job alone; the figure reaches report, --baseline and export;
 * bad wattages are one line, exit 2. */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Four nodes that draw differently (SimGrid's two- and three-value forms, their own wattage_off or none), and
 * the controller, which the meter leaves out. */
static const char *const PLATFORM =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n"
    "<host id=\"controller\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"0:0\"/></host>\n"
    "<host id=\"node-0\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"100:120:250\"/>"
    "<prop id=\"wattage_off\" value=\"10\"/></host>\n"
    "<host id=\"node-1\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"100:120:250\"/>"
    "<prop id=\"wattage_off\" value=\"10\"/></host>\n"
    "<host id=\"node-2\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"90:300\"/>"
    "<prop id=\"wattage_off\" value=\"7.5\"/></host>\n"
    "<host id=\"node-3\" speed=\"2Gf\"><prop id=\"wattage_per_state\" value=\"80:200\"/>"
    "<prop id=\"wattage_off\" value=\"5\"/></host>\n"
    "</zone>\n</platform>\n";

static const char *const JOB = "[app]\nnodes = 4\nwork = 1h\n[strategy]\nkind = checkpoint\ninterval = 10min\n"
                               "checkpoint_cost = 1min\nrestart_cost = 2min\ndowntime = 30s\n[failures]\n";

/* The plugin's joules for a schedule (energy_plugin reads it on stdin). */
static double plugin_joules(const char *schedule)
{
  char cmd[2048];
  double j = NAN;
  FILE *p;
  fl_cli_write("schedule.txt", schedule);
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 ./energy_plugin %s < %s 2>energy_plugin.err", fl_test_tmp("energy.xml"),
           fl_test_tmp("schedule.txt"));
  p = popen(cmd, "r");
  if (!p)
    return NAN;
  if (fscanf(p, "%lf", &j) != 1)
    j = NAN;
  if (pclose(p) != 0)
    j = NAN;
  return j;
}

/* Append "busy T0 T1 node-i" for each node in mask (bit i: node-i) */
static void busy(char *s, size_t size, double t0, double t1, unsigned mask)
{
  for (int i = 0; i < 4; i++)
    if (mask & (1u << i))
      snprintf(s + strlen(s), size - strlen(s), "busy %.17g %.17g node-%d\n", t0, t1, i);
}

/* Failure-free: 6 segments of 10 min, each with its 1 min checkpoint: 3960 s. */
static void test_plugin_failure_free(void)
{
  char ini[1024], sched[4096] = "";
  double ours, theirs;
  fl_cli_write("energy.xml", PLATFORM);
  snprintf(ini, sizeof ini, "[run]\nreplicas = 1\nevents = none\n[platform]\nfile = energy.xml\n%s"
                            "[failures]\nmodel = none\n", JOB);
  fl_cli_write("ff.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ff.ini --db ff.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("ff.sqlite", "SELECT makespan_s FROM runs"), 3960.0, 1e-9);
  for (int k = 0; k < 6; k++)
    busy(sched, sizeof sched, 660.0 * k, 660.0 * k + 600, 0xF);
  strcat(sched, "end 3960\n");
  theirs = plugin_joules(sched);
  ours = fl_cli_query("ff.sqlite", "SELECT energy_j FROM runs");
  CU_ASSERT_FALSE(isnan(theirs));
  CU_ASSERT_DOUBLE_EQUAL(ours, theirs, 1e-9 * theirs);
  /* and by hand: each node's AllCores over 3600 s of compute, Idle over 360 s of checkpoints */
  CU_ASSERT_DOUBLE_EQUAL(ours, 3600.0 * (250 + 250 + 300 + 200) + 360.0 * (100 + 100 + 90 + 80), 1e-6);
}

/* node-2 fails at 1500 s (in the third segment) for 20 min; no spare. Compute 0-600, checkpoint -660, compute
 * -1260, checkpoint -1320, compute -1500 (lost), downtime -1530, waiting for node-2 -2700 (it draws its
 * wattage_off from 1500), restart -2820, then four segments with their checkpoints: 5460 s. */
static void test_plugin_with_failure(void)
{
  char ini[1024], sched[4096] = "";
  double ours, theirs;
  fl_cli_write("energy.xml", PLATFORM);
  fl_cli_write("one.csv", "time,node,downtime\n1500, node-2, 20min\n");
  snprintf(ini, sizeof ini, "[run]\nreplicas = 1\nevents = none\n[platform]\nfile = energy.xml\n%s"
                            "model = trace\ntrace = one.csv\n", JOB);
  fl_cli_write("fail.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate fail.ini --db fail.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("fail.sqlite", "SELECT makespan_s FROM runs"), 5460.0, 1e-9);
  busy(sched, sizeof sched, 0, 600, 0xF);
  busy(sched, sizeof sched, 660, 1260, 0xF);
  busy(sched, sizeof sched, 1320, 1500, 0xF);
  strcat(sched, "off 1500 2700 node-2\n");
  for (int k = 0; k < 4; k++)
    busy(sched, sizeof sched, 2820 + 660.0 * k, 2820 + 660.0 * k + 600, 0xF);
  strcat(sched, "end 5460\n");
  theirs = plugin_joules(sched);
  ours = fl_cli_query("fail.sqlite", "SELECT energy_j FROM runs");
  CU_ASSERT_FALSE(isnan(theirs));
  CU_ASSERT_DOUBLE_EQUAL(ours, theirs, 1e-9 * theirs);
}

/* A generated platform: platform.node_power and node_power_off for every node; the hand figure (hosts x busy
 * power x compute time, plus idle power over the checkpoints) within 1 % (it is exact). Replication holds twice
 * the nodes for the same makespan: twice the node-hours and twice the energy. */
static void test_generated_and_replication(void)
{
  fl_cli_write("gen.ini", "[run]\nreplicas = 1\nevents = none\n"
                          "sweep = strategy.kind+platform.nodes=none/64,replication/128\n"
                          "[platform]\nnode_power = 150W:0.4kW\n[failures]\nmodel = none\n"
                          "[app]\nnodes = 64\nwork = 10h\n[strategy]\ninterval = never\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate gen.ini --db gen.sqlite --quiet", 60), 0);
  double none = fl_cli_query("gen.sqlite", "SELECT energy_j FROM runs WHERE strategy = 'none'");
  double rep = fl_cli_query("gen.sqlite", "SELECT energy_j FROM runs WHERE strategy = 'replication'");
  CU_ASSERT_DOUBLE_EQUAL(none, 64 * 400.0 * 36000, 0.01 * 64 * 400.0 * 36000);
  CU_ASSERT_DOUBLE_EQUAL(none, 64 * 400.0 * 36000, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(rep, 2 * none, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("gen.sqlite", "SELECT node_hours FROM runs WHERE strategy = 'replication'"),
                         2 * fl_cli_query("gen.sqlite", "SELECT node_hours FROM runs WHERE strategy = 'none'"), 1e-9);
  /* checkpoints at the defaults' power: 100 W idle while writing, 200 W computing */
  fl_cli_write("ck.ini", "[run]\nreplicas = 1\nevents = none\n[failures]\nmodel = none\n"
                         "[app]\nnodes = 8\nwork = 1h\n[strategy]\nkind = checkpoint\ninterval = 30min\n"
                         "checkpoint_cost = 5min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ck.ini --db ck.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("ck.sqlite", "SELECT energy_j FROM runs"), 8 * (200.0 * 3600 + 100.0 * 600),
                         1e-6);
}

/* A task graph: its tasks run as SimGrid executions, one per host at a time. A chain of 2, 3 and 1 Gflop on
 * three 1 Gf hosts runs on one host for 6 s: the three draw Idle for 6 s, the busy one its AllCores besides. */
static void test_workflow(void)
{
  fl_cli_write("chain.dot", "digraph g { a [size=\"2e9\"]; b [size=\"3e9\"]; c [size=\"1e9\"]; a -> b; b -> c; }\n");
  fl_cli_write("wf.ini", "[run]\nreplicas = 1\nevents = none\n[platform]\nnodes = 3\nnode_power = 100:150:250\n"
                         "[app]\nkind = workflow\ngraph = chain.dot\n[failures]\nmodel = none\n"
                         "[strategy]\nkind = replication\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate wf.ini --db wf.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("wf.sqlite", "SELECT makespan_s FROM runs"), 6.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("wf.sqlite", "SELECT energy_j FROM runs"), 3 * 100.0 * 6 + (250 - 100) * 6.0,
                         1e-6);
}

/* A workload on the platform whose nodes draw differently: the job of 2 nodes for 100 s takes the lowest two
 * (node-0, node-1: 100 W idle, 250 W computing); every node idles over the span. By hand: (100 + 100 + 90 + 80) W x
 * 100 s + 2 x (250 - 100) W x 100 s. */
static void test_workload_heterogeneous(void)
{
  fl_cli_write("energy.xml", PLATFORM);
  fl_cli_write("one.swf", "; MaxNodes: 4\n1 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n");
  fl_cli_write("wlh.ini", "[run]\nreplicas = 1\nevents = none\n[platform]\nfile = energy.xml\n[failures]\n"
                          "model = none\n[app]\nkind = workload\ntrace = one.swf\n[strategy]\nkind = none\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate wlh.ini --db wlh.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("wlh.sqlite", "SELECT makespan_s FROM runs"), 100.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("wlh.sqlite", "SELECT energy_j FROM runs"),
                         370.0 * 100 + 2 * (250.0 - 100.0) * 100, 1e-6);
}

/* With failures, every replica's energy lies between all nodes idle and all busy, plus off power; the paired
 * comparison and the export carry it. */
static void test_reports(void)
{
  fl_cli_write("rep.ini", "[run]\nname = en\nreplicas = 6\nevents = none\nsweep = strategy.kind=checkpoint,none\n"
                          "[failures]\nnode_mtbf = 2y\nrepair = 1h\n[platform]\nnodes = 300\n"
                          "[app]\nnodes = 256\nwork = 24h\n[strategy]\ncheckpoint_cost = 10min\n"
                          "restart_cost = 10min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate rep.ini --db rep.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("rep.sqlite", "SELECT COUNT(*) FROM runs WHERE energy_j IS NULL OR energy_j < "
                                             "300 * 10 * makespan_s OR energy_j > 300 * 200 * makespan_s"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report rep.sqlite --baseline strategy.kind=checkpoint --format csv", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "energy_j_diff"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report rep.sqlite --format json", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\"energy_j\""));
  CU_ASSERT_EQUAL(fl_cli_run_limited("export rep.sqlite --format csv", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "energy_j"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "platform.node_power"));
}

static void expect_bad(const char *ini, const char *needle)
{
  fl_cli_write("bad.ini", ini);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate bad.ini --db bad.sqlite --quiet", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, needle));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
}

static void test_bad_wattage(void)
{
  char xml[2048];
  expect_bad("[app]\nnodes = 4\n[platform]\nnode_power = 100\n", "[platform] node_power = '100'");
  expect_bad("[app]\nnodes = 4\n[platform]\nnode_power = 200:100\n", "Idle and Epsilon at most AllCores");
  expect_bad("[app]\nnodes = 4\n[platform]\nnode_power = 100:abc\n", "'100:abc'");
  expect_bad("[app]\nnodes = 4\n[platform]\nnode_power_off = -1\n", "[platform] node_power_off = '-1'");
  snprintf(xml, sizeof xml, "%s", PLATFORM);
  {
    char *p = strstr(xml, "80:200");
    memcpy(p, "80:2x0", 6);
  }
  fl_cli_write("badw.xml", xml);
  expect_bad("[app]\nnodes = 4\n[platform]\nfile = badw.xml\n[failures]\nmodel = none\n", "host 'node-3'");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "wattage_per_state = '80:2x0'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "badw.xml"));
}

static CU_TestInfo energy_tests[] = {
    {"failure-free: SimGrid's energy plugin agrees, and the hand figure", test_plugin_failure_free},
    {"a failure: off power while in repair, as the plugin charges it", test_plugin_with_failure},
    {"generated platforms; replication draws twice the energy", test_generated_and_replication},
    {"task graphs: each execution at its host's load", test_workflow},
    {"a workload on nodes that draw differently", test_workload_heterogeneous},
    {"report, --baseline and export carry energy_j", test_reports},
    {"bad wattages: one line, exit 2", test_bad_wattage},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"energy", NULL, NULL, NULL, NULL, energy_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  return fl_test_run(suites);
}
