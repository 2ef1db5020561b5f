/* sweep.c — faultline sweep and merge: a study cut into shards (local processes or a Slurm job array), and the shards
 * merged. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sweep.h"

#include "app.h"
#include "args.h"
#include "calibration.h"
#include "ckpt_cli.h"
#include "cleanup.h"
#include "cli.h"
#include "columns.h"
#include "compare.h"
#include "db.h"
#include "engine.h"
#include "export.h"
#include "fl_config.h"
#include "fm.h"
#include "format.h"
#include "html.h"
#include "inputs.h"
#include "launch.h"
#include "merge.h"
#include "platform.h"
#include "plot.h"
#include "progress.h"
#include "registries.h"
#include "report.h"
#include "rerun.h"
#include "scenario.h"
#include "sched_keys.h"
#include "shards.h"
#include "sim.h"
#include "strategy.h"
#include "study.h"
#include "tmr_cmd.h"
#include "trace.h"
#include "units.h"
#include "validate.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- merge ---- */

int fl_cmd_merge(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *out = NULL;
  const char **shards = calloc((size_t)argc + 1, sizeof *shards);
  int n = 0, incomplete = 0;

  if (!shards)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      out = v;
    } else if (argv[i][0] == '-') {
      free(shards);
      return fl_usage_error("merge", "unknown option or missing value '%s'", argv[i]);
    } else {
      shards[n++] = argv[i];
    }
  }
  if (!out || n == 0) {
    free(shards);
    return fl_usage_error("merge", "%s", "give the shards and --db OUT");
  }
  FL_TRY(fl_db_merge(out, shards, n, stderr, &incomplete));
done:
  free(shards);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return incomplete ? 1 : 0;
}

/* ---- sweep ---- */

/* `faultline sweep S.ini --launcher local`: the sweep as N shards run by J processes of this machine, each
 * `faultline simulate ... --shard I/N --db DIR/shard-I.sqlite`, then merged into the scenario's database. A shard
 * that already holds its rows (a re-run after a crash) skips them, so re-running the sweep resumes it. */
int fl_cmd_sweep(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *path = NULL, *dir = "sweep", *launcher = "local", *out = NULL;
  const char **pass = calloc((size_t)argc + 1, sizeof *pass);
  char self[4096];
  long jobs = sysconf(_SC_NPROCESSORS_ONLN), nshards = -1;
  int npass = 0, quiet = 0, code = 0, jobs_given = 0;
  fl_scenario *sc = NULL;

  if (!pass)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  if (jobs < 1)
    jobs = 1;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int start = i;
    if ((v = fl_args_value(argc, argv, &i, "--launcher"))) {
      launcher = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs"))) {
      if (fl_args_count("--jobs", v, 1, 4096, &jobs) != FL_OK) {
        free(pass);
        return fl_usage_error("sweep", "%s", fl_err_msg());
      }
      jobs_given = 1;
    } else if ((v = fl_args_value(argc, argv, &i, "--shards"))) {
      if (fl_args_count("--shards", v, 1, 100000, &nshards) != FL_OK) {
        free(pass);
        return fl_usage_error("sweep", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--dir"))) {
      dir = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      out = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if ((v = fl_args_value(argc, argv, &i, "--set")) || (v = fl_args_value(argc, argv, &i, "--sweep")) ||
               (v = fl_args_value(argc, argv, &i, "--replicas")) || (v = fl_args_value(argc, argv, &i, "--seed")) ||
               (v = fl_args_value(argc, argv, &i, "--events"))) {
      for (int k = start; k <= i; k++) /* "--set X" or "--set=X", passed on as given */
        pass[npass++] = argv[k];
    } else if (argv[i][0] == '-') {
      free(pass);
      return fl_usage_error("sweep", "unknown option or missing value '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      free(pass);
      return fl_usage_error("sweep", "one scenario at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!path) {
    free(pass);
    return fl_usage_error("sweep", "%s", "no scenario file given");
  }
  if (strcmp(launcher, "local") != 0 && strcmp(launcher, "slurm") != 0) {
    free(pass);
    return fl_usage_error("sweep", "--launcher '%s': expected local or slurm", launcher);
  }
  if (nshards < 0)
    nshards = jobs;
  FL_TRY(fl_scenario_load(path, &sc));
  if (!out)
    out = sc->db;
  FL_TRY(fl_self_exe(self, sizeof self));
  {
    fl_shards_opts so = {.self = self,
                         .path = path,
                         .pass = pass,
                         .npass = npass,
                         .dir = dir,
                         .out = out,
                         .name = sc->name,
                         .nshards = nshards,
                         .jobs = jobs,
                         .jobs_given = jobs_given,
                         .slurm = strcmp(launcher, "slurm") == 0,
                         .quiet = quiet};
    FL_TRY(fl_shards_run(&so, &code));
  }
done:
  free(pass);
  fl_scenario_destroy(&sc);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return code;
}
