/* driver.c — see driver.h.
 *
 * Every decision that must be the same on every role is made from agreed data only: the checkpoint schedule from
 * figures every role contributes to a maximum (fl_rt_max: iteration time, checkpoint cost, checkpoints taken),
 * the recovery from what fl_rt_recover agreed (versions, which mirrors survived). So a promoted spare, which saw
 * none of the past, takes the same branch as the survivors. File-level versions are numbered
 * epoch * FL_DRV_EPOCH + iteration: increasing across restarts from scratch, as the checkpoint library wants. */
#include "driver.h"

#include "ckpt.h"
#include "imc.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FL_DRV_EPOCH 100000000L /* iterations per recovery epoch in a file-level version number */

typedef struct fl_drv {
  fl_rt *rt;
  const fl_mpi_app_ops *ops;
  void *app;
  const fl_driver_config *cfg;
  fl_driver_result *res;
  fl_strategy_run *strat;
  size_t bytes;
  fl_imc *imc; /* buddy level, or NULL */
  fl_ckpt *ck; /* file level of my role (opened on first use, reopened when my role changes), or NULL */
  int ck_role, ck_gen;
  int64_t layout[2];    /* saved with every file-level version: the roles of its partition, and mine */
  unsigned char *state; /* packed state: the file level's registered array, and the restore buffer */
  long next_ckpt;       /* iteration of the next checkpoint, -1: none */
  long plan_at;         /* iteration at which to agree on the schedule, -1: none pending */
  double t_compute;     /* compute time since the last plan, and its iterations */
  long it_compute;
  double delta_last;    /* my last checkpoint's cost (0: none since the last plan) */
  long high;            /* the highest iteration reached: steps below it are replay */
  long clean;           /* checkpoint intervals completed since the newest failure (an adapting rule's) */
  int replaying;        /* an init after a restart from scratch is replay too */
  double t_start;       /* the driver's start: event times are from it */
  unsigned char *lost;  /* ops->repair: lost[role] = 1 for the roles whose data is gone */
  unsigned char *fired; /* the injected losses done (cfg->lose_*) */
} fl_drv;

/* A node failure: the command that takes the node down (the test cluster's: its processes killed, its link down),
 * or, where there is none, the node's Open MPI daemon (orted, our parent on a node of a multi-node job) and then
 * this process: every process of the job on the node goes. */
static void fl_driver_node_dies(const fl_rt *rt, const fl_driver_config *c)
{
  char comm[64] = "", path[64];
  FILE *f;
  fflush(NULL);
  if (c->node_kill_cmd && *c->node_kill_cmd) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s '%s' >/dev/null 2>&1", c->node_kill_cmd, rt->hosts ? rt->hosts[rt->wrank] : "");
    if (system(cmd) != 0)
      fprintf(stderr, "faultline-mpi: rank %d: the node kill command failed: %s\n", rt->wrank, cmd);
  }
  snprintf(path, sizeof path, "/proc/%ld/comm", (long)getppid());
  if ((f = fopen(path, "r"))) {
    if (fgets(comm, sizeof comm, f) && strncmp(comm, "orted", 5) == 0)
      kill(getppid(), SIGKILL);
    fclose(f);
  }
  kill(getpid(), SIGKILL);
}

static void fl_driver_maybe_die(const fl_rt *rt, const fl_driver_config *c, long k, double t_start)
{
  for (int i = 0; i < c->nkill; i++)
    if (c->kill_rank[i] == rt->wrank &&
        (c->kill_iter[i] == k || (c->kill_iter[i] < 0 && c->kill_at_s && fl_rt_now() - t_start >= c->kill_at_s[i]))) {
      if (c->kill_is_node && c->kill_is_node[i])
        fl_driver_node_dies(rt, c);
      kill(getpid(), SIGKILL);
    }
  if (c->fail_at_s >= 0 && fl_rt_now() - t_start >= c->fail_at_s)
    kill(getpid(), SIGKILL);
}

static int fl_drv_lost(fl_drv *d, int kind, const char *what)
{
  size_t n = strlen(what);
  d->res->lost_kind = kind;
  if (n >= sizeof d->res->message)
    n = sizeof d->res->message - 1;
  memcpy(d->res->message, what, n); /* cut to fit */
  d->res->message[n] = '\0';
  return FL_RT_LOST;
}

/* The timeline of a recovery (run.events = all): the suspicion, each dead role's process and who takes the role
 * over (none when the job stops), the agreement. `holders`: the roles' processes before it. */
static void fl_drv_log_recovery(fl_drv *d, int rc, const int *holders, int nh, double detect_s, double agree_s)
{
  fl_evlog *log = d->cfg->events;
  fl_rt *rt = d->rt;
  double t = fl_rt_now() - d->t_start;
  fl_evlog_entry *e;
  if (!log || (rc != FL_RT_OK && rc != FL_RT_LOST))
    return;
  fl_evlog_value(log, t - agree_s, FL_EV_REAL_DETECTION, detect_s, NULL);
  for (int k = 0; k < rt->ndead; k++) {
    int role = rt->dead_roles[k];
    if (role < 0 || role >= nh)
      continue;
    fl_evlog_task(log, t, FL_EV_REAL_FAILURE, holders[role], role,
                  rc == FL_RT_OK && !rt->reshaped && role < rt->nroles ? rt->role_holder[role] : -1, -1);
  }
  if ((e = fl_evlog_add(log, t, FL_EV_REAL_RECOVERY, -1))) {
    e->n = rt->ndead;
    e->value = agree_s;
  }
}

/* The job stops: why, from the driver's own reason or else the runtime's (a version not in memory any more is
 * data lost; a runtime that gave no reason failed on its own account). */
static void fl_drv_lost_from_rt(fl_drv *d)
{
  d->res->status = "lost";
  if (d->res->lost_kind)
    return;
  d->res->lost_kind = d->rt->lost_kind ? d->rt->lost_kind : FL_LOST_DATA;
  if (!d->res->message[0])
    snprintf(d->res->message, sizeof d->res->message, "%s",
             d->rt->lost_msg[0] ? d->rt->lost_msg : "a checkpoint in memory was not found");
}

/* A role's file-level directory in generation gen (the partition after gen shrinks): DIR/role-R, DIR/gen-G/role-R. */
static void fl_drv_role_dir(const fl_drv *d, int gen, int role, char *path, size_t size)
{
  char set[32] = "";
  if (d->rt->degree > 1) /* replication: each replica set keeps its own */
    snprintf(set, sizeof set, "/set-%d", d->rt->set);
  if (gen == 0)
    snprintf(path, size, "%s%s/role-%d", d->cfg->file_dir, set, role);
  else
    snprintf(path, size, "%s%s/gen-%d/role-%d", d->cfg->file_dir, set, gen, role);
}

/* Create the directories of `path` below `base` (which exists): 0, or -1 with errno. */
static int fl_drv_mkdirs(const char *base, const char *path)
{
  char buf[4096];
  size_t n = strlen(base);
  if (strlen(path) <= n)
    return 0;
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + n + 1;; p++) {
    char *slash = strchr(p, '/');
    if (slash)
      *slash = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return -1;
    if (!slash)
      return 0;
    *slash = '/';
    p = slash;
  }
}

/* My role's file-level store in the current generation, opened writable. A promoted spare takes over a dead role's
 * directory: the runtime declared its writer dead, so a writer still holding the lock (stopped, not exited) is
 * killed and its lock taken (take_over). A rank that held its role from the start never does: a lock held then is
 * another job's. */
static int fl_drv_open_file(fl_drv *d)
{
  char path[4096], msg[4400];
  fl_ckpt_array a;
  const fl_rt *rt = d->rt;
  int first_role = rt->wrank < rt->nroles * rt->degree ? rt->wrank % rt->nroles : -1;
  if (d->ck && d->ck_role == d->rt->role && d->ck_gen == d->rt->generation)
    return FL_RT_OK;
  fl_ckpt_destroy(&d->ck);
  fl_drv_role_dir(d, d->rt->generation, d->rt->role, path, sizeof path);
  *strrchr(path, '/') = '\0';
  if ((mkdir(d->cfg->file_dir, 0777) != 0 && errno != EEXIST) || fl_drv_mkdirs(d->cfg->file_dir, path) != 0) {
    snprintf(msg, sizeof msg, "file level: cannot create %s: %s", path, strerror(errno));
    return fl_drv_lost(d, FL_LOST_ERROR, msg);
  }
  fl_drv_role_dir(d, d->rt->generation, d->rt->role, path, sizeof path);
  memset(&a, 0, sizeof a);
  a.label = "state";
  a.shape = (fl_ckpt_shape){.dtype = FL_CKPT_U8, .ndims = 1, .dims = {d->bytes ? d->bytes : 1}};
  a.data = d->state;
  if (fl_ckpt_create(&(fl_ckpt_opts){.store = d->cfg->file_store ? d->cfg->file_store : "file",
                                     .path = path,
                                     .keep = 2,
                                     .take_over = first_role != rt->role || rt->generation > 0},
                     &d->ck) != FL_OK ||
      fl_ckpt_register(d->ck, &a) != FL_OK ||
      fl_ckpt_register(d->ck, &(fl_ckpt_array){.label = "layout",
                                               .shape = {.dtype = FL_CKPT_I64, .ndims = 1, .dims = {2}},
                                               .data = d->layout}) != FL_OK) {
    snprintf(msg, sizeof msg, "file level: %s", fl_err_msg());
    fl_ckpt_destroy(&d->ck);
    return fl_drv_lost(d, FL_LOST_ERROR, msg);
  }
  d->ck_role = d->rt->role;
  d->ck_gen = d->rt->generation;
  return FL_RT_OK;
}

/* Restore file-level version v written by generation gen with another partition (before a shrink): every old
 * role's block is read and the application keeps the rows that are now mine. */
static int fl_drv_restore_recut(fl_drv *d, long v, int gen)
{
  char path[4096], msg[600];
  int old_n = 1;
  for (int r = 0; r < old_n; r++) {
    fl_ckpt *ck = NULL;
    void *state = NULL, *layout = NULL;
    fl_drv_role_dir(d, gen, r, path, sizeof path);
    if (fl_ckpt_create(&(fl_ckpt_opts){.path = path, .read_only = 1}, &ck) != FL_OK ||
        fl_ckpt_read_entry(ck, v, "layout", &layout, NULL) != FL_OK ||
        fl_ckpt_read_entry(ck, v, "state", &state, NULL) != FL_OK) {
      snprintf(msg, sizeof msg, "file level: %s", fl_err_msg());
      fl_ckpt_destroy(&ck);
      free(layout);
      return fl_drv_lost(d, FL_LOST_DATA, msg); /* the version agreed on cannot be read back */
    }
    old_n = (int)((int64_t *)layout)[0];
    d->ops->unpack_from(d->app, state, r, old_n);
    free(layout);
    free(state);
    fl_ckpt_destroy(&ck);
  }
  return FL_RT_OK;
}

/* After a recovery that changed my part (a shrink re-cut the rows, or I was promoted): the checkpoint size may have
 * changed: the buffers follow it. */
static int fl_drv_relayout(fl_drv *d)
{
  size_t bytes = d->ops->checkpoint_bytes(d->app);
  unsigned char *state;
  if (bytes == d->bytes)
    return FL_RT_OK;
  if (!(state = malloc(bytes ? bytes : 1)))
    return fl_drv_lost(d, FL_LOST_ERROR, "out of memory");
  fl_ckpt_destroy(&d->ck); /* its array was the old buffer */
  free(d->state);
  d->state = state;
  d->bytes = bytes;
  if (d->imc) {
    fl_imc_drop_pending(d->imc);
    fl_imc_destroy(&d->imc);
    if (!(d->imc = fl_imc_create(d->rt, bytes, 0)))
      return fl_drv_lost(d, FL_LOST_ERROR, "out of memory");
  }
  return FL_RT_OK;
}

/* My state packed into buf: the bytes it takes (*n), or FL_RT_LOST when the application cannot pack it. */
static int fl_drv_pack(fl_drv *d, unsigned char *buf, size_t *n)
{
  char msg[400];
  if (!d->ops->pack_n) {
    d->ops->pack(d->app, buf);
    *n = d->bytes;
    return FL_RT_OK;
  }
  if ((*n = d->ops->pack_n(d->app, buf)) > 0 && *n <= d->bytes)
    return FL_RT_OK;
  snprintf(msg, sizeof msg, "checkpoint: %s could not pack its state%s%s", d->ops->name, *n ? "" : ": ",
           *n ? " (larger than its checkpoint_bytes)" : fl_err_msg());
  return fl_drv_lost(d, FL_LOST_ERROR, msg);
}

/* One checkpoint, at the level the strategy names for it. The file level is complete when every role has
 * committed its version: a sum over the roles after the commits says so. */
static int fl_drv_checkpoint(fl_drv *d)
{
  const fl_mpi_app_ops *ops = d->ops;
  long it = ops->iteration(d->app);
  fl_level level = fl_strat_next_level(d->strat);
  double t0 = fl_rt_now();
  int rc = FL_RT_OK;

  if (d->imc) {
    size_t n = 0;
    if ((rc = fl_drv_pack(d, fl_imc_buffer(d->imc), &n)) == FL_RT_OK &&
        (rc = fl_imc_start_n(d->imc, it, n)) == FL_RT_OK)
      rc = fl_imc_commit(d->imc);
  }
  if (rc == FL_RT_OK && level == FL_LEVEL_FILE) {
    long v = (long)d->rt->epoch * FL_DRV_EPOCH + it;
    double one = 1.0;
    size_t n = 0;
    if (d->imc)
      memcpy(d->state, fl_imc_committed_snapshot(d->imc), d->bytes);
    else if (fl_drv_pack(d, d->state, &n) != FL_RT_OK)
      return FL_RT_LOST;
    d->layout[0] = d->rt->nroles;
    d->layout[1] = d->rt->role;
    {
      /* every role says whether its part was written: a write that failed on one role (a disk full) stops the
       * job on every role at once, with one row, instead of leaving that rank to die alone and the others to
       * recover from a failure that was none */
      char msg[512] = "";
      double agree[2] = {one, 0.0};
      if ((rc = fl_drv_open_file(d)) == FL_RT_OK && fl_ckpt_write(d->ck, v) != FL_OK)
        rc = FL_RT_LOST, snprintf(msg, sizeof msg, "file level: %s", fl_err_msg());
      else if (rc == FL_RT_LOST)
        snprintf(msg, sizeof msg, "%s", d->res->message);
      if (rc == FL_RT_LOST) {
        fprintf(stderr, "faultline-mpi: role %d: %s\n", d->rt->role, msg);
        agree[1] = 1.0;
      }
      if ((rc = fl_rt_sum(d->rt, agree, 2)) != FL_RT_OK)
        return rc;
      if (agree[1] > 0) {
        if (!msg[0])
          snprintf(msg, sizeof msg, "file level: checkpoint %ld not written by %.0f role%s (the reason above)", it,
                   agree[1], agree[1] > 1 ? "s" : "");
        return fl_drv_lost(d, FL_LOST_ERROR, msg);
      }
      d->res->ckpt_bytes += (double)d->bytes;
      d->rt->my_file_version = v;
      d->rt->my_file_gen = d->rt->generation;
      d->res->file_commits++;
    }
  }
  d->delta_last = fl_rt_now() - t0;
  d->res->commit_s += d->delta_last;
  if (rc == FL_RT_OK) {
    d->res->commits++;
    if (d->cfg->events) {
      fl_evlog_entry *e = fl_evlog_add(d->cfg->events, fl_rt_now() - d->t_start, FL_EV_REAL_CHECKPOINT, -1);
      if (e) {
        e->n = it;
        e->value = d->delta_last;
        e->level = fl_level_name(level == FL_LEVEL_FILE ? FL_LEVEL_FILE : FL_LEVEL_BUDDY);
      }
    }
  }
  return rc;
}

/* Agree on the schedule: every role gives its iteration time, its last checkpoint's cost and the checkpoints it
 * has taken; the maxima re-evaluate the strategy's interval (Young, Daly with the measured cost) and set the
 * iteration of the next checkpoint. Every N iterations (mpi.checkpoint_every) needs only the count. */
static int fl_drv_plan(fl_drv *d)
{
  long it = d->ops->iteration(d->app);
  double v[4] = {d->it_compute > 0 ? d->t_compute / (double)d->it_compute : 0.0, d->delta_last,
                 (double)d->strat->checkpoints, (double)d->clean};
  int rc = fl_rt_max(d->rt, v, 4);
  if (rc != FL_RT_OK)
    return rc;
  d->strat->checkpoints = (long)v[2];
  d->clean = (long)v[3];
  d->plan_at = -1;
  if (d->cfg->checkpoint_every > 0) {
    d->next_ckpt = (it / d->cfg->checkpoint_every + 1) * d->cfg->checkpoint_every;
  } else {
    double tau;
    if (v[1] > 0) {
      fl_level primary = (d->strat->levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) ? FL_LEVEL_BUDDY : FL_LEVEL_FILE;
      fl_strat_observe(d->strat, primary, v[1]);
    }
    fl_irule_step step = {.left_s = INFINITY, .clean = d->clean}; /* (a rule that adapts decides here) */
    tau = fl_strat_next_interval(d->strat, &step);
    if (!(tau > 0) && d->strat->rule->next)
      tau = INFINITY; /* up to the end of the job */
    if (!isfinite(tau))
      d->next_ckpt = -1;
    else if (v[0] > 0)
      d->next_ckpt = it + (long)fmax(1.0, ceil(tau / v[0]));
    else
      d->next_ckpt = -1, d->plan_at = it + 1; /* no iteration measured yet */
  }
  d->t_compute = 0.0;
  d->it_compute = 0;
  d->delta_last = 0.0;
  return FL_RT_OK;
}

/* The initial state, and its checkpoint when the strategy writes any. */
static int fl_drv_init(fl_drv *d)
{
  int rc = d->ops->init(d->app);
  if (rc == FL_RT_OK && d->strat->levels)
    rc = fl_drv_checkpoint(d);
  if (rc == FL_RT_OK && d->strat->levels)
    rc = fl_drv_plan(d);
  return rc;
}

/* The strategy's decision after a failure or a loss, counted and logged: back to a level, or from scratch. */
static void fl_drv_decided(fl_drv *d, fl_recovery r)
{
  fl_evlog *log = d->cfg->events;
  d->res->rollbacks[r.action == FL_ACT_ROLLBACK ? r.level : FL_LEVEL_SCRATCH]++;
  if (log && r.action == FL_ACT_ROLLBACK)
    fl_evlog_value(log, fl_rt_now() - d->t_start, FL_EV_RESTART_LEVEL, NAN, fl_level_name(r.level));
  else if (log)
    fl_evlog_add(log, fl_rt_now() - d->t_start, FL_EV_RESTART_SCRATCH, -1);
}

/* ops->repair after the strategy's decision: every role repairs from its checkpoint (ckpt, NULL when the strategy
 * starts over), then the repaired state is checkpointed and the schedule agreed again. t0: when the recovery began
 * (its time is restore_s). */
static int fl_drv_repair(fl_drv *d, const unsigned char *ckpt, double t0)
{
  int rc = d->ops->repair(d->app, d->lost, ckpt);
  if (rc == FL_RT_LOST && !d->res->lost_kind) { /* the application could not repair (a copy it cannot decode) */
    char msg[400];
    snprintf(msg, sizeof msg, "repair: %s", fl_err_msg());
    return fl_drv_lost(d, FL_LOST_ERROR, msg);
  }
  if (rc == FL_RT_OK && d->strat->levels)
    rc = fl_drv_checkpoint(d); /* the repaired state, mirrored again */
  d->res->restore_s += fl_rt_now() - t0;
  d->clean = 0; /* a failure: an adapting rule starts over */
  if (rc == FL_RT_OK)
    rc = fl_drv_plan(d);
  return rc;
}

/* Injected data losses before iteration it (cfg->lose_*): the processes live, the roles named lose their state.
 * The strategy decides as after a death, from what is left: the buddy level where every lost role's mirror is
 * held by a role that kept its memory (each lost role gets its copy back from there, the others keep their own),
 * else start over; the application repairs (ops->repair). *any = 0 when no loss is due. */
static int fl_drv_inject(fl_drv *d, long it, int *any)
{
  fl_rt *rt = d->rt;
  const fl_driver_config *c = d->cfg;
  double t0 = fl_rt_now();
  long versions[2] = {-1, -1};
  fl_failure_view view;
  fl_recovery r;
  int rc = FL_RT_OK;
  *any = 0;
  memset(d->lost, 0, (size_t)rt->nroles);
  for (int i = 0; i < c->nlose; i++)
    if (!d->fired[i] && c->lose_iter[i] == it && c->lose_role[i] >= 0 && c->lose_role[i] < rt->nroles) {
      d->fired[i] = 1;
      d->lost[c->lose_role[i]] = 1;
      *any = 1;
    }
  if (!*any)
    return FL_RT_OK;
  if (d->imc)
    fl_imc_versions(d->imc, versions);
  memset(&view, 0, sizeof view);
  view.buddy_version = versions[0];
  view.file_version = -1;
  view.buddy_intact = d->imc && versions[0] >= 0 && fl_imc_copies_kept(rt, d->lost);
  r = fl_strat_on_failure(d->strat, &view);
  d->res->injected++;
  for (int role = 0; c->events && role < rt->nroles; role++)
    if (d->lost[role])
      fl_evlog_task(c->events, t0 - d->t_start, FL_EV_REAL_LOSS, rt->role_holder[role], role, -1, -1);
  fl_drv_decided(d, r);
  if (r.action == FL_ACT_ROLLBACK &&
      (r.level != FL_LEVEL_BUDDY || (rc = fl_imc_refetch(d->imc, d->lost, d->state)) == FL_RT_LOST))
    return fl_drv_lost(d, FL_LOST_DATA, "injected loss: the checkpoint the strategy chose is not in memory");
  if (rc != FL_RT_OK)
    return rc;
  return fl_drv_repair(d, r.action == FL_ACT_ROLLBACK ? d->state : NULL, t0);
}

/* The newest version older than v that my file level holds intact (verified whole), or -1. */
static long fl_drv_intact_before(fl_drv *d, long v)
{
  long *vs = NULL, got = -1;
  size_t n = 0;
  if (fl_ckpt_versions(d->ck, &vs, &n) != FL_OK) {
    fl_err_clear();
    return -1;
  }
  for (size_t k = n; k-- > 0 && got < 0;) {
    int ok = 0;
    char why[512];
    if (vs[k] >= v)
      continue;
    if (fl_ckpt_verify(d->ck, vs[k], &ok, why, sizeof why) != FL_OK)
      fl_err_clear(), ok = 0;
    if (ok)
      got = vs[k];
    else
      fprintf(stderr, "faultline-mpi: role %d: file level: version %ld is damaged too: %s\n", d->rt->role, vs[k], why);
  }
  free(vs);
  return got;
}

/* Restore the file-level version v agreed on, verified as it is read (all or nothing). A version damaged on some
 * role (a checksum that does not match, a torn file) is not the end: every role says the newest version it can
 * restore, the oldest of those is agreed, and every role restores that one — the newest version intact on every
 * role, as SCR does. The damaged version is named (stderr, the row's note, a `corrupt` event); the job's data is
 * lost only when no version is intact everywhere. */
static int fl_drv_restore_file(fl_drv *d, long v)
{
  fl_rt *rt = d->rt;
  const int n = rt->nroles;
  double *m = malloc((size_t)(1 + n) * sizeof *m);
  long first = v;
  int rc = FL_RT_OK;
  char msg[700];
  if (!m)
    return fl_drv_lost(d, FL_LOST_ERROR, "out of memory");
  for (;;) {
    long mine = v, agreed;
    for (int k = 0; k <= n; k++)
      m[k] = -1.0;
    if (fl_ckpt_restore_all(d->ck, v, NULL) != FL_OK) {
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
      fl_err_clear();
      fprintf(stderr, "faultline-mpi: role %d: file level: version %ld cannot be restored: %s\n", rt->role, v, msg);
      m[1 + rt->role] = (double)v;
      mine = fl_drv_intact_before(d, v);
    }
    m[0] = -(double)mine; /* the maximum of the negatives: the oldest version some role can restore */
    if ((rc = fl_rt_max(rt, m, 1 + n)) != FL_RT_OK)
      break;
    agreed = (long)-m[0];
    for (int role = 0; role < n; role++)
      if (m[1 + role] >= 0) {
        size_t used = strlen(d->res->note);
        snprintf(d->res->note + used, sizeof d->res->note - used, "%sfile level: version %.0f of role %d corrupt",
                 used ? "; " : "", m[1 + role], role);
        if (d->cfg->events) {
          fl_evlog_entry *e = fl_evlog_add_text(d->cfg->events, fl_rt_now() - d->t_start, FL_EV_REAL_CORRUPT,
                                                rt->role_holder[role], "version %.0f", m[1 + role]);
          if (e)
            e->rank = role;
        }
      }
    if (agreed == v)
      break; /* every role restored v */
    if (agreed < 0) {
      snprintf(msg, sizeof msg, "data lost: no file-level version at or before %ld is intact on every role (%s)", first,
               d->res->note);
      rc = fl_drv_lost(d, FL_LOST_DATA, msg);
      break;
    }
    v = agreed;
  }
  if (rc == FL_RT_OK && v != first) {
    size_t used = strlen(d->res->note);
    snprintf(d->res->note + used, sizeof d->res->note - used, "; restored version %ld instead", v);
    if (rt->role == 0)
      fprintf(stderr, "faultline-mpi: file level: restored version %ld, the newest intact on every role\n", v);
  }
  free(m);
  return rc;
}

/* After an agreed recovery: what the strategy decides, done. */
static int fl_drv_restore(fl_drv *d, int *need_init)
{
  fl_rt *rt = d->rt;
  /* the view from this replica set: the dead role's copy in it is gone and no other copy of it lives in the set
   * (under replication the other sets carry the job meanwhile; they are not waited for), so copies_left is 0 and
   * the strategy says how the set itself is re-created: from its newest checkpoint, or from scratch */
  fl_failure_view view = {.copies_left = 0,
                          .buddy_intact = rt->mirrors_intact && rt->agreed_version >= 0,
                          .buddy_version = d->imc ? rt->agreed_version : -1,
                          .file_version = rt->agreed_file_version,
                          .reshaped = rt->reshaped};
  fl_recovery r = fl_strat_on_failure(d->strat, &view);
  double t0 = fl_rt_now();
  if (rt->degree > 1)
    d->res->replica_rebuilds++; /* masked for the job: this set catches up (or retires) */
  int rc = FL_RT_OK;

  rt->my_file_version = rt->agreed_file_version; /* a promoted spare learns it here */
  rt->my_file_gen = rt->agreed_file_gen;
  if (d->imc)
    fl_imc_drop_pending(d->imc);
  if (rt->ndead == 0 && r.action != FL_ACT_ROLLBACK) {
    *need_init = 1; /* a false alarm before any checkpoint: every role is alive, start over */
    return FL_RT_OK;
  }
  fl_drv_decided(d, r);
  if (d->ops->repair) { /* the roles whose data is gone, for the application's repair */
    memset(d->lost, 0, (size_t)rt->nroles);
    for (int k = 0; k < rt->ndead; k++)
      if (rt->dead_roles[k] >= 0 && rt->dead_roles[k] < rt->nroles)
        d->lost[rt->dead_roles[k]] = 1;
  }
  if (r.action == FL_ACT_RESTART) {
    *need_init = 0;
    if (d->ops->repair)
      return fl_drv_repair(d, NULL, t0);
    *need_init = 1;
    d->replaying = 1;
    return FL_RT_OK;
  }
  if (r.level == FL_LEVEL_BUDDY) {
    rc = fl_imc_restore(d->imc, d->state);
    if (rc == FL_RT_LOST) {
      char msg[128];
      snprintf(msg, sizeof msg, "checkpoint version %ld not found", rt->agreed_version);
      return fl_drv_lost(d, FL_LOST_DATA, msg);
    }
  } else if (rt->agreed_file_gen != rt->generation) {
    if ((rc = fl_drv_restore_recut(d, r.version, rt->agreed_file_gen)) != FL_RT_OK)
      return rc;
  } else {
    if ((rc = fl_drv_open_file(d)) != FL_RT_OK)
      return rc;
    if ((rc = fl_drv_restore_file(d, r.version)) != FL_RT_OK)
      return rc;
  }
  if (rc != FL_RT_OK)
    return rc;
  *need_init = 0;
  if (d->ops->repair)
    return fl_drv_repair(d, d->state, t0);
  if (r.level == FL_LEVEL_BUDDY || rt->agreed_file_gen == rt->generation)
    d->ops->unpack(d->app, d->state);
  if (d->imc) { /* mirrors again (a promoted spare holds none; after a file rollback they are newer than the state) */
    rc = fl_imc_start_copy(d->imc, d->state, d->ops->iteration(d->app));
    if (rc == FL_RT_OK)
      rc = fl_imc_commit(d->imc);
  }
  d->res->restore_s += fl_rt_now() - t0;
  d->clean = 0; /* a failure: an adapting rule starts over */
  if (rc == FL_RT_OK)
    rc = fl_drv_plan(d);
  return rc;
}

/* The run ended on every role: the waste figures of the slowest role (what the job waited). */
static void fl_drv_agree_figures(fl_drv *d)
{
  fl_rt *rt = d->rt;
  fl_driver_result *res = d->res;
  /* the slowest role's times, and the counts of a role that lived through the whole run (a spare promoted half-way
   * committed only the second half: its counts are not the job's) */
  double m[8] = {res->commit_s,
                 res->restore_s,
                 res->replay_s,
                 rt->recoveries ? rt->detect_s / rt->recoveries : 0.0,
                 rt->recoveries ? rt->recover_s / rt->recoveries : 0.0,
                 (double)res->commits,
                 (double)res->file_commits,
                 res->ckpt_bytes};
  res->detect_s = m[3];
  res->recover_s = m[4];
  if (fl_rt_max(rt, m, 8) != FL_RT_OK)
    return; /* a failure after the end: my own figures stand */
  res->commit_s = m[0];
  res->restore_s = m[1];
  res->replay_s = m[2];
  res->detect_s = m[3];
  res->recover_s = m[4];
  res->commits = (long)m[5];
  res->file_commits = (long)m[6];
  res->ckpt_bytes = m[7];
}

void fl_driver_run(fl_rt *rt, const fl_mpi_app_ops *ops, void *app, const fl_driver_config *cfg, fl_driver_result *res)
{
  const double t_start = fl_rt_now();
  fl_drv d;
  int rc = FL_RT_OK, need_init = 1;

  memset(res, 0, sizeof *res);
  memset(&d, 0, sizeof d);
  res->status = "idle";
  d.t_start = t_start;
  d.rt = rt;
  d.ops = ops;
  d.app = app;
  d.cfg = cfg;
  d.res = res;
  d.strat = cfg->strat;
  d.bytes = ops->checkpoint_bytes(app);
  d.ck_role = -1;
  d.next_ckpt = d.plan_at = -1;
  rt->policy_decides = 1;
  rt->shrink_ok = cfg->shrink;
  d.state = malloc(d.bytes ? d.bytes : 1);
  d.lost = calloc((size_t)rt->wsize + 1, 1);
  d.fired = calloc((size_t)cfg->nlose + 1, 1);
  if (!d.lost || !d.fired)
    d.state = (free(d.state), NULL);
  if ((d.strat->levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) && !(d.imc = fl_imc_create(rt, d.bytes, 0)))
    d.state = (free(d.state), NULL);
  if (!d.state) {
    res->status = "lost";
    res->lost_kind = FL_LOST_ERROR;
    snprintf(res->message, sizeof res->message, "out of memory");
    goto done;
  }
  if (cfg->nlose > 0 && (!ops->repair || (d.strat->levels & ~FL_LEVEL_BIT(FL_LEVEL_BUDDY)))) {
    res->status = "lost";
    res->lost_kind = FL_LOST_ERROR;
    snprintf(res->message, sizeof res->message,
             "injected losses need an application that repairs (%s does not) and a strategy that writes the buddy "
             "level or nothing (%s)",
             ops->name, d.strat->ops->name);
    goto done;
  }
  if (cfg->shrink && !ops->unpack_from && !ops->recover_tasks) {
    res->status = "lost";
    res->lost_kind = FL_LOST_ERROR;
    snprintf(res->message, sizeof res->message,
             "shrink re-cuts the rows of a dead rank, which %s cannot (no unpack_from)", ops->name);
    goto done;
  }
  if ((d.strat->levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) && !cfg->file_dir) {
    res->status = "lost";
    res->lost_kind = FL_LOST_ERROR;
    snprintf(res->message, sizeof res->message, "the file level needs a directory (mpi.checkpoint_dir or --out)");
    goto done;
  }
  if (rt->role >= 0)
    ops->set_role(app);
  for (;;) {
    if (rt->role < 0) {
      if (fl_rt_spare_wait(rt) == FL_RT_DONE)
        goto done;
    } else {
      if (need_init) {
        double t0 = fl_rt_now();
        rc = fl_drv_init(&d);
        if (d.replaying)
          res->replay_s += fl_rt_now() - t0;
        need_init = rc != FL_RT_OK;
      }
      while (rc == FL_RT_OK && !ops->finished(app)) {
        long it = ops->iteration(app);
        double t0;
        if (cfg->nlose > 0) {
          int any = 0;
          rc = fl_drv_inject(&d, it, &any);
          if (any)
            continue; /* repaired: finished again? */
        }
        fl_driver_maybe_die(rt, cfg, it, t_start);
        t0 = fl_rt_now();
        rc = ops->step(app);
        fl_rt_heartbeat(rt);
        if (rc != FL_RT_OK)
          break;
        {
          double dt = fl_rt_now() - t0;
          if (it < d.high)
            res->replay_s += dt; /* done before the failure: waste */
          else
            d.high = it + 1;
          d.t_compute += dt;
          d.it_compute++;
        }
        d.replaying = 0;
        it = ops->iteration(app);
        if (d.strat->levels && it == d.next_ckpt) {
          rc = fl_drv_checkpoint(&d);
          if (rc == FL_RT_OK) {
            d.clean++;
            rc = fl_drv_plan(&d);
          }
        } else if (it == d.plan_at) {
          rc = fl_drv_plan(&d);
        }
      }
      if (rc == FL_RT_OK) {
        res->status = "ended";
        fl_drv_agree_figures(&d);
        goto done;
      }
      if (rc == FL_RT_LOST) {
        fl_drv_lost_from_rt(&d);
        goto done;
      }
    }
    /* a failure: agree, promote, and do what the strategy decides */
    {
      long versions[2] = {-1, -1};
      if (ops->versions)
        ops->versions(app, versions);
      else if (d.imc)
        fl_imc_versions(d.imc, versions);
      {
        double detect0 = rt->detect_s, recover0 = rt->recover_s;
        int holders[256], nh = rt->nroles < 256 ? rt->nroles : 256;
        for (int r = 0; r < nh; r++)
          holders[r] = rt->role_holder[r];
        rc = fl_rt_recover(rt, versions);
        fl_drv_log_recovery(&d, rc, holders, nh, rt->detect_s - detect0, rt->recover_s - recover0);
      }
      if (rc == FL_RT_LOST) {
        res->status = "lost";
        res->lost_kind = rt->lost_kind;
        snprintf(res->message, sizeof res->message, "%s", rt->lost_msg);
        goto done;
      }
      if (rc != FL_RT_OK) {
        res->status = "dead";
        snprintf(res->message, sizeof res->message, "declared dead by the other ranks");
        goto done;
      }
      if (rt->role < 0)
        continue; /* still a spare */
      if (rt->promoted || rt->reshaped)
        ops->set_role(app);
      if (ops->recover_tasks) { /* the strategy decides per failed task; no rollback */
        rc = ops->recover_tasks(app, rt->agreed_version, res, &need_init);
        if (rc == FL_RT_OK && need_init) {
          res->rollbacks[FL_LEVEL_SCRATCH]++;
          d.replaying = 1;
        }
      } else if ((rc = fl_drv_relayout(&d)) == FL_RT_OK) {
        rc = fl_drv_restore(&d, &need_init);
      }
      if (rc == FL_RT_LOST) {
        fl_drv_lost_from_rt(&d);
        goto done;
      }
      /* FL_RT_FAILED: another failure during the restore: the loop recovers again */
    }
  }
done:
  res->wall_s = fl_rt_now() - t_start;
  if (d.imc)
    res->ckpt_bytes += fl_imc_bytes(d.imc);
  fl_ckpt_destroy(&d.ck);
  fl_imc_destroy(&d.imc);
  free(d.state);
  free(d.lost);
  free(d.fired);
}
