/* json.c — the report's groups as JSON (summary.h says the shape), written with Jansson. */
#include "compare.h"
#include "format.h"
#include "scenario.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string, or null for bytes that are not UTF-8 (a foreign file's). */
static json_t *fl_json_text(const char *v)
{
  json_t *j = json_string(v);
  return j ? j : json_null();
}

/* A key's value by its type: text, an integer, a number (null for unset and never) */
static json_t *fl_json_key(int k, const char *v)
{
  const char *t = fl_scenario_key_at(k)->vtype;
  if (!v[0])
    return json_null();
  if (strcmp(t, "text") == 0)
    return fl_json_text(v);
  if (strcmp(t, "integer") == 0)
    return json_integer(strtoll(v, NULL, 10));
  return isfinite(strtod(v, NULL)) ? json_real(strtod(v, NULL)) : json_null();
}

static fl_err fl_json_groups(const fl_summary *sm, FILE *out)
{
  fl_err rc = FL_OK;
  const int *shown = sm->shown, ns = sm->nshown, *dshown = sm->dims_shown, nd = sm->ndims;
  fputs("{\"figures\": [", out);
  for (int f = 0; f < fl_summary_nfig(); f++)
    fprintf(out, "%s{\"name\": \"%s\", \"unit\": \"%s\"}", f ? ", " : "", fl_summary_fig_name(f),
            fl_summary_fig_unit(f));
  fputs("],\n \"groups\": [", out);
  for (int oi = 0; oi < sm->ngroups; oi++) {
    const fl_summary_group *g = &sm->groups[oi];
    json_t *o = json_object(), *keys = json_object(), *st = json_object(), *fg = json_object();
    if (!o || !keys || !st || !fg) {
      json_decref(o);
      json_decref(keys);
      json_decref(st);
      json_decref(fg);
      FL_CHECK(0, FL_ERR_NOMEM, "out of memory");
    }
    json_object_set_new(o, "scenario", fl_json_text(g->scenario));
    json_object_set_new(o, "mode", json_string(g->mode));
    for (int s = 0; s < ns; s++) {
      char name[128];
      snprintf(name, sizeof name, "%s.%s", fl_scenario_key_at(shown[s])->section, fl_scenario_key_at(shown[s])->key);
      json_object_set_new(keys, name, fl_json_key(shown[s], g->vals[shown[s]]));
    }
    json_object_set_new(o, "keys", keys);
    for (int d = 0; d < nd; d++) {
      const char *v = g->dims[dshown[d]], *dim = fl_summary_dim_name(dshown[d]);
      json_object_set_new(o, dim,
                          !v[0]                           ? json_null()
                          : strcmp(dim, "lost_at") == 0   ? json_integer(strtoll(v, NULL, 10))
                                                          : json_string(v));
    }
    json_object_set_new(o, "runs", json_integer(g->runs));
    for (int s = 0; s < fl_summary_nstatus(); s++)
      json_object_set_new(st, fl_summary_status_name(s), json_integer(g->status[s]));
    json_object_set_new(o, "status", st);
    for (int f = 0; f < fl_summary_nfig(); f++) {
      const fl_summary_stat *x = &g->fig[f];
      if (!x->n)
        continue;
      json_object_set_new(fg, fl_summary_fig_name(f),
                          json_pack("{s:I, s:f, s:o, s:f, s:f}", "n", (json_int_t)x->n, "mean", x->mean, "ci95",
                                    isnan(x->ci95) ? json_null() : json_real(x->ci95), "min", x->min, "max", x->max));
    }
    json_object_set_new(o, "figures", fg);
    fputs(oi ? ",\n  " : "\n  ", out);
    json_dumpf(o, out, JSON_COMPACT);
    json_decref(o);
  }
  fputs(sm->ngroups ? "\n ]}\n" : "]}\n", out);
done:
  return rc;
}

const fl_report_format fl_format_json = {
    .name = "json",
    .summary = "{figures: [{name, unit}], groups: [{scenario, mode, keys, runs, status, figures: {n, mean, ci95, min, "
               "max}}]}",
    .groups = fl_json_groups,
    .compare = FL_COMPARE_JSON,
};
