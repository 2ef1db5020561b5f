/* study.c — a command's combinations: plan, setup, the shards' rows (see study.h). */
#include "study.h"

#include "app.h"
#include "fm.h"
#include "strategy.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Does an override in `sets` set a key of sweep term `term` ("a+b=...")? */
static int fl_study_overridden(const char *term, char *const *sets, int nsets)
{
  const char *eq = strchr(term, '=');
  for (int i = 0; eq && i < nsets; i++) {
    const char *k = sets[i], *ke = strchr(k, '=');
    if (k[0] == '\x01' || !ke || strncmp(k, "run.", 4) == 0)
      continue;
    for (const char *p = term; p < eq;) {
      size_t n = strcspn(p, "+=");
      if (n == (size_t)(ke - k) && strncmp(p, k, n) == 0)
        return 1;
      p += n + (p[n] == '+');
    }
  }
  return 0;
}

/* The sweep: the file's terms less those an override sets, then the command's. */
static fl_err fl_study_sweep_text(fl_study *st, char *const *sets, int nsets)
{
  fl_err rc = FL_OK;
  size_t len = 1;
  char *copy = NULL, *save = NULL, *term;
  if (st->base->sweep)
    len += strlen(st->base->sweep) + 1;
  for (int i = 0; i < nsets; i++)
    if (sets[i][0] == '\x01')
      len += strlen(sets[i]) + 1;
  FL_ALLOC(st->sweep_text, len);
  FL_ALLOC(st->dropped, len);
  if (st->base->sweep) {
    FL_CHECK((copy = strdup(st->base->sweep)) != NULL, FL_ERR_NOMEM, "out of memory");
    for (term = strtok_r(copy, " \t", &save); term; term = strtok_r(NULL, " \t", &save))
      strcat(strcat(fl_study_overridden(term, sets, nsets) ? st->dropped : st->sweep_text, term), " ");
  }
  for (int i = 0; i < nsets; i++)
    if (sets[i][0] == '\x01')
      strcat(strcat(st->sweep_text, sets[i] + 1), " ");
done:
  free(copy);
  return rc;
}

/* A key of an app's own (the set it declares, apps/), or one of the run's [app] keys, given in a study none of whose
 * combinations runs an app that reads it is refused, naming where it was given and who would read it: `app.graph`
 * on a bsp job, or `app.work` on a workload, used to be accepted and ignored, and shown in the table as if it had
 * been the experiment. */
/* `section.key` (an app kind's key) given in some combination of the study while no combination's app reads it:
 * that combination, else -1. One of the run's [app] keys (core) given for another kind than the one chosen later
 * (fl_app_unread_by_choice) is said once, as a warning, and passed over; another kind's own key never is. */
static long fl_study_unread(const fl_study *st, const char *section, const char *key, int core)
{
  long given = -1;
  for (long c = 0; c < st->ncombos; c++) {
    const fl_scenario *sc = st->points[c].sc;
    const fl_app *own = fl_app_find(sc->app);
    if (!own || fl_app_reads(own, sc, section, key))
      return -1;
    if (given < 0 && fl_scenario_given(sc, section, key))
      given = c;
  }
  return given >= 0 && core && fl_app_unread_by_choice(st->points[given].sc, section, key) ? -1 : given;
}

static fl_err fl_study_app_keys(const fl_study *st)
{
  for (int a = 0; a < fl_app_count(); a++) {
    const fl_app *app = fl_app_at(a);
    if (!app->options)
      continue;
    for (int k = 0; k < app->options->nkeys; k++) {
      const fl_key *key = &app->options->keys[k];
      long c = fl_study_unread(st, key->section, key->key, 0);
      if (c >= 0)
        return fl_scenario_fail(st->points[c].sc, key->section, key->key,
                                "app.kind = %s reads this key; this %s runs app.kind = %s", app->name,
                                st->ncombos > 1 ? "sweep" : "scenario", st->points[c].sc->app);
    }
  }
  /* the run's [app] keys no plugin owns (app.work, app.checkpoint_size, ...): the kinds that read them say so */
  for (int k = 0; k < fl_scenario_key_count(); k++) {
    const fl_scenario_keyinfo *key = fl_scenario_key_at(k);
    long c;
    char readers[160];
    if (strcmp(key->section, "app") != 0 || !fl_app_is_core_key(key->key) ||
        (c = fl_study_unread(st, "app", key->key, 1)) < 0)
      continue;
    return fl_scenario_fail(st->points[c].sc, key->section, key->key,
                            "app.kind = %s does not read this key (app.kind = %s does)", st->points[c].sc->app,
                            fl_app_core_readers(key->key, readers, sizeof readers));
  }
  return FL_OK;
}

/* Is one of set's keys given in some combination? Returns the first (combination, key) or -1. A key of the file
 * that the command line made unread by choosing another plugin (`--set strategy.kind=buddy` on a file that sets
 * two-level's period: a file of settings for several strategies) is said once, as a warning, and passed over. */
static long fl_study_given(const fl_study *st, const fl_keyset *set, const char *kind, const char *chosen, int *key)
{
  for (int k = 0; k < set->nkeys; k++)
    for (long c = 0; c < st->ncombos; c++) {
      const fl_scenario *sc = st->points[c].sc;
      const fl_key *y = &set->keys[k];
      if (!fl_scenario_given(sc, y->section, y->key))
        continue;
      if (!fl_scenario_overridden(sc, y->section, y->key) && fl_scenario_overridden(sc, kind, chosen)) {
        fprintf(stderr,
                "faultline: warning: %s.%s of the scenario file is read by %s; the command line chose another %s.%s: "
                "the key is ignored\n",
                y->section, y->key, set->owner, kind, chosen);
        break;
      }
      *key = k;
      return c;
    }
  return -1;
}

fl_err fl_study_check_keys(const fl_study *st)
{
  /* a strategy's own keys: read when some combination runs a strategy whose set it is */
  for (int i = 0; i < fl_strat_count(); i++) {
    const fl_keyset *set = fl_strat_at(i)->options;
    int runs = 0, k;
    long c;
    if (!set)
      continue;
    for (long p = 0; p < st->ncombos && !runs; p++) {
      const fl_strategy_ops *ops = fl_strat_find(st->points[p].sc->strategy);
      runs = ops && ops->options == set;
    }
    if (!runs && (c = fl_study_given(st, set, "strategy", "kind", &k)) >= 0)
      return fl_scenario_fail(st->points[c].sc, set->keys[k].section, set->keys[k].key,
                              "read by %s; this %s runs strategy.kind = %s", set->owner,
                              st->ncombos > 1 ? "sweep never" : "scenario", st->points[c].sc->strategy);
  }
  /* a failure law's own keys: read when some combination draws from that law */
  for (int i = 0; i < fl_fm_registry_count(); i++) {
    const fl_keyset *set = fl_fm_registry_options(i);
    int runs = 0, k;
    long c;
    if (!set)
      continue;
    for (long p = 0; p < st->ncombos && !runs; p++)
      for (int j = 0; j < fl_fm_registry_count() && !runs; j++) /* a set several laws share (shape) */
        runs = fl_fm_registry_options(j) == set && strcmp(st->points[p].sc->model, fl_fm_registry_name(j)) == 0;
    if (!runs && (c = fl_study_given(st, set, "failures", "model", &k)) >= 0)
      return fl_scenario_fail(st->points[c].sc, set->keys[k].section, set->keys[k].key,
                              "read by %s; this %s draws failures.model = %s", set->owner,
                              st->ncombos > 1 ? "sweep never" : "scenario", st->points[c].sc->model);
  }
  return FL_OK;
}

fl_err fl_study_plan(const char *path, char *const *sets, int nsets, fl_study **out)
{
  fl_err rc = FL_OK;
  fl_study *st = NULL;
  char **pkeys = NULL; /* each combination's platform key */
  long npkeys = 0;
  int nsweeps = 0;

  *out = NULL;
  FL_ALLOC(st, 1);
  FL_TRY(fl_scenario_load(path, &st->base));
  for (int i = 0; i < nsets; i++) {
    if (sets[i][0] == '\x01')
      nsweeps++;
    else
      FL_TRY(fl_scenario_set(st->base, sets[i]));
  }
  {
    uint64_t h = XXH64(st->base->text ? st->base->text : "", st->base->text ? strlen(st->base->text) : 0, 0);
    for (int i = 0; i < nsets; i++)
      if (strncmp(sets[i], "run.db=", 7) != 0)
        h = XXH64(sets[i], strlen(sets[i]), h);
    snprintf(st->sweep_id, sizeof st->sweep_id, "%016" PRIx64, h);
  }
  FL_TRY(fl_study_sweep_text(st, sets, nsets));
  FL_TRY(fl_sweep_parse(st->sweep_text, st->base->sweep && !nsweeps ? path : "--sweep", st->dims, &st->ndims));
  st->ncombos = 1;
  for (int d = 0; d < st->ndims; d++) {
    st->ncombos *= st->dims[d].nvalues;
    FL_CHECK(st->ncombos <= FL_MAX_COMBOS, FL_ERR_INPUT, "the sweep has more than %d combinations", FL_MAX_COMBOS);
  }
  FL_CHECK(st->base->replicas > FL_SCENARIO_MAX_REPLICAS /* said per combination below, naming the key */ ||
               (double)st->ncombos * (double)st->base->replicas <= 1e8,
           FL_ERR_INPUT, "the sweep's %ld combinations x %ld replicas = %.3g rows: at most 1e8 per command",
           st->ncombos, st->base->replicas, (double)st->ncombos * (double)st->base->replicas);
  FL_ALLOC(st->points, st->ncombos);
  FL_ALLOC(pkeys, st->ncombos);
  for (long c = 0; c < st->ncombos; c++) {
    fl_study_point *p = &st->points[c];
    char key[4400];
    FL_TRY(fl_scenario_load(path, &p->sc));
    for (int i = 0; i < nsets; i++)
      if (sets[i][0] != '\x01')
        FL_TRY(fl_scenario_set(p->sc, sets[i]));
    FL_TRY(fl_sweep_apply(p->sc, st->dims, st->ndims, c));
    FL_CHECK(strcmp(p->sc->db, st->points[0].sc->db) == 0, FL_ERR_INPUT,
             "--sweep: every combination writes to one database (run.db cannot be swept)");
    /* which platform it needs: SimGrid holds one per process, so each distinct one gets a process */
    FL_TRY(fl_sim_platform_key(p->sc, key, sizeof key));
    p->group = -1;
    for (long e = 0; e < c && p->group < 0; e++)
      if (strcmp(pkeys[e], key) == 0)
        p->group = st->points[e].group;
    if (p->group < 0)
      p->group = st->ngroups++;
    FL_CHECK((pkeys[npkeys++] = strdup(key)) != NULL, FL_ERR_NOMEM, "out of memory");
  }
  FL_TRY(fl_study_app_keys(st));
  *out = st;
  st = NULL;
done:
  for (long c = 0; c < npkeys; c++)
    free(pkeys[c]);
  free(pkeys);
  fl_study_destroy(&st);
  return rc;
}

/* Does the simulation read any of the '+'-joined keys of a sweep term? */
static int fl_study_uses(const fl_sim *sim, const char *keys)
{
  char buf[128], *save = NULL, *key;
  snprintf(buf, sizeof buf, "%.127s", keys);
  for (key = strtok_r(buf, "+", &save); key; key = strtok_r(NULL, "+", &save))
    if (fl_sim_uses_key(sim, key))
      return 1;
  return 0;
}

fl_err fl_study_setup(fl_study *st, long group)
{
  fl_err rc = FL_OK;
  int *effective = NULL; /* per combination and dimension: its value's index if its simulation reads the key */
  FL_CHECK(group < st->ngroups, FL_ERR_INPUT, "--platform-group %ld: the sweep has %d platform%s", group, st->ngroups,
           st->ngroups == 1 ? "" : "s");
  FL_ALLOC(effective, st->ncombos * FL_MAX_SWEEP_DIMS);
  for (long c = 0; c < st->ncombos; c++) {
    fl_study_point *p = &st->points[c];
    long same = -1;
    if (group >= 0 && p->group != group)
      continue; /* another process's platform: its items are counted, not run */
    FL_TRY(fl_sim_create(p->sc, &p->sim));
    for (int d = 0; d < st->ndims; d++)
      effective[c * FL_MAX_SWEEP_DIMS + d] =
          fl_study_uses(p->sim, st->dims[d].key)
              ? (int)((c / fl_sweep_stride(st->dims, st->ndims, d)) % st->dims[d].nvalues)
              : -1;
    for (long e = 0; e < c && same < 0; e++) {
      if (!st->points[e].sim)
        continue;
      same = e;
      for (int d = 0; d < st->ndims; d++)
        if (effective[c * FL_MAX_SWEEP_DIMS + d] != effective[e * FL_MAX_SWEEP_DIMS + d] ||
            strcmp(p->sc->strategy, st->points[e].sc->strategy) != 0)
          same = -1;
    }
    if (same >= 0)
      fl_sim_destroy(&p->sim);
  }
done:
  free(effective);
  return rc;
}

long fl_study_rows(const fl_study *st, long shard_i, long shard_n)
{
  long rows = 0, k = 0;
  for (long c = 0; c < st->ncombos; c++)
    for (long r = 0; r < st->points[c].sc->replicas; r++, k++)
      rows += st->points[c].sim && k % shard_n == shard_i - 1;
  return rows;
}

/* A replica handed to the writer: its row's id once written, and what the tally needs of its result. */
typedef struct fl_study_slot {
  int64_t id;
  int pending, completed;
  double makespan_s, wait_nodes_s;
} fl_study_slot;

/* Count a written replica (nothing while none is pending). */
static fl_err fl_study_account(fl_study_slot *s, fl_study_tally *t)
{
  fl_err rc = FL_OK;
  if (!s->pending)
    goto done;
  s->pending = 0;
  if (s->id == 0) {
    t->skipped++; /* another process wrote this very row meanwhile (same key): it is there once */
    goto done;
  }
  if (s->completed) {
    t->sum_makespan += s->makespan_s;
    t->sum_wait += s->wait_nodes_s > 0 ? s->wait_nodes_s : 0.0;
    t->completed++;
  }
  if (!t->first_id)
    t->first_id = s->id;
  t->last_id = s->id;
  if (t->nown == t->own_cap) {
    int64_t *g = realloc(t->own, (t->own_cap = t->own_cap ? 2 * t->own_cap : 256) * sizeof *t->own);
    FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory");
    t->own = g;
  }
  t->own[t->nown++] = s->id;
done:
  return rc;
}

/* What writes a point's replicas as they come (fl_sim_run_replicas): each one's row, the tally, the progress. */
typedef struct fl_study_writing {
  const fl_study *st;
  long c;
  fl_db_writer *writer;
  fl_study_slot *slot; /* two: the replica being written, the one before */
  int *cur;
  fl_study_tally *t;
  const fl_study_hooks *hooks;
  const long *list, *pos; /* the replicas run, and each one's place among the shard's rows */
  long total;
} fl_study_writing;

static fl_err fl_study_write(void *ctx, long k, const fl_sim_result *res, fl_evlog *log)
{
  fl_err rc = FL_OK;
  fl_study_writing *w = ctx;
  fl_study_point *p = &w->st->points[w->c];
  fl_study_slot *s = &w->slot[*w->cur];
  fl_db_run row;
  if (w->hooks->row)
    w->hooks->row(w->hooks->ctx, w->st, w->c, w->pos[k], w->total);
  fl_sim_fill_row(p->sim, p->sc, w->list[k], res, &row);
  /* written by the writer thread while the next replica runs; the one before is written once this returns */
  FL_TRY(fl_db_writer_submit(w->writer, &row, log, &s->id));
  s->pending = 1;
  s->completed = strcmp(res->status, "completed") == 0;
  s->makespan_s = res->makespan_s;
  s->wait_nodes_s = res->wait_nodes_s;
  *w->cur ^= 1;
  FL_TRY(fl_study_account(&w->slot[*w->cur], w->t));
done:
  return rc;
}

fl_err fl_study_run(fl_study *st, fl_db *db, fl_db_writer *writer, long shard_i, long shard_n,
                    const fl_study_hooks *hooks, fl_study_tally *t)
{
  fl_err rc = FL_OK;
  fl_evlog log;
  fl_study_slot slot[2] = {{0}};  /* the replica being written, the one before */
  char *present = NULL;           /* the current point's replicas that are in the database already */
  long *list = NULL, *pos = NULL; /* the current point's replicas to simulate, and their places */
  long item = 0, done_rows = 0, total = fl_study_rows(st, shard_i, shard_n);
  int cur = 0;
  const fl_study_hooks none = {0};
  if (!hooks)
    hooks = &none;

  fl_evlog_init(&log, 0);
  for (long c = 0; c < st->ncombos; c++) {
    fl_scenario *sc = st->points[c].sc;
    fl_sim *sim = st->points[c].sim;
    long nlist = 0;
    if (!sim) {
      item += sc->replicas; /* another group's, or the same runs as an earlier combination: no shard runs them */
      continue;
    }
    fl_evlog_free(&log);
    fl_evlog_init(&log, sc->events_all);
    t->sum_makespan = t->sum_wait = 0.0;
    t->completed = 0;
    if (hooks->point)
      hooks->point(hooks->ctx, st, c);
    free(present);
    free(list);
    free(pos);
    list = pos = NULL;
    FL_CHECK((present = calloc((size_t)sc->replicas, 1)) != NULL &&
                 (list = malloc((size_t)sc->replicas * sizeof *list)) != NULL &&
                 (pos = malloc((size_t)sc->replicas * sizeof *pos)) != NULL,
             FL_ERR_NOMEM, "out of memory");
    for (long r = 0; r < sc->replicas; r++) {
      char key[160];
      int found = 0, nin;
      const fl_input *in = fl_sim_inputs(sim, &nin);
      /* shard I of N takes every N-th (combination, replica) item, starting at I - 1: disjoint, deterministic */
      if (item++ % shard_n != shard_i - 1)
        continue;
      done_rows++;
      fl_db_sim_row_key(sc->text, sc->overrides, in, nin, sc->seed, r, key, sizeof key);
      FL_TRY(fl_db_has_row(db, key, &found));
      present[r] = (char)found;
      if (found) {
        t->skipped++;
        continue;
      }
      pos[nlist] = done_rows - 1;
      list[nlist++] = r;
    }
    {
      /* simulated here or on st->jobs workers (rows in replica order either way) */
      fl_study_writing w = {st, c, writer, slot, &cur, t, hooks, list, pos, total};
      FL_TRY(fl_sim_run_replicas(sim, list, nlist, st->jobs, &log, fl_study_write, &w));
    }
    FL_TRY(fl_db_writer_sync(writer));
    FL_TRY(fl_study_account(&slot[cur ^ 1], t));
    if (hooks->point_done)
      hooks->point_done(hooks->ctx, st, c, t);
  }
done:
  if (rc != FL_OK)
    (void)fl_db_writer_sync(writer); /* nothing it still holds may point here (the slots' ids, the log) */
  fl_evlog_free(&log);
  free(present);
  free(list);
  free(pos);
  return rc;
}

void fl_study_destroy(fl_study **pst)
{
  fl_study *st = pst ? *pst : NULL;
  if (!st)
    return;
  for (long c = 0; st->points && c < st->ncombos; c++) {
    fl_sim_destroy(&st->points[c].sim);
    fl_scenario_destroy(&st->points[c].sc);
  }
  free(st->points);
  fl_scenario_destroy(&st->base);
  free(st->sweep_text);
  free(st->dropped);
  free(st);
  *pst = NULL;
}
