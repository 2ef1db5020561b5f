/* cli_util.c — see cli_util.h. */
#include "cli_util.h"

#include "fl_test.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char fl_cli_out[1 << 16], fl_cli_err[1 << 14];

static void fl_cli_slurp(const char *path, char *buf, size_t size)
{
  FILE *f = fopen(path, "r");
  size_t n = 0;
  buf[0] = '\0';
  if (!f)
    return;
  n = fread(buf, 1, size - 1, f);
  buf[n] = '\0';
  fclose(f);
}

int fl_cli_run_bounded(const char *args, int seconds, long mem_kb)
{
  static char cmd[1 << 15];
  char limit[64] = "", timer[64] = "";
  const char *bin = getenv("FAULTLINE");
  int st;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
#ifdef FL_TEST_SANITIZED
  mem_kb = 0; /* ASan's shadow alone is terabytes of address space; the time limit stays */
#endif
  if (mem_kb > 0)
    snprintf(limit, sizeof limit, "ulimit -v %ld && ", mem_kb);
  /* timeout(1) ends a hung command with SIGKILL after the limit; its status 137 then reads as -1. The limit is
   * scaled in a sanitizer build (FL_TEST_TIME_SCALE, tests/CMakeLists.txt): there the same work takes longer. */
  if (seconds > 0) {
    const char *scale = getenv("FL_TEST_TIME_SCALE");
    long k = scale ? strtol(scale, NULL, 10) : 1;
    snprintf(timer, sizeof timer, "timeout -s KILL %ld ", (long)seconds * (k >= 1 && k <= 100 ? k : 1));
  }
  snprintf(cmd, sizeof cmd, "cd '%s' && %s%s'%s' %s >out.txt 2>err.txt </dev/null", fl_test_tmpdir(), limit, timer, bin,
           args);
  st = system(cmd);
  fl_cli_slurp(fl_test_tmp("out.txt"), fl_cli_out, sizeof fl_cli_out);
  fl_cli_slurp(fl_test_tmp("err.txt"), fl_cli_err, sizeof fl_cli_err);
  if (!WIFEXITED(st))
    return 128 + WTERMSIG(st);
  if (seconds > 0 && WEXITSTATUS(st) == 137)
    return -1;
  return WEXITSTATUS(st);
}

int fl_cli_run_limited(const char *args, int seconds)
{
  return fl_cli_run_bounded(args, seconds, 0);
}

int fl_cli_run(const char *args)
{
  return fl_cli_run_limited(args, 0);
}

void fl_cli_write(const char *name, const char *text)
{
  FILE *f = fopen(fl_test_tmp(name), "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

int fl_cli_exists(const char *name)
{
  struct stat st;
  return stat(fl_test_tmp(name), &st) == 0;
}

int fl_cli_lines(const char *s)
{
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

double fl_cli_query(const char *db, const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_open_v2(db[0] == '/' ? db : fl_test_tmp(db), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}
