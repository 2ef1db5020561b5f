/* fuzz_platform.c — libFuzzer harness: a platform XML handed to SimGrid through faultline's loader. SimGrid loads
 * one platform per process and aborts on a file it cannot parse, which faultline's guard turns into a one-line
 * error and exit 2. So each input runs in a process of its own, and what is checked is that guard: the process
 * must end with 0 or 2, never by a signal or with another status. Coverage inside it does not reach libFuzzer (the
 * counters are its own copy): this harness mutates the seeds blindly.
 *
 * The processes are forked by a zygote, itself forked at start-up while this process is still small: a fork of
 * the fuzzing process (ASan's and libFuzzer's memory, growing with the corpus) spent most of its time copying page
 * tables (about 130 inputs/s; the zygote's forks are cheap). The zygote reads an input's path from a pipe and
 * writes back the wait status of the process that loaded it. */
#include "fuzz_util.h"
#include "platform.h"
#include "scenario.h"

#include <simgrid/engine.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fl_to_zygote = -1, fl_from_zygote = -1;

static int fl_full(int fd, void *buf, size_t n, int wr)
{
  size_t done = 0;
  while (done < n) {
    ssize_t k = wr ? write(fd, (char *)buf + done, n - done) : read(fd, (char *)buf + done, n - done);
    if (k < 0 && errno == EINTR)
      continue; /* libFuzzer's timer (SIGALRM, no SA_RESTART) */
    if (k <= 0)
      return -1;
    done += (size_t)k;
  }
  return 0;
}

/* Load the platform file `path` as `faultline simulate` would; the status says how it ended. */
static void fl_load(const char *path)
{
  char text[256];
  fl_scenario *sc = NULL;
  fl_platform *pf = NULL;
  int devnull = open("/dev/null", O_WRONLY);
  dup2(devnull, 1);
  dup2(devnull, 2);
  signal(SIGALRM, SIG_DFL);
  alarm(20); /* a load that hangs ends by SIGALRM: reported */
  snprintf(text, sizeof text, "[platform]\nfile = %s\n[app]\nnodes = 1\n", path);
  if (fl_scenario_replay(text, "", NULL, &sc) != FL_OK)
    _exit(2);
  _exit(fl_platform_get(sc, 0, 1, &pf) == FL_OK ? 0 : fl_err_msg()[0] ? 2 : 3);
}

static void fl_zygote(int rd, int wr)
{
  /* SimGrid's engine, made once here as fl_platform_get makes it for a file platform of a bsp job (the same
   * arguments): its own call in each child then finds it made (simgrid_init keeps one engine per process) and only
   * the load is left to do per input */
  char a0[] = "faultline", a1[] = "--log=root.thresh:warning";
  char *args[] = {a0, a1, NULL};
  int nargs = 2;
  simgrid_init(&nargs, args);
  for (;;) {
    char path[128];
    uint32_t n;
    int st = 0;
    pid_t pid;
    if (fl_full(rd, &n, sizeof n, 0) != 0 || n >= sizeof path || fl_full(rd, path, n, 0) != 0)
      _exit(0); /* the fuzzer is gone */
    path[n] = '\0';
    pid = fork();
    if (pid == 0)
      fl_load(path);
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    if (pid < 0)
      st = -1;
    if (fl_full(wr, &st, sizeof st, 1) != 0)
      _exit(0);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  int down[2], up[2];
  pid_t pid;
  (void)argc;
  (void)argv;
  if (pipe(down) != 0 || pipe(up) != 0)
    abort();
  pid = fork();
  if (pid < 0)
    abort();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    fl_zygote(down[0], up[1]);
  }
  close(down[0]);
  close(up[1]);
  fl_to_zygote = down[1];
  fl_from_zygote = up[0];
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[96];
  uint32_t n;
  int st = 0;
  if (fl_fuzz_write_file("platform", "xml", data, size, path, sizeof path) != 0)
    return 0;
  n = (uint32_t)strlen(path);
  if (fl_full(fl_to_zygote, &n, sizeof n, 1) != 0 || fl_full(fl_to_zygote, path, n, 1) != 0 ||
      fl_full(fl_from_zygote, &st, sizeof st, 0) != 0) {
    fprintf(stderr, "fuzz_platform: the zygote is gone\n");
    abort();
  }
  if (st == -1 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2)) {
    fprintf(stderr, "fuzz_platform: the loader ended with %s %d\n",
            st == -1        ? "a failed fork"
            : WIFEXITED(st) ? "status"
                            : "signal",
            st == -1        ? -1
            : WIFEXITED(st) ? WEXITSTATUS(st)
                            : WTERMSIG(st));
    abort();
  }
  return 0;
}
