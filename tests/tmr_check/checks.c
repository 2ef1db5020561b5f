/* checks.c — TMR of user kernels checked and measured on one backend (checks.h). */
#include "checks.h"

#include "tmr_impl.h" /* fl_tmr_now */

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KINDS 5
static const char *const kind_name[KINDS] = {"axpy f64", "square f32", "hash i32", "mix i64", "add u8"};
static const fl_tmr_type kind_type[KINDS] = {FL_TMR_F64, FL_TMR_F32, FL_TMR_I32, FL_TMR_I64, FL_TMR_U8};
static const int kind_nin[KINDS] = {2, 1, 1, 2, 2};

/* One kernel over buffers in the backend's memory, with its unprotected result on the host. */
typedef struct tcase {
  const tmr_env *env;
  int kind;
  long n;
  size_t esize;
  void *in[2], *out;
  unsigned char *ref, *got, *junk;
  tmr_args args;
  fl_tmr_kernel_def def;
} tcase;

void tmr_range(const fl_tmr_launch *l, tmr_args *a, long *first, long *last)
{
  *first = 0;
  *last = a->n;
  if (l->last > l->first) {
    *first = l->first;
    *last = l->last;
    if (l->last - l->first < a->n)
      __atomic_fetch_add(&a->ranged, 1, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(&a->calls, 1, __ATOMIC_RELAXED);
}

static void say(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *log, const char *fmt, ...)
{
  va_list ap;
  if (!log)
    return;
  va_start(ap, fmt);
  vfprintf(log, fmt, ap);
  va_end(ap);
  fflush(log);
}

static fl_tmr_launch_fn kind_launch(const tmr_env *env, int kind)
{
  switch (kind) {
  case 0: return env->axpy;
  case 1: return env->sq32;
  case 2: return env->hash32;
  case 3: return env->mix64;
  default: return env->bytes;
  }
}

static void tcase_free(tcase *c)
{
  if (!c->env)
    return;
  for (int i = 0; i < 2; i++)
    c->env->release(c->in[i]);
  c->env->release(c->out);
  free(c->ref);
  free(c->got);
  free(c->junk);
  memset(c, 0, sizeof *c);
}

/* Inputs drawn from rng (floats in [-10, 10), integers any bits), the definition, and the reference: one
 * unprotected run on the same backend. */
static fl_err tcase_make(tcase *c, const tmr_env *env, fl_tmr *t, int kind, long n, gsl_rng *rng)
{
  fl_err rc = FL_OK;
  unsigned char *host = NULL;
  memset(c, 0, sizeof *c);
  c->env = env;
  c->kind = kind;
  c->n = n;
  c->esize = fl_tmr_type_size(kind_type[kind]);
  FL_ALLOC(host, (size_t)n * c->esize);
  FL_ALLOC(c->ref, (size_t)n * c->esize);
  FL_ALLOC(c->got, (size_t)n * c->esize);
  FL_ALLOC(c->junk, (size_t)n * c->esize);
  memset(c->junk, 0xA5, (size_t)n * c->esize);
  for (int i = 0; i < kind_nin[kind]; i++) {
    for (long k = 0; k < n; k++) {
      if (kind_type[kind] == FL_TMR_F64) {
        double v = 20.0 * gsl_rng_uniform(rng) - 10.0;
        memcpy(host + 8 * k, &v, 8);
      } else if (kind_type[kind] == FL_TMR_F32) {
        float v = (float)(20.0 * gsl_rng_uniform(rng) - 10.0);
        memcpy(host + 4 * k, &v, 4);
      } else {
        for (size_t b = 0; b < c->esize; b++)
          host[k * (long)c->esize + (long)b] = (unsigned char)gsl_rng_uniform_int(rng, 256);
      }
    }
    FL_TRY(env->alloc(&c->in[i], (size_t)n * c->esize));
    FL_TRY(env->put(c->in[i], host, (size_t)n * c->esize));
  }
  FL_TRY(env->alloc(&c->out, (size_t)n * c->esize));
  c->args.n = n;
  c->args.a = kind == 0 ? 2.5 : 0.75;
  c->def.name = kind_name[kind];
  c->def.nin = kind_nin[kind];
  c->def.nout = 1;
  for (int i = 0; i < c->def.nin; i++)
    c->def.in[i] = (fl_tmr_buffer){c->in[i], n, kind_type[kind]};
  c->def.out[0] = (fl_tmr_buffer){c->out, n, kind_type[kind]};
  c->def.launch = kind_launch(env, kind);
  c->def.arg = &c->args;
  FL_TRY(fl_tmr_run_kernels_plain(t, &c->def, 1, NULL));
  FL_TRY(env->get(c->ref, c->out, (size_t)n * c->esize));
done:
  free(host);
  return rc;
}

/* A protected run of the case: the output is first filled with junk, so that an element no replica wrote shows. */
static fl_err tcase_run(tcase *c, fl_tmr *t, fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  FL_TRY(c->env->put(c->out, c->junk, (size_t)c->n * c->esize));
  FL_TRY(fl_tmr_run_kernel(t, &c->def, res));
  FL_TRY(c->env->get(c->got, c->out, (size_t)c->n * c->esize));
done:
  return rc;
}

static int tcase_differs(const tcase *c, long i)
{
  return memcmp(c->got + (size_t)i * c->esize, c->ref + (size_t)i * c->esize, c->esize) != 0;
}

static int tcase_is_nan(const tcase *c, long i)
{
  if (c->esize == 8 && kind_type[c->kind] == FL_TMR_F64) {
    double v;
    memcpy(&v, c->got + 8 * i, 8);
    return isnan(v);
  }
  if (kind_type[c->kind] == FL_TMR_F32) {
    float v;
    memcpy(&v, c->got + 4 * i, 4);
    return isnan(v);
  }
  return 0;
}

static int listed(const fl_tmr_result *res, int stage, int array, long index, int nomajority)
{
  for (long i = 0; i < res->npositions; i++)
    if (res->positions[i].stage == stage && res->positions[i].array == array && res->positions[i].index == index &&
        (!nomajority || res->positions[i].outvoted == -1))
      return 1;
  return 0;
}

/* Two contexts on env's backend: replicas at once (streams, threads) and in turn. */
static fl_err contexts(const tmr_env *env, uint64_t seed, fl_tmr *t[2])
{
  fl_err rc = FL_OK;
  fl_tmr_config cfg = fl_tmr_config_default();
  cfg.backend = env->backend;
  cfg.seed = seed;
  cfg.concurrency = FL_TMR_CONCURRENT;
  FL_TRY(fl_tmr_create(&cfg, &t[0]));
  cfg.concurrency = FL_TMR_IN_TURN;
  FL_TRY(fl_tmr_create(&cfg, &t[1]));
done:
  return rc;
}

static fl_err cases(const tmr_env *env, fl_tmr *t, gsl_rng *rng, tcase c[KINDS])
{
  fl_err rc = FL_OK;
  for (int k = 0; k < KINDS; k++)
    FL_TRY(tcase_make(&c[k], env, t, k, 1000 + 211 * k, rng));
done:
  return rc;
}

static int setup_failed(FILE *log, const char *check)
{
  say(log, "%s: set-up failed: %s\n", check, fl_err_msg());
  return 1;
}

/* What the trial checks share: the two contexts, the input stream, a case of every kind. */
typedef struct fixture {
  fl_tmr *t[2];
  gsl_rng *rng;
  tcase c[KINDS];
} fixture;

static void fixture_close(fixture *f)
{
  for (int k = 0; k < KINDS; k++)
    tcase_free(&f->c[k]);
  fl_tmr_destroy(&f->t[0]);
  fl_tmr_destroy(&f->t[1]);
  if (f->rng)
    gsl_rng_free(f->rng);
}

/* 0 when set up; else 1, said on log, and nothing left to close. */
static int fixture_open(fixture *f, const tmr_env *env, uint64_t seed, unsigned long inputs, const char *check,
                        FILE *log)
{
  memset(f, 0, sizeof *f);
  f->rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (f->rng)
    gsl_rng_set(f->rng, inputs);
  if (!f->rng || contexts(env, seed, f->t) != FL_OK || cases(env, f->t[0], f->rng, f->c) != FL_OK) {
    fixture_close(f);
    return setup_failed(log, check);
  }
  return 0;
}

int tmr_check_one_corrupted(const tmr_env *env, int trials, uint64_t seed, FILE *log)
{
  int fails = 0, status[4] = {0, 0, 0, 0};
  fixture fx;
  fl_tmr **t = fx.t;
  tcase *c = fx.c;
  if (fixture_open(&fx, env, seed, (unsigned long)seed, "one corrupted replica", log))
    return 1;
  for (int trial = 0; trial < trials; trial++) {
    tcase *k = &c[trial % KINDS];
    fl_tmr *ctx = t[(trial / KINDS) % 2];
    fl_tmr_fault f = fl_tmr_fault_random();
    fl_tmr_result res;
    long wrong = 0;
    f.target = (trial / (2 * KINDS)) % 2 ? FL_TMR_INPUT : FL_TMR_OUTPUT;
    if (fl_tmr_inject(ctx, &f) != FL_OK || tcase_run(k, ctx, &res) != FL_OK) {
      say(log, "one corrupted replica, trial %d (%s): %s\n", trial, kind_name[k->kind], fl_err_msg());
      fails++;
      continue;
    }
    for (long i = 0; i < k->n; i++)
      wrong += tcase_differs(k, i);
    status[res.status]++;
    if (wrong || res.nfaults != 1 || (res.status != FL_TMR_CLEAN && res.status != FL_TMR_CORRECTED)) {
      fails++;
      say(log,
          "one corrupted replica, trial %d (%s, %s): %ld elements differ from the unprotected run, status %s, "
          "%ld faults (replica %d, %s, element %ld, bit %d)\n",
          trial, kind_name[k->kind], ctx == t[0] ? "concurrent" : "in turn", wrong, fl_tmr_status_str(res.status),
          res.nfaults, res.faults[0].replica, res.faults[0].target == FL_TMR_INPUT ? "input" : "output",
          res.faults[0].element, res.faults[0].bit);
    }
  }
  say(log,
      "one corrupted replica (%s): %d of %d trials give the unprotected run's bits (%d corrected, %d clean: the flip "
      "did not change the output)\n",
      env->backend, trials - fails, trials, status[FL_TMR_CORRECTED], status[FL_TMR_CLEAN]);
  fixture_close(&fx);
  return fails;
}

int tmr_check_two_corrupted(const tmr_env *env, int trials, uint64_t seed, FILE *log)
{
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  int fails = 0;
  fixture fx;
  fl_tmr **t = fx.t;
  tcase *c = fx.c;
  gsl_rng *rng;
  if (fixture_open(&fx, env, seed, (unsigned long)seed + 1, "two corrupted replicas", log))
    return 1;
  rng = fx.rng;
  for (int trial = 0; trial < trials; trial++) {
    tcase *k = &c[trial % KINDS];
    fl_tmr *ctx = t[(trial / KINDS) % 2];
    const int *pair = pairs[(trial / (2 * KINDS)) % 3];
    const int nbits = 8 * (int)k->esize;
    long e = (long)gsl_rng_uniform_int(rng, (unsigned long)k->n), other = 0;
    int b1 = (int)gsl_rng_uniform_int(rng, (unsigned long)nbits),
        b2 = (b1 + 1 + (int)gsl_rng_uniform_int(rng, (unsigned long)nbits - 1)) % nbits;
    fl_tmr_fault f1 = {.replica = pair[0], .target = FL_TMR_OUTPUT, .array = 0, .element = e, .bit = b1};
    fl_tmr_fault f2 = {.replica = pair[1], .target = FL_TMR_OUTPUT, .array = 0, .element = e, .bit = b2};
    fl_tmr_result res;
    int nan_ok;
    if (fl_tmr_inject(ctx, &f1) != FL_OK || fl_tmr_inject(ctx, &f2) != FL_OK || tcase_run(k, ctx, &res) != FL_OK) {
      say(log, "two corrupted replicas, trial %d (%s): %s\n", trial, kind_name[k->kind], fl_err_msg());
      fails++;
      continue;
    }
    for (long i = 0; i < k->n; i++)
      other += i != e && tcase_differs(k, i);
    nan_ok = (kind_type[k->kind] != FL_TMR_F64 && kind_type[k->kind] != FL_TMR_F32) || tcase_is_nan(k, e);
    if (res.status != FL_TMR_UNCORRECTABLE || res.uncorrectable != 1 || !listed(&res, 0, 0, e, 1) || other || !nan_ok) {
      fails++;
      say(log,
          "two corrupted replicas, trial %d (%s, replicas %d and %d, element %ld, bits %d and %d): status %s, %ld "
          "uncorrectable, %slisted, %ld other elements wrong%s\n",
          trial, kind_name[k->kind], pair[0], pair[1], e, b1, b2, fl_tmr_status_str(res.status), res.uncorrectable,
          listed(&res, 0, 0, e, 1) ? "" : "not ", other, nan_ok ? "" : ", no NaN");
    }
  }
  say(log, "two corrupted replicas (%s): %d of %d trials reported (status uncorrectable, the element listed)\n",
      env->backend, trials - fails, trials);
  fixture_close(&fx);
  return fails;
}

/* Two applied faults that corrupt two replicas identically: TMR cannot see that. */
static int blind_spot(const fl_tmr_result *res)
{
  for (long i = 0; i < res->nlisted; i++)
    for (long j = 0; j < i; j++) {
      const fl_tmr_applied *a = &res->faults[i], *b = &res->faults[j];
      if (a->replica != b->replica && a->target == b->target && a->stage == b->stage && a->array == b->array &&
          a->element == b->element && a->bit == b->bit)
        return 1;
    }
  return 0;
}

int tmr_check_nothing_silent(const tmr_env *env, int trials, uint64_t seed, FILE *log)
{
  int fails = 0, silent = 0, blind = 0, reported = 0, right = 0;
  long faults = 0;
  fixture fx;
  fl_tmr **t = fx.t;
  tcase *c = fx.c;
  if (fixture_open(&fx, env, seed + 2, (unsigned long)seed + 2, "nothing silent", log))
    return 1;
  for (int trial = 0; trial < trials; trial++) {
    tcase *k = &c[trial % KINDS];
    fl_tmr *ctx = t[(trial / KINDS) % 2];
    fl_tmr_result res;
    long wrong = 0, unlisted = 0;
    if (fl_tmr_inject_sdc(ctx, 10.0, FL_TMR_OUTPUT, NULL) != FL_OK ||
        fl_tmr_inject_sdc(ctx, 10.0, FL_TMR_INPUT, NULL) != FL_OK || tcase_run(k, ctx, &res) != FL_OK) {
      say(log, "nothing silent, trial %d (%s): %s\n", trial, kind_name[k->kind], fl_err_msg());
      fails++;
      continue;
    }
    faults += res.nfaults;
    for (long i = 0; i < k->n; i++)
      if (tcase_differs(k, i)) {
        wrong++;
        if (res.uncorrectable <= FL_TMR_MAX_POSITIONS && !listed(&res, 0, 0, i, 1))
          unlisted++;
      }
    if (wrong == 0) {
      right++;
      continue;
    }
    if (res.status == FL_TMR_UNCORRECTABLE && unlisted == 0) {
      reported++;
      continue;
    }
    if (blind_spot(&res)) {
      blind++;
      continue;
    }
    silent++;
    fails++;
    say(log, "nothing silent, trial %d (%s): %ld elements wrong, %ld not listed, status %s, %ld faults: SILENT\n",
        trial, kind_name[k->kind], wrong, unlisted, fl_tmr_status_str(res.status), res.nfaults);
  }
  say(log,
      "random faults (%s): %d trials, %ld faults: %d right, %d reported, %d silent, %d with two replicas flipped "
      "identically (TMR's blind spot)\n",
      env->backend, trials, faults, right, reported, silent, blind);
  fixture_close(&fx);
  return fails;
}

/* ---- pipelines ---- */

#define PN 4096

typedef struct pipe {
  const tmr_env *env;
  void *x, *c, *y, *z, *w;
  double *ref[3], *got[3], *junk;
  tmr_args a0, a1, a2;
  fl_tmr_kernel_def k[3];
} pipe;

static void pipe_free(pipe *p)
{
  if (!p->env)
    return;
  p->env->release(p->x);
  p->env->release(p->c);
  p->env->release(p->y);
  p->env->release(p->z);
  p->env->release(p->w);
  for (int i = 0; i < 3; i++) {
    free(p->ref[i]);
    free(p->got[i]);
  }
  free(p->junk);
}

/* y = 2 x + c; z = 0.5 y + x; w = 3 steps of t = 0.25 t + z from t = z. */
static fl_err pipe_make(pipe *p, const tmr_env *env, fl_tmr *t)
{
  fl_err rc = FL_OK;
  const size_t bytes = PN * sizeof(double);
  double *h = NULL;
  void **outs[3] = {&p->y, &p->z, &p->w};
  memset(p, 0, sizeof *p);
  p->env = env;
  FL_ALLOC(h, PN);
  FL_ALLOC(p->junk, PN);
  for (int i = 0; i < PN; i++)
    p->junk[i] = -12345.0;
  for (int i = 0; i < 3; i++) {
    FL_ALLOC(p->ref[i], PN);
    FL_ALLOC(p->got[i], PN);
    FL_TRY(env->alloc(outs[i], bytes));
  }
  for (int i = 0; i < PN; i++)
    h[i] = sin(0.01 * i);
  FL_TRY(env->alloc(&p->x, bytes));
  FL_TRY(env->put(p->x, h, bytes));
  for (int i = 0; i < PN; i++)
    h[i] = cos(0.02 * i);
  FL_TRY(env->alloc(&p->c, bytes));
  FL_TRY(env->put(p->c, h, bytes));
  p->a0 = (tmr_args){.n = PN, .a = 2.0};
  p->a1 = (tmr_args){.n = PN, .a = 0.5};
  p->a2 = (tmr_args){.n = PN, .a = 0.25, .steps = 3};
  p->k[0] = (fl_tmr_kernel_def){.name = "y = 2x + c", .nin = 2, .nout = 1, .launch = env->axpy, .arg = &p->a0};
  p->k[0].in[0] = (fl_tmr_buffer){p->x, PN, FL_TMR_F64};
  p->k[0].in[1] = (fl_tmr_buffer){p->c, PN, FL_TMR_F64};
  p->k[0].out[0] = (fl_tmr_buffer){p->y, PN, FL_TMR_F64};
  p->k[1] = (fl_tmr_kernel_def){.name = "z = y/2 + x", .nin = 2, .nout = 1, .launch = env->axpy, .arg = &p->a1};
  p->k[1].in[0] = (fl_tmr_buffer){p->y, PN, FL_TMR_F64};
  p->k[1].in[1] = (fl_tmr_buffer){p->x, PN, FL_TMR_F64};
  p->k[1].out[0] = (fl_tmr_buffer){p->z, PN, FL_TMR_F64};
  p->k[2] = (fl_tmr_kernel_def){.name = "w = chain(z)", .nin = 1, .nout = 1, .launch = env->chain, .arg = &p->a2};
  p->k[2].in[0] = (fl_tmr_buffer){p->z, PN, FL_TMR_F64};
  p->k[2].out[0] = (fl_tmr_buffer){p->w, PN, FL_TMR_F64};
  FL_TRY(fl_tmr_run_kernels_plain(t, p->k, 3, NULL));
  for (int i = 0; i < 3; i++)
    FL_TRY(env->get(p->ref[i], *outs[i], bytes));
done:
  free(h);
  return rc;
}

static fl_err pipe_run(pipe *p, fl_tmr *t, fl_tmr_vote_at at, const fl_tmr_fault *f, int nf, fl_tmr_result *res)
{
  fl_err rc = FL_OK;
  void *outs[3] = {p->y, p->z, p->w};
  for (int i = 0; i < 3; i++)
    FL_TRY(p->env->put(outs[i], p->junk, PN * sizeof(double)));
  for (int i = 0; i < nf; i++)
    FL_TRY(fl_tmr_inject(t, &f[i]));
  FL_TRY(fl_tmr_run_kernels(t, p->k, 3, at, res));
  for (int i = 0; i < 3; i++)
    FL_TRY(p->env->get(p->got[i], outs[i], PN * sizeof(double)));
done:
  return rc;
}

/* Elements of output s (0 y, 1 z, 2 w) that differ from the unprotected run's. */
static long pipe_wrong(const pipe *p, int s)
{
  long n = 0;
  for (int i = 0; i < PN; i++)
    n += memcmp(&p->got[s][i], &p->ref[s][i], sizeof(double)) != 0;
  return n;
}

#define PIPE_EXPECT(cond, ...)                                                                                         \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fails++;                                                                                                         \
      say(log, "pipeline (%s): ", env->backend);                                                                       \
      say(log, __VA_ARGS__);                                                                                           \
      say(log, "\n");                                                                                                  \
    }                                                                                                                  \
  } while (0)

int tmr_check_pipeline(const tmr_env *env, FILE *log)
{
  int fails = 0;
  fl_tmr *t[2] = {NULL, NULL};
  pipe p;
  fl_tmr_result res;
  const fl_tmr_fault one = {.replica = 1, .target = FL_TMR_OUTPUT, .array = 0, .element = 5, .bit = 40, .stage = 0};
  const fl_tmr_fault two[2] = {
      one, {.replica = 2, .target = FL_TMR_OUTPUT, .array = 0, .element = 5, .bit = 41, .stage = 1}};
  const fl_tmr_fault same[2] = {
      one, {.replica = 2, .target = FL_TMR_OUTPUT, .array = 0, .element = 5, .bit = 41, .stage = 0}};
  const fl_tmr_fault voted = {.replica = 0, .target = FL_TMR_VOTED, .array = 0, .element = 7, .bit = 3, .stage = 2};
  const fl_tmr_fault mid = {.replica = 2, .target = FL_TMR_INPUT, .array = 0, .element = 9, .bit = 51, .stage = 1};
  memset(&p, 0, sizeof p);
  if (contexts(env, 7, t) != FL_OK || pipe_make(&p, env, t[0]) != FL_OK) {
    fails = setup_failed(log, "pipeline");
    goto done;
  }
  for (int m = 0; m < 2; m++) {
    fl_tmr *ctx = t[m];
    const char *mode = m == 0 ? "concurrent" : "in turn";
    /* one bad replica at the first kernel */
    if (pipe_run(&p, ctx, FL_TMR_VOTE_END, &one, 1, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_CORRECTED && pipe_wrong(&p, 0) + pipe_wrong(&p, 1) + pipe_wrong(&p, 2) == 0 &&
                    res.corrected == 3 && listed(&res, 2, 0, 5, 0) && res.stages == 3,
                "%s, voted at the end, one bad replica: status %s, %ld corrected (3: y, z, w), %ld+%ld+%ld wrong", mode,
                fl_tmr_status_str(res.status), res.corrected, pipe_wrong(&p, 0), pipe_wrong(&p, 1), pipe_wrong(&p, 2));
    if (pipe_run(&p, ctx, FL_TMR_VOTE_EACH, &one, 1, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_CORRECTED && pipe_wrong(&p, 2) == 0 && res.corrected == 1 && res.stages == 3,
                "%s, voted after each, one bad replica: status %s, %ld corrected (1), %ld wrong in w", mode,
                fl_tmr_status_str(res.status), res.corrected, pipe_wrong(&p, 2));
    /* two bad replicas at different kernels: the trade-off */
    if (pipe_run(&p, ctx, FL_TMR_VOTE_EACH, two, 2, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(
        res.status == FL_TMR_CORRECTED && pipe_wrong(&p, 2) == 0 && res.corrected == 2,
        "%s, voted after each, replicas 1 and 2 bad at kernels 0 and 1: status %s, %ld corrected (2), %ld wrong", mode,
        fl_tmr_status_str(res.status), res.corrected, pipe_wrong(&p, 2));
    if (pipe_run(&p, ctx, FL_TMR_VOTE_END, two, 2, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_UNCORRECTABLE && res.uncorrectable == 2 && listed(&res, 1, 0, 5, 1) &&
                    listed(&res, 2, 0, 5, 1) && isnan(p.got[2][5]) && pipe_wrong(&p, 0) == 0 && pipe_wrong(&p, 2) == 1,
                "%s, voted at the end, replicas 1 and 2 bad at kernels 0 and 1: status %s, %ld uncorrectable (2: z[5], "
                "w[5]), w[5] = %g",
                mode, fl_tmr_status_str(res.status), res.uncorrectable, p.got[2][5]);
    /* no majority after the first kernel: the others are not run */
    if (pipe_run(&p, ctx, FL_TMR_VOTE_EACH, same, 2, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_UNCORRECTABLE && res.stages == 1 && p.got[2][0] == -12345.0 && isnan(p.got[0][5]),
                "%s, voted after each, no majority at kernel 0: status %s, %d kernels run (1), w %s", mode,
                fl_tmr_status_str(res.status), res.stages, p.got[2][0] == -12345.0 ? "untouched" : "written");
    /* a corrupted intermediate input of one replica */
    if (pipe_run(&p, ctx, FL_TMR_VOTE_END, &mid, 1, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_CORRECTED && pipe_wrong(&p, 1) + pipe_wrong(&p, 2) == 0 &&
                    listed(&res, 2, 0, 9, 0),
                "%s, replica 2 reads a corrupted y[9]: status %s", mode, fl_tmr_status_str(res.status));
    /* after the vote, nothing sees it */
    if (pipe_run(&p, ctx, FL_TMR_VOTE_END, &voted, 1, &res) != FL_OK)
      goto broken;
    PIPE_EXPECT(res.status == FL_TMR_CLEAN && pipe_wrong(&p, 2) == 1 && p.got[2][7] != p.ref[2][7],
                "%s, a flip in the voted w[7]: status %s (clean), %ld wrong (1)", mode, fl_tmr_status_str(res.status),
                pipe_wrong(&p, 2));
  }
  say(log, "pipeline (%s): voted after each kernel and at the end, %d failures\n", env->backend, fails);
  goto done;
broken:
  fails++;
  say(log, "pipeline (%s): %s\n", env->backend, fl_err_msg());
done:
  pipe_free(&p);
  fl_tmr_destroy(&t[0]);
  fl_tmr_destroy(&t[1]);
  return fails;
}

/* ---- bad input ---- */

static int fail7(const fl_tmr_launch *l, void *arg)
{
  (void)l;
  (void)arg;
  return 7;
}

int tmr_check_bad_input(const tmr_env *env, FILE *log)
{
  int fails = 0;
  fl_tmr *t[2] = {NULL, NULL};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  tcase c, d;
  fl_tmr_result res;
  fl_tmr_kernel_def k[9], bad;
  fl_tmr_fault f = fl_tmr_fault_random();
  memset(&c, 0, sizeof c);
  memset(&d, 0, sizeof d);
  if (contexts(env, 3, t) != FL_OK || tcase_make(&c, env, t[0], 0, 1000, rng) != FL_OK ||
      tcase_make(&d, env, t[0], 1, 1000, rng) != FL_OK) {
    fails = setup_failed(log, "bad input");
    goto done;
  }
#define BAD(call, code, text)                                                                                          \
  do {                                                                                                                 \
    fl_err e_ = (call);                                                                                                \
    if (e_ != (code) || !strstr(fl_err_msg(), (text))) {                                                               \
      fails++;                                                                                                         \
      say(log, "bad input (%s): %s gave %d '%s', not %d with '%s'\n", env->backend, #call, (int)e_, fl_err_msg(),      \
          (int)(code), (text));                                                                                        \
    }                                                                                                                  \
    fl_err_clear();                                                                                                    \
  } while (0)
  bad = c.def;
  bad.launch = NULL;
  BAD(fl_tmr_run_kernel(t[0], &bad, &res), FL_ERR_INPUT, "no launch function");
  bad = c.def;
  bad.out[0].data = c.in[0];
  BAD(fl_tmr_run_kernel(t[0], &bad, &res), FL_ERR_INPUT, "overlaps input");
  bad = c.def;
  bad.out[0].type = (fl_tmr_type)99;
  BAD(fl_tmr_run_kernel(t[0], &bad, &res), FL_ERR_INPUT, "unknown type 99");
  bad = c.def;
  bad.in[1].count = 0;
  BAD(fl_tmr_run_kernel(t[0], &bad, &res), FL_ERR_INPUT, "NULL or empty");
  bad = c.def;
  bad.items = 300;
  BAD(fl_tmr_run_kernel(t[0], &bad, &res), FL_ERR_INPUT, "do not make output 0");
  for (int i = 0; i < 9; i++)
    k[i] = c.def;
  BAD(fl_tmr_run_kernels(t[0], k, 9, FL_TMR_VOTE_END, &res), FL_ERR_INPUT, "9 kernels (1 .. 8)");
  /* kernel 1 reads part of kernel 0's output */
  k[1] = d.def;
  k[1].in[0] = (fl_tmr_buffer){(char *)c.out + 16, 10, FL_TMR_F64};
  BAD(fl_tmr_run_kernels(t[0], k, 2, FL_TMR_VOTE_END, &res), FL_ERR_INPUT, "without being that buffer");
  /* kernel 1 writes what kernel 0 reads */
  k[1] = d.def;
  k[1].out[0] = (fl_tmr_buffer){c.in[1], 1000, FL_TMR_F32};
  BAD(fl_tmr_run_kernels(t[0], k, 2, FL_TMR_VOTE_END, &res), FL_ERR_INPUT, "overlaps input 1 of kernel 0");
  BAD(fl_tmr_run_kernels(t[0], k, 1, (fl_tmr_vote_at)5, &res), FL_ERR_INPUT, "vote point 5");
  f.bit = 40;
  f.array = 0;
  fl_tmr_inject(t[0], &f);
  BAD(fl_tmr_run_kernel(t[0], &d.def, &res), FL_ERR_INPUT, "bit 40 (0 .. 31 for f32)");
  f = fl_tmr_fault_random();
  f.stage = 3;
  fl_tmr_inject(t[0], &f);
  k[1] = d.def;
  BAD(fl_tmr_run_kernels(t[0], k, 2, FL_TMR_VOTE_END, &res), FL_ERR_INPUT, "kernel 3 (the run has 2)");
  /* the queue was emptied by the refusals: a clean run now */
  if (tcase_run(&c, t[0], &res) != FL_OK || res.status != FL_TMR_CLEAN || res.nfaults != 0) {
    fails++;
    say(log, "bad input (%s): the run after the refusals: %s, %ld faults\n", env->backend,
        fl_tmr_status_str(res.status), res.nfaults);
  }
  {
    fl_tmr *u = NULL;
    fl_tmr_config cfg = fl_tmr_config_default();
    cfg.backend = env->backend;
    cfg.chunk_items = -1;
    BAD(fl_tmr_create(&cfg, &u), FL_ERR_INPUT, "chunk_items -1");
    fl_tmr_destroy(&u);
  }
  for (int m = 0; m < 2; m++) {
    bad = c.def;
    bad.launch = fail7;
    bad.name = "failing";
    BAD(fl_tmr_run_kernel(t[m], &bad, &res), FL_ERR_INTERNAL, "tmr kernel 0 (failing): the launch function of replica");
    BAD(fl_tmr_run_kernels_plain(t[m], &bad, 1, NULL), FL_ERR_INTERNAL, "returned 7");
  }
  {
    /* a cudaLaunchKernel description that cannot be launched: refused before any CUDA call, on any backend */
    fl_tmr_cuda_kernel ck;
    memset(&ck, 0, sizeof ck);
    ck.nargs = 2;
    bad = c.def;
    bad.launch = fl_tmr_launch_cuda;
    bad.arg = &ck;
    bad.name = "described";
    BAD(fl_tmr_run_kernels_plain(t[0], &bad, 1, NULL), FL_ERR_INTERNAL, "(described): the launch function returned -1");
  }
#undef BAD
  say(log, "bad input (%s): %d failures\n", env->backend, fails);
done:
  tcase_free(&c);
  tcase_free(&d);
  fl_tmr_destroy(&t[0]);
  fl_tmr_destroy(&t[1]);
  gsl_rng_free(rng);
  return fails;
}

int tmr_check_ranges(const tmr_env *env, FILE *log)
{
  int fails = 0;
  fl_tmr *t = NULL;
  fl_tmr_config cfg = fl_tmr_config_default();
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  tcase c;
  fl_tmr_result res;
  /* chunk by chunk: a flip at the end of chunk 0, one at the start of chunk 5, one in an input of chunk 7 */
  const fl_tmr_fault f[3] = {{.replica = 0, .target = FL_TMR_OUTPUT, .array = 0, .element = 999, .bit = 3},
                             {.replica = 1, .target = FL_TMR_OUTPUT, .array = 0, .element = 5000, .bit = 62},
                             {.replica = 2, .target = FL_TMR_INPUT, .array = 1, .element = 7500, .bit = 20}};
  long wrong = 0;
  memset(&c, 0, sizeof c);
  cfg.backend = env->backend;
  cfg.concurrency = FL_TMR_IN_TURN;
  cfg.chunk_items = 1000;
  if (fl_tmr_create(&cfg, &t) != FL_OK || tcase_make(&c, env, t, 0, 10000, rng) != FL_OK) {
    fails = setup_failed(log, "ranges");
    goto done;
  }
  c.def.items = 10000;
  c.args.calls = c.args.ranged = 0;
  for (int i = 0; i < 3; i++)
    if (fl_tmr_inject(t, &f[i]) != FL_OK)
      fails++;
  if (fails || tcase_run(&c, t, &res) != FL_OK) {
    fails++;
    say(log, "ranges (%s): %s\n", env->backend, fl_err_msg());
    goto done;
  }
  for (long i = 0; i < c.n; i++)
    wrong += tcase_differs(&c, i);
  if (wrong || res.status != FL_TMR_CORRECTED || res.corrected != 3 || !listed(&res, 0, 0, 999, 0) ||
      !listed(&res, 0, 0, 5000, 0) || !listed(&res, 0, 0, 7500, 0) || c.args.ranged != 30) {
    fails++;
    say(log, "ranges (%s): %ld wrong, status %s, %ld corrected (3), %d ranged launches of %d (30)\n", env->backend,
        wrong, fl_tmr_status_str(res.status), res.corrected, c.args.ranged, c.args.calls);
  }
  say(log,
      "ranges (%s): %d launches of chunks, the bits of the whole run, 3 faults at chunk edges corrected, %d "
      "failures\n",
      env->backend, c.args.ranged, fails);
done:
  tcase_free(&c);
  fl_tmr_destroy(&t);
  gsl_rng_free(rng);
  return fails;
}

/* A launch that waits for the device after launching: what a launch function may not do while faultline records a
 * graph of it. */
static int launch_then_sync(const fl_tmr_launch *l, void *arg)
{
  const tmr_env *env = ((tmr_args *)arg)->env;
  int e = env->axpy(l, arg);
  if (env->sync)
    env->sync();
  return e;
}

/* One replay case: a protected run of c (its output junk first), clean or with `fault`, checked against the
 * unprotected run; *calls gets the launches it made. Returns the failures. */
static int replay_step(tcase *c, fl_tmr *t, const char *mode, const char *what, const fl_tmr_fault *fault, int *calls,
                       FILE *log)
{
  fl_tmr_result res;
  long wrong = 0;
  int before = c->args.calls;
  if ((fault && fl_tmr_inject(t, fault) != FL_OK) || tcase_run(c, t, &res) != FL_OK) {
    say(log, "replay (%s, %s, %s): %s\n", c->env->backend, mode, what, fl_err_msg());
    return 1;
  }
  *calls = c->args.calls - before;
  for (long i = 0; i < c->n; i++)
    wrong += tcase_differs(c, i);
  if (wrong || res.status != (fault ? FL_TMR_CORRECTED : FL_TMR_CLEAN) || res.corrected != (fault ? 1 : 0)) {
    say(log, "replay (%s, %s, %s): %ld elements wrong, status %s, %ld corrected\n", c->env->backend, mode, what, wrong,
        fl_tmr_status_str(res.status), res.corrected);
    return 1;
  }
  return 0;
}

int tmr_check_replay(const tmr_env *env, FILE *log)
{
  static const fl_tmr_concurrency modes[3] = {FL_TMR_AUTO, FL_TMR_CONCURRENT, FL_TMR_IN_TURN};
  static const char *const mode_name[3] = {"auto", "concurrent", "in turn"};
  const int cuda = strcmp(env->backend, "cuda") == 0;
  /* on a GPU, an output past the L2 of any current GPU, so that auto overlaps chunks */
  const long n = cuda ? 1L << 24 : 100000;
  int fails = 0;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  for (int m = 0; m < 3 && rng; m++) {
    fl_tmr *t = NULL;
    fl_tmr_config cfg = fl_tmr_config_default();
    tcase c;
    fl_tmr_fault f = fl_tmr_fault_random();
    void *first_out = NULL, *other = NULL;
    int calls[6] = {0, 0, 0, 0, 0, 0}, f0 = fails;
    memset(&c, 0, sizeof c);
    gsl_rng_set(rng, 77 + (unsigned long)m);
    cfg.backend = env->backend;
    cfg.concurrency = modes[m];
    cfg.chunk_items = cuda && m == 0 ? 0 : 10000; /* auto: the backend's chunks */
    if (fl_tmr_create(&cfg, &t) != FL_OK || tcase_make(&c, env, t, 0, n, rng) != FL_OK ||
        env->alloc(&other, (size_t)n * sizeof(double)) != FL_OK) {
      fails += setup_failed(log, "replay");
      goto next;
    }
    c.args.env = env;
    c.def.items = n;
    c.def.replay = 1;
    f.replica = 1;
    f.element = n / 2 + 3;
    f.bit = 40;
    first_out = c.out;
    fails += replay_step(&c, t, mode_name[m], "first run", NULL, &calls[0], log);
    fails += replay_step(&c, t, mode_name[m], "second run", NULL, &calls[1], log);
    fails += replay_step(&c, t, mode_name[m], "a fault", &f, &calls[2], log);
    fails += replay_step(&c, t, mode_name[m], "after the fault", NULL, &calls[3], log);
    c.out = other; /* another output buffer: a graph of the old one must not be replayed */
    c.def.out[0].data = other;
    fails += replay_step(&c, t, mode_name[m], "new output buffer", NULL, &calls[4], log);
    fails += replay_step(&c, t, mode_name[m], "new output buffer again", NULL, &calls[5], log);
    c.out = first_out;
    c.def.out[0].data = first_out;
    /* on a GPU the replays launch nothing; the CPU ignores replay */
    if (cuda ? calls[0] == 0 || calls[1] != 0 || calls[2] != calls[0] || calls[3] != 0 || calls[4] != calls[0] ||
                   calls[5] != 0
             : calls[1] != calls[0] || calls[3] != calls[0] || calls[5] != calls[0]) {
      fails++;
      say(log, "replay (%s, %s): launches per run %d %d %d %d %d %d\n", env->backend, mode_name[m], calls[0], calls[1],
          calls[2], calls[3], calls[4], calls[5]);
    }
    if (cuda) { /* a launch that cannot be recorded: a clear error, and the context still runs */
      fl_tmr_result res;
      int e;
      c.def.launch = launch_then_sync;
      e = fl_tmr_run_kernel(t, &c.def, &res);
      if (e != FL_ERR_INPUT || !strstr(fl_err_msg(), "cannot be recorded")) {
        fails++;
        say(log, "replay (%s, %s): a launch that synchronises gave %d: %s\n", env->backend, mode_name[m], e,
            e ? fl_err_msg() : "no error");
      }
      c.def.launch = env->axpy;
      fails += replay_step(&c, t, mode_name[m], "after a failed recording", NULL, &calls[0], log);
    }
    say(log,
        "replay (%s, %s): %ld items, launches per run %d, %d replayed, %d with a fault, %d, %d new buffer, %d; %d "
        "failures\n",
        env->backend, mode_name[m], n, calls[0], calls[1], calls[2], calls[3], calls[4], calls[5], fails - f0);
  next:
    env->release(other);
    tcase_free(&c);
    fl_tmr_destroy(&t);
  }
  gsl_rng_free(rng);
  return fails;
}

/* ---- measurements ---- */

static double median(double *v, int n)
{
  gsl_sort(v, 1, (size_t)n);
  return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* Seconds per call of the unprotected run (on t[0]) and of the protected run on each context of t (the last one
 * with replay set), medians of `samples` samples taken in turn, each long enough (>= 20 ms) to hide the clock. */
static fl_err time_runs(fl_tmr *t[TMR_MODES], const fl_tmr_kernel_def *k0, int samples, double *plain_s,
                        double tmr_s[TMR_MODES])
{
  fl_err rc = FL_OK;
  double *p = NULL, *q[TMR_MODES] = {NULL, NULL, NULL, NULL}, one = 0;
  fl_tmr_result res;
  fl_tmr_kernel_def kd[TMR_MODES];
  int reps;
  FL_ALLOC(p, samples);
  for (int m = 0; m < TMR_MODES; m++) {
    kd[m] = *k0;
    kd[m].replay = m == TMR_MODES - 1;
    FL_ALLOC(q[m], samples);
    FL_TRY(fl_tmr_run_kernel(t[m], &kd[m], &res)); /* warm: buffers, code, the graph */
  }
  FL_TRY(fl_tmr_run_kernels_plain(t[0], k0, 1, &one));
  FL_TRY(fl_tmr_run_kernels_plain(t[0], k0, 1, &one));
  reps = one > 0.02 ? 1 : (int)(0.02 / fmax(one, 1e-7)) + 1;
  for (int s = 0; s < samples; s++) {
    double t0 = fl_tmr_now();
    for (int r = 0; r < reps; r++)
      FL_TRY(fl_tmr_run_kernels_plain(t[0], k0, 1, NULL));
    p[s] = (fl_tmr_now() - t0) / reps;
    for (int m = 0; m < TMR_MODES; m++) {
      t0 = fl_tmr_now();
      for (int r = 0; r < reps; r++)
        FL_TRY(fl_tmr_run_kernel(t[m], &kd[m], &res));
      q[m][s] = (fl_tmr_now() - t0) / reps;
      FL_CHECK(res.status == FL_TMR_CLEAN, FL_ERR_INTERNAL, "a fault-free run was %s", fl_tmr_status_str(res.status));
    }
  }
  *plain_s = median(p, samples);
  for (int m = 0; m < TMR_MODES; m++)
    tmr_s[m] = median(q[m], samples);
done:
  free(p);
  for (int m = 0; m < TMR_MODES; m++)
    free(q[m]);
  return rc;
}

static void measure_row(FILE *out, const char *name, double plain, const double tmr[TMR_MODES], const char *goal)
{
  say(out, "%-33s %8.4f ms", name, 1e3 * plain);
  for (int m = 0; m < TMR_MODES; m++)
    say(out, " %8.4f ms %5.2fx", 1e3 * tmr[m], tmr[m] / plain);
  say(out, "  %s\n", goal);
}

int tmr_measure(const tmr_env *env, long n_big, long steps, int samples, long chunk_items, tmr_bench *b, FILE *out)
{
  static const fl_tmr_concurrency modes[TMR_MODES] = {FL_TMR_AUTO, FL_TMR_CONCURRENT, FL_TMR_IN_TURN, FL_TMR_AUTO};
  int fails = 0;
  fl_tmr *t[TMR_MODES] = {NULL, NULL, NULL, NULL};
  fl_tmr_config cfg = fl_tmr_config_default();
  void *x = NULL, *y = NULL, *o = NULL, *xs = NULL, *os = NULL;
  double *h = NULL, vote_s = 0, copy_s = 0;
  tmr_args big = {.n = n_big, .a = 2.5}, small = {.n = 4096, .a = 0.999, .steps = steps};
  fl_tmr_kernel_def kb = {.name = "axpy", .nin = 2, .nout = 1, .launch = env->axpy, .arg = &big, .work = n_big};
  fl_tmr_kernel_def ks = {
      .name = "chain", .nin = 1, .nout = 1, .launch = env->chain, .arg = &small, .work = 4096 * steps};
  const size_t bb = (size_t)n_big * sizeof(double), sb = 4096 * sizeof(double);
  memset(b, 0, sizeof *b);
  cfg.backend = env->backend;
  cfg.chunk_items = chunk_items;
  for (int m = 0; m < TMR_MODES; m++) {
    cfg.concurrency = modes[m];
    if (fl_tmr_create(&cfg, &t[m]) != FL_OK)
      goto fail;
  }
  h = calloc((size_t)n_big, sizeof *h);
  if (!h)
    goto fail;
  for (long i = 0; i < n_big; i++)
    h[i] = 1.0 + 1e-3 * (double)(i % 1000);
  if (env->alloc(&x, bb) != FL_OK || env->alloc(&y, bb) != FL_OK || env->alloc(&o, bb) != FL_OK ||
      env->alloc(&xs, sb) != FL_OK || env->alloc(&os, sb) != FL_OK || env->put(x, h, bb) != FL_OK ||
      env->put(y, h, bb) != FL_OK || env->put(xs, h, sb) != FL_OK)
    goto fail;
  kb.items = n_big; /* both compute ranges: in turn runs them chunk by chunk */
  ks.items = 4096;
  kb.in[0] = (fl_tmr_buffer){x, n_big, FL_TMR_F64};
  kb.in[1] = (fl_tmr_buffer){y, n_big, FL_TMR_F64};
  kb.out[0] = (fl_tmr_buffer){o, n_big, FL_TMR_F64};
  ks.in[0] = (fl_tmr_buffer){xs, 4096, FL_TMR_F64};
  ks.out[0] = (fl_tmr_buffer){os, 4096, FL_TMR_F64};
  if (time_runs(t, &kb, samples, &b->big_plain_s, b->big_tmr_s) != FL_OK ||
      time_runs(t, &ks, samples, &b->small_plain_s, b->small_tmr_s) != FL_OK ||
      env->bench_vote(n_big, 20, &vote_s, &copy_s) != FL_OK)
    goto fail;
  b->vote_gbs = 24.0 * (double)n_big / vote_s / 1e9;
  b->copy_gbs = 16.0 * (double)n_big / copy_s / 1e9;
  say(out, "backend: %s\n", fl_tmr_backend_reason(t[0]));
  say(out, "%-33s %11s %11s %6s %11s %6s %11s %6s %11s %6s  %s\n", "case", "single", "TMR auto", "ratio", "concurrent",
      "ratio", "in turn", "ratio", "auto+replay", "ratio", "goal");
  measure_row(out, "memory-bound: AXPY", b->big_plain_s, b->big_tmr_s, "<= 3.1x");
  say(out, "  (%ld doubles, %.0f MB per array; the single run moves %.0f GB/s)\n", n_big, (double)bb / 1e6,
      24.0 * (double)n_big / b->big_plain_s / 1e9);
  if (chunk_items)
    say(out, "  (in turn: chunks of %ld items, --chunk)\n", chunk_items);
  measure_row(out, "latency-bound small: 4096 chains", b->small_plain_s, b->small_tmr_s, "<= 1.5x");
  say(out, "  (%ld dependent steps each)\n", steps);
  say(out,
      "vote: %.1f GB/s (3 x %ld doubles read in %.4f ms); copy within memory: %.1f GB/s (read + write); "
      "fraction %.2f (goal >= 0.8)\n",
      b->vote_gbs, n_big, 1e3 * vote_s, b->copy_gbs, b->vote_gbs / b->copy_gbs);
  goto done;
fail:
  fails = 1;
  say(out, "measurement failed: %s\n", fl_err_msg());
done:
  env->release(x);
  env->release(y);
  env->release(o);
  env->release(xs);
  env->release(os);
  free(h);
  for (int m = 0; m < TMR_MODES; m++)
    fl_tmr_destroy(&t[m]);
  return fails;
}
