/* grid_keys.c — see grid_keys.h. */
#include "grid_keys.h"

#include <stddef.h>

static const fl_key fl_grid_key_table[] = {
    {"app", "grid", FL_K_GRID, offsetof(fl_grid_opts, rows), 0, "10x10", NULL,
     "gridworld: rows x cols states, one task per state; cg, lossy-cg: the diffusion problem's N x N grid points "
     "(square), cut into blocks of rows over the ranks"},
    {"app", "iterations", FL_K_COUNT, offsetof(fl_grid_opts, iterations), FL_K_POS, "100", NULL,
     "gridworld: at most this many value-iteration sweeps; cg, lossy-cg: at most this many CG iterations"},
    {"app", "tolerance", FL_K_REAL, offsetof(fl_grid_opts, tolerance), FL_K_POS, "0.001", NULL,
     "gridworld: converged when no value changes by more than this; cg, lossy-cg: the relative residual "
     "||b - Ax|| / ||b|| to reach"},
};

const fl_keyset fl_grid_keys = {"the grid apps", sizeof(fl_grid_opts), fl_grid_key_table, FL_KEYS_N(fl_grid_key_table),
                                NULL};

const fl_grid_opts *fl_grid_options(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_grid_keys);
}
