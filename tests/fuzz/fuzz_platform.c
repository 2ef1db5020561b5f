/* fuzz_platform.c — libFuzzer harness: a platform XML handed to SimGrid through faultline's loader. SimGrid loads
 * one platform per process and aborts on a file it cannot parse, which faultline's guard turns into a one-line
 * error and exit 2. So each input runs in a forked child, and what is checked is that guard: the child must end
 * with 0 or 2, never by a signal or with another status. Coverage inside the child does not reach libFuzzer (the
 * counters are the child's copy): this harness mutates the seeds blindly, at the speed of a fork per input. */
#include "platform.h"
#include "scenario.h"
#include "fuzz_util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[96], text[256];
  pid_t pid;
  int st = 0;
  if (fl_fuzz_write_file("platform", "xml", data, size, path, sizeof path) != 0)
    return 0;
  snprintf(text, sizeof text, "[platform]\nfile = %s\n[app]\nnodes = 1\n", path);
  pid = fork();
  if (pid == 0) {
    fl_scenario *sc = NULL;
    fl_platform *pf = NULL;
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    alarm(20);
    if (fl_scenario_replay(text, "", NULL, &sc) != FL_OK)
      _exit(2);
    _exit(fl_platform_get(sc, 0, 1, &pf) == FL_OK ? 0 : fl_err_msg()[0] ? 2 : 3);
  }
  if (pid < 0)
    return 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2)) {
    fprintf(stderr, "fuzz_platform: the loader ended with %s %d\n", WIFEXITED(st) ? "status" : "signal",
            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    abort();
  }
  return 0;
}
