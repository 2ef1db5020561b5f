/* stats.c — see stats.h. */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

void fl_stats_ci(const double *x, size_t n, double level, double *mean, double *half)
{
  if (n == 0) {
    *mean = NAN;
    *half = NAN;
    return;
  }
  *mean = gsl_stats_mean(x, 1, n);
  if (n < 2) {
    *half = NAN;
    return;
  }
  *half = gsl_cdf_tdist_Pinv(0.5 + 0.5 * level, (double)(n - 1)) * gsl_stats_sd_m(x, 1, n, *mean) / sqrt((double)n);
}
