/* codec_multigrid.c — "multigrid": checkpoint a coarse-grid version of a smooth field (Goeddeke, Altenbernd &
 * Ribbrock 2015; Altenbernd & Goettsche 2019, the seed's "MG" column).
 *
 * Encoding restricts the field `levels` times (1..3) by full weighting, the tensor product of the 1-D stencil
 * [1/4 1/2 1/4], keeping every other point of each axis (~2^d reduction per level in d dimensions). Decoding
 * prolongs back by linear interpolation along each axis (bi-/trilinear). Coarse point j of an axis sits at fine
 * index 2j, so every level is a uniform grid: n = 2^k + 1 is the classic vertex-centred hierarchy; for even n
 * the last fine point lies half a coarse step beyond the last coarse point and is linearly extrapolated; axes
 * of 1 or 2 points are not coarsened. Boundary points are injected. (Multi)linear fields come back exactly; a
 * smooth field with an O(h^2 f'') error that grows about 4x per level; rough data badly: no pointwise bound.
 *
 * Payload: "FLMG", format 1, levels, ndims, dtype, the fine dims (u64 each, little-endian host order), then the
 * coarse values in the array's element type (f32 stays f32). Arithmetic is in double. */
#include "codec_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FL_MG_MAGIC "FLMG"
#define FL_MG_FORMAT 1
#define FL_MG_MAX_LEVELS 3
#define FL_MG_HEADER(nd) (8 + 8 * (size_t)(nd))

/* Points left on an axis of n >= 1 after one restriction: fine indices 0, 2, 4, ... (n = 1 and 2 stay). */
static size_t fl_mg_coarse_n(size_t n)
{
  return n <= 2 ? n : (n + 1) / 2;
}

/* Shape after `levels` restrictions. */
static void fl_mg_coarse_shape(const fl_ckpt_shape *fine, int levels, fl_ckpt_shape *c)
{
  *c = *fine;
  for (int l = 0; l < levels; l++)
    for (int a = 0; a < c->ndims; a++)
      c->dims[a] = fl_mg_coarse_n(c->dims[a]);
}

/* Along axis `ax` of a double array of dims d (C order), restrict src (d[ax] = n) into dst (d[ax] = nc). */
static void fl_mg_restrict_axis(const double *src, double *dst, const size_t *d, int nd, int ax)
{
  size_t outer = 1, inner = 1, n = d[ax], nc = fl_mg_coarse_n(d[ax]);
  for (int i = 0; i < ax; i++)
    outer *= d[i];
  for (int i = ax + 1; i < nd; i++)
    inner *= d[i];
  for (size_t o = 0; o < outer; o++) {
    const double *s = src + o * n * inner;
    double *t = dst + o * nc * inner;
    for (size_t j = 0; j < nc; j++) {
      size_t p = nc == n ? j : 2 * j; /* short axes are copied */
      double *tj = t + j * inner;
      const double *sp = s + p * inner;
      if (p == 0 || p == n - 1 || nc == n) {
        memcpy(tj, sp, inner * sizeof *tj);
      } else {
        const double *lo = sp - inner, *hi = sp + inner;
        for (size_t k = 0; k < inner; k++)
          tj[k] = 0.25 * lo[k] + 0.5 * sp[k] + 0.25 * hi[k];
      }
    }
  }
}

/* Along axis `ax`, prolong src (coarse, dims d with d[ax] = nc(n)) into dst (d[ax] = n). */
static void fl_mg_prolong_axis(const double *src, double *dst, const size_t *d, int nd, int ax, size_t n)
{
  size_t outer = 1, inner = 1, nc = fl_mg_coarse_n(n);
  for (int i = 0; i < ax; i++)
    outer *= d[i];
  for (int i = ax + 1; i < nd; i++)
    inner *= d[i];
  for (size_t o = 0; o < outer; o++) {
    const double *s = src + o * nc * inner;
    double *t = dst + o * n * inner;
    for (size_t i = 0; i < n; i++) {
      double *ti = t + i * inner;
      if (nc == n || i % 2 == 0) {
        memcpy(ti, s + (nc == n ? i : i / 2) * inner, inner * sizeof *ti);
      } else if (i / 2 + 1 < nc) { /* between two coarse points */
        const double *a = s + (i / 2) * inner, *b = a + inner;
        for (size_t k = 0; k < inner; k++)
          ti[k] = 0.5 * (a[k] + b[k]);
      } else { /* even n: half a coarse step past the last coarse point */
        const double *b = s + (nc - 1) * inner, *a = b - inner;
        for (size_t k = 0; k < inner; k++)
          ti[k] = 1.5 * b[k] - 0.5 * a[k];
      }
    }
  }
}

static fl_err fl_mg_check(const fl_ckpt_codec_cfg *cfg, const fl_ckpt_shape *s, const char *label)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_codec_need_float("multigrid", s, 3, label));
  FL_CHECK(cfg->levels >= 1 && cfg->levels <= FL_MG_MAX_LEVELS, FL_ERR_INPUT,
           "array '%s': codec 'multigrid' takes 1..%d levels, got %d", label, FL_MG_MAX_LEVELS, cfg->levels);
done:
  return rc;
}

static void fl_mg_load(const fl_ckpt_shape *s, const void *raw, size_t n, double *out)
{
  if (s->dtype == FL_CKPT_F64) {
    memcpy(out, raw, n * sizeof *out);
  } else {
    const float *f = raw;
    for (size_t i = 0; i < n; i++)
      out[i] = f[i];
  }
}

static void fl_mg_store(const fl_ckpt_shape *s, const double *in, size_t n, void *raw)
{
  if (s->dtype == FL_CKPT_F64) {
    memcpy(raw, in, n * sizeof *in);
  } else {
    float *f = raw;
    for (size_t i = 0; i < n; i++)
      f[i] = (float)in[i];
  }
}

static fl_err fl_mg_encode(const fl_ckpt_codec_params *p, const fl_ckpt_shape *s, const void *raw, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  double *a = NULL, *b = NULL;
  size_t n = fl_ckpt_shape_count(s), hdr = FL_MG_HEADER(s->ndims);
  size_t d[FL_CKPT_MAX_DIMS];
  fl_ckpt_shape c;
  unsigned char *h;

  FL_CHECK(p->levels >= 1 && p->levels <= FL_MG_MAX_LEVELS && s->ndims <= 3, FL_ERR_INPUT,
           "codec 'multigrid': %d levels, %d dimensions (expected 1..3 each)", p->levels, s->ndims);
  FL_ALLOC(a, n);
  FL_ALLOC(b, n);
  fl_mg_load(s, raw, n, a);
  for (int ax = 0; ax < s->ndims; ax++)
    d[ax] = s->dims[ax];
  for (int l = 0; l < p->levels; l++)
    for (int ax = 0; ax < s->ndims; ax++) {
      double *t;
      fl_mg_restrict_axis(a, b, d, s->ndims, ax);
      d[ax] = fl_mg_coarse_n(d[ax]);
      t = a, a = b, b = t;
    }
  fl_mg_coarse_shape(s, p->levels, &c);
  FL_TRY(fl_ckpt_buf_reserve(out, hdr + fl_ckpt_shape_bytes(&c)));
  h = out->data;
  memcpy(h, FL_MG_MAGIC, 4);
  h[4] = FL_MG_FORMAT;
  h[5] = (unsigned char)p->levels;
  h[6] = (unsigned char)s->ndims;
  h[7] = (unsigned char)s->dtype;
  for (int i = 0; i < s->ndims; i++) {
    uint64_t v = s->dims[i];
    memcpy(h + 8 + 8 * (size_t)i, &v, 8);
  }
  fl_mg_store(s, a, fl_ckpt_shape_count(&c), h + hdr);
  out->size = hdr + fl_ckpt_shape_bytes(&c);
done:
  free(a);
  free(b);
  return rc;
}

static fl_err fl_mg_decode(const fl_ckpt_shape *s, const void *payload, size_t n, void *raw)
{
  fl_err rc = FL_OK;
  const unsigned char *h = payload;
  double *a = NULL, *b = NULL;
  size_t hdr = FL_MG_HEADER(s->ndims), nfine = fl_ckpt_shape_count(s);
  size_t dims[FL_MG_MAX_LEVELS + 1][FL_CKPT_MAX_DIMS] = {{0}};
  fl_ckpt_shape c;
  int levels;

  FL_CHECK(n >= 8 && memcmp(h, FL_MG_MAGIC, 4) == 0 && h[4] == FL_MG_FORMAT, FL_ERR_IO,
           "codec 'multigrid': the payload is not a multigrid payload (format %d)", FL_MG_FORMAT);
  levels = h[5];
  FL_CHECK(levels >= 1 && levels <= FL_MG_MAX_LEVELS && h[6] == s->ndims && h[7] == s->dtype, FL_ERR_IO,
           "codec 'multigrid': payload header (levels %d, %d dims, %s) does not match the array (%d dims, %s)", levels,
           h[6], fl_ckpt_dtype_name((fl_ckpt_dtype)h[7]), s->ndims, fl_ckpt_dtype_name(s->dtype));
  FL_CHECK(n >= hdr, FL_ERR_IO, "codec 'multigrid': truncated payload (%zu bytes)", n);
  for (int i = 0; i < s->ndims; i++) {
    uint64_t v;
    memcpy(&v, h + 8 + 8 * (size_t)i, 8);
    FL_CHECK(v == s->dims[i], FL_ERR_IO, "codec 'multigrid': payload dimension %d is %llu, expected %zu", i,
             (unsigned long long)v, s->dims[i]);
  }
  fl_mg_coarse_shape(s, levels, &c);
  FL_CHECK(n == hdr + fl_ckpt_shape_bytes(&c), FL_ERR_IO, "codec 'multigrid': payload is %zu bytes, expected %zu", n,
           hdr + fl_ckpt_shape_bytes(&c));
  for (int ax = 0; ax < s->ndims; ax++)
    dims[0][ax] = s->dims[ax];
  for (int l = 1; l <= levels; l++)
    for (int ax = 0; ax < s->ndims; ax++)
      dims[l][ax] = fl_mg_coarse_n(dims[l - 1][ax]);
  FL_ALLOC(a, nfine);
  FL_ALLOC(b, nfine);
  fl_mg_load(s, h + hdr, fl_ckpt_shape_count(&c), a);
  {
    size_t d[FL_CKPT_MAX_DIMS];
    memcpy(d, dims[levels], sizeof d);
    /* Undo the restrictions in reverse order: last level first, last axis first. */
    for (int l = levels; l >= 1; l--)
      for (int ax = s->ndims - 1; ax >= 0; ax--) {
        double *t;
        fl_mg_prolong_axis(a, b, d, s->ndims, ax, dims[l - 1][ax]);
        d[ax] = dims[l - 1][ax];
        t = a, a = b, b = t;
      }
  }
  fl_mg_store(s, a, nfine, raw);
done:
  free(a);
  free(b);
  return rc;
}

const fl_ckpt_codec_ops fl_ckpt_codec_multigrid_ops = {
    .name = "multigrid",
    .lossy = 1,
    .check = fl_mg_check,
    .encode = fl_mg_encode,
    .decode = fl_mg_decode,
    .param = 'l',
};
