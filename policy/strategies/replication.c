/* replication.c — replication. Of ranks (Ferreira et al., SC'11): `degree` copies of every rank compute the same
 * data on distinct nodes; a failure is masked while a copy of every rank lives, and only the death of all copies
 * of one rank interrupts the job, which then rolls back to its checkpoint level (files, at the interval the rule
 * gives with the MNFTI-stretched MTBF) or starts over. Of tasks (the grid world, seed 002): a failed task is
 * re-executed on a live spare. */
#include "strategy.h"

#include <stddef.h>

typedef struct fl_replication_opts {
  long degree; /* copies of every rank */
} fl_replication_opts;

static const fl_key fl_replication_key_table[] = {
    {"strategy", "degree", FL_K_COUNT, offsetof(fl_replication_opts, degree), FL_K_POS, "2", NULL,
     "replication (bsp): copies of every rank, 2 or 3; the job stops when all copies of a rank are dead"},
};
static const fl_keyset fl_replication_options = {"strategy replication", sizeof(fl_replication_opts),
                                                 fl_replication_key_table, FL_KEYS_N(fl_replication_key_table), NULL};

static const fl_strategy_key fl_replication_keys[] = {
    FL_STRAT_CKPT_KEYS,
    {"strategy.degree", FL_SHAPE_RANKS, "copies of every rank (2 or 3)"},
    {NULL, 0, NULL},
};

static fl_err fl_replication_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  const fl_replication_opts *o = fl_scenario_options(sc, &fl_replication_options);
  if (run->caps->shape == FL_SHAPE_TASKS)
    return FL_OK; /* re-execution: no copies, no checkpoint; fl_strat_decide_tasks' default re-executes all */
  if (o->degree < 2 || o->degree > 3)
    return fl_scenario_fail(sc, "strategy", "degree", "replication runs 2 or 3 copies of every rank");
  run->degree = o->degree;
  run->levels = FL_LEVEL_BIT(FL_LEVEL_FILE);
  return FL_OK;
}

static fl_recovery fl_replication_on_failure(const fl_strategy_run *run, const fl_failure_view *f)
{
  if (f->copies_left > 0)
    return (fl_recovery){.action = FL_ACT_CONTINUE, .level = FL_LEVEL_SCRATCH, .version = -1};
  return fl_strat_rollback_newest(run, f);
}

const fl_strategy_ops fl_strategy_replication = {
    .name = "replication",
    .summary = "ranks: degree copies, a failure is masked until every copy of a rank is dead; tasks: re-execute",
    .keys = fl_replication_keys,
    .options = &fl_replication_options,
    .shapes = FL_SHAPE_RANKS | FL_SHAPE_TASKS,
    .setup = fl_replication_setup,
    .on_failure = fl_replication_on_failure,
};
