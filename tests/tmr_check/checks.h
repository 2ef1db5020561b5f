/* checks.h — the TMR checks and measurements of user kernels (fl_tmr_kernel_def), on any backend.
 *
 * One code for the CUnit suite (tests/exec/test_tmr_user.c, CPU) and for the self-contained program
 * faultline-tmr-check (tmr_check/main.c), which is carried to a machine with a GPU and run there with nothing but
 * the C library and a driver. An environment says how to allocate, copy and launch where the backend's data lives:
 * host memory and C loops for "cpu" (kernels_cpu.c), device memory and CUDA kernels for "cuda" (kernels_cuda.cu).
 * The kernels are written as a user of the API would write them: they know nothing of replicas. */
#ifndef FL_TMR_CHECKS_H
#define FL_TMR_CHECKS_H

#include "tmr.h"

#include <stdio.h>

/* What the kernels read: arg of every launch. */
typedef struct tmr_args {
  long n;     /* elements */
  long steps; /* chain: dependent steps per element */
  double a;
  int calls;  /* launches seen (CPU kernels count them, ranges included) */
  int ranged; /* launches that computed a strict sub-range */
  const struct tmr_env *env; /* for launch wrappers that need it */
} tmr_args;

/* The items a launch computes: [first, last) when the kernel computes ranges and was given one, else [0, n); counts
 * the launch in a (atomically: replicas may run on threads at once). Output 0 then starts at element first. */
void tmr_range(const fl_tmr_launch *l, tmr_args *a, long *first, long *last);

typedef struct tmr_env {
  const char *backend; /* "cpu", "cuda" */
  fl_err (*alloc)(void **p, size_t bytes);
  void (*release)(void *p);
  fl_err (*put)(void *dst, const void *host, size_t bytes); /* host -> backend memory */
  fl_err (*get)(void *host, const void *src, size_t bytes); /* backend memory -> host */
  /* the kernels (arg: tmr_args): out[0] from in[0], in[1] */
  fl_tmr_launch_fn axpy;   /* f64: out = a x + y */
  fl_tmr_launch_fn chain;  /* f64: steps of t = a t + x from t = x (latency-bound) */
  fl_tmr_launch_fn sq32;   /* f32: out = x x + a */
  fl_tmr_launch_fn hash32; /* i32: out = x 2654435761 ^ (x >> 7) */
  fl_tmr_launch_fn mix64;  /* i64: out = x 0x9E3779B97F4A7C15 ^ y */
  fl_tmr_launch_fn bytes;  /* u8: out = x + y */
  /* measurements: seconds per vote of 3 x n doubles (nothing to correct) and per copy of n doubles within the
   * backend's memory (device to device; memcpy on the host) */
  fl_err (*bench_vote)(long n, int reps, double *vote_s, double *copy_s);
  /* wait for the device (cuda: cudaDeviceSynchronize); NULL on the CPU */
  void (*sync)(void);
} tmr_env;

const tmr_env *tmr_env_cpu(void);
/* NULL when CUDA is not compiled in. */
const tmr_env *tmr_env_cuda(void);

/* Each check runs on a context of env's backend, prints one line per finding to `log` (may be NULL) and returns
 * the number of failures (0: passed). */
/* `trials` runs with one replica corrupted (a random bit of a random output or input element, every type): the
 * output equals the unprotected run's bit for bit every time. */
int tmr_check_one_corrupted(const tmr_env *env, int trials, uint64_t seed, FILE *log);
/* `trials` runs with two replicas corrupted differently in the same output element: reported every time (status
 * uncorrectable, the element listed; NaN in a float output), every other element right. */
int tmr_check_two_corrupted(const tmr_env *env, int trials, uint64_t seed, FILE *log);
/* `trials` runs with a Poisson(20) number of random faults (half on outputs, half on inputs): every element that
 * differs from the unprotected run is reported; none is silent (runs where two replicas got the very same flip, TMR's
 * blind spot, are counted apart). */
int tmr_check_nothing_silent(const tmr_env *env, int trials, uint64_t seed, FILE *log);
/* A three-kernel pipeline voted after each kernel and at the end: one bad replica corrected either way; two bad
 * replicas at different kernels corrected after each, reported at the end; a vote without majority stops the
 * pipeline; a flip in the voted output is silent by construction. */
int tmr_check_pipeline(const tmr_env *env, FILE *log);
/* Bad definitions and faults are FL_ERR_INPUT naming the problem; a failing launch is an error naming the kernel. */
int tmr_check_bad_input(const tmr_env *env, FILE *log);
/* A kernel that computes ranges is run chunk by chunk in turn (chunks of 1,000 items) and gives the same bits, faults
 * at chunk edges corrected. */
int tmr_check_ranges(const tmr_env *env, FILE *log);

/* fl_tmr_kernel_def.replay, in every concurrency mode: repeated fault-free runs give the unprotected bits (on a GPU
 * without calling the launch function again: the recorded graph), a run with a fault is corrected (launched as
 * usual), a new output buffer is recorded anew; on a GPU a launch function that synchronises is FL_ERR_INPUT and the
 * context runs on. */
int tmr_check_replay(const tmr_env *env, FILE *log);

/* The issue-18 measurements: TMR over one unprotected run for a memory-bound kernel (AXPY of n_big doubles) and a
 * latency-bound small kernel (4,096 dependent chains), and the vote's bandwidth over the copy bandwidth; chunk_items
 * as fl_tmr_config's (0: the backend's choice). Prints a table to `out`; the figures come back for the caller's checks.
 */
#define TMR_MODES 4 /* TMR: auto, concurrent, in turn, auto with fl_tmr_kernel_def.replay */
typedef struct tmr_bench {
  double big_plain_s, big_tmr_s[TMR_MODES], small_plain_s, small_tmr_s[TMR_MODES];
  double vote_gbs, copy_gbs;
} tmr_bench;
int tmr_measure(const tmr_env *env, long n_big, long steps, int samples, long chunk_items, tmr_bench *b, FILE *out);

#endif
