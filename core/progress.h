/* progress.h — a one-line progress display on a terminal ("replica 3/10  sim 12.4h / ~30h"), redrawn at most
 * a few times a second; on a stream that is not a terminal (a batch job's log), one plain line a minute. */
#ifndef FL_PROGRESS_H
#define FL_PROGRESS_H

#include <stdio.h>

typedef struct fl_progress {
  FILE *out;        /* NULL: disabled */
  double last_draw; /* wall seconds of the last redraw */
  int drawn;        /* something is on the line */
  int log;          /* not a terminal: whole lines, at most one a minute */
} fl_progress;

/* Enable on `out` unless `quiet`: redrawn in place on a terminal, one line a minute elsewhere. */
void fl_progress_init(fl_progress *p, FILE *out, int quiet);
/* Redraw with the text of fmt if enough wall time passed since the last redraw (or force). */
void fl_progress_update(fl_progress *p, int force, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Clear the line. */
void fl_progress_done(fl_progress *p);
/* Monotonic wall clock, seconds. */
double fl_wall_seconds(void);

#endif
