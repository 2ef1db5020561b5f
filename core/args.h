/* args.h — command-line flag parsing shared by faultline's subcommands. */
#ifndef FL_ARGS_H
#define FL_ARGS_H

/* "--flag value" or "--flag=value" at argv[*i]: returns the value and advances *i past it, or NULL when argv[*i]
 * is not that flag (or its value is missing). */
const char *fl_args_value(int argc, char **argv, int *i, const char *flag);

/* A whole-number flag value, parsed as scenario counts are (fl_units_number): on failure records an FL_ERR_INPUT
 * message "--np '3abc': not a whole number" / "must be at least 1" / "must be at most 4096". */
#include "fl_err.h"
fl_err fl_args_count(const char *flag, const char *value, long min, long max, long *out);

/* An output file a flag names (--plot, --html, --out), checked before any work is done: its directory exists and
 * may be written, and the file, when it exists, is a regular file (the output is written beside it and renamed over
 * it). /dev/stdout passes. FL_ERR_INPUT "--html /x/r.html: no directory /x (No such file or directory)". */
fl_err fl_args_output(const char *flag, const char *file);

#endif
