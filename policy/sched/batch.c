/* batch.c — the batch scheduler registry, the queue and running set the ops see, and the plain replay (batch.h).
 *
 * The queue is an array in order with a moving front (a failed job can be put back first); the running set an
 * array sorted by expected end (binary search, memmove: a machine runs at most its node count of jobs). The replay
 * is an event loop over submits and ends (an fl_jobheap of actual ends): at each instant every end, then every
 * submit, then one pick — the order a batch system sees them. */
#include "batch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registry: one line per scheduler. */
const fl_batch_ops *const fl_batch_registry[] = {&fl_batch_fcfs, &fl_batch_easy, &fl_batch_conservative, NULL};

const fl_batch_ops *fl_batch_find(const char *name)
{
  for (size_t i = 0; name && fl_batch_registry[i]; i++)
    if (strcmp(fl_batch_registry[i]->name, name) == 0)
      return fl_batch_registry[i];
  return NULL;
}

const char *fl_batch_names(void)
{
  static char names[256]; /* built once from the registry; read-only afterwards */
  if (!names[0]) {
    size_t off = 0;
    for (size_t i = 0; fl_batch_registry[i] && off < sizeof names; i++)
      off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i ? " | " : "", fl_batch_registry[i]->name);
  }
  return names;
}

struct fl_batch {
  const fl_batch_ops *ops;
  long machine, free_nodes;
  long q0, qn, qcap; /* queue: entries q0 .. q0+qn-1 */
  long *q_job, *q_nodes;
  double *q_est;
  long rn, rcap; /* running, sorted by r_end */
  long *r_job, *r_nodes;
  double *r_end;
  long ecap; /* end_of[job]: the expected end of a running job, to find it */
  double *end_of;
  long *pick; /* scratch: positions chosen by the ops */
  long pcap;
};

fl_err fl_batch_create(const fl_batch_ops *ops, long machine_nodes, fl_batch **out)
{
  fl_err rc = FL_OK;
  *out = NULL;
  FL_CHECK(ops && machine_nodes > 0, FL_ERR_INTERNAL, "fl_batch_create: no scheduler or no nodes");
  fl_batch *b = calloc(1, sizeof *b);
  FL_CHECK(b, FL_ERR_NOMEM, "out of memory");
  b->ops = ops;
  b->machine = b->free_nodes = machine_nodes;
  *out = b;
done:
  return rc;
}

void fl_batch_destroy(fl_batch **pb)
{
  if (!pb || !*pb)
    return;
  fl_batch *b = *pb;
  free(b->q_job), free(b->q_nodes), free(b->q_est);
  free(b->r_job), free(b->r_nodes), free(b->r_end);
  free(b->end_of), free(b->pick);
  free(b);
  *pb = NULL;
}

long fl_batch_waiting(const fl_batch *b)
{
  return b->qn;
}

fl_err fl_batch_capacity(fl_batch *b, long delta)
{
  fl_err rc = FL_OK;
  FL_CHECK(b->free_nodes + delta >= 0 && b->free_nodes + delta <= b->machine, FL_ERR_INTERNAL,
           "%ld free nodes %+ld: outside 0..%ld", b->free_nodes, delta, b->machine);
  b->free_nodes += delta;
done:
  return rc;
}
long fl_batch_free_nodes(const fl_batch *b)
{
  return b->free_nodes;
}

/* Room for one more queue entry at the front or the back: the arrays regrown when more than half full, and the
 * entries moved to leave room on the side asked for (a put-back job is rare: centred then). */
static fl_err fl_batch_queue_room(fl_batch *b, int front)
{
  fl_err rc = FL_OK;
  if (front ? b->q0 > 0 : b->q0 + b->qn < b->qcap)
    return FL_OK;
  long need = 2 * (b->qn + 1);
  if (need > b->qcap) {
    long cap = b->qcap;
    FL_TRY(fl_grow((void **)&b->q_job, &cap, need, sizeof *b->q_job));
    cap = b->qcap;
    FL_TRY(fl_grow((void **)&b->q_nodes, &cap, need, sizeof *b->q_nodes));
    cap = b->qcap;
    FL_TRY(fl_grow((void **)&b->q_est, &cap, need, sizeof *b->q_est));
    b->qcap = cap;
  }
  long q0 = front ? (b->qcap - b->qn) / 2 : 0;
  memmove(b->q_job + q0, b->q_job + b->q0, (size_t)b->qn * sizeof *b->q_job);
  memmove(b->q_nodes + q0, b->q_nodes + b->q0, (size_t)b->qn * sizeof *b->q_nodes);
  memmove(b->q_est + q0, b->q_est + b->q0, (size_t)b->qn * sizeof *b->q_est);
  b->q0 = q0;
done:
  return rc;
}

fl_err fl_batch_submit(fl_batch *b, long job, long nodes, double est_s, int front)
{
  fl_err rc = FL_OK;
  FL_CHECK(nodes >= 1 && nodes <= b->machine && job >= 0, FL_ERR_INTERNAL,
           "fl_batch_submit: job %ld of %ld nodes on a machine of %ld", job, nodes, b->machine);
  FL_TRY(fl_batch_queue_room(b, front));
  long at;
  if (front) {
    at = --b->q0;
  } else {
    at = b->q0 + b->qn;
  }
  b->q_job[at] = job;
  b->q_nodes[at] = nodes;
  b->q_est[at] = est_s;
  b->qn++;
  if (job >= b->ecap) {
    long cap = b->ecap;
    FL_TRY(fl_grow((void **)&b->end_of, &cap, job + 1, sizeof *b->end_of));
    for (long i = b->ecap; i < cap; i++)
      b->end_of[i] = NAN;
    b->ecap = cap;
  }
done:
  return rc;
}

/* First running position whose end is >= end. */
static long fl_batch_lower(const fl_batch *b, double end)
{
  long lo = 0, hi = b->rn;
  while (lo < hi) {
    long mid = lo + (hi - lo) / 2;
    if (b->r_end[mid] < end)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static fl_err fl_batch_run(fl_batch *b, long job, long nodes, double end)
{
  fl_err rc = FL_OK;
  if (b->rn + 1 > b->rcap) {
    long cap = b->rcap;
    FL_TRY(fl_grow((void **)&b->r_job, &cap, b->rn + 1, sizeof *b->r_job));
    cap = b->rcap;
    FL_TRY(fl_grow((void **)&b->r_nodes, &cap, b->rn + 1, sizeof *b->r_nodes));
    cap = b->rcap;
    FL_TRY(fl_grow((void **)&b->r_end, &cap, b->rn + 1, sizeof *b->r_end));
    b->rcap = cap;
  }
  long at = fl_batch_lower(b, nextafter(end, INFINITY)); /* after equal ends: start order among ties */
  size_t tail = (size_t)(b->rn - at);
  memmove(b->r_job + at + 1, b->r_job + at, tail * sizeof *b->r_job);
  memmove(b->r_nodes + at + 1, b->r_nodes + at, tail * sizeof *b->r_nodes);
  memmove(b->r_end + at + 1, b->r_end + at, tail * sizeof *b->r_end);
  b->r_job[at] = job;
  b->r_nodes[at] = nodes;
  b->r_end[at] = end;
  b->rn++;
  b->end_of[job] = end;
  b->free_nodes -= nodes;
done:
  return rc;
}

fl_err fl_batch_pick(fl_batch *b, double now_s, long *started, long *n)
{
  fl_err rc = FL_OK;
  *n = 0;
  if (b->qn > b->pcap) {
    long cap = b->pcap;
    FL_TRY(fl_grow((void **)&b->pick, &cap, b->qn, sizeof *b->pick));
    b->pcap = cap;
  }
  for (;;) {
    fl_batch_view v = {.now_s = now_s,
                       .free_nodes = b->free_nodes,
                       .nwait = b->qn,
                       .wait_nodes = b->q_nodes + b->q0,
                       .wait_est_s = b->q_est + b->q0,
                       .nrun = b->rn,
                       .run_nodes = b->r_nodes,
                       .run_end_s = b->r_end};
    long k = b->qn ? b->ops->pick(&v, b->pick) : 0;
    if (k == 0)
      break;
    long used = 0;
    for (long i = 0; i < k; i++) {
      long at = b->q0 + b->pick[i];
      FL_CHECK(b->pick[i] >= 0 && b->pick[i] < b->qn && (i == 0 || b->pick[i] > b->pick[i - 1]), FL_ERR_INTERNAL,
               "scheduler %s chose queue position %ld of %ld", b->ops->name, b->pick[i], b->qn);
      used += b->q_nodes[at];
    }
    FL_CHECK(used <= b->free_nodes, FL_ERR_INTERNAL, "scheduler %s started %ld nodes of jobs on %ld free", b->ops->name,
             used, b->free_nodes);
    for (long i = 0; i < k; i++) {
      long at = b->q0 + b->pick[i];
      FL_TRY(fl_batch_run(b, b->q_job[at], b->q_nodes[at], now_s + b->q_est[at]));
      started[(*n)++] = b->q_job[at];
      b->q_job[at] = -1; /* compacted below */
    }
    long w = b->q0;
    for (long r = b->q0; r < b->q0 + b->qn; r++)
      if (b->q_job[r] >= 0) {
        b->q_job[w] = b->q_job[r];
        b->q_nodes[w] = b->q_nodes[r];
        b->q_est[w] = b->q_est[r];
        w++;
      }
    b->qn = w - b->q0;
  }
done:
  return rc;
}

fl_err fl_batch_end(fl_batch *b, long job)
{
  fl_err rc = FL_OK;
  FL_CHECK(job >= 0 && job < b->ecap && !isnan(b->end_of[job]), FL_ERR_INTERNAL, "job %ld ends but is not running",
           job);
  long at = fl_batch_lower(b, b->end_of[job]);
  while (at < b->rn && b->r_job[at] != job)
    at++;
  FL_CHECK(at < b->rn, FL_ERR_INTERNAL, "job %ld not in the running set", job);
  b->free_nodes += b->r_nodes[at];
  size_t tail = (size_t)(b->rn - at - 1);
  memmove(b->r_job + at, b->r_job + at + 1, tail * sizeof *b->r_job);
  memmove(b->r_nodes + at, b->r_nodes + at + 1, tail * sizeof *b->r_nodes);
  memmove(b->r_end + at, b->r_end + at + 1, tail * sizeof *b->r_end);
  b->rn--;
  b->end_of[job] = NAN;
done:
  return rc;
}

double fl_batch_expected_end(const fl_batch *b, long job)
{
  return job >= 0 && job < b->ecap ? b->end_of[job] : NAN;
}

/* A copy of n elements (at least one byte allocated), or NULL. */
static void *fl_batch_dup(const void *p, long n, size_t elem)
{
  size_t bytes = n > 0 ? (size_t)n * elem : 1;
  void *q = malloc(bytes);
  if (q && n > 0)
    memcpy(q, p, bytes);
  return q;
}

fl_err fl_batch_would_start(const fl_batch *b, double now_s, long nodes, double est_s, int *yes)
{
  fl_err rc = FL_OK;
  fl_batch *c = NULL;
  long *started = NULL, n = 0, id = b->ecap; /* an index no job of the machine has */
  *yes = 0;
  /* a dry run on a copy: the queue with the asker at its back, picked as fl_batch_pick would now */
  FL_CHECK((c = malloc(sizeof *c)) != NULL, FL_ERR_NOMEM, "out of memory");
  *c = *b;
  c->q_job = fl_batch_dup(b->q_job, b->qcap, sizeof *b->q_job);
  c->q_nodes = fl_batch_dup(b->q_nodes, b->qcap, sizeof *b->q_nodes);
  c->q_est = fl_batch_dup(b->q_est, b->qcap, sizeof *b->q_est);
  c->r_job = fl_batch_dup(b->r_job, b->rcap, sizeof *b->r_job);
  c->r_nodes = fl_batch_dup(b->r_nodes, b->rcap, sizeof *b->r_nodes);
  c->r_end = fl_batch_dup(b->r_end, b->rcap, sizeof *b->r_end);
  c->end_of = fl_batch_dup(b->end_of, b->ecap, sizeof *b->end_of);
  c->pick = NULL; /* scratch: fl_batch_pick grows its own */
  c->pcap = 0;
  FL_CHECK(c->q_job && c->q_nodes && c->q_est && c->r_job && c->r_nodes && c->r_end && c->end_of, FL_ERR_NOMEM,
           "out of memory");
  FL_TRY(fl_batch_submit(c, id, nodes, est_s, 0));
  FL_ALLOC(started, c->qn);
  FL_TRY(fl_batch_pick(c, now_s, started, &n));
  for (long i = 0; i < n; i++)
    *yes |= started[i] == id;
done:
  free(started);
  fl_batch_destroy(&c);
  return rc;
}

static int fl_jobev_before(const fl_jobev *a, const fl_jobev *b)
{
  return a->t < b->t || (a->t == b->t && a->job < b->job);
}

fl_err fl_jobheap_push(fl_jobheap *h, fl_jobev e)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&h->v, &h->cap, h->n + 1, sizeof *h->v));
  long i = h->n++;
  while (i > 0 && fl_jobev_before(&e, &h->v[(i - 1) / 2])) {
    h->v[i] = h->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->v[i] = e;
done:
  return rc;
}

fl_jobev fl_jobheap_pop(fl_jobheap *h)
{
  fl_jobev top = h->v[0], last = h->v[--h->n];
  long i = 0;
  for (;;) {
    long c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && fl_jobev_before(&h->v[c + 1], &h->v[c]))
      c++;
    if (!fl_jobev_before(&h->v[c], &last))
      break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n > 0)
    h->v[i] = last;
  return top;
}

void fl_jobheap_free(fl_jobheap *h)
{
  free(h->v);
  h->v = NULL;
  h->n = h->cap = 0;
}

fl_err fl_batch_replay_stream(const fl_batch_ops *ops, fl_batch_source next, fl_batch_started started_fn, void *ctx,
                              long machine_nodes)
{
  fl_err rc = FL_OK;
  fl_batch *b = NULL;
  fl_jobheap heap = {0};
  long *started = NULL, nstarted = 0, id = 0, lo = 0, cap = 0;
  double *run = NULL; /* run times of the jobs from lo (the first not started) to id, at j mod cap */
  fl_batch_job pend;
  int have = 0;
  FL_TRY(fl_batch_create(ops, machine_nodes, &b));
  FL_TRY(next(ctx, &pend, &have));
  while (have || heap.n > 0) {
    double t = have ? pend.submit_s : INFINITY;
    if (heap.n > 0 && heap.v[0].t <= t)
      t = heap.v[0].t;
    while (heap.n > 0 && heap.v[0].t == t)
      FL_TRY(fl_batch_end(b, fl_jobheap_pop(&heap).job));
    for (; have && pend.submit_s == t; id++) {
      FL_CHECK(pend.nodes <= machine_nodes, FL_ERR_INPUT, "job %ld needs %ld nodes, the machine has %ld", id,
               pend.nodes, machine_nodes);
      if (id - lo == cap) { /* the window of waiting jobs is full: twice the room, each where j mod cap says */
        long ncap = cap ? 2 * cap : 1024;
        double *grown = malloc((size_t)ncap * sizeof *grown);
        FL_CHECK(grown, FL_ERR_NOMEM, "out of memory replaying %ld jobs", id);
        for (long j = lo; j < id; j++)
          grown[j % ncap] = run[j % cap];
        free(run);
        run = grown;
        cap = ncap;
      }
      run[id % cap] = pend.run_s;
      FL_TRY(fl_batch_submit(b, id, pend.nodes, pend.est_s, 0));
      FL_TRY(next(ctx, &pend, &have));
    }
    long k, want = fl_batch_waiting(b);
    if (want > nstarted) {
      free(started);
      nstarted = 2 * want;
      started = malloc((size_t)nstarted * sizeof *started);
      FL_CHECK(started, FL_ERR_NOMEM, "out of memory replaying %ld jobs", id);
    }
    FL_TRY(fl_batch_pick(b, t, started, &k));
    for (long i = 0; i < k; i++) {
      long j = started[i];
      started_fn(ctx, j, t, run[j % cap]);
      FL_TRY(fl_jobheap_push(&heap, (fl_jobev){t + run[j % cap], j, 0}));
      run[j % cap] = NAN; /* started */
    }
    while (lo < id && isnan(run[lo % cap]))
      lo++;
  }
done:
  fl_jobheap_free(&heap);
  free(started);
  free(run);
  fl_batch_destroy(&b);
  return rc;
}

typedef struct fl_replay_arrays {
  const fl_batch_job *jobs;
  long n, next;
  double *start_s;
} fl_replay_arrays;

static fl_err fl_replay_arrays_next(void *ctx, fl_batch_job *job, int *got)
{
  fl_replay_arrays *a = ctx;
  *got = a->next < a->n;
  if (*got)
    *job = a->jobs[a->next++];
  return FL_OK;
}

static void fl_replay_arrays_started(void *ctx, long job, double t, double run_s)
{
  (void)run_s;
  ((fl_replay_arrays *)ctx)->start_s[job] = t;
}

fl_err fl_batch_replay(const fl_batch_ops *ops, const fl_batch_job *jobs, long n, long machine_nodes, double *start_s)
{
  fl_replay_arrays a = {.jobs = jobs, .n = n, .start_s = start_s};
  return fl_batch_replay_stream(ops, fl_replay_arrays_next, fl_replay_arrays_started, &a, machine_nodes);
}
