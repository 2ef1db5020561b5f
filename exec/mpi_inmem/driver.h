/* driver.h — the recoverable iteration loop of a real-mode application, written once: spares wait, active roles
 * iterate with in-memory buddy checkpoints every `checkpoint_every` iterations, and a failure anywhere leads to
 * fl_rt_recover, fl_imc_restore of the agreed version, a fresh commit (mirrors rebuilt) and the replay of the
 * iterations since. An application is an ops table over its own state; its steps must be deterministic functions
 * of the checkpointed state (halo exchanges and fl_rt sums are), so a recovered run replays bit for bit. */
#ifndef FL_DRIVER_H
#define FL_DRIVER_H

#include "rt.h"

#include <stddef.h>

typedef struct fl_mpi_app_ops {
  const char *name;
  size_t (*checkpoint_bytes)(void *app); /* the same on every role */
  void (*set_role)(void *app);           /* rt->role changed (start, promotion): set up my part */
  int (*init)(void *app);                /* the initial state (may communicate) */
  int (*step)(void *app);                /* one iteration (may communicate) */
  int (*finished)(void *app);            /* converged or out of iterations */
  long (*iteration)(void *app);
  void (*pack)(void *app, unsigned char *buf);
  void (*unpack)(void *app, const unsigned char *buf);
} fl_mpi_app_ops;

typedef struct fl_driver_config {
  long checkpoint_every;             /* iterations; 0: never */
  const long *kill_rank, *kill_iter; /* world rank kill_rank[i] dies (SIGKILL) before iteration kill_iter[i] */
  int nkill;
  double fail_at_s; /* this process dies after so many seconds (< 0: never) */
} fl_driver_config;

typedef struct fl_driver_result {
  const char *status; /* "ended" (the application finished), "lost", "dead", "idle" (a spare never promoted) */
  char message[256];
  long commits;
  double ckpt_bytes, commit_s, wall_s;
} fl_driver_result;

void fl_driver_run(fl_rt *rt, const fl_mpi_app_ops *ops, void *app, const fl_driver_config *cfg, fl_driver_result *res);

#endif
