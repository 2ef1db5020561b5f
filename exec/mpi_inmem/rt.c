/* rt.c — the fault-tolerant runtime (see rt.h for the protocol). */
#define _DEFAULT_SOURCE /* usleep */
#include "rt.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  FL_TAG_ALIVE = 101,
  FL_TAG_VIEW = 102,
  FL_TAG_DONE = 103,
  FL_TAG_PING = 104,
  FL_TAG_PONG = 105,
  FL_TAG_FENCE = 106,
  FL_TAG_STOP = 107,
  FL_TAG_TALLY = 108
};

/* A VIEW message: epoch, my two committed versions, my file-level version and its generation, then one entry per
 * world rank (who I heard). */
#define FL_VIEW_HEADER 5

double fl_rt_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fl_rt_nap(int spins)
{
  /* oversubscribed ranks must leave the cores to one another while they poll: yield first (free when a core
   * is idle), sleep only when the wait drags on */
  if (spins < 20000)
    sched_yield();
  else
    usleep(spins > 40000 ? 1000 : 50);
}

void fl_rt_heartbeat(fl_rt *rt)
{
  double now;
  if (rt->beat_fd < 0)
    return;
  now = fl_rt_now();
  if (now - rt->beat_t < 0.25)
    return;
  rt->beat_t = now;
  (void)futimens(rt->beat_fd, NULL); /* mtime := now; the watchdog reads it */
}

/* The replica set of world rank w: active ranks in blocks of nroles, spares dealt round-robin. */
static int fl_rt_set_of(const fl_rt *rt, int w)
{
  int active = rt->nroles * rt->degree;
  return w < active ? w / rt->nroles : (w - active) % rt->degree;
}

int fl_rt_init(fl_rt *rt, int nroles, int degree, int mirror, double timeout_s)
{
  memset(rt, 0, sizeof *rt);
  rt->beat_fd = -1;
  MPI_Comm_dup(MPI_COMM_WORLD, &rt->world);
  MPI_Comm_rank(rt->world, &rt->wrank);
  MPI_Comm_size(rt->world, &rt->wsize);
  if (nroles < 1 || degree < 1 || nroles * degree > rt->wsize)
    return -1;
  rt->nroles = nroles;
  rt->degree = degree;
  rt->mirror = mirror;
  rt->timeout_s = timeout_s;
  rt->set = fl_rt_set_of(rt, rt->wrank);
  rt->role = rt->wrank < nroles * degree ? rt->wrank % nroles : -1;
  rt->role_holder = calloc((size_t)nroles, sizeof *rt->role_holder);
  rt->alive = calloc((size_t)rt->wsize, 1);
  rt->foreign = calloc((size_t)rt->wsize, 1);
  rt->announced = calloc((size_t)rt->wsize, sizeof *rt->announced);
  rt->dead_roles = calloc((size_t)nroles, sizeof *rt->dead_roles);
  if (!rt->role_holder || !rt->alive || !rt->foreign || !rt->dead_roles || !rt->announced)
    return -1;
  for (int r = 0; r < nroles; r++)
    rt->role_holder[r] = rt->set * nroles + r;
  /* the ranks of the other replica sets are none of this set's business: never heard, never counted, never
   * promoted, never fenced (replication: each set is a whole copy of the job, recovered on its own) */
  for (int w = 0; w < rt->wsize; w++) {
    rt->foreign[w] = fl_rt_set_of(rt, w) != rt->set;
    rt->alive[w] = !rt->foreign[w];
  }
  {
    /* the job's identity, the same on every process: one row per job however many sets finish */
    double id[2] = {(double)time(NULL), (double)getpid()};
    const char *given = getenv("FAULTLINE_JOB_ID"); /* `faultline run` names the job, and finds its row by it */
    MPI_Bcast(id, 2, MPI_DOUBLE, 0, rt->world);
    if (given && *given && strlen(given) < sizeof rt->job_id)
      snprintf(rt->job_id, sizeof rt->job_id, "%s", given);
    else
      snprintf(rt->job_id, sizeof rt->job_id, "%.0f.%.0f", id[0], id[1]);
  }
  {
    /* every process's host name (a node's failure takes all the processes of one name) */
    char me[64] = "";
    rt->hosts = calloc((size_t)rt->wsize, sizeof *rt->hosts);
    if (!rt->hosts)
      return -1;
    gethostname(me, sizeof me - 1);
    MPI_Allgather(me, 64, MPI_CHAR, rt->hosts, 64, MPI_CHAR, rt->world);
  }
  rt->per_node = 1;
  rt->agreed_version = -1;
  rt->agreed_file_version = -1;
  rt->my_file_version = -1;
  rt->mirrors_intact = 1;
  /* the initial active communicator (a WORLD collective, before anything can fail) */
  MPI_Comm_split(rt->world, rt->role >= 0 ? rt->set : MPI_UNDEFINED, rt->role, &rt->comm);
  return 0;
}

void fl_rt_adopt(fl_rt *rt, void *ptr)
{
  if (rt->nkept == rt->capkept) {
    size_t nc = rt->capkept ? 2 * rt->capkept : 64;
    void **g = realloc(rt->kept, nc * sizeof *g);
    if (!g)
      return; /* leak rather than free memory an abandoned request may write */
    rt->kept = g;
    rt->capkept = nc;
  }
  rt->kept[rt->nkept++] = ptr;
}

/* A copy of `bytes` for a send that may never complete; owned by rt until finalize. */
static void *fl_rt_keep(fl_rt *rt, const void *data, size_t bytes)
{
  void *copy = malloc(bytes);
  if (copy) {
    memcpy(copy, data, bytes);
    fl_rt_adopt(rt, copy);
  }
  return copy;
}

void fl_rt_finalize(fl_rt *rt)
{
  if (rt->beat_fd >= 0)
    close(rt->beat_fd);
  rt->beat_fd = -1;
  for (size_t k = 0; k < rt->nkept; k++)
    free(rt->kept[k]);
  free(rt->kept);
  free(rt->role_holder);
  free(rt->alive);
  free(rt->foreign);
  free(rt->announced);
  free(rt->dead_roles);
  free(rt->hosts);
}

/* A role's mirror is on another node: the role R places further on (ring) or the same place on the partner node
 * (pair: nodes 0-1, 2-3, ...), R = mpi.ranks_per_node (1: the next role, and pairs 0-1, 2-3, as ever). */
static int fl_rt_stride(const fl_rt *rt)
{
  return rt->per_node > 1 ? rt->per_node : 1;
}

int fl_rt_mirror_holder(const fl_rt *rt, int r)
{
  int s = fl_rt_stride(rt);
  if (rt->mirror == FL_RT_MIRROR_PAIR) {
    int p = ((r / s) ^ 1) * s + r % s;
    return p < rt->nroles ? p : 0;
  }
  return (r + s) % rt->nroles;
}

int fl_rt_mirror_source(const fl_rt *rt, int r)
{
  int s = fl_rt_stride(rt);
  if (rt->mirror == FL_RT_MIRROR_PAIR) {
    int p = ((r / s) ^ 1) * s + r % s;
    /* with an odd count (one rank a node), role 0 also holds the last role's mirror; it reports that one */
    if (s == 1 && r == 0 && (rt->nroles % 2) == 1)
      return rt->nroles - 1;
    return p < rt->nroles ? p : r;
  }
  return (r + rt->nroles - s % rt->nroles) % rt->nroles;
}

/* Answer the spares' liveness pings (an active rank does it in every poll). */
static void fl_rt_answer_pings(fl_rt *rt)
{
  static const int pong = 0;
  int flag = 1;
  MPI_Status st;
  while (flag) {
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_PING, rt->world, &flag, &st);
    if (flag) {
      int x;
      MPI_Request req;
      MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_PING, rt->world, MPI_STATUS_IGNORE);
      MPI_Isend((void *)&pong, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_PONG, rt->world, &req);
      MPI_Request_free(&req);
    }
  }
}

/* Fencing. A rank the others declared dead may come back (stopped longer than the timeout, then continued): its
 * role went to a spare meanwhile. Its announcements are not a recovery: the others answer FENCE, and a rank that
 * receives FENCE leaves at once (SIGKILL, like any death), so one consistent outcome stands — the job's. */
static void fl_rt_fence(fl_rt *rt, int w)
{
  static const int fence = 0;
  MPI_Request req;
  MPI_Isend((void *)&fence, 1, MPI_INT, w, FL_TAG_FENCE, rt->world, &req);
  MPI_Request_free(&req);
}

static void fl_rt_check_fenced(fl_rt *rt)
{
  int flag = 0;
  MPI_Status st;
  fl_rt_answer_pings(rt); /* a spare's liveness pings, another replica set's census (fl_rt_job_failures) */
  if (rt->degree > 1) {
    /* another replica set finished the job and wrote its row: this copy's work is moot */
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_STOP, rt->world, &flag, &st);
    if (flag) {
      fflush(NULL);
      _exit(0);
    }
  }
  MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_FENCE, rt->world, &flag, &st);
  if (flag) {
    fprintf(stderr,
            "faultline-mpi: rank %d was silent longer than mpi.timeout and has been replaced; it leaves (fenced)\n",
            rt->wrank);
    fflush(stderr);
    kill(getpid(), SIGKILL);
  }
}

/* An ALIVE from w: 1 to take it, 0 when w is a rank we declared dead (fenced instead). */
static int fl_rt_take_alive(fl_rt *rt, int w)
{
  if (rt->alive[w])
    return 1;
  if (!rt->foreign[w])
    fl_rt_fence(rt, w);
  return 0;
}

/* Is another rank announcing a recovery newer than ours? */
static int fl_rt_recovery_announced(fl_rt *rt)
{
  int flag = 0;
  MPI_Status st;
  fl_rt_check_fenced(rt);
  MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_ALIVE, rt->world, &flag, &st);
  if (flag) {
    int e = 0;
    MPI_Recv(&e, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_ALIVE, rt->world, MPI_STATUS_IGNORE);
    if (!fl_rt_take_alive(rt, st.MPI_SOURCE))
      return rt->pending_epoch > rt->epoch;
    if (e > rt->announced[st.MPI_SOURCE])
      rt->announced[st.MPI_SOURCE] = e; /* the recovery's first phase counts it */
    if (e > rt->epoch) {
      if (e > rt->pending_epoch)
        rt->pending_epoch = e;
      return 1;
    }
  }
  return rt->pending_epoch > rt->epoch;
}

int fl_rt_wait(fl_rt *rt, MPI_Request *reqs, int n)
{
  double t0 = fl_rt_now();
  int done = 0, spins = 0;
  for (;;) {
    MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    if (done)
      return FL_RT_OK;
    if (fl_rt_recovery_announced(rt) || fl_rt_now() - t0 > rt->timeout_s) {
      rt->t_wait_start = t0;
      rt->t_suspect = fl_rt_now();
      return FL_RT_FAILED;
    }
    fl_rt_nap(++spins);
  }
}

static int fl_rt_allgather(fl_rt *rt, const double *mine, int n, double *all)
{
  MPI_Request req;
  MPI_Iallgather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, rt->comm, &req);
  return fl_rt_wait(rt, &req, 1);
}

/* Every role's vals gathered, then reduced per entry in role order (the same result whoever holds the roles):
 * the sum, or the maximum. */
static int fl_rt_reduce(fl_rt *rt, double *vals, int n, int max)
{
  double *all = malloc((size_t)(n * rt->nroles) * sizeof *all);
  int rc;
  if (!all) {
    rt->lost_kind = FL_LOST_ERROR;
    snprintf(rt->lost_msg, sizeof rt->lost_msg, "out of memory");
    return FL_RT_LOST;
  }
  rc = fl_rt_allgather(rt, vals, n, all);
  if (rc != FL_RT_OK) {
    fl_rt_adopt(rt, all); /* its abandoned request may still write into it */
    return rc;
  }
  for (int k = 0; k < n; k++) {
    double v = max ? all[k] : 0.0;
    for (int r = max ? 1 : 0; r < rt->nroles; r++)
      v = max ? (all[r * n + k] > v ? all[r * n + k] : v) : v + all[r * n + k];
    vals[k] = v;
  }
  free(all);
  return rc;
}

int fl_rt_sum(fl_rt *rt, double *vals, int n)
{
  return fl_rt_reduce(rt, vals, n, 0);
}

int fl_rt_max(fl_rt *rt, double *vals, int n)
{
  return fl_rt_reduce(rt, vals, n, 1);
}

/* Replication's tallies, to every process of the other sets: [set, kind, one entry per world rank]. A VIEW says
 * whom my set holds alive after an agreement (the others are its failures); LEFT says that this process ends
 * without failing (its set finished or retired), so a census does not take its silence for a death. */
enum { FL_TALLY_VIEW = 0, FL_TALLY_LEFT = 1 };

static void fl_rt_tell_sets(fl_rt *rt, int kind)
{
  int n = rt->wsize + 2, *msg = malloc((size_t)n * sizeof *msg), *sent, nreq = 0, done = 0;
  MPI_Request *reqs = calloc((size_t)rt->wsize, sizeof *reqs);
  double t0 = fl_rt_now();
  if (!msg || !reqs) {
    free(msg);
    free(reqs);
    return;
  }
  msg[0] = rt->set;
  msg[1] = kind;
  for (int w = 0; w < rt->wsize; w++)
    msg[2 + w] = rt->alive[w];
  sent = fl_rt_keep(rt, msg, (size_t)n * sizeof *msg);
  free(msg);
  for (int w = 0; w < rt->wsize && sent; w++)
    if (rt->foreign[w])
      MPI_Isend(sent, n, MPI_INT, w, FL_TAG_TALLY, rt->world, &reqs[nreq++]);
  /* leaving, the process exits next: give the sends a moment to go out (to a dead process one may never
   * complete: then it is abandoned, its buffer kept) */
  while (kind == FL_TALLY_LEFT && !done && fl_rt_now() - t0 < 0.5) {
    MPI_Testall(nreq, reqs, &done, MPI_STATUSES_IGNORE);
    if (!done)
      usleep(1000);
  }
  for (int k = 0; k < nreq; k++)
    if (reqs[k] != MPI_REQUEST_NULL)
      MPI_Request_free(&reqs[k]);
  free(reqs);
}

/* Phase 1 of a recovery round: announce epoch e to every rank believed alive and collect who answers. Ranks
 * that announce a newer epoch make us jump to it (*e updated, returns 1 to restart the round). */
static int fl_rt_collect_alive(fl_rt *rt, int *e, unsigned char *heard)
{
  double deadline;
  int spins = 0, nheard = 1, expect = 0;
  MPI_Request req;
  for (int w = 0; w < rt->wsize; w++) {
    heard[w] = rt->alive[w] && rt->announced[w] == *e && w != rt->wrank;
    nheard += heard[w];
  }
  heard[rt->wrank] = 1;
  int *announce = fl_rt_keep(rt, e, sizeof *e);
  if (!announce)
    return 0;
  for (int w = 0; w < rt->wsize; w++)
    if (w != rt->wrank && rt->alive[w]) {
      MPI_Isend(announce, 1, MPI_INT, w, FL_TAG_ALIVE, rt->world, &req);
      MPI_Request_free(&req); /* to a dead rank it may never complete: the buffer is kept */
      expect++;
    }
  deadline = fl_rt_now() + rt->timeout_s;
  while (nheard <= expect && fl_rt_now() < deadline) {
    int flag = 0, got;
    MPI_Status st;
    fl_rt_check_fenced(rt);
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_ALIVE, rt->world, &flag, &st);
    if (!flag) {
      fl_rt_nap(++spins);
      continue;
    }
    MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_ALIVE, rt->world, MPI_STATUS_IGNORE);
    if (!fl_rt_take_alive(rt, st.MPI_SOURCE))
      continue;
    if (got > rt->announced[st.MPI_SOURCE])
      rt->announced[st.MPI_SOURCE] = got;
    if (got > *e) {
      *e = got;
      return 1;
    }
    if (got == *e && rt->alive[st.MPI_SOURCE] && !heard[st.MPI_SOURCE]) {
      heard[st.MPI_SOURCE] = 1;
      nheard++;
    }
  }
  return 0;
}

/* Phase 2: exchange views; agreed when every rank in my view sent a view equal to mine. Fills versions[]. */
static int fl_rt_exchange_views(fl_rt *rt, int e, const unsigned char *heard, const long my_versions[2], long *versions,
                                int *gens, int *agreed)
{
  const int len = FL_VIEW_HEADER + rt->wsize;
  long *msg = calloc((size_t)len, sizeof *msg), *in = calloc((size_t)len, sizeof *in);
  unsigned char *got = calloc((size_t)rt->wsize, 1);
  int spins = 0, missing = 0;
  double deadline;
  MPI_Request req;
  if (!msg || !in || !got) {
    free(msg);
    free(in);
    free(got);
    return -1;
  }
  long *sent;
  msg[0] = e;
  msg[1] = my_versions[0];
  msg[2] = my_versions[1];
  msg[3] = rt->my_file_version;
  msg[4] = rt->my_file_gen;
  for (int w = 0; w < rt->wsize; w++)
    msg[FL_VIEW_HEADER + w] = heard[w];
  sent = fl_rt_keep(rt, msg, (size_t)len * sizeof *msg);
  for (int w = 0; w < rt->wsize && sent; w++)
    if (w != rt->wrank && heard[w]) {
      MPI_Isend(sent, len, MPI_LONG, w, FL_TAG_VIEW, rt->world, &req);
      MPI_Request_free(&req);
      missing++;
    }
  versions[3 * rt->wrank] = my_versions[0];
  versions[3 * rt->wrank + 1] = my_versions[1];
  versions[3 * rt->wrank + 2] = rt->my_file_version;
  gens[rt->wrank] = rt->my_file_gen;
  *agreed = 1;
  deadline = fl_rt_now() + rt->timeout_s;
  while (missing > 0 && fl_rt_now() < deadline) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_VIEW, rt->world, &flag, &st);
    if (!flag) {
      /* a newer announcement means this round is over */
      if (fl_rt_recovery_announced(rt) && rt->pending_epoch > e) {
        *agreed = 0;
        break;
      }
      fl_rt_nap(++spins);
      continue;
    }
    MPI_Recv(in, len, MPI_LONG, st.MPI_SOURCE, FL_TAG_VIEW, rt->world, MPI_STATUS_IGNORE);
    if (in[0] != e || !heard[st.MPI_SOURCE] || got[st.MPI_SOURCE])
      continue; /* stale, or from a rank we already count as dead */
    got[st.MPI_SOURCE] = 1;
    missing--;
    versions[3 * st.MPI_SOURCE] = in[1];
    versions[3 * st.MPI_SOURCE + 1] = in[2];
    versions[3 * st.MPI_SOURCE + 2] = in[3];
    gens[st.MPI_SOURCE] = (int)in[4];
    if (memcmp(msg + FL_VIEW_HEADER, in + FL_VIEW_HEADER, (size_t)rt->wsize * sizeof *msg) != 0)
      *agreed = 0;
  }
  if (missing > 0)
    *agreed = 0;
  free(msg);
  free(in);
  free(got);
  return 0;
}

int fl_rt_recover(fl_rt *rt, const long my_versions[2])
{
  unsigned char *heard = malloc((size_t)rt->wsize);
  long *versions = malloc((size_t)(3 * rt->wsize) * sizeof *versions);
  int *gens = calloc((size_t)rt->wsize, sizeof *gens);
  int e = (rt->pending_epoch > rt->epoch ? rt->pending_epoch : rt->epoch + 1), agreed = 0, rc = FL_RT_OK;
  int *holder = NULL, was_role = rt->role;
  double t_start = rt->t_suspect > 0 ? rt->t_suspect : fl_rt_now();
  /* who was alive as the recovery began: every process it ends without is one failure, counted once, here, however
   * many rounds it took (a death during the agreement shrinks alive[] in a round that did not agree) */
  unsigned char *before = malloc((size_t)rt->wsize);

  if (!heard || !versions || !gens || !before) {
    rc = FL_RT_LOST;
    rt->lost_kind = FL_LOST_ERROR;
    snprintf(rt->lost_msg, sizeof rt->lost_msg, "out of memory in recovery");
    goto done;
  }
  memcpy(before, rt->alive, (size_t)rt->wsize);
  while (!agreed) {
    if (fl_rt_collect_alive(rt, &e, heard))
      continue;
    if (fl_rt_exchange_views(rt, e, heard, my_versions, versions, gens, &agreed) != 0) {
      rc = FL_RT_LOST;
      rt->lost_kind = FL_LOST_ERROR;
      snprintf(rt->lost_msg, sizeof rt->lost_msg, "the recovery agreement failed");
      goto done;
    }
    if (!agreed) {
      /* someone saw something else: shrink to what I heard and try the next epoch */
      for (int w = 0; w < rt->wsize; w++)
        rt->alive[w] = rt->alive[w] && heard[w];
      e = (rt->pending_epoch > e ? rt->pending_epoch : e + 1);
    }
  }
  /* agreed: heard[] is everyone's view */
  for (int w = 0; w < rt->wsize; w++) {
    if (before[w] && !heard[w])
      rt->failures++;
    rt->alive[w] = heard[w];
  }
  if (rt->degree > 1) {
    /* replication: the other sets learn whom this set declared dead, so that whichever finishes counts the job's
     * failures (one process says it: the first of my set alive) */
    int first = 0;
    while (first < rt->wsize && (rt->foreign[first] || !rt->alive[first]))
      first++;
    if (first == rt->wrank)
      fl_rt_tell_sets(rt, FL_TALLY_VIEW);
  }
  rt->epoch = e;
  rt->pending_epoch = e;

  /* the version to restore: the newest that every surviving active rank has committed */
  {
    long v = -1, fv = -1;
    int first = 1;
    for (int r = 0; r < rt->nroles; r++) {
      int w = rt->role_holder[r];
      if (!rt->alive[w])
        continue;
      if (first || versions[3 * w] < v)
        v = versions[3 * w];
      if (first || versions[3 * w + 2] < fv) {
        fv = versions[3 * w + 2];
        rt->agreed_file_gen = gens[w];
      }
      first = 0;
    }
    rt->agreed_version = v;
    rt->agreed_file_version = fv;
  }
  /* dead roles, their mirrors, spares */
  rt->ndead = 0;
  rt->promoted = 0;
  holder = malloc((size_t)rt->nroles * sizeof *holder);
  memcpy(holder, rt->role_holder, (size_t)rt->nroles * sizeof *holder);
  for (int r = 0; r < rt->nroles; r++)
    if (!rt->alive[holder[r]])
      rt->dead_roles[rt->ndead++] = r;
  rt->mirrors_intact = 1;
  for (int k = 0; k < rt->ndead; k++) {
    int r = rt->dead_roles[k], m = fl_rt_mirror_holder(rt, r);
    if (!rt->alive[rt->role_holder[m]] || m == r)
      rt->mirrors_intact = 0;
    if (rt->policy_decides)
      continue; /* the strategy says what a lost mirror means (a file level, or start over) */
    if (!rt->alive[rt->role_holder[m]] || m == r) {
      rc = FL_RT_LOST;
      rt->lost_kind = FL_LOST_DATA;
      snprintf(rt->lost_msg, sizeof rt->lost_msg,
               "data lost: role %d (rank %d) and role %d holding its checkpoint mirror (rank %d) both died before a "
               "new commit",
               r, rt->role_holder[r], m, rt->role_holder[m]);
      goto done;
    }
    if (rt->agreed_version < 0) {
      rc = FL_RT_LOST;
      rt->lost_kind = FL_LOST_DATA;
      snprintf(rt->lost_msg, sizeof rt->lost_msg,
               "data lost: role %d (rank %d) died before the first checkpoint commit", r, rt->role_holder[r]);
      goto done;
    }
  }
  {
    int next_spare = 0;
    for (int k = 0; k < rt->ndead; k++) {
      int w = -1;
      for (int c = next_spare; c < rt->wsize; c++) {
        int is_holder = 0;
        for (int r = 0; r < rt->nroles; r++)
          is_holder |= holder[r] == c;
        if (rt->alive[c] && !is_holder) {
          w = c;
          next_spare = c + 1;
          break;
        }
      }
      if (w < 0 && rt->shrink_ok) {
        holder[rt->dead_roles[k]] = -1; /* dropped: the job goes on with fewer roles */
        continue;
      }
      if (w < 0) {
        rc = FL_RT_LOST;
        rt->lost_kind = FL_LOST_NO_SPARE;
        {
          /* placed by node, the node is named: it is what was lost */
          int dead = rt->role_holder[rt->dead_roles[k]];
          if (rt->per_node > 1 && rt->hosts)
            snprintf(rt->lost_msg, sizeof rt->lost_msg, "no spare left for role %d (rank %d died with node %s)",
                     rt->dead_roles[k], dead, rt->hosts[dead]);
          else
            snprintf(rt->lost_msg, sizeof rt->lost_msg, "no spare left for role %d (rank %d died)", rt->dead_roles[k],
                     dead);
        }
        goto done;
      }
      holder[rt->dead_roles[k]] = w;
    }
  }
  rt->reshaped = 0;
  {
    /* shrink: the roles left, renumbered in order (their rows are re-cut by the application) */
    int n = 0;
    for (int r = 0; r < rt->nroles; r++)
      if (holder[r] >= 0)
        holder[n++] = holder[r];
    if (n == 0) {
      rc = FL_RT_LOST;
      rt->lost_kind = FL_LOST_NO_SPARE;
      snprintf(rt->lost_msg, sizeof rt->lost_msg, "every rank died and no spare is left");
      goto done;
    }
    if (n < rt->nroles) {
      rt->reshaped = 1;
      rt->old_nroles = rt->nroles;
      rt->nroles = n;
      rt->generation++;
    }
  }
  memcpy(rt->role_holder, holder, (size_t)rt->nroles * sizeof *holder);
  rt->role = -1;
  for (int r = 0; r < rt->nroles; r++)
    if (holder[r] == rt->wrank)
      rt->role = r;
  rt->promoted = was_role < 0 && rt->role >= 0;
  /* the new active communicator, built by its members alone */
  rt->comm = MPI_COMM_NULL; /* the old one is abandoned with its pending requests */
  if (rt->role >= 0) {
    MPI_Group wg, g;
    MPI_Comm_group(rt->world, &wg);
    MPI_Group_incl(wg, rt->nroles, rt->role_holder, &g);
    MPI_Comm_create_group(rt->world, g, 1000 + e, &rt->comm);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
  }
  rt->recoveries++;
  rt->detect_s += (rt->t_suspect > 0 ? rt->t_suspect - rt->t_wait_start : 0.0);
  rt->recover_s += fl_rt_now() - t_start;
done:
  free(heard);
  free(versions);
  free(gens);
  free(before);
  free(holder);
  rt->t_suspect = 0;
  return rc;
}

int fl_rt_spare_wait(fl_rt *rt)
{
  static const int ping = 0;
  int spins = 0;
  double t_ping = fl_rt_now(), t_pong = t_ping;
  for (;;) {
    double now = fl_rt_now();
    int got = 0;
    MPI_Status st;
    /* liveness: if every active rank died at once, nobody would announce a recovery; so a spare pings the role
     * holders every timeout and starts one itself when none answered for two timeouts */
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_PONG, rt->world, &got, &st);
    while (got) {
      int x;
      MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_PONG, rt->world, MPI_STATUS_IGNORE);
      t_pong = now;
      MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_PONG, rt->world, &got, &st);
    }
    if (now - t_ping >= rt->timeout_s) {
      for (int r = 0; r < rt->nroles; r++) {
        MPI_Request req;
        if (!rt->alive[rt->role_holder[r]])
          continue;
        MPI_Isend((void *)&ping, 1, MPI_INT, rt->role_holder[r], FL_TAG_PING, rt->world, &req);
        MPI_Request_free(&req);
      }
      t_ping = now;
    }
    {
      int flag = 0;
      MPI_Status done_st;
      MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_DONE, rt->world, &flag, &done_st);
      if (flag) {
        int x;
        MPI_Recv(&x, 1, MPI_INT, done_st.MPI_SOURCE, FL_TAG_DONE, rt->world, MPI_STATUS_IGNORE);
        return FL_RT_DONE;
      }
    }
    if (fl_rt_recovery_announced(rt)) {
      rt->t_wait_start = rt->t_suspect = fl_rt_now();
      return FL_RT_FAILED;
    }
    if (now - t_pong > 2.0 * rt->timeout_s + 0.5) {
      rt->t_wait_start = t_pong;
      rt->t_suspect = now;
      return FL_RT_FAILED;
    }
    usleep(spins++ < 100 ? 100 : 2000);
  }
}

/* Census states of the other sets' processes. */
enum { FL_CENSUS_UNKNOWN = 0, FL_CENSUS_DEAD, FL_CENSUS_LEFT, FL_CENSUS_ANSWERED };

/* Take the tallies that arrived into state[]: a process a VIEW of its own set declared dead is dead for good;
 * one that said LEFT ended well. */
static void fl_rt_take_tallies(fl_rt *rt, unsigned char *state)
{
  int flag = 1, n = rt->wsize + 2, *msg = malloc((size_t)n * sizeof *msg);
  MPI_Status st;
  while (msg) {
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_TALLY, rt->world, &flag, &st);
    if (!flag)
      break;
    MPI_Recv(msg, n, MPI_INT, st.MPI_SOURCE, FL_TAG_TALLY, rt->world, MPI_STATUS_IGNORE);
    if (msg[1] == FL_TALLY_LEFT) {
      if (state[st.MPI_SOURCE] != FL_CENSUS_DEAD)
        state[st.MPI_SOURCE] = FL_CENSUS_LEFT;
      continue;
    }
    for (int w = 0; w < rt->wsize; w++)
      if (rt->foreign[w] && fl_rt_set_of(rt, w) == msg[0] && !msg[2 + w])
        state[w] = FL_CENSUS_DEAD;
  }
  free(msg);
}

int fl_rt_job_failures(fl_rt *rt)
{
  static const int ping = 0;
  unsigned char *state = calloc((size_t)rt->wsize, 1);
  int total = rt->failures, unknown = 0, spins = 0;
  double deadline, t_ping;
  if (!state || rt->degree < 2) {
    free(state);
    return total;
  }
  /* every process of the other sets that neither its set declared dead nor said it left is asked whether it lives;
   * silence for mpi.timeout — the runtime's own verdict — counts it dead: a death its set had not agreed on yet
   * (the set was still detecting it when mine finished) is a failure of the job all the same */
  fl_rt_take_tallies(rt, state);
  for (int w = 0; w < rt->wsize; w++)
    if (rt->foreign[w] && state[w] == FL_CENSUS_UNKNOWN) {
      MPI_Request req;
      MPI_Isend((void *)&ping, 1, MPI_INT, w, FL_TAG_PING, rt->world, &req);
      MPI_Request_free(&req);
    }
  /* three timeouts, pinged again after each: a process alive but starved of a core (an oversubscribed machine)
   * answers late, not never, and a dead one's set says so meanwhile (its agreement's view ends the wait early) */
  t_ping = fl_rt_now();
  deadline = t_ping + 3.0 * rt->timeout_s;
  do {
    int flag = 0;
    MPI_Status st;
    if (fl_rt_now() - t_ping >= rt->timeout_s) {
      t_ping = fl_rt_now();
      for (int w = 0; w < rt->wsize; w++)
        if (rt->foreign[w] && state[w] == FL_CENSUS_UNKNOWN) {
          MPI_Request req;
          MPI_Isend((void *)&ping, 1, MPI_INT, w, FL_TAG_PING, rt->world, &req);
          MPI_Request_free(&req);
        }
    }
    fl_rt_answer_pings(rt); /* another set's census of mine */
    fl_rt_take_tallies(rt, state);
    MPI_Iprobe(MPI_ANY_SOURCE, FL_TAG_PONG, rt->world, &flag, &st);
    if (flag) {
      int x;
      MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, FL_TAG_PONG, rt->world, MPI_STATUS_IGNORE);
      if (rt->foreign[st.MPI_SOURCE] && state[st.MPI_SOURCE] == FL_CENSUS_UNKNOWN)
        state[st.MPI_SOURCE] = FL_CENSUS_ANSWERED;
    }
    /* counted on every pass, an answer's included (a `continue` here once ended the census on the first answer,
     * with the processes not heard from yet counted dead) */
    unknown = 0;
    for (int w = 0; w < rt->wsize; w++)
      unknown += rt->foreign[w] && state[w] == FL_CENSUS_UNKNOWN;
    if (!flag)
      fl_rt_nap(++spins);
  } while (unknown > 0 && fl_rt_now() < deadline);
  for (int w = 0; w < rt->wsize; w++)
    total += rt->foreign[w] && (state[w] == FL_CENSUS_DEAD || state[w] == FL_CENSUS_UNKNOWN);
  free(state);
  return total;
}

void fl_rt_leave(fl_rt *rt)
{
  if (rt->degree > 1)
    fl_rt_tell_sets(rt, FL_TALLY_LEFT);
}

int fl_rt_nodes_lost(const fl_rt *rt, char *names, size_t size)
{
  int n = 0, s = fl_rt_stride(rt);
  size_t len = 0;
  if (names && size)
    names[0] = '\0';
  for (int w = 0; w < rt->wsize; w++) {
    int seen = 0;
    if (rt->foreign[w] || rt->alive[w])
      continue;
    for (int v = 0; v < w && !seen; v++) /* a node counted once, at its first dead process */
      seen = !rt->foreign[v] && !rt->alive[v] && v / s == w / s;
    if (seen)
      continue;
    n++;
    if (names && len < size) { /* each name once (nodes of one machine, as with the local launcher, share it) */
      const char *h = rt->hosts ? rt->hosts[w] : "?";
      int listed = 0;
      for (const char *p = names; *p && !listed; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
        listed = strncmp(p, h, strlen(h)) == 0 && (p[strlen(h)] == ',' || p[strlen(h)] == '\0');
      if (!listed) {
        int k = snprintf(names + len, size - len, "%s%s", len ? "," : "", h);
        len += k > 0 ? (size_t)k : 0;
      }
    }
  }
  return n;
}

int fl_rt_hosts_used(const fl_rt *rt)
{
  int n = 0;
  for (int w = 0; rt->hosts && w < rt->wsize; w++) {
    int seen = 0;
    for (int v = 0; v < w && !seen; v++)
      seen = strcmp(rt->hosts[v], rt->hosts[w]) == 0;
    n += !seen;
  }
  return n;
}

void fl_rt_fence_dead(fl_rt *rt)
{
  static const int stop = 0;
  for (int w = 0; w < rt->wsize; w++) {
    if (w == rt->wrank)
      continue;
    if (rt->foreign[w]) { /* another replica set: the job is done */
      MPI_Request req;
      MPI_Isend((void *)&stop, 1, MPI_INT, w, FL_TAG_STOP, rt->world, &req);
      MPI_Request_free(&req);
    } else if (!rt->alive[w]) {
      fl_rt_fence(rt, w);
    }
  }
}

void fl_rt_release_spares(fl_rt *rt)
{
  static const int x = 0;
  for (int w = 0; w < rt->wsize; w++) {
    int is_holder = 0;
    for (int r = 0; r < rt->nroles; r++)
      is_holder |= rt->role_holder[r] == w;
    if (!is_holder && rt->alive[w]) {
      MPI_Request req;
      MPI_Isend((void *)&x, 1, MPI_INT, w, FL_TAG_DONE, rt->world, &req);
      MPI_Request_free(&req);
    }
  }
}

const char *fl_lost_status(int lost_kind)
{
  return lost_kind == FL_LOST_DATA ? "data_lost" : lost_kind == FL_LOST_NO_SPARE ? "failed" : "error";
}
