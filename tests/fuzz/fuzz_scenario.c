/* fuzz_scenario.c — libFuzzer harness: scenario text (libinih through the key table, every value parser: units,
 * durations, speeds, seeds, intervals, grids), --set overrides and sweep terms. An input is split at the first
 * "\n--\n": before it the scenario text, after it override lines ("section.key=value"), then a sweep term list
 * after a second "\n--\n". Any outcome but a crash, a leak or undefined behaviour is fine. */
#include "registries.h"
#include "scenario.h"
#include "sweep.h"
#include "units.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1), *over = NULL, *sweep = NULL, *sep;
  fl_scenario *sc = NULL;
  double v;
  uint64_t u;
  if (fl_registries_init() != FL_OK) /* the plugins' keys (idempotent) */
    abort();
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if ((sep = strstr(text, "\n--\n"))) {
    *sep = '\0';
    over = sep + 4;
    if ((sep = strstr(over, "\n--\n"))) {
      *sep = '\0';
      sweep = sep + 4;
    }
  }
  /* the unit parsers on the raw first line */
  {
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\n"), text);
    (void)fl_units_duration(line, 1, &v);
    (void)fl_units_speed(line, &v);
    (void)fl_units_bytes(line, &v);
    (void)fl_units_number(line, 1, &v);
    (void)fl_units_u64(line, &u);
  }
  if (fl_scenario_replay(text, "", NULL, &sc) == FL_OK) {
    char *save = NULL, *line;
    for (line = over ? strtok_r(over, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save))
      (void)fl_scenario_set(sc, line);
    (void)fl_scenario_check(sc);
    if (sweep) {
      fl_sweep_dim dims[FL_MAX_SWEEP_DIMS];
      int ndims = 0;
      if (fl_sweep_parse(sweep, "fuzz", dims, &ndims) == FL_OK) {
        long combos = 1;
        for (int d = 0; d < ndims && combos <= 64; d++)
          combos *= dims[d].nvalues;
        for (long c = 0; c < combos && c < 64; c++)
          (void)fl_sweep_apply(sc, dims, ndims, c);
      }
    }
  }
  fl_scenario_destroy(&sc);
  fl_err_clear();
  free(text);
  return 0;
}
