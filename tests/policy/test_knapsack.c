/* test_knapsack.c — the replicate-or-substitute solvers (policy/knapsack): greedy, exact and GLPK agree where they
 * must, every answer satisfies every constraint, edge and bad inputs, the registry, GLPK's time-limit fallback.
 *
 * Checks are independent of the library's internals: constraints are re-read from the raw (i, j, k, w) arrays,
 * optima of tiny instances come from brute force over every subset and every substitute choice.
 * Built twice (tests/CMakeLists.txt): test_knapsack (suite "knapsack", needs nothing optional) and
 * test_knapsack_mip (FL_KNAPSACK_MIP_SUITE: suite "knapsack-mip", skipped with exit 77 without GLPK). */
#include "fl_config.h"
#include "fl_test.h"
#include "knapsack.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FL_KNAPSACK_MIP_SUITE) || FL_HAVE_GLPK

/* ---- deterministic random numbers (splitmix64) ---- */
static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double rng_unif(uint64_t *s)
{
  return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}
static long rng_int(uint64_t *s, long lo, long hi)
{
  return lo + (long)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* ---- a test instance owning its arrays ---- */
typedef struct tinst {
  long n, nterms;
  double *weight;
  long *ti, *tj, *tk, *nd, *failed;
  double *tw;
  unsigned char *cr;
  fl_pol_full full;
  fl_pol_instance in;
} tinst;

static void tinst_free(tinst *x)
{
  free(x->weight);
  free(x->ti);
  free(x->tj);
  free(x->tk);
  free(x->nd);
  free(x->failed);
  free(x->tw);
  free(x->cr);
  memset(x, 0, sizeof *x);
}

/* Simplified: n weights uniform in [0, 1), a fraction INFINITY, a fraction exactly 0; budget a fraction of the
 * finite total. */
static void gen_simple(tinst *x, uint64_t seed, long n, double budget_frac)
{
  uint64_t s = seed;
  double total = 0.0;
  memset(x, 0, sizeof *x);
  x->n = n;
  x->weight = calloc((size_t)(n ? n : 1), sizeof *x->weight);
  for (long i = 0; i < n; i++) {
    double u = rng_unif(&s);
    x->weight[i] = u < 0.1 ? INFINITY : u < 0.15 ? 0.0 : rng_unif(&s);
    if (isfinite(x->weight[i]))
      total += x->weight[i];
  }
  x->in = (fl_pol_instance){.nfailed = n, .weight = x->weight, .budget = budget_frac * total};
}

/* Full: failed task i has id 1000 + i and 0..maxdep dependents (ids 0..59), each with 1..maxcand candidate
 * substitutes (ids 0..99) of weight in [0, 1), some of them INFINITY; a few extra terms offer a failed task as a
 * cheap substitute (must never be used); a few tasks claim one more dependent than they have terms for (can only be
 * replicated). cross_mode: 0 no crossing info, 1 crossings with no limit (max_cross = -1), 2 an active limit. */
static void gen_full(tinst *x, uint64_t seed, long n, long maxdep, long maxcand, int cross_mode, double budget_frac)
{
  uint64_t s = seed;
  long cap = n * (maxdep * maxcand + 2) + 1, q = 0, ncross_all = 0;
  double total = 0.0;
  memset(x, 0, sizeof *x);
  x->n = n;
  x->ti = calloc((size_t)cap, sizeof *x->ti);
  x->tj = calloc((size_t)cap, sizeof *x->tj);
  x->tk = calloc((size_t)cap, sizeof *x->tk);
  x->tw = calloc((size_t)cap, sizeof *x->tw);
  x->cr = calloc((size_t)cap, sizeof *x->cr);
  x->nd = calloc((size_t)(n ? n : 1), sizeof *x->nd);
  x->failed = calloc((size_t)(n ? n : 1), sizeof *x->failed);
  for (long i = 0; i < n; i++)
    x->failed[i] = 1000 + i;
  for (long i = 0; i < n; i++) {
    long nd = rng_int(&s, 0, maxdep), k0 = rng_int(&s, 0, 59);
    double cheapest = 0.0;
    for (long d = 0; d < nd; d++) {
      long k = (k0 + 7 * d) % 60, nc = rng_int(&s, 1, maxcand);
      double best = INFINITY;
      for (long c = 0; c < nc; c++) {
        double u = rng_unif(&s);
        x->ti[q] = i, x->tj[q] = rng_int(&s, 0, 99), x->tk[q] = k;
        x->tw[q] = u < 0.05 ? INFINITY : rng_unif(&s);
        x->cr[q] = rng_unif(&s) < 0.5;
        ncross_all += x->cr[q];
        if (x->tw[q] < best)
          best = x->tw[q];
        q++;
      }
      if (n > 1 && rng_unif(&s) < 0.15) { /* a failed task as a tempting substitute */
        x->ti[q] = i, x->tj[q] = 1000 + (i + 1) % n, x->tk[q] = k, x->tw[q] = 0.0, x->cr[q] = 0;
        q++;
      }
      if (isfinite(best))
        cheapest += best;
    }
    x->nd[i] = nd + (nd > 0 && rng_unif(&s) < 0.1);
    total += cheapest;
  }
  x->nterms = q;
  x->full = (fl_pol_full){.nterms = q,
                          .term_i = x->ti,
                          .term_j = x->tj,
                          .term_k = x->tk,
                          .term_w = x->tw,
                          .crosses = cross_mode ? x->cr : NULL,
                          .max_cross = cross_mode == 2 ? rng_int(&s, 0, ncross_all / 3 + 1) : -1,
                          .ndependents = x->nd,
                          .failed_task = x->failed};
  x->in = (fl_pol_instance){.nfailed = n, .budget = budget_frac * total, .full = &x->full};
}

#ifdef FL_KNAPSACK_MIP_SUITE
/* Full, dense and uniform (every failed task has `dep` dependents with `cand` candidates each, half of them
 * crossing, the limit a fraction of all terms): the shape where a tight crossing limit makes GLPK work. */
static void gen_dense(tinst *x, uint64_t seed, long n, long dep, long cand, double cross_frac)
{
  uint64_t s = seed;
  long q = 0;
  double total = 0.0;
  memset(x, 0, sizeof *x);
  x->n = n;
  x->nterms = n * dep * cand;
  x->ti = calloc((size_t)x->nterms, sizeof *x->ti);
  x->tj = calloc((size_t)x->nterms, sizeof *x->tj);
  x->tk = calloc((size_t)x->nterms, sizeof *x->tk);
  x->tw = calloc((size_t)x->nterms, sizeof *x->tw);
  x->cr = calloc((size_t)x->nterms, sizeof *x->cr);
  x->nd = calloc((size_t)n, sizeof *x->nd);
  x->failed = calloc((size_t)n, sizeof *x->failed);
  for (long i = 0; i < n; i++) {
    x->failed[i] = -1 - i;
    x->nd[i] = dep;
    for (long d = 0; d < dep; d++) {
      double best = INFINITY;
      for (long c = 0; c < cand; c++, q++) {
        x->ti[q] = i, x->tj[q] = rng_int(&s, 0, 99999), x->tk[q] = d, x->tw[q] = rng_unif(&s);
        x->cr[q] = rng_unif(&s) < 0.5;
        best = fmin(best, x->tw[q]);
      }
      total += best;
    }
  }
  x->full = (fl_pol_full){.nterms = q,
                          .term_i = x->ti,
                          .term_j = x->tj,
                          .term_k = x->tk,
                          .term_w = x->tw,
                          .crosses = x->cr,
                          .max_cross = (long)(cross_frac * (double)q),
                          .ndependents = x->nd,
                          .failed_task = x->failed};
  x->in = (fl_pol_instance){.nfailed = n, .budget = 0.5 * total, .full = &x->full};
}
#endif

/* Weights on a grid of quarters: ties everywhere (equal costs, equal savings), which the random doubles above
 * never produce. */
static void quantize(tinst *x)
{
  for (long q = 0; q < x->nterms; q++)
    if (isfinite(x->tw[q]))
      x->tw[q] = floor(x->tw[q] * 4.0) / 4.0;
}

/* A decision with its buffers. */
typedef struct tdec {
  fl_pol_decision d;
} tdec;

static fl_err solve(const char *kind, const tinst *x, tdec *out)
{
  memset(out, 0, sizeof *out);
  out->d.substitute = calloc((size_t)(x->n ? x->n : 1), 1);
  out->d.substitute_by = calloc((size_t)(x->nterms ? x->nterms : 1), sizeof *out->d.substitute_by);
  return fl_pol_solve(kind, &x->in, &out->d);
}
static void tdec_free(tdec *t)
{
  free(t->d.substitute);
  free(t->d.substitute_by);
}

static int is_failed(const tinst *x, long j)
{
  for (long i = 0; i < x->n; i++)
    if (x->failed[i] == j)
      return 1;
  return 0;
}

static int tol_fits(double spent, double budget)
{
  return spent <= budget + 1e-9 * fmax(1.0, budget);
}

/* Simplified: the decision is consistent and within the budget. */
static int check_simple(const tinst *x, const fl_pol_decision *d)
{
  long count = 0;
  double err = 0.0;
  for (long i = 0; i < x->n; i++) {
    if (d->substitute[i] > 1)
      return 0;
    if (d->substitute[i]) {
      if (!isfinite(x->weight[i]))
        return 0;
      count++;
      err += x->weight[i];
    }
  }
  return count == d->nsubstituted && tol_fits(err, x->in.budget) && fabs(err - d->error) <= 1e-9 * fmax(1.0, err);
}

typedef struct tkey {
  long i, k, chosen;
} tkey;
static int cmp_tkey(const void *pa, const void *pb)
{
  const tkey *a = pa, *b = pb;
  if (a->i != b->i)
    return (a->i > b->i) - (a->i < b->i);
  return (a->k > b->k) - (a->k < b->k);
}

/* Full: one substitute per (i, k) iff v_i, every dependent covered, no failed or infinite substitute, budget,
 * crossing limit, and the reported count and error match. */
static int check_full(const tinst *x, const fl_pol_decision *d)
{
  tkey *keys = calloc((size_t)(x->nterms ? x->nterms : 1), sizeof *keys);
  long *groups = calloc((size_t)(x->n ? x->n : 1), sizeof *groups);
  long count = 0, ncross = 0;
  double err = 0.0;
  int ok = 1;
  for (long i = 0; i < x->n; i++) {
    ok &= d->substitute[i] <= 1;
    count += d->substitute[i];
  }
  for (long q = 0; q < x->nterms; q++) {
    ok &= d->substitute_by[q] == 0 || d->substitute_by[q] == 1;
    keys[q] = (tkey){x->ti[q], x->tk[q], d->substitute_by[q]};
    if (d->substitute_by[q]) {
      ok &= isfinite(x->tw[q]) && !is_failed(x, x->tj[q]);
      err += x->tw[q];
      ncross += x->full.crosses && x->cr[q];
    }
  }
  qsort(keys, (size_t)x->nterms, sizeof *keys, cmp_tkey);
  for (long q = 0; q < x->nterms;) {
    long r = q, chosen = 0;
    while (r < x->nterms && keys[r].i == keys[q].i && keys[r].k == keys[q].k)
      chosen += keys[r++].chosen;
    ok &= chosen == d->substitute[keys[q].i]; /* sum_j z_ijk = v_i */
    groups[keys[q].i]++;
    q = r;
  }
  for (long i = 0; i < x->n; i++)
    if (x->nd && x->nd[i] > groups[i])
      ok &= d->substitute[i] == 0; /* a dependent with no candidate at all */
  ok &= tol_fits(err, x->in.budget);
  if (x->full.crosses && x->full.max_cross >= 0)
    ok &= ncross <= x->full.max_cross;
  ok &= count == d->nsubstituted;
  ok &= fabs(err - d->error) <= 1e-9 * fmax(1.0, err);
  free(keys);
  free(groups);
  return ok;
}

static int check_any(const tinst *x, const fl_pol_decision *d)
{
  int ok = x->in.full ? check_full(x, d) : check_simple(x, d);
  ok &= !(d->bound < (double)d->nsubstituted - 1e-9); /* NaN allowed by the interface */
  ok &= !(d->gap < 0.0) && !(d->gap > 1.0);           /* NaN allowed */
  ok &= d->solver != NULL && d->time_s >= 0.0;
  return ok;
}

/* ---- brute force ---- */
#ifndef FL_KNAPSACK_MIP_SUITE
static long brute_simple(const tinst *x)
{
  long best = 0;
  for (unsigned long m = 0; m < (1ul << x->n); m++) {
    double s = 0.0;
    long c = 0;
    for (long i = 0; i < x->n; i++)
      if (m >> i & 1) {
        s += x->weight[i];
        c++;
      }
    if (c > best && tol_fits(s, x->in.budget))
      best = c;
  }
  return best;
}
#endif

typedef struct bgroup {
  long terms[16];
  long nt;
} bgroup;

/* Can every group of gs[0..ng) get a usable term within the budget and crossing limit left? */
static int brute_assign(const tinst *x, const bgroup *gs, long ng, double spent, long ncross)
{
  if (!tol_fits(spent, x->in.budget))
    return 0;
  if (x->full.crosses && x->full.max_cross >= 0 && ncross > x->full.max_cross)
    return 0;
  if (ng == 0)
    return 1;
  for (long r = 0; r < gs[0].nt; r++) {
    long q = gs[0].terms[r];
    if (brute_assign(x, gs + 1, ng - 1, spent + x->tw[q], ncross + (x->full.crosses ? x->cr[q] : 0)))
      return 1;
  }
  return 0;
}

/* The full problem's optimum by enumeration of subsets and substitute choices (tiny instances only). */
static long brute_full(const tinst *x)
{
  bgroup gs[64];
  long best = 0;
  CU_ASSERT_FATAL(x->n <= 10);
  for (unsigned long m = 0; m < (1ul << x->n); m++) {
    long ng = 0, c = 0;
    int possible = 1;
    for (long i = 0; i < x->n && possible; i++) {
      long ks[16], nk = 0;
      if (!(m >> i & 1))
        continue;
      c++;
      for (long q = 0; q < x->nterms; q++) { /* distinct dependents of i */
        long f = 0;
        if (x->ti[q] != i)
          continue;
        while (f < nk && ks[f] != x->tk[q])
          f++;
        if (f == nk)
          ks[nk++] = x->tk[q];
      }
      if (x->nd[i] > nk)
        possible = 0;
      for (long f = 0; f < nk && possible; f++) {
        bgroup *g = &gs[ng++];
        g->nt = 0;
        for (long q = 0; q < x->nterms; q++)
          if (x->ti[q] == i && x->tk[q] == ks[f] && isfinite(x->tw[q]) && !is_failed(x, x->tj[q]))
            g->terms[g->nt++] = q;
        possible = g->nt > 0;
      }
    }
    if (possible && c > best && brute_assign(x, gs, ng, 0.0, 0))
      best = c;
  }
  return best;
}

/* ---- suite "knapsack": greedy, exact, dispatch, registry ---- */
#ifndef FL_KNAPSACK_MIP_SUITE

/* Simplified: greedy and exact both reach the brute-force optimum on tiny instances, and the count of a plain
 * qsort prefix (computed here) on larger ones. */
static void test_simplified_optimal(void)
{
  for (uint64_t seed = 1; seed <= 200; seed++) {
    tinst x;
    tdec g, e;
    long n = (long)(seed % 13) + 1;
    gen_simple(&x, seed, n, 0.05 + 0.9 * (double)(seed % 7) / 6.0);
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
    CU_ASSERT_EQUAL(g.d.nsubstituted, brute_simple(&x));
    CU_ASSERT_EQUAL(e.d.nsubstituted, g.d.nsubstituted);
    CU_ASSERT(check_any(&x, &g.d));
    CU_ASSERT(check_any(&x, &e.d));
    CU_ASSERT_STRING_EQUAL(g.d.solver, "greedy");
    CU_ASSERT_STRING_EQUAL(e.d.solver, "exact");
    CU_ASSERT_DOUBLE_EQUAL(g.d.gap, 0.0, 0.0);
    tdec_free(&g);
    tdec_free(&e);
    tinst_free(&x);
  }
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_simplified_large(void)
{
  for (uint64_t seed = 1; seed <= 6; seed++) {
    tinst x;
    tdec g;
    long n = 20000 * (long)seed, expect = 0;
    double *w = malloc((size_t)n * sizeof *w), s = 0.0;
    gen_simple(&x, seed * 7919, n, 0.3);
    memcpy(w, x.weight, (size_t)n * sizeof *w);
    qsort(w, (size_t)n, sizeof *w, cmp_double);
    while (expect < n && isfinite(w[expect]) && tol_fits(s + w[expect], x.in.budget))
      s += w[expect++];
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL(g.d.nsubstituted, expect);
    CU_ASSERT(check_any(&x, &g.d));
    free(w);
    tdec_free(&g);
    tinst_free(&x);
  }
}

/* Full problem, tiny: exact = brute force (with and without a crossing limit); greedy <= exact, and equal without
 * an active limit; every answer feasible. */
static void test_full_exact_brute(void)
{
  for (uint64_t seed = 1; seed <= 300; seed++) {
    tinst x;
    tdec g, e;
    int mode = (int)(seed % 3);
    long best;
    gen_full(&x, seed, (long)(seed % 6) + 1, 2, 3, mode, 0.2 + 0.6 * (double)(seed % 5) / 4.0);
    if (seed % 2)
      quantize(&x);
    best = brute_full(&x);
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
    CU_ASSERT_EQUAL(e.d.nsubstituted, best);
    CU_ASSERT(g.d.nsubstituted <= best);
    if (mode != 2)
      CU_ASSERT_EQUAL(g.d.nsubstituted, best);
    CU_ASSERT(check_any(&x, &g.d));
    CU_ASSERT(check_any(&x, &e.d));
    CU_ASSERT(g.d.bound >= (double)best); /* the greedy's bound is a bound */
    if (e.d.nsubstituted != best || !check_any(&x, &e.d))
      fprintf(stderr, "seed %lu: exact %ld, brute %ld\n", (unsigned long)seed, e.d.nsubstituted, best);
    tdec_free(&g);
    tdec_free(&e);
    tinst_free(&x);
  }
}

/* The crossing limit makes the greedy suboptimal somewhere: exact must find better on some of these. */
static void test_full_greedy_gap_exists(void)
{
  long better = 0, worse = 0;
  for (uint64_t seed = 1; seed <= 200; seed++) {
    tinst x;
    tdec g, e;
    gen_full(&x, seed * 31, 20, 3, 3, 2, 0.5);
    if (seed % 2)
      quantize(&x);
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
    better += e.d.nsubstituted > g.d.nsubstituted;
    worse += e.d.nsubstituted < g.d.nsubstituted;
    CU_ASSERT(check_any(&x, &e.d));
    CU_ASSERT(g.d.bound >= (double)e.d.nsubstituted);
    tdec_free(&g);
    tdec_free(&e);
    tinst_free(&x);
  }
  CU_ASSERT_EQUAL(worse, 0);
  CU_ASSERT(better > 0);
}

/* The seed's simplified weights w_i = N_i min_j max_k w_ijk over-estimate what substituting i costs, so the
 * simplified optimum never exceeds the full one (no crossing limit). */
static void test_simplified_is_conservative(void)
{
  for (uint64_t seed = 1; seed <= 100; seed++) {
    tinst x, y;
    tdec f, s;
    gen_full(&x, seed * 131, 30, 3, 3, 0, 0.5);
    memset(&y, 0, sizeof y);
    y.n = x.n;
    y.weight = calloc((size_t)x.n, sizeof *y.weight);
    for (long i = 0; i < x.n; i++) {
      /* w_ij = max_k w_ijk over the dependents j serves; a j must serve all of them to be i's substitute */
      long ks[16], nk = 0;
      double best = INFINITY;
      for (long q = 0; q < x.nterms; q++)
        if (x.ti[q] == i) {
          long f = 0;
          while (f < nk && ks[f] != x.tk[q])
            f++;
          if (f == nk)
            ks[nk++] = x.tk[q];
        }
      for (long q = 0; q < x.nterms; q++) {
        long serves = 0;
        double wmax = 0.0;
        if (x.ti[q] != i || is_failed(&x, x.tj[q]))
          continue;
        for (long f = 0; f < nk; f++)
          for (long r = 0; r < x.nterms; r++)
            if (x.ti[r] == i && x.tj[r] == x.tj[q] && x.tk[r] == ks[f]) {
              serves++;
              wmax = fmax(wmax, x.tw[r]);
              break;
            }
        if (serves == nk && wmax < best)
          best = wmax;
      }
      y.weight[i] = (x.nd[i] > nk || nk == 0) ? (nk == 0 && x.nd[i] == 0 ? 0.0 : INFINITY) : (double)nk * best;
    }
    y.in = (fl_pol_instance){.nfailed = y.n, .weight = y.weight, .budget = x.in.budget};
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &f), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &y, &s), FL_OK);
    CU_ASSERT(s.d.nsubstituted <= f.d.nsubstituted);
    tdec_free(&f);
    tdec_free(&s);
    tinst_free(&x);
    tinst_free(&y);
  }
}

/* Budget 0, all-infinite weights, nothing failed: results, not errors, from every solver. */
static void test_edge_inputs(void)
{
  for (int r = 0; r < fl_pol_solver_count(); r++) {
    const char *kind = fl_pol_solver_name(r);
    double w[4] = {0.5, 0.0, INFINITY, 0.25};
    double winf[3] = {INFINITY, INFINITY, INFINITY};
    unsigned char sub[4];
    fl_pol_decision d = {.substitute = sub};
    fl_pol_instance in = {.nfailed = 4, .weight = w, .budget = 0.0};

    /* budget 0: only the free substitution */
    CU_ASSERT_EQUAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT_EQUAL(d.nsubstituted, 1);
    CU_ASSERT(sub[1] == 1 && sub[0] == 0 && sub[2] == 0 && sub[3] == 0);
    CU_ASSERT_DOUBLE_EQUAL(d.error, 0.0, 0.0);
    /* an infinite budget takes every finite weight, never an infinite one */
    in.budget = INFINITY;
    CU_ASSERT_EQUAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT_EQUAL(d.nsubstituted, 3);
    CU_ASSERT_EQUAL(sub[2], 0);
    /* all INFINITY: replicate everything */
    in = (fl_pol_instance){.nfailed = 3, .weight = winf, .budget = 10.0};
    CU_ASSERT_EQUAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT_EQUAL(d.nsubstituted, 0);
    CU_ASSERT(sub[0] == 0 && sub[1] == 0 && sub[2] == 0);
    /* nothing failed: trivial, even without buffers */
    d = (fl_pol_decision){0};
    in = (fl_pol_instance){.nfailed = 0, .budget = 1.0};
    CU_ASSERT_EQUAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT_EQUAL(d.nsubstituted, 0);
    CU_ASSERT_DOUBLE_EQUAL(d.bound, 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(d.gap, 0.0, 0.0);
    CU_ASSERT_PTR_NOT_NULL(d.solver);
  }
}

/* Full-formulation edges: a task without dependents is free; one with a dependent nobody can serve, or whose only
 * cheap substitute is failed, is replicated; crossing limit 0 leaves only non-crossing substitutes. */
static void test_full_edges(void)
{
  /* failed tasks 0..3 (ids 100..103); dependents ids 10.. */
  long ti[] = {1, 2, 2, 3, 3};
  long tj[] = {50, 51, 101, 52, 53};
  long tk[] = {10, 11, 12, 13, 13};
  double tw[] = {0.2, 0.1, 0.0, 0.3, 0.05};
  unsigned char cr[] = {0, 0, 0, 0, 1};
  long nd[] = {0, 2, 2, 1}; /* task 1 claims a second dependent with no term */
  long failed[] = {100, 101, 102, 103};
  fl_pol_full f = {.nterms = 5,
                   .term_i = ti,
                   .term_j = tj,
                   .term_k = tk,
                   .term_w = tw,
                   .crosses = cr,
                   .max_cross = 0,
                   .ndependents = nd,
                   .failed_task = failed};
  fl_pol_instance in = {.nfailed = 4, .budget = 10.0, .full = &f};
  for (int r = 0; r < fl_pol_solver_count(); r++) {
    const char *kind = fl_pol_solver_name(r);
    unsigned char sub[4];
    long z[5];
    fl_pol_decision d = {.substitute = sub, .substitute_by = z};
    f.max_cross = 0;
    CU_ASSERT_EQUAL_FATAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT_EQUAL(sub[0], 1); /* no dependents: free */
    CU_ASSERT_EQUAL(sub[1], 0); /* a dependent without a candidate */
    CU_ASSERT_EQUAL(sub[2], 0); /* dependent 12's only substitute is failed task 101 */
    CU_ASSERT_EQUAL(sub[3], 1); /* with the non-crossing 0.3, not the crossing 0.05 */
    CU_ASSERT(z[3] == 1 && z[4] == 0 && z[2] == 0);
    CU_ASSERT_DOUBLE_EQUAL(d.error, 0.3, 1e-12);
    f.max_cross = 1; /* now the crossing one is allowed and cheaper */
    CU_ASSERT_EQUAL_FATAL(fl_pol_solve(kind, &in, &d), FL_OK);
    CU_ASSERT(z[3] == 0 && z[4] == 1);
    CU_ASSERT_DOUBLE_EQUAL(d.error, 0.05, 1e-12);
  }
}

/* Equal savings: one failed task, three dependents, each served without crossing for 1.0 or crossing for 0.5.
 * With two crossings allowed, the only assignment within a budget of 2.0 crosses exactly two of the three. */
static void test_full_equal_savings(void)
{
  long ti[] = {0, 0, 0, 0, 0, 0}, tj[] = {10, 11, 10, 11, 10, 11}, tk[] = {1, 1, 2, 2, 3, 3};
  double tw[] = {1.0, 0.5, 1.0, 0.5, 1.0, 0.5};
  unsigned char cr[] = {0, 1, 0, 1, 0, 1};
  long failed[] = {99};
  fl_pol_full f = {.nterms = 6,
                   .term_i = ti,
                   .term_j = tj,
                   .term_k = tk,
                   .term_w = tw,
                   .crosses = cr,
                   .max_cross = 2,
                   .failed_task = failed};
  fl_pol_instance in = {.nfailed = 1, .budget = 2.0, .full = &f};
  for (int r = 0; r < fl_pol_solver_count(); r++) {
    unsigned char sub[1];
    long z[6];
    fl_pol_decision d = {.substitute = sub, .substitute_by = z};
    CU_ASSERT_EQUAL_FATAL(fl_pol_solve(fl_pol_solver_name(r), &in, &d), FL_OK);
    CU_ASSERT_EQUAL(d.nsubstituted, 1);
    CU_ASSERT_EQUAL(z[1] + z[3] + z[5], 2);
    CU_ASSERT_EQUAL(z[0] + z[2] + z[4], 1);
    CU_ASSERT_DOUBLE_EQUAL(d.error, 2.0, 1e-12);
  }
}

static void expect_input_error(const char *kind, const fl_pol_instance *in, const char *needle)
{
  long nt = in->full && in->full->nterms > 0 ? in->full->nterms : 1;
  unsigned char *sub = calloc((size_t)(in->nfailed > 0 ? in->nfailed : 1), 1);
  long *z = calloc((size_t)nt, sizeof *z);
  fl_pol_decision d = {.substitute = sub, .substitute_by = z};
  fl_err_clear();
  CU_ASSERT_EQUAL(fl_pol_solve(kind, in, &d), FL_ERR_INPUT);
  free(sub);
  free(z);
  if (!strstr(fl_err_msg(), needle)) {
    fprintf(stderr, "message '%s' lacks '%s'\n", fl_err_msg(), needle);
    CU_FAIL("error message");
  }
}

static void test_bad_inputs(void)
{
  double w[3] = {0.1, 0.2, 0.3}, wnan[3] = {0.1, NAN, 0.3}, wneg[3] = {0.1, -0.2, 0.3};
  fl_pol_instance in = {.nfailed = 3, .weight = w, .budget = -1.0};
  expect_input_error("greedy", &in, "budget");
  in.budget = NAN;
  expect_input_error("exact", &in, "budget");
  in.budget = 1.0;
  in.weight = wnan;
  expect_input_error("greedy", &in, "weight[1]");
  in.weight = wneg;
  expect_input_error("exact", &in, "weight[1]");
  in.weight = w;
  expect_input_error("greedy_", &in, "unknown policy 'greedy_' (known: greedy, exact");
  expect_input_error(NULL, &in, "unknown policy");
  in.mip_gap = -0.1;
  expect_input_error("greedy", &in, "mip_gap");
  in.mip_gap = 0.0;
  {
    long ti[] = {0, 5}, tj[] = {10, 11}, tk[] = {20, 21};
    double tw[] = {0.1, 0.2};
    long nd[] = {1, 0, 0};
    fl_pol_full f = {.nterms = 2, .term_i = ti, .term_j = tj, .term_k = tk, .term_w = tw, .max_cross = -1};
    in.full = &f;
    expect_input_error("greedy", &in, "term 1 has i = 5");
    ti[1] = 1;
    tw[1] = NAN;
    expect_input_error("exact", &in, "term 1 has weight");
    tw[1] = -1.0;
    expect_input_error("greedy", &in, "term 1 has weight");
    tw[1] = 0.2;
    f.ndependents = nd; /* task 1 has terms for a dependent but claims none */
    expect_input_error("greedy", &in, "ndependents = 0");
  }
  {
    /* the exact branch and bound's size limit, with a crossing limit */
    tinst x;
    gen_full(&x, 5, FL_POL_EXACT_MAX_FAILED + 1, 2, 2, 2, 0.5);
    x.full.max_cross = 3;
    expect_input_error("exact", &x.in, "at most 40");
    tinst_free(&x);
  }
}

/* Every registered solver, on every kind of instance: a valid decision, its name as the solver (or "mip ..."),
 * a sane bound and gap, never more substitutions than the optimum. */
static void test_registry_conformance(void)
{
  int n = fl_pol_solver_count(), has_mip = 0;
  CU_ASSERT(n >= 2);
  CU_ASSERT_PTR_NULL(fl_pol_solver_name(n));
  CU_ASSERT_PTR_NULL(fl_pol_solver_name(-1));
  for (int r = 0; r < n; r++) {
    const char *kind = fl_pol_solver_name(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kind);
    has_mip |= strcmp(kind, "mip") == 0;
    for (int s = 0; s < r; s++)
      CU_ASSERT(strcmp(kind, fl_pol_solver_name(s)) != 0);
    for (uint64_t seed = 1; seed <= 24; seed++) {
      tinst x;
      tdec d, e;
      if (seed % 4 == 0)
        gen_simple(&x, seed, 50, 0.4);
      else
        gen_full(&x, seed, 12, 3, 3, (int)(seed % 4) - 1, 0.4);
      CU_ASSERT_EQUAL_FATAL(solve(kind, &x, &d), FL_OK);
      CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
      CU_ASSERT(check_any(&x, &d.d));
      CU_ASSERT(strncmp(d.d.solver, kind, strlen(kind)) == 0);
      CU_ASSERT(d.d.nsubstituted <= e.d.nsubstituted);
      CU_ASSERT(!(d.d.bound < (double)e.d.nsubstituted)); /* a bound bounds the optimum */
      tdec_free(&d);
      tdec_free(&e);
      tinst_free(&x);
    }
  }
  CU_ASSERT_EQUAL(has_mip, FL_HAVE_GLPK);
}

#endif

/* ---- suite "knapsack-mip": GLPK against the others ---- */
#if defined(FL_KNAPSACK_MIP_SUITE) && FL_HAVE_GLPK
static void test_mip_simplified_agree(void)
{
  for (uint64_t seed = 1; seed <= 60; seed++) {
    tinst x;
    tdec g, e, m;
    gen_simple(&x, seed * 17, (long)(seed * 37 % 400) + 1, 0.05 + 0.9 * (double)(seed % 9) / 8.0);
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &m), FL_OK);
    CU_ASSERT_EQUAL(m.d.nsubstituted, g.d.nsubstituted);
    CU_ASSERT_EQUAL(e.d.nsubstituted, g.d.nsubstituted);
    CU_ASSERT_STRING_EQUAL(m.d.solver, "mip");
    CU_ASSERT_DOUBLE_EQUAL(m.d.gap, 0.0, 0.0);
    CU_ASSERT(check_any(&x, &m.d));
    tdec_free(&g);
    tdec_free(&e);
    tdec_free(&m);
    tinst_free(&x);
  }
}

/* Full MIP = exact optimum (random instances up to 30 failed tasks, all three crossing modes), greedy <= both,
 * and GLPK's answer satisfies every constraint. */
static void test_mip_full_agree(void)
{
  long improved = 0;
  for (uint64_t seed = 1; seed <= 150; seed++) {
    tinst x;
    tdec g, e, m;
    int mode = (int)(seed % 3);
    gen_full(&x, seed * 101, (long)(seed % 30) + 1, 3, 3, mode, 0.1 + 0.8 * (double)(seed % 5) / 4.0);
    if (seed % 4 == 1)
      quantize(&x);
    CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
    CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &m), FL_OK);
    CU_ASSERT_EQUAL(m.d.nsubstituted, e.d.nsubstituted);
    CU_ASSERT(g.d.nsubstituted <= e.d.nsubstituted);
    CU_ASSERT(check_full(&x, &m.d));
    CU_ASSERT(check_any(&x, &m.d));
    CU_ASSERT_STRING_EQUAL(m.d.solver, "mip");
    CU_ASSERT_DOUBLE_EQUAL(m.d.gap, 0.0, 0.0);
    if (m.d.nsubstituted != e.d.nsubstituted)
      fprintf(stderr, "seed %lu mode %d: mip %ld, exact %ld, greedy %ld\n", (unsigned long)seed, mode, m.d.nsubstituted,
              e.d.nsubstituted, g.d.nsubstituted);
    improved += m.d.nsubstituted > g.d.nsubstituted;
    tdec_free(&g);
    tdec_free(&e);
    tdec_free(&m);
    tinst_free(&x);
  }
  CU_ASSERT(improved > 0); /* the crossing limit gives GLPK something to improve on */
}

/* Tiny instances: the MIP reaches the brute-force optimum. */
static void test_mip_full_brute(void)
{
  for (uint64_t seed = 1; seed <= 120; seed++) {
    tinst x;
    tdec m;
    gen_full(&x, seed * 7, (long)(seed % 6) + 1, 2, 3, (int)(seed % 3), 0.5);
    if (seed % 2)
      quantize(&x);
    CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &m), FL_OK);
    CU_ASSERT_EQUAL(m.d.nsubstituted, brute_full(&x));
    CU_ASSERT(check_full(&x, &m.d));
    tdec_free(&m);
    tinst_free(&x);
  }
}

/* Without z buffers the MIP still answers (it rebuilds the greedy's z for GLPK itself). */
static void test_mip_without_z(void)
{
  tinst x;
  unsigned char *sub;
  fl_pol_decision d = {0};
  tdec e;
  gen_full(&x, 99, 25, 3, 3, 2, 0.4);
  sub = calloc((size_t)x.n, 1);
  d.substitute = sub;
  CU_ASSERT_EQUAL_FATAL(fl_pol_solve("mip", &x.in, &d), FL_OK);
  CU_ASSERT_EQUAL_FATAL(solve("exact", &x, &e), FL_OK);
  CU_ASSERT_EQUAL(d.nsubstituted, e.d.nsubstituted);
  free(sub);
  tdec_free(&e);
  tinst_free(&x);
}

/* A limit shorter than GLPK's LP on a large full instance with a tight crossing limit (its LP alone took
 * ~0.6 s on the development machine, the greedy 3 ms): GLPK runs until the limit, then the greedy answer is kept,
 * labelled as such, and valid. */
static void test_mip_time_limit_fallback(void)
{
  tinst x;
  tdec g, m;
  gen_dense(&x, 4242, 3000, 3, 3, 0.05);
  x.in.time_limit_s = 0.1;
  CU_ASSERT_EQUAL_FATAL(solve("greedy", &x, &g), FL_OK);
  CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &m), FL_OK);
  CU_ASSERT_STRING_EQUAL(m.d.solver, "mip (greedy fallback)");
  CU_ASSERT(m.d.time_s >= 0.09); /* GLPK really ran into its limit (not a refusal up front) */
  CU_ASSERT(m.d.time_s <= 0.5);  /* and stopped there, not after its 0.6 s LP (slack for a loaded machine) */
  CU_ASSERT_EQUAL(m.d.nsubstituted, g.d.nsubstituted);
  CU_ASSERT(memcmp(m.d.substitute, g.d.substitute, (size_t)x.n) == 0);
  CU_ASSERT(check_full(&x, &m.d));
  CU_ASSERT(m.d.bound >= (double)m.d.nsubstituted);
  CU_ASSERT(m.d.gap >= 0.0 && m.d.gap <= 1.0);
  tdec_free(&m);
  /* a limit already spent by the greedy: GLPK is not even started */
  x.in.time_limit_s = 1e-7;
  CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &m), FL_OK);
  CU_ASSERT_STRING_EQUAL(m.d.solver, "mip (greedy fallback)");
  CU_ASSERT_EQUAL(m.d.nsubstituted, g.d.nsubstituted);
  CU_ASSERT(check_full(&x, &m.d));
  tdec_free(&g);
  tdec_free(&m);
  tinst_free(&x);
}

/* mip_gap = 0.5 lets GLPK stop as soon as the incumbent is within half of its bound. On each instance: a valid
 * answer labelled "mip", its gap reported (<= 0.5), its bound covering the optimum that a run without a gap proves.
 * GLPK's own rounding heuristic often finds the optimum at the root anyway; on some of these dense instances it
 * does not (the greedy is 10-25% below there), and the early stop must show as a positive gap. */
static void test_mip_gap(void)
{
  long early_stops = 0;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    tinst x;
    tdec early, full;
    gen_dense(&x, seed * 1009, 600 + 100 * (long)seed, 3, 3, 0.05);
    x.in.mip_gap = 0.5;
    CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &early), FL_OK);
    x.in.mip_gap = 0.0;
    CU_ASSERT_EQUAL_FATAL(solve("mip", &x, &full), FL_OK);
    CU_ASSERT_STRING_EQUAL(early.d.solver, "mip");
    CU_ASSERT_STRING_EQUAL(full.d.solver, "mip");
    CU_ASSERT(check_full(&x, &early.d));
    CU_ASSERT(check_full(&x, &full.d));
    CU_ASSERT(early.d.gap >= 0.0 && early.d.gap <= 0.5);
    CU_ASSERT_DOUBLE_EQUAL(full.d.gap, 0.0, 0.0);
    CU_ASSERT(early.d.nsubstituted <= full.d.nsubstituted);
    CU_ASSERT(early.d.bound >= (double)full.d.nsubstituted);
    early_stops += early.d.gap > 0.0;
    tdec_free(&early);
    tdec_free(&full);
    tinst_free(&x);
  }
  CU_ASSERT(early_stops > 0);
}
#endif

#endif /* helpers */

#ifndef FL_KNAPSACK_MIP_SUITE
static CU_TestInfo knapsack_tests[] = {
    {"simplified: greedy = exact = brute force", test_simplified_optimal},
    {"simplified: greedy = qsort prefix on 20k..120k tasks", test_simplified_large},
    {"full: exact = brute force, greedy <= exact", test_full_exact_brute},
    {"full, crossing limit: exact beats greedy somewhere, never loses", test_full_greedy_gap_exists},
    {"seed's simplified weights never beat the full optimum", test_simplified_is_conservative},
    {"budget 0, infinite weights, nothing failed", test_edge_inputs},
    {"full: no dependents, uncovered dependent, failed substitute, crossing", test_full_edges},
    {"full: equal savings under a crossing limit", test_full_equal_savings},
    {"bad inputs are FL_ERR_INPUT with a message", test_bad_inputs},
    {"registry conformance: every solver", test_registry_conformance},
    CU_TEST_INFO_NULL,
};
#endif
#if defined(FL_KNAPSACK_MIP_SUITE) && FL_HAVE_GLPK
static CU_TestInfo mip_tests[] = {
    {"simplified: mip = greedy = exact, proven", test_mip_simplified_agree},
    {"full: mip = exact, constraints hold", test_mip_full_agree},
    {"full, tiny: mip = brute force", test_mip_full_brute},
    {"full without z buffers", test_mip_without_z},
    {"time limit: greedy fallback", test_mip_time_limit_fallback},
    {"mip_gap: early stop, valid, gap reported", test_mip_gap},
    CU_TEST_INFO_NULL,
};
#endif

#ifdef FL_KNAPSACK_MIP_SUITE
#if FL_HAVE_GLPK
static CU_SuiteInfo suites[] = {{"knapsack-mip", NULL, NULL, NULL, NULL, mip_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
#else
int main(void)
{
  return FL_TEST_SKIP;
} /* built without GLPK: the "mip" solver does not exist */
#endif
#else
static CU_SuiteInfo suites[] = {{"knapsack", NULL, NULL, NULL, NULL, knapsack_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
#endif
