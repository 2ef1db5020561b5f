/* calibration.c — see calibration.h. A calibration file is a scenario fragment: it is read by the scenario parser
 * itself (so a bad key or value is reported with its file, line, key and value, as in any scenario), and the keys
 * it set become overrides. */
#include "calibration.h"

#include "scenario.h"

#include <stdlib.h>

fl_err fl_calibration_read(const char *path, char ***assignments, int *n)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;
  *assignments = NULL;
  *n = 0;
  FL_TRY(fl_scenario_load(path, &sc));
  FL_TRY(fl_scenario_file_keys(sc, assignments, n));
  FL_CHECK(*n > 0, FL_ERR_INPUT, "%s: no key in it (expected what faultline calibrate writes)", path);
done:
  if (rc != FL_OK)
    fl_calibration_free(assignments, *n);
  fl_scenario_destroy(&sc);
  return rc;
}

void fl_calibration_free(char ***assignments, int n)
{
  if (!assignments || !*assignments)
    return;
  for (int i = 0; i < n; i++)
    free((*assignments)[i]);
  free(*assignments);
  *assignments = NULL;
}
