/* app.c — app.kind = workload's ops for the simulator (fl_sim_workload; see workload_run.h). */
#include "workload_run.h"

/* many jobs, each with its own interval and costs: the machine's nodes and the failure-free schedule's span stand
 * for the job's ranks and work */
static fl_err fl_workload_setup(fl_sim *sim, const fl_scenario *sc)
{
  fl_wlrun *w = NULL;
  fl_err rc = fl_wlr_create(sim, sc, &w);
  if (rc != FL_OK)
    return rc;
  sim->app_state = w;
  sim->ranks = fl_wlr_machine(w);
  sim->work_s = fl_wlr_work(w);
  return FL_OK;
}

static void fl_workload_destroy(fl_sim *sim)
{
  fl_wlrun *w = sim->app_state;
  fl_wlr_destroy(&w);
  sim->app_state = NULL;
}

static void fl_workload_row(const fl_sim *sim, const fl_sim_result *res, fl_db_run *row)
{
  const fl_wlrun *w = sim->app_state;
  row->machine = res->machine;
  if (w->coop) /* each job's period changes with the running set: the rule, not one figure */
    row->interval_rule = w->coop_daly ? "daly, cooperative" : "young, cooperative";
  row->interval_s = row->checkpoint_cost_s = row->restart_cost_s = row->downtime_s = NAN;
  row->lost_work_s = row->checkpoint_time_s = row->restart_time_s = row->downtime_total_s = NAN;
  row->wait_nodes_s = NAN; /* per job in `jobs`, and in node-hours in the machine's columns */
}

/* No checkpoint, no checkpoint I/O to order or period to choose. */
static int fl_workload_uses_key(const fl_sim *sim, const char *key)
{
  const fl_wlrun *w = sim->app_state;
  if (strcmp(key, "app.checkpoint_io") == 0 || strcmp(key, "app.checkpoint_period") == 0)
    return w->ckpt;
  return -1;
}

/* simulate's line for the point: the trace, the scheduler, the machine. */
static void fl_workload_describe(const fl_sim *sim, const fl_scenario *sc, char *buf, size_t size)
{
  const fl_wlrun *w = sim->app_state;
  char a[32], trace[64], io[32];
  const char *from = fl_scenario_text(sc, "app.trace", trace, sizeof trace);
  size_t n;
  snprintf(buf, size, "workload of %ld jobs (%s) under %s on %ld nodes, %s, %s failures, node MTBF %s", w->njobs,
           from ? from : "generated", fl_sched_name(sc), w->machine, sc->strategy, sc->model,
           fl_units_format_duration(sim->node_mtbf_s, a, sizeof a));
  n = strlen(buf);
  if (w->ckpt && n < size)
    n += (size_t)snprintf(buf + n, size - n, ", checkpoint I/O %s",
                          fl_scenario_text(sc, "app.checkpoint_io", io, sizeof io));
  if (w->fewer > 0 && n < size)
    snprintf(buf + n, size - n, ", %ld jobs with fewer copies (more nodes than the machine's / strategy.degree)",
             w->fewer);
}

/* Why a row written by an earlier faultline may differ. */
static const char *fl_workload_rerun_note(const fl_sim *sim, const char *written)
{
  const fl_wlrun *w = sim->app_state;
  if (w->aggregated && strcmp(written, "2026-11-29") < 0)
    return "expected for a workload row written before 2026-11-29: its jobs' file-level I/O now moves per cabinet "
           "and server (platform.io_flows = aggregated, or auto above 4,096 nodes); workloads used per-node flows "
           "then, as simulate --set platform.io_flows=per-rank does";
  return NULL;
}

/* The generated platform's form: per-node flows, or per cabinet (the file level only: platform.io_flows =
 * aggregated, or auto above FL_IO_PER_RANK_MAX nodes for a strategy that writes files only). */
static int fl_workload_io_form(const fl_scenario *sc, unsigned levels, long nodes)
{
  if (sc->io_flows == FL_IO_AGGREGATED)
    return FL_IO_AGGREGATED;
  if (sc->io_flows == FL_IO_AUTO && nodes > FL_IO_PER_RANK_MAX && levels == FL_LEVEL_BIT(FL_LEVEL_FILE))
    return FL_IO_AGGREGATED;
  return FL_IO_PER_RANK;
}

/* Every job checkpoints to the PFS, as SimGrid I/O shared with the others. */
const fl_sim_app fl_sim_workload = {
    .app = &fl_app_workload,
    .caps = {.name = "sim (workload)",
             .shape = FL_SHAPE_RANKS,
             .levels = FL_LEVEL_BIT(FL_LEVEL_FILE) | FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_LOCAL) |
                       FL_LEVEL_BIT(FL_LEVEL_XOR),
             .max_degree = 3,
             .task_recovery = 0,
             .why_no_replicas = NULL},
    .io_form = fl_workload_io_form,
    .flags = FL_SIM_APP_JOBS,
    .setup = fl_workload_setup,
    .destroy = fl_workload_destroy,
    .replica = fl_wlr_run_replica,
    .row = fl_workload_row,
    .uses_key = fl_workload_uses_key,
    .describe = fl_workload_describe,
    .rerun_note = fl_workload_rerun_note,
};
