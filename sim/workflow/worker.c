/* worker.c — a replica of the workflow app (see workflow_run.h): a host's queue in the schedule's order, inputs
 * staged and cached, the worker actor of each host (its task's inputs awaited, the task run, its output pushed to
 * its children), and the bookkeeping the decision reads (tasks done, outputs held, transfers logged). */
#include "workflow_run.h"

static void fl_wf_worker_main(int argc, char **argv);

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

double fl_wf_now(const fl_replica *rep)
{
  return simgrid_get_clock() - rep->t0;
}

/* The scheduler's price of a transfer: route latency + bytes / route bandwidth (cached per host pair). */
double fl_wf_comm(void *ctx, long a, long b, double bytes)
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
double fl_wf_stage(void *ctx, long p, double bytes)
{
  fl_wfrun *w = ctx;
  return fl_wf_comm(ctx, w->H, p, bytes);
}

typedef struct fl_wf_worker_arg {
  fl_wfrun *w;
  long host;
} fl_wf_worker_arg;

void fl_wf_wake(fl_wfrun *w, long p)
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
double fl_wf_compute(const fl_wfrun *w, long t, long p)
{
  return fl_dag_compute_time(&w->dag, &w->dh, t, p);
}

int fl_wf_fits(const fl_wfrun *w, long t, long p)
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

fl_err fl_wf_assign(fl_wfrun *w, long t, long p)
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
void fl_wf_touch(fl_wfrun *w, long p)
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
fl_err fl_wf_classes(fl_wfrun *w)
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
long fl_wf_best_host(const fl_wfrun *w, long t)
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

fl_err fl_wf_borrow(fl_wfrun *w, long j, long e)
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

void fl_wf_drop_comm(fl_wfrun *w, long e)
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
int fl_wf_at(const fl_wfrun *w, long e, long p)
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

void fl_wf_free_dropped(fl_wfrun *w)
{
  for (long k = 0; k < w->ndropped; k++)
    fl_sgc_unref(w->dropped[k]);
  w->ndropped = 0;
}

fl_err fl_wfr_reset(fl_replica *rep)
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
void fl_wf_count_done(fl_wfrun *w)
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

/* Has the producer of edge e done its part? A control dependency (no bytes) needs it finished or substituted; a
 * file needs it finished with its output somewhere. */
static int fl_wf_input_done(const fl_wfrun *w, long e)
{
  long s = w->esrc[e];
  if (w->wf->edge_bytes[e] <= 0)
    return w->state[s] == FL_T_DONE || w->state[s] == FL_T_SUBST;
  return w->state[s] == FL_T_DONE && w->out_host[s] >= 0;
}

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
