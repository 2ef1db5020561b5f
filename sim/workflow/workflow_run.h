/* workflow_run.h — app.kind = workflow in the simulator: task graphs on SimGrid: HEFT maps the tasks onto the
 * platform's hosts, tasks run as SimGrid executions at their host's speed, their files move as SimGrid host-to-host
 * communications, and at each failure the strategy decides, for the tasks whose output is lost while still needed,
 * replicate (re-execute elsewhere) or substitute (another task's output stands in, at an error).
 *
 * Actors (all on the controller, which never fails; executions and transfers run on the platform's hosts):
 *   a worker per host runs its tasks in the schedule's order (HEFT start times, insertion order kept): it waits
 *   for the inputs of the first one to be at its host, runs it, and pushes its output to the hosts of its
 *   children as soon as it is done (as HEFT assumes);
 *   the injector (replica.c) turns hosts off and on and calls fl_wfr_on_failure / fl_wfr_on_repair;
 *   the coordinator waits for the last task.
 * Without failures the simulated makespan is the HEFT schedule's when transfers do not contend (the scheduler
 * prices each transfer alone: route latency + bytes / route bandwidth, SimGrid's CM02 model without TCP window
 * bound is set for workflows so that a lone transfer takes exactly that).
 *
 * A failure of host p (the decision, seed 002): the task running on p is killed; a finished task whose output lives
 * only on p is lost if a dependent still needs it (a pending dependent that has not received it). Each lost task i
 * has its dependents D_i (a sink: the workflow's output) and candidate substitutes j (the substitution relation:
 * finished, output on a live host, not lost) with weights w_ijk. The strategy decides: replication re-executes all,
 * substitution substitutes every task that has a substitute for each dependent, hybrid solves the simplified
 * knapsack (greedy, exact, mip on w_i = N_i min_j max_k w_ijk) or the full MIP (policy.kind = full-mip: z_ijk per
 * dependent, optional limit on substitutions whose j and k sit on different hosts) within what is left of the run's
 * error budget. A substituted task counts as done: each dependent reads its substitute's output instead. A
 * re-executed task, and every pending task of p, goes to the live host where it would finish first given the
 * work already queued there; with no live host it waits for a repair. Order stays deadlock-free: every host runs
 * its queue in the schedule's start-time order, a topological order of the graph.
 *
 * The app's files (this folder): setup.c (the graph loaded and scheduled by HEFT, the hosts, their memory, the
 * run's arrays), worker.c (per replica: a host's queue, staging and cache of inputs, the worker actor of a host,
 * output pushed to the children), decide.c (a failure: the lost tasks, the substitution candidates and the
 * knapsack instance the strategy decides on, re-execution placement, rebalancing at a repair), values.c (the grid
 * world's values a substituted task reports) and app.c (the coordinator and the app's ops, fl_sim_workflow). This
 * header holds their shared state and what one calls in another. */
#ifndef FL_WORKFLOW_RUN_H
#define FL_WORKFLOW_RUN_H

#include "dag.h"
#include "grid_keys.h"
#include "gridworld_keys.h"
#include "heft.h"
#include "io_async.h"
#include "sched_keys.h"
#include "sim_impl.h"
#include "units.h"
#include "workflow.h"
#include "workflow_keys.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FL_T_PENDING = 0, FL_T_RUNNING, FL_T_DONE, FL_T_SUBST };

typedef struct fl_lq { /* a host's queue: a binary min-heap of tasks by schedule priority */
  long *v;
  long n, cap;
} fl_lq;

typedef struct fl_borrow { /* edges that read a task's output as a substitute's */
  long edge, next;
} fl_borrow;

typedef struct fl_wfrun fl_wfrun; /* the app's state (sim->app_state) */
struct fl_wfrun {
  fl_wf *wf;
  const fl_dag_sched_ops *sched; /* app.scheduler (heft when not given) */
  fl_heft_schedule hs;
  long H;
  sg_host_t *host; /* H + 1: host[H] is the controller, standing for shared storage (app.outputs = shared) and
                    * for the storage the workflow's inputs are staged on (app.stage_inputs) */
  int shared;
  double *staged;  /* per task: bytes read from the controller as it starts (NULL: none, or app.stage_inputs = no) */
  fl_sgc **stagec; /* per host: the staged read under way (a reference held for the finish to cancel) */
  /* app.stage_cache: per host, the staged files (fl_wf's numbers) it read, sorted (NULL: no cache) */
  long **cached, *ncached, *capcached;
  double *speed;
  long *cores, *tcores; /* per host, per task */
  double *mem, *tmem;   /* memory per host (0: no limit) and per task (NULL: no limits) */
  double *serial;       /* app.serial_fraction per task: Amdahl's law (NULL: a task needs its cores) */
  double *flops;        /* per task */
  /* the graph and hosts as the scheduler saw them: the run prices and places tasks by the same rules (dag.h) */
  fl_heft_graph dag;
  fl_heft_hosts dh;
  /* where a task moved off a failed host goes (fl_wf_best_host): hosts of equal speed and cores form a class, each
   * with a tournament tree over its hosts' keys (work queued, INFINITY when down), so that the choice costs
   * O(classes x log hosts) instead of a pass over every host; nclass = 0: too many classes, the pass */
  long nclass, *cls_of, *cls_pos, *cls_start, *cls_size, *cls_host, *tree_arg;
  double *tree_key;
  long *prio; /* per task: position in the schedule's start-time order */
  double budget;
  /* comm-time cache for the scheduler */
  long *cache_key;
  double *cache_lat, *cache_bw;
  /* per replica */
  fl_replica *rep;
  unsigned char *state;
  long *where, *out_host;
  long *esrc, *edge_at, *ecomm_dst;
  unsigned char *eclaim;  /* per edge: a transfer to ecomm_dst is being started (fl_wf_send_edge) */
  long *efrom;            /* per edge: the host its transfer under way left from (the timeline's) */
  unsigned char *twinned; /* per edge: another edge carries the same files from the same task (fl_wf.edge_data) */
  fl_sgc **ecomm;
  fl_sgc **dropped; /* transfers given up on: SimGrid may still touch them until the replica ends */
  long ndropped, capdropped;
  long *borrow_head;
  fl_borrow *borrow;
  long nborrow, capborrow;
  unsigned char *up;
  long *running;
  fl_lq *q;
  double *queued_s;
  long **outs, *nouts, *capouts;
  sg_sem_t *sem;
  sg_actor_t *worker;
  long *orphan, norphan;
  long ndone;
  int finished;
  double spent;
  /* decision scratch */
  long *lost, *ndep, *stamp, stampv;
  unsigned char *subst;
  double *weight;
  long *t_i, *t_j, *t_k, *t_edge, *t_by;
  double *t_w;
  unsigned char *t_cross;
  long ncapterms;
  /* the grid world as a graph (app.graph = gridworld): its model, each task's value, the failure-free run's final
   * values, and for a substituted last-sweep task the task whose value it reports */
  fl_gw *gw;
  double *val, *ref;
  long *sink_sub;
  int empirical;
  /* per task, for a substituted one: the task standing in for it (the first dependent's) and that term's weight */
  long *sub_of;
  double *sub_wt;
};

/* ---- between the files ---- */

/* setup.c: the app's state, made once per scenario and freed with it; the task classes of the substitution rule */
fl_err fl_wfr_create(fl_sim *sim, const fl_scenario *sc, fl_wfrun **out);
void fl_wfr_destroy(fl_wfrun **pw);

/* worker.c: the clock, transfers and staging, a worker's wake-up, task placement and the run's bookkeeping */
double fl_wf_now(const fl_replica *rep);
double fl_wf_comm(void *ctx, long a, long b, double bytes);
double fl_wf_stage(void *ctx, long p, double bytes);
void fl_wf_wake(fl_wfrun *w, long p);
double fl_wf_compute(const fl_wfrun *w, long t, long p);
int fl_wf_fits(const fl_wfrun *w, long t, long p);
fl_err fl_wf_assign(fl_wfrun *w, long t, long p);
void fl_wf_touch(fl_wfrun *w, long p);
fl_err fl_wf_classes(fl_wfrun *w);
long fl_wf_best_host(const fl_wfrun *w, long t);
fl_err fl_wf_borrow(fl_wfrun *w, long j, long e);
void fl_wf_drop_comm(fl_wfrun *w, long e);
int fl_wf_at(const fl_wfrun *w, long e, long p);
void fl_wf_free_dropped(fl_wfrun *w);
fl_err fl_wfr_reset(fl_replica *rep);
void fl_wf_count_done(fl_wfrun *w);

/* values.c: the grid world's values (app.graph = gridworld) */
void fl_wf_gw_value(fl_wfrun *w, long t);
double fl_wf_gw_empirical(const fl_wfrun *w, long i, long j);

/* decide.c: at a failure and at a repair (the injector's, replica.c) */
void fl_wfr_on_failure(fl_replica *rep, long p, double t, int at_start);
void fl_wfr_on_repair(fl_replica *rep, long p, double t);

#endif
