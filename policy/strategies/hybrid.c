/* hybrid.c — the seed 002 policy: at each failure epoch, substitute as many failed tasks as the error budget
 * allows (a knapsack over w_i, solved by policy/knapsack: greedy, exact or GLPK's MIP) and re-execute the rest. */
#include "knapsack.h"
#include "strategy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const fl_strategy_key fl_hybrid_keys[] = {
    {"policy.kind", FL_SHAPE_TASKS, "the solver: greedy, exact, mip (the simplified knapsack), full-mip (workflows)"},
    {"policy.max_cross", FL_SHAPE_TASKS, "full-mip: substitutions across hosts allowed per decision"},
    {"policy.error_budget", FL_SHAPE_TASKS, "epsilon: substitution error allowed per sweep"},
    {"policy.time_limit", FL_SHAPE_TASKS, "the MIP solver's time limit"},
    {"policy.mip_gap", FL_SHAPE_TASKS, "the MIP solver's relative gap"},
    {"policy.weights", FL_SHAPE_TASKS, "w_i: the seed's bound or observed differences"},
    {NULL, 0, NULL},
};

static fl_err fl_hybrid_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  const fl_pol_opts *po = fl_scenario_options(sc, &fl_pol_keys);
  unsigned char none[1];
  fl_pol_instance in = {.nfailed = 0, .budget = po->error_budget};
  fl_pol_decision d = {.substitute = none};
  snprintf(run->policy, sizeof run->policy, "%s", po->kind);
  run->full_model = strcmp(po->kind, "full-mip") == 0;
  run->max_cross = po->max_cross < 0 ? -1 : (long)po->max_cross;
  if (run->full_model) {
    if (fl_pol_solve("mip", &in, &d) != FL_OK)
      return fl_scenario_fail(sc, "policy", "kind", "full-mip needs GLPK, and this faultline was built without it");
    snprintf(run->policy, sizeof run->policy, "mip");
  }
  run->error_budget = po->error_budget;
  run->time_limit_s = po->time_limit_s;
  run->mip_gap = po->mip_gap;
  run->weights_empirical = po->weights_empirical;
  if (!run->full_model && fl_pol_solve(po->kind, &in, &d) != FL_OK) { /* the solver's name, checked before anything runs */
    char why[512];
    snprintf(why, sizeof why, "%s", fl_err_msg());
    return fl_scenario_fail(sc, "policy", "kind", "%s", why);
  }
  return FL_OK;
}

static void fl_hybrid_account(fl_strategy_run *run, const fl_pol_decision *d)
{
  run->solve_time_s += d->time_s;
  run->objective += d->nsubstituted;
  if (!isnan(d->gap) && !(d->gap <= run->worst_gap))
    run->worst_gap = d->gap;
  if (strstr(d->solver, "fallback"))
    run->fell_back = 1;
  if (!run->solver || strstr(d->solver, "fallback"))
    run->solver = run->full_model && !strstr(d->solver, "fallback") ? "full-mip" : d->solver;
}

/* One decision: the simplified knapsack on weight[] (full == NULL), or the full MIP on the terms. */
static fl_err fl_hybrid_solve(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                              unsigned char *substitute, long *substitute_by)
{
  fl_pol_instance in = {.nfailed = nfailed,
                        .weight = weight,
                        .budget = run->error_budget,
                        .full = full,
                        .time_limit_s = run->time_limit_s,
                        .mip_gap = run->mip_gap};
  fl_pol_decision d = {.substitute = substitute, .substitute_by = full ? substitute_by : NULL};
  fl_err rc;
  if (nfailed <= 0)
    return FL_OK;
  if ((rc = fl_pol_solve(run->policy, &in, &d)) != FL_OK)
    return rc;
  fl_hybrid_account(run, &d);
  return FL_OK;
}

static fl_err fl_hybrid_decide(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute)
{
  if (run->full_model)
    return fl_err_set(FL_ERR_INPUT, "policy.kind = full-mip needs per-dependent substitutes: app.kind = workflow");
  return fl_hybrid_solve(run, NULL, nfailed, weight, substitute, NULL);
}

/* On a task graph: the simplified knapsack (greedy, exact, mip) on w_i, or seed 002's full MIP on the terms. */
static fl_err fl_hybrid_decide_graph(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                                     unsigned char *substitute, long *substitute_by, int *have_z)
{
  fl_pol_full f = *full;
  f.max_cross = run->max_cross;
  *have_z = run->full_model && nfailed > 0;
  return fl_hybrid_solve(run, run->full_model ? &f : NULL, nfailed, weight, substitute, substitute_by);
}

const fl_strategy_ops fl_strategy_hybrid = {
    .name = "hybrid",
    .summary = "tasks: the knapsack policy substitutes within the error budget and re-executes the rest",
    .keys = fl_hybrid_keys,
    .options = &fl_pol_keys,
    .shapes = FL_SHAPE_TASKS,
    .setup = fl_hybrid_setup,
    .decide_tasks = fl_hybrid_decide,
    .decide_graph = fl_hybrid_decide_graph,
};
