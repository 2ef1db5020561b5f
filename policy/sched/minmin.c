/* minmin.c — min-min, the batch heuristic of Ibarra and Kim ("Heuristic algorithms for scheduling independent tasks
 * on nonidentical processors", JACM 24(2), 1977) as Braun et al. compare it ("A comparison of eleven static
 * heuristics for mapping a class of independent tasks onto heterogeneous distributed computing systems", JPDC
 * 61(6), 2001), applied to a task graph the usual way: among the tasks whose parents are all placed, each one's
 * minimum completion time over the hosts is taken (EFT(i, p) = max(the end of p's last task, the parents' outputs
 * arriving) + its time on p, staged inputs read as it starts, as HEFT prices them; ties: the lowest host), and the
 * task with the smallest is placed (ties: the first in topological order), until every task is. No insertion into
 * idle gaps: a host runs its tasks one after the other. O(n R H) for n tasks, R ready at once, H hosts: refused
 * above FL_MINMIN_MAX task-host pairs. */
#include "dag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FL_MINMIN_MAX 2e7 /* tasks x hosts */

/* EFT of task i on host p given the hosts' last ends `avail`; INFINITY where it does not fit */
static double fl_minmin_eft(const fl_heft_graph *g, const fl_heft_hosts *h, const fl_heft_schedule *s,
                            const double *avail, long i, long p)
{
  if (!fl_dag_fits(g, h, i, p))
    return INFINITY;
  return fmax(avail[p], fl_dag_data_ready(g, h, s->host, s->finish, i, p)) + fl_dag_exec_time(g, h, i, p);
}

static fl_err fl_minmin(const fl_heft_graph *g, const fl_heft_hosts *h, fl_heft_schedule *out)
{
  fl_err rc = FL_OK;
  long n = g->ntasks, H = h->nhosts, nready = 0, *ready = NULL, *left = NULL, *pos = NULL;
  double *avail = NULL;

  memset(out, 0, sizeof *out);
  FL_CHECK(n >= 1 && H >= 1, FL_ERR_INPUT, "min-min: %ld tasks on %ld hosts", n, H);
  FL_CHECK((double)n * (double)H <= FL_MINMIN_MAX, FL_ERR_INPUT,
           "min-min: %ld tasks on %ld hosts: at most %.0f task-host pairs (it weighs every ready task on every host "
           "at each step); use heft",
           n, H, FL_MINMIN_MAX);
  for (long p = 0; p < H; p++)
    FL_CHECK(h->speed[p] > 0, FL_ERR_INPUT, "min-min: host %ld has speed %g", p, h->speed[p]);
  FL_ALLOC(out->host, n);
  FL_ALLOC(out->start, n);
  FL_ALLOC(out->finish, n);
  FL_ALLOC(out->rank, n);
  FL_ALLOC(out->order, n);
  FL_ALLOC(ready, n);
  FL_ALLOC(left, n);
  FL_ALLOC(pos, n);
  FL_ALLOC(avail, H);
  for (long q = 0; q < n; q++)
    pos[g->topo[q]] = q;
  /* the ready list in topological order: the first of equal completion times wins */
  for (long q = 0; q < n; q++) {
    long i = g->topo[q];
    left[i] = g->parent_start[i + 1] - g->parent_start[i];
    if (left[i] == 0)
      ready[nready++] = i;
  }
  for (long step = 0; step < n; step++) {
    long best_k = -1, best_p = -1;
    double best_f = INFINITY;
    FL_CHECK(nready > 0, FL_ERR_INPUT, "min-min: no task ready after %ld of %ld (a cycle?)", step, n);
    for (long k = 0; k < nready; k++) {
      long i = ready[k];
      for (long p = 0; p < H; p++) {
        double f = fl_minmin_eft(g, h, out, avail, i, p);
        if (f < best_f) {
          best_f = f;
          best_k = k;
          best_p = p;
        }
      }
    }
    if (best_k < 0) {
      long i = ready[0];
      rc = fl_err_set(FL_ERR_INPUT, "min-min: task %ld needs %ld cores and %.6g bytes of memory: no host has them", i,
                      g->cores ? g->cores[i] : 1L, g->memory ? g->memory[i] : 0.0);
      goto done;
    }
    {
      long i = ready[best_k];
      double d = fl_dag_exec_time(g, h, i, best_p);
      out->host[i] = best_p;
      out->finish[i] = best_f;
      out->start[i] = best_f - d;
      out->order[step] = i;
      out->makespan = fmax(out->makespan, best_f);
      avail[best_p] = best_f;
      memmove(ready + best_k, ready + best_k + 1, (size_t)(nready - best_k - 1) * sizeof *ready);
      nready--;
      /* its children that are now ready, each at its place in topological order */
      for (long e = g->child_start[i]; e < g->child_start[i + 1]; e++) {
        long c = g->edge_dst[e], k;
        if (--left[c] != 0)
          continue;
        for (k = nready; k > 0 && pos[ready[k - 1]] > pos[c]; k--)
          ready[k] = ready[k - 1];
        ready[k] = c;
        nready++;
      }
    }
  }
  out->exhaustive = 1;
done:
  free(ready);
  free(left);
  free(pos);
  free(avail);
  if (rc != FL_OK)
    fl_heft_free(out);
  return rc;
}

const fl_dag_sched_ops fl_dag_minmin = {
    .name = "min-min",
    .summary = "among the ready tasks, the one that can finish first, on the host where it does (no gap filling)",
    .schedule = fl_minmin,
};
