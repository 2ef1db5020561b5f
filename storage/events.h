/* events.h — the vocabulary of the `events` table: every kind of timed event the engines log, as data.
 *
 * An event is a row of typed columns (time, kind code, node, rank, peer, count, value, level, label), not a
 * formatted string: logging one costs a few stores, and readers query numbers. The kind codes and their text
 * form live in this one list, which the database writes into its `event_kinds` table and from which it builds
 * the `events_text` view (the sentence a person reads, e.g. "rank 892 moves to node 1055"). A code is stored in
 * results files: never renumber an entry, only add new ones (codes below 1000; 1000 and up are kinds read from
 * files of older versions that this list does not know).
 *
 * Several codes may share a name ("failure" of a spare, of a rank that moves, of a copy): the name is what a
 * timeline groups by, the variant says which columns are filled. Column meanings:
 *   node  the host the event concerns (index in the platform)      rank  the rank, task, or TMR replica
 *   peer  the other one: the node a rank moves to, the task that   n     a count: sweep, copies left,
 *         substitutes, a copy's number, a TMR array                      corruptions, an event budget
 *   value seconds of work (committed, lost, drained)               level a checkpoint level ("buddy", "file")
 *   label a name (a workflow task, a host) or, for the rare kinds of the GPU engine, its detail */
#ifndef FL_EVENTS_H
#define FL_EVENTS_H

/* A node lost (`failure`) or found down when the run began (`down-at-start`, failures.start = steady): the same
 * variants, codes base + 1 .. base + 6 */
#define FL_EV_NODE_LOST(X, P, base, name, when)                                                                        \
  X(FL_EV_##P##_SPARE, base + 1, name, "spare", "a spare node " when, "'spare'")                                       \
  X(FL_EV_##P##_MOVE, base + 2, name, "move", "a rank's node " when "; the rank moves to a spare (peer)",              \
    "printf('rank %d moves to node %d', rank, peer)")                                                                  \
  X(FL_EV_##P##_TASK, base + 3, name, "task", "a task's host " when, "printf('task %d loses its host', rank)")         \
  X(FL_EV_##P##_WAIT, base + 4, name, "wait", "a rank's node " when " and no spare is left",                           \
    "printf('rank %d waits for a node', rank)")                                                                        \
  X(FL_EV_##P##_COPY, base + 5, name, "copy", "a replica's node " when " (copy peer of rank, n copies left)",          \
    "printf('copy %d of rank %d, %d left', peer, rank, n)")                                                            \
  X(FL_EV_##P##_HOST, base + 6, name, "host", "a workflow host " when, "printf('host %s', label)")

/* X(ENUM, code, "name", "variant", "doc line", "SQL expression of the detail over the row's columns") */
#define FL_EVENT_KINDS(X)                                                                                              \
  FL_EV_NODE_LOST(X, FAILURE, 0, "failure", "failed")                                                                  \
  FL_EV_NODE_LOST(X, START, 10, "down-at-start", "was down when the run began")                                        \
  X(FL_EV_REPAIR_TASK, 21, "repair", "task", "a repaired node hosts a task", "printf('hosts task %d', rank)")          \
  X(FL_EV_REPAIR_RANK, 22, "repair", "rank", "a repaired node takes a waiting rank", "printf('takes rank %d', rank)")  \
  X(FL_EV_REPAIR_SPARE, 23, "repair", "spare", "a repaired node becomes a spare", "'spare'")                           \
  X(FL_EV_REPAIR_HOST, 24, "repair", "host", "a workflow host is back", "printf('host %s', label)")                    \
  X(FL_EV_PROCESS_FAILURE, 31, "process-failure", "", "a rank's process crashed, its node lives",                      \
    "printf('rank %d crashed, its node lives', rank)")                                                                 \
  X(FL_EV_BUDGET, 32, "budget", "", "the event budget run.max_events (n) was reached",                                 \
    "printf('run.max_events = %d reached', n)")                                                                        \
  X(FL_EV_INTERRUPTION, 41, "interruption", "lost", "the job stopped; value seconds of work lost",                     \
    "printf('lost %.6gs', value)")                                                                                     \
  X(FL_EV_INTERRUPTION_RESTART, 42, "interruption", "restart", "a failure during a restart", "'during restart'")       \
  X(FL_EV_RESTART_LEVEL, 43, "restart", "level", "restart from a checkpoint level",                                    \
    "printf('from the %s level', level)")                                                                              \
  X(FL_EV_RESTART_CHECKPOINT, 44, "restart", "checkpoint", "restart from the checkpoint", "'from checkpoint'")         \
  X(FL_EV_RESTART_SCRATCH, 45, "restart", "scratch", "restart from the beginning", "'from scratch'")                   \
  X(FL_EV_ROLLBACK, 46, "rollback", "", "the newest commit was lost; back to an older level holding value s of work",  \
    "printf('back to the %s level, work %.6gs', level, value)")                                                        \
  X(FL_EV_DATA_LOST, 47, "data-lost", "", "every copy of the state was lost; value s of work lost",                    \
    "printf('work %.6gs lost, restart from scratch', value)")                                                          \
  X(FL_EV_CHECKPOINT, 51, "checkpoint", "", "a checkpoint committed value s of work", "printf('work %.6gs', value)")   \
  X(FL_EV_CHECKPOINT_LEVEL, 52, "checkpoint", "level", "a checkpoint of one level committed value s of work",          \
    "printf('work %.6gs, %s level', value, level)")                                                                    \
  X(FL_EV_CHECKPOINT_DRAIN, 53, "checkpoint", "drain", "a checkpoint staged at level, draining to the file level",     \
    "printf('work %.6gs, %s level, draining to the file level', value, level)")                                        \
  X(FL_EV_FLUSH, 54, "flush", "", "an asynchronous flush put value s of work on the file level",                       \
    "printf('work %.6gs on the file level', value)")                                                                   \
  X(FL_EV_FLUSH_LOST, 55, "flush-lost", "", "a flush under way was lost", "printf('work %.6gs not drained', value)")   \
  X(FL_EV_SDC_DETECTED, 61, "sdc-detected", "", "a verification caught a corruption; value s of work lost",            \
    "printf('corrupted state, lost %.6gs', value)")                                                                    \
  X(FL_EV_SDC_CORRECTED, 62, "sdc-corrected", "", "n corruptions outvoted by triplication",                            \
    "printf('%d outvoted', n)")                                                                                        \
  X(FL_EV_SDC_SILENT, 63, "sdc-silent", "", "n corruptions escaped verification and were committed",                   \
    "printf('%d corruption%s committed', n, CASE n WHEN 1 THEN '' ELSE 's' END)")                                      \
  X(FL_EV_STALE_NEIGHBOUR, 71, "stale", "neighbour", "a failed task kept its old value: no live neighbour (sweep n)",  \
    "printf('task %d, sweep %d: no live neighbour', rank, n)")                                                         \
  X(FL_EV_STALE_SPARE, 72, "stale", "spare", "a failed task kept its old value: no spare (sweep n)",                   \
    "printf('task %d, sweep %d: no spare', rank, n)")                                                                  \
  X(FL_EV_STALE_RERUN, 73, "stale", "rerun", "a failed task's re-execution was lost too (sweep n)",                    \
    "printf('task %d, sweep %d: re-run lost', rank, n)")                                                               \
  X(FL_EV_SUBSTITUTION_TASK, 74, "substitution", "task", "task rank substituted by task peer (sweep n)",               \
    "printf('task %d by task %d, sweep %d', rank, peer, n)")                                                           \
  X(FL_EV_REPLICATION_TASK, 75, "replication", "task", "task rank re-executed on node (sweep n)",                      \
    "printf('task %d, sweep %d', rank, n)")                                                                            \
  X(FL_EV_SUBSTITUTION_WF, 76, "substitution", "workflow", "a failed workflow task substituted",                       \
    "printf('task %s', label)")                                                                                        \
  X(FL_EV_REPLICATION_WF, 77, "replication", "workflow", "a failed workflow task re-executed on node",                 \
    "printf('task %s', label)")                                                                                        \
  X(FL_EV_TMR_SDC, 81, "sdc", "tmr", "a bit flip injected into a TMR replica (detail in label)", "label")              \
  X(FL_EV_TMR_VOTE, 82, "vote", "tmr", "the TMR vote of a trial (detail in label)", "label")                           \
  X(FL_EV_REAL_FAILURE, 91, "failure", "process",                                                                      \
    "real: a process of the job was found dead (node: the process, rank: its role; peer: the process that takes the "  \
    "role over, none if no spare was left)",                                                                           \
    "printf('process %d (role %d) died', node, rank)")                                                                 \
  X(FL_EV_REAL_DETECTION, 92, "detection", "", "real: a dead process suspected, value s after the wait began",         \
    "printf('after %.3gs', value)")                                                                                    \
  X(FL_EV_REAL_RECOVERY, 93, "recovery", "",                                                                           \
    "real: the survivors agreed on a recovery (n processes dead), in value s",                                         \
    "printf('%d dead, agreed in %.3gs', n, value)")                                                                    \
  X(FL_EV_REAL_CHECKPOINT, 94, "checkpoint", "iteration",                                                              \
    "real: a checkpoint of level committed before iteration n, in value s",                                            \
    "printf('iteration %d, %s level, %.3gs', n, level, value)")                                                        \
  X(FL_EV_REAL_LOSS, 95, "failure", "data",                                                                            \
    "real: a role's data wiped while its process lives (an injected loss; node: the process, rank: the role)",         \
    "printf('role %d lost its data', rank)")                                                                           \
  X(FL_EV_REAL_CORRUPT, 96, "corrupt", "checkpoint",                                                                   \
    "real: a role's file-level checkpoint version could not be restored (a checksum, a torn file; node: the "          \
    "process, rank: the role, label: the version); the newest version intact on every role was used",                  \
    "printf('role %d: %s corrupt', rank, label)")                                                                      \
  X(FL_EV_JOB_START, 101, "job-start", "", "workload: job rank (the trace's number) starts on n nodes",                \
    "printf('job %d on %d nodes', rank, n)")                                                                           \
  X(FL_EV_JOB_END, 102, "job-end", "", "workload: job rank finished", "printf('job %d done', rank)")                   \
  X(FL_EV_FAILURE_JOB, 103, "failure", "job",                                                                          \
    "workload: a node of job rank failed; value s of its compute lost; n = 1: it restarted in place on its nodes",     \
    "printf('job %d loses %.6gs', rank, value)")                                                                       \
  X(FL_EV_FAILURE_IDLE, 104, "failure", "idle", "workload: a node that held no job failed", "'idle node'")             \
  X(FL_EV_REPAIR_IDLE, 105, "repair", "idle", "workload: a failed node is back", "'back'")                             \
  X(FL_EV_CHECKPOINT_JOB, 106, "checkpoint", "job", "workload: job rank committed a checkpoint of value s of work",    \
    "printf('job %d, work %.6gs', rank, value)")                                                                       \
  X(FL_EV_RESTART_JOB, 107, "restart", "job", "workload: job rank read back its checkpoint of value s of work",        \
    "printf('job %d from work %.6gs', rank, value)")                                                                   \
  X(FL_EV_FAILURE_JOB_COPY, 108, "failure", "job-copy",                                                                \
    "workload, replication: a node of a copy of job rank failed; masked, n live copies of that rank left",             \
    "printf('job %d, %d copies of the rank left', rank, n)")                                                           \
  X(FL_EV_WF_TASK, 121, "task", "",                                                                                    \
    "workflow: task label (rank: its number) ran on node for value s; n = 1: killed by its host's failure",            \
    "printf('%s %.6gs%s', label, value, CASE n WHEN 1 THEN ', killed' ELSE '' END)")                                   \
  X(FL_EV_WF_TRANSFER, 122, "transfer", "",                                                                            \
    "workflow: task label's output, n bytes, moved from node to peer in value s",                                      \
    "printf('%s: %d bytes to node %d, %.6gs', label, n, peer, value)")                                                 \
  FL_EV_PHASES(X)

/* The job's phases (bsp, gridworld): logged when one ends, at its end, value its length in seconds (it began at
 * t_s - value), n = 1 when a failure cut it short; a timeline draws them as bars (report --timeline, --trace). */
#define FL_EV_PHASES(X)                                                                                                \
  X(FL_EV_PHASE_COMPUTE, 111, "phase", "compute", "the job computed for value s (n = 1: interrupted)",                 \
    "printf('compute %.6gs%s', value, CASE n WHEN 1 THEN ', interrupted' ELSE '' END)")                                \
  X(FL_EV_PHASE_CHECKPOINT, 112, "phase", "checkpoint", "the job wrote a checkpoint for value s (n = 1: interrupted)", \
    "printf('checkpoint %.6gs%s', value, CASE n WHEN 1 THEN ', interrupted' ELSE '' END)")                             \
  X(FL_EV_PHASE_RESTART, 113, "phase", "restart", "the job read its state back for value s (n = 1: interrupted)",      \
    "printf('restart %.6gs%s', value, CASE n WHEN 1 THEN ', interrupted' ELSE '' END)")                                \
  X(FL_EV_PHASE_DOWNTIME, 114, "phase", "downtime", "the job was down for value s after an interruption",              \
    "printf('downtime %.6gs', value)")                                                                                 \
  X(FL_EV_PHASE_WAIT, 115, "phase", "wait", "the job waited value s for a node (no spare left)",                       \
    "printf('waiting for nodes %.6gs', value)")                                                                        \
  X(FL_EV_PHASE_VERIFY, 116, "phase", "verify", "the job verified its state for value s (n = 1: interrupted)",         \
    "printf('verify %.6gs%s', value, CASE n WHEN 1 THEN ', interrupted' ELSE '' END)")

typedef enum fl_ev_kind {
#define FL_EV_ENUM(e, code, name, variant, doc, sql) e = code,
  FL_EVENT_KINDS(FL_EV_ENUM)
#undef FL_EV_ENUM
} fl_ev_kind;

/* Codes from this number on name kinds read from older files that the list above does not know. */
#define FL_EV_LEGACY_CODE 1000

/* The kind's name ("failure"), or NULL for a code not in the list. */
const char *fl_ev_kind_name(int code);

#endif
