/* bench_imc.c — in-memory buddy checkpoint commit bandwidth against MPI ping-pong bandwidth for the same message
 * size, in the same job (target: >= 0.8x). Run with 2 ranks: mpirun -np 2 bench_imc [MiB] [rounds].
 * Ping-pong: rank 0 sends S bytes to rank 1, which sends them back; one-way bandwidth = 2 S / round trip.
 * Commit: each rank starts a checkpoint of S bytes already in the checkpoint's buffer (fl_imc_buffer, as GPI CP's
 * segment) — sent to its buddy while it receives the buddy's — and commits it (transfers complete + global
 * agreement); bandwidth = S / (start + commit time), per rank. Medians over the rounds. */
#include "imc.h"
#include "rt.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fl_cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double fl_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, fl_cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
  fl_rt rt;
  fl_imc *imc;
  int rank, size, rounds;
  size_t bytes;
  double mib;
  unsigned char *buf;
  double *tp, *tr, *tc, pp_bw, pr_bw, imc_bw;
  unsigned char *rot[3];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mib = argc > 1 ? atof(argv[1]) : 8.0;
  rounds = argc > 2 ? atoi(argv[2]) : 20;
  /* one MPI message of at most INT_MAX bytes */
  if (size != 2 || rounds < 1 || !(mib > 0 && mib * 1048576.0 <= (double)INT_MAX)) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 bench_imc [MiB (0 < MiB < 2048, default 8)] [rounds (>= 1)]\n");
    MPI_Finalize();
    return 2;
  }
  bytes = (size_t)(mib * 1048576.0);
  buf = malloc(bytes);
  tp = malloc((size_t)rounds * sizeof *tp);
  tc = malloc((size_t)rounds * sizeof *tc);
  tr = malloc((size_t)rounds * sizeof *tr);
  for (int j = 0; j < 3; j++)
    rot[j] = malloc(bytes);
  if (!buf || !tp || !tc || !tr || !rot[0] || !rot[1] || !rot[2]) {
    fprintf(stderr, "bench_imc: rank %d: out of memory for %.1f MiB buffers\n", rank, mib);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, rank + 1, bytes);
  for (int j = 0; j < 3; j++)
    memset(rot[j], rank + 1, bytes);
  if (fl_rt_init(&rt, 2, 1, FL_RT_MIRROR_RING, 60.0) != 0 || !(imc = fl_imc_create(&rt, bytes, 0))) {
    fprintf(stderr, "bench_imc: set-up failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(fl_imc_buffer(imc), rank + 1, bytes);
  for (int k = -2; k < rounds; k++) { /* two warm-up rounds */
    double t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    if (k >= 0)
      tp[k] = MPI_Wtime() - t0;
    /* the same with 3 buffers in turn, as the checkpoint's slots are: no cache-hot advantage */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(rot[(k + 3) % 3], (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
      MPI_Recv(rot[(k + 4) % 3], (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(rot[(k + 3) % 3], (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(rot[(k + 4) % 3], (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    if (k >= 0)
      tr[k] = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (fl_imc_start(imc, k + 2) != FL_RT_OK || fl_imc_commit(imc) != FL_RT_OK) {
      fprintf(stderr, "bench_imc: commit failed\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (k >= 0)
      tc[k] = MPI_Wtime() - t0;
  }
  pp_bw = 2.0 * (double)bytes / fl_median(tp, rounds);
  pr_bw = 2.0 * (double)bytes / fl_median(tr, rounds);
  imc_bw = (double)bytes / fl_median(tc, rounds);
  if (rank == 0) {
    printf("message %.1f MiB, %d rounds (medians)\n", (double)bytes / 1048576.0, rounds);
    printf("%-32s %10.1f MiB/s %8.3fx\n", "MPI ping-pong (one way)", pp_bw / 1048576.0, 1.0);
    printf("%-32s %10.1f MiB/s %8.3fx\n", "MPI ping-pong, 3 buffers in turn", pr_bw / 1048576.0, pr_bw / pp_bw);
    printf("%-32s %10.1f MiB/s %8.3fx  (%.3fx of the 3-buffer ping-pong)\n", "imc start+commit (per rank)",
           imc_bw / 1048576.0, imc_bw / pp_bw, imc_bw / pr_bw);
  }
  fl_imc_destroy(&imc);
  fl_rt_finalize(&rt);
  free(buf);
  free(tp);
  free(tc);
  free(tr);
  for (int j = 0; j < 3; j++)
    free(rot[j]);
  MPI_Finalize();
  return 0;
}
