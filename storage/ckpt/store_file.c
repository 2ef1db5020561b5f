/* store_file.c — the "file" store: the Kokkos report's file-system memory space. Each array or object of a
 * version is one file, DIR/vNNN/LABEL.bin, holding exactly its payload (no header: the MANIFEST describes it and
 * carries its checksum). Versions follow the version-directory protocol of vdir.c. */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>

static void fl_file_name(const char *label, char *buf, size_t size)
{
  snprintf(buf, size, "%s.bin", label);
}

static fl_err fl_file_begin(fl_ckpt_store *s, long version, fl_ckpt_txn **out)
{
  fl_err rc = FL_OK;
  fl_ckpt_txn *t = NULL;
  FL_ALLOC(t, 1);
  t->store = s;
  t->version = version;
  t->vdir.fd = -1;
  FL_TRY(fl_vdir_begin(s, version, &t->vdir));
  *out = t;
  t = NULL;
done:
  free(t);
  return rc;
}

static fl_err fl_file_put(fl_ckpt_txn *t, fl_ckpt_entry_info *e, const void *payload)
{
  char name[FL_CKPT_LABEL_MAX + 8];
  fl_file_name(e->label, name, sizeof name);
  return fl_vdir_write(&t->vdir, name, payload, e->stored_bytes, &e->hash);
}

static fl_err fl_file_prepare(fl_ckpt_txn *t, const void *manifest, size_t n)
{
  return fl_vdir_prepare(&t->vdir, manifest, n);
}

static fl_err fl_file_publish(fl_ckpt_txn *t)
{
  fl_err rc = fl_vdir_publish(&t->vdir);
  free(t);
  return rc;
}

static void fl_file_abort(fl_ckpt_txn *t)
{
  if (!t)
    return;
  fl_vdir_abort(&t->vdir);
  free(t);
}

static fl_err fl_file_read(fl_ckpt_store *s, long version, const fl_ckpt_entry_info *e, fl_ckpt_buf *out)
{
  char name[FL_CKPT_LABEL_MAX + 8];
  fl_file_name(e->label, name, sizeof name);
  return fl_vdir_read(s, version, name, out);
}

static void fl_file_where(const fl_ckpt_store *s, long version, const char *label, char *buf, size_t size)
{
  char name[FL_CKPT_LABEL_MAX + 8];
  if (label)
    fl_file_name(label, name, sizeof name);
  fl_vdir_path(s, version, label ? name : NULL, buf, size);
}

const fl_ckpt_store_ops fl_ckpt_store_file_ops = {
    .name = "file",
    .on_disk = 1,
    .open = fl_vdir_open,
    .close = fl_vdir_close,
    .begin = fl_file_begin,
    .put = fl_file_put,
    .prepare = fl_file_prepare,
    .publish = fl_file_publish,
    .abort = fl_file_abort,
    .list = fl_vdir_list,
    .read_manifest = fl_vdir_read_manifest,
    .read = fl_file_read,
    .drop = fl_vdir_drop,
    .set_aside = fl_vdir_set_aside,
    .where = fl_file_where,
};
