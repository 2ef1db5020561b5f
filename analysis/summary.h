/* summary.h — the report's groups as numbers, which its renderers write (formats/format.h: CSV, JSON, ...).
 *
 * A group is the runs of one configuration: the same scenario name, mode and value of every scenario key (replayed
 * from each row, rowset.h) but the seed and the keys that only say where rows go (run.db, run.replicas,
 * run.events). Per group: the identity keys (app.kind, strategy.kind, failures.model, failures.node_mtbf) and
 * every key whose value differs between the groups shown, in SI units; the count of runs by status; and for each
 * figure (makespan_s, waste, node_hours, ..., summary.c's list) over the completed runs that have it: n, mean, the
 * half-width of the Student-t 95 % interval, min and max. Groups come in the order of those keys' values (numbers
 * as numbers).
 *
 * CSV: one line per group, columns `scenario, mode, <keys>, <dimensions>, runs, completed, failed, timeout,
 * wrong_result, data_lost, no_progress, maxit` (dimensions: the lossy-CG study's codec, recovery_mode, lost_at where
 * they vary), then `<figure>_n, <figure>_mean, <figure>_ci95, <figure>_min, <figure>_max` for every
 * figure (empty where none). JSON: {"figures": [{"name", "unit"}], "groups": [{"scenario", "mode", "keys": {...},
 * "runs", "status": {...}, "figures": {name: {"n", "mean", "ci95", "min", "max"}}}]}, figures without values left
 * out. */
#ifndef FL_SUMMARY_H
#define FL_SUMMARY_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stdio.h>

typedef struct fl_summary_opts {
  const char *scenario; /* only this scenario (NULL: all) */
  const char *where;    /* an SQL condition on runs (NULL: all) */
} fl_summary_opts;

/* The groups as data, for the renderers (formats/, the HTML report). */
#define FL_SUMMARY_MAX_STATUS 8
#define FL_SUMMARY_MAX_FIG 64
typedef struct fl_summary_stat {
  size_t n;                    /* completed runs with a value */
  double mean, ci95, min, max; /* NAN when n = 0; ci95 NAN when n = 1 */
} fl_summary_stat;
typedef struct fl_summary_group {
  const char *scenario, *mode;
  const char *const *vals; /* per scenario key (fl_scenario_key_at order), as rowset.h writes them */
  const char *const *dims; /* per dimension (fl_summary_dim_name) */
  long runs, status[FL_SUMMARY_MAX_STATUS];
  fl_summary_stat fig[FL_SUMMARY_MAX_FIG];
} fl_summary_group;
typedef struct fl_summary {
  fl_summary_group *groups; /* in order */
  int ngroups;
  int *shown, nshown; /* the keys shown (identity, then those that vary) */
  int dims_shown[4], ndims;
  struct fl_rowset *rs; /* private: owns the strings */
} fl_summary;
fl_err fl_summary_compute(sqlite3 *h, const char *path, const fl_summary_opts *opt, fl_summary **out);
void fl_summary_destroy(fl_summary **sm);
int fl_summary_nfig(void);
const char *fl_summary_fig_name(int f); /* "makespan_s", "waste", ... */
const char *fl_summary_fig_unit(int f); /* "s", "node-h", "" */
int fl_summary_nstatus(void);
const char *fl_summary_status_name(int s);
const char *fl_summary_dim_name(int d);
/* A workload study's machine figures (fl_summary_fig_name names), in the order every renderer shows them: the text
 * report's machine table and the HTML page. *n set. */
const char *const *fl_summary_machine_figs(int *n);

#endif
