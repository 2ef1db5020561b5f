/* real_app.h — the app kinds the real engine runs (faultline-mpi): one file per kind in this folder, each defining
 * `const fl_real_app fl_real_NAME`, listed once in FL_REAL_APPS below (CMake compiles every .c here). An entry
 * names its kind in the app registry (apps/app.h, marked FL_APP_REAL) and how faultline-mpi runs it: through the
 * generic driver (driver.h) with the engine writing the job's row, or as a study of its own (FL_APP_REAL_STUDY). */
#ifndef FL_REAL_APP_H
#define FL_REAL_APP_H

#include "app.h"
#include "cg_mpi.h"
#include "driver.h"
#include "gw_tasks.h"
#include "rt.h"
#include "scenario.h"
#include "strategy.h"

typedef struct fl_real_app {
  const fl_app *app;
  /* Through the driver (dc: the strategy, deaths, heartbeat): the outcome in res, a task-parallel run's counts in
   * *counts; the engine writes the job's row. Returns -1 when it could not be set up. */
  int (*run)(fl_rt *rt, const fl_scenario *sc, const fl_driver_config *dc, fl_cgm_result *res, fl_gwt_counts *counts);
  /* Or a study of its own (FL_APP_REAL_STUDY): its solves through the driver, their rows and the outcome files;
   * returns faultline-mpi's exit status. */
  int (*study)(fl_scenario *sc, fl_rt *rt, const fl_strategy_run *strat, const fl_driver_config *dc,
               const char *out_dir);
  fl_err (*study_check)(const fl_scenario *sc, int nkill); /* the study's own checks, before the runtime starts */
} fl_real_app;

/* The registry. */
#define FL_REAL_APPS(X)                                                                                                \
  X(cg)                                                                                                                \
  X(gridworld)                                                                                                         \
  X(lossy_cg)                                                                                                          \
  /* one line per entry, above this one */
#define X(name) extern const fl_real_app fl_real_##name;
FL_REAL_APPS(X)
#undef X

/* The entry for app kind `app`, or NULL. */
const fl_real_app *fl_real_app_find(const fl_app *app);

#endif
