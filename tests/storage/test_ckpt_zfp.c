/* test_ckpt_zfp.c — the "zfp" and "zfp-adaptive" codecs: ZFP's pointwise bound holds on every shape and type,
 * compression grows with the tolerance, and the adaptive rule sets the tolerance per checkpoint (the seed's
 * eb = ||r|| / ||b|| * tol, which must then bound ||x~ - x||_2 / ||x||_2). Skipped (77) without ZFP. */
#include "ckpt.h"
#include "fl_config.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static void fill(double *a, size_t n, double phase)
{
  for (size_t i = 0; i < n; i++)
    a[i] = sin(2 * PI * (double)i / 997.0 + phase) + 0.25 * cos(2 * PI * (double)i / 131.0);
}

/* The bound |x~ - x| <= tol holds pointwise for f64 and f32 on 1..4 dimensions. */
static void test_bound_all_shapes(void)
{
  static const size_t dims[4][4] = {{100000}, {300, 333}, {40, 50, 45}, {12, 10, 14, 9}};
  static const double tols[] = {1e-2, 1e-5, 1e-9};
  for (int nd = 1; nd <= 4; nd++) {
    fl_ckpt_shape s = {FL_CKPT_F64, nd, {0}};
    size_t n;
    double *a, *b;
    memcpy(s.dims, dims[nd - 1], sizeof s.dims);
    n = fl_ckpt_shape_count(&s);
    a = malloc(n * sizeof *a);
    b = malloc(n * sizeof *b);
    CU_ASSERT_FATAL(a && b);
    fill(a, n, 0.3);
    for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++) {
      fl_ckpt_codec_params p = {.tol = tols[t]};
      fl_ckpt_buf buf = {0};
      double err = 0;
      CU_ASSERT_EQUAL_FATAL(fl_ckpt_codec_encode("zfp", &p, &s, a, &buf), FL_OK);
      CU_ASSERT(buf.size < n * sizeof *a);
      CU_ASSERT_EQUAL_FATAL(fl_ckpt_codec_decode("zfp", &s, buf.data, buf.size, b), FL_OK);
      for (size_t i = 0; i < n; i++)
        err = fmax(err, fabs(a[i] - b[i]));
      CU_ASSERT(err <= tols[t]);
      CU_ASSERT(err > 0); /* lossy indeed: the test would not notice a codec that stored nothing useful */
      fl_ckpt_buf_free(&buf);
    }
    free(a);
    free(b);
  }
  {
    fl_ckpt_shape s = {FL_CKPT_F32, 2, {200, 250}};
    size_t n = fl_ckpt_shape_count(&s);
    float *f = malloc(n * sizeof *f), *g = malloc(n * sizeof *g);
    double *d = malloc(n * sizeof *d), err = 0;
    fl_ckpt_codec_params p = {.tol = 1e-4};
    fl_ckpt_buf buf = {0};
    CU_ASSERT_FATAL(f && g && d);
    fill(d, n, 1.0);
    for (size_t i = 0; i < n; i++)
      f[i] = (float)d[i];
    CU_ASSERT_EQUAL(fl_ckpt_codec_encode("zfp", &p, &s, f, &buf), FL_OK);
    CU_ASSERT_EQUAL(fl_ckpt_codec_decode("zfp", &s, buf.data, buf.size, g), FL_OK);
    for (size_t i = 0; i < n; i++)
      err = fmax(err, fabs((double)f[i] - (double)g[i]));
    CU_ASSERT(err <= 1e-4);
    /* An f32 stream is not decoded as f64. */
    s.dtype = FL_CKPT_F64;
    CU_ASSERT_EQUAL(fl_ckpt_codec_decode("zfp", &s, buf.data, buf.size, d), FL_ERR_IO);
    CU_ASSERT(strstr(fl_err_msg(), "f32") != NULL);
    fl_ckpt_buf_free(&buf);
    free(f);
    free(g);
    free(d);
  }
}

/* Looser tolerance, smaller payload; printed for the record. */
static void test_ratio_grows_with_tol(void)
{
  fl_ckpt_shape s = {FL_CKPT_F64, 1, {1000000}};
  size_t n = fl_ckpt_shape_count(&s), prev = SIZE_MAX;
  double *a = malloc(n * sizeof *a);
  static const double tols[] = {1e-9, 1e-6, 1e-3};
  CU_ASSERT_FATAL(a != NULL);
  fill(a, n, 0.0);
  for (size_t t = 0; t < 3; t++) {
    fl_ckpt_codec_params p = {.tol = tols[t]};
    fl_ckpt_buf buf = {0};
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_codec_encode("zfp", &p, &s, a, &buf), FL_OK);
    printf("\n    zfp tol %.0e on 1e6 smooth doubles: %.1fx", tols[t], (double)(n * sizeof *a) / (double)buf.size);
    CU_ASSERT(buf.size < prev);
    prev = buf.size;
    fl_ckpt_buf_free(&buf);
  }
  printf("\n");
  free(a);
}

static void test_bad_parameters(void)
{
  fl_ckpt_shape s = {FL_CKPT_F64, 1, {10}}, si = {FL_CKPT_I64, 1, {10}};
  fl_ckpt_codec_cfg cfg = {.name = "zfp", .tol = 0};
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "x"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "'x'") && strstr(fl_err_msg(), "tolerance > 0, got 0"));
  cfg.tol = NAN;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "x"), FL_ERR_INPUT);
  cfg.tol = 1e-3;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "x"), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &si, "n"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "needs f32 or f64 elements, got i64") != NULL);
  cfg.name = "zfp-adaptive";
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "x"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "needs a tolerance rule") != NULL);
}

/* ---- zfp-adaptive through the checkpoint API ---- */

typedef struct rule_log {
  int calls;
  long versions[8];
} rule_log;

static fl_err logging_rule(void *user, const fl_ckpt_rule_args *a, double *tol)
{
  rule_log *log = user;
  if (log->calls < 8)
    log->versions[log->calls] = a->version;
  *tol = 1e-3 / (double)(a->version + 1);
  log->calls++;
  return FL_OK;
}

/* The rule runs once per array per checkpoint, with that checkpoint's version; the manifest records the
 * tolerance it chose and the restored data honours it. */
static void test_rule_per_checkpoint(void)
{
  fl_ckpt *ck = NULL;
  size_t n = 50000;
  double *x = malloc(n * sizeof *x), *orig = malloc(n * sizeof *orig);
  rule_log log = {0};
  CU_ASSERT_FATAL(x && orig);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "memory"}, &ck), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      fl_ckpt_register(ck,
                       &(fl_ckpt_array){.label = "x",
                                        .shape = {FL_CKPT_F64, 1, {n}},
                                        .data = x,
                                        .codec = {.name = "zfp-adaptive", .rule = logging_rule, .rule_user = &log}}),
      FL_OK);
  for (long v = 0; v < 3; v++) {
    fl_ckpt_manifest *m = NULL;
    double err = 0;
    fill(x, n, (double)v);
    memcpy(orig, x, n * sizeof *x);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, v), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_manifest_load(ck, v, &m), FL_OK);
    CU_ASSERT_EQUAL(m->nentries, 1);
    CU_ASSERT_STRING_EQUAL(m->entries[0].codec, "zfp-adaptive");
    CU_ASSERT_DOUBLE_EQUAL(m->entries[0].params.tol, 1e-3 / (double)(v + 1), 1e-18);
    fl_ckpt_manifest_destroy(&m);
    memset(x, 0, n * sizeof *x);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_restore_all(ck, v, NULL), FL_OK);
    for (size_t i = 0; i < n; i++)
      err = fmax(err, fabs(x[i] - orig[i]));
    CU_ASSERT(err <= 1e-3 / (double)(v + 1));
  }
  CU_ASSERT_EQUAL(log.calls, 3);
  CU_ASSERT(log.versions[0] == 0 && log.versions[1] == 1 && log.versions[2] == 2);
  fl_ckpt_destroy(&ck);
  free(x);
  free(orig);
}

/* The seed's adaptive bound: as the solver's residual falls, eb = ||r||/||b|| * tol falls, the relative 2-norm
 * error of the restored vector stays under eb, and the checkpoint grows. */
static void test_relres_rule(void)
{
  fl_ckpt *ck = NULL;
  size_t n = 200000;
  double *x = malloc(n * sizeof *x), *orig = malloc(n * sizeof *orig), norm = 0;
  fl_ckpt_relres rr = {.b_norm = 10.0, .tol = 1e-1};
  static const double residuals[] = {1.0, 1e-3, 1e-6};
  uint64_t prev_bytes = 0;
  CU_ASSERT_FATAL(x && orig);
  fill(x, n, 0.5);
  memcpy(orig, x, n * sizeof *x);
  for (size_t i = 0; i < n; i++)
    norm += x[i] * x[i];
  norm = sqrt(norm);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "memory"}, &ck), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      fl_ckpt_register(
          ck, &(fl_ckpt_array){.label = "x",
                               .shape = {FL_CKPT_F64, 1, {n}},
                               .data = x,
                               .codec = {.name = "zfp-adaptive", .rule = fl_ckpt_rule_relres, .rule_user = &rr}}),
      FL_OK);
  for (long v = 0; v < 3; v++) {
    fl_ckpt_manifest *m = NULL;
    double err2 = 0, eb;
    rr.r_norm = residuals[v];
    memcpy(x, orig, n * sizeof *x);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, v), FL_OK);
    eb = residuals[v] / 10.0 * 1e-1;
    CU_ASSERT_DOUBLE_EQUAL(rr.eb, eb, eb * 1e-12);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_manifest_load(ck, v, &m), FL_OK);
    CU_ASSERT(m->entries[0].stored_bytes > prev_bytes);
    prev_bytes = m->entries[0].stored_bytes;
    printf("\n    relres rule: ||r||/||b|| = %.0e -> eb %.0e, tol %.2e, payload %.1fx smaller", residuals[v] / 10.0, eb,
           m->entries[0].params.tol, (double)(n * 8) / (double)prev_bytes);
    fl_ckpt_manifest_destroy(&m);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_restore_all(ck, v, NULL), FL_OK);
    for (size_t i = 0; i < n; i++)
      err2 += (x[i] - orig[i]) * (x[i] - orig[i]);
    CU_ASSERT(sqrt(err2) <= eb * norm);
  }
  printf("\n");
  /* A residual of 0 cannot set a tolerance: refused with the label, nothing written. */
  rr.r_norm = 0;
  CU_ASSERT_EQUAL(fl_ckpt_write(ck, 3), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "'x'") != NULL);
  {
    long latest;
    CU_ASSERT_EQUAL(fl_ckpt_latest(ck, &latest), FL_OK);
    CU_ASSERT_EQUAL(latest, 2);
  }
  fl_ckpt_destroy(&ck);
  free(x);
  free(orig);
}

static CU_TestInfo zfp_tests[] = {
    {"pointwise bound, f32/f64, 1-4 dims", test_bound_all_shapes},
    {"compression grows with the tolerance", test_ratio_grows_with_tol},
    {"bad parameters", test_bad_parameters},
    {"adaptive: rule called per checkpoint", test_rule_per_checkpoint},
    {"adaptive: relative-residual rule bounds the error", test_relres_rule},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt zfp", NULL, NULL, NULL, NULL, zfp_tests},
    CU_SUITE_INFO_NULL,
};

#if FL_HAVE_ZFP
FL_TEST_MAIN(suites)
#else
int main(void)
{
  (void)suites;
  puts("test_ckpt_zfp: this build has no ZFP: skipped");
  return FL_TEST_SKIP;
}
#endif
