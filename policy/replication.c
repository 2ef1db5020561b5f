/* replication.c — MNFTI (see replication.h). Degree 2 is exact through log-gamma (no overflow at a million
 * groups); degree 3 samples failure orders: each failure picks a uniformly random living node (rejection
 * against the dead set, which stays small until the interruption). */
#include "replication.h"

#include "rng.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FL_MNFTI_SAMPLES 400

fl_err fl_pol_mnfti(long degree, long groups, double *mnfti)
{
  fl_err rc = FL_OK;
  gsl_rng *r = NULL;
  unsigned char *dead = NULL, *count = NULL;
  long *touched = NULL;
  double sum = 0.0;

  FL_CHECK(groups >= 1, FL_ERR_INPUT, "MNFTI needs at least one group (%ld)", groups);
  FL_CHECK(degree >= 1 && degree <= 3, FL_ERR_INPUT, "MNFTI for degree %ld: 1, 2 or 3", degree);
  if (degree == 1) {
    *mnfti = 1.0;
    goto done;
  }
  if (degree == 2) {
    *mnfti = exp((double)groups * log(4.0) - gsl_sf_lnchoose((unsigned)(2 * groups), (unsigned)groups));
    goto done;
  }
  FL_TRY(fl_rng_create(0x6d6e667469ULL /* "mnfti" */, (uint64_t)groups, FL_STREAM_POLICY, &r));
  FL_ALLOC(dead, groups * degree);
  FL_ALLOC(count, groups);
  FL_ALLOC(touched, groups * degree);
  for (int s = 0; s < FL_MNFTI_SAMPLES; s++) {
    long n = 0;
    for (;;) {
      long node = (long)gsl_rng_uniform_int(r, (unsigned long)(groups * degree));
      if (dead[node])
        continue; /* failures strike living nodes only */
      dead[node] = 1;
      touched[n++] = node;
      if (++count[node / degree] == degree)
        break;
    }
    sum += (double)n;
    for (long k = 0; k < n; k++) {
      dead[touched[k]] = 0;
      count[touched[k] / degree] = 0;
    }
  }
  *mnfti = sum / FL_MNFTI_SAMPLES;
done:
  if (r)
    gsl_rng_free(r);
  free(dead);
  free(count);
  free(touched);
  return rc;
}
