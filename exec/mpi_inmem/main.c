/* main.c — faultline-mpi: a scenario run for real on MPI ranks under its strategy (policy/strategies, set up for
 * this engine by exec/engine.h: buddy memory, files, two levels, or nothing) with real fail-stop recovery onto
 * spare ranks. Launched by `faultline run` (mpirun with --enable-recovery) or by the
 * user's mpirun/srun. SimGrid is not linked here (it exports MPI_* symbols of its own: DESIGN.md).
 *
 * Applications: the seed's CG solve (app.kind = cg) and the grid world's value iteration (app.kind = gridworld),
 * both distributed by rows.
 *
 * usage: faultline-mpi SCENARIO.ini [--spares S] [--set section.key=value]... [--kill RANK@ITER]...
 *                      [--db FILE] [--out DIR]
 * The first (size - spares) world ranks are active; the others wait as spares. Each process that ends writes
 * DIR/rank-W.txt (its outcome, one line); the rank that holds role 0 at the end writes the run's row (mode real)
 * to the results database. Exit status: 0 solved, 2 bad input, 3 data lost (a rank and its checkpoint mirror
 * died, or no spare left), 1 otherwise. */
#include "app.h"
#include "cg_mpi.h"
#include "db.h"
#include "engine.h"
#include "fl_config.h"
#include "fm.h"
#include "grid_keys.h"
#include "gw_tasks.h"
#include "real_app.h"
#include "registries.h"
#include "rng.h"
#include "rt.h"
#include "scenario.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define FL_MAX_KILLS 64

/* `--kill RANK@init`: this process dies at start-up, before MPI_Init, so the others wait in MPI_Init for a peer that
 * never comes (what a node lost while a job starts does). `faultline run` names the ranks in FAULTLINE_KILL_AT_INIT;
 * Open MPI's launcher gives each process its rank in OMPI_COMM_WORLD_RANK before MPI_Init. */
static void fl_kill_at_init(void)
{
  const char *list = getenv("FAULTLINE_KILL_AT_INIT"), *me = getenv("OMPI_COMM_WORLD_RANK");
  char buf[1024], *save = NULL, *tok;
  if (!list || !me)
    return;
  snprintf(buf, sizeof buf, "%s", list);
  for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save))
    if (strcmp(tok, me) == 0)
      kill(getpid(), SIGKILL);
}

/* "RANK@ITER" (before that iteration) or "RANK@DURATION" (that much wall time after the run began, e.g. 2.5s) terms:
 * iter[i] = -1 and at_s[i] set for the latter. */
static int fl_parse_kills(const char *text, long *rank, long *iter, double *at_s, int *n)
{
  char buf[1024], *save = NULL, *tok;
  snprintf(buf, sizeof buf, "%s", text ? text : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@'), *end = NULL;
    if (!at || *n >= FL_MAX_KILLS)
      return -1;
    *at = '\0';
    rank[*n] = strtol(tok, &end, 10);
    if (*end || rank[*n] < 0)
      return -1;
    if (strcmp(at + 1, "init") == 0)
      continue; /* at start-up: done before MPI_Init (fl_kill_at_init), nothing to do later */
    iter[*n] = strtol(at + 1, &end, 10);
    at_s[*n] = -1.0;
    if (*end) {
      iter[*n] = -1;
      if (fl_units_duration(at + 1, 0, &at_s[*n]) != FL_OK || !(at_s[*n] >= 0))
        return -1;
    } else if (iter[*n] < 0) {
      return -1;
    }
    (*n)++;
  }
  return 0;
}

/* "NODE@ITER" / "NODE@TIME" node failures (mpi.kill_node), NODE a node's index in the placement (world rank /
 * ranks_per_node) or its host name: the terms that take this process's node become kills of this process, marked as
 * node failures. -1: a malformed term; -2: a node index no process has (*bad names it). */
static int fl_parse_node_kills(const char *text, int wrank, int wsize, long per_node, long *rank, long *iter,
                               double *at_s, unsigned char *is_node, int *n, char *bad, size_t badsize)
{
  char buf[1024], host[64] = "", *save = NULL, *tok;
  long nodes = (wsize + per_node - 1) / per_node;
  gethostname(host, sizeof host - 1);
  snprintf(buf, sizeof buf, "%s", text ? text : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@'), *end = NULL;
    long node, it;
    double s = -1.0;
    int mine;
    if (!at || at == tok || *n >= FL_MAX_KILLS)
      return -1;
    *at = '\0';
    it = strtol(at + 1, &end, 10);
    if (*end) {
      it = -1;
      if (fl_units_duration(at + 1, 0, &s) != FL_OK || !(s >= 0))
        return -1;
    } else if (it < 0 || end == at + 1) {
      return -1;
    }
    node = strtol(tok, &end, 10);
    if (!*end) {
      if (node < 0 || node >= nodes) {
        snprintf(bad, badsize, "%s", tok);
        return -2;
      }
      mine = wrank / per_node == node;
    } else {
      mine = strcmp(tok, host) == 0;
    }
    if (!mine)
      continue;
    rank[*n] = wrank;
    iter[*n] = it;
    at_s[*n] = s;
    is_node[*n] = 1;
    (*n)++;
  }
  return 0;
}

static void fl_write_outcome(const char *dir, const fl_rt *rt, const fl_cgm_result *res)
{
  char path[4096], message[sizeof res->message];
  FILE *f;
  if (!dir)
    return;
  /* one line: a library's message may hold line breaks (HDF5's error stack) */
  snprintf(message, sizeof message, "%s", res->message[0] ? res->message : "-");
  for (char *c = message; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  snprintf(path, sizeof path, "%s/rank-%d.txt", dir, rt->wrank);
  f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f,
          "rank %d role %d status %s iterations %ld checksum %016llx error %.17g residual %.3e rows %ld+%ld "
          "recoveries %d failures %d detect_s %.4f recover_s %.4f commits %ld file_commits %ld ckpt_bytes %.0f "
          "commit_s %.4f restore_s %.4f replay_s %.4f from_buddy %ld from_file %ld from_scratch %ld roles %d "
          "wall_s %.4f message %s\n",
          rt->wrank, rt->role, res->status, res->iterations, res->checksum, res->error_linf, res->residual, res->row0,
          res->nrows, rt->recoveries, rt->failures, rt->detect_s, rt->recover_s, res->drv.commits,
          res->drv.file_commits, res->drv.ckpt_bytes, res->drv.commit_s, res->drv.restore_s, res->drv.replay_s,
          res->drv.rollbacks[FL_LEVEL_BUDDY], res->drv.rollbacks[FL_LEVEL_FILE], res->drv.rollbacks[FL_LEVEL_SCRATCH],
          rt->nroles, res->drv.wall_s, message);
  fclose(f);
}

/* The applications this engine runs: the registry of apps/real_app.h. */
static const fl_real_app *const fl_real_apps[] = {
#define X(name) &fl_real_##name,
    FL_REAL_APPS(X)
#undef X
};

const fl_real_app *fl_real_app_find(const fl_app *app)
{
  for (size_t i = 0; i < sizeof fl_real_apps / sizeof fl_real_apps[0]; i++)
    if (fl_real_apps[i]->app == app)
      return fl_real_apps[i];
  return NULL;
}

int main(int argc, char **argv)
{
  fl_scenario *sc = NULL;
  fl_rt rt;
  const fl_app *app = NULL;
  const fl_real_app *real = NULL;
  int (*app_run)(fl_rt *, const fl_scenario *, const fl_driver_config *, fl_cgm_result *, fl_gwt_counts *) = NULL;
  int (*app_study)(fl_scenario *, fl_rt *, const fl_strategy_run *, const fl_driver_config *, const char *) = NULL;
  fl_err (*study_check)(const fl_scenario *, int) = NULL;
  fl_cgm_result res;
  fl_engine_caps caps;
  fl_strategy_run strat;
  fl_driver_config dc;
  fl_gwt_counts counts;
  char file_dir[4096];
  long kill_rank[FL_MAX_KILLS], kill_iter[FL_MAX_KILLS];
  double kill_at_s[FL_MAX_KILLS];
  unsigned char kill_is_node[FL_MAX_KILLS] = {0};
  char bad_node[64] = "", hosts_lost[1024] = "";
  const char *path = NULL, *out_dir = NULL;
  char *err = NULL;
  int wrank = 0, wsize = 1, nkill = 0, code = 0, have_rt = 0, lost_writer = 0, degree = 1, nroles = 1;
  int failures_given = 0;
  fl_evlog events;
  fl_err rc = FL_OK;

  fl_evlog_init(&events, 0);
  /* a rank ends with the launcher that started it (mpirun, itself ending with `faultline run`): never an orphan that
   * runs on unsupervised and writes a row later */
  if (getenv("FAULTLINE_JOB_ID")) {
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
      return 1;
  }
  fl_kill_at_init();
  rc = fl_registries_init(); /* the plugins' own keys join the scenario table */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  memset(&dc, 0, sizeof dc);
  memset(&counts, 0, sizeof counts);

  /* every rank reads the same input and so fails the same way; rank 0 speaks */
  for (int i = 1; i < argc && rc == FL_OK; i++) {
    char buf[512];
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      if (!sc)
        break;
      rc = fl_scenario_set(sc, argv[++i]);
    } else if (strcmp(argv[i], "--spares") == 0 && i + 1 < argc && sc) {
      snprintf(buf, sizeof buf, "mpi.spares=%s", argv[++i]);
      rc = fl_scenario_set(sc, buf);
    } else if (strcmp(argv[i], "--kill") == 0 && i + 1 < argc && sc) {
      snprintf(buf, sizeof buf, "mpi.kill=%s%s%s", sc->kill ? sc->kill : "", sc->kill ? " " : "", argv[++i]);
      rc = fl_scenario_set(sc, buf);
    } else if (strcmp(argv[i], "--kill-node") == 0 && i + 1 < argc && sc) {
      snprintf(buf, sizeof buf, "mpi.kill_node=%s%s%s", sc->kill_node ? sc->kill_node : "", sc->kill_node ? " " : "",
               argv[++i]);
      rc = fl_scenario_set(sc, buf);
    } else if (strcmp(argv[i], "--failures-given") == 0) {
      failures_given = 1; /* faultline run --failures sim: the kills are given, nothing drawn here */
    } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc && sc) {
      snprintf(buf, sizeof buf, "run.db=%s", argv[++i]);
      rc = fl_scenario_set(sc, buf);
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (!path && argv[i][0] != '-') {
      path = argv[i];
      rc = fl_scenario_load(path, &sc);
    } else {
      rc = fl_err_set(FL_ERR_INPUT, "faultline-mpi: unknown or misplaced argument '%s' (scenario first)", argv[i]);
    }
  }
  if (rc == FL_OK && !sc)
    rc = fl_err_set(FL_ERR_INPUT, "usage: faultline-mpi SCENARIO.ini [--spares S] [--set k=v]... [--kill R@I]... "
                                  "[--db FILE] [--out DIR]");
  if (rc == FL_OK)
    rc = fl_app_get(sc, FL_APP_REAL, &app);
  if (rc == FL_OK && (real = fl_real_app_find(app)) != NULL) {
    app_run = real->run;
    app_study = real->study;
    study_check = real->study_check;
  }
  if (rc == FL_OK && !app_run && !app_study)
    rc = fl_scenario_fail(sc, "app", "kind",
                          "the app registry lists '%s' for the real engine, which has no entry for it "
                          "(exec/mpi_inmem/apps/real_app.h FL_REAL_APPS)",
                          app->name);
  if (rc == FL_OK && (app->flags & FL_APP_REAL_SQUARE) && fl_grid_options(sc)->rows != fl_grid_options(sc)->cols)
    rc = fl_scenario_fail(sc, "app", "grid", "%s needs a square grid", app->name);
  if (rc == FL_OK && sc->spares >= wsize)
    rc = fl_scenario_fail(sc, "mpi", "spares", "%ld spares leave no active rank of %d processes", sc->spares, wsize);
  if (rc == FL_OK) { /* the strategy, set up for this engine: refused here if it cannot run */
    rc = fl_exec_setup(sc, wsize - sc->spares, &caps, &strat);
    degree = rc == FL_OK ? (int)strat.degree : 1;
    if (rc == FL_OK && (wsize - sc->spares) % degree)
      rc = fl_scenario_fail(sc, "strategy", "degree", "%ld active processes are not %d copies of whole ranks",
                            (long)wsize - sc->spares, degree);
  }
  nroles = (wsize - (int)sc->spares) / degree;
  if (rc == FL_OK && nroles > fl_grid_options(sc)->rows)
    rc = fl_scenario_fail(sc, "mpi", "spares", "%ld spares leave %d active ranks of %d processes for a %ld-row grid",
                          sc->spares, nroles, wsize, fl_grid_options(sc)->rows);
  if (rc == FL_OK && sc->mirror_pair && nroles % 2)
    rc = fl_scenario_fail(sc, "mpi", "mirror", "pair needs an even number of active ranks (%d); use ring", nroles);
  if (rc == FL_OK && fl_parse_kills(sc->kill, kill_rank, kill_iter, kill_at_s, &nkill) != 0)
    rc = fl_scenario_fail(sc, "mpi", "kill", "expected blank-separated RANK@ITER or RANK@TIME terms, e.g. 1@40 3@2.5s");
  if (rc == FL_OK) {
    /* placed by node: the active ranks and the spares whole nodes, a buddy copy on another node */
    long per = sc->ranks_per_node;
    int r = fl_parse_node_kills(sc->kill_node, wrank, wsize, per, kill_rank, kill_iter, kill_at_s, kill_is_node, &nkill,
                                bad_node, sizeof bad_node);
    if (r == -1)
      rc = fl_scenario_fail(sc, "mpi", "kill_node", "expected blank-separated NODE@ITER or NODE@TIME terms, e.g. 1@40");
    else if (r == -2)
      rc = fl_scenario_fail(sc, "mpi", "kill_node", "no node %s: the run's %d processes at %ld a node are nodes 0..%ld",
                            bad_node, wsize, per, (wsize + per - 1) / per - 1);
    else if (per > 1 && ((wsize - sc->spares) % per || sc->spares % per))
      rc = fl_scenario_fail(sc, "mpi", "ranks_per_node",
                            "%ld: the %ld active processes and %ld spares must fill whole nodes", per,
                            (long)wsize - sc->spares, sc->spares);
    else if (per > 1 && degree == 1 && (strat.levels & FL_LEVEL_BIT(FL_LEVEL_BUDDY)) && nroles <= per)
      rc = fl_scenario_fail(sc, "mpi", "ranks_per_node",
                            "%ld: the %d ranks fit one node, and a buddy copy must go to another node", per, nroles);
    else if (per > 1 && sc->mirror_pair && nroles % (2 * per))
      rc = fl_scenario_fail(sc, "mpi", "mirror", "pair at %ld ranks a node needs an even number of nodes (%d ranks)",
                            per, nroles);
  }
  if (rc == FL_OK && study_check)
    rc = study_check(sc, nkill);
  dc.fail_at_s = -1;
  if (rc == FL_OK && sc->time_scale > 0 && !failures_given && wrank < wsize - sc->spares) {
    fl_fm *fm = NULL;
    rc = fl_fm_create(sc, &fm);
    if (rc == FL_OK && fl_fm_is_renewal(fm)) {
      gsl_rng *r = NULL;
      /* placed by node, a node's time to failure, drawn once (its own stream: every process of the node draws the
       * same), fails the whole node; else each process's own */
      const long per = sc->ranks_per_node, unit = per > 1 ? wrank / per : wrank;
      rc = fl_rng_create(sc->seed, 1000000u + (uint64_t)unit, FL_STREAM_FAILURES, &r);
      if (rc == FL_OK) {
        double t = fl_fm_draw_residual(fm, r) / sc->time_scale;
        if (per > 1 && nkill < FL_MAX_KILLS) {
          kill_rank[nkill] = wrank;
          kill_iter[nkill] = -1;
          kill_at_s[nkill] = t;
          kill_is_node[nkill++] = 2; /* drawn, not asked: no note when the run ends first */
        } else {
          dc.fail_at_s = t;
        }
        gsl_rng_free(r);
      }
    }
    fl_fm_destroy(&fm);
  }
  if (rc != FL_OK) {
    if (wrank == 0)
      fprintf(stderr, "faultline-mpi: %s\n", fl_err_msg());
    code = rc == FL_ERR_INPUT ? 2 : 1;
    goto done;
  }

  if (fl_rt_init(&rt, nroles, degree, sc->mirror_pair ? FL_RT_MIRROR_PAIR : FL_RT_MIRROR_RING, sc->mpi_timeout_s) !=
      0) {
    fprintf(stderr, "faultline-mpi: rank %d: cannot set up the runtime\n", wrank);
    code = 1;
    goto done;
  }
  have_rt = 1;
  rt.per_node = (int)sc->ranks_per_node;
  if (out_dir) {
    /* the heartbeat `faultline run` watches (mpi.watchdog): refreshed while this rank makes progress */
    char beat[4096];
    snprintf(beat, sizeof beat, "%s/beat-%d", out_dir, wrank);
    rt.beat_fd = open(beat, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (rt.beat_fd >= 0) {
      char pid[128];
      char host[64] = "";
      int n;
      gethostname(host, sizeof host - 1);
      n = snprintf(pid, sizeof pid, "%ld %s\n", (long)getpid(), host); /* the watchdog kills by it, on its host */
      if (write(rt.beat_fd, pid, (size_t)n) != n) {
        close(rt.beat_fd);
        rt.beat_fd = -1;
      }
    }
  }
  dc.strat = &strat;
  fl_evlog_init(&events, sc->events_all); /* the row writer's timeline goes in with its row */
  dc.events = sc->events_all ? &events : NULL;
  dc.checkpoint_every = sc->checkpoint_every;
  dc.kill_rank = kill_rank;
  dc.kill_iter = kill_iter;
  dc.kill_at_s = kill_at_s;
  dc.shrink = sc->shrink;
  dc.file_store = sc->checkpoint_hdf5 ? "hdf5" : "file";
  dc.nkill = nkill;
  dc.kill_is_node = kill_is_node;
  dc.node_kill_cmd = getenv("FAULTLINE_NODE_KILL");
  if (sc->checkpoint_dir || out_dir) {
    snprintf(file_dir, sizeof file_dir, "%s", sc->checkpoint_dir ? sc->checkpoint_dir : out_dir);
    if (!sc->checkpoint_dir)
      strncat(file_dir, "/ckpt", sizeof file_dir - strlen(file_dir) - 1);
    dc.file_dir = file_dir;
  }
  if (app_study) { /* lossy-cg: compressed checkpoints, global / local / improved recovery, a row per solve */
    code = app_study(sc, &rt, &strat, &dc, out_dir);
    goto done;
  }
  if (app_run(&rt, sc, &dc, &res, &counts) != 0) {
    fprintf(stderr, "faultline-mpi: rank %d: out of memory\n", wrank);
    code = 1;
    goto done;
  }
  if (rt.degree > 1 && strcmp(res.status, "lost") == 0 && res.drv.lost_kind != FL_LOST_ERROR) {
    /* replication: this replica set cannot go on (no spare left); the other copies carry the job. An error of
     * the environment (a checkpoint that cannot be written: disk full, a read-only directory) is no failure that
     * replication tolerates: it ends the job as under every other strategy (error, exit 1, the system's reason),
     * and the other sets are told to stop */
    res.status = "retired";
    fprintf(stderr, "faultline-mpi: replica set %d retires (%s); the other copies go on\n", rt.set, res.message);
  }
  fl_write_outcome(out_dir, &rt, &res);
  if (strcmp(res.status, "dead") != 0)
    fl_rt_leave(&rt); /* replication: the other sets' census does not take my end (finished, retired, stopped by
                       * an error, a spare released) for a death */

  if (strcmp(res.status, "lost") == 0) {
    int first_alive = 0;
    while (first_alive < wsize && !rt.alive[first_alive])
      first_alive++;
    /* the survivors agree on why: one of them, the first holder of a role, says it and writes the row; each
     * holder releases the spares first, so that they end too instead of taking the holders that stop for dead
     * ones (a spare never writes the row of a job that stopped) */
    lost_writer = rt.wrank == first_alive && rt.role >= 0;
    if (rt.role >= 0)
      fl_rt_release_spares(&rt);
    if (lost_writer)
      fprintf(stderr, "faultline-mpi: %s; the job stops\n", res.message);
    /* stopped cleanly (no spare, data lost): 3; stopped by an error of the environment (a disk full): 1 */
    code = res.drv.lost_kind == FL_LOST_NO_SPARE || res.drv.lost_kind == FL_LOST_DATA ? 3 : 1;
  } else if (strcmp(res.status, "dead") == 0) {
    code = 1;
  }
  if (strcmp(res.status, "retired") == 0) {
    /* a replica set that retired says nothing more: the job's row is the set that finishes */
  } else if (lost_writer || (code == 0 && rt.role == 0)) {
    /* a row for every run that ends: completed, or data_lost (a rank and every copy of its state gone) */
    fl_db *db = NULL;
    fl_db_run row;
    char every[64];
    const fl_driver_result *dr = &res.drv;
    char note[1024];
    double recoveries_s = (double)rt.recoveries * (dr->detect_s + dr->recover_s);
    /* replication: the other sets' failures counted before they are told to stop */
    int job_failures = rt.degree > 1 ? fl_rt_job_failures(&rt) : rt.failures;
    if (!lost_writer)
      fl_rt_release_spares(&rt); /* (the lost path released them above) */
    fl_rt_fence_dead(&rt);
    fl_db_run_real(&row, sc, lost_writer ? fl_lost_status(res.drv.lost_kind) : res.status, nkill);
    row.strategy = strat.ops->name;
    row.interval_rule = fl_exec_interval_rule(sc, &strat, every, sizeof every);
    row.interval_s = sc->checkpoint_every > 0 || !strat.levels ? NAN : fl_strat_interval(&strat);
    row.checkpoint_cost_s = dr->commits ? dr->commit_s / (double)dr->commits : NAN;
    row.nodes = nroles;     /* the job's ranks (fewer at the end after a shrink: the outcome files; each a set of copies
                             * under replication) */
    row.job_id = rt.job_id; /* one row per job (replica sets finishing together); `faultline run` finds it by it */
    row.platform_nodes = row.job_nodes = wsize;
    if (rt.per_node > 1) /* placed by node: node-hours charge nodes, as the simulator's (a rank a node) do */
      row.platform_nodes = row.job_nodes = (wsize + rt.per_node - 1) / rt.per_node;
    row.makespan_s = dr->wall_s;
    /* useful work: what is left of the makespan once checkpoints, detection, recovery, restore and replay are
     * taken out (the slowest role's figures) — the simulator's meaning (docs/results.md) */
    row.work_s = dr->wall_s - dr->commit_s - recoveries_s - dr->restore_s - dr->replay_s;
    row.lost_work_s = dr->replay_s;
    row.restart_time_s = dr->restore_s;
    row.failures = job_failures; /* replication: every set's */
    row.hosts_used = fl_rt_hosts_used(&rt);
    if (rt.degree == 1) { /* the nodes lost, by name; placed by node, a failure is a node's */
      int lost_nodes = fl_rt_nodes_lost(&rt, hosts_lost, sizeof hosts_lost);
      row.hosts_lost = lost_nodes ? hosts_lost : NULL;
      if (rt.per_node > 1)
        row.failures = lost_nodes;
    }
    {
      /* a kill the run ended before: said, and in the row's note (the row is a run without it, not with it) */
      size_t used;
      snprintf(note, sizeof note, "%s", dr->note);
      used = strlen(note);
      for (int i = 0; i < nkill && !lost_writer; i++) {
        int iter_kill = kill_iter[i] >= 0,
            missed = iter_kill ? kill_iter[i] >= res.iterations : kill_at_s[i] > 0 && kill_at_s[i] > dr->wall_s;
        char what[160];
        if (!missed || kill_is_node[i] == 2)
          continue;
        if (kill_is_node[i] && iter_kill)
          snprintf(what, sizeof what, "--kill-node %s@%ld did not happen: the solve ended at iteration %ld",
                   rt.hosts[wrank], kill_iter[i], res.iterations);
        else if (kill_is_node[i])
          snprintf(what, sizeof what, "--kill-node %s@%gs did not happen: the solve ended after %.3g s",
                   rt.hosts[wrank], kill_at_s[i], dr->wall_s);
        else if (iter_kill)
          snprintf(what, sizeof what, "--kill %ld@%ld did not happen: the solve ended at iteration %ld", kill_rank[i],
                   kill_iter[i], res.iterations);
        else
          snprintf(what, sizeof what, "--kill %ld@%gs did not happen: the solve ended after %.3g s", kill_rank[i],
                   kill_at_s[i], dr->wall_s);
        fprintf(stderr, "faultline-mpi: %s\n", what);
        snprintf(note + used, sizeof note - used, "%s%s", used ? "; " : "", what);
        used = strlen(note);
      }
      row.note = note[0] ? note : NULL;
    }
    row.platform_failures = row.failures;
    row.interruptions = rt.recoveries;
    row.checkpoints = dr->commits;
    row.checkpoint_time_s = dr->commit_s;
    row.wall_s = dr->wall_s;
    row.iterations = res.iterations;
    row.converged_at = res.converged ? res.iterations : -1;
    row.error_linf = res.error_linf;
    if (lost_writer) {
      /* the job stopped: no answer, so no error and no iteration count to speak of, and no useful work (the
       * simulator's failed rows are no more a result than this) */
      row.iterations = row.converged_at = -1;
      row.error_linf = NAN;
      row.work_s = 0.0;
      row.lost_work_s = NAN;
    }
    row.detect_time_s = rt.recoveries ? dr->detect_s : NAN;
    row.recovery_time_s = rt.recoveries ? dr->recover_s : NAN;
    row.checkpoint_bytes = dr->ckpt_bytes * rt.nroles;
    row.commit_time_s = dr->commits ? dr->commit_s / (double)dr->commits : NAN;
    if (strat.caps->shape == FL_SHAPE_TASKS) { /* the grid world as tasks: what became of the failed ones */
      fl_strategy_row sr;
      fl_strat_row(&strat, sc, &sr);
      row.policy = sr.policy;
      row.weights = sr.weights;
      row.error_budget = sr.error_budget;
      row.tasks_replicated = counts.replicated;
      row.tasks_substituted = counts.substituted;
      row.tasks_stale = counts.stale;
      row.error_spent = counts.error_spent;
      row.complete_iterations = res.iterations - counts.stale_sweeps;
      if (row.policy) {
        row.policy_solver = strat.decided.solver;
        row.policy_time_s = strat.decided.solve_time_s;
        row.policy_gap = strat.decided.worst_gap;
        row.policy_objective = strat.decided.objective;
      }
    }
    if (fl_db_open(sc->db, &db) != FL_OK || fl_db_insert_run(db, &row, &events, NULL) != FL_OK) {
      fprintf(stderr, "faultline-mpi: %s\n", fl_err_msg());
      if (!lost_writer)
        code = 1;
    }
    fl_db_close(&db);
  }
done:
  free(err);
  fl_evlog_free(&events);
  fl_scenario_destroy(&sc);
  if (have_rt)
    fl_rt_finalize(&rt);
  fflush(NULL);
  /* no MPI_Finalize: it is collective and may wait for dead ranks; mpirun --enable-recovery accepts the exit */
  _exit(code);
}
