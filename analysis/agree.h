/* agree.h — the real engine measured on this machine, the simulator fed with what was measured, and both engines
 * run on one scenario with the same failures: `faultline calibrate` and `faultline agree` as library calls (they run
 * this faultline's `run` and `simulate` as child processes; docs/real-mode.md). */
#ifndef FL_AGREE_H
#define FL_AGREE_H

#include "fl_err.h"

#define FL_AGREE_MAX_SETS 64
#define FL_AGREE_MAX_FAILURES 16

/* What calibrate and agree are asked (cli/agree.c fills it from the command line). */
typedef struct fl_agree_opts {
  const char *path;
  const char *sets[FL_AGREE_MAX_SETS]; /* --set values */
  int nsets;
  long np, failures, repeat;
  const char *out, *db, *strategies;
  const char *launcher, *hostfile; /* faultline run's --launcher and --hostfile (NULL: one machine) */
  long per_node;                   /* mpi.ranks_per_node (read from the scenario): > 1, failures are whole nodes */
  int quiet;
  char exe[4096]; /* this faultline */
  char tmp[4096]; /* our temporary directory */
} fl_agree_opts;

/* Calibrate: measure the scenario for real on np ranks and write the simulator's overrides to opts->out (NULL:
 * stdout). Its temporary directory is made and removed here. */
fl_err fl_calibrate_run(fl_agree_opts *opts);
/* Agree: calibrate, draw the failures, run both engines per strategy and round, print the comparison; *within: 1
 * when every ratio compared lies in 0.85-1.15. */
fl_err fl_agree_run(fl_agree_opts *opts, int *within);

#endif
