/* run.c — faultline run: the scenario for real on MPI ranks (the launcher is exec/launch.c). */
#define _XOPEN_SOURCE 700 /* realpath */
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
#include "sweep.h"
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

/* ---- run (real mode): the launcher is exec/launch.c ---- */

int fl_cmd_run(int argc, char **argv)
{
  fl_err rc;
  const char *path = NULL, *out = NULL;
  char **margv = NULL, exe[4096];
  int margc = 0, np = 0, quiet = 0, code = 1;
  long spares = -1, spare_nodes = -1, failures_replica = -1;
  const char *launcher = "local", *hostfile = NULL;

  margv = calloc((size_t)argc * 2 + 40, sizeof *margv);
  if (!margv)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  /* the scenario is checked here first, so bad input is one line and nothing runs */
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--np"))) {
      long n;
      if (fl_args_count("--np", v, 1, FL_RUN_MAX_PROCS, &n) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
      np = (int)n;
    } else if ((v = fl_args_value(argc, argv, &i, "--spares"))) {
      if (fl_args_count("--spares", v, 0, FL_RUN_MAX_PROCS, &spares) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--spare-nodes"))) {
      if (fl_args_count("--spare-nodes", v, 0, FL_RUN_MAX_PROCS, &spare_nodes) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--launcher"))) {
      if (strcmp(v, "local") != 0 && strcmp(v, "mpirun") != 0 && strcmp(v, "slurm") != 0) {
        free(margv);
        return fl_usage_error("run", "--launcher '%s': local, mpirun or slurm", v);
      }
      launcher = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--hostfile"))) {
      hostfile = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--failures"))) {
      char *end = NULL;
      if (strcmp(v, "sim") == 0)
        failures_replica = 0;
      else if (strncmp(v, "sim:", 4) == 0 && v[4] && (failures_replica = strtol(v + 4, &end, 10)) >= 0 && !*end)
        ;
      else {
        free(margv);
        return fl_usage_error("run", "--failures '%s': sim or sim:REPLICA (the simulator's draws of that replica)", v);
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--set")) || (v = fl_args_value(argc, argv, &i, "--kill")) ||
               (v = fl_args_value(argc, argv, &i, "--kill-node")) || (v = fl_args_value(argc, argv, &i, "--db"))) {
      margv[margc++] = argv[i - 1];
      margv[margc++] = argv[i];
    } else if ((v = fl_args_value(argc, argv, &i, "--out"))) {
      out = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      free(margv);
      return fl_usage_error("run", "unknown option or missing value '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      free(margv);
      return fl_usage_error("run", "one scenario at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!path || np < 1) {
    free(margv);
    return fl_usage_error("run", "%s", "give a scenario and --np N");
  }
  if (hostfile && strcmp(launcher, "mpirun") != 0) {
    free(margv);
    return fl_usage_error("run", "--hostfile %s: for --launcher mpirun (slurm takes the allocation's nodes)", hostfile);
  }
  if (hostfile && access(hostfile, R_OK) != 0) {
    free(margv);
    return fl_usage_error("run", "--hostfile %s: cannot be read", hostfile);
  }
  if ((rc = fl_self_exe(exe, sizeof exe)) == FL_OK) {
    fl_launch_opts lo = {.path = path,
                         .args = margv,
                         .nargs = margc,
                         .np = np,
                         .spares = spares,
                         .out = out,
                         .quiet = quiet,
                         .exe_dir = exe,
                         .launcher = launcher,
                         .spare_nodes = spare_nodes,
                         .hostfile = hostfile,
                         .failures_replica = failures_replica};
    *strrchr(exe, '/') = '\0';
    rc = fl_launch_run(&lo, &code);
  }
  free(margv);
  return rc == FL_OK ? code : fl_report_error(rc);
}
