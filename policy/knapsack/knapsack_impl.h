/* knapsack_impl.h — what a policy solver implements, and what the solvers share (private to policy/knapsack).
 *
 * Adding a solver: one file with a `const fl_pol_ops` and one line in the registry of knapsack.c. The dispatch
 * (fl_pol_solve) has already checked the instance, zeroed the decision and indexed the full formulation's terms
 * (fl_pol_terms) before a solver's `solve` runs; a solver fills substitute[], substitute_by[] (full only, when
 * given), nsubstituted, error, bound, gap and, if it is not its registry name, solver.
 *
 * The full formulation, seen per dependent: for a failed task i and one dependent k in D_i (a "group"), only two
 * candidate terms matter, the cheapest one that crosses processors (weight a) and the cheapest one that does not
 * (weight b): any other term costs as much crossing budget and more error. So choosing i costs
 *   f_i(x) = base_i - (sum of its x largest savings b - a > 0),  x = forced_i .. forced_i + nsavings_i,
 * where base_i uses b where there is one (a otherwise: "forced" crossings) and x counts crossings. Without a
 * crossing limit every group takes min(a, b) and i costs cost_i = sum_k min_j w_ijk, independently of the other
 * failed tasks: the full problem is then the knapsack with weights cost_i. */
#ifndef FL_KNAPSACK_IMPL_H
#define FL_KNAPSACK_IMPL_H

#include "fl_config.h"
#include "knapsack.h"

#include <math.h>
#include <stdint.h>

/* The full formulation, indexed by fl_pol_terms_build. Arrays per failed task i (nfailed), per group g
 * (ngroups: the distinct (i, k) pairs, grouped by i) and per term t (nterms). */
typedef struct fl_pol_terms {
  long nfailed, ngroups, nterms;
  int cross_active;      /* crosses != NULL && max_cross >= 0 */
  long max_cross;        /* the limit when active */
  long *group_start;     /* nfailed + 1: groups of i are group_start[i] .. group_start[i+1] - 1 */
  long *group_nc;        /* cheapest usable non-crossing term of the group, -1 if none */
  long *group_cr;        /* cheapest usable crossing term of the group, -1 if none */
  long *term_group;      /* group of a usable term, -1 if the term can never be used */
  unsigned char *usable; /* i can be substituted at all: every dependent has a usable term (and, with a
                            crossing limit, its forced crossings fit in max_cross) */
  double *cost;          /* cost_i = sum over groups of min(a, b); INFINITY when not usable */
  double *base;          /* base_i: b where there is one, else a */
  long *forced;          /* forced_i: groups with a crossing term only */
  long *nsavings;        /* groups with both terms and a < b */
} fl_pol_terms;

typedef struct fl_pol_ctx {
  const fl_pol_instance *in;
  const fl_pol_terms *terms; /* NULL for the simplified problem */
  double t0_s;               /* when fl_pol_solve started (fl_pol_now), for time_limit_s */
} fl_pol_ctx;

typedef struct fl_pol_ops {
  const char *name;
  fl_err (*solve)(const fl_pol_ctx *ctx, fl_pol_decision *out);
} fl_pol_ops;

extern const fl_pol_ops fl_pol_greedy_ops, fl_pol_exact_ops;
#if FL_HAVE_GLPK
extern const fl_pol_ops fl_pol_mip_ops;
#endif

/* Relative tolerance of the budget test, the same for every solver (see knapsack.h). */
#define FL_POL_REL_TOL 1e-9
static inline int fl_pol_fits(double spent, double budget)
{
  return spent <= budget + FL_POL_REL_TOL * fmax(1.0, budget);
}

/* Monotonic wall clock, seconds. */
double fl_pol_now(void);

/* terms.c: index the full formulation (validating it: FL_ERR_INPUT on bad terms); destroy accepts NULL. */
fl_err fl_pol_terms_build(const fl_pol_instance *in, fl_pol_terms **out);
void fl_pol_terms_destroy(fl_pol_terms **pt);
/* Weight of a group's term when crossing (cross = 1) or not; INFINITY when the group has no such term. */
double fl_pol_group_w(const fl_pol_terms *t, const fl_pol_instance *in, long g, int cross);
/* The cheapest way to substitute failed task i with at most `allow` crossings (allow < 0: no limit):
 * returns its error in *cost (INFINITY if i cannot be substituted within `allow`) and its crossings in *ncross.
 * When `cross_of_group` is not NULL, writes per group of i whether it takes its crossing term (1) or not (0).
 * `scratch` holds at least as many doubles as i has groups. */
void fl_pol_item_cost(const fl_pol_terms *t, const fl_pol_instance *in, long i, long allow, double *scratch,
                      double *cost, long *ncross, unsigned char *cross_of_group);
/* Write the decision's z (substitute_by, when given) for failed task i from its groups' choices
 * (cross_of_group[g] for g in i's groups), and return the error they spend. */
double fl_pol_write_z(const fl_pol_terms *t, const fl_pol_instance *in, long i, const unsigned char *cross_of_group,
                      fl_pol_decision *out);

/* greedy.c: indices (into 0 .. n-1) of the items with cost <= cap (finite), in increasing (cost, index) order,
 * into idx (n entries); their number in *m. LSD radix sort on the IEEE bits: O(n). */
fl_err fl_pol_sort_by_cost(const double *cost, long n, double cap, long *idx, long *m);
/* The largest number of items, taken from the cheapest, whose costs fit in cap (with the budget tolerance):
 * a bound on any solution that pays at least these costs. `sorted` is increasing. */
long fl_pol_count_fitting(const double *sorted_cost, long n, double cap);

#endif
