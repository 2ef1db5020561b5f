/* pcg_dist.h — the distributed Jacobi-PCG pieces both real-mode CG solvers share (cg_mpi.c: bitwise replay;
 * lossy_cg.c: compressed checkpoints): the halo exchange of a row block and one CG iteration. Sums go through
 * fl_rt_sum (role order), so every solver built on them computes the same bits. */
#ifndef FL_PCG_DIST_H
#define FL_PCG_DIST_H

#include "diffusion.h"
#include "rt.h"

/* Fill vh's halo rows (row 0 and row nrows+1 of a (nrows+2) x n block) from the neighbouring roles; zero at the
 * domain's edges. *halo_in is the receive buffer (2 n doubles); on a failure it is handed to the runtime (its
 * receives may still land) and replaced. `tag` and tag+1 are used. */
int fl_pcgd_halo(fl_rt *rt, long n, long nrows, double *vh, double **halo_in, int tag);

/* One PCG iteration on my rows: halo(d); q = A d; alpha = rz/(d.q); x += alpha d; r -= alpha q; z = r/diag;
 * (rz', rr) = (r.z, r.r); d = z + (rz'/rz) d. dh holds d with its halo rows; rz and rr are updated. */
int fl_pcgd_step(fl_rt *rt, const fl_diff *p, long nrows, double *x, double *r, double *dh, double *q, double *rz,
                 double *rr, double **halo_in, int tag);

#endif
