/* agree.c — what `faultline calibrate` and `faultline agree` do (see agree.h; cli/agree.c parses their command
 * lines): the real engine measured on this machine, the simulator fed with what was measured, and both engines run
 * on one scenario with the same failures.
 *
 * calibrate runs the scenario for real on N ranks (`faultline run`, rows into a temporary database): failure-free
 * with buddy checkpoints (time per iteration, buddy checkpoint cost and bandwidth), failure-free with file
 * checkpoints (file checkpoint cost and bandwidth), and once with a rank killed half-way (detection, recovery —
 * agreement and spare promotion — and restore). It writes what the simulator needs as an INI fragment: the job as a
 * bsp job of the measured work on N ranks, the checkpoint interval (every N iterations × the iteration time), the
 * costs of the scenario's strategy. `faultline simulate S --calibration FILE` applies it as overrides.
 *
 * agree calibrates, draws K failures by progress (fl_agree_draw: rank r killed as it starts iteration i, the
 * simulator failing its node when the job's work first reaches i iterations), and for each strategy runs both
 * engines on them, then prints the real/simulated makespan ratio; --repeat rounds, each its own calibration. */
#include "agree.h"

#include "app.h"
#include "cleanup.h"
#include "engine.h"
#include "fl_config.h"
#include "rng.h"
#include "scenario.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The figures of one row. */
typedef struct fl_agree_row {
  char status[32];
  double makespan, work, checkpoint_time, detect, recovery, restart, bytes;
  long iterations, checkpoints, interruptions, failures;
} fl_agree_row;

/* What calibrate measured. */
typedef struct fl_calib {
  long np, iterations, every;
  double t_iter_file; /* the iteration's time in the file-checkpoint run: the file level's writes slow compute too */
  double t_iter, makespan0, delta_buddy, delta_file, bytes_buddy, bytes_file, detect, recovery, restore;
  const char *store, *other_store; /* the file level's format (mpi.checkpoint_store), and the other one measured */
  double delta_other, bytes_other; /* (other_store NULL: not measured, no HDF5) */
} fl_calib;

/* Run this faultline with argv (argv[0] is ignored); stdout (and stderr when quiet) to /dev/null. Exit status, or
 * -1 if it could not run. */
static int fl_agree_spawn(const fl_agree_opts *a, char **argv)
{
  pid_t pid;
  int st = 0;
  fflush(NULL);
  pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      if (a->quiet)
        dup2(null, 2);
    }
    execv(a->exe, argv);
    _exit(127);
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* argv for `faultline CMD SCENARIO [the user's --set] [extra...]` (NULL-terminated extras). */
static int fl_agree_argv(const fl_agree_opts *a, char **argv, int max, const char *cmd, char *const *extra)
{
  int c = 0;
  argv[c++] = "faultline";
  argv[c++] = (char *)cmd;
  argv[c++] = (char *)a->path;
  for (int i = 0; i < a->nsets && c < max - 3; i += 1) {
    argv[c++] = "--set";
    argv[c++] = (char *)a->sets[i];
  }
  for (int i = 0; extra[i] && c < max - 1; i++)
    argv[c++] = extra[i];
  argv[c] = NULL;
  return c;
}

/* The newest row of `mode` in db. */
static fl_err fl_agree_last_row(const char *db, const char *mode, fl_agree_row *r)
{
  fl_err rc = FL_OK;
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  memset(r, 0, sizeof *r);
  FL_CHECK(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK, FL_ERR_IO, "%s: cannot open", db);
  FL_CHECK(sqlite3_prepare_v2(h,
                              "SELECT status, makespan_s, work_s, checkpoint_time_s, detect_time_s, recovery_time_s, "
                              "restart_time_s, checkpoint_bytes, iterations, checkpoints, interruptions, failures "
                              "FROM runs WHERE mode = ?1 ORDER BY id DESC LIMIT 1",
                              -1, &st, NULL) == SQLITE_OK,
           FL_ERR_IO, "%s: %s", db, sqlite3_errmsg(h));
  sqlite3_bind_text(st, 1, mode, -1, SQLITE_STATIC);
  FL_CHECK(sqlite3_step(st) == SQLITE_ROW, FL_ERR_IO, "%s: the %s run wrote no row", db, mode);
  snprintf(r->status, sizeof r->status, "%s", (const char *)sqlite3_column_text(st, 0));
  r->makespan = sqlite3_column_double(st, 1);
  r->work = sqlite3_column_double(st, 2);
  r->checkpoint_time = sqlite3_column_double(st, 3);
  r->detect = sqlite3_column_double(st, 4);
  r->recovery = sqlite3_column_double(st, 5);
  r->restart = sqlite3_column_double(st, 6);
  r->bytes = sqlite3_column_double(st, 7);
  r->iterations = (long)sqlite3_column_int64(st, 8);
  r->checkpoints = (long)sqlite3_column_int64(st, 9);
  r->interruptions = (long)sqlite3_column_int64(st, 10);
  r->failures = (long)sqlite3_column_int64(st, 11);
done:
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rc;
}

/* One real run for calibration: `faultline run` on np ranks with strategy `kind`, rows into our database. */
/* One real run: `faultline run` on np ranks + spares with strategy `kind` and the kills given (RANK@ITER or
 * RANK@TIME), its row into db and read back. Exit 3 (no spare left) is a result when lost_ok, else an error. */
static fl_err fl_agree_real(const fl_agree_opts *a, const char *kind, const char *set, char *const *kills, long nkills,
                            long spares, const char *db, int lost_ok, fl_agree_row *r)
{
  char *argv[4 * FL_AGREE_MAX_SETS + 2 * FL_AGREE_MAX_FAILURES + 40], np[32], sp[32], strat[64];
  char *extra[2 * FL_AGREE_MAX_FAILURES + 24];
  int e = 0, code;
  const int nodes = a->per_node > 1; /* failures are nodes: spare nodes, node kills */
  snprintf(np, sizeof np, "%ld", a->np);
  snprintf(sp, sizeof sp, "%ld", nodes ? (spares + a->per_node - 1) / a->per_node : spares);
  snprintf(strat, sizeof strat, "strategy.kind=%s", kind);
  extra[e++] = "--np";
  extra[e++] = np;
  extra[e++] = nodes ? "--spare-nodes" : "--spares";
  extra[e++] = sp;
  if (a->launcher) {
    extra[e++] = "--launcher";
    extra[e++] = (char *)a->launcher;
  }
  if (a->hostfile) {
    extra[e++] = "--hostfile";
    extra[e++] = (char *)a->hostfile;
  }
  extra[e++] = "--db";
  extra[e++] = (char *)db;
  extra[e++] = "--quiet";
  extra[e++] = "--set";
  extra[e++] = strat;
  if (set) {
    extra[e++] = "--set";
    extra[e++] = (char *)set;
  }
  for (long i = 0; i < nkills && i < FL_AGREE_MAX_FAILURES; i++) {
    extra[e++] = nodes ? "--kill-node" : "--kill";
    extra[e++] = kills[i];
  }
  extra[e] = NULL;
  fl_agree_argv(a, argv, (int)(sizeof argv / sizeof argv[0]), "run", extra);
  code = fl_agree_spawn(a, argv);
  if (code != 0 && !(lost_ok && code == 3))
    return fl_err_set(code == 2 ? FL_ERR_INPUT : FL_ERR_IO, "faultline run (%s%s%s) ended with status %d", kind,
                      nkills ? ", kill " : "", nkills ? kills[0] : "", code);
  return fl_agree_last_row(db, "real", r);
}

/* A calibration run: rows into our own database. */
static fl_err fl_calib_run(const fl_agree_opts *a, const char *kind, const char *set, const char *kill, long spares,
                           fl_agree_row *r)
{
  char db[4200], *kills[1] = {(char *)kill};
  snprintf(db, sizeof db, "%s/calibrate.sqlite", a->tmp);
  return fl_agree_real(a, kind, set, kills, kill ? 1 : 0, spares, db, 0, r);
}

static fl_err fl_calib_measure(const fl_agree_opts *a, const fl_scenario *sc, fl_calib *c)
{
  fl_err rc = FL_OK;
  fl_agree_row b, f, k;
  char kill[64];
  memset(c, 0, sizeof *c);
  c->np = a->np;
  c->every = sc->checkpoint_every;
  FL_CHECK(c->every > 0, FL_ERR_INPUT,
           "%s: calibrate and agree need mpi.checkpoint_every > 0 (a cadence both engines share)", a->path);
  if (!a->quiet)
    fprintf(stderr, "faultline: calibrating on %ld ranks: buddy, file%s, one kill ...\n", a->np,
            FL_HAVE_HDF5 ? " (file and hdf5 stores)" : "");
  FL_TRY(fl_calib_run(a, "buddy", NULL, NULL, 1, &b));
  FL_TRY(fl_calib_run(a, "checkpoint", NULL, NULL, 1, &f));
  FL_CHECK(b.iterations > 2 && b.checkpoints > 0 && f.checkpoints > 0, FL_ERR_INPUT,
           "%s: the failure-free run made %ld iterations: too short to calibrate (a larger app.grid)", a->path,
           b.iterations);
  c->iterations = b.iterations;
  c->makespan0 = b.makespan;
  c->t_iter = (b.makespan - b.checkpoint_time) / (double)b.iterations;
  c->t_iter_file = (f.makespan - f.checkpoint_time) / (double)f.iterations;
  c->delta_buddy = b.checkpoint_time / (double)b.checkpoints;
  c->delta_file = f.checkpoint_time / (double)f.checkpoints;
  c->bytes_buddy = b.bytes / (double)b.checkpoints / (double)a->np;
  c->bytes_file = f.bytes / (double)f.checkpoints / (double)a->np;
  c->store = sc->checkpoint_hdf5 ? "hdf5" : "file";
  if (FL_HAVE_HDF5) { /* the file level in the other format too: both bandwidths in the fragment's comments */
    fl_agree_row o;
    c->other_store = sc->checkpoint_hdf5 ? "file" : "hdf5";
    FL_TRY(fl_calib_run(a, "checkpoint",
                        sc->checkpoint_hdf5 ? "mpi.checkpoint_store=file" : "mpi.checkpoint_store=hdf5", NULL, 1, &o));
    FL_CHECK(o.checkpoints > 0, FL_ERR_IO, "calibration: the %s-store run took no checkpoint", c->other_store);
    c->delta_other = o.checkpoint_time / (double)o.checkpoints;
    c->bytes_other = o.bytes / (double)o.checkpoints / (double)a->np;
    /* the iteration beside file writes, in both formats: two measurements, their mean (runs here differ by up to
     * 15 % from one to the next) */
    c->t_iter_file = 0.5 * (c->t_iter_file + (o.makespan - o.checkpoint_time) / (double)o.iterations);
  }
  snprintf(kill, sizeof kill, "1@%ld", b.iterations / 2);
  FL_TRY(fl_calib_run(a, "buddy", NULL, kill, 1, &k));
  FL_CHECK(k.interruptions >= 1, FL_ERR_IO, "calibration: the run with rank 1 killed saw no recovery");
  c->detect = k.detect;
  c->recovery = k.recovery;
  c->restore = k.restart / (double)k.interruptions;
  /* the iteration beside buddy copies: the failure-free run and the one with a kill (its useful work, without
   * detection, recovery, restore and replay), their mean */
  if (k.iterations == b.iterations && k.work > 0)
    c->t_iter = 0.5 * (c->t_iter + k.work / (double)k.iterations);
done:
  return rc;
}

/* What a strategy writes in the real engine (its fl_exec_setup): the levels and copies that say how the calibration
 * prices it. */
typedef struct fl_agree_strat {
  const char *kind;
  unsigned levels;
  long degree;
} fl_agree_strat;

/* One copy writing one level: the calibration's own runs measure it (files, or buddy copies). The others get a
 * failure-free run of their own (fl_agree_strategy). */
static int fl_calib_single(const fl_agree_strat *s, fl_level level)
{
  return s->degree == 1 && s->levels == FL_LEVEL_BIT(level);
}

/* The strategy's checkpoint cost. */
static double fl_calib_delta(const fl_calib *c, const fl_agree_strat *s)
{
  /* the level its checkpoints go to in the real engine: files when it writes those only (checkpoint, and
   * replication's sets, each its own file level), the buddy level for the others (two-level's file level is
   * file_cost) */
  return s->levels == FL_LEVEL_BIT(FL_LEVEL_FILE) ? c->delta_file : c->delta_buddy;
}

static fl_err fl_calib_write(const fl_calib *c, const fl_agree_opts *a, const fl_agree_strat *s, const char *path)
{
  /* compute as it runs beside this strategy's checkpoints: beside file writes (the kernel flushing them shares the
   * cores) an iteration takes longer than beside buddy copies */
  double t_iter = fl_calib_single(s, FL_LEVEL_FILE) ? c->t_iter_file : c->t_iter;
  const char *kind = s->kind;
  char tmp[4200], host[256] = "?", when[64], other[160] = "";
  int is_stdout = strcmp(path, "/dev/stdout") == 0;
  FILE *f;
  time_t now = time(NULL);
  struct tm tm;
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  f = is_stdout ? stdout : fopen(tmp, "w"); /* a file appears complete or not at all */
  if (!f)
    return fl_err_set(FL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
  if (c->other_store)
    snprintf(other, sizeof other, "; the file level with the %s store: checkpoint %.6g s (%.1f MB/s a rank)\n",
             c->other_store, c->delta_other, c->delta_other > 0 ? c->bytes_other / c->delta_other / 1e6 : 0.0);
  gethostname(host, sizeof host - 1);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
  fprintf(f,
          "; faultline calibrate %s --np %ld (strategy %s), measured %s on %s\n"
          "; failure-free: %ld iterations of %.6g s (%.6g s beside file checkpoints)\n"
          "; buddy checkpoint %.6g s (%.1f MB/s a rank), file checkpoint %.6g s (%.1f MB/s a rank, %s store)\n"
          "%s"
          "; one rank killed: detection %.4g s, recovery (agreement, spare promotion) %.4g s, restore %.4g s\n"
          "; faultline simulate SCENARIO --calibration THIS_FILE: the job as a bsp job of the measured work\n"
          "[app]\nkind = bsp\nnodes = %ld\nwork = %.9gs\n"
          "[strategy]\ninterval = %.9gs\ncheckpoint_cost = %.9gs\nfile_cost = %.9gs\nrestart_cost = %.9gs\n"
          "downtime = %.9gs\n",
          a->path, a->np, kind, when, host, c->iterations, c->t_iter, c->t_iter_file, c->delta_buddy,
          c->delta_buddy > 0 ? c->bytes_buddy / c->delta_buddy / 1e6 : 0.0, c->delta_file,
          c->delta_file > 0 ? c->bytes_file / c->delta_file / 1e6 : 0.0, c->store, other, c->detect, c->recovery,
          c->restore, a->np, t_iter * (double)c->iterations, t_iter * (double)c->every, fl_calib_delta(c, s),
          c->delta_buddy + c->delta_file, c->restore, c->detect + c->recovery);
  if (is_stdout)
    return fflush(stdout) == 0 ? FL_OK : fl_err_set(FL_ERR_IO, "stdout: %s", strerror(errno));
  if (fclose(f) != 0 || rename(tmp, path) != 0) {
    fl_err rc = fl_err_set(FL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    unlink(tmp);
    return rc;
  }
  return FL_OK;
}

/* The strategies agree compares unless --strategies says otherwise (docs/real-mode.md). */
#define FL_AGREE_DEFAULT "checkpoint,buddy,two-level,replication"

/* Arguments common to both commands. Returns 0, or the exit status of a usage error. */
/* The scenario with the user's --set, checked for the real engine before anything runs. */
static fl_err fl_agree_scenario(const fl_agree_opts *a, fl_scenario **sc, fl_agree_strat *what)
{
  fl_err rc = FL_OK;
  fl_engine_caps caps;
  fl_strategy_run strat;
  const fl_app *app = NULL;
  FL_TRY(fl_scenario_load(a->path, sc));
  for (int i = 0; i < a->nsets; i++)
    FL_TRY(fl_scenario_set(*sc, a->sets[i]));
  FL_TRY(fl_app_get(*sc, FL_APP_REAL, &app)); /* calibrate and agree run the real engine */
  FL_TRY(fl_exec_setup(*sc, a->np, &caps, &strat));
  *what = (fl_agree_strat){.kind = (*sc)->strategy, .levels = strat.levels, .degree = strat.degree};
  FL_CHECK((*sc)->ranks_per_node < 2 || a->np % (*sc)->ranks_per_node == 0, FL_ERR_INPUT,
           "mpi.ranks_per_node = %ld: --np %ld is not whole nodes", (*sc)->ranks_per_node, a->np);
  FL_CHECK((*sc)->ranks_per_node < 2 || a->np / (*sc)->ranks_per_node >= 2, FL_ERR_INPUT,
           "mpi.ranks_per_node = %ld: --np %ld is one node; calibrate and agree lose a node and need another",
           (*sc)->ranks_per_node, a->np);
done:
  return rc;
}

static fl_err fl_agree_tmpdir(fl_agree_opts *a)
{
  const char *t = getenv("TMPDIR");
  snprintf(a->tmp, sizeof a->tmp, "%s/faultline-agree-XXXXXX", t && *t ? t : "/tmp");
  if (!mkdtemp(a->tmp))
    return fl_err_set(FL_ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
  return FL_OK;
}

fl_err fl_calibrate_run(fl_agree_opts *opts)
{
  fl_agree_opts a = *opts;
  fl_scenario *sc = NULL;
  fl_calib c;
  fl_agree_strat what;
  fl_err rc = FL_OK;
  a.tmp[0] = '\0';
  FL_TRY(fl_agree_scenario(&a, &sc, &what));
  a.per_node = sc->ranks_per_node;
  if (a.out) { /* where it goes is checked before the minutes of measuring */
    char dir[4096], *slash;
    snprintf(dir, sizeof dir, "%s", a.out);
    slash = strrchr(dir, '/');
    if (slash)
      *slash = '\0';
    FL_CHECK(access(slash ? (dir[0] ? dir : "/") : ".", W_OK) == 0, FL_ERR_INPUT, "--out %s: cannot write there: %s",
             a.out, strerror(errno));
  }
  FL_TRY(fl_agree_tmpdir(&a));
  FL_TRY(fl_calib_measure(&a, sc, &c));
  FL_TRY(fl_calib_write(&c, &a, &what, a.out ? a.out : "/dev/stdout"));
  if (!a.quiet && a.out)
    fprintf(stderr, "faultline: calibration in %s (faultline simulate %s --calibration %s)\n", a.out, a.path, a.out);
done:
  if (a.tmp[0])
    fl_remove_tree(a.tmp);
  fl_scenario_destroy(&sc);
  return rc;
}

/* K failures placed by progress: iterations over 10-90 % of the failure-free run's (none a checkpoint's own
 * iteration, where one engine's rounding could put it before the checkpoint and the other after), distinct, on K
 * distinct world ranks of the first copy. Both engines see every one: faultline run kills rank r when it starts
 * iteration i (RANK@ITER), the simulator fails its node when the job's work first reaches i iterations
 * (failures.trace_clock = work). Replication is replica sets in the real engine: a set that lost a process lags a
 * recovery (`lag` iterations) behind the others and would never reach a later kill once another set has finished,
 * so its kills stop that many recoveries before the end. */
static fl_err fl_agree_draw(const fl_scenario *sc, const fl_calib *c, long k, long round, long degree, double lag,
                            long *iter, long *rank)
{
  fl_err rc = FL_OK;
  gsl_rng *r = NULL;
  long n = c->iterations, lo = n / 10, hi = n - n / 10;
  if (degree > 1)
    hi = (long)floor((double)n * 0.95 - (double)k * lag);
  const long units = sc->ranks_per_node > 1 ? c->np / sc->ranks_per_node : c->np; /* ranks, or nodes */
  FL_CHECK(k <= units, FL_ERR_INPUT, "--failures %ld: at most one per %s (%ld)", k, units == c->np ? "rank" : "node",
           units);
  FL_CHECK(hi - lo >= 4 * k, FL_ERR_INPUT,
           "the run is too short for %ld failures%s: %ld iterations of %.3g s, a recovery %.3g iterations (a larger "
           "app.grid, or a smaller app.tolerance)",
           k, degree > 1 ? " under replication" : "", n, c->t_iter, lag);
  FL_TRY(fl_rng_create(sc->seed, (uint64_t)round, FL_STREAM_FAILURES, &r));
  for (long i = 0; i < k; i++) {
    int fresh;
    do {
      iter[i] = lo + (long)gsl_rng_uniform_int(r, (unsigned long)(hi - lo));
      fresh = c->every <= 0 || iter[i] % c->every != 0;
      for (long j = 0; j < i; j++)
        fresh &= iter[j] != iter[i];
    } while (!fresh);
  }
  for (long i = 1; i < k; i++) /* in order (insertion: a handful) */
    for (long j = i; j > 0 && iter[j - 1] > iter[j]; j--) {
      long x = iter[j];
      iter[j] = iter[j - 1];
      iter[j - 1] = x;
    }
  for (long i = 0; i < k; i++) {
    int fresh;
    do {
      rank[i] = (long)gsl_rng_uniform_int(r, (unsigned long)units);
      fresh = 1;
      for (long j = 0; j < i; j++)
        fresh &= rank[j] != rank[i];
    } while (!fresh);
  }
done:
  if (r)
    gsl_rng_free(r);
  return rc;
}

/* One strategy's line of a round: both engines, their rows read back. */
typedef struct fl_agree_line {
  fl_agree_row sim, real;
  double ratio; /* NAN: not compared (the engines saw different failures) */
  int ok;
} fl_agree_line;

static fl_err fl_agree_strategy(const fl_agree_opts *a, const fl_calib *c, const fl_agree_strat *s, long round,
                                const long *iter, const long *rank, const char *db, fl_agree_line *out)
{
  fl_err rc = FL_OK;
  const char *kind = s->kind;
  const long degree = s->degree;
  char trace[4200], cal[4200], strat[64], platform[64], tr[4300], kills[FL_AGREE_MAX_FAILURES][64];
  char *argv_sim[4 * FL_AGREE_MAX_SETS + 40], *killv[FL_AGREE_MAX_FAILURES];
  fl_calib cr = *c;
  double t_iter;
  int code;
  FILE *f;
  memset(out, 0, sizeof *out);
  out->ratio = NAN;
  snprintf(cal, sizeof cal, "%s/calibration-%ld-%s.ini", a->tmp, round, kind);
  if (!fl_calib_single(s, FL_LEVEL_BUDDY) && !fl_calib_single(s, FL_LEVEL_FILE)) {
    /* the iteration as it runs under this strategy, measured failure-free like the rest: two-level's file level
     * slows compute as checkpoint's does, replication's copies share the machine */
    fl_agree_row rr;
    FL_TRY(fl_calib_run(a, kind, NULL, NULL, degree > 1 ? a->failures * degree : 1, &rr));
    FL_CHECK(rr.iterations > 0 && rr.checkpoints > 0, FL_ERR_IO, "calibration: the %s run made no iteration", kind);
    cr.t_iter = (rr.makespan - rr.checkpoint_time) / (double)rr.iterations;
    if (degree > 1)
      cr.delta_file = rr.checkpoint_time / (double)rr.checkpoints;
  }
  FL_TRY(fl_calib_write(&cr, a, s, cal));
  t_iter = fl_calib_single(s, FL_LEVEL_FILE) ? cr.t_iter_file : cr.t_iter;
  /* the simulator's trace: the job's work when each failure strikes (iterations x the calibrated iteration); the
   * real world rank w of replica set w / np holds copy w / np of rank w mod np, which the simulator places on node
   * rank * degree + copy */
  snprintf(trace, sizeof trace, "%s/failures-%ld-%s.csv", a->tmp, round, kind);
  FL_CHECK((f = fopen(trace, "w")) != NULL, FL_ERR_IO, "%s: %s", trace, strerror(errno));
  fprintf(f, "# work (s), node: the job's progress at each failure (faultline agree; failures.trace_clock = work)\n");
  /* (by node: node n's first rank; one failure, one recovery, as the real node's) */
  for (long i = 0; i < a->failures; i++)
    fprintf(f, "%.17g, %ld\n", (double)iter[i] * t_iter,
            a->per_node > 1 ? rank[i] * a->per_node : (rank[i] % a->np) * degree + rank[i] / a->np);
  FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", trace, strerror(errno));
  snprintf(platform, sizeof platform, "platform.nodes=%ld", (a->np + a->failures) * degree);
  snprintf(strat, sizeof strat, "strategy.kind=%s", kind);
  snprintf(tr, sizeof tr, "failures.trace=%s", trace);
  /* the simulator: the calibrated job, the failures by progress, no repair (a dead process stays dead) */
  {
    char *x[] = {"--calibrated-job",
                 cal,
                 "--set",
                 strat,
                 "--set",
                 platform,
                 "--set",
                 "failures.model=trace",
                 "--set",
                 tr,
                 "--set",
                 "failures.trace_clock=work",
                 "--set",
                 "failures.repair=never",
                 "--set",
                 "run.events=none",
                 "--replicas",
                 "1",
                 "--db",
                 (char *)db,
                 "--quiet",
                 NULL};
    fl_agree_argv(a, argv_sim, (int)(sizeof argv_sim / sizeof argv_sim[0]), "simulate", x);
  }
  code = fl_agree_spawn(a, argv_sim);
  FL_CHECK(code == 0, code == 2 ? FL_ERR_INPUT : FL_ERR_IO, "agree: faultline simulate (%s) ended with status %d", kind,
           code);
  FL_TRY(fl_agree_last_row(db, "sim", &out->sim));
  /* the real engine: the same ranks killed as they start the same iterations */
  for (long i = 0; i < a->failures; i++) {
    snprintf(kills[i], sizeof kills[i], "%ld@%ld", rank[i], iter[i]);
    killv[i] = kills[i];
  }
  /* replica sets get spares round-robin: as many for each as there are failures, so that no set retires (a
   * retired set leaves the machine's cores to the others, which the simulator's nodes do not share) */
  FL_TRY(fl_agree_real(a, kind, NULL, killv, a->failures, a->failures * degree, db, 1, &out->real));
  /* two runs that saw different failures are not the same experiment: no ratio, and not within */
  if (out->sim.failures == out->real.failures)
    out->ratio = out->real.makespan / out->sim.makespan;
  out->ok =
      isfinite(out->ratio) && out->ratio >= 0.85 && out->ratio <= 1.15 && strcmp(out->real.status, "completed") == 0;
done:
  return rc;
}

/* The machine's 1-minute load average (*avg) and how many processes are running now, this one included (-1:
 * unknown), from /proc/loadavg. */
static long fl_agree_load(double *avg)
{
  long running = -1, total = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  *avg = NAN;
  if (f) {
    double l5, l15;
    if (fscanf(f, "%lf %lf %lf %ld/%ld", avg, &l5, &l15, &running, &total) != 5)
      running = -1;
    fclose(f);
  }
  return running;
}

static int fl_agree_cmp(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* Strategy `kind` set up for the real engine as agree runs it (a job of ranks, one copy of it when placed by node):
 * what it writes and how many copies, into *out; FL_ERR_INPUT naming --strategies and why otherwise. */
static fl_err fl_agree_kind(const fl_agree_opts *a, fl_scenario *sc, const char *kind, fl_agree_strat *out)
{
  fl_err rc = FL_OK;
  char set[96];
  fl_scenario *probe = NULL;
  fl_engine_caps caps;
  fl_strategy_run strat;
  snprintf(set, sizeof set, "strategy.kind=%s", kind);
  rc = fl_scenario_set(sc, set);
  if (rc == FL_OK) {
    FL_TRY(fl_scenario_replay(sc->text, sc->overrides, a->path, &probe));
    rc = fl_exec_setup(probe, a->np, &caps, &strat);
    fl_scenario_destroy(&probe);
    *out = (fl_agree_strat){
        .kind = kind, .levels = rc == FL_OK ? strat.levels : 0, .degree = rc == FL_OK ? strat.degree : 1};
    if (rc == FL_OK && a->per_node > 1 && strat.degree > 1)
      rc = fl_err_set(FL_ERR_INPUT,
                      "agree by node (mpi.ranks_per_node = %ld) compares strategies of one copy of the job; '%s' "
                      "runs %ld: leave it out of --strategies",
                      a->per_node, kind, (long)strat.degree);
    if (rc == FL_OK && caps.shape != FL_SHAPE_RANKS)
      rc = fl_err_set(FL_ERR_INPUT,
                      "agree compares the makespan of a job of ranks (the simulator's bsp model of the calibrated "
                      "job), and '%s' drives the grid world's tasks: run it with faultline run and faultline "
                      "simulate, and compare the rows with faultline report",
                      kind);
  }
  if (rc != FL_OK) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", fl_err_msg());
    rc = fl_err_set(FL_ERR_INPUT, "--strategies %s: %s", kind, msg);
  }
done:
  return rc;
}

/* The ratios' spread over the rounds, each its own calibration and failures: min, median, max and how many within. */
static void fl_agree_print_spread(const char *const *kinds, long nkinds, const double *ratios, long repeat)
{
  /* the spread over the rounds, each its own calibration and failures */
  printf("\n%-11s %8s %8s %8s %s\n", "strategy", "min", "median", "max", "within 0.85-1.15 (compared)");
  for (long k = 0; k < nkinds; k++) {
    double v[256];
    long n = 0, in = 0;
    for (long r = 0; r < repeat; r++)
      if (isfinite(ratios[k * repeat + r])) {
        v[n++] = ratios[k * repeat + r];
        in += v[n - 1] >= 0.85 && v[n - 1] <= 1.15;
      }
    qsort(v, (size_t)n, sizeof v[0], fl_agree_cmp);
    if (n)
      printf("%-11s %8.3f %8.3f %8.3f %ld of %ld (%ld of %ld rounds compared)\n", kinds[k], v[0],
             n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[n - 1], in, n, n, repeat);
    else
      printf("%-11s %8s %8s %8s none compared\n", kinds[k], "-", "-", "-");
  }
}

fl_err fl_agree_run(fl_agree_opts *opts, int *within_out)
{
  fl_agree_opts a = *opts;
  fl_scenario *sc = NULL;
  fl_err rc = FL_OK;
  long iter[FL_AGREE_MAX_FAILURES], rank[FL_AGREE_MAX_FAILURES], nkinds = 0;
  long kiter[32][FL_AGREE_MAX_FAILURES], krank[32][FL_AGREE_MAX_FAILURES]; /* each strategy's failures */
  fl_agree_strat kstrat[32];                                               /* and what it writes */
  char list[512], *save = NULL, *kind, db[4200], *kinds[32], kwhy[32][400] = {{0}};
  double *ratios = NULL; /* [kind * repeat + round] */
  int within = 1;
  long ran = 0; /* lines run in both engines (a strategy the run is too short for is not) */
  a.tmp[0] = '\0';
  *within_out = 0;
  FL_TRY(fl_agree_scenario(&a, &sc, &kstrat[0]));
  a.per_node = sc->ranks_per_node;
  FL_CHECK(a.per_node < 2 || a.failures <= a.np / a.per_node, FL_ERR_INPUT,
           "--failures %ld: at most one per node (--np %ld at mpi.ranks_per_node = %ld: %ld nodes)", a.failures, a.np,
           a.per_node, a.np / a.per_node);
  snprintf(db, sizeof db, "%s", a.db ? a.db : sc->db);
  snprintf(list, sizeof list, "%s", a.strategies ? a.strategies : FL_AGREE_DEFAULT);
  for (kind = strtok_r(list, ",", &save); kind; kind = strtok_r(NULL, ",", &save)) {
    FL_CHECK(nkinds < 32, FL_ERR_INPUT, "--strategies: at most 32");
    kinds[nkinds++] = kind;
    FL_TRY(fl_agree_kind(&a, sc, kind, &kstrat[nkinds - 1]));
  }
  FL_ALLOC(ratios, (size_t)(nkinds * a.repeat));
  FL_TRY(fl_agree_tmpdir(&a));
  for (long round = 0; round < a.repeat; round++) {
    fl_calib c;
    double load, lag;
    long running = fl_agree_load(&load); /* a loaded machine is not the one calibrated: said beside the figures */
    if (a.repeat > 1)
      printf("%sround %ld of %ld\n", round ? "\n" : "", round + 1, a.repeat);
    FL_TRY(fl_calib_measure(&a, sc, &c));
    /* how far a replica set falls behind the others with each failure, in iterations: detection, agreement,
     * restore, and the replay from its checkpoint (at most a checkpoint period) */
    lag = (c.detect + c.recovery + c.restore) / c.t_iter + (double)c.every;
    FL_TRY(fl_agree_draw(sc, &c, a.failures, round, 1, lag, iter, rank));
    if (a.per_node > 1)
      printf("faultline agree %s: %ld ranks on %ld nodes + %ld spare node%s%s%s, %ld node failures (node@iteration):",
             a.path, a.np, a.np / a.per_node, a.failures, a.failures == 1 ? "" : "s",
             a.launcher ? ", launched by " : "", a.launcher ? a.launcher : "", a.failures);
    else
      printf("faultline agree %s: %ld ranks + %ld spares (as many per replica set), %ld failures (rank@iteration):",
             a.path, a.np, a.failures, a.failures);
    for (long i = 0; i < a.failures; i++)
      printf(" %ld@%ld", rank[i], iter[i]);
    printf("\ncalibrated: %.4g s an iteration x %ld, buddy %.3g s, file %.3g s, detection %.3g s, recovery %.3g s, "
           "restore %.3g s\nload average %.2f over the last minute (this command's runs included), %ld processes "
           "running as the round began\n",
           c.t_iter, c.iterations, c.delta_buddy, c.delta_file, c.detect, c.recovery, c.restore, load, running);
    for (long k = 0; k < nkinds; k++) {
      long degree = kstrat[k].degree;
      if (degree == 1) {
        memcpy(kiter[k], iter, sizeof iter);
        memcpy(krank[k], rank, sizeof rank);
        kwhy[k][0] = '\0';
        continue;
      }
      /* replica sets: kills early enough for a lagging set to reach them (fl_agree_draw) */
      if (fl_agree_draw(sc, &c, a.failures, round, degree, lag, kiter[k], krank[k]) != FL_OK) {
        snprintf(kwhy[k], sizeof kwhy[k], "not run: %s", fl_err_msg());
        continue;
      }
      kwhy[k][0] = '\0';
      printf("%s:", kinds[k]);
      for (long i = 0; i < a.failures; i++)
        printf(" %ld@%ld", krank[k][i], kiter[k][i]);
      printf("\n");
    }
    printf("\n");
    printf("%-11s %12s %12s %7s %9s %11s %s\n", "strategy", "sim makespan", "real", "ratio", "failures", "rollbacks",
           "within 0.85-1.15");
    for (long k = 0; k < nkinds; k++) {
      fl_agree_line l;
      if (kwhy[k][0]) { /* reported with its reason, left out of the exit status (docs/real-mode.md) */
        ratios[k * a.repeat + round] = NAN;
        printf("%-11s %12s %12s %7s %9s %11s %s\n", kinds[k], "-", "-", "-", "-", "-", kwhy[k]);
        continue;
      }
      FL_TRY(fl_agree_strategy(&a, &c, &kstrat[k], round, kiter[k], krank[k], db, &l));
      ratios[k * a.repeat + round] = l.ratio;
      within &= l.ok;
      ran++;
      if (isfinite(l.ratio))
        printf("%-11s %11.3fs %11.3fs %7.3f %4ld/%-4ld %5ld/%-5ld %s\n", kinds[k], l.sim.makespan, l.real.makespan,
               l.ratio, l.sim.failures, l.real.failures, l.sim.interruptions, l.real.interruptions,
               l.ok ? "yes" : (strcmp(l.real.status, "completed") != 0 ? l.real.status : "no"));
      else
        printf("%-11s %11.3fs %11.3fs %7s %4ld/%-4ld %5ld/%-5ld %s\n", kinds[k], l.sim.makespan, l.real.makespan, "-",
               l.sim.failures, l.real.failures, l.sim.interruptions, l.real.interruptions,
               "not compared: the engines saw different failures");
      fflush(stdout);
    }
  }
  if (a.repeat > 1)
    fl_agree_print_spread((const char *const *)kinds, nkinds, ratios, a.repeat);
  for (long k = 0; k < nkinds; k++)
    if (kwhy[k][0])
      printf("\n%s was not run in the last round (%s); it is left out of the exit status", kinds[k], kwhy[k] + 9);
  if (ran == 0) {
    printf("\nno strategy was run in both engines: nothing agreed");
    within = 0;
  }
  printf("\nrows (mode sim and real) in %s: faultline report %s\n", db, db);
done:
  free(ratios);
  if (a.tmp[0])
    fl_remove_tree(a.tmp);
  fl_scenario_destroy(&sc);
  *within_out = within;
  return rc;
}
