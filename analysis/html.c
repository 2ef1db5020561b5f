/* html.c — see html.h. The table is report.c's text output (escaped, in <pre>); the figures are gnuplot's SVG
 * (plot.c) read back and put inline, so the page carries everything it shows. */
#include "html.h"

#include "cleanup.h"
#include "plot.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void fl_html_text(FILE *f, const char *s, size_t n)
{
  for (size_t i = 0; i < n && s[i]; i++) {
    switch (s[i]) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(s[i], f);
    }
  }
}

/* Put the SVG document at `path` inline (from its <svg element on: the XML prologue stays out). */
static fl_err fl_html_svg(FILE *f, const char *path)
{
  FILE *in = fopen(path, "r");
  char *text = NULL, *svg;
  long n;
  if (!in)
    return fl_err_set(FL_ERR_IO, "%s: %s", path, strerror(errno));
  if (fseek(in, 0, SEEK_END) != 0 || (n = ftell(in)) < 0 || fseek(in, 0, SEEK_SET) != 0 ||
      !(text = calloc((size_t)n + 1, 1)) || fread(text, 1, (size_t)n, in) != (size_t)n) {
    fclose(in);
    free(text);
    return fl_err_set(FL_ERR_IO, "%s: cannot read", path);
  }
  fclose(in);
  svg = strstr(text, "<svg");
  if (svg)
    fputs(svg, f);
  free(text);
  return svg ? FL_OK : fl_err_set(FL_ERR_IO, "%s: not an SVG document", path);
}

fl_err fl_report_html(sqlite3 *db, const char *db_label, const char *scenario, const char *file)
{
  fl_err rc = FL_OK;
  char tmp[4096] = "", out_tmp[4200], keys[2048], path[4200], when[64];
  char *table = NULL;
  size_t table_len = 0;
  FILE *f = NULL, *mem = NULL;
  int figures = 0;
  time_t now = time(NULL);
  struct tm tm;

  {
    const char *dot = strrchr(file, '.');
    FL_CHECK(dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0), FL_ERR_INPUT,
             "--html %s: the file must end in .html", file);
  }
  /* the table, as `faultline report` prints it */
  FL_CHECK((mem = open_memstream(&table, &table_len)), FL_ERR_NOMEM, "out of memory");
  {
    fl_report_opts ro = {.scenario = scenario};
    FL_TRY(fl_report_print(db, &ro, mem));
  }
  {
    int closed = fclose(mem);
    mem = NULL;
    FL_CHECK(closed == 0, FL_ERR_NOMEM, "out of memory");
  }
  FL_TRY(fl_plot_varying_keys(db, scenario, keys, sizeof keys));
  {
    const char *t = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/faultline-html-XXXXXX", t && *t ? t : "/tmp");
    FL_CHECK(mkdtemp(tmp), FL_ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
  }
  snprintf(out_tmp, sizeof out_tmp, "%s.tmp-%ld", file, (long)getpid());
  FL_CHECK((f = fopen(out_tmp, "w")), FL_ERR_IO, "%s: %s", out_tmp, strerror(errno));
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>faultline report: ", f);
  fl_html_text(f, db_label, strlen(db_label));
  fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;max-width:1200px}\n"
        "pre{font-size:12px;overflow-x:auto;background:#f6f6f6;padding:1em}\n"
        "figure{margin:2em 0}\nfigure svg{width:100%;height:auto;max-width:1000px}\n"
        "figcaption{color:#555}\n</style>\n</head>\n<body>\n<h1>faultline report</h1>\n<p>",
        f);
  fl_html_text(f, db_label, strlen(db_label));
  fprintf(f, "%s%s, written %s. Mean and 95 %% confidence interval over the completed replicas of each group.</p>\n",
          scenario ? ", scenario " : "", scenario ? scenario : "", when);
  fputs("<h2>Summary</h2>\n<pre id=\"table\">", f);
  fl_html_text(f, table, table_len);
  fputs("</pre>\n", f);

  /* a figure per key that varies: waste against it, a line per strategy */
  if (keys[0]) {
    char *save = NULL, *key, list[2048];
    snprintf(list, sizeof list, "%s", keys);
    fputs("<h2>Waste against what varies</h2>\n", f);
    for (key = strtok_r(list, ", ", &save); key; key = strtok_r(NULL, ", ", &save)) {
      fl_plot_opts po = {.x = key, .y = "waste", .scenario = scenario};
      snprintf(path, sizeof path, "%s/plot-%d.svg", tmp, figures);
      po.file = path;
      FL_TRY(fl_plot(db, &po));
      fputs("<figure class=\"plot\">\n", f);
      FL_TRY(fl_html_svg(f, path));
      fputs("\n<figcaption>Waste (1 &minus; work / makespan) against ", f);
      fl_html_text(f, key, strlen(key));
      fputs(", one line per strategy, shaded: 95 % CI.</figcaption>\n</figure>\n", f);
      figures++;
    }
  }
  /* the first run that logged its events */
  {
    sqlite3_stmt *st = NULL;
    long long run = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT MIN(e.run_id) FROM events e JOIN runs r ON r.id = e.run_id "
                           "WHERE ?1 IS NULL OR r.scenario = ?1",
                           -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
      if (sqlite3_step(st) == SQLITE_ROW)
        run = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (run > 0) {
      snprintf(path, sizeof path, "%s/timeline.svg", tmp);
      FL_TRY(fl_plot_timeline(db, run, path));
      fprintf(f, "<h2>Run %lld, event by event</h2>\n<figure class=\"plot\">\n", run);
      FL_TRY(fl_html_svg(f, path));
      fputs("\n<figcaption>Failures, repairs, checkpoints, interruptions and restarts of one run.</figcaption>\n"
            "</figure>\n",
            f);
      figures++;
    }
  }
  if (!figures)
    fputs("<p>No scenario key varies between these rows and no run logged its events: nothing to draw.</p>\n", f);
  fputs("</body>\n</html>\n", f);
  {
    int closed = fclose(f);
    f = NULL;
    FL_CHECK(closed == 0, FL_ERR_IO, "%s: %s", out_tmp, strerror(errno));
  }
  FL_CHECK(rename(out_tmp, file) == 0, FL_ERR_IO, "%s: %s", file, strerror(errno));
done:
  if (mem)
    fclose(mem);
  if (f) {
    fclose(f);
    unlink(out_tmp);
  } else if (rc != FL_OK) {
    unlink(out_tmp);
  }
  free(table);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}
