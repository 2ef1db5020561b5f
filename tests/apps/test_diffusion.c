/* test_diffusion.c — the anisotropic diffusion test problem: the operator, the data, and CG's convergence to the
 * exact solution at second order. */
#include "diffusion.h"
#include "fl_test.h"

#include <math.h>
#include <stdlib.h>

static double solve_error(long n, long *iters)
{
  fl_diff p;
  double *b, *x, *u, err = 0.0;
  fl_diff_init(&p, n);
  b = malloc((size_t)(n * n) * sizeof *b);
  x = calloc((size_t)(n * n), sizeof *x);
  u = malloc((size_t)(n * n) * sizeof *u);
  fl_diff_rhs(&p, 0, n, b);
  fl_diff_exact(&p, 0, n, u);
  *iters = fl_diff_cg(&p, b, x, 1e-10, 10 * n * n);
  for (long k = 0; k < n * n; k++)
    err = fmax(err, fabs(x[k] - u[k]));
  free(b);
  free(x);
  free(u);
  return err;
}

static void test_second_order(void)
{
  long it1, it2;
  double e1 = solve_error(31, &it1), e2 = solve_error(63, &it2);
  CU_ASSERT(it1 > 0 && it2 > 0);
  CU_ASSERT(e1 < 5e-3);
  /* halving h quarters the error */
  CU_ASSERT_DOUBLE_EQUAL(e1 / e2, 4.0, 0.6);
}

/* The operator is symmetric positive definite: x.Ay = y.Ax, x.Ax > 0. */
static void test_symmetric(void)
{
  fl_diff p;
  const long n = 12;
  double xh[14 * 12] = {0}, yh[14 * 12] = {0}, ax[144], ay[144], xay = 0, yax = 0, xax = 0;
  fl_diff_init(&p, n);
  for (long k = 0; k < n * n; k++) {
    xh[n + k] = sin(0.7 * (double)k);
    yh[n + k] = cos(1.3 * (double)k) + 0.1;
  }
  fl_diff_apply(&p, n, xh, ax);
  fl_diff_apply(&p, n, yh, ay);
  for (long k = 0; k < n * n; k++) {
    xay += xh[n + k] * ay[k];
    yax += yh[n + k] * ax[k];
    xax += xh[n + k] * ax[k];
  }
  CU_ASSERT_DOUBLE_EQUAL(xay, yax, 1e-9 * fabs(xay));
  CU_ASSERT(xax > 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_diff_diagonal(&p), 2.0 * 1.01 * 13.0 * 13.0, 1e-9);
}

static CU_TestInfo diff_tests[] = {
    {"operator symmetric positive definite", test_symmetric},
    {"CG converges to the exact solution, second order", test_second_order},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"diffusion", NULL, NULL, NULL, NULL, diff_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
