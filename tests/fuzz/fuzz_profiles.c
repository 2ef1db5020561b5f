/* fuzz_profiles.c — libFuzzer harness: a SimGrid profile ("DATE VALUE" lines, LOOPAFTER), read as a host's state
 * profile (outages) and as a speed profile, which is then evaluated over a few periods, as a replica plays it. */
#include "profiles.h"
#include "fuzz_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  fl_profiles p;
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  memset(&p, 0, sizeof p);
  p.v = calloc(1, sizeof *p.v);
  p.speed = calloc(1, sizeof *p.speed);
  if (p.v && p.speed) {
    p.n = p.nspeed = 1;
    (void)fl_profiles_parse_state(text, "fuzz.profile", &p.v[0]);
    fl_err_clear();
    if (fl_profiles_parse_speed(text, "fuzz.profile", &p.speed[0]) == FL_OK) {
      double t = 0.0;
      /* walk its changes as a replica does (the engine stops where floating point cannot tell the next date
       * from this one); a value is never NaN and never 0 */
      for (int k = 0; k < 64 && isfinite(t); k++) {
        double next, v = fl_host_speed_at(&p.speed[0], t, &next);
        if (!(v > 0))
          abort();
        if (!(next > t))
          break;
        t = next;
      }
    }
    fl_err_clear();
  }
  fl_profiles_free(&p);
  free(text);
  return 0;
}
