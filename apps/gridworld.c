/* gridworld.c — the grid world's model and value-iteration sweep (see gridworld.h). */
#include "gridworld.h"

#include "rng.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

fl_err fl_gw_create(long rows, long cols, double discount, double p, uint64_t seed, fl_gw **out)
{
  fl_err rc = FL_OK;
  fl_gw *gw = NULL;
  gsl_rng *r = NULL;

  *out = NULL;
  FL_CHECK(rows >= 1 && cols >= 1, FL_ERR_INPUT, "grid %ldx%ld: at least 1x1", rows, cols);
  FL_CHECK(discount > 0 && discount < 1, FL_ERR_INPUT, "discount %g: in (0, 1)", discount);
  FL_CHECK(p >= 0 && p <= 1, FL_ERR_INPUT, "move probability %g: in [0, 1]", p);
  FL_ALLOC(gw, 1);
  gw->rows = rows;
  gw->cols = cols;
  gw->n = rows * cols;
  gw->discount = discount;
  gw->p = p;
  FL_ALLOC(gw->reward, gw->n);
  FL_TRY(fl_rng_create(seed, 0, FL_STREAM_APP, &r));
  gw->r_min = INFINITY;
  gw->r_max = -INFINITY;
  for (long s = 0; s < gw->n; s++) {
    gw->reward[s] = gsl_rng_uniform(r);
    gw->r_min = fmin(gw->r_min, gw->reward[s]);
    gw->r_max = fmax(gw->r_max, gw->reward[s]);
  }
  *out = gw;
  gw = NULL;
done:
  if (r)
    gsl_rng_free(r);
  fl_gw_destroy(&gw);
  return rc;
}

void fl_gw_destroy(fl_gw **pgw)
{
  fl_gw *gw = pgw ? *pgw : NULL;
  if (!gw)
    return;
  free(gw->reward);
  free(gw);
  *pgw = NULL;
}

/* The Bellman update of state s from its own and its four neighbours' values (a wall: the state's own). */
static inline double fl_gw_bellman(const fl_gw *gw, long s, double up, double down, double left, double right)
{
  const double c_other = (1.0 - gw->p) / 3.0, c_best = gw->p - c_other, delta = gw->discount;
  double sum = up + down + left + right, pick;
  if (c_best >= 0)
    pick = fmax(fmax(up, down), fmax(left, right));
  else
    pick = fmin(fmin(up, down), fmin(left, right));
  return gw->reward[s] + delta * (c_best * pick + c_other * sum);
}

double fl_gw_sweep(const fl_gw *gw, const double *in, double *out, long first, long last)
{
  const long cols = gw->cols, rows = gw->rows;
  double change = 0.0;
  for (long s = first; s < last; s++) {
    long i = s / cols, j = s - i * cols;
    double self = in[s];
    double up = i > 0 ? in[s - cols] : self, down = i + 1 < rows ? in[s + cols] : self;
    double left = j > 0 ? in[s - 1] : self, right = j + 1 < cols ? in[s + 1] : self;
    out[s] = fl_gw_bellman(gw, s, up, down, left, right);
    change = fmax(change, fabs(out[s] - self));
  }
  return change;
}

double fl_gw_update(const fl_gw *gw, long s, const double v[5], const unsigned char have[5])
{
  double self = v[0];
  return fl_gw_bellman(gw, s, have[1] ? v[1] : self, have[2] ? v[2] : self, have[3] ? v[3] : self,
                       have[4] ? v[4] : self);
}

int fl_gw_neighbours(const fl_gw *gw, long s, long nb[4])
{
  long i = s / gw->cols, j = s - i * gw->cols;
  int k = 0;
  if (i > 0)
    nb[k++] = s - gw->cols;
  if (i + 1 < gw->rows)
    nb[k++] = s + gw->cols;
  if (j > 0)
    nb[k++] = s - 1;
  if (j + 1 < gw->cols)
    nb[k++] = s + 1;
  return k;
}

double fl_gw_bound(const fl_gw *gw)
{
  return (1.0 - gw->discount * gw->p) / (1.0 - gw->discount) * (gw->r_max - gw->r_min);
}

long fl_gw_best_substitute(const fl_gw *gw, const unsigned char *failed, const double *own, const double *v, long s,
                           int empirical, double *w_out)
{
  long nb[4], best = -1;
  double bw = INFINITY, bound = fl_gw_bound(gw);
  int k = fl_gw_neighbours(gw, s, nb);
  for (int i = 0; i < k; i++) {
    double w;
    if (failed[nb[i]])
      continue;
    w = empirical ? fabs(own[s] - v[nb[i]]) : bound;
    if (w < bw) {
      bw = w;
      best = nb[i];
    }
  }
  if (w_out)
    *w_out = best >= 0 ? (double)(k + 1) * bw : INFINITY;
  return best;
}

int fl_gw_solve(const fl_gw *gw, double tol, long max_iter, double *v, long *iterations)
{
  double *tmp = malloc((size_t)gw->n * sizeof *tmp), *a = v, *b = tmp;
  long k = 0;
  int converged = 0;
  if (!tmp)
    return -1;
  memcpy(v, gw->reward, (size_t)gw->n * sizeof *v);
  while (k < max_iter) {
    double change = fl_gw_sweep(gw, a, b, 0, gw->n);
    double *t = a;
    a = b;
    b = t;
    k++;
    if (change <= tol) {
      converged = 1;
      break;
    }
  }
  if (a != v)
    memcpy(v, a, (size_t)gw->n * sizeof *v);
  free(tmp);
  *iterations = k;
  return converged;
}
