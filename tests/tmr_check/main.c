/* main.c — faultline-tmr-check: TMR of user kernels, checked and measured, in one self-contained program.
 *
 * Built with nothing but the C library and the C++ runtime linked dynamically (GSL, xxhash, the CUDA runtime and
 * the C++ library statically), so that it can be carried to a GPU machine that has a driver and nothing else, and
 * run there:
 *
 *     faultline-tmr-check                       # the checks on the best backend ("auto": the GPU if one answers)
 *     faultline-tmr-check --backend cuda --bench
 *     faultline-tmr-check --backend cpu --trials 200 --quick
 *
 * Exit status: 0 every check passed, 1 a check failed, 2 bad arguments, 77 the backend asked for cannot run here
 * (ctest reads 77 as skipped). */
#include "args.h"
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
  fprintf(f, "usage: faultline-tmr-check [--backend auto|cpu|cuda] [--trials N] [--seed S] [--bench] [--bench-only]\n"
             "                           [--big N] [--steps N] [--samples N] [--chunk N] [--quick]\n"
             "  checks TMR of user kernels (1,000 trials of one corrupted replica, of two, of random faults;\n"
             "  pipelines; bad input) and with --bench measures TMR's overhead and the vote's bandwidth\n");
}

int main(int argc, char **argv)
{
  const char *backend = "auto", *v;
  long trials = 1000, seed = 2026, big = 0, steps = 0, samples = 9,
       chunk = 0; /* big, steps: 0 = the backend's default */
  int bench = 0, checks = 1, fails = 0;
  char why[256] = "";
  const tmr_env *env;
  for (int i = 1; i < argc; i++) {
    if ((v = fl_args_value(argc, argv, &i, "--backend"))) {
      backend = v;
    } else if ((v = fl_args_value(argc, argv, &i, "--trials"))) {
      if (fl_args_count("--trials", v, 1, 10000000, &trials) != FL_OK)
        goto bad;
    } else if ((v = fl_args_value(argc, argv, &i, "--seed"))) {
      if (fl_args_count("--seed", v, 0, 1L << 62, &seed) != FL_OK)
        goto bad;
    } else if ((v = fl_args_value(argc, argv, &i, "--big"))) {
      if (fl_args_count("--big", v, 4096, 1L << 31, &big) != FL_OK)
        goto bad;
    } else if ((v = fl_args_value(argc, argv, &i, "--steps"))) {
      if (fl_args_count("--steps", v, 1, 100000000, &steps) != FL_OK)
        goto bad;
    } else if ((v = fl_args_value(argc, argv, &i, "--samples"))) {
      if (fl_args_count("--samples", v, 1, 1000, &samples) != FL_OK)
        goto bad;
    } else if ((v = fl_args_value(argc, argv, &i, "--chunk"))) {
      if (fl_args_count("--chunk", v, 1, 1L << 31, &chunk) != FL_OK)
        goto bad;
    } else if (strcmp(argv[i], "--bench") == 0) {
      bench = 1;
    } else if (strcmp(argv[i], "--bench-only") == 0) {
      bench = 1;
      checks = 0;
    } else if (strcmp(argv[i], "--quick") == 0) {
      big = 1L << 20;
      steps = 2000;
      samples = 3;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "faultline-tmr-check: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (strcmp(backend, "auto") == 0)
    backend = fl_tmr_backend_available("cuda", why, sizeof why) ? "cuda" : "cpu";
  if (strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0) {
    fprintf(stderr, "faultline-tmr-check: --backend '%s': auto, cpu or cuda\n", backend);
    return 2;
  }
  if (!fl_tmr_backend_available(backend, why, sizeof why)) {
    printf("faultline-tmr-check: backend %s cannot run here: %s\n", backend, why);
    return 77;
  }
  env = strcmp(backend, "cuda") == 0 ? tmr_env_cuda() : tmr_env_cpu();
  if (!env) {
    printf("faultline-tmr-check: backend %s is not compiled into this program\n", backend);
    return 77;
  }
  /* sizes: AXPY of 256 MB arrays on a GPU (1.5 GB in all with the replicas' copies), 64 MB on the CPU; chains
   * long enough that a kernel outlasts the launches and the synchronisation around it (~0.4 ms on an H100) */
  if (big == 0)
    big = strcmp(backend, "cuda") == 0 ? 1L << 25 : 1L << 23;
  if (steps == 0)
    steps = strcmp(backend, "cuda") == 0 ? 100000 : 2000;
  printf("faultline-tmr-check: backend %s (%s)\n", backend, why);
  if (checks) {
    fails += tmr_check_one_corrupted(env, (int)trials, (uint64_t)seed, stdout);
    fails += tmr_check_two_corrupted(env, (int)trials, (uint64_t)seed, stdout);
    fails += tmr_check_nothing_silent(env, (int)trials, (uint64_t)seed, stdout);
    fails += tmr_check_pipeline(env, stdout);
    fails += tmr_check_bad_input(env, stdout);
    fails += tmr_check_ranges(env, stdout);
    fails += tmr_check_replay(env, stdout);
    printf("checks: %s (%d failures)\n", fails ? "FAILED" : "passed", fails);
  }
  if (bench) {
    tmr_bench b;
    fails += tmr_measure(env, big, steps, (int)samples, chunk, &b, stdout);
  }
  return fails ? 1 : 0;
bad:
  fprintf(stderr, "faultline-tmr-check: %s\n", fl_err_msg());
  return 2;
}
