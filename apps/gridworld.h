/* gridworld.h — value iteration on a grid world, the test application of Vorobeychik et al. (ISC'11).
 *
 * An agent on an n x m grid moves up, down, left or right; it goes the intended way with probability p, else
 * to one of the three other neighbours, uniformly; a move into the border wall leaves it in place. Each cell s
 * pays r(s). Value iteration, from V_0 = r:
 *     V_{k+1}(s) = r(s) + delta max_a sum_{s'} P(s' | s, a) V_k(s').
 * With q_d the value reached in direction d (V_k(s) at a wall) and S = sum_d q_d, action a yields
 * p q_a + (1 - p)/3 (S - q_a), so the max over actions is taken by the largest q_d when p > 1/4 (smallest when
 * p < 1/4): one pass over the four neighbours per state. One task per state; a task's value depends on its
 * neighbours' and its own, so the dependency and substitution graphs are both the grid's 4-neighbourhood.
 * The numbers are really computed, in flat arrays; time, hosts and failures come from the simulator. */
#ifndef FL_GRIDWORLD_H
#define FL_GRIDWORLD_H

#include "fl_err.h"

#include <stdint.h>

typedef struct fl_gw {
  long rows, cols, n; /* n = rows * cols states */
  double discount;    /* delta */
  double p;           /* probability of the intended move */
  double *reward;     /* r(s), uniform on [0, 1) from the app's random stream */
  double r_min, r_max;
} fl_gw;

/* Build a grid with rewards drawn from stream FL_STREAM_APP of (seed, 0): every replica of a scenario works on
 * the same grid. Caller owns *out. */
fl_err fl_gw_create(long rows, long cols, double discount, double p, uint64_t seed, fl_gw **out);
void fl_gw_destroy(fl_gw **gw);

/* One synchronous sweep: out[s] for s in [first, last) from in[]. Returns max |out[s] - in[s]| over the range. */
double fl_gw_sweep(const fl_gw *gw, const double *in, double *out, long first, long last);
/* One state's update from values read elsewhere (a task graph's inputs): v[0] its own previous value, v[1..4]
 * up, down, left, right; have[d] = 0 for a wall (the own value stands in, as in the sweep). */
double fl_gw_update(const fl_gw *gw, long s, const double v[5], const unsigned char have[5]);
/* The up-to-4 neighbours of s (fewer at the border); returns their count. */
int fl_gw_neighbours(const fl_gw *gw, long s, long nb[4]);
/* The seed's bound on |V(s) - V(s')| for neighbours: (1 - delta p) / (1 - delta), scaled by the reward range. */
double fl_gw_bound(const fl_gw *gw);
/* The best live substitute of failed task s (seed 002), for both engines: the neighbour not marked in failed[]
 * with the least weight w_sj — the seed's bound, or with `empirical` the observed |own[s] - v[j]|, own[s] being
 * the last value task s computed itself (a borrowed value would make every later substitution look free).
 * *w_out (if given) gets the knapsack weight w_s = N_s min_j w_sj, N_s = the tasks that depend on s (its
 * neighbours and itself), or INFINITY when no neighbour lives. Returns j, or -1. */
long fl_gw_best_substitute(const fl_gw *gw, const unsigned char *failed, const double *own, const double *v, long s,
                           int empirical, double *w_out);
/* Run value iteration from V_0 = r until no value changes by more than tol or max_iter sweeps; v gets the values
 * (n entries), *iterations the sweeps done. Returns 1 if it converged. */
int fl_gw_solve(const fl_gw *gw, double tol, long max_iter, double *v, long *iterations);

#endif
