/* renewal.c — the renewal laws: exponential, Weibull, log-normal, gamma (GSL), and `none`.
 *
 * Each is parameterised by its mean (the node MTBF) and, for Weibull and log-normal, its shape:
 *   Weibull(k, lambda):  lambda = M / Gamma(1 + 1/k);  Var = lambda^2 [Gamma(1 + 2/k) - Gamma(1 + 1/k)^2]
 *   log-normal(zeta, s): zeta = ln M - s^2 / 2;        Var = (e^{s^2} - 1) M^2
 * The stationary residual life is U * L where L is length-biased (density x f(x) / M):
 *   exponential: L ~ Gamma(2, M)            (so U * L ~ Exp(M), memoryless)
 *   Weibull:     L = lambda * G^{1/k}, G ~ Gamma(1 + 1/k, 1)
 *   log-normal:  L ~ log-normal(zeta + s^2, s) */
#include "fm_impl.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stddef.h>

/* The laws' shape keys: one set for the three laws with a shape (Weibull and gamma share failures.shape). */
typedef struct fl_renewal_opts {
  double shape; /* Weibull k, gamma a */
  double sigma; /* log-normal s */
} fl_renewal_opts;
static const fl_key fl_renewal_key_table[] = {
    {"failures", "shape", FL_K_REAL, offsetof(fl_renewal_opts, shape), FL_K_POS, "0.7", NULL,
     "Weibull shape k, or gamma shape a (< 1: a decreasing hazard, infant mortality)"},
    {"failures", "sigma", FL_K_REAL, offsetof(fl_renewal_opts, sigma), FL_K_POS, "1.0", NULL,
     "log-normal: standard deviation of ln(time to failure)"},
};
static const fl_keyset fl_renewal_options = {"failure models weibull, lognormal, gamma", sizeof(fl_renewal_opts),
                                             fl_renewal_key_table, FL_KEYS_N(fl_renewal_key_table), NULL};
#define FL_RENEWAL_OPTS(sc) ((const fl_renewal_opts *)fl_scenario_options((sc), &fl_renewal_options))

/* none */
static fl_err fl_fm_none_setup(fl_fm *fm, const fl_scenario *sc)
{
  (void)sc;
  fm->mean_s = INFINITY;
  return FL_OK;
}
static double fl_fm_inf(const fl_fm *fm)
{
  (void)fm;
  return INFINITY;
}
const fl_fm_ops fl_fm_none_ops = {
    .name = "none",
    .traits = FL_FM_NEVER,
    .setup = fl_fm_none_setup,
    .mean = fl_fm_inf,
    .variance = fl_fm_inf,
};

/* exponential */
static fl_err fl_fm_exp_setup(fl_fm *fm, const fl_scenario *sc)
{
  (void)sc;
  (void)fm;
  return FL_OK;
}
/* gsl_ran_exponential(r, mu), split: u = gsl_rng_uniform(r), time -mu log1p(-u), as GSL 2.7 computes it */
static double fl_fm_exp_uniform(gsl_rng *r)
{
  return gsl_rng_uniform(r);
}
static double fl_fm_exp_time(const fl_fm *fm, double u)
{
  return -fm->mean_s * log1p(-u);
}
static double fl_fm_exp_draw(const fl_fm *fm, gsl_rng *r)
{
  return fl_fm_exp_time(fm, fl_fm_exp_uniform(r));
}
static double fl_fm_mean_s(const fl_fm *fm)
{
  return fm->mean_s;
}
static double fl_fm_exp_var(const fl_fm *fm)
{
  return fm->mean_s * fm->mean_s;
}
static double fl_fm_exp_cumh(const fl_fm *fm, double t)
{
  return t / fm->mean_s;
}
/* fitted in closed form: the mean over the failures (analysis/fit.c) */
static double fl_fit_exp_cdf(double t, const double p[2])
{
  return gsl_cdf_exponential_P(t, p[0]);
}
static const fl_fm_fit fl_fm_exponential_fit = {.nparam = 1, .cdf = fl_fit_exp_cdf};

const fl_fm_ops fl_fm_exponential_ops = {
    .fit = &fl_fm_exponential_fit,
    .cumhazard = fl_fm_exp_cumh,
    .name = "exponential",
    .traits = FL_FM_MEMORYLESS,
    .setup = fl_fm_exp_setup,
    .draw = fl_fm_exp_draw,
    .draw_residual = fl_fm_exp_draw,
    .mean = fl_fm_mean_s,
    .variance = fl_fm_exp_var,
    .uniform = fl_fm_exp_uniform,
    .time_of = fl_fm_exp_time,
};

/* Weibull */
static fl_err fl_fm_weibull_setup(fl_fm *fm, const fl_scenario *sc)
{
  if (!(FL_RENEWAL_OPTS(sc)->shape >= 0.05 && FL_RENEWAL_OPTS(sc)->shape <= 50.0))
    return fl_scenario_fail(sc, "failures", "shape", "Weibull shape must lie in [0.05, 50]");
  fm->shape = FL_RENEWAL_OPTS(sc)->shape;
  fm->scale = fm->mean_s / gsl_sf_gamma(1.0 + 1.0 / fm->shape);
  return FL_OK;
}
/* gsl_ran_weibull(r, a, b), split: x = gsl_rng_uniform_pos(r), time a (-log x)^(1/b), as GSL 2.7 computes it */
static double fl_fm_weibull_uniform(gsl_rng *r)
{
  return gsl_rng_uniform_pos(r);
}
static double fl_fm_weibull_time(const fl_fm *fm, double x)
{
  return fm->scale * pow(-log(x), 1 / fm->shape);
}
static double fl_fm_weibull_draw(const fl_fm *fm, gsl_rng *r)
{
  return fl_fm_weibull_time(fm, fl_fm_weibull_uniform(r));
}
static double fl_fm_weibull_residual(const fl_fm *fm, gsl_rng *r)
{
  double g = gsl_ran_gamma(r, 1.0 + 1.0 / fm->shape, 1.0);
  return gsl_rng_uniform_pos(r) * fm->scale * pow(g, 1.0 / fm->shape);
}
static double fl_fm_weibull_var(const fl_fm *fm)
{
  double g1 = gsl_sf_gamma(1.0 + 1.0 / fm->shape), g2 = gsl_sf_gamma(1.0 + 2.0 / fm->shape);
  return fm->scale * fm->scale * (g2 - g1 * g1);
}
static double fl_fm_weibull_cumh(const fl_fm *fm, double t)
{
  return pow(t / fm->scale, fm->shape);
}
/* fitted over x = (log k, log lambda) of the scaled times */
static void fl_fit_weibull_start(double mlx, double vlx, double mx, double vx, double x[2])
{
  (void)mlx;
  (void)vx;
  x[0] = log(fmin(fmax(1.2 / sqrt(vlx), 0.05), 20.0));
  x[1] = log(fmax(mx, 1e-6));
}
static double fl_fit_weibull_negll(const double x[2], const double *lx, const unsigned char *cens, size_t n)
{
  double a = x[0], k = exp(a), logl = x[1], ll = 0.0;
  if (k > 1e3 || k < 1e-3)
    return GSL_POSINF;
  for (size_t i = 0; i < n; i++) {
    double u = lx[i] - logl, z = exp(k * u);
    ll += cens[i] ? -z : a + (k - 1.0) * u - logl - z;
  }
  return isfinite(ll) ? -ll : GSL_POSINF;
}
static double fl_fit_weibull_mean(const double x[2])
{
  return exp(x[1]) * gsl_sf_gamma(1.0 + 1.0 / exp(x[0]));
}
/* shape and scale: x[0] is log k, x[1] log lambda of the scaled times (the shape of a gamma likewise) */
static void fl_fit_shape_scale(const double x[2], const double se[2], double ls, double z, double p[2], double lo[2],
                               double hi[2])
{
  p[0] = exp(x[0]);
  lo[0] = exp(x[0] - z * se[0]);
  hi[0] = exp(x[0] + z * se[0]);
  p[1] = exp(x[1] + ls);
  lo[1] = exp(x[1] + ls - z * se[1]);
  hi[1] = exp(x[1] + ls + z * se[1]);
}
static double fl_fit_weibull_cdf(double t, const double p[2])
{
  return gsl_cdf_weibull_P(t, p[1], p[0]);
}
static const fl_fm_fit fl_fm_weibull_fit = {.nparam = 2,
                                            .start = fl_fit_weibull_start,
                                            .negll = fl_fit_weibull_negll,
                                            .mean = fl_fit_weibull_mean,
                                            .params = fl_fit_shape_scale,
                                            .cdf = fl_fit_weibull_cdf,
                                            .label = {"shape", "scale"},
                                            .unit = {"", "s"},
                                            .key = {"shape", NULL}};

const fl_fm_ops fl_fm_weibull_ops = {
    .options = &fl_renewal_options,
    .fit = &fl_fm_weibull_fit,
    .cumhazard = fl_fm_weibull_cumh,
    .name = "weibull",
    .setup = fl_fm_weibull_setup,
    .draw = fl_fm_weibull_draw,
    .draw_residual = fl_fm_weibull_residual,
    .mean = fl_fm_mean_s,
    .variance = fl_fm_weibull_var,
    .uniform = fl_fm_weibull_uniform,
    .time_of = fl_fm_weibull_time,
    .decreasing = 1,
};

/* log-normal */
static fl_err fl_fm_lognormal_setup(fl_fm *fm, const fl_scenario *sc)
{
  if (!(FL_RENEWAL_OPTS(sc)->sigma > 0 && FL_RENEWAL_OPTS(sc)->sigma <= 5.0))
    return fl_scenario_fail(sc, "failures", "sigma", "log-normal sigma must lie in (0, 5]");
  fm->sigma = FL_RENEWAL_OPTS(sc)->sigma;
  fm->zeta = log(fm->mean_s) - 0.5 * fm->sigma * fm->sigma;
  return FL_OK;
}
static double fl_fm_lognormal_draw(const fl_fm *fm, gsl_rng *r)
{
  return gsl_ran_lognormal(r, fm->zeta, fm->sigma);
}
static double fl_fm_lognormal_residual(const fl_fm *fm, gsl_rng *r)
{
  return gsl_rng_uniform_pos(r) * gsl_ran_lognormal(r, fm->zeta + fm->sigma * fm->sigma, fm->sigma);
}
static double fl_fm_lognormal_var(const fl_fm *fm)
{
  return expm1(fm->sigma * fm->sigma) * fm->mean_s * fm->mean_s;
}
static double fl_fm_lognormal_cumh(const fl_fm *fm, double t)
{
  return t > 0 ? -log(gsl_cdf_lognormal_Q(t, fm->zeta, fm->sigma)) : 0.0;
}
/* fitted over x = (mu, log sigma) of the scaled times */
static void fl_fit_lognormal_start(double mlx, double vlx, double mx, double vx, double x[2])
{
  (void)mx;
  (void)vx;
  x[0] = mlx;
  x[1] = 0.5 * log(vlx);
}
static double fl_fit_lognormal_negll(const double x[2], const double *lx, const unsigned char *cens, size_t n)
{
  double mu = x[0], b = x[1], sd = exp(b), ll = 0.0;
  if (sd < 1e-6 || sd > 1e3)
    return GSL_POSINF;
  for (size_t i = 0; i < n; i++) {
    double u = (lx[i] - mu) / sd;
    ll += cens[i] ? gsl_sf_log_erfc(u / M_SQRT2) - M_LN2 : -lx[i] - b - 0.5 * log(2.0 * M_PI) - 0.5 * u * u;
  }
  return isfinite(ll) ? -ll : GSL_POSINF;
}
static double fl_fit_lognormal_mean(const double x[2])
{
  return exp(x[0] + 0.5 * exp(2.0 * x[1]));
}
static void fl_fit_lognormal_params(const double x[2], const double se[2], double ls, double z, double p[2],
                                    double lo[2], double hi[2])
{
  p[0] = x[0] + ls; /* mu moves by the conditioning factor */
  lo[0] = p[0] - z * se[0];
  hi[0] = p[0] + z * se[0];
  p[1] = exp(x[1]);
  lo[1] = exp(x[1] - z * se[1]);
  hi[1] = exp(x[1] + z * se[1]);
}
static double fl_fit_lognormal_cdf(double t, const double p[2])
{
  return gsl_cdf_lognormal_P(t, p[0], p[1]);
}
static const fl_fm_fit fl_fm_lognormal_fit = {.nparam = 2,
                                              .start = fl_fit_lognormal_start,
                                              .negll = fl_fit_lognormal_negll,
                                              .mean = fl_fit_lognormal_mean,
                                              .params = fl_fit_lognormal_params,
                                              .cdf = fl_fit_lognormal_cdf,
                                              .label = {"mu", "sigma"},
                                              .unit = {"", ""},
                                              .key = {NULL, "sigma"}};

const fl_fm_ops fl_fm_lognormal_ops = {
    .options = &fl_renewal_options,
    .fit = &fl_fm_lognormal_fit,
    .cumhazard = fl_fm_lognormal_cumh,
    .name = "lognormal",
    .setup = fl_fm_lognormal_setup,
    .draw = fl_fm_lognormal_draw,
    .draw_residual = fl_fm_lognormal_residual,
    .mean = fl_fm_mean_s,
    .variance = fl_fm_lognormal_var,
};

/* gamma(a, theta): theta = M / a; Var = a theta^2; length-biased L ~ gamma(a + 1, theta). */
static fl_err fl_fm_gamma_setup(fl_fm *fm, const fl_scenario *sc)
{
  if (!(FL_RENEWAL_OPTS(sc)->shape >= 0.05 && FL_RENEWAL_OPTS(sc)->shape <= 50.0))
    return fl_scenario_fail(sc, "failures", "shape", "gamma shape must lie in [0.05, 50]");
  fm->shape = FL_RENEWAL_OPTS(sc)->shape;
  fm->scale = fm->mean_s / fm->shape;
  return FL_OK;
}
static double fl_fm_gamma_draw(const fl_fm *fm, gsl_rng *r)
{
  return gsl_ran_gamma(r, fm->shape, fm->scale);
}
static double fl_fm_gamma_residual(const fl_fm *fm, gsl_rng *r)
{
  return gsl_rng_uniform_pos(r) * gsl_ran_gamma(r, fm->shape + 1.0, fm->scale);
}
static double fl_fm_gamma_var(const fl_fm *fm)
{
  return fm->shape * fm->scale * fm->scale;
}
static double fl_fm_gamma_cumh(const fl_fm *fm, double t)
{
  return t > 0 ? -log(gsl_cdf_gamma_Q(t, fm->shape, fm->scale)) : 0.0;
}
/* fitted over x = (log a, log theta) of the scaled times */
static void fl_fit_gamma_start(double mlx, double vlx, double mx, double vx, double x[2])
{
  (void)mlx;
  (void)vlx;
  x[0] = log(fmin(fmax(mx * mx / vx, 0.01), 100.0));
  x[1] = log(fmax(vx / mx, 1e-6));
}
static double fl_fit_gamma_negll(const double x[2], const double *lx, const unsigned char *cens, size_t n)
{
  double k = exp(x[0]), b = x[1], th = exp(b), lg = gsl_sf_lngamma(k), ll = 0.0;
  if (k > 1e3 || k < 1e-3)
    return GSL_POSINF;
  for (size_t i = 0; i < n; i++) {
    double t = exp(lx[i]);
    if (cens[i]) {
      gsl_sf_result q;
      if (gsl_sf_gamma_inc_Q_e(k, t / th, &q) != GSL_SUCCESS || !(q.val > 0))
        return GSL_POSINF;
      ll += log(q.val);
    } else {
      ll += (k - 1.0) * lx[i] - t / th - k * b - lg;
    }
  }
  return isfinite(ll) ? -ll : GSL_POSINF;
}
static double fl_fit_gamma_mean(const double x[2])
{
  return exp(x[0]) * exp(x[1]);
}
static double fl_fit_gamma_cdf(double t, const double p[2])
{
  return gsl_cdf_gamma_P(t, p[0], p[1]);
}
static const fl_fm_fit fl_fm_gamma_fit = {.nparam = 2,
                                          .start = fl_fit_gamma_start,
                                          .negll = fl_fit_gamma_negll,
                                          .mean = fl_fit_gamma_mean,
                                          .params = fl_fit_shape_scale,
                                          .cdf = fl_fit_gamma_cdf,
                                          .label = {"shape", "scale"},
                                          .unit = {"", "s"},
                                          .key = {"shape", NULL}};

const fl_fm_ops fl_fm_gamma_ops = {
    .options = &fl_renewal_options,
    .fit = &fl_fm_gamma_fit,
    .cumhazard = fl_fm_gamma_cumh,
    .name = "gamma",
    .setup = fl_fm_gamma_setup,
    .draw = fl_fm_gamma_draw,
    .draw_residual = fl_fm_gamma_residual,
    .mean = fl_fm_mean_s,
    .variance = fl_fm_gamma_var,
};
