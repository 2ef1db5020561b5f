/* iocost.c — checkpoint and restart costs simulated on the platform (see iocost.h). */
#include "iocost.h"

#include "io_async.h"

#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdlib.h>
#include <string.h>

int fl_iocost_wanted(const fl_scenario *sc, unsigned levels, const char **why)
{
  *why = NULL;
  if (sc->cost == FL_COST_CONSTANT || !levels)
    return 0;
  if (sc->cost == FL_COST_PLATFORM)
    return 1;
  /* auto: the platform's costs when a size is given and the platform has what the levels need */
  if (!(sc->checkpoint_size > 0)) {
    *why = "app.checkpoint_size is not set";
    return 0;
  }
  if (sc->platform_file) {
    if ((levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) && !sc->storage_pfs) {
      *why = "storage.pfs names no PFS host";
      return 0;
    }
  } else {
    if ((levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) && sc->pfs_servers == 0) {
      *why = "platform.pfs_servers is 0";
      return 0;
    }
    if ((levels & (FL_LEVEL_BIT(FL_LEVEL_LOCAL) | FL_LEVEL_BIT(FL_LEVEL_XOR))) && !(sc->disk_bw > 0)) {
      *why = "platform.disk_bandwidth is 0";
      return 0;
    }
  }
  return 1;
}

int fl_iocost_form(const fl_scenario *sc, long nodes)
{
  if (sc->io_flows == FL_IO_PER_RANK || sc->io_flows == FL_IO_AGGREGATED)
    return sc->io_flows;
  return nodes <= FL_IO_PER_RANK_MAX ? FL_IO_PER_RANK : FL_IO_AGGREGATED;
}

sg_disk_t fl_iocost_host_disk(sg_host_t host, const char *name)
{
  unsigned int n = 0;
  sg_disk_t *disks = NULL, d = NULL;
  sg_host_get_disks(host, &n, &disks);
  for (unsigned int i = 0; i < n && !d; i++)
    if (!name || strcmp(sg_disk_get_name(disks[i]), name) == 0)
      d = disks[i];
  free(disks);
  return d;
}

long fl_iocost_partner_step(const fl_platform *pf, long ranks)
{
  const fl_platform_gen *g = fl_platform_generated(pf);
  return g && fl_platform_io(pf) && ranks > g->cabinet ? g->cabinet : 1;
}

typedef struct fl_probe {
  const fl_io_op *ops;
  long n, nfirst;
  double elapsed, first;
} fl_probe;

static void fl_probe_main(int argc, char **argv)
{
  fl_probe *p = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  p->elapsed = fl_io_run_concurrent(p->ops, p->n, p->nfirst, &p->first);
}

/* Run `ops` at once on the platform, from an actor on the controller; the simulated time they took, and in
 * *first_s (when not NULL) the time the first nfirst of them took. */
static double fl_probe_run2(fl_platform *pf, const fl_io_op *ops, long n, long nfirst, double *first_s)
{
  fl_probe p = {.ops = ops, .n = n, .nfirst = nfirst, .elapsed = 0.0, .first = 0.0};
  sg_actor_t a;
  if (n == 0)
    return 0.0;
  a = sg_actor_init("iocost", fl_platform_controller(pf));
  sg_actor_set_data(a, &p);
  sg_actor_start(a, fl_probe_main, 0, NULL);
  simgrid_run();
  if (first_s)
    *first_s = p.first;
  return p.elapsed;
}

static double fl_probe_run(fl_platform *pf, const fl_io_op *ops, long n)
{
  return fl_probe_run2(pf, ops, n, 0, NULL);
}

typedef struct fl_io_plan {
  fl_platform *pf;
  const fl_scenario *sc;
  long ranks;
  long xor_group;             /* ranks per XOR set (the XOR level) */
  const fl_platform_gen *gen; /* NULL: a platform file */
  int aggregated;
  long ncab;     /* aggregated: cabinets holding ranks */
  int by_server; /* aggregated: a cabinet's file-level bytes go to every server as its ranks' striping sends them */
  double scale;  /* bytes moved per rank: this times app.checkpoint_size (1 for checkpoints) */
  fl_io_op *ops;
  long n, cap;
} fl_io_plan;

static fl_err fl_plan_push(fl_io_plan *pl, fl_io_op op)
{
  fl_err rc = FL_OK;
  if (pl->n == pl->cap) {
    long cap = pl->cap ? 2 * pl->cap : 1024;
    fl_io_op *grown = realloc(pl->ops, (size_t)cap * sizeof *grown);
    FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory planning %ld I/O operations", cap);
    pl->ops = grown;
    pl->cap = cap;
  }
  pl->ops[pl->n++] = op;
done:
  return rc;
}

/* Where flow i (a rank, or a cabinet when aggregated) runs from, and how many bytes it carries; *rate bounds a
 * partly busy cabinet's flow by its busy nodes' links (0: no bound). */
static sg_host_t fl_plan_host(fl_io_plan *pl, long i, double *bytes, double *rate)
{
  *rate = 0.0;
  if (pl->aggregated) {
    char name[32];
    long first = i * pl->gen->cabinet, last = first + pl->gen->cabinet, members = last - first;
    if (last > pl->gen->nodes)
      members = pl->gen->nodes - first;
    if (last > pl->ranks)
      last = pl->ranks;
    *bytes = (double)(last - first) * pl->sc->checkpoint_size * pl->scale;
    if (last - first < members)
      *rate = (double)(last - first) * pl->gen->link_bw;
    snprintf(name, sizeof name, "cab-%ld", i);
    return sg_host_by_name(name);
  }
  *bytes = pl->sc->checkpoint_size * pl->scale;
  return fl_platform_host(pl->pf, i);
}

/* Flow i's state written to (or read from) its own disk: aggregated, one cabinet's disk stands for each node. */
static fl_err fl_plan_disk(fl_io_plan *pl, sg_host_t h, const char *disk_name, int write, double bytes)
{
  fl_err rc = FL_OK;
  sg_disk_t d = fl_iocost_host_disk(h, disk_name);
  if (!d) {
    if (pl->gen)
      rc = fl_scenario_fail(pl->sc, "platform", "disk_bandwidth", "the local level needs node disks");
    else if (disk_name)
      rc = fl_scenario_fail(pl->sc, "storage", "disk", "host '%s' has no disk named '%s'", sg_host_get_name(h),
                            disk_name);
    else
      rc = fl_scenario_fail(pl->sc, "strategy", "kind", "host '%s' has no <disk> for the local level",
                            sg_host_get_name(h));
    goto done;
  }
  FL_TRY(fl_plan_push(pl, (fl_io_op){.kind = write ? FL_IO_WRITE : FL_IO_READ, .disk = d, .bytes = bytes}));
done:
  return rc;
}

/* Flow i's bytes to its partner (written) or back (read): aggregated, the next cabinet, which holds the partners
 * (fl_iocost_partner_step). */
static fl_err fl_plan_partner(fl_io_plan *pl, long i, sg_host_t h, int write, double bytes, double rate)
{
  fl_err rc = FL_OK;
  long nflows = pl->aggregated ? pl->ncab : pl->ranks;
  long step = pl->aggregated ? 1 : fl_iocost_partner_step(pl->pf, pl->ranks);
  double pbytes, prate;
  sg_host_t partner;
  if (nflows < 2) {
    rc = pl->aggregated ? fl_scenario_fail(pl->sc, "platform", "io_flows",
                                           "aggregated buddy flows need ranks in two cabinets at least")
                        : fl_scenario_fail(pl->sc, "app", "nodes", "a buddy copy needs two ranks at least");
    goto done;
  }
  partner = fl_plan_host(pl, (i + step) % nflows, &pbytes, &prate);
  FL_TRY(fl_plan_push(
      pl,
      (fl_io_op){
          .kind = FL_IO_SEND, .src = write ? h : partner, .dst = write ? partner : h, .bytes = bytes, .rate = rate}));
done:
  return rc;
}

/* Cabinets up to which the aggregated file level sends each cabinet's bytes to every server (fl_plan_level) */
#define FL_BY_SERVER_MAX 200

/* Ranks r in [0, x) that striping sends to server s of P (r mod P = s) */
static long fl_striped(long x, long s, long npfs)
{
  return x > s ? (x - s - 1) / npfs + 1 : 0;
}

/* Flow i's `bytes` to PFS server `srv` and its disk (written), or back (read); `rate` bounds the transfer (0: no
 * bound) */
static fl_err fl_plan_pfs(fl_io_plan *pl, sg_host_t h, long srv, int write, double bytes, double rate)
{
  fl_err rc = FL_OK;
  sg_host_t server = fl_platform_pfs_host(pl->pf, srv);
  FL_TRY(fl_plan_push(
      pl, (fl_io_op){
              .kind = FL_IO_SEND, .src = write ? h : server, .dst = write ? server : h, .bytes = bytes, .rate = rate}));
  FL_TRY(fl_plan_push(
      pl,
      (fl_io_op){.kind = write ? FL_IO_WRITE : FL_IO_READ, .disk = fl_iocost_host_disk(server, NULL), .bytes = bytes}));
done:
  return rc;
}

/* The operations of one level, written (`write` = 1) or read back. */
static fl_err fl_plan_level(fl_io_plan *pl, fl_level level, int write)
{
  fl_err rc = FL_OK;
  long nflows = pl->aggregated ? pl->ncab : pl->ranks;
  const char *disk_name = pl->gen ? "local" : pl->sc->storage_disk;

  for (long i = 0; i < nflows; i++) {
    double bytes, rate;
    sg_host_t h = fl_plan_host(pl, i, &bytes, &rate);
    switch (level) {
    case FL_LEVEL_LOCAL: FL_TRY(fl_plan_disk(pl, h, disk_name, write, pl->sc->checkpoint_size)); break;
    case FL_LEVEL_BUDDY: FL_TRY(fl_plan_partner(pl, i, h, write, bytes, rate)); break;
    case FL_LEVEL_XOR:
      /* SCR's XOR: each rank's checkpoint and its share of the set's parity, S / (g - 1), on its local disk; the
       * parity's reduce-scatter around the set's ring moves S per rank to the next member (one cabinet on: the
       * partner's path); a rebuild moves the same around the ring and reads the disks back */
      FL_TRY(
          fl_plan_disk(pl, h, disk_name, write, pl->sc->checkpoint_size * (1.0 + 1.0 / (double)(pl->xor_group - 1))));
      FL_TRY(fl_plan_partner(pl, i, h, write, bytes, rate));
      break;
    case FL_LEVEL_FILE: {
      long npfs = fl_platform_pfs_count(pl->pf), first, nsrv;
      if (npfs == 0) {
        rc = pl->gen ? fl_scenario_fail(pl->sc, "platform", "pfs_servers", "the file level needs PFS servers")
                     : fl_scenario_fail(pl->sc, "strategy", "cost",
                                        "the file level needs the PFS's hosts: set storage.pfs");
        goto done;
      }
      /* striped over the servers: rank r writes to server r mod P, so that each server receives R/P ranks' bytes
       * (give or take one), from every cabinet. Aggregated, up to FL_BY_SERVER_MAX cabinets, cabinet i sends to
       * each server the bytes of its ranks that striping sends there: the ranks' flows grouped by cabinet and
       * server, every server receiving exactly what it receives from the ranks (a partly filled cabinet's too),
       * and a cabinet's transfers differing by one rank's bytes at most. (Until 2026-11-27 every cabinet went to
       * the servers of its interval below: one to three cabinets a server with unequal transfers were 6.9 % to
       * 16 % slower than per-rank flows where the cabinets' uplinks and the servers' links were both near
       * saturation, 8,192 ranks in cabinets of 128 on 40 servers 14.6 %.) More cabinets (a transfer per cabinet
       * and server would cost the probe more than the ranks' own flows: at 1M nodes 2 million), cabinet i, running
       * ranks [r0, r1), sends to the servers of the interval [r0 P / R, r1 P / R), each its overlap's share:
       * every server receives R/P ranks' bytes, from tens of cabinets at that scale, where a transfer's share of a
       * server is a small part of it (within 0.4 % of per-rank flows at 300 cabinets, partly filled or not). */
      if (pl->aggregated && pl->by_server) {
        long r0 = i * pl->gen->cabinet, r1 = r0 + pl->gen->cabinet < pl->ranks ? r0 + pl->gen->cabinet : pl->ranks;
        for (long j = 0; j < npfs; j++) {
          double part = (double)(fl_striped(r1, j, npfs) - fl_striped(r0, j, npfs)) / (double)(r1 - r0);
          if (part > 0)
            FL_TRY(fl_plan_pfs(pl, h, j, write, bytes * part, rate * part));
        }
        break;
      }
      if (pl->aggregated) {
        long r0 = i * pl->gen->cabinet, r1 = r0 + pl->gen->cabinet;
        double a, b;
        r1 = r1 > pl->ranks ? pl->ranks : r1;
        if (r1 <= r0)
          break;
        a = (double)r0 * (double)npfs / (double)pl->ranks;
        b = (double)r1 * (double)npfs / (double)pl->ranks;
        first = (long)floor(a);
        nsrv = (long)ceil(b) - first;
        for (long j = 0; j < nsrv; j++) {
          double lo = fmax(a, (double)(first + j)), hi = fmin(b, (double)(first + j + 1)), share = (hi - lo) / (b - a);
          if (share > 0)
            FL_TRY(fl_plan_pfs(pl, h, (first + j) % npfs, write, bytes * share, rate * share));
        }
        break;
      }
      FL_TRY(fl_plan_pfs(pl, h, i % npfs, write, bytes, rate));
      break;
    }
    default: break;
    }
  }
done:
  return rc;
}

/* An asynchronous flush (strategy.flush = async): the file level's transfers and PFS writes, fed from the level
 * `stage` (its local disk read back as the data drains; a partner's memory costs no read), in the background.
 * Its interference: the job's own exchange with its neighbours (each rank to its partner, as a buddy copy goes)
 * run alone, then beside the flush; the ratio of the two times is the slowdown of the communicating share
 * (app.comm_fraction) of the job's time while a flush drains. Beside the job the flush streams: each of its
 * transfers runs at its bytes over the whole flush, the rate of its slowest stage (SimGrid runs a transfer and
 * the disk write it feeds side by side, so a PFS-bound flush would otherwise fill the links at full speed for a
 * moment instead of a little for all its length). The exchange is made small enough to end well within the
 * flush, so that it sees the flush's sharing throughout. */
static fl_err fl_iocost_flush(fl_io_plan *pl, fl_level stage, fl_iocost *out)
{
  fl_err rc = FL_OK;
  long napp;
  pl->n = 0;
  FL_TRY(fl_plan_level(pl, FL_LEVEL_FILE, 1));
  if (stage == FL_LEVEL_LOCAL || stage == FL_LEVEL_XOR) /* both keep the checkpoint on the local disk */
    FL_TRY(fl_plan_level(pl, FL_LEVEL_LOCAL, 0));
  out->flush_s = fl_probe_run(pl->pf, pl->ops, pl->n);
  if (!(pl->sc->comm_fraction > 0) || (pl->aggregated ? pl->ncab : pl->ranks) < 2 || !(out->flush_s > 0))
    goto done;
  for (double scale = 1e-2; scale >= 1e-6; scale /= 10.0) {
    double alone, with = 0.0;
    pl->n = 0;
    pl->scale = scale;
    FL_TRY(fl_plan_level(pl, FL_LEVEL_BUDDY, 1));
    napp = pl->n;
    alone = fl_probe_run(pl->pf, pl->ops, napp);
    pl->scale = 1.0;
    FL_TRY(fl_plan_level(pl, FL_LEVEL_FILE, 1));
    if (stage == FL_LEVEL_LOCAL || stage == FL_LEVEL_XOR)
      FL_TRY(fl_plan_level(pl, FL_LEVEL_LOCAL, 0));
    for (long i = napp; i < pl->n; i++)
      if (pl->ops[i].kind == FL_IO_SEND) {
        double stream = pl->ops[i].bytes / out->flush_s;
        pl->ops[i].rate = pl->ops[i].rate > 0 ? fmin(pl->ops[i].rate, stream) : stream;
      }
    fl_probe_run2(pl->pf, pl->ops, pl->n, napp, &with);
    if (with <= 0.5 * out->flush_s || scale < 1e-5) {
      out->flush_slowdown = alone > 0 ? pl->sc->comm_fraction * fmax(0.0, with / alone - 1.0) : 0.0;
      break;
    }
  }
done:
  pl->scale = 1.0;
  return rc;
}

fl_err fl_iocost_measure(fl_platform *pf, const fl_scenario *sc, long ranks, unsigned levels,
                         const unsigned written[FL_NLEVELS], long xor_group, fl_iocost *out)
{
  fl_err rc = FL_OK;
  fl_io_plan pl = {
      .pf = pf, .sc = sc, .ranks = ranks, .xor_group = xor_group, .gen = fl_platform_generated(pf), .scale = 1.0};
  fl_level stage = FL_LEVEL_SCRATCH; /* async flush: the level it drains from */

  for (int l = 0; l < FL_NLEVELS; l++)
    out->write_s[l] = out->read_s[l] = NAN;
  out->flows = 0;
  out->flush_s = NAN;
  out->flush_slowdown = 0.0;
  if (!(sc->checkpoint_size > 0)) {
    rc = fl_scenario_fail(sc, "app", "checkpoint_size", "platform costs need the bytes each rank checkpoints");
    goto done;
  }
  if (pl.gen && fl_platform_io(pf) == 0) {
    rc = fl_err_set(FL_ERR_INTERNAL, "the generated platform was built without its network");
    goto done;
  }
  if (!pl.gen && ranks > FL_IOCOST_FILE_MAX_RANKS) {
    rc = fl_scenario_fail(sc, "app", "nodes",
                          "%ld ranks: platform costs on a platform file move one flow per rank, at most %ld (a "
                          "generated platform aggregates flows per cabinet)",
                          ranks, FL_IOCOST_FILE_MAX_RANKS);
    goto done;
  }
  if (!pl.gen) {
    /* a platform file: its copies move between the job's nodes and to the PFS hosts, which must be routable */
    long npfs = (levels & FL_LEVEL_BIT(FL_LEVEL_FILE)) ? fl_platform_pfs_count(pf) : 0, nh = 0;
    sg_host_t *hs = malloc((size_t)(ranks + npfs + 1) * sizeof *hs);
    FL_CHECK(hs != NULL, FL_ERR_NOMEM, "out of memory");
    for (long i = 0; i < ranks; i++)
      hs[nh++] = fl_platform_host(pf, i);
    for (long j = 0; j < npfs; j++)
      hs[nh++] = fl_platform_pfs_host(pf, j);
    rc = fl_platform_check_routes(pf, sc, hs, nh, "checkpoint copies move between the job's nodes and to the PFS");
    free(hs);
    if (rc != FL_OK)
      goto done;
  }
  if (fl_strat_common(sc)->flush_async && (levels & FL_LEVEL_BIT(FL_LEVEL_FILE)))
    stage = (levels & FL_LEVEL_BIT(FL_LEVEL_XOR))     ? FL_LEVEL_XOR
            : (levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) ? FL_LEVEL_BUDDY
            : (levels & FL_LEVEL_BIT(FL_LEVEL_LOCAL)) ? FL_LEVEL_LOCAL
                                                      : FL_LEVEL_SCRATCH;
  pl.aggregated = pl.gen && fl_platform_io(pf) == FL_IO_AGGREGATED;
  if (pl.aggregated) {
    pl.ncab = (ranks + pl.gen->cabinet - 1) / pl.gen->cabinet;
    pl.by_server = pl.ncab <= FL_BY_SERVER_MAX;
  }
  out->aggregated = pl.aggregated;
  out->by_server = pl.aggregated && pl.by_server && (levels & FL_LEVEL_BIT(FL_LEVEL_FILE));
  for (int l = 1; l < FL_NLEVELS; l++) {
    if (!(levels & FL_LEVEL_BIT(l)))
      continue;
    pl.n = 0;
    for (int m = 1; m < FL_NLEVELS; m++)
      if (written[l] & FL_LEVEL_BIT(m))
        FL_TRY(fl_plan_level(&pl, (fl_level)m, 1));
    if (pl.n > out->flows)
      out->flows = pl.n;
    out->write_s[l] = fl_probe_run(pf, pl.ops, pl.n);
    pl.n = 0;
    FL_TRY(fl_plan_level(&pl, (fl_level)l, 0));
    out->read_s[l] = fl_probe_run(pf, pl.ops, pl.n);
  }
  if (stage != FL_LEVEL_SCRATCH)
    FL_TRY(fl_iocost_flush(&pl, stage, out));
done:
  free(pl.ops);
  return rc;
}
