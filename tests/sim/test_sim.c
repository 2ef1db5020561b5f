/* test_sim.c — the simulator on SimGrid: exact timelines from traces, the accounting of every second of a
 * makespan, reproducibility, common random numbers, running out of nodes, and agreement with Daly's T_w.
 * SimGrid loads one platform per process: every scenario here uses the same generated 64 nodes. */
#include "db.h"
#include "fl_test.h"
#include "interval.h"
#include "profiles.h"
#include "scenario.h"
#include "sim.h"
#include "strategy.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLATFORM "[platform]\nnodes = 64\n"

static fl_sim *make_sim(const char *text, fl_scenario **psc)
{
  char full[2048];
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  snprintf(full, sizeof full, PLATFORM "%s", text);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(full, "<test>", fl_test_tmpdir(), &sc), FL_OK);
  if (fl_sim_create(sc, &sim) != FL_OK)
    fprintf(stderr, "fl_sim_create: %s\n", fl_err_msg());
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  if (psc)
    *psc = sc;
  else
    fl_scenario_destroy(&sc);
  return sim;
}

static void write_trace(const char *name, const char *text)
{
  FILE *f = fopen(fl_test_tmp(name), "w");
  fputs(text, f);
  fclose(f);
}

static double accounted(const fl_sim_result *r, double work)
{
  return work + r->checkpoint_time_s + r->lost_work_s + r->restart_time_s + r->downtime_total_s + r->wait_nodes_s;
}

static void test_no_failures(void)
{
  fl_sim_result r;
  fl_sim *sim = make_sim("[failures]\nmodel = none\n[app]\nnodes = 64\nwork = 1000s\n"
                         "[strategy]\ninterval = 300s\ncheckpoint_cost = 10s\n",
                         NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1000.0 + 4 * 10.0, 1e-9); /* segments 300, 300, 300, 100 */
  CU_ASSERT_EQUAL(r.checkpoints, 4);
  CU_ASSERT_EQUAL(r.failures, 0);
  CU_ASSERT_EQUAL(r.interruptions, 0);
  fl_sim_destroy(&sim);

  sim = make_sim("[failures]\nmodel = none\n[app]\nnodes = 10\nwork = 1000s\n[strategy]\nkind = none\n", NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1000.0, 1e-9);
  CU_ASSERT_EQUAL(r.checkpoints, 0);
  CU_ASSERT(isinf(fl_sim_interval(sim)));
  fl_sim_destroy(&sim);
}

/* A trace gives a timeline we can work out by hand:
 *   segments of 100 s + 10 s checkpoint; committed 200 s of work at t = 220.
 *   t=250: node 3 (rank 3) fails while computing: 30 s lost; downtime 5 -> 255; rank 3 -> spare 63; restart 20.
 *   t=265: node 10 (rank 10) fails during the restart: 10 s of restart lost; downtime -> 270; restart -> 290.
 *   t=400: node 60, a spare, fails: logged, nothing interrupted.
 *   from 290: 8 segments of 110 s -> 1170. */
static void test_trace_timeline(void)
{
  fl_sim_result r;
  fl_evlog log;
  fl_sim *sim;
  long kinds[5] = {0};
  const char *names[5] = {"failure", "interruption", "restart", "checkpoint", "repair"};
  write_trace("timeline.csv", "250, 3\n265, node-10\n400, 60\n");
  sim = make_sim("[failures]\nmodel = trace\ntrace = timeline.csv\nrepair = never\n"
                 "[app]\nnodes = 60\nwork = 1000s\n"
                 "[strategy]\ninterval = 100s\ncheckpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  fl_evlog_init(&log, 2); /* every event and the phases */
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1170.0, 1e-9);
  CU_ASSERT_EQUAL(r.interruptions, 2);
  CU_ASSERT_EQUAL(r.failures, 2);
  CU_ASSERT_EQUAL(r.platform_failures, 3);
  CU_ASSERT_EQUAL(r.checkpoints, 10);
  CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, 30.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.restart_time_s, 30.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.downtime_total_s, 10.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 1000.0), r.makespan_s, 1e-9);
  for (size_t i = 0; i < log.n; i++)
    for (int k = 0; k < 5; k++)
      if (strcmp(fl_ev_kind_name(log.v[i].kind), names[k]) == 0)
        kinds[k]++;
  CU_ASSERT_EQUAL(kinds[0], 3);
  CU_ASSERT_EQUAL(kinds[1], 2);
  CU_ASSERT_EQUAL(kinds[2], 1);
  CU_ASSERT_EQUAL(kinds[3], 10);
  CU_ASSERT_EQUAL(kinds[4], 0);
  {
    size_t i = 0; /* the first checkpoint (after the first compute phase's event) */
    while (i < log.n && strcmp(fl_ev_kind_name(log.v[i].kind), "checkpoint") != 0)
      i++;
    CU_ASSERT_FATAL(i < log.n);
    CU_ASSERT_DOUBLE_EQUAL(log.v[i].t_s, 110.0, 1e-9);
    CU_ASSERT_STRING_EQUAL(fl_ev_kind_name(log.v[0].kind), "phase"); /* compute 0-100 */
    CU_ASSERT_DOUBLE_EQUAL(log.v[0].t_s, 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(log.v[0].value, 100.0, 1e-9);
  }
  /* replaying the trace again gives the same result */
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 1, &r, NULL), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1170.0, 1e-9);
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);
}

/* failures.trace_clock = work: a trace's failures strike when the job's work gets to theirs, whatever the time,
 * by hand (interval 100 s + 10 s checkpoints, restart 20 s, downtime 5 s, 1000 s of work, 1100 s failure-free):
 *   work 250 on node 3: at t = 270 (200 committed at t = 220): 50 s lost, 5 + 20 -> resume at 295 from 200, then
 *   800 s and 8 checkpoints: 1175 — what a time trace striking at 270 gives;
 *   work 300, a checkpoint's own work: after that checkpoint (t = 330), before the next segment: nothing lost,
 *   1125 (as faultline run's RANK@ITER strikes before iteration ITER, its checkpoint taken);
 *   work 1000, the end: never;
 *   under replication, a copy's node: masked, 1100, the failure counted. */
static void test_trace_by_work(void)
{
  static const struct {
    const char *trace, *strategy;
    double makespan, lost;
    long failures, interruptions;
  } cases[] = {
      {"250, 3\n", "checkpoint", 1175.0, 50.0, 1, 1},        {"300, 3\n", "checkpoint", 1125.0, 0.0, 1, 1},
      {"300, 3\n300, 3\n", "checkpoint", 1125.0, 0.0, 1, 1}, /* a node fails once */
      {"0, 3\n", "checkpoint", 1125.0, 0.0, 1, 1},           /* at the start */
      {"1000, 3\n", "checkpoint", 1100.0, 0.0, 0, 0},        {"999.5, 3\n", "checkpoint", 1224.5, 99.5, 1, 1},
      {"250, 3\n", "replication", 1100.0, 0.0, 1, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[1024];
    fl_sim_result r;
    fl_sim *sim;
    write_trace("by-work.csv", cases[c].trace);
    snprintf(text, sizeof text,
             "[failures]\nmodel = trace\ntrace = by-work.csv\ntrace_clock = work\nrepair = never\n"
             "[app]\nnodes = %d\nwork = 1000s\n[strategy]\nkind = %s\ninterval = 100s\ncheckpoint_cost = 10s\n"
             "restart_cost = 20s\ndowntime = 5s\n",
             strcmp(cases[c].strategy, "replication") == 0 ? 30 : 60, cases[c].strategy);
    sim = make_sim(text, NULL);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
    if (fabs(r.makespan_s - cases[c].makespan) > 1e-9)
      fprintf(stderr, "\n    case %zu: makespan %.9g, expected %.9g", c, r.makespan_s, cases[c].makespan);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, cases[c].makespan, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, cases[c].lost, 1e-9);
    CU_ASSERT_EQUAL(r.failures, cases[c].failures);
    CU_ASSERT_EQUAL(r.interruptions, cases[c].interruptions);
    /* the next replica replays them: the killed nodes are up again */
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 1, &r, NULL), FL_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, cases[c].makespan, 1e-9);
    fl_sim_destroy(&sim);
  }
  /* the time trace that strikes where the first case's work does: the same run */
  {
    fl_sim_result r;
    fl_sim *sim;
    write_trace("by-time.csv", "270, 3\n");
    sim = make_sim("[failures]\nmodel = trace\ntrace = by-time.csv\nrepair = never\n[app]\nnodes = 60\nwork = 1000s\n"
                   "[strategy]\ninterval = 100s\ncheckpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
                   NULL);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1175.0, 1e-9);
    fl_sim_destroy(&sim);
  }
}

/* ... and where it cannot mean anything: refused, naming the key or the trace's line. */
static void refused_by_sim(const char *text, const char *says)
{
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  char full[1024];
  snprintf(full, sizeof full, PLATFORM "%s", text);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(full, "<test>", fl_test_tmpdir(), &sc), FL_OK);
  CU_ASSERT_NOT_EQUAL(fl_sim_create(sc, &sim), FL_OK);
  if (!strstr(fl_err_msg(), says))
    fprintf(stderr, "\n    expected '%s' in: %s", says, fl_err_msg());
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), says));
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
}

static void test_trace_by_work_refused(void)
{
  write_trace("by-work.csv", "250, 3\n");
  write_trace("by-work-down.csv", "250, 3\n300, 4, 60\n");
  /* repaired nodes: failures placed by progress are permanent */
  refused_by_sim("[failures]\nmodel = trace\ntrace = by-work.csv\ntrace_clock = work\n[app]\nnodes = 60\n",
                 "failures.repair = never");
  /* no trace */
  refused_by_sim("[failures]\ntrace_clock = work\nrepair = never\n", "model = trace");
  /* a job that is not bsp */
  refused_by_sim("[failures]\nmodel = trace\ntrace = by-work.csv\ntrace_clock = work\nrepair = never\n"
                 "[app]\nkind = gridworld\ngrid = 4x4\n[strategy]\nkind = replication\n",
                 "app.kind = bsp");
  /* a downtime in the trace */
  refused_by_sim("[failures]\nmodel = trace\ntrace = by-work-down.csv\ntrace_clock = work\nrepair = never\n"
                 "[app]\nnodes = 60\n",
                 "by-work-down.csv:2");
}

/* Buddy checkpoints: rank 3 fails, then rank 4 — which holds rank 3's copy — fails before the next commit (during
 * the restart): rank 3's state is gone, the job starts over. Same trace as above otherwise:
 *   committed 200 s at t = 220; t = 250 rank 3 fails (30 s lost), downtime -> 255, restart from 255;
 *   t = 265 rank 4 fails: restart interrupted (10 s), downtime -> 270, restart -> 290; data lost: the 200
 *   committed seconds too; then 10 segments of 110 s: 1390. With the copies safe (a spare failing instead of
 *   rank 4), the job resumes from its checkpoint as under `checkpoint`. */
static void test_buddy_data_lost(void)
{
  fl_sim_result r;
  fl_evlog log;
  fl_sim *sim;
  int lost = 0;
  write_trace("buddy.csv", "250, 3\n265, 4\n");
  sim =
      make_sim("[failures]\nmodel = trace\ntrace = buddy.csv\nrepair = never\n[app]\nnodes = 60\nwork = 1000s\n"
               "[strategy]\nkind = buddy\ninterval = 100s\ncheckpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
               NULL);
  fl_evlog_init(&log, 1);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1390.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, 230.0, 1e-9);
  CU_ASSERT_EQUAL(r.checkpoints, 12);
  CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 1000.0), r.makespan_s, 1e-9);
  for (size_t i = 0; i < log.n; i++)
    lost += strcmp(fl_ev_kind_name(log.v[i].kind), "data-lost") == 0;
  CU_ASSERT_EQUAL(lost, 1);
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);

  write_trace("buddy-safe.csv", "250, 3\n265, 61\n");
  sim = make_sim("[failures]\nmodel = trace\ntrace = buddy-safe.csv\nrepair = never\n[app]\nnodes = 60\n"
                 "work = 1000s\n[strategy]\nkind = buddy\ninterval = 100s\ncheckpoint_cost = 10s\n"
                 "restart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1155.0, 1e-9); /* 30 lost + 5 down + 20 restart */
  fl_sim_destroy(&sim);
}

/* Two levels, the same pair of failures: buddy checkpoints of 10 s, every 2nd to files (30 s). Segments: 0-100
 * +10 (buddy, work 100), 110-210 +30 (file, 200), 240-340 +10 (buddy, 300); rank 3 fails at 355 (5 s of the
 * segment lost), downtime to 360, restart; rank 4, which holds rank 3's buddy copy, fails at 370 during it (10 s
 * of restart), downtime to 375, restart to 395. The buddy copy of work 300 is gone: the strategy rolls back to the
 * file level's 200 (100 s more lost) instead of starting over. Then 8 segments (4 file, 4 buddy): 960 s, 1355. */
static void test_two_level_rollback(void)
{
  fl_sim_result r;
  fl_evlog log;
  fl_sim *sim;
  int lost = 0, rollback = 0;
  write_trace("two-level.csv", "355, 3\n370, 4\n");
  sim = make_sim("[failures]\nmodel = trace\ntrace = two-level.csv\nrepair = never\n[app]\nnodes = 60\n"
                 "work = 1000s\n[strategy]\nkind = two-level\ninterval = 100s\ncheckpoint_cost = 10s\n"
                 "file_cost = 30s\nfile_every = 2\nrestart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  fl_evlog_init(&log, 1);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1355.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, 105.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.checkpoint_time_s, 210.0, 1e-9);
  CU_ASSERT_EQUAL(r.checkpoints, 11);
  CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 1000.0), r.makespan_s, 1e-9);
  for (size_t i = 0; i < log.n; i++) {
    lost += strcmp(fl_ev_kind_name(log.v[i].kind), "data-lost") == 0;
    rollback += strcmp(fl_ev_kind_name(log.v[i].kind), "rollback") == 0;
  }
  CU_ASSERT_EQUAL(lost, 0);
  CU_ASSERT_EQUAL(rollback, 1);
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);

  /* the same failures under buddy alone (segments of 110 s: rank 3 fails 25 s into the 4th): the job starts over,
   * 25 + 300 s lost */
  write_trace("two-level-buddy.csv", "355, 3\n370, 4\n");
  sim = make_sim("[failures]\nmodel = trace\ntrace = two-level-buddy.csv\nrepair = never\n[app]\nnodes = 60\n"
                 "work = 1000s\n[strategy]\nkind = buddy\ninterval = 100s\ncheckpoint_cost = 10s\n"
                 "restart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, 325.0, 1e-9);
  fl_sim_destroy(&sim);
}

/* multilevel "local:1 file:2", 100 s segments, 10 s checkpoints: local at work 100 (t 110), file at 200 (220),
 * local at 300 (330). Node 3 fails at 355: 25 s lost, downtime to 360, restart to 380; the node took rank 3's local
 * copy, so the job resumes from the file level's 200 (100 s more lost). 8 segments and checkpoints: 880 s, 1260. */
static void test_multilevel_node_loss(void)
{
  fl_sim_result r;
  fl_evlog log;
  fl_sim *sim;
  int rollback = 0, from_file = 0;
  write_trace("multilevel.csv", "355, 3\n");
  sim = make_sim(
      "[failures]\nmodel = trace\ntrace = multilevel.csv\nrepair = never\n[app]\nnodes = 60\n"
      "work = 1000s\n[strategy]\nkind = multilevel\nlevels = local:1 file:2\ninterval = 100s\nfile_cost = 10s\n"
      "checkpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
      NULL);
  fl_evlog_init(&log, 1);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1260.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, 125.0, 1e-9);
  CU_ASSERT_EQUAL(r.checkpoints, 11);
  CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 1000.0), r.makespan_s, 1e-9);
  for (size_t i = 0; i < log.n; i++) {
    rollback += strcmp(fl_ev_kind_name(log.v[i].kind), "rollback") == 0;
    from_file +=
        strcmp(fl_ev_kind_name(log.v[i].kind), "restart") == 0 && log.v[i].level && strcmp(log.v[i].level, "file") == 0;
  }
  CU_ASSERT_EQUAL(rollback, 1);
  CU_ASSERT_EQUAL(from_file, 1);
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);
}

/* strategy.flush = async, constant costs: "local:1 file:2", 100 s segments, local 10 s, a flush of 50 s
 * (file_cost) during which compute runs 1.5 times slower (flush_slowdown 0.5). Local at 110, then the file-level
 * checkpoint writes the local level (210-220) and drains until 270; the third segment does 50/1.5 s of work by
 * 270 and the rest after: it ends at 336.67; local to 346.67; the fourth segment and the last local write end at
 * 456.67 (a flush still draining at the end does not hold the job). */
static void test_async_flush_timeline(void)
{
  fl_sim_result r;
  fl_evlog log;
  int flushed = 0;
  fl_sim *sim = make_sim("[failures]\nmodel = none\n[app]\nnodes = 8\nwork = 400s\n[strategy]\nkind = multilevel\n"
                         "levels = local:1 file:2\ninterval = 100s\ncheckpoint_cost = 10s\nfile_cost = 50s\n"
                         "flush = async\nflush_slowdown = 0.5\n",
                         NULL);
  fl_evlog_init(&log, 1);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 400.0 + 4 * 10.0 + 50.0 + (100.0 - 50.0 / 1.5) - 100.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.checkpoint_time_s, 40.0 + 50.0 + (100.0 - 50.0 / 1.5) - 100.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 400.0), r.makespan_s, 1e-9);
  for (size_t i = 0; i < log.n; i++)
    if (strcmp(fl_ev_kind_name(log.v[i].kind), "flush") == 0) {
      flushed++;
      CU_ASSERT_DOUBLE_EQUAL(log.v[i].t_s, 270.0, 1e-9);
    }
  CU_ASSERT_EQUAL(flushed, 1);
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);
}

/* A flush holds the file level only once drained: node 3 lost at 250 (the flush of work 200 drains 220-270, no
 * slowdown) takes the local copies and the flush with them: from scratch (lost 30 + 200), downtime to 255, restart
 * to 275, then 4 segments and checkpoints again: 715. Lost at 280 instead, after the drain: back to the file
 * level's 200 (lost 60), downtime to 285, restart to 305, 2 segments and checkpoints: 525. */
static void test_async_flush_failures(void)
{
  static const struct {
    const char *trace;
    double makespan, lost;
    const char *event, *level; /* the event that says what happened: a level, or work of 200 s */
  } cases[] = {{"250, 3\n", 715.0, 230.0, "flush-lost", NULL}, {"280, 3\n", 525.0, 60.0, "restart", "file"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    fl_sim_result r;
    fl_evlog log;
    int seen = 0;
    fl_sim *sim;
    write_trace("async.csv", cases[c].trace);
    sim = make_sim("[failures]\nmodel = trace\ntrace = async.csv\nrepair = never\n[app]\nnodes = 60\nwork = 400s\n"
                   "[strategy]\nkind = multilevel\nlevels = local:1 file:2\ninterval = 100s\ncheckpoint_cost = 10s\n"
                   "file_cost = 50s\nflush = async\nrestart_cost = 20s\ndowntime = 5s\n",
                   NULL);
    fl_evlog_init(&log, 1);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, &log), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, cases[c].makespan, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, cases[c].lost, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 400.0), r.makespan_s, 1e-9);
    for (size_t i = 0; i < log.n; i++)
      seen +=
          strcmp(fl_ev_kind_name(log.v[i].kind), cases[c].event) == 0 &&
          (cases[c].level ? log.v[i].level && strcmp(log.v[i].level, cases[c].level) == 0 : log.v[i].value == 200.0);
    CU_ASSERT_EQUAL(seen, 1);
    fl_evlog_free(&log);
    fl_sim_destroy(&sim);
  }
}

/* The XOR level survives one lost node per set, not two: "xor:1 file:4", sets of 4 consecutive ranks (constant
 * costs: no cabinets), 100 s segments, 10 s checkpoints, XOR at 110, 220, 330. Node 3 lost at 355: back to the XOR
 * level's 300 (lost 25), downtime to 360, restart to 380, 7 more segments and checkpoints: 1150. Nodes 1 and 2
 * (one set) at 355 and 356: the set's parity cannot rebuild two, no file checkpoint yet: from scratch (lost 25 +
 * 300), 1480. Nodes 1 and 5 (two sets): each set rebuilds its one, 1150. */
static void test_xor_level(void)
{
  static const struct {
    const char *trace;
    double makespan, lost;
  } cases[] = {{"355, 3\n", 1150.0, 25.0}, {"355, 1\n356, 2\n", 1480.0, 325.0}, {"355, 1\n356, 5\n", 1150.0, 25.0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    fl_sim_result r;
    fl_sim *sim;
    write_trace("xor.csv", cases[c].trace);
    sim = make_sim("[failures]\nmodel = trace\ntrace = xor.csv\nrepair = never\n[app]\nnodes = 60\nwork = 1000s\n"
                   "[strategy]\nkind = multilevel\nlevels = xor:1 file:4\nxor_group = 4\ninterval = 100s\n"
                   "checkpoint_cost = 10s\nfile_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
                   NULL);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, cases[c].makespan, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.lost_work_s, cases[c].lost, 1e-9);
    if (fabs(r.makespan_s - cases[c].makespan) > 1e-9)
      fprintf(stderr, "xor case %zu: makespan %g lost %g\n", c, r.makespan_s, r.lost_work_s);
    fl_sim_destroy(&sim);
  }
}

/* Process crashes only (no node failure): every interruption resumes from the local level, never further back;
 * the rate enters the interval rule's MTBF. */
static void test_multilevel_process_crashes(void)
{
  fl_sim_result r;
  fl_evlog log;
  fl_sim *sim;
  long crashes = 0, from_local = 0, rollback = 0, restarts = 0;
  sim = make_sim("[failures]\nmodel = none\nprocess_mtbf = 120h\n[app]\nnodes = 60\nwork = 24h\n"
                 "[strategy]\nkind = multilevel\nlevels = local:1 file:1000\ninterval = young\n"
                 "checkpoint_cost = 30s\nrestart_cost = 30s\n",
                 NULL);
  CU_ASSERT_DOUBLE_EQUAL(fl_sim_job_mtbf(sim), 120.0 * 3600 / 60, 1e-6);
  fl_evlog_init(&log, 1);
  for (long rep = 0; rep < 5; rep++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, rep, &r, &log), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_EQUAL(r.failures, r.interruptions);
    for (size_t i = 0; i < log.n; i++) {
      crashes += strcmp(fl_ev_kind_name(log.v[i].kind), "process-failure") == 0;
      restarts += strcmp(fl_ev_kind_name(log.v[i].kind), "restart") == 0;
      from_local += strcmp(fl_ev_kind_name(log.v[i].kind), "restart") == 0 && log.v[i].level &&
                    strcmp(log.v[i].level, "local") == 0;
      rollback += strcmp(fl_ev_kind_name(log.v[i].kind), "rollback") == 0 ||
                  strcmp(fl_ev_kind_name(log.v[i].kind), "data-lost") == 0;
    }
  }
  CU_ASSERT(crashes >= 20); /* 24 h at a 2 h job MTBF, 5 replicas: about 13 each */
  CU_ASSERT_EQUAL(rollback, 0);
  CU_ASSERT(from_local >= restarts - 5); /* an interruption before the first checkpoint starts over */
  fl_evlog_free(&log);
  fl_sim_destroy(&sim);
}

/* strategy.levels: the order, the periods and the names are checked, naming the key. */
static void test_multilevel_bad_levels(void)
{
  static const char *const bad[][2] = {
      {"file:1 local:4", "levels go from the cheapest"},
      {"local:1 buddy:3 file:4", "multiple of the previous"},
      {"local:2 file:4", "the first level takes every checkpoint"},
      {"local:1 tape:4", "unknown level 'tape'"},
      {"local:1 file:x", "whole number"},
      {"local:1 local:2", "given twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512];
    fl_scenario *sc = NULL;
    fl_sim *sim = NULL;
    snprintf(text, sizeof text, PLATFORM "[strategy]\nkind = multilevel\nlevels = %s\n", bad[i][0]);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<test>", fl_test_tmpdir(), &sc), FL_OK);
    CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "[strategy] levels"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i][1]));
    fl_sim_destroy(&sim);
    fl_scenario_destroy(&sc);
  }
}

/* strategy.interval = multilevel with LEVEL:auto: the simulator hands the rule the rates it simulates (crashes
 * to the local level, node losses to the file level), and runs the pattern chosen; the row names it. */
static void test_multilevel_rule(void)
{
  fl_scenario *sc = NULL;
  fl_sim_result r;
  fl_db_run row;
  fl_pol_levels p = {.n = 2, .cost_s = {30.0, 600.0}};
  char want[96];
  fl_sim *sim = make_sim("[failures]\nmodel = exponential\nnode_mtbf = 3000h\nprocess_mtbf = 300h\nrepair = 0s\n"
                         "[app]\nnodes = 60\nwork = 24h\n[strategy]\nkind = multilevel\nlevels = local:auto file:auto\n"
                         "interval = multilevel\ncheckpoint_cost = 30s\nfile_cost = 10min\nrestart_cost = 1min\n",
                         &sc);
  /* local: crashes, 60 ranks at 300 h each; file: node losses, 60 nodes at 3000 h */
  p.rate[0] = 60.0 / (300.0 * 3600);
  p.rate[1] = 60.0 / (3000.0 * 3600);
  fl_pol_interval_levels(&p);
  CU_ASSERT(p.every[1] > 1);
  CU_ASSERT_DOUBLE_EQUAL(fl_sim_interval(sim), p.tau_s, 1e-9 * p.tau_s);
  CU_ASSERT_EQUAL(fl_sim_level_every(sim, FL_LEVEL_LOCAL), 1);
  CU_ASSERT_EQUAL(fl_sim_level_every(sim, FL_LEVEL_FILE), p.every[1]);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  fl_sim_fill_row(sim, sc, 0, &r, &row);
  snprintf(want, sizeof want, "multilevel local:1 file:%ld", p.every[1]);
  CU_ASSERT_STRING_EQUAL(row.interval_rule, want);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);

  /* three levels: a node loss goes to the partner, the loss of both partners in one buddy period to the file */
  sim = make_sim("[failures]\nmodel = exponential\nnode_mtbf = 300h\nprocess_mtbf = 3000h\nrepair = 0s\n"
                 "[app]\nnodes = 60\nwork = 24h\n[strategy]\nkind = multilevel\n"
                 "levels = local:auto buddy:auto file:auto\ninterval = multilevel\ncheckpoint_cost = 30s\n"
                 "file_cost = 10min\n",
                 NULL);
  CU_ASSERT(fl_sim_level_every(sim, FL_LEVEL_FILE) > fl_sim_level_every(sim, FL_LEVEL_BUDDY));
  CU_ASSERT_EQUAL(fl_sim_level_every(sim, FL_LEVEL_FILE) % fl_sim_level_every(sim, FL_LEVEL_BUDDY), 0);
  fl_sim_destroy(&sim);
}

/* The rule's keys are checked, naming the key. */
static void test_multilevel_rule_bad(void)
{
  static const char *const bad[][3] = {
      {"kind = multilevel\nlevels = local:auto file:auto\ninterval = daly\n", "[strategy] levels",
       "chosen by strategy.interval = multilevel"},
      {"kind = multilevel\nlevels = local:1 file:auto\ninterval = multilevel\n", "[strategy] levels",
       "give every period or none"},
      {"kind = two-level\ninterval = multilevel\n", "[strategy] interval", "not of 'two-level'"},
      {"kind = multilevel\nlevels = local:auto file:auto\ninterval = multilevel\n[failures]\nmodel = none\n",
       "[strategy] interval", "needs failures that some level recovers"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[512];
    fl_scenario *sc = NULL;
    fl_sim *sim = NULL;
    snprintf(text, sizeof text, PLATFORM "[app]\nnodes = 60\n[strategy]\n%s", bad[i][0]);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<test>", fl_test_tmpdir(), &sc), FL_OK);
    CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i][1]));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i][2]));
    if (!strstr(fl_err_msg(), bad[i][2]))
      fprintf(stderr, "%s\n", fl_err_msg());
    fl_sim_destroy(&sim);
    fl_scenario_destroy(&sc);
  }
}

/* SimGrid state profiles as outages: a first play, then every later play (which may start off, carried over). */
static void test_profile_parse(void)
{
  fl_host_profile hp;
  memset(&hp, 0, sizeof hp);
  /* SimGrid's own examples/platforms/profiles/bourassa_state.profile: off at 67, on at 70, once */
  CU_ASSERT_EQUAL_FATAL(fl_profiles_parse_state("67 0\n70 1\n", "bourassa", &hp), FL_OK);
  CU_ASSERT(isinf(hp.period));
  CU_ASSERT_EQUAL_FATAL(hp.nfirst, 1);
  CU_ASSERT_DOUBLE_EQUAL(hp.first_t[0], 67.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(hp.first_dur[0], 3.0, 0);
  CU_ASSERT_EQUAL(hp.nsteady, 0);
  free(hp.first_t);
  free(hp.first_dur);
  /* looping, ending off: the outage opened at 10 closes at the next play's 5 (25); later plays likewise */
  memset(&hp, 0, sizeof hp);
  CU_ASSERT_EQUAL_FATAL(fl_profiles_parse_state("# comment\n5 1\n10 0\nLOOPAFTER 10\n", "loop", &hp), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(hp.period, 20.0, 0);
  CU_ASSERT_EQUAL_FATAL(hp.nfirst, 1);
  CU_ASSERT_DOUBLE_EQUAL(hp.first_t[0], 10.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(hp.first_dur[0], 15.0, 0);
  CU_ASSERT_EQUAL_FATAL(hp.nsteady, 1);
  CU_ASSERT_DOUBLE_EQUAL(hp.steady_t[0], 10.0, 0);
  CU_ASSERT_DOUBLE_EQUAL(hp.steady_dur[0], 15.0, 0);
  free(hp.first_t);
  free(hp.first_dur);
  free(hp.steady_t);
  free(hp.steady_dur);
  /* off for good */
  memset(&hp, 0, sizeof hp);
  CU_ASSERT_EQUAL_FATAL(fl_profiles_parse_state("100 0\n", "dead", &hp), FL_OK);
  CU_ASSERT_EQUAL_FATAL(hp.nfirst, 1);
  CU_ASSERT(isinf(hp.first_dur[0]));
  free(hp.first_t);
  free(hp.first_dur);
  /* bad lines name the profile and the line */
  memset(&hp, 0, sizeof hp);
  CU_ASSERT_EQUAL(fl_profiles_parse_state("1 0\n0 1\n", "back.profile", &hp), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "back.profile:2: '0 1'"));
  CU_ASSERT_EQUAL(fl_profiles_parse_state("1 off\n", "word.profile", &hp), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "word.profile:1:"));
  free(hp.first_t);
  free(hp.first_dur);
}

/* No spare: the rank waits for its node's repair; with repair = never the job cannot go on. */
static void test_out_of_nodes(void)
{
  fl_sim_result r;
  fl_sim *sim;
  write_trace("one.csv", "250, 3\n");
  sim = make_sim("[failures]\nmodel = trace\ntrace = one.csv\nrepair = 50s\n[app]\nnodes = 64\nwork = 1000s\n"
                 "[strategy]\ninterval = 100s\ncheckpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "completed");
  CU_ASSERT_DOUBLE_EQUAL(r.wait_nodes_s, 45.0, 1e-9); /* downtime ends at 255, repair at 300 */
  CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1200.0, 1e-9);
  fl_sim_destroy(&sim);

  sim = make_sim("[failures]\nmodel = trace\ntrace = one.csv\nrepair = never\n[app]\nnodes = 64\nwork = 1000s\n"
                 "[strategy]\ninterval = 100s\ncheckpoint_cost = 10s\nrestart_cost = 20s\ndowntime = 5s\n",
                 NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "failed");
  fl_sim_destroy(&sim);
}

/* What the job holds (app.spares): its ranks x copies and its spares, charged in node-hours and energy; the rest
 * of the platform is not the job's. Failure-free, by hand: 10 ranks, 1000 s of work in segments of 300 s with 10 s
 * checkpoints (makespan 1040 s), 100 W idle and 200 W computing (the defaults). */
static void test_job_holds(void)
{
  static const struct {
    const char *strategy;
    const char *spares;
    long job_nodes;
  } cases[] = {{"checkpoint", "2", 12}, {"replication", "3", 23}, {"checkpoint", "rest", 64}};
  fl_db *db = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_db_open(fl_test_tmp("holds.sqlite"), &db), FL_OK);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    fl_scenario *sc = NULL;
    fl_sim *sim;
    fl_sim_result r;
    fl_db_run row;
    int64_t id = 0;
    double busy_nodes = strcmp(cases[i].strategy, "replication") == 0 ? 20.0 : 10.0;
    snprintf(text, sizeof text,
             "[failures]\nmodel = none\n[app]\nnodes = 10\nwork = 1000s\nspares = %s\n[strategy]\nkind = %s\n"
             "interval = 300s\ncheckpoint_cost = 10s\n",
             cases[i].spares, cases[i].strategy);
    sim = make_sim(text, &sc);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 1040.0, 1e-9);
    /* every node held idles at 100 W for the makespan; the ranks' nodes draw 100 W more while computing */
    CU_ASSERT_DOUBLE_EQUAL(r.energy_j, 100.0 * (double)cases[i].job_nodes * 1040.0 + 100.0 * busy_nodes * 1000.0, 1e-3);
    fl_sim_fill_row(sim, sc, 0, &r, &row);
    CU_ASSERT_EQUAL(row.job_nodes, cases[i].job_nodes);
    CU_ASSERT_EQUAL(row.platform_nodes, 64);
    CU_ASSERT_EQUAL(fl_db_insert_run(db, &row, NULL, &id), FL_OK);
    {
      sqlite3_stmt *st = NULL;
      CU_ASSERT_EQUAL_FATAL(
          sqlite3_prepare_v2(fl_db_sqlite(db), "SELECT node_hours, job_nodes FROM runs WHERE id = ?1", -1, &st, NULL),
          SQLITE_OK);
      sqlite3_bind_int64(st, 1, id);
      CU_ASSERT_EQUAL_FATAL(sqlite3_step(st), SQLITE_ROW);
      CU_ASSERT_DOUBLE_EQUAL(sqlite3_column_double(st, 0), (double)cases[i].job_nodes * 1040.0 / 3600.0, 1e-9);
      CU_ASSERT_EQUAL(sqlite3_column_int64(st, 1), cases[i].job_nodes);
      sqlite3_finalize(st);
    }
    fl_sim_destroy(&sim);
    fl_scenario_destroy(&sc);
  }
  fl_db_close(&db);
  /* more than the platform has, a word that is no count, and where a failure log names the platform's nodes */
  refused_by_sim("[app]\nnodes = 10\nspares = 55\n", "55 spares and 10 ranks need 65 nodes");
  refused_by_sim("[app]\nnodes = 10\nspares = some\n", "expected rest or a count");
  refused_by_sim("[app]\nnodes = 10\nspares = 40\n[strategy]\nkind = replication\ndegree = 3\n",
                 "40 spares and 10 ranks x 3 copies need 70 nodes");
}

static void test_timeout(void)
{
  fl_sim_result r;
  /* M = 10 s per job, 1000 s segments: practically never completes */
  fl_sim *sim = make_sim("[run]\nmax_time = 2h\n[failures]\nnode_mtbf = 640s\n[app]\nnodes = 64\nwork = 5000s\n"
                         "[strategy]\nkind = none\nrestart_cost = 1s\n",
                         NULL);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
  CU_ASSERT_STRING_EQUAL(r.status, "timeout");
  CU_ASSERT(r.makespan_s >= 7200.0 && r.makespan_s < 7200.0 + 6000.0);
  fl_sim_destroy(&sim);
}

/* Random failures, spares and repairs: every second of the makespan is accounted for, replicas are
 * reproducible, and they differ from one another. */
static void test_accounting_and_reproducibility(void)
{
  fl_sim_result r, again, other;
  fl_sim *sim = make_sim("[run]\nseed = 9\n[failures]\nmodel = weibull\nshape = 0.7\nnode_mtbf = 2d\nrepair = 1h\n"
                         "[app]\nnodes = 56\nwork = 24h\n"
                         "[strategy]\ninterval = young\ncheckpoint_cost = 2min\nrestart_cost = 3min\ndowntime = 1min\n",
                         NULL);
  for (long k = 0; k < 20; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, k, &r, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    /* each interruption has a failure of the job's nodes behind it, and a failure-struck run was interrupted (a
     * failure while the job is already down, restarting or waiting for a node adds no interruption) */
    CU_ASSERT(r.interruptions <= r.failures && (r.failures == 0 || r.interruptions >= 1));
    CU_ASSERT(r.platform_failures >= r.failures);
    CU_ASSERT_DOUBLE_EQUAL(accounted(&r, 86400.0), r.makespan_s, 1e-6 * r.makespan_s);
  }
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 3, &r, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 3, &again, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 4, &other, NULL), FL_OK);
  CU_ASSERT(r.makespan_s == again.makespan_s);
  CU_ASSERT_EQUAL(r.platform_failures, again.platform_failures);
  CU_ASSERT(r.makespan_s != other.makespan_s || r.platform_failures != other.platform_failures);
  CU_ASSERT(r.failures > 0);
  fl_sim_destroy(&sim);
}

/* Two strategies, same seed: the same failures (common random numbers). */
static void test_common_random_numbers(void)
{
  fl_evlog a, b;
  fl_sim_result ra, rb;
  fl_sim *s1 = make_sim("[run]\nseed = 5\n[failures]\nnode_mtbf = 1d\n[app]\nnodes = 64\nwork = 12h\n"
                        "[strategy]\nkind = checkpoint\n",
                        NULL);
  fl_sim *s2 = make_sim("[run]\nseed = 5\n[failures]\nnode_mtbf = 1d\n[app]\nnodes = 64\nwork = 12h\n"
                        "[strategy]\nkind = none\n[run]\nmax_time = 2d\n",
                        NULL);
  size_t fa = 0, fb = 0, n = 0;
  fl_evlog_init(&a, 1);
  fl_evlog_init(&b, 1);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(s1, 2, &ra, &a), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(s2, 2, &rb, &b), FL_OK);
  while (fa < a.n && fb < b.n) {
    while (fa < a.n && strcmp(fl_ev_kind_name(a.v[fa].kind), "failure") != 0)
      fa++;
    while (fb < b.n && strcmp(fl_ev_kind_name(b.v[fb].kind), "failure") != 0)
      fb++;
    if (fa == a.n || fb == b.n)
      break;
    CU_ASSERT_DOUBLE_EQUAL(a.v[fa].t_s, b.v[fb].t_s, 1e-9);
    CU_ASSERT_EQUAL(a.v[fa].node, b.v[fb].node);
    fa++;
    fb++;
    n++;
  }
  CU_ASSERT(n >= 5);
  fl_evlog_free(&a);
  fl_evlog_free(&b);
  fl_sim_destroy(&s1);
  fl_sim_destroy(&s2);
}

/* The simulator against Daly's expected wall time, within the 99 % confidence interval of the mean. */
/* Silent data corruption. Without verification every corruption that reaches a checkpoint stays (wrong_result);
 * a perfect detector turns each into a rollback (never a wrong result); recall 0.5 lets some through; the time
 * accounts to the second either way. */
static void test_sdc_outcomes(void)
{
  const char *base = "[failures]\nmodel = none\nsdc_mtbf = 1000h\n[app]\nnodes = 50\nwork = 100h\n"
                     "[strategy]\ninterval = 1h\ncheckpoint_cost = 1min\nrestart_cost = 2min\n";
  char text[1024];
  long wrong = 0, silent_runs = 0, caught = 0, partial_wrong = 0, partial_ok = 0;
  fl_sim *sim = make_sim(base, NULL);
  for (long r = 0; r < 40; r++) {
    fl_sim_result res;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, r, &res, NULL), FL_OK);
    CU_ASSERT(res.sdc_injected >= 0 && res.sdc_detected == 0 && isnan(res.verify_time_s));
    CU_ASSERT_EQUAL(res.sdc_silent, res.sdc_injected); /* nothing interrupts a checkpoint here */
    CU_ASSERT_STRING_EQUAL(res.status, res.sdc_silent > 0 ? "wrong_result" : "completed");
    wrong += res.sdc_silent > 0;
  }
  CU_ASSERT(wrong > 30); /* 5 corruptions expected per run */
  fl_sim_destroy(&sim);

  snprintf(text, sizeof text, "%s[strategy]\nverify = checkpoint\nverify_cost = 30s\n", base);
  sim = make_sim(text, NULL);
  for (long r = 0; r < 40; r++) {
    fl_sim_result res;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, r, &res, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(res.status, "completed");
    CU_ASSERT_EQUAL(res.sdc_silent, 0);
    CU_ASSERT_EQUAL(res.sdc_detected, res.sdc_injected);
    /* one rollback per segment caught, however many corruptions it held */
    CU_ASSERT(res.sdc_rollbacks <= res.sdc_detected);
    CU_ASSERT_EQUAL(res.sdc_rollbacks > 0, res.sdc_detected > 0);
    /* every rollback loses its hour and its verification, then reads the checkpoint back */
    CU_ASSERT_DOUBLE_EQUAL(res.lost_work_s, 3630.0 * res.sdc_rollbacks, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(res.restart_time_s, 120.0 * res.sdc_rollbacks, 1e-6);
    /* the rolled-back verifications are in the lost work already */
    CU_ASSERT_DOUBLE_EQUAL(res.makespan_s, accounted(&res, 360000.0) + 30.0 * 100, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(res.verify_time_s, 30.0 * (100 + res.sdc_rollbacks), 1e-6);
    caught += res.sdc_detected;
    silent_runs += res.sdc_rollbacks > 0;
  }
  CU_ASSERT(caught > 100 && silent_runs > 30);
  fl_sim_destroy(&sim);

  snprintf(text, sizeof text, "%s[strategy]\nverify = checkpoint\nverify_cost = 30s\nverify_recall = 0.5\n", base);
  sim = make_sim(text, NULL);
  for (long r = 0; r < 40; r++) {
    fl_sim_result res;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, r, &res, NULL), FL_OK);
    CU_ASSERT_EQUAL(res.sdc_injected, res.sdc_detected + res.sdc_silent);
    partial_wrong += strcmp(res.status, "wrong_result") == 0;
    partial_ok += strcmp(res.status, "completed") == 0;
  }
  CU_ASSERT(partial_wrong > 5 && partial_ok > 0);
  fl_sim_destroy(&sim);
}

/* Replicas against silent errors: duplication compares the copies (every corruption caught, a rollback each);
 * triplication outvotes them in place, so with the same failures it ends exactly when it would have without
 * any corruption. */
static void test_sdc_replication(void)
{
  const char *dup = "[failures]\nnode_mtbf = 20000h\nsdc_mtbf = %s\n[app]\nnodes = 20\nwork = 50h\n"
                    "[strategy]\nkind = replication\ndegree = %d\ninterval = 1h\ncheckpoint_cost = 1min\n"
                    "restart_cost = 1min\nverify = checkpoint\nverify_cost = 10s\n";
  char text[1024];
  fl_sim *sim, *clean;
  long rollbacks = 0;
  snprintf(text, sizeof text, dup, "500h", 2);
  sim = make_sim(text, NULL);
  for (long r = 0; r < 20; r++) {
    fl_sim_result res;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, r, &res, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(res.status, "completed");
    CU_ASSERT_EQUAL(res.sdc_detected, res.sdc_injected);
    rollbacks += res.sdc_rollbacks;
  }
  CU_ASSERT(rollbacks > 20);
  fl_sim_destroy(&sim);
  snprintf(text, sizeof text, dup, "500h", 3);
  sim = make_sim(text, NULL);
  snprintf(text, sizeof text, dup, "never", 3);
  clean = make_sim(text, NULL);
  for (long r = 0; r < 20; r++) {
    fl_sim_result res, ref;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, r, &res, NULL), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(clean, r, &ref, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(res.status, "completed");
    CU_ASSERT(res.sdc_injected > 0);
    CU_ASSERT_EQUAL(res.sdc_detected, res.sdc_injected);
    CU_ASSERT_EQUAL(res.sdc_rollbacks, 0);
    CU_ASSERT_DOUBLE_EQUAL(res.makespan_s, ref.makespan_s, 1e-6);
    CU_ASSERT_EQUAL(ref.sdc_injected, -1);
  }
  fl_sim_destroy(&sim);
  fl_sim_destroy(&clean);
}

/* Silent errors where they cannot be modelled, and verification with nothing to verify before. */
static void test_sdc_refused(void)
{
  static const char *const bad[][2] = {
      {"[failures]\nsdc_mtbf = 1y\n[app]\nkind = gridworld\ngrid = 4x4\n[strategy]\nkind = replication\n", "sdc_mtbf"},
      {"[app]\nnodes = 4\n[strategy]\nkind = none\nverify = checkpoint\n", "nothing to verify"},
      {"[app]\nnodes = 4\n[strategy]\nverify_recall = 1.5\n", "at most 1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char full[1024];
    fl_scenario *sc = NULL;
    fl_sim *sim = NULL;
    fl_err rc;
    snprintf(full, sizeof full, PLATFORM "%s", bad[i][0]);
    rc = fl_scenario_from_text(full, "<test>", fl_test_tmpdir(), &sc);
    if (rc == FL_OK)
      rc = fl_scenario_check(sc);
    if (rc == FL_OK)
      rc = fl_sim_create(sc, &sim);
    CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
    if (!strstr(fl_err_msg(), bad[i][1]))
      fprintf(stderr, "got '%s'\n", fl_err_msg());
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i][1]));
    CU_ASSERT_PTR_NULL(sim);
    fl_scenario_destroy(&sc);
  }
}

/* strategy.interval = hazard: under exponential failures the current rate is the mean one whatever the ages,
 * so it is Young's rule to the last bit; under Weibull k = 0.5 on new nodes it beats Daly's interval. */
static void test_hazard_interval(void)
{
  const char *fmt = PLATFORM "[failures]\nmodel = %s\nshape = 0.5\nnode_mtbf = 1y\nrepair = 1h\n"
                             "start = fresh\n[app]\nnodes = 50\nwork = 30d\n[strategy]\ninterval = %s\n"
                             "checkpoint_cost = 10min\nrestart_cost = 10min\n";
  char text[1024];
  fl_scenario *sc[4];
  fl_sim *sim[4];
  double waste_daly = 0, waste_hazard = 0;
  const char *cases[4][2] = {
      {"exponential", "young"}, {"exponential", "hazard"}, {"weibull", "daly"}, {"weibull", "hazard"}};
  for (int i = 0; i < 4; i++) {
    snprintf(text, sizeof text, fmt, cases[i][0], cases[i][1]);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<t>", NULL, &sc[i]), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_create(sc[i], &sim[i]), FL_OK);
  }
  for (long r = 0; r < 60; r++) {
    fl_sim_result a, b;
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim[0], r, &a, NULL), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim[1], r, &b, NULL), FL_OK);
    CU_ASSERT_DOUBLE_EQUAL(a.makespan_s, b.makespan_s, 1e-6 * a.makespan_s);
    CU_ASSERT_EQUAL(a.checkpoints, b.checkpoints);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim[2], r, &a, NULL), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim[3], r, &b, NULL), FL_OK);
    waste_daly += 1.0 - sc[2]->work_s / a.makespan_s;
    waste_hazard += 1.0 - sc[3]->work_s / b.makespan_s;
  }
  fprintf(stderr, "  weibull 0.5, fresh: waste daly %.4f, hazard %.4f\n", waste_daly / 60, waste_hazard / 60);
  CU_ASSERT(waste_hazard < 0.9 * waste_daly);
  for (int i = 0; i < 4; i++) {
    fl_sim_destroy(&sim[i]);
    fl_scenario_destroy(&sc[i]);
  }
  {
    fl_scenario *bad = NULL;
    fl_sim *none = NULL;
    snprintf(text, sizeof text, fmt, "weibull", "hazard");
    strcat(text, "kind = replication\n");
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<t>", NULL, &bad), FL_OK);
    bad->app_nodes = 25;
    CU_ASSERT_EQUAL(fl_sim_create(bad, &none), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "hazard needs an unreplicated bsp job"));
    fl_scenario_destroy(&bad);
  }
}

/* Daly (FGCS 2006) written out here, apart from policy/interval.c: the higher-order optimum interval, and the
 * expected wall time of W seconds of work cut into segments of tau, each followed by a checkpoint of delta, every
 * interruption costing the downtime D and a restart R (Daly's eq. with D added to the mean time lost per failure:
 * T(len) = (M + D) e^{R/M} (e^{(len + delta)/M} - 1)). The simulator's interval must be this one, and its mean
 * makespan this wall time (a wrong coefficient in the interval used to pass: both sides took it from the same
 * code). */
static double daly_tau(double delta, double M)
{
  double x = delta / (2.0 * M);
  return delta >= 2.0 * M ? M : sqrt(2.0 * delta * M) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta;
}

static double daly_walltime(double W, double tau, double delta, double R, double D, double M)
{
  double full = floor(W / tau), rest = W - full * tau, t = 0;
  t += full * (M + D) * exp(R / M) * (exp((tau + delta) / M) - 1.0);
  if (rest > 1e-9 * W)
    t += (M + D) * exp(R / M) * (exp((rest + delta) / M) - 1.0);
  return t;
}

static void check_daly(const char *text, long replicas, double W, double delta, double R, double D, double M)
{
  fl_sim_result r;
  fl_sim *sim = make_sim(text, NULL);
  double *x = malloc((size_t)replicas * sizeof *x), mean = 0, var = 0, expect, half, tau = daly_tau(delta, M);
  CU_ASSERT_DOUBLE_EQUAL(fl_sim_interval(sim), tau, 1e-9 * tau);
  for (long k = 0; k < replicas; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, k, &r, NULL), FL_OK);
    x[k] = r.makespan_s;
    mean += x[k];
  }
  mean /= (double)replicas;
  for (long k = 0; k < replicas; k++)
    var += (x[k] - mean) * (x[k] - mean);
  var /= (double)(replicas - 1);
  half = 2.59 * sqrt(var / (double)replicas); /* t(0.995, ~400) */
  expect = daly_walltime(W, tau, delta, R, D, M);
  fprintf(stderr, "    Daly tau %.1f s, T_w %.1f s, simulated %.1f +- %.1f s (99%% CI)\n", tau, expect, mean, half);
  CU_ASSERT(fabs(mean - expect) <= half);
  CU_ASSERT(half < 0.02 * expect); /* and the interval is tight enough to mean something */
  free(x);
  fl_sim_destroy(&sim);
}

static void test_daly_walltime(void)
{
  /* M = 64 h / 64 nodes = 1 h: delta a twelfth of M, failures during restart */
  check_daly("[run]\nseed = 1\n[failures]\nnode_mtbf = 64h\n[app]\nnodes = 64\nwork = 24h\n"
             "[strategy]\ninterval = daly\ncheckpoint_cost = 5min\nrestart_cost = 2min\ndowntime = 1min\n",
             400, 86400, 300, 120, 60, 3600);
  /* delta half of M */
  check_daly("[run]\nseed = 2\n[failures]\nnode_mtbf = 64h\n[app]\nnodes = 64\nwork = 24h\n"
             "[strategy]\ninterval = daly\ncheckpoint_cost = 30min\nrestart_cost = 10min\n",
             400, 86400, 1800, 600, 0, 3600);
}

static CU_TestInfo sim_tests[] = {
    {"no failures: work plus checkpoints", test_no_failures},
    {"a trace's timeline, by hand", test_trace_timeline},
    {"a trace by work: failures at the job's progress, by hand", test_trace_by_work},
    {"a trace by work: refused where it means nothing", test_trace_by_work_refused},
    {"out of nodes: wait for a repair, or fail", test_out_of_nodes},
    {"what the job holds: ranks x copies + app.spares, by hand", test_job_holds},
    {"buddy checkpoints: a rank and its buddy lost", test_buddy_data_lost},
    {"two levels: buddy lost, back to the file level", test_two_level_rollback},
    {"multilevel: a node lost takes its local copies", test_multilevel_node_loss},
    {"multilevel: interval = multilevel chooses the periods from the simulated rates", test_multilevel_rule},
    {"multilevel: the rule's keys are checked", test_multilevel_rule_bad},
    {"multilevel: async flush, by hand", test_async_flush_timeline},
    {"multilevel: the XOR level survives one lost node per set", test_xor_level},
    {"multilevel: async flush lost to a failure, or drained before it", test_async_flush_failures},
    {"multilevel: process crashes resume from the local level", test_multilevel_process_crashes},
    {"multilevel: bad strategy.levels", test_multilevel_bad_levels},
    {"SimGrid state profiles as outages", test_profile_parse},
    {"max_time ends a replica as timeout", test_timeout},
    {"accounting and reproducibility", test_accounting_and_reproducibility},
    {"common random numbers across strategies", test_common_random_numbers},
    {"silent errors: wrong results, detection, recall", test_sdc_outcomes},
    {"silent errors: duplication rolls back, triplication outvotes", test_sdc_replication},
    {"silent errors: refused where not modelled", test_sdc_refused},
    {"hazard-aware interval: Young under exponential, beats Daly at k = 0.5", test_hazard_interval},
    {"Daly's T_w within the CI", test_daly_walltime},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"sim", NULL, NULL, NULL, NULL, sim_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
