/* report.h — `faultline report`: one row per (scenario, mode, strategy, interval, nodes, node MTBF, failure
 * model) with the mean and 95 % confidence interval of makespan, waste (1 - work / makespan), failures and
 * interruptions over the completed replicas. */
#ifndef FL_REPORT_H
#define FL_REPORT_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

typedef struct fl_report_opts {
  const char *scenario;   /* only this scenario (NULL: all) */
  int64_t min_id, max_id; /* only runs with ids in [min_id, max_id] (0, 0: all) */
  const int64_t *ids;     /* or only these runs (a command's own rows, whatever others wrote meanwhile) */
  size_t nids;
  const struct fl_report_format *format; /* the renderer (formats/format.h); NULL: aligned text */
  const char *where; /* only runs matching this SQL condition on the runs table (NULL: all) */
} fl_report_opts;

fl_err fl_report_print(sqlite3 *db, const fl_report_opts *opt, FILE *out);

#endif
