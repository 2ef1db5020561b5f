/* rowset.c — runs with their configurations (rowset.h). */
#include "rowset.h"

#include "columns.h"
#include "db.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_rowset_key_ignored(int k)
{
  const fl_scenario_keyinfo *i = fl_scenario_key_at(k);
  return i && strcmp(i->section, "run") == 0 &&
         (strcmp(i->key, "db") == 0 || strcmp(i->key, "replicas") == 0 || strcmp(i->key, "events") == 0);
}

void fl_value_text(const fl_value *v, char *buf, size_t size)
{
  switch (v->kind) {
  case FL_VAL_INT: snprintf(buf, size, "%lld", v->i); break;
  case FL_VAL_UINT: snprintf(buf, size, "%llu", v->u); break;
  case FL_VAL_REAL: snprintf(buf, size, "%.17g", v->d); break;
  case FL_VAL_TEXT: snprintf(buf, size, "%s", v->s); break;
  default: buf[0] = '\0'; break;
  }
}

void fl_rowset_show(int k, const char *v, char *buf, size_t size)
{
  const fl_scenario_keyinfo *i = fl_scenario_key_at(k);
  if (i && strcmp(i->unit, "s") == 0 && v[0])
    fl_units_format_duration(strtod(v, NULL), buf, size);
  else if (i && strcmp(i->unit, "B") == 0 && v[0])
    fl_units_format_bytes(strtod(v, NULL), buf, size);
  else
    snprintf(buf, size, "%s", v);
}

int fl_runs_has_column(sqlite3 *h, const char *name)
{
  sqlite3_stmt *st = NULL;
  int has = 0;
  char *q = sqlite3_mprintf("SELECT 1 FROM pragma_table_info('runs') WHERE name = %Q", name);
  if (q && sqlite3_prepare_v2(h, q, -1, &st, NULL) == SQLITE_OK)
    has = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  sqlite3_free(q);
  return has;
}

const char *fl_rowset_figure_sql(sqlite3 *h, const char *name)
{
  const fl_column *c;
  if (strcmp(name, "waste") == 0)
    return "1.0 - work_s / makespan_s";
  if (strcmp(name, "slowdown") == 0) /* task graphs: the makespan over the failure-free HEFT schedule (work_s) */
    return "CASE WHEN app = 'workflow' AND work_s > 0 THEN makespan_s / work_s END";
  if (strcmp(name, "resilience") == 0)
    return "CAST(complete_iterations AS REAL) / iterations";
  if (strcmp(name, "io_node_hours") == 0) /* workloads: checkpoint I/O, and waiting for it */
    return fl_runs_has_column(h, "io_wait_node_hours") ? "checkpoint_node_hours + io_wait_node_hours" : "NULL";
  if (strcmp(name, "overhead_node_hours") == 0) /* workloads: what resilience cost the machine */
    return fl_runs_has_column(h, "replica_node_hours")
               ? "lost_node_hours + checkpoint_node_hours + restart_node_hours + io_wait_node_hours + "
                 "COALESCE(replica_node_hours, 0)"
           : fl_runs_has_column(h, "io_wait_node_hours")
               ? "lost_node_hours + checkpoint_node_hours + restart_node_hours + io_wait_node_hours"
               : "NULL";
  if (strcmp(name, "node_hours") == 0)
    return fl_runs_has_column(h, "node_hours") ? "COALESCE(node_hours, platform_nodes * makespan_s / 3600.0)"
                                               : "platform_nodes * makespan_s / 3600.0";
  if (strcmp(name, "wasted_node_hours") == 0) /* a job's node-hours beyond its ranks' failure-free work: checkpoints,
                                               * lost work, restarts, copies, spares held */
    return fl_runs_has_column(h, "node_hours")
               ? "CASE WHEN app IN ('bsp', 'cg') THEN COALESCE(node_hours, platform_nodes * makespan_s / 3600.0) - "
                 "work_s * nodes / 3600.0 END"
               : "CASE WHEN app IN ('bsp', 'cg') THEN (platform_nodes * makespan_s - work_s * nodes) / 3600.0 END";
  c = fl_run_column_named(name);
  if (!c)
    return NULL;
  return fl_runs_has_column(h, name) ? c->name : "NULL";
}

fl_err fl_runs_prepare(sqlite3 *h, const char *path, const char *sql, const char *where, sqlite3_stmt **st)
{
  if (sqlite3_prepare_v2(h, sql, -1, st, NULL) == SQLITE_OK)
    return FL_OK;
  if (where)
    return fl_err_set(FL_ERR_INPUT, "%s: --where '%s': %s", path, where, sqlite3_errmsg(h));
  return fl_err_set(FL_ERR_DB, "%s: reading runs: %s", path, sqlite3_errmsg(h));
}

static char *fl_rs_dup(const char *s)
{
  char *d = malloc(strlen(s ? s : "") + 1);
  if (d)
    strcpy(d, s ? s : "");
  return d;
}

static int fl_rs_same(const char *a, const char *b)
{
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The values of every key of sc, as text (caller frees each and the array). NULL: out of memory. */
static char **fl_rs_values(const fl_scenario *sc)
{
  int nk = fl_scenario_key_count();
  char **v = calloc((size_t)nk, sizeof *v);
  for (int k = 0; v && k < nk; k++) {
    char buf[64], text[256];
    fl_value x = fl_scenario_key_value(sc, k, buf, sizeof buf);
    fl_value_text(&x, text, sizeof text);
    if (!(v[k] = fl_rs_dup(text))) {
      for (int j = 0; j < k; j++)
        free(v[j]);
      free(v);
      return NULL;
    }
  }
  return v;
}

/* The configuration of a row: one seen before, or a new one replayed now (vals NULL when it does not parse).
 * -1: out of memory. */
static int fl_rs_dims_same(const fl_rowset *rs, int i, sqlite3_stmt *st, int d0)
{
  for (int d = 0; d < rs->ndim; d++)
    if (!fl_rs_same(rs->cfg[i].dims[d], (const char *)sqlite3_column_text(st, d0 + d)))
      return 0;
  return 1;
}

static int fl_rs_cfg(fl_rowset *rs, const char *text, const char *overrides, const char *path, const char *mode,
                     const char *scenario, sqlite3_stmt *st, int d0)
{
  fl_rowcfg *g;
  fl_scenario *sc = NULL;
  for (int i = rs->ncfg - 1; i >= 0; i--)
    if (fl_rs_same(rs->text[i], text) && fl_rs_same(rs->overrides[i], overrides) && fl_rs_same(rs->path[i], path) &&
        fl_rs_same(rs->cfg[i].mode, mode) && fl_rs_same(rs->cfg[i].scenario, scenario) &&
        fl_rs_dims_same(rs, i, st, d0))
      return i;
  if (rs->ncfg == rs->capcfg) {
    int cap = rs->capcfg ? 2 * rs->capcfg : 16;
    fl_rowcfg *m = realloc(rs->cfg, (size_t)cap * sizeof *m);
    char **t = m ? realloc(rs->text, (size_t)cap * sizeof *t) : NULL;
    char **o = t ? realloc(rs->overrides, (size_t)cap * sizeof *o) : NULL;
    char **p = o ? realloc(rs->path, (size_t)cap * sizeof *p) : NULL;
    if (m)
      rs->cfg = m;
    if (t)
      rs->text = t;
    if (o)
      rs->overrides = o;
    if (!p)
      return -1;
    rs->path = p;
    rs->capcfg = cap;
  }
  g = &rs->cfg[rs->ncfg];
  memset(g, 0, sizeof *g);
  rs->text[rs->ncfg] = fl_rs_dup(text);
  rs->overrides[rs->ncfg] = fl_rs_dup(overrides);
  rs->path[rs->ncfg] = fl_rs_dup(path);
  g->mode = fl_rs_dup(mode);
  g->scenario = fl_rs_dup(scenario);
  rs->ncfg++;
  if (rs->ndim) {
    if (!(g->dims = calloc((size_t)rs->ndim, sizeof *g->dims)))
      return -1;
    for (int d = 0; d < rs->ndim; d++)
      if (!(g->dims[d] = fl_rs_dup((const char *)sqlite3_column_text(st, d0 + d))))
        return -1;
  }
  if (!rs->text[rs->ncfg - 1] || !rs->overrides[rs->ncfg - 1] || !rs->path[rs->ncfg - 1] || !g->mode || !g->scenario)
    return -1;
  if (fl_scenario_replay(text ? text : "", overrides, path, &sc) == FL_OK) {
    g->vals = fl_rs_values(sc);
    fl_scenario_destroy(&sc);
    if (!g->vals)
      return -1;
  } else {
    fprintf(stderr, "faultline: a scenario of '%s' does not parse with this version (%s): its rows are left out\n",
            scenario ? scenario : "", fl_err_msg());
  }
  return rs->ncfg - 1;
}

fl_err fl_rowset_load(sqlite3 *h, const char *path, const fl_rowset_query *q, fl_rowset **out)
{
  fl_err rc = FL_OK;
  fl_rowset *rs = NULL;
  sqlite3_stmt *st = NULL;
  char *sql = NULL;
  sqlite3_str *s = sqlite3_str_new(h);
  const int F = 9; /* the first figure's column */
  int x;

  *out = NULL;
  FL_ALLOC(rs, 1);
  rs->nfig = q->nfig;
  rs->ndim = q->ndim;
  sqlite3_str_appendf(s, "SELECT id, scenario, mode, seed, replica, status, %s, overrides, scenario_path",
                      fl_db_text_sql(h));
  for (int f = 0; f < q->nfig; f++)
    sqlite3_str_appendf(s, ", %s", q->fig_sql[f]);
  for (int d = 0; d < q->ndim; d++)
    sqlite3_str_appendf(s, ", %s", q->dim_sql[d]);
  sqlite3_str_appendall(s, " FROM runs WHERE (?1 IS NULL OR scenario = ?1)");
  if (q->no_lossy && fl_runs_has_column(h, "codec"))
    sqlite3_str_appendall(s, " AND codec IS NULL");
  if (q->where && *q->where)
    sqlite3_str_appendf(s, " AND (%s)", q->where);
  sqlite3_str_appendall(s, " ORDER BY id");
  sql = sqlite3_str_finish(s);
  s = NULL;
  FL_CHECK(sql != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_runs_prepare(h, path, sql, q->where, &st));
  sqlite3_bind_text(st, 1, q->scenario, -1, SQLITE_STATIC);
  while ((x = sqlite3_step(st)) == SQLITE_ROW) {
    fl_row *r;
    int cfg = fl_rs_cfg(rs, (const char *)sqlite3_column_text(st, 6), (const char *)sqlite3_column_text(st, 7),
                        (const char *)sqlite3_column_text(st, 8), (const char *)sqlite3_column_text(st, 2),
                        (const char *)sqlite3_column_text(st, 1), st, F + q->nfig);
    FL_CHECK(cfg >= 0, FL_ERR_NOMEM, "out of memory");
    if (!rs->cfg[cfg].vals)
      continue;
    if (rs->nrows == rs->caprows) {
      size_t cap = rs->caprows ? 2 * rs->caprows : 256;
      fl_row *m = realloc(rs->rows, cap * sizeof *m);
      double *fg;
      FL_CHECK(m != NULL, FL_ERR_NOMEM, "out of memory");
      rs->rows = m;
      fg = realloc(rs->figs, cap * (size_t)(q->nfig ? q->nfig : 1) * sizeof *fg);
      FL_CHECK(fg != NULL, FL_ERR_NOMEM, "out of memory");
      rs->figs = fg;
      rs->caprows = cap;
    }
    r = &rs->rows[rs->nrows];
    r->cfg = cfg;
    r->id = sqlite3_column_int64(st, 0);
    r->seed = (uint64_t)sqlite3_column_int64(st, 3);
    r->replica = sqlite3_column_int64(st, 4);
    snprintf(r->status, sizeof r->status, "%s",
             sqlite3_column_text(st, 5) ? (const char *)sqlite3_column_text(st, 5) : "");
    for (int f = 0; f < q->nfig; f++)
      rs->figs[rs->nrows * (size_t)q->nfig + (size_t)f] =
          sqlite3_column_type(st, F + f) == SQLITE_NULL ? NAN : sqlite3_column_double(st, F + f);
    rs->nrows++;
  }
  FL_CHECK(x == SQLITE_DONE, FL_ERR_DB, "%s: reading runs: %s", path, sqlite3_errmsg(h));
  for (size_t i = 0; i < rs->nrows; i++) /* the figures may have moved while the rows grew */
    rs->rows[i].fig = rs->figs + i * (size_t)q->nfig;
  *out = rs;
  rs = NULL;
done:
  if (s)
    sqlite3_free(sqlite3_str_finish(s));
  sqlite3_free(sql);
  sqlite3_finalize(st);
  fl_rowset_destroy(&rs);
  return rc;
}

void fl_rowset_destroy(fl_rowset **prs)
{
  fl_rowset *rs = prs ? *prs : NULL;
  if (!rs)
    return;
  for (int i = 0; i < rs->ncfg; i++) {
    if (rs->cfg[i].vals)
      for (int k = 0; k < fl_scenario_key_count(); k++)
        free(rs->cfg[i].vals[k]);
    free(rs->cfg[i].vals);
    for (int d = 0; rs->cfg[i].dims && d < rs->ndim; d++)
      free(rs->cfg[i].dims[d]);
    free(rs->cfg[i].dims);
    free(rs->cfg[i].scenario);
    free(rs->cfg[i].mode);
    free(rs->text[i]);
    free(rs->overrides[i]);
    free(rs->path[i]);
  }
  free(rs->cfg);
  free(rs->text);
  free(rs->overrides);
  free(rs->path);
  free(rs->rows);
  free(rs->figs);
  free(rs);
  *prs = NULL;
}

int fl_rowset_before(const fl_rowset *rs, int a, int b, const int *ks, int nk)
{
  const fl_rowcfg *x = &rs->cfg[a], *y = &rs->cfg[b];
  int s = strcmp(x->scenario, y->scenario);
  if (!s)
    s = strcmp(x->mode, y->mode);
  for (int i = 0; !s && i < nk; i++) {
    const char *u = x->vals[ks[i]], *v = y->vals[ks[i]];
    if (strcmp(fl_scenario_key_at(ks[i])->vtype, "text") != 0 && u[0] && v[0]) {
      double du = strtod(u, NULL), dv = strtod(v, NULL);
      s = du < dv ? -1 : du > dv;
    } else {
      s = strcmp(u, v);
    }
  }
  return s < 0;
}
