/* dag.h — the static schedulers of task graphs (app.kind = workflow), a registry like the strategies': each maps
 * every task onto a host and a start time before the run, from the same graph and hosts (heft.h's structures);
 * the simulator then runs the tasks in that order and re-maps those failures take. `app.scheduler` picks one for a
 * workflow (heft when it is not given).
 *
 * Adding one: a file in policy/sched/ with its `fl_dag_sched_ops` (minmin.c is a whole one) and one line in
 * fl_dag_scheds[] (dag.c). */
#ifndef FL_DAG_H
#define FL_DAG_H

#include "heft.h"

#include <stddef.h>

typedef struct fl_dag_sched_ops {
  const char *name;
  const char *summary;
  /* The schedule of g on h: per task its host, start and finish, the order tasks were placed in, the makespan
   * (rank: HEFT's upward ranks, 0 for a scheduler without them). FL_ERR_INPUT for a task no host fits (its cores,
   * its memory), or a graph too large for the scheduler (said). */
  fl_err (*schedule)(const fl_heft_graph *g, const fl_heft_hosts *h, fl_heft_schedule *out);
} fl_dag_sched_ops;

/* What every scheduler prices alike: whether task i fits host p (its memory; its cores unless Amdahl's law lets it
 * run on fewer); its computation on p (its flops at p's speed, scaled by Amdahl's law to the cores p gives it);
 * its time on p (that and the read of its staged inputs as it starts); and when its parents' outputs are all on p
 * given their hosts and finish times so far. */
int fl_dag_fits(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p);
double fl_dag_compute_time(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p);
/* Amdahl's factor of a task of serial fraction f that ran on k cores, run on min(k, c) */
double fl_dag_amdahl(double f, long k, long c);
double fl_dag_exec_time(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p);
double fl_dag_data_ready(const fl_heft_graph *g, const fl_heft_hosts *h, const long *host, const double *finish, long i,
                         long p);

const fl_dag_sched_ops *fl_dag_sched_find(const char *name);
/* "heft | min-min", into buf */
const char *fl_dag_sched_names(char *buf, size_t size);

extern const fl_dag_sched_ops fl_dag_heft, fl_dag_minmin;

#endif
