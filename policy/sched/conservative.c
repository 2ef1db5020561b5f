/* conservative.c — conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001), batch.h.
 *
 * Every waiting job, in queue order, gets a reservation: the earliest time from which enough nodes stay free for its
 * whole estimate, in the profile of free nodes that the running jobs (ending at their expected ends) and the
 * reservations of the jobs before it leave. A job whose reservation is now starts now. So a job may jump ahead only
 * if it delays no job before it, not just the first (EASY's rule).
 *
 * A running job whose expected end is not after now (it overran its estimate, or its estimate was zero) still holds
 * its nodes at this instant: it ends at the next event the engine tells, so in the profile it frees them just after
 * now (the next double); a reservation of a zero estimate holds its nodes at its instant the same way. A job
 * reserved "now" therefore starts only on nodes that are free now, beside the others that start now. */
#include "batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The free-node profile: free[k] nodes from t[k] until t[k + 1] (the last until forever). */
typedef struct fl_profile {
  double *t;
  long *free;
  long n;
} fl_profile;

/* Index of the breakpoint at time x, inserted (with the free count that held there) if absent. */
static long fl_profile_at(fl_profile *p, double x)
{
  long k = 0;
  while (k + 1 < p->n && p->t[k + 1] <= x)
    k++;
  if (p->t[k] == x)
    return k;
  memmove(p->t + k + 2, p->t + k + 1, (size_t)(p->n - k - 1) * sizeof *p->t);
  memmove(p->free + k + 2, p->free + k + 1, (size_t)(p->n - k - 1) * sizeof *p->free);
  p->t[k + 1] = x;
  p->free[k + 1] = p->free[k];
  p->n++;
  return k + 1;
}

static long fl_conservative_pick(const fl_batch_view *v, long *start)
{
  long n = 0;
  fl_profile p;
  /* breakpoints: now, each running end, and two per reservation */
  long cap = 1 + v->nrun + 2 * v->nwait + 2;
  p.t = malloc((size_t)cap * sizeof *p.t);
  p.free = malloc((size_t)cap * sizeof *p.free);
  if (!p.t || !p.free) {
    free(p.t);
    free(p.free);
    return 0; /* out of memory: start nothing now; asked again at the next event */
  }
  p.n = 1;
  p.t[0] = v->now_s;
  p.free[0] = v->free_nodes;
  double after = nextafter(v->now_s, INFINITY); /* the end of a job that is due but still runs */
  for (long r = 0; r < v->nrun; r++) {          /* sorted by expected end; the mapping keeps the order */
    double end = v->run_end_s[r] > v->now_s ? v->run_end_s[r] : after;
    if (p.t[p.n - 1] != end) {
      p.t[p.n] = end;
      p.free[p.n] = p.free[p.n - 1];
      p.n++;
    }
    p.free[p.n - 1] += v->run_nodes[r];
  }
  for (long i = 0; i < v->nwait; i++) {
    long need = v->wait_nodes[i];
    double est = v->wait_est_s[i];
    /* the earliest breakpoint from which the job fits until its estimated end */
    long k = 0, at = -1;
    while (k < p.n && at < 0) {
      long j = k;
      while (j < p.n && (j == k || p.t[j] < p.t[k] + est) && p.free[j] >= need)
        j++;
      if (j > k && (j == p.n || p.t[j] >= p.t[k] + est))
        at = k;
      else
        k = j + 1; /* segment j is too full: no start before it ends */
    }
    if (at < 0)
      continue; /* larger than the machine can ever give: the container refuses such jobs */
    double t0 = p.t[at], t1 = t0 + est;
    if (t1 <= t0)
      t1 = nextafter(t0, INFINITY); /* a zero estimate still takes its nodes at the instant it starts */
    long a = fl_profile_at(&p, t0), b = fl_profile_at(&p, t1);
    for (long j = a; j < b; j++)
      p.free[j] -= need;
    if (t0 == v->now_s)
      start[n++] = i;
  }
  free(p.t);
  free(p.free);
  return n;
}

const fl_batch_ops fl_batch_conservative = {
    .name = "conservative",
    .doc = "conservative backfilling: every waiting job holds a reservation; a job starts early only if it delays "
           "none before it (Mu'alem and Feitelson 2001)",
    .pick = fl_conservative_pick,
};
