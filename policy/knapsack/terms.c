/* terms.c — the full formulation's terms, checked and indexed once per solve (see knapsack_impl.h).
 *
 * The (i, j, k) triples arrive in any order. Sorting them by (i, k) makes the groups — one per failed task and
 * dependent, each needing exactly one substitute when i is substituted — and for each group keeps the two terms
 * that can matter: the cheapest that crosses processors and the cheapest that does not. Everything the solvers
 * need about a failed task (its cheapest cost, its forced crossings, whether it can be substituted at all)
 * follows from those two per group. */
#include "knapsack_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_pol_tkey {
  long i, k, t;
} fl_pol_tkey;

static int fl_pol_cmp_tkey(const void *pa, const void *pb)
{
  const fl_pol_tkey *a = pa, *b = pb;
  if (a->i != b->i)
    return (a->i > b->i) - (a->i < b->i);
  if (a->k != b->k)
    return (a->k > b->k) - (a->k < b->k);
  return (a->t > b->t) - (a->t < b->t);
}

static int fl_pol_cmp_long(const void *pa, const void *pb)
{
  long a = *(const long *)pa, b = *(const long *)pb;
  return (a > b) - (a < b);
}

static int fl_pol_cmp_double_desc(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a < b) - (a > b);
}

void fl_pol_terms_destroy(fl_pol_terms **pt)
{
  fl_pol_terms *t = pt ? *pt : NULL;
  if (!t)
    return;
  free(t->group_start);
  free(t->group_nc);
  free(t->group_cr);
  free(t->term_group);
  free(t->usable);
  free(t->cost);
  free(t->base);
  free(t->forced);
  free(t->nsavings);
  free(t);
  *pt = NULL;
}

double fl_pol_group_w(const fl_pol_terms *t, const fl_pol_instance *in, long g, int cross)
{
  long term = cross ? t->group_cr[g] : t->group_nc[g];
  return term < 0 ? INFINITY : in->full->term_w[term];
}

fl_err fl_pol_terms_build(const fl_pol_instance *in, fl_pol_terms **out)
{
  fl_err rc = FL_OK;
  const fl_pol_full *f = in->full;
  fl_pol_terms *t = NULL;
  fl_pol_tkey *keys = NULL;
  long *failed_sorted = NULL;
  long n = in->nfailed, nt, ng = 0;

  *out = NULL;
  nt = f->nterms;
  FL_CHECK(nt >= 0, FL_ERR_INPUT, "full policy instance: nterms = %ld (must be >= 0)", nt);
  FL_CHECK(nt == 0 || (f->term_i && f->term_j && f->term_k && f->term_w), FL_ERR_INPUT,
           "full policy instance: %ld terms but term_i, term_j, term_k or term_w is NULL", nt);
  FL_ALLOC(t, 1);
  t->nfailed = n;
  t->nterms = nt;
  t->cross_active = f->crosses != NULL && f->max_cross >= 0;
  t->max_cross = t->cross_active ? f->max_cross : -1;
  FL_ALLOC(t->group_start, n + 1);
  FL_ALLOC(t->term_group, nt);
  FL_ALLOC(t->usable, n);
  FL_ALLOC(t->cost, n);
  FL_ALLOC(t->base, n);
  FL_ALLOC(t->forced, n);
  FL_ALLOC(t->nsavings, n);

  if (f->failed_task) {
    FL_ALLOC(failed_sorted, n);
    memcpy(failed_sorted, f->failed_task, (size_t)n * sizeof *failed_sorted);
    qsort(failed_sorted, (size_t)n, sizeof *failed_sorted, fl_pol_cmp_long);
  }
  FL_ALLOC(keys, nt);
  for (long q = 0; q < nt; q++) {
    double w = f->term_w[q];
    FL_CHECK(f->term_i[q] >= 0 && f->term_i[q] < n, FL_ERR_INPUT,
             "full policy instance: term %ld has i = %ld, outside the %ld failed tasks", q, f->term_i[q], n);
    FL_CHECK(!isnan(w) && w >= 0, FL_ERR_INPUT, "full policy instance: term %ld has weight %g (must be >= 0)", q, w);
    keys[q] = (fl_pol_tkey){.i = f->term_i[q], .k = f->term_k[q], .t = q};
  }
  qsort(keys, (size_t)nt, sizeof *keys, fl_pol_cmp_tkey);

  /* Count groups (distinct (i, k)) to size the per-group arrays. */
  for (long q = 0; q < nt; q++)
    if (q == 0 || keys[q].i != keys[q - 1].i || keys[q].k != keys[q - 1].k)
      ng++;
  t->ngroups = ng;
  FL_ALLOC(t->group_nc, ng);
  FL_ALLOC(t->group_cr, ng);

  {
    long g = -1, q = 0;
    for (long i = 0; i < n; i++) {
      long ndistinct = 0;
      t->group_start[i] = g + 1;
      for (; q < nt && keys[q].i == i; q++) {
        long term = keys[q].t;
        double w = f->term_w[term];
        int usable = isfinite(w);
        if (q == 0 || keys[q].i != keys[q - 1].i || keys[q].k != keys[q - 1].k) {
          g++;
          ndistinct++;
          t->group_nc[g] = -1;
          t->group_cr[g] = -1;
        }
        if (usable && failed_sorted &&
            bsearch(&f->term_j[term], failed_sorted, (size_t)n, sizeof *failed_sorted, fl_pol_cmp_long))
          usable = 0; /* the seed's z_ijk = 0 for i, j in I: a failed task substitutes nothing */
        t->term_group[term] = usable ? g : -1;
        if (usable) {
          long *slot = (f->crosses && f->crosses[term]) ? &t->group_cr[g] : &t->group_nc[g];
          if (*slot < 0 || w < f->term_w[*slot])
            *slot = term;
        }
      }
      if (f->ndependents) {
        FL_CHECK(f->ndependents[i] >= ndistinct, FL_ERR_INPUT,
                 "full policy instance: failed task %ld has ndependents = %ld but terms for %ld distinct dependents", i,
                 f->ndependents[i], ndistinct);
      }
      /* usable until a dependent without any usable substitute shows up */
      t->usable[i] = !(f->ndependents && f->ndependents[i] > ndistinct);
    }
    t->group_start[n] = g + 1;
  }

  for (long i = 0; i < n; i++) {
    double cost = 0.0, base = 0.0;
    long forced = 0, nsav = 0;
    for (long g = t->group_start[i]; g < t->group_start[i + 1]; g++) {
      double a = fl_pol_group_w(t, in, g, 1), b = fl_pol_group_w(t, in, g, 0);
      if (isinf(a) && isinf(b)) {
        t->usable[i] = 0;
        continue;
      }
      cost += a < b ? a : b;
      base += isinf(b) ? a : b;
      forced += isinf(b);
      nsav += !isinf(b) && a < b;
    }
    if (t->cross_active && forced > t->max_cross)
      t->usable[i] = 0;
    t->cost[i] = t->usable[i] ? cost : INFINITY;
    t->base[i] = base;
    t->forced[i] = forced;
    t->nsavings[i] = nsav;
  }
  *out = t;
  t = NULL;
done:
  free(keys);
  free(failed_sorted);
  fl_pol_terms_destroy(&t);
  return rc;
}

void fl_pol_item_cost(const fl_pol_terms *t, const fl_pol_instance *in, long i, long allow, double *scratch,
                      double *cost, long *ncross, unsigned char *cross_of_group)
{
  long g0 = t->group_start[i], g1 = t->group_start[i + 1];
  int limited = t->cross_active && allow >= 0;
  long optional = LONG_MAX; /* crossings left once the forced ones are paid */
  double thr = -INFINITY;   /* optional crossings take savings above thr, then `quota` of those equal to it */
  long quota = 0;
  double c = 0.0;
  long x = 0;

  *cost = INFINITY;
  *ncross = 0;
  if (!t->usable[i] || (limited && t->forced[i] > allow))
    return;
  if (limited)
    optional = allow - t->forced[i];
  if (t->nsavings[i] > optional) {
    long ns = 0, above = 0;
    for (long g = g0; g < g1; g++) {
      double a = fl_pol_group_w(t, in, g, 1), b = fl_pol_group_w(t, in, g, 0);
      if (!isinf(b) && a < b)
        scratch[ns++] = b - a;
    }
    qsort(scratch, (size_t)ns, sizeof *scratch, fl_pol_cmp_double_desc);
    if (optional == 0) {
      thr = INFINITY;
    } else {
      thr = scratch[optional - 1];
      while (above < ns && scratch[above] > thr)
        above++;
      quota = optional - above;
    }
  }
  for (long g = g0; g < g1; g++) {
    double a = fl_pol_group_w(t, in, g, 1), b = fl_pol_group_w(t, in, g, 0);
    int cross;
    if (isinf(b))
      cross = 1;
    else if (!(a < b))
      cross = 0;
    else if (b - a > thr)
      cross = 1;
    else if (b - a == thr && quota > 0) {
      cross = 1;
      quota--;
    } else
      cross = 0;
    c += cross ? a : b;
    x += cross;
    if (cross_of_group)
      cross_of_group[g] = (unsigned char)cross;
  }
  *cost = c;
  *ncross = x;
}

double fl_pol_write_z(const fl_pol_terms *t, const fl_pol_instance *in, long i, const unsigned char *cross_of_group,
                      fl_pol_decision *out)
{
  double err = 0.0;
  for (long g = t->group_start[i]; g < t->group_start[i + 1]; g++) {
    long term = cross_of_group[g] ? t->group_cr[g] : t->group_nc[g];
    err += in->full->term_w[term];
    if (out->substitute_by)
      out->substitute_by[term] = 1;
  }
  return err;
}
