/* sim.h — the simulator: a scenario's job on a SimGrid platform under a failure model, one replica at a time.
 *
 * SimGrid gives simulated time, the platform and host on/off state. Two actors run on the controller host:
 * a failure injector, which replays the replica's failure timeline (fl_fsrc) by turning hosts off and on, and
 * a coordinator, the strategy's state machine (compute, checkpoint, downtime, restart), which waits on a
 * semaphore with the time left in its phase so that a failure of a job node interrupts it. Per-node state is
 * in flat arrays; cost is O(failures + phases) per replica, plus O(nodes) to draw the first failures.
 * Replicas run one after another in one engine: each starts at the clock's current date. */
#ifndef FL_SIM_H
#define FL_SIM_H

#include "db.h"
#include "fl_err.h"
#include "progress.h"
#include "scenario.h"

#include <stdio.h>

typedef struct fl_sim fl_sim;

typedef struct fl_sim_result {
  const char *status; /* "completed", "failed" (no node left to run on), "timeout" (run.max_time), "wrong_result"
                       * (a silent data corruption was committed and never undone) */
  double makespan_s;
  double energy_j;          /* joules drawn by the platform's nodes over the makespan (SimGrid's host energy model) */
  long failures;            /* failures of nodes that held a rank */
  long platform_failures;   /* all node failures while the job ran */
  long interruptions;       /* failures that stopped the job (during compute, checkpoint or restart) */
  long checkpoints;         /* committed */
  double lost_work_s;       /* compute and checkpoint time thrown away by interruptions */
  double checkpoint_time_s; /* committed checkpoints */
  double restart_time_s;    /* restarts, including interrupted ones */
  double downtime_total_s;
  double wait_nodes_s; /* waiting for a repaired node when no spare was left */
  double wall_s;       /* host time to simulate the replica */
  /* task-parallel applications (gridworld); -1 / NAN otherwise */
  long iterations;             /* sweeps done */
  long converged_at;           /* sweep at which no value changed by more than the tolerance; -1: did not converge */
  long complete_iterations;    /* sweeps in which every task got a value (computed, re-executed or substituted) */
  double error_linf, error_l1; /* final values against the failure-free run's */
  long tasks_replicated, tasks_substituted, tasks_stale; /* failed task-sweeps by outcome */
  const char *policy_solver;                             /* what decided (hybrid), or NULL */
  double policy_time_s;                                  /* host time spent deciding */
  double policy_gap;                                     /* worst gap reported by the solver (NAN if unknown) */
  /* task graphs (workflow); -1 / NAN otherwise */
  long tasks_lost;       /* tasks killed or whose output was lost while still needed */
  double error_spent;    /* substitution error spent (sum of the weights used) */
  long policy_objective; /* substitutions the solver chose, summed over the failure epochs */
  long decisions;        /* failure epochs that needed a decision */
  /* silent data corruption (failures.sdc_mtbf); -1 / NAN when not modelled */
  long sdc_injected;    /* corruptions that struck a compute segment that completed */
  long sdc_detected;    /* caught by a verification (or outvoted by triplication) */
  long sdc_silent;      /* escaped verification and were committed with a checkpoint */
  long sdc_rollbacks;   /* rollbacks a detection caused */
  double verify_time_s; /* verifications run (interrupted ones included) */
  /* workloads (app.kind = workload): the machine's figures and jobs, owned by the simulator and valid until the
   * replica after next (the database writer holds one while the next runs); NULL otherwise */
  const fl_db_machine *machine;
} fl_sim_result;

/* Set up the scenario's job on its platform (loading SimGrid and the platform on first use). Checks every
 * name and value first: the caller may rely on fl_sim_create failing before anything else is done. */
fl_err fl_sim_create(const fl_scenario *sc, fl_sim **out);
/* The platform fl_sim_create(sc) would load, in words, without loading anything: SimGrid holds one platform per
 * process, so a sweep over platforms runs one process per distinct key. */
fl_err fl_sim_platform_key(const fl_scenario *sc, char *buf, size_t size);
void fl_sim_destroy(fl_sim **sim);

/* Show progress of replicas on `p` (may be NULL). */
void fl_sim_set_progress(fl_sim *sim, fl_progress *p, long replicas);

/* Simulate replica `replica` (its random streams come from (seed, replica)). Events go to `log` if enabled. */
fl_err fl_sim_run_replica(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log);
/* Worker processes (fl_study_run's --jobs): everything a replica reads is set up before they fork — the failure-free
 * run a task graph's rows carry included — and 1 when a replica's result can come back from a worker whole (not a
 * workload's: its jobs live in the worker). */
fl_err fl_sim_before_fork(fl_sim *sim);
int fl_sim_forkable(const fl_sim *sim);
/* Replicas replicas[0..n) of sim, each result handed to fn in that order (k its index; log holds its events, when
 * log is given). With jobs > 1 they run on that many worker processes forked here (pool.c; a workload's in this
 * process): the results, and so whatever fn writes, are the same as with one. fn's error, or a replica's, stops the
 * run (the workers are killed). */
/* A worker that dies (a signal, the out-of-memory killer) costs its replica only: said on stderr, no row for it, a
 * new worker takes its next ones, and the run ends FL_ERR_SIM once every other replica is handed on. The worker
 * count is lowered (and said) where `jobs` would not fit the memory available. */
typedef fl_err (*fl_sim_each_fn)(void *ctx, long k, const fl_sim_result *res, fl_evlog *log);
/* The cores this process may run on (sched_getaffinity: a Slurm allocation's, a cgroup's, taskset's): the default
 * --jobs. */
int fl_sim_cores(void);
/* The most worker processes fl_sim_run_replicas has run at once in this process (1: none). */
int fl_sim_workers_used(void);
fl_err fl_sim_run_replicas(fl_sim *sim, const long *replicas, long n, int jobs, fl_evlog *log, fl_sim_each_fn fn,
                           void *ctx);
/* A replica's events through a file or pipe: written in a child or worker in order, appended to `log` here. */
fl_err fl_sim_events_send(const fl_evlog *log, FILE *out);
fl_err fl_sim_events_receive(fl_evlog *log, FILE *in);
/* The replicas this process ran on the direct engine (replica.c), on SimGrid's, and those the direct engine handed to
 * SimGrid because two actors would have woken at once. */
void fl_sim_engine_counts(long *direct, long *simgrid, long *ties);
/* A worker process's counts added to this process's (pool.c: each result brings its replica's). */
void fl_sim_engine_add(const long add[3]);

/* What the replica rows record. */
double fl_sim_job_mtbf(const fl_sim *sim); /* node MTBF / ranks (INFINITY without failures) */
double fl_sim_node_mtbf(const fl_sim *sim);
/* The input files the scenario reads, fingerprinted when the simulator was made (part of a row's identity). */
const fl_input *fl_sim_inputs(const fl_sim *sim, int *n);
double fl_sim_interval(const fl_sim *sim); /* compute time between checkpoints; INFINITY for strategy none */
/* multilevel: every how many checkpoints `level` (an fl_level) is written; 0 when the strategy does not write it */
long fl_sim_level_every(const fl_sim *sim, int level);
/* The interval rule the rows name ("daly", "multilevel local:1 file:54"; NULL without checkpoints). */
const char *fl_sim_interval_rule(const fl_sim *sim);
/* strategy.flush = async: how long a flush drains, and *slowdown the fraction compute slows meanwhile; NAN when
 * the file level is written in the foreground. */
double fl_sim_flush(const fl_sim *sim, double *slowdown);
long fl_sim_platform_nodes(const fl_sim *sim);
/* 1 when each replica runs in a child process (workloads, task graphs): the caller must have no other thread then (a
 * child forked while another thread holds an allocator's lock may wait forever on it): simulate starts no database
 * writer thread for such a sweep. */
int fl_sim_forks(const fl_sim *sim);
/* The app's own line for simulate's header of a point (a workload: its trace, scheduler and machine), into buf: 1;
 * 0 when the app has none (the job's size, interval and MTBF describe it). */
int fl_sim_describe(const fl_sim *sim, const fl_scenario *sc, char *buf, size_t size);
/* Why `rerun` may find a row written on `written` (YYYY-MM-DD...) different, as the app knows it; NULL: nothing. */
const char *fl_sim_rerun_note(const fl_sim *sim, const char *written);
long fl_sim_ranks(const fl_sim *sim);
/* Register the simulator's own app kinds (sim/apps/, FL_SIM_APPS) with the app registry: before fl_registries_init
 * (faultline's main calls it first). */
fl_err fl_sim_register_apps(void);
/* The app kinds the simulator runs `strategy` for (its set-up against each app's capabilities with the defaults):
 * "bsp, gridworld", into buf. */
const char *fl_sim_strategy_apps(const char *strategy, char *buf, size_t size);
/* What fl_sim_ranks counts: "ranks" (bsp), "tasks" (the grid world), "hosts" (task graphs), "nodes" (workloads). */
const char *fl_sim_unit(const fl_sim *sim);
/* Checkpoint (write = 1) or restart cost of `level` (an fl_level) as the run pays it: simulated on the platform
 * with strategy.cost = platform, else the scenario's constant. NAN for a level the strategy does not use. Whether
 * the costs came from the platform: fl_sim_platform_costs. */
double fl_sim_level_cost(const fl_sim *sim, int level, int write);
int fl_sim_platform_costs(const fl_sim *sim);
/* 1 when the job runs Daly's model: exponential failures, one bsp job, one copy of every rank, one checkpoint level
 * (or none). */
int fl_sim_is_daly_model(const fl_sim *sim);
/* Daly's expected makespan for this job under exponential failures of the job MTBF (progress display). */
double fl_sim_expected_makespan(const fl_sim *sim);
/* Failures of the job expected during one step that must finish for the job to progress (a checkpoint interval
 * with its checkpoint, a restart, or the whole run without checkpoints; the larger), and which step. Far above
 * 1 means the job almost never progresses. 0 for task-parallel apps. */
double fl_sim_failures_per_step(const fl_sim *sim, const char **step);
/* Why the checkpoint and restart costs are the constant ones though app.checkpoint_size asks for the platform's
 * (strategy.cost = auto on a platform without what the strategy's levels need: "storage.pfs names no PFS host");
 * NULL when they are not. Static string. */
const char *fl_sim_cost_fallback(const fl_sim *sim);
/* A warning about the scenario the rows cannot show (a substitution rule that leaves most tasks without a
 * substitute); NULL when there is none. */
const char *fl_sim_advice(const fl_sim *sim);
/* 1 when the file level's costs were simulated with aggregated flows split per PFS server as the ranks' striping
 * sends them (up to 200 cabinets; the split changed on 2026-11-27, so rows priced so before differ) */
int fl_sim_io_by_server(const fl_sim *sim);
/* Fill the scenario-derived columns of a runs row (strings borrowed from sim and sc). */
void fl_sim_fill_row(const fl_sim *sim, const fl_scenario *sc, long replica, const fl_sim_result *res, fl_db_run *row);

/* 0 if the scenario key `section.key` has no effect on this simulation (policy keys without a policy, the
 * degree without replication): a sweep skips combinations that differ only in such keys. */
int fl_sim_uses_key(const fl_sim *sim, const char *section_dot_key);

#endif
