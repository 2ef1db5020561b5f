/* fuzz_util.h — for harnesses whose parser reads a file: the input written to a file of this process. */
#ifndef FL_FUZZ_UTIL_H
#define FL_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* Write data to /dev/shm/fuzz-STEM-PID.EXT (memory: no disk journal per input), or /tmp/... where there is no
 * /dev/shm (the same path each call, in `path`); 0 on success. */
static inline int fl_fuzz_write_file(const char *stem, const char *ext, const uint8_t *data, size_t size,
                                     char *path, size_t path_size)
{
  FILE *f;
  size_t n;
  snprintf(path, path_size, "%s/fuzz-%s-%ld.%s", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", stem,
           (long)getpid(), ext);
  if (!(f = fopen(path, "wb")))
    return -1;
  n = fwrite(data, 1, size, f);
  return (fclose(f) == 0 && n == size) ? 0 : -1;
}

#endif
