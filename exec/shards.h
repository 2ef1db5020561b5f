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

/* ---- the shard's side ---- */

/* A shard started beside the sweep's first (simulate --after-fd): wait for the first one's word that it is past its
 * checks (a byte) or that it refused the input (end of file). *fd is closed and set to -1; later calls give the same
 * answer. Returns 1 to go on, 0 to leave. */
int fl_shards_go(long *fd);

/* `simulate` over several SimGrid platforms (SimGrid holds one platform a process): the same command run again,
 * one process per platform group with `--platform-group K` added. First every group checks its combinations and
 * counts its rows of the shard (`--count`), nothing written; a group that refuses has its words said (unless the
 * sweep's first shard said them: after_fd) and nothing is written. Then the database is opened, the shard's plan
 * recorded (shard_n > 1), the sweep told (ready_fd), and the groups run one after the other. */
typedef struct fl_groups_opts {
  const char *self; /* the faultline binary */
  int argc;         /* the simulate command as given, argv[0] = "simulate"; --ready-fd/--after-fd are left out */
  char *const *argv;
  int ngroups;
  int print; /* --print: each group prints its combinations; nothing is counted or written */
  long ready_fd, after_fd;
  const char *db;
  long shard_i, shard_n;
  const char *sweep_id; /* the plan's identity (sim/study.h) for the shard's record */
} fl_groups_opts;

/* *code: the worst exit status of the groups (0 all ran; 2 one refused the input, said in one line). */
fl_err fl_shards_groups(const fl_groups_opts *o, int *code);

#endif
