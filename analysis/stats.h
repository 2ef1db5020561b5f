/* stats.h — the summary statistics reports and validation print: mean and the half-width of a Student-t
 * confidence interval (GSL). */
#ifndef FL_STATS_H
#define FL_STATS_H

#include <stddef.h>

/* Mean of x[0..n) and half-width of its `level` (e.g. 0.95) confidence interval; half = NAN when n < 2. */
void fl_stats_ci(const double *x, size_t n, double level, double *mean, double *half);

#endif
