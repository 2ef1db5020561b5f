/* test_workload_cli.c — `faultline workload` on the shipped real traces: its schedules equal an independent
 * replay (tests/workload_check.py, Python, from the definitions) job for job under FCFS and EASY; the log's own
 * figures; bad traces are one line naming file, line and field, exit 2. */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <sqlite3.h>
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
  for (int i = 0; i < 2; i++) /* conservative: about 11 s of Python on the KTH trace */
    CU_ASSERT_EQUAL(fl_check(traces[i], "conservative"), 0);
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
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "logged          68.6%"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "easy            68.6%"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_out), 6); /* the header lines, logged, fcfs, easy, conservative */
  /* NASA: no wait times in the log, no requested times */
  snprintf(args, sizeof args, "workload %s --scheduler easy",
           fl_test_src("data/workloads/NASA-iPSC-1993-3.1-cln.swf.gz"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "18239 jobs on 128 nodes"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "18239 without a requested time"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "logged              -"));
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
  fl_cli_write("ok.swf",
               "1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 10 8 -1 -1 8 10 -1 1 1 1 -1 1 -1 -1 -1\n");
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
  CU_ASSERT_STRING_EQUAL(
      csv, "job,submit_s,start_s,end_s,nodes\n1,0,0,10,2\n2,5,10,20,8\n"); /* job 2 waits for job 1's 2 nodes */
  free(csv);
  (void)args;
}

/* An SWF job line: number, submit, run, processors, requested time. */
static void fl_job(char *buf, size_t n, long id, double submit, double run, long procs, double req)
{
  size_t len = strlen(buf);
  snprintf(buf + len, n - len, "%ld %g -1 %g %ld -1 -1 %ld %g -1 1 1 1 -1 1 -1 -1 -1\n", id, submit, run, procs, procs,
           req);
}

/* Does file `name` of the temporary directory hold `needle`? 1 yes, 0 no, -1 unreadable. */
static int fl_holds(const char *name, const char *needle)
{
  long n = 0;
  char *text = fl_test_read_file(fl_test_tmp(name), &n);
  int found = text ? strstr(text, needle) != NULL : -1;
  free(text);
  return found;
}

/* Column `col` of the jobs row of job `job` in run `run`. */
static double fl_job_col(const char *db, long run, long job, const char *col)
{
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT %s FROM jobs WHERE run_id = %ld AND job = %ld", col, run, job);
  return fl_cli_query(db, sql);
}

/* The hand schedule's trace (jobs 1-4, lines in `order`) as NAME.swf, and NAME.ini running it on 4 nodes under
 * fcfs and easy, every event logged. */
static void fl_hand_write(const char *name, const int order[4])
{
  static const double submit[] = {0, 1, 2, 3}, run[] = {10, 5, 3, 20};
  static const long procs[] = {2, 4, 2, 1};
  char trace[1024] = "; MaxNodes: 4\n", path[64], ini[512];
  for (int k = 0; k < 4; k++) {
    int j = order[k] - 1;
    fl_job(trace, sizeof trace, j + 1, submit[j], run[j], procs[j], run[j]);
  }
  snprintf(path, sizeof path, "%s.swf", name);
  fl_cli_write(path, trace);
  snprintf(ini, sizeof ini,
           "[run]\nname = %s\nreplicas = 1\nevents = all\nsweep = app.scheduler=fcfs,easy\n"
           "[platform]\nnodes = 4\n[failures]\nmodel = none\n"
           "[app]\nkind = workload\ntrace = %s.swf\n[strategy]\nkind = none\n",
           name, name);
  snprintf(path, sizeof path, "%s.ini", name);
  fl_cli_write(path, ini);
}

/* The hand schedule's start times (jobs 1-4 of test_simulate_hand_schedule's trace) checked in run `run` of `db`, a
 * sweep of app.scheduler = fcfs, easy; the starts asked for, FCFS's or EASY's. */
static const double fl_hand_fcfs[] = {0, 10, 15, 15}, fl_hand_easy[] = {0, 10, 2, 15};

static const double *fl_hand_starts(const char *db, long run)
{
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT overrides LIKE '%%easy%%' FROM runs WHERE id = %ld", run);
  const double *want = fl_cli_query(db, sql) == 1 ? fl_hand_easy : fl_hand_fcfs;
  for (long j = 1; j <= 4; j++)
    CU_ASSERT_EQUAL(fl_job_col(db, run, j, "start_s"), want[j - 1]);
  return want;
}

static void test_simulate_hand_schedule(void)
{
  /* test_workload.c's first hand case through `simulate` on SimGrid: 4 nodes, no failure, no checkpoint.
   *   j1 t=0 2 nodes 10 s; j2 t=1 4 nodes 5 s; j3 t=2 2 nodes 3 s; j4 t=3 1 node 20 s.
   *   FCFS starts 0, 10, 15, 15; EASY 0, 10, 2 (backfilled), 15. Both end at 35 (j4).
   *   useful node-seconds 2x10 + 4x5 + 2x3 + 1x20 = 66 over 35 s x 4 nodes: utilisation 66/140.
   *   mean wait: EASY (0 + 9 + 0 + 12) / 4 = 5.25, FCFS (0 + 9 + 13 + 12) / 4 = 8.5.
   *   bounded slowdown max(1, (end - submit) / max(run, 10)): EASY 1, 14/10, 1 (3/10), 32/20: mean 1.25;
   *   FCFS 1, 1.4, 16/10, 1.6: mean 1.4. */
  static const int order[] = {1, 2, 3, 4};
  fl_hand_write("hand", order);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate hand.ini --db hand.sqlite --quiet", 60), 0);
  for (long run = 1; run <= 2; run++) {
    char sql[128];
    const double *want = fl_hand_starts("hand.sqlite", run);
    snprintf(sql, sizeof sql, "SELECT utilisation * 140 FROM runs WHERE id = %ld", run);
    CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("hand.sqlite", sql), 66.0, 1e-12);
    /* energy, at the default 100 W idle, 200 W computing: 4 nodes x 35 s idle, + 100 W over the 66 node-seconds */
    snprintf(sql, sizeof sql, "SELECT energy_j FROM runs WHERE id = %ld", run);
    CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("hand.sqlite", sql), 4 * 100.0 * 35 + 100.0 * 66, 1e-9);
    snprintf(sql, sizeof sql, "SELECT mean_wait_s FROM runs WHERE id = %ld", run);
    CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("hand.sqlite", sql), want == fl_hand_easy ? 5.25 : 8.5, 1e-12);
    snprintf(sql, sizeof sql, "SELECT mean_bounded_slowdown FROM runs WHERE id = %ld", run);
    CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("hand.sqlite", sql), want == fl_hand_easy ? 1.25 : 1.4, 1e-12);
    snprintf(sql, sizeof sql, "SELECT jobs * 10 + jobs_completed FROM runs WHERE id = %ld AND status = 'completed'",
             run);
    CU_ASSERT_EQUAL(fl_cli_query("hand.sqlite", sql), 44);
    /* the run's events: a start and an end per job */
    snprintf(sql, sizeof sql,
             "SELECT COUNT(*) FROM events_text WHERE run_id = %ld AND kind IN ('job-start', 'job-end')", run);
    CU_ASSERT_EQUAL(fl_cli_query("hand.sqlite", sql), 8);
  }
  /* the report's machine table, and rerun gives the row back */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report hand.sqlite", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "utilisation"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "47.14%"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun hand.sqlite 2", 60), 0);
  /* a run's timeline: the machine's busy nodes, from the jobs' events */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report hand.sqlite --timeline 2 --plot busy.svg", 60), 0);
  CU_ASSERT_EQUAL(fl_holds("busy.svg", "busy nodes"), 1);
  CU_ASSERT_EQUAL(fl_holds("busy.svg", "no events"), 0);
  /* the HTML page: the machine's figures in its table, the overhead by configuration */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report hand.sqlite --html hand.html", 60), 0);
  CU_ASSERT_EQUAL(fl_holds("hand.html", "<th data-fig=\"utilisation\">utilisation (%)</th>"), 1);
  CU_ASSERT_EQUAL(fl_holds("hand.html", "<h2>Overhead node-hours by configuration</h2>"), 1);
  CU_ASSERT_EQUAL(fl_holds("hand.html", "<th data-fig=\"mean_wait_s\">mean wait"), 1);
  CU_ASSERT_EQUAL(fl_holds("hand.html", "data-fig=\"makespan_s\""), 0); /* a job's figure: not a machine's */
}

/* Failures replayed from a real log (LANL system 20, failures.model = trace) hit whichever job holds the node. */
static void test_failure_log(void)
{
  char ini[2048];
  snprintf(ini, sizeof ini,
           "[run]\nname = logged\nreplicas = 1\nevents = all\n[platform]\nnodes = 512\ncabinet = 64\n"
           "pfs_servers = 4\npfs_bandwidth = 1GBps\n[failures]\nmodel = trace\ntrace = %s\nrepair = 2h\n"
           "[app]\nkind = workload\njobs = 300\njob_nodes = 16-128\njob_time = 12h\narrival = 2h\n"
           "checkpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = daly\n",
           fl_test_src("data/failures/lanl-system20.csv"));
  fl_cli_write("logged.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate logged.ini --db logged.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("logged.sqlite", "SELECT jobs_completed FROM runs WHERE status = 'completed'"), 300);
  /* every failure event is a logged failure of that node: the log's records on nodes 0-511 within the run */
  double events = fl_cli_query("logged.sqlite", "SELECT COUNT(*) FROM events WHERE kind IN (103, 104)");
  CU_ASSERT(events > 20);
  CU_ASSERT_EQUAL(fl_cli_query("logged.sqlite", "SELECT platform_failures FROM runs"), events);
  CU_ASSERT(fl_cli_query("logged.sqlite", "SELECT failures FROM runs") > 0);
  CU_ASSERT_EQUAL(fl_cli_query("logged.sqlite", "SELECT SUM(failures) FROM jobs"),
                  fl_cli_query("logged.sqlite", "SELECT failures FROM runs"));
}

static void test_simulate_refuses(void)
{
  char trace[512] = "";
  fl_job(trace, sizeof trace, 1, 0, 10, 2, 10);
  fl_job(trace, sizeof trace, 7, 5, 10, 8, 10);
  fl_cli_write("big.swf", trace);
  fl_cli_write("big.ini", "[run]\nreplicas = 1\n[platform]\nnodes = 4\n[failures]\nmodel = none\n"
                          "[app]\nkind = workload\ntrace = big.swf\n[strategy]\nkind = none\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db big.sqlite --quiet", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "big.swf:2: field 5 (allocated processors) '8': 8 nodes at "
                                            "app.cores_per_node = 1, larger than the machine (4 nodes"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_FALSE(fl_cli_exists("big.sqlite"));
  /* 2 cores a node: 4 nodes, it fits */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db big.sqlite --quiet --set app.cores_per_node=2", 60), 0);
  /* an unknown scheduler, a strategy the workload engine does not run, checkpoints without a PFS */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db x.sqlite --set app.scheduler=sjf", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(fl_cli_err, "app.scheduler=sjf: unknown batch scheduler 'sjf' (known: fcfs | easy | conservative)"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db x.sqlite --set strategy.kind=buddy", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db x.sqlite --set strategy.kind=checkpoint "
                                     "--set failures.model=exponential --set app.checkpoint_size=1GB "
                                     "--set app.cores_per_node=2",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "pfs_servers"));
  CU_ASSERT_FALSE(fl_cli_exists("x.sqlite"));
  /* interval rules that need what this engine does not give (policy/intervals: fl_engine_caps.intervals): refused,
   * naming engine, rule and strategy, never run on another interval */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db x.sqlite --set strategy.kind=checkpoint "
                                     "--set failures.model=exponential --set strategy.interval=hazard",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "strategy.interval=hazard: the sim (workload) engine cannot honour "
                                            "hazard, which strategy 'checkpoint' would checkpoint by: it needs the "
                                            "job's failure hazard"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "(this engine takes daly, young, never or a duration)"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db x.sqlite --set strategy.kind=checkpoint "
                                     "--set failures.model=exponential --set strategy.interval=multilevel",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "cannot honour multilevel, which strategy 'checkpoint'"));
  /* a strategy that writes no checkpoint asks no rule: nothing to refuse */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate big.ini --db y.sqlite --quiet --set strategy.interval=hazard "
                                     "--set app.cores_per_node=2",
                                     60),
                  0);
  CU_ASSERT_FALSE(fl_cli_exists("x.sqlite"));
}

/* Three jobs of 4 nodes submitted together, 3 h each, checkpoints of 1 GB a node every hour to one PFS server whose
 * disk (1 GB/s) is the bottleneck: a checkpoint alone takes delta = 4 s (the cost a bsp job of 4 ranks prices on
 * the same platform, strategy.cost = platform). They reach their checkpoints together.
 *   ordered: the PFS serves j1, then j2, then j3: j1 waits 0, j2 delta, j3 2 delta; each checkpoint takes delta
 *            (alone on the PFS), 2 delta per job; by the second checkpoint they are apart and nobody waits.
 *   oblivious: the three share the disk: each checkpoint takes 3 delta, 6 delta per job, nobody waits. */
static const char *const fl_pfs_platform = "[platform]\nnodes = 12\ncabinet = 4\nlink_bandwidth = 100GBps\n"
                                           "cabinet_bandwidth = 1TBps\npfs_servers = 1\npfs_bandwidth = 1GBps\n"
                                           "pfs_link_bandwidth = 100GBps\n";

static void test_cooperative_io(void)
{
  char ini[2048], trace[512] = "; MaxNodes: 12\n";
  for (long j = 1; j <= 3; j++)
    fl_job(trace, sizeof trace, j, 0, 3 * 3600, 4, 4 * 3600);
  fl_cli_write("coop.swf", trace);
  snprintf(ini, sizeof ini,
           "[run]\nname = coop\nreplicas = 1\nsweep = app.checkpoint_io=oblivious,ordered\n%s[failures]\n"
           "model = none\n[app]\nkind = workload\ntrace = coop.swf\ncheckpoint_size = 1GB\n"
           "[strategy]\nkind = checkpoint\ninterval = 1h\n",
           fl_pfs_platform);
  fl_cli_write("coop.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate coop.ini --db coop.sqlite --quiet", 60), 0);
  /* delta, independently: a bsp job of 4 ranks on the same platform, its checkpoint cost from the platform */
  snprintf(ini, sizeof ini,
           "[run]\nname = one\nreplicas = 1\n%s[failures]\nmodel = none\n[app]\nnodes = 4\nwork = 1h\n"
           "checkpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = 30min\ncost = platform\n",
           fl_pfs_platform);
  fl_cli_write("one.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate one.ini --db one.sqlite --quiet", 60), 0);
  double delta = fl_cli_query("one.sqlite", "SELECT checkpoint_cost_s FROM runs");
  CU_ASSERT(fabs(delta - 4.0) < 1e-6); /* 4 GB through 1 GB/s */
  long ordered = (long)fl_cli_query("coop.sqlite", "SELECT id FROM runs WHERE overrides LIKE '%ordered%'");
  long oblivious = 3 - ordered;
  for (long j = 1; j <= 3; j++) {
    CU_ASSERT_EQUAL(fl_job_col("coop.sqlite", ordered, j, "checkpoints"), 2);
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("coop.sqlite", ordered, j, "checkpoint_s"), 2 * delta, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("coop.sqlite", ordered, j, "io_wait_s"), (double)(j - 1) * delta, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("coop.sqlite", ordered, j, "end_s"), 3 * 3600 + (double)(j + 1) * delta, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("coop.sqlite", oblivious, j, "checkpoint_s"), 6 * delta, 6 * delta * 1e-3);
    CU_ASSERT_EQUAL(fl_job_col("coop.sqlite", oblivious, j, "io_wait_s"), 0);
  }
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("coop.sqlite", "SELECT io_wait_node_hours * 3600 FROM runs WHERE overrides "
                                                     "LIKE '%ordered%'"),
                         4 * 3 * delta, 1e-6);
}

/* app.checkpoint_memory: a job's checkpoint is its memory. On the platform above (one server writing 1 GB/s), with a
 * checkpoint every hour of 3-hour jobs of 4 processors on 4 nodes, apart in time: job 1 uses 262,144 KB a processor
 * (field 7): 4 x 256 MiB = 1 GiB a checkpoint, 1.073741824 s; job 2 gives only its requested memory (field 10),
 * 524,288 KB: 2 GiB, 2.147483648 s; job 3 gives none and writes app.checkpoint_size, 1 GB a node: 4 s. Two
 * checkpoints each. Without app.checkpoint_size, job 3 is refused, naming its line. Under failures with Daly's
 * interval (from the isolated cost, read off the costs at 1 GiB and 2 GiB a node), job 1 runs as it does when
 * app.checkpoint_size says its 256 MiB directly. */
static void test_checkpoint_memory(void)
{
  char ini[2048];
  const char *trace = "; MaxNodes: 12\n"
                      "1 0 -1 10800 4 -1 262144 4 14400 -1 1 1 1 -1 1 -1 -1 -1\n"
                      "2 36000 -1 10800 4 -1 -1 4 14400 524288 1 1 1 -1 1 -1 -1 -1\n"
                      "3 72000 -1 10800 4 -1 -1 4 14400 -1 1 1 1 -1 1 -1 -1 -1\n";
  fl_cli_write("mem.swf", trace);
  snprintf(ini, sizeof ini,
           "[run]\nname = mem\nreplicas = 1\n%s[failures]\nmodel = none\n[app]\nkind = workload\ntrace = mem.swf\n"
           "checkpoint_memory = yes\ncheckpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = 1h\n",
           fl_pfs_platform);
  fl_cli_write("mem.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate mem.ini --db mem.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_job_col("mem.sqlite", 1, 1, "checkpoints"), 2);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("mem.sqlite", 1, 1, "checkpoint_s"), 2 * 1.073741824, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("mem.sqlite", 1, 2, "checkpoint_s"), 2 * 2.147483648, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("mem.sqlite", 1, 3, "checkpoint_s"), 2 * 4.0, 1e-6);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate mem.ini --db mem0.sqlite --quiet --set app.checkpoint_size=0", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "mem.swf:4: job 3 gives no memory"));
  CU_ASSERT_EQUAL(fl_cli_exists("mem0.sqlite"), 0);
  /* Daly's interval from the interpolated cost against the cost probed at the job's own bytes */
  snprintf(ini, sizeof ini,
           "[run]\nname = memd\nreplicas = 1\nseed = 7\n%s[failures]\nmodel = exponential\nnode_mtbf = 2h\n"
           "repair = 1min\n[app]\nkind = workload\ntrace = mem.swf\njobs = 1\ncheckpoint_memory = yes\n"
           "[strategy]\nkind = checkpoint\ninterval = daly\n",
           fl_pfs_platform);
  fl_cli_write("memd.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate memd.ini --db memd.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate memd.ini --db memd-direct.sqlite --quiet --set "
                                           "app.checkpoint_memory=no --set app.checkpoint_size=268435456B",
                                           60),
                        0);
  {
    double a = fl_job_col("memd.sqlite", 1, 1, "end_s"), b = fl_job_col("memd-direct.sqlite", 1, 1, "end_s");
    CU_ASSERT(fl_job_col("memd.sqlite", 1, 1, "failures") > 0);
    CU_ASSERT(fabs(a - b) <= 1e-7 * b); /* the interpolated cost differs in its last digits: 4e-10 here */
    CU_ASSERT_EQUAL(fl_job_col("memd.sqlite", 1, 1, "checkpoints"),
                    fl_job_col("memd-direct.sqlite", 1, 1, "checkpoints"));
  }
}

/* least-waste serves the waiting request that costs the others least: candidate i of isolated cost C_i minimises
 * C_i x (the nodes of the others) without failures. Jobs A (8 nodes), B and C (1 node each), submitted together on
 * 10 nodes, checkpoint 1 GB a node at 1 h to one server of 1 GB/s: C_A = 8 s, C_B = C_C = 1 s. At 1 h all three ask:
 *   W(A) = 8 x (1 + 1) = 16, W(B) = 1 x (8 + 1) = 9, W(C) = 9: B first (the tie with C goes to the first asked);
 *   then W(A) = 8 x 1 = 8, W(C) = 1 x 8 = 8: A (first asked); then C. Waits: B 0, A 1 s, C 1 + 8 = 9 s.
 *   ordered (request order A, B, C): A 0, B 8 s, C 9 s. */
static void test_least_waste_order(void)
{
  char ini[2048], trace[512] = "; MaxNodes: 10\n";
  fl_job(trace, sizeof trace, 1, 0, 2 * 3600, 8, 3 * 3600);
  fl_job(trace, sizeof trace, 2, 0, 2 * 3600, 1, 3 * 3600);
  fl_job(trace, sizeof trace, 3, 0, 2 * 3600, 1, 3 * 3600);
  fl_cli_write("lw.swf", trace);
  snprintf(ini, sizeof ini,
           "[run]\nname = lw\nreplicas = 1\nsweep = app.checkpoint_io=ordered,least-waste\n[platform]\nnodes = 10\n"
           "cabinet = 10\nlink_bandwidth = 100GBps\ncabinet_bandwidth = 1TBps\npfs_servers = 1\npfs_bandwidth = "
           "1GBps\npfs_link_bandwidth = 100GBps\n[failures]\nmodel = none\n[app]\nkind = workload\ntrace = lw.swf\n"
           "checkpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = 1h\n");
  fl_cli_write("lw.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate lw.ini --db lw.sqlite --quiet", 60), 0);
  long lw = (long)fl_cli_query("lw.sqlite", "SELECT id FROM runs WHERE overrides LIKE '%least-waste%'");
  long ord = 3 - lw;
  static const double want_lw[] = {1, 0, 9}, want_ord[] = {0, 8, 9};
  for (long j = 1; j <= 3; j++) {
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("lw.sqlite", lw, j, "io_wait_s"), want_lw[j - 1], 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(fl_job_col("lw.sqlite", ord, j, "io_wait_s"), want_ord[j - 1], 1e-6);
    CU_ASSERT_EQUAL(fl_job_col("lw.sqlite", lw, j, "checkpoints"), 1);
  }
}

/* Failures on a real trace: every job ends, and the time each held its nodes (from its start, failure and end
 * events) is exactly its run time plus the compute failures threw away plus its checkpoints, restarts and waits
 * for the PFS; the run's node-hours are the jobs' sums. */
static void test_failures_accounting(void)
{
  char ini[2048];
  snprintf(ini, sizeof ini,
           "[run]\nname = acct\nreplicas = 2\nevents = all\nsweep = app.checkpoint_io=oblivious,least-waste\n"
           "[platform]\nnodes = 100\ncabinet = 20\nlink_bandwidth = 1GBps\ncabinet_bandwidth = 5GBps\n"
           "pfs_servers = 2\npfs_bandwidth = 500MBps\npfs_link_bandwidth = 2GBps\n"
           "[failures]\nmodel = exponential\nnode_mtbf = 5d\nrepair = 2h\n"
           "[app]\nkind = workload\ntrace = %s\njobs = 400\ncheckpoint_size = 4GB\n"
           "[strategy]\nkind = checkpoint\ninterval = daly\n",
           fl_test_src("data/workloads/KTH-SP2-1996-2.1-cln.swf.gz"));
  fl_cli_write("acct.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate acct.ini --db acct.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("acct.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND "
                                              "jobs_completed = 400"),
                  4);
  CU_ASSERT(fl_cli_query("acct.sqlite", "SELECT MIN(failures) FROM runs") > 10);
  CU_ASSERT(fl_cli_query("acct.sqlite", "SELECT MIN(lost_node_hours) FROM runs") > 0);
  CU_ASSERT(fl_cli_query("acct.sqlite", "SELECT io_wait_node_hours FROM runs WHERE overrides LIKE '%least%' "
                                        "ORDER BY id LIMIT 1") > 0);
  /* the HTML page answers the study's question: least-waste against oblivious, paired, in the machine's figures */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report acct.sqlite --html acct.html", 60), 0);
  CU_ASSERT_EQUAL(fl_holds("acct.html", "against <code>app.checkpoint_io=oblivious</code>"), 1);
  CU_ASSERT_EQUAL(fl_holds("acct.html", "<th data-fig=\"io_wait_node_hours_diff\">I/O wait"), 1);
  CU_ASSERT_EQUAL(fl_holds("acct.html", "<th data-fig=\"makespan_s_diff\">"), 0);
  /* held time per job from the events: each start to the failure or end that follows it */
  const char *held =
      "WITH ev AS (SELECT run_id, rank AS job, kind, t_s, LEAD(t_s) OVER (PARTITION BY run_id, rank "
      "ORDER BY id) AS next_t FROM events WHERE kind IN (101, 102, 103)), "
      "h AS (SELECT run_id, job, SUM(next_t - t_s) AS held FROM ev WHERE kind = 101 GROUP BY run_id, job) "
      "SELECT %s FROM h JOIN jobs j USING (run_id, job)";
  char sql[1024];
  snprintf(sql, sizeof sql, held,
           "MAX(ABS(held - (j.run_s + j.lost_work_s + j.checkpoint_s + j.restart_s + j.io_wait_s)))");
  double worst = fl_cli_query("acct.sqlite", sql);
  CU_ASSERT(worst < 1e-6);
  if (!(worst < 1e-6))
    fprintf(stderr, "\n  held time differs from the accounting by %g s\n", worst);
  snprintf(sql, sizeof sql, held, "COUNT(*)");
  CU_ASSERT_EQUAL(fl_cli_query("acct.sqlite", sql), 4 * 400);
  /* jobs a failure hit were interrupted and their lost compute counted */
  CU_ASSERT_EQUAL(fl_cli_query("acct.sqlite", "SELECT COUNT(*) FROM jobs WHERE failures > 0 AND lost_work_s = 0 AND "
                                              "checkpoint_s = 0 AND restart_s = 0"),
                  0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("acct.sqlite",
                                      "SELECT MAX(ABS(r.lost_node_hours - (SELECT SUM(nodes * "
                                      "lost_work_s) / 3600 FROM jobs WHERE run_id = r.id))) FROM runs r"),
                         0, 1e-6);
  /* the same failures for both policies (common random numbers): the same nodes at the same dates, until the
   * earlier of the two runs ends (a run counts the failures while it lasts) */
  CU_ASSERT_EQUAL(fl_cli_query("acct.sqlite",
                               "WITH f AS (SELECT r.replica, r.id, e.t_s, e.node FROM events e JOIN runs r ON r.id = "
                               "e.run_id WHERE e.kind IN (103, 104) AND e.t_s < (SELECT MIN(makespan_s) FROM runs)) "
                               "SELECT (SELECT COUNT(*) FROM (SELECT replica, t_s, node FROM f WHERE id <= 2 EXCEPT "
                               "SELECT replica, t_s, node FROM f WHERE id > 2)) + (SELECT COUNT(*) FROM (SELECT "
                               "replica, t_s, node FROM f WHERE id > 2 EXCEPT SELECT replica, t_s, node FROM f WHERE "
                               "id <= 2))"),
                  0);
  CU_ASSERT(fl_cli_query("acct.sqlite", "SELECT COUNT(*) FROM events WHERE kind IN (103, 104)") > 40);
  /* a row comes back identical, its jobs too (each replica runs from SimGrid's clock at zero) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun acct.sqlite 4", 120), 0);
  /* shards merge with their jobs */
  CU_ASSERT_EQUAL(fl_cli_run_limited("merge acct.sqlite --db merged.sqlite", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_query("merged.sqlite", "SELECT COUNT(*) FROM jobs"), 4 * 400);
}

static void test_conservative_under_failures(void)
{
  /* Checkpoints make jobs overrun their requested times; conservative backfilling used to start jobs on the nodes of
   * an overrun one and stop the run (534 jobs into this trace). Now it completes, and at no instant do the jobs
   * hold more nodes than the machine has (each hold from a start to the end or failure that follows it). */
  char ini[2048];
  snprintf(ini, sizeof ini,
           "[run]\nname = cons\nreplicas = 1\nevents = all\n[platform]\nnodes = 100\ncabinet = 20\n"
           "link_bandwidth = 1GBps\ncabinet_bandwidth = 10GBps\npfs_servers = 2\npfs_bandwidth = 200MBps\n"
           "pfs_link_bandwidth = 1GBps\n[failures]\nmodel = exponential\nnode_mtbf = 60d\nrepair = 1h\n"
           "[app]\nkind = workload\ntrace = %s\njobs = 3000\nscheduler = conservative\ncheckpoint_size = 1GB\n"
           "[strategy]\nkind = checkpoint\ninterval = daly\n",
           fl_test_src("data/workloads/KTH-SP2-1996-2.1-cln.swf.gz"));
  fl_cli_write("cons.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate cons.ini --db cons.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("cons.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND "
                                              "jobs_completed = 3000"),
                  1);
  CU_ASSERT(fl_cli_query("cons.sqlite", "SELECT failures FROM runs") > 10);
  CU_ASSERT(fl_cli_query("cons.sqlite", "SELECT COUNT(*) FROM jobs WHERE end_s - start_s > run_s") > 100);
  double most = fl_cli_query(
      "cons.sqlite",
      "WITH ev AS (SELECT rank AS job, kind, t_s, n, LEAD(t_s) OVER (PARTITION BY rank ORDER BY id) AS next_t "
      "FROM events WHERE kind IN (101, 102, 103)), iv AS (SELECT t_s AS a, next_t AS b, n FROM ev WHERE kind = 101), "
      "d AS (SELECT a AS x, n AS dn, 1 AS o FROM iv UNION ALL SELECT b, -n, 0 FROM iv) "
      "SELECT MAX(s) FROM (SELECT SUM(dn) OVER (ORDER BY x, o ROWS UNBOUNDED PRECEDING) AS s FROM d)");
  CU_ASSERT(most > 50 && most <= 100);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun cons.sqlite 1", 120), 0);
}

static void test_generated_mix(void)
{
  /* app.jobs without a trace: a generated mix, the same jobs in every replica and configuration */
  fl_cli_write("gen.ini", "[run]\nname = gen\nreplicas = 2\nsweep = app.scheduler=fcfs,easy\n[platform]\nnodes = 64\n"
                          "[failures]\nmodel = none\n[app]\nkind = workload\njobs = 200\njob_nodes = 3-40\n"
                          "job_time = 2h\narrival = 20min\n[strategy]\nkind = none\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate gen.ini --db gen.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_query("gen.sqlite", "SELECT COUNT(*) FROM jobs"), 4 * 200);
  /* powers of two in [3, 40]: 4, 8, 16, 32, each drawn */
  CU_ASSERT_EQUAL(fl_cli_query("gen.sqlite", "SELECT COUNT(*) FROM jobs WHERE nodes NOT IN (4, 8, 16, 32)"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("gen.sqlite", "SELECT COUNT(DISTINCT nodes) FROM jobs"), 4);
  /* run times within [1h, 3h], the same job the same everywhere */
  CU_ASSERT_EQUAL(fl_cli_query("gen.sqlite", "SELECT COUNT(*) FROM jobs WHERE run_s < 3600 OR run_s > 10800"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("gen.sqlite", "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT run_s || '/' || submit_s || "
                                             "'/' || nodes) AS n FROM jobs GROUP BY job)"),
                  1);
  /* mean gap near 20 min (200 exponential gaps: within 25 %) */
  double last = fl_cli_query("gen.sqlite", "SELECT MAX(submit_s) FROM jobs");
  CU_ASSERT(last / 199.0 > 0.75 * 1200.0 && last / 199.0 < 1.25 * 1200.0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate gen.ini --db g2.sqlite --set app.job_nodes=8-4", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "expected MIN-MAX nodes"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate gen.ini --db g2.sqlite --set app.job_nodes=8-128", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "jobs of up to 128 nodes, but the machine has 64"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate gen.ini --db g2.sqlite --set app.jobs=0", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "or app.jobs to generate"));
  CU_ASSERT_FALSE(fl_cli_exists("g2.sqlite"));
}

/* Replication, by hand. One job of 2 nodes, 100 s, on a machine of 4 with strategy replication (2 copies): it holds
 * all 4 nodes, taken lowest first: copy 0 of ranks 0 and 1 on nodes 0 and 1, copy 1 on nodes 2 and 3. No
 * checkpoint (interval never).
 *   masked: node 1 fails at 30 s, node 2 at 50 s: each rank keeps a copy; the job ends at 100 s, 2 failures, no
 *           interruption, no work lost; two failure/job-copy events, each with 1 copy left.
 *   lost:   node 0 fails at 30 s (down 50 s), node 2 at 60 s (down 10 s): both copies of rank 0 are gone, the job
 *           stops with 60 s of work lost and starts over; it needs 4 nodes, and 0 and 2 are down until 80 s and
 *           70 s: it starts again at 80 s and ends at 180 s.
 * Utilisation counts the job's own nodes only: 2 x 100 node-seconds over 4 x span. */
static void test_replication_by_hand(void)
{
  char trace[256] = "; MaxNodes: 4\n";
  fl_job(trace, sizeof trace, 1, 0, 100, 2, 100);
  fl_cli_write("rep.swf", trace);
  fl_cli_write("rep-masked.csv", "30, 1, 1000\n50, 2, 1000\n");
  fl_cli_write("rep-lost.csv", "30, 0, 50\n60, 2, 10\n");
  fl_cli_write("rep.ini", "[run]\nname = rep\nreplicas = 1\nevents = all\n"
                          "sweep = failures.trace=rep-masked.csv,rep-lost.csv\n[platform]\nnodes = 4\n"
                          "[failures]\nmodel = trace\n[app]\nkind = workload\ntrace = rep.swf\n"
                          "[strategy]\nkind = replication\ninterval = never\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate rep.ini --db rep.sqlite --quiet", 60), 0);
  long masked = (long)fl_cli_query("rep.sqlite", "SELECT id FROM runs WHERE overrides LIKE '%masked%'"),
       lost = 3 - masked;
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", masked, 1, "end_s"), 100);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", masked, 1, "failures"), 2);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", masked, 1, "lost_work_s"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("rep.sqlite", "SELECT COUNT(*) FROM events WHERE kind = 108 AND n = 1 AND run_id = "
                                             "(SELECT id FROM runs WHERE overrides LIKE '%masked%')"),
                  2);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("rep.sqlite", "SELECT utilisation FROM runs WHERE overrides LIKE '%masked%'"),
                         200.0 / 400.0, 1e-12);
  CU_ASSERT_EQUAL(fl_cli_query("rep.sqlite", "SELECT interruptions FROM runs WHERE overrides LIKE '%masked%'"), 0);
  /* the price: the second copy's 2 x 100 node-seconds, in the overhead */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("rep.sqlite", "SELECT replica_node_hours * 3600 FROM runs WHERE overrides LIKE "
                                                    "'%masked%'"),
                         200.0, 1e-9);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", lost, 1, "start_s"), 0);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", lost, 1, "end_s"), 180);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", lost, 1, "lost_work_s"), 60);
  CU_ASSERT_EQUAL(fl_job_col("rep.sqlite", lost, 1, "failures"), 2);
  CU_ASSERT_EQUAL(fl_cli_query("rep.sqlite", "SELECT interruptions FROM runs WHERE overrides LIKE '%lost%'"), 1);
  /* lost node-hours count every node the job held: 4 x 60 s */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("rep.sqlite", "SELECT lost_node_hours * 3600 FROM runs WHERE overrides LIKE "
                                                    "'%lost%'"),
                         240.0, 1e-9);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun rep.sqlite 2", 60), 0);
  /* three copies of 2 nodes do not fit 4: the job runs with the 2 that do, and simulate says so */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate rep.ini --db rep3.sqlite --set strategy.degree=3", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "1 jobs with fewer copies"));
  CU_ASSERT_EQUAL(fl_cli_query("rep3.sqlite", "SELECT MIN(copies) * 10 + MAX(copies) FROM jobs"), 22);
  CU_ASSERT_EQUAL(fl_cli_query("rep.sqlite", "SELECT MIN(copies) * 10 + MAX(copies) FROM jobs"), 22);
}

/* The buddy level, restart in place, and the two-level's fall back to files. One job of 2 nodes, 100 s, a
 * checkpoint every 30 s of compute (work 30, 60, 90) of 1 GB a node; node 0 fails at 75 s (down 20 s), after the
 * second checkpoint.
 *   buddy, on a machine of 4: the job keeps node 1, takes node 2 (the lowest free one) for node 0, and reads rank
 *     0's copy back from node 1: it never waits for nodes; it loses the work since its second checkpoint ended,
 *     75 - (60 + 2 delta) s with delta a buddy checkpoint's cost, and its time on nodes is exactly its run, its
 *     loss, its checkpoints and its restart.
 *   two-level (file_every = 2), on a machine of 2: no node to take, the partner copies go with the job's nodes:
 *     it restarts from the file level (the second checkpoint, work 60: both levels hold it, the newest), waiting
 *     for node 0 until 95 s; its time from start to end is the same sum plus those 20 s. */
static void test_buddy_in_place(void)
{
  char ini[2048], trace[256] = "; MaxNodes: 4\n";
  fl_job(trace, sizeof trace, 1, 0, 100, 2, 200);
  fl_cli_write("bud.swf", trace);
  fl_cli_write("bud.csv", "75, 0, 20\n");
  snprintf(ini, sizeof ini,
           "[run]\nname = bud\nreplicas = 1\nevents = all\n"
           "sweep = strategy.kind+app.nodes=buddy/4,two-level/2\n%s[failures]\nmodel = trace\ntrace = bud.csv\n"
           "[app]\nkind = workload\ntrace = bud.swf\ncheckpoint_size = 1GB\n[strategy]\ninterval = 30s\n"
           "file_every = 2\n",
           fl_pfs_platform);
  fl_cli_write("bud.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate bud.ini --db bud.sqlite --quiet", 60), 0);
  long buddy = (long)fl_cli_query("bud.sqlite", "SELECT id FROM runs WHERE strategy = 'buddy'"), two = 3 - buddy;
  const char *sum = "run_s + lost_work_s + checkpoint_s + restart_s + io_wait_s";
  char sql[512];
  double delta = fl_job_col("bud.sqlite", buddy, 1, "checkpoint_s") / 3.0;
  CU_ASSERT(delta > 0.005 && delta < 0.05); /* 1 GB over 100 GB/s links */
  CU_ASSERT_EQUAL(fl_job_col("bud.sqlite", buddy, 1, "checkpoints"), 3);
  CU_ASSERT_EQUAL(fl_job_col("bud.sqlite", buddy, 1, "failures"), 1);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("bud.sqlite", buddy, 1, "lost_work_s"), 75.0 - 60.0 - 2.0 * delta, 1e-6);
  CU_ASSERT(fl_job_col("bud.sqlite", buddy, 1, "restart_s") > 0);
  snprintf(sql, sizeof sql, "SELECT end_s - start_s - (%s) FROM jobs WHERE run_id = %ld", sum, buddy);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bud.sqlite", sql), 0.0, 1e-6);
  /* one start (in place: no second), the read from node 1 onto node 2, node 2 busy from then */
  snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM events WHERE run_id = %ld AND kind = 101", buddy);
  CU_ASSERT_EQUAL(fl_cli_query("bud.sqlite", sql), 1);
  snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM events WHERE run_id = %ld AND kind = 107", buddy);
  CU_ASSERT_EQUAL(fl_cli_query("bud.sqlite", sql), 1);
  /* two-level: back to the file level, after waiting for node 0 */
  CU_ASSERT_EQUAL(fl_job_col("bud.sqlite", two, 1, "failures"), 1);
  snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM events WHERE run_id = %ld AND kind = 101", two);
  CU_ASSERT_EQUAL(fl_cli_query("bud.sqlite", sql), 2);
  snprintf(sql, sizeof sql, "SELECT t_s FROM events WHERE run_id = %ld AND kind = 101 ORDER BY id DESC LIMIT 1", two);
  CU_ASSERT_EQUAL(fl_cli_query("bud.sqlite", sql), 95);
  snprintf(sql, sizeof sql,
           "SELECT COUNT(*) FROM events WHERE run_id = %ld AND kind = 107 AND level = 'file' AND "
           "value = 60",
           two);
  CU_ASSERT_EQUAL(fl_cli_query("bud.sqlite", sql), 1);
  snprintf(sql, sizeof sql, "SELECT end_s - start_s - 20 - (%s) FROM jobs WHERE run_id = %ld", sum, two);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bud.sqlite", sql), 0.0, 1e-6);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun bud.sqlite 1", 60), 0);
  /* a job of one node has no partner: none under buddy (it starts over), files only under two-level */
  trace[0] = '\0';
  fl_job(trace, sizeof trace, 1, 0, 100, 1, 200);
  fl_cli_write("bud1.swf", trace);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate bud.ini --db bud1.sqlite --quiet --set app.trace=bud1.swf", 60),
                        0);
  CU_ASSERT_EQUAL(fl_cli_query("bud1.sqlite", "SELECT j.checkpoints FROM jobs j JOIN runs r ON r.id = j.run_id WHERE "
                                              "r.strategy = 'buddy'"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_query("bud1.sqlite", "SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE "
                                              "r.strategy = 'two-level' AND e.kind = 106 AND e.level = 'file'"),
                  3);
}

/* Every strategy the workload engine runs (multilevel: local, XOR and file), under many failures on a generated mix:
 * every job ends, and the time
 * each held its nodes — from its start to the failure that sent it back to the queue or to its end; a failure it
 * restarted from in place (n = 1; a stored -1 reads NULL) does not end its hold — is its run time plus its lost
 * compute, checkpoint, restart and I/O-wait time; the run's node-hours are its jobs' (nodes x copies). */
static void test_strategies_accounting(void)
{
  fl_cli_write("strat.ini", "[run]\nname = strat\nreplicas = 2\nevents = all\n"
                            "sweep = strategy.kind=checkpoint,buddy,two-level,replication,multilevel\n"
                            "[platform]\nnodes = 32\ncabinet = 8\nlink_bandwidth = 1GBps\ncabinet_bandwidth = 4GBps\n"
                            "disk_bandwidth = 1GBps\n"
                            "pfs_servers = 2\npfs_bandwidth = 500MBps\npfs_link_bandwidth = 2GBps\n"
                            "[failures]\nmodel = exponential\nnode_mtbf = 2d\nrepair = 2h\n"
                            "[app]\nkind = workload\njobs = 60\njob_nodes = 1-16\njob_time = 3h\narrival = 20min\n"
                            "checkpoint_size = 2GB\n[strategy]\ninterval = daly\nfile_every = 3\n"
                            "levels = local:1 xor:2 file:4\nxor_group = 4\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate strat.ini --db strat.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_query("strat.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND "
                                               "jobs_completed = 60"),
                  10);
  const char *held =
      "WITH ev AS (SELECT run_id, rank AS job, kind, t_s, LEAD(t_s) OVER (PARTITION BY run_id, rank ORDER BY id) AS "
      "next_t FROM events WHERE kind IN (101, 102) OR (kind = 103 AND n IS NOT 1)), "
      "h AS (SELECT run_id, job, SUM(next_t - t_s) AS held FROM ev WHERE kind = 101 GROUP BY run_id, job) "
      "SELECT %s FROM h JOIN jobs j USING (run_id, job)";
  char sql[1024];
  snprintf(sql, sizeof sql, held,
           "MAX(ABS(held - (j.run_s + j.lost_work_s + j.checkpoint_s + j.restart_s + j.io_wait_s)))");
  double worst = fl_cli_query("strat.sqlite", sql);
  CU_ASSERT(worst < 1e-6);
  if (!(worst < 1e-6))
    fprintf(stderr, "\n  held time differs from the accounting by %g s\n", worst);
  snprintf(sql, sizeof sql, held, "COUNT(*)");
  CU_ASSERT_EQUAL(fl_cli_query("strat.sqlite", sql), 10 * 60);
  /* each strategy did what it is for: in-place restarts (buddy, two-level), masked failures (replication) */
  CU_ASSERT(fl_cli_query("strat.sqlite", "SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE "
                                         "r.strategy = 'buddy' AND e.kind = 103 AND e.n = 1") > 0);
  CU_ASSERT(fl_cli_query("strat.sqlite", "SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE "
                                         "r.strategy = 'replication' AND e.kind = 108") > 0);
  CU_ASSERT(fl_cli_query("strat.sqlite", "SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE "
                                         "r.strategy = 'two-level' AND e.kind = 106 AND e.level = 'file'") > 0);
  /* multilevel: every level written, the local level never read back (a failure takes the node's disk) */
  CU_ASSERT_EQUAL(fl_cli_query("strat.sqlite", "SELECT COUNT(DISTINCT e.level) FROM events e JOIN runs r ON r.id = "
                                               "e.run_id WHERE r.strategy = 'multilevel' AND e.kind = 106"),
                  3);
  CU_ASSERT_EQUAL(fl_cli_query("strat.sqlite", "SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE "
                                               "r.strategy = 'multilevel' AND e.kind = 107 AND e.level = 'local'"),
                  0);
  /* node-hours: the jobs' held nodes */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("strat.sqlite",
                                      "SELECT MAX(ABS(r.lost_node_hours - (SELECT SUM(nodes * copies * lost_work_s) / "
                                      "3600 FROM jobs WHERE run_id = r.id))) FROM runs r"),
                         0, 1e-6);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun strat.sqlite 3", 120), 0); /* buddy */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun strat.sqlite 7", 120), 0); /* replication */
}

/* Cooperative periods (app.checkpoint_period), by hand. Four jobs of 2 nodes, 100 s each, all at t = 0, on the
 * PFS platform (one server whose disk writes 1 GB/s, every link faster): 1 GB a node, so a job's checkpoint takes
 * L = 2 s of the whole PFS, and the PFS's bandwidth read off a checkpoint of all 12 nodes is that disk's. The one
 * failure of the log (node 11, which no job holds, at 1 s) makes the nodes' MTBF 12 s: Young's own period,
 * sqrt(2 C mu) with C = 2 s and mu = 6 s, is 4.9 s, and four jobs would keep the PFS busy 4 x 2 / 4.9 = 163 % of
 * the time. The cooperative periods fill it exactly: four like jobs, 4 x 2 / P = 1, P = 8 s: 12 segments of 8 s
 * then 4 s, so 12 checkpoints each (own periods: more). */
/* platform.io_flows = aggregated: a job's file-level I/O moves per cabinet and server (sim/workload/).
 *   Where the PFS's disks bound it, it is the per-node flows' answer: a generated mix under failures (replication's
 *   copies too) gives every job the same start, end, checkpoint and restart seconds in both forms (the runs pair
 *   up: same replica, same failures), to 1e-6 relative.
 *   Where a server's link bounds it, transfers share it per transfer, not per node (the form's documented
 *   difference), worked by hand: 1 server, its link 1 GB/s (0.97 of it to a flow under SimGrid's LV08), its disk
 *   fast; job 1 of 3 nodes (cabinet 0, nodes 0-2) and job 2 of 1 node (node 3, same cabinet: cabinets of 4, so
 *   nodes 4.. are cabinet 1) start at 0 and checkpoint 1 GB a node at 10 s, together.
 *     per node: 4 equal flows of 1 GB at 0.97/4 GB/s each: both jobs' checkpoints take 4/0.97 = 4.124 s.
 *     aggregated, both jobs in cabinet 0: job 1 one transfer of 3 GB, job 2 one of 1 GB, 0.485 GB/s each: job 2's
 *     ends at 1/0.485 = 2.062 s, job 1's 2 GB left then go at 0.97: 4.124 s.
 *   A strategy writing another level (two-level's buddy copies) is refused with aggregated flows (exit 2, no file),
 *   and so is a platform file (no cabinets to aggregate over). */
static void test_aggregated_io(void)
{
  char ini[2048], trace[512] = "; MaxNodes: 8\n";
  snprintf(ini, sizeof ini,
           "[run]\nname = agg\nreplicas = 2\nsweep = platform.io_flows=per-rank,aggregated\n"
           "[platform]\nnodes = 60\ncabinet = 10\nlink_bandwidth = 20GBps\ncabinet_bandwidth = 200GBps\n"
           "pfs_servers = 4\npfs_bandwidth = 1GBps\npfs_link_bandwidth = 50GBps\n"
           "[failures]\nmodel = exponential\nnode_mtbf = 3d\nrepair = 1h\n"
           "[app]\nkind = workload\njobs = 80\njob_nodes = 1-24\njob_time = 2h\narrival = 10min\n"
           "checkpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = daly\n");
  fl_cli_write("agg.ini", ini);
  for (int rep = 0; rep < 2; rep++) {
    const char *db = rep ? "aggr.sqlite" : "agg.sqlite";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "simulate agg.ini --db %s --quiet%s", db,
             rep ? " --set strategy.kind=replication --set strategy.degree=2" : "");
    CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(cmd, 120), 0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE jobs_completed = 80"), 4);
    CU_ASSERT(fl_cli_query(db, "SELECT MIN(failures) FROM runs") > 2);
    CU_ASSERT(fl_cli_query(db, "SELECT MIN(checkpoints) FROM runs") > 20);
    if (rep == 0) /* replication's copies mask most failures */
      CU_ASSERT(fl_cli_query(db, "SELECT SUM(restart_s > 0) FROM jobs") > 0);
    /* each job of a per-rank run beside the same job of the aggregated run of the same replica */
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM jobs a JOIN runs ra ON ra.id = a.run_id JOIN runs rb ON "
                                     "rb.replica = ra.replica AND rb.overrides LIKE '%aggregated%' JOIN jobs b ON "
                                     "b.run_id = rb.id AND b.job = a.job WHERE ra.overrides LIKE '%per-rank%'"),
                    160);
    double worst = fl_cli_query(
        db, "SELECT MAX(MAX(ABS(a.end_s - b.end_s) / a.end_s, ABS(a.start_s - b.start_s) / MAX(a.start_s, 1), "
            "ABS(a.checkpoint_s - b.checkpoint_s) / MAX(a.checkpoint_s, 1), ABS(a.restart_s - b.restart_s) / "
            "MAX(a.restart_s, 1), ABS(a.failures - b.failures))) FROM jobs a JOIN runs ra ON ra.id = a.run_id JOIN "
            "runs rb ON rb.replica = ra.replica AND rb.overrides LIKE '%aggregated%' JOIN jobs b ON b.run_id = rb.id "
            "AND b.job = a.job WHERE ra.overrides LIKE '%per-rank%'");
    CU_ASSERT(worst < 1e-6);
    if (!(worst < 1e-6))
      fprintf(stderr, "\n  %s: aggregated against per-rank: worst relative difference %g\n", db, worst);
  }
  /* a workload row written before aggregated I/O (its stored figures changed here) is flagged by rerun, when it ran
   * aggregated, in one line; a per-rank one that differs is not */
  {
    sqlite3 *h = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("agg.sqlite"), &h), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h,
                                 "UPDATE runs SET makespan_s = makespan_s * 1.01, created_at = '2026-11-27T12:00:00Z'",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(h);
    for (int id = 1; id <= 4; id++) {
      char args[64], q[96];
      snprintf(q, sizeof q, "SELECT overrides LIKE '%%io_flows=aggregated%%' FROM runs WHERE id = %d", id);
      int aggregated = fl_cli_query("agg.sqlite", q) > 0;
      snprintf(args, sizeof args, "rerun agg.sqlite %d", id);
      CU_ASSERT_EQUAL(fl_cli_run_limited(args, 120), 1);
      CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "DIFFERENT"));
      CU_ASSERT_EQUAL(strstr(fl_cli_out, "expected for a workload row written before 2026-11-29") != NULL, aggregated);
    }
  }
  /* by hand: a server's link shared per transfer */
  fl_job(trace, sizeof trace, 1, 0, 15, 3, 100);
  fl_job(trace, sizeof trace, 2, 0, 15, 1, 100);
  fl_cli_write("aggh.swf", trace);
  fl_cli_write("aggh.ini", "[run]\nname = aggh\nreplicas = 1\nsweep = platform.io_flows=per-rank,aggregated\n"
                           "[platform]\nnodes = 8\ncabinet = 4\nlink_bandwidth = 100GBps\ncabinet_bandwidth = 1TBps\n"
                           "pfs_servers = 1\npfs_bandwidth = 1TBps\npfs_link_bandwidth = 1GBps\n"
                           "[failures]\nmodel = none\n[app]\nkind = workload\ntrace = aggh.swf\n"
                           "checkpoint_size = 1GB\n[strategy]\nkind = checkpoint\ninterval = 10s\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate aggh.ini --db aggh.sqlite --quiet", 60), 0);
  long per = (long)fl_cli_query("aggh.sqlite", "SELECT id FROM runs WHERE overrides LIKE '%per-rank%'"), agg = 3 - per;
  CU_ASSERT_EQUAL(fl_job_col("aggh.sqlite", per, 1, "checkpoints"), 1);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("aggh.sqlite", per, 1, "checkpoint_s"), 4.0 / 0.97, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("aggh.sqlite", per, 2, "checkpoint_s"), 4.0 / 0.97, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("aggh.sqlite", agg, 1, "checkpoint_s"), 4.0 / 0.97, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("aggh.sqlite", agg, 2, "checkpoint_s"), 2.0 / 0.97, 1e-3);
  /* another level than files: refused */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate agg.ini --db agg2.sqlite --quiet --set platform.io_flows=aggregated "
                                     "--set strategy.kind=two-level --set run.sweep=",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "platform.io_flows"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "buddy level"));
  CU_ASSERT_FALSE(fl_cli_exists("agg2.sqlite"));
  /* a platform file has no cabinets to aggregate over: refused */
  {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "simulate agg.ini --db agg3.sqlite --quiet --set platform.io_flows=aggregated --set platform.nodes=0 "
             "--set platform.file=%s --set run.sweep=",
             fl_test_src("sim/platforms/small-cluster.xml"));
    CU_ASSERT_EQUAL(fl_cli_run_limited(cmd, 60), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "a platform file has none to group"));
    CU_ASSERT_FALSE(fl_cli_exists("agg3.sqlite"));
  }
}

/* A replica streams the trace: it holds the jobs in flight (a window from the first unfinished to the last
 * arrived), not the trace.
 *   The hand schedule above with its lines out of submit order (job 3's line first): read whole and sorted, the
 *   same start times (FCFS 0, 10, 15, 15; EASY 0, 10, 2, 15) and one row per job; with app.jobs = 1, the first
 *   job in submit order is the one checked against the machine.
 *   500 jobs of the whole machine submitted at once, 10 s each, then one more at 1 s: the window grows to hold
 *   every waiting job (from 64, doubling), the jobs end at 10, 20, ... in order and retire as they end; the job
 *   at 1 s starts after all of them under FCFS: at 5,000 s. Every job's row is written, and
 *   app.jobs = 100 keeps the first 100 in submit order (the last job, submitted at 1 s, is not among them). */
static void test_streamed_trace(void)
{
  static const int order[] = {3, 1, 2, 4};
  fl_hand_write("unsorted", order);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate unsorted.ini --db unsorted.sqlite --quiet", 60), 0);
  for (long run = 1; run <= 2; run++)
    fl_hand_starts("unsorted.sqlite", run);
  CU_ASSERT_EQUAL(fl_cli_query("unsorted.sqlite", "SELECT COUNT(*) FROM jobs"), 8);
  /* app.jobs = 1 of an out-of-order trace is the first in submit order: job 9 on line 3, too large, refused */
  fl_cli_write("unsorted2.swf", "; MaxNodes: 16\n1 10 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1\n"
                                "9 0 -1 5 8 -1 -1 8 5 -1 1 1 1 -1 1 -1 -1 -1\n");
  CU_ASSERT_EQUAL(
      fl_cli_run_limited("simulate unsorted.ini --db unsorted2.sqlite --quiet --set app.trace=unsorted2.swf "
                         "--set app.jobs=1",
                         60),
      2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "unsorted2.swf:3: field 5 (allocated processors) '8': 8 nodes"));
  CU_ASSERT_FALSE(fl_cli_exists("unsorted2.sqlite"));
  /* a queue of 500 */
  {
    size_t cap = 64 * 1024, len;
    char *big = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    snprintf(big, cap, "; MaxNodes: 4\n");
    for (long j = 1; j <= 500; j++) {
      len = strlen(big);
      snprintf(big + len, cap - len, "%ld 0 -1 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n", j);
    }
    len = strlen(big);
    snprintf(big + len, cap - len, "501 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
    fl_cli_write("queue.swf", big);
    free(big);
  }
  fl_cli_write("queue.ini", "[run]\nname = queue\nreplicas = 1\n[platform]\nnodes = 4\n[failures]\nmodel = none\n"
                            "[app]\nkind = workload\ntrace = queue.swf\nscheduler = fcfs\n[strategy]\nkind = none\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate queue.ini --db queue.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_query("queue.sqlite", "SELECT COUNT(*) FROM jobs"), 501);
  CU_ASSERT_EQUAL(fl_cli_query("queue.sqlite",
                               "SELECT COUNT(*) FROM jobs WHERE job <= 500 AND start_s = 10 * (job - 1) "
                               "AND end_s = 10 * job"),
                  500);
  CU_ASSERT_EQUAL(fl_job_col("queue.sqlite", 1, 501, "start_s"), 5000);
  /* one row for each job */
  CU_ASSERT_EQUAL(fl_cli_query("queue.sqlite", "SELECT COUNT(DISTINCT job) * 10000 + MIN(job) * 1000 + MAX(job) FROM "
                                               "jobs"),
                  501 * 10000 + 1000 + 501);
  CU_ASSERT_EQUAL(fl_cli_query("queue.sqlite", "SELECT jobs_completed FROM runs"), 501);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate queue.ini --db queue100.sqlite --quiet --set app.jobs=100", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_query("queue100.sqlite", "SELECT COUNT(*) FROM jobs"), 100);
  CU_ASSERT_EQUAL(fl_cli_query("queue100.sqlite", "SELECT MAX(job) FROM jobs"), 100);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun queue.sqlite 1", 60), 0);
}

static void test_cooperative_periods(void)
{
  char ini[2048], trace[512] = "; MaxNodes: 12\n";
  for (long j = 1; j <= 4; j++)
    fl_job(trace, sizeof trace, j, 0, 100, 2, 1000);
  fl_cli_write("cp.swf", trace);
  fl_cli_write("cp.csv", "1, 11, 1\n");
  snprintf(ini, sizeof ini,
           "[run]\nname = cp\nreplicas = 1\nsweep = app.checkpoint_period=own,cooperative\n%s[failures]\n"
           "model = trace\ntrace = cp.csv\n[app]\nkind = workload\ntrace = cp.swf\ncheckpoint_size = 1GB\n"
           "[strategy]\nkind = checkpoint\ninterval = young\n",
           fl_pfs_platform);
  fl_cli_write("cp.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate cp.ini --db cp.sqlite --quiet", 60), 0);
  long coop = (long)fl_cli_query("cp.sqlite", "SELECT id FROM runs WHERE interval_rule = 'young, cooperative'"),
       own = 3 - coop;
  CU_ASSERT_FATAL(coop == 1 || coop == 2);
  CU_ASSERT_EQUAL(fl_cli_query("cp.sqlite", "SELECT COUNT(*) FROM runs WHERE interval_rule IS NULL"), 1);
  for (long j = 1; j <= 4; j++) {
    CU_ASSERT_EQUAL(fl_job_col("cp.sqlite", coop, j, "checkpoints"), 12);
    CU_ASSERT(fl_job_col("cp.sqlite", own, j, "checkpoints") > 12);
    CU_ASSERT_EQUAL(fl_job_col("cp.sqlite", coop, j, "failures"), 0);
  }
  /* the first checkpoints end together: 8 s of compute, then 8 GB through the 1 GB/s disk, 8 s; every job's
   * checkpoint time is its 12 such */
  CU_ASSERT_DOUBLE_EQUAL(fl_job_col("cp.sqlite", coop, 1, "checkpoint_s"), 12 * 8.0, 0.05);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun cp.sqlite 1", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun cp.sqlite 2", 60), 0);
  /* only young or daly, only checkpoints that all go to the PFS: said, nothing written */
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate cp.ini --db cp2.sqlite --set app.checkpoint_period=cooperative "
                                     "--set run.sweep= --set strategy.interval=1h",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "app.checkpoint_period"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate cp.ini --db cp2.sqlite --set app.checkpoint_period=cooperative "
                                     "--set run.sweep= --set strategy.kind=two-level",
                                     60),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "two-level"));
  CU_ASSERT_EQUAL(fl_cli_exists("cp2.sqlite"), 0);
}

/* A restart in place does not take a node a waiting job's reservation counts on. A machine of 5 nodes under easy,
 * every job under buddy checkpoints every 2 s: job 1 (2 nodes, 500 s, asks 1000 s) and job 2 (2 nodes, 10 s, asks
 * 20 s) start at 0; job 3 (3 nodes, 50 s) comes at 1 and waits, its reservation at job 2's expected end, 20 s, when
 * 3 nodes are free (none extra). Node 0 of job 1 fails at 5 s (down for good). Its partner copies live and one node
 * is free, but a newcomer holding that node until job 1's expected end would delay job 3: job 1 does not stay; it
 * gives its nodes back, with its partner copies, goes to the back of the queue (app.restart = requeue) and starts
 * over, all its work lost. Job 2 ends (10 s and its checkpoints): 4 nodes are free and job 3 starts at that very
 * instant, as its reservation promised; kept in place, job 1 would have held the node and job 3 would have waited
 * for job 1's end, past 500 s. */
static void test_in_place_respects_reservation(void)
{
  char ini[2048], trace[512] = "; MaxNodes: 5\n";
  fl_job(trace, sizeof trace, 1, 0, 500, 2, 1000);
  fl_job(trace, sizeof trace, 2, 0, 10, 2, 20);
  fl_job(trace, sizeof trace, 3, 1, 50, 3, 50);
  fl_cli_write("ip.swf", trace);
  fl_cli_write("ip.csv", "5, 0, 100000\n");
  snprintf(ini, sizeof ini,
           "[run]\nname = ip\nreplicas = 1\nevents = all\n%s[failures]\nmodel = trace\ntrace = ip.csv\n"
           "[app]\nkind = workload\nnodes = 5\ntrace = ip.swf\nscheduler = easy\nrestart = requeue\n"
           "checkpoint_size = 1GB\n[strategy]\nkind = buddy\ninterval = 2s\n",
           fl_pfs_platform);
  fl_cli_write("ip.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate ip.ini --db ip.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_job_col("ip.sqlite", 1, 3, "start_s"), fl_job_col("ip.sqlite", 1, 2, "end_s"));
  CU_ASSERT(fl_job_col("ip.sqlite", 1, 3, "start_s") < 11);
  CU_ASSERT_EQUAL(fl_job_col("ip.sqlite", 1, 1, "failures"), 1);
  CU_ASSERT(fl_job_col("ip.sqlite", 1, 1, "lost_work_s") > 4.9); /* its work since the start: 5 s less checkpoints */
  /* the failure is not marked as a restart in place (n = 1) */
  CU_ASSERT_EQUAL(fl_cli_query("ip.sqlite", "SELECT COUNT(*) FROM events WHERE kind = 103 AND n = 1"), 0);
  CU_ASSERT_EQUAL(fl_cli_query("ip.sqlite", "SELECT jobs_completed FROM runs"), 3);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun ip.sqlite 1", 60), 0);
}

static CU_TestInfo fl_tests[] = {
    {"schedules equal an independent replay on two real traces", test_independent_replay},
    {"the log's figures beside each scheduler's", test_summary},
    {"bad traces and options: one line, exit 2", test_bad_traces},
    {"simulate: a hand schedule, machine figures, report, rerun", test_simulate_hand_schedule},
    {"simulate: a job too large, unknown scheduler, no PFS, an interval rule it cannot honour: exit 2, no file",
     test_simulate_refuses},
    {"simulate: cooperative checkpoint I/O against the isolated cost", test_cooperative_io},
    {"simulate: cooperative periods fill the PFS, by hand", test_cooperative_periods},
    {"simulate: failures on a real trace, node-hours accounted exactly", test_failures_accounting},
    {"simulate: conservative backfilling under failures and checkpoints", test_conservative_under_failures},
    {"simulate: a generated job mix", test_generated_mix},
    {"simulate: failures replayed from LANL's log", test_failure_log},
    {"checkpoints of the trace's memory (app.checkpoint_memory), by hand", test_checkpoint_memory},
    {"simulate: least-waste's order, worked by hand", test_least_waste_order},
    {"simulate: replication, masked and lost copies, by hand", test_replication_by_hand},
    {"simulate: the buddy level in place, the two-level's files", test_buddy_in_place},
    {"simulate: a restart in place leaves a reservation's node alone", test_in_place_respects_reservation},
    {"simulate: every strategy's node-hours accounted exactly under failures", test_strategies_accounting},
    {"simulate: aggregated I/O, against per-node flows and by hand", test_aggregated_io},
    {"simulate: the trace streamed (a queue of 500), or held when out of order", test_streamed_trace},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo fl_suites[] = {
    {"workload", NULL, NULL, NULL, NULL, fl_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(fl_suites)
