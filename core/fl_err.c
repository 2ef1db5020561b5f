/* fl_err.c — the per-thread error record behind fl_err_set / FL_TRY (see fl_err.h for why it is per thread). */
#include "fl_err.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct fl_err_record {
  char msg[1024];
  char where[512];
} fl_err_record;

static _Thread_local fl_err_record fl_err_rec;

const char *fl_err_str(fl_err code)
{
  switch (code) {
  case FL_OK: return "ok";
  case FL_ERR_INPUT: return "bad input";
  case FL_ERR_NOMEM: return "out of memory";
  case FL_ERR_IO: return "I/O error";
  case FL_ERR_DB: return "database error";
  case FL_ERR_SIM: return "simulation error";
  case FL_ERR_INTERNAL: return "internal error";
  }
  return "unknown error";
}

fl_err fl_err_set_at(fl_err code, const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fl_err_rec.msg, sizeof fl_err_rec.msg, fmt, ap);
  va_end(ap);
  snprintf(fl_err_rec.where, sizeof fl_err_rec.where, "%s:%d", file, line);
  return code;
}

const char *fl_err_msg(void)
{
  return fl_err_rec.msg;
}
const char *fl_err_where(void)
{
  return fl_err_rec.where;
}

void fl_err_clear(void)
{
  fl_err_rec.msg[0] = '\0';
  fl_err_rec.where[0] = '\0';
}

void fl_err_push_frame(const char *file, int line)
{
  size_t used = strlen(fl_err_rec.where);
  if (used + 8 < sizeof fl_err_rec.where)
    snprintf(fl_err_rec.where + used, sizeof fl_err_rec.where - used, " <- %s:%d", file, line);
}

fl_err fl_grow(void **p, long *cap, long need, size_t elem)
{
  long nc = *cap > 0 ? *cap : 8;
  void *q;
  if (need <= *cap)
    return FL_OK;
  while (nc < need)
    nc *= 2;
  q = realloc(*p, (size_t)nc * elem);
  if (!q)
    return fl_err_set(FL_ERR_NOMEM, "out of memory growing an array to %ld x %zu bytes", nc, elem);
  *p = q;
  *cap = nc;
  return FL_OK;
}
