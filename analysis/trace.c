/* trace.c — a run's timeline as a Paje or Chrome trace (trace.h). The events are read once into intervals (the
 * job's phases, lost work, nodes down) and instants; each format is written from those. */
#include "trace.h"

#include "db.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static fl_err fl_tl_span(fl_tl *tl, int row, long node, double t0, double t1, const char *name, int interrupted)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&tl->span, &tl->capspan, tl->nspan + 1, sizeof *tl->span));
  tl->span[tl->nspan] = (fl_tspan){.row = row, .node = node, .t0 = t0, .t1 = t1, .interrupted = interrupted};
  snprintf(tl->span[tl->nspan].name, sizeof tl->span[0].name, "%s", name);
  tl->nspan++;
done:
  return rc;
}

static fl_err fl_tl_inst(fl_tl *tl, double t, const char *name, const char *detail)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&tl->inst, &tl->capinst, tl->ninst + 1, sizeof *tl->inst));
  tl->inst[tl->ninst].t = t;
  snprintf(tl->inst[tl->ninst].name, sizeof tl->inst[0].name, "%s", name);
  tl->inst[tl->ninst].detail = strdup(detail ? detail : "");
  FL_CHECK(tl->inst[tl->ninst].detail != NULL, FL_ERR_NOMEM, "out of memory");
  tl->ninst++;
done:
  return rc;
}

void fl_tl_free(fl_tl *tl)
{
  for (long i = 0; i < tl->ninst; i++)
    free(tl->inst[i].detail);
  free(tl->inst);
  free(tl->span);
  free(tl->nodes);
}

fl_err fl_tl_load(sqlite3 *db, int64_t run_id, fl_tl *tl)
{
  fl_err rc = FL_OK;
  sqlite3_stmt *st = NULL;
  char *q = NULL;
  double *down_since = NULL; /* per failed node (index in tl->nodes): NAN while up */
  long down_cap = 0;
  long *slot_of = NULL, slot_cap = 0; /* node -> index in tl->nodes, -1: none yet */
  int real = 0;

  FL_CHECK(sqlite3_prepare_v2(db, "SELECT scenario, mode, strategy, makespan_s FROM runs WHERE id = ?1", -1, &st,
                              NULL) == SQLITE_OK,
           FL_ERR_IO, "reading the runs: %s", sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  FL_CHECK(sqlite3_step(st) == SQLITE_ROW, FL_ERR_INPUT, "--timeline %lld: no such run", (long long)run_id);
  snprintf(tl->title, sizeof tl->title, "%s, run %lld (%s, %s)", (const char *)sqlite3_column_text(st, 0),
           (long long)run_id, (const char *)sqlite3_column_text(st, 1),
           sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "-");
  tl->end = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0.0 : sqlite3_column_double(st, 3);
  real = sqlite3_column_text(st, 1) && strcmp((const char *)sqlite3_column_text(st, 1), "real") == 0;
  tl->unit = real ? "process" : "node";
  sqlite3_finalize(st);
  st = NULL;

  q = sqlite3_mprintf(
      "SELECT t_s, kind, variant, node, n, value, detail FROM %s WHERE " FL_DB_EVENTS_OF_RUN(1) " ORDER BY t_s, id",
      fl_db_events_sql(db));
  FL_CHECK(q && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK, FL_ERR_IO, "reading the events: %s",
           sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, run_id);
  while (sqlite3_step(st) == SQLITE_ROW) {
    double t = sqlite3_column_double(st, 0), value = sqlite3_column_double(st, 5);
    const char *kind = (const char *)sqlite3_column_text(st, 1), *variant = (const char *)sqlite3_column_text(st, 2);
    const char *detail = (const char *)sqlite3_column_text(st, 6);
    int has_node = sqlite3_column_type(st, 3) != SQLITE_NULL, has_value = sqlite3_column_type(st, 5) != SQLITE_NULL;
    long node = has_node ? (long)sqlite3_column_int64(st, 3) : -1;
    kind = kind ? kind : "?";
    variant = variant ? variant : "";
    tl->end = fmax(tl->end, t);
    if (strcmp(kind, "phase") == 0 && has_value) {
      FL_TRY(fl_tl_span(tl, FL_TR_JOB, -1, t - value, t, variant, sqlite3_column_int64(st, 4) == 1));
      continue;
    }
    /* real runs: a checkpoint, the detection of a dead process and the survivors' agreement carry their length */
    if (real && has_value && value > 0 &&
        ((strcmp(kind, "checkpoint") == 0 && strcmp(variant, "iteration") == 0) || strcmp(kind, "detection") == 0 ||
         strcmp(kind, "recovery") == 0))
      FL_TRY(fl_tl_span(tl, FL_TR_JOB, -1, t - value, t, kind, 0));
    if (strcmp(kind, "interruption") == 0 && has_value && value > 0)
      FL_TRY(fl_tl_span(tl, FL_TR_LOST, -1, t - value, t, "lost", 0));
    /* a workflow's task ran on its host (the Gantt): a bar on that host's row */
    int task = strcmp(kind, "task") == 0 && has_value && node >= 0;
    if (node >= 0 &&
        (task || strcmp(kind, "failure") == 0 || strcmp(kind, "down-at-start") == 0 || strcmp(kind, "repair") == 0)) {
      long k;
      if (node >= slot_cap) { /* node -> its index in tl->nodes: one lookup per event, not a scan */
        long old = slot_cap;
        FL_TRY(fl_grow((void **)&slot_of, &slot_cap, node + 1, sizeof *slot_of));
        for (long i = old; i < slot_cap; i++)
          slot_of[i] = -1;
      }
      k = slot_of[node] >= 0 ? slot_of[node] : tl->nnodes;
      if (k == tl->nnodes) {
        slot_of[node] = k;
        FL_TRY(fl_grow((void **)&down_since, &down_cap, tl->nnodes + 1, sizeof *down_since));
        FL_TRY(fl_grow((void **)&tl->nodes, &tl->capnodes, tl->nnodes + 1, sizeof *tl->nodes));
        tl->nodes[tl->nnodes++] = node;
        down_since[k] = NAN;
      }
      if (task) {
        FL_TRY(fl_tl_span(tl, FL_TR_NODE, node, t - value, t, sqlite3_column_int64(st, 4) == 1 ? "killed" : "task",
                          sqlite3_column_int64(st, 4) == 1));
      } else if (strcmp(kind, "repair") == 0) {
        if (!isnan(down_since[k]))
          FL_TRY(fl_tl_span(tl, FL_TR_NODE, node, down_since[k], t, "down", 0));
        down_since[k] = NAN;
      } else if (isnan(down_since[k])) {
        down_since[k] = strcmp(kind, "down-at-start") == 0 ? 0.0 : t;
      }
    }
    {
      char name[32];
      snprintf(name, sizeof name, "%s%s%s", kind, variant[0] ? " " : "", variant);
      FL_TRY(fl_tl_inst(tl, t, name, detail));
    }
  }
  FL_CHECK(tl->ninst + tl->nspan > 0, FL_ERR_INPUT,
           "--timeline %lld: the run has no events (it ran with run.events = none)", (long long)run_id);
  if (real) { /* between its checkpoints and recoveries, a real job computes */
    long n = tl->nspan;
    double from = 0.0;
    for (long i = 0; i < n; i++) {
      if (tl->span[i].row != FL_TR_JOB)
        continue;
      if (tl->span[i].t0 > from)
        FL_TRY(fl_tl_span(tl, FL_TR_JOB, -1, from, tl->span[i].t0, "compute", 0));
      from = fmax(from, tl->span[i].t1);
    }
    if (n > 0 && tl->end > from)
      FL_TRY(fl_tl_span(tl, FL_TR_JOB, -1, from, tl->end, "compute", 0));
  }
  for (long k = 0; k < tl->nnodes; k++) /* still down at the end */
    if (!isnan(down_since[k]))
      FL_TRY(fl_tl_span(tl, FL_TR_NODE, tl->nodes[k], down_since[k], tl->end, "down", 0));
done:
  sqlite3_free(q);
  sqlite3_finalize(st);
  free(down_since);
  free(slot_of);
  return rc;
}

/* ---- Chrome trace-event JSON ---- */

static fl_err fl_trace_chrome(const fl_tl *tl, FILE *f)
{
  fl_err rc = FL_OK;
  json_t *root = json_object(), *ev = json_array(), *o;
  FL_CHECK(root && ev, FL_ERR_NOMEM, "out of memory");
#define FL_PUSH(x)                                                                                                     \
  do {                                                                                                                 \
    o = (x);                                                                                                           \
    FL_CHECK(o != NULL && json_array_append_new(ev, o) == 0, FL_ERR_NOMEM, "out of memory");                           \
  } while (0)
  FL_PUSH(
      json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", 1, "args", "name", tl->title));
  FL_PUSH(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1, "tid", 1, "args",
                    "name", "job"));
  FL_PUSH(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1, "tid", 2, "args",
                    "name", "lost work"));
  FL_PUSH(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 1, "tid", 3, "args",
                    "name", "events"));
  if (tl->nnodes > 0)
    FL_PUSH(json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", 2, "args", "name",
                      strcmp(tl->unit, "process") == 0 ? "processes that failed" : "nodes that failed"));
  for (long k = 0; k < tl->nnodes; k++) {
    char name[32];
    snprintf(name, sizeof name, "%s %ld", tl->unit, tl->nodes[k]);
    FL_PUSH(json_pack("{s:s, s:s, s:i, s:I, s:{s:s}}", "name", "thread_name", "ph", "M", "pid", 2, "tid",
                      (json_int_t)tl->nodes[k], "args", "name", name));
  }
  for (long i = 0; i < tl->nspan; i++) {
    const fl_tspan *s = &tl->span[i];
    int node = s->row == FL_TR_NODE;
    FL_PUSH(json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:I, s:{s:b}}", "name", s->name, "cat",
                      node                   ? "node"
                      : s->row == FL_TR_LOST ? "lost"
                                             : "phase",
                      "ph", "X", "ts", s->t0 * 1e6, "dur", (s->t1 - s->t0) * 1e6, "pid", node ? 2 : 1, "tid",
                      (json_int_t)(node                   ? s->node
                                   : s->row == FL_TR_LOST ? 2
                                                          : 1),
                      "args", "interrupted", s->interrupted));
  }
  for (long i = 0; i < tl->ninst; i++)
    FL_PUSH(json_pack("{s:s, s:s, s:s, s:s, s:f, s:i, s:i, s:{s:s}}", "name", tl->inst[i].name, "cat", "event", "ph",
                      "i", "s", "t", "ts", tl->inst[i].t * 1e6, "pid", 1, "tid", 3, "args", "detail",
                      tl->inst[i].detail));
#undef FL_PUSH
  FL_CHECK(json_object_set_new(root, "traceEvents", ev) == 0, FL_ERR_NOMEM, "out of memory");
  ev = NULL;
  FL_CHECK(json_object_set_new(root, "displayTimeUnit", json_string("ms")) == 0, FL_ERR_NOMEM, "out of memory");
  FL_CHECK(json_dumpf(root, f, JSON_COMPACT) == 0, FL_ERR_IO, "writing the trace: %s", strerror(errno));
done:
  json_decref(ev);
  json_decref(root);
  return rc;
}

/* ---- Paje ---- */

/* A Paje record in time order: state changes at an instant come before its events, and an interval's end before
 * the next one's start on the same row. */
typedef struct fl_prec {
  double t;
  int cls; /* 0: an interval ends, 1: one starts, 2: an instant */
  size_t i;
} fl_prec;

static int fl_prec_cmp(const void *a, const void *b)
{
  const fl_prec *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  if (x->cls != y->cls)
    return x->cls - y->cls;
  return x->i < y->i ? -1 : x->i > y->i;
}

static void fl_paje_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
  fputc('"', f);
}

static void fl_paje_row(FILE *f, const fl_tspan *s)
{
  if (s->row == FL_TR_NODE)
    fprintf(f, "n%ld", s->node);
  else
    fputs(s->row == FL_TR_LOST ? "lost" : "job", f);
}

static fl_err fl_trace_paje(const fl_tl *tl, FILE *f)
{
  fl_err rc = FL_OK;
  static const char *const defs =
      "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n"
      "%EndEventDef\n"
      "%EventDef PajeDefineStateType 1\n%       Alias string\n%       Type string\n%       Name string\n"
      "%EndEventDef\n"
      "%EventDef PajeDefineEventType 2\n%       Alias string\n%       Type string\n%       Name string\n"
      "%EndEventDef\n"
      "%EventDef PajeDefineEntityValue 3\n%       Alias string\n%       Type string\n%       Name string\n"
      "%       Color color\n%EndEventDef\n"
      "%EventDef PajeCreateContainer 4\n%       Time date\n%       Alias string\n%       Type string\n"
      "%       Container string\n%       Name string\n%EndEventDef\n"
      "%EventDef PajeDestroyContainer 5\n%       Time date\n%       Type string\n%       Name string\n"
      "%EndEventDef\n"
      "%EventDef PajeSetState 6\n%       Time date\n%       Type string\n%       Container string\n"
      "%       Value string\n%EndEventDef\n"
      "%EventDef PajeNewEvent 7\n%       Time date\n%       Type string\n%       Container string\n"
      "%       Value string\n%EndEventDef\n";
  /* fixed colours per state, whatever the run */
  static const char *const values[][2] = {
      {"compute", "0.30 0.69 0.29"},  {"checkpoint", "0.22 0.49 0.72"}, {"restart", "1.0 0.5 0.0"},
      {"downtime", "0.89 0.10 0.11"}, {"wait", "0.6 0.6 0.6"},          {"verify", "0.60 0.31 0.64"},
      {"idle", "1.0 1.0 1.0"},        {"lost", "0.89 0.10 0.11"},       {"down", "0.0 0.0 0.0"},
      {"up", "1.0 1.0 1.0"},          {"detection", "0.97 0.51 0.75"},  {"recovery", "0.65 0.34 0.16"},
      {"task", "0.30 0.69 0.29"},     {"killed", "0.89 0.10 0.11"}};
  fl_prec *rec = NULL;
  size_t n = 0, cap = (size_t)(2 * tl->nspan + tl->ninst);

  fputs(defs, f);
  fputs("0 CR 0 \"run\"\n0 CW CR \"row\"\n1 ST CW \"state\"\n2 EV CW \"event\"\n", f);
  for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
    fprintf(f, "3 %s ST \"%s\" \"%s\"\n", values[v][0], values[v][0], values[v][1]);
  fputs("4 0 run CR 0 ", f);
  fl_paje_string(f, tl->title);
  fputs("\n4 0 job CW run \"job\"\n4 0 lost CW run \"lost work\"\n", f);
  for (long k = 0; k < tl->nnodes; k++)
    fprintf(f, "4 0 n%ld CW run \"%s %ld\"\n", tl->nodes[k], tl->unit, tl->nodes[k]);
  fputs("6 0 ST job idle\n6 0 ST lost idle\n", f);
  for (long k = 0; k < tl->nnodes; k++)
    fprintf(f, "6 0 ST n%ld up\n", tl->nodes[k]);

  FL_ALLOC(rec, cap > 0 ? cap : 1);
  for (long i = 0; i < tl->nspan; i++) {
    rec[n++] = (fl_prec){tl->span[i].t0, 1, i};
    rec[n++] = (fl_prec){tl->span[i].t1, 0, i};
  }
  for (long i = 0; i < tl->ninst; i++)
    rec[n++] = (fl_prec){tl->inst[i].t, 2, i};
  qsort(rec, n, sizeof *rec, fl_prec_cmp);
  for (size_t r = 0; r < n; r++) {
    if (rec[r].cls == 2) {
      const fl_tinst *e = &tl->inst[rec[r].i];
      char text[600];
      snprintf(text, sizeof text, "%s: %s", e->name, e->detail);
      fprintf(f, "7 %.17g EV job ", e->t);
      fl_paje_string(f, text);
      fputc('\n', f);
    } else {
      const fl_tspan *s = &tl->span[rec[r].i];
      int next = 0; /* an interval ends where the row's next one starts: no idle state between */
      for (size_t q = r + 1; rec[r].cls == 0 && q < n && rec[q].t == rec[r].t && rec[q].cls < 2; q++)
        next |= rec[q].cls == 1 && tl->span[rec[q].i].row == s->row && tl->span[rec[q].i].node == s->node;
      if (next)
        continue;
      fprintf(f, "6 %.17g ST ", rec[r].t);
      fl_paje_row(f, s);
      fprintf(f, " %s\n", rec[r].cls == 1 ? s->name : s->row == FL_TR_NODE ? "up" : "idle");
    }
  }
  fprintf(f, "5 %.17g CW job\n5 %.17g CW lost\n", tl->end, tl->end);
  for (long k = 0; k < tl->nnodes; k++)
    fprintf(f, "5 %.17g CW n%ld\n", tl->end, tl->nodes[k]);
  fprintf(f, "5 %.17g CR run\n", tl->end);
  FL_CHECK(!ferror(f), FL_ERR_IO, "writing the trace: %s", strerror(errno));
done:
  free(rec);
  return rc;
}

fl_err fl_trace_export(sqlite3 *db, int64_t run_id, const char *file)
{
  fl_err rc = FL_OK;
  fl_tl tl;
  const char *dot = strrchr(file, '.');
  int chrome = dot && strcmp(dot, ".json") == 0,
      paje = dot && (strcmp(dot, ".paje") == 0 || strcmp(dot, ".trace") == 0);
  char *tmp = NULL;
  FILE *f = NULL;

  memset(&tl, 0, sizeof tl);
  FL_CHECK(chrome || paje, FL_ERR_INPUT,
           "--trace %s: the file must end in .paje or .trace (Paje: ViTE, pj_dump) or .json (Chrome trace events)",
           file);
  FL_TRY(fl_tl_load(db, run_id, &tl));
  tmp = malloc(strlen(file) + 32);
  FL_CHECK(tmp != NULL, FL_ERR_NOMEM, "out of memory");
  sprintf(tmp, "%s.tmp.%ld", file, (long)getpid());
  FL_CHECK((f = fopen(tmp, "w")) != NULL, FL_ERR_IO, "%s: %s", tmp, strerror(errno));
  rc = chrome ? fl_trace_chrome(&tl, f) : fl_trace_paje(&tl, f);
  if (fclose(f) != 0 && rc == FL_OK)
    rc = fl_err_set(FL_ERR_IO, "%s: %s", tmp, strerror(errno));
  f = NULL;
  if (rc == FL_OK && rename(tmp, file) != 0)
    rc = fl_err_set(FL_ERR_IO, "%s: %s", file, strerror(errno));
  if (rc != FL_OK)
    remove(tmp);
done:
  if (f) {
    fclose(f);
    remove(tmp);
  }
  free(tmp);
  fl_tl_free(&tl);
  return rc;
}
