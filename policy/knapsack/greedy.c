/* greedy.c — the seed's heuristic: substitute failed tasks in increasing order of their cost until the error
 * budget is saturated (Vorobeychik et al., ISC'11, "Simplified MIP").
 *
 * Simplified problem: the costs are the caller's w_i. Full problem: the cost of i is its cheapest complete
 * substitution cost_i = sum_k min_j w_ijk (terms.c), which is what choosing i really spends; with an active
 * crossing limit each task, in that order, takes its cheapest assignment within the crossings still left
 * (fl_pol_item_cost) and is skipped if it no longer fits — a heuristic there, so it also reports a bound.
 *
 * With unit values the order is optimal whenever the cost of a task does not depend on the others (simplified
 * problem; full problem without an active crossing limit): exchange argument in exact.c. The bound it reports is
 * then its own count, else the smaller of two relaxations (crossings free; errors free).
 *
 * Speed: a million failed tasks must be decided in well under 0.3 s, so the sort is an LSD radix sort on the
 * IEEE-754 bits of the costs (non-negative doubles order like their bit patterns as unsigned integers): six
 * passes of 11 bits, stable, so ties keep index order and the answer is deterministic. */
#include "knapsack_impl.h"

#include <stdlib.h>
#include <string.h>

#define FL_POL_RADIX_BITS 11
#define FL_POL_RADIX_SIZE (1u << FL_POL_RADIX_BITS)
#define FL_POL_RADIX_PASSES 6 /* 66 bits >= 64 */

static uint64_t fl_pol_key(double c)
{
  uint64_t k;
  c += 0.0; /* -0.0 becomes +0.0 */
  memcpy(&k, &c, sizeof k);
  return k;
}

fl_err fl_pol_sort_by_cost(const double *cost, long n, double cap, long *idx, long *m)
{
  fl_err rc = FL_OK;
  uint64_t *key = NULL, *key2 = NULL;
  long *idx2 = NULL;
  size_t(*hist)[FL_POL_RADIX_SIZE] = NULL;
  long cnt = 0;

  *m = 0;
  for (long i = 0; i < n; i++)
    if (isfinite(cost[i]) && fl_pol_fits(cost[i], cap))
      cnt++;
  if (cnt == 0)
    goto done;
  FL_ALLOC(key, cnt);
  FL_ALLOC(key2, cnt);
  FL_ALLOC(idx2, cnt);
  FL_ALLOC(hist, FL_POL_RADIX_PASSES);
  {
    long p = 0;
    for (long i = 0; i < n; i++)
      if (isfinite(cost[i]) && fl_pol_fits(cost[i], cap)) {
        uint64_t k = fl_pol_key(cost[i]);
        key[p] = k;
        idx[p++] = i;
        for (int s = 0; s < FL_POL_RADIX_PASSES; s++)
          hist[s][(k >> (s * FL_POL_RADIX_BITS)) & (FL_POL_RADIX_SIZE - 1)]++;
      }
  }
  {
    uint64_t *ka = key, *kb = key2;
    long *ia = idx, *ib = idx2;
    for (int s = 0; s < FL_POL_RADIX_PASSES; s++) {
      size_t *h = hist[s], sum = 0;
      int shift = s * FL_POL_RADIX_BITS;
      if (h[(ka[0] >> shift) & (FL_POL_RADIX_SIZE - 1)] == (size_t)cnt)
        continue; /* every key has the same digit here: the pass would not move anything */
      for (unsigned d = 0; d < FL_POL_RADIX_SIZE; d++) {
        size_t c = h[d];
        h[d] = sum;
        sum += c;
      }
      for (long p = 0; p < cnt; p++) {
        size_t dst = h[(ka[p] >> shift) & (FL_POL_RADIX_SIZE - 1)]++;
        kb[dst] = ka[p];
        ib[dst] = ia[p];
      }
      {
        uint64_t *kt = ka;
        long *it = ia;
        ka = kb;
        kb = kt;
        ia = ib;
        ib = it;
      }
    }
    if (ia != idx)
      memcpy(idx, ia, (size_t)cnt * sizeof *idx);
  }
  *m = cnt;
done:
  free(key);
  free(key2);
  free(idx2);
  free(hist);
  return rc;
}

long fl_pol_count_fitting(const double *sorted_cost, long n, double cap)
{
  double spent = 0.0;
  long c = 0;
  while (c < n && fl_pol_fits(spent + sorted_cost[c], cap))
    spent += sorted_cost[c++];
  return c;
}

/* Simplified problem, or full without an active crossing limit: a prefix of the sorted costs. Since the costs
 * increase, the first task that does not fit ends the scan: no later one fits either. */
static fl_err fl_pol_greedy_prefix(const fl_pol_ctx *ctx, const double *cost, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  const fl_pol_instance *in = ctx->in;
  const fl_pol_terms *t = ctx->terms;
  unsigned char *cross = NULL;
  long *idx = NULL, m = 0, taken = 0;
  double spent = 0.0;

  FL_ALLOC(idx, in->nfailed);
  FL_TRY(fl_pol_sort_by_cost(cost, in->nfailed, in->budget, idx, &m));
  while (taken < m && fl_pol_fits(spent + cost[idx[taken]], in->budget)) {
    spent += cost[idx[taken]];
    out->substitute[idx[taken]] = 1;
    taken++;
  }
  if (t) { /* the z of each chosen task: its cheapest substitute per dependent */
    FL_ALLOC(cross, t->ngroups);
    spent = 0.0;
    for (long p = 0; p < taken; p++) {
      double c;
      long x;
      fl_pol_item_cost(t, in, idx[p], -1, NULL, &c, &x, cross);
      spent += fl_pol_write_z(t, in, idx[p], cross, out);
    }
  }
  out->nsubstituted = taken;
  out->error = spent;
  out->bound = (double)taken; /* optimal: exchange argument in exact.c */
  out->gap = 0.0;
done:
  free(idx);
  free(cross);
  return rc;
}

/* Full problem with an active crossing limit. */
static fl_err fl_pol_greedy_crossing(const fl_pol_ctx *ctx, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  const fl_pol_instance *in = ctx->in;
  const fl_pol_terms *t = ctx->terms;
  long n = in->nfailed, m = 0, taken = 0, left = t->max_cross, maxg = 0;
  long *idx = NULL;
  double *scratch = NULL, *sorted = NULL, *forced = NULL;
  unsigned char *cross = NULL;
  double spent = 0.0;

  FL_CHECK(n > 0, FL_ERR_INTERNAL, "greedy: %ld failed tasks", n); /* fl_pol_solve answers n = 0 itself */
  for (long i = 0; i < n; i++)
    if (t->group_start[i + 1] - t->group_start[i] > maxg)
      maxg = t->group_start[i + 1] - t->group_start[i];
  FL_ALLOC(idx, n);
  FL_ALLOC(scratch, maxg);
  FL_ALLOC(sorted, n);
  FL_ALLOC(forced, n);
  FL_ALLOC(cross, t->ngroups);
  FL_TRY(fl_pol_sort_by_cost(t->cost, n, in->budget, idx, &m));
  for (long p = 0; p < m; p++) {
    long i = idx[p], x;
    double c;
    sorted[p] = t->cost[i];
    fl_pol_item_cost(t, in, i, left, scratch, &c, &x, cross);
    if (isinf(c) || !fl_pol_fits(spent + c, in->budget))
      continue;
    out->substitute[i] = 1;
    spent += fl_pol_write_z(t, in, i, cross, out);
    left -= x;
    taken++;
  }
  out->nsubstituted = taken;
  out->error = spent;
  {
    /* Relaxations: crossings free (cheapest costs under the budget), errors free (forced crossings under the
     * limit). Any solution satisfies both, so the smaller count bounds the optimum. */
    long by_cost = fl_pol_count_fitting(sorted, m, in->budget), by_cross, mf;
    for (long i = 0; i < n; i++)
      forced[i] = t->usable[i] ? (double)t->forced[i] : INFINITY;
    FL_TRY(fl_pol_sort_by_cost(forced, n, (double)t->max_cross, idx, &mf));
    for (long p = 0; p < mf; p++)
      sorted[p] = forced[idx[p]];
    by_cross = fl_pol_count_fitting(sorted, mf, (double)t->max_cross);
    out->bound = (double)(by_cost < by_cross ? by_cost : by_cross);
    out->gap = (out->bound - (double)taken) / fmax(1.0, out->bound);
  }
done:
  free(idx);
  free(scratch);
  free(sorted);
  free(forced);
  free(cross);
  return rc;
}

static fl_err fl_pol_greedy_solve(const fl_pol_ctx *ctx, fl_pol_decision *out)
{
  if (!ctx->terms)
    return fl_pol_greedy_prefix(ctx, ctx->in->weight, out);
  if (!ctx->terms->cross_active)
    return fl_pol_greedy_prefix(ctx, ctx->terms->cost, out);
  return fl_pol_greedy_crossing(ctx, out);
}

const fl_pol_ops fl_pol_greedy_ops = {
    .name = "greedy",
    .solve = fl_pol_greedy_solve,
};
