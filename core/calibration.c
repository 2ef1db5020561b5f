/* calibration.c — see calibration.h. A calibration file is a scenario fragment: it is read by the scenario parser
 * itself (so a bad key or value is reported with its file, line, key and value, as in any scenario), and the keys
 * it set become overrides. */
#include "calibration.h"

#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

fl_err fl_calibration_read_costs(const char *path, char ***assignments, int *n, char *kind, size_t size)
{
  static const char *const costs[] = {
      "strategy.checkpoint_cost=", "strategy.file_cost=", "strategy.restart_cost=", "strategy.downtime="};
  fl_err rc = FL_OK;
  int m = 0;
  FILE *f;
  kind[0] = '\0';
  FL_TRY(fl_calibration_read(path, assignments, n));
  for (int i = 0; i < *n; i++) {
    int keep = 0;
    for (size_t c = 0; c < sizeof costs / sizeof costs[0]; c++)
      keep |= strncmp((*assignments)[i], costs[c], strlen(costs[c])) == 0;
    if (keep)
      (*assignments)[m++] = (*assignments)[i];
    else
      free((*assignments)[i]);
  }
  *n = m;
  FL_CHECK(m > 0, FL_ERR_INPUT, "%s: no checkpoint or restart cost in it (expected what faultline calibrate writes)",
           path);
  /* the header faultline calibrate writes: "; faultline calibrate PATH --np N (strategy KIND), measured ..." */
  if ((f = fopen(path, "r"))) {
    char line[1024];
    const char *p;
    if (fgets(line, sizeof line, f) && (p = strstr(line, "(strategy ")))
      snprintf(kind, size, "%.*s", (int)strcspn(p + 10, ")"), p + 10);
    fclose(f);
  }
done:
  if (rc != FL_OK)
    fl_calibration_free(assignments, *n);
  return rc;
}
