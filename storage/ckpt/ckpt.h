/* ckpt.h — the checkpoint library: labelled arrays and objects saved as numbered versions in a store, and
 * restored from it.
 *
 * The model is the Kokkos resilience report's (SAND2019-3616 1.1-1.2): the application registers its arrays
 * once, by a unique label; a checkpoint saves all of them together as one version; a restart restores all
 * of them (or one) from the newest complete version. A user consistency check per array refuses to save data
 * that fails it and makes a restore fall back to an older version (fl_ckpt_guard turns that into save-or-roll-
 * back), and an automatic region skips work that a checkpoint already holds (fl_ckpt_region). From
 * GPI CP (the 004 seed) comes the split phase: fl_ckpt_start snapshots the arrays and writes in a background
 * thread while the computation goes on; fl_ckpt_commit waits and makes the version durable and visible.
 *
 *   fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = "ckpt", .keep = 2}, &ck);
 *   fl_ckpt_register(ck, &(fl_ckpt_array){.label = "u", .shape = {FL_CKPT_F64, 2, {ny, nx}}, .data = u});
 *   if (fl_ckpt_latest(ck, &v) == FL_OK && v >= 0) fl_ckpt_restore_all(ck, v, NULL);
 *   for (...) { ...; fl_ckpt_start(ck, it); ...compute...; fl_ckpt_commit(ck); }
 *   fl_ckpt_destroy(&ck);
 *
 * Stores (type strings, see store_impl.h): "file" (a file per array), "hdf5" (one HDF5 file per version; only in
 * builds with HDF5), "memory" (in this process only: for rollback without I/O, and tests). "file" and "hdf5"
 * share one on-disk protocol (docs/checkpoints.md): a directory per version, written under a temporary name,
 * every file fsync'd, a MANIFEST written last, then renamed into place and the parent directory fsync'd. So a
 * version is either complete or absent, and nothing already committed is touched until a newer one is durable.
 * Every payload carries an XXH3-64 checksum in the manifest, and the manifest its own: a restore never hands
 * back bytes that differ from what was written; it fails naming the version, the label and the file instead.
 *
 * Codecs per array: ckpt_codec.h. Objects (structs with a type tag and version): ckpt_serial.h.
 * Threads: one fl_ckpt is used by one thread at a time (its background writer is internal). One writer per
 * directory: a writable fl_ckpt holds an exclusive lock on it (flock) until destroyed. */
#ifndef FL_CKPT_H
#define FL_CKPT_H

#include "ckpt_base.h"
#include "ckpt_codec.h"
#include "ckpt_serial.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fl_ckpt fl_ckpt;

#define FL_CKPT_LATEST (-1L) /* restore: the newest complete version (corrupt ones skipped with a warning) */
#define FL_CKPT_VERSION_MAX 999999999999L

/* Where warnings go (a version skipped by a restore): msg is one line, borrowed for the call. */
typedef void (*fl_ckpt_warn_fn)(void *user, const char *msg);

typedef struct fl_ckpt_opts {
  const char *store;    /* "file" | "hdf5" | "memory"; NULL with read_only: taken from the directory */
  const char *path;     /* checkpoint directory; created if absent (not its parents). Unused by "memory". */
  int keep;             /* retention: after each commit keep the newest `keep` versions (>= 1); 0 keeps all */
  int read_only;        /* list, verify, restore an existing directory: no lock, no clean-up, no writes */
  int take_over;        /* the caller holds a verdict that the directory's previous writer is dead (a runtime
                         * declared it failed and gave this process its role): a writer still holding the lock on
                         * this machine (stopped, hung) is killed and its lock taken; one on another machine is
                         * named in the error */
  fl_ckpt_warn_fn warn; /* NULL: "faultline: warning: ..." on stderr */
  void *warn_user;
  int hdf5_zfp_filter; /* "hdf5" store: write "zfp"/"zfp-adaptive" arrays through the H5Z-ZFP filter (plugin
                        * 32013), as float datasets any HDF5 reader with the plugin decodes; FL_ERR_INPUT at
                        * create when the plugin cannot be loaded */
} fl_ckpt_opts;

/* A registered array: data is borrowed and must stay valid (and keep its shape) until fl_ckpt_destroy. */
typedef struct fl_ckpt_array {
  const char *label; /* unique; see fl_ckpt_label_check */
  fl_ckpt_shape shape;
  void *data;
  fl_ckpt_codec_cfg codec; /* zero: "none" */
} fl_ckpt_array;

/* What a manifest says about one saved array or object (read-only view for listings and tools). */
typedef struct fl_ckpt_entry_info {
  char label[FL_CKPT_LABEL_MAX + 1];
  fl_ckpt_shape shape; /* of the array; u8[n] for an object's record */
  char codec[32];
  fl_ckpt_codec_params params; /* what the codec used: tol (zfp*), levels (multigrid) */
  char object_type[64];        /* the type tag of a serialized object, "" for an array */
  uint32_t object_version;
  char filter[16];       /* "h5z-zfp": the store applied the codec itself; the payload is the decoded array */
  uint64_t raw_bytes;    /* the array's size in memory */
  uint64_t stored_bytes; /* the payload's size */
  uint64_t hash;         /* XXH3-64 of the payload */
} fl_ckpt_entry_info;

/* A whole file of a version that a store checksums as a file (the HDF5 store's arrays.h5), so that a damaged
 * one is refused before any library parses it. */
typedef struct fl_ckpt_file_info {
  char name[64];
  uint64_t bytes;
  uint64_t hash; /* XXH3-64 of the file */
} fl_ckpt_file_info;

typedef struct fl_ckpt_manifest {
  long version;
  char store[16];
  char created[32];                   /* UTC, ISO 8601 */
  char region[FL_CKPT_LABEL_MAX + 1]; /* the fl_ckpt_region that wrote it, "" for none */
  size_t nentries;
  fl_ckpt_entry_info *entries;
  size_t nfiles;
  fl_ckpt_file_info *files;
} fl_ckpt_manifest;

/* The store registry, in a fixed order ("file", "hdf5" when built with HDF5, "memory"). */
int fl_ckpt_store_count(void);
const char *fl_ckpt_store_name(int i);

/* Open or create a checkpoint directory. A writable open creates `path` if it is absent, refuses a non-empty
 * directory that is not a faultline checkpoint directory and one written by another store type, takes the
 * directory's lock (FL_ERR_IO when another writer holds it), removes what a crashed writer left behind
 * (temporary and half-deleted versions) and applies retention (a writer killed between a commit and its
 * retention leaves a version too many). Unknown store names are FL_ERR_INPUT listing the known ones. */
fl_err fl_ckpt_create(const fl_ckpt_opts *opts, fl_ckpt **out);
/* Waits for a checkpoint in flight and discards it uncommitted (commit first to keep it). NULL-safe. */
void fl_ckpt_destroy(fl_ckpt **ck);
const char *fl_ckpt_store_type(const fl_ckpt *ck);
const char *fl_ckpt_path(const fl_ckpt *ck);

/* Register an array (the struct is copied, data is borrowed). Checks the label (unique, valid), the shape and
 * the codec for this shape: FL_ERR_INPUT naming the label and the value. Not while a checkpoint is in flight. */
fl_err fl_ckpt_register(fl_ckpt *ck, const fl_ckpt_array *a);
/* Register a struct of type t (checked with fl_ckpt_type_check); obj is borrowed. It is saved as its
 * serialized record and restored through fl_ckpt_deserialize, so older records read into newer types. */
fl_err fl_ckpt_register_object(fl_ckpt *ck, const char *label, const fl_ckpt_type *t, void *obj);

/* A user consistency check (the report's consistency_check(), per array): nonzero when the data is fit.
 * Runs in fl_ckpt_start / fl_ckpt_write on the data about to be saved (restoring = 0) and in every restore on
 * the data just decoded, before it is handed over (restoring = 1). For an object, data is the struct. */
typedef struct fl_ckpt_check_args {
  const char *label;
  long version;
  const fl_ckpt_shape *shape; /* u8[size] for an object */
  const void *data;
  int restoring;
} fl_ckpt_check_args;
typedef int (*fl_ckpt_check_fn)(void *user, const fl_ckpt_check_args *a);

/* Attach a check to a registered label (NULL removes it); user is borrowed. */
fl_err fl_ckpt_set_check(fl_ckpt *ck, const char *label, fl_ckpt_check_fn check, void *user);

/* Begin checkpoint `version` (0..FL_CKPT_VERSION_MAX, newer than every committed version): run the
 * consistency checks and the tolerance rules, snapshot every registered array and object (a memcpy; they may
 * change as soon as this returns), then encode and write in a background thread. One checkpoint in flight at a
 * time. Data that fails its check is refused: FL_ERR_INPUT naming the label, nothing written (see
 * fl_ckpt_guard for the save-or-roll-back pattern). */
fl_err fl_ckpt_start(fl_ckpt *ck, long version);
/* Wait for the checkpoint in flight; on success make it durable and visible, then apply retention. A failed
 * write leaves no trace and the previous versions intact. FL_ERR_INPUT when nothing is in flight. */
fl_err fl_ckpt_commit(fl_ckpt *ck);
/* fl_ckpt_start then fl_ckpt_commit. */
fl_err fl_ckpt_write(fl_ckpt *ck, long version);
/* The version started and not yet committed, or -1. */
long fl_ckpt_in_flight(const fl_ckpt *ck);

/* Committed versions, ascending (*versions is the caller's to free; NULL when *n is 0). */
fl_err fl_ckpt_versions(fl_ckpt *ck, long **versions, size_t *n);
/* The newest committed version, or -1 when there is none. */
fl_err fl_ckpt_latest(fl_ckpt *ck, long *version);

/* Restore every registered array and object from `version` (a number, or FL_CKPT_LATEST); *restored (may be
 * NULL) gets the version used. All or nothing: every payload is read, checked against its checksum, decoded and
 * passed through its consistency check before any registered array is overwritten. With FL_CKPT_LATEST, a
 * version that is corrupt, torn or fails a check is skipped with a warning naming it and the one before is
 * tried; FL_ERR_IO when none is left. With a number, that version or an error: FL_ERR_IO naming the file and
 * label when corrupt, FL_ERR_INPUT when a check fails. A version holding no entry for a registered label, or
 * one of another shape, is FL_ERR_INPUT (no fallback: an older version would not do better). Entries that are
 * not registered are ignored. */
fl_err fl_ckpt_restore_all(fl_ckpt *ck, long version, long *restored);
/* The same for one registered label. */
fl_err fl_ckpt_restore(fl_ckpt *ck, const char *label, long version);

/* Read and check a version's manifest (caller destroys it). */
fl_err fl_ckpt_manifest_load(fl_ckpt *ck, long version, fl_ckpt_manifest **m);
void fl_ckpt_manifest_destroy(fl_ckpt_manifest **m);

/* Check a version completely: manifest checksum, every payload's size and checksum, and that it decodes. A
 * corrupt version is a result, not an error: *ok = 0 and `why` (may be NULL) says what and where. Errors are for
 * a version that does not exist or an environment failure. */
fl_err fl_ckpt_verify(fl_ckpt *ck, long version, int *ok, char *why, size_t whysize);

/* Read, check and decode one entry of a version into a new buffer (*data, caller frees; raw_bytes long);
 * *info (may be NULL) gets the manifest entry. For tools that read what nobody registered. */
fl_err fl_ckpt_read_entry(fl_ckpt *ck, long version, const char *label, void **data, fl_ckpt_entry_info *info);

/* ---- moving versions between stores (buddy checkpoints) ---- */

/* Pack committed `version` (its manifest and every payload, checked first) into one self-checking buffer: what
 * an in-memory ("memory" store) buddy checkpoint sends to its partner process, or what copies a version from
 * one store to another. Entries the HDF5 store encoded through its ZFP filter travel as their decoded values
 * (codec "none"). */
fl_err fl_ckpt_export(fl_ckpt *ck, long version, fl_ckpt_buf *out);
/* Commit a version exported elsewhere into ck's store, through the same protocol as a write (invisible until
 * complete, then retention); every checksum is checked first. *version (may be NULL) gets its number, which
 * must be newer than every committed version. A damaged buffer is FL_ERR_IO. */
fl_err fl_ckpt_import(fl_ckpt *ck, const void *blob, size_t n, long *version);

/* ---- the two patterns of the Kokkos report ---- */

typedef enum fl_ckpt_guard_outcome {
  FL_CKPT_SAVED = 1,     /* consistent: checkpoint `version` written and committed */
  FL_CKPT_ROLLED_BACK,   /* inconsistent: every registered array restored from the newest good version */
  FL_CKPT_UNRECOVERABLE, /* inconsistent, and no good version to roll back to */
} fl_ckpt_guard_outcome;

/* Figure 1-2 of the report: check; save if consistent, else roll back. The data is inconsistent when `check`
 * (may be NULL) returns 0 or a per-array check refuses it. The inconsistency is a result (*outcome), not an
 * error. *restored (may be NULL) gets the version rolled back to, or -1. */
fl_err fl_ckpt_guard(fl_ckpt *ck, long version, int (*check)(void *user), void *user, fl_ckpt_guard_outcome *outcome,
                     long *restored);

/* Figure 1-3 (automatic checkpointing, Kokkos::checkpoint("label", iter, fn)): call once per iteration `iter`
 * (increasing) of the region named `label`. Its versions are the iterations, marked with the label in their
 * manifests. On the first call the newest complete version R of this region is looked up. Iterations before R
 * are skipped (their effect is in R, and retention may have removed them); iteration R restores every
 * registered array and is skipped; later iterations run fn(arg) and then checkpoint version `iter`. In C the
 * arrays fn touches cannot be discovered: the region saves and restores the arrays registered in ck.
 * *skipped (may be NULL) says whether fn was skipped. One region label per fl_ckpt. */
fl_err fl_ckpt_region(fl_ckpt *ck, const char *label, long iter, fl_err (*fn)(void *arg), void *arg, int *skipped);

#endif
