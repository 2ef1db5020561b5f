/* sched_keys.h — app.scheduler, the one key both scheduler registries are chosen by: a workload's batch scheduler
 * (batch.h: fcfs, easy, conservative) and a workflow's static one (dag.h: heft, min-min). Declared here, beside the
 * registries, and registered once (apps/registries.c); each app looks the name up in its own registry and refuses
 * one it does not have, naming what it has. */
#ifndef FL_SCHED_KEYS_H
#define FL_SCHED_KEYS_H

#include "keys.h"

extern const fl_keyset fl_sched_keys;
/* app.scheduler as given, else its default ("easy"; a workflow takes heft unless it is given). */
const char *fl_sched_name(const fl_scenario *sc);

#endif
