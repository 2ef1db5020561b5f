/* test_lossy_mpi.c — the lossy-CG mode on real processes (faultline run, 4 active ranks): compressed buddy
 * checkpoints, injected data losses and a real death, global / local / improved recovery. Every check reads the
 * "solve" lines of each rank's outcome file (exec/mpi_inmem/apps/lossy_cg.c). Skipped (77) without MPI. */
#include "cli_util.h"
#include "fl_config.h"
#include "fl_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define NP 4
#define TOL 1e-8
#define MAXSOLVES 32

typedef struct solve {
  char mode[16], codec[40], status[16], checksum[20];
  long lost_role, lost_at, iterations, final_k, aux, commits, from_buddy, from_scratch;
  int aux_met;
  double residual, aux_target, aux_reached, eb_first, eb_last, ckpt_bytes, raw_bytes, x_bytes;
} solve;

static char err_text[1 << 14];

static int run(const char *extra, const char *outdir)
{
  char cmd[4096];
  const char *bin = getenv("FAULTLINE");
  int st;
  FILE *f;
  size_t n;
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s' && '%s' run '%s' --np %d --out '%s' --db '%s/lossy.sqlite' --quiet "
           "--set recovery.sweep_at= --set recovery.sweep_roles= %s >/dev/null 2>'%s/err.txt'",
           outdir, bin, fl_test_src("scenarios/lossy-cg.ini"), NP, outdir, fl_test_tmpdir(), extra, fl_test_tmpdir());
  st = system(cmd);
  f = fopen(fl_test_tmp("err.txt"), "r");
  n = f ? fread(err_text, 1, sizeof err_text - 1, f) : 0;
  err_text[n] = '\0';
  if (f)
    fclose(f);
  if (n)
    fprintf(stderr, "\n    stderr: %s", err_text);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double num(const char *line, const char *key)
{
  char pat[64];
  const char *p;
  snprintf(pat, sizeof pat, " %s ", key);
  p = strstr(line, pat);
  return p ? strtod(p + strlen(pat), NULL) : NAN;
}

static void word(const char *line, const char *key, char *out, size_t size)
{
  char pat[64], fmt[32];
  const char *p;
  snprintf(pat, sizeof pat, " %s ", key);
  p = strstr(line, pat);
  out[0] = '\0';
  snprintf(fmt, sizeof fmt, "%%%zus", size - 1);
  if (p)
    sscanf(p + strlen(pat), fmt, out);
}

/* The solves role `role` reports (in order); returns how many. */
static int read_solves(const char *outdir, int nproc, int role, solve *out)
{
  int n = 0;
  for (int w = 0; w < nproc; w++) {
    char path[4096], line[4096];
    int r = -1;
    FILE *f;
    snprintf(path, sizeof path, "%s/rank-%d.txt", outdir, w);
    if (!(f = fopen(path, "r")))
      continue;
    if (fgets(line, sizeof line, f) && sscanf(line, "rank %*d role %d", &r) == 1 && r == role) {
      while (fgets(line, sizeof line, f) && n < MAXSOLVES) {
        solve *s = &out[n];
        if (strncmp(line, "solve ", 6) != 0)
          continue;
        memmove(line + 1, line, strlen(line) + 1); /* " solve mode ..." so every key has a blank before it */
        line[0] = ' ';
        word(line, "mode", s->mode, sizeof s->mode);
        word(line, "codec", s->codec, sizeof s->codec);
        word(line, "status", s->status, sizeof s->status);
        word(line, "checksum", s->checksum, sizeof s->checksum);
        s->lost_role = (long)num(line, "lost_role");
        s->lost_at = (long)num(line, "lost_at");
        s->iterations = (long)num(line, "iterations");
        s->final_k = (long)num(line, "final_k");
        s->aux = (long)num(line, "aux");
        s->commits = (long)num(line, "commits");
        s->from_buddy = (long)num(line, "from_buddy");
        s->from_scratch = (long)num(line, "from_scratch");
        s->aux_met = (int)num(line, "aux_met");
        s->residual = num(line, "residual");
        s->aux_target = num(line, "aux_target");
        s->aux_reached = num(line, "aux_reached");
        s->eb_first = num(line, "eb_first");
        s->eb_last = num(line, "eb_last");
        s->ckpt_bytes = num(line, "ckpt_bytes");
        s->raw_bytes = num(line, "raw_bytes");
        s->x_bytes = num(line, "x_bytes");
        n++;
      }
    }
    fclose(f);
  }
  return n;
}

static solve ref[NP];

static void test_failure_free(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  snprintf(dir, sizeof dir, "%s/free", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--set recovery.mode=global --set recovery.codec=none --set recovery.interval=5", dir), 0);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP, r, s), 1);
    ref[r] = s[0];
    CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
    CU_ASSERT(s[0].residual <= TOL * 1.01);
    CU_ASSERT_EQUAL(s[0].iterations, ref[0].iterations);
  }
  CU_ASSERT(ref[0].iterations > 100);
}

/* codec none, global rollback: the full CG state comes back, the iterations since the checkpoint replay with the
 * same arithmetic: the failure-free iteration count exactly, a bitwise-identical solution, and the replayed
 * iterations counted as executed. */
static void test_none_global_exact(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  const long at = 42; /* checkpoints every 5: the last one at 40, two iterations replay */
  snprintf(dir, sizeof dir, "%s/none-global", fl_test_tmpdir());
  CU_ASSERT_FATAL(ref[0].iterations > at);
  CU_ASSERT_EQUAL_FATAL(run("--set recovery.mode=global --set recovery.codec=none --set recovery.interval=5 "
                            "--set 'recovery.lose=2@42'",
                            dir),
                        0);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP, r, s), 1);
    CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
    CU_ASSERT_EQUAL(s[0].final_k, ref[r].iterations);
    CU_ASSERT_EQUAL(s[0].iterations, ref[r].iterations + (at - 40));
    CU_ASSERT_STRING_EQUAL(s[0].checksum, ref[r].checksum);
  }
}

/* Every mode with every codec after a loss: the solve converges to the failure-free tolerance (the true
 * residual, recomputed at the end), and the improved recovery's auxiliary solve reaches its target. */
static void test_modes_codecs_converge(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  int n;
  snprintf(dir, sizeof dir, "%s/modes", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--set 'recovery.mode=global local improved' --set recovery.interval=4 "
                            "--set 'recovery.codec=none zero multigrid zfp:1e-4 zfp-adaptive:0.1' "
                            "--set 'recovery.lose=1@150'",
                            dir),
                        0);
  for (int r = 0; r < NP; r++) {
    n = read_solves(dir, NP, r, s);
    CU_ASSERT_EQUAL_FATAL(n, 15);
    for (int i = 0; i < n; i++) {
      CU_ASSERT_STRING_EQUAL(s[i].status, "completed");
      CU_ASSERT(s[i].residual <= TOL * 1.5);
      if (!(s[i].residual <= TOL * 1.5) || strcmp(s[i].status, "completed") != 0)
        fprintf(stderr, "\n    %s %s: %s, residual %g", s[i].mode, s[i].codec, s[i].status, s[i].residual);
      CU_ASSERT_EQUAL(s[i].lost_at, 150);
      if (strcmp(s[i].mode, "improved") == 0 && r == 1) {
        /* the lost role solved the auxiliary problem to its target */
        CU_ASSERT_EQUAL(s[i].aux_met, 1);
        CU_ASSERT(s[i].aux_reached <= s[i].aux_target);
        CU_ASSERT(s[i].aux > 0);
        CU_ASSERT(s[i].aux_target > 0);
      }
    }
  }
  /* the zero codec's recoveries cost more than a near-lossless checkpoint (global: 0 vs 1e-4) */
  n = read_solves(dir, NP, 0, s);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (strcmp(s[i].mode, "global") == 0 && strcmp(s[j].mode, "global") == 0 && strcmp(s[i].codec, "zero") == 0 &&
          strncmp(s[j].codec, "zfp:", 4) == 0)
        CU_ASSERT(s[i].iterations > s[j].iterations);
}

/* The adaptive rule: eb = ||r|| / ||b|| * tol, so the bound shrinks as the residual falls (first checkpoint at
 * x = 0: r = b, eb = tol), and the checkpoints grow with it: compressed bytes of x above multigrid's. */
static void test_adaptive_bound_shrinks(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  snprintf(dir, sizeof dir, "%s/adaptive", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--set recovery.mode=improved --set 'recovery.codec=zfp-adaptive:0.1 multigrid' "
                            "--set recovery.interval=4",
                            dir),
                        0);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP, r, s), 2);
    CU_ASSERT_DOUBLE_EQUAL(s[0].eb_first, 0.1, 1e-12);
    CU_ASSERT(s[0].eb_last < s[0].eb_first * 1e-6); /* converged to 1e-8: ||r||/||b|| fell below ~1e-7 */
    CU_ASSERT(s[0].eb_last > 0);
    CU_ASSERT(s[0].x_bytes < s[0].raw_bytes); /* still compressed */
    CU_ASSERT(s[1].x_bytes < s[0].x_bytes);   /* multigrid, 2 levels, is smaller */
    CU_ASSERT(isnan(s[1].eb_first));
  }
}

/* A real death (SIGKILL, `kill` says when) in the lossy mode, improved recovery with zfp-adaptive: the spare is
 * promoted and gets the compressed checkpoint from the buddy (the buddy level), the improved recovery repairs role
 * 2 with its auxiliary solve, every role converges, and the summary line counts the one failure. */
static void check_death_improved(const char *sub, const char *extra)
{
  char dir[512], path[600], line[4096], args[1024];
  solve s[MAXSOLVES];
  FILE *f;
  snprintf(dir, sizeof dir, "%s/%s", fl_test_tmpdir(), sub);
  snprintf(args, sizeof args,
           "--spares 1 --set recovery.mode=improved --set recovery.codec=zfp-adaptive:0.1 --set recovery.interval=4 %s",
           extra);
  CU_ASSERT_EQUAL_FATAL(run(args, dir), 0);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP + 1, r, s), 1);
    CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
    CU_ASSERT(s[0].residual <= TOL * 1.5);
    CU_ASSERT_EQUAL(s[0].from_buddy, 1);
    if (r == 2) {
      CU_ASSERT_EQUAL(s[0].aux_met, 1);
      CU_ASSERT(s[0].aux > 0);
    }
  }
  snprintf(path, sizeof path, "%s/rank-0.txt", dir);
  f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
  fclose(f);
  CU_ASSERT_EQUAL((long)num(line, "failures"), 1);
}

static void test_real_death_improved(void)
{
  check_death_improved("kill", "--kill 2@90");
}

/* The same at a time rather than an iteration (the driver's RANK@TIME kills; the solve takes about 0.8 s here). */
static void test_real_death_at_time(void)
{
  check_death_improved("kill-time", "--set app.grid=256x256 --set app.iterations=20000 --kill 2@0.1s");
}

/* A real death with codec none and global rollback: the promoted spare gets the full state from the buddy and
 * every role replays to the failure-free solution, bit for bit. */
static void test_real_death_none_replays(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  snprintf(dir, sizeof dir, "%s/kill-none", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--spares 1 --set recovery.mode=global --set recovery.codec=none "
                            "--set recovery.interval=5 --kill 1@63",
                            dir),
                        0);
  for (int r = 0; r < NP; r++) {
    CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP + 1, r, s), 1);
    CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
    CU_ASSERT_EQUAL(s[0].final_k, ref[r].iterations);
    CU_ASSERT_STRING_EQUAL(s[0].checksum, ref[r].checksum);
  }
}

/* Losses go through the strategy as deaths do. Two roles lost at once whose copies the other held (ring: role 1's
 * mirror is on role 2) leave role 1 without a copy: buddy starts the lost roles over from zero, and the solve still
 * converges, later. Two roles that keep each other's copies (1 and 3) both come back from the buddy level. */
static void test_losses_through_strategy(void)
{
  char dir[512];
  solve s[MAXSOLVES];
  snprintf(dir, sizeof dir, "%s/apart", fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(run("--set recovery.mode=improved --set recovery.codec=zfp:1e-6 --set recovery.interval=5 "
                            "--set 'recovery.lose=1@40 3@40'",
                            dir),
                        0);
  CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP, 0, s), 1);
  CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
  CU_ASSERT_EQUAL(s[0].from_buddy, 1);
  CU_ASSERT_EQUAL(s[0].from_scratch, 0);
  {
    long apart = s[0].iterations;
    snprintf(dir, sizeof dir, "%s/adjacent", fl_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(run("--set recovery.mode=improved --set recovery.codec=zfp:1e-6 --set recovery.interval=5 "
                              "--set 'recovery.lose=1@40 2@40'",
                              dir),
                          0);
    for (int r = 0; r < NP; r++) {
      CU_ASSERT_EQUAL_FATAL(read_solves(dir, NP, r, s), 1);
      CU_ASSERT_STRING_EQUAL(s[0].status, "completed");
      CU_ASSERT(s[0].residual <= TOL * 1.5);
      CU_ASSERT_EQUAL(s[0].from_buddy, 0);
      CU_ASSERT_EQUAL(s[0].from_scratch, 1);
      CU_ASSERT(s[0].iterations > apart); /* two blocks from zero cost more than two from their copies */
    }
  }
}

static void test_bad_input(void)
{
  char dir[512];
  snprintf(dir, sizeof dir, "%s/bad", fl_test_tmpdir());
  CU_ASSERT_EQUAL(run("--set recovery.mode=sideways", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "recovery.mode"));
  CU_ASSERT_EQUAL(run("--set recovery.mode=local --set recovery.codec=sz", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "'sz'"));
  CU_ASSERT_EQUAL(run("--set recovery.mode=local --set recovery.lose=1at5", dir), 2);
  CU_ASSERT_EQUAL(run("--set 'recovery.mode=local global' --kill 1@5", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "real process deaths (mpi.kill, --kill) need a single mode and codec"));
  /* the strategy is the registry's: buddy, or none with nothing to compress; the others are refused by name */
  CU_ASSERT_EQUAL(run("--set strategy.kind=two-level", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "strategy.kind"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "'two-level'"));
  CU_ASSERT_EQUAL(run("--set strategy.kind=none --set recovery.codec=multigrid", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "recovery.codec"));
  /* [recovery] is this app's: plain CG given it is refused, not run without it */
  CU_ASSERT_EQUAL(run("--set app.kind=cg", dir), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "app.kind = lossy-cg"));
}

/* The study at a small size: one mpirun, a row per solve, and the report prints the seed's table shape. */
static void test_study_report(void)
{
  char cmd[4096], line[1024];
  const char *bin = getenv("FAULTLINE");
  FILE *p;
  int global = 0, improved = 0, aux = 0, ratio = 0, loss = 0;
  snprintf(cmd, sizeof cmd,
           "rm -f '%s/study.sqlite' && '%s' run '%s' --np %d --quiet --db '%s/study.sqlite' --set app.grid=32x32 "
           "--set 'recovery.codec=zero zfp-adaptive:0.1' --set 'recovery.sweep_roles=0 3' "
           "--set 'recovery.sweep_at=0.2 0.8' >/dev/null 2>&1 && '%s' report '%s/study.sqlite'",
           fl_test_tmpdir(), bin, fl_test_src("scenarios/lossy-cg.ini"), NP, fl_test_tmpdir(), bin, fl_test_tmpdir());
  p = popen(cmd, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  while (fgets(line, sizeof line, p)) {
    global += strncmp(line, "  global ", 9) == 0;
    improved += strncmp(line, "  improved ", 11) == 0;
    aux += strncmp(line, "  aux iterations ", 17) == 0;
    ratio += strncmp(line, "  compression ratio x ", 22) == 0;
    loss += strncmp(line, "Loss after iteration ", 21) == 0;
  }
  CU_ASSERT_EQUAL(pclose(p), 0);
  CU_ASSERT_EQUAL(loss, 2);
  CU_ASSERT_EQUAL(global, 3); /* the average and the two loss iterations */
  CU_ASSERT_EQUAL(improved, 3);
  CU_ASSERT_EQUAL(aux, 3);
  CU_ASSERT_EQUAL(ratio, 1);
  {
    /* every row is the lossy-cg app's; the strategy the registry set up (buddy) where a codec wrote checkpoints,
     * none for the baseline and codec zero */
    char db[600];
    snprintf(db, sizeof db, "%s/study.sqlite", fl_test_tmpdir());
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE app <> 'lossy-cg'"), 0);
    CU_ASSERT(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE codec LIKE 'zfp-adaptive%' AND strategy = 'buddy'") >
              0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE codec LIKE 'zfp-adaptive%' AND strategy <> "
                                     "'buddy'"),
                    0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE codec IN ('zero', 'off') AND strategy <> "
                                     "'none'"),
                    0);
    /* each solve's timeline (run.events = all) is stored with its row: the injected loss of its role, once, and a
     * checkpoint event for every checkpoint the row counts */
    CU_ASSERT(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE lost_role >= 0") >= 8);
    /* the real engine's accounting: the makespan is work, checkpoints, restores and repairs, and replay (no death
     * here: no detection or agreement), every column filled and the work positive; and a loss costs a repair */
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE NOT coalesce(abs(makespan_s - (work_s + "
                                     "checkpoint_time_s + restart_time_s + lost_work_s)) <= 1e-9 * makespan_s AND "
                                     "work_s > 0, 0)"),
                    0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE lost_role >= 0 AND NOT restart_time_s > 0"), 0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs r WHERE lost_role >= 0 AND (SELECT COUNT(*) FROM "
                                     "events e JOIN event_kinds k ON k.code = e.kind WHERE e.run_id = r.id AND "
                                     "k.name = 'failure' AND k.variant = 'data' AND e.rank = r.lost_role) <> 1"),
                    0);
    CU_ASSERT(fl_cli_query(db, "SELECT COUNT(*) FROM runs WHERE codec LIKE 'zfp-adaptive%' AND checkpoints > 0") > 0);
    CU_ASSERT_EQUAL(fl_cli_query(db, "SELECT COUNT(*) FROM runs r WHERE checkpoints <> (SELECT COUNT(*) FROM events e "
                                     "JOIN event_kinds k ON k.code = e.kind WHERE e.run_id = r.id AND "
                                     "k.name = 'checkpoint' AND k.variant = 'iteration')"),
                    0);
  }
}

static CU_TestInfo lossy_tests[] = {
    {"failure-free lossy-mode solve", test_failure_free},
    {"codec none + global rollback replays exactly", test_none_global_exact},
    {"every mode and codec converges after a loss; improved reaches its target", test_modes_codecs_converge},
    {"the adaptive bound shrinks as the residual falls", test_adaptive_bound_shrinks},
    {"a real death: spare promoted, improved recovery", test_real_death_improved},
    {"a real death: codec none, global rollback replays exactly", test_real_death_none_replays},
    {"a real death at a time, not an iteration", test_real_death_at_time},
    {"losses go through the strategy: a copy lost with its role starts over", test_losses_through_strategy},
    {"bad [recovery] input", test_bad_input},
    {"the study and its report table", test_study_report},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"lossy_mpi", NULL, NULL, NULL, NULL, lossy_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  if (!FL_HAVE_MPI) {
    fprintf(stderr, "faultline was built without MPI: skipped\n");
    return FL_TEST_SKIP;
  }
  if (!FL_HAVE_ZFP) {
    fprintf(stderr, "faultline was built without ZFP (the codecs under test): skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
