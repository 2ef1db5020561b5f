/* buddy.c — in-memory buddy checkpoints (GPI CP, the 004 seed; SCR's partner level): each rank's copy lives in
 * the memory of its buddy (the next rank, or its pair). Cheap to write; lost when a rank and its buddy both
 * fail before the next commit, and then, with nothing else written, the job starts over. */
#include "strategy.h"

static const fl_strategy_key fl_buddy_keys[] = {FL_STRAT_CKPT_KEYS, {NULL, 0, NULL}};

static fl_err fl_buddy_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  (void)sc;
  run->levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY);
  return FL_OK;
}

const fl_strategy_ops fl_strategy_buddy = {
    .name = "buddy",
    .summary = "checkpoints in a buddy's memory; a rank and its buddy failing together restart from scratch",
    .keys = fl_buddy_keys,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_buddy_setup,
};
