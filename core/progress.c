/* progress.c — see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

double fl_wall_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void fl_progress_init(fl_progress *p, FILE *out, int quiet)
{
  p->out = (!quiet && out) ? out : NULL;
  p->log = p->out && !isatty(fileno(out));
  p->last_draw = p->log ? fl_wall_seconds() : 0.0; /* a log's first line after a minute: short runs say nothing */
  p->drawn = 0;
}

void fl_progress_update(fl_progress *p, int force, const char *fmt, ...)
{
  va_list ap;
  double now;
  if (!p->out)
    return;
  now = fl_wall_seconds();
  if (now - p->last_draw < (p->log ? 60.0 : force ? 0.0 : 0.2))
    return;
  p->last_draw = now;
  if (!p->log)
    fputs("\r\033[K", p->out);
  va_start(ap, fmt);
  vfprintf(p->out, fmt, ap);
  va_end(ap);
  if (p->log)
    fputc('\n', p->out);
  fflush(p->out);
  p->drawn = !p->log;
}

void fl_progress_done(fl_progress *p)
{
  if (p->out && p->drawn) {
    fputs("\r\033[K", p->out);
    fflush(p->out);
  }
  p->drawn = 0;
}
