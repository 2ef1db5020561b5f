/* interval.c — Young's and Daly's checkpoint intervals (formulas in interval.h).
 * J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974.
 * J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22, 2006. */
#include "interval.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double fl_pol_interval_young(double delta_s, double mtbf_s)
{
  return sqrt(2.0 * delta_s * mtbf_s);
}

double fl_pol_interval_daly(double delta_s, double mtbf_s)
{
  double x;
  if (delta_s >= 2.0 * mtbf_s)
    return mtbf_s;
  x = delta_s / (2.0 * mtbf_s);
  return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

static double fl_silent_rate(double mtbf_s, double sdc_mtbf_s)
{
  return (isfinite(mtbf_s) && mtbf_s > 0 ? 0.5 / mtbf_s : 0.0) + (isfinite(sdc_mtbf_s) && sdc_mtbf_s > 0 ? 1.0 / sdc_mtbf_s : 0.0);
}

double fl_pol_interval_silent(double delta_s, double verify_s, double mtbf_s, double sdc_mtbf_s)
{
  double rate = fl_silent_rate(mtbf_s, sdc_mtbf_s);
  return rate > 0 ? sqrt((verify_s + delta_s) / rate) : INFINITY;
}

double fl_pol_waste_silent(double period_s, double delta_s, double verify_s, double mtbf_s, double sdc_mtbf_s)
{
  return (verify_s + delta_s) / period_s + fl_silent_rate(mtbf_s, sdc_mtbf_s) * period_s;
}

typedef struct fl_hz_ctx {
  fl_pol_expected_failures F;
  void *ctx;
  double two_delta;
} fl_hz_ctx;

static double fl_hz_eq(double tau, void *p)
{
  const fl_hz_ctx *c = p;
  return tau * c->F(tau, c->ctx) - c->two_delta;
}

double fl_pol_interval_hazard(double delta_s, fl_pol_expected_failures F, void *ctx, double tau_max_s)
{
  fl_hz_ctx c = {.F = F, .ctx = ctx, .two_delta = 2.0 * delta_s};
  gsl_function fn = {.function = fl_hz_eq, .params = &c};
  gsl_root_fsolver *s;
  double lo = 0.0, hi = tau_max_s, root = tau_max_s;
  if (!(delta_s > 0))
    return 0.0;
  if (!(fl_hz_eq(hi, &c) > 0))
    return tau_max_s; /* so few failures ahead that no checkpoint within tau_max pays */
  s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (!s)
    return NAN;
  {
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (gsl_root_fsolver_set(s, &fn, lo, hi) == GSL_SUCCESS) {
      for (int it = 0; it < 200; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
          break;
        root = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 1e-6, 1e-9) ==
            GSL_SUCCESS)
          break;
      }
    }
    gsl_set_error_handler(old);
  }
  gsl_root_fsolver_free(s);
  return root;
}

typedef struct fl_coop_ctx {
  long n;
  const double *cost, *mtbf, *load, *nodes;
  int daly;
  double *period;
} fl_coop_ctx;

/* The periods at multiplier lambda, into c->period; returns sum_i L_i / P_i - 1 (the PFS's overcommitment). */
static double fl_coop_eq(double lambda, void *p)
{
  const fl_coop_ctx *c = p;
  double busy = 0.0;
  for (long i = 0; i < c->n; i++) {
    double cost;
    if (!isfinite(c->cost[i]) || !isfinite(c->mtbf[i])) {
      c->period[i] = INFINITY;
      continue;
    }
    cost = c->cost[i] + lambda * c->load[i] / c->nodes[i];
    c->period[i] = c->daly ? fl_pol_interval_daly(cost, c->mtbf[i]) : fl_pol_interval_young(cost, c->mtbf[i]);
    busy += c->load[i] / c->period[i];
  }
  return busy - 1.0;
}

double fl_pol_interval_cooperative(long n, const double *cost_s, const double *mtbf_s, const double *load_s,
                                   const double *nodes, int daly, double *period_s)
{
  fl_coop_ctx c = {.n = n, .cost = cost_s, .mtbf = mtbf_s, .load = load_s, .nodes = nodes, .daly = daly,
                   .period = period_s};
  gsl_function fn = {.function = fl_coop_eq, .params = &c};
  gsl_root_fsolver *s;
  double hi = 1.0, upper = NAN;
  for (long i = 0; i < n; i++)
    if (!(cost_s[i] >= 0) || !(mtbf_s[i] > 0) || !(load_s[i] >= 0) || !(nodes[i] > 0))
      return NAN;
  if (!(fl_coop_eq(0.0, &c) > 0))
    return 0.0; /* the own periods fit the PFS */
  /* a bracket: the periods grow with lambda (Young's without bound, Daly's up to the MTBF) */
  while (fl_coop_eq(hi, &c) > 0) {
    int capped = 1;
    for (long i = 0; i < n; i++)
      capped &= !isfinite(period_s[i]) || (daly && period_s[i] >= mtbf_s[i]);
    if (capped || hi > 1e300)
      return hi; /* every period at its cap: the PFS stays overcommitted */
    hi *= 2.0;
  }
  s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  if (!s)
    return NAN;
  {
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    if (gsl_root_fsolver_set(s, &fn, 0.0, hi) == GSL_SUCCESS) {
      for (int it = 0; it < 200; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
          break;
        upper = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), upper, 0.0, 1e-12) == GSL_SUCCESS)
          break;
      }
    }
    gsl_set_error_handler(old);
  }
  gsl_root_fsolver_free(s);
  if (isnan(upper))
    return NAN;
  /* the periods at the bracket's upper end, where the PFS is not overcommitted */
  fl_coop_eq(upper, &c);
  return upper;
}

static double fl_segment_time(double len, double delta, double R, double D, double M)
{
  return (M + D) * exp(R / M) * expm1((len + delta) / M);
}

double fl_pol_expected_walltime(double work_s, double tau_s, double delta_s, double restart_s, double downtime_s,
                                double mtbf_s)
{
  double full, rest, total;
  if (!isfinite(mtbf_s))
    return (tau_s >= work_s ? work_s + delta_s : work_s + ceil(work_s / tau_s) * delta_s);
  if (!(tau_s < work_s))
    return fl_segment_time(work_s, delta_s, restart_s, downtime_s, mtbf_s);
  full = floor(work_s / tau_s);
  rest = work_s - full * tau_s;
  if (rest < 1e-9 * work_s) /* work is a multiple of tau up to rounding */
    rest = 0.0;
  total = full * fl_segment_time(tau_s, delta_s, restart_s, downtime_s, mtbf_s);
  if (rest > 0.0)
    total += fl_segment_time(rest, delta_s, restart_s, downtime_s, mtbf_s);
  return total;
}

double fl_pol_twolevel_expected(const fl_pol_twolevel *m, long patterns)
{
  double ln = isfinite(m->node_mtbf_s) ? 1.0 / m->node_mtbf_s : 0.0;
  double lp = isfinite(m->proc_mtbf_s) ? 1.0 / m->proc_mtbf_s : 0.0;
  double l = ln + lp, q, a, keep, t_rec, pi, b_next = 0.0, a_next = 0.0, p0, m0, s0;
  if (!(l > 0)) /* no failures */
    return (double)patterns * ((double)m->every * m->tau_s + (double)(m->every - 1) * m->local_s + m->file_s);
  /* the recovery loop after a failure: attempts of D + min(Y, R) until a restart completes */
  q = exp(-l * m->restart_s);
  t_rec = (m->downtime_s + (1.0 - q) / l) / q;
  /* a crash keeps the local copy if no node is lost during the downtimes and failed restarts that follow */
  a = exp(-ln * m->downtime_s);
  keep = a * q / (1.0 - a * (1.0 - q) * lp / l);
  pi = lp / l * keep;
  /* F_i = a_i + b_i F_0: expected time from i segments past the file checkpoint to the next file checkpoint */
  for (long i = m->every - 1; i >= 1; i--) {
    double seg = m->tau_s + (i + 1 == m->every ? m->file_s : m->local_s);
    double p = exp(-l * seg), mfail = 1.0 / l - seg * p / (1.0 - p), d = 1.0 - (1.0 - p) * pi;
    double ai = (p * (seg + a_next) + (1.0 - p) * (mfail + t_rec)) / d;
    double bi = (p * b_next + (1.0 - p) * (1.0 - pi)) / d;
    a_next = ai;
    b_next = bi;
  }
  s0 = m->tau_s + (m->every == 1 ? m->file_s : m->local_s);
  p0 = exp(-l * s0);
  m0 = 1.0 / l - s0 * p0 / (1.0 - p0);
  /* from position 0 any failure returns to 0 */
  return (double)patterns * (p0 * (s0 + a_next) + (1.0 - p0) * (m0 + t_rec)) / (p0 * (1.0 - b_next));
}

/* ---- multi-level periods (interval.h, Benoit et al. 2017) ---- */

static void fl_lv_ab(const fl_pol_levels *p, const long *every, double *A, double *B)
{
  *A = *B = 0.0;
  for (int l = 0; l < p->n; l++) {
    *A += (p->cost_s[l] - (l ? p->cost_s[l - 1] : 0.0)) / (double)every[l];
    *B += p->rate[l] * (double)every[l] / 2.0;
  }
}

/* A B: the square of half the overhead at the best tau for these periods */
static double fl_lv_ab_product(const fl_pol_levels *p, const long *every)
{
  double A, B;
  fl_lv_ab(p, every, &A, &B);
  return A * B;
}

/* every[] from the ratios every[l] / every[l-1]; 0 when a period would pass FL_POL_MAX_EVERY */
static int fl_lv_periods(int n, const long *ratio, long *every)
{
  every[0] = 1;
  for (int l = 1; l < n; l++) {
    if (ratio[l] > FL_POL_MAX_EVERY / every[l - 1])
      return 0;
    every[l] = every[l - 1] * ratio[l];
  }
  return 1;
}

void fl_pol_interval_levels(fl_pol_levels *p)
{
  long ratio[FL_POL_MAX_LEVELS] = {1, 1, 1, 1}, every[FL_POL_MAX_LEVELS];
  double A, B;
  int n = p->n < 1 ? 1 : (p->n > FL_POL_MAX_LEVELS ? FL_POL_MAX_LEVELS : p->n);

  p->n = n;
  if (p->every[0] == 0) {
    /* the real optimum's periods, rounded, as the start: every[l] = N_0 / N_l */
    double n0 = p->cost_s[0] > 0 && p->rate[0] > 0 ? sqrt(p->rate[0] / (2.0 * p->cost_s[0])) : 0.0, prev = 1.0;
    for (int l = 1; l < n; l++) {
      double dc = p->cost_s[l] - p->cost_s[l - 1], nl = dc > 0 ? sqrt(p->rate[l] / (2.0 * dc)) : INFINITY;
      double e = n0 > 0 && nl > 0 && isfinite(nl) ? n0 / nl : 1.0, r = e / prev;
      ratio[l] = r >= 1.0 && r < (double)FL_POL_MAX_EVERY ? (long)llround(r) : (r >= 1.0 ? FL_POL_MAX_EVERY : 1);
      prev = prev * (double)ratio[l];
    }
    while (!fl_lv_periods(n, ratio, every)) /* too long a pattern: shorten its top ratios */
      for (int l = n - 1; l >= 1; l--)
        if (ratio[l] > 1) {
          ratio[l] /= 2;
          break;
        }
    /* coordinate descent, each step exact: with the other ratios fixed, A B = (a0 + a1/r)(b0 + b1 r) */
    for (int round = 0, changed = 1; changed && round < 100; round++) {
      changed = 0;
      for (int j = 1; j < n; j++) {
        double a0 = 0, a1 = 0, b0 = 0, b1 = 0, best;
        long cand[5], pick = ratio[j];
        for (int l = 0; l < n; l++) {
          double dc = p->cost_s[l] - (l ? p->cost_s[l - 1] : 0.0);
          if (l < j) {
            a0 += dc / (double)every[l];
            b0 += p->rate[l] * (double)every[l] / 2.0;
          } else { /* every[l] = ratio[j] * (every[l] / ratio[j]) */
            double base = (double)(every[l] / ratio[j]);
            a1 += dc / base;
            b1 += p->rate[l] * base / 2.0;
          }
        }
        /* convex in r (or monotone when a term vanishes or a level is no dearer than the one below): the
         * minimum is at 1, at the largest ratio allowed, or next to sqrt(a1 b0 / (a0 b1)) */
        cand[0] = ratio[j];
        cand[1] = 1;
        cand[2] = FL_POL_MAX_EVERY / every[j - 1];
        cand[3] = cand[4] = 1;
        if (a0 > 0 && a1 > 0 && b0 > 0 && b1 > 0) {
          double r = sqrt(a1 * b0 / (a0 * b1));
          r = r < 1.0 ? 1.0 : (r > (double)cand[2] ? (double)cand[2] : r);
          cand[3] = (long)floor(r);
          cand[4] = (long)ceil(r);
        }
        best = INFINITY;
        for (int c = 0; c < 5; c++) {
          long keep = ratio[j], trial[FL_POL_MAX_LEVELS];
          double v;
          ratio[j] = cand[c];
          if (fl_lv_periods(n, ratio, trial) && (v = fl_lv_ab_product(p, trial)) < best * (1.0 - 1e-12)) {
            best = v;
            pick = cand[c];
          }
          ratio[j] = keep;
        }
        if (pick != ratio[j]) {
          ratio[j] = pick;
          fl_lv_periods(n, ratio, every);
          changed = 1;
        }
      }
    }
    for (int l = 0; l < n; l++)
      p->every[l] = every[l];
  }
  fl_lv_ab(p, p->every, &A, &B);
  p->tau_s = B > 0 ? sqrt(A / B) : INFINITY;
  p->overhead = 2.0 * sqrt(A * B);
}
