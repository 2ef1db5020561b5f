/* two_level.c — multi-level checkpointing (SCR, FTI, VeloC): buddy checkpoints at every interval, and every
 * file_every-th checkpoint written to the file level as well, so that a rank and its buddy dying together
 * roll back to the newest file version instead of starting over. The interval rule prices the buddy level;
 * a file-level checkpoint costs strategy.file_cost (it refreshes both levels). */
#include "strategy.h"

#include <stddef.h>

typedef struct fl_two_level_opts {
  long file_every; /* every this many checkpoints, one to the file level */
} fl_two_level_opts;

static const fl_key fl_two_level_key_table[] = {
    {"strategy", "file_every", FL_K_COUNT, offsetof(fl_two_level_opts, file_every), FL_K_POS, "4", NULL,
     "two-level: every this many checkpoints, one goes to the file level too (the others to the buddy's memory)"},
};
static const fl_keyset fl_two_level_options = {"strategy two-level", sizeof(fl_two_level_opts), fl_two_level_key_table,
                                               FL_KEYS_N(fl_two_level_key_table), NULL};

static const fl_strategy_key fl_two_level_keys[] = {
    FL_STRAT_CKPT_KEYS,
    {"strategy.file_every", FL_SHAPE_RANKS, "every this many checkpoints, one goes to the file level"},
    {"strategy.file_cost", FL_SHAPE_RANKS, "the cost of a file-level checkpoint (the simulator's)"},
    {NULL, 0, NULL},
};

static fl_err fl_two_level_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  const fl_two_level_opts *o = fl_scenario_options(sc, &fl_two_level_options);
  run->levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE);
  run->file_every = o->file_every;
  run->delta_s[FL_LEVEL_FILE] = fl_strat_common(sc)->file_cost_s;
  run->writes[FL_LEVEL_FILE] |= FL_LEVEL_BIT(FL_LEVEL_BUDDY); /* a file-level checkpoint refreshes the buddy copy */
  return FL_OK;
}

static fl_level fl_two_level_level(const fl_strategy_run *run, long k)
{
  return k % run->file_every == 0 ? FL_LEVEL_FILE : FL_LEVEL_BUDDY;
}

const fl_strategy_ops fl_strategy_two_level = {
    .name = "two-level",
    .summary = "buddy checkpoints, every file_every-th also to files; buddy lost -> roll back to the file level",
    .keys = fl_two_level_keys,
    .options = &fl_two_level_options,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_two_level_setup,
    .level = fl_two_level_level,
};
