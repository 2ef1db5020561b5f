/* report.c — group runs and summarise them (see report.h). Rows come ordered by the group key, so one pass with
 * a growing buffer per metric is enough; statistics are computed here (GSL), not in SQL, to get Student-t
 * intervals. Job-level runs (bsp) and task-level runs (gridworld) have their own tables: the figures a user
 * compares differ (waste and interruptions; resilience and numerical error). */
#include "report.h"

#include "db.h"
#include "format.h"
#include "report_impl.h"
#include "rowset.h"
#include "scenario.h"
#include "stats.h"
#include "summary.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  FL_M_MAKESPAN,
  FL_M_WASTE,
  FL_M_FAILURES,
  FL_M_INTERRUPTIONS,
  FL_M_RESILIENCE,
  FL_M_ELINF,
  FL_M_EL1,
  FL_M_REPLICATED,
  FL_M_SUBSTITUTED,
  FL_M_LOST,
  FL_M_SPENT,
  FL_M_XFREE, /* task graphs: makespan / the failure-free simulated makespan */
  FL_M_NODEH, /* node-hours the job held (ranks x copies + spares) */
  FL_M_ENERGY,
  FL_NMETRICS
};

typedef struct fl_group {
  char key[1200];
  char scenario[400], mode[8], strategy[32], interval[128], model[32], mtbf[32], policy[64], weights[16];
  char cost[80]; /* delta / R, as priced (the platform's or the scenario's) */
  long nodes;
  size_t n, cap, failed, timeout, wrong; /* wrong: 'wrong_result' (also in the CSV's failed count) */
  double *m[FL_NMETRICS];
  /* grid-world task graphs: the share of sweeps done by the end, over every run (timeouts too: how far they got) */
  double progress_sum;
  size_t progress_n;
  /* the makespan column's one unit for every row of the table (from its largest value): its seconds, its name */
  double time_scale;
  const char *time_unit;
  /* node-hours and energy, when the table has them: each column's unit, from its largest value */
  int have_nh, have_e;
  double nh_scale, e_scale;
  const char *nh_unit, *e_unit;
} fl_group;

static int fl_group_push(fl_group *g, const double *values)
{
  if (g->n == g->cap) {
    size_t nc = g->cap ? 2 * g->cap : 64;
    for (int k = 0; k < FL_NMETRICS; k++) {
      double *a = realloc(g->m[k], nc * sizeof *a);
      if (!a)
        return -1;
      g->m[k] = a;
    }
    g->cap = nc;
  }
  for (int k = 0; k < FL_NMETRICS; k++)
    g->m[k][g->n] = values[k];
  g->n++;
  return 0;
}

/* A text table: rows of cells kept until the end, then printed with every column as wide as its widest cell
 * (counted in characters, not bytes: "±" is one). */
#define FL_TABLE_MAXCOLS 40
typedef struct fl_table {
  int ncols;
  unsigned right; /* bit c: column c is right-aligned (numbers) */
  size_t nrows, cap;
  char **cells; /* nrows * ncols, owned */
} fl_table;

static int fl_table_add(fl_table *t, const char *const *fields)
{
  if (t->nrows == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 16;
    char **c = realloc(t->cells, nc * (size_t)t->ncols * sizeof *c);
    if (!c)
      return -1;
    t->cells = c;
    t->cap = nc;
  }
  for (int k = 0; k < t->ncols; k++) {
    char *d = strdup(fields[k] ? fields[k] : "");
    if (!d) {
      for (int j = 0; j < k; j++)
        free(t->cells[t->nrows * (size_t)t->ncols + (size_t)j]);
      return -1;
    }
    t->cells[t->nrows * (size_t)t->ncols + (size_t)k] = d;
  }
  t->nrows++;
  return 0;
}

static size_t fl_utf8_len(const char *s)
{
  size_t n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static void fl_table_free(fl_table *t)
{
  for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

/* The length of the "section.key=value" at s in a blank-separated list of them: a value may hold blanks
 * ("strategy.levels=local:1 file:8"), so it ends where a blank is followed by the next "section.key=", or at a
 * character of `stop`, or at the end. */
static size_t fl_variant_len(const char *s, const char *stop)
{
  size_t n = 0;
  for (; s[n] && !strchr(stop, s[n]); n++) {
    const char *q = s + n + 1;
    size_t sec, key;
    if (s[n] != ' ')
      continue;
    sec = strspn(q, "abcdefghijklmnopqrstuvwxyz_");
    if (sec == 0 || q[sec] != '.')
      continue;
    key = strspn(q + sec + 1, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (key > 0 && q[sec + 1 + key] == '=')
      break;
  }
  return n;
}

/* Every override that varies between the rows ("name [k=v k2=v2]" in the first column) gets a column of its own,
 * after the first: the first column keeps the name. Returns the new table in *o (t is left as it is), or 0 when no
 * row has such a suffix (*o untouched). */
static int fl_table_split_variants(const fl_table *t, fl_table *o)
{
  char *keys[FL_TABLE_MAXCOLS];
  int nkeys = 0, ok = 1;
  for (size_t r = 1; r < t->nrows; r++) { /* row 0 is the header */
    const char *c = t->cells[r * (size_t)t->ncols], *lb = strstr(c, " [");
    char *copy;
    if (!lb || c[strlen(c) - 1] != ']')
      continue;
    copy = strndup(lb + 2, strlen(lb + 2) - 1);
    for (const char *kv = copy; kv && *kv; kv += fl_variant_len(kv, ""), kv += *kv == ' ') {
      size_t kl = strcspn(kv, "=");
      int seen = 0;
      for (int k = 0; k < nkeys; k++)
        seen |= strlen(keys[k]) == kl && strncmp(keys[k], kv, kl) == 0;
      if (!seen && nkeys < FL_TABLE_MAXCOLS - t->ncols)
        keys[nkeys++] = strndup(kv, kl);
    }
    free(copy);
  }
  if (nkeys == 0)
    return 0;
  memset(o, 0, sizeof *o);
  o->ncols = t->ncols + nkeys;
  o->right = ((t->right >> 1) << (1 + nkeys)) | (t->right & 1u);
  for (size_t r = 0; r < t->nrows && ok; r++) {
    const char *row[FL_TABLE_MAXCOLS];
    char name[512], vals[FL_TABLE_MAXCOLS][128];
    const char *c = t->cells[r * (size_t)t->ncols], *lb = r ? strstr(c, " [") : NULL;
    snprintf(name, sizeof name, "%.*s", lb ? (int)(lb - c) : (int)strlen(c), c);
    row[0] = name;
    for (int k = 0; k < nkeys; k++) {
      const char *hit = NULL;
      if (r == 0) {
        snprintf(vals[k], sizeof vals[k], "%s", keys[k]);
      } else {
        snprintf(vals[k], sizeof vals[k], "-");
        for (const char *p = lb ? strstr(lb, keys[k]) : NULL; p; p = strstr(p + 1, keys[k]))
          if ((p[-1] == '[' || p[-1] == ' ') && p[strlen(keys[k])] == '=') {
            hit = p + strlen(keys[k]) + 1;
            break;
          }
        if (hit) { /* up to the next key, or to the bracket that closes the name */
          size_t n = fl_variant_len(hit, "");
          n -= !hit[n] && n > 0 && hit[n - 1] == ']';
          snprintf(vals[k], sizeof vals[k], "%.*s", (int)n, hit);
        }
      }
      row[1 + k] = vals[k];
    }
    for (int k = 1; k < t->ncols; k++)
      row[nkeys + k] = t->cells[r * (size_t)t->ncols + (size_t)k];
    ok = fl_table_add(o, row) == 0;
  }
  for (int k = 0; k < nkeys; k++)
    free(keys[k]);
  if (!ok)
    fl_table_free(o);
  return ok;
}

static void fl_table_print(const fl_table *t, int markdown, FILE *out)
{
  size_t w[FL_TABLE_MAXCOLS] = {0};
  for (size_t r = 0; r < t->nrows; r++)
    for (int k = 0; k < t->ncols; k++) {
      size_t l = fl_utf8_len(t->cells[r * (size_t)t->ncols + (size_t)k]);
      if (l > w[k])
        w[k] = l;
    }
  for (size_t r = 0; r < t->nrows; r++) {
    if (markdown) { /* | a | b |, the header underlined, numbers right-aligned */
      for (int k = 0; k < t->ncols; k++)
        fprintf(out, "| %s ", t->cells[r * (size_t)t->ncols + (size_t)k]);
      fputs("|\n", out);
      if (r == 0) {
        for (int k = 0; k < t->ncols; k++)
          fputs((t->right >> k & 1u) ? "| ---: " : "| --- ", out);
        fputs("|\n", out);
      }
      continue;
    }
    for (int k = 0; k < t->ncols; k++) {
      const char *c = t->cells[r * (size_t)t->ncols + (size_t)k];
      size_t pad = w[k] - fl_utf8_len(c);
      if (k > 0)
        fputs("  ", out);
      if (t->right >> k & 1u)
        fprintf(out, "%*s%s", (int)pad, "", c);
      else if (k + 1 < t->ncols)
        fprintf(out, "%s%*s", c, (int)pad, "");
      else
        fputs(c, out); /* no trailing blanks */
    }
    fputc('\n', out);
  }
}

/* A duration column's one unit, from its largest value: days, hours, minutes or seconds. */
static void fl_time_unit(double largest, double *scale, const char **name)
{
  *scale = largest >= 2 * 86400.0 ? 86400.0 : largest >= 2 * 3600.0 ? 3600.0 : largest >= 120.0 ? 60.0 : 1.0;
  *name = *scale == 86400.0 ? "d" : *scale == 3600.0 ? "h" : *scale == 60.0 ? "min" : "s";
}

static void fl_fmt_sig(double v, int digits, char *buf, size_t size);

/* "mean ± half" of a duration in the column's unit (fl_group: one for every row), 3 significant digits for the
 * mean and 2 for the interval: 16.2d beside 1.03d, not 16.20d beside 1.03d nor 16.2d beside 1.0d */
static void fl_fmt_ci_duration(const fl_group *g, int k, char *buf, size_t size)
{
  double m, h, sc = g->time_scale > 0 ? g->time_scale : 1.0;
  const char *u = g->time_unit ? g->time_unit : "s";
  char a[48], b[48];
  fl_stats_ci(g->m[k], g->n, 0.95, &m, &h);
  if (isnan(m)) {
    snprintf(buf, size, "-");
    return;
  }
  fl_fmt_sig(m / sc, 3, a, sizeof a);
  if (isnan(h)) {
    snprintf(buf, size, "%s%s", a, u);
    return;
  }
  fl_fmt_sig(h / sc, 2, b, sizeof b);
  snprintf(buf, size, "%s%s ± %s%s", a, u, b, u);
}

/* A count or a percentage for a person: 3 significant digits for a mean, 2 for its interval, never an exponent
 * (520, not 520.1; 160, not 1.6e+02). */
static void fl_fmt_sig(double v, int digits, char *buf, size_t size)
{
  if (fabs(v) >= pow(10.0, digits)) {
    double unit = pow(10.0, floor(log10(fabs(v))) - digits + 1);
    snprintf(buf, size, "%.0f", round(v / unit) * unit);
  } else {
    snprintf(buf, size, "%.*g", digits, v);
  }
}

/* "mean ± half" of figure k, scaled (100 for percentages), 3 and 2 significant digits, `suffix` after each. */
static void fl_fmt_ci_sig(const fl_group *g, int k, double scale, const char *suffix, char *buf, size_t size)
{
  double m, h;
  char a[48], b[48];
  fl_stats_ci(g->m[k], g->n, 0.95, &m, &h);
  if (isnan(m)) {
    snprintf(buf, size, "-");
    return;
  }
  fl_fmt_sig(scale * m, 3, a, sizeof a);
  if (isnan(h)) {
    snprintf(buf, size, "%s%s", a, suffix);
    return;
  }
  fl_fmt_sig(scale * h, 2, b, sizeof b);
  snprintf(buf, size, "%s%s ± %s%s", a, suffix, b, suffix);
}

/* "mean ± half" with printf format `num` for each, scaled by `scale` (100 for percentages). */
static void fl_fmt_ci(const fl_group *g, int k, double scale, const char *num, char *buf, size_t size)
{
  double m, h;
  char f[32];
  fl_stats_ci(g->m[k], g->n, 0.95, &m, &h);
  if (isnan(m)) {
    snprintf(buf, size, "-");
    return;
  }
  if (isnan(h)) {
    snprintf(buf, size, num, scale * m);
    return;
  }
  snprintf(f, sizeof f, "%s ± %s", num, num);
  snprintf(buf, size, f, scale * m, scale * h);
}

static void fl_group_runs(const fl_group *g, char *buf, size_t size)
{
  if (g->wrong)
    snprintf(buf, size, "%zu (+%zu failed, %zu timeout, %zu wrong result)", g->n, g->failed, g->timeout, g->wrong);
  else if (g->failed || g->timeout)
    snprintf(buf, size, "%zu (+%zu failed, %zu timeout)", g->n, g->failed, g->timeout);
  else
    snprintf(buf, size, "%zu", g->n);
}

/* One group: a row of tab. -1 when out of memory. */
/* tasks: 0 job-level runs, 1 grid-world sweeps, 2 task graphs (app = workflow) */
static int fl_group_print(const fl_group *g, int tasks, fl_table *tab)
{
  char nodes[32];
  double mean[FL_NMETRICS], half[FL_NMETRICS];
  char c[FL_NMETRICS][128], runs[64];
  for (int k = 0; k < FL_NMETRICS; k++)
    fl_stats_ci(g->m[k], g->n, 0.95, &mean[k], &half[k]);
  fl_group_runs(g, runs, sizeof runs);
  snprintf(nodes, sizeof nodes, "%ld", g->nodes);
  fl_fmt_ci_duration(g, FL_M_MAKESPAN, c[FL_M_MAKESPAN], sizeof c[0]);
  if (!tasks) {
    const char *row[16];
    int n = 0;
    fl_fmt_ci_sig(g, FL_M_WASTE, 100.0, "%", c[FL_M_WASTE], sizeof c[0]);
    fl_fmt_ci_sig(g, FL_M_FAILURES, 1.0, "", c[FL_M_FAILURES], sizeof c[0]);
    fl_fmt_ci_sig(g, FL_M_INTERRUPTIONS, 1.0, "", c[FL_M_INTERRUPTIONS], sizeof c[0]);
    fl_fmt_ci_sig(g, FL_M_NODEH, 1.0 / g->nh_scale, "", c[FL_M_NODEH], sizeof c[0]);
    fl_fmt_ci_sig(g, FL_M_ENERGY, 1.0 / g->e_scale, "", c[FL_M_ENERGY], sizeof c[0]);
    row[n++] = g->scenario;
    row[n++] = g->mode;
    row[n++] = g->strategy;
    row[n++] = g->interval;
    row[n++] = nodes;
    row[n++] = g->mtbf;
    row[n++] = g->model;
    row[n++] = g->cost;
    row[n++] = runs;
    row[n++] = c[FL_M_MAKESPAN];
    row[n++] = c[FL_M_WASTE];
    if (g->have_nh)
      row[n++] = c[FL_M_NODEH];
    if (g->have_e)
      row[n++] = c[FL_M_ENERGY];
    row[n++] = c[FL_M_FAILURES];
    row[n++] = c[FL_M_INTERRUPTIONS];
    return fl_table_add(tab, row);
  }
  if (tasks == 2) {
    fl_fmt_ci(g, FL_M_WASTE, 1.0, "%.3g", c[FL_M_WASTE], sizeof c[0]);
    fl_fmt_ci(g, FL_M_LOST, 1.0, "%.4g", c[FL_M_LOST], sizeof c[0]);
    fl_fmt_ci(g, FL_M_REPLICATED, 1.0, "%.4g", c[FL_M_REPLICATED], sizeof c[0]);
    fl_fmt_ci(g, FL_M_SUBSTITUTED, 1.0, "%.4g", c[FL_M_SUBSTITUTED], sizeof c[0]);
    fl_fmt_ci(g, FL_M_SPENT, 1.0, "%.4g", c[FL_M_SPENT], sizeof c[0]);
    fl_fmt_ci(g, FL_M_ELINF, 1.0, "%.3g", c[FL_M_ELINF], sizeof c[0]);
    fl_fmt_ci(g, FL_M_XFREE, 1.0, "%.3g", c[FL_M_XFREE], sizeof c[0]);
    {
      char done[32] = "-";
      if (g->progress_n)
        snprintf(done, sizeof done, "%.1f%%", 100.0 * g->progress_sum / (double)g->progress_n);
      const char *row[] = {g->scenario,
                           g->mode,
                           g->strategy,
                           g->policy,
                           g->mtbf,
                           runs,
                           c[FL_M_MAKESPAN],
                           c[FL_M_XFREE],
                           c[FL_M_WASTE],
                           c[FL_M_LOST],
                           c[FL_M_REPLICATED],
                           c[FL_M_SUBSTITUTED],
                           c[FL_M_SPENT],
                           c[FL_M_ELINF],
                           done};
      return fl_table_add(tab, row);
    }
  }
  fl_fmt_ci(g, FL_M_RESILIENCE, 100.0, "%.1f%%", c[FL_M_RESILIENCE], sizeof c[0]);
  fl_fmt_ci(g, FL_M_ELINF, 1.0, "%.3g", c[FL_M_ELINF], sizeof c[0]);
  fl_fmt_ci(g, FL_M_EL1, 1.0, "%.3g", c[FL_M_EL1], sizeof c[0]);
  fl_fmt_ci(g, FL_M_REPLICATED, 1.0, "%.3g", c[FL_M_REPLICATED], sizeof c[0]);
  fl_fmt_ci(g, FL_M_SUBSTITUTED, 1.0, "%.3g", c[FL_M_SUBSTITUTED], sizeof c[0]);
  {
    const char *row[] = {g->scenario,        g->mode,       g->strategy, g->weights,
                         g->policy,          nodes,         runs,        c[FL_M_MAKESPAN],
                         c[FL_M_RESILIENCE], c[FL_M_ELINF], c[FL_M_EL1], c[FL_M_REPLICATED],
                         c[FL_M_SUBSTITUTED]};
    return fl_table_add(tab, row);
  }
}

static double fl_col(sqlite3_stmt *st, int i)
{
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static const char *fl_text(sqlite3_stmt *st, int i)
{
  const char *t = (const char *)sqlite3_column_text(st, i);
  return t ? t : "";
}

/* 1 when runs has column `name` (report opens older databases read-only, as they are). */
static int fl_has_column(sqlite3 *db, const char *name)
{
  sqlite3_stmt *st = NULL;
  int have = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('runs') WHERE name = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    have = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return have;
}

/* 1 when runs has the lossy-CG columns (databases written before them lack them; report opens read-only). */
static int fl_has_codec_column(sqlite3 *db)
{
  return fl_has_column(db, "codec");
}

double fl_report_col(sqlite3_stmt *st, int i)
{
  return fl_col(st, i);
}

const char *fl_report_text(sqlite3_stmt *st, int i)
{
  return fl_text(st, i);
}

int fl_report_has_column(sqlite3 *db, const char *name)
{
  return fl_has_column(db, name);
}

/* The sections of one app's studies (report_sections/), after the shared tables, in this order. */
#define FL_REPORT_SECTION_ENTRY(name) &fl_report_section_##name,
static const fl_report_section *const fl_report_sections[] = {FL_REPORT_SECTIONS(FL_REPORT_SECTION_ENTRY)};
#undef FL_REPORT_SECTION_ENTRY

/* One table: job-level runs (tasks = 0), grid-world sweeps (tasks = 1) or task graphs (tasks = 2). */
/* The table's header, from the first row: a job's columns (node-hours and energy when the rows have them, each in
 * the unit its largest value reads best in), a grid world's or a task graph's. */
static fl_err fl_report_head(sqlite3_stmt *st, int tasks, fl_group *g, fl_table *tab)
{
  fl_err rc = FL_OK;
  if (!tasks) {
    /* node-hours and energy when the rows have them, each in the unit its largest value reads best in */
    double nh = fl_col(st, 33), e = fl_col(st, 34);
    const char *head[16];
    static char nh_head[48], e_head[48];
    int n = 0;
    g->have_nh = !isnan(nh);
    g->have_e = !isnan(e);
    g->nh_scale = nh >= 1e6 ? 1e6 : nh >= 1e3 ? 1e3 : 1.0;
    g->nh_unit = nh >= 1e6 ? "M node-h" : nh >= 1e3 ? "k node-h" : "node-h";
    g->e_scale = e >= 3.6e12 ? 3.6e12 : e >= 3.6e9 ? 3.6e9 : 3.6e6;
    g->e_unit = e >= 3.6e12 ? "GWh" : e >= 3.6e9 ? "MWh" : "kWh";
    snprintf(nh_head, sizeof nh_head, "%s (95%% CI)", g->nh_unit);
    snprintf(e_head, sizeof e_head, "energy %s (95%% CI)", g->e_unit);
    head[n++] = "scenario";
    head[n++] = "mode";
    head[n++] = "strategy";
    head[n++] = "interval";
    head[n++] = "ranks";
    head[n++] = "node-MTBF";
    head[n++] = "model";
    head[n++] = "δ / R";
    head[n++] = "runs";
    head[n++] = "makespan (95% CI)";
    head[n++] = "waste (95% CI)";
    if (g->have_nh)
      head[n++] = nh_head;
    if (g->have_e)
      head[n++] = e_head;
    head[n++] = "failures";
    head[n++] = "interruptions";
    tab->ncols = n;
    if (fl_table_add(tab, head) != 0) {
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
      goto done;
    }
  } else {
    static const char *const task_head[] = {"scenario", "mode",       "strategy",      "weights",    "policy (budget)",
                                            "tasks",    "runs",       "time (95% CI)", "resilience", "error Linf",
                                            "error L1", "replicated", "substituted"};
    static const char *const graph_head[] = {"scenario",    "mode",       "strategy",          "policy (budget)",
                                             "node-MTBF",   "runs",       "makespan (95% CI)", "x failure-free",
                                             "x schedule",  "lost",       "re-executed",       "substituted",
                                             "error spent", "error Linf", "sweeps done"};
    if (fl_table_add(tab, tasks == 2 ? graph_head : task_head) != 0) {
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
      goto done;
    }
  }
done:
  return rc;
}

/* A row into its group: a completed run's figures, else its status counted. */
static fl_err fl_report_tally(fl_group *g, sqlite3_stmt *st, int tasks, const char *status, double makespan,
                              double work, double iters)
{
  fl_err rc = FL_OK;
  double v[FL_NMETRICS];
  if (strcmp(status, "completed") == 0 && makespan > 0) {
    v[FL_M_MAKESPAN] = makespan;
    v[FL_M_WASTE] = 1.0 - work / makespan;
    v[FL_M_FAILURES] = fl_col(st, 11);
    v[FL_M_INTERRUPTIONS] = fl_col(st, 12);
    v[FL_M_RESILIENCE] = iters > 0 ? fl_col(st, 17) / iters : NAN;
    v[FL_M_ELINF] = fl_col(st, 18);
    v[FL_M_EL1] = fl_col(st, 19);
    v[FL_M_REPLICATED] = iters > 0 ? fl_col(st, 20) / iters : NAN;
    v[FL_M_SUBSTITUTED] = iters > 0 ? fl_col(st, 21) / iters : NAN;
    v[FL_M_LOST] = fl_col(st, 24);
    v[FL_M_SPENT] = fl_col(st, 25);
    v[FL_M_XFREE] = fl_col(st, 30) > 0 ? makespan / fl_col(st, 30) : NAN;
    v[FL_M_NODEH] = fl_col(st, 31);
    v[FL_M_ENERGY] = fl_col(st, 32);
    if (tasks == 2) { /* a task graph: per run, and its makespan against the failure-free schedule */
      v[FL_M_WASTE] = work > 0 ? makespan / work : NAN;
      v[FL_M_REPLICATED] = fl_col(st, 20);
      v[FL_M_SUBSTITUTED] = fl_col(st, 21);
    }
    if (fl_group_push(g, v) != 0) {
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
      goto done;
    }
  } else if (strcmp(status, "timeout") == 0) {
    g->timeout++;
  } else if (strcmp(status, "wrong_result") == 0) {
    g->wrong++;
  } else {
    g->failed++;
  }
done:
  return rc;
}

/* A group starts with this row: its key, and the columns every row of it shows (the scenario with the overrides the
 * other columns do not show, the strategy, interval, model, costs, MTBF, weights, policy, ranks). */
static void fl_report_group_start(fl_group *g, sqlite3_stmt *st, const char *key, const char *interval,
                                  const char *mtbf, const char *policy, long nodes)
{
  snprintf(g->key, sizeof g->key, "%s", key);
  /* overrides the other columns do not show tell the group apart: "quickstart [failures.shape=0.5]" */
  if (fl_text(st, 22)[0])
    snprintf(g->scenario, sizeof g->scenario, "%.127s [%.255s]", fl_text(st, 0), fl_text(st, 22));
  else
    snprintf(g->scenario, sizeof g->scenario, "%.127s", fl_text(st, 0));
  snprintf(g->mode, sizeof g->mode, "%s", fl_text(st, 1));
  snprintf(g->strategy, sizeof g->strategy, "%s", fl_text(st, 2));
  snprintf(g->interval, sizeof g->interval, "%s", interval);
  snprintf(g->model, sizeof g->model, "%s", fl_text(st, 7));
  {
    char d[32], r[32];
    if (sqlite3_column_type(st, 26) == SQLITE_NULL)
      snprintf(d, sizeof d, "-");
    else
      fl_units_format_duration(sqlite3_column_double(st, 26), d, sizeof d);
    if (sqlite3_column_type(st, 27) == SQLITE_NULL)
      snprintf(r, sizeof r, "-");
    else
      fl_units_format_duration(sqlite3_column_double(st, 27), r, sizeof r);
    snprintf(g->cost, sizeof g->cost, "%s / %s", d, r);
  }
  snprintf(g->mtbf, sizeof g->mtbf, "%s", mtbf);
  snprintf(g->weights, sizeof g->weights, "%s", sqlite3_column_type(st, 14) == SQLITE_NULL ? "-" : fl_text(st, 14));
  snprintf(g->policy, sizeof g->policy, "%s", policy);
  g->nodes = nodes;
}

static fl_err fl_report_table(sqlite3 *db, const fl_report_opts *opt, int tasks, FILE *out, int *rows_out)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  fl_group g;
  fl_table tab = {.ncols = tasks == 2 ? 15 : 13, .right = tasks == 1 ? 1u << 5 : tasks == 2 ? 0 : 1u << 4};
  int have = 0, rows = 0;
  double iv_scale = 1.0;
  const char *iv_unit = "s";
  const char *sql =
      "SELECT scenario, mode, strategy, interval_rule, interval_s, nodes, node_mtbf_s, failure_model, status,"
      "       makespan_s, work_s, failures, interruptions, policy, weights, error_budget, iterations,"
      "       complete_iterations, error_linf, error_l1, tasks_replicated, tasks_substituted,"
      "       fl_variant(overrides), %s AS fl_text_hash, %s, checkpoint_cost_s, restart_cost_s,"
      "       MAX(CASE status WHEN 'completed' THEN makespan_s END) OVER (),"
      "       MAX(CASE WHEN interval_rule IS NOT 'hazard' THEN interval_s END) OVER (), %s, %s"
      "  FROM runs"
      " WHERE (?1 IS NULL OR scenario = ?1) AND (?2 = 0 OR id IN temp.fl_report_ids)"
      "   AND (CASE app WHEN 'gridworld' THEN 1 WHEN 'workflow' THEN 2 WHEN 'workload' THEN 3 ELSE 0 END) = ?4"
      "   AND %s"
      " ORDER BY scenario, fl_text_hash, fl_variant_order(overrides), fl_variant(overrides), mode, strategy,"
      "          interval_s, nodes, node_mtbf_s, failure_model, weights, policy, error_budget, id";
  const int lossy = fl_has_codec_column(db);
  /* the task-graph columns (tasks_lost, error_spent) are absent from databases written before them */
  const int graphs = fl_has_column(db, "tasks_lost");
  char *q = sqlite3_mprintf(sql, fl_db_text_hash_sql(db), graphs ? "tasks_lost, error_spent" : "NULL, NULL",
                            fl_has_column(db, "failure_free_s") ? "failure_free_s" : "NULL",
                            /* 31..34: node-hours and energy, and each one's largest completed mean's scale */
                            fl_has_column(db, "node_hours") && fl_has_column(db, "energy_j")
                                ? "node_hours, energy_j, MAX(CASE status WHEN 'completed' THEN node_hours END) OVER (),"
                                  " MAX(CASE status WHEN 'completed' THEN energy_j END) OVER ()"
                                : "NULL, NULL, NULL, NULL",
                            /* the lossy-CG study's rows have a table of their own; a database from before its
                             * columns has none */
                            lossy ? "(?5 = 0 OR codec IS NULL)" : "?5 = 0");

  memset(&g, 0, sizeof g);
  if (!q || sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
    rc = fl_err_set(FL_ERR_DB, "%s: report query: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
    sqlite3_free(q);
    goto done;
  }
  sqlite3_free(q);
  if (opt->scenario)
    sqlite3_bind_text(st, 1, opt->scenario, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, opt->min_id);
  sqlite3_bind_int64(st, 3, opt->max_id);
  sqlite3_bind_int(st, 4, tasks);
  sqlite3_bind_int(st, 5, lossy);
  for (;;) {
    int step = sqlite3_step(st);
    char key[640], interval[128], mtbf[32], policy[64];
    const char *rule, *status;
    double tau, mtbf_s, makespan, work, iters;
    long nodes;
    if (step == SQLITE_DONE)
      break;
    if (step != SQLITE_ROW) {
      rc = fl_err_set(FL_ERR_DB, "%s: report query: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
      goto done;
    }
    if (rows++ == 0)
      FL_TRY(fl_report_head(st, tasks, &g, &tab));
    rule = (const char *)sqlite3_column_text(st, 3);
    tau = fl_col(st, 4);
    nodes = (long)sqlite3_column_int64(st, 5);
    mtbf_s = fl_col(st, 6);
    status = fl_text(st, 8);
    makespan = fl_col(st, 9);
    work = sqlite3_column_double(st, 10);
    iters = fl_col(st, 16);
    if (rows == 1) /* the interval column's one unit, from its largest value; 3 significant digits each */
      fl_time_unit(fl_col(st, 29), &iv_scale, &iv_unit);
    if (isnan(tau) || (rule && strcmp(rule, "hazard") == 0))
      /* hazard: each interval comes from the nodes' ages; the row's interval_s is only Young's, where it starts */
      snprintf(interval, sizeof interval, "%s", rule ? rule : "-");
    else
      snprintf(interval, sizeof interval, "%.3g%s%s%s", tau / iv_scale, iv_unit,
               rule && strcmp(rule, "fixed") != 0 ? " " : "", rule && strcmp(rule, "fixed") != 0 ? rule : "");
    if (isnan(mtbf_s))
      snprintf(mtbf, sizeof mtbf, "-");
    else
      fl_units_format_duration(mtbf_s, mtbf, sizeof mtbf);
    if (sqlite3_column_type(st, 13) == SQLITE_NULL)
      snprintf(policy, sizeof policy, "-");
    else
      snprintf(policy, sizeof policy, "%s (%.4g)", fl_text(st, 13), fl_col(st, 15));
    snprintf(key, sizeof key, "%s|%s|%s|%.17g|%ld|%.17g|%s|%s|%s|%s|%s", fl_text(st, 0), fl_text(st, 1), fl_text(st, 2),
             tau, nodes, mtbf_s, fl_text(st, 7), fl_text(st, 14), policy, fl_text(st, 22), fl_text(st, 23));
    if (!have || strcmp(key, g.key) != 0) {
      if (have && fl_group_print(&g, tasks, &tab) != 0) {
        rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
        goto done;
      }
      g.n = g.failed = g.timeout = g.wrong = g.progress_n = 0;
      g.progress_sum = 0.0;
      if (!have) { /* the column's unit, from the largest makespan the table shows */
        double largest = fl_col(st, 28);
        fl_time_unit(largest, &g.time_scale, &g.time_unit);
      }
      have = 1;
      fl_report_group_start(&g, st, key, interval, mtbf, policy, nodes);
    }
    if (tasks == 2 && iters > 0 && sqlite3_column_type(st, 17) != SQLITE_NULL &&
        (strcmp(status, "completed") == 0 || strcmp(status, "timeout") == 0)) {
      g.progress_sum += fl_col(st, 17) / iters; /* a grid world's sweeps done, timeouts included */
      g.progress_n++;
    }
    FL_TRY(fl_report_tally(&g, st, tasks, status, makespan, work, iters));
  }
  if (have && fl_group_print(&g, tasks, &tab) != 0) {
    rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
    goto done;
  }
  {
    fl_table split;
    const fl_table *show = fl_table_split_variants(&tab, &split) ? &split : &tab;
    fl_table_print(show, opt->format && opt->format->markdown, out);
    if (show == &split)
      fl_table_free(&split);
  }
done:
  fl_table_free(&tab);
  *rows_out = rows;
  sqlite3_finalize(st);
  for (int k = 0; k < FL_NMETRICS; k++)
    free(g.m[k]);
  return rc;
}

/* The rows a report is limited to, as a temporary table of this connection (the database itself is not
 * touched: TEMP tables live apart, also on a read-only connection). */
static fl_err fl_report_select_ids(sqlite3 *db, const fl_report_opts *opt)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  const char *name = sqlite3_db_filename(db, "main");
  FL_CHECK(sqlite3_exec(db,
                        "CREATE TEMP TABLE IF NOT EXISTS fl_report_ids (id INTEGER PRIMARY KEY);"
                        " DELETE FROM temp.fl_report_ids",
                        NULL, NULL, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s: report: %s", name, sqlite3_errmsg(db));
  if (opt->ids) {
    FL_CHECK(sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.fl_report_ids VALUES (?1)", -1, &st, NULL) == SQLITE_OK,
             FL_ERR_DB, "%s: report: %s", name, sqlite3_errmsg(db));
    for (size_t k = 0; k < opt->nids; k++) {
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, opt->ids[k]);
      FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_DB, "%s: report: %s", name, sqlite3_errmsg(db));
    }
  } else if (opt->min_id) {
    FL_CHECK(sqlite3_prepare_v2(db, "INSERT INTO temp.fl_report_ids SELECT id FROM runs WHERE id BETWEEN ?1 AND ?2", -1,
                                &st, NULL) == SQLITE_OK,
             FL_ERR_DB, "%s: report: %s", name, sqlite3_errmsg(db));
    sqlite3_bind_int64(st, 1, opt->min_id);
    sqlite3_bind_int64(st, 2, opt->max_id);
    FL_CHECK(sqlite3_step(st) == SQLITE_DONE, FL_ERR_DB, "%s: report: %s", name, sqlite3_errmsg(db));
  }
done:
  sqlite3_finalize(st);
  return rc;
}

/* Keys a report row shows in its own columns, or that do not change an experiment (where results go, how many
 * replicas, which seed: rows of several seeds are more samples of one experiment). */
static int fl_variant_hidden(const char *key, size_t n)
{
  static const char *const shown[] = {"strategy.kind", "strategy.interval", "failures.model", "failures.node_mtbf",
                                      "app.nodes",     "policy.kind",       "policy.weights", "policy.error_budget",
                                      "run.db",        "run.replicas",      "run.seed",       "run.events",
                                      "run.name",      "run.sweep"};
  for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++)
    if (strlen(shown[i]) == n && strncmp(shown[i], key, n) == 0)
      return 1;
  return 0;
}

/* Is the override `line` (n characters, its key the first k) set again further on in the list? Then the later value
 * is the one the run used. */
static int fl_override_set_later(const char *line, size_t n, size_t k)
{
  for (const char *q = line + n; k < n && *q; q += strcspn(q + 1, "\n") + 1)
    if (q[0] == '\n' && strncmp(q + 1, line, k + 1) == 0)
      return 1;
  return 0;
}

/* SQL function fl_variant(overrides): the overrides that make a row's experiment differ from its scenario file's
 * and that no other column shows, blank-separated, in their order ("failures.shape=0.5 mpi.checkpoint_every=5");
 * a key set more than once shows its last value (`faultline run --kill A --kill B` records mpi.kill=A, then
 * mpi.kill=A B). */
static void fl_sql_variant(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  const char *o = (const char *)sqlite3_value_text(argv[0]);
  char *buf;
  size_t used = 0, len;
  (void)argc;
  if (!o) {
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    return;
  }
  len = strlen(o);
  if (!(buf = sqlite3_malloc64(len + 1))) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (const char *line = o; *line;) {
    size_t n = strcspn(line, "\n"), k = strcspn(line, "=");
    if (n > 0 && !fl_override_set_later(line, n, k) && !fl_variant_hidden(line, k < n ? k : n)) {
      if (used)
        buf[used++] = ' ';
      memcpy(buf + used, line, n);
      used += n;
    }
    line += n + (line[n] == '\n');
  }
  buf[used] = '\0';
  sqlite3_result_text(ctx, buf, (int)used, sqlite3_free);
}

/* SQL function fl_variant_order(overrides): a sort key that orders rows by the keys their overrides set (a sweep's
 * keys, the slowest first as the sweep ran them; run.* left out), each by its value in SI units when the key takes a
 * number (1y after 6 months, 10y after 2y), else by its text. Numbers are written as the hex of an
 * order-preserving transform of the double. The scenario it parses values with is the function's own. */
static void fl_sql_variant_order(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
  fl_scenario *scratch = sqlite3_user_data(ctx);
  const char *o = (const char *)sqlite3_value_text(argv[0]);
  char part[64][96]; /* each override's sort term, in the overrides' order */
  int nparts = 0;
  sqlite3_str *out;
  (void)argc;
  for (const char *line = o ? o : ""; *line && nparts < 64;) {
    size_t n = strcspn(line, "\n"), k = strcspn(line, "=");
    if (n > 0 && k < n && !fl_override_set_later(line, n, k) && strncmp(line, "run.", 4) != 0) {
      char assign[512], name[128];
      double v;
      snprintf(assign, sizeof assign, "%.*s", (int)n, line);
      snprintf(name, sizeof name, "%.*s", (int)(k < sizeof name ? k : sizeof name - 1), line);
      if (scratch && fl_scenario_set(scratch, assign) == FL_OK && fl_scenario_number(scratch, name, &v)) {
        uint64_t b;
        memcpy(&b, &v, sizeof b);
        b = (b >> 63) ? ~b : b | (1ull << 63); /* negative numbers below positive ones, each in order */
        snprintf(part[nparts++], sizeof part[0], "%.60s=#%016llx", name, (unsigned long long)b);
      } else {
        snprintf(part[nparts++], sizeof part[0], "%.60s=$%.*s", name, (int)(n - k - 1), line + k + 1);
      }
    }
    line += n + (line[n] == '\n');
  }
  /* a sweep writes its fastest key first (core/sweep.c): the slowest first here, as the sweep ran */
  out = sqlite3_str_new(NULL);
  for (int i = nparts - 1; i >= 0; i--)
    sqlite3_str_appendf(out, "%s\x1f", part[i]);
  {
    int len = sqlite3_str_length(out);
    char *text = sqlite3_str_finish(out);
    if (!text && len) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_result_text(ctx, text ? text : "", text ? len : 0, text ? sqlite3_free : SQLITE_STATIC);
  }
}

/* The scratch scenario goes with the function (SQLite calls this when the connection closes or the function is
 * registered again, and when registering it fails). */
static void fl_scratch_free(void *p)
{
  fl_scenario *sc = p;
  fl_scenario_destroy(&sc);
}

/* Workload runs (app.kind = workload): the machine's figures per configuration (summary.h's groups), mean ± the
 * half-width of the 95 % interval over the completed runs. */
static fl_err fl_report_machine(sqlite3 *db, const fl_report_opts *opt, FILE *out, int *rows_out)
{
  /* heads for fl_summary_machine_figs, in its order */
  static const char *const heads[] = {"utilisation",       "useful node-h",    "overhead node-h", "lost node-h",
                                      "checkpoint node-h", "restart node-h",   "I/O wait node-h", "copies node-h",
                                      "mean wait",         "bounded slowdown", "failures"};
  enum { NF = sizeof heads / sizeof heads[0] };
  int nfigs;
  const char *const *figs = fl_summary_machine_figs(&nfigs);
  fl_err rc = FL_OK;
  fl_summary *sm = NULL;
  fl_table tab = {.ncols = 0};
  int idx[NF];
  char where[160];
  const char **head = NULL, **row = NULL;
  char(*cells)[96] = NULL;
  *rows_out = 0;
  FL_CHECK(nfigs == NF, FL_ERR_INTERNAL, "report: %d machine figures, %d heads", nfigs, (int)NF);
  if (!fl_has_column(db, "utilisation"))
    return FL_OK; /* a file from before workloads */
  snprintf(where, sizeof where, "app = 'workload'%s",
           opt->min_id ? " AND id IN (SELECT id FROM temp.fl_report_ids)" : "");
  {
    fl_summary_opts so = {opt->scenario, where};
    FL_TRY(fl_summary_compute(db, "the results file", &so, &sm));
  }
  if (sm->ngroups == 0)
    goto done;
  for (int i = 0; i < NF; i++) {
    idx[i] = -1;
    for (int k = 0; k < fl_summary_nfig(); k++)
      if (strcmp(fl_summary_fig_name(k), figs[i]) == 0)
        idx[i] = k;
    FL_CHECK(idx[i] >= 0, FL_ERR_INTERNAL, "figure %s is not summarised", figs[i]);
  }
  /* columns: scenario, the keys shown but app.kind, runs, then the figures */
  tab.ncols = 1 + (sm->nshown - 1) + 1 + NF;
  FL_ALLOC(head, tab.ncols);
  FL_ALLOC(row, tab.ncols);
  FL_ALLOC(cells, tab.ncols);
  {
    int c = 0;
    head[c++] = "scenario";
    for (int s = 0; s < sm->nshown; s++) {
      const fl_scenario_keyinfo *k = fl_scenario_key_at(sm->shown[s]);
      if (strcmp(k->section, "app") == 0 && strcmp(k->key, "kind") == 0)
        continue;
      snprintf(cells[c], sizeof cells[c], "%s.%s", k->section, k->key);
      head[c] = cells[c];
      c++;
    }
    head[c++] = "runs";
    for (int i = 0; i < NF; i++)
      head[c++] = heads[i];
    FL_CHECK(fl_table_add(&tab, head) == 0, FL_ERR_NOMEM, "out of memory in report");
  }
  for (int g = 0; g < sm->ngroups; g++) {
    const fl_summary_group *gr = &sm->groups[g];
    int c = 0;
    snprintf(cells[c], sizeof cells[c], "%s", gr->scenario);
    row[c] = cells[c];
    c++;
    for (int s = 0; s < sm->nshown; s++) {
      const fl_scenario_keyinfo *k = fl_scenario_key_at(sm->shown[s]);
      if (strcmp(k->section, "app") == 0 && strcmp(k->key, "kind") == 0)
        continue;
      fl_rowset_show(sm->shown[s], gr->vals[sm->shown[s]], cells[c], sizeof cells[c]);
      row[c] = cells[c];
      c++;
    }
    snprintf(cells[c], sizeof cells[c], "%ld%s", gr->runs, gr->status[0] < gr->runs ? " *" : "");
    row[c] = cells[c];
    c++;
    for (int i = 0; i < NF; i++, c++) {
      const fl_summary_stat *st = &gr->fig[idx[i]];
      char m[32], h[32];
      row[c] = cells[c];
      if (st->n == 0) {
        snprintf(cells[c], sizeof cells[c], "-");
      } else if (strcmp(figs[i], "utilisation") == 0) {
        snprintf(cells[c], sizeof cells[c], isnan(st->ci95) ? "%.2f%%" : "%.2f%% ± %.2f%%", 100.0 * st->mean,
                 100.0 * st->ci95);
      } else if (strcmp(figs[i], "mean_wait_s") == 0) {
        fl_units_format_duration(st->mean, m, sizeof m);
        fl_units_format_duration(st->ci95, h, sizeof h);
        snprintf(cells[c], sizeof cells[c], isnan(st->ci95) ? "%s" : "%s ± %s", m, h);
      } else {
        snprintf(cells[c], sizeof cells[c], isnan(st->ci95) ? "%.4g" : "%.4g ± %.2g", st->mean, st->ci95);
      }
    }
    FL_CHECK(fl_table_add(&tab, row) == 0, FL_ERR_NOMEM, "out of memory in report");
  }
  fl_table_print(&tab, opt->format && opt->format->markdown, out);
  fprintf(out, "(workloads: the machine's figures, mean ± 95 %% CI over the completed runs; overhead: the node-hours "
               "resilience cost, lost to failures (compute done again) plus spent on checkpoints, restarts, "
               "waiting for the PFS and, under replication, the extra copies' compute; * some runs did not "
               "complete; every job's row in the jobs table)\n\n");
  *rows_out = sm->ngroups;
done:
  fl_table_free(&tab);
  free(head);
  free(row);
  free(cells);
  fl_summary_destroy(&sm);
  return rc;
}

fl_err fl_report_print(sqlite3 *db, const fl_report_opts *opt_in, FILE *out)
{
  fl_err rc = FL_OK;
  int job_rows = 0, task_rows = 0, lossy_rows = 0; /* lossy_rows: the app sections' */
  fl_report_opts o = *opt_in;
  const fl_report_opts *opt = &o;
  fl_scenario *scratch = NULL; /* fl_variant_order's, to read override values in SI units */
  FL_TRY(fl_scenario_from_text("", "overrides", NULL, &scratch));
  FL_CHECK(sqlite3_create_function(db, "fl_variant", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fl_sql_variant, NULL,
                                   NULL) == SQLITE_OK &&
               sqlite3_create_function_v2(db, "fl_variant_order", 1, SQLITE_UTF8, scratch, fl_sql_variant_order, NULL,
                                          NULL, fl_scratch_free) == SQLITE_OK &&
               fl_db_sql_functions(db) == SQLITE_OK,
           FL_ERR_DB, "report: %s", sqlite3_errmsg(db));
  FL_TRY(fl_report_select_ids(db, opt_in));
  if (opt_in->where) {
    /* --where: a condition on the runs table, checked by SQLite itself on this read-only connection */
    char *sql = sqlite3_mprintf(opt_in->ids || opt_in->min_id
                                    ? "DELETE FROM temp.fl_report_ids WHERE id NOT IN (SELECT id FROM runs WHERE (%s))"
                                    : "INSERT INTO temp.fl_report_ids SELECT id FROM runs WHERE (%s)",
                                opt_in->where);
    int ok = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    FL_CHECK(ok, FL_ERR_INPUT,
             "--where '%s': %s (a condition on the runs table's columns, e.g. \"strategy = "
             "'buddy' AND nodes > 1000\")",
             opt_in->where, sqlite3_errmsg(db));
  }
  /* the queries read the id list from the temp table; min_id only says whether there is one */
  o.min_id = (opt_in->ids || opt_in->min_id || opt_in->where) ? 1 : 0;
  o.max_id = 0;
  if (o.format && o.format->groups) {
    /* numbers as numbers: the groups typed (summary.h), in the renderer's form */
    fl_summary_opts so = {opt_in->scenario, o.min_id ? "id IN (SELECT id FROM temp.fl_report_ids)" : NULL};
    fl_summary *sm = NULL;
    FL_TRY(fl_summary_compute(db, "the results file", &so, &sm));
    rc = o.format->groups(sm, out);
    fl_summary_destroy(&sm);
    goto done;
  }
  FL_TRY(fl_report_table(db, opt, 0, out, &job_rows));
  if (job_rows)
    fputc('\n', out);
  FL_TRY(fl_report_table(db, opt, 1, out, &task_rows));
  if (task_rows)
    fprintf(out, "(resilience: share of sweeps in which every task got a value; error: final values against the "
                 "failure-free run; replicated, substituted: tasks per sweep)\n\n");
  {
    int graph_rows = 0;
    FL_TRY(fl_report_table(db, opt, 2, out, &graph_rows));
    if (graph_rows)
      fprintf(out, "(task graphs, per run over the completed ones: x failure-free = makespan / the same run "
                   "simulated without failures (transfers and contention included); x schedule = makespan / the "
                   "failure-free HEFT schedule; lost, re-executed, substituted: tasks; error spent: substitution "
                   "weights; error Linf: "
                   "generated grid worlds only; sweeps done: a generated grid world's leading sweeps with every "
                   "value, over every run, timeouts included)\n\n");
    task_rows += graph_rows;
  }
  for (size_t k = 0; k < sizeof fl_report_sections / sizeof fl_report_sections[0]; k++) {
    int rows = 0;
    FL_TRY(fl_report_sections[k]->print(db, opt, out, &rows));
    lossy_rows += rows;
  }
  {
    int machine_rows = 0;
    FL_TRY(fl_report_machine(db, opt, out, &machine_rows));
    task_rows += machine_rows;
  }
  if (job_rows + task_rows + lossy_rows == 0)
    fprintf(out, "(no runs match)\n");
done:
  return rc;
}
