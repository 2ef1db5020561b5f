/* run_tasks.c — the simulator's coordinator for task-parallel jobs (the grid world): each failed task is
 * re-executed or substituted, as the strategy decides (replication re-executes all, substitution substitutes all,
 * the hybrid asks the knapsack policy: policy/strategies).
 *
 * Each sweep takes task_time of simulated time. A task fails in a sweep when its host fails during it or it has
 * no host at its start (its node is down and no one gave it another). At the end of the sweep the failed tasks'
 * values are missing and the strategy decides, per task:
 *   replicate:  re-run it on a live spare (or its repaired node) — one more task_time for the sweep; no spare,
 *               or the new host failing during the re-run, leaves the task's old value (stale);
 *   substitute: take the new value of its best live neighbour j (least w_ij) — no time, some error; with no live
 *               neighbour the old value stays (stale).
 * A sweep is complete when no task is stale. Hybrid builds the knapsack of the seed: w_i = N_i min_j w_ij with
 * N_i the tasks that depend on i (its neighbours and itself), and asks fl_pol_solve which tasks to substitute
 * within the error budget; the others are re-executed. The values are really computed (fl_gw_sweep); the
 * error is measured against the failure-free run of the same sweeps. */
#include "grid_keys.h"
#include "gridworld_keys.h"
#include "sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid world's own state in the simulator (sim->app_state): its model, the failure-free reference, and the
 * per-sweep arrays every replica reuses. */
typedef struct fl_gwrun {
  fl_gw *gw;
  double *v, *vnext, *ref; /* values: current, next sweep, the failure-free run's final */
  double *own;             /* the last value each task computed itself (empirical weights) */
  long *failed, *rerun;    /* failed tasks of a sweep; those re-executed */
  double *weight;          /* w_i of the failed tasks */
  unsigned char *decision; /* 1: substitute, 0: replicate, per failed task */
  long max_sweeps;
  double tolerance, task_time_s;
} fl_gwrun;

static fl_gwrun *fl_gwr(const fl_sim *sim)
{
  return sim->app_state;
}

static long fl_best_substitute(const fl_sim *sim, const double *v, long s, double *w_out)
{
  return fl_gw_best_substitute(fl_gwr(sim)->gw, sim->task_failed, fl_gwr(sim)->own, v, s,
                               fl_strat_weights_empirical(&sim->strat), w_out);
}

static void fl_sim_run_tasks(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_sim_result *res = rep->res;
  fl_gwrun *g = fl_gwr(sim);
  const fl_gw *gw = g->gw;
  const long n = gw->n;
  double *v = g->v, *vnext = g->vnext;
  long *failed = g->failed, *rerun = g->rerun;

  res->iterations = 0;
  res->converged_at = -1;
  res->complete_iterations = 0;
  res->tasks_replicated = res->tasks_substituted = res->tasks_stale = 0;
  res->error_spent = 0.0;
  fl_strat_decisions_reset(&sim->strat);
  if (fl_strat_reads(&sim->strat, "policy.kind"))
    res->policy_time_s = 0.0; /* a policy that never had to decide spent no time */
  memcpy(v, gw->reward, (size_t)n * sizeof *v);
  memcpy(g->own, gw->reward, (size_t)n * sizeof *v);

  for (long it = 0; it < g->max_sweeps; it++) {
    long nf = 0, nrerun = 0, stale = 0;
    double change = 0.0;

    if (fl_rep_timed_out(rep)) {
      res->status = "timeout";
      return;
    }
    fl_rep_progress(rep, (double)it * g->task_time_s);
    memset(sim->task_failed, 0, (size_t)n);
    fl_rep_wait(rep, g->task_time_s, FL_PHASE_COMPUTE); /* failures mark tasks; they never stop the sweep */
    (void)fl_gw_sweep(gw, v, vnext, 0, n);
    for (long s = 0; s < n; s++) {
      if (sim->slot_node[s] < 0)
        sim->task_failed[s] = 1; /* no host during the sweep */
      if (sim->task_failed[s])
        failed[nf++] = s;
    }

    /* decide: the strategy says, per failed task, substitute (1) or re-execute (0) */
    for (long f = 0; f < nf; f++)
      (void)fl_best_substitute(sim, v, failed[f], &g->weight[f]);
    if (fl_strat_decide_tasks(&sim->strat, nf, g->weight, g->decision) != FL_OK) {
      rep->rc = FL_ERR_INTERNAL; /* fl_err holds the solver's message */
      res->status = "failed";
      return;
    }
    if (fl_strat_reads(&sim->strat, "policy.kind")) {
      res->policy_solver = sim->strat.decided.solver;
      res->policy_time_s = sim->strat.decided.solve_time_s;
      res->policy_gap = sim->strat.decided.worst_gap;
    }

    for (long f = 0; f < nf; f++) {
      long s = failed[f];
      if (g->decision[f]) {
        long j = fl_best_substitute(sim, v, s, NULL);
        if (j < 0) {
          vnext[s] = v[s];
          stale++;
          fl_evlog_task(rep->log, fl_rep_now(rep), FL_EV_STALE_NEIGHBOUR, -1, s, -1, it + 1);
        } else {
          vnext[s] = vnext[j];
          res->tasks_substituted++;
          res->error_spent += g->weight[f]; /* the w_i the policy accepted */
          fl_evlog_task(rep->log, fl_rep_now(rep), FL_EV_SUBSTITUTION_TASK, -1, s, j, it + 1);
        }
        continue;
      }
      if (sim->slot_node[s] < 0) {
        long node = fl_sim_take_spare(sim);
        if (node < 0) {
          vnext[s] = v[s];
          stale++;
          fl_evlog_task(rep->log, fl_rep_now(rep), FL_EV_STALE_SPARE, -1, s, -1, it + 1);
          continue;
        }
        fl_sim_missing_remove(sim, s); /* it was waiting for a node */
        fl_sim_place(sim, s, node);
      }
      rerun[nrerun++] = s;
    }
    if (nrerun > 0) {
      /* re-execute on the new hosts, all at once: one more task_time */
      for (long f = 0; f < nrerun; f++)
        sim->task_failed[rerun[f]] = 0;
      fl_rep_wait(rep, g->task_time_s, FL_PHASE_COMPUTE);
      for (long f = 0; f < nrerun; f++) {
        long s = rerun[f];
        if (sim->task_failed[s]) {
          vnext[s] = v[s];
          stale++;
          fl_evlog_task(rep->log, fl_rep_now(rep), FL_EV_STALE_RERUN, -1, s, -1, it + 1);
        } else {
          res->tasks_replicated++;
          fl_evlog_task(rep->log, fl_rep_now(rep), FL_EV_REPLICATION_TASK, sim->slot_node[s], s, -1, it + 1);
        }
      }
    }
    for (long s = 0; s < n; s++)
      if (!sim->task_failed[s])
        g->own[s] = vnext[s]; /* computed by the task itself (in the sweep or its re-run) */
    res->tasks_stale += stale;
    res->complete_iterations += stale == 0;
    for (long s = 0; s < n; s++)
      change = fmax(change, fabs(vnext[s] - v[s]));
    {
      double *t = v;
      v = vnext;
      vnext = t;
    }
    res->iterations = it + 1;
    if (change <= g->tolerance) {
      res->converged_at = it + 1;
      break;
    }
  }
  res->error_linf = 0.0;
  res->error_l1 = 0.0;
  for (long s = 0; s < n; s++) {
    double e = fabs(v[s] - g->ref[s]);
    res->error_linf = fmax(res->error_linf, e);
    res->error_l1 += e;
  }
  res->status = "completed";
}

/* ---- the app ---- */

/* one task per state: app.nodes is 0 or the grid's size */
static fl_err fl_gridworld_size(fl_sim *sim, const fl_scenario *sc)
{
  if (sc->app_nodes != 0 && sc->app_nodes != fl_grid_options(sc)->rows * fl_grid_options(sc)->cols)
    return fl_scenario_fail(sc, "app", "nodes", "a grid world has one task per state: 0 or %ld",
                            fl_grid_options(sc)->rows * fl_grid_options(sc)->cols);
  sim->ranks = fl_grid_options(sc)->rows * fl_grid_options(sc)->cols;
  return FL_OK;
}

/* The grid world's model, its failure-free reference run, and the per-sweep arrays. */
static fl_err fl_sim_setup_gridworld(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  long ref_iterations = 0;
  const long n = fl_grid_options(sc)->rows * fl_grid_options(sc)->cols;

  fl_gwrun *g = NULL;
  FL_ALLOC(g, 1);
  sim->app_state = g;
  FL_TRY(fl_gw_create(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, fl_gridworld_options(sc)->discount,
                      fl_gridworld_options(sc)->move_prob, sc->seed, &g->gw));
  FL_ALLOC(g->v, n);
  FL_ALLOC(g->vnext, n);
  FL_ALLOC(g->ref, n);
  FL_ALLOC(g->own, n);
  FL_ALLOC(g->failed, n);
  FL_ALLOC(g->rerun, n);
  FL_ALLOC(g->weight, n);
  FL_ALLOC(g->decision, n);
  FL_ALLOC(sim->task_failed, n);
  FL_CHECK(
      fl_gw_solve(g->gw, fl_grid_options(sc)->tolerance, fl_grid_options(sc)->iterations, g->ref, &ref_iterations) >= 0,
      FL_ERR_NOMEM, "out of memory solving the grid world");
  g->max_sweeps = fl_grid_options(sc)->iterations;
  g->tolerance = fl_grid_options(sc)->tolerance;
  g->task_time_s = fl_gridworld_options(sc)->task_time_s;
  sim->work_s = (double)ref_iterations * g->task_time_s; /* the failure-free run's time */
done:
  return rc;
}

static void fl_gridworld_destroy(fl_sim *sim)
{
  fl_gwrun *g = fl_gwr(sim);
  free(sim->task_failed);
  sim->task_failed = NULL;
  if (!g)
    return;
  fl_gw_destroy(&g->gw);
  free(g->v);
  free(g->vnext);
  free(g->ref);
  free(g->own);
  free(g->failed);
  free(g->rerun);
  free(g->weight);
  free(g->decision);
  free(g);
  sim->app_state = NULL;
}

/* Tasks, re-executed or substituted: no checkpoint of the job (the strategies that write them are refused). */
const fl_sim_app fl_sim_gridworld = {
    .app = &fl_app_gridworld,
    .caps = {.name = "sim", .shape = FL_SHAPE_TASKS, .levels = FL_SIM_ALL_LEVELS, .max_degree = 3, .task_recovery = 1},
    .flags = FL_SIM_APP_DIRECT,
    .size = fl_gridworld_size,
    .setup = fl_sim_setup_gridworld,
    .destroy = fl_gridworld_destroy,
    .coordinate = fl_sim_run_tasks,
    .row = fl_sim_task_row, /* work_s: the failure-free time of the sweeps the run made */
};
