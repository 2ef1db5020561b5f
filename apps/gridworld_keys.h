/* gridworld_keys.h — the grid world's own keys (apps/gridworld.c declares them), read where a grid world is built:
 * the simulator's tasks (sim/run_tasks.c), the workflow app's generated graph (sim/workflow/) and the real
 * engine (exec/mpi_inmem/main.c). app.grid, app.iterations and app.tolerance are shared with the CG apps:
 * grid_keys.h. */
#ifndef FL_GRIDWORLD_KEYS_H
#define FL_GRIDWORLD_KEYS_H

#include "scenario.h"

typedef struct fl_gridworld_opts {
  double discount;    /* delta, < 1 */
  double move_prob;   /* p, probability of moving in the intended direction */
  double task_time_s; /* simulated time of one task's update */
} fl_gridworld_opts;

extern const fl_keyset fl_gridworld_keys;
/* sc's values of the grid world's keys (borrowed). */
const fl_gridworld_opts *fl_gridworld_options(const fl_scenario *sc);

#endif
