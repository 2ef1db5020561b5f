/* workload.c — `faultline workload`: a job trace (SWF) replayed on its machine without failures under each batch
 * scheduler, beside the log as it happened (analysis/workload.h). What a machine-level study starts from: does the
 * replay schedule the trace like the machine did? */
#include "workload.h"

#include "args.h"
#include "batch.h"
#include "cli.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fl_wl_print(const char *name, const fl_wl_summary *s)
{
  char span[32], wait[32], maxwait[32];
  if (isnan(s->utilisation)) {
    printf("%-12s %8s %12s %12s %12s %10s\n", name, "-", "-", "-", "-", "-");
    return;
  }
  fl_units_format_duration(s->span_s, span, sizeof span);
  fl_units_format_duration(s->mean_wait_s, wait, sizeof wait);
  fl_units_format_duration(s->max_wait_s, maxwait, sizeof maxwait);
  printf("%-12s %7.1f%% %12s %12s %12s %10.2f\n", name, 100.0 * s->utilisation, span, wait, maxwait,
         s->mean_bounded_slowdown);
}

int fl_cmd_workload(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *path = NULL, *jobs_path = NULL;
  const fl_batch_ops *only = NULL;
  long nodes = 0, cores = 1;
  int status = 0;
  fl_swf *t = NULL;
  double *start = NULL;
  FILE *jf = NULL;

  for (int i = 1; i < argc; i++) {
    const char *v;
    double d;
    if ((v = fl_args_value(argc, argv, &i, "--nodes"))) {
      if (fl_units_number(v, 1, &d) != FL_OK || d < 1 || d > 1e9)
        return fl_usage_error("workload", "--nodes '%s': expected a whole number >= 1", v);
      nodes = (long)d;
    } else if ((v = fl_args_value(argc, argv, &i, "--cores-per-node"))) {
      if (fl_units_number(v, 1, &d) != FL_OK || d < 1 || d > 1e6)
        return fl_usage_error("workload", "--cores-per-node '%s': expected a whole number >= 1", v);
      cores = (long)d;
    } else if ((v = fl_args_value(argc, argv, &i, "--scheduler"))) {
      if (!(only = fl_batch_find(v)))
        return fl_usage_error("workload", "--scheduler '%s': unknown", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs"))) {
      jobs_path = v;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return fl_usage_error("workload", "unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return fl_usage_error("workload", "one trace at a time ('%s')", argv[i]);
    }
  }
  if (!path)
    return fl_usage_error("workload", "%s", "give a job trace (.swf or .swf.gz)");
  if (jobs_path && !only)
    return fl_usage_error("workload", "%s", "--jobs writes one schedule: name it with --scheduler");

  FL_TRY(fl_swf_read(path, cores, &t));
  if (nodes == 0)
    nodes = fl_swf_machine_nodes(t, cores);
  FL_CHECK(nodes > 0, FL_ERR_INPUT, "%s: the header names no MaxNodes or MaxProcs: give the machine's --nodes", path);
  start = malloc((size_t)t->njobs * sizeof *start);
  FL_CHECK(start, FL_ERR_NOMEM, "out of memory");

  printf("%s: %ld jobs on %ld nodes (%ld core%s a node)", path, t->njobs, nodes, cores, cores == 1 ? "" : "s");
  if (t->skipped)
    printf("; %ld never ran (no run time or processors), left out", t->skipped);
  if (t->no_estimate)
    printf("; %ld without a requested time (their run time is the estimate)", t->no_estimate);
  printf("\n%-12s %8s %12s %12s %12s %10s\n", "schedule", "util", "span", "mean wait", "max wait", "bounded sd");
  fl_wl_summary s;
  fl_wl_summarise(t, nodes, NULL, &s);
  fl_wl_print("logged", &s);
  for (size_t k = 0; fl_batch_registry[k]; k++) {
    const fl_batch_ops *ops = fl_batch_registry[k];
    if (only && ops != only)
      continue;
    FL_TRY(fl_wl_replay(t, nodes, ops, start));
    fl_wl_summarise(t, nodes, start, &s);
    fl_wl_print(ops->name, &s);
  }
  if (jobs_path) {
    jf = strcmp(jobs_path, "-") == 0 ? stdout : fopen(jobs_path, "w");
    FL_CHECK(jf, FL_ERR_INPUT, "--jobs %s: cannot write", jobs_path);
    fprintf(jf, "job,submit_s,start_s,end_s,nodes\n");
    for (long i = 0; i < t->njobs; i++)
      fprintf(jf, "%ld,%.17g,%.17g,%.17g,%ld\n", t->jobs[i].id, t->jobs[i].submit_s, start[i],
              start[i] + t->jobs[i].run_s, t->jobs[i].nodes);
    FL_CHECK(fflush(jf) == 0, FL_ERR_IO, "--jobs %s: cannot write", jobs_path);
  }
done:
  if (jf && jf != stdout && fclose(jf) != 0 && rc == FL_OK)
    rc = fl_err_set(FL_ERR_IO, "--jobs %s: cannot write", jobs_path);
  free(start);
  fl_swf_destroy(&t);
  if (rc != FL_OK)
    status = fl_report_error(rc);
  return status;
}
