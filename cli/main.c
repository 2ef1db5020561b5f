/* main.c — the `faultline` command: a static table of subcommands, --help generated from it.
 *
 * Exit status: 0 success, 1 a run or environment failure, 2 bad input (scenario, trace, command line). Bad
 * input is always found before the results database is opened, so it writes nothing. */
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

typedef struct fl_cmd {
  const char *name;
  const char *args;
  const char *summary;
  int (*fn)(int argc, char **argv);
} fl_cmd;

static int fl_cmd_simulate(int argc, char **argv);
static int fl_cmd_report(int argc, char **argv);
static int fl_cmd_export(int argc, char **argv);
static int fl_cmd_validate(int argc, char **argv);
static int fl_cmd_merge(int argc, char **argv);
static int fl_cmd_sweep(int argc, char **argv);
static int fl_cmd_rerun(int argc, char **argv);
static int fl_cmd_run(int argc, char **argv);
static int fl_cmd_keys(int argc, char **argv);
static int fl_cmd_columns(int argc, char **argv);
static int fl_cmd_platform(int argc, char **argv);
static int fl_cmd_version(int argc, char **argv);
static int fl_cmd_help(int argc, char **argv);

static const fl_cmd fl_cmds[] = {
    {"simulate",
     "SCENARIO.ini [--set section.key=value]... [--sweep section.key=v1,v2]... [--replicas N] [--seed S]"
     " [--calibration FILE.ini] [--calibrated-job FILE.ini] [--db FILE] [--events all|phases|none] [--shard I/N]"
     " [--jobs J (every core)] [--quiet] [--print]",
     "simulate a scenario's replicas on SimGrid; one row per replica in the results database", fl_cmd_simulate},
    {"advise",
     "SCENARIO.ini [--objective makespan|node-hours|energy] [--budget RUNS (2000)] [--tolerance PERCENT (0.1)] "
     "[--jobs J (every core)] [--db FILE] [--seed S] [--set section.key=value]... [--out BEST.ini] [--format "
     "table|json] "
     "[--quiet]",
     "which strategy for this job, and by how much: every strategy the app can run, each interval tuned, raced on "
     "common random numbers (the worse dropped as soon as significantly worse); a ranked table with paired "
     "differences, every run a row of the database",
     fl_cmd_advise},
    {"report",
     "DB [--scenario NAME] [--where SQL] [--format table|csv|markdown|json] [--csv] [--baseline KEY=VALUE] "
     "[--plot FILE.svg|png|pdf --x KEY [--y waste|makespan|COLUMN]] [--plot FILE --bars [--y FIGURE]] "
     "[--timeline RUN_ID --plot FILE] [--timeline RUN_ID --trace FILE.paje|FILE.json] [--html FILE.html "
     "[--timeline RUN_ID]]",
     "mean and 95% CI of makespan, waste, failures, interruptions per scenario/strategy/interval; --plot draws y "
     "against a scenario key, one line per strategy with its 95% CI band, or one run's events on a time axis "
     "(gnuplot); --trace writes one run's timeline for trace viewers (Paje: ViTE; Chrome trace events: Perfetto); "
     "--html writes one self-contained page with the table and the plots; --baseline compares each "
     "configuration with the baseline's run by run (same seed and replica: the same failures)",
     fl_cmd_report},
    {"export", "DB [--format csv|json] [--where SQL] [--all-columns] [-o FILE]",
     "the runs as data, one row per run: every results column typed, every scenario key as a column `section.key` "
     "in SI base units (for pandas, R, spreadsheets)",
     fl_cmd_export},
    {"sweep",
     "SCENARIO.ini [--launcher local|slurm] [--jobs J] [--shards N] [--dir D] [--db OUT] [--set ...]... [--sweep "
     "...]..."
     " [--replicas N] [--seed S] [--events all|phases|none] [--quiet]",
     "run a sweep as N shards on J local processes (default: one per core) or as a Slurm job array (--launcher "
     "slurm), then merge them; re-running resumes",
     fl_cmd_sweep},
    {"merge", "SHARD.sqlite... --db OUT.sqlite",
     "copy the rows of shards (simulate --shard I/N) into one database; idempotent; says which shards are missing "
     "or incomplete (exit 1)",
     fl_cmd_merge},
    {"validate", "[--replicas N (1000)] [--seed S] [--only NAME] [--jobs J (every core)] [--quiet]",
     "check the simulator against Daly's expected wall time and renewal theory", fl_cmd_validate},
    {"run",
     "SCENARIO.ini --np N [--spares S | --spare-nodes K] [--launcher local|mpirun|slurm] [--hostfile F] "
     "[--set section.key=value]... [--kill RANK@ITER|RANK@TIME]... [--kill-node NODE@ITER|NODE@TIME]... "
     "[--failures sim[:R]] [--db FILE] [--out DIR]",
     "run the scenario for real on N MPI ranks plus spares (faultline-mpi under mpirun --enable-recovery; on one "
     "machine, or on a cluster's nodes by mpirun or Slurm, mpi.ranks_per_node a node)",
     fl_cmd_run},
    {"calibrate",
     "SCENARIO.ini --np N [--launcher local|mpirun|slurm] [--hostfile F] [--set section.key=value]... "
     "[--out FILE.ini] [--quiet]",
     "measure on this machine what the simulator needs (iteration time, checkpoint costs per level, detection, "
     "recovery, restore) from real runs; write it as an INI fragment for simulate --calibration",
     fl_cmd_calibrate},
    {"agree",
     "SCENARIO.ini --np N [--failures K (4)] [--strategies a,b,c] [--repeat R] [--launcher local|mpirun|slurm] "
     "[--hostfile F] [--set section.key=value]... [--db FILE] [--quiet]",
     "calibrate, then run the scenario in both engines with the same failures, placed by progress; per strategy "
     "the real/simulated makespan ratio, R rounds and their spread (exit 1 when one is outside 0.85-1.15)",
     fl_cmd_agree},
    {"fit",
     "LOG [--format auto|csv|lanl|fta] [--per node|system] [--system S] [--nodes N] [--map FILE] [--from T] "
     "[--to T] [--sort] [--scenario]",
     "maximum-likelihood fits of the exponential, Weibull, log-normal and gamma laws to a failure log's times "
     "between failures (right-censored at the window's end) and, per system, of a bursty (Hawkes) model: CIs, "
     "log-likelihood, AIC, KS; --scenario prints the [failures] section of the best",
     fl_cmd_fit},
    {"workload",
     "TRACE.swf[.gz] [--nodes N] [--cores-per-node C] [--scheduler fcfs|easy|conservative] [--jobs FILE.csv]",
     "a job trace (Standard Workload Format) replayed on its machine without failures under each batch scheduler, "
     "beside the log as it happened: utilisation, waits, bounded slowdown; --jobs writes one schedule per job",
     fl_cmd_workload},
    {"rerun", "DB RUN_ID",
     "simulate one stored row again from its scenario text, overrides, seed and replica; exit 0 if identical",
     fl_cmd_rerun},
    {"keys", "", "list every scenario key with its type, default and meaning", fl_cmd_keys},
    {"columns", "", "the columns of the results database's runs table (Markdown: type, unit, meaning)", fl_cmd_columns},
    {"platform", "--nodes N [--speed 1Gf] [--io none|per-rank|aggregated] [--set platform.KEY=V]... [-o FILE]",
     "write the SimGrid XML of a generated platform (with --io: its network, disks and PFS)", fl_cmd_platform},
    {"ckpt", "ls|verify|dump DIR [--version N] [--label L] [--values K]", "list, verify or dump a checkpoint directory",
     fl_ckpt_cli_main},
    {"tmr", FL_TMR_CMD_ARGS, FL_TMR_CMD_SUMMARY, fl_tmr_cmd},
    {"version", "", "print the version and the optional backends built in", fl_cmd_version},
    {"help", "[COMMAND]", "this help", fl_cmd_help},
};
#define FL_NCMDS ((int)(sizeof fl_cmds / sizeof fl_cmds[0]))

static int fl_exit_code(fl_err rc)
{
  return rc == FL_OK ? 0 : rc == FL_ERR_INPUT ? 2 : 1;
}

int fl_report_error(fl_err rc)
{
  const char *dbg = getenv("FAULTLINE_DEBUG");
  fprintf(stderr, "faultline: %s\n", fl_err_msg()[0] ? fl_err_msg() : fl_err_str(rc));
  if (dbg && *dbg && strcmp(dbg, "0") != 0)
    fprintf(stderr, "faultline: (%s) at %s\n", fl_err_str(rc), fl_err_where());
  return fl_exit_code(rc);
}

int fl_usage_error(const char *cmd, const char *fmt, const char *arg)
{
  fprintf(stderr, "faultline %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see 'faultline help %s')\n", cmd);
  return 2;
}

fl_err fl_self_exe(char *buf, size_t size)
{
  ssize_t len = readlink("/proc/self/exe", buf, size - 1);
  if (len <= 0)
    return fl_err_set(FL_ERR_IO, "cannot find my own executable: %s", strerror(errno));
  buf[len] = '\0';
  return FL_OK;
}

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
  char a[32], b[32], c[32], trace[64], io[32];
  const fl_scenario *sc = job->sc;
  if (fl_sim_workload_jobs(job->sim) >= 0) {
    const char *from = fl_scenario_text(sc, "app.trace", trace, sizeof trace);
    fprintf(stderr, "faultline: %s: workload of %ld jobs (%s) under %s on %ld nodes, %s, %s failures, node MTBF %s",
            sc->name, fl_sim_workload_jobs(job->sim), from ? from : "generated", fl_sched_name(sc),
            fl_sim_ranks(job->sim), sc->strategy, sc->model,
            fl_units_format_duration(fl_sim_node_mtbf(job->sim), a, sizeof a));
    if (fl_sim_uses_key(job->sim, "app.checkpoint_io")) /* the jobs checkpoint */
      fprintf(stderr, ", checkpoint I/O %s", fl_scenario_text(sc, "app.checkpoint_io", io, sizeof io));
    if (fl_sim_workload_fewer_copies(job->sim) > 0)
      fprintf(stderr, ", %ld jobs with fewer copies (more nodes than the machine's / strategy.degree)",
              fl_sim_workload_fewer_copies(job->sim));
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
  int daly = strcmp(sc->model, "exponential") == 0 && fl_sim_is_daly_model(sim);
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

static int fl_cmd_simulate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_study *study = NULL; /* the combinations (sim/study.h) */
  const fl_scenario *base = NULL;
  fl_sim_job *jobs = NULL;
  fl_db *db = NULL;
  fl_progress prog;
  const char *path = NULL;
  char **sets = NULL;
  int nsets = 0, quiet = 0, print = 0, big = 0;
  long ncombos = 0;
  fl_study_tally acc = {0}; /* the rows this command wrote */
  fl_db_writer *writer = NULL;
  char cal_kind[64] = "";            /* --calibration: the strategy it was measured with */
  long shard_i = 1, shard_n = 1;     /* --shard I/N: this command's slice of the items */
  long ready_fd = -1, after_fd = -1; /* --ready-fd, --after-fd (sweep) */
  long pgroup = -1;                  /* --platform-group K: one process per platform */
  long nworkers = fl_sim_cores();    /* --jobs J: worker processes for a point's replicas (every core) */
  int count_only = 0;
  char shard_label[64] = "";
  double wall0 = fl_wall_seconds();

  sets = calloc((size_t)argc + 1, sizeof *sets);
  if (!sets)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    char buf[512];
    if ((v = fl_args_value(argc, argv, &i, "--set"))) {
      sets[nsets++] = strdup(v);
    } else if ((v = fl_args_value(argc, argv, &i, "--calibration")) ||
               (v = fl_args_value(argc, argv, &i, "--calibrated-job"))) {
      /* its keys are overrides, applied where it stands among the --set (stored with each row): the measured
       * costs only (the scenario keeps its job), or with --calibrated-job the measured job too (agree) */
      char **cal = NULL;
      int ncal = 0, costs_only = strcmp(argv[i - 1], "--calibration") == 0;
      char **g;
      if ((rc = costs_only ? fl_calibration_read_costs(v, &cal, &ncal, cal_kind, sizeof cal_kind)
                           : fl_calibration_read(v, &cal, &ncal)) != FL_OK) {
        rc = fl_report_error(rc);
        goto out;
      }
      g = realloc(sets, ((size_t)argc + 1 + (size_t)nsets + (size_t)ncal) * sizeof *sets);
      if (!g) {
        fl_calibration_free(&cal, ncal);
        rc = fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
        goto out;
      }
      sets = g;
      for (int k = 0; k < ncal; k++)
        sets[nsets++] = cal[k];
      free(cal);
    } else if ((v = fl_args_value(argc, argv, &i, "--sweep"))) {
      snprintf(buf, sizeof buf, "\x01%s", v); /* marked: a sweep term, not an override */
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--replicas"))) {
      snprintf(buf, sizeof buf, "run.replicas=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      snprintf(buf, sizeof buf, "run.seed=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      snprintf(buf, sizeof buf, "run.db=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--events"))) {
      snprintf(buf, sizeof buf, "run.events=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_args_value(argc, argv, &i, "--ready-fd"))) {
      /* internal (sweep): say on this descriptor, by one byte, that every input is checked and the database open */
      if (fl_args_count("--ready-fd", v, 3, 1023, &ready_fd) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--platform-group"))) {
      /* internal: only the combinations of the K-th distinct platform (SimGrid loads one per process) */
      if (fl_args_count("--platform-group", v, 0, FL_MAX_COMBOS, &pgroup) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        goto out;
      }
    } else if (strcmp(argv[i], "--count") == 0) {
      count_only = 1; /* internal, with --platform-group: set up, print this shard's rows of the group, leave */
    } else if ((v = fl_args_value(argc, argv, &i, "--after-fd"))) {
      /* internal (sweep): set up, then wait on this descriptor for the first shard's word before opening the
       * database: a byte, go on; end of file, the first shard found bad input (and said so): leave, silent */
      if (fl_args_count("--after-fd", v, 3, 1023, &after_fd) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs")) || (v = fl_args_value(argc, argv, &i, "-j"))) {
      if (fl_args_count("--jobs", v, 1, 1024, &nworkers) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        goto out;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--shard"))) {
      char *slash = strchr(v, '/'), ibuf[32];
      if (!slash || (size_t)(slash - v) >= sizeof ibuf) {
        rc = 2;
        fl_usage_error("simulate", "--shard '%s': expected I/N (shard I of N, 1 <= I <= N)", v);
        goto out;
      }
      memcpy(ibuf, v, (size_t)(slash - v));
      ibuf[slash - v] = '\0';
      if (fl_args_count("--shard N", slash + 1, 1, 1000000, &shard_n) != FL_OK ||
          fl_args_count("--shard I", ibuf, 1, shard_n, &shard_i) != FL_OK) {
        rc = 2;
        fl_usage_error("simulate", "%s", fl_err_msg());
        goto out;
      }
      snprintf(shard_label, sizeof shard_label, "shard %ld/%ld: ", shard_i, shard_n);
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (strcmp(argv[i], "--print") == 0) {
      print = 1;
    } else if (argv[i][0] == '-') {
      rc = 2;
      fl_usage_error("simulate", "unknown option or missing value '%s'", argv[i]);
      goto out;
    } else if (!path) {
      path = argv[i];
    } else {
      rc = 2;
      fl_usage_error("simulate", "one scenario at a time ('%s' is extra)", argv[i]);
      goto out;
    }
  }
  if (!path) {
    rc = 2;
    fl_usage_error("simulate", "%s", "no scenario file given");
    goto out;
  }
  for (int i = 0; i < nsets; i++)
    FL_CHECK(sets[i] != NULL, FL_ERR_NOMEM, "out of memory");

  /* Everything the user gave is checked before the database is touched: every combination of the sweep is
   * parsed and set up first. */
  FL_TRY(fl_study_plan(path, sets, nsets, &study));
  FL_TRY(fl_study_check_keys(study));
  study->jobs = (int)nworkers;
  base = study->base;
  ncombos = study->ncombos;
  if (cal_kind[0] && strcmp(cal_kind, base->strategy) != 0 && !quiet)
    /* the file holds the checkpoint cost of the strategy it was calibrated with (each level costs its own) */
    fprintf(stderr,
            "faultline: warning: the calibration was measured with strategy %s, this scenario runs %s: its checkpoint "
            "cost is %s's (faultline calibrate ... --set strategy.kind=%s measures %s's)\n",
            cal_kind, base->strategy, cal_kind, base->strategy, base->strategy);
  if (!quiet) {
    char *copy = strdup(study->dropped), *save = NULL;
    FL_CHECK(copy != NULL, FL_ERR_NOMEM, "out of memory");
    for (char *term = strtok_r(copy, " ", &save); term; term = strtok_r(NULL, " ", &save))
      fprintf(stderr,
              "faultline: the command line sets a key of the scenario's sweep term '%s': that term is left out\n",
              term);
    free(copy);
  }
  if (study->ngroups > 1 && pgroup < 0) {
    /* several platforms: a process each (this command, re-run with --platform-group K), first all checked and
     * counted, nothing written, then run one after the other */
    char self[4096];
    int code = 0;
    fl_groups_opts go = {.self = self,
                         .argc = argc,
                         .argv = argv,
                         .ngroups = study->ngroups,
                         .print = print,
                         .ready_fd = ready_fd,
                         .after_fd = after_fd,
                         .db = study->points[0].sc->db,
                         .shard_i = shard_i,
                         .shard_n = shard_n,
                         .sweep_id = study->sweep_id};
    FL_TRY(fl_self_exe(self, sizeof self));
    rc = fl_shards_groups(&go, &code);
    after_fd = -1; /* read there, if at all */
    FL_TRY(rc);
    rc = code;
    goto out;
  }
  FL_TRY(fl_study_setup(study, pgroup));
  jobs = study->points;
  if (print) {
    for (long c = 0; c < ncombos; c++) {
      if (pgroup >= 0 && jobs[c].group != pgroup)
        continue;
      if (ncombos > 1)
        printf("; combination %ld of %ld\n", c + 1, ncombos);
      fl_scenario_print(jobs[c].sc, stdout);
    }
    goto done;
  }
  if (count_only) {
    /* this shard's rows of this process's platform: the parent adds them up for the shard's plan */
    printf("%ld\n", fl_study_rows(study, shard_i, shard_n));
    goto done;
  }

  if (after_fd >= 0 && !fl_shards_go(&after_fd)) {
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
  if (ready_fd >= 0) {
    ssize_t w = write((int)ready_fd, "1", 1);
    (void)w; /* the sweep reads EOF as "not ready": nothing to do if it went away */
    close((int)ready_fd);
  }
  if (shard_n > 1 && pgroup < 0)
    FL_TRY(fl_db_record_shard(db, study->sweep_id, shard_i, shard_n, fl_study_rows(study, shard_i, shard_n)));
  fl_progress_init(&prog, stderr, quiet);
  {
    fl_simulate_say say = {.prog = &prog, .quiet = quiet, .shard_n = shard_n, .label = shard_label, .wall0 = wall0};
    fl_study_hooks hooks = {
        .ctx = &say, .point = fl_simulate_point, .row = fl_simulate_row, .point_done = fl_simulate_point_done};
    rc = fl_study_run(study, db, writer, shard_i, shard_n, &hooks, &acc);
    free(say.advice_said);
    FL_TRY(rc);
  }
  if (acc.nown > 0) {
    fl_report_opts ro = {.scenario = NULL, .ids = acc.own, .nids = acc.nown};
    FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
  }
  if ((acc.skipped || shard_n > 1) && !quiet)
    fprintf(stderr, "faultline: %s%ld row%s written, %ld already in %s and skipped\n", shard_label, (long)acc.nown,
            acc.nown == 1 ? "" : "s", acc.skipped, jobs[0].sc->db);
  if (!quiet) {
    char procs[48] = "in one process";
    if (fl_sim_workers_used() > 1)
      snprintf(procs, sizeof procs, "on %d worker processes", fl_sim_workers_used());
    fprintf(stderr, "faultline: %zu run%s in %.2f s %s; rows %" PRId64 "..%" PRId64 "%s of %s\n", acc.nown,
            acc.nown == 1 ? "" : "s", fl_wall_seconds() - wall0, procs, acc.first_id, acc.last_id,
            (int64_t)acc.nown == acc.last_id - acc.first_id + 1 ? "" : " (interleaved with another writer's)",
            jobs[0].sc->db);
  }
done:
  if (rc != FL_OK && after_fd >= 0 && !fl_shards_go(&after_fd))
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
  for (int i = 0; i < nsets; i++)
    free(sets[i]);
  free(sets);
  if (big) {
    fflush(NULL);
    _exit((int)rc);
  }
  return (int)rc;
}

/* ---- report ---- */

static int fl_cmd_report(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_report_opts ro = {0};
  fl_plot_opts po = {0};
  const char *path = NULL;
  long timeline = 0;
  const char *html = NULL, *baseline = NULL, *trace = NULL;
  int bars = 0;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--scenario")))
      ro.scenario = po.scenario = v;
    else if ((v = fl_args_value(argc, argv, &i, "--plot")))
      po.file = v;
    else if ((v = fl_args_value(argc, argv, &i, "--x")))
      po.x = v;
    else if ((v = fl_args_value(argc, argv, &i, "--timeline"))) {
      long id;
      if (fl_args_count("--timeline", v, 1, LONG_MAX, &id) != FL_OK)
        return fl_usage_error("report", "%s", fl_err_msg());
      timeline = id;
    } else if ((v = fl_args_value(argc, argv, &i, "--y")))
      po.y = v;
    else if ((v = fl_args_value(argc, argv, &i, "--html")))
      html = v;
    else if ((v = fl_args_value(argc, argv, &i, "--trace")))
      trace = v;
    else if ((v = fl_args_value(argc, argv, &i, "--where")))
      ro.where = v;
    else if ((v = fl_args_value(argc, argv, &i, "--baseline")))
      baseline = v;
    else if (strcmp(argv[i], "--bars") == 0)
      bars = 1;
    else if ((v = fl_args_value(argc, argv, &i, "--format")) || strcmp(argv[i], "--csv") == 0) {
      const fl_report_format *f = fl_report_format_find(v ? v : "csv"); /* --csv: --format csv */
      char names[256], msg[512];
      if (!f) {
        snprintf(msg, sizeof msg, "--format '%s': expected %s", v, fl_report_format_names(names, sizeof names));
        return fl_usage_error("report", "%s", msg);
      }
      if (ro.format && ro.format != f) {
        snprintf(msg, sizeof msg, "two formats asked for ('%s', then '%s'): give one", ro.format->name, f->name);
        return fl_usage_error("report", "%s", msg);
      }
      ro.format = f;
    } else if (argv[i][0] == '-')
      return fl_usage_error("report", "unknown option or missing value '%s'", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return fl_usage_error("report", "one database at a time ('%s' is extra)", argv[i]);
  }
  if (!path)
    return fl_usage_error("report", "%s", "no database given");
  if (access(path, F_OK) != 0)
    return fl_report_error(fl_err_set(FL_ERR_INPUT, "%s: no such results database", path));
  if ((po.x || po.y) && !po.file)
    return fl_usage_error("report", "%s", "--x and --y go with --plot FILE");
  if (baseline && (html || po.file || timeline))
    return fl_usage_error("report", "%s", "--baseline prints a comparison: not with --plot, --timeline or --html");
  if (baseline && ro.format && ro.format->compare < 0) {
    char msg[512];
    snprintf(msg, sizeof msg, "--baseline: the %s format writes no comparison; %s", ro.format->name,
             fl_report_format_comparers());
    return fl_usage_error("report", "%s", msg);
  }
  if (html && (po.file || po.x || po.y || trace))
    return fl_usage_error("report", "%s",
                          "--html FILE stands alone (its page draws the plots itself; --timeline RUN_ID picks its "
                          "timeline's run)");
  if (trace && (!timeline || po.file || html || baseline || bars))
    return fl_usage_error("report", "%s", "--trace FILE goes with --timeline RUN_ID (and no --plot, --html)");
  if (timeline && !trace && !html && (!po.file || po.x || po.y))
    return fl_usage_error("report", "%s", "--timeline RUN_ID goes with --plot FILE (and no --x, --y) or --trace FILE");
  if (bars && (!po.file || po.x || timeline))
    return fl_usage_error("report", "%s", "--bars goes with --plot FILE (and no --x: the bars are the configurations)");
  if (po.file && !po.x && !timeline && !bars)
    return fl_usage_error("report", "%s",
                          "--plot needs --x KEY (the scenario key on the horizontal axis) or --timeline RUN_ID");
  if ((po.file && fl_args_output("--plot", po.file) != FL_OK) || (html && fl_args_output("--html", html) != FL_OK) ||
      (trace && fl_args_output("--trace", trace) != FL_OK))
    return fl_report_error(FL_ERR_INPUT);
  FL_TRY(fl_db_open_readonly(path, &db));
  if (html) {
    FL_TRY(fl_report_html(fl_db_sqlite(db), path, ro.scenario, timeline, html));
    fprintf(stderr, "faultline: %s: the report, its plots inline (open it in a browser)\n", html);
  } else if (timeline) {
    fl_db *mem = NULL;
    rc = fl_rerun_timeline(fl_db_sqlite(db), path, timeline, &mem);
    if (rc == FL_OK && trace)
      rc = fl_trace_export(fl_db_sqlite(mem ? mem : db), timeline, trace);
    else if (rc == FL_OK)
      rc = fl_plot_timeline(fl_db_sqlite(mem ? mem : db), timeline, po.file);
    fl_db_close(&mem);
    FL_TRY(rc);
    fprintf(stderr, "faultline: %s: the timeline of run %ld\n", trace ? trace : po.file, timeline);
  } else if (baseline) {
    fl_compare_opts co = {baseline, ro.scenario, ro.where,
                          ro.format ? (fl_compare_format)ro.format->compare : FL_COMPARE_TABLE};
    FL_TRY(fl_compare_print(fl_db_sqlite(db), path, &co, stdout));
  } else if (bars) {
    FL_TRY(fl_plot_bars(fl_db_sqlite(db), &po));
    fprintf(stderr, "faultline: %s: %s by configuration\n", po.file, po.y ? po.y : "waste");
  } else if (po.file) {
    FL_TRY(fl_plot(fl_db_sqlite(db), &po));
    fprintf(stderr, "faultline: %s: %s against %s\n", po.file, po.y ? po.y : "waste", po.x);
  } else {
    FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
  }
done:
  fl_db_close(&db);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}

/* ---- export ---- */

static int fl_cmd_export(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_export_opts eo = {FL_EXPORT_CSV, NULL, 0};
  const char *path = NULL, *file = NULL, *format = NULL;
  char tmp[4200] = "";
  FILE *f = stdout;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--format"))) {
      if (format)
        return fl_usage_error("export", "--format given twice (then '%s')", v);
      format = v;
      if (strcmp(v, "json") == 0)
        eo.format = FL_EXPORT_JSON;
      else if (strcmp(v, "csv") != 0)
        return fl_usage_error("export", "--format '%s': expected csv or json", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--where")))
      eo.where = v;
    else if ((v = fl_args_value(argc, argv, &i, "-o")))
      file = v;
    else if (strcmp(argv[i], "--all-columns") == 0)
      eo.all_columns = 1;
    else if (argv[i][0] == '-')
      return fl_usage_error("export", "unknown option or missing value '%s'", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return fl_usage_error("export", "one database at a time ('%s' is extra)", argv[i]);
  }
  if (!path)
    return fl_usage_error("export", "%s", "no database given");
  if (access(path, F_OK) != 0)
    return fl_report_error(fl_err_set(FL_ERR_INPUT, "%s: no such results database", path));
  if (file && fl_args_output("-o", file) != FL_OK)
    return fl_report_error(FL_ERR_INPUT);
  FL_TRY(fl_db_open_readonly(path, &db));
  if (file) {
    /* written beside, renamed when complete: a failed export leaves no half file */
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", file, (long)getpid());
    FL_TRY(fl_cleanup_add(tmp));
    FL_CHECK((f = fopen(tmp, "w")) != NULL, FL_ERR_IO, "%s: %s", tmp, strerror(errno));
  }
  FL_TRY(fl_export(fl_db_sqlite(db), path, &eo, f));
  if (file) {
    int closed = fclose(f);
    f = stdout;
    FL_CHECK(closed == 0, FL_ERR_IO, "%s: %s", tmp, strerror(errno));
    FL_CHECK(rename(tmp, file) == 0, FL_ERR_IO, "%s: %s", file, strerror(errno));
    fl_cleanup_remove(tmp);
    tmp[0] = '\0';
  }
done:
  if (f != stdout)
    fclose(f);
  if (tmp[0])
    fl_cleanup_remove(tmp); /* unlinks it */
  fl_db_close(&db);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}

/* ---- merge ---- */

static int fl_cmd_merge(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *out = NULL;
  const char **shards = calloc((size_t)argc + 1, sizeof *shards);
  int n = 0, incomplete = 0;

  if (!shards)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      out = v;
    } else if (argv[i][0] == '-') {
      free(shards);
      return fl_usage_error("merge", "unknown option or missing value '%s'", argv[i]);
    } else {
      shards[n++] = argv[i];
    }
  }
  if (!out || n == 0) {
    free(shards);
    return fl_usage_error("merge", "%s", "give the shards and --db OUT");
  }
  FL_TRY(fl_db_merge(out, shards, n, stderr, &incomplete));
done:
  free(shards);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return incomplete ? 1 : 0;
}

/* ---- sweep ---- */

/* `faultline sweep S.ini --launcher local`: the sweep as N shards run by J processes of this machine, each
 * `faultline simulate ... --shard I/N --db DIR/shard-I.sqlite`, then merged into the scenario's database. A shard
 * that already holds its rows (a re-run after a crash) skips them, so re-running the sweep resumes it. */
static int fl_cmd_sweep(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *path = NULL, *dir = "sweep", *launcher = "local", *out = NULL;
  const char **pass = calloc((size_t)argc + 1, sizeof *pass);
  char self[4096];
  long jobs = sysconf(_SC_NPROCESSORS_ONLN), nshards = -1;
  int npass = 0, quiet = 0, code = 0, jobs_given = 0;
  fl_scenario *sc = NULL;

  if (!pass)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  if (jobs < 1)
    jobs = 1;
  for (int i = 1; i < argc; i++) {
    const char *v;
    int start = i;
    if ((v = fl_args_value(argc, argv, &i, "--launcher"))) {
      launcher = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs"))) {
      if (fl_args_count("--jobs", v, 1, 4096, &jobs) != FL_OK) {
        free(pass);
        return fl_usage_error("sweep", "%s", fl_err_msg());
      }
      jobs_given = 1;
    } else if ((v = fl_args_value(argc, argv, &i, "--shards"))) {
      if (fl_args_count("--shards", v, 1, 100000, &nshards) != FL_OK) {
        free(pass);
        return fl_usage_error("sweep", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--dir"))) {
      dir = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--db"))) {
      out = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if ((v = fl_args_value(argc, argv, &i, "--set")) || (v = fl_args_value(argc, argv, &i, "--sweep")) ||
               (v = fl_args_value(argc, argv, &i, "--replicas")) || (v = fl_args_value(argc, argv, &i, "--seed")) ||
               (v = fl_args_value(argc, argv, &i, "--events"))) {
      for (int k = start; k <= i; k++) /* "--set X" or "--set=X", passed on as given */
        pass[npass++] = argv[k];
    } else if (argv[i][0] == '-') {
      free(pass);
      return fl_usage_error("sweep", "unknown option or missing value '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      free(pass);
      return fl_usage_error("sweep", "one scenario at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!path) {
    free(pass);
    return fl_usage_error("sweep", "%s", "no scenario file given");
  }
  if (strcmp(launcher, "local") != 0 && strcmp(launcher, "slurm") != 0) {
    free(pass);
    return fl_usage_error("sweep", "--launcher '%s': expected local or slurm", launcher);
  }
  if (nshards < 0)
    nshards = jobs;
  FL_TRY(fl_scenario_load(path, &sc));
  if (!out)
    out = sc->db;
  FL_TRY(fl_self_exe(self, sizeof self));
  {
    fl_shards_opts so = {.self = self,
                         .path = path,
                         .pass = pass,
                         .npass = npass,
                         .dir = dir,
                         .out = out,
                         .name = sc->name,
                         .nshards = nshards,
                         .jobs = jobs,
                         .jobs_given = jobs_given,
                         .slurm = strcmp(launcher, "slurm") == 0,
                         .quiet = quiet};
    FL_TRY(fl_shards_run(&so, &code));
  }
done:
  free(pass);
  fl_scenario_destroy(&sc);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return code;
}

/* ---- validate ---- */

static int fl_cmd_validate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_validate_opts vo = {.replicas = 1000, .seed = 1, .only = NULL, .quiet = 0, .jobs = fl_sim_cores()};
  int failed = 0;

  for (int i = 1; i < argc; i++) {
    const char *v;
    double x;
    if ((v = fl_args_value(argc, argv, &i, "--replicas"))) {
      if (fl_units_number(v, 1, &x) != FL_OK || x < 2 || x > 1e7)
        return fl_usage_error("validate", "--replicas '%s': expected a whole number >= 2", v);
      vo.replicas = (long)x;
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      if (fl_units_u64(v, &vo.seed) != FL_OK)
        return fl_usage_error("validate", "--seed '%s': expected a whole number from 0 to 2^64 - 1", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--jobs")) || (v = fl_args_value(argc, argv, &i, "-j"))) {
      long j;
      if (fl_args_count("--jobs", v, 1, 1024, &j) != FL_OK)
        return fl_usage_error("validate", "%s", fl_err_msg());
      vo.jobs = (int)j;
    } else if ((v = fl_args_value(argc, argv, &i, "--only"))) {
      char names[1024], msg[1200];
      if (!fl_validate_matches(v, names, sizeof names)) {
        snprintf(msg, sizeof msg, "--only '%.100s' names no check (checks: %s)", v, names);
        return fl_usage_error("validate", "%s", msg);
      }
      vo.only = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      vo.quiet = 1;
    } else {
      return fl_usage_error("validate", "unknown argument '%s'", argv[i]);
    }
  }
  FL_TRY(fl_validate_run(&vo, stdout, &failed, NULL, 0, NULL));
done:
  if (rc != FL_OK)
    return fl_report_error(rc);
  return failed ? 1 : 0;
}

/* ---- run (real mode): the launcher is exec/launch.c ---- */

static int fl_cmd_run(int argc, char **argv)
{
  fl_err rc;
  const char *path = NULL, *out = NULL;
  char **margv = NULL, exe[4096];
  int margc = 0, np = 0, quiet = 0, code = 1;
  long spares = -1, spare_nodes = -1, failures_replica = -1;
  const char *launcher = "local", *hostfile = NULL;

  margv = calloc((size_t)argc * 2 + 40, sizeof *margv);
  if (!margv)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  /* the scenario is checked here first, so bad input is one line and nothing runs */
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--np"))) {
      long n;
      if (fl_args_count("--np", v, 1, FL_RUN_MAX_PROCS, &n) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
      np = (int)n;
    } else if ((v = fl_args_value(argc, argv, &i, "--spares"))) {
      if (fl_args_count("--spares", v, 0, FL_RUN_MAX_PROCS, &spares) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--spare-nodes"))) {
      if (fl_args_count("--spare-nodes", v, 0, FL_RUN_MAX_PROCS, &spare_nodes) != FL_OK) {
        free(margv);
        return fl_usage_error("run", "%s", fl_err_msg());
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--launcher"))) {
      if (strcmp(v, "local") != 0 && strcmp(v, "mpirun") != 0 && strcmp(v, "slurm") != 0) {
        free(margv);
        return fl_usage_error("run", "--launcher '%s': local, mpirun or slurm", v);
      }
      launcher = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--hostfile"))) {
      hostfile = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--failures"))) {
      char *end = NULL;
      if (strcmp(v, "sim") == 0)
        failures_replica = 0;
      else if (strncmp(v, "sim:", 4) == 0 && v[4] && (failures_replica = strtol(v + 4, &end, 10)) >= 0 && !*end)
        ;
      else {
        free(margv);
        return fl_usage_error("run", "--failures '%s': sim or sim:REPLICA (the simulator's draws of that replica)", v);
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--set")) || (v = fl_args_value(argc, argv, &i, "--kill")) ||
               (v = fl_args_value(argc, argv, &i, "--kill-node")) || (v = fl_args_value(argc, argv, &i, "--db"))) {
      margv[margc++] = argv[i - 1];
      margv[margc++] = argv[i];
    } else if ((v = fl_args_value(argc, argv, &i, "--out"))) {
      out = v;
    } else if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) {
      quiet = 1;
    } else if (argv[i][0] == '-') {
      free(margv);
      return fl_usage_error("run", "unknown option or missing value '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      free(margv);
      return fl_usage_error("run", "one scenario at a time ('%s' is extra)", argv[i]);
    }
  }
  if (!path || np < 1) {
    free(margv);
    return fl_usage_error("run", "%s", "give a scenario and --np N");
  }
  if (hostfile && strcmp(launcher, "mpirun") != 0) {
    free(margv);
    return fl_usage_error("run", "--hostfile %s: for --launcher mpirun (slurm takes the allocation's nodes)", hostfile);
  }
  if (hostfile && access(hostfile, R_OK) != 0) {
    free(margv);
    return fl_usage_error("run", "--hostfile %s: cannot be read", hostfile);
  }
  if ((rc = fl_self_exe(exe, sizeof exe)) == FL_OK) {
    fl_launch_opts lo = {.path = path,
                         .args = margv,
                         .nargs = margc,
                         .np = np,
                         .spares = spares,
                         .out = out,
                         .quiet = quiet,
                         .exe_dir = exe,
                         .launcher = launcher,
                         .spare_nodes = spare_nodes,
                         .hostfile = hostfile,
                         .failures_replica = failures_replica};
    *strrchr(exe, '/') = '\0';
    rc = fl_launch_run(&lo, &code);
  }
  free(margv);
  return rc == FL_OK ? code : fl_report_error(rc);
}

/* ---- rerun ---- */

static int fl_cmd_rerun(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL, *mem = NULL;
  sqlite3_stmt *st = NULL, *again = NULL;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  fl_sim_result res;
  double id = 0;
  int diffs = -1, compared = 0, cols[FL_RR_N];
  double max_rel = 0.0;
  const char *written = "";

  if (argc != 3 || fl_units_number(argv[2], 1, &id) != FL_OK || id < 1)
    return fl_usage_error("rerun", "%s", "expected a database and a run id");
  FL_TRY(fl_rerun_load(argv[1], id, &db, &st, cols));
  FL_TRY(fl_rerun_sim(argv[1], id, st, cols, NULL, &sc, &sim, &res, &mem));
  FL_CHECK(sqlite3_prepare_v2(fl_db_sqlite(mem), "SELECT * FROM runs WHERE id = 1", -1, &again, NULL) == SQLITE_OK &&
               sqlite3_step(again) == SQLITE_ROW,
           FL_ERR_DB, "rerun: %s", sqlite3_errmsg(fl_db_sqlite(mem)));
  printf("run %.0f (scenario %s, seed %" PRIu64 ", replica %ld)\n", id, sc->name, sc->seed,
         (long)sqlite3_column_int64(st, cols[FL_RR_REPLICA]));
  printf("  stored:       status %-9s\n  re-simulated: status %-9s\n", sqlite3_column_text(st, cols[FL_RR_STATUS]),
         res.status);
  diffs = fl_rerun_compare(st, again, &compared, &max_rel);
  for (int k = 0; k < sqlite3_column_count(st); k++)
    if (strcmp(sqlite3_column_name(st, k), "created_at") == 0 && sqlite3_column_text(st, k))
      written = (const char *)sqlite3_column_text(st, k);
  if (strcmp((const char *)sqlite3_column_text(st, cols[FL_RR_STATUS]), res.status) != 0)
    diffs++;
  printf("  %s (%d numeric columns compared exactly: makespan, failures, interruptions, lost work, ...)\n",
         diffs ? "DIFFERENT" : "identical", compared);
  if (diffs && fl_sim_io_by_server(sim) && strcmp(written, "2026-11-27") < 0)
    printf("  expected for a row written before 2026-11-27: its file-level costs come from aggregated PFS flows, "
           "which now follow the ranks' striping server by server (within 1 %% of per-rank flows; they were up to "
           "16 %% off)\n");
  else if (diffs && fl_sim_jobs_aggregated(sim) && strcmp(written, "2026-11-29") < 0)
    printf("  expected for a workload row written before 2026-11-29: its jobs' file-level I/O now moves per cabinet "
           "and server (platform.io_flows = aggregated, or auto above 4,096 nodes); workloads used per-node flows "
           "then, as simulate --set platform.io_flows=per-rank does\n");
  else if (diffs && max_rel < 1e-9 && (fl_sim_platform_costs(sim) || fl_sim_forks(sim)) &&
           strcmp(written, "2026-11-29") < 0)
    printf("  expected for a row written by a faultline before 2026-11-29, in the last digits: a sweep's later point "
           "had its "
           "checkpoint costs probed after another's, and a task graph's later replica ran on from another's "
           "SimGrid clock; both now start from the clock at zero, as rerun does\n");
done:
  sqlite3_finalize(st);
  sqlite3_finalize(again);
  fl_db_close(&db);
  fl_db_close(&mem);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return diffs == 0 ? 0 : 1;
}

/* ---- keys, platform, version, help ---- */

static int fl_cmd_keys(int argc, char **argv)
{
  (void)argv;
  if (argc > 1)
    return fl_usage_error("keys", "takes no argument ('%s')", argv[1]);
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    char name[64];
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    printf("%-26s %-20s default %-14s %s%s%s%s\n", name, k->type, k->def[0] ? k->def : "(unset)", k->doc,
           k->owner ? " (declared by " : "", k->owner ? k->owner : "", k->owner ? ")" : "");
  }
  /* the failure laws, from their registry (sim/failure_models) */
  printf("\nfailure models (failures.model):\n ");
  for (int i = 0; i < fl_fm_registry_count(); i++)
    printf(" %s", fl_fm_registry_name(i));
  printf("\n");
  /* the applications, from their registry (apps/) */
  printf("\napplications (app.kind):\n");
  for (int i = 0; i < fl_app_count(); i++) {
    const fl_app *app = fl_app_at(i);
    unsigned both = FL_APP_SIM | FL_APP_REAL;
    printf("  %-13s %-17s %s\n", app->name,
           (app->flags & both) == both ? "simulator, real"
           : (app->flags & FL_APP_SIM) ? "simulator"
                                       : "real",
           app->summary);
  }
  /* the strategies and the keys each reads, from the registry (policy/strategies) */
  printf("\nstrategies (strategy.kind):\n");
  for (int i = 0; i < fl_strat_count(); i++) {
    const fl_strategy_ops *ops = fl_strat_at(i);
    printf("  %-13s %s\n", ops->name, ops->summary);
    for (const fl_strategy_key *key = ops->keys; key->key; key++)
      printf("  %-13s   reads %-24s %s%s\n", "", key->key, key->use,
             key->shapes == FL_SHAPE_TASKS
                 ? " (tasks)"
                 : (key->shapes == FL_SHAPE_RANKS && ops->shapes != FL_SHAPE_RANKS ? " (ranks)" : ""));
  }
  return 0;
}

static int fl_cmd_columns(int argc, char **argv)
{
  if (argc > 1)
    return fl_usage_error("columns", "takes no argument ('%s')", argv[1]);
  fl_run_columns_markdown(stdout);
  return 0;
}

static int fl_cmd_platform(int argc, char **argv)
{
  fl_err rc = FL_OK;
  double nodes = 0, speed = 1e9;
  const char *out = NULL;
  FILE *f = stdout;
  fl_scenario *sc = NULL;
  fl_platform_gen gen;
  int io = 0, status = 0;

  rc = fl_scenario_from_text("", "faultline platform", NULL, &sc);
  if (rc != FL_OK)
    return fl_report_error(rc);
  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_args_value(argc, argv, &i, "--nodes"))) {
      if (fl_units_number(v, 1, &nodes) != FL_OK || nodes < 1 || nodes > 2e9) {
        status = fl_usage_error("platform", "--nodes '%s': expected a whole number >= 1", v);
        goto done;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--speed"))) {
      if (fl_units_speed(v, &speed) != FL_OK || !(speed > 0)) {
        status = fl_usage_error("platform", "--speed '%s': expected a speed such as 1Gf", v);
        goto done;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--io"))) {
      if (strcmp(v, "none") == 0)
        io = 0;
      else if (strcmp(v, "per-rank") == 0)
        io = FL_IO_PER_RANK;
      else if (strcmp(v, "aggregated") == 0)
        io = FL_IO_AGGREGATED;
      else {
        status = fl_usage_error("platform", "--io '%s': expected none, per-rank or aggregated", v);
        goto done;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "--set"))) {
      if (strncmp(v, "platform.", 9) != 0) {
        status = fl_usage_error("platform", "--set '%s': only platform.* keys shape a generated platform", v);
        goto done;
      }
      if ((rc = fl_scenario_set(sc, v)) != FL_OK) {
        status = fl_report_error(rc);
        goto done;
      }
    } else if ((v = fl_args_value(argc, argv, &i, "-o"))) {
      out = v;
    } else {
      status = fl_usage_error("platform", "unknown argument '%s'", argv[i]);
      goto done;
    }
  }
  if (nodes < 1) {
    status = fl_usage_error("platform", "%s", "--nodes is required");
    goto done;
  }
  fl_platform_gen_from(sc, (long)nodes, io, &gen);
  gen.speed = speed;
  if (!fl_platform_gen_routable(&gen)) {
    char why[128];
    snprintf(why, sizeof why, "%ld cabinets, at most %ld (raise platform.cabinet)", fl_platform_gen_cabinets(&gen),
             FL_PLATFORM_PER_RANK_MAX_CABINETS);
    status = fl_usage_error("platform", "--io per-rank: %s", why);
    goto done;
  }
  if (out) {
    f = fopen(out, "w");
    if (!f) {
      status = fl_report_error(fl_err_set(FL_ERR_IO, "%s: %s", out, strerror(errno)));
      goto done;
    }
  }
  rc = fl_platform_write_xml(f, &gen);
  if (out && fclose(f) != 0 && rc == FL_OK)
    rc = fl_err_set(FL_ERR_IO, "%s: %s", out, strerror(errno));
  status = rc == FL_OK ? 0 : fl_report_error(rc);
done:
  fl_scenario_destroy(&sc);
  return status;
}

static int fl_cmd_version(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  printf("faultline %s (MPI %s, CUDA %s, HDF5 %s, ZFP %s, GLPK %s)\n", FL_VERSION, FL_HAVE_MPI ? "yes" : "no",
         FL_HAVE_CUDA ? "yes" : "no", FL_HAVE_HDF5 ? "yes" : "no", FL_HAVE_ZFP ? "yes" : "no",
         FL_HAVE_GLPK ? "yes" : "no");
  return 0;
}

static int fl_cmd_help(int argc, char **argv)
{
  if (argc > 1) {
    for (int i = 0; i < FL_NCMDS; i++)
      if (strcmp(fl_cmds[i].name, argv[1]) == 0) {
        printf("usage: faultline %s %s\n  %s\n", fl_cmds[i].name, fl_cmds[i].args, fl_cmds[i].summary);
        if (strcmp(argv[1], "simulate") == 0) {
          printf("\nfailure models:");
          for (int k = 0; k < fl_fm_registry_count(); k++)
            printf(" %s", fl_fm_registry_name(k));
          printf("\nstrategies:");
          for (int k = 0; k < fl_strat_count(); k++) {
            char apps[256];
            printf(" %s (%s)", fl_strat_at(k)->name, fl_sim_strategy_apps(fl_strat_at(k)->name, apps, sizeof apps));
          }
          printf("\nscenario keys: faultline keys; docs/scenarios.md\n");
        }
        if (strcmp(argv[1], "report") == 0) {
          printf("\nformats (--format):\n");
          for (int k = 0; k < fl_report_format_count(); k++)
            printf("  %-9s %s\n", fl_report_format_at(k)->name, fl_report_format_at(k)->summary);
        }
        return 0;
      }
    return fl_usage_error("help", "unknown command '%s'", argv[1]);
  }
  printf("faultline %s — which resilience strategy should this job use on this machine, and what will it cost?\n\n"
         "usage: faultline COMMAND [ARGS]\n\n",
         FL_VERSION);
  for (int i = 0; i < FL_NCMDS; i++)
    printf("  %-9s %s\n", fl_cmds[i].name, fl_cmds[i].summary);
  printf("\n'faultline help COMMAND' shows a command's arguments. Exit status: 0 ok, 1 failure, 2 bad input.\n");
  return 0;
}

int main(int argc, char **argv)
{
  fl_cleanup_install();              /* SIGINT, SIGTERM, SIGHUP, SIGQUIT end us cleanly, removing temporary files */
  if (fl_registries_init() != FL_OK) /* the plugins' own keys join the scenario table */
    return fl_report_error(FL_ERR_INTERNAL);
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
    return fl_cmd_help(1, argv);
  if (strcmp(argv[1], "--version") == 0)
    return fl_cmd_version(1, argv);
  for (int i = 0; i < FL_NCMDS; i++)
    if (strcmp(fl_cmds[i].name, argv[1]) == 0) {
      int code;
      /* `faultline CMD --help` (or -h) anywhere among its arguments: that command's help, exit 0 */
      for (int a = 2; a < argc; a++)
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
          char *hargv[] = {"help", argv[1], NULL};
          return fl_cmd_help(2, hargv);
        }
      code = fl_cmds[i].fn(argc - 1, argv + 1);
      fflush(stdout);
      fflush(stderr);
      return code;
    }
  fprintf(stderr, "faultline: unknown command '%s' (see 'faultline help')\n", argv[1]);
  return 2;
}
