/* decide.c — a failure in the workflow app (see workflow_run.h): the tasks whose output is lost while needed, each
 * one's substitution candidates and their weights (seed 002's w_ijk, the simplified w_i and the full instance the
 * knapsack policies solve), the strategy's decision, re-executions placed where they finish first, substitutes
 * chained; and a repair's rebalancing. */
#include "workflow_run.h"

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

void fl_wfr_on_failure(fl_replica *rep, long p, double t, int at_start)
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

void fl_wfr_on_repair(fl_replica *rep, long p, double t)
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
