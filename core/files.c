/* files.c — see files.h. */
#define _GNU_SOURCE /* memmem */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular one is, for a message */
static const char *fl_input_kind(mode_t m)
{
  return S_ISDIR(m)    ? "a directory, not a regular file"
         : S_ISFIFO(m) ? "a FIFO, not a regular file"
         : S_ISCHR(m)  ? "a character device, not a regular file"
         : S_ISBLK(m)  ? "a block device, not a regular file"
         : S_ISSOCK(m) ? "a socket, not a regular file"
                       : "not a regular file";
}

char *fl_input_resolve(const char *file, const char *rel)
{
  const char *slash = strrchr(file, '/');
  size_t dl = slash ? (size_t)(slash - file) : 1;
  char *out;
  if (rel[0] == '/')
    return strdup(rel);
  out = malloc(dl + strlen(rel) + 2);
  if (!out)
    return NULL;
  if (slash)
    memcpy(out, file, dl);
  else
    out[0] = '.';
  out[dl] = '/';
  strcpy(out + dl + 1, rel);
  return out;
}

int fl_input_is_regular(const char *path, const char **why)
{
  struct stat st;
  if (stat(path, &st) != 0) {
    *why = strerror(errno);
    return 0;
  }
  *why = S_ISREG(st.st_mode) ? NULL : fl_input_kind(st.st_mode);
  return S_ISREG(st.st_mode);
}

int fl_input_is_special(const char *path, const char **why)
{
  struct stat st;
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
    return 0;
  *why = fl_input_kind(st.st_mode);
  return 1;
}

FILE *fl_input_fopen(const char *path, const char **why)
{
  struct stat st;
  FILE *f = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO's open returns at once */
  *why = NULL;
  if (fd < 0)
    *why = strerror(errno);
  else if (fstat(fd, &st) != 0)
    *why = strerror(errno);
  else if (!S_ISREG(st.st_mode))
    *why = fl_input_kind(st.st_mode);
  else if (fcntl(fd, F_SETFL, 0) != 0 || !(f = fdopen(fd, "rb")))
    *why = strerror(errno);
  if (!f && fd >= 0)
    close(fd);
  return f;
}

unsigned fl_file_mentions(const char *path, const char *const *needles, int n)
{
  size_t maxl = 0, keep = 0;
  unsigned found = 0, all = n >= 32 ? ~0u : (1u << n) - 1;
  char buf[1 << 16];
  const char *why;
  FILE *f = NULL;
  for (int i = 0; i < n && i < 32; i++)
    maxl = strlen(needles[i]) > maxl ? strlen(needles[i]) : maxl;
  if (n <= 0 || maxl == 0 || maxl >= sizeof buf / 2 || !(f = fl_input_fopen(path, &why)))
    return 0;
  for (;;) {
    size_t got = fread(buf + keep, 1, sizeof buf - keep, f), have = keep + got;
    for (int i = 0; i < n && i < 32; i++) {
      size_t nl = strlen(needles[i]);
      if (!(found & 1u << i) && nl && have >= nl && memmem(buf, have, needles[i], nl))
        found |= 1u << i;
    }
    if (got == 0 || found == all)
      break;
    /* a needle may straddle two reads: keep the longest's length less one */
    keep = have < maxl - 1 ? have : maxl - 1;
    memmove(buf, buf + have - keep, keep);
  }
  fclose(f);
  return found;
}
