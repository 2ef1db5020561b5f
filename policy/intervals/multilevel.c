/* multilevel.c — strategy.interval = multilevel: the periods of several checkpoint levels, each priced with the
 * failures it is the cheapest to recover (Benoit et al. 2017; policy/interval.h, fl_pol_interval_levels, planned by
 * the strategy layer). With one level it is Young's rule. */
#include "interval.h"
#include "rule.h"

static double fl_multilevel_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return fl_pol_interval_young(delta_s, mtbf_s);
}

const fl_interval_rule fl_interval_rule_multilevel = {
    .name = "multilevel",
    .doc = "the periods of every level of strategy.kind = multilevel (LEVEL:auto), first order; one level: young",
    .needs = FL_IRULE_LEVELS,
    .by_mtbf = 1,
    .plans_levels = 1,
    .tau = fl_multilevel_tau,
};
