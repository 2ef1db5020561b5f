/* setup.c — the workflow app's set-up (see workflow_run.h): the graph read and checked, HEFT's schedule on the
 * platform's hosts, their memory and serial fractions, the run's arrays; and their release. */
#include "workflow_run.h"

/* A host's memory (0: no limit): its <prop id="memory"> (a size: 64GiB, 512e9), else platform.node_memory. */
static fl_err fl_wf_host_memory(const fl_scenario *sc, sg_host_t h, double *mem)
{
  const char *v = sg_host_get_property_value(h, "memory");
  *mem = sc->node_memory;
  if (v && (fl_units_bytes(v, mem) != FL_OK || !(*mem >= 0)))
    return fl_err_set(FL_ERR_INPUT, "platform: host '%s': <prop id=\"memory\" value=\"%s\">: not a size (64GiB, 512e9)",
                      sg_host_get_name(h), v);
  return FL_OK;
}

/* app.serial_fraction: F for every task, or by stage STAGE:F,...,*:F (a task of no listed stage and no *: 0). */
static fl_err fl_wf_serial_fractions(fl_wfrun *w, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  const char *spec = fl_workflow_options(sc)->serial_fraction;
  char *copy = NULL, *save = NULL;
  long n = w->wf->ntasks;
  double other = 0.0;
  if (!spec || !*spec)
    return FL_OK;
  FL_ALLOC(w->serial, n);
  for (long i = 0; i < n; i++)
    w->serial[i] = NAN;
  FL_CHECK((copy = strdup(spec)) != NULL, FL_ERR_NOMEM, "out of memory");
  for (char *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(term, ':'), *name = term, *num = term, *end = NULL;
    double f;
    while (*name == ' ')
      name++;
    if (colon) {
      *colon = '\0';
      num = colon + 1;
    }
    f = strtod(num, &end);
    if (end == num || *end != '\0' || !(f >= 0 && f <= 1) || (colon && !*name)) {
      rc = fl_scenario_fail(sc, "app", "serial_fraction",
                            "term '%s%s%s': expected F in [0, 1], or STAGE:F,...,*:F (e.g. 0.05, or mAdd:0.3,*:0.05)",
                            colon ? name : "", colon ? ":" : "", num);
      goto done;
    }
    if (!colon || strcmp(name, "*") == 0)
      other = f;
    else
      for (long i = 0; i < n; i++)
        if (strcmp(name, w->wf->task[i].stage) == 0)
          w->serial[i] = f;
  }
  for (long i = 0; i < n; i++)
    if (isnan(w->serial[i]))
      w->serial[i] = other;
done:
  free(copy);
  return rc;
}
static const double *fl_sort_start;
static const long *fl_sort_pos;
static int fl_cmp_start(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  if (fl_sort_start[x] != fl_sort_start[y])
    return fl_sort_start[x] < fl_sort_start[y] ? -1 : 1;
  return (fl_sort_pos[x] > fl_sort_pos[y]) - (fl_sort_pos[x] < fl_sort_pos[y]);
}

/* The task graph: the grid world's sweeps (app.graph = gridworld, with its failure-free reference run), or the
 * file's tasks with their runtimes; the substitutes (a file, or the stage rule, said when it leaves most tasks
 * none). *path: what the messages name it by. */
static fl_err fl_wfr_graph(fl_wfrun *w, fl_sim *sim, const fl_scenario *sc, char **path)
{
  fl_err rc = FL_OK;
  char *subs = NULL;
  const fl_workflow_opts *wo = fl_workflow_options(sc);
  if (fl_workflow_graph_generated(sc)) {
    long it = 0;
    const fl_gridworld_opts *go = fl_gridworld_options(sc);
    FL_TRY(fl_gw_create(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, go->discount, go->move_prob, sc->seed,
                        &w->gw));
    FL_TRY(fl_wf_gridworld(fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, fl_grid_options(sc)->iterations,
                           go->task_time_s * wo->reference_speed, fl_gw_bound(w->gw), &w->wf));
    FL_ALLOC(w->val, w->wf->ntasks);
    FL_ALLOC(w->ref, w->gw->n);
    FL_ALLOC(w->sink_sub, w->wf->ntasks);
    /* the failure-free run of the same sweeps (tolerance 0: all of them) */
    FL_CHECK(fl_gw_solve(w->gw, 0.0, fl_grid_options(sc)->iterations, w->ref, &it) >= 0, FL_ERR_NOMEM, "out of memory");
    w->empirical = fl_strat_weights_empirical(&sim->strat);
    FL_CHECK((*path = strdup("gridworld")) != NULL, FL_ERR_NOMEM, "out of memory");
  } else {
    *path = fl_scenario_resolve(sc, wo->graph);
    FL_CHECK(*path != NULL, FL_ERR_NOMEM, "out of memory");
    if (wo->task_runtime && fl_wf_runtime_check(wo->task_runtime) != FL_OK) {
      char msg[400];
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
      rc = fl_scenario_fail(sc, "app", "task_runtime", "%s", msg);
      goto done;
    }
    FL_TRY(fl_wf_load_runtimes(*path, wo->reference_speed, wo->task_runtime, &w->wf));
  }
  if (wo->substitutes) {
    subs = fl_scenario_resolve(sc, wo->substitutes);
    FL_CHECK(subs != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_wf_subs_file(w->wf, subs));
  } else if (wo->substitute_rule == 0 && !w->gw) {
    FL_TRY(fl_wf_subs_rule(w->wf, wo->substitute_max_diff, 2));
    if (sim->strat.ops->decide_tasks) { /* a strategy that may substitute (substitution, hybrid) */
      /* a rule that gives most tasks no substitute turns substitution into re-execution: said, not silent */
      long alone = 0, N = w->wf->ntasks;
      for (long i = 0; i < N; i++)
        alone += w->wf->sub_start[i + 1] == w->wf->sub_start[i];
      if (2 * alone > N)
        snprintf(sim->advice, sizeof sim->advice,
                 "%s: app.substitute_rule = stage gives %ld of %ld tasks no substitute (none of their stage, their "
                 "category or the start of their name, has input sizes within app.substitute_max_diff): %s "
                 "re-executes those; app.substitutes names substitutes explicitly",
                 wo->graph, alone, N, sim->strat.ops->name);
    }
  }
done:
  free(subs);
  return rc;
}

/* The hosts: speed, cores and memory each, every task placeable somewhere (cores, memory), storage reachable from
 * the controller when the outputs are shared or the inputs staged, routes between any two nodes. */
static fl_err fl_wfr_hosts(fl_wfrun *w, fl_sim *sim, const fl_scenario *sc, const char *path)
{
  fl_err rc = FL_OK;
  const fl_workflow_opts *wo = fl_workflow_options(sc);
  long n = w->wf->ntasks;
  long most = 0;
  double most_mem = 0.0; /* the largest memory a host has; INFINITY: some host has no limit */
  for (long p = 0; p < w->H; p++) {
    w->host[p] = fl_platform_host(sim->pf, p);
    w->speed[p] = sg_host_get_speed(w->host[p]);
    w->cores[p] = sg_host_core_count(w->host[p]);
    most = w->cores[p] > most ? w->cores[p] : most;
    FL_TRY(fl_wf_host_memory(sc, w->host[p], &w->mem[p]));
    most_mem = w->mem[p] > 0 ? fmax(most_mem, w->mem[p]) : INFINITY;
  }
  w->host[w->H] = fl_platform_controller(sim->pf);
  FL_TRY(fl_wf_classes(w));
  FL_TRY(fl_wf_serial_fractions(w, sc));
  for (long i = 0; i < n; i++)
    if (w->wf->task[i].memory > 0 && !w->tmem) {
      FL_ALLOC(w->tmem, n);
      for (long k = 0; k < n; k++)
        w->tmem[k] = w->wf->task[k].memory;
    }
  for (long i = 0; w->tmem && i < n; i++)
    if (w->tmem[i] > most_mem) {
      rc = fl_err_set(FL_ERR_INPUT,
                      "%s: task '%s' needs %.6g bytes of memory but no host of platform '%s' has more than %.6g "
                      "(platform.node_memory, or a host's <prop id=\"memory\">): no host can run it",
                      path, w->wf->task[i].name, w->tmem[i], fl_platform_describe(sim->pf), most_mem);
      goto done;
    }
  w->shared = wo->outputs_shared;
  if (wo->stage_inputs)
    for (long i = 0; i < n && !w->staged; i++)
      if (w->wf->task[i].staged_bytes > 0) {
        FL_ALLOC(w->staged, n);
        for (long k = 0; k < n; k++)
          w->staged[k] = w->wf->task[k].staged_bytes;
      }
  for (int why = 0; why < 2; why++) { /* the controller stands for storage: it must reach the nodes */
    const char *key = why ? "stage_inputs" : "outputs";
    const char *what = why ? "the workflow's inputs are staged on" : "shared storage is read from";
    if (!(why ? w->staged != NULL : w->shared))
      continue;
    if (strcmp(fl_sg_zone_name(w->host[w->H]), fl_sg_zone_name(w->host[0])) != 0) {
      rc = fl_scenario_fail(sc, "app", key,
                            "%s the controller host %s, which must be in the zone of the nodes (%s "
                            "is in zone '%s', %s in zone '%s') in platform '%s'%s",
                            what, sg_host_get_name(w->host[w->H]), sg_host_get_name(w->host[w->H]),
                            fl_sg_zone_name(w->host[w->H]), sg_host_get_name(w->host[0]), fl_sg_zone_name(w->host[0]),
                            fl_platform_describe(sim->pf),
                            why ? "" : " (app.outputs = local keeps outputs on their hosts only)");
      goto done;
    }
    if (!(sg_host_get_route_bandwidth(w->host[w->H], w->host[0]) > 0)) {
      rc = fl_scenario_fail(sc, "app", key, "%s the controller host %s, but platform '%s' has no route from it to %s%s",
                            what, sg_host_get_name(w->host[w->H]), fl_platform_describe(sim->pf),
                            sg_host_get_name(w->host[0]),
                            why ? "" : " (app.outputs = local keeps outputs on their hosts only)");
      goto done;
    }
  }
  /* tasks move their outputs between any two nodes, and HEFT prices those routes */
  FL_TRY(fl_platform_check_routes(sim->pf, sc, w->host, w->H,
                                  "the tasks of a workflow move data between any two "
                                  "nodes"));
  for (long i = 0; i < n; i++) {
    w->tcores[i] = w->wf->task[i].cores;
    if (w->tcores[i] > most && !w->serial) {
      rc = fl_err_set(FL_ERR_INPUT,
                      "%s: task '%s' needs %ld cores but no host of platform '%s' has more than %ld: no "
                      "host can run it",
                      path, w->wf->task[i].name, w->tcores[i], fl_platform_describe(sim->pf), most);
      goto done;
    }
  }
done:
  return rc;
}

/* The static schedule (HEFT, or app.scheduler's) on the platform, with the mean latency and bandwidth over a sample
 * of host pairs, and the order each host runs its tasks in: the schedule's start times (a topological order). */
static fl_err fl_wfr_schedule(fl_wfrun *w)
{
  fl_err rc = FL_OK;
  long n = w->wf->ntasks, E = w->wf->nedges, *tmp = NULL, *pos = NULL;
  /* HEFT on the platform: mean latency and bandwidth over a sample of host pairs */
  double lat[256], bws[256];
  long pairs = 0;
  fl_heft_graph *g = &w->dag;
  fl_heft_hosts *h = &w->dh;
  *g = (fl_heft_graph){.ntasks = n,
                       .nedges = E,
                       .edge_src = w->wf->edge_src,
                       .edge_dst = w->wf->edge_dst,
                       .edge_bytes = w->wf->edge_bytes,
                       .child_start = w->wf->child_start,
                       .parent_start = w->wf->parent_start,
                       .parent_edge = w->wf->parent_edge,
                       .topo = w->wf->topo,
                       .cores = w->tcores,
                       .staged_bytes = w->staged,
                       .memory = w->tmem,
                       .serial = w->serial};
  *h = (fl_heft_hosts){.nhosts = w->H,
                       .speed = w->speed,
                       .cores = w->cores,
                       .memory = w->mem,
                       .comm = fl_wf_comm,
                       .stage = fl_wf_stage,
                       .ctx = w,
                       .candidates = 16};
  for (long k = 0; k < 256 && w->H > 1; k++) {
    long a = (k * 7919L) % w->H, b = (k * 104729L + 1) % w->H;
    double bw;
    if (a == b)
      continue;
    bw = sg_host_get_route_bandwidth(w->host[a], w->host[b]);
    FL_CHECK(bw > 0, FL_ERR_INPUT, "platform: no route between hosts %s and %s: a workflow moves files between hosts",
             sg_host_get_name(w->host[a]), sg_host_get_name(w->host[b]));
    lat[pairs] = sg_host_get_route_latency(w->host[a], w->host[b]);
    bws[pairs++] = bw;
  }
  h->mean_latency = pairs ? fl_heft_mean(lat, pairs) : 0.0;
  h->mean_bandwidth = pairs ? fl_heft_harmonic_mean(bws, pairs) : INFINITY;
  FL_ALLOC(w->flops, n);
  for (long i = 0; i < n; i++)
    w->flops[i] = w->wf->task[i].flops;
  g->flops = w->flops;
  FL_TRY(w->sched->schedule(g, h, &w->hs));
  /* the order each host runs its tasks in: the schedule's start times (a topological order) */
  FL_ALLOC(w->prio, n);
  FL_ALLOC(tmp, n);
  FL_ALLOC(pos, n);
  for (long i = 0; i < n; i++) {
    tmp[i] = i;
    pos[w->wf->topo[i]] = i;
  }
  fl_sort_start = w->hs.start;
  fl_sort_pos = pos;
  qsort(tmp, (size_t)n, sizeof *tmp, fl_cmp_start);
  for (long i = 0; i < n; i++)
    w->prio[tmp[i]] = i;
done:
  free(tmp);
  free(pos);
  return rc;
}

/* The per-replica state of the tasks, edges and hosts (reset by each replica). */
static fl_err fl_wfr_arrays(fl_wfrun *w, int stage_cache)
{
  fl_err rc = FL_OK;
  long n = w->wf->ntasks, E = w->wf->nedges;
  FL_ALLOC(w->state, n);
  FL_ALLOC(w->where, n);
  FL_ALLOC(w->out_host, n);
  FL_ALLOC(w->esrc, E);
  FL_ALLOC(w->edge_at, E);
  FL_ALLOC(w->ecomm_dst, E);
  FL_ALLOC(w->eclaim, E);
  FL_ALLOC(w->twinned, E);
  FL_ALLOC(w->efrom, E);
  for (long e = 0; e < E; e++)
    if (w->wf->edge_data[e] != e)
      w->twinned[e] = w->twinned[w->wf->edge_data[e]] = 1;
  FL_ALLOC(w->ecomm, E);
  FL_ALLOC(w->borrow_head, n);
  FL_ALLOC(w->up, w->H + 1);
  FL_ALLOC(w->running, w->H);
  FL_ALLOC(w->stagec, w->H);
  if (w->staged && stage_cache && w->wf->staged_start) {
    FL_ALLOC(w->cached, w->H);
    FL_ALLOC(w->ncached, w->H);
    FL_ALLOC(w->capcached, w->H);
  }
  FL_ALLOC(w->q, w->H);
  FL_ALLOC(w->queued_s, w->H);
  FL_ALLOC(w->outs, w->H);
  FL_ALLOC(w->nouts, w->H);
  FL_ALLOC(w->capouts, w->H);
  FL_ALLOC(w->sem, w->H);
  FL_ALLOC(w->worker, w->H);
  FL_ALLOC(w->orphan, n);
  FL_ALLOC(w->lost, n);
  FL_ALLOC(w->ndep, n);
  FL_ALLOC(w->stamp, n);
  FL_ALLOC(w->subst, n);
  FL_ALLOC(w->weight, n);
  FL_ALLOC(w->sub_of, n);
  FL_ALLOC(w->sub_wt, n);
done:
  return rc;
}

fl_err fl_wfr_create(fl_sim *sim, const fl_scenario *sc, fl_wfrun **out)
{
  fl_err rc = FL_OK;
  fl_wfrun *w = NULL;
  char *path = NULL;
  const fl_workflow_opts *wo = fl_workflow_options(sc);

  *out = NULL;
  FL_ALLOC(w, 1);
  w->sched = &fl_dag_heft;
  if (fl_scenario_given(sc, "app", "scheduler") && !(w->sched = fl_dag_sched_find(fl_sched_name(sc)))) {
    char names[128];
    rc = fl_scenario_fail(sc, "app", "scheduler", "a workflow's static scheduler: %s",
                          fl_dag_sched_names(names, sizeof names));
    goto done;
  }
  FL_TRY(fl_wfr_graph(w, sim, sc, &path));
  w->H = sim->ranks;
  w->budget = ((const fl_pol_opts *)fl_scenario_options(sc, &fl_pol_keys))->error_budget;
  FL_ALLOC(w->host, w->H + 1);
  FL_ALLOC(w->speed, w->H);
  FL_ALLOC(w->cores, w->H);
  FL_ALLOC(w->tcores, w->wf->ntasks);
  FL_ALLOC(w->mem, w->H);
  FL_TRY(fl_wfr_hosts(w, sim, sc, path));
  FL_ALLOC(w->cache_key, 65536);
  FL_ALLOC(w->cache_lat, 65536);
  FL_ALLOC(w->cache_bw, 65536);
  FL_TRY(fl_wfr_schedule(w));
  FL_TRY(fl_wfr_arrays(w, wo->stage_cache));
  sim->work_s = w->hs.makespan; /* the failure-free schedule's length */
  *out = w;
  w = NULL;
done:
  free(path);
  fl_wfr_destroy(&w);
  return rc;
}

void fl_wfr_destroy(fl_wfrun **pw)
{
  fl_wfrun *w = pw ? *pw : NULL;
  if (!w)
    return;
  for (long p = 0; w->q && p < w->H; p++)
    free(w->q[p].v);
  for (long p = 0; w->outs && p < w->H; p++)
    free(w->outs[p]);
  for (long e = 0; w->ecomm && e < w->wf->nedges; e++)
    fl_sgc_unref(w->ecomm[e]);
  fl_wf_free_dropped(w);
  free(w->dropped);
  if (w->sem)
    for (long p = 0; p < w->H; p++)
      if (w->sem[p])
        sg_sem_destroy(w->sem[p]);
  fl_heft_free(&w->hs);
  fl_wf_destroy(&w->wf);
  fl_gw_destroy(&w->gw);
  free(w->val);
  free(w->ref);
  free(w->sink_sub);
  free(w->host);
  free(w->speed);
  free(w->cores);
  free(w->mem);
  free(w->tmem);
  free(w->serial);
  free(w->flops);
  free(w->cls_of);
  free(w->cls_pos);
  free(w->cls_start);
  free(w->cls_size);
  free(w->cls_host);
  free(w->tree_key);
  free(w->tree_arg);
  free(w->tcores);
  free(w->prio);
  free(w->cache_key);
  free(w->cache_lat);
  free(w->cache_bw);
  free(w->state);
  free(w->where);
  free(w->out_host);
  free(w->esrc);
  free(w->edge_at);
  free(w->ecomm_dst);
  free(w->eclaim);
  free(w->twinned);
  free(w->efrom);
  free(w->ecomm);
  free(w->borrow_head);
  free(w->borrow);
  free(w->up);
  free(w->running);
  free(w->stagec);
  for (long p = 0; w->cached && p < w->H; p++)
    free(w->cached[p]);
  free(w->cached);
  free(w->ncached);
  free(w->capcached);
  free(w->staged);
  free(w->q);
  free(w->queued_s);
  free(w->outs);
  free(w->nouts);
  free(w->capouts);
  free(w->sem);
  free(w->worker);
  free(w->orphan);
  free(w->lost);
  free(w->ndep);
  free(w->stamp);
  free(w->subst);
  free(w->weight);
  free(w->sub_of);
  free(w->sub_wt);
  free(w->t_i);
  free(w->t_j);
  free(w->t_k);
  free(w->t_edge);
  free(w->t_by);
  free(w->t_w);
  free(w->t_cross);
  free(w);
  *pw = NULL;
}
