/* cleanup.h — temporary files that must not outlive the process, whatever ends it.
 *
 * A command that makes a temporary file (a generated platform XML) registers its path; the path is unlinked
 * when the command unregisters it (normal exit or error path) and also when SIGINT, SIGTERM, SIGHUP or SIGQUIT
 * ends the process, after which the signal is re-raised with its default action so the exit status still says
 * what ended it. SIGKILL cannot be caught: files are created with names that say what they are
 * (faultline-*), and nothing else of ours stays behind.
 *
 * The handler can only touch static storage (async-signal safety), so the registry is a small fixed table: the
 * one place besides fl_err's record where faultline keeps process-wide state. */
#ifndef FL_CLEANUP_H
#define FL_CLEANUP_H

#include "fl_err.h"

#define FL_CLEANUP_MAX 8

/* Install the handlers (first call: signals ignored at that moment stay ignored for good). Call again after a
 * library that installs its own handlers (SimGrid's SIGINT handler prints its actors and cannot stop a load in
 * progress cleanly), so a signal ends the process the same way wherever it comes. */
void fl_cleanup_install(void);
/* In a child forked to work for this process (a worker): the parent's clean-up is the parent's, so the signals it
 * handles go back to their default (a worker stopped alone must not unlink the parent's files), and those it
 * ignores stay ignored (a background job's SIGINT: Ctrl-C in the shell stops neither). */
void fl_cleanup_child(void);
/* Register `path` (copied) to be unlinked on a fatal signal. FL_ERR_INTERNAL when the table is full or the path
 * is longer than PATH_MAX. Installs the signal handlers on first use. */
fl_err fl_cleanup_add(const char *path);
/* Unlink `path` now and forget it. Safe on a path that was never registered. */
void fl_cleanup_remove(const char *path);

/* Remove directory `dir` and everything under it (no symbolic link is followed). For our own temporary
 * directories only. 0 on success, -1 with errno. */
int fl_remove_tree(const char *dir);

/* End the process by `sig` with its default action (after the caller has cleaned up). */
void fl_cleanup_reraise(int sig);

#endif
