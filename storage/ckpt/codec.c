/* codec.c — the codec registry and dispatch (see ckpt_codec.h), and the relative-residual tolerance rule. */
#include "codec_impl.h"
#include "fl_config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fl_ckpt_codec_ops *const fl_ckpt_codecs[] = {
    &fl_ckpt_codec_none_ops,
#if FL_HAVE_ZFP
    &fl_ckpt_codec_zfp_ops,
    &fl_ckpt_codec_zfp_adaptive_ops,
#endif
    &fl_ckpt_codec_multigrid_ops,
};
#define FL_CKPT_NCODECS ((int)(sizeof fl_ckpt_codecs / sizeof fl_ckpt_codecs[0]))

int fl_ckpt_codec_count(void)
{
  return FL_CKPT_NCODECS;
}
const char *fl_ckpt_codec_name(int i)
{
  return (i >= 0 && i < FL_CKPT_NCODECS) ? fl_ckpt_codecs[i]->name : NULL;
}

static const fl_ckpt_codec_ops *fl_ckpt_codec_find(const char *name)
{
  if (!name)
    name = "none";
  for (int i = 0; i < FL_CKPT_NCODECS; i++)
    if (strcmp(fl_ckpt_codecs[i]->name, name) == 0)
      return fl_ckpt_codecs[i];
  return NULL;
}

/* FL_ERR_INPUT for an unknown codec, listing the known ones. */
static fl_err fl_ckpt_codec_unknown(const char *name, const char *label)
{
  char known[128] = "";
  for (int i = 0; i < FL_CKPT_NCODECS; i++) {
    strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, fl_ckpt_codecs[i]->name, sizeof known - strlen(known) - 1);
  }
  return fl_err_set(FL_ERR_INPUT, "array '%s': unknown codec '%s' (known in this build: %s)", label ? label : "?", name,
                    known);
}

int fl_ckpt_codec_known(const char *name)
{
  return fl_ckpt_codec_find(name) != NULL;
}

int fl_ckpt_codec_is_lossy(const char *name)
{
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(name);
  return c ? c->lossy : -1;
}

fl_err fl_ckpt_codec_need_float(const char *codec, const fl_ckpt_shape *s, int max_dims, const char *label)
{
  if (s->dtype != FL_CKPT_F32 && s->dtype != FL_CKPT_F64)
    return fl_err_set(FL_ERR_INPUT, "array '%s': codec '%s' needs f32 or f64 elements, got %s", label, codec,
                      fl_ckpt_dtype_name(s->dtype));
  if (s->ndims > max_dims)
    return fl_err_set(FL_ERR_INPUT, "array '%s': codec '%s' takes 1..%d dimensions, got %d", label, codec, max_dims,
                      s->ndims);
  return FL_OK;
}

fl_err fl_ckpt_codec_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label)
{
  fl_err rc = FL_OK;
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(cfg->name);
  if (!c)
    return fl_ckpt_codec_unknown(cfg->name, label);
  FL_TRY(fl_ckpt_shape_check(s, label));
  FL_TRY(c->check(cfg, s, label));
done:
  return rc;
}

fl_err fl_ckpt_codec_resolve(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_rule_args *a, fl_ckpt_codec_params *p)
{
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(cfg->name);
  if (!c)
    return fl_ckpt_codec_unknown(cfg->name, a->label);
  p->tol = cfg->tol;
  p->levels = cfg->levels;
  return c->resolve ? c->resolve(cfg, a, p) : FL_OK;
}

fl_err fl_ckpt_codec_encode(const char *name, const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw,
                            fl_ckpt_buf *out)
{
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(name);
  if (!c)
    return fl_ckpt_codec_unknown(name, NULL);
  return c->encode(p, s, raw, out);
}

fl_err fl_ckpt_codec_decode(const char *name, const fl_ckpt_shape *s, const void *payload, size_t n, void *raw)
{
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(name);
  if (!c)
    return fl_ckpt_codec_unknown(name, NULL);
  return c->decode(s, payload, n, raw);
}

char *fl_ckpt_codec_params_format(const char *name, const fl_ckpt_codec_params *p, char *buf, size_t size)
{
  const fl_ckpt_codec_ops *c = fl_ckpt_codec_find(name);
  if (c && c->param == 't') {
    /* The shortest spelling that reads back as the same double. */
    snprintf(buf, size, "tol=%.15g", p->tol);
    if (strtod(buf + 4, NULL) != p->tol)
      snprintf(buf, size, "tol=%.17g", p->tol);
  } else if (c && c->param == 'l')
    snprintf(buf, size, "levels=%d", p->levels);
  else
    snprintf(buf, size, "-");
  return buf;
}

fl_err fl_ckpt_rule_relres(void *user, const fl_ckpt_rule_args *a, double *tol)
{
  fl_ckpt_relres *rr = user;
  size_t n = fl_ckpt_shape_count(a->shape);
  double sum = 0.0, eb;
  if (!rr)
    return fl_err_set(FL_ERR_INPUT, "array '%s': fl_ckpt_rule_relres needs an fl_ckpt_relres as its user data",
                      a->label);
  if (!(rr->b_norm > 0) || !isfinite(rr->b_norm) || !(rr->r_norm >= 0) || !isfinite(rr->r_norm) || !(rr->tol > 0) ||
      !isfinite(rr->tol))
    return fl_err_set(FL_ERR_INPUT,
                      "array '%s': relative-residual rule needs r_norm >= 0, b_norm > 0, tol > 0 (got %g, %g, %g)",
                      a->label, rr->r_norm, rr->b_norm, rr->tol);
  eb = rr->r_norm / rr->b_norm * rr->tol;
  if (a->shape->dtype == FL_CKPT_F64) {
    const double *x = a->data;
    for (size_t i = 0; i < n; i++)
      sum += x[i] * x[i];
  } else if (a->shape->dtype == FL_CKPT_F32) {
    const float *x = a->data;
    for (size_t i = 0; i < n; i++)
      sum += (double)x[i] * (double)x[i];
  } else {
    return fl_err_set(FL_ERR_INPUT, "array '%s': relative-residual rule needs f32 or f64 elements, got %s", a->label,
                      fl_ckpt_dtype_name(a->shape->dtype));
  }
  rr->eb = eb;
  /* ||x~ - x||_2 <= sqrt(N) max|x~ - x| <= sqrt(N) tol_abs = eb ||x||_2. A zero field is encoded exactly by
   * ZFP whatever the tolerance, so eb itself serves there. */
  *tol = sum > 0 ? eb * sqrt(sum / (double)n) : eb;
  if (!(*tol > 0) || !isfinite(*tol))
    return fl_err_set(FL_ERR_INPUT,
                      "array '%s': relative-residual rule gave tolerance %g (eb %g): the residual "
                      "is 0 or the data not finite",
                      a->label, *tol, eb);
  return FL_OK;
}
