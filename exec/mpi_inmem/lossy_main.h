/* lossy_main.h — faultline-mpi's lossy-cg app (apps/lossy_cg_keys.h: its [recovery] keys): one solve, or the study's
 * sweep of mode x codec x lost role x loss iteration, a results row per solve (docs/lossy-cg.md). */
#ifndef FL_LOSSY_MAIN_H
#define FL_LOSSY_MAIN_H

#include "rt.h"
#include "scenario.h"
#include "strategy.h"

/* Check the [recovery] keys, real deaths against the study, and the codecs this build has (every rank, before the
 * runtime starts): FL_OK or FL_ERR_INPUT naming the key. */
fl_err fl_lossy_check(const fl_scenario *sc, int nkill);

/* Run on every process; returns faultline-mpi's exit status (0 solved, 3 data lost, 1 otherwise). Each process
 * writes DIR/rank-W.txt: a summary line in the real mode's format, then one "solve ..." line per solve. */
int fl_lossy_main(fl_scenario *sc, fl_rt *rt, const fl_strategy_run *strat, const char *out_dir, const long *kill_rank,
                  const long *kill_iter, int nkill);

#endif
