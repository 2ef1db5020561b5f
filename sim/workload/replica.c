/* replica.c — a replica of the workload app (see workload_run.h): the coordinator that owns the machine (the
 * scheduler's queue and running set, the nodes each job holds, failures and repairs, each job's phases), the jobs'
 * rows and the machine's figures, in a child process from SimGrid's clock at zero. */
#include "workload_run.h"

static void fl_wl_heap_push(fl_wlrep *wr, fl_jobev e)
{
  if (fl_jobheap_push(&wr->heap, e) != FL_OK && wr->rc == FL_OK)
    wr->rc = FL_ERR_NOMEM;
}

/* The free list of up nodes that hold no job. */
static void fl_wl_free_push(fl_wlrep *wr, long node)
{
  wr->free_pos[node] = (int32_t)wr->nfree;
  wr->freel[wr->nfree++] = (int32_t)node;
}

static void fl_wl_free_remove(fl_wlrep *wr, long node)
{
  long at = wr->free_pos[node];
  long last = wr->freel[--wr->nfree];
  wr->freel[at] = (int32_t)last;
  wr->free_pos[last] = (int32_t)at;
  wr->free_pos[node] = -1;
}

static fl_evlog_entry *fl_wl_log_job(fl_wlrep *wr, int kind, long j, long node, double value, long n)
{
  fl_evlog_entry *e = fl_evlog_add(wr->rep->log, wr->now, kind, node);
  if (e) {
    e->rank = (int32_t)FL_WJ(wr, j)->t.id;
    e->value = value;
    e->n = n;
  }
  return e;
}

/* The same with the level named, when the strategy writes more than one. */
static void fl_wl_log_level(fl_wlrep *wr, int kind, long j, double value, fl_level level)
{
  fl_evlog_entry *e = fl_wl_log_job(wr, kind, j, -1, value, -1);
  if (e && (wr->w->levels & (wr->w->levels - 1)))
    e->level = fl_level_name(level);
}

static void fl_wl_run_add(fl_wlrep *wr, long j)
{
  if (!wr->w->coop)
    return;
  FL_WJ(wr, j)->run_pos = wr->nrun;
  wr->runl[wr->nrun++] = j;
  wr->coop_dirty = 1;
}

static void fl_wl_run_remove(fl_wlrep *wr, long j)
{
  long a = wr->w->coop ? FL_WJ(wr, j)->run_pos : -1;
  if (a < 0)
    return;
  wr->runl[a] = wr->runl[--wr->nrun];
  FL_WJ(wr, wr->runl[a])->run_pos = a;
  FL_WJ(wr, j)->run_pos = -1;
  wr->coop_dirty = 1;
}

/* Start job j's next compute segment (or finish it). */
static void fl_wl_compute(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  double left = jb->t.run_s - jb->done_s;
  if (wr->w->coop && wr->coop_dirty)
    fl_wl_coop_update(wr);
  jb->seg_s = fmin(wr->w->coop ? jb->tau : jb->tau_s, left);
  jb->phase = FL_WLP_COMPUTE;
  jb->phase_t = wr->now;
  jb->serial++;
  fl_wl_heap_push(wr, (fl_jobev){.t = wr->now + jb->seg_s, .job = j, .serial = jb->serial});
}

/* Job j gives its nodes back (it finished or failed): the up ones are free again, the down ones come back with
 * their repair. */
static void fl_wl_release(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  long down = 0;
  for (long k = 0; k < jb->nslots; k++) {
    long n = jb->nodes[k];
    wr->node_job[n] = -1;
    if (wr->down[n])
      down++;
    else
      fl_wl_free_push(wr, n);
  }
  free(jb->nodes);
  jb->nodes = NULL;
  free(jb->dead);
  jb->dead = NULL;
  jb->phase = FL_WLP_NONE;
  jb->serial++;
  wr->running--;
  fl_wl_run_remove(wr, j);
  if (wr->rc == FL_OK)
    wr->rc = fl_batch_end(wr->batch, j);
  if (wr->rc == FL_OK && down)
    wr->rc = fl_batch_capacity(wr->batch, -down);
}

/* Energy: job j's nodes computed for dur seconds (a segment, or its part before a failure): each drew its busy
 * power instead of its idle one. */
static void fl_wl_busy_energy(fl_wlrep *wr, long j, double dur)
{
  const fl_wlj *jb = FL_WJ(wr, j);
  long live = 0;
  for (long k = 0; k < jb->nslots; k++) /* a dead copy's node computes no more (fl_wl_job_fails counted its part) */
    live += !(jb->dead && jb->dead[k]);
  if (!wr->sim->power) {
    wr->busy_j += (wr->sim->power_u.busy - wr->sim->power_u.idle) * (double)live * dur;
    return;
  }
  for (long k = 0; k < jb->nslots; k++) {
    const fl_power *pw = fl_sim_power(wr->sim, jb->nodes[k]);
    if (!(jb->dead && jb->dead[k]))
      wr->busy_j += (pw->busy - pw->idle) * dur;
  }
}

/* Job j's compute segment ended. */
static void fl_wl_segment_done(fl_wlrep *wr, long j)
{
  fl_wlj *jb = FL_WJ(wr, j);
  const fl_swf_job *t = &jb->t;
  fl_wl_busy_energy(wr, j, jb->seg_s);
  if (jb->done_s + jb->seg_s >= t->run_s) {
    jb->done_s = t->run_s;
    jb->row.end_s = wr->now;
    wr->finished++;
    fl_wl_log_job(wr, FL_EV_JOB_END, j, -1, NAN, -1);
    fl_wl_release(wr, j);
    return;
  }
  /* (a job whose level would be none, one node under a buddy level alone, has an infinite interval: set-up) */
  fl_level level = fl_wl_level(wr->w, t->nodes, fl_strat_level(&wr->sim->strat, jb->row.checkpoints + 1));
  if (level == FL_LEVEL_BUDDY || wr->w->io_policy == FL_IO_OBLIVIOUS) { /* cooperative I/O orders the PFS's */
    fl_wl_io_start(wr, j, 0, level, -1);
    return;
  }
  jb->phase = FL_WLP_IOWAIT;
  jb->req_t = wr->now;
  jb->serial++;
  wr->pfsq[wr->npfsq++] = j;
}

/* A node of running job j failed at now. A copy of each of its ranks still alive (replication): the failure is
 * masked, the dead copy's node stays with the job until it ends. Else the job stops, and the strategy decides
 * from what survived (fl_strat_on_failure, as in the other engines): the buddy level when every partner copy
 * lives and the job can stay where it is — it keeps its live nodes and takes a free node of the machine for the
 * lost one, as a resource manager that grows an allocation by a node (restart in place, as SCR restarts within
 * an allocation), when the scheduler would give that node to a newcomer (no reservation delayed, nobody first in
 * line for it); the file level or the start otherwise, giving its nodes back and waiting for nodes again, first
 * in the queue or last (app.restart). The work past the version restored is lost. */
static void fl_wl_job_fails(fl_wlrep *wr, long j, long node)
{
  fl_wlj *jb = FL_WJ(wr, j);
  fl_wlrun *w = wr->w;
  const fl_swf_job *t = &jb->t;
  double lost = 0.0, restored;
  long slot = 0;
  fl_recovery rec;
  fl_failure_view view = {.copies_left = 0,
                          .buddy_version = jb->lv_v[FL_LEVEL_BUDDY],
                          .file_version = jb->lv_v[FL_LEVEL_FILE],
                          .local_version = jb->lv_v[FL_LEVEL_LOCAL],
                          .xor_version = jb->lv_v[FL_LEVEL_XOR]};
  while (slot < jb->nslots && jb->nodes[slot] != node)
    slot++;
  if (jb->copies > 1) {
    long left = 0; /* the rank's other live copies */
    for (long c = 0; c < jb->copies; c++)
      left += c * t->nodes + slot % t->nodes != slot && !jb->dead[c * t->nodes + slot % t->nodes];
    if (left > 0) {
      jb->dead[slot] = 1;
      if (jb->phase == FL_WLP_COMPUTE) { /* its part of the segment's busy energy: up to now */
        const fl_power *pw = wr->sim->power ? fl_sim_power(wr->sim, node) : &wr->sim->power_u;
        wr->busy_j += (pw->busy - pw->idle) * (wr->now - jb->phase_t);
      }
      jb->row.failures++;
      wr->rep->res->failures++;
      fl_wl_log_job(wr, FL_EV_FAILURE_JOB_COPY, j, node, NAN, left);
      return;
    }
  }
  switch (jb->phase) {
  case FL_WLP_COMPUTE:
    lost = wr->now - jb->phase_t;
    fl_wl_busy_energy(wr, j, lost);
    break;
  case FL_WLP_IOWAIT:
    lost = jb->seg_s;
    jb->row.io_wait_s += wr->now - jb->req_t;
    for (long a = 0; a < wr->npfsq; a++)
      if (wr->pfsq[a] == j) {
        memmove(wr->pfsq + a, wr->pfsq + a + 1, (size_t)(wr->npfsq - a - 1) * sizeof *wr->pfsq);
        wr->npfsq--;
        break;
      }
    break;
  case FL_WLP_CKPT:
  case FL_WLP_RESTART:
    if (jb->phase == FL_WLP_CKPT) {
      lost = jb->seg_s;
      jb->row.checkpoint_s += wr->now - jb->phase_t;
    } else {
      jb->row.restart_s += wr->now - jb->phase_t;
    }
    fl_wl_io_stop(jb);
    break;
  default: break;
  }
  /* partner copies live on the job's other nodes; they outlast this failure if the job can stay (a free node to
   * take the lost one's place) and was not restarting (a second failure while a copy is read back) */
  {
    /* a lost node takes its local disk: the local level never survives (node failures only); the XOR level does
     * when the lost rank's set holds another rank to rebuild it from */
    int stay = jb->phase != FL_WLP_RESTART && wr->nfree > 0;
    if (stay && wr->rc == FL_OK) {
      /* a free node is the job's only where the scheduler would give it to a newcomer that needs it until the
       * job's expected end: not one a waiting job's reservation counts on (easy), nor one a waiting job is first
       * in line for (fcfs) */
      double until = fl_batch_expected_end(wr->batch, j) - wr->now;
      wr->rc = fl_batch_would_start(wr->batch, wr->now, 1, until > 0 ? until : 0.0, &stay);
    }
    long g = w->xor_g, k = slot % t->nodes;
    long set = (k / g) * g, set_size = t->nodes - set < g ? t->nodes - set : g;
    view.buddy_intact = stay && t->nodes > 1 && jb->lv_v[FL_LEVEL_BUDDY] >= 0;
    view.xor_intact = stay && set_size > 1 && jb->lv_v[FL_LEVEL_XOR] >= 0;
    view.local_intact = 0;
  }
  rec = fl_strat_on_failure(&wr->sim->strat, &view);
  restored = rec.action == FL_ACT_ROLLBACK ? jb->lv_s[rec.level] : 0.0;
  lost += jb->done_s - restored; /* committed work newer than the version restored */
  jb->done_s = restored;
  jb->row.lost_work_s += lost;
  jb->row.failures++;
  wr->rep->res->failures++;
  wr->rep->res->interruptions++;
  int in_place = rec.action == FL_ACT_ROLLBACK && (rec.level == FL_LEVEL_BUDDY || rec.level == FL_LEVEL_XOR);
  fl_wl_log_job(wr, FL_EV_FAILURE_JOB, j, node, lost, in_place ? 1 : -1);
  if (wr->pfs_holder == j)
    wr->pfs_holder = -1;
  if (in_place) {
    long spare = wr->freel[wr->nfree - 1];
    fl_wl_free_remove(wr, spare);
    wr->node_job[node] = -1; /* down: it comes back free with its repair */
    wr->node_job[spare] = (int32_t)j;
    jb->nodes[slot] = (int32_t)spare;
    if (wr->rc == FL_OK) /* the machine lost a node: the job holds as many as before */
      wr->rc = fl_batch_capacity(wr->batch, -1);
    fl_wl_io_start(wr, j, 1, rec.level, slot);
    return;
  }
  for (int l = 0; l < FL_NLEVELS; l++) /* its nodes' memory and disks go with them; files stay, unless none is read */
    if (l != FL_LEVEL_FILE || rec.action != FL_ACT_ROLLBACK) {
      jb->lv_v[l] = -1;
      jb->lv_s[l] = 0.0;
    }
  fl_wl_release(wr, j);
  double est = t->req_s - jb->done_s;
  if (!(est > 0))
    est = t->run_s - jb->done_s;
  if (wr->rc == FL_OK)
    wr->rc = fl_batch_submit(wr->batch, j, t->nodes * jb->copies, est, !w->requeue);
}

/* A job that just started: it reads its file-level checkpoint back, or computes. */
static void fl_wl_begin(fl_wlrep *wr, long j)
{
  if (FL_WJ(wr, j)->done_s > 0)
    fl_wl_io_start(wr, j, 1, FL_LEVEL_FILE, -1); /* read its file-level checkpoint back */
  else
    fl_wl_compute(wr, j);
}

/* Ask the scheduler; start what it picks. */
static void fl_wl_schedule(fl_wlrep *wr)
{
  long n = 0;
  if (wr->rc != FL_OK || wr->timeout)
    return;
  if (fl_batch_waiting(wr->batch) > wr->nstarted_cap) { /* room for the queue's length (fl_batch_pick) */
    long cap = 2 * fl_batch_waiting(wr->batch);
    long *grown = realloc(wr->started, (size_t)cap * sizeof *grown);
    if (!grown) {
      wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    wr->started = grown;
    wr->nstarted_cap = cap;
  }
  if ((wr->rc = fl_batch_pick(wr->batch, wr->now, wr->started, &n)) != FL_OK)
    return;
  for (long k = 0; k < n; k++) {
    long j = wr->started[k];
    fl_wlj *jb = FL_WJ(wr, j);
    long copies = jb->copies, nodes = jb->t.nodes * copies;
    jb->nslots = nodes;
    jb->nodes = malloc((size_t)nodes * sizeof *jb->nodes);
    if (copies > 1 && jb->nodes)
      jb->dead = calloc((size_t)nodes, 1);
    if (!jb->nodes || (copies > 1 && !jb->dead) || wr->nfree < nodes) {
      wr->rc = jb->nodes ? fl_err_set(FL_ERR_INTERNAL, "the scheduler started job %ld on %ld nodes, %ld free", j, nodes,
                                      wr->nfree)
                         : fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    for (long i = 0; i < nodes; i++) {
      long node = wr->freel[wr->nfree - 1];
      fl_wl_free_remove(wr, node);
      jb->nodes[i] = (int32_t)node;
      wr->node_job[node] = (int32_t)j;
    }
    if (isnan(jb->row.start_s))
      jb->row.start_s = wr->now;
    wr->running++;
    fl_wl_run_add(wr, j);
    fl_wl_log_job(wr, FL_EV_JOB_START, j, -1, NAN, nodes);
    if (!wr->w->coop)
      fl_wl_begin(wr, j);
  }
  for (long k = 0; wr->w->coop && k < n; k++) /* cooperative periods: over every job this instant started */
    fl_wl_begin(wr, wr->started[k]);
}

/* Energy: node was down from down_since[node] to t; what it drew beyond its idle power within the span. */
static void fl_wl_off_energy(fl_wlrep *wr, long node, double t)
{
  const fl_power *pw = fl_sim_power(wr->sim, node);
  double from = fmax(wr->down_since[node], wr->first_submit);
  if (t > from)
    wr->off_j += (pw->off - pw->idle) * (t - from);
}

/* One failure-source event at now. */
static void fl_wl_failure_event(fl_wlrep *wr, long node, fl_fsrc_kind kind)
{
  if (kind == FL_FSRC_REPAIR) {
    if (!wr->down[node])
      return;
    wr->down[node] = 0;
    fl_wl_off_energy(wr, node, wr->now);
    fl_evlog_add(wr->rep->log, wr->now, FL_EV_REPAIR_IDLE, node);
    if (wr->node_job[node] < 0) {
      fl_wl_free_push(wr, node);
      if (wr->rc == FL_OK)
        wr->rc = fl_batch_capacity(wr->batch, 1);
    }
    return;
  }
  if (wr->down[node])
    return;
  wr->down[node] = 1;
  wr->down_since[node] = wr->now;
  if (kind == FL_FSRC_FAILURE)
    wr->rep->res->platform_failures++;
  long j = wr->node_job[node];
  if (j >= 0) {
    fl_wl_job_fails(wr, j, node);
  } else {
    fl_wl_free_remove(wr, node);
    fl_evlog_add(wr->rep->log, wr->now, FL_EV_FAILURE_IDLE, node);
    if (wr->rc == FL_OK)
      wr->rc = fl_batch_capacity(wr->batch, -1);
  }
}

/* Job j ended (or failed for good) long ago, or never will run here: its figures added to the machine's, in job
 * order (the sums come out as a loop over the jobs would make them), and its row written to the replica's file. */
static void fl_wl_account(fl_wlrep *wr, const fl_db_job *r, double run)
{
  double q = (double)(r->nodes * r->copies); /* the nodes it held */
  wr->a_first = fmin(wr->a_first, r->submit_s);
  wr->a_lost += q * r->lost_work_s;
  wr->a_ck += q * r->checkpoint_s;
  wr->a_rs += q * r->restart_s;
  wr->a_iw += q * r->io_wait_s;
  if (!isnan(r->start_s)) {
    wr->a_started++;
    wr->a_wait += r->start_s - r->submit_s;
  }
  if (!isnan(r->end_s)) {
    wr->a_completed++;
    wr->a_last = fmax(wr->a_last, r->end_s);
    wr->a_useful += (double)r->nodes * run; /* its copies' node-hours are not useful work */
    wr->a_replica += (double)(r->nodes * (r->copies - 1)) * run;
    wr->a_bsld += fmax(1.0, (r->end_s - r->submit_s) / fmax(run, 10.0));
  }
  wr->rep->res->checkpoints += r->checkpoints;
  if (fwrite(r, sizeof *r, 1, wr->out) != 1 && wr->rc == FL_OK)
    wr->rc = fl_err_set(FL_ERR_IO, "cannot write a job's row: %s", strerror(errno));
  wr->nrows++;
}

/* The finished jobs at the start of the window leave it. */
static void fl_wl_retire(fl_wlrep *wr)
{
  while (wr->lo < wr->next_submit && !isnan(FL_WJ(wr, wr->lo)->row.end_s)) {
    fl_wlj *jb = FL_WJ(wr, wr->lo);
    fl_wl_account(wr, &jb->row, jb->t.run_s);
    free(jb->nodes); /* (given back as it ended) */
    free(jb->dead);
    jb->nodes = NULL;
    jb->dead = NULL;
    wr->lo++;
  }
}

/* The next job arrives: it enters the window (twice the room when full) with its interval and costs, and the
 * queue; the one after it is read. */
static void fl_wl_admit(fl_wlrep *wr)
{
  long j = wr->next_submit;
  if (j - wr->lo == wr->wcap) {
    long cap = wr->wcap ? 2 * wr->wcap : 64;
    fl_wlj *grown = malloc((size_t)cap * sizeof *grown);
    if (!grown) {
      wr->rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
      return;
    }
    for (long i = wr->lo; i < j; i++)
      grown[i & (cap - 1)] = wr->win[i & (wr->wcap - 1)];
    free(wr->win);
    wr->win = grown;
    wr->wcap = cap;
  }
  fl_wlj *jb = FL_WJ(wr, j);
  memset(jb, 0, sizeof *jb);
  jb->t = wr->pend;
  if ((wr->rc = fl_wl_params(wr->w, wr->sim, &jb->t, jb)) != FL_OK)
    return;
  jb->tau = jb->tau_s;
  jb->run_pos = -1;
  jb->row = (fl_db_job){.job = jb->t.id,
                        .submit_s = jb->t.submit_s,
                        .start_s = NAN,
                        .end_s = NAN,
                        .run_s = jb->t.run_s,
                        .nodes = jb->t.nodes,
                        .copies = jb->copies};
  for (int l = 0; l < FL_NLEVELS; l++)
    jb->lv_v[l] = -1;
  wr->next_submit++;
  wr->rc = fl_batch_submit(wr->batch, j, jb->t.nodes * jb->copies, jb->t.req_s, 0);
  if (wr->rc == FL_OK)
    wr->rc = fl_wl_src_next(&wr->src, &wr->pend, &wr->have);
}

/* Is heap entry e of a phase since ended (a failure, the job's end)? */
static int fl_wl_stale(const fl_wlrep *wr, fl_jobev e)
{
  return e.job < wr->lo || e.serial != FL_WJ(wr, e.job)->serial;
}

/* Job j's I/O completed. */
static void fl_wl_io_done(fl_wlrep *wr, fl_wlio *io)
{
  long j = io->job;
  fl_wlj *jb = FL_WJ(wr, j);
  double dur = wr->now - jb->phase_t;
  fl_wl_io_unref(io); /* the job's reference */
  jb->io = NULL;
  if (io->restart) {
    jb->row.restart_s += dur;
    fl_wl_log_level(wr, FL_EV_RESTART_JOB, j, jb->done_s, io->level);
  } else {
    jb->row.checkpoint_s += dur;
    jb->done_s += jb->seg_s;
    jb->row.checkpoints++;
    /* the levels it wrote: its own, and those a checkpoint of it refreshes (the strategy's writes; none that needs
     * a partner on a job of one node) */
    unsigned wrote = (FL_LEVEL_BIT(io->level) | wr->sim->strat.writes[io->level]) & fl_wl_level_mask(jb->t.nodes);
    for (int l = 0; l < FL_NLEVELS; l++)
      if (wrote & FL_LEVEL_BIT(l)) {
        jb->lv_s[l] = jb->done_s;
        jb->lv_v[l] = jb->row.checkpoints;
      }
    fl_wl_log_level(wr, FL_EV_CHECKPOINT_JOB, j, jb->done_s, io->level);
    if (wr->pfs_holder == j)
      wr->pfs_holder = -1; /* the next is chosen once this instant's requests are in */
  }
  fl_wl_io_unref(io); /* the list's */
  fl_wl_compute(wr, j);
}

static void fl_wl_coordinator(int argc, char **argv)
{
  fl_wlrep *wr = sg_actor_self_get_data();
  fl_wlrun *w = wr->w;
  fl_replica *rep = wr->rep;
  double t0 = simgrid_get_clock();
  (void)argc;
  (void)argv;
  wr->now = 0.0;
  while (wr->rc == FL_OK) {
    if (wr->finished == w->njobs)
      break;
    /* nothing can ever run again: jobs wait, none runs or is to come, and no node will come back (failures
     * only take more) */
    if (wr->running == 0 && !wr->have && fl_batch_waiting(wr->batch) > 0 && fl_fsrc_pending_repairs(rep->src) == 0)
      break;
    double tnext = wr->have ? wr->pend.submit_s : INFINITY;
    while (wr->heap.n > 0 && fl_wl_stale(wr, wr->heap.v[0]))
      fl_jobheap_pop(&wr->heap); /* a phase a failure ended */
    if (wr->heap.n > 0)
      tnext = fmin(tnext, wr->heap.v[0].t);
    if (!rep->over_budget)
      tnext = fmin(tnext, fl_fsrc_peek(rep->src));
    if (!isfinite(tnext) && wr->running == 0)
      break; /* nothing left to happen */
    if (tnext > wr->sim->max_time_s)
      tnext = wr->sim->max_time_s;
    if (!wr->done_head) {
      double dt = tnext - wr->now;
      int acquired = 0;
      if (isfinite(dt) && dt > 0)
        acquired = sg_sem_acquire_timeout(wr->sem, dt) == 0;
      else if (!isfinite(dt))
        acquired = (sg_sem_acquire(wr->sem), 1);
      if (acquired) {
        wr->now = simgrid_get_clock() - t0; /* an I/O completed: its date is the platform's */
        if (wr->now > tnext)
          wr->now = tnext;
      } else {
        wr->now = tnext;
      }
    } else if (sg_sem_would_block(wr->sem) == 0) {
      sg_sem_acquire(wr->sem); /* the token of a completion already listed */
    }
    if (wr->now >= wr->sim->max_time_s && wr->finished < w->njobs) {
      wr->timeout = 1;
      break;
    }
    /* I/O that completed */
    while (wr->done_head) {
      fl_wlio *io = wr->done_head;
      wr->done_head = io->next;
      if (!wr->done_head)
        wr->done_tail = NULL;
      if (io->job >= wr->lo && FL_WJ(wr, io->job)->io == io)
        fl_wl_io_done(wr, io);
      else
        fl_wl_io_unref(io); /* its job failed meanwhile */
    }
    /* phases that end now, then failures and repairs, then arrivals, then one decision */
    while (wr->heap.n > 0 && wr->heap.v[0].t <= wr->now) {
      fl_jobev e = fl_jobheap_pop(&wr->heap);
      if (!fl_wl_stale(wr, e))
        fl_wl_segment_done(wr, e.job);
    }
    while (!rep->over_budget && fl_fsrc_peek(rep->src) <= wr->now) {
      double t;
      long node;
      fl_fsrc_kind kind;
      if (!fl_fsrc_next(rep->src, &t, &node, &kind))
        break;
      if (++rep->nevents > wr->sim->max_events) {
        rep->over_budget = 1;
        fl_evlog_entry *e = fl_evlog_add(rep->log, wr->now, FL_EV_BUDGET, -1);
        if (e)
          e->n = wr->sim->max_events;
        wr->timeout = 1;
        break;
      }
      if (node < w->machine)
        fl_wl_failure_event(wr, node, kind);
    }
    if (wr->timeout)
      break;
    while (wr->rc == FL_OK && wr->have && wr->pend.submit_s <= wr->now)
      fl_wl_admit(wr);
    fl_wl_pfs_next(wr);
    fl_wl_schedule(wr);
    fl_wl_retire(wr);
  }
  /* what is still under way stops with the replica */
  for (long j = wr->lo; j < wr->next_submit; j++)
    fl_wl_io_stop(FL_WJ(wr, j));
  while (wr->done_head) {
    fl_wlio *io = wr->done_head;
    wr->done_head = io->next;
    fl_wl_io_unref(io);
  }
}

/* The replica, in the child: the figures, then the jobs' rows, then the events, written to `out`. */
typedef struct fl_wl_run_ctx {
  fl_replica *rep;
} fl_wl_run_ctx;

static fl_err fl_wl_replica_main(void *ctx, FILE *out)
{
  fl_err rc = FL_OK;
  fl_replica *rep = ((fl_wl_run_ctx *)ctx)->rep;
  fl_sim *sim = rep->sim;
  fl_wlrun *w = sim->app_state;
  fl_wlrep wr;
  fl_db_machine fig;
  memset(&wr, 0, sizeof wr);
  memset(&fig, 0, sizeof fig);
  wr.rep = rep;
  wr.sim = sim;
  wr.w = w;
  wr.pfs_holder = -1;
  wr.out = out;
  wr.a_first = INFINITY;
  wr.a_last = -INFINITY;
  FL_ALLOC(wr.node_job, w->machine);
  FL_ALLOC(wr.down, w->machine);
  FL_ALLOC(wr.down_since, w->machine);
  FL_ALLOC(wr.freel, w->machine);
  FL_ALLOC(wr.free_pos, w->machine);
  FL_ALLOC(wr.pfsq, w->machine); /* (jobs waiting for the PFS are running: one node each at least) */
  if (w->aggregated) {
    FL_ALLOC(wr.cab_n, w->ncab); /* zeroed, and left so by each use */
    FL_ALLOC(wr.cab_seen, w->ncab);
  }
  if (w->coop) { /* over the running jobs: one node each at least */
    FL_ALLOC(wr.runl, w->machine);
    FL_ALLOC(wr.c_cost, w->machine);
    FL_ALLOC(wr.c_mtbf, w->machine);
    FL_ALLOC(wr.c_load, w->machine);
    FL_ALLOC(wr.c_nodes, w->machine);
    FL_ALLOC(wr.c_period, w->machine);
  }
  FL_TRY(fl_batch_create(w->sched, w->machine, &wr.batch));
  /* the first job (in submit order: the span's start) */
  FL_TRY(fl_wl_src_open(w, &wr.src));
  FL_TRY(fl_wl_src_next(&wr.src, &wr.pend, &wr.have));
  wr.first_submit = wr.have ? wr.pend.submit_s : INFINITY;
  /* the free list from the top, so that jobs take the lowest nodes first */
  for (long n = w->machine - 1; n >= 0; n--) {
    wr.node_job[n] = -1;
    fl_wl_free_push(&wr, n);
  }
  {
    long node;
    while (fl_fsrc_next_down_at_start(rep->src, &node))
      if (node < w->machine && !wr.down[node]) {
        wr.down[node] = 1;
        wr.down_since[node] = 0.0;
        fl_wl_free_remove(&wr, node);
        FL_TRY(fl_batch_capacity(wr.batch, -1));
      }
  }
  wr.sem = sg_sem_init(0);
  {
    sg_actor_t a = sg_actor_init("coordinator", fl_platform_controller(sim->pf));
    sg_actor_set_data(a, &wr);
    sg_actor_start(a, fl_wl_coordinator, 0, NULL);
  }
  simgrid_run();
  FL_TRY(wr.rc);
  {
    /* the jobs still in the window (a replica that did not complete), then those that never came (the rows of
     * every job of the trace) */
    for (long j = wr.lo; j < wr.next_submit; j++)
      fl_wl_account(&wr, &FL_WJ(&wr, j)->row, FL_WJ(&wr, j)->t.run_s);
    while (wr.have && wr.rc == FL_OK) {
      fl_db_job r = {.job = wr.pend.id,
                     .submit_s = wr.pend.submit_s,
                     .start_s = NAN,
                     .end_s = NAN,
                     .run_s = wr.pend.run_s,
                     .nodes = wr.pend.nodes,
                     .copies = fl_wl_copies(w, wr.pend.nodes)};
      fl_wl_account(&wr, &r, wr.pend.run_s);
      wr.rc = fl_wl_src_next(&wr.src, &wr.pend, &wr.have);
    }
    FL_TRY(wr.rc);
    FL_CHECK(wr.nrows == w->njobs, FL_ERR_INTERNAL, "a workload replica wrote %ld jobs' rows of %ld", wr.nrows,
             w->njobs);
    fig.jobs_completed = wr.a_completed;
    double span = fig.jobs_completed ? wr.a_last - wr.a_first : NAN;
    fig.jobs = w->njobs;
    fig.utilisation = span > 0 ? wr.a_useful / (span * (double)w->machine) : NAN;
    fig.useful_node_hours = wr.a_useful / 3600.0;
    fig.lost_node_hours = wr.a_lost / 3600.0;
    fig.checkpoint_node_hours = wr.a_ck / 3600.0;
    fig.restart_node_hours = wr.a_rs / 3600.0;
    fig.io_wait_node_hours = wr.a_iw / 3600.0;
    fig.replica_node_hours = wr.a_replica / 3600.0;
    fig.mean_wait_s = wr.a_started ? wr.a_wait / (double)wr.a_started : NAN;
    fig.mean_bounded_slowdown = fig.jobs_completed ? wr.a_bsld / (double)fig.jobs_completed : NAN;
    rep->res->makespan_s = span;
    rep->res->status = fig.jobs_completed == w->njobs ? "completed" : wr.timeout ? "timeout" : "failed";
    if (fig.jobs_completed == w->njobs && span > 0) {
      /* every node idle over the span, computing nodes their busy power (accounted node by node as each segment
       * ended or was cut short), down ones their off power; a run whose jobs did not all finish says NULL (it ended
       * in the middle of phases: docs/energy.md) */
      double idle = 0.0;
      for (long n = 0; n < w->machine; n++) {
        idle += fl_sim_power(sim, n)->idle;
        if (wr.down[n])
          fl_wl_off_energy(&wr, n, wr.a_last);
      }
      rep->res->energy_j = idle * span + wr.busy_j + wr.off_j;
    }
  }
  {
    /* after the rows: the figures, the events, and where they begin (the parent reads them from the end) */
    int64_t tail[2] = {wr.nrows, (int64_t)ftell(out)};
    FL_CHECK(tail[1] >= 0 && fwrite(rep->res, sizeof *rep->res, 1, out) == 1 && fwrite(&fig, sizeof fig, 1, out) == 1,
             FL_ERR_IO, "cannot write a replica's results: %s", strerror(errno));
    FL_TRY(fl_sim_events_send(rep->log, out));
    FL_CHECK(fwrite(tail, sizeof tail, 1, out) == 1, FL_ERR_IO, "cannot write a replica's results: %s",
             strerror(errno));
  }
done:
  if (wr.sem)
    sg_sem_destroy(wr.sem);
  fl_batch_destroy(&wr.batch);
  for (long j = wr.lo; wr.win && j < wr.next_submit; j++) {
    free(FL_WJ(&wr, j)->nodes);
    free(FL_WJ(&wr, j)->dead);
  }
  free(wr.win);
  fl_wl_src_close(&wr.src);
  free(wr.node_job);
  free(wr.down);
  free(wr.down_since);
  free(wr.freel);
  free(wr.free_pos);
  free(wr.started);
  free(wr.pfsq);
  free(wr.runl);
  free(wr.c_cost);
  free(wr.c_mtbf);
  free(wr.c_load);
  free(wr.c_nodes);
  free(wr.c_period);
  free(wr.cab_n);
  free(wr.cab_seen);
  fl_jobheap_free(&wr.heap);
  return rc;
}

fl_err fl_wlr_run_replica(fl_replica *rep)
{
  fl_err rc = FL_OK;
  fl_sim *sim = rep->sim;
  fl_wlrun *w = sim->app_state;
  FILE *res = NULL;
  fl_wl_run_ctx ctx = {.rep = rep};
  fl_sim_result got;
  int b = w->flip;
  w->flip ^= 1;
  FL_TRY(fl_sim_in_child(fl_wl_replica_main, &ctx, &res));
  {
    /* the jobs' rows from here; the figures and events after them, where the file's last two numbers say */
    long rows_at = ftell(res);
    int64_t tail[2];
    FL_CHECK(rows_at >= 0 && fseek(res, -(long)sizeof tail, SEEK_END) == 0 && fread(tail, sizeof tail, 1, res) == 1 &&
                 tail[0] == w->njobs && fseek(res, (long)tail[1], SEEK_SET) == 0,
             FL_ERR_IO, "a workload replica's results came back short");
    FL_CHECK(fread(&got, sizeof got, 1, res) == 1 && fread(&w->fig[b], sizeof w->fig[b], 1, res) == 1, FL_ERR_IO,
             "a workload replica's results came back short");
    got.wall_s = rep->res->wall_s;
    *rep->res = got;
    FL_TRY(fl_sim_events_receive(rep->log, res));
    /* the database writer reads the rows from the file (it held the one of two replicas ago until it was done) */
    if (w->rowsf[b])
      fclose(w->rowsf[b]);
    w->rowsf[b] = res;
    res = NULL;
    w->fig[b].rows = NULL;
    w->fig[b].rows_file = w->rowsf[b];
    w->fig[b].rows_at = rows_at;
    w->fig[b].nrows = w->njobs;
    rep->res->machine = &w->fig[b];
  }
done:
  if (res)
    fclose(res);
  return rc;
}
