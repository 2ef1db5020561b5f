/* fm.h — failure models: how long a node lives between failures.
 *
 * A model is an ops table (fm_impl.h) registered under its type string ("exponential", "weibull",
 * "lognormal", "gamma", "none", "trace"). Renewal models draw a node's time to failure afresh after each repair;
 * `trace` replays recorded failures instead. Every node is its own renewal process, exact for any law:
 * fl_fsrc (source.h) keeps one pending event per node in a heap, O(log n) per event, O(n) memory (laws drawn by
 * inversion compute a node's first time only once it may be next).
 * All distributions come from GSL. */
#ifndef FL_FM_H
#define FL_FM_H

#include "fl_err.h"
#include "inputs.h"
#include "scenario.h"

#include <gsl/gsl_rng.h>
#include <stddef.h>

typedef struct fl_fm fl_fm;

/* One recorded failure of a trace file. */
typedef struct fl_fm_trace_rec {
  double t_s;        /* when the node fails, seconds from the job's start */
  long node;         /* node index, or -1 when the trace names a host (see host) */
  char *host;        /* host name, or NULL */
  double downtime_s; /* how long it stays down; NAN = [failures] repair; INFINITY = never */
  int line;          /* line in the trace file, for messages */
} fl_fm_trace_rec;

/* Build the model named by sc->model from the scenario's parameters. Unknown names and bad parameters are
 * FL_ERR_INPUT naming the scenario key; a malformed trace line names the trace file and line. */
fl_err fl_fm_create(const fl_scenario *sc, fl_fm **out);
void fl_fm_destroy(fl_fm **fm);

const char *fl_fm_name(const fl_fm *fm);
/* 1 for renewal models (draws), 0 for none and trace. */
int fl_fm_is_renewal(const fl_fm *fm);
/* What a law is, as the engines and commands ask it (never by its name): */
enum {
  FL_FM_REPLAYS = 1u,    /* it replays recorded failures of named nodes (trace) */
  FL_FM_MEMORYLESS = 2u, /* exponential: Daly's model's failures, its expectations exact */
  FL_FM_NEVER = 4u,      /* no failure at all (none) */
};
int fl_fm_has(const fl_fm *fm, unsigned trait);
/* The same of the law a scenario names (failures.model), before any is built; 0 for an unknown name. */
int fl_fm_named_has(const char *name, unsigned trait);
/* Time to failure of a node that was just (re)started. Renewal models only. */
double fl_fm_draw(const fl_fm *fm, gsl_rng *r);
/* Time to first failure of a node observed at a random moment of a long life: the stationary forward
 * recurrence time (density (1 - F(t)) / mean), sampled exactly as U * L with L length-biased. */
double fl_fm_draw_residual(const fl_fm *fm, gsl_rng *r);
/* Laws drawn by inversion from one uniform (exponential, Weibull): 1, and fl_fm_draw(fm, r) (with `residual`,
 * fl_fm_draw_residual: the exponential's) equals fl_fm_time_of(fm, fl_fm_uniform(fm, r)) bit for bit, the time
 * monotone in the uniform (falling when fl_fm_decreasing), so that a caller may store the uniform and compute
 * the time only when it is needed. */
int fl_fm_by_inversion(const fl_fm *fm, int residual);
double fl_fm_uniform(const fl_fm *fm, gsl_rng *r);
double fl_fm_time_of(const fl_fm *fm, double u);
int fl_fm_decreasing(const fl_fm *fm);
/* Mean and variance of the time to failure (INFINITY for none; NAN for trace). */
double fl_fm_mean(const fl_fm *fm);
double fl_fm_variance(const fl_fm *fm);

/* Cumulative hazard -log S(age) of a node's time to failure (renewal models; NAN otherwise): the expected
 * failures of a node of age a in the next t seconds, before its renewal, are cumhazard(a + t) - cumhazard(a). */
double fl_fm_cumhazard(const fl_fm *fm, double age_s);

/* Trace records, sorted by time (trace model only; 0 otherwise). */
size_t fl_fm_trace_count(const fl_fm *fm);
/* trace: the log's path as the scenario resolves it (for messages; NULL for other models), and 1 when its times
 * are the job's work done (failures.trace_clock = work). */
const char *fl_fm_trace_file(const fl_fm *fm);
int fl_fm_trace_by_work(const fl_fm *fm);
/* The input files the failure models' keys name (the trace and its map), for the rows' fingerprints: fills up to
 * FL_FM_MAX_INPUTS refs, returns how many. */
#define FL_FM_MAX_INPUTS 2
int fl_fm_inputs(const fl_scenario *sc, fl_input_ref *refs);
const fl_fm_trace_rec *fl_fm_trace_at(const fl_fm *fm, size_t i);

/* The registry, for --help and conformance tests. */
int fl_fm_registry_count(void);
/* The keys law i declares (core/keys.h), or NULL. */
const fl_keyset *fl_fm_registry_options(int i);
const char *fl_fm_registry_name(int i);

/* Fitting a law to times between failures (`faultline fit`, analysis/fit.c), by maximum likelihood with
 * right-censoring. A law that can be fitted says how; fit runs the maximisation (GSL's Nelder-Mead over x), the
 * observed information, the confidence intervals and the goodness of fit the same way for every law, so a law
 * added to the registry with these is fitted, compared and written as a [failures] section without a change to
 * fit. The times are divided by their mean first (conditioning): lx[i] = log(t[i] / scale). */
typedef struct fl_fm_fit {
  int nparam; /* 1: the exponential's closed form (the mean over the failures); 2: Nelder-Mead over x[0], x[1] */
  /* where the simplex starts, from the failures' moments: mean and variance of lx and of t / scale */
  void (*start)(double mlx, double vlx, double mx, double vx, double x[2]);
  /* the negative log-likelihood of the scaled observations at x (GSL_POSINF where x is out of range) */
  double (*negll)(const double x[2], const double *lx, const unsigned char *cens, size_t n);
  /* the mean of the scaled law at x */
  double (*mean)(const double x[2]);
  /* the law's parameters in seconds from x: p[k] with its 95 % interval from x[k] -/+ z se[k]; ls = log(scale) */
  void (*params)(const double x[2], const double se[2], double ls, double z, double p[2], double lo[2], double hi[2]);
  double (*cdf)(double t, const double p[2]); /* the fitted law's CDF, t in seconds */
  /* how the parameters read: in the table ("shape", "scale"; NULL: not shown) with a unit suffix, and as the keys
   * of a [failures] section (NULL: not written; node_mtbf, the mean, always is) */
  const char *label[2], *unit[2], *key[2];
} fl_fm_fit;
/* How registry entry i is fitted; NULL for a law fit cannot fit (none, trace). */
const fl_fm_fit *fl_fm_registry_fit(int i);

#endif
