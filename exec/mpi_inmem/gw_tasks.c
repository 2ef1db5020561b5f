/* gw_tasks.c — the grid world as tasks on real ranks (see gw_tasks.h). */
#include "gw_tasks.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum { FL_TAG_GWT_VALUES = 31, FL_TAG_GWT_STATE = 32 };

/* decision[s] after a recovery: >= 0 substitute by that task; else one of these */
enum { FL_GWT_COMPUTE = -1, FL_GWT_STALE = -2, FL_GWT_REEXEC = -3 };

/* the header of the state the deciding role sends */
enum {
  FL_GWT_H_K,
  FL_GWT_H_CHANGE,
  FL_GWT_H_REPLICATED,
  FL_GWT_H_SUBSTITUTED,
  FL_GWT_H_STALE,
  FL_GWT_H_DECISIONS,
  FL_GWT_H_STALE_SWEEPS,
  FL_GWT_H_SPENT,      /* before this decision */
  FL_GWT_H_THIS_SPENT, /* this decision's */
  FL_GWT_H_SOLVE_S,
  FL_GWT_H_GAP,
  FL_GWT_H_OBJECTIVE,
  FL_GWT_H_FELL_BACK,
  FL_GWT_H_SOLVED,
  FL_GWT_HEADER
};

struct fl_gwt {
  fl_rt *rt;
  const fl_gw *gw;
  fl_strategy_run *strat;
  double tol;
  long maxit, n;
  double *v, *vprev, *vnext;  /* V_k, V_{k-1}, the sweep being computed: full size on every role */
  double *own, *own_prev;     /* the last value each task computed itself (empirical weights), at k and k - 1 */
  double *sbuf, *rbuf, *ship; /* my tasks' values; every role's; the state the deciding role sends */
  unsigned char *pending;     /* tasks whose value for sweep k + 1 was lost and not yet decided for */
  long *decision;             /* FL_GWT_* or the substitute, for the sweep after a recovery */
  double *weight;             /* per failed task, for the policy */
  unsigned char *substitute;
  long *failed;
  long k;
  double change, change_prev;
  int has_state; /* initialised, or given the state after a recovery (a spare has none) */
  double this_spent;
  fl_gwt_counts counts;
};

fl_gwt *fl_gwt_create(fl_rt *rt, const fl_gw *gw, fl_strategy_run *strat, double tol, long maxit)
{
  fl_gwt *g = calloc(1, sizeof *g);
  size_t n = (size_t)gw->n;
  if (!g)
    return NULL;
  g->rt = rt;
  g->gw = gw;
  g->strat = strat;
  g->tol = tol;
  g->maxit = maxit;
  g->n = gw->n;
  g->v = calloc(n, sizeof *g->v);
  g->vprev = calloc(n, sizeof *g->vprev);
  g->vnext = calloc(n, sizeof *g->vnext);
  g->own = calloc(n, sizeof *g->own);
  g->own_prev = calloc(n, sizeof *g->own_prev);
  g->sbuf = calloc(n, sizeof *g->sbuf);
  g->rbuf = calloc(n, sizeof *g->rbuf);
  g->ship = calloc(FL_GWT_HEADER + 3 * n, sizeof *g->ship);
  g->pending = calloc(n, 1);
  g->decision = malloc(n * sizeof *g->decision);
  g->weight = calloc(n, sizeof *g->weight);
  g->substitute = calloc(n, 1);
  g->failed = calloc(n, sizeof *g->failed);
  g->change = g->change_prev = INFINITY;
  if (!g->v || !g->vprev || !g->vnext || !g->own || !g->own_prev || !g->sbuf || !g->rbuf || !g->ship || !g->pending ||
      !g->decision || !g->weight || !g->substitute || !g->failed) {
    fl_gwt_destroy(&g);
    return NULL;
  }
  for (long s = 0; s < g->n; s++)
    g->decision[s] = FL_GWT_COMPUTE;
  return g;
}

void fl_gwt_destroy(fl_gwt **pg)
{
  fl_gwt *g = pg ? *pg : NULL;
  if (!g)
    return;
  free(g->v);
  free(g->vprev);
  free(g->vnext);
  free(g->own);
  free(g->own_prev);
  free(g->sbuf);
  free(g->rbuf);
  free(g->ship);
  free(g->pending);
  free(g->decision);
  free(g->weight);
  free(g->substitute);
  free(g->failed);
  free(g);
  *pg = NULL;
}

/* Tasks of role r among N: r, r + N, ...; their count, and where their values start in rbuf. */
static long fl_gwt_count(long n, int N, int r)
{
  return r < n ? (n - r + N - 1) / N : 0;
}

static long fl_gwt_offset(long n, int N, int r)
{
  long off = 0;
  for (int q = 0; q < r; q++)
    off += fl_gwt_count(n, N, q);
  return off;
}

static size_t fl_gwt_bytes(void *app)
{
  (void)app;
  return 0; /* no checkpoint: every role holds the whole state */
}

static void fl_gwt_set_role(void *app)
{
  (void)app; /* tasks are dealt by role number at each sweep */
}

static int fl_gwt_init(void *app)
{
  fl_gwt *g = app;
  size_t bytes = (size_t)g->n * sizeof *g->v;
  memcpy(g->v, g->gw->reward, bytes);
  memcpy(g->vprev, g->gw->reward, bytes);
  memcpy(g->own, g->gw->reward, bytes);
  memcpy(g->own_prev, g->gw->reward, bytes);
  memset(g->pending, 0, (size_t)g->n);
  g->k = 0;
  g->change = g->change_prev = INFINITY;
  g->has_state = 1;
  return FL_RT_OK;
}

/* Buffers a failed exchange may still touch go to the runtime (freed at finalize); fresh ones replace them. */
static int fl_gwt_abandon(fl_gwt *g, double **buf, size_t count, int rc)
{
  fl_rt_adopt(g->rt, *buf);
  *buf = calloc(count, sizeof **buf);
  return *buf ? rc : FL_RT_LOST;
}

/* One sweep from V_k into vnext: my tasks (all but those decided otherwise), then every role's values to every
 * role. */
static int fl_gwt_sweep(fl_gwt *g)
{
  fl_rt *rt = g->rt;
  const int N = rt->nroles, me = rt->role;
  const long n = g->n;
  MPI_Request *req = malloc((size_t)(2 * N) * sizeof *req);
  long m = 0;
  int nreq = 0, rc;
  if (!req)
    return FL_RT_LOST;
  for (long s = me; s < n; s += N) {
    if (g->decision[s] == FL_GWT_COMPUTE || g->decision[s] == FL_GWT_REEXEC)
      (void)fl_gw_sweep(g->gw, g->v, g->vnext, s, s + 1);
    else
      g->vnext[s] = g->v[s]; /* substituted or stale below: a placeholder on the wire */
    g->sbuf[m++] = g->vnext[s];
  }
  for (int q = 0; q < N; q++) {
    if (q == me)
      continue;
    MPI_Irecv(g->rbuf + fl_gwt_offset(n, N, q), (int)fl_gwt_count(n, N, q), MPI_DOUBLE, q, FL_TAG_GWT_VALUES, rt->comm,
              &req[nreq++]);
    MPI_Isend(g->sbuf, (int)m, MPI_DOUBLE, q, FL_TAG_GWT_VALUES, rt->comm, &req[nreq++]);
  }
  rc = nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
  free(req);
  if (rc != FL_RT_OK) {
    rc = fl_gwt_abandon(g, &g->rbuf, (size_t)n, rc);
    return rc == FL_RT_LOST ? rc : fl_gwt_abandon(g, &g->sbuf, (size_t)n, rc);
  }
  for (int q = 0; q < N; q++) {
    const double *in = g->rbuf + fl_gwt_offset(n, N, q);
    if (q == me)
      continue;
    for (long s = q, i = 0; s < n; s += N, i++)
      g->vnext[s] = in[i];
  }
  return FL_RT_OK;
}

/* The sweep is complete in vnext: V_{k+1}. */
static void fl_gwt_advance(fl_gwt *g)
{
  size_t bytes = (size_t)g->n * sizeof *g->v;
  double change = 0.0;
  memcpy(g->own_prev, g->own, bytes);
  for (long s = 0; s < g->n; s++) {
    if (g->decision[s] == FL_GWT_COMPUTE || g->decision[s] == FL_GWT_REEXEC)
      g->own[s] = g->vnext[s]; /* computed by the task itself */
    change = fmax(change, fabs(g->vnext[s] - g->v[s]));
  }
  memcpy(g->vprev, g->v, bytes);
  memcpy(g->v, g->vnext, bytes);
  g->change_prev = g->change;
  g->change = change;
  g->k++;
}

static int fl_gwt_step(void *app)
{
  fl_gwt *g = app;
  int rc = fl_gwt_sweep(g);
  if (rc == FL_RT_OK)
    fl_gwt_advance(g);
  return rc;
}

static int fl_gwt_finished(void *app)
{
  fl_gwt *g = app;
  return g->change <= g->tol || g->k >= g->maxit;
}

static long fl_gwt_iteration(void *app)
{
  return ((fl_gwt *)app)->k;
}

static void fl_gwt_pack(void *app, unsigned char *buf)
{
  (void)app;
  (void)buf;
}

static void fl_gwt_unpack(void *app, const unsigned char *buf)
{
  (void)app;
  (void)buf;
}

static void fl_gwt_versions(void *app, long v[2])
{
  fl_gwt *g = app;
  v[0] = g->has_state ? g->k : LONG_MAX; /* no state: do not hold the others back */
  v[1] = g->has_state ? g->k - 1 : LONG_MAX;
}

/* The deciding role: the strategy's decision for the pending tasks, into decision[] and the state to send. */
static int fl_gwt_decide(fl_gwt *g)
{
  fl_strategy_run *st = g->strat;
  long nf = 0;
  for (long s = 0; s < g->n; s++) {
    g->decision[s] = FL_GWT_COMPUTE;
    if (g->pending[s])
      g->failed[nf++] = s;
  }
  for (long f = 0; f < nf; f++)
    (void)fl_gw_best_substitute(g->gw, g->pending, g->own, g->v, g->failed[f], fl_strat_weights_empirical(st), &g->weight[f]);
  if (fl_strat_decide_tasks(st, nf, g->weight, g->substitute) != FL_OK)
    return FL_RT_LOST;
  g->this_spent = 0.0;
  for (long f = 0; f < nf; f++) {
    long s = g->failed[f];
    if (g->substitute[f]) {
      long j = fl_gw_best_substitute(g->gw, g->pending, g->own, g->v, s, fl_strat_weights_empirical(st), NULL);
      g->decision[s] = j >= 0 ? j : FL_GWT_STALE;
      if (j >= 0)
        g->this_spent += g->weight[f]; /* the w_i the policy accepted */
    } else {
      g->decision[s] = FL_GWT_REEXEC;
    }
  }
  return FL_RT_OK;
}

static void fl_gwt_pack_state(fl_gwt *g)
{
  double *h = g->ship, *p = g->ship + FL_GWT_HEADER;
  const fl_strategy_run *st = g->strat;
  h[FL_GWT_H_K] = (double)g->k;
  h[FL_GWT_H_CHANGE] = g->change;
  h[FL_GWT_H_REPLICATED] = (double)g->counts.replicated;
  h[FL_GWT_H_SUBSTITUTED] = (double)g->counts.substituted;
  h[FL_GWT_H_STALE] = (double)g->counts.stale;
  h[FL_GWT_H_DECISIONS] = (double)g->counts.decisions;
  h[FL_GWT_H_STALE_SWEEPS] = (double)g->counts.stale_sweeps;
  h[FL_GWT_H_SPENT] = g->counts.error_spent;
  h[FL_GWT_H_THIS_SPENT] = g->this_spent;
  h[FL_GWT_H_SOLVE_S] = st->decided.solve_time_s;
  h[FL_GWT_H_GAP] = st->decided.worst_gap;
  h[FL_GWT_H_OBJECTIVE] = (double)st->decided.objective;
  h[FL_GWT_H_FELL_BACK] = st->decided.fell_back;
  h[FL_GWT_H_SOLVED] = st->decided.solver != NULL;
  memcpy(p, g->v, (size_t)g->n * sizeof *p);
  memcpy(p + g->n, g->own, (size_t)g->n * sizeof *p);
  for (long s = 0; s < g->n; s++)
    p[2 * g->n + s] = (double)g->decision[s];
}

static void fl_gwt_unpack_state(fl_gwt *g)
{
  const double *h = g->ship, *p = g->ship + FL_GWT_HEADER;
  fl_strategy_run *st = g->strat;
  g->k = (long)h[FL_GWT_H_K];
  g->change = h[FL_GWT_H_CHANGE];
  g->counts.replicated = (long)h[FL_GWT_H_REPLICATED];
  g->counts.substituted = (long)h[FL_GWT_H_SUBSTITUTED];
  g->counts.stale = (long)h[FL_GWT_H_STALE];
  g->counts.decisions = (long)h[FL_GWT_H_DECISIONS];
  g->counts.stale_sweeps = (long)h[FL_GWT_H_STALE_SWEEPS];
  g->counts.error_spent = h[FL_GWT_H_SPENT];
  g->this_spent = h[FL_GWT_H_THIS_SPENT];
  st->decided.solve_time_s = h[FL_GWT_H_SOLVE_S];
  st->decided.worst_gap = h[FL_GWT_H_GAP];
  st->decided.objective = (long)h[FL_GWT_H_OBJECTIVE];
  st->decided.fell_back = h[FL_GWT_H_FELL_BACK] != 0;
  /* the solver's name, as fl_pol_solve gives it (the row's policy_solver) */
  st->decided.solver = !h[FL_GWT_H_SOLVED] ? NULL : st->decided.fell_back ? "mip (greedy fallback)" : st->solver;
  memcpy(g->v, p, (size_t)g->n * sizeof *p);
  memcpy(g->own, p + g->n, (size_t)g->n * sizeof *p);
  for (long s = 0; s < g->n; s++) {
    g->decision[s] = (long)p[2 * g->n + s];
    g->pending[s] = g->decision[s] != FL_GWT_COMPUTE;
  }
  g->has_state = 1;
}

/* After the agreed recovery (see gw_tasks.h). */
static int fl_gwt_recover(void *app, long agreed, fl_driver_result *res, int *need_init)
{
  fl_gwt *g = app;
  fl_rt *rt = g->rt;
  const int N = rt->nroles, old_n = rt->reshaped ? rt->old_nroles : rt->nroles;
  const size_t state = FL_GWT_HEADER + 3 * (size_t)g->n;
  double t0 = fl_rt_now(), *holds = calloc((size_t)N, sizeof *holds);
  long stale;
  int rc, from = -1;

  *need_init = 0;
  if (!holds)
    return FL_RT_LOST;
  if (agreed == LONG_MAX) { /* no role holds the state: start over */
    free(holds);
    *need_init = 1;
    return FL_RT_OK;
  }
  if (g->has_state) {
    if (g->k == agreed + 1) { /* I finished the sweep the others did not: back to theirs */
      size_t bytes = (size_t)g->n * sizeof *g->v;
      memcpy(g->v, g->vprev, bytes);
      memcpy(g->own, g->own_prev, bytes);
      g->change = g->change_prev;
      g->k = agreed;
    }
    if (g->k != agreed) {
      free(holds);
      snprintf(res->message, sizeof res->message, "sweep %ld agreed, this role holds sweep %ld", agreed, g->k);
      return FL_RT_LOST;
    }
    /* the dead roles' tasks lost their new values (tasks dealt by the roles before a shrink) */
    for (int i = 0; i < rt->ndead; i++)
      for (long s = rt->dead_roles[i]; s < g->n; s += old_n)
        g->pending[s] = 1;
  }
  /* who holds the state: the lowest such role decides and sends it to every other role */
  holds[rt->role] = g->has_state;
  rc = fl_rt_max(rt, holds, N);
  for (int r = 0; rc == FL_RT_OK && r < N && from < 0; r++)
    if (holds[r] > 0)
      from = r;
  free(holds);
  if (rc != FL_RT_OK)
    return rc;
  if (from < 0) {
    *need_init = 1;
    return FL_RT_OK;
  }
  if (rt->role == from) {
    MPI_Request *req = malloc((size_t)N * sizeof *req);
    int nreq = 0;
    if (!req || (rc = fl_gwt_decide(g)) != FL_RT_OK) {
      free(req);
      snprintf(res->message, sizeof res->message, "task decision: %s", fl_err_msg());
      return FL_RT_LOST;
    }
    fl_gwt_pack_state(g);
    for (int q = 0; q < N; q++)
      if (q != from)
        MPI_Isend(g->ship, (int)state, MPI_DOUBLE, q, FL_TAG_GWT_STATE, rt->comm, &req[nreq++]);
    rc = nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
    free(req);
    fl_gwt_unpack_state(g); /* the same arithmetic on every role, the decider too */
  } else {
    MPI_Request req;
    MPI_Irecv(g->ship, (int)state, MPI_DOUBLE, from, FL_TAG_GWT_STATE, rt->comm, &req);
    rc = fl_rt_wait(rt, &req, 1);
    if (rc == FL_RT_OK)
      fl_gwt_unpack_state(g);
  }
  if (rc != FL_RT_OK)
    return fl_gwt_abandon(g, &g->ship, state, rc);
  res->restore_s += fl_rt_now() - t0;

  /* the interrupted sweep, completed as decided */
  t0 = fl_rt_now();
  if ((rc = fl_gwt_sweep(g)) != FL_RT_OK)
    return rc;
  stale = g->counts.stale;
  for (long s = 0; s < g->n; s++) {
    long d = g->decision[s];
    if (d >= 0) {
      g->vnext[s] = g->vnext[d];
      g->counts.substituted++;
    } else if (d == FL_GWT_STALE) {
      g->vnext[s] = g->v[s];
      g->counts.stale++;
    } else if (d == FL_GWT_REEXEC) {
      g->counts.replicated++;
    }
  }
  g->counts.error_spent += g->this_spent;
  g->counts.decisions++;
  g->counts.stale_sweeps += g->counts.stale > stale;
  fl_gwt_advance(g);
  for (long s = 0; s < g->n; s++)
    g->decision[s] = FL_GWT_COMPUTE;
  memset(g->pending, 0, (size_t)g->n);
  res->replay_s += fl_rt_now() - t0;
  return FL_RT_OK;
}

const fl_mpi_app_ops fl_gwt_ops = {
    .name = "gridworld-tasks",
    .checkpoint_bytes = fl_gwt_bytes,
    .set_role = fl_gwt_set_role,
    .init = fl_gwt_init,
    .step = fl_gwt_step,
    .finished = fl_gwt_finished,
    .iteration = fl_gwt_iteration,
    .pack = fl_gwt_pack,
    .unpack = fl_gwt_unpack,
    .versions = fl_gwt_versions,
    .recover_tasks = fl_gwt_recover,
};

void fl_gwt_finish(fl_gwt *g, long *iterations, int *converged, unsigned long long *checksum, double *error_linf,
                   fl_gwt_counts *counts)
{
  double *ref = malloc((size_t)g->n * sizeof *ref), err = NAN;
  long ref_it = 0;
  *iterations = g->k;
  *converged = g->change <= g->tol;
  *checksum = (unsigned long long)XXH64(g->v, (size_t)g->n * sizeof *g->v, 0);
  if (ref && fl_gw_solve(g->gw, g->tol, g->maxit, ref, &ref_it) >= 0) {
    err = 0.0;
    for (long s = 0; s < g->n; s++)
      err = fmax(err, fabs(g->v[s] - ref[s]));
  }
  free(ref);
  *error_linf = err;
  *counts = g->counts;
}
