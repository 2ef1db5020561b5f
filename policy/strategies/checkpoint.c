/* checkpoint.c — coordinated checkpoint/restart to files (a node-local disk or the parallel file system, through
 * storage/ckpt in the real engine): every rank writes its state at the interval the rule gives; a failure rolls
 * every rank back to the newest complete version. The model behind Young's and Daly's intervals. */
#include "strategy.h"

static const fl_strategy_key fl_checkpoint_keys[] = {FL_STRAT_CKPT_KEYS, {NULL, 0, NULL}};

static fl_err fl_checkpoint_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  (void)sc;
  run->levels = FL_LEVEL_BIT(FL_LEVEL_FILE);
  return FL_OK;
}

const fl_strategy_ops fl_strategy_checkpoint = {
    .name = "checkpoint",
    .summary = "coordinated checkpoints to files; a failure rolls back to the newest",
    .keys = fl_checkpoint_keys,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_checkpoint_setup,
};
