/* io_async.h — start many SimGrid transfers and disk accesses at once and wait for all (io_async.cpp). */
#ifndef FL_IO_ASYNC_H
#define FL_IO_ASYNC_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_io_kind { FL_IO_SEND = 0, FL_IO_WRITE, FL_IO_READ } fl_io_kind;

typedef struct fl_io_op {
  fl_io_kind kind;
  sg_host_t src, dst; /* FL_IO_SEND */
  sg_disk_t disk;     /* FL_IO_WRITE, FL_IO_READ */
  double bytes;
  double rate; /* FL_IO_SEND: at most this many bytes/s (0: no bound) */
} fl_io_op;

/* From inside an actor: start every operation at once, wait for all; the simulated time the last one took. */
double fl_io_run_concurrent(const fl_io_op *ops, long n);

#ifdef __cplusplus
}
#endif

#endif
