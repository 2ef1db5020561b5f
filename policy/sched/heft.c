/* heft.c — HEFT with the insertion policy (see heft.h). */
#include "heft.h"

#include "dag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_slot {
  double start, finish;
} fl_slot;

typedef struct fl_host_slots {
  fl_slot *v;
  long n, cap;
} fl_host_slots;

/* Earliest start >= ready of a gap of length d on a host's sorted busy list; *at gets the insertion index. */
static double fl_heft_gap(const fl_host_slots *hs, double ready, double d, long *at)
{
  long lo = 0, hi = hs->n;
  double t = ready;
  while (lo < hi) { /* first slot finishing after ready */
    long mid = lo + (hi - lo) / 2;
    if (hs->v[mid].finish <= ready)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (long i = lo; i < hs->n; i++) {
    if (t + d <= hs->v[i].start) {
      *at = i;
      return t;
    }
    if (hs->v[i].finish > t)
      t = hs->v[i].finish;
  }
  *at = hs->n;
  return t;
}

static fl_err fl_heft_insert(fl_host_slots *hs, long at, double s, double f)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&hs->v, &hs->cap, hs->n + 1, sizeof *hs->v));
  if (hs->n > at)
    memmove(hs->v + at + 1, hs->v + at, (size_t)(hs->n - at) * sizeof *hs->v);
  hs->v[at] = (fl_slot){s, f};
  hs->n++;
done:
  return rc;
}

/* An indexed min-heap of hosts by the end of their last busy slot (large platforms). */
typedef struct fl_hheap {
  long n, *h, *pos;
  const double *key;
} fl_hheap;

static int fl_hless(const fl_hheap *q, long a, long b)
{
  return q->key[a] < q->key[b] || (q->key[a] == q->key[b] && a < b);
}
static void fl_hswap(fl_hheap *q, long i, long j)
{
  long t = q->h[i];
  q->h[i] = q->h[j];
  q->h[j] = t;
  q->pos[q->h[i]] = i;
  q->pos[q->h[j]] = j;
}
static void fl_hup(fl_hheap *q, long i)
{
  while (i > 0 && fl_hless(q, q->h[i], q->h[(i - 1) / 2])) {
    fl_hswap(q, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}
static void fl_hdown(fl_hheap *q, long i)
{
  for (;;) {
    long l = 2 * i + 1, r = l + 1, m = i;
    if (l < q->n && fl_hless(q, q->h[l], q->h[m]))
      m = l;
    if (r < q->n && fl_hless(q, q->h[r], q->h[m]))
      m = r;
    if (m == i)
      return;
    fl_hswap(q, i, m);
    i = m;
  }
}
static long fl_hpop(fl_hheap *q)
{
  long top = q->h[0];
  fl_hswap(q, 0, --q->n);
  q->pos[top] = -1;
  fl_hdown(q, 0);
  return top;
}
static void fl_hpush(fl_hheap *q, long x)
{
  q->h[q->n] = x;
  q->pos[x] = q->n;
  q->n++;
  fl_hup(q, q->n - 1);
}

static const double *fl_sort_rank;
static const long *fl_sort_topo_pos;
static int fl_cmp_rank(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  if (fl_sort_rank[x] != fl_sort_rank[y])
    return fl_sort_rank[x] > fl_sort_rank[y] ? -1 : 1;
  return (fl_sort_topo_pos[x] > fl_sort_topo_pos[y]) - (fl_sort_topo_pos[x] < fl_sort_topo_pos[y]);
}

double fl_heft_mean(const double *v, long n)
{
  double d = 0.0;
  if (n <= 0)
    return 0.0;
  for (long k = 1; k < n; k++)
    d += v[k] - v[0];
  return v[0] + d / (double)n;
}

double fl_heft_harmonic_mean(const double *v, long n)
{
  double r = 0.0;
  if (n <= 0)
    return INFINITY;
  for (long k = 0; k < n; k++)
    r += v[0] / v[k]; /* n exactly when all are equal */
  return v[0] * ((double)n / r);
}

/* Under Amdahl's law a task's time depends on the host's cores: w_i is its mean over the hosts (a sample of 256
 * spread over them on a large platform), relative to the first so that equal times give exactly their value. */
static double fl_heft_mean_compute(const fl_heft_graph *g, const fl_heft_hosts *h, long i)
{
  long H = h->nhosts, m = H < 256 ? H : 256;
  double first = fl_dag_compute_time(g, h, i, 0), d = 0.0;
  for (long k = 1; k < m; k++)
    d += fl_dag_compute_time(g, h, i, m == H ? k : (long)((double)k * (double)H / (double)m)) - first;
  return first + d / (double)m;
}

fl_err fl_heft(const fl_heft_graph *g, const fl_heft_hosts *h, fl_heft_schedule *out)
{
  fl_err rc = FL_OK;
  long n = g->ntasks, H = h->nhosts, *topo_pos = NULL, *cand = NULL, *stamp = NULL, ncand, K;
  double inv_speed = 0.0, *last = NULL;
  fl_host_slots *slots = NULL;
  fl_hheap q = {0};

  memset(out, 0, sizeof *out);
  FL_CHECK(n >= 1 && H >= 1, FL_ERR_INPUT, "HEFT: %ld tasks on %ld hosts", n, H);
  for (long p = 0; p < H; p++)
    FL_CHECK(h->speed[p] > 0, FL_ERR_INPUT, "HEFT: host %ld has speed %g", p, h->speed[p]);
  inv_speed = 1.0 / fl_heft_harmonic_mean(h->speed, H); /* mean of 1/speed, exact when all are equal */
  FL_ALLOC(out->host, n);
  FL_ALLOC(out->start, n);
  FL_ALLOC(out->finish, n);
  FL_ALLOC(out->rank, n);
  FL_ALLOC(out->order, n);
  FL_ALLOC(topo_pos, n);

  /* 1. upward ranks, children first */
  for (long q2 = 0; q2 < n; q2++)
    topo_pos[g->topo[q2]] = q2;
  for (long q2 = n - 1; q2 >= 0; q2--) {
    long i = g->topo[q2];
    double best = 0.0;
    for (long e = g->child_start[i]; e < g->child_start[i + 1]; e++) {
      double c = g->edge_bytes[e] > 0 ? h->mean_latency + g->edge_bytes[e] / h->mean_bandwidth : 0.0;
      best = fmax(best, c + out->rank[g->edge_dst[e]]);
    }
    out->rank[i] = (g->serial ? fl_heft_mean_compute(g, h, i) : g->flops[i] * inv_speed) + best;
    if (g->staged_bytes && h->stage && g->staged_bytes[i] > 0)
      out->rank[i] += h->mean_latency + g->staged_bytes[i] / h->mean_bandwidth;
  }
  /* 2. the order */
  for (long i = 0; i < n; i++)
    out->order[i] = i;
  fl_sort_rank = out->rank;
  fl_sort_topo_pos = topo_pos;
  qsort(out->order, (size_t)n, sizeof *out->order, fl_cmp_rank);

  /* 3. placement */
  out->exhaustive = (double)n * (double)H <= FL_HEFT_EXHAUSTIVE;
  K = h->candidates >= 1 ? h->candidates : 1;
  FL_ALLOC(slots, H);
  FL_ALLOC(last, H);
  FL_ALLOC(cand, out->exhaustive ? H : K + n + 1);
  FL_ALLOC(stamp, H);
  if (!out->exhaustive) {
    FL_ALLOC(q.h, H);
    FL_ALLOC(q.pos, H);
    q.key = last;
    for (long p = 0; p < H; p++)
      fl_hpush(&q, p);
  }
  for (long k = 0; k < n; k++) {
    long i = out->order[k], best_p = -1, best_at = 0;
    double best_s = 0.0, best_f = INFINITY;
    ncand = 0;
    if (out->exhaustive) {
      for (long p = 0; p < H; p++)
        cand[ncand++] = p;
    } else {
      long taken = 0, base;
      for (long e = g->parent_start[i]; e < g->parent_start[i + 1]; e++) {
        long p = out->host[g->edge_src[g->parent_edge[e]]];
        if (stamp[p] != k + 1) {
          stamp[p] = k + 1;
          cand[ncand++] = p;
        }
      }
      base = ncand; /* the popped hosts sit after the parents' hosts; ncand grows as they are taken */
      while (taken < K && q.n > 0) {
        long p = fl_hpop(&q);
        cand[base + taken++] = p;
      }
      for (long t = 0; t < taken; t++) {
        long p = cand[base + t];
        fl_hpush(&q, p);
        if (stamp[p] != k + 1) {
          stamp[p] = k + 1;
          cand[ncand++] = p;
        }
      }
    }
    if (!out->exhaustive) {
      /* a parent's host or an early host may be too small: every host that fits is a candidate then */
      long fit = 0;
      for (long c = 0; c < ncand; c++)
        fit += fl_dag_fits(g, h, i, cand[c]);
      if (fit == 0) {
        ncand = 0;
        for (long p = 0; p < H && ncand < K; p++)
          if (fl_dag_fits(g, h, i, p))
            cand[ncand++] = p;
      }
    }
    for (long c = 0; c < ncand; c++) {
      long p = cand[c], at;
      double ready, d = fl_dag_exec_time(g, h, i, p), s;
      if (!fl_dag_fits(g, h, i, p))
        continue;
      ready = fl_dag_data_ready(g, h, out->host, out->finish, i, p);
      s = fl_heft_gap(&slots[p], ready, d, &at);
      if (s + d < best_f || (s + d == best_f && p < best_p)) {
        best_f = s + d;
        best_s = s;
        best_p = p;
        best_at = at;
      }
    }
    if (best_p < 0) {
      rc = fl_err_set(FL_ERR_INPUT, "HEFT: task %ld needs %ld cores and %.6g bytes of memory: no host has them", i,
                      g->cores ? g->cores[i] : 1L, g->memory ? g->memory[i] : 0.0);
      goto done;
    }
    FL_TRY(fl_heft_insert(&slots[best_p], best_at, best_s, best_f));
    out->host[i] = best_p;
    out->start[i] = best_s;
    out->finish[i] = best_f;
    out->makespan = fmax(out->makespan, best_f);
    if (best_f > last[best_p]) {
      last[best_p] = best_f;
      if (!out->exhaustive)
        fl_hdown(&q, q.pos[best_p]); /* its key grew */
    }
  }
done:
  if (slots)
    for (long p = 0; p < H; p++)
      free(slots[p].v);
  free(slots);
  free(last);
  free(cand);
  free(stamp);
  free(q.h);
  free(q.pos);
  free(topo_pos);
  if (rc != FL_OK)
    fl_heft_free(out);
  return rc;
}

void fl_heft_free(fl_heft_schedule *s)
{
  free(s->host);
  free(s->start);
  free(s->finish);
  free(s->rank);
  free(s->order);
  memset(s, 0, sizeof *s);
}

const fl_dag_sched_ops fl_dag_heft = {
    .name = "heft",
    .summary = "HEFT: tasks by decreasing upward rank, each to the host of earliest finish, filling idle gaps",
    .schedule = fl_heft,
};
