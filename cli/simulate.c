/* simulate.c — faultline simulate: the scenario's replicas (a study of its sweep) on every core, the rows into the
 * results database. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "app.h"
#include "args.h"
#include "calibration.h"
#include "ckpt_cli.h"
#include "cleanup.h"
#include "cli.h"
#include "columns.h"
#include "compare.h"
#include "db.h"
#include "engine.h"
#include "export.h"
#include "fl_config.h"
#include "fm.h"
#include "format.h"
#include "html.h"
#include "inputs.h"
#include "launch.h"
#include "merge.h"
#include "platform.h"
#include "plot.h"
#include "progress.h"
#include "registries.h"
#include "report.h"
#include "rerun.h"
#include "scenario.h"
#include "sched_keys.h"
#include "shards.h"
#include "sim.h"
#include "strategy.h"
#include "study.h"
#include "sweep.h"
#include "tmr_cmd.h"
#include "trace.h"
#include "units.h"
#include "validate.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- simulate ---- */

typedef fl_study_point fl_sim_job; /* a combination: its scenario, its simulation (study.h) */

/* Say up front when failures outpace progress: the replicas will likely end as 'timeout'. */
static void fl_warn_no_progress(const fl_sim_job *job)
{
  const char *step = NULL;
  double x = fl_sim_failures_per_step(job->sim, &step);
  char a[32];
  if (x > 1.0 && step)
    fprintf(stderr,
            "faultline: warning: %s: about %.3g job failures are expected per %s (job MTBF %s): replicas may make "
            "no progress and end as 'timeout' at run.max_events = %ld or run.max_time\n",
            job->sc->name, x, step, fl_units_format_duration(fl_sim_job_mtbf(job->sim), a, sizeof a),
            job->sc->max_events);
}

/* Costs asked of the platform (app.checkpoint_size) that the platform cannot price: one line for the command per
 * reason (*said: the last reason given), so that nobody reads constant costs as the platform's */
static void fl_warn_cost_fallback(const fl_sim_job *job, const char **said)
{
  const char *why = fl_sim_cost_fallback(job->sim);
  char a[32];
  if (!why || why == *said)
    return;
  *said = why;
  fprintf(stderr,
          "faultline: warning: %s: app.checkpoint_size = %s asks for checkpoint costs from the platform, but %s: "
          "the constant strategy.checkpoint_cost and restart_cost are used (strategy.cost = platform refuses "
          "instead)\n",
          job->sc->name, fl_units_format_bytes(job->sc->checkpoint_size, a, sizeof a), why);
}

static void fl_print_job_header(const fl_sim_job *job)
{
  char a[32], b[32], c[32], own[512];
  const fl_scenario *sc = job->sc;
  if (fl_sim_describe(job->sim, sc, own, sizeof own)) { /* the app's own line (a workload's trace and machine) */
    fprintf(stderr, "faultline: %s: %s", sc->name, own);
    goto rest;
  }
  fprintf(stderr, "faultline: %s: %s %s, %ld %s on %ld nodes, %s failures, node MTBF %s", sc->name, sc->app,
          sc->strategy, fl_sim_ranks(job->sim), fl_sim_unit(job->sim), fl_sim_platform_nodes(job->sim), sc->model,
          fl_units_format_duration(fl_sim_node_mtbf(job->sim), a, sizeof a));
  fprintf(stderr, " (job MTBF %s)", fl_units_format_duration(fl_sim_job_mtbf(job->sim), b, sizeof b));
  if (isfinite(fl_sim_interval(job->sim))) {
    const char *rule = fl_sim_interval_rule(job->sim);
    double slow, flush = fl_sim_flush(job->sim, &slow);
    fprintf(stderr, ", interval %s", fl_units_format_duration(fl_sim_interval(job->sim), c, sizeof c));
    if (rule && strchr(rule, ' ')) /* the multilevel rule's pattern */
      fprintf(stderr, " (%s)", rule);
    if (isfinite(flush))
      fprintf(stderr, ", async flush %s (compute %.3g %% slower meanwhile)",
              fl_units_format_duration(flush, b, sizeof b), 100.0 * slow);
  }
rest:
  if (sc->overrides[0]) {
    fprintf(stderr, " [");
    for (const char *p = sc->overrides; *p; p++)
      fputc(*p == '\n' ? (p[1] ? ' ' : ']') : *p, stderr);
  }
  fprintf(stderr, "; %ld replica%s -> %s\n", sc->replicas, sc->replicas == 1 ? "" : "s", sc->db);
}

/* What simulate says as its study runs (sim/study.h's hooks): each point's header and warnings, the sweep's progress
 * line, and after a point Daly's expectation where his model is the one simulated. */
typedef struct fl_simulate_say {
  fl_progress *prog;
  int quiet;
  long shard_n;
  const char *label;     /* "shard I/N: " or "" */
  double wall0;          /* when the command started */
  const char *cost_said; /* the reason last given for constant costs (fl_warn_cost_fallback) */
  char *advice_said;     /* the last fl_sim_advice said */
} fl_simulate_say;

static void fl_simulate_point(void *ctx, const fl_study *st, long c)
{
  fl_simulate_say *say = ctx;
  const fl_sim_job *job = &st->points[c];
  if (st->ncombos == 1 && say->shard_n == 1)
    fl_sim_set_progress(job->sim, say->prog, job->sc->replicas); /* one point: the replica's own progress says most */
  if (!say->quiet)
    fl_print_job_header(job);
  fl_warn_no_progress(job);
  fl_warn_cost_fallback(job, &say->cost_said);
  if (fl_sim_advice(job->sim) && (!say->advice_said || strcmp(say->advice_said, fl_sim_advice(job->sim)) != 0)) {
    fprintf(stderr, "faultline: warning: %s\n", fl_sim_advice(job->sim));
    free(say->advice_said);
    say->advice_said = strdup(fl_sim_advice(job->sim)); /* once per distinct warning, not per sweep point */
  }
}

static void fl_simulate_row(void *ctx, const fl_study *st, long c, long done, long total)
{
  fl_simulate_say *say = ctx;
  double el, rate;
  char eta[32];
  if (st->ncombos == 1 && say->shard_n == 1)
    return; /* the replica's own progress line */
  el = fl_wall_seconds() - say->wall0;
  rate = done > 0 ? (double)done / el : 0.0;
  fl_progress_update(say->prog, 0, "%spoint %ld/%ld, rows %ld/%ld, %.3g rows/s, ETA %s", say->label, c + 1, st->ncombos,
                     done, total, rate,
                     rate > 0 ? fl_units_format_duration((double)(total - done) / rate, eta, sizeof eta) : "?");
}

static void fl_simulate_point_done(void *ctx, const fl_study *st, long c, const fl_study_tally *t)
{
  fl_simulate_say *say = ctx;
  const fl_scenario *sc = st->points[c].sc;
  const fl_sim *sim = st->points[c].sim;
  int daly = fl_sim_is_daly_model(sim);
  fl_progress_done(say->prog);
  if (daly && (sc->repair_s == 0.0 || t->sum_wait == 0.0)) {
    /* the model behind Daly's formula, so the figure is the exact expectation, not an estimate: with repairs too,
     * as long as a spare took every failed node's place at once (memoryless failures: the job never waited) */
    char a[32];
    double expect = fl_sim_expected_makespan(sim);
    printf("Daly's expected makespan for exponential failures (job MTBF %s): %.7g s; simulated mean %.7g s "
           "over %ld completed (%+.3f%%)\n",
           fl_units_format_duration(fl_sim_job_mtbf(sim), a, sizeof a), expect,
           t->completed ? t->sum_makespan / (double)t->completed : NAN, t->completed,
           t->completed ? 100.0 * (t->sum_makespan / (double)t->completed - expect) / expect : NAN);
  } else if (daly && t->completed > 0) {
    char a[32], b[32];
    printf("Daly's expected makespan (%s) is not the expectation here: the runs waited %s on average for a "
           "repaired node (no spare left), which his model does not count\n",
           fl_units_format_duration(fl_sim_expected_makespan(sim), a, sizeof a),
           fl_units_format_duration(t->sum_wait / (double)t->completed, b, sizeof b));
  }
}

/* simulate's command line. */
typedef struct fl_simulate_opts {
  const char *path;
  char **sets; /* --set, --calibration's keys, --sweep (marked \x01), --replicas, --seed, --db, --events, in order */
  int nsets, quiet, print, count_only;
  char cal_kind[64];       /* --calibration: the strategy it was measured with */
  long shard_i, shard_n;   /* --shard I/N: this command's slice of the items */
  long ready_fd, after_fd; /* --ready-fd, --after-fd (sweep) */
  long pgroup;             /* --platform-group K: one process per platform */
  long nworkers;           /* --jobs J: worker processes for a point's replicas (every core) */
  char shard_label[64];
} fl_simulate_opts;

/* Parse simulate's arguments into o (o->sets allocated, its strings too, even on an error: the caller frees them).
 * 0, or the exit status of a usage error (said). */
static int fl_simulate_parse(int argc, char **argv, fl_simulate_opts *o)
{
  int rc = 0;
  memset(o, 0, sizeof *o);
  o->shard_i = o->shard_n = 1;
  o->ready_fd = o->after_fd = o->pgroup = -1;
  o->nworkers = fl_sim_cores();
  o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
  if (!o->sets)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    char buf[512];
    if ((v = fl_args_value(argc, argv, &i, "--set"))) {
      o->sets[o->nsets++] = strdup(v);
    } else if ((v = fl_args_value(argc, argv, &i, "--calibration")) ||
               (v = fl_args_value(argc, argv, &i, "--calibrated-job"))) {
      /* its keys are overrides, applied where it stands among the --set (stored with each row): the measured
       * costs only (the scenario keeps its job), or with --calibrated-job the measured job too (agree) */
      char **cal = NULL;
      int ncal = 0, costs_only = strcmp(argv[i - 1], "--calibration") == 0;
      char **g;
      if ((rc = costs_only ? fl_calibration_read_costs(v, &cal, &ncal, o->cal_kind, sizeof o->cal_kind)
                           : fl_calibration_read(v, &cal, &ncal)) != FL_OK) {
        rc = fl_report_error(rc);
        return rc;
      }
      g = realloc(o->sets, ((size_t)argc + 1 + (size_t)o->nsets + (size_t)ncal) * sizeof *o->sets);
      if (!g) {
        fl_calibration_free(&cal, ncal);
        rc = fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
        return rc;
      }
      o->sets = g;
      for (int k = 0; k < ncal; k++)
        o->sets[o->nsets++] = cal[k];
      free(cal);
    } else if ((v = fl_args_value(argc, argv, &i, "--sweep"))) {
      snprintf(buf, sizeof buf, "\x01%s", v); /* marked: a sweep term, not an override */
      o->sets[o->nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--replicas"))) {
      snprintf(buf, sizeof buf, "run.replicas=%s", v);
      o->sets[o->nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      snprintf(buf, sizeof buf, "run.seed=%s", v);
      o->sets[o->nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      snprintf(buf, sizeof buf, "run.db=%s", v);
      o->sets[o->nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--events"))) {
      snprintf(buf, sizeof buf, "run.events=%s", v);
      o->sets[o->nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--ready-fd"))) {
      /* internal (sweep): say on this descriptor, by one byte, that every input is checked and the database open */
      if (fl_args_count("--ready-fd", v, 3, 1023, &o->ready_fd) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        return rc;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--platform-group"))) {
      /* internal: only the combinations of the K-th distinct platform (SimGrid loads one per process) */
      if (fl_args_count("--platform-group", v, 0, FL_MAX_COMBOS, &o->pgroup) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        return rc;
      }
    } else if (strcmp(argv[i], "--count") == 0) {
      o->count_only = 1; /* internal, with --platform-group: set up, print this shard's rows of the group, leave */
    } else if ((v = fl_args_value(argc, argv, &i, "--after-fd"))) {
      /* internal (sweep): set up, then wait on this descriptor for the first shard's word before opening the
       * database: a byte, go on; end of file, the first shard found bad input (and said so): leave, silent */
      if (fl_args_count("--after-fd", v, 3, 1023, &o->after_fd) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        return rc;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs")) || (v = fl_args_value(argc, argv, &i, "-j"))) {
      if (fl_args_count("--jobs", v, 1, 1024, &o->nworkers) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        return rc;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--shard"))) {
      char *slash = strchr(v, '/'), ibuf[32];
      if (!slash || (size_t)(slash - v) >= sizeof ibuf) {
        rc = 2;
        fl_usage_error("simulate", "--shard '%s': expected I/N (shard I of N, 1 <= I <= N)", v);
        return rc;
      }
      memcpy(ibuf, v, (size_t)(slash - v));
      ibuf[slash - v] = '\0';
      if (fl_args_count("--shard N", slash + 1, 1, 1000000, &o->shard_n) != FL_OK ||
          fl_args_count("--shard I", ibuf, 1, o->shard_n, &o->shard_i) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        return rc;
      }
      snprintf(o->shard_label, sizeof o->shard_label, "shard %ld/%ld: ", o->shard_i, o->shard_n);
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      o->quiet = 1;
    } else if (strcmp(argv[i], "--print") == 0) {
      o->print = 1;
    } else if (argv[i][0] == '-') {
      rc = 2;
      fl_usage_error("simulate", "unknown option or missing value '%s'", argv[i]);
      return rc;
    } else if (!o->path) {
      o->path = argv[i];
    } else {
      rc = 2;
      fl_usage_error("simulate", "one scenario at a time ('%s' is extra)", argv[i]);
      return rc;
    }
  }
  if (!o->path) {
    rc = 2;
    fl_usage_error("simulate", "%s", "no scenario file given");
    return rc;
  }
  if (!o->path) {
    fl_usage_error("simulate", "%s", "no scenario file given");
    return 2;
  }
  return 0;
}

/* What the user should know of the plan before it runs: a calibration measured with another strategy, and the
 * sweep terms the command line overrides. */
static fl_err fl_simulate_warn(const fl_study *study, const fl_simulate_opts *o)
{
  fl_err rc = FL_OK;
  const fl_scenario *base = study->base;
  char *copy = NULL, *save = NULL;
  if (o->quiet)
    return FL_OK;
  if (o->cal_kind[0] && strcmp(o->cal_kind, base->strategy) != 0)
    /* the file holds the checkpoint cost of the strategy it was calibrated with (each level costs its own) */
    fprintf(stderr,
            "faultline: warning: the calibration was measured with strategy %s, this scenario runs %s: its checkpoint "
            "cost is %s's (faultline calibrate ... --set strategy.kind=%s measures %s's)\n",
            o->cal_kind, base->strategy, o->cal_kind, base->strategy, base->strategy);
  copy = strdup(study->dropped);
  FL_CHECK(copy != NULL, FL_ERR_NOMEM, "out of memory");
  for (char *term = strtok_r(copy, " ", &save); term; term = strtok_r(NULL, " ", &save))
    fprintf(stderr, "faultline: the command line sets a key of the scenario's sweep term '%s': that term is left out\n",
            term);
done:
  free(copy);
  return rc;
}

/* Several platforms: a process each (this command, run again with --platform-group K), first all checked and
 * counted, nothing written, then run one after the other; their exit status into *code. */
static fl_err fl_simulate_groups(const fl_study *study, fl_simulate_opts *o, int argc, char **argv, int *code)
{
  fl_err rc = FL_OK;
  char self[4096];
  fl_groups_opts go = {.self = self,
                       .argc = argc,
                       .argv = argv,
                       .ngroups = study->ngroups,
                       .print = o->print,
                       .ready_fd = o->ready_fd,
                       .after_fd = o->after_fd,
                       .db = study->points[0].sc->db,
                       .shard_i = o->shard_i,
                       .shard_n = o->shard_n,
                       .sweep_id = study->sweep_id};
  FL_TRY(fl_self_exe(self, sizeof self));
  rc = fl_shards_groups(&go, code);
  o->after_fd = -1; /* read there, if at all */
done:
  return rc;
}

int fl_cmd_simulate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_study *study = NULL; /* the combinations (sim/study.h) */
  fl_sim_job *jobs = NULL;
  fl_db *db = NULL;
  fl_progress prog;
  int big = 0;
  long ncombos = 0;
  fl_study_tally acc = {0}; /* the rows this command wrote */
  fl_db_writer *writer = NULL;
  double wall0 = fl_wall_seconds();
  fl_simulate_opts o;
  int bad = fl_simulate_parse(argc, argv, &o);

  if (!o.sets)
    return bad ? bad : fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  if (bad) {
    rc = bad;
    goto out;
  }
  for (int i = 0; i < o.nsets; i++)
    FL_CHECK(o.sets[i] != NULL, FL_ERR_NOMEM, "out of memory");

  /* Everything the user gave is checked before the database is touched: every combination of the sweep is
   * parsed and set up first. */
  FL_TRY(fl_study_plan(o.path, o.sets, o.nsets, &study));
  FL_TRY(fl_study_check_keys(study));
  study->jobs = (int)o.nworkers;
  ncombos = study->ncombos;
  FL_TRY(fl_simulate_warn(study, &o));
  if (study->ngroups > 1 && o.pgroup < 0) {
    int code = 0;
    FL_TRY(fl_simulate_groups(study, &o, argc, argv, &code));
    rc = code;
    goto out;
  }
  FL_TRY(fl_study_setup(study, o.pgroup));
  jobs = study->points;
  if (o.print) {
    for (long c = 0; c < ncombos; c++) {
      if (o.pgroup >= 0 && jobs[c].group != o.pgroup)
        continue;
      if (ncombos > 1)
        printf("; combination %ld of %ld\n", c + 1, ncombos);
      fl_scenario_print(jobs[c].sc, stdout);
    }
    goto done;
  }
  if (o.count_only) {
    /* this shard's rows of this process's platform: the parent adds them up for the shard's plan */
    printf("%ld\n", fl_study_rows(study, o.shard_i, o.shard_n));
    goto done;
  }

  if (o.after_fd >= 0 && !fl_shards_go(&o.after_fd)) {
    rc = 2; /* the first shard refused the input and said why: one line for the whole sweep */
    goto out;
  }
  FL_TRY(fl_db_open(jobs[0].sc->db, &db));
  {
    /* a workload's replicas fork: then no writer thread at all (a child forked while another thread holds a lock
     * may wait on it forever); the rows are written as each replica ends */
    int forks = 0;
    for (long c = 0; c < ncombos; c++)
      forks |= jobs[c].sim && fl_sim_forks(jobs[c].sim);
    FL_TRY(fl_db_writer_start(db, !forks, &writer));
  }
  if (o.ready_fd >= 0) {
    ssize_t w = write((int)o.ready_fd, "1", 1);
    (void)w; /* the sweep reads EOF as "not ready": nothing to do if it went away */
    close((int)o.ready_fd);
  }
  if (o.shard_n > 1 && o.pgroup < 0)
    FL_TRY(fl_db_record_shard(db, study->sweep_id, o.shard_i, o.shard_n, fl_study_rows(study, o.shard_i, o.shard_n)));
  fl_progress_init(&prog, stderr, o.quiet);
  {
    fl_simulate_say say = {
        .prog = &prog, .quiet = o.quiet, .shard_n = o.shard_n, .label = o.shard_label, .wall0 = wall0};
    fl_study_hooks hooks = {
        .ctx = &say, .point = fl_simulate_point, .row = fl_simulate_row, .point_done = fl_simulate_point_done};
    rc = fl_study_run(study, db, writer, o.shard_i, o.shard_n, &hooks, &acc);
    free(say.advice_said);
    FL_TRY(rc);
  }
  if (acc.nown > 0) {
    fl_report_opts ro = {.scenario = NULL, .ids = acc.own, .nids = acc.nown};
    FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
  }
  if ((acc.skipped || o.shard_n > 1) && !o.quiet)
    fprintf(stderr, "faultline: %s%ld row%s written, %ld already in %s and skipped\n", o.shard_label, (long)acc.nown,
            acc.nown == 1 ? "" : "s", acc.skipped, jobs[0].sc->db);
  if (!o.quiet) {
    char procs[48] = "in one process";
    if (fl_sim_workers_used() > 1)
      snprintf(procs, sizeof procs, "on %d worker processes", fl_sim_workers_used());
    fprintf(stderr, "faultline: %zu run%s in %.2f s %s; rows %" PRId64 "..%" PRId64 "%s of %s\n", acc.nown,
            acc.nown == 1 ? "" : "s", fl_wall_seconds() - wall0, procs, acc.first_id, acc.last_id,
            (int64_t)acc.nown == acc.last_id - acc.first_id + 1 ? "" : " (interleaved with another writer's)",
            jobs[0].sc->db);
  }
done:
  if (rc != FL_OK && o.after_fd >= 0 && !fl_shards_go(&o.after_fd))
    rc = fl_exit_code(rc); /* the first shard met the same and said it: one line for the whole sweep */
  else if (rc != FL_OK)
    rc = fl_report_error(rc);
out:
  /* SimGrid's own teardown of a large platform takes seconds at exit; everything of ours is closed below, so a
   * large run leaves without it */
  for (long c = 0; c < ncombos && !big; c++)
    big = jobs && jobs[c].sim && fl_sim_platform_nodes(jobs[c].sim) >= 100000;
  fl_db_writer_destroy(&writer); /* before the database it writes to, and before the sims its rows point into */
  fl_db_close(&db);
  fl_study_destroy(&study);
  free(acc.own);
  for (int i = 0; i < o.nsets; i++)
    free(o.sets[i]);
  free(o.sets);
  if (big) {
    fflush(NULL);
    _exit((int)rc);
  }
  return (int)rc;
}
