/* workload_run.h — app.kind = workload in the simulator: a machine's job mix (a Standard Workload Format trace) under a
 * batch scheduler, one failure process and one parallel file system (docs/workload.md).
 *
 * One coordinator actor owns the machine: the scheduler's queue and running set (policy/sched/batch.h, the same
 * ops the plain replay asks), which nodes each job holds, the failure source (sim/failure_models/source.h) and the
 * jobs' phases. What is pure time — a job computing, the trace's arrivals, failures and repairs — is kept by the
 * coordinator as exact dates, and at one instant it takes every phase end, then every failure and repair, then
 * every submit, then asks the scheduler once: the order of the plain replay, so that without failures and
 * checkpoints the schedule is the replay's to the last bit (`validate` checks it). What the platform decides — a
 * checkpoint's or a restart's I/O — runs as SimGrid activities started together by a small actor per operation
 * (one transfer from each of the job's nodes to a PFS server, striped, while that server's disk writes the bytes):
 * every job's I/O shares the links and disks, so one job's checkpoint slows the others'. A failure of a job's node
 * cancels its I/O at once.
 *
 * A job checkpoints under the scenario's strategy (checkpoint: the file level) every tau_j of compute, tau_j from
 * the interval rule with its own MTBF (node MTBF / its nodes) and its own checkpoint cost alone on the machine
 * (simulated on the platform once per job size). A failure stops the job: the compute since its last checkpoint
 * is lost, its nodes go back (the failed one when repaired), and it waits for nodes again, first in the queue or
 * last (app.restart); restarted, it reads its checkpoint back, then computes what is left. Cooperative I/O
 * (app.checkpoint_io): ordered serves one job's checkpoint at a time in request order; least-waste serves the
 * request that costs the others least (Herault et al., APDCM 2018): candidate i with isolated cost C_i is chosen
 * to minimise C_i x sum over the other waiting jobs j of q_j (1 + (d_j + C_i / 2) / mu_j) — their idle
 * node-seconds plus the work they expect to lose meanwhile (q_j nodes, d_j seconds of unsaved work, mu_j their
 * MTBF). Waiting jobs hold their nodes idle. Restarts are not deferred. Cooperative periods (app.checkpoint_period):
 * whenever the running set changes, every running job's period is worked out again so that their checkpoints fit
 * the PFS's bandwidth at the least waste for the machine (policy/interval.h fl_pol_interval_cooperative).
 *
 * Each replica runs in a child process, from SimGrid's clock at zero: the dates of I/O activities come from the
 * clock, and a replica must give the same figures whether it runs after others or alone (`rerun`).
 *
 * The app's files (this folder): setup.c (the job source, each job's parameters, the isolated checkpoint costs
 * probed on the platform, the PFS), io.c (the checkpoint and restart I/O as SimGrid activities, and the PFS's
 * contention policies: oblivious, ordered, least-waste, cooperative periods), replica.c (the coordinator: the
 * scheduler, failures and repairs, each job's phases, the machine's figures) and app.c (the app's ops,
 * fl_sim_workload). This header holds their shared state and what one calls in another. */
#ifndef FL_WORKLOAD_RUN_H
#define FL_WORKLOAD_RUN_H

#include "batch.h"
#include "interval.h"
#include "io_async.h"
#include "replication.h"
#include "sched_keys.h"
#include "sim_impl.h"
#include "swf.h"
#include "units.h"
#include "workload_keys.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fl_wlrun fl_wlrun; /* the app's state (sim->app_state) */
struct fl_wlrun {
  /* the jobs, in submit order: streamed from the trace (path) or drawn (gen) for each replica, one at a time, so that
   * a replica holds the jobs in flight, not the trace; a trace out of submit order is held whole, sorted (trace) */
  char *path;
  long cores_per_node;
  int generated;
  fl_swf_gen gen;
  fl_swf *trace;
  long njobs;
  const fl_batch_ops *sched;
  long machine; /* nodes 0 .. machine-1 of the platform run jobs */
  int requeue, io_policy, ckpt;
  long degree;     /* copies of each rank (replication, strategy.degree) */
  long xor_g;      /* ranks per XOR set (strategy.xor_group; 2 where the strategy has no XOR level) */
  long fewer;      /* jobs that run with fewer copies than degree */
  unsigned levels; /* the strategy's levels: the file level (the PFS), the buddy level (partners' memory) */
  double bytes;    /* checkpoint bytes per node */
  int jbytes;      /* app.checkpoint_memory: each job's from the trace's memory, else `bytes` for all */
  const fl_interval_rule *rule; /* strategy.interval's */
  double interval_s;            /* ... when fixed */
  /* each distinct job size's isolated checkpoint cost per level (with per-job bytes, at FL_WL_REF_BYTES and twice
   * that: cost[FL_NLEVELS * (nsizes + k) + l]); a job's interval and costs are worked out from them as it arrives */
  long *sizes, nsizes;
  double *cost;
  int coop;         /* app.checkpoint_period = cooperative: periods over the running jobs (replica's tau) */
  int coop_daly;    /* ... by Daly's rule on the raised cost (strategy.interval = daly), else Young's */
  double pfs_bps;   /* coop: the PFS's bandwidth, from a checkpoint of the whole machine alone */
  double ff_span_s; /* the failure-free replay's span: the row's work_s */
  char *disk_name;  /* the nodes' local disk for the local and XOR levels (iocost.c's: "local", storage.disk) */
  long npfs;
  sg_host_t *pfs_host;
  sg_disk_t *pfs_disk;
  /* platform.io_flows = aggregated (a generated platform): a job's file-level I/O moves per cabinet and server,
   * from the cabinets' I/O hosts (cab_host); nodes `cabinet` to a cabinet */
  int aggregated;
  long cabinet, ncab;
  sg_host_t *cab_host;
  fl_db_machine fig[2]; /* double-buffered: the database writer holds one replica's while the next runs */
  FILE *rowsf[2];       /* ... and the file its jobs' rows are in (the replica's), from fig's rows_at */
  int flip;
};

/* A way through the jobs, in submit order (a replica's, the failure-free replay's). */
typedef struct fl_wlsrc {
  const fl_wlrun *w;
  fl_swf_stream *s; /* NULL: w->trace's jobs */
  long next;        /* jobs given */
} fl_wlsrc;

enum { FL_WLP_NONE = 0, FL_WLP_COMPUTE, FL_WLP_IOWAIT, FL_WLP_CKPT, FL_WLP_RESTART };
enum { FL_IO_OBLIVIOUS = 0, FL_IO_ORDERED = 1, FL_IO_LEAST_WASTE = 2 };

typedef struct fl_wlio fl_wlio;

typedef struct fl_wlj {
  fl_swf_job t;                  /* its line of the trace */
  long copies;                   /* the copies it runs: degree, or as many as fit the machine (at least 1) */
  double bytes;                  /* its checkpoint's bytes a node */
  double tau_s, delta_s;         /* its interval, and its isolated file-level checkpoint's cost (least-waste) */
  double mtbf_s, cost_s, load_s; /* coop: its MTBF, the cost its rule prices, its checkpoint's seconds of the whole
                                  * PFS (its bytes over the PFS's bandwidth) */
  double tau;                    /* coop: its current period */
  long run_pos;                  /* coop: its place in the running list, -1 when not running */
  int phase;
  long serial;             /* bumped at every phase change: heap entries of an older phase are stale */
  double done_s;           /* work its newest checkpoint holds */
  double lv_s[FL_NLEVELS]; /* per level: the work its newest checkpoint holds */
  long lv_v[FL_NLEVELS];   /* which checkpoint (its number, from 1) that is; -1: none (the strategy's view) */
  long nslots;             /* nodes it holds while running: its nodes x the copies of each rank (copy c of rank k on
                            * slot c x nodes + k) */
  unsigned char *dead;     /* replication: per slot, 1 when its node failed since the job started (that copy is dead) */
  double seg_s;            /* the compute segment under way or just finished */
  double phase_t;          /* when the phase began */
  double req_t;            /* when it asked the PFS */
  fl_wlio *io;             /* its I/O under way */
  int32_t *nodes;          /* while running */
  fl_db_job row;
} fl_wlj;

struct fl_wlio {
  struct fl_wlrep *wr;
  long job;
  int restart;
  fl_level level; /* the file level (the PFS) or the buddy level (partners' memory) */
  int state;      /* 0 under way, 1 completed (listed for the coordinator), 2 cancelled */
  int refs;       /* its actor's, and the coordinator's (through the job, then the list of completions) */
  fl_ioset *set;
  fl_io_op *ops;
  long nops;
  fl_wlio *next;
};

typedef struct fl_wlrep {
  fl_replica *rep;
  fl_sim *sim;
  fl_wlrun *w;
  /* the jobs in flight: job j (its place in submit order) at win[j mod wcap] for lo <= j < next_submit; lo is the
   * first not yet finished (and retired: its row written to `out`, its figures added up) */
  fl_wlj *win;
  long wcap, lo;
  fl_wlsrc src; /* the jobs still to come: `pend` the next (have = 1) */
  fl_swf_job pend;
  int have;
  FILE *out;
  long nrows;
  fl_batch *batch;
  int32_t *node_job; /* node -> job holding it, -1 */
  unsigned char *down;
  double *down_since;  /* node -> when it went down (energy: it draws its off power until its repair) */
  double first_submit; /* the span's start: down time before it is not the run's */
  double off_j;        /* joules the down nodes drew beyond their idle power, repaired ones */
  double busy_j;       /* joules the computing nodes drew beyond their idle power, node by node */
  int32_t *freel, *free_pos;
  long nfree;
  long *started, nstarted_cap;
  fl_jobheap heap; /* compute phase ends */
  long *pfsq;      /* jobs waiting for the PFS, in request order */
  long npfsq;
  long pfs_holder; /* -1: free */
  fl_wlio *done_head, *done_tail;
  sg_sem_t sem; /* wakes the coordinator: an I/O completed */
  double now;
  long next_submit, running, finished;
  int timeout;
  /* cooperative periods (app.checkpoint_period): the running jobs (a list; each job's place in it is its run_pos),
   * whether it changed since the periods were worked out, and scratch */
  long *runl, nrun;
  int coop_dirty;
  double *c_cost, *c_mtbf, *c_load, *c_nodes, *c_period;
  long *cab_n, *cab_seen; /* aggregated I/O: ranks per cabinet, and the cabinets seen, in order (scratch) */
  /* the machine's figures, added up as jobs retire (in job order) */
  double a_first, a_last, a_useful, a_replica, a_lost, a_ck, a_rs, a_iw, a_wait, a_bsld;
  long a_started, a_completed;
  fl_err rc;
} fl_wlrep;

#define FL_WJ(wr, j) (&(wr)->win[(j) & ((wr)->wcap - 1)]) /* job j, in flight */

/* ---- between the files ---- */

/* setup.c: the app's state, made once per scenario and freed with it */
fl_err fl_wlr_create(fl_sim *sim, const fl_scenario *sc, fl_wlrun **out);
void fl_wlr_destroy(fl_wlrun **pw);
double fl_wlr_work(const fl_wlrun *w);  /* the failure-free replay's span (the row's work_s) */
long fl_wlr_machine(const fl_wlrun *w); /* the nodes that run jobs */
/* the jobs in submit order, for a replica */
fl_err fl_wl_src_open(const fl_wlrun *w, fl_wlsrc *src);
fl_err fl_wl_src_next(fl_wlsrc *src, fl_swf_job *j, int *got);
void fl_wl_src_close(fl_wlsrc *src);
/* a job's copies, its parameters (interval, costs, MTBF) as it arrives, and the levels a job of n nodes writes */
long fl_wl_copies(const fl_wlrun *w, long n);
fl_err fl_wl_params(const fl_wlrun *w, const fl_sim *sim, const fl_swf_job *t, fl_wlj *jb);
unsigned fl_wl_level_mask(long n);
fl_level fl_wl_level(const fl_wlrun *w, long n, fl_level l);

/* io.c: start a job's checkpoint (restart = 0) or restart I/O at a level, its release, its cancellation (a
 * failure), the PFS's next request served, and the cooperative periods worked out again */
void fl_wl_io_start(fl_wlrep *wr, long j, int restart, fl_level level, long slot);
void fl_wl_io_unref(fl_wlio *io);
void fl_wl_io_stop(fl_wlj *jb);
void fl_wl_pfs_next(fl_wlrep *wr);
void fl_wl_coop_update(fl_wlrep *wr);

/* replica.c: a replica from its start to its figures */
fl_err fl_wlr_run_replica(fl_replica *rep);

#endif
