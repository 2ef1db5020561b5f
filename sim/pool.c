/* pool.c — a scenario's replicas on worker processes (fl_sim_run_replicas, sim.h).
 *
 * Forked once the simulation is set up (its platform and scenario shared copy-on-write), worker w simulates
 * replicas[k] for k % n == w, in order, and writes each result to its own pipe: a code (and the error's text), the
 * result, its events. The caller's function gets replicas[k] from worker k % n, in k order: rows written as they come
 * are in replica order whatever n, so a database is the same (ids, rows, events) as with one process; a worker at most
 * one result ahead waits on its pipe, no more. A result travels as its bytes: the pointers in it (a status, a solver's
 * name) are the simulation's, set up before the fork, and so the same in the parent — which is why a workload, whose
 * jobs live in the worker, runs in this process (fl_sim_forkable). */
#define _GNU_SOURCE /* prctl, sched_getaffinity, strsignal */
#include "cleanup.h"
#include "sim.h"

#include <errno.h>
#include <sched.h>
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

static void fl_pool_worker(fl_sim *sim, const long *list, long nlist, long first, int n, int events, FILE *out)
{
  fl_evlog log;
  fl_evlog_init(&log, events);
  for (long k = first; k < nlist; k += n) {
    fl_sim_result res;
    int32_t code;
    fl_err rc;
    long before[3], after[3];
    fl_evlog_clear(&log);
    fl_sim_engine_counts(&before[0], &before[1], &before[2]);
    rc = fl_sim_run_replica(sim, list[k], &res, &log);
    fl_sim_engine_counts(&after[0], &after[1], &after[2]);
    for (int e = 0; e < 3; e++)
      after[e] -= before[e];
    code = (int32_t)rc;
    if (fwrite(&code, sizeof code, 1, out) != 1)
      _exit(3);
    if (rc != FL_OK) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
      fwrite(msg, sizeof msg, 1, out);
      break;
    }
    /* the result, its events, and which engine ran it (FAULTLINE_SIM_ENGINE = check counts them in the parent) */
    if (fwrite(&res, sizeof res, 1, out) != 1 || fl_sim_events_send(&log, out) != FL_OK ||
        fwrite(after, sizeof after, 1, out) != 1 || fflush(out) != 0)
      _exit(3);
  }
  _exit(fflush(out) == 0 ? 0 : 3);
}

/* Fork worker w, to simulate list[first], list[first + n], ... (first = w at the start; after a worker died, the
 * replica after the one it took down with it). */
static fl_err fl_pool_spawn(fl_pool *p, fl_sim *sim, const long *list, long nlist, int w, long first, int events)
{
  fl_err rc = FL_OK;
  int fds[2];
  FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "cannot make a pipe for a worker: %s", strerror(errno));
  fflush(NULL);
  p->pid[w] = fork();
  if (p->pid[w] < 0) {
    p->pid[w] = 0;
    close(fds[0]);
    close(fds[1]);
    FL_CHECK(0, FL_ERR_IO, "cannot fork a worker: %s", strerror(errno));
  }
  if (p->pid[w] == 0) {
    FILE *out;
    fl_cleanup_child();               /* the parent's clean-up is the parent's; what it ignores, its workers ignore */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* and a worker does not outlive it */
    if (getppid() == 1)
      _exit(3);
    for (int v = 0; v < p->n; v++) /* the other workers' results are none of its business */
      if (p->in[v])
        fclose(p->in[v]);
    close(fds[0]);
    out = fdopen(fds[1], "w");
    if (!out)
      _exit(3);
    fl_pool_worker(sim, list, nlist, first, p->n, events, out);
  }
  close(fds[1]);
  p->in[w] = fdopen(fds[0], "r");
  FL_CHECK(p->in[w] != NULL, FL_ERR_IO, "cannot read a worker: %s", strerror(errno));
done:
  return rc;
}

static fl_err fl_pool_start(fl_pool *p, fl_sim *sim, const long *list, long nlist, int n, int events)
{
  fl_err rc = FL_OK;
  memset(p, 0, sizeof *p);
  FL_ALLOC(p->pid, n);
  FL_ALLOC(p->in, n);
  p->n = n;
  FL_TRY(fl_sim_before_fork(sim));
  for (int w = 0; w < n; w++)
    FL_TRY(fl_pool_spawn(p, sim, list, nlist, w, w, events));
done:
  if (rc != FL_OK)
    fl_pool_stop(p, 1);
  return rc;
}

/* The result of list[k] (replica r), from its worker. A worker that ended before it sent the whole result (killed,
 * out of memory) is waited for and *lost set, with what became of it in `why`; it is not an error of the run. */
static fl_err fl_pool_get(fl_pool *p, long k, long r, fl_sim_result *res, fl_evlog *log, int *lost, char *why,
                          size_t size)
{
  fl_err rc = FL_OK;
  int w = (int)(k % p->n), status = 0;
  int32_t code;
  long engines[3];
  FILE *f = p->in[w];
  *lost = 0;
  fl_evlog_clear(log);
  if (fread(&code, sizeof code, 1, f) != 1)
    goto gone;
  if (code != 0) {
    char msg[1024] = "";
    if (fread(msg, sizeof msg, 1, f) != 1)
      snprintf(msg, sizeof msg, "replica %ld failed in its worker", r);
    msg[sizeof msg - 1] = '\0';
    rc = fl_err_set((fl_err)code, "%s", msg);
    goto done;
  }
  if (fread(res, sizeof *res, 1, f) != 1 || fl_sim_events_receive(log, f) != FL_OK ||
      fread(engines, sizeof engines, 1, f) != 1)
    goto gone;
  fl_sim_engine_add(engines);
  goto done;
gone:
  fclose(f);
  p->in[w] = NULL;
  kill(p->pid[w], SIGKILL); /* (a worker that sent half a result and lives on is no use either) */
  while (waitpid(p->pid[w], &status, 0) < 0 && errno == EINTR)
    ;
  p->pid[w] = 0;
  *lost = 1;
  if (WIFSIGNALED(status))
    snprintf(why, size, "died of signal %d (%s)%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
             WTERMSIG(status) == SIGKILL ? ": killed, or out of memory" : "");
  else
    snprintf(why, size, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
done:
  return rc;
}

int fl_sim_cores(void)
{
  cpu_set_t set;
  long n;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set); /* what this process may use: a Slurm allocation's, a cgroup's, taskset's */
  n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* A /proc figure in kB (key "MemAvailable:" of /proc/meminfo, "VmRSS:" of /proc/self/status), or -1. */
static long fl_proc_kb(const char *file, const char *key)
{
  char line[256];
  long v = -1;
  size_t len = strlen(key);
  FILE *f = fopen(file, "r");
  if (!f)
    return -1;
  while (v < 0 && fgets(line, sizeof line, f))
    if (strncmp(line, key, len) == 0)
      v = atol(line + len);
  fclose(f);
  return v;
}

/* Workers that fit the memory: each shares what is set up (copy-on-write) and writes its own replica state — about
 * a seventh of the set-up's resident size for a 1M-node job (measured: 140 MB of 1.03 GB), reckoned here as a
 * quarter plus 16 MB — and a fifth of what is available is left to everything else. */
static int fl_pool_fit(int want)
{
  long rss = fl_proc_kb("/proc/self/status", "VmRSS:"), avail = fl_proc_kb("/proc/meminfo", "MemAvailable:"), each, fit;
  static int said;
  if (rss < 0 || avail < 0)
    return want;
  each = rss / 4 + 16 * 1024;
  fit = (long)(0.8 * (double)avail) / each;
  if (fit >= want)
    return want;
  fit = fit < 1 ? 1 : fit;
  if (!said++)
    fprintf(stderr,
            "faultline: %ld worker process%s, not %d: each may need about %ld MB beside the %ld MB set up, and %ld MB "
            "is available\n",
            fit, fit == 1 ? "" : "es", want, each / 1024, rss / 1024, avail / 1024);
  return (int)fit;
}

/* The most worker processes a call below has run at once (1: none, the replicas ran in this process). */
static int fl_pool_most = 1;

int fl_sim_workers_used(void)
{
  return fl_pool_most;
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
  long nlost = 0, first_lost = -1;
  if (!log)
    fl_evlog_init(&own, 0);
  if (jobs > 1 && n > 1 && fl_sim_forkable(sim)) {
    jobs = fl_pool_fit(jobs < n ? jobs : (int)n);
    if (jobs > 1)
      FL_TRY(fl_pool_start(&pool, sim, replicas, n, jobs, level));
    if (jobs > fl_pool_most)
      fl_pool_most = jobs;
  }
  for (long k = 0; k < n; k++) {
    if (pool.n > 0) {
      int lost;
      char why[160];
      FL_TRY(fl_pool_get(&pool, k, replicas[k], &res, lg, &lost, why, sizeof why));
      if (lost) {
        /* that replica has no row (a later run of the same command simulates it: rows are found by their key);
         * the worker's next replicas go to a new one, forked from this process as the first were */
        fprintf(stderr, "faultline: replica %ld: its worker process %s; no row for it, the others go on\n", replicas[k],
                why);
        if (nlost++ == 0)
          first_lost = replicas[k];
        if (k + pool.n < n)
          FL_TRY(fl_pool_spawn(&pool, sim, replicas, n, (int)(k % pool.n), k + pool.n, level));
        continue;
      }
    } else {
      FL_TRY(fl_sim_run_replica(sim, replicas[k], &res, lg));
    }
    FL_TRY(fn(ctx, k, &res, lg));
  }
  FL_CHECK(nlost == 0, FL_ERR_SIM,
           "%ld replica%s (replica %ld%s) lost with %s worker process%s: the other rows are written; the same "
           "command again simulates only what is missing",
           nlost, nlost == 1 ? "" : "s", first_lost, nlost > 1 ? " first" : "", nlost == 1 ? "its" : "their",
           nlost == 1 ? "" : "es");
done:
  fl_pool_stop(&pool, rc != FL_OK);
  if (!log)
    fl_evlog_free(&own);
  return rc;
}
