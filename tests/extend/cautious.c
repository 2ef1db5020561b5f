/* cautious.c — an interval rule added as one file and one line (tests/extend/extend.sh): half of Young's interval,
 * for a job that would rather lose less work than write less. */
#include "interval.h"
#include "rule.h"

static double fl_cautious_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return 0.5 * fl_pol_interval_young(delta_s, mtbf_s);
}

const fl_interval_rule fl_interval_rule_cautious = {
    .name = "cautious",
    .doc = "half of Young's interval",
    .by_mtbf = 1,
    .tau = fl_cautious_tau,
};
