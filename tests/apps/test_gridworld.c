/* test_gridworld.c — the grid world: value iteration against a direct solve, the sweep against explicit
 * transition probabilities, and the task-level strategies in the simulator (one platform: 72 nodes). */
#include "fl_test.h"
#include "gridworld.h"
#include "scenario.h"
#include "sim.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Expected next value of state s under action a, from explicit probabilities (walls: stay). */
static double q_value(const fl_gw *gw, const double *v, long s, int a)
{
  static const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
  long i = s / gw->cols, j = s % gw->cols;
  double q = 0.0;
  for (int d = 0; d < 4; d++) {
    long ni = i + di[d], nj = j + dj[d];
    double prob = d == a ? gw->p : (1.0 - gw->p) / 3.0;
    long t = (ni < 0 || ni >= gw->rows || nj < 0 || nj >= gw->cols) ? s : ni * gw->cols + nj;
    q += prob * v[t];
  }
  return q;
}

static void test_sweep_explicit(void)
{
  const double ps[] = {0.8, 0.5, 0.1}; /* p < 1/4: the best action heads for the smallest neighbour */
  for (int k = 0; k < 3; k++) {
    fl_gw *gw = NULL;
    double v[35], out[35];
    CU_ASSERT_EQUAL_FATAL(fl_gw_create(5, 7, 0.95, ps[k], 3, &gw), FL_OK);
    for (long s = 0; s < gw->n; s++)
      v[s] = sin((double)s) * 3.0;
    fl_gw_sweep(gw, v, out, 0, gw->n);
    for (long s = 0; s < gw->n; s++) {
      double best = -INFINITY;
      for (int a = 0; a < 4; a++)
        best = fmax(best, q_value(gw, v, s, a));
      CU_ASSERT_DOUBLE_EQUAL(out[s], gw->reward[s] + 0.95 * best, 1e-12);
    }
    fl_gw_destroy(&gw);
  }
}

static void test_neighbours(void)
{
  fl_gw *gw = NULL;
  long nb[4];
  CU_ASSERT_EQUAL_FATAL(fl_gw_create(3, 4, 0.95, 0.8, 1, &gw), FL_OK);
  CU_ASSERT_EQUAL(fl_gw_neighbours(gw, 0, nb), 2);  /* corner */
  CU_ASSERT_EQUAL(fl_gw_neighbours(gw, 1, nb), 3);  /* edge */
  CU_ASSERT_EQUAL(fl_gw_neighbours(gw, 5, nb), 4);  /* inside */
  CU_ASSERT_EQUAL(fl_gw_neighbours(gw, 11, nb), 2); /* corner */
  CU_ASSERT_DOUBLE_EQUAL(fl_gw_bound(gw), (1 - 0.95 * 0.8) / 0.05 * (gw->r_max - gw->r_min), 1e-12);
  fl_gw_destroy(&gw);
}

/* Policy iteration with exact linear solves (GSL LU) gives V*; value iteration must converge to it. */
static void test_value_iteration_vs_direct_solve(void)
{
  fl_gw *gw = NULL;
  long n, iters = 0;
  double *v, *vstar;
  int *pol, stable = 0;
  gsl_matrix *A;
  gsl_vector *b, *x;
  gsl_permutation *perm;
  CU_ASSERT_EQUAL_FATAL(fl_gw_create(6, 7, 0.95, 0.8, 5, &gw), FL_OK);
  n = gw->n;
  v = malloc((size_t)n * sizeof *v);
  vstar = calloc((size_t)n, sizeof *vstar);
  pol = calloc((size_t)n, sizeof *pol);
  A = gsl_matrix_alloc((size_t)n, (size_t)n);
  b = gsl_vector_alloc((size_t)n);
  x = gsl_vector_alloc((size_t)n);
  perm = gsl_permutation_alloc((size_t)n);
  for (int round = 0; round < 100 && !stable; round++) {
    int sign;
    /* evaluate: (I - delta P_pi) V = r */
    gsl_matrix_set_identity(A);
    for (long s = 0; s < n; s++) {
      double e[64] = {0};
      for (long t = 0; t < n; t++) {
        memset(e, 0, sizeof e);
        e[t] = 1.0;
        gsl_matrix_set(A, (size_t)s, (size_t)t,
                       gsl_matrix_get(A, (size_t)s, (size_t)t) - 0.95 * q_value(gw, e, s, pol[s]));
      }
      gsl_vector_set(b, (size_t)s, gw->reward[s]);
    }
    gsl_linalg_LU_decomp(A, perm, &sign);
    gsl_linalg_LU_solve(A, perm, b, x);
    for (long s = 0; s < n; s++)
      vstar[s] = gsl_vector_get(x, (size_t)s);
    /* improve */
    stable = 1;
    for (long s = 0; s < n; s++) {
      int best = pol[s];
      for (int a = 0; a < 4; a++)
        if (q_value(gw, vstar, s, a) > q_value(gw, vstar, s, best) + 1e-12)
          best = a;
      stable &= best == pol[s];
      pol[s] = best;
    }
  }
  CU_ASSERT(stable);
  CU_ASSERT_EQUAL(fl_gw_solve(gw, 1e-12, 100000, v, &iters), 1);
  CU_ASSERT(iters > 100);
  for (long s = 0; s < n; s++)
    CU_ASSERT_DOUBLE_EQUAL(v[s], vstar[s], 1e-9);
  /* the seed's stopping rule (0.001) stops within delta/(1-delta) * 0.001 of V* */
  CU_ASSERT_EQUAL(fl_gw_solve(gw, 0.001, 100000, v, &iters), 1);
  for (long s = 0; s < n; s++)
    CU_ASSERT(fabs(v[s] - vstar[s]) <= 0.95 / 0.05 * 0.001 + 1e-12);
  gsl_permutation_free(perm);
  gsl_vector_free(b);
  gsl_vector_free(x);
  gsl_matrix_free(A);
  free(pol);
  free(v);
  free(vstar);
  fl_gw_destroy(&gw);
}

static fl_sim *make_sim(const char *text)
{
  char full[2048];
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  snprintf(full, sizeof full,
           "[platform]\nnodes = 72\n[app]\nkind = gridworld\ngrid = 6x6\niterations = 100\ntask_time = 2s\n%s", text);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text(full, "<test>", NULL, &sc), FL_OK);
  if (fl_sim_create(sc, &sim) != FL_OK)
    fprintf(stderr, "fl_sim_create: %s\n", fl_err_msg());
  fl_scenario_destroy(&sc);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
  return sim;
}

#define FAILURES "[failures]\nmodel = exponential\nnode_mtbf = 30s\nrepair = 30s\nstart = steady\n"

static void test_no_failures(void)
{
  const char *kinds[] = {"replication", "substitution", "hybrid"};
  for (int k = 0; k < 3; k++) {
    char text[256];
    fl_sim *sim;
    fl_sim_result r;
    snprintf(text, sizeof text, "[failures]\nmodel = none\n[strategy]\nkind = %s\n", kinds[k]);
    sim = make_sim(text);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, 0, &r, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    CU_ASSERT_EQUAL(r.iterations, 100); /* delta = 0.95 does not reach 0.001 in 100 sweeps */
    CU_ASSERT_EQUAL(r.converged_at, -1);
    CU_ASSERT_EQUAL(r.complete_iterations, 100);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan_s, 200.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.error_linf, 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(r.error_l1, 0.0, 0.0);
    CU_ASSERT_EQUAL(r.tasks_replicated + r.tasks_substituted + r.tasks_stale, 0);
    fl_sim_destroy(&sim);
  }
}

static void test_replication_and_substitution(void)
{
  fl_sim *rep = make_sim(FAILURES "[strategy]\nkind = replication\n");
  fl_sim *sub = make_sim(FAILURES "[strategy]\nkind = substitution\n");
  fl_sim_result a, b;
  for (long k = 0; k < 5; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(rep, k, &a, NULL), FL_OK);
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sub, k, &b, NULL), FL_OK);
    /* replication re-executes: sweeps with a re-run take two task times */
    CU_ASSERT(a.tasks_replicated > 0);
    CU_ASSERT_EQUAL(a.tasks_substituted, 0);
    CU_ASSERT(a.makespan_s > 200.0 && a.makespan_s <= 400.0);
    CU_ASSERT_DOUBLE_EQUAL(fmod(a.makespan_s, 2.0), 0.0, 1e-9);
    /* substitution never costs time, but costs accuracy */
    CU_ASSERT(b.tasks_substituted > 0);
    CU_ASSERT_EQUAL(b.tasks_replicated, 0);
    CU_ASSERT_DOUBLE_EQUAL(b.makespan_s, 200.0, 1e-9);
    CU_ASSERT(b.error_linf > 0.0);
    CU_ASSERT(b.error_l1 >= b.error_linf);
    CU_ASSERT(a.complete_iterations <= a.iterations && b.complete_iterations <= b.iterations);
    /* same seed, same failures: both see the same first sweep */
    CU_ASSERT_EQUAL(a.platform_failures > 0, 1);
  }
  fl_sim_destroy(&rep);
  fl_sim_destroy(&sub);
}

/* The hybrid's extremes: no budget = replicate everything; an unbounded budget substitutes every task that has a
 * live neighbour (and re-executes those that have none, which pure substitution must leave stale). */
static void test_hybrid_extremes(void)
{
  fl_sim *rep = make_sim(FAILURES "[strategy]\nkind = replication\n");
  fl_sim *sub = make_sim(FAILURES "[strategy]\nkind = substitution\n[policy]\nweights = bound\n");
  fl_sim *h0 = make_sim(FAILURES "[strategy]\nkind = hybrid\n[policy]\nerror_budget = 0\n");
  fl_sim *hinf = make_sim(FAILURES "[strategy]\nkind = hybrid\n[policy]\nerror_budget = 1e12\nweights = bound\n");
  fl_sim *hmid = make_sim(FAILURES "[strategy]\nkind = hybrid\n[policy]\nerror_budget = 60\nweights = bound\n");
  fl_sim_result r, s, a, b, m;
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(rep, 1, &r, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sub, 1, &s, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(h0, 1, &a, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(hinf, 1, &b, NULL), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(hmid, 1, &m, NULL), FL_OK);
  CU_ASSERT_EQUAL(a.tasks_replicated, r.tasks_replicated);
  CU_ASSERT_EQUAL(a.tasks_substituted, 0);
  CU_ASSERT(a.makespan_s == r.makespan_s);
  CU_ASSERT(a.error_l1 == r.error_l1);
  CU_ASSERT(b.tasks_stale <= s.tasks_stale);
  CU_ASSERT((double)b.tasks_substituted / (double)b.iterations >=
            0.8 * (double)s.tasks_substituted / (double)s.iterations);
  CU_ASSERT(b.tasks_replicated < b.tasks_substituted / 4);
  CU_ASSERT_PTR_NOT_NULL(a.policy_solver);
  /* in between: some of each, and substitutions grow with the budget */
  CU_ASSERT(m.tasks_substituted > 0 && m.tasks_replicated > 0);
  CU_ASSERT(a.tasks_substituted < m.tasks_substituted && m.tasks_substituted < b.tasks_substituted);
  /* the error spent is the weights of the substitutions made: none without a budget, at most the budget a sweep */
  CU_ASSERT_EQUAL(a.error_spent, 0.0);
  CU_ASSERT(m.error_spent > 0 && m.error_spent <= 60.0 * (double)m.iterations);
  CU_ASSERT(s.error_spent >= m.error_spent);
  CU_ASSERT_EQUAL(r.error_spent, 0.0);
  fl_sim_destroy(&rep);
  fl_sim_destroy(&sub);
  fl_sim_destroy(&h0);
  fl_sim_destroy(&hinf);
  fl_sim_destroy(&hmid);
}

static void test_bad_input(void)
{
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[platform]\nnodes = 72\n[app]\nkind = gridworld\ngrid = 6x6\n"
                                              "[strategy]\nkind = checkpoint\n",
                                              "g.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(
      fl_err_msg(), "g.ini:7: [strategy] kind = 'checkpoint': strategy 'checkpoint' cannot drive app gridworld"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "substitution"));
  fl_scenario_destroy(&sc);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[platform]\nnodes = 72\n[app]\nkind = gridworld\ngrid = 6x6\n"
                                              "[strategy]\nkind = hybrid\n[policy]\nkind = oracle\n",
                                              "p.ini", NULL, &sc),
                        FL_OK);
  CU_ASSERT_EQUAL(fl_sim_create(sc, &sim), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "p.ini:9: [policy] kind = 'oracle'"));
  fl_scenario_destroy(&sc);
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[app]\ngrid = 6by6\n", "x.ini", NULL, &sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "x.ini:2: [app] grid = '6by6'"));
}

static CU_TestInfo gw_tests[] = {
    {"sweep = explicit Bellman update", test_sweep_explicit},
    {"neighbours and the seed's bound", test_neighbours},
    {"value iteration converges to the direct solve's V*", test_value_iteration_vs_direct_solve},
    {"no failures: exact, complete, no error", test_no_failures},
    {"replication costs time, substitution accuracy", test_replication_and_substitution},
    {"hybrid between its extremes", test_hybrid_extremes},
    {"bad input", test_bad_input},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"gridworld", NULL, NULL, NULL, NULL, gw_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
