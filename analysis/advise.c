/* advise.c — the race of `faultline advise` (advise.h): candidates, the workers that simulate them, the race. */
#define _GNU_SOURCE /* prctl */
#include "advise.h"

#include "cleanup.h"
#include "db.h"
#include "race.h"
#include "sim.h"
#include "strategy.h"
#include "study.h"
#include "sweep.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define FL_ADV_N0 10        /* replicas of the first batch, and of every batch after */
#define FL_ADV_MAX_N 400    /* replicas of one candidate at most: beyond, the ones left are tied */
#define FL_ADV_ALPHA 0.05   /* family-wise level of each step's drops */
#define FL_ADV_HOPELESS 8.0 /* failures expected in one step that must finish: it would almost never end */
#define FL_ADV_MAX_GROUPS 16

enum { FL_ADV_OP_QUIT = 0, FL_ADV_OP_ADD, FL_ADV_OP_RUN, FL_ADV_OP_FREE };

/* Counts tuned after the intervals, each in two stages (x 1/2 and x 2, then around the best: +-1 for a period, x
 * 2^+-1/2 for spares): a multi-level strategy's file-level period, and the spare nodes a job holds (when the scenario
 * gives a number; `rest` holds the whole platform and is left alone). */
static const struct {
  const char *section, *key;
  int fine_step; /* 1: +-1; 0: x 2^+-1/2 */
} fl_adv_counts[] = {{"strategy", "file_every", 1}, {"app", "spares", 0}};
#define FL_ADV_NCOUNTS 2

const char *fl_objective_name(fl_objective o)
{
  return o == FL_OBJ_NODE_HOURS ? "node-hours" : o == FL_OBJ_ENERGY ? "energy" : "makespan";
}

/* ---- the worker: one process per platform, its candidates set up as studies ---- */

typedef struct fl_adv_worker {
  const fl_advise_opts *o;
  fl_study **st; /* per candidate index (NULL: not this worker's, or freed) */
  int cap;
  fl_db *db;
  fl_db_writer *writer;
  FILE *in, *out;
} fl_adv_worker;

static int fl_adv_read(FILE *f, void *p, size_t n)
{
  return fread(p, 1, n, f) == n;
}

static void fl_adv_reply_error(FILE *out, fl_err rc)
{
  int32_t code = (int32_t)rc;
  char msg[600];
  snprintf(msg, sizeof msg, "%s", fl_err_msg());
  fwrite(&code, sizeof code, 1, out);
  fwrite(msg, sizeof msg, 1, out);
  fflush(out);
}

/* Set up candidate idx from its overrides (newline-separated): reply its interval, rule and how hopeless it is. */
static void fl_adv_worker_add(fl_adv_worker *w, int idx, char *text)
{
  fl_err rc = FL_OK;
  char **sets = NULL, *save = NULL, rule[48] = "", step[48] = "";
  int nsets = 0;
  int32_t code = 0;
  double tau = INFINITY, fps = 0.0;
  int64_t counts[FL_ADV_NCOUNTS] = {-1, -1};
  const char *st_step = NULL;
  fl_sim *sim;
  if (idx >= w->cap) {
    fl_study **g = realloc(w->st, (size_t)(idx + 64) * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory");
    memset(g + w->cap, 0, (size_t)(idx + 64 - w->cap) * sizeof *g);
    w->st = g;
    w->cap = idx + 64;
  }
  FL_ALLOC(sets, (size_t)w->o->nsets + FL_ADV_MAX_SETS + 1);
  for (int i = 0; i < w->o->nsets; i++)
    sets[nsets++] = w->o->sets[i];
  for (char *s = strtok_r(text, "\n", &save); s && nsets < w->o->nsets + FL_ADV_MAX_SETS;
       s = strtok_r(NULL, "\n", &save))
    sets[nsets++] = s;
  FL_TRY(fl_study_plan(w->o->path, sets, nsets, &w->st[idx]));
  FL_CHECK(w->st[idx]->ncombos == 1, FL_ERR_INTERNAL, "a candidate is one combination");
  FL_TRY(fl_study_setup(w->st[idx], -1));
  w->st[idx]->jobs = w->o->jobs;
  sim = w->st[idx]->points[0].sim;
  tau = fl_sim_interval(sim);
  if (fl_sim_interval_rule(sim))
    snprintf(rule, sizeof rule, "%s", fl_sim_interval_rule(sim));
  fps = fl_sim_failures_per_step(sim, &st_step);
  if (st_step)
    snprintf(step, sizeof step, "%s", st_step);
  for (int t = 0; t < FL_ADV_NCOUNTS; t++) {
    char name[64];
    snprintf(name, sizeof name, "%s.%s", fl_adv_counts[t].section, fl_adv_counts[t].key);
    if (!fl_sim_uses_key(sim, name) &&
        !fl_scenario_given(w->st[idx]->points[0].sc, fl_adv_counts[t].section, fl_adv_counts[t].key))
      continue;
    for (int k = 0; k < fl_scenario_key_count(); k++) {
      const fl_scenario_keyinfo *ki = fl_scenario_key_at(k);
      char buf[64];
      fl_value v;
      if (strcmp(ki->section, fl_adv_counts[t].section) != 0 || strcmp(ki->key, fl_adv_counts[t].key) != 0)
        continue;
      v = fl_scenario_key_value(w->st[idx]->points[0].sc, k, buf, sizeof buf);
      counts[t] = v.kind == FL_VAL_INT ? (int64_t)v.i : v.kind == FL_VAL_TEXT ? atol(v.s) : -1;
      counts[t] = counts[t] > 0 ? counts[t] : -1;
    }
  }
done:
  free(sets);
  if (rc != FL_OK) {
    fl_study_destroy(&w->st[idx]);
    fl_adv_reply_error(w->out, rc);
    return;
  }
  fwrite(&code, sizeof code, 1, w->out);
  fwrite(&tau, sizeof tau, 1, w->out);
  fwrite(&fps, sizeof fps, 1, w->out);
  fwrite(rule, sizeof rule, 1, w->out);
  fwrite(step, sizeof step, 1, w->out);
  fwrite(counts, sizeof counts, 1, w->out);
  fflush(w->out);
}

/* A replica's figures as its row has them (simulated now or before). */
typedef struct fl_adv_row {
  int32_t completed;
  double makespan_s, node_hours, energy_j;
} fl_adv_row;

/* Run candidate idx's replicas up to `upto` (those in the database are read back), reply every replica's row. */
static void fl_adv_worker_run(fl_adv_worker *w, int idx, long upto)
{
  fl_err rc = FL_OK;
  fl_study *st = idx < w->cap ? w->st[idx] : NULL;
  fl_study_tally t = {0};
  sqlite3_stmt *q = NULL;
  fl_adv_row *rows = NULL;
  int32_t code = 0;
  int64_t simulated, n = upto;
  FL_CHECK(st != NULL, FL_ERR_INTERNAL, "candidate %d is not set up", idx);
  st->points[0].sc->replicas = upto;
  if (!w->db) {
    FL_TRY(fl_db_open(st->points[0].sc->db, &w->db));
    FL_TRY(fl_db_writer_start(w->db, 0, &w->writer));
  }
  FL_TRY(fl_study_run(st, w->db, w->writer, 1, 1, NULL, &t));
  simulated = (int64_t)t.nown;
  FL_ALLOC(rows, (size_t)upto);
  FL_CHECK(sqlite3_prepare_v2(fl_db_sqlite(w->db),
                              "SELECT status, makespan_s, node_hours, energy_j FROM runs WHERE row_key = ?1 LIMIT 1",
                              -1, &q, NULL) == SQLITE_OK,
           FL_ERR_DB, "%s", sqlite3_errmsg(fl_db_sqlite(w->db)));
  for (long r = 0; r < upto; r++) {
    char key[160];
    int nin;
    const fl_scenario *sc = st->points[0].sc;
    fl_sim *sim = st->points[0].sim;
    const fl_input *in = fl_sim_inputs(sim, &nin);
    fl_db_sim_row_key(sc->text, sc->overrides, in, nin, sc->seed, r, key, sizeof key);
    sqlite3_reset(q);
    sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
    FL_CHECK(sqlite3_step(q) == SQLITE_ROW, FL_ERR_DB, "replica %ld of a candidate has no row in %s", r, sc->db);
    rows[r].completed = strcmp((const char *)sqlite3_column_text(q, 0), "completed") == 0;
    rows[r].makespan_s = sqlite3_column_double(q, 1);
    rows[r].node_hours = sqlite3_column_type(q, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 2);
    rows[r].energy_j = sqlite3_column_type(q, 3) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 3);
  }
done:
  sqlite3_finalize(q);
  free(t.own);
  if (rc != FL_OK) {
    free(rows);
    fl_adv_reply_error(w->out, rc);
    return;
  }
  fwrite(&code, sizeof code, 1, w->out);
  fwrite(&simulated, sizeof simulated, 1, w->out);
  fwrite(&n, sizeof n, 1, w->out);
  fwrite(rows, sizeof *rows, (size_t)n, w->out);
  fflush(w->out);
  free(rows);
}

static void fl_adv_worker_main(fl_adv_worker *w)
{
  for (;;) {
    int32_t op, idx;
    if (!fl_adv_read(w->in, &op, sizeof op) || op == FL_ADV_OP_QUIT || !fl_adv_read(w->in, &idx, sizeof idx))
      break;
    if (op == FL_ADV_OP_ADD) {
      int32_t len;
      char *text;
      if (!fl_adv_read(w->in, &len, sizeof len) || len < 0 || len > (1 << 20) || !(text = calloc((size_t)len + 1, 1)))
        break;
      if (!fl_adv_read(w->in, text, (size_t)len)) {
        free(text);
        break;
      }
      fl_adv_worker_add(w, idx, text);
      free(text);
    } else if (op == FL_ADV_OP_RUN) {
      int64_t upto;
      if (!fl_adv_read(w->in, &upto, sizeof upto))
        break;
      fl_adv_worker_run(w, idx, (long)upto);
    } else if (op == FL_ADV_OP_FREE && idx >= 0 && idx < w->cap) {
      fl_study_destroy(&w->st[idx]);
    }
  }
  fl_db_writer_destroy(&w->writer);
  fl_db_close(&w->db);
  for (int i = 0; i < w->cap; i++)
    fl_study_destroy(&w->st[i]);
  free(w->st);
  fflush(NULL);
  _exit(0); /* SimGrid's teardown of a large platform is not ours to wait for */
}

typedef struct fl_adv_group {
  char key[4400]; /* the platform, in words (fl_sim_platform_key) */
  pid_t pid;
  FILE *to, *from;
} fl_adv_group;

static fl_err fl_adv_group_start(fl_adv_group *g, const fl_advise_opts *o)
{
  fl_err rc = FL_OK;
  int down[2], up[2];
  FL_CHECK(pipe(down) == 0 && pipe(up) == 0, FL_ERR_IO, "cannot make a pipe: %s", strerror(errno));
  fflush(NULL);
  g->pid = fork();
  FL_CHECK(g->pid >= 0, FL_ERR_IO, "cannot fork a worker: %s", strerror(errno));
  if (g->pid == 0) {
    fl_adv_worker w = {.o = o};
    fl_cleanup_child();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(down[1]);
    close(up[0]);
    w.in = fdopen(down[0], "r");
    w.out = fdopen(up[1], "w");
    if (!w.in || !w.out)
      _exit(3);
    fl_adv_worker_main(&w);
  }
  close(down[0]);
  close(up[1]);
  g->to = fdopen(down[1], "w");
  g->from = fdopen(up[0], "r");
  FL_CHECK(g->to && g->from, FL_ERR_IO, "cannot talk to a worker: %s", strerror(errno));
done:
  return rc;
}

static void fl_adv_group_stop(fl_adv_group *g)
{
  if (g->to) {
    int32_t op = FL_ADV_OP_QUIT;
    fwrite(&op, sizeof op, 1, g->to);
    fclose(g->to);
  }
  if (g->from)
    fclose(g->from);
  if (g->pid > 0)
    while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  memset(g, 0, sizeof *g);
}

/* A worker's error reply: its code and message. */
static fl_err fl_adv_got_error(FILE *f, int32_t code)
{
  char msg[600] = "";
  if (!fl_adv_read(f, msg, sizeof msg))
    return fl_err_set(FL_ERR_SIM, "a worker process ended without saying why");
  msg[sizeof msg - 1] = '\0';
  return fl_err_set((fl_err)code, "%s", msg);
}

/* ---- the candidates ---- */

typedef struct fl_adv_state {
  const fl_advise_opts *o;
  fl_advise *a;
  fl_adv_group groups[FL_ADV_MAX_GROUPS];
  int ngroups;
} fl_adv_state;

static fl_err fl_adv_cand_figs(fl_advise_cand *c, long n)
{
  fl_err rc = FL_OK;
  if (n <= c->cap)
    return FL_OK;
  for (int k = 0; k < 4; k++) {
    double *g = realloc(c->fig[k], (size_t)n * sizeof *g);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory");
    c->fig[k] = g;
  }
  c->cap = n;
done:
  return rc;
}

/* "key=value" of a candidate's overrides, or NULL */
static const char *fl_adv_set_value(const fl_advise_cand *c, const char *key)
{
  size_t n = strlen(key);
  for (int i = 0; i < c->nsets; i++)
    if (strncmp(c->sets[i], key, n) == 0 && c->sets[i][n] == '=')
      return c->sets[i] + n + 1;
  return NULL;
}

static void fl_adv_label(fl_advise_cand *c)
{
  char iv[64];
  size_t used = (size_t)snprintf(c->label, sizeof c->label, "%s", c->strategy);
  for (int i = 0; i < c->nsets && used < sizeof c->label; i++)
    if (strncmp(c->sets[i], "strategy.kind=", 14) != 0 && strncmp(c->sets[i], "strategy.interval=", 18) != 0)
      used += (size_t)snprintf(c->label + used, sizeof c->label - used, ", %s",
                               strncmp(c->sets[i], "strategy.", 9) == 0 ? c->sets[i] + 9 : c->sets[i]);
  if (used >= sizeof c->label)
    return;
  if (isfinite(c->tau_s))
    snprintf(c->label + used, sizeof c->label - used, ", every %s%s%s",
             fl_units_format_duration(c->tau_s, iv, sizeof iv), c->factor == 1.0 && c->rule[0] ? " " : "",
             c->factor == 1.0 && c->rule[0] ? c->rule : "");
  else if (c->state != FL_ADV_REFUSED && strcmp(c->strategy, "none") != 0)
    snprintf(c->label + used, sizeof c->label - used, ", no checkpoints");
}

/* A new candidate: the family's overrides, then its own. Returns its index (-1: out of memory). `sets` may point
 * into a->c (an existing candidate's): they are copied before a->c grows. */
static int fl_adv_add(fl_advise *a, char *const *sets, int nsets, const char *extra)
{
  fl_advise_cand c, *g;
  memset(&c, 0, sizeof c);
  c.family = a->n;
  c.factor = 1.0;
  c.tau_s = INFINITY;
  for (int i = 0; i < nsets && c.nsets < FL_ADV_MAX_SETS - 2; i++) {
    /* a key of `extra` (newline-separated "key=value"s) replaces the family's value */
    size_t klen = strcspn(sets[i], "=");
    int replaced = 0;
    for (const char *e = extra; e && *e; e += strcspn(e, "\n"), e += *e == '\n')
      replaced |= strncmp(e, sets[i], klen + 1) == 0;
    if (!replaced)
      c.sets[c.nsets++] = strdup(sets[i]);
  }
  for (const char *e = extra; e && *e && c.nsets < FL_ADV_MAX_SETS; e += *e == '\n') {
    size_t len = strcspn(e, "\n");
    c.sets[c.nsets++] = strndup(e, len);
    e += len;
  }
  g = realloc(a->c, (size_t)(a->n + 1) * sizeof *g);
  for (int i = 0; i < c.nsets; i++)
    if (!c.sets[i] || !g) {
      for (int k = 0; k < c.nsets; k++)
        free(c.sets[k]);
      if (g)
        a->c = g;
      return -1;
    }
  a->c = g;
  {
    const char *kind = fl_adv_set_value(&c, "strategy.kind");
    snprintf(c.strategy, sizeof c.strategy, "%s", kind ? kind : "?");
  }
  a->c[a->n] = c;
  return a->n++;
}

/* Ask candidate i's worker to set it up: its interval and rule, or why it cannot run. */
static fl_err fl_adv_setup(fl_adv_state *s, int i)
{
  fl_err rc = FL_OK;
  fl_advise_cand *c = &s->a->c[i];
  fl_adv_group *g = &s->groups[c->group];
  char text[4096];
  size_t used = 0;
  int32_t op = FL_ADV_OP_ADD, idx = i, len, code;
  for (int k = 0; k < c->nsets; k++)
    used += (size_t)snprintf(text + used, sizeof text - used, "%s\n", c->sets[k]);
  len = (int32_t)strlen(text);
  FL_CHECK(fwrite(&op, sizeof op, 1, g->to) == 1 && fwrite(&idx, sizeof idx, 1, g->to) == 1 &&
               fwrite(&len, sizeof len, 1, g->to) == 1 && fwrite(text, 1, (size_t)len, g->to) == (size_t)len &&
               fflush(g->to) == 0,
           FL_ERR_IO, "a worker process is gone");
  FL_CHECK(fl_adv_read(g->from, &code, sizeof code), FL_ERR_SIM, "a worker process ended");
  if (code != 0) {
    fl_err e = fl_adv_got_error(g->from, code);
    if (e != FL_ERR_INPUT) {
      rc = e;
      goto done;
    }
    c->state = FL_ADV_REFUSED;
    snprintf(c->why, sizeof c->why, "%s", fl_err_msg());
    fl_err_clear();
  } else {
    double fps;
    char step[48];
    int64_t counts[FL_ADV_NCOUNTS];
    FL_CHECK(fl_adv_read(g->from, &c->tau_s, sizeof c->tau_s) && fl_adv_read(g->from, &fps, sizeof fps) &&
                 fl_adv_read(g->from, c->rule, sizeof c->rule) && fl_adv_read(g->from, step, sizeof step) &&
                 fl_adv_read(g->from, counts, sizeof counts),
             FL_ERR_SIM, "a worker process ended");
    for (int t = 0; t < FL_ADV_NCOUNTS; t++)
      c->count[t] = (long)counts[t];
    c->rule[sizeof c->rule - 1] = step[sizeof step - 1] = '\0';
    if (fps > FL_ADV_HOPELESS) {
      c->state = FL_ADV_REFUSED;
      snprintf(c->why, sizeof c->why, "would almost never finish: %.3g failures of the job expected during one %s", fps,
               step[0] ? step : "step");
    }
  }
  fl_adv_label(c);
done:
  return rc;
}

/* The platform group of candidate i (planned here: every input checked, nothing loaded); refusals are the
 * candidate's, other errors the command's. */
static fl_err fl_adv_place(fl_adv_state *s, int i)
{
  fl_err rc = FL_OK;
  fl_advise_cand *c = &s->a->c[i];
  fl_study *st = NULL;
  char **sets = NULL, key[4400];
  int nsets = 0;
  FL_ALLOC(sets, (size_t)s->o->nsets + FL_ADV_MAX_SETS);
  for (int k = 0; k < s->o->nsets; k++)
    sets[nsets++] = s->o->sets[k];
  for (int k = 0; k < c->nsets; k++)
    sets[nsets++] = c->sets[k];
  rc = fl_study_plan(s->o->path, sets, nsets, &st);
  if (rc == FL_OK)
    rc = fl_sim_platform_key(st->points[0].sc, key, sizeof key);
  if (rc == FL_ERR_INPUT) {
    c->state = FL_ADV_REFUSED;
    snprintf(c->why, sizeof c->why, "%s", fl_err_msg());
    fl_err_clear();
    fl_adv_label(c);
    rc = FL_OK;
    goto done;
  }
  FL_TRY(rc);
  c->group = -1;
  for (int k = 0; k < s->ngroups && c->group < 0; k++)
    if (strcmp(s->groups[k].key, key) == 0)
      c->group = k;
  if (c->group < 0) {
    FL_CHECK(s->ngroups < FL_ADV_MAX_GROUPS, FL_ERR_INPUT, "the candidates need more than %d platforms",
             FL_ADV_MAX_GROUPS);
    c->group = s->ngroups++;
    snprintf(s->groups[c->group].key, sizeof s->groups[c->group].key, "%s", key);
    FL_TRY(fl_adv_group_start(&s->groups[c->group], s->o));
  }
  FL_TRY(fl_adv_setup(s, i));
done:
  fl_study_destroy(&st);
  free(sets);
  return rc;
}

/* The base configurations: the scenario's sweep combinations when it sweeps strategy keys (each strategy its own
 * costs), every other strategy of the registry as the scenario prices it; replication also without checkpoints. */
static fl_err fl_adv_candidates(fl_adv_state *s)
{
  fl_err rc = FL_OK;
  fl_study *base = NULL;
  char *kinds_seen = NULL;
  FL_TRY(fl_study_plan(s->o->path, s->o->sets, s->o->nsets, &base));
  snprintf(s->a->db, sizeof s->a->db, "%s", base->base->db);
  for (int d = 0; d < base->ndims; d++)
    FL_CHECK(strncmp(base->dims[d].key, "strategy.", 9) == 0 && !strstr(base->dims[d].key, "+run.") &&
                 !strstr(base->dims[d].key, "+app.") && !strstr(base->dims[d].key, "+platform.") &&
                 !strstr(base->dims[d].key, "+failures."),
             FL_ERR_INPUT,
             "%s: run.sweep varies %s: advise answers for one job and one machine; give each key one value with "
             "--set (the sweep's strategy terms are the candidates)",
             s->o->path, base->dims[d].key);
  FL_ALLOC(kinds_seen, (size_t)fl_strat_count());
  for (long cmb = 0; cmb < (base->ndims ? base->ncombos : 0); cmb++) {
    char *sets[FL_ADV_MAX_SETS], buf[FL_ADV_MAX_SETS][400];
    int nsets = 0, has_kind = 0;
    for (int d = 0; d < base->ndims; d++) {
      const fl_sweep_dim *dim = &base->dims[d];
      const char *val = dim->values[(cmb / fl_sweep_stride(base->dims, base->ndims, d)) % dim->nvalues];
      char keys[128], vals[256], *ks = NULL, *vs = NULL, *k, *v;
      int joint = strchr(dim->key, '+') != NULL;
      snprintf(keys, sizeof keys, "%s", dim->key);
      snprintf(vals, sizeof vals, "%s", val);
      for (k = strtok_r(keys, "+", &ks), v = joint ? strtok_r(vals, "/", &vs) : vals;
           k && v && nsets < FL_ADV_MAX_SETS - 2;
           k = strtok_r(NULL, "+", &ks), v = joint ? strtok_r(NULL, "/", &vs) : NULL) {
        snprintf(buf[nsets], sizeof buf[nsets], "%s=%s", k, v);
        has_kind |= strcmp(k, "strategy.kind") == 0;
        sets[nsets] = buf[nsets];
        nsets++;
      }
    }
    if (!has_kind) {
      snprintf(buf[nsets], sizeof buf[nsets], "strategy.kind=%s", base->points[cmb].sc->strategy);
      memmove(sets + 1, sets, (size_t)nsets * sizeof *sets);
      sets[0] = buf[nsets];
      nsets++;
    }
    for (int k = 0; k < fl_strat_count(); k++)
      if (strcmp(fl_strat_at(k)->name, base->points[cmb].sc->strategy) == 0)
        kinds_seen[k] = 1;
    FL_CHECK(fl_adv_add(s->a, sets, nsets, NULL) >= 0, FL_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < fl_strat_count(); k++) {
    char kind[64], *sets[1] = {kind};
    if (kinds_seen[k])
      continue;
    snprintf(kind, sizeof kind, "strategy.kind=%s", fl_strat_at(k)->name);
    FL_CHECK(fl_adv_add(s->a, sets, 1, NULL) >= 0, FL_ERR_NOMEM, "out of memory");
  }
  {
    int n = s->a->n;
    for (int i = 0; i < n; i++) /* replication without checkpoints: the copies alone */
      if (strcmp(s->a->c[i].strategy, "replication") == 0)
        FL_CHECK(fl_adv_add(s->a, s->a->c[i].sets, s->a->c[i].nsets, "strategy.interval=never") >= 0, FL_ERR_NOMEM,
                 "out of memory");
  }
  /* priced alike: with constant costs, buddy's checkpoint and the file system's cost what strategy.checkpoint_cost
   * says for both unless a sweep term gives each its own */
  if (base->base->checkpoint_size <= 0 && !(base->ndims > 0 && strstr(base->dims[0].key, "checkpoint_cost")))
    snprintf(s->a->note, sizeof s->a->note,
             "every strategy's checkpoint costs strategy.checkpoint_cost here (buddy's as much as the file "
             "system's): give each its own in a sweep term (strategy.kind+strategy.checkpoint_cost=checkpoint/5min,"
             "buddy/30s) or app.checkpoint_size on a platform with storage");
done:
  free(kinds_seen);
  fl_study_destroy(&base);
  return rc;
}

/* ---- the race ---- */

static double fl_adv_mean(const double *x, long n)
{
  double s = 0.0;
  for (long i = 0; i < n; i++)
    s += x[i];
  return n > 0 ? s / (double)n : NAN;
}

/* Run every racing candidate to `upto` replicas: each worker gets its candidates' requests, then the answers are
 * read (the workers simulate at once). */
static fl_err fl_adv_batch(fl_adv_state *s, long upto)
{
  fl_err rc = FL_OK;
  fl_advise *a = s->a;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < a->n; i++) {
      fl_advise_cand *c = &a->c[i];
      fl_adv_group *g;
      if (c->state != FL_ADV_RACING || c->n >= upto)
        continue;
      g = &s->groups[c->group];
      if (pass == 0) {
        int32_t op = FL_ADV_OP_RUN, idx = i;
        int64_t u = upto;
        FL_CHECK(fwrite(&op, sizeof op, 1, g->to) == 1 && fwrite(&idx, sizeof idx, 1, g->to) == 1 &&
                     fwrite(&u, sizeof u, 1, g->to) == 1 && fflush(g->to) == 0,
                 FL_ERR_IO, "a worker process is gone");
      } else {
        int32_t code;
        int64_t simulated, n;
        FL_CHECK(fl_adv_read(g->from, &code, sizeof code), FL_ERR_SIM, "a worker process ended");
        if (code != 0)
          FL_TRY(fl_adv_got_error(g->from, code));
        FL_CHECK(fl_adv_read(g->from, &simulated, sizeof simulated) && fl_adv_read(g->from, &n, sizeof n) && n == upto,
                 FL_ERR_SIM, "a worker process ended");
        FL_TRY(fl_adv_cand_figs(c, upto));
        c->incomplete = 0;
        for (long r = 0; r < n; r++) {
          fl_adv_row row;
          FL_CHECK(fl_adv_read(g->from, &row, sizeof row), FL_ERR_SIM, "a worker process ended");
          c->fig[1][r] = row.makespan_s;
          c->fig[2][r] = row.node_hours;
          c->fig[3][r] = row.energy_j;
          c->fig[0][r] = c->fig[1 + (int)a->objective][r];
          c->incomplete += !row.completed;
        }
        a->simulated += simulated;
        a->reused += (n - c->n) - simulated;
        c->n = upto;
        if (isnan(c->fig[0][0]))
          FL_CHECK(0, FL_ERR_INPUT, "%s: this job's rows have no %s (objective %s)", c->label,
                   a->objective == FL_OBJ_ENERGY ? "energy_j" : "node_hours", fl_objective_name(a->objective));
      }
    }
done:
  return rc;
}

/* Runs the racing candidates would need to reach upto. */
static long fl_adv_cost(const fl_advise *a, long upto)
{
  long cost = 0;
  for (int i = 0; i < a->n; i++)
    if (a->c[i].state == FL_ADV_RACING && a->c[i].n < upto)
      cost += upto - a->c[i].n;
  return cost;
}

/* Add a variant of family f: the family's overrides with `extra`'s, its interval `factor` x the rule's, set up. */
static fl_err fl_adv_add_variant(fl_adv_state *s, int f, const char *extra, double factor, int *added)
{
  fl_err rc = FL_OK;
  fl_advise *a = s->a;
  int i = fl_adv_add(a, a->c[f].sets, a->c[f].nsets, extra);
  FL_CHECK(i >= 0, FL_ERR_NOMEM, "out of memory");
  a->c[i].family = f;
  a->c[i].factor = factor;
  a->c[i].group = a->c[f].group;
  FL_TRY(fl_adv_setup(s, i));
  (*added)++;
done:
  return rc;
}

/* Add interval variants (family's rule interval x factor) of every family still racing: around 1 at first
 * (`step` 0.5 in log2: 1/2 .. 2), then around each family's best so far. Returns how many were added. */
static fl_err fl_adv_variants(fl_adv_state *s, double step, int around_best, int *added)
{
  fl_err rc = FL_OK;
  fl_advise *a = s->a;
  int n = a->n;
  *added = 0;
  for (int f = 0; f < n; f++) {
    const fl_advise_cand *base = &a->c[f];
    int best = -1;
    double mults_coarse[] = {-2, -1, 1, 2}, mults_fine[] = {-1, 1};
    const double *mults = around_best ? mults_fine : mults_coarse;
    int nm = around_best ? 2 : 4;
    if (base->family != f || !isfinite(base->tau_s) || base->state == FL_ADV_REFUSED ||
        !(strcmp(base->rule, "daly") == 0 || strcmp(base->rule, "young") == 0 || strcmp(base->rule, "fixed") == 0))
      continue;
    for (int i = 0; i < n; i++) /* the family's best racing member */
      if (a->c[i].family == f && a->c[i].state == FL_ADV_RACING &&
          (best < 0 || fl_adv_mean(a->c[i].fig[0], a->c[i].n) < fl_adv_mean(a->c[best].fig[0], a->c[best].n)))
        best = i;
    if (best < 0)
      continue;
    for (int m = 0; m < nm; m++) {
      double factor, tau;
      base = &a->c[f]; /* a->c grows with each variant */
      factor = a->c[best].factor * pow(2.0, mults[m] * step);
      tau = base->tau_s * factor;
      char set[64];
      int dup = 0;
      for (int k = 0; k < a->n; k++)
        dup |= a->c[k].family == f && fabs(a->c[k].factor / factor - 1.0) < 0.02 &&
               memcmp(a->c[k].count, base->count, sizeof base->count) == 0;
      if (dup)
        continue;
      snprintf(set, sizeof set, tau >= 100 ? "strategy.interval=%.0fs" : "strategy.interval=%.2fs", tau);
      FL_TRY(fl_adv_add_variant(s, f, set, factor, added));
    }
  }
done:
  return rc;
}

/* Add variants of count t (fl_adv_counts) of every family still racing that has it, at its best member's
 * configuration (interval and the other counts): the best's value x 1/2 and x 2 at first, then around it. */
static fl_err fl_adv_count_variants(fl_adv_state *s, int t, int fine, int *added)
{
  fl_err rc = FL_OK;
  fl_advise *a = s->a;
  int n = a->n;
  if (strcmp(fl_adv_counts[t].key, "spares") == 0 && a->objective == FL_OBJ_MAKESPAN)
    return FL_OK; /* more spares never lengthen a run: only an objective that charges them weighs them */
  for (int f = 0; f < n; f++) {
    int best = -1;
    long want[2], v;
    if (a->c[f].family != f || a->c[f].count[t] < 1 || a->c[f].state == FL_ADV_REFUSED)
      continue;
    for (int i = 0; i < n; i++)
      if (a->c[i].family == f && a->c[i].state == FL_ADV_RACING &&
          (best < 0 || fl_adv_mean(a->c[i].fig[0], a->c[i].n) < fl_adv_mean(a->c[best].fig[0], a->c[best].n)))
        best = i;
    if (best < 0)
      continue;
    v = a->c[best].count[t];
    want[0] = !fine ? v / 2 : fl_adv_counts[t].fine_step ? v - 1 : lround((double)v / M_SQRT2);
    want[1] = !fine ? v * 2 : fl_adv_counts[t].fine_step ? v + 1 : lround((double)v * M_SQRT2);
    for (int m = 0; m < 2; m++) {
      char extra[400];
      size_t used = 0;
      long cnt[FL_ADV_NCOUNTS];
      const char *iv = fl_adv_set_value(&a->c[best], "strategy.interval");
      int dup = want[m] < 1;
      double factor = a->c[best].factor;
      memcpy(cnt, a->c[best].count, sizeof cnt);
      cnt[t] = want[m];
      for (int k = 0; k < a->n && !dup; k++)
        dup |= a->c[k].family == f && fabs(a->c[k].factor / factor - 1.0) < 0.02 &&
               memcmp(a->c[k].count, cnt, sizeof cnt) == 0;
      if (dup)
        continue;
      if (iv)
        used += (size_t)snprintf(extra + used, sizeof extra - used, "strategy.interval=%s\n", iv);
      for (int u = 0; u < FL_ADV_NCOUNTS; u++) /* the best's other counts where it varied them, and this one */
        if (cnt[u] > 0 && (u == t || cnt[u] != a->c[f].count[u]))
          used += (size_t)snprintf(extra + used, sizeof extra - used, "%s.%s=%ld\n", fl_adv_counts[u].section,
                                   fl_adv_counts[u].key, cnt[u]);
      if (used && extra[used - 1] == '\n')
        extra[used - 1] = '\0';
      FL_TRY(fl_adv_add_variant(s, f, extra, factor, added));
    }
  }
done:
  return rc;
}

/* Free a dropped candidate's simulation in its worker. */
static void fl_adv_free_in_worker(fl_adv_state *s, int i)
{
  fl_adv_group *g = &s->groups[s->a->c[i].group];
  int32_t op = FL_ADV_OP_FREE, idx = i;
  if (fwrite(&op, sizeof op, 1, g->to) == 1 && fwrite(&idx, sizeof idx, 1, g->to) == 1)
    fflush(g->to);
}

static fl_err fl_adv_race(fl_adv_state *s)
{
  fl_err rc = FL_OK;
  fl_advise *a = s->a;
  long upto = FL_ADV_N0;
  int stage = 0, *alive = NULL, *drop = NULL;
  double *p = NULL;
  const double **y = NULL;
  for (;;) {
    int racing = 0, leader, added = 0, tied = 1;
    long cost = fl_adv_cost(a, upto);
    FL_CHECK(!(a->best < 0 && cost > a->budget), FL_ERR_INPUT,
             "--budget %ld: the first batch alone is %ld runs (%ld replicas of each of the %ld configurations): give "
             "at least that",
             a->budget, cost, (long)FL_ADV_N0, cost / FL_ADV_N0);
    if (cost > 0 && a->simulated + a->reused + cost > a->budget) { /* read back or not: the same race again */
      if (s->o->progress)
        fprintf(s->o->progress, "advise: the budget of %ld runs is spent: the candidates left are tied\n", a->budget);
      break;
    }
    FL_TRY(fl_adv_batch(s, upto));
    free(alive);
    free(drop);
    free(p);
    free(y);
    FL_ALLOC(alive, (size_t)a->n);
    FL_ALLOC(drop, (size_t)a->n);
    FL_ALLOC(p, (size_t)a->n);
    FL_ALLOC(y, (size_t)a->n);
    for (int i = 0; i < a->n; i++) {
      alive[i] = a->c[i].state == FL_ADV_RACING;
      y[i] = a->c[i].fig[0];
    }
    leader = fl_race_step(y, alive, a->n, upto, FL_ADV_ALPHA, drop, p);
    if (leader < 0)
      break;
    a->best = leader;
    for (int i = 0; i < a->n; i++) {
      if (drop[i]) {
        double mean, half;
        fl_race_paired(a->c[i].fig[0], a->c[leader].fig[0], upto, 0.95, &mean, &half);
        a->c[i].state = FL_ADV_DROPPED;
        snprintf(a->c[i].why, sizeof a->c[i].why, "worse than %s after %ld replicas (p = %.2g)", a->c[leader].label,
                 upto, p[i]);
        fl_adv_free_in_worker(s, i);
      } else if (alive[i]) {
        double mean, half;
        racing++;
        if (i != leader) {
          fl_race_paired(a->c[i].fig[0], a->c[leader].fig[0], upto, 0.95, &mean, &half);
          tied &= fabs(mean) + half <= s->o->tolerance * fl_adv_mean(a->c[leader].fig[0], upto);
        }
      }
    }
    if (s->o->progress)
      fprintf(s->o->progress, "advise: %ld replicas: %d configuration%s racing, %ld runs simulated%s; leader %s\n",
              upto, racing, racing == 1 ? "" : "s", a->simulated,
              a->reused ? " (more read back from the database)" : "", a->c[leader].label);
    /* the intervals: 1/2 .. 2 of each rule's first, then finer around each family's best (the leader's too when
     * it is the last one left: the best strategy at the rule's interval is not yet the best configuration) */
    if (stage < 3) {
      FL_TRY(fl_adv_variants(s, stage == 0 ? 0.5 : stage == 1 ? 0.25 : 0.125, stage > 0, &added));
      stage++;
    } else if (stage < 3 + 2 * FL_ADV_NCOUNTS) { /* then the counts: the file level's period, the spares */
      FL_TRY(fl_adv_count_variants(s, (stage - 3) / 2, (stage - 3) % 2, &added));
      stage++;
    }
    if (added)
      continue; /* the new ones catch up on the same replicas first */
    if (racing == 1) {
      a->decided = 1;
      break;
    }
    if (tied) {
      if (s->o->progress)
        fprintf(s->o->progress, "advise: the %d left are within %.2g %% of each other: tied\n", racing,
                100.0 * s->o->tolerance);
      break;
    }
    if (upto >= FL_ADV_MAX_N)
      break;
    upto += upto < 40 ? FL_ADV_N0 : upto / 4;
    if (upto > FL_ADV_MAX_N)
      upto = FL_ADV_MAX_N;
  }
done:
  free(alive);
  free(drop);
  free(p);
  free(y);
  return rc;
}

fl_err fl_advise_run(const fl_advise_opts *o, fl_advise **out)
{
  fl_err rc = FL_OK;
  fl_adv_state s;
  memset(&s, 0, sizeof s);
  *out = NULL;
  FL_ALLOC(s.a, 1);
  s.o = o;
  s.a->objective = o->objective;
  s.a->budget = o->budget;
  s.a->tolerance = o->tolerance;
  s.a->best = -1;
  FL_TRY(fl_adv_candidates(&s));
  for (int i = 0; i < s.a->n; i++) {
    FL_TRY(fl_adv_place(&s, i));
    if (o->progress)
      fprintf(o->progress, "advise: %s%s%s\n", s.a->c[i].label, s.a->c[i].state == FL_ADV_REFUSED ? ": " : "",
              s.a->c[i].state == FL_ADV_REFUSED ? s.a->c[i].why : "");
  }
  FL_TRY(fl_adv_race(&s));
  *out = s.a;
  s.a = NULL;
done:
  for (int g = 0; g < s.ngroups; g++)
    fl_adv_group_stop(&s.groups[g]);
  fl_advise_free(&s.a);
  return rc;
}

void fl_advise_free(fl_advise **pa)
{
  fl_advise *a = pa ? *pa : NULL;
  if (!a)
    return;
  for (int i = 0; i < a->n; i++) {
    for (int k = 0; k < a->c[i].nsets; k++)
      free(a->c[i].sets[k]);
    for (int k = 0; k < 4; k++)
      free(a->c[i].fig[k]);
  }
  free(a->c);
  free(a);
  *pa = NULL;
}
