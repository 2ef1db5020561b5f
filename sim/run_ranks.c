/* run_ranks.c — the simulator's coordinator for rank-parallel jobs (bsp): compute in segments of the strategy's
 * interval, each followed by a coordinated checkpoint at the level the strategy names (with its cost), until the
 * work is done. A failure of a node holding a rank during compute, checkpoint or restart interrupts the job
 * unless the strategy masks it (a replica lives on: replica.c asks fl_strat_on_failure at each failure); then the
 * work since the last commit is lost, the job pays the downtime D (failures then only remap ranks), waits for
 * nodes if no spare was left, and restarts (R), which a failure restarts again. Where it restarts from is the
 * strategy's choice among the levels that survived (fl_strat_on_failure): local copies survive a process crash
 * but not a lost node, a buddy copy survives unless the rank and the buddy holding it both failed since it was
 * written, the file level survives everything; nothing surviving means from scratch. The restart pays the read of
 * that level. With one level and no buddy this is the model behind Daly's T_w, so `faultline validate` holds
 * the two against each other; `none` writes nothing and every interruption restarts from scratch. */
#include "sim_impl.h"

#include <gsl/gsl_randist.h>
#include <math.h>

/* Where the job would resume now, from what survived. */
static fl_recovery fl_restore_point(const fl_replica *rep)
{
  fl_failure_view view = {.copies_left = 0,
                          .buddy_intact = !rep->buddy_lost,
                          .buddy_version = rep->version[FL_LEVEL_BUDDY],
                          .file_version = rep->version[FL_LEVEL_FILE],
                          .local_intact = rep->local_valid,
                          .local_version = rep->version[FL_LEVEL_LOCAL],
                          .xor_intact = !rep->xor_lost,
                          .xor_version = rep->version[FL_LEVEL_XOR]};
  return fl_strat_on_failure(&rep->sim->strat, &view);
}

/* What reading the level the job resumes from costs now: with link profiles, as the links are now. */
static double fl_restart_cost(const fl_replica *rep, const fl_recovery *from)
{
  const fl_sim *sim = rep->sim;
  fl_level l = from->action == FL_ACT_ROLLBACK ? from->level : FL_LEVEL_SCRATCH;
  if (sim->nregimes && l != FL_LEVEL_SCRATCH)
    return sim->regime_read[fl_sim_regime(sim, fl_rep_now(rep)) * FL_NLEVELS + (size_t)l];
  return sim->restart_level_s[l];
}

/* After an interruption: downtime, nodes, then the restart, which reads the level the strategy resumes from
 * (*from). Returns 1 when the job cannot go on. */
static int fl_recover(fl_replica *rep, double t_lost_from, fl_recovery *from)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  double now = fl_rep_now(rep);

  if (rep->over_budget)
    return 1; /* woken by the event budget, not by a failure */
  res->interruptions++;
  res->lost_work_s += now - t_lost_from;
  fl_evlog_value(rep->log, now, FL_EV_INTERRUPTION, now - t_lost_from, NULL);
  for (;;) {
    double t_restart, restart_s;
    if (sim->downtime_s > 0) {
      fl_rep_sleep(rep, sim->downtime_s, FL_PHASE_DOWNTIME);
      res->downtime_total_s += sim->downtime_s;
    }
    if (fl_rep_wait_nodes(rep))
      return 1;
    t_restart = fl_rep_now(rep);
    *from = fl_restore_point(rep); /* again at each try: a failure during a restart may lose a level */
    restart_s = fl_restart_cost(rep, from);
    if (fl_rep_wait(rep, restart_s, FL_PHASE_RESTART)) {
      res->restart_time_s += fl_rep_now(rep) - t_restart;
      res->interruptions++;
      fl_evlog_add(rep->log, fl_rep_now(rep), FL_EV_INTERRUPTION_RESTART, -1);
      if (fl_rep_timed_out(rep))
        return 1;
      continue;
    }
    res->restart_time_s += restart_s;
    if (from->action == FL_ACT_ROLLBACK && (sim->strat.levels & (sim->strat.levels - 1u)))
      fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_RESTART_LEVEL, NAN, fl_level_name(from->level));
    else
      fl_evlog_add(rep->log, fl_rep_now(rep),
                   sim->strat.levels && isfinite(sim->tau_s) ? FL_EV_RESTART_CHECKPOINT : FL_EV_RESTART_SCRATCH, -1);
    return 0;
  }
}

/* Resume from `from` after a recovery: the work it holds becomes the committed work; checkpoints newer than it did
 * not survive (that is why it was not chosen): forget them, or a later failure would resume ahead of the work
 * done. A silent corruption committed after the restored state is undone with it. */
static void fl_resume(fl_replica *rep, const fl_recovery *from, double *committed, double work_at[FL_NLEVELS],
                      double *tainted_at)
{
  fl_sim_result *res = rep->res;
  double restored = from->action == FL_ACT_ROLLBACK ? work_at[from->level] : 0.0;
  if (restored < *committed) {
    /* the newest commit did not survive (a buddy pair lost, a node with local copies lost) */
    res->lost_work_s += *committed - restored;
    if (from->action == FL_ACT_ROLLBACK)
      fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_ROLLBACK, restored, fl_level_name(from->level));
    else
      fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_DATA_LOST, *committed, NULL);
    *committed = restored;
  }
  if (restored < *tainted_at)
    *tainted_at = INFINITY;
  for (int l = 0; l < FL_NLEVELS; l++)
    if (from->action != FL_ACT_ROLLBACK || rep->version[l] > from->version) {
      rep->version[l] = -1;
      work_at[l] = 0.0;
    }
  rep->buddy_lost = 0;
  rep->xor_lost = 0;
  rep->local_valid = 1; /* the ranks' nodes hold the restored state again */
}

/* A verification found the state corrupted: throw the segment away and read the newest checkpoint back (no
 * downtime: no node was lost). A failure during that read is an ordinary interruption. Returns 1 when the job
 * cannot go on. */
static int fl_sdc_rollback(fl_replica *rep, double t_seg, fl_recovery *from)
{
  fl_sim_result *res = rep->res;
  double t_r = fl_rep_now(rep), restart_s;
  res->sdc_rollbacks++;
  res->lost_work_s += t_r - t_seg;
  fl_evlog_value(rep->log, t_r, FL_EV_SDC_DETECTED, t_r - t_seg, NULL);
  *from = fl_restore_point(rep);
  restart_s = fl_restart_cost(rep, from);
  if (!fl_rep_wait(rep, restart_s, FL_PHASE_RESTART)) {
    res->restart_time_s += restart_s;
    return 0;
  }
  res->restart_time_s += fl_rep_now(rep) - t_r;
  return fl_recover(rep, fl_rep_now(rep), from);
}

/* The check before a checkpoint found `k` corruptions in the segment: 1 when it catches them. Replication
 * compares the copies (any difference shows); a single copy's detector catches a corrupted state with
 * probability verify_recall. */
static int fl_sdc_caught(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  return sim->verify_recall >= 1.0 || gsl_rng_uniform(rep->sdc_rng) < sim->verify_recall;
}

/* Triplication: the vote restores every rank where at most one copy is corrupted. The k corruptions strike
 * uniformly random (rank, copy) pairs; 1 when no rank has two different corrupted copies. */
static int fl_sdc_outvoted(fl_replica *rep, long k)
{
  fl_sim *sim = rep->sim;
  long rank[64];
  int copy[64];
  if (k > 64)
    return 0; /* as good as certain to hit some rank twice at any scale this runs */
  for (long i = 0; i < k; i++) {
    rank[i] = (long)gsl_rng_uniform_int(rep->sdc_rng, (unsigned long)sim->ranks);
    copy[i] = (int)gsl_rng_uniform_int(rep->sdc_rng, 3);
    for (long j = 0; j < i; j++)
      if (rank[j] == rank[i] && copy[j] != copy[i])
        return 0;
  }
  return 1;
}

/* Async flush (strategy.flush = async): a flush drained by `t` puts its checkpoint on the file level; one still
 * under way at an interruption is lost (conservative: its source may be on a lost node, and a job being
 * restarted does not drain). */
static void fl_flush_settle(fl_replica *rep, double t, double work_at[FL_NLEVELS], int interrupted)
{
  if (!isfinite(rep->flush_end))
    return;
  if (rep->flush_end <= t) {
    rep->version[FL_LEVEL_FILE] = rep->flush_version;
    work_at[FL_LEVEL_FILE] = rep->flush_work;
    fl_evlog_value(rep->log, rep->flush_end, FL_EV_FLUSH, rep->flush_work, NULL);
  } else if (interrupted) {
    fl_evlog_value(rep->log, t, FL_EV_FLUSH_LOST, rep->flush_work, NULL);
  } else {
    return;
  }
  rep->flush_end = INFINITY;
}

/* The wall time `seg` of compute takes from now: a bulk-synchronous job advances at the pace of its slowest node,
 * and a node whose speed_file slows it (while it holds a rank) slows the job; an async flush that drains slows it
 * by flush_slowdown more. Piecewise constant: integrated from one change to the next. */
static double fl_compute_wall(const fl_replica *rep, double seg)
{
  const fl_sim *sim = rep->sim;
  double t = fl_rep_now(rep), left = seg, wall = 0.0;
  int flushing = sim->flush_async && sim->flush_slowdown > 0 && isfinite(rep->flush_end);
  if (sim->nspeeds == 0 && !flushing)
    return seg;
  for (long piece = 0; left > 0; piece++) {
    double slowest = INFINITY, next = INFINITY, span, rate;
    long profiled = 0;
    for (size_t i = 0; i < sim->nspeeds; i++)
      if (sim->node_slot[sim->speeds[i].node] >= 0) {
        double nx, f = fl_host_speed_at(sim->speeds[i].hs, t, &nx);
        slowest = fmin(slowest, f);
        next = fmin(next, nx);
        profiled++;
      }
    /* the nodes without a profile run at their speed (1): they bound the pace too */
    rate = profiled < sim->slots ? fmin(1.0, slowest) : slowest;
    if (flushing && t < rep->flush_end) {
      rate /= 1.0 + sim->flush_slowdown;
      next = fmin(next, rep->flush_end);
    }
    span = next - t;
    if (!(span > 0) || rate * span >= left || piece > 10000000) { /* the last piece (or a runaway profile) */
      wall += left / rate;
      break;
    }
    wall += span;
    left -= rate * span;
    t = next;
  }
  return wall;
}

/* Compute the segment of `seg` work from `committed`. Failures placed by work (failures.trace_clock = work)
 * strike when the job's work gets to theirs, the first time: inside the segment (a failure at its very end strikes
 * after the checkpoint that follows, at the start of the next segment, as faultline run's RANK@ITER kill strikes
 * before iteration ITER, its checkpoint taken), or at once if the job stands at or past it. Returns 1 when
 * interrupted. */
static int fl_compute(fl_replica *rep, double committed, double seg)
{
  fl_sim *sim = rep->sim;
  double pos = committed, end = committed + seg;
  while (rep->kill_next < sim->nkill && sim->kill_work[rep->kill_next] < end) {
    double w = sim->kill_work[rep->kill_next];
    if (w > pos) {
      if (fl_rep_wait(rep, fl_compute_wall(rep, w - pos), FL_PHASE_COMPUTE))
        return 1;
      pos = w;
    }
    if (!fl_sim_node_on(sim, sim->kill_node[rep->kill_next])) {
      rep->kill_next++; /* down already: a node cannot fail twice (as a time trace's repeat is dropped) */
      continue;
    }
    if (fl_rep_fail_node(rep, sim->kill_node[rep->kill_next++], FL_PHASE_COMPUTE))
      return 1;
  }
  return fl_rep_wait(rep, fl_compute_wall(rep, end - pos), FL_PHASE_COMPUTE);
}

/* strategy.interval = hazard: the job's expected failures in the next `horizon` seconds, from the age of the node
 * under each of its ranks — known for nodes repaired during the replica; for the others, their age since the
 * replica's start (failures.start = fresh), or unknown, then at the stationary rate 1/M — plus the process and
 * group failures, which are exponential. */
typedef struct fl_hz_view {
  fl_replica *rep;
  double now;
} fl_hz_view;

static double fl_job_expected_failures(double horizon, void *p)
{
  const fl_hz_view *h = p;
  fl_replica *rep = h->rep;
  fl_sim *sim = rep->sim;
  long known = 0, unknown;
  double f = 0.0;
  for (long i = 0; i < rep->nrenewed; i++) {
    long node = rep->renewed[i];
    double age = h->now - rep->renew_t[node];
    if (sim->node_slot[node] < 0)
      continue;
    f += fl_fm_cumhazard(sim->fm, age + horizon) - fl_fm_cumhazard(sim->fm, age);
    known++;
  }
  unknown = sim->slots - sim->nmissing - known;
  if (unknown > 0)
    f += (double)unknown * (sim->start == FL_START_FRESH
                                ? fl_fm_cumhazard(sim->fm, h->now + horizon) - fl_fm_cumhazard(sim->fm, h->now)
                                : horizon / fl_fm_mean(sim->fm));
  if (isfinite(sim->process_mtbf_s))
    f += horizon * (double)sim->ranks / sim->process_mtbf_s;
  if (isfinite(sim->group_mtbf_s))
    f += horizon * ceil((double)sim->nodes / (double)sim->group_size) / sim->group_mtbf_s;
  return f;
}

void fl_sim_run_ranks(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  double committed = 0.0;             /* work at the newest commit */
  double work_at[FL_NLEVELS] = {0.0}; /* work at the newest checkpoint of each level */
  double tainted_at = INFINITY;       /* work at the checkpoint that committed a silent corruption */
  long clean = 0;                     /* intervals committed since the newest failure (an adapting rule's) */
  int ckpt = sim->strat.levels && isfinite(sim->tau_s);

  for (int l = 0; l < FL_NLEVELS; l++)
    rep->version[l] = -1;
  rep->local_valid = 1;
  rep->xor_lost = 0;
  rep->flush_end = INFINITY;
  if (fl_rep_wait_nodes(rep)) { /* nodes down at the start (failures.start = steady) */
    res->status = "failed";
    return;
  }
  /* done when the work is, to rounding: an interval that divides the work into k segments (a calibrated job's
   * every N iterations) must not leave a last segment of 1e-15 s and one more checkpoint after it */
  while (sim->work_s - committed > 1e-12 * sim->work_s) {
    double seg;
    fl_recovery from;
    long sdc_k = 0;
    int interrupted;
    if (ckpt && sim->adapts) { /* the rule decides before every interval, from how the run went */
      fl_hz_view view = {.rep = rep, .now = fl_rep_now(rep)};
      fl_irule_step step = {.left_s = sim->work_s - committed,
                            .clean = clean,
                            .expected = sim->hazard ? fl_job_expected_failures : NULL,
                            .ctx = &view};
      seg = fl_strat_next_interval(&sim->strat, &step);
      seg = seg > 0 ? fmin(seg, sim->work_s - committed) : sim->work_s - committed;
    } else {
      seg = ckpt ? fmin(sim->tau_s, sim->work_s - committed) : sim->work_s;
    }
    /* the level follows the work: the checkpoint after the k-th segment of the failure-free schedule goes to the
     * level the strategy gives checkpoint k, however many were taken and lost before (a rollback replays the same
     * pattern of levels, as the models of multi-level checkpointing assume) */
    long index =
        ckpt && sim->tau_s > 0 && !sim->adapts ? (long)floor(committed / sim->tau_s + 1e-9) + 1 : res->checkpoints + 1;
    fl_level level = fl_strat_level(&sim->strat, index);
    int flush = ckpt && sim->flush_async && level == FL_LEVEL_FILE; /* write the stage level, drain it after */
    double delta = ckpt ? sim->strat.delta_s[flush ? sim->flush_stage : level] : 0.0;
    double t_seg = fl_rep_now(rep), wall;
    if (fl_rep_timed_out(rep)) {
      res->status = "timeout";
      return;
    }
    fl_rep_progress(rep, committed);
    fl_flush_settle(rep, fl_rep_now(rep), work_at, 0);
    wall = fl_compute_wall(rep, seg);
    interrupted = sim->nkill ? fl_compute(rep, committed, seg) : fl_rep_wait(rep, wall, FL_PHASE_COMPUTE);
    if (!interrupted && sim->sdc) {
      sdc_k = (long)gsl_ran_poisson(rep->sdc_rng, sim->sdc_rate * seg);
      res->sdc_injected += sdc_k;
    }
    if (!interrupted && sim->verify) {
      double t_v = fl_rep_now(rep);
      rep->verifying = 1; /* the nodes compute the check: they draw busy power */
      interrupted = fl_rep_wait(rep, sim->verify_s, FL_PHASE_CHECKPOINT);
      rep->verifying = 0;
      res->verify_time_s += fl_rep_now(rep) - t_v;
      if (!interrupted && sdc_k > 0) {
        if (sim->degree >= 3 && fl_sdc_outvoted(rep, sdc_k)) {
          res->sdc_detected += sdc_k; /* corrected in place */
          fl_evlog_count_of(rep->log, fl_rep_now(rep), FL_EV_SDC_CORRECTED, sdc_k);
          sdc_k = 0;
        } else if (sim->degree >= 3 || fl_sdc_caught(rep)) {
          res->sdc_detected += sdc_k;
          if (fl_sdc_rollback(rep, t_seg, &from)) {
            res->status = fl_rep_timed_out(rep) ? "timeout" : "failed";
            return;
          }
          fl_resume(rep, &from, &committed, work_at, &tainted_at);
          clean = 0;
          continue;
        }
      }
    }
    if (!interrupted && ckpt && sim->nregimes) /* with link profiles: the cost as the links are now */
      delta = sim->regime_write[fl_sim_regime(sim, fl_rep_now(rep)) * FL_NLEVELS +
                                (size_t)(flush ? sim->flush_stage : level)];
    if (!interrupted && flush && isfinite(rep->flush_end)) /* the previous flush must drain first */
      delta += fmax(0.0, rep->flush_end - fl_rep_now(rep));
    if (interrupted || (ckpt && fl_rep_wait(rep, delta, FL_PHASE_CHECKPOINT))) {
      fl_flush_settle(rep, fl_rep_now(rep), work_at, 1);
      if (fl_recover(rep, t_seg, &from)) {
        res->status = fl_rep_timed_out(rep) ? "timeout" : "failed";
        return;
      }
      fl_resume(rep, &from, &committed, work_at, &tainted_at);
      clean = 0;
      continue;
    }
    committed += seg;
    clean++;
    res->checkpoint_time_s += wall - seg; /* compute slowed by a flush: what the flush cost the job */
    fl_flush_settle(rep, fl_rep_now(rep), work_at, 0);
    if (sdc_k > 0) { /* escaped (or no) verification: the corruption is in the state kept from now on */
      res->sdc_silent += sdc_k;
      if (!isfinite(tainted_at))
        tainted_at = committed;
      fl_evlog_count_of(rep->log, fl_rep_now(rep), FL_EV_SDC_SILENT, sdc_k);
    }
    if (ckpt) {
      unsigned wrote = sim->strat.writes[flush ? sim->flush_stage : level];
      res->checkpoints++;
      res->checkpoint_time_s += delta;
      for (int l = 1; l < FL_NLEVELS; l++)
        if (wrote & FL_LEVEL_BIT(l)) {
          work_at[l] = committed;
          rep->version[l] = res->checkpoints;
        }
      if (wrote & FL_LEVEL_BIT(FL_LEVEL_BUDDY))
        rep->commit_epoch++; /* every rank's buddy copy is fresh again */
      if (wrote & FL_LEVEL_BIT(FL_LEVEL_XOR))
        rep->xor_epoch++; /* every set's parity too */
      if (wrote & FL_LEVEL_BIT(FL_LEVEL_LOCAL))
        rep->local_valid = 1;
      if (flush) {
        rep->flush_end = fl_rep_now(rep) + sim->flush_s;
        rep->flush_version = res->checkpoints;
        rep->flush_work = committed;
      }
      if (sim->strat.levels == FL_LEVEL_BIT(level))
        fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_CHECKPOINT, committed, NULL);
      else if (flush)
        fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_CHECKPOINT_DRAIN, committed, fl_level_name(sim->flush_stage));
      else
        fl_evlog_value(rep->log, fl_rep_now(rep), FL_EV_CHECKPOINT_LEVEL, committed, fl_level_name(level));
    } else {
      rep->commit_epoch++;
    }
  }
  res->status = isfinite(tainted_at) ? "wrong_result" : "completed";
}

/* ---- the app ---- */

/* app.flops: a bulk-synchronous job advances at its slowest host's speed */
void fl_sim_ranks_work(fl_sim *sim, const fl_scenario *sc)
{
  double slowest = INFINITY;
  if (!(sc->flops > 0))
    return;
  if (fl_platform_generated(sim->pf))
    slowest = sc->node_speed;
  else
    for (long r = 0; r < sim->slots; r++)
      slowest = fmin(slowest, sg_host_get_speed(fl_platform_host(sim->pf, r)));
  sim->work_s = sc->flops / slowest;
}

/* The simulator runs every strategy for it: every checkpoint level, replicas, process crashes. */
const fl_sim_app fl_sim_bsp = {
    .app = &fl_app_bsp,
    .caps = FL_SIM_RANKS_CAPS,
    .flags = FL_SIM_RANKS_FLAGS,
    .work = fl_sim_ranks_work,
    .coordinate = fl_sim_run_ranks,
};
