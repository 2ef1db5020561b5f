/* easy.c — EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001), batch.h.
 *
 * 1. Start jobs in queue order while they fit (fcfs); the container asks again once they run.
 * 2. The first job that does not fit (the head) gets a reservation: walking the running jobs by expected end,
 *    the shadow time is the end at which the free nodes first reach the head's; the extra nodes are those free
 *    then (after every job ending at that instant, overrunning jobs counting as ending now) beyond its need.
 * 3. Every later waiting job, in queue order, starts now if it fits the free nodes and either ends by the shadow
 *    time (now + estimate <= shadow) or needs no more than the extra nodes (which it then uses up). */
#include "batch.h"

#include <math.h>

static long fl_easy_pick(const fl_batch_view *v, long *start)
{
  long n = 0, free_nodes = v->free_nodes;
  for (; n < v->nwait && v->wait_nodes[n] <= free_nodes; n++) {
    free_nodes -= v->wait_nodes[n];
    start[n] = n;
  }
  if (n > 0 || v->nwait == 0)
    return n; /* asked again once these run (batch.h), with them in the running set */
  /* The head does not fit: its shadow time, and the nodes it leaves spare then. */
  long avail = free_nodes, need = v->wait_nodes[0];
  double shadow = v->now_s;
  long r = 0;
  for (; r < v->nrun && avail < need; r++) {
    avail += v->run_nodes[r];
    shadow = fmax(v->run_end_s[r], v->now_s);
  }
  for (; r < v->nrun && fmax(v->run_end_s[r], v->now_s) <= shadow; r++)
    avail += v->run_nodes[r]; /* every job that ends at the shadow time frees its nodes then too */
  long extra = avail - need;
  for (long i = 1; i < v->nwait; i++) {
    long w = v->wait_nodes[i];
    if (w > free_nodes)
      continue;
    if (v->now_s + v->wait_est_s[i] <= shadow) {
      free_nodes -= w;
      start[n++] = i;
    } else if (w <= extra) {
      free_nodes -= w;
      extra -= w;
      start[n++] = i;
    }
  }
  return n;
}

const fl_batch_ops fl_batch_easy = {
    .name = "easy",
    .doc = "EASY backfilling: the first waiting job that does not fit holds a reservation; later jobs may start "
           "now if they do not delay it (Mu'alem and Feitelson 2001)",
    .pick = fl_easy_pick,
};
