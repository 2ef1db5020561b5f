/* gridworld_app.c — the grid world as an app of the registry (apps/app.h) and its own keys (gridworld_keys.h). Kept
 * apart from the kernel (gridworld.c), which the self-contained TMR checker builds without the scenario code. */
#include "app.h"
#include "grid_keys.h"
#include "gridworld.h"
#include "gridworld_keys.h"

#include <stddef.h>

/* The grid world's own keys (gridworld_keys.h), and the checks across them. */
static fl_err fl_gridworld_keys_check(const fl_scenario *sc, const void *opts)
{
  const fl_gridworld_opts *o = opts;
  if (!(o->discount < 1.0))
    return fl_scenario_fail(sc, "app", "discount", "must be below 1");
  if (!(o->move_prob <= 1.0))
    return fl_scenario_fail(sc, "app", "move_prob", "is a probability: at most 1");
  return FL_OK;
}

#define FL_OFF(field) offsetof(fl_gridworld_opts, field)
static const fl_key fl_gridworld_key_table[] = {
    {"app", "discount", FL_K_REAL, FL_OFF(discount), FL_K_POS, "0.95", NULL, "gridworld: discount factor delta (< 1)"},
    {"app", "move_prob", FL_K_REAL, FL_OFF(move_prob), FL_K_POS, "0.8", NULL,
     "gridworld: probability p of moving in the intended direction (else uniform among the other three)"},
    {"app", "task_time", FL_K_DURATION, FL_OFF(task_time_s), FL_K_POS, "1s", NULL,
     "gridworld: simulated time of one task's update in one sweep"},
};
#undef FL_OFF
const fl_keyset fl_gridworld_keys = {"app gridworld", sizeof(fl_gridworld_opts), fl_gridworld_key_table,
                                     FL_KEYS_N(fl_gridworld_key_table), fl_gridworld_keys_check};

static long fl_gridworld_slots(const fl_scenario *sc, long copies)
{
  (void)copies; /* replication of a task is its re-execution */
  return fl_grid_options(sc)->rows * fl_grid_options(sc)->cols;
}

const fl_app fl_app_gridworld = {
    .name = "gridworld",
    .summary = "value iteration of an app.grid world, one task per state (sim/run_tasks.c; real: exec/mpi_inmem)",
    .flags = FL_APP_SIM | FL_APP_REAL | FL_APP_REAL_TASKS,
    .size_key = "grid",
    .unit = "tasks",
    .example = "[platform]\nnodes = 24\n[failures]\nnode_mtbf = 1h\n[app]\nkind = gridworld\ngrid = 4x4\n"
               "[strategy]\nkind = replication\n",
    .job_slots = fl_gridworld_slots,
    .options = &fl_gridworld_keys,
    .core_keys = "nodes grid iterations tolerance",
};

const fl_gridworld_opts *fl_gridworld_options(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_gridworld_keys);
}
