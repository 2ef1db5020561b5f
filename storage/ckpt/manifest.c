/* manifest.c — the MANIFEST of a checkpoint version: a short text file, written last, that lists every entry
 * with its shape, codec, sizes and XXH3-64, and ends with the XXH3-64 of everything before its last line.
 *
 *   faultline-checkpoint 1
 *   store file
 *   version 42
 *   created 2026-11-22T10:00:00Z
 *   region solve                                   (versions written by fl_ckpt_region("solve", ...))
 *   byteorder little
 *   entries 2
 *   entry label=u dtype=f64 dims=128x128 codec=zfp tol=1e-06 raw=131072 stored=18432 xxh3=9f0c...
 *   entry label=state dtype=u8 dims=96 codec=none object=cg_state:2 raw=96 stored=96 xxh3=...
 *   file name=arrays.h5 bytes=6664 xxh3=...      (stores that checksum whole files: hdf5)
 *   xxh3 0123456789abcdef
 *
 * Text, so `cat` and `faultline ckpt dump` show it as it is; checksummed, so a flipped bit in it is caught
 * before anything it says is believed. Payloads are in the writer's byte order, recorded on `byteorder`. */
#include "store_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FL_MF_MAGIC "faultline-checkpoint 1"

static const char *fl_mf_byte_order(void)
{
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1 ? "little" : "big";
}

static fl_err fl_mf_append(fl_ckpt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static fl_err fl_mf_append(fl_ckpt_buf *b, const char *fmt, ...)
{
  fl_err rc = FL_OK;
  va_list ap;
  int k;
  for (;;) {
    size_t room = b->cap - b->size;
    va_start(ap, fmt);
    k = vsnprintf((char *)b->data + b->size, room, fmt, ap);
    va_end(ap);
    FL_CHECK(k >= 0, FL_ERR_INTERNAL, "manifest formatting failed");
    if ((size_t)k < room)
      break;
    FL_TRY(fl_ckpt_buf_reserve(b, 2 * b->cap + (size_t)k + 1));
  }
  b->size += (size_t)k;
done:
  return rc;
}

fl_err fl_ckpt_manifest_format(const fl_ckpt_manifest *m, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  char dims[128], params[64];
  out->size = 0;
  FL_TRY(fl_ckpt_buf_reserve(out, 512 + 256 * m->nentries));
  FL_TRY(fl_mf_append(out, "%s\nstore %s\nversion %ld\ncreated %s\n", FL_MF_MAGIC, m->store, m->version, m->created));
  if (m->region[0])
    FL_TRY(fl_mf_append(out, "region %s\n", m->region));
  FL_TRY(fl_mf_append(out, "byteorder %s\nentries %zu\n", fl_mf_byte_order(), m->nentries));
  for (size_t i = 0; i < m->nentries; i++) {
    const fl_ckpt_entry_info *e = &m->entries[i];
    fl_ckpt_codec_params_format(e->codec, &e->params, params, sizeof params);
    FL_TRY(fl_mf_append(out, "entry label=%s dtype=%s dims=%s codec=%s", e->label, fl_ckpt_dtype_name(e->shape.dtype),
                        fl_ckpt_shape_format(&e->shape, dims, sizeof dims), e->codec));
    if (strcmp(params, "-") != 0)
      FL_TRY(fl_mf_append(out, " %s", params));
    if (e->object_type[0])
      FL_TRY(fl_mf_append(out, " object=%s:%" PRIu32, e->object_type, e->object_version));
    if (e->filter[0])
      FL_TRY(fl_mf_append(out, " filter=%s", e->filter));
    FL_TRY(fl_mf_append(out, " raw=%" PRIu64 " stored=%" PRIu64 " xxh3=%016" PRIx64 "\n", e->raw_bytes, e->stored_bytes,
                        e->hash));
  }
  for (size_t i = 0; i < m->nfiles; i++)
    FL_TRY(fl_mf_append(out, "file name=%s bytes=%" PRIu64 " xxh3=%016" PRIx64 "\n", m->files[i].name,
                        m->files[i].bytes, m->files[i].hash));
  FL_TRY(fl_mf_append(out, "xxh3 %016" PRIx64 "\n", fl_ckpt_hash(out->data, out->size)));
done:
  return rc;
}

void fl_ckpt_manifest_clear(fl_ckpt_manifest *m)
{
  free(m->entries);
  free(m->files);
  memset(m, 0, sizeof *m);
}

const fl_ckpt_entry_info *fl_ckpt_manifest_find(const fl_ckpt_manifest *m, const char *label)
{
  for (size_t i = 0; i < m->nentries; i++)
    if (strcmp(m->entries[i].label, label) == 0)
      return &m->entries[i];
  return NULL;
}

/* Unsigned decimal or hex (base) number filling the whole token. */
static int fl_mf_u64(const char *s, int base, uint64_t *v)
{
  char *end;
  unsigned long long x;
  if (!*s || *s == '-' || *s == '+')
    return 0;
  errno = 0;
  x = strtoull(s, &end, base);
  if (errno || *end)
    return 0;
  *v = (uint64_t)x;
  return 1;
}

/* Exactly 16 lowercase hex digits: the one spelling we write, so a flipped bit cannot give another spelling
 * of the same number (a flip of bit 5 turns 'a' into 'A'). */
static int fl_mf_hex16(const char *s, uint64_t *v)
{
  uint64_t x = 0;
  for (int i = 0; i < 16; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9')
      x = x << 4 | (uint64_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      x = x << 4 | (uint64_t)(c - 'a' + 10);
    else
      return 0;
  }
  if (s[16] != '\0')
    return 0;
  *v = x;
  return 1;
}

static int fl_mf_dims(const char *s, fl_ckpt_shape *sh)
{
  sh->ndims = 0;
  for (;;) {
    char *end;
    unsigned long long x;
    if (sh->ndims == FL_CKPT_MAX_DIMS || *s < '0' || *s > '9')
      return 0;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno || x == 0 || x > SIZE_MAX)
      return 0;
    sh->dims[sh->ndims++] = (size_t)x;
    if (*end == '\0')
      return 1;
    if (*end != 'x')
      return 0;
    s = end + 1;
  }
}

static fl_err fl_mf_entry(char *line, const char *where, int lineno, fl_ckpt_entry_info *e)
{
  fl_err rc = FL_OK;
  char *save = NULL, *tok;
  unsigned have = 0; /* bits: label dtype dims codec raw stored xxh3 */
  uint64_t x;

  memset(e, 0, sizeof *e);
  for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *val = strchr(tok, '=');
    FL_CHECK(val != NULL, FL_ERR_IO, "%s: line %d: '%s' is not key=value", where, lineno, tok);
    *val++ = '\0';
    if (strcmp(tok, "label") == 0) {
      FL_CHECK(fl_ckpt_label_check(val) == FL_OK, FL_ERR_IO, "%s: line %d: bad label '%s'", where, lineno, val);
      snprintf(e->label, sizeof e->label, "%s", val);
      have |= 1;
    } else if (strcmp(tok, "dtype") == 0) {
      FL_CHECK(fl_ckpt_dtype_parse(val, &e->shape.dtype) == FL_OK, FL_ERR_IO, "%s: line %d: bad dtype '%s'", where,
               lineno, val);
      have |= 2;
    } else if (strcmp(tok, "dims") == 0) {
      FL_CHECK(fl_mf_dims(val, &e->shape), FL_ERR_IO, "%s: line %d: bad dims '%s'", where, lineno, val);
      have |= 4;
    } else if (strcmp(tok, "codec") == 0) {
      FL_CHECK(*val && strlen(val) < sizeof e->codec, FL_ERR_IO, "%s: line %d: bad codec '%s'", where, lineno, val);
      snprintf(e->codec, sizeof e->codec, "%s", val);
      have |= 8;
    } else if (strcmp(tok, "tol") == 0) {
      char *end;
      e->params.tol = strtod(val, &end);
      FL_CHECK(*val && !*end && e->params.tol > 0, FL_ERR_IO, "%s: line %d: bad tol '%s'", where, lineno, val);
    } else if (strcmp(tok, "levels") == 0) {
      FL_CHECK(fl_mf_u64(val, 10, &x) && x >= 1 && x <= 3, FL_ERR_IO, "%s: line %d: bad levels '%s'", where, lineno,
               val);
      e->params.levels = (int)x;
    } else if (strcmp(tok, "object") == 0) {
      char *colon = strrchr(val, ':');
      FL_CHECK(colon && colon > val && (size_t)(colon - val) < sizeof e->object_type && fl_mf_u64(colon + 1, 10, &x) &&
                   x >= 1 && x <= UINT32_MAX,
               FL_ERR_IO, "%s: line %d: bad object '%s' (expected TYPE:VERSION)", where, lineno, val);
      snprintf(e->object_type, sizeof e->object_type, "%.*s", (int)(colon - val), val);
      e->object_version = (uint32_t)x;
    } else if (strcmp(tok, "filter") == 0) {
      FL_CHECK(strcmp(val, "h5z-zfp") == 0, FL_ERR_IO, "%s: line %d: unknown filter '%s'", where, lineno, val);
      snprintf(e->filter, sizeof e->filter, "%s", val);
    } else if (strcmp(tok, "raw") == 0) {
      FL_CHECK(fl_mf_u64(val, 10, &e->raw_bytes), FL_ERR_IO, "%s: line %d: bad raw '%s'", where, lineno, val);
      have |= 16;
    } else if (strcmp(tok, "stored") == 0) {
      FL_CHECK(fl_mf_u64(val, 10, &e->stored_bytes), FL_ERR_IO, "%s: line %d: bad stored '%s'", where, lineno, val);
      have |= 32;
    } else if (strcmp(tok, "xxh3") == 0) {
      FL_CHECK(fl_mf_hex16(val, &e->hash), FL_ERR_IO, "%s: line %d: bad xxh3 '%s'", where, lineno, val);
      have |= 64;
    } else {
      rc = fl_err_set(FL_ERR_IO, "%s: line %d: unknown key '%s' (written by a newer faultline?)", where, lineno, tok);
      goto done;
    }
  }
  FL_CHECK(have == 127, FL_ERR_IO, "%s: line %d: entry lacks one of label, dtype, dims, codec, raw, stored, xxh3",
           where, lineno);
  FL_CHECK(e->raw_bytes == fl_ckpt_shape_bytes(&e->shape), FL_ERR_IO,
           "%s: line %d: raw=%" PRIu64 " does not match dims and dtype (%zu bytes)", where, lineno, e->raw_bytes,
           fl_ckpt_shape_bytes(&e->shape));
done:
  return rc;
}

/* "name=arrays.h5 bytes=6664 xxh3=..." */
static fl_err fl_mf_file(char *line, const char *where, int lineno, fl_ckpt_file_info *f)
{
  fl_err rc = FL_OK;
  char *save = NULL, *tok;
  unsigned have = 0;
  memset(f, 0, sizeof *f);
  for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *val = strchr(tok, '=');
    FL_CHECK(val != NULL, FL_ERR_IO, "%s: line %d: '%s' is not key=value", where, lineno, tok);
    *val++ = '\0';
    if (strcmp(tok, "name") == 0 && *val && !strchr(val, '/') && strlen(val) < sizeof f->name) {
      snprintf(f->name, sizeof f->name, "%s", val);
      have |= 1;
    } else if (strcmp(tok, "bytes") == 0 && fl_mf_u64(val, 10, &f->bytes)) {
      have |= 2;
    } else if (strcmp(tok, "xxh3") == 0 && fl_mf_hex16(val, &f->hash)) {
      have |= 4;
    } else {
      rc = fl_err_set(FL_ERR_IO, "%s: line %d: bad file key '%s=%s'", where, lineno, tok, val);
      goto done;
    }
  }
  FL_CHECK(have == 7, FL_ERR_IO, "%s: line %d: file line lacks one of name, bytes, xxh3", where, lineno);
done:
  return rc;
}

fl_err fl_ckpt_manifest_parse(const void *text, size_t n, const char *where, fl_ckpt_manifest *m)
{
  fl_err rc = FL_OK;
  char *copy = NULL, *save = NULL, *line, *last;
  uint64_t want = 0, got;
  size_t body, nentries = 0, k = 0;
  int lineno = 0, have_version = 0;

  memset(m, 0, sizeof *m);
  FL_CHECK(n > 0 && n < ((size_t)1 << 30), FL_ERR_IO, "%s: corrupt manifest (%zu bytes)", where, n);
  FL_ALLOC(copy, n + 1);
  memcpy(copy, text, n);
  copy[n] = '\0';
  /* The checksum line first: nothing else is believed before it checks. */
  FL_CHECK(copy[n - 1] == '\n' && strlen(copy) == n, FL_ERR_IO,
           "%s: corrupt manifest (not a text file ending in a newline)", where);
  copy[n - 1] = '\0';
  last = strrchr(copy, '\n');
  FL_CHECK(last && strncmp(last + 1, "xxh3 ", 5) == 0 && fl_mf_hex16(last + 6, &want), FL_ERR_IO,
           "%s: corrupt manifest (no checksum line)", where);
  body = (size_t)(last + 1 - copy);
  got = fl_ckpt_hash(text, body);
  FL_CHECK(got == want, FL_ERR_IO, "%s: corrupt manifest: checksum %016" PRIx64 ", recorded %016" PRIx64, where, got,
           want);
  *last = '\0';
  for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *arg = strchr(line, ' ');
    lineno++;
    if (lineno == 1) {
      FL_CHECK(strcmp(line, FL_MF_MAGIC) == 0, FL_ERR_INPUT, "%s: manifest format '%s' (this faultline reads '%s')",
               where, line, FL_MF_MAGIC);
      continue;
    }
    FL_CHECK(arg != NULL, FL_ERR_IO, "%s: line %d: '%s' has no value", where, lineno, line);
    *arg++ = '\0';
    if (strcmp(line, "store") == 0) {
      snprintf(m->store, sizeof m->store, "%s", arg);
    } else if (strcmp(line, "version") == 0) {
      uint64_t v;
      FL_CHECK(fl_mf_u64(arg, 10, &v) && v <= (uint64_t)FL_CKPT_VERSION_MAX, FL_ERR_IO, "%s: line %d: bad version '%s'",
               where, lineno, arg);
      m->version = (long)v;
      have_version = 1;
    } else if (strcmp(line, "created") == 0) {
      snprintf(m->created, sizeof m->created, "%s", arg);
    } else if (strcmp(line, "region") == 0) {
      FL_CHECK(fl_ckpt_label_check(arg) == FL_OK, FL_ERR_IO, "%s: line %d: bad region '%s'", where, lineno, arg);
      snprintf(m->region, sizeof m->region, "%s", arg);
    } else if (strcmp(line, "byteorder") == 0) {
      FL_CHECK(strcmp(arg, fl_mf_byte_order()) == 0, FL_ERR_INPUT,
               "%s: written on a %s-endian machine, this one is %s-endian", where, arg, fl_mf_byte_order());
    } else if (strcmp(line, "entries") == 0) {
      uint64_t v;
      FL_CHECK(fl_mf_u64(arg, 10, &v) && v < 1000000 && !m->entries, FL_ERR_IO, "%s: line %d: bad entries '%s'", where,
               lineno, arg);
      nentries = (size_t)v;
      FL_ALLOC(m->entries, nentries);
    } else if (strcmp(line, "entry") == 0) {
      FL_CHECK(k < nentries, FL_ERR_IO, "%s: line %d: more entries than announced (%zu)", where, lineno, nentries);
      FL_TRY(fl_mf_entry(arg, where, lineno, &m->entries[k]));
      for (size_t j = 0; j < k; j++)
        FL_CHECK(strcmp(m->entries[j].label, m->entries[k].label) != 0, FL_ERR_IO, "%s: line %d: label '%s' twice",
                 where, lineno, m->entries[k].label);
      k++;
    } else if (strcmp(line, "file") == 0) {
      fl_ckpt_file_info *g;
      FL_CHECK(m->nfiles < 64, FL_ERR_IO, "%s: line %d: too many file lines", where, lineno);
      g = realloc(m->files, (m->nfiles + 1) * sizeof *g);
      FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory reading %s", where);
      m->files = g;
      FL_TRY(fl_mf_file(arg, where, lineno, &m->files[m->nfiles]));
      m->nfiles++;
    } else {
      rc = fl_err_set(FL_ERR_IO, "%s: line %d: unknown key '%s'", where, lineno, line);
      goto done;
    }
  }
  FL_CHECK(k == nentries && m->store[0] && m->created[0] && have_version, FL_ERR_IO,
           "%s: incomplete manifest (%zu of %zu entries, store '%s')", where, k, nentries, m->store);
  m->nentries = k;
done:
  free(copy);
  if (rc != FL_OK)
    fl_ckpt_manifest_clear(m);
  return rc;
}
