/* ckpt_base.h — the vocabulary the checkpoint library's public headers share: element types, array shapes,
 * a growable byte buffer, the XXH3 checksum we use everywhere.
 *
 * Shapes are in C order: dims[ndims - 1] varies fastest, like a C array `double a[d0][d1][d2]`. Element types
 * are a closed set of fixed-width types so a checkpoint written by one build reads the same in another. */
#ifndef FL_CKPT_BASE_H
#define FL_CKPT_BASE_H

#include "fl_err.h"

#include <stddef.h>
#include <stdint.h>

#define FL_CKPT_MAX_DIMS 4
#define FL_CKPT_LABEL_MAX 63 /* characters, [A-Za-z0-9_.-], not starting with '.' */

typedef enum fl_ckpt_dtype {
  FL_CKPT_U8 = 1, /* bytes; also how serialized objects are stored */
  FL_CKPT_I32,
  FL_CKPT_I64,
  FL_CKPT_F32,
  FL_CKPT_F64,
} fl_ckpt_dtype;

/* Element size of a dtype as a constant expression (usable in static initializers); 0 for an invalid one. */
#define FL_CKPT_DTYPE_SIZE(d)                                                                                          \
  ((d) == FL_CKPT_U8                            ? 1u                                                                   \
   : ((d) == FL_CKPT_I32 || (d) == FL_CKPT_F32) ? 4u                                                                   \
   : ((d) == FL_CKPT_I64 || (d) == FL_CKPT_F64) ? 8u                                                                   \
                                                : 0u)

/* The dtype of an lvalue, chosen by the compiler: a member of any other type does not compile. Arrays decay to
 * pointers in _Generic, hence the pointer cases (a `double x[4]` member is 4 x f64). */
#define FL_CKPT_DTYPE_OF(lv)                                                                                           \
  _Generic((lv), uint8_t: FL_CKPT_U8, uint8_t *: FL_CKPT_U8, int32_t: FL_CKPT_I32, int32_t *: FL_CKPT_I32,    \
           int64_t: FL_CKPT_I64, int64_t *: FL_CKPT_I64, float: FL_CKPT_F32, float *: FL_CKPT_F32,            \
           double: FL_CKPT_F64, double *: FL_CKPT_F64)

typedef struct fl_ckpt_shape {
  fl_ckpt_dtype dtype;
  int ndims;                     /* 1..FL_CKPT_MAX_DIMS */
  size_t dims[FL_CKPT_MAX_DIMS]; /* each >= 1; entries past ndims are ignored */
} fl_ckpt_shape;

/* A growable byte buffer; {0} is an empty one. Owned by whoever holds the struct. */
typedef struct fl_ckpt_buf {
  unsigned char *data;
  size_t size; /* bytes in use */
  size_t cap;  /* bytes allocated */
} fl_ckpt_buf;

/* "u8", "i32", "i64", "f32", "f64"; "?" for an invalid value. */
const char *fl_ckpt_dtype_name(fl_ckpt_dtype d);
/* Parse a dtype name; FL_ERR_INPUT naming the text and the known names. */
fl_err fl_ckpt_dtype_parse(const char *name, fl_ckpt_dtype *out);
size_t fl_ckpt_dtype_size(fl_ckpt_dtype d);

/* Check a shape (dtype valid, 1..4 dims, every dim >= 1, byte size fits size_t); FL_ERR_INPUT naming `label`. */
fl_err fl_ckpt_shape_check(const fl_ckpt_shape *s, const char *label);
size_t fl_ckpt_shape_count(const fl_ckpt_shape *s); /* elements */
size_t fl_ckpt_shape_bytes(const fl_ckpt_shape *s);
/* "128x64x3" into buf; returns buf. */
char *fl_ckpt_shape_format(const fl_ckpt_shape *s, char *buf, size_t size);

/* Check a label: FL_CKPT_LABEL_MAX characters from [A-Za-z0-9_.-], not starting with '.'. Labels name files in
 * the file store and datasets in the HDF5 store, so nothing else is accepted. */
fl_err fl_ckpt_label_check(const char *label);

/* Make room for `n` bytes (contents kept up to the old size). */
fl_err fl_ckpt_buf_reserve(fl_ckpt_buf *b, size_t n);
void fl_ckpt_buf_free(fl_ckpt_buf *b);

/* XXH3-64 of `n` bytes: the checksum of every payload, manifest and serialized record. */
uint64_t fl_ckpt_hash(const void *p, size_t n);

#endif
