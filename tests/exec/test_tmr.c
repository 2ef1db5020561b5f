/* test_tmr.c — triple modular redundancy on the CPU path (always run): what a caller of fl_tmr relies on.
 *
 * Single-replica bit flips are corrected and the output equals the fault-free one (1,000 random trials over the
 * four kernels, in turn and on threads); two replicas corrupted differently on one element are reported
 * uncorrectable in every trial and that element is never handed back as a value; the tolerance vote accepts
 * benign differences and rejects real ones; dual mode detects; retries recover from transient faults and give up
 * on persistent ones; backend selection, bad input, seeded injection, and the `faultline tmr` command. The
 * references are computed here with the apps/ functions, not through fl_tmr. */
#include "diffusion.h"
#include "fl_config.h"
#include "fl_test.h"
#include "gridworld.h"
#include "kernels.h"
#include "tmr.h"
#include "tmr_util.h"
#include "vote.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* ---- the four kernels on small data, with references computed directly ---- */

enum { K_AXPY, K_CHAIN, K_DIFF, K_GW, NKERNELS };

typedef struct kdata {
  double x[1000], y[1000], out[1000], ref[1000], change, ref_change; /* diffusion reads x[0 .. 26 * 24) */
  fl_diff diff;
  fl_gw *gw;
  fl_tmr_task task;
} kdata;

static kdata *kd[NKERNELS];

static int kernels_setup(void)
{
  for (int k = 0; k < NKERNELS; k++) {
    kdata *d = calloc(1, sizeof *d);
    if (!d)
      return 1;
    kd[k] = d;
    for (int i = 0; i < 1000; i++) {
      d->x[i] = sin(0.37 * i + k) + 1.5;
      d->y[i] = cos(0.11 * i) - 0.25;
    }
    switch (k) {
    case K_AXPY:
      d->task = fl_tmr_task_axpy(1000, 2.5, d->x, d->y, d->out);
      for (int i = 0; i < 1000; i++)
        d->ref[i] = 2.5 * d->x[i] + d->y[i];
      break;
    case K_CHAIN:
      d->task = fl_tmr_task_chain(64, 50, 0.5, d->x, d->out);
      for (int i = 0; i < 64; i++) {
        double t = d->x[i];
        for (int s = 0; s < 50; s++)
          t = 0.5 * t + d->x[i];
        d->ref[i] = t;
      }
      break;
    case K_DIFF:
      fl_diff_init(&d->diff, 24);
      d->task = fl_tmr_task_diffusion(&d->diff, 24, d->x, d->out);
      fl_diff_apply(&d->diff, 24, d->x, d->ref);
      break;
    case K_GW:
      if (fl_gw_create(20, 20, 0.9, 0.8, 7, &d->gw) != FL_OK)
        return 1;
      d->task = fl_tmr_task_gridworld(d->gw, d->x, d->out, &d->change);
      d->ref_change = fl_gw_sweep(d->gw, d->x, d->ref, 0, 400);
      break;
    }
  }
  return 0;
}

static int kernels_teardown(void)
{
  for (int k = 0; k < NKERNELS; k++) {
    if (kd[k])
      fl_gw_destroy(&kd[k]->gw);
    free(kd[k]);
    kd[k] = NULL;
  }
  return 0;
}

/* Outputs to garbage (NaN patterns), so that a run must write them all. */
static void scramble(kdata *d)
{
  memset(d->out, 0xff, sizeof d->out);
  memset(&d->change, 0xff, sizeof d->change);
}

/* Elements of the task's outputs that differ bitwise from the reference, except `skip` of output 0 (-1: none). */
static long diff_from_ref(const kdata *d, long skip)
{
  long bad = 0;
  for (long i = 0; i < d->task.out_n[0]; i++)
    if (i != skip && !same_bits(d->out[i], d->ref[i]))
      bad++;
  if (d->task.nout > 1 && !same_bits(d->change, d->ref_change))
    bad++;
  return bad;
}

static fl_tmr *make(int replicas, fl_tmr_concurrency conc, int retries, uint64_t seed)
{
  fl_tmr_config c = fl_tmr_config_default();
  fl_tmr *t = NULL;
  c.backend = "cpu";
  c.replicas = replicas;
  c.concurrency = conc;
  c.max_retries = retries;
  c.seed = seed;
  CU_ASSERT_EQUAL_FATAL(fl_tmr_create(&c, &t), FL_OK);
  return t;
}

/* ---- fault-free runs equal the apps/ functions ---- */

static void test_clean_runs_match_apps(void)
{
  for (int conc = 0; conc < 2; conc++) {
    fl_tmr *t = make(3, conc ? FL_TMR_CONCURRENT : FL_TMR_IN_TURN, 0, 1);
    for (int k = 0; k < NKERNELS; k++) {
      fl_tmr_result res;
      double tp = -1;
      scramble(kd[k]);
      CU_ASSERT_EQUAL(fl_tmr_run(t, &kd[k]->task, &res), FL_OK);
      CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
      CU_ASSERT_EQUAL(res.attempts, 1);
      CU_ASSERT_EQUAL(res.corrected + res.uncorrectable + res.benign + res.npositions + res.nfaults, 0);
      CU_ASSERT_EQUAL(diff_from_ref(kd[k], -1), 0);
      scramble(kd[k]);
      CU_ASSERT_EQUAL(fl_tmr_run_plain(t, &kd[k]->task, &tp), FL_OK);
      CU_ASSERT(tp >= 0);
      CU_ASSERT_EQUAL(diff_from_ref(kd[k], -1), 0);
    }
    fl_tmr_destroy(&t);
    CU_ASSERT_PTR_NULL(t);
  }
}

/* ---- the first criterion: 1,000 random single-replica flips, all corrected, output == fault-free ---- */

static void test_single_flips_corrected(void)
{
  fl_tmr *t[2];
  long bad_status = 0, bad_output = 0, bad_report = 0, per_replica[3] = {0, 0, 0}, high_bits = 0;
  t[0] = make(3, FL_TMR_IN_TURN, 0, 42);
  t[1] = make(3, FL_TMR_CONCURRENT, 0, 43);
  for (int trial = 0; trial < 1000; trial++) {
    kdata *d = kd[trial % NKERNELS];
    fl_tmr *tt = t[(trial / NKERNELS) % 2];
    fl_tmr_fault f = fl_tmr_fault_random(); /* replica, output array, element and bit all drawn */
    fl_tmr_result res;
    scramble(d);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_inject(tt, &f), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(tt, &d->task, &res), FL_OK);
    CU_ASSERT_EQUAL_FATAL(res.nfaults, 1);
    if (res.status != FL_TMR_CORRECTED || res.corrected != 1 || res.uncorrectable != 0 || res.attempts != 1)
      bad_status++;
    if (res.npositions != 1 || res.positions[0].array != res.faults[0].array ||
        res.positions[0].index != res.faults[0].element || res.positions[0].outvoted != res.faults[0].replica ||
        res.outvoted[res.faults[0].replica] != 1)
      bad_report++;
    if (diff_from_ref(d, -1) != 0)
      bad_output++;
    per_replica[res.faults[0].replica]++;
    high_bits += res.faults[0].bit >= 52;
  }
  CU_ASSERT_EQUAL(bad_status, 0);
  CU_ASSERT_EQUAL(bad_report, 0);
  CU_ASSERT_EQUAL(bad_output, 0);
  /* the draws did cover every replica and both mantissa and exponent/sign bits */
  CU_ASSERT(per_replica[0] > 250 && per_replica[1] > 250 && per_replica[2] > 250);
  CU_ASSERT(high_bits > 100 && high_bits < 300);
  fl_tmr_destroy(&t[0]);
  fl_tmr_destroy(&t[1]);
}

/* A flip in one replica's private input copy spreads to several of its outputs (the matvec reads 5 inputs per
 * output): all of them are outvoted, and the shared input is never touched. */
static void test_input_flips_corrected(void)
{
  fl_tmr *t = make(3, FL_TMR_AUTO, 0, 5);
  long bad = 0, multi = 0, corrupted_input = 0;
  for (int trial = 0; trial < 400; trial++) {
    kdata *d = kd[trial % NKERNELS];
    fl_tmr_fault f = fl_tmr_fault_random();
    fl_tmr_result res;
    double xcopy[1000];
    memcpy(xcopy, d->x, sizeof xcopy);
    f.target = FL_TMR_INPUT;
    scramble(d);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_inject(t, &f), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status > FL_TMR_CORRECTED || res.uncorrectable != 0 || diff_from_ref(d, -1) != 0)
      bad++;
    if (res.corrected >= 2 && res.outvoted[res.faults[0].replica] == res.corrected)
      multi++;
    corrupted_input += memcmp(xcopy, d->x, sizeof xcopy) != 0;
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(multi > 50);
  CU_ASSERT_EQUAL(corrupted_input, 0);
  fl_tmr_destroy(&t);
}

/* Larger tasks: the in-turn schedule works in chunks of 8,192 output elements (FL_TMR_CPU_CHUNK); faults at and
 * around chunk boundaries, a matvec input flip whose rows straddle two chunks, the grid world's change (reduced
 * over chunks), all against the apps/ functions called directly. */
static void test_chunk_boundaries(void)
{
  const long nx = 20000, side = 150, grid = 200;
  double *x = malloc((size_t)(grid + 2) * grid * sizeof *x), *y = malloc((size_t)nx * sizeof *y);
  double *out = malloc((size_t)grid * grid * sizeof *out), *ref = malloc((size_t)grid * grid * sizeof *ref);
  double change = 0, ref_change = 0;
  fl_diff diff;
  fl_gw *gw = NULL;
  CU_ASSERT_FATAL(x && y && out && ref);
  CU_ASSERT_EQUAL_FATAL(fl_gw_create(side, side, 0.9, 0.8, 11, &gw), FL_OK);
  for (long i = 0; i < (grid + 2) * grid; i++)
    x[i] = sin(0.01 * (double)i) + 1.25;
  for (long i = 0; i < nx; i++)
    y[i] = cos(0.02 * (double)i);
  fl_diff_init(&diff, grid);
  for (int conc = 0; conc < 2; conc++) {
    fl_tmr *t = make(3, conc ? FL_TMR_CONCURRENT : FL_TMR_IN_TURN, 0, 1);
    for (int k = 0; k < 3; k++) {
      fl_tmr_task task;
      long n, bad = 0;
      fl_tmr_result res;
      const long at[] = {0, 1023, 1024, 8191, 8192, 16383, 16384, -1}; /* chunks of 1,024 and more */
      if (k == 0) {
        task = fl_tmr_task_axpy(nx, -1.5, x, y, out);
        for (long i = 0; i < nx; i++)
          ref[i] = -1.5 * x[i] + y[i];
      } else if (k == 1) {
        task = fl_tmr_task_diffusion(&diff, grid, x, out);
        fl_diff_apply(&diff, grid, x, ref);
      } else {
        task = fl_tmr_task_gridworld(gw, x, out, &change);
        ref_change = fl_gw_sweep(gw, x, ref, 0, gw->n);
      }
      n = task.out_n[0];
      /* clean */
      CU_ASSERT_EQUAL(fl_tmr_run(t, &task, &res), FL_OK);
      CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
      CU_ASSERT_EQUAL(memcmp(out, ref, (size_t)n * sizeof *out), 0);
      if (k == 2)
        CU_ASSERT(same_bits(change, ref_change));
      /* one flip per boundary element, rotating over the replicas: all corrected, listed in index order */
      for (int j = 0; j < 8; j++) {
        fl_tmr_fault f = fault_at(j % 3, 0, at[j] < 0 ? n - 1 : at[j], 3 + 7 * j, 0);
        fl_tmr_inject(t, &f);
      }
      CU_ASSERT_EQUAL(fl_tmr_run(t, &task, &res), FL_OK);
      CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
      CU_ASSERT_EQUAL(res.corrected, 8);
      CU_ASSERT_EQUAL(res.npositions, 8);
      for (int j = 0; j < 8 && j < res.npositions; j++)
        bad += res.positions[j].index != (at[j] < 0 ? n - 1 : at[j]) || res.positions[j].outvoted != j % 3;
      CU_ASSERT_EQUAL(bad, 0);
      CU_ASSERT_EQUAL(memcmp(out, ref, (size_t)n * sizeof *out), 0);
      /* two replicas on a boundary element */
      {
        fl_tmr_fault a = fault_at(0, 0, 8192, 1, 0), b = fault_at(1, 0, 8192, 2, 0);
        fl_tmr_inject(t, &a);
        fl_tmr_inject(t, &b);
        CU_ASSERT_EQUAL(fl_tmr_run(t, &task, &res), FL_OK);
        CU_ASSERT_EQUAL(res.status, FL_TMR_UNCORRECTABLE);
        CU_ASSERT(isnan(out[8192]));
        out[8192] = ref[8192];
        CU_ASSERT_EQUAL(memcmp(out, ref, (size_t)n * sizeof *out), 0);
      }
      if (k == 1) {
        /* x_halo row 41 is read by output rows 39, 40 and 41, across a chunk boundary (5-row chunks in turn) */
        fl_tmr_fault f = {.replica = 2, .target = FL_TMR_INPUT, .array = 0, .element = 41 * grid + 7, .bit = 55};
        fl_tmr_inject(t, &f);
        CU_ASSERT_EQUAL(fl_tmr_run(t, &task, &res), FL_OK);
        CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
        CU_ASSERT_EQUAL(res.outvoted[2], 5); /* the point itself, two neighbours in its row, one above, one below */
        CU_ASSERT_EQUAL(memcmp(out, ref, (size_t)n * sizeof *out), 0);
      }
      if (k == 2) {
        /* the change output, a reduction over the chunks */
        fl_tmr_fault f = fault_at(1, 1, 0, 62, 0);
        fl_tmr_inject(t, &f);
        CU_ASSERT_EQUAL(fl_tmr_run(t, &task, &res), FL_OK);
        CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
        CU_ASSERT(res.npositions == 1 && res.positions[0].array == 1);
        CU_ASSERT(same_bits(change, ref_change));
      }
    }
    fl_tmr_destroy(&t);
  }
  fl_gw_destroy(&gw);
  free(x);
  free(y);
  free(out);
  free(ref);
}

/* ---- the second criterion: two corrupted replicas on one element, uncorrectable every time ---- */

static void test_two_replicas_uncorrectable(void)
{
  fl_tmr *t[2];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  long bad = 0;
  t[0] = make(3, FL_TMR_IN_TURN, 0, 1);
  t[1] = make(3, FL_TMR_CONCURRENT, 0, 2);
  gsl_rng_set(rng, 2026);
  for (int trial = 0; trial < 1000; trial++) {
    kdata *d = kd[trial % NKERNELS];
    fl_tmr *tt = t[trial % 2];
    long e = (long)gsl_rng_uniform_int(rng, (unsigned long)d->task.out_n[0]);
    int r1 = (int)gsl_rng_uniform_int(rng, 3), r2 = (r1 + 1 + (int)gsl_rng_uniform_int(rng, 2)) % 3;
    int b1 = (int)gsl_rng_uniform_int(rng, 64), b2 = (b1 + 1 + (int)gsl_rng_uniform_int(rng, 63)) % 64;
    fl_tmr_fault f1 = fault_at(r1, 0, e, b1, 0), f2 = fault_at(r2, 0, e, b2, 0);
    fl_tmr_result res;
    scramble(d);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_inject(tt, &f1), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_inject(tt, &f2), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(tt, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_UNCORRECTABLE || res.uncorrectable != 1 || res.corrected != 0 || res.npositions != 1 ||
        res.positions[0].index != e || res.positions[0].outvoted != -1 || !isnan(d->out[e]) || diff_from_ref(d, e) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  gsl_rng_free(rng);
  fl_tmr_destroy(&t[0]);
  fl_tmr_destroy(&t[1]);
}

/* The limit TMR cannot pass: two replicas corrupted into the same bits outvote the good one (docs/tmr.md). */
static void test_identical_corruption_outvotes(void)
{
  fl_tmr *t = make(3, FL_TMR_IN_TURN, 0, 1);
  kdata *d = kd[K_AXPY];
  fl_tmr_fault f1 = fault_at(1, 0, 17, 40, 0), f2 = fault_at(2, 0, 17, 40, 0);
  fl_tmr_result res;
  double wrong = d->ref[17];
  uint64_t u;
  memcpy(&u, &wrong, sizeof u);
  u ^= (uint64_t)1 << 40;
  memcpy(&wrong, &u, sizeof u);
  fl_tmr_inject(t, &f1);
  fl_tmr_inject(t, &f2);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
  CU_ASSERT_EQUAL(res.outvoted[0], 1);
  CU_ASSERT(same_bits(d->out[17], wrong));
  fl_tmr_destroy(&t);
}

/* ---- the tolerance vote ---- */

static void test_vote_element(void)
{
  fl_tmr_vote_params rel = {3, 1, 0.0, 1e-9}, abs = {3, 1, 1e-6, 0.0}, wide = {3, 1, 1.0, 0.0}, bit = {3, 0, 0, 0};
  fl_tmr_vote_params dual = {2, 1, 0.0, 1e-9};
  double v;
  int o;
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.0, 1.0, &rel, &v, &o), FL_TMR_V_EQUAL);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.0 + 1e-12, 1.0 - 1e-12, &rel, &v, &o), FL_TMR_V_BENIGN);
  CU_ASSERT(v == 1.0);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.0 + 1e-12, 1.0 - 1e-12, &bit, &v, &o), FL_TMR_V_NOMAJORITY);
  CU_ASSERT(isnan(v));
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.0 + 1e-12, 2.0, &rel, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(v == 1.0 && o == 2);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(2.0, 1.0, 1.0 + 1e-12, &rel, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(v == 1.0 && o == 0);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.001, 1.0 + 1e-12, &rel, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(v == 1.0 && o == 1);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 2.0, 3.0, &rel, &v, &o), FL_TMR_V_NOMAJORITY);
  CU_ASSERT(isnan(v) && o == -1);
  /* NaN agrees with nothing but its own bits; infinities agree bitwise */
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(NAN, 1.0, 1.0, &rel, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(v == 1.0 && o == 0);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(INFINITY, INFINITY, 1.0, &rel, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(isinf(v) && o == 2);
  /* near zero a relative tolerance rejects what an absolute one accepts */
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(0.0, 1e-7, -1e-7, &abs, &v, &o), FL_TMR_V_BENIGN);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(0.0, 1e-7, -1e-7, &rel, &v, &o), FL_TMR_V_NOMAJORITY);
  /* not transitive: 0 ~ 0.9 ~ 1.8 but not 0 ~ 1.8: a majority, nobody singled out */
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(0.0, 0.9, 1.8, &wide, &v, &o), FL_TMR_V_CORRECTED);
  CU_ASSERT(v == 0.0 && o == -1);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.0 + 1e-12, 0.0, &dual, &v, &o), FL_TMR_V_BENIGN);
  CU_ASSERT_EQUAL(fl_tmr_vote_elem(1.0, 1.5, 1.0, &dual, &v, &o), FL_TMR_V_NOMAJORITY);
  CU_ASSERT(isnan(v));
}

static void test_tolerance_vote(void)
{
  fl_tmr_config c = fl_tmr_config_default();
  fl_tmr *tol = NULL, *bitwise = make(3, FL_TMR_IN_TURN, 0, 3);
  kdata *d = kd[K_AXPY];
  fl_tmr_result res;
  long bad = 0;
  c.backend = "cpu";
  c.vote = FL_TMR_VOTE_TOLERANCE;
  c.rel_tol = 1e-12;
  CU_ASSERT_EQUAL_FATAL(fl_tmr_create(&c, &tol), FL_OK);
  for (int trial = 0; trial < 200; trial++) {
    long e = (trial * 37) % 1000;
    int b1 = trial % 10, b2 = (trial + 3) % 10; /* low mantissa bits: relative change <= 2^-43 */
    fl_tmr_fault f1 = fault_at(trial % 3, 0, e, b1, 0), f2 = fault_at((trial + 1) % 3, 0, e, b2, 0);
    /* benign: accepted, output within the tolerance of the fault-free value, nothing else touched */
    scramble(d);
    fl_tmr_inject(tol, &f1);
    fl_tmr_inject(tol, &f2);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(tol, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_CLEAN || res.benign != 1 || res.corrected != 0 || res.npositions != 0 ||
        !(fabs(d->out[e] - d->ref[e]) <= 1e-12 * fabs(d->ref[e])) || diff_from_ref(d, e) != 0)
      bad++;
    /* the same corruption under the bitwise vote has no majority */
    scramble(d);
    fl_tmr_inject(bitwise, &f1);
    fl_tmr_inject(bitwise, &f2);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(bitwise, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_UNCORRECTABLE || !isnan(d->out[e]))
      bad++;
    /* real differences are rejected: an exponent flip is outvoted exactly ... */
    f1.bit = 52 + trial % 11;
    scramble(d);
    fl_tmr_inject(tol, &f1);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(tol, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_CORRECTED || res.corrected != 1 || res.benign != 0 || diff_from_ref(d, -1) != 0)
      bad++;
    /* ... and two of them leave no majority */
    f2.bit = 63;
    scramble(d);
    fl_tmr_inject(tol, &f1);
    fl_tmr_inject(tol, &f2);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(tol, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_UNCORRECTABLE || res.uncorrectable != 1 || !isnan(d->out[e]) || diff_from_ref(d, e) != 0)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  fl_tmr_destroy(&tol);
  fl_tmr_destroy(&bitwise);
}

/* ---- dual mode, retries ---- */

static void test_dual_detects(void)
{
  fl_tmr *t = make(2, FL_TMR_AUTO, 0, 9);
  long bad = 0;
  fl_tmr_result res;
  fl_tmr_fault f = fault_at(2, 0, 0, 0, 0);
  for (int trial = 0; trial < 400; trial++) {
    kdata *d = kd[trial % NKERNELS];
    fl_tmr_fault r = fl_tmr_fault_random();
    scramble(d);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_CLEAN || diff_from_ref(d, -1) != 0)
      bad++;
    r.array = 0;
    scramble(d);
    fl_tmr_inject(t, &r);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run(t, &d->task, &res), FL_OK);
    if (res.status != FL_TMR_DETECTED || res.detected != 1 || res.corrected != 0 || res.npositions != 1 ||
        res.positions[0].index != res.faults[0].element || !isnan(d->out[res.faults[0].element]) ||
        diff_from_ref(d, res.faults[0].element) != 0 || res.faults[0].replica > 1)
      bad++;
  }
  CU_ASSERT_EQUAL(bad, 0);
  /* there is no third replica to corrupt */
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &kd[K_AXPY]->task, &res), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "replica 2"));
  fl_tmr_destroy(&t);
}

static void test_retry(void)
{
  fl_tmr *t = make(3, FL_TMR_IN_TURN, 2, 1), *dual = make(2, FL_TMR_IN_TURN, 1, 1);
  kdata *d = kd[K_DIFF];
  fl_tmr_result res;
  fl_tmr_fault a = fault_at(0, 0, 100, 3, 0), b = fault_at(2, 0, 100, 60, 0);
  /* a transient disagreement without a majority: the retry runs clean */
  scramble(d);
  fl_tmr_inject(t, &a);
  fl_tmr_inject(t, &b);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
  CU_ASSERT_EQUAL(res.attempts, 2);
  CU_ASSERT_EQUAL(res.retried, 1);
  CU_ASSERT_EQUAL(res.nfaults, 2);
  CU_ASSERT_EQUAL(diff_from_ref(d, -1), 0);
  /* a persistent one: every attempt fails, the element stays flagged */
  a.persistent = b.persistent = 1;
  scramble(d);
  fl_tmr_inject(t, &a);
  fl_tmr_inject(t, &b);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_UNCORRECTABLE);
  CU_ASSERT_EQUAL(res.attempts, 3);
  CU_ASSERT_EQUAL(res.retried, 2);
  CU_ASSERT_EQUAL(res.nfaults, 6);
  CU_ASSERT_EQUAL(res.nlisted, 6);
  CU_ASSERT_EQUAL(res.faults[5].attempt, 2);
  CU_ASSERT(isnan(d->out[100]));
  CU_ASSERT_EQUAL(diff_from_ref(d, 100), 0);
  /* a corrected element is not a reason to retry */
  a.persistent = 0;
  fl_tmr_inject(t, &a);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
  CU_ASSERT_EQUAL(res.attempts, 1);
  CU_ASSERT_EQUAL(diff_from_ref(d, -1), 0);
  /* dual: a transient mismatch is retried away; a persistent one stays detected */
  scramble(d);
  fl_tmr_inject(dual, &a);
  CU_ASSERT_EQUAL(fl_tmr_run(dual, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
  CU_ASSERT_EQUAL(res.attempts, 2);
  CU_ASSERT_EQUAL(diff_from_ref(d, -1), 0);
  a.persistent = 1;
  fl_tmr_inject(dual, &a);
  CU_ASSERT_EQUAL(fl_tmr_run(dual, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_DETECTED);
  CU_ASSERT_EQUAL(res.attempts, 2);
  CU_ASSERT(isnan(d->out[100]));
  fl_tmr_destroy(&t);
  fl_tmr_destroy(&dual);
}

/* ---- backends, selection, conformance ---- */

static void test_backends(void)
{
  char why[256];
  fl_tmr_config c = fl_tmr_config_default();
  fl_tmr *t = NULL;
  FILE *log = tmpfile();
  char line[512] = "";
  int cuda_here = fl_tmr_backend_available("cuda", why, sizeof why);

  CU_ASSERT_PTR_NOT_NULL_FATAL(log);
  CU_ASSERT_EQUAL(fl_tmr_backend_count(), 2);
  CU_ASSERT_STRING_EQUAL(fl_tmr_backend_name(0), "cuda");
  CU_ASSERT_STRING_EQUAL(fl_tmr_backend_name(1), "cpu");
  CU_ASSERT_PTR_NULL(fl_tmr_backend_name(2));
  CU_ASSERT(fl_tmr_backend_available("cpu", NULL, 0));
  if (!FL_HAVE_CUDA)
    CU_ASSERT(!cuda_here && strstr(why, "not compiled in"));
  /* auto: CUDA when it can run, else the CPU, and one line saying which and why */
  c.log = log;
  CU_ASSERT_EQUAL_FATAL(fl_tmr_create(&c, &t), FL_OK);
  CU_ASSERT_STRING_EQUAL(fl_tmr_backend(t), cuda_here ? "cuda" : "cpu");
  rewind(log);
  CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, log));
  CU_ASSERT_PTR_NOT_NULL(strstr(line, cuda_here ? "tmr backend cuda (auto" : "tmr backend cpu (auto"));
  if (!cuda_here)
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_tmr_backend_reason(t), "cuda unavailable"));
  fl_tmr_destroy(&t);
  fclose(log);
  /* unknown or unavailable: bad input, naming the known ones or the reason */
  c.log = NULL;
  c.backend = "opencl";
  CU_ASSERT_EQUAL(fl_tmr_create(&c, &t), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "known: auto, cuda, cpu"));
  if (!cuda_here) {
    c.backend = "cuda";
    CU_ASSERT_EQUAL(fl_tmr_create(&c, &t), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "cannot run here"));
  }
  /* conformance: every backend that can run here runs every kernel and corrects a flip */
  for (int i = 0; i < fl_tmr_backend_count(); i++) {
    if (!fl_tmr_backend_available(fl_tmr_backend_name(i), NULL, 0))
      continue;
    c.backend = fl_tmr_backend_name(i);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_create(&c, &t), FL_OK);
    for (int k = 0; k < NKERNELS; k++) {
      fl_tmr_result res;
      fl_tmr_fault f = fl_tmr_fault_random();
      scramble(kd[k]);
      fl_tmr_inject(t, &f);
      CU_ASSERT_EQUAL(fl_tmr_run(t, &kd[k]->task, &res), FL_OK);
      CU_ASSERT_EQUAL(res.status, FL_TMR_CORRECTED);
      CU_ASSERT_EQUAL(diff_from_ref(kd[k], -1), 0);
    }
    fl_tmr_destroy(&t);
  }
}

/* ---- bad input ---- */

static void test_bad_input(void)
{
  fl_tmr *t = make(3, FL_TMR_AUTO, 0, 1), *t2 = NULL;
  fl_tmr_config c = fl_tmr_config_default();
  fl_tmr_result res;
  double buf[100];
  fl_tmr_task k;
  fl_tmr_fault f;
  kdata *d = kd[K_AXPY];

  for (int i = 0; i < 100; i++)
    buf[i] = i;
  /* an output overlapping an input, or another output */
  k = fl_tmr_task_axpy(50, 1.0, buf, buf + 50, buf + 25);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &k, &res), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "overlaps input"));
  CU_ASSERT(buf[25] == 25.0); /* nothing ran */
  k = fl_tmr_task_gridworld(kd[K_GW]->gw, kd[K_GW]->x, kd[K_GW]->out, &kd[K_GW]->out[3]);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &k, &res), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "outputs 0 and 1 overlap"));
  k = fl_tmr_task_axpy(0, 1.0, buf, buf + 50, d->out);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &k, &res), FL_ERR_INPUT);
  k = fl_tmr_task_diffusion(NULL, 3, buf, d->out);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &k, &res), FL_ERR_INPUT);
  /* faults out of range, checked when the run starts; the queue is emptied all the same */
  f = fault_at(3, 0, 0, 0, 0);
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_ERR_INPUT);
  f = fault_at(0, 0, 1000, 0, 0);
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "element 1000"));
  f = fault_at(0, 0, 0, 64, 0);
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_ERR_INPUT);
  f = fault_at(0, 1, 0, 0, 0);
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_ERR_INPUT);
  f.target = FL_TMR_INPUT;
  f.array = 2;
  fl_tmr_inject(t, &f);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_tmr_run(t, &d->task, &res), FL_OK);
  CU_ASSERT_EQUAL(res.status, FL_TMR_CLEAN);
  CU_ASSERT_EQUAL(res.nfaults, 0);
  CU_ASSERT_EQUAL(fl_tmr_inject_sdc(t, -1.0, FL_TMR_OUTPUT, NULL), FL_ERR_INPUT);
  /* bad configurations */
  c.replicas = 4;
  CU_ASSERT_EQUAL(fl_tmr_create(&c, &t2), FL_ERR_INPUT);
  c.replicas = 3;
  c.rel_tol = -1;
  CU_ASSERT_EQUAL(fl_tmr_create(&c, &t2), FL_ERR_INPUT);
  c.rel_tol = NAN;
  CU_ASSERT_EQUAL(fl_tmr_create(&c, &t2), FL_ERR_INPUT);
  c.rel_tol = 0;
  c.max_retries = -1;
  CU_ASSERT_EQUAL(fl_tmr_create(&c, &t2), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(t2);
  /* destroy takes NULL and NULLs the handle */
  fl_tmr_destroy(&t);
  CU_ASSERT_PTR_NULL(t);
  fl_tmr_destroy(&t);
  fl_tmr_destroy(NULL);
}

/* ---- seeded injection ---- */

static void test_seeded(void)
{
  fl_tmr *a = make(3, FL_TMR_IN_TURN, 0, 77), *b = make(3, FL_TMR_IN_TURN, 0, 77), *c = make(3, FL_TMR_IN_TURN, 0, 78);
  fl_tmr_result ra, rb, rc;
  long n, total = 0, same_c = 0;
  for (int i = 0; i < 10; i++) {
    fl_tmr_fault f = fl_tmr_fault_random();
    fl_tmr_inject(a, &f);
    fl_tmr_inject(b, &f);
    fl_tmr_inject(c, &f);
  }
  fl_tmr_run(a, &kd[K_AXPY]->task, &ra);
  fl_tmr_run(b, &kd[K_AXPY]->task, &rb);
  fl_tmr_run(c, &kd[K_AXPY]->task, &rc);
  CU_ASSERT_EQUAL(ra.nlisted, 10);
  for (int i = 0; i < 10; i++) {
    CU_ASSERT(ra.faults[i].replica == rb.faults[i].replica && ra.faults[i].element == rb.faults[i].element &&
              ra.faults[i].bit == rb.faults[i].bit);
    same_c += ra.faults[i].element == rc.faults[i].element && ra.faults[i].bit == rc.faults[i].bit;
  }
  CU_ASSERT(same_c < 3);
  /* reseeding replays: (seed, replica) -> the same draws */
  fl_tmr_seed(a, 5, 3);
  fl_tmr_seed(b, 5, 3);
  CU_ASSERT_EQUAL(fl_tmr_inject_sdc(a, 4.0, FL_TMR_OUTPUT, &n), FL_OK);
  CU_ASSERT_EQUAL(fl_tmr_inject_sdc(b, 4.0, FL_TMR_OUTPUT, &total), FL_OK);
  CU_ASSERT_EQUAL(n, total);
  fl_tmr_run(a, &kd[K_AXPY]->task, &ra);
  fl_tmr_run(b, &kd[K_AXPY]->task, &rb);
  CU_ASSERT_EQUAL(ra.nfaults, n);
  CU_ASSERT_EQUAL(ra.nlisted, rb.nlisted);
  for (long i = 0; i < ra.nlisted && i < rb.nlisted; i++)
    CU_ASSERT(ra.faults[i].replica == rb.faults[i].replica && ra.faults[i].array == rb.faults[i].array &&
              ra.faults[i].element == rb.faults[i].element && ra.faults[i].bit == rb.faults[i].bit);
  /* the SDC count is Poisson with the given mean */
  total = 0;
  for (int i = 0; i < 4000; i++) {
    fl_tmr_inject_sdc(c, 2.5, FL_TMR_OUTPUT, &n);
    total += n;
    fl_tmr_run(c, &kd[K_CHAIN]->task, &rc);
    CU_ASSERT_EQUAL(rc.nfaults, n);
  }
  CU_ASSERT_DOUBLE_EQUAL((double)total / 4000.0, 2.5, 0.1);
  fl_tmr_destroy(&a);
  fl_tmr_destroy(&b);
  fl_tmr_destroy(&c);
}

/* ---- faultline tmr ---- */

static int faultline(const char *args, char *err, size_t errlen)
{
  char cmd[4096];
  const char *bin = getenv("FAULTLINE");
  int st;
  FILE *f;
  size_t n;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' tmr %s >out.txt 2>err.txt </dev/null", fl_test_tmpdir(), bin, args);
  st = system(cmd);
  err[0] = '\0';
  if ((f = fopen(fl_test_tmp("err.txt"), "r"))) {
    n = fread(err, 1, errlen - 1, f);
    err[n] = '\0';
    fclose(f);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static long query(const char *db, const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  long v = -1;
  if (sqlite3_open_v2(fl_test_tmp(db), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

static void test_cli(void)
{
  static const char *bad[] = {
      "--kernel nope",
      "--trials 0",
      "--n 1.5",
      "--vote rel=x",
      "--vote tol",
      "--sdc -1",
      "--mode triple",
      "--target memory",
      "--backend opencl",
      "--retries 2000",
      "--concurrency maybe",
      "extra",
      "--kernel",
      "--kernel gridworld --n 30000",
  };
  char err[4096], args[256];
  struct stat sb;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "%s --db bad.sqlite", bad[i]);
    CU_ASSERT_EQUAL(faultline(args, err, sizeof err), 2);
    CU_ASSERT_EQUAL(strchr(err, '\n') ? (size_t)(strchr(err, '\n') - err + 1) : 0, strlen(err)); /* one line */
    CU_ASSERT(stat(fl_test_tmp("bad.sqlite"), &sb) != 0);
  }
  if (!fl_tmr_backend_available("cuda", NULL, 0)) {
    CU_ASSERT_EQUAL(faultline("--backend cuda --db bad.sqlite", err, sizeof err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot run here"));
    CU_ASSERT(stat(fl_test_tmp("bad.sqlite"), &sb) != 0);
  }
  /* a study: one real row per trial, every injected fault an sdc event, one vote event per trial */
  CU_ASSERT_EQUAL(faultline("--kernel diffusion --n 40 --trials 12 --sdc 3 --seed 4 --db tmr.sqlite", err, sizeof err),
                  0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "tmr backend"));
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM runs WHERE mode = 'real' AND app = 'kernel:diffusion'"
                                      " AND strategy = 'tmr' AND failure_model = 'sdc' AND status = 'completed'"
                                      " AND error_linf = 0 AND nodes = 1600 AND work_s > 0 AND makespan_s > 0"),
                  12);
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'vote'"), 12);
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'sdc'"),
                  query("tmr.sqlite", "SELECT sum(failures) FROM runs"));
  CU_ASSERT(query("tmr.sqlite", "SELECT sum(failures) FROM runs") > 12);
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM events_text WHERE kind = 'vote' AND detail LIKE"
                                      " 'corrected % uncorrectable 0 benign 0 attempts 1'"),
                  12);
  /* so many flips on so few elements that some have no majority: those trials are failed rows that say how many
   * elements were lost; the others completed with none lost */
  CU_ASSERT_EQUAL(
      faultline("--kernel axpy --n 8 --trials 10 --sdc 12 --db tmr.sqlite --name storm -q", err, sizeof err), 0);
  CU_ASSERT(query("tmr.sqlite", "SELECT count(*) FROM runs WHERE scenario = 'storm' AND status = 'failed'"
                                " AND interruptions > 0") > 0);
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM runs WHERE scenario = 'storm' AND"
                                      " (status = 'failed') <> (interruptions > 0)"),
                  0);
  CU_ASSERT_EQUAL(query("tmr.sqlite", "SELECT count(*) FROM runs WHERE scenario = 'storm'"), 10);
}

/* ---- the GPU's element functions (kernels.h), run on the host ---- */

/* The GPU reduces the sweep's change with atomicMax on bit patterns, skipping NaNs: the same reduction here. */
static double gpu_change_max(double acc, double ch)
{
  if (isnan(ch))
    return acc;
  return fl_tmr_bits(ch) > fl_tmr_bits(acc) ? ch : acc;
}

static void test_gpu_element_functions(void)
{
  const long n = 70000, grid = 257, rows = 190, cols = 230, nx = n > (grid + 2) * grid ? n : (grid + 2) * grid;
  double *x = malloc((size_t)nx * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *ref = malloc((size_t)n * sizeof *ref), *in = malloc((size_t)rows * cols * sizeof *in);
  long bad = 0;
  fl_diff diff;
  CU_ASSERT_FATAL(x && y && ref && in);
  for (long i = 0; i < nx; i++)
    x[i] = sin(0.37 * (double)i) * 3.0 + 0.125 * (double)(i % 7);
  for (long i = 0; i < n; i++)
    y[i] = cos(0.011 * (double)i) / 3.0;
  /* AXPY and the chain against the CPU backend's unprotected kernels */
  {
    fl_tmr *t = make(3, FL_TMR_IN_TURN, 0, 1);
    fl_tmr_task task = fl_tmr_task_axpy(n, -0.7, x, y, ref);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run_plain(t, &task, NULL), FL_OK);
    for (long i = 0; i < n; i++)
      bad += !same_bits(fl_tmr_k_axpy(i, -0.7, x, y), ref[i]);
    task = fl_tmr_task_chain(5000, 37, 0.999, x, ref);
    CU_ASSERT_EQUAL_FATAL(fl_tmr_run_plain(t, &task, NULL), FL_OK);
    for (long i = 0; i < 5000; i++)
      bad += !same_bits(fl_tmr_k_chain(i, 37, 0.999, x), ref[i]);
    fl_tmr_destroy(&t);
    CU_ASSERT_EQUAL(bad, 0);
  }
  /* the matvec on a block of rows with halos (odd n: rows do not align with anything) */
  {
    fl_tmr_k_diff c;
    fl_diff_init(&diff, grid);
    c = fl_tmr_k_diff_coeffs(&diff);
    fl_diff_apply(&diff, grid, x, ref);
    bad = 0;
    for (long i = 0; i < grid * grid; i++)
      bad += !same_bits(fl_tmr_k_diffusion(i, &c, x), ref[i]);
    CU_ASSERT_EQUAL(bad, 0);
  }
  /* the sweep, with the best move's weight positive (max) and negative (min), a NaN state, and its change */
  for (int variant = 0; variant < 2; variant++) {
    fl_gw *gw = NULL;
    fl_tmr_k_gw c;
    double change_ref, change = 0.0;
    CU_ASSERT_EQUAL_FATAL(fl_gw_create(rows, cols, 0.95, variant ? 0.1 : 0.8, 5, &gw), FL_OK);
    c = fl_tmr_k_gw_coeffs(gw);
    CU_ASSERT_EQUAL(c.use_max, variant == 0);
    for (long s = 0; s < gw->n; s++)
      in[s] = 10.0 * sin(0.013 * (double)s);
    in[gw->n / 2 + 3] = NAN;
    change_ref = fl_gw_sweep(gw, in, ref, 0, gw->n);
    bad = 0;
    for (long s = 0; s < gw->n; s++) {
      double ch, v = fl_tmr_k_gridworld(s, &c, gw->reward, in, &ch);
      bad += !same_bits(v, ref[s]);
      change = gpu_change_max(change, ch);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(same_bits(change, change_ref));
    CU_ASSERT(change > 0 && isfinite(change));
    fl_gw_destroy(&gw);
  }
  free(x);
  free(y);
  free(ref);
  free(in);
}

static CU_TestInfo tmr_tests[] = {
    {"fault-free runs equal the apps/ kernels, in turn and on threads", test_clean_runs_match_apps},
    {"1,000 random single-replica output flips: all corrected, output == fault-free", test_single_flips_corrected},
    {"input flips spread within one replica and are all outvoted", test_input_flips_corrected},
    {"chunk boundaries of the in-turn schedule, a straddling input flip, a reduced output", test_chunk_boundaries},
    {"two replicas corrupted on one element: uncorrectable in every trial, NaN, listed",
     test_two_replicas_uncorrectable},
    {"two identical corruptions outvote the good replica (the limit of TMR)", test_identical_corruption_outvotes},
    {"vote on one element: bitwise, relative, absolute, NaN, non-transitive, dual", test_vote_element},
    {"tolerance vote accepts benign differences and rejects real ones", test_tolerance_vote},
    {"dual mode detects every single flip and flags the element", test_dual_detects},
    {"retries recover from transient disagreement, give up on persistent", test_retry},
    {"backend registry, auto selection logged, conformance", test_backends},
    {"bad tasks, faults and configurations are FL_ERR_INPUT", test_bad_input},
    {"seeded injection replays; SDC counts are Poisson", test_seeded},
    {"faultline tmr: bad arguments write nothing; a study writes rows and events", test_cli},
    {"the GPU kernels' element functions, on the host, give the CPU's bits", test_gpu_element_functions},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"tmr", kernels_setup, kernels_teardown, NULL, NULL, tmr_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
