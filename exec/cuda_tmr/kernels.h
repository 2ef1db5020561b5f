/* kernels.h — one element of each protected kernel, the code the GPU's kernels run (cuda_impl.cu), also built
 * for the host so that it can be checked without a GPU.
 *
 * A GPU thread computes one output element with these functions. The CPU backend runs AXPY and the chain through
 * them too; for the matvec and the sweep it runs the apps' own loops (apps/diffusion.c's fl_diff_apply,
 * apps/gridworld.c's fl_gw_sweep: apps/ does not depend on exec/), whose order of operations these follow. With
 * fused multiply-adds off on both sides (nvcc --fmad=false; the host's baseline x86-64 has no FMA) they give the
 * same bits. test_tmr runs them on the host over whole arrays against the CPU backend, so the GPU's arithmetic and
 * indexing are tested on every build; what only a GPU can test (streams, copies, atomics) is test_tmr_cuda's. */
#ifndef FL_TMR_KERNELS_H
#define FL_TMR_KERNELS_H

#include "diffusion.h"
#include "gridworld.h"
#include "vote.h"

#include <math.h>

/* out_i = a x_i + y_i */
FL_TMR_HD static inline double fl_tmr_k_axpy(long i, double a, const double *x, const double *y)
{
  return a * x[i] + y[i];
}

/* `steps` of t = a t + x_i from t = x_i */
FL_TMR_HD static inline double fl_tmr_k_chain(long i, long steps, double a, const double *x)
{
  double t = x[i];
  for (long k = 0; k < steps; k++)
    t = a * t + x[i];
  return t;
}

/* The matvec's coefficients, exactly as fl_diff_apply computes them. */
typedef struct fl_tmr_k_diff {
  long n;
  double cx, cy, d;
} fl_tmr_k_diff;

static inline fl_tmr_k_diff fl_tmr_k_diff_coeffs(const fl_diff *p)
{
  fl_tmr_k_diff c;
  c.n = p->n;
  c.cx = p->kx / (p->h * p->h);
  c.cy = p->ky / (p->h * p->h);
  c.d = 2.0 * (c.cx + c.cy);
  return c;
}

/* Element idx (row idx / n, column idx % n) of y = A x; xh has a halo row above and below the block. */
FL_TMR_HD static inline double fl_tmr_k_diffusion(long idx, const fl_tmr_k_diff *c, const double *xh)
{
  const long n = c->n, j = idx / n, i = idx - j * n;
  const double *up = xh + j * n, *mid = up + n, *down = mid + n;
  double left = i > 0 ? mid[i - 1] : 0.0, right = i + 1 < n ? mid[i + 1] : 0.0;
  return c->d * mid[i] - c->cx * (left + right) - c->cy * (up[i] + down[i]);
}

/* The sweep's constants, exactly as fl_gw_sweep computes them. */
typedef struct fl_tmr_k_gw {
  long rows, cols;
  double delta, c_best, c_other;
  int use_max;
} fl_tmr_k_gw;

static inline fl_tmr_k_gw fl_tmr_k_gw_coeffs(const fl_gw *gw)
{
  fl_tmr_k_gw c;
  c.rows = gw->rows;
  c.cols = gw->cols;
  c.c_other = (1.0 - gw->p) / 3.0;
  c.c_best = gw->p - c.c_other;
  c.delta = gw->discount;
  c.use_max = c.c_best >= 0;
  return c;
}

/* State s's new value after one Bellman update; *change gets |new - old| (the sweep's max change is the max of
 * these over s, NaNs skipped as fmax skips them). */
FL_TMR_HD static inline double fl_tmr_k_gridworld(long s, const fl_tmr_k_gw *c, const double *reward, const double *in,
                                                  double *change)
{
  const long cols = c->cols, i = s / cols, j = s - i * cols;
  double self = in[s];
  double up = i > 0 ? in[s - cols] : self, down = i + 1 < c->rows ? in[s + cols] : self;
  double left = j > 0 ? in[s - 1] : self, right = j + 1 < cols ? in[s + 1] : self;
  double sum = up + down + left + right, pick, v;
  if (c->use_max)
    pick = fmax(fmax(up, down), fmax(left, right));
  else
    pick = fmin(fmin(up, down), fmin(left, right));
  v = reward[s] + c->delta * (c->c_best * pick + c->c_other * sum);
  *change = fabs(v - self);
  return v;
}

#endif
