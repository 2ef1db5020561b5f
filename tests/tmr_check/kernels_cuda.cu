/* kernels_cuda.cu — the checks' kernels as a CUDA user writes them, and device memory: the "cuda" environment.
 *
 * Each launch function launches its kernel on the stream faultline hands it (fl_tmr_launch.stream) over the
 * arrays of that replica; faultline checks cudaGetLastError after it. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "checks.h"
#include "fl_err.h"
}
#include "cuda_impl.h"

#define ENV_THREADS 256

static fl_err env_cuda_err(cudaError_t e, const char *what)
{
  return e == cudaSuccess ? FL_OK
                          : fl_err_set(e == cudaErrorMemoryAllocation ? FL_ERR_NOMEM : FL_ERR_IO, "cuda: %s: %s (%d)",
                                       what, cudaGetErrorString(e), (int)e);
}

static fl_err env_alloc(void **p, size_t bytes)
{
  fl_err rc = env_cuda_err(cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
  if (rc == FL_OK)
    rc = env_cuda_err(cudaMemset(*p, 0, bytes ? bytes : 1), "cudaMemset");
  return rc;
}
static void env_release(void *p)
{
  cudaFree(p);
}
static fl_err env_put(void *dst, const void *host, size_t bytes)
{
  return env_cuda_err(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}
static fl_err env_get(void *host, const void *src, size_t bytes)
{
  return env_cuda_err(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

#define ENV_LOOP(i, n)                                                                                                 \
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long)blockDim.x * gridDim.x)

__global__ void g_axpy(long n, double a, const double *__restrict__ x, const double *__restrict__ y,
                       double *__restrict__ o)
{
  ENV_LOOP(i, n) o[i] = a * x[i] + y[i];
}
__global__ void g_chain(long n, long steps, double a, const double *__restrict__ x, double *__restrict__ o)
{
  ENV_LOOP(i, n)
  {
    double t = x[i];
    for (long s = 0; s < steps; s++)
      t = a * t + x[i];
    o[i] = t;
  }
}
__global__ void g_sq32(long n, float a, const float *__restrict__ x, float *__restrict__ o)
{
  ENV_LOOP(i, n) o[i] = x[i] * x[i] + a;
}
__global__ void g_hash32(long n, const int32_t *__restrict__ x, int32_t *__restrict__ o)
{
  ENV_LOOP(i, n)
  {
    uint32_t u = (uint32_t)x[i];
    o[i] = (int32_t)((u * 2654435761u) ^ (u >> 7));
  }
}
__global__ void g_mix64(long n, const int64_t *__restrict__ x, const int64_t *__restrict__ y, int64_t *__restrict__ o)
{
  ENV_LOOP(i, n) o[i] = (int64_t)(((uint64_t)x[i] * 0x9E3779B97F4A7C15ull) ^ (uint64_t)y[i]);
}
__global__ void g_bytes(long n, const uint8_t *__restrict__ x, const uint8_t *__restrict__ y, uint8_t *__restrict__ o)
{
  ENV_LOOP(i, n) o[i] = (uint8_t)(x[i] + y[i]);
}

/* One thread per element up to 65,535 x 256 threads, then grid-stride. */
static unsigned env_blocks(long n)
{
  long b = (n + ENV_THREADS - 1) / ENV_THREADS;
  return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

#define ENV_STREAM(l) ((cudaStream_t)(l)->stream)

/* Each launch computes the items tmr_range gives: inputs from element first, output 0 from its start. */
static int k_axpy(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long f, e;
  tmr_range(l, a, &f, &e);
  g_axpy<<<env_blocks(e - f), ENV_THREADS, 0, ENV_STREAM(l)>>>(e - f, a->a, (const double *)l->in[0] + f,
                                                               (const double *)l->in[1] + f, (double *)l->out[0]);
  return 0;
}
static int k_chain(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long f, e;
  tmr_range(l, a, &f, &e);
  g_chain<<<env_blocks(e - f), ENV_THREADS, 0, ENV_STREAM(l)>>>(e - f, a->steps, a->a, (const double *)l->in[0] + f,
                                                                (double *)l->out[0]);
  return 0;
}
static int k_sq32(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long f, e;
  tmr_range(l, a, &f, &e);
  g_sq32<<<env_blocks(e - f), ENV_THREADS, 0, ENV_STREAM(l)>>>(e - f, (float)a->a, (const float *)l->in[0] + f,
                                                               (float *)l->out[0]);
  return 0;
}
static int k_hash32(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long f, e;
  tmr_range(l, a, &f, &e);
  g_hash32<<<env_blocks(e - f), ENV_THREADS, 0, ENV_STREAM(l)>>>(e - f, (const int32_t *)l->in[0] + f,
                                                                 (int32_t *)l->out[0]);
  return 0;
}
/* This one without a launch of its own: described for cudaLaunchKernel and handed to fl_tmr_launch_cuda, which puts
 * each replica's pointers in place of arguments 1, 2 (inputs) and 3 (output). Whole arrays only: the checks never
 * give it a range. */
static int k_mix64(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long n = a->n;
  const int64_t *x = NULL, *y = NULL;
  int64_t *o = NULL;
  void *args[4] = {&n, &x, &y, &o};
  fl_tmr_cuda_kernel k;
  __atomic_fetch_add(&a->calls, 1, __ATOMIC_RELAXED);
  memset(&k, 0, sizeof k);
  k.func = (const void *)g_mix64;
  k.grid[0] = env_blocks(n);
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = ENV_THREADS;
  k.block[1] = k.block[2] = 1;
  k.args = args;
  k.nargs = 4;
  k.in_arg[0] = 1;
  k.in_arg[1] = 2;
  k.out_arg[0] = 3;
  return fl_tmr_launch_cuda(l, &k);
}
static int k_bytes(const fl_tmr_launch *l, void *arg)
{
  tmr_args *a = (tmr_args *)arg;
  long f, e;
  tmr_range(l, a, &f, &e);
  g_bytes<<<env_blocks(e - f), ENV_THREADS, 0, ENV_STREAM(l)>>>(e - f, (const uint8_t *)l->in[0] + f,
                                                                (const uint8_t *)l->in[1] + f, (uint8_t *)l->out[0]);
  return 0;
}

static fl_err env_bench_vote(long n, int reps, double *vote_s, double *copy_s)
{
  return fl_tmr_cuda_bench_vote(n, reps, vote_s, copy_s);
}

static void env_sync(void)
{
  cudaDeviceSynchronize();
}

static const tmr_env fl_env_cuda = {
    "cuda", env_alloc, env_release, env_put, env_get,        k_axpy,   k_chain,
    k_sq32, k_hash32,  k_mix64,     k_bytes, env_bench_vote, env_sync,
};

extern "C" const tmr_env *tmr_env_cuda(void)
{
  return &fl_env_cuda;
}
