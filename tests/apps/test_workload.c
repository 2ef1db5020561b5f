/* test_workload.c — job traces (apps/swf.c) and batch schedulers (policy/sched/batch.c): the SWF reader's fields,
 * header, gzip and errors; FCFS and EASY start times on hand-made traces, each worked out by hand below. */
#include "batch.h"
#include "fl_test.h"
#include "swf.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *fl_write(const char *name, const char *text)
{
  const char *path = fl_test_tmp(name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs(text, f);
  fclose(f);
  return path;
}

/* An SWF line: job, submit, wait, run, procs, req procs, req time (the other fields -1, status 1). */
static void fl_line(char *buf, size_t n, long id, double submit, double wait, double run, long procs, double req)
{
  size_t len = strlen(buf);
  snprintf(buf + len, n - len, "%ld %g %g %g %ld -1 -1 %ld %g -1 1 1 1 -1 1 -1 -1 -1\n", id, submit, wait, run, procs,
           procs, req);
}

static const char fl_header[] = "; Version: 2.2\n; Computer: hand-made\n; MaxNodes: 4\n; MaxProcs: 8\n;\n";

static void test_swf_fields(void)
{
  char text[4096];
  snprintf(text, sizeof text, "%s", fl_header);
  fl_line(text, sizeof text, 1, 0, 5, 100, 3, 200);
  fl_line(text, sizeof text, 2, 10, 0, -1, 2, 50); /* never ran: skipped */
  fl_line(text, sizeof text, 3, 20, 1, 30, 8, -1); /* no requested time: its run time */
  strcat(text, "   \n");                           /* blank lines are fine */
  fl_line(text, sizeof text, 4, 15, 0, 7, 1, 60);  /* out of order: sorted, counted */
  fl_swf *t = NULL;
  CU_ASSERT_EQUAL_FATAL(fl_swf_read(fl_write("a.swf", text), 2, &t), FL_OK);
  CU_ASSERT_EQUAL(t->max_nodes, 4);
  CU_ASSERT_EQUAL(t->max_procs, 8);
  CU_ASSERT_EQUAL(fl_swf_machine_nodes(t, 2), 4);
  CU_ASSERT_EQUAL(fl_swf_machine_nodes(t, 1), 8);
  CU_ASSERT_EQUAL(t->njobs, 3);
  CU_ASSERT_EQUAL(t->skipped, 1);
  CU_ASSERT_EQUAL(t->no_estimate, 1);
  CU_ASSERT_EQUAL(t->unsorted, 1);
  CU_ASSERT_EQUAL(t->jobs[0].id, 1);
  CU_ASSERT_EQUAL(t->jobs[0].nodes, 2); /* ceil(3 / 2) */
  CU_ASSERT_EQUAL(t->jobs[0].procs, 3);
  CU_ASSERT_DOUBLE_EQUAL(t->jobs[0].run_s, 100, 0);
  CU_ASSERT_DOUBLE_EQUAL(t->jobs[0].req_s, 200, 0);
  CU_ASSERT_DOUBLE_EQUAL(t->jobs[0].wait_s, 5, 0);
  CU_ASSERT_EQUAL(t->jobs[1].id, 4); /* submit 15 before 20 */
  CU_ASSERT_EQUAL(t->jobs[1].line, 10);
  CU_ASSERT_EQUAL(t->jobs[2].id, 3);
  CU_ASSERT_EQUAL(t->jobs[2].nodes, 4);
  CU_ASSERT_DOUBLE_EQUAL(t->jobs[2].req_s, 30, 0);
  /* Logged utilisation on 4 nodes: jobs 1 (2 nodes x 100 s, 0..105), 4 (1 x 7, 15..22), 3 (4 x 30, 20..51):
   * area 200 + 7 + 120 = 327 over [0, 105] x 4 nodes. */
  CU_ASSERT_DOUBLE_EQUAL(fl_swf_logged_utilisation(t, 4), 327.0 / 420.0, 1e-15);
  fl_swf_destroy(&t);
  fl_swf_destroy(&t); /* NULL: no-op */

  /* One job at a time: file order (the out-of-order line where it stands, counted), then the end. */
  {
    fl_swf_stream *st = NULL;
    fl_swf_job j;
    int got = 0;
    static const long ids[] = {1, 3, 4};
    CU_ASSERT_EQUAL_FATAL(fl_swf_open(fl_test_tmp("a.swf"), 2, &st), FL_OK);
    for (int k = 0; k < 3; k++) {
      CU_ASSERT_EQUAL(fl_swf_next(st, &j, &got), FL_OK);
      CU_ASSERT_EQUAL(got, 1);
      CU_ASSERT_EQUAL(j.id, ids[k]);
    }
    CU_ASSERT_EQUAL(fl_swf_stream_info(st)->unsorted, 1);
    CU_ASSERT_EQUAL(fl_swf_stream_info(st)->max_procs, 8);
    CU_ASSERT_EQUAL(fl_swf_next(st, &j, &got), FL_OK);
    CU_ASSERT_EQUAL(got, 0);
    CU_ASSERT_EQUAL(fl_swf_stream_info(st)->njobs, 3);
    CU_ASSERT_EQUAL(fl_swf_stream_info(st)->skipped, 1);
    fl_swf_close(&st);
    fl_swf_close(&st); /* NULL: no-op */
  }

  /* The same through gzip. */
  const char *gzpath = fl_test_tmp("a.swf.gz");
  gzFile gz = gzopen(gzpath, "wb");
  CU_ASSERT_FATAL(gz != NULL);
  gzputs(gz, text);
  gzclose(gz);
  CU_ASSERT_EQUAL_FATAL(fl_swf_read(gzpath, 2, &t), FL_OK);
  CU_ASSERT_EQUAL(t->njobs, 3);
  CU_ASSERT_EQUAL(t->jobs[2].id, 3);
  fl_swf_destroy(&t);
}

/* Each bad input: exit code FL_ERR_INPUT, a message naming file, line, field and value. */
static void fl_expect_error(const char *text, const char *want)
{
  fl_swf *t = NULL;
  const char *path = fl_write("bad.swf", text);
  CU_ASSERT_EQUAL(fl_swf_read(path, 1, &t), FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(t);
  if (!strstr(fl_err_msg(), want))
    fprintf(stderr, "\n  message '%s' lacks '%s'\n", fl_err_msg(), want);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), want));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), path));
}

static void test_swf_errors(void)
{
  char text[4096];
  snprintf(text, sizeof text, "%s", fl_header);
  fl_line(text, sizeof text, 1, 0, 5, 100, 3, 200);
  strcat(text, "2 10 0 x 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n");
  fl_expect_error(text, ":7: field 4 (run time) 'x': not a number");
  fl_expect_error("1 0 0 10 1\n", ":1: 5 fields, a job line has 18");
  fl_expect_error("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1 7\n", ":1: '7' after the 18 fields");
  snprintf(text, sizeof text, "%s", fl_header);
  fl_line(text, sizeof text, 1, 0, 5, 100, 9, 200);
  fl_expect_error(text, ":6: field 5 (allocated processors) '9': larger than the machine (MaxProcs: 8)");
  fl_expect_error("; MaxNodes: 2\n1 0 0 10 3 -1 -1 3 10 -1 1 1 1 -1 1 -1 -1 -1\n",
                  ":2: field 5 (allocated processors) '3': 3 nodes at app.cores_per_node = 1, larger than the "
                  "machine (MaxNodes: 2)");
  fl_expect_error("1 -5 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n", ":1: field 2 (submit time) '-5'");
  fl_expect_error("; only a header\n", "no job that ran");
  /* counts past a whole number (fuzz_swf found the cast's undefined behaviour) */
  fl_expect_error("1 0 0 10 3.6e96 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n",
                  ":1: field 5 (allocated processors) '3.6e+96': too large for a whole number");
  fl_expect_error("1 0 0 10 1 -1 -1 1 10 -1 1e300 1 1 -1 1 -1 -1 -1\n", ":1: field 11 (status) '1e+300': too large");
  fl_swf *t = NULL;
  CU_ASSERT_EQUAL(fl_swf_read(fl_test_tmp("missing.swf"), 1, &t), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "missing.swf: cannot open"));
}

/* Replays a trace of (submit, run, estimate, nodes) on `machine` nodes under both schedulers. */
static void fl_replay2(const fl_batch_job *jobs, long n, long machine, double *fcfs, double *easy)
{
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("fcfs"), jobs, n, machine, fcfs), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("easy"), jobs, n, machine, easy), FL_OK);
}

static void fl_expect_starts(const char *what, const double *got, const double *want, long n)
{
  for (long i = 0; i < n; i++) {
    if (got[i] != want[i])
      fprintf(stderr, "\n  %s: job %ld starts at %g, by hand %g\n", what, i + 1, got[i], want[i]);
    CU_ASSERT_EQUAL(got[i], want[i]);
  }
}

static void test_backfill_short(void)
{
  /* 4 nodes.
   *   j1: t=0, 2 nodes, 10 s          starts 0 (all free), ends 10.
   *   j2: t=1, 4 nodes, 5 s           needs the whole machine: waits for j1, starts 10, ends 15.
   *   j3: t=2, 2 nodes, 3 s           FCFS: behind j2, starts when j2 ends, 15.
   *                                   EASY: j2's shadow time is 10 (j1's end), extra nodes 4 - 4 = 0; j3 ends by
   *                                   2 + 3 = 5 <= 10: backfilled at 2, ends 5.
   *   j4: t=3, 1 node, 20 s           FCFS: 15 (with j3; 2 + 1 <= 4).
   *                                   EASY: at 3 and 5 it would end after the shadow (25 > 10) and there are no
   *                                   extra nodes; j2 takes the machine at 10; j4 starts at 15. */
  const fl_batch_job jobs[] = {{0, 10, 10, 2}, {1, 5, 5, 4}, {2, 3, 3, 2}, {3, 20, 20, 1}};
  double fcfs[4], easy[4];
  fl_replay2(jobs, 4, 4, fcfs, easy);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 10, 15, 15}, 4);
  fl_expect_starts("easy", easy, (double[]){0, 10, 2, 15}, 4);
}

static void test_backfill_extra(void)
{
  /* 4 nodes.
   *   j1: t=0, 3 nodes, 10 s          starts 0.
   *   j2: t=1, 2 nodes, 5 s           1 free: waits. Shadow 10 (j1 ends: 4 free), extra 4 - 2 = 2.
   *   j3: t=2, 1 node, 100 s          FCFS: blocked behind j2; at 10 j2 (2) and j3 (1) start together.
   *                                   EASY: ends at 102 > 10, but 1 node <= 2 extra: backfilled at 2 (extra 1).
   *   j4: t=3, 1 node, 1 s            no node free at 3 (EASY: 3 + 1 + 0 used); at 10: FCFS j2, j3, j4 all
   *                                   start (2 + 1 + 1 = 4); EASY j2 then j4 (2 + 1 of the 3 free). */
  const fl_batch_job jobs[] = {{0, 10, 10, 3}, {1, 5, 5, 2}, {2, 100, 100, 1}, {3, 1, 1, 1}};
  double fcfs[4], easy[4];
  fl_replay2(jobs, 4, 4, fcfs, easy);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 10, 10, 10}, 4);
  fl_expect_starts("easy", easy, (double[]){0, 10, 2, 10}, 4);
}

static void test_backfill_estimates(void)
{
  /* The scheduler sees requested times, not run times. 4 nodes.
   *   j1: t=0, 2 nodes, runs 10 s, asks 10 s      starts 0.
   *   j2: t=1, 4 nodes, runs 5, asks 5            waits for j1: shadow 10, extra 0.
   *   j3: t=2, 2 nodes, runs 3, asks 30           it would fit before 10 by its run time, but by its estimate it
   *                                               ends at 32 > 10 and extra is 0: not backfilled; after j2, 15.
   *   j4: t=4, 4 nodes, runs 1, asks 1            behind j3 in both: j3 runs 15..18 on 2 nodes; j4 needs 4:
   *                                               starts 18.
   * And a job that ends early frees its nodes early:
   *   j5: t=20, 4 nodes, runs 2, asks 100         starts 20 (j4 ended at 19), ends 22.
   *   j6: t=21, 4 nodes, runs 1, asks 1           EASY shadow for j6 at 21 is j5's estimate 120; j6 starts when
   *                                               j5 really ends, 22. */
  const fl_batch_job jobs[] = {{0, 10, 10, 2}, {1, 5, 5, 4},    {2, 3, 30, 2},
                               {4, 1, 1, 4},   {20, 2, 100, 4}, {21, 1, 1, 4}};
  double fcfs[6], easy[6];
  fl_replay2(jobs, 6, 4, fcfs, easy);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 10, 15, 18, 20, 22}, 6);
  fl_expect_starts("easy", easy, (double[]){0, 10, 15, 18, 20, 22}, 6);
}

static void test_backfill_overrun(void)
{
  /* A job that runs past its estimate counts as ending now for the shadow time. 3 nodes.
   *   j1: t=0, 2 nodes, runs 50, asks 10     starts 0; from 10 on it has overrun its estimate.
   *   j2: t=1, 3 nodes, runs 5, asks 5       waits for j1 (really 50).
   *   j3: t=20, 1 node, runs 10, asks 10     EASY at 20: shadow = max(j1's estimated end 10, now 20) = 20, so
   *                                          20 + 10 > 20; extra = 1 + 2 - 3 = 0: not backfilled. Both: after
   *                                          j2, 55. FCFS the same. */
  const fl_batch_job jobs[] = {{0, 50, 10, 2}, {1, 5, 5, 3}, {20, 10, 10, 1}};
  double fcfs[3], easy[3];
  fl_replay2(jobs, 3, 3, fcfs, easy);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 50, 55}, 3);
  fl_expect_starts("easy", easy, (double[]){0, 50, 55}, 3);
}

static void test_backfill_ties(void)
{
  /* Every job that ends at the shadow time frees its nodes then. 5 nodes.
   *   j1, j2: t=0, 2 nodes each, 10 s         both start 0 and end 10; 1 node free.
   *   j3: t=1, 3 nodes, 5 s                   head: j1's end gives 1 + 2 = 3 >= 3 nodes, shadow 10; j2 ends at
   *                                           10 too, so 5 nodes are free then: extra 5 - 3 = 2.
   *   j4: t=2, 1 node, 100 s                  EASY: ends after the shadow, but 1 <= 2 extra: backfilled at 2
   *                                           (counting j1 alone would leave no extra node and no backfill).
   *                                           FCFS: behind j3; at 10 j3 (3) and j4 (1) start. */
  const fl_batch_job jobs[] = {{0, 10, 10, 2}, {0, 10, 10, 2}, {1, 5, 5, 3}, {2, 100, 100, 1}};
  double fcfs[4], easy[4];
  fl_replay2(jobs, 4, 5, fcfs, easy);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 0, 10, 10}, 4);
  fl_expect_starts("easy", easy, (double[]){0, 0, 10, 2}, 4);
}

static void test_conservative(void)
{
  /* EASY protects only the first waiting job; conservative backfilling protects them all. 4 nodes.
   *   R: t=0, 3 nodes, 10 s               starts 0 (1 node free until 10).
   *   H: t=1, 2 nodes, 10 s               waits: EASY shadow 10 (4 free then), extra 2; conservative reserves [10, 20).
   *   C: t=1, 2 nodes, 10 s               conservative: at 10, 4 - 2 (H) = 2 free: reserved [10, 20).
   *   B: t=2, 1 node, 100 s               EASY: fits the free node, ends after the shadow but on the extra nodes:
   *                                       starts 2. At 10 H takes 2 of the 3 free; C waits for H: 20.
   *                                       conservative: over [2, 102) it meets [10, 20) with 0 free: reserved at 20,
   *                                       so H and C start at 10. FCFS the same as conservative here. */
  const fl_batch_job jobs[] = {{0, 10, 10, 3}, {1, 10, 10, 2}, {1, 10, 10, 2}, {2, 100, 100, 1}};
  double fcfs[4], easy[4], cons[4];
  fl_replay2(jobs, 4, 4, fcfs, easy);
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), jobs, 4, 4, cons), FL_OK);
  fl_expect_starts("easy", easy, (double[]){0, 10, 20, 2}, 4);
  fl_expect_starts("conservative", cons, (double[]){0, 10, 10, 20}, 4);
  fl_expect_starts("fcfs", fcfs, (double[]){0, 10, 10, 20}, 4);
  /* and it still backfills what delays nobody: test_backfill_short's j3 (2 nodes, ends by 5 < 10) */
  const fl_batch_job j2[] = {{0, 10, 10, 2}, {1, 5, 5, 4}, {2, 3, 3, 2}, {3, 20, 20, 1}};
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), j2, 4, 4, cons), FL_OK);
  fl_expect_starts("conservative", cons, (double[]){0, 10, 2, 15}, 4);
  /* a zero-length job that does not fit waits like any other */
  const fl_batch_job j3[] = {{0, 10, 10, 4}, {1, 0, 0, 1}};
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), j3, 2, 4, cons), FL_OK);
  fl_expect_starts("conservative", cons, (double[]){0, 10}, 2);
}

/* Conservative backfilling from its definition, written apart from policy/sched/conservative.c (no profile of free
 * nodes: the nodes in use at an instant are summed over every hold each time they are asked). A hold is a running job,
 * from now until its expected end (one that overran its estimate or had a zero estimate still holds its nodes now,
 * until just after now), or a reservation [t, t + estimate). Each waiting job in queue order is reserved at the
 * earliest of now and the ends of the holds where its nodes stay free for its whole estimate (a zero estimate
 * holds them at its instant, until just after); the jobs reserved now start. The replay: at each instant, ends, then
 * submits, then scheduling, as batch.c's. */
typedef struct fl_hold {
  double from, to;
  long nodes;
} fl_hold;

static long fl_used_at(const fl_hold *h, long n, double x)
{
  long used = 0;
  for (long i = 0; i < n; i++)
    if (h[i].from <= x && x < h[i].to)
      used += h[i].nodes;
  return used;
}

static int fl_fits_over(const fl_hold *h, long n, long machine, double t, double est, long need)
{
  if (fl_used_at(h, n, t) + need > machine)
    return 0;
  for (long i = 0; i < n; i++)
    if (h[i].from > t && h[i].from < t + est && fl_used_at(h, n, h[i].from) + need > machine)
      return 0;
  return 1;
}

static void fl_conservative_by_definition(const fl_batch_job *jobs, long n, long machine, double *start)
{
  double *end = malloc((size_t)n * sizeof *end); /* actual end of a running job, NAN otherwise */
  int *state = calloc((size_t)n, sizeof *state); /* 0 not submitted, 1 waiting, 2 running, 3 done */
  fl_hold *h = malloc((size_t)(2 * n + 1) * sizeof *h);
  CU_ASSERT_FATAL(end && state && h);
  for (long done = 0; done < n;) {
    double t = INFINITY;
    for (long j = 0; j < n; j++) {
      if (state[j] == 0)
        t = fmin(t, jobs[j].submit_s);
      if (state[j] == 2)
        t = fmin(t, end[j]);
    }
    for (long j = 0; j < n; j++)
      if (state[j] == 2 && end[j] == t)
        state[j] = 3, done++;
    for (long j = 0; j < n; j++)
      if (state[j] == 0 && jobs[j].submit_s == t)
        state[j] = 1;
    long nh = 0;
    for (long j = 0; j < n; j++)
      if (state[j] == 2) {
        double due = start[j] + jobs[j].est_s;
        h[nh++] = (fl_hold){t, due > t ? due : nextafter(t, INFINITY), jobs[j].nodes}; /* "just after now" */
      }
    for (long j = 0; j < n; j++) { /* queue order: submit order (nothing is put back here) */
      if (state[j] != 1)
        continue;
      double best = INFINITY;
      if (fl_fits_over(h, nh, machine, t, jobs[j].est_s, jobs[j].nodes))
        best = t;
      for (long i = 0; i < nh; i++)
        if (h[i].to >= t && h[i].to < best && fl_fits_over(h, nh, machine, h[i].to, jobs[j].est_s, jobs[j].nodes))
          best = h[i].to;
      CU_ASSERT_FATAL(isfinite(best));
      double to = best + jobs[j].est_s;
      h[nh++] = (fl_hold){best, to > best ? to : nextafter(best, INFINITY), jobs[j].nodes};
      if (best == t) {
        state[j] = 2;
        start[j] = t;
        end[j] = t + jobs[j].run_s;
      }
    }
  }
  free(end);
  free(state);
  free(h);
}

static void test_conservative_overrun(void)
{
  /* 4 nodes; the two traces. j1 (4 nodes, asks 1 s, runs 5) is past its estimate at 2, when j2 (1 node)
   * comes: j2 starts when j1 really ends, 5 (it used to be reserved "now" on j1's nodes, and the run stopped). */
  const fl_batch_job a[] = {{0, 5, 1, 4}, {2, 1, 1, 1}};
  double got[2];
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), a, 2, 4, got), FL_OK);
  fl_expect_starts("conservative", got, (double[]){0, 5}, 2);
  /* a job of no run time and no requested time (its estimate the run time, 0), then one of 10 s at the same date:
   * 0-0 and 0-10 */
  const fl_batch_job b[] = {{0, 0, 0, 4}, {0, 10, 10, 4}};
  CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), b, 2, 4, got), FL_OK);
  fl_expect_starts("conservative", got, (double[]){0, 0}, 2);
}

static void test_conservative_differential(void)
{
  /* Random traces with submit ties, zero run times, zero, short (overrun) and long estimates, against the replay
   * from the definition above. */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  enum { N = 40 };
  fl_batch_job jobs[N];
  double got[N], want[N];
  long differ = 0, overruns = 0;
  for (unsigned long seed = 1; seed <= 400; seed++) {
    gsl_rng_set(r, seed);
    long machine = 1 + (long)gsl_rng_uniform_int(r, 8);
    double t = 0;
    for (long j = 0; j < N; j++) {
      t += (double)gsl_rng_uniform_int(r, 4); /* ties one time in four */
      double run = gsl_rng_uniform_int(r, 5) == 0 ? 0 : (double)gsl_rng_uniform_int(r, 20);
      double est;
      switch (gsl_rng_uniform_int(r, 4)) {
      case 0: est = run; break;                                                    /* missing: the run time */
      case 1: est = 0; break;                                                      /* zero estimate */
      case 2: est = (double)gsl_rng_uniform_int(r, (unsigned long)run + 1); break; /* at most the run */
      default: est = run + (double)gsl_rng_uniform_int(r, 30); break;              /* generous */
      }
      overruns += est < run;
      jobs[j] = (fl_batch_job){t, run, est, 1 + (long)gsl_rng_uniform_int(r, (unsigned long)machine)};
    }
    CU_ASSERT_EQUAL_FATAL(fl_batch_replay(fl_batch_find("conservative"), jobs, N, machine, got), FL_OK);
    fl_conservative_by_definition(jobs, N, machine, want);
    /* FL_DUMP=SEED prints that trace and both schedules, to work a difference out by hand */
    if (getenv("FL_DUMP") && seed == strtoul(getenv("FL_DUMP"), NULL, 10))
      for (long j = 0; j < N; j++)
        fprintf(stderr, "\n%ld: submit %g run %g est %g nodes %ld -> %g / %g", j, jobs[j].submit_s, jobs[j].run_s,
                jobs[j].est_s, jobs[j].nodes, got[j], want[j]);
    for (long j = 0; j < N; j++)
      if (got[j] != want[j]) {
        if (differ++ < 5)
          fprintf(stderr, "\n  seed %lu, %ld nodes: job %ld starts at %g, by definition %g", seed, machine, j, got[j],
                  want[j]);
      }
  }
  gsl_rng_free(r);
  CU_ASSERT_EQUAL(differ, 0);
  CU_ASSERT(overruns > 1000); /* the case that used to stop the run was exercised */
}

static void test_batch_queue(void)
{
  /* The container: put-back at the front, free nodes, a job that is not running refused. */
  fl_batch *b = NULL;
  long started[8], n;
  CU_ASSERT_EQUAL_FATAL(fl_batch_create(fl_batch_find("fcfs"), 4, &b), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_submit(b, 0, 3, 10, 0), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_submit(b, 1, 2, 10, 0), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_pick(b, 0, started, &n), FL_OK);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(started[0], 0);
  CU_ASSERT_EQUAL(fl_batch_free_nodes(b), 1);
  CU_ASSERT_EQUAL(fl_batch_waiting(b), 1);
  /* job 0 fails: ends, and goes back first, ahead of job 1 */
  CU_ASSERT_EQUAL(fl_batch_end(b, 0), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_submit(b, 0, 3, 8, 1), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_pick(b, 5, started, &n), FL_OK);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(started[0], 0);
  CU_ASSERT_EQUAL(fl_batch_end(b, 1), FL_ERR_INTERNAL); /* job 1 waits */
  for (int i = 0; i < 100; i++)                         /* many put-backs at the front keep the order */
    CU_ASSERT_EQUAL(fl_batch_submit(b, 2 + i, 1, 1, 1), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_waiting(b), 101);
  CU_ASSERT_EQUAL(fl_batch_end(b, 0), FL_OK);
  CU_ASSERT_EQUAL(fl_batch_pick(b, 6, started, &n), FL_OK);
  CU_ASSERT_EQUAL(n, 4); /* the last four put back, newest first */
  CU_ASSERT_EQUAL(started[0], 101);
  CU_ASSERT_EQUAL(started[3], 98);
  fl_batch_destroy(&b);
  fl_batch_destroy(&b);
  CU_ASSERT_PTR_NULL(fl_batch_find("sjf"));
  CU_ASSERT_STRING_EQUAL(fl_batch_names(), "fcfs | easy | conservative");
}

/* A running job asks for one more free node (a restart in place): a dry run, as a newcomer at the back. Machine of 5:
 * A (2 nodes, expected end 1000) and C (2 nodes, expected end 20) run, B (3 nodes, estimate 50) waits, 1 node free.
 *   easy: B's reservation is at C's end, 20, when 3 nodes are free: no extra node. A 1-node newcomer until 1000
 *         would delay it (refused); one that ends by 15 would not (granted). Nobody waiting: granted.
 *   fcfs: B is first in line: refused, however short.
 * Nothing changes: the real pick afterwards is the same. */
static void test_would_start(void)
{
  const char *names[] = {"easy", "fcfs"};
  for (int k = 0; k < 2; k++) {
    fl_batch *b = NULL;
    long started[4], n = 0;
    int yes = -1;
    CU_ASSERT_EQUAL_FATAL(fl_batch_create(fl_batch_find(names[k]), 5, &b), FL_OK);
    CU_ASSERT_EQUAL(fl_batch_would_start(b, 0, 1, 1000, &yes), FL_OK);
    CU_ASSERT_EQUAL(yes, 1); /* an empty machine */
    CU_ASSERT_EQUAL(fl_batch_submit(b, 0, 2, 1000, 0), FL_OK);
    CU_ASSERT_EQUAL(fl_batch_submit(b, 1, 2, 20, 0), FL_OK);
    CU_ASSERT_EQUAL(fl_batch_pick(b, 0, started, &n), FL_OK);
    CU_ASSERT_EQUAL(n, 2);
    CU_ASSERT_DOUBLE_EQUAL(fl_batch_expected_end(b, 1), 20.0, 0.0);
    CU_ASSERT(isnan(fl_batch_expected_end(b, 2)));
    CU_ASSERT_EQUAL(fl_batch_would_start(b, 1, 1, 999, &yes), FL_OK);
    CU_ASSERT_EQUAL(yes, 1); /* nobody waits */
    CU_ASSERT_EQUAL(fl_batch_submit(b, 2, 3, 50, 0), FL_OK);
    CU_ASSERT_EQUAL(fl_batch_would_start(b, 5, 1, 995, &yes), FL_OK);
    CU_ASSERT_EQUAL(yes, 0);
    CU_ASSERT_EQUAL(fl_batch_would_start(b, 5, 1, 10, &yes), FL_OK);
    CU_ASSERT_EQUAL(yes, k == 0); /* easy: ends at 15, before the shadow time 20 */
    CU_ASSERT_EQUAL(fl_batch_waiting(b), 1);
    CU_ASSERT_EQUAL(fl_batch_free_nodes(b), 1);
    CU_ASSERT_EQUAL(fl_batch_pick(b, 5, started, &n), FL_OK);
    CU_ASSERT_EQUAL(n, 0);
    fl_batch_destroy(&b);
  }
}

static CU_TestInfo fl_swf_tests[] = {
    {"fields, header, skipped and unsorted jobs, gzip", test_swf_fields},
    {"bad lines and jobs too large name file, line, field, value", test_swf_errors},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo fl_batch_tests[] = {
    {"EASY backfills a short job before the reservation", test_backfill_short},
    {"EASY backfills a long job on the extra nodes", test_backfill_extra},
    {"schedulers see estimates; early ends free nodes", test_backfill_estimates},
    {"a job past its estimate ends 'now' for the shadow", test_backfill_overrun},
    {"jobs ending at the shadow time all free their nodes", test_backfill_ties},
    {"conservative backfilling protects every waiting job", test_conservative},
    {"conservative: an overrun or zero-estimate job holds its nodes now", test_conservative_overrun},
    {"conservative equals a replay from the definition on random traces", test_conservative_differential},
    {"queue: put-back at the front, running set", test_batch_queue},
    {"a node for a running job: granted only as a newcomer would be", test_would_start},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo fl_suites[] = {
    {"swf", NULL, NULL, NULL, NULL, fl_swf_tests},
    {"batch", NULL, NULL, NULL, NULL, fl_batch_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(fl_suites)
