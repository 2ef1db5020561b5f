/* store_impl.h — what a checkpoint store implements (private to storage/ckpt), the manifest format, and the
 * version-directory protocol the persistent stores share.
 *
 * A store keeps versions. Writing one is a transaction: begin (invisible), put each payload, prepare (write
 * the manifest; everything durable, still invisible), publish (atomically visible and durable) or abort (no
 * trace). put and prepare run on the background writer thread; everything else on the caller's. Adding a
 * store: one file with a `const fl_ckpt_store_ops`, one line in the registry of store.c. */
#ifndef FL_CKPT_STORE_IMPL_H
#define FL_CKPT_STORE_IMPL_H

#include "ckpt.h"
#include "fl_config.h"

typedef struct fl_ckpt_store fl_ckpt_store;
typedef struct fl_ckpt_txn fl_ckpt_txn;

typedef struct fl_ckpt_store_ops {
  const char *name;
  int on_disk; /* 1: uses the version-directory protocol below (path required) */
  fl_err (*open)(fl_ckpt_store *s);
  void (*close)(fl_ckpt_store *s);
  fl_err (*begin)(fl_ckpt_store *s, long version, fl_ckpt_txn **t);
  /* Write e->stored_bytes of payload for entry e and set e->hash to their XXH3-64 (a store that writes in
   * pieces hashes each piece while it is in cache, saving a pass over memory). */
  fl_err (*put)(fl_ckpt_txn *t, fl_ckpt_entry_info *e, const void *payload);
  /* Optional, after the last put: finish the store's own files, durable, and describe those that must be
   * checksummed as whole files (at most `max`) for the manifest. */
  fl_err (*seal)(fl_ckpt_txn *t, fl_ckpt_file_info *files, size_t max, size_t *n);
  fl_err (*prepare)(fl_ckpt_txn *t, const void *manifest, size_t n);
  fl_err (*publish)(fl_ckpt_txn *t); /* consumes t, also on failure */
  void (*abort)(fl_ckpt_txn *t);     /* consumes t; NULL-safe */
  fl_err (*list)(fl_ckpt_store *s, long **versions, size_t *n);
  fl_err (*read_manifest)(fl_ckpt_store *s, long version, fl_ckpt_buf *out);
  /* The stored payload of entry e into out (out->size set). */
  fl_err (*read)(fl_ckpt_store *s, long version, const fl_ckpt_entry_info *e, fl_ckpt_buf *out);
  fl_err (*drop)(fl_ckpt_store *s, long version);
  /* Take a damaged version out of the committed ones without destroying it (on disk: renamed .bad-vNNN). */
  fl_err (*set_aside)(fl_ckpt_store *s, long version, char *where, size_t size);
  /* Optional: 1 when the store applies codec `codec` itself (put then gets the raw array, sets e->filter and
   * stored_bytes = raw_bytes, and read returns the decoded array). */
  int (*native)(const fl_ckpt_store *s, const char *codec);
  /* Where entry `label` of `version` lives, for messages ("ckpt/v000000000007/u.bin"); with label NULL, the
   * version itself ("ckpt/v000000000007"). */
  void (*where)(const fl_ckpt_store *s, long version, const char *label, char *buf, size_t size);
} fl_ckpt_store_ops;

/* The version-directory protocol's transaction (see below). */
typedef struct fl_vdir_txn {
  fl_ckpt_store *store;
  long version;
  int fd;          /* the open temporary directory */
  char **unsynced; /* files written and not yet fsync'd (prepare does it) */
  size_t nunsynced, capunsynced;
} fl_vdir_txn;

/* One version being written. */
struct fl_ckpt_txn {
  fl_ckpt_store *store;
  long version;
  fl_vdir_txn vdir; /* on-disk stores */
  void *impl;       /* the store's own state */
};

struct fl_ckpt_store {
  const fl_ckpt_store_ops *ops;
  char *path; /* NULL for memory */
  int read_only;
  int root_fd;    /* on-disk stores: the open directory */
  int lock_fd;    /* on-disk writers: the flock'd LOCK file */
  int take_over;  /* opts.take_over */
  int zfp_filter; /* hdf5: opts.hdf5_zfp_filter */
  void *impl;     /* the store's own state */
};

/* ---- registry and lifecycle (store.c); the registry's names are public (ckpt.h) ---- */
/* Create the store object for o->store over o->path and open it (see fl_ckpt_create). With no store name and
 * read_only, the type comes from the directory's FORMAT file. */
fl_err fl_ckpt_store_open(const fl_ckpt_opts *o, fl_ckpt_store **out);
void fl_ckpt_store_close(fl_ckpt_store **s);

/* ---- manifest (manifest.c) ---- */
/* The text written as MANIFEST, checksum line included. */
fl_err fl_ckpt_manifest_format(const fl_ckpt_manifest *m, fl_ckpt_buf *out);
/* Parse and check a manifest (checksum first); `where` names it in messages. Corruption is FL_ERR_IO. */
fl_err fl_ckpt_manifest_parse(const void *text, size_t n, const char *where, fl_ckpt_manifest *m);
void fl_ckpt_manifest_clear(fl_ckpt_manifest *m);
const fl_ckpt_entry_info *fl_ckpt_manifest_find(const fl_ckpt_manifest *m, const char *label);

/* ---- the version-directory protocol (vdir.c), for on-disk stores ----
 * path/FORMAT           "faultline-checkpoints 1\nstore NAME\n", written once, atomically
 * path/LOCK             flock'd by the one writer
 * path/v000000000042/   a committed version: payload files + MANIFEST (written last)
 * path/.tmp-v.../       a version being written (removed by the next writer's open if its writer died)
 * path/.del-v.../       a version being removed by retention (idem)
 * path/.bad-v.../       a damaged version set aside by a restore that skipped it (kept, never read) */
fl_err fl_vdir_open(fl_ckpt_store *s);
void fl_vdir_close(fl_ckpt_store *s);
/* Read the store type recorded in path/FORMAT into name. */
fl_err fl_vdir_format(const char *path, char *name, size_t size);
fl_err fl_vdir_begin(fl_ckpt_store *s, long version, fl_vdir_txn *t);
/* Write a new file `name` in the transaction's directory; *hash (unless NULL) gets the XXH3-64 of data,
 * computed piece by piece as it is written. Durable after fl_vdir_prepare (which fsyncs it). */
fl_err fl_vdir_write(fl_vdir_txn *t, const char *name, const void *data, size_t n, uint64_t *hash);
/* fsync an existing file of the transaction's directory. */
fl_err fl_vdir_sync(fl_vdir_txn *t, const char *name);
/* Path of `name` inside the transaction's directory. */
void fl_vdir_txn_path(const fl_vdir_txn *t, const char *name, char *buf, size_t size);
/* Write the MANIFEST, fsync every file written and the directory: the version is durable, still invisible. */
fl_err fl_vdir_prepare(fl_vdir_txn *t, const void *manifest, size_t n);
fl_err fl_vdir_publish(fl_vdir_txn *t);
void fl_vdir_abort(fl_vdir_txn *t);
fl_err fl_vdir_list(fl_ckpt_store *s, long **versions, size_t *n);
fl_err fl_vdir_read(fl_ckpt_store *s, long version, const char *name, fl_ckpt_buf *out);
fl_err fl_vdir_read_manifest(fl_ckpt_store *s, long version, fl_ckpt_buf *out);
/* Size and XXH3-64 of file `name` of a committed version (streamed: constant memory); in a transaction's
 * directory with fl_vdir_txn_hash. */
fl_err fl_vdir_hash(fl_ckpt_store *s, long version, const char *name, uint64_t *bytes, uint64_t *hash);
fl_err fl_vdir_txn_hash(fl_vdir_txn *t, const char *name, uint64_t *bytes, uint64_t *hash);
fl_err fl_vdir_drop(fl_ckpt_store *s, long version);
fl_err fl_vdir_set_aside(fl_ckpt_store *s, long version, char *where, size_t size);
/* path/vNNN/name into buf. */
void fl_vdir_path(const fl_ckpt_store *s, long version, const char *name, char *buf, size_t size);

extern const fl_ckpt_store_ops fl_ckpt_store_file_ops, fl_ckpt_store_memory_ops;
#if FL_HAVE_HDF5
extern const fl_ckpt_store_ops fl_ckpt_store_hdf5_ops;
#endif

#endif
