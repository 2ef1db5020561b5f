/* ckpt_cli.c — the `faultline ckpt` tool (see ckpt_cli.h). It opens the directory read-only (no lock, nothing
 * written or cleaned), so it is safe next to a running writer; a version that the writer retires meanwhile is
 * reported like any unreadable one.
 *   ls DIR                      one line per committed version: time, entries, sizes, compression
 *   verify DIR [--version N]    check every checksum and that every payload decodes; 1 if any is corrupt
 *   dump DIR [--version N] [--label L] [--values K]
 *                               a version's manifest; with --label, the entry's first K values (default 8) */
#include "args.h"
#include "ckpt_cli.h"

#include "ckpt.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char fl_ckpt_cli_usage[] = "ls|verify|dump DIR [--version N] [--label L] [--values K]";

static int fl_ckpt_cli_bad(const char *fmt, const char *arg)
{
  fprintf(stderr, "faultline ckpt: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (usage: faultline ckpt %s)\n", fl_ckpt_cli_usage);
  return 2;
}

static int fl_ckpt_cli_fail(fl_err rc)
{
  fprintf(stderr, "faultline ckpt: %s\n", fl_err_msg()[0] ? fl_err_msg() : fl_err_str(rc));
  return rc == FL_ERR_INPUT ? 2 : 1;
}

typedef struct fl_ckpt_cli_args {
  const char *action, *dir, *label;
  long version; /* -1: all (verify) or latest (dump) */
  long values;
} fl_ckpt_cli_args;


static int fl_ckpt_cli_parse(int argc, char **argv, fl_ckpt_cli_args *a)
{
  a->action = argc > 1 ? argv[1] : NULL;
  a->dir = a->label = NULL;
  a->version = -1;
  a->values = 8;
  if (!a->action)
    return fl_ckpt_cli_bad("%s", "no action given");
  if (strcmp(a->action, "ls") && strcmp(a->action, "verify") && strcmp(a->action, "dump"))
    return fl_ckpt_cli_bad("unknown action '%s' (known: ls, verify, dump)", a->action);
  for (int i = 2; i < argc; i++) {
    const char *val;
    double x;
    if ((val = fl_args_value(argc, argv, &i, "--version"))) {
      if (fl_units_number(val, 1, &x) != FL_OK || x < 0 || x > (double)FL_CKPT_VERSION_MAX)
        return fl_ckpt_cli_bad("--version '%s': expected a whole number >= 0", val);
      a->version = (long)x;
    } else if ((val = fl_args_value(argc, argv, &i, "--values"))) {
      if (fl_units_number(val, 1, &x) != FL_OK || x < 0 || x > 1e9)
        return fl_ckpt_cli_bad("--values '%s': expected a whole number >= 0", val);
      a->values = (long)x;
    } else if ((val = fl_args_value(argc, argv, &i, "--label"))) {
      a->label = val;
    } else if (argv[i][0] == '-') {
      return fl_ckpt_cli_bad("unknown option or missing value '%s'", argv[i]);
    } else if (!a->dir) {
      a->dir = argv[i];
    } else {
      return fl_ckpt_cli_bad("one directory at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!a->dir)
    return fl_ckpt_cli_bad("%s", "no checkpoint directory given");
  if (strcmp(a->action, "dump") != 0 && a->label)
    return fl_ckpt_cli_bad("--label is for dump ('%s')", a->label);
  if (strcmp(a->action, "ls") == 0 && a->version >= 0)
    return fl_ckpt_cli_bad("%s", "ls lists every version (--version is for verify and dump)");
  return 0;
}

static int fl_ckpt_cli_ls(fl_ckpt *ck)
{
  fl_err rc;
  long *v = NULL;
  size_t n = 0;
  int bad = 0;
  if ((rc = fl_ckpt_versions(ck, &v, &n)) != FL_OK)
    return fl_ckpt_cli_fail(rc);
  printf("%s: store %s, %zu version%s\n", fl_ckpt_path(ck), fl_ckpt_store_type(ck), n, n == 1 ? "" : "s");
  if (n)
    printf("%-14s %-21s %7s %11s %11s %7s\n", "version", "created (UTC)", "entries", "raw", "stored", "ratio");
  for (size_t i = 0; i < n; i++) {
    fl_ckpt_manifest *m = NULL;
    uint64_t raw = 0, stored = 0;
    char a[32], b[32];
    if (fl_ckpt_manifest_load(ck, v[i], &m) != FL_OK) {
      printf("%-14ld UNREADABLE: %s\n", v[i], fl_err_msg());
      bad = 1;
      continue;
    }
    for (size_t k = 0; k < m->nentries; k++) {
      raw += m->entries[k].raw_bytes;
      stored += m->entries[k].stored_bytes;
    }
    printf("%-14ld %-21s %7zu %11s %11s %6.1fx\n", v[i], m->created, m->nentries,
           fl_units_format_bytes((double)raw, a, sizeof a), fl_units_format_bytes((double)stored, b, sizeof b),
           stored ? (double)raw / (double)stored : 1.0);
    fl_ckpt_manifest_destroy(&m);
  }
  free(v);
  return bad;
}

static int fl_ckpt_cli_verify(fl_ckpt *ck, long only)
{
  fl_err rc;
  long *v = NULL;
  size_t n = 0, corrupt = 0, checked = 0;
  if ((rc = fl_ckpt_versions(ck, &v, &n)) != FL_OK)
    return fl_ckpt_cli_fail(rc);
  for (size_t i = 0; i < n; i++) {
    int ok = 0;
    char why[1024];
    if (only >= 0 && v[i] != only)
      continue;
    checked++;
    if ((rc = fl_ckpt_verify(ck, v[i], &ok, why, sizeof why)) != FL_OK) {
      free(v);
      return fl_ckpt_cli_fail(rc);
    }
    if (ok) {
      printf("%ld ok\n", v[i]);
    } else {
      printf("%ld CORRUPT: %s\n", v[i], why);
      corrupt++;
    }
  }
  free(v);
  if (only >= 0 && checked == 0) {
    fprintf(stderr, "faultline ckpt: %s: no committed checkpoint version %ld\n", fl_ckpt_path(ck), only);
    return 2;
  }
  printf("%s: %zu version%s checked, %zu corrupt\n", fl_ckpt_path(ck), checked, checked == 1 ? "" : "s", corrupt);
  return corrupt ? 1 : 0;
}

static void fl_ckpt_cli_values(const fl_ckpt_entry_info *e, const unsigned char *p, long max)
{
  size_t n = (size_t)(e->raw_bytes / fl_ckpt_dtype_size(e->shape.dtype)), es = fl_ckpt_dtype_size(e->shape.dtype);
  for (size_t i = 0; i < n && (long)i < max; i++) {
    const unsigned char *q = p + i * es;
    switch (e->shape.dtype) {
    case FL_CKPT_U8: printf(" %u", (unsigned)*q); break;
    case FL_CKPT_I32: {
      int32_t x;
      memcpy(&x, q, 4);
      printf(" %" PRId32, x);
    } break;
    case FL_CKPT_I64: {
      int64_t x;
      memcpy(&x, q, 8);
      printf(" %" PRId64, x);
    } break;
    case FL_CKPT_F32: {
      float x;
      memcpy(&x, q, 4);
      printf(" %.9g", (double)x);
    } break;
    case FL_CKPT_F64: {
      double x;
      memcpy(&x, q, 8);
      printf(" %.17g", x);
    } break;
    }
  }
  if ((long)n > max)
    printf(" ... (%zu values)", n);
  printf("\n");
}

static int fl_ckpt_cli_dump(fl_ckpt *ck, long version, const char *label, long values)
{
  fl_err rc = FL_OK;
  fl_ckpt_manifest *m = NULL;
  unsigned char *data = NULL;
  fl_ckpt_entry_info info;
  char dims[64], params[64];

  if (version < 0) {
    FL_TRY(fl_ckpt_latest(ck, &version));
    FL_CHECK(version >= 0, FL_ERR_INPUT, "%s: no committed checkpoint", fl_ckpt_path(ck));
  }
  FL_TRY(fl_ckpt_manifest_load(ck, version, &m));
  if (!label) {
    printf("%s version %ld: store %s, created %s%s%s, %zu entr%s\n", fl_ckpt_path(ck), m->version, m->store, m->created,
           m->region[0] ? ", region " : "", m->region, m->nentries, m->nentries == 1 ? "y" : "ies");
    for (size_t k = 0; k < m->nentries; k++) {
      const fl_ckpt_entry_info *e = &m->entries[k];
      fl_ckpt_codec_params_format(e->codec, &e->params, params, sizeof params);
      if (e->object_type[0])
        printf("  %-16s object %s v%" PRIu32 " (%" PRIu64 "-byte record)", e->label, e->object_type, e->object_version,
               e->raw_bytes);
      else
        printf("  %-16s %s %s codec %s %s%s%s raw %" PRIu64 " stored %" PRIu64, e->label,
               fl_ckpt_dtype_name(e->shape.dtype), fl_ckpt_shape_format(&e->shape, dims, sizeof dims), e->codec, params,
               e->filter[0] ? " via " : "", e->filter, e->raw_bytes, e->stored_bytes);
      printf(" xxh3 %016" PRIx64 "\n", e->hash);
    }
    for (size_t k = 0; k < m->nfiles; k++)
      printf("  file %s: %" PRIu64 " bytes, xxh3 %016" PRIx64 "\n", m->files[k].name, m->files[k].bytes,
             m->files[k].hash);
    goto done;
  }
  FL_TRY(fl_ckpt_read_entry(ck, version, label, (void **)&data, &info));
  if (info.object_type[0]) {
    printf("%s = ", label);
    FL_TRY(fl_ckpt_record_print(data, info.raw_bytes, (size_t)values, stdout));
  } else {
    printf("%s = %s %s:", label, fl_ckpt_dtype_name(info.shape.dtype),
           fl_ckpt_shape_format(&info.shape, dims, sizeof dims));
    fl_ckpt_cli_values(&info, data, values);
  }
done:
  free(data);
  fl_ckpt_manifest_destroy(&m);
  return rc == FL_OK ? 0 : fl_ckpt_cli_fail(rc);
}

int fl_ckpt_cli_main(int argc, char **argv)
{
  fl_ckpt_cli_args a;
  fl_ckpt *ck = NULL;
  fl_err rc;
  int code = fl_ckpt_cli_parse(argc, argv, &a);
  if (code)
    return code;
  rc = fl_ckpt_create(&(fl_ckpt_opts){.path = a.dir, .read_only = 1}, &ck);
  if (rc != FL_OK)
    return fl_ckpt_cli_fail(rc);
  if (strcmp(a.action, "ls") == 0)
    code = fl_ckpt_cli_ls(ck);
  else if (strcmp(a.action, "verify") == 0)
    code = fl_ckpt_cli_verify(ck, a.version);
  else
    code = fl_ckpt_cli_dump(ck, a.version, a.label, a.values);
  fl_ckpt_destroy(&ck);
  return code;
}
