/* hazard.c — strategy.interval = hazard: Young's rule with the job's current failure rate in place of its mean
 * (lazy checkpointing; policy/interval.h, fl_pol_interval_hazard). Between the engine's evaluations, and until the
 * first, Young's interval stands. */
#include "interval.h"
#include "rule.h"

static double fl_hazard_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return fl_pol_interval_young(delta_s, mtbf_s);
}

const fl_interval_rule fl_interval_rule_hazard = {
    .name = "hazard",
    .doc = "Young's rule with the job's current failure rate (its nodes' ages under a renewal law)",
    .needs = FL_IRULE_HAZARD,
    .by_mtbf = 1,
    .tau = fl_hazard_tau,
};
