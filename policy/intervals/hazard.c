/* hazard.c — strategy.interval = hazard: Young's rule with the job's current failure rate in place of its mean
 * (lazy checkpointing; policy/interval.h, fl_pol_interval_hazard). Between the engine's evaluations, and until the
 * first, Young's interval stands; the engine asks before every interval (next), with the job's expected failures
 * from its nodes' ages. */
#include "interval.h"
#include "rule.h"

static double fl_hazard_tau(double delta_s, double mtbf_s, double fixed_s)
{
  (void)fixed_s;
  return fl_pol_interval_young(delta_s, mtbf_s);
}

static double fl_hazard_next(const fl_irule_step *step)
{
  return fl_pol_interval_hazard(step->delta_s, step->expected, step->ctx, step->left_s);
}

const fl_interval_rule fl_interval_rule_hazard = {
    .name = "hazard",
    .doc = "Young's rule with the job's current failure rate (its nodes' ages under a renewal law)",
    .needs = FL_IRULE_HAZARD,
    .by_mtbf = 1,
    .tau = fl_hazard_tau,
    .next = fl_hazard_next,
};
