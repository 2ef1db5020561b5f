/* none.c — no protection: no checkpoint, no copy; a failure of a rank starts the job over from its initial state.
 * The smallest strategy, and the worked example of docs/architecture.md. */
#include "strategy.h"

static const fl_strategy_key fl_none_keys[] = {
    {"strategy.restart_cost", FL_SHAPE_RANKS, "R: starting the job again (the simulator's)"},
    {"strategy.downtime", FL_SHAPE_RANKS, "D: between an interruption and the restart (the simulator's)"},
    {NULL, 0, NULL},
};

static fl_err fl_none_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  (void)sc;
  run->levels = 0; /* nothing written: fl_strat_on_failure's default rule finds no level and restarts */
  return FL_OK;
}

const fl_strategy_ops fl_strategy_none = {
    .name = "none",
    .summary = "no protection: a failure restarts the job from scratch",
    .keys = fl_none_keys,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_none_setup,
};
