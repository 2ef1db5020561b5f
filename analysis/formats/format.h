/* format.h — the report's renderers, a registry like the strategies': `faultline report --format NAME` picks one.
 *
 * A renderer writes the report's groups (summary.h: the runs of each configuration, counted by status, and each
 * figure's n, mean, 95 % interval, min and max) in its form — or, for the text forms, says so and report.c lays out
 * its table (aligned text or Markdown). It also says in which form, if any, it writes a paired comparison
 * (`report --baseline`, compare.h).
 *
 * Adding a format: a file in analysis/formats/ with its `fl_report_format` (csv.c is a whole one) and one line in
 * FL_FORMAT_LIST (format.c). tests/storage/test_db.c runs every entry on the same rows. */
#ifndef FL_FORMAT_H
#define FL_FORMAT_H

#include "fl_err.h"
#include "summary.h"

#include <stdio.h>

typedef struct fl_report_format {
  const char *name;    /* --format NAME */
  const char *summary; /* one line, for --help and the docs */
  /* The groups as data; NULL: report.c's table, in Markdown when `markdown`. */
  fl_err (*groups)(const fl_summary *sm, FILE *out);
  int markdown;
  int compare; /* the form of a paired comparison (fl_compare_format), or -1: none in this format */
} fl_report_format;

int fl_report_format_count(void);
const fl_report_format *fl_report_format_at(int i);
/* The format called `name`, else NULL. */
const fl_report_format *fl_report_format_find(const char *name);
/* The names, "a, b or c", into buf. */
const char *fl_report_format_names(char *buf, size_t size);
/* "the table, csv and json formats write comparisons" from the registry (a static buffer). */
const char *fl_report_format_comparers(void);

extern const fl_report_format fl_format_csv; /* the others are named by the registry only (format.c) */

#endif
