/* heft.h — HEFT, the list scheduler of Topcuoglu, Hariri and Wu ("Performance-effective and low-complexity task
 * scheduling for heterogeneous computing", IEEE TPDS 13(3), 2002), as the simulator maps a task graph onto the
 * platform's hosts.
 *
 *   1. Upward ranks: rank_u(i) = w_i + max over children j of (c_ij + rank_u(j)), with w_i the task's mean
 *      execution time over the hosts (flops x mean of 1/speed) and c_ij the mean communication time of the edge
 *      (mean latency + bytes / mean bandwidth over host pairs).
 *   2. Tasks in decreasing rank_u (ties: topological order, so a parent always comes first).
 *   3. Each task to the host of earliest finish time, with the insertion policy: it may fill an idle gap of a
 *      host between two tasks already placed. EST(i, p) = max(earliest gap on p, max over parents m of
 *      AFT(m) + c(host(m), p)), c = 0 on the same host; ties go to the lowest host index.
 * On large platforms (ntasks x nhosts over FL_HEFT_EXHAUSTIVE), step 3 looks at the parents' hosts and the
 * `candidates` hosts that become free first instead of every host: O(n (P + K log H)) instead of O(n H).
 * A task goes only on a host with its memory and (without Amdahl's law) its cores: one no host fits is FL_ERR_INPUT
 * (the caller names it); with the law, fewer cores slow it instead (fl_dag_compute_time). A task with staged inputs
 * reads them from storage when it starts: its execution time on p is the read (hosts.stage) plus its computation,
 * and w_i counts the read at the mean latency and bandwidth. Pure code: the host speeds and the communication
 * times come from the caller. */
#ifndef FL_HEFT_H
#define FL_HEFT_H

#include "fl_err.h"

#define FL_HEFT_EXHAUSTIVE 20000000.0

typedef struct fl_heft_graph {
  long ntasks, nedges;
  const double *flops;
  const long *edge_src, *edge_dst; /* edges sorted by source */
  const double *edge_bytes;
  const long *child_start;                /* ntasks + 1 */
  const long *parent_start, *parent_edge; /* ntasks + 1, nedges */
  const long *topo;                       /* a topological order */
  const long *cores;                      /* cores each task ran on (NULL: 1) */
  const double *staged_bytes;             /* bytes each task reads from storage when it starts (NULL: none) */
  const double *memory;                   /* bytes of memory each task needs (NULL: none) */
  /* Amdahl's law (NULL: none, a task needs its cores): each task's serial fraction f; on a host of fewer cores
   * than it ran on (k) it runs on those c, its time times (f + (1 - f) / c) / (f + (1 - f) / k) */
  const double *serial;
} fl_heft_graph;

typedef struct fl_heft_hosts {
  long nhosts;
  const double *speed;  /* flop/s */
  const long *cores;    /* cores of each host (NULL: enough for every task); a task goes only where it fits */
  const double *memory; /* bytes of memory of each host (NULL, or 0 for a host: no limit) */
  /* time to move `bytes` from host a to host b (a != b) */
  double (*comm)(void *ctx, long a, long b, double bytes);
  /* time to read `bytes` of staged inputs from storage onto host p (NULL: staged inputs cost nothing) */
  double (*stage)(void *ctx, long p, double bytes);
  void *ctx;
  double mean_latency, mean_bandwidth; /* over host pairs, for the ranks */
  long candidates;                     /* large platforms: hosts examined besides the parents' (>= 1) */
} fl_heft_hosts;

typedef struct fl_heft_schedule {
  long *host;             /* per task */
  double *start, *finish; /* per task, the schedule's times */
  double *rank;           /* rank_u per task */
  long *order;            /* the tasks in scheduling order (decreasing rank_u) */
  double makespan;
  int exhaustive; /* every host examined for every task */
} fl_heft_schedule;

fl_err fl_heft(const fl_heft_graph *g, const fl_heft_hosts *h, fl_heft_schedule *out);

/* The means of step 1 over n samples: the arithmetic mean of v, and the harmonic mean (n / sum of 1/v), each
 * taken relative to the first sample so that equal samples give exactly their value. A plain sum of 256 copies of
 * 1/1e8 gives a mean bandwidth of 100000000.00000057: ranks that are equal by hand then differ in the last bit and
 * their tie is broken by rounding, not by the topological order. */
double fl_heft_mean(const double *v, long n);
double fl_heft_harmonic_mean(const double *v, long n);
void fl_heft_free(fl_heft_schedule *s);

#endif
