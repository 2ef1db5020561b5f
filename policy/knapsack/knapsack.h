/* knapsack.h — replicate or substitute: which failed tasks to substitute under an error budget.
 *
 * Vorobeychik et al., "Fault Oblivious HPC with Dynamic Task Replication and Substitution" (ISC'11). Given the
 * set I of failed tasks, the substitution weights and an error budget epsilon, decide for each failed task
 * whether to replicate it (re-execute) or substitute it (a neighbour's output stands in), maximising the number
 * of substitutions:
 *
 *   full MIP:    max sum_i v_i  s.t.  sum_{j not in I} z_ijk = v_i        for all i in I, k in D_i
 *                                    sum_{i,j,k} w_ijk z_ijk <= epsilon
 *                                    [sum of z_ijk crossing processors <= max_cross]
 *                                    v_i, z_ijk in {0, 1}
 *   simplified:  max sum_i v_i  s.t.  sum_i w_i v_i <= epsilon,   w_i = N_i min_{j not in I} w_ij
 *                (a 0/1 knapsack with unit values; greedy = increasing w_i until the budget is saturated)
 *
 * Solvers ("greedy", "exact", "mip") sit behind one ops table and a registry keyed by the same strings the
 * scenario uses ([policy] kind). Pure decision code: no SimGrid, no MPI; the simulator and the MPI runtime
 * call the very same functions. */
#ifndef FL_KNAPSACK_H
#define FL_KNAPSACK_H

#include "fl_err.h"
#include "keys.h"

/* The [policy] keys (keys.h), declared here with the solvers they choose and shared by the strategies that decide
 * with a knapsack (hybrid, substitution) and the workflow app's substitutions: fl_scenario_options(sc,
 * &fl_pol_keys) gives a scenario's values. */
typedef struct fl_pol_opts {
  char *kind;            /* a solver's name, or "full-mip" */
  double max_cross;      /* full-mip: substitutions across hosts per decision (< 0: no limit) */
  double error_budget;   /* epsilon */
  double time_limit_s;   /* the MIP solver's time limit */
  double mip_gap;        /* the MIP solver's relative gap */
  int weights_empirical; /* 0: the seed's bound; 1: observed differences */
} fl_pol_opts;
extern const fl_keyset fl_pol_keys;

/* The full formulation's terms (optional): one (i, j, k) triple per candidate substitution. */
typedef struct fl_pol_full {
  long nterms;
  const long *term_i;           /* index into the failed set, 0 .. nfailed-1 */
  const long *term_j;           /* substitute task id (not failed) */
  const long *term_k;           /* dependent task id */
  const double *term_w;         /* w_ijk >= 0 */
  const unsigned char *crosses; /* 1 if j and k sit on different processors; NULL = none cross */
  long max_cross;               /* limit on crossing substitutions; < 0: no limit */
  const long *ndependents;      /* |D_i| per failed task (each dependent k needs one substitute) */
  /* Added with the solvers (issue 3). Task id of each failed task (nfailed entries), so that terms whose
   * substitute j is itself failed are refused (the seed's "no failed substitutes": such z_ijk are 0).
   * NULL: the caller guarantees that no term_j is a failed task. */
  const long *failed_task;
} fl_pol_full;

/* How the solvers read an instance (contract of fl_pol_solve):
 * - Simplified (full == NULL): `weight` has nfailed entries, each >= 0 or INFINITY (never substituted); a NaN or
 *   negative weight is FL_ERR_INPUT. The error spent is sum_i w_i v_i.
 * - Full (full != NULL): the costs come from the terms alone and `weight` is not read (it may be NULL). D_i is the
 *   set of distinct term_k among the terms of i; ndependents (NULL: that set's size) may say there are more
 *   dependents, and then the extra ones have no candidate substitute and i can only be replicated. A term with
 *   w = INFINITY, or whose j is a failed task, is never used; a NaN or negative w, an i out of range, or
 *   ndependents[i] smaller than the distinct dependents of i is FL_ERR_INPUT. A failed task with no dependent is
 *   substituted for free. The crossing limit is active when crosses != NULL and max_cross >= 0.
 * - budget: >= 0 (INFINITY allowed), NaN or negative is FL_ERR_INPUT. Costs are compared with the budget with a
 *   relative tolerance of 1e-9 (all solvers alike), so that sums taken in a different order agree.
 * - nfailed == 0: the trivial answer (nothing substituted, bound 0, gap 0), from every solver. */

typedef struct fl_pol_instance {
  long nfailed;            /* |I| */
  const double *weight;    /* simplified w_i per failed task; INFINITY = no substitute available */
  double budget;           /* epsilon >= 0 */
  const fl_pol_full *full; /* NULL: solve the simplified knapsack */
  double time_limit_s;     /* for "mip": GLPK's limit; <= 0: none */
  double mip_gap;          /* for "mip": relative gap at which GLPK may stop (>= 0; 0: prove optimality) */
} fl_pol_instance;

typedef struct fl_pol_decision {
  unsigned char *substitute; /* caller-allocated, nfailed entries: 1 substitute, 0 replicate */
  long *substitute_by;       /* optional (full MIP), caller-allocated, nterms entries: z_ijk chosen (0/1) */
  long nsubstituted;         /* objective value: number of substitutions */
  double error;              /* error spent: sum of w_i v_i (or w_ijk z_ijk) */
  double bound;              /* best known upper bound on the objective (NAN if unknown) */
  double gap;                /* (bound - objective) / max(1, bound); 0 when proven optimal; NAN if unknown */
  const char *solver;        /* what decided: "greedy", "exact", "mip", "mip (greedy fallback)" */
  double time_s;             /* wall time spent */
} fl_pol_decision;

/* Decide with the solver named `kind`. Unknown kinds are FL_ERR_INPUT listing the known ones. `out` is
 * overwritten (substitute[] and substitute_by[] first zeroed); `out->solver` points to a static string.
 * An instance where nothing can be substituted (budget 0 with positive weights, all weights INFINITY) is a
 * result (nsubstituted = 0), not an error.
 *   "greedy": increasing cost until the budget is saturated; O(n) radix sort, any size. Optimal for the
 *             simplified problem and for the full one without an active crossing limit (see docs/policy.md).
 *   "exact":  optimal; with an active crossing limit a branch and bound that refuses (FL_ERR_INPUT) more than
 *             FL_POL_EXACT_MAX_FAILED failed tasks or more than FL_POL_EXACT_MAX_NODES nodes.
 *   "mip":    GLPK (only when built with GLPK), greedy answer as incumbent and fallback. */
fl_err fl_pol_solve(const char *kind, const fl_pol_instance *in, fl_pol_decision *out);

#define FL_POL_EXACT_MAX_FAILED 40L
#define FL_POL_EXACT_MAX_NODES 10000000L

/* The registry: solver names in registry order ("greedy", "exact", then "mip" when GLPK is built in);
 * fl_pol_solver_name returns NULL out of range. */
int fl_pol_solver_count(void);
const char *fl_pol_solver_name(int i);

#endif
