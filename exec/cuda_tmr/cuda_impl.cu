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

typedef struct fl_tmr_cu_report {
  fl_tmr_cu_tally tally;
  fl_tmr_mismatch pos[FL_TMR_MAX_POSITIONS];
} fl_tmr_cu_report;

#define FL_TMR_CU_SLOTS (FL_TMR_MAX_STAGES * FL_TMR_MAX_ARRAYS) /* (kernel, array) of a run */

/* What a replayed graph was recorded for: the kernels as launched and every setting of the attempt the recorded
 * work depends on. An attempt replays the graph only when all of it is equal. */
typedef struct fl_tmr_cu_key {
  int nk, concurrent, stage0, replicas, tolerance;
  double abs_tol, rel_tol;
  int from[FL_TMR_MAX_STAGES][FL_TMR_MAX_ARRAYS];
  unsigned long gen;
  fl_tmr_kernel_def k[FL_TMR_MAX_STAGES]; /* compared field by field (fl_tmr_cu_same_def), not their padding */
} fl_tmr_cu_key;

struct fl_tmr_cuda {
  cudaStream_t stream[3];
  cudaEvent_t ready, user, done[3];
  int nstreams, nevents, have_ready, have_user;
  /* replicas 1, 2: their outputs; any replica: a corrupted copy of an input (device memory kept between runs) */
  void *scratch[3][FL_TMR_CU_SLOTS];
  size_t scratch_cap[3][FL_TMR_CU_SLOTS];
  void *priv[3][FL_TMR_CU_SLOTS];
  size_t priv_cap[3][FL_TMR_CU_SLOTS];
  /* the built-in tasks: device copies of their host arrays */
  void *d_in[FL_TMR_MAX_ARRAYS], *d_out[FL_TMR_MAX_ARRAYS];
  size_t in_cap[FL_TMR_MAX_ARRAYS], out_cap[FL_TMR_MAX_ARRAYS];
  /* the vote's counts and positions, one block so that one copy brings them back */
  fl_tmr_cu_report *d_report, *h_report;
  fl_tmr_cu_tally *d_tally;
  fl_tmr_mismatch *d_pos;
  long l2_bytes;    /* the device's L2 cache: what the chunked schedules' chunks are sized by */
  long chunk_items; /* fl_tmr_config.chunk_items */
  void *chunk[3];   /* replicas 1, 2 of a chunk's output 0 (overlapped: a ring of two chunks) */
  size_t chunk_cap[3];
  cudaEvent_t ring[4]; /* overlapped chunks: ring[s] slot s's replicas 1, 2 done, ring[2 + s] its vote done */
  int nring;
  /* replay (fl_tmr_kernel_def.replay): the graph of the last fault-free attempt, and what it was recorded for */
  cudaGraphExec_t graph;
  fl_tmr_cu_key *graph_key;
  unsigned long gen; /* bumped whenever a buffer of the context moves: a recorded graph points at the old one */
};

/* A CUDA call's failure as faultline's error (out of memory, or I/O naming the call); FL_OK on success. */
static fl_err fl_tmr_cu_err(cudaError_t e, const char *what)
{
  return e == cudaSuccess ? FL_OK
                          : fl_err_set(e == cudaErrorMemoryAllocation ? FL_ERR_NOMEM : FL_ERR_IO, "cuda: %s: %s (%d)",
                                       what, cudaGetErrorString(e), (int)e);
}

#define FL_CU(call)                                                                                                    \
  do {                                                                                                                 \
    if ((rc = fl_tmr_cu_err((call), #call)) != FL_OK)                                                                  \
      goto done;                                                                                                       \
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

/* Flip bit `bit` of element `element` (of `size` bytes): bit b of its little-endian pattern. */
__global__ void fl_k_flip(unsigned char *p, size_t size, long element, int bit)
{
  p[size * (size_t)element + (size_t)(bit / 8)] ^= (unsigned char)(1u << (bit % 8));
}

/* Count an element the vote did not find unanimous and list it while there is room. */
__device__ static void fl_tmr_cu_note(int k, int outvoted, long i, int stage, int array, double a, double b, double c,
                                      fl_tmr_cu_tally *t, fl_tmr_mismatch *pos)
{
  unsigned long long slot;
  if (k == FL_TMR_V_EQUAL)
    return;
  if (k == FL_TMR_V_BENIGN) {
    atomicAdd(&t->benign, 1ULL);
    return;
  }
  if (k == FL_TMR_V_CORRECTED) {
    atomicAdd(&t->corrected, 1ULL);
    if (outvoted >= 0)
      atomicAdd(&t->outvoted[outvoted], 1ULL);
  } else {
    atomicAdd(&t->nomajority, 1ULL);
  }
  slot = atomicAdd(&t->ntotal, 1ULL);
  if (slot < FL_TMR_MAX_POSITIONS) {
    pos[slot].stage = stage;
    pos[slot].array = array;
    pos[slot].outvoted = k == FL_TMR_V_CORRECTED ? outvoted : -1;
    pos[slot].index = i;
    pos[slot].value[0] = a;
    pos[slot].value[1] = b;
    pos[slot].value[2] = c;
  }
}

/* The bit pattern of a double or a float, zero-extended. */
__device__ static inline uint64_t fl_tmr_cu_bits(double x)
{
  return (uint64_t)__double_as_longlong(x);
}
__device__ static inline uint64_t fl_tmr_cu_bits(float x)
{
  return (uint64_t)__float_as_uint(x);
}

/* The vote of one output array of doubles or floats (F): vote.h's fl_tmr_vote_elem on the exact double values,
 * writing replica 0's copy only where it lost or there is no majority (NaN). */
template <typename F>
__global__ void fl_k_vote_fp(long n, long base, int stage, int array, F *r0, const F *r1, const F *r2,
                             fl_tmr_vote_params v, fl_tmr_cu_tally *t, fl_tmr_mismatch *pos)
{
  FL_TMR_CU_LOOP(i, n)
  {
    F fa = r0[i], fb = r1[i], fc = r2 ? r2[i] : fa;
    double a = fa, b = fb, c = r2 ? (double)fc : nan(""), value;
    int outvoted, k;
    if (fl_tmr_cu_bits(fa) == fl_tmr_cu_bits(fb) && fl_tmr_cu_bits(fa) == fl_tmr_cu_bits(fc))
      continue;
    k = fl_tmr_vote_elem(a, b, c, &v, &value, &outvoted);
    fl_tmr_cu_note(k, outvoted, base + i, stage, array, a, b, c, t, pos);
    if (fl_tmr_bits(value) != fl_tmr_bits(a))
      r0[i] = (F)value;
  }
}

/* The vote of one output array of integers (I): bitwise, replica 0's value kept where there is no majority. */
template <typename I>
__global__ void fl_k_vote_int(long n, long base, int stage, int array, I *r0, const I *r1, const I *r2, int replicas,
                              fl_tmr_cu_tally *t, fl_tmr_mismatch *pos)
{
  FL_TMR_CU_LOOP(i, n)
  {
    I a = r0[i], b = r1[i], c = r2 ? r2[i] : a;
    int outvoted, pick, k;
    if (a == b && a == c)
      continue;
    k = fl_tmr_vote_bits((uint64_t)a, (uint64_t)b, (uint64_t)(r2 ? c : b), replicas, &pick, &outvoted);
    fl_tmr_cu_note(k, outvoted, base + i, stage, array, (double)a, (double)b, r2 ? (double)c : nan(""), t, pos);
    if (pick)
      r0[i] = b;
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
    e = cudaFuncGetAttributes(&attr, fl_k_vote_fp<double>); /* fails when no image of this build fits the device */
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
    cudaFree(c->d_out[k]);
  }
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < FL_TMR_CU_SLOTS; k++) {
      cudaFree(c->scratch[r][k]);
      cudaFree(c->priv[r][k]);
    }
  cudaFree(c->d_report);
  cudaFreeHost(c->h_report);
  for (int r = 0; r < 3; r++)
    cudaFree(c->chunk[r]);
  if (c->graph)
    cudaGraphExecDestroy(c->graph);
  free(c->graph_key);
  for (int s = 0; s < c->nring; s++)
    cudaEventDestroy(c->ring[s]);
  for (int s = 0; s < c->nevents; s++)
    cudaEventDestroy(c->done[s]);
  if (c->have_ready)
    cudaEventDestroy(c->ready);
  if (c->have_user)
    cudaEventDestroy(c->user);
  for (int s = 0; s < c->nstreams; s++)
    cudaStreamDestroy(c->stream[s]);
  free(c);
  *cp = NULL;
}

extern "C" fl_err fl_tmr_cuda_create(fl_tmr_cuda **out, long chunk_items)
{
  fl_err rc = FL_OK;
  fl_tmr_cuda *c = (fl_tmr_cuda *)calloc(1, sizeof *c);
  FL_CHECK(c != NULL, FL_ERR_NOMEM, "tmr cuda: out of memory");
  c->chunk_items = chunk_items;
  FL_CU(cudaSetDevice(0));
  for (; c->nstreams < 3; c->nstreams++)
    FL_CU(cudaStreamCreateWithFlags(&c->stream[c->nstreams], cudaStreamNonBlocking));
  for (; c->nevents < 3; c->nevents++)
    FL_CU(cudaEventCreateWithFlags(&c->done[c->nevents], cudaEventDisableTiming));
  for (; c->nring < 4; c->nring++)
    FL_CU(cudaEventCreateWithFlags(&c->ring[c->nring], cudaEventDisableTiming));
  FL_CU(cudaEventCreateWithFlags(&c->ready, cudaEventDisableTiming));
  c->have_ready = 1;
  FL_CU(cudaEventCreateWithFlags(&c->user, cudaEventDisableTiming));
  c->have_user = 1;
  FL_CU(cudaMalloc((void **)&c->d_report, sizeof *c->d_report));
  FL_CU(cudaMallocHost((void **)&c->h_report, sizeof *c->h_report));
  c->d_tally = &c->d_report->tally;
  c->d_pos = c->d_report->pos;
  {
    int l2 = 0;
    FL_CU(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    c->l2_bytes = l2 > 0 ? l2 : 4L << 20;
  }
  *out = c;
  c = NULL;
done:
  fl_tmr_cuda_destroy(&c);
  return rc;
}

/* A device buffer of the context of at least `bytes` (contents not kept when it grows). */
static fl_err fl_tmr_cu_grow(fl_tmr_cuda *c, void **buf, size_t *cap, size_t bytes)
{
  fl_err rc = FL_OK;
  if (*cap < bytes) {
    c->gen++;
    FL_CU(cudaFree(*buf));
    *buf = NULL;
    *cap = 0;
    FL_CU(cudaMalloc(buf, bytes));
    *cap = bytes;
  }
done:
  return rc;
}

static size_t fl_tmr_cu_bytes(const fl_tmr_buffer *b)
{
  return (size_t)b->count * fl_tmr_type_size(b->type);
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

/* The launch function of the built-in tasks on the GPU (arg: the task). */
static int fl_tmr_cu_builtin_launch(const fl_tmr_launch *l, void *arg)
{
  const fl_tmr_task *task = (const fl_tmr_task *)arg;
  const double *in[FL_TMR_MAX_ARRAYS] = {NULL, NULL, NULL, NULL};
  double *out[FL_TMR_MAX_ARRAYS] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < task->nin; i++)
    in[i] = (const double *)l->in[i];
  for (int i = 0; i < task->nout; i++)
    out[i] = (double *)l->out[i];
  return (int)fl_tmr_cu_launch(task, in, out, (cudaStream_t)l->stream);
}

/* The built-in task as a definition over device copies of its arrays, the inputs copied in on stream 0 (which
 * every replica waits for). */
extern "C" fl_err fl_tmr_cuda_builtin(fl_tmr_cuda *c, const fl_tmr_task *task, fl_tmr_kernel_def *def)
{
  fl_err rc = FL_OK;
  def->name = task->name;
  def->nin = task->nin;
  def->nout = task->nout;
  for (int k = 0; k < task->nin; k++) {
    size_t bytes = (size_t)task->in_n[k] * sizeof(double);
    FL_TRY(fl_tmr_cu_grow(c, &c->d_in[k], &c->in_cap[k], bytes));
    FL_CU(cudaMemcpyAsync(c->d_in[k], task->in[k], bytes, cudaMemcpyHostToDevice, c->stream[0]));
    def->in[k].data = c->d_in[k];
    def->in[k].count = task->in_n[k];
    def->in[k].type = FL_TMR_F64;
  }
  for (int k = 0; k < task->nout; k++) {
    FL_TRY(fl_tmr_cu_grow(c, &c->d_out[k], &c->out_cap[k], (size_t)task->out_n[k] * sizeof(double)));
    def->out[k].data = c->d_out[k];
    def->out[k].count = task->out_n[k];
    def->out[k].type = FL_TMR_F64;
  }
  def->launch = fl_tmr_cu_builtin_launch;
  def->arg = (void *)task;
  def->work = task->work;
done:
  return rc;
}

extern "C" fl_err fl_tmr_cuda_builtin_finish(fl_tmr_cuda *c, const fl_tmr_task *task)
{
  fl_err rc = FL_OK;
  for (int k = 0; k < task->nout; k++)
    FL_CU(cudaMemcpyAsync(task->out[k], c->d_out[k], (size_t)task->out_n[k] * sizeof(double), cudaMemcpyDeviceToHost,
                          c->stream[0]));
  FL_CU(cudaStreamSynchronize(c->stream[0]));
done:
  return rc;
}

static int fl_tmr_cu_cmp(const void *x, const void *y)
{
  const fl_tmr_mismatch *a = (const fl_tmr_mismatch *)x, *b = (const fl_tmr_mismatch *)y;
  if (a->stage != b->stage)
    return a->stage < b->stage ? -1 : 1;
  if (a->array != b->array)
    return a->array < b->array ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Queue the flips of `target` for replica r on array `array` of kernel `stage` (absolute) on stream s, those of
 * elements [base, base + n) (n < 0: all), p holding element base. */
static fl_err fl_tmr_cu_flips(const fl_tmr_exec *exec, fl_tmr_target target, int r, int stage, int array, void *p,
                              size_t size, long base, long n, cudaStream_t s)
{
  fl_err rc = FL_OK;
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    if (ft->target == target && ft->replica == r && ft->stage == stage && ft->array == array && ft->element >= base &&
        (n < 0 || ft->element < base + n))
      fl_k_flip<<<1, 1, 0, s>>>((unsigned char *)p, size, ft->element - base, ft->bit);
  }
  FL_CU(cudaGetLastError());
done:
  return rc;
}

/* The vote kernel over n elements of type `type` from element `base` on (r0, r1, r2 point at that element), on
 * stream s. */
static fl_err fl_tmr_cu_vote(fl_tmr_type type, long n, long base, int stage, int array, void *r0, const void *r1,
                             const void *r2, const fl_tmr_vote_params *v, fl_tmr_cu_tally *t, fl_tmr_mismatch *pos,
                             cudaStream_t s)
{
  fl_err rc = FL_OK;
  const unsigned blocks = fl_tmr_cu_blocks(n);
  switch (type) {
  case FL_TMR_F64:
    fl_k_vote_fp<double><<<blocks, FL_TMR_CU_THREADS, 0, s>>>(n, base, stage, array, (double *)r0, (const double *)r1,
                                                              (const double *)r2, *v, t, pos);
    break;
  case FL_TMR_F32:
    fl_k_vote_fp<float><<<blocks, FL_TMR_CU_THREADS, 0, s>>>(n, base, stage, array, (float *)r0, (const float *)r1,
                                                             (const float *)r2, *v, t, pos);
    break;
  case FL_TMR_I64:
    fl_k_vote_int<long long><<<blocks, FL_TMR_CU_THREADS, 0, s>>>(
        n, base, stage, array, (long long *)r0, (const long long *)r1, (const long long *)r2, v->replicas, t, pos);
    break;
  case FL_TMR_I32:
    fl_k_vote_int<int><<<blocks, FL_TMR_CU_THREADS, 0, s>>>(n, base, stage, array, (int *)r0, (const int *)r1,
                                                            (const int *)r2, v->replicas, t, pos);
    break;
  case FL_TMR_U8:
    fl_k_vote_int<unsigned char><<<blocks, FL_TMR_CU_THREADS, 0, s>>>(n, base, stage, array, (unsigned char *)r0,
                                                                      (const unsigned char *)r1,
                                                                      (const unsigned char *)r2, v->replicas, t, pos);
    break;
  }
  FL_CU(cudaGetLastError());
done:
  return rc;
}

/* Stream 0 after the caller's stream (its kernels made the inputs). */
static fl_err fl_tmr_cu_after_caller(fl_tmr_cuda *c, void *stream)
{
  fl_err rc = FL_OK;
  FL_CU(cudaEventRecord(c->user, (cudaStream_t)stream));
  FL_CU(cudaStreamWaitEvent(c->stream[0], c->user, 0));
done:
  return rc;
}

/* The vote's counts and positions back from the device (the one copy of a run that is not the caller's data):
 * queued on s0 (into pinned memory, so that a graph can hold it too), then read once s0 is done. */
static fl_err fl_tmr_cu_queue_report(fl_tmr_cuda *c, cudaStream_t s0)
{
  fl_err rc = FL_OK;
  FL_CU(cudaMemcpyAsync(c->h_report, c->d_report, sizeof *c->h_report, cudaMemcpyDeviceToHost, s0));
done:
  return rc;
}

static fl_err fl_tmr_cu_read_report(fl_tmr_cuda *c, cudaStream_t s0, fl_tmr_tally *tally)
{
  fl_err rc = FL_OK;
  const fl_tmr_cu_tally *h = &c->h_report->tally;
  FL_CU(cudaStreamSynchronize(s0));
  tally->benign = (long)h->benign;
  tally->corrected = (long)h->corrected;
  tally->nomajority = (long)h->nomajority;
  for (int r = 0; r < 3; r++)
    tally->outvoted[r] = (long)h->outvoted[r];
  tally->ntotal = (long)h->ntotal;
  tally->npositions = tally->ntotal < FL_TMR_MAX_POSITIONS ? tally->ntotal : FL_TMR_MAX_POSITIONS;
  memcpy(tally->positions, c->h_report->pos, (size_t)tally->npositions * sizeof *tally->positions);
  qsort(tally->positions, (size_t)tally->npositions, sizeof *tally->positions, fl_tmr_cu_cmp);
done:
  return rc;
}

/* Input i of kernel j (absolute stage `stage`) as replica r reads it, from src: src itself, or a private copy made
 * on stream s with the replica's faults on that input flipped. */
static fl_err fl_tmr_cu_input(fl_tmr_cuda *c, const fl_tmr_kernel_def *d, const fl_tmr_exec *exec, int r, int j, int i,
                              const void *src, cudaStream_t s, const void **in)
{
  fl_err rc = FL_OK;
  const int stage = exec->stage0 + j, slot = j * FL_TMR_MAX_ARRAYS + i;
  int faulted = 0;
  for (long f = 0; f < exec->nfaults && !faulted; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    faulted = ft->target == FL_TMR_INPUT && ft->replica == r && ft->stage == stage && ft->array == i;
  }
  *in = src;
  if (faulted) {
    FL_CU(cudaMemcpyAsync(c->priv[r][slot], src, fl_tmr_cu_bytes(&d->in[i]), cudaMemcpyDeviceToDevice, s));
    FL_TRY(
        fl_tmr_cu_flips(exec, FL_TMR_INPUT, r, stage, i, c->priv[r][slot], fl_tmr_type_size(d->in[i].type), 0, -1, s));
    *in = c->priv[r][slot];
  }
done:
  return rc;
}

/* Items per chunk of the chunked schedules: the chunk's inputs (their share per item) and three copies of its
 * output-0 elements in half the L2 cache (overlapped: 2/5, a second chunk of replicas 1 and 2 being in flight), so
 * that replicas 1 and 2 and the vote read them there. Measured with AXPY on an H100 (50 MB of L2; 40 bytes an item):
 * overlapped and replayed 3.19x at 393,216 items, 3.08x at 524,288, 3.14x at 655,360, 3.44x at 1,048,576. */
static long fl_tmr_cu_chunk(const fl_tmr_cuda *c, const fl_tmr_kernel_def *d, int overlap)
{
  double bytes = 3.0 * (double)fl_tmr_cu_bytes(&d->out[0]);
  long items;
  if (c->chunk_items > 0)
    return c->chunk_items < d->items ? c->chunk_items : d->items;
  for (int i = 0; i < d->nin; i++)
    bytes += (double)fl_tmr_cu_bytes(&d->in[i]);
  items = (long)((double)c->l2_bytes * (overlap ? 0.4 : 0.5) / (bytes / (double)d->items));
  return items < 1 ? 1 : items > d->items ? d->items : items;
}

/* One kernel with items, chunk by chunk, each chunk voted while it is in L2 (replica 0 into the caller's output,
 * replicas 1 and 2 into chunk buffers of their own, the chunk's faults flipped before its vote). A bandwidth-bound
 * kernel then reads its inputs from memory about once and writes only the real output there, where three whole
 * replicas and a vote over them cross it four times.
 *   In turn (exec->concurrent 0): everything on stream 0, one kernel after the other.
 *   Overlapped (2, auto's choice on a GPU): replica 0 on stream 0 beside replicas 1 and 2 in turn on stream 1,
 *   which read the chunk's inputs while replica 0's reads have them in L2; the vote on stream 0 after both. Stream
 *   1 runs up to a chunk ahead into a ring of two chunk buffers, each slot waiting for the vote that last read it,
 *   so that one stream's launches and the gaps between its kernels are covered by the other's work
 *   (bench/tmr_schedule_probe.cu: AXPY on an H100, 3.40x against 4.48x in turn, 3.87x for whole replicas). */
static fl_err fl_tmr_cu_chunked(fl_tmr_cuda *c, const fl_tmr_kernel_def *d, const fl_tmr_exec *exec)
{
  fl_err rc = FL_OK;
  const int nrep = exec->vote.replicas, stage = exec->stage0, overlap = exec->concurrent == 2;
  int joined = 0;
  const long w = d->width ? d->width : 1, chunk = fl_tmr_cu_chunk(c, d, overlap);
  const size_t size = fl_tmr_type_size(d->out[0].type);
  cudaStream_t s0 = c->stream[0], s1 = overlap ? c->stream[1] : s0;
  fl_tmr_launch l[3];
  for (int r = 0; r < nrep; r++) {
    memset(&l[r], 0, sizeof l[r]);
    l[r].replica = r;
    l[r].nin = d->nin;
    l[r].nout = d->nout;
    l[r].stream = (void *)(r == 0 ? s0 : s1);
    for (int i = 0; i < d->nin; i++)
      FL_TRY(fl_tmr_cu_input(c, d, exec, r, 0, i, d->in[i].data, s0, &l[r].in[i]));
    for (int i = 1; i < d->nout; i++)
      l[r].out[i] = r == 0 ? d->out[i].data : c->scratch[r][i];
  }
  if (overlap) { /* stream 1 after stream 0's work so far (the caller's, the inputs' copies) */
    FL_CU(cudaEventRecord(c->ready, s0));
    FL_CU(cudaStreamWaitEvent(s1, c->ready, 0));
  }
  for (long c0 = 0, k = 0; c0 < d->items; c0 += chunk, k++) {
    const long c1 = c0 + chunk < d->items ? c0 + chunk : d->items;
    const int slot = overlap ? (int)(k & 1) : 0;
    if (overlap && k >= 2)
      FL_CU(cudaStreamWaitEvent(s1, c->ring[2 + slot], 0));
    for (int r = 0; r < nrep; r++) {
      int e;
      l[r].first = c0;
      l[r].last = c1;
      l[r].out[0] = r == 0 ? (void *)((char *)d->out[0].data + size * (size_t)(c0 * w))
                           : (void *)((char *)c->chunk[r] + size * (size_t)(slot * chunk * w));
      e = d->launch(&l[r], d->arg);
      FL_CHECK(e == 0, FL_ERR_INTERNAL, "tmr kernel %d (%s): the launch function of replica %d returned %d", stage,
               d->name ? d->name : "unnamed", r, e);
      FL_CU(cudaGetLastError());
      FL_TRY(fl_tmr_cu_flips(exec, FL_TMR_OUTPUT, r, stage, 0, l[r].out[0], size, c0 * w, (c1 - c0) * w,
                             r == 0 ? s0 : s1));
    }
    if (overlap) {
      FL_CU(cudaEventRecord(c->ring[slot], s1));
      FL_CU(cudaStreamWaitEvent(s0, c->ring[slot], 0));
    }
    FL_TRY(fl_tmr_cu_vote(d->out[0].type, (c1 - c0) * w, c0 * w, stage, 0, l[0].out[0], l[1].out[0],
                          nrep == 3 ? l[2].out[0] : NULL, &exec->vote, c->d_tally, c->d_pos, s0));
    if (overlap)
      FL_CU(cudaEventRecord(c->ring[2 + slot], s0));
  }
  if (overlap) { /* stream 0 after all of stream 1's work: the further outputs' votes read it */
    FL_CU(cudaEventRecord(c->done[1], s1));
    FL_CU(cudaStreamWaitEvent(s0, c->done[1], 0));
    joined = 1;
  }
  for (int i = 1; i < d->nout; i++) {
    for (int r = 0; r < nrep; r++)
      FL_TRY(
          fl_tmr_cu_flips(exec, FL_TMR_OUTPUT, r, stage, i, l[r].out[i], fl_tmr_type_size(d->out[i].type), 0, -1, s0));
    FL_TRY(fl_tmr_cu_vote(d->out[i].type, d->out[i].count, 0, stage, i, l[0].out[i], l[1].out[i],
                          nrep == 3 ? l[2].out[i] : NULL, &exec->vote, c->d_tally, c->d_pos, s0));
  }
done:
  if (overlap && !joined) { /* also on an error: a capture must end joined */
    cudaEventRecord(c->done[1], s1);
    cudaStreamWaitEvent(s0, c->done[1], 0);
  }
  return rc;
}

/* The replicas over whole arrays: replica r's kernels on stream r (stream 0 for all, in turn), each with its input
 * faults before it (on a private device copy) and its output faults after, then stream 0 waits for them all and
 * votes every output. */
static fl_err fl_tmr_cu_whole(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                              void *rout[3][FL_TMR_CU_SLOTS])
{
  fl_err rc = FL_OK;
  const int nrep = exec->vote.replicas;
  cudaStream_t s0 = c->stream[0];
  FL_CU(cudaEventRecord(c->ready, s0));
  for (int r = 0; r < nrep; r++) {
    cudaStream_t s = exec->concurrent ? c->stream[r] : s0;
    if (s != s0)
      FL_CU(cudaStreamWaitEvent(s, c->ready, 0));
    for (int j = 0; j < nk; j++) {
      const fl_tmr_kernel_def *d = &k[j];
      const int stage = exec->stage0 + j;
      fl_tmr_launch l;
      int e;
      fl_tmr_launch_whole(&l, d, (void *)s);
      l.replica = r;
      for (int i = 0; i < d->nin; i++) {
        const int from = exec->from[j][i];
        FL_TRY(fl_tmr_cu_input(c, d, exec, r, j, i, r > 0 && from >= 0 ? rout[r][from] : d->in[i].data, s, &l.in[i]));
      }
      for (int i = 0; i < d->nout; i++)
        l.out[i] = rout[r][j * FL_TMR_MAX_ARRAYS + i];
      e = d->launch(&l, d->arg);
      FL_CHECK(e == 0, FL_ERR_INTERNAL, "tmr kernel %d (%s): the launch function of replica %d returned %d", stage,
               d->name ? d->name : "unnamed", r, e);
      FL_CU(cudaGetLastError());
      for (int i = 0; i < d->nout; i++)
        FL_TRY(fl_tmr_cu_flips(exec, FL_TMR_OUTPUT, r, stage, i, l.out[i], fl_tmr_type_size(d->out[i].type), 0, -1, s));
    }
    if (s != s0) {
      FL_CU(cudaEventRecord(c->done[r], s));
      FL_CU(cudaStreamWaitEvent(s0, c->done[r], 0));
    }
  }
  for (int j = 0; j < nk; j++)
    for (int i = 0; i < k[j].nout; i++) {
      const int slot = j * FL_TMR_MAX_ARRAYS + i;
      FL_TRY(fl_tmr_cu_vote(k[j].out[i].type, k[j].out[i].count, 0, exec->stage0 + j, i, rout[0][slot], rout[1][slot],
                            nrep == 3 ? rout[2][slot] : NULL, &exec->vote, c->d_tally, c->d_pos, s0));
    }
done:
  return rc;
}

/* Whether the schedule of this attempt is the chunked one: in turn, one kernel that computes ranges. */
static int fl_tmr_cu_is_chunked(const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec)
{
  return exec->concurrent != 1 && nk == 1 && k[0].items > 0;
}

static int fl_tmr_cu_same_buffer(const fl_tmr_buffer *a, const fl_tmr_buffer *b)
{
  return a->data == b->data && a->count == b->count && a->type == b->type;
}

/* Whether a graph recorded for kernels `a` launches what kernels `b` would. */
static int fl_tmr_cu_same_def(const fl_tmr_kernel_def *a, const fl_tmr_kernel_def *b)
{
  if (a->nin != b->nin || a->nout != b->nout || a->launch != b->launch || a->arg != b->arg || a->items != b->items ||
      a->width != b->width)
    return 0;
  for (int i = 0; i < a->nin; i++)
    if (!fl_tmr_cu_same_buffer(&a->in[i], &b->in[i]))
      return 0;
  for (int i = 0; i < a->nout; i++)
    if (!fl_tmr_cu_same_buffer(&a->out[i], &b->out[i]))
      return 0;
  return 1;
}

static void fl_tmr_cu_make_key(const fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                               fl_tmr_cu_key *key)
{
  memset(key, 0, sizeof *key);
  key->nk = nk;
  key->concurrent = exec->concurrent;
  key->stage0 = exec->stage0;
  key->replicas = exec->vote.replicas;
  key->tolerance = exec->vote.tolerance;
  key->abs_tol = exec->vote.abs_tol;
  key->rel_tol = exec->vote.rel_tol;
  memcpy(key->from, exec->from, sizeof key->from);
  key->gen = c->gen;
  for (int j = 0; j < nk; j++)
    key->k[j] = k[j];
}

static int fl_tmr_cu_same_key(const fl_tmr_cu_key *a, const fl_tmr_cu_key *b)
{
  if (a->nk != b->nk || a->concurrent != b->concurrent || a->stage0 != b->stage0 || a->replicas != b->replicas ||
      a->tolerance != b->tolerance || a->abs_tol != b->abs_tol || a->rel_tol != b->rel_tol || a->gen != b->gen ||
      memcmp(a->from, b->from, sizeof a->from) != 0)
    return 0;
  for (int j = 0; j < a->nk; j++)
    if (!fl_tmr_cu_same_def(&a->k[j], &b->k[j]))
      return 0;
  return 1;
}

/* The replicas and votes of a fault-free attempt whose kernels all promise the same launches every run
 * (fl_tmr_kernel_def.replay), with the counts' reset before and their copy to the host after: recorded once into
 * a CUDA graph on stream 0, replayed while the key holds. The context's buffers are all in place before (the
 * capture may not allocate). */
static fl_err fl_tmr_cu_replay(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                               void *rout[3][FL_TMR_CU_SLOTS], int chunked)
{
  fl_err rc = FL_OK;
  cudaStream_t s0 = c->stream[0];
  cudaGraph_t g = NULL;
  fl_tmr_cu_key key;
  fl_tmr_cu_make_key(c, k, nk, exec, &key);
  if (!c->graph || !fl_tmr_cu_same_key(&key, c->graph_key)) {
    fl_err run;
    cudaError_t e;
    if (c->graph) {
      FL_CU(cudaGraphExecDestroy(c->graph));
      c->graph = NULL;
    }
    if (!c->graph_key)
      FL_CHECK((c->graph_key = (fl_tmr_cu_key *)malloc(sizeof *c->graph_key)) != NULL, FL_ERR_NOMEM,
               "tmr cuda: out of memory");
    FL_CU(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
    run = fl_tmr_cu_err(cudaMemsetAsync(c->d_tally, 0, sizeof *c->d_tally, s0), "cudaMemsetAsync");
    if (run == FL_OK)
      run = chunked ? fl_tmr_cu_chunked(c, &k[0], exec) : fl_tmr_cu_whole(c, k, nk, exec, rout);
    if (run == FL_OK)
      run = fl_tmr_cu_queue_report(c, s0);
    e = cudaStreamEndCapture(s0, &g);
    if (run != FL_OK && e == cudaSuccess) {
      rc = run;
      goto done;
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      rc = fl_err_set(FL_ERR_INPUT,
                      "tmr kernel %d (%s): replay is set, but its launches cannot be recorded into a CUDA graph "
                      "(%s: %s); a launch function may only launch on the stream it is given",
                      exec->stage0, k[0].name ? k[0].name : "unnamed", cudaGetErrorName(e), cudaGetErrorString(e));
      goto done;
    }
    FL_CU(cudaGraphInstantiate(&c->graph, g, 0));
    *c->graph_key = key;
  }
  FL_CU(cudaGraphLaunch(c->graph, s0));
done:
  if (g)
    cudaGraphDestroy(g);
  return rc;
}

/* One attempt: the buffers, stream 0 after the caller's stream, the replicas and the votes (chunked or whole), the
 * faults on the voted outputs, and the counts back to the host: the only transfer. */
extern "C" fl_err fl_tmr_cuda_attempt(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                                      fl_tmr_tally *tally)
{
  fl_err rc = FL_OK;
  const int nrep = exec->vote.replicas, chunked = fl_tmr_cu_is_chunked(k, nk, exec);
  int replay = exec->nfaults == 0; /* and every kernel promises it (below) */
  void *rout[3][FL_TMR_CU_SLOTS];
  cudaStream_t s0 = c->stream[0];

  for (int r = 0; r < nrep; r++)
    for (int j = 0; j < nk; j++)
      for (int i = 0; i < k[j].nout; i++) {
        const int slot = j * FL_TMR_MAX_ARRAYS + i;
        if (r == 0) {
          rout[r][slot] = k[j].out[i].data;
        } else if (chunked && i == 0) {
          rout[r][slot] = NULL; /* a chunk buffer, two in a ring when overlapped */
          FL_TRY(fl_tmr_cu_grow(
              c, &c->chunk[r], &c->chunk_cap[r],
              (size_t)((exec->concurrent == 2 ? 2 : 1) * fl_tmr_cu_chunk(c, &k[0], exec->concurrent == 2) *
                       (k[0].width ? k[0].width : 1)) *
                  fl_tmr_type_size(k[0].out[0].type)));
        } else {
          FL_TRY(fl_tmr_cu_grow(c, &c->scratch[r][slot], &c->scratch_cap[r][slot], fl_tmr_cu_bytes(&k[j].out[i])));
          rout[r][slot] = c->scratch[r][slot];
        }
      }
  for (long f = 0; f < exec->nfaults; f++) {
    const fl_tmr_rfault *ft = &exec->faults[f];
    const int j = ft->stage - exec->stage0, slot = j * FL_TMR_MAX_ARRAYS + ft->array;
    if (ft->target == FL_TMR_INPUT)
      FL_TRY(fl_tmr_cu_grow(c, &c->priv[ft->replica][slot], &c->priv_cap[ft->replica][slot],
                            fl_tmr_cu_bytes(&k[j].in[ft->array])));
  }
  FL_TRY(fl_tmr_cu_after_caller(c, exec->stream));
  for (int j = 0; j < nk; j++)
    replay = replay && k[j].replay;
  if (replay) {
    FL_TRY(fl_tmr_cu_replay(c, k, nk, exec, rout, chunked));
  } else {
    FL_CU(cudaMemsetAsync(c->d_tally, 0, sizeof *c->d_tally, s0));
    if (chunked)
      FL_TRY(fl_tmr_cu_chunked(c, &k[0], exec));
    else
      FL_TRY(fl_tmr_cu_whole(c, k, nk, exec, rout));
    for (int j = 0; j < nk; j++)
      for (int i = 0; i < k[j].nout; i++)
        FL_TRY(fl_tmr_cu_flips(exec, FL_TMR_VOTED, 0, exec->stage0 + j, i, k[j].out[i].data,
                               fl_tmr_type_size(k[j].out[i].type), 0, -1, s0));
    FL_TRY(fl_tmr_cu_queue_report(c, s0));
  }
  FL_TRY(fl_tmr_cu_read_report(c, s0, tally));
done:
  if (rc != FL_OK)
    for (int r = 0; r < 3; r++)
      cudaStreamSynchronize(c->stream[r]); /* nothing of this attempt left running on the caller's buffers */
  return rc;
}

/* Auto: a kernel that computes ranges and whose output alone outgrows the L2 cache is bandwidth-bound territory:
 * chunked, overlapped (2); everything else runs its replicas on three streams (1), which overlap kernels too small
 * to fill the GPU. */
extern "C" int fl_tmr_cuda_auto_concurrent(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk)
{
  return nk == 1 && k[0].items > 0 && (long)fl_tmr_cu_bytes(&k[0].out[0]) >= c->l2_bytes ? 2 : 1;
}

extern "C" fl_err fl_tmr_cuda_plain(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, void *stream)
{
  fl_err rc = FL_OK;
  cudaStream_t s0 = c->stream[0];
  FL_TRY(fl_tmr_cu_after_caller(c, stream));
  for (int j = 0; j < nk; j++) {
    fl_tmr_launch l;
    int e;
    fl_tmr_launch_whole(&l, &k[j], (void *)s0);
    e = k[j].launch(&l, k[j].arg);
    FL_CHECK(e == 0, FL_ERR_INTERNAL, "tmr kernel %d (%s): the launch function returned %d", j,
             k[j].name ? k[j].name : "unnamed", e);
    FL_CU(cudaGetLastError());
  }
  FL_CU(cudaStreamSynchronize(s0));
done:
  return rc;
}

/* For benchmarks (faultline-tmr-check): seconds per vote of three equal arrays of n doubles (the vote kernel as a
 * run launches it, nothing to correct) and per device-to-device copy of n doubles, each the mean of `reps`
 * back-to-back runs timed with events. The vote reads 3 n doubles; a copy reads and writes n. */
extern "C" fl_err fl_tmr_cuda_bench_vote(long n, int reps, double *vote_s, double *copy_s)
{
  fl_err rc = FL_OK;
  double *r[4] = {NULL, NULL, NULL, NULL};
  fl_tmr_cu_tally *t = NULL;
  fl_tmr_mismatch *pos = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  fl_tmr_vote_params v = {3, 0, 0.0, 0.0};
  float ms = 0;
  fl_tmr_cu_tally h;
  for (int i = 0; i < 4; i++) {
    FL_CU(cudaMalloc((void **)&r[i], (size_t)n * sizeof(double)));
    FL_CU(cudaMemset(r[i], 0, (size_t)n * sizeof(double)));
  }
  FL_CU(cudaMalloc((void **)&t, sizeof *t));
  FL_CU(cudaMemset(t, 0, sizeof *t));
  FL_CU(cudaMalloc((void **)&pos, FL_TMR_MAX_POSITIONS * sizeof *pos));
  FL_CU(cudaEventCreate(&e0));
  FL_CU(cudaEventCreate(&e1));
  fl_k_vote_fp<double><<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS>>>(n, 0, 0, 0, r[0], r[1], r[2], v, t, pos); /* warm */
  FL_CU(cudaEventRecord(e0));
  for (int k = 0; k < reps; k++)
    fl_k_vote_fp<double><<<fl_tmr_cu_blocks(n), FL_TMR_CU_THREADS>>>(n, 0, 0, 0, r[0], r[1], r[2], v, t, pos);
  FL_CU(cudaEventRecord(e1));
  FL_CU(cudaEventSynchronize(e1));
  FL_CU(cudaGetLastError());
  FL_CU(cudaEventElapsedTime(&ms, e0, e1));
  *vote_s = 1e-3 * ms / reps;
  FL_CU(cudaMemcpy(&h, t, sizeof h, cudaMemcpyDeviceToHost));
  FL_CHECK(h.corrected == 0 && h.nomajority == 0, FL_ERR_INTERNAL, "the vote found differences in equal arrays");
  FL_CU(cudaMemcpy(r[3], r[0], (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice)); /* warm */
  FL_CU(cudaEventRecord(e0));
  for (int k = 0; k < reps; k++)
    FL_CU(cudaMemcpyAsync(r[3], r[k % 3], (size_t)n * sizeof(double), cudaMemcpyDeviceToDevice, 0));
  FL_CU(cudaEventRecord(e1));
  FL_CU(cudaEventSynchronize(e1));
  FL_CU(cudaEventElapsedTime(&ms, e0, e1));
  *copy_s = 1e-3 * ms / reps;
done:
  for (int i = 0; i < 4; i++)
    cudaFree(r[i]);
  cudaFree(t);
  cudaFree(pos);
  if (e0)
    cudaEventDestroy(e0);
  if (e1)
    cudaEventDestroy(e1);
  return rc;
}

extern "C" int fl_tmr_launch_cuda(const fl_tmr_launch *l, void *arg)
{
  const fl_tmr_cuda_kernel *k = (const fl_tmr_cuda_kernel *)arg;
  void *args[FL_TMR_MAX_KERNEL_ARGS];
  const void *in[FL_TMR_MAX_ARRAYS];
  void *out[FL_TMR_MAX_ARRAYS];
  if (!k || !k->func || k->nargs < 0 || k->nargs > FL_TMR_MAX_KERNEL_ARGS || (k->nargs > 0 && !k->args))
    return -1;
  for (int i = 0; i < k->nargs; i++)
    args[i] = k->args[i];
  /* the replica's pointers, in place of the buffer arguments */
  for (int j = 0; j < l->nin; j++) {
    in[j] = l->in[j];
    if (k->in_arg[j] >= k->nargs)
      return -1;
    if (k->in_arg[j] >= 0)
      args[k->in_arg[j]] = (void *)&in[j];
  }
  for (int j = 0; j < l->nout; j++) {
    out[j] = l->out[j];
    if (k->out_arg[j] >= k->nargs)
      return -1;
    if (k->out_arg[j] >= 0)
      args[k->out_arg[j]] = (void *)&out[j];
  }
  return (int)cudaLaunchKernel(k->func, dim3(k->grid[0], k->grid[1], k->grid[2]),
                               dim3(k->block[0], k->block[1], k->block[2]), args, k->shared_bytes,
                               (cudaStream_t)l->stream);
}
