/* workload.h — a job trace replayed on a machine without failures (policy/sched/batch.h's plain replay), and
 * the figures centres judge a schedule by, for the log as it happened and for each scheduler.
 *
 *   utilisation:        node-seconds of the jobs / (span x machine nodes), span from the first submit to the
 *                       last end;
 *   wait:               start - submit;
 *   bounded slowdown:   max(1, (wait + run) / max(run, 10 s)) (Feitelson, Rudolph, Schwiegelshohn, Sevcik and
 *                       Wong, "Theory and practice in parallel job scheduling", JSSPP 1997), averaged over jobs. */
#ifndef FL_WORKLOAD_H
#define FL_WORKLOAD_H

#include "batch.h"
#include "swf.h"

#define FL_WL_SLOWDOWN_BOUND_S 10.0

typedef struct fl_wl_summary {
  long jobs;
  double span_s;      /* first submit to last end */
  double utilisation; /* NAN: unknown (a log without wait times) */
  double mean_wait_s, max_wait_s;
  double mean_bounded_slowdown;
  double node_hours; /* of the jobs' run times */
} fl_wl_summary;

/* The figures of a schedule: start_s[i] per job of t (NULL: as logged, submit + wait; NAN figures when the log has
 * no wait times). */
void fl_wl_summarise(const fl_swf *t, long machine_nodes, const double *start_s, fl_wl_summary *out);
/* Replay t on machine_nodes under ops (every job must fit: FL_ERR_INPUT naming the file, line and field
 * otherwise); start_s[] (t->njobs) gets each job's start. */
fl_err fl_wl_replay(const fl_swf *t, long machine_nodes, const fl_batch_ops *ops, double *start_s);

#endif
