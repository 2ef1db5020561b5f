/* lossy_cg.c — the real engine's lossy-CG (app.kind = lossy-cg): a study of solves, each through the generic driver
 * over ../lossy_cg.c's ops (see lossy_main.h). */
#include "lossy_cg.h"

#include "app.h"
#include "ckpt_codec.h"
#include "db.h"
#include "engine.h"
#include "grid_keys.h"
#include "lossy_cg_keys.h"
#include "lossy_main.h"
#include "real_app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fl_err fl_lossy_check(const fl_scenario *sc, int nkill)
{
  fl_lossy_plan pl;
  fl_err rc = fl_exec_check_kills(sc, nkill); /* also what faultline run checks before it starts */
  if (rc != FL_OK || (rc = fl_lossy_plan_make(sc, &pl)) != FL_OK)
    return rc;
  for (int a = 0; a < pl.ncodecs; a++) /* and the codecs this build has (zero: no checkpoint at all) */
    if (strcmp(pl.codecs[a].name, "zero") != 0 && !fl_ckpt_codec_known(pl.codecs[a].name))
      return fl_scenario_fail(sc, "recovery", "codec", "codec '%s' is not in this build (ZFP missing?)",
                              pl.codecs[a].name);
  return FL_OK;
}

typedef struct fl_lossy_ctx {
  fl_scenario *sc;
  fl_rt *rt;
  const fl_strategy_run *strat; /* buddy: the compressed checkpoints; none: codec zero only, nothing written */
  fl_strategy_run none;         /* the solves that write no checkpoint: the baseline, codec zero */
  const fl_driver_config *base; /* the engine's driver settings: deaths (--kill), heartbeat */
  FILE *out;
  fl_db *db;
  int nkill, lost, failed, solves, stop; /* stop: lost, or a spare whose job is over */
  long total_iterations, total_commits;
  double last_error;
} fl_lossy_ctx;

/* A solve writes checkpoints under the scenario's strategy when it has an interval and a codec other than zero;
 * the others run `none`. */
static int fl_lossy_protected(const fl_lcg_config *cfg)
{
  return cfg->interval > 0 && strcmp(cfg->codec, "zero") != 0;
}

static void fl_lossy_row(fl_lossy_ctx *c, const fl_lcg_config *cfg, const fl_lossy_codec *cs, const char *mode,
                         long lost_role, long lost_at, const fl_lcg_result *res, double best_wall, fl_evlog *events)
{
  fl_scenario *sc = c->sc;
  const fl_driver_result *dr = &res->drv;
  fl_db_run row;
  char every[48], label[160];
  double sums[3] = {dr->ckpt_bytes, res->raw_bytes, res->x_bytes};
  /* checkpoint bytes of every role: a sum over the roles (every role takes part) */
  if (fl_rt_sum(c->rt, sums, 3) != FL_RT_OK || c->rt->role != 0 || !c->db)
    return;
  fl_db_run_clear(&row);
  snprintf(every, sizeof every, "%ld iterations", cfg->interval);
  snprintf(label, sizeof label, "%s", sc->name);
  row.scenario = label;
  row.scenario_path = sc->abs_path ? sc->abs_path : sc->path;
  row.scenario_text = sc->text;
  row.overrides = sc->overrides;
  row.mode = "real";
  row.app = fl_app_lossy_cg.name;
  /* the strategy that ran: the scenario's (buddy) for a solve with checkpoints; the baseline and codec zero write
   * none */
  row.strategy = fl_lossy_protected(cfg) ? c->strat->ops->name : fl_strategy_none.name;
  row.failure_model = c->nkill ? "kill" : lost_role >= 0 ? "lose" : "none";
  row.interval_rule = cfg->interval > 0 ? every : NULL;
  row.status = res->status;
  row.seed = sc->seed;
  row.nodes = c->rt->nroles;
  row.platform_nodes = row.job_nodes = c->rt->wsize;
  row.node_mtbf_s = row.repair_s = row.interval_s = NAN;
  row.restart_cost_s = row.downtime_s = NAN;
  row.checkpoint_cost_s = dr->commits ? dr->commit_s / (double)dr->commits : NAN; /* measured, as cg's rows */
  row.makespan_s = isfinite(best_wall) ? best_wall : dr->wall_s;
  /* the real engine's accounting (docs/results.md): useful work is what is left of the makespan once checkpoints,
   * detection and agreement, restore and repair, and replay are taken out */
  row.work_s = row.makespan_s - dr->commit_s - (double)c->rt->recoveries * (dr->detect_s + dr->recover_s) -
               dr->restore_s - dr->replay_s;
  row.failures = c->rt->failures + (int)dr->injected; /* real deaths and injected losses */
  row.platform_failures = row.failures;
  row.interruptions = c->rt->recoveries + (int)dr->injected;
  row.checkpoints = dr->commits;
  row.downtime_total_s = row.wait_nodes_s = NAN;
  row.restart_time_s = dr->restore_s; /* reading the copies back and repairing (the auxiliary solve included) */
  row.lost_work_s = dr->replay_s;     /* iterations recomputed after an exact rollback (codec none) */
  row.checkpoint_time_s = dr->commit_s;
  row.wall_s = dr->wall_s;
  row.error_budget = NAN;
  row.iterations = res->iterations;
  row.converged_at = strcmp(res->status, "completed") == 0 ? res->iterations : -1;
  row.complete_iterations = res->final_k;
  row.error_linf = res->error_linf;
  row.error_l1 = NAN;
  row.tasks_replicated = row.tasks_substituted = row.tasks_stale = -1;
  row.policy_time_s = row.policy_gap = NAN;
  row.detect_time_s = c->rt->recoveries ? dr->detect_s : NAN;
  row.recovery_time_s = c->rt->recoveries ? dr->recover_s : NAN;
  row.checkpoint_bytes = sums[0];
  row.commit_time_s = dr->commits ? dr->commit_s / (double)dr->commits : NAN;
  row.recovery_mode = mode;
  row.codec = cs ? cs->label : "off"; /* off: the baseline without checkpoints */
  row.lost_role = lost_role;
  row.lost_at = lost_at;
  row.aux_iterations = strcmp(mode ? mode : "", "improved") == 0 ? res->aux_iterations : -1;
  row.compression_ratio = sums[2] > 0 ? sums[1] / sums[2] : NAN;
  row.raw_checkpoint_bytes = sums[1];
  if (fl_db_insert_run(c->db, &row, events, NULL) != FL_OK) {
    fprintf(stderr, "faultline-mpi: %s\n", fl_err_msg());
    c->failed = 1;
  }
}

static void fl_lossy_line(fl_lossy_ctx *c, const char *mode, const fl_lossy_codec *cs, long lost_role, long lost_at,
                          const fl_lcg_result *res)
{
  if (!c->out)
    return;
  fprintf(c->out,
          "solve mode %s codec %s lost_role %ld lost_at %ld status %s iterations %ld final_k %ld checksum %016llx "
          "error %.17g residual %.6e aux %ld aux_target %.6e aux_reached %.6e aux_met %d eb_first %.6e eb_last "
          "%.6e ckpt_bytes %.0f raw_bytes %.0f x_bytes %.0f commits %ld from_buddy %ld from_scratch %ld encode_s %.6f "
          "wall_s %.6f\n",
          mode ? mode : "-", cs ? cs->label : "off", lost_role, lost_at, res->status, res->iterations, res->final_k,
          res->checksum, res->error_linf, res->residual, res->aux_iterations, res->aux_target, res->aux_reached,
          res->aux_met, res->eb_first, res->eb_last, res->drv.ckpt_bytes, res->raw_bytes, res->x_bytes,
          res->drv.commits, res->drv.rollbacks[FL_LEVEL_BUDDY], res->drv.rollbacks[FL_LEVEL_SCRATCH], res->encode_s,
          res->drv.wall_s);
}

/* One solve through the driver, losing role lose_role[i] before iteration lose_iter[i]; every active process runs
 * it. The strategy is a fresh copy for each solve (the driver counts its checkpoints in it); its timeline goes to
 * events (cleared first; run.events = all), which the row writer stores with the solve's row. */
static void fl_lossy_solve(fl_lossy_ctx *c, fl_lcg_config *cfg, const long *lose_role, const long *lose_iter, int nlose,
                           fl_evlog *events, fl_lcg_result *res)
{
  fl_strategy_run run = fl_lossy_protected(cfg) ? *c->strat : c->none;
  fl_driver_config dc = *c->base;
  dc.strat = &run;
  dc.checkpoint_every = cfg->interval;
  dc.lose_role = lose_role;
  dc.lose_iter = lose_iter;
  dc.nlose = nlose;
  dc.shrink = 0;      /* a lost rank's rows are repaired, never re-cut */
  dc.file_dir = NULL; /* buddy memory or nothing */
  fl_evlog_clear(events);
  dc.events = c->sc->events_all ? events : NULL;
  cfg->drv = &dc;
  fl_lcg_run(c->rt, cfg, res);
  cfg->drv = NULL;
  c->solves++;
  if (strcmp(res->status, "lost") == 0 || strcmp(res->status, "dead") == 0)
    c->lost = 1;
  c->stop = c->lost || strcmp(res->status, "idle") == 0;
  c->total_iterations = res->iterations;
  c->total_commits += res->drv.commits;
  c->last_error = res->error_linf;
}

int fl_lossy_main(fl_scenario *sc, fl_rt *rt, const fl_strategy_run *strat, const fl_driver_config *base,
                  const char *out_dir)
{
  fl_lossy_plan pl;
  fl_lossy_ctx c;
  fl_lcg_config cfg;
  fl_lcg_result res;
  char path[4096];
  int code = 0;
  const char *final_status = "completed";
  char lost_msg[256] = "";
  fl_evlog ev, best_ev; /* a solve's timeline; the failure-free repeats keep the best one's */

  fl_evlog_init(&ev, sc->events_all);
  fl_evlog_init(&best_ev, sc->events_all);
  memset(&c, 0, sizeof c);
  c.sc = sc;
  c.rt = rt;
  c.strat = strat;
  c.base = base;
  c.nkill = base->nkill;
  if (fl_lossy_plan_make(sc, &pl) != FL_OK || fl_strat_setup_as(&fl_strategy_none, sc, strat->caps, &c.none) != FL_OK)
    return 2; /* checked before: not reached */
  if (out_dir) {
    snprintf(path, sizeof path, "%s/rank-%d.txt.solves", out_dir, rt->wrank);
    c.out = fopen(path, "w");
  }
  if (rt->role == 0 && fl_db_open(sc->db, &c.db) != FL_OK) {
    fprintf(stderr, "faultline-mpi: %s\n", fl_err_msg());
    code = 1;
  }
  memset(&cfg, 0, sizeof cfg);
  cfg.n = fl_grid_options(sc)->rows;
  cfg.tol = fl_grid_options(sc)->tolerance;
  cfg.maxit = fl_grid_options(sc)->iterations;
  cfg.interval = pl.interval;
  cfg.levels = (int)fl_lossy_options(sc)->levels;

  if (pl.nat > 0) {
    /* the study: a baseline without checkpoints, a failure-free run per codec, then every combination */
    long ff = 0;
    for (int a = -1; a < pl.ncodecs && !c.stop; a++) {
      double best = INFINITY;
      fl_lcg_result keep;
      memset(&keep, 0, sizeof keep);
      cfg.mode = FL_LOSSY_GLOBAL;
      cfg.codec = a < 0 ? "none" : pl.codecs[a].name;
      cfg.codec_tol = a < 0 ? 1.0 : pl.codecs[a].tol;
      cfg.interval = a < 0 ? 0 : pl.interval;
      for (long rep = 0; rep < fl_lossy_options(sc)->repeat && !c.stop; rep++) {
        double w[1];
        fl_lossy_solve(&c, &cfg, NULL, NULL, 0, &ev, &res);
        w[0] = res.drv.wall_s;
        if (c.stop)
          break;
        if (fl_rt_max(rt, w, 1) == FL_RT_OK && w[0] < best) { /* the slowest role's wall time, best repeat */
          fl_evlog swap = best_ev;                            /* and its timeline */
          best = w[0];
          keep = res;
          best_ev = ev;
          ev = swap;
        }
      }
      if (c.stop)
        break;
      if (a < 0)
        ff = keep.iterations;
      fl_lossy_line(&c, NULL, a < 0 ? NULL : &pl.codecs[a], -1, -1, &keep);
      fl_lossy_row(&c, &cfg, a < 0 ? NULL : &pl.codecs[a], NULL, -1, -1, &keep, best, &best_ev);
    }
    cfg.interval = pl.interval;
    for (int m = 0; m < pl.nmodes && !c.stop; m++)
      for (int a = 0; a < pl.ncodecs && !c.stop; a++)
        for (int t = 0; t < pl.nat && !c.stop; t++)
          for (int r = 0; r < pl.nroles && !c.stop; r++) {
            long role = pl.roles[r], iter = lround(pl.at[t] * (double)ff);
            if (role >= rt->nroles)
              continue;
            cfg.mode = pl.modes[m];
            cfg.codec = pl.codecs[a].name;
            cfg.codec_tol = pl.codecs[a].tol;
            fl_lossy_solve(&c, &cfg, &role, &iter, 1, &ev, &res);
            if (c.stop)
              break;
            fl_lossy_line(&c, fl_lossy_mode_name(cfg.mode), &pl.codecs[a], role, iter, &res);
            fl_lossy_row(&c, &cfg, &pl.codecs[a], fl_lossy_mode_name(cfg.mode), role, iter, &res, NAN, &ev);
          }
  } else {
    for (int m = 0; m < pl.nmodes && !c.stop; m++)
      for (int a = 0; a < pl.ncodecs && !c.stop; a++) {
        cfg.mode = pl.modes[m];
        cfg.codec = pl.codecs[a].name;
        cfg.codec_tol = pl.codecs[a].tol;
        fl_lossy_solve(&c, &cfg, pl.lose_role, pl.lose_iter, pl.nlose, &ev, &res);
        if (c.stop)
          break; /* lost, or a spare never promoted: the job is over */
        fl_lossy_line(&c, fl_lossy_mode_name(cfg.mode), &pl.codecs[a], pl.nlose ? pl.lose_role[0] : -1,
                      pl.nlose ? pl.lose_iter[0] : -1, &res);
        fl_lossy_row(&c, &cfg, &pl.codecs[a], fl_lossy_mode_name(cfg.mode), pl.nlose ? pl.lose_role[0] : -1,
                     pl.nlose ? pl.lose_iter[0] : -1, &res, NAN, &ev);
        if (strcmp(res.status, "completed") != 0 && strcmp(res.status, "maxit") != 0)
          final_status = res.status;
      }
  }
  if (c.lost) {
    final_status = res.status;
    snprintf(lost_msg, sizeof lost_msg, "%s", res.message[0] ? res.message : rt->lost_msg);
    code = strcmp(res.status, "lost") == 0 ? 3 : 1;
  } else if (rt->role < 0) {
    final_status = "idle";
  }
  if (c.failed && code == 0)
    code = 1;
  if (rt->role == 0 && !c.stop)
    fl_rt_release_spares(rt);
  fl_db_close(&c.db);
  fl_evlog_free(&ev);
  fl_evlog_free(&best_ev);
  if (c.out)
    fclose(c.out);
  if (out_dir) {
    /* the summary line (faultline run reads it), then the solves */
    char spath[4200];
    FILE *f, *in;
    snprintf(path, sizeof path, "%s/rank-%d.txt", out_dir, rt->wrank);
    snprintf(spath, sizeof spath, "%s/rank-%d.txt.solves", out_dir, rt->wrank);
    if ((f = fopen(path, "w"))) {
      char line[2048];
      fprintf(f,
              "rank %d role %d status %s iterations %ld checksum %016llx error %.17g residual %.3e rows %ld+%ld "
              "recoveries %d failures %d detect_s %.4f recover_s %.4f commits %ld ckpt_bytes %.0f commit_s %.4f "
              "wall_s %.4f solves %d message %s\n",
              rt->wrank, rt->role, final_status, c.total_iterations, res.checksum, c.last_error, res.residual, res.row0,
              res.nrows, rt->recoveries + (int)res.drv.injected, rt->failures + (int)res.drv.injected, rt->detect_s,
              rt->recover_s, c.total_commits, res.drv.ckpt_bytes, res.drv.commit_s, res.drv.wall_s, c.solves,
              lost_msg[0] ? lost_msg : "-");
      if ((in = fopen(spath, "r"))) {
        while (fgets(line, sizeof line, in))
          fputs(line, f);
        fclose(in);
      }
      fclose(f);
    }
    remove(spath);
  }
  if (c.lost && strcmp(final_status, "lost") == 0) {
    int first_alive = 0;
    while (first_alive < rt->wsize && !rt->alive[first_alive])
      first_alive++;
    if (rt->wrank == first_alive)
      fprintf(stderr, "faultline-mpi: %s; the job stops\n", lost_msg);
  }
  return code;
}

const fl_real_app fl_real_lossy_cg = {.app = &fl_app_lossy_cg, .study = fl_lossy_main, .study_check = fl_lossy_check};
