/* iocost.h — checkpoint and restart costs from the platform (strategy.cost = platform).
 *
 * A coordinated checkpoint of the job at a level is simulated once, before the replicas, as SimGrid transfers
 * and disk accesses of app.checkpoint_size bytes per rank, all started at once so that they share the links'
 * and disks' bandwidth through SimGrid's own sharing model:
 *   local:   each rank writes to its node's disk (storage.disk, else the host's first disk);
 *   buddy:   each rank sends to its partner's node (the same rank of the next cabinet on generated platforms,
 *            the next rank on platform files) — memory at the partner is not the bottleneck;
 *   file:    each rank sends to a PFS server (rank mod servers: striped) while that server's disk writes the
 *            bytes.
 * A restart reads the same back (disk reads, transfers the other way). The job's ranks are on their initial
 * nodes. With aggregated flows (generated platforms) one transfer per cabinet carries its ranks' bytes over the
 * cabinet's I/O host, whose link is the sum of its nodes' links; a cabinet only partly running ranks has its
 * transfer bounded by its busy nodes' links. The figures are the costs every checkpoint and
 * restart of the run then pays (docs/platform-costs.md). */
#ifndef FL_IOCOST_H
#define FL_IOCOST_H

#include "fl_err.h"
#include "platform.h"
#include "scenario.h"
#include "strategy.h"

#define FL_IOCOST_FILE_MAX_RANKS 100000L /* platform files: one flow per rank, at most this many */

typedef struct fl_iocost {
  double write_s[FL_NLEVELS]; /* a checkpoint at the level, as the strategy writes it (NAN: not measured) */
  double read_s[FL_NLEVELS];  /* a restart from the level */
  long flows;                 /* transfers and disk accesses started per operation, at most */
  int aggregated;             /* 1: one flow per cabinet */
  int by_server;              /* aggregated file level split per server as the ranks' striping (few cabinets; since
                               * 2026-11-27: rows priced before re-simulate with other costs) */
  double flush_s;             /* strategy.flush = async: the file level drained in the background (NAN: none) */
  double flush_slowdown;      /* meanwhile, the fraction by which the job's compute slows (app.comm_fraction) */
} fl_iocost;

/* Whether the scenario's costs come from the platform (strategy.cost, resolved for `auto`). *why names what is
 * missing when `auto` falls back to constant costs (static string), or NULL. */
int fl_iocost_wanted(const fl_scenario *sc, unsigned levels, const char **why);
/* The generated platform's form for it, from platform.io_flows and the platform's size (not the job's, so that
 * a sweep over app.nodes shares one platform): FL_IO_PER_RANK or FL_IO_AGGREGATED. */
int fl_iocost_form(const fl_scenario *sc, long nodes);
/* Where rank r's buddy copy goes: rank r + this (the same rank of the next cabinet on a generated platform with
 * its network, else the next rank). The simulator's failure logic uses the same placement. */
long fl_iocost_partner_step(const fl_platform *pf, long ranks);
/* The disk of `host` named `name` (NULL: its first), or NULL. */
sg_disk_t fl_iocost_host_disk(sg_host_t host, const char *name);
/* Simulate a checkpoint and a restart at every level in `levels` for `ranks` ranks on nodes 0..ranks-1.
 * `written[l]` is the set of levels a checkpoint of level l writes at once (FL_LEVEL_BIT()s); `xor_group`: ranks
 * per XOR set (the XOR level's). FL_ERR_INPUT naming the key when the platform lacks the storage (no disk of that
 * name, no PFS server). */
fl_err fl_iocost_measure(fl_platform *pf, const fl_scenario *sc, long ranks, unsigned levels,
                         const unsigned written[FL_NLEVELS], long xor_group, fl_iocost *out);

#endif
