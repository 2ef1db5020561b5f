/* bsp.c — a bulk-synchronous job of app.nodes ranks doing app.work (or app.flops at its slowest node's speed):
 * the simulator's model of an MPI application under checkpoint/restart and replication (sim/run_ranks.c). */
#include "app.h"

const fl_app fl_app_bsp = {
    .name = "bsp",
    .summary = "a bulk-synchronous job: app.nodes ranks, app.work (sim/run_ranks.c)",
    .flags = FL_APP_SIM | FL_APP_SPEED_PROFILES,
    .size_key = "nodes",
    .unit = "ranks",
    .core_keys = FL_APP_RANKS_CORE_KEYS,
    .example = "[platform]\nnodes = 16\n[failures]\nnode_mtbf = 1d\n[app]\nkind = bsp\nnodes = 8\nwork = 2h\n"
               "[strategy]\nkind = checkpoint\ninterval = 20min\ncheckpoint_cost = 1min\n",
};
