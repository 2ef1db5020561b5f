/* test_tmr_user.c — TMR of user kernels (fl_tmr_kernel_def) on the CPU backend: the checks of tmr_check/checks.c
 * that faultline-tmr-check also runs on a GPU. Each check prints what it found; a failure names the trial. */
#include "checks.h"
#include "fl_test.h"

static const tmr_env *env(void)
{
  return tmr_env_cpu();
}

static void test_one_corrupted(void)
{
  CU_ASSERT_EQUAL(tmr_check_one_corrupted(env(), 1000, 2026, stdout), 0);
}

static void test_two_corrupted(void)
{
  CU_ASSERT_EQUAL(tmr_check_two_corrupted(env(), 1000, 2026, stdout), 0);
}

static void test_nothing_silent(void)
{
  CU_ASSERT_EQUAL(tmr_check_nothing_silent(env(), 1000, 2026, stdout), 0);
}

static void test_pipeline(void)
{
  CU_ASSERT_EQUAL(tmr_check_pipeline(env(), stdout), 0);
}

static void test_bad_input(void)
{
  CU_ASSERT_EQUAL(tmr_check_bad_input(env(), stdout), 0);
}

static void test_ranges(void)
{
  CU_ASSERT_EQUAL(tmr_check_ranges(env(), stdout), 0);
}

static void test_replay(void)
{
  CU_ASSERT_EQUAL(tmr_check_replay(env(), stdout), 0);
}

/* The measurement runs end to end at a small size (its figures are for docs/benchmarks.md, not checked here). */
static void test_measure(void)
{
  tmr_bench b;
  CU_ASSERT_EQUAL(tmr_measure(env(), 1L << 16, 200, 1, 0, &b, stdout), 0);
  CU_ASSERT(b.big_plain_s > 0 && b.big_tmr_s[0] > 0 && b.big_tmr_s[2] > 0 && b.small_plain_s > 0 && b.vote_gbs > 0 &&
            b.copy_gbs > 0);
}

static CU_TestInfo tmr_user_tests[] = {
    {"1,000 trials, one corrupted replica: the unprotected run's bits every time", test_one_corrupted},
    {"1,000 trials, two replicas corrupted differently: reported every time", test_two_corrupted},
    {"1,000 trials of random faults: nothing silent", test_nothing_silent},
    {"pipelines voted after each kernel and at the end", test_pipeline},
    {"bad definitions and faults refused, failing launches named", test_bad_input},
    {"a kernel that computes ranges runs chunk by chunk", test_ranges},
    {"replay: repeated runs, a fault, a new buffer (the CPU ignores replay)", test_replay},
    {"the measurement runs", test_measure},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"tmr_user", NULL, NULL, NULL, NULL, tmr_user_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
