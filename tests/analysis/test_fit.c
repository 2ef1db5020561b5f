/* test_fit.c — `faultline fit`: maximum-likelihood fits recover the laws they were drawn from, censoring is
 * accounted for, the family is picked by AIC, the log readers (csv, LANL, FTA) and their errors. */
#include "cli_util.h"
#include "fit.h"
#include "fl_test.h"
#include "fm.h"
#include "logs.h"
#include "scenario.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_DRAWS 10000

/* The families by name, as fit finds them in the failure-model registry. */
#define FL_FIT_EXP fl_fit_family_find("exponential")
#define FL_FIT_WEIBULL fl_fit_family_find("weibull")
#define FL_FIT_LOGNORMAL fl_fit_family_find("lognormal")
#define FL_FIT_GAMMA fl_fit_family_find("gamma")
#define FL_FIT_BURSTY fl_fit_family_bursty()

static double rel(double got, double want)
{
  return fabs(got - want) / fabs(want);
}

/* 10,000 draws from each law; the fit of the true family within 2 % of each parameter, its 95 % CI covering the
 * truth, and AIC picks it. At n = 10,000 the relative standard error of a parameter is 0.7 % (exponential mean,
 * log-normal sigma) to 1.3 % (gamma scale at a = 0.6): 2 % is 1.5 to 3 standard errors, so the 2 % check can
 * fail on an unlucky sample (the gamma's at seed 1003 lands 3.1 % off, exactly where the sample mean is); the
 * seeds here are fixed, the CI check is the statistical one. */
static void test_recovers_each_family(void)
{
  static const struct {
    const char *name;
    double p0, p1;
  } truth[] = {
      {"exponential", 86400.0 * 30, 0},
      {"weibull", 0.7, 86400.0 * 20},
      {"lognormal", 13.0, 1.2},
      {"gamma", 0.6, 86400.0 * 40},
  };
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  double *t = malloc(N_DRAWS * sizeof *t);
  for (size_t k = 0; k < sizeof truth / sizeof truth[0]; k++) {
    fl_fit_obs obs;
    fl_fit_result res[FL_FIT_MAX];
    int best = -1;
    int fam = fl_fit_family_find(truth[k].name);
    CU_ASSERT_FATAL(fam >= 0);
    gsl_rng_set(r, 2000 + k);
    for (int i = 0; i < N_DRAWS; i++) {
      if (fam == FL_FIT_EXP)
        t[i] = gsl_ran_exponential(r, truth[k].p0);
      else if (fam == FL_FIT_WEIBULL)
        t[i] = gsl_ran_weibull(r, truth[k].p1, truth[k].p0);
      else if (fam == FL_FIT_LOGNORMAL)
        t[i] = gsl_ran_lognormal(r, truth[k].p0, truth[k].p1);
      else
        t[i] = gsl_ran_gamma(r, truth[k].p0, truth[k].p1);
    }
    CU_ASSERT_EQUAL_FATAL(fl_fit_obs_from(t, NULL, N_DRAWS, &obs), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_fit_all(&obs, res, &best), FL_OK);
    {
      const fl_fit_result *f = &res[fam];
      fprintf(stderr, "  %-11s p0 %.5g (%.5g)  p1 %.5g (%.5g)  best %s\n", fl_fit_family_name(fam), f->p[0],
              truth[k].p0, f->p[1], truth[k].p1, fl_fit_family_name(best));
      CU_ASSERT(f->converged);
      CU_ASSERT(rel(f->p[0], truth[k].p0) < 0.02);
      if (fam != FL_FIT_EXP)
        CU_ASSERT(rel(f->p[1], truth[k].p1) < 0.02);
      /* the CI holds the estimate and is narrow at this n */
      CU_ASSERT(f->lo[0] < f->p[0] && f->p[0] < f->hi[0]);
      CU_ASSERT(f->lo[0] < truth[k].p0 && truth[k].p0 < f->hi[0]);
      if (fam != FL_FIT_EXP)
        CU_ASSERT(f->lo[1] < truth[k].p1 && truth[k].p1 < f->hi[1]);
      CU_ASSERT(f->hi[0] - f->lo[0] < 0.1 * fabs(f->p[0]));
      CU_ASSERT(f->ks < 0.02);
      CU_ASSERT(fabs(f->aic - (2.0 * f->nparam - 2.0 * f->loglik)) < 1e-6);
    }
    CU_ASSERT_EQUAL(best, fam);
    /* a wrong family fits worse by far, and the KS distance says so */
    if (fam == FL_FIT_WEIBULL)
      CU_ASSERT(res[FL_FIT_EXP].aic > res[FL_FIT_WEIBULL].aic + 100 && res[FL_FIT_EXP].ks > 0.05);
    fl_fit_obs_free(&obs);
  }
  free(t);
  gsl_rng_free(r);
}

/* The exponential's MLE in closed form: total time over failures, with its exact CI on log scale. */
static void test_exponential_closed_form(void)
{
  double t[] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200, 500, 500};
  unsigned char c[22] = {0};
  fl_fit_obs obs;
  fl_fit_result r;
  c[20] = c[21] = 1; /* two censored at 500 */
  CU_ASSERT_EQUAL_FATAL(fl_fit_obs_from(t, c, 22, &obs), FL_OK);
  CU_ASSERT_EQUAL(obs.nfail, 20u);
  CU_ASSERT_EQUAL_FATAL(fl_fit_one(&obs, FL_FIT_EXP, &r), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(r.mean_s, (2100.0 + 1000.0) / 20.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.loglik, -20.0 * log(155.0) - 3100.0 / 155.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.lo[0], 155.0 * exp(-1.959963984540054 / sqrt(20.0)), 1e-9);
  fl_fit_obs_free(&obs);
  fl_fit_obs_free(&obs); /* idempotent */
}

/* Nodes renewing under Weibull(0.7) watched through a window: the per-node fit of the log, with the open
 * intervals at the window's end censored and the never-failed nodes counted, recovers the law; dropping the
 * censored intervals (what a naive fit does) underestimates the scale by far. */
static void test_censored_window(void)
{
  const double k = 0.7, lambda = 86400.0 * 30, window = 86400.0 * 365;
  const int nodes = 400;
  char *path = strdup(fl_test_tmp("window.csv"));
  FILE *f = fopen(path, "w");
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  fl_log *log = NULL;
  fl_fit_obs obs;
  fl_fit_result w, naive;
  fl_fit_opts opts = {.per_system = 0, .from_s = 0, .to_s = window, .nodes = nodes, .sort = 0};
  long failures = 0;
  gsl_rng_set(r, 77);
  fprintf(f, "time, node\n");
  for (int n = 0; n < nodes; n++) {
    double t = gsl_ran_weibull(r, lambda, k); /* new at 0: the first interval is whole, but fit drops it */
    while (t < window) {
      fprintf(f, "%.3f, %d\n", t, n);
      failures++;
      t += gsl_ran_weibull(r, lambda, k);
    }
  }
  fclose(f);
  CU_ASSERT_FATAL(failures > 2000);
  CU_ASSERT_EQUAL_FATAL(fl_log_read(path, FL_LOG_AUTO, -1, &log), FL_OK);
  CU_ASSERT_EQUAL(log->format, FL_LOG_CSV);
  CU_ASSERT_EQUAL_FATAL(fl_fit_observe(log, &opts, &obs), FL_OK);
  CU_ASSERT(obs.n - obs.nfail == (size_t)nodes); /* one open interval per node (failed or not) */
  CU_ASSERT_EQUAL_FATAL(fl_fit_one(&obs, FL_FIT_WEIBULL, &w), FL_OK);
  fprintf(stderr, "  %ld failures, %zu intervals: shape %.4f scale %.4g d\n", failures, obs.n, w.p[0],
          w.p[1] / 86400.0);
  CU_ASSERT(rel(w.p[0], k) < 0.03);
  CU_ASSERT(rel(w.p[1], lambda) < 0.03);
  CU_ASSERT(w.lo[0] < k && k < w.hi[0]);
  {
    fl_fit_obs unc;
    size_t m = 0;
    double *t = malloc(obs.n * sizeof *t);
    for (size_t i = 0; i < obs.n; i++)
      if (!obs.cens[i])
        t[m++] = obs.t[i];
    CU_ASSERT_EQUAL_FATAL(fl_fit_obs_from(t, NULL, m, &unc), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_fit_one(&unc, FL_FIT_WEIBULL, &naive), FL_OK);
    fprintf(stderr, "  without censoring: shape %.4f scale %.4g d\n", naive.p[0], naive.p[1] / 86400.0);
    CU_ASSERT(naive.p[1] < 0.85 * lambda); /* 19 % low here, against 1 % for the censored fit */
    fl_fit_obs_free(&unc);
    free(t);
  }
  fl_fit_obs_free(&obs);
  fl_log_destroy(&log);
  gsl_rng_free(r);
  free(path);
}

/* A published log: LANL system 20 (512 nodes, 2001-2005). Its time between system failures has a decreasing
 * hazard (Schroeder & Gibson, DSN 2006: Weibull shape 0.7-0.8): the Weibull beats the exponential, with a shape
 * well below 1; and the failures cluster in time, which the bursty model captures best. */
static void test_lanl_system20(void)
{
  fl_log *log = NULL;
  fl_fit_obs obs;
  fl_fit_result res[FL_FIT_MAX];
  fl_fit_opts opts = {.per_system = 1, .from_s = NAN, .to_s = NAN, .nodes = -1, .sort = 0};
  int best;
  CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_src("data/failures/lanl-system20.csv"), FL_LOG_AUTO, -1, &log), FL_OK);
  CU_ASSERT_EQUAL(log->format, FL_LOG_LANL);
  CU_ASSERT_EQUAL(log->n, 2478u);
  CU_ASSERT_EQUAL(log->nodes, 512);
  CU_ASSERT_EQUAL(log->systems, 1);
  CU_ASSERT_STRING_EQUAL(log->rec[0].node, "20:0");
  CU_ASSERT_DOUBLE_EQUAL(log->rec[0].downtime_s, 137 * 60.0, 1e-9);
  CU_ASSERT_EQUAL_FATAL(fl_fit_observe(log, &opts, &obs), FL_OK);
  CU_ASSERT_EQUAL(obs.nodes, 512);
  CU_ASSERT_EQUAL_FATAL(fl_fit_all(&obs, res, &best), FL_OK);
  /* failures come in bursts: the Hawkes model beats every renewal law, with most failures offspring of others */
  CU_ASSERT_EQUAL(best, FL_FIT_BURSTY);
  CU_ASSERT(res[FL_FIT_BURSTY].aic < res[FL_FIT_WEIBULL].aic - 100);
  CU_ASSERT(res[FL_FIT_BURSTY].lo[1] > 0.5);
  CU_ASSERT(res[FL_FIT_WEIBULL].aic < res[FL_FIT_EXP].aic - 100);
  CU_ASSERT(res[FL_FIT_WEIBULL].p[0] > 0.5 && res[FL_FIT_WEIBULL].hi[0] < 0.8);
  CU_ASSERT(res[FL_FIT_EXP].mean_s > 12 * 3600.0 && res[FL_FIT_EXP].mean_s < 15 * 3600.0);
  fl_fit_obs_free(&obs);
  /* per node: the 512 nodes, every one censored at the end */
  opts.per_system = 0;
  CU_ASSERT_EQUAL_FATAL(fl_fit_observe(log, &opts, &obs), FL_OK);
  CU_ASSERT_EQUAL(obs.n - obs.nfail, 512u - 1u); /* one node's last failure is the window's end */
  fl_fit_obs_free(&obs);
  fl_log_destroy(&log);
}

static void write_file(const char *name, const char *text)
{
  FILE *f = fopen(fl_test_tmp(name), "w");
  fputs(text, f);
  fclose(f);
}

/* LANL rows with quoted fields, a system filter, a system without node numbers; FTA rows (positional and with
 * a header), availability events skipped. */
static void test_readers(void)
{
  fl_log *log = NULL;
  write_file("l.csv",
             "System,machine type,nodes,procstot,procsinnode,nodenum,nodenumz,node install,node prod,node "
             "decom,fru type,mem,cputype,memtype,num intercon,purpose,Prob Started,Prob Fixed,Down "
             "Time,Facilities,Hardware,Human Error,Network,Undetermined,Software,Same Event\n"
             "2,cluster,49,6152,128,1,1,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,4/19/2001 3:27,4/19/2001 "
             "3:48,21,,,,,,\"MPI, PVM, Array services\",No\n"
             "17,,,,,,,,,,,,,,,,1/8/1997 8:40,1/8/1997 8:50,10,,Other,,,,,No\n"
             "2,cluster,49,6152,128,2,2,Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,4/20/2001 3:27,,,,,,,,,No\n");
  CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_tmp("l.csv"), FL_LOG_AUTO, 2, &log), FL_OK);
  CU_ASSERT_EQUAL(log->n, 2u);
  CU_ASSERT_STRING_EQUAL(log->rec[0].node, "2:1");
  CU_ASSERT_DOUBLE_EQUAL(log->rec[0].t_s, 0.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(log->rec[0].downtime_s, 21 * 60.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(log->rec[1].t_s, 86400.0, 0.0);
  CU_ASSERT(isnan(log->rec[1].downtime_s));
  CU_ASSERT_EQUAL(log->nodes, 49);
  fl_log_destroy(&log);
  CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_tmp("l.csv"), FL_LOG_LANL, -1, &log), FL_OK);
  CU_ASSERT_EQUAL(log->n, 3u);
  CU_ASSERT_STRING_EQUAL(log->rec[1].node, "17:*");
  CU_ASSERT_EQUAL(log->systems, 2);
  CU_ASSERT_EQUAL(log->nodes, -1); /* system 17 does not say */
  fl_log_destroy(&log);

  write_file("e.tab", "1\t0\t5\t1\tn5\t0\t1000000000\t1000003600\t0\n"
                      "2\t0\t5\t1\tn5\t1\t1000003600\t1000090000\t0\n"
                      "3\t0\t7\t1\tn7\t0\t1000050000.5\tNULL\t0\n");
  CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_tmp("e.tab"), FL_LOG_AUTO, -1, &log), FL_OK);
  CU_ASSERT_EQUAL(log->format, FL_LOG_FTA);
  CU_ASSERT_EQUAL(log->n, 2u);
  CU_ASSERT_STRING_EQUAL(log->rec[1].node, "7");
  CU_ASSERT_DOUBLE_EQUAL(log->rec[1].t_s, 50000.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(log->rec[0].downtime_s, 3600.0, 1e-9);
  CU_ASSERT(isnan(log->rec[1].downtime_s));
  CU_ASSERT_DOUBLE_EQUAL(log->origin_epoch, 1e9, 0.0);
  fl_log_destroy(&log);
  write_file("h.tab", "event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\t"
                      "event_stop_time\tevent_end_reason\n1\t0\t9\t3\tx\t0\t50\t60\t0\n");
  CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_tmp("h.tab"), FL_LOG_AUTO, -1, &log), FL_OK);
  CU_ASSERT_EQUAL(log->n, 1u);
  CU_ASSERT_EQUAL(log->rec[0].system, 3);
  fl_log_destroy(&log);
}

/* Bad logs: one line naming the file, the line and the field. */
static void test_bad_logs(void)
{
  static const struct {
    const char *name, *text, *want;
    fl_log_format fmt;
  } bad[] = {
      {"neg.csv", "10, 1\n-5, 2\n", "neg.csv:2: time '-5': must not be negative", FL_LOG_CSV},
      {"q.csv", "10, \"1\n", "the file ends inside a quoted field", FL_LOG_CSV},
      {"d.csv", "System,nodes,nodenumz,Prob Started\n20,4,1,13/40/2001 3:00\n",
       "d.csv:2: Prob Started '13/40/2001 3:00'", FL_LOG_LANL},
      {"h.csv", "System,nodes,Prob Started\n", "h.csv:1: LANL header has no 'nodenumz' column", FL_LOG_LANL},
      /* found by fuzz_logs: a system of 5 billion nodes, whose observations a fit then failed to allocate */
      {"big.csv", "System,nodes,nodenumz,Prob Started\n20,5182043040,1,12/31/2001 13:56\n",
       "big.csv:2: nodes '5182043040': a system of 0 to 10000000 nodes", FL_LOG_LANL},
      {"f.tab", "1\t0\t5\t1\tn5\t0\tyesterday\t1\t0\n", "f.tab:1: event_start_time 'yesterday'", FL_LOG_FTA},
      {"s.tab", "1\t0\t5\t1\tn5\t0\t100\t50\t0\n", "s.tab:1: event_stop_time '50' is before", FL_LOG_FTA},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fl_log *log = NULL;
    write_file(bad[i].name, bad[i].text);
    CU_ASSERT_EQUAL(fl_log_read(fl_test_tmp(bad[i].name), bad[i].fmt, -1, &log), FL_ERR_INPUT);
    CU_ASSERT_PTR_NULL(log);
    if (!strstr(fl_err_msg(), bad[i].want))
      fprintf(stderr, "got '%s', want '%s'\n", fl_err_msg(), bad[i].want);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i].want));
  }
}

/* faultline fit from the command line: the table, --scenario output that simulate takes, and bad input. */
static void test_cli_fit(void)
{
  char cmd[512];
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  FILE *f = fopen(fl_test_tmp("w.csv"), "w");
  double t = 0;
  gsl_rng_set(r, 5);
  for (int i = 0; i < 3000; i++) {
    t += gsl_ran_weibull(r, 3600.0 * 50, 0.6);
    fprintf(f, "%.1f, %d\n", t, i % 10);
  }
  fclose(f);
  gsl_rng_free(r);
  CU_ASSERT_EQUAL(fl_cli_run("fit w.csv --per system"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "weibull"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "<- best"));
  CU_ASSERT_PTR_NOT_NULL(strstr(strstr(fl_cli_out, "weibull    "), "<- best"));
  CU_ASSERT_EQUAL(fl_cli_run("fit w.csv --per system --nodes 10 --scenario"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "model = weibull"));
  {
    /* the section is a scenario fragment simulate accepts */
    fl_scenario *sc = NULL;
    static char text[sizeof fl_cli_out + 64];
    strcpy(text, fl_cli_out);
    strcat(text, "[app]\nnodes = 8\nwork = 2d\n[run]\nreplicas = 2\n");
    CU_ASSERT_EQUAL(fl_scenario_from_text(text, "<fit>", NULL, &sc), FL_OK);
    CU_ASSERT_STRING_EQUAL(sc->model, "weibull");
    {
      double shape = 0;
      CU_ASSERT_EQUAL(fl_scenario_number(sc, "failures.shape", &shape), 1);
      CU_ASSERT(fabs(shape - 0.6) < 0.05);
    }
    fl_scenario_destroy(&sc);
    fl_cli_write("fitted.ini", text);
    CU_ASSERT_EQUAL(fl_cli_run("simulate fitted.ini --db fitted.sqlite --quiet"), 0);
  }
  /* bad input: exit 2, one line naming file and line */
  fl_cli_write("few.csv", "10, 0\n20, 0\n30, 1\n");
  CU_ASSERT_EQUAL(fl_cli_run("fit few.csv"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "few.csv: 1 time between failures in the window; a fit needs at least 20"));
  fl_cli_write("uns.csv", "10, 0\n20, 1\n5, 0\n");
  CU_ASSERT_EQUAL(fl_cli_run("fit uns.csv"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "uns.csv:3: node '0' fails at 5 s, before its failure at 10 s on line 1"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  fl_cli_write("map.csv", "0, node-a\n");
  CU_ASSERT_EQUAL(fl_cli_run("fit uns.csv --sort --map map.csv"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "uns.csv:2: node '1': not in the node map 'map.csv'"));
  CU_ASSERT_EQUAL(fl_cli_run("fit uns.csv --sort --nodes 1"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "uns.csv:2: node '1': no such node (1 nodes, 0-based)"));
  CU_ASSERT_EQUAL(fl_cli_run("fit nosuch.csv"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "nosuch.csv"));
  CU_ASSERT_EQUAL(fl_cli_run("fit w.csv --per rack"), 2);
  snprintf(cmd, sizeof cmd, "fit %s --system 20 --per system --scenario",
           fl_test_src("data/failures/lanl-system20.csv"));
  CU_ASSERT_EQUAL(fl_cli_run(cmd), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "node_mtbf"));
  {
    /* --scenario without --per: the system's rate (the log's failure count), not a per-node fit that understates
     * it; the same section as --per system */
    static char explicit_sys[sizeof fl_cli_out];
    snprintf(explicit_sys, sizeof explicit_sys, "%s", strstr(fl_cli_out, "[failures]"));
    snprintf(cmd, sizeof cmd, "fit %s --system 20 --scenario", fl_test_src("data/failures/lanl-system20.csv"));
    CU_ASSERT_EQUAL(fl_cli_run(cmd), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "per system"));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "[failures]"));
    if (strstr(fl_cli_out, "[failures]"))
      CU_ASSERT_STRING_EQUAL(strstr(fl_cli_out, "[failures]"), explicit_sys);
  }
}

/* The trace model reads LANL logs: system 20's failures drive a simulation on its 512 nodes. */
static void test_trace_from_lanl(void)
{
  char text[1024];
  snprintf(text, sizeof text,
           "[run]\nreplicas = 1\n[platform]\nnodes = 512\n[app]\nnodes = 512\nwork = 30d\n[failures]\nmodel = "
           "trace\ntrace = %s\n",
           fl_test_src("data/failures/lanl-system20.csv"));
  fl_cli_write("lanl.ini", text);
  CU_ASSERT_EQUAL(fl_cli_run("simulate lanl.ini --db lanl.sqlite --quiet"), 0);
  CU_ASSERT_EQUAL(fl_cli_run("report lanl.sqlite --format csv"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "trace"));
  /* a map that leaves nodes out */
  fl_cli_write("m.csv", "20:0, 0\n20:1, 1\n");
  snprintf(text, sizeof text,
           "[run]\nreplicas = 1\n[platform]\nnodes = 512\n[app]\nnodes = 512\nwork = 30d\n[failures]\nmodel = "
           "trace\ntrace = %s\ntrace_map = m.csv\n",
           fl_test_src("data/failures/lanl-system20.csv"));
  fl_cli_write("lanlmap.ini", text);
  CU_ASSERT_EQUAL(fl_cli_run("simulate lanlmap.ini --db lanl2.sqlite --quiet"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "lanl-system20.csv:"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "not in the node map"));
  CU_ASSERT(!fl_cli_exists("lanl2.sqlite"));
}

/* A Hawkes process drawn by its branching structure (background Poisson failures, each with Poisson(eta)
 * offspring after Exp(tau) delays, recursively): the bursty fit recovers eta and tau and beats every renewal law;
 * on a plain Poisson process it does not win (parsimony). */
static fl_err hawkes_dates(gsl_rng *r, double mu, double eta, double tau, double T, double **out, size_t *n)
{
  size_t cap = 1024, m = 0, head = 0;
  double *t = malloc(cap * sizeof *t), s = 0;
  for (;;) { /* background */
    s += gsl_ran_exponential(r, 1.0 / mu);
    if (s >= T)
      break;
    if (m == cap)
      t = realloc(t, (cap *= 2) * sizeof *t);
    t[m++] = s;
  }
  while (head < m) { /* offspring, generation by generation */
    unsigned k = gsl_ran_poisson(r, eta);
    double parent = t[head++];
    for (unsigned i = 0; i < k; i++) {
      double c = parent + gsl_ran_exponential(r, tau);
      if (c >= T)
        continue;
      if (m == cap)
        t = realloc(t, (cap *= 2) * sizeof *t);
      t[m++] = c;
    }
  }
  *out = t;
  *n = m;
  return FL_OK;
}

static int dcmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void test_bursty(void)
{
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  for (int poisson = 0; poisson < 2; poisson++) {
    double *t = NULL, T = 3600.0 * 24 * 3650, mu = 1.0 / (3600.0 * 30), eta = poisson ? 0.0 : 0.6, tau = 3600.0 * 6;
    size_t n;
    fl_fit_obs obs;
    fl_fit_result res[FL_FIT_MAX];
    int best = -1;
    FILE *f = fopen(fl_test_tmp("hawkes.csv"), "w");
    fl_log *log = NULL;
    fl_fit_opts opts = {.per_system = 1, .from_s = 0, .to_s = T, .nodes = 100, .sort = 0};
    gsl_rng_set(r, 31 + (unsigned long)poisson);
    hawkes_dates(r, mu, eta, tau, T, &t, &n);
    qsort(t, n, sizeof *t, dcmp);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%.3f, %zu\n", t[i], i % 100);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(fl_log_read(fl_test_tmp("hawkes.csv"), FL_LOG_CSV, -1, &log), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_fit_observe(log, &opts, &obs), FL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(obs.times);
    CU_ASSERT_EQUAL_FATAL(fl_fit_all(&obs, res, &best), FL_OK);
    fprintf(stderr, "  %zu dates: eta %.3f [%.3f, %.3f] tau %.0f s, mu 1/%.0f s; best %s\n", n, res[FL_FIT_BURSTY].p[1],
            res[FL_FIT_BURSTY].lo[1], res[FL_FIT_BURSTY].hi[1], res[FL_FIT_BURSTY].p[2], 1.0 / res[FL_FIT_BURSTY].p[0],
            fl_fit_family_name(best));
    if (!poisson) {
      CU_ASSERT_EQUAL(best, FL_FIT_BURSTY);
      CU_ASSERT(res[FL_FIT_BURSTY].lo[1] < eta && eta < res[FL_FIT_BURSTY].hi[1]);
      CU_ASSERT(rel(res[FL_FIT_BURSTY].p[1], eta) < 0.1);
      CU_ASSERT(rel(res[FL_FIT_BURSTY].p[2], tau) < 0.2);
      CU_ASSERT(rel(res[FL_FIT_BURSTY].p[0], mu) < 0.1);
      CU_ASSERT(res[FL_FIT_BURSTY].ks < 0.03);
    } else {
      CU_ASSERT_EQUAL(best, FL_FIT_EXP);
      CU_ASSERT(res[FL_FIT_BURSTY].p[1] < 0.1);
    }
    fl_fit_obs_free(&obs);
    fl_log_destroy(&log);
    free(t);
  }
  gsl_rng_free(r);
}

/* The families are the failure-model registry's: every law with an fl_fm_fit, in registry order, then the bursty
 * process; none, trace (no fit) are not families; every family fits a sample and writes a section that names it. */
static void test_families_from_registry(void)
{
  int f = 0;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  double t[500];
  fl_fit_obs obs;
  for (int i = 0; i < 500; i++)
    t[i] = gsl_ran_weibull(r, 86400.0, 0.8);
  CU_ASSERT_EQUAL_FATAL(fl_fit_obs_from(t, NULL, 500, &obs), FL_OK);
  for (int i = 0; i < fl_fm_registry_count(); i++) {
    fl_fit_result res;
    char section[512] = "", want[64];
    FILE *m;
    if (!fl_fm_registry_fit(i)) {
      CU_ASSERT_EQUAL(fl_fit_family_find(fl_fm_registry_name(i)), -1);
      continue;
    }
    CU_ASSERT_EQUAL(fl_fit_family_find(fl_fm_registry_name(i)), f);
    CU_ASSERT_STRING_EQUAL(fl_fit_family_name(f), fl_fm_registry_name(i));
    CU_ASSERT_EQUAL_FATAL(fl_fit_one(&obs, f, &res), FL_OK);
    CU_ASSERT(res.nparam == fl_fm_registry_fit(i)->nparam && isfinite(res.aic) && res.mean_s > 0);
    m = fmemopen(section, sizeof section - 1, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    fl_fit_print_section(&res, 1.0, m);
    fclose(m);
    snprintf(want, sizeof want, "model = %s\n", fl_fm_registry_name(i));
    CU_ASSERT_PTR_NOT_NULL(strstr(section, want));
    f++;
  }
  CU_ASSERT_EQUAL(f, fl_fit_family_bursty());
  CU_ASSERT_EQUAL(fl_fit_families(), f + 1);
  CU_ASSERT_EQUAL(fl_fit_family_find("none"), -1);
  fl_fit_obs_free(&obs);
  gsl_rng_free(r);
}

static CU_TestInfo fit_tests[] = {
    {"the families are the failure-model registry's fittable laws, then bursty", test_families_from_registry},
    {"bursts: a Hawkes process recovered; none found in a Poisson one", test_bursty},
    {"10,000 draws: each family recovered within 2 %, picked by AIC", test_recovers_each_family},
    {"exponential MLE in closed form, censored", test_exponential_closed_form},
    {"censored window: renewal nodes, per-node fit", test_censored_window},
    {"LANL system 20: decreasing hazard", test_lanl_system20},
    {"readers: LANL quoting and systems, FTA", test_readers},
    {"bad logs name file, line, field", test_bad_logs},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo cli_tests[] = {
    {"faultline fit: table, --scenario, errors", test_cli_fit},
    {"trace model reads the LANL log", test_trace_from_lanl},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {
    {"fit", NULL, NULL, NULL, NULL, fit_tests},
    {"fit-cli", NULL, NULL, NULL, NULL, cli_tests},
    CU_SUITE_INFO_NULL,
};
FL_TEST_MAIN(suites)
