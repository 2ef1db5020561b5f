/* sim.c — a simulation set up: the scenario's job on the platform (its size, strategy, interval and costs, from
 * the platform when asked), the app picked from fl_sim_apps[], the engine its replicas run on, and the figures every
 * row records. A replica itself runs in replica.c. See sim.h for the model. */
#include "interval.h"
#include "knapsack.h"
#include "replication.h"
#include "sim_impl.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The applications the simulator runs (FL_SIM_APPS, sim_impl.h). */
static const fl_sim_app *const fl_sim_apps[] = {
#define X(name) &fl_sim_##name,
    FL_SIM_APPS(X)
#undef X
};
#define FL_NSIMAPPS ((int)(sizeof fl_sim_apps / sizeof fl_sim_apps[0]))

fl_err fl_sim_register_apps(void)
{
  fl_err rc = FL_OK;
  for (int i = 0; i < FL_NSIMAPPS; i++)
    FL_TRY(fl_app_register(fl_sim_apps[i]->app)); /* (a built-in kind is there already: nothing to do) */
done:
  return rc;
}

const char *fl_sim_strategy_apps(const char *strategy, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NSIMAPPS; i++) {
    char text[256];
    fl_scenario *sc = NULL;
    fl_strategy_run run;
    fl_engine_caps caps = fl_sim_apps[i]->caps;
    snprintf(text, sizeof text, "[app]\nkind = %s\n[strategy]\nkind = %s\n", fl_sim_apps[i]->app->name, strategy);
    if (fl_scenario_from_text(text, "faultline help", NULL, &sc) == FL_OK && fl_strat_setup(sc, &caps, &run) == FL_OK) {
      strncat(buf, buf[0] ? ", " : "", size - strlen(buf) - 1);
      strncat(buf, fl_sim_apps[i]->app->name, size - strlen(buf) - 1);
    }
    fl_scenario_destroy(&sc);
  }
  fl_err_clear();
  return buf;
}

/* ---- set-up ---- */

/* The job's checkpoint and restart costs simulated on the platform, in a child process: SimGrid's clock stays at
 * zero here, so every probe of a process starts from the same clock (a sweep's second point probed after the first
 * gave costs an ulp apart from those `rerun`, which probes alone, finds). */
typedef struct fl_io_probe {
  fl_sim *sim;
  const fl_scenario *sc;
} fl_io_probe;

static fl_err fl_io_probe_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  const fl_io_probe *p = ctx;
  fl_iocost io;
  FL_TRY(fl_iocost_measure(p->sim->pf, p->sc, p->sim->ranks, p->sim->strat.levels, p->sim->strat.writes,
                           p->sim->strat.xor_group, &io));
  FL_CHECK(fwrite(&io, sizeof io, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
done:
  return rc;
}

static fl_err fl_sim_measure_io(fl_sim *sim, const fl_scenario *sc, fl_iocost *io)
{
  fl_err rc = FL_OK;
  fl_io_probe p = {sim, sc};
  FILE *res = NULL;
  FL_TRY(fl_sim_in_child(fl_io_probe_main, &p, &res));
  FL_CHECK(fread(io, sizeof *io, 1, res) == 1, FL_ERR_IO, "the platform's checkpoint costs came back short");
done:
  if (res)
    fclose(res);
  return rc;
}

/* The scenario's application (the app registry's entry, run by its ops here) and its strategy, set up against
 * what the application offers. */
static fl_err fl_sim_pick(const fl_scenario *sc, fl_sim *sim)
{
  const fl_app *app = NULL;
  fl_err rc = fl_app_get(sc, FL_APP_SIM, &app);
  if (rc != FL_OK)
    return rc;
  for (int i = 0; i < FL_NSIMAPPS; i++)
    if (fl_sim_apps[i]->app == app)
      sim->app = fl_sim_apps[i];
  if (!sim->app)
    return fl_scenario_fail(sc, "app", "kind",
                            "the app registry lists '%s' for the simulator, which has no ops for "
                            "it (FL_SIM_APPS, sim/sim_impl.h)",
                            app->name);
  sim->caps = sim->app->caps;
  return fl_strat_setup(sc, &sim->caps, &sim->strat);
}

static fl_err fl_sim_link_regimes(fl_sim *sim, const fl_scenario *sc);
static fl_err fl_sim_link_outages(fl_sim *sim, const fl_profiles *pp);

/* A platform profile's outages, played on `node` (the lists are borrowed). */
static fl_fsrc_profile fl_fsrc_profile_of(long node, const fl_host_profile *hp)
{
  return (fl_fsrc_profile){.node = node,
                           .first_t = hp->first_t,
                           .first_dur = hp->first_dur,
                           .nfirst = hp->nfirst,
                           .steady_t = hp->steady_t,
                           .steady_dur = hp->steady_dur,
                           .nsteady = hp->nsteady,
                           .period = hp->period};
}

/* The platform form a picked simulation asks for: the network and storage its checkpoint costs are simulated on
 * when they come from the platform, one cluster for task graphs; sets sim->platform_costs. */
static int fl_sim_platform_form(fl_sim *sim, const fl_scenario *sc)
{
  const char *why = NULL;
  long est_nodes = sc->platform_nodes > 0 ? sc->platform_nodes : fl_app_job_slots(sc, sim->strat.degree);
  int form = 0;
  sim->platform_costs = (sim->app->flags & FL_SIM_APP_PLATFORM_COSTS) && fl_iocost_wanted(sc, sim->strat.levels, &why);
  sim->cost_fallback = !sim->platform_costs && why && sc->checkpoint_size > 0 ? why : NULL;
  if (sim->platform_costs && !sc->platform_file)
    form = fl_iocost_form(sc, est_nodes);
  if (sim->app->io_form && !sc->platform_file)
    form = sim->app->io_form(sc, sim->strat.levels, est_nodes); /* workloads: per node or per cabinet */
  else if (sim->app->form && !sc->platform_file)
    form = sim->app->form; /* task graphs: one cluster */
  return form;
}

/* app.spares: the job holds its ranks x copies and that many spares, the first nodes of the platform; the others
 * are not the job's (no failures drawn for them, no power, no node-hours). "rest" holds every node. */
static fl_err fl_sim_hold(fl_sim *sim, const fl_scenario *sc)
{
  long spares = fl_scenario_spares(sc);
  if (spares < 0)
    return FL_OK;
  if (sim->app->size || sim->caps.shape != FL_SHAPE_RANKS)
    return fl_scenario_fail(sc, "app", "spares",
                            "the spares of a bsp job; app.kind = %s runs on the platform's nodes as its own (rest)",
                            sim->app->app->name);
  if (fl_fm_has(sim->fm, FL_FM_REPLAYS) || fl_fm_trace_count(sim->fm) > 0)
    return fl_scenario_fail(sc, "app", "spares",
                            "a failure log names the platform's nodes: with failures.model = trace the job holds "
                            "them all (rest)");
  if (spares > sim->nodes - sim->slots)
    return fl_scenario_fail(sc, "app", "spares", "%ld spares and %ld ranks%s need %ld nodes; platform '%s' has %ld",
                            spares, sim->ranks,
                            sim->degree > 1 ? (sim->degree == 2 ? " x 2 copies" : " x 3 copies") : "",
                            sim->slots + spares, fl_platform_describe(sim->pf), sim->nodes);
  sim->nodes = sim->slots + spares;
  return FL_OK;
}

fl_err fl_sim_platform_key(const fl_scenario *sc, char *buf, size_t size)
{
  fl_err rc = FL_OK;
  fl_sim tmp;
  memset(&tmp, 0, sizeof tmp);
  FL_TRY(fl_sim_pick(sc, &tmp)); /* the strategy first: the copies of a rank it runs need hosts too */
  FL_TRY(fl_scenario_check(sc));
  FL_TRY(fl_app_check(sc, tmp.strat.degree));
  FL_TRY(fl_platform_key(sc, fl_sim_platform_form(&tmp, sc), tmp.strat.degree, buf, size));
done:
  return rc;
}

/* The job's makespan without failures on this platform (a task graph's transfers and their contention included),
 * simulated once, before the first replica (not at set-up: `simulate --print` and a sweep's planning pass create
 * simulations they never run), as replica 0 with the failure sources fl_sim_never_fails looks at switched off, in a
 * child process (this one's clock and state stay as they are). */
typedef struct fl_free_run {
  fl_sim *sim;
  fl_fm *none;
} fl_free_run;

static fl_err fl_free_run_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_free_run *f = ctx;
  fl_sim *sim = f->sim;
  fl_sim_result res;
  sim->fm = f->none;
  sim->trace_node = NULL;
  sim->kill_work = NULL;
  sim->nprofiles = 0;
  sim->group_mtbf_s = INFINITY;
  sim->burst_ratio = 0.0;
  sim->process_mtbf_s = INFINITY;
  sim->sdc = 0;
  sim->progress = NULL;
  sim->in_child = 1;
  FL_TRY(fl_sim_run_replica(sim, 0, &res, NULL));
  if (strcmp(res.status, "completed") != 0)
    res.makespan_s = NAN;
  FL_CHECK(fwrite(&res.makespan_s, sizeof res.makespan_s, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
done:
  return rc;
}

/* No failure of any kind can strike: every replica is the failure-free run (its rows take their own makespan). */
static int fl_sim_never_fails(const fl_sim *sim)
{
  return !isfinite(sim->node_mtbf_s) && !sim->trace_node && sim->nprofiles == 0 && !isfinite(sim->group_mtbf_s) &&
         !isfinite(sim->process_mtbf_s);
}

static fl_err fl_sim_failure_free(fl_sim *sim)
{
  fl_err rc = FL_OK;
  fl_scenario *none_sc = NULL;
  fl_free_run f = {sim, NULL};
  FILE *res = NULL;
  FL_TRY(fl_scenario_from_text("[failures]\nmodel = none\n", "failure-free run", NULL, &none_sc));
  FL_TRY(fl_fm_create(none_sc, &f.none));
  FL_TRY(fl_sim_in_child(fl_free_run_main, &f, &res));
  FL_CHECK(fread(&sim->failure_free_s, sizeof sim->failure_free_s, 1, res) == 1, FL_ERR_IO,
           "the failure-free run's makespan came back short");
done:
  if (res)
    fclose(res);
  fl_fm_destroy(&f.none);
  fl_scenario_destroy(&none_sc);
  return rc;
}

/* FAULTLINE_SIM_ENGINE = check: what ran where, said once as the process ends. */
static int fl_engine_said;

static void fl_engine_say(void)
{
  long n[3];
  fl_sim_engine_counts(&n[0], &n[1], &n[2]);
  fprintf(stderr,
          "faultline: engines: %ld replicas checked on the direct engine against SimGrid, %ld run on SimGrid alone, "
          "%ld handed from the direct engine to SimGrid\n",
          n[0], n[1], n[2]);
}

/* Which engine runs the replicas: FAULTLINE_SIM_ENGINE (direct, the default; simgrid; check), and the direct
 * engine only for an app whose coordinator only waits, on a platform whose profiles SimGrid does not play (they
 * would move its clock). */
static fl_err fl_sim_engine_pick(fl_sim *sim)
{
  fl_err rc = FL_OK;
  const char *e = getenv("FAULTLINE_SIM_ENGINE");
  if (!e || !*e || strcmp(e, "direct") == 0)
    sim->engine = FL_SIM_ENGINE_DIRECT;
  else if (strcmp(e, "simgrid") == 0)
    sim->engine = FL_SIM_ENGINE_SIMGRID;
  else
    FL_CHECK(strcmp(e, "check") == 0 && (sim->engine = FL_SIM_ENGINE_CHECK), FL_ERR_INPUT,
             "environment: FAULTLINE_SIM_ENGINE = '%s': expected direct, simgrid or check", e);
  if (sim->engine == FL_SIM_ENGINE_CHECK && !fl_engine_said) {
    fl_engine_said = 1;
    atexit(fl_engine_say);
  }
  sim->direct = sim->engine != FL_SIM_ENGINE_SIMGRID && (sim->app->flags & FL_SIM_APP_DIRECT) &&
                fl_platform_profiles(sim->pf)->kept == 0;
done:
  return rc;
}

/* The failure log's records on the platform's nodes (trace: a node named by its host or number), placed by the
 * job's work when the log says so (failures.trace_clock = work), and the node MTBF the log shows; the law's mean
 * otherwise. */
static fl_err fl_sim_failure_log(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  if (fl_fm_trace_count(sim->fm) > 0 || fl_fm_has(sim->fm, FL_FM_REPLAYS)) {
    size_t n = fl_fm_trace_count(sim->fm);
    double span = 0.0;
    FL_ALLOC(sim->trace_node, n);
    for (size_t i = 0; i < n; i++) {
      const fl_fm_trace_rec *r = fl_fm_trace_at(sim->fm, i);
      long node = r->host ? fl_platform_node_of(sim->pf, r->host) : r->node;
      const char *path = fl_fm_trace_file(sim->fm);
      if (node < 0 || node >= sim->nodes) {
        char what[64];
        if (r->host)
          snprintf(what, sizeof what, "%s", r->host);
        else
          snprintf(what, sizeof what, "%ld", r->node);
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': no such node on platform '%s' (%ld nodes, 0-based)", path,
                        r->line, what, fl_platform_describe(sim->pf), sim->nodes);
        goto done;
      }
      sim->trace_node[i] = node;
      span = r->t_s;
    }
    if (fl_fm_trace_by_work(sim->fm)) { /* by work: the bsp coordinator places them (fl_sim_run_ranks) */
      const char *file = fl_fm_trace_file(sim->fm);
      if (!(sim->app->flags & FL_SIM_APP_BY_WORK)) {
        rc = fl_scenario_fail(sc, "failures", "trace_clock",
                              "work places failures by a bsp job's progress (app.kind = bsp, not %s)",
                              sim->app->app->name);
        goto done;
      }
      FL_ALLOC(sim->kill_work, n ? n : 1);
      FL_ALLOC(sim->kill_node, n ? n : 1);
      for (size_t i = 0; i < n; i++) {
        const fl_fm_trace_rec *r = fl_fm_trace_at(sim->fm, i);
        if (!isnan(r->downtime_s) && isfinite(r->downtime_s)) {
          rc = fl_err_set(FL_ERR_INPUT,
                          "%s:%d: downtime %g s: failures placed by work (failures.trace_clock = work) are never "
                          "repaired",
                          file, r->line, r->downtime_s);
          goto done;
        }
        sim->kill_work[i] = r->t_s;
        sim->kill_node[i] = sim->trace_node[i];
      }
      sim->nkill = n;
    }
    /* node MTBF seen in the trace: node-time observed over failures (by work: the work's span stands for time) */
    sim->node_mtbf_s = n > 0 && span > 0 ? (double)sim->nodes * span / (double)n : INFINITY;
  } else {
    sim->node_mtbf_s = fl_fm_mean(sim->fm);
  }
done:
  return rc;
}

/* The platform file's profiles over the nodes the job holds: hosts that go off (state_file, and links that cut
 * nodes off), outages every replica replays from its start; hosts that slow down (speed_file), which a bsp job
 * follows at its slowest node's pace (run_ranks.c). */
static fl_err fl_sim_profiles(fl_sim *sim)
{
  fl_err rc = FL_OK;
  {
    /* hosts the platform file says go off (state_file): outages every replica replays from its start */
    const fl_profiles *pp = fl_platform_profiles(sim->pf);
    if (pp->n > 0)
      FL_ALLOC(sim->profiles, pp->n);
    FL_TRY(fl_sim_link_outages(sim, pp));
    for (size_t i = 0; i < pp->n; i++) {
      const fl_host_profile *hp = &pp->v[i];
      long node = fl_platform_node_of(sim->pf, hp->host);
      if (node < 0 || node >= sim->nodes)
        continue; /* a storage host, or a node the job does not hold (app.spares); the controller cannot have one */
      sim->profiles[sim->nprofiles++] = fl_fsrc_profile_of(node, hp);
    }
  }
  {
    /* hosts the platform file says slow down (speed_file; taken out for bsp jobs only): a bsp job runs at its
     * slowest node's pace, every replica from its start (run_ranks.c) */
    const fl_profiles *pp = fl_platform_profiles(sim->pf);
    if (pp->nspeed > 0)
      FL_ALLOC(sim->speeds, pp->nspeed);
    for (size_t i = 0; i < pp->nspeed; i++) {
      long node = fl_platform_node_of(sim->pf, pp->speed[i].host);
      if (node >= 0 && node < sim->nodes) { /* a node the job holds */
        sim->speeds[sim->nspeeds].node = node;
        sim->speeds[sim->nspeeds++].hs = &pp->speed[i];
      }
    }
  }
done:
  return rc;
}

/* Silent data corruption (a Poisson stream over the job's nodes, every copy of every rank), verifications, and the
 * hazard-aware interval: where each is modelled, and their rates. */
static fl_err fl_sim_silent_and_hazard(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  /* silent data corruption: a Poisson stream over the job's nodes (every copy of every rank) */
  sim->sdc = isfinite(sc->sdc_mtbf_s);
  sim->verify = fl_strat_common(sc)->verify && sim->strat.levels;
  if (sim->sdc && sim->caps.shape != FL_SHAPE_RANKS) {
    rc = fl_scenario_fail(sc, "failures", "sdc_mtbf",
                          "silent data corruption is modelled for bsp jobs only (this one: %s)", sim->app->app->name);
    goto done;
  }
  if (fl_strat_common(sc)->verify && !sim->strat.levels) {
    rc = fl_scenario_fail(sc, "strategy", "verify", "'%s' takes no checkpoint: there is nothing to verify before",
                          sc->strategy);
    goto done;
  }
  sim->hazard = (sim->strat.rule->needs & FL_IRULE_HAZARD) && sim->strat.levels;
  sim->adapts = sim->strat.rule->next && sim->strat.levels;
  if (sim->hazard && (sim->caps.shape != FL_SHAPE_RANKS || sim->degree > 1 || !fl_fm_is_renewal(sim->fm) ||
                      (sim->strat.levels & (sim->strat.levels - 1u)))) {
    rc = fl_scenario_fail(sc, "strategy", "interval",
                          "hazard needs an unreplicated bsp job with one checkpoint level under a renewal failure "
                          "law (this one: %s, %s, failures.model = %s)",
                          sim->app->app->name, sc->strategy, sc->model);
    goto done;
  }
  sim->sdc_rate = sim->sdc ? (double)sim->slots / sc->sdc_mtbf_s : 0.0;
  sim->verify_s = fl_strat_common(sc)->verify_cost_s;
  sim->verify_recall =
      sim->degree > 1 ? 1.0 : fl_strat_common(sc)->verify_recall; /* copies that differ always show it */
  /* the rule prices the silent errors that cost a rollback: caught ones, and none under triplication's vote */
  fl_strat_set_sdc(&sim->strat, sim->sdc && sim->verify && sim->degree < 3 && sim->verify_recall > 0
                                    ? 1.0 / (sim->sdc_rate * sim->verify_recall)
                                    : INFINITY);
done:
  return rc;
}

/* The rates strategy.interval = multilevel prices the levels with: a group failure takes a rank and its partner at
 * once when the partner is in the same group. */
static void fl_sim_level_rates(fl_sim *sim)
{
  /* the rates strategy.interval = multilevel prices the levels with: a group failure takes a rank and its
   * partner at once when the partner is in the same group */
  double node = isfinite(sim->node_mtbf_s) ? (double)sim->slots / (sim->mnfti * sim->node_mtbf_s) : 0.0;
  double group = isfinite(sim->group_mtbf_s)
                     ? (double)((sim->slots + sim->group_size - 1) / sim->group_size) / sim->group_mtbf_s
                     : 0.0;
  int group_takes_partner = fl_iocost_partner_step(sim->pf, sim->ranks) < sim->group_size;
  fl_strat_set_rates(
      &sim->strat,
      &(fl_strat_rates){.crash = isfinite(sim->process_mtbf_s) ? (double)sim->ranks / sim->process_mtbf_s : 0.0,
                        .node = node + (group_takes_partner ? 0.0 : group),
                        .node_mtbf_s = sim->node_mtbf_s,
                        .group = group_takes_partner ? group : 0.0});
}

/* strategy.flush = async: a file-level checkpoint written to a level below and drained to files meanwhile. */
static fl_err fl_sim_async_flush(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  if (fl_strat_common(sc)->flush_async && fl_strat_reads(&sim->strat, "strategy.flush")) {
    unsigned lv = sim->strat.levels;
    if (!(lv & FL_LEVEL_BIT(FL_LEVEL_FILE)) ||
        !(lv & (FL_LEVEL_BIT(FL_LEVEL_LOCAL) | FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_XOR)))) {
      char names[64] = "";
      for (int l = 0; l < FL_NLEVELS; l++)
        if (lv & FL_LEVEL_BIT(l))
          snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? " " : "",
                   fl_level_name((fl_level)l));
      rc = fl_scenario_fail(sc, "strategy", "flush",
                            "async drains a checkpoint from a local, buddy or xor level to the file level: "
                            "strategy.levels needs both (this one's levels: %s)",
                            names);
      goto done;
    }
    if (sim->platform_costs && fl_strat_common(sc)->flush_slowdown > 0) {
      rc = fl_scenario_fail(sc, "strategy", "flush_slowdown",
                            "with platform costs the flush's interference is simulated (from app.comm_fraction); "
                            "leave this key out, or set strategy.cost = constant");
      goto done;
    }
    sim->flush_async = 1;
    sim->flush_stage = (lv & FL_LEVEL_BIT(FL_LEVEL_XOR))     ? FL_LEVEL_XOR
                       : (lv & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) ? FL_LEVEL_BUDDY
                                                             : FL_LEVEL_LOCAL;
    sim->flush_s = fl_strat_common(sc)->file_cost_s;
    sim->flush_slowdown = fl_strat_common(sc)->flush_slowdown;
    /* what a file-level checkpoint costs the job: the level below, and compute slowed while it drains */
    sim->strat.async_file_s = sim->strat.delta_s[sim->flush_stage] + sim->flush_slowdown * sim->flush_s;
  }
done:
  return rc;
}

/* Checkpoint and restart costs simulated on the platform (iocost.h), per level, and the interval they give. */
static fl_err fl_sim_platform_levels(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  fl_level primary = fl_strat_primary(&sim->strat);
  fl_iocost io;
  FL_TRY(fl_sim_link_regimes(sim, sc));
  FL_TRY(fl_sim_measure_io(sim, sc, &io));
  sim->io_by_server = io.by_server;
  for (int l = 1; l < FL_NLEVELS; l++)
    if (sim->strat.levels & FL_LEVEL_BIT(l)) {
      sim->strat.delta_s[l] = io.write_s[l];
      sim->restart_level_s[l] = io.read_s[l];
    }
  sim->restart_level_s[FL_LEVEL_SCRATCH] = 0.0; /* nothing to read back */
  if (sim->flush_async) {
    sim->flush_s = io.flush_s;
    sim->flush_slowdown = io.flush_slowdown;
    sim->strat.async_file_s = sim->strat.delta_s[sim->flush_stage] + sim->flush_slowdown * sim->flush_s;
  }
  fl_strat_observe(&sim->strat, primary, sim->strat.delta_s[primary]); /* Young/Daly with the simulated cost */
  sim->tau_s = fl_strat_interval(&sim->strat);
  sim->delta_s = sim->strat.delta_s[primary];
  sim->restart_s = sim->restart_level_s[primary];
done:
  return rc;
}

/* The job's placement and the levels' bookkeeping, reused by every replica. */
static fl_err fl_sim_job_arrays(fl_sim *sim)
{
  fl_err rc = FL_OK;
  sim->partner_step = fl_iocost_partner_step(sim->pf, sim->ranks);
  if (sim->strat.levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY))
    FL_ALLOC(sim->fail_epoch, sim->ranks);
  if (sim->strat.levels & FL_LEVEL_BIT(FL_LEVEL_XOR)) {
    FL_ALLOC(sim->xor_fail_epoch, sim->ranks);
    sim->xor_group = sim->strat.xor_group;
  }
  FL_ALLOC(sim->slot_node, sim->slots);
  FL_ALLOC(sim->node_slot, sim->nodes);
  FL_ALLOC(sim->alive, sim->ranks);
  FL_ALLOC(sim->spare, sim->nodes);
  FL_ALLOC(sim->spare_pos, sim->nodes);
  FL_ALLOC(sim->missing, sim->slots);
  FL_ALLOC(sim->missing_pos, sim->slots);
done:
  return rc;
}

fl_err fl_sim_create(const fl_scenario *sc, fl_sim **out)
{
  fl_err rc = FL_OK;
  fl_sim *sim = NULL;

  *out = NULL;
  FL_ALLOC(sim, 1);
  sim->failure_free_s = NAN;
  FL_TRY(fl_sim_pick(sc, sim)); /* the strategy first: the copies of a rank it runs need hosts too */
  FL_TRY(fl_scenario_check(sc));
  FL_TRY(fl_app_check(sc, sim->strat.degree));
  FL_TRY(fl_app_inputs(sc, &sim->inputs, &sim->ninputs));
  FL_TRY(fl_fm_create(sc, &sim->fm));
  /* everything about the input that needs no platform is checked: now load it, with the network and storage
   * its checkpoint costs are simulated on when they come from the platform */
  FL_TRY(fl_platform_get(sc, fl_sim_platform_form(sim, sc), sim->strat.degree, &sim->pf));
  sim->nodes = sim->platform_nodes = fl_platform_nodes(sim->pf);
  FL_TRY(fl_sim_engine_pick(sim));
  if (!sim->direct)
    fl_platform_realize(sim->pf); /* (the direct engine makes a generated platform in SimGrid only when it hands a
                                   * replica over) */
  FL_TRY(fl_platform_power(sim->pf, sc, &sim->power, &sim->power_u));
  sim->degree = sim->strat.degree;
  sim->ranks = sc->app_nodes > 0 ? sc->app_nodes : sim->nodes / sim->degree;
  if (sim->app->size)
    FL_TRY(sim->app->size(sim, sc));
  if (sim->strat.needs_dependents && !(sim->app->flags & FL_SIM_APP_DEPENDENTS)) {
    rc = fl_scenario_fail(sc, "policy", "kind",
                          "full-mip needs per-dependent substitutes: app.kind = workflow (this "
                          "one: %s)",
                          sim->app->app->name);
    goto done;
  }
  sim->slots = sim->ranks * sim->degree;
  if (sim->slots > sim->nodes || sim->ranks < 1) {
    rc = fl_scenario_fail(sc, "app", "nodes", "the job needs %ld ranks%s but platform '%s' has only %ld node%s",
                          sim->ranks, sim->degree > 1 ? (sim->degree == 2 ? " x 2 copies" : " x 3 copies") : "",
                          fl_platform_describe(sim->pf), sim->nodes, sim->nodes == 1 ? "" : "s");
    goto done;
  }
  FL_CHECK(sim->nodes <= INT32_MAX - 1, FL_ERR_INPUT, "at most %d nodes", INT32_MAX - 1);
  FL_TRY(fl_sim_hold(sim, sc));
  sim->e_base = 0.0;
  for (long n = 0; n < sim->nodes; n++) /* what the job holds draws power for it (idle unless computing) */
    sim->e_base += fl_sim_power(sim, n)->idle;

  FL_TRY(fl_sim_failure_log(sim, sc));

  sim->burst_ratio = sc->burst_ratio;
  sim->burst_time_s = sc->burst_time_s;
  /* bursts multiply the failure rate by 1 / (1 - ratio): the MTBF the rules and the rows see */
  sim->node_mtbf_s *= 1.0 - sim->burst_ratio;
  sim->process_mtbf_s = sc->process_mtbf_s;
  sim->group_mtbf_s = sc->group_mtbf_s;
  sim->group_size = sc->cabinet;
  if (isfinite(sim->process_mtbf_s) && (sim->caps.shape != FL_SHAPE_RANKS || sim->degree > 1)) {
    rc = fl_scenario_fail(sc, "failures", "process_mtbf",
                          "process crashes are modelled for unreplicated bsp jobs only (this one: %s%s)",
                          sim->app->app->name, sim->degree > 1 ? ", replicated" : "");
    goto done;
  }
  FL_TRY(fl_sim_profiles(sim));

  sim->work_s = sc->work_s;
  if (sim->app->work)
    sim->app->work(sim, sc);
  FL_TRY(fl_pol_mnfti(sim->degree, sim->ranks, &sim->mnfti));
  FL_TRY(fl_sim_silent_and_hazard(sim, sc));
  sim->delta_s = sim->strat.levels ? sc->checkpoint_cost_s : 0.0;
  sim->restart_s = sc->restart_cost_s;
  sim->downtime_s = sc->downtime_s;
  sim->repair_s = sc->repair_s;
  sim->max_time_s = sc->max_time_s;
  sim->max_events = sc->max_events;
  sim->start = sc->start;
  sim->seed = sc->seed;
  sim->model_name = fl_fm_name(sim->fm);
  fl_sim_level_rates(sim);
  FL_TRY(fl_sim_async_flush(sim, sc));
  if (sim->app->flags & FL_SIM_APP_JOBS) {
    /* many jobs, each with its own interval and costs (sim/workload/): nothing below is theirs */
    FL_TRY(sim->app->setup(sim, sc));
    sim->tau_s = NAN;
    sim->delta_s = NAN;
    sim->restart_s = NAN;
    fl_strat_row(&sim->strat, sc, &sim->row);
    *out = sim;
    sim = NULL;
    goto done;
  }
  FL_TRY(fl_strat_set_mtbf(sc, &sim->strat, fl_sim_job_mtbf(sim)));
  sim->tau_s = fl_strat_interval(&sim->strat);
  for (int l = 0; l < FL_NLEVELS; l++)
    sim->restart_level_s[l] = sc->restart_cost_s;
  if (sim->platform_costs)
    FL_TRY(fl_sim_platform_levels(sim, sc));
  if (!isfinite(sim->tau_s))
    sim->delta_s = 0.0;
  fl_strat_row(&sim->strat, sc, &sim->row);
  if (sim->row.policy) {
    snprintf(sim->policy, sizeof sim->policy, "%s", sim->row.policy);
    sim->row.policy = sim->policy;
  }

  if (sim->app->setup)
    FL_TRY(sim->app->setup(sim, sc));
  FL_TRY(fl_sim_job_arrays(sim));
  *out = sim;
  sim = NULL;
done:
  fl_sim_destroy(&sim);
  return rc;
}

/* A link's state profile (bsp): its outages are outages of the nodes it cuts off, those whose routes to two other
 * nodes of the platform both cross it (a node's own link, or the uplink of its part of the platform; a link on the
 * way to one other node only is someone else's). Appended to sim->profiles. */
static fl_err fl_sim_link_outages(fl_sim *sim, const fl_profiles *pp)
{
  fl_err rc = FL_OK;
  xbt_dynar_t route = NULL;
  if (pp->nlink_state == 0 || sim->nodes < 3)
    return FL_OK;
  route = xbt_dynar_new(sizeof(sg_link_t), NULL);
  for (size_t i = 0; i < pp->nlink_state; i++) {
    const fl_host_profile *lp = &pp->link_state[i];
    sg_link_t link = sg_link_by_name(lp->host);
    if (!link)
      continue;
    for (long n = 0; n < sim->nodes; n++) {
      int crossings = 0;
      for (long k = 0, seen = 0; k < sim->nodes && seen < 2; k++) {
        sg_link_t *v;
        unsigned long len;
        int on = 0;
        if (k == n)
          continue;
        seen++;
        xbt_dynar_reset(route);
        sg_host_get_route(fl_platform_host(sim->pf, n), fl_platform_host(sim->pf, k), route);
        v = (sg_link_t *)xbt_dynar_get_ptr(route, 0);
        len = xbt_dynar_length(route);
        for (unsigned long j = 0; j < len && v; j++)
          on |= v[j] == link;
        crossings += on;
      }
      if (crossings == 2) {
        fl_fsrc_profile *grown = realloc(sim->profiles, (sim->nprofiles + pp->n + 1) * sizeof *grown);
        FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
        sim->profiles = grown;
        sim->profiles[sim->nprofiles++] = fl_fsrc_profile_of(n, lp);
      }
    }
  }
done:
  xbt_dynar_free(&route);
  return rc;
}

/* Link profiles with platform costs: every combination of the profiled links' values (the declared one and each
 * of the profile's) is set on the platform and the levels' writes and reads probed; the declared values come back
 * after. At most FL_SIM_MAX_REGIMES combinations. */
#define FL_SIM_MAX_REGIMES 256
static fl_err fl_sim_link_regimes(fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  const fl_profiles *pp = fl_platform_profiles(sim->pf);
  sg_link_t *links = NULL;
  double *declared = NULL;
  size_t combos = 1;
  if (pp->nlink == 0)
    return FL_OK;
  for (size_t i = 0; i < pp->nlink; i++) {
    combos *= pp->link[i].n + 1;
    if (combos > FL_SIM_MAX_REGIMES) {
      rc = fl_scenario_fail(sc, "platform", "file",
                            "its links' bandwidth and latency profiles make more than %d combinations of values, "
                            "each a set of checkpoint costs to simulate; give fewer distinct values",
                            FL_SIM_MAX_REGIMES);
      goto done;
    }
  }
  FL_ALLOC(links, pp->nlink);
  FL_ALLOC(declared, pp->nlink);
  for (size_t i = 0; i < pp->nlink; i++) {
    links[i] = sg_link_by_name(pp->link[i].host);
    FL_CHECK(links[i] != NULL, FL_ERR_INPUT, "%s: link '%s' has a profile but SimGrid knows no such link",
             sc->platform_file, pp->link[i].host);
    declared[i] = pp->link_latency[i] ? sg_link_get_latency(links[i]) : sg_link_get_bandwidth(links[i]);
  }
  FL_ALLOC(sim->regime_write, combos * FL_NLEVELS);
  FL_ALLOC(sim->regime_read, combos * FL_NLEVELS);
  for (size_t c = 0; c < combos; c++) {
    fl_iocost io;
    size_t rest = c;
    for (size_t i = 0; i < pp->nlink; i++) {
      size_t k = rest % (pp->link[i].n + 1);
      double v = k == 0 ? declared[i] : pp->link[i].v[k - 1];
      rest /= pp->link[i].n + 1;
      if (pp->link_latency[i])
        sg_link_set_latency(links[i], v);
      else
        sg_link_set_bandwidth(links[i], v);
    }
    FL_TRY(fl_sim_measure_io(sim, sc, &io));
    for (int l = 0; l < FL_NLEVELS; l++) {
      sim->regime_write[c * FL_NLEVELS + (size_t)l] = io.write_s[l];
      sim->regime_read[c * FL_NLEVELS + (size_t)l] = io.read_s[l];
    }
  }
  sim->nregimes = combos;
done:
  for (size_t i = 0; links && declared && i < pp->nlink; i++)
    if (links[i]) {
      if (pp->link_latency[i])
        sg_link_set_latency(links[i], declared[i]);
      else
        sg_link_set_bandwidth(links[i], declared[i]);
    }
  free(links);
  free(declared);
  return rc;
}

void fl_sim_destroy(fl_sim **psim)
{
  fl_sim *sim = psim ? *psim : NULL;
  if (!sim)
    return;
  fl_fm_destroy(&sim->fm);
  fl_inputs_free(&sim->inputs, sim->ninputs);
  free(sim->power);
  free(sim->trace_node);
  free(sim->kill_work);
  free(sim->kill_node);
  free(sim->profiles);
  free(sim->speeds);
  free(sim->regime_write);
  free(sim->regime_read);
  free(sim->slot_node);
  free(sim->host_off);
  free(sim->offed);
  free(sim->node_slot);
  free(sim->alive);
  free(sim->fail_epoch);
  free(sim->xor_fail_epoch);
  free(sim->spare);
  free(sim->spare_pos);
  free(sim->missing);
  free(sim->missing_pos);
  if (sim->app && sim->app->destroy)
    sim->app->destroy(sim);
  free(sim);
  *psim = NULL;
}

void fl_sim_set_progress(fl_sim *sim, fl_progress *p, long replicas)
{
  sim->progress = p;
  sim->progress_replicas = replicas;
  sim->progress_expected_s = fl_sim_expected_makespan(sim);
}

int fl_sim_uses_key(const fl_sim *sim, const char *k)
{
  /* the strategy's and the policy's keys count when the strategy reads them; every other key shapes the run */
  if (strncmp(k, "strategy.", 9) == 0 && strcmp(k, "strategy.kind") != 0)
    return fl_strat_reads(&sim->strat, k);
  if (strncmp(k, "policy.", 7) == 0)
    return fl_strat_reads(&sim->strat, k);
  if (sim->app->uses_key) { /* the app's own say (a workload that does not checkpoint orders no checkpoint I/O) */
    int own = sim->app->uses_key(sim, k);
    if (own >= 0)
      return own;
  }
  return 1;
}

const fl_input *fl_sim_inputs(const fl_sim *sim, int *n)
{
  *n = sim->ninputs;
  return sim->inputs;
}
double fl_sim_node_mtbf(const fl_sim *sim)
{
  return sim->node_mtbf_s;
}
double fl_sim_job_mtbf(const fl_sim *sim)
{
  /* time to interruption: with replication, MNFTI failures of the slots' nodes; process crashes besides */
  double node = sim->mnfti * sim->node_mtbf_s / (double)sim->slots, rate;
  if (!isfinite(sim->process_mtbf_s) && !isfinite(sim->group_mtbf_s))
    return node;
  rate = 1.0 / node;
  if (isfinite(sim->process_mtbf_s))
    rate += (double)sim->ranks / sim->process_mtbf_s;
  if (isfinite(sim->group_mtbf_s)) /* the groups that hold the job's nodes (0..slots-1 at the start) */
    rate += (double)((sim->slots + sim->group_size - 1) / sim->group_size) / sim->group_mtbf_s;
  return rate > 0 ? 1.0 / rate : INFINITY;
}
double fl_sim_interval(const fl_sim *sim)
{
  return sim->tau_s;
}
const char *fl_sim_interval_rule(const fl_sim *sim)
{
  return sim->row.interval_rule;
}
double fl_sim_flush(const fl_sim *sim, double *slowdown)
{
  *slowdown = sim->flush_async ? sim->flush_slowdown : 0.0;
  return sim->flush_async ? sim->flush_s : NAN;
}
long fl_sim_level_every(const fl_sim *sim, int level)
{
  if (level <= FL_LEVEL_SCRATCH || level >= FL_NLEVELS || !(sim->strat.levels & FL_LEVEL_BIT(level)))
    return 0;
  return sim->strat.ops->level ? sim->strat.every[level] : 1;
}
int fl_sim_forks(const fl_sim *sim)
{
  return (sim->app->flags & (FL_SIM_APP_JOBS | FL_SIM_APP_SG_DATES)) != 0; /* their replicas run in a child */
}

int fl_sim_describe(const fl_sim *sim, const fl_scenario *sc, char *buf, size_t size)
{
  if (!sim->app->describe)
    return 0;
  sim->app->describe(sim, sc, buf, size);
  return 1;
}

const char *fl_sim_rerun_note(const fl_sim *sim, const char *written)
{
  return sim->app->rerun_note ? sim->app->rerun_note(sim, written) : NULL;
}

long fl_sim_platform_nodes(const fl_sim *sim)
{
  return sim->platform_nodes;
}
long fl_sim_ranks(const fl_sim *sim)
{
  return sim->ranks;
}
const char *fl_sim_unit(const fl_sim *sim)
{
  return sim->app->app->unit;
}

int fl_sim_io_by_server(const fl_sim *sim)
{
  return sim->io_by_server;
}

const char *fl_sim_cost_fallback(const fl_sim *sim)
{
  return sim->cost_fallback;
}

const char *fl_sim_advice(const fl_sim *sim)
{
  return sim->advice[0] ? sim->advice : NULL;
}

double fl_sim_failures_per_step(const fl_sim *sim, const char **step)
{
  double mtbf = fl_sim_job_mtbf(sim), per_segment, per_restart;
  *step = NULL;
  if (sim->caps.shape == FL_SHAPE_TASKS || (sim->app->flags & FL_SIM_APP_JOBS) || !isfinite(mtbf) ||
      !(mtbf > 0)) /* tasks: no job-wide interval; workloads: each job its own */
    return 0.0;
  per_segment = (isfinite(sim->tau_s) ? sim->tau_s + sim->delta_s : sim->work_s) / mtbf;
  per_restart = sim->restart_s / mtbf;
  if (per_restart > per_segment) {
    *step = "restart";
    return per_restart;
  }
  *step = isfinite(sim->tau_s) ? "checkpoint interval (compute + checkpoint)" : "run (no checkpoints)";
  return per_segment;
}

double fl_sim_level_cost(const fl_sim *sim, int level, int write)
{
  if (level <= FL_LEVEL_SCRATCH || level >= FL_NLEVELS || !(sim->strat.levels & FL_LEVEL_BIT(level)))
    return NAN;
  return write ? sim->strat.delta_s[level] : sim->restart_level_s[level];
}

int fl_sim_platform_costs(const fl_sim *sim)
{
  return sim->platform_costs;
}

int fl_sim_is_daly_model(const fl_sim *sim)
{
  if (!fl_fm_has(sim->fm, FL_FM_MEMORYLESS))
    return 0;
  unsigned two = FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_FILE);
  return sim->degree == 1 && sim->caps.shape == FL_SHAPE_RANKS && !(sim->app->flags & FL_SIM_APP_JOBS) &&
         (sim->strat.levels & two) != two;
}

double fl_sim_expected_makespan(const fl_sim *sim)
{
  if (sim->caps.shape == FL_SHAPE_TASKS)
    return sim->work_s;
  return fl_pol_expected_walltime(sim->work_s, isfinite(sim->tau_s) ? sim->tau_s : sim->work_s, sim->delta_s,
                                  sim->restart_s, sim->downtime_s, fl_sim_job_mtbf(sim));
}

fl_err fl_sim_before_fork(fl_sim *sim)
{
  if ((sim->app->flags & FL_SIM_APP_FREE_RUN) && !sim->in_child && !sim->free_run_done) {
    sim->free_run_done = 1;
    if (!fl_sim_never_fails(sim))
      return fl_sim_failure_free(sim);
  }
  return FL_OK;
}

int fl_sim_forkable(const fl_sim *sim)
{
  return !(sim->app->flags & FL_SIM_APP_JOBS);
}

fl_err fl_sim_run_replica(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log)
{
  fl_err rc;
  if ((sim->app->flags & FL_SIM_APP_FREE_RUN) && !sim->in_child && !sim->free_run_done) {
    sim->free_run_done = 1;
    if (!fl_sim_never_fails(sim) && (rc = fl_sim_failure_free(sim)) != FL_OK)
      return rc;
  }
  return fl_replica_run(sim, replica, res, log);
}

void fl_sim_fill_row(const fl_sim *sim, const fl_scenario *sc, long replica, const fl_sim_result *res, fl_db_run *row)
{
  fl_db_run_scenario(row, sc, "sim");
  row->app = sim->app->app->name;
  row->strategy = sim->row.strategy;
  row->failure_model = sim->model_name;
  row->interval_rule = sim->row.interval_rule;
  row->status = res->status;
  row->seed = sim->seed;
  row->replica = replica;
  row->nodes = sim->ranks;
  row->platform_nodes = sim->platform_nodes;
  row->job_nodes = sim->nodes;
  row->energy_j = res->energy_j;
  row->node_mtbf_s = sim->node_mtbf_s;
  row->repair_s = sim->repair_s;
  row->interval_s = sim->tau_s;
  row->checkpoint_cost_s = sim->strat.levels ? sim->delta_s : NAN;
  row->restart_cost_s = sim->restart_s;
  row->downtime_s = sim->downtime_s;
  row->work_s = sim->work_s;
  row->makespan_s = res->makespan_s;
  row->failures = res->failures;
  row->platform_failures = res->platform_failures;
  row->interruptions = res->interruptions;
  row->checkpoints = res->checkpoints;
  row->lost_work_s = res->lost_work_s;
  row->checkpoint_time_s = res->checkpoint_time_s;
  row->restart_time_s = res->restart_time_s;
  row->downtime_total_s = res->downtime_total_s;
  row->wait_nodes_s = res->wait_nodes_s;
  row->wall_s = res->wall_s;
  row->policy = sim->row.policy;
  row->weights = sim->row.weights;
  row->error_budget = sim->row.error_budget;
  row->iterations = res->iterations;
  row->converged_at = res->converged_at;
  row->complete_iterations = res->complete_iterations;
  row->error_linf = res->error_linf;
  row->error_l1 = res->error_l1;
  row->tasks_replicated = res->tasks_replicated;
  row->tasks_substituted = res->tasks_substituted;
  row->tasks_stale = res->tasks_stale;
  row->policy_solver = res->policy_solver;
  row->policy_time_s = res->policy_time_s;
  row->policy_gap = res->policy_gap;
  row->sdc_injected = res->sdc_injected;
  row->sdc_detected = res->sdc_detected;
  row->sdc_silent = res->sdc_silent;
  row->verify_time_s = res->verify_time_s;
  row->controller = fl_platform_controller_name(sim->pf);
  row->inputs = sim->inputs;
  row->ninputs = sim->ninputs;
  row->tasks_lost = res->tasks_lost;
  row->error_spent = res->error_spent;
  row->policy_objective = res->policy_objective;
  row->failure_free_s = sim->failure_free_s;
  if ((sim->app->flags & FL_SIM_APP_FREE_RUN) && fl_sim_never_fails(sim))
    row->failure_free_s = strcmp(res->status, "completed") == 0 ? res->makespan_s : NAN; /* it is the run */
  if (sim->app->row)
    sim->app->row(sim, res, row);
}
