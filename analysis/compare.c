/* compare.c — paired comparisons against a baseline (compare.h).
 *
 * One pass reads the rows; each distinct stored scenario (text, overrides, path, mode) is replayed once into its
 * keys' values (SI units, as `export` writes them). A row's pair signature is its scenario's values but the
 * baseline key's; rows sorted by (signature, seed, replica) put each replica's runs side by side, and each run is
 * paired with the baseline's run of its block. */
#include "compare.h"

#include "db.h"
#include "scenario.h"
#include "stats.h"
#include "units.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The figures compared: name in CSV/JSON, head in the table, how the table writes a difference. */
enum { FL_FIG_MAKESPAN, FL_FIG_WASTE, FL_FIG_NODE_HOURS, FL_FIG_FAILURES, FL_FIG_INTERRUPTIONS, FL_NFIG };
static const char *const fl_fig_name[FL_NFIG] = {"makespan_s", "waste", "node_hours", "failures", "interruptions"};
static const char *const fl_fig_head[FL_NFIG] = {"makespan", "waste", "node-hours", "failures", "interruptions"};

typedef struct fl_ccfg {
  char *text, *overrides, *path, *mode, *scenario;
  char **vals; /* per key: the value as text (numbers %.17g in SI units) */
  char *sig;   /* scenario, mode and every value but the baseline key's and the ignored keys' */
  int ok;      /* replayed */
} fl_ccfg;

typedef struct fl_crow {
  int cfg;
  const char *sig; /* its configuration's (the strings outlive the rows' sort) */
  uint64_t seed;
  long long replica, id;
  int completed;
  double fig[FL_NFIG];
} fl_crow;

typedef struct fl_cgroup {
  int cfg;        /* a configuration of the group (its values label it) */
  int baseline;   /* it is the baseline's */
  double *d[FL_NFIG];
  double sx[FL_NFIG], sb[FL_NFIG]; /* sums over the pairs, of its values and the baseline's */
  size_t n, cap;
} fl_cgroup;

typedef struct fl_cmp {
  fl_ccfg *cfg;
  int ncfg, capcfg;
  fl_crow *rows;
  size_t nrows, caprows;
  fl_cgroup *groups;
  int ngroups, capgroups;
  int kb;          /* the baseline key's index */
  const char *bval; /* its value, normalised */
} fl_cmp;

static char *fl_cdup(const char *s)
{
  char *d = malloc(strlen(s ? s : "") + 1);
  if (d)
    strcpy(d, s ? s : "");
  return d;
}

/* Keys that say where rows go, not what ran. */
static int fl_cmp_ignored(const fl_scenario_keyinfo *k)
{
  return strcmp(k->section, "run") == 0 &&
         (strcmp(k->key, "db") == 0 || strcmp(k->key, "replicas") == 0 || strcmp(k->key, "events") == 0);
}

static void fl_value_text(const fl_value *v, char *buf, size_t size)
{
  switch (v->kind) {
  case FL_VAL_INT: snprintf(buf, size, "%lld", v->i); break;
  case FL_VAL_UINT: snprintf(buf, size, "%llu", v->u); break;
  case FL_VAL_REAL: snprintf(buf, size, "%.17g", v->d); break;
  case FL_VAL_TEXT: snprintf(buf, size, "%s", v->s); break;
  default: buf[0] = '\0'; break;
  }
}

/* The values of every key of sc, as text (caller frees each and the array). NULL: out of memory. */
static char **fl_cmp_values(const fl_scenario *sc)
{
  int nk = fl_scenario_key_count();
  char **v = calloc((size_t)nk, sizeof *v);
  for (int k = 0; v && k < nk; k++) {
    char buf[64], text[256];
    fl_value x = fl_scenario_key_value(sc, k, buf, sizeof buf);
    fl_value_text(&x, text, sizeof text);
    if (!(v[k] = fl_cdup(text))) {
      for (int j = 0; j < k; j++)
        free(v[j]);
      free(v);
      return NULL;
    }
  }
  return v;
}

static int fl_same_text(const char *a, const char *b)
{
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The configuration of a row: the last one, one seen before, or a new one replayed now. -1: out of memory. */
static int fl_cmp_cfg(fl_cmp *c, const char *text, const char *overrides, const char *path, const char *mode,
                      const char *scenario)
{
  fl_ccfg *g;
  fl_scenario *sc = NULL;
  for (int i = c->ncfg - 1; i >= 0; i--) {
    g = &c->cfg[i];
    if (fl_same_text(g->text, text) && fl_same_text(g->overrides, overrides) && fl_same_text(g->path, path) &&
        fl_same_text(g->mode, mode) && fl_same_text(g->scenario, scenario))
      return i;
  }
  if (c->ncfg == c->capcfg) {
    int cap = c->capcfg ? 2 * c->capcfg : 16;
    fl_ccfg *m = realloc(c->cfg, (size_t)cap * sizeof *m);
    if (!m)
      return -1;
    c->cfg = m;
    c->capcfg = cap;
  }
  g = &c->cfg[c->ncfg];
  memset(g, 0, sizeof *g);
  g->text = fl_cdup(text);
  g->overrides = fl_cdup(overrides);
  g->path = fl_cdup(path);
  g->mode = fl_cdup(mode);
  g->scenario = fl_cdup(scenario);
  if (!g->text || !g->overrides || !g->path || !g->mode || !g->scenario)
    return -1;
  c->ncfg++;
  if (fl_scenario_replay(text ? text : "", overrides, path, &sc) == FL_OK) {
    sqlite3_str *q = sqlite3_str_new(NULL);
    g->vals = fl_cmp_values(sc);
    fl_scenario_destroy(&sc);
    if (!g->vals) {
      sqlite3_free(sqlite3_str_finish(q));
      return -1;
    }
    sqlite3_str_appendf(q, "%s\x1f%s", g->scenario, g->mode);
    for (int k = 0; k < fl_scenario_key_count(); k++)
      if (k != c->kb && !fl_cmp_ignored(fl_scenario_key_at(k)))
        sqlite3_str_appendf(q, "\x1f%s", g->vals[k]);
    g->sig = sqlite3_str_finish(q);
    if (!g->sig)
      return -1;
    g->ok = 1;
  } else {
    fprintf(stderr, "faultline: report --baseline: a scenario of '%s' does not parse with this version (%s): its "
                    "rows are left out\n",
            scenario ? scenario : "", fl_err_msg());
  }
  return c->ncfg - 1;
}

static int fl_cmp_rows(const void *pa, const void *pb)
{
  const fl_crow *a = pa, *b = pb;
  int s = strcmp(a->sig, b->sig);
  if (s)
    return s;
  if (a->seed != b->seed)
    return a->seed < b->seed ? -1 : 1;
  if (a->replica != b->replica)
    return a->replica < b->replica ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* The group of configuration `cfg` (its signature and baseline value), created if new. -1: out of memory. */
static int fl_cmp_group(fl_cmp *c, int cfg)
{
  const fl_ccfg *g = &c->cfg[cfg];
  for (int i = 0; i < c->ngroups; i++) {
    const fl_ccfg *h = &c->cfg[c->groups[i].cfg];
    if (strcmp(h->sig, g->sig) == 0 && strcmp(h->vals[c->kb], g->vals[c->kb]) == 0)
      return i;
  }
  if (c->ngroups == c->capgroups) {
    int cap = c->capgroups ? 2 * c->capgroups : 16;
    fl_cgroup *m = realloc(c->groups, (size_t)cap * sizeof *m);
    if (!m)
      return -1;
    c->groups = m;
    c->capgroups = cap;
  }
  memset(&c->groups[c->ngroups], 0, sizeof c->groups[0]);
  c->groups[c->ngroups].cfg = cfg;
  c->groups[c->ngroups].baseline = strcmp(g->vals[c->kb], c->bval) == 0;
  return c->ngroups++;
}

static int fl_cmp_push(fl_cgroup *gr, const fl_crow *x, const fl_crow *b)
{
  if (gr->n == gr->cap) {
    size_t cap = gr->cap ? 2 * gr->cap : 16;
    for (int f = 0; f < FL_NFIG; f++) {
      double *m = realloc(gr->d[f], cap * sizeof *m);
      if (!m)
        return -1;
      gr->d[f] = m;
    }
    gr->cap = cap;
  }
  for (int f = 0; f < FL_NFIG; f++) {
    gr->d[f][gr->n] = x->fig[f] - b->fig[f];
    gr->sx[f] += x->fig[f];
    gr->sb[f] += b->fig[f];
  }
  gr->n++;
  return 0;
}

static void fl_cmp_free(fl_cmp *c)
{
  for (int i = 0; i < c->ncfg; i++) {
    fl_ccfg *g = &c->cfg[i];
    if (g->vals)
      for (int k = 0; k < fl_scenario_key_count(); k++)
        free(g->vals[k]);
    free(g->vals);
    free(g->text);
    free(g->overrides);
    free(g->path);
    free(g->mode);
    free(g->scenario);
    sqlite3_free(g->sig);
  }
  for (int i = 0; i < c->ngroups; i++)
    for (int f = 0; f < FL_NFIG; f++)
      free(c->groups[i].d[f]);
  free(c->cfg);
  free(c->rows);
  free(c->groups);
}

static int fl_has_col(sqlite3 *h, const char *name)
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

/* Does group a come before group b? By scenario, mode, the shown keys but the first (numbers as numbers), then the
 * first (the baseline key). */
static int fl_cmp_before(const fl_cmp *c, const int *shown, int nshown, int a, int b)
{
  const fl_ccfg *x = &c->cfg[c->groups[a].cfg], *y = &c->cfg[c->groups[b].cfg];
  int s = strcmp(x->scenario, y->scenario);
  if (!s)
    s = strcmp(x->mode, y->mode);
  for (int i = 1; !s && i <= nshown; i++) {
    int k = shown[i % nshown];
    const char *u = x->vals[k], *v = y->vals[k];
    if (strcmp(fl_scenario_key_at(k)->vtype, "text") != 0 && u[0] && v[0]) {
      double du = strtod(u, NULL), dv = strtod(v, NULL);
      s = du < dv ? -1 : du > dv;
    } else {
      s = strcmp(u, v);
    }
  }
  return s < 0;
}

/* A key's value for a person: durations in the unit that reads best, the rest as stored. */
static void fl_cmp_show(const fl_scenario_keyinfo *k, const char *v, char *buf, size_t size)
{
  if (strcmp(k->unit, "s") == 0 && v[0]) {
    fl_units_format_duration(strtod(v, NULL), buf, size);
  } else if (strcmp(k->unit, "B") == 0 && v[0]) {
    fl_units_format_bytes(strtod(v, NULL), buf, size);
  } else {
    snprintf(buf, size, "%s", v);
  }
}

/* A difference and its interval for a person. */
static void fl_cmp_fmt_diff(int f, double d, double half, char *buf, size_t size)
{
  char a[32], b[32];
  if (f == FL_FIG_MAKESPAN) {
    fl_units_format_duration(d, a, sizeof a);
    fl_units_format_duration(half, b, sizeof b);
    snprintf(buf, size, "%s%s ± %s", d > 0 ? "+" : "", a, isnan(half) ? "-" : b);
  } else if (f == FL_FIG_NODE_HOURS) {
    snprintf(buf, size, "%+.4g node-h ± %.2g", d, half);
  } else if (f == FL_FIG_WASTE) {
    snprintf(buf, size, "%+.3g pts ± %.2g", 100.0 * d, 100.0 * half);
  } else {
    snprintf(buf, size, "%+.3g ± %.2g", d, half);
  }
}

fl_err fl_compare_print(sqlite3 *h, const char *path, const fl_compare_opts *opt, FILE *out)
{
  fl_err rc = FL_OK;
  fl_cmp c;
  fl_scenario *probe = NULL;
  sqlite3_stmt *st = NULL;
  char *sql = NULL, bbuf[64], bnorm[256], key[128];
  const char *eq = opt->baseline ? strchr(opt->baseline, '=') : NULL;
  int nk = fl_scenario_key_count(), x, *shown = NULL, nshown = 0;
  const fl_scenario_keyinfo *kb = NULL;
  fl_scenario_keyinfo kbi; /* a copy: fl_scenario_key_at's answer lasts until its next call */
  int *order = NULL;

  memset(&c, 0, sizeof c);
  c.kb = -1;
  FL_CHECK(eq && eq != opt->baseline && (size_t)(eq - opt->baseline) < sizeof key, FL_ERR_INPUT,
           "--baseline '%s': expected section.key=value, e.g. strategy.kind=checkpoint",
           opt->baseline ? opt->baseline : "");
  memcpy(key, opt->baseline, (size_t)(eq - opt->baseline));
  key[eq - opt->baseline] = '\0';
  for (int k = 0; k < nk; k++) {
    const fl_scenario_keyinfo *i = fl_scenario_key_at(k);
    char name[128];
    snprintf(name, sizeof name, "%s.%s", i->section, i->key);
    if (strcmp(name, key) == 0)
      c.kb = k;
  }
  FL_CHECK(c.kb >= 0, FL_ERR_INPUT, "--baseline '%s': no scenario key '%s' (faultline keys lists them)",
           opt->baseline, key);
  kbi = *fl_scenario_key_at(c.kb);
  kb = &kbi;
  FL_CHECK(!fl_cmp_ignored(kb), FL_ERR_INPUT, "--baseline '%s': %s only says where rows go; it cannot be compared",
           opt->baseline, key);
  {
    /* the value as the rows hold it: parsed by the key itself, so `2y` finds 63115200 s */
    fl_value v;
    FL_TRY(fl_scenario_from_text("", "--baseline", NULL, &probe));
    rc = fl_scenario_set(probe, opt->baseline);
    FL_CHECK(rc == FL_OK, FL_ERR_INPUT, "--baseline '%s': %s", opt->baseline, fl_err_msg());
    v = fl_scenario_key_value(probe, c.kb, bbuf, sizeof bbuf);
    fl_value_text(&v, bnorm, sizeof bnorm);
    c.bval = bnorm;
  }

  {
    sqlite3_str *q = sqlite3_str_new(h);
    sqlite3_str_appendf(q,
                        "SELECT id, scenario, mode, seed, replica, status = 'completed', makespan_s,"
                        " 1.0 - work_s / makespan_s, %s, failures, interruptions, %s, overrides, scenario_path"
                        " FROM runs WHERE (?1 IS NULL OR scenario = ?1)%s",
                        fl_has_col(h, "node_hours") ? "COALESCE(node_hours, platform_nodes * makespan_s / 3600.0)"
                                                    : "platform_nodes * makespan_s / 3600.0",
                        fl_db_text_sql(h), fl_has_col(h, "codec") ? " AND codec IS NULL" : "");
    if (opt->where && *opt->where)
      sqlite3_str_appendf(q, " AND (%s)", opt->where);
    sql = sqlite3_str_finish(q);
  }
  FL_CHECK(sql != NULL, FL_ERR_NOMEM, "out of memory");
  if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
    rc = fl_err_set(opt->where ? FL_ERR_INPUT : FL_ERR_DB, "%s: %s%s%s: %s", path, opt->where ? "--where '" : "",
                    opt->where ? opt->where : "reading runs", opt->where ? "'" : "", sqlite3_errmsg(h));
    goto done;
  }
  sqlite3_bind_text(st, 1, opt->scenario, -1, SQLITE_STATIC);
  while ((x = sqlite3_step(st)) == SQLITE_ROW) {
    fl_crow *r;
    int cfg = fl_cmp_cfg(&c, (const char *)sqlite3_column_text(st, 11), (const char *)sqlite3_column_text(st, 12),
                         (const char *)sqlite3_column_text(st, 13), (const char *)sqlite3_column_text(st, 2),
                         (const char *)sqlite3_column_text(st, 1));
    FL_CHECK(cfg >= 0, FL_ERR_NOMEM, "out of memory");
    if (!c.cfg[cfg].ok)
      continue;
    if (c.nrows == c.caprows) {
      size_t cap = c.caprows ? 2 * c.caprows : 256;
      fl_crow *m = realloc(c.rows, cap * sizeof *m);
      FL_CHECK(m != NULL, FL_ERR_NOMEM, "out of memory");
      c.rows = m;
      c.caprows = cap;
    }
    r = &c.rows[c.nrows++];
    r->cfg = cfg;
    r->id = sqlite3_column_int64(st, 0);
    r->seed = (uint64_t)sqlite3_column_int64(st, 3);
    r->replica = sqlite3_column_int64(st, 4);
    r->completed = sqlite3_column_int(st, 5) && sqlite3_column_type(st, 6) != SQLITE_NULL;
    for (int f = 0; f < FL_NFIG; f++)
      r->fig[f] = sqlite3_column_type(st, 6 + f) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 6 + f);
    if (isnan(r->fig[FL_FIG_FAILURES]) || isnan(r->fig[FL_FIG_INTERRUPTIONS]))
      r->completed = 0;
  }
  FL_CHECK(x == SQLITE_DONE, FL_ERR_DB, "%s: reading runs: %s", path, sqlite3_errmsg(h));

  /* the baseline's value must be among the rows' */
  {
    int found = 0;
    sqlite3_str *seen = sqlite3_str_new(NULL);
    char *list;
    int nseen = 0;
    for (int i = 0; i < c.ncfg; i++) {
      if (!c.cfg[i].ok)
        continue;
      if (strcmp(c.cfg[i].vals[c.kb], c.bval) == 0)
        found = 1;
      else if (nseen < 8) {
        int dup = 0;
        for (int j = 0; j < i; j++)
          dup |= c.cfg[j].ok && strcmp(c.cfg[j].vals[c.kb], c.cfg[i].vals[c.kb]) == 0;
        if (!dup)
          sqlite3_str_appendf(seen, "%s%s", nseen++ ? ", " : "", c.cfg[i].vals[c.kb]);
      }
    }
    list = sqlite3_str_finish(seen);
    if (!found) {
      rc = fl_err_set(FL_ERR_INPUT, "%s: --baseline %s: no row has %s = %s (%s: %s)", path, opt->baseline, key,
                      c.bval, c.nrows ? "values in these rows" : "no rows match",
                      c.nrows ? (list && *list ? list : "only that one, unparsed") : "none");
      sqlite3_free(list);
      goto done;
    }
    sqlite3_free(list);
  }

  for (size_t i = 0; i < c.nrows; i++)
    c.rows[i].sig = c.cfg[c.rows[i].cfg].sig;
  qsort(c.rows, c.nrows, sizeof *c.rows, fl_cmp_rows);
  for (size_t i = 0; i < c.nrows;) {
    size_t j = i;
    const fl_crow *base = NULL;
    while (j < c.nrows && strcmp(c.rows[j].sig, c.rows[i].sig) == 0 &&
           c.rows[j].seed == c.rows[i].seed && c.rows[j].replica == c.rows[i].replica)
      j++;
    for (size_t k = i; k < j; k++)
      if (!base && strcmp(c.cfg[c.rows[k].cfg].vals[c.kb], c.bval) == 0)
        base = &c.rows[k];
    for (size_t k = i; k < j; k++) {
      int g = fl_cmp_group(&c, c.rows[k].cfg);
      FL_CHECK(g >= 0, FL_ERR_NOMEM, "out of memory");
      if (base && &c.rows[k] != base && !c.groups[g].baseline && base->completed && c.rows[k].completed)
        FL_CHECK(fl_cmp_push(&c.groups[g], &c.rows[k], base) == 0, FL_ERR_NOMEM, "out of memory");
    }
    i = j;
  }

  /* the keys shown: the baseline key, then those whose value differs between the groups compared */
  FL_ALLOC(shown, nk);
  shown[nshown++] = c.kb;
  for (int k = 0; k < nk; k++) {
    const char *first = NULL;
    int varies = 0;
    if (k == c.kb || fl_cmp_ignored(fl_scenario_key_at(k)))
      continue;
    for (int g = 0; g < c.ngroups && !varies; g++) {
      const char *v = c.cfg[c.groups[g].cfg].vals[k];
      if (!first)
        first = v;
      else
        varies = strcmp(first, v) != 0;
    }
    if (varies)
      shown[nshown++] = k;
  }

  /* groups in the order of the shown keys' values (numbers as numbers), the baseline key last */
  FL_ALLOC(order, c.ngroups > 0 ? c.ngroups : 1);
  for (int g = 0; g < c.ngroups; g++) {
    int at = g;
    order[g] = g;
    while (at > 0 && fl_cmp_before(&c, shown, nshown, order[at], order[at - 1])) {
      int t = order[at];
      order[at] = order[at - 1];
      order[at - 1] = t;
      at--;
    }
  }

  if (opt->format == FL_COMPARE_CSV) {
    fprintf(out, "scenario,mode");
    for (int s = 0; s < nshown; s++)
      fprintf(out, ",%s.%s", fl_scenario_key_at(shown[s])->section, fl_scenario_key_at(shown[s])->key);
    fprintf(out, ",pairs");
    for (int f = 0; f < FL_NFIG; f++)
      fprintf(out, ",%s,%s_baseline,%s_diff,%s_diff_ci95,%s_ratio", fl_fig_name[f], fl_fig_name[f], fl_fig_name[f],
              fl_fig_name[f], fl_fig_name[f]);
    fputc('\n', out);
  } else if (opt->format == FL_COMPARE_JSON) {
    fprintf(out, "{\"baseline\": {\"key\": \"%s\", \"value\": ", key);
    {
      json_t *v = json_string(c.bval);
      json_dumpf(v ? v : json_null(), out, JSON_ENCODE_ANY);
      json_decref(v);
    }
    fprintf(out, "},\n \"comparisons\": [");
  } else {
    char shownb[64];
    fl_cmp_show(kb, c.bval, shownb, sizeof shownb);
    fprintf(out, "paired against %s = %s: each run minus the baseline's run of the same seed and replica (the same "
                 "failures); mean difference ± 95%% t-interval over the pairs both completed, ratio of the means\n\n",
            key, shownb);
  }

  {
    int first = 1;
    /* widths: the table's columns, aligned */
    for (int oi = 0; oi < c.ngroups; oi++) {
      const fl_cgroup *gr = &c.groups[order[oi]];
      const fl_ccfg *cf = &c.cfg[gr->cfg];
      double mean[FL_NFIG], half[FL_NFIG];
      if (gr->baseline || gr->n == 0)
        continue;
      for (int f = 0; f < FL_NFIG; f++)
        fl_stats_ci(gr->d[f], gr->n, 0.95, &mean[f], &half[f]);
      if (opt->format == FL_COMPARE_CSV) {
        fprintf(out, "\"%s\",%s", cf->scenario, cf->mode);
        for (int s = 0; s < nshown; s++) {
          const char *v = cf->vals[shown[s]];
          if (strcmp(fl_scenario_key_at(shown[s])->vtype, "text") == 0)
            fprintf(out, ",\"%s\"", v);
          else
            fprintf(out, ",%s", v);
        }
        fprintf(out, ",%zu", gr->n);
        for (int f = 0; f < FL_NFIG; f++) {
          double mx = gr->sx[f] / (double)gr->n, mb = gr->sb[f] / (double)gr->n;
          fprintf(out, ",%.17g,%.17g,%.17g,", mx, mb, mean[f]);
          if (!isnan(half[f]))
            fprintf(out, "%.17g", half[f]);
          fputc(',', out);
          if (mb != 0)
            fprintf(out, "%.17g", mx / mb);
        }
        fputc('\n', out);
      } else if (opt->format == FL_COMPARE_JSON) {
        json_t *o = json_object();
        FL_CHECK(o != NULL, FL_ERR_NOMEM, "out of memory");
        json_object_set_new(o, "scenario", json_string(cf->scenario));
        json_object_set_new(o, "mode", json_string(cf->mode));
        for (int s = 0; s < nshown; s++) {
          const fl_scenario_keyinfo *ki = fl_scenario_key_at(shown[s]);
          char name[128];
          const char *v = cf->vals[shown[s]];
          snprintf(name, sizeof name, "%s.%s", ki->section, ki->key);
          json_object_set_new(o, name,
                              !v[0]                                 ? json_null()
                              : strcmp(ki->vtype, "text") == 0      ? json_string(v)
                              : strcmp(ki->vtype, "integer") == 0   ? json_integer(strtoll(v, NULL, 10))
                              : isfinite(strtod(v, NULL))           ? json_real(strtod(v, NULL))
                                                                    : json_null());
        }
        json_object_set_new(o, "pairs", json_integer((json_int_t)gr->n));
        for (int f = 0; f < FL_NFIG; f++) {
          double mx = gr->sx[f] / (double)gr->n, mb = gr->sb[f] / (double)gr->n;
          char name[64];
          json_object_set_new(o, fl_fig_name[f], json_real(mx));
          snprintf(name, sizeof name, "%s_baseline", fl_fig_name[f]);
          json_object_set_new(o, name, json_real(mb));
          snprintf(name, sizeof name, "%s_diff", fl_fig_name[f]);
          json_object_set_new(o, name, json_real(mean[f]));
          snprintf(name, sizeof name, "%s_diff_ci95", fl_fig_name[f]);
          json_object_set_new(o, name, isnan(half[f]) ? json_null() : json_real(half[f]));
          snprintf(name, sizeof name, "%s_ratio", fl_fig_name[f]);
          json_object_set_new(o, name, mb != 0 ? json_real(mx / mb) : json_null());
        }
        fputs(first ? "\n  " : ",\n  ", out);
        json_dumpf(o, out, JSON_COMPACT);
        json_decref(o);
      } else {
        fprintf(out, "%s", cf->scenario);
        for (int s = 0; s < nshown; s++) {
          const fl_scenario_keyinfo *ki = fl_scenario_key_at(shown[s]);
          char v[64];
          fl_cmp_show(ki, cf->vals[shown[s]], v, sizeof v);
          fprintf(out, "  %s.%s=%s", ki->section, ki->key, v);
        }
        fprintf(out, "  (%zu pairs)\n", gr->n);
        for (int f = 0; f < FL_NFIG; f++) {
          double mx = gr->sx[f] / (double)gr->n, mb = gr->sb[f] / (double)gr->n;
          char d[96];
          int sig = !isnan(half[f]) && fabs(mean[f]) > half[f];
          fl_cmp_fmt_diff(f, mean[f], half[f], d, sizeof d);
          fprintf(out, "    %-14s %-28s ratio %-8.4g %s\n", fl_fig_head[f], d, mb != 0 ? mx / mb : NAN,
                  gr->n < 2 ? "(one pair: no interval)" : sig ? "significant" : "not significant");
        }
      }
      first = 0;
    }
    if (opt->format == FL_COMPARE_JSON)
      fputs(first ? "]}\n" : "\n ]}\n", out);
    if (first && opt->format == FL_COMPARE_TABLE)
      fprintf(out, "(no run pairs with one of the baseline's: the rows differ in more than %s)\n", key);
  }

  /* the verdict, per setting of the other keys: which value of the key is best on makespan and waste */
  if (opt->format == FL_COMPARE_TABLE) {
    int printed = 0;
    for (int oi = 0; oi < c.ngroups; oi++) {
      int g = order[oi];
      const char *sig = c.cfg[c.groups[g].cfg].sig;
      int seen_before = 0;
      if (!c.groups[g].baseline)
        continue;
      for (int o2 = 0; o2 < oi; o2++)
        seen_before |= c.groups[order[o2]].baseline && strcmp(c.cfg[c.groups[order[o2]].cfg].sig, sig) == 0;
      if (seen_before)
        continue;
      for (int f = 0; f <= FL_FIG_NODE_HOURS; f++) {
        int best = -1, any = 0;
        double bestd = 0, besth = NAN;
        for (int h2 = 0; h2 < c.ngroups; h2++) {
          const fl_cgroup *gr = &c.groups[h2];
          double m, hh;
          if (gr->baseline || gr->n == 0 || strcmp(c.cfg[gr->cfg].sig, sig) != 0)
            continue;
          fl_stats_ci(gr->d[f], gr->n, 0.95, &m, &hh);
          if (!any || m < bestd) {
            best = h2;
            bestd = m;
            besth = hh;
          }
          any = 1;
        }
        if (!any)
          continue;
        if (!printed++)
          fprintf(out, "\nverdict (lower is better):\n");
        {
          const fl_ccfg *cf = &c.cfg[c.groups[best].cfg];
          char bv[64], ov[64], d[96];
          int sig2 = !isnan(besth) && fabs(bestd) > besth;
          fl_cmp_show(kb, c.bval, bv, sizeof bv);
          fl_cmp_show(kb, cf->vals[c.kb], ov, sizeof ov);
          fl_cmp_fmt_diff(f, bestd, besth, d, sizeof d);
          fprintf(out, "  %s", cf->scenario);
          for (int s = 1; s < nshown; s++) {
            const fl_scenario_keyinfo *ki = fl_scenario_key_at(shown[s]);
            char v[64];
            fl_cmp_show(ki, cf->vals[shown[s]], v, sizeof v);
            fprintf(out, " %s.%s=%s", ki->section, ki->key, v);
          }
          if (bestd == 0 && besth == 0)
            fprintf(out, ": %s: %s = %s equals the baseline %s run for run\n", fl_fig_head[f], key, ov, bv);
          else if (bestd < 0)
            fprintf(out, ": %s: %s = %s is best, %s against %s (%s)\n", fl_fig_head[f], key, ov, d, bv,
                    sig2 ? "significant" : "not significant: the interval holds 0");
          else
            fprintf(out, ": %s: the baseline %s = %s is best; the closest, %s, is %s (%s)\n", fl_fig_head[f], key,
                    bv, ov, d, sig2 ? "significant" : "not significant: the interval holds 0");
        }
      }
    }
  }
done:
  fl_scenario_destroy(&probe);
  sqlite3_finalize(st);
  sqlite3_free(sql);
  free(shown);
  free(order);
  fl_cmp_free(&c);
  return rc;
}
