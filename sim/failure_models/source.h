/* source.h — the failure/repair timeline of a platform's nodes for one replica, independent of any job.
 *
 * Renewal models: every node is its own renewal process, with exactly one pending event (its next failure, or
 * its repair while down), kept in a binary heap: O(log n) per event, 16 bytes per node. To start, one uniform
 * per node is drawn; laws drawn by inversion (exponential, Weibull: fl_fm_by_inversion) compute the times, and
 * heap the events, only of the nodes that may fail next, a band of the uniforms' range at a time (the others'
 * uniforms are drawn again from a copy of the stream when their band is reached): the same events, bit for bit,
 * as drawing and heaping every node at once, which other laws do (and fl_fsrc_config.eager). At a million nodes
 * a replica's start costs the million uniforms, not a million logarithms and a heapify (source.c).
 * Trace: the recorded failures, plus their repairs.
 * The events depend only on (model, nodes, repair, seed, replica): two strategies simulated with the same
 * seed see the same failures.
 *
 * Group failures (a cabinet, a switch, a power domain): on top of the model, groups of consecutive nodes fail
 * together, exponentially at 1 / group_mtbf each, drawn from their own stream (so the groups' dates do not
 * depend on the nodes' failures; a node a group took down draws its next failure afresh after its repair). A
 * group failure is one FL_FSRC_FAILURE per member that is up, all at its date;
 * each member comes back after the repair time and then resumes its own renewal process.
 *
 * Bursts (failures.burst_ratio): each failure spawns offspring failures on random nodes soon after (a Hawkes
 * process, see fl_fsrc_next), from their own stream. */
#ifndef FL_FSRC_H
#define FL_FSRC_H

#include "fm.h"

#include <stdint.h>

/* FL_FSRC_DOWN_AT_START: a node that is already down when the run starts (failures.start = steady); it is not a
 * failure of the run, only a node missing from the start. */
typedef enum fl_fsrc_kind { FL_FSRC_FAILURE = 0, FL_FSRC_REPAIR = 1, FL_FSRC_DOWN_AT_START = 2 } fl_fsrc_kind;

typedef struct fl_fsrc fl_fsrc;

/* A node's availability profile (a SimGrid state_file, read by sim/platforms/profiles.c): outages of its first
 * play, then of every later play k >= 1 (dates from k * period). Each outage takes the node down if it is up and
 * brings it back after its duration (INFINITY: never). */
typedef struct fl_fsrc_profile {
  long node;
  const double *first_t, *first_dur;
  size_t nfirst;
  const double *steady_t, *steady_dur;
  size_t nsteady;
  double period; /* INFINITY: played once */
} fl_fsrc_profile;

typedef struct fl_fsrc_config {
  const fl_fm *fm;
  long nodes;                      /* nodes that can fail */
  double repair_s;                 /* downtime after a failure; INFINITY = never repaired */
  int start;                       /* fl_start: stationary, fresh, or steady (a node may be down at t=0) */
  uint64_t seed, replica;          /* stream FL_STREAM_FAILURES of this replica */
  const long *trace_node;          /* trace model: node index of each trace record (resolved by the caller) */
  int trace_elsewhere;             /* 1: the engine places the trace's records itself (failures.trace_clock = work) */
  long group_size;                 /* group failures: nodes g*group_size .. (g+1)*group_size-1 fail together */
  double group_mtbf_s;             /* mean time between failures of ONE group; INFINITY (or 0 group_size): none */
  double burst_ratio;              /* bursts: offspring failures per failure (< 1); 0: none */
  double burst_time_s;             /* mean delay of an offspring failure */
  const fl_fsrc_profile *profiles; /* outages the platform declares, on top of the model (borrowed) */
  size_t nprofiles;
  int eager; /* 1: draw every node's first failure time at once (tests; the default computes a time
              * from its stored uniform only when it may be next: the same events, see source.c) */
} fl_fsrc_config;

fl_err fl_fsrc_create(const fl_fsrc_config *cfg, fl_fsrc **out);
void fl_fsrc_destroy(fl_fsrc **src);

/* Time of the next event, INFINITY when none is left (drops events a group failure made stale). */
double fl_fsrc_peek(fl_fsrc *src);
/* Take the next event; returns 0 when none is left. A trace failure of a node that is already down is
 * dropped (it cannot fail twice). */
int fl_fsrc_next(fl_fsrc *src, double *t_s, long *node, fl_fsrc_kind *kind);
/* If the next event is a node down at the start (failures.start = steady), take it like fl_fsrc_next and return
 * 1; else take nothing and return 0. Lets an engine set the initial state up before the run begins. */
int fl_fsrc_next_down_at_start(fl_fsrc *src, long *node);
/* 1 if `node` is up. */
int fl_fsrc_node_up(const fl_fsrc *src, long node);
/* Down nodes that will come back (0 with repair = never: a job short of nodes then cannot go on). */
long fl_fsrc_pending_repairs(const fl_fsrc *src);

#endif
