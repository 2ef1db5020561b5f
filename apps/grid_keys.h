/* grid_keys.h — the keys the apps on a grid share: its size (app.grid), and how far the solve goes
 * (app.iterations, app.tolerance). The grid world (both engines, and the workflow app's generated value
 * iteration), cg and lossy-cg read them; the real engine's launcher sizes and checks a run by them. Declared here,
 * beside those apps, and registered once (apps/registries.c), as no one app owns them. */
#ifndef FL_GRID_KEYS_H
#define FL_GRID_KEYS_H

#include "keys.h"

typedef struct fl_grid_opts {
  long rows, cols;  /* app.grid: ROWSxCOLS (the grid world's states; cg's and lossy-cg's points, square) */
  long iterations;  /* at most this many sweeps (gridworld) or CG iterations (cg, lossy-cg) */
  double tolerance; /* gridworld: no value changes by more; cg, lossy-cg: relative residual */
} fl_grid_opts;

extern const fl_keyset fl_grid_keys;
/* sc's values of them (borrowed). */
const fl_grid_opts *fl_grid_options(const fl_scenario *sc);

#endif
