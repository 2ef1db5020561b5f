/* test_ckpt_serial.c — serialized records of C structs: round trip (flat, nested, walker-described), the
 * serializer checker, reading older and refusing newer or incompatible records (nested ones included),
 * polymorphic loading by type tag, and corruption. */
#include "ckpt_serial.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct particle {
  int64_t id;
  double pos[3];
  float charge;
  int32_t flags;
  uint8_t kind;
} particle;

static const fl_ckpt_field particle_fields[] = {
    FL_CKPT_FIELD(particle, id),    FL_CKPT_FIELD(particle, pos),  FL_CKPT_FIELD(particle, charge),
    FL_CKPT_FIELD(particle, flags), FL_CKPT_FIELD(particle, kind),
};
static const fl_ckpt_type particle_type = FL_CKPT_TYPE(particle, "particle", 1, particle_fields);

static void test_roundtrip(void)
{
  particle p = {77, {1.5, -2.5, 3.25}, 0.5f, 9, 3}, q;
  fl_ckpt_buf b = {0};
  char tag[32];
  uint32_t ver = 0;
  FILE *f;
  char text[512] = "";
  memset(&q, 0xff, sizeof q);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&particle_type), FL_OK);
  CU_ASSERT_EQUAL(particle_fields[1].dtype, FL_CKPT_F64); /* chosen by the compiler */
  CU_ASSERT_EQUAL(particle_fields[1].size, 3 * sizeof(double));
  CU_ASSERT_EQUAL(particle_fields[4].dtype, FL_CKPT_U8);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&particle_type, &p, &b), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&particle_type, b.data, b.size, &q), FL_OK);
  CU_ASSERT(q.id == 77 && q.pos[0] == 1.5 && q.pos[2] == 3.25 && q.charge == 0.5f && q.flags == 9 && q.kind == 3);
  CU_ASSERT_EQUAL(fl_ckpt_record_info(b.data, b.size, tag, sizeof tag, &ver), FL_OK);
  CU_ASSERT_STRING_EQUAL(tag, "particle");
  CU_ASSERT_EQUAL(ver, 1);
  f = tmpfile();
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_record_print(b.data, b.size, 2, f), FL_OK);
  rewind(f);
  CU_ASSERT(fread(text, 1, sizeof text - 1, f) > 0);
  fclose(f);
  CU_ASSERT(strstr(text, "particle v1: id i64[1] = 77; pos f64[3] = 1.5 -2.5 ...; charge f32[1] = 0.5") != NULL);
  fl_ckpt_buf_free(&b);
}

/* The checker finds a member left out of the field table (in the middle, at the end), overlapping fields,
 * duplicates, and impossible versions. */
typedef struct three {
  double a;
  int64_t b;
  double c;
} three;

static void test_checker(void)
{
  static const fl_ckpt_field missing_mid[] = {FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, c)};
  static const fl_ckpt_field missing_end[] = {FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, b)};
  static const fl_ckpt_field dup[] = {FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, b), FL_CKPT_FIELD(three, c),
                                      FL_CKPT_FIELD(three, c)};
  static const fl_ckpt_field overlap[] = {
      {"a", FL_CKPT_F64, 0, 16, 1, NULL}, FL_CKPT_FIELD(three, b), FL_CKPT_FIELD(three, c)};
  static const fl_ckpt_field future[] = {FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, b),
                                         FL_CKPT_FIELD_SINCE(three, c, 3)};
  static const fl_ckpt_field shuffled[] = {FL_CKPT_FIELD(three, c), FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, b)};
  fl_ckpt_type t = FL_CKPT_TYPE(three, "three", 1, missing_mid);
  fl_ckpt_buf b = {0};
  three x = {1, 2, 3};

  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "bytes 8..16 before field 'c' are not covered") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_serialize(&t, &x, &b), FL_ERR_INPUT); /* never writes a record that loses data */
  t = (fl_ckpt_type)FL_CKPT_TYPE(three, "three", 1, missing_end);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "bytes 16..24 at the end") != NULL);
  t = (fl_ckpt_type)FL_CKPT_TYPE(three, "three", 1, dup);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "field 'c' visited twice") != NULL);
  t = (fl_ckpt_type)FL_CKPT_TYPE(three, "three", 1, overlap);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "overlaps") != NULL);
  t = (fl_ckpt_type)FL_CKPT_TYPE(three, "three", 2, future);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "since version 3 (the type is at version 2)") != NULL);
  t = (fl_ckpt_type)FL_CKPT_TYPE(three, "three", 1, shuffled); /* table order is free */
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_OK);
  t.version = 0;
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&t), FL_ERR_INPUT);
  fl_ckpt_buf_free(&b);
}

/* Version 2 of `three` adds a field; version 1 records read into it, the new field keeps its value. */
typedef struct three2 {
  double a;
  int64_t b;
  double c;
  int32_t added;
} three2;

static void test_versions(void)
{
  static const fl_ckpt_field f1[] = {FL_CKPT_FIELD(three, a), FL_CKPT_FIELD(three, b), FL_CKPT_FIELD(three, c)};
  static const fl_ckpt_field f2[] = {FL_CKPT_FIELD(three2, a), FL_CKPT_FIELD(three2, b), FL_CKPT_FIELD(three2, c),
                                     FL_CKPT_FIELD_SINCE(three2, added, 2)};
  /* A version 2 whose `added` claims to have been there since 1: old records lack it. */
  static const fl_ckpt_field f2bad[] = {FL_CKPT_FIELD(three2, a), FL_CKPT_FIELD(three2, b), FL_CKPT_FIELD(three2, c),
                                        FL_CKPT_FIELD(three2, added)};
  /* Same name and version, c now an f32 pair: incompatible. */
  typedef struct three_f {
    double a;
    int64_t b;
    float c[2];
  } three_f;
  static const fl_ckpt_field ff[] = {FL_CKPT_FIELD(three_f, a), FL_CKPT_FIELD(three_f, b), FL_CKPT_FIELD(three_f, c)};
  const fl_ckpt_type t1 = FL_CKPT_TYPE(three, "three", 1, f1), t2 = FL_CKPT_TYPE(three2, "three", 2, f2);
  const fl_ckpt_type t2bad = FL_CKPT_TYPE(three2, "three", 2, f2bad), tf = FL_CKPT_TYPE(three_f, "three", 1, ff);
  const fl_ckpt_type other = FL_CKPT_TYPE(three, "other", 1, f1);
  three x = {1, 2, 3}, y = {0, 0, 0};
  three2 z = {0, 0, 0, 5};
  three_f w;
  fl_ckpt_buf r1 = {0}, r2 = {0};

  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&t1, &x, &r1), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&t2, r1.data, r1.size, &z), FL_OK);
  CU_ASSERT(z.a == 1 && z.b == 2 && z.c == 3 && z.added == 5);
  z.added = 6;
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&t2, &z, &r2), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&t1, r2.data, r2.size, &y), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "version 2 is newer than this program's (version 1)") != NULL);
  CU_ASSERT(y.a == 0); /* unchanged on failure */
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&t2bad, r1.data, r1.size, &z), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "lacks field 'added'") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&tf, r1.data, r1.size, &w), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "field 'c' is f64[1], this program has f32[2]") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&other, r1.data, r1.size, &y), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "record of type 'three', expected 'other'") != NULL);
  fl_ckpt_buf_free(&r1);
  fl_ckpt_buf_free(&r2);
}

/* Polymorphic loading: the tag picks the concrete type. */
typedef struct circle {
  double r;
} circle;
typedef struct rect {
  double w, h;
  int32_t id;
} rect;
static const fl_ckpt_field circle_fields[] = {FL_CKPT_FIELD(circle, r)};
static const fl_ckpt_field rect_fields[] = {FL_CKPT_FIELD(rect, w), FL_CKPT_FIELD(rect, h), FL_CKPT_FIELD(rect, id)};
static const fl_ckpt_type circle_type = FL_CKPT_TYPE(circle, "circle", 1, circle_fields);
static const fl_ckpt_type rect_type = FL_CKPT_TYPE(rect, "rect", 1, rect_fields);
static const fl_ckpt_type *const shapes[] = {&circle_type, &rect_type};

static void test_polymorphic(void)
{
  circle c = {2.5};
  rect r = {3, 4, 11};
  fl_ckpt_buf bc = {0}, br = {0};
  void *obj = NULL;
  size_t which = 99;
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&circle_type, &c, &bc), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&rect_type, &r, &br), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_load(shapes, 2, br.data, br.size, &which, &obj), FL_OK);
  CU_ASSERT_EQUAL(which, 1);
  CU_ASSERT(obj && ((rect *)obj)->h == 4 && ((rect *)obj)->id == 11);
  free(obj);
  CU_ASSERT_EQUAL(fl_ckpt_load(shapes, 2, bc.data, bc.size, &which, &obj), FL_OK);
  CU_ASSERT_EQUAL(which, 0);
  CU_ASSERT(obj && ((circle *)obj)->r == 2.5);
  free(obj);
  CU_ASSERT_EQUAL(fl_ckpt_load(shapes, 1, br.data, br.size, &which, &obj), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "unknown type 'rect' (known: circle)") != NULL);
  CU_ASSERT_PTR_NULL(obj);
  fl_ckpt_buf_free(&bc);
  fl_ckpt_buf_free(&br);
}

/* Every single flipped bit, and every truncation, is refused as corrupt (FL_ERR_IO) or as foreign (magic,
 * format), never read. */
static void test_corruption(void)
{
  particle p = {1, {2, 3, 4}, 5, 6, 7}, q;
  fl_ckpt_buf b = {0};
  size_t caught = 0, total = 0;
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&particle_type, &p, &b), FL_OK);
  for (size_t i = 0; i < b.size; i++)
    for (int bit = 0; bit < 8; bit++) {
      fl_err rc;
      b.data[i] ^= (unsigned char)(1u << bit);
      rc = fl_ckpt_deserialize(&particle_type, b.data, b.size, &q);
      caught += rc != FL_OK;
      total++;
      b.data[i] ^= (unsigned char)(1u << bit);
    }
  CU_ASSERT_EQUAL(caught, total);
  for (size_t n = 0; n < b.size; n++)
    CU_ASSERT_NOT_EQUAL(fl_ckpt_deserialize(&particle_type, b.data, n, &q), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&particle_type, b.data, b.size, &q), FL_OK);
  fl_ckpt_buf_free(&b);
}

/* ---- nested structs ---- */

typedef struct vec3 {
  double x[3];
} vec3;
static const fl_ckpt_field vec3_fields[] = {FL_CKPT_FIELD(vec3, x)};
static const fl_ckpt_type vec3_type = FL_CKPT_TYPE(vec3, "vec3", 1, vec3_fields);

typedef struct body {
  int64_t id;
  vec3 pos;
  vec3 trail[4]; /* an array of nested structs */
  float mass;
} body;
static const fl_ckpt_field body_fields[] = {
    FL_CKPT_FIELD(body, id),
    FL_CKPT_FIELD_STRUCT(body, pos, &vec3_type),
    FL_CKPT_FIELD_STRUCT(body, trail, &vec3_type),
    FL_CKPT_FIELD(body, mass),
};
static const fl_ckpt_type body_type = FL_CKPT_TYPE(body, "body", 1, body_fields);

/* The same struct described by a walker, DARMA style: one function sizes, packs, unpacks and checks. */
static fl_err body_walk(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  body *b = obj;
  FL_TRY(fl_ckpt_ser_field(s, "id", FL_CKPT_I64, &b->id, 1));
  FL_TRY(fl_ckpt_ser_struct(s, "pos", &vec3_type, &b->pos, 1));
  FL_TRY(fl_ckpt_ser_struct(s, "trail", &vec3_type, b->trail, 4));
  FL_TRY(fl_ckpt_ser_field(s, "mass", FL_CKPT_F32, &b->mass, 1));
done:
  return rc;
}
static const fl_ckpt_type body_walk_type = FL_CKPT_TYPE_WALK(body, "body", 1, body_walk);

static body make_body(void)
{
  body b;
  memset(&b, 0, sizeof b);
  b.id = 42;
  b.mass = 2.5f;
  for (int k = 0; k < 3; k++) {
    b.pos.x[k] = k + 0.5;
    for (int t = 0; t < 4; t++)
      b.trail[t].x[k] = 10 * t + k;
  }
  return b;
}

static void test_nested(void)
{
  const fl_ckpt_type *types[] = {&body_type, &body_walk_type};
  body b = make_body(), c;
  fl_ckpt_buf r1 = {0}, r2 = {0};
  char text[1024] = "";
  FILE *f;
  for (int i = 0; i < 2; i++) {
    fl_ckpt_buf *r = i ? &r2 : &r1;
    CU_ASSERT_EQUAL(fl_ckpt_type_check(types[i]), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(types[i], &b, r), FL_OK);
    memset(&c, 0, sizeof c);
    CU_ASSERT_EQUAL(fl_ckpt_deserialize(types[i], r->data, r->size, &c), FL_OK);
    CU_ASSERT(memcmp(&b, &c, sizeof b) == 0);
  }
  /* Table and walker describe the same record: interchangeable. */
  CU_ASSERT(r1.size == r2.size && memcmp(r1.data, r2.data, r1.size) == 0);
  memset(&c, 0, sizeof c);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&body_walk_type, r1.data, r1.size, &c), FL_OK);
  CU_ASSERT(c.trail[3].x[2] == 32 && c.pos.x[1] == 1.5 && c.mass == 2.5f);
  f = tmpfile();
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_record_print(r1.data, r1.size, 2, f), FL_OK);
  rewind(f);
  CU_ASSERT(fread(text, 1, sizeof text - 1, f) > 0);
  fclose(f);
  CU_ASSERT(strstr(text,
                   "body v1: id i64[1] = 42; pos struct[1] = {vec3 v1: x f64[3] = 0.5 1.5 ...}; trail "
                   "struct[4] = {vec3 v1: x f64[3] = 0 1 ...} {vec3 v1: x f64[3] = 10 11 ...} ...; mass") != NULL);
  fl_ckpt_buf_free(&r1);
  fl_ckpt_buf_free(&r2);
}

/* A nested record of a newer version, or of another type, is refused by name; nothing is overwritten. */
typedef struct vec3b {
  double x[3];
  int32_t frame; /* version 2 */
} vec3b;
static const fl_ckpt_field vec3b_fields[] = {FL_CKPT_FIELD(vec3b, x), FL_CKPT_FIELD_SINCE(vec3b, frame, 2)};
static const fl_ckpt_type vec3b_type = FL_CKPT_TYPE(vec3b, "vec3", 2, vec3b_fields);
typedef struct holder_new {
  int64_t id;
  vec3b v;
} holder_new;
typedef struct holder_old {
  int64_t id;
  vec3 v;
} holder_old;
static const fl_ckpt_field holder_new_fields[] = {FL_CKPT_FIELD(holder_new, id),
                                                  FL_CKPT_FIELD_STRUCT(holder_new, v, &vec3b_type)};
static const fl_ckpt_field holder_old_fields[] = {FL_CKPT_FIELD(holder_old, id),
                                                  FL_CKPT_FIELD_STRUCT(holder_old, v, &vec3_type)};
static const fl_ckpt_type holder_new_type = FL_CKPT_TYPE(holder_new, "holder", 1, holder_new_fields);
static const fl_ckpt_type holder_old_type = FL_CKPT_TYPE(holder_old, "holder", 1, holder_old_fields);

static void test_nested_versions(void)
{
  holder_new hn = {7, {{1, 2, 3}, 9}};
  holder_old ho = {8, {{4, 5, 6}}}, keep = {0, {{0, 0, 0}}};
  fl_ckpt_buf rn = {0}, ro = {0};
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&holder_new_type, &hn, &rn), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&holder_old_type, &ho, &ro), FL_OK);
  /* The old program meets a vec3 v2 inside a holder v1: refused, the nested type named. */
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&holder_old_type, rn.data, rn.size, &keep), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "record of type 'vec3' version 2 is newer than this program's (version 1)") != NULL);
  CU_ASSERT(keep.id == 0);
  /* The new program reads the old record: the nested field added later keeps its value. */
  hn.v.frame = 99;
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&holder_new_type, ro.data, ro.size, &hn), FL_OK);
  CU_ASSERT(hn.id == 8 && hn.v.x[2] == 6 && hn.v.frame == 99);
  /* A nested record of another type where a vec3 is expected. */
  {
    static const fl_ckpt_field other_fields[] = {FL_CKPT_FIELD(vec3, x)};
    static const fl_ckpt_type other_type = FL_CKPT_TYPE(vec3, "color", 1, other_fields);
    static const fl_ckpt_field holder_c_fields[] = {FL_CKPT_FIELD(holder_old, id),
                                                    FL_CKPT_FIELD_STRUCT(holder_old, v, &other_type)};
    static const fl_ckpt_type holder_c_type = FL_CKPT_TYPE(holder_old, "holder", 1, holder_c_fields);
    CU_ASSERT_EQUAL(fl_ckpt_deserialize(&holder_c_type, ro.data, ro.size, &keep), FL_ERR_INPUT);
    CU_ASSERT(strstr(fl_err_msg(), "record of type 'vec3', expected 'color'") != NULL);
  }
  fl_ckpt_buf_free(&rn);
  fl_ckpt_buf_free(&ro);
}

/* The checker runs walkers too: a member the walker forgets, a pointer member, a field visited twice. */
static fl_err body_walk_forgets(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  body *b = obj;
  FL_TRY(fl_ckpt_ser_field(s, "id", FL_CKPT_I64, &b->id, 1));
  FL_TRY(fl_ckpt_ser_struct(s, "trail", &vec3_type, b->trail, 4)); /* pos forgotten */
  FL_TRY(fl_ckpt_ser_field(s, "mass", FL_CKPT_F32, &b->mass, 1));
done:
  return rc;
}

typedef struct with_ptr {
  double *values;
  int64_t n;
} with_ptr;
static double outside[4];
static fl_err with_ptr_walk(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  with_ptr *w = obj;
  FL_TRY(fl_ckpt_ser_field(s, "n", FL_CKPT_I64, &w->n, 1));
  FL_TRY(fl_ckpt_ser_field(s, "values", FL_CKPT_F64, w->values ? w->values : outside, 4));
done:
  return rc;
}

static fl_err body_walk_twice(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  FL_TRY(body_walk(s, obj));
  FL_TRY(fl_ckpt_ser_field(s, "id", FL_CKPT_I64, &((body *)obj)->id, 1));
done:
  return rc;
}

static void test_checker_walkers(void)
{
  const fl_ckpt_type forgets = FL_CKPT_TYPE_WALK(body, "body", 1, body_walk_forgets);
  const fl_ckpt_type ptr = FL_CKPT_TYPE_WALK(with_ptr, "with_ptr", 1, with_ptr_walk);
  const fl_ckpt_type twice = FL_CKPT_TYPE_WALK(body, "body", 1, body_walk_twice);
  body b = make_body();
  fl_ckpt_buf r = {0};
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&forgets), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "bytes 8..32 before field 'trail' are not covered") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_serialize(&forgets, &b, &r), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&ptr), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "field 'values' is not inside the object") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_type_check(&twice), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "field 'id' visited twice") != NULL);
  fl_ckpt_buf_free(&r);
}

/* A walker reads an older layout by asking the record's version. */
typedef struct sensor {
  double value;
  double scale; /* version 2; version 1 stored value already scaled by 1000 */
} sensor;
static fl_err sensor_walk(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  sensor *x = obj;
  FL_TRY(fl_ckpt_ser_field(s, "value", FL_CKPT_F64, &x->value, 1));
  if (fl_ckpt_ser_version(s) >= 2)
    FL_TRY(fl_ckpt_ser_field(s, "scale", FL_CKPT_F64, &x->scale, 1));
  else
    x->scale = 1000;
done:
  return rc;
}
static fl_err sensor_v1_walk(fl_ckpt_ser *s, void *obj)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_ser_field(s, "value", FL_CKPT_F64, obj, 1));
done:
  return rc;
}
typedef struct sensor_v1 {
  double value;
} sensor_v1;

static void test_walker_versions(void)
{
  const fl_ckpt_type v1 = FL_CKPT_TYPE_WALK(sensor_v1, "sensor", 1, sensor_v1_walk);
  const fl_ckpt_type v2 = FL_CKPT_TYPE_WALK(sensor, "sensor", 2, sensor_walk);
  sensor_v1 old = {1.25};
  sensor now = {0, 0};
  fl_ckpt_buf r = {0};
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_serialize(&v1, &old, &r), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_deserialize(&v2, r.data, r.size, &now), FL_OK);
  CU_ASSERT(now.value == 1.25 && now.scale == 1000);
  fl_ckpt_buf_free(&r);
}

static CU_TestInfo serial_tests[] = {
    {"round trip, info, print", test_roundtrip},
    {"serializer checker", test_checker},
    {"older records read, newer and incompatible refused", test_versions},
    {"polymorphic load by type tag", test_polymorphic},
    {"nested structs: table and walker", test_nested},
    {"nested records: newer or foreign refused, older read", test_nested_versions},
    {"the checker runs walkers", test_checker_walkers},
    {"a walker reads older layouts", test_walker_versions},
    {"every flipped bit and truncation refused", test_corruption},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt serialization", NULL, NULL, NULL, NULL, serial_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
