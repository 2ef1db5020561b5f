/* multilevel.c — multi-level checkpointing as SCR and FTI define it: cheap levels often, expensive ones rarely.
 * strategy.levels = "local:1 buddy:4 file:16" sends every checkpoint to the node's local disk, every 4th to the
 * partner's memory instead, every 16th to the parallel file system instead (each level is written on its own,
 * as SCR does; a level-L checkpoint is the k-th where L is the highest level whose period divides k). A failure
 * restarts from the newest checkpoint that survived it: local copies survive a process crash but not the loss of
 * their node, a partner copy survives unless the partner was lost too, the file level survives everything. Young
 * and Daly price the cheapest level; strategy.interval = multilevel prices every level with the failures it
 * recovers and, for "local:auto buddy:auto file:auto", chooses the periods too (policy/interval.h). */
#include "strategy.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_multilevel_opts {
  char *levels;   /* "LEVEL:EVERY ..." */
  long xor_group; /* ranks per XOR set */
} fl_multilevel_opts;

static fl_err fl_multilevel_check(const fl_scenario *sc, const void *opts)
{
  const fl_multilevel_opts *o = opts;
  if (o->xor_group < 2 || o->xor_group > 1024)
    return fl_scenario_fail(sc, "strategy", "xor_group", "an XOR set holds 2 to 1024 ranks");
  return FL_OK;
}

static const fl_key fl_multilevel_key_table[] = {
    {"strategy", "levels", FL_K_STR, offsetof(fl_multilevel_opts, levels), 0, "local:1 buddy:4 file:16", NULL,
     "multilevel: LEVEL:EVERY terms from the cheapest (local, buddy, file): the k-th checkpoint goes to the highest "
     "level whose EVERY divides k; the first level's EVERY is 1, each a multiple of the previous"},
    {"strategy", "xor_group", FL_K_COUNT, offsetof(fl_multilevel_opts, xor_group), FL_K_POS, "8", NULL,
     "multilevel: ranks per XOR set (SCR's SET_SIZE): a set's parity survives one lost node; sets span cabinets "
     "(rank r with r + cabinet, r + 2 cabinet, ...) so that one cabinet's failure takes one member of each"},
};
static const fl_keyset fl_multilevel_options = {"strategy multilevel", sizeof(fl_multilevel_opts),
                                                fl_multilevel_key_table, FL_KEYS_N(fl_multilevel_key_table),
                                                fl_multilevel_check};

static const fl_strategy_key fl_multilevel_keys[] = {
    FL_STRAT_CKPT_KEYS,
    {"strategy.levels", FL_SHAPE_RANKS,
     "the levels and how often each is used: local:1 buddy:4 file:16, or LEVEL:auto with interval = multilevel"},
    {"strategy.file_cost", FL_SHAPE_RANKS, "the cost of a file-level checkpoint (constant costs)"},
    {"strategy.xor_group", FL_SHAPE_RANKS, "the XOR level's set size: it survives one lost node per set"},
    {"strategy.flush", FL_SHAPE_RANKS, "sync, or async: the file level drains in the background (VeloC)"},
    {"strategy.flush_slowdown", FL_SHAPE_RANKS,
     "async flush, constant costs: compute slows by this fraction meanwhile"},
    {NULL, 0, NULL},
};

static fl_err fl_multilevel_setup(fl_strategy_run *run, const fl_scenario *sc)
{
  char *copy, *save = NULL;
  long prev = 0;
  int prev_level = 0, nauto = 0, ngiven = 0;
  fl_err rc = FL_OK;

  const fl_multilevel_opts *o = fl_scenario_options(sc, &fl_multilevel_options);
  run->levels = 0;
  run->xor_group = o->xor_group;
  run->delta_s[FL_LEVEL_FILE] =
      fl_strat_common(sc)->file_cost_s; /* constant costs: the other levels cost checkpoint_cost */
  copy = malloc(strlen(o->levels) + 1);
  if (!copy)
    return fl_err_set(FL_ERR_NOMEM, "out of memory");
  strcpy(copy, o->levels);
  for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
    char *colon = strchr(t, ':'), *end = NULL;
    fl_level level;
    long every;
    if (!colon) {
      rc = fl_scenario_fail(sc, "strategy", "levels",
                            "'%s': expected LEVEL:EVERY or LEVEL:auto (e.g. local:1 buddy:4 file:16)", t);
      goto done;
    }
    *colon = '\0';
    if (strcmp(t, "local") == 0)
      level = FL_LEVEL_LOCAL;
    else if (strcmp(t, "buddy") == 0 || strcmp(t, "partner") == 0)
      level = FL_LEVEL_BUDDY;
    else if (strcmp(t, "xor") == 0)
      level = FL_LEVEL_XOR;
    else if (strcmp(t, "file") == 0 || strcmp(t, "pfs") == 0)
      level = FL_LEVEL_FILE;
    else {
      rc = fl_scenario_fail(sc, "strategy", "levels", "unknown level '%s' (local, buddy, xor, file)", t);
      goto done;
    }
    errno = 0;
    if (strcmp(colon + 1, "auto") == 0) {
      every = 0; /* chosen by strategy.interval = multilevel */
      nauto++;
    } else {
      every = strtol(colon + 1, &end, 10);
      if (errno || end == colon + 1 || *end || every < 1) {
        rc = fl_scenario_fail(sc, "strategy", "levels", "'%s:%s': the period must be a whole number >= 1 or auto", t,
                              colon + 1);
        goto done;
      }
      ngiven++;
    }
    /* cheapest first, each period a multiple of the previous one */
    if (run->levels & FL_LEVEL_BIT(level)) {
      rc = fl_scenario_fail(sc, "strategy", "levels", "level '%s' is given twice", t);
      goto done;
    }
    if (prev_level && fl_level_rank(level) <= fl_level_rank((fl_level)prev_level)) {
      rc = fl_scenario_fail(sc, "strategy", "levels", "'%s': levels go from the cheapest (local, buddy, xor, file)", t);
      goto done;
    }
    if (nauto && ngiven) {
      rc = fl_scenario_fail(sc, "strategy", "levels",
                            "'%s:%s': give every period or none (LEVEL:auto for all: strategy.interval = multilevel "
                            "chooses them)",
                            t, colon + 1);
      goto done;
    }
    if (nauto && !run->rule->plans_levels) {
      rc = fl_scenario_fail(sc, "strategy", "levels",
                            "'%s:auto': periods are chosen by strategy.interval = multilevel (this one: %s)", t,
                            run->rule->name);
      goto done;
    }
    if (prev_level && every && every % prev != 0) {
      rc = fl_scenario_fail(
          sc, "strategy", "levels",
          "'%s:%ld': levels go from the cheapest (local, buddy, xor, file) and each period is a multiple "
          "of the previous one",
          t, every);
      goto done;
    }
    if (!prev_level && every > 1) {
      rc = fl_scenario_fail(sc, "strategy", "levels", "'%s:%ld': the first level takes every checkpoint (period 1)", t,
                            every);
      goto done;
    }
    run->levels |= FL_LEVEL_BIT(level);
    run->every[level] = every;
    prev = every;
    prev_level = (int)level;
  }
  if (!run->levels)
    rc = fl_scenario_fail(sc, "strategy", "levels", "no level given (e.g. local:1 buddy:4 file:16)");
  else if (nauto == 1 && !(run->levels & (run->levels - 1u))) /* one level: every checkpoint, Young's tau */
    run->every[prev_level] = 1;
  else
    run->auto_every = nauto > 0;
done:
  free(copy);
  return rc;
}

static fl_level fl_multilevel_level(const fl_strategy_run *run, long k)
{
  fl_level best = FL_LEVEL_SCRATCH;
  for (int l = 1; l < FL_NLEVELS; l++)
    if ((run->levels & FL_LEVEL_BIT(l)) && run->every[l] > 0 && k % run->every[l] == 0 &&
        (best == FL_LEVEL_SCRATCH || fl_level_rank((fl_level)l) > fl_level_rank(best)))
      best = (fl_level)l;
  return best;
}

const fl_strategy_ops fl_strategy_multilevel = {
    .name = "multilevel",
    .summary = "SCR/FTI levels: local disk, partner memory, PFS, each every k-th checkpoint; restart from the newest "
               "that survived",
    .keys = fl_multilevel_keys,
    .options = &fl_multilevel_options,
    .shapes = FL_SHAPE_RANKS,
    .setup = fl_multilevel_setup,
    .level = fl_multilevel_level,
};
