/* ckpt_serial.h — serialization of C structs into checkpoint records: one walker per type, used for sizing,
 * packing, unpacking and checking; a type tag and a version in every record (the DARMA/checkpoint ideas of the
 * 003 seed, in C).
 *
 * A type's walker visits its fields in a fixed order, each with fl_ckpt_ser_field (scalars and fixed arrays)
 * or fl_ckpt_ser_struct (nested structs, themselves typed); the same walker sizes, packs, unpacks and checks a
 * record. A type with only plain members can give a field table instead of a walker (FL_CKPT_FIELD: the
 * compiler picks the element type through _Generic, so a member of an unsupported type does not compile, and
 * the count, so `double x[3]` is three f64; FL_CKPT_FIELD_STRUCT for a nested struct). A record carries the
 * type's tag and version, and names, element types and counts of its fields, nested structs as nested records
 * with their own tags and versions. So a reader can
 *   - pick the concrete type by the tag among several (polymorphic loading, fl_ckpt_load);
 *   - read a record of an older version: table fields added later (`since` > the record's version) keep the
 *     value the object had; a walker asks fl_ckpt_ser_version and reads what that version has;
 *   - refuse a record of a newer version, an unknown or missing field, a changed element type or count, a
 *     nested record of the wrong type, by name.
 * Records end with an XXH3-64 of their bytes. Byte order is the host's and is recorded: a record from a
 * machine of the other byte order is refused rather than misread. Nesting is limited to 16 levels.
 *
 * fl_ckpt_type_check is the serializer checker (DARMA's "serialization sanitizer"): it runs the walker over an
 * object, records the byte range of every field visited, and replays the C layout rules over them: any range
 * of the struct that no field covers and that is not padding is the trace of a member someone added to the
 * struct and forgot in the walker, and is reported by offset; so are overlaps, duplicates, fields outside the
 * object (a pointer member). Its blind spot: a forgotten member small enough to fit entirely into what would
 * otherwise be padding (e.g. an int32_t between an int32_t and a double). Structs hold fixed-size data only:
 * pointed-to data is not serialized (register it as an array). */
#ifndef FL_CKPT_SERIAL_H
#define FL_CKPT_SERIAL_H

#include "ckpt_base.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FL_CKPT_STRUCT ((fl_ckpt_dtype)0) /* the "element type" of a nested struct field */

typedef struct fl_ckpt_type fl_ckpt_type;
typedef struct fl_ckpt_ser fl_ckpt_ser; /* a walk in progress: sizing, packing, unpacking or checking */

/* Visit every field of obj, in a fixed order, with the two calls below; return their errors. */
typedef fl_err (*fl_ckpt_walk_fn)(fl_ckpt_ser *s, void *obj);

/* A walker's visits. p points to the member: count elements of dtype, or count structs of type t. */
fl_err fl_ckpt_ser_field(fl_ckpt_ser *s, const char *name, fl_ckpt_dtype dtype, void *p, size_t count);
fl_err fl_ckpt_ser_struct(fl_ckpt_ser *s, const char *name, const fl_ckpt_type *t, void *p, size_t count);
/* The version being read (while unpacking: the record's, maybe older than the type's) or written. */
uint32_t fl_ckpt_ser_version(const fl_ckpt_ser *s);

typedef struct fl_ckpt_field {
  const char *name;         /* the member's name, as written in records */
  fl_ckpt_dtype dtype;      /* element type; FL_CKPT_STRUCT for a nested struct */
  size_t offset;            /* offsetof(T, member) */
  size_t size;              /* sizeof the member: count = size / element (or struct) size */
  uint32_t since;           /* first version of the type that has this field (>= 1) */
  const fl_ckpt_type *type; /* the nested struct's type, NULL otherwise */
} fl_ckpt_field;

struct fl_ckpt_type {
  const char *name;            /* the type tag; unique among the types a program reads */
  uint32_t version;            /* layout version >= 1; bump it when fields change */
  size_t size;                 /* sizeof(T) */
  size_t align;                /* _Alignof(T) */
  const fl_ckpt_field *fields; /* a field table (borrowed, static) ... */
  size_t nfields;
  fl_ckpt_walk_fn walk; /* ... or a walker (fields NULL) */
};

#define FL_CKPT_FIELD_SINCE(T, m, v)                                                                                   \
  {                                                                                                                    \
#m, FL_CKPT_DTYPE_OF(((T *)0)->m), offsetof(T, m), sizeof(((T *)0)->m), (v), NULL                                  \
  }
#define FL_CKPT_FIELD(T, m) FL_CKPT_FIELD_SINCE(T, m, 1)
#define FL_CKPT_FIELD_STRUCT_SINCE(T, m, subtype, v)                                                                   \
  {                                                                                                                    \
#m, FL_CKPT_STRUCT, offsetof(T, m), sizeof(((T *)0)->m), (v), (subtype)                                            \
  }
#define FL_CKPT_FIELD_STRUCT(T, m, subtype) FL_CKPT_FIELD_STRUCT_SINCE(T, m, subtype, 1)
#define FL_CKPT_TYPE(T, tag, ver, fieldtable)                                                                          \
  {                                                                                                                    \
    (tag), (ver), sizeof(T), _Alignof(T), (fieldtable), sizeof(fieldtable) / sizeof((fieldtable)[0]), NULL             \
  }
#define FL_CKPT_TYPE_WALK(T, tag, ver, walkfn)                                                                         \
  {                                                                                                                    \
    (tag), (ver), sizeof(T), _Alignof(T), NULL, 0, (walkfn)                                                            \
  }

/* Check a type description and its serializer (see the header comment), nested types included: FL_ERR_INPUT
 * naming the type, the field and the bytes. */
fl_err fl_ckpt_type_check(const fl_ckpt_type *t);

/* Write obj's record into out (out->size set): one sizing walk, one packing walk. The type is checked first. */
fl_err fl_ckpt_serialize(const fl_ckpt_type *t, const void *obj, fl_ckpt_buf *out);

/* Read a record of type t into obj. On any failure obj is unchanged. A corrupt record (checksum, structure) is
 * FL_ERR_IO; a record of another type, a newer version, or with fields this program does not know is
 * FL_ERR_INPUT. */
fl_err fl_ckpt_deserialize(const fl_ckpt_type *t, const void *rec, size_t n, void *obj);

/* Polymorphic read: the record's tag picks one of types[0..ntypes-1]; *obj is a new zeroed object of that type
 * filled from the record (the caller frees it), *which its index. An unknown tag is FL_ERR_INPUT listing the
 * known ones. */
fl_err fl_ckpt_load(const fl_ckpt_type *const *types, size_t ntypes, const void *rec, size_t n, size_t *which,
                    void **obj);

/* The tag (copied into tag, tagsize bytes) and version of a record, after checking its checksum. */
fl_err fl_ckpt_record_info(const void *rec, size_t n, char *tag, size_t tagsize, uint32_t *version);

/* Print a record, self-described ("cg_state v2: iter i64[1] = 40; x f64[3] = 1 2 3; opts {solver_opts v1:
 * ...}"), at most max_values values per field. For `faultline ckpt dump`. */
fl_err fl_ckpt_record_print(const void *rec, size_t n, size_t max_values, FILE *out);

#endif
