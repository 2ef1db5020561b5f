/* fl_test.h — the shared CUnit runner of faultline's test suites.
 *
 * A suite file defines its CU_TestInfo arrays and CU_SuiteInfo table and ends with FL_TEST_MAIN(suites).
 * The runner uses CUnit's basic interface (its "Run Summary" table is what CI reads), reads the failure counts
 * before CU_cleanup_registry() resets them, and exits 1 on any failure. A suite whose optional backend is
 * missing exits FL_TEST_SKIP (77), which CTest reports as skipped, never as passed. */
#ifndef FL_TEST_H
#define FL_TEST_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#define FL_TEST_SKIP 77

int fl_test_run(CU_SuiteInfo *suites);

/* Path of a file under the source tree (tests/data/..., scenarios/...), into a static buffer. */
const char *fl_test_src(const char *rel);
/* A fresh temporary directory for this process (created once, removed at exit unless FL_TEST_KEEP=1). */
const char *fl_test_tmpdir(void);
/* A whole file, NUL-terminated, in a malloc'd buffer (the caller frees); *n its size. NULL if unreadable. */
char *fl_test_read_file(const char *path, long *n);
/* Path of `name` inside fl_test_tmpdir(), into a rotating static buffer (8 slots). */
const char *fl_test_tmp(const char *name);

#define FL_TEST_MAIN(suites)                                                                                           \
  int main(void)                                                                                                       \
  {                                                                                                                    \
    return fl_test_run(suites);                                                                                        \
  }

#endif
