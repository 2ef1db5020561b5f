/* bench_run.c — run commands alternately, several times, and report each one's median wall time and peak
 * RSS (wait4's ru_maxrss), then the ratio of every command to the first (the baseline). Alternating rounds
 * spread the machine's noise over all commands alike.
 *
 * usage: bench_run [-n ROUNDS] -- LABEL CMD... [-- LABEL CMD...]...   (each command runs through /bin/sh -c) */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FL_MAX_CMDS 8
#define FL_MAX_ROUNDS 50

typedef struct fl_bench_cmd {
  const char *label;
  char cmd[4096];
  double wall[FL_MAX_ROUNDS];
  double rss_mb[FL_MAX_ROUNDS];
} fl_bench_cmd;

static double fl_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fl_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double fl_median(const double *v, int n)
{
  double s[FL_MAX_ROUNDS];
  memcpy(s, v, (size_t)n * sizeof *v);
  qsort(s, (size_t)n, sizeof *s, fl_cmp_double);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static int fl_run(fl_bench_cmd *c, int round)
{
  struct rusage ru;
  int status = 0;
  double t0 = fl_now();
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", c->cmd, (char *)NULL);
    _exit(127);
  }
  if (wait4(pid, &status, 0, &ru) < 0)
    return -1;
  c->wall[round] = fl_now() - t0;
  c->rss_mb[round] = (double)ru.ru_maxrss / 1024.0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "bench_run: '%s' failed (status %d)\n", c->cmd, status);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  fl_bench_cmd cmds[FL_MAX_CMDS];
  int ncmd = 0, rounds = 3, i = 1;

  if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
    rounds = atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > FL_MAX_ROUNDS) {
    fprintf(stderr, "bench_run: -n between 1 and %d\n", FL_MAX_ROUNDS);
    return 2;
  }
  while (i < argc) {
    if (strcmp(argv[i], "--") != 0 || i + 2 >= argc || ncmd == FL_MAX_CMDS) {
      fprintf(stderr, "usage: bench_run [-n ROUNDS] -- LABEL CMD... [-- LABEL CMD...]...\n");
      return 2;
    }
    memset(&cmds[ncmd], 0, sizeof cmds[ncmd]);
    cmds[ncmd].label = argv[i + 1];
    for (i += 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
      strncat(cmds[ncmd].cmd, argv[i], sizeof cmds[ncmd].cmd - strlen(cmds[ncmd].cmd) - 2);
      strcat(cmds[ncmd].cmd, " ");
    }
    ncmd++;
  }
  if (ncmd < 2) {
    fprintf(stderr, "bench_run: give a baseline and at least one command\n");
    return 2;
  }
  for (int r = 0; r < rounds; r++)
    for (int c = 0; c < ncmd; c++)
      if (fl_run(&cmds[c], r) != 0)
        return 1;
  printf("%-28s %10s %10s %12s %9s\n", "command", "median s", "min s", "peak RSS MB", "ratio");
  for (int c = 0; c < ncmd; c++) {
    double m = fl_median(cmds[c].wall, rounds), base = fl_median(cmds[0].wall, rounds);
    double mn = cmds[c].wall[0], rss = 0;
    for (int r = 0; r < rounds; r++) {
      if (cmds[c].wall[r] < mn)
        mn = cmds[c].wall[r];
      if (cmds[c].rss_mb[r] > rss)
        rss = cmds[c].rss_mb[r];
    }
    printf("%-28s %10.3f %10.3f %12.1f %8.3fx\n", cmds[c].label, m, mn, rss, m / base);
  }
  return 0;
}
