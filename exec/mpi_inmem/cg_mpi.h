/* cg_mpi.h — the seed's CG solve (anisotropic diffusion, Jacobi-preconditioned) distributed by rows over the
 * active roles, with halo exchange and deterministic reductions, checkpointed and recovered after real process
 * deaths as the strategy says (driver.h). A recovered run redoes the iterations since the agreed checkpoint with
 * the very same arithmetic: same iteration count and a bitwise-identical solution to the failure-free run. */
#ifndef FL_CG_MPI_H
#define FL_CG_MPI_H

#include "driver.h"
#include "rt.h"

typedef struct fl_cgm_config {
  long n;     /* grid points per direction */
  double tol; /* relative residual */
  long maxit;
  const fl_driver_config *drv; /* strategy, checkpoint schedule, failures to inject */
} fl_cgm_config;

typedef struct fl_cgm_result {
  const char *status; /* "completed", "maxit", "lost", "dead", "idle" (a spare never promoted) */
  long iterations;
  int converged;               /* reached the tolerance */
  double error_linf;           /* ||u - u_exact||_inf over the whole grid */
  double residual;             /* ||r|| / ||b|| */
  unsigned long long checksum; /* xxh64 of my rows of x */
  long row0, nrows;
  fl_driver_result drv; /* checkpoints, rollbacks, waste, detection and recovery times (driver.h) */
  char message[256];
} fl_cgm_result;

/* Run on this process (active or spare) until the job ends. */
void fl_cgm_run(fl_rt *rt, const fl_cgm_config *cfg, fl_cgm_result *res);

#endif
