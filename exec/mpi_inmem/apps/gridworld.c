/* gridworld.c — the real engine's grid world (app.kind = gridworld): value iteration through the generic driver,
 * by rows (gw_mpi.c: checkpoint strategies, replication) or as tasks (gw_tasks.c: substitution, hybrid). */
#include "gridworld.h"

#include "grid_keys.h"
#include "gridworld_keys.h"
#include "gw_mpi.h"
#include "real_app.h"

#include <math.h>
#include <string.h>

/* The grid world through the generic driver, by rows (checkpoint strategies, replication) or as tasks
 * (substitution, hybrid: gw_tasks.h); its outcome in the CG result's shape, the task counts in *counts. Returns -1
 * on set-up failure. */
static int fl_run_gridworld(fl_rt *rt, const fl_scenario *sc, const fl_driver_config *dc, fl_cgm_result *res,
                            fl_gwt_counts *counts)
{
  fl_gw *gw = NULL;
  fl_gwm *g = NULL;
  fl_gwt *t = NULL;
  fl_driver_result dr;
  int tasks = dc->strat->caps->shape == FL_SHAPE_TASKS;
  memset(res, 0, sizeof *res);
  memset(counts, 0, sizeof *counts);
  if (fl_gw_create(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, fl_gridworld_options(sc)->discount,
                   fl_gridworld_options(sc)->move_prob, sc->seed, &gw) != FL_OK ||
      (tasks ? !(t = fl_gwt_create(rt, gw, dc->strat, fl_grid_options(sc)->tolerance, fl_grid_options(sc)->iterations))
             : !(g = fl_gwm_create(rt, gw, fl_grid_options(sc)->tolerance, fl_grid_options(sc)->iterations)))) {
    fl_gw_destroy(&gw);
    return -1;
  }
  if (tasks)
    fl_driver_run(rt, &fl_gwt_ops, t, dc, &dr);
  else
    fl_driver_run(rt, &fl_gwm_ops, g, dc, &dr);
  res->status = dr.status;
  snprintf(res->message, sizeof res->message, "%s", dr.message);
  if (strcmp(dr.status, "ended") == 0) {
    int converged = 0;
    if (tasks) {
      fl_gwt_finish(t, &res->iterations, &converged, &res->checksum, &res->error_linf, counts);
      res->row0 = 0; /* every role holds the whole grid */
      res->nrows = fl_grid_options(sc)->rows;
    } else if (fl_gwm_finish(g, &res->iterations, &converged, &res->checksum, &res->error_linf, &res->row0,
                             &res->nrows) != FL_RT_OK) {
      res->error_linf = NAN;
    }
    res->converged = converged;
    res->status = "completed"; /* the grid world runs its sweeps, converged or not (as in the simulator) */
  }
  res->drv = dr;
  fl_gwm_destroy(&g);
  fl_gwt_destroy(&t);
  fl_gw_destroy(&gw);
  return 0;
}

const fl_real_app fl_real_gridworld = {.app = &fl_app_gridworld, .run = fl_run_gridworld};
