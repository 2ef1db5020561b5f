/* summary.c — the report's groups as numbers (summary.h). */
#include "summary.h"

#include "columns.h"
#include "rowset.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figures summarised, in the report's order: the headline figures, then every column columns.h marks SUM in
 * table order (a column added there is summarised with no change here), then the figures rowset derives from the
 * columns (fl_rowset_figure_sql). */
static const char *const fl_sum_head[] = {"makespan_s", "waste",         "node_hours", "energy_j",
                                          "failures",   "interruptions", "slowdown",   "wasted_node_hours"};
static const char *const fl_sum_derived[] = {"resilience", "overhead_node_hours", "io_node_hours"};
#define FL_SUM_COUNT_SUM 1
#define FL_SUM_COUNT_NOSUM 0
#define FL_SUM_COUNT(name, decl, how, unit, engines, sum, doc) +FL_SUM_COUNT_##sum
#define FL_SUM_NHEAD ((int)(sizeof fl_sum_head / sizeof fl_sum_head[0]))
#define FL_SUM_NDERIVED ((int)(sizeof fl_sum_derived / sizeof fl_sum_derived[0]))
_Static_assert(FL_SUM_NHEAD + FL_SUM_NDERIVED + (0 FL_RUN_COLUMNS(FL_SUM_COUNT)) <= FL_SUMMARY_MAX_FIG,
               "fl_summary_group holds every figure");
#undef FL_SUM_COUNT
static const char *fl_sum_figs[FL_SUMMARY_MAX_FIG];
static int fl_sum_nfig;

static void fl_sum_figs_list(void)
{
  int n = 0;
  if (fl_sum_nfig > 0)
    return;
  for (int h = 0; h < FL_SUM_NHEAD; h++)
    fl_sum_figs[n++] = fl_sum_head[h];
  for (int i = 0; i < fl_run_ncolumns(); i++) {
    const fl_column *c = fl_run_column(i);
    int head = 0;
    for (int h = 0; h < FL_SUM_NHEAD; h++)
      head |= strcmp(fl_sum_head[h], c->name) == 0;
    if (c->summarised && !head)
      fl_sum_figs[n++] = c->name;
  }
  for (int d = 0; d < FL_SUM_NDERIVED; d++)
    fl_sum_figs[n++] = fl_sum_derived[d];
  fl_sum_nfig = n;
}
#define FL_SUM_NFIG (fl_sum_figs_list(), fl_sum_nfig)

static const char *const fl_sum_status[] = {"completed",    "failed",    "timeout",
                                            "wrong_result", "data_lost", "no_progress"};
#define FL_SUM_NSTATUS ((int)(sizeof fl_sum_status / sizeof fl_sum_status[0]))
_Static_assert(FL_SUM_NSTATUS <= FL_SUMMARY_MAX_STATUS, "fl_summary_group holds every status");

/* Row columns that tell configurations apart besides the keys: the lossy-CG study runs several codecs, recovery
 * modes and fault instants from one scenario (docs/lossy-cg.md). */
static const char *const fl_sum_dims[] = {"codec", "recovery_mode", "lost_at"};
#define FL_SUM_NDIM ((int)(sizeof fl_sum_dims / sizeof fl_sum_dims[0]))
_Static_assert(FL_SUM_NDIM <= 4, "fl_summary holds every dimension");

/* Keys shown for every group, whether they vary or not: what a reader needs to know what ran. */
static const char *const fl_sum_identity[] = {"app.kind", "strategy.kind", "failures.model", "failures.node_mtbf"};

static const char *fl_sum_unit(const char *fig)
{
  const fl_column *c = fl_run_column_named(fig);
  return c ? c->unit : strstr(fig, "node_hours") ? "node-h" : "";
}

/* A group while it is gathered: the values of each figure over its completed runs. */
typedef struct fl_sgroup {
  int cfg; /* a configuration of the group */
  long runs, status[FL_SUM_NSTATUS];
  double *v[FL_SUMMARY_MAX_FIG];
  size_t n[FL_SUMMARY_MAX_FIG];
} fl_sgroup;

int fl_summary_nfig(void)
{
  return FL_SUM_NFIG;
}
const char *fl_summary_fig_name(int f)
{
  return f >= 0 && f < FL_SUM_NFIG ? fl_sum_figs[f] : NULL;
}
const char *fl_summary_fig_unit(int f)
{
  return f >= 0 && f < FL_SUM_NFIG ? fl_sum_unit(fl_sum_figs[f]) : NULL;
}
int fl_summary_nstatus(void)
{
  return FL_SUM_NSTATUS;
}
const char *fl_summary_status_name(int s)
{
  return s >= 0 && s < FL_SUM_NSTATUS ? fl_sum_status[s] : NULL;
}
const char *fl_summary_dim_name(int d)
{
  return d >= 0 && d < FL_SUM_NDIM ? fl_sum_dims[d] : NULL;
}

void fl_summary_destroy(fl_summary **ps)
{
  fl_summary *sm = ps ? *ps : NULL;
  if (!sm)
    return;
  free(sm->groups);
  free(sm->shown);
  fl_rowset_destroy(&sm->rs);
  free(sm);
  *ps = NULL;
}

/* fl_rowset_before, then the dimensions (numbers as numbers). */
static int fl_sum_before(const fl_rowset *rs, int a, int b, const int *ks, int n)
{
  if (fl_rowset_before(rs, a, b, ks, n))
    return 1;
  if (fl_rowset_before(rs, b, a, ks, n))
    return 0;
  for (int d = 0; d < rs->ndim; d++) {
    const char *u = rs->cfg[a].dims[d], *v = rs->cfg[b].dims[d];
    char *eu, *ev;
    double du = strtod(u, &eu), dv = strtod(v, &ev);
    int c = (u[0] && v[0] && !*eu && !*ev) ? (du < dv ? -1 : du > dv) : strcmp(u, v);
    if (c)
      return c < 0;
  }
  return 0;
}

static int fl_sum_key_index(const char *name)
{
  for (int k = 0; k < fl_scenario_key_count(); k++) {
    const fl_scenario_keyinfo *i = fl_scenario_key_at(k);
    size_t ls = strlen(i->section);
    if (strncmp(name, i->section, ls) == 0 && name[ls] == '.' && strcmp(name + ls + 1, i->key) == 0)
      return k;
  }
  return -1;
}

/* The rows into their groups (gof: a configuration's group): runs by status, and the completed runs' figures. */
static fl_err fl_sum_gather(const fl_rowset *rs, const int *gof, fl_sgroup *groups)
{
  fl_err rc = FL_OK;
  for (size_t r = 0; r < rs->nrows; r++) {
    const fl_row *row = &rs->rows[r];
    fl_sgroup *g = &groups[gof[row->cfg]];
    int completed = strcmp(row->status, "completed") == 0;
    g->runs++;
    for (int s = 0; s < FL_SUM_NSTATUS; s++)
      if (strcmp(row->status, fl_sum_status[s]) == 0)
        g->status[s]++;
    if (!completed)
      continue;
    for (int f = 0; f < FL_SUM_NFIG; f++) {
      if (isnan(row->fig[f]))
        continue;
      if ((g->n[f] & (g->n[f] - 1)) == 0) { /* grow at powers of two */
        double *m = realloc(g->v[f], (g->n[f] ? 2 * g->n[f] : 1) * sizeof *m);
        FL_CHECK(m != NULL, FL_ERR_NOMEM, "out of memory");
        g->v[f] = m;
      }
      g->v[f][g->n[f]++] = row->fig[f];
    }
  }
done:
  return rc;
}

/* Groups ordered by the varying keys first (the sweep's: shown past the identity keys), then the identity keys,
 * then the dimensions, into order[0..ng-1]. */
static void fl_sum_order(const fl_rowset *rs, const fl_sgroup *groups, int ng, const int *shown, int nshown, int *order)
{
  int ks[1024], n = 0, nid = (int)(sizeof fl_sum_identity / sizeof fl_sum_identity[0]);
  for (int s = 0; s < nshown && n < 1024; s++)
    if (s >= nid)
      ks[n++] = shown[s];
  for (int s = 0; s < nshown && s < nid && n < 1024; s++)
    ks[n++] = shown[s];
  for (int g = 0; g < ng; g++) {
    int at = g;
    order[g] = g;
    while (at > 0 && fl_sum_before(rs, groups[order[at]].cfg, groups[order[at - 1]].cfg, ks, n)) {
      int t = order[at];
      order[at] = order[at - 1];
      order[at - 1] = t;
      at--;
    }
  }
}

/* A group's description and each figure's n, mean, 95 % interval, min and max. */
static void fl_sum_fill_group(const fl_sgroup *g, const fl_rowcfg *cf, fl_summary_group *o)
{
  o->scenario = cf->scenario;
  o->mode = cf->mode;
  o->vals = (const char *const *)cf->vals;
  o->dims = (const char *const *)cf->dims;
  o->runs = g->runs;
  for (int st = 0; st < FL_SUM_NSTATUS; st++)
    o->status[st] = g->status[st];
  for (int f = 0; f < FL_SUM_NFIG; f++) {
    fl_summary_stat *x = &o->fig[f];
    x->n = g->n[f];
    x->mean = x->ci95 = x->min = x->max = NAN;
    if (!g->n[f])
      continue;
    fl_stats_ci(g->v[f], g->n[f], 0.95, &x->mean, &x->ci95);
    x->min = INFINITY;
    x->max = -INFINITY;
    for (size_t i = 0; i < g->n[f]; i++) {
      x->min = fmin(x->min, g->v[f][i]);
      x->max = fmax(x->max, g->v[f][i]);
    }
  }
}

fl_err fl_summary_compute(sqlite3 *h, const char *path, const fl_summary_opts *opt, fl_summary **out)
{
  fl_err rc = FL_OK;
  fl_rowset *rs = NULL;
  fl_summary *sm = NULL;
  int ncfg = 0;
  const char *figs[FL_SUMMARY_MAX_FIG];
  char **sig = NULL;
  int *gof = NULL, *order = NULL, *shown = NULL, nshown = 0, ng = 0, nk = fl_scenario_key_count();
  fl_sgroup *groups = NULL;
  int kseed = fl_sum_key_index("run.seed"), dshown[FL_SUM_NDIM], ndshown = 0;

  for (int f = 0; f < FL_SUM_NFIG; f++)
    FL_CHECK((figs[f] = fl_rowset_figure_sql(h, fl_sum_figs[f])) != NULL, FL_ERR_INTERNAL, "figure %s: no column",
             fl_sum_figs[f]);
  {
    const char *dims[FL_SUM_NDIM];
    fl_rowset_query q = {opt->scenario, opt->where, figs, FL_SUM_NFIG, 0, dims, FL_SUM_NDIM};
    for (int d = 0; d < FL_SUM_NDIM; d++)
      dims[d] = fl_runs_has_column(h, fl_sum_dims[d]) ? fl_sum_dims[d] : "NULL";
    FL_TRY(fl_rowset_load(h, path, &q, &rs));
  }
  /* configurations to groups: equal but for the seed and the ignored keys */
  ncfg = rs->ncfg;
  FL_ALLOC(sig, rs->ncfg + 1);
  FL_ALLOC(gof, rs->ncfg + 1);
  FL_ALLOC(groups, rs->ncfg + 1);
  for (int i = 0; i < rs->ncfg; i++) {
    sqlite3_str *q;
    gof[i] = -1;
    if (!rs->cfg[i].vals)
      continue;
    q = sqlite3_str_new(NULL);
    sqlite3_str_appendf(q, "%s\x1f%s", rs->cfg[i].scenario, rs->cfg[i].mode);
    for (int k = 0; k < nk; k++)
      if (k != kseed && !fl_rowset_key_ignored(k))
        sqlite3_str_appendf(q, "\x1f%s", rs->cfg[i].vals[k]);
    for (int d = 0; d < FL_SUM_NDIM; d++)
      sqlite3_str_appendf(q, "\x1f%s", rs->cfg[i].dims[d]);
    sig[i] = sqlite3_str_finish(q);
    FL_CHECK(sig[i] != NULL, FL_ERR_NOMEM, "out of memory");
    for (int j = 0; j < i && gof[i] < 0; j++)
      if (sig[j] && strcmp(sig[j], sig[i]) == 0)
        gof[i] = gof[j];
    if (gof[i] < 0) {
      gof[i] = ng;
      groups[ng++].cfg = i;
    }
  }
  FL_TRY(fl_sum_gather(rs, gof, groups));

  /* keys shown: the identity ones, then every other that varies between the groups */
  FL_ALLOC(shown, nk + 1);
  for (size_t i = 0; i < sizeof fl_sum_identity / sizeof fl_sum_identity[0]; i++) {
    int k = fl_sum_key_index(fl_sum_identity[i]);
    if (k >= 0)
      shown[nshown++] = k;
  }
  for (int k = 0; k < nk; k++) {
    int varies = 0, already = 0;
    for (int s = 0; s < nshown; s++)
      already |= shown[s] == k;
    if (already || k == kseed || fl_rowset_key_ignored(k))
      continue;
    for (int g = 1; g < ng && !varies; g++)
      varies = strcmp(rs->cfg[groups[g].cfg].vals[k], rs->cfg[groups[0].cfg].vals[k]) != 0;
    if (varies)
      shown[nshown++] = k;
  }
  for (int d = 0; d < FL_SUM_NDIM; d++) {
    int varies = 0;
    for (int g = 1; g < ng && !varies; g++)
      varies = strcmp(rs->cfg[groups[g].cfg].dims[d], rs->cfg[groups[0].cfg].dims[d]) != 0;
    if (varies)
      dshown[ndshown++] = d;
  }
  /* groups ordered by the varying keys first (the sweep's), then the identity keys, then the dimensions */
  FL_ALLOC(order, ng + 1);
  fl_sum_order(rs, groups, ng, shown, nshown, order);

  /* the groups, in order, with their figures */
  FL_ALLOC(sm, 1);
  FL_ALLOC(sm->groups, ng + 1);
  for (int oi = 0; oi < ng; oi++) {
    const fl_sgroup *g = &groups[order[oi]];
    fl_summary_group *o = &sm->groups[oi];
    const fl_rowcfg *cf = &rs->cfg[g->cfg];
    fl_sum_fill_group(g, cf, o);
  }
  sm->ngroups = ng;
  sm->shown = shown;
  sm->nshown = nshown;
  shown = NULL;
  sm->ndims = ndshown;
  for (int d = 0; d < ndshown; d++)
    sm->dims_shown[d] = dshown[d];
  sm->rs = rs;
  rs = NULL;
  *out = sm;
  sm = NULL;
done:
  for (int g = 0; groups && g < ng; g++)
    for (int f = 0; f < FL_SUM_NFIG; f++)
      free(groups[g].v[f]);
  for (int i = 0; sig && i < ncfg; i++)
    sqlite3_free(sig[i]);
  free(sig);
  free(gof);
  free(groups);
  free(order);
  free(shown);
  fl_summary_destroy(&sm);
  fl_rowset_destroy(&rs);
  return rc;
}

const char *const *fl_summary_machine_figs(int *n)
{
  static const char *const figs[] = {"utilisation",
                                     "useful_node_hours",
                                     "overhead_node_hours",
                                     "lost_node_hours",
                                     "checkpoint_node_hours",
                                     "restart_node_hours",
                                     "io_wait_node_hours",
                                     "replica_node_hours",
                                     "mean_wait_s",
                                     "mean_bounded_slowdown",
                                     "failures"};
  *n = (int)(sizeof figs / sizeof figs[0]);
  return figs;
}
