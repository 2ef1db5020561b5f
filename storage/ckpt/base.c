/* base.c — element types, shapes, labels, buffers and the checksum (see ckpt_base.h). The checksum is xxHash's
 * XXH3-64: non-cryptographic, ~30 GB/s, and any single flipped bit changes it. */
#include "ckpt_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static const struct {
  fl_ckpt_dtype d;
  const char *name;
} fl_ckpt_dtypes[] = {
    {FL_CKPT_U8, "u8"}, {FL_CKPT_I32, "i32"}, {FL_CKPT_I64, "i64"}, {FL_CKPT_F32, "f32"}, {FL_CKPT_F64, "f64"},
};
#define FL_CKPT_NDTYPES (sizeof fl_ckpt_dtypes / sizeof fl_ckpt_dtypes[0])

const char *fl_ckpt_dtype_name(fl_ckpt_dtype d)
{
  for (size_t i = 0; i < FL_CKPT_NDTYPES; i++)
    if (fl_ckpt_dtypes[i].d == d)
      return fl_ckpt_dtypes[i].name;
  return "?";
}

fl_err fl_ckpt_dtype_parse(const char *name, fl_ckpt_dtype *out)
{
  for (size_t i = 0; i < FL_CKPT_NDTYPES; i++)
    if (strcmp(fl_ckpt_dtypes[i].name, name) == 0) {
      *out = fl_ckpt_dtypes[i].d;
      return FL_OK;
    }
  return fl_err_set(FL_ERR_INPUT, "unknown element type '%s' (known: u8, i32, i64, f32, f64)", name);
}

size_t fl_ckpt_dtype_size(fl_ckpt_dtype d)
{
  return FL_CKPT_DTYPE_SIZE(d);
}

size_t fl_ckpt_shape_count(const fl_ckpt_shape *s)
{
  size_t n = 1;
  for (int i = 0; i < s->ndims; i++)
    n *= s->dims[i];
  return n;
}

size_t fl_ckpt_shape_bytes(const fl_ckpt_shape *s)
{
  return fl_ckpt_shape_count(s) * fl_ckpt_dtype_size(s->dtype);
}

fl_err fl_ckpt_shape_check(const fl_ckpt_shape *s, const char *label)
{
  size_t n;
  if (fl_ckpt_dtype_size(s->dtype) == 0)
    return fl_err_set(FL_ERR_INPUT, "array '%s': invalid element type %d", label, (int)s->dtype);
  if (s->ndims < 1 || s->ndims > FL_CKPT_MAX_DIMS)
    return fl_err_set(FL_ERR_INPUT, "array '%s': %d dimensions (expected 1..%d)", label, s->ndims, FL_CKPT_MAX_DIMS);
  n = fl_ckpt_dtype_size(s->dtype);
  for (int i = 0; i < s->ndims; i++) {
    if (s->dims[i] == 0)
      return fl_err_set(FL_ERR_INPUT, "array '%s': dimension %d is 0 (every dimension must be >= 1)", label, i);
    if (s->dims[i] > SIZE_MAX / n)
      return fl_err_set(FL_ERR_INPUT, "array '%s': size overflows (dimension %d = %zu)", label, i, s->dims[i]);
    n *= s->dims[i];
  }
  return FL_OK;
}

char *fl_ckpt_shape_format(const fl_ckpt_shape *s, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < s->ndims && used < size; i++) {
    int k = snprintf(buf + used, size - used, "%s%zu", i ? "x" : "", s->dims[i]);
    if (k < 0)
      break;
    used += (size_t)k;
  }
  return buf;
}

fl_err fl_ckpt_label_check(const char *label)
{
  size_t n;
  if (!label || !*label)
    return fl_err_set(FL_ERR_INPUT, "empty checkpoint label");
  n = strlen(label);
  if (n > FL_CKPT_LABEL_MAX)
    return fl_err_set(FL_ERR_INPUT, "checkpoint label '%.20s...' is %zu characters (at most %d)", label, n,
                      FL_CKPT_LABEL_MAX);
  if (label[0] == '.')
    return fl_err_set(FL_ERR_INPUT, "checkpoint label '%s' starts with '.'", label);
  for (size_t i = 0; i < n; i++) {
    char c = label[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return fl_err_set(FL_ERR_INPUT, "checkpoint label '%s': character '%c' not allowed (use A-Z a-z 0-9 _ . -)",
                        label, c);
  }
  return FL_OK;
}

fl_err fl_ckpt_buf_reserve(fl_ckpt_buf *b, size_t n)
{
  unsigned char *p;
  if (n <= b->cap)
    return FL_OK;
  p = realloc(b->data, n);
  if (!p)
    return fl_err_set(FL_ERR_NOMEM, "out of memory allocating a %zu-byte checkpoint buffer", n);
  b->data = p;
  b->cap = n;
  return FL_OK;
}

void fl_ckpt_buf_free(fl_ckpt_buf *b)
{
  free(b->data);
  b->data = NULL;
  b->size = b->cap = 0;
}

uint64_t fl_ckpt_hash(const void *p, size_t n)
{
  return (uint64_t)XXH3_64bits(p, n);
}
