/* args.c — see args.h. */
#include "args.h"

#include "units.h"

#include <string.h>

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
