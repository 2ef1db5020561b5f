/* test_trace.c — one run's timeline: `report --timeline ID --trace FILE.paje|FILE.json` read back by tools that
 * are not faultline's (PajeNG's pj_dump for Paje, Python's json for Chrome trace events) and compared with the
 * schedule derived by hand; `--timeline ID --plot` draws the phases as a Gantt chart; refusals. */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Four ranks on four nodes, no spare; node 2 fails at 1500 s for 20 min. By hand: compute 0-600, checkpoint -660,
 * compute -1260, checkpoint -1320, compute -1500 (interrupted: 180 s lost), downtime -1530, waiting for node 2
 * -2700, restart -2820, then four segments of compute and checkpoint to 5460. */
static const char *const SCEN = "[run]\nreplicas = 1\n[platform]\nnodes = 4\n[app]\nnodes = 4\nwork = 1h\n"
                                "[strategy]\nkind = checkpoint\ninterval = 10min\ncheckpoint_cost = 1min\n"
                                "restart_cost = 2min\ndowntime = 30s\n[failures]\nmodel = trace\ntrace = one.csv\n";

static void setup_run(void)
{
  static int done;
  if (done)
    return;
  fl_cli_write("one.csv", "time,node,downtime\n1500, 2, 20min\n");
  fl_cli_write("tl.ini", SCEN);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tl.ini --db tl.sqlite --quiet", 60), 0);
  done = 1;
}

/* Run a shell command in the test's directory; its stdout into out. */
static int sh(const char *cmd, char *out, size_t size)
{
  char full[2048];
  FILE *p;
  size_t n;
  snprintf(full, sizeof full, "cd %s && %s", fl_test_tmpdir(), cmd);
  p = popen(full, "r");
  if (!p)
    return -1;
  n = fread(out, 1, size - 1, p);
  out[n] = '\0';
  return pclose(p);
}

static void test_paje(void)
{
  static char dump[1 << 16];
  static const char *const want[] = {
      "State, job, state, 0.000000, 600.000000, 600.000000, 0.000000, compute",
      "State, job, state, 600.000000, 660.000000, 60.000000, 0.000000, checkpoint",
      "State, job, state, 1320.000000, 1500.000000, 180.000000, 0.000000, compute",
      "State, job, state, 1500.000000, 1530.000000, 30.000000, 0.000000, downtime",
      "State, job, state, 1530.000000, 2700.000000, 1170.000000, 0.000000, wait",
      "State, job, state, 2700.000000, 2820.000000, 120.000000, 0.000000, restart",
      "State, job, state, 5400.000000, 5460.000000, 60.000000, 0.000000, checkpoint",
      "State, lost work, state, 1320.000000, 1500.000000, 180.000000, 0.000000, lost",
      "State, node 2, state, 1500.000000, 2700.000000, 1200.000000, 0.000000, down",
      "Event, job, event, 1500.000000, failure wait: rank 2 waits for a node",
  };
  setup_run();
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --trace t.paje", 60), 0);
  if (sh("command -v pj_dump >/dev/null", dump, sizeof dump) != 0) {
    CU_FAIL("pj_dump (Debian package pajeng, which scripts/setup.sh installs) is not on PATH");
    return;
  }
  CU_ASSERT_EQUAL_FATAL(sh("pj_dump t.paje", dump, sizeof dump), 0);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    CU_ASSERT_PTR_NOT_NULL(strstr(dump, want[i]));
    if (!strstr(dump, want[i]))
      fprintf(stderr, "\n    missing: %s", want[i]);
  }
  /* 6 full segments and the interrupted one: 3780 s of compute */
  CU_ASSERT_EQUAL(sh("pj_dump t.paje | awk -F', ' '$1 == \"State\" && $2 == \"job\" && $8 == \"compute\" "
                     "{ s += $6 } END { exit !(s == 3780) }'",
                     dump, sizeof dump),
                  0);
}

static void test_chrome(void)
{
  char out[4096];
  setup_run();
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --trace t.json", 60), 0);
  fl_cli_write("check.py",
               "import json, sys\n"
               "d = json.load(open('t.json'))\n"
               "ev = d['traceEvents']\n"
               "X = [e for e in ev if e['ph'] == 'X']\n"
               "comp = sum(e['dur'] for e in X if e['name'] == 'compute')\n"
               "down = [e for e in X if e['name'] == 'down']\n"
               "lost = [e for e in X if e['name'] == 'lost']\n"
               "inst = [e for e in ev if e['ph'] == 'i']\n"
               "names = {e['args']['name'] for e in ev if e['ph'] == 'M'}\n"
               "ok = (comp == 3780e6 and len(down) == 1 and down[0]['ts'] == 1500e6 and down[0]['dur'] == 1200e6\n"
               "      and down[0]['pid'] == 2 and down[0]['tid'] == 2 and len(lost) == 1 and lost[0]['ts'] == 1320e6\n"
               "      and any(e['name'] == 'failure wait' and e['ts'] == 1500e6 for e in inst)\n"
               "      and {'job', 'lost work', 'node 2'} <= names)\n"
               "print(comp, len(down), len(lost), len(inst))\n"
               "sys.exit(0 if ok else 1)\n");
  CU_ASSERT_EQUAL(sh("python3 check.py", out, sizeof out), 0);
}

static void test_gantt(void)
{
  long n = 0;
  char *svg;
  setup_run();
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --plot g.svg", 60), 0);
  svg = fl_test_read_file(fl_test_tmp("g.svg"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
  /* the legend: the phases this run had, and not those it had not */
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">compute<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">waiting for nodes<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">work lost<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">node 2<"));
  CU_ASSERT_PTR_NULL(strstr(svg, ">verify<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, "time (minutes)"));
  free(svg);
}

/* Stored without phases (run.events = all, the default), the run is simulated again from its row for its
 * timeline, and says so; stored with them (run.events = phases), it is drawn as stored: the same trace. */
static void test_stored_phases(void)
{
  char *a, *b;
  long na = 0, nb = 0;
  setup_run();
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --trace a.paje", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "simulated again from its row for the timeline, to the same makespan"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tl.ini --db ph.sqlite --events phases --quiet", 60), 0);
  CU_ASSERT(fl_cli_query("ph.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind = 'phase'") > 10);
  CU_ASSERT(fl_cli_query("tl.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind = 'phase'") == 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report ph.sqlite --timeline 1 --trace b.paje", 60), 0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "simulated again"));
  a = fl_test_read_file(fl_test_tmp("a.paje"), &na);
  b = fl_test_read_file(fl_test_tmp("b.paje"), &nb);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(na, nb);
  CU_ASSERT(na == nb && memcmp(a, b, (size_t)na) == 0);
  free(a);
  free(b);
}

/* A real run (cg-buddy on 4 MPI ranks, rank 2 killed at iteration 60): its checkpoints, the detection of the dead
 * process and the survivors' agreement are intervals, the job computes in between: together they cover the run,
 * and process 2 is down from the recovery on. */
static void test_real_run(void)
{
  char args[1024], out[4096];
  snprintf(args, sizeof args, "run '%s' --np 4 --kill 2@60 --db real.sqlite --quiet",
           fl_test_src("scenarios/cg-buddy.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report real.sqlite --timeline 1 --trace real.json", 60), 0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "simulated again")); /* a real run is drawn as it was */
  fl_cli_write(
      "real.py",
      "import json, sqlite3, sys\n"
      "ev = json.load(open('real.json'))['traceEvents']\n"
      "end = sqlite3.connect('real.sqlite').execute('SELECT makespan_s FROM runs').fetchone()[0]\n"
      "job = sorted((e for e in ev if e['ph'] == 'X' and e['pid'] == 1 and e['tid'] == 1), key=lambda e: e['ts'])\n"
      "names = {e['name'] for e in job}\n"
      "gaps = all(abs(a['ts'] + a['dur'] - b['ts']) < 1e-3 for a, b in zip(job, job[1:]))\n"
      "cover = abs(sum(e['dur'] for e in job) - end * 1e6) < 1e-3 and job[0]['ts'] == 0\n"
      "down = [e for e in ev if e['ph'] == 'X' and e['pid'] == 2 and e['tid'] == 2]\n"
      "meta = {e['args']['name'] for e in ev if e['ph'] == 'M'}\n"
      "ok = names == {'compute', 'checkpoint', 'detection', 'recovery'} and gaps and cover and len(down) == 1 \\\n"
      "     and 'process 2' in meta\n"
      "print(sorted(names), gaps, cover, len(down))\n"
      "sys.exit(0 if ok else 1)\n");
  CU_ASSERT_EQUAL(sh("python3 real.py", out, sizeof out), 0);
}

static void test_refusals(void)
{
  setup_run();
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --trace t.txt", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, ".paje or .trace"));
  CU_ASSERT_FALSE(fl_cli_exists("t.txt"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --timeline 9 --trace t9.json", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no such run"));
  CU_ASSERT_FALSE(fl_cli_exists("t9.json"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --trace t.json", 60), 2);
  /* a run stored without any event is simulated again too */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate tl.ini --db quiet.sqlite --events none --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report quiet.sqlite --timeline 1 --trace q.paje", 60), 0);
  CU_ASSERT_TRUE(fl_cli_exists("q.paje"));
  /* so is a task graph's (its tasks on their hosts: the Gantt a workflow user reads first) */
  fl_cli_write("chain.dot", "digraph g { a [size=\"2e9\"]; b [size=\"3e9\"]; a -> b; }\n");
  fl_cli_write("wf.ini", "[run]\nreplicas = 1\nevents = none\n[platform]\nnodes = 2\n[app]\nkind = workflow\n"
                         "graph = chain.dot\n[failures]\nmodel = none\n[strategy]\nkind = replication\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate wf.ini --db wf.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report wf.sqlite --timeline 1 --trace w.paje", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "simulated again"));
  CU_ASSERT_TRUE(fl_cli_exists("w.paje"));
  /* with its events, marks of fixed colours: failures red (#e41a1c), whatever kinds came first */
  {
    long n = 0;
    char *svg;
    CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate wf.ini --db wfe.sqlite --quiet --events all "
                                             "--set failures.model=exponential --set failures.node_mtbf=3s "
                                             "--set failures.repair=1s",
                                             60),
                          0);
    CU_ASSERT_FATAL(fl_cli_query("wfe.sqlite", "SELECT failures FROM runs") > 0);
    CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report wfe.sqlite --timeline 1 --plot wfe.svg", 60), 0);
    svg = fl_test_read_file(fl_test_tmp("wfe.svg"), &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
    CU_ASSERT_PTR_NOT_NULL(strstr(svg, "rgb(228,  26,  28)"));
    free(svg);
  }
}

/* A run whose input changed since cannot be simulated again: its timeline is drawn from its stored events, and
 * that is said (the HTML report too draws it so, rather than fail). */
static void test_changed_input(void)
{
  char ini[1024];
  snprintf(ini, sizeof ini, "%s", SCEN);
  memcpy(strstr(ini, "one.csv"), "two.csv", 7);
  fl_cli_write("two.csv", "time,node,downtime\n1500, 2, 20min\n");
  fl_cli_write("ch.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ch.ini --db ch.sqlite --quiet", 60), 0);
  fl_cli_write("two.csv", "time,node,downtime\n1500, 2, 20min\n1600, 1, 10min\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("report ch.sqlite --timeline 1 --plot ch.svg", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "cannot be simulated again"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "changed since the run"));
  CU_ASSERT_TRUE(fl_cli_exists("ch.svg"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report ch.sqlite --html ch.html", 120), 0);
  CU_ASSERT_TRUE(fl_cli_exists("ch.html"));
}

static CU_TestInfo trace_tests[] = {
    {"Paje: pj_dump reads the hand schedule", test_paje},
    {"Chrome trace events: the hand schedule", test_chrome},
    {"Gantt chart of the phases", test_gantt},
    {"phases stored, or simulated again from the row", test_stored_phases},
    {"a real run: checkpoints, detection, recovery, compute between", test_real_run},
    {"refusals leave nothing", test_refusals},
    {"an input changed since: drawn from the stored events", test_changed_input},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"trace", NULL, NULL, NULL, NULL, trace_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  return fl_test_run(suites);
}
