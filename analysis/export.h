/* export.h — `faultline export`: the results as data. One row per run: every `runs` column typed as the column
 * table says (storage/columns.h), then every scenario key as a column of its own named `section.key`, in SI base
 * units (seconds, flop/s, flop, bytes, bytes/s), from the row's own scenario text and overrides; a compound key
 * (node power, a grid) also as its numbers. A column empty in every row is left out unless all_columns (a first
 * pass over the rows finds them). Ready for pandas.read_csv, R's read.csv, or json.load.
 *
 * CSV: a header line of names, numbers bare (the shortest digits that read back to the same double), text quoted
 * (RFC 4180), NULL empty, +infinity `inf` (`failures.repair = never`). JSON: {"columns": [{"name", "type", "unit",
 * "from"}], "rows": [{name: value}]}, NULL and infinities as null; rows streamed, so memory does not grow with
 * the file. */
#ifndef FL_EXPORT_H
#define FL_EXPORT_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stdio.h>

typedef enum fl_export_format { FL_EXPORT_CSV, FL_EXPORT_JSON } fl_export_format;

typedef struct fl_export_opts {
  fl_export_format format;
  const char *where; /* only runs matching this SQL condition on the runs table (NULL: all) */
  int all_columns;   /* also the columns empty in every row exported (left out otherwise) */
} fl_export_opts;

/* Write the runs of results file `h` (opened read-only; `path` names it in messages) to `out`. A --where that
 * SQLite refuses is FL_ERR_INPUT, named. Rows whose scenario no longer parses (a key this version does not know)
 * have empty key columns, and a line on stderr says which. */
fl_err fl_export(sqlite3 *h, const char *path, const fl_export_opts *opt, FILE *out);

#endif
