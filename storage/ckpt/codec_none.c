/* codec_none.c — the identity codec: the payload is the array's bytes. Lossless for every element type. */
#include "codec_impl.h"

#include <string.h>

static fl_err fl_none_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label)
{
  (void)cfg;
  (void)s;
  (void)label;
  return FL_OK;
}

static fl_err fl_none_encode(const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  size_t n = fl_ckpt_shape_bytes(s);
  (void)p;
  FL_TRY(fl_ckpt_buf_reserve(out, n));
  memcpy(out->data, raw, n);
  out->size = n;
done:
  return rc;
}

static fl_err fl_none_decode(const fl_ckpt_shape *s, const void *payload, size_t n, void *raw)
{
  size_t want = fl_ckpt_shape_bytes(s);
  if (n != want)
    return fl_err_set(FL_ERR_IO, "codec 'none': payload is %zu bytes, the array needs %zu", n, want);
  memcpy(raw, payload, n);
  return FL_OK;
}

const fl_ckpt_codec_ops fl_ckpt_codec_none_ops = {
    .name = "none",
    .lossy = 0,
    .check = fl_none_check,
    .encode = fl_none_encode,
    .decode = fl_none_decode,
    .param = 0,
};
