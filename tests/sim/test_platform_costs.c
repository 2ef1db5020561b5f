/* test_platform_costs.c — the simulator sees the machine (strategy.cost = platform): checkpoint and restart costs
 * simulated as SimGrid transfers and disk accesses on a generated platform and on a platform file with a PFS
 * host named in [storage]; compute at the hosts' speed (app.flops); the validate checks of platform costs
 * (N S / B, halving B, link-bound buddy copies, aggregated = per-rank flows at 1,000 nodes); bad [storage] input
 * is one line naming file, key and value, exit 2, no row. */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One number from the database `db` (in the temporary directory); NAN if none. */
static const char *const GEN = "[run]\nname = pc\nseed = 5\nreplicas = 2\nevents = none\n"
                               "[platform]\nnodes = 520\ncabinet = 64\npfs_servers = 2\npfs_bandwidth = 2GBps\n"
                               "[failures]\nmodel = exponential\nnode_mtbf = 2y\nrepair = 1h\n"
                               "[app]\nkind = bsp\nnodes = 512\nwork = 12h\ncheckpoint_size = 2GB\n"
                               "[strategy]\nkind = checkpoint\ninterval = daly\n";

/* The PFS's disks are the bottleneck: 512 x 2 GB over 2 x 2 GB/s = 256 s; a tenth of the bandwidth, ten times
 * that, and a different makespan (the complaint that started this: every row was identical). */
static void test_generated_pfs(void)
{
  double c1, c2, m1, m2;
  fl_cli_write("pc.ini", GEN);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate pc.ini --db a.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate pc.ini --db b.sqlite --quiet --set platform.pfs_bandwidth=0.2GBps", 120), 0);
  c1 = fl_cli_query("a.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  c2 = fl_cli_query("b.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  m1 = fl_cli_query("a.sqlite", "SELECT avg(makespan_s) FROM runs");
  m2 = fl_cli_query("b.sqlite", "SELECT avg(makespan_s) FROM runs");
  CU_ASSERT_DOUBLE_EQUAL(c1, 256.0, 256.0 * 0.02);
  CU_ASSERT_DOUBLE_EQUAL(c2 / c1, 10.0, 0.2);
  CU_ASSERT(m2 > m1 * 1.05);
  /* the restart reads the same bytes back from the same disks */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("a.sqlite", "SELECT restart_cost_s FROM runs LIMIT 1"), 256.0, 256.0 * 0.02);
  /* strategy.cost = constant keeps the scenario's constants (Daly's validation stays exact) */
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate pc.ini --db c.sqlite --quiet --set strategy.cost=constant "
                                           "--set strategy.checkpoint_cost=7min",
                                           120),
                        0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("c.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1"), 420.0, 1e-9);
  /* auto without PFS servers falls back to the constants */
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate pc.ini --db d.sqlite --quiet --set platform.pfs_servers=0", 120), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("d.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1"), 300.0, 1e-9);
}

/* Buddy copies cross the cabinets' uplinks: a narrower uplink makes them slower; per-rank and aggregated flows
 * give the same cost. */
static void test_generated_buddy(void)
{
  double wide, narrow, agg;
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate pc.ini --db e.sqlite --quiet --set strategy.kind=buddy", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate pc.ini --db f.sqlite --quiet --set strategy.kind=buddy "
                                           "--set platform.cabinet_bandwidth=20GBps",
                                           120),
                        0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate pc.ini --db g.sqlite --quiet --set strategy.kind=buddy "
                                           "--set platform.cabinet_bandwidth=20GBps --set platform.io_flows=aggregated",
                                           120),
                        0);
  wide = fl_cli_query("e.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  narrow = fl_cli_query("f.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  agg = fl_cli_query("g.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  CU_ASSERT(wide > 0 && narrow > 5 * wide); /* 64 x 2 GB through 20 GB/s: >= 6.4 s */
  CU_ASSERT(narrow >= 64 * 2e9 / 20e9);
  CU_ASSERT_DOUBLE_EQUAL(agg / narrow, 1.0, 0.02);
}

/* app.flops: the job computes at its hosts' speed; doubling it halves the failure-free time. */
static void test_flops(void)
{
  const char *base = "simulate pc.ini --quiet --set failures.model=none --set strategy.kind=none "
                     "--set app.flops=3.6Tf";
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s --db h.sqlite", base);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(cmd, 120), 0);
  snprintf(cmd, sizeof cmd, "%s --db i.sqlite --set platform.node_speed=2Gf", base);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(cmd, 120), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("h.sqlite", "SELECT makespan_s FROM runs LIMIT 1"), 3600.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("i.sqlite", "SELECT makespan_s FROM runs LIMIT 1"), 1800.0, 1e-6);
}

/* A platform file in SimGrid's own Cluster-zone form: 8 compute hosts and one storage host with a 2 GB/s disk;
 * fast links, so 8 ranks x 1 GB take 4 s on the storage host's disk. */
static const char *const XML =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n<zone id=\"site\" routing=\"Cluster\">\n"
    "<host id=\"controller\" speed=\"1Gf\"/>\n"
    "<link id=\"controller-l\" bandwidth=\"100GBps\" latency=\"1us\"/>\n"
    "<host_link id=\"controller\" up=\"controller-l\" down=\"controller-l\"/>\n"
    "%s"
    "<host id=\"io-0\" speed=\"1Gf\"><disk id=\"ost\" read_bw=\"2GBps\" write_bw=\"2GBps\"/></host>\n"
    "<link id=\"io-0-l\" bandwidth=\"100GBps\" latency=\"1us\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "<host_link id=\"io-0\" up=\"io-0-l_UP\" down=\"io-0-l_DOWN\"/>\n"
    "<backbone id=\"bb\" bandwidth=\"1000GBps\" latency=\"1us\"/>\n"
    "</zone>\n</platform>\n";

static void test_file_platform(void)
{
  char hosts[4096] = "", xml[8192];
  for (int i = 0; i < 8; i++)
    snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts),
             "<host id=\"cn-%d\" speed=\"1Gf\"/>\n<link id=\"cn-%d-l\" bandwidth=\"100GBps\" latency=\"1us\" "
             "sharing_policy=\"SPLITDUPLEX\"/>\n<host_link id=\"cn-%d\" up=\"cn-%d-l_UP\" down=\"cn-%d-l_DOWN\"/>\n",
             i, i, i, i, i);
  snprintf(xml, sizeof xml, XML, hosts);
  fl_cli_write("site.xml", xml);
  fl_cli_write("site.ini", "[run]\nname = site\nreplicas = 1\nevents = none\n[platform]\nfile = site.xml\n"
                           "[failures]\nmodel = none\n[app]\nkind = bsp\nwork = 1h\ncheckpoint_size = 1GB\n"
                           "[strategy]\nkind = checkpoint\ninterval = 10min\n[storage]\npfs = io-0\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate site.ini --db s.sqlite --quiet", 120), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("s.sqlite", "SELECT checkpoint_cost_s FROM runs"), 4.0, 4.0 * 0.02);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("s.sqlite", "SELECT nodes FROM runs"), 8.0, 0); /* io-0 runs no rank */
  /* zone:ID names every host of a zone: here the whole site, whose compute hosts have no disk */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate site.ini --db t.sqlite --quiet --set storage.pfs=zone:site", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set storage.pfs=zone:site: host 'cn-0' has no <disk>"));
  CU_ASSERT_FALSE(fl_cli_exists("t.sqlite"));
}

static void test_bad_storage(void)
{
  static const struct {
    const char *set, *expect;
  } cases[] = {
      {"storage.pfs=nosuchhost", "--set storage.pfs=nosuchhost: no host 'nosuchhost' on the platform"},
      {"storage.pfs=cn-3", "--set storage.pfs=cn-3: host 'cn-3' has no <disk>"},
      {"storage.pfs=zone:nowhere", "--set storage.pfs=zone:nowhere: the platform has no zone 'nowhere'"},
      {"app.checkpoint_size=0 --set strategy.cost=platform",
       "--set app.checkpoint_size=0: platform costs need the bytes each rank checkpoints"},
      {"app.checkpoint_size=-1GB", "--set app.checkpoint_size=-1GB: must not be negative"},
      {"platform.pfs_bandwidth=0GBps", "--set platform.pfs_bandwidth=0GBps: must be positive"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "simulate site.ini --db bad.sqlite --quiet --set %s", cases[i].set);
    CU_ASSERT_EQUAL(fl_cli_run_limited(cmd, 60), 2);
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    if (!strstr(fl_cli_err, cases[i].expect))
      fprintf(stderr, "case %zu: got: %s", i, fl_cli_err);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, cases[i].expect));
    CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
  }
  /* generated: the file level without PFS servers, when asked for platform costs */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate pc.ini --db bad.sqlite --quiet --set platform.pfs_servers=0 "
                                     "--set strategy.cost=platform",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set platform.pfs_servers=0: the file level needs PFS servers"));
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
  /* a key from the file is named with its file and line */
  fl_cli_write("bad.ini", "[run]\nname = site\nreplicas = 1\nevents = none\n[platform]\nfile = site.xml\n"
                          "[failures]\nmodel = none\n[app]\nkind = bsp\nwork = 1h\ncheckpoint_size = 1GB\n"
                          "[strategy]\nkind = checkpoint\ninterval = 10min\n[storage]\npfs = io-9\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate bad.ini --db bad.sqlite --quiet", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "bad.ini:17: [storage] pfs = 'io-9': no host 'io-9' on the platform"));
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
  /* nodes in two clusters the platform does not connect: SimGrid aborted ("Bad gateways") on the first buddy copy;
   * now one line naming the hosts and zones */
  fl_cli_write("split.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                            "<platform version=\"4.1\"><zone id=\"top\" routing=\"Full\">"
                            "<zone id=\"a\" routing=\"None\"><host id=\"controller\" speed=\"1Gf\"/></zone>"
                            "<cluster id=\"c1\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" "
                            "lat=\"1us\"/><cluster id=\"c2\" prefix=\"m-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" "
                            "bw=\"1GBps\" lat=\"1us\"/></zone></platform>\n");
  fl_cli_write("split.ini",
               "[run]\nreplicas = 1\nevents = none\n[platform]\nfile = split.xml\n[failures]\nmodel = none\n"
               "[app]\nnodes = 6\nwork = 1h\ncheckpoint_size = 1GB\n[strategy]\nkind = buddy\ncost = platform\n"
               "interval = 10min\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate split.ini --db bad.sqlite --quiet", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT(strstr(fl_cli_err, "split.ini:5: [platform] file = 'split.xml': no route from host") &&
            strstr(fl_cli_err, "zone 'c1'") && strstr(fl_cli_err, "zone 'c2'"));
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
}

/* Costs asked of a platform that cannot price them (strategy.cost = auto, app.checkpoint_size given, no PFS
 * server): the constant costs are used and the command says so and why, once for a sweep of two points, in one
 * line; nothing is said when the costs are the platform's, or constant as asked, or no size asks for them. */
static void test_cost_fallback_said(void)
{
  static const char *const quiet[] = {"", "--set strategy.cost=constant", "--set platform.pfs_servers=2",
                                      "--set app.checkpoint_size=0"};
  char args[512];
  fl_cli_write("fb.ini", "[run]\nreplicas = 2\nevents = none\n[platform]\nnodes = 40\n[failures]\nnode_mtbf = 1y\n"
                         "[app]\nnodes = 32\nwork = 6h\ncheckpoint_size = 1GiB\n[strategy]\nkind = checkpoint\n"
                         "interval = 30min\ncheckpoint_cost = 1min\nrestart_cost = 1min\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate fb.ini --db fb.sqlite --quiet --sweep failures.node_mtbf=1y,2y", 60), 0);
  {
    /* faultline's own lines (a sanitizer build adds its own about SimGrid's stack switches) */
    int lines = 0;
    for (const char *p = fl_cli_err; (p = strstr(p, "faultline: ")) != NULL; p++)
      lines += p == fl_cli_err || p[-1] == '\n';
    CU_ASSERT_EQUAL(lines, 1);
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "faultline: warning: fb: app.checkpoint_size = 1GiB asks for checkpoint "
                                            "costs from the platform, but platform.pfs_servers is 0: the constant"));
  /* the rows carry the constant costs that were used */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("fb.sqlite", "SELECT MIN(checkpoint_cost_s) FROM runs"), 60.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("fb.sqlite", "SELECT MAX(checkpoint_cost_s) FROM runs"), 60.0, 1e-9);
  for (size_t k = 1; k < sizeof quiet / sizeof quiet[0]; k++) {
    snprintf(args, sizeof args, "simulate fb.ini --db fb%zu.sqlite --quiet %s", k, quiet[k]);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 60), 0);
    CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "warning"));
  }
}

/* A row whose file-level costs came from aggregated flows split per server (few cabinets) and that differs on
 * re-simulation (as one written before that split does: its stored cost is changed here) is flagged by rerun in
 * one line; a row priced per rank that differs is not. */
static void test_rerun_aggregated_note(void)
{
  sqlite3 *h = NULL;
  fl_cli_write("ag.ini", "[run]\nreplicas = 1\nevents = none\n[platform]\nnodes = 1024\ncabinet = 128\n"
                         "pfs_servers = 7\ncabinet_bandwidth = 32GBps\npfs_link_bandwidth = 50GBps\n[failures]\n"
                         "model = none\n[app]\nnodes = 1000\nwork = 1h\ncheckpoint_size = 1GB\n[strategy]\n"
                         "kind = checkpoint\ninterval = 30min\ncost = platform\n");
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate ag.ini --db ag.sqlite --quiet --sweep platform.io_flows=aggregated,per-rank", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("ag.sqlite", "SELECT COUNT(*) FROM runs"), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun ag.sqlite 1", 120), 0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "expected for a row"));
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("ag.sqlite"), &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, "UPDATE runs SET checkpoint_cost_s = checkpoint_cost_s * 1.1, created_at = '2026-11-26T12:00:00Z'", NULL, NULL, NULL),
                  SQLITE_OK);
  sqlite3_close(h);
  for (int id = 1; id <= 2; id++) {
    char args[64], q[96];
    int aggregated;
    snprintf(q, sizeof q, "SELECT overrides LIKE '%%io_flows=aggregated%%' FROM runs WHERE id = %d", id);
    aggregated = fl_cli_query("ag.sqlite", q) > 0;
    snprintf(args, sizeof args, "rerun ag.sqlite %d", id);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 120), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "DIFFERENT"));
    CU_ASSERT_EQUAL(strstr(fl_cli_out, "expected for a row written before 2026-11-27") != NULL, aggregated);
  }
}

/* Every row of a sweep on one platform comes back from rerun, which simulates it alone: each point's checkpoint
 * costs are probed from the same SimGrid clock (in a child process). Before, a point probed after another got
 * costs an ulp apart, and 6 of these 8 rows differed on rerun. */
static void test_rerun_every_point(void)
{
  fl_cli_write("sw.ini", "[run]\nreplicas = 2\nevents = none\n[platform]\nnodes = 512\ncabinet = 32\npfs_servers = 4\n"
                         "cabinet_bandwidth = 40GBps\npfs_bandwidth = 5GBps\n[failures]\nnode_mtbf = 1y\nrepair = 2h\n"
                         "[app]\nnodes = 256\nwork = 24h\ncheckpoint_size = 16GB\n[strategy]\nkind = checkpoint\n");
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate sw.ini --db sw.sqlite --quiet --sweep 'app.nodes=256,500 failures.node_mtbf=1y,5y'",
                         120),
      0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_query("sw.sqlite", "SELECT COUNT(*) FROM runs"), 8);
  CU_ASSERT(fl_cli_query("sw.sqlite", "SELECT SUM(failures) FROM runs") > 0);
  for (int id = 1; id <= 8; id++) {
    char args[64];
    snprintf(args, sizeof args, "rerun sw.sqlite %d", id);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 120), 0);
    if (!strstr(fl_cli_out, "identical"))
      fprintf(stderr, "\n    row %d:\n%s", id, fl_cli_out);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "identical"));
  }
}

/* The folder the platforms below name their SimGrid profiles in. */
static void make_profiles_dir(void)
{
  char cmd[256];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", fl_test_tmp("profiles"));
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

/* A whole cabinet failing (failures.group_mtbf) takes a rank and its buddy when the buddy is the next rank, the
 * same cabinet; not when the buddy is the same rank of the next cabinet, as generated platforms place it with
 * platform costs (SCR's advice). */
static void test_group_failures_and_buddy_placement(void)
{
  const char *scen = "[run]\nname = groups\nseed = 11\nreplicas = 10\nevents = all\n"
                     "[platform]\nnodes = 80\ncabinet = 8\n"
                     "[failures]\nmodel = none\ngroup_mtbf = 8d\nrepair = 1h\n"
                     "[app]\nkind = bsp\nnodes = 64\nwork = 24h\ncheckpoint_size = 1GB\n"
                     "[strategy]\nkind = buddy\ninterval = 10min\ncheckpoint_cost = 10s\nrestart_cost = 10s\n";
  double lost_next_rank, lost_next_cabinet, failures;
  fl_cli_write("groups.ini", scen);
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate groups.ini --db gc.sqlite --quiet --set strategy.cost=constant", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate groups.ini --db gp.sqlite --quiet", 120), 0);
  failures = fl_cli_query("gp.sqlite", "SELECT sum(failures) FROM runs");
  lost_next_rank = fl_cli_query("gc.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'data-lost'");
  lost_next_cabinet = fl_cli_query("gp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'data-lost'");
  /* failures come 8 at a time: whole cabinets */
  CU_ASSERT(failures >= 8 && fmod(failures, 8.0) == 0.0);
  CU_ASSERT(lost_next_rank >= 1);
  CU_ASSERT_EQUAL(lost_next_cabinet, 0);
  /* the group dates come from their own stream: the first one of each replica is the same in both */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("gc.sqlite", "SELECT min(t_s) FROM events_text WHERE kind = 'failure' AND run_id = 1"),
                         fl_cli_query("gp.sqlite", "SELECT min(t_s) FROM events_text WHERE kind = 'failure' AND run_id = 1"), 0);
  CU_ASSERT_EQUAL(fmod(fl_cli_query("gc.sqlite", "SELECT sum(failures) FROM runs"), 8.0), 0.0);
  /* a group's members fail at its date, and the next group at its own: time never runs backwards (the end of one
   * group once emitted the next group's members at once, its future date written on them: a restart "finished"
   * 2,880 s early and a replica lost -2,400 s of work) */
  for (int k = 0; k < 2; k++) {
    const char *db = k ? "gp.sqlite" : "gc.sqlite";
    CU_ASSERT(fl_cli_query(db, "SELECT min(lost_work_s) FROM runs") >= 0.0);
    CU_ASSERT(fl_cli_query(db, "SELECT max(abs(makespan_s - work_s - checkpoint_time_s - lost_work_s - restart_time_s "
                               "- downtime_total_s - wait_nodes_s)) FROM runs") < 1e-6);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT count(*) FROM events a JOIN events b ON b.rowid = a.rowid + 1 AND "
                                     "b.run_id = a.run_id WHERE b.t_s < a.t_s"),
                    0);
  }
}

/* The XOR level (SCR's XOR, FTI's level 3): each rank writes its state and its share of the parity, S (1 + 1/(g-1)),
 * to its disk while S goes to the next member of its set: it costs more than the local level and at least a buddy
 * copy. Its sets span cabinets with platform costs (ranks r, r + cabinet, ...), so a whole cabinet failing takes one
 * member of each set and every loss is rebuilt; sets of consecutive ranks (constant costs) lose data. */
static void test_xor_level(void)
{
  const char *scen = "[run]\nname = xor\nseed = 11\nreplicas = 10\nevents = all\n"
                     "[platform]\nnodes = 80\ncabinet = 8\ndisk_bandwidth = 1GBps\npfs_servers = 2\n"
                     "[failures]\nmodel = none\ngroup_mtbf = 8d\nrepair = 1h\n"
                     "[app]\nkind = bsp\nnodes = 64\nwork = 24h\ncheckpoint_size = 1GB\n"
                     "[strategy]\nkind = multilevel\nlevels = xor:1 file:1000\nxor_group = 4\ninterval = 10min\n"
                     "checkpoint_cost = 10s\nrestart_cost = 10s\n";
  double xor_cost, local_cost, buddy_cost;
  fl_cli_write("xor.ini", scen);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate xor.ini --db xp.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate xor.ini --db xc.sqlite --quiet --set strategy.cost=constant", 120),
                        0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate xor.ini --db xl.sqlite --quiet --set \"strategy.levels=local:1 "
                                           "file:1000\" --replicas 1",
                                           120),
                        0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate xor.ini --db xb.sqlite --quiet --set \"strategy.levels=buddy:1 "
                                           "file:1000\" --replicas 1",
                                           120),
                        0);
  xor_cost = fl_cli_query("xp.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  local_cost = fl_cli_query("xl.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  buddy_cost = fl_cli_query("xb.sqlite", "SELECT checkpoint_cost_s FROM runs LIMIT 1");
  CU_ASSERT_DOUBLE_EQUAL(local_cost, 1.0, 0.02); /* 1 GB at 1 GB/s */
  /* the disk (state and a third of it in parity) and the ring's transfer side by side: the slower of the two */
  CU_ASSERT_DOUBLE_EQUAL(xor_cost, fmax(local_cost * 4.0 / 3.0, buddy_cost), 0.02 * xor_cost);
  CU_ASSERT(fl_cli_query("xp.sqlite", "SELECT sum(failures) FROM runs") >= 8);
  CU_ASSERT_EQUAL(fl_cli_query("xp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'data-lost'"), 0);
  CU_ASSERT(fl_cli_query("xp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'restart' AND detail LIKE '%xor%'") >=
            1);
  CU_ASSERT(fl_cli_query("xc.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'data-lost'") >= 1);
  /* a set of one rank is no set */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate xor.ini --db xz.sqlite --quiet --set strategy.xor_group=1", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "strategy.xor_group=1: an XOR set holds 2 to 1024 ranks"));
  CU_ASSERT_FALSE(fl_cli_exists("xz.sqlite"));
}

/* SimGrid speed profiles slow a bsp job, at the pace of its slowest node, every replica from its start. Jupiter
 * plays SimGrid's own examples/platforms/profiles/jupiter_speed.profile (0.5, 1, 0.7, 0.1 for 2 s each, then 4 for
 * 10 s: a period of 18 s): 20 s of work alone on it take 2 x 0.5 + 2 + 1.4 + 0.2 = 4.6 by 8 s, then 15.4 at 4x:
 * 11.85 s; beside Ruby (no profile: never faster than 1) 26.8 s. A speed of 0 is refused, naming where. */
static void test_speed_profiles(void)
{
  const char *xml = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                    "<platform version=\"4.1\">\n<zone id=\"AS0\" routing=\"Full\">\n"
                    "<host id=\"Jupiter\" speed=\"25Mf\" speed_file=\"profiles/jupiter_speed.profile\"/>\n"
                    "<host id=\"Ruby\" speed=\"25Mf\"/>\n<host id=\"Tremblay\" speed=\"25Mf\"/>\n"
                    "<link id=\"1\" bandwidth=\"1MBps\" latency=\"0\"/>\n"
                    "<route src=\"Jupiter\" dst=\"Ruby\"><link_ctn id=\"1\"/></route>\n</zone>\n</platform>\n";
  make_profiles_dir();
  fl_cli_write("spd.xml", xml);
  fl_cli_write("profiles/jupiter_speed.profile", "0 0.5\n2 1.0\n4 0.7\n6 0.1\n8 4\nLOOPAFTER 10");
  fl_cli_write("spd.ini", "[run]\nname = spd\nreplicas = 2\nevents = none\n[platform]\nfile = spd.xml\n"
                          "controller = Tremblay\n[failures]\nmodel = none\n[app]\nkind = bsp\nnodes = 1\nwork = 20s\n"
                          "[strategy]\nkind = none\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate spd.ini --db spd1.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate spd.ini --db spd2.sqlite --quiet --set app.nodes=2", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("spd1.sqlite", "SELECT max(makespan_s) FROM runs"), 11.85, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("spd1.sqlite", "SELECT min(makespan_s) FROM runs"), 11.85, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("spd2.sqlite", "SELECT max(makespan_s) FROM runs"), 26.8, 1e-9);
  /* the profile is an input of the row: rerun reproduces it, and refuses once it changed */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun spd2.sqlite 2", 60), 0);
  fl_cli_write("profiles/jupiter_speed.profile", "0 0.5\n2 0\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun spd2.sqlite 2", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "platform.speed_file"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate spd.ini --db spd3.sqlite --quiet", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "spd.xml:5: host 'Jupiter' speed_file: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "'2 0': a speed must be above 0"));
  CU_ASSERT_FALSE(fl_cli_exists("spd3.sqlite"));
}

/* SimGrid link profiles with platform costs: SimGrid's own examples/platforms/profiles/link1_bandwidth.profile
 * (2 MB/s from 2 s, 3 MB/s from 4 s, looping 6 s after: a period of 10 s) on the only link to the PFS host, declared
 * at 1 MBps. Checkpoints of 1 MB every 3 s of work start at 3 s (2 MB/s), 6.5 s and 9.8 s (3 MB/s): the makespan
 * is 9 s of work plus the costs measured on the same platform with the link at 2 and 3 MB/s. */
static void test_link_profiles(void)
{
  static const char *const bws[3] = {"1MBps\" bandwidth_file=\"profiles/link1_bandwidth.profile", "2MBps", "3MBps"};
  char cmd[256];
  double cost[3], with_profile;
  make_profiles_dir();
  fl_cli_write("profiles/link1_bandwidth.profile", "2 2000000\n4 3000000\nLOOPAFTER 6\n");
  for (int k = 0; k < 3; k++) {
    char xml[1024], ini[512], run[128], db[32];
    snprintf(xml, sizeof xml,
             "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\">\n<zone id=\"AS0\" routing=\"Full\">\n<host id=\"Fafard\" speed=\"25Mf\"/>\n"
             "<host id=\"Jupiter\" speed=\"25Mf\"><disk id=\"d\" read_bw=\"1GBps\" write_bw=\"1GBps\"/></host>\n"
             "<host id=\"Tremblay\" speed=\"25Mf\"/>\n<link id=\"1\" bandwidth=\"%s\" latency=\"0\"/>\n"
             "<route src=\"Fafard\" dst=\"Jupiter\"><link_ctn id=\"1\"/></route>\n</zone>\n</platform>\n",
             bws[k]);
    snprintf(run, sizeof run, "lp%d.xml", k);
    fl_cli_write(run, xml);
    snprintf(ini, sizeof ini,
             "[run]\nname = lp\nreplicas = 1\nevents = none\n[platform]\nfile = lp%d.xml\ncontroller = Tremblay\n"
             "[failures]\nmodel = none\n[app]\nkind = bsp\nnodes = 1\nwork = 9s\ncheckpoint_size = 1MB\n"
             "[strategy]\nkind = checkpoint\ninterval = 3s\n[storage]\npfs = Jupiter\n",
             k);
    snprintf(run, sizeof run, "lp%d.ini", k);
    fl_cli_write(run, ini);
    snprintf(cmd, sizeof cmd, "simulate lp%d.ini --db lp%d.sqlite --quiet", k, k);
    CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(cmd, 60), 0);
    snprintf(db, sizeof db, "lp%d.sqlite", k);
    cost[k] = fl_cli_query(db, "SELECT checkpoint_cost_s FROM runs");
  }
  with_profile = fl_cli_query("lp0.sqlite", "SELECT makespan_s FROM runs");
  CU_ASSERT(cost[1] < cost[0] && cost[2] < cost[1]);
  CU_ASSERT_DOUBLE_EQUAL(with_profile, 9.0 + cost[1] + 2.0 * cost[2], 1e-9);
  /* the profile is an input of the row; a bandwidth of 0 is refused, naming the link and the line */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun lp0.sqlite 1", 60), 0);
  fl_cli_write("profiles/link1_bandwidth.profile", "2 2000000\n4 3000000\nLOOPAFTER 7\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun lp0.sqlite 1", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "platform.bandwidth_file"));
  fl_cli_write("profiles/link1_bandwidth.profile", "2 0\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate lp0.ini --db lp9.sqlite --quiet", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "lp0.xml:8: link '1' bandwidth_file: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "'2 0': a bandwidth must be above 0 bytes/s"));
  CU_ASSERT_FALSE(fl_cli_exists("lp9.sqlite"));
}

/* A link's state profile (SimGrid's state_file on a <link>) cuts off the nodes whose routes cross it: n1's own link
 * off from 5 s to 10 s takes n1 out of the job then (its rank moves to the spare), every replica; n0 and n2, whose
 * routes cross it only towards n1, stay. */
static void test_link_state_profile(void)
{
  char xml[4096] = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                   "<platform version=\"4.1\">\n<zone id=\"AS0\" routing=\"Full\">\n<host id=\"zc\" speed=\"1Gf\"/>\n";
  for (int i = 0; i < 4; i++)
    snprintf(xml + strlen(xml), sizeof xml - strlen(xml),
             "<host id=\"n%d\" speed=\"1Gf\"/>\n<link id=\"l%d\" bandwidth=\"1GBps\" latency=\"0\"%s/>\n", i, i,
             i == 1 ? " state_file=\"profiles/l1_state.profile\"" : "");
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      snprintf(xml + strlen(xml), sizeof xml - strlen(xml),
               "<route src=\"n%d\" dst=\"n%d\"><link_ctn id=\"l%d\"/><link_ctn id=\"l%d\"/></route>\n", i, j, i, j);
  snprintf(xml + strlen(xml), sizeof xml - strlen(xml), "</zone>\n</platform>\n");
  make_profiles_dir();
  fl_cli_write("profiles/l1_state.profile", "5 0\n10 1\n");
  fl_cli_write("ls.xml", xml);
  fl_cli_write("ls.ini", "[run]\nname = ls\nreplicas = 2\nevents = all\n[platform]\nfile = ls.xml\ncontroller = zc\n"
                         "[failures]\nmodel = none\nrepair = never\n[app]\nkind = bsp\nnodes = 3\nwork = 20s\n"
                         "[strategy]\nkind = checkpoint\ninterval = 3s\ncheckpoint_cost = 0.5s\nrestart_cost = 0.5s\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ls.ini --db ls.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_query("ls.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'failure'"), 2);
  CU_ASSERT_EQUAL(
      fl_cli_query("ls.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'failure' AND node = 1 AND t_s = 5"), 2);
  CU_ASSERT_EQUAL(
      fl_cli_query("ls.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'repair' AND node = 1 AND t_s = 10"), 2);
  CU_ASSERT_EQUAL(fl_cli_query("ls.sqlite", "SELECT count(*) FROM runs WHERE status = 'completed'"), 2);
}

/* SimGrid availability profiles are failures: the hosts of SimGrid's examples/platforms/small_platform_failures.xml
 * (Bourassa with SimGrid's own bourassa_state.profile, "67 0 / 70 1"), Fafard on a looping profile, Ginette off for
 * good at 100 s. Every replica replays them from its start; the controller is a host that never fails. */
static void test_state_profiles(void)
{
  const char *xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"AS0\" routing=\"Full\">\n"
      "<host id=\"Tremblay\" speed=\"25Mf\"/>\n"
      "<host id=\"Jupiter\" speed=\"25Mf\"/>\n"
      "<host id=\"Fafard\" speed=\"25Mf\" state_file=\"profiles/fafard_state.profile\"/>\n"
      "<host id=\"Ginette\" speed=\"25Mf\" state_file=\"profiles/ginette_state.profile\"/>\n"
      "<host id=\"Bourassa\" speed=\"25Mf\" state_file=\"profiles/bourassa_state.profile\"/>\n"
      "<link id=\"1\" bandwidth=\"1MBps\" latency=\"0\"/>\n"
      "<route src=\"Tremblay\" dst=\"Jupiter\"><link_ctn id=\"1\"/></route>\n"
      "</zone>\n</platform>\n";
  make_profiles_dir();
  fl_cli_write("sp.xml", xml);
  fl_cli_write("profiles/bourassa_state.profile", "67 0\n70 1\n");
  fl_cli_write("profiles/fafard_state.profile", "10 0\n20 1\nLOOPAFTER 30\n");
  fl_cli_write("profiles/ginette_state.profile", "100 0\n");
  fl_cli_write("sp.ini", "[run]\nname = sp\nreplicas = 3\nevents = all\n[platform]\nfile = sp.xml\n"
                         "[failures]\nmodel = none\n[app]\nkind = bsp\nnodes = 3\nwork = 300s\n"
                         "[strategy]\nkind = checkpoint\ninterval = 15s\ncheckpoint_cost = 1s\nrestart_cost = 1s\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate sp.ini --db sp.sqlite --quiet", 60), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("sp.sqlite", "SELECT count(*) FROM runs WHERE status = 'completed'"), 3, 0);
  /* Jupiter, the first host by name without a profile, runs the simulator; the other four are nodes */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "host 'Jupiter' runs the simulator's actors"));
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("sp.sqlite", "SELECT count(*) FROM runs WHERE controller = 'Jupiter'"), 3, 0);
  /* in every replica: Fafard (node 1) off at 10, 60, 110, ...; Bourassa (node 0) at 67; Ginette (2) at 100 */
  CU_ASSERT_DOUBLE_EQUAL(
      fl_cli_query("sp.sqlite", "SELECT count(DISTINCT run_id) FROM events_text WHERE kind = 'failure' AND node = 0 AND t_s = 67"), 3,
      0);
  CU_ASSERT_DOUBLE_EQUAL(
      fl_cli_query("sp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'failure' AND node = 1 AND t_s IN (10, 60, 110)"), 9,
      0);
  CU_ASSERT_DOUBLE_EQUAL(
      fl_cli_query("sp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'repair' AND node = 0 AND t_s = 70"), 3, 0);
  CU_ASSERT_DOUBLE_EQUAL(
      fl_cli_query("sp.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'failure' AND node = 2 AND t_s = 100"), 3, 0);
  /* the profiles are inputs of the row: rerun reproduces it, and refuses once a profile changed */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun sp.sqlite 2", 60), 0);
  fl_cli_write("profiles/bourassa_state.profile", "67 0\n71 1\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun sp.sqlite 2", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "platform.state_file"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "bourassa_state.profile changed since the run"));
  /* the controller must never fail: naming a host with a profile is refused */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate sp.ini --db bad.sqlite --quiet --set platform.controller=Fafard", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "host 'Fafard' has a state profile"));
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
  /* a bad profile line: one line naming the profile file and line, exit 2 */
  fl_cli_write("profiles/ginette_state.profile", "100 0\n50 1\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate sp.ini --db bad.sqlite --quiet", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "ginette_state.profile:2: '50 1'"));
  CU_ASSERT_FALSE(fl_cli_exists("bad.sqlite"));
}

/* faultline validate's platform checks, aggregation at 1,000 nodes included. */
/* strategy.flush = async: the PFS level drains while the job computes. Its interference emerges from the
 * platform: a flush bound by the nodes' links (their local disks feed 100 GB at 5 GB/s, streamed over 10 GB/s
 * links) slows the job's neighbour exchange by a factor sigma near 2, so compute by comm_fraction (sigma - 1);
 * a flush bound by the PFS's disks (6.4 TB at 4 GB/s, 1,600 s) leaves the links nearly free. Two flushes overlap
 * compute in 2 h of work (the third comes at the end). Bad input is one line, exit 2. */
static const char *const ASYNC =
    "[run]\nname = async\nreplicas = 1\nevents = none\n"
    "[platform]\nnodes = 64\ncabinet = 16\nlink_bandwidth = 10GBps\ncabinet_bandwidth = 1000GBps\n"
    "disk_bandwidth = 5GBps\npfs_servers = 4\npfs_bandwidth = 1000GBps\npfs_link_bandwidth = 1000GBps\n"
    "io_flows = per-rank\n[failures]\nmodel = none\n"
    "[app]\nkind = bsp\nnodes = 64\nwork = 2h\ncheckpoint_size = 100GB\ncomm_fraction = 0.3\n"
    "[strategy]\nkind = multilevel\nlevels = local:1 file:4\ninterval = 10min\nflush = async\n";

static void test_async_flush(void)
{
  double quiet_links, busy_links, quiet_pfs, busy_pfs, sync_pfs;
  fl_cli_write("async.ini", ASYNC);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate async.ini --db as1.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate async.ini --db as2.sqlite --quiet --set app.comm_fraction=0", 120),
                        0);
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run_limited("simulate async.ini --db as3.sqlite --quiet --set platform.pfs_bandwidth=1GBps", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate async.ini --db as4.sqlite --quiet --set "
                                           "platform.pfs_bandwidth=1GBps --set app.comm_fraction=0",
                                           120),
                        0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate async.ini --db as5.sqlite --quiet --set "
                                           "platform.pfs_bandwidth=1GBps --set strategy.flush=sync",
                                           120),
                        0);
  busy_links = fl_cli_query("as1.sqlite", "SELECT makespan_s FROM runs");
  quiet_links = fl_cli_query("as2.sqlite", "SELECT makespan_s FROM runs");
  busy_pfs = fl_cli_query("as3.sqlite", "SELECT makespan_s FROM runs");
  quiet_pfs = fl_cli_query("as4.sqlite", "SELECT makespan_s FROM runs");
  sync_pfs = fl_cli_query("as5.sqlite", "SELECT makespan_s FROM runs");
  /* without communication a flush costs the job nothing but the local write: 7200 s + 12 x 20 s */
  CU_ASSERT_DOUBLE_EQUAL(quiet_links, 7200.0 + 12 * 20.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(quiet_pfs, 7200.0 + 12 * 20.0, 1e-6);
  /* link-bound: 2 flushes of 20 s, compute slowed by 0.3 (sigma - 1), sigma in [1.5, 2.5] */
  CU_ASSERT((busy_links - quiet_links) / 40.0 >= 0.3 * 0.5 && (busy_links - quiet_links) / 40.0 <= 0.3 * 1.5);
  /* PFS-bound: 2 flushes of 1,600 s, the links nearly free */
  CU_ASSERT((busy_pfs - quiet_pfs) / 3200.0 < 0.02);
  CU_ASSERT(busy_pfs > quiet_pfs);
  /* written in the foreground, the same three PFS checkpoints stop the job for 1,600 s each */
  CU_ASSERT(sync_pfs > busy_pfs + 3 * 1500.0);
  /* bad input */
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("simulate async.ini --db as6.sqlite --quiet --set \"strategy.levels=local:1\"", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "[strategy] flush = 'async'"));
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("simulate async.ini --db as6.sqlite --quiet --set strategy.flush_slowdown=0.2", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set strategy.flush_slowdown=0.2: with platform costs"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate async.ini --db as6.sqlite --quiet --set app.comm_fraction=1", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set app.comm_fraction=1: must be below 1"));
  CU_ASSERT_FALSE(fl_cli_exists("as6.sqlite"));
}

static void test_validate_platform(void)
{
  CU_ASSERT_EQUAL(fl_cli_run_limited("validate --only platform --quiet", 120), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "platform:aggregated-pfs"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "platform:aggregated-buddy"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "platform:pfs-disk-bound"));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "FAIL"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "0 checks failed"));
  /* multi-level checkpointing against the Markov model (fixed seed: the same replicas every time) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("validate --only multilevel --quiet", 120), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "multilevel:high-rate"));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, "FAIL"));
}

static CU_TestInfo pc_tests[] = {
    {"generated platform, PFS-bound", test_generated_pfs},
    {"generated platform, buddy copies", test_generated_buddy},
    {"app.flops at the hosts' speed", test_flops},
    {"platform file with [storage] pfs", test_file_platform},
    {"bad [storage] input", test_bad_storage},
    {"constant costs where platform costs were asked for are said", test_cost_fallback_said},
    {"rerun flags rows priced by the aggregated split per server", test_rerun_aggregated_note},
    {"rerun gives back every point of a sweep on one platform", test_rerun_every_point},
    {"group failures and buddy placement", test_group_failures_and_buddy_placement},
    {"SimGrid state profiles are failures", test_state_profiles},
    {"validate --only platform, --only multilevel", test_validate_platform},
    {"async flush: interference from the platform", test_async_flush},
    {"the XOR level: costs, sets across cabinets", test_xor_level},
    {"SimGrid speed profiles slow a bsp job", test_speed_profiles},
    {"SimGrid link profiles change checkpoint costs", test_link_profiles},
    {"a link's state profile cuts off its nodes", test_link_state_profile},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"platform costs", NULL, NULL, NULL, NULL, pc_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  return fl_test_run(suites);
}
