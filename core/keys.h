/* keys.h — scenario keys as data: what a key is (section, name, type, default, documentation, where its value is
 * stored), and key sets that plugins declare and own.
 *
 * The run's own keys ([run], [platform], the failure process, the job's size, checkpoint costs, [mpi]) are
 * core's table (scenario.c) and live in struct fl_scenario. A plugin — a strategy, a failure law, an app, a
 * policy — declares its own keys in its own file as an fl_keyset: the keys and the size of a private struct
 * their values are parsed into (PETSc's `XXXSetFromOptions` into `obj->data`). Each scenario holds one such
 * block per registered set, filled with the defaults and then the file and --set values through the same
 * parser, with the same provenance in messages ("file:line: [section] key = 'value': reason"); the plugin reads
 * it back with fl_scenario_options(sc, &its_set) and never grows struct fl_scenario.
 *
 * Sets are registered once, before the first scenario is made (apps/registries.c: fl_registries_init, called by
 * every main); the table is frozen then. A set shared by several plugins (one policy's keys for two strategies)
 * is registered once: registration is by pointer. */
#ifndef FL_KEYS_H
#define FL_KEYS_H

#include "fl_err.h"

#include <stddef.h>

typedef struct fl_scenario fl_scenario;

typedef enum fl_ktype {
  FL_K_STR,      /* non-empty string (char *, owned by the block; NULL when unset and optional) */
  FL_K_ENUM_INT, /* one of choices; stores the index in an int */
  FL_K_SEED,     /* any unsigned 64-bit integer, parsed exactly (uint64_t) */
  FL_K_COUNT,    /* integer in [0, LONG_MAX] stored in a long */
  FL_K_DURATION, /* seconds (double) */
  FL_K_DURATION_NEVER,
  FL_K_SPEED,     /* flop/s */
  FL_K_FLOPS,     /* an amount of computation, flop */
  FL_K_BYTES,     /* bytes */
  FL_K_BANDWIDTH, /* bytes/s */
  FL_K_REAL,      /* plain number */
  FL_K_INTERVAL,  /* core only: young | daly | never | duration */
  FL_K_GRID,      /* ROWSxCOLS into long[2]: rows, cols */
  FL_K_POWER,     /* watts */
  FL_K_WATTAGE,   /* Idle:AllCores or Idle:Epsilon:AllCores watts into a double[3] (SimGrid's wattage_per_state) */
} fl_ktype;

enum { FL_K_POS = 1u, FL_K_NONNEG = 2u, FL_K_OPTIONAL = 4u /* empty text unsets a string */ };

typedef struct fl_key {
  const char *section;
  const char *key;
  fl_ktype type;
  size_t offset; /* of the value in struct fl_scenario (core's keys) or in the set's block (a plugin's) */
  unsigned flags;
  const char *def; /* default, as text a user would write; parsed like the user's */
  const char *const *choices;
  const char *doc;
} fl_key;

typedef struct fl_keyset {
  const char *owner; /* who declares them, as `keys` and the docs show it: "strategy replication" */
  size_t size;       /* bytes of the block the values are parsed into (offsets are into it) */
  const fl_key *keys;
  int nkeys;
  /* Checks across the set's keys and the run's (fl_scenario_check calls it for every set, whether or not its
   * plugin is chosen: a key given to a plugin not chosen is the set's to refuse). NULL: none. */
  fl_err (*check)(const fl_scenario *sc, const void *opts);
} fl_keyset;

#define FL_KEYS_N(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* Register a plugin's set. Before the first scenario only (FL_ERR_INTERNAL after: the table is frozen); the
 * same set twice is one registration; a key that another set or core already declares is FL_ERR_INTERNAL. */
fl_err fl_scenario_register(const fl_keyset *set);
/* strategy.interval's rules are a registry above core (policy/intervals): `known` says whether `name` is one (1),
 * or writes the names a user may give into buf (0). Given by fl_registries_init; until then the parser takes any
 * word, for the strategies' keys' check to refuse. */
typedef int (*fl_interval_known_fn)(const char *name, char *buf, size_t size);
void fl_scenario_interval_rules(fl_interval_known_fn known);
/* The block of `set`'s values in sc (borrowed, lives as long as sc). `set` must be registered: an unregistered
 * set is a bug (a main that did not call fl_registries_init) and aborts with a message. */
const void *fl_scenario_options(const fl_scenario *sc, const fl_keyset *set);

#endif
