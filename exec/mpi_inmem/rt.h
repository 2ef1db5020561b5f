/* rt.h — faultline-mpi's fault-tolerant runtime: roles, spares, failure detection, agreement, recovery.
 *
 * Open MPI here has no ULFM: a dead peer is never reported, and any blocking operation or WORLD collective
 * involving it hangs. So (PLATFORM-NOTES.md, GPI CP seed):
 *   - the job runs under `mpirun --enable-recovery`, which keeps survivors alive when a process dies;
 *   - every wait is a poll of non-blocking requests with a deadline (fl_rt_wait): a peer silent for `timeout`
 *     is suspected; no WORLD collective is used after start-up;
 *   - the active ranks work on `comm`, a communicator of the current roles in role order; control traffic
 *     (ALIVE, VIEW, DONE) goes point to point on a private duplicate of WORLD that spares poll too;
 *   - recovery: every survivor announces itself (ALIVE, epoch e), collects who answered within the timeout,
 *     then exchanges views (VIEW: who it heard, its committed checkpoint versions) until all views agree; the
 *     dead roles go to the lowest alive spares, `comm` is rebuilt with MPI_Comm_create_group over the new role
 *     holders, and the application restores the agreed version (fl_imc_restore);
 *   - a dead role whose checkpoint mirror died with it (buddy and rank before a new commit), or with no spare
 *     left, is unrecoverable: every survivor reports FL_RT_LOST and the job stops with a clear error.
 * Reductions are deterministic (all-gather, then a sum in role order) so a recovered run computes bit for bit
 * what the failure-free run computes. */
#ifndef FL_RT_H
#define FL_RT_H

#include <mpi.h>
#include <stddef.h>

enum { FL_RT_OK = 0, FL_RT_FAILED = 1, FL_RT_LOST = 2, FL_RT_DONE = 3 };
/* Why the job cannot go on (rt->lost_kind, fl_driver_result.lost_kind), which the row's status says in the
 * simulator's words (docs/results.md): no spare or node left for a role -> `failed`; the state of a role gone with
 * every copy of it -> `data_lost`; the run's environment failed it (a disk full, out of memory) -> `error`. */
enum { FL_LOST_NO_SPARE = 1, FL_LOST_DATA = 2, FL_LOST_ERROR = 3 };
const char *fl_lost_status(int lost_kind);
enum { FL_RT_MIRROR_RING = 0, FL_RT_MIRROR_PAIR = 1 };

typedef struct fl_rt {
  MPI_Comm world; /* private duplicate of MPI_COMM_WORLD: control messages, point to point only */
  MPI_Comm comm;  /* the active roles, in role order; MPI_COMM_NULL on an idle spare */
  int wrank, wsize;
  int nroles;             /* active ranks (of my replica set) */
  int degree, set;        /* replica sets (1: no replication), and mine */
  unsigned char *foreign; /* world rank -> in another replica set (never part of my recoveries) */
  char job_id[64];        /* the same on every process of the job */
  int role;               /* my role, -1 while a spare */
  int *role_holder;       /* role -> world rank */
  unsigned char *alive;   /* world rank -> believed alive */
  int *announced;         /* world rank -> newest recovery epoch it announced to me (its ALIVE) */
  int epoch;              /* recoveries agreed so far */
  int pending_epoch;      /* an ALIVE of a newer epoch was seen: recovery must join it */
  int mirror;             /* FL_RT_MIRROR_RING or _PAIR */
  int per_node;           /* mpi.ranks_per_node: node k holds world ranks k*per_node ..; the mirror's stride */
  char (*hosts)[64];      /* world rank -> its host name (gathered at start) */
  double timeout_s;
  /* what the driver says before a recovery */
  int policy_decides;   /* 0 (lossy CG): a dead role whose mirror died too, or with no checkpoint, is FL_RT_LOST;
                         * 1 (the driver): the recovery only reports it (mirrors_intact) and the strategy decides */
  long my_file_version; /* newest file-level version this rank knows complete on every role (-1: none) */
  int my_file_gen;      /* the generation (shrinks before it) that wrote it */
  int shrink_ok;        /* no spare left for a dead role: go on without the role (1) or FL_RT_LOST (0) */
  /* the agreement of the last recovery */
  long agreed_version;      /* checkpoint version every survivor can restore (-1: none) */
  long agreed_file_version; /* file-level version every survivor knows complete (-1: none) */
  int agreed_file_gen;      /* its generation */
  int reshaped;             /* the last recovery dropped roles: fewer roles, renumbered in order (shrink) */
  int old_nroles;           /* the roles before it */
  int generation;           /* shrinks so far */
  int mirrors_intact;       /* every dead role's buddy mirror is held by a live role */
  int *dead_roles;          /* roles that lost their process in the last recovery */
  int ndead;
  int promoted; /* I was a spare and took a role in the last recovery */
  /* statistics */
  double t_wait_start; /* when the wait that timed out began */
  double t_suspect;    /* when a failure was first suspected */
  int failures;        /* processes found dead */
  int recoveries;
  double detect_s, recover_s; /* summed over recoveries */
  char lost_msg[256];         /* why the job cannot go on */
  int lost_kind;              /* FL_LOST_* */
  /* buffers of control messages sent to peers that may be dead (their sends may never complete): freed at
   * finalize, never reused */
  void **kept;
  size_t nkept, capkept;
  /* progress heartbeat for `faultline run`'s watchdog: a file whose mtime an active rank refreshes */
  int beat_fd; /* -1: none */
  double beat_t;
} fl_rt;

/* An active rank made progress (an iteration): refresh the heartbeat file, at most every 0.25 s. */
void fl_rt_heartbeat(fl_rt *rt);

double fl_rt_now(void);
/* Memory an abandoned request may still touch: rt frees it at finalize. */
void fl_rt_adopt(fl_rt *rt, void *ptr);
/* Set up after MPI_Init: nroles * degree active ranks in `degree` replica sets (set k: world ranks k*nroles ..,
 * role = rank mod nroles), each a whole copy of the job on its own communicator and recovered on its own; the
 * other ranks are spares, dealt round-robin to the sets. degree 1: no replication. */
int fl_rt_init(fl_rt *rt, int nroles, int degree, int mirror, double timeout_s);
void fl_rt_finalize(fl_rt *rt);

/* Poll requests until all complete (FL_RT_OK), or a peer is suspected: the deadline passes, or another rank
 * announces a recovery (FL_RT_FAILED). Requests left pending are abandoned with their epoch. */
int fl_rt_wait(fl_rt *rt, MPI_Request *reqs, int n);
/* Deterministic sum over the active roles of n doubles (in/out), in role order. */
int fl_rt_sum(fl_rt *rt, double *vals, int n);
/* Maximum over the active roles of n doubles (in/out). */
int fl_rt_max(fl_rt *rt, double *vals, int n);

/* The role that holds role r's checkpoint mirror, and the role whose mirror role r holds. */
int fl_rt_mirror_holder(const fl_rt *rt, int r);
int fl_rt_mirror_source(const fl_rt *rt, int r);

/* Agree on the survivors, promote spares, rebuild comm. `versions` are my committed checkpoint versions (the
 * newest first, -1 when none; two of them), used to agree on the version to restore; rt->my_file_version is
 * agreed the same way (rt->agreed_file_version). Returns FL_RT_OK (roles updated, rt->agreed_version,
 * ->agreed_file_version and ->mirrors_intact set), FL_RT_LOST (rt->lost_msg says why: no spare left, or, unless
 * rt->policy_decides, a role whose checkpoint is gone) or FL_RT_FAILED (I was declared dead). */
int fl_rt_recover(fl_rt *rt, const long versions[2]);

/* Replication: the failures of the whole job — my set's, and every process of the other sets that its set declared
 * dead or that answers no ping within three mpi.timeouts (a death its set was still detecting), unless it said it
 * left (fl_rt_leave). Called by the process that writes the row, before fl_rt_fence_dead stops the other sets.
 * Without replication, rt->failures. */
int fl_rt_job_failures(fl_rt *rt);
/* Replication: a process that ends without failing (its set finished, or retired) tells the other sets so. */
void fl_rt_leave(fl_rt *rt);

/* Spare loop: wait for a recovery that needs me (FL_RT_FAILED: call fl_rt_recover) or for the end (FL_RT_DONE). */
int fl_rt_spare_wait(fl_rt *rt);
/* Role 0 at the end: tell every alive spare to leave. */
void fl_rt_release_spares(fl_rt *rt);
/* At the end (completed or stopped): tell every rank declared dead that it was replaced, so that one that was only
 * stopped (SIGSTOP longer than the timeout) and comes back leaves instead of recovering on its own and reporting a
 * second, contradictory outcome. A rank told so while the job still runs leaves too (fencing: rt.c). */
/* The nodes lost: distinct nodes (world rank / per_node) of this set's processes found dead; their host names,
 * comma-separated, in names (where not NULL). */
int fl_rt_nodes_lost(const fl_rt *rt, char *names, size_t size);
/* The distinct host names the job's processes ran on. */
int fl_rt_hosts_used(const fl_rt *rt);
void fl_rt_fence_dead(fl_rt *rt);

#endif
