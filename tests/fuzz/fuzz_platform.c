/* fuzz_platform.c — libFuzzer harness: a platform XML handed to SimGrid through faultline's loader. SimGrid loads
 * one platform per process and aborts on a file it cannot parse, which faultline's guard turns into a one-line
 * error and exit 2. So each input that faultline's own checks before SimGrid pass (run here, in the fuzzing
 * process) is loaded in a process of its own, and what is checked is that guard: the process must end with 0 or 2,
 * never by a signal or with another status; and faultline's checks in the fuzzing process must print nothing (their
 * refusal is the caller's one line of error).
 *
 * Coverage comes back from that process: libFuzzer's 8-bit counters (the __sancov_cntrs section, faultline's code
 * and this harness) are private memory, so each loading process maps the pages holding them onto a shared memory
 * file (memfd) first, and the fuzzer adds what the process counted to its own counters once it has ended. So
 * libFuzzer keeps the inputs that take faultline's loader somewhere new (SimGrid itself is not instrumented).
 *
 * The processes are forked by a zygote, itself forked at start-up while this process is still small: a fork of
 * the fuzzing process (ASan's and libFuzzer's memory, growing with the corpus) spent most of its time copying page
 * tables (about 130 inputs/s; the zygote's forks are cheap). The zygote reads an input's path from a pipe and
 * writes back the wait status of the process that loaded it. */
#define _GNU_SOURCE /* memfd_create, syscall */
#include "fuzz_cov_bounds.h"
#include "fuzz_util.h"
#include "platform.h"
#include "registries.h"
#include "scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fl_to_zygote = -1, fl_from_zygote = -1;
static int fl_stderr_fd = -1, fl_said_fd = -1; /* the real stderr; a memfd for what the checks print */

static uint8_t *fl_cntrs; /* libFuzzer's inline 8-bit counters of this executable */
static size_t fl_ncntrs;
static int fl_cov_fd = -1;            /* memfd: the whole pages holding the counters, shared with each loader */
static uint8_t *fl_cov_view;          /* the fuzzer's view of that file */
static uintptr_t fl_cov_lo;           /* first page of the counters */
static size_t fl_cov_len, fl_cov_off; /* pages' length; the counters' offset in them */

static int fl_cov_setup(void)
{
  uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), hi;
  fl_cntrs = fl_fuzz_counters(&fl_ncntrs);
  if (!fl_ncntrs)
    return -1;
  hi = ((uintptr_t)(fl_cntrs + fl_ncntrs) + pg - 1) & ~(pg - 1);
  fl_cov_lo = (uintptr_t)fl_cntrs & ~(pg - 1);
  fl_cov_len = hi - fl_cov_lo;
  fl_cov_off = (uintptr_t)fl_cntrs - fl_cov_lo;
  if ((fl_cov_fd = memfd_create("fuzz-platform-coverage", MFD_CLOEXEC)) < 0 ||
      ftruncate(fl_cov_fd, (off_t)fl_cov_len) != 0)
    return -1;
  fl_cov_view = mmap(NULL, fl_cov_len, PROT_READ | PROT_WRITE, MAP_SHARED, fl_cov_fd, 0);
  return fl_cov_view == MAP_FAILED ? -1 : 0;
}

/* In a loading process: put its counter pages (their present content first: other data may share the pages) on
 * the shared file, counters zeroed. The raw system call copies the pages: ASan's pwrite would refuse the
 * redzones between globals. */
static void fl_cov_share(void)
{
  if (syscall(SYS_pwrite64, fl_cov_fd, (const void *)fl_cov_lo, fl_cov_len, (off_t)0) != (long)fl_cov_len ||
      mmap((void *)fl_cov_lo, fl_cov_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fl_cov_fd, 0) == MAP_FAILED)
    _exit(4);
  memset(fl_cntrs, 0, fl_ncntrs);
}

/* In the fuzzer, once the loading process has ended: its counts added to this run's, saturating */
static void fl_cov_collect(void)
{
  uint8_t *c = fl_cov_view + fl_cov_off;
  for (size_t i = 0; i < fl_ncntrs; i++)
    if (c[i]) {
      unsigned v = (unsigned)fl_cntrs[i] + c[i];
      fl_cntrs[i] = (uint8_t)(v > 255 ? 255 : v);
    }
  memset(c, 0, fl_ncntrs);
}

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
  int devnull;
  fl_cov_share();
  devnull = open("/dev/null", O_WRONLY);
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
  /* SimGrid's engine, made once here as fl_platform_get makes it for a file platform of a bsp job: its own call in
   * each child then finds it made (SimGrid keeps one engine per process) and only the load is left per input */
  fl_simgrid_init(0, 0, 0);
  xmlInitParser(); /* libxml2's per-process set-up (dictionaries, locks), used by the size pass and the profiles */
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
  if (fl_registries_init() != FL_OK) /* the plugins' keys, before the zygote forks */
    abort();
  (void)argv;
  if (pipe(down) != 0 || pipe(up) != 0 || fl_cov_setup() != 0)
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
  if ((fl_stderr_fd = dup(2)) < 0 || (fl_said_fd = memfd_create("fuzz-platform-stderr", MFD_CLOEXEC)) < 0)
    abort();
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

/* faultline's checks of the file before SimGrid sees it, here in the fuzzing process (their coverage direct): 1 when
 * the input is done with, 0 when it is to be loaded, -1 when a refusal has no message */
static int fl_checks(const char *path)
{
  int pfd = -1;
  char *load = NULL;
  fl_profiles prof;
  fl_platform_estimate est;
  /* the size pass; a platform of more than 100,000 hosts is legitimate but takes SimGrid seconds to build (minutes
   * under ASan), longer than the time an input may take: not loaded (the refusal of sizes beyond the memory is
   * tests/cli/test_cli.c's) */
  if (fl_platform_file_estimate(path, &est) == FL_OK && (est.hosts > 1e5 || est.bytes > 1e9))
    return 1;
  /* the rest (the size check, the profiles taken out, as for the bsp job of fl_load): a file it refuses never
   * reaches SimGrid, and its loading process would only have done this and ended with exit 2, so it takes none (a
   * process costs ~30 ms here, most inputs' whole time) */
  fl_err_clear();
  if (fl_platform_file_prepare(path, 1, &load, &pfd, &prof) != FL_OK)
    return fl_err_msg()[0] ? 1 : -1;
  free(load);
  if (pfd >= 0)
    close(pfd);
  fl_profiles_free(&prof);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[96];
  uint32_t n;
  int st = 0, done;
  off_t said;
  if (fl_fuzz_write_file("platform", "xml", data, size, path, sizeof path) != 0)
    return 0;
  /* the checks print nothing of their own (their refusal is the caller's one line): their stderr goes to a file
   * (the sanitizers' reports to the real one), which must be empty after them (libxml2 printed its own lines) */
  if (ftruncate(fl_said_fd, 0) != 0 || lseek(fl_said_fd, 0, SEEK_SET) != 0)
    abort();
  __sanitizer_set_report_fd((void *)(intptr_t)fl_stderr_fd);
  fflush(stderr);
  dup2(fl_said_fd, 2);
  done = fl_checks(path);
  fflush(stderr);
  dup2(fl_stderr_fd, 2);
  __sanitizer_set_report_fd((void *)(intptr_t)2);
  if ((said = lseek(fl_said_fd, 0, SEEK_END)) != 0) {
    char text[512];
    ssize_t k = pread(fl_said_fd, text, sizeof text - 1, 0);
    text[k > 0 ? k : 0] = '\0';
    fprintf(stderr, "fuzz_platform: faultline's checks before SimGrid printed %ld bytes: %s\n", (long)said, text);
    abort();
  }
  if (done < 0) {
    fprintf(stderr, "fuzz_platform: the platform file was refused without a message\n");
    abort();
  }
  fl_err_clear();
  if (done)
    return 0;
  n = (uint32_t)strlen(path);
  if (fl_full(fl_to_zygote, &n, sizeof n, 1) != 0 || fl_full(fl_to_zygote, path, n, 1) != 0 ||
      fl_full(fl_from_zygote, &st, sizeof st, 0) != 0) {
    fprintf(stderr, "fuzz_platform: the zygote is gone\n");
    abort();
  }
  fl_cov_collect();
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
