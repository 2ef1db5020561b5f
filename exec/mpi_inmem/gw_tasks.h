/* gw_tasks.h — the grid world's value iteration as tasks on real ranks (seed 002): the strategy decides, per
 * failed task, to re-execute it or to substitute a neighbour's value (strategy.kind = substitution or hybrid, the
 * hybrid through policy/knapsack: the call the simulator makes).
 *
 * A task is a state of the grid; task s runs on role s mod N (N active roles), so that a task's neighbours run
 * on other roles, as in the seed, where each task has its node. Every role keeps the whole value vector V_k (and
 * V_{k-1}): a sweep computes the role's tasks from V_k and sends their values to every other role. A role that
 * dies takes its tasks' new values with it, nothing else; after the agreed recovery (exec/mpi_inmem/rt.h) the
 * lowest role that holds the state decides for the failed tasks — fl_gw_best_substitute gives each its best live
 * neighbour and weight, fl_strat_decide_tasks says substitute or re-execute — and sends V_k, the decision and the
 * run's counters to every role (the promoted spare learns the state this way); every role then completes the
 * sweep: the failed tasks to re-execute are computed by their role's new holder, the substituted ones take their
 * neighbour's new value, one with no live neighbour keeps its old value (stale). No checkpoint is written. With
 * mpi.on_no_spare = shrink the tasks are dealt again over the roles left. */
#ifndef FL_GW_TASKS_H
#define FL_GW_TASKS_H

#include "driver.h"
#include "gridworld.h"

typedef struct fl_gwt fl_gwt;

/* What the run did to its failed tasks (the same on every role at the end). */
typedef struct fl_gwt_counts {
  long replicated, substituted, stale; /* failed task-sweeps re-executed, substituted, left with their old value */
  long decisions;                      /* sweeps completed after a recovery */
  long stale_sweeps;                   /* of which some task kept its old value */
  double error_spent;                  /* the weights w_i of the substitutions made */
} fl_gwt_counts;

fl_gwt *fl_gwt_create(fl_rt *rt, const fl_gw *gw, fl_strategy_run *strat, double tol, long maxit);
void fl_gwt_destroy(fl_gwt **g);
extern const fl_mpi_app_ops fl_gwt_ops;

/* After the run, on an active role: sweeps, converged?, xxh64 of the whole value vector (the same on every role),
 * max |V - V_ref| against the serial failure-free solve, and the counts. */
void fl_gwt_finish(fl_gwt *g, long *iterations, int *converged, unsigned long long *checksum, double *error_linf,
                   fl_gwt_counts *counts);

#endif
