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

/* What the hybrid keeps of its options between decisions (in run->state: the scenario may be gone by then). */
typedef struct fl_hybrid_state {
  double time_limit_s, mip_gap;
  long max_cross; /* full-mip: crossing substitutions allowed per decision (< 0: no limit) */
} fl_hybrid_state;
_Static_assert(sizeof(fl_hybrid_state) <= FL_STRAT_STATE, "the hybrid's state fits its run");

static fl_hybrid_state *fl_hybrid(fl_strategy_run *run)
{
  return (fl_hybrid_state *)(void *)run->state;
}

static fl_err fl_hybrid_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  const fl_pol_opts *po = run->opts; /* policy/knapsack's keys, the [policy] section */
  fl_hybrid_state *hs = fl_hybrid(run);
  unsigned char none[1];
  fl_pol_instance in = {.nfailed = 0, .budget = po->error_budget};
  fl_pol_decision d = {.substitute = none};
  snprintf(run->solver, sizeof run->solver, "%s", po->kind);
  run->needs_dependents = strcmp(po->kind, "full-mip") == 0;
  if (run->needs_dependents) {
    if (fl_pol_solve("mip", &in, &d) != FL_OK)
      return fl_scenario_fail(sc, "policy", "kind", "full-mip needs GLPK, and this faultline was built without it");
    snprintf(run->solver, sizeof run->solver, "mip");
  }
  run->budget = po->error_budget;
  run->weights_empirical = po->weights_empirical;
  hs->time_limit_s = po->time_limit_s;
  hs->mip_gap = po->mip_gap;
  hs->max_cross = po->max_cross < 0 ? -1 : (long)po->max_cross;
  if (!run->needs_dependents && fl_pol_solve(po->kind, &in, &d) != FL_OK) { /* the solver's name, checked first */
    char why[512];
    snprintf(why, sizeof why, "%s", fl_err_msg());
    return fl_scenario_fail(sc, "policy", "kind", "%s", why);
  }
  return FL_OK;
}

static void fl_hybrid_account(fl_strategy_run *run, const fl_pol_decision *d)
{
  fl_strat_decisions *t = &run->decided;
  t->solve_time_s += d->time_s;
  t->objective += d->nsubstituted;
  if (!isnan(d->gap) && !(d->gap <= t->worst_gap))
    t->worst_gap = d->gap;
  if (strstr(d->solver, "fallback"))
    t->fell_back = 1;
  if (!t->solver || strstr(d->solver, "fallback"))
    t->solver = run->needs_dependents && !strstr(d->solver, "fallback") ? "full-mip" : d->solver;
}

/* One decision: the simplified knapsack on weight[] (full == NULL), or the full MIP on the terms. */
static fl_err fl_hybrid_solve(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                              unsigned char *substitute, long *substitute_by)
{
  const fl_hybrid_state *hs = fl_hybrid(run);
  fl_pol_instance in = {.nfailed = nfailed,
                        .weight = weight,
                        .budget = run->budget,
                        .full = full,
                        .time_limit_s = hs->time_limit_s,
                        .mip_gap = hs->mip_gap};
  fl_pol_decision d = {.substitute = substitute, .substitute_by = full ? substitute_by : NULL};
  fl_err rc;
  if (nfailed <= 0)
    return FL_OK;
  if ((rc = fl_pol_solve(run->solver, &in, &d)) != FL_OK)
    return rc;
  fl_hybrid_account(run, &d);
  return FL_OK;
}

static fl_err fl_hybrid_decide(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute)
{
  if (run->needs_dependents)
    return fl_err_set(FL_ERR_INPUT, "policy.kind = full-mip needs per-dependent substitutes: app.kind = workflow");
  return fl_hybrid_solve(run, NULL, nfailed, weight, substitute, NULL);
}

/* On a task graph: the simplified knapsack (greedy, exact, mip) on w_i, or seed 002's full MIP on the terms. */
static fl_err fl_hybrid_decide_graph(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                                     unsigned char *substitute, long *substitute_by, int *have_z)
{
  fl_pol_full f = *full;
  f.max_cross = fl_hybrid(run)->max_cross;
  *have_z = run->needs_dependents && nfailed > 0;
  return fl_hybrid_solve(run, run->needs_dependents ? &f : NULL, nfailed, weight, substitute, substitute_by);
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
