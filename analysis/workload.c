/* workload.c — a trace replayed without failures and the figures of a schedule (workload.h). */
#include "workload.h"

#include <math.h>
#include <stdlib.h>

void fl_wl_summarise(const fl_swf *t, long machine_nodes, const double *start_s, fl_wl_summary *out)
{
  double t0 = INFINITY, t1 = -INFINITY, area = 0, wait = 0, maxwait = 0, bsld = 0;
  int known = 1;
  for (long i = 0; i < t->njobs; i++) {
    const fl_swf_job *j = &t->jobs[i];
    double start = start_s ? start_s[i] : j->wait_s >= 0 ? j->submit_s + j->wait_s : NAN;
    if (isnan(start))
      known = 0;
    double w = start - j->submit_s;
    t0 = fmin(t0, j->submit_s);
    t1 = fmax(t1, start + j->run_s);
    area += j->run_s * (double)j->nodes;
    wait += w;
    maxwait = fmax(maxwait, w);
    bsld += fmax(1.0, (w + j->run_s) / fmax(j->run_s, FL_WL_SLOWDOWN_BOUND_S));
  }
  double n = (double)t->njobs;
  *out = (fl_wl_summary){.jobs = t->njobs,
                         .span_s = known ? t1 - t0 : NAN,
                         .utilisation = known && t1 > t0 ? area / ((t1 - t0) * (double)machine_nodes) : NAN,
                         .mean_wait_s = known ? wait / n : NAN,
                         .max_wait_s = known ? maxwait : NAN,
                         .mean_bounded_slowdown = known ? bsld / n : NAN,
                         .node_hours = area / 3600.0};
}

fl_err fl_wl_replay(const fl_swf *t, long machine_nodes, const fl_batch_ops *ops, double *start_s)
{
  fl_err rc = FL_OK;
  fl_batch_job *jobs = malloc((size_t)t->njobs * sizeof *jobs);
  FL_CHECK(jobs, FL_ERR_NOMEM, "out of memory replaying %s", t->path);
  for (long i = 0; i < t->njobs; i++) {
    const fl_swf_job *j = &t->jobs[i];
    FL_CHECK(j->nodes <= machine_nodes, FL_ERR_INPUT,
             "%s:%ld: field 5 (allocated processors) '%ld': %ld nodes, larger than the machine (%ld nodes)", t->path,
             j->line, j->procs, j->nodes, machine_nodes);
    jobs[i] = (fl_batch_job){.submit_s = j->submit_s, .run_s = j->run_s, .est_s = j->req_s, .nodes = j->nodes};
  }
  FL_TRY(fl_batch_replay(ops, jobs, t->njobs, machine_nodes, start_s));
done:
  free(jobs);
  return rc;
}
