/* knapsack.c — the policy-solver registry and fl_pol_solve: look the solver up by the scenario's type string,
 * check the instance once for all solvers, answer the trivial case, index the full formulation, time the call.
 * The solvers themselves (greedy.c, exact.c, mip.c) see only instances that passed these checks. */
#include "knapsack_impl.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const fl_pol_weights_choices[] = {"bound", "empirical", NULL};
static const fl_key fl_pol_key_table[] = {
    {"policy", "kind", FL_K_STR, offsetof(fl_pol_opts, kind), 0, "greedy", NULL,
     "greedy | exact | mip (the simplified knapsack of seed 002) | full-mip (its full MIP, per-dependent "
     "substitutes; workflows): who decides replicate vs substitute (strategy hybrid)"},
    {"policy", "max_cross", FL_K_REAL, offsetof(fl_pol_opts, max_cross), 0, "-1", NULL,
     "full-mip: substitutions whose substitute and dependent sit on different hosts allowed per decision; "
     "-1 = no limit"},
    {"policy", "error_budget", FL_K_REAL, offsetof(fl_pol_opts, error_budget), FL_K_NONNEG, "10", NULL,
     "epsilon: substitution error allowed per iteration (grid world) or over the whole run (workflow), the sum of "
     "the weights of the substitutions made"},
    {"policy", "time_limit", FL_K_DURATION, offsetof(fl_pol_opts, time_limit_s), FL_K_POS, "1s", NULL,
     "mip: solver time limit"},
    {"policy", "mip_gap", FL_K_REAL, offsetof(fl_pol_opts, mip_gap), FL_K_NONNEG, "0.01", NULL,
     "mip: relative gap at which the solver may stop"},
    {"policy", "weights", FL_K_ENUM_INT, offsetof(fl_pol_opts, weights_empirical), 0, "bound", fl_pol_weights_choices,
     "substitution weights: bound = (1 - delta p)/(1 - delta) for neighbours; empirical = observed |V(s) - V(s')|"},
};
const fl_keyset fl_pol_keys = {"the knapsack policy (strategies hybrid, substitution)", sizeof(fl_pol_opts),
                               fl_pol_key_table, FL_KEYS_N(fl_pol_key_table), NULL};

static const fl_pol_ops *const fl_pol_registry[] = {
    &fl_pol_greedy_ops,
    &fl_pol_exact_ops,
#if FL_HAVE_GLPK
    &fl_pol_mip_ops,
#endif
};
#define FL_POL_NREG ((int)(sizeof fl_pol_registry / sizeof fl_pol_registry[0]))

int fl_pol_solver_count(void)
{
  return FL_POL_NREG;
}
const char *fl_pol_solver_name(int i)
{
  return (i >= 0 && i < FL_POL_NREG) ? fl_pol_registry[i]->name : NULL;
}

double fl_pol_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What every solver may assume (knapsack.h, "How the solvers read an instance"); the full terms are checked
 * by fl_pol_terms_build. */
static fl_err fl_pol_check(const fl_pol_instance *in, const fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  FL_CHECK(in->nfailed >= 0, FL_ERR_INPUT, "policy instance: nfailed = %ld (must be >= 0)", in->nfailed);
  FL_CHECK(!isnan(in->budget) && in->budget >= 0, FL_ERR_INPUT, "policy instance: error budget %g (must be >= 0)",
           in->budget);
  FL_CHECK(!isnan(in->time_limit_s), FL_ERR_INPUT, "policy instance: time limit is NaN");
  FL_CHECK(!isnan(in->mip_gap) && in->mip_gap >= 0, FL_ERR_INPUT, "policy instance: mip_gap %g (must be >= 0)",
           in->mip_gap);
  if (in->nfailed == 0)
    goto done;
  FL_CHECK(out->substitute != NULL, FL_ERR_INPUT, "policy decision: substitute[] not allocated (%ld failed tasks)",
           in->nfailed);
  if (!in->full) {
    FL_CHECK(in->weight != NULL, FL_ERR_INPUT, "policy instance: no weights for %ld failed tasks", in->nfailed);
    for (long i = 0; i < in->nfailed; i++)
      FL_CHECK(!isnan(in->weight[i]) && in->weight[i] >= 0, FL_ERR_INPUT,
               "policy instance: weight[%ld] = %g (must be >= 0, or INFINITY for no substitute)", i, in->weight[i]);
  }
done:
  return rc;
}

fl_err fl_pol_solve(const char *kind, const fl_pol_instance *in, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  const fl_pol_ops *ops = NULL;
  fl_pol_terms *terms = NULL;
  fl_pol_ctx ctx;
  char known[128] = "";
  double t0 = fl_pol_now();

  for (int i = 0; i < FL_POL_NREG; i++) {
    if (kind && strcmp(fl_pol_registry[i]->name, kind) == 0)
      ops = fl_pol_registry[i];
    strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, fl_pol_registry[i]->name, sizeof known - strlen(known) - 1);
  }
  FL_CHECK(ops != NULL, FL_ERR_INPUT, "unknown policy '%s' (known: %s)", kind ? kind : "(null)", known);
  FL_CHECK(in != NULL && out != NULL, FL_ERR_INPUT, "policy '%s': no instance or no decision", kind);
  FL_TRY(fl_pol_check(in, out));

  if (in->nfailed > 0)
    memset(out->substitute, 0, (size_t)in->nfailed);
  if (in->full && out->substitute_by && in->full->nterms > 0)
    memset(out->substitute_by, 0, (size_t)in->full->nterms * sizeof *out->substitute_by);
  out->nsubstituted = 0;
  out->error = 0.0;
  out->bound = NAN;
  out->gap = NAN;
  out->solver = NULL;
  if (in->nfailed == 0) { /* nothing failed: nothing to decide, provably */
    out->bound = 0.0;
    out->gap = 0.0;
  } else {
    if (in->full)
      FL_TRY(fl_pol_terms_build(in, &terms));
    ctx = (fl_pol_ctx){.in = in, .terms = terms, .t0_s = t0};
    FL_TRY(ops->solve(&ctx, out));
  }
  if (!out->solver)
    out->solver = ops->name;
done:
  if (out)
    out->time_s = fl_pol_now() - t0;
  fl_pol_terms_destroy(&terms);
  return rc;
}
