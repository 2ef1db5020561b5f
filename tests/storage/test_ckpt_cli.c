/* test_ckpt_cli.c — `faultline ckpt ls|verify|dump`: what it prints and its exit status (0 ok, 1 a corrupt
 * version, 2 bad input), on a directory written through the API. Runs the built binary ($FAULTLINE). */
#include "ckpt.h"
#include "cli_util.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

static char out[16384];

/* Run `faultline ARGS` (stderr folded into stdout) and return its exit status; output in `out`. */
static int run(const char *args)
{
  char cmd[2048];
  const char *exe = getenv("FAULTLINE");
  FILE *p;
  size_t n;
  int status;
  CU_ASSERT_FATAL(exe != NULL);
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", exe, args);
  p = popen(cmd, "r");
  CU_ASSERT_FATAL(p != NULL);
  n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

typedef struct st {
  int64_t step;
  double t;
} st;
static const fl_ckpt_field st_fields[] = {FL_CKPT_FIELD(st, step), FL_CKPT_FIELD(st, t)};
static const fl_ckpt_type st_type = FL_CKPT_TYPE(st, "clock", 1, st_fields);

static const char *make_dir(const char *store, const char *name)
{
  static char dir[600];
  fl_ckpt *ck = NULL;
  static double u[64];
  static int32_t k[5];
  static st s;
  snprintf(dir, sizeof dir, "%s", fl_test_tmp(name));
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){"u", {FL_CKPT_F64, 2, {8, 8}}, u, {.name = "multigrid", .levels = 1}}),
      FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register(ck, &(fl_ckpt_array){"k", {FL_CKPT_I32, 1, {5}}, k, {0}}), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register_object(ck, "clock", &st_type, &s), FL_OK);
  for (int v = 1; v <= 3; v++) {
    for (int i = 0; i < 64; i++)
      u[i] = v;
    for (int i = 0; i < 5; i++)
      k[i] = 10 * v + i;
    s.step = v;
    s.t = 0.5 * v;
    CU_ASSERT_EQUAL(fl_ckpt_write(ck, 10 * v), FL_OK);
  }
  fl_ckpt_destroy(&ck);
  return dir;
}

static void test_ls_verify_dump(void)
{
  char args[1024];
  const char *dir = make_dir("file", "ls");
  snprintf(args, sizeof args, "ckpt ls %s", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "store file, 3 versions") && strstr(out, "\n10 ") && strstr(out, "\n30 "));
  snprintf(args, sizeof args, "ckpt verify %s", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "10 ok\n20 ok\n30 ok\n") && strstr(out, "3 versions checked, 0 corrupt"));
  snprintf(args, sizeof args, "ckpt dump %s", dir); /* the latest */
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "version 30: store file") && strstr(out, "u                f64 8x8 codec multigrid levels=1") &&
            strstr(out, "clock            object clock v1"));
  snprintf(args, sizeof args, "ckpt dump %s --version 20 --label k", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "k = i32 5: 20 21 22 23 24\n") != NULL);
  snprintf(args, sizeof args, "ckpt dump %s --version=10 --label clock --values 1", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "clock = clock v1: step i64[1] = 1; t f64[1] = 0.5\n") != NULL);
  snprintf(args, sizeof args, "ckpt dump %s --label u --values 2", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  CU_ASSERT(strstr(out, "u = f64 8x8: 3 3 ... (64 values)\n") != NULL);
}

static void test_corrupt_is_1(void)
{
  char args[1024], path[1024];
  const char *dir = make_dir("file", "corrupt");
  FILE *f;
  snprintf(path, sizeof path, "%s/v000000000020/k.bin", dir);
  f = fopen(path, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  fputc('X', f);
  fclose(f);
  snprintf(args, sizeof args, "ckpt verify %s", dir);
  CU_ASSERT_EQUAL(run(args), 1);
  CU_ASSERT(strstr(out, "10 ok\n20 CORRUPT: ") && strstr(out, "v000000000020/k.bin: corrupt: checksum") &&
            strstr(out, "30 ok\n") && strstr(out, "1 corrupt"));
  snprintf(args, sizeof args, "ckpt verify %s --version 30", dir);
  CU_ASSERT_EQUAL(run(args), 0);
  snprintf(args, sizeof args, "ckpt dump %s --version 20 --label k", dir);
  CU_ASSERT_EQUAL(run(args), 1);
  CU_ASSERT(strstr(out, "k.bin: corrupt") != NULL);
}

static void test_bad_input_is_2(void)
{
  char args[1024];
  const char *dir = make_dir("file", "bad");
  static const char *bad[] = {"ckpt",
                              "ckpt frob DIR",
                              "ckpt ls",
                              "ckpt verify DIR --version x",
                              "ckpt verify DIR --version 15",
                              "ckpt dump DIR --label nope",
                              "ckpt ls DIR --version 1",
                              "ckpt ls DIR extra",
                              "ckpt verify DIR --bogus",
                              "ckpt ls /no/such/dir"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *d = strstr(bad[i], "DIR");
    if (d)
      snprintf(args, sizeof args, "%.*s%s%s", (int)(d - bad[i]), bad[i], dir, d + 3);
    else
      snprintf(args, sizeof args, "%s", bad[i]);
    int code = run(args);
    CU_ASSERT_EQUAL(code, 2);
    /* one line, saying what is wrong */
    CU_ASSERT(strncmp(out, "faultline ckpt: ", 16) == 0 && strchr(out, '\n') == out + strlen(out) - 1);
    if (code != 2)
      fprintf(stderr, "\n    '%s' -> %d: %s", args, code, out);
  }
  CU_ASSERT_EQUAL(run("ckpt ls /no/such/dir"), 2);
  CU_ASSERT(strstr(out, "/no/such/dir: no such checkpoint directory") != NULL);
  CU_ASSERT_EQUAL(run("help ckpt"), 0);
  CU_ASSERT(strstr(out, "usage: faultline ckpt ls|verify|dump DIR") != NULL);
}

/* A FIFO (or any special file) inside a checkpoint directory or a version: every command ends, in bounded time,
 * naming the file; the other versions stay readable. */
/* Replace DIR/REL by a FIFO of the same name. */
static void fifo_in_place_of(const char *dir, const char *rel)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  CU_ASSERT_EQUAL_FATAL(unlink(path), 0);
  CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0644), 0);
}

static void test_fifo_does_not_hang(void)
{
  char args[1024];
  const char *dir = make_dir("file", "fifo");
  fifo_in_place_of(dir, "v000000000020/k.bin");
  fifo_in_place_of(dir, "v000000000030/MANIFEST");
  snprintf(args, sizeof args, "ckpt verify %s", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 1);
  CU_ASSERT(strstr(fl_cli_out, "10 ok\n") && strstr(fl_cli_out, "v000000000020/k.bin: not a regular file") &&
            strstr(fl_cli_out, "v000000000030/MANIFEST: not a regular file"));
  snprintf(args, sizeof args, "ckpt ls %s", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 1); /* the unreadable version listed as such, the others listed */
  CU_ASSERT(strstr(fl_cli_out, "\n20 ") && strstr(fl_cli_out, "v000000000030/MANIFEST: not a regular file"));
  snprintf(args, sizeof args, "ckpt dump %s --version 20 --label k", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 1);
  /* FORMAT itself a FIFO: derived from the manifests, with a warning naming it */
  fifo_in_place_of(dir, "FORMAT");
  snprintf(args, sizeof args, "ckpt dump %s --version 10 --label k", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 0);
  CU_ASSERT(strstr(fl_cli_err, "FORMAT: not a regular file") != NULL);
}

/* One flipped byte in FORMAT, or FORMAT gone: every version stays readable (the store type comes from the
 * checksummed manifests), the damaged file is named, and the next writer puts FORMAT back. */
static void test_format_is_not_a_single_point_of_failure(void)
{
  char args[1024], path[1024];
  const char *dir = make_dir("file", "format");
  FILE *f;
  fl_ckpt *ck = NULL;
  snprintf(path, sizeof path, "%s/FORMAT", dir);
  f = fopen(path, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  fseek(f, 3, SEEK_SET);
  fputc('#', f);
  fclose(f);
  snprintf(args, sizeof args, "ckpt verify %s", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 0);
  CU_ASSERT(strstr(fl_cli_out, "3 versions checked, 0 corrupt") != NULL);
  CU_ASSERT(strstr(fl_cli_err, "FORMAT: damaged") && strstr(fl_cli_err, "store type 'file' taken from v000000000030"));
  unlink(path);
  snprintf(args, sizeof args, "ckpt dump %s --version 20 --label k", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 0);
  CU_ASSERT(strstr(fl_cli_out, "k = i32 5: 20 21 22 23 24\n") != NULL);
  /* a writer re-creates it */
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = dir}, &ck), FL_OK);
  fl_ckpt_destroy(&ck);
  f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL(f);
  if (f)
    fclose(f);
  snprintf(args, sizeof args, "ckpt verify %s", dir);
  CU_ASSERT_EQUAL(fl_cli_run_limited(args, 20), 0);
  CU_ASSERT(strstr(fl_cli_err, "warning") == NULL);
  /* wrong store type named in a damaged FORMAT and no version: not a checkpoint directory */
  CU_ASSERT_EQUAL(fl_cli_run_limited("ckpt ls /", 20), 2);
}

static CU_TestInfo cli_tests[] = {
    {"a FIFO in a checkpoint directory does not hang", test_fifo_does_not_hang},
    {"a damaged or missing FORMAT is re-derived", test_format_is_not_a_single_point_of_failure},
    {"ls, verify, dump", test_ls_verify_dump},
    {"a corrupt version exits 1", test_corrupt_is_1},
    {"bad input exits 2 with one line", test_bad_input_is_2},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"faultline ckpt", NULL, NULL, NULL, NULL, cli_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
