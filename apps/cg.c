/* cg.c — conjugate gradients on an app.grid Poisson problem over real MPI ranks (exec/mpi_inmem/cg_mpi.c): the
 * real engine's bulk-synchronous application, whose state is checkpointed, mirrored and replicated for real. */
#include "app.h"

const fl_app fl_app_cg = {
    .name = "cg",
    .summary = "conjugate gradients on a square app.grid, on real MPI ranks (exec/mpi_inmem)",
    .flags = FL_APP_REAL | FL_APP_REAL_SQUARE,
    .size_key = "grid",
    .unit = "ranks",
    .example = "[app]\nkind = cg\ngrid = 32x32\n[strategy]\nkind = buddy\n[mpi]\ncheckpoint_every = 10\n",
    .core_keys = "grid iterations tolerance",
};
