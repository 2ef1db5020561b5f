/* setup.c — the workload app's set-up (see workload_run.h): the jobs' source (a trace streamed or held sorted, or
 * generated jobs), each job's copies, interval and costs, the failure-free replay, and the isolated checkpoint costs
 * probed on the platform per job size and level. */
#include "workload_run.h"

void fl_wlr_destroy(fl_wlrun **pw)
{
  if (!pw || !*pw)
    return;
  fl_wlrun *w = *pw;
  fl_swf_destroy(&w->trace);
  free(w->path);
  free(w->sizes);
  free(w->cost);
  free(w->pfs_host);
  free(w->pfs_disk);
  free(w->cab_host);
  free(w->disk_name);
  for (int b = 0; b < 2; b++)
    if (w->rowsf[b])
      fclose(w->rowsf[b]);
  free(w);
  *pw = NULL;
}

/* Isolated checkpoint costs, one per distinct job size, simulated in a child process. */
typedef struct fl_wl_probe {
  fl_sim *sim;
  const fl_scenario *sc;
  const long *sizes;
  const double *bytes; /* per probe, bytes a node writes (NULL: app.checkpoint_size) */
  long n;
  unsigned levels; /* the strategy's: a probe's cost of each (NAN: not probed) */
} fl_wl_probe;

/* The levels a job of n nodes can write: all, but for one node none that needs another (buddy, XOR). */
unsigned fl_wl_level_mask(long n)
{
  return n > 1 ? ~0u : ~(FL_LEVEL_BIT(FL_LEVEL_BUDDY) | FL_LEVEL_BIT(FL_LEVEL_XOR));
}

/* The level a checkpoint of a job of n nodes goes to when the strategy says `l`: a job of one node has no partner
 * and no XOR set, so those checkpoints go to files when the strategy writes files, else it takes none (scratch). */
fl_level fl_wl_level(const fl_wlrun *w, long n, fl_level l)
{
  if (!(fl_wl_level_mask(n) & FL_LEVEL_BIT(l)))
    return (w->levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) ? FL_LEVEL_FILE : FL_LEVEL_SCRATCH;
  return l;
}

static fl_err fl_wl_probe_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_wl_probe *p = ctx;
  for (long i = 0; i < p->n; i++) {
    fl_iocost io;
    fl_scenario sc = *p->sc; /* a shallow copy, read only, in this child */
    /* a job of one node has no partner: its buddy level is not probed (fl_wl_level) */
    unsigned mask = fl_wl_level_mask(p->sizes[i]), levels = p->levels & mask;
    unsigned written[FL_NLEVELS];
    double c[FL_NLEVELS];
    for (int l = 0; l < FL_NLEVELS; l++) { /* (a two-level file checkpoint refreshes the partner copies) */
      written[l] = p->sim->strat.writes[l] & mask;
      c[l] = NAN;
    }
    if (p->bytes)
      sc.checkpoint_size = p->bytes[i];
    if (levels) {
      FL_TRY(fl_iocost_measure(p->sim->pf, &sc, p->sizes[i], levels, written, p->sim->strat.xor_group, &io));
      for (int l = 0; l < FL_NLEVELS; l++)
        if (levels & FL_LEVEL_BIT(l))
          c[l] = io.write_s[l];
    }
    FL_CHECK(fwrite(c, sizeof c, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
  }
done:
  return rc;
}

#define FL_WL_REF_BYTES 1073741824.0 /* app.checkpoint_memory: the bytes a node writes in the first probe */

/* A checkpoint of `bytes` a node, from the costs at FL_WL_REF_BYTES (c1) and twice that (c2). */
static double fl_wl_cost_at(double c1, double c2, double bytes)
{
  return c1 + (c2 - c1) * (bytes / FL_WL_REF_BYTES - 1.0);
}

static int fl_long_cmp(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

fl_err fl_wl_src_open(const fl_wlrun *w, fl_wlsrc *src)
{
  memset(src, 0, sizeof *src);
  src->w = w;
  if (w->trace)
    return FL_OK;
  return w->generated ? fl_swf_open_generated(&w->gen, &src->s) : fl_swf_open(w->path, w->cores_per_node, &src->s);
}

/* The next job (*got = 1), or none left (*got = 0): the first w->njobs of the trace. */
fl_err fl_wl_src_next(fl_wlsrc *src, fl_swf_job *j, int *got)
{
  fl_err rc = FL_OK;
  *got = 0;
  if (src->next >= src->w->njobs)
    return FL_OK;
  if (src->s) {
    rc = fl_swf_next(src->s, j, got);
  } else {
    *j = src->w->trace->jobs[src->next];
    *got = 1;
  }
  src->next += *got;
  return rc;
}

void fl_wl_src_close(fl_wlsrc *src)
{
  fl_swf_close(&src->s);
}

/* The copies a job of n nodes runs: the strategy's degree, or as many as fit the machine (one, for a job of more
 * than half of it under duplication: the CLI says how many) */
long fl_wl_copies(const fl_wlrun *w, long n)
{
  return n * w->degree <= w->machine ? w->degree : w->machine / n;
}

/* A node's checkpoint bytes for job t (app.checkpoint_memory: the trace's KB per processor, over its nodes; a job
 * whose line gives no memory writes app.checkpoint_size) */
static double fl_wl_job_bytes(const fl_wlrun *w, const fl_swf_job *t)
{
  if (w->jbytes && t->mem_kb > 0)
    return t->mem_kb * 1024.0 * (double)t->procs / (double)t->nodes;
  return w->bytes;
}

/* What a job needs as it arrives: its copies, bytes, interval and costs, from its size's probes (set-up). */
fl_err fl_wl_params(const fl_wlrun *w, const fl_sim *sim, const fl_swf_job *t, fl_wlj *jb)
{
  fl_err rc = FL_OK;
  long n = t->nodes, ns = w->nsizes;
  jb->copies = fl_wl_copies(w, n);
  jb->bytes = fl_wl_job_bytes(w, t);
  jb->tau_s = INFINITY;
  jb->delta_s = NAN;
  if (!w->ckpt)
    return FL_OK;
  long k = (long)((long *)bsearch(&n, w->sizes, (size_t)ns, sizeof *w->sizes, fl_long_cmp) - w->sizes);
  double c[FL_NLEVELS], mnfti = 1.0, mtbf, delta;
  fl_level primary;
  for (int l = 0; l < FL_NLEVELS; l++) /* each level's isolated cost */
    c[l] = w->jbytes ? fl_wl_cost_at(w->cost[FL_NLEVELS * k + l], w->cost[FL_NLEVELS * (ns + k) + l], jb->bytes)
                     : w->cost[FL_NLEVELS * k + l];
  /* the rule prices the cheapest level the job writes (the strategy's primary; a job of one node: files) */
  primary = fl_wl_level(w, n, fl_strat_primary(&sim->strat));
  delta = primary == FL_LEVEL_SCRATCH ? NAN : c[primary]; /* none: no checkpoint */
  jb->delta_s = c[FL_LEVEL_FILE];
  /* time to interruption: with copies, MNFTI failures of its nodes x degree (as the bsp engine prices it) */
  FL_TRY(fl_pol_mnfti(jb->copies, n, &mnfti));
  mtbf = mnfti * sim->node_mtbf_s / (double)(n * jb->copies);
  if (!w->rule->by_mtbf || (isfinite(mtbf) && !isnan(delta))) /* each job's own, by its size and its cost */
    jb->tau_s = w->rule->tau(delta, mtbf, w->interval_s);
  if (!(jb->tau_s > 0) || isnan(delta))
    jb->tau_s = INFINITY;
  if (w->coop) {
    jb->mtbf_s = mtbf;
    jb->cost_s = isfinite(jb->tau_s) ? delta : INFINITY; /* INFINITY: it does not checkpoint */
    jb->load_s = (double)n * jb->bytes / w->pfs_bps;
  }
done:
  return rc;
}

typedef struct fl_wl_ffctx {
  const fl_wlrun *w;
  fl_wlsrc src;
  double t0, t1;
} fl_wl_ffctx;

static fl_err fl_wl_ff_next(void *ctx, fl_batch_job *job, int *got)
{
  fl_wl_ffctx *f = ctx;
  fl_swf_job t;
  fl_err rc = fl_wl_src_next(&f->src, &t, got);
  if (rc == FL_OK && *got) {
    *job = (fl_batch_job){
        .submit_s = t.submit_s, .run_s = t.run_s, .est_s = t.req_s, .nodes = t.nodes * fl_wl_copies(f->w, t.nodes)};
    f->t0 = fmin(f->t0, t.submit_s);
  }
  return rc;
}

static void fl_wl_ff_started(void *ctx, long job, double start_s, double run_s)
{
  fl_wl_ffctx *f = ctx;
  (void)job;
  f->t1 = fmax(f->t1, start_s + run_s);
}

/* One of the jobs the run takes, at set-up: it fits the machine and, checkpointing its memory, says how much; its
 * size noted (seen[nodes], w->nsizes) and whether it runs fewer copies than the strategy's degree (w->fewer). */
static fl_err fl_wl_check_job(fl_wlrun *w, const fl_sim *sim, const fl_scenario *sc, const fl_swf_job *j,
                              unsigned char *seen)
{
  if (j->nodes > w->machine)
    return fl_err_set(FL_ERR_INPUT,
                      "%s:%ld: field 5 (allocated processors) '%ld': %ld nodes at app.cores_per_node = %ld, larger "
                      "than the machine (%ld nodes of platform '%s')",
                      w->path, j->line, j->procs, j->nodes, w->cores_per_node, w->machine,
                      fl_platform_describe(sim->pf));
  if (w->jbytes && !(fl_wl_job_bytes(w, j) > 0))
    return fl_scenario_fail(sc, "app", "checkpoint_size",
                            "%s:%ld: job %ld gives no memory (fields 7 and 10) for app.checkpoint_memory: give the "
                            "bytes a node of such a job writes",
                            w->path, j->line, j->id);
  w->fewer += fl_wl_copies(w, j->nodes) < w->degree;
  if (!seen[j->nodes]) {
    seen[j->nodes] = 1;
    w->nsizes++;
  }
  return FL_OK;
}

/* Once through the jobs: every line checked (as the trace's reader checks them), the first app.jobs jobs (all
 * without it) counted, checked against the machine, and their sizes noted (w->sizes, increasing, with room for one
 * more); nothing of them is kept, unless the trace is out of submit order (then held whole, sorted). */
static fl_err fl_wl_scan_jobs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  const fl_workload_opts *wo = fl_workload_options(sc);
  /* once through the jobs: every line checked (as the trace's reader checks them), the first app.jobs jobs (all
   * without it) counted, checked against the machine, and their sizes noted; nothing of them is kept */
  fl_swf_stream *st = NULL;
  unsigned char *seen = NULL;
  long limit = wo->jobs > 0 ? wo->jobs : LONG_MAX, n = 0;
  int got = 1;
  if (w->generated) {
    if ((rc = fl_swf_open_generated(&w->gen, &st)) != FL_OK) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "%s", fl_err_msg());
      goto done;
    }
  } else {
    FL_TRY(fl_swf_open(w->path, wo->cores_per_node, &st));
  }
  if ((seen = calloc((size_t)w->machine + 1, 1)) == NULL)
    rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
  while (rc == FL_OK) {
    fl_swf_job j;
    if ((rc = fl_swf_next(st, &j, &got)) != FL_OK || !got)
      break;
    if (n >= limit)
      continue; /* read on: every line is checked */
    n++;
    rc = fl_wl_check_job(w, sim, sc, &j, seen);
  }
  w->njobs = n;
  if (rc == FL_OK && !w->generated && fl_swf_stream_info(st)->unsorted > 0)
    /* out of submit order: the jobs are held whole, sorted (the first app.jobs in submit order) */
    rc = fl_swf_read(w->path, wo->cores_per_node, &w->trace);
  if (rc == FL_OK && w->trace) {
    memset(seen, 0, (size_t)w->machine + 1);
    w->nsizes = w->fewer = 0;
    for (long i = 0; i < w->njobs && rc == FL_OK; i++)
      rc = fl_wl_check_job(w, sim, sc, &w->trace->jobs[i], seen);
  }
  if (rc == FL_OK) {
    long k = 0;
    if ((w->sizes = malloc((size_t)(w->nsizes + 1) * sizeof *w->sizes)) == NULL)
      rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    for (long v = 1; rc == FL_OK && v <= w->machine; v++)
      if (seen[v])
        w->sizes[k++] = v; /* increasing */
  }
  free(seen);
  fl_swf_close(&st);
  FL_TRY(rc);
done:
  return rc;
}

/* The PFS's servers and disks the jobs' file level writes to, and the cabinets' hosts when its flows are aggregated
 * (the file level only). */
static fl_err fl_wl_pfs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  w->npfs = fl_platform_pfs_count(sim->pf);
  if (w->npfs == 0 && (w->levels & FL_LEVEL_BIT(FL_LEVEL_FILE))) {
    rc = fl_platform_generated(sim->pf)
             ? fl_scenario_fail(sc, "platform", "pfs_servers", "a workload's checkpoints need PFS servers")
             : fl_scenario_fail(sc, "storage", "pfs", "a workload's checkpoints need the PFS's hosts");
    goto done;
  }
  FL_ALLOC(w->pfs_host, w->npfs);
  FL_ALLOC(w->pfs_disk, w->npfs);
  for (long s = 0; s < w->npfs; s++) {
    w->pfs_host[s] = fl_platform_pfs_host(sim->pf, s);
    w->pfs_disk[s] = fl_iocost_host_disk(w->pfs_host[s], NULL);
    FL_CHECK(w->pfs_disk[s], FL_ERR_INPUT, "PFS host '%s' has no disk", sg_host_get_name(w->pfs_host[s]));
  }
  if (fl_platform_generated(sim->pf) && fl_platform_io(sim->pf) == FL_IO_AGGREGATED) {
    const fl_platform_gen *g = fl_platform_generated(sim->pf);
    unsigned other = (w->levels | sim->strat.writes[FL_LEVEL_FILE]) & ~FL_LEVEL_BIT(FL_LEVEL_FILE);
    if (other) {
      int l = 0;
      while (!(other & FL_LEVEL_BIT(l)))
        l++;
      rc = fl_scenario_fail(sc, "platform", "io_flows",
                            "a workload aggregates its file-level I/O only, and strategy %s writes the %s level "
                            "too: per-rank flows (or auto) for it",
                            sim->strat.ops->name, fl_level_name((fl_level)l));
      goto done;
    }
    w->aggregated = 1;
    w->cabinet = g->cabinet;
    w->ncab = fl_platform_gen_cabinets(g);
    FL_ALLOC(w->cab_host, w->ncab);
    for (long c = 0; c < w->ncab; c++) {
      char name[32];
      snprintf(name, sizeof name, "cab-%ld", c);
      FL_CHECK((w->cab_host[c] = sg_host_by_name(name)) != NULL, FL_ERR_INTERNAL, "no host '%s'", name);
    }
  }
done:
  return rc;
}

/* Each job size's checkpoint alone on the machine, per level, simulated in a child: the cost its interval rule
 * prices (with per-job bytes, each size at 1 GiB and 2 GiB a node: a latency plus bytes over the rates the flows
 * share); cooperative periods: the PFS's bandwidth from the whole machine's checkpoint. */
static fl_err fl_wl_probe_costs(fl_wlrun *w, fl_sim *sim, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  double *cost = NULL;
  FILE *res = NULL;
  /* each job size's checkpoint alone on the machine: the cost its interval rule prices */
  /* (w->sizes: the jobs' sizes, increasing, with room for one more) */
  long *sizes = w->sizes, nsizes = w->nsizes;
  if (w->coop && sizes[nsizes - 1] != w->machine)
    sizes[nsizes++] = w->machine; /* the whole machine's checkpoint: the PFS's bandwidth */
  w->nsizes = nsizes;
  /* with per-job bytes, each size at 1 GiB and 2 GiB a node: an isolated checkpoint's time is a latency plus
   * bytes over the rates the flows share (a line in the bytes), read off the two for each job */
  FL_ALLOC(w->cost, 2 * FL_NLEVELS * nsizes); /* per probe, each level's */
  cost = w->cost;
  {
    long np = w->jbytes ? 2 * nsizes : nsizes;
    long *psizes = NULL;
    double *pbytes = NULL;
    fl_wl_probe p = {.sim = sim, .sc = sc, .sizes = sizes, .n = np, .levels = w->levels};
    if (w->jbytes) {
      FL_ALLOC(psizes, np);
      FL_ALLOC(pbytes, np);
      for (long k = 0; k < np; k++) {
        psizes[k] = sizes[k % nsizes];
        pbytes[k] = FL_WL_REF_BYTES * (double)(1 + k / nsizes);
      }
      p.sizes = psizes;
      p.bytes = pbytes;
    }
    rc = fl_sim_in_child(fl_wl_probe_main, &p, &res);
    free(psizes);
    free(pbytes);
    FL_TRY(rc);
    FL_CHECK(fread(cost, FL_NLEVELS * sizeof *cost, (size_t)np, res) == (size_t)np, FL_ERR_IO,
             "the checkpoint costs came back short");
  }
  if (w->coop) {
    /* the PFS's bandwidth: the bytes of a checkpoint of every node of the machine over its time alone (with
     * per-job bytes, the slope between the two probes: the latency left out) */
    long k = nsizes - 1;
    double c1 = cost[FL_NLEVELS * k + FL_LEVEL_FILE];
    w->pfs_bps = w->jbytes
                     ? (double)w->machine * FL_WL_REF_BYTES / (cost[FL_NLEVELS * (nsizes + k) + FL_LEVEL_FILE] - c1)
                     : (double)w->machine * w->bytes / c1;
    FL_CHECK(w->pfs_bps > 0 && isfinite(w->pfs_bps), FL_ERR_INPUT,
             "app.checkpoint_period = cooperative: the PFS's bandwidth from a checkpoint of the whole machine is "
             "%g B/s",
             w->pfs_bps);
  }
done:
  if (res)
    fclose(res);
  return rc;
}

fl_err fl_wlr_create(fl_sim *sim, const fl_scenario *sc, fl_wlrun **out)
{
  fl_err rc = FL_OK;
  const fl_workload_opts *wo = fl_workload_options(sc);
  fl_wlrun *w = NULL;

  *out = NULL;
  FL_ALLOC(w, 1);
  if (!(w->sched = fl_batch_find(fl_sched_name(sc)))) {
    rc = fl_scenario_fail(sc, "app", "scheduler", "unknown batch scheduler '%s' (known: %s)", fl_sched_name(sc),
                          fl_batch_names());
    goto done;
  }
  if (fl_strat_common(sc)->flush_async && fl_strat_reads(&sim->strat, "strategy.flush")) {
    rc = fl_scenario_fail(sc, "strategy", "flush", "workloads flush synchronously (each level written on its own)");
    goto done;
  }
  if (isfinite(sc->process_mtbf_s) || isfinite(sc->sdc_mtbf_s)) {
    rc = fl_scenario_fail(sc, "failures", isfinite(sc->process_mtbf_s) ? "process_mtbf" : "sdc_mtbf",
                          "not modelled for workloads (node failures only)");
    goto done;
  }
  w->machine = sc->app_nodes > 0 ? sc->app_nodes : sim->nodes;
  if (w->machine > sim->nodes) {
    rc = fl_scenario_fail(sc, "app", "nodes", "%ld nodes asked for but platform '%s' has only %ld", w->machine,
                          fl_platform_describe(sim->pf), sim->nodes);
    goto done;
  }
  w->degree = sim->strat.degree > 1 ? sim->strat.degree : 1;
  w->cores_per_node = wo->cores_per_node;
  if (wo->trace) {
    FL_CHECK((w->path = fl_scenario_resolve(sc, wo->trace)) != NULL, FL_ERR_NOMEM, "out of memory");
  } else {
    /* a generated mix: app.jobs jobs of app.job_nodes nodes, app.job_time long, app.arrival apart */
    fl_swf_gen *g = &w->gen;
    char *end = NULL;
    *g = (fl_swf_gen){.jobs = wo->jobs, .mean_run_s = wo->job_time_s, .mean_gap_s = wo->arrival_s, .seed = sc->seed};
    g->min_nodes = strtol(wo->job_nodes, &end, 10);
    if (end && *end == '-')
      g->max_nodes = strtol(end + 1, &end, 10);
    else
      g->max_nodes = g->min_nodes;
    if (!end || *end || g->min_nodes < 1 || g->max_nodes < g->min_nodes) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "expected MIN-MAX nodes, 1 <= MIN <= MAX (e.g. 32-256)");
      goto done;
    }
    if (g->max_nodes > w->machine) {
      rc = fl_scenario_fail(sc, "app", "job_nodes", "jobs of up to %ld nodes, but the machine has %ld", g->max_nodes,
                            w->machine);
      goto done;
    }
    w->generated = 1;
    FL_CHECK((w->path = strdup("generated")) != NULL, FL_ERR_NOMEM, "out of memory");
  }
  w->bytes = sc->checkpoint_size;
  w->levels = sim->strat.levels;
  w->ckpt = w->levels != 0 && !sim->strat.rule->none;
  w->jbytes = w->ckpt && wo->checkpoint_memory;
  FL_TRY(fl_wl_scan_jobs(w, sim, sc));
  w->requeue = wo->requeue;
  w->io_policy = wo->ckpt_io;
  w->rule = sim->strat.rule;
  w->interval_s = sc->interval_s;
  w->xor_g = sim->strat.xor_group > 1 ? sim->strat.xor_group : 2;
  if (fl_platform_generated(sim->pf) || sc->storage_disk)
    FL_CHECK((w->disk_name = strdup(fl_platform_generated(sim->pf) ? "local" : sc->storage_disk)) != NULL, FL_ERR_NOMEM,
             "out of memory");
  w->coop = w->ckpt && wo->ckpt_period == 1;
  w->coop_daly = w->rule->coop == 2;
  if (w->coop && !w->rule->coop) {
    rc = fl_scenario_fail(sc, "app", "checkpoint_period",
                          "cooperative periods are young's or daly's with the PFS shared: strategy.interval = %s "
                          "sets them itself",
                          w->rule->name);
    goto done;
  }
  if (w->coop && fl_strat_primary(&sim->strat) != FL_LEVEL_FILE) {
    rc = fl_scenario_fail(sc, "app", "checkpoint_period",
                          "cooperative periods share the PFS among checkpoints that all go to it: strategy %s "
                          "writes most of its checkpoints elsewhere (checkpoint or replication)",
                          sim->strat.ops->name);
    goto done;
  }
  if (w->ckpt) {
    if (!w->jbytes && !(w->bytes > 0)) {
      rc = fl_scenario_fail(sc, "app", "checkpoint_size",
                            "a workload's checkpoints are simulated I/O: give the bytes "
                            "each node writes (or app.checkpoint_memory = yes: the trace's memory)");
      goto done;
    }
    FL_TRY(fl_wl_pfs(w, sim, sc));
    FL_TRY(fl_wl_probe_costs(w, sim, sc));
  }
  {
    /* the failure-free schedule without checkpoints: the row's work_s (the jobs streamed through the scheduler) */
    fl_wl_ffctx f = {.w = w, .t0 = INFINITY, .t1 = -INFINITY};
    FL_TRY(fl_wl_src_open(w, &f.src));
    rc = fl_batch_replay_stream(w->sched, fl_wl_ff_next, fl_wl_ff_started, &f, w->machine);
    fl_wl_src_close(&f.src);
    FL_TRY(rc);
    w->ff_span_s = f.t1 - f.t0;
  }
  *out = w;
  w = NULL;
done:
  fl_wlr_destroy(&w);
  return rc;
}

double fl_wlr_work(const fl_wlrun *w)
{
  return w->ff_span_s;
}

long fl_wlr_machine(const fl_wlrun *w)
{
  return w->machine;
}
