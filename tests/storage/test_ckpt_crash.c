/* test_ckpt_crash.c — kill -9 at random moments: a child writes checkpoint versions 1..200 (split phase, then a
 * report of each committed version down a pipe); the parent kills it after a random delay, then restores from
 * the directory and requires exactly the last committed version: the last one the child reported, or the one
 * after it when the kill fell between the commit (the rename) and the report. The next child restores, checks,
 * and goes on, until one finishes all 200. Every committed version must also verify.
 *
 * Built twice: FL_CRASH_STORE is "file" (test_ckpt_crash) or "hdf5" (test_ckpt_crash_hdf5, skipped without
 * HDF5). FL_CRASH_SEED sets the random delays (printed). */
#include "ckpt.h"
#include "fl_config.h"
#include "fl_test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FL_CRASH_STORE
#define FL_CRASH_STORE "file"
#endif
#define NVERSIONS 200
#define KEEP 3
#define NA 4000
#define NB 700
#define MAX_DELAY_US 15000
#define MAX_KILLS 300

typedef struct crash_state {
  int64_t version;
  double sum;
} crash_state;
static const fl_ckpt_field crash_state_fields[] = {FL_CKPT_FIELD(crash_state, version),
                                                   FL_CKPT_FIELD(crash_state, sum)};
static const fl_ckpt_type crash_state_type = FL_CKPT_TYPE(crash_state, "crash_state", 1, crash_state_fields);

static double a[NA];
static int64_t b[NB];
static crash_state st;

/* The content of version v: every value depends on v, so a mix of versions cannot pass for one. */
static void fill(long v)
{
  for (int i = 0; i < NA; i++)
    a[i] = (double)v * 1e6 + i;
  for (int i = 0; i < NB; i++)
    b[i] = (int64_t)v * 7919 + i;
  st.version = v;
  st.sum = (double)v * 0.5;
}

static int is_version(long v)
{
  for (int i = 0; i < NA; i++)
    if (a[i] != (double)v * 1e6 + i)
      return 0;
  for (int i = 0; i < NB; i++)
    if (b[i] != (int64_t)v * 7919 + i)
      return 0;
  return st.version == v && st.sum == (double)v * 0.5;
}

static fl_err open_ckpt(const char *dir, int read_only, fl_ckpt **ck)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_create(
      &(fl_ckpt_opts){.store = read_only ? NULL : FL_CRASH_STORE, .path = dir, .keep = KEEP, .read_only = read_only},
      ck));
  FL_TRY(fl_ckpt_register(*ck, &(fl_ckpt_array){.label = "a", .shape = {FL_CKPT_F64, 1, {NA}}, .data = a}));
  FL_TRY(fl_ckpt_register(*ck, &(fl_ckpt_array){.label = "b", .shape = {FL_CKPT_I64, 2, {7, NB / 7}}, .data = b}));
  FL_TRY(fl_ckpt_register_object(*ck, "state", &crash_state_type, &st));
done:
  return rc;
}

/* The child: restore, check, then write versions up to NVERSIONS, reporting each commit on fd. */
static void child(const char *dir, int fd)
{
  fl_ckpt *ck = NULL;
  long v = 0;
  if (open_ckpt(dir, 0, &ck) != FL_OK || fl_ckpt_latest(ck, &v) != FL_OK)
    _exit(2);
  if (v >= 0) {
    if (fl_ckpt_restore_all(ck, FL_CKPT_LATEST, NULL) != FL_OK || !is_version(v))
      _exit(3);
  } else {
    v = 0;
  }
  for (v = v + 1; v <= NVERSIONS; v++) {
    int64_t rep = v;
    fill(v);
    if (fl_ckpt_start(ck, v) != FL_OK)
      _exit(4);
    fill(-v); /* the computation goes on during the write */
    if (fl_ckpt_commit(ck) != FL_OK)
      _exit(5);
    if (write(fd, &rep, sizeof rep) != (ssize_t)sizeof rep)
      _exit(6);
  }
  fl_ckpt_destroy(&ck);
  _exit(0);
}

static uint64_t rng_state;
static uint64_t rng_next(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Leftovers of a torn write (.tmp-*, .del-*), counted to show the kills landed inside checkpoints. */
static int count_torn(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d)
    return 0;
  while ((e = readdir(d)) != NULL)
    n += strncmp(e->d_name, ".tmp-", 5) == 0 || strncmp(e->d_name, ".del-", 5) == 0;
  closedir(d);
  return n;
}

/* After a death: the newest version is exactly the last committed one, and every version verifies. */
static void check_dir(const char *dir, long reported, long *restored)
{
  fl_ckpt *ck = NULL;
  long *v = NULL, r = -1;
  size_t n = 0;
  char format[700];
  snprintf(format, sizeof format, "%s/FORMAT", dir);
  if (access(format, F_OK) != 0) { /* killed in its very first open, before the directory was marked */
    CU_ASSERT_EQUAL(reported, 0);
    *restored = 0;
    return;
  }
  CU_ASSERT_EQUAL_FATAL(open_ckpt(dir, 1, &ck), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_versions(ck, &v, &n), FL_OK);
  CU_ASSERT(n <= KEEP + 1); /* + 1: killed between a commit and its retention */
  if (n == 0) {
    CU_ASSERT_EQUAL(reported, 0); /* killed before the first commit: version 0 stands for "none" */
    r = 0;
  } else {
    fill(-1);
    if (fl_ckpt_restore_all(ck, FL_CKPT_LATEST, &r) != FL_OK) {
      fprintf(stderr, "restore failed: %s\n", fl_err_msg());
      CU_FAIL("restore after kill -9 failed");
    }
    CU_ASSERT(r == reported || r == reported + 1);
    CU_ASSERT(is_version(r));
    if (!(r == reported || r == reported + 1) || !is_version(r))
      fprintf(stderr, "restored version %ld, last reported %ld, content %s\n", r, reported,
              is_version(r) ? "matches" : "WRONG");
  }
  for (size_t i = 0; i < n; i++) {
    int ok = 0;
    char why[512];
    CU_ASSERT_EQUAL(fl_ckpt_verify(ck, v[i], &ok, why, sizeof why), FL_OK);
    CU_ASSERT(ok);
    if (!ok)
      fprintf(stderr, "version %ld does not verify: %s\n", v[i], why);
  }
  free(v);
  fl_ckpt_destroy(&ck);
  *restored = r;
}

static void test_kill9(void)
{
  char dir[600];
  const char *seed_env = getenv("FL_CRASH_SEED");
  long reported = 0, restored = 0; /* versions are 1..NVERSIONS; 0: none committed */
  int kills = 0, torn = 0, after_commit = 0, done = 0;
  snprintf(dir, sizeof dir, "%s", fl_test_tmp("crash"));
  rng_state = seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
  if (!rng_state)
    rng_state = 1;
  printf("\n    store %s, FL_CRASH_SEED=%llu", FL_CRASH_STORE, (unsigned long long)rng_state);
  while (!done) {
    int p[2], status = 0;
    pid_t pid;
    int64_t rep;
    ssize_t k;
    CU_ASSERT_FATAL(pipe(p) == 0);
    fflush(NULL);
    pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
      close(p[0]);
      child(dir, p[1]);
    }
    close(p[1]);
    if (kills < MAX_KILLS) {
      long us = (long)(rng_next() % MAX_DELAY_US);
      struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
      nanosleep(&ts, NULL);
      kill(pid, SIGKILL);
    }
    while ((k = read(p[0], &rep, sizeof rep)) == (ssize_t)sizeof rep)
      reported = rep;
    close(p[0]);
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) {
      CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
      if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child exited with %d\n", WEXITSTATUS(status));
        return;
      }
      done = reported == NVERSIONS;
    } else {
      CU_ASSERT_FATAL(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
      kills++;
    }
    torn += count_torn(dir) > 0;
    check_dir(dir, reported, &restored);
    after_commit += restored == reported + 1;
    if (restored > reported)
      reported = restored;
  }
  printf("\n    %d kills, %d left a torn write behind, %d fell between commit and report; final version %ld\n", kills,
         torn, after_commit, restored);
  CU_ASSERT_EQUAL(restored, NVERSIONS);
  CU_ASSERT(kills >= 10);
  CU_ASSERT(torn >= 1);
}

static CU_TestInfo crash_tests[] = {
    {"kill -9 during 200 checkpoint writes", test_kill9},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt crash (" FL_CRASH_STORE ")", NULL, NULL, NULL, NULL, crash_tests},
    CU_SUITE_INFO_NULL,
};

#if FL_HAVE_HDF5 || !defined(FL_CRASH_NEEDS_HDF5)
FL_TEST_MAIN(suites)
#else
int main(void)
{
  (void)suites;
  puts("test_ckpt_crash_hdf5: this build has no HDF5: skipped");
  return FL_TEST_SKIP;
}
#endif
