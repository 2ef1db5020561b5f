/* uniform.c — a failure model added as a contributor would (tests/extend/extend.sh drops it into
 * sim/failure_models/ of a copy of the project and adds one line to FL_FM_LIST): a node's time to failure is
 * uniform on [0, 2 node_mtbf] (GSL's flat distribution), a renewal law. */
#include "fm_impl.h"

#include <gsl/gsl_randist.h>
#include <math.h>

static fl_err fl_uniform_setup(fl_fm *fm, const fl_scenario *sc)
{
  if (!(isfinite(sc->node_mtbf_s) && sc->node_mtbf_s > 0))
    return fl_scenario_fail(sc, "failures", "node_mtbf", "the uniform law needs a finite MTBF");
  fm->mean_s = sc->node_mtbf_s;
  return FL_OK;
}

static double fl_uniform_draw(const fl_fm *fm, gsl_rng *r)
{
  return gsl_ran_flat(r, 0.0, 2.0 * fm->mean_s);
}

/* the time to the next failure of a node that has been up a uniformly chosen while: the stationary residual of a
 * uniform law on [0, b] has density 2 (b - x) / b^2, drawn by inversion */
static double fl_uniform_residual(const fl_fm *fm, gsl_rng *r)
{
  double b = 2.0 * fm->mean_s;
  return b * (1.0 - sqrt(1.0 - gsl_rng_uniform(r)));
}

static double fl_uniform_mean(const fl_fm *fm)
{
  return fm->mean_s;
}

static double fl_uniform_variance(const fl_fm *fm)
{
  double b = 2.0 * fm->mean_s;
  return b * b / 12.0;
}

static double fl_uniform_cumhazard(const fl_fm *fm, double age_s)
{
  double b = 2.0 * fm->mean_s;
  return age_s >= b ? INFINITY : -log1p(-age_s / b);
}

const fl_fm_ops fl_fm_uniform_ops = {
    .name = "uniform",
    .setup = fl_uniform_setup,
    .draw = fl_uniform_draw,
    .draw_residual = fl_uniform_residual,
    .mean = fl_uniform_mean,
    .variance = fl_uniform_variance,
    .cumhazard = fl_uniform_cumhazard,
};
