/* strategy.h — resilience strategies: one registry of decisions that both engines (the SimGrid simulator in sim/,
 * real MPI ranks in exec/) call. No SimGrid, no MPI here.
 *
 * A strategy decides; an engine acts. The engine owns its loop (simulated phases, or real iterations on ranks)
 * and its primitives (compute, write a checkpoint at a level, restore one, promote a spare, re-execute or
 * substitute a task); at each point where a choice is made it asks the strategy:
 *   - at set-up: what it needs (copies of every rank, checkpoint levels, task recovery) — an engine that cannot
 *     provide it is refused here, with the reason, before anything runs (fl_strat_setup);
 *   - between checkpoints: how much compute until the next one (the interval rule, re-evaluated as the engine
 *     measures the checkpoint cost: fl_strat_observe; a rule that adapts is asked before every interval:
 *     fl_strat_next_interval) and to which level the k-th goes (fl_strat_level);
 *   - at a failure: carry on (a replica takes over), roll back to a level, or restart from scratch
 *     (fl_strat_on_failure), given what survived (fl_failure_view);
 *   - for task-parallel applications, at the end of a sweep: which failed tasks to substitute and which to
 *     re-execute (fl_strat_decide_tasks, through policy/knapsack for the hybrid);
 *   - at the end: what it adds to the result row (fl_strat_row).
 * Adding a strategy is one file in policy/strategies/ and one line in registry.c (docs/architecture.md). */
#ifndef FL_STRATEGY_H
#define FL_STRATEGY_H

#include "fl_err.h"
#include "interval.h"
#include "knapsack.h"
#include "rule.h"
#include "scenario.h"

#include <stdint.h>

/* Where a rank's state comes back from. */
typedef enum fl_level {
  FL_LEVEL_SCRATCH = 0, /* nowhere: the job starts over */
  FL_LEVEL_BUDDY = 1,   /* a partner's memory (GPI CP, SCR's partner level) */
  FL_LEVEL_FILE = 2,    /* files through storage/ckpt (the real engine: a directory; the simulator with platform
                         * costs: the parallel file system) */
  FL_LEVEL_LOCAL = 3,   /* the node's own disk: survives a process crash, not the node's loss (simulator) */
  FL_LEVEL_XOR = 4,     /* local disks plus XOR parity over a set of strategy.xor_group ranks (SCR's XOR level,
                         * FTI's erasure-coded level 3): survives one lost node per set (simulator) */
  FL_NLEVELS
} fl_level;
#define FL_LEVEL_BIT(l) (1u << (unsigned)(l))

/* How the engine runs the application: ranks that each own part of the state (bsp and cg in both engines, the
 * grid world by rows in the real engine), or independent tasks per sweep (the grid world in the simulator). */
typedef enum fl_shape { FL_SHAPE_RANKS = 1, FL_SHAPE_TASKS = 2 } fl_shape;

/* What an engine can do. */
typedef struct fl_engine_caps {
  const char *name;            /* "sim", "real" */
  fl_shape shape;              /* how it runs this scenario's application */
  unsigned levels;             /* FL_LEVEL_BIT()s it can write and restore */
  long max_degree;             /* copies of a rank it can run (1: no replication) */
  int task_recovery;           /* re-executes and substitutes failed tasks (FL_SHAPE_TASKS) */
  const char *why_no_replicas; /* the reason when max_degree is 1 (said in the refusal) */
  unsigned intervals;          /* what it gives interval rules (FL_IRULE_*, policy/intervals/rule.h): a rule that
                                * needs more is refused at set-up */
} fl_engine_caps;

/* What survived a failure, as the engine sees it. */
typedef struct fl_failure_view {
  long copies_left;   /* live copies of every rank that lost one: the least (0: some rank lost all its copies) */
  int buddy_intact;   /* every dead rank's buddy copy is on a live rank */
  long buddy_version; /* newest buddy-level version every survivor can restore (-1: none) */
  long file_version;  /* newest file-level version complete on every rank (-1: none) */
  int local_intact;   /* no node was lost since the newest local-level checkpoint (a process crash keeps it) */
  long local_version; /* newest local-level version (-1: none) */
  int xor_intact;     /* no XOR set lost two nodes since the newest XOR-level checkpoint */
  long xor_version;   /* newest XOR-level version (-1: none) */
  int reshaped;       /* the job goes on with fewer ranks: per-rank buddy copies no longer fit the new ranks */
} fl_failure_view;

typedef enum fl_action {
  FL_ACT_CONTINUE = 0, /* a replica takes over: no rollback */
  FL_ACT_ROLLBACK,     /* restore `level` and replay from there */
  FL_ACT_RESTART,      /* start over from the initial state */
} fl_action;

typedef struct fl_recovery {
  fl_action action;
  fl_level level; /* FL_ACT_ROLLBACK: where from */
  long version;   /* FL_ACT_ROLLBACK: which version (the engine's numbering: epochs, iterations) */
} fl_recovery;

typedef struct fl_strategy_ops fl_strategy_ops;

/* The failure rates an engine sees, split by what they take (strategy.interval = multilevel prices each level
 * with the failures it is the cheapest to recover from). */
typedef struct fl_strat_rates {
  double crash;       /* process crashes per second, job-wide: the node lives, its local copy too */
  double node;        /* node losses per second, job-wide (group failures that spare the partners included) */
  double node_mtbf_s; /* one node's MTBF: a partner lost in the same buddy period takes both copies */
  double group;       /* group failures per second that take a rank and its partner at once */
} fl_strat_rates;

/* One run's strategy state: what it decided at set-up and what it has measured since. The engine may read it. */
#define FL_STRAT_STATE 64 /* bytes of a strategy's own state in its run */

/* What a task policy's decisions came to over a run, for the row (fl_strat_decisions_reset before a replica). */
typedef struct fl_strat_decisions {
  const char *solver; /* what decided (static string); NULL: nothing was decided */
  double solve_time_s;
  double worst_gap; /* the largest MIP gap left (NAN: none) */
  long objective;   /* substitutions chosen by the solver, summed over the decisions */
  int fell_back;    /* a solve hit its time limit and the greedy incumbent decided */
} fl_strat_decisions;

typedef struct fl_strategy_run {
  const fl_strategy_ops *ops;
  const fl_engine_caps *caps;
  long degree;                  /* copies of every rank (1 without replication) */
  unsigned levels;              /* FL_LEVEL_BIT()s the strategy writes (0: no checkpoint) */
  long file_every;              /* with two levels: every file_every-th checkpoint also goes to the file level */
  long every[FL_NLEVELS];       /* multilevel: the k-th checkpoint goes to the highest level whose every divides k;
                                 * 0 (LEVEL:auto): chosen by strategy.interval = multilevel */
  int auto_every;               /* the periods are the rule's (LEVEL:auto) */
  long xor_group;               /* the XOR level's set size (strategy.xor_group) */
  double async_file_s;          /* async flush: what a file-level checkpoint costs the job (the engine's; NAN: sync) */
  fl_strat_rates rates;         /* the engine's (fl_strat_set_rates), for strategy.interval = multilevel */
  char pattern[96];             /* strategy.interval = multilevel: the rule and the periods it chose, for the row */
  const fl_interval_rule *rule; /* strategy.interval's (policy/intervals) */
  double fixed_s;               /* strategy.interval as a duration */
  double mtbf_s;                /* the job's MTBF the rule uses (INFINITY: none) */
  double delta_s[FL_NLEVELS];   /* checkpoint cost per level: the scenario's, then the engine's measurements */
  unsigned writes[FL_NLEVELS];  /* the levels a checkpoint of each level writes at once (FL_LEVEL_BIT()s) */
  double tau_s;                 /* compute between two checkpoints (INFINITY: never) */
  long checkpoints;             /* taken so far (fl_strat_level counts them) */
  /* silent errors: a verification of cost verify_s before each checkpoint (strategy.verify); sdc_mtbf_s the
   * job's MTBF of silent errors that cost a rollback (INFINITY: none, or triplication outvotes them), which the
   * engine sets with fl_strat_set_sdc before fl_strat_set_mtbf */
  int verify;
  double verify_s, sdc_mtbf_s;
  /* The strategy's own options (the block of its `options` key set, core/keys.h, in the scenario) while its setup
   * runs, NULL after: an engine may free the scenario once it is set up, so a strategy copies what it keeps into
   * `state` (its own layout, at most FL_STRAT_STATE bytes), which engines never read: they ask through the
   * fl_strat_* functions below. */
  const void *opts;
  _Alignas(double) unsigned char state[FL_STRAT_STATE];
  /* task-parallel strategies (substitution, hybrid) */
  char solver[32];       /* what the decisions run (hybrid: policy.kind's solver; "" otherwise) */
  int needs_dependents;  /* the decisions need decide_graph's per-dependent terms (policy.kind = full-mip) */
  int weights_empirical; /* policy.weights = empirical (fl_strat_weights_empirical) */
  double budget;         /* the error the next decision may spend (fl_strat_set_budget; INFINITY: no limit) */
  fl_strat_decisions decided;
} fl_strategy_run;

/* What a strategy adds to a result row (strings static or borrowed from the scenario). */
typedef struct fl_strategy_row {
  const char *strategy;      /* the strategy that ran */
  const char *interval_rule; /* NULL without checkpoints */
  const char *policy;        /* who decided substitutions, NULL if none */
  const char *weights;       /* substitution weights, NULL if none */
  double error_budget;       /* NAN if none */
} fl_strategy_row;

/* A scenario key a strategy reads, and what for (the keys' types and defaults are in the scenario table). */
typedef struct fl_strategy_key {
  const char *key; /* "section.key" */
  unsigned shapes; /* fl_shape bits where it is read; 0: any */
  const char *use;
} fl_strategy_key;

struct fl_strategy_ops {
  const char *name;
  const char *summary;
  const fl_strategy_key *keys; /* the keys it reads, for `faultline keys`; ends with {NULL} */
  const fl_keyset *options;    /* the keys it declares and owns (core/keys.h); NULL: none of its own */
  unsigned shapes;             /* fl_shape bits it can drive */
  /* Fill run->degree, ->levels, ->file_every from the scenario; check its keys (FL_ERR_INPUT naming them). */
  fl_err (*setup)(fl_strategy_run *run, const fl_scenario *sc);
  /* The level of the k-th checkpoint (k >= 1). NULL: the single level in run->levels. */
  fl_level (*level)(const fl_strategy_run *run, long k);
  /* After a failure that the engine could not mask. */
  fl_recovery (*on_failure)(const fl_strategy_run *run, const fl_failure_view *f);
  /* FL_SHAPE_TASKS: substitute[f] = 1 to substitute failed task f, 0 to re-execute it. weight[f] is the error a
   * substitution would add (INFINITY: no live substitute). */
  fl_err (*decide_tasks)(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute);
  /* FL_SHAPE_TASKS on a task graph (app.kind = workflow): the same choice with seed 002's full formulation at
   * hand: `full` holds every candidate (i, j, k, w_ijk, crosses) and `weight` the simplified w_i = N_i min_j
   * max_k w_ijk. Fills substitute[] and, for substituted tasks, substitute_by[] (z per term; the engine picks
   * the cheapest term per dependent when the solver gives none). NULL: decide_tasks on `weight`. */
  fl_err (*decide_graph)(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                         unsigned char *substitute, long *substitute_by, int *have_z);
};

/* ---- the keys every checkpointing strategy shares ----
 * Declared by the registry (registry.c) and registered once (apps/registries.c): the file level's constant cost,
 * its asynchronous flush, and the verification before each checkpoint. The strategies that write a file level read
 * file_cost; the engines apply the flush and the verification to whatever strategy runs. */
typedef struct fl_strat_common_opts {
  double file_cost_s;    /* strategy.file_cost: a file-level checkpoint with constant costs (simulator) */
  int flush_async;       /* strategy.flush = async: the file level drains in the background */
  double flush_slowdown; /* async flush, constant costs: compute slows by this fraction while a flush drains */
  int verify;            /* strategy.verify = checkpoint: verify the state before each checkpoint */
  double verify_cost_s;  /* V */
  double verify_recall;  /* r in [0, 1] */
} fl_strat_common_opts;
extern const fl_keyset fl_strat_common_keys;
/* sc's values of them (borrowed). */
const fl_strat_common_opts *fl_strat_common(const fl_scenario *sc);

/* ---- the registry ---- */
int fl_strat_count(void);
const fl_strategy_ops *fl_strat_at(int i);
/* NULL when unknown. */
const fl_strategy_ops *fl_strat_find(const char *name);

/* ---- a run ---- */

/* Look strategy.kind up and set it up for an engine: FL_ERR_INPUT naming [strategy] kind when it is unknown, when
 * it cannot drive this shape of application, or when the engine lacks what it needs (the reason said; nothing is
 * ever replaced by another strategy). job_mtbf_s is the MTBF the interval rule uses (INFINITY: none; the
 * engine may give it later with fl_strat_set_mtbf). */
fl_err fl_strat_setup(const fl_scenario *sc, const fl_engine_caps *caps, fl_strategy_run *run);
/* The same for a strategy the caller names instead of strategy.kind: an app whose study runs some solves without
 * protection (lossy-cg's baseline and codec zero run `none`). */
fl_err fl_strat_setup_as(const fl_strategy_ops *ops, const fl_scenario *sc, const fl_engine_caps *caps,
                         fl_strategy_run *run);
/* (Re)compute the interval for a job MTBF. FL_ERR_INPUT when the rule cannot apply (Young or Daly without an MTBF,
 * a zero interval). */
fl_err fl_strat_set_mtbf(const fl_scenario *sc, fl_strategy_run *run, double job_mtbf_s);
/* The job's MTBF of silent errors that a verification turns into rollbacks: with strategy.verify, Young and Daly
 * become the first-order period of fail-stop plus silent errors (fl_pol_interval_silent). */
/* The failure rates the engine sees, before fl_strat_set_mtbf (strategy.interval = multilevel). */
void fl_strat_set_rates(fl_strategy_run *run, const fl_strat_rates *rates);
void fl_strat_set_sdc(fl_strategy_run *run, double job_sdc_mtbf_s);
/* Compute until the next checkpoint, asked before every interval by an engine that gives FL_IRULE_EACH: a rule that
 * adapts (strategy.interval = hazard, from the job's expected failures over a horizon) decides from what the engine
 * fills in `step` (left_s, clean, and expected/ctx where the rule needs the hazard; tau_s and delta_s are filled
 * here); other rules give run->tau_s. Not positive: up to the end of the job. */
double fl_strat_next_interval(const fl_strategy_run *run, fl_irule_step *step);
/* The engine measured a checkpoint of `level` costing delta_s: re-evaluate Young/Daly with it. */
void fl_strat_observe(fl_strategy_run *run, fl_level level, double delta_s);
/* The level the interval rule prices: the cheapest one written at every checkpoint (local, else buddy, else
 * file). */
fl_level fl_strat_primary(const fl_strategy_run *run);
/* Compute time until the next checkpoint (INFINITY: none). */
double fl_strat_interval(const fl_strategy_run *run);
/* The level the next checkpoint goes to (counts it). */
fl_level fl_strat_next_level(fl_strategy_run *run);
/* The level the k-th checkpoint (k >= 1) goes to, without counting it. */
fl_level fl_strat_level(const fl_strategy_run *run, long k);
fl_recovery fl_strat_on_failure(const fl_strategy_run *run, const fl_failure_view *f);
fl_err fl_strat_decide_tasks(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute);
/* The decision on a task graph (see decide_graph); *have_z = 1 when substitute_by[] was filled. */
fl_err fl_strat_decide_graph(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                             unsigned char *substitute, long *substitute_by, int *have_z);
/* The error the next decision may spend (the engine's budget left; hybrid starts from policy.error_budget). */
void fl_strat_set_budget(fl_strategy_run *run, double budget);
/* Before a replica: no decision yet. */
void fl_strat_decisions_reset(fl_strategy_run *run);
/* 1 when substitution weights are the observed differences (policy.weights = empirical), 0 for the seed's bound
 * (and for strategies that do not substitute). */
int fl_strat_weights_empirical(const fl_strategy_run *run);
void fl_strat_row(const fl_strategy_run *run, const fl_scenario *sc, fl_strategy_row *row);
/* 1 if the strategy reads `section.key` (the sweep skips combinations that differ only in keys nothing reads). */
int fl_strat_reads(const fl_strategy_run *run, const char *section_dot_key);
const char *fl_level_name(fl_level l);
/* Levels from the cheapest to read and write to the most resilient: local 1, buddy 2, file 3 (scratch 0). */
int fl_level_rank(fl_level l);
const char *fl_shape_name(fl_shape s);

/* ---- for strategy files ---- */
/* The keys of coordinated checkpoint/restart, read where the strategy drives ranks. */
#define FL_STRAT_CKPT_KEYS                                                                                             \
  {"strategy.interval", FL_SHAPE_RANKS, "the interval rule: compute time between two checkpoints"},                    \
      {"strategy.checkpoint_cost", FL_SHAPE_RANKS, "delta: the cost of a checkpoint (the simulator's)"},               \
      {"strategy.restart_cost", FL_SHAPE_RANKS, "R: reading a checkpoint back (the simulator's)"},                     \
  {                                                                                                                    \
    "strategy.downtime", FL_SHAPE_RANKS, "D: between an interruption and the restart (the simulator's)"                \
  }
/* The usual rule: roll back to the newest level that survived (local if no node was lost, then buddy if intact,
 * then file), else start over. */
fl_recovery fl_strat_rollback_newest(const fl_strategy_run *run, const fl_failure_view *f);

extern const fl_strategy_ops fl_strategy_none, fl_strategy_checkpoint, fl_strategy_buddy, fl_strategy_two_level,
    fl_strategy_multilevel, fl_strategy_replication, fl_strategy_substitution, fl_strategy_hybrid;

#endif
