/* batch.h — batch schedulers: which waiting jobs of a machine start now (a registry, like the strategies).
 *
 * A machine-level scenario (app.kind = workload) puts many jobs on one machine; a batch scheduler decides who runs.
 * The decision is pure code: it sees the waiting queue in order (each job's nodes and its estimated run time,
 * the trace's requested time) and the running jobs with their expected ends (start + estimate), sorted by that
 * end; it answers which waiting jobs start now. Both the SimGrid engine (sim/workload/) and the plain replay
 * below (fl_batch_replay, the oracle of `validate`) keep their queue in an fl_batch and ask the same ops.
 *
 *   fcfs: start jobs in queue order while the first one fits; a job that does not fit blocks all behind it.
 *   easy: EASY backfilling (Lifka 1995; Mu'alem and Feitelson, IEEE TPDS 12(6), 2001): fcfs, then the first
 *         waiting job that does not fit gets a reservation at the shadow time (the earliest expected end at which
 *         enough nodes are free for it); a later job starts now if it fits the free nodes and either ends by the
 *         shadow time or uses only the extra nodes (those the reserved job will not need at the shadow time).
 *   conservative: conservative backfilling (the same paper): every waiting job holds a reservation in the profile
 *         of free nodes; a job starts early only if it delays none before it.
 *
 * A running job whose expected end has passed (it ran longer than its estimate) counts as ending now for EASY's
 * shadow time; conservative backfilling lets it hold its nodes at this instant (free just after now), so that a job
 * reserved now starts only on free nodes. Every ops answers jobs that fit the free nodes together. Adding a
 * scheduler (conservative backfilling, priorities) is one file with an fl_batch_ops and one line in batch.c. */
#ifndef FL_BATCH_H
#define FL_BATCH_H

#include "fl_err.h"

typedef struct fl_batch_view {
  double now_s;
  long free_nodes;
  long nwait;               /* waiting jobs, in queue order */
  const long *wait_nodes;   /* nodes each needs */
  const double *wait_est_s; /* its estimated run time */
  long nrun;                /* running jobs, sorted by expected end */
  const long *run_nodes;    /* nodes each holds */
  const double *run_end_s;  /* its expected end (may lie in the past) */
} fl_batch_view;

typedef struct fl_batch_ops {
  const char *name; /* app.scheduler */
  const char *doc;  /* one line for `faultline keys` */
  /* Which waiting jobs start now: their queue positions, increasing, into start[] (room for nwait); returns how
   * many. The chosen jobs fit the free nodes together. fl_batch_pick starts them and asks again, with them in the
   * running set, until none is chosen (so an ops may answer in steps, as easy does: fcfs first, then backfill). */
  long (*pick)(const fl_batch_view *v, long *start);
} fl_batch_ops;

extern const fl_batch_ops fl_batch_fcfs, fl_batch_easy, fl_batch_conservative;

/* The registry: NULL-terminated. fl_batch_find: NULL when unknown; fl_batch_names: "fcfs | easy". */
extern const fl_batch_ops *const fl_batch_registry[];
const fl_batch_ops *fl_batch_find(const char *name);
const char *fl_batch_names(void);

/* A machine's queue and running set, kept for the ops. Jobs are the caller's indices. */
typedef struct fl_batch fl_batch;
fl_err fl_batch_create(const fl_batch_ops *ops, long machine_nodes, fl_batch **out);
void fl_batch_destroy(fl_batch **b);
/* Queue job `job` (nodes <= machine_nodes), at the back or, with front != 0, at the front (a failed job put back
 * first, app.restart = front). */
fl_err fl_batch_submit(fl_batch *b, long job, long nodes, double est_s, int front);
/* The scheduler's choice at now_s: the chosen jobs leave the queue, enter the running set with expected end
 * now_s + est_s, and are written to started[] (room for the queue's length, fl_batch_waiting); *n set. */
fl_err fl_batch_pick(fl_batch *b, double now_s, long *started, long *n);
/* A running job ends (or fails): its nodes are free again. FL_ERR_INTERNAL when it is not running. */
fl_err fl_batch_end(fl_batch *b, long job);
/* Nodes that go down (delta < 0, only free ones) or come back (delta > 0): the free count the ops see. */
fl_err fl_batch_capacity(fl_batch *b, long delta);
/* Would a job of `nodes` nodes and estimate est_s, queued now at the back, start at once (a dry run of
 * fl_batch_pick; nothing changes)? For a running job that takes a free node for a lost one (a restart in place):
 * only where the scheduler would let a newcomer have it — under easy, without delaying the head job's
 * reservation; under fcfs, with nobody waiting that could use it. */
fl_err fl_batch_would_start(const fl_batch *b, double now_s, long nodes, double est_s, int *yes);
/* A running job's expected end (start + estimate); NAN when it is not running. */
double fl_batch_expected_end(const fl_batch *b, long job);
long fl_batch_waiting(const fl_batch *b);
long fl_batch_free_nodes(const fl_batch *b);

/* A binary min-heap of timed job events, by date then job (a fixed order among equal dates): the replay's job ends
 * and the workload engine's phase ends. serial: the caller's (a phase counter, to drop stale events). */
typedef struct fl_jobev {
  double t;
  long job, serial;
} fl_jobev;
typedef struct fl_jobheap {
  fl_jobev *v;
  long n, cap;
} fl_jobheap;
fl_err fl_jobheap_push(fl_jobheap *h, fl_jobev e);
fl_jobev fl_jobheap_pop(fl_jobheap *h); /* the earliest; h->n > 0 */
void fl_jobheap_free(fl_jobheap *h);

/* The plain replay (no SimGrid, no failures): jobs submitted at submit_s, each holding `nodes` for run_s, the
 * scheduler asked after every submit and end; start_s[] per job. Jobs are in submit order. */
typedef struct fl_batch_job {
  double submit_s, run_s, est_s;
  long nodes;
} fl_batch_job;
fl_err fl_batch_replay(const fl_batch_ops *ops, const fl_batch_job *jobs, long n, long machine_nodes, double *start_s);
/* The same with the jobs from a source, in submit order, one at a time (memory by the jobs waiting, not the trace):
 * next(ctx, job, got) gives the next (*got = 1) or says there is none left (*got = 0); the jobs are numbered from 0
 * in that order; started(ctx, j, t, run) is told each start. */
typedef fl_err (*fl_batch_source)(void *ctx, fl_batch_job *job, int *got);
typedef void (*fl_batch_started)(void *ctx, long job, double start_s, double run_s);
fl_err fl_batch_replay_stream(const fl_batch_ops *ops, fl_batch_source next, fl_batch_started started,
                              void *ctx, long machine_nodes);

#endif
