/* diffusion.c — the anisotropic diffusion operator, its data, and a serial Jacobi-preconditioned CG
 * (see diffusion.h). With u = S(x) T(y), S = sin(pi x^2): S' = 2 pi x cos(pi x^2),
 * S'' = 2 pi cos(pi x^2) - 4 pi^2 x^2 sin(pi x^2), and b = -(kx S'' T + ky S T''). */
#include "diffusion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FL_PI 3.14159265358979323846

void fl_diff_init(fl_diff *p, long n)
{
  p->n = n;
  p->h = 1.0 / (double)(n + 1);
  p->kx = 1.0;
  p->ky = 0.01;
}

double fl_diff_diagonal(const fl_diff *p)
{
  return 2.0 * (p->kx + p->ky) / (p->h * p->h);
}

void fl_diff_apply(const fl_diff *p, long nrows, const double *x_halo, double *y)
{
  const long n = p->n;
  const double cx = p->kx / (p->h * p->h), cy = p->ky / (p->h * p->h), d = 2.0 * (cx + cy);
  for (long j = 0; j < nrows; j++) {
    const double *up = x_halo + j * n, *mid = up + n, *down = mid + n;
    double *out = y + j * n;
    for (long i = 0; i < n; i++) {
      double left = i > 0 ? mid[i - 1] : 0.0, right = i + 1 < n ? mid[i + 1] : 0.0;
      out[i] = d * mid[i] - cx * (left + right) - cy * (up[i] + down[i]);
    }
  }
}

static double fl_s(double x)
{
  return sin(FL_PI * x * x);
}
static double fl_s2(double x)
{
  return 2.0 * FL_PI * cos(FL_PI * x * x) - 4.0 * FL_PI * FL_PI * x * x * sin(FL_PI * x * x);
}

void fl_diff_rhs(const fl_diff *p, long row0, long nrows, double *b)
{
  for (long j = 0; j < nrows; j++) {
    double y = (double)(row0 + j + 1) * p->h;
    for (long i = 0; i < p->n; i++) {
      double x = (double)(i + 1) * p->h;
      b[j * p->n + i] = -(p->kx * fl_s2(x) * fl_s(y) + p->ky * fl_s(x) * fl_s2(y));
    }
  }
}

void fl_diff_exact(const fl_diff *p, long row0, long nrows, double *u)
{
  for (long j = 0; j < nrows; j++) {
    double y = (double)(row0 + j + 1) * p->h;
    for (long i = 0; i < p->n; i++)
      u[j * p->n + i] = fl_s((double)(i + 1) * p->h) * fl_s(y);
  }
}

long fl_diff_cg(const fl_diff *p, const double *b, double *x, double tol, long maxit)
{
  const long n = p->n, N = n * n;
  const double dinv = 1.0 / fl_diff_diagonal(p);
  double *r = malloc((size_t)N * sizeof *r), *z = malloc((size_t)N * sizeof *z);
  double *q = malloc((size_t)N * sizeof *q), *dh = calloc((size_t)(N + 2 * n), sizeof *dh);
  double rz = 0.0, bnorm = 0.0, rnorm;
  long it = -1;
  if (!r || !z || !q || !dh)
    goto done;
  memcpy(dh + n, x, (size_t)N * sizeof *x);
  fl_diff_apply(p, n, dh, q);
  for (long k = 0; k < N; k++) {
    r[k] = b[k] - q[k];
    z[k] = dinv * r[k];
    dh[n + k] = z[k];
    rz += r[k] * z[k];
    bnorm += b[k] * b[k];
  }
  bnorm = sqrt(bnorm);
  for (it = 0; it < maxit; it++) {
    double dq = 0.0, alpha, rz_new = 0.0;
    rnorm = 0.0;
    for (long k = 0; k < N; k++)
      rnorm += r[k] * r[k];
    if (sqrt(rnorm) <= tol * bnorm)
      goto done;
    fl_diff_apply(p, n, dh, q); /* q = A d, d lives in dh */
    for (long k = 0; k < N; k++)
      dq += dh[n + k] * q[k];
    alpha = rz / dq;
    for (long k = 0; k < N; k++) {
      x[k] += alpha * dh[n + k];
      r[k] -= alpha * q[k];
      z[k] = dinv * r[k];
      rz_new += r[k] * z[k];
    }
    for (long k = 0; k < N; k++)
      dh[n + k] = z[k] + (rz_new / rz) * dh[n + k];
    rz = rz_new;
  }
  it = -it;
done:
  free(r);
  free(z);
  free(q);
  free(dh);
  return it;
}
