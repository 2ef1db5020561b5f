/* shards.h — `faultline sweep`: a scenario's runs cut into shards, each `faultline simulate --shard I/N` into a
 * SQLite file of its own under a directory, run as local processes (at most `jobs` at once) or as a Slurm job array,
 * then merged into one database (storage/merge.h). A library the CLI calls; no MPI, no SimGrid in this process.
 *
 * Bad input is said once: a local sweep's first shard checks every input before it writes anything and says so on
 * a pipe (simulate --ready-fd); the others of the first wave set up meanwhile and wait for its word (--after-fd)
 * before they open their databases. A Slurm sweep is checked here (`simulate --print`) before anything is
 * submitted. Shards that fail leave the others' rows: the same command again runs what is missing (simulate skips
 * rows already written). */
#ifndef FL_SHARDS_H
#define FL_SHARDS_H

#include "fl_err.h"

#include <stdio.h>

typedef struct fl_shards_opts {
  const char *self;        /* the faultline binary each shard runs */
  const char *path;        /* the scenario */
  const char *const *pass; /* options passed on to every shard's simulate, as given (--set X, --sweep X, ...) */
  int npass;
  const char *dir;  /* where the shards' files go (made if missing) */
  const char *out;  /* the merged database */
  const char *name; /* the scenario's name, for messages */
  long nshards;
  long jobs;      /* shards at once (local), or array tasks at once (Slurm, when jobs_given) */
  int jobs_given; /* --jobs was given: a Slurm array's %N throttle */
  int slurm;      /* 1: a Slurm job array (sbatch --wait); 0: local processes */
  int quiet;
} fl_shards_opts;

/* Run the shards and merge them. *code: 0 every shard ran and the merge is whole; 1 a shard failed or the merge is
 * incomplete (said on stderr: run again to finish); 2 bad input, said in one line, nothing run (a directory this
 * made is removed). */
fl_err fl_shards_run(const fl_shards_opts *o, int *code);
/* The Slurm array script of a sweep (what fl_shards_run submits): shard $SLURM_ARRAY_TASK_ID of nshards, its own
 * file abs_dir/shard-I.sqlite, at most jobs tasks at once when jobs_given; every word quoted for sh. */
void fl_shards_slurm_script(FILE *f, const fl_shards_opts *o, const char *abs_path, const char *abs_dir);

#endif
