/* scenario.h — a scenario: what to simulate or run, read from an INI file (libinih) plus --set overrides.
 *
 * Every key lives in one table (scenario.c) with its type, default and documentation; defaults go through the
 * same parser as user text. Each key remembers where its value came from (file line, --set, default), so a
 * check made later, across keys, still reports "file:line: [section] key = 'value': reason".
 * docs/scenarios.md documents the same table; a test keeps the two in step. */
#ifndef FL_SCENARIO_H
#define FL_SCENARIO_H

#include "fl_err.h"
#include "keys.h"

#include <stdint.h>
#include <stdio.h>

typedef enum fl_start {
  FL_START_STATIONARY = 0, /* every node up at t=0, first failure after its stationary residual life */
  FL_START_FRESH,          /* every node new at t=0 */
  FL_START_STEADY,         /* alternating renewal in equilibrium: a node is down at t=0 with probability
                            * repair / (mtbf + repair) */
} fl_start;

typedef enum fl_cost { FL_COST_AUTO = 0, FL_COST_CONSTANT, FL_COST_PLATFORM } fl_cost;
typedef enum fl_io_flows { FL_IO_AUTO = 0, FL_IO_PER_RANK, FL_IO_AGGREGATED } fl_io_flows;
#define FL_IO_PER_RANK_MAX 4096L /* io_flows = auto: per-rank flows up to this many ranks */

typedef struct fl_scenario {
  /* provenance */
  char *path;      /* file the scenario came from, as given, or NULL for a scenario built from text */
  char *abs_path;  /* the same, absolute (what result rows store, so a row re-runs from anywhere), or NULL */
  char *dir;       /* directory against which relative paths in the file resolve ("." when no file) */
  char *text;      /* the file's text, verbatim */
  char *overrides; /* the --set assignments applied, one "section.key=value" per line, in order ("" if none) */

  /* [run] */
  char *name;        /* defaults to the file's base name without .ini */
  uint64_t seed;     /* < 2^63, so it round-trips through SQLite */
  long replicas;     /* Monte Carlo repetitions, >= 1 */
  char *db;          /* results database path (relative to the working directory) */
  int events_all;    /* 1: log every event; 2: and the job's phases; 0: runs only */
  double max_time_s; /* simulated-time guard per replica: a run longer than this ends with status 'timeout' */
  long max_events;   /* event budget per replica (failures + repairs drawn): past it the replica ends as 'timeout' */
  char *sweep;       /* "section.key=v1,v2 section.key=..." or NULL: the combinations simulate runs */

  /* [platform] */
  char *platform_file;                             /* SimGrid platform XML, resolved against dir; NULL when generated */
  long platform_nodes;                             /* hosts to generate when no file; 0 = as many as the job needs */
  double node_speed;                               /* flop/s of generated hosts */
  char *controller;                                /* host that runs the simulation's own actors; never fails */
  long cabinet;                                    /* generated: nodes per cabinet */
  double link_bw, link_lat_s, cabinet_bw, disk_bw; /* generated: bytes/s, s */
  long pfs_servers;                                /* generated: PFS storage hosts (0: none) */
  double pfs_bw, pfs_link_bw;                      /* generated: per PFS server, bytes/s */
  int io_flows;                                    /* fl_io_flows */
  double node_power[3];  /* Idle, Epsilon, AllCores watts of a node without its own wattage_per_state */
  double node_power_off; /* watts of a node that is off (failed, in repair) without its own wattage_off */

  /* [failures] */
  char *model;           /* "none", "exponential", "weibull", "lognormal", "gamma", "trace" */
  double node_mtbf_s;    /* mean time between failures of ONE node, seconds */
  double repair_s;       /* time a failed node stays down; INFINITY = never */
  double process_mtbf_s; /* bsp: MTBF of one process (crash, node lives); INFINITY = none */
  double group_mtbf_s;   /* MTBF of one group of platform.cabinet nodes failing together; INFINITY = none */
  double sdc_mtbf_s;     /* bsp: MTBF of silent data corruptions of one node; INFINITY = none */
  double burst_ratio;    /* offspring failures per failure (Hawkes branching ratio, < 1); 0 = none */
  double burst_time_s;   /* mean delay of an offspring failure */
  int start;             /* fl_start */

  /* [app] */
  char *app;              /* "bsp", "gridworld" */
  long app_nodes;         /* ranks of the job; 0 = every host of the platform (gridworld: one task per state) */
  char *app_spares;       /* bsp: "rest" (every other node of the platform) or a count (fl_scenario_spares) */
  double work_s;          /* bsp: failure-free compute time, seconds */
  double flops;           /* bsp: computation per rank (0: work_s is the time) */
  double checkpoint_size; /* bsp: bytes per rank per checkpoint (0: none given) */
  double comm_fraction;   /* bsp: share of time spent exchanging with neighbours (async flush interference) */
  double node_memory;     /* platform: bytes of memory of a node (0: no limit); a host's <prop id="memory"> wins */

  /* [strategy] */
  char *strategy;         /* a name in the strategy registry (policy/strategies) */
  char interval_rule[24]; /* strategy.interval: a rule of the registry (policy/intervals), checked by the strategies'
                           * keys; "fixed" when a duration was given */
  double interval_s;      /* that duration */
  double checkpoint_cost_s;
  int cost; /* fl_cost */
  double restart_cost_s;
  double downtime_s;

  /* [storage] */
  char *storage_pfs;  /* platform files: PFS hosts, blank-separated, or "zone:ID" (NULL: none) */
  char *storage_disk; /* platform files: disk id of the node-local level (NULL: each host's first disk) */

  /* [mpi] — real mode (faultline run / faultline-mpi) */
  long spares;           /* spare ranks beyond the active ones */
  long checkpoint_every; /* checkpoint every this many iterations; 0 = by strategy.interval through time_scale */
  char *checkpoint_dir;  /* file-level checkpoints (a directory per role), or NULL: under the run's --out */
  long ranks_per_node;   /* real mode: processes per node (the mirror stride; node k holds ranks kR..kR+R-1) */
  char *kill_node;       /* real mode: NODE@ITER / NODE@TIME node failures */
  int mirror_pair;       /* 0: ring (buddy = next role), 1: pairs (0-1, 2-3, ...) */
  int shrink;            /* no spare left: 0 stop, 1 go on with fewer ranks (mpi.on_no_spare) */
  int checkpoint_hdf5;   /* the real engine's file level: 0 the file store, 1 the hdf5 store (mpi.checkpoint_store) */
  double mpi_timeout_s;  /* a peer silent this long is suspected dead */
  double watchdog_s;     /* `faultline run` ends a job whose ranks made no progress for this long (INFINITY: never) */
  double time_scale;     /* simulated seconds per real second for failures drawn from [failures]; 0 = none */
  char *kill;            /* explicit failures: "RANK@ITER ..." (world ranks, iterations), or NULL */

  /* the registered key sets' blocks, one per set (keys.h: fl_scenario_options) */
  void **options;
  /* where each key's value came from, indexed like the key table (private to scenario.c) */
  struct fl_scenario_origin *origin;
} fl_scenario;

/* Read `path` and apply its keys over the defaults. Caller owns *out (fl_scenario_destroy). Errors name
 * file, line, key and value. */
fl_err fl_scenario_load(const char *path, fl_scenario **out);
/* Same from text; `label` names it in error messages, `dir` resolves its relative paths (NULL = "."). */
fl_err fl_scenario_from_text(const char *text, const char *label, const char *dir, fl_scenario **out);
/* Apply one override "section.key=value" (as given to --set); appends it to sc->overrides. */
fl_err fl_scenario_set(fl_scenario *sc, const char *assignment);
/* The same for one combination of a sweep: messages name it "--sweep section.key=value". */
fl_err fl_scenario_set_sweep(fl_scenario *sc, const char *assignment);
/* Checks across keys of the run itself (platform file exists, model parameters). Call after the last
 * fl_scenario_set, before anything is written. The job against the platform's size and the app's own keys are
 * the app registry's (apps/app.h: fl_app_check). */
#define FL_SCENARIO_MAX_REPLICAS 10000000L /* run.replicas: 10^7 (the validate battery's most) */

fl_err fl_scenario_check(const fl_scenario *sc);
/* app.spares: the spare nodes the job holds (-1: every node of the platform its ranks do not use, "rest"). */
long fl_scenario_spares(const fl_scenario *sc);
/* 1 when `section.key` got its value from the scenario's file or an override, 0 when it holds its default. */
int fl_scenario_given(const fl_scenario *sc, const char *section, const char *key);
/* Does sc's "section.key" come from the command line (an override, a sweep, a calibration), not from its file? */
int fl_scenario_overridden(const fl_scenario *sc, const char *section, const char *key);
/* The place of the last override of "section.key" among sc's overrides (0 the first), -1 when none. */
long fl_scenario_override_at(const fl_scenario *sc, const char *section, const char *key);
/* Re-parse a stored scenario (text + overrides) to the same values, for re-running a database row. */
fl_err fl_scenario_replay(const char *text, const char *overrides, const char *path, fl_scenario **out);
void fl_scenario_destroy(fl_scenario **sc);

/* Raise FL_ERR_INPUT naming where `section.key` got its value: "file:line: [s] k = 'v': <reason>". */
fl_err fl_scenario_fail(const fl_scenario *sc, const char *section, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Resolve `rel` against sc->dir into a new string (caller frees). Absolute paths are returned as they are. */
char *fl_scenario_resolve(const fl_scenario *sc, const char *rel);

/* The key table, for docs, --help and tests. */
typedef struct fl_scenario_keyinfo {
  const char *section;
  const char *key;
  const char *type; /* "duration", "integer", ... */
  const char *def;  /* default as text ("" = unset) */
  const char *doc;
  const char *unit;  /* of its typed value (fl_scenario_key_value): "s", "flop/s", "flop", "B", "B/s" or "" */
  const char *vtype; /* "integer", "real" or "text": the type of fl_scenario_key_value's value */
  const char *owner; /* the plugin that declares it (keys.h: "strategy replication"), or NULL for the run's own */
} fl_scenario_keyinfo;
int fl_scenario_key_count(void);
const fl_scenario_keyinfo *fl_scenario_key_at(int i);
/* Key i's value in sc, typed for export: integers (counts, the seed), reals in SI base units (seconds, flop/s,
 * flop, bytes, bytes/s; `never` is +infinity), text (strings, choices, grids; `strategy.interval`: the rule's name,
 * or the fixed interval in seconds written out). An unset optional string is FL_VAL_NULL. `s` is borrowed from sc
 * or from `buf`. */
typedef enum fl_val_kind { FL_VAL_NULL, FL_VAL_INT, FL_VAL_UINT, FL_VAL_REAL, FL_VAL_TEXT } fl_val_kind;
typedef struct fl_value {
  fl_val_kind kind;
  long long i;
  unsigned long long u;
  double d;
  const char *s;
} fl_value;
fl_value fl_scenario_key_value(const fl_scenario *sc, int i, char *buf, size_t size);
/* The numeric value of key `section.key` (durations in seconds, speeds in flop/s; an interval key that names a
 * rule has none): 1 and *v set, 0 when the key is unknown or not a number (strings, enums, rules, grids). */
int fl_scenario_number(const fl_scenario *sc, const char *section_dot_key, double *v);
/* Key `section.key`'s value as text (a choice's name, a string, a number as %.17g), borrowed from sc or written
 * into buf; NULL when the key is unknown or an optional string is unset. For messages that show a plugin's key
 * without knowing its block. */
const char *fl_scenario_text(const fl_scenario *sc, const char *section_dot_key, char *buf, size_t size);
/* The keys the scenario's file set, in line order, as "section.key=value" with the value as written (*v and
 * each string are the caller's: free each, then *v). */
fl_err fl_scenario_file_keys(const fl_scenario *sc, char ***v, int *n);
/* Print the resolved scenario as INI (what will actually run). */
void fl_scenario_print(const fl_scenario *sc, FILE *f);

#endif
