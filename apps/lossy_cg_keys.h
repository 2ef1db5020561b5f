/* lossy_cg_keys.h — the lossy-CG app (app.kind = lossy-cg): Altenbernd & Göttsche's study (seed 001) on the real
 * engine. The seed's CG solve with *compressed* buddy checkpoints of x, a rank's data lost (injected, or a real death),
 * and three recoveries: global rollback, local re-initialisation, local improved by an auxiliary solve. Its keys are
 * the [recovery] section, declared here; its solves run in exec/mpi_inmem/apps/lossy_cg.c. The strategy is the registry's:
 * buddy (the compressed checkpoints go to the partner's memory) or none (no checkpoint; the run's other
 * strategies are refused by the real engine's capabilities for this app, exec/engine.c). */
#ifndef FL_LOSSY_CG_KEYS_H
#define FL_LOSSY_CG_KEYS_H

#include "scenario.h"

typedef struct fl_lossy_opts {
  char *mode;        /* global | local | improved, or a blank-separated list that sweeps them */
  char *codec;       /* codec, or a list of NAME[:TOL] */
  double tol;        /* zfp bound / zfp-adaptive tol (a term's :TOL overrides it) */
  long levels;       /* multigrid levels */
  long interval;     /* checkpoint every; 0 = mpi.checkpoint_every */
  char *lose;        /* injected losses "ROLE@ITER ...", or NULL */
  char *sweep_roles; /* study: roles, or NULL */
  char *sweep_at;    /* study: fractions of the failure-free iterations, or NULL */
  long repeat;       /* study: failure-free solves per codec */
} fl_lossy_opts;

enum { FL_LOSSY_GLOBAL = 0, FL_LOSSY_LOCAL = 1, FL_LOSSY_IMPROVED = 2 };
#define FL_LOSSY_MAX 32

typedef struct fl_lossy_codec {
  char name[32]; /* none | zero | multigrid | zfp | zfp-adaptive */
  double tol;
  char label[64]; /* for the row: zfp:1e-7, multigrid:2, ... */
} fl_lossy_codec;

/* What the [recovery] keys ask for, parsed. */
typedef struct fl_lossy_plan {
  int modes[3], nmodes;
  fl_lossy_codec codecs[FL_LOSSY_MAX];
  int ncodecs;
  long roles[FL_LOSSY_MAX];
  int nroles;
  double at[FL_LOSSY_MAX];
  int nat;
  long lose_role[FL_LOSSY_MAX], lose_iter[FL_LOSSY_MAX];
  int nlose;
  long interval; /* checkpoint every this many iterations (0: none) */
} fl_lossy_plan;

extern const fl_keyset fl_lossy_keys;
/* sc's values of the [recovery] keys (borrowed). */
const fl_lossy_opts *fl_lossy_options(const fl_scenario *sc);
/* Parse them: FL_ERR_INPUT naming file, line, key and value for a bad term. Which codecs this build has is the
 * real engine's to check (storage/ckpt). */
fl_err fl_lossy_plan_make(const fl_scenario *sc, fl_lossy_plan *pl);
const char *fl_lossy_mode_name(int mode);

#endif
