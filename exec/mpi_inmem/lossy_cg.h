/* lossy_cg.h — the seed's CG solve (cg_mpi.h's problem and distribution) with *compressed* in-memory buddy
 * checkpoints and the three recoveries of Altenbernd & Goettsche (seed 001) after a rank's data is lost:
 *   global    every role rolls back to its (decompressed) checkpoint;
 *   local     only the lost roles re-initialise their rows from the decompressed checkpoint, the others keep x;
 *   improved  as local, then each lost role solves the auxiliary problem A(J,J) x~(J) = b(J) on F (its rows),
 *             x~ = x on J \ F (the halo rows of its neighbours), from the checkpoint, with Jacobi-PCG, down to
 *             local_def_norm_at_backup * 10^-(age + 1) (see docs/lossy-cg.md for "age").
 * After a recovery CG restarts from the repaired x (r = b - A x, d = z); the iteration count goes on.
 * Exception: codec "none" checkpoints the full CG state (x, r, d, scalars) losslessly, so a global rollback
 * replays the very iterations of the failure-free run (iteration counter rolled back, solution bitwise equal).
 * Codecs (storage/ckpt): "none", "zero" (no checkpoint: lost data := 0), "multigrid" (levels), "zfp" (absolute
 * pointwise bound), "zfp-adaptive" (eb = ||r||/||b|| * tol through fl_ckpt_rule_relres).
 *
 * The solve is an application of the real engine's generic driver (driver.h): spares, agreement, the checkpoint
 * schedule, the strategy's decision (buddy: roll back to the compressed copies; none: start again from zeros),
 * injected losses (a role's data wiped at a chosen iteration, the process lives) and real deaths (SIGKILL; a spare
 * is promoted and gets the compressed checkpoint from the buddy) are the driver's. This file is the solver: its
 * checkpoints are variable-length (ops->pack_n) and its recoveries repair by role (ops->repair). */
#ifndef FL_LOSSY_CG_H
#define FL_LOSSY_CG_H

#include "driver.h"
#include "lossy_cg_keys.h" /* the modes, FL_LOSSY_* */
#include "rt.h"

typedef struct fl_lcg_config {
  long n;            /* grid points per direction */
  double tol;        /* relative residual of the solve */
  long maxit;        /* iterations executed, at most (redone ones count) */
  int mode;          /* FL_LOSSY_* */
  const char *codec; /* none | zero | multigrid | zfp | zfp-adaptive */
  double codec_tol;  /* zfp: absolute bound; zfp-adaptive: tol_aSZ */
  int levels;        /* multigrid */
  long interval;     /* checkpoint interval (iterations) the driver was given: the "age" of a backup counts them */
  const fl_driver_config *drv; /* strategy (buddy, or none: no checkpoint), schedule, losses and deaths */
} fl_lcg_config;

typedef struct fl_lcg_result {
  const char *status; /* "completed", "maxit", "lost", "dead", "idle" */
  long iterations;    /* CG iterations executed, all of them (redone ones included) */
  long final_k;       /* the CG iteration counter at the end (== iterations unless a "none" rollback replayed) */
  double error_linf;  /* ||u - u_exact||_inf over the grid */
  double residual;    /* true ||b - A x|| / ||b|| at the end */
  unsigned long long checksum; /* xxh64 of my rows of x */
  long row0, nrows;
  double raw_bytes; /* the checkpoints of x uncompressed (8 bytes a value), all commits */
  double x_bytes;   /* compressed bytes of x alone (the ratio's denominator) */
  double encode_s, solve_s;
  int losses;          /* repairs (real deaths and injected losses) */
  long aux_iterations; /* improved: auxiliary-solve iterations, summed over losses (max over the lost roles) */
  double aux_target, aux_reached; /* the last auxiliary solve: target and reached absolute residual norms */
  int aux_met;                    /* 1 when every auxiliary solve reached its target (-1: none ran) */
  double eb_first, eb_last; /* zfp-adaptive: the relative bound of the first and last checkpoint (NAN otherwise) */
  fl_driver_result drv;     /* checkpoints (commits, bytes sent, time), recoveries, wall time (driver.h) */
  char message[256];
} fl_lcg_result;

/* Run on this process (active or spare) until the solve ends. Several solves may run one after another on the
 * same rt (a sweep) as long as no process dies. */
void fl_lcg_run(fl_rt *rt, const fl_lcg_config *cfg, fl_lcg_result *res);

#endif
