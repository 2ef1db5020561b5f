/* args.c — see args.h. */
#include "args.h"

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
