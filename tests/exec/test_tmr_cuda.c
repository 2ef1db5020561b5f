/* test_tmr_cuda.c — the "cuda" TMR backend on a GPU (label `cuda`).
 *
 * Exits 77, which CTest reports as skipped, when faultline was built without CUDA or when no device can run this
 * build's kernels (cudaGetDeviceCount fails with 35 on machines without a driver). On a GPU: every kernel's
 * replicas give the very bits the CPU backend gives (the kernels are built without fused multiply-adds), random
 * single flips are corrected, two corrupted replicas are uncorrectable, dual mode detects, retries recover,
 * input flips spread within one replica and are outvoted, the tolerance vote accepts benign differences, and a
 * run with more mismatches than the result can list still counts them all. */
#include "fl_config.h"
#include "fl_test.h"
#include "tmr.h"
#include "tmr_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if FL_HAVE_CUDA

enum { K_AXPY, K_CHAIN, K_DIFF, K_GW, NKERNELS };

#define N_AXPY (1L << 20)
#define N_CHAIN 2048L
#define N_GRID 256L

typedef struct kdata {
  double *x, *y, *out, *ref, change, ref_change;
  long nout;
  fl_diff diff;
  fl_gw *gw;
  fl_tmr_task task, ref_task;
} kdata;

static kdata kd[NKERNELS];
static fl_tmr *cpu;

static int setup(void)
{
  fl_tmr_config c = fl_tmr_config_default();
  c.backend = "cpu";
  if (fl_tmr_create(&c, &cpu) != FL_OK)
    return 1;
  for (int k = 0; k < NKERNELS; k++) {
    kdata *d = &kd[k];
    long nx = k == K_DIFF ? (N_GRID + 2) * N_GRID : N_AXPY;
    d->x = malloc((size_t)nx * sizeof *d->x);
    d->y = malloc((size_t)nx * sizeof *d->y);
    d->out = malloc((size_t)N_AXPY * sizeof *d->out);
    d->ref = malloc((size_t)N_AXPY * sizeof *d->ref);
    if (!d->x || !d->y || !d->out || !d->ref)
      return 1;
    for (long i = 0; i < nx; i++) {
      d->x[i] = sin(0.001 * (double)i + k) + 1.5;
      d->y[i] = cos(0.003 * (double)i) - 0.25;
    }
    switch (k) {
    case K_AXPY:
      d->task = fl_tmr_task_axpy(N_AXPY, 2.5, d->x, d->y, d->out);
      d->ref_task = fl_tmr_task_axpy(N_AXPY, 2.5, d->x, d->y, d->ref);
      break;
    case K_CHAIN:
      d->task = fl_tmr_task_chain(N_CHAIN, 100, 0.5, d->x, d->out);
      d->ref_task = fl_tmr_task_chain(N_CHAIN, 100, 0.5, d->x, d->ref);
      break;
    case K_DIFF:
      fl_diff_init(&d->diff, N_GRID);
      d->task = fl_tmr_task_diffusion(&d->diff, N_GRID, d->x, d->out);
      d->ref_task = fl_tmr_task_diffusion(&d->diff, N_GRID, d->x, d->ref);
      break;
    case K_GW:
      if (fl_gw_create(N_GRID, N_GRID, 0.9, 0.8, 3, &d->gw) != FL_OK)
        return 1;
      d->task = fl_tmr_task_gridworld(d->gw, d->x, d->out, &d->change);
      d->ref_task = fl_tmr_task_gridworld(d->gw, d->x, d->ref, &d->ref_change);
      break;
    }
    d->nout = d->task.out_n[0];
    /* the reference: the CPU backend, unprotected (test_tmr checks it equals the apps/ functions) */
    if (fl_tmr_run_plain(cpu, &d->ref_task, NULL) != FL_OK)
      return 1;
  }
  return 0;
}

static int teardown(void)
{
  for (int k = 0; k < NKERNELS; k++) {
    free(kd[k].x);
    free(kd[k].y);
    free(kd[k].out);
    free(kd[k].ref);
    fl_gw_destroy(&kd[k].gw);
  }
  fl_tmr_destroy(&cpu);
  return 0;
}

static void scramble(kdata *d)
{
  memset(d->out, 0xff, (size_t)d->nout * sizeof *d->out);
  memset(&d->change, 0xff, sizeof d->change);
}

static long diff_from_ref(const kdata *d, long skip)
{
  long bad = 0;
  for (long i = 0; i < d->nout; i++)
    if (i != skip && memcmp(&d->out[i], &d->ref[i], sizeof(double)) != 0)
      bad++;
  if (d->task.nout > 1 && memcmp(&d->change, &d->ref_change, sizeof(double)) != 0)
    bad++;
  return bad;
}

static fl_tmr *make(int replicas, fl_tmr_concurrency conc, int retries, fl_tmr_vote_mode vote, double rel)
{
  fl_tmr_config c = fl_tmr_config_default();
  fl_tmr *t = NULL;
  c.backend = "cuda";
  c.replicas = replicas;
  c.concurrency = conc;
  c.max_retries = retries;
  c.vote = vote;
  c.rel_tol = rel;
  CU_ASSERT_EQUAL_FATAL(fl_tmr_create(&c, &t), FL_OK);
  CU_ASSERT_STRING_EQUAL(fl_tmr_backend(t), "cuda");
  return t;
}

static void test_same_bits_as_cpu(void)
{
  for (int conc = 0; conc < 2; conc++) {
    fl_tmr *t = make(3, conc ? FL_TMR_CONCURRENT : FL_TMR_IN_TURN, 0, FL_TMR_VOTE_BITWISE, 0);
    for (int k = 0; k < NKERNELS; k++) {
      fl_tmr_result res;
      scramble(&kd[k]);
      CU_ASSERT_EQUAL(fl_tmr_run(t, &kd[k].task, &res), FL_OK);
      CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
      CU_ASSERT_EQUAL(diff_from_ref(&kd[k], -1), 0);
      scramble(&kd[k]);
      CU_ASSERT_EQUAL(fl_tmr_run_plain(t, &kd[k].task, NULL), FL_OK);
      CU_ASSERT_EQUAL(diff_from_ref(&kd[k], -1), 0);
    }
    fl_tmr_destroy(&t);
  }
}

static void test_single_flips(void)
{
  fl_tmr *t = make(3, FL_TMR_AUTO, 0, FL_TMR_VOTE_BITWISE, 0);
  long bad = 0;
  for (int trial = 0; trial < 1000; trial++) {
    kdata *d = &kd[trial % NKERNELS];
    fl_tmr_fault f = fl_tmr_fault_random();
    fl_tmr_result res;
    scramble(d);
    fl_tmr_inject(t, &f);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_CORRECTED || res.corrected != 1 || res.npositions != 1 ||
        res.positions[0].index != res.faults[0].element || res.positions[0].outvoted != res.faults[0].replica ||
        diff_from_ref(d, -1) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  fl_tmr_destroy(&t);
}

static void test_input_flips(void)
{
  fl_tmr *t = make(3, FL_TMR_AUTO, 0, FL_TMR_VOTE_BITWISE, 0);
  long bad = 0;
  for (int trial = 0; trial < 200; trial++) {
    kdata *d = &kd[trial % NKERNELS];
    fl_tmr_fault f = fl_tmr_fault_random();
    fl_tmr_result res;
    f.target = FL_TMR_INPUT;
    scramble(d);
    fl_tmr_inject(t, &f);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status > FL_TMR_CORRECTED || diff_from_ref(d, -1) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  fl_tmr_destroy(&t);
}

static void test_two_replicas(void)
{
  fl_tmr *t = make(3, FL_TMR_AUTO, 0, FL_TMR_VOTE_BITWISE, 0);
  long bad = 0;
  for (int trial = 0; trial < 400; trial++) {
    kdata *d = &kd[trial % NKERNELS];
    long e = (trial * 7919L) % d->nout;
    fl_tmr_fault a = fault_at(trial % 3, 0, e, trial % 64, 0), b = fault_at((trial + 1) % 3, 0, e, (trial + 5) % 64, 0);
    fl_tmr_result res;
    scramble(d);
    fl_tmr_inject(t, &a);
    fl_tmr_inject(t, &b);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_UNCORRECTABLE || res.uncorrectable != 1 || res.npositions != 1 ||
        res.positions[0].index != e || !isnan(d->out[e]) || diff_from_ref(d, e) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  fl_tmr_destroy(&t);
}

static void test_dual_retry_tolerance(void)
{
  fl_tmr *dual = make(2, FL_TMR_AUTO, 0, FL_TMR_VOTE_BITWISE, 0);
  fl_tmr *retry = make(3, FL_TMR_AUTO, 1, FL_TMR_VOTE_BITWISE, 0);
  fl_tmr *tol = make(3, FL_TMR_AUTO, 0, FL_TMR_VOTE_TOLERANCE, 1e-12);
  kdata *d = &kd[K_DIFF];
  fl_tmr_result res;
  fl_tmr_fault a = fault_at(0, 0, 1234, 2, 0), b = fault_at(1, 0, 1234, 7, 0), c = fault_at(2, 0, 99, 62, 0);
  scramble(d);
  fl_tmr_inject(dual, &a);
  CU_ASSERT_EQUAL(fl_tmr_run(dual, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_DETECTED);
  CU_ASSERT_EQUAL(res.detected, 1);
  CU_ASSERT(isnan(d->out[1234]));
  CU_ASSERT_EQUAL(diff_from_ref(d, 1234), 0);
  scramble(d);
  fl_tmr_inject(retry, &a);
  fl_tmr_inject(retry, &b);
  fl_tmr_inject(retry, &c);
  CU_ASSERT_EQUAL(fl_tmr_run(retry, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
  CU_ASSERT_EQUAL(res.attempts, 2);
  CU_ASSERT_EQUAL(res.retried, 2);
  CU_ASSERT_EQUAL(diff_from_ref(d, -1), 0);
  scramble(d);
  fl_tmr_inject(tol, &a);
  fl_tmr_inject(tol, &b);
  fl_tmr_inject(tol, &c);
  CU_ASSERT_EQUAL(fl_tmr_run(tol, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
  CU_ASSERT_EQUAL(res.benign, 1);
  CU_ASSERT_EQUAL(res.corrected, 1);
  CU_ASSERT(fabs(d->out[1234] - d->ref[1234]) <= 1e-12 * fabs(d->ref[1234]));
  CU_ASSERT_EQUAL(diff_from_ref(d, 1234), 0);
  fl_tmr_destroy(&dual);
  fl_tmr_destroy(&retry);
  fl_tmr_destroy(&tol);
}

/* More mismatches than the list holds: every one counted and corrected, FL_TMR_MAX_POSITIONS listed, in order. */
static void test_many_mismatches(void)
{
  fl_tmr *t = make(3, FL_TMR_CONCURRENT, 0, FL_TMR_VOTE_BITWISE, 0);
  kdata *d = &kd[K_AXPY];
  fl_tmr_result res;
  int sorted = 1, spaced = 1;
  for (long i = 0; i < 500; i++) {
    fl_tmr_fault f = fault_at(1, 0, i * 1000, 51, 0);
    fl_tmr_inject(t, &f);
  }
  scramble(d);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
  CU_ASSERT_EQUAL(res.corrected, 500);
  CU_ASSERT_EQUAL(res.outvoted[1], 500);
  CU_ASSERT_EQUAL(res.npositions, FL_TMR_MAX_POSITIONS);
  for (long k = 0; k < res.npositions; k++) {
    spaced &= res.positions[k].index % 1000 == 0 && res.positions[k].outvoted == 1;
    if (k > 0)
      sorted &= res.positions[k - 1].index < res.positions[k].index;
  }
  CU_ASSERT(sorted && spaced);
  CU_ASSERT_EQUAL(diff_from_ref(d, -1), 0);
  fl_tmr_destroy(&t);
}

static CU_TestInfo cuda_tests[] = {
    {"replicas on the GPU give the CPU's bits, on streams and in turn", test_same_bits_as_cpu},
    {"1,000 random single-replica flips corrected on the GPU", test_single_flips},
    {"input flips outvoted on the GPU", test_input_flips},
    {"two corrupted replicas uncorrectable on the GPU", test_two_replicas},
    {"dual detects, retry recovers, tolerance accepts benign differences", test_dual_retry_tolerance},
    {"more mismatches than the list holds: all counted, 64 listed in order", test_many_mismatches},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"tmr-cuda", setup, teardown, NULL, NULL, cuda_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  char why[256] = "";
  if (!fl_tmr_backend_available("cuda", why, sizeof why)) {
    fprintf(stderr, "test_tmr_cuda: skipped: %s\n", why);
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}

#else

int main(void)
{
  fprintf(stderr, "test_tmr_cuda: skipped: faultline was built without CUDA\n");
  return FL_TEST_SKIP;
}

#endif
