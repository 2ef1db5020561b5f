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
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>

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
const fl_fm_ops fl_fm_exponential_ops = {
    .cumhazard = fl_fm_exp_cumh,
    .name = "exponential",
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
  if (!(sc->shape >= 0.05 && sc->shape <= 50.0))
    return fl_scenario_fail(sc, "failures", "shape", "Weibull shape must lie in [0.05, 50]");
  fm->shape = sc->shape;
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
const fl_fm_ops fl_fm_weibull_ops = {
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
  if (!(sc->sigma > 0 && sc->sigma <= 5.0))
    return fl_scenario_fail(sc, "failures", "sigma", "log-normal sigma must lie in (0, 5]");
  fm->sigma = sc->sigma;
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
const fl_fm_ops fl_fm_lognormal_ops = {
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
  if (!(sc->shape >= 0.05 && sc->shape <= 50.0))
    return fl_scenario_fail(sc, "failures", "shape", "gamma shape must lie in [0.05, 50]");
  fm->shape = sc->shape;
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
const fl_fm_ops fl_fm_gamma_ops = {
    .cumhazard = fl_fm_gamma_cumh,
    .name = "gamma",
    .setup = fl_fm_gamma_setup,
    .draw = fl_fm_gamma_draw,
    .draw_residual = fl_fm_gamma_residual,
    .mean = fl_fm_mean_s,
    .variance = fl_fm_gamma_var,
};
