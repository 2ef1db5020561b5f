/* test_mpi_diskfull.c — a real run whose file-level checkpoints go to a disk that fills up: a 600 KiB tmpfs
 * mounted for the test as mpi.checkpoint_dir (the CG state of 4 roles needs more by the second checkpoint). Every
 * role stops at the checkpoint that could not be written: exit 1, exactly one row (status error, no answer), one
 * verdict line on stderr, the system's reason said, each process's outcome one line, and no half-written
 * checkpoint left on the disk. For both stores (file; HDF5 when built with it).
 *
 * mpi.timeout is 10 s, not the scenario's 1 s: on a loaded 2-core machine (CI runs the suites side by side) a rank
 * starved of a core for a second is declared dead by its set, and the row rightly counts that failure.
 *
 * Mounting needs root (or CAP_SYS_ADMIN): anywhere else, and in a build without MPI, the suite is skipped (77). */
#include "fl_config.h"
#include "fl_test.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char mnt[512];

static long db_value(const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  long n = -1;
  if (sqlite3_open_v2(fl_test_tmp("full.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

/* Entries under dir (recursively) whose name starts with prefix. */
static int count_named(const char *dir, const char *prefix)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d)
    return 0;
  while ((e = readdir(d))) {
    char path[1024];
    struct stat st;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      n += count_named(path, prefix);
  }
  closedir(d);
  return n;
}

static void full_disk(const char *store, const char *kind)
{
  char cmd[4096], out[600], err[600], line[4096];
  long rows = db_value("SELECT COUNT(*) FROM runs");
  int st, lines = 0, reason = 0;
  FILE *f;
  rows = rows < 0 ? 0 : rows;
  snprintf(out, sizeof out, "%s/out-%s-%s", fl_test_tmpdir(), store, kind);
  snprintf(err, sizeof err, "%s/err-%s-%s.txt", fl_test_tmpdir(), store, kind);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'/* '%s'", mnt, out);
  CU_ASSERT_EQUAL(system(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "'%s' run '%s' --np 4 --spares 1 --out '%s' --db '%s' --quiet --set strategy.kind=%s "
           "--set mpi.checkpoint_store=%s --set mpi.checkpoint_dir='%s' --set mpi.timeout=10s >/dev/null 2>'%s'",
           getenv("FAULTLINE"), fl_test_src("scenarios/cg-buddy.ini"), out, fl_test_tmp("full.sqlite"), kind, store,
           mnt, err);
  st = system(cmd);
  CU_ASSERT_EQUAL(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 1);
  /* exactly one row, stopped by the environment: status error, no answer */
  CU_ASSERT_EQUAL(db_value("SELECT COUNT(*) FROM runs"), rows + 1);
  CU_ASSERT_EQUAL(db_value("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = 'error' "
                           "AND error_linf IS NULL AND iterations IS NULL AND work_s = 0 AND failures = 0"),
                  1);
  /* faultline run's own verdict: one line; the system's reason said */
  if ((f = fopen(err, "r"))) {
    while (fgets(line, sizeof line, f)) {
      lines += strncmp(line, "faultline: ", 11) == 0 && strstr(line, "ended with status error") != NULL;
      /* the system's reason, said by the role that met it (the verdict names it, or when role 0 wrote its part,
       * points at it: "not written by 3 roles (the reason above)") */
      reason |= strstr(line, "No space left on device") != NULL;
      CU_ASSERT_PTR_NULL(strstr(line, "errno =")); /* HDF5's raw error record is not what a user reads */
    }
    fclose(f);
  }
  CU_ASSERT_EQUAL(lines, 1);
  CU_ASSERT_EQUAL(reason, 1);
  /* each process's outcome is one line */
  for (int w = 0; w < 9; w++) {
    char path[700];
    int n = 0;
    snprintf(path, sizeof path, "%s/rank-%d.txt", out, w);
    if ((f = fopen(path, "r"))) {
      while (fgets(line, sizeof line, f))
        n++;
      fclose(f);
      CU_ASSERT_EQUAL(n, 1);
    }
  }
  /* the checkpoint that did not fit is not left half-written */
  CU_ASSERT_EQUAL(count_named(mnt, ".tmp"), 0);
}

static void test_file(void)
{
  full_disk("file", "checkpoint");
}

static void test_hdf5(void)
{
  full_disk("hdf5", "checkpoint");
}

/* Replication: a disk full is no failure the replica sets tolerate; the job ends as under every other strategy
 * (it used to retire the sets one by one: failed, exit 3, "no spare left", its figures NULL). */
static void test_replication(void)
{
  full_disk("file", "replication");
}

static void unmount_it(void)
{
  umount(mnt);
}

static CU_TestInfo file_tests[] = {
    {"disk full, file store: one row, status error, exit 1, nothing half-written", test_file},
    {"disk full under replication: the same", test_replication},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo hdf5_tests[] = {
    {"disk full, HDF5 store: the same", test_hdf5},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"disk full", NULL, NULL, NULL, NULL, file_tests},
                                {"disk full, hdf5", NULL, NULL, NULL, NULL, hdf5_tests},
                                CU_SUITE_INFO_NULL};

int main(void)
{
  if (!FL_HAVE_MPI) {
    fprintf(stderr, "faultline was built without MPI: skipped\n");
    return FL_TEST_SKIP;
  }
  snprintf(mnt, sizeof mnt, "%s/full", fl_test_tmpdir());
  mkdir(mnt, 0777);
  if (geteuid() != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=600k") != 0) {
    fprintf(stderr, "mounting a 600 KiB tmpfs needs root: skipped\n");
    return FL_TEST_SKIP;
  }
  atexit(unmount_it); /* before the temporary directory is removed (atexit runs last-registered first) */
  if (!FL_HAVE_HDF5) {
    fprintf(stderr, "this build has no HDF5: the HDF5 store's case is not run\n");
    suites[1] = (CU_SuiteInfo)CU_SUITE_INFO_NULL;
  }
  return fl_test_run(suites);
}
