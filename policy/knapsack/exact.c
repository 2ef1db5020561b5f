/* exact.c — an optimal answer, to measure the greedy's gap and to check the MIP.
 *
 * 1. When a failed task's cost does not depend on which others are substituted — the simplified knapsack, and
 *    the full problem without an active crossing limit, where choosing i costs exactly
 *    cost_i = sum_{k in D_i} min_{j not in I} w_ijk whatever else is chosen (the z of different i share only the
 *    budget row) — taking the tasks in increasing cost is optimal, for any size:
 *
 *    Exchange argument. Let c_1 <= c_2 <= ... <= c_n and let the greedy take the prefix {1..g}, the longest one
 *    with c_1 + ... + c_g <= eps. Take any feasible S with |S| = s, and list its members in increasing cost:
 *    c_{s_1} <= ... <= c_{s_s}. Since s_r >= r (distinct indices, increasing), c_r <= c_{s_r} for every r, so
 *    c_1 + ... + c_s <= sum_{i in S} c_i <= eps: the prefix {1..s} is feasible too, hence s <= g. With unit
 *    values, then, no solution substitutes more tasks than the greedy: it is optimal, and this file reuses it.
 *    (What the argument needs is only "unit values, costs that add up"; it fails as soon as one task's cost
 *    depends on the others, which is what a crossing limit does.)
 *
 * 2. Full problem with an active crossing limit C: the tasks compete for C as well as for eps. For a chosen set
 *    S the cheapest assignment is exact and cheap to compute: every group (i, k) takes its cheapest non-crossing
 *    term or its cheapest crossing one (knapsack_impl.h); forced crossings are paid first, and among the optional
 *    ones (savings b - a > 0) the best C - sum forced are kept, i.e. the smallest savings are given up:
 *      mincost(S) = sum_S cost_i + (sum of the q smallest savings of S),  q = max(0, #savings(S) - (C - forced(S))).
 *    mincost grows with S, so a depth-first branch and bound over the tasks (cheapest cost first, "take" before
 *    "skip") only extends feasible sets. The greedy's answer is the first incumbent; a node is pruned when
 *    |S| + (most tasks still addable) cannot beat it, the "most" being the smallest of Lagrangian bounds: for
 *    every lambda >= 0 a feasible set satisfies  sum_{i in S} g_i(lambda) <= eps + lambda C  with
 *    g_i(lambda) = sum_k min(b_k, a_k + lambda)  (lambda = 0: crossings free; lambda = infinity, divided by lambda:
 *    forced crossings <= C), and the tasks fitting that one-row knapsack are counted by increasing g_i.
 *    The search is exponential in the worst case: it refuses more than FL_POL_EXACT_MAX_FAILED failed tasks, and
 *    gives up (FL_ERR_INPUT) after FL_POL_EXACT_MAX_NODES nodes rather than run for hours; use "mip" then. */
#include "knapsack_impl.h"

#include <stdlib.h>
#include <string.h>

#define FL_POL_NLAMBDA_MID 6
#define FL_POL_NDIM (FL_POL_NLAMBDA_MID + 2)

typedef struct fl_pol_saving {
  double s;
  long owner; /* item (position in the search order) */
  long group;
} fl_pol_saving;

typedef struct fl_pol_bb {
  const fl_pol_terms *t;
  const fl_pol_instance *in;
  long n;              /* items: usable failed tasks, in search order */
  long *task;          /* item -> failed task */
  double *cost;        /* item -> cost_i */
  long *forced, *nsav; /* item -> forced crossings, optional savings */
  fl_pol_saving *sav;  /* every optional saving, increasing */
  long nsav_all;
  long ndim;
  double cap[FL_POL_NDIM];  /* per Lagrangian dimension: eps + lambda C (or C for lambda = infinity) */
  double *w[FL_POL_NDIM];   /* item -> g_i(lambda) */
  long *order[FL_POL_NDIM]; /* items by increasing w */
  double used[FL_POL_NDIM]; /* sum of w over the current set */
  unsigned char *in_set;
  unsigned char *best_set;
  long best, nodes;
  double sum_cost;
  long sum_forced, sum_nsav;
  int gave_up;
} fl_pol_bb;

static int fl_pol_cmp_saving(const void *pa, const void *pb)
{
  const fl_pol_saving *a = pa, *b = pb;
  if (a->s != b->s)
    return (a->s > b->s) - (a->s < b->s);
  return (a->group > b->group) - (a->group < b->group);
}

/* The cheapest error of the current set (which must have forced(S) <= C). */
static double fl_pol_bb_mincost(const fl_pol_bb *bb)
{
  long q = bb->sum_nsav - (bb->t->max_cross - bb->sum_forced);
  double c = bb->sum_cost;
  for (long p = 0; q > 0 && p < bb->nsav_all; p++)
    if (bb->in_set[bb->sav[p].owner]) {
      c += bb->sav[p].s;
      q--;
    }
  return c;
}

/* How many of the items at positions >= pos might still join the set, by the tightest dimension. */
static long fl_pol_bb_room(const fl_pol_bb *bb, long pos)
{
  long room = bb->n - pos;
  for (long d = 0; d < bb->ndim && room > 0; d++) {
    double left = bb->cap[d] - bb->used[d], tol = 1e-7 * fmax(1.0, fabs(bb->cap[d])), sum = 0.0;
    long c = 0;
    if (isinf(left))
      continue;
    for (long r = 0; r < bb->n && c < room; r++) {
      long item = bb->order[d][r];
      if (item < pos)
        continue;
      if (!(sum + bb->w[d][item] <= left + tol))
        break;
      sum += bb->w[d][item];
      c++;
    }
    if (c < room)
      room = c;
  }
  return room;
}

static void fl_pol_bb_set(fl_pol_bb *bb, long item, int on)
{
  double sgn = on ? 1.0 : -1.0;
  bb->in_set[item] = (unsigned char)on;
  bb->sum_cost += sgn * bb->cost[item];
  bb->sum_forced += on ? bb->forced[item] : -bb->forced[item];
  bb->sum_nsav += on ? bb->nsav[item] : -bb->nsav[item];
  for (long d = 0; d < bb->ndim; d++)
    bb->used[d] += sgn * bb->w[d][item];
}

static void fl_pol_bb_dfs(fl_pol_bb *bb, long pos, long count)
{
  if (bb->gave_up)
    return;
  if (++bb->nodes > FL_POL_EXACT_MAX_NODES) {
    bb->gave_up = 1;
    return;
  }
  if (count > bb->best) {
    bb->best = count;
    memcpy(bb->best_set, bb->in_set, (size_t)bb->n);
  }
  if (pos == bb->n || count + fl_pol_bb_room(bb, pos) <= bb->best)
    return;
  if (bb->sum_forced + bb->forced[pos] <= bb->t->max_cross) {
    fl_pol_bb_set(bb, pos, 1);
    if (fl_pol_fits(fl_pol_bb_mincost(bb), bb->in->budget))
      fl_pol_bb_dfs(bb, pos + 1, count + 1);
    fl_pol_bb_set(bb, pos, 0); /* sums come back by subtraction, exact up to rounding the tolerances cover */
  }
  fl_pol_bb_dfs(bb, pos + 1, count);
}

static void fl_pol_bb_free(fl_pol_bb *bb)
{
  free(bb->task);
  free(bb->cost);
  free(bb->forced);
  free(bb->nsav);
  free(bb->sav);
  for (int d = 0; d < FL_POL_NDIM; d++) {
    free(bb->w[d]);
    free(bb->order[d]);
  }
  free(bb->in_set);
  free(bb->best_set);
}

/* Items ordered by w (stable on item index): a small n, a plain insertion sort. */
static void fl_pol_order_by(const double *w, long n, long *order)
{
  for (long p = 0; p < n; p++) {
    long q = p;
    while (q > 0 && w[order[q - 1]] > w[p]) {
      order[q] = order[q - 1];
      q--;
    }
    order[q] = p;
  }
}

static fl_err fl_pol_exact_crossing(const fl_pol_ctx *ctx, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  const fl_pol_instance *in = ctx->in;
  const fl_pol_terms *t = ctx->terms;
  fl_pol_bb bb;
  long *idx = NULL, m = 0;
  double *lambdas = NULL;
  unsigned char *cross = NULL;
  long C = t->max_cross;

  memset(&bb, 0, sizeof bb);
  FL_CHECK(in->nfailed <= FL_POL_EXACT_MAX_FAILED, FL_ERR_INPUT,
           "policy 'exact': %ld failed tasks with a crossing limit; its branch and bound takes at most %ld "
           "(use 'mip' or 'greedy')",
           in->nfailed, FL_POL_EXACT_MAX_FAILED);

  /* The greedy's answer is the first incumbent (and the answer if nothing better exists). */
  FL_TRY(fl_pol_greedy_ops.solve(ctx, out));

  bb.t = t;
  bb.in = in;
  FL_ALLOC(idx, in->nfailed);
  FL_TRY(fl_pol_sort_by_cost(t->cost, in->nfailed, in->budget, idx, &m));
  bb.n = m;
  FL_ALLOC(bb.task, m);
  FL_ALLOC(bb.cost, m);
  FL_ALLOC(bb.forced, m);
  FL_ALLOC(bb.nsav, m);
  FL_ALLOC(bb.in_set, m);
  FL_ALLOC(bb.best_set, m);
  for (long p = 0; p < m; p++) {
    long i = idx[p];
    bb.task[p] = i;
    bb.cost[p] = t->cost[i];
    bb.forced[p] = t->forced[i];
    bb.nsav[p] = t->nsavings[i];
    bb.nsav_all += t->nsavings[i];
    bb.best_set[p] = (unsigned char)out->substitute[i];
  }
  bb.best = out->nsubstituted;
  FL_ALLOC(bb.sav, bb.nsav_all);
  {
    long s = 0;
    for (long p = 0; p < m; p++)
      for (long g = t->group_start[bb.task[p]]; g < t->group_start[bb.task[p] + 1]; g++) {
        double a = fl_pol_group_w(t, in, g, 1), b = fl_pol_group_w(t, in, g, 0);
        if (!isinf(b) && a < b)
          bb.sav[s++] = (fl_pol_saving){.s = b - a, .owner = p, .group = g};
      }
    qsort(bb.sav, (size_t)bb.nsav_all, sizeof *bb.sav, fl_pol_cmp_saving);
  }

  /* Lagrangian dimensions: lambda = 0, infinity, and quantiles of the savings (the breakpoints of g). */
  FL_ALLOC(lambdas, FL_POL_NDIM);
  {
    long nl = 0;
    lambdas[nl++] = 0.0;
    for (long q = 1; q <= FL_POL_NLAMBDA_MID && bb.nsav_all > 0; q++) {
      double l = bb.sav[(bb.nsav_all * q) / (FL_POL_NLAMBDA_MID + 1)].s;
      if (l > lambdas[nl - 1])
        lambdas[nl++] = l;
    }
    lambdas[nl++] = INFINITY;
    bb.ndim = nl;
  }
  for (long d = 0; d < bb.ndim; d++) {
    double l = lambdas[d];
    FL_ALLOC(bb.w[d], m);
    FL_ALLOC(bb.order[d], m);
    for (long p = 0; p < m; p++) {
      double g = 0.0;
      if (isinf(l)) {
        g = (double)bb.forced[p];
      } else {
        for (long gr = t->group_start[bb.task[p]]; gr < t->group_start[bb.task[p] + 1]; gr++) {
          double a = fl_pol_group_w(t, in, gr, 1), b = fl_pol_group_w(t, in, gr, 0);
          g += fmin(b, a + l);
        }
      }
      bb.w[d][p] = g;
    }
    bb.cap[d] = isinf(l) ? (double)C : in->budget + l * (double)C;
    fl_pol_order_by(bb.w[d], m, bb.order[d]);
  }

  fl_pol_bb_dfs(&bb, 0, 0);
  FL_CHECK(!bb.gave_up, FL_ERR_INPUT,
           "policy 'exact': gave up after %ld branch-and-bound nodes on %ld failed tasks (best so far %ld "
           "substitutions); use 'mip'",
           FL_POL_EXACT_MAX_NODES, in->nfailed, bb.best);

  /* Rebuild the optimal set's assignment: give up the smallest savings beyond the crossing allowance. */
  memset(out->substitute, 0, (size_t)in->nfailed);
  if (out->substitute_by)
    memset(out->substitute_by, 0, (size_t)t->nterms * sizeof *out->substitute_by);
  FL_ALLOC(cross, t->ngroups);
  memset(bb.in_set, 0, (size_t)m);
  bb.sum_cost = 0.0;
  bb.sum_forced = bb.sum_nsav = 0;
  for (long p = 0; p < m; p++)
    if (bb.best_set[p]) {
      long i = bb.task[p];
      bb.in_set[p] = 1;
      bb.sum_forced += bb.forced[p];
      bb.sum_nsav += bb.nsav[p];
      for (long g = t->group_start[i]; g < t->group_start[i + 1]; g++) {
        double a = fl_pol_group_w(t, in, g, 1), b = fl_pol_group_w(t, in, g, 0);
        cross[g] = (unsigned char)(isinf(b) || a < b);
      }
    }
  {
    long q = bb.sum_nsav - (C - bb.sum_forced);
    for (long p = 0; q > 0 && p < bb.nsav_all; p++)
      if (bb.in_set[bb.sav[p].owner]) {
        cross[bb.sav[p].group] = 0;
        q--;
      }
  }
  out->error = 0.0;
  out->nsubstituted = 0;
  for (long p = 0; p < m; p++)
    if (bb.best_set[p]) {
      out->substitute[bb.task[p]] = 1;
      out->error += fl_pol_write_z(t, in, bb.task[p], cross, out);
      out->nsubstituted++;
    }
  FL_CHECK(fl_pol_fits(out->error, in->budget), FL_ERR_INTERNAL,
           "policy 'exact': rebuilt assignment spends %.17g, over the budget %.17g", out->error, in->budget);
  out->bound = (double)out->nsubstituted;
  out->gap = 0.0;
done:
  fl_pol_bb_free(&bb);
  free(idx);
  free(lambdas);
  free(cross);
  return rc;
}

static fl_err fl_pol_exact_solve(const fl_pol_ctx *ctx, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  if (ctx->terms && ctx->terms->cross_active) {
    FL_TRY(fl_pol_exact_crossing(ctx, out));
  } else {
    FL_TRY(fl_pol_greedy_ops.solve(ctx, out)); /* optimal here: the exchange argument above */
  }
  out->solver = "exact";
done:
  return rc;
}

const fl_pol_ops fl_pol_exact_ops = {
    .name = "exact",
    .solve = fl_pol_exact_solve,
};
