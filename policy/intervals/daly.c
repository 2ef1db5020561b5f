/* daly.c — strategy.interval = daly: Daly's higher-order interval (Daly 2006, eq. 37; policy/interval.h). */
#include "interval.h"
#include "rule.h"

static double fl_daly_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return fl_pol_interval_daly(delta_s, mtbf_s);
}

const fl_interval_rule fl_interval_rule_daly = {
    .name = "daly",
    .doc = "Daly's higher-order interval (the default)",
    .by_mtbf = 1,
    .silent = 1,
    .coop = 2,
    .tau = fl_daly_tau,
};
