/* dag.c — the task-graph schedulers' registry (see dag.h). */
#include "dag.h"

#include <math.h>
#include <string.h>

static const fl_dag_sched_ops *const fl_dag_scheds[] = {&fl_dag_heft, &fl_dag_minmin};
#define FL_NDAG ((int)(sizeof fl_dag_scheds / sizeof fl_dag_scheds[0]))

const fl_dag_sched_ops *fl_dag_sched_find(const char *name)
{
  for (int i = 0; name && i < FL_NDAG; i++)
    if (strcmp(fl_dag_scheds[i]->name, name) == 0)
      return fl_dag_scheds[i];
  return NULL;
}

const char *fl_dag_sched_names(char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NDAG; i++) {
    strncat(buf, i ? " | " : "", size - strlen(buf) - 1);
    strncat(buf, fl_dag_scheds[i]->name, size - strlen(buf) - 1);
  }
  return buf;
}

int fl_dag_fits(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p)
{
  if (!g->serial && g->cores && h->cores && h->cores[p] < g->cores[i])
    return 0;
  return !(g->memory && h->memory && h->memory[p] > 0 && h->memory[p] < g->memory[i]);
}

double fl_dag_amdahl(double f, long k, long c)
{
  long n = c < k ? c : k;
  return n >= k ? 1.0 : (f + (1.0 - f) / (double)n) / (f + (1.0 - f) / (double)k);
}

double fl_dag_compute_time(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p)
{
  double d = g->flops[i] / h->speed[p];
  if (g->serial && g->cores && h->cores && h->cores[p] < g->cores[i])
    d *= fl_dag_amdahl(g->serial[i], g->cores[i], h->cores[p]);
  return d;
}

double fl_dag_exec_time(const fl_heft_graph *g, const fl_heft_hosts *h, long i, long p)
{
  double d = fl_dag_compute_time(g, h, i, p);
  if (g->staged_bytes && h->stage && g->staged_bytes[i] > 0)
    d += h->stage(h->ctx, p, g->staged_bytes[i]); /* read from storage as it starts */
  return d;
}

double fl_dag_data_ready(const fl_heft_graph *g, const fl_heft_hosts *h, const long *host, const double *finish, long i,
                         long p)
{
  double ready = 0.0;
  for (long e = g->parent_start[i]; e < g->parent_start[i + 1]; e++) {
    long ed = g->parent_edge[e], m = g->edge_src[ed];
    double arrive = finish[m];
    if (host[m] != p && g->edge_bytes[ed] > 0)
      arrive += h->comm(h->ctx, host[m], p, g->edge_bytes[ed]);
    ready = fmax(ready, arrive);
  }
  return ready;
}
