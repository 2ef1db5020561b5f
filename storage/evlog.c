/* evlog.c — a run's event log (db.h, fl_evlog): the events an engine records while a run goes, held in memory a
 * chunk at a time (full chunks stream out to a temporary file, so memory stays at one chunk), and stored with the
 * run's row by fl_db_insert_run. */
#include "db.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fl_evlog_init(fl_evlog *log, int enabled)
{
  memset(log, 0, sizeof *log);
  log->enabled = enabled != 0;
  log->phases = enabled == 2;
}

static void fl_evlog_free_texts(fl_evlog *log)
{
  for (size_t k = 0; k < log->ntexts; k++)
    free(log->texts[k]);
  log->ntexts = 0;
}

void fl_evlog_clear(fl_evlog *log)
{
  log->n = 0;
  log->oom = 0;
  if (log->spill)
    fclose((FILE *)log->spill);
  log->spill = NULL;
  log->nspilled = 0;
  fl_evlog_free_texts(log);
}

void fl_evlog_free(fl_evlog *log)
{
  if (log->spill)
    fclose((FILE *)log->spill);
  fl_evlog_free_texts(log);
  free(log->texts);
  free(log->v);
  memset(log, 0, sizeof *log);
}

size_t fl_evlog_count(const fl_evlog *log)
{
  return log->nspilled + log->n;
}

fl_evlog_entry *fl_evlog_add(fl_evlog *log, double t_s, int kind, long node)
{
  fl_evlog_entry *e;
  if (!log || !log->enabled || log->oom)
    return NULL;
  if (log->n == FL_EVLOG_CHUNK) {
    /* stream the full chunk out; memory stays at one chunk */
    if (!log->spill)
      log->spill = tmpfile();
    if (!log->spill || fwrite(log->v, sizeof *log->v, log->n, (FILE *)log->spill) != log->n) {
      log->oom = 1;
      return NULL;
    }
    log->nspilled += log->n;
    log->n = 0;
  }
  if (log->n == log->cap) {
    size_t nc = log->cap ? 2 * log->cap : 256;
    fl_evlog_entry *g = realloc(log->v, nc * sizeof *g);
    if (!g) {
      log->oom = 1;
      return NULL;
    }
    log->v = g;
    log->cap = nc;
  }
  e = &log->v[log->n++];
  e->t_s = t_s;
  e->value = NAN;
  e->n = -1;
  e->node = (int32_t)node;
  e->rank = e->peer = -1;
  e->kind = kind;
  e->level = e->label = NULL;
  return e;
}

fl_evlog_entry *fl_evlog_add_text(fl_evlog *log, double t_s, int kind, long node, const char *fmt, ...)
{
  fl_evlog_entry *e = fl_evlog_add(log, t_s, kind, node);
  char buf[256];
  va_list ap;
  if (!e)
    return NULL;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (log->ntexts == log->captexts) {
    size_t nc = log->captexts ? 2 * log->captexts : 16;
    char **g = realloc(log->texts, nc * sizeof *g);
    if (!g) {
      log->oom = 1;
      return NULL;
    }
    log->texts = g;
    log->captexts = nc;
  }
  if (!(e->label = log->texts[log->ntexts] = strdup(buf))) {
    log->oom = 1;
    return NULL;
  }
  log->ntexts++;
  return e;
}
