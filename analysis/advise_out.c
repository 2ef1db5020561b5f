/* advise_out.c — what `faultline advise` says: the ranked table, the JSON answer, the winner as an INI fragment. */
#include "advise.h"
#include "race.h"
#include "stats.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FL_ADV_SHOWN 12 /* rows of the text table; beyond, only each strategy's best */

/* One unit per column, chosen from the column's largest value: hours, minutes or seconds; node-hours in k/M;
 * energy in kWh, MWh or GWh. */
typedef struct fl_adv_unit {
  double div;
  const char *name;
} fl_adv_unit;

static fl_adv_unit fl_adv_unit_for(int fig, double ref)
{
  ref = fabs(ref);
  if (fig == 1)
    return ref >= 7200 ? (fl_adv_unit){3600, "h"} : ref >= 120 ? (fl_adv_unit){60, "min"} : (fl_adv_unit){1, "s"};
  if (fig == 2)
    return ref >= 1e6   ? (fl_adv_unit){1e6, "M node-h"}
           : ref >= 1e3 ? (fl_adv_unit){1e3, "k node-h"}
                        : (fl_adv_unit){1, "node-h"};
  return ref >= 3.6e12  ? (fl_adv_unit){3.6e12, "GWh"}
         : ref >= 3.6e9 ? (fl_adv_unit){3.6e9, "MWh"}
                        : (fl_adv_unit){3.6e6, "kWh"};
}

static double fl_adv_col_mean(const fl_advise_cand *c, int fig)
{
  double m, h;
  fl_stats_ci(c->fig[fig], (size_t)c->n, 0.95, &m, &h);
  return m;
}

/* The candidates in the order of the table: the racing ones by their mean objective, then the dropped ones by
 * theirs; the refused ones are not ranked. Returns how many. */
static int fl_adv_order(const fl_advise *a, int *ord)
{
  int k = 0;
  for (int pass = 0; pass < 2; pass++) {
    int first = k;
    for (int i = 0; i < a->n; i++)
      if (a->c[i].state == (pass == 0 ? FL_ADV_RACING : FL_ADV_DROPPED) && a->c[i].n > 0)
        ord[k++] = i;
    for (int x = first + 1; x < k; x++) /* insertion: a few dozen at most */
      for (int y = x; y > first && fl_adv_col_mean(&a->c[ord[y]], 0) < fl_adv_col_mean(&a->c[ord[y - 1]], 0); y--) {
        int t = ord[y];
        ord[y] = ord[y - 1];
        ord[y - 1] = t;
      }
  }
  return k;
}

/* printf's width counts bytes: the field's width in bytes for `width` characters of UTF-8 text ("±") */
static int fl_adv_pad(const char *s, int width)
{
  int extra = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    extra += (*p & 0xC0) == 0x80;
  return width + extra;
}

static const char *fl_adv_verdict(const fl_advise *a, int i)
{
  if (i == a->best)
    return a->decided ? "best" : "best (tied)";
  return a->c[i].state == FL_ADV_RACING ? "tied" : "worse";
}

fl_err fl_advise_print(const fl_advise *a, const char *scenario, FILE *f)
{
  fl_err rc = FL_OK;
  int *ord = NULL, k, width = 13, hidden = 0;
  fl_adv_unit u[4];
  const fl_advise_cand *best;
  FL_ALLOC(ord, (size_t)(a->n > 0 ? a->n : 1));
  k = fl_adv_order(a, ord);
  if (k == 0 || a->best < 0) {
    fprintf(f, "faultline advise: %s: no strategy could run this job\n", scenario);
    goto refused;
  }
  best = &a->c[a->best];
  for (int fig = 1; fig < 4; fig++)
    u[fig] = fl_adv_unit_for(fig, fl_adv_col_mean(best, fig));
  u[0] = u[1 + (int)a->objective];
  fprintf(f, "%s ranked by %s (mean, 95 %% confidence interval; differences paired on common replicas)\n", scenario,
          fl_objective_name(a->objective));
  for (int r = 0; r < k && r < FL_ADV_SHOWN; r++) /* the configuration column as wide as its longest label */
    width = (int)strlen(a->c[ord[r]].label) > width ? (int)strlen(a->c[ord[r]].label) : width;
  fprintf(f, "%4s  %-*s  %-24s %-24s", "rank", width, "configuration", fl_objective_name(a->objective), "vs best");
  for (int fig = 1; fig < 4; fig++)
    if (fig != 1 + (int)a->objective)
      fprintf(f, " %-14s", fig == 1 ? "makespan" : fig == 2 ? "node-hours" : "energy");
  fprintf(f, " %8s  %s\n", "replicas", "verdict");
  for (int r = 0; r < k; r++) {
    const fl_advise_cand *c = &a->c[ord[r]];
    double m, h, dm, dh;
    char obj[64], diff[64], col[32];
    int first_of_kind = 1;
    for (int q = 0; q < r; q++)
      first_of_kind &= strcmp(a->c[ord[q]].strategy, c->strategy) != 0;
    if (r >= FL_ADV_SHOWN && !first_of_kind) { /* the rest of a long race: in --format json */
      hidden++;
      continue;
    }
    long common = c->n < best->n ? c->n : best->n;
    fl_stats_ci(c->fig[0], (size_t)c->n, 0.95, &m, &h);
    snprintf(obj, sizeof obj, "%.3g %s ± %.2g", m / u[0].div, u[0].name, h / u[0].div);
    if (ord[r] == a->best) {
      snprintf(diff, sizeof diff, "-");
    } else {
      fl_race_paired(c->fig[0], best->fig[0], common, 0.95, &dm, &dh);
      snprintf(diff, sizeof diff, "%+.3g %s ± %.2g", dm / u[0].div, u[0].name, dh / u[0].div);
    }
    fprintf(f, "%4d  %-*s  %-*s %-*s", r + 1, width, c->label, fl_adv_pad(obj, 24), obj, fl_adv_pad(diff, 24), diff);
    for (int fig = 1; fig < 4; fig++)
      if (fig != 1 + (int)a->objective) {
        snprintf(col, sizeof col, "%.3g %s", fl_adv_col_mean(c, fig) / u[fig].div, u[fig].name);
        fprintf(f, " %-14s", col);
      }
    fprintf(f, " %8ld  %s%s\n", c->n, fl_adv_verdict(a, ord[r]), c->incomplete ? " (some did not complete)" : "");
  }
  if (hidden)
    fprintf(f, "(%d more configurations, each worse than or tied with one above: --format json lists them all)\n",
            hidden);
  fprintf(f, "%s: %s", a->decided ? "best" : "best (tied with those marked tied)", best->label);
  if (best->nsets > 0) {
    fprintf(f, "  (");
    for (int i = 0; i < best->nsets; i++)
      fprintf(f, "%s--set %s", i ? " " : "", best->sets[i]);
    fprintf(f, ")");
  }
  fprintf(f, "\n%ld runs simulated, %ld read back from %s\n", a->simulated, a->reused, a->db);
refused:
  for (int i = 0; i < a->n; i++) {
    int said = 0; /* replication without checkpoints is refused for replication's reason: said once */
    for (int j = 0; j < i; j++)
      said |= a->c[j].state == FL_ADV_REFUSED && strcmp(a->c[j].why, a->c[i].why) == 0;
    if (a->c[i].state == FL_ADV_REFUSED && !said)
      fprintf(f, "not raced: %s: %s\n", a->c[i].label, a->c[i].why);
  }
  if (a->note[0])
    fprintf(f, "note: %s\n", a->note);
done:
  free(ord);
  return rc;
}

static json_t *fl_adv_config(const fl_advise_cand *c)
{
  json_t *o = json_object();
  for (int i = 0; i < c->nsets; i++) {
    const char *eq = strchr(c->sets[i], '=');
    char key[128];
    if (!eq || (size_t)(eq - c->sets[i]) >= sizeof key)
      continue;
    memcpy(key, c->sets[i], (size_t)(eq - c->sets[i]));
    key[eq - c->sets[i]] = '\0';
    json_object_set_new(o, key, json_string(eq + 1));
  }
  return o;
}

static json_t *fl_adv_real(double x)
{
  return isfinite(x) ? json_real(x) : json_null();
}

fl_err fl_advise_json(const fl_advise *a, FILE *f)
{
  fl_err rc = FL_OK;
  int *ord = NULL, k;
  json_t *root = json_object(), *ranking = json_array(), *refused = json_array();
  static const char *const cols[4] = {"objective", "makespan_s", "node_hours", "energy_j"};
  FL_CHECK(root && ranking && refused, FL_ERR_NOMEM, "out of memory");
  FL_ALLOC(ord, (size_t)(a->n > 0 ? a->n : 1));
  k = fl_adv_order(a, ord);
  json_object_set_new(root, "objective", json_string(fl_objective_name(a->objective)));
  json_object_set_new(root, "decided", json_boolean(a->decided));
  json_object_set_new(root, "simulated", json_integer(a->simulated));
  json_object_set_new(root, "reused", json_integer(a->reused));
  json_object_set_new(root, "db", json_string(a->db));
  for (int r = 0; r < k; r++) {
    const fl_advise_cand *c = &a->c[ord[r]], *best = &a->c[a->best];
    json_t *e = json_object();
    double m, h, dm = 0.0, dh = 0.0;
    fl_stats_ci(c->fig[0], (size_t)c->n, 0.95, &m, &h);
    if (ord[r] != a->best)
      fl_race_paired(c->fig[0], best->fig[0], c->n < best->n ? c->n : best->n, 0.95, &dm, &dh);
    json_object_set_new(e, "rank", json_integer(r + 1));
    json_object_set_new(e, "config", fl_adv_config(c));
    json_object_set_new(e, "label", json_string(c->label));
    json_object_set_new(e, "verdict", json_string(fl_adv_verdict(a, ord[r])));
    json_object_set_new(e, "replicas", json_integer(c->n));
    json_object_set_new(e, "mean", fl_adv_real(m));
    json_object_set_new(e, "ci", fl_adv_real(h));
    json_object_set_new(e, "diff", fl_adv_real(dm));
    json_object_set_new(e, "diff_ci", ord[r] == a->best ? json_real(0.0) : fl_adv_real(dh));
    for (int fig = 1; fig < 4; fig++)
      json_object_set_new(e, cols[fig], fl_adv_real(fl_adv_col_mean(c, fig)));
    json_object_set_new(e, "interval_s", fl_adv_real(c->tau_s));
    json_object_set_new(e, "incomplete", json_integer(c->incomplete));
    if (c->why[0])
      json_object_set_new(e, "why", json_string(c->why));
    json_array_append_new(ranking, e);
  }
  for (int i = 0; i < a->n; i++)
    if (a->c[i].state == FL_ADV_REFUSED) {
      json_t *e = json_object();
      json_object_set_new(e, "config", fl_adv_config(&a->c[i]));
      json_object_set_new(e, "why", json_string(a->c[i].why));
      json_array_append_new(refused, e);
    }
  json_object_set_new(root, "ranking", ranking);
  json_object_set_new(root, "refused", refused);
  ranking = refused = NULL;
  if (a->note[0])
    json_object_set_new(root, "note", json_string(a->note));
  FL_CHECK(json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0, FL_ERR_IO, "cannot write the JSON");
  fputc('\n', f);
done:
  json_decref(root);
  json_decref(ranking);
  json_decref(refused);
  free(ord);
  return rc;
}

fl_err fl_advise_write_ini(const fl_advise *a, const char *scenario, const char *path)
{
  fl_err rc = FL_OK;
  char tmp[4200];
  FILE *f = NULL;
  const fl_advise_cand *best;
  FL_CHECK(a->best >= 0, FL_ERR_INPUT, "--out %s: no strategy could run this job: nothing to write", path);
  best = &a->c[a->best];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FL_CHECK((f = fopen(tmp, "w")) != NULL, FL_ERR_IO, "--out %s: %s", path, strerror(errno));
  fprintf(f, "; faultline advise %s --objective %s: %s (%s after %ld replicas)\n", scenario,
          fl_objective_name(a->objective), best->label, a->decided ? "significantly best" : "best, tied", best->n);
  fprintf(f, "; these keys set on %s reproduce it\n", scenario);
  /* one section at a time, in the order the keys come */
  for (int i = 0; i < best->nsets; i++) {
    const char *dot = strchr(best->sets[i], '.'), *eq = strchr(best->sets[i], '=');
    int seen = 0;
    if (!dot || !eq || dot > eq)
      continue;
    for (int j = 0; j < i; j++)
      seen |= strncmp(best->sets[j], best->sets[i], (size_t)(dot - best->sets[i]) + 1) == 0;
    if (seen)
      continue;
    fprintf(f, "[%.*s]\n", (int)(dot - best->sets[i]), best->sets[i]);
    for (int j = i; j < best->nsets; j++) {
      const char *d2 = strchr(best->sets[j], '.'), *e2 = strchr(best->sets[j], '=');
      if (d2 && e2 && d2 - best->sets[j] == dot - best->sets[i] &&
          strncmp(best->sets[j], best->sets[i], (size_t)(dot - best->sets[i])) == 0)
        fprintf(f, "%.*s = %s\n", (int)(e2 - d2 - 1), d2 + 1, e2 + 1);
    }
  }
  {
    int closed = fclose(f);
    f = NULL;
    if (closed != 0) {
      unlink(tmp);
      FL_CHECK(0, FL_ERR_IO, "--out %s: %s", path, strerror(errno));
    }
  }
  FL_CHECK(rename(tmp, path) == 0, FL_ERR_IO, "--out %s: %s", path, strerror(errno));
done:
  if (f) {
    fclose(f);
    unlink(tmp);
  }
  return rc;
}
