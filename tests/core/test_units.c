/* test_units.c — human units: every scenario value goes through these parsers. */
#include "fl_test.h"
#include "units.h"

#include <math.h>
#include <string.h>

static double dur(const char *s)
{
  double v = NAN;
  CU_ASSERT_EQUAL_FATAL(fl_units_duration(s, 0, &v), FL_OK);
  return v;
}

static void test_durations(void)
{
  CU_ASSERT_DOUBLE_EQUAL(dur("90s"), 90.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("90"), 90.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("15min"), 900.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("24h"), 86400.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur(" 1.5 h "), 5400.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("2d"), 172800.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("1w"), 604800.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("5y"), 5 * 365.25 * 86400.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(dur("250ms"), 0.25, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("1e3s"), 1000.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("-3min"), -180.0, 1e-12); /* sign is the caller's to refuse */
  CU_ASSERT_DOUBLE_EQUAL(dur("1h30min"), 5400.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("2d 12h"), 216000.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dur("1min30s"), 90.0, 1e-12);
}

static void test_never(void)
{
  double v = 0;
  CU_ASSERT_EQUAL(fl_units_duration("never", 1, &v), FL_OK);
  CU_ASSERT(isinf(v));
  CU_ASSERT_EQUAL(fl_units_duration("inf", 1, &v), FL_OK);
  CU_ASSERT(isinf(v));
  CU_ASSERT_EQUAL(fl_units_duration("never", 0, &v), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_units_duration("inf", 0, &v), FL_ERR_INPUT);
}

static void test_bad_durations(void)
{
  double v = 0;
  const char *bad[] = {"",     "   ", "5yy",     "h",    "5 parsecs",  "1,5h",    "nan",
                       "0x10", "3h4", "30min1h", "1h1h", "12 h extra", "1h-5min", NULL};
  for (int i = 0; bad[i]; i++) {
    CU_ASSERT_EQUAL(fl_units_duration(bad[i], 0, &v), FL_ERR_INPUT);
    CU_ASSERT(strlen(fl_err_msg()) > 0);
  }
  fl_units_duration("5yy", 0, &v);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "5yy"));
}

static void test_bytes_and_speed(void)
{
  double v = 0;
  CU_ASSERT_EQUAL(fl_units_bytes("4GiB", &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 4.0 * 1073741824.0, 0.5);
  CU_ASSERT_EQUAL(fl_units_bytes("512MB", &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 512e6, 0.5);
  CU_ASSERT_EQUAL(fl_units_bytes("1KiB", &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 1024.0, 0.0);
  CU_ASSERT_EQUAL(fl_units_bytes("3 parsecs", &v), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_units_speed("1Gf", &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 1e9, 0.5);
  CU_ASSERT_EQUAL(fl_units_speed("2.5Tf", &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 2.5e12, 0.5);
  CU_ASSERT_EQUAL(fl_units_speed("1GHz", &v), FL_ERR_INPUT);
}

static void test_numbers(void)
{
  double v = 0;
  CU_ASSERT_EQUAL(fl_units_number("400", 1, &v), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 400.0, 0.0);
  CU_ASSERT_EQUAL(fl_units_number("4.5", 1, &v), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_units_number("4.5", 0, &v), FL_OK);
  CU_ASSERT_EQUAL(fl_units_number("4s", 0, &v), FL_ERR_INPUT);
}

static void test_format(void)
{
  char b[32];
  CU_ASSERT_STRING_EQUAL(fl_units_format_duration(90.0, b, sizeof b), "90s");
  CU_ASSERT_STRING_EQUAL(fl_units_format_duration(660.0, b, sizeof b), "11min");
  CU_ASSERT_STRING_EQUAL(fl_units_format_duration(86400.0, b, sizeof b), "24h");
  CU_ASSERT_STRING_EQUAL(fl_units_format_duration(5 * FL_SECONDS_PER_YEAR, b, sizeof b), "5y");
  CU_ASSERT_STRING_EQUAL(fl_units_format_duration(INFINITY, b, sizeof b), "never");
  CU_ASSERT_STRING_EQUAL(fl_units_format_bytes(4.0 * 1073741824.0, b, sizeof b), "4GiB");
}

/* The seed's table (Altenbernd & Goettsche, slide 2): 5-year cores give 18 days at 100 cores, 4 hours at
 * 10,000 and 3 minutes at a million. The system MTBF is the node MTBF over the node count. */
static void test_mtbf_table(void)
{
  double node = dur("5y");
  CU_ASSERT_DOUBLE_EQUAL(node / 100.0 / 86400.0, 18.0, 0.5);
  CU_ASSERT_DOUBLE_EQUAL(node / 1e4 / 3600.0, 4.0, 0.5);
  CU_ASSERT_DOUBLE_EQUAL(node / 1e6 / 60.0, 3.0, 0.5);
}

static CU_TestInfo units_tests[] = {
    {"durations", test_durations},
    {"never", test_never},
    {"bad durations", test_bad_durations},
    {"bytes and speed", test_bytes_and_speed},
    {"numbers", test_numbers},
    {"format", test_format},
    {"MTBF vs cores table of the seed", test_mtbf_table},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"units", NULL, NULL, NULL, NULL, units_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
