/* test_cli.c — the faultline command as a user meets it: bad input exits 2 with one line naming file, line, key
 * and value and writes nothing; a simulation writes one row per replica; report, rerun and validate work. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "cli_util.h"
#include "fl_test.h"

#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define out_text fl_cli_out
#define err_text fl_cli_err
#define faultline fl_cli_run
#define write_file fl_cli_write
#define exists fl_cli_exists
#define lines fl_cli_lines

static int count_lines_with(const char *text, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

#define GOOD "[run]\nreplicas = 3\n[platform]\nnodes = 40\n[failures]\nnode_mtbf = 20d\n[app]\nnodes = 32\nwork = 12h\n"

/* Each bad input: exit 2, one line on stderr that contains `want`, no database file; the command limited to
 * `seconds` and `mem_kb` of address space where they are not 0 (fl_cli_run_bounded). */
static void expect_bad_within(const char *ini, const char *args, const char *want, int seconds, long mem_kb)
{
  char cmdline[1024];
  int rc;
  write_file("bad.ini", ini);
  unlink(fl_test_tmp("bad.sqlite"));
  snprintf(cmdline, sizeof cmdline, "simulate bad.ini --db bad.sqlite %s", args);
  rc = fl_cli_run_bounded(cmdline, seconds, mem_kb);
  CU_ASSERT_EQUAL(rc, 2);
  CU_ASSERT_EQUAL(lines(err_text), 1);
  if (!strstr(err_text, want))
    fprintf(stderr, "\n    stderr '%s' lacks '%s'\n", err_text, want);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, want));
  CU_ASSERT_FALSE(exists("bad.sqlite"));
  CU_ASSERT_FALSE(exists("bad.sqlite-wal"));
}

static void expect_bad(const char *ini, const char *args, const char *want)
{
  expect_bad_within(ini, args, want, 0, 0);
}

static void test_bad_input(void)
{
  expect_bad("[failures]\nmodel = weibul\n[app]\nnodes = 4\n", "", "bad.ini:2: [failures] model = 'weibul': unknown");
  expect_bad("[app]\nnodes = 4\n[failures]\nnode_mtbf = -5y\n", "", "bad.ini:4: [failures] node_mtbf = '-5y'");
  expect_bad("[platform]\nfile = nowhere.xml\n", "", "bad.ini:2: [platform] file = 'nowhere.xml'");
  expect_bad("[platform]\nnodes = 10\n[app]\nnodes = 20\n", "", "bad.ini:4: [app] nodes = '20'");
  expect_bad(GOOD, "--set failures.mtbf=1y", "--set failures.mtbf=1y: unknown key");
  expect_bad(GOOD, "--set failures.node_mtbf=0s", "--set failures.node_mtbf=0s: must be positive");
  expect_bad(GOOD, "--replicas 0", "--set run.replicas=0: must be at least 1");
  /* a key of another app's own: refused where it was given, naming who reads it (it was accepted and ignored) */
  expect_bad(GOOD, "--set app.graph=x.dot", "--set app.graph=x.dot: app.kind = workflow reads this key");
  expect_bad("[app]\nnodes = 4\ntrace = jobs.swf\n", "",
             "bad.ini:3: [app] trace = 'jobs.swf': app.kind = workload reads this key; this scenario runs "
             "app.kind = bsp");
  /* one of the run's [app] keys that the chosen kind does not read: refused, naming the kinds that do */
  expect_bad(GOOD, "--set app.grid=4x4",
             "--set app.grid=4x4: app.kind = bsp does not read this key (app.kind = cg, lossy-cg or gridworld does)");
  expect_bad("[platform]\nnodes = 64\n[app]\nkind = workload\njobs = 10\njob_nodes = 1-8\nwork = 2h\n", "",
             "bad.ini:7: [app] work = '2h': app.kind = workload does not read this key (app.kind = bsp does)");
  write_file("broken.csv", "3600, 1, 5min\n7200; 2\n");
  expect_bad("[app]\nnodes = 4\n[failures]\nmodel = trace\ntrace = broken.csv\n", "",
             "broken.csv:2: expected 'time, node[, downtime]'");
  write_file("far.csv", "3600, 99\n");
  expect_bad("[app]\nnodes = 4\n[failures]\nmodel = trace\ntrace = far.csv\n", "",
             "far.csv:1: node '99': no such node");
  expect_bad("[strategy]\nkind = magic\n[app]\nnodes = 4\n", "", "bad.ini:2: [strategy] kind = 'magic'");
  /* a platform file SimGrid cannot parse: its reason, on our one line */
  write_file("badplat.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                            "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n"
                            "<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"fast\"/>\n</zone>\n</platform>\n");
  expect_bad("[platform]\nfile = badplat.xml\n[app]\nnodes = 1\n", "",
             "bad.ini:2: [platform] file = 'badplat.xml': Parse error at badplat.xml:6");
  {
    /* the platform named by its path (not faultline's internal key for it) */
    char ini[1024], want[1024];
    snprintf(ini, sizeof ini, "[platform]\nfile = %s\n[app]\nnodes = 40\n",
             fl_test_src("sim/platforms/small-cluster.xml"));
    snprintf(want, sizeof want,
             "bad.ini:4: [app] nodes = '40': the job needs 40 ranks but platform '%s' has only 32 nodes",
             fl_test_src("sim/platforms/small-cluster.xml"));
    expect_bad(ini, "", want);
  }
  {
    /* a platform file whose size is checked before SimGrid builds any of it: a cluster's radical of 10^8 hosts
     * (fuzz_platform's finding: 9 million took 24 GB and the OOM killer), and a Full zone of 200,000 hosts (its
     * routing table alone 320 GB) */
    FILE *f = fopen(fl_test_tmp("huge.xml"), "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-99999999\"\n"
               " speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n</platform>\n");
    fclose(f);
    expect_bad("[platform]\nfile = huge.xml\n[app]\nnodes = 2\n", "",
               "huge.xml:5: cluster radical = '0-99999999': 100000000 hosts would need about");
    f = fopen(fl_test_tmp("full.xml"), "w");
    CU_ASSERT_FATAL(f != NULL);
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n<zone id=\"flat\" routing=\"Full\">\n");
    for (int i = 0; i < 200000; i++)
      fprintf(f, "<host id=\"h%d\" speed=\"1Gf\"/>\n", i);
    fprintf(f, "</zone>\n</platform>\n");
    fclose(f);
    expect_bad("[platform]\nfile = full.xml\n[app]\nnodes = 2\n", "",
               "full.xml:4: zone 'flat': 200000 members, whose routing table takes");
  }
  CU_ASSERT_EQUAL(faultline("simulate"), 2);
  CU_ASSERT_EQUAL(faultline("simulate nothere.ini"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "nothere.ini: cannot open scenario"));
  CU_ASSERT_EQUAL(faultline("frobnicate"), 2);
  CU_ASSERT_EQUAL(faultline("report nothere.sqlite"), 2);
}

/* A platform file of one <cluster> of `topology` (TORUS, FAT_TREE, DRAGONFLY) */
static void write_topology(const char *name, const char *topology, const char *params, const char *radical)
{
  char text[1024];
  snprintf(text, sizeof text,
           "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n<zone id=\"world\" routing=\"Full\">\n"
           "<cluster id=\"c\" topology=\"%s\" topo_parameters=\"%s\" prefix=\"node-\" radical=\"%s\"\n"
           " suffix=\"\" speed=\"1Gf\" bw=\"125MBps\" lat=\"50us\"/>\n</zone>\n</platform>\n",
           topology, params, radical);
  write_file(name, text);
}

/* Torus, Fat-Tree and Dragonfly clusters: SimGrid's own examples load with every host; topo_parameters SimGrid
 * 3.32 misreads are refused before it sees them (fuzz_platform's finding: a Dragonfly of -2 groups, kept by SimGrid
 * as 4294967294, ended in std::bad_alloc; 10 groups of one router each wrote past SimGrid's table of routers and
 * ended in "double free or corruption"; 100,000 routers in a chassis asked for 5 * 10^9 links, terabytes) */
static void test_topology_clusters(void)
{
  static const struct {
    const char *file;
    int nodes; /* its hosts, less the controller's */
  } examples[] = {{"tests/fuzz/seeds/platform/cluster_dragonfly.xml", 119},
                  {"tests/fuzz/seeds/platform/cluster_fat_tree.xml", 15},
                  {"tests/fuzz/seeds/platform/cluster_torus.xml", 11}};
  static const struct {
    const char *topology, *params, *radical, *want;
  } refused[] = {
      {"DRAGONFLY", "-2,4;4,3;5,1;2", "0-119",
       "p.xml:6: cluster topo_parameters = '-2,4;4,3;5,1;2': groups -2: a count is 1 or more"},
      {"DRAGONFLY", "10,1;1,1;1,1;1", "0-9",
       "p.xml:6: cluster topo_parameters = '10,1;1,1;1,1;1': 10 groups, but a group has 1 routers"},
      {"DRAGONFLY", "1,1;1,1;100000,1;1", "0-99999",
       "p.xml:6: cluster topo_parameters = '1,1;1,1;100000,1;1': 100000 hosts and 5000050000 links of cluster "
       "topologies would need about"},
      {"DRAGONFLY", "3,4;4,3;5,1;2", "0-99",
       "p.xml:6: cluster topo_parameters = '3,4;4,3;5,1;2': a DRAGONFLY of 120 hosts, but radical = '0-99' names 100"},
      {"DRAGONFLY", "3,4;4;5,1;2", "0-119", "a Dragonfly's chassis field is 'chassis,black links'"},
      {"FAT_TREE", "2;4,4;1,2", "0-15",
       "p.xml:6: cluster topo_parameters = '2;4,4;1,2': a Fat-Tree is 'levels;down counts;up counts;link counts' (4 "
       "fields, not 3)"},
      {"FAT_TREE", "2;4,4;1,2;1,99999999999", "0-15", "link count 2 99999999999 is beyond an int"},
      {"FAT_TREE", "3;4,4;1,2,2;1,2,1", "0-15", "3 levels, but 2 down counts"},
      {"TORUS", "3,0,2", "0-11", "p.xml:6: cluster topo_parameters = '3,0,2': dimension 2 0: a count is 1 or more"},
      {"TORUS", "3,x", "0-11", "dimension 2 'x' is not a number"},
  };
  char ini[1200];
  for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
    snprintf(ini, sizeof ini, "[platform]\nfile = %s\n[app]\nnodes = %d\n", fl_test_src(examples[i].file),
             examples[i].nodes);
    write_file("topo.ini", ini);
    unlink(fl_test_tmp("topo.sqlite"));
    CU_ASSERT_EQUAL(fl_cli_run_bounded("simulate topo.ini --db topo.sqlite --quiet", 120, 4L << 20), 0);
    CU_ASSERT_TRUE(exists("topo.sqlite"));
    /* one host more than the topology has: said as a scenario error */
    snprintf(ini, sizeof ini, "[platform]\nfile = %s\n[app]\nnodes = %d\n", fl_test_src(examples[i].file),
             examples[i].nodes + 1);
    write_file("topo.ini", ini);
    CU_ASSERT_EQUAL(fl_cli_run_bounded("simulate topo.ini --db topo2.sqlite --quiet", 120, 4L << 20), 2);
    snprintf(ini, sizeof ini, "has only %d nodes", examples[i].nodes);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, ini));
  }
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    write_topology("p.xml", refused[i].topology, refused[i].params, refused[i].radical);
    /* under 4 GiB of address space and 120 s: were the check to fail, SimGrid would take all the memory there is
     * (the memory limit is left out under ASan, whose shadow alone exceeds it) */
    expect_bad_within("[platform]\nfile = p.xml\n[app]\nnodes = 2\n", "", refused[i].want, 120, 4L << 20);
  }
}

static void test_simulate_report_rerun(void)
{
  write_file("good.ini", GOOD);
  unlink(fl_test_tmp("good.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate good.ini --db good.sqlite --quiet"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "good"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "checkpoint"));
  CU_ASSERT_EQUAL(faultline("report good.sqlite --csv"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "\"good\",sim,\"bsp\",\"checkpoint\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, ",3,3,0,0,0,0,0,")); /* 3 runs, 3 completed */
  /* again, appended, with an override: a second group */
  CU_ASSERT_EQUAL_FATAL(faultline("simulate good.ini --db good.sqlite --quiet --set strategy.kind=none --replicas 2"),
                        0);
  CU_ASSERT_EQUAL(faultline("report good.sqlite"), 0);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "good "), 2); /* 2 groups */
  CU_ASSERT_EQUAL(faultline("rerun good.sqlite 2"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "identical"));
  CU_ASSERT_EQUAL(faultline("rerun good.sqlite 5"), 0); /* a row with an override */
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "identical"));
  CU_ASSERT_EQUAL(faultline("rerun good.sqlite 77"), 2);
}

static void test_shipped_scenarios(void)
{
  char args[2048];
  /* the trace replay on a cluster platform file is deterministic */
  snprintf(args, sizeof args, "simulate '%s' --db trace.sqlite --quiet", fl_test_src("scenarios/trace-replay.ini"));
  CU_ASSERT_EQUAL_FATAL(faultline(args), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "trace-replay"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, " 6 ")); /* 6 failures of job nodes in the trace */
  snprintf(args, sizeof args, "simulate '%s' --db quick.sqlite --quiet --replicas 5",
           fl_test_src("scenarios/quickstart.ini"));
  CU_ASSERT_EQUAL(faultline(args), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "quickstart"));
  /* the grid-world experiment sweeps 3 strategies x 2 weightings: 5 groups (replication ignores weights) */
  snprintf(args, sizeof args, "simulate '%s' --db das.sqlite --quiet --replicas 2",
           fl_test_src("scenarios/das-10x10.ini"));
  CU_ASSERT_EQUAL(faultline(args), 0);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "das-10x10 "), 5);
  CU_ASSERT_EQUAL(faultline("report das.sqlite --csv"), 0);
  /* replication's runs once (not 4: a second weighting would repeat them); typed: the weighting a column */
  CU_ASSERT_PTR_NOT_NULL(
      strstr(out_text, "\"das-10x10\",sim,\"gridworld\",\"replication\",\"exponential\",20,\"bound\",2,2,0,"));
  CU_ASSERT_PTR_NULL(strstr(out_text, "\"replication\",\"exponential\",20,\"empirical\""));
  CU_ASSERT_PTR_NOT_NULL(
      strstr(out_text, "\"das-10x10\",sim,\"gridworld\",\"hybrid\",\"exponential\",20,\"empirical\","));
  CU_ASSERT_EQUAL(faultline("rerun das.sqlite 8"), 0); /* a row of a swept combination re-runs too */
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "identical"));
  /* a sweep term that is not section.key=values */
  write_file("good.ini", GOOD);
  /* a term may set keys together */
  unlink(fl_test_tmp("z.sqlite"));
  CU_ASSERT_EQUAL(faultline("simulate good.ini --db z.sqlite --quiet "
                            "--sweep strategy.kind+strategy.checkpoint_cost=checkpoint/1min,buddy/10s"),
                  0);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "good "), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "buddy"));
  CU_ASSERT_EQUAL(faultline("rerun z.sqlite 5"), 0); /* a buddy row, with both keys as overrides */
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "identical"));
  CU_ASSERT_EQUAL(faultline("simulate good.ini --db s.sqlite --sweep strategy.kind+strategy.checkpoint_cost=buddy"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "fewer parts than keys"));
  CU_ASSERT_FALSE(exists("s.sqlite"));
  CU_ASSERT_EQUAL(faultline("simulate good.ini --db s.sqlite --sweep strategy"), 2);
  CU_ASSERT_FALSE(exists("s.sqlite"));
  CU_ASSERT_EQUAL(faultline("simulate good.ini --db s.sqlite --sweep strategy.kind=checkpoint,teleport"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--sweep strategy.kind=teleport: ")); /* every combination is checked first */
  CU_ASSERT_FALSE(exists("s.sqlite"));
}

/* Rows that differ in an override no column shows (a swept Weibull shape, a checkpoint cadence of a real run)
 * are different experiments: never averaged together, and labelled by that override; rows that differ only in
 * seed, replicas or database are one experiment. */
static void test_report_groups_by_overrides(void)
{
  write_file("w.ini", "[run]\nreplicas = 4\n[platform]\nnodes = 40\n[failures]\nmodel = weibull\nnode_mtbf = 20d\n"
                      "[app]\nnodes = 32\nwork = 12h\n");
  unlink(fl_test_tmp("w.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate w.ini --db w.sqlite --quiet --sweep failures.shape=0.5,0.9"), 0);
  CU_ASSERT_EQUAL_FATAL(faultline("simulate w.ini --db w.sqlite --quiet --seed 9 --replicas 3"), 0);
  CU_ASSERT_EQUAL(faultline("report w.sqlite"), 0);
  /* the override that varies is a column of its own; the file's own shape reads "-" */
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "scenario  failures.shape  mode"));
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw         0.5  "), 1);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw         0.9  "), 1);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw         -  "), 1); /* seed and replicas do not split */
  CU_ASSERT_EQUAL(count_lines_with(out_text, " 4  "), 2);            /* 4 runs per shape */
  /* the same as Markdown; --where filters with SQL on the runs table; a bad condition is one line, exit 2 */
  CU_ASSERT_EQUAL(faultline("report w.sqlite --format markdown"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "| scenario | failures.shape | mode |"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "| w | 0.5 | sim |"));
  CU_ASSERT_EQUAL(faultline("report w.sqlite --where \"overrides LIKE '%shape=0.9%'\""), 0);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw  "), 1);
  CU_ASSERT_PTR_NULL(strstr(out_text, "0.5"));
  /* JSON: valid (SQLite's own JSON1 reads it), one object per row, the varying key among its members */
  CU_ASSERT_EQUAL(faultline("report w.sqlite --format json"), 0);
  {
    sqlite3 *m = NULL;
    sqlite3_stmt *q = NULL;
    long n = -1;
    if (sqlite3_open(":memory:", &m) == SQLITE_OK &&
        sqlite3_prepare_v2(m,
                           "SELECT json_valid(?1), json_array_length(?1, '$.groups'), "
                           "json_type(?1, '$.groups[0].keys.\"failures.shape\"') = 'real'",
                           -1, &q, NULL) == SQLITE_OK) {
      sqlite3_bind_text(q, 1, out_text, -1, SQLITE_STATIC);
      if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1 && sqlite3_column_int(q, 2) == 1)
        n = sqlite3_column_int(q, 1);
    }
    sqlite3_finalize(q);
    sqlite3_close(m);
    CU_ASSERT_EQUAL(n, 3);
  }
  CU_ASSERT_EQUAL(faultline("report w.sqlite --where \"nodes >\""), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--where 'nodes >': "));
  /* an override whose value holds blanks is one column, whole, beside the next key */
  unlink(fl_test_tmp("v.sqlite"));
  for (int k = 4; k <= 8; k += 4) {
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "simulate w.ini --db v.sqlite --quiet --set strategy.kind=multilevel --set \"strategy.levels=local:1 "
             "file:%d\" --set failures.shape=0.%d",
             k, k + 1);
    CU_ASSERT_EQUAL_FATAL(faultline(cmd), 0);
  }
  CU_ASSERT_EQUAL(faultline("report v.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "strategy.levels  failures.shape"));
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw         local:1 file:4   0.5  "), 1);
  CU_ASSERT_EQUAL(count_lines_with(out_text, "\nw         local:1 file:8   0.9  "), 1);
  /* rows in the order of the swept keys, the slowest first, each by its value (26 weeks, 2 years, 10 years: not
   * "10y" before "2y" as text, not by interval first) */
  unlink(fl_test_tmp("o.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate w.ini --db o.sqlite --quiet --replicas 2 --sweep "
                                  "failures.node_mtbf=10y,2y,26w --sweep strategy.kind=none,checkpoint"),
                        0);
  CU_ASSERT_EQUAL(faultline("report o.sqlite"), 0);
  {
    static const char *const want[] = {"checkpoint", "182d", "none",       "182d", "checkpoint", "2y",
                                       "none",       "2y",   "checkpoint", "10y",  "none",       "10y"};
    const char *p = strchr(out_text, '\n');
    for (int i = 0; i < 12 && p; i += 2) {
      const char *eol = strchr(p + 1, '\n');
      char line[512];
      snprintf(line, sizeof line, "%.*s", eol ? (int)(eol - p - 1) : 200, p + 1);
      CU_ASSERT_PTR_NOT_NULL(strstr(line, want[i]));
      CU_ASSERT_PTR_NOT_NULL(strstr(line, want[i + 1]));
      if (!strstr(line, want[i]) || !strstr(line, want[i + 1]))
        fprintf(stderr, "\n    row %d: %s", i / 2, line);
      p = eol;
    }
  }
  /* one unit per column: 100 s beside 3 min reads 1.67min beside 3min (3 significant digits for a mean, 2 for its
   * interval), not 100s beside 3min */
  unlink(fl_test_tmp("u.sqlite"));
  CU_ASSERT_EQUAL_FATAL(
      faultline(
          "simulate w.ini --db u.sqlite --quiet --replicas 2 --set failures.model=none --set strategy.interval=never "
          "--sweep app.work=100s,3min"),
      0);
  CU_ASSERT_EQUAL(faultline("report u.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, " 1.67min ± 0min "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, " 3min ± 0min "));
  CU_ASSERT_PTR_NULL(strstr(out_text, "100s ±")); /* the key column says 100s: the makespan column does not */
  /* the interval column too: 90 s beside 3 h reads 0.025h */
  unlink(fl_test_tmp("iv.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate w.ini --db iv.sqlite --quiet --replicas 1 --set failures.model=none "
                                  "--sweep strategy.interval=90s,3h"),
                        0);
  CU_ASSERT_EQUAL(faultline("report iv.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, " 0.025h "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, " 3h "));
  /* the hazard rule's intervals come from the nodes' ages: the report names the rule, no single interval */
  unlink(fl_test_tmp("hz.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate w.ini --db hz.sqlite --quiet --replicas 2 --set strategy.interval=hazard "
                                  "--set failures.node_mtbf=2y"),
                        0);
  CU_ASSERT_EQUAL(faultline("report hz.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "  checkpoint  hazard  "));
  CU_ASSERT_PTR_NULL(strstr(out_text, "h hazard"));
}

static void test_validate(void)
{
  CU_ASSERT_EQUAL(faultline("validate --only daly-example --replicas 300 --quiet"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "daly:daly-example"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "pass"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "0 checks failed"));
  {
    /* on two worker processes: the same replicas, so the same table to the last digit */
    char *one = strdup(out_text);
    CU_ASSERT_EQUAL(faultline("validate --only daly-example --replicas 300 --quiet --jobs 2"), 0);
    CU_ASSERT_STRING_EQUAL(out_text, one);
    free(one);
  }
  CU_ASSERT_EQUAL(faultline("validate --replicas 1"), 2);
  CU_ASSERT_EQUAL(faultline("validate --jobs 0"), 2);
}

static void test_help(void)
{
  CU_ASSERT_EQUAL(faultline("help"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "simulate"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "validate"));
  CU_ASSERT_EQUAL(faultline("help simulate"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "weibull"));
  /* usage lines take the registries' names where they stand: every format `report --format` accepts, every batch
   * scheduler; no placeholder left */
  CU_ASSERT_EQUAL(faultline("help report"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--format table|markdown|csv|json]"));
  CU_ASSERT_PTR_NULL(strstr(out_text, "{formats}"));
  CU_ASSERT_EQUAL(faultline("help workload"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "--scheduler fcfs|easy|conservative]"));
  CU_ASSERT_PTR_NULL(strstr(out_text, "{schedulers}"));
  CU_ASSERT_EQUAL(faultline("keys"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "failures.node_mtbf"));
}

/* Daly's expected makespan beside the simulated mean: with repairs too when spares took every failed node's place
 * (the expectation is exact: the simulated mean lands near it); when the job waited for repaired nodes, said. */
static void test_daly_with_repairs(void)
{
  write_file("dr.ini", "[run]\nreplicas = 20\n[platform]\nnodes = 1100\n[failures]\nmodel = exponential\n"
                       "node_mtbf = 2y\nrepair = 4h\n[app]\nnodes = 1024\nwork = 24h\n[strategy]\n"
                       "checkpoint_cost = 5min\nrestart_cost = 5min\n");
  unlink(fl_test_tmp("dr.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate dr.ini --db dr.sqlite"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "Daly's expected makespan for exponential failures"));
  CU_ASSERT_EQUAL(fl_cli_query("dr.sqlite", "SELECT MAX(wait_nodes_s) FROM runs"), 0.0);
  unlink(fl_test_tmp("dr2.sqlite"));
  CU_ASSERT_EQUAL_FATAL(faultline("simulate dr.ini --db dr2.sqlite --set platform.nodes=1024 --replicas 10"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out_text, "is not the expectation here: the runs waited"));
  CU_ASSERT(fl_cli_query("dr2.sqlite", "SELECT AVG(wait_nodes_s) FROM runs WHERE status = 'completed'") > 0);
}

/* simulate --jobs 2 writes the database --jobs 1 writes: the same rows in the same order (every column but the host's
 * times and the database path in the overrides), the same events, for a bsp job with every event logged, a task
 * graph (whose replicas run in children of the workers) and a grid world. */
static void test_jobs_same_rows(void)
{
  static const char *const cases[][2] = {{"quickstart.ini", "--replicas 12 --set failures.node_mtbf=60d"},
                                         {"workflow-epigenomics.ini", "--replicas 4"},
                                         {"das-10x10.ini", "--replicas 4"}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char cmd[2048], q[4096], a[64], b[600];
    for (int j = 1; j <= 2; j++) {
      snprintf(cmd, sizeof cmd, "simulate '%s/%s' --db jobs%d-%zu.sqlite --quiet --jobs %d --events all %s",
               fl_test_src("scenarios"), cases[c][0], j, c, j, cases[c][1]);
      CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(cmd, 600), 0);
    }
    snprintf(a, sizeof a, "jobs1-%zu.sqlite", c);
    snprintf(b, sizeof b, "%s/jobs2-%zu.sqlite", fl_test_tmpdir(), c);
    CU_ASSERT(fl_cli_query(a, "SELECT COUNT(*) FROM runs") > 1);
    /* every column of each row but wall_s, created_at, policy_time_s and overrides, compared in SQL */
    snprintf(q, sizeof q,
             "SELECT (SELECT COUNT(*) FROM runs) + (SELECT COUNT(*) FROM events) - "
             "(SELECT COUNT(*) FROM runs r JOIN other.runs o ON r.id = o.id WHERE r.row_key IS o.row_key AND "
             "r.makespan_s IS o.makespan_s AND r.status IS o.status AND r.failures IS o.failures AND r.interruptions "
             "IS o.interruptions AND r.checkpoints IS o.checkpoints AND r.lost_work_s IS o.lost_work_s AND "
             "r.energy_j IS o.energy_j AND r.work_s IS o.work_s AND r.error_spent IS o.error_spent AND "
             "r.tasks_replicated IS o.tasks_replicated AND r.tasks_substituted IS o.tasks_substituted AND "
             "r.error_linf IS o.error_linf AND r.failure_free_s IS o.failure_free_s AND r.node_hours IS "
             "o.node_hours) - (SELECT COUNT(*) FROM events e JOIN other.events f ON e.id = f.id WHERE e.t_s IS f.t_s "
             "AND e.kind IS f.kind AND e.node IS f.node AND e.rank IS f.rank AND e.peer IS f.peer AND e.n IS f.n AND "
             "e.value IS f.value AND e.level IS f.level AND e.label IS f.label)");
    {
      /* the comparison runs in a's connection with b attached */
      sqlite3 *h = NULL;
      sqlite3_stmt *st = NULL;
      char attach[700], path[700];
      snprintf(path, sizeof path, "%s/%s", fl_test_tmpdir(), a);
      snprintf(attach, sizeof attach, "ATTACH '%s' AS other", b);
      CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
      CU_ASSERT_EQUAL(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
      CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
      CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
      CU_ASSERT_EQUAL(sqlite3_column_int64(st, 0), 0);
      if (sqlite3_column_int64(st, 0) != 0)
        fprintf(stderr, "\n    %s: %lld rows or events differ between --jobs 1 and 2\n", cases[c][0],
                (long long)sqlite3_column_int64(st, 0));
      sqlite3_finalize(st);
      sqlite3_close(h);
    }
  }
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate x.ini --jobs 0", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--jobs"));
}

/* A worker process killed in the middle (as the out-of-memory killer would): the replica it was simulating has no
 * row, a new worker takes its next ones, every other row is written, the command says which replica and exits 1;
 * the same command again simulates only that replica, and the rows are then those of --jobs 1. Without --jobs,
 * every core this process may use (sched_getaffinity), as the closing line says. */
static void test_jobs_worker_dies(void)
{
  const long n = 2000;
  char scen[600], err[700], line[1400], nstr[32], *tail;
  pid_t pid;
  int st = 0, killed = 0, said = 0;
  FILE *f;
  snprintf(scen, sizeof scen, "%s/quickstart.ini", fl_test_src("scenarios"));
  snprintf(err, sizeof err, "%s/kill.err", fl_test_tmpdir());
  snprintf(nstr, sizeof nstr, "%ld", n);
  unlink(fl_test_tmp("kill.sqlite"));
  fflush(NULL);
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    if (chdir(fl_test_tmpdir()) != 0 || !freopen("/dev/null", "w", stdout) || !freopen(err, "w", stderr))
      _exit(127);
    execl(getenv("FAULTLINE"), "faultline", "simulate", scen, "--replicas", nstr, "--set", "failures.node_mtbf=60d",
          "--set", "app.work=30d", "--events", "none", "--jobs", "2", "--db", "kill.sqlite", (char *)NULL);
    _exit(127);
  }
  /* once rows are coming, kill the first worker (a child of the command) */
  for (int i = 0; i < 6000 && !killed; i++) {
    char path[64], kids[256] = "";
    double rows = fl_cli_query("kill.sqlite", "SELECT COUNT(*) FROM runs");
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    if (rows >= 100 && rows < n / 2 && (f = fopen(path, "r"))) {
      if (fgets(kids, sizeof kids, f) && atol(kids) > 0)
        killed = kill((pid_t)atol(kids), SIGKILL) == 0;
      fclose(f);
    }
    if (!killed)
      usleep(5000);
  }
  CU_ASSERT_FATAL(killed);
  while (waitpid(pid, &st, 0) < 0)
    ;
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 1);
  CU_ASSERT_EQUAL(fl_cli_query("kill.sqlite", "SELECT COUNT(*) FROM runs"), n - 1);
  if ((f = fopen(err, "r"))) {
    while (fgets(line, sizeof line, f))
      said += strstr(line, "its worker process died of signal 9") != NULL &&
              strstr(line, "no row for it, the others go on") != NULL;
    fclose(f);
  }
  CU_ASSERT_EQUAL(said, 1);
  /* the same command again: the one replica missing */
  snprintf(line, sizeof line,
           "simulate '%s' --replicas %ld --set failures.node_mtbf=60d --set app.work=30d --events none --jobs 2 --db "
           "kill.sqlite",
           scen, n);
  CU_ASSERT_EQUAL(fl_cli_run_limited(line, 300), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "1 row written"));
  CU_ASSERT_EQUAL(fl_cli_query("kill.sqlite", "SELECT COUNT(*) FROM runs"), n);
  /* every row as --jobs 1 writes it (found by its key), run with no --jobs under one core */
  tail = line + snprintf(line, sizeof line,
                         "simulate '%s' --replicas %ld --set failures.node_mtbf=60d --set "
                         "app.work=30d --events none --db one.sqlite",
                         scen, n);
  (void)tail;
  unlink(fl_test_tmp("one.sqlite"));
  {
    char cmd[3000];
    snprintf(cmd, sizeof cmd, "cd '%s' && taskset -c 0 '%s' %s 2>one.err >/dev/null", fl_test_tmpdir(),
             getenv("FAULTLINE"), line);
    CU_ASSERT_EQUAL(system(cmd), 0);
  }
  if ((f = fopen(fl_test_tmp("one.err"), "r"))) {
    int one = 0;
    while (fgets(line, sizeof line, f))
      one += strstr(line, "runs in") != NULL && strstr(line, "in one process") != NULL;
    fclose(f);
    CU_ASSERT_EQUAL(one, 1);
  }
  {
    sqlite3 *h = NULL;
    sqlite3_stmt *q = NULL;
    char attach[800];
    snprintf(line, sizeof line, "%s/one.sqlite", fl_test_tmpdir());
    snprintf(attach, sizeof attach, "ATTACH '%s/kill.sqlite' AS other", fl_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(line, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h,
                                             "SELECT COUNT(*) FROM runs r JOIN other.runs o ON r.row_key = o.row_key "
                                             "WHERE r.makespan_s IS o.makespan_s AND r.failures IS o.failures AND "
                                             "r.status IS o.status AND r.energy_j IS o.energy_j",
                                             -1, &q, NULL),
                          SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(q), SQLITE_ROW);
    CU_ASSERT_EQUAL(sqlite3_column_int64(q, 0), n);
    sqlite3_finalize(q);
    sqlite3_close(h);
  }
  /* without --jobs: every core this process may use */
  {
    cpu_set_t set;
    char want[64];
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof set, &set), 0);
    snprintf(want, sizeof want, CPU_COUNT(&set) > 1 ? "on %d worker processes" : "in one process", CPU_COUNT(&set));
    unlink(fl_test_tmp("all.sqlite"));
    snprintf(line, sizeof line, "simulate '%s' --replicas 50 --db all.sqlite", scen);
    CU_ASSERT_EQUAL(fl_cli_run_limited(line, 300), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, want));
  }
}

/* Start `faultline simulate` of quickstart's n replicas on two workers in a process group of its own, SIGINT as a
 * terminal's (ignore = 0) or as a background job's (ignored); returns its pid. */
static pid_t spawn_group(long n, int ignore, const char *db)
{
  char scen[600], nstr[32];
  pid_t pid;
  snprintf(scen, sizeof scen, "%s/quickstart.ini", fl_test_src("scenarios"));
  snprintf(nstr, sizeof nstr, "%ld", n);
  fflush(NULL);
  pid = fork();
  if (pid == 0) {
    signal(SIGINT, ignore ? SIG_IGN : SIG_DFL);
    setpgid(0, 0);
    if (chdir(fl_test_tmpdir()) != 0 || !freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
      _exit(127);
    execl(getenv("FAULTLINE"), "faultline", "simulate", scen, "--replicas", nstr, "--set", "failures.node_mtbf=60d",
          "--set", "app.work=30d", "--events", "none", "--jobs", "2", "--db", db, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Spawn the run (spawn_group), once it has written 100 rows send SIGINT to its process group, and return how it
 * ended (waitpid's status). */
static int interrupt_run(long n, int ignore, const char *db)
{
  double rows = 0;
  int st = 0;
  pid_t pid = spawn_group(n, ignore, db);
  CU_ASSERT_FATAL(pid > 0);
  for (int i = 0; i < 6000 && !(rows >= 100); i++) {
    rows = fl_cli_query(db, "SELECT COUNT(*) FROM runs");
    if (!(rows >= 100))
      usleep(5000);
  }
  kill(-pid, SIGINT);
  while (waitpid(pid, &st, 0) < 0)
    ;
  return st;
}

/* Ctrl-C (SIGINT to the process group) stops the command and every worker, ended by the signal, keeping the rows
 * written; the same command again simulates the rest. As a background job (SIGINT ignored) nothing stops: the
 * workers ignore what their parent ignores. */
static void test_jobs_interrupted(void)
{
  const long n = 3000;
  int st;
  double rows;
  char cmd[1024];
  unlink(fl_test_tmp("int.sqlite"));
  st = interrupt_run(n, 0, "int.sqlite");
  CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
  usleep(300000);
  rows = fl_cli_query("int.sqlite", "SELECT COUNT(*) FROM runs");
  CU_ASSERT(rows >= 100 && rows < n);
  usleep(300000); /* no worker writes on */
  CU_ASSERT_EQUAL(fl_cli_query("int.sqlite", "SELECT COUNT(*) FROM runs"), rows);
  snprintf(cmd, sizeof cmd,
           "simulate '%s/quickstart.ini' --replicas %ld --set failures.node_mtbf=60d --set app.work=30d --events none "
           "--jobs 2 --db int.sqlite",
           fl_test_src("scenarios"), n);
  CU_ASSERT_EQUAL(fl_cli_run_limited(cmd, 300), 0);
  CU_ASSERT_EQUAL(fl_cli_query("int.sqlite", "SELECT COUNT(DISTINCT replica) FROM runs"), n);
  /* a background job's SIGINT: ignored by the command and its workers alike */
  unlink(fl_test_tmp("bg.sqlite"));
  st = interrupt_run(n, 1, "bg.sqlite");
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CU_ASSERT_EQUAL(fl_cli_query("bg.sqlite", "SELECT COUNT(*) FROM runs"), n);
}

/* A key of a strategy's or a failure law's own given where nothing reads it: exit 2, one line naming where it was
 * given and who would read it, no database; in a sweep where some combination reads it, accepted. */
static void test_unread_keys(void)
{
  fl_cli_write("unread.ini", "[app]\nnodes = 10\nwork = 1h\n[strategy]\nkind = checkpoint\ndegree = 3\n");
  unlink(fl_test_tmp("unread.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate unread.ini --db unread.sqlite", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "unread.ini:6: [strategy] degree = '3': read by strategy replication"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_FALSE(fl_cli_exists("unread.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate unread.ini --db unread.sqlite --set strategy.kind=replication --set "
                                     "platform.nodes=40 --set failures.shape=0.5",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set failures.shape=0.5: read by failure models"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "draws failures.model = exponential"));
  /* the file's key, made unread by the command line's choice of another strategy: a warning, not a refusal (a
   * scenario file may hold settings for several strategies) */
  fl_cli_write("several.ini", "[app]\nnodes = 10\nwork = 1h\n[strategy]\nkind = replication\ndegree = 3\n");
  unlink(fl_test_tmp("several.sqlite"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate several.ini --db several.sqlite --set strategy.kind=checkpoint "
                                     "--replicas 2 --quiet",
                                     60),
                  0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "warning: strategy.degree of the scenario file is read by strategy "
                                            "replication; the command line chose another strategy.kind"));
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("simulate unread.ini --db unread.sqlite --sweep strategy.kind=checkpoint,replication "
                         "--set platform.nodes=40 --replicas 2 --quiet",
                         60),
      0);
}

static CU_TestInfo cli_tests[] = {
    {"bad input: exit 2, one line, nothing written", test_bad_input},
    {"simulate, report, rerun", test_simulate_report_rerun},
    {"Torus, Fat-Tree and Dragonfly clusters", test_topology_clusters},
    {"shipped scenarios", test_shipped_scenarios},
    {"report groups by overrides", test_report_groups_by_overrides},
    {"Daly's expectation with repairs", test_daly_with_repairs},
    {"validate", test_validate},
    {"help and keys", test_help},
    {"simulate --jobs 2 writes what --jobs 1 writes", test_jobs_same_rows},
    {"a worker killed: its replica has no row, the others go on, a rerun fills it in", test_jobs_worker_dies},
    {"Ctrl-C stops every worker, keeps the rows; a background job's SIGINT stops none", test_jobs_interrupted},
    {"a strategy's or a failure law's key nothing reads is refused", test_unread_keys},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"cli", NULL, NULL, NULL, NULL, cli_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
