/* tmr_util.h — helpers shared by the TMR suites (test_tmr.c on the CPU, test_tmr_cuda.c on a GPU). */
#ifndef FL_TEST_TMR_UTIL_H
#define FL_TEST_TMR_UTIL_H

#include "tmr.h"

#include <string.h>

/* A fault on output `array` of `replica` at `element`, bit `bit`. */
static inline fl_tmr_fault fault_at(int replica, int array, long element, int bit, int persistent)
{
  fl_tmr_fault f = {.replica = replica,
                    .target = FL_TMR_OUTPUT,
                    .array = array,
                    .element = element,
                    .bit = bit,
                    .persistent = persistent};
  return f;
}

/* Bitwise equality of two doubles (NaNs included). */
static inline int same_bits(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0;
}

#endif
