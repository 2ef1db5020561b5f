/* cg_mpi.h — the seed's CG solve (anisotropic diffusion, Jacobi-preconditioned) distributed by rows over the
 * active roles, with halo exchange and deterministic reductions, checkpointed in the buddies' memory and
 * recovered after real process deaths. A recovered run redoes the iterations since the agreed checkpoint with
 * the very same arithmetic: same iteration count and a bitwise-identical solution to the failure-free run. */
#ifndef FL_CG_MPI_H
#define FL_CG_MPI_H

#include "rt.h"

typedef struct fl_cgm_config {
  long n;     /* grid points per direction */
  double tol; /* relative residual */
  long maxit;
  long checkpoint_every;             /* iterations; 0: never */
  const long *kill_rank, *kill_iter; /* explicit failures: world rank kill_rank[i] dies before iteration kill_iter[i] */
  int nkill;
  double fail_at_s; /* drawn from the failure model: this process dies after so many seconds (<0: never) */
} fl_cgm_config;

typedef struct fl_cgm_result {
  const char *status; /* "completed", "maxit", "lost", "dead", "idle" (a spare never promoted) */
  long iterations;
  int converged;               /* reached the tolerance */
  double error_linf;           /* ||u - u_exact||_inf over the whole grid */
  double residual;             /* ||r|| / ||b|| */
  unsigned long long checksum; /* xxh64 of my rows of x */
  long row0, nrows;
  long commits;
  double ckpt_bytes, commit_s, wall_s;
  double detect_s, recover_s; /* per recovery, the slowest role's (NAN if unknown) */
  char message[256];
} fl_cgm_result;

/* Run on this process (active or spare) until the job ends. */
void fl_cgm_run(fl_rt *rt, const fl_cgm_config *cfg, fl_cgm_result *res);

#endif
