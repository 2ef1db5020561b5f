/* run_workload.c — app.kind = workload: a machine's job mix (a Standard Workload Format trace) under a batch
 * scheduler, one failure process and one parallel file system (docs/workload.md).
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
 * clock, and a replica must give the same figures whether it runs after others or alone (`rerun`). */
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

/* ---- set-up ---- */

static void fl_wlr_destroy(fl_wlrun **pw)
{
  if (!pw || !*pw)
    return;
  fl_wlrun *w = *pw;
  fl_swf_destroy(&w->trace);
  free(w->path);
  free(w->sizes);
  free(w->cost);
  free(w->pfs_host);
  free(w->pfs_disk);
  free(w->cab_host);
  free(w->disk_name);
  for (int b = 0; b < 2; b++)
    if (w->rowsf[b])
      fclose(w->rowsf[b]);
  free(w);
  *pw = NULL;
}

/* Isolated checkpoint costs, one per distinct job size, simulated in a child process. */
typedef struct fl_wl_probe {
  fl_sim *sim;
  const fl_scenario *sc;
  const long *sizes;
  const double *bytes; /* per probe, bytes a node writes (NULL: app.checkpoint_size) */
  long n;
  unsigned levels; /* the strategy's: a probe's cost of each (NAN: not probed) */
} fl_wl_probe;

/* The levels a job of n nodes can write: all, but for one node none that needs another (buddy, XOR). */
static unsigned fl_wl_level_mask(long n)
{
  return n > 1 ? ~0u : ~(FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_XOR));
}

/* The level a checkpoint of a job of n nodes goes to when the strategy says `l`: a job of one node has no partner
 * and no XOR set, so those checkpoints go to files when the strategy writes files, else it takes none (scratch). */
static fl_level fl_wl_level(const fl_wlrun *w, long n, fl_level l)
{
  if (!(fl_wl_level_mask(n) & FL_LEVEL_BIT(l)))
    return (w->levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) ? FL_LEVEL_FILE : FL_LEVEL_SCRATCH;
  return l;
}

static fl_err fl_wl_probe_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_wl_probe *p = ctx;
  for (long i = 0; i < p->n; i++) {
    fl_iocost io;
    fl_scenario sc = *p->sc; /* a shallow copy, read only, in this child */
    /* a job of one node has no partner: its buddy level is not probed (fl_wl_level) */
    unsigned mask = fl_wl_level_mask(p->sizes[i]), levels = p->levels & mask;
    unsigned written[FL_NLEVELS];
    double c[FL_NLEVELS];
    for (int l = 0; l < FL_NLEVELS; l++) { /* (a two-level file checkpoint refreshes the partner copies) */
      written[l] = p->sim->strat.writes[l] & mask;
      c[l] = NAN;
    }
    if (p->bytes)
      sc.checkpoint_size = p->bytes[i];
    if (levels) {
      FL_TRY(fl_iocost_measure(p->sim->pf, &sc, p->sizes[i], levels, written, p->sim->strat.xor_group, &io));
      for (int l = 0; l < FL_NLEVELS; l++)
        if (levels & FL_LEVEL_BIT(l))
          c[l] = io.write_s[l];
    }
    FL_CHECK(fwrite(c, sizeof c, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
  }
done:
  return rc;
}

#define FL_WL_REF_BYTES 1073741824.0 /* app.checkpoint_memory: the bytes a node writes in the first probe */

/* A checkpoint of `bytes` a node, from the costs at FL_WL_REF_BYTES (c1) and twice that (c2). */
static double fl_wl_cost_at(double c1, double c2, double bytes)
{
  return c1 + (c2 - c1) * (bytes / FL_WL_REF_BYTES - 1.0);
}

static int fl_long_cmp(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static fl_err fl_wl_src_open(const fl_wlrun *w, fl_wlsrc *src)
{
  memset(src, 0, sizeof *src);
  src->w = w;
  if (w->trace)
    return FL_OK;
  return w->generated ? fl_swf_open_generated(&w->gen, &src->s) : fl_swf_open(w->path, w->cores_per_node, &src->s);
}

/* The next job (*got = 1), or none left (*got = 0): the first w->njobs of the trace. */
static fl_err fl_wl_src_next(fl_wlsrc *src, fl_swf_job *j, int *got)
{
  fl_err rc = FL_OK;
  *got = 0;
  if (src->next >= src->w->njobs)
    return FL_OK;
  if (src->s) {
    rc = fl_swf_next(src->s, j, got);
  } else {
    *j = src->w->trace->jobs[src->next];
    *got = 1;
  }
  src->next += *got;
  return rc;
}

static void fl_wl_src_close(fl_wlsrc *src)
{
  fl_swf_close(&src->s);
}

/* The copies a job of n nodes runs: the strategy's degree, or as many as fit the machine (one, for a job of more
 * than half of it under duplication: the CLI says how many) */
static long fl_wl_copies(const fl_wlrun *w, long n)
{
  return n * w->degree <= w->machine ? w->degree : w->machine / n;
}

/* A node's checkpoint bytes for job t (app.checkpoint_memory: the trace's KB per processor, over its nodes; a job
 * whose line gives no memory writes app.checkpoint_size) */
static double fl_wl_job_bytes(const fl_wlrun *w, const fl_swf_job *t)
{
  if (w->jbytes && t->mem_kb > 0)
    return t->mem_kb * 1024.0 * (double)t->procs / (double)t->nodes;
  return w->bytes;
}

/* What a job needs as it arrives: its copies, bytes, interval and costs, from its size's probes (set-up). */
static fl_err fl_wl_params(const fl_wlrun *w, const fl_sim *sim, const fl_swf_job *t, fl_wlj *jb)
{
  fl_err rc = FL_OK;
  long n = t->nodes, ns = w->nsizes;
  jb->copies = fl_wl_copies(w, n);
  jb->bytes = fl_wl_job_bytes(w, t);
  jb->tau_s = INFINITY;
  jb->delta_s = NAN;
  if (!w->ckpt)
    return FL_OK;
  long k = (long)((long *)bsearch(&n, w->sizes, (size_t)ns, sizeof *w->sizes, fl_long_cmp) - w->sizes);
  double c[FL_NLEVELS], mnfti = 1.0, mtbf, delta;
  fl_level primary;
  for (int l = 0; l < FL_NLEVELS; l++) /* each level's isolated cost */
    c[l] = w->jbytes ? fl_wl_cost_at(w->cost[FL_NLEVELS * k + l], w->cost[FL_NLEVELS * (ns + k) + l], jb->bytes)
                     : w->cost[FL_NLEVELS * k + l];
  /* the rule prices the cheapest level the job writes (the strategy's primary; a job of one node: files) */
  primary = fl_wl_level(w, n, fl_strat_primary(&sim->strat));
  delta = primary == FL_LEVEL_SCRATCH ? NAN : c[primary]; /* none: no checkpoint */
  jb->delta_s = c[FL_LEVEL_FILE];
  /* time to interruption: with copies, MNFTI failures of its nodes x degree (as the bsp engine prices it) */
  FL_TRY(fl_pol_mnfti(jb->copies, n, &mnfti));
  mtbf = mnfti * sim->node_mtbf_s / (double)(n * jb->copies);
  if (!w->rule->by_mtbf || (isfinite(mtbf) && !isnan(delta))) /* each job's own, by its size and its cost */
    jb->tau_s = w->rule->tau(delta, mtbf, w->interval_s);
  if (!(jb->tau_s > 0) || isnan(delta))
    jb->tau_s = INFINITY;
  if (w->coop) {
    jb->mtbf_s = mtbf;
    jb->cost_s = isfinite(jb->tau_s) ? delta : INFINITY; /* INFINITY: it does not checkpoint */
    jb->load_s = (double)n * jb->bytes / w->pfs_bps;
  }
done:
  return rc;
}

typedef struct fl_wl_ffctx {
  const fl_wlrun *w;
  fl_wlsrc src;
  double t0, t1;
} fl_wl_ffctx;

static fl_err fl_wl_ff_next(void *ctx, fl_batch_job *job, int *got)
{
  fl_wl_ffctx *f = ctx;
  fl_swf_job t;
  fl_err rc = fl_wl_src_next(&f->src, &t, got);
  if (rc == FL_OK && *got) {
    *job = (fl_batch_job){
        .submit_s = t.submit_s, .run_s = t.run_s, .est_s = t.req_s, .nodes = t.nodes * fl_wl_copies(f->w, t.nodes)};
    f->t0 = fmin(f->t0, t.submit_s);
  }
  return rc;
}

static void fl_wl_ff_started(void *ctx, long job, double start_s, double run_s)
{
  fl_wl_ffctx *f = ctx;
  (void)job;
  f->t1 = fmax(f->t1, start_s + run_s);
}

/* One of the jobs the run takes, at set-up: it fits the machine and, checkpointing its memory, says how much; its
 * size noted (seen[nodes], w->nsizes) and whether it runs fewer copies than the strategy's degree (w->fewer). */
static fl_err fl_wl_check_job(fl_wlrun *w, const fl_sim *sim, const fl_scenario *sc, const fl_swf_job *j,
                              unsigned char *seen)
{
  if (j->nodes > w->machine)
    return fl_err_set(FL_ERR_INPUT,
                      "%s:%ld: field 5 (allocated processors) '%ld': %ld nodes at app.cores_per_node = %ld, larger "
                      "than the machine (%ld nodes of platform '%s')",
                      w->path, j->line, j->procs, j->nodes, w->cores_per_node, w->machine,
                      fl_platform_describe(sim->pf));
  if (w->jbytes && !(fl_wl_job_bytes(w, j) > 0))
    return fl_scenario_fail(sc, "app", "checkpoint_size",
                            "%s:%ld: job %ld gives no memory (fields 7 and 10) for app.checkpoint_memory: give the "
                            "bytes a node of such a job writes",
                            w->path, j->line, j->id);
  w->fewer += fl_wl_copies(w, j->nodes) < w->degree;
  if (!seen[j->nodes]) {
    seen[j->nodes] = 1;
    w->nsizes++;
  }
  return FL_OK;
}

/* Once through the jobs: every line checked (as the trace's reader checks them), the first app.jobs jobs (all
 * without it) counted, checked against the machine, and their sizes noted (w->sizes, increasing, with room for one
 * more); nothing of them is kept, unless the trace is out of submit order (then held whole, sorted). */
static fl_err fl_wl_scan_jobs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  const fl_workload_opts *wo = fl_workload_options(sc);
  /* once through the jobs: every line checked (as the trace's reader checks them), the first app.jobs jobs (all
   * without it) counted, checked against the machine, and their sizes noted; nothing of them is kept */
  fl_swf_stream *st = NULL;
  unsigned char *seen = NULL;
  long limit = wo->jobs > 0 ? wo->jobs : LONG_MAX, n = 0;
  int got = 1;
  if (w->generated) {
    if ((rc = fl_swf_open_generated(&w->gen, &st)) != FL_OK) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "%s", fl_err_msg());
      goto done;
    }
  } else {
    FL_TRY(fl_swf_open(w->path, wo->cores_per_node, &st));
  }
  if ((seen = calloc((size_t)w->machine + 1, 1)) == NULL)
    rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
  while (rc == FL_OK) {
    fl_swf_job j;
    if ((rc = fl_swf_next(st, &j, &got)) != FL_OK || !got)
      break;
    if (n >= limit)
      continue; /* read on: every line is checked */
    n++;
    rc = fl_wl_check_job(w, sim, sc, &j, seen);
  }
  w->njobs = n;
  if (rc == FL_OK && !w->generated && fl_swf_stream_info(st)->unsorted > 0)
    /* out of submit order: the jobs are held whole, sorted (the first app.jobs in submit order) */
    rc = fl_swf_read(w->path, wo->cores_per_node, &w->trace);
  if (rc == FL_OK && w->trace) {
    memset(seen, 0, (size_t)w->machine + 1);
    w->nsizes = w->fewer = 0;
    for (long i = 0; i < w->njobs && rc == FL_OK; i++)
      rc = fl_wl_check_job(w, sim, sc, &w->trace->jobs[i], seen);
  }
  if (rc == FL_OK) {
    long k = 0;
    if ((w->sizes = malloc((size_t)(w->nsizes + 1) * sizeof *w->sizes)) == NULL)
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    for (long v = 1; rc == FL_OK && v <= w->machine; v++)
      if (seen[v])
        w->sizes[k++] = v; /* increasing */
  }
  free(seen);
  fl_swf_close(&st);
  FL_TRY(rc);
done:
  return rc;
}

/* The PFS's servers and disks the jobs' file level writes to, and the cabinets' hosts when its flows are aggregated
 * (the file level only). */
static fl_err fl_wl_pfs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  w->npfs = fl_platform_pfs_count(sim->pf);
  if (w->npfs == 0 && (w->levels & FL_LEVEL_BIT(FL_LEVEL_FILE))) {
    rc = fl_platform_generated(sim->pf)
             ? fl_scenario_fail(sc, "platform", "pfs_servers", "a workload's checkpoints need PFS servers")
             : fl_scenario_fail(sc, "storage", "pfs", "a workload's checkpoints need the PFS's hosts");
    goto done;
  }
  FL_ALLOC(w->pfs_host, w->npfs);
  FL_ALLOC(w->pfs_disk, w->npfs);
  for (long s = 0; s < w->npfs; s++) {
    w->pfs_host[s] = fl_platform_pfs_host(sim->pf, s);
    w->pfs_disk[s] = fl_iocost_host_disk(w->pfs_host[s], NULL);
    FL_CHECK(w->pfs_disk[s], FL_ERR_INPUT, "PFS host '%s' has no disk", sg_host_get_name(w->pfs_host[s]));
  }
  if (fl_platform_generated(sim->pf) && fl_platform_io(sim->pf) == FL_IO_AGGREGATED) {
    const fl_platform_gen *g = fl_platform_generated(sim->pf);
    unsigned other = (w->levels | sim->strat.writes[FL_LEVEL_FILE]) & ~FL_LEVEL_BIT(FL_LEVEL_FILE);
    if (other) {
      int l = 0;
      while (!(other & FL_LEVEL_BIT(l)))
        l++;
      rc = fl_scenario_fail(sc, "platform", "io_flows",
                            "a workload aggregates its file-level I/O only, and strategy %s writes the %s level "
                            "too: per-rank flows (or auto) for it",
                            sim->strat.ops->name, fl_level_name((fl_level)l));
      goto done;
    }
    w->aggregated = 1;
    w->cabinet = g->cabinet;
    w->ncab = fl_platform_gen_cabinets(g);
    FL_ALLOC(w->cab_host, w->ncab);
    for (long c = 0; c < w->ncab; c++) {
      char name[32];
      snprintf(name, sizeof name, "cab-%ld", c);
      FL_CHECK((w->cab_host[c] = sg_host_by_name(name)) != NULL, FL_ERR_INTERNAL, "no host '%s'", name);
    }
  }
done:
  return rc;
}

/* Each job size's checkpoint alone on the machine, per level, simulated in a child: the cost its interval rule
 * prices (with per-job bytes, each size at 1 GiB and 2 GiB a node: a latency plus bytes over the rates the flows
 * share); cooperative periods: the PFS's bandwidth from the whole machine's checkpoint. */
static fl_err fl_wl_probe_costs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  double *cost = NULL;
  FILE *res = NULL;
  /* each job size's checkpoint alone on the machine: the cost its interval rule prices */
  /* (w->sizes: the jobs' sizes, increasing, with room for one more) */
  long *sizes = w->sizes, nsizes = w->nsizes;
  if (w->coop && sizes[nsizes - 1] != w->machine)
    sizes[nsizes++] = w->machine; /* the whole machine's checkpoint: the PFS's bandwidth */
  w->nsizes = nsizes;
  /* with per-job bytes, each size at 1 GiB and 2 GiB a node: an isolated checkpoint's time is a latency plus
   * bytes over the rates the flows share (a line in the bytes), read off the two for each job */
  FL_ALLOC(w->cost, 2 * FL_NLEVELS * nsizes); /* per probe, each level's */
  cost = w->cost;
  {
    long np = w->jbytes ? 2 * nsizes : nsizes;
    long *psizes = NULL;
    double *pbytes = NULL;
    fl_wl_probe p = {.sim = sim, .sc = sc, .sizes = sizes, .n = np, .levels = w->levels};
    if (w->jbytes) {
      FL_ALLOC(psizes, np);
      FL_ALLOC(pbytes, np);
      for (long k = 0; k < np; k++) {
        psizes[k] = sizes[k % nsizes];
        pbytes[k] = FL_WL_REF_BYTES * (double)(1 + k / nsizes);
      }
      p.sizes = psizes;
      p.bytes = pbytes;
    }
    rc = fl_sim_in_child(fl_wl_probe_main, &p, &res);
    free(psizes);
    free(pbytes);
    FL_TRY(rc);
    FL_CHECK(fread(cost, FL_NLEVELS * sizeof *cost, (size_t)np, res) == (size_t)np, FL_ERR_IO,
             "the checkpoint costs came back short");
  }
  if (w->coop) {
    /* the PFS's bandwidth: the bytes of a checkpoint of every node of the machine over its time alone (with
     * per-job bytes, the slope between the two probes: the latency left out) */
    long k = nsizes - 1;
    double c1 = cost[FL_NLEVELS * k + FL_LEVEL_FILE];
    w->pfs_bps = w->jbytes
                     ? (double)w->machine * FL_WL_REF_BYTES / (cost[FL_NLEVELS * (nsizes + k) + FL_LEVEL_FILE] - c1)
                     : (double)w->machine * w->bytes / c1;
    FL_CHECK(w->pfs_bps > 0 && isfinite(w->pfs_bps), FL_ERR_INPUT,
             "app.checkpoint_period = cooperative: the PFS's bandwidth from a checkpoint of the whole machine is "
             "%g B/s",
             w->pfs_bps);
  }
done:
  if (res)
    fclose(res);
  return rc;
}

static fl_err fl_wlr_create(fl_sim *sim, const fl_scenario *sc, fl_wlrun **out)
{
  fl_err rc = FL_OK;
  const fl_workload_opts *wo = fl_workload_options(sc);
  fl_wlrun *w = NULL;

  *out = NULL;
  FL_ALLOC(w, 1);
  if (!(w->sched = fl_batch_find(fl_sched_name(sc)))) {
    rc = fl_scenario_fail(sc, "app", "scheduler", "unknown batch scheduler '%s' (known: %s)", fl_sched_name(sc),
                          fl_batch_names());
    goto done;
  }
  if (fl_strat_common(sc)->flush_async && fl_strat_reads(&sim->strat, "strategy.flush")) {
    rc = fl_scenario_fail(sc, "strategy", "flush", "workloads flush synchronously (each level written on its own)");
    goto done;
  }
  if (isfinite(sc->process_mtbf_s) || isfinite(sc->sdc_mtbf_s)) {
    rc = fl_scenario_fail(sc, "failures", isfinite(sc->process_mtbf_s) ? "process_mtbf" : "sdc_mtbf",
                          "not modelled for workloads (node failures only)");
    goto done;
  }
  w->machine = sc->app_nodes > 0 ? sc->app_nodes : sim->nodes;
  if (w->machine > sim->nodes) {
    rc = fl_scenario_fail(sc, "app", "nodes", "%ld nodes asked for but platform '%s' has only %ld", w->machine,
                          fl_platform_describe(sim->pf), sim->nodes);
    goto done;
  }
  w->degree = sim->strat.degree > 1 ? sim->strat.degree : 1;
  w->cores_per_node = wo->cores_per_node;
  if (wo->trace) {
    FL_CHECK((w->path = fl_scenario_resolve(sc, wo->trace)) != NULL, FL_ERR_NOMEM, "out of memory");
  } else {
    /* a generated mix: app.jobs jobs of app.job_nodes nodes, app.job_time long, app.arrival apart */
    fl_swf_gen *g = &w->gen;
    char *end = NULL;
    *g = (fl_swf_gen){.jobs = wo->jobs, .mean_run_s = wo->job_time_s, .mean_gap_s = wo->arrival_s, .seed = sc->seed};
    g->min_nodes = strtol(wo->job_nodes, &end, 10);
    if (end && *end == '-')
      g->max_nodes = strtol(end + 1, &end, 10);
    else
      g->max_nodes = g->min_nodes;
    if (!end || *end || g->min_nodes < 1 || g->max_nodes < g->min_nodes) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "expected MIN-MAX nodes, 1 <= MIN <= MAX (e.g. 32-256)");
      goto done;
    }
    if (g->max_nodes > w->machine) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "jobs of up to %ld nodes, but the machine has %ld", g->max_nodes,
                            w->machine);
      goto done;
    }
    w->generated = 1;
    FL_CHECK((w->path = strdup("generated")) != NULL, FL_ERR_NOMEM, "out of memory");
  }
  w->bytes = sc->checkpoint_size;
  w->levels = sim->strat.levels;
  w->ckpt = w->levels != 0 && !sim->strat.rule->none;
  w->jbytes = w->ckpt && wo->checkpoint_memory;
  FL_TRY(fl_wl_scan_jobs(w, sim, sc));
  w->requeue = wo->requeue;
  w->io_policy = wo->ckpt_io;
  w->rule = sim->strat.rule;
  w->interval_s = sc->interval_s;
  w->xor_g = sim->strat.xor_group > 1 ? sim->strat.xor_group : 2;
  if (fl_platform_generated(sim->pf) || sc->storage_disk)
    FL_CHECK((w->disk_name = strdup(fl_platform_generated(sim->pf) ? "local" : sc->storage_disk)) != NULL, FL_ERR_NOMEM,
             "out of memory");
  w->coop = w->ckpt && wo->ckpt_period == 1;
  w->coop_daly = w->rule->coop == 2;
  if (w->coop && !w->rule->coop) {
    rc = fl_scenario_fail(sc, "app", "checkpoint_period",
                          "cooperative periods are young's or daly's with the PFS shared: strategy.interval = %s "
                          "sets them itself",
                          w->rule->name);
    goto done;
  }
  if (w->coop && fl_strat_primary(&sim->strat) != FL_LEVEL_FILE) {
    rc = fl_scenario_fail(sc, "app", "checkpoint_period",
                          "cooperative periods share the PFS among checkpoints that all go to it: strategy %s "
                          "writes most of its checkpoints elsewhere (checkpoint or replication)",
                          sim->strat.ops->name);
    goto done;
  }
  if (w->ckpt) {
    if (!w->jbytes && !(w->bytes > 0)) {
      rc = fl_scenario_fail(sc, "app", "checkpoint_size",
                            "a workload's checkpoints are simulated I/O: give the bytes "
                            "each node writes (or app.checkpoint_memory = yes: the trace's memory)");
      goto done;
    }
    FL_TRY(fl_wl_pfs(w, sim, sc));
    FL_TRY(fl_wl_probe_costs(w, sim, sc));
  }
  {
    /* the failure-free schedule without checkpoints: the row's work_s (the jobs streamed through the scheduler) */
    fl_wl_ffctx f = {.w = w, .t0 = INFINITY, .t1 = -INFINITY};
    FL_TRY(fl_wl_src_open(w, &f.src));
    rc = fl_batch_replay_stream(w->sched, fl_wl_ff_next, fl_wl_ff_started, &f, w->machine);
    fl_wl_src_close(&f.src);
    FL_TRY(rc);
    w->ff_span_s = f.t1 - f.t0;
  }
  *out = w;
  w = NULL;
done:
  fl_wlr_destroy(&w);
  return rc;
}

static double fl_wlr_work(const fl_wlrun *w)
{
  return w->ff_span_s;
}

static long fl_wlr_machine(const fl_wlrun *w)
{
  return w->machine;
}

/* ---- the replica ---- */

static void fl_wl_heap_push(fl_wlrep *wr, fl_jobev e)
{
  if (fl_jobheap_push(&wr->heap, e) != FL_OK && wr->rc == FL_OK)
    wr->rc = FL_ERR_NOMEM;
}

/* The free list of up nodes that hold no job. */
static void fl_wl_free_push(fl_wlrep *wr, long node)
{
  wr->free_pos[node] = (int32_t)wr->nfree;
  wr->freel[wr->nfree++] = (int32_t)node;
}

static void fl_wl_free_remove(fl_wlrep *wr, long node)
{
  long at = wr->free_pos[node];
  long last = wr->freel[--wr->nfree];
  wr->freel[at] = (int32_t)last;
  wr->free_pos[last] = (int32_t)at;
  wr->free_pos[node] = -1;
}

static fl_evlog_entry *fl_wl_log_job(fl_wlrep *wr, int kind, long j, long node, double value, long n)
{
  fl_evlog_entry *e = fl_evlog_add(wr->rep->log, wr->now, kind, node);
  if (e) {
    e->rank = (int32_t)FL_WJ(wr, j)->t.id;
    e->value = value;
    e->n = n;
  }
  return e;
}

/* The same with the level named, when the strategy writes more than one. */
static void fl_wl_log_level(fl_wlrep *wr, int kind, long j, double value, fl_level level)
{
  fl_evlog_entry *e = fl_wl_log_job(wr, kind, j, -1, value, -1);
  if (e && (wr->w->levels & (wr->w->levels - 1)))
    e->level = fl_level_name(level);
}

static void fl_wl_io_main(int argc, char **argv);

/* The node that writes rank k of job j's checkpoint: its first live copy's. */
static long fl_wl_writer(const fl_wlj *jb, long k, long nodes)
{
  for (long c = 1; jb->dead && jb->dead[k] && c < jb->copies; c++)
    if (!jb->dead[c * nodes + k])
      return jb->nodes[c * nodes + k];
  return jb->nodes[k];
}

/* Ranks of [0, x) that striping (rank r to server r mod P) sends to server s */
static long fl_wl_striped(long x, long s, long npfs)
{
  return x > s ? (x - s - 1) / npfs + 1 : 0;
}

/* Job j's file-level checkpoint (restart = 0) or restart, aggregated (platform.io_flows = aggregated): each server
 * receives (or gives back) exactly the ranks' bytes per-node striping sends it, but from the cabinets rather than
 * the nodes. The job's ranks are taken cabinet by cabinet, server s given a block of as many as striping gives it;
 * a cabinet sends each server its ranks in that block, one transfer from its I/O host (at most P + cabinets
 * transfers a job, P a node for small jobs), and each server's disk gets one access of its block's bytes at the
 * block's weight, so that it gets the share the ranks' own accesses would together. Appends to ops[*n]. */
static void fl_wl_io_file_agg(fl_wlrep *wr, long j, int restart, double bytes, fl_io_op *ops, long *n)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  long nodes = jb->t.nodes, copies = restart ? jb->nslots / nodes : 1, nseen = 0, s = 0, left;
  for (long sl = 0; sl < (restart ? jb->nslots : nodes); sl++) {
    long c = (restart ? jb->nodes[sl] : fl_wl_writer(jb, sl, nodes)) / w->cabinet;
    if (wr->cab_n[c]++ == 0)
      wr->cab_seen[nseen++] = c;
  }
  left = copies * fl_wl_striped(nodes, 0, w->npfs);
  for (long i = 0; i < nseen; i++) {
    long c = wr->cab_seen[i], m = wr->cab_n[c];
    wr->cab_n[c] = 0;
    while (m > 0) {
      long take = m < left ? m : left;
      ops[(*n)++] = (fl_io_op){.kind = FL_IO_SEND,
                               .src = restart ? w->pfs_host[s] : w->cab_host[c],
                               .dst = restart ? w->cab_host[c] : w->pfs_host[s],
                               .bytes = (double)take * bytes};
      m -= take;
      left -= take;
      if (left == 0) { /* server s's block is complete: its disk access */
        long k = copies * fl_wl_striped(nodes, s, w->npfs);
        ops[(*n)++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE,
                                 .disk = w->pfs_disk[s],
                                 .bytes = (double)k * bytes,
                                 .weight = (double)k};
        if (++s < w->npfs)
          left = copies * fl_wl_striped(nodes, s, w->npfs);
      }
    }
  }
}

/* Start job j's checkpoint (restart = 0) or restart I/O at `level`. The file level: each rank's checkpoint from
 * its first live copy to a PFS server (rank k's to server k mod servers), a transfer and the server's disk; a
 * restart reads it back onto every copy. The buddy level: each rank's to its partner's memory (rank k + the
 * partner step, the placement the cost probe prices: iocost.c), a transfer; a restart in place sends the copy of
 * the rank on slot `slot` from its partner to the node that took its place. A two-level file-level checkpoint
 * refreshes the buddy copies too (the strategy's writes). */
static void fl_wl_io_start(fl_wlrep *wr, long j, int restart, fl_level level, long slot)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  long nodes = jb->t.nodes, n = 0;
  long step = fl_iocost_partner_step(wr->sim->pf, nodes) % (nodes > 1 ? nodes : 1);
  double bytes = jb->bytes;
  int buddy_too = level == FL_LEVEL_FILE && !restart && nodes > 1 &&
                  (wr->sim->strat.writes[FL_LEVEL_FILE] & FL_LEVEL_BIT(FL_LEVEL_BUDDY));
  fl_wlio *io = calloc(1, sizeof *io);
  if (io)
    io->ops = malloc((size_t)(2 * jb->nslots + nodes) * sizeof *io->ops);
  if (!io || !io->ops) {
    free(io);
    wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    return;
  }
  if (level == FL_LEVEL_FILE && w->aggregated) {
    fl_wl_io_file_agg(wr, j, restart, bytes, io->ops, &n);
  } else if (level == FL_LEVEL_FILE) {
    for (long sl = 0; sl < (restart ? jb->nslots : nodes); sl++) {
      long k = sl % nodes, s = k % w->npfs;
      long node = restart ? jb->nodes[sl] : fl_wl_writer(jb, k, nodes); /* the rank's first live copy */
      sg_host_t h = fl_platform_host(wr->sim->pf, node);
      io->ops[n++] = (fl_io_op){
          .kind = FL_IO_SEND, .src = restart ? w->pfs_host[s] : h, .dst = restart ? h : w->pfs_host[s], .bytes = bytes};
      io->ops[n++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE, .disk = w->pfs_disk[s], .bytes = bytes};
    }
  }
  if (level == FL_LEVEL_LOCAL || level == FL_LEVEL_XOR) {
    /* the local level: each rank's checkpoint on its node's disk. XOR (SCR's, as iocost.c prices it): each rank's
     * checkpoint and its share of the set's parity, S (1 + 1 / (g - 1)), on its disk, and S to the next member of
     * its set (the partner's path); a rebuild in place reads the partner's disk back and sends S to the node that
     * took the lost rank's place */
    long g = w->xor_g;
    double on_disk = level == FL_LEVEL_XOR ? bytes * (1.0 + 1.0 / (double)(g - 1)) : bytes;
    for (long k = restart ? (slot + step) % nodes : 0; k < (restart ? (slot + step) % nodes + 1 : nodes); k++) {
      sg_host_t h = fl_platform_host(wr->sim->pf, jb->nodes[k]);
      sg_disk_t d = fl_iocost_host_disk(h, w->disk_name);
      if (!d) {
        wr->rc = fl_err_set(FL_ERR_INPUT, "host '%s' has no disk%s%s for the %s level", sg_host_get_name(h),
                            w->disk_name ? " named " : "", w->disk_name ? w->disk_name : "", fl_level_name(level));
        break;
      }
      io->ops[n++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE, .disk = d, .bytes = on_disk};
      if (level == FL_LEVEL_XOR)
        io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                                  .src = h,
                                  .dst = fl_platform_host(wr->sim->pf, jb->nodes[restart ? slot : (k + step) % nodes]),
                                  .bytes = bytes};
    }
  } else if (level == FL_LEVEL_BUDDY && restart) {
    io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                              .src = fl_platform_host(wr->sim->pf, jb->nodes[(slot + step) % nodes]),
                              .dst = fl_platform_host(wr->sim->pf, jb->nodes[slot]),
                              .bytes = bytes};
  } else if (level == FL_LEVEL_BUDDY || buddy_too) {
    for (long k = 0; k < nodes; k++)
      io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                                .src = fl_platform_host(wr->sim->pf, jb->nodes[k]),
                                .dst = fl_platform_host(wr->sim->pf, jb->nodes[(k + step) % nodes]),
                                .bytes = bytes};
  }
  if (wr->rc != FL_OK) { /* a node without the disk: the replica ends with the error */
    free(io->ops);
    free(io);
    return;
  }
  io->nops = n;
  io->wr = wr;
  io->refs = 2;
  io->job = j;
  io->restart = restart;
  io->level = level;
  jb->io = io;
  jb->phase = restart ? FL_WLP_RESTART : FL_WLP_CKPT;
  jb->phase_t = wr->now;
  jb->serial++;
  sg_actor_t a = sg_actor_init("io", fl_platform_controller(wr->sim->pf));
  sg_actor_set_data(a, io);
  sg_actor_start(a, fl_wl_io_main, 0, NULL);
}

static void fl_wl_io_unref(fl_wlio *io)
{
  if (--io->refs > 0)
    return;
  if (io->set)
    fl_ioset_free(io->set);
  free(io->ops);
  free(io);
}

static void fl_wl_io_main(int argc, char **argv)
{
  fl_wlio *io = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  if (io->state == 0) { /* else cancelled before it started */
    io->set = fl_ioset_start(io->ops, io->nops);
    if (!io->set) {
      io->wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    } else if (fl_ioset_wait(io->set) == 0 && io->state == 0) {
      io->state = 1;
      io->refs++; /* the list's */
      if (io->wr->done_tail)
        io->wr->done_tail->next = io;
      else
        io->wr->done_head = io;
      io->wr->done_tail = io;
      sg_sem_release(io->wr->sem);
    }
  }
  fl_wl_io_unref(io);
}

/* The coordinator stops job j's I/O (a failure, the end of the replica) and lets go of it. */
static void fl_wl_io_stop(fl_wlj *jb)
{
  fl_wlio *io = jb->io;
  jb->io = NULL;
  if (!io)
    return;
  if (io->state == 0) {
    io->state = 2;
    if (io->set)
      fl_ioset_cancel(io->set);
  }
  /* a completed one still listed is dropped when the coordinator reaches it (its job no longer points to it) */
  fl_wl_io_unref(io);
}

/* Cooperative periods: the running set changed, so every running job's period is worked out again (policy/
 * interval.h); a segment under way keeps the period it began with. */
static void fl_wl_coop_update(fl_wlrep *wr)
{
  const fl_wlrun *w = wr->w;
  long m = 0;
  wr->coop_dirty = 0;
  for (long a = 0; a < wr->nrun; a++) {
    long j = wr->runl[a];
    const fl_wlj *jb = FL_WJ(wr, j);
    wr->c_cost[m] = jb->cost_s;
    wr->c_mtbf[m] = jb->mtbf_s;
    wr->c_load[m] = jb->load_s;
    wr->c_nodes[m] = (double)(jb->t.nodes * jb->copies);
    m++;
  }
  if (isnan(fl_pol_interval_cooperative(m, wr->c_cost, wr->c_mtbf, wr->c_load, wr->c_nodes, w->coop_daly,
                                        wr->c_period))) {
    wr->rc = fl_err_set(FL_ERR_INTERNAL, "cooperative periods: no solution for %ld running jobs", m);
    return;
  }
  for (long a = 0; a < m; a++)
    FL_WJ(wr, wr->runl[a])->tau = wr->c_period[a];
}

static void fl_wl_run_add(fl_wlrep *wr, long j)
{
  if (!wr->w->coop)
    return;
  FL_WJ(wr, j)->run_pos = wr->nrun;
  wr->runl[wr->nrun++] = j;
  wr->coop_dirty = 1;
}

static void fl_wl_run_remove(fl_wlrep *wr, long j)
{
  long a = wr->w->coop ? FL_WJ(wr, j)->run_pos : -1;
  if (a < 0)
    return;
  wr->runl[a] = wr->runl[--wr->nrun];
  FL_WJ(wr, wr->runl[a])->run_pos = a;
  FL_WJ(wr, j)->run_pos = -1;
  wr->coop_dirty = 1;
}

/* Start job j's next compute segment (or finish it). */
static void fl_wl_compute(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  double left = jb->t.run_s - jb->done_s;
  if (wr->w->coop && wr->coop_dirty)
    fl_wl_coop_update(wr);
  jb->seg_s = fmin(wr->w->coop ? jb->tau : jb->tau_s, left);
  jb->phase = FL_WLP_COMPUTE;
  jb->phase_t = wr->now;
  jb->serial++;
  fl_wl_heap_push(wr, (fl_jobev){.t = wr->now + jb->seg_s, .job = j, .serial = jb->serial});
}

/* Job j gives its nodes back (it finished or failed): the up ones are free again, the down ones come back with
 * their repair. */
static void fl_wl_release(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  long down = 0;
  for (long k = 0; k < jb->nslots; k++) {
    long n = jb->nodes[k];
    wr->node_job[n] = -1;
    if (wr->down[n])
      down++;
    else
      fl_wl_free_push(wr, n);
  }
  free(jb->nodes);
  jb->nodes = NULL;
  free(jb->dead);
  jb->dead = NULL;
  jb->phase = FL_WLP_NONE;
  jb->serial++;
  wr->running--;
  fl_wl_run_remove(wr, j);
  if (wr->rc == FL_OK)
    wr->rc = fl_batch_end(wr->batch, j);
  if (wr->rc == FL_OK && down)
    wr->rc = fl_batch_capacity(wr->batch, -down);
}

/* The PFS is free: the next waiting checkpoint (cooperative I/O). Asked once an instant, after every request of
 * that instant is in the queue. */
static void fl_wl_pfs_next(fl_wlrep *wr)
{
  long best = -1;
  if (wr->pfs_holder >= 0 || wr->npfsq == 0)
    return;
  if (wr->w->io_policy == FL_IO_ORDERED) {
    best = 0;
  } else {
    /* least-waste: the candidate whose checkpoint costs the other waiting jobs least */
    double bestw = INFINITY;
    for (long a = 0; a < wr->npfsq; a++) {
      long i = wr->pfsq[a];
      double c = FL_WJ(wr, i)->delta_s, sum = 0;
      for (long b = 0; b < wr->npfsq; b++) {
        if (b == a)
          continue;
        long k = wr->pfsq[b];
        double q = (double)FL_WJ(wr, k)->t.nodes;
        double mu = wr->sim->node_mtbf_s / q;
        double d = FL_WJ(wr, k)->seg_s + (wr->now - FL_WJ(wr, k)->req_t); /* unsaved: its segment, and the wait */
        sum += q * (1.0 + (isfinite(mu) ? (d + c / 2.0) / mu : 0.0));
      }
      double wv = c * sum;
      if (wv < bestw) {
        bestw = wv;
        best = a;
      }
    }
  }
  long j = wr->pfsq[best];
  memmove(wr->pfsq + best, wr->pfsq + best + 1, (size_t)(wr->npfsq - best - 1) * sizeof *wr->pfsq);
  wr->npfsq--;
  fl_wlj *jb = FL_WJ(wr, j);
  jb->row.io_wait_s += wr->now - jb->req_t;
  wr->pfs_holder = j;
  fl_wl_io_start(wr, j, 0, FL_LEVEL_FILE, -1);
}

/* Energy: job j's nodes computed for dur seconds (a segment, or its part before a failure): each drew its busy
 * power instead of its idle one. */
static void fl_wl_busy_energy(fl_wlrep *wr, long j, double dur)
{
  const fl_wlj *jb = FL_WJ(wr, j);
  long live = 0;
  for (long k = 0; k < jb->nslots; k++) /* a dead copy's node computes no more (fl_wl_job_fails counted its part) */
    live += !(jb->dead && jb->dead[k]);
  if (!wr->sim->power) {
    wr->busy_j += (wr->sim->power_u.busy - wr->sim->power_u.idle) * (double)live * dur;
    return;
  }
  for (long k = 0; k < jb->nslots; k++) {
    const fl_power *pw = fl_sim_power(wr->sim, jb->nodes[k]);
    if (!(jb->dead && jb->dead[k]))
      wr->busy_j += (pw->busy - pw->idle) * dur;
  }
}

/* Job j's compute segment ended. */
static void fl_wl_segment_done(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  const fl_swf_job *t = &jb->t;
  fl_wl_busy_energy(wr, j, jb->seg_s);
  if (jb->done_s + jb->seg_s >= t->run_s) {
    jb->done_s = t->run_s;
    jb->row.end_s = wr->now;
    wr->finished++;
    fl_wl_log_job(wr, FL_EV_JOB_END, j, -1, NAN, -1);
    fl_wl_release(wr, j);
    return;
  }
  /* (a job whose level would be none, one node under a buddy level alone, has an infinite interval: set-up) */
  fl_level level = fl_wl_level(wr->w, t->nodes, fl_strat_level(&wr->sim->strat, jb->row.checkpoints + 1));
  if (level == FL_LEVEL_BUDDY || wr->w->io_policy == FL_IO_OBLIVIOUS) { /* cooperative I/O orders the PFS's */
    fl_wl_io_start(wr, j, 0, level, -1);
    return;
  }
  jb->phase = FL_WLP_IOWAIT;
  jb->req_t = wr->now;
  jb->serial++;
  wr->pfsq[wr->npfsq++] = j;
}

/* Job j's I/O completed. */
static void fl_wl_io_done(fl_wlrep *wr, fl_wlio *io)
{
  long j = io->job;
  fl_wlj *jb = FL_WJ(wr, j);
  double dur = wr->now - jb->phase_t;
  fl_wl_io_unref(io); /* the job's reference */
  jb->io = NULL;
  if (io->restart) {
    jb->row.restart_s += dur;
    fl_wl_log_level(wr, FL_EV_RESTART_JOB, j, jb->done_s, io->level);
  } else {
    jb->row.checkpoint_s += dur;
    jb->done_s += jb->seg_s;
    jb->row.checkpoints++;
    /* the levels it wrote: its own, and those a checkpoint of it refreshes (the strategy's writes; none that needs
     * a partner on a job of one node) */
    unsigned wrote = (FL_LEVEL_BIT(io->level) | wr->sim->strat.writes[io->level]) & fl_wl_level_mask(jb->t.nodes);
    for (int l = 0; l < FL_NLEVELS; l++)
      if (wrote & FL_LEVEL_BIT(l)) {
        jb->lv_s[l] = jb->done_s;
        jb->lv_v[l] = jb->row.checkpoints;
      }
    fl_wl_log_level(wr, FL_EV_CHECKPOINT_JOB, j, jb->done_s, io->level);
    if (wr->pfs_holder == j)
      wr->pfs_holder = -1; /* the next is chosen once this instant's requests are in */
  }
  fl_wl_io_unref(io); /* the list's */
  fl_wl_compute(wr, j);
}

/* A node of running job j failed at now. A copy of each of its ranks still alive (replication): the failure is
 * masked, the dead copy's node stays with the job until it ends. Else the job stops, and the strategy decides
 * from what survived (fl_strat_on_failure, as in the other engines): the buddy level when every partner copy
 * lives and the job can stay where it is — it keeps its live nodes and takes a free node of the machine for the
 * lost one, as a resource manager that grows an allocation by a node (restart in place, as SCR restarts within
 * an allocation), when the scheduler would give that node to a newcomer (no reservation delayed, nobody first in
 * line for it); the file level or the start otherwise, giving its nodes back and waiting for nodes again, first
 * in the queue or last (app.restart). The work past the version restored is lost. */
static void fl_wl_job_fails(fl_wlrep *wr, long j, long node)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  const fl_swf_job *t = &jb->t;
  double lost = 0.0, restored;
  long slot = 0;
  fl_recovery rec;
  fl_failure_view view = {.copies_left = 0,
                          .buddy_version = jb->lv_v[FL_LEVEL_BUDDY],
                          .file_version = jb->lv_v[FL_LEVEL_FILE],
                          .local_version = jb->lv_v[FL_LEVEL_LOCAL],
                          .xor_version = jb->lv_v[FL_LEVEL_XOR]};
  while (slot < jb->nslots && jb->nodes[slot] != node)
    slot++;
  if (jb->copies > 1) {
    long left = 0; /* the rank's other live copies */
    for (long c = 0; c < jb->copies; c++)
      left += c * t->nodes + slot % t->nodes != slot && !jb->dead[c * t->nodes + slot % t->nodes];
    if (left > 0) {
      jb->dead[slot] = 1;
      if (jb->phase == FL_WLP_COMPUTE) { /* its part of the segment's busy energy: up to now */
        const fl_power *pw = wr->sim->power ? fl_sim_power(wr->sim, node) : &wr->sim->power_u;
        wr->busy_j += (pw->busy - pw->idle) * (wr->now - jb->phase_t);
      }
      jb->row.failures++;
      wr->rep->res->failures++;
      fl_wl_log_job(wr, FL_EV_FAILURE_JOB_COPY, j, node, NAN, left);
      return;
    }
  }
  switch (jb->phase) {
  case FL_WLP_COMPUTE:
    lost = wr->now - jb->phase_t;
    fl_wl_busy_energy(wr, j, lost);
    break;
  case FL_WLP_IOWAIT:
    lost = jb->seg_s;
    jb->row.io_wait_s += wr->now - jb->req_t;
    for (long a = 0; a < wr->npfsq; a++)
      if (wr->pfsq[a] == j) {
        memmove(wr->pfsq + a, wr->pfsq + a + 1, (size_t)(wr->npfsq - a - 1) * sizeof *wr->pfsq);
        wr->npfsq--;
        break;
      }
    break;
  case FL_WLP_CKPT:
  case FL_WLP_RESTART:
    if (jb->phase == FL_WLP_CKPT) {
      lost = jb->seg_s;
      jb->row.checkpoint_s += wr->now - jb->phase_t;
    } else {
      jb->row.restart_s += wr->now - jb->phase_t;
    }
    fl_wl_io_stop(jb);
    break;
  default: break;
  }
  /* partner copies live on the job's other nodes; they outlast this failure if the job can stay (a free node to
   * take the lost one's place) and was not restarting (a second failure while a copy is read back) */
  {
    /* a lost node takes its local disk: the local level never survives (node failures only); the XOR level does
     * when the lost rank's set holds another rank to rebuild it from */
    int stay = jb->phase != FL_WLP_RESTART && wr->nfree > 0;
    if (stay && wr->rc == FL_OK) {
      /* a free node is the job's only where the scheduler would give it to a newcomer that needs it until the
       * job's expected end: not one a waiting job's reservation counts on (easy), nor one a waiting job is first
       * in line for (fcfs) */
      double until = fl_batch_expected_end(wr->batch, j) - wr->now;
      wr->rc = fl_batch_would_start(wr->batch, wr->now, 1, until > 0 ? until : 0.0, &stay);
    }
    long g = w->xor_g, k = slot % t->nodes;
    long set = (k / g) * g, set_size = t->nodes - set < g ? t->nodes - set : g;
    view.buddy_intact = stay && t->nodes > 1 && jb->lv_v[FL_LEVEL_BUDDY] >= 0;
    view.xor_intact = stay && set_size > 1 && jb->lv_v[FL_LEVEL_XOR] >= 0;
    view.local_intact = 0;
  }
  rec = fl_strat_on_failure(&wr->sim->strat, &view);
  restored = rec.action == FL_ACT_ROLLBACK ? jb->lv_s[rec.level] : 0.0;
  lost += jb->done_s - restored; /* committed work newer than the version restored */
  jb->done_s = restored;
  jb->row.lost_work_s += lost;
  jb->row.failures++;
  wr->rep->res->failures++;
  wr->rep->res->interruptions++;
  int in_place = rec.action == FL_ACT_ROLLBACK && (rec.level == FL_LEVEL_BUDDY || rec.level == FL_LEVEL_XOR);
  fl_wl_log_job(wr, FL_EV_FAILURE_JOB, j, node, lost, in_place ? 1 : -1);
  if (wr->pfs_holder == j)
    wr->pfs_holder = -1;
  if (in_place) {
    long spare = wr->freel[wr->nfree - 1];
    fl_wl_free_remove(wr, spare);
    wr->node_job[node] = -1; /* down: it comes back free with its repair */
    wr->node_job[spare] = (int32_t)j;
    jb->nodes[slot] = (int32_t)spare;
    if (wr->rc == FL_OK) /* the machine lost a node: the job holds as many as before */
      wr->rc = fl_batch_capacity(wr->batch, -1);
    fl_wl_io_start(wr, j, 1, rec.level, slot);
    return;
  }
  for (int l = 0; l < FL_NLEVELS; l++) /* its nodes' memory and disks go with them; files stay, unless none is read */
    if (l != FL_LEVEL_FILE || rec.action != FL_ACT_ROLLBACK) {
      jb->lv_v[l] = -1;
      jb->lv_s[l] = 0.0;
    }
  fl_wl_release(wr, j);
  double est = t->req_s - jb->done_s;
  if (!(est > 0))
    est = t->run_s - jb->done_s;
  if (wr->rc == FL_OK)
    wr->rc = fl_batch_submit(wr->batch, j, t->nodes * jb->copies, est, !w->requeue);
}

/* A job that just started: it reads its file-level checkpoint back, or computes. */
static void fl_wl_begin(fl_wlrep *wr, long j)
{
  if (FL_WJ(wr, j)->done_s > 0)
    fl_wl_io_start(wr, j, 1, FL_LEVEL_FILE, -1); /* read its file-level checkpoint back */
  else
    fl_wl_compute(wr, j);
}

/* Ask the scheduler; start what it picks. */
static void fl_wl_schedule(fl_wlrep *wr)
{
  long n = 0;
  if (wr->rc != FL_OK || wr->timeout)
    return;
  if (fl_batch_waiting(wr->batch) > wr->nstarted_cap) { /* room for the queue's length (fl_batch_pick) */
    long cap = 2 * fl_batch_waiting(wr->batch);
    long *grown = realloc(wr->started, (size_t)cap * sizeof *grown);
    if (!grown) {
      wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    wr->started = grown;
    wr->nstarted_cap = cap;
  }
  if ((wr->rc = fl_batch_pick(wr->batch, wr->now, wr->started, &n)) != FL_OK)
    return;
  for (long k = 0; k < n; k++) {
    long j = wr->started[k];
    fl_wlj *jb = FL_WJ(wr, j);
    long copies = jb->copies, nodes = jb->t.nodes * copies;
    jb->nslots = nodes;
    jb->nodes = malloc((size_t)nodes * sizeof *jb->nodes);
    if (copies > 1 && jb->nodes)
      jb->dead = calloc((size_t)nodes, 1);
    if (!jb->nodes || (copies > 1 && !jb->dead) || wr->nfree < nodes) {
      wr->rc = jb->nodes ? fl_err_set(FL_ERR_INTERNAL, "the scheduler started job %ld on %ld nodes, %ld free", j, nodes,
                                      wr->nfree)
                         : fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    for (long i = 0; i < nodes; i++) {
      long node = wr->freel[wr->nfree - 1];
      fl_wl_free_remove(wr, node);
      jb->nodes[i] = (int32_t)node;
      wr->node_job[node] = (int32_t)j;
    }
    if (isnan(jb->row.start_s))
      jb->row.start_s = wr->now;
    wr->running++;
    fl_wl_run_add(wr, j);
    fl_wl_log_job(wr, FL_EV_JOB_START, j, -1, NAN, nodes);
    if (!wr->w->coop)
      fl_wl_begin(wr, j);
  }
  for (long k = 0; wr->w->coop && k < n; k++) /* cooperative periods: over every job this instant started */
    fl_wl_begin(wr, wr->started[k]);
}

/* Energy: node was down from down_since[node] to t; what it drew beyond its idle power within the span. */
static void fl_wl_off_energy(fl_wlrep *wr, long node, double t)
{
  const fl_power *pw = fl_sim_power(wr->sim, node);
  double from = fmax(wr->down_since[node], wr->first_submit);
  if (t > from)
    wr->off_j += (pw->off - pw->idle) * (t - from);
}

/* One failure-source event at now. */
static void fl_wl_failure_event(fl_wlrep *wr, long node, fl_fsrc_kind kind)
{
  if (kind == FL_FSRC_REPAIR) {
    if (!wr->down[node])
      return;
    wr->down[node] = 0;
    fl_wl_off_energy(wr, node, wr->now);
    fl_evlog_add(wr->rep->log, wr->now, FL_EV_REPAIR_IDLE, node);
    if (wr->node_job[node] < 0) {
      fl_wl_free_push(wr, node);
      if (wr->rc == FL_OK)
        wr->rc = fl_batch_capacity(wr->batch, 1);
    }
    return;
  }
  if (wr->down[node])
    return;
  wr->down[node] = 1;
  wr->down_since[node] = wr->now;
  if (kind == FL_FSRC_FAILURE)
    wr->rep->res->platform_failures++;
  long j = wr->node_job[node];
  if (j >= 0) {
    fl_wl_job_fails(wr, j, node);
  } else {
    fl_wl_free_remove(wr, node);
    fl_evlog_add(wr->rep->log, wr->now, FL_EV_FAILURE_IDLE, node);
    if (wr->rc == FL_OK)
      wr->rc = fl_batch_capacity(wr->batch, -1);
  }
}

/* Job j ended (or failed for good) long ago, or never will run here: its figures added to the machine's, in job
 * order (the sums come out as a loop over the jobs would make them), and its row written to the replica's file. */
static void fl_wl_account(fl_wlrep *wr, const fl_db_job *r, double run)
{
  double q = (double)(r->nodes * r->copies); /* the nodes it held */
  wr->a_first = fmin(wr->a_first, r->submit_s);
  wr->a_lost += q * r->lost_work_s;
  wr->a_ck += q * r->checkpoint_s;
  wr->a_rs += q * r->restart_s;
  wr->a_iw += q * r->io_wait_s;
  if (!isnan(r->start_s)) {
    wr->a_started++;
    wr->a_wait += r->start_s - r->submit_s;
  }
  if (!isnan(r->end_s)) {
    wr->a_completed++;
    wr->a_last = fmax(wr->a_last, r->end_s);
    wr->a_useful += (double)r->nodes * run; /* its copies' node-hours are not useful work */
    wr->a_replica += (double)(r->nodes * (r->copies - 1)) * run;
    wr->a_bsld += fmax(1.0, (r->end_s - r->submit_s) / fmax(run, 10.0));
  }
  wr->rep->res->checkpoints += r->checkpoints;
  if (fwrite(r, sizeof *r, 1, wr->out) != 1 && wr->rc == FL_OK)
    wr->rc = fl_err_set(FL_ERR_IO, "cannot write a job's row: %s", strerror(errno));
  wr->nrows++;
}

/* The finished jobs at the start of the window leave it. */
static void fl_wl_retire(fl_wlrep *wr)
{
  while (wr->lo < wr->next_submit && !isnan(FL_WJ(wr, wr->lo)->row.end_s)) {
    fl_wlj *jb = FL_WJ(wr, wr->lo);
    fl_wl_account(wr, &jb->row, jb->t.run_s);
    free(jb->nodes); /* (given back as it ended) */
    free(jb->dead);
    jb->nodes = NULL;
    jb->dead = NULL;
    wr->lo++;
  }
}

/* The next job arrives: it enters the window (twice the room when full) with its interval and costs, and the
 * queue; the one after it is read. */
static void fl_wl_admit(fl_wlrep *wr)
{
  long j = wr->next_submit;
  if (j - wr->lo == wr->wcap) {
    long cap = wr->wcap ? 2 * wr->wcap : 64;
    fl_wlj *grown = malloc((size_t)cap * sizeof *grown);
    if (!grown) {
      wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    for (long i = wr->lo; i < j; i++)
      grown[i & (cap - 1)] = wr->win[i & (wr->wcap - 1)];
    free(wr->win);
    wr->win = grown;
    wr->wcap = cap;
  }
  fl_wlj *jb = FL_WJ(wr, j);
  memset(jb, 0, sizeof *jb);
  jb->t = wr->pend;
  if ((wr->rc = fl_wl_params(wr->w, wr->sim, &jb->t, jb)) != FL_OK)
    return;
  jb->tau = jb->tau_s;
  jb->run_pos = -1;
  jb->row = (fl_db_job){.job = jb->t.id,
                        .submit_s = jb->t.submit_s,
                        .start_s = NAN,
                        .end_s = NAN,
                        .run_s = jb->t.run_s,
                        .nodes = jb->t.nodes,
                        .copies = jb->copies};
  for (int l = 0; l < FL_NLEVELS; l++)
    jb->lv_v[l] = -1;
  wr->next_submit++;
  wr->rc = fl_batch_submit(wr->batch, j, jb->t.nodes * jb->copies, jb->t.req_s, 0);
  if (wr->rc == FL_OK)
    wr->rc = fl_wl_src_next(&wr->src, &wr->pend, &wr->have);
}

/* Is heap entry e of a phase since ended (a failure, the job's end)? */
static int fl_wl_stale(const fl_wlrep *wr, fl_jobev e)
{
  return e.job < wr->lo || e.serial != FL_WJ(wr, e.job)->serial;
}

static void fl_wl_coordinator(int argc, char **argv)
{
  fl_wlrep *wr = sg_actor_self_get_data();
  fl_wlrun *w = wr->w;
  fl_replica *rep = wr->rep;
  double t0 = simgrid_get_clock();
  (void)argc;
  (void)argv;
  wr->now = 0.0;
  while (wr->rc == FL_OK) {
    if (wr->finished == w->njobs)
      break;
    /* nothing can ever run again: jobs wait, none runs or is to come, and no node will come back (failures
     * only take more) */
    if (wr->running == 0 && !wr->have && fl_batch_waiting(wr->batch) > 0 && fl_fsrc_pending_repairs(rep->src) == 0)
      break;
    double tnext = wr->have ? wr->pend.submit_s : INFINITY;
    while (wr->heap.n > 0 && fl_wl_stale(wr, wr->heap.v[0]))
      fl_jobheap_pop(&wr->heap); /* a phase a failure ended */
    if (wr->heap.n > 0)
      tnext = fmin(tnext, wr->heap.v[0].t);
    if (!rep->over_budget)
      tnext = fmin(tnext, fl_fsrc_peek(rep->src));
    if (!isfinite(tnext) && wr->running == 0)
      break; /* nothing left to happen */
    if (tnext > wr->sim->max_time_s)
      tnext = wr->sim->max_time_s;
    if (!wr->done_head) {
      double dt = tnext - wr->now;
      int acquired = 0;
      if (isfinite(dt) && dt > 0)
        acquired = sg_sem_acquire_timeout(wr->sem, dt) == 0;
      else if (!isfinite(dt))
        acquired = (sg_sem_acquire(wr->sem), 1);
      if (acquired) {
        wr->now = simgrid_get_clock() - t0; /* an I/O completed: its date is the platform's */
        if (wr->now > tnext)
          wr->now = tnext;
      } else {
        wr->now = tnext;
      }
    } else if (sg_sem_would_block(wr->sem) == 0) {
      sg_sem_acquire(wr->sem); /* the token of a completion already listed */
    }
    if (wr->now >= wr->sim->max_time_s && wr->finished < w->njobs) {
      wr->timeout = 1;
      break;
    }
    /* I/O that completed */
    while (wr->done_head) {
      fl_wlio *io = wr->done_head;
      wr->done_head = io->next;
      if (!wr->done_head)
        wr->done_tail = NULL;
      if (io->job >= wr->lo && FL_WJ(wr, io->job)->io == io)
        fl_wl_io_done(wr, io);
      else
        fl_wl_io_unref(io); /* its job failed meanwhile */
    }
    /* phases that end now, then failures and repairs, then arrivals, then one decision */
    while (wr->heap.n > 0 && wr->heap.v[0].t <= wr->now) {
      fl_jobev e = fl_jobheap_pop(&wr->heap);
      if (!fl_wl_stale(wr, e))
        fl_wl_segment_done(wr, e.job);
    }
    while (!rep->over_budget && fl_fsrc_peek(rep->src) <= wr->now) {
      double t;
      long node;
      fl_fsrc_kind kind;
      if (!fl_fsrc_next(rep->src, &t, &node, &kind))
        break;
      if (++rep->nevents > wr->sim->max_events) {
        rep->over_budget = 1;
        fl_evlog_entry *e = fl_evlog_add(rep->log, wr->now, FL_EV_BUDGET, -1);
        if (e)
          e->n = wr->sim->max_events;
        wr->timeout = 1;
        break;
      }
      if (node < w->machine)
        fl_wl_failure_event(wr, node, kind);
    }
    if (wr->timeout)
      break;
    while (wr->rc == FL_OK && wr->have && wr->pend.submit_s <= wr->now)
      fl_wl_admit(wr);
    fl_wl_pfs_next(wr);
    fl_wl_schedule(wr);
    fl_wl_retire(wr);
  }
  /* what is still under way stops with the replica */
  for (long j = wr->lo; j < wr->next_submit; j++)
    fl_wl_io_stop(FL_WJ(wr, j));
  while (wr->done_head) {
    fl_wlio *io = wr->done_head;
    wr->done_head = io->next;
    fl_wl_io_unref(io);
  }
}

/* The replica, in the child: the figures, then the jobs' rows, then the events, written to `out`. */
typedef struct fl_wl_run_ctx {
  fl_replica *rep;
} fl_wl_run_ctx;

static fl_err fl_wl_replica_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_replica *rep = ((fl_wl_run_ctx *)ctx)->rep;
  fl_sim *sim = rep->sim;
  fl_wlrun *w = sim->app_state;
  fl_wlrep wr;
  fl_db_machine fig;
  memset(&wr, 0, sizeof wr);
  memset(&fig, 0, sizeof fig);
  wr.rep = rep;
  wr.sim = sim;
  wr.w = w;
  wr.pfs_holder = -1;
  wr.out = out;
  wr.a_first = INFINITY;
  wr.a_last = -INFINITY;
  FL_ALLOC(wr.node_job, w->machine);
  FL_ALLOC(wr.down, w->machine);
  FL_ALLOC(wr.down_since, w->machine);
  FL_ALLOC(wr.freel, w->machine);
  FL_ALLOC(wr.free_pos, w->machine);
  FL_ALLOC(wr.pfsq, w->machine); /* (jobs waiting for the PFS are running: one node each at least) */
  if (w->aggregated) {
    FL_ALLOC(wr.cab_n, w->ncab); /* zeroed, and left so by each use */
    FL_ALLOC(wr.cab_seen, w->ncab);
  }
  if (w->coop) { /* over the running jobs: one node each at least */
    FL_ALLOC(wr.runl, w->machine);
    FL_ALLOC(wr.c_cost, w->machine);
    FL_ALLOC(wr.c_mtbf, w->machine);
    FL_ALLOC(wr.c_load, w->machine);
    FL_ALLOC(wr.c_nodes, w->machine);
    FL_ALLOC(wr.c_period, w->machine);
  }
  FL_TRY(fl_batch_create(w->sched, w->machine, &wr.batch));
  /* the first job (in submit order: the span's start) */
  FL_TRY(fl_wl_src_open(w, &wr.src));
  FL_TRY(fl_wl_src_next(&wr.src, &wr.pend, &wr.have));
  wr.first_submit = wr.have ? wr.pend.submit_s : INFINITY;
  /* the free list from the top, so that jobs take the lowest nodes first */
  for (long n = w->machine - 1; n >= 0; n--) {
    wr.node_job[n] = -1;
    fl_wl_free_push(&wr, n);
  }
  {
    long node;
    while (fl_fsrc_next_down_at_start(rep->src, &node))
      if (node < w->machine && !wr.down[node]) {
        wr.down[node] = 1;
        wr.down_since[node] = 0.0;
        fl_wl_free_remove(&wr, node);
        FL_TRY(fl_batch_capacity(wr.batch, -1));
      }
  }
  wr.sem = sg_sem_init(0);
  {
    sg_actor_t a = sg_actor_init("coordinator", fl_platform_controller(sim->pf));
    sg_actor_set_data(a, &wr);
    sg_actor_start(a, fl_wl_coordinator, 0, NULL);
  }
  simgrid_run();
  FL_TRY(wr.rc);
  {
    /* the jobs still in the window (a replica that did not complete), then those that never came (the rows of
     * every job of the trace) */
    for (long j = wr.lo; j < wr.next_submit; j++)
      fl_wl_account(&wr, &FL_WJ(&wr, j)->row, FL_WJ(&wr, j)->t.run_s);
    while (wr.have && wr.rc == FL_OK) {
      fl_db_job r = {.job = wr.pend.id,
                     .submit_s = wr.pend.submit_s,
                     .start_s = NAN,
                     .end_s = NAN,
                     .run_s = wr.pend.run_s,
                     .nodes = wr.pend.nodes,
                     .copies = fl_wl_copies(w, wr.pend.nodes)};
      fl_wl_account(&wr, &r, wr.pend.run_s);
      wr.rc = fl_wl_src_next(&wr.src, &wr.pend, &wr.have);
    }
    FL_TRY(wr.rc);
    FL_CHECK(wr.nrows == w->njobs, FL_ERR_INTERNAL, "a workload replica wrote %ld jobs' rows of %ld", wr.nrows,
             w->njobs);
    fig.jobs_completed = wr.a_completed;
    double span = fig.jobs_completed ? wr.a_last - wr.a_first : NAN;
    fig.jobs = w->njobs;
    fig.utilisation = span > 0 ? wr.a_useful / (span * (double)w->machine) : NAN;
    fig.useful_node_hours = wr.a_useful / 3600.0;
    fig.lost_node_hours = wr.a_lost / 3600.0;
    fig.checkpoint_node_hours = wr.a_ck / 3600.0;
    fig.restart_node_hours = wr.a_rs / 3600.0;
    fig.io_wait_node_hours = wr.a_iw / 3600.0;
    fig.replica_node_hours = wr.a_replica / 3600.0;
    fig.mean_wait_s = wr.a_started ? wr.a_wait / (double)wr.a_started : NAN;
    fig.mean_bounded_slowdown = fig.jobs_completed ? wr.a_bsld / (double)fig.jobs_completed : NAN;
    rep->res->makespan_s = span;
    rep->res->status = fig.jobs_completed == w->njobs ? "completed" : wr.timeout ? "timeout" : "failed";
    if (fig.jobs_completed == w->njobs && span > 0) {
      /* every node idle over the span, computing nodes their busy power (accounted node by node as each segment
       * ended or was cut short), down ones their off power; a run whose jobs did not all finish says NULL (it ended
       * in the middle of phases: docs/energy.md) */
      double idle = 0.0;
      for (long n = 0; n < w->machine; n++) {
        idle += fl_sim_power(sim, n)->idle;
        if (wr.down[n])
          fl_wl_off_energy(&wr, n, wr.a_last);
      }
      rep->res->energy_j = idle * span + wr.busy_j + wr.off_j;
    }
  }
  {
    /* after the rows: the figures, the events, and where they begin (the parent reads them from the end) */
    int64_t tail[2] = {wr.nrows, (int64_t)ftell(out)};
    FL_CHECK(tail[1] >= 0 && fwrite(rep->res, sizeof *rep->res, 1, out) == 1 && fwrite(&fig, sizeof fig, 1, out) == 1,
             FL_ERR_IO, "cannot write a replica's results: %s", strerror(errno));
    FL_TRY(fl_sim_events_send(rep->log, out));
    FL_CHECK(fwrite(tail, sizeof tail, 1, out) == 1, FL_ERR_IO, "cannot write a replica's results: %s",
             strerror(errno));
  }
done:
  if (wr.sem)
    sg_sem_destroy(wr.sem);
  fl_batch_destroy(&wr.batch);
  for (long j = wr.lo; wr.win && j < wr.next_submit; j++) {
    free(FL_WJ(&wr, j)->nodes);
    free(FL_WJ(&wr, j)->dead);
  }
  free(wr.win);
  fl_wl_src_close(&wr.src);
  free(wr.node_job);
  free(wr.down);
  free(wr.down_since);
  free(wr.freel);
  free(wr.free_pos);
  free(wr.started);
  free(wr.pfsq);
  free(wr.runl);
  free(wr.c_cost);
  free(wr.c_mtbf);
  free(wr.c_load);
  free(wr.c_nodes);
  free(wr.c_period);
  free(wr.cab_n);
  free(wr.cab_seen);
  fl_jobheap_free(&wr.heap);
  return rc;
}

static fl_err fl_wlr_run_replica(fl_replica *rep)
{
  fl_err rc = FL_OK;
  fl_sim *sim = rep->sim;
  fl_wlrun *w = sim->app_state;
  FILE *res = NULL;
  fl_wl_run_ctx ctx = {.rep = rep};
  fl_sim_result got;
  int b = w->flip;
  w->flip ^= 1;
  FL_TRY(fl_sim_in_child(fl_wl_replica_main, &ctx, &res));
  {
    /* the jobs' rows from here; the figures and events after them, where the file's last two numbers say */
    long rows_at = ftell(res);
    int64_t tail[2];
    FL_CHECK(rows_at >= 0 && fseek(res, -(long)sizeof tail, SEEK_END) == 0 && fread(tail, sizeof tail, 1, res) == 1 &&
                 tail[0] == w->njobs && fseek(res, (long)tail[1], SEEK_SET) == 0,
             FL_ERR_IO, "a workload replica's results came back short");
    FL_CHECK(fread(&got, sizeof got, 1, res) == 1 && fread(&w->fig[b], sizeof w->fig[b], 1, res) == 1, FL_ERR_IO,
             "a workload replica's results came back short");
    got.wall_s = rep->res->wall_s;
    *rep->res = got;
    FL_TRY(fl_sim_events_receive(rep->log, res));
    /* the database writer reads the rows from the file (it held the one of two replicas ago until it was done) */
    if (w->rowsf[b])
      fclose(w->rowsf[b]);
    w->rowsf[b] = res;
    res = NULL;
    w->fig[b].rows = NULL;
    w->fig[b].rows_file = w->rowsf[b];
    w->fig[b].rows_at = rows_at;
    w->fig[b].nrows = w->njobs;
    rep->res->machine = &w->fig[b];
  }
done:
  if (res)
    fclose(res);
  return rc;
}

/* ---- the app ---- */

/* many jobs, each with its own interval and costs: the machine's nodes and the failure-free schedule's span stand
 * for the job's ranks and work */
static fl_err fl_workload_setup(fl_sim *sim, const fl_scenario *sc)
{
  fl_wlrun *w = NULL;
  fl_err rc = fl_wlr_create(sim, sc, &w);
  if (rc != FL_OK)
    return rc;
  sim->app_state = w;
  sim->ranks = fl_wlr_machine(w);
  sim->work_s = fl_wlr_work(w);
  return FL_OK;
}

static void fl_workload_destroy(fl_sim *sim)
{
  fl_wlrun *w = sim->app_state;
  fl_wlr_destroy(&w);
  sim->app_state = NULL;
}

static void fl_workload_row(const fl_sim *sim, const fl_sim_result *res, fl_db_run *row)
{
  const fl_wlrun *w = sim->app_state;
  row->machine = res->machine;
  if (w->coop) /* each job's period changes with the running set: the rule, not one figure */
    row->interval_rule = w->coop_daly ? "daly, cooperative" : "young, cooperative";
  row->interval_s = row->checkpoint_cost_s = row->restart_cost_s = row->downtime_s = NAN;
  row->lost_work_s = row->checkpoint_time_s = row->restart_time_s = row->downtime_total_s = NAN;
  row->wait_nodes_s = NAN; /* per job in `jobs`, and in node-hours in the machine's columns */
}

/* No checkpoint, no checkpoint I/O to order or period to choose. */
static int fl_workload_uses_key(const fl_sim *sim, const char *key)
{
  const fl_wlrun *w = sim->app_state;
  if (strcmp(key, "app.checkpoint_io") == 0 || strcmp(key, "app.checkpoint_period") == 0)
    return w->ckpt;
  return -1;
}

/* simulate's line for the point: the trace, the scheduler, the machine. */
static void fl_workload_describe(const fl_sim *sim, const fl_scenario *sc, char *buf, size_t size)
{
  const fl_wlrun *w = sim->app_state;
  char a[32], trace[64], io[32];
  const char *from = fl_scenario_text(sc, "app.trace", trace, sizeof trace);
  size_t n;
  snprintf(buf, size, "workload of %ld jobs (%s) under %s on %ld nodes, %s, %s failures, node MTBF %s", w->njobs,
           from ? from : "generated", fl_sched_name(sc), w->machine, sc->strategy, sc->model,
           fl_units_format_duration(sim->node_mtbf_s, a, sizeof a));
  n = strlen(buf);
  if (w->ckpt && n < size)
    n += (size_t)snprintf(buf + n, size - n, ", checkpoint I/O %s",
                          fl_scenario_text(sc, "app.checkpoint_io", io, sizeof io));
  if (w->fewer > 0 && n < size)
    snprintf(buf + n, size - n, ", %ld jobs with fewer copies (more nodes than the machine's / strategy.degree)",
             w->fewer);
}

/* Why a row written by an earlier faultline may differ. */
static const char *fl_workload_rerun_note(const fl_sim *sim, const char *written)
{
  const fl_wlrun *w = sim->app_state;
  if (w->aggregated && strcmp(written, "2026-11-29") < 0)
    return "expected for a workload row written before 2026-11-29: its jobs' file-level I/O now moves per cabinet "
           "and server (platform.io_flows = aggregated, or auto above 4,096 nodes); workloads used per-node flows "
           "then, as simulate --set platform.io_flows=per-rank does";
  return NULL;
}

/* The generated platform's form: per-node flows, or per cabinet (the file level only: platform.io_flows =
 * aggregated, or auto above FL_IO_PER_RANK_MAX nodes for a strategy that writes files only). */
static int fl_workload_io_form(const fl_scenario *sc, unsigned levels, long nodes)
{
  if (sc->io_flows == FL_IO_AGGREGATED)
    return FL_IO_AGGREGATED;
  if (sc->io_flows == FL_IO_AUTO && nodes > FL_IO_PER_RANK_MAX && levels == FL_LEVEL_BIT(FL_LEVEL_FILE))
    return FL_IO_AGGREGATED;
  return FL_IO_PER_RANK;
}

/* Every job checkpoints to the PFS, as SimGrid I/O shared with the others. */
const fl_sim_app fl_sim_workload = {
    .app = &fl_app_workload,
    .caps = {.name = "sim (workload)",
             .shape = FL_SHAPE_RANKS,
             .levels = FL_LEVEL_BIT(FL_LEVEL_FILE) | FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_LOCAL) |
                       FL_LEVEL_BIT(FL_LEVEL_XOR),
             .max_degree = 3,
             .task_recovery = 0,
             .why_no_replicas = NULL},
    .io_form = fl_workload_io_form,
    .flags = FL_SIM_APP_JOBS,
    .setup = fl_workload_setup,
    .destroy = fl_workload_destroy,
    .replica = fl_wlr_run_replica,
    .row = fl_workload_row,
    .uses_key = fl_workload_uses_key,
    .describe = fl_workload_describe,
    .rerun_note = fl_workload_rerun_note,
};
