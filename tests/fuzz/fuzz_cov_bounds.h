/* fuzz_cov_bounds.h — libFuzzer's inline 8-bit counters of this executable, for a harness whose inputs run in a
 * child process and whose coverage it brings back (fuzz_platform). */
#ifndef FL_FUZZ_COV_BOUNDS_H
#define FL_FUZZ_COV_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

/* The first counter; *n the number of counters (faultline's instrumented code and the harness's). */
uint8_t *fl_fuzz_counters(size_t *n);

#endif
