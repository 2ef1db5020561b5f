/* cli_util.c — see cli_util.h. */
#include "cli_util.h"

#include "fl_test.h"

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

int fl_cli_run_limited(const char *args, int seconds)
{
  char cmd[8192];
  const char *bin = getenv("FAULTLINE");
  int st;
  CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
  /* timeout(1) ends a hung command with SIGKILL after the limit; its status 137 then reads as -1 */
  if (seconds > 0)
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout -s KILL %d '%s' %s >out.txt 2>err.txt </dev/null", fl_test_tmpdir(),
             seconds, bin, args);
  else
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out.txt 2>err.txt </dev/null", fl_test_tmpdir(), bin, args);
  st = system(cmd);
  fl_cli_slurp(fl_test_tmp("out.txt"), fl_cli_out, sizeof fl_cli_out);
  fl_cli_slurp(fl_test_tmp("err.txt"), fl_cli_err, sizeof fl_cli_err);
  if (!WIFEXITED(st))
    return 128 + WTERMSIG(st);
  if (seconds > 0 && WEXITSTATUS(st) == 137)
    return -1;
  return WEXITSTATUS(st);
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
