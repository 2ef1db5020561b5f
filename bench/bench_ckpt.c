/* bench_ckpt.c — the checkpoint library's costs, each against a baseline measured in the same run:
 *   1. file store write bandwidth  vs  a plain sequential write of the same bytes + fsync (target >= 0.8x);
 *      also shown: the same plain write starting writeback early (sync_file_range) as the stores do on Linux,
 *      so that a ratio above 1 is explained rather than admired;
 *   2. hdf5 store write bandwidth  vs  the file store                                    (target >= 0.7x);
 *   3. zfp codec encode throughput vs  libzfp called directly, same field and tolerance  (target >= 0.9x).
 * Variants alternate within each round and the median of the rounds is reported, so drifts of the machine
 * (page cache, the disk's mood) hit baseline and candidate alike; for the ZFP comparison, which is CPU-bound
 * and where noise only ever adds time, the best of the rounds. Every store write is a full checkpoint:
 * snapshot, background write, fsync of every file and directory, rename, retention of the previous version;
 * the plain baseline writes one file, fsyncs it and deletes the previous one, which is the least any durable
 * checkpoint must do.
 *
 *   bench_ckpt [--mib N] [--rounds R] [--dir DIR]      (defaults: 128 MiB, 9 rounds, $TMPDIR or /tmp) */
#define _GNU_SOURCE /* sync_file_range */
#include "ckpt.h"
#include "fl_config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if FL_HAVE_ZFP
#include <zfp.h>
#endif

#define NARRAYS 4

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double best(const double *v, int n)
{
  double m = v[0];
  for (int i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what)
{
  fprintf(stderr, "bench_ckpt: %s: %s\n", what, fl_err_msg()[0] ? fl_err_msg() : strerror(errno));
  exit(1);
}

/* Baseline 1: the arrays' bytes in one file, written sequentially, fsync'd; the previous file deleted. With
 * kick, writeback of each array's bytes is started as soon as they are written (Linux). */
static double plain_write(const char *dir, int round, double **arrays, size_t n, int kick)
{
  char path[1024], old[1024];
  double t0 = now();
  int fd;
  snprintf(path, sizeof path, "%s/plain%d-%d.bin", dir, kick, round);
  snprintf(old, sizeof old, "%s/plain%d-%d.bin", dir, kick, round - 1);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    die(path);
  for (int a = 0; a < NARRAYS; a++) {
    const char *p = (const char *)arrays[a];
    size_t left = n * sizeof(double);
    while (left > 0) {
      ssize_t k = write(fd, p, left);
      if (k < 0)
        die("write");
      p += k;
      left -= (size_t)k;
    }
#ifdef __linux__
    if (kick)
      sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
  }
  if (fsync(fd) != 0 || close(fd) != 0)
    die("fsync");
  unlink(old);
  return now() - t0;
}

static fl_ckpt *open_store(const char *store, const char *dir, double **arrays, size_t n)
{
  fl_ckpt *ck = NULL;
  if (fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir, .keep = 1}, &ck) != FL_OK)
    die(store);
  for (int a = 0; a < NARRAYS; a++) {
    char label[16];
    snprintf(label, sizeof label, "a%d", a);
    if (fl_ckpt_register(ck, &(fl_ckpt_array){label, {FL_CKPT_F64, 1, {n}}, arrays[a], {0}}) != FL_OK)
      die("register");
  }
  return ck;
}

static double store_write(fl_ckpt *ck, long version)
{
  double t0 = now();
  if (fl_ckpt_write(ck, version) != FL_OK)
    die("checkpoint");
  return now() - t0;
}

#if FL_HAVE_ZFP
/* Baseline 3: what a program calling libzfp itself does for one field: the same steps and header as the codec
 * (fixed accuracy, full header, output buffer kept from one call to the next). */
static size_t zfp_direct(const double *x, size_t n, double tol, unsigned char **buf, size_t *cap)
{
  zfp_field *f = zfp_field_1d((void *)(uintptr_t)x, zfp_type_double, n);
  zfp_stream *zs = zfp_stream_open(NULL);
  bitstream *bs;
  size_t max, out;
  zfp_stream_set_accuracy(zs, tol);
  max = zfp_stream_maximum_size(zs, f);
  if (max > *cap) {
    free(*buf);
    *buf = malloc(max);
    *cap = max;
    if (!*buf)
      die("malloc");
  }
  bs = stream_open(*buf, max);
  zfp_stream_set_bit_stream(zs, bs);
  zfp_stream_rewind(zs);
  zfp_write_header(zs, f, ZFP_HEADER_FULL);
  out = zfp_compress(zs, f);
  zfp_field_free(f);
  zfp_stream_close(zs);
  stream_close(bs);
  return out;
}
#endif

int main(int argc, char **argv)
{
  double mib = 128;
  int rounds = 9;
  const char *base = getenv("TMPDIR");
  char dir[1024], sub[1100], cmd[1200];
  double *arrays[NARRAYS];
  size_t n;
  double plain[64], kicked[64], file[64], h5[64];
  int have_h5 = 0;
  time_t today = time(NULL);
  char date[32];

  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--mib") && i + 1 < argc)
      mib = atof(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      base = argv[++i];
    else {
      fprintf(stderr, "usage: bench_ckpt [--mib N] [--rounds R] [--dir DIR]\n");
      return 2;
    }
  }
  if (!(mib >= 1 && mib <= 65536) || rounds < 1 || rounds > 64) {
    fprintf(stderr, "bench_ckpt: --mib must be 1..65536 and --rounds 1..64\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s/bench-ckpt-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir))
    die(dir);
  n = (size_t)(mib * 1048576.0 / NARRAYS / sizeof(double));
  for (int a = 0; a < NARRAYS; a++) {
    arrays[a] = malloc(n * sizeof(double));
    if (!arrays[a])
      die("malloc");
    for (size_t i = 0; i < n; i++)
      arrays[a][i] = sin(1e-4 * (double)i + a) * 1e3 + (double)i;
  }
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&today));
  printf("bench_ckpt %s (faultline %s): %.0f MiB in %d f64 arrays, %d rounds, median; %s\n", date, FL_VERSION, mib,
         NARRAYS, rounds, dir);

  {
    fl_ckpt *fck, *hck = NULL;
    snprintf(sub, sizeof sub, "%s/file", dir);
    fck = open_store("file", sub, arrays, n);
#if FL_HAVE_HDF5
    snprintf(sub, sizeof sub, "%s/hdf5", dir);
    hck = open_store("hdf5", sub, arrays, n);
    have_h5 = 1;
#endif
    /* One unmeasured round of each warms the page cache and the allocator. */
    plain_write(dir, 0, arrays, n, 0);
    plain_write(dir, 0, arrays, n, 1);
    store_write(fck, 0);
    if (hck)
      store_write(hck, 0);
    /* The variant that goes first changes every round: freeing the previous version's blocks (each variant
     * deletes one) costs the next writer on ext4 with online discard, whoever it is. */
    for (int r = 1; r <= rounds; r++)
      for (int k = 0; k < 4; k++) {
        int which = (r + k) % 4;
        if (which == 0)
          plain[r - 1] = plain_write(dir, r, arrays, n, 0);
        else if (which == 1)
          kicked[r - 1] = plain_write(dir, r, arrays, n, 1);
        else if (which == 2)
          file[r - 1] = store_write(fck, r);
        else if (hck)
          h5[r - 1] = store_write(hck, r);
      }
    fl_ckpt_destroy(&fck);
    fl_ckpt_destroy(&hck);
  }
  {
    double bytes = mib * 1048576.0, tp = median(plain, rounds), tf = median(file, rounds);
    double tk = median(kicked, rounds);
    printf("%-28s %8.0f MB/s  vs %-26s %8.0f MB/s  ratio %.2f (target >= 0.8)\n", "file store write", bytes / tf / 1e6,
           "plain write + fsync", bytes / tp / 1e6, tp / tf);
    printf("%-28s %8.0f MB/s  vs %-26s %8.0f MB/s  ratio %.2f (for reference)\n", "file store write", bytes / tf / 1e6,
           "plain + early writeback", bytes / tk / 1e6, tk / tf);
    if (have_h5) {
      double th = median(h5, rounds);
      printf("%-28s %8.0f MB/s  vs %-26s %8.0f MB/s  ratio %.2f (target >= 0.7)\n", "hdf5 store write",
             bytes / th / 1e6, "file store write", bytes / tf / 1e6, tf / th);
    } else {
      printf("hdf5 store: not in this build\n");
    }
  }
#if FL_HAVE_ZFP
  {
    size_t zn = 4000000; /* 32 MB of smooth doubles */
    double tol = 1e-6, tc[64], td[64];
    fl_ckpt_shape s = {FL_CKPT_F64, 1, {zn}};
    fl_ckpt_codec_params p = {.tol = tol};
    fl_ckpt_buf out = {0};
    unsigned char *dbuf = NULL;
    size_t dcap = 0, dsize = 0;
    double *x = malloc(zn * sizeof *x);
    if (!x)
      die("malloc");
    for (size_t i = 0; i < zn; i++)
      x[i] = sin(2e-5 * (double)i) + 0.25 * cos(3e-4 * (double)i);
    fl_ckpt_codec_encode("zfp", &p, &s, x, &out);
    zfp_direct(x, zn, tol, &dbuf, &dcap);
    for (int r = 0; r < rounds; r++) {
      double t0 = now();
      if (fl_ckpt_codec_encode("zfp", &p, &s, x, &out) != FL_OK)
        die("zfp codec");
      tc[r] = now() - t0;
      t0 = now();
      dsize = zfp_direct(x, zn, tol, &dbuf, &dcap);
      td[r] = now() - t0;
    }
    if (dsize != out.size || memcmp(dbuf, out.data, dsize) != 0)
      printf("warning: the codec's stream differs from libzfp's\n");
    {
      double c = best(tc, rounds), d = best(td, rounds), mb = (double)(zn * sizeof *x) / 1e6;
      printf("%-28s %8.0f MB/s  vs %-26s %8.0f MB/s  ratio %.2f (target >= 0.9; best of %d)\n",
             "zfp codec encode (tol 1e-6)", mb / c, "libzfp direct", mb / d, d / c, rounds);
      printf("  (%.1fx compression on %zu smooth doubles; identical streams: %s)\n",
             (double)(zn * sizeof *x) / (double)out.size, zn,
             dsize == out.size && !memcmp(dbuf, out.data, dsize) ? "yes" : "no");
    }
    fl_ckpt_buf_free(&out);
    free(dbuf);
    free(x);
  }
#else
  printf("zfp codec: not in this build\n");
#endif
  for (int a = 0; a < NARRAYS; a++)
    free(arrays[a]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "bench_ckpt: could not remove %s\n", dir);
  return 0;
}
