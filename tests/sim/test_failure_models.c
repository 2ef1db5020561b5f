/* test_failure_models.c — each failure model's moments against their analytical values, the stationary
 * residual life, the registry, traces, and the per-node renewal timeline. */
#include "fl_test.h"
#include "fm.h"
#include "rng.h"
#include "source.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_SAMPLES 200000

static fl_fm *make_fm(const char *text)
{
  fl_scenario *sc = NULL;
  fl_fm *fm = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(text, "<test>", fl_test_tmpdir(), &sc), FL_OK);
  if (fl_fm_create(sc, &fm) != FL_OK)
    fprintf(stderr, "fl_fm_create: %s\n", fl_err_msg());
  fl_scenario_destroy(&sc);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fm);
  return fm;
}

static double *draw(fl_fm *fm, int residual)
{
  gsl_rng *r = NULL;
  double *x = malloc(N_SAMPLES * sizeof *x);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_EQUAL_FATAL(fl_rng_create(11, 0, FL_STREAM_TEST, &r), FL_OK);
  for (int i = 0; i < N_SAMPLES; i++)
    x[i] = residual ? fl_fm_draw_residual(fm, r) : fl_fm_draw(fm, r);
  gsl_rng_free(r);
  return x;
}

/* The sample mean lies within 5 standard errors of the law's mean. */
static void check_mean(const double *x, double mean, double var)
{
  double m = gsl_stats_mean(x, 1, N_SAMPLES);
  double se = sqrt(var / N_SAMPLES);
  if (fabs(m - mean) > 5 * se)
    fprintf(stderr, "mean %g, expected %g (se %g)\n", m, mean, se);
  CU_ASSERT(fabs(m - mean) <= 5 * se);
}

static void test_exponential(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = exponential\nnode_mtbf = 1000s\n");
  double *x = draw(fm, 0);
  CU_ASSERT_STRING_EQUAL(fl_fm_name(fm), "exponential");
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_mean(fm), 1000.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_variance(fm), 1e6, 0.0);
  check_mean(x, 1000.0, 1e6);
  /* coefficient of variation 1 */
  CU_ASSERT_DOUBLE_EQUAL(gsl_stats_sd(x, 1, N_SAMPLES) / 1000.0, 1.0, 0.02);
  free(x);
  fl_fm_destroy(&fm);
}

static void test_weibull(void)
{
  const double ks[] = {0.5, 0.7, 1.0, 2.5};
  for (int i = 0; i < 4; i++) {
    char text[128];
    double k = ks[i], lambda, var, *x;
    fl_fm *fm;
    snprintf(text, sizeof text, "[failures]\nmodel = weibull\nshape = %g\nnode_mtbf = 1000s\n", k);
    fm = make_fm(text);
    lambda = 1000.0 / gsl_sf_gamma(1 + 1 / k);
    var = lambda * lambda * (gsl_sf_gamma(1 + 2 / k) - pow(gsl_sf_gamma(1 + 1 / k), 2));
    CU_ASSERT_DOUBLE_EQUAL(fl_fm_variance(fm), var, 1e-6 * var);
    x = draw(fm, 0);
    check_mean(x, 1000.0, var);
    /* shape: the sample variance matches Gamma(1+2/k) - Gamma(1+1/k)^2, within 5 % */
    CU_ASSERT_DOUBLE_EQUAL(gsl_stats_variance(x, 1, N_SAMPLES) / var, 1.0, 0.05);
    /* and the median is lambda (ln 2)^{1/k} */
    {
      double *s = malloc(N_SAMPLES * sizeof *s), med;
      memcpy(s, x, N_SAMPLES * sizeof *s);
      gsl_sort(s, 1, N_SAMPLES);
      med = gsl_stats_median_from_sorted_data(s, 1, N_SAMPLES);
      CU_ASSERT_DOUBLE_EQUAL(med / (lambda * pow(log(2.0), 1 / k)), 1.0, 0.02);
      free(s);
    }
    free(x);
    fl_fm_destroy(&fm);
  }
}

static void test_lognormal(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = lognormal\nsigma = 1.2\nnode_mtbf = 1000s\n");
  double *x = draw(fm, 0), zeta = log(1000.0) - 0.5 * 1.2 * 1.2;
  double var = expm1(1.44) * 1e6;
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_variance(fm), var, 1e-6 * var);
  check_mean(x, 1000.0, var);
  /* shape: ln X is normal(zeta, sigma) */
  for (int i = 0; i < N_SAMPLES; i++)
    x[i] = log(x[i]);
  CU_ASSERT_DOUBLE_EQUAL(gsl_stats_mean(x, 1, N_SAMPLES), zeta, 0.01);
  CU_ASSERT_DOUBLE_EQUAL(gsl_stats_sd(x, 1, N_SAMPLES), 1.2, 0.01);
  free(x);
  fl_fm_destroy(&fm);
}

/* Stationary residual life: mean E[X^2] / (2 E[X]) = M (1 + CV^2) / 2. */
static void test_residual_life(void)
{
  const char *texts[] = {"[failures]\nmodel = exponential\nnode_mtbf = 1000s\n",
                         "[failures]\nmodel = weibull\nshape = 0.7\nnode_mtbf = 1000s\n",
                         "[failures]\nmodel = weibull\nshape = 3\nnode_mtbf = 1000s\n",
                         "[failures]\nmodel = lognormal\nsigma = 1\nnode_mtbf = 1000s\n"};
  for (int i = 0; i < 4; i++) {
    fl_fm *fm = make_fm(texts[i]);
    double M = fl_fm_mean(fm), V = fl_fm_variance(fm);
    double expect = (M * M + V) / (2 * M);
    double *x = draw(fm, 1);
    double m = gsl_stats_mean(x, 1, N_SAMPLES), sd = gsl_stats_sd(x, 1, N_SAMPLES);
    if (fabs(m - expect) > 5 * sd / sqrt(N_SAMPLES))
      fprintf(stderr, "%s: residual mean %g, expected %g\n", fl_fm_name(fm), m, expect);
    CU_ASSERT(fabs(m - expect) <= 5 * sd / sqrt(N_SAMPLES));
    free(x);
    fl_fm_destroy(&fm);
  }
}

/* Every registered model can be built from a scenario and names itself as registered. */
static void test_registry(void)
{
  const char *trace = fl_test_tmp("empty-trace.csv");
  FILE *f = fopen(trace, "w");
  fputs("# no failures\n", f);
  fclose(f);
  CU_ASSERT(fl_fm_registry_count() >= 5);
  for (int i = 0; i < fl_fm_registry_count(); i++) {
    char text[256];
    fl_fm *fm;
    snprintf(text, sizeof text, "[failures]\nmodel = %s\n%s", fl_fm_registry_name(i),
             strcmp(fl_fm_registry_name(i), "trace") == 0 ? "trace = empty-trace.csv\n" : "");
    fm = make_fm(text);
    CU_ASSERT_STRING_EQUAL(fl_fm_name(fm), fl_fm_registry_name(i));
    if (fl_fm_is_renewal(fm)) {
      gsl_rng *r = NULL;
      fl_rng_create(1, 0, FL_STREAM_TEST, &r);
      CU_ASSERT(fl_fm_draw(fm, r) > 0);
      CU_ASSERT(fl_fm_draw_residual(fm, r) > 0);
      gsl_rng_free(r);
    }
    fl_fm_destroy(&fm);
  }
}

static void test_bad_models(void)
{
  fl_scenario *sc = NULL;
  fl_fm *fm = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[failures]\nmodel = weibul\n", "m.ini", NULL, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_fm_create(sc, &fm), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "m.ini:2: [failures] model = 'weibul': unknown failure model"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "weibull"));
  CU_ASSERT_PTR_NULL(fm);
  fl_scenario_destroy(&sc);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[failures]\nmodel = weibull\nshape = 0.01\n", "s.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_fm_create(sc, &fm), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "s.ini:3: [failures] shape = '0.01'"));
  fl_scenario_destroy(&sc);
}

static const char *write_trace(const char *name, const char *text)
{
  const char *path = fl_test_tmp(name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_trace_parse(void)
{
  fl_fm *fm;
  write_trace("t.csv", "# a trace\ntime,node,downtime\n7200, 3, 30min\n3600, node-5,\n5400.5, 1, never\n");
  fm = make_fm("[failures]\nmodel = trace\ntrace = t.csv\n");
  CU_ASSERT_EQUAL_FATAL(fl_fm_trace_count(fm), 3u);
  /* sorted by time */
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_trace_at(fm, 0)->t_s, 3600.0, 0.0);
  CU_ASSERT_STRING_EQUAL(fl_fm_trace_at(fm, 0)->host, "node-5");
  CU_ASSERT(isnan(fl_fm_trace_at(fm, 0)->downtime_s));
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_trace_at(fm, 1)->t_s, 5400.5, 0.0);
  CU_ASSERT_EQUAL(fl_fm_trace_at(fm, 1)->node, 1);
  CU_ASSERT(isinf(fl_fm_trace_at(fm, 1)->downtime_s));
  CU_ASSERT_DOUBLE_EQUAL(fl_fm_trace_at(fm, 2)->downtime_s, 1800.0, 0.0);
  CU_ASSERT_EQUAL(fl_fm_trace_at(fm, 2)->line, 3);
  fl_fm_destroy(&fm);
}

static void test_trace_errors(void)
{
  const char *bad[][2] = {
      {"3600, 2, 10min\n-3, 1\n", ":2: time '-3': must not be negative"},
      {"3600\n", ":1: expected 'time, node[, downtime]'"},
      {"1h, 2, soon\n", ":1: downtime 'soon'"},
      {"1h, 2x\n", ":1: node '2x': not a node index"},
      {"1h, , 5s\n", ":1: node '': empty"},
      {"# c\n1 parsec, 3\n", ":2: time '1 parsec'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fl_scenario *sc = NULL;
    fl_fm *fm = NULL;
    write_trace("bad.csv", bad[i][0]);
    CU_ASSERT_EQUAL_FATAL(
        fl_scenario_from_text("[failures]\nmodel = trace\ntrace = bad.csv\n", "<t>", fl_test_tmpdir(), &sc), FL_OK);
    CU_ASSERT_EQUAL(fl_fm_create(sc, &fm), FL_ERR_INPUT);
    if (!strstr(fl_err_msg(), bad[i][1]))
      fprintf(stderr, "got '%s', want '%s'\n", fl_err_msg(), bad[i][1]);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), bad[i][1]));
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "bad.csv"));
    CU_ASSERT_PTR_NULL(fm);
    fl_scenario_destroy(&sc);
  }
}

/* Bursts: each failure begets Poisson(eta) more on random nodes: the failure rate is the base one / (1 - eta),
 * failures cluster (many gaps shorter than the burst time), and the timeline stays ordered and reproducible. */
static void test_source_bursts(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = exponential\nnode_mtbf = 100000s\n");
  fl_fsrc_config cfg = {.fm = fm, .nodes = 1000, .repair_s = 0.0, .start = FL_START_STATIONARY, .seed = 9,
                        .replica = 0, .burst_ratio = 0.5, .burst_time_s = 20.0};
  fl_fsrc *src = NULL, *plain = NULL;
  double t, last = 0;
  long node, failures = 0, base = 0, short_gaps = 0, base_short = 0;
  fl_fsrc_kind kind;
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &src), FL_OK);
  while (fl_fsrc_peek(src) < 2e5 && fl_fsrc_next(src, &t, &node, &kind)) {
    CU_ASSERT(t >= last);
    if (kind == FL_FSRC_FAILURE) {
      short_gaps += failures > 0 && t - last < 5.0;
      failures++;
    }
    last = t;
  }
  cfg.burst_ratio = 0.0;
  last = 0;
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &plain), FL_OK);
  while (fl_fsrc_peek(plain) < 2e5 && fl_fsrc_next(plain, &t, &node, &kind))
    if (kind == FL_FSRC_FAILURE) {
      base_short += base > 0 && t - last < 5.0;
      base++;
      last = t;
    }
  /* 2000 base failures expected; with bursts 4000 */
  fprintf(stderr, "  %ld failures with bursts, %ld without; gaps < 5 s: %ld vs %ld\n", failures, base, short_gaps,
          base_short);
  CU_ASSERT(base > 1800 && base < 2200);
  CU_ASSERT(failures > 1.8 * base && failures < 2.2 * base);
  CU_ASSERT(short_gaps > 2 * base_short);
  fl_fsrc_destroy(&src);
  fl_fsrc_destroy(&plain);
  fl_fm_destroy(&fm);
}

/* Lazy first failures (the default for laws drawn by inversion, 4,096 nodes and more) give the very events of the
 * eager draw, bit for bit and in order: exponential and Weibull (falling in its uniform), fresh and stationary
 * starts, with repairs, never repaired, with group failures (which make pending events stale) and bursts (which
 * push events the heap must make room for); long enough that every waiting node is taken in. And the split draws
 * equal GSL's own (gsl_ran_exponential, gsl_ran_weibull), which the stored rows of earlier versions used. */
static void test_source_lazy_is_eager(void)
{
  static const struct {
    const char *law;
    long nodes;
    double repair_s, horizon;
    int start;
    long group_size;
    double group_mtbf, burst;
  } cases[] = {
      {"model = exponential\nnode_mtbf = 1000h\n", 5000, 60.0, 3e7, FL_START_FRESH, 0, INFINITY, 0},
      {"model = exponential\nnode_mtbf = 1000h\n", 20000, 3600.0, 1e7, FL_START_STATIONARY, 0, INFINITY, 0},
      {"model = weibull\nshape = 0.7\nnode_mtbf = 1000h\n", 5000, 60.0, 3e7, FL_START_FRESH, 0, INFINITY, 0},
      {"model = weibull\nshape = 1.8\nnode_mtbf = 100h\n", 4096, INFINITY, 1e9, FL_START_FRESH, 0, INFINITY, 0},
      {"model = exponential\nnode_mtbf = 1000h\n", 8000, 600.0, 2e6, FL_START_FRESH, 100, 5e4, 0.3},
      {"model = exponential\nnode_mtbf = 1000h\n", 8000, 600.0, 2e6, FL_START_FRESH, 100, 5e4, 0},
      {"model = exponential\nnode_mtbf = 1000h\n", 8000, 600.0, 2e6, FL_START_FRESH, 0, INFINITY, 0.3},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char text[256];
    fl_fm *fm;
    fl_fsrc_config cfg = {.nodes = cases[c].nodes, .repair_s = cases[c].repair_s, .start = cases[c].start,
                          .seed = 11, .replica = c, .group_size = cases[c].group_size,
                          .group_mtbf_s = cases[c].group_mtbf, .burst_ratio = cases[c].burst,
                          .burst_time_s = 300.0};
    fl_fsrc *lazy = NULL, *eager = NULL;
    long n = 0, same = 1;
    double t, t2;
    long node, node2;
    fl_fsrc_kind kind, kind2;
    snprintf(text, sizeof text, "[failures]\n%s", cases[c].law);
    fm = make_fm(text);
    cfg.fm = fm;
    CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &lazy), FL_OK);
    cfg.eager = 1;
    CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &eager), FL_OK);
    /* fl_fsrc_peek is a bound (a group failure whose members are all down already yields no event): the two
     * sources must agree on it too */
    for (;;) {
      double pe = fl_fsrc_peek(eager), pl = fl_fsrc_peek(lazy);
      int re, rl;
      same = pe == pl;
      if (!same || !(pe < cases[c].horizon))
        break;
      re = fl_fsrc_next(eager, &t, &node, &kind);
      rl = fl_fsrc_next(lazy, &t2, &node2, &kind2);
      same = re == rl && (!re || (t2 == t && node2 == node && kind2 == kind));
      if (!same || !re)
        break;
      n++;
    }
    CU_ASSERT(same);
    CU_ASSERT(n >= cases[c].nodes); /* every node failed about once at least: every waiting node was taken in */
    CU_ASSERT_EQUAL(fl_fsrc_peek(lazy), fl_fsrc_peek(eager));
    fl_fsrc_destroy(&lazy);
    fl_fsrc_destroy(&eager);
    fl_fm_destroy(&fm);
  }
  {
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(gsl_rng_mt19937);
    fl_fm *ex = make_fm("[failures]\nmodel = exponential\nnode_mtbf = 5y\n");
    fl_fm *wb = make_fm("[failures]\nmodel = weibull\nshape = 0.7\nnode_mtbf = 5y\n");
    long bad = 0;
    gsl_rng_set(a, 2026);
    gsl_rng_set(b, 2026);
    for (int i = 0; i < 200000; i++) {
      bad += gsl_ran_exponential(a, fl_fm_mean(ex)) != fl_fm_draw(ex, b);
      bad += gsl_ran_weibull(a, fl_fm_mean(wb) / gsl_sf_gamma(1.0 + 1.0 / 0.7), 0.7) != fl_fm_draw(wb, b);
    }
    CU_ASSERT_EQUAL(bad, 0);
    gsl_rng_free(a);
    gsl_rng_free(b);
    fl_fm_destroy(&ex);
    fl_fm_destroy(&wb);
  }
}

/* The timeline: one pending event per node, time ordered, failure then repair. */
static void test_source_renewal(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = weibull\nshape = 0.7\nnode_mtbf = 1000s\n");
  fl_fsrc_config cfg = {.fm = fm, .nodes = 50, .repair_s = 10.0, .start = FL_START_FRESH, .seed = 3, .replica = 0};
  fl_fsrc *src = NULL, *again = NULL;
  double t, last = 0, t2;
  long node, node2, failures = 0, repairs = 0;
  fl_fsrc_kind kind, kind2;
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &src), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &again), FL_OK);
  while (fl_fsrc_peek(src) < 1e5 && fl_fsrc_next(src, &t, &node, &kind)) {
    CU_ASSERT(t >= last);
    last = t;
    CU_ASSERT(node >= 0 && node < 50);
    if (kind == FL_FSRC_FAILURE) {
      failures++;
      CU_ASSERT(!fl_fsrc_node_up(src, node));
    } else {
      repairs++;
      CU_ASSERT(fl_fsrc_node_up(src, node));
    }
    /* same seed, same replica: the same timeline */
    CU_ASSERT_FATAL(fl_fsrc_next(again, &t2, &node2, &kind2));
    CU_ASSERT(t2 == t && node2 == node && kind2 == kind);
  }
  /* about 50 nodes * 1e5 s / (1000 + 10) s */
  CU_ASSERT(failures > 4000 && failures < 6000);
  CU_ASSERT(repairs >= failures - 50 && repairs <= failures);
  fl_fsrc_destroy(&src);
  fl_fsrc_destroy(&again);
  fl_fm_destroy(&fm);
}

/* Group failures: 100 nodes in groups of 10, each group failing every 1000 s on average, on top of Weibull nodes.
 * A group failure takes every up member at one date; nodes stay consistent (a failure only of an up node, a
 * repair only of a down one); about 10 x 1e6 / 1000 group failures; the timeline is reproducible. */
static void test_source_groups(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = weibull\nshape = 0.7\nnode_mtbf = 20000s\n");
  fl_fsrc_config cfg = {.fm = fm,
                        .nodes = 100,
                        .repair_s = 5.0,
                        .start = FL_START_FRESH,
                        .seed = 9,
                        .replica = 1,
                        .group_size = 10,
                        .group_mtbf_s = 1000.0};
  fl_fsrc *src = NULL, *again = NULL;
  unsigned char up[100];
  double t, last = 0, t2, group_t = -1;
  long node, node2, groups = 0, run = 0, run_group = -1, node_failures = 0;
  fl_fsrc_kind kind, kind2;
  memset(up, 1, sizeof up);
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &src), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &again), FL_OK);
  while (fl_fsrc_peek(src) < 1e6 && fl_fsrc_next(src, &t, &node, &kind)) {
    CU_ASSERT_FATAL(t >= last);
    last = t;
    CU_ASSERT_FATAL(fl_fsrc_next(again, &t2, &node2, &kind2));
    CU_ASSERT(t2 == t && node2 == node && kind2 == kind);
    if (kind == FL_FSRC_FAILURE) {
      CU_ASSERT(up[node]);
      up[node] = 0;
      node_failures++;
      /* members of one group failure share its date and come in order */
      if (t == group_t && node / 10 == run_group) {
        run++;
        if (run == 3)
          groups++; /* three members at one date: a group failure, not chance */
      } else {
        group_t = t;
        run_group = node / 10;
        run = 1;
      }
    } else {
      CU_ASSERT(!up[node]);
      up[node] = 1;
    }
  }
  CU_ASSERT(groups > 9000 && groups < 11000);
  /* each group failure takes the up members (almost all 10); the nodes' own failures add about 100 x 1e6 / 2e4 */
  CU_ASSERT(node_failures > 9000 * 9 && node_failures < 11000 * 10 + 7000);
  fl_fsrc_destroy(&src);
  fl_fsrc_destroy(&again);
  fl_fm_destroy(&fm);
}

static void test_source_never_repaired(void)
{
  fl_fm *fm = make_fm("[failures]\nmodel = exponential\nnode_mtbf = 100s\n");
  fl_fsrc_config cfg = {
      .fm = fm, .nodes = 20, .repair_s = INFINITY, .start = FL_START_STATIONARY, .seed = 5, .replica = 2};
  fl_fsrc *src = NULL;
  double t;
  long node, n = 0;
  fl_fsrc_kind kind;
  CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &src), FL_OK);
  while (fl_fsrc_next(src, &t, &node, &kind)) {
    CU_ASSERT_EQUAL(kind, FL_FSRC_FAILURE);
    CU_ASSERT_EQUAL(fl_fsrc_pending_repairs(src), 0);
    n++;
  }
  CU_ASSERT_EQUAL(n, 20); /* every node fails once, for good */
  CU_ASSERT(isinf(fl_fsrc_peek(src)));
  fl_fsrc_destroy(&src);
  fl_fm_destroy(&fm);
}

static void test_source_trace(void)
{
  fl_fm *fm;
  long nodes_of_records[4] = {2, 2, 0, 2};
  fl_fsrc *src = NULL;
  double t;
  long node;
  fl_fsrc_kind kind;
  /* sorted: 10s n2 (down 100s), 20s n2 (dropped: down), 30s n0 (down 5s), 200s n2 (repair default 1s) */
  write_trace("replay.csv", "10, 2, 100s\n20, 2\n30, 0, 5s\n200, 2\n");
  fm = make_fm("[failures]\nmodel = trace\ntrace = replay.csv\n");
  {
    fl_fsrc_config cfg = {
        .fm = fm, .nodes = 3, .repair_s = 1.0, .seed = 1, .replica = 0, .trace_node = nodes_of_records};
    CU_ASSERT_EQUAL_FATAL(fl_fsrc_create(&cfg, &src), FL_OK);
  }
  {
    const struct {
      double t;
      long node;
      fl_fsrc_kind kind;
    } want[] = {
        {10, 2, FL_FSRC_FAILURE}, {30, 0, FL_FSRC_FAILURE},  {35, 0, FL_FSRC_REPAIR},
        {110, 2, FL_FSRC_REPAIR}, {200, 2, FL_FSRC_FAILURE}, {201, 2, FL_FSRC_REPAIR},
    };
    for (int i = 0; i < 6; i++) {
      CU_ASSERT_FATAL(fl_fsrc_next(src, &t, &node, &kind));
      CU_ASSERT_DOUBLE_EQUAL(t, want[i].t, 1e-9);
      CU_ASSERT_EQUAL(node, want[i].node);
      CU_ASSERT_EQUAL(kind, want[i].kind);
    }
    CU_ASSERT_FALSE(fl_fsrc_next(src, &t, &node, &kind));
  }
  fl_fsrc_destroy(&src);
  fl_fm_destroy(&fm);
}

static CU_TestInfo fm_tests[] = {
    {"exponential mean", test_exponential},
    {"Weibull mean, variance and median", test_weibull},
    {"log-normal mean and log moments", test_lognormal},
    {"stationary residual life", test_residual_life},
    {"registry conformance", test_registry},
    {"bad models name the key", test_bad_models},
    {"trace parsing", test_trace_parse},
    {"trace errors name file and line", test_trace_errors},
    {"renewal timeline", test_source_renewal},
    {"lazy first failures are the eager ones", test_source_lazy_is_eager},
    {"bursts: rate / (1 - eta), clustered", test_source_bursts},
    {"never repaired", test_source_never_repaired},
    {"group failures", test_source_groups},
    {"trace replay", test_source_trace},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"failure_models", NULL, NULL, NULL, NULL, fm_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
