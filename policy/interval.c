/* interval.c — Young's and Daly's checkpoint intervals (formulas in interval.h).
 * J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974.
 * J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS 22, 2006. */
#include "interval.h"

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

const char *fl_pol_interval_name(fl_interval_kind kind)
{
  switch (kind) {
  case FL_INTERVAL_YOUNG: return "young";
  case FL_INTERVAL_DALY: return "daly";
  case FL_INTERVAL_FIXED: return "fixed";
  case FL_INTERVAL_NEVER: return "never";
  }
  return "?";
}

fl_err fl_pol_interval(const fl_scenario *sc, double job_mtbf_s, double *tau_s)
{
  double tau;
  if (sc->interval_kind == FL_INTERVAL_FIXED) {
    *tau_s = sc->interval_s;
    return FL_OK;
  }
  if (sc->interval_kind == FL_INTERVAL_NEVER) {
    *tau_s = INFINITY;
    return FL_OK;
  }
  if (!isfinite(job_mtbf_s) || job_mtbf_s <= 0)
    return fl_scenario_fail(sc, "strategy", "interval",
                            "%s needs a finite MTBF, but failures.model = '%s' gives none; give a duration",
                            fl_pol_interval_name(sc->interval_kind), sc->model);
  tau = sc->interval_kind == FL_INTERVAL_YOUNG ? fl_pol_interval_young(sc->checkpoint_cost_s, job_mtbf_s)
                                               : fl_pol_interval_daly(sc->checkpoint_cost_s, job_mtbf_s);
  if (!(tau > 0))
    return fl_scenario_fail(sc, "strategy", "checkpoint_cost",
                            "the %s interval is %g s for this cost and an MTBF of %g s; give a positive cost or a "
                            "duration",
                            fl_pol_interval_name(sc->interval_kind), tau, job_mtbf_s);
  *tau_s = tau;
  return FL_OK;
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
