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

#define FL_TMR_CPU_SLOTS (FL_TMR_MAX_STAGES * FL_TMR_MAX_ARRAYS) /* (kernel, array) of a run */

typedef struct fl_tmr_cpu {
  /* the pool: part 0 runs on the caller, parts 1 .. FL_TMR_CPU_THREADS-1 on workers */
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  pthread_t th[FL_TMR_CPU_THREADS - 1];
  int nstarted, stop, pending, locks_ready;
  unsigned long gen;
  void (*fn)(struct fl_tmr_cpu *cpu, int part);
  /* the attempt in flight, read by the parts */
  const fl_tmr_kernel_def *k;
  int nk;
  const fl_tmr_exec *exec;
  const void *rin[3][FL_TMR_CPU_SLOTS]; /* what replica r reads as input i of kernel j, before its faults */
  void *rout[3][FL_TMR_CPU_SLOTS];
  int launch_rc[3], launch_stage[3];
  fl_tmr_tally part_tally[FL_TMR_CPU_THREADS][FL_TMR_CPU_SLOTS];
  /* buffers kept between runs */
  void *scratch[3][FL_TMR_CPU_SLOTS]; /* replicas 1, 2: their outputs */
  size_t scratch_cap[3][FL_TMR_CPU_SLOTS];
  void *priv[3][FL_TMR_CPU_SLOTS]; /* a replica's corrupted copy of an input */
  size_t priv_cap[3][FL_TMR_CPU_SLOTS];
  void *chunkbuf[3]; /* in turn: replicas 1 and 2's copy of one chunk of output 0 */
  long chunk_items;  /* fl_tmr_config.chunk_items */
  size_t chunkbuf_cap[3];
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

/* ---- the built-in kernels, CPU versions: kernel definitions like a user's ---- */

/* A task's iteration space is items: rows for the matvec (fl_diff_apply works on row blocks), elements or states
 * otherwise; item i writes output-0 elements [i w, (i + 1) w). */
static long fl_tmr_cpu_items(const fl_tmr_task *t)
{
  return t->kernel == FL_TMR_DIFFUSION ? t->nrows : t->out_n[0];
}
static long fl_tmr_cpu_width(const fl_tmr_task *t)
{
  return t->kernel == FL_TMR_DIFFUSION ? t->diff->n : 1;
}

/* Items [first, last) into out_first, whose element k is output-0 element first w + k. out_full is the whole
 * output array; the grid world's sweep indexes its output absolutely and always gets one (it is never chunked). */
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

/* The launch function of the built-in tasks on the CPU (arg: the task). The grid world's max change is its second
 * output, a reduction: set by the range starting at 0, combined by the others. */
static int fl_tmr_cpu_builtin_launch(const fl_tmr_launch *l, void *arg)
{
  const fl_tmr_task *task = arg;
  const double *in[FL_TMR_MAX_ARRAYS] = {NULL, NULL, NULL, NULL};
  long first = l->first, last = l->last > l->first ? l->last : fl_tmr_cpu_items(task);
  double change;
  for (int i = 0; i < task->nin; i++)
    in[i] = l->in[i];
  change = fl_tmr_cpu_kernel_range(task, in, l->out[0], l->out[0], first, last);
  if (task->nout > 1) {
    double *o = l->out[1];
    o[0] = first == 0 ? change : fmax(o[0], change);
  }
  return 0;
}

static fl_err fl_tmr_cpu_builtin(void *state, const fl_tmr_task *task, fl_tmr_kernel_def *def)
{
  (void)state;
  def->name = task->name;
  def->nin = task->nin;
  def->nout = task->nout;
  for (int i = 0; i < task->nin; i++)
    def->in[i] = (fl_tmr_buffer){(void *)task->in[i], task->in_n[i], FL_TMR_F64};
  for (int i = 0; i < task->nout; i++)
    def->out[i] = (fl_tmr_buffer){task->out[i], task->out_n[i], FL_TMR_F64};
  def->launch = fl_tmr_cpu_builtin_launch;
  def->arg = (void *)task;
  def->items = task->kernel == FL_TMR_GRIDWORLD ? 0 : fl_tmr_cpu_items(task);
  def->width = fl_tmr_cpu_width(task);
  def->work = task->work;
  return FL_OK;
}

static fl_err fl_tmr_cpu_nothing(void *state, const fl_tmr_task *task)
{
  (void)state;
  (void)task;
  return FL_OK;
}

/* ---- running kernel definitions ---- */

static fl_err fl_tmr_cpu_grow(void **buf, size_t *cap, size_t bytes)
{
  fl_err rc = FL_OK;
  if (*cap < bytes) {
    void *p = realloc(*buf, bytes);
    FL_CHECK(p != NULL, FL_ERR_NOMEM, "tmr cpu: out of memory for a replica copy of %zu bytes", bytes);
    *buf = p;
    *cap = bytes;
  }
done:
  return rc;
}

static size_t fl_tmr_cpu_esize(const fl_tmr_buffer *b)
{
  return fl_tmr_type_size(b->type);
}

/* Flip the faults of `target` of replica r on array `array` of kernel j (absolute stage) that fall in elements
 * [base, base + n), held at p[0 .. n). */
static void fl_tmr_cpu_flips(const fl_tmr_exec *exec, fl_tmr_target target, int r, int stage, int array, void *p,
                             size_t size, long base, long n)
{
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    if (ft->target == target && ft->replica == r && ft->stage == stage && ft->array == array && ft->element >= base &&
        ft->element < base + n)
      fl_tmr_flip(p, size, ft->element - base, ft->bit);
  }
}

/* Input i of kernel j as replica r reads it: the shared array, or its private copy with its faults flipped (made
 * now, so that an intermediate array is copied after the kernel that wrote it). */
static const void *fl_tmr_cpu_input(fl_tmr_cpu *cpu, int r, int j, int i)
{
  const fl_tmr_exec *exec = cpu->exec;
  const fl_tmr_buffer *b = &cpu->k[j].in[i];
  const void *src = cpu->rin[r][j * FL_TMR_MAX_ARRAYS + i];
  void *priv = cpu->priv[r][j * FL_TMR_MAX_ARRAYS + i];
  int copied = 0;
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    if (ft->target != FL_TMR_INPUT || ft->replica != r || ft->stage != exec->stage0 + j || ft->array != i)
      continue;
    if (!copied)
      memcpy(priv, src, (size_t)b->count * fl_tmr_cpu_esize(b));
    copied = 1;
    fl_tmr_flip(priv, fl_tmr_cpu_esize(b), ft->element, ft->bit);
  }
  return copied ? priv : src;
}

/* Replica r over the whole run: each kernel on whole arrays, its input faults before it, its output faults after. */
static void fl_tmr_cpu_replica(fl_tmr_cpu *cpu, int r)
{
  const fl_tmr_exec *exec = cpu->exec;
  for (int j = 0; j < cpu->nk; j++) {
    const fl_tmr_kernel_def *d = &cpu->k[j];
    fl_tmr_launch l;
    int e;
    fl_tmr_launch_whole(&l, d, NULL);
    l.replica = r;
    for (int i = 0; i < d->nin; i++)
      l.in[i] = fl_tmr_cpu_input(cpu, r, j, i);
    for (int i = 0; i < d->nout; i++)
      l.out[i] = cpu->rout[r][j * FL_TMR_MAX_ARRAYS + i];
    if ((e = d->launch(&l, d->arg)) != 0) {
      cpu->launch_rc[r] = e;
      cpu->launch_stage[r] = j;
      return;
    }
    for (int i = 0; i < d->nout; i++)
      fl_tmr_cpu_flips(exec, FL_TMR_OUTPUT, r, exec->stage0 + j, i, l.out[i], fl_tmr_cpu_esize(&d->out[i]), 0,
                       d->out[i].count);
  }
}

static void fl_tmr_cpu_replica_part(fl_tmr_cpu *cpu, int part)
{
  if (part < cpu->exec->vote.replicas)
    fl_tmr_cpu_replica(cpu, part);
}

/* Part p votes the p-th third of every output of every kernel. */
static void fl_tmr_cpu_vote_part(fl_tmr_cpu *cpu, int part)
{
  const int three = cpu->exec->vote.replicas == 3;
  for (int j = 0; j < cpu->nk; j++)
    for (int k = 0; k < cpu->k[j].nout; k++) {
      const fl_tmr_buffer *b = &cpu->k[j].out[k];
      const int slot = j * FL_TMR_MAX_ARRAYS + k;
      const size_t size = fl_tmr_cpu_esize(b);
      long n = b->count, first = n * part / FL_TMR_CPU_THREADS, last = n * (part + 1) / FL_TMR_CPU_THREADS;
      fl_tmr_tally *t = &cpu->part_tally[part][slot];
      memset(t, 0, offsetof(fl_tmr_tally, positions));
      fl_tmr_vote_range(b->type, (char *)cpu->rout[0][slot] + size * (size_t)first,
                        (char *)cpu->rout[1][slot] + size * (size_t)first,
                        three ? (char *)cpu->rout[2][slot] + size * (size_t)first : NULL, last - first, first,
                        cpu->exec->stage0 + j, k, &cpu->exec->vote, t);
    }
}

/* Items per chunk in turn: the caller's, or FL_TMR_CPU_CHUNK output elements. */
static long fl_tmr_cpu_chunk(const fl_tmr_cpu *cpu, long width)
{
  if (cpu->chunk_items > 0)
    return cpu->chunk_items;
  return FL_TMR_CPU_CHUNK / width > 0 ? FL_TMR_CPU_CHUNK / width : 1;
}

/* In turn, one kernel with items: cache-sized chunks of items, each computed by every replica in turn, faulted,
 * and voted while it is still in cache. Replicas 1 and 2 compute a chunk of output 0 into a small buffer of their
 * own that stays in cache, so a bandwidth-bound kernel reads its inputs from memory once and writes only the real
 * output there. The replicas stay independent computations into their own memory; only the schedule is blocked. */
static void fl_tmr_cpu_chunked(fl_tmr_cpu *cpu, fl_tmr_tally *tally)
{
  const fl_tmr_exec *exec = cpu->exec;
  const fl_tmr_kernel_def *d = &cpu->k[0];
  const int nrep = exec->vote.replicas, stage = exec->stage0;
  const long items = d->items, w = d->width ? d->width : 1, chunk = fl_tmr_cpu_chunk(cpu, w);
  const size_t size = fl_tmr_cpu_esize(&d->out[0]);
  fl_tmr_launch l[3];
  for (int r = 0; r < nrep; r++) {
    memset(&l[r], 0, sizeof l[r]);
    l[r].replica = r;
    l[r].nin = d->nin;
    l[r].nout = d->nout;
    for (int i = 0; i < d->nin; i++)
      l[r].in[i] = fl_tmr_cpu_input(cpu, r, 0, i);
    for (int i = 1; i < d->nout; i++)
      l[r].out[i] = cpu->rout[r][i];
  }
  for (long c0 = 0; c0 < items; c0 += chunk) {
    long c1 = c0 + chunk < items ? c0 + chunk : items;
    for (int r = 0; r < nrep; r++) {
      int e;
      l[r].first = c0;
      l[r].last = c1;
      l[r].out[0] = r == 0 ? (char *)cpu->rout[0][0] + size * (size_t)(c0 * w) : cpu->chunkbuf[r];
      if ((e = d->launch(&l[r], d->arg)) != 0) {
        cpu->launch_rc[r] = e;
        cpu->launch_stage[r] = 0;
        return;
      }
      fl_tmr_cpu_flips(exec, FL_TMR_OUTPUT, r, stage, 0, l[r].out[0], size, c0 * w, (c1 - c0) * w);
    }
    fl_tmr_vote_range(d->out[0].type, l[0].out[0], l[1].out[0], nrep == 3 ? l[2].out[0] : NULL, (c1 - c0) * w, c0 * w,
                      stage, 0, &exec->vote, tally);
  }
  for (int k = 1; k < d->nout; k++) {
    for (int r = 0; r < nrep; r++)
      fl_tmr_cpu_flips(exec, FL_TMR_OUTPUT, r, stage, k, cpu->rout[r][k], fl_tmr_cpu_esize(&d->out[k]), 0,
                       d->out[k].count);
    fl_tmr_vote_range(d->out[k].type, cpu->rout[0][k], cpu->rout[1][k], nrep == 3 ? cpu->rout[2][k] : NULL,
                      d->out[k].count, 0, stage, k, &exec->vote, tally);
  }
}

/* FL_OK if every replica's launches returned 0, else the error naming the first that did not. */
static fl_err fl_tmr_cpu_launched(const fl_tmr_cpu *cpu)
{
  for (int r = 0; r < cpu->exec->vote.replicas; r++)
    if (cpu->launch_rc[r] != 0) {
      const fl_tmr_kernel_def *d = &cpu->k[cpu->launch_stage[r]];
      return fl_err_set(FL_ERR_INTERNAL, "tmr kernel %d (%s): the launch function of replica %d returned %d",
                        cpu->exec->stage0 + cpu->launch_stage[r], d->name ? d->name : "unnamed", r, cpu->launch_rc[r]);
    }
  return FL_OK;
}

static fl_err fl_tmr_cpu_attempt(void *state, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                                 fl_tmr_tally *tally)
{
  fl_err rc = FL_OK;
  fl_tmr_cpu *cpu = state;
  const int nrep = exec->vote.replicas;
  const int chunked = !exec->concurrent && nk == 1 && k[0].items > 0;

  cpu->k = k;
  cpu->nk = nk;
  cpu->exec = exec;
  for (int r = 0; r < nrep; r++) {
    cpu->launch_rc[r] = 0;
    for (int j = 0; j < nk; j++) {
      for (int i = 0; i < k[j].nin; i++) {
        int from = exec->from[j][i];
        cpu->rin[r][j * FL_TMR_MAX_ARRAYS + i] = r > 0 && from >= 0 ? cpu->rout[r][from] : k[j].in[i].data;
      }
      for (int i = 0; i < k[j].nout; i++) {
        const int slot = j * FL_TMR_MAX_ARRAYS + i;
        const size_t bytes = (size_t)k[j].out[i].count * fl_tmr_cpu_esize(&k[j].out[i]);
        if (r == 0) {
          cpu->rout[r][slot] = k[j].out[i].data;
        } else if (chunked && i == 0) {
          long w = k[0].width ? k[0].width : 1, chunk = fl_tmr_cpu_chunk(cpu, w);
          FL_TRY(fl_tmr_cpu_grow(&cpu->chunkbuf[r], &cpu->chunkbuf_cap[r],
                                 (size_t)(chunk * w) * fl_tmr_cpu_esize(&k[0].out[0])));
          cpu->rout[r][slot] = NULL;
        } else {
          FL_TRY(fl_tmr_cpu_grow(&cpu->scratch[r][slot], &cpu->scratch_cap[r][slot], bytes));
          cpu->rout[r][slot] = cpu->scratch[r][slot];
        }
      }
    }
  }
  /* room for the private copies of faulted inputs, before any replica runs */
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    const int j = ft->stage - exec->stage0;
    if (ft->target == FL_TMR_INPUT) {
      const fl_tmr_buffer *b = &k[j].in[ft->array];
      FL_TRY(fl_tmr_cpu_grow(&cpu->priv[ft->replica][j * FL_TMR_MAX_ARRAYS + ft->array],
                             &cpu->priv_cap[ft->replica][j * FL_TMR_MAX_ARRAYS + ft->array],
                             (size_t)b->count * fl_tmr_cpu_esize(b)));
    }
  }
  if (chunked) {
    fl_tmr_cpu_chunked(cpu, tally);
    FL_TRY(fl_tmr_cpu_launched(cpu));
  } else {
    if (exec->concurrent) {
      FL_TRY(fl_tmr_cpu_parts(cpu, fl_tmr_cpu_replica_part));
    } else {
      for (int r = 0; r < nrep; r++)
        fl_tmr_cpu_replica(cpu, r);
    }
    FL_TRY(fl_tmr_cpu_launched(cpu));
    if (exec->concurrent) {
      FL_TRY(fl_tmr_cpu_parts(cpu, fl_tmr_cpu_vote_part));
      for (int j = 0; j < nk; j++)
        for (int i = 0; i < k[j].nout; i++)
          for (int p = 0; p < FL_TMR_CPU_THREADS; p++)
            fl_tmr_tally_merge(tally, &cpu->part_tally[p][j * FL_TMR_MAX_ARRAYS + i]);
    } else {
      for (int j = 0; j < nk; j++)
        for (int i = 0; i < k[j].nout; i++) {
          const int slot = j * FL_TMR_MAX_ARRAYS + i;
          fl_tmr_vote_range(k[j].out[i].type, cpu->rout[0][slot], cpu->rout[1][slot],
                            nrep == 3 ? cpu->rout[2][slot] : NULL, k[j].out[i].count, 0, exec->stage0 + j, i,
                            &exec->vote, tally);
        }
    }
  }
  /* what the vote cannot see: its own output corrupted after it */
  for (int j = 0; j < nk; j++)
    for (int i = 0; i < k[j].nout; i++)
      fl_tmr_cpu_flips(exec, FL_TMR_VOTED, 0, exec->stage0 + j, i, k[j].out[i].data, fl_tmr_cpu_esize(&k[j].out[i]), 0,
                       k[j].out[i].count);
done:
  return rc;
}

static fl_err fl_tmr_cpu_plain(void *state, const fl_tmr_kernel_def *k, int nk, void *stream)
{
  fl_err rc = FL_OK;
  (void)state;
  (void)stream;
  for (int j = 0; j < nk; j++) {
    fl_tmr_launch l;
    int e;
    fl_tmr_launch_whole(&l, &k[j], NULL);
    e = k[j].launch(&l, k[j].arg);
    FL_CHECK(e == 0, FL_ERR_INTERNAL, "tmr kernel %d (%s): the launch function returned %d", j,
             k[j].name ? k[j].name : "unnamed", e);
  }
done:
  return rc;
}

/* Threads pay off for a run big enough to cover their wake-up and heavy enough per element to be bound by
 * compute (the chain, the grid-world sweep); a kernel light per element (AXPY, the matvec) does better in turn,
 * chunked, reading its inputs from memory once (bench_tmr: AXPY 1.8x in turn vs 2.6x concurrent, the matvec 3.2x
 * vs 3.6-5.9x; the sweep 3.1x vs 2.2x, the chain 3.0x vs 2.2x, with two free cores). A kernel that does not say
 * its work runs in turn. */
static int fl_tmr_cpu_auto(void *state, const fl_tmr_kernel_def *k, int nk)
{
  long work = 0, elems = 0;
  (void)state;
  for (int j = 0; j < nk; j++) {
    work += k[j].work;
    elems += k[j].out[0].count;
  }
  return work >= FL_TMR_CPU_MIN_WORK && work >= FL_TMR_CPU_MIN_INTENSITY * elems;
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
    for (int k = 0; k < FL_TMR_CPU_SLOTS; k++) {
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
  FL_ALLOC(cpu, 1);
  cpu->chunk_items = cfg->chunk_items;
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
    .attempt = fl_tmr_cpu_attempt,
    .plain = fl_tmr_cpu_plain,
    .builtin = fl_tmr_cpu_builtin,
    .builtin_finish = fl_tmr_cpu_nothing,
};
