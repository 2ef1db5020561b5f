/* replica.c — a replica of the simulator, from its start to its figures: the job's node mapping (ranks on nodes,
 * spares, slots waiting for a node), the wait primitives the apps' coordinators are written with, the failure
 * injector and the process crasher, run as SimGrid actors or on the direct engine, and work in a child process.
 * sim.c sets a simulation up and calls fl_replica_run; the apps (run_*.c) call what is here; nothing here calls
 * them but through their ops (sim_impl.h). */
#include "rng.h"
#include "sim_impl.h"
#include "units.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The replicas each engine ran in this process, and those the direct engine handed to SimGrid. */
static long fl_engine_counts[3];

/* ---- work in a child process ---- */

fl_err fl_sim_in_child(fl_sim_child_fn fn, void *ctx, FILE **result)
{
  fl_err rc = FL_OK;
  FILE *f = tmpfile();
  int status = 0;
  pid_t pid;
  *result = NULL;
  FL_CHECK(f, FL_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "cannot fork a replica: %s", strerror(errno));
  if (pid == 0) {
    int32_t code = 0;
    char msg[1024] = "";
    long at = 0;
    fwrite(&code, sizeof code, 1, f); /* rewritten below */
    fwrite(msg, sizeof msg, 1, f);
    fl_err crc = fn(ctx, f);
    if (crc != FL_OK) {
      code = (int32_t)crc;
      snprintf(msg, sizeof msg, "%s", fl_err_msg());
    }
    fflush(f);
    if (fseek(f, at, SEEK_SET) == 0) {
      fwrite(&code, sizeof code, 1, f);
      fwrite(msg, sizeof msg, 1, f);
    }
    _exit(fflush(f) == 0 ? 0 : 3);
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  FL_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, FL_ERR_SIM, "a replica's process %s %d",
           WIFSIGNALED(status) ? "died of signal" : "exited with",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  rewind(f);
  {
    int32_t code;
    char msg[1024];
    FL_CHECK(fread(&code, sizeof code, 1, f) == 1 && fread(msg, sizeof msg, 1, f) == 1, FL_ERR_IO,
             "a replica's results came back short");
    msg[sizeof msg - 1] = '\0';
    if (code != 0) {
      rc = fl_err_set((fl_err)code, "%s", msg);
      goto done;
    }
  }
  *result = f;
  f = NULL;
done:
  if (f)
    fclose(f);
  return rc;
}

fl_err fl_sim_events_send(const fl_evlog *log, FILE *out)
{
  fl_err rc = FL_OK;
  uint64_t n = log && log->enabled ? fl_evlog_count(log) : 0;
  FL_CHECK(!log || !log->oom, FL_ERR_NOMEM, "out of memory logging events");
  FL_CHECK(fwrite(&n, sizeof n, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
  if (n > 0 && log->spill) { /* the log streamed its first chunks to its own file */
    fl_evlog_entry buf[1024];
    size_t k;
    FL_CHECK(fseek((FILE *)log->spill, 0, SEEK_SET) == 0, FL_ERR_IO, "events: cannot read back");
    for (size_t left = log->nspilled; left > 0; left -= k) {
      k = fread(buf, sizeof *buf, left < 1024 ? left : 1024, (FILE *)log->spill);
      FL_CHECK(k > 0 && fwrite(buf, sizeof *buf, k, out) == k, FL_ERR_IO, "events: cannot copy");
    }
  }
  if (n > 0)
    FL_CHECK(fwrite(log->v, sizeof *log->v, log->n, out) == log->n, FL_ERR_IO, "events: cannot copy");
done:
  return rc;
}

fl_err fl_sim_events_receive(fl_evlog *log, FILE *in)
{
  fl_err rc = FL_OK;
  uint64_t n;
  FL_CHECK(fread(&n, sizeof n, 1, in) == 1, FL_ERR_IO, "a replica's events came back short");
  for (uint64_t k = 0; k < n; k++) {
    fl_evlog_entry e;
    FL_CHECK(fread(&e, sizeof e, 1, in) == 1, FL_ERR_IO, "a replica's events came back short");
    fl_evlog_entry *d = fl_evlog_add(log, e.t_s, e.kind, e.node);
    if (d)
      *d = e;
  }
done:
  return rc;
}

size_t fl_sim_regime(const fl_sim *sim, double t)
{
  const fl_profiles *pp = fl_platform_profiles(sim->pf);
  size_t c = 0, mul = 1;
  for (size_t i = 0; i < pp->nlink; i++) {
    double next;
    c += fl_profile_index_at(&pp->link[i], t, &next) * mul;
    mul *= pp->link[i].n + 1;
  }
  return c;
}

/* ---- the job's node mapping ---- */

static void fl_job_reset(fl_sim *sim)
{
  for (long n = 0; n < sim->nodes; n++) {
    sim->node_slot[n] = n < sim->slots ? (int32_t)n : -1;
    sim->spare_pos[n] = -1;
  }
  for (long q = 0; q < sim->slots; q++) {
    sim->slot_node[q] = (int32_t)q;
    sim->missing_pos[q] = -1;
  }
  for (long r = 0; r < sim->ranks; r++)
    sim->alive[r] = (unsigned char)sim->degree;
  if (sim->fail_epoch)
    for (long r = 0; r < sim->ranks; r++)
      sim->fail_epoch[r] = -1;
  if (sim->xor_fail_epoch)
    for (long r = 0; r < sim->ranks; r++)
      sim->xor_fail_epoch[r] = -1;
  sim->nspare = 0;
  for (long n = sim->slots; n < sim->nodes; n++) {
    sim->spare_pos[n] = (int32_t)sim->nspare;
    sim->spare[sim->nspare++] = (int32_t)n;
  }
  sim->nmissing = 0;
  sim->e_dbusy = 0.0;
  sim->e_doff = 0.0;
  for (long q = 0; q < sim->slots; q++) {
    const fl_power *w = fl_sim_power(sim, q);
    sim->e_dbusy += w->busy - w->idle;
  }
}

void fl_rep_energy_to(fl_replica *rep, double t)
{
  const fl_sim *sim = rep->sim;
  double p;
  if (!(t > rep->e_t))
    return;
  p = sim->e_base + sim->e_doff;
  if (!(sim->app->flags & FL_SIM_APP_EXECS) && (rep->phase == FL_PHASE_COMPUTE || rep->verifying))
    p += sim->e_dbusy; /* task graphs account each execution (sim/workflow/) */
  rep->energy_j += p * (t - rep->e_t);
  rep->e_t = t;
}

static void fl_spare_remove(fl_sim *sim, long node)
{
  int32_t pos = sim->spare_pos[node], last = sim->spare[--sim->nspare];
  sim->spare[pos] = last;
  sim->spare_pos[last] = pos;
  sim->spare_pos[node] = -1;
}

static void fl_spare_push(fl_sim *sim, long node)
{
  sim->spare_pos[node] = (int32_t)sim->nspare;
  sim->spare[sim->nspare++] = (int32_t)node;
}

long fl_sim_take_spare(fl_sim *sim)
{
  int32_t s;
  if (sim->nspare == 0)
    return -1;
  s = sim->spare[sim->nspare - 1]; /* the most recently freed: O(1), and deterministic */
  fl_spare_remove(sim, s);
  return s;
}

void fl_sim_place(fl_sim *sim, long slot, long node)
{
  const fl_power *w = fl_sim_power(sim, node);
  sim->e_dbusy += w->busy - w->idle;
  sim->slot_node[slot] = (int32_t)node;
  sim->node_slot[node] = (int32_t)slot;
  sim->alive[slot / sim->degree]++;
}

void fl_sim_missing_push(fl_sim *sim, long slot)
{
  sim->missing_pos[slot] = (int32_t)sim->nmissing;
  sim->missing[sim->nmissing++] = (int32_t)slot;
}

long fl_sim_missing_pop(fl_sim *sim)
{
  int32_t q = sim->missing[--sim->nmissing];
  sim->missing_pos[q] = -1;
  return q;
}

void fl_sim_missing_remove(fl_sim *sim, long slot)
{
  int32_t pos = sim->missing_pos[slot], last;
  if (pos < 0)
    return;
  last = sim->missing[--sim->nmissing];
  sim->missing[pos] = last;
  sim->missing_pos[last] = pos;
  sim->missing_pos[slot] = -1;
}

static int fl_phase_interruptible(fl_phase p)
{
  return p == FL_PHASE_COMPUTE || p == FL_PHASE_CHECKPOINT || p == FL_PHASE_RESTART;
}

/* Interrupt or wake the coordinator: SimGrid's engine releases the semaphore it waits on; the direct engine's token
 * is the flag itself. */
static void fl_rep_wake(fl_replica *rep, double t)
{
  if (!rep->interrupt_pending) {
    rep->interrupt_pending = 1;
    rep->wake_t = t;
    rep->releases++;
    if (!rep->direct)
      sg_sem_release(rep->sem);
  }
}

/* A node failed. Without replication its rank moves to a spare at once (the job restarts from its checkpoint
 * anyway), or waits for a node. With replication the dead copy stays dead until the next restart, and the job
 * stops only when every copy of a rank is dead. Tasks of a task-parallel app lose their host and are dealt with
 * by the strategy at the end of the sweep. */
static void fl_job_on_failure(fl_replica *rep, long node, double t, int at_start)
{
  fl_sim *sim = rep->sim;
  int32_t q = sim->node_slot[node];
  long r;
  int base = at_start ? FL_EV_START_SPARE - FL_EV_FAILURE_SPARE : 0; /* down-at-start: the same variants, +10 */
  fl_evlog_entry *e;
  if (!at_start)
    rep->res->platform_failures++; /* a node down before the run began is no failure of the run */
  if (q < 0) {
    if (sim->spare_pos[node] >= 0)
      fl_spare_remove(sim, node);
    fl_evlog_add(rep->log, t, base + FL_EV_FAILURE_SPARE, node);
    return;
  }
  r = q / sim->degree;
  if (!at_start) {
    rep->res->failures++;
    rep->local_valid = 0; /* the rank's local-level copies went with its node */
  }
  if (sim->fail_epoch && !at_start) {
    /* rank r's copy is on rank r+step's node, rank r-step's on r's: either pair failing in one epoch loses data */
    long next = (r + sim->partner_step) % sim->ranks, prev = (r + sim->ranks - sim->partner_step) % sim->ranks;
    if (sim->ranks > 1 && (sim->fail_epoch[next] == rep->commit_epoch || sim->fail_epoch[prev] == rep->commit_epoch))
      rep->buddy_lost = 1;
    sim->fail_epoch[r] = rep->commit_epoch;
  }
  if (sim->xor_fail_epoch && !at_start) {
    /* rank r's XOR set: r, r + step, r + 2 step, ... within a block of xor_group steps (one rank per cabinet) */
    long step = sim->partner_step, set = (r / step / sim->xor_group) * step + r % step;
    if (sim->xor_fail_epoch[set] == rep->xor_epoch)
      rep->xor_lost = 1;
    sim->xor_fail_epoch[set] = rep->xor_epoch;
  }
  sim->node_slot[node] = -1;
  sim->slot_node[q] = -1;
  sim->alive[r]--;
  sim->e_dbusy -= fl_sim_power(sim, node)->busy - fl_sim_power(sim, node)->idle;
  if (sim->task_failed)
    sim->task_failed[q] = 1;
  if (sim->degree == 1 && !sim->task_failed && sim->nspare > 0) {
    long s = fl_sim_take_spare(sim);
    fl_sim_place(sim, q, s);
    if ((e = fl_evlog_add(rep->log, t, base + FL_EV_FAILURE_MOVE, node))) {
      e->rank = (int32_t)r;
      e->peer = (int32_t)s;
    }
  } else {
    fl_sim_missing_push(sim, q);
    e = fl_evlog_add(rep->log, t,
                     base + (sim->task_failed   ? FL_EV_FAILURE_TASK
                             : sim->degree == 1 ? FL_EV_FAILURE_WAIT
                                                : FL_EV_FAILURE_COPY),
                     node);
    if (e) {
      e->rank = (int32_t)r;
      if (!sim->task_failed && sim->degree > 1) {
        e->peer = (int32_t)(q % sim->degree);
        e->n = sim->alive[r];
      }
    }
  }
  if (sim->task_failed)
    return;
  if (fl_phase_interruptible(rep->phase)) {
    /* the strategy says whether the job goes on (a copy of the rank lives) or stops to recover */
    fl_failure_view view = {.copies_left = sim->degree == 1 ? 0 : sim->alive[r],
                            .buddy_intact = !rep->buddy_lost,
                            .buddy_version = rep->commit_epoch - 1,
                            .file_version = -1};
    if (fl_strat_on_failure(&sim->strat, &view).action != FL_ACT_CONTINUE)
      fl_rep_wake(rep, t);
  }
}

/* A node is back: it takes a slot waiting for a node (ranks of an unreplicated job at any time; dead copies and
 * hostless tasks only while the job recovers, or for tasks at once), else it becomes a spare. */
static void fl_job_on_repair(fl_replica *rep, long node, double t)
{
  fl_sim *sim = rep->sim;
  int recovering = rep->phase == FL_PHASE_DOWNTIME || rep->phase == FL_PHASE_WAIT_NODES;
  if (sim->nmissing > 0 && (sim->degree == 1 || recovering)) {
    long q = fl_sim_missing_pop(sim);
    fl_sim_place(sim, q, node);
    fl_evlog_entry *e = fl_evlog_add(rep->log, t, sim->task_failed ? FL_EV_REPAIR_TASK : FL_EV_REPAIR_RANK, node);
    if (e)
      e->rank = (int32_t)(sim->task_failed ? q : q / sim->degree);
    if (sim->nmissing == 0 && rep->phase == FL_PHASE_WAIT_NODES)
      fl_rep_wake(rep, t);
  } else {
    fl_spare_push(sim, node);
    fl_evlog_add(rep->log, t, FL_EV_REPAIR_SPARE, node);
  }
}

/* ---- actors ---- */

double fl_rep_now(const fl_replica *rep)
{
  return rep->now;
}

int fl_rep_timed_out(const fl_replica *rep)
{
  return rep->over_budget || fl_rep_now(rep) >= rep->sim->max_time_s;
}

/* A phase ended at rep->now: its event (FL_EV_PHASES), for timelines. */
static void fl_rep_phase_log(fl_replica *rep, fl_phase phase, double t_start, int interrupted)
{
  static const int kinds[] = {[FL_PHASE_COMPUTE] = FL_EV_PHASE_COMPUTE,
                              [FL_PHASE_CHECKPOINT] = FL_EV_PHASE_CHECKPOINT,
                              [FL_PHASE_RESTART] = FL_EV_PHASE_RESTART,
                              [FL_PHASE_DOWNTIME] = FL_EV_PHASE_DOWNTIME,
                              [FL_PHASE_WAIT_NODES] = FL_EV_PHASE_WAIT};
  fl_evlog_entry *e;
  if (!rep->log || !rep->log->phases || !(rep->now > t_start) || phase == FL_PHASE_IDLE)
    return;
  e = fl_evlog_add(rep->log, rep->now, rep->verifying ? FL_EV_PHASE_VERIFY : kinds[phase], -1);
  if (e) {
    e->value = rep->now - t_start;
    e->n = interrupted;
  }
}

static int fl_direct_block(fl_replica *rep, double dur, int wakeable);
static void fl_direct_tie(fl_replica *rep);
static void fl_direct_run_ready(fl_replica *rep);

/* The coordinator blocks until the injector or the crasher wakes it or `dur` seconds pass (> 0). Returns 1 when the
 * time passed. */
static int fl_rep_block(fl_replica *rep, double dur)
{
  return rep->direct ? fl_direct_block(rep, dur, 1) : sg_sem_acquire_timeout(rep->sem, dur);
}

/* After a block that timed out while a wake was pending: take the token the wake left. */
static void fl_rep_take_token(fl_replica *rep)
{
  if (!rep->direct)
    sg_sem_acquire(rep->sem);
}

int fl_rep_wait(fl_replica *rep, double dur, fl_phase phase)
{
  int timed_out;
  double t_start = rep->now;
  if (dur <= 0)
    return 0;
  fl_rep_energy_to(rep, rep->now);
  rep->phase = phase;
  timed_out = fl_rep_block(rep, dur);
  if (rep->interrupt_pending) {
    /* a failure at the very date the wait ended counts: take the token it released */
    if (timed_out)
      fl_rep_take_token(rep);
    rep->interrupt_pending = 0;
    rep->now = rep->wake_t;
    fl_rep_energy_to(rep, rep->now);
    rep->phase = FL_PHASE_IDLE;
    fl_rep_phase_log(rep, phase, t_start, 1);
    return 1;
  }
  rep->now += dur;
  fl_rep_energy_to(rep, rep->now);
  rep->phase = FL_PHASE_IDLE;
  fl_rep_phase_log(rep, phase, t_start, 0);
  return 0;
}

void fl_rep_sleep(fl_replica *rep, double dur, fl_phase phase)
{
  fl_rep_energy_to(rep, rep->now);
  rep->phase = phase;
  if (!rep->direct)
    sg_actor_sleep_for(dur);
  else if (dur > 0) /* sleep_for does nothing for 0 */
    (void)fl_direct_block(rep, dur, 0);
  rep->now += dur;
  fl_rep_energy_to(rep, rep->now);
  rep->phase = FL_PHASE_IDLE;
  fl_rep_phase_log(rep, phase, rep->now - dur, 0);
}

int fl_rep_wait_nodes(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  double t_wait = fl_rep_now(rep);
  int timed_out;
  while (sim->nmissing > 0 && sim->nspare > 0) {
    long q = fl_sim_missing_pop(sim);
    fl_sim_place(sim, q, fl_sim_take_spare(sim));
  }
  while (sim->nmissing > 0) {
    double left = sim->max_time_s - fl_rep_now(rep);
    if (fl_fsrc_pending_repairs(rep->src) == 0 || left <= 0 || rep->over_budget) {
      rep->res->wait_nodes_s += fl_rep_now(rep) - t_wait;
      fl_rep_phase_log(rep, FL_PHASE_WAIT_NODES, t_wait, 0);
      return 1;
    }
    fl_rep_energy_to(rep, rep->now);
    rep->phase = FL_PHASE_WAIT_NODES;
    timed_out = fl_rep_block(rep, left);
    if (rep->interrupt_pending) {
      if (timed_out)
        fl_rep_take_token(rep); /* released at the date the timeout fired */
      rep->interrupt_pending = 0;
      rep->now = rep->wake_t;
    } else if (timed_out) {
      rep->now = sim->max_time_s;
    }
    fl_rep_energy_to(rep, rep->now);
    rep->phase = FL_PHASE_IDLE;
  }
  rep->res->wait_nodes_s += fl_rep_now(rep) - t_wait;
  fl_rep_phase_log(rep, FL_PHASE_WAIT_NODES, t_wait, 0);
  return 0;
}

void fl_rep_progress(fl_replica *rep, double done_work_s)
{
  fl_sim *sim = rep->sim;
  char a[32], b[32];
  if (!sim->progress || !sim->progress->out)
    return;
  fl_progress_update(sim->progress, 0, "replica %ld/%ld  simulated %s / ~%s expected  (work %.0f%%)", rep->replica + 1,
                     sim->progress_replicas, fl_units_format_duration(fl_rep_now(rep), a, sizeof a),
                     fl_units_format_duration(sim->progress_expected_s, b, sizeof b),
                     100.0 * done_work_s / sim->work_s);
}

/* A node goes off (a failure) or comes back on (its repair): what it draws changes from idle to off, or back. */
static void fl_rep_node_off(fl_sim *sim, long node, int off)
{
  const fl_power *w = fl_sim_power(sim, node);
  sim->e_doff += off ? w->off - w->idle : w->idle - w->off;
}

/* Node `node` goes off (or back on) in this replica: on SimGrid's engine its host too. */
static void fl_rep_host_set(fl_replica *rep, long node, int off)
{
  fl_sim *sim = rep->sim;
  if (off && !sim->host_off[node]) {
    if (sim->noffed == sim->offed_cap) {
      size_t cap = sim->offed_cap ? 2 * sim->offed_cap : 1024;
      long *g = realloc(sim->offed, cap * sizeof *g);
      if (!g) { /* no list: the replica's end passes over every node instead */
        free(sim->offed);
        sim->offed = NULL;
        sim->offed_cap = 0;
        sim->noffed = (size_t)-1;
      } else {
        sim->offed = g;
        sim->offed_cap = cap;
      }
    }
    if (sim->noffed != (size_t)-1)
      sim->offed[sim->noffed++] = node;
  }
  sim->host_off[node] = (unsigned char)(off != 0);
  if (!rep->direct) {
    if (off)
      sg_host_turn_off(fl_platform_host(sim->pf, node));
    else
      sg_host_turn_on(fl_platform_host(sim->pf, node));
  }
}

int fl_sim_node_on(const fl_sim *sim, long node)
{
  return !sim->host_off[node];
}

/* The replica's end: every node it turned off is on again for the next. */
static void fl_rep_hosts_back(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  long n = sim->noffed == (size_t)-1 ? fl_platform_nodes(sim->pf) : (long)sim->noffed;
  for (long k = 0; k < n; k++) {
    long node = sim->noffed == (size_t)-1 ? k : sim->offed[k];
    if (sim->host_off[node]) {
      sim->host_off[node] = 0;
      if (!rep->direct)
        sg_host_turn_on(fl_platform_host(sim->pf, node));
    }
  }
  sim->noffed = 0;
}

int fl_rep_fail_node(fl_replica *rep, long node, fl_phase phase)
{
  double t = fl_rep_now(rep);
  if (rep->direct)
    fl_direct_run_ready(rep); /* turning the host off is a SimGrid call: an actor that woke the coordinator runs */
  fl_rep_energy_to(rep, t);
  fl_rep_node_off(rep->sim, node, 1);
  fl_rep_host_set(rep, node, 1);
  rep->phase = phase; /* the job is in it: the strategy decides whether the failure stops it */
  fl_job_on_failure(rep, node, t, 0);
  rep->phase = FL_PHASE_IDLE;
  if (!rep->interrupt_pending)
    return 0;
  fl_rep_take_token(rep); /* the token fl_rep_wake released: no wait is under way to take it */
  rep->interrupt_pending = 0;
  return 1;
}

/* The event budget (run.max_events) is spent: the replica cannot make progress at this failure rate; it ends as
 * 'timeout' and no further failure is drawn, so neither time nor memory grows without bound. */
static void fl_rep_out_of_budget(fl_replica *rep, double t)
{
  fl_evlog_entry *e;
  rep->over_budget = 1;
  e = fl_evlog_add(rep->log, t, FL_EV_BUDGET, -1);
  if (e)
    e->n = rep->sim->max_events;
  if (fl_phase_interruptible(rep->phase) || rep->phase == FL_PHASE_WAIT_NODES)
    fl_rep_wake(rep, t);
}

/* The injector's next event is due: draw it and apply it. Returns 0 when the injector ends (no event left, or the
 * event budget spent). */
static int fl_injector_fire(fl_replica *rep)
{
  double t;
  long node;
  fl_fsrc_kind kind;
  if (!fl_fsrc_next(rep->src, &t, &node, &kind))
    return 0;
  if (++rep->nevents > rep->sim->max_events) {
    fl_rep_out_of_budget(rep, t);
    return 0;
  }
  fl_rep_energy_to(rep, t);
  if (kind != FL_FSRC_REPAIR) {
    fl_rep_node_off(rep->sim, node, 1);
    fl_rep_host_set(rep, node, 1);
    if (rep->sim->app->on_failure)
      rep->sim->app->on_failure(rep, node, t, kind == FL_FSRC_DOWN_AT_START);
    else
      fl_job_on_failure(rep, node, t, kind == FL_FSRC_DOWN_AT_START);
    return 1;
  }
  fl_rep_node_off(rep->sim, node, 0);
  fl_rep_host_set(rep, node, 0);
  if (rep->sim->app->on_repair) {
    rep->sim->app->on_repair(rep, node, t);
    return 1;
  }
  if (rep->renew_t) { /* a repaired node starts a new life: its age counts from now */
    if (isnan(rep->renew_t[node]))
      rep->renewed[rep->nrenewed++] = (int32_t)node;
    rep->renew_t[node] = t;
  }
  fl_job_on_repair(rep, node, t);
  return 1;
}

static void fl_injector_main(int argc, char **argv)
{
  fl_replica *rep = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  for (;;) {
    double next = fl_fsrc_peek(rep->src);
    if (!isfinite(next))
      return;
    if (rep->t0 + next > simgrid_get_clock())
      sg_actor_sleep_until(rep->t0 + next);
    if (!fl_injector_fire(rep))
      return;
  }
}

/* Process crashes (failures.process_mtbf): the job's processes crash at rate ranks / process_mtbf; the node
 * lives, so nothing is remapped and local copies survive, but the job is interrupted. Drawn from their own
 * stream, so node failures are the same with and without them. fl_crasher_draw draws the next crash (0: none
 * before run.max_time), fl_crasher_fire strikes it (0: the crasher ends, the event budget spent). */
static int fl_crasher_draw(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  double rate = (double)sim->ranks / sim->process_mtbf_s;
  rep->crash_rank = (long)gsl_rng_uniform_int(rep->crash_rng, (unsigned long)sim->ranks);
  rep->crash_t += gsl_ran_exponential(rep->crash_rng, 1.0 / rate);
  return rep->crash_t < sim->max_time_s;
}

static int fl_crasher_fire(fl_replica *rep)
{
  fl_sim *sim = rep->sim;
  double t = rep->crash_t;
  fl_evlog_entry *e;
  if (++rep->nevents > sim->max_events) {
    fl_rep_out_of_budget(rep, t);
    return 0;
  }
  if (!fl_phase_interruptible(rep->phase))
    return 1; /* the job is down already (downtime, waiting for nodes): nothing runs to crash */
  rep->res->failures++;
  e = fl_evlog_add(rep->log, t, FL_EV_PROCESS_FAILURE, sim->slot_node[rep->crash_rank]);
  if (e)
    e->rank = (int32_t)rep->crash_rank;
  fl_rep_wake(rep, t);
  return 1;
}

static void fl_crasher_main(int argc, char **argv)
{
  fl_replica *rep = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  while (fl_crasher_draw(rep)) {
    sg_actor_sleep_until(rep->t0 + rep->crash_t);
    if (!fl_crasher_fire(rep))
      return;
  }
}

/* ---- the direct engine ----
 *
 * A bsp or grid-world replica has three actors: the coordinator, which only waits (fl_rep_wait, fl_rep_sleep,
 * fl_rep_wait_nodes), and the injector and the crasher, which only sleep to their next event. SimGrid's engine
 * spends most of a replica's time switching between them. The direct engine runs the coordinator as a plain call and
 * the other two as steps between its waits, and keeps SimGrid's clock as SimGrid's engine does for three sleeping
 * actors (SimGrid 3.32, src/surf/cpu_cas01.cpp, cpu_ti.cpp, src/kernel/EngineImpl.cpp): a sleep of d > 0 started at
 * clock c ends at date c + max(d, precision); the engine's clock moves by the difference to the earliest date,
 * c += date - c, and every action whose date lies within the precision of the new clock ends at that step. So the
 * replica sees the same dates in the same order and gives the same row, bit for bit, whichever engine ran it.
 * Where SimGrid would end two actors' sleeps at one step, the order it runs them in is its own (its action heap's,
 * its run list's): the direct engine does not guess it, it marks the replica (rep->tie) and the replica is run
 * again on SimGrid (fl_replica_run). FAULTLINE_SIM_ENGINE=simgrid runs every replica on SimGrid, =check runs
 * every replica on both and fails on any difference (tests/sim/test_direct.c). */

#define FL_SG_PRECISION 1e-9 /* SimGrid's surf/precision, which faultline leaves at its default */

/* SimGrid's clock in this process as SimGrid's engine would have it (replicas of the simulator share one clock):
 * the direct engine moves this one; SimGrid's own is moved to it before a replica runs on SimGrid (fl_sg_clock_to) */
static double fl_direct_clock_now = NAN;

static double fl_direct_date(const fl_replica *rep, double d)
{
  return rep->clock + fmax(d, FL_SG_PRECISION);
}

/* The injector's and the crasher's next event, in replica time (the crasher draws it): 0 when there is none. */
static int fl_injector_next(fl_replica *rep, double *t)
{
  *t = fl_fsrc_peek(rep->src);
  return isfinite(*t);
}

static int fl_crasher_next(fl_replica *rep, double *t)
{
  int more = fl_crasher_draw(rep);
  *t = rep->crash_t;
  return more;
}

static const struct fl_dactor_ops {
  int (*fire)(fl_replica *rep);            /* its event is due: apply it; 0 when the actor ends */
  int (*next)(fl_replica *rep, double *t); /* the date of its next one */
} fl_dactor_ops[FL_NDACTORS] = {{fl_injector_fire, fl_injector_next}, {fl_crasher_fire, fl_crasher_next}};

/* The injector or the crasher runs, from a wake at its date (woken), from its start, or on after it woke the
 * coordinator, until it sleeps again, ends, or wakes the coordinator: a release is a SimGrid call that yields, and
 * SimGrid's engine runs the actor it grants before the one that released, so the coordinator runs (to its next
 * wait) before the actor goes on to another event at the same date (ready; fl_direct_run_ready). */
static void fl_direct_actor(fl_replica *rep, int k, int woken)
{
  struct fl_dactor *a = &rep->dact[k];
  double t;
  a->at = NAN;
  for (int fire = woken;; fire = 1) {
    if (fire) {
      long released = rep->releases;
      if (!fl_dactor_ops[k].fire(rep))
        return;
      if (rep->releases != released) {
        a->ready = 1;
        return;
      }
    }
    if (!fl_dactor_ops[k].next(rep, &t))
      return;
    if (rep->t0 + t > rep->clock) { /* sleep_until sleeps only to a later date */
      a->at = fl_direct_date(rep, rep->t0 + t - rep->clock);
      return;
    }
  }
}

/* The coordinator yields (it waits, or makes a SimGrid call): an actor that woke it runs on now. */
static void fl_direct_run_ready(fl_replica *rep)
{
  if (rep->dact[0].ready && rep->dact[1].ready) { /* both woke it at one date: the order they run in is SimGrid's */
    fl_direct_tie(rep);
    return;
  }
  for (int k = 0; k < FL_NDACTORS; k++)
    if (rep->dact[k].ready) {
      rep->dact[k].ready = 0;
      fl_direct_actor(rep, k, 0);
    }
}

/* Two actors end their sleeps at one step: the replica cannot be run here. It ends at once (every wait returns as
 * woken, fl_rep_timed_out says yes) and fl_replica_run runs it on SimGrid. */
static void fl_direct_tie(fl_replica *rep)
{
  rep->tie = 1;
  rep->over_budget = 1;
  rep->interrupt_pending = 1;
  rep->wake_t = rep->now;
}

/* The coordinator sleeps `dur` seconds (> 0); wakeable: a wake of the injector or the crasher ends it (a semaphore
 * acquisition with a timeout), else only the time does (sleep_for). Returns 1 when the time passed. */
static int fl_direct_block(fl_replica *rep, double dur, int wakeable)
{
  double at;
  if (!rep->tie)
    fl_direct_run_ready(rep);
  if (rep->tie) {
    fl_direct_tie(rep);
    return 0;
  }
  if (wakeable && rep->interrupt_pending)
    return 0; /* the token is there: the acquisition is granted at once */
  at = fl_direct_date(rep, dur);
  for (;;) {
    double m = at;
    int ends;
    for (int k = 0; k < FL_NDACTORS; k++)
      if (rep->dact[k].at < m) /* false for NAN */
        m = rep->dact[k].at;
    rep->clock += m - rep->clock;
    ends = fabs(at - rep->clock) < FL_SG_PRECISION;
    for (int k = 0; k < FL_NDACTORS; k++)
      ends |= (fabs(rep->dact[k].at - rep->clock) < FL_SG_PRECISION) << (k + 1);
    if (ends & (ends - 1)) {
      fl_direct_tie(rep);
      return 0;
    }
    if (ends == 1)
      return 1;
    for (int k = 0; k < FL_NDACTORS; k++)
      if (ends == 2 << k)
        fl_direct_actor(rep, k, 1);
    /* ends == 0: the clock stopped short of the date by more than the precision; SimGrid steps again */
    if (wakeable && rep->interrupt_pending)
      return 0;
    fl_direct_run_ready(rep); /* released a coordinator that does not wait on the token (it sleeps): runs on */
  }
}

static void fl_coordinate(fl_replica *rep)
{
  rep->sim->app->coordinate(rep);
  rep->res->makespan_s = fl_rep_now(rep);
  if (rep->sim->app->flags & FL_SIM_APP_SG_DATES)
    /* task graphs take their dates from SimGrid's clock, which the replicas of one process share: below SimGrid's
     * precision (surf/precision, 1e-9 s) the digits depend on where the replica started, and `rerun` runs it alone */
    rep->res->makespan_s = round(rep->res->makespan_s * 1e9) / 1e9;
  fl_rep_energy_to(rep, rep->res->makespan_s);
  rep->res->energy_j = rep->energy_j;
}

static void fl_coordinator_main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fl_coordinate(sg_actor_self_get_data());
}

/* A replica on the direct engine from SimGrid's clock `*clock`, which it moves to where SimGrid's engine would
 * leave it. The actors start in the order fl_rep_run creates them. */
static void fl_direct_run(fl_replica *rep, double *clock)
{
  double first;
  rep->direct = 1;
  rep->clock = rep->t0 = *clock;
  rep->dact[0].at = rep->dact[1].at = NAN;
  first = fl_fsrc_peek(rep->src);
  if (isfinite(first) && !(rep->t0 + first > rep->clock)) {
    /* an event at the start: the actors' first steps interleave at SimGrid's calls */
    fl_direct_tie(rep);
  } else {
    fl_direct_actor(rep, 0, 0);
    if (rep->crash_rng)
      fl_direct_actor(rep, 1, 0);
    fl_coordinate(rep); /* an actor still to run on at its end is killed with it (daemons) */
  }
  *clock = rep->clock;
}

/* Move SimGrid's clock in this process to `t` exactly (an actor sleeps until then): where the direct engine has
 * moved the clock SimGrid's engine would have, a replica that runs on SimGrid starts from it. A sleep from clock c to
 * a date x in (c, 2c] lands on x exactly (x - c is exact, and so is c + (x - c)); from 0 any date is exact; so the
 * clock doubles until t is within reach. */
static void fl_sg_sleeper_main(int argc, char **argv)
{
  const double *t = sg_actor_self_get_data();
  (void)argc;
  (void)argv;
  while (simgrid_get_clock() < *t) {
    double c = simgrid_get_clock();
    sg_actor_sleep_until(c == 0.0 || *t <= 2.0 * c ? *t : 2.0 * c);
  }
}

static void fl_sg_clock_to(const fl_sim *sim, double t)
{
  sg_actor_t a;
  if (!(t > simgrid_get_clock()))
    return;
  a = sg_actor_init("clock", fl_platform_controller(sim->pf));
  sg_actor_set_data(a, &t);
  sg_actor_start(a, fl_sg_sleeper_main, 0, NULL);
  simgrid_run();
}

/* A replica of an app whose dates are SimGrid's clock's (task graphs), run in a child process from the clock this
 * process keeps at zero: its figures are those `rerun` finds, whichever replica and sweep point it is. */
typedef struct fl_rep_child {
  fl_sim *sim;
  long replica;
  fl_sim_result *res;
  fl_evlog *log;
} fl_rep_child;

static fl_err fl_rep_child_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_rep_child *c = ctx;
  c->sim->in_child = 1;
  FL_TRY(fl_replica_run(c->sim, c->replica, c->res, c->log));
  FL_CHECK(fwrite(c->res, sizeof *c->res, 1, out) == 1, FL_ERR_IO, "cannot write: %s", strerror(errno));
  FL_TRY(fl_sim_events_send(c->log, out));
done:
  return rc;
}

static fl_err fl_sim_replica_in_child(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log)
{
  fl_err rc = FL_OK;
  fl_rep_child c = {sim, replica, res, log};
  FILE *f = NULL;
  double wall0 = fl_wall_seconds();
  if (log)
    fl_evlog_clear(log);
  FL_TRY(fl_sim_in_child(fl_rep_child_main, &c, &f));
  FL_CHECK(fread(res, sizeof *res, 1, f) == 1, FL_ERR_IO, "a replica's results came back short");
  if (log)
    FL_TRY(fl_sim_events_receive(log, f));
  res->wall_s = fl_wall_seconds() - wall0;
done:
  if (f)
    fclose(f);
  return rc;
}

/* One replica from its start to its row: the failure source and the job's state set up, the actors run on SimGrid's
 * engine in this process (clock NULL) or on the direct engine from *clock (*tie: it could not be run there). */
static fl_err fl_rep_run(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log, double *clock, int *tie)
{
  fl_err rc = FL_OK;
  fl_replica rep;
  fl_fsrc_config cfg;
  double wall0 = fl_wall_seconds();

  memset(&rep, 0, sizeof rep);
  memset(res, 0, sizeof *res);
  res->status = "running";
  res->makespan_s = NAN;
  res->energy_j = NAN;
  res->iterations = res->converged_at = res->complete_iterations = -1;
  res->tasks_replicated = res->tasks_substituted = res->tasks_stale = -1;
  res->tasks_lost = res->policy_objective = res->decisions = -1;
  res->error_spent = NAN;
  res->error_linf = res->error_l1 = res->policy_time_s = res->policy_gap = NAN;
  res->sdc_injected = res->sdc_detected = res->sdc_silent = res->sdc_rollbacks = sim->sdc ? 0 : -1;
  res->verify_time_s = sim->verify ? 0.0 : NAN;
  rep.sim = sim;
  rep.direct = clock != NULL; /* (before any node goes off: SimGrid's hosts follow only on SimGrid's engine) */
  rep.replica = replica;
  rep.log = log;
  rep.res = res;
  if (log)
    fl_evlog_clear(log);
  cfg = (fl_fsrc_config){.fm = sim->fm,
                         .nodes = sim->nodes,
                         .repair_s = sim->repair_s,
                         .start = sim->start,
                         .seed = sim->seed,
                         .replica = (uint64_t)replica,
                         .trace_node = sim->trace_node,
                         .trace_elsewhere = sim->kill_work != NULL,
                         .group_size = sim->group_size,
                         .group_mtbf_s = sim->group_mtbf_s,
                         .burst_ratio = sim->burst_ratio,
                         .burst_time_s = sim->burst_time_s,
                         .profiles = sim->profiles,
                         .nprofiles = sim->nprofiles};
  FL_TRY(fl_fsrc_create(&cfg, &rep.src));
  if (sim->app->replica) {
    FL_TRY(sim->app->replica(&rep));
    res->wall_s = fl_wall_seconds() - wall0;
    goto done;
  }
  if (!sim->host_off) {
    long n = fl_platform_nodes(sim->pf) > sim->nodes ? fl_platform_nodes(sim->pf) : sim->nodes;
    FL_ALLOC(sim->host_off, n);
  }
  fl_job_reset(sim);
  if (sim->app->reset)
    FL_TRY(sim->app->reset(&rep));
  {
    /* nodes already down when the run starts (failures.start = steady): the job starts without them, on spares
     * or waiting for repairs; they are not failures of the run and interrupt nothing */
    long node;
    while (fl_fsrc_next_down_at_start(rep.src, &node)) {
      fl_rep_node_off(sim, node, 1);
      fl_rep_host_set(&rep, node, 1);
      if (sim->app->on_failure)
        sim->app->on_failure(&rep, node, 0.0, 1);
      else
        fl_job_on_failure(&rep, node, 0.0, 1);
    }
  }
  if (isfinite(sim->process_mtbf_s))
    FL_TRY(fl_rng_create(sim->seed, (uint64_t)replica, FL_STREAM_PROCESS, &rep.crash_rng));
  if (sim->sdc)
    FL_TRY(fl_rng_create(sim->seed, (uint64_t)replica, FL_STREAM_SDC, &rep.sdc_rng));
  if (sim->hazard) {
    FL_ALLOC(rep.renew_t, sim->nodes);
    FL_ALLOC(rep.renewed, sim->nodes);
    for (long n = 0; n < sim->nodes; n++)
      rep.renew_t[n] = NAN;
  }
  rep.now = 0.0;
  if (clock) {
    fl_direct_run(&rep, clock);
    *tie = rep.tie;
  } else {
    sg_actor_t a;
    rep.sem = sg_sem_init(0);
    rep.t0 = simgrid_get_clock();
    a = sg_actor_init("injector", fl_platform_controller(sim->pf));
    sg_actor_set_data(a, &rep);
    sg_actor_start(a, fl_injector_main, 0, NULL);
    sg_actor_daemonize(a); /* ends with the coordinator */
    if (rep.crash_rng) {
      a = sg_actor_init("crasher", fl_platform_controller(sim->pf));
      sg_actor_set_data(a, &rep);
      sg_actor_start(a, fl_crasher_main, 0, NULL);
      sg_actor_daemonize(a);
    }
    a = sg_actor_init("coordinator", fl_platform_controller(sim->pf));
    sg_actor_set_data(a, &rep);
    sg_actor_start(a, fl_coordinator_main, 0, NULL);
    simgrid_run();
  }
  FL_TRY(rep.rc);
  FL_CHECK(rep.tie || strcmp(res->status, "running") != 0, FL_ERR_INTERNAL,
           "replica %ld: the coordinator did not finish", replica);

  /* hosts still down (the injector's, and those the coordinator failed: failures.trace_clock = work) come back for
   * the next replica */
  fl_rep_hosts_back(&rep);
  res->wall_s = fl_wall_seconds() - wall0;
done:
  if (rep.sem)
    sg_sem_destroy(rep.sem);
  if (rep.crash_rng)
    gsl_rng_free(rep.crash_rng);
  if (rep.sdc_rng)
    gsl_rng_free(rep.sdc_rng);
  free(rep.renew_t);
  free(rep.renewed);
  fl_fsrc_destroy(&rep.src);
  return rc;
}

void fl_sim_engine_add(const long add[3])
{
  for (int k = 0; k < 3; k++)
    fl_engine_counts[k] += add[k];
}

void fl_sim_engine_counts(long *direct, long *simgrid, long *ties)
{
  *direct = fl_engine_counts[0];
  *simgrid = fl_engine_counts[1];
  *ties = fl_engine_counts[2];
}

/* Two runs of one replica compared (FAULTLINE_SIM_ENGINE = check): every figure but the host times, bit for bit,
 * and every event. */
static int fl_same_double(double a, double b)
{
  return memcmp(&a, &b, sizeof a) == 0;
}

static fl_err fl_direct_compare(long replica, const fl_sim_result *d, const fl_sim_result *g, double dclock,
                                double gclock, const fl_evlog *dlog, const fl_evlog *glog)
{
  fl_err rc = FL_OK;
  FILE *fd = NULL, *fg = NULL;
  fl_sim_result a = *d, b = *g;
  a.wall_s = b.wall_s = a.policy_time_s = b.policy_time_s = 0.0; /* host times */
  FL_CHECK(strcmp(a.status, b.status) == 0, FL_ERR_INTERNAL, "replica %ld: the direct engine ends '%s', SimGrid '%s'",
           replica, a.status, b.status);
  FL_CHECK(!a.policy_solver == !b.policy_solver && (!a.policy_solver || !strcmp(a.policy_solver, b.policy_solver)),
           FL_ERR_INTERNAL, "replica %ld: the engines' solvers differ", replica);
  a.status = b.status = a.policy_solver = b.policy_solver = NULL;
  FL_CHECK(memcmp(&a, &b, sizeof a) == 0, FL_ERR_INTERNAL,
           "replica %ld: the direct engine's figures differ from SimGrid's (makespan %.17g vs %.17g, failures %ld vs "
           "%ld)",
           replica, a.makespan_s, b.makespan_s, a.failures, b.failures);
  FL_CHECK(fl_same_double(dclock, gclock), FL_ERR_INTERNAL,
           "replica %ld: the direct engine leaves SimGrid's clock at %.17g, SimGrid at %.17g", replica, dclock, gclock);
  FL_CHECK((fd = tmpfile()) && (fg = tmpfile()), FL_ERR_IO, "cannot create a temporary file: %s", strerror(errno));
  FL_TRY(fl_sim_events_send(dlog, fd));
  FL_TRY(fl_sim_events_send(glog, fg));
  rewind(fd);
  rewind(fg);
  {
    uint64_t nd, ng;
    FL_CHECK(fread(&nd, sizeof nd, 1, fd) == 1 && fread(&ng, sizeof ng, 1, fg) == 1, FL_ERR_IO, "events: short");
    FL_CHECK(nd == ng, FL_ERR_INTERNAL, "replica %ld: the direct engine logs %llu events, SimGrid %llu", replica,
             (unsigned long long)nd, (unsigned long long)ng);
    for (uint64_t k = 0; k < nd; k++) {
      fl_evlog_entry x, y;
      FL_CHECK(fread(&x, sizeof x, 1, fd) == 1 && fread(&y, sizeof y, 1, fg) == 1, FL_ERR_IO, "events: short");
      FL_CHECK(fl_same_double(x.t_s, y.t_s) && fl_same_double(x.value, y.value) && x.n == y.n && x.node == y.node &&
                   x.rank == y.rank && x.peer == y.peer && x.kind == y.kind && !x.level == !y.level &&
                   (!x.level || !strcmp(x.level, y.level)) && !x.label == !y.label &&
                   (!x.label || !strcmp(x.label, y.label)),
               FL_ERR_INTERNAL, "replica %ld: event %llu differs between the engines (kind %d at %.17g vs %d at %.17g)",
               replica, (unsigned long long)k, x.kind, x.t_s, y.kind, y.t_s);
    }
  }
done:
  if (fd)
    fclose(fd);
  if (fg)
    fclose(fg);
  return rc;
}

/* A replica on SimGrid's engine in this process, from SimGrid's clock `t0` (where the direct engine left it, or
 * where SimGrid is); *end: the clock it leaves. */
static fl_err fl_sg_replica(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log, double t0, double *end)
{
  fl_err rc;
  fl_platform_realize(sim->pf); /* SimGrid's engine: the platform in SimGrid, if the direct engine ran without it */
  fl_sg_clock_to(sim, t0);
  rc = fl_rep_run(sim, replica, res, log, NULL, NULL);
  *end = simgrid_get_clock();
  return rc;
}

/* A replica on the direct engine, from the clock SimGrid's engine would have now; on SimGrid where the direct engine
 * cannot order two actors, or besides it to compare (check). */
static fl_err fl_sim_replica_direct(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log)
{
  fl_err rc = FL_OK;
  double t0 = fl_direct_clock_now, clock = t0, sgclock;
  int tie = 0;
  fl_evlog dlog, glog;
  fl_sim_result gres;
  fl_evlog_init(&dlog, 0);
  fl_evlog_init(&glog, 0);
  if (sim->engine == FL_SIM_ENGINE_CHECK && !log) { /* compare the events too */
    fl_evlog_init(&dlog, 2);
    log = &dlog;
  }
  FL_TRY(fl_rep_run(sim, replica, res, log, &clock, &tie));
  if (tie) {
    fl_engine_counts[2]++;
    FL_TRY(fl_sg_replica(sim, replica, res, log, t0, &clock));
  } else if (sim->engine == FL_SIM_ENGINE_CHECK) {
    fl_evlog_init(&glog, log->enabled ? 1 + log->phases : 0);
    FL_TRY(fl_sg_replica(sim, replica, &gres, &glog, t0, &sgclock));
    FL_TRY(fl_direct_compare(replica, res, &gres, clock, sgclock, log, &glog));
    fl_engine_counts[0]++;
  } else {
    fl_engine_counts[0]++;
  }
  fl_direct_clock_now = clock;
done:
  fl_evlog_free(&dlog);
  fl_evlog_free(&glog);
  return rc;
}

fl_err fl_replica_run(fl_sim *sim, long replica, fl_sim_result *res, fl_evlog *log)
{
  if ((sim->app->flags & FL_SIM_APP_SG_DATES) && !sim->in_child)
    return fl_sim_replica_in_child(sim, replica, res, log);
  if (sim->in_child)
    return fl_rep_run(sim, replica, res, log, NULL, NULL);
  if (isnan(fl_direct_clock_now)) /* SimGrid's clock as SimGrid's engine would have it: where it is, at first */
    fl_direct_clock_now = fl_platform_realized(sim->pf) ? simgrid_get_clock() : 0.0;
  if (sim->direct)
    return fl_sim_replica_direct(sim, replica, res, log);
  fl_engine_counts[1]++;
  return fl_sg_replica(sim, replica, res, log, fl_direct_clock_now, &fl_direct_clock_now);
}

void fl_sim_task_row(const fl_sim *sim, const fl_sim_result *res, fl_db_run *row)
{
  (void)res;
  row->work_s = sim->work_s;
  row->checkpoint_cost_s = NAN;
  row->restart_cost_s = NAN;
  row->downtime_s = NAN;
}
