/* strategy_checkpoint.c — the BSP job under coordinated checkpoint/restart, and with no protection at all.
 *
 * The job computes in segments of tau and writes a coordinated checkpoint (delta) after each; a failure of a
 * node holding a rank during compute, checkpoint or restart interrupts it: the work since the last committed
 * checkpoint is lost, the job pays the downtime D (failures then only remap ranks), waits for nodes if no
 * spare was left, and restarts (R), which a failure restarts again. This is the model behind Daly's T_w, so
 * `faultline validate` can hold the two against each other. `none` is the same machine with one segment of
 * the whole work and no checkpoint: every interruption restarts from scratch. */
#include "sim_impl.h"

#include <math.h>

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
    double t_restart;
    if (sim->downtime_s > 0) {
      fl_rep_sleep(rep, sim->downtime_s, FL_PHASE_DOWNTIME);
      res->downtime_total_s += sim->downtime_s;
    }
    if (fl_rep_wait_nodes(rep))
      return 1;
    t_restart = fl_rep_now(rep);
    if (fl_rep_wait(rep, sim->restart_s, FL_PHASE_RESTART)) {
      res->restart_time_s += fl_rep_now(rep) - t_restart;
      res->interruptions++;
      fl_evlog_add(rep->log, fl_rep_now(rep), "interruption", -1, "during restart");
      if (fl_rep_timed_out(rep))
        return 1;
      continue;
    }
    res->restart_time_s += sim->restart_s;
    fl_evlog_add(rep->log, fl_rep_now(rep), "restart", -1, "from %s",
                 sim->strategy->checkpoints && isfinite(sim->tau_s) ? "checkpoint" : "scratch");
    return 0;
  }
}

static void fl_coordinator_segments(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  double committed = 0.0;
  int ckpt = sim->strategy->checkpoints && isfinite(sim->tau_s);

  if (fl_rep_wait_nodes(rep)) { /* nodes down at the start (failures.start = steady) */
    res->status = "failed";
    return;
  }
  while (committed < sim->work_s) {
    double seg;
    if (rep->buddy_lost) {
      /* buddy checkpoints: a rank and the neighbour holding its copy both failed since the last commit, so that
       * rank's state is gone everywhere: the job starts over */
      res->lost_work_s += committed;
      fl_evlog_add(rep->log, fl_rep_now(rep), "data-lost", -1, "work %.6gs lost, restart from scratch", committed);
      committed = 0.0;
      rep->buddy_lost = 0;
    }
    seg = ckpt ? fmin(sim->tau_s, sim->work_s - committed) : sim->work_s;
    double t_seg = fl_rep_now(rep);
    if (fl_rep_timed_out(rep)) {
      res->status = "timeout";
      return;
    }
    fl_rep_progress(rep, committed);
    if (fl_rep_wait(rep, seg, FL_PHASE_COMPUTE) || (ckpt && fl_rep_wait(rep, sim->delta_s, FL_PHASE_CHECKPOINT))) {
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
      res->checkpoint_time_s += sim->delta_s;
      fl_evlog_add(rep->log, fl_rep_now(rep), "checkpoint", -1, "work %.6gs", committed);
    }
  }
  res->status = "completed";
}

const fl_strategy_ops fl_strategy_none_ops = {
    .name = "none",
    .app = "bsp",
    .checkpoints = 0,
    .coordinator = fl_coordinator_segments,
};
const fl_strategy_ops fl_strategy_checkpoint_ops = {
    .name = "checkpoint",
    .app = "bsp",
    .checkpoints = 1,
    .coordinator = fl_coordinator_segments,
};
/* In-memory buddy checkpoints (GPI CP, SCR's partner level): coordinated checkpoints like `checkpoint`, but each
 * rank's copy lives in the memory of the next rank's node; cheap to write (checkpoint_cost is a memory copy to a
 * neighbour), and lost when a rank and that neighbour both fail before the next commit: then the job restarts
 * from scratch. */
const fl_strategy_ops fl_strategy_buddy_ops = {
    .name = "buddy",
    .app = "bsp",
    .checkpoints = 1,
    .buddy = 1,
    .coordinator = fl_coordinator_segments,
};
/* Process replication (Ferreira et al., SC'11): `degree` copies of every rank run in lock step on distinct
 * nodes; the job stops only when all copies of one rank are dead, then restarts (from its last checkpoint when
 * an interval is set, else from scratch) with every dead copy replaced. */
const fl_strategy_ops fl_strategy_replication_ops = {
    .name = "replication",
    .app = "bsp",
    .checkpoints = 1,
    .replicated = 1,
    .coordinator = fl_coordinator_segments,
};
