/* csv.c — the report's groups as CSV, one line per configuration (summary.h says the columns), numbers as numbers
 * in SI units; text fields quoted by libcsv. */
#include "compare.h"
#include "format.h"
#include "scenario.h"

#include <csv.h>
#include <math.h>
#include <string.h>

static fl_err fl_csv_groups(const fl_summary *sm, FILE *out)
{
  const int *shown = sm->shown, ns = sm->nshown, *dshown = sm->dims_shown, nd = sm->ndims;
  fputs("scenario,mode", out);
  for (int s = 0; s < ns; s++)
    fprintf(out, ",%s.%s", fl_scenario_key_at(shown[s])->section, fl_scenario_key_at(shown[s])->key);
  for (int d = 0; d < nd; d++)
    fprintf(out, ",%s", fl_summary_dim_name(dshown[d]));
  fputs(",runs", out);
  for (int s = 0; s < fl_summary_nstatus(); s++)
    fprintf(out, ",%s", fl_summary_status_name(s));
  for (int f = 0; f < fl_summary_nfig(); f++) {
    const char *n = fl_summary_fig_name(f);
    fprintf(out, ",%s_n,%s_mean,%s_ci95,%s_min,%s_max", n, n, n, n, n);
  }
  fputc('\n', out);
  for (int oi = 0; oi < sm->ngroups; oi++) {
    const fl_summary_group *g = &sm->groups[oi];
    csv_fwrite(out, g->scenario, strlen(g->scenario));
    fprintf(out, ",%s", g->mode);
    for (int s = 0; s < ns; s++) {
      const char *v = g->vals[shown[s]];
      fputc(',', out);
      if (strcmp(fl_scenario_key_at(shown[s])->vtype, "text") == 0)
        csv_fwrite(out, v, strlen(v));
      else
        fputs(v, out); /* a number, `inf` (never), or nothing (unset) */
    }
    for (int d = 0; d < nd; d++) {
      const char *v = g->dims[dshown[d]];
      fputc(',', out);
      if (strcmp(fl_summary_dim_name(dshown[d]), "lost_at") == 0)
        fputs(v, out);
      else if (v[0])
        csv_fwrite(out, v, strlen(v));
    }
    fprintf(out, ",%ld", g->runs);
    for (int s = 0; s < fl_summary_nstatus(); s++)
      fprintf(out, ",%ld", g->status[s]);
    for (int f = 0; f < fl_summary_nfig(); f++) {
      const fl_summary_stat *x = &g->fig[f];
      if (!x->n) {
        fputs(",0,,,,", out);
        continue;
      }
      fprintf(out, ",%zu,%.17g,", x->n, x->mean);
      if (!isnan(x->ci95))
        fprintf(out, "%.17g", x->ci95);
      fprintf(out, ",%.17g,%.17g", x->min, x->max);
    }
    fputc('\n', out);
  }
  return FL_OK;
}

const fl_report_format fl_format_csv = {
    .name = "csv",
    .summary = "one line per configuration: its keys, runs by status, and n, mean, ci95, min, max of every figure",
    .groups = fl_csv_groups,
    .compare = FL_COMPARE_CSV,
};
