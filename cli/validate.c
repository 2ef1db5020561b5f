/* validate.c — faultline validate: the simulator against Daly's expected wall time and renewal theory. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "validate.h"

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

/* ---- validate ---- */

int fl_cmd_validate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_validate_opts vo = {.replicas = 1000, .seed = 1, .only = NULL, .quiet = 0, .jobs = fl_sim_cores()};
  int failed = 0;

  for (int i = 1; i < argc; i++) {
    const char *v;
    double x;
    if ((v = fl_args_value(argc, argv, &i, "--replicas"))) {
      if (fl_units_number(v, 1, &x) != FL_OK || x < 2 || x > 1e7)
        return fl_usage_error("validate", "--replicas '%s': expected a whole number >= 2", v);
      vo.replicas = (long)x;
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      if (fl_units_u64(v, &vo.seed) != FL_OK)
        return fl_usage_error("validate", "--seed '%s': expected a whole number from 0 to 2^64 - 1", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs")) || (v = fl_args_value(argc, argv, &i, "-j"))) {
      long j;
      if (fl_args_count("--jobs", v, 1, 1024, &j) != FL_OK)
        return fl_usage_error("validate", "%s", fl_err_msg());
      vo.jobs = (int)j;
    } else if ((v = fl_args_value(argc, argv, &i, "--only"))) {
      char names[1024], msg[1200];
      if (!fl_validate_matches(v, names, sizeof names)) {
        snprintf(msg, sizeof msg, "--only '%.100s' names no check (checks: %s)", v, names);
        return fl_usage_error("validate", "%s", msg);
      }
      vo.only = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      vo.quiet = 1;
    } else {
      return fl_usage_error("validate", "unknown argument '%s'", argv[i]);
    }
  }
  FL_TRY(fl_validate_run(&vo, stdout, &failed, NULL, 0, NULL));
done:
  if (rc != FL_OK)
    return fl_report_error(rc);
  return failed ? 1 : 0;
}
