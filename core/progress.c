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
  p->out = (!quiet && out && isatty(fileno(out))) ? out : NULL;
  p->last_draw = 0.0;
  p->drawn = 0;
}

void fl_progress_update(fl_progress *p, int force, const char *fmt, ...)
{
  va_list ap;
  double now;
  if (!p->out)
    return;
  now = fl_wall_seconds();
  if (!force && now - p->last_draw < 0.2)
    return;
  p->last_draw = now;
  fputs("\r\033[K", p->out);
  va_start(ap, fmt);
  vfprintf(p->out, fmt, ap);
  va_end(ap);
  fflush(p->out);
  p->drawn = 1;
}

void fl_progress_done(fl_progress *p)
{
  if (p->out && p->drawn) {
    fputs("\r\033[K", p->out);
    fflush(p->out);
  }
  p->drawn = 0;
}
