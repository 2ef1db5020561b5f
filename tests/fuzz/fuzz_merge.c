/* fuzz_merge.c — libFuzzer harness: a shard of a sweep as `faultline merge` reads it (the scan of its rows, sweep
 * and shard marks, the attach-and-copy by column names, the completeness report). The input is the shard file's
 * bytes; it is merged into a new output twice. Checked beyond the sanitizers: a merge that fails leaves no row in
 * the output (every shard is checked before anything is written, one shard's rows go in one transaction), and a
 * second merge of the same shard adds no row (rows are identified by their key).
 *
 * SQLite's page cache comes from one pool mapped at start-up (SQLITE_CONFIG_PAGECACHE) rather than from malloc:
 * the output's pages are 64 KiB, and ASan's allocator, filling, poisoning and quarantining a new 64 KiB block for
 * every page read, was most of the time per input. SQLite is not instrumented, so no check is lost. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "db.h"
#include "fuzz_util.h"
#include "merge.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  enum { FL_POOL_PAGES = 512 }; /* 33 MB: the output's, the shard's and the scan's caches together, with room */
  int hdr = 0;
  size_t line;
  void *pool;
  (void)argc;
  (void)argv;
  if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
    return 0;
  line = ((size_t)65536 + (size_t)hdr + 7) & ~(size_t)7;
  pool = mmap(NULL, line * FL_POOL_PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pool != MAP_FAILED)
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, pool, (int)line, FL_POOL_PAGES);
  return 0;
}

/* Rows in the output's runs table; 0 when there is no such table, -1 when it cannot be read */
static long fl_rows(const char *path)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  long n = -1;
  if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL) != SQLITE_OK)
      n = 0;
    else if (sqlite3_step(st) == SQLITE_ROW)
      n = (long)sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

static void fl_remove_db(const char *path)
{
  char side[128];
  remove(path);
  snprintf(side, sizeof side, "%s-wal", path);
  remove(side);
  snprintf(side, sizeof side, "%s-shm", path);
  remove(side);
  snprintf(side, sizeof side, "%s-journal", path);
  remove(side);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *devnull;
  char shard[96], out[112];
  const char *shards[1];
  int incomplete = 0;
  long first;
  if (!devnull)
    devnull = fopen("/dev/null", "w");
  if (fl_fuzz_write_file("shard", "sqlite", data, size, shard, sizeof shard) != 0)
    return 0;
  shards[0] = shard;
  snprintf(out, sizeof out, "%s.out", shard);
  fl_remove_db(out);
  if (fl_db_merge(out, shards, 1, devnull, &incomplete) != FL_OK) {
    if (fl_rows(out) > 0) {
      fprintf(stderr, "fuzz_merge: a failed merge left %ld rows in the output\n", fl_rows(out));
      abort();
    }
    fl_err_clear();
    return 0;
  }
  first = fl_rows(out);
  if (fl_db_merge(out, shards, 1, devnull, &incomplete) != FL_OK || fl_rows(out) != first) {
    fprintf(stderr, "fuzz_merge: merging the shard again failed or changed the output (%ld rows, then %ld): %s\n",
            first, fl_rows(out), fl_err_msg());
    abort();
  }
  fl_err_clear();
  return 0;
}
