/* gw_mpi.h — the grid world's value iteration (seed 002) distributed by rows over the active roles: each role
 * sweeps its rows after exchanging one halo row with each neighbour; the convergence test (no value changed by
 * more than the tolerance) is a maximum over the roles. Recoverable through the driver (driver.h). */
#ifndef FL_GW_MPI_H
#define FL_GW_MPI_H

#include "driver.h"
#include "gridworld.h"

typedef struct fl_gwm fl_gwm;

fl_gwm *fl_gwm_create(fl_rt *rt, const fl_gw *gw, double tol, long maxit);
void fl_gwm_destroy(fl_gwm **g);
extern const fl_mpi_app_ops fl_gwm_ops;

/* After the run, on an active role: sweeps done, converged?, the last sweep's largest change, xxh64 of my rows,
 * and the global max |V - V_ref| against the serial failure-free solve (FL_RT_OK or a failure code). */
int fl_gwm_finish(fl_gwm *g, long *iterations, int *converged, unsigned long long *checksum, double *error_linf,
                  long *row0, long *nrows);

#endif
