/* report.c — group runs and summarise them (see report.h). Rows come ordered by the group key, so one pass
 * with a growing buffer per group is enough; statistics are computed here (GSL), not in SQL, to get Student-t
 * intervals. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "units.h"

typedef struct fl_group {
  char key[512];
  char scenario[128], mode[8], strategy[32], interval[32], model[32], mtbf[32];
  long nodes;
  size_t n, cap, failed, timeout;
  double *makespan, *waste, *failures, *interruptions;
} fl_group;

static int fl_group_push(fl_group *g, double makespan, double waste, double failures, double interruptions)
{
  if (g->n == g->cap) {
    size_t nc = g->cap ? 2 * g->cap : 64;
    double *a = realloc(g->makespan, nc * sizeof *a), *b, *c, *d;
    if (!a)
      return -1;
    g->makespan = a;
    if (!(b = realloc(g->waste, nc * sizeof *b)))
      return -1;
    g->waste = b;
    if (!(c = realloc(g->failures, nc * sizeof *c)))
      return -1;
    g->failures = c;
    if (!(d = realloc(g->interruptions, nc * sizeof *d)))
      return -1;
    g->interruptions = d;
    g->cap = nc;
  }
  g->makespan[g->n] = makespan;
  g->waste[g->n] = waste;
  g->failures[g->n] = failures;
  g->interruptions[g->n] = interruptions;
  g->n++;
  return 0;
}

static void fl_group_reset(fl_group *g)
{
  g->n = 0;
  g->failed = 0;
  g->timeout = 0;
}

static void fl_fmt_ci_duration(double m, double h, char *buf, size_t size)
{
  char a[32], b[32];
  if (isnan(m))
    snprintf(buf, size, "-");
  else if (isnan(h))
    snprintf(buf, size, "%s", fl_units_format_duration(m, a, sizeof a));
  else
    snprintf(buf, size, "%s ± %s", fl_units_format_duration(m, a, sizeof a), fl_units_format_duration(h, b, sizeof b));
}

static void fl_group_print(const fl_group *g, int csv, FILE *out)
{
  double mm, mh, wm, wh, fm, fh, im, ih;
  char ms[64], ws[64], fs[64], is[64], runs[48];
  fl_stats_ci(g->makespan, g->n, 0.95, &mm, &mh);
  fl_stats_ci(g->waste, g->n, 0.95, &wm, &wh);
  fl_stats_ci(g->failures, g->n, 0.95, &fm, &fh);
  fl_stats_ci(g->interruptions, g->n, 0.95, &im, &ih);
  if (csv) {
    fprintf(out, "%s,%s,%s,%s,%ld,%s,%s,%zu,%zu,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", g->scenario, g->mode,
            g->strategy, g->interval, g->nodes, g->mtbf, g->model, g->n, g->failed, g->timeout, mm, mh, wm, wh, fm, fh,
            im, ih);
    return;
  }
  if (g->n == 0) {
    snprintf(runs, sizeof runs, "0 (+%zu failed, %zu timeout)", g->failed, g->timeout);
    fprintf(out, "%-18s %-4s %-10s %-16s %8ld %-9s %-11s %-6s %-22s %-17s %-15s %-15s\n", g->scenario, g->mode,
            g->strategy, g->interval, g->nodes, g->mtbf, g->model, runs, "-", "-", "-", "-");
    return;
  }
  fl_fmt_ci_duration(mm, mh, ms, sizeof ms);
  if (isnan(wm))
    snprintf(ws, sizeof ws, "-");
  else
    snprintf(ws, sizeof ws, isnan(wh) ? "%.2f%%" : "%.2f%% ± %.2f", 100.0 * wm, 100.0 * wh);
  snprintf(fs, sizeof fs, isnan(fh) ? "%.4g" : "%.4g ± %.2g", fm, fh);
  snprintf(is, sizeof is, isnan(ih) ? "%.4g" : "%.4g ± %.2g", im, ih);
  if (g->failed || g->timeout)
    snprintf(runs, sizeof runs, "%zu (+%zu failed, %zu timeout)", g->n, g->failed, g->timeout);
  else
    snprintf(runs, sizeof runs, "%zu", g->n);
  fprintf(out, "%-18s %-4s %-10s %-16s %8ld %-9s %-11s %-6s %-22s %-17s %-15s %-15s\n", g->scenario, g->mode,
          g->strategy, g->interval, g->nodes, g->mtbf, g->model, runs, ms, ws, fs, is);
}

fl_err fl_report_print(sqlite3 *db, const fl_report_opts *opt, FILE *out)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  fl_group g;
  int have = 0, rows = 0;
  const char *sql =
    "SELECT scenario, mode, strategy, interval_rule, interval_s, nodes, node_mtbf_s, failure_model, status,"
    "       makespan_s, work_s, failures, interruptions"
    "  FROM runs"
    " WHERE (?1 IS NULL OR scenario = ?1) AND (?2 = 0 OR id BETWEEN ?2 AND ?3)"
    " ORDER BY scenario, mode, strategy, interval_s, nodes, node_mtbf_s, failure_model, id";

  memset(&g, 0, sizeof g);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    rc = fl_err_set(FL_ERR_DB, "report query: %s", sqlite3_errmsg(db));
    goto done;
  }
  if (opt->scenario)
    sqlite3_bind_text(st, 1, opt->scenario, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 2, opt->min_id);
  sqlite3_bind_int64(st, 3, opt->max_id);
  if (opt->csv)
    fprintf(out, "scenario,mode,strategy,interval,nodes,node_mtbf,failure_model,runs,failed,timeout,makespan_s,"
                 "makespan_ci95,waste,waste_ci95,failures,failures_ci95,interruptions,interruptions_ci95\n");
  else
    fprintf(out, "%-18s %-4s %-10s %-16s %8s %-9s %-11s %-6s %-22s %-17s %-15s %-15s\n", "scenario", "mode",
            "strategy", "interval", "nodes", "node-MTBF", "model", "runs", "makespan (95% CI)", "waste (95% CI)",
            "failures", "interruptions");
  for (;;) {
    int step = sqlite3_step(st);
    char key[512], interval[32], mtbf[32], tmp[32];
    const char *scen, *mode, *strat, *rule, *model, *status;
    double tau, mtbf_s, makespan, work;
    long nodes;
    if (step == SQLITE_DONE)
      break;
    if (step != SQLITE_ROW) {
      rc = fl_err_set(FL_ERR_DB, "report query: %s", sqlite3_errmsg(db));
      goto done;
    }
    rows++;
    scen = (const char *)sqlite3_column_text(st, 0);
    mode = (const char *)sqlite3_column_text(st, 1);
    strat = (const char *)sqlite3_column_text(st, 2);
    rule = (const char *)sqlite3_column_text(st, 3);
    tau = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
    nodes = (long)sqlite3_column_int64(st, 5);
    mtbf_s = sqlite3_column_type(st, 6) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6);
    model = (const char *)sqlite3_column_text(st, 7);
    status = (const char *)sqlite3_column_text(st, 8);
    makespan = sqlite3_column_type(st, 9) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 9);
    work = sqlite3_column_double(st, 10);
    if (isnan(tau))
      snprintf(interval, sizeof interval, "-");
    else
      snprintf(interval, sizeof interval, "%s%s%s", fl_units_format_duration(tau, tmp, sizeof tmp),
               rule && strcmp(rule, "fixed") != 0 ? " " : "", rule && strcmp(rule, "fixed") != 0 ? rule : "");
    if (isnan(mtbf_s))
      snprintf(mtbf, sizeof mtbf, "-");
    else
      fl_units_format_duration(mtbf_s, mtbf, sizeof mtbf);
    snprintf(key, sizeof key, "%s|%s|%s|%.17g|%ld|%.17g|%s", scen ? scen : "", mode ? mode : "", strat ? strat : "",
             tau, nodes, mtbf_s, model ? model : "");
    if (!have || strcmp(key, g.key) != 0) {
      if (have)
        fl_group_print(&g, opt->csv, out);
      fl_group_reset(&g);
      have = 1;
      snprintf(g.key, sizeof g.key, "%s", key);
      snprintf(g.scenario, sizeof g.scenario, "%s", scen ? scen : "");
      snprintf(g.mode, sizeof g.mode, "%s", mode ? mode : "");
      snprintf(g.strategy, sizeof g.strategy, "%s", strat ? strat : "");
      snprintf(g.interval, sizeof g.interval, "%s", interval);
      snprintf(g.model, sizeof g.model, "%s", model ? model : "");
      snprintf(g.mtbf, sizeof g.mtbf, "%s", mtbf);
      g.nodes = nodes;
    }
    if (status && strcmp(status, "completed") == 0 && makespan > 0) {
      if (fl_group_push(&g, makespan, 1.0 - work / makespan, (double)sqlite3_column_int64(st, 11),
                        (double)sqlite3_column_int64(st, 12)) != 0) {
        rc = fl_err_set(FL_ERR_NOMEM, "out of memory in report");
        goto done;
      }
    } else if (status && strcmp(status, "timeout") == 0) {
      g.timeout++;
    } else {
      g.failed++;
    }
  }
  if (have)
    fl_group_print(&g, opt->csv, out);
  if (rows == 0 && !opt->csv)
    fprintf(out, "(no runs match)\n");
done:
  sqlite3_finalize(st);
  free(g.makespan);
  free(g.waste);
  free(g.failures);
  free(g.interruptions);
  return rc;
}
