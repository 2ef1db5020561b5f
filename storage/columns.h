/* columns.h — the `runs` table, one line per column: the single list that the schema, the insert, the upgrade of
 * older files, `faultline columns`, docs/results.md's column table and the typed exports all read.
 *
 * Adding a results column is one line here, and the code that fills it (an app's row hook, an engine's row): the
 * field of fl_db_run (db.h) and its "not applicable" default (fl_db_run_clear), the CREATE TABLE, the INSERT, the
 * ALTER TABLE that gives older files the column, whether `report` summarises it, and the documentation follow.
 * Columns are never renamed, retyped or reordered (files written by every earlier faultline must keep opening);
 * a new one goes last and must be nullable.
 *
 * X(name, sql declaration, how the row fills it, unit, engines, summarised, doc)
 *   how:     AUTO      not inserted (id, created_at: SQLite fills them)
 *            TEXT      the fl_db_run field of the same name, a string; NULL is SQL NULL
 *            TEXT0     the same, NULL stored as ''
 *            REAL      a double field; NAN and infinities are SQL NULL
 *            COUNT     a long field; negative is SQL NULL
 *            INT       a long field, always stored
 *            SEED      the uint64_t seed, stored as the same 64 bits (signed)
 *            MREAL, MCOUNT  a double / long field of the row's machine figures (fl_db_machine: workload runs);
 *                      SQL NULL in rows without them
 *            VERSION, EMPTY, INPUTS, KEY, HASH, NODE_HOURS: computed by the insert (faultline's version, '', the
 *            input files' list, the row key, the scenario text's hash, job_nodes (else platform_nodes) ×
 *            makespan_s / 3600)
 *   unit:    "s", "B", "node-h", "J", "" (a count, a name or a ratio): the keys' unit names (one name per unit)
 *   engines: which rows have a value: SIM (faultline simulate), REAL (faultline run / tmr), BOTH
 *   summarised: SUM: `report`, `compare` and `advise` summarise it (mean and confidence interval per group, in table
 *            order after the headline figures: analysis/summary.c); NOSUM: a setting or a row's detail
 *   doc:     one line of docs/results.md (Markdown; no '|') */
#ifndef FL_COLUMNS_H
#define FL_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

/* clang-format off */
#define FL_RUN_COLUMNS(X)                                                                                            \
  X(id, "INTEGER PRIMARY KEY", AUTO, "", BOTH, NOSUM, "primary key")                                                        \
  X(created_at, "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))", AUTO, "", BOTH, NOSUM,                      \
    "UTC, ISO 8601")                                                                                                 \
  X(faultline_version, "TEXT NOT NULL", VERSION, "", BOTH, NOSUM, "version that wrote the row")                             \
  X(scenario, "TEXT NOT NULL", TEXT, "", BOTH, NOSUM, "`run.name`")                                                         \
  X(scenario_path, "TEXT", TEXT, "", BOTH, NOSUM,                                                                           \
    "absolute path of the scenario file (relative paths inside it resolve against it)")                              \
  X(scenario_text, "TEXT NOT NULL", EMPTY, "", BOTH, NOSUM,                                                                 \
    "empty since schema 2: the scenario file, verbatim, is in `scenario_texts` under `scenario_xxh64` (rows "         \
    "written by schema 1, or merged from such files, carry it here and have no `scenario_xxh64`)")                   \
  X(overrides, "TEXT NOT NULL", TEXT0, "", BOTH, NOSUM,                                                                     \
    "the `--set` assignments applied after the file, one `section.key=value` per line")                              \
  X(mode, "TEXT NOT NULL CHECK (mode IN ('sim', 'real'))", TEXT, "", BOTH, NOSUM,                                           \
    "`sim` (simulated) or `real` (run on MPI ranks / GPUs)")                                                         \
  X(app, "TEXT NOT NULL", TEXT, "", BOTH, NOSUM, "`app.kind` (`bsp`, `gridworld`, `workflow`; real runs also `cg`; `faultline tmr` its kernel)")                \
  X(strategy, "TEXT NOT NULL", TEXT, "", BOTH, NOSUM,                                                                       \
    "the strategy that ran: `strategy.kind` (`faultline keys` lists them). An engine that cannot run a strategy "     \
    "refuses it: no row")                                                                                            \
  X(failure_model, "TEXT NOT NULL", TEXT, "", BOTH, NOSUM,                                                                  \
    "`failures.model`; real runs: `kill` (explicit `--kill`) or `none`")                                             \
  X(seed, "INTEGER NOT NULL", SEED, "", BOTH, NOSUM,                                                                        \
    "`run.seed`, any unsigned 64-bit integer; one from 2^63 on is stored as the same 64 bits read as a signed "       \
    "integer (seed − 2^64), exactly: read it back with a cast to unsigned (`faultline rerun` prints the seed from "   \
    "the row's scenario, unsigned)")                                                                                 \
  X(replica, "INTEGER NOT NULL", INT, "", BOTH, NOSUM, "replica index *r*; its random streams derive from (seed, *r*)")     \
  X(nodes, "INTEGER NOT NULL", INT, "", BOTH, NOSUM, "ranks of the job (tasks of a grid world)")                            \
  X(platform_nodes, "INTEGER NOT NULL", INT, "", BOTH, NOSUM,                                                               \
    "nodes of the platform (ranks + spares; the controller host is not counted)")                                    \
  X(node_mtbf_s, "REAL", REAL, "s", BOTH, NOSUM, "MTBF of one node (estimated from the trace for `trace`)")                 \
  X(repair_s, "REAL", REAL, "s", SIM, NOSUM, "`failures.repair`; NULL = never")                                             \
  X(interval_rule, "TEXT", TEXT, "", BOTH, NOSUM, "`young`, `daly`, `fixed`, `multilevel`; NULL without checkpoints")       \
  X(interval_s, "REAL", REAL, "s", BOTH, SUM,                                                                             \
    "compute time between checkpoints actually used; NULL for `none`; `strategy.interval = hazard`: Young's "         \
    "interval for the job's MTBF, the rule's reference (each interval of the run comes from the nodes' ages; the "    \
    "report shows `hazard`)")                                                                                        \
  X(checkpoint_cost_s, "REAL", REAL, "s", BOTH, SUM,                                                                      \
    "δ, the cost of one checkpoint (priced on the platform or `strategy.checkpoint_cost`); real runs: the mean "     \
    "measured one")                                                                                                  \
  X(restart_cost_s, "REAL", REAL, "s", SIM, SUM, "R, the cost of one restart")                                            \
  X(downtime_s, "REAL", REAL, "s", SIM, NOSUM, "D, the downtime after a failure")                                           \
  X(work_s, "REAL NOT NULL", REAL, "s", BOTH, SUM,                                                                        \
    "failure-free compute time (grid world: the failure-free run's sweeps × `task_time`; task graphs: the "          \
    "failure-free HEFT schedule length)")                                                                            \
  X(makespan_s, "REAL", REAL, "s", BOTH, SUM,                                                                             \
    "wall time from start to completion (or to the end, for `failed`/`timeout`)")                                    \
  X(failures, "INTEGER", COUNT, "", BOTH, SUM,                                                                            \
    "failures of nodes holding a rank (or a copy of one, or a task) of the job")                                     \
  X(platform_failures, "INTEGER", COUNT, "", SIM, NOSUM, "all node failures while the job ran (spares included)")           \
  X(interruptions, "INTEGER", COUNT, "", BOTH, SUM, "failures that stopped the job (during compute, checkpoint or restart)") \
  X(checkpoints, "INTEGER", COUNT, "", BOTH, SUM, "checkpoints committed")                                                \
  X(lost_work_s, "REAL", REAL, "s", BOTH, SUM, "compute and checkpoint time thrown away by interruptions")                \
  X(checkpoint_time_s, "REAL", REAL, "s", BOTH, SUM, "time spent writing committed checkpoints")                          \
  X(restart_time_s, "REAL", REAL, "s", BOTH, SUM, "time spent restarting, interrupted restarts included")                 \
  X(downtime_total_s, "REAL", REAL, "s", SIM, SUM, "time spent in downtime")                                              \
  X(wait_nodes_s, "REAL", REAL, "s", SIM, SUM, "time spent waiting for a repaired node when no spare was left")           \
  X(status, "TEXT NOT NULL", TEXT, "", BOTH, NOSUM,                                                                         \
    "`completed`, `failed` (a rank needed a node and none would come back; real: no spare left), `timeout` "         \
    "(`run.max_time` or `run.max_events`), `wrong_result` (sim: a silent data corruption was committed and never "   \
    "undone, `failures.sdc_mtbf`); real mode also `data_lost` (a rank's state gone with every copy of it; exit 3), " \
    "`error` (a checkpoint that could not be written, a process that never started; exit 1), `no_progress` (no "     \
    "rank iterated for `mpi.watchdog`: `faultline run` killed every process of the job, exit 1), `maxit` (real CG: " \
    "the solve stopped at its iteration limit unconverged), `stopped` (real: `faultline run` was sent SIGINT, "   \
    "SIGTERM, SIGHUP or SIGQUIT and ended the job; exit 128 + the signal); [real-mode.md](real-mode.md) has the "  \
    "table")                                                                                                        \
  X(wall_s, "REAL", REAL, "s", SIM, NOSUM, "host seconds spent simulating the replica")                                     \
  X(policy, "TEXT", TEXT, "", BOTH, NOSUM, "grid world: `policy.kind` (hybrid only)")                                       \
  X(weights, "TEXT", TEXT, "", BOTH, NOSUM, "grid world: `policy.weights` (substitution, hybrid)")                          \
  X(error_budget, "REAL", REAL, "", BOTH, NOSUM, "grid world and task graphs: ε, the error budget")                         \
  X(iterations, "INTEGER", COUNT, "", BOTH, SUM, "grid world: sweeps done; real CG: the solver's iterations")             \
  X(converged_at, "INTEGER", COUNT, "", BOTH, NOSUM,                                                                        \
    "grid world: sweep after which no value changed by more than `app.tolerance`; NULL if it did not converge")     \
  X(complete_iterations, "INTEGER", COUNT, "", BOTH, NOSUM,                                                                 \
    "grid world: sweeps in which every task got a value (computed, re-executed or substituted); the grid world as "  \
    "a task graph (`app.graph = gridworld`): the leading sweeps whose every task has a value at the end — all of "   \
    "them when the run completed, how far it got when `run.max_time` stopped it")                                    \
  X(error_linf, "REAL", REAL, "", BOTH, SUM,                                                                              \
    "grid world: ‖V − V_ref‖∞ of the final values against the failure-free run of the same sweeps; real CG: "       \
    "‖u − u_exact‖∞")                                                                                                \
  X(error_l1, "REAL", REAL, "", BOTH, SUM, "grid world: ‖V − V_ref‖₁")                                                    \
  X(tasks_replicated, "INTEGER", COUNT, "", BOTH, SUM,                                                                    \
    "grid world (both engines) and task graphs: failed task-sweeps (tasks) re-executed")                             \
  X(tasks_substituted, "INTEGER", COUNT, "", BOTH, SUM, "the same, substituted by a similar one")                         \
  X(tasks_stale, "INTEGER", COUNT, "", BOTH, NOSUM, "grid world: failed task-sweeps left with their old value")             \
  X(policy_solver, "TEXT", TEXT, "", BOTH, NOSUM,                                                                           \
    "hybrid: the solver that decided (`greedy`, `exact`, `mip`, `mip (greedy fallback)`)")                           \
  X(policy_time_s, "REAL", REAL, "s", BOTH, NOSUM, "hybrid: host seconds spent deciding")                                   \
  X(policy_gap, "REAL", REAL, "", BOTH, NOSUM, "hybrid: worst relative gap the solver reported")                            \
  X(detect_time_s, "REAL", REAL, "s", REAL, SUM,                                                                          \
    "real mode: seconds from the start of the wait that timed out to the suspicion (per recovery, the slowest "      \
    "rank's)")                                                                                                       \
  X(recovery_time_s, "REAL", REAL, "s", REAL, SUM,                                                                        \
    "real mode: seconds from the suspicion to the agreed recovery (per recovery, the slowest rank's)")               \
  X(checkpoint_bytes, "REAL", REAL, "B", REAL, NOSUM, "real mode: bytes all ranks sent to their buddies' memory over the run") \
  X(commit_time_s, "REAL", REAL, "s", REAL, SUM,                                                                          \
    "real mode: mean time of one checkpoint commit (transfers completed and agreed)")                                \
  X(recovery_mode, "TEXT", TEXT, "", REAL, NOSUM,                                                                           \
    "real mode, lossy CG ([lossy-cg.md](lossy-cg.md)): `global`, `local` or `improved`; NULL for the study's "       \
    "failure-free rows and every other run")                                                                         \
  X(codec, "TEXT", TEXT, "", REAL, NOSUM,                                                                                   \
    "lossy CG: the checkpoint codec and its parameter, `none`, `zero`, `multigrid:2`, `zfp:1e-07`, "                 \
    "`zfp-adaptive:0.1`; `off` for the study's baseline without checkpoints; NULL for every other run (the "         \
    "report's job table leaves these rows to the lossy-CG table)")                                                   \
  X(lost_role, "INTEGER", COUNT, "", REAL, NOSUM, "lossy CG: the role whose data was lost (injected); NULL when nothing was injected") \
  X(lost_at, "INTEGER", COUNT, "", REAL, NOSUM, "lossy CG: after how many executed iterations the data was lost")            \
  X(aux_iterations, "INTEGER", COUNT, "", REAL, SUM,                                                                      \
    "lossy CG, `improved`: iterations of the auxiliary solve (the slowest lost role's, summed over losses)")          \
  X(compression_ratio, "REAL", REAL, "", REAL, SUM,                                                                       \
    "lossy CG: raw bytes of x over compressed bytes of x, all roles, all checkpoints of the run (`none`: 1)")        \
  X(raw_checkpoint_bytes, "REAL", REAL, "B", REAL, NOSUM,                                                               \
    "lossy CG: the same checkpoints of x uncompressed (8 bytes a value); `checkpoint_bytes` is what went to the "    \
    "buddies (`none` sends x, r and d: 3× this)")                                                                    \
  X(controller, "TEXT", TEXT, "", SIM, NOSUM,                                                                               \
    "the host that ran the simulator's actors (a platform file without a host named `platform.controller` lends "    \
    "its first host by name, and `simulate` says so on stderr)")                                                     \
  X(inputs, "TEXT", INPUTS, "", BOTH, NOSUM,                                                                                \
    "every input file the scenario read, one line each: `key<TAB>absolute path<TAB>bytes<TAB>xxh64` "                \
    "(`platform.file`, `failures.trace`, `failures.trace_map`, `app.graph`, `app.substitutes`, and the profile and " \
    "trace files the platform names); each must be a regular file; the content itself is in `input_files`")         \
  X(row_key, "TEXT", KEY, "", BOTH, NOSUM,                                                                                  \
    "the row's identity: simulated rows `sim:<xxh64 of scenario_text>:<xxh64 of the overrides but run.db and "       \
    "run.replicas>:<seed>:<replica>`, then `:<xxh64 of the input files' keys and content hashes>` when it read "     \
    "files (an edited trace is another experiment; where the checkout lies is not), the same whichever command, "    \
    "shard or file wrote it, so a re-run skips rows already present and `merge` adds each row once (a unique "       \
    "index, `runs_key`); real rows `real:<xxh64 of scenario_text>:job:<job id>` (a real run happened once). A row that has none (a file written before row keys) " \
    "gets `legacy:<xxh64 of scenario_text>:<the file's path as given to merge>:<id>` when merged")                   \
  X(sdc_injected, "INTEGER", COUNT, "", SIM, NOSUM,                                                                         \
    "sim with `failures.sdc_mtbf`: silent corruptions that struck compute that completed (NULL when not modelled)")  \
  X(sdc_detected, "INTEGER", COUNT, "", SIM, SUM, "of those, caught by a verification or outvoted by triplication")       \
  X(sdc_silent, "INTEGER", COUNT, "", SIM, SUM,                                                                           \
    "of those, committed with a checkpoint (the run then ends `wrong_result` unless a rollback undoes it)")           \
  X(verify_time_s, "REAL", REAL, "s", SIM, NOSUM,                                                                           \
    "time spent verifying before checkpoints (`strategy.verify`), interrupted verifications included")               \
  X(tasks_lost, "INTEGER", COUNT, "", SIM, SUM, "task graphs: tasks killed, or whose output was lost while still needed") \
  X(error_spent, "REAL", REAL, "", BOTH, SUM,                                                                             \
    "grid world (both engines) and task graphs: the weights w_i of the substitutions made, summed over the run (the " \
    "hybrid keeps each decision within `error_budget`)")                                                             \
  X(policy_objective, "INTEGER", COUNT, "", BOTH, NOSUM, "substitutions the solver chose, summed over the decisions")        \
  X(scenario_xxh64, "TEXT", HASH, "", BOTH, NOSUM,                                                                          \
    "XXH64 (seed 0) of the scenario text, 16 hex digits: the key of its text in `scenario_texts` (the same hash "    \
    "starts the row key)")                                                                                           \
  X(node_hours, "REAL", NODE_HOURS, "node-h", BOTH, SUM,                                                                  \
    "what the run held: `job_nodes` (its ranks × copies + the spares it holds) × `makespan_s` / 3600; real runs: " \
    "processes × wall time. Computed on insert; NULL in rows written before it (export and report compute it "     \
    "from `platform_nodes` then)")                                                     \
  X(energy_j, "REAL", REAL, "J", SIM, SUM,                                                                               \
    "sim: the energy the run's nodes drew over the makespan, every node `node_hours` counts: SimGrid's host energy " \
    "model (`platform.node_power`, or a file's `wattage_per_state` and `wattage_off`): AllCores while computing, "  \
    "Idle while checkpointing, restarting, waiting or spare, Off while failed (docs/energy.md)")                     \
  X(jobs, "INTEGER", MCOUNT, "", SIM, NOSUM, "workloads: jobs of the trace the run simulated (its `jobs` rows)")             \
  X(jobs_completed, "INTEGER", MCOUNT, "", SIM, SUM, "workloads: of those, jobs that finished")                            \
  X(utilisation, "REAL", MREAL, "", SIM, SUM,                                                                             \
    "workloads: useful node-seconds (the completed jobs' failure-free run time × nodes) over the span (first "      \
    "submit to last end) × the machine's nodes")                                                                     \
  X(useful_node_hours, "REAL", MREAL, "node-h", SIM, SUM, "workloads: the completed jobs' failure-free node-hours")         \
  X(lost_node_hours, "REAL", MREAL, "node-h", SIM, SUM,                                                                   \
    "workloads: node-hours of compute that failures threw away (each done again)")                                   \
  X(checkpoint_node_hours, "REAL", MREAL, "node-h", SIM, SUM,                                                             \
    "workloads: node-hours of checkpoint I/O, interrupted checkpoints included")                                     \
  X(restart_node_hours, "REAL", MREAL, "node-h", SIM, SUM, "workloads: node-hours of reading checkpoints back")             \
  X(io_wait_node_hours, "REAL", MREAL, "node-h", SIM, SUM,                                                                \
    "workloads: node-hours jobs held idle waiting for the PFS (`app.checkpoint_io` ordered or least-waste)")         \
  X(replica_node_hours, "REAL", MREAL, "node-h", SIM, SUM,                                                                \
    "workloads under replication: node-hours the extra copies computed (copies − 1 × nodes × run time of the "       \
    "completed jobs), the price of masking failures; NULL in rows written before it")                                \
  X(mean_wait_s, "REAL", MREAL, "s", SIM, SUM, "workloads: mean of first start − submit over the jobs that started")     \
  X(mean_bounded_slowdown, "REAL", MREAL, "", SIM, SUM,                                                                   \
    "workloads: mean over completed jobs of max(1, (end − submit) / max(run time, 10 s))")                           \
  X(failure_free_s, "REAL", REAL, "s", SIM, SUM,                                                                          \
    "task graphs: the makespan of the same run without failures, simulated once on the same platform (transfers "  \
    "and their contention included, unlike `work_s`'s HEFT schedule); NULL elsewhere and in rows written before it")  \
  X(note, "TEXT", TEXT, "", REAL, NOSUM,                                                                                    \
    "real runs: what happened that the figures do not say — a damaged checkpoint version met at a restore and the "  \
    "older one restored instead (`file level: version 600 of role 1 corrupt; restored version 590 instead`), a "     \
    "`--kill` the solve ended before; NULL when there is nothing to say")                                        \
  X(job_nodes, "INTEGER", COUNT, "", BOTH, NOSUM,                                                                          \
    "nodes the job held, which `node_hours` and `energy_j` charge: its ranks × copies (`strategy.degree`) + the "    \
    "spares it holds (`app.spares`; `rest`, the default, holds every other node of the platform); real runs: its "  \
    "processes, or their nodes when placed by node (`mpi.ranks_per_node` > 1). NULL in rows written before it "     \
    "(their node_hours charged `platform_nodes`)")                                                                  \
  X(hosts_used, "INTEGER", COUNT, "", REAL, NOSUM,                                                                         \
    "real runs: the distinct machines (host names) the run's processes ran on, spares' included")                  \
  X(hosts_lost, "TEXT", TEXT, "", REAL, NOSUM,                                                                             \
    "real runs: the nodes lost (host names, comma-separated: a node any of whose processes died); NULL when none") \
  /* one line per entry, above this one */
/* clang-format on */

typedef enum fl_col_how {
  FL_COL_AUTO,
  FL_COL_TEXT,
  FL_COL_TEXT0,
  FL_COL_REAL,
  FL_COL_COUNT,
  FL_COL_INT,
  FL_COL_SEED,
  FL_COL_VERSION,
  FL_COL_EMPTY,
  FL_COL_INPUTS,
  FL_COL_KEY,
  FL_COL_HASH,
  FL_COL_NODE_HOURS,
  FL_COL_MREAL,
  FL_COL_MCOUNT
} fl_col_how;

/* which engines fill a column (FL_COLENG_ ## the X-macro's engines) */
enum { FL_COLENG_SIM = 1, FL_COLENG_REAL = 2, FL_COLENG_BOTH = 3 };

typedef struct fl_column {
  const char *name;
  const char *decl; /* SQL type and constraints */
  fl_col_how how;
  size_t offset;    /* of the field in fl_db_run (TEXT, TEXT0, REAL, COUNT, INT, SEED), fl_db_machine (MREAL,
                     * MCOUNT) */
  const char *unit; /* "s", "B", "node-h", "J", "" */
  int engines;      /* FL_COLENG_SIM | FL_COLENG_REAL */
  int summarised;   /* SUM: report summarises it */
  const char *doc;
} fl_column;

/* The columns of `runs`, in table order. */
int fl_run_ncolumns(void);
const fl_column *fl_run_column(int i);
/* The column called `name`, or NULL. */
const fl_column *fl_run_column_named(const char *name);
/* "text", "integer" or "real": the SQL type's affinity, lower case. */
const char *fl_column_type(const fl_column *c);
/* Is it a number (integer or real)? */
int fl_column_numeric(const fl_column *c);
/* Is it computed from other columns of the row (not an engine's figure)? `rerun` does not compare these. */
int fl_column_derived(const fl_column *c);
/* "sim", "real" or "both". */
const char *fl_column_engines(const fl_column *c);
/* The column table of docs/results.md (`faultline columns`). */
void fl_run_columns_markdown(FILE *out);

#endif
