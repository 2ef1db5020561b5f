/* report.c — faultline report and export: what a results database holds, as tables, plots, HTML, traces; and as CSV,
 * JSON, Parquet-ready files. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "report.h"

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

/* ---- report ---- */

int fl_cmd_report(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_report_opts ro = {0};
  fl_plot_opts po = {0};
  const char *path = NULL;
  long timeline = 0;
  const char *html = NULL, *baseline = NULL, *trace = NULL;
  int bars = 0;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--scenario")))
      ro.scenario = po.scenario = v;
    else if ((v = fl_args_value(argc, argv, &i, "--plot")))
      po.file = v;
    else if ((v = fl_args_value(argc, argv, &i, "--x")))
      po.x = v;
    else if ((v = fl_args_value(argc, argv, &i, "--timeline"))) {
      long id;
      if (fl_args_count("--timeline", v, 1, LONG_MAX, &id) != FL_OK)
        return fl_usage_error("report", "%s", fl_err_msg());
      timeline = id;
    } else if ((v = fl_args_value(argc, argv, &i, "--y")))
      po.y = v;
    else if ((v = fl_args_value(argc, argv, &i, "--html")))
      html = v;
    else if ((v = fl_args_value(argc, argv, &i, "--trace")))
      trace = v;
    else if ((v = fl_args_value(argc, argv, &i, "--where")))
      ro.where = v;
    else if ((v = fl_args_value(argc, argv, &i, "--baseline")))
      baseline = v;
    else if (strcmp(argv[i], "--bars") == 0)
      bars = 1;
    else if ((v = fl_args_value(argc, argv, &i, "--format")) || strcmp(argv[i], "--csv") == 0) {
      const fl_report_format *f = fl_report_format_find(v ? v : "csv"); /* --csv: --format csv */
      char names[256], msg[512];
      if (!f) {
        snprintf(msg, sizeof msg, "--format '%s': expected %s", v, fl_report_format_names(names, sizeof names));
        return fl_usage_error("report", "%s", msg);
      }
      if (ro.format && ro.format != f) {
        snprintf(msg, sizeof msg, "two formats asked for ('%s', then '%s'): give one", ro.format->name, f->name);
        return fl_usage_error("report", "%s", msg);
      }
      ro.format = f;
    } else if (argv[i][0] == '-')
      return fl_usage_error("report", "unknown option or missing value '%s'", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return fl_usage_error("report", "one database at a time ('%s' is extra)", argv[i]);
  }
  if (!path)
    return fl_usage_error("report", "%s", "no database given");
  if (access(path, F_OK) != 0)
    return fl_report_error(fl_err_set(FL_ERR_INPUT, "%s: no such results database", path));
  if ((po.x || po.y) && !po.file)
    return fl_usage_error("report", "%s", "--x and --y go with --plot FILE");
  if (baseline && (html || po.file || timeline))
    return fl_usage_error("report", "%s", "--baseline prints a comparison: not with --plot, --timeline or --html");
  if (baseline && ro.format && ro.format->compare < 0) {
    char msg[512];
    snprintf(msg, sizeof msg, "--baseline: the %s format writes no comparison; %s", ro.format->name,
             fl_report_format_comparers());
    return fl_usage_error("report", "%s", msg);
  }
  if (html && (po.file || po.x || po.y || trace))
    return fl_usage_error("report", "%s",
                          "--html FILE stands alone (its page draws the plots itself; --timeline RUN_ID picks its "
                          "timeline's run)");
  if (trace && (!timeline || po.file || html || baseline || bars))
    return fl_usage_error("report", "%s", "--trace FILE goes with --timeline RUN_ID (and no --plot, --html)");
  if (timeline && !trace && !html && (!po.file || po.x || po.y))
    return fl_usage_error("report", "%s", "--timeline RUN_ID goes with --plot FILE (and no --x, --y) or --trace FILE");
  if (bars && (!po.file || po.x || timeline))
    return fl_usage_error("report", "%s", "--bars goes with --plot FILE (and no --x: the bars are the configurations)");
  if (po.file && !po.x && !timeline && !bars)
    return fl_usage_error("report", "%s",
                          "--plot needs --x KEY (the scenario key on the horizontal axis) or --timeline RUN_ID");
  if ((po.file && fl_args_output("--plot", po.file) != FL_OK) || (html && fl_args_output("--html", html) != FL_OK) ||
      (trace && fl_args_output("--trace", trace) != FL_OK))
    return fl_report_error(FL_ERR_INPUT);
  FL_TRY(fl_db_open_readonly(path, &db));
  if (html) {
    FL_TRY(fl_report_html(fl_db_sqlite(db), path, ro.scenario, timeline, html));
    fprintf(stderr, "faultline: %s: the report, its plots inline (open it in a browser)\n", html);
  } else if (timeline) {
    fl_db *mem = NULL;
    rc = fl_rerun_timeline(fl_db_sqlite(db), path, timeline, &mem);
    if (rc == FL_OK && trace)
      rc = fl_trace_export(fl_db_sqlite(mem ? mem : db), timeline, trace);
    else if (rc == FL_OK)
      rc = fl_plot_timeline(fl_db_sqlite(mem ? mem : db), timeline, po.file);
    fl_db_close(&mem);
    FL_TRY(rc);
    fprintf(stderr, "faultline: %s: the timeline of run %ld\n", trace ? trace : po.file, timeline);
  } else if (baseline) {
    fl_compare_opts co = {baseline, ro.scenario, ro.where,
                          ro.format ? (fl_compare_format)ro.format->compare : FL_COMPARE_TABLE};
    FL_TRY(fl_compare_print(fl_db_sqlite(db), path, &co, stdout));
  } else if (bars) {
    FL_TRY(fl_plot_bars(fl_db_sqlite(db), &po));
    fprintf(stderr, "faultline: %s: %s by configuration\n", po.file, po.y ? po.y : "waste");
  } else if (po.file) {
    FL_TRY(fl_plot(fl_db_sqlite(db), &po));
    fprintf(stderr, "faultline: %s: %s against %s\n", po.file, po.y ? po.y : "waste", po.x);
  } else {
    FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
  }
done:
  fl_db_close(&db);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}

/* ---- export ---- */

int fl_cmd_export(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_export_opts eo = {FL_EXPORT_CSV, NULL, 0};
  const char *path = NULL, *file = NULL, *format = NULL;
  char tmp[4200] = "";
  FILE *f = stdout;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--format"))) {
      if (format)
        return fl_usage_error("export", "--format given twice (then '%s')", v);
      format = v;
      if (strcmp(v, "json") == 0)
        eo.format = FL_EXPORT_JSON;
      else if (strcmp(v, "csv") != 0)
        return fl_usage_error("export", "--format '%s': expected csv or json", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--where")))
      eo.where = v;
    else if ((v = fl_args_value(argc, argv, &i, "-o")))
      file = v;
    else if (strcmp(argv[i], "--all-columns") == 0)
      eo.all_columns = 1;
    else if (argv[i][0] == '-')
      return fl_usage_error("export", "unknown option or missing value '%s'", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return fl_usage_error("export", "one database at a time ('%s' is extra)", argv[i]);
  }
  if (!path)
    return fl_usage_error("export", "%s", "no database given");
  if (access(path, F_OK) != 0)
    return fl_report_error(fl_err_set(FL_ERR_INPUT, "%s: no such results database", path));
  if (file && fl_args_output("-o", file) != FL_OK)
    return fl_report_error(FL_ERR_INPUT);
  FL_TRY(fl_db_open_readonly(path, &db));
  if (file) {
    /* written beside, renamed when complete: a failed export leaves no half file */
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", file, (long)getpid());
    FL_TRY(fl_cleanup_add(tmp));
    FL_CHECK((f = fopen(tmp, "w")) != NULL, FL_ERR_IO, "%s: %s", tmp, strerror(errno));
  }
  FL_TRY(fl_export(fl_db_sqlite(db), path, &eo, f));
  if (file) {
    int closed = fclose(f);
    f = stdout;
    FL_CHECK(closed == 0, FL_ERR_IO, "%s: %s", tmp, strerror(errno));
    FL_CHECK(rename(tmp, file) == 0, FL_ERR_IO, "%s: %s", file, strerror(errno));
    fl_cleanup_remove(tmp);
    tmp[0] = '\0';
  }
done:
  if (f != stdout)
    fclose(f);
  if (tmp[0])
    fl_cleanup_remove(tmp); /* unlinks it */
  fl_db_close(&db);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}
