/* sched_keys.c — see sched_keys.h. */
#include "sched_keys.h"

#include <stddef.h>

typedef struct fl_sched_opts {
  char *scheduler;
} fl_sched_opts;

static const fl_key fl_sched_key_table[] = {
    {"app", "scheduler", FL_K_STR, offsetof(fl_sched_opts, scheduler), 0, "easy", NULL,
     "workload: the batch scheduler, fcfs | easy | conservative (backfilling on the trace's requested times: EASY "
     "protects the first waiting job, conservative every one); workflow: the static scheduler, heft (when not "
     "given) | min-min"},
};

const fl_keyset fl_sched_keys = {"the schedulers", sizeof(fl_sched_opts), fl_sched_key_table,
                                 FL_KEYS_N(fl_sched_key_table), NULL};

const char *fl_sched_name(const fl_scenario *sc)
{
  return ((const fl_sched_opts *)fl_scenario_options(sc, &fl_sched_keys))->scheduler;
}
