/* files.h — opening the files a user names: regular files only, opened without waiting, resolved against the
 * file that names them, scanned for a few strings. No scenario here: core/scenario.c and core/inputs.c both use
 * them. */
#ifndef FL_FILES_H
#define FL_FILES_H

#include <stdio.h>

/* Open `path` for reading as an input file: a regular file only, opened without waiting (a FIFO with no writer
 * would block the open for ever, a device such as /dev/zero never ends, and neither can be read again by `rerun`).
 * NULL when it cannot be; *why then says why, for the caller's message: strerror's text, or "a FIFO, not a regular
 * file" and the like. */
FILE *fl_input_fopen(const char *path, const char **why);
/* `rel` (a path the file `file` names, as a platform names its profiles) against the directory of `file`; as it is
 * when absolute. Caller frees; NULL when out of memory. */
char *fl_input_resolve(const char *file, const char *rel);
/* 1 when `path` names a regular file (symbolic links followed); 0 with *why as for fl_input_fopen. */
int fl_input_is_regular(const char *path, const char **why);
/* 1 when `path` exists but is not a regular file (a FIFO, a device, a directory), with *why as for fl_input_fopen;
 * 0 when it is a regular file or does not exist (one stat, for a pass that leaves a missing file to a later error). */
int fl_input_is_special(const char *path, const char **why);

/* Which of the n (at most 32) `needles` the file at `path` contains, as bits (bit i: needles[i]; 0 too when it
 * cannot be read): one pass over the bytes, a cheap test before parsing a large file for something it rarely
 * holds. */
unsigned fl_file_mentions(const char *path, const char *const *needles, int n);

#endif
