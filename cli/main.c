/* main.c — the `faultline` command: a static table of subcommands, --help generated from it; the commands live in
 * their own files (cli.h), main.c keeps the table, help, keys, columns, platform and version.
 *
 * Exit status: 0 success, 1 a run or environment failure, 2 bad input (scenario, trace, command line). Bad
 * input is always found before the results database is opened, so it writes nothing. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "app.h"
#include "args.h"
#include "batch.h"
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
#include "rule.h"
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
     "DB [--scenario NAME] [--where SQL] [--format {formats}] [--csv] [--baseline KEY=VALUE] "
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
    {"workload", "TRACE.swf[.gz] [--nodes N] [--cores-per-node C] [--scheduler {schedulers}] [--jobs FILE.csv]",
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
  /* the interval rules, from their registry (policy/intervals) */
  printf("\ninterval rules (strategy.interval):\n");
  for (int i = 0; i < fl_interval_rule_count(); i++) {
    const fl_interval_rule *r = fl_interval_rule_at(i);
    printf("  %-13s %s%s%s\n", strcmp(r->name, "fixed") == 0 ? "(a duration)" : r->name, r->doc,
           (r->needs & FL_IRULE_HAZARD) ? "; needs an engine that tracks the job's failure hazard" : "",
           (r->needs & FL_IRULE_LEVELS) ? "; needs an engine that gives every level's failure rates" : "");
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

/* A command's arguments with the registries' names where they stand: {formats} (the report's formats),
 * {schedulers} (the batch schedulers), each joined by '|': a plugin added is in the usage line, never stale. */
static void fl_print_args(const char *args)
{
  for (const char *p = args; *p;) {
    if (strncmp(p, "{formats}", 9) == 0) {
      for (int k = 0; k < fl_report_format_count(); k++)
        printf("%s%s", k ? "|" : "", fl_report_format_at(k)->name);
      p += 9;
    } else if (strncmp(p, "{schedulers}", 12) == 0) {
      for (int k = 0; fl_batch_registry[k]; k++)
        printf("%s%s", k ? "|" : "", fl_batch_registry[k]->name);
      p += 12;
    } else {
      putchar(*p++);
    }
  }
}

static int fl_cmd_help(int argc, char **argv)
{
  if (argc > 1) {
    for (int i = 0; i < FL_NCMDS; i++)
      if (strcmp(fl_cmds[i].name, argv[1]) == 0) {
        printf("usage: faultline %s ", fl_cmds[i].name);
        fl_print_args(fl_cmds[i].args);
        printf("\n  %s\n", fl_cmds[i].summary);
        if (strcmp(argv[1], "simulate") == 0) {
          printf("\nfailure models:");
          for (int k = 0; k < fl_fm_registry_count(); k++)
            printf(" %s", fl_fm_registry_name(k));
          printf("\nstrategies:");
          for (int k = 0; k < fl_strat_count(); k++) {
            char apps[256];
            printf(" %s (%s)", fl_strat_at(k)->name, fl_sim_strategy_apps(fl_strat_at(k)->name, apps, sizeof apps));
          }
          {
            char names[512];
            printf("\napp kinds: %s", fl_app_names(FL_APP_SIM, names, sizeof names));
            fl_interval_rule_names(names, sizeof names);
            printf("\ninterval rules (strategy.interval): %s", names);
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
  fl_cleanup_install();                  /* SIGINT, SIGTERM, SIGHUP, SIGQUIT end us cleanly, removing temporary files */
  if (fl_sim_register_apps() != FL_OK || /* the simulator's own app kinds (sim/apps/) join the app registry */
      fl_registries_init() != FL_OK)     /* the plugins' own keys join the scenario table */
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
