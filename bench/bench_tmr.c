/* bench_tmr.c — what triple modular redundancy costs: TMR wall time over one unprotected run of the same kernel.
 *
 * For each kernel and size, samples of the unprotected run (fl_tmr_run_plain: the backend's own kernel, once)
 * alternate with samples of the protected run (fl_tmr_run, no faults) in turn, concurrent, and as "auto" chooses;
 * each sample times enough calls to last a few milliseconds, and the figures are medians over the samples. The
 * ratio is TMR / unprotected, measured in the same run on the same machine (docs/benchmarks.md, "TMR").
 * Cases: a bandwidth-bound AXPY (8M doubles: 64 MB an array), a latency-bound small kernel (256 dependent chains
 * of multiply-adds), a tiny AXPY (4,096 doubles: fixed costs only), and the two app kernels at 1024 x 1024.
 *
 * The CPU's concurrent figures need a second core: the run prints how many cores two spinning threads get, before
 * and after, since the machine may be shared.
 *
 * usage: bench_tmr [--backend auto|cpu|cuda] [--samples N (15)] [--quick] */
#include "diffusion.h"
#include "gridworld.h"
#include "tmr.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cores this process really gets now (the machine may be shared): a fixed loop on 1 thread, then on 2. */
static void *spin(void *arg)
{
  volatile double x = 1.0;
  for (long i = 0; i < 40000000; i++)
    x = x * 0.999999 + 1e-9;
  return arg;
}

static double cores_available(void)
{
  pthread_t th[2];
  double t0 = now(), t1, t2;
  spin(NULL);
  t1 = now();
  for (int i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, spin, NULL);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  t2 = now();
  return 2.0 * (t1 - t0) / (t2 - t1);
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Seconds per call of `calls` back-to-back calls: protected (mode 0..2: in turn, concurrent, auto) or plain (-1). */
static double sample(fl_tmr *const *t, int mode, const fl_tmr_task *task, long calls, int *failed)
{
  fl_tmr_result res;
  double t0 = now();
  for (long c = 0; c < calls; c++) {
    if (mode < 0) {
      if (fl_tmr_run_plain(t[0], task, NULL) != FL_OK)
        *failed = 1;
    } else if (fl_tmr_run(t[mode], task, &res) != FL_OK || res.status != FL_TMR_CLEAN) {
      *failed = 1;
    }
  }
  return (now() - t0) / (double)calls;
}

static void bench_case(const char *label, fl_tmr *const *t, const fl_tmr_task *task, int samples)
{
  double s[4][64], m[4];
  long calls = 1;
  int failed = 0;
  /* enough calls per sample for ~5 ms of unprotected work */
  double one = sample(t, -1, task, 1, &failed);
  sample(t, 2, task, 1, &failed); /* warm-up: buffers, threads */
  if (one < 5e-3)
    calls = (long)(5e-3 / fmax(one, 1e-8)) + 1;
  for (int k = 0; k < samples; k++) {
    s[0][k] = sample(t, -1, task, calls, &failed);
    for (int mode = 0; mode < 3; mode++)
      s[mode + 1][k] = sample(t, mode, task, calls, &failed);
  }
  for (int i = 0; i < 4; i++)
    m[i] = median(s[i], samples);
  printf("%-30s %11.4g %11.4g %6.2fx %11.4g %6.2fx %11.4g %6.2fx%s\n", label, m[0] * 1e3, m[1] * 1e3, m[1] / m[0],
         m[2] * 1e3, m[2] / m[0], m[3] * 1e3, m[3] / m[0], failed ? "  (FAILED RUNS)" : "");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  const char *backend = "auto";
  int samples = 15, quick = 0;
  fl_tmr *t[3] = {NULL, NULL, NULL};
  long n_big = 8L << 20, n_grid = 1024;
  double *x = NULL, *y = NULL, *out = NULL, change;
  fl_diff diff;
  fl_gw *gw = NULL;
  fl_tmr_task task;
  int rc = 1;

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
      backend = argv[++i];
    else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
      samples = atoi(argv[++i]);
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else {
      fprintf(stderr, "usage: bench_tmr [--backend auto|cpu|cuda] [--samples N] [--quick]\n");
      return 2;
    }
  }
  if (samples < 1 || samples > 64)
    samples = 15;
  if (quick) {
    n_big = 1L << 20;
    n_grid = 256;
    samples = samples > 5 ? 5 : samples;
  }
  for (int mode = 0; mode < 3; mode++) {
    fl_tmr_config c = fl_tmr_config_default();
    c.backend = backend;
    c.concurrency = mode == 0 ? FL_TMR_IN_TURN : mode == 1 ? FL_TMR_CONCURRENT : FL_TMR_AUTO;
    c.log = mode == 0 ? stdout : NULL;
    if (fl_tmr_create(&c, &t[mode]) != FL_OK) {
      fprintf(stderr, "bench_tmr: %s\n", fl_err_msg());
      goto done;
    }
  }
  x = malloc((size_t)n_big * sizeof *x);
  y = malloc((size_t)n_big * sizeof *y);
  out = malloc((size_t)n_big * sizeof *out);
  if (!x || !y || !out || fl_gw_create(n_grid, n_grid, 0.9, 0.8, 1, &gw) != FL_OK) {
    fprintf(stderr, "bench_tmr: out of memory\n");
    goto done;
  }
  for (long i = 0; i < n_big; i++) {
    x[i] = sin(1e-3 * (double)i) + 1.5;
    y[i] = cos(3e-3 * (double)i);
  }
  printf("cores available to 2 spinning threads: %.2f (before the cases)\n", cores_available());
  printf("%d samples per figure, medians; times in ms per call; ratio = TMR / unprotected\n", samples);
  printf("%-30s %11s %11s %7s %11s %7s %11s %7s\n", "kernel", "unprotected", "in turn", "ratio", "concurrent", "ratio",
         "auto", "ratio");
  {
    char label[64];
    snprintf(label, sizeof label, "axpy %ldM (bandwidth)", n_big >> 20);
    task = fl_tmr_task_axpy(n_big, 2.5, x, y, out);
    bench_case(label, t, &task, samples);
  }
  task = fl_tmr_task_chain(256, 2000, 0.5, x, out);
  bench_case("chain 256 x 2000 (latency)", t, &task, samples);
  task = fl_tmr_task_axpy(4096, 2.5, x, y, out);
  bench_case("axpy 4096 (tiny)", t, &task, samples);
  fl_diff_init(&diff, n_grid);
  memset(x, 0, (size_t)n_grid * sizeof *x);
  memset(x + (n_grid + 1) * n_grid, 0, (size_t)n_grid * sizeof *x);
  {
    char label[64];
    snprintf(label, sizeof label, "diffusion %ldx%ld", n_grid, n_grid);
    task = fl_tmr_task_diffusion(&diff, n_grid, x, out);
    bench_case(label, t, &task, samples);
    snprintf(label, sizeof label, "gridworld %ldx%ld", n_grid, n_grid);
    memcpy(x, gw->reward, (size_t)gw->n * sizeof *x);
    task = fl_tmr_task_gridworld(gw, x, out, &change);
    bench_case(label, t, &task, samples);
  }
  printf("cores available to 2 spinning threads: %.2f (after the cases)\n", cores_available());
  rc = 0;
done:
  for (int mode = 0; mode < 3; mode++)
    fl_tmr_destroy(&t[mode]);
  fl_gw_destroy(&gw);
  free(x);
  free(y);
  free(out);
  return rc;
}
