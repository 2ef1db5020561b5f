/* cuda_impl.h — the C interface of the CUDA side of the "cuda" TMR backend (cuda_impl.cu, built by nvcc only
 * when CMake found CUDA). cuda.c wraps these in the backend's ops table; see tmr_impl.h for what each step does. */
#ifndef FL_TMR_CUDA_IMPL_H
#define FL_TMR_CUDA_IMPL_H

#include "tmr_impl.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_tmr_cuda fl_tmr_cuda;

/* 1 if a device answers and runs this build's kernels (sm_90 code or its PTX); why gets the device or the reason.
 * Without a driver cudaGetDeviceCount fails (35 on the project's machines) and leaves the count at 0. */
int fl_tmr_cuda_probe(char *why, size_t len);
fl_err fl_tmr_cuda_create(fl_tmr_cuda **out, long chunk_items);
void fl_tmr_cuda_destroy(fl_tmr_cuda **c);
fl_err fl_tmr_cuda_attempt(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, const fl_tmr_exec *exec,
                           fl_tmr_tally *tally);
int fl_tmr_cuda_auto_concurrent(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk);
fl_err fl_tmr_cuda_plain(fl_tmr_cuda *c, const fl_tmr_kernel_def *k, int nk, void *stream);
fl_err fl_tmr_cuda_builtin(fl_tmr_cuda *c, const fl_tmr_task *task, fl_tmr_kernel_def *def);
fl_err fl_tmr_cuda_builtin_finish(fl_tmr_cuda *c, const fl_tmr_task *task);
/* For benchmarks: seconds per vote kernel over three equal arrays of n doubles, and per device-to-device copy of n
 * doubles (means of `reps` back-to-back runs, timed with events). */
fl_err fl_tmr_cuda_bench_vote(long n, int reps, double *vote_s, double *copy_s);

#ifdef __cplusplus
}
#endif

#endif
