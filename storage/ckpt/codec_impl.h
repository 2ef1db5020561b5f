/* codec_impl.h — what a codec implements (private to storage/ckpt). Adding a codec: one file with a
 * `const fl_ckpt_codec_ops`, one line in the registry of codec.c; the conformance suite then tests it. */
#ifndef FL_CKPT_CODEC_IMPL_H
#define FL_CKPT_CODEC_IMPL_H

#include "ckpt_codec.h"
#include "fl_config.h"

typedef struct fl_ckpt_codec_ops {
  const char *name;
  int lossy;
  /* Element types and ranks this codec takes, parameters in range (FL_ERR_INPUT naming label). */
  fl_err (*check)(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label);
  /* Parameters for one checkpoint; NULL copies cfg->tol and cfg->levels. */
  fl_err (*resolve)(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_rule_args *a, fl_ckpt_codec_params *p);
  fl_err (*encode)(const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw, fl_ckpt_buf *out);
  fl_err (*decode)(const fl_ckpt_shape *s, const void *payload, size_t n, void *raw);
  /* Which parameter a manifest records: 't' tol, 'l' levels, 0 none. */
  char param;
} fl_ckpt_codec_ops;

extern const fl_ckpt_codec_ops fl_ckpt_codec_none_ops, fl_ckpt_codec_multigrid_ops;
#if FL_HAVE_ZFP
extern const fl_ckpt_codec_ops fl_ckpt_codec_zfp_ops, fl_ckpt_codec_zfp_adaptive_ops;
#endif

/* Shared by the lossy codecs: f32 or f64 and at most max_dims dimensions. */
fl_err fl_ckpt_codec_need_float(const char *codec, const fl_ckpt_shape *s, int max_dims, const char *label);

#endif
