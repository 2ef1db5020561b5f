/* tmr_cmd.c — `faultline tmr`: a kernel under TMR with silent data corruptions injected at a given rate.
 *
 * Each trial reseeds the fault stream from (seed, trial), queues a Poisson(--sdc) number of random bit flips, runs
 * the kernel once unprotected (the baseline of the overhead) and once under TMR, and checks the voted output
 * against a fault-free reference computed first: an element that differs from it and is not flagged (NaN) would
 * be a silent error that escaped the vote. One `runs` row per trial (mode "real"):
 *   app "kernel:NAME", strategy "tmr" | "dual", failure_model "sdc", replica = trial, nodes = output elements,
 *   work_s = unprotected wall time, makespan_s = wall_s = TMR wall time (so run_summary's waste is the overhead
 *   fraction 1 - plain/TMR), failures = faults injected, interruptions = elements without a majority,
 *   error_linf = max |output - reference| over the delivered elements, status "completed" when every element was
 *   delivered, "failed" when some were flagged uncorrectable (or detected, in dual mode);
 * scenario = --name (default "tmr-KERNEL"), scenario_text = the command line with every option spelled out;
 * events: one `sdc` per injected fault (up to 64 listed) and one `vote` with the counts.
 * Every argument is checked, and the backend chosen, before the database is opened: bad input writes nothing. */
#include "tmr_cmd.h"

#include "args.h"
#include "db.h"
#include "fl_config.h"
#include "rng.h"
#include "tmr.h"
#include "units.h"
#include "vote.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_tmr_opts {
  const char *kernel, *db, *name;
  long n, steps, trials;
  double sdc;
  fl_tmr_target target;
  fl_tmr_config cfg;
  int quiet;
  char vote_text[96], conc_text[8];
} fl_tmr_opts;

static int fl_tmr_usage(const char *fmt, const char *arg)
{
  fprintf(stderr, "faultline tmr: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see 'faultline help tmr')\n");
  return 2;
}

/* A whole number in [lo, hi], or -1 after printing the usage line. */
static int fl_tmr_whole(const char *flag, const char *v, double lo, double hi, long *out)
{
  double x;
  if (fl_units_number(v, 1, &x) != FL_OK || x < lo || x > hi) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s '%%s': expected a whole number in [%.0f, %.0f]", flag, lo, hi);
    fl_err_clear();
    fl_tmr_usage(msg, v);
    return -1;
  }
  *out = (long)x;
  return 0;
}

/* "bitwise", or "abs=T", "rel=T", "abs=T,rel=T". */
static int fl_tmr_parse_vote(const char *v, fl_tmr_config *cfg)
{
  char buf[96], *save = NULL, *term;
  if (strcmp(v, "bitwise") == 0) {
    cfg->vote = FL_TMR_VOTE_BITWISE;
    return 0;
  }
  if (strlen(v) >= sizeof buf)
    return -1;
  strcpy(buf, v);
  cfg->vote = FL_TMR_VOTE_TOLERANCE;
  for (term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
    double x;
    if (strncmp(term, "abs=", 4) != 0 && strncmp(term, "rel=", 4) != 0)
      return -1;
    if (fl_units_number(term + 4, 0, &x) != FL_OK || !(x >= 0) || !isfinite(x)) {
      fl_err_clear();
      return -1;
    }
    if (term[0] == 'a')
      cfg->abs_tol = x;
    else
      cfg->rel_tol = x;
  }
  return 0;
}

static int fl_tmr_parse(int argc, char **argv, fl_tmr_opts *o)
{
  long x;
  memset(o, 0, sizeof *o);
  o->kernel = "axpy";
  o->db = "results.sqlite";
  o->n = -1;
  o->steps = 1000;
  o->trials = 100;
  o->sdc = 1.0;
  o->target = FL_TMR_OUTPUT;
  o->cfg = fl_tmr_config_default();
  o->cfg.log = stderr;
  snprintf(o->vote_text, sizeof o->vote_text, "bitwise");
  snprintf(o->conc_text, sizeof o->conc_text, "auto");
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--kernel"))) {
      if (strcmp(v, "axpy") && strcmp(v, "chain") && strcmp(v, "diffusion") && strcmp(v, "gridworld"))
        return fl_tmr_usage("--kernel '%s': expected axpy, chain, diffusion or gridworld", v);
      o->kernel = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--n"))) {
      if (fl_tmr_whole("--n", v, 1, 4e8, &o->n) < 0)
        return 2;
    } else if ((v = fl_args_value(argc, argv, &i, "--steps"))) {
      if (fl_tmr_whole("--steps", v, 0, 1e9, &o->steps) < 0)
        return 2;
    } else if ((v = fl_args_value(argc, argv, &i, "--trials"))) {
      if (fl_tmr_whole("--trials", v, 1, 1e7, &o->trials) < 0)
        return 2;
    } else if ((v = fl_args_value(argc, argv, &i, "--sdc"))) {
      if (fl_units_number(v, 0, &o->sdc) != FL_OK || !(o->sdc >= 0) || o->sdc > 1e6) {
        fl_err_clear();
        return fl_tmr_usage("--sdc '%s': expected the mean number of bit flips per trial, in [0, 1e6]", v);
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--target"))) {
      if (strcmp(v, "output") == 0)
        o->target = FL_TMR_OUTPUT;
      else if (strcmp(v, "input") == 0)
        o->target = FL_TMR_INPUT;
      else
        return fl_tmr_usage("--target '%s': expected output or input", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--mode"))) {
      if (strcmp(v, "tmr") == 0)
        o->cfg.replicas = 3;
      else if (strcmp(v, "dual") == 0)
        o->cfg.replicas = 2;
      else
        return fl_tmr_usage("--mode '%s': expected tmr or dual", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--vote"))) {
      if (fl_tmr_parse_vote(v, &o->cfg) < 0)
        return fl_tmr_usage("--vote '%s': expected bitwise, abs=TOL, rel=TOL or abs=TOL,rel=TOL (TOL >= 0)", v);
      snprintf(o->vote_text, sizeof o->vote_text, "%s", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--retries"))) {
      if (fl_tmr_whole("--retries", v, 0, 1000, &x) < 0)
        return 2;
      o->cfg.max_retries = (int)x;
    } else if ((v = fl_args_value(argc, argv, &i, "--backend"))) {
      o->cfg.backend = v; /* checked by fl_tmr_create, before the database is opened */
    } else if ((v = fl_args_value(argc, argv, &i, "--concurrency"))) {
      if (strcmp(v, "auto") == 0)
        o->cfg.concurrency = FL_TMR_AUTO;
      else if (strcmp(v, "on") == 0)
        o->cfg.concurrency = FL_TMR_CONCURRENT;
      else if (strcmp(v, "off") == 0)
        o->cfg.concurrency = FL_TMR_IN_TURN;
      else
        return fl_tmr_usage("--concurrency '%s': expected auto, on or off", v);
      snprintf(o->conc_text, sizeof o->conc_text, "%s", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      double s;
      if (fl_units_number(v, 1, &s) != FL_OK || s < 0 || s > 9007199254740992.0) {
        fl_err_clear();
        return fl_tmr_usage("--seed '%s': expected a whole number >= 0", v);
      }
      o->cfg.seed = (uint64_t)s;
    } else if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      o->db = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--name"))) {
      if (!v[0] || strlen(v) > 100)
        return fl_tmr_usage("--name '%s': expected 1 to 100 characters", v);
      o->name = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      o->quiet = 1;
      o->cfg.log = NULL;
    } else if (argv[i][0] == '-') {
      return fl_tmr_usage("unknown option or missing value '%s'", argv[i]);
    } else {
      return fl_tmr_usage("unexpected argument '%s'", argv[i]);
    }
  }
  if (o->n < 0)
    o->n = strcmp(o->kernel, "axpy") == 0 ? 1000000 : strcmp(o->kernel, "chain") == 0 ? 1024 : 256;
  if ((strcmp(o->kernel, "diffusion") == 0 || strcmp(o->kernel, "gridworld") == 0) && o->n > 20000) {
    char v[32];
    snprintf(v, sizeof v, "%ld", o->n);
    return fl_tmr_usage("--n %s: diffusion and gridworld take a grid side of at most 20000", v);
  }
  return 0;
}

/* The kernel's data: inputs drawn from stream FL_STREAM_APP of (seed, 0), outputs, a fault-free reference. */
typedef struct fl_tmr_data {
  double *x, *y, *out, *ref, *plain, change, ref_change, plain_change;
  fl_diff diff;
  fl_gw *gw;
  fl_tmr_task task, plain_task;
  long nout; /* output elements of all arrays */
} fl_tmr_data;

static fl_err fl_tmr_data_build(const fl_tmr_opts *o, fl_tmr_data *d)
{
  fl_err rc = FL_OK;
  gsl_rng *rng = NULL;
  long n = o->n, nin = n, nout = n;
  memset(d, 0, sizeof *d);
  if (strcmp(o->kernel, "diffusion") == 0) {
    nin = (n + 2) * n;
    nout = n * n;
  } else if (strcmp(o->kernel, "gridworld") == 0) {
    nin = nout = n * n;
  }
  FL_TRY(fl_rng_create(o->cfg.seed, 0, FL_STREAM_APP, &rng));
  FL_ALLOC(d->x, nin);
  FL_ALLOC(d->y, nin);
  FL_ALLOC(d->out, nout);
  FL_ALLOC(d->ref, nout);
  FL_ALLOC(d->plain, nout);
  for (long i = 0; i < nin; i++) {
    d->x[i] = gsl_rng_uniform(rng);
    d->y[i] = gsl_rng_uniform(rng);
  }
  if (strcmp(o->kernel, "axpy") == 0) {
    d->task = fl_tmr_task_axpy(n, 2.5, d->x, d->y, d->out);
    d->plain_task = fl_tmr_task_axpy(n, 2.5, d->x, d->y, d->plain);
  } else if (strcmp(o->kernel, "chain") == 0) {
    d->task = fl_tmr_task_chain(n, o->steps, 0.5, d->x, d->out);
    d->plain_task = fl_tmr_task_chain(n, o->steps, 0.5, d->x, d->plain);
  } else if (strcmp(o->kernel, "diffusion") == 0) {
    fl_diff_init(&d->diff, n);
    memset(d->x, 0, (size_t)n * sizeof *d->x); /* the domain's edges: zero halo rows */
    memset(d->x + (n + 1) * n, 0, (size_t)n * sizeof *d->x);
    d->task = fl_tmr_task_diffusion(&d->diff, n, d->x, d->out);
    d->plain_task = fl_tmr_task_diffusion(&d->diff, n, d->x, d->plain);
  } else {
    FL_TRY(fl_gw_create(n, n, 0.9, 0.8, o->cfg.seed, &d->gw));
    memcpy(d->x, d->gw->reward, (size_t)nin * sizeof *d->x); /* V_0 = r */
    d->task = fl_tmr_task_gridworld(d->gw, d->x, d->out, &d->change);
    d->plain_task = fl_tmr_task_gridworld(d->gw, d->x, d->plain, &d->plain_change);
  }
  d->nout = 0;
  for (int k = 0; k < d->task.nout; k++)
    d->nout += d->task.out_n[k];
done:
  if (rng)
    gsl_rng_free(rng);
  return rc;
}

static void fl_tmr_data_free(fl_tmr_data *d)
{
  free(d->x);
  free(d->y);
  free(d->out);
  free(d->ref);
  free(d->plain);
  fl_gw_destroy(&d->gw);
}

static int fl_tmr_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double fl_tmr_median(double *v, long n)
{
  qsort(v, (size_t)n, sizeof *v, fl_tmr_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int fl_tmr_report_error(fl_err rc)
{
  fprintf(stderr, "faultline: %s\n", fl_err_msg()[0] ? fl_err_msg() : fl_err_str(rc));
  return rc == FL_ERR_INPUT ? 2 : 1;
}

int fl_tmr_cmd(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_tmr_opts o;
  fl_tmr_data d;
  fl_tmr *t = NULL;
  fl_db *db = NULL;
  fl_evlog log;
  fl_tmr_result res;
  double *t_plain = NULL, *t_tmr = NULL, ref_time;
  char text[768], name[128], app[64];
  long faults = 0, corrected = 0, benign = 0, nomajority = 0, failed_trials = 0, silent = 0, retried_trials = 0;
  int64_t first_id = 0, last_id = 0;
  int code;

  memset(&d, 0, sizeof d);
  fl_evlog_init(&log, 1);
  if ((code = fl_tmr_parse(argc, argv, &o)) != 0)
    return code;
  snprintf(text, sizeof text,
           "faultline tmr --kernel %s --n %ld --steps %ld --trials %ld --sdc %.17g --target %s --mode %s --vote %s"
           " --retries %d --backend %s --concurrency %s --seed %" PRIu64,
           o.kernel, o.n, o.steps, o.trials, o.sdc, o.target == FL_TMR_OUTPUT ? "output" : "input",
           o.cfg.replicas == 2 ? "dual" : "tmr", o.vote_text, o.cfg.max_retries, o.cfg.backend ? o.cfg.backend : "auto",
           o.conc_text, o.cfg.seed);
  if (o.name)
    snprintf(name, sizeof name, "%s", o.name);
  else
    snprintf(name, sizeof name, "tmr-%s", o.kernel);
  snprintf(app, sizeof app, "kernel:%s", o.kernel);

  FL_TRY(fl_tmr_create(&o.cfg, &t)); /* an unknown or unavailable backend is bad input: nothing written yet */
  FL_TRY(fl_tmr_data_build(&o, &d));
  FL_ALLOC(t_plain, o.trials);
  FL_ALLOC(t_tmr, o.trials);
  /* the fault-free reference (and a warm-up of every buffer) */
  {
    fl_tmr_task ref = d.plain_task;
    ref.out[0] = d.ref;
    if (ref.nout > 1)
      ref.out[1] = &d.ref_change;
    FL_TRY(fl_tmr_run_plain(t, &ref, &ref_time));
  }
  FL_TRY(fl_db_open(o.db, &db));
  if (!o.quiet)
    fprintf(stderr, "faultline: tmr %s, %ld output elements, %s vote %s, %ld trials, SDC rate %g per trial (%s)\n",
            o.kernel, d.nout, o.cfg.replicas == 2 ? "dual" : "tmr", o.vote_text, o.trials, o.sdc,
            o.target == FL_TMR_OUTPUT ? "outputs" : "inputs");
  for (long trial = 0; trial < o.trials; trial++) {
    fl_db_run row;
    fl_tmr_vote_params vp = {o.cfg.replicas, o.cfg.vote == FL_TMR_VOTE_TOLERANCE, o.cfg.abs_tol, o.cfg.rel_tol};
    double err = 0.0;
    long trial_silent = 0;
    int64_t id;
    FL_TRY(fl_tmr_seed(t, o.cfg.seed, (uint64_t)trial));
    FL_TRY(fl_tmr_inject_sdc(t, o.sdc, o.target, NULL));
    FL_TRY(fl_tmr_run_plain(t, &d.plain_task, &t_plain[trial]));
    FL_TRY(fl_tmr_run(t, &d.task, &res));
    t_tmr[trial] = res.time_s;
    for (int k = 0; k < d.task.nout; k++) {
      const double *out = d.task.out[k], *ref = k == 0 ? d.ref : &d.ref_change;
      for (long i = 0; i < d.task.out_n[k]; i++) {
        if (isnan(out[i]) && !isnan(ref[i]))
          continue; /* flagged: no majority */
        if (!fl_tmr_agree(out[i], ref[i], &vp))
          trial_silent++;
        err = fmax(err, fabs(out[i] - ref[i]));
      }
    }
    faults += res.nfaults;
    corrected += res.corrected;
    benign += res.benign;
    nomajority += res.uncorrectable + res.detected;
    failed_trials += res.status >= FL_TMR_DETECTED;
    retried_trials += res.attempts > 1;
    silent += trial_silent;

    fl_evlog_clear(&log);
    for (long f = 0; f < res.nlisted; f++) {
      const fl_tmr_applied *a = &res.faults[f];
      fl_evlog_add_text(&log, 0.0, FL_EV_TMR_SDC, -1, "replica %d %s %d[%ld] bit %d%s", a->replica,
                        a->target == FL_TMR_OUTPUT ? "output" : "input", a->array, a->element, a->bit,
                        a->attempt ? " (again)" : "");
    }
    fl_evlog_add_text(&log, res.time_s, FL_EV_TMR_VOTE, -1, "corrected %ld %s %ld benign %ld attempts %d",
                      res.corrected, o.cfg.replicas == 2 ? "detected" : "uncorrectable",
                      res.uncorrectable + res.detected, res.benign, res.attempts);
    fl_db_run_clear(&row);
    row.scenario = name;
    row.scenario_text = text;
    row.overrides = "";
    row.mode = "real";
    row.app = app;
    row.strategy = o.cfg.replicas == 2 ? "dual" : "tmr";
    row.failure_model = "sdc";
    row.status = res.status >= FL_TMR_DETECTED ? "failed" : "completed";
    row.seed = o.cfg.seed;
    row.replica = trial;
    row.nodes = row.platform_nodes = row.job_nodes = d.nout;
    row.node_mtbf_s = row.repair_s = row.interval_s = NAN;
    row.checkpoint_cost_s = row.restart_cost_s = row.downtime_s = NAN;
    row.work_s = t_plain[trial];
    row.makespan_s = row.wall_s = res.time_s;
    row.failures = res.nfaults;
    row.platform_failures = -1;
    row.interruptions = res.uncorrectable + res.detected;
    row.checkpoints = -1;
    row.lost_work_s = row.checkpoint_time_s = row.restart_time_s = row.downtime_total_s = row.wait_nodes_s = NAN;
    row.error_budget = NAN;
    row.iterations = row.converged_at = row.complete_iterations = -1;
    row.error_linf = err;
    row.error_l1 = NAN;
    row.tasks_replicated = row.tasks_substituted = row.tasks_stale = -1;
    row.policy_time_s = row.policy_gap = NAN;
    FL_TRY(fl_db_insert_run(db, &row, &log, &id));
    if (!first_id)
      first_id = id;
    last_id = id;
  }
  {
    double mp = fl_tmr_median(t_plain, o.trials), mt = fl_tmr_median(t_tmr, o.trials);
    printf("tmr %s on %s: %ld trials, %ld faults injected\n", o.kernel, fl_tmr_backend(t), o.trials, faults);
    printf("  elements corrected %ld, benign %ld, %s %ld (%ld trials failed, %ld retried), silent errors %ld\n",
           corrected, benign, o.cfg.replicas == 2 ? "detected" : "uncorrectable", nomajority, failed_trials,
           retried_trials, silent);
    printf("  median wall time: unprotected %.6g s, %s %.6g s, overhead %.3fx\n", mp,
           o.cfg.replicas == 2 ? "dual" : "tmr", mt, mt / mp);
  }
  if (!o.quiet)
    fprintf(stderr, "faultline: rows %" PRId64 "..%" PRId64 " of %s\n", first_id, last_id, o.db);
done:
  fl_evlog_free(&log);
  fl_db_close(&db);
  fl_tmr_destroy(&t);
  fl_tmr_data_free(&d);
  free(t_plain);
  free(t_tmr);
  return rc == FL_OK ? 0 : fl_tmr_report_error(rc);
}
