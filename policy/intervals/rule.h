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

#include "interval.h"

#include <stddef.h>

/* What a rule needs from the engine (fl_engine_caps.intervals: what the engine gives). */
enum {
  FL_IRULE_HAZARD = 1u, /* the job's expected failures over a horizon, from its nodes' ages (fl_irule_step.expected) */
  FL_IRULE_LEVELS = 2u, /* the failure rates each checkpoint level recovers (fl_strat_set_rates), to plan periods */
  FL_IRULE_EACH = 4u,   /* to be asked before every interval how the run went (fl_strat_next_interval): a rule
                         * with `next` needs it whatever its `needs` say */
};

/* What an engine tells a rule that adapts (rule->next) before each interval. */
typedef struct fl_irule_step {
  double tau_s;   /* the rule's own interval (tau) at the cost and MTBF the engine has measured */
  double delta_s; /* the cost of the checkpoint the rule prices (fl_strat_primary's level) */
  double left_s;  /* compute left in the job (INFINITY: the engine does not know) */
  long clean;     /* intervals completed since the newest failure, or since the start */
  /* FL_IRULE_HAZARD: the job's expected failures in the next horizon_s seconds, from its nodes' ages (NULL where
   * the rule does not need it) */
  fl_pol_expected_failures expected;
  void *ctx;
} fl_irule_step;

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
  /* A rule that adapts as the run goes: the compute until the next checkpoint, asked before every interval
   * (not positive: up to the end of the job). NULL: tau's interval throughout. */
  double (*next)(const fl_irule_step *step);
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
/* What a rule needs from an engine: its needs, and FL_IRULE_EACH when it adapts. */
unsigned fl_interval_rule_needs(const fl_interval_rule *r);
/* What an engine lacking `missing` (FL_IRULE_*s) lacks, in words, for refusals: the first missing need. */
const char *fl_interval_rule_need_words(unsigned missing);
/* A rule's names that an engine giving `has` (FL_IRULE_*s) can honour, "a, b and c"-style, for refusals. */
void fl_interval_rule_names_for(unsigned has, char *buf, size_t size);

#endif
