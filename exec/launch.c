/* launch.c — `faultline run`: the real run's launcher (launch.h). It checks the scenario for the real engine, starts
 * faultline-mpi under mpirun --enable-recovery in a process group of its own, passes the job its name, watches the
 * ranks' heartbeats (the watchdog, the start-up limit, processes left after the job's row is written), forwards
 * signals, and takes the verdict and the exit status from the job's one row. */
#include "launch.h"

#include "app.h"
#include "cleanup.h"
#include "db.h"
#include "engine.h"
#include "fm.h"
#include "grid_keys.h"
#include "progress.h"
#include "scenario.h"
#include "source.h"
#include "units.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One outcome line of faultline-mpi (DIR/rank-W.txt). */
typedef struct fl_outcome {
  int rank, role;
  char status[16], message[256];
  long iterations, commits;
  double error, detect_s, recover_s;
  int recoveries, roles; /* roles: active at the end (fewer than --np after a shrink; 0: not said) */
} fl_outcome;

static int fl_read_outcome(const char *path, fl_outcome *o)
{
  FILE *f = fopen(path, "r");
  char line[2048], *msg;
  int ok;
  if (!f)
    return -1;
  ok = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  if (!ok)
    return -1;
  memset(o, 0, sizeof *o);
  if (sscanf(line, "rank %d role %d status %15s iterations %ld", &o->rank, &o->role, o->status, &o->iterations) != 4)
    return -1;
  if ((msg = strstr(line, " error ")))
    o->error = strtod(msg + 7, NULL);
  if ((msg = strstr(line, " recoveries ")))
    o->recoveries = atoi(msg + 12);
  if ((msg = strstr(line, " commits ")))
    o->commits = atol(msg + 9);
  if ((msg = strstr(line, " roles ")))
    o->roles = atoi(msg + 7);
  if ((msg = strstr(line, " message "))) {
    snprintf(o->message, sizeof o->message, "%s", msg + 9);
    o->message[strcspn(o->message, "\n")] = '\0';
  }
  return 0;
}

/* Check "RANK@ITER" terms (blank- or comma-separated) against the processes of the run. */
static fl_err fl_run_check_kills(const char *origin, const char *text, long procs)
{
  fl_err rc = FL_OK;
  char buf[1024], *save = NULL, *tok;
  snprintf(buf, sizeof buf, "%s", text ? text : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@');
    double r, it;
    FL_CHECK(at != NULL, FL_ERR_INPUT, "%s '%s': expected RANK@ITER", origin, tok);
    *at = '\0';
    FL_CHECK(strcmp(at + 1, "init") == 0 || (fl_units_number(tok, 1, &r) == FL_OK && r >= 0 &&
                                             ((fl_units_number(at + 1, 1, &it) == FL_OK && it >= 0) ||
                                              (fl_units_duration(at + 1, 0, &it) == FL_OK && it >= 0))),
             FL_ERR_INPUT, "%s '%s@%s': expected RANK@ITER or RANK@TIME (whole numbers >= 0, a duration such as 2.5s)",
             origin, tok, at + 1);
    if (strcmp(at + 1, "init") == 0) { /* at start-up (before MPI_Init) */
      FL_CHECK(fl_units_number(tok, 1, &r) == FL_OK && r >= 0 && r < (double)procs, FL_ERR_INPUT,
               "%s '%s@init': no process %s (the run has processes 0..%ld: --np plus spares)", origin, tok, tok,
               procs - 1);
      continue;
    }
    FL_CHECK(r < (double)procs, FL_ERR_INPUT,
             "%s '%s@%s': no process %s (the run has processes 0..%ld: --np plus spares)", origin, tok, at + 1, tok,
             procs - 1);
  }
done:
  return rc;
}

/* The status of job `job_id`'s row in the scenario's results file, or "" when there is none. */
static void fl_run_row_status(const fl_scenario *sc, const char *job_id, char *out, size_t size)
{
  fl_db *db = NULL;
  fl_db_run r;
  char key[160];
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  if (access(sc->db, F_OK) != 0 || fl_db_open_readonly(sc->db, &db) != FL_OK)
    return;
  memset(&r, 0, sizeof r);
  r.mode = "real";
  r.scenario_text = sc->text;
  r.job_id = job_id;
  fl_db_row_key(&r, key, sizeof key);
  if (sqlite3_prepare_v2(fl_db_sqlite(db), "SELECT status FROM runs WHERE row_key = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  fl_db_close(&db);
}

/* Check "NODE@ITER" / "NODE@TIME" terms: NODE an index below the run's node count, or a host name. */
static fl_err fl_run_check_node_kills(const char *origin, const char *text, long nodes, long iterations)
{
  fl_err rc = FL_OK;
  char buf[1024], *save = NULL, *tok;
  snprintf(buf, sizeof buf, "%s", text ? text : "");
  for (tok = strtok_r(buf, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@'), *end = NULL;
    double it, t;
    long node;
    FL_CHECK(at != NULL && at != tok, FL_ERR_INPUT, "%s '%s': expected NODE@ITER or NODE@TIME", origin, tok);
    *at = '\0';
    FL_CHECK((fl_units_number(at + 1, 1, &it) == FL_OK && it >= 0 && it == floor(it)) ||
                 (fl_units_duration(at + 1, 0, &t) == FL_OK && t >= 0),
             FL_ERR_INPUT, "%s '%s@%s': '%s' is neither an iteration nor a time (e.g. 40, 2.5s)", origin, tok, at + 1,
             at + 1);
    FL_CHECK(!(fl_units_number(at + 1, 1, &it) == FL_OK && it >= (double)iterations), FL_ERR_INPUT,
             "%s '%s@%s': iteration %s never comes: the run stops at app.iterations = %ld", origin, tok, at + 1, at + 1,
             iterations);
    node = strtol(tok, &end, 10);
    FL_CHECK(*end || (node >= 0 && node < nodes), FL_ERR_INPUT,
             "%s '%s@%s': no node %s (the run's nodes are 0..%ld: its processes at mpi.ranks_per_node a node)", origin,
             tok, at + 1, tok, nodes - 1);
  }
done:
  return rc;
}

/* --failures sim:R: the simulator's own failure draws (the failure source of replica R: the scenario's law, seed
 * and start, the job's `nodes` active nodes, never repaired) replayed on the real nodes: each failure of node n at
 * simulated time t becomes `n@Ts`, T = t / mpi.time_scale, in `terms`. At most `max` failures (the spares and one
 * more: after that the job has stopped), none later than a day of real time. Returns how many. */
static fl_err fl_run_drawn_failures(const fl_scenario *sc, long replica, long nodes, long max, char *terms, size_t size,
                                    long *n)
{
  fl_err rc = FL_OK;
  fl_fm *fm = NULL;
  fl_fsrc *src = NULL;
  fl_fsrc_config cfg;
  size_t len = 0;
  double t;
  long node;
  fl_fsrc_kind kind;
  *n = 0;
  terms[0] = '\0';
  FL_CHECK(sc->time_scale > 0, FL_ERR_INPUT,
           "--failures sim: needs mpi.time_scale > 0, the simulated seconds a real second stands for");
  FL_TRY(fl_fm_create(sc, &fm));
  FL_CHECK(fl_fm_is_renewal(fm), FL_ERR_INPUT,
           "--failures sim: failures.model = %s is not drawn (a trace or a log is replayed as given)", sc->model);
  cfg = (fl_fsrc_config){.fm = fm,
                         .nodes = nodes,
                         .repair_s = INFINITY,
                         .start = sc->start,
                         .seed = sc->seed,
                         .replica = (uint64_t)replica};
  FL_TRY(fl_fsrc_create(&cfg, &src));
  while (*n < max && fl_fsrc_next(src, &t, &node, &kind)) {
    int k;
    if (kind != FL_FSRC_FAILURE)
      continue;
    if (t / sc->time_scale > 86400.0)
      break;
    k = snprintf(terms + len, size - len, "%s%ld@%.6fs", len ? " " : "", node, t / sc->time_scale);
    if (k < 0 || (size_t)k >= size - len)
      break;
    len += (size_t)k;
    (*n)++;
  }
done:
  fl_fsrc_destroy(&src);
  fl_fm_destroy(&fm);
  return rc;
}

/* The kills together (`text`: every RANK@ITER / RANK@TIME term of mpi.kill and --kill, already checked one by
 * one): an iteration past the run's last one never comes; a spare (rank >= `active`) iterates only once it has
 * taken over a role, which needs as many deaths before as spares before it (they take over in rank order), so a
 * kill of spare j at iteration i needs j + 1 kills at iterations before i. Kills by time are left as given. */
static fl_err fl_run_check_kill_plan(const char *text, long active, long iterations)
{
  fl_err rc = FL_OK;
  char buf[4096], *save = NULL, *tok;
  long rank[256], iter[256];
  int n = 0;
  snprintf(buf, sizeof buf, "%s", text);
  for (tok = strtok_r(buf, " \t,", &save); tok && n < 256; tok = strtok_r(NULL, " \t,", &save)) {
    char *at = strchr(tok, '@');
    double r, it;
    if (!at)
      continue;
    *at = '\0';
    if (fl_units_number(tok, 1, &r) != FL_OK || fl_units_number(at + 1, 1, &it) != FL_OK)
      continue; /* a kill by time */
    rank[n] = (long)r;
    iter[n++] = (long)it;
    FL_CHECK(iterations <= 0 || (long)it < iterations, FL_ERR_INPUT,
             "--kill '%s@%s': iteration %s never comes: the run stops at app.iterations = %ld", tok, at + 1, at + 1,
             iterations);
  }
  for (int k = 0; k < n; k++) {
    int before = 0;
    if (rank[k] < active)
      continue;
    for (int j = 0; j < n; j++)
      before += iter[j] < iter[k];
    FL_CHECK(before >= rank[k] - active + 1, FL_ERR_INPUT,
             "--kill '%ld@%ld': rank %ld is a spare (the job's ranks are 0..%ld); it iterates only after it has taken "
             "over a role, which needs %ld kill%s before iteration %ld (there %s %d)",
             rank[k], iter[k], rank[k], active - 1, rank[k] - active + 1, rank[k] - active + 1 == 1 ? "" : "s", iter[k],
             before == 1 ? "is" : "are", before);
  }
done:
  return rc;
}

/* Outcome files of an earlier run in DIR would be read as this run's: refuse such a directory. */
static int fl_run_dir_has_outcomes(const char *dir, long procs)
{
  char p[4200];
  for (long w = 0; w < procs + 64; w++) {
    snprintf(p, sizeof p, "%s/rank-%ld.txt", dir, w);
    if (access(p, F_OK) == 0)
      return 1;
  }
  return 0;
}

/* Signals that end `faultline run` are passed to mpirun, which ends its ranks; then run cleans up and ends by the
 * same signal. Static: the handler can reach nothing else. */
static volatile sig_atomic_t fl_run_child_pid, fl_run_signal;
static void fl_run_forward(int sig)
{
  if (!fl_run_signal)
    fl_run_signal = sig;
  if (fl_run_child_pid > 0)
    kill(-(pid_t)fl_run_child_pid, sig); /* mpirun and its ranks: their own process group */
}

/* The job's row written by `run` itself, where no process of the job wrote one: its status, the time it ran, no
 * useful work. */
static fl_err fl_run_write_row(const fl_scenario *sc, const char *status, int kills, const char *strategy,
                               const char *job_id, long np, long procs, double run_wall)
{
  fl_err rc = FL_OK;
  fl_db *db = NULL;
  fl_db_run row;
  fl_db_run_real(&row, sc, status, kills);
  row.strategy = strategy;
  row.job_id = job_id;
  row.nodes = np;
  row.platform_nodes = row.job_nodes = procs;
  row.work_s = 0;
  row.makespan_s = run_wall;
  row.wall_s = run_wall;
  FL_TRY(fl_db_open(sc->db, &db));
  FL_TRY(fl_db_insert_run(db, &row, NULL, NULL));
done:
  fl_db_close(&db);
  return rc;
}

/* A helper that outlives us: it waits on a pipe whose only writer is this process, and when that closes — at our
 * end, whichever way it comes, SIGKILL included — removes the run's MPI shared-memory directory and its temporary
 * output directory (both already gone after a normal end). Signals meant for the job leave it alone. Best effort:
 * without a pipe or a fork, the normal end still removes both. */
static int fl_run_reaper(const char *shmdir, const char *tmpout)
{
  int fds[2];
  pid_t pid;
  if (pipe(fds) != 0)
    return -1;
  pid = fork();
  if (pid == 0) {
    char c;
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    close(fds[1]);
    for (int fd = 3; fd < 1024; fd++) /* nothing of ours held open: the pipe's write end must be ours alone */
      if (fd != fds[0])
        close(fd);
    for (;;) {
      ssize_t n = read(fds[0], &c, 1);
      if (n == 0 || (n < 0 && errno != EINTR))
        break;
    }
    sleep(1); /* mpirun and the ranks end on our end (their parent-death signals): let them go first */
    if (shmdir && shmdir[0])
      fl_remove_tree(shmdir);
    if (tmpout && tmpout[0])
      fl_remove_tree(tmpout);
    _exit(0);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return -1;
  }
  (void)fcntl(fds[1], F_SETFD, FD_CLOEXEC); /* mpirun must not hold it: only our end closes it */
  return fds[1];                            /* closed at our end: the helper wakes, finds nothing left, exits */
}

/* SIGKILL mpirun's process group and every rank whose heartbeat file names its pid (Open MPI puts each rank in a
 * process group of its own). */
static int fl_run_via_salloc; /* the child is salloc, mpirun its child (--launcher slurm outside an allocation) */
static double fl_run_salloc_asked_at; /* when salloc's mpirun was ended (0: not yet) */

/* SIGKILL every descendant of `root` (not root itself): mpirun's ranks and daemons, and under salloc mpirun and the
 * sruns it started, which would otherwise outlive it (in process groups of their own) waiting for a lost node. */
static void fl_run_kill_descendants(pid_t root)
{
  long *pid = NULL, *ppid = NULL;
  unsigned char *mark = NULL;
  size_t n = 0, cap = 0;
  int grew = 1;
  char p[64], stat[512];
  DIR *proc = opendir("/proc");
  for (struct dirent *e; proc && (e = readdir(proc));) {
    long id = atol(e->d_name), pp = 0;
    FILE *f;
    if (id <= 1)
      continue;
    snprintf(p, sizeof p, "/proc/%ld/stat", id);
    if (!(f = fopen(p, "r")))
      continue;
    {
      const char *paren;
      int ok = fgets(stat, sizeof stat, f) && (paren = strrchr(stat, ')')) && sscanf(paren + 1, " %*c %ld", &pp) == 1;
      fclose(f);
      if (!ok)
        continue;
    }
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 1024;
      long *a = realloc(pid, nc * sizeof *a), *b = a ? realloc(ppid, nc * sizeof *b) : NULL;
      if (a)
        pid = a;
      if (!a || !b)
        break;
      ppid = b;
      cap = nc;
    }
    pid[n] = id;
    ppid[n++] = pp;
  }
  if (proc)
    closedir(proc);
  mark = calloc(n ? n : 1, 1);
  while (mark && grew) { /* a process whose parent is root or marked is marked, until nothing changes */
    grew = 0;
    for (size_t i = 0; i < n; i++) {
      if (mark[i])
        continue;
      int in = ppid[i] == (long)root;
      for (size_t j = 0; j < n && !in; j++)
        in = mark[j] && pid[j] == ppid[i];
      if (in)
        mark[i] = grew = 1;
    }
  }
  for (size_t i = 0; mark && i < n; i++)
    if (mark[i])
      kill((pid_t)pid[i], SIGKILL);
  free(mark);
  free(pid);
  free(ppid);
}

static void fl_run_kill_all(pid_t mpirun, const char *dir, long procs)
{
  char p[4200], here[64] = "";
  /* mpirun's own descendants first (a rank still in MPI_Init has written no heartbeat file to find it by) */
  fl_run_kill_descendants(mpirun);
  if (fl_run_via_salloc) {
    /* salloc ends with its command (mpirun, just killed) and gives the allocation back: it is given 5 s to, since
     * salloc killed outright leaves the allocation held until Slurm notices */
    if (fl_run_salloc_asked_at == 0)
      fl_run_salloc_asked_at = fl_wall_seconds();
    if (fl_wall_seconds() - fl_run_salloc_asked_at < 5.0)
      return;
  }
  kill(-mpirun, SIGKILL);
  gethostname(here, sizeof here - 1);
  for (long w = 0; w < procs; w++) {
    FILE *f;
    long rank_pid = 0;
    char host[64] = "";
    snprintf(p, sizeof p, "%s/beat-%ld", dir, w);
    if ((f = fopen(p, "r"))) {
      /* "PID HOST": a process of another machine is not ours to kill by number (it ends with its launcher) */
      int got = fscanf(f, "%ld %63s", &rank_pid, host);
      if (got >= 1 && rank_pid > 1 && (got == 1 || strcmp(host, here) == 0))
        kill((pid_t)rank_pid, SIGKILL);
      fclose(f);
    }
  }
}

/* Newest heartbeat (wall-clock seconds) of the job's processes in DIR, or -1 when none was written yet. */
static double fl_run_newest_beat(const char *dir, long procs)
{
  double newest = -1;
  char p[4200];
  struct stat st;
  for (long w = 0; w < procs; w++) {
    snprintf(p, sizeof p, "%s/beat-%ld", dir, w);
    if (stat(p, &st) == 0) {
      double t = (double)st.st_mtim.tv_sec + 1e-9 * (double)st.st_mtim.tv_nsec;
      if (t > newest)
        newest = t;
    }
  }
  return newest;
}

/* How many processes of the job have written their heartbeat file (they are past MPI_Init). */
static long fl_run_started(const char *dir, long procs)
{
  char p[4200];
  long n = 0;
  for (long w = 0; w < procs; w++) {
    snprintf(p, sizeof p, "%s/beat-%ld", dir, w);
    n += access(p, F_OK) == 0;
  }
  return n;
}

fl_err fl_launch_run(const fl_launch_opts *o, int *exit_code)
{
  fl_err rc = FL_OK;
  fl_scenario *sc = NULL;
  const char *path = o->path, *out = o->out;
  char *const *margv = o->args;
  const int margc = o->nargs, np = o->np, quiet = o->quiet;
  char mpi[4200], outdir[4096], buf[4200], shmdir[4096] = "";
  int status = 0, code = 1, tmpdir = 0, watchdog_fired = 0, degree = 1, study = 0;
  char job_id[64];
  const fl_app *app = NULL;
  int kills = 0;        /* --kill terms */
  int start_failed = 0; /* a process never got past MPI_Init */
  char init_kills[256] = "";
  long procs = 0, spares = o->spares, per = 1, nodes = 1, ndrawn = 0;
  char drawn[4096] = ""; /* --failures sim: the node kills drawn */
  int multi = 0;         /* a launcher over several machines (mpirun with a host file, slurm) */
  fl_engine_caps caps;
  fl_strategy_run strat;
  double run_wall = 0;
  struct sigaction fwd, old_sig[4];
  pid_t launcher = 0;
  int reaper = -1; /* the write end of the helper's pipe (fl_run_reaper) */
  static const int fwd_sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  pid_t pid;

  *exit_code = 1;
  fl_run_via_salloc = 0;
  snprintf(job_id, sizeof job_id, "%ld.%ld", (long)time(NULL), (long)getpid());
  FL_TRY(fl_scenario_load(path, &sc));
  for (int k = 0; k < margc; k += 2) {
    if (strcmp(margv[k], "--set") == 0)
      FL_TRY(fl_scenario_set(sc, margv[k + 1]));
    if (strcmp(margv[k], "--db") == 0) {
      snprintf(buf, sizeof buf, "run.db=%s", margv[k + 1]);
      FL_TRY(fl_scenario_set(sc, buf));
    }
  }
  per = sc->ranks_per_node;
  multi = o->launcher && strcmp(o->launcher, "local") != 0;
  FL_CHECK(!(o->spare_nodes >= 0 && spares >= 0), FL_ERR_INPUT,
           "--spares and --spare-nodes: give one (spare nodes hold mpi.ranks_per_node = %ld spares each)", per);
  if (o->spare_nodes >= 0)
    spares = o->spare_nodes * per;
  if (spares < 0)
    spares = sc->spares;
  FL_TRY(fl_exec_setup(sc, np, &caps, &strat)); /* the strategy, set up for the real engine: refused here */
  study = fl_app_has(sc, FL_APP_REAL_STUDY);    /* lossy-cg: its solves write their own rows */
  degree = (int)strat.degree;                   /* replication: every rank's copies are processes too */
  procs = (long)np * degree + spares;
  FL_CHECK(procs <= FL_RUN_MAX_PROCS, FL_ERR_INPUT, "--np %d (x %d copies) plus %ld spares: at most %d processes", np,
           degree, spares, FL_RUN_MAX_PROCS);
  if (sc->mirror_pair && np % 2) {
    /* pairs 0-1, 2-3, ...: an odd rank out has no partner to hold its checkpoint */
    rc = fl_scenario_fail(sc, "mpi", "mirror", "pair needs an even number of active ranks (--np %d); use ring", np);
    goto done;
  }
  if (per > 1 && (((long)np * degree) % per || spares % per)) {
    rc = fl_scenario_fail(sc, "mpi", "ranks_per_node",
                          "%ld: --np %d (x %d copies) and %ld spares must fill whole nodes of %ld processes", per, np,
                          degree, spares, per);
    goto done;
  }
  nodes = (procs + per - 1) / per;
  FL_TRY(fl_run_check_node_kills("mpi.kill_node", sc->kill_node, nodes, fl_grid_options(sc)->iterations));
  for (int k = 0; k < margc; k += 2)
    if (strcmp(margv[k], "--kill-node") == 0)
      FL_TRY(fl_run_check_node_kills("--kill-node", margv[k + 1], nodes, fl_grid_options(sc)->iterations));
  if (multi && strcmp(o->launcher, "slurm") == 0 && getenv("SLURM_JOB_ID")) {
    const char *have = getenv("SLURM_JOB_NUM_NODES");
    FL_CHECK(!have || atol(have) >= nodes, FL_ERR_INPUT,
             "--launcher slurm: the run needs %ld nodes (%ld processes at mpi.ranks_per_node = %ld) and allocation %s "
             "holds %s",
             nodes, procs, per, getenv("SLURM_JOB_ID"), have);
  }
  FL_TRY(fl_run_check_kills("mpi.kill", sc->kill, procs));
  for (int k = 0; k < margc; k += 2)
    if (strcmp(margv[k], "--kill") == 0)
      FL_TRY(fl_run_check_kills("--kill", margv[k + 1], procs));
  {
    /* kills that can never happen are refused, not run as failure-free runs with a kill in their row */
    char all[4096];
    int n = snprintf(all, sizeof all, "%s", sc->kill ? sc->kill : "");
    for (int k = 0; k < margc && n < (int)sizeof all; k += 2)
      if (strcmp(margv[k], "--kill") == 0)
        n += snprintf(all + n, sizeof all - (size_t)n, " %s", margv[k + 1]);
    FL_TRY(fl_run_check_kill_plan(all, (long)np * degree, fl_grid_options(sc)->iterations));
    /* RANK@init: those processes die before MPI_Init (exec/mpi_inmem/main.c reads the list) */
    {
      char *save = NULL, *tok;
      int m = 0;
      init_kills[0] = '\0';
      for (tok = strtok_r(all, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
        char *at = strchr(tok, '@');
        if (at && strcmp(at + 1, "init") == 0 && m < (int)sizeof init_kills - 16)
          m += snprintf(init_kills + m, sizeof init_kills - (size_t)m, "%s%.*s", m ? " " : "", (int)(at - tok), tok);
      }
    }
  }
  FL_TRY(fl_app_get(sc, FL_APP_REAL, &app));
  if (((app->flags & FL_APP_REAL_SQUARE) && fl_grid_options(sc)->rows != fl_grid_options(sc)->cols) ||
      np > fl_grid_options(sc)->rows) {
    rc = fl_scenario_fail(sc, "app", "grid", "%s needs a%s grid with at least --np %d rows", app->name,
                          (app->flags & FL_APP_REAL_SQUARE) ? " square" : "", np);
    goto done;
  }
  for (int k = 0; k < margc; k += 2)
    kills += strcmp(margv[k], "--kill") == 0 || strcmp(margv[k], "--kill-node") == 0;
  if (o->failures_replica >= 0) {
    /* the simulator's draws for the job's nodes (its active ones), replayed as node kills by time */
    FL_TRY(fl_run_drawn_failures(sc, o->failures_replica, (long)np * degree / per, spares / per + 1, drawn,
                                 sizeof drawn, &ndrawn));
    kills += (int)ndrawn;
    if (!quiet)
      fprintf(stderr, "faultline: %s: the simulator's failures of replica %ld, at mpi.time_scale = %g: %s\n", sc->name,
              o->failures_replica, sc->time_scale, ndrawn ? drawn : "none before a day of real time");
  }
  FL_TRY(fl_exec_check_kills(sc, kills)); /* a study's deaths and sweeps: bad input is one line, nothing runs */
  /* faultline-mpi sits next to the faultline binary */
  snprintf(mpi, sizeof mpi, "%s/faultline-mpi", o->exe_dir);
  FL_CHECK(access(mpi, X_OK) == 0, FL_ERR_INPUT,
           "%s not found: this faultline was built without MPI (install libopenmpi-dev and rebuild)", mpi);
  if (out) {
    struct stat st;
    snprintf(outdir, sizeof outdir, "%s", out);
    if (stat(outdir, &st) == 0) {
      FL_CHECK(S_ISDIR(st.st_mode), FL_ERR_INPUT, "--out %s: not a directory", outdir);
      FL_CHECK(!fl_run_dir_has_outcomes(outdir, procs), FL_ERR_INPUT,
               "--out %s: holds rank-*.txt outcome files of an earlier run; give an empty or new directory", outdir);
    } else {
      FL_CHECK(errno == ENOENT, FL_ERR_INPUT, "--out %s: %s", outdir, strerror(errno));
      FL_CHECK(mkdir(outdir, 0777) == 0, FL_ERR_INPUT, "--out %s: cannot create it: %s", outdir, strerror(errno));
    }
  } else {
    /* several machines: in the current directory, which a cluster's nodes share (not /tmp, each node's own) */
    const char *t = multi ? "." : getenv("TMPDIR");
    snprintf(outdir, sizeof outdir, "%s/faultline-run-XXXXXX", t && *t ? t : "/tmp");
    FL_CHECK(mkdtemp(outdir) != NULL, FL_ERR_IO, "cannot make a temporary directory: %s", strerror(errno));
    tmpdir = 1;
  }

  {
    /* Open MPI's shared-memory files (vader_segment.*, one per process): in a directory of this run's, removed at the
     * end. By default they go to /dev/shm, and a rank that dies or exits without MPI_Finalize (which is collective:
     * faultline-mpi skips it once a rank is lost) never removes its own: they piled up there, run after run. Where
     * temporary files go ($TMPDIR) when it is set, else /dev/shm (memory), else /tmp. */
    const char *t = getenv("TMPDIR");
    const char *base = t && *t ? t : access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(shmdir, sizeof shmdir, "%s/faultline-run-shm-XXXXXX", base);
    if (!mkdtemp(shmdir)) {
      rc = fl_err_set(FL_ERR_IO, "cannot make a directory for MPI's shared memory in %s: %s", base, strerror(errno));
      shmdir[0] = '\0';
      goto done;
    }
  }
  {
    /* mpirun ... faultline-mpi SCENARIO --spares S --out DIR [forwarded flags] */
    char *cmd[128];
    int c = 0;
    char npbuf[32], sparebuf[32];
    const char *extra = getenv("FAULTLINE_MPIRUN_ARGS");
    char *extra_copy = extra ? strdup(extra) : NULL, *save = NULL, *tok;
    snprintf(npbuf, sizeof npbuf, "%ld", procs);
    snprintf(sparebuf, sizeof sparebuf, "%ld", spares);
    char nodebuf[32], pernode[64], pertask[64], *sb_copy = NULL;
    snprintf(nodebuf, sizeof nodebuf, "%ld", nodes);
    snprintf(pernode, sizeof pernode, "ppr:%ld:node", per);
    snprintf(pertask, sizeof pertask, "--ntasks-per-node=%ld", per);
    if (multi && strcmp(o->launcher, "slurm") == 0 && !getenv("SLURM_JOB_ID")) {
      /* outside an allocation: ask for one, mpirun inside it (Open MPI starts its daemons with srun) */
      const char *sb = getenv("FAULTLINE_SBATCH_ARGS");
      char *sv = NULL, *st;
      fl_run_via_salloc = 1;
      fl_run_salloc_asked_at = 0;
      cmd[c++] = "salloc";
      cmd[c++] = "--quiet";
      cmd[c++] = "--no-kill"; /* a node that fails does not end the allocation: the job recovers on the others */
      cmd[c++] = "-N";
      cmd[c++] = nodebuf;
      cmd[c++] = pertask;
      sb_copy = sb ? strdup(sb) : NULL;
      for (st = sb_copy ? strtok_r(sb_copy, " ", &sv) : NULL; st && c < 40; st = strtok_r(NULL, " ", &sv))
        cmd[c++] = st;
    }
    cmd[c++] = "mpirun";
    if (geteuid() == 0)
      cmd[c++] = "--allow-run-as-root";
    cmd[c++] = "--oversubscribe";
    cmd[c++] = "--enable-recovery"; /* survivors live on when a rank dies (or a node: its daemon with it) */
    cmd[c++] = "--mca";
    cmd[c++] = "btl";
    if (multi) {
      /* ranks by node (spares last, as whole nodes), TCP between the nodes; the job's name and the node-kill command
       * go to every process, wherever it runs */
      cmd[c++] = "self,vader,tcp";
      cmd[c++] = "--map-by";
      cmd[c++] = pernode;
      if (strcmp(o->launcher, "mpirun") == 0 && o->hostfile) {
        cmd[c++] = "--hostfile";
        cmd[c++] = (char *)o->hostfile;
      }
      cmd[c++] = "-x";
      cmd[c++] = "FAULTLINE_JOB_ID";
      if (getenv("FAULTLINE_NODE_KILL")) {
        cmd[c++] = "-x";
        cmd[c++] = "FAULTLINE_NODE_KILL";
      }
      if (init_kills[0]) {
        cmd[c++] = "-x";
        cmd[c++] = "FAULTLINE_KILL_AT_INIT";
      }
    } else {
      cmd[c++] = "self,vader";
      cmd[c++] = "--mca";
      cmd[c++] = "btl_vader_backing_directory";
      cmd[c++] = shmdir;
    }
    cmd[c++] = "--mca";
    cmd[c++] = "mpi_yield_when_idle";
    cmd[c++] = "1";
    for (tok = extra_copy ? strtok_r(extra_copy, " ", &save) : NULL; tok && c < 100; tok = strtok_r(NULL, " ", &save))
      cmd[c++] = tok;
    cmd[c++] = "-np";
    cmd[c++] = npbuf;
    cmd[c++] = mpi;
    cmd[c++] = (char *)path;
    cmd[c++] = "--spares";
    cmd[c++] = sparebuf;
    cmd[c++] = "--out";
    cmd[c++] = outdir;
    for (int k = 0; k < margc && c < 122; k++)
      cmd[c++] = margv[k];
    if (o->failures_replica >= 0) {
      cmd[c++] = "--failures-given"; /* no draws of the processes' own */
      if (ndrawn) {
        cmd[c++] = "--kill-node";
        cmd[c++] = drawn;
      }
    }
    cmd[c] = NULL;
    if (!quiet) {
      char rule[64];
      const char *r = study ? NULL : fl_exec_interval_rule(sc, &strat, rule, sizeof rule);
      char placed[160] = "";
      if (multi)
        snprintf(placed, sizeof placed, " (%ld node%s of %ld, launched by %s)", nodes, nodes == 1 ? "" : "s", per,
                 o->launcher);
      fprintf(stderr, "faultline: %s: %s %ldx%ld on %d ranks + %ld spare%s%s, strategy %s%s%s%s\n", sc->name, sc->app,
              fl_grid_options(sc)->rows, fl_grid_options(sc)->cols, np, spares, spares == 1 ? "" : "s", placed,
              strat.ops->name, study && strat.levels ? " (compressed, [recovery])" : "", r ? ", checkpoints " : "",
              r ? r : "");
    }
    fflush(NULL);
    {
      /* mpirun's stderr goes through a filter: Open MPI's runtime prints a "PMIX ERROR: BAD-PARAM" line for
       * every process that dies, which is the expected event here, not an error */
      int fds[2];
      char line[2048];
      FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "pipe: %s", strerror(errno));
      memset(&fwd, 0, sizeof fwd);
      fwd.sa_handler = fl_run_forward;
      sigemptyset(&fwd.sa_mask);
      fl_run_signal = 0;
      fl_run_child_pid = 0;
      for (int k = 0; k < 4; k++)
        sigaction(fwd_sigs[k], &fwd, &old_sig[k]);
      launcher = getpid();
      reaper = fl_run_reaper(shmdir, tmpdir ? outdir : NULL);
      pid = fork();
      if (pid > 0)
        fl_run_child_pid = pid;
      if (pid == 0)
        for (int k = 0; k < 4; k++)
          sigaction(fwd_sigs[k], &old_sig[k], NULL);
      if (pid == 0) {
        /* mpirun ends with us, however we end: killed outright (SIGKILL), we can forward nothing, so the kernel
         * sends it SIGTERM (it then ends its ranks; each rank ends with mpirun: exec/mpi_inmem/main.c) */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != launcher)
          _exit(143);                          /* we were already gone before the line above */
        setenv("FAULTLINE_JOB_ID", job_id, 1); /* every process names the job's row by it (exec/mpi_inmem/rt.c) */
        if (init_kills[0])
          setenv("FAULTLINE_KILL_AT_INIT", init_kills, 1);
        else
          unsetenv("FAULTLINE_KILL_AT_INIT");
        setpgid(0, 0); /* a group of its own: the watchdog and forwarded signals reach every rank at once */
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        execvp(cmd[0], cmd);
        fprintf(stderr, "faultline: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
      }
      close(fds[1]);
      free(extra_copy);
      free(sb_copy);
      FL_CHECK(pid > 0, FL_ERR_IO, "fork: %s", strerror(errno));
      setpgid(pid, pid); /* both sides, whichever runs first */
      {
        /* Read mpirun's stderr while watching the ranks' heartbeats: a job with no progress anywhere for
         * mpi.watchdog (a rank stopped and never continued, a hang in start-up) is killed, whole group. The
         * pipe can stay open after mpirun ends (a stopped rank holds it), so mpirun's exit ends the loop. */
        struct pollfd pfd = {fds[0], POLLIN, 0};
        size_t have = 0;
        double t0 = fl_wall_seconds(), last_progress = t0, progress = -1, killed_at = 0, row_check = 0, row_at = 0,
               signal_at = 0;
        /* a job whose row is written has ended: processes still there after this long are stopped or fenced ones
         * that can never end by themselves (mpirun would wait for them for ever) */
        const double grace = fmax(3.0, 2.0 * sc->mpi_timeout_s);
        /* every process writes its heartbeat file once past MPI_Init: one that has not by then died or hangs in
         * it, and the others wait in MPI_Init for ever */
        const double startup = fmin(0.9 * sc->watchdog_s, fmax(30.0, 10.0 * sc->mpi_timeout_s));
        int open_fd = 1, exited = 0, leftovers = 0, started = 0;
        while (!exited) {
          int pr = poll(&pfd, open_fd ? 1 : 0, 250); /* with no fd left: a 250 ms sleep */
          double beat;
          if (pr > 0) {
            ssize_t n = read(fds[0], line + have, sizeof line - 1 - have);
            if (n <= 0) {
              open_fd = 0;
            } else {
              char *nl;
              have += (size_t)n;
              line[have] = '\0';
              while ((nl = strchr(line, '\n')) || have == sizeof line - 1) {
                size_t len = nl ? (size_t)(nl - line) + 1 : have;
                char keep = line[len];
                line[len] = '\0';
                if (!strstr(line, "PMIX ERROR: BAD-PARAM"))
                  fputs(line, stderr);
                line[len] = keep;
                memmove(line, line + len, have - len + 1);
                have -= len;
              }
            }
          }
          if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            break;
          }
          beat = fl_run_newest_beat(outdir, procs); /* file times: compared only with each other */
          if (beat > progress) {
            progress = beat;
            last_progress = fl_wall_seconds();
          }
          if (!watchdog_fired && isfinite(sc->watchdog_s) && fl_wall_seconds() - last_progress > sc->watchdog_s) {
            char a[32];
            watchdog_fired = 1;
            killed_at = fl_wall_seconds();
            fprintf(stderr,
                    "faultline: %s: no progress for %s (mpi.watchdog): stopping the job and all its processes\n",
                    sc->name, fl_units_format_duration(sc->watchdog_s, a, sizeof a));
            fl_run_kill_all(pid, outdir, procs); /* stopped processes too: SIGKILL needs no cooperation */
          }
          if (watchdog_fired && fl_wall_seconds() - killed_at > 5)
            fl_run_kill_all(pid, outdir, procs);
          if (!started && !watchdog_fired && !start_failed) {
            if (fl_run_started(outdir, procs) == procs) {
              started = 1;
            } else if (fl_wall_seconds() - t0 > startup) {
              char a[32];
              start_failed = 1;
              fprintf(stderr,
                      "faultline: %s: %ld of %ld processes never got past MPI_Init in %s (died or hung in start-up): "
                      "stopping the job\n",
                      sc->name, procs - fl_run_started(outdir, procs), procs,
                      fl_units_format_duration(startup, a, sizeof a));
              fl_run_kill_all(pid, outdir, procs);
              killed_at = fl_wall_seconds();
            }
          }
          if (start_failed && fl_wall_seconds() - killed_at > 5)
            fl_run_kill_all(pid, outdir, procs);
          if (!study && !row_at && fl_wall_seconds() - row_check >= 1.0) {
            char rs[32];
            row_check = fl_wall_seconds();
            fl_run_row_status(sc, job_id, rs, sizeof rs);
            if (rs[0])
              row_at = row_check;
          }
          if (row_at > 0 && !leftovers && fl_wall_seconds() - row_at > grace) {
            leftovers = 1;
            if (!multi) /* (on several machines mpirun is slow to end, and waits for a lost node's daemon for ever) */
              fprintf(stderr,
                      "faultline: %s: the job has ended (its row is written); ending the processes that did not end "
                      "by themselves (stopped or fenced)\n",
                      sc->name);
            else if (!quiet)
              fprintf(stderr, "faultline: %s: the job has ended (its row is written); ending mpirun and its daemons\n",
                      sc->name);
            fl_run_kill_all(pid, outdir, procs);
            killed_at = fl_wall_seconds();
          }
          if (leftovers && fl_wall_seconds() - killed_at > 5)
            fl_run_kill_all(pid, outdir, procs);
          if (fl_run_signal && !signal_at)
            signal_at = fl_wall_seconds();
          if (signal_at > 0 && fl_wall_seconds() - signal_at > 5) { /* a stopped rank ignores the forwarded one */
            fl_run_kill_all(pid, outdir, procs);
            signal_at = fl_wall_seconds();
          }
        }
        if (have)
          fputs(line, stderr);
        close(fds[0]);
        if (!exited)
          while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (watchdog_fired || start_failed || leftovers)
          fl_run_kill_all(pid, outdir, procs); /* whatever is left */
        run_wall = fl_wall_seconds() - t0;
      }
      fl_run_child_pid = 0;
      for (int k = 0; k < 4; k++)
        sigaction(fwd_sigs[k], &old_sig[k], NULL);
    }
  }
  if (fl_run_signal) {
    /* the job was stopped: its one row says so (status stopped, the time it ran), unless it had ended and written
     * its own; the exit status is the signal's (128 + N, as a shell shows it: 130 for SIGINT, 143 for SIGTERM) */
    char rs[32] = "";
    if (!study)
      fl_run_row_status(sc, job_id, rs, sizeof rs);
    if (!study && !rs[0]) {
      if (fl_run_write_row(sc, "stopped", kills, strat.ops->name, job_id, np, procs, run_wall) != FL_OK)
        fprintf(stderr, "faultline: %s\n", fl_err_msg());
      fprintf(stderr, "faultline: %s: stopped by signal %d; row with status stopped in %s\n", sc->name,
              (int)fl_run_signal, sc->db);
    } else {
      fprintf(stderr, "faultline: %s: stopped by signal %d%s%s\n", sc->name, (int)fl_run_signal,
              rs[0] ? "; the job's row was written before: status " : "", rs);
    }
    code = 128 + fl_run_signal;
    goto done;
  }

  /* mpirun exits 0 even when ranks die: each rank's outcome says what happened, and the job's row (one per job,
   * whoever wrote it) is the verdict */
  {
    fl_outcome o, role0;
    int have0 = 0, lost = 0, completed = 0, files = 0, retired = 0;
    char msg[256] = "", row_status[32] = "";
    for (int w = 0; w < procs; w++) {
      snprintf(buf, sizeof buf, "%s/rank-%d.txt", outdir, w);
      if (fl_read_outcome(buf, &o) != 0)
        continue;
      files++;
      if (strcmp(o.status, "lost") == 0 && !lost) {
        lost = 1;
        snprintf(msg, sizeof msg, "%s", o.message);
      }
      if (strcmp(o.status, "retired") == 0 && !retired++ && !msg[0])
        snprintf(msg, sizeof msg, "%s", o.message);
      completed += strcmp(o.status, "completed") == 0;
      /* role 0 of the copy that finished (replication: a retired set's role 0 says nothing about the job) */
      if (o.role == 0 && (!have0 || (strcmp(role0.status, "completed") != 0 && strcmp(o.status, "completed") == 0))) {
        role0 = o;
        have0 = 1;
      }
    }
    if (!study)
      fl_run_row_status(sc, job_id, row_status, sizeof row_status);
    if (study) {
      /* a study writes a row per solve: the outcomes say how it ended */
      if (lost) {
        fprintf(stderr, "faultline: %s: the job stopped: %s\n", sc->name, msg);
        code = 3;
      } else if (have0 && strcmp(role0.status, "completed") == 0) {
        code = 0;
      } else {
        fprintf(stderr, "faultline: %s: the run did not complete (mpirun status %d)\n", sc->name,
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        code = 1;
      }
    } else if (!row_status[0]) {
      /* nobody wrote the job's row (the watchdog stopped it; every replica set retired; the processes died
       * before they could): write it here, so every run has exactly one */
      const char *st = watchdog_fired ? "no_progress" : (lost || retired) && !start_failed ? "failed" : "error";
      if (fl_run_write_row(sc, st, kills, strat.ops->name, job_id, np, procs, run_wall) != FL_OK)
        fprintf(stderr, "faultline: %s\n", fl_err_msg());
      else if (!watchdog_fired)
        fprintf(stderr, "faultline: %s: %s; row with status %s in %s\n", sc->name,
                strcmp(st, "failed") == 0 ? (msg[0] ? msg : "no spare left")
                : start_failed            ? "the job never started"
                                          : "the processes ended without an outcome",
                st, sc->db);
      else
        fprintf(stderr, "faultline: %s: row with status no_progress in %s\n", sc->name, sc->db);
      code = strcmp(st, "failed") == 0 ? 3 : 1;
    } else if (strcmp(row_status, "completed") == 0) {
      if (!quiet && have0)
        printf("%s: ended after %ld iterations, max error %.3g; %d recover%s; %ld checkpoints; %d of %ld processes "
               "ended by themselves%s; row in %s\n",
               sc->name, role0.iterations, role0.error, role0.recoveries, role0.recoveries == 1 ? "y" : "ies",
               role0.commits, files, procs, role0.roles > 0 && role0.roles < np ? " (shrunk)" : "", sc->db);
      code = 0;
    } else if (strcmp(row_status, "failed") == 0 || strcmp(row_status, "data_lost") == 0) {
      fprintf(stderr, "faultline: %s: the job stopped (%s): %s\n", sc->name, row_status, msg[0] ? msg : "-");
      code = 3;
    } else {
      fprintf(stderr, "faultline: %s: the run ended with status %s%s%s\n", sc->name, row_status, msg[0] ? ": " : "",
              msg);
      code = 1;
    }
  }
done:
  if (tmpdir && fl_remove_tree(outdir) != 0)
    fprintf(stderr, "faultline: cannot remove the temporary directory %s: %s\n", outdir, strerror(errno));
  if (shmdir[0] && fl_remove_tree(shmdir) != 0)
    fprintf(stderr, "faultline: cannot remove the temporary directory %s: %s\n", shmdir, strerror(errno));
  fl_scenario_destroy(&sc);
  if (reaper >= 0)
    close(reaper);
  if (fl_run_signal)
    fl_cleanup_reraise((int)fl_run_signal);
  *exit_code = rc == FL_OK ? code : rc == FL_ERR_INPUT ? 2 : 1;
  return rc;
}
