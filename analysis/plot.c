/* plot.c — see plot.h. The rows are read once; each distinct (scenario text, overrides) is replayed once through
 * the scenario parser, which gives the value of the --x key (and of every numeric key, to say which vary). Series
 * are (mode, strategy, the overrides other than the x key and run.*); points are their x values, with the mean and
 * 95 % CI of y over the completed replicas (stats.h). gnuplot reads a data file and a script from a temporary
 * directory and writes the figure under a temporary name, renamed into place when it succeeded. */
#include "plot.h"

#include "cleanup.h"
#include "columns.h"
#include "db.h"
#include "rowset.h"
#include "scenario.h"
#include "stats.h"
#include "summary.h"
#include "trace.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fl_pt {
  char *series;
  double x, y;
} fl_pt;

typedef struct fl_scen_cache {
  char *text, *overrides;
  fl_scenario *sc;
} fl_scen_cache;

static int fl_pt_cmp(const void *a, const void *b)
{
  const fl_pt *p = a, *q = b;
  int c = strcmp(p->series, q->series);
  if (c)
    return c;
  return (p->x > q->x) - (p->x < q->x);
}

/* The series label: mode and strategy, then the overrides that are neither the x key nor run.* (one per line). */
static char *fl_series_label(const char *mode, const char *strategy, const char *overrides, const char *xkey)
{
  size_t cap = strlen(strategy) + strlen(overrides) + 32, len;
  char *s = malloc(cap), *copy = strdup(overrides), *save = NULL, *line;
  if (!s || !copy) {
    free(s);
    free(copy);
    return NULL;
  }
  int n = 0;
  len = (size_t)snprintf(s, cap, "%s%s", strategy, strcmp(mode, "real") == 0 ? " real" : "");
  for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    size_t kl = strcspn(line, "=");
    if (strncmp(line, "run.", 4) == 0 || strncmp(line, "strategy.kind=", 14) == 0 ||
        (strlen(xkey) == kl && strncmp(line, xkey, kl) == 0))
      continue;
    if (strncmp(line, "strategy.", 9) == 0)
      line += 9; /* the strategy's own keys, said after its name */
    len += (size_t)snprintf(s + len, cap - len, "%s%s", n++ ? ", " : " (", line);
  }
  if (n)
    snprintf(s + len, cap - len, ")");
  free(copy);
  return s;
}

/* The keys (numeric, not run.*) whose values differ between the scenarios, comma-separated into buf. */
static void fl_varying_keys(fl_scen_cache *cache, size_t n, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int k = 0; k < fl_scenario_key_count(); k++) {
    const fl_scenario_keyinfo *ki = fl_scenario_key_at(k);
    char name[96];
    double v;
    int varies = 0;
    snprintf(name, sizeof name, "%s.%s", ki->section, ki->key);
    if (strcmp(ki->section, "run") == 0)
      continue;
    /* it varies when it takes two values under one strategy: a key swept together with the strategy (each
     * strategy its own checkpoint cost) only says which strategy it is, and is no axis */
    const char *strat[64];
    double firstv[64];
    int ns = 0;
    for (size_t i = 0; i < n && !varies; i++) {
      int at = -1;
      if (!fl_scenario_number(cache[i].sc, name, &v))
        continue;
      for (int j = 0; j < ns && at < 0; j++)
        if (strcmp(strat[j], cache[i].sc->strategy) == 0)
          at = j;
      if (at >= 0)
        varies = firstv[at] != v;
      else if (ns < 64) {
        strat[ns] = cache[i].sc->strategy;
        firstv[ns++] = v;
      }
    }
    if (varies)
      snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ", " : "", name);
  }
}

static const char *fl_terminal(const char *file)
{
  const char *dot = strrchr(file, '.');
  if (!dot)
    return NULL;
  if (strcmp(dot, ".svg") == 0)
    return "svg size 900,560 dynamic noenhanced font 'sans,12' background rgb 'white'";
  if (strcmp(dot, ".png") == 0)
    return "pngcairo size 1100,680 noenhanced font 'sans,12'";
  if (strcmp(dot, ".pdf") == 0)
    return "pdfcairo size 9in,5.6in noenhanced font 'sans,10'";
  return NULL;
}

/* The unit that suits a duration axis whose largest value is xmax: scale (seconds per unit) and its name. */
static double fl_duration_unit(double xmax, const char **unit)
{
  static const struct {
    double s;
    const char *name;
  } units[] = {{FL_SECONDS_PER_YEAR, "years"}, {86400.0, "days"}, {3600.0, "hours"}, {60.0, "minutes"}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (xmax >= 2.0 * units[i].s) {
      *unit = units[i].name;
      return units[i].s;
    }
  *unit = "seconds";
  return 1.0;
}

/* A duration, size or bandwidth key is drawn in the unit that suits its largest value: scale (base units per unit)
 * and the unit's name. */
static double fl_x_unit(const char *key, double xmax, const char **unit)
{
  const char *type = "";
  *unit = NULL;
  for (int k = 0; k < fl_scenario_key_count(); k++) {
    const fl_scenario_keyinfo *ki = fl_scenario_key_at(k);
    size_t ls = strlen(ki->section);
    if (strncmp(key, ki->section, ls) == 0 && key[ls] == '.' && strcmp(key + ls + 1, ki->key) == 0)
      type = ki->type;
  }
  if (strncmp(type, "duration", 8) == 0)
    return fl_duration_unit(xmax, unit);
  if (strcmp(type, "bandwidth") == 0 || strcmp(type, "size") == 0) {
    int bw = type[0] == 'b';
    double s = xmax >= 2e12 ? 1e12 : xmax >= 2e9 ? 1e9 : xmax >= 2e6 ? 1e6 : 1.0;
    *unit = s == 1e12  ? (bw ? "TB/s" : "TB")
            : s == 1e9 ? (bw ? "GB/s" : "GB")
            : s == 1e6 ? (bw ? "MB/s" : "MB")
                       : (bw ? "B/s" : "B");
    return s;
  }
  return 1.0;
}

static double xscale_of(const char *key, double xmax)
{
  const char *unit;
  return fl_x_unit(key, xmax, &unit);
}

/* gnuplot's quoted string: backslashes and double quotes escaped. */
static void fl_gp_quote(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

/* Open gnuplot's script and start it: the terminal, and the output drawn beside `file` (out_tmp) until gnuplot is
 * done, so the file appears complete or not at all. */
static fl_err fl_gp_script(const char *script, const char *term, const char *file, char *out_tmp, size_t size, FILE **f)
{
  snprintf(out_tmp, size, "%s.tmp-%ld", file, (long)getpid());
  if (!(*f = fopen(script, "w")))
    return fl_err_set(FL_ERR_IO, "%s: %s", script, strerror(errno));
  fprintf(*f, "set terminal %s\nset output ", term);
  fl_gp_quote(*f, out_tmp);
  return FL_OK;
}

/* Run gnuplot on `script` (its stderr into DIR/err), then move what it drew (out_tmp) to `file`. */
static fl_err fl_gnuplot(const char *script, const char *dir, const char *out_tmp, const char *file)
{
  char err[4200];
  int st = 0;
  pid_t pid;
  snprintf(err, sizeof err, "%s/err", dir);
  fflush(NULL);
  pid = fork();
  if (pid < 0)
    return fl_err_set(FL_ERR_IO, "cannot run gnuplot: %s", strerror(errno));
  if (pid == 0) {
    int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
    if (fd >= 0)
      dup2(fd, 2);
    if (null >= 0)
      dup2(null, 1);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    unlink(out_tmp);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
      return fl_err_set(FL_ERR_IO, "gnuplot not found: install it (scripts/setup.sh installs gnuplot-nox)");
    return fl_err_set(FL_ERR_IO, "gnuplot failed to draw %s (status %d)", file, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  }
  if (rename(out_tmp, file) != 0) {
    fl_err rc = fl_err_set(FL_ERR_IO, "%s: %s", file, strerror(errno));
    unlink(out_tmp);
    return rc;
  }
  return FL_OK;
}

/* Close the script being written (*f, set to NULL) and run it (fl_gnuplot). */
static fl_err fl_gnuplot_close(FILE **f, const char *script, const char *dir, const char *out_tmp, const char *file)
{
  int bad = fclose(*f) != 0;
  *f = NULL;
  if (bad)
    return fl_err_set(FL_ERR_IO, "%s: %s", script, strerror(errno));
  return fl_gnuplot(script, dir, out_tmp, file);
}

/* A temporary directory for gnuplot's files (tmp: PATH_MAX). */
static fl_err fl_plot_tmpdir(char *tmp, size_t size)
{
  const char *t = getenv("TMPDIR");
  snprintf(tmp, size, "%s/faultline-plot-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(tmp)) {
    tmp[0] = '\0';
    return fl_err_set(FL_ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
  }
  return FL_OK;
}

/* The points' data file: one block per series ("x mean lo hi": the mean over the runs at x and its 95 % interval),
 * blank lines between; vals: scratch of npts. */
static fl_err fl_plot_write_data(const char *data, const fl_pt *pts, size_t npts, double *vals)
{
  fl_err rc = FL_OK;
  FILE *f = NULL;
  FL_CHECK((f = fopen(data, "w")), FL_ERR_IO, "%s: %s", data, strerror(errno));
  for (size_t i = 0; i < npts;) {
    size_t j = i;
    if (i > 0)
      fprintf(f, "\n\n");
    while (j < npts && strcmp(pts[j].series, pts[i].series) == 0) {
      size_t k = j, n = 0;
      double mean, half;
      while (k < npts && strcmp(pts[k].series, pts[i].series) == 0 && pts[k].x == pts[j].x)
        vals[n++] = pts[k++].y;
      fl_stats_ci(vals, n, 0.95, &mean, &half);
      if (!isfinite(half))
        half = 0.0;
      fprintf(f, "%.17g %.17g %.17g %.17g\n", pts[j].x, mean, mean - half, mean + half);
      j = k;
    }
    i = j;
  }
  {
    int closed = fclose(f);
    f = NULL;
    FL_CHECK(closed == 0, FL_ERR_IO, "%s: %s", data, strerror(errno));
  }
done:
  if (f)
    fclose(f);
  return rc;
}

/* The script's title, axes and scales: x in the unit its largest value reads best in, on a log scale with a tic per
 * value when it spans a decade or more; y from 0 for shares and counts. vals: scratch of npts. */
static void fl_plot_axes(FILE *f, const fl_plot_opts *opt, const char *y, const char *yunit, const char *title,
                         double xmin, double xmax, const fl_pt *pts, size_t npts, double *vals)
{
  fprintf(f, "\nset title ");
  {
    char t[1024];
    snprintf(t, sizeof t, "%s: %s against %s (mean, 95%% CI)", title, y, opt->x);
    fl_gp_quote(f, t);
  }
  fprintf(f, "\nset xlabel ");
  {
    const char *unit;
    double scale = fl_x_unit(opt->x, xmax, &unit);
    char xl[256];
    snprintf(xl, sizeof xl, "%s%s%s%s", opt->x, unit ? " (" : "", unit ? unit : "", unit ? ")" : "");
    fl_gp_quote(f, xl);
    fprintf(f, "\nxscale = %.17g\nset xrange [%.17g:%.17g]", scale, xmin / scale, xmax / scale);
  }
  fprintf(f, "\nset ylabel ");
  {
    char yl[160];
    if (strcmp(y, "waste") == 0)
      snprintf(yl, sizeof yl, "waste (%% of the makespan)");
    else if (strcmp(y, "makespan") == 0)
      snprintf(yl, sizeof yl, "makespan (s)");
    else
      snprintf(yl, sizeof yl, "%s%s%s%s", y, yunit && yunit[0] ? " (" : "", yunit ? yunit : "",
               yunit && yunit[0] ? ")" : "");
    fl_gp_quote(f, yl);
  }
  fprintf(f, "\nset grid\nset key below\nset style fill transparent solid 0.2 noborder\n");
  if (strcmp(y, "waste") == 0 || strcmp(y, "failures") == 0 || strcmp(y, "interruptions") == 0)
    fprintf(f, "set yrange [0:*]\n"); /* counts and shares: a CI band does not go below zero */
  if (xmin > 0 && xmax / xmin >= 10) {
    /* log x: a tic at each value drawn (a handful in a sweep), else gnuplot's decades */
    size_t distinct = 0;
    for (size_t i = 0; i < npts; i++)
      distinct += i == 0 || pts[i].x != pts[i - 1].x || strcmp(pts[i].series, pts[i - 1].series) != 0;
    fprintf(f, "set logscale x\n");
    if (distinct <= 40) {
      double *xs = vals; /* scratch: the sorted distinct x of the first series is enough for tics */
      size_t nx = 0;
      for (size_t i = 0; i < npts && strcmp(pts[i].series, pts[0].series) == 0; i++)
        if (nx == 0 || pts[i].x != xs[nx - 1])
          xs[nx++] = pts[i].x;
      fprintf(f, "set xtics (");
      for (size_t i = 0; i < nx; i++)
        fprintf(f, "%s%.6g", i ? ", " : "", xs[i] / xscale_of(opt->x, xmax));
      fprintf(f, ")\n");
    }
  }
}

fl_err fl_plot(sqlite3 *db, const fl_plot_opts *opt)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  fl_pt *pts = NULL;
  fl_scen_cache *cache = NULL;
  size_t npts = 0, cap = 0, ncache = 0, capc = 0;
  const char *y = opt->y ? opt->y : "waste", *term = fl_terminal(opt->file), *yexpr = NULL, *yunit = NULL;
  char tmp[4096] = "", data[4200], script[4200], out_tmp[4200], varying[2048], title[512];
  double *vals = NULL, xmin = INFINITY, xmax = -INFINITY;
  int x_varies = 0;
  FILE *f = NULL;

  FL_CHECK(term, FL_ERR_INPUT, "--plot %s: the file must end in .svg, .png or .pdf", opt->file);
  {
    /* y: waste (in %), makespan, or any numeric results column (faultline columns) or derived figure */
    const fl_column *col = fl_run_column_named(y);
    if (strcmp(y, "waste") == 0)
      yexpr = "CASE WHEN makespan_s > 0 THEN 100.0 * (1.0 - work_s / makespan_s) END";
    else if (strcmp(y, "makespan") == 0)
      yexpr = "makespan_s";
    else if ((!col || fl_column_numeric(col)) && (yexpr = fl_rowset_figure_sql(db, y)) != NULL)
      yunit = col ? col->unit : strstr(y, "node_hours") ? "node-h" : "";
    FL_CHECK(yexpr != NULL, FL_ERR_INPUT,
             "--y %s: expected waste, makespan, or a numeric results column (faultline columns lists them; also "
             "node_hours, resilience)",
             y);
  }
  {
    char *q = sqlite3_mprintf("SELECT %s AS fl_text, COALESCE(overrides, ''), mode, strategy, makespan_s, work_s, "
                              "failures, interruptions, scenario, %s FROM runs WHERE status = 'completed' "
                              "AND (?1 IS NULL OR scenario = ?1) ORDER BY fl_text, overrides",
                              fl_db_text_sql(db), yexpr);
    int ok = q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(q);
    FL_CHECK(ok, FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  }
  sqlite3_bind_text(st, 1, opt->scenario, -1, SQLITE_STATIC);
  title[0] = '\0';
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(st, 0), *ov = (const char *)sqlite3_column_text(st, 1);
    const char *mode = (const char *)sqlite3_column_text(st, 2), *strategy = (const char *)sqlite3_column_text(st, 3);
    double makespan = sqlite3_column_double(st, 4), work = sqlite3_column_double(st, 5), x, v;
    fl_scen_cache *c = ncache ? &cache[ncache - 1] : NULL;
    if (!title[0])
      snprintf(title, sizeof title, "%s", (const char *)sqlite3_column_text(st, 8));
    else if (strcmp(title, (const char *)sqlite3_column_text(st, 8)) != 0)
      snprintf(title, sizeof title, "several scenarios");
    if (!c || strcmp(c->text, text) != 0 || strcmp(c->overrides, ov) != 0) {
      if (ncache == capc) {
        fl_scen_cache *g = realloc(cache, (capc = capc ? 2 * capc : 16) * sizeof *g);
        FL_CHECK(g, FL_ERR_NOMEM, "out of memory");
        cache = g;
      }
      c = &cache[ncache];
      memset(c, 0, sizeof *c);
      c->text = strdup(text);
      c->overrides = strdup(ov);
      FL_CHECK(c->text && c->overrides, FL_ERR_NOMEM, "out of memory");
      ncache++;
      FL_TRY(fl_scenario_replay(text, ov, NULL, &c->sc));
    }
    if (!fl_scenario_number(c->sc, opt->x, &x))
      continue;
    (void)makespan;
    (void)work;
    v = sqlite3_column_type(st, 9) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 9);
    if (!isfinite(v))
      continue;
    if (npts == cap) {
      fl_pt *g = realloc(pts, (cap = cap ? 2 * cap : 256) * sizeof *g);
      FL_CHECK(g, FL_ERR_NOMEM, "out of memory");
      pts = g;
    }
    pts[npts].series = fl_series_label(mode, strategy, ov, opt->x);
    FL_CHECK(pts[npts].series, FL_ERR_NOMEM, "out of memory");
    pts[npts].x = x;
    pts[npts++].y = v;
    xmin = fmin(xmin, x);
    xmax = fmax(xmax, x);
  }
  FL_CHECK(ncache > 0, FL_ERR_INPUT, "no completed run%s%s to plot", opt->scenario ? " of scenario " : "",
           opt->scenario ? opt->scenario : "");
  x_varies = npts > 0 && xmin < xmax;
  if (!x_varies) {
    fl_varying_keys(cache, ncache, varying, sizeof varying);
    rc = fl_err_set(FL_ERR_INPUT, "--x %s: %s in these rows; keys that vary: %s", opt->x,
                    npts ? "does not vary" : "is not a numeric scenario key", varying[0] ? varying : "none");
    goto done;
  }
  qsort(pts, npts, sizeof *pts, fl_pt_cmp);

  /* data: one block per series ("x mean lo hi"), blank lines between */
  FL_TRY(fl_plot_tmpdir(tmp, sizeof tmp));
  snprintf(data, sizeof data, "%s/data", tmp);
  snprintf(script, sizeof script, "%s/plot.gp", tmp);
  FL_ALLOC(vals, npts);
  FL_TRY(fl_plot_write_data(data, pts, npts, vals));

  FL_TRY(fl_gp_script(script, term, opt->file, out_tmp, sizeof out_tmp, &f));
  fl_plot_axes(f, opt, y, yunit, title, xmin, xmax, pts, npts, vals);
  fprintf(f, "plot ");
  for (size_t i = 0, s = 0; i < npts; i++) {
    if (i > 0 && strcmp(pts[i].series, pts[i - 1].series) == 0)
      continue;
    fprintf(f,
            "%s'%s' index %zu using ($1/xscale):3:4 with filledcurves lc %zu notitle, '' index %zu using "
            "($1/xscale):2 with linespoints lw 2 pt 7 lc %zu title ",
            s ? ", \\\n     " : "", data, s, s + 1, s, s + 1);
    fl_gp_quote(f, pts[i].series);
    s++;
  }
  fprintf(f, "\n");
  rc = fl_gnuplot_close(&f, script, tmp, out_tmp, opt->file);
done:
  if (f)
    fclose(f);
  sqlite3_finalize(st);
  for (size_t i = 0; i < npts; i++)
    free(pts[i].series);
  free(pts);
  for (size_t i = 0; i < ncache; i++) {
    free(cache[i].text);
    free(cache[i].overrides);
    fl_scenario_destroy(&cache[i].sc);
  }
  free(cache);
  free(vals);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}

/* A statement over the events of a file of any schema: `fmt`'s %s becomes the events source (fl_db_events_sql) */
static fl_err fl_plot_events_stmt(sqlite3 *db, const char *fmt, sqlite3_stmt **st)
{
  fl_err rc = FL_OK;
  char *q = sqlite3_mprintf(fmt, fl_db_events_sql(db));
  FL_CHECK(q && sqlite3_prepare_v2(db, q, -1, st, NULL) == SQLITE_OK, FL_ERR_IO, "reading the events: %s",
           sqlite3_errmsg(db));
done:
  sqlite3_free(q);
  return rc;
}

/* A workload run's timeline: the machine's busy nodes over time (a step per job start, end or failure, from its
 * events; without events, each job from its first start to its end) and its node failures. */
static fl_err fl_plot_machine_timeline(sqlite3 *db, int64_t run_id, const char *file)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  const char *term = fl_terminal(file), *unit;
  char tmp[4096] = "", data[4200], fails[4200], script[4200], out_tmp[4200], title[512];
  double span = 0, scale, busy = 0;
  long machine = 0, nfail = 0;
  int events = 0;
  FILE *f = NULL;
  char *q = NULL;
  const char *held;
  FL_CHECK(sqlite3_prepare_v2(db,
                              "SELECT scenario, strategy, makespan_s, nodes, (SELECT MAX(end_s) FROM jobs WHERE "
                              "run_id = ?1) FROM runs WHERE id = ?1",
                              -1, &st, NULL) == SQLITE_OK,
           FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  FL_CHECK(sqlite3_step(st) == SQLITE_ROW, FL_ERR_INPUT, "--timeline %lld: no such run", (long long)run_id);
  machine = (long)sqlite3_column_int64(st, 3);
  span = sqlite3_column_double(st, 4);
  snprintf(title, sizeof title, "%s, run %lld (workload, %s): busy nodes of %ld",
           (const char *)sqlite3_column_text(st, 0), (long long)run_id, (const char *)sqlite3_column_text(st, 1),
           machine);
  sqlite3_finalize(st);
  st = NULL;
  scale = fl_duration_unit(span, &unit);
  FL_TRY(fl_plot_tmpdir(tmp, sizeof tmp));
  snprintf(data, sizeof data, "%s/busy", tmp);
  snprintf(fails, sizeof fails, "%s/failures", tmp);
  snprintf(script, sizeof script, "%s/plot.gp", tmp);
  /* the steps: +nodes at a start, -nodes at an end or a failure, in time order */
  FL_TRY(fl_plot_events_stmt(db, "SELECT COUNT(*) FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " AND kind IN ('job-start')",
                             &st));
  sqlite3_bind_int64(st, 1, run_id);
  events = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
  sqlite3_finalize(st);
  st = NULL;
  /* a job holds its nodes x its copies (a file from before replicated workloads: one); a failure it restarted from
   * in place (n = 1) leaves it holding as many */
  held = fl_db_has_column(db, "main", "jobs", "copies") ? "j.nodes * j.copies" : "j.nodes";
  q = sqlite3_mprintf(
      events ? "SELECT e.t_s, CASE WHEN e.kind = 101 THEN %s WHEN e.kind = 103 AND e.n = 1 THEN 0 ELSE -%s END "
               "FROM events e JOIN jobs j ON j.run_id = ?1 AND j.job = e.rank WHERE e.id BETWEEN ?1 * 4294967296 AND "
               "?1 * 4294967296 + 4294967295 AND e.kind IN (101, 102, 103) ORDER BY e.t_s, e.kind DESC"
             : "SELECT t, d FROM (SELECT start_s AS t, %s AS d FROM jobs j WHERE run_id = ?1 AND start_s IS "
               "NOT NULL UNION ALL SELECT end_s, -%s FROM jobs j WHERE run_id = ?1 AND end_s IS NOT NULL) "
               "ORDER BY t, d",
      held, held);
  FL_CHECK(q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK, FL_ERR_IO,
           "reading the jobs: %s (a results file from before workloads?)", sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  FL_CHECK((f = fopen(data, "w")), FL_ERR_IO, "%s: %s", data, strerror(errno));
  fprintf(f, "0 0\n");
  while (sqlite3_step(st) == SQLITE_ROW) {
    busy += sqlite3_column_double(st, 1);
    fprintf(f, "%.17g %.17g\n", sqlite3_column_double(st, 0) / scale, busy);
  }
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", data, strerror(errno));
  f = NULL;
  FL_TRY(fl_plot_events_stmt(
      db, "SELECT t_s FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " AND kind = 'failure' ORDER BY t_s", &st));
  sqlite3_bind_int64(st, 1, run_id);
  FL_CHECK((f = fopen(fails, "w")), FL_ERR_IO, "%s: %s", fails, strerror(errno));
  while (sqlite3_step(st) == SQLITE_ROW && ++nfail)
    fprintf(f, "%.17g\n", sqlite3_column_double(st, 0) / scale);
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", fails, strerror(errno));
  f = NULL;
  FL_TRY(fl_gp_script(script, term, file, out_tmp, sizeof out_tmp, &f));
  fprintf(f, "\nset title ");
  fl_gp_quote(f, title);
  fprintf(f,
          "\nset xlabel \"time (%s)\"\nset ylabel \"busy nodes\"\nset grid\nset yrange [0:%ld]\n"
          "set key below horizontal\n",
          unit, machine + machine / 10 + 1);
  if (span > 0)
    fprintf(f, "set xrange [0:%.17g]\n", span / scale);
  fprintf(f, "plot '%s' using 1:2 with steps lw 1 lc rgb '#1f77b4' title '%s'", data,
          events ? "busy nodes" : "busy nodes (no events: each job from its first start to its end)");
  if (nfail)
    fprintf(f, ", \\\n     '%s' using 1:(%ld) with points pt 11 ps 0.8 lc rgb '#d62728' title 'node failures'", fails,
            machine + machine / 20);
  fprintf(f, "\n");
  rc = fl_gnuplot_close(&f, script, tmp, out_tmp, file);
done:
  if (f)
    fclose(f);
  sqlite3_finalize(st);
  sqlite3_free(q);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}

/* The mark of an event kind on a timeline: the same colour and shape in every plot, whatever kinds the run had. */
typedef struct fl_mark {
  const char *kind, *colour;
  int pt;
} fl_mark;
static const fl_mark *fl_mark_of(const char *kind)
{
  static const fl_mark marks[] = {
      {"failure", "#e41a1c", 9},        {"down-at-start", "#e41a1c", 8}, {"repair", "#4daf4a", 7},
      {"checkpoint", "#377eb8", 5},     {"restart", "#ff7f00", 13},      {"interruption", "#a50f15", 11},
      {"rollback", "#984ea3", 4},       {"data-lost", "#000000", 3},     {"substitution", "#984ea3", 6},
      {"replication", "#1b9e77", 12},   {"stale", "#a6a6a6", 2},         {"detection", "#f781bf", 10},
      {"recovery", "#a65628", 13},      {"job-start", "#4daf4a", 5},     {"job-end", "#377eb8", 7},
      {"process-failure", "#e7298a", 9}};
  static const fl_mark other = {"", "#666666", 1};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
    if (strcmp(marks[i].kind, kind) == 0)
      return &marks[i];
  return &other;
}

/* A time axis up to `end` seconds: its unit's name, and *scale the seconds of one. */
static const char *fl_plot_time_axis(double end, double *scale)
{
  *scale = end >= 2 * 86400.0 ? 86400.0 : end >= 2 * 3600.0 ? 3600.0 : end >= 120.0 ? 60.0 : 1.0;
  return *scale == 86400.0 ? "days" : *scale == 3600.0 ? "hours" : *scale == 60.0 ? "minutes" : "s";
}

/* A run with phase events (bsp, gridworld) or a workflow's task events: a Gantt chart. Rows from the top: the job's
 * phases, the work failures threw away, the failures, then each node that failed or ran a task (its tasks, and down
 * from its failure to its repair; the first FL_GANTT_NODES of them). Each phase has its colour whatever the run, with a
 * legend. */
#define FL_GANTT_NODES 16
static fl_err fl_plot_gantt(const fl_tl *tl, const char *file)
{
  static const struct {
    const char *name, *label, *colour;
  } cats[] = {{"compute", "compute", "#4daf4a"},     {"checkpoint", "checkpoint", "#377eb8"},
              {"verify", "verify", "#984ea3"},       {"restart", "restart", "#ff7f00"},
              {"downtime", "downtime", "#e41a1c"},   {"wait", "waiting for nodes", "#a6a6a6"},
              {"detection", "detection", "#f781bf"}, {"recovery", "recovery", "#a65628"},
              {"lost", "work lost", "#b2182b"},      {"down", " down", "#303030"},
              {"task", "task", "#66c2a5"},           {"killed", "task killed", "#fc8d62"}};
  enum { NCAT = sizeof cats / sizeof cats[0] };
  fl_err rc = FL_OK;
  const char *term = fl_terminal(file), *unit = "s";
  char tmp[4096] = "", data[4200], script[4200], out_tmp[4200];
  double scale = 1, end = tl->end > 0 ? tl->end : 1;
  long nodes = tl->nnodes < FL_GANTT_NODES ? (long)tl->nnodes : FL_GANTT_NODES;
  int used[NCAT] = {0};
  const int row_job = 3 + (int)nodes, row_lost = 2 + (int)nodes, row_fail = 1 + (int)nodes;
  FILE *f = NULL;

  unit = fl_plot_time_axis(end, &scale);
  FL_TRY(fl_plot_tmpdir(tmp, sizeof tmp));
  snprintf(data, sizeof data, "%s/data", tmp);
  snprintf(script, sizeof script, "%s/plot.gp", tmp);
  FL_CHECK((f = fopen(data, "w")), FL_ERR_IO, "%s: %s", data, strerror(errno));
  for (int c = 0; c < NCAT; c++) { /* one block per category: "x y dx dy" boxes */
    fprintf(f, "# %s\n", cats[c].name);
    for (long i = 0; i < tl->nspan; i++) {
      const fl_tspan *sp = &tl->span[i];
      int row;
      if (strcmp(sp->name, cats[c].name) != 0)
        continue;
      if (sp->row == FL_TR_NODE) {
        long k = 0;
        while (k < nodes && tl->nodes[k] != sp->node)
          k++;
        if (k == nodes)
          continue; /* beyond the nodes drawn */
        row = (int)(nodes - k);
      } else {
        row = sp->row == FL_TR_LOST ? row_lost : row_job;
      }
      fprintf(f, "%.17g %d %.17g 0.35\n", (sp->t0 + sp->t1) / 2 / scale, row, (sp->t1 - sp->t0) / 2 / scale);
      used[c] = 1;
    }
    fputs("0 -10 0 0\n\n\n", f); /* below the plot: no block is empty (gnuplot refuses those) */
  }
  fprintf(f, "# failures\n");
  for (long i = 0; i < tl->ninst; i++)
    if (strncmp(tl->inst[i].name, "failure", 7) == 0 || strncmp(tl->inst[i].name, "process-failure", 15) == 0)
      fprintf(f, "%.17g %d\n", tl->inst[i].t / scale, row_fail);
  fprintf(f, "0 -10\n");
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", data, strerror(errno));
  f = NULL;

  FL_TRY(fl_gp_script(script, term, file, out_tmp, sizeof out_tmp, &f));
  fprintf(f, "\nset title ");
  {
    char title[600];
    snprintf(title, sizeof title, "%s: timeline", tl->title);
    fl_gp_quote(f, title);
  }
  fprintf(f, "\nset xlabel \"time (%s)\"\nset grid xtics\nset xrange [0:%.17g]\nset yrange [0.4:%d.6]\n", unit,
          end / scale * 1.01, row_job);
  fprintf(f,
          "set key outside right top vertical\nset style fill solid 1.0 noborder\nset ytics (\"job\" %d, "
          "\"lost work\" %d, \"failures\" %d",
          row_job, row_lost, row_fail);
  for (long k = 0; k < nodes; k++)
    fprintf(f, ", \"%s %ld\" %ld", tl->unit, tl->nodes[k], nodes - k);
  fprintf(f, ")\n");
  if ((long)tl->nnodes > nodes)
    fprintf(f, "set label \"(%ld more %ss not drawn)\" at graph 0.01, graph 0.02 font \",8\"\n",
            (long)tl->nnodes - nodes, tl->unit);
  fprintf(f, "plot ");
  {
    int first = 1;
    for (int c = 0; c < NCAT; c++) {
      if (!used[c])
        continue;
      fprintf(f, "%s'%s' index %d using 1:2:3:4 with boxxyerror lc rgb \"%s\" title \"%s%s\"",
              first ? "" : ", \\\n     ", data, c, cats[c].colour, strcmp(cats[c].name, "down") ? "" : tl->unit,
              cats[c].label);
      first = 0;
    }
    fprintf(f, "%s'%s' index %d using 1:2 with points pt 9 ps 1.5 lc rgb \"#e41a1c\" title \"failure\"\n",
            first ? "" : ", \\\n     ", data, NCAT);
  }
  rc = fl_gnuplot_close(&f, script, tmp, out_tmp, file);
done:
  if (f)
    fclose(f);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}

fl_err fl_plot_timeline(sqlite3 *db, int64_t run_id, const char *file)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  const char *term = fl_terminal(file), *unit = "s";
  char tmp[4096] = "", data[4200], script[4200], out_tmp[4200], title[512], kinds[32][32];
  int nkinds = 0;
  double makespan = 0, scale = 1;
  FILE *f = NULL;

  FL_CHECK(term, FL_ERR_INPUT, "--plot %s: the file must end in .svg, .png or .pdf", file);
  FL_CHECK(sqlite3_prepare_v2(db, "SELECT app = 'workload' FROM runs WHERE id = ?1", -1, &st, NULL) == SQLITE_OK,
           FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1) {
    sqlite3_finalize(st);
    return fl_plot_machine_timeline(db, run_id, file); /* thousands of jobs: the machine's load, not markers */
  }
  sqlite3_finalize(st);
  st = NULL;
  {
    fl_tl tl;
    int phases = 0;
    memset(&tl, 0, sizeof tl);
    rc = fl_tl_load(db, run_id, &tl);
    for (long i = 0; rc == FL_OK && i < tl.nspan; i++)
      phases |= tl.span[i].row == FL_TR_JOB || strcmp(tl.span[i].name, "task") == 0 ||
                strcmp(tl.span[i].name, "killed") == 0; /* a job's phases, a workflow's tasks on their hosts */
    if (rc == FL_OK && phases)
      rc = fl_plot_gantt(&tl, file);
    fl_tl_free(&tl);
    if (rc != FL_OK || phases)
      return rc;
  }
  FL_CHECK(sqlite3_prepare_v2(db, "SELECT scenario, mode, strategy, makespan_s FROM runs WHERE id = ?1", -1, &st,
                              NULL) == SQLITE_OK,
           FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  FL_CHECK(sqlite3_step(st) == SQLITE_ROW, FL_ERR_INPUT, "--timeline %lld: no such run", (long long)run_id);
  snprintf(title, sizeof title, "%s, run %lld (%s, %s): events", (const char *)sqlite3_column_text(st, 0),
           (long long)run_id, (const char *)sqlite3_column_text(st, 1), (const char *)sqlite3_column_text(st, 2));
  makespan = sqlite3_column_double(st, 3);
  sqlite3_finalize(st);
  st = NULL;
  unit = fl_plot_time_axis(makespan, &scale);
  FL_TRY(fl_plot_events_stmt(db, "SELECT kind FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " GROUP BY kind ORDER BY MIN(t_s)",
                             &st));
  sqlite3_bind_int64(st, 1, run_id);
  while (sqlite3_step(st) == SQLITE_ROW && nkinds < 32)
    snprintf(kinds[nkinds++], sizeof kinds[0], "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  st = NULL;
  FL_CHECK(nkinds > 0, FL_ERR_INPUT, "--timeline %lld: the run has no events (it ran with run.events = none)",
           (long long)run_id);

  FL_TRY(fl_plot_tmpdir(tmp, sizeof tmp));
  snprintf(data, sizeof data, "%s/data", tmp);
  snprintf(script, sizeof script, "%s/plot.gp", tmp);
  FL_CHECK((f = fopen(data, "w")), FL_ERR_IO, "%s: %s", data, strerror(errno));
  FL_TRY(
      fl_plot_events_stmt(db, "SELECT t_s FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " AND kind = ?2 ORDER BY t_s", &st));
  for (int k = 0; k < nkinds; k++) { /* one block per kind: "t y" */
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, kinds[k], -1, SQLITE_STATIC);
    if (k)
      fprintf(f, "\n\n");
    while (sqlite3_step(st) == SQLITE_ROW) {
      fprintf(f, "%.17g %d\n", sqlite3_column_double(st, 0) / scale, nkinds - k);
    }
  }
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", data, strerror(errno));
  f = NULL;

  FL_TRY(fl_gp_script(script, term, file, out_tmp, sizeof out_tmp, &f));
  fprintf(f, "\nset title ");
  fl_gp_quote(f, title);
  fprintf(f, "\nset xlabel \"time (%s)\"\nset grid xtics\nset yrange [0.3:%f]\nset key off\nset ytics (", unit,
          nkinds + 0.7);
  for (int k = 0; k < nkinds; k++) {
    fprintf(f, "%s", k ? ", " : "");
    fl_gp_quote(f, kinds[k]);
    fprintf(f, " %d", nkinds - k);
  }
  fprintf(f, ")\n");
  if (makespan > 0)
    fprintf(f, "set xrange [0:%.17g]\n", makespan / scale * 1.01); /* the last mark whole */
  fprintf(f, "plot ");
  for (int k = 0; k < nkinds; k++) {
    const fl_mark *m = fl_mark_of(kinds[k]);
    fprintf(f, "%s'%s' index %d using 1:2 with points pt %d ps 1.2 lc rgb \"%s\"", k ? ", \\\n     " : "", data, k,
            m->pt, m->colour);
  }
  fprintf(f, "\n");
  rc = fl_gnuplot_close(&f, script, tmp, out_tmp, file);
done:
  if (f)
    fclose(f);
  sqlite3_finalize(st);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}

fl_err fl_plot_varying_keys(sqlite3 *db, const char *scenario, char *buf, size_t size)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  fl_scen_cache *cache = NULL;
  size_t n = 0, cap = 0;
  buf[0] = '\0';
  {
    char *q = sqlite3_mprintf("SELECT DISTINCT %s, COALESCE(overrides, '') FROM runs WHERE status = "
                              "'completed' AND (?1 IS NULL OR scenario = ?1)",
                              fl_db_text_sql(db));
    int ok = q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(q);
    FL_CHECK(ok, FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  }
  sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (n == cap) {
      fl_scen_cache *g = realloc(cache, (cap = cap ? 2 * cap : 16) * sizeof *g);
      FL_CHECK(g, FL_ERR_NOMEM, "out of memory");
      cache = g;
    }
    memset(&cache[n], 0, sizeof cache[n]);
    n++;
    FL_TRY(fl_scenario_replay((const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1), NULL,
                              &cache[n - 1].sc));
  }
  fl_varying_keys(cache, n, buf, size);
done:
  sqlite3_finalize(st);
  for (size_t i = 0; i < n; i++)
    fl_scenario_destroy(&cache[i].sc);
  free(cache);
  return rc;
}

fl_err fl_plot_bars(sqlite3 *db, const fl_plot_opts *opt)
{
  fl_err rc = FL_OK;
  fl_summary *sm = NULL;
  fl_summary_opts so = {opt->scenario, NULL};
  const char *y = opt->y ? opt->y : "waste", *term = fl_terminal(opt->file), *name;
  char tmp[4096] = "", data[4200], script[4200], out_tmp[4200];
  int fig = -1, percent, several = 0;
  double scale = 1.0;
  FILE *f = NULL;

  FL_CHECK(term, FL_ERR_INPUT, "--plot %s: the file must end in .svg, .png or .pdf", opt->file);
  name = strcmp(y, "makespan") == 0 ? "makespan_s" : y;
  for (int k = 0; k < fl_summary_nfig(); k++)
    if (strcmp(fl_summary_fig_name(k), name) == 0)
      fig = k;
  FL_CHECK(fig >= 0, FL_ERR_INPUT,
           "--y %s: the bars show one of the report's figures (waste, makespan, node_hours, "
           "failures, interruptions, lost_work_s, ...: report --format json lists them)",
           y);
  percent = strcmp(name, "waste") == 0 || strcmp(name, "resilience") == 0;
  FL_TRY(fl_summary_compute(db, "the results file", &so, &sm));
  FL_CHECK(sm->ngroups > 0, FL_ERR_INPUT, "no run%s%s to draw", opt->scenario ? " of scenario " : "",
           opt->scenario ? opt->scenario : "");
  if (strcmp(fl_summary_fig_unit(fig), "s") == 0) {
    double largest = 0;
    for (int g = 0; g < sm->ngroups; g++)
      if (sm->groups[g].fig[fig].n)
        largest = fmax(largest, sm->groups[g].fig[fig].mean);
    scale = fl_duration_unit(largest, &name);
  }
  for (int g = 1; g < sm->ngroups; g++)
    several |= strcmp(sm->groups[g].scenario, sm->groups[0].scenario) != 0;
  FL_TRY(fl_plot_tmpdir(tmp, sizeof tmp));
  snprintf(data, sizeof data, "%s/bars", tmp);
  snprintf(script, sizeof script, "%s/bars.gp", tmp);
  FL_CHECK((f = fopen(data, "w")), FL_ERR_IO, "%s: %s", data, strerror(errno));
  for (int g = 0; g < sm->ngroups; g++) {
    /* a bar per configuration, labelled by what tells it apart: the strategy, then the keys that vary */
    const fl_summary_group *gr = &sm->groups[g];
    const fl_summary_stat *x = &gr->fig[fig];
    char label[512] = "";
    size_t n = 0;
    for (int s = 0; s < sm->nshown; s++) {
      /* the keys whose value differs between the bars (the identity keys too, when they do) */
      int k = sm->shown[s], varies = 0;
      char v[96];
      for (int o = 0; o < sm->ngroups && !varies; o++)
        varies = strcmp(sm->groups[o].vals[k], gr->vals[k]) != 0;
      if (!varies)
        continue;
      fl_rowset_show(k, gr->vals[k], v, sizeof v);
      n += (size_t)snprintf(label + n, n < sizeof label ? sizeof label - n : 0, "%s%s", n ? " " : "", v);
    }
    if (several && n < sizeof label)
      snprintf(label + n, sizeof label - n, "%s%s", n ? " " : "", gr->scenario);
    for (char *c = label; *c; c++)
      if (*c == '"')
        *c = '\'';
    fprintf(f, "\"%s\" %.17g %.17g\n", label, x->n ? (percent ? 100.0 : 1.0 / scale) * x->mean : NAN,
            x->n && isfinite(x->ci95) ? (percent ? 100.0 : 1.0 / scale) * x->ci95 : 0.0);
  }
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", data, strerror(errno));
  f = NULL;
  FL_TRY(fl_gp_script(script, term, opt->file, out_tmp, sizeof out_tmp, &f));
  {
    char t[512], yl[160];
    const char *unit = fl_summary_fig_unit(fig);
    snprintf(t, sizeof t, "%s: %s by configuration (mean, 95%% CI)",
             opt->scenario ? opt->scenario
             : several     ? "all scenarios"
                           : sm->groups[0].scenario,
             y);
    fprintf(f, "\nset title ");
    fl_gp_quote(f, t);
    if (percent)
      snprintf(yl, sizeof yl, "%s (%%)", y);
    else if (strcmp(unit, "s") == 0)
      snprintf(yl, sizeof yl, "%s (%s)", y, name);
    else
      snprintf(yl, sizeof yl, "%s%s%s%s", y, unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
    fprintf(f, "\nset ylabel ");
    fl_gp_quote(f, yl);
  }
  fprintf(f,
          "\nset grid ytics\nset yrange [0:*]\nset boxwidth 0.6\nset style fill solid 0.5 border -1\n"
          "set xtics rotate by -30 left\nset bars 2\nset xrange [-0.6:%.1f]\n",
          sm->ngroups - 0.4);
  fprintf(f, "plot '%s' using 0:2:3:xtic(1) with boxerrorbars lc 1 notitle\n", data);
  rc = fl_gnuplot_close(&f, script, tmp, out_tmp, opt->file);
done:
  if (f)
    fclose(f);
  fl_summary_destroy(&sm);
  if (tmp[0])
    fl_remove_tree(tmp);
  return rc;
}
