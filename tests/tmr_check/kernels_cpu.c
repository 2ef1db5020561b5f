/* kernels_cpu.c — the checks' kernels as a CPU user writes them, and host memory: the "cpu" environment. */
#include "checks.h"
#include "tmr_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static fl_err env_alloc(void **p, size_t bytes)
{
  *p = calloc(1, bytes ? bytes : 1);
  return *p ? FL_OK : fl_err_set(FL_ERR_NOMEM, "out of memory for %zu bytes", bytes);
}
static void env_release(void *p)
{
  free(p);
}
static fl_err env_copy(void *dst, const void *src, size_t bytes)
{
  memcpy(dst, src, bytes);
  return FL_OK;
}
static fl_err env_get(void *host, const void *src, size_t bytes)
{
  memcpy(host, src, bytes);
  return FL_OK;
}

static int k_axpy(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const double *restrict x, *restrict y;
  double *restrict o = l->out[0];
  double av = a->a;
  long f, e;
  tmr_range(l, a, &f, &e);
  x = (const double *)l->in[0] + f;
  y = (const double *)l->in[1] + f;
  for (long i = 0; i < e - f; i++)
    o[i] = av * x[i] + y[i];
  return 0;
}

static int k_chain(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const double *restrict x;
  double *restrict o = l->out[0];
  const double av = a->a;
  const long steps = a->steps;
  long f, e;
  tmr_range(l, a, &f, &e);
  x = (const double *)l->in[0] + f;
  for (long i = 0; i < e - f; i++) {
    double t = x[i];
    for (long s = 0; s < steps; s++)
      t = av * t + x[i];
    o[i] = t;
  }
  return 0;
}

static int k_sq32(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const float *x = l->in[0];
  float *o = l->out[0];
  long f, e;
  tmr_range(l, a, &f, &e);
  for (long i = f; i < e; i++)
    o[i - f] = x[i] * x[i] + (float)a->a;
  return 0;
}

static int k_hash32(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const int32_t *x = l->in[0];
  int32_t *o = l->out[0];
  long f, e;
  tmr_range(l, a, &f, &e);
  for (long i = f; i < e; i++) {
    uint32_t u = (uint32_t)x[i];
    o[i - f] = (int32_t)((u * 2654435761u) ^ (u >> 7));
  }
  return 0;
}

static int k_mix64(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const int64_t *x = l->in[0], *y = l->in[1];
  int64_t *o = l->out[0];
  long f, e;
  tmr_range(l, a, &f, &e);
  for (long i = f; i < e; i++)
    o[i - f] = (int64_t)(((uint64_t)x[i] * 0x9E3779B97F4A7C15ull) ^ (uint64_t)y[i]);
  return 0;
}

static int k_bytes(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = arg;
  const uint8_t *x = l->in[0], *y = l->in[1];
  uint8_t *o = l->out[0];
  long f, e;
  tmr_range(l, a, &f, &e);
  for (long i = f; i < e; i++)
    o[i - f] = (uint8_t)(x[i] + y[i]);
  return 0;
}

/* The host vote (vote.c, what the CPU backend runs) over three equal arrays, against memcpy. */
static fl_err env_bench_vote(long n, int reps, double *vote_s, double *copy_s)
{
  fl_err rc = FL_OK;
  double *r[3] = {NULL, NULL, NULL}, *dst = NULL, t0;
  fl_tmr_vote_params v = {.replicas = 3, .tolerance = 0, .abs_tol = 0, .rel_tol = 0};
  fl_tmr_tally tally;
  for (int i = 0; i < 3; i++) {
    FL_ALLOC(r[i], n);
    for (long k = 0; k < n; k++)
      r[i][k] = (double)k;
  }
  FL_ALLOC(dst, n);
  memset(&tally, 0, sizeof tally);
  t0 = fl_tmr_now();
  for (int k = 0; k < reps; k++)
    fl_tmr_vote_range(FL_TMR_F64, r[0], r[1], r[2], n, 0, 0, 0, &v, &tally);
  *vote_s = (fl_tmr_now() - t0) / reps;
  t0 = fl_tmr_now();
  for (int k = 0; k < reps; k++) {
    memcpy(dst, r[k % 3], (size_t)n * sizeof *dst);
    __asm__ volatile("" : : "r"(dst) : "memory");
  }
  *copy_s = (fl_tmr_now() - t0) / reps;
  FL_CHECK(tally.corrected == 0 && tally.nomajority == 0, FL_ERR_INTERNAL,
           "the vote found differences in equal arrays");
done:
  for (int i = 0; i < 3; i++)
    free(r[i]);
  free(dst);
  return rc;
}

static const tmr_env fl_env_cpu = {
    .backend = "cpu",
    .alloc = env_alloc,
    .release = env_release,
    .put = env_copy,
    .get = env_get,
    .axpy = k_axpy,
    .chain = k_chain,
    .sq32 = k_sq32,
    .hash32 = k_hash32,
    .mix64 = k_mix64,
    .bytes = k_bytes,
    .bench_vote = env_bench_vote,
};

const tmr_env *tmr_env_cpu(void)
{
  return &fl_env_cpu;
}
