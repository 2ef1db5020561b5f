/* cli.h — what the command files of cli/ share: how a command reports an error. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include "fl_err.h"

/* "faultline: MESSAGE" on stderr; returns the exit status for rc (2 bad input, 1 otherwise). */
int fl_report_error(fl_err rc);
/* "faultline CMD: <fmt with arg> (see 'faultline help CMD')" on stderr; returns 2. */
int fl_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The path of this executable (/proc/self/exe), into buf. */
fl_err fl_self_exe(char *buf, size_t size);

/* faultline calibrate / faultline agree (agree.c). */
int fl_cmd_calibrate(int argc, char **argv);
int fl_cmd_agree(int argc, char **argv);
/* faultline advise (advise.c). */
int fl_cmd_advise(int argc, char **argv);
/* faultline fit (fit.c). */
int fl_cmd_fit(int argc, char **argv);
/* faultline workload (workload.c). */
int fl_cmd_workload(int argc, char **argv);

#endif
