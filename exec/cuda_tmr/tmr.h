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
  FL_TMR_AUTO = -1,      /* CUDA: streams (a kernel with items whose output outgrows the L2: chunks voted in L2,
                            replica 0 beside replicas 1 and 2 on two streams); CPU: threads for large compute-bound
                            tasks, else in turn */
  FL_TMR_IN_TURN = 0,    /* one replica after the other (a kernel with items: chunk by chunk, each chunk voted in
                            cache) */
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
  void *stream;  /* "cuda", your kernels: the cudaStream_t whose work a run waits for first (NULL: the legacy
                    default stream); a run returns when its work is done */
  long chunk_items; /* in turn, a kernel that computes ranges: items per chunk (0: the backend's choice, the L1
                       cache on the CPU, half the L2 on a GPU) */
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
  FL_TMR_VOTED = 2,  /* the voted output, after the vote: what TMR cannot see (silent by construction; for studies
                        of the vote's own exposure). Its replica field is ignored */
} fl_tmr_target;

typedef struct fl_tmr_fault {
  int replica; /* 0 .. replicas-1; -1: drawn */
  fl_tmr_target target;
  int array;      /* which input or output of the task; -1: drawn (weighted by length) */
  long element;   /* -1: drawn */
  int bit;        /* 0 .. 8 size - 1 of the element's bit pattern (doubles: 52..62 exponent, 63 sign); -1: drawn */
  int persistent; /* 0: transient, first attempt only; 1: at every attempt (a stuck bit) */
  int stage;      /* kernels run as a pipeline (fl_tmr_run_kernels): which kernel; -1: drawn (with array) */
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
  int stage;       /* kernel of a pipeline (0 for a single kernel or task) */
  int array;       /* output array */
  int outvoted;    /* the replica outvoted; -1 when none agrees (uncorrectable, detected) or it is ambiguous */
  long index;      /* element */
  double value[3]; /* what the replicas computed (value[2] unused in dual mode) */
} fl_tmr_mismatch;

typedef struct fl_tmr_applied {
  int replica, stage, array, bit, attempt;
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
  int stages;    /* kernels of a pipeline voted (1 for a task): fewer than asked when a vote after one kernel found
                    no majority (FL_TMR_VOTE_EACH stops there, the later kernels not run) */
} fl_tmr_result;

/* Run `task` protected: the replicas, the queued faults, the vote, retries. The queue is emptied (also on
 * failure). res is overwritten. Returns FL_OK whatever the vote found: read res->status. On an error return
 * (bad task or fault: before anything ran; a device failure) the outputs hold nothing the caller may use. */
fl_err fl_tmr_run(fl_tmr *t, const fl_tmr_task *task, fl_tmr_result *res);
/* Run `task` once, unprotected, on the same backend: the baseline TMR's overhead is measured against. Queued
 * faults stay queued. *time_s (may be NULL) gets its wall time. */
fl_err fl_tmr_run_plain(fl_tmr *t, const fl_tmr_task *task, double *time_s);

/* ---- your own kernels: buffers where your data lives, a function that launches the kernel ----
 *
 * On "cuda" the buffers are device memory and nothing crosses to the host but the vote's counts: replica 0 runs
 * into your output buffers, replicas 1 and 2 into device copies kept by the context, each replica on a stream of
 * its own (overlapping where the GPU has room), and a vote kernel leaves the majority in your buffers. On "cpu"
 * the buffers are host memory and the replicas run on the caller's thread in turn or on a pool of threads, as for
 * the built-in tasks (which are themselves definitions of this kind: fl_tmr_run builds one per backend). Your
 * launch function is called once per replica (and per range, see items) with that replica's arrays:
 *
 *     static int my_launch(const fl_tmr_launch *l, void *arg) {
 *       const my_args *a = arg;
 *       my_kernel<<<a->grid, a->block, 0, (cudaStream_t)l->stream>>>(a->n, (const double *)l->in[0],
 *                                                                  (double *)l->out[0]);
 *       return 0; // faultline checks cudaGetLastError after it
 *     }
 *     fl_tmr_kernel_def k = {.name = "mine", .nin = 1, .nout = 1, .launch = my_launch, .arg = &args};
 *     k.in[0] = (fl_tmr_buffer){d_x, n, FL_TMR_F64};
 *     k.out[0] = (fl_tmr_buffer){d_y, n, FL_TMR_F64};
 *     FL_TRY(fl_tmr_run_kernel(t, &k, &res));   // then read res.status
 *
 * A launch must write every element of its outputs from its inputs only (no state carried between calls, no
 * atomics accumulating into an output it does not first clear): the replicas must compute the same bits. */

typedef enum fl_tmr_type {
  FL_TMR_F64 = 0, /* double: bitwise or tolerance vote; no majority gives NaN */
  FL_TMR_F32 = 1, /* float: the same */
  FL_TMR_I64 = 2, /* 64-bit integers: bitwise vote; no majority keeps replica 0's value (listed, counted) */
  FL_TMR_I32 = 3, /* 32-bit integers: the same */
  FL_TMR_U8 = 4,  /* bytes: the same */
} fl_tmr_type;

/* Bytes per element (0 for an unknown type) and the type's name ("f64", ...; "?"). */
size_t fl_tmr_type_size(fl_tmr_type type);
const char *fl_tmr_type_name(fl_tmr_type type);

typedef struct fl_tmr_buffer {
  void *data; /* device memory on "cuda", host memory on "cpu" */
  long count; /* elements */
  fl_tmr_type type;
} fl_tmr_buffer;

/* What a launch function gets: one replica's arrays, and where to run. */
typedef struct fl_tmr_launch {
  int replica;                       /* 0 .. replicas-1 */
  int nin, nout;                     /* the definition's */
  void *stream;                      /* "cuda": the cudaStream_t to launch on; "cpu": NULL */
  const void *in[FL_TMR_MAX_ARRAYS]; /* the inputs, in their order: shared, or this replica's corrupted copy */
  void *out[FL_TMR_MAX_ARRAYS];      /* this replica's copies of the outputs */
  long first, last;                  /* items to compute: 0 .. items, or a range of them (see items) */
} fl_tmr_launch;

/* Launch (GPU) or compute (CPU) the kernel for one replica; 0 when it did, else a code reported as the error. */
typedef int (*fl_tmr_launch_fn)(const fl_tmr_launch *l, void *arg);

typedef struct fl_tmr_kernel_def {
  const char *name;                     /* for messages */
  int nin, nout;                        /* 0 .. FL_TMR_MAX_ARRAYS inputs, 1 .. FL_TMR_MAX_ARRAYS outputs */
  fl_tmr_buffer in[FL_TMR_MAX_ARRAYS];  /* read by every replica, never written */
  fl_tmr_buffer out[FL_TMR_MAX_ARRAYS]; /* one copy per replica; the majority lands here */
  fl_tmr_launch_fn launch;
  void *arg; /* handed to launch */
  /* Optional. items > 0: the kernel computes any range [first, last) of items 0 .. items, item i writing
   * elements [i width, (i + 1) width) of output 0 (width 0 means 1), with inputs whole, out[0] pointing at the
   * range's first element (so that a replica's chunk can stay in cache) and further outputs whole (a reduction:
   * set it when first == 0, combine it after). Replicas then run chunk by chunk, each chunk voted while it is in
   * cache (CPU: in turn, also under FL_TMR_AUTO when it does not choose threads; CUDA: in turn, or under
   * FL_TMR_AUTO when output 0 outgrows the L2). items == 0: always [0, 0), whole arrays. */
  long items, width;
  long work; /* rough operations per replica, for the CPU's choice of threads under FL_TMR_AUTO; 0: unknown */
  /* CUDA, optional. 1 promises that launch() launches the same kernels with the same arguments on every run of
   * this definition (what *arg holds does not change between runs). A fault-free run then records its launches
   * and votes into a CUDA graph once and replays it on the next runs of an equal definition (same launch, arg,
   * buffers, items and width, same settings): the host's cost of a launch (~3 us) is paid once, not once per
   * replica and chunk, which is what makes chunked TMR of a bandwidth-bound kernel cheap (docs/tmr.md). Runs
   * with injected faults launch as usual. A launch that cannot be recorded (it synchronises, or launches on
   * another stream) is FL_ERR_INPUT. The CPU ignores it. */
  int replay;
} fl_tmr_kernel_def;

/* Where a pipeline of kernels is voted. After each kernel, a bad replica is outvoted before the next kernel reads
 * its data (every kernel's outputs cross memory once more and the replicas wait for each other at every vote);
 * at the end, the replicas run the whole chain each on its own copies of the intermediate arrays and are voted
 * once (one synchronisation; an error propagates down its replica's chain and is still outvoted there, but two
 * replicas hit at different kernels now both differ at the end, where voting each kernel would have corrected
 * both). docs/tmr.md, "Pipelines". */
typedef enum fl_tmr_vote_at {
  FL_TMR_VOTE_EACH = 0, /* after every kernel */
  FL_TMR_VOTE_END = 1,  /* after the last one: every output of every kernel voted then */
} fl_tmr_vote_at;

#define FL_TMR_MAX_STAGES 8 /* kernels in one pipeline */

/* For a CUDA kernel launched as is, without a launch function of your own: set launch = fl_tmr_launch_cuda and
 * arg = a fl_tmr_cuda_kernel naming the __global__ function, its grid, block, dynamic shared memory and arguments
 * in cudaLaunchKernel's form (args[i] points at the i-th argument). in_arg[j] / out_arg[j] say which argument is
 * input / output buffer j of the definition (j < nin / nout; -1: not passed); each replica's pointers go there. */
#define FL_TMR_MAX_KERNEL_ARGS 32
typedef struct fl_tmr_cuda_kernel {
  const void *func; /* the __global__ function */
  unsigned grid[3], block[3];
  size_t shared_bytes;
  void **args;
  int nargs; /* 0 .. FL_TMR_MAX_KERNEL_ARGS */
  int in_arg[FL_TMR_MAX_ARRAYS], out_arg[FL_TMR_MAX_ARRAYS];
} fl_tmr_cuda_kernel;
/* Launch arg (a fl_tmr_cuda_kernel) for one replica with cudaLaunchKernel on l->stream: its cudaError_t (0: launched);
 * -1 for a bad description or a build without CUDA. */
int fl_tmr_launch_cuda(const fl_tmr_launch *l, void *arg);

/* Run your kernel protected: replicas, queued faults, vote, retries, as fl_tmr_run. FL_OK whatever the vote
 * found: read res->status. */
fl_err fl_tmr_run_kernel(fl_tmr *t, const fl_tmr_kernel_def *k, fl_tmr_result *res);
/* Run nk kernels in order (1 .. FL_TMR_MAX_STAGES), a kernel's input that is an earlier kernel's output buffer
 * (the same data pointer) reading that kernel's result. Faults name their kernel in fl_tmr_fault.stage. */
fl_err fl_tmr_run_kernels(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, fl_tmr_vote_at at, fl_tmr_result *res);
/* The kernels once each, unprotected, on the same backend (the baseline); *time_s (may be NULL) its wall time. */
fl_err fl_tmr_run_kernels_plain(fl_tmr *t, const fl_tmr_kernel_def *k, int nk, double *time_s);

#ifdef __cplusplus
}
#endif

#endif
