/* latex.c — a report format added as a contributor would (tests/extend/extend.sh drops it into
 * analysis/formats/ of a copy of the project and adds one line to FL_FORMAT_LIST): the groups' makespan and
 * waste as a LaTeX (booktabs) table. */
#include "format.h"
#include "scenario.h"

#include <math.h>
#include <string.h>

/* the index of figure `name` in the summary, or -1 */
static int fl_latex_fig(const char *name)
{
  for (int f = 0; f < fl_summary_nfig(); f++)
    if (strcmp(fl_summary_fig_name(f), name) == 0)
      return f;
  return -1;
}

static fl_err fl_latex_groups(const fl_summary *sm, FILE *out)
{
  int mk = fl_latex_fig("makespan_s"), waste = fl_latex_fig("waste");
  fputs("\\begin{tabular}{llrrr}\n\\toprule\nscenario & strategy & runs & makespan (s) & waste \\\\\n\\midrule\n", out);
  for (int g = 0; g < sm->ngroups; g++) {
    const fl_summary_group *gr = &sm->groups[g];
    const char *strategy = "";
    for (int s = 0; s < sm->nshown; s++)
      if (strcmp(fl_scenario_key_at(sm->shown[s])->key, "kind") == 0 &&
          strcmp(fl_scenario_key_at(sm->shown[s])->section, "strategy") == 0)
        strategy = gr->vals[sm->shown[s]];
    fprintf(out, "%s & %s & %ld & $%.6g \\pm %.3g$ & %.4f \\\\\n", gr->scenario, strategy, gr->runs,
            gr->fig[mk].mean, isnan(gr->fig[mk].ci95) ? 0.0 : gr->fig[mk].ci95, gr->fig[waste].mean);
  }
  fputs("\\bottomrule\n\\end{tabular}\n", out);
  return FL_OK;
}

const fl_report_format fl_format_latex = {
    .name = "latex",
    .summary = "the groups' makespan and waste as a LaTeX booktabs table",
    .groups = fl_latex_groups,
    .compare = -1,
};
