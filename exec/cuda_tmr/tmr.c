/* tmr.c — the TMR front end: the backend registry and the "auto" choice, tasks, fault injection, the retry loop.
 *
 * Everything that must not depend on the backend lives here, so that "cpu" and "cuda" cannot drift apart: the
 * task is checked once (no output may overlap an input or another output, since replica 0 computes in place);
 * queued faults are drawn from the context's seeded stream in queue order (replica, array, element, bit), so a
 * seed replays the same corruptions on any backend; transient faults hit the first attempt only, persistent ones
 * every attempt; a vote without a majority (TMR) or with any disagreement (dual) is retried up to max_retries
 * times, and the caller gets the last attempt's output and counts. */
#include "rng.h"
#include "tmr_impl.h"

#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct fl_tmr {
  fl_tmr_config cfg;
  const fl_tmr_backend_ops *ops;
  void *state;
  char reason[640];
  gsl_rng *rng;
  fl_tmr_fault *queue; /* faults for the next run */
  long nqueue, cap_queue;
  fl_tmr_rfault *resolved, *active; /* the queue drawn; the subset of one attempt */
  long cap_resolved;
  fl_tmr_tally tally; /* of the attempt in flight */
};

/* "auto" tries them in this order. */
static const fl_tmr_backend_ops *const fl_tmr_registry[] = {
    &fl_tmr_cuda_ops,
    &fl_tmr_cpu_ops,
};
#define FL_TMR_NREG ((int)(sizeof fl_tmr_registry / sizeof fl_tmr_registry[0]))

int fl_tmr_backend_count(void)
{
  return FL_TMR_NREG;
}
const char *fl_tmr_backend_name(int i)
{
  return (i >= 0 && i < FL_TMR_NREG) ? fl_tmr_registry[i]->name : NULL;
}

static const fl_tmr_backend_ops *fl_tmr_find(const char *name)
{
  for (int i = 0; i < FL_TMR_NREG; i++)
    if (name && strcmp(fl_tmr_registry[i]->name, name) == 0)
      return fl_tmr_registry[i];
  return NULL;
}

int fl_tmr_backend_available(const char *name, char *why, size_t why_len)
{
  const fl_tmr_backend_ops *ops = fl_tmr_find(name);
  if (!ops) {
    if (why && why_len)
      snprintf(why, why_len, "unknown backend");
    return 0;
  }
  return ops->probe(why, why_len);
}

/* Append to a NUL-terminated buffer, truncating quietly: these are log and message texts. */
static void fl_tmr_catf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fl_tmr_catf(char *buf, size_t size, const char *fmt, ...)
{
  size_t used = strlen(buf);
  va_list ap;
  if (used + 1 >= size)
    return;
  va_start(ap, fmt);
  vsnprintf(buf + used, size - used, fmt, ap);
  va_end(ap);
}

fl_tmr_config fl_tmr_config_default(void)
{
  fl_tmr_config c = {
      .backend = "auto",
      .replicas = 3,
      .vote = FL_TMR_VOTE_BITWISE,
      .abs_tol = 0.0,
      .rel_tol = 0.0,
      .max_retries = 0,
      .concurrency = FL_TMR_AUTO,
      .seed = 1,
      .log = NULL,
  };
  return c;
}

const char *fl_tmr_status_str(fl_tmr_status s)
{
  switch (s) {
  case FL_TMR_CLEAN: return "clean";
  case FL_TMR_CORRECTED: return "corrected";
  case FL_TMR_DETECTED: return "detected";
  case FL_TMR_UNCORRECTABLE: return "uncorrectable";
  }
  return "?";
}

static fl_err fl_tmr_check_config(const fl_tmr_config *c)
{
  fl_err rc = FL_OK;
  FL_CHECK(c->replicas == 0 || c->replicas == 2 || c->replicas == 3, FL_ERR_INPUT,
           "tmr: %d replicas (2: dual, detect only; 3: TMR)", c->replicas);
  FL_CHECK(c->vote == FL_TMR_VOTE_BITWISE || c->vote == FL_TMR_VOTE_TOLERANCE, FL_ERR_INPUT, "tmr: vote mode %d",
           (int)c->vote);
  FL_CHECK(c->abs_tol >= 0 && c->rel_tol >= 0, FL_ERR_INPUT, "tmr: tolerances abs %g, rel %g (must be >= 0, not NaN)",
           c->abs_tol, c->rel_tol);
  FL_CHECK(c->max_retries >= 0 && c->max_retries <= 1000, FL_ERR_INPUT, "tmr: max_retries %d (0 .. 1000)",
           c->max_retries);
  FL_CHECK(c->chunk_items >= 0, FL_ERR_INPUT, "tmr: chunk_items %ld (0: the backend's choice, or more)",
           c->chunk_items);
  FL_CHECK(c->concurrency >= FL_TMR_AUTO && c->concurrency <= FL_TMR_CONCURRENT, FL_ERR_INPUT,
           "tmr: concurrency %d (-1 auto, 0 in turn, 1 concurrent)", (int)c->concurrency);
done:
  return rc;
}

fl_err fl_tmr_create(const fl_tmr_config *cfg, fl_tmr **out)
{
  fl_err rc = FL_OK;
  fl_tmr *t = NULL;
  fl_tmr_config def = fl_tmr_config_default();
  const char *name;
  char why[256], skipped[256] = "";

  FL_CHECK(out != NULL, FL_ERR_INPUT, "tmr: no handle to create into");
  *out = NULL;
  if (!cfg)
    cfg = &def;
  FL_TRY(fl_tmr_check_config(cfg));
  FL_ALLOC(t, 1);
  t->cfg = *cfg;
  if (t->cfg.replicas == 0)
    t->cfg.replicas = 3;
  FL_TRY(fl_rng_create(cfg->seed, 0, FL_STREAM_FAILURES, &t->rng));
  name = cfg->backend ? cfg->backend : "auto";
  if (strcmp(name, "auto") == 0) {
    /* the first backend that probes and starts: a device that answers the probe but then refuses (out of memory,
     * busy) sends auto on to the CPU too */
    for (int i = 0; i < FL_TMR_NREG && !t->ops; i++) {
      const fl_tmr_backend_ops *ops = fl_tmr_registry[i];
      why[0] = '\0';
      if (!ops->probe(why, sizeof why)) {
        fl_tmr_catf(skipped, sizeof skipped, "%s%s unavailable: %s", skipped[0] ? "; " : "", ops->name, why);
      } else if (ops->create(&t->cfg, &t->state) != FL_OK) {
        fl_tmr_catf(skipped, sizeof skipped, "%s%s failed to start: %s", skipped[0] ? "; " : "", ops->name,
                    fl_err_msg());
        fl_err_clear();
      } else {
        t->ops = ops;
        fl_tmr_catf(t->reason, sizeof t->reason, "%s (auto: %s%s%s)", ops->name, skipped, skipped[0] ? "; " : "", why);
      }
    }
    FL_CHECK(t->ops != NULL, FL_ERR_INTERNAL, "tmr: no backend can run here (%s)", skipped);
  } else {
    char known[128] = "auto";
    for (int i = 0; i < FL_TMR_NREG; i++)
      fl_tmr_catf(known, sizeof known, ", %s", fl_tmr_registry[i]->name);
    t->ops = fl_tmr_find(name);
    FL_CHECK(t->ops != NULL, FL_ERR_INPUT, "unknown TMR backend '%s' (known: %s)", name, known);
    why[0] = '\0';
    FL_CHECK(t->ops->probe(why, sizeof why), FL_ERR_INPUT, "TMR backend '%s' cannot run here: %s", name, why);
    FL_TRY(t->ops->create(&t->cfg, &t->state));
    fl_tmr_catf(t->reason, sizeof t->reason, "%s (%s)", t->ops->name, why);
  }
  if (cfg->log)
    fprintf(cfg->log, "faultline: tmr backend %s\n", t->reason);
  *out = t;
  t = NULL;
done:
  fl_tmr_destroy(&t);
  return rc;
}

void fl_tmr_destroy(fl_tmr **t)
{
  if (!t || !*t)
    return;
  if ((*t)->ops && (*t)->state)
    (*t)->ops->destroy(&(*t)->state);
  if ((*t)->rng)
    gsl_rng_free((*t)->rng);
  free((*t)->queue);
  free((*t)->resolved);
  free((*t)->active);
  free(*t);
  *t = NULL;
}

const char *fl_tmr_backend(const fl_tmr *t)
{
  return t && t->ops ? t->ops->name : NULL;
}
const char *fl_tmr_backend_reason(const fl_tmr *t)
{
  return t ? t->reason : "";
}

/* ---- tasks ---- */

fl_tmr_task fl_tmr_task_axpy(long n, double a, const double *x, const double *y, double *out)
{
  fl_tmr_task k = {.kernel = FL_TMR_AXPY, .name = "axpy", .nin = 2, .nout = 1, .a = a, .work = n};
  k.in[0] = x;
  k.in[1] = y;
  k.in_n[0] = k.in_n[1] = n;
  k.out[0] = out;
  k.out_n[0] = n;
  return k;
}

fl_tmr_task fl_tmr_task_chain(long n, long steps, double a, const double *x, double *out)
{
  fl_tmr_task k = {.kernel = FL_TMR_CHAIN, .name = "chain", .nin = 1, .nout = 1, .a = a, .steps = steps};
  k.in[0] = x;
  k.in_n[0] = n;
  k.out[0] = out;
  k.out_n[0] = n;
  k.work = n * (steps > 0 ? steps : 1);
  return k;
}

fl_tmr_task fl_tmr_task_diffusion(const fl_diff *p, long nrows, const double *x_halo, double *y)
{
  fl_tmr_task k = {.kernel = FL_TMR_DIFFUSION, .name = "diffusion", .nin = 1, .nout = 1, .diff = p, .nrows = nrows};
  long n = p ? p->n : 0;
  k.in[0] = x_halo;
  k.in_n[0] = (nrows + 2) * n;
  k.out[0] = y;
  k.out_n[0] = nrows * n;
  k.work = 8 * nrows * n;
  return k;
}

fl_tmr_task fl_tmr_task_gridworld(const fl_gw *gw, const double *in, double *out, double *change)
{
  fl_tmr_task k = {.kernel = FL_TMR_GRIDWORLD, .name = "gridworld", .nin = 2, .nout = change ? 2 : 1, .gw = gw};
  long n = gw ? gw->n : 0;
  k.in[0] = in;
  k.in[1] = gw ? gw->reward : NULL;
  k.in_n[0] = k.in_n[1] = n;
  k.out[0] = out;
  k.out_n[0] = n;
  k.out[1] = change;
  k.out_n[1] = change ? 1 : 0;
  k.work = 12 * n;
  return k;
}

static int fl_tmr_overlap(const void *p, size_t n, const void *q, size_t m)
{
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
  return a < b + m && b < a + n;
}

static size_t fl_tmr_bytes(const fl_tmr_buffer *b)
{
  return (size_t)b->count * fl_tmr_type_size(b->type);
}

static fl_err fl_tmr_check_task(const fl_tmr_task *k)
{
  fl_err rc = FL_OK;
  FL_CHECK(k != NULL, FL_ERR_INPUT, "tmr: no task");
  FL_CHECK(k->kernel >= FL_TMR_AXPY && k->kernel <= FL_TMR_GRIDWORLD, FL_ERR_INPUT, "tmr: unknown kernel %d",
           (int)k->kernel);
  FL_CHECK(k->nin >= 1 && k->nin <= FL_TMR_MAX_ARRAYS && k->nout >= 1 && k->nout <= FL_TMR_MAX_ARRAYS, FL_ERR_INPUT,
           "tmr %s: %d inputs, %d outputs (1 .. %d each)", k->name, k->nin, k->nout, FL_TMR_MAX_ARRAYS);
  FL_CHECK(k->kernel != FL_TMR_DIFFUSION || (k->diff && k->diff->n > 0 && k->nrows > 0), FL_ERR_INPUT,
           "tmr diffusion: no problem or no rows (%ld)", k->nrows);
  FL_CHECK(k->kernel != FL_TMR_GRIDWORLD || k->gw, FL_ERR_INPUT, "tmr gridworld: no grid");
  FL_CHECK(k->kernel != FL_TMR_CHAIN || k->steps >= 0, FL_ERR_INPUT, "tmr chain: %ld steps", k->steps);
  for (int i = 0; i < k->nin; i++)
    FL_CHECK(k->in[i] && k->in_n[i] > 0, FL_ERR_INPUT, "tmr %s: input %d is empty or NULL", k->name, i);
  for (int i = 0; i < k->nout; i++) {
    FL_CHECK(k->out[i] && k->out_n[i] > 0, FL_ERR_INPUT, "tmr %s: output %d is empty or NULL", k->name, i);
    for (int j = 0; j < k->nin; j++)
      FL_CHECK(!fl_tmr_overlap(k->out[i], (size_t)k->out_n[i] * 8, k->in[j], (size_t)k->in_n[j] * 8), FL_ERR_INPUT,
               "tmr %s: output %d overlaps input %d (replica 0 computes in place: outputs need their own memory)",
               k->name, i, j);
    for (int j = 0; j < i; j++)
      FL_CHECK(!fl_tmr_overlap(k->out[i], (size_t)k->out_n[i] * 8, k->out[j], (size_t)k->out_n[j] * 8), FL_ERR_INPUT,
               "tmr %s: outputs %d and %d overlap", k->name, j, i);
  }
done:
  return rc;
}

static fl_err fl_tmr_check_buffer(const fl_tmr_kernel_def *d, int stage, const char *what, int i)
{
  fl_err rc = FL_OK;
  const fl_tmr_buffer *b = what[0] == 'i' ? &d->in[i] : &d->out[i];
  size_t size = fl_tmr_type_size(b->type);
  FL_CHECK(size > 0, FL_ERR_INPUT, "tmr kernel %d (%s): %s %d has an unknown type %d", stage, d->name, what, i,
           (int)b->type);
  FL_CHECK(b->data != NULL && b->count > 0, FL_ERR_INPUT, "tmr kernel %d (%s): %s %d is NULL or empty (%ld elements)",
           stage, d->name, what, i, b->count);
  FL_CHECK((unsigned long)b->count <= (unsigned long)(PTRDIFF_MAX / (long)size), FL_ERR_INPUT,
           "tmr kernel %d (%s): %s %d has %ld elements of %zu bytes: more than memory holds", stage, d->name, what, i,
           b->count, size);
done:
  return rc;
}

/* Check the kernels of a run and work out which inputs read an earlier kernel's output (exec->from). An output
 * may overlap nothing else written in the run, nor an input of its own or an earlier kernel; an input overlapping
 * an earlier kernel's output must be that very buffer. */
static fl_err fl_tmr_check_defs(const fl_tmr_kernel_def *k, int nk, fl_tmr_exec *exec)
{
  fl_err rc = FL_OK;
  FL_CHECK(k != NULL && nk >= 1 && nk <= FL_TMR_MAX_STAGES, FL_ERR_INPUT, "tmr: %d kernels (1 .. %d)", nk,
           FL_TMR_MAX_STAGES);
  for (int j = 0; j < nk; j++) {
    const fl_tmr_kernel_def *d = &k[j];
    const char *name = d->name ? d->name : "unnamed";
    FL_CHECK(d->launch != NULL, FL_ERR_INPUT, "tmr kernel %d (%s): no launch function", j, name);
    FL_CHECK(d->nin >= 0 && d->nin <= FL_TMR_MAX_ARRAYS && d->nout >= 1 && d->nout <= FL_TMR_MAX_ARRAYS, FL_ERR_INPUT,
             "tmr kernel %d (%s): %d inputs, %d outputs (0 .. %d inputs, 1 .. %d outputs)", j, name, d->nin, d->nout,
             FL_TMR_MAX_ARRAYS, FL_TMR_MAX_ARRAYS);
    FL_CHECK(d->items >= 0 && d->width >= 0 && d->work >= 0, FL_ERR_INPUT,
             "tmr kernel %d (%s): items %ld, width %ld, work %ld (>= 0)", j, name, d->items, d->width, d->work);
    for (int i = 0; i < d->nin; i++) {
      FL_TRY(fl_tmr_check_buffer(d, j, "input", i));
      exec->from[j][i] = -1;
    }
    for (int i = 0; i < d->nout; i++)
      FL_TRY(fl_tmr_check_buffer(d, j, "output", i));
    FL_CHECK(d->items == 0 || (d->items <= d->out[0].count && d->items * (d->width ? d->width : 1) == d->out[0].count),
             FL_ERR_INPUT, "tmr kernel %d (%s): %ld items of width %ld do not make output 0 (%ld elements)", j, name,
             d->items, d->width ? d->width : 1, d->out[0].count);
  }
  for (int j = 0; j < nk; j++) {
    const fl_tmr_kernel_def *d = &k[j];
    for (int i = 0; i < d->nout; i++) {
      const fl_tmr_buffer *o = &d->out[i];
      for (int p = 0; p <= j; p++)
        for (int q = 0; q < (p == j ? i : k[p].nout); q++)
          FL_CHECK(!fl_tmr_overlap(o->data, fl_tmr_bytes(o), k[p].out[q].data, fl_tmr_bytes(&k[p].out[q])),
                   FL_ERR_INPUT,
                   "tmr: output %d of kernel %d overlaps output %d of kernel %d (each output needs its "
                   "own memory)",
                   i, j, q, p);
      for (int p = 0; p <= j; p++)
        for (int q = 0; q < k[p].nin; q++)
          FL_CHECK(!fl_tmr_overlap(o->data, fl_tmr_bytes(o), k[p].in[q].data, fl_tmr_bytes(&k[p].in[q])), FL_ERR_INPUT,
                   "tmr: output %d of kernel %d overlaps input %d of kernel %d (replica 0 computes in "
                   "place: an output needs memory no kernel before it reads)",
                   i, j, q, p);
    }
    for (int i = 0; i < d->nin; i++) {
      const fl_tmr_buffer *b = &d->in[i];
      for (int p = 0; p < j; p++)
        for (int q = 0; q < k[p].nout; q++) {
          const fl_tmr_buffer *o = &k[p].out[q];
          if (!fl_tmr_overlap(b->data, fl_tmr_bytes(b), o->data, fl_tmr_bytes(o)))
            continue;
          FL_CHECK(b->data == o->data && b->count == o->count && b->type == o->type, FL_ERR_INPUT,
                   "tmr: input %d of kernel %d overlaps output %d of kernel %d without being that buffer (same "
                   "pointer, count and type)",
                   i, j, q, p);
          exec->from[j][i] = p * FL_TMR_MAX_ARRAYS + q;
        }
    }
  }
done:
  return rc;
}

/* ---- faults ---- */

fl_tmr_fault fl_tmr_fault_random(void)
{
  fl_tmr_fault f = {
      .replica = -1, .target = FL_TMR_OUTPUT, .array = -1, .element = -1, .bit = -1, .persistent = 0, .stage = -1};
  return f;
}

fl_err fl_tmr_seed(fl_tmr *t, uint64_t seed, uint64_t replica)
{
  fl_err rc = FL_OK;
  FL_CHECK(t != NULL, FL_ERR_INPUT, "tmr: no context");
  gsl_rng_set(t->rng, fl_rng_derive(seed, replica, FL_STREAM_FAILURES));
done:
  return rc;
}

fl_err fl_tmr_inject(fl_tmr *t, const fl_tmr_fault *f)
{
  fl_err rc = FL_OK;
  FL_CHECK(t != NULL && f != NULL, FL_ERR_INPUT, "tmr: no context or no fault");
  if (t->nqueue == t->cap_queue) {
    long cap = t->cap_queue ? 2 * t->cap_queue : 16;
    fl_tmr_fault *q = realloc(t->queue, (size_t)cap * sizeof *q);
    FL_CHECK(q != NULL, FL_ERR_NOMEM, "tmr: out of memory queueing fault %ld", t->nqueue + 1);
    t->queue = q;
    t->cap_queue = cap;
  }
  t->queue[t->nqueue++] = *f;
done:
  return rc;
}

fl_err fl_tmr_inject_sdc(fl_tmr *t, double expected, fl_tmr_target target, long *count)
{
  fl_err rc = FL_OK;
  long n = 0;
  fl_tmr_fault f = fl_tmr_fault_random();
  FL_CHECK(t != NULL, FL_ERR_INPUT, "tmr: no context");
  FL_CHECK(expected >= 0 && expected <= 1e6, FL_ERR_INPUT, "tmr: SDC rate %g per run (0 .. 1e6)", expected);
  FL_CHECK(target == FL_TMR_OUTPUT || target == FL_TMR_INPUT || target == FL_TMR_VOTED, FL_ERR_INPUT,
           "tmr: fault target %d", (int)target);
  f.target = target;
  n = expected > 0 ? (long)gsl_ran_poisson(t->rng, expected) : 0;
  for (long i = 0; i < n; i++)
    FL_TRY(fl_tmr_inject(t, &f));
done:
  if (count)
    *count = rc == FL_OK ? n : 0;
  return rc;
}

/* A uniform integer in [0, n), n >= 1. */
static long fl_tmr_draw(gsl_rng *rng, long n)
{
  if ((unsigned long)(n - 1) <= gsl_rng_max(rng) - gsl_rng_min(rng))
    return (long)gsl_rng_uniform_int(rng, (unsigned long)n);
  return (long)fmin((double)(n - 1), floor(gsl_rng_uniform(rng) * (double)n));
}

static const char *fl_tmr_target_str(fl_tmr_target t)
{
  return t == FL_TMR_INPUT ? "input" : t == FL_TMR_VOTED ? "voted output" : "output";
}

/* Draw the queued faults' open fields against the kernels of the run, in queue order: replica, stage and array
 * (together, weighted by length), element, bit. */
static fl_err fl_tmr_resolve(fl_tmr *t, const fl_tmr_kernel_def *k, int nk)
{
  fl_err rc = FL_OK;
  if (t->nqueue > t->cap_resolved) {
    fl_tmr_rfault *r = realloc(t->resolved, (size_t)t->nqueue * sizeof *r), *a;
    FL_CHECK(r != NULL, FL_ERR_NOMEM, "tmr: out of memory for %ld faults", t->nqueue);
    t->resolved = r;
    a = realloc(t->active, (size_t)t->nqueue * sizeof *a);
    FL_CHECK(a != NULL, FL_ERR_NOMEM, "tmr: out of memory for %ld faults", t->nqueue);
    t->active = a;
    t->cap_resolved = t->nqueue;
  }
  for (long i = 0; i < t->nqueue; i++) {
    const fl_tmr_fault *q = &t->queue[i];
    fl_tmr_rfault *r = &t->resolved[i];
    const int input = q->target == FL_TMR_INPUT;
    const char *what = fl_tmr_target_str(q->target);
    const fl_tmr_buffer *b;
    int s0 = q->stage < 0 ? 0 : q->stage, s1 = q->stage < 0 ? nk : q->stage + 1;
    FL_CHECK(q->target == FL_TMR_OUTPUT || q->target == FL_TMR_INPUT || q->target == FL_TMR_VOTED, FL_ERR_INPUT,
             "tmr fault %ld: target %d", i, (int)q->target);
    FL_CHECK(q->stage < nk, FL_ERR_INPUT, "tmr fault %ld: kernel %d (the run has %d)", i, q->stage, nk);
    r->target = q->target;
    r->persistent = q->persistent != 0;
    r->replica = q->target == FL_TMR_VOTED ? 0
                 : q->replica < 0          ? (int)fl_tmr_draw(t->rng, t->cfg.replicas)
                                           : q->replica;
    FL_CHECK(r->replica < t->cfg.replicas, FL_ERR_INPUT, "tmr fault %ld: replica %d (this context runs %d)", i,
             r->replica, t->cfg.replicas);
    if (q->array < 0) {
      long total = 0, u;
      for (int j = s0; j < s1; j++)
        for (int a = 0; a < (input ? k[j].nin : k[j].nout); a++)
          total += input ? k[j].in[a].count : k[j].out[a].count;
      FL_CHECK(total > 0, FL_ERR_INPUT, "tmr fault %ld: an input fault, and kernel %d has no input", i, s0);
      u = fl_tmr_draw(t->rng, total);
      for (r->stage = s0, r->array = 0;; r->array++) {
        long len;
        if (r->array == (input ? k[r->stage].nin : k[r->stage].nout)) {
          r->stage++;
          r->array = -1;
          continue;
        }
        len = input ? k[r->stage].in[r->array].count : k[r->stage].out[r->array].count;
        if (u < len)
          break;
        u -= len;
      }
    } else {
      FL_CHECK(q->stage >= 0 || nk == 1, FL_ERR_INPUT, "tmr fault %ld: %s %d of which kernel (stage -1 of %d)", i, what,
               q->array, nk);
      r->stage = s0;
      r->array = q->array;
    }
    FL_CHECK(r->array < (input ? k[r->stage].nin : k[r->stage].nout), FL_ERR_INPUT,
             "tmr fault %ld: %s %d of %s (it has %d)", i, what, r->array,
             k[r->stage].name ? k[r->stage].name : "kernel", input ? k[r->stage].nin : k[r->stage].nout);
    b = input ? &k[r->stage].in[r->array] : &k[r->stage].out[r->array];
    r->element = q->element < 0 ? fl_tmr_draw(t->rng, b->count) : q->element;
    FL_CHECK(r->element < b->count, FL_ERR_INPUT, "tmr fault %ld: element %ld of %s %d (%ld elements)", i, r->element,
             what, r->array, b->count);
    r->bit = q->bit < 0 ? (int)fl_tmr_draw(t->rng, 8 * (long)fl_tmr_type_size(b->type)) : q->bit;
    FL_CHECK(r->bit < 8 * (int)fl_tmr_type_size(b->type), FL_ERR_INPUT, "tmr fault %ld: bit %d (0 .. %d for %s)", i,
             r->bit, 8 * (int)fl_tmr_type_size(b->type) - 1, fl_tmr_type_name(b->type));
  }
done:
  return rc;
}

/* ---- running ---- */

/* Kernels [stage0, stage0 + nk) of the run: attempts until the vote has a majority everywhere or the retries are
 * spent; the final attempt's counts and positions are added to res. */
static fl_err fl_tmr_stages(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, int stage0, fl_tmr_exec *exec,
                            fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  fl_tmr_tally *tally = &t->tally;
  exec->stage0 = stage0;
  for (int attempt = 0;; attempt++) {
    exec->nfaults = 0;
    for (long i = 0; i < t->nqueue; i++) {
      const fl_tmr_rfault *r = &t->resolved[i];
      if ((attempt > 0 && !r->persistent) || r->stage < stage0 || r->stage >= stage0 + nk)
        continue;
      t->active[exec->nfaults++] = *r;
      if (res->nlisted < FL_TMR_MAX_LISTED) {
        fl_tmr_applied *a = &res->faults[res->nlisted++];
        a->replica = r->replica;
        a->stage = r->stage;
        a->array = r->array;
        a->bit = r->bit;
        a->attempt = attempt;
        a->target = r->target;
        a->element = r->element;
      }
    }
    res->nfaults += exec->nfaults;
    memset(tally, 0, offsetof(fl_tmr_tally, positions)); /* the positions are written before they are read */
    FL_TRY(t->ops->attempt(t->state, k + stage0, nk, exec, tally));
    if (attempt + 1 > res->attempts)
      res->attempts = attempt + 1;
    if (tally->nomajority == 0 || attempt >= t->cfg.max_retries)
      break;
    res->retried += tally->corrected + tally->nomajority;
  }
  res->benign += tally->benign;
  if (t->cfg.replicas == 3) {
    res->corrected += tally->corrected;
    res->uncorrectable += tally->nomajority;
  } else {
    res->detected += tally->nomajority;
  }
  for (int r = 0; r < 3; r++)
    res->outvoted[r] += tally->outvoted[r];
  for (long i = 0; i < tally->npositions && res->npositions < FL_TMR_MAX_POSITIONS; i++)
    res->positions[res->npositions++] = tally->positions[i];
  res->stages = stage0 + nk;
done:
  return rc;
}

/* A protected run of kernels k[0 .. nk) into res, which the caller has zeroed. */
static fl_err fl_tmr_go(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, fl_tmr_vote_at at, fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  double t0 = fl_tmr_now();
  fl_tmr_exec exec;

  FL_CHECK(t != NULL && res != NULL, FL_ERR_INPUT, "tmr: no context or no result");
  memset(&exec, 0, sizeof exec);
  FL_CHECK(at == FL_TMR_VOTE_EACH || at == FL_TMR_VOTE_END, FL_ERR_INPUT, "tmr: vote point %d (0 each, 1 end)",
           (int)at);
  FL_TRY(fl_tmr_check_defs(k, nk, &exec));
  FL_TRY(fl_tmr_resolve(t, k, nk));
  exec.vote.replicas = t->cfg.replicas;
  exec.vote.tolerance = t->cfg.vote == FL_TMR_VOTE_TOLERANCE;
  exec.vote.abs_tol = t->cfg.abs_tol;
  exec.vote.rel_tol = t->cfg.rel_tol;
  exec.concurrent = t->cfg.concurrency == FL_TMR_AUTO ? t->ops->auto_concurrent(t->state, k, nk)
                                                      : t->cfg.concurrency == FL_TMR_CONCURRENT;
  exec.faults = t->active;
  exec.stream = t->cfg.stream;
  if (at == FL_TMR_VOTE_END || nk == 1) {
    FL_TRY(fl_tmr_stages(t, k, nk, 0, &exec, res));
  } else {
    /* each kernel reads the voted outputs of the ones before it: nothing is remapped */
    fl_tmr_exec one = exec;
    for (int j = 0; j < nk; j++) {
      long bad = res->uncorrectable + res->detected;
      for (int i = 0; i < FL_TMR_MAX_ARRAYS; i++)
        one.from[0][i] = -1;
      FL_TRY(fl_tmr_stages(t, k, 1, j, &one, res));
      if (res->uncorrectable + res->detected > bad)
        break; /* no majority: the kernels after it would read NaN */
    }
  }
  if (t->cfg.replicas == 3)
    res->status = res->uncorrectable ? FL_TMR_UNCORRECTABLE : res->corrected ? FL_TMR_CORRECTED : FL_TMR_CLEAN;
  else
    res->status = res->detected ? FL_TMR_DETECTED : FL_TMR_CLEAN;
done:
  if (t)
    t->nqueue = 0;
  if (res)
    res->time_s = fl_tmr_now() - t0;
  return rc;
}

fl_err fl_tmr_run_kernels(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, fl_tmr_vote_at at, fl_tmr_result *res)
{
  if (res)
    memset(res, 0, sizeof *res);
  return fl_tmr_go(t, k, nk, at, res);
}

fl_err fl_tmr_run_kernel(fl_tmr *t, const fl_tmr_kernel_def *k, fl_tmr_result *res)
{
  return fl_tmr_run_kernels(t, k, 1, FL_TMR_VOTE_END, res);
}

fl_err fl_tmr_run_kernels_plain(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, double *time_s)
{
  fl_err rc = FL_OK;
  double t0 = fl_tmr_now();
  fl_tmr_exec exec;
  FL_CHECK(t != NULL, FL_ERR_INPUT, "tmr: no context");
  FL_TRY(fl_tmr_check_defs(k, nk, &exec));
  FL_TRY(t->ops->plain(t->state, k, nk, t->cfg.stream));
done:
  if (time_s)
    *time_s = fl_tmr_now() - t0;
  return rc;
}

/* The built-in tasks are kernel definitions over the backend's memory: the same path as yours. One unprotected
 * (plain) or protected run of `task`, its outputs handed back. */
static fl_err fl_tmr_builtin(fl_tmr *t, const fl_tmr_task *task, int plain, fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  fl_tmr_kernel_def def;
  FL_TRY(fl_tmr_check_task(task));
  memset(&def, 0, sizeof def);
  FL_TRY(t->ops->builtin(t->state, task, &def));
  if (plain)
    FL_TRY(t->ops->plain(t->state, &def, 1, t->cfg.stream));
  else
    FL_TRY(fl_tmr_go(t, &def, 1, FL_TMR_VOTE_END, res));
  FL_TRY(t->ops->builtin_finish(t->state, task));
done:
  return rc;
}

fl_err fl_tmr_run(fl_tmr *t, const fl_tmr_task *task, fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  double t0 = fl_tmr_now();
  FL_CHECK(t != NULL && res != NULL, FL_ERR_INPUT, "tmr: no context or no result");
  memset(res, 0, sizeof *res);
  rc = fl_tmr_builtin(t, task, 0, res);
  t->nqueue = 0;
done:
  if (res)
    res->time_s = fl_tmr_now() - t0;
  return rc;
}

fl_err fl_tmr_run_plain(fl_tmr *t, const fl_tmr_task *task, double *time_s)
{
  fl_err rc = FL_OK;
  double t0 = fl_tmr_now();
  FL_CHECK(t != NULL, FL_ERR_INPUT, "tmr: no context");
  rc = fl_tmr_builtin(t, task, 1, NULL);
done:
  if (time_s)
    *time_s = fl_tmr_now() - t0;
  return rc;
}
