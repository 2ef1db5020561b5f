/* cg_mpi.c — distributed, recoverable CG (see cg_mpi.h).
 *
 * State of a role: x, r, d on its rows, and the scalars rz = r.z, rr = r.r, k. Iteration k -> k+1:
 *   halo(d); q = A d; alpha = rz / (d.q); x += alpha d; r -= alpha q; z = r / diag;
 *   (rz', rr) = (r.z, r.r); d = z + (rz'/rz) d
 * A checkpoint at iteration k holds exactly that state, so restarting from it replays iteration k+1 onwards
 * unchanged. Sums are fl_rt_sum's (in role order), never MPI's reduction algorithms. The spares, checkpoints,
 * failures and recoveries are the generic driver's (driver.h): this file is the solver as an ops table. */
#include "cg_mpi.h"

#include "diffusion.h"
#include "driver.h"
#include "pcg_dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct fl_cgm {
  fl_rt *rt;
  const fl_cgm_config *cfg;
  fl_diff p;
  long n, row0, nrows, maxrows;
  double *x, *r, *dh, *q, *b; /* dh: d with a halo row above and below */
  double rz, rr, bnorm2;
  long k;
  size_t ckbytes;
  double *halo_in; /* receive buffer of the current epoch (abandoned with it on failure) */
} fl_cgm;

enum { FL_TAG_HALO = 11 }; /* and 12 */

static void fl_cgm_rows(const fl_cgm *s, int role, long *row0, long *nrows)
{
  long n = s->n, N = s->rt->nroles;
  *row0 = (long)role * n / N;
  *nrows = (long)(role + 1) * n / N - *row0;
}

/* The vectors for blocks of up to maxrows rows (0 if out of memory). Old buffers go to the runtime: a request a
 * failure abandoned may still touch them. */
static int fl_cgm_alloc(fl_cgm *s, long maxrows)
{
  long v = maxrows * s->n;
  double **bufs[5] = {&s->x, &s->r, &s->q, &s->b, &s->dh};
  for (int i = 0; i < 5; i++) {
    double *nb = calloc((size_t)(v + (i == 4 ? 2 * s->n : 0)), sizeof **bufs[i]);
    if (!nb)
      return 0;
    if (*bufs[i])
      fl_rt_adopt(s->rt, *bufs[i]);
    *bufs[i] = nb;
  }
  s->maxrows = maxrows;
  s->ckbytes = 4 * sizeof(double) + 3 * (size_t)v * sizeof(double);
  return 1;
}

static void fl_cgm_set_role(fl_cgm *s)
{
  long maxrows = s->n / s->rt->nroles + 1;
  if (maxrows > s->maxrows && !fl_cgm_alloc(s, maxrows)) /* fewer roles (shrink): larger blocks */
    abort();                                             /* out of memory: this rank dies, as a failure */
  fl_cgm_rows(s, s->rt->role, &s->row0, &s->nrows);
  fl_diff_rhs(&s->p, s->row0, s->nrows, s->b);
}

static int fl_cgm_init_state(fl_cgm *s)
{
  const long m = s->nrows * s->n;
  const double dinv = 1.0 / fl_diff_diagonal(&s->p);
  double sums[3] = {0, 0, 0};
  int rc;
  for (long i = 0; i < m; i++) {
    s->x[i] = 0.0;
    s->r[i] = s->b[i];
    s->dh[s->n + i] = dinv * s->r[i];
    sums[0] += s->r[i] * s->dh[s->n + i];
    sums[1] += s->r[i] * s->r[i];
    sums[2] += s->b[i] * s->b[i];
  }
  if ((rc = fl_rt_sum(s->rt, sums, 3)) != FL_RT_OK)
    return rc;
  s->rz = sums[0];
  s->rr = sums[1];
  s->bnorm2 = sums[2];
  s->k = 0;
  return FL_RT_OK;
}

static int fl_cgm_step(fl_cgm *s)
{
  int rc = fl_pcgd_step(s->rt, &s->p, s->nrows, s->x, s->r, s->dh, s->q, &s->rz, &s->rr, &s->halo_in, FL_TAG_HALO);
  if (rc == FL_RT_OK)
    s->k++;
  return rc;
}

/* The checkpoint: k, rz, rr, ||b||^2, then x, r, d on my rows (a fixed size: the largest block). Packed straight
 * into the checkpoint's buffer. */
static void fl_cgm_pack(void *app, unsigned char *ckbuf)
{
  const fl_cgm *s = app;
  const size_t v = (size_t)(s->maxrows * s->n) * sizeof(double);
  double head[4] = {(double)s->k, s->rz, s->rr, s->bnorm2};
  memset(ckbuf, 0, s->ckbytes);
  memcpy(ckbuf, head, sizeof head);
  memcpy(ckbuf + sizeof head, s->x, (size_t)(s->nrows * s->n) * sizeof(double));
  memcpy(ckbuf + sizeof head + v, s->r, (size_t)(s->nrows * s->n) * sizeof(double));
  memcpy(ckbuf + sizeof head + 2 * v, s->dh + s->n, (size_t)(s->nrows * s->n) * sizeof(double));
}

static void fl_cgm_unpack(void *app, const unsigned char *ckbuf)
{
  fl_cgm *s = app;
  const size_t v = (size_t)(s->maxrows * s->n) * sizeof(double);
  double head[4];
  memcpy(head, ckbuf, sizeof head);
  s->k = (long)head[0];
  s->rz = head[1];
  s->rr = head[2];
  s->bnorm2 = head[3];
  memcpy(s->x, ckbuf + sizeof head, (size_t)(s->nrows * s->n) * sizeof(double));
  memcpy(s->r, ckbuf + sizeof head + v, (size_t)(s->nrows * s->n) * sizeof(double));
  memcpy(s->dh + s->n, ckbuf + sizeof head + 2 * v, (size_t)(s->nrows * s->n) * sizeof(double));
}

/* Shrink: the rows of old_role's block (partition over old_nroles) that are mine now. */
static void fl_cgm_unpack_from(void *app, const unsigned char *ckbuf, int old_role, int old_nroles)
{
  fl_cgm *s = app;
  long o0 = (long)old_role * s->n / old_nroles, on = (long)(old_role + 1) * s->n / old_nroles - o0;
  long old_maxrows = s->n / old_nroles + 1, lo = o0 > s->row0 ? o0 : s->row0;
  long hi = (o0 + on < s->row0 + s->nrows) ? o0 + on : s->row0 + s->nrows;
  const size_t v = (size_t)(old_maxrows * s->n) * sizeof(double), hd = 4 * sizeof(double);
  double head[4];
  memcpy(head, ckbuf, sizeof head);
  s->k = (long)head[0];
  s->rz = head[1];
  s->rr = head[2];
  s->bnorm2 = head[3];
  if (hi <= lo)
    return;
  {
    size_t from = (size_t)((lo - o0) * s->n) * sizeof(double), len = (size_t)((hi - lo) * s->n) * sizeof(double);
    long to = (lo - s->row0) * s->n;
    memcpy(s->x + to, ckbuf + hd + from, len);
    memcpy(s->r + to, ckbuf + hd + v + from, len);
    memcpy(s->dh + s->n + to, ckbuf + hd + 2 * v + from, len);
  }
}

static size_t fl_cgm_bytes(void *app)
{
  return ((fl_cgm *)app)->ckbytes;
}
static void fl_cgm_set_role_op(void *app)
{
  fl_cgm *s = app;
  fl_cgm_set_role(s);
  memset(s->dh, 0, (size_t)((s->maxrows + 2) * s->n) * sizeof *s->dh);
}
static int fl_cgm_init_op(void *app)
{
  return fl_cgm_init_state(app);
}
static int fl_cgm_step_op(void *app)
{
  return fl_cgm_step(app);
}
static int fl_cgm_finished(void *app)
{
  const fl_cgm *s = app;
  return s->rr <= s->cfg->tol * s->cfg->tol * s->bnorm2 || s->k >= s->cfg->maxit;
}
static long fl_cgm_iteration(void *app)
{
  return ((fl_cgm *)app)->k;
}

static const fl_mpi_app_ops fl_cgm_ops = {
    .name = "cg",
    .checkpoint_bytes = fl_cgm_bytes,
    .set_role = fl_cgm_set_role_op,
    .init = fl_cgm_init_op,
    .step = fl_cgm_step_op,
    .finished = fl_cgm_finished,
    .iteration = fl_cgm_iteration,
    .pack = fl_cgm_pack,
    .unpack = fl_cgm_unpack,
    .unpack_from = fl_cgm_unpack_from,
};

void fl_cgm_run(fl_rt *rt, const fl_cgm_config *cfg, fl_cgm_result *res)
{
  fl_cgm s;
  fl_driver_result dr;

  memset(&s, 0, sizeof s);
  memset(res, 0, sizeof *res);
  res->status = "idle";
  s.rt = rt;
  s.cfg = cfg;
  s.n = cfg->n;
  fl_diff_init(&s.p, cfg->n);
  s.halo_in = calloc((size_t)(2 * cfg->n), sizeof *s.halo_in);
  if (!fl_cgm_alloc(&s, cfg->n / rt->nroles + 1) || !s.halo_in) {
    res->status = "lost";
    snprintf(res->message, sizeof res->message, "out of memory");
    goto done;
  }
  fl_driver_run(rt, &fl_cgm_ops, &s, cfg->drv, &dr);
  res->status = dr.status;
  snprintf(res->message, sizeof res->message, "%s", dr.message);
  res->drv = dr;
  if (strcmp(dr.status, "ended") != 0)
    goto done;

  /* the solve ended on every active role: the error against the exact solution, then the outcome */
  {
    double *u = malloc((size_t)(s.nrows * s.n) * sizeof *u), err = 0.0;
    if (u) {
      fl_diff_exact(&s.p, s.row0, s.nrows, u);
      for (long i = 0; i < s.nrows * s.n; i++)
        err = fmax(err, fabs(s.x[i] - u[i]));
      free(u);
    }
    if (fl_rt_max(rt, &err, 1) != FL_RT_OK)
      err = NAN; /* a failure after the end: the error is not known, the solution is */
    res->error_linf = err;
  }
  res->converged = s.rr <= cfg->tol * cfg->tol * s.bnorm2;
  res->status = res->converged ? "completed" : "maxit";
  res->iterations = s.k;
  res->residual = sqrt(s.rr / s.bnorm2);
  res->checksum = (unsigned long long)XXH64(s.x, (size_t)(s.nrows * s.n) * sizeof *s.x, 0);
  res->row0 = s.row0;
  res->nrows = s.nrows;
done:
  free(s.x);
  free(s.r);
  free(s.q);
  free(s.b);
  free(s.dh);
  free(s.halo_in);
}
