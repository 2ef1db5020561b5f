/* ckpt.c — the checkpoint API (see ckpt.h): registration, the split-phase writer, restore, verify, retention,
 * and the guard and region patterns.
 *
 * Split phase (GPI CP's start/commit): start runs the consistency checks and tolerance rules and copies every
 * registered array into the library's own buffers (objects are serialized there), so the application may change
 * its data as soon as start returns; a background thread then encodes, checksums and writes each payload and
 * the manifest into the store's invisible transaction. commit joins the thread and publishes: that one atomic
 * step is the commit point. The cost of the overlap is memory: one snapshot of every array (plus the encoded payload
 * for lossy codecs), reused from one checkpoint to the next. fl_ckpt_write, which returns only after the commit, needs
 * no snapshot: the arrays cannot change meanwhile, so the writer reads (and writes out) the application's own
 * memory, and a synchronous checkpoint costs no copy.
 *
 * Restore is all or nothing: payloads are read, checked against the manifest's XXH3-64, decoded into the same
 * library buffers and passed through the user's consistency checks, and only when every one succeeded are the
 * application's arrays overwritten. FL_CKPT_LATEST walks back from the newest version past those that fail
 * (corrupt, torn, refused by a check), warning about each. */
#include "ckpt.h"

#include "store_impl.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fl_ckpt_slot {
  fl_ckpt_entry_info info;   /* label, shape, codec, object type; params, sizes and hash of the last write */
  void *data;                /* the application's array or object, borrowed */
  fl_ckpt_codec_cfg cfg;     /* cfg.name is not kept: info.codec is the codec */
  const fl_ckpt_type *otype; /* objects only */
  fl_ckpt_buf snap;          /* snapshot of the array (split phase); decode target on restore */
  fl_ckpt_buf payload;       /* encoded payload, or an object's record */
  const void *src;           /* what this checkpoint encodes or writes: snap.data, or data itself */
  fl_ckpt_check_fn check;    /* user consistency check, or NULL */
  void *check_user;
} fl_ckpt_slot;

struct fl_ckpt {
  fl_ckpt_store *store;
  int keep;
  fl_ckpt_warn_fn warn;
  void *warn_user;
  int refused; /* the last start was refused by a consistency check */
  fl_ckpt_slot *slots;
  size_t nslots, capslots;
  /* the checkpoint in flight */
  int in_flight;
  long version;
  fl_ckpt_txn *txn;
  pthread_t thread;
  fl_err job_rc;
  char job_msg[1024];
  char created[32];
  char writing_region[FL_CKPT_LABEL_MAX + 1]; /* region label of the checkpoint in flight, "" for none */
  fl_ckpt_buf manifest;
  /* fl_ckpt_region */
  char region[FL_CKPT_LABEL_MAX + 1];
  long region_resume;
};

static int fl_ckpt_slot_encoded(const fl_ckpt_slot *s)
{
  return !s->otype && strcmp(s->info.codec, "none") != 0;
}

/* Copy of the current error message, for re-raising it with more context. */
static void fl_ckpt_msg_copy(char *buf, size_t size)
{
  snprintf(buf, size, "%s", fl_err_msg());
}

/* ---- lifecycle ---- */

static fl_err fl_ckpt_retain(fl_ckpt *ck);

fl_err fl_ckpt_create(const fl_ckpt_opts *o, fl_ckpt **out)
{
  fl_err rc = FL_OK;
  fl_ckpt *ck = NULL;

  *out = NULL;
  FL_CHECK(o != NULL, FL_ERR_INPUT, "fl_ckpt_create: no options");
  FL_CHECK(o->keep >= 0, FL_ERR_INPUT, "checkpoint retention keep=%d (expected >= 1, or 0 to keep every version)",
           o->keep);
  FL_ALLOC(ck, 1);
  ck->keep = o->keep;
  ck->version = -1;
  ck->warn = o->warn;
  ck->warn_user = o->warn_user;
  FL_TRY(fl_ckpt_store_open(o, &ck->store));
  if (!o->read_only) /* a writer killed between a commit and its retention left one version too many */
    FL_TRY(fl_ckpt_retain(ck));
  *out = ck;
  ck = NULL;
done:
  fl_ckpt_destroy(&ck);
  return rc;
}

void fl_ckpt_destroy(fl_ckpt **pck)
{
  fl_ckpt *ck = pck ? *pck : NULL;
  if (!ck)
    return;
  if (ck->in_flight) {
    pthread_join(ck->thread, NULL);
    ck->store->ops->abort(ck->txn);
  }
  for (size_t i = 0; i < ck->nslots; i++) {
    fl_ckpt_buf_free(&ck->slots[i].snap);
    fl_ckpt_buf_free(&ck->slots[i].payload);
  }
  free(ck->slots);
  fl_ckpt_buf_free(&ck->manifest);
  fl_ckpt_store_close(&ck->store);
  free(ck);
  *pck = NULL;
}

const char *fl_ckpt_store_type(const fl_ckpt *ck)
{
  return ck->store->ops->name;
}
const char *fl_ckpt_path(const fl_ckpt *ck)
{
  return ck->store->path ? ck->store->path : "memory";
}
long fl_ckpt_in_flight(const fl_ckpt *ck)
{
  return ck->in_flight ? ck->version : -1;
}

/* ---- registration ---- */

static fl_ckpt_slot *fl_ckpt_find(fl_ckpt *ck, const char *label)
{
  for (size_t i = 0; i < ck->nslots; i++)
    if (strcmp(ck->slots[i].info.label, label) == 0)
      return &ck->slots[i];
  return NULL;
}

static fl_err fl_ckpt_new_slot(fl_ckpt *ck, const char *label, fl_ckpt_slot **out)
{
  fl_err rc = FL_OK;
  FL_CHECK(!ck->in_flight, FL_ERR_INPUT, "cannot register '%s' while checkpoint %ld is in flight", label, ck->version);
  FL_TRY(fl_ckpt_label_check(label));
  FL_CHECK(!fl_ckpt_find(ck, label), FL_ERR_INPUT, "checkpoint label '%s' is already registered", label);
  if (ck->nslots == ck->capslots) {
    size_t nc = ck->capslots ? 2 * ck->capslots : 8;
    fl_ckpt_slot *g = realloc(ck->slots, nc * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory registering '%s'", label);
    ck->slots = g;
    ck->capslots = nc;
  }
  *out = &ck->slots[ck->nslots];
  memset(*out, 0, sizeof **out);
  snprintf((*out)->info.label, sizeof(*out)->info.label, "%s", label);
done:
  return rc;
}

fl_err fl_ckpt_register(fl_ckpt *ck, const fl_ckpt_array *a)
{
  fl_err rc = FL_OK;
  fl_ckpt_slot *s;
  const char *codec = a->codec.name ? a->codec.name : "none";

  FL_CHECK(a->label != NULL, FL_ERR_INPUT, "fl_ckpt_register: array without a label");
  FL_CHECK(a->data != NULL, FL_ERR_INPUT, "array '%s': no data (NULL)", a->label);
  FL_CHECK(strlen(codec) < sizeof s->info.codec, FL_ERR_INPUT, "array '%s': codec name '%s' too long", a->label, codec);
  FL_TRY(fl_ckpt_codec_check(&a->codec, &a->shape, a->label));
  FL_TRY(fl_ckpt_new_slot(ck, a->label, &s));
  s->info.shape = a->shape;
  snprintf(s->info.codec, sizeof s->info.codec, "%s", codec);
  s->info.raw_bytes = fl_ckpt_shape_bytes(&a->shape);
  s->data = a->data;
  s->cfg = a->codec;
  s->cfg.name = NULL;
  ck->nslots++;
done:
  return rc;
}

fl_err fl_ckpt_register_object(fl_ckpt *ck, const char *label, const fl_ckpt_type *t, void *obj)
{
  fl_err rc = FL_OK;
  fl_ckpt_slot *s;

  FL_CHECK(label != NULL && obj != NULL && t != NULL, FL_ERR_INPUT, "object '%s': no type or no object",
           label ? label : "?");
  FL_TRY(fl_ckpt_type_check(t));
  FL_CHECK(strlen(t->name) < sizeof s->info.object_type, FL_ERR_INPUT, "object '%s': type name '%s' too long", label,
           t->name);
  FL_TRY(fl_ckpt_new_slot(ck, label, &s));
  snprintf(s->info.codec, sizeof s->info.codec, "none");
  snprintf(s->info.object_type, sizeof s->info.object_type, "%s", t->name);
  s->info.object_version = t->version;
  s->data = obj;
  s->otype = t;
  ck->nslots++;
done:
  return rc;
}

fl_err fl_ckpt_set_check(fl_ckpt *ck, const char *label, fl_ckpt_check_fn check, void *user)
{
  fl_ckpt_slot *s = label ? fl_ckpt_find(ck, label) : NULL;
  if (!s)
    return fl_err_set(FL_ERR_INPUT, "%s: '%s' is not a registered label", fl_ckpt_path(ck), label ? label : "(null)");
  s->check = check;
  s->check_user = user;
  return FL_OK;
}

static void fl_ckpt_warn(fl_ckpt *ck, const char *msg)
{
  if (ck->warn)
    ck->warn(ck->warn_user, msg);
  else
    fprintf(stderr, "faultline: warning: %s\n", msg);
}

/* Run slot s's check on data (the slot's array, or its struct): 1 when consistent or unchecked. */
static int fl_ckpt_slot_ok(const fl_ckpt_slot *s, long version, const void *data, int restoring)
{
  fl_ckpt_shape obj;
  fl_ckpt_check_args a = {s->info.label, version, &s->info.shape, data, restoring};
  if (!s->check)
    return 1;
  if (s->otype) {
    obj = (fl_ckpt_shape){FL_CKPT_U8, 1, {s->otype->size}};
    a.shape = &obj;
  }
  return s->check(s->check_user, &a) != 0;
}

/* ---- writing ---- */

static void *fl_ckpt_writer(void *arg)
{
  fl_ckpt *ck = arg;
  fl_err rc = FL_OK;
  fl_ckpt_manifest m = {0};
  fl_ckpt_file_info files[4];
  const fl_ckpt_store_ops *ops = ck->store->ops;

  fl_err_clear();
  FL_ALLOC(m.entries, ck->nslots);
  for (size_t i = 0; i < ck->nslots; i++) {
    fl_ckpt_slot *s = &ck->slots[i];
    const void *out = s->src; /* the bytes themselves (codec none; an object's record; a store's codec) ... */
    s->info.stored_bytes = s->info.raw_bytes;
    s->info.filter[0] = '\0';
    if (fl_ckpt_slot_encoded(s) && !(ops->native && ops->native(ck->store, s->info.codec))) { /* ... or encoded */
      FL_TRY(fl_ckpt_codec_encode(s->info.codec, &s->info.params, &s->info.shape, s->src, &s->payload));
      out = s->payload.data;
      s->info.stored_bytes = s->payload.size;
    }
    FL_TRY(ops->put(ck->txn, &s->info, out)); /* sets info.hash */
    m.entries[i] = s->info;
  }
  if (ops->seal) {
    FL_TRY(ops->seal(ck->txn, files, sizeof files / sizeof files[0], &m.nfiles));
    m.files = files;
  }
  m.version = ck->version;
  m.nentries = ck->nslots;
  snprintf(m.store, sizeof m.store, "%s", ops->name);
  snprintf(m.created, sizeof m.created, "%s", ck->created);
  snprintf(m.region, sizeof m.region, "%s", ck->writing_region);
  FL_TRY(fl_ckpt_manifest_format(&m, &ck->manifest));
  FL_TRY(ops->prepare(ck->txn, ck->manifest.data, ck->manifest.size));
done:
  free(m.entries); /* m.files is on the stack */
  ck->job_rc = rc;
  if (rc != FL_OK)
    fl_ckpt_msg_copy(ck->job_msg, sizeof ck->job_msg);
  return NULL;
}

/* Start checkpoint `version` (of region `region`, NULL for none); with snapshot = 0 the caller promises not to
 * touch its arrays until the commit. */
static fl_err fl_ckpt_begin(fl_ckpt *ck, long version, int snapshot, const char *region)
{
  fl_err rc = FL_OK;
  long latest;
  time_t now = time(NULL);
  struct tm tm;

  FL_CHECK(!ck->store->read_only, FL_ERR_INPUT, "%s: opened read-only; cannot write checkpoint %ld", fl_ckpt_path(ck),
           version);
  FL_CHECK(!ck->in_flight, FL_ERR_INPUT, "checkpoint %ld is still in flight; commit it before starting %ld",
           ck->version, version);
  FL_CHECK(version >= 0 && version <= FL_CKPT_VERSION_MAX, FL_ERR_INPUT, "checkpoint version %ld out of range (0..%ld)",
           version, FL_CKPT_VERSION_MAX);
  FL_TRY(fl_ckpt_latest(ck, &latest));
  FL_CHECK(version > latest, FL_ERR_INPUT,
           "%s: checkpoint version %ld is not newer than the latest committed version %ld", fl_ckpt_path(ck), version,
           latest);
  ck->refused = 0;
  for (size_t i = 0; i < ck->nslots; i++) {
    if (!fl_ckpt_slot_ok(&ck->slots[i], version, ck->slots[i].data, 0)) {
      ck->refused = 1;
      rc = fl_err_set(FL_ERR_INPUT, "%s: checkpoint %ld refused: '%s' fails its consistency check", fl_ckpt_path(ck),
                      version, ck->slots[i].info.label);
      goto done;
    }
  }
  snprintf(ck->writing_region, sizeof ck->writing_region, "%s", region ? region : "");
  for (size_t i = 0; i < ck->nslots; i++) {
    fl_ckpt_slot *s = &ck->slots[i];
    if (s->otype) {
      FL_TRY(fl_ckpt_serialize(s->otype, s->data, &s->payload));
      s->info.shape = (fl_ckpt_shape){FL_CKPT_U8, 1, {s->payload.size}};
      s->info.raw_bytes = s->payload.size;
      s->src = s->payload.data;
    } else {
      fl_ckpt_rule_args ra = {s->info.label, version, &s->info.shape, s->data};
      fl_ckpt_codec_cfg cfg = s->cfg;
      cfg.name = s->info.codec;
      FL_TRY(fl_ckpt_codec_resolve(&cfg, &ra, &s->info.params));
      s->src = s->data;
      if (snapshot) {
        FL_TRY(fl_ckpt_buf_reserve(&s->snap, s->info.raw_bytes));
        memcpy(s->snap.data, s->data, s->info.raw_bytes);
        s->src = s->snap.data;
      }
    }
  }
  gmtime_r(&now, &tm);
  strftime(ck->created, sizeof ck->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
  FL_TRY(ck->store->ops->begin(ck->store, version, &ck->txn));
  ck->version = version;
  ck->job_rc = FL_OK;
  ck->job_msg[0] = '\0';
  if (pthread_create(&ck->thread, NULL, fl_ckpt_writer, ck) != 0) {
    ck->store->ops->abort(ck->txn);
    ck->txn = NULL;
    rc = fl_err_set(FL_ERR_IO, "cannot start the checkpoint writer thread for version %ld", version);
    goto done;
  }
  ck->in_flight = 1;
done:
  return rc;
}

fl_err fl_ckpt_start(fl_ckpt *ck, long version)
{
  return fl_ckpt_begin(ck, version, 1, NULL);
}

/* Drop the oldest versions beyond ck->keep. Runs after a commit, so the newest is durable already. */
static fl_err fl_ckpt_retain(fl_ckpt *ck)
{
  fl_err rc = FL_OK;
  long *v = NULL;
  size_t n = 0;
  if (ck->keep <= 0)
    return FL_OK;
  FL_TRY(ck->store->ops->list(ck->store, &v, &n));
  for (size_t i = 0; i + (size_t)ck->keep < n; i++)
    FL_TRY(ck->store->ops->drop(ck->store, v[i]));
done:
  free(v);
  return rc;
}

fl_err fl_ckpt_commit(fl_ckpt *ck)
{
  fl_err rc = FL_OK;
  fl_ckpt_txn *txn = ck->txn;
  char msg[1024];

  FL_CHECK(ck->in_flight, FL_ERR_INPUT, "%s: no checkpoint in flight to commit", fl_ckpt_path(ck));
  pthread_join(ck->thread, NULL);
  ck->in_flight = 0;
  ck->txn = NULL;
  if (ck->job_rc != FL_OK) {
    ck->store->ops->abort(txn);
    rc = fl_err_set(ck->job_rc, "checkpoint %ld not written: %s", ck->version, ck->job_msg);
    goto done;
  }
  FL_TRY(ck->store->ops->publish(txn));
  if (fl_ckpt_retain(ck) != FL_OK) {
    fl_ckpt_msg_copy(msg, sizeof msg);
    rc = fl_err_set(FL_ERR_IO, "checkpoint %ld is committed, but removing older versions failed: %s", ck->version, msg);
  }
done:
  return rc;
}

fl_err fl_ckpt_write(fl_ckpt *ck, long version)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_begin(ck, version, 0, NULL));
  FL_TRY(fl_ckpt_commit(ck));
done:
  return rc;
}

/* ---- reading ---- */

fl_err fl_ckpt_versions(fl_ckpt *ck, long **versions, size_t *n)
{
  return ck->store->ops->list(ck->store, versions, n);
}

fl_err fl_ckpt_latest(fl_ckpt *ck, long *version)
{
  fl_err rc = FL_OK;
  long *v = NULL;
  size_t n = 0;
  *version = -1;
  FL_TRY(ck->store->ops->list(ck->store, &v, &n));
  if (n)
    *version = v[n - 1];
done:
  free(v);
  return rc;
}

/* Committed `version` exists (FL_ERR_INPUT naming what there is otherwise). */
static fl_err fl_ckpt_need_version(fl_ckpt *ck, long version)
{
  fl_err rc = FL_OK;
  long *v = NULL;
  size_t n = 0, i;
  FL_TRY(ck->store->ops->list(ck->store, &v, &n));
  for (i = 0; i < n && v[i] != version; i++)
    ;
  FL_CHECK(i < n, FL_ERR_INPUT, "%s: no committed checkpoint version %ld (%zu version%s%s)", fl_ckpt_path(ck), version,
           n, n == 1 ? "" : "s", n ? ", see 'faultline ckpt ls'" : "");
done:
  free(v);
  return rc;
}

static fl_err fl_ckpt_load_manifest(fl_ckpt *ck, long version, fl_ckpt_manifest *m)
{
  fl_err rc = FL_OK;
  fl_ckpt_buf b = {0};
  char where[4200];
  ck->store->ops->where(ck->store, version, NULL, where, sizeof where);
  strncat(where, "/MANIFEST", sizeof where - strlen(where) - 1);
  FL_TRY(ck->store->ops->read_manifest(ck->store, version, &b));
  FL_TRY(fl_ckpt_manifest_parse(b.data, b.size, where, m));
  FL_CHECK(m->version == version, FL_ERR_IO, "%s: manifest of version %ld found under version %ld", where, m->version,
           version);
done:
  fl_ckpt_buf_free(&b);
  return rc;
}

/* The whole files the manifest lists (the HDF5 store's) have their recorded size and checksum: checked before
 * anything reads inside them. */
static fl_err fl_ckpt_check_files(fl_ckpt *ck, long version, const fl_ckpt_manifest *m)
{
  fl_err rc = FL_OK;
  char where[4200];
  for (size_t i = 0; i < m->nfiles; i++) {
    const fl_ckpt_file_info *f = &m->files[i];
    uint64_t bytes = 0, hash = 0;
    FL_CHECK(ck->store->ops->on_disk, FL_ERR_IO, "%s: manifest lists a file '%s'", fl_ckpt_path(ck), f->name);
    fl_vdir_path(ck->store, version, f->name, where, sizeof where);
    FL_TRY(fl_vdir_hash(ck->store, version, f->name, &bytes, &hash));
    FL_CHECK(bytes == f->bytes, FL_ERR_IO, "%s: corrupt: %" PRIu64 " bytes, the manifest says %" PRIu64, where, bytes,
             f->bytes);
    FL_CHECK(hash == f->hash, FL_ERR_IO, "%s: corrupt: checksum %016" PRIx64 ", the manifest says %016" PRIx64, where,
             hash, f->hash);
  }
done:
  return rc;
}

fl_err fl_ckpt_manifest_load(fl_ckpt *ck, long version, fl_ckpt_manifest **out)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest *m = NULL;
  *out = NULL;
  FL_TRY(fl_ckpt_need_version(ck, version));
  FL_ALLOC(m, 1);
  FL_TRY(fl_ckpt_load_manifest(ck, version, m));
  *out = m;
  m = NULL;
done:
  fl_ckpt_manifest_destroy(&m);
  return rc;
}

void fl_ckpt_manifest_destroy(fl_ckpt_manifest **pm)
{
  if (!pm || !*pm)
    return;
  fl_ckpt_manifest_clear(*pm);
  free(*pm);
  *pm = NULL;
}

/* Read entry e's payload into out and check its size and checksum (FL_ERR_IO naming where it lives). */
static fl_err fl_ckpt_read_payload(fl_ckpt *ck, long version, const fl_ckpt_entry_info *e, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  char where[4200], msg[1024];
  uint64_t h;
  ck->store->ops->where(ck->store, version, e->label, where, sizeof where);
  rc = ck->store->ops->read(ck->store, version, e, out);
  if (rc != FL_OK) {
    fl_ckpt_msg_copy(msg, sizeof msg);
    rc = fl_err_set(rc, "checkpoint %ld, '%s': %s", version, e->label, msg);
    goto done;
  }
  FL_CHECK(out->size == e->stored_bytes, FL_ERR_IO, "%s: corrupt: %zu bytes, the manifest says %" PRIu64, where,
           out->size, e->stored_bytes);
  h = fl_ckpt_hash(out->data, out->size);
  FL_CHECK(h == e->hash, FL_ERR_IO, "%s: corrupt: checksum %016" PRIx64 ", the manifest says %016" PRIx64, where, h,
           e->hash);
done:
  return rc;
}

/* Decode a checked payload of entry e into out (raw bytes of an array; an object's record is kept as is). */
static fl_err fl_ckpt_decode(fl_ckpt *ck, long version, const fl_ckpt_entry_info *e, const fl_ckpt_buf *payload,
                             void *raw)
{
  fl_err rc;
  char where[4200], msg[1024];
  if (e->object_type[0]) {
    rc = fl_ckpt_record_info(payload->data, payload->size, NULL, 0, NULL);
    if (rc == FL_OK)
      memcpy(raw, payload->data, payload->size);
  } else if (e->filter[0]) { /* decoded by the store (HDF5 filter) */
    rc = payload->size == e->raw_bytes
             ? FL_OK
             : fl_err_set(FL_ERR_IO, "%zu bytes, expected %" PRIu64, payload->size, e->raw_bytes);
    if (rc == FL_OK)
      memcpy(raw, payload->data, payload->size);
  } else {
    rc = fl_ckpt_codec_decode(e->codec, &e->shape, payload->data, payload->size, raw);
  }
  if (rc != FL_OK) {
    ck->store->ops->where(ck->store, version, e->label, where, sizeof where);
    fl_ckpt_msg_copy(msg, sizeof msg);
    rc = fl_err_set(rc, "%s: %s", where, msg);
  }
  return rc;
}

/* Is the manifest entry what slot s expects? FL_ERR_INPUT saying what differs. */
static fl_err fl_ckpt_match(fl_ckpt *ck, long version, const fl_ckpt_slot *s, const fl_ckpt_entry_info *e)
{
  fl_err rc = FL_OK;
  char a[128], b[128];
  FL_CHECK(e != NULL, FL_ERR_INPUT, "%s: checkpoint version %ld has no entry '%s'", fl_ckpt_path(ck), version,
           s->info.label);
  if (s->otype) {
    FL_CHECK(strcmp(e->object_type, s->otype->name) == 0, FL_ERR_INPUT,
             "%s: checkpoint version %ld: '%s' holds %s%s, registered as an object of type '%s'", fl_ckpt_path(ck),
             version, s->info.label, e->object_type[0] ? "an object of type " : "an array", e->object_type,
             s->otype->name);
  } else {
    FL_CHECK(!e->object_type[0] && e->shape.dtype == s->info.shape.dtype && e->shape.ndims == s->info.shape.ndims &&
                 memcmp(e->shape.dims, s->info.shape.dims, (size_t)e->shape.ndims * sizeof e->shape.dims[0]) == 0,
             FL_ERR_INPUT, "%s: checkpoint version %ld: '%s' holds %s %s%s, registered as %s %s", fl_ckpt_path(ck),
             version, s->info.label, fl_ckpt_dtype_name(e->shape.dtype), fl_ckpt_shape_format(&e->shape, a, sizeof a),
             e->object_type[0] ? " (an object)" : "", fl_ckpt_dtype_name(s->info.shape.dtype),
             fl_ckpt_shape_format(&s->info.shape, b, sizeof b));
  }
done:
  return rc;
}

/* Restore the registered slots (all, or the one labelled `only`) from `version`, all or nothing. *skippable
 * says whether a failure makes FL_CKPT_LATEST try the version before: the version is damaged (FL_ERR_IO) or
 * its data fails a consistency check, as opposed to not matching what is registered. */
static fl_err fl_ckpt_restore_version(fl_ckpt *ck, long version, const char *only, int *skippable)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest m = {0};

  *skippable = 0;
  FL_TRY(fl_ckpt_load_manifest(ck, version, &m));
  FL_TRY(fl_ckpt_check_files(ck, version, &m));
  for (size_t i = 0; i < ck->nslots; i++) {
    fl_ckpt_slot *s = &ck->slots[i];
    const fl_ckpt_entry_info *e;
    if (only && strcmp(only, s->info.label) != 0)
      continue;
    e = fl_ckpt_manifest_find(&m, s->info.label);
    FL_TRY(fl_ckpt_match(ck, version, s, e));
    FL_TRY(fl_ckpt_read_payload(ck, version, e, &s->payload));
    if (s->otype) {
      /* Deserialize into a copy: fields newer than the record keep the object's current values. */
      FL_TRY(fl_ckpt_buf_reserve(&s->snap, s->otype->size));
      memcpy(s->snap.data, s->data, s->otype->size);
      rc = fl_ckpt_deserialize(s->otype, s->payload.data, s->payload.size, s->snap.data);
      if (rc != FL_OK) {
        char where[4200], msg[1024];
        ck->store->ops->where(ck->store, version, e->label, where, sizeof where);
        fl_ckpt_msg_copy(msg, sizeof msg);
        rc = fl_err_set(rc, "%s: %s", where, msg);
        goto done;
      }
    } else {
      FL_TRY(fl_ckpt_buf_reserve(&s->snap, s->info.raw_bytes));
      FL_TRY(fl_ckpt_decode(ck, version, e, &s->payload, s->snap.data));
    }
    if (!fl_ckpt_slot_ok(s, version, s->snap.data, 1)) {
      *skippable = 1;
      rc = fl_err_set(FL_ERR_INPUT, "%s: checkpoint %ld: restored '%s' fails its consistency check", fl_ckpt_path(ck),
                      version, s->info.label);
      goto done;
    }
  }
  /* Everything checked and decoded: now, and only now, overwrite the application's data. */
  for (size_t i = 0; i < ck->nslots; i++) {
    fl_ckpt_slot *s = &ck->slots[i];
    if (only && strcmp(only, s->info.label) != 0)
      continue;
    memcpy(s->data, s->snap.data, s->otype ? s->otype->size : s->info.raw_bytes);
  }
done:
  if (rc == FL_ERR_IO)
    *skippable = 1;
  fl_ckpt_manifest_clear(&m);
  return rc;
}

/* Warn that `version` is skipped (why), and in a writable context set it aside so that it neither shadows the
 * older versions nor blocks its number: the application will write it again. */
static void fl_ckpt_skip(fl_ckpt *ck, long version, const char *why, int more)
{
  char warning[4608], reason[1024], where[1100] = ""; /* room for every part: no truncation */
  snprintf(reason, sizeof reason, "%s", why);
  if (!ck->store->read_only) {
    if (ck->store->ops->set_aside(ck->store, version, where, sizeof where) != FL_OK) {
      snprintf(where, sizeof where, "not set aside: %s", fl_err_msg());
      fl_err_clear();
    }
  }
  snprintf(warning, sizeof warning, "%s: skipping checkpoint version %ld (%s)%s%s%s", fl_ckpt_path(ck), version, reason,
           where[0] ? "; moved to " : "", where, more ? "; trying the one before" : "");
  fl_ckpt_warn(ck, warning);
}

static fl_err fl_ckpt_restore_any(fl_ckpt *ck, const char *only, long version, long *restored)
{
  fl_err rc = FL_OK;
  long *v = NULL;
  size_t n = 0;
  int skippable = 0;
  char first[1024] = "";

  if (restored)
    *restored = -1;
  FL_CHECK(!ck->in_flight, FL_ERR_INPUT, "checkpoint %ld is in flight; commit it before restoring", ck->version);
  FL_CHECK(version >= 0 || version == FL_CKPT_LATEST, FL_ERR_INPUT, "checkpoint version %ld out of range", version);
  FL_TRY(ck->store->ops->list(ck->store, &v, &n));
  FL_CHECK(n > 0, FL_ERR_INPUT, "%s: no committed checkpoint to restore from", fl_ckpt_path(ck));
  if (version >= 0) {
    FL_TRY(fl_ckpt_need_version(ck, version));
    FL_TRY(fl_ckpt_restore_version(ck, version, only, &skippable));
    if (restored)
      *restored = version;
    goto done;
  }
  /* Newest first; a damaged or refused version makes way for the one before it, with a warning. */
  for (size_t i = n; i-- > 0;) {
    rc = fl_ckpt_restore_version(ck, v[i], only, &skippable);
    if (rc == FL_OK) {
      if (restored)
        *restored = v[i];
      goto done;
    }
    if (!skippable)
      goto done;
    if (!first[0])
      fl_ckpt_msg_copy(first, sizeof first);
    fl_ckpt_skip(ck, v[i], fl_err_msg(), i > 0);
  }
  rc = fl_err_set(FL_ERR_IO, "%s: none of the %zu versions is intact; the newest: %s", fl_ckpt_path(ck), n, first);
done:
  free(v);
  return rc;
}

fl_err fl_ckpt_restore_all(fl_ckpt *ck, long version, long *restored)
{
  return fl_ckpt_restore_any(ck, NULL, version, restored);
}

fl_err fl_ckpt_restore(fl_ckpt *ck, const char *label, long version)
{
  fl_err rc = FL_OK;
  FL_CHECK(label && fl_ckpt_find(ck, label), FL_ERR_INPUT, "%s: '%s' is not a registered label", fl_ckpt_path(ck),
           label ? label : "(null)");
  FL_TRY(fl_ckpt_restore_any(ck, label, version, NULL));
done:
  return rc;
}

fl_err fl_ckpt_verify(fl_ckpt *ck, long version, int *ok, char *why, size_t whysize)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest m = {0};
  fl_ckpt_buf payload = {0};
  unsigned char *raw = NULL;

  *ok = 0;
  if (why && whysize)
    why[0] = '\0';
  FL_TRY(fl_ckpt_need_version(ck, version));
  rc = fl_ckpt_load_manifest(ck, version, &m);
  if (rc == FL_OK)
    rc = fl_ckpt_check_files(ck, version, &m);
  for (size_t i = 0; rc == FL_OK && i < m.nentries; i++) {
    const fl_ckpt_entry_info *e = &m.entries[i];
    rc = fl_ckpt_read_payload(ck, version, e, &payload);
    if (rc == FL_OK) {
      free(raw);
      raw = malloc(e->raw_bytes ? e->raw_bytes : 1);
      FL_CHECK(raw != NULL, FL_ERR_NOMEM, "out of memory verifying '%s' (%" PRIu64 " bytes)", e->label, e->raw_bytes);
      rc = fl_ckpt_decode(ck, version, e, &payload, raw);
    }
  }
  if (rc == FL_ERR_IO) { /* corruption (or an unreadable file): a finding, not a failure of verify */
    if (why && whysize)
      snprintf(why, whysize, "%s", fl_err_msg());
    rc = FL_OK;
    goto done;
  }
  FL_TRY(rc);
  *ok = 1;
done:
  free(raw);
  fl_ckpt_buf_free(&payload);
  fl_ckpt_manifest_clear(&m);
  return rc;
}

fl_err fl_ckpt_read_entry(fl_ckpt *ck, long version, const char *label, void **data, fl_ckpt_entry_info *info)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest m = {0};
  fl_ckpt_buf payload = {0};
  const fl_ckpt_entry_info *e;
  unsigned char *raw = NULL;

  *data = NULL;
  FL_TRY(fl_ckpt_need_version(ck, version));
  FL_TRY(fl_ckpt_load_manifest(ck, version, &m));
  FL_TRY(fl_ckpt_check_files(ck, version, &m));
  e = fl_ckpt_manifest_find(&m, label);
  FL_CHECK(e != NULL, FL_ERR_INPUT, "%s: checkpoint version %ld has no entry '%s'", fl_ckpt_path(ck), version, label);
  FL_TRY(fl_ckpt_read_payload(ck, version, e, &payload));
  FL_ALLOC(raw, e->raw_bytes);
  FL_TRY(fl_ckpt_decode(ck, version, e, &payload, raw));
  if (info)
    *info = *e;
  *data = raw;
  raw = NULL;
done:
  free(raw);
  fl_ckpt_buf_free(&payload);
  fl_ckpt_manifest_clear(&m);
  return rc;
}

/* ---- export and import ----
 * Blob: "FLCX" | u32 format 1 | u64 manifest length | manifest | payloads in manifest order | u64 XXH3-64 of all
 * before. */

#define FL_CX_MAGIC "FLCX"

fl_err fl_ckpt_export(fl_ckpt *ck, long version, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest m = {0};
  fl_ckpt_buf payload = {0}, text = {0};
  size_t total;
  uint32_t format = 1;
  uint64_t mlen, h;

  FL_TRY(fl_ckpt_need_version(ck, version));
  FL_TRY(fl_ckpt_load_manifest(ck, version, &m));
  FL_TRY(fl_ckpt_check_files(ck, version, &m));
  for (size_t i = 0; i < m.nentries; i++) { /* a filtered entry's payload is its decoded array: plain "none" */
    fl_ckpt_entry_info *e = &m.entries[i];
    if (e->filter[0]) {
      snprintf(e->codec, sizeof e->codec, "none");
      e->filter[0] = '\0';
      memset(&e->params, 0, sizeof e->params);
    }
  }
  m.nfiles = 0; /* whole-file checksums belong to the source store */
  FL_TRY(fl_ckpt_manifest_format(&m, &text));
  total = 4 + 4 + 8 + text.size + 8;
  for (size_t i = 0; i < m.nentries; i++)
    total += m.entries[i].stored_bytes;
  FL_TRY(fl_ckpt_buf_reserve(out, total));
  out->size = 0;
  mlen = text.size;
  memcpy(out->data, FL_CX_MAGIC, 4);
  memcpy(out->data + 4, &format, 4);
  memcpy(out->data + 8, &mlen, 8);
  memcpy(out->data + 16, text.data, text.size);
  out->size = 16 + text.size;
  for (size_t i = 0; i < m.nentries; i++) {
    FL_TRY(fl_ckpt_read_payload(ck, version, &m.entries[i], &payload));
    memcpy(out->data + out->size, payload.data, payload.size);
    out->size += payload.size;
  }
  h = fl_ckpt_hash(out->data, out->size);
  memcpy(out->data + out->size, &h, 8);
  out->size += 8;
done:
  fl_ckpt_buf_free(&payload);
  fl_ckpt_buf_free(&text);
  fl_ckpt_manifest_clear(&m);
  return rc;
}

fl_err fl_ckpt_import(fl_ckpt *ck, const void *blob, size_t n, long *version)
{
  fl_err rc = FL_OK;
  const unsigned char *b = blob, *p;
  fl_ckpt_manifest m = {0};
  fl_ckpt_txn *txn = NULL;
  fl_ckpt_file_info files[4];
  const fl_ckpt_store_ops *ops = ck->store->ops;
  uint64_t mlen, want, sum = 0;
  uint32_t format;
  long latest;

  FL_CHECK(!ck->store->read_only && !ck->in_flight, FL_ERR_INPUT,
           "%s: cannot import (read-only, or a checkpoint "
           "in flight)",
           fl_ckpt_path(ck));
  FL_CHECK(n >= 24 && memcmp(b, FL_CX_MAGIC, 4) == 0, FL_ERR_IO, "not an exported checkpoint (%zu bytes)", n);
  memcpy(&want, b + n - 8, 8);
  FL_CHECK(fl_ckpt_hash(b, n - 8) == want, FL_ERR_IO, "exported checkpoint is corrupt (checksum)");
  memcpy(&format, b + 4, 4);
  memcpy(&mlen, b + 8, 8);
  FL_CHECK(format == 1, FL_ERR_INPUT, "exported checkpoint format %u (this program reads 1)", format);
  FL_CHECK(mlen <= n - 24, FL_ERR_IO, "exported checkpoint is malformed (manifest of %llu bytes)",
           (unsigned long long)mlen);
  FL_TRY(fl_ckpt_manifest_parse(b + 16, (size_t)mlen, "exported checkpoint", &m));
  FL_CHECK(m.nfiles == 0, FL_ERR_IO, "exported checkpoint is malformed (file lines)");
  for (size_t i = 0; i < m.nentries; i++) {
    FL_CHECK(m.entries[i].stored_bytes <= n, FL_ERR_IO, "exported checkpoint is malformed");
    sum += m.entries[i].stored_bytes;
  }
  FL_CHECK(sum == n - 24 - mlen, FL_ERR_IO, "exported checkpoint is malformed (%llu payload bytes, %llu announced)",
           (unsigned long long)(n - 24 - mlen), (unsigned long long)sum);
  p = b + 16 + mlen;
  for (size_t i = 0; i < m.nentries; i++) {
    const fl_ckpt_entry_info *e = &m.entries[i];
    FL_CHECK(fl_ckpt_hash(p, e->stored_bytes) == e->hash, FL_ERR_IO, "exported checkpoint: '%s' is corrupt", e->label);
    FL_CHECK(!e->object_type[0] || strcmp(e->codec, "none") == 0, FL_ERR_IO, "exported checkpoint is malformed");
    p += e->stored_bytes;
  }
  FL_TRY(fl_ckpt_latest(ck, &latest));
  FL_CHECK(m.version > latest, FL_ERR_INPUT,
           "%s: imported version %ld is not newer than the latest committed version %ld", fl_ckpt_path(ck), m.version,
           latest);
  FL_TRY(ops->begin(ck->store, m.version, &txn));
  p = b + 16 + mlen;
  for (size_t i = 0; i < m.nentries; i++) {
    fl_ckpt_entry_info *e = &m.entries[i];
    uint64_t h = e->hash;
    FL_CHECK(!(ops->native && ops->native(ck->store, e->codec)), FL_ERR_INPUT,
             "'%s' is a %s payload; this store encodes '%s' itself: import into a store without that option", e->label,
             e->codec, e->codec);
    FL_TRY(ops->put(txn, e, p));
    FL_CHECK(e->hash == h, FL_ERR_IO, "'%s' changed on its way into %s", e->label, fl_ckpt_path(ck));
    p += e->stored_bytes;
  }
  if (ops->seal) {
    FL_TRY(ops->seal(txn, files, sizeof files / sizeof files[0], &m.nfiles));
    m.files = files;
  }
  snprintf(m.store, sizeof m.store, "%s", ops->name); /* created: when the checkpoint was taken, kept */
  FL_TRY(fl_ckpt_manifest_format(&m, &ck->manifest));
  FL_TRY(ops->prepare(txn, ck->manifest.data, ck->manifest.size));
  rc = ops->publish(txn);
  txn = NULL;
  FL_TRY(rc);
  if (version)
    *version = m.version;
  FL_TRY(fl_ckpt_retain(ck));
done:
  if (txn)
    ops->abort(txn);
  if (m.files == files)
    m.files = NULL; /* on the stack */
  fl_ckpt_manifest_clear(&m);
  return rc;
}

/* ---- guard and region ---- */

fl_err fl_ckpt_guard(fl_ckpt *ck, long version, int (*check)(void *user), void *user, fl_ckpt_guard_outcome *outcome,
                     long *restored)
{
  fl_err rc = FL_OK;
  long latest;

  if (restored)
    *restored = -1;
  if (!check || check(user)) {
    rc = fl_ckpt_write(ck, version);
    if (rc == FL_OK) {
      *outcome = FL_CKPT_SAVED;
      goto done;
    }
    if (!ck->refused) /* refused by a per-array check: roll back below; any other failure is an error */
      goto done;
    fl_err_clear();
    rc = FL_OK;
  }
  FL_TRY(fl_ckpt_latest(ck, &latest));
  if (latest < 0) {
    *outcome = FL_CKPT_UNRECOVERABLE;
    goto done;
  }
  rc = fl_ckpt_restore_all(ck, FL_CKPT_LATEST, restored);
  if (rc == FL_ERR_IO) { /* no good version left: nothing to roll back to, a result like "none" */
    fl_err_clear();
    rc = FL_OK;
    *outcome = FL_CKPT_UNRECOVERABLE;
    goto done;
  }
  FL_TRY(rc);
  *outcome = FL_CKPT_ROLLED_BACK;
done:
  return rc;
}

/* The newest version written by region `label` that verifies completely, or -1; damaged ones are skipped with a
 * warning (checked now, because the iterations before the resume point will be skipped). */
static fl_err fl_ckpt_region_resume(fl_ckpt *ck, const char *label, long *resume)
{
  fl_err rc = FL_OK;
  long *v = NULL;
  size_t n = 0;
  char why[1024];
  *resume = -1;
  FL_TRY(ck->store->ops->list(ck->store, &v, &n));
  for (size_t i = n; i-- > 0 && *resume < 0;) {
    fl_ckpt_manifest m = {0};
    int ok = 0, mine;
    if (fl_ckpt_load_manifest(ck, v[i], &m) != FL_OK) {
      fl_ckpt_skip(ck, v[i], fl_err_msg(), 0);
      continue;
    }
    mine = strcmp(m.region, label) == 0;
    fl_ckpt_manifest_clear(&m);
    if (!mine)
      continue;
    FL_TRY(fl_ckpt_verify(ck, v[i], &ok, why, sizeof why));
    if (ok)
      *resume = v[i];
    else
      fl_ckpt_skip(ck, v[i], why, 0);
  }
done:
  free(v);
  return rc;
}

fl_err fl_ckpt_region(fl_ckpt *ck, const char *label, long iter, fl_err (*fn)(void *arg), void *arg, int *skipped)
{
  fl_err rc = FL_OK;
  int skip = 1;

  FL_CHECK(fn != NULL, FL_ERR_INPUT, "fl_ckpt_region: no function");
  FL_TRY(fl_ckpt_label_check(label));
  if (!ck->region[0]) {
    FL_TRY(fl_ckpt_region_resume(ck, label, &ck->region_resume));
    snprintf(ck->region, sizeof ck->region, "%s", label);
  }
  FL_CHECK(strcmp(ck->region, label) == 0, FL_ERR_INPUT,
           "%s: this fl_ckpt runs region '%s'; region '%s' needs its own (another directory)", fl_ckpt_path(ck),
           ck->region, label);
  if (iter < ck->region_resume) {
    /* Done before the restart; its results are in the checkpoint of region_resume. */
  } else if (iter == ck->region_resume) {
    FL_TRY(fl_ckpt_restore_all(ck, iter, NULL));
  } else {
    skip = 0;
    FL_TRY(fn(arg));
    FL_TRY(fl_ckpt_begin(ck, iter, 0, label));
    FL_TRY(fl_ckpt_commit(ck));
  }
done:
  if (skipped)
    *skipped = skip;
  return rc;
}
