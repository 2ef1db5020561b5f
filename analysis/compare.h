/* compare.h — `faultline report DB --baseline KEY=VALUE`: paired comparisons.
 *
 * Every replica of a sweep replays the same failures whatever the strategy (common random numbers: its streams
 * derive from (seed, replica) only), so two configurations are best compared replica by replica: for each
 * configuration that differs from the baseline's only in KEY, the differences d_r = x_r - b_r of each figure over
 * the replicas both completed, their mean and Student-t 95 % interval, and the ratio of the means. The variance of
 * a paired difference lacks the failures' own variance, which both runs share: an interval that two overlapping
 * CIs leave open is often decisive here.
 *
 * Rows pair when they have the same scenario name, mode, seed, replica and every scenario key but KEY (and the keys
 * that only say where rows go: run.db, run.replicas, run.events) — the values each row ran with, replayed from its
 * stored scenario text and overrides, compared in SI units (so `2y` and `63115200s` are one value). */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stdio.h>

typedef enum fl_compare_format { FL_COMPARE_TABLE, FL_COMPARE_CSV, FL_COMPARE_JSON } fl_compare_format;

typedef struct fl_compare_opts {
  const char *baseline; /* "section.key=value" */
  const char *scenario; /* only this scenario (NULL: all) */
  const char *where;    /* only runs matching this SQL condition on the runs table (NULL: all) */
  fl_compare_format format;
} fl_compare_opts;

/* Print the paired comparison of the runs of `h` (read-only; `path` names it) to `out`. An unknown key, a value
 * the key refuses, or no row with the baseline's value is FL_ERR_INPUT with a message that says what the rows
 * hold. */
fl_err fl_compare_print(sqlite3 *h, const char *path, const fl_compare_opts *opt, FILE *out);

#endif
