/* fuzz_cov_bounds.c — where libFuzzer's inline 8-bit counters of this executable lie (the linker names the ends of
 * the __sancov_cntrs section). Compiled without coverage instrumentation: an instrumented file refers to the same
 * names for its own counters, and a second declaration there would take them from it. */
#include "fuzz_cov_bounds.h"

#include <stdint.h>

extern uint8_t __start___sancov_cntrs[], __stop___sancov_cntrs[];

uint8_t *fl_fuzz_counters(size_t *n)
{
  *n = (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs);
  return __start___sancov_cntrs;
}
