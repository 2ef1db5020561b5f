/* test_ckpt_serial.c — serialized records of C structs: round trip, the serializer checker, reading older
 * and refusing newer or incompatible records, polymorphic loading by type tag, and corruption. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_serial.h"
#include "fl_test.h"

typedef struct particle {
  int64_t id;
  double pos[3];
  float charge;
  int32_t flags;
  uint8_t kind;
} particle;

static const fl_ckpt_field particle_fields[] = {
  FL_CKPT_FIELD(particle, id), FL_CKPT_FIELD(particle, pos), FL_CKPT_FIELD(particle, charge),
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
  static const fl_ckpt_field overlap[] = {{"a", FL_CKPT_F64, 0, 16, 1}, FL_CKPT_FIELD(three, b),
                                          FL_CKPT_FIELD(three, c)};
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
  CU_ASSERT(strstr(fl_err_msg(), "field 'c' listed twice") != NULL);
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

static CU_TestInfo serial_tests[] = {
  {"round trip, info, print", test_roundtrip},
  {"serializer checker", test_checker},
  {"older records read, newer and incompatible refused", test_versions},
  {"polymorphic load by type tag", test_polymorphic},
  {"every flipped bit and truncation refused", test_corruption},
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
  {"ckpt serialization", NULL, NULL, NULL, NULL, serial_tests},
  CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
