/* workflow.h — task graphs: a workflow DAG read from the formats users have, or generated (the grid world).
 *
 * Formats, chosen by the file's extension:
 *   .json  WfCommons instances (schema 1.3/1.4: workflow.tasks with parents and files; schema 1.5:
 *          workflow.specification + workflow.execution), read with jansson;
 *   .dax   Pegasus DAX (<job runtime=..><uses file|name=.. link=.. size=../></job>, <child><parent/></child>),
 *          read with libxml2;
 *   .dot   DOT as SimGrid reads it (a node's `size` = flops, an edge's `size` = bytes), read with libcgraph.
 * A task's compute cost is flops: DOT gives them; JSON and DAX give a runtime in seconds, converted with the speed
 * of the machine the instance recorded (WfCommons cpu speed in MHz x 10^6 flop/s per core, as WRENCH does) or
 * `reference_speed` when there is none. An edge carries the bytes of the files its source writes and its
 * destination reads (0 for a control dependency). Files no task writes are the workflow's inputs, staged before
 * the run on the storage a task reads them from (the simulator: the controller host, app.stage_inputs); their
 * sizes count in a task's in_bytes and staged_bytes.
 *
 * The substitution relation (seed 002): who can stand in for whom, with weight w_ijk (the error task k incurs when
 * j's output replaces i's). From a side file (CSV: task,substitute,weight[,dependent]) or a rule: tasks of the
 * same stage (WfCommons category, DAX transformation, DOT `category` or the name without its trailing digits)
 * whose input sizes differ by at most max_diff (relative), weight 1 + that difference, the K nearest by input
 * size. Pure data: no SimGrid. */
#ifndef FL_WORKFLOW_H
#define FL_WORKFLOW_H

#include "fl_err.h"

typedef struct fl_wf_task {
  char *name;          /* id as the file names it */
  char *stage;         /* see above */
  double flops;        /* compute cost */
  double in_bytes;     /* all the files it reads */
  double out_bytes;    /* all the files it writes */
  double staged_bytes; /* of in_bytes, the files no task writes: the workflow's inputs, staged before the run */
  long cores;          /* cores it ran on / needs on one host (WfCommons cores / coreCount, DOT cores; 1 otherwise) */
  double memory;       /* bytes of memory it needs (WfCommons memoryInBytes; 0: none given) */
  int line;            /* where the file declares it (0: unknown) */
} fl_wf_task;

typedef struct fl_wf {
  char *path; /* the file (or "gridworld RxC") */
  long ntasks, nedges;
  fl_wf_task *task;
  long *edge_src, *edge_dst; /* nedges, sorted by (src, dst), no duplicates */
  double *edge_bytes;
  long *edge_data;    /* nedges: the first edge from the same task carrying the same files (itself when none does): such
                       * twins carry one copy of the data, so a host reading it twice receives it once */
  long *child_start;  /* ntasks + 1: edges child_start[i] .. child_start[i+1]-1 leave i (edge ids) */
  long *parent_start; /* ntasks + 1: parent_edge[parent_start[i] ..] are the edges into i */
  long *parent_edge;
  long *topo;    /* a topological order (ntasks) */
  long *by_name; /* task indices sorted by name (fl_wf_find) */
  /* the substitution relation, grouped by failed task i: sub_start[i] .. sub_start[i+1]-1 */
  long nsubs;
  long *sub_start; /* ntasks + 1 */
  long *sub_j;     /* the substitute */
  long *sub_k;     /* the dependent this weight is for; -1: every dependent */
  double *sub_w;   /* w >= 0 */
  /* the staged inputs (files no task writes) each task reads: staged_file[staged_start[i] ..] (file numbers
   * 0 .. nstaged_files - 1), staged_size likewise */
  long nstaged_files;
  long *staged_start, *staged_file;
  double *staged_size;
  /* grid world graphs: task (sweep, state) = sweep * states + state; 0 otherwise */
  long gw_rows, gw_cols, gw_sweeps;
} fl_wf;

/* Read a graph: the format from the extension. Errors (FL_ERR_INPUT) name the file and the element (line where
 * the format gives one): malformed file, unknown parent or file reference, negative size, a cycle. */
fl_err fl_wf_load(const char *path, double reference_speed, fl_wf **out);
/* The same, with runtimes for jobs the file gives none (app.task_runtime: "DURATION" for every such job, or
 * "NAME:DURATION,..." by transformation with "*" for the others; NULL or "": none, such a job is refused). A bad
 * spec is FL_ERR_INPUT saying which term. */
fl_err fl_wf_load_runtimes(const char *path, double reference_speed, const char *task_runtime, fl_wf **out);
/* Check a task_runtime spec alone (the scenario's key, before anything is loaded). */
fl_err fl_wf_runtime_check(const char *task_runtime);
/* The grid world of seed 002 as a graph: `sweeps` x rows x cols tasks, task (t, s) reading (t-1, s) and its
 * 4 neighbours (8 bytes each), `flops` each; substitutes: the same sweep's neighbours, weight `bound`. */
fl_err fl_wf_gridworld(long rows, long cols, long sweeps, double flops, double bound, fl_wf **out);
void fl_wf_destroy(fl_wf **wf);

/* The substitution relation from a rule (stage, max_diff, at most k per side in input-size order) or from a CSV
 * side file; replaces any relation the graph had. Side-file errors name the file, the line and the task. */
fl_err fl_wf_subs_rule(fl_wf *wf, double max_diff, int k);
fl_err fl_wf_subs_file(fl_wf *wf, const char *path);

/* Task index by name (-1: none). O(log n). */
long fl_wf_find(const fl_wf *wf, const char *name);

#endif
