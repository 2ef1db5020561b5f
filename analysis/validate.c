/* validate.c — the built-in validation checks (see validate.h).
 *
 * Daly's expected wall time. For exponential failures of the job MTBF M, a segment of tau of compute plus a
 * checkpoint delta, restart R (failures possible during it) and downtime D (none then) costs on average
 *   (M + D) e^{R/M} (e^{(tau + delta)/M} - 1)
 * (Daly, FGCS 2006, eq. 20 with downtime). Regimes cover Daly's own example, checkpoints that cost a
 * sizeable fraction of M, intervals longer than M, restart from scratch, and a high failure rate.
 *
 * Stationary renewal. For a renewal process in equilibrium, the expected number of failures in [0, T) is
 * exactly T / mean for any law: with `start = stationary`, n Weibull or log-normal nodes must fail n T / mean
 * times on average. This checks the failure source the simulator replays, for the non-exponential laws.
 *
 * Process replication. b duplicated ranks on 2b nodes, no repair, no spare: the number of failures until every
 * copy of some rank is dead has mean 4^b / C(2b, b) (b = 1000: 56.06), not the birthday approximation.
 *
 * Costs from the platform. A checkpoint of N ranks x S bytes to a PFS of aggregate disk bandwidth B whose network
 * is no bottleneck takes N S / B; halving B doubles it when the disks are the bottleneck and changes nothing
 * when the network is; a buddy checkpoint cannot beat a node's link (S / b); one flow per cabinet gives the same
 * time as one flow per rank. Each of these needs its own platform, and SimGrid loads one per process: each is
 * simulated in a child process, before this process loads the shared platform of the others.
 *
 * Workloads. Without failures and checkpoints, the machine-level simulation (app.kind = workload, SimGrid) must
 * start every job of a trace exactly when the plain FCFS / EASY / conservative replay (policy/sched/batch.h, no
 * SimGrid) does: a generated trace of 3,000 jobs on 64 nodes, sizes 1-64, arrivals bursty enough that the queue grows
 * and EASY backfills, estimates 1-4x the run time. Each runs in a child process too.
 *
 * All other simulated checks share one generated platform (SimGrid loads one per process): 2000 nodes, of which the
 * Daly regimes use 100 (the rest are spares, which exponential failures make irrelevant). */
#include "validate.h"

#include "batch.h"
#include "fm.h"
#include "interval.h"
#include "progress.h"
#include "replication.h"
#include "rng.h"
#include "scenario.h"
#include "sim.h"
#include "source.h"
#include "stats.h"
#include "strategy.h"
#include "swf.h"
#include "units.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FL_VALIDATE_LEVEL 0.999

typedef struct fl_daly_regime {
  const char *name;
  const char *what;
  const char *strategy, *interval;
  const char *job_mtbf, *work, *delta, *restart, *downtime;
} fl_daly_regime;

static const fl_daly_regime fl_daly_regimes[] = {
    {"daly-example", "M=24h d=5min R=5min, Daly tau", "checkpoint", "daly", "24h", "10d", "5min", "5min", "0s"},
    {"delta-quarter-M", "M=2h d=30min R=10min D=2min", "checkpoint", "daly", "2h", "48h", "30min", "10min", "2min"},
    {"delta-half-M", "M=1h d=30min R=30min D=5min", "checkpoint", "daly", "1h", "24h", "30min", "30min", "5min"},
    {"tau-twice-M", "M=30min tau=1h d=1min R=1min", "checkpoint", "1h", "30min", "12h", "1min", "1min", "0s"},
    {"young-high-rate", "M=10min d=30s R=30s, Young tau", "checkpoint", "young", "10min", "10h", "30s", "30s", "0s"},
    {"from-scratch", "M=10h W=5h R=10min, no checkpoint", "none", "daly", "10h", "5h", "0s", "10min", "0s"},
};

#define FL_VALIDATE_NODES 100
#define FL_VALIDATE_PLATFORM 2000 /* one platform per process: large enough for 1000 duplicated ranks */

static void fl_row_finish(fl_validate_row *row, const double *x, size_t n)
{
  fl_stats_ci(x, n, FL_VALIDATE_LEVEL, &row->mean, &row->half);
  row->rel_err = (row->mean - row->analytic) / row->analytic;
  row->pass = isfinite(row->half) && fabs(row->mean - row->analytic) <= row->half;
}

typedef enum fl_metric { FL_METRIC_MAKESPAN, FL_METRIC_FAILURES } fl_metric;

/* Simulate opt->replicas replicas of the scenario `text` into x[]; each must end with `status` (and, when
 * `interruptions` >= 0, after that many interruptions). *daly gets Daly's expectation for the scenario. */
typedef struct fl_validate_take {
  const char *label, *status;
  long interruptions, replicas;
  fl_metric metric;
  fl_progress *prog;
  double *x;
} fl_validate_take;

static fl_err fl_validate_take_one(void *ctx, long k, const fl_sim_result *res, fl_evlog *log)
{
  fl_err rc = FL_OK;
  fl_validate_take *v = ctx;
  (void)log;
  FL_CHECK(strcmp(res->status, v->status) == 0 && (v->interruptions < 0 || res->interruptions == v->interruptions),
           FL_ERR_INTERNAL, "validate %s: replica %ld ended '%s' after %ld interruptions", v->label, k, res->status,
           res->interruptions);
  v->x[k] = v->metric == FL_METRIC_MAKESPAN ? res->makespan_s : (double)res->failures;
  if (v->prog)
    fl_progress_update(v->prog, 0, "validate %s: replica %ld/%ld", v->label, k + 1, v->replicas);
done:
  return rc;
}

/* Simulate opt->replicas replicas of the scenario `text` into x[] (on opt->jobs workers: the same values); each
 * must end with `status` (and, when `interruptions` >= 0, after that many interruptions). *daly gets Daly's
 * expectation for the scenario. */
static fl_err fl_validate_simulate(const char *text, const char *label, const char *status, long interruptions,
                                   fl_metric metric, const fl_validate_opts *opt, fl_progress *prog, double *x,
                                   double *daly)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  long *replicas = NULL;
  fl_validate_take take = {label, status, interruptions, opt->replicas, metric, prog, x};

  FL_TRY(fl_scenario_from_text(text, "<validate>", NULL, &sc));
  FL_TRY(fl_sim_create(sc, &sim));
  FL_ALLOC(replicas, opt->replicas);
  for (long r = 0; r < opt->replicas; r++)
    replicas[r] = r;
  FL_TRY(fl_sim_run_replicas(sim, replicas, opt->replicas, opt->jobs, NULL, fl_validate_take_one, &take));
  *daly = fl_sim_expected_makespan(sim);
done:
  free(replicas);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  return rc;
}

static fl_err fl_validate_daly(const fl_daly_regime *rg, const fl_validate_opts *opt, fl_progress *prog,
                               fl_validate_row *row)
{
  fl_err rc = FL_OK;
  char text[1024];
  double *x = NULL, job_mtbf, node_mtbf;

  FL_TRY(fl_units_duration(rg->job_mtbf, 0, &job_mtbf));
  node_mtbf = job_mtbf * FL_VALIDATE_NODES;
  snprintf(text, sizeof text,
           "[run]\nname = validate-%s\nseed = %" PRIu64 "\nevents = none\n"
           "[platform]\nnodes = %d\n"
           "[failures]\nmodel = exponential\nnode_mtbf = %.17g\nrepair = 0s\n"
           "[app]\nkind = bsp\nnodes = %d\nwork = %s\n"
           "[strategy]\nkind = %s\ninterval = %s\ncheckpoint_cost = %s\nrestart_cost = %s\ndowntime = %s\n",
           rg->name, opt->seed, FL_VALIDATE_PLATFORM, node_mtbf, FL_VALIDATE_NODES, rg->work, rg->strategy,
           rg->interval, rg->delta, rg->restart, rg->downtime);
  FL_ALLOC(x, opt->replicas);
  memset(row, 0, sizeof *row);
  FL_TRY(fl_validate_simulate(text, rg->name, "completed", -1, FL_METRIC_MAKESPAN, opt, prog, x, &row->analytic));
  snprintf(row->name, sizeof row->name, "daly:%s", rg->name);
  snprintf(row->what, sizeof row->what, "E[makespan] %s", rg->what);
  fl_row_finish(row, x, (size_t)opt->replicas);
done:
  free(x);
  return rc;
}

/* Multi-level checkpointing (strategy multilevel, "local:1 file:k") against the Markov model of
 * fl_pol_twolevel_expected: node losses and process crashes, both exponential. */
typedef struct fl_ml_case {
  const char *name, *what;
  long every;
  const char *tau, *local, *file, *restart, *downtime, *node_mtbf, *proc_mtbf, *work; /* job-wide MTBFs */
} fl_ml_case;

static const fl_ml_case fl_ml_cases[] = {
    {"multilevel:moderate", "local:1 file:4, Mn=10h Mp=5h", 4, "30min", "1min", "10min", "5min", "1min", "10h", "5h",
     "48h"},
    {"multilevel:high-rate", "local:1 file:8, Mn=4h Mp=2h", 8, "20min", "30s", "5min", "2min", "30s", "4h", "2h",
     "24h"},
    {"multilevel:crashes-only", "local:1 file:2, Mp=1h, no node loss", 2, "15min", "1min", "4min", "1min", "0s",
     "never", "1h", "12h"},
};
#define FL_N_ML ((int)(sizeof fl_ml_cases / sizeof fl_ml_cases[0]))

/* A case's durations (v: tau, local, file, restart, downtime, node and process MTBF of the job, work; tau NAN when
 * the rule chooses it) and its scenario: the job's MTBFs per node and per process, the levels and the interval. */
static fl_err fl_ml_setup(const fl_ml_case *c, const char *levels, const char *interval, const fl_validate_opts *opt,
                          double v[8], char *text, size_t size)
{
  fl_err rc = FL_OK;
  const char *in[] = {c->tau, c->local, c->file, c->restart, c->downtime, c->node_mtbf, c->proc_mtbf, c->work};
  char node[64], proc[64];
  for (int i = 0; i < 8; i++) {
    v[i] = NAN;
    if (in[i])
      FL_TRY(fl_units_duration(in[i], 1, &v[i]));
  }
  snprintf(node, sizeof node, "%.17g", v[5] * FL_VALIDATE_NODES);
  snprintf(proc, sizeof proc, "%.17g", v[6] * FL_VALIDATE_NODES);
  snprintf(text, size,
           "[run]\nname = validate-%s\nseed = %" PRIu64 "\nevents = none\n"
           "[platform]\nnodes = %d\n"
           "[failures]\nmodel = %s\nnode_mtbf = %s\nprocess_mtbf = %s\nrepair = 0s\n"
           "[app]\nkind = bsp\nnodes = %d\nwork = %s\n"
           "[strategy]\nkind = multilevel\nlevels = %s\ninterval = %s\ncheckpoint_cost = %s\n"
           "file_cost = %s\nrestart_cost = %s\ndowntime = %s\n",
           strchr(c->name, ':') + 1, opt->seed, FL_VALIDATE_PLATFORM, isfinite(v[5]) ? "exponential" : "none",
           isfinite(v[5]) ? node : "5y", proc, FL_VALIDATE_NODES, c->work, levels, interval, c->local, c->file,
           c->restart, c->downtime);
done:
  return rc;
}

static fl_err fl_validate_multilevel(const fl_ml_case *c, const fl_validate_opts *opt, fl_progress *prog,
                                     fl_validate_row *row)
{
  fl_err rc = FL_OK;
  char text[1024], levels[64];
  double *x = NULL, unused, v[8];
  fl_pol_twolevel m;

  snprintf(levels, sizeof levels, "local:1 file:%ld", c->every);
  FL_TRY(fl_ml_setup(c, levels, c->tau, opt, v, text, sizeof text));
  m = (fl_pol_twolevel){.tau_s = v[0],
                        .local_s = v[1],
                        .file_s = v[2],
                        .restart_s = v[3],
                        .downtime_s = v[4],
                        .every = c->every,
                        .node_mtbf_s = v[5],
                        .proc_mtbf_s = v[6]};
  FL_ALLOC(x, opt->replicas);
  memset(row, 0, sizeof *row);
  FL_TRY(fl_validate_simulate(text, c->name, "completed", -1, FL_METRIC_MAKESPAN, opt, prog, x, &unused));
  row->analytic = fl_pol_twolevel_expected(&m, (long)llround(v[7] / (v[0] * (double)c->every)));
  snprintf(row->name, sizeof row->name, "%s", c->name);
  /* the criterion: the model inside the simulation's 95 % CI (the seed is fixed: the same replicas) */
  snprintf(row->what, sizeof row->what, "E[makespan] %s (95%% CI)", c->what);
  fl_stats_ci(x, (size_t)opt->replicas, 0.95, &row->mean, &row->half);
  row->rel_err = (row->mean - row->analytic) / row->analytic;
  row->pass = isfinite(row->half) && fabs(row->mean - row->analytic) <= row->half;
done:
  free(x);
  return rc;
}

/* The multilevel interval rule (strategy.interval = multilevel, "local:auto file:auto": Benoit et al.'s first
 * order, fl_pol_interval_levels) against the best pattern of the exact model: the pattern the rule chooses is
 * simulated, and its mean makespan must not exceed by more than 1 % (beyond the 99.9 % CI) the least expected
 * makespan fl_pol_twolevel_expected gives over every file period k and interval tau (k = 1..400, tau by GSL's
 * Brent minimiser for each k), the work being cut in whole patterns as the model counts it. */
static const fl_ml_case fl_mlrule_cases[] = {
    {"multilevel-rule:moderate", "Mn=10h Mp=5h, local 1min, file 10min", 0, NULL, "1min", "10min", "5min", "1min",
     "10h", "5h", "48h"},
    {"multilevel-rule:high-rate", "Mn=4h Mp=2h, local 30s, file 5min", 0, NULL, "30s", "5min", "2min", "30s", "4h",
     "2h", "24h"},
    {"multilevel-rule:crash-heavy", "Mn=50h Mp=1h, local 20s, file 20min", 0, NULL, "20s", "20min", "5min", "1min",
     "50h", "1h", "96h"},
};
#define FL_N_MLRULE ((int)(sizeof fl_mlrule_cases / sizeof fl_mlrule_cases[0]))
#define FL_MLRULE_MAX_K 400

typedef struct fl_mlrule_fn {
  fl_pol_twolevel m;
} fl_mlrule_fn;

/* expected time per unit of work of one pattern at tau (the model's rate) */
static double fl_mlrule_rate(double tau, void *p)
{
  fl_mlrule_fn *f = p;
  double r;
  f->m.tau_s = tau;
  r = fl_pol_twolevel_expected(&f->m, 1) / (tau * (double)f->m.every);
  return isfinite(r) && r >= 1.0 ? r : 1e300; /* past the model's floating range: no candidate */
}

/* the least rate over tau for the model's pattern m (every fixed), by Brent's method from tau0 */
static double fl_mlrule_best_tau(const fl_pol_twolevel *m, double tau0, double *tau_best)
{
  fl_mlrule_fn f = {.m = *m};
  gsl_function fn = {.function = fl_mlrule_rate, .params = &f};
  gsl_min_fminimizer *s = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
  double lo = tau0 / 50.0, hi = tau0 * 50.0, x = tau0, best;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  /* a start below both ends, as Brent needs: walk down the grid of tau0's multiples */
  for (double t = lo * 1.25; t < hi; t *= 1.25)
    if (fl_mlrule_rate(t, &f) < fl_mlrule_rate(x, &f))
      x = t;
  best = fl_mlrule_rate(x, &f);
  if (s && x > lo && x < hi && gsl_min_fminimizer_set(s, &fn, x, x / 1.25, x * 1.25) == GSL_SUCCESS) {
    for (int it = 0; it < 100; it++) {
      if (gsl_min_fminimizer_iterate(s) != GSL_SUCCESS)
        break;
      if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(s), gsl_min_fminimizer_x_upper(s), 1e-6, 0.0) == GSL_SUCCESS)
        break;
    }
    x = gsl_min_fminimizer_x_minimum(s);
    best = fmin(best, fl_mlrule_rate(x, &f));
  }
  gsl_set_error_handler(old);
  if (s)
    gsl_min_fminimizer_free(s);
  *tau_best = x;
  return best;
}

static fl_err fl_validate_mlrule(const fl_ml_case *c, const fl_validate_opts *opt, fl_progress *prog,
                                 fl_validate_row *row)
{
  fl_err rc = FL_OK;
  char text[1024];
  double *x = NULL, v[8], tau_rule, best = INFINITY, best_tau = NAN, unused;
  long k_rule, best_k = 0;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  fl_pol_twolevel m;

  FL_TRY(fl_ml_setup(c, "local:auto file:auto", "multilevel", opt, v, text, sizeof text));
  /* the rule's pattern, as the simulator sets it up */
  FL_TRY(fl_scenario_from_text(text, "<validate>", NULL, &sc));
  FL_TRY(fl_sim_create(sc, &sim));
  tau_rule = fl_sim_interval(sim);
  k_rule = fl_sim_level_every(sim, FL_LEVEL_FILE);
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  /* the model's best pattern */
  m = (fl_pol_twolevel){
      .local_s = v[1], .file_s = v[2], .restart_s = v[3], .downtime_s = v[4], .node_mtbf_s = v[5], .proc_mtbf_s = v[6]};
  for (long k = 1; k <= FL_MLRULE_MAX_K; k++) {
    double t, r;
    m.every = k;
    r = fl_mlrule_best_tau(&m, tau_rule, &t);
    if (r < best) {
      best = r;
      best_tau = t;
      best_k = k;
    }
  }
  /* simulate the rule's pattern over whole patterns of work */
  {
    double pattern = tau_rule * (double)k_rule, work = fmax(1.0, round(v[7] / pattern)) * pattern;
    char *at = strstr(text, "work = "), tail[512];
    snprintf(tail, sizeof tail, "%s", strchr(at, '\n'));
    snprintf(at, sizeof text - (size_t)(at - text), "work = %.17g%s", work, tail);
    FL_ALLOC(x, opt->replicas);
    memset(row, 0, sizeof *row);
    FL_TRY(fl_validate_simulate(text, c->name, "completed", -1, FL_METRIC_MAKESPAN, opt, prog, x, &unused));
    snprintf(row->name, sizeof row->name, "%s", c->name);
    snprintf(row->what, sizeof row->what, "rule file:%ld tau %.0fs vs best file:%ld tau %.0fs (+1%%)", k_rule, tau_rule,
             best_k, best_tau);
    row->analytic = best * work;
  }
  fl_stats_ci(x, (size_t)opt->replicas, FL_VALIDATE_LEVEL, &row->mean, &row->half);
  row->rel_err = (row->mean - row->analytic) / row->analytic;
  row->pass = isfinite(row->half) && row->mean - row->half <= 1.01 * row->analytic;
done:
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
  free(x);
  return rc;
}

/* Fail-stop and silent errors (interval.h, fl_pol_interval_silent): job MTBFs of 100 h each, V = 20 s, C = 40 s,
 * no restart cost or downtime, so that first order holds (sqrt(lambda (V + C)) = 0.8 %). The waste is measured
 * as the models of this literature state it, the overhead H = makespan / work - 1 (it differs from
 * 1 - work / makespan by H^2, a second-order term). Check 1: H at W* against 2 sqrt((lf/2 + ls)(V + C)), within
 * the 95 % CI. Check 2: the period that minimises the simulated overhead, by a weighted least-squares fit of waste(W) =
 * a/W + b W + c (GSL) through five periods from half of W* to 2 W*, W_opt = sqrt(a / b), within 10 % of W*. */
#define FL_SILENT_MTBF_S (400.0 * 3600.0)
#define FL_SILENT_V_S 20.0
#define FL_SILENT_C_S 40.0

static fl_err fl_validate_silent_waste(double period_s, const fl_validate_opts *opt, fl_progress *prog, double *x,
                                       const char *label)
{
  fl_err rc = FL_OK;
  char text[1024];
  double node = FL_SILENT_MTBF_S * FL_VALIDATE_NODES, unused;
  double work = 200.0 * fl_pol_interval_silent(FL_SILENT_C_S, FL_SILENT_V_S, FL_SILENT_MTBF_S, FL_SILENT_MTBF_S);
  snprintf(text, sizeof text,
           "[run]\nname = validate-silent\nseed = %" PRIu64 "\nevents = none\n"
           "[platform]\nnodes = %d\n"
           "[failures]\nmodel = exponential\nnode_mtbf = %.17g\nsdc_mtbf = %.17g\nrepair = 0s\n"
           "[app]\nkind = bsp\nnodes = %d\nwork = %.17g\n"
           "[strategy]\nkind = checkpoint\ninterval = %.17g\ncheckpoint_cost = %g\nrestart_cost = 0s\n"
           "downtime = 0s\nverify = checkpoint\nverify_cost = %g\nverify_recall = 1\n",
           opt->seed, FL_VALIDATE_PLATFORM, node, node, FL_VALIDATE_NODES, work, period_s, FL_SILENT_C_S,
           FL_SILENT_V_S);
  FL_TRY(fl_validate_simulate(text, label, "completed", -1, FL_METRIC_MAKESPAN, opt, prog, x, &unused));
  for (long r = 0; r < opt->replicas; r++)
    x[r] = x[r] / work - 1.0; /* the overhead */
done:
  return rc;
}

static fl_err fl_validate_silent(int which, const fl_validate_opts *opt, fl_progress *prog, fl_validate_row *row)
{
  fl_err rc = FL_OK;
  double *x = NULL;
  double wstar = fl_pol_interval_silent(FL_SILENT_C_S, FL_SILENT_V_S, FL_SILENT_MTBF_S, FL_SILENT_MTBF_S);
  gsl_matrix *X = NULL, *cov = NULL;
  gsl_vector *y = NULL, *w = NULL, *c = NULL;
  gsl_multifit_linear_workspace *ws = NULL;

  memset(row, 0, sizeof *row);
  FL_ALLOC(x, opt->replicas);
  if (which == 0) {
    FL_TRY(fl_validate_silent_waste(wstar, opt, prog, x, "silent:waste"));
    snprintf(row->name, sizeof row->name, "silent:waste");
    snprintf(row->what, sizeof row->what, "overhead at W*, Mf=Ms=400h V=20s C=40s (95%% CI)");
    row->analytic = 2.0 * sqrt((0.5 / FL_SILENT_MTBF_S + 1.0 / FL_SILENT_MTBF_S) * (FL_SILENT_V_S + FL_SILENT_C_S));
    fl_stats_ci(x, (size_t)opt->replicas, 0.95, &row->mean, &row->half);
    row->rel_err = (row->mean - row->analytic) / row->analytic;
    row->pass = isfinite(row->half) && fabs(row->mean - row->analytic) <= row->half;
  } else {
    static const double factor[] = {0.5, 0.7, 1.0, 1.4, 2.0};
    const size_t np = sizeof factor / sizeof factor[0];
    double chisq, a, b;
    X = gsl_matrix_alloc(np, 3);
    cov = gsl_matrix_alloc(3, 3);
    y = gsl_vector_alloc(np);
    w = gsl_vector_alloc(np);
    c = gsl_vector_alloc(3);
    ws = gsl_multifit_linear_alloc(np, 3);
    FL_CHECK(X && cov && y && w && c && ws, FL_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < np; i++) {
      double W = factor[i] * wstar, mean, half;
      FL_TRY(fl_validate_silent_waste(W, opt, prog, x, "silent:optimum"));
      fl_stats_ci(x, (size_t)opt->replicas, 0.95, &mean, &half);
      gsl_matrix_set(X, i, 0, 1.0 / W);
      gsl_matrix_set(X, i, 1, W);
      gsl_matrix_set(X, i, 2, 1.0);
      gsl_vector_set(y, i, mean);
      gsl_vector_set(w, i, half > 0 ? 1.0 / (half * half) : 1.0);
    }
    FL_CHECK(gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws) == GSL_SUCCESS, FL_ERR_INTERNAL,
             "validate silent:optimum: the fit failed");
    a = gsl_vector_get(c, 0);
    b = gsl_vector_get(c, 1);
    snprintf(row->name, sizeof row->name, "silent:optimum");
    snprintf(row->what, sizeof row->what, "period minimising simulated overhead vs W* (+-10%%)");
    row->analytic = wstar;
    row->mean = a > 0 && b > 0 ? sqrt(a / b) : NAN;
    row->half = 0.1 * wstar;
    row->rel_err = (row->mean - row->analytic) / row->analytic;
    row->pass = isfinite(row->mean) && fabs(row->rel_err) <= 0.10;
  }
done:
  if (X)
    gsl_matrix_free(X);
  if (cov)
    gsl_matrix_free(cov);
  if (y)
    gsl_vector_free(y);
  if (w)
    gsl_vector_free(w);
  if (c)
    gsl_vector_free(c);
  if (ws)
    gsl_multifit_linear_free(ws);
  free(x);
  return rc;
}

/* Failures to interruption of b duplicated ranks: 2b nodes, no spare, no repair, so the first interruption ends
 * the run ('failed': no node for the dead rank) and its failure count is the failures to interruption. */
static fl_err fl_validate_mnfti(long b, const fl_validate_opts *opt, fl_progress *prog, fl_validate_row *row)
{
  fl_err rc = FL_OK;
  char text[1024];
  double *x = NULL, unused;

  snprintf(text, sizeof text,
           "[run]\nname = validate-mnfti\nseed = %" PRIu64 "\nevents = none\nmax_time = 1000y\n"
           "[platform]\nnodes = %d\n[failures]\nmodel = exponential\nnode_mtbf = 1y\nrepair = never\n"
           "[app]\nkind = bsp\nnodes = %ld\nwork = 100y\n"
           "[strategy]\nkind = replication\ndegree = 2\ninterval = never\nrestart_cost = 0s\n",
           opt->seed, FL_VALIDATE_PLATFORM, b);
  FL_ALLOC(x, opt->replicas);
  memset(row, 0, sizeof *row);
  FL_TRY(fl_validate_simulate(text, "mnfti", "failed", 1, FL_METRIC_FAILURES, opt, prog, x, &unused));
  snprintf(row->name, sizeof row->name, "replication:mnfti");
  snprintf(row->what, sizeof row->what, "failures to interruption, %ld duplicated ranks", b);
  FL_TRY(fl_pol_mnfti(2, b, &row->analytic));
  fl_row_finish(row, x, (size_t)opt->replicas);
done:
  free(x);
  return rc;
}

/* Failures of n stationary renewal nodes in [0, T): mean n T / mean. */
static fl_err fl_validate_renewal(const char *model, const char *param, const fl_validate_opts *opt,
                                  fl_validate_row *row)
{
  fl_err rc = FL_OK;
  char text[512];
  fl_scenario *sc = NULL;
  fl_fm *fm = NULL;
  fl_fsrc *src = NULL;
  double *x = NULL;
  const long nodes = 200;
  const double mean = 86400.0, horizon = 10.0 * 86400.0;

  snprintf(text, sizeof text, "[failures]\nmodel = %s\nnode_mtbf = %.17g\n%s\nrepair = 0s\nstart = stationary\n", model,
           mean, param);
  FL_TRY(fl_scenario_from_text(text, "<validate>", NULL, &sc));
  FL_TRY(fl_fm_create(sc, &fm));
  FL_ALLOC(x, opt->replicas);
  for (long r = 0; r < opt->replicas; r++) {
    fl_fsrc_config cfg = {.fm = fm,
                          .nodes = nodes,
                          .repair_s = 0.0,
                          .start = FL_START_STATIONARY,
                          .seed = opt->seed,
                          .replica = (uint64_t)r};
    double t;
    long node, count = 0;
    fl_fsrc_kind kind;
    FL_TRY(fl_fsrc_create(&cfg, &src));
    while (fl_fsrc_peek(src) < horizon && fl_fsrc_next(src, &t, &node, &kind))
      count += kind == FL_FSRC_FAILURE;
    fl_fsrc_destroy(&src);
    x[r] = (double)count;
  }
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "renewal:%s%s%s", model, param[0] ? ":" : "",
           param[0] ? strchr(param, '=') + 2 : "");
  snprintf(row->what, sizeof row->what, "failures: %ld stationary nodes, 10 MTBF%s%s", nodes, param[0] ? ", " : "",
           param);
  row->analytic = (double)nodes * horizon / mean;
  fl_row_finish(row, x, (size_t)opt->replicas);
done:
  free(x);
  fl_fsrc_destroy(&src);
  fl_fm_destroy(&fm);
  fl_scenario_destroy(&sc);
  return rc;
}

/* ---- costs from the platform ---- */

#define FL_VALIDATE_IO_BASE                                                                                            \
  "[run]\nname = validate-platform\nevents = none\nreplicas = 1\n[platform]\nnodes = 1000\ncabinet = 125\n"            \
  "pfs_servers = 4\n[failures]\nmodel = none\n[app]\nkind = bsp\nnodes = 1000\nwork = 1h\n"                            \
  "checkpoint_size = 1GB\n[strategy]\ninterval = 30min\ncost = platform\n"

typedef struct fl_io_check {
  const char *name, *what;
  const char *a, *b;     /* extra scenario lines; b NULL: the check compares a's cost with `analytic` */
  int level;             /* fl_level whose checkpoint cost is compared */
  double analytic;       /* a's cost, or the ratio b / a */
  double tol_lo, tol_hi; /* pass when analytic * (1 + tol_lo) <= measured <= analytic * (1 + tol_hi) */
  int restart;           /* 1: the restart (read) cost, not the checkpoint's */
} fl_io_check;

static const fl_io_check fl_io_checks[] = {
    {"platform:pfs-disk-bound", "1000 ranks x 1GB to 4 PFS disks of 1GBps: N S / B",
     "[strategy]\nkind = checkpoint\n[platform]\npfs_bandwidth = 1GBps\n", NULL, FL_LEVEL_FILE, 250.0, -0.02, 0.02, 0},
    {"platform:pfs-halve-disk", "disk-bound: cost(B/2) / cost(B)",
     "[strategy]\nkind = checkpoint\n[platform]\npfs_bandwidth = 1GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\npfs_bandwidth = 0.5GBps\n", FL_LEVEL_FILE, 2.0, -0.02, 0.02, 0},
    {"platform:pfs-network-bound", "PFS links of 5GBps: cost(B/2) / cost(B)",
     "[strategy]\nkind = checkpoint\n[platform]\npfs_bandwidth = 100GBps\npfs_link_bandwidth = 5GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\npfs_bandwidth = 50GBps\npfs_link_bandwidth = 5GBps\n", FL_LEVEL_FILE,
     1.0, -0.02, 0.02, 0},
    /* SimGrid's default network model (LV08, TCP) gives a flow 0.97 of a link's bandwidth and charges 5 % of it to
     * the reverse direction (acknowledgements): in a ring of buddy copies each link carries one flow and the acks
     * of another, 0.97 / 1.05 = 0.924 of b */
    {"platform:buddy-link-bound", "buddy, node links 1GBps: S / b <= cost <= S / 0.92b",
     "[strategy]\nkind = buddy\n[platform]\nlink_bandwidth = 1GBps\ncabinet_bandwidth = 1000TBps\n", NULL,
     FL_LEVEL_BUDDY, 1.0, 0.0, 1.0 / (0.97 / 1.05) - 1.0 + 0.001, 0},
    {"platform:buddy-halve-link", "buddy, link-bound: cost(b/2) / cost(b)",
     "[strategy]\nkind = buddy\n[platform]\nlink_bandwidth = 1GBps\ncabinet_bandwidth = 1000TBps\n",
     "[strategy]\nkind = buddy\n[platform]\nlink_bandwidth = 0.5GBps\ncabinet_bandwidth = 1000TBps\n", FL_LEVEL_BUDDY,
     2.0, -0.02, 0.02, 0},
    {"platform:aggregated-pfs", "one flow per cabinet / one per rank, PFS",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_bandwidth = 20GBps\npfs_link_bandwidth = "
     "30GBps\ncabinet_bandwidth = 40GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_bandwidth = 20GBps\npfs_link_bandwidth = "
     "30GBps\ncabinet_bandwidth = 40GBps\n",
     FL_LEVEL_FILE, 1.0, -0.01, 0.01, 0},
    {"platform:aggregated-pfs-few", "per cabinet / per rank, PFS, 8 cabinets on 77 servers",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_servers = 77\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_servers = 77\n", FL_LEVEL_FILE, 1.0, -0.01,
     0.01, 0},
    {"platform:aggregated-pfs-many", "per cabinet / per rank, PFS, 8 cabinets on 3 servers",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_servers = 3\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_servers = 3\n", FL_LEVEL_FILE, 1.0, -0.01,
     0.01, 0},
    {"platform:aggregated-buddy", "one flow per cabinet / one per rank, buddy",
     "[strategy]\nkind = buddy\n[platform]\nio_flows = per-rank\nlink_bandwidth = 2GBps\ncabinet_bandwidth = 100GBps\n",
     "[strategy]\nkind = buddy\n[platform]\nio_flows = aggregated\nlink_bandwidth = 2GBps\ncabinet_bandwidth = "
     "100GBps\n",
     FL_LEVEL_BUDDY, 1.0, -0.01, 0.01, 0},
    {"platform:aggregated-fast", "per cabinet / per rank, buddy, 100GBps links",
     "[strategy]\nkind = buddy\n[platform]\nio_flows = per-rank\nlink_bandwidth = 100GBps\ncabinet_bandwidth = 2TBps\n",
     "[strategy]\nkind = buddy\n[platform]\nio_flows = aggregated\nlink_bandwidth = 100GBps\ncabinet_bandwidth = "
     "2TBps\n",
     FL_LEVEL_BUDDY, 1.0, -0.01, 0.01, 0},
    /* network-bound aggregation: cabinet uplinks and PFS server links both near saturation, where how a cabinet's
     * bytes are spread over the servers shows (a cabinet's interval of the servers, unequal transfers, gave
     * +6.9 % to +16 % until 2026-11-27) */
    {"platform:aggregated-pfs-network", "per cabinet / per rank, 3 servers, 32GBps uplinks, 85GBps links",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_servers = 3\ncabinet_bandwidth = 32GBps\n"
     "pfs_link_bandwidth = 85GBps\npfs_bandwidth = 1000GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_servers = 3\ncabinet_bandwidth = "
     "32GBps\npfs_link_bandwidth = 85GBps\npfs_bandwidth = 1000GBps\n",
     FL_LEVEL_FILE, 1.0, -0.01, 0.01, 0},
    {"platform:aggregated-pfs-network-read", "the same, restart (read back)",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_servers = 3\ncabinet_bandwidth = 32GBps\n"
     "pfs_link_bandwidth = 85GBps\npfs_bandwidth = 1000GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_servers = 3\ncabinet_bandwidth = "
     "32GBps\npfs_link_bandwidth = 85GBps\npfs_bandwidth = 1000GBps\n",
     FL_LEVEL_FILE, 1.0, -0.01, 0.01, 1},
    {"platform:aggregated-pfs-network-fast", "the same, 64GBps uplinks, 150GBps links",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\npfs_servers = 3\ncabinet_bandwidth = 64GBps\n"
     "pfs_link_bandwidth = 150GBps\npfs_bandwidth = 1000GBps\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\npfs_servers = 3\ncabinet_bandwidth = "
     "64GBps\npfs_link_bandwidth = 150GBps\npfs_bandwidth = 1000GBps\n",
     FL_LEVEL_FILE, 1.0, -0.01, 0.01, 0},
    {"platform:aggregated-pfs-partial", "1,000 ranks in cabinets of 128 (the last partly), 7 servers",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = per-rank\nnodes = 1024\ncabinet = 128\npfs_servers = 7\n"
     "cabinet_bandwidth = 32GBps\npfs_link_bandwidth = 50GBps\npfs_bandwidth = 1000GBps\n[app]\nnodes = 1000\n",
     "[strategy]\nkind = checkpoint\n[platform]\nio_flows = aggregated\nnodes = 1024\ncabinet = 128\npfs_servers = "
     "7\ncabinet_bandwidth = 32GBps\npfs_link_bandwidth = 50GBps\npfs_bandwidth = 1000GBps\n[app]\nnodes = 1000\n",
     FL_LEVEL_FILE, 1.0, -0.01, 0.01, 0},
};
#define FL_N_IO_CHECKS ((int)(sizeof fl_io_checks / sizeof fl_io_checks[0]))

/* The checkpoint cost of `level` for the scenario FL_VALIDATE_IO_BASE + extra, simulated in a child process (its
 * own platform). A key `extra` sets replaces the base's line of that key (pfs_servers, cabinet). */
static fl_err fl_validate_io_cost(const char *extra, int level, int checkpoint, double *cost)
{
  fl_err rc = FL_OK;
  char text[2048];
  size_t used = 0;
  int fds[2] = {-1, -1}, status = 0;
  pid_t pid;
  ssize_t got;

  for (const char *line = FL_VALIDATE_IO_BASE; *line;) {
    size_t n = strcspn(line, "\n") + 1, k = strcspn(line, " =\n");
    char key[64];
    snprintf(key, sizeof key, "\n%.*s = ", (int)(k < 60 ? k : 60), line);
    if (!(line[k] == ' ' && strstr(extra, key)) && used + n < sizeof text) {
      memcpy(text + used, line, n);
      used += n;
    }
    line += n;
  }
  snprintf(text + used, sizeof text - used, "%s", extra);
  FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "validate: pipe: %s", strerror(errno));
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "validate: fork: %s", strerror(errno));
  if (pid == 0) {
    fl_scenario *sc = NULL;
    fl_sim *sim = NULL;
    double v = NAN;
    close(fds[0]);
    if (fl_scenario_from_text(text, "<validate>", NULL, &sc) == FL_OK && fl_sim_create(sc, &sim) == FL_OK)
      v = fl_sim_level_cost(sim, level, checkpoint);
    else
      fprintf(stderr, "faultline: validate: %s\n", fl_err_msg());
    _exit(write(fds[1], &v, sizeof v) == (ssize_t)sizeof v ? 0 : 1);
  }
  close(fds[1]);
  fds[1] = -1;
  got = read(fds[0], cost, sizeof *cost);
  waitpid(pid, &status, 0);
  FL_CHECK(got == (ssize_t)sizeof *cost && WIFEXITED(status) && WEXITSTATUS(status) == 0 && isfinite(*cost),
           FL_ERR_INTERNAL, "validate: the platform-cost simulation failed");
done:
  if (fds[0] >= 0)
    close(fds[0]);
  if (fds[1] >= 0)
    close(fds[1]);
  return rc;
}

/* Workloads: the jobs of a generated trace the simulation starts when the plain replay does, in a child process
 * (its own platform). */
static const char *const fl_wl_checks[] = {"workload:fcfs-replay", "workload:easy-replay",
                                           "workload:conservative-replay"};
static const char *const fl_wl_scheds[] = {"fcfs", "easy", "conservative"};
#define FL_N_WL_CHECKS 3

static fl_err fl_validate_wl_child(const char *sched, const char *dir, long counts[2])
{
  fl_err rc = FL_OK;
  char trace[4200], text[8192];
  FILE *f = NULL;
  gsl_rng *rng = NULL;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  fl_swf *t = NULL;
  fl_batch_job *jobs = NULL;
  double *start = NULL, submit = 0;
  fl_sim_result res;
  const long njobs = 3000, machine = 64;
  snprintf(trace, sizeof trace, "%s/validate-%s.swf", dir, sched);
  FL_CHECK((f = fopen(trace, "w")) != NULL, FL_ERR_IO, "validate: %s: %s", trace, strerror(errno));
  FL_TRY(fl_rng_create(7, 0, FL_STREAM_TEST, &rng));
  fprintf(f, "; MaxNodes: %ld\n; MaxProcs: %ld\n", machine, machine);
  for (long i = 0; i < njobs; i++) {
    /* bursts of arrivals (so jobs queue), whole seconds (so events coincide, as in real logs) */
    submit += floor(gsl_ran_exponential(rng, gsl_rng_uniform(rng) < 0.2 ? 2000.0 : 30.0));
    long procs = 1 + (long)floor(pow(2.0, 6.0 * gsl_rng_uniform(rng)));
    double run = floor(gsl_ran_lognormal(rng, 7.0, 1.5));
    double req = floor(run * (1.0 + 3.0 * gsl_rng_uniform(rng))) + 1.0;
    if (procs > machine)
      procs = machine;
    fprintf(f, "%ld %.0f -1 %.0f %ld -1 -1 %ld %.0f -1 1 1 1 -1 1 -1 -1 -1\n", i + 1, submit, run, procs, procs, req);
  }
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "validate: %s: %s", trace, strerror(errno));
  f = NULL;
  snprintf(text, sizeof text,
           "[run]\nname = validate-workload\nreplicas = 1\nevents = none\n[platform]\nnodes = %ld\n"
           "[failures]\nmodel = none\n[app]\nkind = workload\ntrace = %s\nscheduler = %s\n[strategy]\nkind = none\n",
           machine, trace, sched);
  FL_TRY(fl_scenario_from_text(text, "<validate>", NULL, &sc));
  FL_TRY(fl_sim_create(sc, &sim));
  FL_TRY(fl_sim_run_replica(sim, 0, &res, NULL));
  FL_CHECK(res.machine && res.machine->nrows == njobs, FL_ERR_INTERNAL, "validate: the workload gave no jobs");
  /* the plain replay of the same jobs */
  FL_TRY(fl_swf_read(trace, 1, &t));
  FL_ALLOC(jobs, t->njobs);
  FL_ALLOC(start, t->njobs);
  for (long i = 0; i < t->njobs; i++)
    jobs[i] = (fl_batch_job){t->jobs[i].submit_s, t->jobs[i].run_s, t->jobs[i].req_s, t->jobs[i].nodes};
  FL_TRY(fl_batch_replay(fl_batch_find(sched), jobs, t->njobs, machine, start));
  counts[0] = t->njobs;
  counts[1] = 0;
  for (long i = 0; i < t->njobs; i++) {
    fl_db_job r;
    FL_TRY(fl_db_machine_row(res.machine, i, &r));
    counts[1] += r.job == t->jobs[i].id && r.start_s == start[i] && r.end_s == start[i] + t->jobs[i].run_s;
  }
done:
  if (f)
    fclose(f);
  remove(trace);
  if (rng)
    gsl_rng_free(rng);
  fl_swf_destroy(&t);
  free(jobs);
  free(start);
  return rc;
}

static fl_err fl_validate_wl(int which, fl_validate_row *row)
{
  fl_err rc = FL_OK;
  const char *sched = fl_wl_scheds[which];
  char dir[] = "/tmp/faultline-validate-XXXXXX";
  int fds[2] = {-1, -1}, status = 0;
  long counts[2] = {0, 0};
  pid_t pid;
  ssize_t got;
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", fl_wl_checks[which]);
  snprintf(row->what, sizeof row->what, "jobs starting as the plain %s replay, of 3000", sched);
  FL_CHECK(mkdtemp(dir) != NULL, FL_ERR_IO, "validate: a temporary directory: %s", strerror(errno));
  FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "validate: pipe: %s", strerror(errno));
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "validate: fork: %s", strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    if (fl_validate_wl_child(sched, dir, counts) != FL_OK)
      fprintf(stderr, "faultline: validate: %s\n", fl_err_msg());
    _exit(write(fds[1], counts, sizeof counts) == (ssize_t)sizeof counts ? 0 : 1);
  }
  close(fds[1]);
  fds[1] = -1;
  got = read(fds[0], counts, sizeof counts);
  waitpid(pid, &status, 0);
  FL_CHECK(got == (ssize_t)sizeof counts && WIFEXITED(status) && WEXITSTATUS(status) == 0 && counts[0] > 0,
           FL_ERR_INTERNAL, "validate: the workload simulation failed");
  row->analytic = (double)counts[0];
  row->mean = (double)counts[1];
  row->half = 0.0; /* deterministic */
  row->rel_err = (row->mean - row->analytic) / row->analytic;
  row->pass = counts[1] == counts[0];
done:
  if (fds[0] >= 0)
    close(fds[0]);
  if (fds[1] >= 0)
    close(fds[1]);
  rmdir(dir);
  return rc;
}

static fl_err fl_validate_io(const fl_io_check *c, fl_validate_row *row)
{
  fl_err rc = FL_OK;
  double a, b;
  memset(row, 0, sizeof *row);
  snprintf(row->name, sizeof row->name, "%s", c->name);
  snprintf(row->what, sizeof row->what, "%s", c->what);
  FL_TRY(fl_validate_io_cost(c->a, c->level, !c->restart, &a));
  row->mean = a;
  if (c->b) {
    FL_TRY(fl_validate_io_cost(c->b, c->level, !c->restart, &b));
    row->mean = b / a;
  }
  row->analytic = c->analytic;
  row->half = 0.0; /* deterministic: one simulation */
  row->rel_err = (row->mean - row->analytic) / row->analytic;
  row->pass = row->rel_err >= c->tol_lo - 1e-12 && row->rel_err <= c->tol_hi + 1e-12;
done:
  return rc;
}

static void fl_validate_print(const fl_validate_row *row, FILE *out)
{
  fprintf(out, "%-24s %-52s %14.6g %14.6g %12.4g %+9.3f%%  %s\n", row->name, row->what, row->analytic, row->mean,
          row->half, 100.0 * row->rel_err, row->pass ? "pass" : "FAIL");
}

int fl_validate_matches(const char *only, char *names, size_t size)
{
  int hits = 0;
  static const char *const others[] = {"replication:mnfti",   "renewal:weibull", "renewal:lognormal", "renewal:gamma",
                                       "renewal:exponential", "silent:waste",    "silent:optimum"};
  names[0] = '\0';
  for (size_t i = 0; i < sizeof fl_daly_regimes / sizeof fl_daly_regimes[0]; i++) {
    char name[96];
    snprintf(name, sizeof name, "daly:%s", fl_daly_regimes[i].name);
    hits += strstr(fl_daly_regimes[i].name, only) || strstr("daly", only);
    strncat(names, names[0] ? ", " : "", size - strlen(names) - 1);
    strncat(names, name, size - strlen(names) - 1);
  }
  hits += strstr("replication:mnfti", only) != NULL;
  for (int i = 0; i < FL_N_ML; i++) {
    hits += strstr(fl_ml_cases[i].name, only) != NULL;
    strncat(names, ", ", size - strlen(names) - 1);
    strncat(names, fl_ml_cases[i].name, size - strlen(names) - 1);
  }
  for (int i = 0; i < FL_N_MLRULE; i++) {
    hits += strstr(fl_mlrule_cases[i].name, only) != NULL;
    strncat(names, ", ", size - strlen(names) - 1);
    strncat(names, fl_mlrule_cases[i].name, size - strlen(names) - 1);
  }
  for (int i = 0; i < FL_N_IO_CHECKS; i++) {
    hits += strstr(fl_io_checks[i].name, only) != NULL;
    strncat(names, ", ", size - strlen(names) - 1);
    strncat(names, fl_io_checks[i].name, size - strlen(names) - 1);
  }
  for (int i = 0; i < FL_N_WL_CHECKS; i++) {
    hits += strstr(fl_wl_checks[i], only) != NULL;
    strncat(names, ", ", size - strlen(names) - 1);
    strncat(names, fl_wl_checks[i], size - strlen(names) - 1);
  }
  for (size_t i = 1; i < 5; i++)
    hits += strstr("renewal", only) || strstr(others[i] + 8, only);
  for (size_t i = 5; i < sizeof others / sizeof others[0]; i++)
    hits += strstr(others[i], only) != NULL;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    strncat(names, ", ", size - strlen(names) - 1);
    strncat(names, others[i], size - strlen(names) - 1);
  }
  return hits > 0;
}

/* A check's row: the progress line cleared, the row printed and counted, and handed out while there is room. */
static void fl_validate_emit(const fl_validate_row *row, fl_progress *prog, FILE *out, int *failed,
                             fl_validate_row *rows, int max_rows, int *n)
{
  fl_progress_done(prog);
  fl_validate_print(row, out);
  *failed += !row->pass;
  if (rows && *n < max_rows)
    rows[(*n)++] = *row;
}

fl_err fl_validate_run(const fl_validate_opts *opt, FILE *out, int *failed, fl_validate_row *rows, int max_rows,
                       int *nrows)
{
  fl_err rc = FL_OK;
  fl_progress prog;
  fl_validate_row row;
  int n = 0;
  static const char *const renewal[][2] = {
      {"weibull", "shape = 0.7"}, {"weibull", "shape = 2.5"}, {"lognormal", "sigma = 1.5"},
      {"gamma", "shape = 0.6"},   {"exponential", ""},
  };

  *failed = 0;
  fl_progress_init(&prog, stderr, opt->quiet);
  /* the interval's level is the check's: 99.9 % unless its quantity says 95 % (the criteria of the issues that
   * asked for them); deterministic checks have none (0) */
  fprintf(out, "%-24s %-52s %14s %14s %12s %10s  %s\n", "check", "quantity", "analytic", "simulated", "CI +-",
          "rel.err", "result");
  fprintf(out, "(CI: 99.9 %% unless the quantity says 95 %%; 0 for a deterministic check)\n");
  /* first: each in a child process, before this one loads a platform */
  for (int i = 0; i < FL_N_IO_CHECKS; i++) {
    if (opt->only && !strstr(fl_io_checks[i].name, opt->only))
      continue;
    FL_TRY(fl_validate_io(&fl_io_checks[i], &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (int i = 0; i < FL_N_WL_CHECKS; i++) {
    if (opt->only && !strstr(fl_wl_checks[i], opt->only))
      continue;
    FL_TRY(fl_validate_wl(i, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (size_t i = 0; i < sizeof fl_daly_regimes / sizeof fl_daly_regimes[0]; i++) {
    if (opt->only && !strstr(fl_daly_regimes[i].name, opt->only) && !strstr("daly", opt->only))
      continue;
    FL_TRY(fl_validate_daly(&fl_daly_regimes[i], opt, &prog, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (int i = 0; i < FL_N_ML; i++) {
    if (opt->only && !strstr(fl_ml_cases[i].name, opt->only))
      continue;
    FL_TRY(fl_validate_multilevel(&fl_ml_cases[i], opt, &prog, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (int i = 0; i < FL_N_MLRULE; i++) {
    if (opt->only && !strstr(fl_mlrule_cases[i].name, opt->only))
      continue;
    FL_TRY(fl_validate_mlrule(&fl_mlrule_cases[i], opt, &prog, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  if (!opt->only || strstr("replication:mnfti", opt->only)) {
    FL_TRY(fl_validate_mnfti(1000, opt, &prog, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (size_t i = 0; i < sizeof renewal / sizeof renewal[0]; i++) {
    if (opt->only && !strstr("renewal", opt->only) && !strstr(renewal[i][0], opt->only))
      continue;
    FL_TRY(fl_validate_renewal(renewal[i][0], renewal[i][1], opt, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  for (int i = 0; i < 2; i++) {
    if (opt->only && !strstr(i == 0 ? "silent:waste" : "silent:optimum", opt->only))
      continue;
    FL_TRY(fl_validate_silent(i, opt, &prog, &row));
    fl_validate_emit(&row, &prog, out, failed, rows, max_rows, &n);
  }
  fprintf(out, "%d check%s failed\n", *failed, *failed == 1 ? "" : "s");
done:
  fl_progress_done(&prog);
  if (nrows)
    *nrows = n;
  return rc;
}
