/* fl_test.c — see fl_test.h. */
#include "fl_test.h"

#include "fl_config.h"
#include "fl_err.h"
#include "registries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fl_test_dir[256];

static void fl_test_cleanup(void)
{
  const char *keep = getenv("FL_TEST_KEEP");
  char cmd[512];
  if (fl_test_dir[0] && !(keep && strcmp(keep, "1") == 0)) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fl_test_dir);
    if (system(cmd) != 0)
      fprintf(stderr, "warning: could not remove %s\n", fl_test_dir);
  }
}

const char *fl_test_tmpdir(void)
{
  if (!fl_test_dir[0]) {
    const char *base = getenv("TMPDIR");
    snprintf(fl_test_dir, sizeof fl_test_dir, "%s/fl-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(fl_test_dir)) {
      perror("mkdtemp");
      exit(2);
    }
    atexit(fl_test_cleanup);
  }
  return fl_test_dir;
}

const char *fl_test_tmp(const char *name)
{
  static char buf[8][512];
  static int slot;
  char *b = buf[slot++ % 8];
  snprintf(b, 512, "%s/%s", fl_test_tmpdir(), name);
  return b;
}

const char *fl_test_src(const char *rel)
{
  static char buf[8][1024];
  static int slot;
  char *b = buf[slot++ % 8];
  snprintf(b, 1024, "%s/%s", FL_SOURCE_DIR, rel);
  return b;
}

int fl_test_run(CU_SuiteInfo *suites)
{
  unsigned failed_tests, failures;
  if (fl_registries_init() != FL_OK) { /* the plugins' keys, as every main does first */
    fprintf(stderr, "faultline: %s\n", fl_err_msg());
    return 2;
  }
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 2;
  if (CU_register_suites(suites) != CUE_SUCCESS) {
    fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
    CU_cleanup_registry();
    return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  if (getenv("FL_TEST_ONLY") && *getenv("FL_TEST_ONLY")) {
    /* only the tests whose name holds this text (the others inactive, not counted as failures) */
    int matched = 0;
    CU_set_fail_on_inactive(CU_FALSE);
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
      for (CU_pTest t = s->pTest; t; t = t->pNext) {
        int on = strstr(t->pName, getenv("FL_TEST_ONLY")) != NULL;
        matched += on;
        CU_set_test_active(t, on ? CU_TRUE : CU_FALSE);
      }
    if (!matched) { /* a mistyped filter runs nothing: not a pass */
      fprintf(stderr, "FL_TEST_ONLY='%s': no test of this suite has it in its name\n", getenv("FL_TEST_ONLY"));
      CU_cleanup_registry();
      return 1;
    }
  }
  CU_basic_run_tests();
  failed_tests = CU_get_number_of_tests_failed();
  failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return (failed_tests || failures) ? 1 : 0;
}

char *fl_test_read_file(const char *path, long *n)
{
  FILE *f = fopen(path, "rb");
  char *b;
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  rewind(f);
  b = malloc((size_t)*n + 1);
  if (b && fread(b, 1, (size_t)*n, f) != (size_t)*n) {
    free(b);
    b = NULL;
  }
  if (b)
    b[*n] = '\0';
  fclose(f);
  return b;
}
