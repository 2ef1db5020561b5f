/* alternate.c — a strategy added as a contributor would (tests/extend/extend.sh drops it into
 * policy/strategies/ of a copy of the project and adds one line to FL_STRATEGY_LIST): odd checkpoints to the
 * buddy level, even ones to the file level. The interval rule prices the buddy level; a file-level checkpoint
 * costs strategy.file_cost. */
#include "strategy.h"

static const fl_strategy_key fl_alternate_keys[] = {
    FL_STRAT_CKPT_KEYS,
    {"strategy.file_cost", FL_SHAPE_RANKS, "the cost of a file-level checkpoint (the simulator's)"},
    {NULL, 0, NULL},
};

static fl_err fl_alternate_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  run->levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE);
  run->file_every = 2;
  run->delta_s[FL_LEVEL_FILE] = sc->file_cost_s;
  return FL_OK;
}

static fl_level fl_alternate_level(const fl_strategy_run *run, long k)
{
  (void)run;
  return k % 2 == 0 ? FL_LEVEL_FILE : FL_LEVEL_BUDDY;
}

const fl_strategy_ops fl_strategy_alternate = {
    .name = "alternate",
    .summary = "odd checkpoints to the buddy's memory, even ones to files",
    .keys = fl_alternate_keys,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_alternate_setup,
    .level = fl_alternate_level,
};
