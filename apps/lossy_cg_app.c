/* lossy_cg_app.c — the lossy-CG app: its [recovery] keys, their parse, and its registry entry (see lossy_cg_keys.h). */
#include "app.h"
#include "lossy_cg_keys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_OFF(field) offsetof(fl_lossy_opts, field)
static const fl_key fl_lossy_key_table[] = {
    {"recovery", "mode", FL_K_STR, FL_OFF(mode), 0, "global", NULL,
     "lossy-cg: global | local | improved recovery of a lost rank's data (a blank-separated list sweeps them)"},
    {"recovery", "codec", FL_K_STR, FL_OFF(codec), 0, "none", NULL,
     "lossy-cg: checkpoint codec none | zero | multigrid | zfp | zfp-adaptive, or a list of NAME[:TOL] terms to "
     "sweep"},
    {"recovery", "tolerance", FL_K_REAL, FL_OFF(tol), FL_K_POS, "1e-3", NULL,
     "lossy-cg: zfp's absolute pointwise bound, or zfp-adaptive's factor tol in eb = ||r||/||b|| * tol"},
    {"recovery", "levels", FL_K_COUNT, FL_OFF(levels), FL_K_POS, "2", NULL,
     "lossy-cg: multigrid coarsening levels (1-3)"},
    {"recovery", "interval", FL_K_COUNT, FL_OFF(interval), 0, "0", NULL,
     "lossy-cg: checkpoint every this many iterations (0: mpi.checkpoint_every)"},
    {"recovery", "lose", FL_K_STR, FL_OFF(lose), FL_K_OPTIONAL, "", NULL,
     "lossy-cg: injected data losses, blank-separated ROLE@ITER: that role's vectors and memory are wiped after "
     "ITER iterations (the process lives)"},
    {"recovery", "sweep_roles", FL_K_STR, FL_OFF(sweep_roles), FL_K_OPTIONAL, "", NULL,
     "lossy-cg study: roles that lose their data, one run each (with sweep_at)"},
    {"recovery", "sweep_at", FL_K_STR, FL_OFF(sweep_at), FL_K_OPTIONAL, "", NULL,
     "lossy-cg study: loss iterations as fractions of the failure-free count (e.g. 0.09 0.35 0.65 0.95); with "
     "sweep_roles, one run per mode x codec x role x fraction, after a failure-free run per codec"},
    {"recovery", "repeat", FL_K_COUNT, FL_OFF(repeat), FL_K_POS, "1", NULL,
     "lossy-cg study: failure-free solves per codec (timings: the best is kept), plus as many without checkpoints"},
};
#undef FL_OFF

/* [recovery] given to another app would be ignored without a word (before this app had its own kind, the section
 * turned `cg` into this study): refused, naming the key. */
static fl_err fl_lossy_keys_check(const fl_scenario *sc, const void *opts)
{
  (void)opts;
  if (fl_app_find(sc->app) == &fl_app_lossy_cg)
    return FL_OK;
  for (size_t i = 0; i < sizeof fl_lossy_key_table / sizeof fl_lossy_key_table[0]; i++)
    if (fl_scenario_given(sc, "recovery", fl_lossy_key_table[i].key))
      return fl_scenario_fail(sc, "recovery", fl_lossy_key_table[i].key,
                              "[recovery] belongs to the lossy-CG study: set app.kind = lossy-cg (app.kind = %s "
                              "does not read it)",
                              sc->app);
  return FL_OK;
}

const fl_keyset fl_lossy_keys = {"app lossy-cg", sizeof(fl_lossy_opts), fl_lossy_key_table,
                                 FL_KEYS_N(fl_lossy_key_table), fl_lossy_keys_check};

const fl_lossy_opts *fl_lossy_options(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_lossy_keys);
}

const char *fl_lossy_mode_name(int mode)
{
  static const char *const names[] = {"global", "local", "improved"};
  return mode >= 0 && mode < 3 ? names[mode] : "?";
}

/* One codec term NAME[:TOL]: 0, or -1 (unknown name, bad tolerance). */
static int fl_lossy_codec_parse(const char *tok, double def_tol, long levels, fl_lossy_codec *c)
{
  static const char *const known[] = {"none", "zero", "multigrid", "zfp", "zfp-adaptive", NULL};
  const char *colon = strchr(tok, ':');
  size_t n = colon ? (size_t)(colon - tok) : strlen(tok);
  char *end = NULL;
  int ok = 0;
  if (n == 0 || n >= sizeof c->name)
    return -1;
  memcpy(c->name, tok, n);
  c->name[n] = '\0';
  for (int i = 0; known[i]; i++)
    ok |= strcmp(c->name, known[i]) == 0;
  if (!ok)
    return -1;
  c->tol = def_tol;
  if (colon) {
    c->tol = strtod(colon + 1, &end);
    if (end == colon + 1 || *end || !(c->tol > 0))
      return -2;
  }
  {
    char name[sizeof c->name]; /* a copy: the label and the name share *c */
    memcpy(name, c->name, sizeof name);
    if (strncmp(name, "zfp", 3) == 0)
      snprintf(c->label, sizeof c->label, "%s:%g", name, c->tol);
    else if (strcmp(name, "multigrid") == 0)
      snprintf(c->label, sizeof c->label, "multigrid:%ld", levels);
    else
      snprintf(c->label, sizeof c->label, "%s", name);
  }
  return 0;
}

fl_err fl_lossy_plan_make(const fl_scenario *sc, fl_lossy_plan *pl)
{
  const fl_lossy_opts *o = fl_lossy_options(sc);
  char buf[1024], *save = NULL, *tok;
  memset(pl, 0, sizeof *pl);
  pl->interval = o->interval > 0 ? o->interval : sc->checkpoint_every;
  snprintf(buf, sizeof buf, "%s", o->mode ? o->mode : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    int m = -1;
    for (int k = 0; k < 3; k++)
      if (strcmp(tok, fl_lossy_mode_name(k)) == 0)
        m = k;
    if (m < 0 || pl->nmodes >= 3)
      return fl_scenario_fail(sc, "recovery", "mode", "expected global, local or improved (a list sweeps them)");
    pl->modes[pl->nmodes++] = m;
  }
  if (pl->nmodes == 0)
    return fl_scenario_fail(sc, "recovery", "mode", "expected global, local or improved");
  snprintf(buf, sizeof buf, "%s", o->codec ? o->codec : "none");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    int prc = pl->ncodecs < FL_LOSSY_MAX ? fl_lossy_codec_parse(tok, o->tol, o->levels, &pl->codecs[pl->ncodecs]) : -1;
    if (prc == -2)
      return fl_scenario_fail(sc, "recovery", "codec", "'%s': the tolerance after ':' must be a number > 0", tok);
    if (prc != 0)
      return fl_scenario_fail(sc, "recovery", "codec",
                              "'%s': expected none, zero, multigrid, zfp or zfp-adaptive, optionally NAME:TOL", tok);
    pl->ncodecs++;
  }
  if (o->levels < 1 || o->levels > 3)
    return fl_scenario_fail(sc, "recovery", "levels", "multigrid levels are 1 to 3");
  snprintf(buf, sizeof buf, "%s", o->lose ? o->lose : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@'), *end = NULL;
    if (!at || at == tok || at[1] == '\0' || pl->nlose >= FL_LOSSY_MAX)
      return fl_scenario_fail(sc, "recovery", "lose", "expected blank-separated ROLE@ITER terms, e.g. 1@40");
    *at = '\0';
    pl->lose_role[pl->nlose] = strtol(tok, &end, 10);
    if (*end || pl->lose_role[pl->nlose] < 0)
      return fl_scenario_fail(sc, "recovery", "lose", "expected blank-separated ROLE@ITER terms, e.g. 1@40");
    pl->lose_iter[pl->nlose] = strtol(at + 1, &end, 10);
    if (*end || pl->lose_iter[pl->nlose] < 0)
      return fl_scenario_fail(sc, "recovery", "lose", "expected blank-separated ROLE@ITER terms, e.g. 1@40");
    pl->nlose++;
  }
  snprintf(buf, sizeof buf, "%s", o->sweep_roles ? o->sweep_roles : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *end = NULL;
    if (pl->nroles >= FL_LOSSY_MAX || (pl->roles[pl->nroles] = strtol(tok, &end, 10)) < 0 || *end)
      return fl_scenario_fail(sc, "recovery", "sweep_roles", "expected blank-separated roles, e.g. 0 1 3");
    pl->nroles++;
  }
  snprintf(buf, sizeof buf, "%s", o->sweep_at ? o->sweep_at : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *end = NULL;
    if (pl->nat >= FL_LOSSY_MAX || !((pl->at[pl->nat] = strtod(tok, &end)) > 0) || *end || pl->at[pl->nat] >= 1)
      return fl_scenario_fail(sc, "recovery", "sweep_at",
                              "expected fractions of the failure-free iteration count in (0, 1), e.g. 0.35");
    pl->nat++;
  }
  if ((pl->nroles > 0) != (pl->nat > 0))
    return fl_scenario_fail(sc, "recovery", pl->nat ? "sweep_roles" : "sweep_at",
                            "sweep_roles and sweep_at go together");
  if (sc->time_scale > 0)
    return fl_scenario_fail(sc, "mpi", "time_scale", "the lossy-CG study takes explicit failures only (mpi.kill)");
  return FL_OK;
}

static fl_err fl_lossy_check(const fl_scenario *sc)
{
  fl_lossy_plan pl;
  return fl_lossy_plan_make(sc, &pl);
}

/* The real engine: its own compressed copies in the partner's memory: buddy, or none (no checkpoint), whole ranks
 * only. */
static void fl_lossy_real_caps(const fl_scenario *sc, fl_engine_caps *caps)
{
  (void)sc;
  caps->name = "real (lossy-cg: compressed buddy checkpoints)";
  caps->levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY);
  caps->max_degree = 1;
}

/* Real deaths (`kills` given outside the file, or mpi.kill) need a single solve: no sweep of modes, codecs or
 * losses. */
static fl_err fl_lossy_real_kills(const fl_scenario *sc, int kills)
{
  fl_lossy_plan pl;
  fl_err rc = fl_lossy_plan_make(sc, &pl);
  if (rc != FL_OK)
    return rc;
  if ((kills > 0 || sc->kill) && (pl.nat > 0 || pl.nmodes * pl.ncodecs > 1))
    return fl_scenario_fail(sc, "recovery", pl.nat ? "sweep_at" : "mode",
                            "real process deaths (mpi.kill, --kill) need a single mode and codec, no sweep");
  return FL_OK;
}

/* No checkpoint: a lost rank's data can only start again from zero, which is the codec `zero`. */
static fl_err fl_lossy_real_check(const fl_scenario *sc, const fl_strategy_run *run)
{
  fl_lossy_plan pl;
  fl_err rc;
  if (run->levels)
    return FL_OK;
  if ((rc = fl_lossy_plan_make(sc, &pl)) != FL_OK)
    return rc;
  for (int a = 0; a < pl.ncodecs; a++)
    if (strcmp(pl.codecs[a].name, "zero") != 0)
      return fl_scenario_fail(sc, "recovery", "codec",
                              "strategy %s writes no checkpoint, so there is nothing to compress: codec zero (the "
                              "lost data starts again from 0), or strategy.kind = buddy",
                              run->ops->name);
  return FL_OK;
}

const fl_app fl_app_lossy_cg = {
    .name = "lossy-cg",
    .summary = "the seed's CG with compressed buddy checkpoints and global / local / improved recovery of a lost "
               "rank's data, a study per mpirun (exec/mpi_inmem/apps/lossy_cg.c, [recovery])",
    .flags = FL_APP_REAL | FL_APP_REAL_SQUARE | FL_APP_REAL_STUDY,
    .size_key = "grid",
    .unit = "ranks",
    .example = "[app]\nkind = lossy-cg\ngrid = 32x32\niterations = 200\n[strategy]\nkind = buddy\n[mpi]\n"
               "checkpoint_every = 5\n[recovery]\nmode = local\ncodec = multigrid\nlose = 1@40\n",
    .check = fl_lossy_check,
    .options = &fl_lossy_keys,
    .real_caps = fl_lossy_real_caps,
    .real_check = fl_lossy_real_check,
    .real_kills = fl_lossy_real_kills,
    .core_keys = "grid iterations tolerance",
};
