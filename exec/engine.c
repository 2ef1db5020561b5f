/* engine.c — the real engine's capabilities and interval set-up (see engine.h). */
#include "engine.h"

#include "app.h"
#include "fl_config.h"
#include "fm.h"
#include "interval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

fl_err fl_exec_setup(const fl_scenario *sc, long nroles, fl_engine_caps *caps, fl_strategy_run *run)
{
  fl_err rc;
  double scale = sc->time_scale > 0 ? sc->time_scale : 1.0;
  const fl_strategy_ops *ops = fl_strat_find(sc->strategy);
  int tasks = fl_app_has(sc, FL_APP_REAL_TASKS);
  const fl_app *app = sc->app ? fl_app_find(sc->app) : NULL; /* its hooks; an unknown kind is refused elsewhere */
  *caps = (fl_engine_caps){.name = "real",
                           .shape = FL_SHAPE_RANKS, /* cg, and the grid world by rows */
                           .levels = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE),
                           .max_degree = 3, /* replica sets of whole copies (exec/mpi_inmem/rt.h) */
                           .task_recovery = tasks,
                           .intervals = FL_IRULE_LEVELS | FL_IRULE_EACH}; /* (no hazard: it does not track its
                                                                            nodes' ages) */
  if ((rc = fl_scenario_check(sc)) != FL_OK) /* the run's keys across each other, and every plugin's set */
    return rc;
  if ((rc = fl_app_check_keys(sc)) != FL_OK) /* no [app] key the kind does not read */
    return rc;
  if (app && app->real_caps) /* what the app kind changes (lossy-cg: its own compressed buddy copies only) */
    app->real_caps(sc, caps);
  /* the grid world runs as tasks (exec/mpi_inmem/gw_tasks.h) under a strategy that drives tasks only
   * (substitution, hybrid); by rows under the others, whose checkpoints and replicas are of ranks */
  if (tasks && ops && !(ops->shapes & FL_SHAPE_RANKS))
    caps->shape = FL_SHAPE_TASKS;
  if ((rc = fl_strat_setup(sc, caps, run)) != FL_OK)
    return rc;
  if (app && app->real_check && (rc = app->real_check(sc, run)) != FL_OK)
    return rc;
  if (caps->shape == FL_SHAPE_TASKS)
    return FL_OK;
  if (sc->checkpoint_hdf5 && !FL_HAVE_HDF5 && (run->levels & FL_LEVEL_BIT(FL_LEVEL_FILE)))
    return fl_scenario_fail(
        sc, "mpi", "checkpoint_store",
        "this faultline was built without HDF5: use file"); /* every role holds the whole state: nothing to write, and a
                                                               shrink deals the tasks again */
  if (sc->shrink && run->levels && !(run->levels & FL_LEVEL_BIT(FL_LEVEL_FILE)))
    return fl_scenario_fail(sc, "mpi", "on_no_spare",
                            "shrink re-cuts a dead rank's rows over the others from the file level, which strategy "
                            "'%s' does not write (use checkpoint, two-level or none)",
                            run->ops->name);
  if (sc->shrink && run->degree > 1)
    return fl_scenario_fail(sc, "mpi", "on_no_spare",
                            "shrink and replication do not mix: a replica set that runs out of spares retires and "
                            "the other copies go on");
  if (sc->shrink && sc->mirror_pair && (run->levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)))
    return fl_scenario_fail(sc, "mpi", "on_no_spare",
                            "shrink may leave an odd number of ranks, which mpi.mirror = pair cannot pair: use ring");
  if (!run->levels || sc->checkpoint_every > 0)
    return FL_OK; /* nothing written, or every N iterations */
  /* the strategy's rule, in real seconds */
  if (run->rule->by_mtbf) {
    if (!(sc->time_scale > 0) || fl_fm_named_has(sc->model, FL_FM_NEVER) || !isfinite(sc->node_mtbf_s))
      return fl_scenario_fail(sc, "strategy", "interval",
                              "%s in real mode needs the MTBF in real seconds: set mpi.time_scale > 0 and a failure "
                              "model with a node_mtbf, or checkpoint every N iterations (mpi.checkpoint_every)",
                              run->rule->name);
    run->mtbf_s = sc->node_mtbf_s / scale / (double)nroles;
    /* until the run has measured a checkpoint, the scenario's cost stands in */
    fl_strat_observe(run, (run->levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) ? FL_LEVEL_BUDDY : FL_LEVEL_FILE,
                     sc->checkpoint_cost_s / scale);
  } else {
    run->tau_s = run->rule->tau(sc->checkpoint_cost_s / scale, INFINITY, sc->interval_s / scale);
  }
  return FL_OK;
}

const char *fl_exec_interval_rule(const fl_scenario *sc, const fl_strategy_run *run, char *buf, size_t size)
{
  if (!run->levels)
    return NULL;
  if (sc->checkpoint_every > 0)
    snprintf(buf, size, "every %ld iterations", sc->checkpoint_every);
  else if (!isfinite(run->tau_s))
    return NULL;
  else if (!run->rule->by_mtbf)
    snprintf(buf, size, "%s", run->rule->name);
  else
    snprintf(buf, size, "%s (measured delta)", run->rule->name);
  return buf;
}

fl_err fl_exec_check_kills(const fl_scenario *sc, int kills)
{
  const fl_app *app = sc->app ? fl_app_find(sc->app) : NULL;
  return app && app->real_kills ? app->real_kills(sc, kills) : FL_OK;
}
