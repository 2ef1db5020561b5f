/* codec_zfp.c — "zfp" and "zfp-adaptive": ZFP's fixed-accuracy mode through libzfp (Lindstrom 2014).
 *
 * ZFP cuts the field into 4^d blocks, applies a decorrelating transform and encodes bit planes until every
 * value is within `tol` of the original: the bound is pointwise and absolute. The payload is ZFP's own stream
 * with its full header (magic, field type and size, mode), so decoding reads the tolerance from the payload and
 * checks the shape. Arrays are C-ordered, ZFP's x is the fastest axis: nx = dims[ndims - 1]. Serial execution:
 * on 2 cores zfp_exec_omp is slower (PLATFORM-NOTES). */
#include "codec_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zfp.h>

/* A zfp_field over `data` for shape s (NULL on allocation failure). ZFP takes a non-const pointer for both
 * directions; compression only reads it. */
static zfp_field *fl_zfp_field(const fl_ckpt_shape *s, void *data)
{
  zfp_type t = s->dtype == FL_CKPT_F64 ? zfp_type_double : zfp_type_float;
  const size_t *d = s->dims;
  switch (s->ndims) {
  case 1: return zfp_field_1d(data, t, d[0]);
  case 2: return zfp_field_2d(data, t, d[1], d[0]);
  case 3: return zfp_field_3d(data, t, d[2], d[1], d[0]);
  default: return zfp_field_4d(data, t, d[3], d[2], d[1], d[0]);
  }
}

static fl_err fl_zfp_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_codec_need_float("zfp", s, 4, label));
  FL_CHECK(cfg->tol > 0 && isfinite(cfg->tol), FL_ERR_INPUT, "array '%s': codec 'zfp' needs a tolerance > 0, got %g",
           label, cfg->tol);
done:
  return rc;
}

static fl_err fl_zfp_adaptive_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_codec_need_float("zfp-adaptive", s, 4, label));
  FL_CHECK(cfg->rule != NULL, FL_ERR_INPUT,
           "array '%s': codec 'zfp-adaptive' needs a tolerance rule (e.g. fl_ckpt_rule_relres)", label);
done:
  return rc;
}

static fl_err fl_zfp_adaptive_resolve(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_rule_args *a, fl_ckpt_codec_params *p)
{
  fl_err rc = FL_OK;
  double tol = NAN;
  FL_TRY(cfg->rule(cfg->rule_user, a, &tol));
  FL_CHECK(tol > 0 && isfinite(tol), FL_ERR_INPUT,
           "array '%s': the tolerance rule of checkpoint %ld returned %g (expected a finite value > 0)", a->label,
           a->version, tol);
  p->tol = tol;
done:
  return rc;
}

static fl_err fl_zfp_encode(const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  zfp_field *f = NULL;
  zfp_stream *zs = NULL;
  bitstream *bs = NULL;
  size_t max, n;

  FL_CHECK(p->tol > 0 && isfinite(p->tol), FL_ERR_INPUT, "codec 'zfp': tolerance %g (expected > 0)", p->tol);
  f = fl_zfp_field(s, (void *)(uintptr_t)raw);
  zs = zfp_stream_open(NULL);
  FL_CHECK(f && zs, FL_ERR_NOMEM, "codec 'zfp': out of memory");
  zfp_stream_set_accuracy(zs, p->tol);
  max = zfp_stream_maximum_size(zs, f);
  FL_CHECK(max > 0, FL_ERR_INTERNAL, "codec 'zfp': libzfp rejected the field");
  FL_TRY(fl_ckpt_buf_reserve(out, max));
  bs = stream_open(out->data, max);
  FL_CHECK(bs != NULL, FL_ERR_NOMEM, "codec 'zfp': out of memory");
  zfp_stream_set_bit_stream(zs, bs);
  zfp_stream_rewind(zs);
  FL_CHECK(zfp_write_header(zs, f, ZFP_HEADER_FULL) > 0, FL_ERR_INTERNAL, "codec 'zfp': cannot write the header");
  n = zfp_compress(zs, f);
  FL_CHECK(n > 0, FL_ERR_INTERNAL, "codec 'zfp': zfp_compress failed");
  out->size = n;
done:
  zfp_field_free(f);
  zfp_stream_close(zs);
  stream_close(bs);
  return rc;
}

static fl_err fl_zfp_decode(const fl_ckpt_shape *s, const void *payload, size_t n, void *raw)
{
  fl_err rc = FL_OK;
  zfp_field *f = NULL;
  zfp_stream *zs = NULL;
  bitstream *bs = NULL;
  void *copy = NULL;
  size_t got[4] = {0, 0, 0, 0};
  zfp_type want = s->dtype == FL_CKPT_F64 ? zfp_type_double : zfp_type_float;

  /* libzfp reads whole 64-bit words and trusts the stream: it gets a word-aligned buffer padded to a whole
   * word. (Payloads reach this point only after their checksum verified.) */
  if (n % sizeof(uint64_t) != 0 || (uintptr_t)payload % sizeof(uint64_t) != 0) {
    size_t padded = (n / sizeof(uint64_t) + 1) * sizeof(uint64_t);
    copy = calloc(1, padded);
    FL_CHECK(copy != NULL, FL_ERR_NOMEM, "codec 'zfp': out of memory");
    memcpy(copy, payload, n);
    payload = copy;
    n = padded;
  }
  f = zfp_field_alloc();
  bs = stream_open((void *)(uintptr_t)payload, n);
  FL_CHECK(f && bs, FL_ERR_NOMEM, "codec 'zfp': out of memory");
  zs = zfp_stream_open(bs);
  FL_CHECK(zs != NULL, FL_ERR_NOMEM, "codec 'zfp': out of memory");
  FL_CHECK(n >= 16 && zfp_read_header(zs, f, ZFP_HEADER_FULL) > 0, FL_ERR_IO,
           "codec 'zfp': the payload is not a ZFP stream");
  FL_CHECK(zfp_field_type(f) == want, FL_ERR_IO, "codec 'zfp': the payload holds %s values, expected %s",
           zfp_field_type(f) == zfp_type_double ? "f64" : "f32", fl_ckpt_dtype_name(s->dtype));
  FL_CHECK((int)zfp_field_dimensionality(f) == s->ndims, FL_ERR_IO,
           "codec 'zfp': the payload has %u dimensions, expected %d", zfp_field_dimensionality(f), s->ndims);
  zfp_field_size(f, got);
  for (int i = 0; i < s->ndims; i++)
    FL_CHECK(got[i] == s->dims[s->ndims - 1 - i], FL_ERR_IO,
             "codec 'zfp': the payload's dimension %d is %zu, expected %zu", s->ndims - 1 - i, got[i],
             s->dims[s->ndims - 1 - i]);
  zfp_field_set_pointer(f, raw);
  FL_CHECK(zfp_decompress(zs, f) > 0, FL_ERR_IO, "codec 'zfp': zfp_decompress failed");
done:
  zfp_field_free(f);
  zfp_stream_close(zs);
  stream_close(bs);
  free(copy);
  return rc;
}

const fl_ckpt_codec_ops fl_ckpt_codec_zfp_ops = {
    .name = "zfp",
    .lossy = 1,
    .check = fl_zfp_check,
    .encode = fl_zfp_encode,
    .decode = fl_zfp_decode,
    .param = 't',
};

const fl_ckpt_codec_ops fl_ckpt_codec_zfp_adaptive_ops = {
    .name = "zfp-adaptive",
    .lossy = 1,
    .check = fl_zfp_adaptive_check,
    .resolve = fl_zfp_adaptive_resolve,
    .encode = fl_zfp_encode,
    .decode = fl_zfp_decode,
    .param = 't',
};
