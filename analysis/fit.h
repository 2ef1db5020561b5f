/* fit.h — which law a failure log follows: maximum-likelihood fits of the exponential, Weibull, log-normal and
 * gamma laws to times between failures, with right-censoring (`faultline fit`).
 *
 * Observations are intervals: between two failures of a node (per node) or of the system (per system), plus
 * one right-censored interval per node from its last failure to the end of the observation window (and, when
 * the node count is known, one censored whole window per node that never failed). The interval from the start
 * of the window to a node's first failure is left out: when the node came up is unknown (left truncation).
 * Failures of one node (per node) or of the system (per system) at the same instant count once.
 *
 * Likelihood: sum of log f(t) over failures plus log S(t) over censored intervals (GSL densities and tails);
 * maximised with GSL's Nelder-Mead simplex over log-transformed parameters (closed form for the exponential).
 * Confidence intervals: 95 %, Wald, from the observed information (a finite-difference Hessian of the
 * log-likelihood) in the log-transformed parameters; the mean's by the delta method. KS: the largest distance
 * between the fitted CDF and the Kaplan-Meier estimate (the ordinary KS statistic when nothing is censored).
 * The family chosen: lowest AIC, except that a family with fewer parameters within 2 AIC units of it is
 * preferred (the exponential is nested in the Weibull, the gamma and the bursty model).
 *
 * Bursts (per system): a Hawkes process with an exponential kernel, the failure rate at t
 *   lambda(t) = mu + (eta / tau) sum_{t_j < t} exp(-(t - t_j) / tau),
 * a background rate mu, each failure raising the rate for a while (eta: offspring failures per failure, tau: how
 * long), as failures.burst_ratio and burst_time simulate it. Its likelihood over [t_1, T] given the first
 * failure (Ozaki 1979's recursion) is comparable with the renewal fits' (for eta = 0 it is the exponential's); its
 * KS distance is that of the time-rescaled gaps against Exp(1). */
#ifndef FL_FIT_H
#define FL_FIT_H

#include "fl_err.h"
#include "logs.h"

#include <stddef.h>
#include <stdio.h>

/* The families fit tries: every law of the failure-model registry that says how it is fitted (fm.h's fl_fm_fit:
 * exponential, weibull, lognormal, gamma, in registry order), then the bursty process (per system only, below).
 * A family is its index in that list. */
#define FL_FIT_MAX 16 /* families at most */
int fl_fit_families(void);
const char *fl_fit_family_name(int family);
int fl_fit_family_find(const char *name); /* -1: none of that name */
int fl_fit_family_bursty(void);           /* the bursty process's index */

#define FL_FIT_MIN_FAILURES 20 /* intervals ending in a failure that a fit needs */

/* Observations: t[i] > 0 seconds, cens[i] = 1 for a right-censored interval. Sorted by t. */
typedef struct fl_fit_obs {
  double *t;
  unsigned char *cens;
  size_t n, nfail;
  long nodes;          /* nodes observed (per node), or -1 */
  long coalesced;      /* failures dropped as simultaneous with another */
  double from_s, to_s; /* the observation window, seconds from the log's origin */
  double *times;       /* per system: the failure dates in the window, in order (coalesced), else NULL */
  size_t ntimes;
} fl_fit_obs;

typedef struct fl_fit_opts {
  int per_system;        /* 0: per node, 1: the system's failures */
  double from_s, to_s;   /* window; NAN: from 0 (the log's origin) to the last failure */
  long nodes;            /* nodes of the system (nodes that never failed count as censored); -1: the log's, if any */
  int sort;              /* 1: order each node's records by time; 0: records out of order are an error */
  const fl_log_map *map; /* log nodes must be in it (NULL: any) */
  const char *map_path;
} fl_fit_opts;

/* Build the observations from a log. Errors (FL_ERR_INPUT) name the file and line: a node's records out of
 * time order, a node missing from the map or beyond opts->nodes, a record without a node in a per-node fit,
 * fewer than FL_FIT_MIN_FAILURES intervals. */
fl_err fl_fit_observe(const fl_log *log, const fl_fit_opts *opts, fl_fit_obs *obs);
/* The same from plain intervals (tests, studies): copies and sorts them. */
fl_err fl_fit_obs_from(const double *t, const unsigned char *cens, size_t n, fl_fit_obs *obs);
void fl_fit_obs_free(fl_fit_obs *obs);

typedef struct fl_fit_result {
  int family;
  int nparam;
  /* the law's parameters as its fl_fm_fit gives them (exponential: p0 = mean; Weibull: p0 = shape k, p1 = scale
   * lambda; log-normal: p0 = mu, p1 = sigma (of ln t, t in seconds); gamma: p0 = shape a, p1 = scale theta);
   * bursty: p0 = background rate mu (1/s), p1 = eta, p2 = tau (s). lo/hi: 95 % CI. nparam 0: not fitted (bursty
   * on per-node data). */
  double p[3], lo[3], hi[3];
  double mean_s, mean_lo, mean_hi;
  double loglik, aic, ks;
  int converged;
} fl_fit_result;

fl_err fl_fit_one(const fl_fit_obs *obs, int family, fl_fit_result *r);
/* Fit every family (r[0 .. fl_fit_families() - 1]); *best: the family chosen (the rule above). */
fl_err fl_fit_all(const fl_fit_obs *obs, fl_fit_result r[FL_FIT_MAX], int *best);
/* A fitted renewal law's parameters as the table shows them ("shape 0.7 [0.6, 0.8]  scale 3e5s [...]"), into buf. */
void fl_fit_describe(const fl_fit_result *r, char *buf, size_t len);
/* The failure-model name and parameter keys of a fit, as a [failures] section (node_mtbf = mean * scale_nodes:
 * 1 for a per-node fit, the node count for a per-system one). */
void fl_fit_print_section(const fl_fit_result *r, double scale_nodes, FILE *f);

#endif
