/* workload_keys.h — the workload app's own keys (a machine's job mix, apps/workload.c), read by its simulator
 * (sim/workload/) through fl_workload_options. */
#ifndef FL_WORKLOAD_KEYS_H
#define FL_WORKLOAD_KEYS_H

#include "scenario.h"

typedef struct fl_workload_opts {
  char *trace;           /* app.trace: the SWF job trace, relative to the scenario (NULL: generated jobs) */
  long jobs;             /* the trace's first this many jobs (0: all); without a trace, how many */
  char *job_nodes;       /* without a trace: "MIN-MAX" nodes a job (powers of two between) */
  double job_time_s;     /* without a trace: mean run time */
  double arrival_s;      /* without a trace: mean time between submits (0: all at once) */
  long cores_per_node;   /* a job's nodes = ceil(processors / this) */
  int requeue;           /* a failed job goes back 0 first in the queue, 1 last */
  int ckpt_io;           /* 0 oblivious, 1 ordered, 2 least-waste checkpoint I/O */
  int checkpoint_memory; /* 1 a job's checkpoint per node is its memory from the trace */
  int ckpt_period;       /* 0 own (each job's rule alone), 1 cooperative (the PFS's capacity shared) */
} fl_workload_opts;

extern const fl_keyset fl_workload_keys;
/* sc's values of the workload's keys (borrowed). */
const fl_workload_opts *fl_workload_options(const fl_scenario *sc);

#endif
