/* cli_util.h — running the `faultline` command from a test as a user would (the binary named by $FAULTLINE, in
 * the test's temporary directory), with its output captured. Shared by the CLI suites. */
#ifndef FL_CLI_UTIL_H
#define FL_CLI_UTIL_H

#include <stddef.h>

extern char fl_cli_out[1 << 16], fl_cli_err[1 << 14];

/* Run `faultline ARGS` (a shell word list) in fl_test_tmpdir() with stdin from /dev/null; stdout and stderr go
 * to fl_cli_out / fl_cli_err. Returns the exit status, or 128 + the signal that ended it. */
int fl_cli_run(const char *args);
/* The same with a time limit in seconds: -1 if it had to be killed. */
int fl_cli_run_limited(const char *args, int seconds);
/* The same with, besides, an address-space limit (ulimit -v, KiB; 0: none; none in a sanitizer build). */
int fl_cli_run_bounded(const char *args, int seconds, long mem_kb);
/* Write `text` to `name` in the temporary directory. */
void fl_cli_write(const char *name, const char *text);
/* Does `name` exist in the temporary directory? */
int fl_cli_exists(const char *name);
/* Lines in `s`. */
int fl_cli_lines(const char *s);
/* The first column of the first row of `sql` on database `db` (a name in the temporary directory, or an absolute
 * path), opened read-only; NAN for no row, a NULL, or a database that cannot be read. */
double fl_cli_query(const char *db, const char *sql);

/* SQL that turns a results file's typed events (schema 3) back into the text events of schemas 1 and 2 (the kind's
 * name and a detail sentence, an index on run and time): to test reading and upgrading older files. */
#define FL_CLI_EVENTS_AS_TEXT_SQL                                                                                      \
  "CREATE TABLE events_old (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t_s REAL NOT NULL,"         \
  " kind TEXT NOT NULL, node INTEGER, detail TEXT);"                                                                   \
  "INSERT INTO events_old SELECT run_id, t_s, kind, node, detail FROM events_text ORDER BY id;"                        \
  "DROP VIEW events_text; DROP TABLE events; DROP TABLE event_kinds;"                                                  \
  "ALTER TABLE events_old RENAME TO events; CREATE INDEX events_by_run ON events(run_id, t_s);"

#endif
