/* tmr_cmd.h — `faultline tmr`: run a kernel under TMR with injected silent data corruptions, N trials, one
 * results-DB row (mode "real") per trial with its `sdc` and `vote` events. The CLI's table names it by these. */
#ifndef FL_TMR_CMD_H
#define FL_TMR_CMD_H

#define FL_TMR_CMD_ARGS                                                                                                \
  "[--kernel axpy|chain|diffusion|gridworld] [--n N] [--steps S] [--trials N] [--sdc R] [--target output|input]"       \
  " [--mode tmr|dual] [--vote bitwise|abs=T,rel=T] [--retries N] [--backend auto|cpu|cuda]"                            \
  " [--concurrency auto|on|off] [--seed S] [--db FILE] [--name NAME] [--quiet]"
#define FL_TMR_CMD_SUMMARY                                                                                             \
  "run a kernel as 3 replicas with a vote under injected SDCs; one real-mode row per trial in the results database"

/* argv[0] is "tmr". Exit status: 0 done, 1 run or environment failure, 2 bad arguments (nothing written). */
int fl_tmr_cmd(int argc, char **argv);

#endif
