/* values.c — the grid world's values in the workflow app (app.graph = gridworld; see workflow_run.h): what a task
 * computes, and the error a substitute's output brings. */
#include "workflow_run.h"

/* Task t = (sweep, state s) computes V(s) from the values its input edges deliver: an edge's original source says
 * which neighbour it stands for, its current source (a substitute's, after a substitution) says whose value. The
 * first sweep reads V_0 = r. */
void fl_wf_gw_value(fl_wfrun *w, long t)
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
double fl_wf_gw_empirical(const fl_wfrun *w, long i, long j)
{
  const long S = w->gw->n;
  for (long t = i - S; t >= 0; t -= S)
    if (w->state[t] == FL_T_DONE)
      return fabs(w->val[j] - w->val[t]);
  return fabs(w->val[j] - w->gw->reward[i % S]);
}
