/* fit.c — maximum-likelihood fits of failure laws with right-censoring (see fit.h). */
#define _GNU_SOURCE /* qsort_r */
#include "fit.h"

#include "fm.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The families: the failure-model registry's fittable laws, in its order, then the bursty process. */
static struct {
  int n;
  const char *name[FL_FIT_MAX];
  const fl_fm_fit *fit[FL_FIT_MAX]; /* NULL: the bursty process */
} fl_fams;

static void fl_fams_init(void)
{
  if (fl_fams.n > 0)
    return;
  for (int i = 0; i < fl_fm_registry_count() && fl_fams.n < FL_FIT_MAX - 1; i++)
    if (fl_fm_registry_fit(i)) {
      fl_fams.name[fl_fams.n] = fl_fm_registry_name(i);
      fl_fams.fit[fl_fams.n++] = fl_fm_registry_fit(i);
    }
  fl_fams.name[fl_fams.n] = "bursty";
  fl_fams.fit[fl_fams.n++] = NULL;
}

int fl_fit_families(void)
{
  fl_fams_init();
  return fl_fams.n;
}

const char *fl_fit_family_name(int f)
{
  fl_fams_init();
  return f >= 0 && f < fl_fams.n ? fl_fams.name[f] : "?";
}

int fl_fit_family_find(const char *name)
{
  fl_fams_init();
  for (int f = 0; name && f < fl_fams.n; f++)
    if (strcmp(fl_fams.name[f], name) == 0)
      return f;
  return -1;
}

int fl_fit_family_bursty(void)
{
  fl_fams_init();
  return fl_fams.n - 1;
}

void fl_fit_describe(const fl_fit_result *r, char *buf, size_t len)
{
  const fl_fm_fit *fit = r->family >= 0 && r->family < fl_fit_families() ? fl_fams.fit[r->family] : NULL;
  size_t at = 0;
  buf[0] = '\0';
  if (!fit) { /* the bursty process */
    if (r->nparam > 0)
      snprintf(buf, len, "mu 1/%.4gs  eta %.3g [%.3g, %.3g]  tau %.4gs [%.4g, %.4g]", 1.0 / r->p[0], r->p[1], r->lo[1],
               r->hi[1], r->p[2], r->lo[2], r->hi[2]);
    return;
  }
  for (int k = 0; k < 2 && at < len; k++)
    if (fit->label[k])
      at += (size_t)snprintf(buf + at, len - at, "%s%s %.4g%s [%.4g, %.4g]", at ? "  " : "", fit->label[k], r->p[k],
                             fit->unit[k] ? fit->unit[k] : "", r->lo[k], r->hi[k]);
  if (at == 0)
    snprintf(buf, len, "-");
}

void fl_fit_obs_free(fl_fit_obs *obs)
{
  free(obs->t);
  free(obs->cens);
  free(obs->times);
  memset(obs, 0, sizeof *obs);
}

typedef struct fl_pair {
  double t;
  unsigned char c;
} fl_pair;

static int fl_pair_cmp(const void *a, const void *b)
{
  const fl_pair *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (int)x->c - (int)y->c; /* failures before censorings at a tie (Kaplan-Meier's convention) */
}

static fl_err fl_fit_obs_take(fl_pair *v, size_t n, fl_fit_obs *obs)
{
  fl_err rc = FL_OK;
  qsort(v, n, sizeof *v, fl_pair_cmp);
  FL_ALLOC(obs->t, n);
  FL_ALLOC(obs->cens, n);
  obs->n = n;
  obs->nfail = 0;
  for (size_t i = 0; i < n; i++) {
    obs->t[i] = v[i].t;
    obs->cens[i] = v[i].c;
    obs->nfail += !v[i].c;
  }
done:
  return rc;
}

fl_err fl_fit_obs_from(const double *t, const unsigned char *cens, size_t n, fl_fit_obs *obs)
{
  fl_err rc = FL_OK;
  fl_pair *v = NULL;
  memset(obs, 0, sizeof *obs);
  obs->nodes = -1;
  FL_ALLOC(v, n);
  for (size_t i = 0; i < n; i++) {
    FL_CHECK(t[i] > 0 && isfinite(t[i]), FL_ERR_INPUT, "interval %zu: %g is not a positive time", i, t[i]);
    v[i].t = t[i];
    v[i].c = cens ? cens[i] : 0;
  }
  FL_TRY(fl_fit_obs_take(v, n, obs));
done:
  free(v);
  if (rc != FL_OK)
    fl_fit_obs_free(obs);
  return rc;
}

/* Records ordered by node, then file line (or time with --sort). */
typedef struct fl_rec_order {
  const fl_log *log;
  int by_time;
} fl_rec_order;
static int fl_rec_cmp(const void *a, const void *b, void *ctx)
{
  const fl_rec_order *o = ctx;
  const fl_log_rec *x = &o->log->rec[*(const size_t *)a], *y = &o->log->rec[*(const size_t *)b];
  int c = strcmp(x->node, y->node);
  if (c)
    return c;
  if (o->by_time && x->t_s != y->t_s)
    return x->t_s < y->t_s ? -1 : 1;
  return x->line - y->line;
}

static int fl_double_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

fl_err fl_fit_observe(const fl_log *log, const fl_fit_opts *opts, fl_fit_obs *obs)
{
  fl_err rc = FL_OK;
  size_t *idx = NULL, nv = 0, cap;
  fl_pair *v = NULL;
  double *times = NULL;
  double from = opts->from_s, to = opts->to_s, last = 0.0;
  long nodes = opts->nodes >= 0 ? opts->nodes : log->nodes, distinct = 0;

  memset(obs, 0, sizeof *obs);
  obs->nodes = -1;
  for (size_t i = 0; i < log->n; i++)
    if (log->rec[i].t_s > last)
      last = log->rec[i].t_s;
  if (isnan(from))
    from = 0.0;
  if (isnan(to))
    to = last;
  FL_CHECK(to > from, FL_ERR_INPUT, "%s: the observation window [%g s, %g s] is empty", log->path, from, to);
  obs->from_s = from;
  obs->to_s = to;

  /* every record: a known node (map, --nodes), in time order within its node */
  FL_ALLOC(idx, log->n);
  for (size_t i = 0; i < log->n; i++) {
    const fl_log_rec *r = &log->rec[i];
    idx[i] = i;
    if (opts->map && !fl_log_map_find(opts->map, r->node))
      FL_CHECK(0, FL_ERR_INPUT, "%s:%d: node '%s': not in the node map '%s'", log->path, r->line, r->node,
               opts->map_path);
    if (!opts->per_system && strchr(r->node, '*'))
      FL_CHECK(0, FL_ERR_INPUT, "%s:%d: the log does not say which node failed (fit --per system instead)", log->path,
               r->line);
    if (log->format == FL_LOG_CSV && nodes >= 0 && r->node[0] >= '0' && r->node[0] <= '9' &&
        strtol(r->node, NULL, 10) >= nodes)
      FL_CHECK(0, FL_ERR_INPUT, "%s:%d: node '%s': no such node (%ld nodes, 0-based)", log->path, r->line, r->node,
               nodes);
  }
  {
    fl_rec_order order = {.log = log, .by_time = opts->sort};
    qsort_r(idx, log->n, sizeof *idx, fl_rec_cmp, &order);
  }
  for (size_t k = 1; k < log->n; k++) {
    const fl_log_rec *a = &log->rec[idx[k - 1]], *b = &log->rec[idx[k]];
    if (strcmp(a->node, b->node) == 0 && b->t_s < a->t_s)
      FL_CHECK(0, FL_ERR_INPUT,
               "%s:%d: node '%s' fails at %.0f s, before its failure at %.0f s on line %d (records out of time "
               "order; fit --sort orders them)",
               log->path, b->line, b->node, b->t_s, a->t_s, a->line);
  }

  /* one observation per node that never failed, too: sized only after this check (a fuzzed log once declared
   * systems of billions of nodes, and the allocation of their observations failed) */
  FL_CHECK(nodes <= FL_LOG_MAX_NODES, FL_ERR_INPUT, "%s: %ld nodes (%s): a fit takes at most %ld", log->path, nodes,
           opts->nodes >= 0 ? "--nodes" : "the log's systems together", FL_LOG_MAX_NODES);
  cap = log->n + 1 + (nodes > 0 ? (size_t)nodes : 0);
  FL_ALLOC(v, cap);
  if (opts->per_system) {
    size_t m = 0;
    double prev = NAN;
    FL_ALLOC(times, log->n);
    for (size_t i = 0; i < log->n; i++)
      if (log->rec[i].t_s >= from && log->rec[i].t_s <= to)
        times[m++] = log->rec[i].t_s;
    qsort(times, m, sizeof *times, fl_double_cmp);
    for (size_t i = 0; i < m; i++) {
      if (i > 0 && times[i] == prev) {
        obs->coalesced++;
        continue;
      }
      if (i > 0) {
        v[nv].t = times[i] - prev;
        v[nv++].c = 0;
      }
      prev = times[i];
    }
    if (m > 0 && to > prev) {
      v[nv].t = to - prev;
      v[nv++].c = 1;
    }
    obs->nodes = nodes;
    /* the dates themselves, coalesced, for the bursty fit */
    obs->ntimes = 0;
    for (size_t i = 0; i < m; i++)
      if (i == 0 || times[i] != times[i - 1])
        times[obs->ntimes++] = times[i];
    obs->times = times;
    times = NULL;
  } else {
    size_t k = 0;
    while (k < log->n) {
      size_t e = k;
      double prev = NAN;
      int any = 0;
      while (e < log->n && strcmp(log->rec[idx[e]].node, log->rec[idx[k]].node) == 0)
        e++;
      for (size_t j = k; j < e; j++) {
        double t = log->rec[idx[j]].t_s;
        if (t < from || t > to)
          continue;
        if (any && t == prev) {
          obs->coalesced++;
          continue;
        }
        if (any) {
          v[nv].t = t - prev;
          v[nv++].c = 0;
        }
        prev = t;
        any = 1;
      }
      if (any) {
        distinct++;
        if (to > prev) {
          v[nv].t = to - prev;
          v[nv++].c = 1;
        }
      }
      k = e;
    }
    if (nodes >= 0) {
      FL_CHECK(distinct <= nodes, FL_ERR_INPUT, "%s: %ld distinct nodes fail in the window, but the system has %ld",
               log->path, distinct, nodes);
      for (long i = distinct; i < nodes; i++) {
        v[nv].t = to - from;
        v[nv++].c = 1;
      }
      obs->nodes = nodes;
    } else {
      obs->nodes = distinct;
    }
  }
  FL_TRY(fl_fit_obs_take(v, nv, obs));
  FL_CHECK(obs->nfail >= FL_FIT_MIN_FAILURES, FL_ERR_INPUT,
           "%s: %zu time%s between failures in the window; a fit needs at least %d (and a few hundred to tell the "
           "families apart)",
           log->path, obs->nfail, obs->nfail == 1 ? "" : "s", FL_FIT_MIN_FAILURES);
done:
  free(idx);
  free(v);
  free(times);
  if (rc != FL_OK)
    fl_fit_obs_free(obs);
  return rc;
}

/* The likelihood, on times divided by `scale` (conditioning); theta holds the law's unconstrained parameters. */
typedef struct fl_lik {
  const fl_fit_obs *obs;
  const fl_fm_fit *fit;
  double scale;
  double *lx; /* log(t / scale) */
} fl_lik;

static double fl_negll(const gsl_vector *theta, void *p)
{
  const fl_lik *L = p;
  const double x[2] = {gsl_vector_get(theta, 0), gsl_vector_get(theta, 1)};
  return L->fit->negll(x, L->lx, L->obs->cens, L->obs->n);
}

static double fl_mean_of(const fl_fm_fit *fit, double a, double b)
{
  const double x[2] = {a, b};
  return fit->mean(x);
}

static double fl_cdf(const fl_fit_result *r, double t)
{
  const fl_fm_fit *fit = fl_fams.fit[r->family];
  return fit ? fit->cdf(t, r->p) : NAN;
}

/* sup |F_fit - F_KM| over the failure times (both sides of each KM step). */
static double fl_ks(const fl_fit_obs *o, const fl_fit_result *r)
{
  double s = 1.0, d = 0.0;
  size_t i = 0, atrisk = o->n;
  while (i < o->n) {
    size_t j = i, fails = 0;
    while (j < o->n && o->t[j] == o->t[i]) {
      fails += !o->cens[j];
      j++;
    }
    if (fails > 0) {
      double F = fl_cdf(r, o->t[i]), before = 1.0 - s;
      s *= 1.0 - (double)fails / (double)atrisk;
      d = fmax(d, fmax(fabs(F - before), fabs(F - (1.0 - s))));
    }
    atrisk -= j - i;
    i = j;
  }
  return d;
}

/* The covariance of the log-transformed parameters at the optimum x: the inverse of the observed information (a
 * central-difference Hessian of the negative log-likelihood f, step 1e-3), inverted by GSL's LU. 0 when it is not
 * positive definite (cov then NAN). */
static int fl_covariance(double (*f)(const gsl_vector *, void *), void *params, const gsl_vector *x, gsl_matrix *cov)
{
  const double h = 1e-3;
  size_t n = x->size;
  int ok = 0, sign;
  double f0 = f(x, params);
  gsl_vector *t = gsl_vector_alloc(n);
  gsl_matrix *H = gsl_matrix_alloc(n, n);
  gsl_permutation *perm = gsl_permutation_alloc(n);
  gsl_matrix_set_all(cov, NAN);
  if (!t || !H || !perm)
    goto out;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i; j < n; j++) {
      double v;
      if (i == j) {
        double fp, fm;
        gsl_vector_memcpy(t, x);
        gsl_vector_set(t, i, gsl_vector_get(x, i) + h);
        fp = f(t, params);
        gsl_vector_set(t, i, gsl_vector_get(x, i) - h);
        fm = f(t, params);
        v = (fp - 2.0 * f0 + fm) / (h * h);
      } else {
        double q[4];
        for (int k = 0; k < 4; k++) {
          gsl_vector_memcpy(t, x);
          gsl_vector_set(t, i, gsl_vector_get(x, i) + ((k & 1) ? -h : h));
          gsl_vector_set(t, j, gsl_vector_get(x, j) + ((k & 2) ? -h : h));
          q[k] = f(t, params);
        }
        v = (q[0] - q[1] - q[2] + q[3]) / (4.0 * h * h);
      }
      gsl_matrix_set(H, i, j, v);
      gsl_matrix_set(H, j, i, v);
    }
  if (gsl_linalg_LU_decomp(H, perm, &sign) != GSL_SUCCESS || !(gsl_linalg_LU_det(H, sign) > 0) ||
      gsl_linalg_LU_invert(H, perm, cov) != GSL_SUCCESS)
    goto out;
  ok = 1;
  for (size_t i = 0; i < n; i++)
    ok &= gsl_matrix_get(cov, i, i) > 0;
  if (!ok)
    gsl_matrix_set_all(cov, NAN);
out:
  if (t)
    gsl_vector_free(t);
  if (H)
    gsl_matrix_free(H);
  if (perm)
    gsl_permutation_free(perm);
  return ok;
}

static fl_err fl_fit_bursty(const fl_fit_obs *o, fl_fit_result *r);

fl_err fl_fit_one(const fl_fit_obs *o, int fam, fl_fit_result *r)
{
  fl_err rc = FL_OK;
  fl_lik L = {.obs = o, .fit = NULL, .scale = 0.0, .lx = NULL};
  gsl_multimin_fminimizer *mz = NULL;
  gsl_vector *x = NULL, *step = NULL;
  gsl_matrix *cov = NULL;
  double sum = 0.0, mlx = 0.0, vlx = 0.0, mx = 0.0, vx = 0.0;
  size_t nf = 0;

  memset(r, 0, sizeof *r);
  r->family = fam;
  FL_CHECK(fam >= 0 && fam < fl_fit_families(), FL_ERR_INPUT, "no family %d to fit", fam);
  if (fam == fl_fit_family_bursty())
    return fl_fit_bursty(o, r);
  L.fit = fl_fams.fit[fam];
  FL_CHECK(o->nfail >= 2, FL_ERR_INPUT, "a fit needs at least 2 failures (%zu)", o->nfail);
  for (size_t i = 0; i < o->n; i++)
    sum += o->t[i];
  if (L.fit->nparam == 1) { /* the exponential: the MLE of the mean is closed-form */
    double m = sum / (double)o->nfail, z = 1.959963984540054 / sqrt((double)o->nfail);
    r->nparam = 1;
    r->p[0] = r->mean_s = m;
    r->lo[0] = r->mean_lo = m * exp(-z);
    r->hi[0] = r->mean_hi = m * exp(z);
    r->loglik = -(double)o->nfail * log(m) - sum / m;
    r->aic = 2.0 - 2.0 * r->loglik;
    r->ks = fl_ks(o, r);
    r->converged = 1;
    return FL_OK;
  }
  r->nparam = 2;
  L.scale = sum / (double)o->n;
  FL_ALLOC(L.lx, o->n);
  for (size_t i = 0; i < o->n; i++) {
    L.lx[i] = log(o->t[i] / L.scale);
    if (!o->cens[i]) {
      double xx = o->t[i] / L.scale;
      nf++;
      mlx += L.lx[i];
      vlx += L.lx[i] * L.lx[i];
      mx += xx;
      vx += xx * xx;
    }
  }
  mlx /= (double)nf;
  vlx = fmax(vlx / (double)nf - mlx * mlx, 1e-4);
  mx /= (double)nf;
  vx = fmax(vx / (double)nf - mx * mx, 1e-8);
  x = gsl_vector_alloc(2);
  step = gsl_vector_alloc(2);
  FL_CHECK(x && step, FL_ERR_NOMEM, "out of memory");
  /* start: moments of the failures (censoring only moves the optimum outwards) */
  {
    double x0[2];
    L.fit->start(mlx, vlx, mx, vx, x0);
    gsl_vector_set(x, 0, x0[0]);
    gsl_vector_set(x, 1, x0[1]);
  }
  {
    gsl_multimin_function fn = {.n = 2, .f = fl_negll, .params = &L};
    mz = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 2);
    FL_CHECK(mz != NULL, FL_ERR_NOMEM, "out of memory");
    for (int round = 0; round < 3; round++) { /* restart the simplex at the optimum: Nelder-Mead can stall */
      int status = GSL_CONTINUE;
      gsl_vector_set_all(step, round == 0 ? 0.5 : 0.05);
      FL_CHECK(isfinite(fl_negll(x, &L)), FL_ERR_INPUT, "%s fit: no starting point with a finite likelihood",
               fl_fit_family_name(fam));
      gsl_multimin_fminimizer_set(mz, &fn, x, step);
      for (int it = 0; it < 5000 && status == GSL_CONTINUE; it++) {
        if (gsl_multimin_fminimizer_iterate(mz) != GSL_SUCCESS)
          break;
        status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(mz), 1e-9);
      }
      gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(mz));
      r->converged |= status == GSL_SUCCESS; /* a later round may wander on the flat top: the first landing counts */
    }
  }
  {
    const double h = 1e-3; /* step of the mean's gradient */
    double f0 = fl_negll(x, &L), C[2][2], g[2], m0;
    cov = gsl_matrix_alloc(2, 2);
    FL_CHECK(cov != NULL, FL_ERR_NOMEM, "out of memory");
    if (!fl_covariance(fl_negll, &L, x, cov))
      r->converged = 0;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        C[i][j] = gsl_matrix_get(cov, (size_t)i, (size_t)j);
    {
      double a = gsl_vector_get(x, 0), b = gsl_vector_get(x, 1), ls = log(L.scale), z = 1.959963984540054;
      const double xa[2] = {a, b}, se[2] = {sqrt(C[0][0]), sqrt(C[1][1])};
      /* back to seconds: the law says which parameters move by the conditioning factor */
      L.fit->params(xa, se, ls, z, r->p, r->lo, r->hi);
      m0 = fl_mean_of(L.fit, a, b);
      g[0] = (log(fl_mean_of(L.fit, a + h, b)) - log(fl_mean_of(L.fit, a - h, b))) / (2 * h);
      g[1] = (log(fl_mean_of(L.fit, a, b + h)) - log(fl_mean_of(L.fit, a, b - h))) / (2 * h);
      {
        double var = g[0] * g[0] * C[0][0] + 2 * g[0] * g[1] * C[0][1] + g[1] * g[1] * C[1][1];
        r->mean_s = m0 * L.scale;
        r->mean_lo = r->mean_s * exp(-z * sqrt(var));
        r->mean_hi = r->mean_s * exp(z * sqrt(var));
      }
    }
    /* log-likelihood in seconds: each density picks up 1/scale */
    r->loglik = -f0 - (double)o->nfail * log(L.scale);
    r->aic = 2.0 * r->nparam - 2.0 * r->loglik;
  }
  r->ks = fl_ks(o, r);
done:
  if (mz)
    gsl_multimin_fminimizer_free(mz);
  if (x)
    gsl_vector_free(x);
  if (step)
    gsl_vector_free(step);
  if (cov)
    gsl_matrix_free(cov);
  free(L.lx);
  return rc;
}

/* Hawkes likelihood on dates scaled by `scale`: theta = (log mu, logit eta, log tau). */
typedef struct fl_hawkes {
  const double *x; /* scaled dates */
  size_t n;
  double T; /* scaled end of the window */
} fl_hawkes;

static double fl_hawkes_negll(const gsl_vector *theta, void *p)
{
  const fl_hawkes *h = p;
  double mu = exp(gsl_vector_get(theta, 0)), eta = 1.0 / (1.0 + exp(-gsl_vector_get(theta, 1)));
  double tau = exp(gsl_vector_get(theta, 2)), A = 0.0, ll = 0.0, comp;
  if (!(tau > 1e-12) || !(tau < 1e12) || !(mu > 0))
    return GSL_POSINF;
  comp = mu * (h->T - h->x[0]);
  for (size_t i = 0; i < h->n; i++) {
    if (i > 0) {
      A = exp(-(h->x[i] - h->x[i - 1]) / tau) * (1.0 + A);
      ll += log(mu + eta / tau * A);
    }
    comp += eta * -expm1(-(h->T - h->x[i]) / tau);
  }
  ll -= comp;
  return isfinite(ll) ? -ll : GSL_POSINF;
}

/* The compensator between consecutive dates (time-rescaling): Exp(1) gaps if the model is right. */
static double fl_hawkes_ks(const fl_hawkes *h, double mu, double eta, double tau)
{
  size_t m = h->n > 1 ? h->n - 1 : 0;
  double *g = malloc((m ? m : 1) * sizeof *g), A = 0.0, d = 0.0;
  if (!g)
    return NAN;
  for (size_t i = 1; i < h->n; i++) {
    double dt = h->x[i] - h->x[i - 1];
    /* integral over (x_{i-1}, x_i] of mu + eta/tau * sum exp: mu dt + eta (1 + A_{i-1}) (1 - e^{-dt/tau}) */
    g[i - 1] = mu * dt + eta * (1.0 + A) * -expm1(-dt / tau);
    A = exp(-dt / tau) * (1.0 + A);
  }
  qsort(g, m, sizeof *g, fl_double_cmp);
  for (size_t i = 0; i < m; i++) {
    double F = -expm1(-g[i]);
    d = fmax(d, fmax(fabs(F - (double)i / (double)m), fabs(F - (double)(i + 1) / (double)m)));
  }
  free(g);
  return d;
}

static fl_err fl_fit_bursty(const fl_fit_obs *o, fl_fit_result *r)
{
  fl_err rc = FL_OK;
  double scale, *x = NULL, best = GSL_POSINF, f0;
  fl_hawkes h;
  gsl_multimin_fminimizer *mz = NULL;
  gsl_vector *th = NULL, *step = NULL, *bx = NULL;
  gsl_matrix *C = NULL;
  static const double tau0[] = {0.05, 0.3, 2.0};

  r->nparam = 3;
  FL_CHECK(o->times && o->ntimes >= FL_FIT_MIN_FAILURES, FL_ERR_INPUT,
           "the bursty model is fitted to a system's failure dates (fit --per system)");
  scale = (o->to_s - o->times[0]) / (double)o->ntimes;
  FL_CHECK(scale > 0, FL_ERR_INPUT, "bursty fit: an empty window");
  FL_ALLOC(x, o->ntimes);
  for (size_t i = 0; i < o->ntimes; i++)
    x[i] = o->times[i] / scale;
  h = (fl_hawkes){.x = x, .n = o->ntimes, .T = o->to_s / scale};
  th = gsl_vector_alloc(3);
  step = gsl_vector_alloc(3);
  bx = gsl_vector_alloc(3);
  mz = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 3);
  FL_CHECK(th && step && bx && mz, FL_ERR_NOMEM, "out of memory");
  {
    gsl_multimin_function fn = {.n = 3, .f = fl_hawkes_negll, .params = &h};
    for (size_t s0 = 0; s0 < sizeof tau0 / sizeof tau0[0]; s0++) {
      int status = GSL_CONTINUE;
      gsl_vector_set(th, 0, log(0.7));
      gsl_vector_set(th, 1, log(0.3 / 0.7));
      gsl_vector_set(th, 2, log(tau0[s0]));
      for (int round = 0; round < 2; round++) {
        gsl_vector_set_all(step, round == 0 ? 0.5 : 0.05);
        gsl_multimin_fminimizer_set(mz, &fn, th, step);
        status = GSL_CONTINUE;
        for (int it = 0; it < 5000 && status == GSL_CONTINUE; it++) {
          if (gsl_multimin_fminimizer_iterate(mz) != GSL_SUCCESS)
            break;
          status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(mz), 1e-8);
        }
        gsl_vector_memcpy(th, gsl_multimin_fminimizer_x(mz));
      }
      if (gsl_multimin_fminimizer_minimum(mz) < best) {
        best = gsl_multimin_fminimizer_minimum(mz);
        gsl_vector_memcpy(bx, th);
        r->converged = status == GSL_SUCCESS;
      }
    }
  }
  C = gsl_matrix_alloc(3, 3);
  FL_CHECK(C != NULL, FL_ERR_NOMEM, "out of memory");
  f0 = fl_hawkes_negll(bx, &h);
  {
    double se[3], z = 1.959963984540054, mu, eta, tau;
    if (!fl_covariance(fl_hawkes_negll, &h, bx, C))
      r->converged = 0;
    for (int i = 0; i < 3; i++)
      se[i] = sqrt(gsl_matrix_get(C, (size_t)i, (size_t)i));
    mu = exp(gsl_vector_get(bx, 0)) / scale;
    eta = 1.0 / (1.0 + exp(-gsl_vector_get(bx, 1)));
    tau = exp(gsl_vector_get(bx, 2)) * scale;
    r->p[0] = mu;
    r->lo[0] = mu * exp(-z * se[0]);
    r->hi[0] = mu * exp(z * se[0]);
    r->p[1] = eta;
    r->lo[1] = 1.0 / (1.0 + exp(-(gsl_vector_get(bx, 1) - z * se[1])));
    r->hi[1] = 1.0 / (1.0 + exp(-(gsl_vector_get(bx, 1) + z * se[1])));
    r->p[2] = tau;
    r->lo[2] = tau * exp(-z * se[2]);
    r->hi[2] = tau * exp(z * se[2]);
    r->mean_s = (1.0 - eta) / mu; /* the stationary rate is mu / (1 - eta) */
    r->mean_lo = r->mean_hi = NAN;
    r->loglik = -f0 - (double)(o->ntimes - 1) * log(scale);
    r->aic = 2.0 * r->nparam - 2.0 * r->loglik;
    r->ks = fl_hawkes_ks(&h, exp(gsl_vector_get(bx, 0)), eta, exp(gsl_vector_get(bx, 2)));
  }
done:
  if (mz)
    gsl_multimin_fminimizer_free(mz);
  if (th)
    gsl_vector_free(th);
  if (step)
    gsl_vector_free(step);
  if (bx)
    gsl_vector_free(bx);
  if (C)
    gsl_matrix_free(C);
  free(x);
  return rc;
}

fl_err fl_fit_all(const fl_fit_obs *o, fl_fit_result r[FL_FIT_MAX], int *best)
{
  fl_err rc = FL_OK;
  int b = -1, nf = fl_fit_families();
  for (int f = 0; f < nf; f++) {
    if (f == fl_fit_family_bursty() && !o->times) {
      memset(&r[f], 0, sizeof r[f]); /* nparam 0: not fitted */
      r[f].family = f;
      continue;
    }
    FL_TRY(fl_fit_one(o, f, &r[f]));
    if (b < 0 || r[f].aic < r[b].aic)
      b = f;
  }
  /* parsimony: a family with fewer parameters within 2 AIC units wins (the fewest of those) */
  for (int f = 0; f < nf; f++)
    if (r[f].nparam > 0 && r[f].nparam < r[b].nparam && r[f].aic <= r[b].aic + 2.0)
      b = f;
  *best = b;
done:
  return rc;
}

void fl_fit_print_section(const fl_fit_result *r, double scale_nodes, FILE *f)
{
  const fl_fm_fit *fit;
  if (r->family == fl_fit_family_bursty()) {
    fprintf(f, "[failures]\nmodel = exponential\nnode_mtbf = %.6gs\nburst_ratio = %.4g\nburst_time = %.6gs\n",
            scale_nodes / r->p[0], fmin(r->p[1], 0.95), r->p[2]);
    return;
  }
  fprintf(f, "[failures]\nmodel = %s\nnode_mtbf = %.6gs\n", fl_fit_family_name(r->family), r->mean_s * scale_nodes);
  fit = fl_fams.fit[r->family];
  for (int k = 0; k < 2; k++)
    if (fit->key[k])
      fprintf(f, "%s = %.4g\n", fit->key[k], r->p[k]);
}
