/* run_ranks.c — the simulator's coordinator for rank-parallel jobs (bsp): compute in segments of the strategy's
 * interval, each followed by a coordinated checkpoint at the level the strategy names (with its cost), until the
 * work is done. A failure of a node holding a rank during compute, checkpoint or restart interrupts the job
 * unless the strategy masks it (a replica lives on: sim.c asks fl_strat_on_failure at each failure); then the
 * work since the last commit is lost, the job pays the downtime D (failures then only remap ranks), waits for
 * nodes if no spare was left, and restarts (R), which a failure restarts again. When a rank and the buddy holding
 * its copy both fail before a commit, the strategy says where the job resumes: the file level (two-level), or
 * from scratch. With one level and no buddy this is the model behind Daly's T_w, so `faultline validate` holds
 * the two against each other; `none` writes nothing and every interruption restarts from scratch. */
#include "sim_impl.h"

#include <math.h>

/* What the restart reads: the primary level, unless a buddy copy was lost and the strategy goes back further. */
static double fl_restart_cost(const fl_replica *rep)
{
  const fl_sim *sim = rep->sim;
  fl_failure_view view = {
      .copies_left = 0, .buddy_intact = 0, .buddy_version = rep->commit_epoch - 1, .file_version = rep->file_epoch};
  fl_recovery r;
  if (!rep->buddy_lost)
    return sim->restart_s;
  r = fl_strat_on_failure(&sim->strat, &view);
  return sim->restart_level_s[r.action == FL_ACT_ROLLBACK ? r.level : FL_LEVEL_SCRATCH];
}

static int fl_recover(fl_replica *rep, double t_lost_from)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  double now = fl_rep_now(rep);

  if (rep->over_budget)
    return 1; /* woken by the event budget, not by a failure */
  res->interruptions++;
  res->lost_work_s += now - t_lost_from;
  fl_evlog_add(rep->log, now, "interruption", -1, "lost %.6gs", now - t_lost_from);
  for (;;) {
    double t_restart, restart_s;
    if (sim->downtime_s > 0) {
      fl_rep_sleep(rep, sim->downtime_s, FL_PHASE_DOWNTIME);
      res->downtime_total_s += sim->downtime_s;
    }
    if (fl_rep_wait_nodes(rep))
      return 1;
    t_restart = fl_rep_now(rep);
    restart_s = fl_restart_cost(rep);
    if (fl_rep_wait(rep, restart_s, FL_PHASE_RESTART)) {
      res->restart_time_s += fl_rep_now(rep) - t_restart;
      res->interruptions++;
      fl_evlog_add(rep->log, fl_rep_now(rep), "interruption", -1, "during restart");
      if (fl_rep_timed_out(rep))
        return 1;
      continue;
    }
    res->restart_time_s += restart_s;
    fl_evlog_add(rep->log, fl_rep_now(rep), "restart", -1, "from %s",
                 sim->strat.levels && isfinite(sim->tau_s) ? "checkpoint" : "scratch");
    return 0;
  }
}

void fl_sim_run_ranks(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  double committed = 0.0, committed_file = 0.0; /* work at the newest commit, and at the newest file-level one */
  int ckpt = sim->strat.levels && isfinite(sim->tau_s);

  if (fl_rep_wait_nodes(rep)) { /* nodes down at the start (failures.start = steady) */
    res->status = "failed";
    return;
  }
  while (committed < sim->work_s) {
    double seg;
    if (rep->buddy_lost) {
      /* a rank and the neighbour holding its buddy copy both failed since the last commit: that rank's newest
       * state is gone from memory; the strategy says where the job resumes */
      fl_failure_view view = {
          .copies_left = 0, .buddy_intact = 0, .buddy_version = rep->commit_epoch - 1, .file_version = rep->file_epoch};
      fl_recovery r = fl_strat_on_failure(&sim->strat, &view);
      if (r.action == FL_ACT_ROLLBACK && r.level == FL_LEVEL_FILE) {
        res->lost_work_s += committed - committed_file;
        fl_evlog_add(rep->log, fl_rep_now(rep), "rollback", -1, "buddy copy lost: back to the file level, work %.6gs",
                     committed_file);
        committed = committed_file;
      } else {
        res->lost_work_s += committed;
        fl_evlog_add(rep->log, fl_rep_now(rep), "data-lost", -1, "work %.6gs lost, restart from scratch", committed);
        committed = 0.0;
        committed_file = 0.0;
        rep->file_epoch = -1;
      }
      rep->buddy_lost = 0;
    }
    seg = ckpt ? fmin(sim->tau_s, sim->work_s - committed) : sim->work_s;
    fl_level level = fl_strat_level(&sim->strat, res->checkpoints + 1);
    double delta = ckpt ? sim->strat.delta_s[level] : 0.0;
    double t_seg = fl_rep_now(rep);
    if (fl_rep_timed_out(rep)) {
      res->status = "timeout";
      return;
    }
    fl_rep_progress(rep, committed);
    if (fl_rep_wait(rep, seg, FL_PHASE_COMPUTE) || (ckpt && fl_rep_wait(rep, delta, FL_PHASE_CHECKPOINT))) {
      if (fl_recover(rep, t_seg)) {
        res->status = fl_rep_timed_out(rep) ? "timeout" : "failed";
        return;
      }
      continue;
    }
    committed += seg;
    rep->commit_epoch++; /* every rank's copy is fresh again */
    if (ckpt) {
      res->checkpoints++;
      res->checkpoint_time_s += delta;
      if (level == FL_LEVEL_FILE) {
        committed_file = committed;
        rep->file_epoch = rep->commit_epoch - 1;
      }
      if (sim->strat.levels == FL_LEVEL_BIT(level))
        fl_evlog_add(rep->log, fl_rep_now(rep), "checkpoint", -1, "work %.6gs", committed);
      else
        fl_evlog_add(rep->log, fl_rep_now(rep), "checkpoint", -1, "work %.6gs, %s level", committed,
                     fl_level_name(level));
    }
  }
  res->status = "completed";
}
