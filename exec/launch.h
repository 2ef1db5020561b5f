/* launch.h — `faultline run`: run a scenario for real on MPI ranks (faultline-mpi under mpirun --enable-recovery)
 * and say how it ended. The real engine's launcher as a library function; cli/ only parses the arguments.
 *
 * Everything a user can get wrong is checked before anything runs (exit 2, nothing written): the scenario for the
 * real engine (strategy, app, mirror), the processes (--np x copies + spares <= FL_RUN_MAX_PROCS), and the kills
 * (a process that does not exist, an iteration past app.iterations, a spare that cannot have taken over a role
 * by then). The job's one row in the results file is the verdict: 0 completed, 3 stopped cleanly (failed,
 * data_lost), 1 otherwise (error, no_progress, maxit), 128 + the signal that stopped `faultline run`
 * (docs/real-mode.md). */
#ifndef FL_LAUNCH_H
#define FL_LAUNCH_H

#include "fl_err.h"

#define FL_RUN_MAX_PROCS 4096 /* ranks plus spares of one real run */

typedef struct fl_launch_opts {
  const char *path;  /* the scenario file */
  char *const *args; /* forwarded to every process, in pairs: --set K=V, --kill R@I, --kill-node N@I, --db FILE */
  int nargs;
  int np;          /* active ranks */
  long spares;     /* spare processes (-1: the scenario's mpi.spares) */
  const char *out; /* the outcome directory (NULL: a temporary one, removed) */
  int quiet;
  const char *exe_dir;   /* the directory holding faultline-mpi */
  const char *launcher;  /* local (NULL: one machine), mpirun (--hostfile), slurm (the allocation, or salloc) */
  long spare_nodes;      /* spares as whole nodes (-1: --spares / mpi.spares processes) */
  const char *hostfile;  /* --launcher mpirun: the machines */
  long failures_replica; /* --failures sim:R: replica R's failure draws of the simulator, replayed (-1: none) */
} fl_launch_opts;

/* Run it. FL_OK with *exit_code the run's status (above); an error (bad input: FL_ERR_INPUT) otherwise, with
 * *exit_code what the command should exit with. */
fl_err fl_launch_run(const fl_launch_opts *o, int *exit_code);

#endif
