/* test_mpi.c — real mode on real processes: faultline run (mpirun --enable-recovery, oversubscribed on this
 * machine) with 4 active ranks and spares. mpirun exits 0 even when ranks die, so every check reads each
 * rank's own outcome file. Skipped (77) when faultline was built without MPI. */
#include "engine.h"
#include "fl_config.h"
#include "fl_test.h"

#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NP 4

typedef struct outcome {
  int present, role;
  char status[16];
  long iterations;
  char checksum[32];
} outcome;

static char err_text[1 << 14];

static int run_scenario(const char *scenario, const char *extra, const char *outdir)
{
  char cmd[4096];
  const char *bin = getenv("FAULTLINE");
  int st;
  FILE *f;
  size_t n;
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s' && '%s' run '%s' --np %d --out '%s' --db '%s/mpi.sqlite' --quiet "
           "--set app.grid=64x64 --set mpi.checkpoint_every=5 %s >/dev/null 2>'%s/err.txt'",
           outdir, bin, scenario, NP, outdir, fl_test_tmpdir(), extra, fl_test_tmpdir());
  st = system(cmd);
  f = fopen(fl_test_tmp("err.txt"), "r");
  n = f ? fread(err_text, 1, sizeof err_text - 1, f) : 0;
  err_text[n] = '\0';
  if (f)
    fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* One number from the suite's results database (-1 when there is none yet). */
static long db_count(const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  long n = -1;
  if (sqlite3_open_v2(fl_test_tmp("mpi.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n < 0 ? 0 : n;
}

static int run(const char *extra, const char *outdir)
{
  return run_scenario(fl_test_src("scenarios/cg-buddy.ini"), extra, outdir);
}

/* Outcomes by role (index) from the rank files in outdir; returns how many rank files there were. */
static int read_outcomes(const char *outdir, int nproc, outcome *by_role)
{
  int files = 0;
  memset(by_role, 0, NP * sizeof *by_role);
  for (int w = 0; w < nproc; w++) {
    char path[4096], line[2048];
    FILE *f;
    outcome o;
    snprintf(path, sizeof path, "%s/rank-%d.txt", outdir, w);
    if (!(f = fopen(path, "r")))
      continue;
    files++;
    memset(&o, 0, sizeof o);
    if (fgets(line, sizeof line, f) &&
        sscanf(line, "rank %*d role %d status %15s iterations %ld checksum %31s", &o.role, o.status, &o.iterations,
               o.checksum) == 4 &&
        o.role >= 0 && o.role < NP) {
      o.present = 1;
      by_role[o.role] = o;
    }
    fclose(f);
  }
  return files;
}

static outcome reference[NP];
static int copies = 1; /* processes per rank (replication) */

static void test_failure_free(void)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/free", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("", dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, reference), NP + 1); /* 4 roles and the idle spare */
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(reference[r].present);
    CU_ASSERT_STRING_EQUAL(reference[r].status, "completed");
    CU_ASSERT_EQUAL(reference[r].iterations, reference[0].iterations);
  }
  CU_ASSERT(reference[0].iterations > 50);
}

/* A rank killed (SIGKILL) at a random iteration: the spare takes its role; every role ends with the
 * failure-free iteration count and a bitwise-identical part of the solution. */
static void check_recovery(const char *label, const char *kills, int spares, int expect_files)
{
  char dir[512], extra[256];
  outcome got[NP];
  int files;
  snprintf(dir, sizeof dir, "%s/%s", fl_test_tmpdir(), label);
  snprintf(extra, sizeof extra, "--spares %d %s", spares, kills);
  CU_ASSERT_EQUAL(run(extra, dir), 0);
  files = read_outcomes(dir, NP * copies + spares, got);
  CU_ASSERT_EQUAL(files, expect_files);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(got[r].present);
    CU_ASSERT_STRING_EQUAL(got[r].status, "completed");
    CU_ASSERT_EQUAL(got[r].iterations, reference[r].iterations);
    CU_ASSERT_STRING_EQUAL(got[r].checksum, reference[r].checksum);
    if (strcmp(got[r].checksum, reference[r].checksum) != 0)
      fprintf(stderr, "\n    %s: role %d checksum %s, failure-free %s\n", label, r, got[r].checksum,
              reference[r].checksum);
  }
}

static void test_kill_random(void)
{
  unsigned seed = (unsigned)getpid();
  CU_ASSERT_FATAL(reference[0].iterations > 2);
  for (int trial = 0; trial < 3; trial++) {
    char kills[64], label[32];
    int rank = (int)(rand_r(&seed) % NP);
    long iter = 1 + (long)(rand_r(&seed) % (unsigned)(reference[0].iterations - 1));
    snprintf(kills, sizeof kills, "--kill %d@%ld", rank, iter);
    snprintf(label, sizeof label, "kill-%d-%ld", rank, iter);
    fprintf(stderr, "\n    trial %d: kill rank %d at iteration %ld", trial, rank, iter);
    check_recovery(label, kills, 1, NP); /* the dead rank wrote nothing; the spare now holds its role */
  }
}

static void test_two_failures_two_spares(void)
{
  /* roles 0 and 2 are not each other's mirrors on the ring: both come back */
  check_recovery("two", "--kill 0@20 --kill 2@20", 2, NP);
}

static void test_pair_mirror(void)
{
  check_recovery("pair", "--set mpi.mirror=pair --kill 3@33", 1, NP);
}

/* One "NAME X" figure of role 0's outcome line in outdir (-1 when absent). */
static double role0_value(const char *outdir, int nproc, const char *name)
{
  double v = -1;
  for (int w = 0; w < nproc && v < 0; w++) {
    char path[4096], line[2048], key[64];
    const char *p;
    int role = -1;
    FILE *f;
    snprintf(path, sizeof path, "%s/rank-%d.txt", outdir, w);
    if (!(f = fopen(path, "r")))
      continue;
    snprintf(key, sizeof key, " %s ", name);
    if (fgets(line, sizeof line, f) && sscanf(line, "rank %*d role %d", &role) == 1 && role == 0 &&
        (p = strstr(line, key)))
      v = strtod(p + strlen(key), NULL);
    fclose(f);
  }
  return v;
}

static long role0_figure(const char *outdir, int nproc, const char *name)
{
  return (long)role0_value(outdir, nproc, name);
}

/* A rank and the rank holding its buddy copy die before a new commit: the strategy decides, the same decision as
 * in the simulator — buddy alone starts over from scratch, two levels roll back to the file level; either way the
 * answer is the failure-free one, bit for bit. */
static void test_buddy_and_rank(void)
{
  char dir[512];
  check_recovery("buddy-lost", "--kill 1@12 --kill 2@12", 2, NP);
  snprintf(dir, sizeof dir, "%s/buddy-lost", fl_test_tmpdir());
  CU_ASSERT_EQUAL(role0_figure(dir, NP + 2, "from_scratch"), 1);
  CU_ASSERT_EQUAL(role0_figure(dir, NP + 2, "from_buddy"), 0);
  /* two levels, a file checkpoint every 2nd (iterations 5, 15 with one every 5): back to iteration 15's */
  check_recovery("two-level-lost", "--set strategy.kind=two-level --set strategy.file_every=2 --kill 1@22 --kill 2@22",
                 2, NP);
  snprintf(dir, sizeof dir, "%s/two-level-lost", fl_test_tmpdir());
  CU_ASSERT_EQUAL(role0_figure(dir, NP + 2, "from_file"), 1);
  CU_ASSERT_EQUAL(role0_figure(dir, NP + 2, "from_scratch"), 0);
  CU_ASSERT(role0_figure(dir, NP + 2, "file_commits") >= 2);
  /* the same with the file level in HDF5 (mpi.checkpoint_store): one file per version that h5dump reads */
  if (FL_HAVE_HDF5) {
    char cmd[1024];
    check_recovery("two-level-hdf5",
                   "--set strategy.kind=two-level --set strategy.file_every=2 --set mpi.checkpoint_store=hdf5 "
                   "--kill 1@22 --kill 2@22",
                   2, NP);
    snprintf(dir, sizeof dir, "%s/two-level-hdf5", fl_test_tmpdir());
    CU_ASSERT_EQUAL(role0_figure(dir, NP + 2, "from_file"), 1);
    snprintf(cmd, sizeof cmd, "h5dump -H '%s'/ckpt/role-1/v*/arrays.h5 2>&1 | grep -q 'DATASET'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
  }
}

/* Replication (replica sets): a copy of rank 1 killed in each set at once, so no copy goes on unharmed: both sets
 * fall back to their file level (re-created by their spares) and one finishes first, with the failure-free
 * answer; one row for the job (both sets may finish, and write, together). */
static void test_replication_all_copies(void)
{
  char dir[512];
  outcome got[NP];
  long rows = db_count("SELECT COUNT(*) FROM runs");
  snprintf(dir, sizeof dir, "%s/replication-both", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run("--spares 2 --set strategy.kind=replication --kill 1@17 --kill 5@17", dir), 0);
  read_outcomes(dir, 2 * NP + 2, got);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(got[r].present && strcmp(got[r].status, "completed") == 0);
    CU_ASSERT_STRING_EQUAL(got[r].checksum, reference[r].checksum);
  }
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND strategy = "
                           "'replication' AND status = 'completed' AND interruptions >= 1"),
                  1);
}

/* Replication, one copy killed, and the set that finishes first has not agreed on it yet (mpi.timeout 10 s: the
 * killed copy's set is still detecting the death when the other set finishes, ~1800 iterations later): the row
 * still counts it, by the finishing set's census of the other set (it used to say failures 0). Without a kill,
 * failures 0. The kill comes early (iteration 150 of ~1960) so that the other set cannot finish before it on a
 * loaded machine (the run would then be one without the kill, and say so in its note). */
static void test_replication_unheard_death(void)
{
  static const char *const extra[] = {"--kill 2@150", ""};
  for (int k = 0; k < 2; k++) {
    char dir[512], args[512];
    long rows = db_count("SELECT COUNT(*) FROM runs");
    snprintf(dir, sizeof dir, "%s/replication-unheard-%d", fl_test_tmpdir(), k);
    snprintf(args, sizeof args,
             "--spares 1 --set strategy.kind=replication --set mpi.timeout=10s %s --set app.grid=256x256 --set "
             "app.tolerance=1e-12 --set app.iterations=100000",
             extra[k]);
    CU_ASSERT_EQUAL(run(args, dir), 0);
    CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
    long failures = db_count("SELECT failures FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = "
                             "'completed'");
    CU_ASSERT_EQUAL(failures, 1 - k);
    if (failures != 1 - k)
      printf("\n    %s: failures %ld, expected %d; stderr:\n%s", extra[k][0] ? extra[k] : "no kill", failures, 1 - k,
             err_text);
  }
}

/* More deaths than spares with mpi.on_no_spare = shrink: the job goes on with fewer ranks, the dead rank's rows
 * re-cut over the others from the file level (or, under none, started over on fewer ranks): the solve converges to
 * the same solution (the sums run over other blocks, so not bit for bit: the error against the exact solution
 * agrees to 1e-12), on 3 ranks, exit 0. A strategy with no file level cannot shrink: refused. */
static void test_shrink(void)
{
  static const char *const kinds[] = {"checkpoint", "two-level", "none"};
  char dir[512], extra[256];
  double ref_error;
  snprintf(dir, sizeof dir, "%s/free", fl_test_tmpdir());
  ref_error = role0_value(dir, NP + 1, "error");
  CU_ASSERT_FATAL(ref_error > 0);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    outcome got[NP];
    int done = 0;
    snprintf(dir, sizeof dir, "%s/shrink-%s", fl_test_tmpdir(), kinds[i]);
    snprintf(extra, sizeof extra,
             "--spares 1 --set mpi.on_no_spare=shrink --set strategy.kind=%s --kill 1@12 --kill 2@30", kinds[i]);
    CU_ASSERT_EQUAL(run(extra, dir), 0);
    read_outcomes(dir, NP + 1, got);
    for (int r = 0; r < NP; r++)
      if (got[r].present) {
        done++;
        CU_ASSERT_STRING_EQUAL(got[r].status, "completed");
        CU_ASSERT(labs(got[r].iterations - reference[0].iterations) <= 2);
      }
    CU_ASSERT_EQUAL(done, NP - 1);
    CU_ASSERT_EQUAL(role0_figure(dir, NP + 1, "roles"), NP - 1);
    CU_ASSERT_DOUBLE_EQUAL(role0_value(dir, NP + 1, "error"), ref_error, 1e-12);
    CU_ASSERT(role0_value(dir, NP + 1, "residual") <= 1e-8);
  }
  snprintf(dir, sizeof dir, "%s/shrink-buddy", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run("--set mpi.on_no_spare=shrink --set strategy.kind=buddy", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "shrink re-cuts a dead rank's rows"));
}

/* Conformance, the real engine's half (test_strategies.c has the simulator's): every registered strategy that
 * faultline-mpi runs recovers from a real kill -9 to the failure-free answer, bit for bit, and its row names it;
 * every other one is refused before anything runs (exit 2, the reason, no row). */
static void test_every_strategy(void)
{
  for (int i = 0; i < fl_strat_count(); i++) {
    const char *name = fl_strat_at(i)->name;
    char extra[256], label[64];
    fl_scenario *sc = NULL;
    fl_engine_caps caps;
    fl_strategy_run strat;
    long rows = db_count("SELECT COUNT(*) FROM runs"), named;
    char sql[256];
    CU_ASSERT_EQUAL_FATAL(fl_scenario_load(fl_test_src("scenarios/cg-buddy.ini"), &sc), FL_OK);
    snprintf(extra, sizeof extra, "strategy.kind=%s", name);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_set(sc, extra), FL_OK);
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM runs WHERE strategy = '%s' AND status = 'completed'", name);
    named = db_count(sql);
    snprintf(label, sizeof label, "strategy-%s", name);
    fprintf(stderr, "\n    %s", name);
    if (fl_exec_setup(sc, NP, &caps, &strat) == FL_OK) {
      snprintf(extra, sizeof extra, "--set strategy.kind=%s --kill 1@17", name);
      copies = (int)strat.degree; /* replication: the copy that finishes first answers; the others are stopped */
      check_recovery(label, extra, 1, NP);
      copies = 1;
      CU_ASSERT_EQUAL(db_count(sql), named + 1);
    } else {
      char dir[512];
      snprintf(dir, sizeof dir, "%s/%s", fl_test_tmpdir(), label);
      snprintf(extra, sizeof extra, "--set strategy.kind=%s", name);
      CU_ASSERT_EQUAL(run(extra, dir), 2);
      CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--set strategy.kind="));
      CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "the real engine"));
      CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows);
    }
    fl_scenario_destroy(&sc);
  }
}

/* More deaths than spares: the job cannot go on; it says so, stops, and its row says failed (the simulator's word
 * for "no node left"; data_lost is for state gone with every copy of it). */
static void test_no_spare_left(void)
{
  char dir[512];
  outcome got[NP];
  snprintf(dir, sizeof dir, "%s/lost", fl_test_tmpdir());
  long before = db_count("SELECT COUNT(*) FROM runs WHERE status = 'failed'");
  CU_ASSERT_EQUAL(run("--spares 1 --kill 1@12 --kill 2@12", dir), 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "no spare left"));
  read_outcomes(dir, NP + 1, got);
  for (int r = 0; r < NP; r++)
    CU_ASSERT(!got[r].present || strcmp(got[r].status, "completed") != 0);
  /* the run that ended is in the database too, as what it was */
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE status = 'failed'"), before + 1);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE status = 'failed' AND mode = 'real' AND failures >= 2"),
                  before + 1);
}

static long beat_pid(const char *dir, int w);
static void sleep_ms(long ms);
static int running(pid_t pid);

/* `faultline run` of cg-buddy with `extra`, in the background, outcome files in dir; its exit status goes to
 * TAG-code.txt, its stderr to TAG-err.txt, in the suite's directory. */
static void run_background(const char *dir, const char *extra, const char *tag)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s'; ( '%s' run '%s' --np %d --out '%s' --db '%s/mpi.sqlite' --quiet %s >/dev/null "
           "2>'%s/%s-err.txt'; echo $? > '%s/%s-code.txt' ) &",
           dir, getenv("FAULTLINE"), fl_test_src("scenarios/cg-buddy.ini"), NP, dir, fl_test_tmpdir(), extra,
           fl_test_tmpdir(), tag, fl_test_tmpdir(), tag);
  {
    char code[256];
    snprintf(code, sizeof code, "%s-code.txt", tag);
    unlink(fl_test_tmp(code));
  }
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

/* The pid of process w of the run in dir once it is past start-up (0 after 5 s without). */
static long wait_started(const char *dir, int w)
{
  long pid = 0;
  for (int tries = 0; tries < 100 && !pid; tries++) {
    sleep_ms(50);
    pid = beat_pid(dir, w);
  }
  return pid;
}

/* A run in the background, and rank 2 stopped (SIGSTOP) 0.3 s after its start-up: its pid. */
static long start_and_stop(const char *dir, const char *extra, const char *tag)
{
  long pid;
  run_background(dir, extra, tag);
  pid = wait_started(dir, 2);
  CU_ASSERT_FATAL(pid > 0);
  sleep_ms(300);
  kill((pid_t)pid, SIGSTOP);
  return pid;
}

/* The exit status of the background run TAG, waiting up to `tenths` tenths of a second (-1: it did not end). */
static int wait_code(const char *tag, int tenths)
{
  char name[256], code[16] = "";
  FILE *p;
  int st;
  snprintf(name, sizeof name, "%s-code.txt", tag);
  for (st = 0; st < tenths && access(fl_test_tmp(name), F_OK) != 0; st++)
    sleep_ms(100);
  if (st >= tenths)
    return -1;
  sleep_ms(100);
  if ((p = fopen(fl_test_tmp(name), "r"))) {
    if (!fgets(code, sizeof code, p))
      code[0] = '\0';
    fclose(p);
  }
  return atoi(code);
}

/* The fault-injection table (issue: real runs you can trust): for each case the exit code, exactly one row per run
 * (none for a refusal), its status, and figures that are NULL where there is no answer. Cases already covered
 * elsewhere in this suite: a kill per strategy (bit for bit), rank and buddy together, the replacement killed again,
 * SIGSTOP then SIGCONT (fenced), every process stopped (watchdog), kills during writes and recovery. */
typedef struct fault_case {
  const char *label, *args;
  int code;            /* exit status */
  const char *status;  /* the row's; NULL: no row */
  const char *message; /* in stderr */
  int failures;        /* the row's failures (0: not checked) */
} fault_case;

static void test_fault_table(void)
{
  static const fault_case cases[] = {
      /* replication: the set that lost a rank and had no spare retires; the other finishes: exit 0, its row, which
       * counts the job's failures, the retired set's too */
      {"repl-one-set", "--spares 1 --set strategy.kind=replication --kill 2@20 --kill 6@20", 0, "completed", NULL, 2},
      /* both sets retire: the job failed (no spare), one row, exit 3 */
      {"repl-no-set", "--spares 0 --set strategy.kind=replication --kill 2@20 --kill 6@20", 3, "failed",
       "no spare left", 0},
      /* no spare: failed, not data_lost, under a strategy with a file level too */
      {"no-spare-file", "--spares 0 --set strategy.kind=two-level --kill 2@20", 3, "failed", "no spare left", 1},
      /* kills that cannot happen: refused, nothing runs, no row */
      {"kill-spare", "--spares 1 --kill 4@3", 2, NULL, "rank 4 is a spare", 0},
      {"kill-late", "--spares 1 --kill 2@99999", 2, NULL, "never comes", 0},
      /* a kill the solve ends before (it converges long before iteration 5000): the run is failure-free, and says
       * so (the row's note; it used to be silent) */
      {"kill-missed", "--spares 1 --kill 2@5000 --set app.iterations=100000", 0, "completed",
       "--kill 2@5000 did not happen: the solve ended at iteration", 0},
      /* a role's checkpoint directory cannot be written (a file where its directory goes): every role stops at
       * that checkpoint, one row, status error, exit 1 */
      {"ckpt-unwritable", "--spares 1 --set strategy.kind=checkpoint --set mpi.checkpoint_dir=@CKDIR@", 1, "error",
       "file level", 0},
      /* the same under replication (set 0's directory cannot be made): the job ends as under every strategy, not
       * as a retired set (it used to say failed, exit 3, "no spare left", its figures NULL) */
      {"repl-ckpt-unwritable", "--spares 1 --set strategy.kind=replication --set mpi.checkpoint_dir=@CKDIR@", 1,
       "error", "file level", 0},
      /* a rank dies before MPI_Init: the others would wait in MPI_Init for ever; the start-up limit stops it */
      {"kill-at-init", "--spares 1 --set mpi.watchdog=6s --kill 2@init", 1, "error", "never got past MPI_Init", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const fault_case *c = &cases[i];
    char dir[512], args[1024], ckdir[512], sql[256];
    const char *at;
    long rows = db_count("SELECT COUNT(*) FROM runs"), with = 0;
    int code;
    snprintf(dir, sizeof dir, "%s/%s", fl_test_tmpdir(), c->label);
    snprintf(ckdir, sizeof ckdir, "%s/%s-ck", fl_test_tmpdir(), c->label);
    if ((at = strstr(c->args, "@CKDIR@"))) {
      char role1[600];
      snprintf(args, sizeof args, "%.*s%s%s", (int)(at - c->args), c->args, ckdir, at + 7);
      mkdir(ckdir, 0777);
      snprintf(role1, sizeof role1, "%s/role-1", ckdir);
      fclose(fopen(role1, "w")); /* role 1 cannot make its directory: only it fails to write */
      snprintf(role1, sizeof role1, "%s/set-0", ckdir);
      fclose(fopen(role1, "w")); /* replication: replica set 0 cannot make its directories */
    } else {
      snprintf(args, sizeof args, "%s", c->args);
    }
    if (c->status) {
      snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM runs WHERE status = '%s'", c->status);
      with = db_count(sql);
    }
    code = run(args, dir);
    if (code != c->code || (c->message && !strstr(err_text, c->message)))
      fprintf(stderr, "\n    %s: exit %d (expected %d): %s", c->label, code, c->code, err_text);
    CU_ASSERT_EQUAL(code, c->code);
    if (c->message)
      CU_ASSERT_PTR_NOT_NULL(strstr(err_text, c->message));
    CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + (c->status ? 1 : 0));
    if (c->status) {
      CU_ASSERT_EQUAL(db_count(sql), with + 1);
      if (c->failures)
        CU_ASSERT_EQUAL(db_count("SELECT failures FROM runs WHERE id = (SELECT MAX(id) FROM runs)"), c->failures);
      if (strcmp(c->label, "kill-missed") == 0)
        CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND failures = 0 "
                                 "AND note LIKE '--kill 2@5000 did not happen: the solve ended at iteration %'"),
                        1);
      if (strcmp(c->status, "error") == 0) /* stopped by its environment: the figures up to then are filled */
        CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND failures IS "
                                 "NOT NULL AND interruptions IS NOT NULL AND checkpoints IS NOT NULL"),
                        strcmp(c->label, "kill-at-init") != 0);
      if (strcmp(c->status, "completed") != 0) {
        /* no answer: no error, no iteration count, no useful work */
        CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND error_linf "
                                 "IS NULL AND iterations IS NULL AND work_s = 0"),
                        1);
      }
    }
  }
}

/* run.events = all: the real run's timeline goes into `events` with the simulator's kind names (failure,
 * recovery, restart from a level, checkpoint by level), so `report --timeline` draws it as it draws a simulated
 * one. */
static void test_real_events(void)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/events", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(
      run("--spares 2 --set strategy.kind=two-level --set run.events=all --kill 2@20 --kill 1@60", dir), 0);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM events_text e JOIN runs r ON r.id = e.run_id WHERE r.id = (SELECT "
                           "MAX(id) FROM runs) AND e.kind = 'failure'"),
                  2);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM events_text WHERE run_id = (SELECT MAX(id) FROM runs) AND kind = "
                           "'recovery'"),
                  2);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM events WHERE run_id = (SELECT MAX(id) FROM runs) AND kind = 43 AND "
                           "level IN ('buddy', 'file')"),
                  2);
  /* a checkpoint event per checkpoint the row counts */
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM events e JOIN runs r ON r.id = e.run_id WHERE r.id = (SELECT MAX(id) "
                           "FROM runs) AND e.kind = 94") -
                      db_count("SELECT checkpoints FROM runs WHERE id = (SELECT MAX(id) FROM runs)"),
                  0);
}

/* A rank stopped (SIGSTOP) and never continued: the others replace it and finish; `faultline run` ends the stopped
 * process once the job's row is written (not after mpi.watchdog): exit 0, one completed row, in seconds. Under the
 * file strategies the stopped process still holds its role's checkpoint lock: the spare, holding the runtime's
 * verdict, kills it and takes the directory over (it used to stop, "another writer has this checkpoint directory
 * open": failed, exit 3; error, exit 1 under two-level; a retired set under replication). */
static void test_stopped_never_continued(void)
{
  static const char *kinds[] = {"buddy", "checkpoint", "two-level", "replication"};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    char dir[512], extra[512];
    long rows = db_count("SELECT COUNT(*) FROM runs"), pid;
    snprintf(dir, sizeof dir, "%s/stopped-%s", fl_test_tmpdir(), kinds[k]);
    /* mpi.timeout 3 s: on a loaded machine (the suites run side by side) a starved rank is not taken for dead */
    snprintf(extra, sizeof extra,
             "--set strategy.kind=%s --set mpi.timeout=3s --set app.grid=256x256 --set app.tolerance=1e-12 --set "
             "app.iterations=100000",
             kinds[k]);
    pid = start_and_stop(dir, extra, "st"); /* under replication, set 0's rank 2: the spare is set 0's */
    /* the default watchdog is 10 min: the run must end long before */
    CU_ASSERT_EQUAL(wait_code("st", 900), 0);
    CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
    CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = "
                             "'completed' AND failures = 1"),
                    1);
    if (db_count("SELECT failures FROM runs WHERE id = (SELECT MAX(id) FROM runs)") != 1)
      fprintf(stderr, "\n    %s: failures %ld, interruptions %ld\n", kinds[k],
              db_count("SELECT failures FROM runs WHERE id = (SELECT MAX(id) FROM runs)"),
              db_count("SELECT interruptions FROM runs WHERE id = (SELECT MAX(id) FROM runs)"));
    if (k < 3) /* replication: the other set may finish first, uninterrupted */
      CU_ASSERT_EQUAL(db_count("SELECT interruptions FROM runs WHERE id = (SELECT MAX(id) FROM runs)"), 1);
    CU_ASSERT(!running((pid_t)pid));
  }
}

/* A second death while the job recovers from the first (rank 0 killed 1.4 s after rank 2 died, inside the
 * agreement): one failure counted per death, in the row and the events alike (the death in a round that did not
 * agree used to go uncounted: failures 1 beside two failure events). */
static void test_second_death_in_recovery(void)
{
  char dir[512];
  long rows = db_count("SELECT COUNT(*) FROM runs"), p0, p2;
  snprintf(dir, sizeof dir, "%s/second", fl_test_tmpdir());
  run_background(dir,
                 "--spares 2 --kill 2@600 --set strategy.kind=checkpoint --set run.events=all --set app.grid=256x256 "
                 "--set app.tolerance=1e-12 --set app.iterations=100000",
                 "second");
  p2 = wait_started(dir, 2);
  p0 = wait_started(dir, 0);
  CU_ASSERT_FATAL(p0 > 0 && p2 > 0);
  for (int i = 0; i < 1500 && running((pid_t)p2); i++)
    sleep_ms(20);
  CU_ASSERT_FATAL(!running((pid_t)p2));
  sleep_ms(1400);
  kill((pid_t)p0, SIGKILL);
  CU_ASSERT_EQUAL(wait_code("second", 900), 0);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
  CU_ASSERT_EQUAL(db_count("SELECT failures FROM runs WHERE id = (SELECT MAX(id) FROM runs)"), 2);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM events_text WHERE run_id = (SELECT MAX(id) FROM runs) AND kind = "
                           "'failure'"),
                  2);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = "
                           "'completed'"),
                  1);
}

/* Overwrite 8 bytes in the middle of DIR/ckpt/role-ROLE's k-th newest version's state.bin (k = 0: the newest);
 * returns that version, or -1. */
static long corrupt_version(const char *dir, int role, int k)
{
  char path[1024], file[1200];
  long vs[64], nv = 0;
  DIR *d;
  struct dirent *e;
  FILE *f;
  long size;
  snprintf(path, sizeof path, "%s/ckpt/role-%d", dir, role);
  if (!(d = opendir(path)))
    return -1;
  while ((e = readdir(d)) && nv < 64)
    if (e->d_name[0] == 'v')
      vs[nv++] = atol(e->d_name + 1);
  closedir(d);
  for (long i = 0; i < nv; i++) /* descending */
    for (long j = i + 1; j < nv; j++)
      if (vs[j] > vs[i]) {
        long t = vs[i];
        vs[i] = vs[j];
        vs[j] = t;
      }
  if (k >= nv)
    return -1;
  snprintf(file, sizeof file, "%s/v%012ld/state.bin", path, vs[k]);
  if (!(f = fopen(file, "r+")))
    return -1;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, size / 2, SEEK_SET);
  fwrite("XXXXXXXX", 1, 8, f);
  fclose(f);
  return vs[k];
}

/* A damaged checkpoint met at a restore (rank 2 killed at iteration 600 under `checkpoint`; then, while the others
 * detect it — mpi.timeout 3 s — role 1's newest version is overwritten in the middle): every role goes back to
 * the newest version intact on every role, the answer is the failure-free one bit for bit, the row's note and a
 * `corrupt` event name the damaged version (it used to end failed, exit 3, role 1 reported dead). With the two
 * versions role 1 keeps both damaged: data_lost, exit 3. */
static void test_corrupt_checkpoint(void)
{
  char refdir[512];
  outcome ref[NP];
  snprintf(refdir, sizeof refdir, "%s/corrupt-ref", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--spares 1 --set strategy.kind=checkpoint --set app.grid=256x256 --set "
                            "app.tolerance=1e-12 --set app.iterations=100000",
                            refdir),
                        0);
  read_outcomes(refdir, NP + 1, ref);
  for (int both = 0; both < 2; both++) {
    char dir[512], want[128];
    long rows = db_count("SELECT COUNT(*) FROM runs"), p2, v = -1, older = -1;
    outcome got[NP];
    snprintf(dir, sizeof dir, "%s/corrupt-%d", fl_test_tmpdir(), both);
    run_background(dir,
                   "--spares 1 --kill 2@600 --set strategy.kind=checkpoint --set mpi.timeout=3s --set run.events=all "
                   "--set app.grid=256x256 --set app.tolerance=1e-12 --set app.iterations=100000",
                   "corrupt");
    p2 = wait_started(dir, 2);
    CU_ASSERT_FATAL(p2 > 0);
    for (int i = 0; i < 3000 && running((pid_t)p2); i++)
      sleep_ms(10);
    CU_ASSERT_FATAL(!running((pid_t)p2));
    v = corrupt_version(dir, 1, 0);
    if (both)
      older = corrupt_version(dir, 1, 1);
    CU_ASSERT_FATAL(v > 0 && (!both || older > 0));
    CU_ASSERT_EQUAL(wait_code("corrupt", 900), both ? 3 : 0);
    CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
    CU_ASSERT_EQUAL(db_count(both ? "SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = "
                                    "'data_lost'"
                                  : "SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = "
                                    "'completed' AND failures = 1"),
                    1);
    snprintf(want, sizeof want, "%%version %ld of role 1 corrupt%%", v);
    if (!both) {
      char sql[512];
      snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND note LIKE '%s'",
               want);
      CU_ASSERT_EQUAL(db_count(sql), 1);
      snprintf(sql, sizeof sql,
               "SELECT COUNT(*) FROM events_text WHERE run_id = (SELECT MAX(id) FROM runs) AND kind = 'corrupt' AND "
               "rank = 1 AND label = 'version %ld'",
               v);
      CU_ASSERT_EQUAL(db_count(sql), 1);
      read_outcomes(dir, NP + 1, got);
      for (int r = 0; r < NP; r++) {
        CU_ASSERT(got[r].present && strcmp(got[r].status, "completed") == 0);
        CU_ASSERT_STRING_EQUAL(got[r].checksum, ref[r].checksum);
      }
    } else {
      char text[4096] = "";
      FILE *f = fopen(fl_test_tmp("corrupt-err.txt"), "r");
      size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
      text[n] = '\0';
      if (f)
        fclose(f);
      CU_ASSERT_PTR_NOT_NULL(strstr(text, "no file-level version"));
    }
  }
}

/* A process that exists and is not a zombie (an orphaned rank's parent may not reap it at once). */
static int running(pid_t pid)
{
  char path[64], stat[512];
  FILE *f;
  const char *paren;
  int alive = 0;
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  if ((f = fopen(path, "r"))) {
    if (fgets(stat, sizeof stat, f) && (paren = strrchr(stat, ')')))
      alive = paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
    fclose(f);
  }
  return alive;
}

/* The pid a process of the job wrote into its heartbeat file DIR/beat-W (0 if none yet). */
static long beat_pid(const char *dir, int w)
{
  char beat[1024];
  long pid = 0;
  FILE *p;
  snprintf(beat, sizeof beat, "%s/beat-%d", dir, w);
  if ((p = fopen(beat, "r"))) {
    if (fscanf(p, "%ld", &pid) != 1 || pid < 2)
      pid = 0;
    fclose(p);
  }
  return pid;
}

static void sleep_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Every process of the job stopped (SIGSTOP) and never continued: the watchdog (mpi.watchdog) ends the job within
 * its limit, kills every process, and writes a row with status no_progress; exit 1. */
static void test_watchdog(void)
{
  char dir[512], cmd[4096];
  long before = db_count("SELECT COUNT(*) FROM runs WHERE status = 'no_progress'");
  int st, stopped = 0;
  FILE *p;
  snprintf(dir, sizeof dir, "%s/watchdog", fl_test_tmpdir());
  /* in the background, a solve long enough to stop in the middle */
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s'; ( '%s' run '%s' --np %d --out '%s' --db '%s/mpi.sqlite' --quiet --set app.grid=512x512 "
           "--set app.tolerance=1e-14 --set app.iterations=100000000 --set mpi.watchdog=3s >/dev/null "
           "2>'%s/wd-err.txt'; echo $? > '%s/wd-code.txt' ) &",
           dir, getenv("FAULTLINE"), fl_test_src("scenarios/cg-buddy.ini"), NP, dir, fl_test_tmpdir(), fl_test_tmpdir(),
           fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  for (int tries = 0; tries < 100 && stopped < NP + 1; tries++) {
    stopped = 0;
    sleep_ms(100);
    for (int w = 0; w < NP + 1; w++)
      stopped += beat_pid(dir, w) > 0;
  }
  CU_ASSERT_EQUAL_FATAL(stopped, NP + 1);
  sleep_ms(500);
  for (int w = 0; w < NP + 1; w++)
    kill((pid_t)beat_pid(dir, w), SIGSTOP);
  /* at most the watchdog's 3 s plus its 5 s grace and start-up: 30 s */
  for (st = 0; st < 300 && access(fl_test_tmp("wd-code.txt"), F_OK) != 0; st++)
    sleep_ms(100);
  sleep_ms(200);
  CU_ASSERT(st < 300);
  {
    char code[16] = "";
    if ((p = fopen(fl_test_tmp("wd-code.txt"), "r"))) {
      if (!fgets(code, sizeof code, p))
        code[0] = '\0';
      fclose(p);
    }
    CU_ASSERT_EQUAL(atoi(code), 1);
  }
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE status = 'no_progress'"), before + 1);
  /* no process of the job is left, stopped or not */
  for (int w = 0; w < NP + 1; w++)
    CU_ASSERT(!running((pid_t)beat_pid(dir, w)));
}

/* A rank stopped (SIGSTOP) longer than mpi.timeout, then continued: the others replaced it meanwhile; when it comes
 * back it is fenced (told so, it leaves) instead of recovering on its own and reporting "data lost" next to the
 * job's "completed". One outcome: exit 0, one completed row, the failure-free answer, bit for bit. */
static void test_stopped_rank_fenced(void)
{
  char dir[512], ref_dir[512], extra[128];
  outcome ref[NP], got[NP];
  long rows, pid;
  snprintf(extra, sizeof extra, "--set app.grid=256x256 --set app.tolerance=1e-12 --set app.iterations=100000");
  snprintf(ref_dir, sizeof ref_dir, "%s/fence-free", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run(extra, ref_dir), 0);
  CU_ASSERT_EQUAL_FATAL(read_outcomes(ref_dir, NP + 1, ref), NP + 1);
  rows = db_count("SELECT COUNT(*) FROM runs");
  snprintf(dir, sizeof dir, "%s/fence", fl_test_tmpdir());
  pid = start_and_stop(dir, extra, "fence");
  sleep_ms(2500); /* mpi.timeout is 1 s: the others suspect it, agree, and give its role to the spare */
  kill((pid_t)pid, SIGCONT);
  CU_ASSERT_EQUAL(wait_code("fence", 600), 0);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs"), rows + 1);
  CU_ASSERT_EQUAL(db_count("SELECT COUNT(*) FROM runs WHERE id = (SELECT MAX(id) FROM runs) AND status = 'completed' "
                           "AND interruptions >= 1"),
                  1);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, got), NP); /* the stopped rank left without an outcome */
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(got[r].present && strcmp(got[r].status, "completed") == 0);
    CU_ASSERT_STRING_EQUAL(got[r].checksum, ref[r].checksum);
  }
  CU_ASSERT(!running((pid_t)pid));
}

/* Failures drawn from [failures] kill processes for real: with a node MTBF of 1 ms at time scale 1 the active
 * processes die within their first iterations (each after its own draw, from its own stream), more of them than
 * there are spares, so the job cannot go on and must say so. */
static void test_model_failures(void)
{
  char dir[512];
  outcome got[NP];
  snprintf(dir, sizeof dir, "%s/model", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run("--spares 2 --set failures.model=exponential --set failures.node_mtbf=1ms "
                      "--set mpi.time_scale=1",
                      dir),
                  3);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "no spare left"));
  CU_ASSERT(read_outcomes(dir, NP + 2, got) <= NP); /* at least two processes died for real */
}

/* --failures sim: the simulator's own failure draws for the job's nodes, replayed on the real ranks. The draws are
 * read back from `faultline simulate` of a bsp job with the same law, seed and nodes (its events), not from the
 * code that replays them: the same nodes at the same times (divided by mpi.time_scale), and the real run lives
 * through them (two spares, a third failure: no spare left, exit 3, the row's three failures). */
static void test_failures_from_sim(void)
{
  char cmd[4096], sim_list[512] = "", *err;
  const char *bin = getenv("FAULTLINE");
  long n = 0;
  int st, k = 0;
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  FILE *f = fopen(fl_test_tmp("fs.ini"), "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[run]\nname = fs\nseed = 7\nreplicas = 1\nevents = all\n[platform]\nnodes = 12\n[app]\nnodes = 4\n"
        "work = 10h\nspares = 8\n[strategy]\nkind = buddy\n[failures]\nmodel = exponential\nnode_mtbf = 1h\n"
        "repair = 1min\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd '%s' && rm -f fs.sqlite && '%s' simulate fs.ini --db fs.sqlite --quiet >/dev/null 2>&1",
           fl_test_tmpdir(), bin);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  /* the simulator's first failure of each of the job's nodes 0-3 (the real run's ranks 0-3), the first three (it has
   * two spares: the third stops it). Each node's first time is its own draw, the i-th of the stream, whatever the
   * platform's size or the repairs (repaired nodes keep the simulated job going, past node 1's first failure) */
  CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(fl_test_tmp("fs.sqlite"), &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h,
                                           "SELECT node, MIN(t_s) FROM events_text WHERE kind = 'failure' AND node "
                                           "< 4 GROUP BY node ORDER BY 2 LIMIT 3",
                                           -1, &q, NULL),
                        SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW && k < 3) {
    size_t len = strlen(sim_list);
    snprintf(sim_list + len, sizeof sim_list - len, "%s%d@%.6fs", k++ ? " " : "", sqlite3_column_int(q, 0),
             sqlite3_column_double(q, 1) / 1e6);
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  CU_ASSERT_EQUAL(k, 3);
  snprintf(cmd, sizeof cmd,
           "'%s' run '%s' --np %d --spares 2 --set run.seed=7 --set failures.model=exponential --set "
           "failures.node_mtbf=1h --set mpi.time_scale=1e6 --set app.grid=64x64 --failures sim --out '%s/fs' --db "
           "'%s/fs-real.sqlite' >/dev/null 2>'%s/fs-err.txt'",
           bin, fl_test_src("scenarios/cg-buddy.ini"), NP, fl_test_tmpdir(), fl_test_tmpdir(), fl_test_tmpdir());
  st = system(cmd);
  CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
  err = fl_test_read_file(fl_test_tmp("fs-err.txt"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  if (!strstr(err, sim_list))
    fprintf(stderr, "\n  simulated: %s\n  real run said: %s", sim_list, err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, sim_list)); /* the same nodes, the same times */
  free(err);
  {
    sqlite3 *r = NULL;
    sqlite3_stmt *rq = NULL;
    long failures = -1;
    if (sqlite3_open_v2(fl_test_tmp("fs-real.sqlite"), &r, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(r, "SELECT failures FROM runs WHERE status = 'failed'", -1, &rq, NULL) == SQLITE_OK &&
        sqlite3_step(rq) == SQLITE_ROW)
      failures = sqlite3_column_int(rq, 0);
    sqlite3_finalize(rq);
    sqlite3_close(r);
    CU_ASSERT_EQUAL(failures, 3);
  }
}

/* The grid world's value iteration distributed by rows: a killed rank's role is replayed bit for bit too. */
static void test_gridworld(void)
{
  char dir[512], scen[512];
  outcome ref[NP], got[NP];
  FILE *f;
  snprintf(scen, sizeof scen, "%s/gw.ini", fl_test_tmpdir());
  f = fopen(scen, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[app]\nkind = gridworld\ngrid = 48x40\niterations = 300\n[mpi]\nspares = 1\n", f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/gw-free", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run_scenario(scen, "--set app.grid=48x40", dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, ref), NP + 1);
  CU_ASSERT(ref[0].iterations > 100); /* converges (delta = 0.95, 0.001) in about 135 sweeps */
  snprintf(dir, sizeof dir, "%s/gw-kill", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run_scenario(scen, "--set app.grid=48x40 --kill 3@41", dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, got), NP);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(got[r].present && strcmp(got[r].status, "completed") == 0);
    CU_ASSERT_EQUAL(got[r].iterations, ref[r].iterations);
    CU_ASSERT_STRING_EQUAL(got[r].checksum, ref[r].checksum);
  }
}

/* One real from the newest row of the suite's results database (NAN when none). */
static double db_real(const char *column)
{
  char sql[256];
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  double x = NAN;
  snprintf(sql, sizeof sql, "SELECT %s FROM runs ORDER BY rowid DESC LIMIT 1", column);
  if (sqlite3_open_v2(fl_test_tmp("mpi.sqlite"), &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_type(st, 0) != SQLITE_NULL)
    x = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return x;
}

/* 1 when the newest row meets `cond` (SQL on the runs table). */
static int newest_row(const char *cond)
{
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM runs WHERE rowid = (SELECT MAX(rowid) FROM runs) AND %s", cond);
  return db_count(sql) == 1;
}

/* The grid world as tasks (substitution, hybrid: exec/mpi_inmem/gw_tasks.h), 24x20 = 480 tasks dealt over 4
 * roles (120 each), a real kill -9 of role 1 before sweep 17. Re-executing every failed task (hybrid with a zero
 * budget) gives the failure-free values bit for bit; substitution gives every failed task a neighbour's value
 * (error spent, recorded); the hybrid with a budget substitutes within it and re-executes the rest, the solver
 * named in the row; shrink deals the tasks over the 3 roles left. */
static void test_gridworld_tasks(void)
{
  static const char *grid = "--set app.grid=24x20 --set app.iterations=60 --set mpi.timeout=0.5s";
  char dir[512], scen[512], extra[512];
  outcome ref[NP], got[NP];
  double spent;
  FILE *f;
  snprintf(scen, sizeof scen, "%s/gwt.ini", fl_test_tmpdir());
  f = fopen(scen, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("[app]\nkind = gridworld\ngrid = 24x20\niterations = 60\n[strategy]\nkind = substitution\n[mpi]\n"
        "spares = 1\n",
        f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/gwt-free", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run_scenario(scen, grid, dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, ref), NP + 1);
  CU_ASSERT_EQUAL(ref[0].iterations, 60);
  CU_ASSERT_STRING_EQUAL(ref[1].checksum, ref[0].checksum); /* every role holds the whole grid */
  CU_ASSERT_EQUAL(db_real("tasks_substituted"), 0);
  CU_ASSERT_EQUAL(db_real("error_linf"), 0.0);

  /* re-execute everything: bit for bit */
  snprintf(dir, sizeof dir, "%s/gwt-reexec", fl_test_tmpdir());
  snprintf(extra, sizeof extra, "%s --set strategy.kind=hybrid --set policy.error_budget=0 --kill 1@17", grid);
  CU_ASSERT_EQUAL(run_scenario(scen, extra, dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, got), NP);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT(got[r].present && strcmp(got[r].status, "completed") == 0);
    CU_ASSERT_EQUAL(got[r].iterations, ref[r].iterations);
    CU_ASSERT_STRING_EQUAL(got[r].checksum, ref[0].checksum);
  }
  CU_ASSERT_EQUAL(db_real("tasks_replicated"), 120);
  CU_ASSERT_EQUAL(db_real("tasks_substituted"), 0);
  CU_ASSERT_EQUAL(db_real("error_linf"), 0.0);
  CU_ASSERT(newest_row("strategy = 'hybrid' AND policy_solver = 'greedy' AND interruptions = 1"));

  /* substitute everything: a neighbour's value, the error spent recorded */
  snprintf(dir, sizeof dir, "%s/gwt-subst", fl_test_tmpdir());
  snprintf(extra, sizeof extra, "%s --kill 1@17", grid);
  CU_ASSERT_EQUAL(run_scenario(scen, extra, dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP + 1, got), NP);
  CU_ASSERT(got[0].present && strcmp(got[0].status, "completed") == 0);
  CU_ASSERT_STRING_NOT_EQUAL(got[0].checksum, ref[0].checksum);
  CU_ASSERT_STRING_EQUAL(got[1].checksum, got[0].checksum); /* the promoted spare agrees */
  CU_ASSERT_EQUAL(db_real("tasks_substituted"), 120);
  CU_ASSERT_EQUAL(db_real("tasks_replicated"), 0);
  CU_ASSERT(db_real("error_spent") > 0);
  CU_ASSERT(db_real("error_linf") > 0 && db_real("error_linf") < 0.05);
  CU_ASSERT(isnan(db_real("error_budget"))); /* substitution has no budget */

  /* the hybrid: within the budget, per decision; the rest re-executed */
  snprintf(dir, sizeof dir, "%s/gwt-hybrid", fl_test_tmpdir());
  snprintf(extra, sizeof extra,
           "%s --set strategy.kind=hybrid --set policy.kind=exact --set policy.weights=empirical "
           "--set policy.error_budget=0.2 --kill 1@17",
           grid);
  CU_ASSERT_EQUAL(run_scenario(scen, extra, dir), 0);
  spent = db_real("error_spent");
  CU_ASSERT(spent > 0 && spent <= 0.2);
  CU_ASSERT(db_real("tasks_substituted") > 0 && db_real("tasks_replicated") > 0);
  CU_ASSERT_EQUAL(db_real("tasks_substituted") + db_real("tasks_replicated"), 120);
  CU_ASSERT_EQUAL(db_real("policy_objective"), db_real("tasks_substituted"));
  CU_ASSERT(newest_row("policy_solver = 'exact' AND error_budget = 0.2"));

  /* no spare left: the tasks dealt again over 3 roles */
  snprintf(dir, sizeof dir, "%s/gwt-shrink", fl_test_tmpdir());
  snprintf(extra, sizeof extra, "%s --spares 0 --set mpi.on_no_spare=shrink --kill 2@9", grid);
  CU_ASSERT_EQUAL(run_scenario(scen, extra, dir), 0);
  CU_ASSERT_EQUAL(read_outcomes(dir, NP, got), NP - 1);
  CU_ASSERT_EQUAL(got[0].iterations, 60);
  CU_ASSERT_EQUAL(db_real("tasks_substituted"), 120);
  CU_ASSERT_EQUAL(role0_figure(dir, NP, "roles"), NP - 1);
}

static void test_bad_input(void)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/bad", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run("--set mpi.mirror=star", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--set mpi.mirror=star: unknown value"));
  CU_ASSERT_EQUAL(run("--set app.kind=bsp", dir), 2);
}

static CU_TestInfo mpi_tests[] = {
    {"failure-free run", test_failure_free},
    {"a rank killed at a random iteration recovers bit for bit", test_kill_random},
    {"two failures, two spares", test_two_failures_two_spares},
    {"pair mirror", test_pair_mirror},
    {"rank and buddy lost: the strategy decides (scratch, file level)", test_buddy_and_rank},
    {"more deaths than spares: failed, a row", test_no_spare_left},
    {"fault table: exit code, one row, its status", test_fault_table},
    {"real runs log their events with the simulator's kinds", test_real_events},
    {"a rank stopped and never continued: the run ends with the job", test_stopped_never_continued},
    {"a second death during the recovery is counted", test_second_death_in_recovery},
    {"a damaged checkpoint: the newest version intact everywhere is restored", test_corrupt_checkpoint},
    {"every strategy: recovered bit for bit, or refused", test_every_strategy},
    {"more deaths than spares, shrink: the answer on fewer ranks", test_shrink},
    {"replication: every set loses a copy, the file level", test_replication_all_copies},
    {"replication: a death the other set had not agreed on is counted", test_replication_unheard_death},
    {"every process stopped: the watchdog ends the job", test_watchdog},
    {"a rank stopped past the timeout is fenced: one outcome", test_stopped_rank_fenced},
    {"failures drawn from the model kill processes", test_model_failures},
    {"--failures sim: the simulator's own draws replayed on the ranks", test_failures_from_sim},
    {"grid world distributed by rows recovers bit for bit", test_gridworld},
    {"grid world as tasks: re-executed, substituted, the hybrid's budget", test_gridworld_tasks},
    {"bad input", test_bad_input},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"mpi", NULL, NULL, NULL, NULL, mpi_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  if (!FL_HAVE_MPI) {
    fprintf(stderr, "faultline was built without MPI: skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
