/* cleanup.c — see cleanup.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "cleanup.h"

#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static struct {
  volatile sig_atomic_t used[FL_CLEANUP_MAX];
  char path[FL_CLEANUP_MAX][PATH_MAX];
  int installed;
  unsigned ignored; /* bit s: fl_cleanup_signals[s] was ignored when first installed */
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
  if (sig == SIGQUIT) { /* handled and cleaned up: ended by it, not crashed — no core file left behind */
    struct rlimit none = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &none);
  }
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig); /* not reached for a fatal signal */
}

void fl_cleanup_install(void)
{
  struct sigaction sa;
  const size_t nsig = sizeof fl_cleanup_signals / sizeof fl_cleanup_signals[0];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fl_cleanup_handler;
  sigemptyset(&sa.sa_mask);
  for (size_t s = 0; s < nsig; s++)
    sigaddset(&sa.sa_mask, fl_cleanup_signals[s]);
  for (size_t s = 0; s < nsig; s++) {
    if (!fl_cleanup_table.installed) {
      /* a signal the user's shell ignores (nohup, a background job's SIGINT) stays ignored, then and later */
      struct sigaction old;
      if (sigaction(fl_cleanup_signals[s], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        fl_cleanup_table.ignored |= 1u << s;
    }
    if (!(fl_cleanup_table.ignored & (1u << s))) {
      sigaction(fl_cleanup_signals[s], &sa, NULL);
    } else {
      struct sigaction ign; /* ignored again, whatever a library put there since */
      memset(&ign, 0, sizeof ign);
      ign.sa_handler = SIG_IGN;
      sigemptyset(&ign.sa_mask);
      sigaction(fl_cleanup_signals[s], &ign, NULL);
    }
  }
  fl_cleanup_table.installed = 1;
}

void fl_cleanup_child(void)
{
  for (size_t s = 0; s < sizeof fl_cleanup_signals / sizeof fl_cleanup_signals[0]; s++) {
    struct sigaction old;
    if (sigaction(fl_cleanup_signals[s], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;
    signal(fl_cleanup_signals[s], SIG_DFL);
  }
}

fl_err fl_cleanup_add(const char *path)
{
  if (strlen(path) >= PATH_MAX)
    return fl_err_set(FL_ERR_INTERNAL, "temporary path too long: %s", path);
  if (!fl_cleanup_table.installed)
    fl_cleanup_install();
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

static int fl_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)ftw;
  return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int fl_remove_tree(const char *dir)
{
  return nftw(dir, fl_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
