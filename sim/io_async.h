/* io_async.h — what faultline needs of SimGrid's C++ API (io_async.cpp): many transfers and disk accesses at once,
 * a host added to a loaded platform, the host list without SimGrid's slow sort. */
#ifndef FL_IO_ASYNC_H
#define FL_IO_ASYNC_H

#include <simgrid/forward.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_io_kind { FL_IO_SEND = 0, FL_IO_WRITE, FL_IO_READ } fl_io_kind;

typedef struct fl_io_op {
  fl_io_kind kind;
  sg_host_t src, dst; /* FL_IO_SEND */
  sg_disk_t disk;     /* FL_IO_WRITE, FL_IO_READ */
  double bytes;
  double rate;   /* FL_IO_SEND: at most this many bytes/s (0: no bound) */
  double weight; /* FL_IO_WRITE, FL_IO_READ: the share of the disk it gets, as this many equal accesses would
                  * together (SimGrid's I/O priority; 0 or 1: one access's). One access of k ranks' bytes at weight k
                  * moves as the ranks' k accesses do, started together. */
} fl_io_op;

/* From inside an actor: start every operation at once, wait for all; the simulated time the last one took.
 * *first_s (when not NULL) gets the time the last of the first `nfirst` took. */
double fl_io_run_concurrent(const fl_io_op *ops, long n, long nfirst, double *first_s);

/* A set of transfers and disk accesses started together and awaited by one actor, which another actor may cancel
 * (a job's checkpoint that a failure interrupts: its flows stop sharing the network and disks at once). Rates are
 * not bounded (fl_io_op.rate must be 0). */
typedef struct fl_ioset fl_ioset;
/* Start every operation now (NULL when out of memory). */
fl_ioset *fl_ioset_start(const fl_io_op *ops, long n);
/* From the actor that started it: wait for all; 0 when all completed, 1 when the set was cancelled. */
int fl_ioset_wait(fl_ioset *s);
/* From any actor: stop the operations still under way; the waiter's fl_ioset_wait returns 1. Each cancel yields
 * to SimGrid, so the waiter may run before this returns: it must not free the set meanwhile (an activity freed
 * while it runs crashes SimGrid 3.32): free a set only once neither the waiter nor a canceller holds it. */
void fl_ioset_cancel(fl_ioset *s);
void fl_ioset_free(fl_ioset *s);

/* Add a host of `speed` flop/s to the loaded platform's root zone, before the simulation starts (the C API has
 * no way to): the controller faultline adds when every host of a file may fail. It has no route: it runs the
 * simulator's actors, which never communicate from it. */
sg_host_t fl_sg_add_host(const char *name, double speed);
/* The controller and n nodes (hosts[0..n), named node-0 ...) at `speed` flop/s, in one zone without routing: a
 * generated platform without a network, made without an XML file. Returns the controller. */
sg_host_t fl_sg_build_plain(long n, double speed, sg_host_t *hosts);

/* Every host (malloc'ed, in no particular order; *n set; NULL when out of memory). With fl_sg_watch_hosts called
 * before the platform was loaded, the hosts SimGrid reported as it created them: SimGrid 3.32's own listings
 * (sg_host_list, sg_host_count, Engine::get_all_hosts) each rebuild and sort the list, seconds at a million
 * hosts. */
void fl_sg_watch_hosts(void);
sg_host_t *fl_sg_all_hosts(size_t *n);

/* Task graphs (sim/workflow/): a host-to-host transfer started now and awaited later, possibly by another
 * actor than the one that started it (the C API of 3.32 has only blocking sg_host_sendto). Reference counted:
 * fl_sgc_send returns one reference; each holder takes its own. */
typedef struct fl_sgc fl_sgc;
fl_sgc *fl_sgc_send(sg_host_t from, sg_host_t to, double bytes);
void fl_sgc_ref(fl_sgc *c);
void fl_sgc_unref(fl_sgc *c);
/* Block until it ends: 0 delivered, 1 failed (an end went down) or cancelled. */
int fl_sgc_wait(fl_sgc *c);
/* Stop it if it still runs (its waiters see a failure). */
void fl_sgc_cancel(fl_sgc *c);
/* When a delivered transfer started and ended (SimGrid's clock). */
void fl_sgc_times(const fl_sgc *c, double *start, double *finish);
/* Callbacks connected to SimGrid's host on/off signal (each execution adds one for its duration: a count that
 * grows from replica to replica is a leak that slows every failure; tests watch it). */
long fl_sg_state_callbacks(void);
/* Run `flops` on `host` from the calling actor (which may sit on another host): 0 done, 1 the host failed. */
int fl_sg_exec(sg_host_t host, double flops);
/* The name of the netzone that holds host (SimGrid 3.32 crashes on a route query between zones it cannot route
 * between, so callers compare zones before asking). */
const char *fl_sg_zone_name(sg_host_t host);

#ifdef __cplusplus
}
#endif

#endif
