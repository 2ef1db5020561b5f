/* app.c — app.kind = workflow's coordinator and ops for the simulator (fl_sim_workflow; see workflow_run.h). */
#include "workflow_run.h"

static void fl_sim_run_workflow(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_wfrun *w = sim->app_state;
  fl_sim_result *res = rep->res;

  res->tasks_replicated = res->tasks_substituted = res->tasks_lost = 0;
  res->error_spent = 0.0;
  res->policy_objective = 0;
  fl_strat_decisions_reset(&sim->strat);
  for (long p = 0; p < w->H; p++)
    if (w->q[p].n > 0 && w->up[p])
      fl_wf_wake(w, p);
  while (!w->finished) {
    double left = sim->max_time_s - fl_wf_now(rep);
    int timed_out;
    if (left <= 0 || rep->over_budget || rep->rc != FL_OK)
      break;
    rep->phase = FL_PHASE_COMPUTE;
    timed_out = sg_sem_acquire_timeout(rep->sem, left);
    rep->phase = FL_PHASE_IDLE;
    if (!timed_out)
      rep->interrupt_pending = 0;
  }
  if (!w->finished) {
    w->finished = 1;
    rep->now = fl_wf_now(rep);
    res->status = rep->rc != FL_OK ? "failed" : "timeout";
    for (long e = 0; e < w->wf->nedges; e++)
      fl_wf_drop_comm(w, e);
    for (long p = 0; p < w->H; p++)
      if (w->stagec[p]) { /* a staged read under way: cancelled, freed when the engine has ended */
        fl_sgc_cancel(w->stagec[p]);
        if (fl_grow((void **)&w->dropped, &w->capdropped, w->ndropped + 1, sizeof *w->dropped) == FL_OK)
          w->dropped[w->ndropped++] = w->stagec[p];
        w->stagec[p] = NULL;
      }
    for (long p = 0; p < w->H; p++)
      if (w->worker[p]) {
        sg_actor_t a = w->worker[p];
        w->worker[p] = NULL;
        sg_actor_kill(a);
      }
  }
  res->error_spent = w->spent;
  res->tasks_stale = -1;
  if (w->gw) {
    /* progress: the leading sweeps whose every task has a value (computed or substituted) — all of them when the
     * run completed, how far it got by run.max_time when it timed out (the seed's resilience to failures) */
    const long S = w->gw->n;
    long t = 0, s = S;
    for (; t < w->wf->gw_sweeps && s == S; t += s == S)
      for (s = 0; s < S && (w->state[t * S + s] == FL_T_DONE || w->state[t * S + s] == FL_T_SUBST); s++)
        ;
    res->iterations = w->wf->gw_sweeps;
    res->complete_iterations = t;
  }
  if (w->gw && strcmp(res->status, "completed") == 0) {
    /* the last sweep's values (a substituted one reports its substitute's) against the failure-free run's */
    const long S = w->gw->n, last = w->wf->ntasks - S;
    res->iterations = w->wf->gw_sweeps;
    res->error_linf = 0.0;
    res->error_l1 = 0.0;
    for (long s = 0; s < S; s++) {
      long i = last + s, hops = 0;
      double e;
      while (w->state[i] == FL_T_SUBST && hops++ < S)
        i = w->sink_sub[i];
      e = fabs(w->val[i] - w->ref[s]);
      res->error_linf = fmax(res->error_linf, e);
      res->error_l1 += e;
    }
  }
  if (fl_strat_reads(&sim->strat, "policy.kind")) {
    res->policy_solver = sim->strat.decided.solver;
    res->policy_time_s = sim->strat.decided.solve_time_s;
    res->policy_gap = sim->strat.decided.worst_gap;
    res->policy_objective = sim->strat.decided.objective;
  }
}

/* app.nodes hosts of the platform (0: all); a task's replication is its re-execution */
static fl_err fl_workflow_size(fl_sim *sim, const fl_scenario *sc)
{
  if (sc->app_nodes > sim->nodes)
    return fl_scenario_fail(sc, "app", "nodes", "%ld hosts asked for but platform '%s' has only %ld node%s",
                            sc->app_nodes, fl_platform_describe(sim->pf), sim->nodes, sim->nodes == 1 ? "" : "s");
  sim->degree = 1;
  sim->ranks = sc->app_nodes > 0 ? sc->app_nodes : sim->nodes;
  return FL_OK;
}

static fl_err fl_workflow_setup(fl_sim *sim, const fl_scenario *sc)
{
  fl_wfrun *w = NULL;
  fl_err rc = fl_wfr_create(sim, sc, &w);
  sim->app_state = w; /* (fl_wfr_create frees what it made when it fails) */
  return rc;
}

static void fl_workflow_destroy(fl_sim *sim)
{
  fl_wfrun *w = sim->app_state;
  fl_wfr_destroy(&w);
  sim->app_state = NULL;
}

/* Tasks as SimGrid executions on one cluster (files between any two hosts), re-executed or substituted. */
const fl_sim_app fl_sim_workflow = {
    .app = &fl_app_workflow,
    .caps = {.name = "sim", .shape = FL_SHAPE_TASKS, .levels = FL_SIM_ALL_LEVELS, .max_degree = 3, .task_recovery = 1},
    .form = FL_PLATFORM_CLUSTER,
    .flags = FL_SIM_APP_DEPENDENTS | FL_SIM_APP_SG_DATES | FL_SIM_APP_EXECS | FL_SIM_APP_FREE_RUN,
    .size = fl_workflow_size,
    .setup = fl_workflow_setup,
    .destroy = fl_workflow_destroy,
    .reset = fl_wfr_reset,
    .coordinate = fl_sim_run_workflow,
    .on_failure = fl_wfr_on_failure,
    .on_repair = fl_wfr_on_repair,
    .row = fl_sim_task_row, /* work_s: the failure-free HEFT schedule's length */
};
