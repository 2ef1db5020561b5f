/* advise.h — `faultline advise`: which strategy, with which parameters, for the job of a scenario, and by how much.
 *
 * The candidates: every strategy of the registry (those the job's app cannot run, or that would almost never
 * finish, listed with the reason), each priced as the scenario says — its platform (app.checkpoint_size on a
 * platform with storage) or its cost keys, or, when the scenario's sweep sets strategy keys together (compare-1M:
 * each strategy its own checkpoint cost), each combination of that sweep; replication also without checkpoints.
 * Each is simulated on the same replicas (common random numbers) and raced (race.h): candidates significantly worse
 * than the leader are dropped after each batch. The interval of every strategy still in the race is then tuned: its
 * rule's interval (Daly's, Young's) scaled by 1/2 .. 2, then refined around the best on finer steps, each variant a
 * candidate of the same race. The race ends when one candidate is left (significantly best), when the others are
 * within the tolerance of the leader (tied), or at the budget of simulated runs (the rest tied).
 *
 * Every run is a row of the database, written as `simulate` writes it (its overrides name the configuration):
 * `report` shows the same figures, and advise run again on the same database reads them back instead of
 * simulating (the same answer). SimGrid holds one platform a process: the candidates are simulated by one worker
 * process per platform they need (this process loads none). */
#ifndef FL_ADVISE_H
#define FL_ADVISE_H

#include "fl_err.h"

#include <stdio.h>

typedef enum fl_objective { FL_OBJ_MAKESPAN = 0, FL_OBJ_NODE_HOURS, FL_OBJ_ENERGY } fl_objective;

typedef struct fl_advise_opts {
  const char *path;  /* the scenario */
  char *const *sets; /* the user's overrides, "section.key=value" (run.db, run.seed among them) */
  int nsets;
  fl_objective objective;
  long budget;      /* runs at most, simulated or read back from the database (so a second advise on the same
                     * database makes the same decisions, reading every run back) */
  int jobs;         /* worker processes per platform for a batch's replicas */
  double tolerance; /* relative: candidates whose paired difference to the leader is surely within it are tied */
  FILE *progress;   /* NULL: quiet */
} fl_advise_opts;

enum { FL_ADV_RACING = 0, FL_ADV_DROPPED, FL_ADV_REFUSED };

#define FL_ADV_MAX_SETS 12

/* One configuration: its overrides (beyond the user's), what the race made of it and its figures per replica. */
typedef struct fl_advise_cand {
  char *sets[FL_ADV_MAX_SETS];
  int nsets;
  char label[200]; /* "buddy, strategy.checkpoint_cost=30s, interval 6.53min" */
  char strategy[32];
  int family;    /* the configuration whose interval it varies (itself for a base one) */
  double factor; /* its interval over the family's rule's (1 for a base one) */
  int group;     /* the platform it needs (its worker) */
  int state;     /* FL_ADV_* */
  char why[600]; /* refused: why; dropped: against whom, at how many replicas */
  double tau_s;  /* compute between checkpoints (INFINITY: none) */
  /* the counts advise tunes beside the interval (FL_ADV_NCOUNTS, advise.c: strategy.file_every, app.spares); -1:
   * the configuration has none (not multi-level; spares = rest) */
  long count[2];
  char rule[48];   /* the interval rule the rows name ("daly", "fixed"; "" without checkpoints) */
  long n, cap;     /* replicas evaluated */
  double *fig[4];  /* per replica: the objective's column and makespan_s, node_hours, energy_j */
  long incomplete; /* replicas that did not complete (failed, timeout) */
} fl_advise_cand;

typedef struct fl_advise {
  fl_objective objective;
  fl_advise_cand *c;
  int n;
  int best;       /* the leader at the end */
  int decided;    /* 1: the best is significantly better than every other; 0: tied with those still racing */
  long simulated; /* runs simulated */
  long reused;    /* runs read back from the database */
  long budget;
  double tolerance;
  char db[4096];
  char note[512]; /* a warning for the user ("buddy and checkpoint are priced the same") or "" */
} fl_advise;

/* Run the race. Bad input (the scenario, the overrides, a sweep over keys that are not the strategy's) is
 * FL_ERR_INPUT naming file, key and value, before anything is simulated. Caller frees *out (fl_advise_free). */
fl_err fl_advise_run(const fl_advise_opts *o, fl_advise **out);
void fl_advise_free(fl_advise **a);

/* The ranked table (text), the JSON answer, the winner as an INI fragment whose keys set on the scenario reproduce
 * it. */
fl_err fl_advise_print(const fl_advise *a, const char *scenario, FILE *f);
fl_err fl_advise_json(const fl_advise *a, FILE *f);
fl_err fl_advise_write_ini(const fl_advise *a, const char *scenario, const char *path);
const char *fl_objective_name(fl_objective o);

#endif
