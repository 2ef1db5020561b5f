/* app.h — the application registry: what each app kind is and what it asks of an engine, without SimGrid or MPI
 * (ROSS's model as a callback table; PETSc's one implementation per type). An engine runs the kinds it knows with
 * its own table keyed by these descriptors (the simulator's fl_sim_app in sim/sim_impl.h, the real engine's
 * fl_real_app in exec/mpi_inmem/apps/real_app.h), so no engine, core or CLI file compares app-kind names: they ask
 * here.
 *
 * Adding an app kind the simulator runs: one file in sim/apps/ with its fl_app and its fl_sim_app (sim/apps/README
 * and docs/architecture.md), and one line X(NAME) in FL_SIM_APPS (sim/sim_impl.h); the simulator registers it here
 * (fl_app_register). The built-in kinds, which other engines run too, are listed in FL_APPS below. */
#ifndef FL_APP_H
#define FL_APP_H

#include "fl_err.h"
#include "inputs.h"
#include "scenario.h"
#include "strategy.h"

enum {
  FL_APP_SIM = 1u << 0,            /* `faultline simulate` runs it */
  FL_APP_REAL = 1u << 1,           /* `faultline run` runs it on MPI ranks */
  FL_APP_CM02 = 1u << 2,           /* files move between any two hosts: SimGrid's CM02 network model */
  FL_APP_SPEED_PROFILES = 1u << 3, /* a platform file's speed profiles are the app's to play (a bsp job runs at its
                                    * slowest node's pace), not SimGrid's */
  FL_APP_REAL_SQUARE = 1u << 4,    /* the real engine needs a square grid */
  FL_APP_REAL_TASKS = 1u << 5,     /* the real engine runs it as tasks under a strategy that drives tasks */
  FL_APP_REAL_STUDY = 1u << 6,     /* the real engine runs its solves as a study of its own (several solves in one
                                    * mpirun, a row each) with its own compressed buddy checkpoints: buddy or none */
};

#define FL_APP_MAX_INPUTS 4

typedef struct fl_app {
  const char *name;
  const char *summary;
  unsigned flags;       /* FL_APP_* */
  const char *size_key; /* the [app] key that sizes the job: "nodes" or "grid" */
  const char *unit;     /* what the job's size counts: "ranks", "tasks", "hosts", "nodes" */
  const char
      *example; /* a small scenario that runs it (tests/apps/test_app.c runs it in every engine that runs the kind) */
  /* The platform slots the job takes with `copies` copies of each rank; 0: every host of the platform. NULL:
   * app.nodes x copies. */
  long (*job_slots)(const fl_scenario *sc, long copies);
  /* The app's own keys, checked before anything is built (input files there, one of two keys given). NULL: none. */
  fl_err (*check)(const fl_scenario *sc);
  /* The input files it reads, fingerprinted into every row: fills up to FL_APP_MAX_INPUTS refs, returns how many. */
  int (*inputs)(const fl_scenario *sc, fl_input_ref *refs);
  const fl_keyset *options; /* the keys it declares and owns (core/keys.h); NULL: none of its own */
  /* The [app] keys it reads that are not its own: the run's (core/scenario.c: nodes, spares, work, flops,
   * comm_fraction, checkpoint_size) and the grid apps' shared ones (grid, iterations, tolerance), space-separated.
   * One given where no run's app reads it is refused, naming the kinds that would (fl_app_reads). */
  const char *core_keys;
  /* Another kind's key ("app.discount") it reads in this scenario (a workflow of app.graph = gridworld reads the
   * grid world's and the grid's). NULL: only its own and its core_keys. */
  int (*reads)(const fl_scenario *sc, const char *section_dot_key);
  /* The real engine (exec/engine.c fl_exec_setup): what the kind changes in the engine's capabilities before the
   * strategy is set up against them (NULL: nothing), and its own check of the strategy once set up (NULL: none;
   * bad input is FL_ERR_INPUT naming the key). */
  void (*real_caps)(const fl_scenario *sc, fl_engine_caps *caps);
  fl_err (*real_check)(const fl_scenario *sc, const fl_strategy_run *run);
  /* Its check of the real process deaths asked for (`kills` given outside the file, --kill; or mpi.kill), before
   * anything runs (lossy-cg: a single solve, no sweep). NULL: any. */
  fl_err (*real_kills)(const fl_scenario *sc, int kills);
} fl_app;

/* An app kind an engine brings with it (the simulator's sim/apps/: fl_sim_register_apps), before
 * fl_registries_init (which registers its keys and freezes the list; FL_ERR_INTERNAL after, or for a name taken). */
fl_err fl_app_register(const fl_app *app);
void fl_app_freeze(void); /* (fl_registries_init) */
int fl_app_count(void);
const fl_app *fl_app_at(int i);
/* The registered kind called `name`, else NULL. */
const fl_app *fl_app_find(const char *name);
/* The scenario's app kind for an engine (FL_APP_SIM or FL_APP_REAL). Unknown, or not one that engine runs:
 * FL_ERR_INPUT naming app.kind's file and line and the kinds it runs. */
fl_err fl_app_get(const fl_scenario *sc, unsigned engine, const fl_app **out);
/* The names of the kinds an engine runs, "a, b and c", into buf. */
const char *fl_app_names(unsigned engine, char *buf, size_t size);

/* Does a run of kind `app` on sc read `section.key` (its own, one of its [app] core_keys, or one it reads here)? */
int fl_app_reads(const fl_app *app, const fl_scenario *sc, const char *section, const char *key);
/* Is [app] key `key` one some kind lists in its core_keys (the keys no plugin owns)? */
int fl_app_is_core_key(const char *key);
/* "bsp or workload": the kinds whose core_keys list `key`, into buf. */
const char *fl_app_core_readers(const char *key, char *buf, size_t size);
/* One scenario's [app] keys against its kind: another kind's own key, or a run's key the kind does not read, is
 * FL_ERR_INPUT naming the key and the kinds that read it (the real engine's; a study checks its combinations
 * together, sim/study.c); a run's key given before app.kind chose another kind: a warning (fl_app_unread_by_choice). */
fl_err fl_app_check_keys(const fl_scenario *sc);
/* Is one of the run's [app] keys given for another kind than the one that runs: app.kind chosen later, on the
 * command line or by a calibration (agree runs a cg scenario as a bsp job), than the key was given (in the file, or
 * by an earlier --set)? Then it is said as a warning and passed over (1). Another kind's own key is always
 * refused. */
int fl_app_unread_by_choice(const fl_scenario *sc, const char *section, const char *key);
/* The platform slots the scenario's job takes (see fl_app.job_slots); an unknown kind counts as a bsp job. */
long fl_app_job_slots(const fl_scenario *sc, long copies);
/* The checks of the job against the platform's size and of the app's own keys, before anything is built. */
fl_err fl_app_check(const fl_scenario *sc, long copies);
/* Fingerprint every input file of the scenario (fl_inputs_collect with the app's own). */
fl_err fl_app_inputs(const fl_scenario *sc, fl_input **v, int *n);
/* For an app's check: [app] `key` names a file (relative to the scenario) that must be a regular, readable file;
 * `what` names it in the message. */
fl_err fl_app_check_input(const fl_scenario *sc, const char *key, const char *rel, const char *what);
/* 1 when the scenario's app kind has `flag` (FL_APP_*). */
int fl_app_has(const fl_scenario *sc, unsigned flag);

/* The [app] keys a bulk-synchronous job reads (bsp's core_keys; a kind like it says the same). */
#define FL_APP_RANKS_CORE_KEYS "nodes spares work flops comm_fraction checkpoint_size"
/* The built-in kinds, which several engines run (the simulator's own kinds register themselves: FL_SIM_APPS), in the
 * order `keys` lists them: one line each; CMake compiles every .c of apps/. */
#define FL_APPS(X)                                                                                                     \
  X(bsp)                                                                                                               \
  X(cg)                                                                                                                \
  X(lossy_cg)                                                                                                          \
  X(gridworld)                                                                                                         \
  X(workflow)                                                                                                          \
  X(workload)                                                                                                          \
  /* one line per entry, above this one */
#define X(name) extern const fl_app fl_app_##name;
FL_APPS(X)
#undef X

#endif
