/* serial.c — checkpoint records of C structs (see ckpt_serial.h).
 *
 * Record layout, host byte order (recorded), no alignment assumed (memcpy everywhere):
 *   "FLSR" | u8 format=1 | u8 byte order (1 little, 2 big) | u16 tag length | u32 type version | u32 fields
 *   | tag bytes
 *   | per field: u16 name length | u8 dtype | u8 0 | u64 count | name bytes | count x element bytes
 *   | u64 XXH3-64 of everything before it */
#include "ckpt_serial.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FL_SR_MAGIC "FLSR"
#define FL_SR_FORMAT 1
#define FL_SR_HEAD 16
#define FL_SR_FHEAD 12
#define FL_SR_TAIL 8

static unsigned char fl_sr_byte_order(void)
{
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1 ? 1 : 2;
}

static size_t fl_sr_dtype_align(fl_ckpt_dtype d)
{
  switch (d) {
  case FL_CKPT_U8: return _Alignof(uint8_t);
  case FL_CKPT_I32: return _Alignof(int32_t);
  case FL_CKPT_I64: return _Alignof(int64_t);
  case FL_CKPT_F32: return _Alignof(float);
  case FL_CKPT_F64: return _Alignof(double);
  }
  return 1;
}

static size_t fl_sr_align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* ---- the checker ---- */

fl_err fl_ckpt_type_check(const fl_ckpt_type *t)
{
  fl_err rc = FL_OK;
  size_t *order = NULL, end = 0;
  const char *tn = t && t->name ? t->name : "?";

  FL_CHECK(t && t->name && t->name[0] && strlen(t->name) <= 255, FL_ERR_INPUT,
           "serializable type: empty or over-long type name");
  FL_CHECK(t->version >= 1, FL_ERR_INPUT, "type '%s': version %" PRIu32 " (expected >= 1)", tn, t->version);
  FL_CHECK(t->size > 0 && t->align > 0 && (t->align & (t->align - 1)) == 0 && t->size % t->align == 0,
           FL_ERR_INPUT, "type '%s': size %zu / alignment %zu are not those of a C type", tn, t->size, t->align);
  FL_CHECK(t->fields && t->nfields >= 1 && t->nfields <= 65535, FL_ERR_INPUT,
           "type '%s': %zu fields (expected 1..65535)", tn, t->nfields);
  FL_ALLOC(order, t->nfields);
  for (size_t i = 0; i < t->nfields; i++) {
    const fl_ckpt_field *f = &t->fields[i];
    size_t es = fl_ckpt_dtype_size(f->dtype);
    FL_CHECK(f->name && f->name[0] && strlen(f->name) <= 255, FL_ERR_INPUT,
             "type '%s': field %zu has an empty or over-long name", tn, i);
    FL_CHECK(es > 0, FL_ERR_INPUT, "type '%s': field '%s' has an invalid element type %d", tn, f->name,
             (int)f->dtype);
    FL_CHECK(f->size > 0 && f->size % es == 0, FL_ERR_INPUT,
             "type '%s': field '%s' is %zu bytes, not a whole number of %s", tn, f->name, f->size,
             fl_ckpt_dtype_name(f->dtype));
    FL_CHECK(f->offset <= t->size && f->size <= t->size - f->offset, FL_ERR_INPUT,
             "type '%s': field '%s' (bytes %zu..%zu) runs past the end of the %zu-byte struct", tn, f->name,
             f->offset, f->offset + f->size, t->size);
    FL_CHECK(f->since >= 1 && f->since <= t->version, FL_ERR_INPUT,
             "type '%s': field '%s' since version %" PRIu32 " (the type is at version %" PRIu32 ")", tn, f->name,
             f->since, t->version);
    for (size_t j = 0; j < i; j++)
      FL_CHECK(strcmp(t->fields[j].name, f->name) != 0, FL_ERR_INPUT, "type '%s': field '%s' listed twice", tn,
               f->name);
    order[i] = i;
  }
  /* Fields by offset (insertion sort: tables are short). */
  for (size_t i = 1; i < t->nfields; i++)
    for (size_t j = i; j > 0 && t->fields[order[j - 1]].offset > t->fields[order[j]].offset; j--) {
      size_t x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }
  /* Replay the layout: each field must start where the previous one ends, rounded up to its alignment. */
  for (size_t i = 0; i < t->nfields; i++) {
    const fl_ckpt_field *f = &t->fields[order[i]];
    size_t expect = fl_sr_align_up(end, fl_sr_dtype_align(f->dtype));
    FL_CHECK(f->offset >= end, FL_ERR_INPUT, "type '%s': field '%s' (offset %zu) overlaps the field before it "
             "(which ends at %zu)", tn, f->name, f->offset, end);
    FL_CHECK(f->offset == expect, FL_ERR_INPUT,
             "type '%s': bytes %zu..%zu before field '%s' are not covered by any field: a member missing from "
             "the field table?", tn, end, f->offset, f->name);
    end = f->offset + f->size;
  }
  FL_CHECK(fl_sr_align_up(end, t->align) == t->size, FL_ERR_INPUT,
           "type '%s': bytes %zu..%zu at the end of the struct are not covered by any field: a member missing "
           "from the field table?", tn, end, t->size);
done:
  free(order);
  return rc;
}

/* ---- writing ---- */

static unsigned char *fl_sr_put(unsigned char *p, const void *v, size_t n)
{
  memcpy(p, v, n);
  return p + n;
}

fl_err fl_ckpt_serialize(const fl_ckpt_type *t, const void *obj, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  size_t n = FL_SR_HEAD + strlen(t->name) + FL_SR_TAIL;
  unsigned char *p;
  uint16_t taglen = (uint16_t)strlen(t->name);
  uint32_t nf = (uint32_t)t->nfields;
  uint64_t h;

  FL_TRY(fl_ckpt_type_check(t));
  for (size_t i = 0; i < t->nfields; i++)
    n += FL_SR_FHEAD + strlen(t->fields[i].name) + t->fields[i].size;
  FL_TRY(fl_ckpt_buf_reserve(out, n));
  p = out->data;
  p = fl_sr_put(p, FL_SR_MAGIC, 4);
  *p++ = FL_SR_FORMAT;
  *p++ = fl_sr_byte_order();
  p = fl_sr_put(p, &taglen, 2);
  p = fl_sr_put(p, &t->version, 4);
  p = fl_sr_put(p, &nf, 4);
  p = fl_sr_put(p, t->name, taglen);
  for (size_t i = 0; i < t->nfields; i++) {
    const fl_ckpt_field *f = &t->fields[i];
    uint16_t nl = (uint16_t)strlen(f->name);
    uint64_t count = f->size / fl_ckpt_dtype_size(f->dtype);
    p = fl_sr_put(p, &nl, 2);
    *p++ = (unsigned char)f->dtype;
    *p++ = 0;
    p = fl_sr_put(p, &count, 8);
    p = fl_sr_put(p, f->name, nl);
    p = fl_sr_put(p, (const unsigned char *)obj + f->offset, f->size);
  }
  h = fl_ckpt_hash(out->data, (size_t)(p - out->data));
  p = fl_sr_put(p, &h, 8);
  out->size = (size_t)(p - out->data);
done:
  return rc;
}

/* ---- reading ---- */

typedef struct fl_sr_reader {
  const unsigned char *p, *end; /* cursor over the fields */
  const char *tag;
  size_t taglen;
  uint32_t version, nfields, seen;
} fl_sr_reader;

typedef struct fl_sr_field {
  const char *name;
  size_t namelen;
  fl_ckpt_dtype dtype;
  uint64_t count;
  const unsigned char *data;
} fl_sr_field;

static fl_err fl_sr_open(const void *rec, size_t n, fl_sr_reader *r)
{
  const unsigned char *b = rec;
  uint16_t taglen;
  uint64_t want, got;
  if (n < FL_SR_HEAD + FL_SR_TAIL || memcmp(b, FL_SR_MAGIC, 4) != 0)
    return fl_err_set(FL_ERR_IO, "not a serialized record (%zu bytes, no FLSR header)", n);
  if (b[4] != FL_SR_FORMAT)
    return fl_err_set(FL_ERR_INPUT, "serialized record format %d (this program reads %d)", b[4], FL_SR_FORMAT);
  memcpy(&want, b + n - FL_SR_TAIL, 8);
  got = fl_ckpt_hash(b, n - FL_SR_TAIL);
  if (want != got)
    return fl_err_set(FL_ERR_IO, "serialized record is corrupt: checksum %016" PRIx64 ", expected %016" PRIx64,
                      got, want);
  if (b[5] != fl_sr_byte_order())
    return fl_err_set(FL_ERR_INPUT, "serialized record was written on a %s-endian machine; this one is %s-endian",
                      b[5] == 1 ? "little" : "big", fl_sr_byte_order() == 1 ? "little" : "big");
  memcpy(&taglen, b + 6, 2);
  memcpy(&r->version, b + 8, 4);
  memcpy(&r->nfields, b + 12, 4);
  if ((size_t)taglen > n - FL_SR_HEAD - FL_SR_TAIL)
    return fl_err_set(FL_ERR_IO, "serialized record is truncated (tag of %u bytes)", taglen);
  r->tag = (const char *)b + FL_SR_HEAD;
  r->taglen = taglen;
  r->p = b + FL_SR_HEAD + taglen;
  r->end = b + n - FL_SR_TAIL;
  r->seen = 0;
  return FL_OK;
}

/* Next field, bounds-checked; *more = 0 after the last (which must end exactly at the trailer). */
static fl_err fl_sr_next(fl_sr_reader *r, fl_sr_field *f, int *more)
{
  uint16_t nl;
  size_t es, left;
  if (r->seen == r->nfields) {
    *more = 0;
    return r->p == r->end ? FL_OK : fl_err_set(FL_ERR_IO, "serialized record has %zu stray bytes after its fields",
                                               (size_t)(r->end - r->p));
  }
  left = (size_t)(r->end - r->p);
  if (left < FL_SR_FHEAD)
    return fl_err_set(FL_ERR_IO, "serialized record is truncated (field %" PRIu32 " of %" PRIu32 ")", r->seen + 1,
                      r->nfields);
  memcpy(&nl, r->p, 2);
  f->dtype = (fl_ckpt_dtype)r->p[2];
  memcpy(&f->count, r->p + 4, 8);
  es = fl_ckpt_dtype_size(f->dtype);
  left -= FL_SR_FHEAD;
  if (es == 0 || nl > left || f->count > (left - nl) / es)
    return fl_err_set(FL_ERR_IO, "serialized record is malformed at field %" PRIu32, r->seen + 1);
  f->name = (const char *)r->p + FL_SR_FHEAD;
  f->namelen = nl;
  f->data = r->p + FL_SR_FHEAD + nl;
  r->p = f->data + f->count * es;
  r->seen++;
  *more = 1;
  return FL_OK;
}

static int fl_sr_name_is(const char *s, size_t n, const char *z) { return strlen(z) == n && memcmp(s, z, n) == 0; }

fl_err fl_ckpt_record_info(const void *rec, size_t n, char *tag, size_t tagsize, uint32_t *version)
{
  fl_sr_reader r;
  fl_err rc = fl_sr_open(rec, n, &r);
  if (rc != FL_OK)
    return rc;
  if (tag && tagsize)
    snprintf(tag, tagsize, "%.*s", (int)r.taglen, r.tag);
  if (version)
    *version = r.version;
  return FL_OK;
}

fl_err fl_ckpt_deserialize(const fl_ckpt_type *t, const void *rec, size_t n, void *obj)
{
  fl_err rc = FL_OK;
  fl_sr_reader r;
  fl_sr_field f;
  unsigned char *tmp = NULL, *seen = NULL;
  int more = 1;

  FL_TRY(fl_ckpt_type_check(t));
  FL_TRY(fl_sr_open(rec, n, &r));
  FL_CHECK(fl_sr_name_is(r.tag, r.taglen, t->name), FL_ERR_INPUT, "record of type '%.*s', expected '%s'",
           (int)r.taglen, r.tag, t->name);
  FL_CHECK(r.version <= t->version, FL_ERR_INPUT,
           "record of type '%s' version %" PRIu32 " is newer than this program's (version %" PRIu32 ")", t->name,
           r.version, t->version);
  FL_ALLOC(tmp, t->size);
  FL_ALLOC(seen, t->nfields);
  memcpy(tmp, obj, t->size);
  for (;;) {
    size_t k;
    FL_TRY(fl_sr_next(&r, &f, &more));
    if (!more)
      break;
    for (k = 0; k < t->nfields && !fl_sr_name_is(f.name, f.namelen, t->fields[k].name); k++)
      ;
    FL_CHECK(k < t->nfields, FL_ERR_INPUT, "record of type '%s' v%" PRIu32 " has a field '%.*s' that this "
             "program's version %" PRIu32 " does not know", t->name, r.version, (int)f.namelen, f.name, t->version);
    FL_CHECK(!seen[k], FL_ERR_IO, "record of type '%s' has field '%s' twice", t->name, t->fields[k].name);
    FL_CHECK(f.dtype == t->fields[k].dtype &&
                 f.count * fl_ckpt_dtype_size(f.dtype) == t->fields[k].size,
             FL_ERR_INPUT, "record of type '%s': field '%s' is %s[%" PRIu64 "], this program has %s[%zu]", t->name,
             t->fields[k].name, fl_ckpt_dtype_name(f.dtype), f.count, fl_ckpt_dtype_name(t->fields[k].dtype),
             t->fields[k].size / fl_ckpt_dtype_size(t->fields[k].dtype));
    memcpy(tmp + t->fields[k].offset, f.data, t->fields[k].size);
    seen[k] = 1;
  }
  for (size_t k = 0; k < t->nfields; k++)
    FL_CHECK(seen[k] || t->fields[k].since > r.version, FL_ERR_INPUT,
             "record of type '%s' v%" PRIu32 " lacks field '%s' (present since v%" PRIu32 ")", t->name, r.version,
             t->fields[k].name, t->fields[k].since);
  memcpy(obj, tmp, t->size);
done:
  free(tmp);
  free(seen);
  return rc;
}

fl_err fl_ckpt_load(const fl_ckpt_type *const *types, size_t ntypes, const void *rec, size_t n, size_t *which,
                    void **obj)
{
  fl_err rc = FL_OK;
  fl_sr_reader r;
  unsigned char *o = NULL;
  size_t k;
  char known[256] = "";

  *obj = NULL;
  FL_TRY(fl_sr_open(rec, n, &r));
  for (k = 0; k < ntypes && !fl_sr_name_is(r.tag, r.taglen, types[k]->name); k++) {
    strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, types[k]->name, sizeof known - strlen(known) - 1);
  }
  FL_CHECK(k < ntypes, FL_ERR_INPUT, "record of unknown type '%.*s' (known: %s)", (int)r.taglen, r.tag,
           ntypes ? known : "none");
  FL_ALLOC(o, types[k]->size);
  FL_TRY(fl_ckpt_deserialize(types[k], rec, n, o));
  *which = k;
  *obj = o;
  o = NULL;
done:
  free(o);
  return rc;
}

static void fl_sr_print_value(fl_ckpt_dtype d, const unsigned char *p, FILE *out)
{
  switch (d) {
  case FL_CKPT_U8: fprintf(out, " %u", (unsigned)*p); break;
  case FL_CKPT_I32: { int32_t v; memcpy(&v, p, 4); fprintf(out, " %" PRId32, v); } break;
  case FL_CKPT_I64: { int64_t v; memcpy(&v, p, 8); fprintf(out, " %" PRId64, v); } break;
  case FL_CKPT_F32: { float v; memcpy(&v, p, 4); fprintf(out, " %.9g", (double)v); } break;
  case FL_CKPT_F64: { double v; memcpy(&v, p, 8); fprintf(out, " %.17g", v); } break;
  }
}

fl_err fl_ckpt_record_print(const void *rec, size_t n, size_t max_values, FILE *out)
{
  fl_err rc = FL_OK;
  fl_sr_reader r;
  fl_sr_field f;
  int more = 1;

  FL_TRY(fl_sr_open(rec, n, &r));
  fprintf(out, "%.*s v%" PRIu32 ":", (int)r.taglen, r.tag, r.version);
  for (int first = 1;; first = 0) {
    size_t es;
    FL_TRY(fl_sr_next(&r, &f, &more));
    if (!more)
      break;
    es = fl_ckpt_dtype_size(f.dtype);
    fprintf(out, "%s %.*s %s[%" PRIu64 "] =", first ? "" : ";", (int)f.namelen, f.name, fl_ckpt_dtype_name(f.dtype),
            f.count);
    for (uint64_t i = 0; i < f.count && i < max_values; i++)
      fl_sr_print_value(f.dtype, f.data + i * es, out);
    if (f.count > max_values)
      fprintf(out, " ...");
  }
  fprintf(out, "\n");
done:
  return rc;
}
