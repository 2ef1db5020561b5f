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

/* The interval a scenario asks for, given the job MTBF it will see (INFINITY for `never`). Errors
 * (FL_ERR_INPUT) when the rule cannot apply (Young or Daly with no failures: an infinite MTBF). */
fl_err fl_pol_interval(const fl_scenario *sc, double job_mtbf_s, double *tau_s);
/* Name of the rule ("young", "daly", "fixed"). */
const char *fl_pol_interval_name(fl_interval_kind kind);

#endif

/* Expected wall time of `work_s` of compute cut in segments of tau_s, each followed by a checkpoint of
 * delta_s, under exponential failures of mean M (Daly 2006 eq. 20, with downtime):
 *   T_w = (M + D) e^{R/M} (e^{(tau + delta)/M} - 1) per segment,
 * failures striking compute, checkpoint and restart (a failure during restart pays D + R again), none during
 * the downtime D. A last, shorter segment is counted exactly. With tau >= work it is one segment (no
 * checkpointing when delta_s = 0: restart from scratch). */
double fl_pol_expected_walltime(double work_s, double tau_s, double delta_s, double restart_s, double downtime_s,
                                double mtbf_s);
