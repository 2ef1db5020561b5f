/* cleanup.c — see cleanup.h. */
#include "cleanup.h"

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static struct {
  volatile sig_atomic_t used[FL_CLEANUP_MAX];
  char path[FL_CLEANUP_MAX][PATH_MAX];
  int installed;
} fl_cleanup_table;

static const int fl_cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static void fl_cleanup_handler(int sig)
{
  for (int i = 0; i < FL_CLEANUP_MAX; i++)
    if (fl_cleanup_table.used[i])
      unlink(fl_cleanup_table.path[i]);
  fl_cleanup_reraise(sig);
}

void fl_cleanup_reraise(int sig)
{
  struct sigaction sa;
  sigset_t set;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig); /* not reached for a fatal signal */
}

fl_err fl_cleanup_add(const char *path)
{
  if (strlen(path) >= PATH_MAX)
    return fl_err_set(FL_ERR_INTERNAL, "temporary path too long: %s", path);
  if (!fl_cleanup_table.installed) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fl_cleanup_handler;
    sigemptyset(&sa.sa_mask);
    for (size_t s = 0; s < sizeof fl_cleanup_signals / sizeof fl_cleanup_signals[0]; s++)
      sigaddset(&sa.sa_mask, fl_cleanup_signals[s]);
    for (size_t s = 0; s < sizeof fl_cleanup_signals / sizeof fl_cleanup_signals[0]; s++) {
      struct sigaction old;
      /* a signal the user's shell ignores (nohup) stays ignored */
      if (sigaction(fl_cleanup_signals[s], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction(fl_cleanup_signals[s], &sa, NULL);
    }
    fl_cleanup_table.installed = 1;
  }
  for (int i = 0; i < FL_CLEANUP_MAX; i++)
    if (!fl_cleanup_table.used[i]) {
      memcpy(fl_cleanup_table.path[i], path, strlen(path) + 1);
      fl_cleanup_table.used[i] = 1;
      return FL_OK;
    }
  return fl_err_set(FL_ERR_INTERNAL, "more than %d temporary files at once", FL_CLEANUP_MAX);
}

void fl_cleanup_remove(const char *path)
{
  for (int i = 0; i < FL_CLEANUP_MAX; i++)
    if (fl_cleanup_table.used[i] && strcmp(fl_cleanup_table.path[i], path) == 0) {
      fl_cleanup_table.used[i] = 0;
      unlink(path);
      return;
    }
  unlink(path);
}
