/* registry.c — the strategy registry and the decisions every strategy shares: set-up against an engine's
 * capabilities (refusal with the reason), the interval rule re-evaluated as costs are measured, the level of the
 * k-th checkpoint, and the row fields. A strategy file fills an ops table; this file dispatches to it. */
#include "interval.h"
#include "strategy.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- the keys the checkpointing strategies share ---- */

static const char *const fl_verify_choices[] = {"none", "checkpoint", NULL};
static const char *const fl_flush_choices[] = {"sync", "async", NULL};

static const fl_key fl_strat_common_table[] = {
    {"strategy", "file_cost", FL_K_DURATION, offsetof(fl_strat_common_opts, file_cost_s), FL_K_NONNEG, "5min", NULL,
     "two-level: time to write a file-level checkpoint (the simulator's; the real engine measures it)"},
    {"strategy", "flush", FL_K_ENUM_INT, offsetof(fl_strat_common_opts, flush_async), 0, "sync", fl_flush_choices,
     "multilevel: sync = the job waits while a file-level checkpoint is written; async = it writes the level below "
     "and goes on computing while that copy drains to the PFS (VeloC), slowed by the flush's interference; the "
     "file level holds the checkpoint once the flush is done"},
    {"strategy", "flush_slowdown", FL_K_REAL, offsetof(fl_strat_common_opts, flush_slowdown), FL_K_NONNEG, "0", NULL,
     "async flush with constant costs: the fraction by which compute slows while a flush drains (with platform "
     "costs it is simulated from app.comm_fraction)"},
    {"strategy", "verify", FL_K_ENUM_INT, offsetof(fl_strat_common_opts, verify), 0, "none", fl_verify_choices,
     "checkpoint: verify the state before each checkpoint (a detector of cost verify_cost and recall "
     "verify_recall; replication compares the copies, triplication votes); none: trust it"},
    {"strategy", "verify_cost", FL_K_DURATION, offsetof(fl_strat_common_opts, verify_cost_s), FL_K_NONNEG, "0s", NULL,
     "time of one verification V (checksums, ABFT, a comparison of replicas)"},
    {"strategy", "verify_recall", FL_K_REAL, offsetof(fl_strat_common_opts, verify_recall), FL_K_NONNEG, "1", NULL,
     "probability that a verification catches a corrupted state (at most 1; replication: 1)"},
};

static fl_err fl_strat_common_check(const fl_scenario *sc, const void *opts)
{
  const fl_strat_common_opts *o = opts;
  if (!fl_interval_rule_find(sc->interval_rule)) { /* core parses the word; the rules are this layer's */
    char known[160];
    fl_interval_rule_names(known, sizeof known);
    return fl_scenario_fail(sc, "strategy", "interval", "unknown rule '%s' (expected %s)", sc->interval_rule, known);
  }
  if (!(o->flush_slowdown < 10.0))
    return fl_scenario_fail(sc, "strategy", "flush_slowdown",
                            "must be below 10 (a fraction: 0.2 = compute 20 %% slower while a flush drains)");
  if (!(o->verify_recall <= 1.0))
    return fl_scenario_fail(sc, "strategy", "verify_recall", "is a probability: at most 1");
  return FL_OK;
}

const fl_keyset fl_strat_common_keys = {"the checkpointing strategies", sizeof(fl_strat_common_opts),
                                        fl_strat_common_table, FL_KEYS_N(fl_strat_common_table), fl_strat_common_check};

const fl_strat_common_opts *fl_strat_common(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_strat_common_keys);
}

/* The registry, in the order `faultline keys` lists it: one line per strategy, whose NAME.c defines
 * fl_strategy_NAME (CMake compiles every .c of this folder). */
#define FL_STRATEGY_LIST                                                                                               \
  X(none)                                                                                                              \
  X(checkpoint)                                                                                                        \
  X(buddy)                                                                                                             \
  X(two_level)                                                                                                         \
  X(multilevel)                                                                                                        \
  X(replication)                                                                                                       \
  X(substitution)                                                                                                      \
  X(hybrid)                                                                                                            \
  /* one line per entry, above this one */

#define X(name) extern const fl_strategy_ops fl_strategy_##name;
FL_STRATEGY_LIST
#undef X
static const fl_strategy_ops *const fl_strategies[] = {
#define X(name) &fl_strategy_##name,
    FL_STRATEGY_LIST
#undef X
};
#define FL_NSTRAT ((int)(sizeof fl_strategies / sizeof fl_strategies[0]))

int fl_strat_count(void)
{
  return FL_NSTRAT;
}

const fl_strategy_ops *fl_strat_at(int i)
{
  return i >= 0 && i < FL_NSTRAT ? fl_strategies[i] : NULL;
}

const fl_strategy_ops *fl_strat_find(const char *name)
{
  for (int i = 0; name && i < FL_NSTRAT; i++)
    if (strcmp(fl_strategies[i]->name, name) == 0)
      return fl_strategies[i];
  return NULL;
}

const char *fl_level_name(fl_level l)
{
  switch (l) {
  case FL_LEVEL_SCRATCH: return "scratch";
  case FL_LEVEL_BUDDY: return "buddy";
  case FL_LEVEL_FILE: return "file";
  case FL_LEVEL_LOCAL: return "local";
  case FL_LEVEL_XOR: return "xor";
  default: return "?";
  }
}

int fl_level_rank(fl_level l)
{
  switch (l) {
  case FL_LEVEL_LOCAL: return 1;
  case FL_LEVEL_BUDDY: return 2;
  case FL_LEVEL_XOR: return 3;
  case FL_LEVEL_FILE: return 4;
  default: return 0;
  }
}

const char *fl_shape_name(fl_shape s)
{
  return s == FL_SHAPE_TASKS ? "tasks" : "ranks";
}

static long fl_level_count(unsigned levels)
{
  long n = 0;
  for (int l = 1; l < FL_NLEVELS; l++)
    n += (levels & FL_LEVEL_BIT(l)) != 0;
  return n;
}

/* A run of `ops` before its setup: one level, no replication, the scenario's rule and costs, nothing decided. */
static void fl_strat_init(fl_strategy_run *run, const fl_strategy_ops *ops, const fl_engine_caps *caps,
                          const fl_scenario *sc)
{
  memset(run, 0, sizeof *run);
  run->ops = ops;
  run->caps = caps;
  run->degree = 1;
  run->file_every = 1;
  run->rule = fl_interval_rule_find(sc->interval_rule);
  if (!run->rule) /* (fl_strat_common_check refused it, when the scenario was checked) */
    run->rule = &fl_interval_rule_daly;
  run->fixed_s = sc->interval_s;
  run->mtbf_s = INFINITY;
  run->tau_s = INFINITY;
  for (int l = 0; l < FL_NLEVELS; l++) {
    run->delta_s[l] = sc->checkpoint_cost_s;
    run->writes[l] = FL_LEVEL_BIT(l);
  }
  run->opts = ops->options ? fl_scenario_options(sc, ops->options) : NULL;
  run->budget = INFINITY;
  fl_strat_decisions_reset(run);
  run->async_file_s = NAN;
  run->verify = fl_strat_common(sc)->verify;
  run->verify_s = run->verify ? fl_strat_common(sc)->verify_cost_s : 0.0;
  run->sdc_mtbf_s = INFINITY;
}

/* "a, b and c" of the strategies that this engine can run for this scenario: the shape, and the levels and copies
 * each one's setup asks for (a strategy the engine refuses is never offered as one it runs). */
static void fl_strat_runnable(const fl_scenario *sc, const fl_engine_caps *caps, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NSTRAT; i++) {
    const fl_strategy_ops *ops = fl_strategies[i];
    fl_strategy_run probe;
    if (!(ops->shapes & (unsigned)caps->shape))
      continue;
    fl_strat_init(&probe, ops, caps, sc);
    fl_err prc = ops->setup(&probe, sc);
    probe.opts = NULL;
    if (prc != FL_OK || (probe.levels & ~caps->levels) || probe.degree > caps->max_degree)
      continue;
    strncat(buf, buf[0] ? ", " : "", size - strlen(buf) - 1);
    strncat(buf, ops->name, size - strlen(buf) - 1);
  }
}

fl_err fl_strat_setup(const fl_scenario *sc, const fl_engine_caps *caps, fl_strategy_run *run)
{
  const fl_strategy_ops *ops = fl_strat_find(sc->strategy);
  char known[256];
  if (ops)
    return fl_strat_setup_as(ops, sc, caps, run);
  memset(run, 0, sizeof *run);
  fl_strat_runnable(sc, caps, known, sizeof known);
  return fl_scenario_fail(sc, "strategy", "kind", "unknown strategy '%s' for app %s (known: %s)", sc->strategy, sc->app,
                          known);
}

fl_err fl_strat_setup_as(const fl_strategy_ops *ops, const fl_scenario *sc, const fl_engine_caps *caps,
                         fl_strategy_run *run)
{
  char known[256];
  fl_err rc;

  memset(run, 0, sizeof *run);
  fl_strat_runnable(sc, caps, known, sizeof known);
  if (!(ops->shapes & (unsigned)caps->shape))
    return fl_scenario_fail(sc, "strategy", "kind",
                            "strategy '%s' cannot drive app %s as the %s engine runs it (%s; strategies for it: %s)",
                            ops->name, sc->app, caps->name,
                            caps->shape == FL_SHAPE_TASKS ? "tasks, re-executed or substituted when they fail"
                                                          : "ranks that own state",
                            known);
  if (!fl_interval_rule_find(sc->interval_rule))
    return fl_strat_common_check(sc, fl_strat_common(sc)); /* (says which rules there are) */
  fl_strat_init(run, ops, caps, sc);
  rc = ops->setup(run, sc);
  run->opts = NULL; /* the scenario's: what the strategy keeps, it copied */
  if (rc != FL_OK)
    return rc;
  if (run->levels & ~caps->levels) {
    char need[64] = "";
    for (int l = 1; l < FL_NLEVELS; l++)
      if ((run->levels & FL_LEVEL_BIT(l)) && !(caps->levels & FL_LEVEL_BIT(l)))
        snprintf(need + strlen(need), sizeof need - strlen(need), "%s%s", need[0] ? ", " : "", fl_level_name(l));
    return fl_scenario_fail(sc, "strategy", "kind", "the %s engine cannot write %s checkpoints, which '%s' needs",
                            caps->name, need, ops->name);
  }
  if (run->degree > caps->max_degree)
    return fl_scenario_fail(
        sc, "strategy", "kind", "the %s engine cannot run %ld copies of a rank, which '%s' needs%s%s", caps->name,
        run->degree, ops->name, caps->why_no_replicas ? ": " : "", caps->why_no_replicas ? caps->why_no_replicas : "");
  if (caps->shape == FL_SHAPE_TASKS && !caps->task_recovery)
    return fl_scenario_fail(sc, "strategy", "kind", "the %s engine cannot re-execute or substitute tasks", caps->name);
  if (fl_level_count(run->levels) > 1 && run->file_every < 1)
    return fl_scenario_fail(sc, "strategy", "file_every", "must be at least 1");
  if (run->levels && (fl_interval_rule_needs(run->rule) & ~caps->intervals)) {
    char can[160];
    fl_interval_rule_names_for(caps->intervals, can, sizeof can);
    return fl_scenario_fail(sc, "strategy", "interval",
                            "the %s engine cannot honour %s, which strategy '%s' would checkpoint by: it needs %s "
                            "(this engine takes %s)",
                            caps->name, run->rule->name, ops->name,
                            fl_interval_rule_need_words(fl_interval_rule_needs(run->rule) & ~caps->intervals), can);
  }
  if (run->rule->plans_levels && fl_level_count(run->levels) > 1 && ops != &fl_strategy_multilevel)
    return fl_scenario_fail(sc, "strategy", "interval",
                            "multilevel plans the periods of strategy.kind = multilevel, not of '%s' (whose file "
                            "level comes every strategy.file_every); use young or daly",
                            ops->name);
  return FL_OK;
}

fl_level fl_strat_primary(const fl_strategy_run *run)
{
  static const fl_level cheapest_first[] = {FL_LEVEL_LOCAL, FL_LEVEL_BUDDY, FL_LEVEL_XOR};
  for (size_t i = 0; i < sizeof cheapest_first / sizeof cheapest_first[0]; i++)
    if (run->levels & FL_LEVEL_BIT(cheapest_first[i]))
      return cheapest_first[i];
  return FL_LEVEL_FILE;
}

double fl_strat_next_interval(const fl_strategy_run *run, fl_irule_step *step)
{
  if (!run->levels || !run->rule->next)
    return run->tau_s;
  step->tau_s = run->tau_s;
  step->delta_s = run->delta_s[fl_strat_primary(run)];
  return run->rule->next(step);
}

void fl_strat_set_rates(fl_strategy_run *run, const fl_strat_rates *rates)
{
  run->rates = *rates;
}

/* strategy.interval = multilevel: tau and, for LEVEL:auto, the periods (fl_pol_interval_levels). Each failure is
 * priced at the cheapest level that recovers it: a crash at the lowest level; a node loss at the lowest level
 * that survives one (buddy, xor or file); at the file level, the second loss that defeats that level within its
 * period — the partner (rate node x period / node MTBF) or another member of the XOR set (x (set size - 1)),
 * which depends on the period: a fixed point, found in a few rounds — and group failures that take partners.
 * Failures no level recovers restart from scratch whatever the periods: they are left out. Returns 0 when no
 * failure reaches any level (no finite tau). */
static int fl_strat_plan_levels(fl_strategy_run *run)
{
  static const fl_level order[] = {FL_LEVEL_LOCAL, FL_LEVEL_BUDDY, FL_LEVEL_XOR, FL_LEVEL_FILE};
  fl_level lv[FL_POL_MAX_LEVELS];
  fl_pol_levels p;
  int n = 0, m = -1, ok = 0;
  double dbl = 0.0, others;

  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (run->levels & FL_LEVEL_BIT(order[i]))
      lv[n++] = order[i];
  for (int i = n - 1; i >= 0; i--)
    if (lv[i] != FL_LEVEL_LOCAL)
      m = i; /* the lowest level that survives a node loss */
  others = m >= 0 && lv[m] == FL_LEVEL_XOR ? (double)(run->xor_group - 1) : 1.0;
  for (int round = 0; round < 20; round++) {
    double prev_tau = round ? p.tau_s : NAN;
    long prev_top = round ? p.every[n - 1] : 0;
    int split = m >= 0 && m < n - 1 && lv[n - 1] == FL_LEVEL_FILE;
    memset(&p, 0, sizeof p);
    p.n = n;
    for (int i = 0; i < n; i++) {
      p.cost_s[i] = lv[i] == FL_LEVEL_FILE && isfinite(run->async_file_s) ? run->async_file_s : run->delta_s[lv[i]];
      p.every[i] = run->auto_every ? 0 : run->every[lv[i]];
    }
    p.rate[0] += run->rates.crash;
    if (m >= 0)
      p.rate[m] += run->rates.node;
    if (split) {
      p.rate[m] -= fmin(dbl, p.rate[m]);
      p.rate[n - 1] += dbl + run->rates.group;
    }
    fl_pol_interval_levels(&p);
    if (!isfinite(p.tau_s))
      break;
    ok = 1;
    if (!split || !(run->rates.node_mtbf_s > 0))
      break;
    if (round && fabs(p.tau_s - prev_tau) <= 1e-9 * p.tau_s && p.every[n - 1] == prev_top)
      break;
    /* a second loss within the level's period, of the partner or of another member of the set */
    dbl = run->rates.node * others * (p.tau_s + run->delta_s[lv[m]]) * (double)p.every[m] / run->rates.node_mtbf_s;
  }
  if (!ok)
    return 0;
  run->tau_s = p.tau_s;
  for (int i = 0; i < n; i++)
    run->every[lv[i]] = p.every[i];
  snprintf(run->pattern, sizeof run->pattern, "multilevel");
  for (int i = 0; i < n; i++)
    snprintf(run->pattern + strlen(run->pattern), sizeof run->pattern - strlen(run->pattern), " %s:%ld",
             fl_level_name(lv[i]), p.every[i]);
  return 1;
}

void fl_strat_set_sdc(fl_strategy_run *run, double job_sdc_mtbf_s)
{
  run->sdc_mtbf_s = job_sdc_mtbf_s;
}

/* Young/Daly with silent errors to catch: the first-order period of both kinds (interval.h). */
static int fl_strat_silent_rule(fl_strategy_run *run)
{
  if (!run->verify || !isfinite(run->sdc_mtbf_s) || !run->rule->silent)
    return 0;
  run->tau_s = fl_pol_interval_silent(run->delta_s[fl_strat_primary(run)], run->verify_s, run->mtbf_s, run->sdc_mtbf_s);
  if (!(run->tau_s > 0))
    run->tau_s = 0.0;
  return 1;
}

fl_err fl_strat_set_mtbf(const fl_scenario *sc, fl_strategy_run *run, double job_mtbf_s)
{
  run->mtbf_s = job_mtbf_s;
  if (!run->levels) {
    run->tau_s = INFINITY;
    return FL_OK;
  }
  if (fl_strat_silent_rule(run))
    return FL_OK;
  if (run->rule->plans_levels && fl_level_count(run->levels) > 1) {
    if (!fl_strat_plan_levels(run))
      return fl_scenario_fail(sc, "strategy", "interval",
                              "multilevel needs failures that some level recovers, but failures.model = '%s' gives "
                              "none; give a duration and the periods",
                              sc->model);
    return FL_OK;
  }
  if (run->rule->by_mtbf && !(isfinite(job_mtbf_s) && job_mtbf_s > 0))
    return fl_scenario_fail(sc, "strategy", "interval",
                            "%s needs a finite MTBF, but failures.model = '%s' gives none; give a duration",
                            run->rule->name, sc->model);
  /* the scenario's cost until the engine measures one (fl_strat_observe) */
  run->tau_s = run->rule->tau(sc->checkpoint_cost_s, job_mtbf_s, run->fixed_s);
  if (!(run->tau_s > 0))
    return fl_scenario_fail(sc, "strategy", "checkpoint_cost",
                            "the %s interval is %g s for this cost and an MTBF of %g s; give a positive cost or a "
                            "duration",
                            run->rule->name, run->tau_s, job_mtbf_s);
  return FL_OK;
}

void fl_strat_observe(fl_strategy_run *run, fl_level level, double delta_s)
{
  if (level <= FL_LEVEL_SCRATCH || level >= FL_NLEVELS || !(delta_s >= 0))
    return;
  run->delta_s[level] = delta_s;
  if (level == fl_strat_primary(run) && fl_strat_silent_rule(run))
    return;
  if (level != fl_strat_primary(run) || !isfinite(run->mtbf_s) || !(run->mtbf_s > 0))
    return;
  if (run->rule->plans_levels && fl_level_count(run->levels) > 1) {
    fl_strat_plan_levels(run); /* all the levels' costs, as the engine measured them */
    return;
  }
  if (run->rule->by_mtbf)
    run->tau_s = run->rule->tau(delta_s, run->mtbf_s, run->fixed_s);
  if (!(run->tau_s > 0)) /* a free checkpoint: as often as the engine can */
    run->tau_s = 0.0;
}

double fl_strat_interval(const fl_strategy_run *run)
{
  return run->levels ? run->tau_s : INFINITY;
}

fl_level fl_strat_level(const fl_strategy_run *run, long k)
{
  if (!run->levels)
    return FL_LEVEL_SCRATCH;
  if (run->ops->level)
    return run->ops->level(run, k);
  return fl_strat_primary(run);
}

fl_level fl_strat_next_level(fl_strategy_run *run)
{
  return fl_strat_level(run, ++run->checkpoints);
}

fl_recovery fl_strat_rollback_newest(const fl_strategy_run *run, const fl_failure_view *f)
{
  fl_recovery r = {.action = FL_ACT_RESTART, .level = FL_LEVEL_SCRATCH, .version = -1};
  /* the surviving levels, cheapest first: the newest version wins, a tie goes to the cheaper read */
  const struct {
    fl_level level;
    int usable;
    long version;
  } cand[] = {
      {FL_LEVEL_LOCAL, f->local_intact && !f->reshaped, f->local_version},
      {FL_LEVEL_BUDDY, f->buddy_intact && !f->reshaped, f->buddy_version},
      {FL_LEVEL_XOR, f->xor_intact && !f->reshaped, f->xor_version},
      {FL_LEVEL_FILE, 1, f->file_version},
  };
  for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
    if ((run->levels & FL_LEVEL_BIT(cand[i].level)) && cand[i].usable && cand[i].version >= 0 &&
        cand[i].version > r.version) {
      r.action = FL_ACT_ROLLBACK;
      r.level = cand[i].level;
      r.version = cand[i].version;
    }
  return r;
}

fl_recovery fl_strat_on_failure(const fl_strategy_run *run, const fl_failure_view *f)
{
  if (run->ops->on_failure)
    return run->ops->on_failure(run, f);
  return fl_strat_rollback_newest(run, f);
}

fl_err fl_strat_decide_tasks(fl_strategy_run *run, long nfailed, double *weight, unsigned char *substitute)
{
  if (!run->ops->decide_tasks) {
    memset(substitute, 0, (size_t)(nfailed > 0 ? nfailed : 0));
    return FL_OK;
  }
  return run->ops->decide_tasks(run, nfailed, weight, substitute);
}

fl_err fl_strat_decide_graph(fl_strategy_run *run, const fl_pol_full *full, long nfailed, double *weight,
                             unsigned char *substitute, long *substitute_by, int *have_z)
{
  *have_z = 0;
  if (run->ops->decide_graph)
    return run->ops->decide_graph(run, full, nfailed, weight, substitute, substitute_by, have_z);
  return fl_strat_decide_tasks(run, nfailed, weight, substitute);
}

int fl_strat_reads(const fl_strategy_run *run, const char *k)
{
  for (const fl_strategy_key *key = run->ops->keys; key && key->key; key++)
    if (strcmp(key->key, k) == 0 && (key->shapes == 0 || (key->shapes & (unsigned)run->caps->shape)))
      return 1;
  return 0;
}

void fl_strat_set_budget(fl_strategy_run *run, double budget)
{
  run->budget = budget;
}

void fl_strat_decisions_reset(fl_strategy_run *run)
{
  run->decided = (fl_strat_decisions){.solver = NULL, .worst_gap = NAN};
}

int fl_strat_weights_empirical(const fl_strategy_run *run)
{
  return run->weights_empirical;
}

void fl_strat_row(const fl_strategy_run *run, const fl_scenario *sc, fl_strategy_row *row)
{
  memset(row, 0, sizeof *row);
  row->strategy = run->ops->name;
  row->interval_rule = run->levels && isfinite(run->tau_s) ? (run->pattern[0] ? run->pattern : run->rule->name) : NULL;
  const fl_pol_opts *po = fl_scenario_options(sc, &fl_pol_keys);
  row->policy = fl_strat_reads(run, "policy.kind") ? po->kind : NULL;
  row->weights = fl_strat_reads(run, "policy.weights") ? (po->weights_empirical ? "empirical" : "bound") : NULL;
  row->error_budget = row->policy ? po->error_budget : NAN;
}
