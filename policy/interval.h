/* interval.h — checkpoint interval rules: pure functions of the checkpoint cost and the MTBF, shared by the
 * simulator and the real MPI runtime (no SimGrid, no MPI here).
 *
 *   Young 1974:        tau = sqrt(2 delta M)
 *   Daly 2006 (eq. 37, higher order):
 *                      tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) (delta/(2M))] - delta,  delta < 2M
 *                      tau = M,                                                                       delta >= 2M
 * M is the MTBF of the job (node MTBF / ranks), delta the time to write one checkpoint; tau is compute time
 * between two checkpoints. */
#ifndef FL_POL_INTERVAL_H
#define FL_POL_INTERVAL_H

#include "fl_err.h"
#include "scenario.h"

double fl_pol_interval_young(double delta_s, double mtbf_s);
double fl_pol_interval_daly(double delta_s, double mtbf_s);

/* Fail-stop and silent errors (Aupy, Benoit, Herault, Robert, Vivien, Vaidyanathan, "On the combination of
 * silent error detection and checkpointing", PRDC 2013; Benoit, Cavelan, Robert, Sun, "Optimal resilience
 * patterns to cope with fail-stop and silent errors", IPDPS 2016): periods of W compute, then a verification V,
 * then a checkpoint C; fail-stop errors at rate lf = 1/mtbf_s lose W/2 on average, silent errors at rate
 * ls = 1/sdc_mtbf_s strike the compute and are caught by the verification, losing W. To first order
 *   waste(W) = (V + C)/W + (lf/2 + ls) W,   minimal at W* = sqrt((V + C)/(lf/2 + ls)),
 *   where waste(W*) = 2 sqrt((lf/2 + ls)(V + C)).
 * With no silent errors W* is Young's sqrt(2 (V + C) M). */
double fl_pol_interval_silent(double delta_s, double verify_s, double mtbf_s, double sdc_mtbf_s);
double fl_pol_waste_silent(double period_s, double delta_s, double verify_s, double mtbf_s, double sdc_mtbf_s);

/* Hazard-aware intervals for non-exponential failures: Young's rule with the job's current failure rate in place
 * of its mean, as lazy checkpointing does (Tiwari, Gupta, Vazhkudai, "Lazy checkpointing: exploiting temporal
 * locality in failures to mitigate checkpointing overheads on extreme-scale systems", DSN 2014). Under a
 * decreasing hazard (Weibull k < 1) a node that just failed (or was just replaced) is likely to fail again soon
 * and an old one is not: checkpoints come often after failures and rarely in quiet stretches. The rate is taken
 * over the interval itself, not at an instant (a Weibull hazard is infinite at age 0): tau solves
 *   tau * F(tau) = 2 delta,   F(tau) = the job's expected failures in the next tau seconds,
 * which for a constant rate 1/M is Young's tau = sqrt(2 delta M). F is the engine's (the ages of its nodes under
 * its failure law); tau is found by GSL's Brent solver within [0, tau_max]. */
typedef double (*fl_pol_expected_failures)(double horizon_s, void *ctx);
double fl_pol_interval_hazard(double delta_s, fl_pol_expected_failures F, void *ctx, double tau_max_s);

/* Cooperative periods for jobs that share one parallel file system (after Herault, Robert, Bouteiller, Arnold,
 * Ferreira, Bosilca, Dongarra, "Optimal cooperative checkpointing for shared high-performance computing
 * platforms", APDCM 2018): each job's own period (Young's, or Daly's) ignores that the PFS can write only so many
 * bytes a second for all of them. Minimising the machine's waste, sum_i q_i (C_i / P_i + P_i / (2 mu_i)) (q_i the
 * job's nodes, C_i its checkpoint's cost alone, mu_i its MTBF), subject to the PFS's capacity,
 * sum_i L_i / P_i <= 1 (L_i = its checkpoint's bytes over the PFS's bandwidth: the seconds of PFS it takes),
 * gives with a Lagrange multiplier lambda >= 0 (its first-order conditions):
 *   P_i = sqrt(2 mu_i (C_i + lambda L_i / q_i)),
 * Young's period with the cost raised by lambda times the job's share of the PFS per node; lambda = 0 when the
 * own periods fit, else the root of sum_i L_i / P_i(lambda) = 1 (GSL's Brent solver). `daly` = 1 applies Daly's
 * rule to the raised cost instead (the same lambda equation; Daly's period is capped at the MTBF, so an
 * overcommitted PFS may leave it unsolved: then every period is at its cap). Fills period[i] (INFINITY where
 * cost[i] is not finite or mtbf[i] is infinite: a job that does not checkpoint) and returns lambda, NAN on bad
 * input (a negative or NaN figure). */
double fl_pol_interval_cooperative(long n, const double *cost_s, const double *mtbf_s, const double *load_s,
                                   const double *nodes, int daly, double *period_s);

/* Expected wall time of `work_s` of compute cut in segments of tau_s, each followed by a checkpoint of
 * delta_s, under exponential failures of mean M (Daly 2006 eq. 20, with downtime):
 *   T_w = (M + D) e^{R/M} (e^{(tau + delta)/M} - 1) per segment,
 * failures striking compute, checkpoint and restart (a failure during restart pays D + R again), none during
 * the downtime D. A last, shorter segment is counted exactly. With tau >= work it is one segment (no
 * checkpointing when delta_s = 0: restart from scratch). */
double fl_pol_expected_walltime(double work_s, double tau_s, double delta_s, double restart_s, double downtime_s,
                                double mtbf_s);

/* Two-level checkpointing, local and file, as a Markov renewal model in the manner of Moody et al. (SC'10, the
 * SCR model): segments of tau_s each followed by a checkpoint, every `every`-th to the file level (cost
 * file_s), the others to the local level (cost local_s). Exponential failures: node losses at rate 1/node_mtbf_s
 * (they take the local copies: the job resumes from the newest file checkpoint), process crashes at rate
 * 1/proc_mtbf_s (the local copy survives, unless a node is lost before the restart completes). Every
 * interruption pays the downtime D (node losses during it count, crashes not) and a restart R, itself
 * interruptible. The expected time of `patterns` patterns of `every` segments, from a file checkpoint (or the
 * start). Exact for this model; faultline validate holds the simulator's multilevel strategy against it. */
typedef struct fl_pol_twolevel {
  double tau_s, local_s, file_s, restart_s, downtime_s;
  long every;
  double node_mtbf_s, proc_mtbf_s; /* job-wide; INFINITY: none */
} fl_pol_twolevel;
double fl_pol_twolevel_expected(const fl_pol_twolevel *m, long patterns);

/* Multi-level periods, to first order (A. Benoit, A. Cavelan, V. Le Fevre, Y. Robert, H. Sun, "Towards optimal
 * multi-level checkpointing", IEEE Transactions on Computers 66(7):1212-1226, 2017). Levels 0..n-1, cheapest
 * first; rate[l] the failures per second that level l recovers and no cheaper level does; a pattern of segments of
 * tau of compute, the k-th followed by a checkpoint of the highest level l whose every[l] divides k (every[0] = 1,
 * each a multiple of the one before). A level-l failure loses on average half of a level-l period, tau every[l] / 2;
 * writing level l in place of level l-1 costs the difference dC_l = cost[l] - cost[l-1] (SCR and faultline write
 * each level on its own; with cumulative levels, as Benoit et al. count them, dC_l is their C_l). Per unit of work
 *   H(tau, every) = A / tau + B tau,  A = sum_l dC_l / every[l],  B = sum_l rate[l] every[l] / 2,
 * minimal over tau at tau* = sqrt(A / B), H* = 2 sqrt(A B); with free real periods the levels separate,
 * N_l = 1 / (tau every[l]) = sqrt(rate[l] / (2 dC_l)) and H* = sum_l sqrt(2 rate[l] dC_l), their Theorem's form.
 * Periods are whole: the ratios every[l] / every[l-1] are chosen by coordinate descent from the rounded real
 * optimum, each step exact (A B is convex in one ratio with the others fixed, so its whole minimum is the floor
 * or the ceiling of the real one), a ratio of 1 dropping a level that does not pay (their dynamic programme's
 * choice of levels, here within the levels given). One level is Young's rule. */
#define FL_POL_MAX_LEVELS 4
#define FL_POL_MAX_EVERY 1000000L
typedef struct fl_pol_levels {
  int n;                            /* levels, cheapest first */
  double cost_s[FL_POL_MAX_LEVELS]; /* time to write one checkpoint of the level */
  double rate[FL_POL_MAX_LEVELS];   /* failures per second this level is the cheapest to recover */
  long every[FL_POL_MAX_LEVELS];    /* in: 0 = choose all, else all given; out: the pattern */
  double tau_s;                     /* out: compute between checkpoints (INFINITY: no failures) */
  double overhead;                  /* out: H at the pattern, first order */
} fl_pol_levels;
void fl_pol_interval_levels(fl_pol_levels *p);

#endif
