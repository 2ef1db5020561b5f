/* fuzz_logs.c — libFuzzer harness: a failure log read as LANL and as FTA (logs.h), then turned into the
 * observations `faultline fit` fits (per node and per system, sorted), and fitted when there are enough (and at
 * most 32: beyond, the fit is the same code, only slower). */
#include "fit.h"
#include "fuzz_util.h"
#include "logs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[96];
  static const fl_log_format formats[] = {FL_LOG_LANL, FL_LOG_FTA, FL_LOG_CSV};
  if (fl_fuzz_write_file("log", "txt", data, size, path, sizeof path) != 0)
    return 0;
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    fl_log *log = NULL;
    if (fl_log_read(path, formats[f], -1, &log) == FL_OK) {
      for (int per = 0; per < 2; per++) {
        fl_fit_opts opts = {.per_system = per, .from_s = NAN, .to_s = NAN, .nodes = -1, .sort = 1};
        fl_fit_obs obs;
        if (fl_fit_observe(log, &opts, &obs) == FL_OK) {
          fl_fit_result r;
          /* the fit's code paths are the same at any size, and a fit of thousands of observations (a large
           * corpus entry) took 70 % of the time in exp(): fit the small ones, parse every one */
          if (obs.n <= 32)
            (void)fl_fit_one(&obs, fl_fit_family_find("weibull"), &r);
          fl_fit_obs_free(&obs);
        }
      }
    }
    fl_log_destroy(&log);
    fl_err_clear();
  }
  return 0;
}
