/* export.c — the results as typed data (export.h). The output columns are the column table's (storage/columns.h),
 * a derived `waste`, and the scenario key table's (core/scenario.c): a new results column or key is exported with
 * no change here. A file written by an older faultline lacks some columns: they are exported empty, so one header
 * fits every file. */
#include "export.h"

#include "columns.h"
#include "db.h"
#include "rowset.h"
#include "scenario.h"

#include <csv.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One output column: a runs column (col), the derived waste (col NULL, key < 0), or scenario key `key`. */
typedef struct fl_xcol {
  const fl_column *col;
  int run;  /* col's place in the SELECT */
  int key;  /* a scenario key (-1: none) */
  int part; /* a compound key's number (0: the key as text; 1..: its idle/epsilon/busy watts, rows/cols) */
  char name[80];
  const char *type, *unit, *from;
} fl_xcol;

/* Compound keys, also exported as numbers: their parts by the key's type (keyinfo.type). */
static const struct {
  const char *type, *vtype, *unit;
  int n;
  const char *part[3];
} fl_xparts[] = {{"Idle:AllCores watts", "real", "W", 3, {"idle_w", "epsilon_w", "busy_w"}},
                 {"ROWSxCOLS", "integer", "", 2, {"rows", "cols", NULL}}};

/* The last scenario replayed: consecutive rows of one sweep point share it. */
typedef struct fl_xcache {
  char *text, *overrides, *path;
  fl_scenario *sc;
  int failed;
} fl_xcache;

static void fl_xcache_clear(fl_xcache *c)
{
  free(c->text);
  free(c->overrides);
  free(c->path);
  fl_scenario_destroy(&c->sc);
  memset(c, 0, sizeof *c);
}

static int fl_same(const char *a, const char *b)
{
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static char *fl_dup(const char *s)
{
  char *d = s ? malloc(strlen(s) + 1) : NULL;
  if (d)
    strcpy(d, s);
  return d;
}

/* The scenario of a row (NULL when it does not parse again). */
static fl_scenario *fl_xcache_get(fl_xcache *c, const char *text, const char *overrides, const char *path, long long id)
{
  fl_scenario *sc = NULL;
  if (c->text && fl_same(c->text, text) && fl_same(c->overrides, overrides) && fl_same(c->path, path))
    return c->sc;
  fl_xcache_clear(c);
  c->text = fl_dup(text ? text : "");
  c->overrides = fl_dup(overrides);
  c->path = fl_dup(path);
  if (fl_scenario_replay(text ? text : "", overrides, path, &sc) != FL_OK) {
    fprintf(stderr,
            "faultline: export: run %lld: its scenario does not parse with this version (%s): its key "
            "columns are empty\n",
            id, fl_err_msg());
    return NULL;
  }
  c->sc = sc;
  return sc;
}

/* A runs value as a typed fl_value (seed: back to unsigned, docs/results.md). */
static fl_value fl_xrun_value(sqlite3_stmt *st, int i, const fl_column *col)
{
  fl_value v = {FL_VAL_NULL, 0, 0, 0.0, NULL};
  switch (sqlite3_column_type(st, i)) {
  case SQLITE_INTEGER:
    if (col->how == FL_COL_SEED) {
      v.kind = FL_VAL_UINT;
      v.u = (unsigned long long)(uint64_t)sqlite3_column_int64(st, i);
    } else if (strcmp(fl_column_type(col), "real") == 0) {
      v.kind = FL_VAL_REAL; /* a REAL column holding an integral value SQLite stored as an integer */
      v.d = (double)sqlite3_column_int64(st, i);
    } else {
      v.kind = FL_VAL_INT;
      v.i = sqlite3_column_int64(st, i);
    }
    break;
  case SQLITE_FLOAT:
    v.kind = FL_VAL_REAL;
    v.d = sqlite3_column_double(st, i);
    break;
  case SQLITE_TEXT:
  case SQLITE_BLOB:
    v.kind = FL_VAL_TEXT;
    v.s = (const char *)sqlite3_column_text(st, i);
    break;
  default: break;
  }
  return v;
}

/* The shortest decimal that reads back as exactly d (15, 16 or 17 significant digits): 0.7, not
 * 0.69999999999999996, so that a CSV reader without a round-trip parser (pandas' default) gets the same double. */
static void fl_csv_real(double d, FILE *out)
{
  char buf[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, d);
    if (strtod(buf, NULL) == d)
      break;
  }
  fputs(buf, out);
}

static void fl_csv_value(const fl_value *v, FILE *out)
{
  switch (v->kind) {
  case FL_VAL_NULL: break;
  case FL_VAL_INT: fprintf(out, "%lld", v->i); break;
  case FL_VAL_UINT: fprintf(out, "%llu", v->u); break;
  case FL_VAL_REAL:
    if (isfinite(v->d))
      fl_csv_real(v->d, out);
    else if (isinf(v->d))
      fputs(v->d > 0 ? "inf" : "-inf", out);
    break;
  case FL_VAL_TEXT: csv_fwrite(out, v->s, strlen(v->s)); break;
  }
}

static json_t *fl_json_value(const fl_value *v)
{
  char buf[32];
  switch (v->kind) {
  case FL_VAL_INT: return json_integer(v->i);
  case FL_VAL_UINT:
    if (v->u <= (unsigned long long)INT64_MAX)
      return json_integer((json_int_t)v->u);
    snprintf(buf, sizeof buf, "%llu", v->u); /* beyond JSON's safe integers either way: exact as text */
    return json_string(buf);
  case FL_VAL_REAL: return isfinite(v->d) ? json_real(v->d) : json_null();
  case FL_VAL_TEXT: {
    json_t *j = json_string(v->s); /* NULL: not UTF-8 (a foreign file's bytes) */
    return j ? j : json_null();
  }
  default: return json_null();
  }
}

/* The value of column o in the row st is on (sc: its scenario, NULL when it no longer parses); buf holds text. */
static fl_value fl_xvalue(sqlite3_stmt *st, const fl_xcol *o, fl_scenario *sc, int i_work, int i_makespan, int i_pn,
                          char *buf, size_t size)
{
  fl_value v = {FL_VAL_NULL, 0, 0, 0.0, NULL};
  if (o->col) {
    v = fl_xrun_value(st, o->run, o->col);
    if (v.kind == FL_VAL_NULL && o->col->how == FL_COL_NODE_HOURS && sqlite3_column_type(st, i_pn) != SQLITE_NULL &&
        sqlite3_column_type(st, i_makespan) != SQLITE_NULL) {
      /* a row written before the column: the same product */
      v.kind = FL_VAL_REAL;
      v.d = (double)sqlite3_column_int64(st, i_pn) * sqlite3_column_double(st, i_makespan) / 3600.0;
    }
  } else if (o->key < 0) {
    double w = sqlite3_column_double(st, i_work), m = sqlite3_column_double(st, i_makespan);
    if (sqlite3_column_type(st, i_makespan) != SQLITE_NULL && m > 0) {
      v.kind = FL_VAL_REAL;
      v.d = 1.0 - w / m;
    }
  } else if (sc) {
    v = fl_scenario_key_value(sc, o->key, buf, size);
    if (o->part > 0 && v.kind == FL_VAL_TEXT && v.s) {
      /* a compound key's part, read back from its text ("100:200", "100:120:200", "10x10"; each part written
       * exactly): Idle:AllCores says no Epsilon, which SimGrid takes as Idle */
      double p[3] = {NAN, NAN, NAN};
      int n = 0;
      const char *q = v.s;
      char *end;
      while (n < 3) {
        p[n] = strtod(q, &end);
        if (end == q)
          break;
        n++;
        if (*end != ':' && *end != 'x')
          break;
        q = end + 1;
      }
      if (n == 2 && strchr(v.s, ':'))
        p[2] = p[1], p[1] = p[0];
      v.s = NULL;
      v.kind = FL_VAL_NULL;
      if (o->part <= 3 && !isnan(p[o->part - 1])) {
        if (strcmp(o->type, "integer") == 0) {
          v.kind = FL_VAL_INT;
          v.i = (long long)p[o->part - 1];
        } else {
          v.kind = FL_VAL_REAL;
          v.d = p[o->part - 1];
        }
      }
    }
  }
  return v;
}

/* After the runs columns (cols[0..ncols-1]): waste, then every scenario key and its parts (a grid's rows and
 * columns, ...). Returns the count. */
static int fl_export_derived_columns(fl_xcol *cols, int ncols)
{
  int nkeys = fl_scenario_key_count();
  {
    fl_xcol *o = &cols[ncols++];
    o->col = NULL;
    o->key = -1;
    o->part = 0;
    snprintf(o->name, sizeof o->name, "waste");
    o->type = "real";
    o->unit = "";
    o->from = "derived";
  }
  for (int k = 0; k < nkeys; k++) {
    const fl_scenario_keyinfo *info = fl_scenario_key_at(k);
    fl_xcol *o = &cols[ncols++];
    o->col = NULL;
    o->key = k;
    o->part = 0;
    snprintf(o->name, sizeof o->name, "%s.%s", info->section, info->key);
    o->type = info->vtype;
    o->unit = info->unit;
    o->from = "scenario";
    for (size_t t = 0; t < sizeof fl_xparts / sizeof *fl_xparts; t++)
      for (int p = 0; strcmp(info->type, fl_xparts[t].type) == 0 && p < fl_xparts[t].n; p++) {
        fl_xcol *q = &cols[ncols++];
        *q = *o;
        q->part = 1 + p;
        snprintf(q->name, sizeof q->name, "%s.%s.%s", info->section, info->key, fl_xparts[t].part[p]);
        q->type = fl_xparts[t].vtype;
        q->unit = fl_xparts[t].unit;
      }
  }
  return ncols;
}

/* The columns' header: CSV's line of names, or JSON's opening with each column's name, type, unit and origin. */
static fl_err fl_export_header(FILE *out, fl_export_format format, const fl_xcol *cols, int ncols, const int *has)
{
  fl_err rc = FL_OK;
  if (format == FL_EXPORT_CSV) {
    int first = 1;
    for (int c = 0; c < ncols; c++)
      if (has[c]) {
        fprintf(out, "%s%s", first ? "" : ",", cols[c].name);
        first = 0;
      }
    fputc('\n', out);
  } else {
    json_t *arr = json_array();
    char *s;
    FL_CHECK(arr != NULL, FL_ERR_NOMEM, "out of memory");
    for (int c = 0; c < ncols; c++)
      if (has[c])
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s}", "name", cols[c].name, "type", cols[c].type, "unit",
                                             cols[c].unit, "from", cols[c].from));
    s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    FL_CHECK(s != NULL, FL_ERR_NOMEM, "out of memory");
    fprintf(out, "{\"columns\": %s,\n \"rows\": [", s);
    free(s);
  }
done:
  return rc;
}

fl_err fl_export(sqlite3 *h, const char *path, const fl_export_opts *opt, FILE *out)
{
  fl_err rc = FL_OK;
  fl_xcol *cols = NULL;
  int ncols = 0, nrun = fl_run_ncolumns(), nkeys = fl_scenario_key_count();
  int i_text = -1, i_over = -1, i_path = -1, i_id = -1, i_work = -1, i_makespan = -1, i_pn = -1, nsel = 0;
  sqlite3_str *q = NULL;
  char *sql = NULL;
  sqlite3_stmt *st = NULL;
  fl_xcache cache;
  long rows = 0;
  int x = SQLITE_DONE, *has = NULL;

  memset(&cache, 0, sizeof cache);
  FL_ALLOC(cols, nrun + 1 + 4 * nkeys);
  FL_ALLOC(has, nrun + 1 + 4 * nkeys);
  q = sqlite3_str_new(h);
  sqlite3_str_appendall(q, "SELECT ");
  for (int c = 0; c < nrun; c++) {
    const fl_column *col = fl_run_column(c);
    fl_xcol *o;
    /* a column an older file lacks is exported empty: one header for every file */
    sqlite3_str_appendf(q, "%s%s", nsel ? ", " : "", fl_runs_has_column(h, col->name) ? col->name : "NULL");
    nsel++;
    if (strcmp(col->name, "scenario_text") == 0)
      continue; /* in scenario_texts; the keys below are what it says */
    o = &cols[ncols++];
    o->col = col;
    o->run = c;
    o->key = -1;
    o->part = 0;
    snprintf(o->name, sizeof o->name, "%s", col->name);
    o->type = fl_column_type(col);
    o->unit = col->unit;
    o->from = "run";
    if (strcmp(col->name, "id") == 0)
      i_id = c;
    else if (strcmp(col->name, "overrides") == 0)
      i_over = c;
    else if (strcmp(col->name, "scenario_path") == 0)
      i_path = c;
    else if (strcmp(col->name, "work_s") == 0)
      i_work = c;
    else if (strcmp(col->name, "makespan_s") == 0)
      i_makespan = c;
    else if (strcmp(col->name, "platform_nodes") == 0)
      i_pn = c;
  }
  FL_CHECK(i_id >= 0 && i_over >= 0 && i_path >= 0 && i_work >= 0 && i_makespan >= 0 && i_pn >= 0, FL_ERR_INTERNAL,
           "the column table lacks a column export needs");
  i_text = nsel;
  sqlite3_str_appendf(q, ", %s FROM runs", fl_db_text_sql(h));
  if (opt->where && *opt->where)
    sqlite3_str_appendf(q, " WHERE (%s)", opt->where);
  sqlite3_str_appendall(q, " ORDER BY id");
  ncols = fl_export_derived_columns(cols, ncols);
  sql = sqlite3_str_finish(q);
  q = NULL;
  FL_CHECK(sql != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_runs_prepare(h, path, sql, opt->where && *opt->where ? opt->where : NULL, &st));

  /* a column empty in every row exported is left out (unless all_columns): a first pass finds them */
  for (int c = 0; c < ncols; c++)
    has[c] = opt->all_columns;
  while (!opt->all_columns && (x = sqlite3_step(st)) == SQLITE_ROW) {
    fl_scenario *sc = fl_xcache_get(&cache, (const char *)sqlite3_column_text(st, i_text),
                                    (const char *)sqlite3_column_text(st, i_over),
                                    (const char *)sqlite3_column_text(st, i_path), sqlite3_column_int64(st, i_id));
    for (int c = 0; c < ncols; c++)
      if (!has[c]) {
        char buf[200];
        fl_value v = fl_xvalue(st, &cols[c], sc, i_work, i_makespan, i_pn, buf, sizeof buf);
        has[c] = v.kind != FL_VAL_NULL;
      }
  }
  if (!opt->all_columns) {
    FL_CHECK(x == SQLITE_DONE, FL_ERR_DB, "%s: reading runs: %s", path, sqlite3_errmsg(h));
    sqlite3_reset(st);
  }

  FL_TRY(fl_export_header(out, opt->format, cols, ncols, has));

  while ((x = sqlite3_step(st)) == SQLITE_ROW) {
    fl_scenario *sc = fl_xcache_get(&cache, (const char *)sqlite3_column_text(st, i_text),
                                    (const char *)sqlite3_column_text(st, i_over),
                                    (const char *)sqlite3_column_text(st, i_path), sqlite3_column_int64(st, i_id));
    json_t *obj = opt->format == FL_EXPORT_JSON ? json_object() : NULL;
    int first = 1;
    FL_CHECK(opt->format != FL_EXPORT_JSON || obj, FL_ERR_NOMEM, "out of memory");
    for (int c = 0; c < ncols; c++) {
      char buf[200];
      fl_value v;
      if (!has[c])
        continue;
      v = fl_xvalue(st, &cols[c], sc, i_work, i_makespan, i_pn, buf, sizeof buf);
      if (obj) {
        json_object_set_new(obj, cols[c].name, fl_json_value(&v));
      } else {
        if (!first)
          fputc(',', out);
        fl_csv_value(&v, out);
      }
      first = 0;
    }
    if (obj) {
      fputs(rows ? ",\n  " : "\n  ", out);
      if (json_dumpf(obj, out, JSON_COMPACT) != 0) {
        json_decref(obj);
        rc = fl_err_set(FL_ERR_IO, "export: writing a row failed");
        goto done;
      }
      json_decref(obj);
    } else {
      fputc('\n', out);
    }
    rows++;
  }
  if (x != SQLITE_DONE) {
    rc = fl_err_set(FL_ERR_DB, "%s: reading runs: %s", path, sqlite3_errmsg(h));
    goto done;
  }
  if (opt->format == FL_EXPORT_JSON)
    fputs(rows ? "\n ]}\n" : "]}\n", out);
  FL_CHECK(fflush(out) == 0 && !ferror(out), FL_ERR_IO, "export: writing the output failed");
done:
  if (q)
    sqlite3_free(sqlite3_str_finish(q));
  sqlite3_free(sql);
  sqlite3_finalize(st);
  fl_xcache_clear(&cache);
  free(cols);
  free(has);
  return rc;
}
