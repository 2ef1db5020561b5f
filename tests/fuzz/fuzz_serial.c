/* fuzz_serial.c — libFuzzer harness: a serialized object record (checkpointed struct) as `ckpt dump` prints it and
 * as a program loads it into a registered type (deserialize, polymorphic load), and codec payloads decoded. */
#include "ckpt.h"
#include "ckpt_codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_inner {
  int32_t a[3];
  double b;
} fz_inner;
typedef struct fz_obj {
  int64_t step;
  double t[2];
  uint8_t flag;
  fz_inner in;
} fz_obj;
static const fl_ckpt_field fz_inner_fields[] = {FL_CKPT_FIELD(fz_inner, a), FL_CKPT_FIELD(fz_inner, b)};
static const fl_ckpt_type fz_inner_type = FL_CKPT_TYPE(fz_inner, "inner", 1, fz_inner_fields);
static const fl_ckpt_field fz_obj_fields[] = {FL_CKPT_FIELD(fz_obj, step), FL_CKPT_FIELD(fz_obj, t),
                                              FL_CKPT_FIELD_SINCE(fz_obj, flag, 2),
                                              FL_CKPT_FIELD_STRUCT(fz_obj, in, &fz_inner_type)};
static const fl_ckpt_type fz_obj_type = FL_CKPT_TYPE(fz_obj, "obj", 2, fz_obj_fields);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *devnull;
  const fl_ckpt_type *types[] = {&fz_obj_type, &fz_inner_type};
  fz_obj o;
  char tag[64];
  uint32_t version;
  size_t which;
  union {
    double d[64];
    uint8_t b[512];
  } raw;
  if (!devnull)
    devnull = fopen("/dev/null", "w");
  (void)fl_ckpt_record_info(data, size, tag, sizeof tag, &version);
  (void)fl_ckpt_record_print(data, size, 8, devnull);
  memset(&o, 0, sizeof o);
  (void)fl_ckpt_deserialize(&fz_obj_type, data, size, &o);
  {
    void *obj = NULL;
    if (fl_ckpt_load(types, 2, data, size, &which, &obj) == FL_OK)
      free(obj);
  }
  {
    /* codec payloads for an 8x8 array of doubles */
    fl_ckpt_shape sh = {FL_CKPT_F64, 2, {8, 8}};
    (void)fl_ckpt_codec_decode("none", &sh, data, size, raw.d);
    (void)fl_ckpt_codec_decode("multigrid", &sh, data, size, raw.d);
  }
  fl_err_clear();
  return 0;
}
