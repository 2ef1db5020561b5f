/* fcfs.c — first come, first served: jobs start in queue order while the first waiting one fits (batch.h). */
#include "batch.h"

static long fl_fcfs_pick(const fl_batch_view *v, long *start)
{
  long n = 0, free_nodes = v->free_nodes;
  for (long i = 0; i < v->nwait && v->wait_nodes[i] <= free_nodes; i++) {
    free_nodes -= v->wait_nodes[i];
    start[n++] = i;
  }
  return n;
}

const fl_batch_ops fl_batch_fcfs = {
    .name = "fcfs",
    .doc = "first come, first served: a job that does not fit blocks every job behind it",
    .pick = fl_fcfs_pick,
};
