/* main.c — the `faultline` command: a static table of subcommands, --help generated from it.
 *
 * Exit status: 0 success, 1 a run or environment failure, 2 bad input (scenario, trace, command line). Bad
 * input is always found before the results database is opened, so it writes nothing. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_cli.h"
#include "db.h"
#include "fl_config.h"
#include "fm.h"
#include "platform.h"
#include "progress.h"
#include "report.h"
#include "scenario.h"
#include "sim.h"
#include "units.h"
#include "validate.h"

typedef struct fl_cmd {
  const char *name;
  const char *args;
  const char *summary;
  int (*fn)(int argc, char **argv);
} fl_cmd;

static int fl_cmd_simulate(int argc, char **argv);
static int fl_cmd_report(int argc, char **argv);
static int fl_cmd_validate(int argc, char **argv);
static int fl_cmd_keys(int argc, char **argv);
static int fl_cmd_platform(int argc, char **argv);
static int fl_cmd_version(int argc, char **argv);
static int fl_cmd_help(int argc, char **argv);

static const fl_cmd fl_cmds[] = {
  {"simulate", "SCENARIO.ini [--set section.key=value]... [--replicas N] [--seed S] [--db FILE] [--events all|none]"
               " [--quiet] [--print]",
   "simulate a scenario's replicas on SimGrid; one row per replica in the results database", fl_cmd_simulate},
  {"report", "DB [--scenario NAME] [--csv]",
   "mean and 95% CI of makespan, waste, failures, interruptions per scenario/strategy/interval", fl_cmd_report},
  {"validate", "[--replicas N] [--seed S] [--only NAME] [--quiet]",
   "check the simulator against Daly's expected wall time and renewal theory", fl_cmd_validate},
  {"keys", "", "list every scenario key with its type, default and meaning", fl_cmd_keys},
  {"platform", "--nodes N [--speed 1Gf] [-o FILE]", "write the SimGrid XML of a generated platform", fl_cmd_platform},
  {"ckpt", "ls|verify|dump DIR [--version N] [--label L] [--values K]", "list, verify or dump a checkpoint directory", fl_ckpt_cli_main},
  {"version", "", "print the version and the optional backends built in", fl_cmd_version},
  {"help", "[COMMAND]", "this help", fl_cmd_help},
};
#define FL_NCMDS ((int)(sizeof fl_cmds / sizeof fl_cmds[0]))

static int fl_exit_code(fl_err rc) { return rc == FL_OK ? 0 : rc == FL_ERR_INPUT ? 2 : 1; }

static int fl_report_error(fl_err rc)
{
  const char *dbg = getenv("FAULTLINE_DEBUG");
  fprintf(stderr, "faultline: %s\n", fl_err_msg()[0] ? fl_err_msg() : fl_err_str(rc));
  if (dbg && *dbg && strcmp(dbg, "0") != 0)
    fprintf(stderr, "faultline: (%s) at %s\n", fl_err_str(rc), fl_err_where());
  return fl_exit_code(rc);
}

static int fl_usage_error(const char *cmd, const char *fmt, const char *arg)
{
  fprintf(stderr, "faultline %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see 'faultline help %s')\n", cmd);
  return 2;
}

/* "--flag value" or "--flag=value": returns the value and advances *i, or NULL. */
static const char *fl_flag_value(int argc, char **argv, int *i, const char *flag)
{
  size_t n = strlen(flag);
  if (strncmp(argv[*i], flag, n) != 0)
    return NULL;
  if (argv[*i][n] == '=')
    return argv[*i] + n + 1;
  if (argv[*i][n] == '\0' && *i + 1 < argc)
    return argv[++*i];
  return NULL;
}

/* ---- simulate ---- */

static int fl_cmd_simulate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  fl_db *db = NULL;
  fl_evlog log;
  fl_progress prog;
  const char *path = NULL;
  char **sets = NULL;
  int nsets = 0, quiet = 0, print = 0;
  int64_t first_id = 0, last_id = 0;
  double wall0 = fl_wall_seconds();

  fl_evlog_init(&log, 0);
  sets = calloc((size_t)argc + 1, sizeof *sets);
  if (!sets)
    return fl_report_error(fl_err_set(FL_ERR_NOMEM, "out of memory"));
  for (int i = 1; i < argc; i++) {
    const char *v;
    char buf[512];
    if ((v = fl_flag_value(argc, argv, &i, "--set"))) {
      sets[nsets++] = strdup(v);
    } else if ((v = fl_flag_value(argc, argv, &i, "--replicas"))) {
      snprintf(buf, sizeof buf, "run.replicas=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_flag_value(argc, argv, &i, "--seed"))) {
      snprintf(buf, sizeof buf, "run.seed=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_flag_value(argc, argv, &i, "--db"))) {
      snprintf(buf, sizeof buf, "run.db=%s", v);
      sets[nsets++] = strdup(buf);
    } else if ((v = fl_flag_value(argc, argv, &i, "--events"))) {
      snprintf(buf, sizeof buf, "run.events=%s", v);
      sets[nsets++] = strdup(buf);
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

  /* Everything the user gave is checked before the database is touched. */
  FL_TRY(fl_scenario_load(path, &sc));
  for (int i = 0; i < nsets; i++) {
    FL_CHECK(sets[i] != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_scenario_set(sc, sets[i]));
  }
  FL_TRY(fl_sim_create(sc, &sim));
  if (print) {
    fl_scenario_print(sc, stdout);
    goto done;
  }
  FL_TRY(fl_db_open(sc->db, &db));
  fl_evlog_init(&log, sc->events_all);
  fl_progress_init(&prog, stderr, quiet);
  fl_sim_set_progress(sim, &prog, sc->replicas);
  if (!quiet) {
    char a[32], b[32], c[32];
    fprintf(stderr, "faultline: %s: %ld ranks on %ld nodes, %s failures, node MTBF %s (job MTBF %s), strategy %s",
            sc->name, fl_sim_ranks(sim), fl_sim_platform_nodes(sim), sc->model,
            fl_units_format_duration(fl_sim_node_mtbf(sim), a, sizeof a),
            fl_units_format_duration(fl_sim_job_mtbf(sim), b, sizeof b), sc->strategy);
    if (isfinite(fl_sim_interval(sim)))
      fprintf(stderr, ", interval %s", fl_units_format_duration(fl_sim_interval(sim), c, sizeof c));
    fprintf(stderr, "; %ld replica%s -> %s\n", sc->replicas, sc->replicas == 1 ? "" : "s", sc->db);
  }
  for (long r = 0; r < sc->replicas; r++) {
    fl_sim_result res;
    fl_db_run row;
    int64_t id;
    FL_TRY(fl_sim_run_replica(sim, r, &res, &log));
    fl_sim_fill_row(sim, sc, r, &res, &row);
    FL_TRY(fl_db_insert_run(db, &row, &log, &id));
    if (!first_id)
      first_id = id;
    last_id = id;
  }
  fl_progress_done(&prog);
  {
    fl_report_opts ro = {.scenario = NULL, .min_id = first_id, .max_id = last_id, .csv = 0};
    FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
  }
  if (!quiet)
    fprintf(stderr, "faultline: %ld replica%s in %.2f s; rows %" PRId64 "..%" PRId64 " of %s\n", sc->replicas,
            sc->replicas == 1 ? "" : "s", fl_wall_seconds() - wall0, first_id, last_id, sc->db);
done:
  if (rc != FL_OK)
    rc = fl_report_error(rc);
out:
  fl_evlog_free(&log);
  fl_db_close(&db);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  for (int i = 0; i < nsets; i++)
    free(sets[i]);
  free(sets);
  return (int)rc;
}

/* ---- report ---- */

static int fl_cmd_report(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_report_opts ro = {0};
  const char *path = NULL;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_flag_value(argc, argv, &i, "--scenario")))
      ro.scenario = v;
    else if (strcmp(argv[i], "--csv") == 0)
      ro.csv = 1;
    else if (argv[i][0] == '-')
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
  FL_TRY(fl_db_open_readonly(path, &db));
  FL_TRY(fl_report_print(fl_db_sqlite(db), &ro, stdout));
done:
  fl_db_close(&db);
  return rc == FL_OK ? 0 : fl_report_error(rc);
}

/* ---- validate ---- */

static int fl_cmd_validate(int argc, char **argv)
{
  fl_err rc = FL_OK;
  fl_validate_opts vo = {.replicas = 400, .seed = 1, .only = NULL, .quiet = 0};
  int failed = 0;

  for (int i = 1; i < argc; i++) {
    const char *v;
    double x;
    if ((v = fl_flag_value(argc, argv, &i, "--replicas"))) {
      if (fl_units_number(v, 1, &x) != FL_OK || x < 2 || x > 1e7)
        return fl_usage_error("validate", "--replicas '%s': expected a whole number >= 2", v);
      vo.replicas = (long)x;
    } else if ((v = fl_flag_value(argc, argv, &i, "--seed"))) {
      if (fl_units_number(v, 1, &x) != FL_OK || x < 0)
        return fl_usage_error("validate", "--seed '%s': expected a whole number >= 0", v);
      vo.seed = (uint64_t)x;
    } else if ((v = fl_flag_value(argc, argv, &i, "--only"))) {
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

/* ---- keys, platform, version, help ---- */

static int fl_cmd_keys(int argc, char **argv)
{
  (void)argv;
  if (argc > 1)
    return fl_usage_error("keys", "takes no argument ('%s')", argv[1]);
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    printf("%s.%-16s %-20s default %-14s %s\n", k->section, k->key, k->type, k->def[0] ? k->def : "(unset)", k->doc);
  }
  return 0;
}

static int fl_cmd_platform(int argc, char **argv)
{
  fl_err rc = FL_OK;
  double nodes = 0, speed = 1e9;
  const char *out = NULL;
  FILE *f = stdout;

  for (int i = 1; i < argc; i++) {
    const char *v;
    if ((v = fl_flag_value(argc, argv, &i, "--nodes"))) {
      if (fl_units_number(v, 1, &nodes) != FL_OK || nodes < 1 || nodes > 2e9)
        return fl_usage_error("platform", "--nodes '%s': expected a whole number >= 1", v);
    } else if ((v = fl_flag_value(argc, argv, &i, "--speed"))) {
      if (fl_units_speed(v, &speed) != FL_OK || !(speed > 0))
        return fl_usage_error("platform", "--speed '%s': expected a speed such as 1Gf", v);
    } else if ((v = fl_flag_value(argc, argv, &i, "-o"))) {
      out = v;
    } else {
      return fl_usage_error("platform", "unknown argument '%s'", argv[i]);
    }
  }
  if (nodes < 1)
    return fl_usage_error("platform", "%s", "--nodes is required");
  if (out) {
    f = fopen(out, "w");
    if (!f)
      return fl_report_error(fl_err_set(FL_ERR_IO, "%s: %s", out, strerror(errno)));
  }
  rc = fl_platform_write_xml(f, (long)nodes, speed);
  if (out && fclose(f) != 0 && rc == FL_OK)
    rc = fl_err_set(FL_ERR_IO, "%s: %s", out, strerror(errno));
  return rc == FL_OK ? 0 : fl_report_error(rc);
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
          for (int k = 0; k < fl_sim_strategy_count(); k++)
            printf(" %s", fl_sim_strategy_name(k));
          printf("\nscenario keys: faultline keys; docs/scenarios.md\n");
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
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
    return fl_cmd_help(1, argv);
  if (strcmp(argv[1], "--version") == 0)
    return fl_cmd_version(1, argv);
  for (int i = 0; i < FL_NCMDS; i++)
    if (strcmp(fl_cmds[i].name, argv[1]) == 0) {
      int code = fl_cmds[i].fn(argc - 1, argv + 1);
      fflush(stdout);
      fflush(stderr);
      return code;
    }
  fprintf(stderr, "faultline: unknown command '%s' (see 'faultline help')\n", argv[1]);
  return 2;
}
