/* young.c — strategy.interval = young: tau = sqrt(2 delta M) (Young 1974; policy/interval.h). */
#include "interval.h"
#include "rule.h"

static double fl_young_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return fl_pol_interval_young(delta_s, mtbf_s);
}

const fl_interval_rule fl_interval_rule_young = {
    .name = "young",
    .doc = "Young's first-order interval, sqrt(2 x checkpoint cost x job MTBF)",
    .by_mtbf = 1,
    .silent = 1,
    .coop = 1,
    .tau = fl_young_tau,
};
