/* tmr.h — triple modular redundancy (TMR) for data-parallel kernels: run a kernel as 3 replicas and vote.
 *
 * The resilient execution space of the seed (section 1.3): read-only inputs are shared by the replicas, every
 * output array is duplicated per replica, the replicas run (concurrently where the hardware has room, else in
 * turn), and a vote compares the replicas element by element and writes the majority into the real output.
 * Backends ("cuda": streams and a vote kernel on a GPU; "cpu": threads and the same vote code on the host) sit
 * behind one ops table and a registry keyed by those strings; "auto" takes CUDA when it is compiled in and a
 * device answers, else the CPU, and says which.
 *
 * What a caller can rely on (docs/tmr.md has the long form):
 * - An element where two replicas agree (bitwise, or within the tolerance) gets the agreeing value.
 * - An element where no two replicas agree (dual mode: where the two disagree) is never returned as a value: it
 *   is set to NaN, counted, listed, and the result's status says FL_TMR_UNCORRECTABLE (FL_TMR_DETECTED). A vote
 *   that goes wrong is a result, not an fl_err (STYLE.md habit 6): fl_tmr_run returns FL_OK and the caller must
 *   read res->status. fl_err is for bad arguments and broken environments.
 * - Two replicas corrupted into the very same wrong bits outvote the good one: TMR cannot see that.
 *
 * Outputs must not overlap the inputs or each other (checked): replica 0 writes the caller's output array in
 * place and the vote patches it, which saves one pass over memory. */
#ifndef FL_TMR_H
#define FL_TMR_H

#include "diffusion.h"
#include "fl_err.h"
#include "gridworld.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FL_TMR_MAX_ARRAYS 4     /* inputs, and outputs, of one task */
#define FL_TMR_MAX_POSITIONS 64 /* mismatch positions a result lists */
#define FL_TMR_MAX_LISTED 64    /* applied faults a result lists */

typedef struct fl_tmr fl_tmr;

typedef enum fl_tmr_vote_mode {
  FL_TMR_VOTE_BITWISE = 0,   /* replicas agree iff their 64-bit patterns are equal */
  FL_TMR_VOTE_TOLERANCE = 1, /* ... or |x - y| <= max(abs_tol, rel_tol * max(|x|, |y|)), x and y finite */
} fl_tmr_vote_mode;

typedef enum fl_tmr_concurrency {
  FL_TMR_AUTO = -1,      /* CUDA: streams; CPU: threads for large compute-bound tasks, else in turn */
  FL_TMR_IN_TURN = 0,    /* one replica after the other (CPU: chunk by chunk, each chunk voted in cache) */
  FL_TMR_CONCURRENT = 1, /* replicas at once: one CUDA stream or one thread each */
} fl_tmr_concurrency;

typedef struct fl_tmr_config {
  const char *backend; /* "auto" (also when NULL), "cpu", "cuda" */
  int replicas;        /* 3: TMR, corrects one bad replica per element; 2: dual, detects only. 0 means 3 */
  fl_tmr_vote_mode vote;
  double abs_tol, rel_tol; /* tolerance vote; both >= 0 */
  int max_retries;         /* re-executions when the vote finds no majority (TMR) or any disagreement (dual) */
  fl_tmr_concurrency concurrency;
  uint64_t seed; /* random faults draw from stream FL_STREAM_FAILURES of (seed, 0); see fl_tmr_seed */
  FILE *log;     /* where the backend choice is logged (one line); NULL: nowhere */
} fl_tmr_config;

/* The default configuration: auto backend, 3 replicas, bitwise vote, no retry, auto concurrency, seed 1. */
fl_tmr_config fl_tmr_config_default(void);

/* Create a TMR context on the backend the config names. An unknown name, or a backend that cannot run here
 * ("cuda" without CUDA compiled in or without a device), is FL_ERR_INPUT naming the reason; "auto" never fails
 * for want of a GPU. The choice and its reason go to cfg->log and fl_tmr_backend_reason. Caller owns *out. */
fl_err fl_tmr_create(const fl_tmr_config *cfg, fl_tmr **out);
/* Free the context (NULL and *t == NULL are no-ops); *t becomes NULL. */
void fl_tmr_destroy(fl_tmr **t);
/* The backend in use, "cpu" or "cuda" (static string), and why it was chosen (borrowed, lives with t). */
const char *fl_tmr_backend(const fl_tmr *t);
const char *fl_tmr_backend_reason(const fl_tmr *t);

/* The backends of the registry, in order, and whether one can run here (why: a one-line reason, may be NULL). */
int fl_tmr_backend_count(void);
const char *fl_tmr_backend_name(int i);
int fl_tmr_backend_available(const char *name, char *why, size_t why_len);

/* ---- tasks: a kernel, its shared inputs and its outputs ---- */

typedef enum fl_tmr_kernel {
  FL_TMR_AXPY,      /* out = a x + y (bandwidth-bound) */
  FL_TMR_CHAIN,     /* out_i = t_steps, t_0 = x_i, t_{k+1} = a t_k + x_i (a dependent chain: latency-bound) */
  FL_TMR_DIFFUSION, /* y = A x on a block of rows of the anisotropic diffusion problem (apps/diffusion.h) */
  FL_TMR_GRIDWORLD, /* one Bellman sweep of the grid world (apps/gridworld.h), and its max change */
} fl_tmr_kernel;

/* Built by the fl_tmr_task_* constructors; the fields are read-only for callers. Arrays are borrowed. */
typedef struct fl_tmr_task {
  fl_tmr_kernel kernel;
  const char *name; /* "axpy", "chain", "diffusion", "gridworld" */
  int nin, nout;
  const double *in[FL_TMR_MAX_ARRAYS]; /* shared by the replicas, never written */
  long in_n[FL_TMR_MAX_ARRAYS];
  double *out[FL_TMR_MAX_ARRAYS]; /* one copy per replica; the majority lands here */
  long out_n[FL_TMR_MAX_ARRAYS];
  long work; /* rough operations per replica, for the concurrency choice */
  /* kernel parameters */
  double a;
  long steps;
  const fl_diff *diff;
  long nrows;
  const fl_gw *gw;
} fl_tmr_task;

/* out[0..n) = a x[i] + y[i]. */
fl_tmr_task fl_tmr_task_axpy(long n, double a, const double *x, const double *y, double *out);
/* out[i] after `steps` of t = a t + x[i] from t = x[i]. */
fl_tmr_task fl_tmr_task_chain(long n, long steps, double a, const double *x, double *out);
/* fl_diff_apply(p, nrows, x_halo, y): x_halo has (nrows + 2) p->n entries, y nrows p->n. */
fl_tmr_task fl_tmr_task_diffusion(const fl_diff *p, long nrows, const double *x_halo, double *y);
/* out = fl_gw_sweep(gw, in, out, 0, gw->n); *change (when change != NULL) = the value it returns, voted as a
 * second, one-element output. The rewards are a shared input too (input 1). */
fl_tmr_task fl_tmr_task_gridworld(const fl_gw *gw, const double *in, double *out, double *change);

/* ---- fault injection ---- */

typedef enum fl_tmr_target {
  FL_TMR_OUTPUT = 0, /* the replica's copy of an output, after its kernel ran, before the vote */
  FL_TMR_INPUT = 1,  /* a private copy of an input the replica reads instead of the shared one */
} fl_tmr_target;

typedef struct fl_tmr_fault {
  int replica; /* 0 .. replicas-1; -1: drawn */
  fl_tmr_target target;
  int array;      /* which input or output of the task; -1: drawn (weighted by length) */
  long element;   /* -1: drawn */
  int bit;        /* 0 .. 63 of the double's bit pattern (52..62 exponent, 63 sign); -1: drawn */
  int persistent; /* 0: transient, first attempt only; 1: at every attempt (a stuck bit) */
} fl_tmr_fault;

/* A fault with everything drawn, transient, on an output. */
fl_tmr_fault fl_tmr_fault_random(void);

/* Reseed the fault stream: stream FL_STREAM_FAILURES of (seed, replica) (core/rng.h). */
fl_err fl_tmr_seed(fl_tmr *t, uint64_t seed, uint64_t replica);
/* Queue a fault for the next fl_tmr_run (copied). Drawn fields are drawn when that run starts; a field out of
 * range for its task is FL_ERR_INPUT then. */
fl_err fl_tmr_inject(fl_tmr *t, const fl_tmr_fault *f);
/* Queue a Poisson(expected) number of random transient faults on `target`: silent data corruptions at a rate
 * of `expected` per run. *count (may be NULL) gets the number queued. */
fl_err fl_tmr_inject_sdc(fl_tmr *t, double expected, fl_tmr_target target, long *count);

/* ---- running ---- */

typedef enum fl_tmr_status {
  FL_TMR_CLEAN = 0,         /* every element agreed (bitwise, or within the tolerance) */
  FL_TMR_CORRECTED = 1,     /* some replicas were outvoted; the output holds the majority everywhere */
  FL_TMR_DETECTED = 2,      /* dual mode: the replicas disagree; those elements are NaN */
  FL_TMR_UNCORRECTABLE = 3, /* some elements have no majority; those elements are NaN */
} fl_tmr_status;

const char *fl_tmr_status_str(fl_tmr_status s);

typedef struct fl_tmr_mismatch {
  int array;       /* output array */
  int outvoted;    /* the replica outvoted; -1 when none agrees (uncorrectable, detected) or it is ambiguous */
  long index;      /* element */
  double value[3]; /* what the replicas computed (value[2] unused in dual mode) */
} fl_tmr_mismatch;

typedef struct fl_tmr_applied {
  int replica, array, bit, attempt;
  fl_tmr_target target;
  long element;
} fl_tmr_applied;

typedef struct fl_tmr_result {
  fl_tmr_status status;
  int attempts; /* executions: 1 + retries used */
  /* elements, in the final attempt (the one whose output the caller gets) */
  long benign;        /* differed bitwise, agreed within the tolerance */
  long corrected;     /* one replica outvoted (TMR) */
  long uncorrectable; /* no two replicas agree (TMR): NaN in the output */
  long detected;      /* the two replicas disagree (dual): NaN in the output */
  long outvoted[3];   /* corrected elements by the replica that lost the vote */
  long retried;       /* disagreeing elements of the attempts that were retried */
  /* positions of corrected, uncorrectable and detected elements of the final attempt: the first by (array, index)
   * on the CPU; on a GPU any npositions of them when there are more than FL_TMR_MAX_POSITIONS */
  long npositions;
  fl_tmr_mismatch positions[FL_TMR_MAX_POSITIONS];
  long nfaults; /* faults applied, over all attempts */
  long nlisted; /* the first of them */
  fl_tmr_applied faults[FL_TMR_MAX_LISTED];
  double time_s; /* wall time of the call */
} fl_tmr_result;

/* Run `task` protected: the replicas, the queued faults, the vote, retries. The queue is emptied (also on
 * failure). res is overwritten. Returns FL_OK whatever the vote found: read res->status. On an error return
 * (bad task or fault: before anything ran; a device failure) the outputs hold nothing the caller may use. */
fl_err fl_tmr_run(fl_tmr *t, const fl_tmr_task *task, fl_tmr_result *res);
/* Run `task` once, unprotected, on the same backend: the baseline TMR's overhead is measured against. Queued
 * faults stay queued. *time_s (may be NULL) gets its wall time. */
fl_err fl_tmr_run_plain(fl_tmr *t, const fl_tmr_task *task, double *time_s);

#ifdef __cplusplus
}
#endif

#endif
