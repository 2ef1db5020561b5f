/* lossy_cg.c — CG with compressed buddy checkpoints and global / local / improved recovery (see lossy_cg.h), an
 * application of the generic driver (driver.h).
 *
 * State of a role: x (with a halo row above and below, for A x after a restart and for the auxiliary problem),
 * r, d (with halos), the scalars rz = r.z, rr = r.r, the CG counter k and the executed iterations. Iteration:
 * exactly cg_mpi.c's (halo(d); q = A d; alpha; x, r update; z = r / diag; beta; d), and sums are fl_rt_sum's.
 *
 * A checkpoint is a header (below) and a payload: codec "none" the raw x, r, d (a full state: a rollback
 * replays); every other codec x alone, through fl_ckpt_codec_encode on the 2-D block (nrows x n). Only the
 * header's `len` bytes go to the buddy (ops->pack_n). */
#include "lossy_cg.h"

#include "ckpt_codec.h"
#include "diffusion.h"
#include "pcg_dist.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct fl_lcg_head {
  uint64_t len;     /* header + payload bytes */
  int64_t k;        /* CG iteration of the backup */
  uint64_t xlen;    /* bytes of the encoded x */
  double local_def; /* ||r|| on my rows at backup time */
  double rz, rr;    /* codec none: the scalars of the state */
  double bnorm2;    /* ||b||^2 (a promoted spare has not computed it) */
  double eb;        /* zfp-adaptive: the relative bound used */
} fl_lcg_head;

typedef struct fl_lcg {
  fl_rt *rt;
  const fl_lcg_config *cfg;
  fl_diff p;
  long n, row0, nrows, maxrows;
  double *xh, *r, *dh, *q, *b, *ph, *tmp; /* xh, dh, ph: with halo rows */
  double rz, rr, bnorm2;
  long k, exec;
  int none; /* codec none: the full state, an exact rollback */
  size_t ckbytes;
  fl_ckpt_buf enc;
  fl_ckpt_relres relres;
  double *halo_in;
  fl_lcg_result *res;
} fl_lcg;

enum { FL_TAG_LHALO = 21 /* and 22 */ };

static double *fl_lcg_x(const fl_lcg *s)
{
  return s->xh + s->n;
}

/* My rows (the start, or a promotion: a spare's state starts from zeros until the repair gives it its rows). */
static void fl_lcg_set_role(void *app)
{
  fl_lcg *s = app;
  long n = s->n, N = s->rt->nroles, role = s->rt->role;
  s->row0 = role * n / N;
  s->nrows = (role + 1) * n / N - s->row0;
  fl_diff_rhs(&s->p, s->row0, s->nrows, s->b);
  memset(s->xh, 0, (size_t)((s->maxrows + 2) * n) * sizeof *s->xh);
  memset(s->dh, 0, (size_t)((s->maxrows + 2) * n) * sizeof *s->dh);
  s->k = s->exec = 0;
}

/* The halo rows of vh (nrows + 2 rows) from the neighbouring roles (zero at the domain's edges). */
static int fl_lcg_halo(fl_lcg *s, double *vh)
{
  return fl_pcgd_halo(s->rt, s->n, s->nrows, vh, &s->halo_in, FL_TAG_LHALO);
}

/* CG (re)start from the current x: r = b - A x, d = z = r / diag, rz, rr (and ||b||^2). */
static int fl_lcg_restart(fl_lcg *s)
{
  const long n = s->n, m = s->nrows * n;
  const double dinv = 1.0 / fl_diff_diagonal(&s->p);
  double sums[3] = {0, 0, 0};
  int rc;
  if ((rc = fl_lcg_halo(s, s->xh)) != FL_RT_OK)
    return rc;
  fl_diff_apply(&s->p, s->nrows, s->xh, s->q);
  for (long i = 0; i < m; i++) {
    s->r[i] = s->b[i] - s->q[i];
    s->dh[n + i] = dinv * s->r[i];
    sums[0] += s->r[i] * s->dh[n + i];
    sums[1] += s->r[i] * s->r[i];
    sums[2] += s->b[i] * s->b[i];
  }
  if ((rc = fl_rt_sum(s->rt, sums, 3)) != FL_RT_OK)
    return rc;
  s->rz = sums[0];
  s->rr = sums[1];
  s->bnorm2 = sums[2];
  return FL_RT_OK;
}

static int fl_lcg_init(void *app)
{
  fl_lcg *s = app;
  memset(s->xh, 0, (size_t)((s->maxrows + 2) * s->n) * sizeof *s->xh);
  s->k = s->exec = 0;
  return fl_lcg_restart(s);
}

static int fl_lcg_step(void *app)
{
  fl_lcg *s = app;
  double t0 = fl_rt_now();
  int rc =
      fl_pcgd_step(s->rt, &s->p, s->nrows, fl_lcg_x(s), s->r, s->dh, s->q, &s->rz, &s->rr, &s->halo_in, FL_TAG_LHALO);
  s->res->solve_s += fl_rt_now() - t0;
  if (rc == FL_RT_OK) {
    s->k++;
    s->exec++;
  }
  return rc;
}

static int fl_lcg_finished(void *app)
{
  const fl_lcg *s = app;
  return s->rr <= s->cfg->tol * s->cfg->tol * s->bnorm2 || s->exec >= s->cfg->maxit;
}

/* The CG counter: a "none" rollback takes it back (the driver counts the replay), the other recoveries go on. */
static long fl_lcg_iteration(void *app)
{
  return ((const fl_lcg *)app)->k;
}

static size_t fl_lcg_bytes(void *app)
{
  return ((const fl_lcg *)app)->ckbytes;
}

static fl_ckpt_shape fl_lcg_shape(const fl_lcg *s)
{
  fl_ckpt_shape sh = {FL_CKPT_F64, 2, {(size_t)s->nrows, (size_t)s->n, 0, 0}};
  return sh;
}

static double fl_lcg_local_norm(const double *v, long m)
{
  double sum = 0.0;
  for (long i = 0; i < m; i++)
    sum += v[i] * v[i];
  return sqrt(sum);
}

/* The checkpoint into buf (the driver sends its first `len` bytes to the buddy): its length, 0 when x cannot be
 * encoded (fl_err says why). */
static size_t fl_lcg_pack(void *app, unsigned char *buf)
{
  fl_lcg *s = app;
  const long m = s->nrows * s->n;
  const size_t raw = (size_t)m * sizeof(double);
  fl_lcg_head h;
  memset(&h, 0, sizeof h);
  h.k = s->k;
  h.local_def = fl_lcg_local_norm(s->r, m);
  h.rz = s->rz;
  h.rr = s->rr;
  h.bnorm2 = s->bnorm2;
  h.eb = NAN;
  if (s->none) {
    memcpy(buf + sizeof h, fl_lcg_x(s), raw);
    memcpy(buf + sizeof h + raw, s->r, raw);
    memcpy(buf + sizeof h + 2 * raw, s->dh + s->n, raw);
    h.xlen = raw;
    h.len = sizeof h + 3 * raw;
  } else {
    fl_ckpt_codec_cfg cc = {.name = s->cfg->codec, .tol = s->cfg->codec_tol, .levels = s->cfg->levels};
    fl_ckpt_codec_params par;
    fl_ckpt_shape sh = fl_lcg_shape(s);
    fl_ckpt_rule_args ra = {.label = "x", .version = s->k, .shape = &sh, .data = fl_lcg_x(s)};
    double t0 = fl_rt_now();
    if (strcmp(s->cfg->codec, "zfp-adaptive") == 0) {
      cc.rule = fl_ckpt_rule_relres;
      cc.rule_user = &s->relres;
      s->relres.r_norm = sqrt(s->rr);
      s->relres.b_norm = sqrt(s->bnorm2);
      s->relres.tol = s->cfg->codec_tol;
    }
    if (fl_ckpt_codec_resolve(&cc, &ra, &par) != FL_OK ||
        fl_ckpt_codec_encode(s->cfg->codec, &par, &sh, fl_lcg_x(s), &s->enc) != FL_OK)
      return 0;
    if (sizeof h + s->enc.size > s->ckbytes) {
      fl_err_set(FL_ERR_INTERNAL, "codec %s gave %zu bytes for x, more than the %zu of the checkpoint buffer",
                 s->cfg->codec, s->enc.size, s->ckbytes - sizeof h);
      return 0;
    }
    s->res->encode_s += fl_rt_now() - t0;
    if (cc.rule) {
      h.eb = s->relres.eb;
      if (!isfinite(s->res->eb_first))
        s->res->eb_first = h.eb;
      s->res->eb_last = h.eb;
    }
    memcpy(buf + sizeof h, s->enc.data, s->enc.size);
    h.xlen = s->enc.size;
    h.len = sizeof h + s->enc.size;
  }
  memcpy(buf, &h, sizeof h);
  s->res->raw_bytes += (double)raw;
  s->res->x_bytes += (double)h.xlen;
  return (size_t)h.len;
}

/* x := the checkpoint's x (decoded). */
static int fl_lcg_decode(fl_lcg *s, const unsigned char *payload)
{
  fl_lcg_head h;
  fl_ckpt_shape sh = fl_lcg_shape(s);
  memcpy(&h, payload, sizeof h);
  if (s->none) {
    memcpy(fl_lcg_x(s), payload + sizeof h, (size_t)(s->nrows * s->n) * sizeof(double));
    return FL_RT_OK;
  }
  if (fl_ckpt_codec_decode(s->cfg->codec, &sh, payload + sizeof h, (size_t)h.xlen, fl_lcg_x(s)) != FL_OK)
    return FL_RT_LOST; /* fl_err says why; the driver stops the job with it */
  return FL_RT_OK;
}

/* The full state of a "none" checkpoint (global rollback: an exact replay). */
static void fl_lcg_unpack_full(fl_lcg *s, const unsigned char *payload)
{
  const size_t raw = (size_t)(s->nrows * s->n) * sizeof(double);
  fl_lcg_head h;
  memcpy(&h, payload, sizeof h);
  memcpy(fl_lcg_x(s), payload + sizeof h, raw);
  memcpy(s->r, payload + sizeof h + raw, raw);
  memcpy(s->dh + s->n, payload + sizeof h + 2 * raw, raw);
  s->k = (long)h.k;
  s->rz = h.rz;
  s->rr = h.rr;
  s->bnorm2 = h.bnorm2;
}

/* The auxiliary problem on my rows F with the halo rows (J \ F) fixed: A_FF y = b_F - A_FJ x_J, Jacobi-PCG from
 * the current x, until ||b - A x||_F <= target. Returns the iterations; *reached the final residual norm. */
static long fl_lcg_aux_solve(fl_lcg *s, double target, long maxit, double *reached)
{
  const long n = s->n, m = s->nrows * n;
  const double dinv = 1.0 / fl_diff_diagonal(&s->p);
  double *x = fl_lcg_x(s), *r = s->tmp, *q = s->q, rz = 0.0, norm;
  long it = 0;
  fl_diff_apply(&s->p, s->nrows, s->xh, q); /* with the neighbours' rows as they are */
  for (long i = 0; i < m; i++)
    r[i] = s->b[i] - q[i];
  norm = fl_lcg_local_norm(r, m);
  memset(s->ph, 0, (size_t)(m + 2 * n) * sizeof *s->ph); /* zero halo rows: the operator is A(F, F) */
  for (long i = 0; i < m; i++) {
    s->ph[n + i] = dinv * r[i];
    rz += r[i] * s->ph[n + i];
  }
  while (norm > target && it < maxit) {
    double pq = 0.0, alpha, rz2 = 0.0, beta;
    fl_diff_apply(&s->p, s->nrows, s->ph, q);
    for (long i = 0; i < m; i++)
      pq += s->ph[n + i] * q[i];
    alpha = rz / pq;
    for (long i = 0; i < m; i++) {
      x[i] += alpha * s->ph[n + i];
      r[i] -= alpha * q[i];
      rz2 += r[i] * dinv * r[i];
    }
    it++;
    norm = fl_lcg_local_norm(r, m);
    beta = rz2 / rz;
    rz = rz2;
    for (long i = 0; i < m; i++)
      s->ph[n + i] = dinv * r[i] + beta * s->ph[n + i];
  }
  /* the true local defect, not the recursive one */
  fl_diff_apply(&s->p, s->nrows, s->xh, q);
  for (long i = 0; i < m; i++)
    r[i] = s->b[i] - q[i];
  *reached = fl_lcg_local_norm(r, m);
  return it;
}

/* ops->repair, on every active role after a loss: lost[role] for the roles whose data is gone; ckpt: my checkpoint
 * as the strategy gave it back (a lost role: its buddy's mirror; the others: their own), NULL when there is none
 * (codec zero, strategy none, or the copy was lost too: the lost data starts again from 0). */
static int fl_lcg_repair(void *app, const unsigned char *lost, const unsigned char *ckpt)
{
  fl_lcg *s = app;
  fl_rt *rt = s->rt;
  const long m = s->nrows * s->n;
  const int i_lost = lost[rt->role], mode = s->cfg->mode, have_ckpt = ckpt != NULL;
  double e = (double)s->exec;
  long aux = 0;
  int rc;

  if (i_lost) /* nothing may use what was lost */
    for (long i = 0; i < m; i++)
      fl_lcg_x(s)[i] = s->r[i] = s->dh[s->n + i] = NAN;
  s->res->losses++;
  if ((rc = fl_rt_max(rt, &e, 1)) != FL_RT_OK) /* a promoted spare does not know how far the others got */
    return rc;
  s->exec = (long)e;
  {
    double bb = 0.0; /* nor ||b|| (the auxiliary target's floor needs it) */
    for (long i = 0; i < m; i++)
      bb += s->b[i] * s->b[i];
    if ((rc = fl_rt_sum(rt, &bb, 1)) != FL_RT_OK)
      return rc;
    s->bnorm2 = bb;
  }
  if (mode == FL_LOSSY_GLOBAL && s->none && have_ckpt) {
    fl_lcg_unpack_full(s, ckpt); /* the failure-free run's state at the checkpoint: it replays exactly */
    return FL_RT_OK;
  }
  s->k = s->exec;
  if (mode == FL_LOSSY_GLOBAL || i_lost) {
    if (!have_ckpt)
      memset(fl_lcg_x(s), 0, (size_t)m * sizeof(double));
    else if ((rc = fl_lcg_decode(s, ckpt)) != FL_RT_OK)
      return rc;
  }
  if (mode == FL_LOSSY_IMPROVED) {
    double a[1] = {0};
    if ((rc = fl_lcg_halo(s, s->xh)) != FL_RT_OK)
      return rc;
    if (i_lost) {
      const long interval = s->cfg->interval > 0 ? s->cfg->interval : 1;
      double def0, target, floor, reached;
      long backup_k = 0, age;
      if (have_ckpt) {
        fl_lcg_head h;
        memcpy(&h, ckpt, sizeof h);
        backup_k = (long)h.k;
        def0 = h.local_def;
      } else {
        def0 = fl_lcg_local_norm(s->b, m); /* "backup" = x0 = 0 at iteration 0: its defect is b */
      }
      age = (s->exec - backup_k + interval - 1) / interval; /* checkpoint intervals begun since the backup */
      target = def0 * pow(10.0, -(double)(age + 1));
      floor = 0.1 * s->cfg->tol * sqrt(s->bnorm2);
      if (target < floor)
        target = floor;
      aux = fl_lcg_aux_solve(s, target, 50 * s->n, &reached);
      s->res->aux_target = target;
      s->res->aux_reached = reached;
      if (reached <= target) {
        if (s->res->aux_met < 0)
          s->res->aux_met = 1;
      } else {
        s->res->aux_met = 0;
      }
    }
    a[0] = (double)aux;
    if ((rc = fl_rt_max(rt, a, 1)) != FL_RT_OK)
      return rc;
    s->res->aux_iterations += (long)a[0];
  }
  return fl_lcg_restart(s);
}

static const fl_mpi_app_ops fl_lcg_ops = {
    .name = "lossy-cg",
    .checkpoint_bytes = fl_lcg_bytes,
    .set_role = fl_lcg_set_role,
    .init = fl_lcg_init,
    .step = fl_lcg_step,
    .finished = fl_lcg_finished,
    .iteration = fl_lcg_iteration,
    .pack_n = fl_lcg_pack,
    .repair = fl_lcg_repair,
};

/* The end, on every active role: true residual, error against the exact solution, the outcome. */
static void fl_lcg_finish(fl_lcg *s)
{
  fl_lcg_result *res = s->res;
  const long m = s->nrows * s->n;
  double *u = malloc((size_t)m * sizeof *u), err = 0.0, rr = 0.0, mx[1];
  int ok = fl_lcg_halo(s, s->xh) == FL_RT_OK;
  if (ok) {
    fl_diff_apply(&s->p, s->nrows, s->xh, s->q);
    for (long i = 0; i < m; i++)
      rr += (s->b[i] - s->q[i]) * (s->b[i] - s->q[i]);
    ok = fl_rt_sum(s->rt, &rr, 1) == FL_RT_OK;
  }
  if (u) {
    fl_diff_exact(&s->p, s->row0, s->nrows, u);
    for (long i = 0; i < m; i++)
      err = fmax(err, fabs(fl_lcg_x(s)[i] - u[i]));
    free(u);
  }
  mx[0] = err;
  if (!ok || fl_rt_max(s->rt, mx, 1) != FL_RT_OK)
    mx[0] = rr = NAN;
  res->error_linf = mx[0];
  res->residual = sqrt(rr / s->bnorm2);
  res->status = s->rr <= s->cfg->tol * s->cfg->tol * s->bnorm2 ? "completed" : "maxit";
  res->iterations = s->exec;
  res->final_k = s->k;
  res->checksum = (unsigned long long)XXH64(fl_lcg_x(s), (size_t)m * sizeof(double), 0);
  res->row0 = s->row0;
  res->nrows = s->nrows;
}

void fl_lcg_run(fl_rt *rt, const fl_lcg_config *cfg, fl_lcg_result *res)
{
  fl_lcg s;
  const long v = (cfg->n / rt->nroles + 1) * cfg->n;

  memset(&s, 0, sizeof s);
  memset(res, 0, sizeof *res);
  res->status = "idle";
  res->aux_met = -1;
  res->eb_first = res->eb_last = res->aux_target = res->aux_reached = NAN;
  s.rt = rt;
  s.cfg = cfg;
  s.res = res;
  s.n = cfg->n;
  s.maxrows = cfg->n / rt->nroles + 1;
  s.none = strcmp(cfg->codec, "none") == 0;
  fl_diff_init(&s.p, cfg->n);
  s.xh = calloc((size_t)(v + 2 * cfg->n), sizeof *s.xh);
  s.r = calloc((size_t)v, sizeof *s.r);
  s.q = calloc((size_t)v, sizeof *s.q);
  s.b = calloc((size_t)v, sizeof *s.b);
  s.tmp = calloc((size_t)v, sizeof *s.tmp);
  s.dh = calloc((size_t)(v + 2 * cfg->n), sizeof *s.dh);
  s.ph = calloc((size_t)(v + 2 * cfg->n), sizeof *s.ph);
  s.halo_in = calloc((size_t)(2 * cfg->n), sizeof *s.halo_in);
  /* a compressed x never needs more than raw plus the codec's headers; "none" holds x, r, d */
  s.ckbytes = sizeof(fl_lcg_head) + 3 * (size_t)v * sizeof(double) + 65536;
  if (!s.xh || !s.r || !s.q || !s.b || !s.tmp || !s.dh || !s.ph || !s.halo_in) {
    res->status = "lost";
    snprintf(res->message, sizeof res->message, "out of memory");
    goto done;
  }
  fl_driver_run(rt, &fl_lcg_ops, &s, cfg->drv, &res->drv);
  res->status = res->drv.status;
  snprintf(res->message, sizeof res->message, "%s", res->drv.message);
  if (strcmp(res->drv.status, "ended") == 0)
    fl_lcg_finish(&s);
done:
  fl_ckpt_buf_free(&s.enc);
  free(s.xh);
  free(s.r);
  free(s.q);
  free(s.b);
  free(s.tmp);
  free(s.dh);
  free(s.ph);
  free(s.halo_in);
}
