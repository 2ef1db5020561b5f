/* test_interval.c — checkpoint interval rules and Daly's expected wall time. */
#include "fl_test.h"
#include "interval.h"

#include <math.h>

static void test_young(void)
{
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_young(300.0, 86400.0), sqrt(2.0 * 300.0 * 86400.0), 1e-9);
}

/* Daly 2006, section 6: M = 24 h, delta = 5 min gives tau_opt = 116.7 min (Young: 120 min). */
static void test_daly_example(void)
{
  double tau = fl_pol_interval_daly(300.0, 86400.0);
  CU_ASSERT_DOUBLE_EQUAL(tau / 60.0, 116.7, 0.05);
  CU_ASSERT(tau < fl_pol_interval_young(300.0, 86400.0));
}

static void test_daly_large_delta(void)
{
  /* delta >= 2M: checkpoint every M */
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_daly(7200.0, 3600.0), 3600.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_daly(9000.0, 3600.0), 3600.0, 0.0);
  /* just below the switch the formula holds and stays positive */
  CU_ASSERT(fl_pol_interval_daly(7199.0, 3600.0) > 0.0);
}

static void test_walltime_no_failures(void)
{
  /* infinite MTBF: work plus one checkpoint per segment, the last one included */
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(3600.0, 600.0, 60.0, 60.0, 0.0, INFINITY), 3600.0 + 6 * 60.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(3700.0, 600.0, 60.0, 60.0, 0.0, INFINITY), 3700.0 + 7 * 60.0, 1e-9);
}

static void test_walltime_formula(void)
{
  /* T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) T_s / tau, Daly's eq. 20 */
  double M = 86400.0, tau = 7000.0, d = 300.0, R = 600.0, Ts = 10.0 * tau;
  double expect = M * exp(R / M) * (exp((tau + d) / M) - 1.0) * Ts / tau;
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(Ts, tau, d, R, 0.0, M), expect, 1e-6 * expect);
  /* downtime D multiplies by (M + D) / M */
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(Ts, tau, d, R, 120.0, M), expect * (M + 120.0) / M, 1e-6 * expect);
  /* the large-M limit is the failure-free time */
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(Ts, tau, d, R, 0.0, 1e15), Ts + 10 * d, 1e-3);
}

static void test_walltime_from_scratch(void)
{
  /* one segment: (M + D) e^{R/M} (e^{W/M} - 1) */
  double M = 36000.0, W = 18000.0, R = 600.0;
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_expected_walltime(W, INFINITY, 0.0, R, 0.0, M), M * exp(R / M) * expm1(W / M), 1e-6);
}

/* The hazard-aware rule: a constant rate gives Young's interval; a rate that falls with time (Weibull k < 1 of a
 * node of age a: F(t) = ((a + t)/l)^k - (a/l)^k) gives a shorter interval to a young node than to an old one,
 * and the root solves t F(t) = 2 delta. */
typedef struct weib {
  double k, l, age;
} weib;
static double F_const(double t, void *p)
{
  return t / *(double *)p;
}
static double F_weib(double t, void *p)
{
  const weib *w = p;
  return pow((w->age + t) / w->l, w->k) - pow(w->age / w->l, w->k);
}
static void test_hazard_rule(void)
{
  double M = 86400.0 * 3, tau;
  weib young_node = {0.6, 86400.0 * 30, 600.0}, old_node = {0.6, 86400.0 * 30, 86400.0 * 300};
  double t_young, t_old;
  tau = fl_pol_interval_hazard(300.0, F_const, &M, 1e9);
  CU_ASSERT_DOUBLE_EQUAL(tau, fl_pol_interval_young(300.0, M), 1e-3);
  t_young = fl_pol_interval_hazard(300.0, F_weib, &young_node, 1e9);
  t_old = fl_pol_interval_hazard(300.0, F_weib, &old_node, 1e9);
  CU_ASSERT(t_young < t_old);
  CU_ASSERT_DOUBLE_EQUAL(t_young * F_weib(t_young, &young_node), 600.0, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(t_old * F_weib(t_old, &old_node), 600.0, 1e-3);
  /* a horizon too short for a checkpoint to pay: the whole of it */
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_hazard(300.0, F_const, &M, 60.0), 60.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_hazard(0.0, F_const, &M, 1e9), 0.0, 0.0);
}

/* Fail-stop and silent errors: W* minimises the first-order waste, where it is 2 sqrt(rate (V + C)); without
 * silent errors it is Young's. */
static void test_silent_period(void)
{
  double C = 40, V = 20, Mf = 3600.0 * 100, Ms = 3600.0 * 50;
  double w = fl_pol_interval_silent(C, V, Mf, Ms);
  double rate = 0.5 / Mf + 1.0 / Ms;
  CU_ASSERT_DOUBLE_EQUAL(w, sqrt((C + V) / rate), 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_waste_silent(w, C, V, Mf, Ms), 2.0 * sqrt(rate * (C + V)), 1e-12);
  CU_ASSERT(fl_pol_waste_silent(0.9 * w, C, V, Mf, Ms) > fl_pol_waste_silent(w, C, V, Mf, Ms));
  CU_ASSERT(fl_pol_waste_silent(1.1 * w, C, V, Mf, Ms) > fl_pol_waste_silent(w, C, V, Mf, Ms));
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_silent(C, 0.0, Mf, INFINITY), fl_pol_interval_young(C, Mf), 1e-9);
}

/* first-order overhead of a pattern (interval.h): A/tau + B tau */
static double levels_overhead(const fl_pol_levels *p, const long *every, double tau)
{
  double h = 0.0;
  for (int l = 0; l < p->n; l++)
    h += (p->cost_s[l] - (l ? p->cost_s[l - 1] : 0.0)) / ((double)every[l] * tau) +
         p->rate[l] * (double)every[l] * tau / 2.0;
  return h;
}

/* Multi-level periods (Benoit et al.): one level is Young; periods whose real optimum is whole come out exactly,
 * with H = sum sqrt(2 lambda dC); given periods keep theirs and get tau = sqrt(A/B). */
static void test_levels_closed_forms(void)
{
  fl_pol_levels p = {.n = 1, .cost_s = {60.0}, .rate = {1.0 / 36000.0}};
  fl_pol_interval_levels(&p);
  CU_ASSERT_EQUAL(p.every[0], 1);
  CU_ASSERT_DOUBLE_EQUAL(p.tau_s, fl_pol_interval_young(60.0, 36000.0), 1e-9);

  /* N0 = sqrt(2e-4 / 20) and N1 = N0 / 9: lambda1 = 2 * 90 * N1^2 */
  double n0 = sqrt(2e-4 / 20.0), n1 = n0 / 9.0;
  p = (fl_pol_levels){.n = 2, .cost_s = {10.0, 100.0}, .rate = {2e-4, 2.0 * 90.0 * n1 * n1}};
  fl_pol_interval_levels(&p);
  CU_ASSERT_EQUAL(p.every[0], 1);
  CU_ASSERT_EQUAL(p.every[1], 9);
  CU_ASSERT_DOUBLE_EQUAL(p.tau_s, 1.0 / n0, 1e-9 / n0);
  CU_ASSERT_DOUBLE_EQUAL(p.overhead, sqrt(2.0 * 2e-4 * 10.0) + sqrt(2.0 * p.rate[1] * 90.0), 1e-12);

  /* given periods: only tau */
  p = (fl_pol_levels){.n = 2, .cost_s = {10.0, 100.0}, .rate = {2e-4, 1e-5}, .every = {1, 16}};
  fl_pol_interval_levels(&p);
  CU_ASSERT_EQUAL(p.every[1], 16);
  CU_ASSERT_DOUBLE_EQUAL(p.tau_s, sqrt((10.0 + 90.0 / 16.0) / (2e-4 / 2.0 + 1e-5 * 16.0 / 2.0)), 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(p.overhead, levels_overhead(&p, p.every, p.tau_s), 1e-12);

  /* no failures at all: no finite tau */
  p = (fl_pol_levels){.n = 2, .cost_s = {10.0, 100.0}};
  fl_pol_interval_levels(&p);
  CU_ASSERT(isinf(p.tau_s));
}

/* Whole periods: the pattern chosen is the best of all whole ratios (brute force over 1..300 each), for
 * random costs and rates over three levels; a level no dearer than the one below is written every time (ratio
 * 1); a level that recovers nothing is written as rarely as allowed. */
static void test_levels_whole_periods(void)
{
  unsigned seed = 12345;
  for (int trial = 0; trial < 40; trial++) {
    fl_pol_levels p = {.n = 3};
    double c = 0.0, best = INFINITY;
    for (int l = 0; l < 3; l++) {
      seed = seed * 1103515245u + 12345u;
      c += 1.0 + (double)(seed % 1000);
      p.cost_s[l] = c;
      seed = seed * 1103515245u + 12345u;
      p.rate[l] = 1e-7 * (1.0 + (double)(seed % 10000));
    }
    fl_pol_interval_levels(&p);
    for (long r1 = 1; r1 <= 300; r1++)
      for (long r2 = 1; r2 <= 300; r2++) {
        long e[3] = {1, r1, r1 * r2};
        double a = 0, b = 0;
        for (int l = 0; l < 3; l++) {
          a += (p.cost_s[l] - (l ? p.cost_s[l - 1] : 0.0)) / (double)e[l];
          b += p.rate[l] * (double)e[l] / 2.0;
        }
        best = fmin(best, 2.0 * sqrt(a * b));
      }
    CU_ASSERT(p.overhead <= best * (1.0 + 1e-12));
    CU_ASSERT_DOUBLE_EQUAL(p.overhead, levels_overhead(&p, p.every, p.tau_s), 1e-12);
    CU_ASSERT(p.every[2] % p.every[1] == 0);
  }

  fl_pol_levels q = {.n = 2, .cost_s = {50.0, 40.0}, .rate = {1e-4, 1e-5}};
  fl_pol_interval_levels(&q);
  CU_ASSERT_EQUAL(q.every[1], 1);
  q = (fl_pol_levels){.n = 2, .cost_s = {10.0, 600.0}, .rate = {1e-4, 0.0}};
  fl_pol_interval_levels(&q);
  CU_ASSERT_EQUAL(q.every[1], FL_POL_MAX_EVERY);
  CU_ASSERT_DOUBLE_EQUAL(q.tau_s, fl_pol_interval_young(10.0, 1e4) * sqrt(1.0 + 590.0 / 10.0 / FL_POL_MAX_EVERY), 1e-6);
}

/* Cooperative periods. By hand: 20 like jobs of one node (C = 100 s, mu = 1e4 s, each checkpoint 100 s of the
 * PFS): Young's 1414 s would keep the PFS busy 20 x 100 / 1414 = 141 % of the time; the PFS full, P = 2000 s, needs
 * 2 mu (C + lambda L) = 2000^2, so lambda L = 100 and lambda = 1. Two such jobs fit: lambda = 0, Young's. */
static void test_cooperative_by_hand(void)
{
  double cost[20], mtbf[20], load[20], nodes[20], period[20];
  for (int i = 0; i < 20; i++)
    cost[i] = 100.0, mtbf[i] = 1e4, load[i] = 100.0, nodes[i] = 1.0;
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_cooperative(20, cost, mtbf, load, nodes, 0, period), 1.0, 1e-9);
  for (int i = 0; i < 20; i++)
    CU_ASSERT_DOUBLE_EQUAL(period[i], 2000.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 0, period), 0.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(period[0], fl_pol_interval_young(100.0, 1e4), 1e-9);
  /* a job that does not checkpoint takes no PFS time; bad input is NAN */
  cost[1] = INFINITY;
  CU_ASSERT_DOUBLE_EQUAL(fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 0, period), 0.0, 0.0);
  CU_ASSERT(isinf(period[1]));
  mtbf[0] = -1.0;
  CU_ASSERT(isnan(fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 0, period)));
}

/* Against a direct minimisation: two unlike jobs, the second's period set by the PFS constraint at equality from
 * the first's, the waste sum_i q_i (C_i / P_i + P_i / (2 mu_i)) scanned over P_1: its minimum is where the
 * multiplier's periods are. */
static void test_cooperative_minimises_waste(void)
{
  const double cost[2] = {60.0, 300.0}, mtbf[2] = {2e4, 5e3}, load[2] = {600.0, 1500.0}, nodes[2] = {8.0, 64.0};
  double period[2], best = INFINITY, best_p1 = NAN;
  double lambda = fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 0, period);
  CU_ASSERT_FATAL(lambda > 0);
  CU_ASSERT_DOUBLE_EQUAL(load[0] / period[0] + load[1] / period[1], 1.0, 1e-9);
  for (double p1 = load[0] * 1.0001; p1 < 2e5; p1 *= 1.00001) {
    double p2 = load[1] / (1.0 - load[0] / p1), w = 0.0;
    const double p[2] = {p1, p2};
    for (int i = 0; i < 2; i++)
      w += nodes[i] * (cost[i] / p[i] + p[i] / (2.0 * mtbf[i]));
    if (w < best)
      best = w, best_p1 = p1;
  }
  CU_ASSERT_DOUBLE_EQUAL(period[0] / best_p1, 1.0, 1e-4);
  /* Daly's rule on the raised cost: the same constraint met */
  CU_ASSERT(fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 1, period) > 0);
  CU_ASSERT_DOUBLE_EQUAL(load[0] / period[0] + load[1] / period[1], 1.0, 1e-9);
}

/* Daly's periods stop at the MTBF: a PFS that even those overcommit leaves every period there. */
static void test_cooperative_capped(void)
{
  const double cost[2] = {100.0, 100.0}, mtbf[2] = {1000.0, 1000.0}, load[2] = {5000.0, 5000.0}, nodes[2] = {1.0, 1.0};
  double period[2];
  CU_ASSERT(fl_pol_interval_cooperative(2, cost, mtbf, load, nodes, 1, period) > 0);
  CU_ASSERT_DOUBLE_EQUAL(period[0], 1000.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(period[1], 1000.0, 0.0);
}

static CU_TestInfo interval_tests[] = {
    {"cooperative periods: by hand, jobs that fit, no checkpoint, bad input", test_cooperative_by_hand},
    {"cooperative periods minimise the machine's waste under the PFS's capacity", test_cooperative_minimises_waste},
    {"cooperative periods at Daly's cap", test_cooperative_capped},
    {"multilevel periods: Young for one level, closed forms, given periods", test_levels_closed_forms},
    {"multilevel periods: the best whole pattern (brute force), levels that do not pay", test_levels_whole_periods},
    {"hazard-aware rule: Young at a constant rate, shorter for young nodes", test_hazard_rule},
    {"fail-stop and silent errors: first-order period", test_silent_period},
    {"Young", test_young},
    {"Daly's example: M=24h, delta=5min -> 116.7min", test_daly_example},
    {"Daly with delta >= 2M", test_daly_large_delta},
    {"expected wall time without failures", test_walltime_no_failures},
    {"expected wall time: Daly eq. 20", test_walltime_formula},
    {"expected wall time from scratch", test_walltime_from_scratch},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"interval", NULL, NULL, NULL, NULL, interval_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
