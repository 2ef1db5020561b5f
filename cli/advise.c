/* advise.c — `faultline advise`: the command line of the race (analysis/advise.h). */
#include "advise.h"

#include "args.h"
#include "cli.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fl_cmd_advise(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_advise_opts o = {.objective = FL_OBJ_MAKESPAN, .budget = 2000, .jobs = fl_sim_cores(), .tolerance = 0.001};
  fl_advise *a = NULL;
  char **sets = calloc((size_t)argc + 1, sizeof *sets);
  const char *out_ini = NULL;
  int nsets = 0, quiet = 0, json = 0;
  if (!sets)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    char buf[512];
    long n;
    if ((v = fl_args_value(argc, argv, &i, "--set"))) {
      sets[nsets++] = strdup(v);
    } else if ((v = fl_args_value(argc, argv, &i, "--db")) || (v = fl_args_value(argc, argv, &i, "--seed"))) {
      snprintf(buf, sizeof buf, "run.%s=%s", argv[i - 1] + 2, v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--objective"))) {
      if (strcmp(v, "makespan") == 0)
        o.objective = FL_OBJ_MAKESPAN;
      else if (strcmp(v, "node-hours") == 0)
        o.objective = FL_OBJ_NODE_HOURS;
      else if (strcmp(v, "energy") == 0)
        o.objective = FL_OBJ_ENERGY;
      else {
        rc = fl_usage_error("advise", "--objective '%s': expected makespan, node-hours or energy", v);
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--budget"))) {
      if (fl_args_count("--budget", v, 20, 10000000, &o.budget) != FL_OK) {
        rc = fl_usage_error("advise", "%s", fl_err_msg());
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs")) || (v = fl_args_value(argc, argv, &i, "-j"))) {
      if (fl_args_count("--jobs", v, 1, 1024, &n) != FL_OK) {
        rc = fl_usage_error("advise", "%s", fl_err_msg());
        goto out;
      }
      o.jobs = (int)n;
    } else if ((v = fl_args_value(argc, argv, &i, "--tolerance"))) {
      char *end = NULL;
      o.tolerance = strtod(v, &end) / 100.0;
      if (end == v || *end || !(o.tolerance >= 0 && o.tolerance < 1)) {
        rc = fl_usage_error("advise", "--tolerance '%s': a percentage, 0 to 100 (0.1: within 0.1 %% tied)", v);
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--out"))) {
      out_ini = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--format"))) {
      if (strcmp(v, "json") != 0 && strcmp(v, "table") != 0) {
        rc = fl_usage_error("advise", "--format '%s': expected table or json", v);
        goto out;
      }
      json = strcmp(v, "json") == 0;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      rc = fl_usage_error("advise", "unknown option or missing value '%s'", argv[i]);
      goto out;
    } else if (!o.path) {
      o.path = argv[i];
    } else {
      rc = fl_usage_error("advise", "one scenario at a time ('%s' is extra)", argv[i]);
      goto out;
    }
  }
  if (!o.path) {
    rc = fl_usage_error("advise", "%s", "no scenario file given");
    goto out;
  }
  for (int i = 0; i < nsets; i++)
    if (!sets[i]) {
      rc = fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
      goto out;
    }
  o.sets = sets;
  o.nsets = nsets;
  o.progress = quiet ? NULL : stderr;
  if ((rc = fl_advise_run(&o, &a)) != FL_OK)
    goto fail;
  if ((rc = json ? fl_advise_json(a, stdout) : fl_advise_print(a, o.path, stdout)) != FL_OK)
    goto fail;
  if (out_ini && (rc = fl_advise_write_ini(a, o.path, out_ini)) != FL_OK)
    goto fail;
  if (out_ini && !quiet)
    fprintf(stderr, "faultline: the best configuration's keys are in %s\n", out_ini);
  goto out;
fail:
  rc = fl_report_error(rc);
out:
  fl_advise_free(&a);
  for (int i = 0; i < nsets; i++)
    free(sets[i]);
  free(sets);
  return (int)rc;
}
