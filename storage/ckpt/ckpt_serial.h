/* ckpt_serial.h — serialization of C structs into checkpoint records: type tag + version, self-describing
 * fields, and a checker for the serializer itself (the DARMA/checkpoint ideas of the 003 seed, in C).
 *
 * A type is described once by a static table built with offsetof: FL_CKPT_FIELD(T, member) lets the compiler
 * pick the element type (_Generic: a member of an unsupported type does not compile) and the element count (a
 * `double x[3]` member is 3 x f64). The record written for an object carries the type's tag and version and,
 * for each field, its name, element type and count; so a reader can
 *   - pick the concrete type from the tag among several registered ones (polymorphic loading, fl_ckpt_load);
 *   - read a record of an older version: fields added later (`since` > the record's version) keep the value the
 *     object had (fl_ckpt_deserialize) or zero (fl_ckpt_load);
 *   - refuse a record of a newer version, an unknown field, or a changed element type or count, by name.
 * Records end with an XXH3-64 of their bytes. Byte order is the host's and is recorded: a record from a machine
 * of the other byte order is refused rather than misread.
 *
 * fl_ckpt_type_check is the serializer checker: it replays the C layout rules over the field table and reports
 * any byte range of the struct that no field covers and that is not padding: the trace of a member someone
 * added to the struct and forgot in the table. A forgotten member small enough to fit entirely into what would
 * otherwise be padding is invisible to it (e.g. an int32_t between an int32_t and a double). */
#ifndef FL_CKPT_SERIAL_H
#define FL_CKPT_SERIAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ckpt_base.h"

typedef struct fl_ckpt_field {
  const char *name;    /* the member's name, as written in records */
  fl_ckpt_dtype dtype; /* element type */
  size_t offset;       /* offsetof(T, member) */
  size_t size;         /* sizeof the member: count = size / element size */
  uint32_t since;      /* first version of the type that has this field (>= 1) */
} fl_ckpt_field;

typedef struct fl_ckpt_type {
  const char *name;             /* the type tag; unique among the types a program reads */
  uint32_t version;             /* layout version >= 1; bump it when fields are added */
  size_t size;                  /* sizeof(T) */
  size_t align;                 /* _Alignof(T) */
  const fl_ckpt_field *fields;  /* borrowed, static */
  size_t nfields;
} fl_ckpt_type;

#define FL_CKPT_FIELD_SINCE(T, m, v)                                                                          \
  { #m, FL_CKPT_DTYPE_OF(((T *)0)->m), offsetof(T, m), sizeof(((T *)0)->m), (v) }
#define FL_CKPT_FIELD(T, m) FL_CKPT_FIELD_SINCE(T, m, 1)
#define FL_CKPT_TYPE(T, tag, ver, fieldtable)                                                                 \
  { (tag), (ver), sizeof(T), _Alignof(T), (fieldtable), sizeof(fieldtable) / sizeof((fieldtable)[0]) }

/* Check a type description (see the header comment): FL_ERR_INPUT naming the type, the field and the bytes. */
fl_err fl_ckpt_type_check(const fl_ckpt_type *t);

/* Write obj's record into out (out->size set). The type must pass fl_ckpt_type_check. */
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

/* The tag (copied into tag, tagsize bytes) and version of a record, after checking its structure. */
fl_err fl_ckpt_record_info(const void *rec, size_t n, char *tag, size_t tagsize, uint32_t *version);

/* Print a record, self-described ("cg_state v2: iter i64[1] = 40; x f64[3] = 1 2 3"), at most max_values
 * values per field. For `faultline ckpt dump`. */
fl_err fl_ckpt_record_print(const void *rec, size_t n, size_t max_values, FILE *out);

#endif
