/* test_ckpt_hdf5.c — what the "hdf5" store adds: its files are plain HDF5 that other tools read (an array saved
 * with codec "none" is a dataset of its own type and shape, with codec, dtype, dims, iteration and xxh3
 * attributes; with hdf5_zfp_filter, a "zfp" array is a float dataset compressed by the H5Z-ZFP plugin), and
 * damage inside them, to data or to HDF5's own metadata, is reported rather than restored. Skipped (77)
 * without HDF5. */
#include "ckpt.h"
#include "fl_config.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if FL_HAVE_HDF5
#include <hdf5.h>

#define NY 32
#define NX 24

static double u[NY * NX], z[4096];
static int32_t idx[10];

static fl_ckpt *open_store(const char *dir)
{
  fl_ckpt *ck = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "hdf5", .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){.label = "u", .shape = {FL_CKPT_F64, 2, {NY, NX}}, .data = u}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){.label = "idx", .shape = {FL_CKPT_I32, 1, {10}}, .data = idx}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "z",
                                                              .shape = {FL_CKPT_F64, 1, {4096}},
                                                              .data = z,
                                                              .codec = {.name = "multigrid", .levels = 2}}),
                        FL_OK);
  return ck;
}

static void fill(int seed)
{
  for (int i = 0; i < NY * NX; i++)
    u[i] = seed + 0.001 * i;
  for (int i = 0; i < 10; i++)
    idx[i] = seed * 100 + i;
  for (int i = 0; i < 4096; i++)
    z[i] = seed + (double)i / 4096.0;
}

static void read_attr(hid_t obj, const char *name, char *buf, size_t size)
{
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a);
  CU_ASSERT_FATAL(a >= 0 && t >= 0 && H5Tget_size(t) <= size);
  CU_ASSERT(H5Aread(a, t, buf) >= 0);
  H5Tclose(t);
  H5Aclose(a);
}

/* Read version 1 with nothing but the HDF5 library. */
static void test_plain_hdf5(void)
{
  const char *dir = fl_test_tmp("plain");
  char path[600], codec[32];
  fl_ckpt *ck = open_store(dir);
  hid_t f, d, s, t;
  hsize_t dims[2];
  double back[NY * NX];
  fill(1);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, 1), FL_OK);
  fl_ckpt_destroy(&ck);
  snprintf(path, sizeof path, "%s/v000000000001/arrays.h5", dir);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CU_ASSERT_FATAL(f >= 0);
  d = H5Dopen2(f, "u", H5P_DEFAULT);
  s = H5Dget_space(d);
  t = H5Dget_type(d);
  CU_ASSERT_EQUAL(H5Sget_simple_extent_ndims(s), 2);
  H5Sget_simple_extent_dims(s, dims, NULL);
  CU_ASSERT(dims[0] == NY && dims[1] == NX);
  CU_ASSERT(H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 8);
  CU_ASSERT(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
  CU_ASSERT(memcmp(back, u, sizeof u) == 0);
  read_attr(d, "codec", codec, sizeof codec);
  CU_ASSERT_STRING_EQUAL(codec, "none");
  read_attr(d, "dtype", codec, sizeof codec);
  CU_ASSERT_STRING_EQUAL(codec, "f64");
  {
    uint64_t adims[2] = {0, 0};
    int64_t it = -1;
    char hash[32];
    fl_ckpt *ro = NULL;
    fl_ckpt_manifest *m = NULL;
    hid_t a = H5Aopen(d, "dims", H5P_DEFAULT);
    CU_ASSERT(a >= 0 && H5Aread(a, H5T_NATIVE_UINT64, adims) >= 0);
    H5Aclose(a);
    CU_ASSERT(adims[0] == NY && adims[1] == NX);
    a = H5Aopen(d, "iteration", H5P_DEFAULT);
    CU_ASSERT(a >= 0 && H5Aread(a, H5T_NATIVE_INT64, &it) >= 0);
    H5Aclose(a);
    CU_ASSERT_EQUAL(it, 1);
    read_attr(d, "xxh3", hash, sizeof hash);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.path = dir, .read_only = 1}, &ro), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_manifest_load(ro, 1, &m), FL_OK);
    {
      char want[32];
      snprintf(want, sizeof want, "%016llx", (unsigned long long)m->entries[0].hash);
      CU_ASSERT_STRING_EQUAL(hash, want);
    }
    fl_ckpt_manifest_destroy(&m);
    fl_ckpt_destroy(&ro);
  }
  H5Tclose(t);
  H5Sclose(s);
  H5Dclose(d);
  d = H5Dopen2(f, "z", H5P_DEFAULT); /* an encoded payload: bytes, the codec named */
  t = H5Dget_type(d);
  CU_ASSERT(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 1);
  read_attr(d, "codec", codec, sizeof codec);
  CU_ASSERT_STRING_EQUAL(codec, "multigrid");
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
}

static long dataset_offset(const char *path, const char *name)
{
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, name, H5P_DEFAULT);
  haddr_t off = H5Dget_offset(d);
  H5Dclose(d);
  H5Fclose(f);
  CU_ASSERT_FATAL(off != HADDR_UNDEF);
  return (long)off;
}

static void flip(const char *path, long offset)
{
  unsigned char c;
  FILE *fp = fopen(path, "r+b");
  CU_ASSERT_FATAL(fp != NULL);
  fseek(fp, offset, SEEK_SET);
  CU_ASSERT_FATAL(fread(&c, 1, 1, fp) == 1);
  c ^= 0x01;
  fseek(fp, offset, SEEK_SET);
  fwrite(&c, 1, 1, fp);
  fclose(fp);
}

/* A flipped bit inside a dataset's data, and one in HDF5's superblock: the file's checksum in the manifest
 * catches each before HDF5 opens the file; the message names it, nothing is overwritten, the previous version
 * restores. */
static void test_damage(void)
{
  const char *dir = fl_test_tmp("damage");
  char path[600];
  fl_ckpt *ck = open_store(dir);
  long r = 0;
  int ok = 1;
  char why[512];
  fill(1);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, 1), FL_OK);
  fill(2);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, 2), FL_OK);
  snprintf(path, sizeof path, "%s/v000000000002/arrays.h5", dir);
  flip(path, dataset_offset(path, "idx") + 13);
  fill(3);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 2, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "v000000000002/arrays.h5: corrupt: checksum") != NULL);
  CU_ASSERT(u[0] == 3.0 && idx[0] == 300);
  CU_ASSERT_EQUAL(fl_ckpt_verify(ck, 2, &ok, why, sizeof why), FL_OK);
  CU_ASSERT_EQUAL(ok, 0);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, FL_CKPT_LATEST, &r), FL_OK); /* warns, sets v2 aside */
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT(u[0] == 1.0 && idx[9] == 109);
  snprintf(path, sizeof path, "%s/v000000000001/arrays.h5", dir);
  flip(path, 20);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 1, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "v000000000001/arrays.h5: corrupt: checksum") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_verify(ck, 1, &ok, why, sizeof why), FL_OK);
  CU_ASSERT_EQUAL(ok, 0);
  fl_ckpt_destroy(&ck);
}

/* hdf5_zfp_filter: a "zfp" array becomes a float dataset of its shape behind filter 32013, which a plain HDF5
 * reader with the plugin decodes within the tolerance; the checkpoint restores and verifies the same way. */
static void test_zfp_filter(void)
{
#if FL_HAVE_ZFP
  const char *dir = fl_test_tmp("zfpfilter");
  char path[600];
  static double x[60][70], back[60][70], orig[60][70];
  fl_ckpt *ck = NULL;
  fl_ckpt_manifest *m = NULL;
  hid_t f, d, dcpl;
  double err = 0;
  int ok = 0;
  for (int i = 0; i < 60; i++)
    for (int j = 0; j < 70; j++)
      orig[i][j] = x[i][j] = sin(0.05 * i) * cos(0.07 * j);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = dir, .hdf5_zfp_filter = 1}, &ck),
                  FL_ERR_INPUT);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "hdf5", .path = dir, .hdf5_zfp_filter = 1}, &ck),
                        FL_OK);
  CU_ASSERT_EQUAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){"x", {FL_CKPT_F64, 2, {60, 70}}, x, {.name = "zfp", .tol = 1e-5}}), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(ck, 1), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_manifest_load(ck, 1, &m), FL_OK);
  CU_ASSERT_STRING_EQUAL(m->entries[0].filter, "h5z-zfp");
  fl_ckpt_manifest_destroy(&m);
  memset(x, 0, sizeof x);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 1, NULL), FL_OK);
  for (int i = 0; i < 60; i++)
    for (int j = 0; j < 70; j++)
      err = fmax(err, fabs(x[i][j] - orig[i][j]));
  CU_ASSERT(err <= 1e-5 && err > 0);
  CU_ASSERT_EQUAL(fl_ckpt_verify(ck, 1, &ok, NULL, 0), FL_OK);
  CU_ASSERT(ok);
  fl_ckpt_destroy(&ck);
  /* Plain HDF5: the dataset is f64 60x70 behind the ZFP filter, decoded by the plugin. */
  snprintf(path, sizeof path, "%s/v000000000001/arrays.h5", dir);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  d = H5Dopen2(f, "x", H5P_DEFAULT);
  dcpl = H5Dget_create_plist(d);
  CU_ASSERT(H5Pget_nfilters(dcpl) == 1);
  {
    unsigned flags, cd[8];
    size_t ncd = 8;
    char name[64];
    CU_ASSERT(H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, sizeof name, name, NULL) == 32013);
  }
  CU_ASSERT(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0);
  CU_ASSERT(memcmp(back, x, sizeof x) == 0);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
#else
  CU_PASS("no ZFP in this build: the filter option is not exercised");
#endif
}

static CU_TestInfo hdf5_tests[] = {
    {"files read with the plain HDF5 API", test_plain_hdf5},
    {"damage to data and to metadata is reported", test_damage},
    {"zfp through the HDF5 ZFP filter", test_zfp_filter},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt hdf5 store", NULL, NULL, NULL, NULL, hdf5_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
#else
int main(void)
{
  puts("test_ckpt_hdf5: this build has no HDF5: skipped");
  return FL_TEST_SKIP;
}
#endif
