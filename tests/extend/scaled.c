/* scaled.c — an app kind added as a contributor would (tests/extend/extend.sh drops it into sim/apps/ of a copy of
 * the project and adds one line to FL_SIM_APPS): a bulk-synchronous job like bsp whose work is app.work (or
 * app.flops at its slowest node's speed) times app.work_scale, a key of its own. Both halves of the kind are here:
 * its registry entry (fl_app: name, flags, its keys) and its simulator ops (fl_sim_app: bsp's capabilities and
 * coordinator, its own work). */
#include "sim_impl.h"

#include <stddef.h>

typedef struct fl_scaled_opts {
  double scale;
} fl_scaled_opts;

static fl_err fl_scaled_check(const fl_scenario *sc, const void *opts)
{
  const fl_scaled_opts *o = opts;
  if (!(o->scale <= 1000.0))
    return fl_scenario_fail(sc, "app", "work_scale", "at most 1000");
  return FL_OK;
}

static const fl_key fl_scaled_key_table[] = {
    {"app", "work_scale", FL_K_REAL, offsetof(fl_scaled_opts, scale), FL_K_POS, "1", NULL,
     "scaled: the job's work is app.work (or app.flops) times this"},
};
static const fl_keyset fl_scaled_keys = {"app scaled", sizeof(fl_scaled_opts), fl_scaled_key_table,
                                         FL_KEYS_N(fl_scaled_key_table), fl_scaled_check};

static const fl_app fl_app_scaled = {
    .name = "scaled",
    .summary = "a bulk-synchronous job whose work is app.work x app.work_scale (tests/extend/scaled.c)",
    .flags = FL_APP_SIM,
    .size_key = "nodes",
    .unit = "ranks",
    .example = "[platform]\nnodes = 16\n[failures]\nnode_mtbf = 1d\n[app]\nkind = scaled\nnodes = 8\nwork = 1h\n"
               "work_scale = 2\n[strategy]\nkind = checkpoint\ninterval = 20min\ncheckpoint_cost = 1min\n",
    .options = &fl_scaled_keys,
    .core_keys = FL_APP_RANKS_CORE_KEYS, /* bsp's: app.nodes, app.work, app.flops, ... */
};

static void fl_scaled_work(fl_sim *sim, const fl_scenario *sc)
{
  fl_sim_ranks_work(sim, sc); /* app.flops at the slowest node's speed, when given */
  sim->work_s *= ((const fl_scaled_opts *)fl_scenario_options(sc, &fl_scaled_keys))->scale;
}

const fl_sim_app fl_sim_scaled = {
    .app = &fl_app_scaled,
    .caps = FL_SIM_RANKS_CAPS, /* bsp's: every strategy, level and interval rule of the rank-parallel engine */
    .flags = FL_SIM_RANKS_FLAGS,
    .work = fl_scaled_work,
    .coordinate = fl_sim_run_ranks,
};
