/* cpu.c — the "cpu" TMR backend: replicas on threads, the vote on the host.
 *
 * The fallback wherever CUDA is not compiled in or no GPU answers, and a backend in its own right. Replica 0
 * computes straight into the caller's output, replicas 1 and 2 into scratch copies kept between runs; inputs are
 * shared, except that a replica with an input fault reads a private, corrupted copy. Concurrently, replica r runs
 * on thread r of a small pool (the caller's thread and two workers, started at the first concurrent run), then
 * each thread votes a third of every output; in turn, everything runs on the caller's thread. The pool is worth
 * its wake-up only for tasks of some size (FL_TMR_CPU_MIN_WORK), hence FL_TMR_AUTO.
 *
 * The kernels' CPU versions are the apps/ functions (fl_diff_apply, fl_gw_sweep); AXPY and the chain have no app
 * of their own and use the element functions the GPU runs (kernels.h). The seed warns that threads give no hardware
 * isolation unless they are pinned to distinct cores: these are not pinned (docs/tmr.md, limits). */
#include "kernels.h"
#include "tmr_impl.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_TMR_CPU_THREADS 3
#define FL_TMR_CPU_MIN_WORK (1L << 17) /* operations per replica below which threads cost more than they save */
#define FL_TMR_CPU_MIN_INTENSITY 10    /* operations per output element below which in turn (chunked) wins */
#define FL_TMR_CPU_CHUNK 1024L         /* output elements per chunk in turn: inputs and 3 copies of 8 KiB fit L1 */

typedef struct fl_tmr_cpu {
  /* the pool: part 0 runs on the caller, parts 1 .. FL_TMR_CPU_THREADS-1 on workers */
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  pthread_t th[FL_TMR_CPU_THREADS - 1];
  int nstarted, stop, pending, locks_ready;
  unsigned long gen;
  void (*fn)(struct fl_tmr_cpu *cpu, int part);
  /* the attempt in flight, read by the parts */
  const fl_tmr_task *task;
  const fl_tmr_exec *exec;
  const double *rin[3][FL_TMR_MAX_ARRAYS];
  double *rout[3][FL_TMR_MAX_ARRAYS];
  fl_tmr_tally part_tally[FL_TMR_CPU_THREADS][FL_TMR_MAX_ARRAYS];
  /* buffers kept between runs */
  double *scratch[3][FL_TMR_MAX_ARRAYS];
  long scratch_cap[3][FL_TMR_MAX_ARRAYS];
  double *priv[3][FL_TMR_MAX_ARRAYS];
  long priv_cap[3][FL_TMR_MAX_ARRAYS];
  double *chunkbuf[3]; /* in turn: replicas 1 and 2's copy of one chunk of output 0 */
  long chunkbuf_cap[3];
} fl_tmr_cpu;

typedef struct fl_tmr_worker_arg {
  fl_tmr_cpu *cpu;
  int part;
} fl_tmr_worker_arg;

static void *fl_tmr_cpu_worker(void *p)
{
  fl_tmr_cpu *cpu = ((fl_tmr_worker_arg *)p)->cpu;
  int part = ((fl_tmr_worker_arg *)p)->part;
  unsigned long seen = 0;
  pthread_mutex_lock(&cpu->mu);
  for (;;) {
    void (*fn)(fl_tmr_cpu *, int);
    while (cpu->gen == seen && !cpu->stop)
      pthread_cond_wait(&cpu->go, &cpu->mu);
    if (cpu->stop)
      break;
    seen = cpu->gen;
    fn = cpu->fn;
    pthread_mutex_unlock(&cpu->mu);
    fn(cpu, part);
    pthread_mutex_lock(&cpu->mu);
    if (--cpu->pending == 0)
      pthread_cond_signal(&cpu->done);
  }
  pthread_mutex_unlock(&cpu->mu);
  free(p);
  return NULL;
}

static fl_err fl_tmr_cpu_start(fl_tmr_cpu *cpu)
{
  fl_err rc = FL_OK;
  while (cpu->nstarted < FL_TMR_CPU_THREADS - 1) {
    fl_tmr_worker_arg *arg = malloc(sizeof *arg);
    int e;
    FL_CHECK(arg != NULL, FL_ERR_NOMEM, "tmr cpu: out of memory starting a worker");
    arg->cpu = cpu;
    arg->part = cpu->nstarted + 1;
    e = pthread_create(&cpu->th[cpu->nstarted], NULL, fl_tmr_cpu_worker, arg);
    if (e != 0)
      free(arg);
    FL_CHECK(e == 0, FL_ERR_IO, "tmr cpu: cannot start worker thread %d (%s)", cpu->nstarted + 1, strerror(e));
    cpu->nstarted++;
  }
done:
  return rc;
}

/* Run fn(cpu, part) for every part at once: part 0 on this thread, the others on the pool. */
static fl_err fl_tmr_cpu_parts(fl_tmr_cpu *cpu, void (*fn)(fl_tmr_cpu *, int))
{
  fl_err rc = FL_OK;
  FL_TRY(fl_tmr_cpu_start(cpu));
  pthread_mutex_lock(&cpu->mu);
  cpu->fn = fn;
  cpu->pending = FL_TMR_CPU_THREADS - 1;
  cpu->gen++;
  pthread_cond_broadcast(&cpu->go);
  pthread_mutex_unlock(&cpu->mu);
  fn(cpu, 0);
  pthread_mutex_lock(&cpu->mu);
  while (cpu->pending > 0)
    pthread_cond_wait(&cpu->done, &cpu->mu);
  pthread_mutex_unlock(&cpu->mu);
done:
  return rc;
}

/* ---- the kernels, CPU versions ---- */

/* A task's iteration space is items: rows for the matvec (fl_diff_apply works on row blocks), elements or states
 * otherwise; item i writes output-0 elements [i w, (i + 1) w). A second output is a reduction over the items (the
 * grid world's max change): the range's share is returned, and fmax-ed by the caller. */
static long fl_tmr_cpu_items(const fl_tmr_task *t)
{
  return t->kernel == FL_TMR_DIFFUSION ? t->nrows : t->out_n[0];
}
static long fl_tmr_cpu_width(const fl_tmr_task *t)
{
  return t->kernel == FL_TMR_DIFFUSION ? t->diff->n : 1;
}

/* Items [first, last) into out_first, whose element k is output-0 element first w + k. out_full is the whole
 * output array (then out_first == out_full + first w) or NULL for a chunk buffer; the grid world's sweep indexes
 * its output absolutely and always gets one. */
static double fl_tmr_cpu_kernel_range(const fl_tmr_task *task, const double *const *in, double *out_first,
                                      double *out_full, long first, long last)
{
  switch (task->kernel) {
  case FL_TMR_AXPY: {
    const double a = task->a, *x = in[0] + first, *y = in[1] + first;
    for (long i = 0; i < last - first; i++)
      out_first[i] = fl_tmr_k_axpy(i, a, x, y);
    break;
  }
  case FL_TMR_CHAIN: {
    const double *x = in[0] + first;
    for (long i = 0; i < last - first; i++)
      out_first[i] = fl_tmr_k_chain(i, task->steps, task->a, x);
    break;
  }
  case FL_TMR_DIFFUSION: fl_diff_apply(task->diff, last - first, in[0] + first * task->diff->n, out_first); break;
  case FL_TMR_GRIDWORLD: {
    fl_gw g = *task->gw;
    g.reward = (double *)in[1]; /* read only: the sweep never writes it */
    return fl_gw_sweep(&g, in[0], out_full, first, last);
  }
  }
  return 0.0;
}

static void fl_tmr_cpu_kernel(const fl_tmr_task *task, const double *const *in, double *const *out)
{
  double change = fl_tmr_cpu_kernel_range(task, in, out[0], out[0], 0, fl_tmr_cpu_items(task));
  if (task->nout > 1)
    out[1][0] = change;
}

/* Items per chunk in turn. */
static long fl_tmr_cpu_chunk(const fl_tmr_task *task)
{
  long w = fl_tmr_cpu_width(task);
  return FL_TMR_CPU_CHUNK / w > 0 ? FL_TMR_CPU_CHUNK / w : 1;
}

static void fl_tmr_cpu_replica_part(fl_tmr_cpu *cpu, int part)
{
  if (part < cpu->exec->vote.replicas)
    fl_tmr_cpu_kernel(cpu->task, cpu->rin[part], cpu->rout[part]);
}

/* Part p votes the p-th third of every output. */
static void fl_tmr_cpu_vote_part(fl_tmr_cpu *cpu, int part)
{
  const fl_tmr_task *task = cpu->task;
  const int three = cpu->exec->vote.replicas == 3;
  for (int k = 0; k < task->nout; k++) {
    long n = task->out_n[k], first = n * part / FL_TMR_CPU_THREADS, last = n * (part + 1) / FL_TMR_CPU_THREADS;
    fl_tmr_tally *t = &cpu->part_tally[part][k];
    memset(t, 0, offsetof(fl_tmr_tally, positions));
    fl_tmr_vote_range(cpu->rout[0][k] + first, cpu->rout[1][k] + first, three ? cpu->rout[2][k] + first : NULL,
                      last - first, first, k, &cpu->exec->vote, t);
  }
}

static fl_err fl_tmr_cpu_grow(double **buf, long *cap, long n)
{
  fl_err rc = FL_OK;
  if (*cap < n) {
    double *p = realloc(*buf, (size_t)n * sizeof *p);
    FL_CHECK(p != NULL, FL_ERR_NOMEM, "tmr cpu: out of memory for a replica copy of %ld doubles", n);
    *buf = p;
    *cap = n;
  }
done:
  return rc;
}

/* Flip the output faults of replica r that fall in elements [base, base + n) of output `array`, held at p[0 .. n). */
static void fl_tmr_cpu_flip_outputs(const fl_tmr_exec *exec, int r, int array, double *p, long base, long n)
{
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    if (ft->target == FL_TMR_OUTPUT && ft->replica == r && ft->array == array && ft->element >= base &&
        ft->element < base + n)
      fl_tmr_flip(&p[ft->element - base], ft->bit);
  }
}

/* In turn: cache-sized chunks of items, each computed by every replica in turn, faulted, and voted while it is
 * still in cache. Replicas 1 and 2 compute a chunk into a small buffer of their own that stays in cache (the grid
 * world's sweep needs whole arrays: they get full copies), so a bandwidth-bound kernel reads its inputs from memory
 * once and writes only the real output there. The replicas stay independent computations into their own memory;
 * only the schedule is blocked. */
static void fl_tmr_cpu_in_turn(fl_tmr_cpu *cpu, const fl_tmr_task *task, const fl_tmr_exec *exec, fl_tmr_tally *tally)
{
  const int nrep = exec->vote.replicas;
  const long items = fl_tmr_cpu_items(task), w = fl_tmr_cpu_width(task), chunk = fl_tmr_cpu_chunk(task);
  double change[3] = {0.0, 0.0, 0.0};
  for (long c0 = 0; c0 < items; c0 += chunk) {
    long c1 = c0 + chunk < items ? c0 + chunk : items;
    double *o[3] = {NULL, NULL, NULL};
    for (int r = 0; r < nrep; r++) {
      double *full = cpu->rout[r][0];
      o[r] = full ? full + c0 * w : cpu->chunkbuf[r];
      change[r] = fmax(change[r], fl_tmr_cpu_kernel_range(task, cpu->rin[r], o[r], full, c0, c1));
      fl_tmr_cpu_flip_outputs(exec, r, 0, o[r], c0 * w, (c1 - c0) * w);
    }
    fl_tmr_vote_range(o[0], o[1], o[2], (c1 - c0) * w, c0 * w, 0, &exec->vote, tally);
  }
  for (int k = 1; k < task->nout; k++) {
    for (int r = 0; r < nrep; r++) {
      cpu->rout[r][k][0] = change[r];
      fl_tmr_cpu_flip_outputs(exec, r, k, cpu->rout[r][k], 0, task->out_n[k]);
    }
    fl_tmr_vote_range(cpu->rout[0][k], cpu->rout[1][k], nrep == 3 ? cpu->rout[2][k] : NULL, task->out_n[k], 0, k,
                      &exec->vote, tally);
  }
}

static fl_err fl_tmr_cpu_attempt(void *state, const fl_tmr_task *task, const fl_tmr_exec *exec, fl_tmr_tally *tally)
{
  fl_err rc = FL_OK;
  fl_tmr_cpu *cpu = state;
  const int nrep = exec->vote.replicas;
  const int chunked = !exec->concurrent && task->kernel != FL_TMR_GRIDWORLD;

  cpu->task = task;
  cpu->exec = exec;
  for (int r = 0; r < nrep; r++) {
    for (int k = 0; k < task->nin; k++)
      cpu->rin[r][k] = task->in[k];
    for (int k = 0; k < task->nout; k++) {
      if (r == 0) {
        cpu->rout[r][k] = task->out[k];
      } else if (k == 0 && chunked) {
        long n = fl_tmr_cpu_chunk(task) * fl_tmr_cpu_width(task);
        FL_TRY(fl_tmr_cpu_grow(&cpu->chunkbuf[r], &cpu->chunkbuf_cap[r], n));
        cpu->rout[r][k] = NULL;
      } else {
        FL_TRY(fl_tmr_cpu_grow(&cpu->scratch[r][k], &cpu->scratch_cap[r][k], task->out_n[k]));
        cpu->rout[r][k] = cpu->scratch[r][k];
      }
    }
  }
  /* input faults: the replica reads a private copy with the bits flipped */
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    int r = ft->replica, k = ft->array;
    if (ft->target != FL_TMR_INPUT)
      continue;
    if (cpu->rin[r][k] == task->in[k]) {
      FL_TRY(fl_tmr_cpu_grow(&cpu->priv[r][k], &cpu->priv_cap[r][k], task->in_n[k]));
      memcpy(cpu->priv[r][k], task->in[k], (size_t)task->in_n[k] * sizeof(double));
      cpu->rin[r][k] = cpu->priv[r][k];
    }
    fl_tmr_flip(&cpu->priv[r][k][ft->element], ft->bit);
  }
  if (!exec->concurrent) {
    fl_tmr_cpu_in_turn(cpu, task, exec, tally);
    goto done;
  }
  /* concurrent: replica r on thread r over the whole task, then each thread votes a third of every output */
  FL_TRY(fl_tmr_cpu_parts(cpu, fl_tmr_cpu_replica_part));
  for (int r = 0; r < nrep; r++)
    for (int k = 0; k < task->nout; k++)
      fl_tmr_cpu_flip_outputs(exec, r, k, cpu->rout[r][k], 0, task->out_n[k]);
  FL_TRY(fl_tmr_cpu_parts(cpu, fl_tmr_cpu_vote_part));
  for (int k = 0; k < task->nout; k++)
    for (int p = 0; p < FL_TMR_CPU_THREADS; p++)
      fl_tmr_tally_merge(tally, &cpu->part_tally[p][k]);
done:
  return rc;
}

static fl_err fl_tmr_cpu_plain(void *state, const fl_tmr_task *task)
{
  (void)state;
  fl_tmr_cpu_kernel(task, task->in, task->out);
  return FL_OK;
}

static fl_err fl_tmr_cpu_nothing(void *state, const fl_tmr_task *task)
{
  (void)state;
  (void)task;
  return FL_OK;
}

/* Threads pay off for a task big enough to cover their wake-up and heavy enough per element to be bound by
 * compute (the chain, the grid-world sweep); a kernel light per element (AXPY, the matvec) does better in turn,
 * chunked, reading its inputs from memory once (bench_tmr: AXPY 1.8x in turn vs 2.6x concurrent, the matvec 3.2x
 * vs 3.6-5.9x; the sweep 3.1x vs 2.2x, the chain 3.0x vs 2.2x, with two free cores). */
static int fl_tmr_cpu_auto(void *state, const fl_tmr_task *task)
{
  (void)state;
  return task->work >= FL_TMR_CPU_MIN_WORK && task->work >= FL_TMR_CPU_MIN_INTENSITY * task->out_n[0];
}

static int fl_tmr_cpu_probe(char *why, size_t len)
{
  if (why && len)
    snprintf(why, len, "%d threads", FL_TMR_CPU_THREADS);
  return 1;
}

static void fl_tmr_cpu_destroy(void **state)
{
  fl_tmr_cpu *cpu = state ? *state : NULL;
  if (!cpu)
    return;
  if (cpu->locks_ready) {
    pthread_mutex_lock(&cpu->mu);
    cpu->stop = 1;
    pthread_cond_broadcast(&cpu->go);
    pthread_mutex_unlock(&cpu->mu);
    for (int i = 0; i < cpu->nstarted; i++)
      pthread_join(cpu->th[i], NULL);
    pthread_mutex_destroy(&cpu->mu);
    pthread_cond_destroy(&cpu->go);
    pthread_cond_destroy(&cpu->done);
  }
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < FL_TMR_MAX_ARRAYS; k++) {
      free(cpu->scratch[r][k]);
      free(cpu->priv[r][k]);
    }
    free(cpu->chunkbuf[r]);
  }
  free(cpu);
  *state = NULL;
}

static fl_err fl_tmr_cpu_create(const fl_tmr_config *cfg, void **state)
{
  fl_err rc = FL_OK;
  fl_tmr_cpu *cpu = NULL;
  (void)cfg;
  FL_ALLOC(cpu, 1);
  FL_CHECK(pthread_mutex_init(&cpu->mu, NULL) == 0, FL_ERR_IO, "tmr cpu: pthread_mutex_init failed");
  if (pthread_cond_init(&cpu->go, NULL) != 0) {
    pthread_mutex_destroy(&cpu->mu);
    FL_CHECK(0, FL_ERR_IO, "tmr cpu: pthread_cond_init failed");
  }
  if (pthread_cond_init(&cpu->done, NULL) != 0) {
    pthread_cond_destroy(&cpu->go);
    pthread_mutex_destroy(&cpu->mu);
    FL_CHECK(0, FL_ERR_IO, "tmr cpu: pthread_cond_init failed");
  }
  cpu->locks_ready = 1;
  *state = cpu;
  cpu = NULL;
done:
  free(cpu);
  return rc;
}

const fl_tmr_backend_ops fl_tmr_cpu_ops = {
    .name = "cpu",
    .probe = fl_tmr_cpu_probe,
    .create = fl_tmr_cpu_create,
    .destroy = fl_tmr_cpu_destroy,
    .auto_concurrent = fl_tmr_cpu_auto,
    .begin = fl_tmr_cpu_nothing,
    .attempt = fl_tmr_cpu_attempt,
    .finish = fl_tmr_cpu_nothing,
    .plain = fl_tmr_cpu_plain,
};
