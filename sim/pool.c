/* pool.c — a scenario's replicas on worker processes (fl_sim_run_replicas, sim.h).
 *
 * Forked once the simulation is set up (its platform and scenario shared copy-on-write), worker w simulates
 * replicas[k] for k % n == w, in order, and writes each result to its own pipe: a code (and the error's text), the
 * result, its events. The caller's function gets replicas[k] from worker k % n, in k order: rows written as they come
 * are in replica order whatever n, so a database is the same (ids, rows, events) as with one process; a worker at most
 * one result ahead waits on its pipe, no more. A result travels as its bytes: the pointers in it (a status, a solver's
 * name) are the simulation's, set up before the fork, and so the same in the parent — which is why a workload, whose
 * jobs live in the worker, runs in this process (fl_sim_forkable). */
#define _GNU_SOURCE /* prctl */
#include "sim.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct fl_pool {
  int n;
  pid_t *pid;
  FILE **in;
} fl_pool;

static void fl_pool_stop(fl_pool *p, int kill_them)
{
  for (int w = 0; w < p->n; w++) {
    if (p->in && p->in[w])
      fclose(p->in[w]);
    if (p->pid && p->pid[w] > 0) {
      if (kill_them)
        kill(p->pid[w], SIGKILL);
      while (waitpid(p->pid[w], NULL, 0) < 0 && errno == EINTR)
        ;
    }
  }
  free(p->pid);
  free(p->in);
  memset(p, 0, sizeof *p);
}

static void fl_pool_worker(fl_sim *sim, const long *list, long nlist, int w, int n, int events, FILE *out)
{
  fl_evlog log;
  fl_evlog_init(&log, events);
  for (long k = w; k < nlist; k += n) {
    fl_sim_result res;
    int32_t code;
    fl_err rc;
    fl_evlog_clear(&log);
    rc = fl_sim_run_replica(sim, list[k], &res, &log);
    code = (int32_t)rc;
    if (fwrite(&code, sizeof code, 1, out) != 1)
      _exit(3);
    if (rc != FL_OK) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
      fwrite(msg, sizeof msg, 1, out);
      break;
    }
    if (fwrite(&res, sizeof res, 1, out) != 1 || fl_sim_events_send(&log, out) != FL_OK || fflush(out) != 0)
      _exit(3);
  }
  _exit(fflush(out) == 0 ? 0 : 3);
}

static fl_err fl_pool_start(fl_pool *p, fl_sim *sim, const long *list, long nlist, int n, int events)
{
  fl_err rc = FL_OK;
  memset(p, 0, sizeof *p);
  FL_ALLOC(p->pid, n);
  FL_ALLOC(p->in, n);
  p->n = n;
  FL_TRY(fl_sim_before_fork(sim));
  for (int w = 0; w < n; w++) {
    int fds[2];
    FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "cannot make a pipe for a worker: %s", strerror(errno));
    fflush(NULL);
    p->pid[w] = fork();
    if (p->pid[w] < 0) {
      close(fds[0]);
      close(fds[1]);
      rc = fl_err_set(FL_ERR_IO, "cannot fork a worker: %s", strerror(errno));
      goto done;
    }
    if (p->pid[w] == 0) {
      FILE *out;
      static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
      /* the parent's clean-up is the parent's (a worker stopped alone must not unlink its files), and a worker
       * does not outlive it */
      for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_DFL);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() == 1)
        _exit(3);
      for (int v = 0; v < w; v++) /* the other workers' results are none of its business */
        fclose(p->in[v]);
      close(fds[0]);
      out = fdopen(fds[1], "w");
      if (!out)
        _exit(3);
      fl_pool_worker(sim, list, nlist, w, n, events, out);
    }
    close(fds[1]);
    p->in[w] = fdopen(fds[0], "r");
    FL_CHECK(p->in[w] != NULL, FL_ERR_IO, "cannot read a worker: %s", strerror(errno));
  }
done:
  if (rc != FL_OK)
    fl_pool_stop(p, 1);
  return rc;
}

/* The result of list[k] (replica r), from its worker. */
static fl_err fl_pool_get(fl_pool *p, long k, long r, fl_sim_result *res, fl_evlog *log)
{
  fl_err rc = FL_OK;
  int w = (int)(k % p->n);
  int32_t code;
  FILE *f = p->in[w];
  fl_evlog_clear(log);
  if (fread(&code, sizeof code, 1, f) != 1) {
    int status = 0;
    while (waitpid(p->pid[w], &status, 0) < 0 && errno == EINTR)
      ;
    p->pid[w] = 0;
    rc = fl_err_set(FL_ERR_SIM, "replica %ld: its worker process %s %d", r,
                    WIFSIGNALED(status) ? "died of signal" : "exited with",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    goto done;
  }
  if (code != 0) {
    char msg[1024] = "";
    if (fread(msg, sizeof msg, 1, f) != 1)
      snprintf(msg, sizeof msg, "replica %ld failed in its worker", r);
    msg[sizeof msg - 1] = '\0';
    rc = fl_err_set((fl_err)code, "%s", msg);
    goto done;
  }
  FL_CHECK(fread(res, sizeof *res, 1, f) == 1, FL_ERR_IO, "replica %ld: its result came back short", r);
  FL_TRY(fl_sim_events_receive(log, f));
done:
  return rc;
}

fl_err fl_sim_run_replicas(fl_sim *sim, const long *replicas, long n, int jobs, fl_evlog *log, fl_sim_each_fn fn,
                           void *ctx)
{
  fl_err rc = FL_OK;
  fl_pool pool = {0};
  fl_sim_result res;
  fl_evlog own;
  fl_evlog *lg = log ? log : &own;
  int level = log && log->enabled ? 1 + log->phases : 0;
  if (!log)
    fl_evlog_init(&own, 0);
  if (jobs > 1 && n > 1 && fl_sim_forkable(sim))
    FL_TRY(fl_pool_start(&pool, sim, replicas, n, jobs < n ? jobs : (int)n, level));
  for (long k = 0; k < n; k++) {
    if (pool.n > 0)
      FL_TRY(fl_pool_get(&pool, k, replicas[k], &res, lg));
    else
      FL_TRY(fl_sim_run_replica(sim, replicas[k], &res, lg));
    FL_TRY(fn(ctx, k, &res, lg));
  }
done:
  fl_pool_stop(&pool, rc != FL_OK);
  if (!log)
    fl_evlog_free(&own);
  return rc;
}
