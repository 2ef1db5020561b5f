/* gw_mpi.c — distributed grid-world value iteration (see gw_mpi.h). Every role keeps full-size value arrays but
 * computes and exchanges only its rows and their halo rows; fl_gw_sweep reads neighbours at global indices, so the
 * serial kernel serves unchanged. The checkpoint is the role's rows of V, the sweep count and the last change. */
#include "gw_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum { FL_TAG_GW_UP = 21, FL_TAG_GW_DOWN = 22 };

struct fl_gwm {
  fl_rt *rt;
  const fl_gw *gw;
  double tol;
  long maxit;
  long row0, nrows, maxrows;
  double *v, *vnext; /* full size */
  double *halo_in;   /* 2 rows, replaced when abandoned by a failure */
  long k;
  double change;
};

fl_gwm *fl_gwm_create(fl_rt *rt, const fl_gw *gw, double tol, long maxit)
{
  fl_gwm *g = calloc(1, sizeof *g);
  if (!g)
    return NULL;
  g->rt = rt;
  g->gw = gw;
  g->tol = tol;
  g->maxit = maxit;
  g->maxrows = gw->rows / rt->nroles + 1;
  g->v = calloc((size_t)gw->n, sizeof *g->v);
  g->vnext = calloc((size_t)gw->n, sizeof *g->vnext);
  g->halo_in = calloc((size_t)(2 * gw->cols), sizeof *g->halo_in);
  g->change = INFINITY;
  if (!g->v || !g->vnext || !g->halo_in)
    fl_gwm_destroy(&g);
  return g;
}

void fl_gwm_destroy(fl_gwm **pg)
{
  fl_gwm *g = pg ? *pg : NULL;
  if (!g)
    return;
  free(g->v);
  free(g->vnext);
  free(g->halo_in);
  free(g);
  *pg = NULL;
}

static size_t fl_gwm_bytes(void *app)
{
  fl_gwm *g = app;
  return 2 * sizeof(double) + (size_t)(g->maxrows * g->gw->cols) * sizeof(double);
}

static void fl_gwm_set_role(void *app)
{
  fl_gwm *g = app;
  long rows = g->gw->rows, N = g->rt->nroles, r = g->rt->role;
  g->maxrows = rows / N + 1; /* fewer roles after a shrink: larger blocks (the value arrays are full size) */
  g->row0 = r * rows / N;
  g->nrows = (r + 1) * rows / N - g->row0;
}

static int fl_gwm_init(void *app)
{
  fl_gwm *g = app;
  memcpy(g->v, g->gw->reward, (size_t)g->gw->n * sizeof *g->v);
  g->k = 0;
  g->change = INFINITY;
  return FL_RT_OK;
}

static int fl_gwm_halo(fl_gwm *g)
{
  fl_rt *rt = g->rt;
  const long cols = g->gw->cols;
  MPI_Request req[4];
  int nreq = 0, role = rt->role, rc;
  if (role > 0) {
    MPI_Irecv(g->halo_in, (int)cols, MPI_DOUBLE, role - 1, FL_TAG_GW_DOWN, rt->comm, &req[nreq++]);
    MPI_Isend(g->v + g->row0 * cols, (int)cols, MPI_DOUBLE, role - 1, FL_TAG_GW_UP, rt->comm, &req[nreq++]);
  }
  if (role + 1 < rt->nroles) {
    MPI_Irecv(g->halo_in + cols, (int)cols, MPI_DOUBLE, role + 1, FL_TAG_GW_UP, rt->comm, &req[nreq++]);
    MPI_Isend(g->v + (g->row0 + g->nrows - 1) * cols, (int)cols, MPI_DOUBLE, role + 1, FL_TAG_GW_DOWN, rt->comm,
              &req[nreq++]);
  }
  rc = nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
  if (rc != FL_RT_OK) {
    fl_rt_adopt(rt, g->halo_in); /* its receives may still land */
    g->halo_in = malloc((size_t)(2 * cols) * sizeof *g->halo_in);
    return g->halo_in ? rc : FL_RT_LOST;
  }
  if (role > 0)
    memcpy(g->v + (g->row0 - 1) * cols, g->halo_in, (size_t)cols * sizeof *g->v);
  if (role + 1 < rt->nroles)
    memcpy(g->v + (g->row0 + g->nrows) * cols, g->halo_in + cols, (size_t)cols * sizeof *g->v);
  return FL_RT_OK;
}

static int fl_gwm_step(void *app)
{
  fl_gwm *g = app;
  const long cols = g->gw->cols, first = g->row0 * cols, last = (g->row0 + g->nrows) * cols;
  double change;
  int rc;
  if ((rc = fl_gwm_halo(g)) != FL_RT_OK)
    return rc;
  change = fl_gw_sweep(g->gw, g->v, g->vnext, first, last);
  if ((rc = fl_rt_max(g->rt, &change, 1)) != FL_RT_OK)
    return rc;
  memcpy(g->v + first, g->vnext + first, (size_t)(last - first) * sizeof *g->v);
  g->change = change;
  g->k++;
  return FL_RT_OK;
}

static int fl_gwm_finished(void *app)
{
  fl_gwm *g = app;
  return g->change <= g->tol || g->k >= g->maxit;
}

static long fl_gwm_iteration(void *app)
{
  return ((fl_gwm *)app)->k;
}

static void fl_gwm_pack(void *app, unsigned char *buf)
{
  fl_gwm *g = app;
  double head[2] = {(double)g->k, g->change};
  memset(buf, 0, fl_gwm_bytes(app));
  memcpy(buf, head, sizeof head);
  memcpy(buf + sizeof head, g->v + g->row0 * g->gw->cols, (size_t)(g->nrows * g->gw->cols) * sizeof *g->v);
}

static void fl_gwm_unpack(void *app, const unsigned char *buf)
{
  fl_gwm *g = app;
  double head[2];
  memcpy(head, buf, sizeof head);
  g->k = (long)head[0];
  g->change = head[1];
  memcpy(g->v + g->row0 * g->gw->cols, buf + sizeof head, (size_t)(g->nrows * g->gw->cols) * sizeof *g->v);
}

/* Shrink: old_role's rows (partition over old_nroles) that are mine now. */
static void fl_gwm_unpack_from(void *app, const unsigned char *buf, int old_role, int old_nroles)
{
  fl_gwm *g = app;
  long rows = g->gw->rows, cols = g->gw->cols, o0 = (long)old_role * rows / old_nroles;
  long on = (long)(old_role + 1) * rows / old_nroles - o0, lo = o0 > g->row0 ? o0 : g->row0;
  long hi = (o0 + on < g->row0 + g->nrows) ? o0 + on : g->row0 + g->nrows;
  double head[2];
  memcpy(head, buf, sizeof head);
  g->k = (long)head[0];
  g->change = head[1];
  if (hi > lo)
    memcpy(g->v + lo * cols, buf + sizeof head + (size_t)((lo - o0) * cols) * sizeof *g->v,
           (size_t)((hi - lo) * cols) * sizeof *g->v);
}

const fl_mpi_app_ops fl_gwm_ops = {
    .name = "gridworld",
    .checkpoint_bytes = fl_gwm_bytes,
    .set_role = fl_gwm_set_role,
    .init = fl_gwm_init,
    .step = fl_gwm_step,
    .finished = fl_gwm_finished,
    .iteration = fl_gwm_iteration,
    .pack = fl_gwm_pack,
    .unpack = fl_gwm_unpack,
    .unpack_from = fl_gwm_unpack_from,
};

int fl_gwm_finish(fl_gwm *g, long *iterations, int *converged, unsigned long long *checksum, double *error_linf,
                  long *row0, long *nrows)
{
  const long cols = g->gw->cols;
  double *ref = malloc((size_t)g->gw->n * sizeof *ref), err = 0.0;
  long ref_it = 0;
  int rc;
  *iterations = g->k;
  *converged = g->change <= g->tol;
  *checksum = (unsigned long long)XXH64(g->v + g->row0 * cols, (size_t)(g->nrows * cols) * sizeof *g->v, 0);
  *row0 = g->row0;
  *nrows = g->nrows;
  if (ref && fl_gw_solve(g->gw, g->tol, g->maxit, ref, &ref_it) >= 0)
    for (long s = g->row0 * cols; s < (g->row0 + g->nrows) * cols; s++)
      err = fmax(err, fabs(g->v[s] - ref[s]));
  free(ref);
  rc = fl_rt_max(g->rt, &err, 1);
  *error_linf = rc == FL_RT_OK ? err : NAN;
  return rc;
}
