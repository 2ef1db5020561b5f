/* engine.h — the real engine as the strategy layer sees it: what it can run (fl_engine_caps) and how a scenario's
 * strategy is set up for it. Shared by `faultline run`, which checks a scenario before it launches anything, and
 * faultline-mpi, which runs it. No MPI here.
 *
 * The real engine runs rank-parallel applications (cg; the grid world by rows) with checkpoints in a buddy's
 * memory (exec/mpi_inmem/imc) and in files (storage/ckpt), alone or as two levels, at the interval the strategy's
 * rule gives: every mpi.checkpoint_every iterations, or, with 0, Young's or Daly's with the checkpoint cost measured
 * in the run and the MTBF of [failures] mapped through mpi.time_scale; replica sets of whole copies (replication);
 * and the grid world as tasks under a strategy that drives tasks only (substitution, hybrid: a failed task is
 * re-executed or substituted as the strategy decides, exec/mpi_inmem/gw_tasks.h). A strategy it cannot run is
 * refused with the reason. */
#ifndef FL_EXEC_ENGINE_H
#define FL_EXEC_ENGINE_H

#include "strategy.h"

/* Set up sc's strategy for nroles active ranks of the real engine: FL_ERR_INPUT naming the key when the strategy
 * or its interval cannot run there. caps must outlive run. */
fl_err fl_exec_setup(const fl_scenario *sc, long nroles, fl_engine_caps *caps, fl_strategy_run *run);
/* The app's check of the real deaths asked for (`kills` given outside the file, or mpi.kill): fl_app.real_kills
 * (lossy-cg's study: a single solve, no sweep of modes, codecs or losses). FL_OK for an app without one. */
fl_err fl_exec_check_kills(const fl_scenario *sc, int kills);

/* What the row's interval_rule says ("every 10 iterations", "daly (measured delta)"), into buf. NULL without
 * checkpoints. */
const char *fl_exec_interval_rule(const fl_scenario *sc, const fl_strategy_run *run, char *buf, size_t size);

#endif
