/* store.c — the checkpoint store registry and how a store is opened (see store_impl.h). */
#include "store_impl.h"

#include <stdlib.h>
#include <string.h>

static const fl_ckpt_store_ops *const fl_ckpt_stores[] = {
    &fl_ckpt_store_file_ops,
#if FL_HAVE_HDF5
    &fl_ckpt_store_hdf5_ops,
#endif
    &fl_ckpt_store_memory_ops,
};
#define FL_CKPT_NSTORES ((int)(sizeof fl_ckpt_stores / sizeof fl_ckpt_stores[0]))

int fl_ckpt_store_count(void)
{
  return FL_CKPT_NSTORES;
}
const char *fl_ckpt_store_name(int i)
{
  return (i >= 0 && i < FL_CKPT_NSTORES) ? fl_ckpt_stores[i]->name : NULL;
}

fl_err fl_ckpt_store_open(const fl_ckpt_opts *o, fl_ckpt_store **out)
{
  fl_err rc = FL_OK;
  const char *name = o->store, *path = o->path;
  int read_only = o->read_only;
  fl_ckpt_store *s = NULL;
  const fl_ckpt_store_ops *ops = NULL;
  char detected[64], known[128] = "";

  *out = NULL;
  if (!name) {
    FL_CHECK(read_only && path && *path, FL_ERR_INPUT, "no checkpoint store type given (known: file, hdf5, memory)");
    FL_TRY(fl_vdir_format(path, detected, sizeof detected));
    name = detected;
  }
  for (int i = 0; i < FL_CKPT_NSTORES; i++) {
    if (strcmp(fl_ckpt_stores[i]->name, name) == 0)
      ops = fl_ckpt_stores[i];
    strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, fl_ckpt_stores[i]->name, sizeof known - strlen(known) - 1);
  }
  FL_CHECK(ops != NULL, FL_ERR_INPUT, "%s%sunknown checkpoint store '%s' (known in this build: %s)",
           path && name == detected ? path : "", path && name == detected ? ": " : "", name, known);
  FL_CHECK(!ops->on_disk || (path && *path), FL_ERR_INPUT, "checkpoint store '%s' needs a directory (path)", name);
  FL_ALLOC(s, 1);
  s->ops = ops;
  s->read_only = read_only;
  s->root_fd = s->lock_fd = -1;
  s->zfp_filter = o->hdf5_zfp_filter;
  s->take_over = o->take_over;
  FL_CHECK(!o->hdf5_zfp_filter || strcmp(ops->name, "hdf5") == 0, FL_ERR_INPUT,
           "hdf5_zfp_filter is an option of the 'hdf5' store, not of '%s'", ops->name);
  if (path) {
    FL_ALLOC(s->path, strlen(path) + 1);
    strcpy(s->path, path);
  }
  rc = ops->open(s);
  if (rc != FL_OK) {
    ops->close(s);
    free(s->path);
    free(s);
    s = NULL;
    goto done;
  }
  *out = s;
  s = NULL;
done:
  free(s);
  return rc;
}

void fl_ckpt_store_close(fl_ckpt_store **ps)
{
  fl_ckpt_store *s = ps ? *ps : NULL;
  if (!s)
    return;
  s->ops->close(s);
  free(s->path);
  free(s);
  *ps = NULL;
}
