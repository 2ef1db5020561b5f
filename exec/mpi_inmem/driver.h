/* driver.h — the real engine's recoverable iteration loop, written once for every application: spares wait;
 * active roles iterate and checkpoint when and where the strategy says (policy/strategies: buddy memory through
 * imc, files through storage/ckpt, or both as two levels); a failure anywhere leads to fl_rt_recover (agreement,
 * spares promoted), then the strategy's decision — roll back to the buddy level, to the file level, or start
 * over — and the replay of the iterations since. An application is an ops table over its own state; its steps must be
 * deterministic functions of the checkpointed state (halo exchanges and fl_rt sums are), so a recovered run replays bit
 * for bit. */
#ifndef FL_DRIVER_H
#define FL_DRIVER_H

#include "db.h"
#include "rt.h"
#include "strategy.h"

#include <stddef.h>

typedef struct fl_driver_result fl_driver_result;

typedef struct fl_mpi_app_ops {
  const char *name;
  size_t (*checkpoint_bytes)(void *app); /* the same on every role */
  void (*set_role)(void *app);           /* rt->role changed (start, promotion): set up my part */
  int (*init)(void *app);                /* the initial state (may communicate) */
  int (*step)(void *app);                /* one iteration (may communicate) */
  int (*finished)(void *app);            /* converged or out of iterations */
  long (*iteration)(void *app);
  void (*pack)(void *app, unsigned char *buf);         /* my state, checkpoint_bytes long (NULL with pack_n) */
  void (*unpack)(void *app, const unsigned char *buf); /* the state back, on every role (NULL with repair) */
  /* Variable-length checkpoints (compressed ones): pack into buf and return the bytes used (at most
   * checkpoint_bytes; the payload says its own length); 0 when the state cannot be packed (fl_err says why: the
   * job stops). The buddy level sends only those bytes; the file level writes the whole buffer. NULL: pack. */
  size_t (*pack_n)(void *app, unsigned char *buf);
  /* Recovery by role instead of a rollback of every role (seed 001's local recoveries: only the roles whose data
   * is gone reload it). After a failure, on every active role (may communicate): lost[role] = 1 for each role
   * whose data is gone (dead, or an injected loss); ckpt = my role's checkpoint as the strategy's decision gives it
   * back (the agreed version: my own, or, where my data is gone, my buddy's mirror of it), NULL when the strategy
   * starts over. The application repairs its state as it sees fit (an exact rollback is one way); the driver then
   * checkpoints the repaired state. NULL: unpack on every role and replay. */
  int (*repair)(void *app, const unsigned char *lost, const unsigned char *ckpt);
  /* Shrink: take, from old_role's checkpoint buffer of a partition over old_nroles roles, the scalars and the rows
   * that are mine now (set_role has set the new partition; checkpoint_bytes may have grown). NULL: no shrink. */
  void (*unpack_from)(void *app, const unsigned char *buf, int old_role, int old_nroles);
  /* Task-parallel applications (the strategy drives tasks: exec/mpi_inmem/gw_tasks.h) keep their own recovery
   * state instead of checkpoints; both NULL otherwise. versions: the two newest iterations I can return to, for the
   * agreement (LONG_MAX, LONG_MAX when I hold no state: a spare, or one promoted but not yet given it).
   * recover_tasks, after an agreed recovery: bring every role to iteration `agreed` and complete the interrupted
   * one as the strategy decides for the failed tasks (re-execute, substitute); *need_init = 1 when no role holds
   * any state (start over). Adds its time to res->restore_s (state, decision) and res->replay_s (the sweep). */
  void (*versions)(void *app, long v[2]);
  int (*recover_tasks)(void *app, long agreed, fl_driver_result *res, int *need_init);
} fl_mpi_app_ops;

typedef struct fl_driver_config {
  fl_strategy_run *strat;            /* the strategy's decisions (policy/strategies), set up by fl_exec_setup */
  long checkpoint_every;             /* > 0: checkpoint every this many iterations; 0: the strategy's interval */
  const char *file_dir;              /* file level: a directory per role goes here (NULL: no file level) */
  const char *file_store;            /* its storage/ckpt store: "file" (NULL) or "hdf5" */
  int shrink;                        /* no spare left: go on with fewer roles, re-cut from the file level */
  const long *kill_rank, *kill_iter; /* world rank kill_rank[i] dies (SIGKILL) before iteration kill_iter[i] */
  const double *kill_at_s;           /* or, where kill_iter[i] < 0, once kill_at_s[i] seconds have passed */
  int nkill;
  const unsigned char *kill_is_node; /* kill i is a node failure (mpi.kill_node, or drawn by node with
                                      * mpi.time_scale): node_kill_cmd first, if any */
  const char *node_kill_cmd;         /* FAULTLINE_NODE_KILL: run with the host name, takes the whole node down */
  /* injected data losses (the processes live): role lose_role[i] loses its state before iteration lose_iter[i],
   * once; needs ops->repair, and a strategy that writes the buddy level or nothing */
  const long *lose_role, *lose_iter;
  int nlose;
  double fail_at_s; /* this process dies after so many seconds (< 0: never) */
  fl_evlog *events; /* this process's timeline with the simulator's event kinds (run.events = all), or NULL */
} fl_driver_config;

struct fl_driver_result {
  const char *status; /* "ended" (the application finished), "lost", "dead", "idle" (a spare never promoted) */
  char message[256];
  int lost_kind;              /* "lost": why (FL_LOST_* of rt.h: no spare, data lost, an error) */
  long commits;               /* checkpoints taken (any level) */
  long file_commits;          /* of which to the file level */
  long rollbacks[FL_NLEVELS]; /* recoveries by where the state came from: [FL_LEVEL_SCRATCH] = restarts */
  long replica_rebuilds;      /* replication: recoveries of this replica set while the others went on */
  long injected;              /* injected data losses recovered (cfg->lose_*) */
  double ckpt_bytes, commit_s, wall_s;
  /* waste, the slowest role's (agreed at the end; this rank's own if that agreement failed) */
  double restore_s;           /* reading a checkpoint back after a failure (and the repair, ops->repair) */
  double replay_s;            /* recomputing iterations done before the failure */
  double detect_s, recover_s; /* per recovery */
  char note[512]; /* what the figures do not say, for the row's note: a corrupt checkpoint version met at a restore
                   * and the older one used instead (the same on every role) */
};

void fl_driver_run(fl_rt *rt, const fl_mpi_app_ops *ops, void *app, const fl_driver_config *cfg, fl_driver_result *res);

#endif
