/* registries.c — see registries.h. Here because apps sit above the other registries: an app's run brings a
 * strategy (policy/strategies) and a failure law (sim/failure_models) together. */
#include "registries.h"

#include "app.h"
#include "fm.h"
#include "strategy.h"

fl_err fl_registries_init(void)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_strat_register_keys());
  FL_TRY(fl_fm_register_keys());
  FL_TRY(fl_app_register_keys());
done:
  return rc;
}
