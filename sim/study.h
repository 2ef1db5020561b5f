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

#include "db.h"
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
  char sweep_id[20]; /* the plan's identity for a shard's record (merge): the file's text and every override but
                      * run.db, hashed */
  int jobs;          /* worker processes that simulate a point's replicas (fl_study_run); 0 or 1: this process */
} fl_study;

/* Plan the combinations of scenario `path`: `sets` are overrides "section.key=value" in order, and sweep terms
 * marked by a leading '\x01' (the command's --sweep). Bad input is FL_ERR_INPUT naming file, line, key and value;
 * nothing is set up. Caller owns *out (fl_study_destroy). */
fl_err fl_study_plan(const char *path, char *const *sets, int nsets, fl_study **out);
/* A key of a strategy's or a failure law's own (its keyset) given where no combination runs that strategy or law
 * is refused, naming where it was given and who would read it (`strategy.degree` on a checkpoint-only study,
 * `failures.trace` under an exponential law: accepted and ignored before). simulate calls it; advise does not (it
 * races every strategy on the scenario's keys). An app's own keys are checked by fl_study_plan. */
fl_err fl_study_check_keys(const fl_study *st);
/* Set up the simulations of platform group `group` (< 0: every group), folding duplicates. */
fl_err fl_study_setup(fl_study *st, long group);
/* The rows shard I of N simulates: its items whose combination is set up. */
long fl_study_rows(const fl_study *st, long shard_i, long shard_n);

/* What a run of the study wrote: its rows' ids (for the summary), those another writer had already (skipped), and
 * of the point that just ran its completed replicas' makespans and waits for a repaired node (Daly's check). */
typedef struct fl_study_tally {
  int64_t first_id, last_id, *own;
  size_t nown, own_cap;
  long skipped;
  long completed;                /* the current point's */
  double sum_makespan, sum_wait; /* the current point's completed replicas' */
} fl_study_tally;

/* What the caller hears as the study runs (the CLI prints; any hook may be NULL). */
typedef struct fl_study_hooks {
  void *ctx;
  void (*point)(void *ctx, const fl_study *st, long c);                      /* point c is about to run its replicas */
  void (*row)(void *ctx, const fl_study *st, long c, long done, long total); /* before each row it simulates */
  void (*point_done)(void *ctx, const fl_study *st, long c, const fl_study_tally *t); /* its rows are written */
} fl_study_hooks;

/* Run shard I of N of the set-up combinations into `db` through `writer` (db.h: one transaction a row, the events
 * stored while the next replica runs): a row already in the database (a re-run after a crash, a cancelled array)
 * is skipped, looked up before the writer has the connection. Everything submitted is written when this returns,
 * error or not. The caller frees t->own. */
fl_err fl_study_run(fl_study *st, fl_db *db, fl_db_writer *writer, long shard_i, long shard_n,
                    const fl_study_hooks *hooks, fl_study_tally *t);
void fl_study_destroy(fl_study **st);

#endif
