/* rng.c — stream derivation (see rng.h). The ids are hashed, not added, so (seed, replica) pairs that differ
 * in any bit give unrelated streams. */
#include "rng.h"

#include <xxhash.h>

unsigned long fl_rng_derive(uint64_t seed, uint64_t replica, uint64_t stream)
{
  uint64_t key[3] = {seed, replica, stream};
  uint64_t h = XXH64(key, sizeof key, 0x6661756c746c696eULL /* "faultlin" */);
  unsigned long s = (unsigned long)((h ^ (h >> 32)) & 0xffffffffUL);
  return s ? s : 4357UL; /* GSL maps seed 0 to its default; keep streams distinct from that */
}

fl_err fl_rng_create(uint64_t seed, uint64_t replica, uint64_t stream, gsl_rng **out)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r)
    return fl_err_set(FL_ERR_NOMEM, "out of memory allocating a random stream");
  gsl_rng_set(r, fl_rng_derive(seed, replica, stream));
  *out = r;
  return FL_OK;
}
