/* test_hardening.c — the inputs and faults a user meets in the first week, each a regression test: sizes checked
 * before anything is built, temporary files gone on every exit path, no run that never ends or grows without
 * bound, other programs' files never touched, rows reproducible from the row alone, one-line errors, exit 2. */
#include "cli_util.h"
#include "fl_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GOOD "[run]\nreplicas = 3\n[platform]\nnodes = 40\n[failures]\nnode_mtbf = 20d\n[app]\nnodes = 32\nwork = 12h\n"

/* A private TMPDIR for faultline's temporary files, so a test can see what is left there. */
static const char *private_tmp(void)
{
  static char dir[4096];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s", fl_test_tmp("tmp"));
    mkdir(dir, 0755);
    setenv("TMPDIR", dir, 1);
  }
  return dir;
}

static int entries_in(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d)
    return -1;
  while ((e = readdir(d)))
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

static long db_count(const char *name, const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  long n = -1;
  if (sqlite3_open_v2(fl_test_tmp(name), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

/* exit 2, exactly one line on stderr containing `want` */
static void expect_2(int code, const char *want)
{
  CU_ASSERT_EQUAL(code, 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  if (!strstr(fl_cli_err, want))
    fprintf(stderr, "\n    stderr '%s' lacks '%s'\n", fl_cli_err, want);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, want));
}

/* platform.nodes = 1e12 spun writing an endless XML; 1e8 would need ~110 GB: refused before anything is written,
 * naming the key, the value and the memory */
static void test_platform_size_checked_first(void)
{
  const char *tmp = private_tmp();
  fl_cli_write("good.ini", GOOD);
  expect_2(
      fl_cli_run_limited("simulate good.ini --db size.sqlite --set platform.nodes=1000000000000 --set app.nodes=4", 30),
      "--set platform.nodes=1000000000000: 1000000000000 hosts: at most");
  expect_2(
      fl_cli_run_limited("simulate good.ini --db size.sqlite --set platform.nodes=100000000 --set app.nodes=4", 30),
      "would need about");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set platform.nodes=100000000"));
  expect_2(
      fl_cli_run_limited("simulate good.ini --db size.sqlite --set platform.nodes=0 --set app.nodes=200000000", 30),
      "app.nodes=200000000");
  /* 4e9 replicas ran for years and kept an id per row in memory */
  expect_2(fl_cli_run_limited("simulate good.ini --db size.sqlite --replicas 4294967296", 30),
           "run.replicas=4294967296: at most 10000000 replicas per command");
  expect_2(
      fl_cli_run_limited("simulate good.ini --db size.sqlite --replicas 1000000 --sweep "
                         "failures.node_mtbf=1y,2y,3y,4y,5y,6y,7y,8y,9y,10y,11y,12y,13y,14y,15y,16y,17y,18y,19y,20y,"
                         "21y,22y,23y,24y,25y,26y,27y,28y,29y,30y,31y,32y,33y,34y,35y,36y,37y,38y,39y,40y,41y,42y,"
                         "43y,44y,45y,46y,47y,48y,49y,50y,51y,52y,53y,54y,55y,56y,57y,58y,59y,60y,61y,62y,63y,64y "
                         "--sweep strategy.kind=checkpoint,buddy",
                         30),
      "128 combinations x 1000000 replicas");
  CU_ASSERT_FALSE(fl_cli_exists("size.sqlite"));
  CU_ASSERT_EQUAL(entries_in(tmp), 0);
}

/* Entries of `dir` whose names start with `prefix` (0 when it cannot be read) */
static int entries_named(const char *dir, const char *prefix)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)))
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
  if (d)
    closedir(d);
  return n;
}

/* faultline-mpi next to faultline: the real-mode checks need it */
static int mpi_built(void)
{
  char mpi[4200];
  snprintf(mpi, sizeof mpi, "%s-mpi", getenv("FAULTLINE"));
  if (access(mpi, X_OK) == 0)
    return 1;
  fprintf(stderr, "(no faultline-mpi: this part needs MPI) ");
  return 0;
}

/* Start `faultline ARGV...` in the background, output discarded, SIGINT and SIGTERM at their defaults (as in a
 * terminal: a test runner may have started us with SIGINT ignored). */
static pid_t spawn_faultline(char *const argv[])
{
  pid_t pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execv(getenv("FAULTLINE"), argv);
    _exit(127);
  }
  return pid;
}

/* A signal (SIGTERM, or SIGKILL, which nothing can catch) while a large generated platform is written or loaded:
 * the process ends by that signal and no temporary platform file is left (its name is removed as soon as it is
 * created; SimGrid reads it through /proc/self/fd) */
static void signal_during_platform(int sig)
{
  const char *tmp = private_tmp();
  char ini[4096];
  pid_t pid;
  int st = 0;
  struct timespec ts = {0, 700000000};
  snprintf(ini, sizeof ini, "%s", fl_test_tmp("big.ini"));
  /* with the file system on it, so that the platform is written as XML and loaded (one without a network is made
   * by SimGrid's API, and only when a replica goes to SimGrid's engine: a bsp job runs without it) */
  fl_cli_write("big.ini", "[run]\nreplicas = 1\nevents = none\n[platform]\nnodes = 2000000\npfs_servers = 4\n[app]\n"
                          "nodes = 4\ncheckpoint_size = 1GB\n");
  {
    char *argv[] = {"faultline", "simulate", ini, "--db", (char *)fl_test_tmp("sig.sqlite"), NULL};
    pid = spawn_faultline(argv);
  }
  nanosleep(&ts, NULL); /* 2M hosts take seconds to write and load: it is in the middle */
  kill(pid, sig);
  waitpid(pid, &st, 0);
  CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == sig);
  CU_ASSERT_EQUAL(entries_in(tmp), 0);
  CU_ASSERT_FALSE(fl_cli_exists("sig.sqlite"));
}

static void test_signal_leaves_no_temp_platform(void)
{
  signal_during_platform(SIGTERM);
  signal_during_platform(SIGINT);
  signal_during_platform(SIGKILL);
}

/* A process that exists and is not a zombie. */
static int alive_pid(long pid)
{
  char path[64], stat[512];
  FILE *f;
  const char *paren;
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  if (!(f = fopen(path, "r")))
    return 0;
  if (!fgets(stat, sizeof stat, f))
    stat[0] = '\0';
  fclose(f);
  paren = strrchr(stat, ')');
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* Rows of a results file with status ST ("" any); 0 when there is no file or no table. */
static long rows_with(const char *db, const char *st)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  long n = 0;
  if (access(db, F_OK) != 0 || sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    sqlite3_close(h);
    return 0;
  }
  if (sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM runs WHERE ?1 = '' OR status = ?1", -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, st, -1, SQLITE_STATIC);
    if (sqlite3_step(q) == SQLITE_ROW)
      n = sqlite3_column_int64(q, 0);
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/* A signal to `faultline run` in the middle of a solve. SIGINT, SIGTERM, SIGHUP, SIGQUIT: passed to mpirun, which ends
 * the ranks; run writes the job's one row (status stopped), removes its faultline-run-* directories and ends by the
 * same signal. SIGKILL, which it cannot catch: mpirun ends with it (parent-death signal), the ranks with mpirun, within
 * seconds, and write no row later; a helper removes the shared-memory directory. */
static void run_signal(int sig)
{
  const char *tmp = private_tmp();
  char sc[4096], db[4096], out[4096], beat[4200], name[64];
  pid_t pid;
  int st = 0;
  long rank0 = 0;
  FILE *f;
  struct timespec ts = {0, 50000000};
  snprintf(sc, sizeof sc, "%s", fl_test_src("scenarios/cg-buddy.ini"));
  snprintf(name, sizeof name, "run-sig%d.sqlite", sig);
  snprintf(db, sizeof db, "%s", fl_test_tmp(name));
  snprintf(name, sizeof name, "run-sig%d", sig);
  snprintf(out, sizeof out, "%s", fl_test_tmp(name));
  {
    /* a solve long enough to be in the middle of it (512x512, a tolerance it takes many thousand iterations to
     * meet, and no iteration cap to stop it first) */
    char *argv[] = {"faultline", "run",
                    sc,          "--np",
                    "2",         "--spares",
                    "1",         "--db",
                    db,          "--out",
                    out,         "--quiet",
                    "--set",     "app.grid=512x512",
                    "--set",     "app.tolerance=1e-14",
                    "--set",     "app.iterations=100000000",
                    NULL};
    pid = spawn_faultline(argv);
  }
  snprintf(beat, sizeof beat, "%s/beat-0", out);
  for (int i = 0; i < 200 && !rank0; i++) { /* past start-up: rank 0's heartbeat file names its pid */
    nanosleep(&ts, NULL);
    if ((f = fopen(beat, "r"))) {
      if (fscanf(f, "%ld", &rank0) != 1)
        rank0 = 0;
      fclose(f);
    }
  }
  CU_ASSERT_FATAL(rank0 > 1);
  ts.tv_sec = 1;
  nanosleep(&ts, NULL);
  kill(pid, sig);
  waitpid(pid, &st, 0);
  CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == sig);
  ts.tv_sec = 0;
  for (int i = 0; i < 100 && alive_pid(rank0); i++) /* within the detection time */
    nanosleep(&ts, NULL);
  CU_ASSERT_FALSE(alive_pid(rank0));
  ts.tv_sec = 2;
  nanosleep(&ts, NULL); /* mpirun's own session directory goes with it; the helper removes ours after 1 s */
  CU_ASSERT_EQUAL(entries_named(tmp, "faultline-"), 0);
  CU_ASSERT_EQUAL(entries_named(tmp, "vader_segment."), 0);
  if (sig == SIGKILL) {
    CU_ASSERT_EQUAL(rows_with(db, ""), 0); /* no orphan went on to write a row */
  } else {
    CU_ASSERT_EQUAL(rows_with(db, ""), 1);
    CU_ASSERT_EQUAL(rows_with(db, "stopped"), 1);
  }
}

static void test_run_signal_cleans_up(void)
{
  if (!mpi_built())
    return;
  run_signal(SIGTERM);
  run_signal(SIGINT);
  run_signal(SIGHUP);
  run_signal(SIGQUIT);
  run_signal(SIGKILL);
}

/* Open MPI's shared-memory files of a `faultline run` whose rank is killed: they were left in /dev/shm (a rank that
 * dies, or ends without MPI_Finalize, never removes its own), a few MB each, run after run. Now they are in a
 * directory of the run's (in $TMPDIR when set), seen there while the job runs, and gone with it at the end. */
static void test_run_mpi_shared_memory_removed(void)
{
  const char *tmp = private_tmp();
  char sc[4096], db[4096];
  pid_t pid;
  int st = 0, seen = 0;
  if (!mpi_built())
    return;
  snprintf(sc, sizeof sc, "%s", fl_test_src("scenarios/cg-buddy.ini"));
  snprintf(db, sizeof db, "%s", fl_test_tmp("run-shm.sqlite"));
  {
    char *argv[] = {"faultline", "run", sc, "--np", "2", "--spares", "1", "--kill", "1@5", "--db", db, "--quiet", NULL};
    pid = spawn_faultline(argv);
  }
  while (waitpid(pid, &st, WNOHANG) == 0) {
    DIR *d = opendir(tmp);
    struct dirent *e;
    struct timespec ts = {0, 50000000};
    while (d && !seen && (e = readdir(d))) {
      char sub[4400];
      if (strncmp(e->d_name, "faultline-run-shm-", 18) != 0)
        continue;
      snprintf(sub, sizeof sub, "%s/%s", tmp, e->d_name);
      seen = entries_named(sub, "vader_segment.") > 0;
    }
    if (d)
      closedir(d);
    nanosleep(&ts, NULL);
  }
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CU_ASSERT(seen);
  CU_ASSERT_EQUAL(entries_named(tmp, "faultline-") + entries_named(tmp, "vader_segment."), 0);
}

/* zero hosts aborted with SIGABRT; only a controller: exit 2 naming the file */
static void test_platform_without_hosts(void)
{
  const char *head = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                     "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n";
  char xml[1024];
  snprintf(xml, sizeof xml, "%s</zone>\n</platform>\n", head);
  fl_cli_write("empty.xml", xml);
  fl_cli_write("e.ini", "[platform]\nfile = empty.xml\n[app]\nnodes = 1\n");
  expect_2(fl_cli_run_limited("simulate e.ini --db e.sqlite", 30), "empty.xml: the platform has 0 hosts");
  snprintf(xml, sizeof xml, "%s<host id=\"controller\" speed=\"1Gf\"/>\n</zone>\n</platform>\n", head);
  fl_cli_write("one.xml", xml);
  fl_cli_write("o.ini", "[platform]\nfile = one.xml\n[app]\nnodes = 1\n");
  expect_2(fl_cli_run_limited("simulate o.ini --db e.sqlite", 30), "one.xml: the platform has 1 host");
  CU_ASSERT_FALSE(fl_cli_exists("e.sqlite"));
  /* no host called controller: said on stderr, and the row names the host that served */
  snprintf(xml, sizeof xml, "%s<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>\n</zone>\n</platform>\n",
           head);
  fl_cli_write("noctl.xml", xml);
  fl_cli_write("n.ini", "[run]\nreplicas = 1\n[platform]\nfile = noctl.xml\n[app]\nnodes = 1\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate n.ini --db n.sqlite -q", 30), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "no host named 'controller'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "host 'a' runs the simulator's actors"));
  CU_ASSERT_EQUAL(db_count("n.sqlite", "SELECT COUNT(*) FROM runs WHERE controller = 'a'"), 1);
}

/* node MTBF 1 s against a day of work ran for ever and ate 24 GB: warned up front, each replica ends as
 * 'timeout' at the event budget, in bounded time */
static void test_no_progress_ends(void)
{
  fl_cli_write("good.ini", GOOD);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate good.ini --db mtbf.sqlite --set failures.node_mtbf=1s "
                                     "--set run.max_events=100000 --replicas 2",
                                     60),
                  0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "warning: good: about"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "job failures are expected per checkpoint interval"));
  CU_ASSERT_EQUAL(db_count("mtbf.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'timeout'"), 2);
  /* every event was kept, past the in-memory chunk: streamed, then written with the row */
  CU_ASSERT_EQUAL(db_count("mtbf.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind IN ('failure', 'repair')"),
                  2 * 100000);
  CU_ASSERT_EQUAL(db_count("mtbf.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind = 'budget'"), 2);
}

/* failures.start = steady counted the nodes down at t = 0 as failures of the run */
static void test_steady_start_is_not_a_failure(void)
{
  fl_cli_write("steady.ini", "[run]\nreplicas = 5\n[platform]\nnodes = 1056\n[failures]\nmodel = exponential\n"
                             "start = steady\nrepair = 30d\n[app]\nnodes = 1024\nwork = 1s\n");
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate steady.ini --db steady.sqlite -q", 60), 0);
  CU_ASSERT(db_count("steady.sqlite", "SELECT COUNT(*) FROM events_text WHERE kind = 'down-at-start'") > 0);
  CU_ASSERT_EQUAL(db_count("steady.sqlite", "SELECT SUM(failures) + SUM(platform_failures) + SUM(interruptions) "
                                            "FROM runs"),
                  0);
  CU_ASSERT_EQUAL(db_count("steady.sqlite", "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 5);
}

/* a foreign SQLite file was switched to WAL and given tables: now refused by simulate and report, unchanged */
static void test_foreign_database_untouched(void)
{
  sqlite3 *h = NULL;
  long n0 = 0, n1 = 0;
  char *before, *after;
  fl_cli_write("good.ini", GOOD);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("theirs.db"), &h), SQLITE_OK);
  sqlite3_exec(h, "CREATE TABLE accounts(id, balance); INSERT INTO accounts VALUES (1, 100)", NULL, NULL, NULL);
  sqlite3_close(h);
  before = fl_test_read_file(fl_test_tmp("theirs.db"), &n0);
  expect_2(fl_cli_run_limited("simulate good.ini --db theirs.db", 60), "theirs.db: a SQLite database of another");
  expect_2(fl_cli_run_limited("report theirs.db", 60), "theirs.db: not a faultline results database");
  expect_2(fl_cli_run_limited("rerun theirs.db 1", 60), "theirs.db");
  after = fl_test_read_file(fl_test_tmp("theirs.db"), &n1);
  CU_ASSERT(before && after && n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
  CU_ASSERT_FALSE(fl_cli_exists("theirs.db-wal"));
  CU_ASSERT_FALSE(fl_cli_exists("theirs.db-shm"));
  free(before);
  free(after);
  fl_cli_write("notes.txt", "my notes, not a database: keep them\n");
  expect_2(fl_cli_run_limited("simulate good.ini --db notes.txt", 60), "notes.txt: not a SQLite database");
  expect_2(fl_cli_run_limited("report notes.txt", 60), "notes.txt: not a SQLite database");
}

/* A results file of a newer schema is bad input to every command (exit 2), one line, left as it is; --baseline's
 * value errors name the flag once, with the key's own reason whole. */
static void test_newer_schema_and_baseline_values(void)
{
  sqlite3 *h = NULL;
  long n0 = 0, n1 = 0;
  fl_cli_write("good.ini", GOOD);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate good.ini --db mine.sqlite --quiet", 60), 0);
  expect_2(fl_cli_run_limited("report mine.sqlite --baseline failures.node_mtbf=abc", 60),
           "faultline: --baseline 'failures.node_mtbf=abc': 'abc' is not a duration (e.g.");
  expect_2(fl_cli_run_limited("report mine.sqlite --baseline failures.node_mtbf=", 60),
           "faultline: --baseline 'failures.node_mtbf=': '' is not a duration (e.g.");
  expect_2(fl_cli_run_limited("report mine.sqlite --baseline failures.node_mtbf=-3", 60),
           "faultline: --baseline 'failures.node_mtbf=-3': ");
  CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "--set"));
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("mine.sqlite"), &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, "PRAGMA journal_mode=DELETE; PRAGMA user_version = 999", NULL, NULL, NULL),
                  SQLITE_OK);
  sqlite3_close(h);
  char *before = fl_test_read_file(fl_test_tmp("mine.sqlite"), &n0);
  expect_2(fl_cli_run_limited("report mine.sqlite", 60), "mine.sqlite: results schema version 999 is newer than");
  expect_2(fl_cli_run_limited("export mine.sqlite -o out.csv", 60), "mine.sqlite: results schema version 999");
  expect_2(fl_cli_run_limited("simulate good.ini --db mine.sqlite", 60), "mine.sqlite: results schema version 999");
  char *after = fl_test_read_file(fl_test_tmp("mine.sqlite"), &n1);
  CU_ASSERT(before && after && n0 == n1 && memcmp(before, after, (size_t)n0) == 0);
  CU_ASSERT_FALSE(fl_cli_exists("out.csv"));
  free(before);
  free(after);
}

/* two simulations writing one database at once: each summary shows its own rows only */
static void test_concurrent_writers_own_summary(void)
{
  char cmd[8192];
  const char *bin = getenv("FAULTLINE");
  char a[1 << 14] = "", b[1 << 14] = "";
  FILE *f;
  size_t n;
  fl_cli_write("good.ini", GOOD);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && ('%s' simulate good.ini --db two.sqlite --replicas 300 -q > a.txt 2>&1 & "
           "'%s' simulate good.ini --db two.sqlite --replicas 300 -q --set strategy.kind=buddy > b.txt 2>&1; wait)",
           fl_test_tmpdir(), bin, bin);
  CU_ASSERT_EQUAL(system(cmd), 0);
  if ((f = fopen(fl_test_tmp("a.txt"), "r"))) {
    n = fread(a, 1, sizeof a - 1, f);
    a[n] = '\0';
    fclose(f);
  }
  if ((f = fopen(fl_test_tmp("b.txt"), "r"))) {
    n = fread(b, 1, sizeof b - 1, f);
    b[n] = '\0';
    fclose(f);
  }
  CU_ASSERT(strstr(a, " checkpoint ") && !strstr(a, " buddy "));
  CU_ASSERT(strstr(b, " buddy ") && !strstr(b, " checkpoint "));
  CU_ASSERT_EQUAL(db_count("two.sqlite", "SELECT COUNT(*) FROM runs"), 600);
  if (!strstr(a, " checkpoint ") || !strstr(b, " buddy "))
    fprintf(stderr, "first simulate said:\n%s\nsecond simulate said:\n%s\n", a, b); /* for the CI log */
}

/* rerun read the platform and trace from their paths at rerun time and compared four fields */
static void test_rerun_is_self_contained(void)
{
  char xml[4096];
  snprintf(xml, sizeof xml,
           "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"None\">\n<host id=\"controller\" speed=\"1Gf\"/>\n"
           "<host id=\"n0\" speed=\"1Gf\"/><host id=\"n1\" speed=\"1Gf\"/><host id=\"n2\" speed=\"1Gf\"/>\n"
           "</zone>\n</platform>\n");
  fl_cli_write("plat.xml", xml);
  fl_cli_write("tr.csv", "3600, n0\n7200, n1, 10min\n");
  fl_cli_write("tr.ini",
               "[run]\nreplicas = 2\n[platform]\nfile = plat.xml\n[failures]\nmodel = trace\ntrace = tr.csv\n"
               "repair = 1h\n[app]\nnodes = 2\nwork = 5h\n[strategy]\ninterval = 1h\ncheckpoint_cost = 1min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tr.ini --db tr.sqlite -q", 60), 0);
  CU_ASSERT_EQUAL(db_count("tr.sqlite", "SELECT COUNT(*) FROM input_files WHERE text IS NOT NULL"), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun tr.sqlite 2", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "identical"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "numeric columns compared exactly"));
  fl_cli_write("tr.csv", "3600, n0\n7200, n2, 10min\n"); /* the trace changed since */
  expect_2(fl_cli_run_limited("rerun tr.sqlite 2", 60), "failures.trace");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "changed since the run"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "SELECT text FROM input_files"));
  /* the trace's node map is an input too */
  fl_cli_write("trm.csv", "3600, a\n7200, b, 10min\n");
  fl_cli_write("trm.map", "a, n0\nb, n1\n");
  fl_cli_write("trm.ini",
               "[run]\nreplicas = 1\n[platform]\nfile = plat.xml\n[failures]\nmodel = trace\ntrace = trm.csv\n"
               "trace_map = trm.map\nrepair = 1h\n[app]\nnodes = 2\nwork = 5h\n[strategy]\ninterval = 1h\n"
               "checkpoint_cost = 1min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate trm.ini --db trm.sqlite -q", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun trm.sqlite 1", 60), 0);
  fl_cli_write("trm.map", "a, n0\nb, n2\n");
  expect_2(fl_cli_run_limited("rerun trm.sqlite 1", 60), "failures.trace_map");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "changed since the run"));
  /* and so is the file of a platform's <trace> element (SimGrid reads it) */
  snprintf(xml, sizeof xml,
           "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"controller\" speed=\"1Gf\"/>\n"
           "<host id=\"a\" speed=\"1Gf\"/>\n<trace id=\"t1\" file=\"sp.txt\" periodicity=\"100.0\"/>\n"
           "<trace_connect trace=\"t1\" element=\"a\" kind=\"SPEED\"/>\n</zone>\n</platform>\n");
  fl_cli_write("tg.xml", xml);
  fl_cli_write("sp.txt", "0 1\n5 0.5\n");
  fl_cli_write("tg.ini", "[platform]\nfile = tg.xml\n[app]\nnodes = 1\nwork = 1h\n[run]\nreplicas = 1\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tg.ini --db tg.sqlite -q", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun tg.sqlite 1", 60), 0);
  fl_cli_write("sp.txt", "0 1\n5 0.25\n");
  expect_2(fl_cli_run_limited("rerun tg.sqlite 1", 60), "platform.trace_file");
}

/* seeds above 2^53 lost precision, 2^62 was refused: any unsigned 64-bit seed, stored and re-run exactly */
static void test_seed_is_any_u64(void)
{
  fl_cli_write("good.ini", GOOD);
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate good.ini --db seed.sqlite -q --seed 18446744073709551615", 60), 0);
  CU_ASSERT_EQUAL(db_count("seed.sqlite", "SELECT COUNT(*) FROM runs WHERE seed = -1"), 3); /* 2^64 - 1 as bits */
  CU_ASSERT_EQUAL(fl_cli_run_limited("rerun seed.sqlite 3", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "seed 18446744073709551615"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("simulate good.ini --db seed.sqlite -q --seed 9007199254740993", 60), 0);
  CU_ASSERT_EQUAL(db_count("seed.sqlite", "SELECT COUNT(*) FROM runs WHERE seed = 9007199254740993"), 3);
  expect_2(fl_cli_run_limited("simulate good.ini --db seed.sqlite --seed 18446744073709551616", 60),
           "run.seed=18446744073709551616: expected a whole number from 0 to 2^64 - 1");
  expect_2(fl_cli_run_limited("simulate good.ini --db seed.sqlite --seed 1e3", 60), "run.seed=1e3");
}

/* run's arguments: the same parser and messages as the scenario keys; no stale outcome read as this run's */
static void test_run_arguments(void)
{
  char args[4096];
  char sc[1024];
  snprintf(sc, sizeof sc, "%s' --set 'strategy.kind=buddy", fl_test_src("scenarios/das-10x10.ini"));
  snprintf(args, sizeof args, "run '%s' --np 3abc", sc);
  expect_2(fl_cli_run_limited(args, 60), "--np '3abc': not a whole number");
  snprintf(args, sizeof args, "run '%s' --np 2 --spares 99999999999", sc);
  expect_2(fl_cli_run_limited(args, 60), "--spares '99999999999': must be at most");
  snprintf(args, sizeof args, "run '%s' --np 2 --kill 9@3", sc);
  expect_2(fl_cli_run_limited(args, 60), "--kill '9@3': no process 9");
  snprintf(args, sizeof args, "run '%s' --np 2 --out nowhere/at/all", sc);
  expect_2(fl_cli_run_limited(args, 60), "--out nowhere/at/all: cannot create it");
  snprintf(args, sizeof args, "run '%s' --np 3 --set mpi.mirror=pair", sc);
  expect_2(fl_cli_run_limited(args, 60), "--set mpi.mirror=pair: pair needs an even number of active ranks");
  mkdir(fl_test_tmp("stale"), 0755);
  fl_cli_write("stale/rank-0.txt", "rank 0 role 0 status completed iterations 10 error 0 message -\n");
  snprintf(args, sizeof args, "run '%s' --np 2 --out stale", sc);
  expect_2(fl_cli_run_limited(args, 60), "--out stale: holds rank-*.txt outcome files of an earlier run");
  /* the real engine refuses what it cannot run, naming why; it never runs something else in its place */
  snprintf(args, sizeof args, "run '%s' --np 2 --db refused.sqlite --set strategy.kind=hybrid",
           fl_test_src("scenarios/cg-buddy.ini"));
  expect_2(fl_cli_run_limited(args, 60), "--set strategy.kind=hybrid: strategy 'hybrid' cannot drive app cg as the "
                                         "real engine runs it");
  snprintf(args, sizeof args, "run '%s' --np 2 --db refused.sqlite --set mpi.on_no_spare=shrink", sc);
  expect_2(fl_cli_run_limited(args, 60), "shrink re-cuts a dead rank's rows over the others from the file level");
  CU_ASSERT_FALSE(fl_cli_exists("refused.sqlite"));
}

/* every command's --help and -h: that command's help, exit 0; validate --only with no match: exit 2 */
static void test_command_line_consistency(void)
{
  static const char *cmds[] = {"simulate", "report", "validate", "run",     "rerun", "keys",
                               "platform", "ckpt",   "tmr",      "version", "help"};
  char args[128];
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    snprintf(args, sizeof args, "%s --help", cmds[i]);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 30), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "usage: faultline "));
    snprintf(args, sizeof args, "%s -h", cmds[i]);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 30), 0);
  }
  expect_2(fl_cli_run_limited("validate --only nothing-like-this", 30), "names no check (checks: daly:");
  CU_ASSERT_EQUAL(fl_cli_run_limited("help simulate", 30), 0);
  {
    const char *p = strstr(fl_cli_out, "strategies:");
    int n = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    for (const char *q = strstr(p, "replication"); q; q = strstr(q + 1, "replication"))
      n++;
    CU_ASSERT_EQUAL(n, 1); /* one registry: once, labelled with the application kinds it drives */
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "replication (bsp, gridworld, workflow, workload)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "two-level (bsp, workload)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "multilevel (bsp, workload)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "hybrid (gridworld, workflow)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "checkpoint (bsp, workload)"));
  }
  fl_cli_write("good.ini", GOOD);
  expect_2(fl_cli_run_limited("simulate good.ini --db x.sqlite --sweep failures.node_mtbf=1y,-1y", 30),
           "--sweep failures.node_mtbf=-1y");
  CU_ASSERT_FALSE(fl_cli_exists("x.sqlite"));
}

/* An input that is not a regular file: a FIFO with no writer blocked the open for ever, /dev/zero as a trace or a
 * host's state profile was read for ever (the fingerprint of the row's inputs never ended). Each is refused at
 * once, exit 2, one line naming where the file is named and what it is; no database is created. */
static void test_inputs_regular_files_only(void)
{
  char fifo[4096], args[8192], xml[2048];
  const char *head = "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                     "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
                     "<host id=\"controller\" speed=\"1Gf\"/>\n";
  struct {
    const char *args, *want, *also;
  } cases[] = {
      {"simulate fifo --db r.sqlite", "fifo: cannot open scenario: a FIFO, not a regular file", NULL},
      {"simulate pf.ini --db r.sqlite", "pf.ini:2: [platform] file = 'fifo'", "a FIFO, not a regular file"},
      {"simulate pz.ini --db r.sqlite", "pz.ini:2: [platform] file = '/dev/zero'", "a character device"},
      {"simulate tz.ini --db r.sqlite", "tz.ini:4: [failures] trace = '/dev/zero'", "a character device"},
      {"simulate tz.ini --set failures.trace=fifo --db r.sqlite", "--set failures.trace=fifo", "a FIFO"},
      {"simulate tz.ini --set failures.trace=t.csv --set failures.trace_map=fifo --db r.sqlite",
       "--set failures.trace_map=fifo", "a FIFO"},
      {"simulate sf.ini --db r.sqlite", "sf.xml:7: state_file: ", "fifo: a FIFO, not a regular file"},
      {"simulate sz.ini --db r.sqlite", "sz.xml:7: state_file: /dev/zero: a character device", NULL},
      {"simulate tf.ini --db r.sqlite", "tf.xml:7: trace file", "fifo: a FIFO, not a regular file"},
      {"fit fifo", "cannot open failure log 'fifo': a FIFO", NULL},
      {"fit /dev/zero", "cannot open failure log '/dev/zero': a character device", NULL},
  };
  snprintf(fifo, sizeof fifo, "%s", fl_test_tmp("fifo"));
  unlink(fifo);
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  fl_cli_write("pf.ini", "[platform]\nfile = fifo\n[app]\nnodes = 2\n");
  fl_cli_write("pz.ini", "[platform]\nfile = /dev/zero\n[app]\nnodes = 2\n");
  fl_cli_write("tz.ini", "[failures]\nmodel = trace\ntrace_format = csv\ntrace = /dev/zero\n"
                         "[platform]\nnodes = 8\n[app]\nnodes = 4\nwork = 1h\n[run]\nreplicas = 1\n");
  fl_cli_write("t.csv", "time,node,downtime\n100,1,10\n");
  for (int z = 0; z < 2; z++) {
    snprintf(xml, sizeof xml,
             "%s<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\" state_file=\"%s\"/>\n"
             "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
             "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n</zone>\n</platform>\n",
             head, z ? "/dev/zero" : "fifo");
    fl_cli_write(z ? "sz.xml" : "sf.xml", xml);
  }
  /* a <trace> element's file, which SimGrid reads itself (it blocked there) */
  snprintf(xml, sizeof xml,
           "%s<host id=\"a\" speed=\"1Gf\"/>\n<trace id=\"t1\" file=\"fifo\" periodicity=\"1.0\"/>\n"
           "<trace_connect trace=\"t1\" element=\"a\" kind=\"SPEED\"/>\n</zone>\n</platform>\n",
           head);
  fl_cli_write("tf.xml", xml);
  fl_cli_write("tf.ini", "[platform]\nfile = tf.xml\n[app]\nnodes = 1\n[run]\nreplicas = 1\n");
  fl_cli_write("sf.ini", "[platform]\nfile = sf.xml\n[app]\nnodes = 2\n[run]\nreplicas = 1\n");
  fl_cli_write("sz.ini", "[platform]\nfile = sz.xml\n[app]\nnodes = 2\n[run]\nreplicas = 1\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int code = fl_cli_run_bounded(cases[i].args, 30, 4L << 20);
    if (code != 2)
      fprintf(stderr, "\n    faultline %s: exit %d\n", cases[i].args, code);
    expect_2(code, cases[i].want);
    if (cases[i].also)
      CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, cases[i].also));
    CU_ASSERT_FALSE(fl_cli_exists("r.sqlite"));
  }
  /* a workflow's graph and its substitutes (the shipped Montage scenario) */
  snprintf(args, sizeof args, "simulate %s --set app.graph=%s --db r.sqlite",
           fl_test_src("scenarios/workflow-montage.ini"), fifo);
  expect_2(fl_cli_run_bounded(args, 60, 4L << 20), "a FIFO, not a regular file");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set app.graph="));
  snprintf(args, sizeof args, "simulate %s --set app.substitutes=%s --db r.sqlite",
           fl_test_src("scenarios/workflow-montage.ini"), fifo);
  expect_2(fl_cli_run_bounded(args, 60, 4L << 20), "a FIFO, not a regular file");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--set app.substitutes="));
  CU_ASSERT_FALSE(fl_cli_exists("r.sqlite"));
  unlink(fifo);
}

/* An output a flag names is checked before any work: a report's plot into a directory that does not exist failed
 * after the work with gnuplot's status, calibrate --out after minutes of measurement. A FIFO (or any file that is
 * not a regular one) at the output's path is refused, not replaced. */
static void test_outputs_checked_first(void)
{
  char fifo[4096];
  struct stat st;
  fl_cli_write("o.ini", GOOD);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate o.ini --sweep failures.node_mtbf=10d,20d --db o.sqlite -q", 120),
                        0);
  expect_2(fl_cli_run_limited("report o.sqlite --plot no-such-dir/w.svg --x failures.node_mtbf", 60),
           "--plot no-such-dir/w.svg: no directory no-such-dir");
  expect_2(fl_cli_run_limited("report o.sqlite --html o.ini/r.html", 60),
           "--html o.ini/r.html: o.ini is not a directory");
  snprintf(fifo, sizeof fifo, "%s", fl_test_tmp("out.html"));
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
  expect_2(fl_cli_run_limited("report o.sqlite --html out.html", 60), "--html out.html: exists and is not a regular");
  CU_ASSERT(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
  expect_2(fl_cli_run_limited("calibrate o.ini --np 2 --out no-such-dir/c.ini", 30), "--out no-such-dir/c.ini");
  CU_ASSERT_EQUAL(entries_in(fl_test_tmp("no-such-dir")), -1);
  /* and a good one still works */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report o.sqlite --plot w.svg --x failures.node_mtbf", 60), 0);
  CU_ASSERT_TRUE(fl_cli_exists("w.svg"));
  unlink(fifo);
}

/* An XML file declaring an encoding its bytes do not fit (UTF-32 here) made libxml2 print its own lines on stderr
 * ("encoding error : input conversion failed...", "I/O error : encoder error") before faultline's: a platform file
 * with a profile (read by faultline's own passes) and a workflow's DAX. One line now, exit 2, no database. */
static void test_xml_errors_one_line(void)
{
  fl_cli_write("u32.xml", "<?xml version=\"1.0\" encoding=\"UTF-32\"?>\n<platform version=\"4.1\"><zone id=\"z\" "
                          "routing=\"Full\"><host id=\"controller\" speed=\"1Gf\"/><host id=\"a\" speed=\"1Gf\" "
                          "state_file=\"a.txt\"/></zone></platform>\n");
  fl_cli_write("u32.ini", "[platform]\nfile = u32.xml\n[app]\nnodes = 1\n");
  expect_2(fl_cli_run_limited("simulate u32.ini --db x.sqlite", 30), "u32.xml:1: not well-formed XML");
  fl_cli_write("u32.dax", "<?xml version=\"1.0\" encoding=\"UTF-32\"?>\n<adag name=\"x\"><job id=\"a\" name=\"t\" "
                          "runtime=\"1\"/></adag>\n");
  fl_cli_write("w32.ini", "[run]\nreplicas = 1\n[platform]\nnodes = 2\n[app]\nkind = workflow\ngraph = u32.dax\n"
                          "[strategy]\nkind = replication\n");
  expect_2(fl_cli_run_limited("simulate w32.ini --db x.sqlite", 30), "u32.dax:1: malformed DAX");
  /* libxml2's own print of an input it cannot convert ("xmlParseChunk: encoder error", fuzz_platform) */
  {
    static const char chunk[] =
        "<?xml version='1.0' encoding='ut-f8'?>\n<!DOCTYPE platform SYSTEM \"https:state_filed.dt+\">\n<platform "
        "version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n  <!-- this plat\234\220\215\222\337\222\220\337all "
        "pri The routebone\n  -->\n  <cluster bb_bw=\"0.2<route bb_lat=\"500us\" bw=\"125MBps\" core=\"2\" "
        "id=\"backboned\" latency_filelat=\"50us\" prefix=\"node-\" radical=\"0-7_off\000\000\000,\" value=\"0.0\" "
        "/>\n\377\377\377\377\377\377\377\n\n  <!U-- We have only one oatform>\n";
    FILE *f = fopen(fl_test_tmp("chunk.xml"), "wb");
    CU_ASSERT_FATAL(f != NULL);
    fwrite(chunk, 1, sizeof chunk - 1, f);
    fclose(f);
  }
  fl_cli_write("chunk.ini", "[platform]\nfile = chunk.xml\n[app]\nnodes = 1\n");
  expect_2(fl_cli_run_limited("simulate chunk.ini --db x.sqlite", 30), "chunk.xml:");
  CU_ASSERT_FALSE(fl_cli_exists("x.sqlite"));
}

static CU_TestInfo hardening_tests[] = {
    {"platform size checked before anything is built", test_platform_size_checked_first},
    {"a signal leaves no temporary platform", test_signal_leaves_no_temp_platform},
    {"a signal to run: one stopped row, no process or temporary directory left", test_run_signal_cleans_up},
    {"run's MPI shared-memory files go with it", test_run_mpi_shared_memory_removed},
    {"platforms without hosts, without a controller", test_platform_without_hosts},
    {"failures that outpace progress end the replica", test_no_progress_ends},
    {"steady start: nodes down at t=0 are not failures", test_steady_start_is_not_a_failure},
    {"a foreign database is never touched", test_foreign_database_untouched},
    {"a newer schema is bad input everywhere; --baseline values", test_newer_schema_and_baseline_values},
    {"concurrent writers: own rows in the summary", test_concurrent_writers_own_summary},
    {"rerun checks its inputs and every column", test_rerun_is_self_contained},
    {"seeds are any unsigned 64-bit integer", test_seed_is_any_u64},
    {"run's arguments are checked", test_run_arguments},
    {"command line consistency", test_command_line_consistency},
    {"inputs: regular files only, refused at once", test_inputs_regular_files_only},
    {"outputs checked before any work", test_outputs_checked_first},
    {"libxml2 prints nothing of its own", test_xml_errors_one_line},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"hardening", NULL, NULL, NULL, NULL, hardening_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
