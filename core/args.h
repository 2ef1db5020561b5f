/* args.h — command-line flag parsing shared by faultline's subcommands. */
#ifndef FL_ARGS_H
#define FL_ARGS_H

/* "--flag value" or "--flag=value" at argv[*i]: returns the value and advances *i past it, or NULL when argv[*i]
 * is not that flag (or its value is missing). */
const char *fl_args_value(int argc, char **argv, int *i, const char *flag);

#endif
