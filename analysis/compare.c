/* compare.c — paired comparisons against a baseline (compare.h).
 *
 * One pass reads the rows; each distinct stored scenario (text, overrides, path, mode) is replayed once into its
 * keys' values (SI units, as `export` writes them). A row's pair signature is what decides its job and its
 * failures: its scenario's values but the baseline keys' — and, when the baseline is a strategy's (a key of
 * [strategy], [policy] or [recovery]), but every such key: a strategy's own costs and parameters belong to the
 * configuration compared (buddy at 30 s against the file system at 5 min pair on the same failures). Rows sorted
 * by (signature, seed, replica) put each replica's runs side by side, and each run is paired with the baseline's
 * run of its block; a block holding two baseline configurations is ambiguous (give the baseline jointly:
 * strategy.kind+strategy.checkpoint_cost=checkpoint/5min). */
#include "compare.h"

#include "rowset.h"
#include "stats.h"
#include "units.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The figures compared: name in CSV/JSON, head in the table, how the table writes a difference. A job's runs are
 * compared on makespan, waste and node-hours (the verdict's), failures and interruptions; a machine's (workloads)
 * on the node-hours resilience cost it, the jobs' mean wait and bounded slowdown (the verdict's), then the
 * overhead's parts and failures. Every figure: lower is better. */
enum { FL_FK_DURATION, FL_FK_PTS, FL_FK_NODEH, FL_FK_ENERGY, FL_FK_PLAIN };
typedef struct fl_cfig {
  const char *name, *head;
  int kind;
} fl_cfig;
#define FL_NFIG 8     /* at most */
#define FL_NVERDICT 3 /* a machine's */
#define FL_NVERDICT_JOB 4
static const fl_cfig fl_job_figs[] = {
    {"makespan_s", "makespan", FL_FK_DURATION},          {"waste", "waste", FL_FK_PTS},
    {"node_hours", "node-hours", FL_FK_NODEH},           {"energy_j", "energy", FL_FK_ENERGY},
    {"wasted_node_hours", "wasted node-h", FL_FK_NODEH}, {"failures", "failures", FL_FK_PLAIN},
    {"interruptions", "interruptions", FL_FK_PLAIN}};
static const fl_cfig fl_machine_figs[] = {
    {"overhead_node_hours", "overhead node-h", FL_FK_NODEH},     {"mean_wait_s", "mean wait", FL_FK_DURATION},
    {"mean_bounded_slowdown", "bounded slowdown", FL_FK_PLAIN},  {"lost_node_hours", "lost node-h", FL_FK_NODEH},
    {"checkpoint_node_hours", "checkpoint node-h", FL_FK_NODEH}, {"io_wait_node_hours", "I/O wait node-h", FL_FK_NODEH},
    {"io_node_hours", "I/O + wait node-h", FL_FK_NODEH},         {"replica_node_hours", "copies node-h", FL_FK_NODEH}};
_Static_assert(sizeof fl_machine_figs / sizeof fl_machine_figs[0] <= FL_NFIG, "room for every figure");
_Static_assert(sizeof fl_job_figs / sizeof fl_job_figs[0] <= FL_NFIG, "room for every figure");

/* A row as the comparison sorts it: its signature (its configuration's values but the baseline key's). */
typedef struct fl_crow {
  int cfg;
  const char *sig;
  uint64_t seed;
  long long replica, id;
  int completed;
  const double *fig;
} fl_crow;

typedef struct fl_cgroup fl_cgroup;
struct fl_cgroup {
  int cfg;      /* a configuration of the group (its values label it) */
  int baseline; /* it is the baseline's */
  double *d[FL_NFIG];
  double sx[FL_NFIG], sb[FL_NFIG]; /* sums over the pairs, of its values and the baseline's */
  size_t n, cap;
};

#define FL_CMP_NKB 8 /* baseline keys given jointly, at most */

typedef struct fl_cmp {
  fl_rowset *rs;
  char **sig;  /* per configuration: the values that pair */
  char **conf; /* per configuration: the values compared (those the signature leaves out) */
  fl_crow *rows;
  size_t nrows;
  fl_cgroup *groups;
  int ngroups, capgroups;
  int kb;              /* the (first) baseline key's index */
  const char *bval;    /* its value, normalised */
  int kbs[FL_CMP_NKB]; /* every baseline key (a joint baseline: k1+k2=v1/v2) */
  char bvals[FL_CMP_NKB][256];
  int nkb;
  int by_strategy;     /* every baseline key is a strategy's: the strategy's other keys are compared, not paired */
  const fl_cfig *figs; /* fl_job_figs or fl_machine_figs */
  int nfig;
  char key[128];      /* the baseline's key(s), as given */
  char bnorm[2048];   /* its value(s), normalised, joined by / */
  char bshown[1024];  /* the baseline as the table shows it: key=value ... */
  int *shown, nshown; /* the keys shown: the baseline key, then those that vary between the groups */
  int *order;         /* the groups in the order they are shown */
} fl_cmp;

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

/* A key of a strategy's configuration (compared, not paired on, when the baseline is a strategy's). */
static int fl_cmp_config_key(int k)
{
  const char *sec = fl_scenario_key_at(k)->section;
  return strcmp(sec, "strategy") == 0 || strcmp(sec, "policy") == 0 || strcmp(sec, "recovery") == 0;
}

/* Is key k left out of the pair signature (a baseline key, or a strategy's when the baseline is one)? */
static int fl_cmp_compared(const fl_cmp *c, int k)
{
  for (int i = 0; i < c->nkb; i++)
    if (c->kbs[i] == k)
      return 1;
  return c->by_strategy && fl_cmp_config_key(k);
}

/* Does configuration cfg hold the baseline's values? */
static int fl_cmp_is_baseline(const fl_cmp *c, int cfg)
{
  for (int i = 0; i < c->nkb; i++)
    if (strcmp(c->rs->cfg[cfg].vals[c->kbs[i]], c->bvals[i]) != 0)
      return 0;
  return 1;
}

/* The group of configuration `cfg` (its signature and compared values), created if new. -1: out of memory. */
static int fl_cmp_group(fl_cmp *c, int cfg)
{
  for (int i = 0; i < c->ngroups; i++)
    if (strcmp(c->sig[c->groups[i].cfg], c->sig[cfg]) == 0 && strcmp(c->conf[c->groups[i].cfg], c->conf[cfg]) == 0)
      return i;
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
  c->groups[c->ngroups].baseline = fl_cmp_is_baseline(c, cfg);
  return c->ngroups++;
}

static int fl_cmp_push(fl_cgroup *gr, const fl_crow *x, const fl_crow *b, int nfig)
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
  for (int f = 0; f < nfig; f++) {
    /* a difference within the last digits of the figures is none: sums of the same terms in another order (a
     * task graph's executions) must not read as a significant 1e-15 */
    double d = x->fig[f] - b->fig[f];
    gr->d[f][gr->n] = fabs(d) <= 1e-12 * fmax(fabs(x->fig[f]), fabs(b->fig[f])) ? 0.0 : d;
    gr->sx[f] += x->fig[f];
    gr->sb[f] += b->fig[f];
  }
  gr->n++;
  return 0;
}

static void fl_cmp_free(fl_cmp *c)
{
  for (int i = 0; c->sig && c->rs && i < c->rs->ncfg; i++)
    sqlite3_free(c->sig[i]);
  for (int i = 0; c->conf && c->rs && i < c->rs->ncfg; i++)
    sqlite3_free(c->conf[i]);
  free(c->sig);
  free(c->conf);
  for (int i = 0; i < c->ngroups; i++)
    for (int f = 0; f < FL_NFIG; f++)
      free(c->groups[i].d[f]);
  free(c->rows);
  free(c->groups);
  free(c->shown);
  free(c->order);
  fl_rowset_destroy(&c->rs);
}

/* Does group a come before group b? By scenario, mode, the shown keys but the first, then the first (the baseline
 * key). */
static int fl_cmp_before(const fl_cmp *c, const int *shown, int nshown, int a, int b)
{
  int ks[512], n = 0;
  for (int i = 1; i <= nshown && n < 512; i++)
    ks[n++] = shown[i % nshown];
  return fl_rowset_before(c->rs, c->groups[a].cfg, c->groups[b].cfg, ks, n);
}

/* A configuration for a person: its scenario, then key=value for the keys shown from `from` on. */
static void fl_cmp_label(FILE *out, const fl_rowcfg *cf, const int *shown, int nshown, int from, const char *sep)
{
  fputs(cf->scenario, out);
  for (int s = from; s < nshown; s++) {
    fl_scenario_keyinfo ki = *fl_scenario_key_at(shown[s]); /* a copy: the next call reuses its buffer */
    char v[64];
    fl_rowset_show(shown[s], cf->vals[shown[s]], v, sizeof v);
    fprintf(out, "%s%s.%s=%s", sep, ki.section, ki.key, v);
  }
}

/* A difference and its interval for a person, both in one unit (the one that suits the larger of the two: not
 * "-43.1h ± 82.4min"), the difference to 3 significant digits and the interval to 2. */
/* x to `sig` significant digits, without an exponent (numbers here are scaled to under 1000 first). */
static void fl_cmp_num(double x, int sig, int plus, char *buf, size_t size)
{
  int e = x != 0 && isfinite(x) ? (int)floor(log10(fabs(x))) : 0, dec = sig - 1 - e;
  if (x == 0)
    snprintf(buf, size, "0");
  else
    snprintf(buf, size, plus ? "%+.*f" : "%.*f", dec > 0 ? (dec < 12 ? dec : 12) : 0, x);
}

static void fl_cmp_scaled(double d, double half, const char *const *unit, const double *scale, int n, char *buf,
                          size_t size)
{
  double m = fmax(fabs(d), isnan(half) ? 0.0 : half);
  int u = 0;
  char a[48], b[48] = "-";
  while (u + 1 < n && m >= scale[u + 1])
    u++;
  fl_cmp_num(d / scale[u], 3, 1, a, sizeof a);
  if (!isnan(half))
    fl_cmp_num(half / scale[u], 2, 0, b, sizeof b);
  snprintf(buf, size, "%s%s ± %s%s", a, unit[u], b, isnan(half) ? "" : unit[u]);
}

static void fl_cmp_fmt_diff(int kind, double d, double half, char *buf, size_t size)
{
  static const char *const dur_u[] = {"s", "min", "h", "d"}, *const nh_u[] = {" node-h", "k node-h", "M node-h"},
                           *const e_u[] = {" kWh", " MWh", " GWh"}, *const pts_u[] = {" pts"}, *const none[] = {""};
  static const double dur_s[] = {1, 60, 3600, 86400}, nh_s[] = {1, 1e3, 1e6}, e_s[] = {3.6e6, 3.6e9, 3.6e12},
                      one[] = {1};
  if (kind == FL_FK_DURATION)
    fl_cmp_scaled(d, half, dur_u, dur_s, 4, buf, size);
  else if (kind == FL_FK_NODEH)
    fl_cmp_scaled(d, half, nh_u, nh_s, 3, buf, size);
  else if (kind == FL_FK_ENERGY)
    fl_cmp_scaled(d, half, e_u, e_s, 3, buf, size);
  else if (kind == FL_FK_PTS)
    fl_cmp_scaled(100.0 * d, 100.0 * half, pts_u, one, 1, buf, size);
  else
    fl_cmp_scaled(d, half, none, one, 1, buf, size);
}

/* A configuration by its compared keys among those shown: "strategy.kind=buddy strategy.checkpoint_cost=30s". */
static void fl_cmp_conf_label(const fl_cmp *c, const fl_rowcfg *cf, const int *shown, int nshown, char *buf,
                              size_t size)
{
  buf[0] = '\0';
  for (int s = 0; s < nshown; s++) {
    char v[64];
    if (!fl_cmp_compared(c, shown[s]))
      continue;
    fl_rowset_show(shown[s], cf->vals[shown[s]], v, sizeof v);
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s.%s=%s", buf[0] ? " " : "",
             fl_scenario_key_at(shown[s])->section, fl_scenario_key_at(shown[s])->key, v);
  }
}

/* The keys whose values differ between configurations a and b, "k1, k2" (at most 6), among those `which` selects
 * (1: the pair signature's, 0: the compared ones). */
static void fl_cmp_differing(const fl_cmp *c, int a, int b, int which, char *buf, size_t size)
{
  int n = 0;
  buf[0] = '\0';
  for (int k = 0; k < fl_scenario_key_count() && n < 6; k++) {
    const fl_scenario_keyinfo *ki = fl_scenario_key_at(k);
    if (fl_rowset_key_ignored(k) || fl_cmp_compared(c, k) == which ||
        strcmp(c->rs->cfg[a].vals[k], c->rs->cfg[b].vals[k]) == 0)
      continue;
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s.%s", n++ ? ", " : "", ki->section, ki->key);
  }
}

static fl_err fl_cmp_ambiguous(const fl_cmp *c, const char *path, const char *baseline, const char *key, int a, int b)
{
  char diff[512], keys[640];
  fl_cmp_differing(c, a, b, 0, diff, sizeof diff);
  snprintf(keys, sizeof keys, "%s", key);
  for (const char *p = diff; *p;) { /* a joint baseline naming them: key+k1+k2=... */
    size_t n = strcspn(p, ",");
    snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "+%.*s", (int)n, p);
    p += n;
    while (*p == ',' || *p == ' ')
      p++;
  }
  return fl_err_set(FL_ERR_INPUT,
                    "%s: --baseline %s: two configurations have it on the same runs (they differ in %s): give the "
                    "baseline jointly, e.g. --baseline '%s=...' with one value each, joined by /",
                    path, baseline, diff[0] ? diff : "nothing shown", keys);
}

static fl_err fl_cmp_unpaired(const fl_cmp *c, const char *path, const char *baseline)
{
  char diff[512] = "";
  for (int g = 0; g < c->ngroups && !diff[0]; g++)
    for (int h = 0; h < c->ngroups && !diff[0]; h++)
      if (c->groups[g].baseline && !c->groups[h].baseline)
        fl_cmp_differing(c, c->groups[g].cfg, c->groups[h].cfg, 1, diff, sizeof diff);
  return fl_err_set(FL_ERR_INPUT,
                    "%s: --baseline %s: no run pairs with a baseline run of the same seed and replica: the rows also "
                    "differ in %s",
                    path, baseline, diff[0] ? diff : "their seeds or replicas");
}

/* --baseline KEY=VALUE, or K1+K2=V1/V2 (a joint sweep's value), into c: each key found, each value parsed by its key
 * in *probe (a scenario made here for it), so `2y` finds 63115200 s. */
static fl_err fl_cmp_baseline(fl_cmp *c, const fl_compare_opts *opt, fl_scenario **probe)
{
  fl_err rc = FL_OK;
  const char *eq = opt->baseline ? strchr(opt->baseline, '=') : NULL;
  int nk = fl_scenario_key_count();
  FL_CHECK(eq && eq != opt->baseline && (size_t)(eq - opt->baseline) < sizeof c->key, FL_ERR_INPUT,
           "--baseline '%s': expected section.key=value, e.g. strategy.kind=checkpoint (or keys joined by + and "
           "their values by /, as a joint sweep gives them)",
           opt->baseline ? opt->baseline : "");
  memcpy(c->key, opt->baseline, (size_t)(eq - opt->baseline));
  c->key[eq - opt->baseline] = '\0';
  FL_TRY(fl_scenario_from_text("", "--baseline", NULL, probe));
  {
    /* KEY=VALUE, or K1+K2=V1/V2 (a joint sweep's value): each key found, each value parsed by its key, so `2y`
     * finds 63115200 s */
    char keys[128], vals[512];
    char *ksave = NULL, *vsave = NULL, *k1, *v1;
    snprintf(keys, sizeof keys, "%s", c->key);
    snprintf(vals, sizeof vals, "%s", eq + 1);
    int joint = strchr(keys, '+') != NULL; /* one key: its value whole (a path may hold a /) */
    for (k1 = strtok_r(keys, "+", &ksave), v1 = joint ? strtok_r(vals, "/", &vsave) : vals; k1;
         k1 = strtok_r(NULL, "+", &ksave), v1 = joint ? strtok_r(NULL, "/", &vsave) : NULL) {
      int kb = -1;
      char set[700], bbuf[64];
      fl_value v;
      for (int k = 0; k < nk; k++) {
        const fl_scenario_keyinfo *i = fl_scenario_key_at(k);
        char name[128];
        snprintf(name, sizeof name, "%s.%s", i->section, i->key);
        if (strcmp(name, k1) == 0)
          kb = k;
      }
      FL_CHECK(kb >= 0, FL_ERR_INPUT, "--baseline '%s': no scenario key '%s' (faultline keys lists them)",
               opt->baseline, k1);
      FL_CHECK(!fl_rowset_key_ignored(kb), FL_ERR_INPUT,
               "--baseline '%s': %s only says where rows go; it cannot be compared", opt->baseline, k1);
      FL_CHECK(c->nkb < FL_CMP_NKB, FL_ERR_INPUT, "--baseline '%s': at most %d keys jointly", opt->baseline,
               FL_CMP_NKB);
      FL_CHECK(v1 != NULL, FL_ERR_INPUT, "--baseline '%s': %s has no value (the values of joint keys are joined by /)",
               opt->baseline, k1);
      snprintf(set, sizeof set, "%s=%s", k1, v1);
      rc = fl_scenario_set(*probe, set);
      if (rc != FL_OK) { /* the key's reason, without the "--set KEY=VALUE: " it was given as (copied first: the
                          * message is rewritten in the buffer it is read from) */
        char why[512], as[720];
        const char *m = fl_err_msg();
        snprintf(as, sizeof as, "--set %s: ", set);
        snprintf(why, sizeof why, "%s", strncmp(m, as, strlen(as)) == 0 ? m + strlen(as) : m);
        rc = fl_err_set(FL_ERR_INPUT, "--baseline '%s': %s", opt->baseline, why);
        goto done;
      }
      v = fl_scenario_key_value(*probe, kb, bbuf, sizeof bbuf);
      c->kbs[c->nkb] = kb;
      fl_value_text(&v, c->bvals[c->nkb], sizeof c->bvals[c->nkb]);
      c->nkb++;
    }
    FL_CHECK(!joint || v1 == NULL, FL_ERR_INPUT, "--baseline '%s': more values than keys", opt->baseline);
    c->kb = c->kbs[0];
    c->bval = c->bvals[0];
    for (int i = 0; i < c->nkb; i++) {
      char v[64];
      fl_rowset_show(c->kbs[i], c->bvals[i], v, sizeof v);
      snprintf(c->bshown + strlen(c->bshown), sizeof c->bshown - strlen(c->bshown), "%s%s.%s=%s", i ? " " : "",
               fl_scenario_key_at(c->kbs[i])->section, fl_scenario_key_at(c->kbs[i])->key, v);
    }
    snprintf(c->bnorm, sizeof c->bnorm, "%s", c->bvals[0]);
    for (int i = 1; i < c->nkb; i++)
      snprintf(c->bnorm + strlen(c->bnorm), sizeof c->bnorm - strlen(c->bnorm), "/%s", c->bvals[i]);
    c->by_strategy = 1;
    for (int i = 0; i < c->nkb; i++)
      c->by_strategy &= fl_cmp_config_key(c->kbs[i]);
  }

done:
  return rc;
}

/* The rows compared: the machine's figures when every one is a workload's, else the job's; each configuration's
 * signature (the values that pair) and the values compared. */
static fl_err fl_cmp_load(fl_cmp *c, sqlite3 *h, const char *path, const fl_compare_opts *opt)
{
  fl_err rc = FL_OK;
  int nk = fl_scenario_key_count();
  {
    /* the machine's figures when every row compared is a workload's */
    sqlite3_stmt *st = NULL;
    char *q = sqlite3_mprintf("SELECT COUNT(*), COALESCE(SUM(app = 'workload'), 0) FROM runs WHERE (%Q IS NULL OR "
                              "scenario = %Q) AND (%s)",
                              opt->scenario, opt->scenario, opt->where ? opt->where : "1");
    FL_CHECK(q != NULL, FL_ERR_NOMEM, "out of memory");
    rc = fl_runs_prepare(h, path, q, opt->where, &st);
    sqlite3_free(q);
    if (rc != FL_OK)
      goto done;
    int machine = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0 &&
                  sqlite3_column_int64(st, 0) == sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    c->figs = machine ? fl_machine_figs : fl_job_figs;
    c->nfig = machine ? (int)(sizeof fl_machine_figs / sizeof fl_machine_figs[0])
                      : (int)(sizeof fl_job_figs / sizeof fl_job_figs[0]);
  }
  {
    const char *figs[FL_NFIG];
    fl_rowset_query rq = {opt->scenario, opt->where, figs, c->nfig, 1, NULL, 0};
    for (int f = 0; f < c->nfig; f++)
      FL_CHECK((figs[f] = fl_rowset_figure_sql(h, c->figs[f].name)) != NULL, FL_ERR_INTERNAL, "figure %s: no column",
               c->figs[f].name);
    FL_TRY(fl_rowset_load(h, path, &rq, &c->rs));
  }
  FL_ALLOC(c->sig, c->rs->ncfg > 0 ? c->rs->ncfg : 1);
  FL_ALLOC(c->conf, c->rs->ncfg > 0 ? c->rs->ncfg : 1);
  for (int i = 0; i < c->rs->ncfg; i++) {
    sqlite3_str *q, *qc;
    if (!c->rs->cfg[i].vals)
      continue;
    q = sqlite3_str_new(NULL);
    qc = sqlite3_str_new(NULL);
    sqlite3_str_appendf(q, "%s\x1f%s", c->rs->cfg[i].scenario, c->rs->cfg[i].mode);
    for (int k = 0; k < nk; k++)
      if (!fl_rowset_key_ignored(k))
        sqlite3_str_appendf(fl_cmp_compared(c, k) ? qc : q, "\x1f%s", c->rs->cfg[i].vals[k]);
    c->sig[i] = sqlite3_str_finish(q);
    c->conf[i] = sqlite3_str_finish(qc);
    FL_CHECK(c->sig[i] != NULL && c->conf[i] != NULL, FL_ERR_NOMEM, "out of memory");
  }
  FL_ALLOC(c->rows, c->rs->nrows > 0 ? c->rs->nrows : 1);
  for (size_t i = 0; i < c->rs->nrows; i++) {
    const fl_row *src = &c->rs->rows[i];
    fl_crow *r = &c->rows[c->nrows++];
    r->cfg = src->cfg;
    r->sig = c->sig[src->cfg];
    r->id = src->id;
    r->seed = src->seed;
    r->replica = src->replica;
    r->fig = src->fig;
    /* jobs: makespan, failures and interruptions known; machines: the verdict's figures */
    r->completed = strcmp(src->status, "completed") == 0 && !isnan(src->fig[0]) &&
                   (c->figs == fl_job_figs ? !isnan(src->fig[5]) && !isnan(src->fig[6])
                                           : !isnan(src->fig[1]) && !isnan(src->fig[2]));
  }

done:
  return rc;
}

/* The baseline's value must be among the rows'. */
static fl_err fl_cmp_find_baseline(fl_cmp *c, const char *path, const fl_compare_opts *opt)
{
  fl_err rc = FL_OK;
  {
    int found = 0;
    sqlite3_str *seen = sqlite3_str_new(NULL);
    char *list;
    int nseen = 0;
    const fl_rowcfg *cf = c->rs->cfg;
    for (int i = 0; i < c->rs->ncfg; i++) {
      if (!cf[i].vals)
        continue;
      if (fl_cmp_is_baseline(c, i))
        found = 1;
      else if (nseen < 8) {
        int dup = 0;
        for (int j = 0; j < i; j++)
          dup |= cf[j].vals && strcmp(cf[j].vals[c->kb], cf[i].vals[c->kb]) == 0;
        if (!dup)
          sqlite3_str_appendf(seen, "%s%s", nseen++ ? ", " : "", cf[i].vals[c->kb]);
      }
    }
    list = sqlite3_str_finish(seen);
    if (!found) {
      rc = fl_err_set(FL_ERR_INPUT, "%s: --baseline %s: no row has %s = %s (%s: %s)", path, opt->baseline, c->key,
                      c->bnorm, c->nrows ? "values in these rows" : "no rows match",
                      c->nrows ? (list && *list ? list : "only that one, unparsed") : "none");
      sqlite3_free(list);
      goto done;
    }
    sqlite3_free(list);
  }

done:
  return rc;
}

/* Rows of the same failures (signature, seed, replica) paired with the baseline's, into groups by configuration. */
static fl_err fl_cmp_pair(fl_cmp *c, const char *path, const fl_compare_opts *opt)
{
  fl_err rc = FL_OK;
  qsort(c->rows, c->nrows, sizeof *c->rows, fl_cmp_rows);
  for (size_t i = 0; i < c->nrows;) {
    size_t j = i;
    const fl_crow *base = NULL;
    while (j < c->nrows && strcmp(c->rows[j].sig, c->rows[i].sig) == 0 && c->rows[j].seed == c->rows[i].seed &&
           c->rows[j].replica == c->rows[i].replica)
      j++;
    for (size_t k = i; k < j; k++) {
      int cf = c->rows[k].cfg;
      if (!fl_cmp_is_baseline(c, cf))
        continue;
      if (base && strcmp(c->conf[base->cfg], c->conf[cf]) != 0) {
        /* two baseline configurations on the same failures: which one is the baseline? */
        rc = fl_cmp_ambiguous(c, path, opt->baseline, c->key, base->cfg, cf);
        goto done;
      }
      if (!base)
        base = &c->rows[k];
    }
    for (size_t k = i; k < j; k++) {
      int g = fl_cmp_group(c, c->rows[k].cfg);
      FL_CHECK(g >= 0, FL_ERR_NOMEM, "out of memory");
      if (base && &c->rows[k] != base && !c->groups[g].baseline && base->completed && c->rows[k].completed)
        FL_CHECK(fl_cmp_push(&c->groups[g], &c->rows[k], base, c->nfig) == 0, FL_ERR_NOMEM, "out of memory");
    }
    i = j;
  }

done:
  return rc;
}

/* The keys shown: the baseline key, then those whose value differs between the groups compared; the groups in the
 * order of the shown keys' values (numbers as numbers), the baseline key last. */
static fl_err fl_cmp_arrange(fl_cmp *c)
{
  fl_err rc = FL_OK;
  int nk = fl_scenario_key_count();
  FL_ALLOC(c->shown, nk);
  c->shown[c->nshown++] = c->kb;
  for (int k = 0; k < nk; k++) {
    const char *first = NULL;
    int varies = 0;
    if (k == c->kb || fl_rowset_key_ignored(k))
      continue;
    for (int g = 0; g < c->ngroups && !varies; g++) {
      const char *v = c->rs->cfg[c->groups[g].cfg].vals[k];
      if (!first)
        first = v;
      else
        varies = strcmp(first, v) != 0;
    }
    if (varies)
      c->shown[c->nshown++] = k;
  }

  /* groups in the order of the shown keys' values (numbers as numbers), the baseline key last */
  FL_ALLOC(c->order, c->ngroups > 0 ? c->ngroups : 1);
  for (int g = 0; g < c->ngroups; g++) {
    int at = g;
    c->order[g] = g;
    while (at > 0 && fl_cmp_before(c, c->shown, c->nshown, c->order[at], c->order[at - 1])) {
      int t = c->order[at];
      c->order[at] = c->order[at - 1];
      c->order[at - 1] = t;
      at--;
    }
  }

done:
  return rc;
}

/* What the comparison is, before its groups: CSV's header, JSON's opening, the table's sentence. */
static void fl_cmp_print_head(const fl_cmp *c, const fl_compare_opts *opt, FILE *out)
{
  if (opt->format == FL_COMPARE_CSV) {
    fprintf(out, "scenario,mode");
    for (int s = 0; s < c->nshown; s++)
      fprintf(out, ",%s.%s", fl_scenario_key_at(c->shown[s])->section, fl_scenario_key_at(c->shown[s])->key);
    fprintf(out, ",pairs");
    for (int f = 0; f < c->nfig; f++)
      fprintf(out, ",%s,%s_baseline,%s_diff,%s_diff_ci95,%s_ratio", c->figs[f].name, c->figs[f].name, c->figs[f].name,
              c->figs[f].name, c->figs[f].name);
    fputc('\n', out);
  } else if (opt->format == FL_COMPARE_JSON) {
    fprintf(out, "{\"baseline\": {\"key\": \"%s\", \"value\": ", c->key);
    {
      json_t *v = json_string(c->bnorm);
      json_dumpf(v ? v : json_null(), out, JSON_ENCODE_ANY);
      json_decref(v);
    }
    fprintf(out, "},\n \"comparisons\": [");
  } else {

    fprintf(out,
            "paired against %s: each run minus the baseline's run of the same seed and replica (the same "
            "failures)%s; mean difference ± 95%% t-interval over the pairs both completed, ratio of the means\n\n",
            c->bshown,
            c->by_strategy ? ", each strategy with its own costs and parameters (they are what is compared)" : "");
  }
}

/* Each group against the baseline: its pairs, and per figure the mean difference, its interval and the ratio. */
static fl_err fl_cmp_print_groups(fl_cmp *c, const char *path, const fl_compare_opts *opt, FILE *out)
{
  fl_err rc = FL_OK;
  {
    int first = 1;
    /* widths: the table's columns, aligned */
    for (int oi = 0; oi < c->ngroups; oi++) {
      const fl_cgroup *gr = &c->groups[c->order[oi]];
      const fl_rowcfg *cf = &c->rs->cfg[gr->cfg];
      double mean[FL_NFIG], half[FL_NFIG];
      if (gr->baseline || gr->n == 0)
        continue;
      for (int f = 0; f < c->nfig; f++)
        fl_stats_ci(gr->d[f], gr->n, 0.95, &mean[f], &half[f]);
      if (opt->format == FL_COMPARE_CSV) {
        fprintf(out, "\"%s\",%s", cf->scenario, cf->mode);
        for (int s = 0; s < c->nshown; s++) {
          const char *v = cf->vals[c->shown[s]];
          if (strcmp(fl_scenario_key_at(c->shown[s])->vtype, "text") == 0)
            fprintf(out, ",\"%s\"", v);
          else
            fprintf(out, ",%s", v);
        }
        fprintf(out, ",%zu", gr->n);
        for (int f = 0; f < c->nfig; f++) {
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
        for (int s = 0; s < c->nshown; s++) {
          const fl_scenario_keyinfo *ki = fl_scenario_key_at(c->shown[s]);
          char name[128];
          const char *v = cf->vals[c->shown[s]];
          snprintf(name, sizeof name, "%s.%s", ki->section, ki->key);
          json_object_set_new(o, name,
                              !v[0]                               ? json_null()
                              : strcmp(ki->vtype, "text") == 0    ? json_string(v)
                              : strcmp(ki->vtype, "integer") == 0 ? json_integer(strtoll(v, NULL, 10))
                              : isfinite(strtod(v, NULL))         ? json_real(strtod(v, NULL))
                                                                  : json_null());
        }
        json_object_set_new(o, "pairs", json_integer((json_int_t)gr->n));
        for (int f = 0; f < c->nfig; f++) {
          double mx = gr->sx[f] / (double)gr->n, mb = gr->sb[f] / (double)gr->n;
          char name[64];
          json_object_set_new(o, c->figs[f].name, json_real(mx));
          snprintf(name, sizeof name, "%s_baseline", c->figs[f].name);
          json_object_set_new(o, name, json_real(mb));
          snprintf(name, sizeof name, "%s_diff", c->figs[f].name);
          json_object_set_new(o, name, json_real(mean[f]));
          snprintf(name, sizeof name, "%s_diff_ci95", c->figs[f].name);
          json_object_set_new(o, name, isnan(half[f]) ? json_null() : json_real(half[f]));
          snprintf(name, sizeof name, "%s_ratio", c->figs[f].name);
          json_object_set_new(o, name, mb != 0 ? json_real(mx / mb) : json_null());
        }
        fputs(first ? "\n  " : ",\n  ", out);
        json_dumpf(o, out, JSON_COMPACT);
        json_decref(o);
      } else {
        fl_cmp_label(out, cf, c->shown, c->nshown, 0, "  ");
        fprintf(out, "  (%zu pairs)\n", gr->n);
        for (int f = 0; f < c->nfig; f++) {
          double mx = gr->sx[f] / (double)gr->n, mb = gr->sb[f] / (double)gr->n;
          char d[96];
          int sig = !isnan(half[f]) && fabs(mean[f]) > half[f];
          if (isnan(mean[f]))
            continue; /* a figure these runs do not have (wasted node-hours of a task graph) */
          fl_cmp_fmt_diff(c->figs[f].kind, mean[f], half[f], d, sizeof d);
          char ratio[32] = "-";
          if (mb != 0)
            snprintf(ratio, sizeof ratio, "%.3g", mx / mb);
          fprintf(out, "    %-*s %-30s ratio %-6s %s\n", c->figs == fl_job_figs ? 14 : 17, c->figs[f].head, d, ratio,
                  gr->n < 2 ? "(one pair: no interval)"
                  : sig     ? "significant"
                            : "not significant");
        }
      }
      first = 0;
    }
    if (opt->format == FL_COMPARE_JSON)
      fputs(first ? "]}\n" : "\n ]}\n", out);
    if (first && c->ngroups > 1) {
      /* nothing paired: say on which keys the baseline's runs and the others' differ */
      rc = fl_cmp_unpaired(c, path, opt->baseline);
      goto done;
    }
  }

done:
  return rc;
}

/* The verdict, per setting of the other keys: which value of the key is best on makespan and waste. */
static void fl_cmp_print_verdict(const fl_cmp *c, const fl_compare_opts *opt, FILE *out)
{
  if (opt->format == FL_COMPARE_TABLE) {
    int printed = 0;
    for (int oi = 0; oi < c->ngroups; oi++) {
      int g = c->order[oi];
      const char *sig = c->sig[c->groups[g].cfg];
      int seen_before = 0;
      if (!c->groups[g].baseline)
        continue;
      for (int o2 = 0; o2 < oi; o2++)
        seen_before |= c->groups[c->order[o2]].baseline && strcmp(c->sig[c->groups[c->order[o2]].cfg], sig) == 0;
      if (seen_before)
        continue;
      for (int f = 0; f < (c->figs == fl_job_figs ? FL_NVERDICT_JOB : FL_NVERDICT); f++) {
        int best = -1, any = 0;
        double bestd = 0, besth = NAN;
        for (int h2 = 0; h2 < c->ngroups; h2++) {
          const fl_cgroup *gr = &c->groups[h2];
          double m, hh;
          if (gr->baseline || gr->n == 0 || strcmp(c->sig[gr->cfg], sig) != 0)
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
        if (c->by_strategy || c->nkb > 1) {
          /* configurations, not values of one key: each named by its compared keys, under the job's */
          const fl_rowcfg *cf = &c->rs->cfg[c->groups[best].cfg];
          char d[96], conf[512];
          int sig2 = !isnan(besth) && fabs(bestd) > besth;
          fl_cmp_fmt_diff(c->figs[f].kind, bestd, besth, d, sizeof d);
          fl_cmp_conf_label(c, cf, c->shown, c->nshown, conf, sizeof conf);
          fprintf(out, "  %s", cf->scenario);
          for (int si = 0; si < c->nshown; si++)
            if (!fl_cmp_compared(c, c->shown[si])) {
              char v[64];
              fl_rowset_show(c->shown[si], cf->vals[c->shown[si]], v, sizeof v);
              fprintf(out, " %s.%s=%s", fl_scenario_key_at(c->shown[si])->section,
                      fl_scenario_key_at(c->shown[si])->key, v);
            }
          if (bestd == 0 && besth == 0)
            fprintf(out, ": %s: %s equals the baseline %s run for run\n", c->figs[f].head, conf, c->bshown);
          else if (bestd < 0)
            fprintf(out, ": %s: %s is best, %s against %s (%s)\n", c->figs[f].head, conf, d, c->bshown,
                    sig2 ? "significant" : "not significant: the interval holds 0");
          else
            fprintf(out, ": %s: the baseline %s is best; the closest, %s, is %s (%s)\n", c->figs[f].head, c->bshown,
                    conf, d, sig2 ? "significant" : "not significant: the interval holds 0");
          continue;
        }
        {
          const fl_rowcfg *cf = &c->rs->cfg[c->groups[best].cfg];
          char bv[64], ov[64], d[96];
          int sig2 = !isnan(besth) && fabs(bestd) > besth;
          fl_rowset_show(c->kb, c->bval, bv, sizeof bv);
          fl_rowset_show(c->kb, cf->vals[c->kb], ov, sizeof ov);
          fl_cmp_fmt_diff(c->figs[f].kind, bestd, besth, d, sizeof d);
          fputs("  ", out);
          fl_cmp_label(out, cf, c->shown, c->nshown, 1, " ");
          if (bestd == 0 && besth == 0)
            fprintf(out, ": %s: %s = %s equals the baseline %s run for run\n", c->figs[f].head, c->key, ov, bv);
          else if (bestd < 0)
            fprintf(out, ": %s: %s = %s is best, %s against %s (%s)\n", c->figs[f].head, c->key, ov, d, bv,
                    sig2 ? "significant" : "not significant: the interval holds 0");
          else
            fprintf(out, ": %s: the baseline %s = %s is best; the closest, %s, is %s (%s)\n", c->figs[f].head, c->key,
                    bv, ov, d, sig2 ? "significant" : "not significant: the interval holds 0");
        }
      }
    }
  }
}

fl_err fl_compare_print(sqlite3 *h, const char *path, const fl_compare_opts *opt, FILE *out)
{
  fl_err rc = FL_OK;
  fl_cmp c;
  fl_scenario *probe = NULL;
  memset(&c, 0, sizeof c);
  c.kb = -1;
  FL_TRY(fl_cmp_baseline(&c, opt, &probe));
  FL_TRY(fl_cmp_load(&c, h, path, opt));
  FL_TRY(fl_cmp_find_baseline(&c, path, opt));
  FL_TRY(fl_cmp_pair(&c, path, opt));
  FL_TRY(fl_cmp_arrange(&c));
  fl_cmp_print_head(&c, opt, out);
  FL_TRY(fl_cmp_print_groups(&c, path, opt, out));
  fl_cmp_print_verdict(&c, opt, out);
done:
  fl_scenario_destroy(&probe);
  fl_cmp_free(&c);
  return rc;
}
