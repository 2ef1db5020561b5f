/* cg.c — the real engine's CG solve (app.kind = cg): the seed's solve on the whole grid through the generic driver
 * (cg_mpi.c). */
#include "grid_keys.h"
#include "real_app.h"

#include <string.h>

/* CG on the whole grid through the generic driver (cg_mpi.c). */
static int fl_run_cg(fl_rt *rt, const fl_scenario *sc, const fl_driver_config *dc, fl_cgm_result *res,
                     fl_gwt_counts *counts)
{
  fl_cgm_config cfg;
  memset(&cfg, 0, sizeof cfg);
  memset(counts, 0, sizeof *counts);
  cfg.n = fl_grid_options(sc)->rows;
  cfg.tol = fl_grid_options(sc)->tolerance;
  cfg.maxit = fl_grid_options(sc)->iterations;
  cfg.drv = dc;
  fl_cgm_run(rt, &cfg, res);
  return 0;
}

const fl_real_app fl_real_cg = {.app = &fl_app_cg, .run = fl_run_cg};
