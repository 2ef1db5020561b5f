/* pcg_dist.c — see pcg_dist.h. */
#include "pcg_dist.h"

#include <stdlib.h>
#include <string.h>

int fl_pcgd_halo(fl_rt *rt, long n, long nrows, double *vh, double **halo_in, int tag)
{
  MPI_Request req[4];
  int nreq = 0, role = rt->role, rc;
  double *top = *halo_in, *bottom = *halo_in + n;
  if (role > 0) {
    MPI_Irecv(top, (int)n, MPI_DOUBLE, role - 1, tag + 1, rt->comm, &req[nreq++]);
    MPI_Isend(vh + n, (int)n, MPI_DOUBLE, role - 1, tag, rt->comm, &req[nreq++]);
  }
  if (role + 1 < rt->nroles) {
    MPI_Irecv(bottom, (int)n, MPI_DOUBLE, role + 1, tag, rt->comm, &req[nreq++]);
    MPI_Isend(vh + nrows * n, (int)n, MPI_DOUBLE, role + 1, tag + 1, rt->comm, &req[nreq++]);
  }
  rc = nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
  if (rc != FL_RT_OK) {
    fl_rt_adopt(rt, *halo_in); /* its receives may still land */
    *halo_in = malloc((size_t)(2 * n) * sizeof **halo_in);
    return *halo_in ? rc : FL_RT_LOST;
  }
  if (role > 0)
    memcpy(vh, top, (size_t)n * sizeof *top);
  else
    memset(vh, 0, (size_t)n * sizeof *top);
  if (role + 1 < rt->nroles)
    memcpy(vh + (nrows + 1) * n, bottom, (size_t)n * sizeof *bottom);
  else
    memset(vh + (nrows + 1) * n, 0, (size_t)n * sizeof *bottom);
  return FL_RT_OK;
}

int fl_pcgd_step(fl_rt *rt, const fl_diff *p, long nrows, double *x, double *r, double *dh, double *q, double *rz,
                 double *rr, double **halo_in, int tag)
{
  const long n = p->n, m = nrows * n;
  const double dinv = 1.0 / fl_diff_diagonal(p);
  double dq = 0.0, alpha, sums[2] = {0, 0}, beta;
  int rc;
  if ((rc = fl_pcgd_halo(rt, n, nrows, dh, halo_in, tag)) != FL_RT_OK)
    return rc;
  fl_diff_apply(p, nrows, dh, q);
  for (long i = 0; i < m; i++)
    dq += dh[n + i] * q[i];
  if ((rc = fl_rt_sum(rt, &dq, 1)) != FL_RT_OK)
    return rc;
  alpha = *rz / dq;
  for (long i = 0; i < m; i++) {
    double z;
    x[i] += alpha * dh[n + i];
    r[i] -= alpha * q[i];
    z = dinv * r[i];
    sums[0] += r[i] * z;
    sums[1] += r[i] * r[i];
  }
  if ((rc = fl_rt_sum(rt, sums, 2)) != FL_RT_OK)
    return rc;
  beta = sums[0] / *rz;
  for (long i = 0; i < m; i++)
    dh[n + i] = dinv * r[i] + beta * dh[n + i];
  *rz = sums[0];
  *rr = sums[1];
  return FL_RT_OK;
}
