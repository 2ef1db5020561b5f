/* test_ckpt_bitflip.c — silent corruption: 1,000 checkpoint files, one random bit flipped in each in turn.
 *
 * File store: 100 versions x (9 payload files + MANIFEST); HDF5 store (test_ckpt_bitflip_hdf5): 500 versions x
 * (arrays.h5 + MANIFEST). Every byte of those files is covered by a checksum in the manifest (the manifest by
 * its own), so every flip must be found: verify reports the version corrupt naming the file, restore fails
 * with FL_ERR_IO and leaves the application's arrays as they were; the flip undone, the version verifies
 * again. (Verify and restore must also agree, and a restore that succeeded would have to be bit-identical.)
 * The entries mix element types, codecs (none, multigrid, zfp and zfp-adaptive when built) and an object, so
 * flips in compressed payloads are caught too, before any decoder sees them. FL_FLIP_SEED sets the flips. */
#include "ckpt.h"
#include "fl_config.h"
#include "fl_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifndef FL_FLIP_STORE
#define FL_FLIP_STORE "file"
#endif
#define NFILES 1000

typedef struct flip_state {
  int64_t v;
  double x[2];
} flip_state;
static const fl_ckpt_field flip_state_fields[] = {FL_CKPT_FIELD(flip_state, v), FL_CKPT_FIELD(flip_state, x)};
static const fl_ckpt_type flip_state_type = FL_CKPT_TYPE(flip_state, "flip_state", 1, flip_state_fields);

/* The application's state. */
typedef struct app {
  double f[256];
  int32_t i[300];
  uint8_t bytes[1000];
  double g[17 * 17];
  double z[500];
  double za[400];
  int64_t l[100];
  float f32[5 * 6 * 7];
  flip_state st;
} app;
static app a, expect;

#if FL_HAVE_ZFP
static fl_err rule(void *user, const fl_ckpt_rule_args *args, double *tol)
{
  (void)user;
  *tol = 1e-4 / (double)(args->version % 7 + 1);
  return FL_OK;
}
#endif

static void fill(long v)
{
  for (int k = 0; k < 256; k++)
    a.f[k] = v + k * 0.25;
  for (int k = 0; k < 300; k++)
    a.i[k] = (int32_t)(v * 3 + k);
  for (int k = 0; k < 1000; k++)
    a.bytes[k] = (uint8_t)(v + k);
  for (int k = 0; k < 17 * 17; k++)
    a.g[k] = v + 0.01 * (k / 17) + 0.02 * (k % 17);
  for (int k = 0; k < 500; k++)
    a.z[k] = v + k * 1e-3;
  for (int k = 0; k < 400; k++)
    a.za[k] = v - k * 1e-3;
  for (int k = 0; k < 100; k++)
    a.l[k] = v * 100000 + k;
  for (int k = 0; k < 210; k++)
    a.f32[k] = (float)v + (float)k * 0.5f;
  a.st.v = v;
  a.st.x[0] = v * 2.0;
  a.st.x[1] = -v;
}

static fl_ckpt *open_ckpt(const char *dir)
{
  fl_ckpt *ck = NULL;
  fl_ckpt_codec_cfg zc = {.name = "multigrid", .levels = 2}, zac = {0};
#if FL_HAVE_ZFP
  zc = (fl_ckpt_codec_cfg){.name = "zfp", .tol = 1e-6};
  zac = (fl_ckpt_codec_cfg){.name = "zfp-adaptive", .rule = rule};
#endif
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = FL_FLIP_STORE, .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"f", {FL_CKPT_F64, 1, {256}}, a.f, {0}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"i", {FL_CKPT_I32, 2, {20, 15}}, a.i, {0}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"bytes", {FL_CKPT_U8, 1, {1000}}, a.bytes, {0}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){"g", {FL_CKPT_F64, 2, {17, 17}}, a.g, {.name = "multigrid", .levels = 1}}),
      FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"z", {FL_CKPT_F64, 1, {500}}, a.z, zc}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"za", {FL_CKPT_F64, 1, {400}}, a.za, zac}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"l", {FL_CKPT_I64, 1, {100}}, a.l, {0}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){"f32", {FL_CKPT_F32, 3, {5, 6, 7}}, a.f32, {0}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register_object(ck, "state", &flip_state_type, &a.st), FL_OK);
  return ck;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static long file_size(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void flip_bit(const char *path, long byte, int bit)
{
  unsigned char c;
  FILE *f = fopen(path, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_FATAL(fseek(f, byte, SEEK_SET) == 0 && fread(&c, 1, 1, f) == 1);
  c ^= (unsigned char)(1u << bit);
  CU_ASSERT_FATAL(fseek(f, byte, SEEK_SET) == 0 && fwrite(&c, 1, 1, f) == 1);
  fclose(f);
}

static void test_flips(void)
{
  static const char *file_names[] = {"f.bin",  "i.bin", "bytes.bin", "g.bin",     "z.bin",
                                     "za.bin", "l.bin", "f32.bin",   "state.bin", "MANIFEST"};
  static const char *h5_names[] = {"arrays.h5", "MANIFEST"};
  int is_file = strcmp(FL_FLIP_STORE, "file") == 0;
  const char **names = is_file ? file_names : h5_names;
  int per_version = is_file ? 10 : 2, nversions = NFILES / per_version;
  const char *dir = fl_test_tmp("flips"), *seed = getenv("FL_FLIP_SEED");
  fl_ckpt *ck = open_ckpt(dir);
  int found = 0, harmless = 0, named = 0, flips = 0;

  if (seed)
    rng = strtoull(seed, NULL, 10) | 1;
  printf("\n    store %s, FL_FLIP_SEED=%llu, %d versions", FL_FLIP_STORE, (unsigned long long)rng, nversions);
  for (long v = 1; v <= nversions; v++) {
    fill(v);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, v), FL_OK);
  }
  for (long v = 1; v <= nversions; v++) {
    /* What the intact version restores to (lossy codecs included). */
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_restore_all(ck, v, NULL), FL_OK);
    expect = a;
    for (int k = 0; k < per_version; k++) {
      char path[700], why[1024];
      long size, byte;
      int bit, ok = 1, restored_ok;
      fl_err rc;
      snprintf(path, sizeof path, "%s/v%012ld/%s", dir, v, names[k]);
      size = file_size(path);
      CU_ASSERT_FATAL(size > 0);
      byte = (long)(next() % (uint64_t)size);
      bit = (int)(next() % 8);
      flip_bit(path, byte, bit);
      flips++;
      CU_ASSERT_EQUAL(fl_ckpt_verify(ck, v, &ok, why, sizeof why), FL_OK);
      fill(-1);
      rc = fl_ckpt_restore_all(ck, v, NULL);
      restored_ok = rc == FL_OK;
      CU_ASSERT_EQUAL(ok, 0);
      CU_ASSERT_EQUAL(rc, FL_ERR_IO);
      named += strstr(why, names[k]) != NULL;
      CU_ASSERT_EQUAL(ok, restored_ok); /* verify and restore agree */
      if (restored_ok) {
        CU_ASSERT(memcmp(&a, &expect, sizeof a) == 0); /* a harmless flip: exactly the intact data */
        harmless++;
      } else {
        CU_ASSERT_EQUAL(rc, FL_ERR_IO);
        CU_ASSERT(a.st.v == -1 && a.f[3] == -1 + 0.75); /* nothing overwritten */
        found++;
      }
      if (ok || restored_ok)
        fprintf(stderr, "\n    %s byte %ld bit %d: verify %s, restore %s\n", path, byte, bit, ok ? "ok" : "corrupt",
                fl_err_msg());
      flip_bit(path, byte, bit);
      if (v % 25 == 0) { /* undone, it verifies again */
        CU_ASSERT_EQUAL(fl_ckpt_verify(ck, v, &ok, why, sizeof why), FL_OK);
        CU_ASSERT(ok);
      }
    }
  }
  printf("\n    %d flips in %d files: %d detected (%.1f%%), %d restored anyway, %d messages named the flipped file\n",
         flips, nversions * per_version, found, 100.0 * found / flips, harmless, named);
  CU_ASSERT_EQUAL(flips, NFILES);
  CU_ASSERT_EQUAL(found, NFILES);
  CU_ASSERT_EQUAL(named, NFILES);
  fl_ckpt_destroy(&ck);
}

static CU_TestInfo flip_tests[] = {
    {"one flipped bit in each of 1,000 files", test_flips},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt bit flips (" FL_FLIP_STORE ")", NULL, NULL, NULL, NULL, flip_tests},
    CU_SUITE_INFO_NULL,
};

#if FL_HAVE_HDF5 || !defined(FL_FLIP_NEEDS_HDF5)
FL_TEST_MAIN(suites)
#else
int main(void)
{
  (void)suites;
  puts("test_ckpt_bitflip_hdf5: this build has no HDF5: skipped");
  return FL_TEST_SKIP;
}
#endif
