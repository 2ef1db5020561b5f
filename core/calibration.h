/* calibration.h — a calibration file (what `faultline calibrate` writes): an INI fragment of scenario keys that
 * `faultline simulate --calibration FILE` applies as overrides, so the row stores them like any --set. */
#ifndef FL_CALIBRATION_H
#define FL_CALIBRATION_H

#include "fl_err.h"

#include <stddef.h>

/* Read `path` into "section.key=value" overrides, in file order (*assignments and each string are the caller's
 * to free; see fl_calibration_free). Every key is checked against the scenario key table and its value parsed:
 * FL_ERR_INPUT names the file, line, key and value. */
fl_err fl_calibration_read(const char *path, char ***assignments, int *n);
/* The costs only (`simulate SCENARIO --calibration FILE`): strategy.checkpoint_cost, file_cost, restart_cost and
 * downtime, so the scenario keeps its own job, platform and interval rule; `kind` (size bytes) gets the strategy the
 * file was calibrated with ("" if it does not say), whose checkpoint cost it holds. */
fl_err fl_calibration_read_costs(const char *path, char ***assignments, int *n, char *kind, size_t size);
void fl_calibration_free(char ***assignments, int n);

#endif
