/* args.c — see args.h. */
#include "args.h"

#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *fl_args_value(int argc, char **argv, int *i, const char *flag)
{
  size_t n = strlen(flag);
  if (strncmp(argv[*i], flag, n) != 0)
    return NULL;
  if (argv[*i][n] == '=')
    return argv[*i] + n + 1;
  if (argv[*i][n] == '\0' && *i + 1 < argc)
    return argv[++*i];
  return NULL;
}

fl_err fl_args_count(const char *flag, const char *value, long min, long max, long *out)
{
  double v;
  if (fl_units_number(value, 1, &v) != FL_OK)
    return fl_err_set(FL_ERR_INPUT, "%s '%s': not a whole number", flag, value);
  if (v < (double)min)
    return fl_err_set(FL_ERR_INPUT, "%s '%s': must be at least %ld", flag, value, min);
  if (v > (double)max)
    return fl_err_set(FL_ERR_INPUT, "%s '%s': must be at most %ld", flag, value, max);
  *out = (long)v;
  return FL_OK;
}

fl_err fl_args_output(const char *flag, const char *file)
{
  char dir[4096];
  const char *slash = strrchr(file, '/');
  struct stat st;
  if (strcmp(file, "/dev/stdout") == 0)
    return FL_OK;
  if (!*file || (slash && !slash[1]))
    return fl_err_set(FL_ERR_INPUT, "%s '%s': give a file name", flag, file);
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", slash == file ? 1 : (int)(slash - file), file);
  if (stat(dir, &st) != 0)
    return fl_err_set(FL_ERR_INPUT, "%s %s: no directory %s (%s)", flag, file, dir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fl_err_set(FL_ERR_INPUT, "%s %s: %s is not a directory", flag, file, dir);
  if (access(dir, W_OK | X_OK) != 0)
    return fl_err_set(FL_ERR_INPUT, "%s %s: cannot write in %s: %s", flag, file, dir, strerror(errno));
  if (lstat(file, &st) == 0 && (stat(file, &st) != 0 || !S_ISREG(st.st_mode)))
    return fl_err_set(FL_ERR_INPUT, "%s %s: exists and is not a regular file (the output would replace it)", flag,
                      file);
  return FL_OK;
}
