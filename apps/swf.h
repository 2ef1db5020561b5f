/* swf.h — job traces in the Standard Workload Format of the Parallel Workloads Archive.
 *
 * SWF (Chapin, Cirne, Feitelson et al., "Benchmarks and standards for the evaluation of parallel job schedulers",
 * JSSPP 1999; https://www.cs.huji.ac.il/labs/parallel/workload/swf.html) is one job a line, 18 whitespace-separated
 * numbers, -1 where a value is unknown; header comments start with ';' and carry `Key: value` fields. What a
 * machine-level simulation needs of a job is read here: its number (field 1), submit time (2), the trace's wait
 * (3) and run time (4), allocated processors (5, else requested, 8), memory per processor (7 used, else 10
 * requested, KB), requested time (9) and status (11). The header's MaxNodes and MaxProcs size the machine.
 *
 * A job's nodes are ceil(processors / cores_per_node). Jobs the log never ran (no run time, or no processor
 * count) are skipped and counted, as the archive's own tools do; a job with no requested time gets its run time
 * as the estimate (perfect estimates), counted too. A file read through zlib: plain or gzip-compressed alike. */
#ifndef FL_SWF_H
#define FL_SWF_H

#include "fl_err.h"

#include <stdint.h>

typedef struct fl_swf_job {
  long id;         /* field 1: the trace's job number */
  long line;       /* line in the file, for messages */
  double submit_s; /* field 2, seconds from the log's start */
  double wait_s;   /* field 3 as logged (-1: unknown) */
  double run_s;    /* field 4: the failure-free run time */
  double req_s;    /* field 9: requested time, the scheduler's estimate (the run time when unknown) */
  double mem_kb;   /* memory per processor, KB (field 7, else 10; -1 unknown) */
  long procs;      /* field 5, else 8 */
  long nodes;      /* ceil(procs / cores_per_node) */
  int status;      /* field 11 (1 completed, 0 failed, 5 cancelled; -1 unknown) */
} fl_swf_job;

typedef struct fl_swf {
  char *path;
  fl_swf_job *jobs; /* in submit order (stable for equal submit times) */
  long njobs;
  long max_nodes, max_procs; /* header fields MaxNodes, MaxProcs (0: absent) */
  long skipped;              /* lines of jobs that never ran (run time or processors unknown) */
  long no_estimate;          /* jobs without a requested time (their run time is used) */
  long unsorted;             /* jobs whose submit time came before an earlier line's (the list is sorted) */
} fl_swf;

/* Read `path` (plain or gzip). cores_per_node >= 1. A bad line, or a job larger than the header's MaxProcs or
 * MaxNodes: FL_ERR_INPUT "FILE:LINE: field N (name) 'value': reason". A file without a job: FL_ERR_INPUT.
 * The caller owns *out. */
fl_err fl_swf_read(const char *path, long cores_per_node, fl_swf **out);
/* The same one job at a time, in file order, for a caller that keeps only the jobs it needs (memory by the jobs in
 * flight, not the trace): fl_swf_next gives the next job (*got = 1) or says the file ended (*got = 0), with the
 * errors of fl_swf_read as they come. Jobs out of submit order are counted (fl_swf_stream_info's unsorted), not
 * sorted: a caller that needs submit order and sees unsorted > 0 reads the file whole instead. */
typedef struct fl_swf_stream fl_swf_stream;
fl_err fl_swf_open(const char *path, long cores_per_node, fl_swf_stream **out);
fl_err fl_swf_next(fl_swf_stream *s, fl_swf_job *job, int *got);
/* Path, header fields and counts so far (jobs NULL, njobs the jobs given so far). */
const fl_swf *fl_swf_stream_info(const fl_swf_stream *s);
void fl_swf_close(fl_swf_stream **s);
/* The machine's nodes as the header gives them: ceil(MaxProcs / cores_per_node), else MaxNodes, else 0. */
long fl_swf_machine_nodes(const fl_swf *t, long cores_per_node);
/* Node-seconds of the trace's jobs over [first submit, last end as logged]: the log's own utilisation on a
 * machine of `nodes` (NAN when the log has no wait times). */
double fl_swf_logged_utilisation(const fl_swf *t, long nodes);
void fl_swf_destroy(fl_swf **t);

/* A generated job mix for what-if studies: `jobs` jobs submitted at exponential gaps of mean mean_gap_s (0: all at
 * t = 0), each on a power of two of nodes drawn uniformly among those in [min_nodes, max_nodes], running
 * mean_run_s x U(0.5, 1.5) and asking 1.25 times that; whole seconds, as logs have them. Drawn from the stream
 * (seed, replica 0, FL_STREAM_APP): every replica and every configuration of a study sees the same jobs. */
typedef struct fl_swf_gen {
  long jobs, min_nodes, max_nodes;
  double mean_run_s, mean_gap_s;
  uint64_t seed;
} fl_swf_gen;
fl_err fl_swf_generate(const fl_swf_gen *g, fl_swf **out);
/* The same mix as a stream (fl_swf_next), drawn job by job. */
fl_err fl_swf_open_generated(const fl_swf_gen *g, fl_swf_stream **out);

#endif
