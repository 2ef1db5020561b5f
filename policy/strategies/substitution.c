/* substitution.c — a failed task's value comes from its best live neighbour (seed 002): no time, some error. */
#include "strategy.h"

#include <string.h>

static const fl_strategy_key fl_substitution_keys[] = {
    {"policy.weights", FL_SHAPE_TASKS, "which neighbour is best: the seed's bound or observed differences"},
    {NULL, 0, NULL},
};

static fl_err fl_substitution_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  (void)sc;
  /* the engine reads it through fl_strat_weights_empirical when it weighs the substitutes */
  run->weights_empirical = ((const fl_pol_opts *)run->opts)->weights_empirical;
  return FL_OK;
}

static fl_err fl_substitution_decide(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute)
{
  (void)run;
  (void)weight;
  memset(substitute, 1, (size_t)(nfailed > 0 ? nfailed : 0));
  return FL_OK;
}

const fl_strategy_ops fl_strategy_substitution = {
    .name = "substitution",
    .summary = "tasks: a failed task takes its best live neighbour's value",
    .keys = fl_substitution_keys,
    .options = &fl_pol_keys,
    .shapes = FL_SHAPE_TASKS,
    .setup = fl_substitution_setup,
    .decide_tasks = fl_substitution_decide,
};
