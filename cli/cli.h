/* cli.h — what the command files of cli/ share: how a command reports an error. */
#ifndef FL_CLI_H
#define FL_CLI_H

#include "fl_err.h"

/* The exit status for rc: 0 FL_OK, 2 bad input, 1 otherwise. */
int fl_exit_code(fl_err rc);
/* "faultline: MESSAGE" on stderr; returns the exit status for rc (2 bad input, 1 otherwise). */
int fl_report_error(fl_err rc);
/* "faultline CMD: <fmt with arg> (see 'faultline help CMD')" on stderr; returns 2. */
int fl_usage_error(const char *cmd, const char *fmt, const char *arg);
/* The path of this executable (/proc/self/exe), into buf. */
fl_err fl_self_exe(char *buf, size_t size);

/* The commands, each in its file: simulate.c, report.c (report, export), sweep.c (sweep, merge), validate.c,
 * run.c, rerun.c; main.c keeps the table, help, keys, columns, platform and version. */
int fl_cmd_simulate(int argc, char **argv);
int fl_cmd_report(int argc, char **argv);
int fl_cmd_export(int argc, char **argv);
int fl_cmd_sweep(int argc, char **argv);
int fl_cmd_merge(int argc, char **argv);
int fl_cmd_validate(int argc, char **argv);
int fl_cmd_run(int argc, char **argv);
int fl_cmd_rerun(int argc, char **argv);
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
