/* workload.c — a machine's job mix: a Standard Workload Format trace (swf.c) or generated jobs, run under a batch
 * scheduler with every job under the scenario's strategy (sim/workload/). */
#include "app.h"
#include "workload_keys.h"

#include <stddef.h>

static const char *const fl_wl_restart_choices[] = {"front", "requeue", NULL};
static const char *const fl_wl_ckpt_io_choices[] = {"oblivious", "ordered", "least-waste", NULL};
static const char *const fl_wl_no_yes[] = {"no", "yes", NULL};
static const char *const fl_wl_period_choices[] = {"own", "cooperative", NULL};

#define FL_OFF(field) offsetof(fl_workload_opts, field)
static const fl_key fl_workload_key_table[] = {
    {"app", "trace", FL_K_STR, FL_OFF(trace), FL_K_OPTIONAL, "", NULL,
     "workload: the job trace in the Standard Workload Format of the Parallel Workloads Archive (.swf or .swf.gz), "
     "relative to the scenario's directory; each job holds its nodes for its logged run time, failure-free"},
    {"app", "jobs", FL_K_COUNT, FL_OFF(jobs), 0, "0", NULL,
     "workload: only the trace's first this many jobs (0: all); without app.trace, the number of jobs generated"},
    {"app", "job_nodes", FL_K_STR, FL_OFF(job_nodes), 0, "1-64", NULL,
     "workload without app.trace: MIN-MAX nodes of a generated job, a power of two drawn uniformly between"},
    {"app", "job_time", FL_K_DURATION, FL_OFF(job_time_s), FL_K_POS, "4h", NULL,
     "workload without app.trace: mean run time of a generated job (uniform from half to one and a half times it; "
     "requested time 1.25 times its run time)"},
    {"app", "arrival", FL_K_DURATION, FL_OFF(arrival_s), FL_K_NONNEG, "10min", NULL,
     "workload without app.trace: mean time between submits (exponential; 0: every job at t = 0)"},
    {"app", "cores_per_node", FL_K_COUNT, FL_OFF(cores_per_node), FL_K_POS, "1", NULL,
     "workload: processors of one node; a job's nodes are ceil(its processors / this)"},
    {"app", "restart", FL_K_ENUM_INT, FL_OFF(requeue), 0, "front", fl_wl_restart_choices,
     "workload: where a job a failure interrupted waits for nodes again: front = first in the queue, requeue = last"},
    {"app", "checkpoint_io", FL_K_ENUM_INT, FL_OFF(ckpt_io), 0, "oblivious", fl_wl_ckpt_io_choices,
     "workload: oblivious = every job checkpoints when its own period says, all at once on the PFS; ordered = the "
     "PFS takes one job's checkpoint at a time, in request order (the others wait, idle); least-waste = the next is "
     "the one whose waiting costs the machine most (Herault et al. 2018)"},
    {"app", "checkpoint_memory", FL_K_ENUM_INT, FL_OFF(checkpoint_memory), 0, "no", fl_wl_no_yes,
     "workload: yes = a job's checkpoint is its memory, the trace's KB per processor (SWF field 7, else 10) times "
     "its processors over its nodes, per node; a job without one writes app.checkpoint_size; no = every job's "
     "nodes write app.checkpoint_size"},
    {"app", "checkpoint_period", FL_K_ENUM_INT, FL_OFF(ckpt_period), 0, "own", fl_wl_period_choices,
     "workload: own = each job's period from strategy.interval (young, daly) with its own MTBF and cost, as if it "
     "were alone; cooperative = the periods that minimise the machine's waste with the PFS's bandwidth as a "
     "constraint (Herault et al. 2018: each job's cost raised by a multiplier times its share of the PFS), "
     "recomputed over the running jobs whenever one starts or ends"},
};
#undef FL_OFF
const fl_keyset fl_workload_keys = {"app workload", sizeof(fl_workload_opts), fl_workload_key_table,
                                    FL_KEYS_N(fl_workload_key_table), NULL};

const fl_workload_opts *fl_workload_options(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_workload_keys);
}

static long fl_workload_slots(const fl_scenario *sc, long copies)
{
  (void)copies;
  return sc->app_nodes; /* the machine's nodes (0: every host) */
}

static fl_err fl_workload_check(const fl_scenario *sc)
{
  const fl_workload_opts *o = fl_workload_options(sc);
  if (!o->trace && o->jobs == 0)
    return fl_scenario_fail(sc, "app", "trace",
                            "a workload needs its job trace (.swf or .swf.gz), or app.jobs to "
                            "generate");
  return o->trace ? fl_app_check_input(sc, "trace", o->trace, "job trace") : FL_OK;
}

static int fl_workload_inputs(const fl_scenario *sc, fl_input_ref *refs)
{
  refs[0] = (fl_input_ref){"app.trace", fl_workload_options(sc)->trace};
  return 1;
}

const fl_app fl_app_workload = {
    .name = "workload",
    .summary = "a job trace (SWF) or generated jobs under a batch scheduler, on one machine (sim/workload/)",
    .flags = FL_APP_SIM,
    .size_key = "nodes",
    .unit = "nodes",
    .example =
        "[platform]\nnodes = 32\n[failures]\nnode_mtbf = 30d\n[app]\nkind = workload\njobs = 20\njob_nodes = 1-8\n"
        "job_time = 2h\narrival = 30min\n[strategy]\nkind = none\n",
    .job_slots = fl_workload_slots,
    .check = fl_workload_check,
    .inputs = fl_workload_inputs,
    .options = &fl_workload_keys,
    .core_keys = "nodes checkpoint_size",
};
