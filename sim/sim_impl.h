/* sim_impl.h — what the simulator's parts share (private to sim/): the job's node mapping, the replica context
 * the two actors see, and the two coordinators. The simulator is an engine: what to do (checkpoint when, to which
 * level, roll back or carry on, substitute or re-execute) is the strategy's (policy/strategies), asked through
 * fl_strat_*; the coordinators only act. run_ranks.c drives rank-parallel jobs (bsp), run_tasks.c task-parallel
 * ones (the grid world). */
#ifndef FL_SIM_IMPL_H
#define FL_SIM_IMPL_H

#include "app.h"
#include "db.h"
#include "fm.h"
#include "gridworld.h"
#include "inputs.h"
#include "iocost.h"
#include "platform.h"
#include "sim.h"
#include "source.h"
#include "strategy.h"

#include <gsl/gsl_rng.h>
#include <simgrid/actor.h>
#include <simgrid/link.h>
#include <simgrid/semaphore.h>
#include <stdint.h>

typedef struct fl_replica fl_replica;

#define FL_NDACTORS 2 /* the direct engine's actors besides the coordinator: the injector and the crasher */

/* An application in the simulator (ROSS's model as a callback table): what job it gives the strategy and how a
 * replica runs it. One per kind the app registry (apps/app.h) marks FL_APP_SIM, defined in the file that runs it
 * (run_ranks.c, run_tasks.c, workflow/, workload/, or sim/apps/), and one line in FL_SIM_APPS below.
 * Nothing else in the simulator asks which app it runs. */
typedef struct fl_sim_app {
  const fl_app *app;   /* its registry entry: name, size key, input files */
  fl_engine_caps caps; /* what it offers the strategy (fl_strat_setup refuses what it cannot run) */
  int form;            /* the form of a generated platform it needs (FL_PLATFORM_CLUSTER, FL_IO_PER_RANK); 0: the
                        * one its checkpoint costs ask for */
  /* The generated platform's form when the app decides it from the scenario (workloads: platform.io_flows and the
   * strategy's levels, `levels`, for a machine of `nodes`); NULL: `form`. */
  int (*io_form)(const fl_scenario *sc, unsigned levels, long nodes);
  unsigned flags; /* FL_SIM_APP_* */
  /* The job's ranks (sim->ranks) and copies (sim->degree) on the loaded platform (sim->nodes); NULL: app.nodes,
   * else as many as the platform holds. */
  fl_err (*size)(struct fl_sim *sim, const fl_scenario *sc);
  /* Its failure-free work in seconds once the job fits the platform (sim->work_s); NULL: app.work. */
  void (*work)(struct fl_sim *sim, const fl_scenario *sc);
  /* Its own state, once the job's interval and costs are set; under FL_SIM_APP_JOBS, instead of them. NULL: none. */
  fl_err (*setup)(struct fl_sim *sim, const fl_scenario *sc);
  void (*destroy)(struct fl_sim *sim);
  /* A whole replica its own way (many jobs, sim/workload/); NULL: the replica's coordinator and injector. */
  fl_err (*replica)(fl_replica *rep);
  fl_err (*reset)(fl_replica *rep);    /* before each replica's actors start; NULL: nothing */
  void (*coordinate)(fl_replica *rep); /* the coordinator actor's body, until the job ends */
  /* A job node fails (at_start: down as the replica starts) or is repaired. NULL: the job's node mapping
   * (ranks or tasks on nodes, spares, slots waiting for a node). */
  void (*on_failure)(fl_replica *rep, long node, double t, int at_start);
  void (*on_repair)(fl_replica *rep, long node, double t);
  /* Its columns over those fl_sim_fill_row sets for every app. NULL: none. */
  void (*row)(const struct fl_sim *sim, const fl_sim_result *res, fl_db_run *row);
  /* Whether this run reads scenario key `key` (fl_sim_uses_key): 1 or 0, or -1 when it is not the app's to say.
   * NULL: -1 for every key. */
  int (*uses_key)(const struct fl_sim *sim, const char *key);
  /* simulate's line for a point, in place of the job's (its size, interval, MTBF): fl_sim_describe. NULL: the
   * job's. */
  void (*describe)(const struct fl_sim *sim, const fl_scenario *sc, char *buf, size_t size);
  /* Why `rerun` may find a row written on date `written` (YYYY-MM-DD...) by an earlier faultline different, or
   * NULL. NULL: nothing of its own. */
  const char *(*rerun_note)(const struct fl_sim *sim, const char *written);
} fl_sim_app;

enum {
  FL_SIM_APP_PLATFORM_COSTS = 1u << 0, /* its checkpoint costs may be simulated on the platform (strategy.cost) */
  FL_SIM_APP_JOBS = 1u << 1,           /* many jobs, each its own interval and costs: no job-wide ones; its jobs live
                                        * in the replica's child process, so a point's replicas run one at a time
                                        * here (fl_sim_forkable) */
  FL_SIM_APP_BY_WORK = 1u << 2,        /* its coordinator places failures by the job's work (trace_clock = work) */
  FL_SIM_APP_DEPENDENTS = 1u << 3,     /* its tasks have dependents: full-mip's per-dependent terms */
  FL_SIM_APP_SG_DATES = 1u << 4,       /* its dates are SimGrid's clock's: the makespan rounded to 1e-9 s */
  FL_SIM_APP_EXECS = 1u << 5,          /* it accounts its executions' energy itself (not the job's phases) */
  FL_SIM_APP_FREE_RUN = 1u << 6,       /* its failure-free makespan is simulated once, for the rows (failure_free_s) */
  FL_SIM_APP_DIRECT = 1u << 7,         /* its coordinator only waits (fl_rep_*): the direct engine may run it */
};

/* The applications the simulator runs, one line each: the built-in kinds' ops are in run_*.c; a kind of the
 * simulator's own is one file in sim/apps/ defining both its fl_app (registered with the app registry by
 * fl_sim_register_apps) and its fl_sim_app fl_sim_NAME. */
#define FL_SIM_APPS(X)                                                                                                 \
  X(bsp)                                                                                                               \
  X(gridworld)                                                                                                         \
  X(workflow)                                                                                                          \
  X(workload)                                                                                                          \
  /* one line per entry, above this one */
#define X(name) extern const fl_sim_app fl_sim_##name;
FL_SIM_APPS(X)
#undef X

/* The rank-parallel engine's parts an app kind may reuse (run_ranks.c): what it offers the strategy and how it runs
 * (bsp's caps and flags), the coordinator of a bulk-synchronous job under the strategy, and app.flops at the slowest
 * node's speed as the job's work (app.work when app.flops is 0). */
#define FL_SIM_RANKS_CAPS                                                                                              \
  {                                                                                                                    \
    .name = "sim", .shape = FL_SHAPE_RANKS, .levels = FL_SIM_ALL_LEVELS, .max_degree = 3, .task_recovery = 1,          \
    .intervals = FL_IRULE_HAZARD | FL_IRULE_LEVELS | FL_IRULE_EACH                                                     \
  }
#define FL_SIM_RANKS_FLAGS (FL_SIM_APP_PLATFORM_COSTS | FL_SIM_APP_BY_WORK | FL_SIM_APP_DIRECT)
void fl_sim_run_ranks(fl_replica *rep);
void fl_sim_ranks_work(struct fl_sim *sim, const fl_scenario *sc);

/* Every checkpoint level the simulator writes (an app's caps.levels when it runs them all). */
#define FL_SIM_ALL_LEVELS                                                                                              \
  (FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE) | FL_LEVEL_BIT(FL_LEVEL_LOCAL) |                         \
   FL_LEVEL_BIT(FL_LEVEL_XOR))
/* The row hook of task-parallel apps: work_s is their failure-free time (sim->work_s), and they have no job-wide
 * checkpoint, restart or downtime cost. */
void fl_sim_task_row(const struct fl_sim *sim, const fl_sim_result *res, fl_db_run *row);

/* A replica from its start to its figures (replica.c): on the direct engine, on SimGrid's, or in a child process,
 * as the app and FAULTLINE_SIM_ENGINE allow (fl_sim_run_replica calls it after the app's failure-free run). */
fl_err fl_replica_run(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log);

/* Run fn in a child process: SimGrid's clock stays where it is here, so that what the child simulates starts from
 * the same clock whatever ran before (a process's replicas and probes share SimGrid's clock, and durations taken
 * from it lose digits as it grows). What fn writes to `out` comes back in *result (read it, then fclose); an error
 * in the child comes back as its code and message. */
typedef fl_err (*fl_sim_child_fn)(void *ctx, FILE *out);
fl_err fl_sim_in_child(fl_sim_child_fn fn, void *ctx, FILE **result);
/* (fl_sim_events_send / _receive carry a replica's events through such a file: sim.h.) */

/* Phases of the coordinator; the injector interrupts only the interruptible ones. */
typedef enum fl_phase {
  FL_PHASE_IDLE = 0,
  FL_PHASE_COMPUTE,
  FL_PHASE_CHECKPOINT,
  FL_PHASE_RESTART,
  FL_PHASE_DOWNTIME,  /* not interruptible */
  FL_PHASE_WAIT_NODES /* woken by a repair that completes the allocation */
} fl_phase;

/* The engine replicas run on (FAULTLINE_SIM_ENGINE): the direct engine where it can (replica.c), SimGrid's always, or
 * both, compared. */
typedef enum fl_sim_engine { FL_SIM_ENGINE_DIRECT, FL_SIM_ENGINE_SIMGRID, FL_SIM_ENGINE_CHECK } fl_sim_engine;

struct fl_sim {
  int in_child; /* this process is the child a replica runs in (FL_SIM_APP_SG_DATES) */
  fl_sim_engine engine;
  int direct;            /* its replicas run on the direct engine (the app allows it, SimGrid plays no profile) */
  double failure_free_s; /* FL_SIM_APP_FREE_RUN: the makespan without failures (NAN: not simulated) */
  int free_run_done;     /* ... simulated already (before the first replica) */
  fl_engine_caps caps;
  fl_strategy_run strat; /* the strategy's decisions and state (policy/strategies) */
  fl_platform *pf;
  fl_fm *fm;
  long *trace_node; /* trace model: node of each record */
  /* failures.trace_clock = work: the trace's failures by the job's work done when they strike (sorted), placed by
   * the bsp coordinator, not the injector */
  double *kill_work;
  long *kill_node;
  size_t nkill;
  fl_fsrc_profile *profiles; /* the platform's availability profiles, by node (lists borrowed from the platform) */
  size_t nprofiles;
  struct fl_node_speed {
    long node;
    const struct fl_host_speed *hs; /* borrowed from the platform */
  } * speeds;                       /* bsp: the nodes whose speed_file slows the job while they hold a rank */
  size_t nspeeds;
  long nodes;          /* nodes the job holds: ranks x copies + app.spares (every node of the platform by default) */
  long platform_nodes; /* the platform's */
  long ranks;
  double node_mtbf_s; /* as the model gives it, or estimated from the trace */
  double mnfti;       /* failures of job nodes to interruption: 1 without replication */
  double tau_s;       /* INFINITY without checkpoints */
  double work_s, delta_s, restart_s, downtime_s, repair_s, max_time_s; /* delta_s: the primary level's cost */
  double process_mtbf_s;              /* failures.process_mtbf (INFINITY: no process crashes) */
  double group_mtbf_s;                /* failures.group_mtbf (INFINITY: no group failures) */
  int sdc, verify;                    /* silent errors modelled; a verification before each checkpoint */
  int hazard;                         /* strategy.interval = hazard: each interval from the nodes' ages */
  int adapts;                         /* the rule decides before every interval (hazard among them) */
  double burst_ratio, burst_time_s;   /* failures.burst_ratio, burst_time */
  double sdc_rate;                    /* silent errors per second over the job's nodes */
  double verify_s, verify_recall;     /* V; probability a verification catches a corrupted state */
  long group_size;                    /* nodes per group (platform.cabinet) */
  double restart_level_s[FL_NLEVELS]; /* a restart from each level ([FL_LEVEL_SCRATCH]: from nothing) */
  int platform_costs;                 /* checkpoint and restart costs simulated on the platform (iocost.h) */
  int io_by_server;                   /* ... with the aggregated file level split per server (fl_iocost.by_server) */
  char advice[512];                   /* what the user should know before the rows (fl_sim_advice), or "" */
  const char *cost_fallback;          /* why costs asked of the platform (app.checkpoint_size, strategy.cost =
                                       * auto) are the constant ones after all; NULL when they are not */
  /* strategy.flush = async: a file-level checkpoint writes the level `flush_stage` and drains to the file level in
   * flush_s, while compute runs flush_slowdown slower; the file level holds it once drained */
  /* link profiles (bandwidth_file, latency_file) with platform costs: the write and read costs of every
   * combination of the links' values ([regime * FL_NLEVELS + level]), probed before the replicas; the one that
   * holds when a checkpoint or restart starts is used (fl_sim_regime) */
  size_t nregimes;
  double *regime_write, *regime_read;
  int flush_async;
  fl_level flush_stage;
  double flush_s, flush_slowdown;
  long max_events; /* failures and repairs one replica may draw (run.max_events) */
  int start;
  uint64_t seed;
  const fl_sim_app *app;  /* the application: its ops (run_*.c) */
  const char *model_name; /* static */
  /* The job's placement: a slot is one copy of one rank (slot = rank * degree + copy; degree 1 without
   * replication) or one task. Per-slot and per-node arrays, reused by every replica. */
  long degree, slots;
  int32_t *slot_node; /* slot -> node, -1 while it has none */
  int32_t *node_slot; /* node -> slot, -1 if none */
  /* Which nodes are off in the replica running (replica.c: fl_rep_host_set), and those turned off in it (to turn
   * back on at its end, without a pass over every node). SimGrid's hosts follow only on SimGrid's engine: on the
   * direct engine no activity runs on them, and a worker process turning a million hosts off would copy the pages
   * they share with its parent. */
  unsigned char *host_off;
  long *offed;
  size_t noffed, offed_cap;
  unsigned char *alive;       /* rank -> live copies */
  unsigned char *task_failed; /* task-parallel apps: slot lost its host during the current sweep (else NULL) */
  long *fail_epoch;           /* buddy level: rank -> commit epoch of its last failure (-1: none) */
  long *xor_fail_epoch;       /* XOR level: set -> XOR epoch of its last lost node (-1: none) */
  long xor_group;             /* XOR level: ranks per set, which spans partner_step-apart ranks */
  int32_t *spare;             /* live nodes without a slot */
  int32_t *spare_pos;         /* node -> index in spare[], -1 if not a spare */
  long partner_step;          /* buddy level: rank r's copy is on rank r + partner_step's node */
  int32_t *missing;           /* slots without a node */
  int32_t *missing_pos;       /* slot -> index in missing[], -1 if it has a node */
  long nspare, nmissing;
  void *app_state;     /* the app's own (sim->app: its setup makes it, its destroy frees it; no one else reads it) */
  fl_strategy_row row; /* what the strategy adds to every row */
  char policy[32];     /* the row's policy, copied: the scenario may go before the simulator */
  fl_progress *progress;
  long progress_replicas;
  double progress_expected_s; /* the expected makespan progress shows (fl_sim_expected_makespan) */
  fl_input *inputs;           /* the scenario's input files, fingerprinted once (stored with every row) */
  int ninputs;
  /* energy (SimGrid's host energy model, integrated here: compute is a timed phase, not an execution): the
   * nodes' power (per node, or NULL when all draw power_u), and over the replica's nodes the sum of idle watts,
   * of busy - idle over the nodes that hold a slot, of off - idle over the nodes that are off */
  fl_power *power, power_u;
  double e_base, e_dbusy, e_doff;
};

static inline const fl_power *fl_sim_power(const fl_sim *sim, long node)
{
  return sim->power ? &sim->power[node] : &sim->power_u;
}

struct fl_replica {
  fl_sim *sim;
  long replica;
  fl_fsrc *src;
  fl_evlog *log;
  fl_sim_result *res;
  sg_sem_t sem;  /* released by the injector to interrupt or wake the coordinator */
  double t0;     /* simulated date the replica started */
  double now;    /* replica-relative time, kept exactly: sums of phase durations and failure dates, so a
                  * replica gives the same figures wherever it falls on SimGrid's clock */
  double wake_t; /* replica-relative date of the event that released the semaphore */
  fl_phase phase;
  int interrupt_pending;    /* set with the release; consumed by the coordinator */
  long commit_epoch;        /* buddy copies refreshed so far (copies fresher than any failure of this epoch) */
  long version[FL_NLEVELS]; /* the newest checkpoint written to each level (its number, from 1; -1: none) */
  int local_valid;          /* no job node lost since the newest local-level checkpoint */
  double flush_end;         /* async flush: when the one under way is drained (INFINITY: none) */
  long flush_version;       /* the checkpoint it carries, and the work that checkpoint holds */
  double flush_work;
  int buddy_lost;     /* buddy level: some rank and its copy's holder failed in the same epoch */
  long xor_epoch;     /* XOR-level checkpoints written so far */
  int xor_lost;       /* XOR level: some set lost two nodes in the same epoch */
  long nevents;       /* failures and repairs drawn so far */
  int over_budget;    /* run.max_events reached: the replica ends as 'timeout' */
  fl_err rc;          /* an error inside an actor, reported after the run */
  gsl_rng *crash_rng; /* process crashes (failures.process_mtbf), else NULL */
  gsl_rng *sdc_rng;   /* silent data corruption (failures.sdc_mtbf), else NULL */
  double crash_t;     /* the crasher's next crash (replica time) and the rank it strikes */
  long crash_rank;
  /* The direct engine (replica.c): the coordinator runs as a plain call and the injector and the crasher
   * as steps between its waits, on SimGrid's clock as SimGrid's engine would keep it. */
  int direct;
  int tie;      /* two actors would wake at once: the replica is run again on SimGrid */
  double clock; /* SimGrid's clock */
  struct fl_dactor {
    double at;         /* the date it sleeps to (NAN: ended, or ready) */
    int ready;         /* it woke the coordinator and runs on after it, at this date (SimGrid's run order) */
  } dact[FL_NDACTORS]; /* the injector, the crasher */
  long releases;       /* wakes that released the coordinator's token */
  double *renew_t;     /* strategy.interval = hazard: node -> replica time of its last repair (NAN: none yet) */
  int32_t *renewed;    /* the nodes repaired at least once in this replica */
  long nrenewed;
  double energy_j, e_t; /* joules drawn by the nodes up to replica time e_t */
  int verifying;        /* a verification runs (the nodes compute though the phase is a checkpoint's) */
  size_t kill_next;     /* failures.trace_clock = work: the next failure to strike */
};

/* Energy: add what the nodes drew from the last account to replica time t, at the power they draw now (the
 * busy nodes' AllCores while the job computes). Called before anything changes what they draw. */
void fl_rep_energy_to(fl_replica *rep, double t);

/* Replica-relative simulated time. */
double fl_rep_now(const fl_replica *rep);
/* Wait `dur` seconds in `phase`. Returns 1 if a failure of a job node interrupted the wait. */
int fl_rep_wait(fl_replica *rep, double dur, fl_phase phase);
/* Sleep `dur` seconds uninterruptibly (downtime). */
void fl_rep_sleep(fl_replica *rep, double dur, fl_phase phase);
/* Block until every rank has a node. Returns 0 when the job can go on, 1 when it never can (no spare, no
 * repair to come) or run.max_time passes. */
int fl_rep_wait_nodes(fl_replica *rep);
/* Node `node` fails now, the job in `phase` (failures.trace_clock = work: the coordinator places them). Returns 1
 * if that interrupts the job (as fl_rep_wait would have), 0 if the strategy masks it (a copy lives on). */
int fl_rep_fail_node(fl_replica *rep, long node, fl_phase phase);
/* Is node `node` on in the replica running (neither failed nor killed and not yet repaired)? */
int fl_sim_node_on(const fl_sim *sim, long node);
/* 1 once run.max_time or run.max_events is reached. */
int fl_rep_timed_out(const fl_replica *rep);
/* Show progress. */
void fl_rep_progress(fl_replica *rep, double done_work_s);
/* Take a live spare node (-1 if none); put slot on node. */
long fl_sim_take_spare(fl_sim *sim);
void fl_sim_place(fl_sim *sim, long slot, long node);
/* The list of slots waiting for a node: O(1) push, pop and removal. */
void fl_sim_missing_push(fl_sim *sim, long slot);
long fl_sim_missing_pop(fl_sim *sim);
void fl_sim_missing_remove(fl_sim *sim, long slot);

/* Link profiles: the combination of link values that holds at `t` (from the replica's start). */
size_t fl_sim_regime(const fl_sim *sim, double t);

#endif
