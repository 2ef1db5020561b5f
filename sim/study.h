/* study.h — what one `simulate` command runs, as a library the CLI calls and the tests drive: a scenario file, its
 * overrides and its sweep expanded into combinations, each a scenario and, once set up, a simulation.
 *
 *   plan   the file, then every override in order; the sweep is the file's own terms (less those whose keys an
 *          override sets: `--set strategy.kind=buddy` on a file that sweeps the strategy runs buddy, as asked) then
 *          the command's; every combination parsed, checked and grouped by the platform it needs (SimGrid holds one
 *          platform a process, so each group is run by a process of its own);
 *   setup  the simulations of one group (or all); a combination that differs from an earlier one only in keys its
 *          simulation does not read would repeat its replicas exactly (same seed, same figures): it is folded
 *          (left without a simulation) and counts no rows.
 * Shards: item k = (combination, replica) in order; shard I of N takes the items with k mod N = I - 1. */
#ifndef FL_STUDY_H
#define FL_STUDY_H

#include "scenario.h"
#include "sim.h"
#include "sweep.h"

typedef struct fl_study_point {
  fl_scenario *sc;
  fl_sim *sim; /* NULL: not set up here (another group's), or folded into an earlier one */
  int group;   /* the platform it needs, 0 .. ngroups - 1 in order of first use */
} fl_study_point;

typedef struct fl_study {
  fl_scenario *base;      /* the file with every override */
  fl_study_point *points; /* ncombos */
  long ncombos;
  int ngroups;
  fl_sweep_dim dims[FL_MAX_SWEEP_DIMS];
  int ndims;
  char *sweep_text; /* the terms the dims point into */
  char *dropped;    /* the file's sweep terms an override left out, blank-separated ("" if none) */
} fl_study;

/* Plan the combinations of scenario `path`: `sets` are overrides "section.key=value" in order, and sweep terms
 * marked by a leading '\x01' (the command's --sweep). Bad input is FL_ERR_INPUT naming file, line, key and value;
 * nothing is set up. Caller owns *out (fl_study_destroy). */
fl_err fl_study_plan(const char *path, char *const *sets, int nsets, fl_study **out);
/* Set up the simulations of platform group `group` (< 0: every group), folding duplicates. */
fl_err fl_study_setup(fl_study *st, long group);
/* The rows shard I of N simulates: its items whose combination is set up. */
long fl_study_rows(const fl_study *st, long shard_i, long shard_n);
void fl_study_destroy(fl_study **st);

#endif
