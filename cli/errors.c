/* errors.c — what every command does with an error: the exit code it maps to, the one line it prints (cli.h). Apart
 * from main.c's command table, which calls the commands, so that no command calls back into main.c. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fl_exit_code(fl_err rc)
{
  return rc == FL_OK ? 0 : rc == FL_ERR_INPUT ? 2 : 1;
}

int fl_report_error(fl_err rc)
{
  const char *dbg = getenv("FAULTLINE_DEBUG");
  fprintf(stderr, "faultline: %s\n", fl_err_msg()[0] ? fl_err_msg() : fl_err_str(rc));
  if (dbg && *dbg && strcmp(dbg, "0") != 0)
    fprintf(stderr, "faultline: (%s) at %s\n", fl_err_str(rc), fl_err_where());
  return fl_exit_code(rc);
}

int fl_usage_error(const char *cmd, const char *fmt, const char *arg)
{
  fprintf(stderr, "faultline %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see 'faultline help %s')\n", cmd);
  return 2;
}

fl_err fl_self_exe(char *buf, size_t size)
{
  ssize_t len = readlink("/proc/self/exe", buf, size - 1);
  if (len <= 0)
    return fl_err_set(FL_ERR_IO, "cannot find my own executable: %s", strerror(errno));
  buf[len] = '\0';
  return FL_OK;
}
