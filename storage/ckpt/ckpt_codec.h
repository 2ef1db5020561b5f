/* ckpt_codec.h — codecs: how an array's bytes become a checkpoint payload and back.
 *
 * A codec is an ops table registered under its type string (codec_impl.h):
 *   "none"          the array's bytes as they are (lossless, any element type);
 *   "zfp"           ZFP fixed-accuracy mode through libzfp: |x~ - x| <= tol pointwise (f32/f64, 1-4 dims);
 *   "zfp-adaptive"  the same, the tolerance chosen per checkpoint by a caller's rule (Altenbernd & Goettsche's
 *                   adaptive bound eb = ||r|| / ||b|| * tol; see fl_ckpt_rule_relres);
 *   "multigrid"     restriction by full weighting to a grid 1-3 levels coarser (~2^d smaller per level, d the
 *                   number of dimensions), prolongation by (multi)linear interpolation on decode. Lossy with no
 *                   pointwise bound: accurate on smooth fields only (f32/f64, 1-3 dims).
 * "zfp" and "zfp-adaptive" exist only in builds with ZFP (FL_HAVE_ZFP). A payload is self-describing (each
 * lossy codec writes a header with the shape), so decoding needs only the codec name and the expected shape,
 * which is checked against the header. */
#ifndef FL_CKPT_CODEC_H
#define FL_CKPT_CODEC_H

#include "ckpt_base.h"

/* What a tolerance rule sees, once per array per checkpoint, on the thread that starts the checkpoint. */
typedef struct fl_ckpt_rule_args {
  const char *label;
  long version;
  const fl_ckpt_shape *shape;
  const void *data; /* the array as it is being checkpointed */
} fl_ckpt_rule_args;

/* A tolerance rule: set *tol (absolute, > 0) for this checkpoint of this array. */
typedef fl_err (*fl_ckpt_tol_rule)(void *user, const fl_ckpt_rule_args *a, double *tol);

/* How an array is encoded. Zero-initialised means "none". */
typedef struct fl_ckpt_codec_cfg {
  const char *name;      /* registry type string; NULL = "none". Borrowed for the call that takes the cfg. */
  double tol;            /* "zfp": absolute pointwise error tolerance, > 0 */
  int levels;            /* "multigrid": coarsening levels, 1..3 */
  fl_ckpt_tol_rule rule; /* "zfp-adaptive": required */
  void *rule_user;       /* handed to rule, borrowed */
} fl_ckpt_codec_cfg;

/* The parameters one encode actually uses (the rule already applied). */
typedef struct fl_ckpt_codec_params {
  double tol; /* zfp, zfp-adaptive */
  int levels; /* multigrid */
} fl_ckpt_codec_params;

/* Ready-made rule for "zfp-adaptive": the seed's eb = ||r|| / ||b|| * tol, a relative 2-norm bound. ZFP bounds
 * the pointwise absolute error, so the rule returns tol_abs = eb * ||x||_2 / sqrt(N), which guarantees
 * ||x~ - x||_2 <= sqrt(N) * tol_abs = eb * ||x||_2. The application updates r_norm (and b_norm) as it
 * iterates; user must point to an fl_ckpt_relres. */
typedef struct fl_ckpt_relres {
  double r_norm; /* ||A x - b||_2 now */
  double b_norm; /* ||b||_2 */
  double tol;    /* the tuning factor tol_aSZ of the seed (e.g. 1e-1) */
  double eb;     /* out: the last relative bound used (for reports) */
} fl_ckpt_relres;
fl_err fl_ckpt_rule_relres(void *user, const fl_ckpt_rule_args *a, double *tol);

/* The registry, in a fixed order, for help texts and conformance tests. */
int fl_ckpt_codec_count(void);
const char *fl_ckpt_codec_name(int i);
/* 1 when `name` is registered in this build. */
int fl_ckpt_codec_known(const char *name);
/* 1 for lossy codecs (everything but "none"); -1 for an unknown name. */
int fl_ckpt_codec_is_lossy(const char *name);

/* Check that `cfg` can encode arrays of shape `s` (codec known, element type and rank supported, parameters in
 * range). FL_ERR_INPUT naming the label, the codec and the value: "array 'p': codec 'zfp' needs f32 or f64
 * elements, got i32". */
fl_err fl_ckpt_codec_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label);

/* Resolve the parameters for one checkpoint: calls the rule for "zfp-adaptive". */
fl_err fl_ckpt_codec_resolve(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_rule_args *a, fl_ckpt_codec_params *p);

/* Encode `raw` (shape s) into out (out->size set; out keeps its capacity for the next call). */
fl_err fl_ckpt_codec_encode(const char *name, const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw,
                            fl_ckpt_buf *out);
/* Decode a payload into `raw` (fl_ckpt_shape_bytes(s) bytes). A payload whose header disagrees with s, or that
 * is truncated, is FL_ERR_IO. */
fl_err fl_ckpt_codec_decode(const char *name, const fl_ckpt_shape *s, const void *payload, size_t n, void *raw);

/* Format the parameters that matter for `name` ("tol=1e-06", "levels=2", "-"): what manifests record. */
char *fl_ckpt_codec_params_format(const char *name, const fl_ckpt_codec_params *p, char *buf, size_t size);

#endif
