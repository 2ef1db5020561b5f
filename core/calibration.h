/* calibration.h — a calibration file (what `faultline calibrate` writes): an INI fragment of scenario keys that
 * `faultline simulate --calibration FILE` applies as overrides, so the row stores them like any --set. */
#ifndef FL_CALIBRATION_H
#define FL_CALIBRATION_H

#include "fl_err.h"

/* Read `path` into "section.key=value" overrides, in file order (*assignments and each string are the caller's
 * to free; see fl_calibration_free). Every key is checked against the scenario key table and its value parsed:
 * FL_ERR_INPUT names the file, line, key and value. */
fl_err fl_calibration_read(const char *path, char ***assignments, int *n);
void fl_calibration_free(char ***assignments, int n);

#endif
