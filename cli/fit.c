/* fit.c — `faultline fit`: which law a failure log follows (analysis/fit.h). */
#include "fit.h"

#include "args.h"
#include "cli.h"
#include "logs.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fl_fit_human(double s, char *buf, size_t len)
{
  if (s >= 86400.0 * 365.25)
    snprintf(buf, len, "%.3gy", s / (86400.0 * 365.25));
  else if (s >= 86400.0)
    snprintf(buf, len, "%.3gd", s / 86400.0);
  else if (s >= 3600.0)
    snprintf(buf, len, "%.3gh", s / 3600.0);
  else
    snprintf(buf, len, "%.3gs", s);
}

/* The log, the window and the intervals fitted, then every law with its parameters, mean, log-likelihood, AIC and KS
 * distance, the best by AIC marked. */
static void fl_fit_print_table(const char *path, const fl_log *log, const fl_fit_opts *opts, const fl_fit_obs *obs,
                               const fl_fit_result *res, int best)
{
  char from[32], to[32];
  fl_fit_human(obs->from_s, from, sizeof from);
  fl_fit_human(obs->to_s, to, sizeof to);
  printf("%s: %s log, %zu failures kept", path, fl_log_format_name(log->format), log->n);
  if (isfinite(log->origin_epoch)) {
    time_t t0 = (time_t)log->origin_epoch;
    struct tm tm;
    char date[32];
    gmtime_r(&t0, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", &tm);
    printf(" (origin %s UTC)", date);
  }
  printf("; window %s .. %s\n", obs->from_s == 0.0 ? "0" : from, to);
  printf("per %s: %zu intervals, %zu end in a failure, %zu censored", opts->per_system ? "system" : "node", obs->n,
         obs->nfail, obs->n - obs->nfail);
  if (obs->nodes >= 0)
    printf(", %ld nodes", obs->nodes);
  if (obs->coalesced > 0)
    printf(", %ld simultaneous failures counted once", obs->coalesced);
  printf("\n\n%-12s %-70s %-24s %11s %11s %7s\n", "family", "parameters (95% CI)", "mean (95% CI)", "log-lik", "AIC",
         "KS D");
  for (int f = 0; f < fl_fit_families(); f++) {
    char params[160], mean[64], m0[16], m1[16], m2[16];
    if (res[f].nparam == 0)
      continue; /* bursty: per system only */
    fl_fit_describe(&res[f], params, sizeof params);
    fl_fit_human(res[f].mean_s, m0, sizeof m0);
    fl_fit_human(res[f].mean_lo, m1, sizeof m1);
    fl_fit_human(res[f].mean_hi, m2, sizeof m2);
    if (isfinite(res[f].mean_lo))
      snprintf(mean, sizeof mean, "%s [%s, %s]", m0, m1, m2);
    else
      snprintf(mean, sizeof mean, "%s", m0);
    printf("%-12s %-70s %-24s %11.1f %11.1f %7.4f%s%s\n", fl_fit_family_name(res[f].family), params, mean,
           res[f].loglik, res[f].aic, res[f].ks, f == best ? "  <- best" : "",
           res[f].converged ? "" : "  (did not converge)");
  }
  printf("\nBest by AIC: %s (add --scenario for its [failures] section).\n", fl_fit_family_name(res[best].family));
}

int fl_cmd_fit(int argc, char **argv)
{
  fl_err rc = FL_OK;
  const char *path = NULL, *map_path = NULL;
  fl_log_format format = FL_LOG_AUTO;
  fl_fit_opts opts = {.per_system = 0, .from_s = NAN, .to_s = NAN, .nodes = -1, .sort = 0};
  long system = -1;
  int scenario = 0, status = 0, best = 0, per_given = 0;
  fl_log *log = NULL;
  fl_log_map *map = NULL;
  fl_fit_obs obs;
  fl_fit_result res[FL_FIT_MAX];

  memset(&obs, 0, sizeof obs);
  for (int i = 1; i < argc; i++) {
    const char *v;
    double d;
    if ((v = fl_args_value(argc, argv, &i, "--format"))) {
      if (fl_log_format_parse(v, &format) != FL_OK)
        return fl_usage_error("fit", "--format '%s': expected auto, csv, lanl or fta", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--per"))) {
      per_given = 1;
      if (strcmp(v, "node") == 0)
        opts.per_system = 0;
      else if (strcmp(v, "system") == 0)
        opts.per_system = 1;
      else
        return fl_usage_error("fit", "--per '%s': expected node or system", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--system"))) {
      if (fl_units_number(v, 1, &d) != FL_OK || d < 0 || d > 1e9)
        return fl_usage_error("fit", "--system '%s': expected a system / platform number", v);
      system = (long)d;
    } else if ((v = fl_args_value(argc, argv, &i, "--nodes"))) {
      if (fl_units_number(v, 1, &d) != FL_OK || d < 1 || d > 1e9)
        return fl_usage_error("fit", "--nodes '%s': expected a whole number >= 1", v);
      opts.nodes = (long)d;
    } else if ((v = fl_args_value(argc, argv, &i, "--from"))) {
      if (fl_units_duration(v, 0, &opts.from_s) != FL_OK || opts.from_s < 0)
        return fl_usage_error("fit", "--from '%s': expected a duration >= 0 from the log's origin", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--to"))) {
      if (fl_units_duration(v, 0, &opts.to_s) != FL_OK || !(opts.to_s > 0))
        return fl_usage_error("fit", "--to '%s': expected a duration > 0 from the log's origin", v);
    } else if ((v = fl_args_value(argc, argv, &i, "--map"))) {
      map_path = v;
    } else if (strcmp(argv[i], "--sort") == 0) {
      opts.sort = 1;
    } else if (strcmp(argv[i], "--scenario") == 0) {
      scenario = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return fl_usage_error("fit", "unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return fl_usage_error("fit", "one log at a time ('%s')", argv[i]);
    }
  }
  if (!path)
    return fl_usage_error("fit", "%s", "give a failure log");

  FL_TRY(fl_log_read(path, format, system, &log));
  if (map_path) {
    FL_TRY(fl_log_map_read(map_path, &map));
    opts.map = map;
    opts.map_path = map_path;
  }
  if (log->systems > 1 && !opts.per_system && system < 0)
    fprintf(stderr, "faultline fit: %s holds %ld systems; fitting their nodes together (--system N picks one)\n", path,
            log->systems);
  if (scenario && !per_given) {
    /* a scenario wants the log's failure rate: the system's failures spread over its nodes match the count of
     * failures the log holds (a per-node fit drops each node's first interval and, with failures concentrated on a
     * few nodes, suggests a node MTBF that understates them many times over); per node only when the node count
     * is unknown */
    fl_fit_opts sys_opts = opts;
    fl_fit_obs probe;
    sys_opts.per_system = 1;
    memset(&probe, 0, sizeof probe);
    if (fl_fit_observe(log, &sys_opts, &probe) == FL_OK && probe.nodes >= 1)
      opts.per_system = 1;
    else
      fprintf(stderr, "faultline fit: %s: the node count is unknown (--nodes N): fitting per node\n", path);
    fl_fit_obs_free(&probe);
  }
  FL_TRY(fl_fit_observe(log, &opts, &obs));
  FL_TRY(fl_fit_all(&obs, res, &best));

  if (scenario) {
    double per = 1.0;
    if (opts.per_system) {
      if (obs.nodes < 1) {
        status = fl_usage_error("fit", "%s", "--per system --scenario needs the node count (--nodes N)");
        goto done;
      }
      per = (double)obs.nodes;
    }
    char sys[32] = "";
    if (system >= 0)
      snprintf(sys, sizeof sys, ", system %ld", system);
    printf("# faultline fit %s (%s%s, per %s): %s by AIC over %zu intervals (%zu failures)\n", path,
           fl_log_format_name(log->format), sys, opts.per_system ? "system" : "node",
           fl_fit_family_name(res[best].family), obs.n, obs.nfail);
    if (opts.per_system && res[best].family == fl_fit_family_bursty())
      printf("# node_mtbf = %ld nodes / background rate; each failure begets burst_ratio more on random nodes\n",
             obs.nodes);
    else if (opts.per_system)
      printf("# node_mtbf = system MTBF x %ld nodes; the shape is the system's, applied to each node\n", obs.nodes);
    fl_fit_print_section(&res[best], per, stdout);
    goto done;
  }
  fl_fit_print_table(path, log, &opts, &obs, res, best);
done:
  fl_fit_obs_free(&obs);
  fl_log_map_destroy(&map);
  fl_log_destroy(&log);
  if (rc != FL_OK)
    return fl_report_error(rc);
  return status;
}
