/* imc.h — in-memory buddy checkpoints over MPI, the GPI CP protocol (seed 004) in C.
 *
 * A description protects `bytes` of application state. As in GPI CP, the application writes the state into the
 * checkpoint's own buffer (fl_imc_buffer: the local snapshot, no extra copy), then `start(v)` sends it,
 * non-blocking, to the role that mirrors it (ring: the next role; pair: the partner) and receives the snapshot
 * it mirrors; it returns at once, so computation overlaps the transfer. `commit` completes the
 * transfers and agrees, with a deadline, that version v is complete on every active role; only then does v
 * replace the committed version. Three slots per buffer (committed, previous, in flight) keep the previous
 * version while a new one is written, so a failure during a commit still finds a version every survivor has.
 * After fl_rt_recover, `restore` gives every active role the agreed version: survivors from their own snapshot,
 * a promoted spare from the mirror of the failed role's buddy. Several descriptions may coexist (`id`). */
#ifndef FL_IMC_H
#define FL_IMC_H

#include "rt.h"

#include <stddef.h>

typedef struct fl_imc fl_imc;

/* NULL on allocation failure. */
fl_imc *fl_imc_create(fl_rt *rt, size_t bytes, int id);
void fl_imc_destroy(fl_imc **imc);

/* The buffer the next start sends (bytes long): fill it, then start. */
void *fl_imc_buffer(fl_imc *imc);
int fl_imc_start(fl_imc *imc, long version);
/* Copy data into fl_imc_buffer, then start. */
int fl_imc_start_copy(fl_imc *imc, const void *data, long version);
int fl_imc_commit(fl_imc *imc);
/* As fl_imc_start, sending only the first `n` bytes of the buffer (n <= bytes; compressed checkpoints). The
 * mirror receives at most `bytes`; the payload must say its own length. */
int fl_imc_start_n(fl_imc *imc, long version, size_t n);
/* The committed version's local snapshot and the mirror I hold of my source role (NULL when none). */
const void *fl_imc_committed_snapshot(const fl_imc *imc);
const void *fl_imc_committed_mirror(const fl_imc *imc);
/* My committed versions, newest first (-1 where none). */
void fl_imc_versions(const fl_imc *imc, long versions[2]);
/* After a successful fl_rt_recover: the agreed version into data. FL_RT_LOST if it is not here (never with the
 * protocol's guarantees), FL_RT_FAILED if a peer died meanwhile. */
int fl_imc_restore(fl_imc *imc, void *data);
/* An injected loss (every process lives, no recovery agreed): the roles marked in lost[] (by role) lost their
 * memory and get their committed version back from the role that mirrors it; every other role copies its own
 * committed snapshot. Into data, on every active role. FL_RT_LOST when no version is committed or a lost role's
 * mirror was lost too (or is its own), FL_RT_FAILED if a peer died meanwhile. */
int fl_imc_refetch(fl_imc *imc, const unsigned char *lost, void *data);
/* 1 when every role marked in lost[] has its mirror on a role not marked (one whose memory is intact). */
int fl_imc_copies_kept(const fl_rt *rt, const unsigned char *lost);

/* Forget a transfer a failure interrupted (its buffers go to the runtime: the request may still write them). */
void fl_imc_drop_pending(fl_imc *imc);

/* Statistics: committed checkpoints, bytes sent to mirrors, time spent in commit. */
long fl_imc_commits(const fl_imc *imc);
double fl_imc_bytes(const fl_imc *imc);
double fl_imc_commit_s(const fl_imc *imc);

#endif
