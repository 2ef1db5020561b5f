/* test_ckpt_codec.c — the codec registry (every registered codec, round trip on every shape it accepts), the
 * "none" codec, and the "multigrid" codec's accuracy and compression. ZFP has its own suite (test_ckpt_zfp.c). */
#include "ckpt_codec.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* A smooth field on [0,1]^d, f(x,y,z) = sin(pi x) sin(pi y) sin(pi z) (+ 1, so a relative error means something). */
static void fill_smooth(double *a, const fl_ckpt_shape *s)
{
  size_t d0 = s->dims[0], d1 = s->ndims > 1 ? s->dims[1] : 1, d2 = s->ndims > 2 ? s->dims[2] : 1;
  for (size_t i = 0; i < d0; i++)
    for (size_t j = 0; j < d1; j++)
      for (size_t k = 0; k < d2; k++) {
        double x = d0 > 1 ? (double)i / (double)(d0 - 1) : 0.5, y = d1 > 1 ? (double)j / (double)(d1 - 1) : 0.5;
        double z = d2 > 1 ? (double)k / (double)(d2 - 1) : 0.5;
        a[(i * d1 + j) * d2 + k] = 1.0 + sin(PI * x) * sin(PI * y) * sin(PI * z);
      }
}

static double max_abs_diff(const double *a, const double *b, size_t n)
{
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* Round trip through codec `name` (params p); returns the max error, *ratio raw/stored. */
static double roundtrip(const char *name, const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const double *a,
                        double *ratio)
{
  fl_ckpt_buf buf = {0};
  size_t n = fl_ckpt_shape_count(s);
  double *b = calloc(n, sizeof *b), err;
  CU_ASSERT_FATAL(b != NULL);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_codec_encode(name, p, s, a, &buf), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_codec_decode(name, s, buf.data, buf.size, b), FL_OK);
  err = max_abs_diff(a, b, n);
  if (ratio)
    *ratio = (double)fl_ckpt_shape_bytes(s) / (double)buf.size;
  fl_ckpt_buf_free(&buf);
  free(b);
  return err;
}

/* Every registered codec: f64 arrays of 1, 2 and 3 dimensions (odd and even sizes) round-trip to the right
 * shape (exactly for lossless codecs, roughly for lossy ones); a payload decoded against another shape is
 * refused. */
static void test_registry_conformance(void)
{
  static const fl_ckpt_shape shapes[] = {
      {FL_CKPT_F64, 1, {1000}},
      {FL_CKPT_F64, 2, {40, 37}},
      {FL_CKPT_F64, 3, {12, 9, 16}},
      {FL_CKPT_F64, 1, {1}},
  };
  CU_ASSERT(fl_ckpt_codec_count() >= 2);
  CU_ASSERT(fl_ckpt_codec_known("none"));
  CU_ASSERT(fl_ckpt_codec_known("multigrid"));
  CU_ASSERT(!fl_ckpt_codec_known("sz"));
  for (int c = 0; c < fl_ckpt_codec_count(); c++) {
    const char *name = fl_ckpt_codec_name(c);
    fl_ckpt_codec_params p = {.tol = 1e-6, .levels = 1};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
      const fl_ckpt_shape *s = &shapes[k];
      size_t n = fl_ckpt_shape_count(s);
      double *a = malloc(n * sizeof *a), err, ratio;
      fl_ckpt_buf buf = {0};
      fl_ckpt_shape other = *s;
      CU_ASSERT_FATAL(a != NULL);
      fill_smooth(a, s);
      err = roundtrip(name, &p, s, a, &ratio);
      if (fl_ckpt_codec_is_lossy(name)) {
        CU_ASSERT(err < 0.25); /* a sanity bound on coarse grids (12x9x16); accuracy has its own tests */
      } else {
        CU_ASSERT(err == 0.0);
      }
      /* Decoding against another shape is refused, never misread. */
      CU_ASSERT_EQUAL(fl_ckpt_codec_encode(name, &p, s, a, &buf), FL_OK);
      other.dims[0] = s->dims[0] + 2;
      {
        double *big = calloc(fl_ckpt_shape_count(&other), sizeof *big);
        CU_ASSERT_EQUAL(fl_ckpt_codec_decode(name, &other, buf.data, buf.size, big), FL_ERR_IO);
        free(big);
      }
      fl_ckpt_buf_free(&buf);
      free(a);
    }
  }
}

static void test_unknown_and_bad_input(void)
{
  fl_ckpt_shape s = {FL_CKPT_I32, 2, {8, 8}};
  fl_ckpt_codec_cfg cfg = {.name = "multigrid", .levels = 1};
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "idx"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "'idx'") && strstr(fl_err_msg(), "needs f32 or f64") && strstr(fl_err_msg(), "i32"));
  s.dtype = FL_CKPT_F64;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "u"), FL_OK);
  cfg.levels = 4;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "u"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "1..3 levels, got 4") != NULL);
  cfg.levels = 0;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "u"), FL_ERR_INPUT);
  s = (fl_ckpt_shape){FL_CKPT_F64, 4, {2, 2, 2, 2}};
  cfg.levels = 1;
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "u"), FL_ERR_INPUT);
  cfg.name = "sz";
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "u"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "unknown codec 'sz'") && strstr(fl_err_msg(), "none"));
  s = (fl_ckpt_shape){FL_CKPT_F64, 2, {8, 0}};
  cfg.name = NULL; /* none */
  CU_ASSERT_EQUAL(fl_ckpt_codec_check(&cfg, &s, "z"), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "dimension 1 is 0") != NULL);
}

/* "none" keeps every bit of every element type. */
static void test_none_exact(void)
{
  int64_t v[17];
  int64_t w[17] = {0};
  fl_ckpt_shape s = {FL_CKPT_I64, 1, {17}};
  fl_ckpt_codec_params p = {0};
  fl_ckpt_buf b = {0};
  for (int i = 0; i < 17; i++)
    v[i] = (int64_t)0x0123456789abcdefLL * (i + 1);
  CU_ASSERT_EQUAL(fl_ckpt_codec_encode("none", &p, &s, v, &b), FL_OK);
  CU_ASSERT_EQUAL(b.size, sizeof v);
  CU_ASSERT_EQUAL(fl_ckpt_codec_decode("none", &s, b.data, b.size, w), FL_OK);
  CU_ASSERT(memcmp(v, w, sizeof v) == 0);
  CU_ASSERT_EQUAL(fl_ckpt_codec_decode("none", &s, b.data, b.size - 1, w), FL_ERR_IO);
  fl_ckpt_buf_free(&b);
}

/* Full weighting and linear interpolation are exact on (multi)linear fields, for any grid size. */
static void test_multigrid_exact_on_linear(void)
{
  static const fl_ckpt_shape shapes[] = {
      {FL_CKPT_F64, 1, {100}},
      {FL_CKPT_F64, 2, {33, 20}},
      {FL_CKPT_F64, 3, {9, 14, 7}},
      {FL_CKPT_F64, 2, {2, 3}},
  };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    const fl_ckpt_shape *s = &shapes[k];
    size_t n = fl_ckpt_shape_count(s), d1 = s->ndims > 1 ? s->dims[1] : 1, d2 = s->ndims > 2 ? s->dims[2] : 1;
    double *a = malloc(n * sizeof *a);
    CU_ASSERT_FATAL(a != NULL);
    for (size_t i = 0; i < n; i++) {
      double x = (double)(i / (d1 * d2)), y = (double)((i / d2) % d1), z = (double)(i % d2);
      a[i] = 1.0 + 2.0 * x - 3.0 * y + 0.5 * z + 0.25 * x * y;
    }
    for (int levels = 1; levels <= 3; levels++) {
      fl_ckpt_codec_params p = {.levels = levels};
      CU_ASSERT(roundtrip("multigrid", &p, s, a, NULL) < 1e-9);
    }
    free(a);
  }
}

/* The figure the issue asks for: error on a smooth field, small, shrinking with fewer levels (second order: about
 * 4x per level); compression about 2^d per level (a little less on vertex-centred grids: (2^k+1)/(2^(k-1)+1)).
 * Printed so that the run records the measured values. */
static void test_multigrid_accuracy(void)
{
  static const fl_ckpt_shape shapes[] = {
      {FL_CKPT_F64, 1, {4097}},
      {FL_CKPT_F64, 2, {257, 257}},
      {FL_CKPT_F64, 3, {65, 65, 65}},
  };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    const fl_ckpt_shape *s = &shapes[k];
    size_t n = fl_ckpt_shape_count(s);
    double *a = malloc(n * sizeof *a), prev = 0;
    CU_ASSERT_FATAL(a != NULL);
    fill_smooth(a, s);
    for (int levels = 1; levels <= 3; levels++) {
      fl_ckpt_codec_params p = {.levels = levels};
      double ratio, err = roundtrip("multigrid", &p, s, a, &ratio);
      double per_level = pow(2.0, (double)s->ndims);
      printf("\n    multigrid %dD %zu^%d, %d level%s: max error %.2e (field in [1,2]), compression %5.1fx "
             "(2^%d = %.0f)",
             s->ndims, s->dims[0], s->ndims, levels, levels > 1 ? "s" : " ", err, ratio, s->ndims * levels,
             pow(per_level, levels));
      CU_ASSERT(err < 1e-2 * pow(4.0, levels - 1));
      if (levels > 1)
        CU_ASSERT(err > 2.5 * prev && err < 6.0 * prev); /* more levels, more error, O(h^2) */
      CU_ASSERT(ratio > pow(0.8 * per_level, levels) && ratio <= pow(per_level, levels));
      prev = err;
    }
    free(a);
  }
  printf("\n");
}

/* f32 arrays stay f32 in the payload (half the bytes of f64) and round-trip. */
static void test_multigrid_f32(void)
{
  fl_ckpt_shape s = {FL_CKPT_F32, 2, {65, 65}}, sd = {FL_CKPT_F64, 2, {65, 65}};
  size_t n = fl_ckpt_shape_count(&s);
  float *f = malloc(n * sizeof *f), *g = malloc(n * sizeof *g);
  double *d = malloc(n * sizeof *d);
  fl_ckpt_codec_params p = {.levels = 1};
  fl_ckpt_buf b = {0}, bd = {0};
  double err = 0;
  CU_ASSERT_FATAL(f && g && d);
  fill_smooth(d, &sd);
  for (size_t i = 0; i < n; i++)
    f[i] = (float)d[i];
  CU_ASSERT_EQUAL(fl_ckpt_codec_encode("multigrid", &p, &s, f, &b), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_codec_encode("multigrid", &p, &sd, d, &bd), FL_OK);
  CU_ASSERT(b.size < bd.size * 0.6);
  CU_ASSERT_EQUAL(fl_ckpt_codec_decode("multigrid", &s, b.data, b.size, g), FL_OK);
  for (size_t i = 0; i < n; i++)
    err = fmax(err, fabs((double)g[i] - (double)f[i]));
  CU_ASSERT(err < 5e-3);
  /* The payload says f32: decoding it as f64 is refused. */
  CU_ASSERT_EQUAL(fl_ckpt_codec_decode("multigrid", &sd, b.data, b.size, d), FL_ERR_IO);
  fl_ckpt_buf_free(&b);
  fl_ckpt_buf_free(&bd);
  free(f);
  free(g);
  free(d);
}

static CU_TestInfo codec_tests[] = {
    {"registry conformance (round trip, shape check)", test_registry_conformance},
    {"unknown codec and bad parameters", test_unknown_and_bad_input},
    {"none is bit-exact", test_none_exact},
    {"multigrid is exact on linear fields", test_multigrid_exact_on_linear},
    {"multigrid error and compression per level", test_multigrid_accuracy},
    {"multigrid f32", test_multigrid_f32},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt codecs", NULL, NULL, NULL, NULL, codec_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
