/* tmr_schedule_probe.cu — which schedule of TMR's replicas and vote suits a memory-bound kernel on a GPU.
 *
 * Not faultline's code: a stand-alone measurement behind the choice of the "cuda" backend's chunked schedules
 * (exec/cuda_tmr/cuda_impl.cu). AXPY of n doubles (the kernel faultline-tmr-check measures), timed as one
 * unprotected run and as TMR under several schedules, each with the same three-way vote over the outputs:
 *
 *   whole      replicas over whole arrays on three streams, then the vote (the schedule for small kernels)
 *   turn C     chunks of C items on one stream: replica 0, 1, 2, vote (replicas 1, 2 into a chunk buffer)
 *   3s C       chunks on three streams, replica r on stream r, the vote on stream 0 after both others' events;
 *              replicas 1, 2 into a ring of two chunk buffers (each waits for the vote that last read its slot)
 *   2s C       as 3s, replicas 1 and 2 one after the other on stream 1 (fewer events)
 *   3s-full C  as 3s, replicas 1, 2 into whole-size arrays (no ring, no waits on the vote)
 *
 * each also as a CUDA graph (g-upd: captured on every run and swapped into one executable graph by
 * cudaGraphExecUpdate; g-replay: captured once and replayed), and the host's cost of the calls a schedule makes (an
 * empty kernel's launch, an event's record + wait).
 * Each figure is the median of 9 samples of >= 20 ms. Build: nvcc -O2 -arch=sm_90 -o probe tmr_schedule_probe.cu
 * Usage: probe [N] (default 2^25) */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(call)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                           \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

#define LOOP(i, n)                                                                                                     \
  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long)blockDim.x * gridDim.x)

__global__ void k_axpy(long n, double a, const double *__restrict__ x, const double *__restrict__ y,
                       double *__restrict__ o)
{
  LOOP(i, n) o[i] = a * x[i] + y[i];
}
__global__ void k_vote(long n, double *r0, const double *r1, const double *r2, unsigned long long *bad)
{
  LOOP(i, n)
  {
    double a = r0[i], b = r1[i], c = r2[i];
    if (__double_as_longlong(a) == __double_as_longlong(b) && __double_as_longlong(a) == __double_as_longlong(c))
      continue;
    atomicAdd(bad, 1ull);
    if (__double_as_longlong(b) == __double_as_longlong(c))
      r0[i] = b;
  }
}
__global__ void k_empty(void) {}

static unsigned blocks(long n)
{
  long b = (n + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { S_SINGLE, S_WHOLE, S_TURN, S_3S, S_2S, S_3S_FULL };
static const char *names[] = {"single", "whole", "turn", "3s", "2s", "3s-full"};
static const char *gmodes[] = {"stream", "g-upd", "g-replay"};

static long n;
static double *x, *y, *o[3], *ring[3], a = 2.5;
static unsigned long long *bad;
static cudaStream_t s[3];
static cudaEvent_t ev_rep[3][2], ev_vote[2], ev_join[3];

static void axpy(long f, long e, double *out, cudaStream_t st)
{
  k_axpy<<<blocks(e - f), 256, 0, st>>>(e - f, a, x + f, y + f, out);
}

/* One TMR run (or the single run) under schedule `sc` with chunks of `chunk` items; returns when enqueued. */
static void enqueue(int sc, long chunk)
{
  if (sc == S_SINGLE) {
    axpy(0, n, o[0], s[0]);
    return;
  }
  if (sc == S_WHOLE) {
    CK(cudaEventRecord(ev_join[0], s[0]));
    for (int r = 1; r < 3; r++)
      CK(cudaStreamWaitEvent(s[r], ev_join[0], 0));
    for (int r = 0; r < 3; r++)
      axpy(0, n, o[r], s[r]);
    for (int r = 1; r < 3; r++) {
      CK(cudaEventRecord(ev_join[r], s[r]));
      CK(cudaStreamWaitEvent(s[0], ev_join[r], 0));
    }
    k_vote<<<blocks(n) < 4096 ? blocks(n) : 4096, 256, 0, s[0]>>>(n, o[0], o[1], o[2], bad);
    return;
  }
  CK(cudaEventRecord(ev_join[0], s[0]));
  for (int r = 1; r < 3; r++)
    CK(cudaStreamWaitEvent(s[r], ev_join[0], 0));
  for (long c0 = 0, k = 0; c0 < n; c0 += chunk, k++) {
    const long c1 = c0 + chunk < n ? c0 + chunk : n, m = c1 - c0;
    const int slot = (int)(k & 1);
    double *out[3];
    out[0] = o[0] + c0;
    for (int r = 1; r < 3; r++)
      out[r] = sc == S_3S_FULL ? o[r] + c0 : sc == S_TURN ? ring[r] : ring[r] + (size_t)slot * chunk;
    if (sc == S_TURN) {
      for (int r = 0; r < 3; r++)
        axpy(c0, c1, out[r], s[0]);
    } else {
      axpy(c0, c1, out[0], s[0]);
      if (sc == S_2S) {
        if (k >= 2)
          CK(cudaStreamWaitEvent(s[1], ev_vote[slot], 0));
        axpy(c0, c1, out[1], s[1]);
        axpy(c0, c1, out[2], s[1]);
        CK(cudaEventRecord(ev_rep[1][slot], s[1]));
        CK(cudaStreamWaitEvent(s[0], ev_rep[1][slot], 0));
      } else {
        for (int r = 1; r < 3; r++) {
          if (sc == S_3S && k >= 2)
            CK(cudaStreamWaitEvent(s[r], ev_vote[slot], 0));
          axpy(c0, c1, out[r], s[r]);
          CK(cudaEventRecord(ev_rep[r][slot], s[r]));
          CK(cudaStreamWaitEvent(s[0], ev_rep[r][slot], 0));
        }
      }
    }
    k_vote<<<blocks(m) < 4096 ? blocks(m) : 4096, 256, 0, s[0]>>>(m, out[0], out[1], out[2], bad);
    if (sc == S_3S || sc == S_2S)
      CK(cudaEventRecord(ev_vote[slot], s[0]));
  }
  for (int r = 1; r < 3; r++) {
    CK(cudaEventRecord(ev_join[r], s[r]));
    CK(cudaStreamWaitEvent(s[0], ev_join[r], 0));
  }
}

/* As a CUDA graph: gmode 1 captures the schedule on every run and updates one executable graph with it (what a
 * library must do when the user's launch functions may change their arguments between runs), gmode 2 replays the
 * graph captured once (the floor of what graphs can give). */
static int gmode;
static cudaGraphExec_t gexec;

static void run_once(int sc, long chunk)
{
  cudaGraph_t g;
  if (gmode == 0) {
    enqueue(sc, chunk);
    return;
  }
  if (gmode == 1 || !gexec) {
    CK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal));
    enqueue(sc, chunk);
    CK(cudaStreamEndCapture(s[0], &g));
    if (gexec) {
      cudaGraphExecUpdateResultInfo info;
      if (cudaGraphExecUpdate(gexec, g, &info) != cudaSuccess) {
        cudaGetLastError();
        CK(cudaGraphExecDestroy(gexec));
        gexec = NULL;
      }
    }
    if (!gexec)
      CK(cudaGraphInstantiate(&gexec, g, 0));
    CK(cudaGraphDestroy(g));
  }
  CK(cudaGraphLaunch(gexec, s[0]));
}

/* Seconds per run (median of 9 samples of >= 20 ms) and the share of it the host spends enqueuing. */
static double timeit(int sc, long chunk, double *host_share)
{
  double t[9], h[9], one;
  int reps;
  run_once(sc, chunk);
  CK(cudaStreamSynchronize(s[0]));
  one = now();
  run_once(sc, chunk);
  CK(cudaStreamSynchronize(s[0]));
  one = now() - one;
  reps = one > 0.02 ? 1 : (int)(0.02 / one) + 1;
  for (int k = 0; k < 9; k++) {
    double t0 = now(), hs = 0;
    for (int r = 0; r < reps; r++) {
      double h0 = now();
      run_once(sc, chunk);
      hs += now() - h0;
      CK(cudaStreamSynchronize(s[0]));
    }
    t[k] = (now() - t0) / reps;
    h[k] = hs / reps / t[k];
  }
  qsort(t, 9, sizeof *t, cmpd);
  qsort(h, 9, sizeof *h, cmpd);
  *host_share = h[4];
  if (gexec) {
    CK(cudaGraphExecDestroy(gexec));
    gexec = NULL;
  }
  return t[4];
}

int main(int argc, char **argv)
{
  const long chunks[] = {1L << 18, 393216, 1L << 19, 655360, 1L << 20, 1L << 21};
  cudaDeviceProp p;
  double single, hs, *hx;
  unsigned long long nbad = 0;
  n = argc > 1 ? atol(argv[1]) : 1L << 25;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s, %d SMs, L2 %d MB; AXPY of %ld doubles (%.0f MB per array)\n", p.name, p.multiProcessorCount,
         p.l2CacheSize >> 20, n, 8e-6 * (double)n);
  CK(cudaMalloc(&x, n * sizeof(double)));
  CK(cudaMalloc(&y, n * sizeof(double)));
  for (int r = 0; r < 3; r++) {
    CK(cudaMalloc(&o[r], n * sizeof(double)));
    CK(cudaMalloc(&ring[r], 2 * (1L << 21) * sizeof(double)));
    CK(cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev_join[r], cudaEventDisableTiming));
    for (int k = 0; k < 2; k++)
      CK(cudaEventCreateWithFlags(&ev_rep[r][k], cudaEventDisableTiming));
  }
  for (int k = 0; k < 2; k++)
    CK(cudaEventCreateWithFlags(&ev_vote[k], cudaEventDisableTiming));
  CK(cudaMalloc(&bad, sizeof *bad));
  CK(cudaMemset(bad, 0, sizeof *bad));
  hx = (double *)malloc(n * sizeof(double));
  for (long i = 0; i < n; i++)
    hx[i] = 1.0 + 1e-3 * (double)(i % 1000);
  CK(cudaMemcpy(x, hx, n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hx, n * sizeof(double), cudaMemcpyHostToDevice));

  { /* the host's cost of the calls */
    const int m = 20000;
    double t0;
    for (int k = 0; k < 100; k++)
      k_empty<<<1, 32, 0, s[0]>>>();
    CK(cudaStreamSynchronize(s[0]));
    t0 = now();
    for (int k = 0; k < m; k++)
      k_empty<<<1, 32, 0, s[0]>>>();
    printf("host: %.2f us per kernel launch", 1e6 * (now() - t0) / m);
    CK(cudaStreamSynchronize(s[0]));
    t0 = now();
    for (int k = 0; k < m; k++) {
      CK(cudaEventRecord(ev_join[1], s[1]));
      CK(cudaStreamWaitEvent(s[0], ev_join[1], 0));
    }
    printf(", %.2f us per event record + wait\n", 1e6 * (now() - t0) / m);
    CK(cudaDeviceSynchronize());
  }

  single = timeit(S_SINGLE, 0, &hs);
  printf("%-10s %-7s %9s %9.4f ms  %5.2fx  host %3.0f %%  (%.0f GB/s)\n", names[S_SINGLE], "", "", 1e3 * single, 1.0,
         100 * hs, 24e-9 * (double)n / single);
  {
    double t = timeit(S_WHOLE, 0, &hs);
    printf("%-10s %-7s %9s %9.4f ms  %5.2fx  host %3.0f %%\n", names[S_WHOLE], "", "", 1e3 * t, t / single, 100 * hs);
  }
  for (gmode = 0; gmode < 3; gmode++)
    for (int sc = S_TURN; sc <= S_3S_FULL; sc++)
      for (unsigned c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        double t;
        if (gmode && (sc == S_3S || sc == S_3S_FULL))
          continue;
        t = timeit(sc, chunks[c], &hs);
        printf("%-10s %-7s %9ld %9.4f ms  %5.2fx  host %3.0f %%\n", names[sc], gmodes[gmode], chunks[c], 1e3 * t,
               t / single, 100 * hs);
      }
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
  printf("vote mismatches over every run: %llu (0 expected)\n", nbad);
  return nbad != 0;
}
