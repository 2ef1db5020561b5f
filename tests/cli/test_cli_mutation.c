/* test_cli_mutation.c — `slow`: the shipped scenarios and command lines, mutated (lines deleted, duplicated,
 * truncated, values and keys replaced by hostile ones, bytes injected; flags dropped, repeated, given bad
 * values), each run as a user would run it: every case must end by itself within a time limit and under a
 * memory limit, with exit 0 or 2 (1 only where a command documents it), never by a signal, with a one-line
 * message on exit 2, and without changing a foreign file lying where it could be written.
 *
 * FL_MUTATION_CASES (default 2000) sets the number of cases; FL_MUTATION_SEED (default 1) the stream. The
 * mutations are drawn from GSL's Mersenne Twister so a failing case can be replayed by its number. */
#include "cli_util.h"
#include "fl_test.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define FL_MUT_TIME_S 300     /* gridworld-1M, a million tasks on 2M nodes, takes a minute alone */
#define FL_MUT_MEM_KB 3000000 /* ulimit -v: 2.9 GiB */
/* Cases run `--replicas 1`; one whose flags ask for this many replicas in all (`--replicas 3000000` on a sweep,
 * say) is legitimate work longer than the time limit, not a hang, when faultline stops at it. */
#define FL_MUT_LONG_REPLICAS 10000

/* The replicas a `simulate` command line asks for in all: the sum of `replicas = N` over the combinations that
 * the same command with `--print` shows (it runs nothing); 0 when that fails. */
static long fl_mut_requested(const char *args)
{
  static char cmd[(1 << 14) + 16];
  long total = 0;
  snprintf(cmd, sizeof cmd, "%s --print", args);
  if (fl_cli_run_limited(cmd, 60) != 0)
    return 0;
  for (const char *p = fl_cli_out; (p = strstr(p, "\nreplicas = ")) != NULL; p++)
    total += strtol(p + strlen("\nreplicas = "), NULL, 10);
  return total;
}

static const char *const fl_mut_scenarios[] = {"quickstart.ini", "daly-validation.ini", "trace-replay.ini",
                                               "das-10x10.ini",  "cg-buddy.ini",        "lossy-cg.ini",
                                               "compare-1M.ini", "exascale-1M.ini",     "gridworld-1M.ini"};
static const char *const fl_mut_values[] = {"",
                                            "-1",
                                            "0",
                                            "1",
                                            "1e308",
                                            "nan",
                                            "inf",
                                            "-inf",
                                            "1e-300s",
                                            "0.0000001s",
                                            "99999999999999999999",
                                            "abc",
                                            "5y5y",
                                            "10x0",
                                            "0x0",
                                            "1x1",
                                            "100000x100000",
                                            "never",
                                            "0x10",
                                            "1e6",
                                            "3000000",
                                            "1000000000000",
                                            "2^64",
                                            "\xf0\x9f\x99\x82",
                                            "../../../etc/passwd",
                                            "/dev/zero",
                                            "/dev/null",
                                            "/",
                                            "weibull",
                                            "trace",
                                            "daly",
                                            "young",
                                            "hybrid",
                                            "mip",
                                            "replication",
                                            "checkpoint",
                                            "buddy",
                                            "1s",
                                            "1ms",
                                            "5min",
                                            "24h",
                                            "100y",
                                            "1Tf",
                                            "0f",
                                            "-5Gf",
                                            "1GiB",
                                            "%s%s%s%n",
                                            "'",
                                            "\"",
                                            "[run]",
                                            "=",
                                            "a=b=c",
                                            " ",
                                            "18446744073709551615",
                                            "18446744073709551616",
                                            "-0",
                                            "1e-320",
                                            "4294967296",
                                            "2147483648"};
static const char *const fl_mut_keys[] = {"name",
                                          "seed",
                                          "replicas",
                                          "db",
                                          "events",
                                          "sweep",
                                          "max_time",
                                          "max_events",
                                          "file",
                                          "nodes",
                                          "node_speed",
                                          "controller",
                                          "model",
                                          "node_mtbf",
                                          "shape",
                                          "sigma",
                                          "trace",
                                          "repair",
                                          "start",
                                          "kind",
                                          "work",
                                          "grid",
                                          "iterations",
                                          "tolerance",
                                          "discount",
                                          "move_prob",
                                          "task_time",
                                          "interval",
                                          "checkpoint_cost",
                                          "restart_cost",
                                          "downtime",
                                          "degree",
                                          "error_budget",
                                          "time_limit",
                                          "mip_gap",
                                          "spares",
                                          "checkpoint_every",
                                          "mirror",
                                          "timeout",
                                          "time_scale",
                                          "kill",
                                          "weights",
                                          "mode",
                                          "codec",
                                          "levels",
                                          "lose",
                                          "sweep_roles",
                                          "nonsense"};

/* exit statuses each command may end with, besides 0 and 2 */
static int fl_mut_allows_1(const char *cmd)
{
  return strcmp(cmd, "rerun") == 0 || strcmp(cmd, "validate") == 0 || strcmp(cmd, "ckpt") == 0;
}

static uint64_t fl_mut_hash(const char *name)
{
  long n = 0;
  char *b = fl_test_read_file(fl_test_tmp(name), &n);
  uint64_t h = b ? XXH64(b, (size_t)n, 0) : 0;
  free(b);
  return h;
}

/* Mutate scenario `text` into `out`: one to three line-level edits. */
static void fl_mut_scenario(gsl_rng *r, const char *text, char *out, size_t size)
{
  char *lines[256], *copy = strdup(text), *save = NULL, *l;
  int n = 0, edits = 1 + (int)gsl_rng_uniform_int(r, 3);
  size_t used = 0;
  for (l = strtok_r(copy, "\n", &save); l && n < 200; l = strtok_r(NULL, "\n", &save))
    lines[n++] = l;
  out[0] = '\0';
  {
    static char scratch[8][512];
    for (int e = 0; e < edits && n > 0; e++) {
      int i = (int)gsl_rng_uniform_int(r, (unsigned long)n);
      char *eq = strchr(lines[i], '=');
      switch (gsl_rng_uniform_int(r, 7)) {
      case 0: /* delete */
        memmove(&lines[i], &lines[i + 1], (size_t)(n - i - 1) * sizeof *lines);
        n--;
        break;
      case 1: /* duplicate */
        if (n < 250) {
          memmove(&lines[i + 1], &lines[i], (size_t)(n - i) * sizeof *lines);
          n++;
        }
        break;
      case 2: /* a hostile value */
      case 3:
        if (eq) {
          snprintf(scratch[e], sizeof scratch[e], "%.*s= %s", (int)(eq - lines[i]), lines[i],
                   fl_mut_values[gsl_rng_uniform_int(r, sizeof fl_mut_values / sizeof *fl_mut_values)]);
          lines[i] = scratch[e];
        }
        break;
      case 4: /* another key, its value kept */
        if (eq) {
          snprintf(scratch[e], sizeof scratch[e], "%s %s",
                   fl_mut_keys[gsl_rng_uniform_int(r, sizeof fl_mut_keys / sizeof *fl_mut_keys)], eq);
          lines[i] = scratch[e];
        }
        break;
      case 5: { /* random bytes in the line */
        size_t len = strlen(lines[i]);
        snprintf(scratch[e], sizeof scratch[e], "%s", lines[i]);
        for (int k = 0; k < 3 && len; k++)
          scratch[e][gsl_rng_uniform_int(r, len)] = (char)(1 + gsl_rng_uniform_int(r, 255));
        lines[i] = scratch[e];
        break;
      }
      default: /* truncate the file here */
        n = i + (int)gsl_rng_uniform_int(r, 2);
        if (eq && n > i)
          eq[gsl_rng_uniform_int(r, strlen(eq) + 1)] = '\0';
        break;
      }
    }
  }
  for (int i = 0; i < n && used + strlen(lines[i]) + 2 < size; i++)
    used += (size_t)snprintf(out + used, size - used, "%s\n", lines[i]);
  free(copy);
}

static const char *fl_mut_pick_value(gsl_rng *r)
{
  return fl_mut_values[gsl_rng_uniform_int(r, sizeof fl_mut_values / sizeof *fl_mut_values)];
}

/* A shell-safe single-quoted word of `s` appended to buf. */
static void fl_mut_word(char *buf, size_t size, const char *s)
{
  size_t u = strlen(buf);
  if (u + 3 >= size)
    return;
  buf[u++] = ' ';
  buf[u++] = '\'';
  for (; *s && u + 6 < size; s++) {
    if (*s == '\'') {
      memcpy(buf + u, "'\\''", 4);
      u += 4;
    } else {
      buf[u++] = *s;
    }
  }
  buf[u++] = '\'';
  buf[u] = '\0';
}

static void test_mutated_command_lines(void)
{
  const char *env = getenv("FL_MUTATION_CASES");
  long cases = env ? atol(env) : 2000, signals = 0, hangs = 0, bad_exit = 0, changed = 0, multi_line = 0, long_runs = 0;
  long by_code[4] = {0};
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  uint64_t h_foreign, h_notes;
  char *texts[sizeof fl_mut_scenarios / sizeof *fl_mut_scenarios];
  static char mutated[1 << 16], args[1 << 14], shell[1 << 15];

  gsl_rng_set(r, getenv("FL_MUTATION_SEED") ? strtoul(getenv("FL_MUTATION_SEED"), NULL, 10) : 1);
  for (size_t i = 0; i < sizeof fl_mut_scenarios / sizeof *fl_mut_scenarios; i++) {
    char rel[256];
    long n;
    snprintf(rel, sizeof rel, "scenarios/%s", fl_mut_scenarios[i]);
    texts[i] = fl_test_read_file(fl_test_src(rel), &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(texts[i]);
  }
  /* the scenarios' relative inputs where they expect them (a mutated scenario is sc/m.ini) */
  snprintf(shell, sizeof shell, "cd '%s' && mkdir -p sc sim && cp -r '%s' sc/ && cp -r '%s' sim/", fl_test_tmpdir(),
           fl_test_src("scenarios/traces"), fl_test_src("sim/platforms"));
  CU_ASSERT_EQUAL_FATAL(system(shell), 0);
  /* foreign files a mutated --db may point at */
  fl_cli_write("notes.txt", "a user's notes: not ours to touch\n");
  {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && sqlite3 foreign.db 'CREATE TABLE t(x); INSERT INTO t VALUES (42)' 2>/dev/null || "
             "printf 'SQLite format 3\\000not really' > foreign.db",
             fl_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  }
  h_foreign = fl_mut_hash("foreign.db");
  h_notes = fl_mut_hash("notes.txt");
  /* a results database for report/rerun cases */
  fl_cli_write("ok.ini", "[run]\nreplicas = 2\n[app]\nnodes = 8\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate ok.ini --db ok.sqlite -q"), 0);

  for (long c = 0; c < cases; c++) {
    int s = (int)gsl_rng_uniform_int(r, sizeof fl_mut_scenarios / sizeof *fl_mut_scenarios), code;
    const char *cmd;
    unsigned long which = gsl_rng_uniform_int(r, 10);
    fl_mut_scenario(r, texts[s], mutated, sizeof mutated);
    fl_cli_write("sc/m.ini", mutated);
    args[0] = '\0';
    if (which < 6) {
      cmd = "simulate";
      snprintf(args, sizeof args, "simulate sc/m.ini --quiet --replicas 1 --set run.max_events=20000");
      for (int k = (int)gsl_rng_uniform_int(r, 4); k > 0; k--) {
        static const char *const flags[] = {"--set", "--sweep", "--seed", "--db", "--events", "--replicas", "--bogus"};
        const char *f = flags[gsl_rng_uniform_int(r, sizeof flags / sizeof *flags)];
        char term[512];
        if (strcmp(f, "--set") == 0 || strcmp(f, "--sweep") == 0) {
          static const char *const secs[] = {"run", "platform", "failures", "app", "strategy", "policy", "mpi"};
          snprintf(term, sizeof term, "%s.%s=%s", secs[gsl_rng_uniform_int(r, 7)],
                   fl_mut_keys[gsl_rng_uniform_int(r, sizeof fl_mut_keys / sizeof *fl_mut_keys)], fl_mut_pick_value(r));
        } else if (strcmp(f, "--db") == 0) {
          static const char *const dbs[] = {"foreign.db", "notes.txt", "new.sqlite", "ok.sqlite", "/", "."};
          snprintf(term, sizeof term, "%s", dbs[gsl_rng_uniform_int(r, 6)]);
        } else {
          snprintf(term, sizeof term, "%s", fl_mut_pick_value(r));
        }
        strncat(args, " ", sizeof args - strlen(args) - 1);
        strncat(args, f, sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args, term);
      }
    } else if (which == 6) {
      static const char *const dbs[] = {"foreign.db",     "notes.txt", "ok.sqlite",
                                        "missing.sqlite", "sc/m.ini",  "/dev/null"};
      cmd = "report";
      snprintf(args, sizeof args, "report %s%s", dbs[gsl_rng_uniform_int(r, 6)],
               gsl_rng_uniform_int(r, 2) ? " --csv" : "");
      if (gsl_rng_uniform_int(r, 2)) {
        strncat(args, " --scenario", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args, fl_mut_pick_value(r));
      }
      switch (gsl_rng_uniform_int(r, 4)) { /* the plots: --plot --x [--y], --timeline --plot, --html */
      case 1: {
        static const char *const files[] = {"p.svg", "p.png", "p.pdf", "p.txt"};
        static const char *const keys[] = {"failures.node_mtbf", "app.work", "strategy.kind", "run.seed"};
        strncat(args, " --plot", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args,
                    gsl_rng_uniform_int(r, 2) ? files[gsl_rng_uniform_int(r, 4)] : fl_mut_pick_value(r));
        strncat(args, " --x", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args,
                    gsl_rng_uniform_int(r, 2) ? keys[gsl_rng_uniform_int(r, 4)] : fl_mut_pick_value(r));
        if (gsl_rng_uniform_int(r, 2)) {
          strncat(args, " --y", sizeof args - strlen(args) - 1);
          fl_mut_word(args, sizeof args, gsl_rng_uniform_int(r, 2) ? "makespan" : fl_mut_pick_value(r));
        }
        break;
      }
      case 2:
        strncat(args, " --timeline", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args, gsl_rng_uniform_int(r, 2) ? "1" : fl_mut_pick_value(r));
        strncat(args, " --plot t.svg", sizeof args - strlen(args) - 1);
        break;
      case 3:
        strncat(args, " --html", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args, gsl_rng_uniform_int(r, 2) ? "r.html" : fl_mut_pick_value(r));
        break;
      default: break;
      }
    } else if (which == 7) {
      cmd = "rerun";
      snprintf(args, sizeof args, "rerun %s", gsl_rng_uniform_int(r, 2) ? "ok.sqlite" : "foreign.db");
      fl_mut_word(args, sizeof args, gsl_rng_uniform_int(r, 2) ? "1" : fl_mut_pick_value(r));
    } else if (which == 8) {
      static const char *const sub[] = {"ls", "verify", "dump", "frob"};
      cmd = "ckpt";
      snprintf(args, sizeof args, "ckpt %s", sub[gsl_rng_uniform_int(r, 4)]);
      fl_mut_word(args, sizeof args, gsl_rng_uniform_int(r, 2) ? "." : fl_mut_pick_value(r));
      if (gsl_rng_uniform_int(r, 2)) {
        strncat(args, " --version", sizeof args - strlen(args) - 1);
        fl_mut_word(args, sizeof args, fl_mut_pick_value(r));
      }
    } else {
      static const char *const other[] = {"platform --nodes",
                                          "validate --replicas",
                                          "validate --only",
                                          "keys",
                                          "help",
                                          "platform --speed",
                                          "validate --seed",
                                          "calibrate sc/m.ini --np",
                                          "agree sc/m.ini --failures 2 --np"};
      const char *o = other[gsl_rng_uniform_int(r, 9)];
      cmd = strncmp(o, "validate", 8) == 0 ? "validate" : strncmp(o, "agree", 5) == 0 ? "agree" : o;
      snprintf(args, sizeof args, "%s", o);
      fl_mut_word(args, sizeof args, fl_mut_pick_value(r));
      if (strncmp(o, "platform", 8) == 0)
        strncat(args, " -o plat.xml --nodes 3", sizeof args - strlen(args) - 1);
      if (strncmp(o, "validate", 8) == 0)
        strncat(args, " --only daly-example --replicas 50 --quiet", sizeof args - strlen(args) - 1);
    }
    code = fl_cli_run_bounded(args, FL_MUT_TIME_S, FL_MUT_MEM_KB);
    int long_run = 0, failed = 1;
    if (code < 0 && strcmp(cmd, "simulate") == 0) {
      char err[sizeof fl_cli_err];
      long asked;
      memcpy(err, fl_cli_err, sizeof err);
      asked = fl_mut_requested(args);
      memcpy(fl_cli_err, err, sizeof err);
      if ((long_run = asked >= FL_MUT_LONG_REPLICAS))
        printf("\n    case %ld: faultline %s: %ld replicas asked for, stopped at the %d s limit\n", c, args, asked,
               FL_MUT_TIME_S);
    }
    if (long_run) {
      long_runs++;
      failed = 0;
    } else if (code < 0)
      hangs++;
    else if (code >= 128)
      signals++;
    else if (code == 2 && fl_cli_lines(fl_cli_err) != 1)
      multi_line++;
    else if (code != 0 && code != 2 && !(code == 1 && fl_mut_allows_1(cmd)))
      bad_exit++;
    else
      failed = 0;
    if (code >= 0 && code < 4)
      by_code[code]++;
    if (fl_mut_hash("foreign.db") != h_foreign || fl_mut_hash("notes.txt") != h_notes)
      changed++;
    if (failed)
      fprintf(stderr, "\n    case %ld: faultline %s -> %d\n    scenario:\n%s\n    stderr: %s\n", c, args, code, mutated,
              fl_cli_err);
    unlink(fl_test_tmp("new.sqlite"));
  }
  printf("\ncli mutation: %ld cases: exit 0 %ld, exit 1 %ld, exit 2 %ld; signals %ld, hangs %ld, other exits %ld, "
         "multi-line errors %ld, foreign files changed %ld; long runs stopped at the limit %ld\n",
         cases, by_code[0], by_code[1], by_code[2], signals, hangs, bad_exit, multi_line, changed, long_runs);
  CU_ASSERT_EQUAL(signals, 0);
  CU_ASSERT_EQUAL(hangs, 0);
  CU_ASSERT_EQUAL(bad_exit, 0);
  CU_ASSERT_EQUAL(multi_line, 0);
  CU_ASSERT_EQUAL(changed, 0);
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
    free(texts[i]);
  gsl_rng_free(r);
}

static CU_TestInfo mutation_tests[] = {
    {"mutated scenarios and command lines", test_mutated_command_lines},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"cli mutation", NULL, NULL, NULL, NULL, mutation_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
