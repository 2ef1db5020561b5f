/* lossy_main.h — faultline-mpi's lossy-cg app (apps/lossy_cg_keys.h: its [recovery] keys): one solve, or the study's
 * sweep of mode x codec x lost role x loss iteration, a results row per solve (docs/lossy-cg.md). */
#ifndef FL_LOSSY_MAIN_H
#define FL_LOSSY_MAIN_H

#include "driver.h"
#include "rt.h"
#include "scenario.h"
#include "strategy.h"

/* Check the [recovery] keys, real deaths against the study, and the codecs this build has (every rank, before the
 * runtime starts): FL_OK or FL_ERR_INPUT naming the key. */
fl_err fl_lossy_check(const fl_scenario *sc, int nkill);

/* Run on every process; returns faultline-mpi's exit status (0 solved, 3 data lost, 1 otherwise). Every solve goes
 * through the generic driver with base's settings (real deaths, the heartbeat), strat for the solves that write
 * checkpoints and `none` for the others. Each process writes DIR/rank-W.txt: a summary line in the real mode's
 * format, then one "solve ..." line per solve. */
int fl_lossy_main(fl_scenario *sc, fl_rt *rt, const fl_strategy_run *strat, const fl_driver_config *base,
                  const char *out_dir);

#endif
