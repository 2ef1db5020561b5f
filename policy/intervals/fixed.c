/* fixed.c — strategy.interval = a duration: that much compute between two checkpoints, whatever the cost and the
 * failures. */
#include "rule.h"

static double fl_fixed_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)delta_s, (void)mtbf_s;
  return fixed_s;
}

const fl_interval_rule fl_interval_rule_fixed = {
    .name = "fixed",
    .doc = "a duration (600s, 11min): the compute between two checkpoints",
    .tau = fl_fixed_tau,
};
