/* workload.c — a machine's job mix: a Standard Workload Format trace (swf.c) or generated jobs, run under a batch
 * scheduler with every job under the scenario's strategy (sim/run_workload.c). */
#include "app.h"

static long fl_workload_slots(const fl_scenario *sc, long copies)
{
  (void)copies;
  return sc->app_nodes; /* the machine's nodes (0: every host) */
}

static fl_err fl_workload_check(const fl_scenario *sc)
{
  if (!sc->wl_trace && sc->wl_jobs == 0)
    return fl_scenario_fail(sc, "app", "trace", "a workload needs its job trace (.swf or .swf.gz), or app.jobs to "
                                                "generate");
  return sc->wl_trace ? fl_app_check_input(sc, "trace", sc->wl_trace, "job trace") : FL_OK;
}

static int fl_workload_inputs(const fl_scenario *sc, fl_input_ref *refs)
{
  refs[0] = (fl_input_ref){"app.trace", sc->wl_trace};
  return 1;
}

const fl_app fl_app_workload = {
    .name = "workload",
    .summary = "a job trace (SWF) or generated jobs under a batch scheduler, on one machine (sim/run_workload.c)",
    .flags = FL_APP_SIM,
    .size_key = "nodes",
    .unit = "nodes",
    .example = "[platform]\nnodes = 32\n[failures]\nnode_mtbf = 30d\n[app]\nkind = workload\njobs = 20\njob_nodes = 1-8\n"
               "job_time = 2h\narrival = 30min\n[strategy]\nkind = none\n",
    .job_slots = fl_workload_slots,
    .check = fl_workload_check,
    .inputs = fl_workload_inputs,
};
