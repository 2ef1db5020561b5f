/* sweep.h — a sweep: every combination of values of some scenario keys ("section.key=v1,v2 ..."), the last key
 * varying fastest. Terms may set keys together: "a.x+a.y=1/2,3/4" sets a.x=1 a.y=2, then a.x=3 a.y=4. A term for
 * a key already swept replaces its values (so --sweep overrides the file's run.sweep for that key). */
#ifndef FL_SWEEP_H
#define FL_SWEEP_H

#include "fl_err.h"
#include "scenario.h"

#define FL_MAX_SWEEP_DIMS 8
#define FL_MAX_COMBOS 4096

typedef struct fl_sweep_dim {
  char key[128];    /* "section.key", or keys joined by '+' */
  char *values[64]; /* borrowed from the sweep text */
  int nvalues;
} fl_sweep_dim;

/* Parse blank-separated terms into dims (appended to the *ndims already there). `text` is modified and must
 * outlive dims; `origin` names it in messages. */
fl_err fl_sweep_parse(char *text, const char *origin, fl_sweep_dim *dims, int *ndims);
/* Combination c takes value (c / stride(d)) % nvalues of dim d. */
long fl_sweep_stride(const fl_sweep_dim *dims, int ndims, int d);
/* Apply combination c to sc (fl_scenario_set_sweep for each key): messages say --sweep. */
fl_err fl_sweep_apply(fl_scenario *sc, const fl_sweep_dim *dims, int ndims, long c);

#endif
