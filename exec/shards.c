/* shards.c — `faultline sweep`'s shards: launched, awaited, merged (see shards.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "shards.h"

#include "db.h"
#include "merge.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Append `s` to f as one shell word (single-quoted). */
static void fl_sh_word(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputs("'\\''", f);
    else
      fputc(*s, f);
  }
  fputc('\'', f);
}

/* The sweep as a Slurm job array: DIR/sweep.sbatch runs shard $SLURM_ARRAY_TASK_ID of N (`simulate --shard`, its own
 * SQLite file in DIR: SQLite must not be shared over a network file system), submitted with `sbatch --wait` (and
 * FAULTLINE_SBATCH_ARGS: partition, account, time) so that the merge follows. Paths are absolute: the tasks run on
 * compute nodes, which must see this faultline, the scenario and DIR (a shared file system). *failed: 1 when
 * sbatch says a task failed. */
void fl_shards_slurm_script(FILE *f, const fl_shards_opts *o, const char *abs_path, const char *abs_dir)
{
  fprintf(f, "#!/bin/sh\n# written by faultline sweep --launcher slurm: shard $SLURM_ARRAY_TASK_ID of %ld\n",
          o->nshards);
  fprintf(f, "#SBATCH --job-name=faultline-sweep\n#SBATCH --array=1-%ld", o->nshards);
  if (o->jobs_given)
    fprintf(f, "%%%ld", o->jobs); /* at most --jobs tasks at a time */
  fprintf(f, "\n#SBATCH --output=%s/slurm-%%a.out\n#SBATCH --ntasks=1\n", abs_dir);
  fputs("exec ", f);
  fl_sh_word(f, o->self);
  fputs(" simulate ", f);
  fl_sh_word(f, abs_path);
  for (int k = 0; k < o->npass; k++) {
    fputc(' ', f);
    fl_sh_word(f, o->pass[k]);
  }
  fprintf(f, " --shard \"$SLURM_ARRAY_TASK_ID/%ld\" --db ", o->nshards);
  fl_sh_word(f, abs_dir);
  fputs("\"/shard-$SLURM_ARRAY_TASK_ID.sqlite\" --quiet\n", f);
}

static fl_err fl_shards_slurm(const fl_shards_opts *o, long *failed)
{
  fl_err rc = FL_OK;
  char script[4200], abs_dir[4096], *abs_path = NULL;
  FILE *f = NULL;
  pid_t pid;
  int st = 0;
  FL_CHECK(realpath(o->dir, abs_dir), FL_ERR_INPUT, "--dir %s: %s", o->dir, strerror(errno));
  FL_CHECK((abs_path = realpath(o->path, NULL)), FL_ERR_INPUT, "%s: %s", o->path, strerror(errno));
  snprintf(script, sizeof script, "%s/sweep.sbatch", abs_dir);
  FL_CHECK((f = fopen(script, "w")), FL_ERR_IO, "%s: %s", script, strerror(errno));
  fl_shards_slurm_script(f, o, abs_path, abs_dir);
  {
    int closed = fclose(f);
    f = NULL;
    FL_CHECK(closed == 0, FL_ERR_IO, "%s: %s", script, strerror(errno));
  }
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "fork: %s", strerror(errno));
  if (pid == 0) {
    char *av[80], *extra = getenv("FAULTLINE_SBATCH_ARGS") ? strdup(getenv("FAULTLINE_SBATCH_ARGS")) : NULL;
    char *save = NULL, *tok;
    int c = 0;
    av[c++] = "sbatch";
    av[c++] = "--wait";
    if (o->quiet)
      av[c++] = "--quiet";
    for (tok = extra ? strtok_r(extra, " ", &save) : NULL; tok && c < 70; tok = strtok_r(NULL, " ", &save))
      av[c++] = tok;
    av[c++] = script;
    av[c] = NULL;
    if (o->quiet && freopen("/dev/null", "w", stdout) == NULL)
      _exit(1);
    execvp("sbatch", av);
    _exit(127);
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  FL_CHECK(!(WIFEXITED(st) && WEXITSTATUS(st) == 127), FL_ERR_INPUT,
           "--launcher slurm: sbatch not found (on a cluster, load Slurm's environment first)");
  *failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
done:
  if (f)
    fclose(f);
  free(abs_path);
  return rc;
}

/* Start `faultline simulate PATH PASS... --shard I/N --db DB --quiet` for shard index `i` (0-based), stdout to
 * /dev/null; `ready_fd` / `after_fd` (or -1) passed on as --ready-fd / --after-fd, `close_fds` closed in it. */
static fl_err fl_shards_spawn(const fl_shards_opts *o, long i, const char *db, int ready_fd, int after_fd,
                              const int *close_fds, int nclose, pid_t *child)
{
  fl_err rc = FL_OK;
  pid_t pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "fork: %s", strerror(errno));
  if (child)
    *child = pid;
  if (pid == 0) {
    char *av[64 + 256], shard[48], fd[16], afd[16];
    int c = 0;
    for (int k = 0; k < nclose; k++)
      close(close_fds[k]);
    snprintf(shard, sizeof shard, "%ld/%ld", i + 1, o->nshards);
    av[c++] = "faultline";
    av[c++] = "simulate";
    av[c++] = (char *)(uintptr_t)o->path;
    for (int k = 0; k < o->npass && c < 250; k++)
      av[c++] = (char *)(uintptr_t)o->pass[k];
    av[c++] = "--shard";
    av[c++] = shard;
    av[c++] = "--db";
    av[c++] = (char *)db;
    av[c++] = "--quiet";
    av[c++] = "--jobs"; /* the sweep runs --jobs shards side by side: each one process, not one per core */
    av[c++] = "1";
    if (ready_fd >= 0) {
      snprintf(fd, sizeof fd, "%d", ready_fd);
      av[c++] = "--ready-fd";
      av[c++] = fd;
    }
    if (after_fd >= 0) {
      snprintf(afd, sizeof afd, "%d", after_fd);
      av[c++] = "--after-fd";
      av[c++] = afd;
    }
    av[c] = NULL;
    if (freopen("/dev/null", "w", stdout) == NULL)
      _exit(1);
    execv(o->self, av);
    _exit(127);
  }
done:
  return rc;
}

fl_err fl_shards_run(const fl_shards_opts *o, int *code)
{
  fl_err rc = FL_OK;
  const char **shards = NULL;
  char **paths = NULL;
  long running = 0, next = 0, failed = 0;
  int incomplete = 0, made_dir = 0;
  ssize_t len;

  *code = 0;
  /* a Slurm sweep is checked here, before anything is submitted: bad input is one line and nothing runs (a local
   * sweep's first shard checks it, below) */
  if (o->slurm) {
    char cmd[8192];
    int st;
    len = snprintf(cmd, sizeof cmd, "'%s' simulate '%s' --print", o->self, o->path);
    for (int k = 0; k < o->npass; k++)
      len += snprintf(cmd + len, sizeof cmd - (size_t)len, " '%s'", o->pass[k]);
    snprintf(cmd + len, sizeof cmd - (size_t)len, " >/dev/null");
    st = system(cmd);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
      *code = 2; /* bad input: said in one line by the check above; nothing ran */
      goto done;
    }
    FL_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, FL_ERR_IO, "sweep: checking the scenario failed (status %d)", st);
  }
  made_dir = mkdir(o->dir, 0777) == 0;
  FL_CHECK(made_dir || errno == EEXIST, FL_ERR_INPUT, "--dir %s: %s", o->dir, strerror(errno));
  FL_ALLOC(paths, o->nshards);
  FL_ALLOC(shards, o->nshards);
  for (long i = 0; i < o->nshards; i++) {
    FL_ALLOC(paths[i], strlen(o->dir) + 32);
    sprintf(paths[i], "%s/shard-%ld.sqlite", o->dir, i + 1);
    shards[i] = paths[i];
  }
  if (!o->quiet && o->slurm)
    fprintf(stderr, "faultline: sweep %s: %ld shards, %ld at a time, a Slurm job array, in %s/\n", o->name, o->nshards,
            o->jobs, o->dir);
  if (o->slurm) {
    FL_TRY(fl_shards_slurm(o, &failed));
    next = o->nshards; /* every shard ran as an array task: merge them */
  }
  if (!o->slurm && next < o->nshards) {
    /* The first shard checks every input before it writes anything (as the whole sweep's check) and says when it
     * is past that (--ready-fd). The others of the first wave set up at the same time, and wait (--after-fd)
     * for its word before they open their databases: a byte each, go on; end of file, it found bad input (said
     * in one line, exit 2), and they leave without a word. */
    int pfd[2] = {-1, -1}, gfd[2] = {-1, -1};
    long wave = o->jobs < o->nshards ? o->jobs : o->nshards;
    pid_t first = -1;
    char b;
    ssize_t n;
    FL_CHECK(pipe(pfd) == 0 && pipe(gfd) == 0, FL_ERR_IO, "pipe: %s", strerror(errno));
    for (long k = 0; k < wave; k++) {
      int close_fds[3] = {k == 0 ? pfd[0] : pfd[1], gfd[1], k == 0 ? gfd[0] : pfd[0]};
      FL_TRY(fl_shards_spawn(o, next, paths[next], k == 0 ? pfd[1] : -1, k == 0 ? -1 : gfd[0], close_fds, 3,
                             k == 0 ? &first : NULL));
      next++;
      running++;
    }
    close(pfd[1]);
    close(gfd[0]);
    while ((n = read(pfd[0], &b, 1)) < 0 && errno == EINTR)
      ;
    close(pfd[0]);
    if (n == 1) {
      for (long k = 1; k < wave; k++)
        if (write(gfd[1], "1", 1) != 1)
          break;
      if (!o->quiet) /* the input is good: the sweep goes on */
        fprintf(stderr, "faultline: sweep %s: %ld shards, %ld at a time, local processes, in %s/\n", o->name,
                o->nshards, o->jobs, o->dir);
    }
    close(gfd[1]);
    if (n != 1) {
      /* it ended before it was ready: bad input (said in one line) or a failure; the others leave */
      int st = 0, bad = 0;
      pid_t w;
      while (running > 0 && (w = wait(&st)) > 0) {
        running--;
        if (w == first)
          bad = WIFEXITED(st) && WEXITSTATUS(st) == 2;
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
      }
      if (bad) {
        if (made_dir)
          rmdir(o->dir); /* ours, and empty: nothing ran */
        *code = 2;
        goto done;
      }
    }
  }
  while (next < o->nshards || running > 0) {
    while (running < o->jobs && next < o->nshards) {
      FL_TRY(fl_shards_spawn(o, next, paths[next], -1, -1, NULL, 0, NULL));
      next++;
      running++;
    }
    {
      int st = 0;
      if (wait(&st) > 0) {
        running--;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
          failed++;
      }
    }
  }
  if (failed)
    fprintf(stderr, "faultline: sweep: %ld shard%s failed; run the same command again to finish them\n", failed,
            failed == 1 ? "" : "s");
  {
    FILE *log = o->quiet ? fopen("/dev/null", "w") : stderr;
    rc = fl_db_merge(o->out, shards, (int)o->nshards, log ? log : stderr, &incomplete);
    if (log && log != stderr)
      fclose(log);
    FL_TRY(rc);
  }
  if (!o->quiet)
    fprintf(stderr, "faultline: sweep %s: merged into %s (faultline report %s)\n", o->name, o->out, o->out);
done:
  if (paths)
    for (long i = 0; i < o->nshards; i++)
      free(paths[i]);
  free(paths);
  free(shards);
  if (rc == FL_OK && !*code)
    *code = failed || incomplete ? 1 : 0;
  return rc;
}

/* ---- the shard's side ---- */

int fl_shards_go(long *fd)
{
  static int go = -1;
  if (*fd >= 0) {
    char b;
    ssize_t n;
    while ((n = read((int)*fd, &b, 1)) < 0 && errno == EINTR)
      ;
    close((int)*fd);
    *fd = -1;
    go = n == 1;
  }
  return go == 1;
}

/* Run the command again for platform group `g`, with `extra` ("--count" or NULL) added and the sweep's descriptors
 * left out; *status gets its exit status, and with --count *count the number it printed. Its stderr is this one's,
 * or `errcap` when given; its stdout too, unless counting. */
static fl_err fl_shards_group(const fl_groups_opts *o, int g, const char *extra, int *status, long *count, FILE *errcap)
{
  fl_err rc = FL_OK;
  char gbuf[16], **av = NULL, buf[64];
  int pfd[2] = {-1, -1}, c = 0, st = 0;
  pid_t pid;
  FL_ALLOC(av, (size_t)o->argc + 8);
  av[c++] = "faultline";
  for (int i = 0; i < o->argc; i++) {
    if (i > 0 && (strcmp(o->argv[i], "--ready-fd") == 0 || strcmp(o->argv[i], "--after-fd") == 0)) {
      i++; /* the sweep's word is for this process */
      continue;
    }
    if (i > 0 && (strncmp(o->argv[i], "--ready-fd=", 11) == 0 || strncmp(o->argv[i], "--after-fd=", 11) == 0))
      continue;
    av[c++] = o->argv[i];
  }
  snprintf(gbuf, sizeof gbuf, "%d", g);
  av[c++] = "--platform-group";
  av[c++] = gbuf;
  if (extra)
    av[c++] = (char *)(uintptr_t)extra;
  av[c] = NULL;
  if (count)
    FL_CHECK(pipe(pfd) == 0, FL_ERR_IO, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "fork: %s", strerror(errno));
  if (pid == 0) {
    if (errcap && dup2(fileno(errcap), STDERR_FILENO) < 0)
      _exit(1);
    if (count) {
      close(pfd[0]);
      if (dup2(pfd[1], STDOUT_FILENO) < 0)
        _exit(1);
      close(pfd[1]);
    }
    execv(o->self, av);
    _exit(127);
  }
  if (count) {
    size_t n = 0;
    ssize_t r;
    close(pfd[1]);
    pfd[1] = -1;
    while (n + 1 < sizeof buf && ((r = read(pfd[0], buf + n, sizeof buf - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
      n += r > 0 ? (size_t)r : 0;
    buf[n] = '\0';
    *count = strtol(buf, NULL, 10);
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
done:
  if (pfd[0] >= 0)
    close(pfd[0]);
  if (pfd[1] >= 0)
    close(pfd[1]);
  free(av);
  return rc;
}

fl_err fl_shards_groups(const fl_groups_opts *o, int *code)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  FILE *errcap = NULL;
  long total = 0, after_fd = o->after_fd;
  int st = 0;
  *code = 0;
  /* the checks' words are kept: a failing check's are said (unless this is a shard started beside the sweep's
   * first, --after-fd, and the first refused the input: it said so), a passing check's warnings are said again
   * by the run itself */
  FL_CHECK((errcap = tmpfile()) != NULL, FL_ERR_IO, "a temporary file: %s", strerror(errno));
  for (int g = 0; g < o->ngroups; g++) {
    long n = 0;
    rewind(errcap); /* this check's words only */
    FL_CHECK(ftruncate(fileno(errcap), 0) == 0, FL_ERR_IO, "a temporary file: %s", strerror(errno));
    FL_TRY(fl_shards_group(o, g, o->print ? NULL : "--count", &st, o->print ? NULL : &n, o->print ? NULL : errcap));
    if (st != 0) {
      *code = st; /* it said why, in one line; nothing was written */
      if (after_fd < 0 || fl_shards_go(&after_fd)) {
        char line[4096];
        rewind(errcap);
        while (fgets(line, sizeof line, errcap))
          fputs(line, stderr);
      }
      goto done;
    }
    total += n;
  }
  if (after_fd >= 0 && !fl_shards_go(&after_fd)) {
    *code = 2; /* the first shard refused the input and said why */
    goto done;
  }
  if (o->print)
    goto done;
  FL_TRY(fl_db_open(o->db, &db));
  if (o->shard_n > 1)
    FL_TRY(fl_db_record_shard(db, o->sweep_id, o->shard_i, o->shard_n, total));
  fl_db_close(&db);
  if (o->ready_fd >= 0) {
    ssize_t w = write((int)o->ready_fd, "1", 1);
    (void)w; /* the sweep reads end of file as "not ready": nothing to do if it went away */
    close((int)o->ready_fd);
  }
  for (int g = 0; g < o->ngroups; g++) {
    FL_TRY(fl_shards_group(o, g, NULL, &st, NULL, NULL));
    *code = st > *code ? st : *code;
  }
done:
  if (errcap)
    fclose(errcap);
  fl_db_close(&db);
  return rc;
}
