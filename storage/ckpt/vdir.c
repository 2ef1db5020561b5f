/* vdir.c — the version-directory protocol of the on-disk stores (layout in store_impl.h).
 *
 * Why it is crash-safe: a version's files are written into .tmp-vNNN, the MANIFEST last, then each file and the
 * directory itself fsync'd; rename(2) of the directory to vNNN is atomic, and the parent is fsync'd after it.
 * A reader only ever looks at vNNN names, so it sees a version completely or not at all, whatever instant the
 * writer died (kill -9) or the machine lost power (given a file system that honours fsync). Retention renames
 * an old version to .del-vNNN before removing its files, so a half-removed version is never mistaken for a
 * committed one, and it runs only after the new version is durable. One writer per directory (flock on LOCK),
 * so the next writer may clear .tmp-* and .del-* left by a dead one. flock is BSD/Linux, hence _GNU_SOURCE.
 *
 * Speed: the fsyncs come after all files are written, and on Linux each file's writeback is started as soon
 * as it is written (sync_file_range, which waits for nothing and makes nothing durable by itself), so the disk
 * works on one file while we write the next and the fsyncs find little left to do. */
#define _GNU_SOURCE /* flock; sync_file_range on Linux */
#include "store_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define FL_VDIR_FORMAT_FILE "FORMAT"
#define FL_VDIR_LOCK_FILE "LOCK"
#define FL_VDIR_MANIFEST "MANIFEST"
#define FL_VDIR_MAGIC "faultline-checkpoints 1\n"
#define FL_VDIR_DIGITS 12
#define FL_VDIR_SLURP_MAX (256u << 20) /* FORMAT, MANIFEST, payload files read whole */

static fl_err fl_vdir_errno(const char *path, const char *what)
{
  return fl_err_set(FL_ERR_IO, "%s: %s: %s", path, what, strerror(errno));
}

static void fl_vdir_name(char *buf, size_t size, const char *prefix, long v)
{
  snprintf(buf, size, "%sv%0*ld", prefix, FL_VDIR_DIGITS, v);
}

/* name == prefix "v" and exactly 12 digits: *v gets the number. */
static int fl_vdir_parse(const char *name, const char *prefix, long *v)
{
  size_t pl = strlen(prefix);
  long x = 0;
  if (strncmp(name, prefix, pl) != 0 || name[pl] != 'v')
    return 0;
  name += pl + 1;
  for (int i = 0; i < FL_VDIR_DIGITS; i++) {
    if (name[i] < '0' || name[i] > '9')
      return 0;
    x = 10 * x + (name[i] - '0');
  }
  if (name[FL_VDIR_DIGITS] != '\0')
    return 0;
  *v = x;
  return 1;
}

void fl_vdir_path(const fl_ckpt_store *s, long version, const char *name, char *buf, size_t size)
{
  snprintf(buf, size, "%s/v%0*ld%s%s", s->path, FL_VDIR_DIGITS, version, name ? "/" : "", name ? name : "");
}

void fl_vdir_txn_path(const fl_vdir_txn *t, const char *name, char *buf, size_t size)
{
  snprintf(buf, size, "%s/.tmp-v%0*ld/%s", t->store->path, FL_VDIR_DIGITS, t->version, name);
}

#define FL_VDIR_PIECE (256u << 10) /* hashed while in cache, then written */

/* Write all of data to fd; with st, hash each piece just before writing it (it is then in cache for both). */
static fl_err fl_vdir_write_all(int fd, const void *data, size_t n, const char *path, XXH3_state_t *st)
{
  const unsigned char *p = data;
  while (n > 0) {
    size_t piece = n < FL_VDIR_PIECE ? n : FL_VDIR_PIECE;
    if (st)
      XXH3_64bits_update(st, p, piece);
    n -= piece;
    while (piece > 0) {
      ssize_t k = write(fd, p, piece);
      if (k < 0 && errno == EINTR)
        continue;
      if (k < 0)
        return fl_vdir_errno(path, "write");
      p += k;
      piece -= (size_t)k;
    }
  }
  return FL_OK;
}

/* Remove directory `name` (under parent) and the files in it; absent is fine. */
static fl_err fl_vdir_rmtree(int parent, const char *name, const char *root)
{
  fl_err rc = FL_OK;
  DIR *d = NULL;
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0) {
    if (errno == ENOENT)
      return FL_OK;
    return fl_err_set(FL_ERR_IO, "%s/%s: cannot open to remove: %s", root, name, strerror(errno));
  }
  d = fdopendir(fd);
  if (!d) {
    close(fd);
    return fl_err_set(FL_ERR_IO, "%s/%s: %s", root, name, strerror(errno));
  }
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (n == cap) {
      char **g = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *g);
      FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory listing %s/%s", root, name);
      names = g;
    }
    names[n] = strdup(e->d_name);
    FL_CHECK(names[n] != NULL, FL_ERR_NOMEM, "out of memory listing %s/%s", root, name);
    n++;
  }
  for (size_t i = 0; i < n; i++)
    FL_CHECK(unlinkat(dirfd(d), names[i], 0) == 0 || errno == ENOENT, FL_ERR_IO, "%s/%s/%s: cannot remove: %s", root,
             name, names[i], strerror(errno));
  FL_CHECK(unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT, FL_ERR_IO, "%s/%s: cannot remove: %s", root,
           name, strerror(errno));
done:
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  closedir(d);
  return rc;
}

/* Read a whole small file under parent into out (NUL-terminated, size without the NUL). */
static fl_err fl_vdir_slurp(int parent, const char *name, const char *path, fl_ckpt_buf *out)
{
  fl_err rc = FL_OK;
  struct stat st;
  size_t got = 0;
  /* O_NONBLOCK: opening a FIFO someone left here must not wait for a writer; regular files ignore the flag */
  int fd = openat(parent, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

  if (fd < 0) {
    if (errno == ENOENT)
      return fl_err_set(FL_ERR_IO, "%s: missing", path);
    return fl_vdir_errno(path, "open");
  }
  FL_CHECK(fstat(fd, &st) == 0, FL_ERR_IO, "%s: stat: %s", path, strerror(errno));
  FL_CHECK(S_ISREG(st.st_mode), FL_ERR_IO, "%s: not a regular file", path);
  FL_CHECK(st.st_size <= (off_t)FL_VDIR_SLURP_MAX, FL_ERR_IO, "%s: %lld bytes, more than a checkpoint's metadata file",
           path, (long long)st.st_size);
  FL_TRY(fl_ckpt_buf_reserve(out, (size_t)st.st_size + 1));
  while (got < (size_t)st.st_size) {
    ssize_t k = read(fd, out->data + got, (size_t)st.st_size - got);
    if (k < 0 && errno == EINTR)
      continue;
    FL_CHECK(k >= 0, FL_ERR_IO, "%s: read: %s", path, strerror(errno));
    FL_CHECK(k > 0, FL_ERR_IO, "%s: shorter than its size (%zu of %lld bytes)", path, got, (long long)st.st_size);
    got += (size_t)k;
  }
  out->data[got] = '\0';
  out->size = got;
done:
  close(fd);
  return rc;
}

/* The store type as every committed version's MANIFEST (checksummed) states it: FORMAT is a cache of this, so
 * a damaged FORMAT costs nothing. 0 with name set when the versions agree; FL_ERR_INPUT when there is none. */
static fl_err fl_vdir_derive_format(int fd, const char *path, char *name, size_t size, long *from)
{
  fl_err rc = FL_OK;
  DIR *d = NULL;
  struct dirent *e;
  fl_ckpt_buf b = {0};
  fl_ckpt_manifest m;
  int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  long v;

  memset(&m, 0, sizeof m);
  name[0] = '\0';
  *from = -1;
  FL_CHECK(dfd >= 0 && (d = fdopendir(dfd)) != NULL, FL_ERR_IO, "%s: cannot list: %s", path, strerror(errno));
  while ((e = readdir(d)) != NULL) {
    char rel[300], where[4400];
    if (!fl_vdir_parse(e->d_name, "", &v))
      continue;
    snprintf(rel, sizeof rel, "%s/%s", e->d_name, FL_VDIR_MANIFEST);
    snprintf(where, sizeof where, "%s/%s", path, rel);
    if (fl_vdir_slurp(fd, rel, where, &b) != FL_OK || fl_ckpt_manifest_parse(b.data, b.size, where, &m) != FL_OK) {
      fl_ckpt_manifest_clear(&m);
      continue; /* a damaged version says nothing; `verify` reports it */
    }
    if (!name[0] || v > *from) {
      snprintf(name, size, "%s", m.store);
      *from = v;
    }
    fl_ckpt_manifest_clear(&m);
  }
  fl_err_clear();
  FL_CHECK(name[0], FL_ERR_INPUT, "%s: no intact version to learn the store type from", path);
done:
  if (d)
    closedir(d);
  else if (dfd >= 0)
    close(dfd);
  fl_ckpt_buf_free(&b);
  return rc;
}

fl_err fl_vdir_format(const char *path, char *name, size_t size)
{
  fl_err rc = FL_OK;
  fl_ckpt_buf b = {0};
  char where[4096], why[4200] = "";
  const char *p = NULL;
  long from = -1;
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  snprintf(where, sizeof where, "%s/%s", path, FL_VDIR_FORMAT_FILE);
  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? fl_err_set(FL_ERR_INPUT, "%s: no such checkpoint directory", path)
                                               : fl_vdir_errno(path, "open");
  if (fl_vdir_slurp(fd, FL_VDIR_FORMAT_FILE, where, &b) != FL_OK)
    snprintf(why, sizeof why, "%s", fl_err_msg());
  else if (strncmp((char *)b.data, FL_VDIR_MAGIC, strlen(FL_VDIR_MAGIC)) != 0 ||
           (p = strstr((char *)b.data, "\nstore ")) == NULL || strcspn(p + 7, "\n") == 0 ||
           p[7 + strcspn(p + 7, "\n")] != '\n')
    snprintf(why, sizeof why, "%s: damaged or of a newer format", where);
  if (!why[0]) {
    p += 7;
    snprintf(name, size, "%.*s", (int)strcspn(p, "\n"), p);
    goto done;
  }
  /* FORMAT is missing or damaged: the versions' own manifests say what the store is */
  if (fl_vdir_derive_format(fd, path, name, size, &from) != FL_OK) {
    rc = fl_err_set(FL_ERR_INPUT, "%s: not a faultline checkpoint directory (%s, and no intact version)", path, why);
    goto done;
  }
  fprintf(stderr, "faultline: warning: %s; store type '%s' taken from v%0*ld/MANIFEST (checksummed)\n", why, name,
          FL_VDIR_DIGITS, from);
done:
  close(fd);
  fl_ckpt_buf_free(&b);
  return rc;
}

/* Write path/FORMAT atomically: temporary name, fsync, rename, fsync the directory. */
static fl_err fl_vdir_write_format(fl_ckpt_store *s)
{
  fl_err rc = FL_OK;
  char text[128];
  int fd;
  int n = snprintf(text, sizeof text, "%sstore %s\n", FL_VDIR_MAGIC, s->ops->name);

  fd = openat(s->root_fd, ".tmp-FORMAT", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fl_vdir_errno(s->path, "cannot create FORMAT");
  rc = fl_vdir_write_all(fd, text, (size_t)n, s->path, NULL);
  if (rc == FL_OK && fsync(fd) != 0)
    rc = fl_vdir_errno(s->path, "fsync FORMAT");
  close(fd);
  if (rc != FL_OK) {
    (void)unlinkat(s->root_fd, ".tmp-FORMAT", 0); /* a disk full leaves nothing half-written */
    goto done;
  }
  FL_CHECK(renameat(s->root_fd, ".tmp-FORMAT", s->root_fd, FL_VDIR_FORMAT_FILE) == 0, FL_ERR_IO,
           "%s: cannot rename FORMAT into place: %s", s->path, strerror(errno));
  FL_CHECK(fsync(s->root_fd) == 0, FL_ERR_IO, "%s: fsync: %s", s->path, strerror(errno));
done:
  return rc;
}

/* Is FORMAT present and exactly what this store would write? */
static int fl_vdir_format_intact(fl_ckpt_store *s)
{
  fl_ckpt_buf b = {0};
  char want[128];
  int ok;
  snprintf(want, sizeof want, "%sstore %s\n", FL_VDIR_MAGIC, s->ops->name);
  ok = fl_vdir_slurp(s->root_fd, FL_VDIR_FORMAT_FILE, s->path, &b) == FL_OK && b.size == strlen(want) &&
       memcmp(b.data, want, b.size) == 0;
  fl_ckpt_buf_free(&b);
  fl_err_clear();
  return ok;
}

/* 1 when the directory has no entries besides . and .. and what a writer that died in its first open left
 * (LOCK, .tmp-FORMAT). */
static fl_err fl_vdir_is_empty(fl_ckpt_store *s, int *empty)
{
  DIR *d;
  struct dirent *e;
  int fd = openat(s->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (d = fdopendir(fd)) == NULL) {
    if (fd >= 0)
      close(fd);
    return fl_vdir_errno(s->path, "cannot list");
  }
  *empty = 1;
  while ((e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, FL_VDIR_LOCK_FILE) != 0 &&
        strcmp(e->d_name, ".tmp-FORMAT") != 0)
      *empty = 0;
  closedir(d);
  return FL_OK;
}

/* ---- the writer's lock and who holds it ----
 * LOCK is flock'd by the one writer, and names it: "pid P host H boot B start T" (the kernel's boot id and the
 * process's start time in clock ticks make the pair unique: a pid reused after the writer died is not it). A writer
 * opened with take_over (its caller holds a runtime's verdict that the previous writer is dead: a rank declared
 * failed, whose role this process now holds) kills a holder still alive on this machine — stopped, or hung — and
 * takes the lock when the kernel releases it; a holder on another machine is named in the error instead. */
static void fl_vdir_boot_id(char *buf, size_t size)
{
  FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
  buf[0] = '\0';
  if (f) {
    if (!fgets(buf, (int)size, f))
      buf[0] = '\0';
    fclose(f);
  }
  buf[strcspn(buf, "\n ")] = '\0';
}

/* The start time (field 22 of /proc/PID/stat), or 0 when the process does not exist. */
static unsigned long long fl_vdir_start_time(long pid)
{
  char path[64], line[1024], *p;
  unsigned long long t = 0;
  FILE *f;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  f = fopen(path, "r");
  if (!f)
    return 0;
  if (fgets(line, sizeof line, f) && (p = strrchr(line, ')')) != NULL) {
    /* after "pid (comm)": state is field 3, starttime field 22 */
    int field = 2;
    for (char *sv = NULL, *tok = strtok_r(p + 1, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv))
      if (++field == 22) {
        t = strtoull(tok, NULL, 10);
        break;
      }
  }
  fclose(f);
  return t;
}

static void fl_vdir_write_holder(fl_ckpt_store *s)
{
  char host[256] = "?", boot[64], rec[512];
  int n;
  if (gethostname(host, sizeof host) != 0)
    snprintf(host, sizeof host, "?");
  host[sizeof host - 1] = '\0';
  fl_vdir_boot_id(boot, sizeof boot);
  n = snprintf(rec, sizeof rec, "pid %ld host %s boot %s start %llu\n", (long)getpid(), host, boot[0] ? boot : "?",
               fl_vdir_start_time((long)getpid()));
  /* advisory: a lock without its record still locks */
  if (ftruncate(s->lock_fd, 0) == 0 && pwrite(s->lock_fd, rec, (size_t)n, 0) == n)
    (void)fdatasync(s->lock_fd);
}

/* The holder's record from LOCK: 0, or -1 when it has none (a writer of an older faultline). */
static int fl_vdir_holder(fl_ckpt_store *s, long *pid, char host[256], char boot[64], unsigned long long *start)
{
  char rec[512] = "";
  ssize_t n = pread(s->lock_fd, rec, sizeof rec - 1, 0);
  if (n <= 0)
    return -1;
  rec[n] = '\0';
  return sscanf(rec, "pid %ld host %255s boot %63s start %llu", pid, host, boot, start) == 4 && *pid > 0 ? 0 : -1;
}

/* Kill the holder named in LOCK and take the lock (take_over): 0, or -1 with `who` saying whom (and why not).
 * Without take_over: -1, `who` naming the holder. */
static int fl_vdir_take_over(fl_ckpt_store *s, char *who, size_t size)
{
  char host[256] = "", boot[64] = "", myboot[64];
  long pid = 0;
  unsigned long long start = 0;
  if (fl_vdir_holder(s, &pid, host, boot, &start) != 0) {
    if (s->take_over)
      snprintf(who, size, "unnamed: LOCK holds no writer's record, so it cannot be stopped");
    return -1;
  }
  if (!s->take_over) {
    snprintf(who, size, "pid %ld on %s", pid, host);
    return -1;
  }
  fl_vdir_boot_id(myboot, sizeof myboot);
  if (strcmp(boot, myboot) != 0) {
    snprintf(who, size, "pid %ld on %s, another machine: it cannot be stopped from here", pid, host);
    return -1;
  }
  if (pid == (long)getpid()) {
    snprintf(who, size, "this process, pid %ld", pid);
    return -1;
  }
  if (fl_vdir_start_time(pid) == start)
    (void)kill((pid_t)pid, SIGKILL); /* stopped or running: SIGKILL ends it either way */
  /* the kernel releases the flock when the process's last descriptor closes, as it exits: wait up to 10 s */
  for (int i = 0; i < 1000; i++) {
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0) {
      fprintf(stderr, "faultline: %s: took over the checkpoint directory from its dead writer (pid %ld on %s)\n",
              s->path, pid, host);
      return 0;
    }
    usleep(10000);
  }
  snprintf(who, size, "pid %ld on %s, still holding it 10 s after SIGKILL", pid, host);
  return -1;
}

fl_err fl_vdir_open(fl_ckpt_store *s)
{
  fl_err rc = FL_OK;
  char fmt[64] = "";
  int have_format, empty = 0;
  struct stat st;

  if (!s->read_only && mkdir(s->path, 0755) != 0 && errno != EEXIST)
    return fl_vdir_errno(s->path, "cannot create the checkpoint directory");
  s->root_fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s->root_fd < 0)
    return errno == ENOENT ? fl_err_set(FL_ERR_INPUT, "%s: no such checkpoint directory", s->path)
                           : fl_vdir_errno(s->path, "cannot open the checkpoint directory");
  have_format = fstatat(s->root_fd, FL_VDIR_FORMAT_FILE, &st, 0) == 0;
  if (!have_format && !s->read_only) {
    /* no FORMAT but committed versions: a lost FORMAT, re-derived below and written back */
    char probe[64];
    long from;
    if (fl_vdir_derive_format(s->root_fd, s->path, probe, sizeof probe, &from) == FL_OK)
      have_format = 1;
    fl_err_clear();
  }
  if (have_format || s->read_only) {
    FL_TRY(fl_vdir_format(s->path, fmt, sizeof fmt));
    FL_CHECK(strcmp(fmt, s->ops->name) == 0, FL_ERR_INPUT, "%s: holds '%s' checkpoints, not '%s'", s->path, fmt,
             s->ops->name);
  } else {
    FL_TRY(fl_vdir_is_empty(s, &empty));
    FL_CHECK(empty, FL_ERR_INPUT,
             "%s: not empty and not a faultline checkpoint directory (no FORMAT file); refusing to write there",
             s->path);
  }
  if (s->read_only)
    goto done;
  s->lock_fd = openat(s->root_fd, FL_VDIR_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  FL_CHECK(s->lock_fd >= 0, FL_ERR_IO, "%s/%s: %s", s->path, FL_VDIR_LOCK_FILE, strerror(errno));
  if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
    char who[160] = "";
    if (errno != EWOULDBLOCK) {
      rc = fl_vdir_errno(s->path, "cannot lock");
      goto done;
    }
    if (fl_vdir_take_over(s, who, sizeof who) != 0) {
      rc = fl_err_set(FL_ERR_IO, "%s: another writer%s%s%s has this checkpoint directory open", s->path,
                      who[0] ? " (" : "", who, who[0] ? ")" : "");
      goto done;
    }
  }
  fl_vdir_write_holder(s);
  if (!have_format || !fl_vdir_format_intact(s))
    FL_TRY(fl_vdir_write_format(s)); /* new, lost or damaged: (re)written, from the store type checked above */
  /* What a dead writer left: its temporary version and a half-removed old one. */
  {
    DIR *d;
    struct dirent *e;
    long v;
    int fd = openat(s->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    FL_CHECK(fd >= 0 && (d = fdopendir(fd)) != NULL, FL_ERR_IO, "%s: cannot list: %s", s->path, strerror(errno));
    while (rc == FL_OK && (e = readdir(d)) != NULL)
      if (fl_vdir_parse(e->d_name, ".tmp-", &v) || fl_vdir_parse(e->d_name, ".del-", &v))
        rc = fl_vdir_rmtree(s->root_fd, e->d_name, s->path);
    closedir(d);
  }
done:
  return rc;
}

void fl_vdir_close(fl_ckpt_store *s)
{
  if (s->lock_fd >= 0)
    close(s->lock_fd); /* releases the flock */
  if (s->root_fd >= 0)
    close(s->root_fd);
  s->lock_fd = s->root_fd = -1;
}

fl_err fl_vdir_begin(fl_ckpt_store *s, long version, fl_vdir_txn *t)
{
  fl_err rc = FL_OK;
  char tmp[64], fin[64], where[4096];
  struct stat st;

  t->store = s;
  t->version = version;
  t->fd = -1;
  t->unsynced = NULL;
  t->nunsynced = t->capunsynced = 0;
  fl_vdir_name(tmp, sizeof tmp, ".tmp-", version);
  fl_vdir_name(fin, sizeof fin, "", version);
  FL_CHECK(fstatat(s->root_fd, fin, &st, AT_SYMLINK_NOFOLLOW) != 0, FL_ERR_INPUT,
           "%s/%s: version %ld already exists; versions are never overwritten", s->path, fin, version);
  FL_TRY(fl_vdir_rmtree(s->root_fd, tmp, s->path));
  snprintf(where, sizeof where, "%s/%s", s->path, tmp);
  FL_CHECK(mkdirat(s->root_fd, tmp, 0755) == 0, FL_ERR_IO, "%s: cannot create: %s", where, strerror(errno));
  t->fd = openat(s->root_fd, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  FL_CHECK(t->fd >= 0, FL_ERR_IO, "%s: cannot open: %s", where, strerror(errno));
done:
  return rc;
}

fl_err fl_vdir_write(fl_vdir_txn *t, const char *name, const void *data, size_t n, uint64_t *hash)
{
  fl_err rc = FL_OK;
  char path[4096], *copy = NULL;
  XXH3_state_t *st = NULL;
  int fd = -1;

  fl_vdir_txn_path(t, name, path, sizeof path);
  if (t->nunsynced == t->capunsynced) {
    size_t nc = t->capunsynced ? 2 * t->capunsynced : 16;
    char **g = realloc(t->unsynced, nc * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory writing %s", path);
    t->unsynced = g;
    t->capunsynced = nc;
  }
  copy = strdup(name);
  FL_CHECK(copy != NULL, FL_ERR_NOMEM, "out of memory writing %s", path);
  if (hash) {
    st = XXH3_createState();
    FL_CHECK(st != NULL, FL_ERR_NOMEM, "out of memory writing %s", path);
    XXH3_64bits_reset(st);
  }
  fd = openat(t->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = fl_vdir_errno(path, "cannot create");
    goto done;
  }
  FL_TRY(fl_vdir_write_all(fd, data, n, path, st));
#ifdef __linux__
  sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* start writeback now; a hint, errors show at fsync */
#endif
  FL_CHECK(close(fd) == 0, FL_ERR_IO, "%s: close: %s", path, strerror(errno));
  fd = -1;
  t->unsynced[t->nunsynced++] = copy;
  copy = NULL;
  if (hash)
    *hash = (uint64_t)XXH3_64bits_digest(st);
done:
  if (fd >= 0)
    close(fd);
  free(copy);
  XXH3_freeState(st);
  return rc;
}

fl_err fl_vdir_sync(fl_vdir_txn *t, const char *name)
{
  fl_err rc = FL_OK;
  char path[4096];
  int fd;

  fl_vdir_txn_path(t, name, path, sizeof path);
  fd = openat(t->fd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fl_vdir_errno(path, "cannot open");
  if (fsync(fd) != 0)
    rc = fl_vdir_errno(path, "fsync");
  close(fd);
  return rc;
}

static void fl_vdir_txn_free(fl_vdir_txn *t)
{
  for (size_t i = 0; i < t->nunsynced; i++)
    free(t->unsynced[i]);
  free(t->unsynced);
  t->unsynced = NULL;
  t->nunsynced = t->capunsynced = 0;
}

fl_err fl_vdir_prepare(fl_vdir_txn *t, const void *manifest, size_t n)
{
  fl_err rc = FL_OK;
  char path[4096];
  FL_TRY(fl_vdir_write(t, FL_VDIR_MANIFEST, manifest, n, NULL));
  for (size_t i = 0; i < t->nunsynced; i++)
    FL_TRY(fl_vdir_sync(t, t->unsynced[i]));
  fl_vdir_txn_free(t);
  fl_vdir_txn_path(t, "", path, sizeof path);
  FL_CHECK(fsync(t->fd) == 0, FL_ERR_IO, "%s: fsync: %s", path, strerror(errno));
done:
  return rc;
}

fl_err fl_vdir_publish(fl_vdir_txn *t)
{
  fl_err rc = FL_OK;
  fl_ckpt_store *s = t->store;
  char tmp[64], fin[64];

  fl_vdir_name(tmp, sizeof tmp, ".tmp-", t->version);
  fl_vdir_name(fin, sizeof fin, "", t->version);
  fl_vdir_txn_free(t);
  close(t->fd);
  t->fd = -1;
  /* A committed version directory is never empty (MANIFEST), so rename(2) cannot replace one. */
  if (renameat(s->root_fd, tmp, s->root_fd, fin) != 0) {
    rc = fl_err_set(FL_ERR_IO, "%s: cannot rename %s to %s: %s", s->path, tmp, fin, strerror(errno));
    fl_vdir_abort(t);
    goto done;
  }
  FL_CHECK(fsync(s->root_fd) == 0, FL_ERR_IO, "%s: fsync after committing %s: %s", s->path, fin, strerror(errno));
done:
  return rc;
}

void fl_vdir_abort(fl_vdir_txn *t)
{
  char tmp[64];
  fl_vdir_txn_free(t);
  if (t->fd >= 0)
    close(t->fd);
  t->fd = -1;
  fl_vdir_name(tmp, sizeof tmp, ".tmp-", t->version);
  if (fl_vdir_rmtree(t->store->root_fd, tmp, t->store->path) != FL_OK)
    fl_err_clear(); /* best effort: the next writer's open removes it */
}

static int fl_vdir_cmp(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

fl_err fl_vdir_list(fl_ckpt_store *s, long **versions, size_t *n)
{
  fl_err rc = FL_OK;
  DIR *d = NULL;
  struct dirent *e;
  long *v = NULL, x;
  size_t cap = 0, k = 0;
  int fd = openat(s->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  *versions = NULL;
  *n = 0;
  if (fd < 0 || (d = fdopendir(fd)) == NULL) {
    if (fd >= 0)
      close(fd);
    return fl_vdir_errno(s->path, "cannot list");
  }
  while ((e = readdir(d)) != NULL) {
    if (!fl_vdir_parse(e->d_name, "", &x))
      continue;
    if (k == cap) {
      long *g = realloc(v, (cap = cap ? 2 * cap : 32) * sizeof *g);
      FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory listing %s", s->path);
      v = g;
    }
    v[k++] = x;
  }
  if (k > 1)
    qsort(v, k, sizeof *v, fl_vdir_cmp);
  *versions = v;
  *n = k;
  v = NULL;
done:
  free(v);
  closedir(d);
  return rc;
}

fl_err fl_vdir_read(fl_ckpt_store *s, long version, const char *name, fl_ckpt_buf *out)
{
  char rel[128], path[4096];
  snprintf(rel, sizeof rel, "v%0*ld/%s", FL_VDIR_DIGITS, version, name);
  fl_vdir_path(s, version, name, path, sizeof path);
  return fl_vdir_slurp(s->root_fd, rel, path, out);
}

/* Stream file `rel` (under parent) through XXH3-64. */
static fl_err fl_vdir_hash_at(int parent, const char *rel, const char *path, uint64_t *bytes, uint64_t *hash)
{
  fl_err rc = FL_OK;
  XXH3_state_t *st = XXH3_createState();
  unsigned char *buf = malloc(1 << 20);
  uint64_t total = 0;
  int fd = -1;

  FL_CHECK(st && buf, FL_ERR_NOMEM, "out of memory hashing %s", path);
  fd = openat(parent, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* a FIFO must not block us */
  if (fd < 0) {
    rc = errno == ENOENT ? fl_err_set(FL_ERR_IO, "%s: missing", path) : fl_vdir_errno(path, "open");
    goto done;
  }
  {
    struct stat st;
    FL_CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode), FL_ERR_IO, "%s: not a regular file", path);
  }
  XXH3_64bits_reset(st);
  for (;;) {
    ssize_t k = read(fd, buf, 1 << 20);
    if (k < 0 && errno == EINTR)
      continue;
    FL_CHECK(k >= 0, FL_ERR_IO, "%s: read: %s", path, strerror(errno));
    if (k == 0)
      break;
    XXH3_64bits_update(st, buf, (size_t)k);
    total += (uint64_t)k;
  }
  *bytes = total;
  *hash = (uint64_t)XXH3_64bits_digest(st);
done:
  if (fd >= 0)
    close(fd);
  free(buf);
  XXH3_freeState(st);
  return rc;
}

fl_err fl_vdir_hash(fl_ckpt_store *s, long version, const char *name, uint64_t *bytes, uint64_t *hash)
{
  char rel[128], path[4096];
  snprintf(rel, sizeof rel, "v%0*ld/%s", FL_VDIR_DIGITS, version, name);
  fl_vdir_path(s, version, name, path, sizeof path);
  return fl_vdir_hash_at(s->root_fd, rel, path, bytes, hash);
}

fl_err fl_vdir_txn_hash(fl_vdir_txn *t, const char *name, uint64_t *bytes, uint64_t *hash)
{
  char path[4096];
  fl_vdir_txn_path(t, name, path, sizeof path);
  return fl_vdir_hash_at(t->fd, name, path, bytes, hash);
}

fl_err fl_vdir_read_manifest(fl_ckpt_store *s, long version, fl_ckpt_buf *out)
{
  return fl_vdir_read(s, version, FL_VDIR_MANIFEST, out);
}

fl_err fl_vdir_set_aside(fl_ckpt_store *s, long version, char *where, size_t size)
{
  fl_err rc = FL_OK;
  char fin[64], bad[96];
  struct stat st;
  fl_vdir_name(fin, sizeof fin, "", version);
  fl_vdir_name(bad, sizeof bad, ".bad-", version);
  for (int k = 1; fstatat(s->root_fd, bad, &st, AT_SYMLINK_NOFOLLOW) == 0 && k < 1000; k++) /* set aside before */
    snprintf(bad, sizeof bad, ".bad-v%0*ld.%d", FL_VDIR_DIGITS, version, k);
  FL_CHECK(renameat(s->root_fd, fin, s->root_fd, bad) == 0, FL_ERR_IO, "%s: cannot set %s aside: %s", s->path, fin,
           strerror(errno));
  FL_CHECK(fsync(s->root_fd) == 0, FL_ERR_IO, "%s: fsync: %s", s->path, strerror(errno));
  snprintf(where, size, "%s/%s", s->path, bad);
done:
  return rc;
}

fl_err fl_vdir_drop(fl_ckpt_store *s, long version)
{
  fl_err rc = FL_OK;
  char fin[64], del[64];
  fl_vdir_name(fin, sizeof fin, "", version);
  fl_vdir_name(del, sizeof del, ".del-", version);
  FL_CHECK(renameat(s->root_fd, fin, s->root_fd, del) == 0, FL_ERR_IO, "%s: cannot retire %s: %s", s->path, fin,
           strerror(errno));
  FL_CHECK(fsync(s->root_fd) == 0, FL_ERR_IO, "%s: fsync: %s", s->path, strerror(errno));
  FL_TRY(fl_vdir_rmtree(s->root_fd, del, s->path));
done:
  return rc;
}
