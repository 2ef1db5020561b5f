/* plot.h — `faultline report DB --plot FILE --x KEY [--y waste|makespan|failures|interruptions]`: one line per
 * strategy (and per value of every other key that differs between the rows), the mean of y over the completed
 * replicas at each value of the scenario key KEY, with its 95 % Student-t confidence band. Drawn by gnuplot (a
 * maintained plotting program: Debian's gnuplot-nox), as SVG, PNG or PDF by the file's extension. */
#ifndef FL_PLOT_H
#define FL_PLOT_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_plot_opts {
  const char *file;     /* output: .svg, .png or .pdf */
  const char *x;        /* a numeric scenario key, "section.key" */
  const char *y;        /* "waste" (default), "makespan", "failures", "interruptions" */
  const char *scenario; /* only this scenario's rows (NULL: all) */
} fl_plot_opts;

/* The numeric scenario keys (not run.*) whose values differ between the completed rows, comma-separated into buf
 * ("" when none). */
fl_err fl_plot_varying_keys(sqlite3 *db, const char *scenario, char *buf, size_t size);

/* `faultline report DB --timeline RUN_ID --plot FILE`: one run's events (failures, repairs, checkpoints,
 * interruptions, restarts, spare moves, rollbacks, ...) on a time axis, one row of marks per kind. FL_ERR_INPUT
 * when the run does not exist or has no events (run.events = none). */
fl_err fl_plot_timeline(sqlite3 *db, int64_t run_id, const char *file);

/* FL_ERR_INPUT (nothing written) for an unknown --y, an --x that is not a numeric key or does not vary in the rows
 * (the message lists the keys that do), an unknown extension, or no completed row; FL_ERR_IO when gnuplot is
 * missing or fails. The file appears complete or not at all. */
fl_err fl_plot(sqlite3 *db, const fl_plot_opts *opt);

/* `faultline report DB --plot FILE --bars [--y FIGURE]`: a bar per configuration (the report's groups, summary.h:
 * labelled by the strategy and the keys that vary), the mean of a report figure with its 95 % interval as an error
 * bar; for comparisons along no numeric axis (strategies, weightings). opt->x is unused. */
fl_err fl_plot_bars(sqlite3 *db, const fl_plot_opts *opt);

#endif
