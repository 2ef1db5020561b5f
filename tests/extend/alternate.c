/* alternate.c — a strategy added as a contributor would (tests/extend/extend.sh drops it into
 * policy/strategies/ of a copy of the project and adds one line to FL_STRATEGY_LIST): checkpoints alternate
 * between the buddy level and the file level, one in every strategy.alternate_period to files. The key is the
 * strategy's own (core/keys.h): declared here, parsed into fl_alternate_opts, checked here. The interval rule
 * prices the buddy level; a file-level checkpoint costs strategy.file_cost. */
#include "strategy.h"

#include <stddef.h>

typedef struct fl_alternate_opts {
  long period; /* one checkpoint in this many to files */
} fl_alternate_opts;

static fl_err fl_alternate_check(const fl_scenario *sc, const void *opts)
{
  const fl_alternate_opts *o = opts;
  if (o->period < 2)
    return fl_scenario_fail(sc, "strategy", "alternate_period", "alternate needs at least 2 (1 would be files only)");
  return FL_OK;
}

static const fl_key fl_alternate_key_table[] = {
    {"strategy", "alternate_period", FL_K_COUNT, offsetof(fl_alternate_opts, period), FL_K_POS, "2", NULL,
     "alternate: one checkpoint in this many goes to files, the others to the buddy's memory"},
};
static const fl_keyset fl_alternate_options = {"strategy alternate", sizeof(fl_alternate_opts), fl_alternate_key_table,
                                               FL_KEYS_N(fl_alternate_key_table), fl_alternate_check};

static const fl_strategy_key fl_alternate_keys[] = {
    FL_STRAT_CKPT_KEYS,
    {"strategy.alternate_period", FL_SHAPE_RANKS, "one checkpoint in this many to files"},
    {"strategy.file_cost", FL_SHAPE_RANKS, "the cost of a file-level checkpoint (the simulator's)"},
    {NULL, 0, NULL},
};

static fl_err fl_alternate_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  const fl_alternate_opts *o = fl_scenario_options(sc, &fl_alternate_options);
  run->levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE);
  run->file_every = o->period;
  run->delta_s[FL_LEVEL_FILE] = fl_strat_common(sc)->file_cost_s;
  return FL_OK;
}

static fl_level fl_alternate_level(const fl_strategy_run *run, long k)
{
  return k % run->file_every == 0 ? FL_LEVEL_FILE : FL_LEVEL_BUDDY;
}

const fl_strategy_ops fl_strategy_alternate = {
    .name = "alternate",
    .summary = "checkpoints alternate between the buddy's memory and files (one in alternate_period to files)",
    .keys = fl_alternate_keys,
    .options = &fl_alternate_options,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_alternate_setup,
    .level = fl_alternate_level,
};
