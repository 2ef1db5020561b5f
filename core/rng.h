/* rng.h — random streams derived from (scenario seed, replica, stream id), after ROSS: results never depend
 * on the order in which entities draw, and two strategies run with the same seed see the same failures
 * (common random numbers), because the failure injector's stream is separate from everything else. */
#ifndef FL_RNG_H
#define FL_RNG_H

#include "fl_err.h"

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* Stream ids: one per consumer, never reused for another purpose. */
enum {
  FL_STREAM_FAILURES = 1, /* the failure injector */
  FL_STREAM_APP = 2,      /* the application model */
  FL_STREAM_POLICY = 3,   /* randomised policies */
  FL_STREAM_PROCESS = 4,  /* process crashes in the simulator (failures.process_mtbf) */
  FL_STREAM_GROUPS = 5,   /* group failures in the simulator (failures.group_mtbf) */
  FL_STREAM_SDC = 6,      /* silent data corruption in the simulator (failures.sdc_mtbf) */
  FL_STREAM_BURSTS = 7,   /* offspring failures of bursts in the simulator (failures.burst_ratio) */
  FL_STREAM_TEST = 99,
};

/* A new GSL generator (MT19937) seeded from a 64-bit hash (xxh64) of the three ids. Caller frees with
 * gsl_rng_free. */
fl_err fl_rng_create(uint64_t seed, uint64_t replica, uint64_t stream, gsl_rng **out);
/* The 32-bit seed fl_rng_create gives MT19937 for these ids (MT19937 takes 32 bits). */
unsigned long fl_rng_derive(uint64_t seed, uint64_t replica, uint64_t stream);

#endif
