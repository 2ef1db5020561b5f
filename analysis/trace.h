/* trace.h — one run's timeline as a trace file that trace viewers open:
 *
 *   FILE.paje, FILE.trace  Paje, the format SimGrid's own tracing writes: ViTE opens it, PajeNG's pj_dump reads it
 *   FILE.json              Chrome's trace-event format: chrome://tracing, Perfetto (ui.perfetto.dev)
 *
 * From the run's events: the job's phases (compute, checkpoint, restart, downtime, waiting for nodes, verify: the
 * `phase` events of bsp and gridworld runs) as states of a `job` row, work that failures threw away as a `lost
 * work` row, each node that failed as a row of its own, down from its failure to its repair, and every other
 * event (failures, checkpoints committed, restarts, job starts, ...) as an instant with its detail. Times are the
 * run's seconds (Chrome: microseconds). Written to a temporary file and renamed: never half-written. */
#ifndef FL_TRACE_H
#define FL_TRACE_H

#include "fl_err.h"

#include <sqlite3.h>
#include <stdint.h>

/* A run's timeline, read from its events: intervals on rows (the job's phases, lost work, each failed node's
 * down time) and instants. */
enum { FL_TR_JOB, FL_TR_LOST, FL_TR_NODE }; /* the rows an interval is drawn on */

typedef struct fl_tspan {
  int row;
  long node;     /* FL_TR_NODE */
  double t0, t1; /* seconds from the run's start */
  char name[16]; /* the phase (compute, checkpoint, restart, downtime, wait, verify; real runs: compute,
                  * checkpoint, detection, recovery), "lost" or "down"; a workflow's tasks on their hosts: "task",
                  * "killed" */
  int interrupted;
} fl_tspan;

typedef struct fl_tinst {
  double t;
  char name[32]; /* kind and variant ("failure wait") */
  char *detail;
} fl_tinst;

typedef struct fl_tl {
  fl_tspan *span;
  long nspan, capspan;
  fl_tinst *inst;
  long ninst, capinst;
  long *nodes; /* the nodes that failed (or, in a workflow, ran a task), in order of first event */
  long nnodes, capnodes;
  double end; /* the run's end: its makespan, or the last event */
  char title[512];
  const char *unit; /* what failed: "node" (simulated), "process" (real runs) */
} fl_tl;

/* Read run `run_id`'s timeline (zeroed *tl first); FL_ERR_INPUT for a run that does not exist or has no events. */
fl_err fl_tl_load(sqlite3 *db, int64_t run_id, fl_tl *tl);
void fl_tl_free(fl_tl *tl);

/* FL_ERR_INPUT for a file name of another extension, a run that does not exist or has no events. */
fl_err fl_trace_export(sqlite3 *db, int64_t run_id, const char *file);

#endif
