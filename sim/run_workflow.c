/* run_workflow.c — task graphs on SimGrid: HEFT maps the tasks onto the platform's hosts, tasks run as SimGrid
 * executions at their host's speed, their files move as SimGrid host-to-host communications, and at each failure
 * the strategy decides, for the tasks whose output is lost while still needed, replicate (re-execute elsewhere) or
 * substitute (another task's output stands in, at an error).
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
 * its queue in the schedule's start-time order, a topological order of the graph. */
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

static void fl_wf_free_dropped(fl_wfrun *w);
static fl_err fl_wf_classes(fl_wfrun *w);

/* A host's memory (0: no limit): its <prop id="memory"> (a size: 64GiB, 512e9), else platform.node_memory. */
static fl_err fl_wf_host_memory(const fl_scenario *sc, sg_host_t h, double *mem)
{
  const char *v = sg_host_get_property_value(h, "memory");
  *mem = sc->node_memory;
  if (v && (fl_units_bytes(v, mem) != FL_OK || !(*mem >= 0)))
    return fl_err_set(FL_ERR_INPUT, "platform: host '%s': <prop id=\"memory\" value=\"%s\">: not a size (64GiB, 512e9)",
                      sg_host_get_name(h), v);
  return FL_OK;
}

/* app.serial_fraction: F for every task, or by stage STAGE:F,...,*:F (a task of no listed stage and no *: 0). */
static fl_err fl_wf_serial_fractions(fl_wfrun *w, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  const char *spec = fl_workflow_options(sc)->serial_fraction;
  char *copy = NULL, *save = NULL;
  long n = w->wf->ntasks;
  double other = 0.0;
  if (!spec || !*spec)
    return FL_OK;
  FL_ALLOC(w->serial, n);
  for (long i = 0; i < n; i++)
    w->serial[i] = NAN;
  FL_CHECK((copy = strdup(spec)) != NULL, FL_ERR_NOMEM, "out of memory");
  for (char *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(term, ':'), *name = term, *num = term, *end = NULL;
    double f;
    while (*name == ' ')
      name++;
    if (colon) {
      *colon = '\0';
      num = colon + 1;
    }
    f = strtod(num, &end);
    if (end == num || *end != '\0' || !(f >= 0 && f <= 1) || (colon && !*name)) {
      rc = fl_scenario_fail(sc, "app", "serial_fraction",
                            "term '%s%s%s': expected F in [0, 1], or STAGE:F,...,*:F (e.g. 0.05, or mAdd:0.3,*:0.05)",
                            colon ? name : "", colon ? ":" : "", num);
      goto done;
    }
    if (!colon || strcmp(name, "*") == 0)
      other = f;
    else
      for (long i = 0; i < n; i++)
        if (strcmp(name, w->wf->task[i].stage) == 0)
          w->serial[i] = f;
  }
  for (long i = 0; i < n; i++)
    if (isnan(w->serial[i]))
      w->serial[i] = other;
done:
  free(copy);
  return rc;
}
static void fl_wf_touch(fl_wfrun *w, long p);

/* ---- small helpers ---- */

static int fl_lq_less(const fl_wfrun *w, long a, long b)
{
  return w->prio[a] < w->prio[b];
}

static fl_err fl_lq_push(fl_wfrun *w, fl_lq *q, long t)
{
  fl_err rc = FL_OK;
  long i;
  FL_TRY(fl_grow((void **)&q->v, &q->cap, q->n + 1, sizeof *q->v));
  i = q->n++;
  q->v[i] = t;
  while (i > 0 && fl_lq_less(w, q->v[i], q->v[(i - 1) / 2])) {
    long p = (i - 1) / 2, x = q->v[i];
    q->v[i] = q->v[p];
    q->v[p] = x;
    i = p;
  }
done:
  return rc;
}

static void fl_lq_pop(fl_wfrun *w, fl_lq *q)
{
  long i = 0;
  q->v[0] = q->v[--q->n];
  for (;;) {
    long l = 2 * i + 1, r = l + 1, m = i, x;
    if (l < q->n && fl_lq_less(w, q->v[l], q->v[m]))
      m = l;
    if (r < q->n && fl_lq_less(w, q->v[r], q->v[m]))
      m = r;
    if (m == i)
      return;
    x = q->v[i];
    q->v[i] = q->v[m];
    q->v[m] = x;
    i = m;
  }
}

/* The first valid task of host p's queue (entries of tasks moved away or already started are dropped). */
static long fl_lq_peek(fl_wfrun *w, long p)
{
  fl_lq *q = &w->q[p];
  while (q->n > 0) {
    long t = q->v[0];
    if (w->where[t] == p && w->state[t] == FL_T_PENDING)
      return t;
    fl_lq_pop(w, q);
  }
  return -1;
}

static double fl_wf_now(const fl_replica *rep)
{
  return simgrid_get_clock() - rep->t0;
}

/* The scheduler's price of a transfer: route latency + bytes / route bandwidth (cached per host pair). */
static double fl_wf_comm(void *ctx, long a, long b, double bytes)
{
  fl_wfrun *w = ctx;
  long key = a * w->H + b, slot = (long)((unsigned long)(key * 2654435761UL) % 65536UL);
  if (w->cache_key[slot] != key + 1) {
    w->cache_key[slot] = key + 1;
    w->cache_lat[slot] = sg_host_get_route_latency(w->host[a], w->host[b]);
    w->cache_bw[slot] = sg_host_get_route_bandwidth(w->host[a], w->host[b]);
  }
  return w->cache_lat[slot] + (w->cache_bw[slot] > 0 ? bytes / w->cache_bw[slot] : INFINITY);
}

/* The scheduler's price of reading staged inputs: from the controller (host H) to p. */
static double fl_wf_stage(void *ctx, long p, double bytes)
{
  fl_wfrun *w = ctx;
  return fl_wf_comm(ctx, w->H, p, bytes);
}

/* ---- set-up ---- */

static const double *fl_sort_start;
static const long *fl_sort_pos;
static int fl_cmp_start(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  if (fl_sort_start[x] != fl_sort_start[y])
    return fl_sort_start[x] < fl_sort_start[y] ? -1 : 1;
  return (fl_sort_pos[x] > fl_sort_pos[y]) - (fl_sort_pos[x] < fl_sort_pos[y]);
}

static void fl_wfr_destroy(fl_wfrun **pw);

/* The task graph: the grid world's sweeps (app.graph = gridworld, with its failure-free reference run), or the
 * file's tasks with their runtimes; the substitutes (a file, or the stage rule, said when it leaves most tasks
 * none). *path: what the messages name it by. */
static fl_err fl_wfr_graph(fl_wfrun *w, fl_sim *sim, const fl_scenario *sc, char **path)
{
  fl_err rc = FL_OK;
  char *subs = NULL;
  const fl_workflow_opts *wo = fl_workflow_options(sc);
  if (fl_workflow_graph_generated(sc)) {
    long it = 0;
    const fl_gridworld_opts *go = fl_gridworld_options(sc);
    FL_TRY(fl_gw_create(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, go->discount, go->move_prob, sc->seed,
                        &w->gw));
    FL_TRY(fl_wf_gridworld(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, fl_grid_options(sc)->iterations,
                           go->task_time_s * wo->reference_speed, fl_gw_bound(w->gw), &w->wf));
    FL_ALLOC(w->val, w->wf->ntasks);
    FL_ALLOC(w->ref, w->gw->n);
    FL_ALLOC(w->sink_sub, w->wf->ntasks);
    /* the failure-free run of the same sweeps (tolerance 0: all of them) */
    FL_CHECK(fl_gw_solve(w->gw, 0.0, fl_grid_options(sc)->iterations, w->ref, &it) >= 0, FL_ERR_NOMEM, "out of memory");
    w->empirical = fl_strat_weights_empirical(&sim->strat);
    FL_CHECK((*path = strdup("gridworld")) != NULL, FL_ERR_NOMEM, "out of memory");
  } else {
    *path = fl_scenario_resolve(sc, wo->graph);
    FL_CHECK(*path != NULL, FL_ERR_NOMEM, "out of memory");
    if (wo->task_runtime && fl_wf_runtime_check(wo->task_runtime) != FL_OK) {
      char msg[400];
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
      rc = fl_scenario_fail(sc, "app", "task_runtime", "%s", msg);
      goto done;
    }
    FL_TRY(fl_wf_load_runtimes(*path, wo->reference_speed, wo->task_runtime, &w->wf));
  }
  if (wo->substitutes) {
    subs = fl_scenario_resolve(sc, wo->substitutes);
    FL_CHECK(subs != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_wf_subs_file(w->wf, subs));
  } else if (wo->substitute_rule == 0 && !w->gw) {
    FL_TRY(fl_wf_subs_rule(w->wf, wo->substitute_max_diff, 2));
    if (sim->strat.ops->decide_tasks) { /* a strategy that may substitute (substitution, hybrid) */
      /* a rule that gives most tasks no substitute turns substitution into re-execution: said, not silent */
      long alone = 0, N = w->wf->ntasks;
      for (long i = 0; i < N; i++)
        alone += w->wf->sub_start[i + 1] == w->wf->sub_start[i];
      if (2 * alone > N)
        snprintf(sim->advice, sizeof sim->advice,
                 "%s: app.substitute_rule = stage gives %ld of %ld tasks no substitute (none of their stage, their "
                 "category or the start of their name, has input sizes within app.substitute_max_diff): %s "
                 "re-executes those; app.substitutes names substitutes explicitly",
                 wo->graph, alone, N, sim->strat.ops->name);
    }
  }
done:
  free(subs);
  return rc;
}

/* The hosts: speed, cores and memory each, every task placeable somewhere (cores, memory), storage reachable from
 * the controller when the outputs are shared or the inputs staged, routes between any two nodes. */
static fl_err fl_wfr_hosts(fl_wfrun *w, fl_sim *sim, const fl_scenario *sc, const char *path)
{
  fl_err rc = FL_OK;
  const fl_workflow_opts *wo = fl_workflow_options(sc);
  long n = w->wf->ntasks;
  long most = 0;
  double most_mem = 0.0; /* the largest memory a host has; INFINITY: some host has no limit */
  for (long p = 0; p < w->H; p++) {
    w->host[p] = fl_platform_host(sim->pf, p);
    w->speed[p] = sg_host_get_speed(w->host[p]);
    w->cores[p] = sg_host_core_count(w->host[p]);
    most = w->cores[p] > most ? w->cores[p] : most;
    FL_TRY(fl_wf_host_memory(sc, w->host[p], &w->mem[p]));
    most_mem = w->mem[p] > 0 ? fmax(most_mem, w->mem[p]) : INFINITY;
  }
  w->host[w->H] = fl_platform_controller(sim->pf);
  FL_TRY(fl_wf_classes(w));
  FL_TRY(fl_wf_serial_fractions(w, sc));
  for (long i = 0; i < n; i++)
    if (w->wf->task[i].memory > 0 && !w->tmem) {
      FL_ALLOC(w->tmem, n);
      for (long k = 0; k < n; k++)
        w->tmem[k] = w->wf->task[k].memory;
    }
  for (long i = 0; w->tmem && i < n; i++)
    if (w->tmem[i] > most_mem) {
      rc = fl_err_set(FL_ERR_INPUT,
                      "%s: task '%s' needs %.6g bytes of memory but no host of platform '%s' has more than %.6g "
                      "(platform.node_memory, or a host's <prop id=\"memory\">): no host can run it",
                      path, w->wf->task[i].name, w->tmem[i], fl_platform_describe(sim->pf), most_mem);
      goto done;
    }
  w->shared = wo->outputs_shared;
  if (wo->stage_inputs)
    for (long i = 0; i < n && !w->staged; i++)
      if (w->wf->task[i].staged_bytes > 0) {
        FL_ALLOC(w->staged, n);
        for (long k = 0; k < n; k++)
          w->staged[k] = w->wf->task[k].staged_bytes;
      }
  for (int why = 0; why < 2; why++) { /* the controller stands for storage: it must reach the nodes */
    const char *key = why ? "stage_inputs" : "outputs";
    const char *what = why ? "the workflow's inputs are staged on" : "shared storage is read from";
    if (!(why ? w->staged != NULL : w->shared))
      continue;
    if (strcmp(fl_sg_zone_name(w->host[w->H]), fl_sg_zone_name(w->host[0])) != 0) {
      rc = fl_scenario_fail(sc, "app", key,
                            "%s the controller host %s, which must be in the zone of the nodes (%s "
                            "is in zone '%s', %s in zone '%s') in platform '%s'%s",
                            what, sg_host_get_name(w->host[w->H]), sg_host_get_name(w->host[w->H]),
                            fl_sg_zone_name(w->host[w->H]), sg_host_get_name(w->host[0]), fl_sg_zone_name(w->host[0]),
                            fl_platform_describe(sim->pf),
                            why ? "" : " (app.outputs = local keeps outputs on their hosts only)");
      goto done;
    }
    if (!(sg_host_get_route_bandwidth(w->host[w->H], w->host[0]) > 0)) {
      rc = fl_scenario_fail(sc, "app", key, "%s the controller host %s, but platform '%s' has no route from it to %s%s",
                            what, sg_host_get_name(w->host[w->H]), fl_platform_describe(sim->pf),
                            sg_host_get_name(w->host[0]),
                            why ? "" : " (app.outputs = local keeps outputs on their hosts only)");
      goto done;
    }
  }
  /* tasks move their outputs between any two nodes, and HEFT prices those routes */
  FL_TRY(fl_platform_check_routes(sim->pf, sc, w->host, w->H,
                                  "the tasks of a workflow move data between any two "
                                  "nodes"));
  for (long i = 0; i < n; i++) {
    w->tcores[i] = w->wf->task[i].cores;
    if (w->tcores[i] > most && !w->serial) {
      rc = fl_err_set(FL_ERR_INPUT,
                      "%s: task '%s' needs %ld cores but no host of platform '%s' has more than %ld: no "
                      "host can run it",
                      path, w->wf->task[i].name, w->tcores[i], fl_platform_describe(sim->pf), most);
      goto done;
    }
  }
done:
  return rc;
}

/* The static schedule (HEFT, or app.scheduler's) on the platform, with the mean latency and bandwidth over a sample
 * of host pairs, and the order each host runs its tasks in: the schedule's start times (a topological order). */
static fl_err fl_wfr_schedule(fl_wfrun *w)
{
  fl_err rc = FL_OK;
  long n = w->wf->ntasks, E = w->wf->nedges, *tmp = NULL, *pos = NULL;
  /* HEFT on the platform: mean latency and bandwidth over a sample of host pairs */
  double lat[256], bws[256];
  long pairs = 0;
  fl_heft_graph *g = &w->dag;
  fl_heft_hosts *h = &w->dh;
  *g = (fl_heft_graph){.ntasks = n,
                       .nedges = E,
                       .edge_src = w->wf->edge_src,
                       .edge_dst = w->wf->edge_dst,
                       .edge_bytes = w->wf->edge_bytes,
                       .child_start = w->wf->child_start,
                       .parent_start = w->wf->parent_start,
                       .parent_edge = w->wf->parent_edge,
                       .topo = w->wf->topo,
                       .cores = w->tcores,
                       .staged_bytes = w->staged,
                       .memory = w->tmem,
                       .serial = w->serial};
  *h = (fl_heft_hosts){.nhosts = w->H,
                       .speed = w->speed,
                       .cores = w->cores,
                       .memory = w->mem,
                       .comm = fl_wf_comm,
                       .stage = fl_wf_stage,
                       .ctx = w,
                       .candidates = 16};
  for (long k = 0; k < 256 && w->H > 1; k++) {
    long a = (k * 7919L) % w->H, b = (k * 104729L + 1) % w->H;
    double bw;
    if (a == b)
      continue;
    bw = sg_host_get_route_bandwidth(w->host[a], w->host[b]);
    FL_CHECK(bw > 0, FL_ERR_INPUT, "platform: no route between hosts %s and %s: a workflow moves files between hosts",
             sg_host_get_name(w->host[a]), sg_host_get_name(w->host[b]));
    lat[pairs] = sg_host_get_route_latency(w->host[a], w->host[b]);
    bws[pairs++] = bw;
  }
  h->mean_latency = pairs ? fl_heft_mean(lat, pairs) : 0.0;
  h->mean_bandwidth = pairs ? fl_heft_harmonic_mean(bws, pairs) : INFINITY;
  FL_ALLOC(w->flops, n);
  for (long i = 0; i < n; i++)
    w->flops[i] = w->wf->task[i].flops;
  g->flops = w->flops;
  FL_TRY(w->sched->schedule(g, h, &w->hs));
  /* the order each host runs its tasks in: the schedule's start times (a topological order) */
  FL_ALLOC(w->prio, n);
  FL_ALLOC(tmp, n);
  FL_ALLOC(pos, n);
  for (long i = 0; i < n; i++) {
    tmp[i] = i;
    pos[w->wf->topo[i]] = i;
  }
  fl_sort_start = w->hs.start;
  fl_sort_pos = pos;
  qsort(tmp, (size_t)n, sizeof *tmp, fl_cmp_start);
  for (long i = 0; i < n; i++)
    w->prio[tmp[i]] = i;
done:
  free(tmp);
  free(pos);
  return rc;
}

/* The per-replica state of the tasks, edges and hosts (reset by each replica). */
static fl_err fl_wfr_arrays(fl_wfrun *w, int stage_cache)
{
  fl_err rc = FL_OK;
  long n = w->wf->ntasks, E = w->wf->nedges;
  FL_ALLOC(w->state, n);
  FL_ALLOC(w->where, n);
  FL_ALLOC(w->out_host, n);
  FL_ALLOC(w->esrc, E);
  FL_ALLOC(w->edge_at, E);
  FL_ALLOC(w->ecomm_dst, E);
  FL_ALLOC(w->eclaim, E);
  FL_ALLOC(w->twinned, E);
  FL_ALLOC(w->efrom, E);
  for (long e = 0; e < E; e++)
    if (w->wf->edge_data[e] != e)
      w->twinned[e] = w->twinned[w->wf->edge_data[e]] = 1;
  FL_ALLOC(w->ecomm, E);
  FL_ALLOC(w->borrow_head, n);
  FL_ALLOC(w->up, w->H + 1);
  FL_ALLOC(w->running, w->H);
  FL_ALLOC(w->stagec, w->H);
  if (w->staged && stage_cache && w->wf->staged_start) {
    FL_ALLOC(w->cached, w->H);
    FL_ALLOC(w->ncached, w->H);
    FL_ALLOC(w->capcached, w->H);
  }
  FL_ALLOC(w->q, w->H);
  FL_ALLOC(w->queued_s, w->H);
  FL_ALLOC(w->outs, w->H);
  FL_ALLOC(w->nouts, w->H);
  FL_ALLOC(w->capouts, w->H);
  FL_ALLOC(w->sem, w->H);
  FL_ALLOC(w->worker, w->H);
  FL_ALLOC(w->orphan, n);
  FL_ALLOC(w->lost, n);
  FL_ALLOC(w->ndep, n);
  FL_ALLOC(w->stamp, n);
  FL_ALLOC(w->subst, n);
  FL_ALLOC(w->weight, n);
  FL_ALLOC(w->sub_of, n);
  FL_ALLOC(w->sub_wt, n);
done:
  return rc;
}

static fl_err fl_wfr_create(fl_sim *sim, const fl_scenario *sc, fl_wfrun **out)
{
  fl_err rc = FL_OK;
  fl_wfrun *w = NULL;
  char *path = NULL;
  const fl_workflow_opts *wo = fl_workflow_options(sc);

  *out = NULL;
  FL_ALLOC(w, 1);
  w->sched = &fl_dag_heft;
  if (fl_scenario_given(sc, "app", "scheduler") && !(w->sched = fl_dag_sched_find(fl_sched_name(sc)))) {
    char names[128];
    rc = fl_scenario_fail(sc, "app", "scheduler", "a workflow's static scheduler: %s",
                          fl_dag_sched_names(names, sizeof names));
    goto done;
  }
  FL_TRY(fl_wfr_graph(w, sim, sc, &path));
  w->H = sim->ranks;
  w->budget = ((const fl_pol_opts *)fl_scenario_options(sc, &fl_pol_keys))->error_budget;
  FL_ALLOC(w->host, w->H + 1);
  FL_ALLOC(w->speed, w->H);
  FL_ALLOC(w->cores, w->H);
  FL_ALLOC(w->tcores, w->wf->ntasks);
  FL_ALLOC(w->mem, w->H);
  FL_TRY(fl_wfr_hosts(w, sim, sc, path));
  FL_ALLOC(w->cache_key, 65536);
  FL_ALLOC(w->cache_lat, 65536);
  FL_ALLOC(w->cache_bw, 65536);
  FL_TRY(fl_wfr_schedule(w));
  FL_TRY(fl_wfr_arrays(w, wo->stage_cache));
  sim->work_s = w->hs.makespan; /* the failure-free schedule's length */
  *out = w;
  w = NULL;
done:
  free(path);
  fl_wfr_destroy(&w);
  return rc;
}

static void fl_wfr_destroy(fl_wfrun **pw)
{
  fl_wfrun *w = pw ? *pw : NULL;
  if (!w)
    return;
  for (long p = 0; w->q && p < w->H; p++)
    free(w->q[p].v);
  for (long p = 0; w->outs && p < w->H; p++)
    free(w->outs[p]);
  for (long e = 0; w->ecomm && e < w->wf->nedges; e++)
    fl_sgc_unref(w->ecomm[e]);
  fl_wf_free_dropped(w);
  free(w->dropped);
  if (w->sem)
    for (long p = 0; p < w->H; p++)
      if (w->sem[p])
        sg_sem_destroy(w->sem[p]);
  fl_heft_free(&w->hs);
  fl_wf_destroy(&w->wf);
  fl_gw_destroy(&w->gw);
  free(w->val);
  free(w->ref);
  free(w->sink_sub);
  free(w->host);
  free(w->speed);
  free(w->cores);
  free(w->mem);
  free(w->tmem);
  free(w->serial);
  free(w->flops);
  free(w->cls_of);
  free(w->cls_pos);
  free(w->cls_start);
  free(w->cls_size);
  free(w->cls_host);
  free(w->tree_key);
  free(w->tree_arg);
  free(w->tcores);
  free(w->prio);
  free(w->cache_key);
  free(w->cache_lat);
  free(w->cache_bw);
  free(w->state);
  free(w->where);
  free(w->out_host);
  free(w->esrc);
  free(w->edge_at);
  free(w->ecomm_dst);
  free(w->eclaim);
  free(w->twinned);
  free(w->efrom);
  free(w->ecomm);
  free(w->borrow_head);
  free(w->borrow);
  free(w->up);
  free(w->running);
  free(w->stagec);
  for (long p = 0; w->cached && p < w->H; p++)
    free(w->cached[p]);
  free(w->cached);
  free(w->ncached);
  free(w->capcached);
  free(w->staged);
  free(w->q);
  free(w->queued_s);
  free(w->outs);
  free(w->nouts);
  free(w->capouts);
  free(w->sem);
  free(w->worker);
  free(w->orphan);
  free(w->lost);
  free(w->ndep);
  free(w->stamp);
  free(w->subst);
  free(w->weight);
  free(w->sub_of);
  free(w->sub_wt);
  free(w->t_i);
  free(w->t_j);
  free(w->t_k);
  free(w->t_edge);
  free(w->t_by);
  free(w->t_w);
  free(w->t_cross);
  free(w);
  *pw = NULL;
}

/* ---- per replica ---- */

static void fl_wf_worker_main(int argc, char **argv);

typedef struct fl_wf_worker_arg {
  fl_wfrun *w;
  long host;
} fl_wf_worker_arg;

static void fl_wf_wake(fl_wfrun *w, long p)
{
  if (p < 0)
    return;
  if (!w->sem[p])
    w->sem[p] = sg_sem_init(0);
  if (!w->worker[p] && !w->finished) {
    char name[32];
    fl_wf_worker_arg *arg = malloc(sizeof *arg);
    if (!arg) {
      w->rep->rc = fl_err_set(FL_ERR_NOMEM, "out of memory starting a worker");
      return;
    }
    arg->w = w;
    arg->host = p;
    snprintf(name, sizeof name, "worker-%ld", p);
    w->worker[p] = sg_actor_init(name, fl_platform_controller(w->rep->sim->pf));
    sg_actor_set_data(w->worker[p], arg);
    sg_actor_start(w->worker[p], fl_wf_worker_main, 0, NULL);
    return;
  }
  if (w->worker[p])
    sg_sem_release(w->sem[p]);
}

/* Task t's computation on host p, and whether it fits p, by the schedulers' rules (dag.h): Amdahl's law on a host
 * of fewer cores than it ran on; its memory, its cores without the law. */
static double fl_wf_compute(const fl_wfrun *w, long t, long p)
{
  return fl_dag_compute_time(&w->dag, &w->dh, t, p);
}

static int fl_wf_fits(const fl_wfrun *w, long t, long p)
{
  return fl_dag_fits(&w->dag, &w->dh, t, p);
}

/* Is staged file f on host p (app.stage_cache)? Its place in the sorted list either way (*at). */
static int fl_wf_cached(const fl_wfrun *w, long p, long f, long *at)
{
  long lo = 0, hi = w->ncached[p];
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (w->cached[p][mid] < f)
      lo = mid + 1;
    else
      hi = mid;
  }
  *at = lo;
  return lo < w->ncached[p] && w->cached[p][lo] == f;
}

/* The staged bytes task t reads as it starts on host p: all of them, or with the cache those p lacks. */
static double fl_wf_stage_bytes(const fl_wfrun *w, long t, long p)
{
  const fl_wf *wf = w->wf;
  double b = 0.0;
  long at;
  if (!w->cached)
    return w->staged[t];
  for (long k = wf->staged_start[t]; k < wf->staged_start[t + 1]; k++)
    if (!fl_wf_cached(w, p, wf->staged_file[k], &at))
      b += wf->staged_size[k];
  return b;
}

/* Task t's staged files are on host p now. */
static fl_err fl_wf_cache_add(fl_wfrun *w, long t, long p)
{
  fl_err rc = FL_OK;
  const fl_wf *wf = w->wf;
  for (long k = wf->staged_start[t]; w->cached && k < wf->staged_start[t + 1]; k++) {
    long at;
    if (fl_wf_cached(w, p, wf->staged_file[k], &at))
      continue;
    FL_TRY(fl_grow((void **)&w->cached[p], &w->capcached[p], w->ncached[p] + 1, sizeof *w->cached[p]));
    memmove(w->cached[p] + at + 1, w->cached[p] + at, (size_t)(w->ncached[p] - at) * sizeof *w->cached[p]);
    w->cached[p][at] = wf->staged_file[k];
    w->ncached[p]++;
  }
done:
  return rc;
}

static fl_err fl_wf_assign(fl_wfrun *w, long t, long p)
{
  fl_err rc = FL_OK;
  w->where[t] = p;
  if (p < 0) {
    w->orphan[w->norphan++] = t;
    goto done;
  }
  FL_TRY(fl_lq_push(w, &w->q[p], t));
  w->queued_s[p] += fl_wf_compute(w, t, p);
  fl_wf_touch(w, p);
  fl_wf_wake(w, p);
done:
  return rc;
}

static double fl_wf_key(const fl_wfrun *w, long p)
{
  return w->up[p] ? w->queued_s[p] + (w->running[p] >= 0 ? 1e-9 : 0.0) : INFINITY;
}

/* Host p's key changed (work queued, running, up): its class's tree learns it. Ties go to the lower host. */
static void fl_wf_touch(fl_wfrun *w, long p)
{
  long c, m, base, i;
  if (w->nclass == 0 || p >= w->H)
    return;
  c = w->cls_of[p];
  m = w->cls_size[c];
  base = 2 * w->cls_start[c];
  i = m + w->cls_pos[p];
  w->tree_key[base + i] = fl_wf_key(w, p);
  w->tree_arg[base + i] = p;
  for (i /= 2; i >= 1; i /= 2) {
    long l = base + 2 * i, r = l + 1;
    int right =
        w->tree_key[r] < w->tree_key[l] || (w->tree_key[r] == w->tree_key[l] && w->tree_arg[r] < w->tree_arg[l]);
    w->tree_key[base + i] = w->tree_key[right ? r : l];
    w->tree_arg[base + i] = w->tree_arg[right ? r : l];
  }
}

/* Host classes (equal speed, cores and memory) in host order, trees sized 2 x the class's hosts rounded up to a power
 * of two; above 64 classes, none (the pass over the hosts). */
static fl_err fl_wf_classes(fl_wfrun *w)
{
  fl_err rc = FL_OK;
  long nc = 0, total = 0;
  FL_ALLOC(w->cls_of, w->H);
  FL_ALLOC(w->cls_pos, w->H);
  FL_ALLOC(w->cls_start, 65);
  FL_ALLOC(w->cls_size, 65);
  FL_ALLOC(w->cls_host, 65);
  for (long p = 0; p < w->H; p++) {
    long c = 0;
    while (c < nc && !(w->speed[w->cls_host[c]] == w->speed[p] && w->cores[w->cls_host[c]] == w->cores[p] &&
                       w->mem[w->cls_host[c]] == w->mem[p]))
      c++;
    if (c == nc) {
      if (nc == 64) {
        nc = 65;
        break;
      }
      w->cls_host[nc] = p; /* a representative */
      w->cls_size[nc++] = 0;
    }
    w->cls_of[p] = c;
    w->cls_pos[p] = w->cls_size[c]++;
  }
  if (nc > 64) {
    w->nclass = 0;
    goto done;
  }
  for (long c = 0; c < nc; c++) {
    long m = 1;
    while (m < w->cls_size[c])
      m *= 2;
    w->cls_size[c] = m; /* leaves; a host's leaf is m + its position */
    w->cls_start[c] = total;
    total += m; /* its tree takes 2m slots from 2 x cls_start */
  }
  FL_ALLOC(w->tree_key, 2 * total);
  FL_ALLOC(w->tree_arg, 2 * total);
  for (long i = 0; i < 2 * total; i++) {
    w->tree_key[i] = INFINITY;
    w->tree_arg[i] = LONG_MAX;
  }
  w->nclass = nc;
done:
  return rc;
}

/* The live host where task t would finish first after the work queued there; -1 if none is up. */
static long fl_wf_best_host(const fl_wfrun *w, long t)
{
  long best = -1;
  double bf = INFINITY;
  for (long c = 0; c < w->nclass; c++) {
    long r = w->cls_host[c], base = 2 * w->cls_start[c], p = w->tree_arg[base + 1];
    double f;
    if (!fl_wf_fits(w, t, r) || !isfinite(w->tree_key[base + 1]))
      continue;
    f = w->tree_key[base + 1] + fl_wf_compute(w, t, r);
    if (f < bf || (f == bf && p < best)) {
      bf = f;
      best = p;
    }
  }
  if (w->nclass > 0)
    return best;
  for (long p = 0; p < w->H; p++) {
    double f;
    if (!w->up[p] || !fl_wf_fits(w, t, p))
      continue;
    f = fl_wf_key(w, p) + fl_wf_compute(w, t, p);
    if (f < bf) {
      bf = f;
      best = p;
    }
  }
  return best;
}

static fl_err fl_wf_add_out(fl_wfrun *w, long p, long t)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&w->outs[p], &w->capouts[p], w->nouts[p] + 1, sizeof *w->outs[p]));
  w->outs[p][w->nouts[p]++] = t;
done:
  return rc;
}

static fl_err fl_wf_borrow(fl_wfrun *w, long j, long e)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&w->borrow, &w->capborrow, w->nborrow + 1, sizeof *w->borrow));
  w->borrow[w->nborrow] = (fl_borrow){.edge = e, .next = w->borrow_head[j]};
  w->borrow_head[j] = w->nborrow++;
done:
  return rc;
}

/* Cancel a transfer and keep it until the replica ends (a waiter may still hold it). */
static void fl_wf_drop(fl_wfrun *w, fl_sgc *c)
{
  fl_sgc_cancel(c);
  if (fl_grow((void **)&w->dropped, &w->capdropped, w->ndropped + 1, sizeof *w->dropped) == FL_OK)
    w->dropped[w->ndropped++] = c;
  else
    w->rep->rc = FL_ERR_NOMEM; /* keep it: a leak, not a crash */
}

static void fl_wf_drop_comm(fl_wfrun *w, long e)
{
  w->eclaim[e] = 0; /* one being started is dropped when its start returns */
  if (w->ecomm[e]) {
    fl_sgc *c = w->ecomm[e];
    w->ecomm[e] = NULL;
    fl_wf_drop(w, c);
  }
}

/* An edge's transfer to host `to`, or one on its way there (being started counts). */
static int fl_wf_edge_to(const fl_wfrun *w, long e, long to)
{
  return (w->ecomm[e] || w->eclaim[e]) && w->ecomm_dst[e] == to;
}

/* A twin of edge e (the same files from the same task) whose copy is at host p (on_way = 0) or on its way there
 * (on_way = 1): its number, or -1. A file two tasks on one host read crosses the link once, and is then read from
 * that host. Twins share a copy only while both still read their own producer (a substitution re-points one). */
static long fl_wf_twin(const fl_wfrun *w, long e, long p, int on_way)
{
  const fl_wf *wf = w->wf;
  long s = wf->edge_src[e], d = wf->edge_data[e];
  if (!w->twinned[e] || w->esrc[e] != s)
    return -1;
  for (long x = wf->child_start[s]; x < wf->child_start[s + 1]; x++)
    if (x != e && wf->edge_data[x] == d && w->esrc[x] == s && (on_way ? fl_wf_edge_to(w, x, p) : w->edge_at[x] == p))
      return x;
  return -1;
}

/* Is edge e's data at host p (its own copy, or a twin's)? */
static int fl_wf_at(const fl_wfrun *w, long e, long p)
{
  return w->edge_at[e] == p || (p >= 0 && fl_wf_twin(w, e, p, 0) >= 0);
}

/* Start edge e's transfer from host `from` to host `to`: one owner per edge. Starting a SimGrid communication
 * yields to the other actors, so the edge is claimed first: a worker that pulls the same edge meanwhile finds it
 * on its way instead of starting a second transfer (the later one overwrote the earlier, which kept its share of
 * the network and was never released). A transfer dropped or redirected while it started is cancelled. The
 * destination's worker is woken once the transfer is recorded. */
static void fl_wf_send_edge(fl_wfrun *w, long e, long from, long to)
{
  fl_sgc *c;
  fl_wf_drop_comm(w, e);
  w->ecomm_dst[e] = to;
  w->efrom[e] = from;
  w->eclaim[e] = 1;
  c = fl_sgc_send(w->host[from], w->host[to], w->wf->edge_bytes[e]);
  if (w->eclaim[e] && w->ecomm_dst[e] == to && !w->ecomm[e]) {
    w->eclaim[e] = 0;
    w->ecomm[e] = c;
  } else {
    fl_wf_drop(w, c);
  }
  fl_wf_wake(w, to);
}

/* A transfer of edge e delivered at host p, for the timeline: from the producer's host, when it really ran. */
static void fl_wf_log_transfer(fl_wfrun *w, long e, const fl_sgc *c, long p)
{
  double t0, t1;
  fl_evlog_entry *ev;
  if (!w->rep->log || !w->rep->log->phases) /* run.events = phases: the timeline's detail */
    return;
  fl_sgc_times(c, &t0, &t1);
  if ((ev = fl_evlog_add(w->rep->log, t1 - w->rep->t0, FL_EV_WF_TRANSFER, w->efrom[e]))) {
    ev->peer = (int32_t)p;
    ev->n = (int64_t)w->wf->edge_bytes[e];
    ev->value = t1 - t0;
    ev->label = w->wf->task[w->esrc[e]].name;
  }
}

static void fl_wf_free_dropped(fl_wfrun *w)
{
  for (long k = 0; k < w->ndropped; k++)
    fl_sgc_unref(w->dropped[k]);
  w->ndropped = 0;
}

static fl_err fl_wfr_reset(fl_replica *rep)
{
  fl_err rc = FL_OK;
  fl_wfrun *w = rep->sim->app_state;
  const fl_wf *wf = w->wf;
  w->rep = rep;
  fl_wf_free_dropped(w); /* the previous replica's engine has ended */
  w->finished = 0;
  w->ndone = 0;
  w->spent = 0.0;
  w->norphan = 0;
  w->nborrow = 0;
  w->up[w->H] = 1; /* the storage never fails */
  for (long p = 0; p < w->H; p++) {
    w->up[p] = 1;
    w->running[p] = -1;
    w->q[p].n = 0;
    w->queued_s[p] = 0.0;
    w->nouts[p] = 0;
    w->worker[p] = NULL;
    fl_sgc_unref(w->stagec[p]);
    w->stagec[p] = NULL;
    if (w->cached)
      w->ncached[p] = 0;
  }
  for (long e = 0; e < wf->nedges; e++) {
    w->esrc[e] = wf->edge_src[e];
    w->edge_at[e] = -1;
    w->ecomm_dst[e] = -1;
    w->eclaim[e] = 0;
    fl_sgc_unref(w->ecomm[e]);
    w->ecomm[e] = NULL;
  }
  for (long t = 0; t < wf->ntasks; t++) {
    w->state[t] = FL_T_PENDING;
    w->out_host[t] = -1;
    w->borrow_head[t] = -1;
    w->sub_of[t] = -1;
    w->where[t] = w->hs.host[t];
    FL_TRY(fl_lq_push(w, &w->q[w->where[t]], t));
    w->queued_s[w->where[t]] += fl_wf_compute(w, t, w->where[t]);
  }
  for (long p = 0; p < w->H; p++)
    fl_wf_touch(w, p);
done:
  return rc;
}

/* Count a task done; the last one ends the run. */
static void fl_wf_count_done(fl_wfrun *w)
{
  fl_replica *rep = w->rep;
  if (++w->ndone < w->wf->ntasks)
    return;
  w->finished = 1;
  rep->now = fl_wf_now(rep);
  rep->res->makespan_s = rep->now;
  rep->res->status = "completed";
  for (long p = 0; p < w->H; p++)
    if (w->worker[p])
      sg_sem_release(w->sem[p]);
  if (!rep->interrupt_pending) {
    rep->interrupt_pending = 1;
    rep->wake_t = rep->now;
    sg_sem_release(rep->sem);
  }
}

/* Energy of an execution of `dur` seconds on host p (killed ones up to the failure): one task on one of its cores,
 * a load of 1 / cores, which SimGrid's host energy model charges Epsilon + load x (AllCores - Epsilon) instead of
 * Idle (the idle power of every node over the run is accounted in replica.c, fl_rep_energy_to). */
static void fl_wf_exec_energy(fl_wfrun *w, long p, double dur)
{
  const fl_power *pw = fl_sim_power(w->rep->sim, p);
  double load = w->cores[p] > 1 ? 1.0 / w->cores[p] : 1.0;
  w->rep->energy_j += (pw->epsilon + load * (pw->busy - pw->epsilon) - pw->idle) * dur;
}

/* Is the output of task s (source of edge e) needed at host p and not there yet? */
static int fl_wf_missing(const fl_wfrun *w, long e, long p)
{
  long s = w->esrc[e];
  return w->wf->edge_bytes[e] > 0 && w->out_host[s] != p && !fl_wf_at(w, e, p);
}

/* ---- the grid world's values ---- */

/* Task t = (sweep, state s) computes V(s) from the values its input edges deliver: an edge's original source says
 * which neighbour it stands for, its current source (a substitute's, after a substitution) says whose value. The
 * first sweep reads V_0 = r. */
static void fl_wf_gw_value(fl_wfrun *w, long t)
{
  const fl_wf *wf = w->wf;
  const fl_gw *gw = w->gw;
  const long S = gw->n, cols = gw->cols, s = t % S;
  double v[5] = {0};
  unsigned char have[5] = {1, 0, 0, 0, 0};
  if (t < S) {
    long r = s / cols, c = s % cols,
         nb[5] = {s, r > 0 ? s - cols : -1, r + 1 < gw->rows ? s + cols : -1, c > 0 ? s - 1 : -1,
                  c + 1 < cols ? s + 1 : -1};
    for (int d = 0; d < 5; d++)
      if (nb[d] >= 0) {
        v[d] = gw->reward[nb[d]];
        have[d] = 1;
      }
  } else {
    for (long k = wf->parent_start[t]; k < wf->parent_start[t + 1]; k++) {
      long e = wf->parent_edge[k], o = wf->edge_src[e] % S;
      int d = o == s ? 0 : o == s - cols ? 1 : o == s + cols ? 2 : o == s - 1 ? 3 : 4;
      v[d] = w->val[w->esrc[e]];
      have[d] = 1;
    }
  }
  w->val[t] = fl_gw_update(gw, s, v, have);
}

/* Empirical weight of j standing in for task i (run_tasks' rule): |V(j) - the last value i's state computed itself|
 * (an earlier sweep's when i's own were substituted; V_0 = r before any). */
static double fl_wf_gw_empirical(const fl_wfrun *w, long i, long j)
{
  const long S = w->gw->n;
  for (long t = i - S; t >= 0; t -= S)
    if (w->state[t] == FL_T_DONE)
      return fabs(w->val[j] - w->val[t]);
  return fabs(w->val[j] - w->gw->reward[i % S]);
}

/* Has the producer of edge e done its part? A control dependency (no bytes) needs it finished or substituted; a
 * file needs it finished with its output somewhere. */
static int fl_wf_input_done(const fl_wfrun *w, long e)
{
  long s = w->esrc[e];
  if (w->wf->edge_bytes[e] <= 0)
    return w->state[s] == FL_T_DONE || w->state[s] == FL_T_SUBST;
  return w->state[s] == FL_T_DONE && w->out_host[s] >= 0;
}

/* ---- the worker of a host ---- */

/* Up for the handler and on for SimGrid: between the injector turning a host off and the failure handler running
 * (the same date), a worker may see it off yet marked up. */
static int fl_wf_live(const fl_wfrun *w, long p)
{
  return w->up[p] && sg_host_is_on(w->host[p]);
}

/* Task t's inputs on host p: 1 when every producer is done and every transfer to p is started (or a twin's copy is
 * on its way); 0 when it must wait (a producer running, or the failure handler deciding about one). */
static int fl_wf_inputs_start(fl_wfrun *w, long t, long p)
{
  const fl_wf *wf = w->wf;
  int ready = 1;
  for (long k = wf->parent_start[t]; k < wf->parent_start[t + 1] && ready; k++) {
    long e = wf->parent_edge[k], s = w->esrc[e];
    if (!fl_wf_input_done(w, e)) {
      ready = 0;
      break;
    }
    if (!fl_wf_missing(w, e, p))
      continue;
    if (fl_wf_edge_to(w, e, p) || fl_wf_twin(w, e, p, 1) >= 0)
      continue; /* on its way (or a twin's copy is) */
    if (!fl_wf_live(w, w->out_host[s])) {
      ready = 0; /* the failure handler is deciding about s (or is about to) */
      break;
    }
    fl_wf_send_edge(w, e, w->out_host[s], p);
  }
  return ready;
}

/* Wait for the transfers to p of task t's inputs (a twin's copy in place of its own): *failed when one was cut,
 * *claimed when another actor is starting one (woken when it is recorded). */
static void fl_wf_inputs_wait(fl_wfrun *w, long t, long p, int *failed, int *claimed)
{
  const fl_wf *wf = w->wf;
  for (long k = wf->parent_start[t]; k < wf->parent_start[t + 1]; k++) {
    long e = wf->parent_edge[k];
    fl_sgc *c;
    if (!fl_wf_edge_to(w, e, p) && fl_wf_twin(w, e, p, 1) >= 0)
      e = fl_wf_twin(w, e, p, 1); /* the copy a twin brings */
    c = w->ecomm[e];
    if (!c && w->eclaim[e] && w->ecomm_dst[e] == p) {
      *claimed = 1; /* another actor is starting it: woken when it is recorded */
      continue;
    }
    if (!c || w->ecomm_dst[e] != p)
      continue;
    fl_sgc_ref(c);
    if (fl_sgc_wait(c) == 0) {
      fl_wf_log_transfer(w, e, c, p);
      if (w->ecomm[e] == c) {
        w->edge_at[e] = p;
        fl_sgc_unref(c);
        w->ecomm[e] = NULL;
      }
    } else {
      *failed = 1;
      if (w->ecomm[e] == c) {
        fl_sgc_unref(c);
        w->ecomm[e] = NULL;
      }
    }
    fl_sgc_unref(c);
    if (w->finished)
      break;
  }
}

/* Task t done on host p: its output pushed to the dependents' hosts now, as HEFT assumes, and the hosts of the tasks
 * that borrow it woken. */
static void fl_wf_push_output(fl_wfrun *w, long t, long p)
{
  const fl_wf *wf = w->wf;
  for (long e = wf->child_start[t]; e < wf->child_start[t + 1]; e++) {
    long c = wf->edge_dst[e], q = w->where[c];
    if (w->esrc[e] != t || w->state[c] != FL_T_PENDING || q < 0)
      continue;
    if (q != p && wf->edge_bytes[e] > 0 && fl_wf_live(w, q) && fl_wf_live(w, p) && !fl_wf_edge_to(w, e, q) &&
        fl_wf_twin(w, e, q, 1) < 0)
      fl_wf_send_edge(w, e, p, q); /* (wakes q; a twin going to q already brings this copy) */
    else if (q != p)
      fl_wf_wake(w, q);
  }
  for (long b = w->borrow_head[t]; b >= 0; b = w->borrow[b].next)
    fl_wf_wake(w, w->where[wf->edge_dst[w->borrow[b].edge]]);
}

static void fl_wf_worker_main(int argc, char **argv)
{
  fl_wf_worker_arg *arg = sg_actor_self_get_data();
  long p = arg->host;
  fl_wfrun *w = arg->w;
  const fl_wf *wf = w->wf;
  (void)argc;
  (void)argv;
  free(arg);
  for (;;) {
    long t;
    int ready = 1, failed = 0, claimed = 0;
    double stage_bytes;
    if (w->finished)
      break;
    t = fl_wf_live(w, p) ? fl_lq_peek(w, p) : -1;
    if (t < 0) {
      sg_sem_acquire(w->sem[p]);
      continue;
    }
    ready = fl_wf_inputs_start(w, t, p);
    if (!ready) {
      sg_sem_acquire(w->sem[p]);
      continue;
    }
    fl_wf_inputs_wait(w, t, p, &failed, &claimed);
    if (w->finished)
      break;
    if (claimed) {
      sg_sem_acquire(w->sem[p]);
      continue;
    }
    /* something changed while the inputs moved (a failure, or a task placed here that comes first): look again */
    if (failed || w->where[t] != p || w->state[t] != FL_T_PENDING || !fl_wf_live(w, p) || fl_lq_peek(w, p) != t)
      continue;
    for (long k = wf->parent_start[t]; k < wf->parent_start[t + 1] && ready; k++) {
      long e = wf->parent_edge[k];
      if (!fl_wf_input_done(w, e) || fl_wf_missing(w, e, p))
        ready = 0;
    }
    if (!ready)
      continue;
    /* run it */
    fl_lq_pop(w, &w->q[p]);
    w->queued_s[p] = fmax(0.0, w->queued_s[p] - fl_wf_compute(w, t, p));
    w->state[t] = FL_T_RUNNING;
    w->running[p] = t;
    fl_wf_touch(w, p);
    failed = 0;
    stage_bytes = w->staged ? fl_wf_stage_bytes(w, t, p) : 0.0;
    if (stage_bytes > 0) { /* its staged inputs, read from storage first */
      fl_sgc *c = fl_sgc_send(w->host[w->H], w->host[p], stage_bytes);
      w->stagec[p] = c; /* the send's reference, for the finish to cancel */
      fl_sgc_ref(c);
      failed = fl_sgc_wait(c) != 0;
      if (w->stagec[p] == c) {
        w->stagec[p] = NULL;
        fl_sgc_unref(c);
      }
      fl_sgc_unref(c);
      if (w->finished)
        break;
      if (!failed && fl_wf_cache_add(w, t, p) != FL_OK) {
        w->rep->rc = FL_ERR_NOMEM;
        break;
      }
    }
    if (!failed) {
      double t_x = simgrid_get_clock();
      fl_evlog_entry *ev;
      failed = fl_sg_exec(w->host[p], w->serial ? fl_wf_compute(w, t, p) * w->speed[p] : wf->task[t].flops);
      /* at SimGrid's precision: the clock's digits below it depend on where the replica started (see replica.c) */
      fl_wf_exec_energy(w, p, round((simgrid_get_clock() - t_x) * 1e9) / 1e9);
      if (!w->finished && w->rep->log && w->rep->log->phases &&
          (ev = fl_evlog_add(w->rep->log, fl_wf_now(w->rep), FL_EV_WF_TASK, p))) {
        ev->rank = (int32_t)t; /* a task of the Gantt: its host, its length, killed or not */
        ev->value = round((simgrid_get_clock() - t_x) * 1e9) / 1e9;
        ev->n = failed;
        ev->label = wf->task[t].name;
      }
    }
    if (w->finished)
      break;
    if (failed && w->running[p] == t && w->up[p]) {
      /* the host went off and the injector has not told the failure handler yet (the same date): the handler
       * must find the task running to decide about it; it wakes this worker when done */
      sg_sem_acquire(w->sem[p]);
      continue;
    }
    if (w->running[p] == t) {
      w->running[p] = -1;
      fl_wf_touch(w, p);
    }
    if (failed || w->state[t] != FL_T_RUNNING || w->where[t] != p)
      continue; /* killed: the failure handler took care of it */
    if (w->gw)
      fl_wf_gw_value(w, t);
    w->state[t] = FL_T_DONE;
    w->out_host[t] = p;
    if (fl_wf_add_out(w, p, t) != FL_OK) {
      w->rep->rc = FL_ERR_NOMEM;
      break;
    }
    fl_wf_push_output(w, t, p);
    fl_wf_count_done(w);
  }
  w->worker[p] = NULL;
}

/* ---- failures: the decision ---- */

static fl_err fl_wf_terms_cap(fl_wfrun *w, long need)
{
  fl_err rc = FL_OK;
  long cap[7] = {w->ncapterms, w->ncapterms, w->ncapterms, w->ncapterms, w->ncapterms, w->ncapterms, w->ncapterms};
  if (need <= w->ncapterms)
    goto done;
  /* the seven term arrays share one capacity: each grows to the same size */
  FL_TRY(fl_grow((void **)&w->t_i, &cap[0], need, sizeof *w->t_i));
  FL_TRY(fl_grow((void **)&w->t_j, &cap[1], need, sizeof *w->t_j));
  FL_TRY(fl_grow((void **)&w->t_k, &cap[2], need, sizeof *w->t_k));
  FL_TRY(fl_grow((void **)&w->t_edge, &cap[3], need, sizeof *w->t_edge));
  FL_TRY(fl_grow((void **)&w->t_by, &cap[4], need, sizeof *w->t_by));
  FL_TRY(fl_grow((void **)&w->t_w, &cap[5], need, sizeof *w->t_w));
  FL_TRY(fl_grow((void **)&w->t_cross, &cap[6], need, sizeof *w->t_cross));
  w->ncapterms = cap[0];
done:
  return rc;
}

/* Is the output of finished task t (held on host p) still needed by a pending dependent? */
static int fl_wf_needed(const fl_wfrun *w, long t, long p)
{
  const fl_wf *wf = w->wf;
  for (long e = wf->child_start[t]; e < wf->child_start[t + 1]; e++) {
    long k = wf->edge_dst[e];
    if (w->esrc[e] == t && w->state[k] == FL_T_PENDING && wf->edge_bytes[e] > 0 &&
        (!fl_wf_at(w, e, w->where[k]) || w->where[k] == p))
      return 1;
  }
  for (long b = w->borrow_head[t]; b >= 0; b = w->borrow[b].next) {
    long e = w->borrow[b].edge, k = wf->edge_dst[e];
    if (w->esrc[e] == t && w->state[k] == FL_T_PENDING && wf->edge_bytes[e] > 0 &&
        (!fl_wf_at(w, e, w->where[k]) || w->where[k] == p))
      return 1;
  }
  return 0;
}

#define FL_WF_MAX_CHAIN 64 /* substitutes of substitutes followed at most */

/* Can j stand in for lost task i towards dependent k (k >= ntasks: i's output as the workflow's)? j finished with
 * its output on a live host; or j will still produce one: pending or running, not lost in this failure, and before
 * k in the schedule's order, so every host's queue still runs in an order where each task's inputs come from
 * earlier tasks (no deadlock, no cycle through borrowed outputs). A substituted j produces nothing itself: the
 * caller resolves it to what it delivers first (fl_wf_resolve). */
static int fl_wf_can_substitute(const fl_wfrun *w, long j, long k)
{
  if (w->state[j] == FL_T_DONE)
    return w->out_host[j] >= 0 && w->up[w->out_host[j]];
  if (w->state[j] != FL_T_PENDING && w->state[j] != FL_T_RUNNING)
    return 0;
  return w->stamp[j] != w->stampv && (k >= w->wf->ntasks || w->prio[j] < w->prio[k]);
}

/* Candidate terms (i = idx, j, k) for the dependents reached through edge e (k = its destination) or, e < 0, the
 * workflow's output of sink i (k a virtual id). */
/* What a substitute j delivers: its own output, or, substituted itself, its substitute's (transitively, as a node
 * asking a neighbour for its current value gets what that neighbour took over). *w gets the weights along the chain
 * beyond j. -1: a chain longer than the bound (a stale link). */
static long fl_wf_resolve(const fl_wfrun *w, long j, double *wsum)
{
  *wsum = 0.0;
  for (int hop = 0; hop < FL_WF_MAX_CHAIN && w->state[j] == FL_T_SUBST; hop++) {
    if (w->sub_of[j] < 0)
      return -1;
    *wsum += w->sub_wt[j];
    j = w->sub_of[j];
  }
  return w->state[j] == FL_T_SUBST ? -1 : j;
}

static fl_err fl_wf_add_terms(fl_wfrun *w, long idx, long i, long e, long *nterms)
{
  fl_err rc = FL_OK;
  const fl_wf *wf = w->wf;
  long k = e >= 0 ? wf->edge_dst[e] : wf->ntasks + i;
  for (long s = wf->sub_start[i]; s < wf->sub_start[i + 1]; s++) {
    double chain;
    long j = fl_wf_resolve(w, wf->sub_j[s], &chain), t;
    if ((wf->sub_k[s] >= 0 && wf->sub_k[s] != k) || j < 0 || j == k || j == i || !fl_wf_can_substitute(w, j, k))
      continue;
    FL_TRY(fl_wf_terms_cap(w, *nterms + 1));
    t = (*nterms)++;
    w->t_i[t] = idx;
    w->t_j[t] = j;
    w->t_k[t] = k;
    w->t_edge[t] = e;
    w->t_w[t] = w->gw && w->empirical && w->state[j] == FL_T_DONE ? fl_wf_gw_empirical(w, i, j) : wf->sub_w[s] + chain;
    w->t_cross[t] = e >= 0 && w->where[k] != (w->state[j] == FL_T_DONE ? w->out_host[j] : w->where[j]);
    w->t_by[t] = 0;
  }
done:
  return rc;
}

/* Appends to (*edges, *n) the edges that read lost task i's output for a pending dependent: its own and those it
 * serves as a substitute, each once (an edge may be borrowed by i twice: i, j, then i again). */
static fl_err fl_wf_readers(const fl_wfrun *w, long i, long **edges, long *cap, long *n)
{
  fl_err rc = FL_OK;
  const fl_wf *wf = w->wf;
  long n0 = *n;
  for (long e = wf->child_start[i]; e < wf->child_start[i + 1]; e++)
    if (w->esrc[e] == i && w->state[wf->edge_dst[e]] == FL_T_PENDING) {
      FL_TRY(fl_grow((void **)edges, cap, *n + 1, sizeof **edges));
      (*edges)[(*n)++] = e;
    }
  for (long b = w->borrow_head[i]; b >= 0; b = w->borrow[b].next) {
    long e = w->borrow[b].edge, dup = 0;
    if (w->esrc[e] != i || w->state[wf->edge_dst[e]] != FL_T_PENDING)
      continue;
    for (long u = n0; u < *n && !dup; u++)
      dup = (*edges)[u] == e;
    if (!dup) {
      FL_TRY(fl_grow((void **)edges, cap, *n + 1, sizeof **edges));
      (*edges)[(*n)++] = e;
    }
  }
done:
  return rc;
}

static const long *fl_sort_tj, *fl_sort_tk;
static const double *fl_sort_tw;
static int fl_cmp_term(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  if (fl_sort_tj[x] != fl_sort_tj[y])
    return (fl_sort_tj[x] > fl_sort_tj[y]) - (fl_sort_tj[x] < fl_sort_tj[y]);
  if (fl_sort_tk[x] != fl_sort_tk[y])
    return (fl_sort_tk[x] > fl_sort_tk[y]) - (fl_sort_tk[x] < fl_sort_tk[y]);
  return (fl_sort_tw[x] > fl_sort_tw[y]) - (fl_sort_tw[x] < fl_sort_tw[y]);
}

/* The seed's simplification for failed task idx with terms [t0, t1): w_i = N_i min_j w_ij, w_ij = max_k w_ijk
 * (a j must serve every dependent); *best gets the j (-1: none). */
static double fl_wf_simplified(fl_wfrun *w, long t0, long t1, long ndep, long *best, long *scratch)
{
  double bw = INFINITY;
  long m = t1 - t0;
  *best = -1;
  for (long q = 0; q < m; q++)
    scratch[q] = t0 + q;
  fl_sort_tj = w->t_j;
  fl_sort_tk = w->t_k;
  fl_sort_tw = w->t_w;
  qsort(scratch, (size_t)m, sizeof *scratch, fl_cmp_term);
  for (long q = 0; q < m;) {
    long j = w->t_j[scratch[q]], deps = 0;
    double mx = 0.0;
    while (q < m && w->t_j[scratch[q]] == j) {
      long k = w->t_k[scratch[q]];
      deps++;
      mx = fmax(mx, w->t_w[scratch[q]]); /* the cheapest term of (j, k) comes first */
      while (q < m && w->t_j[scratch[q]] == j && w->t_k[scratch[q]] == k)
        q++;
    }
    if (deps == ndep && mx < bw) {
      bw = mx;
      *best = j;
    }
  }
  return *best >= 0 ? (double)ndep * bw : INFINITY;
}

static void fl_wf_reassign(fl_wfrun *w, long t)
{
  if (fl_wf_assign(w, t, fl_wf_best_host(w, t)) != FL_OK)
    w->rep->rc = FL_ERR_NOMEM;
}

/* Producers of t's inputs whose output is gone (their host failed, earlier or now) join the lost set; so does a
 * producer that was substituted while t was running (t had its input then; re-executed, it needs one again). */
static void fl_wf_cascade(fl_wfrun *w, long t, long *nl)
{
  const fl_wf *wf = w->wf;
  for (long k = wf->parent_start[t]; k < wf->parent_start[t + 1]; k++) {
    long e = wf->parent_edge[k], s = w->esrc[e];
    int gone = w->state[s] == FL_T_SUBST || (w->state[s] == FL_T_DONE && w->out_host[s] < 0);
    if (wf->edge_bytes[e] > 0 && gone && !fl_wf_at(w, e, w->where[t]) && w->stamp[s] != w->stampv) {
      w->stamp[s] = w->stampv;
      w->state[s] = FL_T_PENDING;
      w->ndone--;
      w->lost[(*nl)++] = s;
    }
  }
}

/* Decide for lost tasks lost[from .. to): fills terms, asks the strategy, applies. */
static fl_err fl_wf_decide(fl_wfrun *w, long from, long to, long *nl, double t_now)
{
  fl_err rc = FL_OK;
  fl_replica *rep = w->rep;
  fl_sim *sim = rep->sim;
  const fl_wf *wf = w->wf;
  long m = to - from, nterms = 0, *tstart = NULL, *scratch = NULL, *best = NULL;
  long *rstart = NULL, *redge = NULL, nread = 0, capread = 0;
  int have_z = 0;
  fl_pol_full full;

  FL_ALLOC(tstart, m + 1);
  FL_ALLOC(rstart, m + 1);
  FL_ALLOC(best, m);
  for (long idx = 0; idx < m; idx++) {
    long i = w->lost[from + idx], deps = 0;
    tstart[idx] = nterms;
    rstart[idx] = nread;
    FL_TRY(fl_wf_readers(w, i, &redge, &capread, &nread));
    /* terms per dependent, not per edge: a dependent may read i through two edges (its own input and one that i
     * serves as a substitute; a neighbour substitute in the grid world always does), and one substitute j then
     * stands in on both */
    for (long q = rstart[idx]; q < nread; q++) {
      long e = redge[q], seen = 0;
      for (long u = rstart[idx]; u < q && !seen; u++)
        seen = wf->edge_dst[redge[u]] == wf->edge_dst[e];
      if (!seen) {
        deps++;
        FL_TRY(fl_wf_add_terms(w, idx, i, e, &nterms));
      }
    }
    if (deps == 0 && wf->child_start[i] == wf->child_start[i + 1]) {
      deps = 1; /* a sink: the workflow's output */
      FL_TRY(fl_wf_add_terms(w, idx, i, -1, &nterms));
    }
    w->ndep[idx] = deps;
  }
  tstart[m] = nterms;
  rstart[m] = nread;
  FL_ALLOC(scratch, nterms);
  for (long idx = 0; idx < m; idx++)
    w->weight[idx] =
        w->ndep[idx] > 0 ? fl_wf_simplified(w, tstart[idx], tstart[idx + 1], w->ndep[idx], &best[idx], scratch) : 0.0;
  full = (fl_pol_full){.nterms = nterms,
                       .term_i = w->t_i,
                       .term_j = w->t_j,
                       .term_k = w->t_k,
                       .term_w = w->t_w,
                       .crosses = w->t_cross,
                       .max_cross = -1,
                       .ndependents = w->ndep,
                       .failed_task = w->lost + from};
  fl_strat_set_budget(&sim->strat, fmax(0.0, w->budget - w->spent));
  memset(w->subst, 0, (size_t)m);
  FL_TRY(fl_strat_decide_graph(&sim->strat, &full, m, w->weight, w->subst, w->t_by, &have_z));
  rep->res->decisions++;

  for (long idx = 0; idx < m; idx++) {
    long i = w->lost[from + idx];
    int sub = w->subst[idx] && (have_z || isfinite(w->weight[idx]) || w->ndep[idx] == 0);
    if (sub) {
      long used = 0;
      for (long t = tstart[idx]; t < tstart[idx + 1]; t++) {
        long e = w->t_edge[t], j = w->t_j[t];
        if (have_z ? !w->t_by[t] : j != best[idx])
          continue;
        if (!have_z) { /* one term per dependent: the cheapest of j* for it */
          int seen = 0;
          for (long u = tstart[idx]; u < t && !seen; u++)
            seen = w->t_j[u] == j && w->t_k[u] == w->t_k[t] && w->t_w[u] <= w->t_w[t];
          for (long u = t + 1; u < tstart[idx + 1] && !seen; u++)
            seen = w->t_j[u] == j && w->t_k[u] == w->t_k[t] && w->t_w[u] < w->t_w[t];
          if (seen)
            continue;
        }
        if (used++ == 0) {
          w->sub_of[i] = j;
          w->sub_wt[i] = w->t_w[t];
        }
        w->spent += w->t_w[t];
        if (e < 0 && w->sink_sub)
          w->sink_sub[i] = j;
        for (long q = rstart[idx]; e >= 0 && q < rstart[idx + 1]; q++) { /* every edge from i to this dependent */
          long r = redge[q];
          if (wf->edge_dst[r] != wf->edge_dst[e] || w->esrc[r] != i)
            continue;
          w->esrc[r] = j;
          w->edge_at[r] = -1;
          fl_wf_drop_comm(w, r);
          FL_TRY(fl_wf_borrow(w, j, r));
        }
        if (e >= 0)
          fl_wf_wake(w, w->where[wf->edge_dst[e]]);
      }
      FL_CHECK(used == w->ndep[idx], FL_ERR_INTERNAL, "task %s: %ld substitutes for %ld dependents", wf->task[i].name,
               used, w->ndep[idx]);
      w->state[i] = FL_T_SUBST;
      rep->res->tasks_substituted++;
      fl_evlog_label(rep->log, t_now, FL_EV_SUBSTITUTION_WF, -1, wf->task[i].name);
      fl_wf_count_done(w);
    } else {
      rep->res->tasks_replicated++;
      fl_wf_reassign(w, i);
      fl_evlog_label(rep->log, t_now, FL_EV_REPLICATION_WF, w->where[i], wf->task[i].name);
      fl_wf_cascade(w, i, nl);
    }
  }
  rep->res->tasks_lost += m;
done:
  free(tstart);
  free(rstart);
  free(redge);
  free(scratch);
  free(best);
  return rc;
}

static void fl_wfr_on_failure(fl_replica *rep, long p, double t, int at_start)
{
  fl_wfrun *w = rep->sim->app_state;
  long nl = 0, nmoved = 0, from = 0;
  fl_err rc = FL_OK;

  if (!at_start)
    rep->res->platform_failures++;
  if (p >= w->H || !w->up[p])
    return;
  w->up[p] = 0;
  if (w->cached)
    w->ncached[p] = 0; /* its local disk, and the staged files on it, are gone */
  fl_wf_touch(w, p);
  if (w->finished)
    return;
  w->stampv++;
  if (!at_start && (w->running[p] >= 0 || w->nouts[p] > 0 || w->q[p].n > 0))
    rep->res->failures++;
  fl_evlog_label(rep->log, t, at_start ? FL_EV_START_HOST : FL_EV_FAILURE_HOST, p, sg_host_get_name(w->host[p]));
  /* 1. the running task is killed */
  if (w->running[p] >= 0) {
    long k = w->running[p];
    w->running[p] = -1;
    w->state[k] = FL_T_PENDING;
    w->stamp[k] = w->stampv;
    w->lost[nl++] = k;
  }
  /* 2. outputs held only here: gone; lost if still needed */
  for (long q = 0; q < w->nouts[p]; q++) {
    long k = w->outs[p][q];
    if (w->state[k] != FL_T_DONE || w->out_host[k] != p)
      continue;
    if (w->shared) {
      w->out_host[k] = w->H; /* read from the storage from now on */
      continue;
    }
    if (fl_wf_needed(w, k, p)) {
      w->state[k] = FL_T_PENDING;
      w->ndone--;
      w->stamp[k] = w->stampv;
      w->lost[nl++] = k;
    }
    w->out_host[k] = -1;
  }
  w->nouts[p] = 0;
  /* 3. the tasks waiting here move to the live hosts (first, so that the decision sees where dependents run) */
  {
    fl_lq *q = &w->q[p];
    long *moved = malloc((size_t)(q->n > 0 ? q->n : 1) * sizeof *moved);
    if (!moved) {
      rep->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    for (long k = 0; k < q->n; k++) {
      long x = q->v[k];
      if (w->where[x] == p && w->state[x] == FL_T_PENDING && w->stamp[x] != w->stampv) {
        w->where[x] = -1; /* once, though the queue may hold it twice; not stamped: not lost, it may stand in */
        moved[nmoved++] = x;
      }
    }
    q->n = 0;
    w->queued_s[p] = 0.0;
    fl_wf_touch(w, p);
    for (long k = 0; k < nmoved; k++)
      fl_wf_reassign(w, moved[k]);
    for (long k = 0; k < nmoved; k++)
      fl_wf_cascade(w, moved[k], &nl);
    free(moved);
  }
  /* 4. decide, round after round while re-executions need outputs that are gone */
  while (from < nl) {
    long to = nl;
    if ((rc = fl_wf_decide(w, from, to, &nl, t)) != FL_OK) {
      rep->rc = rc;
      break;
    }
    from = to;
  }
  if (w->worker[p])
    sg_sem_release(w->sem[p]); /* it may wait for this decision about its task */
}

static const long *fl_sort_prio;
static int fl_cmp_prio(const void *a, const void *b)
{
  long x = fl_sort_prio[*(const long *)a], y = fl_sort_prio[*(const long *)b];
  return (x > y) - (x < y);
}

/* Repaired host p takes a share of the busiest live host's queue: every other task of it in schedule order (not
 * its first, which may be gathering its inputs), while p stays the less loaded of the two. Without this, hosts
 * that took over a failed host's tasks stay doubled up after capacity comes back. */
static void fl_wf_rebalance(fl_wfrun *w, long p)
{
  long q = -1, m = 0;
  double most = 0.0;
  fl_lq *lq;
  for (long h = 0; h < w->H; h++)
    if (h != p && w->up[h] && w->queued_s[h] > most) {
      most = w->queued_s[h];
      q = h;
    }
  if (q < 0)
    return;
  lq = &w->q[q];
  w->stampv++;
  for (long k = 0; k < lq->n; k++) {
    long x = lq->v[k];
    if (w->where[x] == q && w->state[x] == FL_T_PENDING && w->stamp[x] != w->stampv) {
      w->stamp[x] = w->stampv;
      w->lost[m++] = x; /* scratch: no failure is being handled */
    }
  }
  fl_sort_prio = w->prio;
  qsort(w->lost, (size_t)m, sizeof *w->lost, fl_cmp_prio);
  for (long k = 1; k < m; k += 2) {
    long x = w->lost[k];
    double cp = fl_wf_compute(w, x, p), cq = fl_wf_compute(w, x, q);
    if (!fl_wf_fits(w, x, p))
      continue;
    if (w->queued_s[p] + cp >= w->queued_s[q] - cq)
      break;
    w->queued_s[q] = fmax(0.0, w->queued_s[q] - cq);
    fl_wf_touch(w, q);
    if (fl_wf_assign(w, x, p) != FL_OK) {
      w->rep->rc = FL_ERR_NOMEM;
      return;
    }
  }
  fl_wf_wake(w, q);
}

static void fl_wfr_on_repair(fl_replica *rep, long p, double t)
{
  fl_wfrun *w = rep->sim->app_state;
  long n = w->norphan;
  if (p >= w->H)
    return;
  w->up[p] = 1;
  fl_wf_touch(w, p);
  fl_evlog_label(rep->log, t, FL_EV_REPAIR_HOST, p, sg_host_get_name(w->host[p]));
  w->norphan = 0;
  for (long k = 0; k < n; k++)
    if (w->state[w->orphan[k]] == FL_T_PENDING && w->where[w->orphan[k]] < 0)
      fl_wf_reassign(w, w->orphan[k]);
  if (!w->finished)
    fl_wf_rebalance(w, p);
  fl_wf_wake(w, p);
}

/* ---- the coordinator ---- */

static void fl_sim_run_workflow(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  fl_wfrun *w = sim->app_state;
  fl_sim_result *res = rep->res;

  res->tasks_replicated = res->tasks_substituted = res->tasks_lost = 0;
  res->error_spent = 0.0;
  res->policy_objective = 0;
  fl_strat_decisions_reset(&sim->strat);
  for (long p = 0; p < w->H; p++)
    if (w->q[p].n > 0 && w->up[p])
      fl_wf_wake(w, p);
  while (!w->finished) {
    double left = sim->max_time_s - fl_wf_now(rep);
    int timed_out;
    if (left <= 0 || rep->over_budget || rep->rc != FL_OK)
      break;
    rep->phase = FL_PHASE_COMPUTE;
    timed_out = sg_sem_acquire_timeout(rep->sem, left);
    rep->phase = FL_PHASE_IDLE;
    if (!timed_out)
      rep->interrupt_pending = 0;
  }
  if (!w->finished) {
    w->finished = 1;
    rep->now = fl_wf_now(rep);
    res->status = rep->rc != FL_OK ? "failed" : "timeout";
    for (long e = 0; e < w->wf->nedges; e++)
      fl_wf_drop_comm(w, e);
    for (long p = 0; p < w->H; p++)
      if (w->stagec[p]) { /* a staged read under way: cancelled, freed when the engine has ended */
        fl_sgc_cancel(w->stagec[p]);
        if (fl_grow((void **)&w->dropped, &w->capdropped, w->ndropped + 1, sizeof *w->dropped) == FL_OK)
          w->dropped[w->ndropped++] = w->stagec[p];
        w->stagec[p] = NULL;
      }
    for (long p = 0; p < w->H; p++)
      if (w->worker[p]) {
        sg_actor_t a = w->worker[p];
        w->worker[p] = NULL;
        sg_actor_kill(a);
      }
  }
  res->error_spent = w->spent;
  res->tasks_stale = -1;
  if (w->gw) {
    /* progress: the leading sweeps whose every task has a value (computed or substituted) — all of them when the
     * run completed, how far it got by run.max_time when it timed out (the seed's resilience to failures) */
    const long S = w->gw->n;
    long t = 0, s = S;
    for (; t < w->wf->gw_sweeps && s == S; t += s == S)
      for (s = 0; s < S && (w->state[t * S + s] == FL_T_DONE || w->state[t * S + s] == FL_T_SUBST); s++)
        ;
    res->iterations = w->wf->gw_sweeps;
    res->complete_iterations = t;
  }
  if (w->gw && strcmp(res->status, "completed") == 0) {
    /* the last sweep's values (a substituted one reports its substitute's) against the failure-free run's */
    const long S = w->gw->n, last = w->wf->ntasks - S;
    res->iterations = w->wf->gw_sweeps;
    res->error_linf = 0.0;
    res->error_l1 = 0.0;
    for (long s = 0; s < S; s++) {
      long i = last + s, hops = 0;
      double e;
      while (w->state[i] == FL_T_SUBST && hops++ < S)
        i = w->sink_sub[i];
      e = fabs(w->val[i] - w->ref[s]);
      res->error_linf = fmax(res->error_linf, e);
      res->error_l1 += e;
    }
  }
  if (fl_strat_reads(&sim->strat, "policy.kind")) {
    res->policy_solver = sim->strat.decided.solver;
    res->policy_time_s = sim->strat.decided.solve_time_s;
    res->policy_gap = sim->strat.decided.worst_gap;
    res->policy_objective = sim->strat.decided.objective;
  }
}

/* ---- the app ---- */

/* app.nodes hosts of the platform (0: all); a task's replication is its re-execution */
static fl_err fl_workflow_size(fl_sim *sim, const fl_scenario *sc)
{
  if (sc->app_nodes > sim->nodes)
    return fl_scenario_fail(sc, "app", "nodes", "%ld hosts asked for but platform '%s' has only %ld node%s",
                            sc->app_nodes, fl_platform_describe(sim->pf), sim->nodes, sim->nodes == 1 ? "" : "s");
  sim->degree = 1;
  sim->ranks = sc->app_nodes > 0 ? sc->app_nodes : sim->nodes;
  return FL_OK;
}

static fl_err fl_workflow_setup(fl_sim *sim, const fl_scenario *sc)
{
  fl_wfrun *w = NULL;
  fl_err rc = fl_wfr_create(sim, sc, &w);
  sim->app_state = w; /* (fl_wfr_create frees what it made when it fails) */
  return rc;
}

static void fl_workflow_destroy(fl_sim *sim)
{
  fl_wfrun *w = sim->app_state;
  fl_wfr_destroy(&w);
  sim->app_state = NULL;
}

/* Tasks as SimGrid executions on one cluster (files between any two hosts), re-executed or substituted. */
const fl_sim_app fl_sim_workflow = {
    .app = &fl_app_workflow,
    .caps = {.name = "sim", .shape = FL_SHAPE_TASKS, .levels = FL_SIM_ALL_LEVELS, .max_degree = 3, .task_recovery = 1},
    .form = FL_PLATFORM_CLUSTER,
    .flags = FL_SIM_APP_DEPENDENTS | FL_SIM_APP_SG_DATES | FL_SIM_APP_EXECS | FL_SIM_APP_FREE_RUN,
    .size = fl_workflow_size,
    .setup = fl_workflow_setup,
    .destroy = fl_workflow_destroy,
    .reset = fl_wfr_reset,
    .coordinate = fl_sim_run_workflow,
    .on_failure = fl_wfr_on_failure,
    .on_repair = fl_wfr_on_repair,
    .row = fl_sim_task_row, /* work_s: the failure-free HEFT schedule's length */
};
