/* io.c — the workload app's I/O (see workload_run.h): a job's checkpoint or restart as SimGrid activities (one
 * transfer per node to its PFS server, striped, or per cabinet where the flows are aggregated; buddy copies to
 * partners; local disks), and the PFS's contention policies: who is served next (ordered, least-waste) and the
 * cooperative periods over the running jobs. */
#include "workload_run.h"

static void fl_wl_io_main(int argc, char **argv);

/* The node that writes rank k of job j's checkpoint: its first live copy's. */
static long fl_wl_writer(const fl_wlj *jb, long k, long nodes)
{
  for (long c = 1; jb->dead && jb->dead[k] && c < jb->copies; c++)
    if (!jb->dead[c * nodes + k])
      return jb->nodes[c * nodes + k];
  return jb->nodes[k];
}

/* Ranks of [0, x) that striping (rank r to server r mod P) sends to server s */
static long fl_wl_striped(long x, long s, long npfs)
{
  return x > s ? (x - s - 1) / npfs + 1 : 0;
}

/* Job j's file-level checkpoint (restart = 0) or restart, aggregated (platform.io_flows = aggregated): each server
 * receives (or gives back) exactly the ranks' bytes per-node striping sends it, but from the cabinets rather than
 * the nodes. The job's ranks are taken cabinet by cabinet, server s given a block of as many as striping gives it;
 * a cabinet sends each server its ranks in that block, one transfer from its I/O host (at most P + cabinets
 * transfers a job, P a node for small jobs), and each server's disk gets one access of its block's bytes at the
 * block's weight, so that it gets the share the ranks' own accesses would together. Appends to ops[*n]. */
static void fl_wl_io_file_agg(fl_wlrep *wr, long j, int restart, double bytes, fl_io_op *ops, long *n)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  long nodes = jb->t.nodes, copies = restart ? jb->nslots / nodes : 1, nseen = 0, s = 0, left;
  for (long sl = 0; sl < (restart ? jb->nslots : nodes); sl++) {
    long c = (restart ? jb->nodes[sl] : fl_wl_writer(jb, sl, nodes)) / w->cabinet;
    if (wr->cab_n[c]++ == 0)
      wr->cab_seen[nseen++] = c;
  }
  left = copies * fl_wl_striped(nodes, 0, w->npfs);
  for (long i = 0; i < nseen; i++) {
    long c = wr->cab_seen[i], m = wr->cab_n[c];
    wr->cab_n[c] = 0;
    while (m > 0) {
      long take = m < left ? m : left;
      ops[(*n)++] = (fl_io_op){.kind = FL_IO_SEND,
                               .src = restart ? w->pfs_host[s] : w->cab_host[c],
                               .dst = restart ? w->cab_host[c] : w->pfs_host[s],
                               .bytes = (double)take * bytes};
      m -= take;
      left -= take;
      if (left == 0) { /* server s's block is complete: its disk access */
        long k = copies * fl_wl_striped(nodes, s, w->npfs);
        ops[(*n)++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE,
                                 .disk = w->pfs_disk[s],
                                 .bytes = (double)k * bytes,
                                 .weight = (double)k};
        if (++s < w->npfs)
          left = copies * fl_wl_striped(nodes, s, w->npfs);
      }
    }
  }
}

/* Start job j's checkpoint (restart = 0) or restart I/O at `level`. The file level: each rank's checkpoint from
 * its first live copy to a PFS server (rank k's to server k mod servers), a transfer and the server's disk; a
 * restart reads it back onto every copy. The buddy level: each rank's to its partner's memory (rank k + the
 * partner step, the placement the cost probe prices: iocost.c), a transfer; a restart in place sends the copy of
 * the rank on slot `slot` from its partner to the node that took its place. A two-level file-level checkpoint
 * refreshes the buddy copies too (the strategy's writes). */
void fl_wl_io_start(fl_wlrep *wr, long j, int restart, fl_level level, long slot)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  long nodes = jb->t.nodes, n = 0;
  long step = fl_iocost_partner_step(wr->sim->pf, nodes) % (nodes > 1 ? nodes : 1);
  double bytes = jb->bytes;
  int buddy_too = level == FL_LEVEL_FILE && !restart && nodes > 1 &&
                  (wr->sim->strat.writes[FL_LEVEL_FILE] & FL_LEVEL_BIT(FL_LEVEL_BUDDY));
  fl_wlio *io = calloc(1, sizeof *io);
  if (io)
    io->ops = malloc((size_t)(2 * jb->nslots + nodes) * sizeof *io->ops);
  if (!io || !io->ops) {
    free(io);
    wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    return;
  }
  if (level == FL_LEVEL_FILE && w->aggregated) {
    fl_wl_io_file_agg(wr, j, restart, bytes, io->ops, &n);
  } else if (level == FL_LEVEL_FILE) {
    for (long sl = 0; sl < (restart ? jb->nslots : nodes); sl++) {
      long k = sl % nodes, s = k % w->npfs;
      long node = restart ? jb->nodes[sl] : fl_wl_writer(jb, k, nodes); /* the rank's first live copy */
      sg_host_t h = fl_platform_host(wr->sim->pf, node);
      io->ops[n++] = (fl_io_op){
          .kind = FL_IO_SEND, .src = restart ? w->pfs_host[s] : h, .dst = restart ? h : w->pfs_host[s], .bytes = bytes};
      io->ops[n++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE, .disk = w->pfs_disk[s], .bytes = bytes};
    }
  }
  if (level == FL_LEVEL_LOCAL || level == FL_LEVEL_XOR) {
    /* the local level: each rank's checkpoint on its node's disk. XOR (SCR's, as iocost.c prices it): each rank's
     * checkpoint and its share of the set's parity, S (1 + 1 / (g - 1)), on its disk, and S to the next member of
     * its set (the partner's path); a rebuild in place reads the partner's disk back and sends S to the node that
     * took the lost rank's place */
    long g = w->xor_g;
    double on_disk = level == FL_LEVEL_XOR ? bytes * (1.0 + 1.0 / (double)(g - 1)) : bytes;
    for (long k = restart ? (slot + step) % nodes : 0; k < (restart ? (slot + step) % nodes + 1 : nodes); k++) {
      sg_host_t h = fl_platform_host(wr->sim->pf, jb->nodes[k]);
      sg_disk_t d = fl_iocost_host_disk(h, w->disk_name);
      if (!d) {
        wr->rc = fl_err_set(FL_ERR_INPUT, "host '%s' has no disk%s%s for the %s level", sg_host_get_name(h),
                            w->disk_name ? " named " : "", w->disk_name ? w->disk_name : "", fl_level_name(level));
        break;
      }
      io->ops[n++] = (fl_io_op){.kind = restart ? FL_IO_READ : FL_IO_WRITE, .disk = d, .bytes = on_disk};
      if (level == FL_LEVEL_XOR)
        io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                                  .src = h,
                                  .dst = fl_platform_host(wr->sim->pf, jb->nodes[restart ? slot : (k + step) % nodes]),
                                  .bytes = bytes};
    }
  } else if (level == FL_LEVEL_BUDDY && restart) {
    io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                              .src = fl_platform_host(wr->sim->pf, jb->nodes[(slot + step) % nodes]),
                              .dst = fl_platform_host(wr->sim->pf, jb->nodes[slot]),
                              .bytes = bytes};
  } else if (level == FL_LEVEL_BUDDY || buddy_too) {
    for (long k = 0; k < nodes; k++)
      io->ops[n++] = (fl_io_op){.kind = FL_IO_SEND,
                                .src = fl_platform_host(wr->sim->pf, jb->nodes[k]),
                                .dst = fl_platform_host(wr->sim->pf, jb->nodes[(k + step) % nodes]),
                                .bytes = bytes};
  }
  if (wr->rc != FL_OK) { /* a node without the disk: the replica ends with the error */
    free(io->ops);
    free(io);
    return;
  }
  io->nops = n;
  io->wr = wr;
  io->refs = 2;
  io->job = j;
  io->restart = restart;
  io->level = level;
  jb->io = io;
  jb->phase = restart ? FL_WLP_RESTART : FL_WLP_CKPT;
  jb->phase_t = wr->now;
  jb->serial++;
  sg_actor_t a = sg_actor_init("io", fl_platform_controller(wr->sim->pf));
  sg_actor_set_data(a, io);
  sg_actor_start(a, fl_wl_io_main, 0, NULL);
}

void fl_wl_io_unref(fl_wlio *io)
{
  if (--io->refs > 0)
    return;
  if (io->set)
    fl_ioset_free(io->set);
  free(io->ops);
  free(io);
}

static void fl_wl_io_main(int argc, char **argv)
{
  fl_wlio *io = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  if (io->state == 0) { /* else cancelled before it started */
    io->set = fl_ioset_start(io->ops, io->nops);
    if (!io->set) {
      io->wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
    } else if (fl_ioset_wait(io->set) == 0 && io->state == 0) {
      io->state = 1;
      io->refs++; /* the list's */
      if (io->wr->done_tail)
        io->wr->done_tail->next = io;
      else
        io->wr->done_head = io;
      io->wr->done_tail = io;
      sg_sem_release(io->wr->sem);
    }
  }
  fl_wl_io_unref(io);
}

/* The coordinator stops job j's I/O (a failure, the end of the replica) and lets go of it. */
void fl_wl_io_stop(fl_wlj *jb)
{
  fl_wlio *io = jb->io;
  jb->io = NULL;
  if (!io)
    return;
  if (io->state == 0) {
    io->state = 2;
    if (io->set)
      fl_ioset_cancel(io->set);
  }
  /* a completed one still listed is dropped when the coordinator reaches it (its job no longer points to it) */
  fl_wl_io_unref(io);
}

/* Cooperative periods: the running set changed, so every running job's period is worked out again (policy/
 * interval.h); a segment under way keeps the period it began with. */
void fl_wl_coop_update(fl_wlrep *wr)
{
  const fl_wlrun *w = wr->w;
  long m = 0;
  wr->coop_dirty = 0;
  for (long a = 0; a < wr->nrun; a++) {
    long j = wr->runl[a];
    const fl_wlj *jb = FL_WJ(wr, j);
    wr->c_cost[m] = jb->cost_s;
    wr->c_mtbf[m] = jb->mtbf_s;
    wr->c_load[m] = jb->load_s;
    wr->c_nodes[m] = (double)(jb->t.nodes * jb->copies);
    m++;
  }
  if (isnan(fl_pol_interval_cooperative(m, wr->c_cost, wr->c_mtbf, wr->c_load, wr->c_nodes, w->coop_daly,
                                        wr->c_period))) {
    wr->rc = fl_err_set(FL_ERR_INTERNAL, "cooperative periods: no solution for %ld running jobs", m);
    return;
  }
  for (long a = 0; a < m; a++)
    FL_WJ(wr, wr->runl[a])->tau = wr->c_period[a];
}

/* The PFS is free: the next waiting checkpoint (cooperative I/O). Asked once an instant, after every request of
 * that instant is in the queue. */
void fl_wl_pfs_next(fl_wlrep *wr)
{
  long best = -1;
  if (wr->pfs_holder >= 0 || wr->npfsq == 0)
    return;
  if (wr->w->io_policy == FL_IO_ORDERED) {
    best = 0;
  } else {
    /* least-waste: the candidate whose checkpoint costs the other waiting jobs least */
    double bestw = INFINITY;
    for (long a = 0; a < wr->npfsq; a++) {
      long i = wr->pfsq[a];
      double c = FL_WJ(wr, i)->delta_s, sum = 0;
      for (long b = 0; b < wr->npfsq; b++) {
        if (b == a)
          continue;
        long k = wr->pfsq[b];
        double q = (double)FL_WJ(wr, k)->t.nodes;
        double mu = wr->sim->node_mtbf_s / q;
        double d = FL_WJ(wr, k)->seg_s + (wr->now - FL_WJ(wr, k)->req_t); /* unsaved: its segment, and the wait */
        sum += q * (1.0 + (isfinite(mu) ? (d + c / 2.0) / mu : 0.0));
      }
      double wv = c * sum;
      if (wv < bestw) {
        bestw = wv;
        best = a;
      }
    }
  }
  long j = wr->pfsq[best];
  memmove(wr->pfsq + best, wr->pfsq + best + 1, (size_t)(wr->npfsq - best - 1) * sizeof *wr->pfsq);
  wr->npfsq--;
  fl_wlj *jb = FL_WJ(wr, j);
  jb->row.io_wait_s += wr->now - jb->req_t;
  wr->pfs_holder = j;
  fl_wl_io_start(wr, j, 0, FL_LEVEL_FILE, -1);
}
