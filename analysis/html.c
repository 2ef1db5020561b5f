/* html.c — see html.h. The table is the report's groups as data (summary.h) in an HTML <table>, one unit per
 * column (report.c's text table follows, folded); the figures are gnuplot's SVG
 * (plot.c) read back and put inline, so the page carries everything it shows. */
#include "html.h"

#include "cleanup.h"
#include "compare.h"
#include "plot.h"
#include "report.h"
#include "rerun.h"
#include "rowset.h"
#include "summary.h"
#include "units.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
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

/* A column's duration unit: the one that reads best for its largest mean (so one unit per column). */
static void fl_html_duration_unit(double largest, const char **name, double *scale)
{
  static const struct {
    const char *name;
    double s, below;
  } units[] = {{"s", 1.0, 120.0},
               {"min", 60.0, 7200.0},
               {"h", 3600.0, 172800.0},
               {"d", 86400.0, 31557600.0},
               {"y", 31557600.0, INFINITY}};
  int i = 0;
  while (i < 4 && !(fabs(largest) < units[i].below))
    i++;
  *name = units[i].name;
  *scale = units[i].s;
}

/* A number for a person, to `digits` significant digits (3 for a mean, 2 for its interval), whole from 1000 up (the
 * column's unit keeps those few: k and M node-hours, MWh). */
static void fl_html_number(double v, int digits, char *buf, size_t size)
{
  if (fabs(v) >= 1000.0) {
    snprintf(buf, size, "%.0f", v);
  } else if (fabs(v) >= pow(10.0, digits)) { /* 160, not 1.6e+02 */
    double unit = pow(10.0, floor(log10(fabs(v))) - digits + 1);
    snprintf(buf, size, "%.0f", round(v / unit) * unit);
  } else {
    snprintf(buf, size, "%.*g", digits, v);
  }
}

/* A column of node-hours or energy: the unit its largest mean reads best in (1 to 999 of it where possible). */
static void fl_html_scaled_unit(double largest, int energy, const char **name, double *scale)
{
  static const char *const nh[] = {"node-h", "k node-h", "M node-h"}, *const e[] = {"kWh", "MWh", "GWh"};
  static const double nh_s[] = {1.0, 1e3, 1e6}, e_s[] = {3.6e6, 3.6e9, 3.6e12};
  const double *sc = energy ? e_s : nh_s;
  int u = 0;
  while (u < 2 && fabs(largest) >= 1000.0 * sc[u])
    u++;
  *name = energy ? e[u] : nh[u];
  *scale = sc[u];
}

/* A figure's mean with its interval, in the column's unit (scale: the unit in seconds, or 0.01 for percent). */
static void fl_html_stat(FILE *f, const char *fig, const fl_summary_stat *x, double scale)
{
  char a[32], b[32];
  if (!x->n) {
    fprintf(f, "<td class=\"num\" data-fig=\"%s\">&ndash;</td>", fig);
    return;
  }
  fprintf(f, "<td class=\"num\" data-fig=\"%s\" data-v=\"%.17g\">", fig, x->mean);
  fl_html_number(x->mean / scale, 3, a, sizeof a);
  fl_html_text(f, a, strlen(a));
  if (!isnan(x->ci95)) {
    fl_html_number(x->ci95 / scale, 2, b, sizeof b);
    fputs(" &plusmn; ", f);
    fl_html_text(f, b, strlen(b));
  }
  fputs("</td>", f);
}

/* One "name value" of the line above a table that says what every row has: "Every row: <code>k</code> v, ...". */
static void fl_html_every_row(FILE *f, int *said, const char *name, const char *value)
{
  fputs((*said)++ ? ", <code>" : "<p>Every row: <code>", f);
  fl_html_text(f, name, strlen(name));
  fputs("</code> ", f);
  fl_html_text(f, value, strlen(value));
}

/* Does every group have the same value of shown key s (-2: the scenario, -1: the mode)? */
static int fl_html_one_value(const fl_summary *sm, int s)
{
  for (int g = 1; g < sm->ngroups; g++) {
    const fl_summary_group *a = &sm->groups[0], *b = &sm->groups[g];
    const char *x = s == -2 ? a->scenario : s == -1 ? a->mode : a->vals[sm->shown[s]];
    const char *y = s == -2 ? b->scenario : s == -1 ? b->mode : b->vals[sm->shown[s]];
    if (strcmp(x ? x : "", y ? y : "") != 0)
      return 0;
  }
  return 1;
}

/* The groups as an HTML table (summary.h): the keys that tell them apart, runs, and the figures any group has. */
/* A figure's column head, in the unit its largest mean reads best in (durations, energy, node-hours; shares in
 * %); returns the scale its values are divided by. */
static double fl_html_fig_head(FILE *f, const fl_summary *sm, const char *fig, const char *head, int idx)
{
  const char *unit = fl_summary_fig_unit(idx);
  double scale = 1.0;
  if (strcmp(unit, "s") == 0) {
    double largest = 0;
    const char *name;
    for (int g = 0; g < sm->ngroups; g++)
      if (sm->groups[g].fig[idx].n)
        largest = fmax(largest, fabs(sm->groups[g].fig[idx].mean));
    fl_html_duration_unit(largest, &name, &scale);
    fprintf(f, "<th data-fig=\"%s\">%s (%s)</th>", fig, head, name);
  } else if (strcmp(unit, "J") == 0 || strcmp(unit, "node-h") == 0) {
    double largest = 0;
    const char *name;
    for (int g = 0; g < sm->ngroups; g++)
      if (sm->groups[g].fig[idx].n)
        largest = fmax(largest, fabs(sm->groups[g].fig[idx].mean));
    fl_html_scaled_unit(largest, unit[0] == 'J', &name, &scale);
    fprintf(f, "<th data-fig=\"%s\">%s (%s)</th>", fig, head, name);
  } else if (strcmp(fig, "waste") == 0 || strcmp(fig, "resilience") == 0 || strcmp(fig, "utilisation") == 0) {
    scale = 0.01;
    fprintf(f, "<th data-fig=\"%s\">%s (%%)</th>", fig, head);
  } else {
    int own = !unit[0] || strcmp(unit, "node-h") == 0; /* no unit, or the head says it */
    fprintf(f, "<th data-fig=\"%s\">%s%s%s%s</th>", fig, head, own ? "" : " (", own ? "" : unit, own ? "" : ")");
  }
  return scale;
}

/* A group's row up to its figures: the scenario, mode and keys that are not the same in every row, its
 * dimensions, its runs and completed runs. */
static void fl_html_summary_row(FILE *f, const fl_summary *sm, const fl_summary_group *gr, const int *same)
{
  fputs("<tr>", f);
  if (!same[0]) {
    fputs("<td>", f);
    fl_html_text(f, gr->scenario, strlen(gr->scenario));
    fputs("</td>", f);
  }
  if (!same[1])
    fprintf(f, "<td>%s</td>", gr->mode);
  for (int s = 0; s < sm->nshown; s++) {
    char v[96];
    if (same[2 + s])
      continue;
    fl_rowset_show(sm->shown[s], gr->vals[sm->shown[s]], v, sizeof v);
    fputs("<td>", f);
    fl_html_text(f, v, strlen(v));
    fputs("</td>", f);
  }
  for (int d = 0; d < sm->ndims; d++) {
    const char *v = gr->dims[sm->dims_shown[d]];
    fputs("<td>", f);
    fl_html_text(f, v, strlen(v));
    fputs("</td>", f);
  }
  fprintf(f, "<td class=\"num\">%ld</td><td class=\"num\">%ld</td>", gr->runs, gr->status[0]);
}

static fl_err fl_html_summary(FILE *f, sqlite3 *db, const char *db_label, const char *scenario)
{
  static const char *const figs[] = {
      "makespan_s",          "slowdown",          "waste",       "node_hours",
      "wasted_node_hours",   "energy_j",          "failures",    "interruptions",
      "checkpoint_cost_s",   "restart_cost_s",    "resilience",  "error_linf",
      "tasks_replicated",    "tasks_substituted", "tasks_lost",  "utilisation",
      "overhead_node_hours", "io_node_hours",     "mean_wait_s", "mean_bounded_slowdown"};
  static const char *const heads[] = {"makespan",    "&times; schedule", "waste",
                                      "node-hours",  "wasted",           "energy",
                                      "failures",    "interruptions",    "&delta;, checkpoint",
                                      "R, restart",  "resilience",       "error L&infin;",
                                      "re-executed", "substituted",      "tasks lost",
                                      "utilisation", "overhead",         "checkpoint I/O + wait",
                                      "mean wait",   "bounded slowdown"};
  /* a workload study (every row app.kind = workload): the machine's figures (fl_summary_machine_figs, as the text
   * report's machine table shows them), and its energy */
  static const char *const mheads[] = {"utilisation", "useful",           "overhead", "lost",
                                       "checkpoint",  "restart",          "I/O wait", "copies",
                                       "mean wait",   "bounded slowdown", "failures", "energy"};
  const char *mfigs[sizeof mheads / sizeof mheads[0]];
  fl_err rc = FL_OK;
  fl_summary *sm = NULL;
  fl_summary_opts so = {scenario, NULL};
  int idx[sizeof figs / sizeof figs[0]], use[sizeof figs / sizeof figs[0]], *same = NULL;
  double scale[sizeof figs / sizeof figs[0]];
  int nf = (int)(sizeof figs / sizeof figs[0]);
  const char *const *fig = figs, *const *head = heads;
  FL_TRY(fl_summary_compute(db, db_label, &so, &sm));
  {
    int workload = sm->ngroups > 0;
    int ka = -1;
    for (int k = 0; k < fl_scenario_key_count() && ka < 0; k++)
      if (strcmp(fl_scenario_key_at(k)->section, "app") == 0 && strcmp(fl_scenario_key_at(k)->key, "kind") == 0)
        ka = k;
    for (int g = 0; g < sm->ngroups && ka >= 0; g++)
      workload &= sm->groups[g].vals[ka] && strcmp(sm->groups[g].vals[ka], "workload") == 0;
    if (workload && ka >= 0) {
      int nm;
      const char *const *m = fl_summary_machine_figs(&nm);
      for (int i = 0; i < nm && i + 1 < (int)(sizeof mfigs / sizeof mfigs[0]); i++)
        mfigs[i] = m[i];
      mfigs[nm] = "energy_j";
      fig = mfigs;
      head = mheads;
      nf = nm + 1;
    }
  }
  for (int i = 0; i < nf; i++) {
    idx[i] = -1;
    use[i] = 0;
    for (int k = 0; k < fl_summary_nfig(); k++)
      if (strcmp(fl_summary_fig_name(k), fig[i]) == 0)
        idx[i] = k;
    for (int g = 0; idx[i] >= 0 && g < sm->ngroups; g++)
      use[i] |= sm->groups[g].fig[idx[i]].n > 0;
  }
  /* a key with one value in every row is said once above the table, not in a column of its own (the table fits a
   * window of 1280 pixels: docs/reports.md) */
  FL_ALLOC(same, sm->nshown + 2);
  same[0] = fl_html_one_value(sm, -2);
  same[1] = fl_html_one_value(sm, -1);
  for (int s = 0; s < sm->nshown; s++)
    same[2 + s] = fl_html_one_value(sm, s);
  fputs("<h2>Summary</h2>\n<p>One row per configuration, in the order of the keys that vary; mean &plusmn; half-width "
        "of the 95 % interval over the completed runs. Click a column's head to sort by it.</p>\n",
        f);
  if (sm->ngroups > 1) {
    int said = 0;
    for (int s = -2; s < sm->nshown; s++) {
      char v[96], name[80];
      const fl_summary_group *g0 = &sm->groups[0];
      if (!same[2 + s])
        continue;
      if (s == -2)
        snprintf(v, sizeof v, "%s", g0->scenario), snprintf(name, sizeof name, "scenario");
      else if (s == -1)
        snprintf(v, sizeof v, "%s", g0->mode), snprintf(name, sizeof name, "mode");
      else {
        const fl_scenario_keyinfo *k = fl_scenario_key_at(sm->shown[s]);
        fl_rowset_show(sm->shown[s], g0->vals[sm->shown[s]], v, sizeof v);
        snprintf(name, sizeof name, "%s.%s", k->section, k->key);
      }
      fl_html_every_row(f, &said, name, v);
    }
    if (said)
      fputs(".</p>\n", f);
  } else {
    for (int s = 0; s < sm->nshown + 2; s++)
      same[s] = 0; /* one row: its table says it all */
  }
  fputs("<div class=\"wide\"><table id=\"summary\" class=\"sortable\">\n<thead><tr>", f);
  if (!same[0])
    fputs("<th>scenario</th>", f);
  if (!same[1])
    fputs("<th>mode</th>", f);
  for (int s = 0; s < sm->nshown; s++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(sm->shown[s]);
    if (!same[2 + s])
      fprintf(f, "<th data-fig=\"%s.%s\">%s.<wbr>%s</th>", k->section, k->key, k->section, k->key);
  }
  for (int d = 0; d < sm->ndims; d++)
    fprintf(f, "<th>%s</th>", fl_summary_dim_name(sm->dims_shown[d]));
  fputs("<th>runs</th><th>completed</th>", f);
  for (int i = 0; i < nf; i++) {
    scale[i] = 1.0;
    if (use[i])
      scale[i] = fl_html_fig_head(f, sm, fig[i], head[i], idx[i]);
  }
  fputs("</tr></thead>\n<tbody>\n", f);
  for (int g = 0; g < sm->ngroups; g++) {
    fl_html_summary_row(f, sm, &sm->groups[g], same);
    for (int i = 0; i < nf; i++)
      if (use[i])
        fl_html_stat(f, fig[i], &sm->groups[g].fig[idx[i]], scale[i]);
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
done:
  free(same);
  fl_summary_destroy(&sm);
  return rc;
}

/* A scenario key's value in SI units (the comparison's JSON) as the summary writes it: durations and sizes in
 * their unit ("1y", "4GiB"), other numbers as numbers. */
static void fl_html_key_value(const char *name, double v, char *buf, size_t size)
{
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    char full[96];
    snprintf(full, sizeof full, "%s.%s", k->section, k->key);
    if (strcmp(full, name) != 0)
      continue;
    if (strcmp(k->unit, "s") == 0) {
      fl_units_format_duration(v, buf, size);
      return;
    }
    if (strcmp(k->unit, "B") == 0) {
      fl_units_format_bytes(v, buf, size);
      return;
    }
    break;
  }
  snprintf(buf, size, "%.6g", v);
}

/* A member of a comparison's JSON object that labels it (scenario, mode, a key `section.key`, the pairs), not a figure
 */
static int fl_paired_label(const char *k)
{
  return strchr(k, '.') || strcmp(k, "scenario") == 0 || strcmp(k, "mode") == 0 || strcmp(k, "pairs") == 0;
}

/* Does member k have one value in every comparison (and there are several)? Then it is said above the table. */
static int fl_paired_one_value(json_t *cmp, const char *k)
{
  json_t *a = json_object_get(json_array_get(cmp, 0), k);
  if (json_array_size(cmp) < 2 || strcmp(k, "pairs") == 0)
    return 0;
  for (size_t i = 1; i < json_array_size(cmp); i++)
    if (!json_equal(a, json_object_get(json_array_get(cmp, i), k)))
      return 0;
  return 1;
}

/* The paired comparison (compare.h) as a table, when the strategies differ: each strategy against the baseline
 * (`checkpoint` when it ran, else the first strategy by name), run by run; "significant" when the 95 % interval of
 * the difference excludes 0. Nothing when no strategy pairs with it. */
typedef struct fl_html_pfig {
  const char *fig, *head, *unit;
  double scale;
} fl_html_pfig;

/* One paired comparison (compare.h) against `base` ("key=value"), as a table: the rows' figures (`figs`, those of
 * the app: a job's, or a workload's machine figures). When nothing pairs: the reason (say_why) or nothing. */
/* A label member's value as the table shows it (a key's in its unit: "1y", "4GiB"). */
static void fl_paired_cell(const char *k, json_t *v, char *cell, size_t size)
{
  if (json_is_string(v))
    snprintf(cell, size, "%s", json_string_value(v));
  else if (json_is_number(v))
    fl_html_key_value(k, json_number_value(v), cell, size);
  else
    snprintf(cell, size, "-");
}

/* Has any comparison a number for member `key`? (A figure the app does not have is null in every one.) */
static int fl_paired_has(json_t *cmp, const char *key)
{
  for (size_t i = 0; i < json_array_size(cmp); i++)
    if (json_is_number(json_object_get(json_array_get(cmp, i), key)))
      return 1;
  return 0;
}

static fl_err fl_html_paired_one(FILE *f, sqlite3 *db, const char *db_label, const char *scenario, const char *base,
                                 int say_why, const fl_html_pfig *figs, size_t nfigs, int nth, int *shown)
{
  fl_err rc = FL_OK;
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = NULL;
  json_t *root = NULL, *cmp;
  json_error_t jerr;
  size_t i;
  double scale[16];
  for (i = 0; i < nfigs && i < 16; i++)
    scale[i] = figs[i].scale;

  FL_CHECK((mem = open_memstream(&buf, &len)) != NULL, FL_ERR_NOMEM, "out of memory");
  {
    fl_compare_opts co = {base, scenario, "mode = 'sim'", FL_COMPARE_JSON};
    fl_err crc = fl_compare_print(db, db_label, &co, mem);
    fclose(mem);
    mem = NULL;
    if (crc != FL_OK) {
      /* nothing paired, or the baseline is ambiguous: the strategies' section says why instead of leaving itself
       * out; another key's says nothing (its values may well not pair: another failure rate is another job) */
      const char *why = fl_err_msg();
      if (say_why) {
        fputs("<h2>Paired comparison</h2>\n<p>Not paired: ", f);
        fl_html_text(f, why, strlen(why));
        fputs("</p>\n", f);
      }
      fl_err_clear();
      goto done;
    }
  }
  root = json_loads(buf, 0, &jerr);
  cmp = root ? json_object_get(root, "comparisons") : NULL;
  if (!json_is_array(cmp) || json_array_size(cmp) == 0)
    goto done;
  *shown = 1;
  /* the strategies' comparison is "the" paired comparison; another key's is named by its baseline */
  fputs(say_why ? "<h2>Paired comparison" : "<h2>Paired comparison against <code>", f);
  if (!say_why)
    fl_html_text(f, base, strlen(base));
  fprintf(f, "%s</h2>\n<p>Each run minus the run of the baseline <code>", say_why ? "" : "</code>");
  fl_html_text(f, base, strlen(base));
  fputs("</code> with the same seed and replica (the same failures): mean difference &plusmn; half-width of its 95 % "
        "t-interval over the pairs that both completed, and below it the ratio of the means; <b>bold</b>: the interval "
        "excludes 0.</p>\n",
        f);
  if (json_array_size(cmp) > 1) {
    json_t *first = json_array_get(cmp, 0), *v;
    const char *k;
    int said = 0;
    json_object_foreach(first, k, v)
    {
      char cell[64];
      if (!fl_paired_label(k) || !fl_paired_one_value(cmp, k))
        continue;
      fl_paired_cell(k, v, cell, sizeof cell);
      fl_html_every_row(f, &said, k, cell);
    }
    if (said)
      fputs(".</p>\n", f);
  }
  if (nth)
    fprintf(f, "<div class=\"wide\"><table id=\"paired-%d\" class=\"sortable\">\n<thead><tr>", nth + 1);
  else
    fputs("<div class=\"wide\"><table id=\"paired\" class=\"sortable\">\n<thead><tr>", f);
  {
    json_t *first = json_array_get(cmp, 0), *v;
    const char *k;
    json_object_foreach(first, k, v)
    {
      if (fl_paired_label(k) && !fl_paired_one_value(cmp, k)) {
        const char *dot = strchr(k, '.');
        fputs("<th>", f);
        fl_html_text(f, k, dot ? (size_t)(dot + 1 - k) : strlen(k));
        if (dot) {
          fputs("<wbr>", f);
          fl_html_text(f, dot + 1, strlen(dot + 1));
        }
        fputs("</th>", f);
      }
    }
    for (size_t g = 0; g < nfigs; g++) {
      char key[64];
      const char *unit = figs[g].unit;
      snprintf(key, sizeof key, "%s_diff", figs[g].fig);
      if (!fl_paired_has(cmp, key))
        continue;
      if (strcmp(unit, "node-h") == 0 || strcmp(unit, "kWh") == 0) {
        /* node-hours and energy in the unit the column's largest difference reads best in (one per column) */
        double largest = 0;
        for (size_t r = 0; r < json_array_size(cmp); r++) {
          json_t *d = json_object_get(json_array_get(cmp, r), key);
          if (json_is_number(d))
            largest = fmax(largest, fabs(json_number_value(d)));
        }
        fl_html_scaled_unit(largest, unit[0] == 'k', &unit, &scale[g]);
      }
      fprintf(f, "<th data-fig=\"%s\">%s%s%s%s</th>", key, figs[g].head, unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
    }
  }
  fputs("</tr></thead>\n<tbody>\n", f);
  for (i = 0; i < json_array_size(cmp); i++) {
    json_t *o = json_array_get(cmp, i), *v;
    const char *k;
    fputs("<tr>", f);
    json_object_foreach(o, k, v)
    {
      char cell[64];
      if (!fl_paired_label(k) || fl_paired_one_value(cmp, k))
        continue;
      fl_paired_cell(k, v, cell, sizeof cell);
      fputs(json_is_number(v) ? "<td class=\"num\">" : "<td>", f);
      fl_html_text(f, cell, strlen(cell));
      fputs("</td>", f);
    }
    for (size_t g = 0; g < nfigs; g++) {
      char key[64], kh[80], kr[80], a[32], b[32];
      json_t *d, *h, *r;
      snprintf(key, sizeof key, "%s_diff", figs[g].fig);
      snprintf(kh, sizeof kh, "%s_diff_ci95", figs[g].fig);
      snprintf(kr, sizeof kr, "%s_ratio", figs[g].fig);
      if (!fl_paired_has(cmp, key))
        continue;
      d = json_object_get(o, key);
      h = json_object_get(o, kh);
      r = json_object_get(o, kr);
      if (!json_is_number(d)) {
        fputs("<td class=\"num\">&ndash;</td>", f);
        continue;
      }
      {
        double dv = json_number_value(d), hv = json_is_number(h) ? json_number_value(h) : NAN;
        int sig = !isnan(hv) && fabs(dv) > hv;
        fprintf(f, "<td class=\"num\" data-fig=\"%s\" data-v=\"%.17g\">%s", key, dv, sig ? "<b>" : "");
        fl_html_number(dv / scale[g], 3, a, sizeof a);
        fprintf(f, "%s%s", dv > 0 ? "+" : "", a);
        if (!isnan(hv)) {
          fl_html_number(hv / scale[g], 2, b, sizeof b);
          fprintf(f, " &plusmn; %s", b);
        }
        if (json_is_number(r))
          fprintf(f, "<br><span class=\"ratio\">&times;%.3g</span>", json_number_value(r));
        fprintf(f, "%s</td>", sig ? "</b>" : "");
      }
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
done:
  if (mem)
    fclose(mem);
  free(buf);
  json_decref(root);
  return rc;
}

/* The paired comparisons of the page: the strategies against `checkpoint` when it ran (else the first by name), then
 * against the default value (else the first) of every other key that varies among the configurations and pairs —
 * a workload study's app.checkpoint_io, say — at most three more. Each with the figures of the app that ran. */
static fl_err fl_html_paired(FILE *f, sqlite3 *db, const char *db_label, const char *scenario)
{
  static const fl_html_pfig job[] = {
      {"makespan_s", "makespan", "h", 3600.0},     {"waste", "waste", "pts", 0.01},
      {"node_hours", "node-hours", "node-h", 1.0}, {"wasted_node_hours", "wasted", "node-h", 1.0},
      {"energy_j", "energy", "kWh", 3.6e6},        {"failures", "failures", "", 1.0},
      {"interruptions", "interruptions", "", 1.0}, {"overhead_node_hours", "overhead", "node-h", 1.0},
      {"mean_wait_s", "mean wait", "h", 3600.0}};
  static const fl_html_pfig machine[] = {{"overhead_node_hours", "overhead", "node-h", 1.0},
                                         {"lost_node_hours", "lost", "node-h", 1.0},
                                         {"checkpoint_node_hours", "checkpoint", "node-h", 1.0},
                                         {"io_wait_node_hours", "I/O wait", "node-h", 1.0},
                                         {"mean_wait_s", "mean wait", "h", 3600.0},
                                         {"mean_bounded_slowdown", "bounded slowdown", "", 1.0},
                                         {"failures", "failures", "", 1.0}};
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  fl_summary *sm = NULL;
  fl_summary_opts so = {scenario, "mode = 'sim'"};
  char base[256] = "";
  int nstrat = 0, all_workload = 0, nth = 0;
  const fl_html_pfig *figs = job;
  size_t nfigs = sizeof job / sizeof *job;

  if (sqlite3_prepare_v2(db,
                         "SELECT strategy, (SELECT COUNT(*) = SUM(app = 'workload') FROM runs WHERE (?1 IS NULL OR "
                         "scenario = ?1) AND mode = 'sim') FROM runs WHERE (?1 IS NULL OR scenario = ?1) AND mode = "
                         "'sim' AND strategy IS NOT NULL GROUP BY strategy ORDER BY strategy <> 'checkpoint', strategy",
                         -1, &st, NULL) != SQLITE_OK)
    goto done;
  sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (nstrat++ == 0)
      snprintf(base, sizeof base, "strategy.kind=%s", (const char *)sqlite3_column_text(st, 0));
    all_workload = sqlite3_column_int(st, 1);
  }
  if (all_workload) {
    figs = machine;
    nfigs = sizeof machine / sizeof *machine;
  }
  if (nstrat >= 2) { /* one strategy: nothing to pair by it */
    int shown = 0;
    FL_TRY(fl_html_paired_one(f, db, db_label, scenario, base, 1, figs, nfigs, nth, &shown));
    nth = 1; /* (said, or why not) */
  }
  FL_TRY(fl_summary_compute(db, db_label, &so, &sm));
  for (int s = 0; s < sm->nshown && nth < 4; s++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(sm->shown[s]);
    const char *v0 = sm->groups[0].vals[sm->shown[s]], *pick = NULL;
    int varies = 0;
    if (strcmp(k->section, "strategy") == 0 || strcmp(k->section, "run") == 0)
      continue; /* the strategies' own keys belong to the strategies' comparison above */
    for (int g = 1; g < sm->ngroups; g++)
      varies |= strcmp(sm->groups[g].vals[sm->shown[s]] ? sm->groups[g].vals[sm->shown[s]] : "", v0 ? v0 : "") != 0;
    if (!varies)
      continue;
    for (int g = 0; g < sm->ngroups && !pick; g++) {
      char shown[96];
      const char *v = sm->groups[g].vals[sm->shown[s]];
      fl_rowset_show(sm->shown[s], v, shown, sizeof shown);
      if (v && strcmp(shown, k->def) == 0)
        pick = v;
    }
    if (!pick)
      pick = v0;
    if (!pick)
      continue;
    {
      char shown[96];
      fl_rowset_show(sm->shown[s], pick, shown, sizeof shown);
      snprintf(base, sizeof base, "%s.%s=%s", k->section, k->key, shown);
    }
    {
      int shown = 0;
      FL_TRY(fl_html_paired_one(f, db, db_label, scenario, base, 0, figs, nfigs, nth, &shown));
      nth += shown;
    }
  }
done:
  fl_summary_destroy(&sm);
  sqlite3_finalize(st);
  return rc;
}

/* Sorting the summary table: a click on a column's head sorts the rows by it (again: the other way), numbers by
 * their value (data-v: the mean in SI units), text in natural order; the page's address may ask for one on load,
 * e.g. report.html#sort=makespan_s:desc (every sortable table). Inline, nothing fetched; the tables read the
 * same without it. */
static const char *const fl_html_sort_js =
    "<script>\n"
    "(function () {\n"
    "  function sortBy(t, col, dir) {\n"
    "    var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "    rows.sort(function (x, y) {\n"
    "      var a = x.cells[col], b = y.cells[col], va = a.getAttribute('data-v'), vb = b.getAttribute('data-v');\n"
    "      if (va === null || vb === null) {\n"
    "        if (va !== vb) return va === null ? 1 : -1; /* no value: last */\n"
    "        return dir * a.textContent.localeCompare(b.textContent, undefined, {numeric: true});\n"
    "      }\n"
    "      return dir * (parseFloat(va) - parseFloat(vb));\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h, i) {\n"
    "      h.setAttribute('aria-sort', i === col ? (dir > 0 ? 'ascending' : 'descending') : 'none');\n"
    "    });\n"
    "  }\n"
    "  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (t) {\n"
    "    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h, i) {\n"
    "      h.addEventListener('click', function () {\n"
    "        sortBy(t, i, h.getAttribute('aria-sort') === 'ascending' ? -1 : 1);\n"
    "      });\n"
    "    });\n"
    "    var m = /^#sort=([A-Za-z0-9_.]+)(:desc)?$/.exec(location.hash);\n"
    "    if (!m) return;\n"
    "    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (h, i) {\n"
    "      if (h.getAttribute('data-fig') === m[1] || h.textContent === m[1]) sortBy(t, i, m[2] ? -1 : 1);\n"
    "    });\n"
    "  });\n"
    "})();\n"
    "</script>\n";

/* What the figures of a scenario's rows show: waste; a machine's (workloads) what resilience cost it in node-hours;
 * a task graph's slowdown against its failure-free schedule; a grid world's resilience. */
static void fl_html_axis(sqlite3 *db, const char *name, const char **y, const char **yhead, const char **ywhat,
                         const char **ybar)
{
  /* a machine's runs (workloads) are told apart by what resilience cost it, not by waste */
  *y = "waste";
  *yhead = "Waste";
  *ywhat = "waste (1 &minus; work / makespan)";
  *ybar = "waste";
  {
    sqlite3_stmt *wl = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT MIN(app = 'workload'), MIN(app = 'workflow'), MIN(app = 'gridworld') FROM runs "
                           "WHERE scenario = ?1",
                           -1, &wl, NULL) == SQLITE_OK) {
      sqlite3_bind_text(wl, 1, name, -1, SQLITE_STATIC);
      if (sqlite3_step(wl) == SQLITE_ROW && sqlite3_column_int(wl, 0) == 1) {
        *y = "overhead_node_hours";
        *yhead = "Overhead node-hours";
        *ywhat = "the node-hours resilience cost the machine (lost, checkpoints, restarts, waiting for the PFS)";
        *ybar = *ywhat;
      } else if (sqlite3_column_int(wl, 1) == 1) {
        /* task graphs: how much longer than their failure-free HEFT schedule */
        *y = "slowdown";
        *yhead = "Slowdown";
        *ywhat = "the makespan over the failure-free schedule's";
        *ybar = *ywhat;
      } else if (sqlite3_column_int(wl, 2) == 1) {
        /* grid worlds: the share of sweeps in which every task got a value */
        *y = "resilience";
        *yhead = "Resilience";
        *ywhat = "the share of sweeps in which every task got a value";
        *ybar = *ywhat;
      }
    }
    sqlite3_finalize(wl);
  }
}

/* Per scenario (keys of two scenarios are not one axis), a figure per key that varies under one strategy: the
 * scenario's figure against it, a line per strategy; with no such key, the configurations side by side. Drawn in
 * tmp, counted in *figures. */
static fl_err fl_html_figures(FILE *f, sqlite3 *db, const char *scenario, const char *tmp, int *figures)
{
  fl_err rc = FL_OK;
  char keys[2048], path[4200];
  sqlite3_stmt *sc = NULL;
  int nsc = 0, headed = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT scenario, COUNT(*) OVER () FROM runs WHERE (?1 IS NULL OR scenario = ?1) AND "
                         "status = 'completed' GROUP BY scenario ORDER BY scenario",
                         -1, &sc, NULL) == SQLITE_OK) {
    sqlite3_bind_text(sc, 1, scenario, -1, SQLITE_STATIC);
    while (rc == FL_OK && sqlite3_step(sc) == SQLITE_ROW) {
      char name[256], *save = NULL, *key, list[2048];
      snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(sc, 0));
      nsc = sqlite3_column_int(sc, 1);
      const char *y, *yhead, *ywhat, *ybar;
      fl_html_axis(db, name, &y, &yhead, &ywhat, &ybar);
      rc = fl_plot_varying_keys(db, name, keys, sizeof keys);
      if (rc == FL_OK && !keys[0]) {
        /* no numeric axis: the configurations side by side (strategies, weightings), if there are two */
        fl_plot_opts po = {.y = y, .scenario = name};
        sqlite3_stmt *cnt = NULL;
        int configs = 0;
        if (sqlite3_prepare_v2(db, "SELECT COUNT(DISTINCT strategy || '|' || overrides) FROM runs WHERE scenario = ?1",
                               -1, &cnt, NULL) == SQLITE_OK) {
          sqlite3_bind_text(cnt, 1, name, -1, SQLITE_STATIC);
          if (sqlite3_step(cnt) == SQLITE_ROW)
            configs = sqlite3_column_int(cnt, 0);
        }
        sqlite3_finalize(cnt);
        if (configs < 2)
          continue;
        snprintf(path, sizeof path, "%s/plot-%d.svg", tmp, *figures);
        po.file = path;
        if (!headed++)
          fprintf(f, "<h2>%s by configuration</h2>\n", yhead);
        if ((rc = fl_plot_bars(db, &po)) != FL_OK ||
            (fputs("<figure class=\"plot\">\n", f), rc = fl_html_svg(f, path)) != FL_OK)
          break;
        fputs("\n<figcaption>", f);
        fl_html_text(f, name, strlen(name));
        fprintf(f, ": %s of each configuration, mean and 95 %% CI.</figcaption>\n</figure>\n", ybar);
        (*figures)++;
        continue;
      }
      if (rc != FL_OK)
        continue;
      if (!headed++)
        fprintf(f, "<h2>%s against what varies</h2>\n", yhead);
      if (nsc > 1) {
        fputs("<h3>", f);
        fl_html_text(f, name, strlen(name));
        fputs("</h3>\n", f);
      }
      snprintf(list, sizeof list, "%s", keys);
      for (key = strtok_r(list, ", ", &save); rc == FL_OK && key; key = strtok_r(NULL, ", ", &save)) {
        fl_plot_opts po = {.x = key, .y = y, .scenario = name};
        snprintf(path, sizeof path, "%s/plot-%d.svg", tmp, *figures);
        po.file = path;
        if ((rc = fl_plot(db, &po)) != FL_OK ||
            (fputs("<figure class=\"plot\">\n", f), rc = fl_html_svg(f, path)) != FL_OK)
          break;
        fputs("\n<figcaption>", f);
        fl_html_text(f, name, strlen(name));
        fprintf(f, ": %s against ", ywhat);
        fl_html_text(f, key, strlen(key));
        fputs(", one line per strategy, shaded: 95 % CI.</figcaption>\n</figure>\n", f);
        (*figures)++;
      }
    }
  }
  sqlite3_finalize(sc);
  FL_TRY(rc);
done:
  return rc;
}

/* The run asked for (timeline_run > 0), else the one with the most failures, else the first that logged events, on
 * a time axis. */
static fl_err fl_html_timeline(FILE *f, sqlite3 *db, const char *db_label, const char *scenario, long timeline_run,
                               const char *tmp, int *figures)
{
  fl_err rc = FL_OK;
  char path[4200];
  sqlite3_stmt *st = NULL;
  long long run = 0;
  if (sqlite3_prepare_v2(db,
                         /* a run that had failures (the most), else the first that logged events */
                         "SELECT e.run_id FROM events e JOIN runs r ON r.id = e.run_id "
                         "WHERE ?1 IS NULL OR r.scenario = ?1 GROUP BY e.run_id "
                         "ORDER BY COALESCE(r.failures, 0) > 0 DESC, COALESCE(r.failures, 0) DESC, e.run_id LIMIT 1",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      run = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  if (timeline_run > 0) { /* the one asked for */
    st = NULL;
    FL_CHECK(sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE id = ?1", -1, &st, NULL) == SQLITE_OK, FL_ERR_DB,
             "%s: %s", db_label, sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, timeline_run);
    run = sqlite3_step(st) == SQLITE_ROW ? timeline_run : 0;
    sqlite3_finalize(st);
    FL_CHECK(run > 0, FL_ERR_INPUT, "--timeline %ld: no such run in %s", timeline_run, db_label);
  }
  if (run > 0) {
    fl_db *mem = NULL; /* the run simulated again with its phases, when it was stored without them */
    snprintf(path, sizeof path, "%s/timeline.svg", tmp);
    rc = fl_rerun_timeline(db, db_label, (long)run, &mem);
    if (rc == FL_OK)
      rc = fl_plot_timeline(mem ? fl_db_sqlite(mem) : db, run, path);
    fl_db_close(&mem);
    FL_TRY(rc);
    fprintf(f, "<h2>Run %lld, on a time axis</h2>\n<figure class=\"plot\">\n", run);
    FL_TRY(fl_html_svg(f, path));
    fputs(timeline_run > 0 ? "\n<figcaption>The run asked for: its phases"
                           : "\n<figcaption>The run with the most failures: its phases",
          f);
    fputs(" (compute, checkpoints, restarts, downtime, waiting for nodes), the work failures threw away, the "
          "failures, and each failed node's down time (task graphs: their events).</figcaption>\n</figure>\n",
          f);
    (*figures)++;
  }
done:
  return rc;
}

fl_err fl_report_html(sqlite3 *db, const char *db_label, const char *scenario, long timeline_run, const char *file)
{
  fl_err rc = FL_OK;
  char tmp[4096] = "", out_tmp[4200], when[64];
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
  fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em}\n"
        "pre{font-size:12px;overflow-x:auto;background:#f6f6f6;padding:1em}\n"
        ".wide{overflow-x:auto}\ntable{border-collapse:collapse;font-size:13px}\n"
        "th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;white-space:nowrap}\n"
        "th{white-space:normal;vertical-align:bottom}\n"
        ".ratio{color:#666;font-size:11px}\n"
        "th{background:#f0f0f0;position:sticky;top:0}\ntd.num{text-align:right;font-variant-numeric:tabular-nums}\n"
        "figure{margin:2em 0}\nfigure svg{width:100%;height:auto;max-width:1000px}\n"
        "figcaption{color:#555}\ntable.sortable th{cursor:pointer}\n"
        "th[aria-sort=ascending]::after{content:\" \\25B2\"}\nth[aria-sort=descending]::after{content:\" \\25BC\"}\n"
        "</style>\n</head>\n<body>\n<h1>faultline report</h1>\n<p>",
        f);
  fl_html_text(f, db_label, strlen(db_label));
  fprintf(f, "%s%s, written %s. Mean and 95 %% confidence interval over the completed replicas of each group.</p>\n",
          scenario ? ", scenario " : "", scenario ? scenario : "", when);
  FL_TRY(fl_html_summary(f, db, db_label, scenario));
  fputs("<details><summary>The same as text</summary>\n<pre id=\"table\">", f);
  fl_html_text(f, table, table_len);
  fputs("</pre></details>\n", f);
  FL_TRY(fl_html_paired(f, db, db_label, scenario));

  FL_TRY(fl_html_figures(f, db, scenario, tmp, &figures));
  FL_TRY(fl_html_timeline(f, db, db_label, scenario, timeline_run, tmp, &figures));
  if (!figures)
    fputs("<p>No scenario key varies between these rows and no run logged its events: nothing to draw.</p>\n", f);
  fputs(fl_html_sort_js, f);
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
