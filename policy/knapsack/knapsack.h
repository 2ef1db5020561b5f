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
} fl_pol_full;

typedef struct fl_pol_instance {
  long nfailed;          /* |I| */
  const double *weight;  /* simplified w_i per failed task; INFINITY = no substitute available */
  double budget;         /* epsilon >= 0 */
  const fl_pol_full *full; /* NULL: solve the simplified knapsack */
  double time_limit_s;   /* for "mip": GLPK's limit; <= 0: none */
  double mip_gap;        /* for "mip": relative gap at which GLPK may stop */
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

/* Decide with the solver named `kind`. Unknown kinds are FL_ERR_INPUT listing the known ones. */
fl_err fl_pol_solve(const char *kind, const fl_pol_instance *in, fl_pol_decision *out);

int fl_pol_solver_count(void);
const char *fl_pol_solver_name(int i);

#endif
