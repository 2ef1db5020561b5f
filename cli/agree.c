/* agree.c — `faultline calibrate` and `faultline agree`: their command lines; the work is the library's
 * (analysis/agree.h). */
#include "agree.h"

#include "args.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static int fl_agree_parse(const char *cmd, int argc, char **argv, fl_agree_opts *a)
{
  memset(a, 0, sizeof *a);
  a->failures = 4;
  a->repeat = 1;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--np") == 0 && v) {
      if (fl_args_count("--np", v, 2, 1024, &a->np) != FL_OK)
        return fl_usage_error(cmd, "%s", fl_err_msg());
      i++;
    } else if (strcmp(argv[i], "--failures") == 0 && v && strcmp(cmd, "agree") == 0) {
      if (fl_args_count("--failures", v, 1, FL_AGREE_MAX_FAILURES, &a->failures) != FL_OK)
        return fl_usage_error(cmd, "%s", fl_err_msg());
      i++;
    } else if (strcmp(argv[i], "--repeat") == 0 && v && strcmp(cmd, "agree") == 0) {
      if (fl_args_count("--repeat", v, 1, 256, &a->repeat) != FL_OK)
        return fl_usage_error(cmd, "%s", fl_err_msg());
      i++;
    } else if (strcmp(argv[i], "--set") == 0 && v) {
      if (a->nsets >= FL_AGREE_MAX_SETS)
        return fl_usage_error(cmd, "at most %s --set", "64");
      a->sets[a->nsets++] = argv[++i];
    } else if (strcmp(argv[i], "--out") == 0 && v && strcmp(cmd, "calibrate") == 0) {
      a->out = argv[++i];
    } else if (strcmp(argv[i], "--db") == 0 && v && strcmp(cmd, "agree") == 0) {
      a->db = argv[++i];
    } else if (strcmp(argv[i], "--strategies") == 0 && v && strcmp(cmd, "agree") == 0) {
      a->strategies = argv[++i];
    } else if (strcmp(argv[i], "--launcher") == 0 && v) {
      a->launcher = argv[++i];
      if (strcmp(a->launcher, "local") != 0 && strcmp(a->launcher, "mpirun") != 0 && strcmp(a->launcher, "slurm") != 0)
        return fl_usage_error(cmd, "--launcher '%s': local, mpirun or slurm", a->launcher);
    } else if (strcmp(argv[i], "--hostfile") == 0 && v) {
      a->hostfile = argv[++i];
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      a->quiet = 1;
    } else if (argv[i][0] == '-') {
      return fl_usage_error(cmd, "unknown option or missing value '%s'", argv[i]);
    } else if (!a->path) {
      a->path = argv[i];
    } else {
      return fl_usage_error(cmd, "one scenario at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!a->path || a->np < 2)
    return fl_usage_error(cmd, "%s", "give a scenario and --np N (N >= 2)");
  if (strcmp(cmd, "agree") == 0 && a->failures > a->np) {
    /* before minutes of calibration: each failure kills a distinct rank */
    char msg[96];
    snprintf(msg, sizeof msg, "--failures %ld: at most one per rank (--np %ld)", a->failures, a->np);
    return fl_usage_error(cmd, "%s", msg);
  }
  if (a->out && fl_args_output("--out", a->out) != FL_OK)
    return fl_report_error(FL_ERR_INPUT); /* before minutes of measurement */
  if (fl_self_exe(a->exe, sizeof a->exe) != FL_OK)
    return fl_report_error(FL_ERR_IO);
  return 0;
}

int fl_cmd_calibrate(int argc, char **argv)
{
  fl_agree_opts a;
  int code = fl_agree_parse("calibrate", argc, argv, &a);
  fl_err rc;
  if (code)
    return code;
  rc = fl_calibrate_run(&a);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}

int fl_cmd_agree(int argc, char **argv)
{
  fl_agree_opts a;
  int within = 0, code = fl_agree_parse("agree", argc, argv, &a);
  fl_err rc;
  if (code)
    return code;
  rc = fl_agree_run(&a, &within);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return within ? 0 : 1;
}
