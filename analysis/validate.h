/* validate.h — `faultline validate`: the simulator held against analytical results it must reproduce.
 *
 * Each check simulates `replicas` replicas and compares the sample mean with the analytical value; it passes
 * when the analytical value lies inside the 99.9 % Student-t confidence interval of the mean (a correct
 * simulator fails one check in a thousand by chance; a fixed seed makes a run repeatable). */
#ifndef FL_VALIDATE_H
#define FL_VALIDATE_H

#include "fl_err.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct fl_validate_opts {
  long replicas; /* per check */
  uint64_t seed;
  const char *only; /* run only checks whose name contains this (NULL: all) */
  int quiet;        /* no progress */
  int jobs;         /* worker processes for a check's replicas (0 or 1: this process) */
} fl_validate_opts;

typedef struct fl_validate_row {
  char name[64];
  char what[96];
  double analytic, mean, half, rel_err;
  int pass;
} fl_validate_row;

/* Run the checks, print the table on `out`; *failed gets the number of failed checks. Rows are also handed
 * out if `rows` is not NULL (at most `max_rows`, *nrows set). */
/* Does --only `only` select at least one check? `names` gets the list of checks (for the message). */
int fl_validate_matches(const char *only, char *names, size_t size);

fl_err fl_validate_run(const fl_validate_opts *opt, FILE *out, int *failed, fl_validate_row *rows, int max_rows,
                       int *nrows);

#endif
