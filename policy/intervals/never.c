/* never.c — strategy.interval = never: no checkpoint (a strategy's levels are kept, never written). */
#include "rule.h"

#include <math.h>

static double fl_never_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)delta_s, (void)mtbf_s, (void)fixed_s;
  return INFINITY;
}

const fl_interval_rule fl_interval_rule_never = {
    .name = "never",
    .doc = "no checkpoint",
    .none = 1,
    .tau = fl_never_tau,
};
