/* registries.c — see registries.h. Here because apps sit above the other registries: an app's run brings a
 * strategy (policy/strategies) and a failure law (sim/failure_models) together. */
#include "registries.h"

#include "app.h"
#include "fm.h"
#include "grid_keys.h"
#include "rule.h"
#include "sched_keys.h"
#include "strategy.h"

/* Register one entry's set, when it declares one (a set several entries share is registered once). */
static fl_err fl_registries_add(const fl_keyset *set)
{
  return set ? fl_scenario_register(set) : FL_OK;
}

fl_err fl_registries_init(void)
{
  fl_err rc = FL_OK;
  for (int i = 0; i < fl_strat_count(); i++)
    FL_TRY(fl_registries_add(fl_strat_at(i)->options));
  for (int i = 0; i < fl_fm_registry_count(); i++)
    FL_TRY(fl_registries_add(fl_fm_registry_options(i)));
  fl_app_freeze(); /* the kinds engines registered (fl_app_register) are in: their keys too */
  for (int i = 0; i < fl_app_count(); i++)
    FL_TRY(fl_registries_add(fl_app_at(i)->options));
  FL_TRY(fl_registries_add(&fl_sched_keys));        /* app.scheduler: the workload's and the workflow's */
  FL_TRY(fl_registries_add(&fl_strat_common_keys)); /* strategy.file_cost, flush*, verify*: every strategy's */
  FL_TRY(fl_registries_add(&fl_grid_keys));
  fl_scenario_interval_rules(fl_interval_rule_known);
  /* strategy.interval's words: policy/intervals' registry */ /* app.grid, iterations, tolerance: the grid world's,
                                                                 cg's, lossy-cg's */
done:
  return rc;
}
