/* test_ckpt_hdf5.c — what the "hdf5" store adds: its files are plain HDF5 that other tools read (an array saved
 * with codec "none" is a dataset of its own type and shape), and damage inside them, to data or to HDF5's own
 * metadata, is reported rather than restored. Skipped (77) without HDF5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "fl_config.h"
#include "fl_test.h"

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
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "u", .shape = {FL_CKPT_F64, 2, {NY, NX}},
                                                               .data = u}),
                        FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "idx", .shape = {FL_CKPT_I32, 1, {10}},
                                                               .data = idx}),
                        FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "z", .shape = {FL_CKPT_F64, 1, {4096}},
                                                               .data = z, .codec = {.name = "multigrid", .levels = 2}}),
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
  read_attr(d, "faultline_codec", codec, sizeof codec);
  CU_ASSERT_STRING_EQUAL(codec, "none");
  H5Tclose(t);
  H5Sclose(s);
  H5Dclose(d);
  d = H5Dopen2(f, "z", H5P_DEFAULT); /* an encoded payload: bytes, the codec named */
  t = H5Dget_type(d);
  CU_ASSERT(H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 1);
  read_attr(d, "faultline_codec", codec, sizeof codec);
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

static CU_TestInfo hdf5_tests[] = {
  {"files read with the plain HDF5 API", test_plain_hdf5},
  {"damage to data and to metadata is reported", test_damage},
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
