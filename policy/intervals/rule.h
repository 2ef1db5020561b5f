/* rule.h — checkpoint interval rules (strategy.interval) as a registry: one file per rule in this folder, each
 * defining `const fl_interval_rule fl_interval_rule_NAME`, listed once in FL_INTERVAL_RULES below (CMake compiles
 * every .c here). The strategies (policy/strategies) ask a rule for the compute between two checkpoints; engines
 * ask the strategy (fl_strat_interval), never the rule.
 *
 * A rule that needs something only some engines give — the job's current failure hazard (hazard), every level's
 * failure rates (multilevel) — says so in `needs`; an engine lists in its fl_engine_caps.intervals what it gives,
 * and fl_strat_setup refuses a rule whose needs it lacks, naming the engine, the rule and the strategy: no engine
 * runs another interval than the one asked. */
#ifndef FL_INTERVAL_RULE_H
#define FL_INTERVAL_RULE_H

#include <stddef.h>

/* What a rule needs from the engine (fl_engine_caps.intervals: what the engine gives). */
enum {
  FL_IRULE_HAZARD =
      1u, /* the job's expected failures over a horizon, from its nodes' ages (fl_strat_hazard_interval) */
  FL_IRULE_LEVELS = 2u, /* the failure rates each checkpoint level recovers (fl_strat_set_rates), to plan periods */
};

typedef struct fl_interval_rule {
  const char *name; /* as strategy.interval says it; "fixed": the form a duration takes */
  const char *doc;  /* one line, for `faultline keys` */
  unsigned needs;   /* FL_IRULE_*s */
  int none;         /* no checkpoint at all (never): an engine need not prepare any */
  int by_mtbf;      /* the interval follows the checkpoint cost and the job's MTBF: needs a finite MTBF, and is
                     * taken again as the engine measures the cost (fl_strat_observe) */
  int silent;       /* with strategy.verify and silent errors, the first-order period of both kinds replaces it */
  int plans_levels; /* plans the periods of several levels (strategy.kind = multilevel's LEVEL:auto) */
  int coop;         /* the form of cooperative periods (fl_pol_interval_cooperative): 0 none, 1 Young's, 2 Daly's */
  /* Compute between two checkpoints for a checkpoint of delta_s under a job MTBF of mtbf_s (fixed_s: the
   * duration strategy.interval gave). Not positive: a free checkpoint, as often as the engine can. */
  double (*tau)(double delta_s, double mtbf_s, double fixed_s);
} fl_interval_rule;

/* The registry, in the order `keys` lists it. */
#define FL_INTERVAL_RULES(X)                                                                                           \
  X(daly)                                                                                                              \
  X(young)                                                                                                             \
  X(hazard)                                                                                                            \
  X(multilevel)                                                                                                        \
  X(never)                                                                                                             \
  X(fixed)                                                                                                             \
  /* one line per entry, above this one */
#define X(name) extern const fl_interval_rule fl_interval_rule_##name;
FL_INTERVAL_RULES(X)
#undef X

int fl_interval_rule_count(void);
const fl_interval_rule *fl_interval_rule_at(int i);
/* The rule called `name` (a scenario's sc->interval_rule), or NULL. */
const fl_interval_rule *fl_interval_rule_find(const char *name);
/* Is `name` a rule (1)? Else the names a user may write into buf (0): core's parser asks (fl_scenario_interval_rules).
 */
int fl_interval_rule_known(const char *name, char *buf, size_t size);
/* "daly, young, ..., never or a duration": the names a user may write, for messages. */
void fl_interval_rule_names(char *buf, size_t size);
/* A rule's names that an engine giving `has` (FL_IRULE_*s) can honour, "a, b and c"-style, for refusals. */
void fl_interval_rule_names_for(unsigned has, char *buf, size_t size);

#endif
