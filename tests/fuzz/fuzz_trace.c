/* fuzz_trace.c — libFuzzer harness: a failure trace CSV (time, node|host, downtime) read by the trace failure
 * model, through the same path `simulate` takes (a scenario naming the file). */
#include "fm.h"
#include "registries.h"
#include "scenario.h"
#include "fuzz_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* the scenario naming the trace is parsed once (it is not what is fuzzed); each input is the trace file */
  static char path[96];
  static fl_scenario *sc;
  fl_fm *fm = NULL;
  if (fl_fuzz_write_file("trace", "csv", data, size, path, sizeof path) != 0)
    return 0;
  if (!sc) {
    char text[256];
    if (fl_registries_init() != FL_OK) /* the plugins' keys */
      abort();
    snprintf(text, sizeof text, "[failures]\nmodel = trace\ntrace = %s\nrepair = 1h\n[app]\nnodes = 4\n", path);
    if (fl_scenario_replay(text, "", NULL, &sc) != FL_OK)
      abort();
  }
  if (fl_fm_create(sc, &fm) == FL_OK) {
    for (size_t i = 0; i < fl_fm_trace_count(fm); i++)
      (void)fl_fm_trace_at(fm, i);
  }
  fl_fm_destroy(&fm);
  fl_err_clear();
  return 0;
}
