/* tmr_impl.h — what the TMR front end (tmr.c) and its backends (cpu.c, cuda.c + cuda_impl.cu) share.
 *
 * The front end owns everything that must be the same on every backend: checking the task, drawing and checking
 * the faults, the retry loop, the result. A backend does one attempt at a time: run the replicas of a task with
 * the faults of that attempt applied, vote, and leave the voted output where finish() will hand it over.
 * Included by C and by CUDA C++ (nvcc): plain structs only. */
#ifndef FL_TMR_IMPL_H
#define FL_TMR_IMPL_H

#include "tmr.h"
#include "vote.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A fault resolved against the kernels of a run: every field drawn and checked. */
typedef struct fl_tmr_rfault {
  int replica, stage, array, bit, persistent;
  fl_tmr_target target;
  long element;
} fl_tmr_rfault;

/* One attempt over kernels [stage0, stage0 + nk) of a run: what to run and what to inject. */
typedef struct fl_tmr_exec {
  fl_tmr_vote_params vote; /* vote.replicas: 2 or 3 */
  int concurrent;          /* resolved: 0 in turn, 1 concurrent, 2 (cuda, auto) chunks overlapped on two streams */
  const fl_tmr_rfault *faults; /* those of this attempt; their stage is absolute (stage0 + j) */
  long nfaults;
  int stage0;
  /* from[j][i]: the output (p FL_TMR_MAX_ARRAYS + k, of kernel p < j of this call) that input i of kernel j
   * reads, or -1 for memory from outside the call; a replica other than 0 reads its own copy of it */
  int from[FL_TMR_MAX_STAGES][FL_TMR_MAX_ARRAYS];
  void *stream; /* the caller's stream (cuda) */
} fl_tmr_exec;

/* What a vote found, over a range or an attempt. */
typedef struct fl_tmr_tally {
  long benign, corrected, nomajority; /* nomajority: uncorrectable (TMR) or detected (dual) */
  long outvoted[3];
  long npositions; /* listed, <= FL_TMR_MAX_POSITIONS */
  long ntotal;     /* corrected + nomajority: how many could have been listed */
  fl_tmr_mismatch positions[FL_TMR_MAX_POSITIONS];
} fl_tmr_tally;

/* A backend runs kernel definitions on its own memory (host or device). The built-in tasks (host arrays) become
 * definitions through builtin(), which on a GPU copies the inputs in; builtin_finish() hands the outputs back. */
typedef struct fl_tmr_backend_ops {
  const char *name;
  /* 1 if the backend can run here; why (len > 0) gets a one-line reason either way. */
  int (*probe)(char *why, size_t len);
  fl_err (*create)(const fl_tmr_config *cfg, void **state);
  void (*destroy)(void **state);
  /* How these kernels run their replicas under FL_TMR_AUTO: fl_tmr_exec.concurrent's values. */
  int (*auto_concurrent)(void *state, const fl_tmr_kernel_def *k, int nk);
  /* The replicas of kernels k[0 .. nk) with exec's faults, then the vote of every output of every kernel; the
   * caller zeroes tally's counters (not its positions). */
  fl_err (*attempt)(void *state, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec, fl_tmr_tally *tally);
  /* One unprotected execution of each kernel, in order, done when it returns. */
  fl_err (*plain)(void *state, const fl_tmr_kernel_def *k, int nk, void *stream);
  /* The definition that runs built-in `task` here (inputs made visible to the device), and the hand-back. */
  fl_err (*builtin)(void *state, const fl_tmr_task *task, fl_tmr_kernel_def *def);
  fl_err (*builtin_finish)(void *state, const fl_tmr_task *task);
} fl_tmr_backend_ops;

extern const fl_tmr_backend_ops fl_tmr_cpu_ops;
extern const fl_tmr_backend_ops fl_tmr_cuda_ops;

/* Host vote of n elements of one output array of type `type`: r0, r1, r2 point at element `base` of replicas 0,
 * 1, 2 (r2 is NULL in dual mode). r0 is replica 0's copy, the caller's output, patched in place. Adds to tally;
 * positions are appended in index order while there is room. */
void fl_tmr_vote_range(fl_tmr_type type, void *r0, const void *r1, const void *r2, long n, long base, int stage,
                       int array, const fl_tmr_vote_params *v, fl_tmr_tally *tally);
/* Add `part` to `sum`, its positions after sum's (so that ranges merged in order stay in index order). */
void fl_tmr_tally_merge(fl_tmr_tally *sum, const fl_tmr_tally *part);

/* Flip bit `bit` of element `element` (of `size` bytes) of p: bit b of the element's little-endian pattern. */
void fl_tmr_flip(void *p, size_t size, long element, int bit);

/* The launch of replica 0 over the kernel's own buffers, whole (an unprotected run), on `stream`. */
void fl_tmr_launch_whole(fl_tmr_launch *l, const fl_tmr_kernel_def *d, void *stream);

/* Monotonic wall clock, seconds. */
double fl_tmr_now(void);

#ifdef __cplusplus
}
#endif

#endif
