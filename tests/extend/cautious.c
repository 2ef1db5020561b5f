/* cautious.c — an interval rule added as one file and one line (tests/extend/extend.sh): half of Young's interval
 * at the start and after every failure, growing by a quarter of Young's with each failure-free interval, up to
 * Young's: a job that would rather lose less work right after a failure, when failures come in bursts. It adapts
 * as the run goes (next), so it runs only where the engine asks before every interval; the others refuse it. */
#include "interval.h"
#include "rule.h"

#include <math.h>

static double fl_cautious_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return 0.5 * fl_pol_interval_young(delta_s, mtbf_s);
}

static double fl_cautious_next(const fl_irule_step *step)
{
  return step->tau_s * fmin(2.0, 1.0 + 0.5 * (double)step->clean);
}

const fl_interval_rule fl_interval_rule_cautious = {
    .name = "cautious",
    .doc = "half of Young's interval after a failure, growing back to Young's",
    .by_mtbf = 1,
    .tau = fl_cautious_tau,
    .next = fl_cautious_next,
};
