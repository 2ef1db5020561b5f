/* cuda_impl.cu — the "cuda" TMR backend: replicas on CUDA streams, the vote as a kernel.
 *
 * The seed's Cuda Resilient Execution Space (section 1.3, figure 1-5) without Kokkos: the inputs are copied to
 * the device once per run and shared by the replicas (the "const views"); each replica gets its own device copy
 * of every output (the duplicated non-const views), replica 0's being the one handed back; replica r runs on
 * stream r, so that replicas of a kernel too small to fill the GPU overlap, and the GPU serialises them by itself
 * when one fills it. Stream 0 waits for the others' events, then runs the vote kernel (vote.h: the same per-element
 * code as the host), which patches replica 0's copy only where it lost the vote, counts with atomics and lists up
 * to FL_TMR_MAX_POSITIONS positions. Faults are flips done by a one-thread kernel on the replica's own stream,
 * between its kernel and the vote (outputs) or on a private device copy of an input before its kernel.
 *
 * The kernels' element functions (kernels.h) implement the math of the CPU versions (apps/diffusion.c,
 * apps/gridworld.c, cpu.c) in the same order of operations; built with --fmad=false (CMakeLists.txt) they give the
 * same bits as the host, so that a GPU run can be checked against the CPU exactly (test_tmr checks the element
 * functions on the host, test_tmr_cuda the kernels on a GPU). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "fl_err.h"
}
#include "cuda_impl.h"
#include "kernels.h"
#include "tmr_impl.h"

#define FL_TMR_CU_THREADS 256
#define FL_TMR_CU_MAX_BLOCKS 4096L

typedef struct fl_tmr_cu_tally {
  unsigned long long benign, corrected, nomajority, outvoted[3], ntotal;
} fl_tmr_cu_tally;

struct fl_tmr_cuda {
  cudaStream_t stream[3];
  cudaEvent_t ready, done[3];
  int nstreams, nevents, have_ready;
  double *d_in[FL_TMR_MAX_ARRAYS];
  long in_cap[FL_TMR_MAX_ARRAYS];
  double *d_priv[3][FL_TMR_MAX_ARRAYS];
  long priv_cap[3][FL_TMR_MAX_ARRAYS];
  double *d_out[3][FL_TMR_MAX_ARRAYS];
  long out_cap[3][FL_TMR_MAX_ARRAYS];
  fl_tmr_cu_tally *d_tally, *h_tally;
  fl_tmr_mismatch *d_pos, *h_pos;
};

#define FL_CU(call)                                                                                           \
  do {                                                                                                       \
    cudaError_t fl_cu_e_ = (call);                                                                           \
    if (fl_cu_e_ != cudaSuccess) {                                                                           \
      rc = fl_err_set(fl_cu_e_ == cudaErrorMemoryAllocation ? FL_ERR_NOMEM : FL_ERR_IO, "cuda: %s: %s (%d)",    \
                      #call, cudaGetErrorString(fl_cu_e_), (int)fl_cu_e_);                                   \
      goto done;                                                                                             \
    }                                                                                                        \
  } while (0)

/* ---- kernels ---- */

#define FL_TMR_CU_LOOP(i, n)                                                                                  \
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long)blockDim.x * gridDim.x)

/* One thread per element; the element functions are kernels.h's, which test_tmr checks on the host. */
__global__ void fl_k_axpy(long n, double a, const double *__restrict__ x, const double *__restrict__ y,
                          double *__restrict__ o)
{
  FL_TMR_CU_LOOP(i, n) o[i] = fl_tmr_k_axpy(i, a, x, y);
}

__global__ void fl_k_chain(long n, long steps, double a, const double *__restrict__ x, double *__restrict__ o)
{
  FL_TMR_CU_LOOP(i, n) o[i] = fl_tmr_k_chain(i, steps, a, x);
}

/* fl_diff_apply: y = A x on nrows rows of c.n points; xh has a halo row above and below. */
__global__ void fl_k_diffusion(long nrows, fl_tmr_k_diff c, const double *__restrict__ xh, double *__restrict__ y)
{
  FL_TMR_CU_LOOP(idx, c.n * nrows) y[idx] = fl_tmr_k_diffusion(idx, &c, xh);
}

/* fl_gw_sweep over the whole grid; the max change is an atomicMax on the bit patterns, which order like the values
 * for non-negative doubles (a NaN change is skipped, as fmax skips it on the host). */
__global__ void fl_k_gridworld(fl_tmr_k_gw c, const double *__restrict__ reward, const double *__restrict__ in,
                               double *__restrict__ out, unsigned long long *change)
{
  FL_TMR_CU_LOOP(s, c.rows * c.cols)
  {
    double ch;
    out[s] = fl_tmr_k_gridworld(s, &c, reward, in, &ch);
    if (change && !isnan(ch))
      atomicMax(change, (unsigned long long)__double_as_longlong(ch));
  }
}

__global__ void fl_k_flip(double *p, long i, int bit)
{
  p[i] = __longlong_as_double(__double_as_longlong(p[i]) ^ (long long)(1ULL << bit));
}

__global__ void fl_k_vote(long n, int array, double *r0, const double *r1, const double *r2, fl_tmr_vote_params v,
                          fl_tmr_cu_tally *t, fl_tmr_mismatch *pos)
{
  FL_TMR_CU_LOOP(i, n)
  {
    double a = r0[i], b = r1[i], c = r2 ? r2[i] : nan(""), value;
    uint64_t ba = fl_tmr_bits(a);
    int outvoted, k;
    if (ba == fl_tmr_bits(b) && (!r2 || ba == fl_tmr_bits(c)))
      continue;
    k = fl_tmr_vote_elem(a, b, c, &v, &value, &outvoted);
    if (k == FL_TMR_V_BENIGN) {
      atomicAdd(&t->benign, 1ULL);
    } else if (k != FL_TMR_V_EQUAL) {
      unsigned long long slot;
      if (k == FL_TMR_V_CORRECTED) {
        atomicAdd(&t->corrected, 1ULL);
        if (outvoted >= 0)
          atomicAdd(&t->outvoted[outvoted], 1ULL);
      } else {
        atomicAdd(&t->nomajority, 1ULL);
      }
      slot = atomicAdd(&t->ntotal, 1ULL);
      if (slot < FL_TMR_MAX_POSITIONS) {
        pos[slot].array = array;
        pos[slot].outvoted = k == FL_TMR_V_CORRECTED ? outvoted : -1;
        pos[slot].index = i;
        pos[slot].value[0] = a;
        pos[slot].value[1] = b;
        pos[slot].value[2] = c;
      }
    }
    if (fl_tmr_bits(value) != ba)
      r0[i] = value;
  }
}

static unsigned fl_tmr_cu_blocks(long n)
{
  long b = (n + FL_TMR_CU_THREADS - 1) / FL_TMR_CU_THREADS;
  return (unsigned)(b < 1 ? 1 : b > FL_TMR_CU_MAX_BLOCKS ? FL_TMR_CU_MAX_BLOCKS : b);
}

/* ---- host side ---- */

extern "C" int fl_tmr_cuda_probe(char *why, size_t len)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  cudaDeviceProp prop;
  cudaFuncAttributes attr;
  if (e != cudaSuccess || count < 1) {
    if (why && len)
      snprintf(why, len, "cudaGetDeviceCount: %s (%d), %d devices", cudaGetErrorString(e), (int)e, count);
    cudaGetLastError();
    return 0;
  }
  e = cudaGetDeviceProperties(&prop, 0);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes(&attr, fl_k_vote); /* fails when no image of this build fits the device */
  if (e != cudaSuccess) {
    if (why && len)
      snprintf(why, len, "device 0 of %d cannot run this build's kernels: %s (%d)", count, cudaGetErrorString(e),
               (int)e);
    cudaGetLastError();
    return 0;
  }
  if (why && len)
    snprintf(why, len, "device 0 of %d: %s, sm_%d%d", count, prop.name, prop.major, prop.minor);
  return 1;
}

extern "C" void fl_tmr_cuda_destroy(fl_tmr_cuda **cp)
{
  fl_tmr_cuda *c = cp ? *cp : NULL;
  if (!c)
    return;
  for (int s = 0; s < c->nstreams; s++)
    cudaStreamSynchronize(c->stream[s]);
  for (int k = 0; k < FL_TMR_MAX_ARRAYS; k++) {
    cudaFree(c->d_in[k]);
    for (int r = 0; r < 3; r++) {
      cudaFree(c->d_priv[r][k]);
      cudaFree(c->d_out[r][k]);
    }
  }
  cudaFree(c->d_tally);
  cudaFree(c->d_pos);
  cudaFreeHost(c->h_tally);
  cudaFreeHost(c->h_pos);
  for (int s = 0; s < c->nevents; s++)
    cudaEventDestroy(c->done[s]);
  if (c->have_ready)
    cudaEventDestroy(c->ready);
  for (int s = 0; s < c->nstreams; s++)
    cudaStreamDestroy(c->stream[s]);
  free(c);
  *cp = NULL;
}

extern "C" fl_err fl_tmr_cuda_create(fl_tmr_cuda **out)
{
  fl_err rc = FL_OK;
  fl_tmr_cuda *c = (fl_tmr_cuda *)calloc(1, sizeof *c);
  FL_CHECK(c != NULL, FL_ERR_NOMEM, "tmr cuda: out of memory");
  FL_CU(cudaSetDevice(0));
  for (; c->nstreams < 3; c->nstreams++)
    FL_CU(cudaStreamCreateWithFlags(&c->stream[c->nstreams], cudaStreamNonBlocking));
  for (; c->nevents < 3; c->nevents++)
    FL_CU(cudaEventCreateWithFlags(&c->done[c->nevents], cudaEventDisableTiming));
  FL_CU(cudaEventCreateWithFlags(&c->ready, cudaEventDisableTiming));
  c->have_ready = 1;
  FL_CU(cudaMalloc((void **)&c->d_tally, sizeof *c->d_tally));
  FL_CU(cudaMalloc((void **)&c->d_pos, FL_TMR_MAX_POSITIONS * sizeof *c->d_pos));
  FL_CU(cudaMallocHost((void **)&c->h_tally, sizeof *c->h_tally));
  FL_CU(cudaMallocHost((void **)&c->h_pos, FL_TMR_MAX_POSITIONS * sizeof *c->h_pos));
  *out = c;
  c = NULL;
done:
  fl_tmr_cuda_destroy(&c);
  return rc;
}

/* A device buffer of at least n doubles (contents not kept when it grows). */
static fl_err fl_tmr_cu_grow(double **buf, long *cap, long n)
{
  fl_err rc = FL_OK;
  if (*cap < n) {
    FL_CU(cudaFree(*buf));
    *buf = NULL;
    *cap = 0;
    FL_CU(cudaMalloc((void **)buf, (size_t)n * sizeof(double)));
    *cap = n;
  }
done:
  return rc;
}

static fl_err fl_tmr_cu_launch(const fl_tmr_task *k, const double *const *in, double *const *out, cudaStream_t s)
{
  fl_err rc = FL_OK;
  long n = k->out_n[0];
  switch (k->kernel) {
  case FL_TMR_AXPY: fl_k_axpy<<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS, 0, s>>>(n, k->a, in[0], in[1], out[0]); break;
  case FL_TMR_CHAIN:
    fl_k_chain<<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS, 0, s>>>(n, k->steps, k->a, in[0], out[0]);
    break;
  case FL_TMR_DIFFUSION:
    fl_k_diffusion<<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS, 0, s>>>(k->nrows, fl_tmr_k_diff_coeffs(k->diff), in[0],
                                                                     out[0]);
    break;
  case FL_TMR_GRIDWORLD: {
    unsigned long long *change = k->nout > 1 ? (unsigned long long *)out[1] : NULL;
    if (change)
      FL_CU(cudaMemsetAsync(change, 0, sizeof *change, s));
    fl_k_gridworld<<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS, 0, s>>>(fl_tmr_k_gw_coeffs(k->gw), in[1], in[0], out[0],
                                                                     change);
    break;
  }
  }
  FL_CU(cudaGetLastError());
done:
  return rc;
}

extern "C" fl_err fl_tmr_cuda_begin(fl_tmr_cuda *c, const fl_tmr_task *task)
{
  fl_err rc = FL_OK;
  for (int k = 0; k < task->nin; k++) {
    FL_TRY(fl_tmr_cu_grow(&c->d_in[k], &c->in_cap[k], task->in_n[k]));
    FL_CU(cudaMemcpyAsync(c->d_in[k], task->in[k], (size_t)task->in_n[k] * sizeof(double), cudaMemcpyHostToDevice,
                          c->stream[0]));
  }
  for (int k = 0; k < task->nout; k++)
    FL_TRY(fl_tmr_cu_grow(&c->d_out[0][k], &c->out_cap[0][k], task->out_n[k]));
  FL_CU(cudaEventRecord(c->ready, c->stream[0]));
done:
  return rc;
}

static int fl_tmr_cu_cmp(const void *x, const void *y)
{
  const fl_tmr_mismatch *a = (const fl_tmr_mismatch *)x, *b = (const fl_tmr_mismatch *)y;
  if (a->array != b->array)
    return a->array < b->array ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

extern "C" fl_err fl_tmr_cuda_attempt(fl_tmr_cuda *c, const fl_tmr_task *task, const fl_tmr_exec *exec,
                                      fl_tmr_tally *tally)
{
  fl_err rc = FL_OK;
  const int nrep = exec->vote.replicas;
  const double *rin[3][FL_TMR_MAX_ARRAYS];
  double *rout[3][FL_TMR_MAX_ARRAYS];
  cudaStream_t s0 = c->stream[0];

  for (int r = 1; r < nrep; r++)
    for (int k = 0; k < task->nout; k++)
      FL_TRY(fl_tmr_cu_grow(&c->d_out[r][k], &c->out_cap[r][k], task->out_n[k]));
  for (int r = 0; r < nrep; r++) {
    cudaStream_t s = exec->concurrent ? c->stream[r] : s0;
    if (s != s0)
      FL_CU(cudaStreamWaitEvent(s, c->ready, 0));
    for (int k = 0; k < task->nin; k++)
      rin[r][k] = c->d_in[k];
    for (int k = 0; k < task->nout; k++)
      rout[r][k] = c->d_out[r][k];
    for (long f = 0; f < exec->nfaults; f++) {
      const fl_tmr_rfault *ft = &exec->faults[f];
      int k = ft->array;
      if (ft->replica != r || ft->target != FL_TMR_INPUT)
        continue;
      if (rin[r][k] == c->d_in[k]) {
        FL_TRY(fl_tmr_cu_grow(&c->d_priv[r][k], &c->priv_cap[r][k], task->in_n[k]));
        FL_CU(cudaMemcpyAsync(c->d_priv[r][k], c->d_in[k], (size_t)task->in_n[k] * sizeof(double),
                              cudaMemcpyDeviceToDevice, s));
        rin[r][k] = c->d_priv[r][k];
      }
      fl_k_flip<<<1, 1, 0, s>>>(c->d_priv[r][k], ft->element, ft->bit);
    }
    FL_TRY(fl_tmr_cu_launch(task, rin[r], rout[r], s));
    for (long f = 0; f < exec->nfaults; f++) {
      const fl_tmr_rfault *ft = &exec->faults[f];
      if (ft->replica == r && ft->target == FL_TMR_OUTPUT)
        fl_k_flip<<<1, 1, 0, s>>>(rout[r][ft->array], ft->element, ft->bit);
    }
    FL_CU(cudaGetLastError());
    if (s != s0) {
      FL_CU(cudaEventRecord(c->done[r], s));
      FL_CU(cudaStreamWaitEvent(s0, c->done[r], 0));
    }
  }
  FL_CU(cudaMemsetAsync(c->d_tally, 0, sizeof *c->d_tally, s0));
  for (int k = 0; k < task->nout; k++)
    fl_k_vote<<<fl_tmr_cu_blocks(task->out_n[k]), FL_TMR_CU_THREADS, 0, s0>>>(
      task->out_n[k], k, rout[0][k], rout[1][k], nrep == 3 ? rout[2][k] : NULL, exec->vote, c->d_tally, c->d_pos);
  FL_CU(cudaGetLastError());
  FL_CU(cudaMemcpyAsync(c->h_tally, c->d_tally, sizeof *c->h_tally, cudaMemcpyDeviceToHost, s0));
  FL_CU(cudaMemcpyAsync(c->h_pos, c->d_pos, FL_TMR_MAX_POSITIONS * sizeof *c->h_pos, cudaMemcpyDeviceToHost, s0));
  FL_CU(cudaStreamSynchronize(s0));
  tally->benign = (long)c->h_tally->benign;
  tally->corrected = (long)c->h_tally->corrected;
  tally->nomajority = (long)c->h_tally->nomajority;
  for (int r = 0; r < 3; r++)
    tally->outvoted[r] = (long)c->h_tally->outvoted[r];
  tally->ntotal = (long)c->h_tally->ntotal;
  tally->npositions = tally->ntotal < FL_TMR_MAX_POSITIONS ? tally->ntotal : FL_TMR_MAX_POSITIONS;
  memcpy(tally->positions, c->h_pos, (size_t)tally->npositions * sizeof *tally->positions);
  qsort(tally->positions, (size_t)tally->npositions, sizeof *tally->positions, fl_tmr_cu_cmp);
done:
  return rc;
}

extern "C" fl_err fl_tmr_cuda_finish(fl_tmr_cuda *c, const fl_tmr_task *task)
{
  fl_err rc = FL_OK;
  for (int k = 0; k < task->nout; k++)
    FL_CU(cudaMemcpyAsync(task->out[k], c->d_out[0][k], (size_t)task->out_n[k] * sizeof(double),
                          cudaMemcpyDeviceToHost, c->stream[0]));
  FL_CU(cudaStreamSynchronize(c->stream[0]));
done:
  return rc;
}

extern "C" fl_err fl_tmr_cuda_plain(fl_tmr_cuda *c, const fl_tmr_task *task)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_tmr_cu_launch(task, c->d_in, c->d_out[0], c->stream[0]));
done:
  return rc;
}
