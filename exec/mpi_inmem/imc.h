/* imc.h — in-memory buddy checkpoints over MPI, the GPI CP protocol (seed 004) in C.
 *
 * A description protects `bytes` of application state. `start(v)` copies the state into a local snapshot and
 * sends it, non-blocking, to the role that mirrors it (ring: the next role; pair: the partner), while receiving
 * the snapshot it mirrors; it returns at once, so computation overlaps the transfer. `commit` completes the
 * transfers and agrees, with a deadline, that version v is complete on every active role; only then does v
 * replace the committed version. Three slots per buffer (committed, previous, in flight) keep the previous
 * version while a new one is written, so a failure during a commit still finds a version every survivor has.
 * After fl_rt_recover, `restore` gives every active role the agreed version: survivors from their own snapshot,
 * a promoted spare from the mirror of the failed role's buddy. Several descriptions may coexist (`id`). */
#ifndef FL_IMC_H
#define FL_IMC_H

#include <stddef.h>

#include "rt.h"

typedef struct fl_imc fl_imc;

/* NULL on allocation failure. */
fl_imc *fl_imc_create(fl_rt *rt, size_t bytes, int id);
void fl_imc_destroy(fl_imc **imc);

int fl_imc_start(fl_imc *imc, const void *data, long version);
int fl_imc_commit(fl_imc *imc);
/* My committed versions, newest first (-1 where none). */
void fl_imc_versions(const fl_imc *imc, long versions[2]);
/* After a successful fl_rt_recover: the agreed version into data. FL_RT_LOST if it is not here (never with the
 * protocol's guarantees), FL_RT_FAILED if a peer died meanwhile. */
int fl_imc_restore(fl_imc *imc, void *data);

/* Statistics: committed checkpoints, bytes sent to mirrors, time spent in commit. */
long fl_imc_commits(const fl_imc *imc);
double fl_imc_bytes(const fl_imc *imc);
double fl_imc_commit_s(const fl_imc *imc);

#endif
