/* serial.c — checkpoint records of C structs (see ckpt_serial.h).
 *
 * Record layout, host byte order (recorded), no alignment assumed (memcpy everywhere):
 *   "FLSR" | u8 format=2 | u8 byte order (1 little, 2 big) | u16 0 | body | u64 XXH3-64 of everything before
 *   body  = u16 tag length | u32 type version | u32 field count | tag | fields
 *   field = u16 name length | u8 dtype (0: nested struct) | u8 0 | u64 count | name
 *           | count x element bytes, or count nested bodies
 * One walker serves four modes: SIZE adds up, PACK writes, UNPACK reads from a parsed body (fields found by
 * name), CHECK records the byte range of every field visited for the layout replay of fl_ckpt_type_check. */
#include "ckpt_serial.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FL_SR_MAGIC "FLSR"
#define FL_SR_FORMAT 2
#define FL_SR_HEAD 8
#define FL_SR_BHEAD 10
#define FL_SR_FHEAD 12
#define FL_SR_TAIL 8
#define FL_SR_MAX_DEPTH 16
#define FL_SR_MAX_NAME 255

typedef enum fl_sr_mode { FL_SR_SIZE, FL_SR_PACK, FL_SR_UNPACK, FL_SR_CHECK } fl_sr_mode;

/* A field of a parsed body. */
typedef struct fl_sr_field {
  const char *name;
  size_t namelen;
  fl_ckpt_dtype dtype;
  uint64_t count;
  const unsigned char *data, *end; /* the values, or the first nested body; the end of the field */
  int used;
} fl_sr_field;

/* A parsed body. */
typedef struct fl_sr_body {
  const char *tag;
  size_t taglen;
  uint32_t version, nfields;
  fl_sr_field *fields;
  const unsigned char *end;
} fl_sr_body;

/* A field's bytes within the object, for the checker. */
typedef struct fl_sr_range {
  size_t off, size, align;
  const char *name;
} fl_sr_range;

struct fl_ckpt_ser {
  fl_sr_mode mode;
  const fl_ckpt_type *type;
  unsigned char *base; /* the object walked */
  uint32_t version;    /* read (UNPACK) or written */
  int depth;
  uint32_t nvisited;
  size_t size;         /* SIZE */
  unsigned char *p;    /* PACK: the cursor */
  fl_sr_body *body;    /* UNPACK */
  fl_sr_range *ranges; /* CHECK */
  size_t nranges, cap;
};

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

static size_t fl_sr_align_up(size_t x, size_t a)
{
  return (x + a - 1) / a * a;
}
static int fl_sr_is(const char *s, size_t n, const char *z)
{
  return strlen(z) == n && memcmp(s, z, n) == 0;
}

static unsigned char *fl_sr_put(unsigned char *p, const void *v, size_t n)
{
  memcpy(p, v, n);
  return p + n;
}

static fl_err fl_sr_walk(fl_ckpt_ser *s, const fl_ckpt_type *t, void *obj);
static fl_err fl_sr_parse_body(const unsigned char *p, const unsigned char *end, int depth, fl_sr_body *b);
static fl_err fl_sr_unpack_body(const fl_ckpt_type *t, const fl_sr_body *b, int depth, void *obj);
static fl_err fl_sr_type_check(const fl_ckpt_type *t, int depth);

/* ---- the walkers' calls ---- */

uint32_t fl_ckpt_ser_version(const fl_ckpt_ser *s)
{
  return s->version;
}

static fl_err fl_sr_name_ok(const fl_ckpt_ser *s, const char *name)
{
  if (!name || !name[0] || strlen(name) > FL_SR_MAX_NAME)
    return fl_err_set(FL_ERR_INPUT, "type '%s': a field with an empty or over-long name", s->type->name);
  return FL_OK;
}

/* CHECK: record [p, p + size) as field `name`, which must lie inside the object and be visited once. */
static fl_err fl_sr_record(fl_ckpt_ser *s, const char *name, const void *p, size_t size, size_t align)
{
  const unsigned char *q = p;
  if (q < s->base || q > s->base + s->type->size || size > (size_t)(s->base + s->type->size - q))
    return fl_err_set(FL_ERR_INPUT,
                      "type '%s': field '%s' is not inside the object (a pointer member? pointed-to data is not "
                      "serialized)",
                      s->type->name, name);
  for (size_t i = 0; i < s->nranges; i++)
    if (strcmp(s->ranges[i].name, name) == 0)
      return fl_err_set(FL_ERR_INPUT, "type '%s': field '%s' visited twice", s->type->name, name);
  if (s->nranges == s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 16;
    fl_sr_range *g = realloc(s->ranges, nc * sizeof *g);
    if (!g)
      return fl_err_set(FL_ERR_NOMEM, "out of memory checking type '%s'", s->type->name);
    s->ranges = g;
    s->cap = nc;
  }
  s->ranges[s->nranges++] = (fl_sr_range){(size_t)(q - s->base), size, align, name};
  return FL_OK;
}

/* UNPACK: the record's field `name`, unused so far. */
static fl_err fl_sr_find(fl_ckpt_ser *s, const char *name, fl_sr_field **out)
{
  for (uint32_t i = 0; i < s->body->nfields; i++) {
    fl_sr_field *f = &s->body->fields[i];
    if (fl_sr_is(f->name, f->namelen, name)) {
      if (f->used)
        return fl_err_set(FL_ERR_INPUT, "type '%s': the walker reads field '%s' twice", s->type->name, name);
      f->used = 1;
      *out = f;
      return FL_OK;
    }
  }
  return fl_err_set(FL_ERR_INPUT, "record of type '%s' v%" PRIu32 " lacks field '%s'", s->type->name, s->version, name);
}

static void fl_sr_field_head(fl_ckpt_ser *s, const char *name, fl_ckpt_dtype dtype, size_t count)
{
  uint16_t nl = (uint16_t)strlen(name);
  uint64_t c = count;
  s->p = fl_sr_put(s->p, &nl, 2);
  *s->p++ = (unsigned char)dtype;
  *s->p++ = 0;
  s->p = fl_sr_put(s->p, &c, 8);
  s->p = fl_sr_put(s->p, name, nl);
}

fl_err fl_ckpt_ser_field(fl_ckpt_ser *s, const char *name, fl_ckpt_dtype dtype, void *p, size_t count)
{
  fl_err rc = FL_OK;
  size_t es = fl_ckpt_dtype_size(dtype);
  fl_sr_field *f;

  FL_TRY(fl_sr_name_ok(s, name));
  FL_CHECK(es > 0, FL_ERR_INPUT, "type '%s': field '%s' has element type %d (nested structs: fl_ckpt_ser_struct)",
           s->type->name, name, (int)dtype);
  FL_CHECK(count >= 1 && count <= SIZE_MAX / es, FL_ERR_INPUT, "type '%s': field '%s' has %zu elements", s->type->name,
           name, count);
  s->nvisited++;
  switch (s->mode) {
  case FL_SR_SIZE: s->size += FL_SR_FHEAD + strlen(name) + count * es; break;
  case FL_SR_PACK:
    fl_sr_field_head(s, name, dtype, count);
    s->p = fl_sr_put(s->p, p, count * es);
    break;
  case FL_SR_CHECK: FL_TRY(fl_sr_record(s, name, p, count * es, fl_sr_dtype_align(dtype))); break;
  case FL_SR_UNPACK:
    FL_TRY(fl_sr_find(s, name, &f));
    FL_CHECK(f->dtype == dtype && f->count == count, FL_ERR_INPUT,
             "record of type '%s': field '%s' is %s[%" PRIu64 "], this program has %s[%zu]", s->type->name, name,
             f->dtype == FL_CKPT_STRUCT ? "struct" : fl_ckpt_dtype_name(f->dtype), f->count, fl_ckpt_dtype_name(dtype),
             count);
    memcpy(p, f->data, count * es);
    break;
  }
done:
  return rc;
}

/* The size of one body of type t for obj. */
static fl_err fl_sr_body_size(const fl_ckpt_type *t, void *obj, int depth, size_t *size)
{
  fl_err rc = FL_OK;
  fl_ckpt_ser c = {.mode = FL_SR_SIZE, .type = t, .base = obj, .version = t->version, .depth = depth};
  FL_TRY(fl_sr_walk(&c, t, obj));
  *size = FL_SR_BHEAD + strlen(t->name) + c.size;
done:
  return rc;
}

/* Write one body of type t for obj at *p (advanced). */
static fl_err fl_sr_pack_body(const fl_ckpt_type *t, void *obj, int depth, unsigned char **p)
{
  fl_err rc = FL_OK;
  fl_ckpt_ser c = {.mode = FL_SR_PACK, .type = t, .base = obj, .version = t->version, .depth = depth};
  uint16_t taglen = (uint16_t)strlen(t->name);
  unsigned char *nfields_at;
  uint32_t zero = 0;
  c.p = fl_sr_put(*p, &taglen, 2);
  c.p = fl_sr_put(c.p, &t->version, 4);
  nfields_at = c.p;
  c.p = fl_sr_put(c.p, &zero, 4);
  c.p = fl_sr_put(c.p, t->name, taglen);
  FL_TRY(fl_sr_walk(&c, t, obj));
  memcpy(nfields_at, &c.nvisited, 4);
  *p = c.p;
done:
  return rc;
}

fl_err fl_ckpt_ser_struct(fl_ckpt_ser *s, const char *name, const fl_ckpt_type *t, void *p, size_t count)
{
  fl_err rc = FL_OK;
  unsigned char *obj = p;
  fl_sr_field *f;

  FL_TRY(fl_sr_name_ok(s, name));
  FL_CHECK(t != NULL && t->name && t->size > 0, FL_ERR_INPUT, "type '%s': field '%s' has no struct type", s->type->name,
           name);
  FL_CHECK(count >= 1 && count <= SIZE_MAX / t->size, FL_ERR_INPUT, "type '%s': field '%s' has %zu elements",
           s->type->name, name, count);
  FL_CHECK(s->depth < FL_SR_MAX_DEPTH, FL_ERR_INPUT, "type '%s': structs nested more than %d deep (a cycle?)",
           s->type->name, FL_SR_MAX_DEPTH);
  s->nvisited++;
  switch (s->mode) {
  case FL_SR_SIZE:
    s->size += FL_SR_FHEAD + strlen(name);
    for (size_t k = 0; k < count; k++) {
      size_t bs;
      FL_TRY(fl_sr_body_size(t, obj + k * t->size, s->depth + 1, &bs));
      s->size += bs;
    }
    break;
  case FL_SR_PACK:
    fl_sr_field_head(s, name, FL_CKPT_STRUCT, count);
    for (size_t k = 0; k < count; k++)
      FL_TRY(fl_sr_pack_body(t, obj + k * t->size, s->depth + 1, &s->p));
    break;
  case FL_SR_CHECK:
    FL_TRY(fl_sr_record(s, name, p, count * t->size, t->align));
    FL_TRY(fl_sr_type_check(t, s->depth + 1));
    break;
  case FL_SR_UNPACK: {
    const unsigned char *q;
    FL_TRY(fl_sr_find(s, name, &f));
    FL_CHECK(f->dtype == FL_CKPT_STRUCT && f->count == count, FL_ERR_INPUT,
             "record of type '%s': field '%s' is %s[%" PRIu64 "], this program has struct %s[%zu]", s->type->name, name,
             f->dtype == FL_CKPT_STRUCT ? "struct" : fl_ckpt_dtype_name(f->dtype), f->count, t->name, count);
    q = f->data;
    for (size_t k = 0; k < count; k++) {
      fl_sr_body b = {0};
      rc = fl_sr_parse_body(q, f->end, s->depth + 1, &b);
      if (rc == FL_OK)
        rc = fl_sr_unpack_body(t, &b, s->depth + 1, obj + k * t->size);
      q = b.end;
      free(b.fields);
      FL_TRY(rc);
    }
    break;
  }
  }
done:
  return rc;
}

/* A field table, walked: fields added after the version being read are left alone. */
static fl_err fl_sr_walk(fl_ckpt_ser *s, const fl_ckpt_type *t, void *obj)
{
  fl_err rc = FL_OK;
  unsigned char *base = obj;
  if (t->walk)
    return t->walk(s, obj);
  for (size_t i = 0; i < t->nfields; i++) {
    const fl_ckpt_field *f = &t->fields[i];
    if (s->mode == FL_SR_UNPACK && f->since > s->version)
      continue;
    if (f->dtype == FL_CKPT_STRUCT) {
      FL_CHECK(f->type != NULL && f->type->size > 0 && f->size % f->type->size == 0, FL_ERR_INPUT,
               "type '%s': struct field '%s' has no type or a size (%zu) that is not a whole number of them", t->name,
               f->name ? f->name : "?", f->size);
      FL_TRY(fl_ckpt_ser_struct(s, f->name, f->type, base + f->offset, f->size / f->type->size));
    } else {
      size_t es = fl_ckpt_dtype_size(f->dtype);
      FL_CHECK(es > 0 && f->size % es == 0, FL_ERR_INPUT,
               "type '%s': field '%s' is %zu bytes, not a whole number of %s", t->name, f->name ? f->name : "?",
               f->size, fl_ckpt_dtype_name(f->dtype));
      FL_TRY(fl_ckpt_ser_field(s, f->name, f->dtype, base + f->offset, f->size / es));
    }
  }
done:
  return rc;
}

/* ---- the checker ---- */

fl_err fl_ckpt_type_check(const fl_ckpt_type *t)
{
  return fl_sr_type_check(t, 0);
}

static fl_err fl_sr_type_check(const fl_ckpt_type *t, int depth)
{
  fl_err rc = FL_OK;
  fl_ckpt_ser c = {0};
  size_t end = 0;
  const char *tn = t && t->name ? t->name : "?";

  FL_CHECK(t && t->name && t->name[0] && strlen(t->name) <= FL_SR_MAX_NAME, FL_ERR_INPUT,
           "serializable type: empty or over-long type name");
  FL_CHECK(t->version >= 1, FL_ERR_INPUT, "type '%s': version %" PRIu32 " (expected >= 1)", tn, t->version);
  FL_CHECK(t->size > 0 && t->align > 0 && (t->align & (t->align - 1)) == 0 && t->size % t->align == 0, FL_ERR_INPUT,
           "type '%s': size %zu / alignment %zu are not those of a C type", tn, t->size, t->align);
  FL_CHECK(!t->walk != !t->fields, FL_ERR_INPUT, "type '%s': give a field table or a walker (exactly one)", tn);
  FL_CHECK(t->walk || (t->nfields >= 1 && t->nfields <= 65535), FL_ERR_INPUT,
           "type '%s': %zu fields (expected 1..65535)", tn, t->nfields);
  for (size_t i = 0; !t->walk && i < t->nfields; i++)
    FL_CHECK(t->fields[i].since >= 1 && t->fields[i].since <= t->version, FL_ERR_INPUT,
             "type '%s': field '%s' since version %" PRIu32 " (the type is at version %" PRIu32 ")", tn,
             t->fields[i].name ? t->fields[i].name : "?", t->fields[i].since, t->version);
  /* Walk a blank object, recording where every field lies. */
  c.mode = FL_SR_CHECK;
  c.type = t;
  c.version = t->version;
  c.depth = depth;
  FL_ALLOC(c.base, t->size);
  FL_TRY(fl_sr_walk(&c, t, c.base));
  FL_CHECK(c.nranges >= 1, FL_ERR_INPUT, "type '%s': the walker visits no field", tn);
  for (size_t i = 1; i < c.nranges; i++) /* by offset (insertion sort: few fields) */
    for (size_t j = i; j > 0 && c.ranges[j - 1].off > c.ranges[j].off; j--) {
      fl_sr_range x = c.ranges[j];
      c.ranges[j] = c.ranges[j - 1];
      c.ranges[j - 1] = x;
    }
  /* Replay the layout: each field must start where the previous one ends, rounded up to its alignment. */
  for (size_t i = 0; i < c.nranges; i++) {
    const fl_sr_range *r = &c.ranges[i];
    FL_CHECK(r->off >= end, FL_ERR_INPUT,
             "type '%s': field '%s' (offset %zu) overlaps the field before it (which ends at %zu)", tn, r->name, r->off,
             end);
    FL_CHECK(r->off == fl_sr_align_up(end, r->align), FL_ERR_INPUT,
             "type '%s': bytes %zu..%zu before field '%s' are not covered by any field: a member missing from the "
             "serializer?",
             tn, end, r->off, r->name);
    end = r->off + r->size;
  }
  FL_CHECK(fl_sr_align_up(end, t->align) == t->size, FL_ERR_INPUT,
           "type '%s': bytes %zu..%zu at the end of the struct are not covered by any field: a member missing from "
           "the serializer?",
           tn, end, t->size);
done:
  free(c.base);
  free(c.ranges);
  return rc;
}

/* ---- writing ---- */

fl_err fl_ckpt_serialize(const fl_ckpt_type *t, const void *obj, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  size_t body;
  unsigned char *p;
  uint64_t h;
  void *o = (void *)(uintptr_t)obj; /* walkers take void *; sizing and packing only read */

  FL_TRY(fl_ckpt_type_check(t));
  FL_TRY(fl_sr_body_size(t, o, 0, &body));
  FL_TRY(fl_ckpt_buf_reserve(out, FL_SR_HEAD + body + FL_SR_TAIL));
  p = out->data;
  p = fl_sr_put(p, FL_SR_MAGIC, 4);
  *p++ = FL_SR_FORMAT;
  *p++ = fl_sr_byte_order();
  *p++ = 0;
  *p++ = 0;
  FL_TRY(fl_sr_pack_body(t, o, 0, &p));
  FL_CHECK((size_t)(p - out->data) == FL_SR_HEAD + body, FL_ERR_INTERNAL,
           "type '%s': the walker wrote %zu bytes after sizing %zu (does it depend on something that changed?)",
           t->name, (size_t)(p - out->data) - FL_SR_HEAD, body);
  h = fl_ckpt_hash(out->data, (size_t)(p - out->data));
  p = fl_sr_put(p, &h, 8);
  out->size = (size_t)(p - out->data);
done:
  return rc;
}

/* ---- reading ---- */

/* Skip one body at p (bounded by end), checking its structure; *next after it. */
static fl_err fl_sr_skip_body(const unsigned char *p, const unsigned char *end, int depth, const unsigned char **next)
{
  fl_sr_body b = {0};
  fl_err rc = fl_sr_parse_body(p, end, depth, &b);
  *next = b.end;
  free(b.fields);
  return rc;
}

static fl_err fl_sr_parse_body(const unsigned char *p, const unsigned char *end, int depth, fl_sr_body *b)
{
  fl_err rc = FL_OK;
  uint16_t taglen;
  size_t left = (size_t)(end - p);

  memset(b, 0, sizeof *b);
  b->end = p;
  FL_CHECK(depth <= FL_SR_MAX_DEPTH, FL_ERR_IO, "serialized record nests more than %d deep", FL_SR_MAX_DEPTH);
  FL_CHECK(left >= FL_SR_BHEAD, FL_ERR_IO, "serialized record is truncated (a body of %zu bytes)", left);
  memcpy(&taglen, p, 2);
  memcpy(&b->version, p + 2, 4);
  memcpy(&b->nfields, p + 6, 4);
  p += FL_SR_BHEAD;
  left -= FL_SR_BHEAD;
  FL_CHECK(taglen >= 1 && taglen <= left && b->nfields <= (left - taglen) / FL_SR_FHEAD, FL_ERR_IO,
           "serialized record is malformed (tag of %u bytes, %" PRIu32 " fields in %zu bytes)", taglen, b->nfields,
           left);
  b->tag = (const char *)p;
  b->taglen = taglen;
  p += taglen;
  FL_ALLOC(b->fields, b->nfields);
  for (uint32_t i = 0; i < b->nfields; i++) {
    fl_sr_field *f = &b->fields[i];
    uint16_t nl;
    left = (size_t)(end - p);
    FL_CHECK(left >= FL_SR_FHEAD, FL_ERR_IO, "serialized record is truncated (field %" PRIu32 ")", i + 1);
    memcpy(&nl, p, 2);
    f->dtype = (fl_ckpt_dtype)p[2];
    memcpy(&f->count, p + 4, 8);
    left -= FL_SR_FHEAD;
    FL_CHECK(nl >= 1 && nl <= left, FL_ERR_IO, "serialized record is malformed at field %" PRIu32, i + 1);
    f->name = (const char *)p + FL_SR_FHEAD;
    f->namelen = nl;
    f->data = p + FL_SR_FHEAD + nl;
    left -= nl;
    if (f->dtype == FL_CKPT_STRUCT) {
      const unsigned char *q = f->data;
      FL_CHECK(f->count >= 1 && f->count <= left / FL_SR_BHEAD, FL_ERR_IO,
               "serialized record is malformed at field '%.*s'", (int)nl, f->name);
      for (uint64_t k = 0; k < f->count; k++)
        FL_TRY(fl_sr_skip_body(q, end, depth + 1, &q));
      f->end = q;
    } else {
      size_t es = fl_ckpt_dtype_size(f->dtype);
      FL_CHECK(es > 0 && f->count >= 1 && f->count <= left / es, FL_ERR_IO,
               "serialized record is malformed at field '%.*s'", (int)nl, f->name);
      f->end = f->data + f->count * es;
    }
    p = f->end;
  }
  b->end = p;
done:
  if (rc != FL_OK) {
    free(b->fields);
    b->fields = NULL;
  }
  return rc;
}

/* Check the envelope (magic, format, checksum, byte order) and parse the top body. */
static fl_err fl_sr_open(const void *rec, size_t n, fl_sr_body *b)
{
  fl_err rc = FL_OK;
  const unsigned char *r = rec;
  uint64_t want, got;

  memset(b, 0, sizeof *b);
  FL_CHECK(n >= FL_SR_HEAD + FL_SR_BHEAD + FL_SR_TAIL && memcmp(r, FL_SR_MAGIC, 4) == 0, FL_ERR_IO,
           "not a serialized record (%zu bytes, no FLSR header)", n);
  memcpy(&want, r + n - FL_SR_TAIL, 8);
  got = fl_ckpt_hash(r, n - FL_SR_TAIL);
  FL_CHECK(want == got, FL_ERR_IO, "serialized record is corrupt: checksum %016" PRIx64 ", expected %016" PRIx64, got,
           want);
  FL_CHECK(r[4] == FL_SR_FORMAT, FL_ERR_INPUT, "serialized record format %d (this program reads %d)", r[4],
           FL_SR_FORMAT);
  FL_CHECK(r[5] == fl_sr_byte_order(), FL_ERR_INPUT,
           "serialized record was written on a %s-endian machine; this one is %s-endian", r[5] == 1 ? "little" : "big",
           fl_sr_byte_order() == 1 ? "little" : "big");
  FL_TRY(fl_sr_parse_body(r + FL_SR_HEAD, r + n - FL_SR_TAIL, 0, b));
  FL_CHECK(b->end == r + n - FL_SR_TAIL, FL_ERR_IO, "serialized record has %zu stray bytes",
           (size_t)(r + n - FL_SR_TAIL - b->end));
done:
  return rc;
}

/* Unpack a parsed body of type t into obj (no all-or-nothing here: the caller works on a copy). */
static fl_err fl_sr_unpack_body(const fl_ckpt_type *t, const fl_sr_body *b, int depth, void *obj)
{
  fl_err rc = FL_OK;
  fl_ckpt_ser c = {.mode = FL_SR_UNPACK, .type = t, .base = obj, .depth = depth};
  FL_CHECK(fl_sr_is(b->tag, b->taglen, t->name), FL_ERR_INPUT, "record of type '%.*s', expected '%s'", (int)b->taglen,
           b->tag, t->name);
  FL_CHECK(b->version <= t->version, FL_ERR_INPUT,
           "record of type '%s' version %" PRIu32 " is newer than this program's (version %" PRIu32 ")", t->name,
           b->version, t->version);
  c.version = b->version;
  c.body = (fl_sr_body *)(uintptr_t)b;
  FL_TRY(fl_sr_walk(&c, t, obj));
  for (uint32_t i = 0; i < b->nfields; i++)
    FL_CHECK(b->fields[i].used, FL_ERR_INPUT,
             "record of type '%s' v%" PRIu32 " has a field '%.*s' that this program's version %" PRIu32
             " does not read",
             t->name, b->version, (int)b->fields[i].namelen, b->fields[i].name, t->version);
done:
  return rc;
}

fl_err fl_ckpt_record_info(const void *rec, size_t n, char *tag, size_t tagsize, uint32_t *version)
{
  fl_sr_body b;
  fl_err rc = fl_sr_open(rec, n, &b);
  if (rc == FL_OK) {
    if (tag && tagsize)
      snprintf(tag, tagsize, "%.*s", (int)b.taglen, b.tag);
    if (version)
      *version = b.version;
  }
  free(b.fields);
  return rc;
}

fl_err fl_ckpt_deserialize(const fl_ckpt_type *t, const void *rec, size_t n, void *obj)
{
  fl_err rc = FL_OK;
  fl_sr_body b = {0};
  unsigned char *tmp = NULL;

  FL_TRY(fl_ckpt_type_check(t));
  FL_TRY(fl_sr_open(rec, n, &b));
  FL_ALLOC(tmp, t->size);
  memcpy(tmp, obj, t->size);
  FL_TRY(fl_sr_unpack_body(t, &b, 0, tmp));
  memcpy(obj, tmp, t->size);
done:
  free(tmp);
  free(b.fields);
  return rc;
}

fl_err fl_ckpt_load(const fl_ckpt_type *const *types, size_t ntypes, const void *rec, size_t n, size_t *which,
                    void **obj)
{
  fl_err rc = FL_OK;
  fl_sr_body b = {0};
  unsigned char *o = NULL;
  size_t k;
  char known[256] = "";

  *obj = NULL;
  FL_TRY(fl_sr_open(rec, n, &b));
  for (k = 0; k < ntypes && !fl_sr_is(b.tag, b.taglen, types[k]->name); k++) {
    strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, types[k]->name, sizeof known - strlen(known) - 1);
  }
  FL_CHECK(k < ntypes, FL_ERR_INPUT, "record of unknown type '%.*s' (known: %s)", (int)b.taglen, b.tag,
           ntypes ? known : "none");
  FL_ALLOC(o, types[k]->size);
  FL_TRY(fl_ckpt_deserialize(types[k], rec, n, o));
  *which = k;
  *obj = o;
  o = NULL;
done:
  free(o);
  free(b.fields);
  return rc;
}

/* ---- printing ---- */

static void fl_sr_print_value(fl_ckpt_dtype d, const unsigned char *p, FILE *out)
{
  switch (d) {
  case FL_CKPT_U8: fprintf(out, " %u", (unsigned)*p); break;
  case FL_CKPT_I32: {
    int32_t v;
    memcpy(&v, p, 4);
    fprintf(out, " %" PRId32, v);
  } break;
  case FL_CKPT_I64: {
    int64_t v;
    memcpy(&v, p, 8);
    fprintf(out, " %" PRId64, v);
  } break;
  case FL_CKPT_F32: {
    float v;
    memcpy(&v, p, 4);
    fprintf(out, " %.9g", (double)v);
  } break;
  case FL_CKPT_F64: {
    double v;
    memcpy(&v, p, 8);
    fprintf(out, " %.17g", v);
  } break;
  }
}

static fl_err fl_sr_print_body(const fl_sr_body *b, int depth, size_t max_values, FILE *out)
{
  fl_err rc = FL_OK;
  fprintf(out, "%.*s v%" PRIu32 ":", (int)b->taglen, b->tag, b->version);
  for (uint32_t i = 0; i < b->nfields; i++) {
    const fl_sr_field *f = &b->fields[i];
    fprintf(out, "%s %.*s ", i ? ";" : "", (int)f->namelen, f->name);
    if (f->dtype == FL_CKPT_STRUCT) {
      const unsigned char *q = f->data;
      fprintf(out, "struct[%" PRIu64 "] =", f->count);
      for (uint64_t k = 0; k < f->count; k++) {
        fl_sr_body nb = {0};
        rc = fl_sr_parse_body(q, f->end, depth + 1, &nb);
        if (rc == FL_OK && k < max_values) {
          fprintf(out, " {");
          rc = fl_sr_print_body(&nb, depth + 1, max_values, out);
          fprintf(out, "}");
        }
        q = nb.end;
        free(nb.fields);
        FL_TRY(rc);
      }
    } else {
      size_t es = fl_ckpt_dtype_size(f->dtype);
      fprintf(out, "%s[%" PRIu64 "] =", fl_ckpt_dtype_name(f->dtype), f->count);
      for (uint64_t k = 0; k < f->count && k < max_values; k++)
        fl_sr_print_value(f->dtype, f->data + k * es, out);
    }
    if (f->count > max_values)
      fprintf(out, " ...");
  }
done:
  return rc;
}

fl_err fl_ckpt_record_print(const void *rec, size_t n, size_t max_values, FILE *out)
{
  fl_err rc = FL_OK;
  fl_sr_body b = {0};
  FL_TRY(fl_sr_open(rec, n, &b));
  FL_TRY(fl_sr_print_body(&b, 0, max_values, out));
  fprintf(out, "\n");
done:
  free(b.fields);
  return rc;
}
