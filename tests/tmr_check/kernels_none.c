/* kernels_none.c — a build without CUDA has no "cuda" environment. */
#include "checks.h"

#include <stddef.h>

const tmr_env *tmr_env_cuda(void)
{
  return NULL;
}
