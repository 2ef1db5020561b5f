/* store_hdf5.c — the "hdf5" store: the Kokkos report's HDF5 memory space. Each version is one HDF5 file,
 * DIR/vNNN/arrays.h5, next to the MANIFEST, under the version-directory protocol of vdir.c (an HDF5 file that
 * is modified in place is not crash-safe, so a version is never modified: a new file per version).
 *
 * An array saved with codec "none" is a dataset /LABEL of its own type and shape, so any HDF5 tool (h5dump,
 * h5py) reads it as it is. Other codecs and serialized objects are 1-D u8 datasets holding the payload, whose
 * checksum the MANIFEST carries like in the file store. With opts.hdf5_zfp_filter, "zfp"/"zfp-adaptive" arrays
 * are instead float datasets of their own shape compressed by the H5Z-ZFP filter (plugin 32013, accuracy mode:
 * cd_values[0] = 3, the tolerance in cd_values[2..3]; chunks of at most 64 MiB); their checksum is that of the
 * values HDF5 reads back (written, then read once through the filter). Each dataset carries attributes codec,
 * dtype, dims, iteration (the version) and xxh3 (its payload's checksum, as in the manifest), plus object for
 * serialized structs. The MANIFEST also carries the XXH3-64 of arrays.h5 as a whole, checked before HDF5 opens
 * it.
 * Files are written with the 1.8+ format (superblock v2): HDF5 then checksums its own metadata, so damage to it
 * is reported by the library rather than misread. One process-wide mutex serialises our HDF5 calls, as the
 * library is not re-entrant in every build (Debian's serial build happens to be thread-safe); the automatic
 * error printing is switched off around them and the innermost HDF5 message goes into our error instead. */
#define _GNU_SOURCE /* sync_file_range on Linux */
#include "store_impl.h"

#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FL_H5_FILE "arrays.h5"
#define FL_H5Z_ZFP 32013
#define FL_H5Z_ZFP_CHUNK (64u << 20)

static pthread_mutex_t fl_h5_mutex = PTHREAD_MUTEX_INITIALIZER;

typedef struct fl_h5_guard {
  H5E_auto2_t func;
  void *data;
} fl_h5_guard;

static void fl_h5_enter(fl_h5_guard *g)
{
  pthread_mutex_lock(&fl_h5_mutex);
  H5Eget_auto2(H5E_DEFAULT, &g->func, &g->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void fl_h5_leave(fl_h5_guard *g)
{
  H5Eclear2(H5E_DEFAULT);
  H5Eset_auto2(H5E_DEFAULT, g->func, g->data);
  pthread_mutex_unlock(&fl_h5_mutex);
}

static herr_t fl_h5_walk(unsigned n, const H5E_error2_t *e, void *data)
{
  if (n == 0)
    snprintf(data, 256, "%s%s%s", e->func_name ? e->func_name : "", e->func_name ? ": " : "", e->desc ? e->desc : "?");
  return 0;
}

/* FL_ERR_IO naming the path, what we did, and HDF5's innermost message. */
static fl_err fl_h5_fail(const char *path, const char *what)
{
  char msg[256] = "no detail", *sys;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, fl_h5_walk, msg);
  /* a failed system call: its message says it (HDF5's text also holds the time, the descriptor, the buffer and
   * line breaks) */
  if ((sys = strstr(msg, "error message = '")) != NULL) {
    char *end = strchr(sys + 17, '\'');
    const char *colon = strchr(msg, ':');
    if (end && colon && colon < sys)
      return fl_err_set(FL_ERR_IO, "%s: HDF5 %s failed (%.*s: %.*s)", path, what, (int)(colon - msg), msg,
                        (int)(end - sys - 17), sys + 17);
  }
  for (char *c = msg; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return fl_err_set(FL_ERR_IO, "%s: HDF5 %s failed (%s)", path, what, msg);
}

static hid_t fl_h5_type(fl_ckpt_dtype d)
{
  switch (d) {
  case FL_CKPT_U8: return H5T_NATIVE_UINT8;
  case FL_CKPT_I32: return H5T_NATIVE_INT32;
  case FL_CKPT_I64: return H5T_NATIVE_INT64;
  case FL_CKPT_F32: return H5T_NATIVE_FLOAT;
  case FL_CKPT_F64: return H5T_NATIVE_DOUBLE;
  }
  return H5T_NATIVE_UINT8;
}

/* A dataset holds the array itself (codec "none", or the ZFP filter) or a payload of bytes. */
static int fl_h5_typed(const fl_ckpt_entry_info *e)
{
  return (strcmp(e->codec, "none") == 0 && !e->object_type[0]) || e->filter[0];
}

static int fl_h5_native(const fl_ckpt_store *s, const char *codec)
{
  return s->zfp_filter && (strcmp(codec, "zfp") == 0 || strcmp(codec, "zfp-adaptive") == 0);
}

static fl_err fl_h5_open(fl_ckpt_store *s)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_vdir_open(s));
  if (s->zfp_filter) {
    fl_h5_guard g;
    htri_t avail;
    fl_h5_enter(&g);
    avail = H5Zfilter_avail(FL_H5Z_ZFP);
    fl_h5_leave(&g);
    FL_CHECK(avail > 0, FL_ERR_INPUT,
             "%s: the HDF5 ZFP filter (id %d) cannot be loaded: install its plugin (Debian: "
             "hdf5-filter-plugin-zfp-serial) or set HDF5_PLUGIN_PATH",
             s->path, FL_H5Z_ZFP);
  }
done:
  return rc;
}

static fl_err fl_h5_begin(fl_ckpt_store *s, long version, fl_ckpt_txn **out)
{
  fl_err rc = FL_OK;
  fl_ckpt_txn *t = NULL;
  hid_t *file = NULL, fapl = H5I_INVALID_HID;
  char path[4096];
  fl_h5_guard g;

  FL_ALLOC(t, 1);
  FL_ALLOC(file, 1);
  *file = H5I_INVALID_HID;
  t->store = s;
  t->version = version;
  t->vdir.fd = -1;
  t->impl = file;
  FL_TRY(fl_vdir_begin(s, version, &t->vdir));
  fl_vdir_txn_path(&t->vdir, FL_H5_FILE, path, sizeof path);
  fl_h5_enter(&g);
  if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0 ||
      (*file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl)) < 0)
    rc = fl_h5_fail(path, "file creation");
  if (fapl >= 0)
    H5Pclose(fapl);
  fl_h5_leave(&g);
  FL_TRY(rc);
  *out = t;
  t = NULL;
done:
  if (t) {
    if (t->vdir.fd >= 0)
      fl_vdir_abort(&t->vdir);
    free(t->impl);
    free(t);
  }
  return rc;
}

static fl_err fl_h5_attr(hid_t obj, const char *name, const char *value)
{
  hid_t st = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
  herr_t ok = -1;
  if (st >= 0 && sp >= 0 && H5Tset_size(st, strlen(value) + 1) >= 0 &&
      (a = H5Acreate2(obj, name, st, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
    ok = H5Awrite(a, st, value);
  if (a >= 0)
    H5Aclose(a);
  if (sp >= 0)
    H5Sclose(sp);
  if (st >= 0)
    H5Tclose(st);
  return ok >= 0 ? FL_OK : FL_ERR_IO;
}

/* A numeric attribute: a scalar (n = 0) or a 1-D array of n values of type `type`. */
static fl_err fl_h5_attr_num(hid_t obj, const char *name, hid_t type, const void *v, hsize_t n)
{
  hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), a = H5I_INVALID_HID;
  herr_t ok = -1;
  if (sp >= 0 && (a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
    ok = H5Awrite(a, type, v);
  if (a >= 0)
    H5Aclose(a);
  if (sp >= 0)
    H5Sclose(sp);
  return ok >= 0 ? FL_OK : FL_ERR_IO;
}

/* The attributes every dataset carries. */
static fl_err fl_h5_describe(hid_t ds, const fl_ckpt_entry_info *e, long version)
{
  uint64_t dims[FL_CKPT_MAX_DIMS];
  int64_t it = version;
  char hash[17];
  for (int i = 0; i < e->shape.ndims; i++)
    dims[i] = e->shape.dims[i];
  snprintf(hash, sizeof hash, "%016" PRIx64, e->hash);
  if (fl_h5_attr(ds, "codec", e->codec) != FL_OK ||
      fl_h5_attr(ds, "dtype", fl_ckpt_dtype_name(e->shape.dtype)) != FL_OK ||
      fl_h5_attr_num(ds, "dims", H5T_NATIVE_UINT64, dims, (hsize_t)e->shape.ndims) != FL_OK ||
      fl_h5_attr_num(ds, "iteration", H5T_NATIVE_INT64, &it, 0) != FL_OK || fl_h5_attr(ds, "xxh3", hash) != FL_OK ||
      (e->object_type[0] && fl_h5_attr(ds, "object", e->object_type) != FL_OK))
    return FL_ERR_IO;
  return FL_OK;
}

/* A dataset creation property list for the H5Z-ZFP filter in accuracy mode, chunks of at most 64 MiB. */
static hid_t fl_h5_zfp_dcpl(const fl_ckpt_entry_info *e, const hsize_t *dims, int nd)
{
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hsize_t chunk[FL_CKPT_MAX_DIMS];
  unsigned int cd[4] = {3, 0, 0, 0};
  double tol = e->params.tol;
  size_t bytes = fl_ckpt_dtype_size(e->shape.dtype);
  for (int i = 0; i < nd; i++) {
    chunk[i] = dims[i];
    bytes *= (size_t)dims[i];
  }
  while (bytes > FL_H5Z_ZFP_CHUNK && chunk[0] > 1) {
    bytes = bytes / (size_t)chunk[0] * (size_t)((chunk[0] + 1) / 2);
    chunk[0] = (chunk[0] + 1) / 2;
  }
  memcpy(&cd[2], &tol, sizeof tol);
  if (dcpl >= 0 &&
      (H5Pset_chunk(dcpl, nd, chunk) < 0 || H5Pset_filter(dcpl, FL_H5Z_ZFP, H5Z_FLAG_MANDATORY, 4, cd) < 0)) {
    H5Pclose(dcpl);
    dcpl = H5I_INVALID_HID;
  }
  return dcpl;
}

/* Close dataset *ds (its chunks go through the filter into the file) and open it again without a chunk cache,
 * so that reading it decodes what was stored (a read before would be served from the cache, unfiltered). */
static herr_t fl_h5_read_back(hid_t file, hid_t *ds, const char *label, hid_t type, void *back)
{
  hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
  herr_t r = -1;
  H5Dclose(*ds);
  *ds = H5I_INVALID_HID;
  if (dapl >= 0 && H5Pset_chunk_cache(dapl, 0, 0, 1.0) >= 0 && (*ds = H5Dopen2(file, label, dapl)) >= 0)
    r = H5Dread(*ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
  if (dapl >= 0)
    H5Pclose(dapl);
  return r;
}

static fl_err fl_h5_put(fl_ckpt_txn *t, fl_ckpt_entry_info *e, const void *payload)
{
  fl_err rc = FL_OK;
  hid_t file = *(hid_t *)t->impl, space = H5I_INVALID_HID, ds = H5I_INVALID_HID, dcpl = H5P_DEFAULT, type;
  hsize_t dims[FL_CKPT_MAX_DIMS];
  int nd, filtered = fl_h5_native(t->store, e->codec);
  unsigned char *back = NULL;
  char path[4096], what[128];
  fl_h5_guard g;

  if (filtered)
    snprintf(e->filter, sizeof e->filter, "h5z-zfp");
  if (fl_h5_typed(e)) {
    nd = e->shape.ndims;
    for (int i = 0; i < nd; i++)
      dims[i] = e->shape.dims[i];
    type = fl_h5_type(e->shape.dtype);
  } else {
    nd = 1;
    dims[0] = e->stored_bytes;
    type = H5T_NATIVE_UINT8;
  }
  if (filtered)
    FL_ALLOC(back, e->stored_bytes);
  else
    e->hash = fl_ckpt_hash(payload, e->stored_bytes);
  fl_vdir_txn_path(&t->vdir, FL_H5_FILE, path, sizeof path);
  snprintf(what, sizeof what, "writing dataset '%s'", e->label);
  fl_h5_enter(&g);
  if ((filtered && (dcpl = fl_h5_zfp_dcpl(e, dims, nd)) < 0) || (space = H5Screate_simple(nd, dims, NULL)) < 0 ||
      (ds = H5Dcreate2(file, e->label, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0 ||
      H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, payload) < 0) {
    rc = fl_h5_fail(path, what);
  } else if (filtered && fl_h5_read_back(file, &ds, e->label, type, back) < 0) {
    snprintf(what, sizeof what, "reading back dataset '%s' through the ZFP filter", e->label);
    rc = fl_h5_fail(path, what);
  } else {
    if (filtered) /* what a reader will get: the values decoded by the filter */
      e->hash = fl_ckpt_hash(back, e->stored_bytes);
    if (fl_h5_describe(ds, e, t->version) != FL_OK) {
      snprintf(what, sizeof what, "writing the attributes of dataset '%s'", e->label);
      rc = fl_h5_fail(path, what);
    }
  }
  if (ds >= 0)
    H5Dclose(ds);
  if (space >= 0)
    H5Sclose(space);
  if (dcpl != H5P_DEFAULT && dcpl >= 0)
    H5Pclose(dcpl);
#ifdef __linux__
  { /* Start writeback of what HDF5 wrote so far (large datasets go straight to the file): the disk works
     * while the next dataset is written, and the fsync at seal finds little left. A hint only. */
    void *h = NULL;
    if (rc == FL_OK && H5Fget_vfd_handle(file, H5P_DEFAULT, &h) >= 0 && h)
      sync_file_range(*(int *)h, 0, 0, SYNC_FILE_RANGE_WRITE);
  }
#endif
  fl_h5_leave(&g);
done:
  free(back);
  return rc;
}

/* Close the HDF5 file (flushing it), fsync it, and checksum it whole for the manifest: a reader then refuses
 * a damaged file before HDF5 parses any of it (HDF5 1.10 is not hardened against corrupt metadata, and leaks
 * on some of its error paths). The read-back comes from the page cache. */
static fl_err fl_h5_seal(fl_ckpt_txn *t, fl_ckpt_file_info *files, size_t max, size_t *n)
{
  fl_err rc = FL_OK;
  hid_t *file = t->impl;
  char path[4096];
  fl_h5_guard g;

  FL_CHECK(max >= 1, FL_ERR_INTERNAL, "hdf5 store: no room to describe %s", FL_H5_FILE);
  fl_vdir_txn_path(&t->vdir, FL_H5_FILE, path, sizeof path);
  fl_h5_enter(&g);
  if (H5Fclose(*file) < 0)
    rc = fl_h5_fail(path, "closing the file");
  *file = H5I_INVALID_HID;
  fl_h5_leave(&g);
  FL_TRY(rc);
  /* Hash first: writeback (started at each put) goes on meanwhile, and the fsync then finds it done. */
  snprintf(files[0].name, sizeof files[0].name, "%s", FL_H5_FILE);
  FL_TRY(fl_vdir_txn_hash(&t->vdir, FL_H5_FILE, &files[0].bytes, &files[0].hash));
  FL_TRY(fl_vdir_sync(&t->vdir, FL_H5_FILE));
  *n = 1;
done:
  return rc;
}

static fl_err fl_h5_prepare(fl_ckpt_txn *t, const void *manifest, size_t n)
{
  return fl_vdir_prepare(&t->vdir, manifest, n);
}

static void fl_h5_close_txn_file(fl_ckpt_txn *t)
{
  hid_t *file = t->impl;
  if (file && *file >= 0) {
    fl_h5_guard g;
    fl_h5_enter(&g);
    H5Fclose(*file);
    fl_h5_leave(&g);
    *file = H5I_INVALID_HID;
  }
}

static fl_err fl_h5_publish(fl_ckpt_txn *t)
{
  fl_err rc;
  fl_h5_close_txn_file(t);
  rc = fl_vdir_publish(&t->vdir);
  free(t->impl);
  free(t);
  return rc;
}

static void fl_h5_abort(fl_ckpt_txn *t)
{
  if (!t)
    return;
  fl_h5_close_txn_file(t);
  fl_vdir_abort(&t->vdir);
  free(t->impl);
  free(t);
}

static fl_err fl_h5_read(fl_ckpt_store *s, long version, const fl_ckpt_entry_info *e, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  hid_t file = H5I_INVALID_HID, ds = H5I_INVALID_HID, space = H5I_INVALID_HID, ftype = H5I_INVALID_HID;
  hid_t type = fl_h5_typed(e) ? fl_h5_type(e->shape.dtype) : H5T_NATIVE_UINT8;
  size_t esize = fl_h5_typed(e) ? fl_ckpt_dtype_size(e->shape.dtype) : 1;
  hssize_t npoints = -1;
  char path[4096], what[160];
  fl_h5_guard g;

  fl_vdir_path(s, version, FL_H5_FILE, path, sizeof path);
  FL_TRY(fl_ckpt_buf_reserve(out, e->stored_bytes + 1));
  snprintf(what, sizeof what, "opening dataset '%s'", e->label);
  {
    /* HDF5 opens what it is given: a FIFO left in the directory would block it */
    struct stat st;
    FL_CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode), FL_ERR_IO, "%s: missing or not a regular file", path);
  }
  fl_h5_enter(&g);
  if ((file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
    rc = fl_h5_fail(path, "opening the file");
  } else if ((ds = H5Dopen2(file, e->label, H5P_DEFAULT)) < 0 || (space = H5Dget_space(ds)) < 0 ||
             (ftype = H5Dget_type(ds)) < 0 || (npoints = H5Sget_simple_extent_npoints(space)) < 0) {
    rc = fl_h5_fail(path, what);
  } else if ((uint64_t)npoints * esize != e->stored_bytes || H5Tget_size(ftype) != esize ||
             H5Tget_class(ftype) != H5Tget_class(type)) {
    rc = fl_err_set(FL_ERR_IO, "%s: dataset '%s' has %lld elements of %zu bytes, the manifest says %llu bytes of %s",
                    path, e->label, (long long)npoints, H5Tget_size(ftype), (unsigned long long)e->stored_bytes,
                    fl_h5_typed(e) ? fl_ckpt_dtype_name(e->shape.dtype) : "u8");
  } else if (H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out->data) < 0) {
    snprintf(what, sizeof what, "reading dataset '%s'", e->label);
    rc = fl_h5_fail(path, what);
  } else {
    out->size = e->stored_bytes;
  }
  if (ftype >= 0)
    H5Tclose(ftype);
  if (space >= 0)
    H5Sclose(space);
  if (ds >= 0)
    H5Dclose(ds);
  if (file >= 0)
    H5Fclose(file);
  fl_h5_leave(&g);
done:
  return rc;
}

static void fl_h5_where(const fl_ckpt_store *s, long version, const char *label, char *buf, size_t size)
{
  char path[4096];
  if (!label) {
    fl_vdir_path(s, version, NULL, buf, size);
    return;
  }
  fl_vdir_path(s, version, FL_H5_FILE, path, sizeof path);
  snprintf(buf, size, "%s:/%s", path, label);
}

const fl_ckpt_store_ops fl_ckpt_store_hdf5_ops = {
    .name = "hdf5",
    .on_disk = 1,
    .open = fl_h5_open,
    .close = fl_vdir_close,
    .begin = fl_h5_begin,
    .put = fl_h5_put,
    .seal = fl_h5_seal,
    .prepare = fl_h5_prepare,
    .publish = fl_h5_publish,
    .abort = fl_h5_abort,
    .list = fl_vdir_list,
    .read_manifest = fl_vdir_read_manifest,
    .read = fl_h5_read,
    .drop = fl_vdir_drop,
    .set_aside = fl_vdir_set_aside,
    .native = fl_h5_native,
    .where = fl_h5_where,
};
