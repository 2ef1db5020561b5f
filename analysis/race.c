/* race.c — see race.h. */
#include "race.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

/* the differences' mean and standard deviation, in one pass each (n small: a few hundred at most) */
static void fl_race_diff(const double *a, const double *b, long n, double *mean, double *sd)
{
  double s = 0.0, q = 0.0;
  for (long i = 0; i < n; i++)
    s += a[i] - b[i];
  *mean = n > 0 ? s / (double)n : NAN;
  for (long i = 0; i < n; i++)
    q += (a[i] - b[i] - *mean) * (a[i] - b[i] - *mean);
  *sd = n > 1 ? sqrt(q / (double)(n - 1)) : NAN;
}

void fl_race_paired(const double *a, const double *b, long n, double level, double *mean, double *half)
{
  double sd;
  fl_race_diff(a, b, n, mean, &sd);
  *half = n > 1 ? gsl_cdf_tdist_Pinv(0.5 + 0.5 * level, (double)(n - 1)) * sd / sqrt((double)n) : NAN;
}

typedef struct fl_race_p {
  double p;
  int i;
} fl_race_p;

static int fl_race_by_p(const void *a, const void *b)
{
  const fl_race_p *x = a, *y = b;
  return x->p < y->p ? -1 : x->p > y->p ? 1 : x->i - y->i;
}

int fl_race_step(const double *const *y, const int *alive, int m, long n, double alpha, int *drop, double *p)
{
  int leader = -1, k = 0;
  double best = INFINITY;
  fl_race_p *order = malloc((size_t)(m > 0 ? m : 1) * sizeof *order);
  for (int i = 0; i < m; i++) {
    drop[i] = 0;
    p[i] = NAN;
    if (alive[i]) {
      double mean = n > 0 ? gsl_stats_mean(y[i], 1, (size_t)n) : NAN;
      if (leader < 0 || mean < best) {
        best = mean;
        leader = i;
      }
    }
  }
  if (leader < 0 || n < 2 || !order) {
    free(order);
    return leader;
  }
  for (int i = 0; i < m; i++) {
    double mean, sd;
    if (!alive[i] || i == leader)
      continue;
    fl_race_diff(y[i], y[leader], n, &mean, &sd);
    if (sd > 0)
      p[i] = gsl_cdf_tdist_Q(mean / (sd / sqrt((double)n)), (double)(n - 1));
    else
      p[i] = mean > 0 ? 0.0 : 1.0; /* worse on every replica by the same amount, or the same everywhere */
    order[k].p = p[i];
    order[k++].i = i;
  }
  /* Holm: the j-th smallest p-value (from 0) is compared with alpha / (k - j); the first that passes stops */
  qsort(order, (size_t)k, sizeof *order, fl_race_by_p);
  for (int j = 0; j < k && order[j].p <= alpha / (double)(k - j); j++)
    drop[order[j].i] = 1;
  free(order);
  return leader;
}
