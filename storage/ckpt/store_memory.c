/* store_memory.c — the "memory" store: versions kept in this process's memory, gone with the fl_ckpt. For
 * rollback after a failed consistency check without touching a file system, and for tests. It keeps the same
 * contract as the on-disk stores (a version is visible only once published; retention; checksums), so the
 * conformance suite runs on it too; it is not durable and survives no crash. */
#include "store_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_mem_entry {
  char label[FL_CKPT_LABEL_MAX + 1];
  fl_ckpt_buf payload;
} fl_mem_entry;

typedef struct fl_mem_version {
  long version;
  fl_ckpt_buf manifest;
  fl_mem_entry *e;
  size_t n, cap;
} fl_mem_version;

typedef struct fl_mem_store {
  fl_mem_version **v; /* ascending version */
  size_t n, cap;
} fl_mem_store;

static void fl_mem_version_free(fl_mem_version *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->n; i++)
    fl_ckpt_buf_free(&v->e[i].payload);
  free(v->e);
  fl_ckpt_buf_free(&v->manifest);
  free(v);
}

static fl_mem_version *fl_mem_find(fl_ckpt_store *s, long version, size_t *at)
{
  fl_mem_store *m = s->impl;
  for (size_t i = 0; i < m->n; i++)
    if (m->v[i]->version == version) {
      if (at)
        *at = i;
      return m->v[i];
    }
  return NULL;
}

static fl_err fl_mem_open(fl_ckpt_store *s)
{
  fl_err rc = FL_OK;
  fl_mem_store *m = NULL;
  FL_CHECK(!s->read_only, FL_ERR_INPUT, "the 'memory' store cannot be opened read-only: it lives in one fl_ckpt");
  FL_ALLOC(m, 1);
  s->impl = m;
done:
  return rc;
}

static void fl_mem_close(fl_ckpt_store *s)
{
  fl_mem_store *m = s->impl;
  if (!m)
    return;
  for (size_t i = 0; i < m->n; i++)
    fl_mem_version_free(m->v[i]);
  free(m->v);
  free(m);
  s->impl = NULL;
}

static fl_err fl_mem_begin(fl_ckpt_store *s, long version, fl_ckpt_txn **out)
{
  fl_err rc = FL_OK;
  fl_ckpt_txn *t = NULL;
  fl_mem_version *v = NULL;
  FL_CHECK(!fl_mem_find(s, version, NULL), FL_ERR_INPUT,
           "memory store: version %ld already exists; versions are never overwritten", version);
  FL_ALLOC(t, 1);
  FL_ALLOC(v, 1);
  v->version = version;
  t->store = s;
  t->version = version;
  t->impl = v;
  *out = t;
  t = NULL;
  v = NULL;
done:
  free(t);
  free(v);
  return rc;
}

static fl_err fl_mem_put(fl_ckpt_txn *t, fl_ckpt_entry_info *e, const void *payload)
{
  fl_err rc = FL_OK;
  fl_mem_version *v = t->impl;
  fl_mem_entry *x;
  if (v->n == v->cap) {
    size_t nc = v->cap ? 2 * v->cap : 8;
    fl_mem_entry *g = realloc(v->e, nc * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "memory store: out of memory");
    v->e = g;
    v->cap = nc;
  }
  x = &v->e[v->n];
  memset(x, 0, sizeof *x);
  snprintf(x->label, sizeof x->label, "%s", e->label);
  FL_TRY(fl_ckpt_buf_reserve(&x->payload, e->stored_bytes));
  memcpy(x->payload.data, payload, e->stored_bytes);
  x->payload.size = e->stored_bytes;
  e->hash = fl_ckpt_hash(x->payload.data, e->stored_bytes);
  v->n++;
done:
  return rc;
}

static fl_err fl_mem_prepare(fl_ckpt_txn *t, const void *manifest, size_t n)
{
  fl_err rc = FL_OK;
  fl_mem_version *v = t->impl;
  FL_TRY(fl_ckpt_buf_reserve(&v->manifest, n));
  memcpy(v->manifest.data, manifest, n);
  v->manifest.size = n;
done:
  return rc;
}

static fl_err fl_mem_publish(fl_ckpt_txn *t)
{
  fl_err rc = FL_OK;
  fl_mem_store *m = t->store->impl;
  fl_mem_version *v = t->impl;
  size_t at;
  if (m->n == m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 8;
    fl_mem_version **g = realloc(m->v, nc * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "memory store: out of memory");
    m->v = g;
    m->cap = nc;
  }
  for (at = m->n; at > 0 && m->v[at - 1]->version > v->version; at--)
    m->v[at] = m->v[at - 1];
  m->v[at] = v;
  m->n++;
  v = NULL;
done:
  fl_mem_version_free(v);
  free(t);
  return rc;
}

static void fl_mem_abort(fl_ckpt_txn *t)
{
  if (!t)
    return;
  fl_mem_version_free(t->impl);
  free(t);
}

static fl_err fl_mem_list(fl_ckpt_store *s, long **versions, size_t *n)
{
  fl_err rc = FL_OK;
  fl_mem_store *m = s->impl;
  long *v = NULL;
  *versions = NULL;
  *n = 0;
  if (m->n == 0)
    goto done;
  FL_ALLOC(v, m->n);
  for (size_t i = 0; i < m->n; i++)
    v[i] = m->v[i]->version;
  *versions = v;
  *n = m->n;
done:
  return rc;
}

static fl_err fl_mem_copy(const fl_ckpt_buf *from, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_buf_reserve(out, from->size + 1));
  memcpy(out->data, from->data, from->size);
  out->data[from->size] = '\0';
  out->size = from->size;
done:
  return rc;
}

static fl_err fl_mem_read_manifest(fl_ckpt_store *s, long version, fl_ckpt_buf *out)
{
  fl_mem_version *v = fl_mem_find(s, version, NULL);
  if (!v)
    return fl_err_set(FL_ERR_IO, "memory:v%ld: no such version", version);
  return fl_mem_copy(&v->manifest, out);
}

static fl_err fl_mem_read(fl_ckpt_store *s, long version, const fl_ckpt_entry_info *e, fl_ckpt_buf *out)
{
  fl_mem_version *v = fl_mem_find(s, version, NULL);
  for (size_t i = 0; v && i < v->n; i++)
    if (strcmp(v->e[i].label, e->label) == 0)
      return fl_mem_copy(&v->e[i].payload, out);
  return fl_err_set(FL_ERR_IO, "memory:v%ld/%s: missing", version, e->label);
}

static fl_err fl_mem_drop(fl_ckpt_store *s, long version)
{
  fl_mem_store *m = s->impl;
  size_t at;
  fl_mem_version *v = fl_mem_find(s, version, &at);
  if (!v)
    return fl_err_set(FL_ERR_IO, "memory:v%ld: no such version", version);
  memmove(&m->v[at], &m->v[at + 1], (m->n - at - 1) * sizeof *m->v);
  m->n--;
  fl_mem_version_free(v);
  return FL_OK;
}

static fl_err fl_mem_set_aside(fl_ckpt_store *s, long version, char *where, size_t size)
{
  snprintf(where, size, "nowhere (the memory store drops it)");
  return fl_mem_drop(s, version);
}

static void fl_mem_where(const fl_ckpt_store *s, long version, const char *label, char *buf, size_t size)
{
  (void)s;
  snprintf(buf, size, "memory:v%ld%s%s", version, label ? "/" : "", label ? label : "");
}

const fl_ckpt_store_ops fl_ckpt_store_memory_ops = {
    .name = "memory",
    .on_disk = 0,
    .open = fl_mem_open,
    .close = fl_mem_close,
    .begin = fl_mem_begin,
    .put = fl_mem_put,
    .prepare = fl_mem_prepare,
    .publish = fl_mem_publish,
    .abort = fl_mem_abort,
    .list = fl_mem_list,
    .read_manifest = fl_mem_read_manifest,
    .read = fl_mem_read,
    .drop = fl_mem_drop,
    .set_aside = fl_mem_set_aside,
    .where = fl_mem_where,
};
