/* source.c — per-node renewal timelines in one min-heap (see source.h). Ties are broken by node then kind so the
 * order of simultaneous events never depends on the heap's history. */
#include "source.h"

#include "rng.h"
#include "scenario.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

typedef struct fl_fsrc_ev {
  double t;
  int32_t node;
  int32_t aux;  /* FL_AUX_RENEWAL, FL_AUX_REPAIR, or the index of a trace record */
  uint32_t gen; /* renewal and repair events: valid while it equals the node's gen (a group failure bumps it);
                 * profile outages: the profile's index */
} fl_fsrc_ev;

enum { FL_AUX_RENEWAL = -1, FL_AUX_REPAIR = -2, FL_AUX_DOWN_AT_START = -3, FL_AUX_PROFILE = -4, FL_AUX_BURST = -5 };

struct fl_fsrc {
  fl_fsrc_config cfg;
  gsl_rng *rng;
  fl_fsrc_ev *heap;
  size_t n, cap;
  unsigned char *down;  /* per node */
  long pending_repairs; /* down nodes whose repair is scheduled */
  /* group failures */
  gsl_rng *group_rng; /* NULL: none */
  uint32_t *gen;      /* per node: bumped when a group failure takes an up node (its pending event goes stale) */
  long ngroups;
  double next_group_t; /* date of the next group failure */
  long group_node;     /* the next member to take down while a group failure is being emitted, else -1 */
  long group_end;      /* one past its last member */
  double group_t;      /* its date */
  /* bursts: offspring failures of each failure (a Hawkes branching process), from their own stream */
  gsl_rng *burst_rng; /* NULL: none */
  /* lazy first failures (laws drawn by inversion, many nodes): the nodes' first uniforms are drawn as the eager
   * path draws them, but a node's time is computed, and its event put in the heap, only once it may be next: in
   * bands of the uniforms' range, the first `lazy_q` of it taken so far; the others wait (their times no earlier
   * than lazy_t). Nothing is stored per waiting node: a band is taken by drawing the uniforms again from a copy
   * of the stream as it was before them (lazy_rng), a few ms per million nodes. */
  gsl_rng *lazy_rng, *lazy_tmp;
  size_t nlazy;  /* nodes waiting */
  double lazy_q; /* the share of the uniforms' range taken (-1: none yet) */
  double lazy_t;
  /* profiles: the next outage of each is one heap event */
  long *prof_play;  /* per profile: the play its next outage is in */
  size_t *prof_idx; /* and its index in that play's list */
};

static int fl_ev_less(const fl_fsrc_ev *a, const fl_fsrc_ev *b)
{
  if (a->t != b->t)
    return a->t < b->t;
  if (a->node != b->node)
    return a->node < b->node;
  return a->aux < b->aux;
}

static void fl_heap_down(fl_fsrc_ev *h, size_t n, size_t i)
{
  fl_fsrc_ev x = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && fl_ev_less(&h[c + 1], &h[c]))
      c++;
    if (!fl_ev_less(&h[c], &x))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = x;
}

static void fl_heap_up(fl_fsrc_ev *h, size_t i)
{
  fl_fsrc_ev x = h[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!fl_ev_less(&x, &h[p]))
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = x;
}

static fl_err fl_fsrc_push_gen(fl_fsrc *s, double t, long node, int32_t aux, uint32_t gen)
{
  if (s->n == s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 64;
    fl_fsrc_ev *g = realloc(s->heap, nc * sizeof *g);
    if (!g)
      return fl_err_set(FL_ERR_NOMEM, "out of memory growing the failure heap");
    s->heap = g;
    s->cap = nc;
  }
  s->heap[s->n] = (fl_fsrc_ev){t, (int32_t)node, aux, gen};
  fl_heap_up(s->heap, s->n++);
  return FL_OK;
}

/* Room for `extra` more events without reallocating. */
static fl_err fl_fsrc_reserve(fl_fsrc *s, size_t extra)
{
  if (s->n + extra > s->cap) {
    size_t nc = 2 * (s->n + extra);
    fl_fsrc_ev *g = realloc(s->heap, nc * sizeof *g);
    if (!g)
      return fl_err_set(FL_ERR_NOMEM, "out of memory growing the failure heap");
    s->heap = g;
    s->cap = nc;
  }
  return FL_OK;
}

static fl_err fl_fsrc_push(fl_fsrc *s, double t, long node, int32_t aux)
{
  return fl_fsrc_push_gen(s, t, node, aux, s->gen ? s->gen[node] : 0);
}

static fl_err fl_fsrc_profile_next(fl_fsrc *s, size_t i);

/* Lazy first failures from this many nodes on; the first fill takes about FL_LAZY_FIRST nodes, each further one
 * twice the share of the uniforms' range */
#define FL_LAZY_MIN_NODES 4096
#define FL_LAZY_FIRST 2048

/* Is a uniform in the band of the range taken once the share q of it is (q < 0: none yet) */
static int fl_lazy_taken(double u, double q, int dec)
{
  return q >= 1.0 || (q >= 0 && (dec ? u >= 1.0 - q : u <= q));
}

/* Take the next band of the waiting nodes into the heap, their uniforms drawn from `r` (the failure stream itself
 * at creation, a copy of it as it was then afterwards): each node's time computed from its uniform, with the
 * event the eager path would have made (renewal, generation 0: a group failure since made it stale as it would
 * have). Every node left waiting then fails no earlier than lazy_t (a relative margin of 1e-12 covers a last-bit
 * wobble of log, log1p or pow). */
static fl_err fl_fsrc_lazy_fill(fl_fsrc *s, gsl_rng *r)
{
  const fl_fm *fm = s->cfg.fm;
  int dec = fl_fm_decreasing(fm);
  double prev = s->lazy_q, q = prev < 0 ? (double)FL_LAZY_FIRST / (double)s->cfg.nodes : 2.0 * prev;
  fl_err rc = fl_fsrc_reserve(s, s->nlazy); /* a no-op unless bursts or profiles grew the heap past every node */
  if (rc != FL_OK)
    return rc;
  if (q >= 0.5)
    q = 1.0; /* the rest at once */
  for (long i = 0; i < s->cfg.nodes; i++) {
    double u = fl_fm_uniform(fm, r);
    if (fl_lazy_taken(u, prev, dec) || !fl_lazy_taken(u, q, dec))
      continue;
    s->heap[s->n] = (fl_fsrc_ev){fl_fm_time_of(fm, u), (int32_t)i, FL_AUX_RENEWAL, 0};
    fl_heap_up(s->heap, s->n++);
    s->nlazy--;
  }
  s->lazy_q = q;
  if (s->nlazy == 0) {
    s->lazy_t = INFINITY;
  } else {
    double t = fl_fm_time_of(fm, dec ? 1.0 - q : q);
    s->lazy_t = t - fabs(t) * 1e-12;
  }
  return FL_OK;
}

/* The heap's top is the next event of all: waiting nodes that may come first are taken in */
static void fl_fsrc_lazy_ready(fl_fsrc *s)
{
  while (s->nlazy && (s->n == 0 || s->heap[0].t >= s->lazy_t))
    if (gsl_rng_memcpy(s->lazy_tmp, s->lazy_rng) != GSL_SUCCESS || fl_fsrc_lazy_fill(s, s->lazy_tmp) != FL_OK)
      break; /* out of memory: as a burst that cannot be pushed, the rest is not drawn */
}

fl_err fl_fsrc_create(const fl_fsrc_config *cfg, fl_fsrc **out)
{
  fl_err rc = FL_OK;
  fl_fsrc *s = NULL;
  size_t ntrace = fl_fm_trace_count(cfg->fm);

  *out = NULL;
  FL_CHECK(cfg->nodes > 0 && cfg->nodes <= INT32_MAX, FL_ERR_INTERNAL, "bad node count %ld", cfg->nodes);
  FL_ALLOC(s, 1);
  s->cfg = *cfg;
  FL_ALLOC(s->down, cfg->nodes);
  FL_TRY(fl_rng_create(cfg->seed, cfg->replica, FL_STREAM_FAILURES, &s->rng));
  if (fl_fm_is_renewal(cfg->fm)) {
    s->cap = (size_t)cfg->nodes;
    FL_ALLOC(s->heap, s->cap);
    /* steady: an alternating renewal process (up ~ the law, down = repair) in equilibrium is down with
     * probability R / (M + R); an up node's first failure comes after the residual life */
    double p_down = (cfg->start == FL_START_STEADY && isfinite(cfg->repair_s) && cfg->repair_s > 0)
                        ? cfg->repair_s / (fl_fm_mean(cfg->fm) + cfg->repair_s)
                        : 0.0;
    if (p_down == 0 && cfg->nodes >= FL_LAZY_MIN_NODES && !cfg->eager &&
        fl_fm_by_inversion(cfg->fm, cfg->start != FL_START_FRESH)) {
      /* the same uniforms in the same order as below, the first band's times now, the others' later */
      s->lazy_rng = gsl_rng_clone(s->rng);
      s->lazy_tmp = gsl_rng_clone(s->rng);
      FL_CHECK(s->lazy_rng && s->lazy_tmp, FL_ERR_NOMEM, "out of memory");
      s->nlazy = (size_t)cfg->nodes;
      s->lazy_q = -1.0;
      FL_TRY(fl_fsrc_lazy_fill(s, s->rng));
    } else {
      for (long i = 0; i < cfg->nodes; i++) {
        if (p_down > 0 && gsl_rng_uniform(s->rng) < p_down) {
          s->heap[i] = (fl_fsrc_ev){0.0, (int32_t)i, FL_AUX_DOWN_AT_START, 0};
          continue;
        }
        double t = cfg->start == FL_START_FRESH ? fl_fm_draw(cfg->fm, s->rng) : fl_fm_draw_residual(cfg->fm, s->rng);
        s->heap[i] = (fl_fsrc_ev){t, (int32_t)i, FL_AUX_RENEWAL, 0};
      }
      s->n = (size_t)cfg->nodes;
      for (size_t i = s->n / 2; i-- > 0;)
        fl_heap_down(s->heap, s->n, i);
    }
  } else if (ntrace > 0 && !cfg->trace_elsewhere) {
    FL_CHECK(cfg->trace_node != NULL, FL_ERR_INTERNAL, "trace nodes not resolved");
    /* A repair is pushed only after its failure is popped, so the heap never holds more than ntrace events:
     * reserve them now and pushes during the replay never allocate. */
    s->cap = ntrace;
    FL_ALLOC(s->heap, s->cap);
    for (size_t i = 0; i < ntrace; i++)
      FL_TRY(fl_fsrc_push(s, fl_fm_trace_at(cfg->fm, i)->t_s, cfg->trace_node[i], (int32_t)i));
  }
  s->group_node = -1;
  s->next_group_t = INFINITY;
  if ((cfg->group_size > 0 && isfinite(cfg->group_mtbf_s)) || cfg->nprofiles > 0 || cfg->burst_ratio > 0)
    FL_ALLOC(s->gen, cfg->nodes);
  if (cfg->burst_ratio > 0) {
    FL_CHECK(cfg->burst_ratio < 1.0 && cfg->burst_time_s > 0, FL_ERR_INTERNAL, "bad burst %g, %g", cfg->burst_ratio,
             cfg->burst_time_s);
    FL_TRY(fl_rng_create(cfg->seed, cfg->replica, FL_STREAM_BURSTS, &s->burst_rng));
  }
  if (cfg->nprofiles > 0) {
    FL_ALLOC(s->prof_play, cfg->nprofiles);
    FL_ALLOC(s->prof_idx, cfg->nprofiles);
    for (size_t i = 0; i < cfg->nprofiles; i++) {
      FL_CHECK(cfg->profiles[i].node >= 0 && cfg->profiles[i].node < cfg->nodes, FL_ERR_INTERNAL,
               "profile of node %ld: no such node", cfg->profiles[i].node);
      FL_TRY(fl_fsrc_profile_next(s, i));
    }
  }
  if (cfg->group_size > 0 && isfinite(cfg->group_mtbf_s)) {
    s->ngroups = (cfg->nodes + cfg->group_size - 1) / cfg->group_size;
    FL_TRY(fl_rng_create(cfg->seed, cfg->replica, FL_STREAM_GROUPS, &s->group_rng));
    s->next_group_t = gsl_ran_exponential(s->group_rng, cfg->group_mtbf_s / (double)s->ngroups);
  }
  *out = s;
  s = NULL;
done:
  fl_fsrc_destroy(&s);
  return rc;
}

void fl_fsrc_destroy(fl_fsrc **ps)
{
  fl_fsrc *s = ps ? *ps : NULL;
  if (!s)
    return;
  if (s->rng)
    gsl_rng_free(s->rng);
  if (s->group_rng)
    gsl_rng_free(s->group_rng);
  if (s->burst_rng)
    gsl_rng_free(s->burst_rng);
  free(s->gen);
  free(s->prof_play);
  free(s->prof_idx);
  free(s->heap);
  free(s->down);
  if (s->lazy_rng)
    gsl_rng_free(s->lazy_rng);
  if (s->lazy_tmp)
    gsl_rng_free(s->lazy_tmp);
  free(s);
  *ps = NULL;
}

/* Drop stale renewal and repair events at the top (their node was taken down by a group failure since). */
static void fl_fsrc_drop_stale(fl_fsrc *s);

double fl_fsrc_peek(fl_fsrc *s)
{
  double t;
  if (s->group_node >= 0) {
    /* members left to take down: now; none (the rest were down already): the group is done, and the next
     * event is the next one, not the next group's first member at this date */
    while (s->group_node < s->group_end && s->down[s->group_node])
      s->group_node++;
    if (s->group_node < s->group_end)
      return s->group_t;
    s->group_node = -1;
  }
  fl_fsrc_drop_stale(s);
  t = s->n ? s->heap[0].t : INFINITY;
  return s->next_group_t < t ? s->next_group_t : t;
}

int fl_fsrc_node_up(const fl_fsrc *s, long node)
{
  return !s->down[node];
}
long fl_fsrc_pending_repairs(const fl_fsrc *s)
{
  return s->pending_repairs;
}

static fl_fsrc_ev fl_fsrc_pop(fl_fsrc *s)
{
  fl_fsrc_ev top = s->heap[0];
  s->heap[0] = s->heap[--s->n];
  if (s->n)
    fl_heap_down(s->heap, s->n, 0);
  return top;
}

int fl_fsrc_next_down_at_start(fl_fsrc *s, long *node)
{
  double t;
  fl_fsrc_kind kind;
  if (!s->n || s->heap[0].aux != FL_AUX_DOWN_AT_START)
    return 0;
  return fl_fsrc_next(s, &t, node, &kind);
}

static int fl_ev_stale(const fl_fsrc *s, const fl_fsrc_ev *ev)
{
  return s->gen && (ev->aux == FL_AUX_RENEWAL || ev->aux == FL_AUX_REPAIR) && ev->gen != s->gen[ev->node];
}

/* Push profile i's next outage (none left: nothing). */
static fl_err fl_fsrc_profile_next(fl_fsrc *s, size_t i)
{
  const fl_fsrc_profile *p = &s->cfg.profiles[i];
  double t;
  if (s->prof_play[i] == 0 && s->prof_idx[i] >= p->nfirst) {
    s->prof_play[i] = 1;
    s->prof_idx[i] = 0;
  }
  if (s->prof_play[i] == 0) {
    t = p->first_t[s->prof_idx[i]];
  } else {
    if (!isfinite(p->period) || p->nsteady == 0)
      return FL_OK;
    if (s->prof_idx[i] >= p->nsteady) {
      s->prof_play[i]++;
      s->prof_idx[i] = 0;
    }
    t = (double)s->prof_play[i] * p->period + p->steady_t[s->prof_idx[i]];
  }
  s->prof_idx[i]++;
  return fl_fsrc_push_gen(s, t, p->node, FL_AUX_PROFILE, (uint32_t)i);
}

static void fl_fsrc_drop_stale(fl_fsrc *s)
{
  for (fl_fsrc_lazy_ready(s); s->n && fl_ev_stale(s, &s->heap[0]); fl_fsrc_lazy_ready(s))
    (void)fl_fsrc_pop(s);
}

/* The next member of the group failure being emitted that is up: taken down, its pending event made stale, its
 * repair scheduled. 0 when the group is done. */
static int fl_fsrc_group_next(fl_fsrc *s, double *t_s, long *node)
{
  while (s->group_node >= 0 && s->group_node < s->group_end) {
    long n = s->group_node++;
    if (s->down[n])
      continue;
    s->down[n] = 1;
    s->gen[n]++;
    if (isfinite(s->cfg.repair_s)) {
      (void)fl_fsrc_push(s, s->group_t + s->cfg.repair_s, n, FL_AUX_REPAIR);
      s->pending_repairs++;
    }
    *t_s = s->group_t;
    *node = n;
    return 1;
  }
  s->group_node = -1;
  return 0;
}

static int fl_fsrc_next_raw(fl_fsrc *s, double *t_s, long *node, fl_fsrc_kind *kind)
{
  for (;;) {
    fl_fsrc_drop_stale(s);
    if (s->group_node >= 0 && fl_fsrc_group_next(s, t_s, node)) {
      *kind = FL_FSRC_FAILURE;
      return 1;
    }
    if (s->next_group_t < (s->n ? s->heap[0].t : INFINITY)) {
      long g = (long)gsl_rng_uniform_int(s->group_rng, (unsigned long)s->ngroups);
      s->group_t = s->next_group_t;
      s->group_node = g * s->cfg.group_size;
      s->group_end =
          s->group_node + s->cfg.group_size < s->cfg.nodes ? s->group_node + s->cfg.group_size : s->cfg.nodes;
      s->next_group_t += gsl_ran_exponential(s->group_rng, s->cfg.group_mtbf_s / (double)s->ngroups);
      continue;
    }
    if (!s->n)
      return 0;
    if (s->heap[0].aux == FL_AUX_BURST) {
      fl_fsrc_ev be;
      if (fl_fsrc_reserve(s, 1) != FL_OK)
        return 0;
      be = fl_fsrc_pop(s);
      if (s->down[be.node])
        continue; /* already down: the offspring adds nothing */
      s->down[be.node] = 1;
      s->gen[be.node]++; /* its pending failure is stale now */
      if (isfinite(s->cfg.repair_s)) {
        (void)fl_fsrc_push(s, be.t + s->cfg.repair_s, be.node, FL_AUX_REPAIR);
        s->pending_repairs++;
      }
      *t_s = be.t;
      *node = be.node;
      *kind = FL_FSRC_FAILURE;
      return 1;
    }
    if (s->heap[0].aux == FL_AUX_PROFILE) {
      fl_fsrc_ev pe;
      const fl_fsrc_profile *p;
      size_t i;
      double len;
      /* room for the profile's next outage and this one's repair first, so no push below can fail */
      if (fl_fsrc_reserve(s, 2) != FL_OK)
        return 0;
      pe = fl_fsrc_pop(s);
      i = pe.gen;
      p = &s->cfg.profiles[i];
      /* the outage just taken is the entry before its profile's cursor */
      len = s->prof_play[i] == 0 ? p->first_dur[s->prof_idx[i] - 1] : p->steady_dur[s->prof_idx[i] - 1];
      (void)fl_fsrc_profile_next(s, i);
      if (s->down[pe.node])
        continue; /* already down: the outage adds nothing */
      s->down[pe.node] = 1;
      s->gen[pe.node]++; /* its pending failure or repair is stale now */
      if (isfinite(len)) {
        (void)fl_fsrc_push(s, pe.t + len, pe.node, FL_AUX_REPAIR);
        s->pending_repairs++;
      }
      *t_s = pe.t;
      *node = pe.node;
      *kind = FL_FSRC_FAILURE;
      return 1;
    }
    fl_fsrc_ev ev;
    /* Renewal: replace the top in place (one sift instead of pop + push). A node down at the start of a
     * steady run is repaired after the residual of its repair time, uniform on (0, R). */
    if (s->heap[0].aux == FL_AUX_RENEWAL || s->heap[0].aux == FL_AUX_DOWN_AT_START) {
      int at_start = s->heap[0].aux == FL_AUX_DOWN_AT_START;
      ev = s->heap[0];
      s->down[ev.node] = 1;
      if (isfinite(s->cfg.repair_s)) {
        s->pending_repairs++;
        s->heap[0].t = ev.t + (at_start ? gsl_rng_uniform_pos(s->rng) : 1.0) * s->cfg.repair_s;
        s->heap[0].aux = FL_AUX_REPAIR;
        fl_heap_down(s->heap, s->n, 0);
      } else {
        (void)fl_fsrc_pop(s);
      }
      *t_s = ev.t;
      *node = ev.node;
      *kind = at_start ? FL_FSRC_DOWN_AT_START : FL_FSRC_FAILURE;
      return 1;
    }
    if (s->heap[0].aux == FL_AUX_REPAIR) {
      ev = s->heap[0];
      s->down[ev.node] = 0;
      s->pending_repairs--;
      if (fl_fm_is_renewal(s->cfg.fm)) {
        s->heap[0].t = ev.t + fl_fm_draw(s->cfg.fm, s->rng);
        s->heap[0].aux = FL_AUX_RENEWAL;
        fl_heap_down(s->heap, s->n, 0);
      } else {
        (void)fl_fsrc_pop(s);
      }
      *t_s = ev.t;
      *node = ev.node;
      *kind = FL_FSRC_REPAIR;
      return 1;
    }
    /* trace record */
    ev = fl_fsrc_pop(s);
    if (s->down[ev.node])
      continue;
    {
      const fl_fm_trace_rec *rec = fl_fm_trace_at(s->cfg.fm, (size_t)ev.aux);
      double dt = isnan(rec->downtime_s) ? s->cfg.repair_s : rec->downtime_s;
      s->down[ev.node] = 1;
      if (isfinite(dt)) {
        (void)fl_fsrc_push(s, ev.t + dt, ev.node, FL_AUX_REPAIR); /* cannot allocate: see fl_fsrc_create */
        s->pending_repairs++;
      }
    }
    *t_s = ev.t;
    *node = ev.node;
    *kind = FL_FSRC_FAILURE;
    return 1;
  }
}

/* Every failure, whatever its cause (bursts' own included), spawns Poisson(burst_ratio) offspring failures of
 * uniformly random nodes, each after an exponential delay of mean burst_time: a Hawkes process with an
 * exponential kernel, whose failure rate is the base rate / (1 - burst_ratio). */
int fl_fsrc_next(fl_fsrc *s, double *t_s, long *node, fl_fsrc_kind *kind)
{
  if (!fl_fsrc_next_raw(s, t_s, node, kind))
    return 0;
  if (s->burst_rng && *kind == FL_FSRC_FAILURE) {
    unsigned k = gsl_ran_poisson(s->burst_rng, s->cfg.burst_ratio);
    if (k > 0 && fl_fsrc_reserve(s, k) == FL_OK)
      for (unsigned i = 0; i < k; i++) {
        double t = *t_s + gsl_ran_exponential(s->burst_rng, s->cfg.burst_time_s);
        long n = (long)gsl_rng_uniform_int(s->burst_rng, (unsigned long)s->cfg.nodes);
        (void)fl_fsrc_push_gen(s, t, n, FL_AUX_BURST, 0);
      }
  }
  return 1;
}
