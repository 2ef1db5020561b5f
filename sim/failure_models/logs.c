/* logs.c — failure-log readers (see logs.h). Fields are split by libcsv; each format's rows are then read
 * field by field, every error naming file, line and field. */
#define _GNU_SOURCE /* timegm, strptime */
#include "logs.h"

#include "inputs.h"
#include "units.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define FL_LOG_MAX_FIELDS 64

/* One row's fields as libcsv hands them over. */
typedef struct fl_row {
  char *field[FL_LOG_MAX_FIELDS];
  int nfield;
  int overflow; /* more than FL_LOG_MAX_FIELDS fields */
  int done;     /* a record ended */
  int nomem;
} fl_row;

static void fl_row_clear(fl_row *r)
{
  for (int i = 0; i < r->nfield; i++)
    free(r->field[i]);
  r->nfield = 0;
  r->overflow = 0;
  r->done = 0;
}

static void fl_row_field(void *s, size_t len, void *data)
{
  fl_row *r = data;
  char *f;
  if (r->nfield >= FL_LOG_MAX_FIELDS) {
    r->overflow = 1;
    return;
  }
  f = malloc(len + 1);
  if (!f) {
    r->nomem = 1;
    return;
  }
  memcpy(f, s, len);
  f[len] = '\0';
  r->field[r->nfield++] = f;
}

static void fl_row_end(int c, void *data)
{
  (void)c;
  ((fl_row *)data)->done = 1;
}

static char *fl_log_trim(char *s)
{
  char *e;
  while (isspace((unsigned char)*s))
    s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

const char *fl_log_format_name(fl_log_format f)
{
  switch (f) {
  case FL_LOG_CSV: return "csv";
  case FL_LOG_LANL: return "lanl";
  case FL_LOG_FTA: return "fta";
  default: return "auto";
  }
}

fl_err fl_log_format_parse(const char *text, fl_log_format *f)
{
  static const fl_log_format all[] = {FL_LOG_AUTO, FL_LOG_CSV, FL_LOG_LANL, FL_LOG_FTA};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp(text, fl_log_format_name(all[i])) == 0) {
      *f = all[i];
      return FL_OK;
    }
  return fl_err_set(FL_ERR_INPUT, "log format '%s': expected auto, csv, lanl or fta", text);
}

static fl_err fl_log_push(fl_log *log, size_t *alloc, fl_log_rec **out)
{
  if (log->n == *alloc) {
    size_t na = *alloc ? 2 * *alloc : 256;
    fl_log_rec *grown = realloc(log->rec, na * sizeof *grown);
    if (!grown)
      return fl_err_set(FL_ERR_NOMEM, "out of memory reading %s", log->path);
    log->rec = grown;
    *alloc = na;
  }
  *out = &log->rec[log->n];
  memset(*out, 0, sizeof **out);
  (*out)->system = -1;
  (*out)->downtime_s = NAN;
  return FL_OK;
}

static char *fl_log_strdup(const char *s)
{
  char *d = malloc(strlen(s) + 1);
  if (d)
    strcpy(d, s);
  return d;
}

/* csv: time, node[, downtime] */
static fl_err fl_log_csv_row(fl_log *log, fl_row *row, int line, fl_log_rec *rec)
{
  const char *file = log->path;
  double v;
  char *f0, *f1;
  if (row->nfield < 2 || row->nfield > 3)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: expected 'time, node[, downtime]', got %d field%s", file, line, row->nfield,
                      row->nfield == 1 ? "" : "s");
  f0 = fl_log_trim(row->field[0]);
  f1 = fl_log_trim(row->field[1]);
  if (fl_units_duration(f0, 0, &v) != FL_OK) {
    char why[256];
    snprintf(why, sizeof why, "%s", fl_err_msg());
    return fl_err_set(FL_ERR_INPUT, "%s:%d: time '%s': %s", file, line, f0, why);
  }
  if (v < 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: time '%s': must not be negative", file, line, f0);
  rec->t_s = v;
  if (f1[0] == '\0')
    return fl_err_set(FL_ERR_INPUT, "%s:%d: node '': empty (give an index or a host name)", file, line);
  if (isdigit((unsigned char)f1[0])) {
    char *end = NULL;
    long idx;
    errno = 0;
    idx = strtol(f1, &end, 10);
    if (*end != '\0' || errno != 0 || idx < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': not a node index", file, line, f1);
  } else {
    for (const char *c = f1; *c; c++)
      if (isspace((unsigned char)*c))
        return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': host names have no blanks", file, line, f1);
  }
  if (row->nfield == 3) {
    char *f2 = fl_log_trim(row->field[2]);
    if (f2[0] != '\0') {
      if (fl_units_duration(f2, 1, &v) != FL_OK || v < 0)
        return fl_err_set(FL_ERR_INPUT, "%s:%d: downtime '%s': expected a duration >= 0 or never", file, line, f2);
      rec->downtime_s = v;
    }
  }
  rec->node = fl_log_strdup(f1);
  if (!rec->node)
    return fl_err_set(FL_ERR_NOMEM, "out of memory");
  return FL_OK;
}

/* LANL dates: "m/d/yyyy h:mm" (also 2-digit years and seconds), read as UTC. */
static int fl_log_lanl_date(const char *text, double *epoch)
{
  static const char *const fmts[] = {"%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%m/%d/%y %H:%M:%S", "%m/%d/%y %H:%M"};
  for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
    struct tm tm;
    const char *end;
    memset(&tm, 0, sizeof tm);
    end = strptime(text, fmts[i], &tm);
    if (end && *end == '\0') {
      *epoch = (double)timegm(&tm);
      return 1;
    }
  }
  return 0;
}

static int fl_log_col(fl_row *hdr, const char *name)
{
  for (int i = 0; i < hdr->nfield; i++)
    if (strcasecmp(fl_log_trim(hdr->field[i]), name) == 0)
      return i;
  return -1;
}

typedef struct fl_log_cols {
  int system, nodes, node, start, fixed, down;          /* lanl */
  int ev_node, ev_platform, ev_type, ev_start, ev_stop; /* fta */
  int need;                                             /* fields a row must have */
} fl_log_cols;

static fl_err fl_log_lanl_header(fl_log *log, fl_row *hdr, fl_log_cols *c)
{
  static const char *const names[] = {"System", "nodes", "nodenumz", "Prob Started"};
  int *slots[] = {&c->system, &c->nodes, &c->node, &c->start};
  c->need = 0;
  for (size_t i = 0; i < 4; i++) {
    *slots[i] = fl_log_col(hdr, names[i]);
    if (*slots[i] < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:1: LANL header has no '%s' column", log->path, names[i]);
    if (*slots[i] + 1 > c->need)
      c->need = *slots[i] + 1;
  }
  c->fixed = fl_log_col(hdr, "Prob Fixed");
  c->down = fl_log_col(hdr, "Down Time");
  return FL_OK;
}

static fl_err fl_log_long(const fl_log *log, int line, const char *what, const char *text, long *v)
{
  char *end = NULL;
  errno = 0;
  *v = strtol(text, &end, 10);
  if (end == text || *fl_log_trim(end) != '\0' || errno != 0 || *v < 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: %s '%s': not a non-negative integer", log->path, line, what, text);
  return FL_OK;
}

static fl_err fl_log_lanl_row(fl_log *log, fl_row *row, int line, const fl_log_cols *c, long keep, fl_log_rec *rec,
                              long *nodes)
{
  long sys, nodenum;
  double start, fixed;
  char id[64];
  if (row->nfield < c->need)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: %d fields, the LANL header names at least %d", log->path, line, row->nfield,
                      c->need);
  if (fl_log_long(log, line, "System", fl_log_trim(row->field[c->system]), &sys) != FL_OK)
    return FL_ERR_INPUT;
  rec->system = sys;
  if (keep >= 0 && sys != keep)
    return FL_OK; /* another system's row: not read further */
  /* some systems (17 in the 1996-2005 release) log no node: the node is then "SYSTEM:*" */
  *nodes = -1;
  nodenum = -1;
  if (fl_log_trim(row->field[c->nodes])[0] != '\0' &&
      fl_log_long(log, line, "nodes", fl_log_trim(row->field[c->nodes]), nodes) != FL_OK)
    return FL_ERR_INPUT;
  /* a fit gives every node of the system an observation: the count is checked before anything is sized by it */
  if (*nodes < -1 || *nodes > FL_LOG_MAX_NODES)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: nodes '%s': a system of 0 to %ld nodes", log->path, line,
                      fl_log_trim(row->field[c->nodes]), FL_LOG_MAX_NODES);
  if (fl_log_trim(row->field[c->node])[0] != '\0' &&
      fl_log_long(log, line, "nodenumz", fl_log_trim(row->field[c->node]), &nodenum) != FL_OK)
    return FL_ERR_INPUT;
  if (!fl_log_lanl_date(fl_log_trim(row->field[c->start]), &start))
    return fl_err_set(FL_ERR_INPUT, "%s:%d: Prob Started '%s': expected a date m/d/yyyy h:mm", log->path, line,
                      row->field[c->start]);
  rec->t_s = start;
  if (c->down >= 0 && c->down < row->nfield && fl_log_trim(row->field[c->down])[0] != '\0') {
    double minutes;
    const char *d = fl_log_trim(row->field[c->down]);
    if (fl_units_number(d, 0, &minutes) != FL_OK || minutes < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: Down Time '%s': expected minutes >= 0", log->path, line, d);
    rec->downtime_s = 60.0 * minutes;
  } else if (c->fixed >= 0 && c->fixed < row->nfield && fl_log_lanl_date(fl_log_trim(row->field[c->fixed]), &fixed)) {
    if (fixed < start)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: Prob Fixed '%s' is before Prob Started '%s'", log->path, line,
                        row->field[c->fixed], row->field[c->start]);
    rec->downtime_s = fixed - start;
  }
  if (nodenum >= 0)
    snprintf(id, sizeof id, "%ld:%ld", sys, nodenum);
  else
    snprintf(id, sizeof id, "%ld:*", sys);
  rec->node = fl_log_strdup(id);
  if (!rec->node)
    return fl_err_set(FL_ERR_NOMEM, "out of memory");
  return FL_OK;
}

static fl_err fl_log_epoch(const fl_log *log, int line, const char *what, const char *text, double *v)
{
  if (fl_units_number(text, 0, v) != FL_OK)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: %s '%s': expected epoch seconds", log->path, line, what, text);
  if (*v < 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: %s '%s': must not be negative", log->path, line, what, text);
  return FL_OK;
}

/* lanl and fta rows return FL_OK with rec->node NULL for rows not kept: another system's (keep >= 0), or an
 * FTA availability event. */
static fl_err fl_log_fta_row(fl_log *log, fl_row *row, int line, const fl_log_cols *c, long keep, fl_log_rec *rec)
{
  long type, platform;
  double start, stop;
  const char *node;
  if (row->nfield < c->need)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: %d tab-separated fields, an FTA event_trace row has %d", log->path, line,
                      row->nfield, c->need);
  if (fl_log_long(log, line, "event_type", fl_log_trim(row->field[c->ev_type]), &type) != FL_OK)
    return FL_ERR_INPUT;
  if (type != 0)
    return FL_OK;
  if (fl_log_long(log, line, "platform_id", fl_log_trim(row->field[c->ev_platform]), &platform) != FL_OK)
    return FL_ERR_INPUT;
  if (keep >= 0 && platform != keep)
    return FL_OK;
  if (fl_log_epoch(log, line, "event_start_time", fl_log_trim(row->field[c->ev_start]), &start) != FL_OK)
    return FL_ERR_INPUT;
  rec->t_s = start;
  rec->system = platform;
  {
    const char *s = fl_log_trim(row->field[c->ev_stop]);
    if (s[0] != '\0' && strcasecmp(s, "NULL") != 0) {
      if (fl_log_epoch(log, line, "event_stop_time", s, &stop) != FL_OK)
        return FL_ERR_INPUT;
      if (stop < start)
        return fl_err_set(FL_ERR_INPUT, "%s:%d: event_stop_time '%s' is before event_start_time '%s'", log->path, line,
                          s, row->field[c->ev_start]);
      rec->downtime_s = stop - start;
    }
  }
  node = fl_log_trim(row->field[c->ev_node]);
  if (node[0] == '\0')
    return fl_err_set(FL_ERR_INPUT, "%s:%d: node_id '': empty", log->path, line);
  rec->node = fl_log_strdup(node);
  if (!rec->node)
    return fl_err_set(FL_ERR_NOMEM, "out of memory");
  return FL_OK;
}

static void fl_log_fta_positional(fl_log_cols *c)
{
  c->ev_node = 2;
  c->ev_platform = 3;
  c->ev_type = 5;
  c->ev_start = 6;
  c->ev_stop = 7;
  c->need = 8;
}

static fl_err fl_log_fta_header(fl_log *log, fl_row *hdr, fl_log_cols *c)
{
  static const char *const names[] = {"node_id", "platform_id", "event_type", "event_start_time", "event_stop_time"};
  int *slots[] = {&c->ev_node, &c->ev_platform, &c->ev_type, &c->ev_start, &c->ev_stop};
  c->need = 0;
  for (size_t i = 0; i < 5; i++) {
    *slots[i] = fl_log_col(hdr, names[i]);
    if (*slots[i] < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:1: FTA header has no '%s' column", log->path, names[i]);
    if (*slots[i] + 1 > c->need)
      c->need = *slots[i] + 1;
  }
  return FL_OK;
}

static fl_log_format fl_log_detect(const char *path, const char *first_line)
{
  const char *dot = strrchr(path, '.');
  if (dot && (strcasecmp(dot, ".tab") == 0 || strcasecmp(dot, ".fta") == 0 || strcasecmp(dot, ".tsv") == 0))
    return FL_LOG_FTA;
  if (first_line && strncasecmp(first_line, "System,", 7) == 0)
    return FL_LOG_LANL;
  return FL_LOG_CSV;
}

/* Systems kept, for the LANL node count. */
typedef struct fl_sysnodes {
  long sys, nodes;
} fl_sysnodes;

fl_err fl_log_read(const char *path, fl_log_format format, long system, fl_log **out)
{
  fl_err rc = FL_OK;
  fl_log *log = NULL;
  const char *why;
  FILE *f = NULL;
  char *line = NULL;
  size_t cap = 0, alloc = 0;
  ssize_t len;
  int lineno = 0, header_seen = 0, csv_ready = 0;
  struct csv_parser p;
  fl_row row;
  fl_log_cols cols;
  fl_sysnodes *sys = NULL;
  size_t nsys = 0;

  memset(&row, 0, sizeof row);
  memset(&cols, 0, sizeof cols);
  *out = NULL;
  FL_ALLOC(log, 1);
  log->path = fl_log_strdup(path);
  FL_CHECK(log->path != NULL, FL_ERR_NOMEM, "out of memory");
  log->origin_epoch = NAN;
  log->nodes = -1;
  f = fl_input_fopen(path, &why);
  FL_CHECK(f != NULL, FL_ERR_INPUT, "cannot open failure log '%s': %s", path, why);
  FL_CHECK(csv_init(&p, CSV_APPEND_NULL) == 0, FL_ERR_NOMEM, "out of memory");
  csv_ready = 1;

  while ((len = getline(&line, &cap, f)) >= 0) {
    char *t;
    lineno++;
    if (lineno == 1) {
      if (format == FL_LOG_AUTO)
        format = fl_log_detect(path, line);
      if (format == FL_LOG_FTA)
        csv_set_delim(&p, '\t');
      log->format = format;
    }
    t = fl_log_trim(line);
    if (row.nfield == 0 && (*t == '\0' || *t == '#'))
      continue;
    if (format == FL_LOG_CSV && !header_seen && strncasecmp(t, "time", 4) == 0 &&
        (t[4] == ',' || isspace((unsigned char)t[4]) || t[4] == '\0')) {
      header_seen = 1;
      continue;
    }
    len = (ssize_t)strlen(t);
    t[len++] = '\n'; /* fl_log_trim ate it; libcsv ends the record there */
    if (csv_parse(&p, t, (size_t)len, fl_row_field, fl_row_end, &row) != (size_t)len)
      FL_CHECK(0, FL_ERR_INPUT, "%s:%d: %s", path, lineno, csv_strerror(csv_error(&p)));
    FL_CHECK(!row.nomem, FL_ERR_NOMEM, "out of memory reading %s", path);
    if (!row.done)
      continue; /* a quoted field goes on */
    FL_CHECK(!row.overflow, FL_ERR_INPUT, "%s:%d: more than %d fields", path, lineno, FL_LOG_MAX_FIELDS);
    if (!header_seen && format == FL_LOG_LANL) {
      FL_TRY(fl_log_lanl_header(log, &row, &cols));
      header_seen = 1;
      fl_row_clear(&row);
      continue;
    }
    if (!header_seen && format == FL_LOG_FTA) {
      header_seen = 1;
      if (fl_log_col(&row, "event_type") >= 0) {
        FL_TRY(fl_log_fta_header(log, &row, &cols));
        fl_row_clear(&row);
        continue;
      }
      fl_log_fta_positional(&cols);
    }
    header_seen = 1;
    {
      fl_log_rec *rec = NULL;
      long nodes = -1;
      FL_TRY(fl_log_push(log, &alloc, &rec));
      rec->line = lineno;
      if (format == FL_LOG_CSV)
        rc = fl_log_csv_row(log, &row, lineno, rec);
      else if (format == FL_LOG_LANL)
        rc = fl_log_lanl_row(log, &row, lineno, &cols, system, rec, &nodes);
      else
        rc = fl_log_fta_row(log, &row, lineno, &cols, system, rec);
      if (rc != FL_OK) {
        free(rec->node);
        goto done;
      }
      if (rec->node && system >= 0 && rec->system != system) {
        free(rec->node);
        rec->node = NULL;
      }
      if (rec->node) {
        if (format != FL_LOG_CSV) {
          size_t k = 0;
          while (k < nsys && sys[k].sys != rec->system)
            k++;
          if (k == nsys) {
            fl_sysnodes *g = realloc(sys, (nsys + 1) * sizeof *g);
            FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory");
            sys = g;
            sys[nsys].sys = rec->system;
            sys[nsys++].nodes = nodes;
          }
        }
        log->n++;
      }
    }
    fl_row_clear(&row);
  }
  FL_CHECK(row.nfield == 0, FL_ERR_INPUT, "%s:%d: the file ends inside a quoted field", path, lineno);
  if (format == FL_LOG_LANL && !header_seen)
    FL_CHECK(0, FL_ERR_INPUT, "%s: empty LANL log (no header row)", path);
  log->systems = format == FL_LOG_CSV ? 1 : (long)nsys;
  if (format == FL_LOG_LANL) {
    log->nodes = 0;
    for (size_t k = 0; k < nsys && log->nodes >= 0; k++)
      log->nodes = sys[k].nodes < 0 ? -1 : log->nodes + sys[k].nodes;
  }
  if (format != FL_LOG_CSV && log->n > 0) {
    double t0 = log->rec[0].t_s;
    for (size_t i = 1; i < log->n; i++)
      if (log->rec[i].t_s < t0)
        t0 = log->rec[i].t_s;
    log->origin_epoch = t0;
    for (size_t i = 0; i < log->n; i++)
      log->rec[i].t_s -= t0;
  }
  *out = log;
  log = NULL;
done:
  fl_row_clear(&row);
  if (csv_ready)
    csv_free(&p);
  if (f)
    fclose(f);
  free(line);
  free(sys);
  fl_log_destroy(&log);
  return rc;
}

void fl_log_destroy(fl_log **plog)
{
  fl_log *log = plog ? *plog : NULL;
  if (!log)
    return;
  for (size_t i = 0; i < log->n; i++)
    free(log->rec[i].node);
  free(log->rec);
  free(log->path);
  free(log);
  *plog = NULL;
}

/* node maps */
struct fl_log_map {
  char **key; /* LOG_NODE, NODE, LOG_NODE, NODE, ... sorted by LOG_NODE */
  size_t n;
};

static int fl_log_map_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

fl_err fl_log_map_read(const char *path, fl_log_map **out)
{
  fl_err rc = FL_OK;
  fl_log_map *m = NULL;
  char **pairs = NULL;

  *out = NULL;
  {
    const char *why;
    FILE *f = fl_input_fopen(path, &why);
    char *line = NULL;
    size_t cap = 0, alloc = 0;
    int lineno = 0;
    FL_CHECK(f != NULL, FL_ERR_INPUT, "cannot open node map '%s': %s", path, why);
    FL_ALLOC(m, 1);
    while (getline(&line, &cap, f) >= 0) {
      char *t = fl_log_trim(line), *comma, *a, *b;
      lineno++;
      if (*t == '\0' || *t == '#')
        continue;
      comma = strchr(t, ',');
      if (!comma) {
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: expected 'LOG_NODE, NODE'", path, lineno);
        break;
      }
      *comma = '\0';
      a = fl_log_trim(t);
      b = fl_log_trim(comma + 1);
      if (*a == '\0' || *b == '\0' || strchr(b, ',')) {
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: expected 'LOG_NODE, NODE'", path, lineno);
        break;
      }
      if (m->n == alloc) {
        size_t na = alloc ? 2 * alloc : 64;
        char **g = realloc(pairs, 2 * na * sizeof *g);
        if (!g) {
          rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
          break;
        }
        pairs = g;
        alloc = na;
      }
      pairs[2 * m->n] = fl_log_strdup(a);
      pairs[2 * m->n + 1] = fl_log_strdup(b);
      m->n++;
      if (!pairs[2 * m->n - 2] || !pairs[2 * m->n - 1]) {
        rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
        break;
      }
    }
    free(line);
    fclose(f);
    if (rc != FL_OK)
      goto done;
  }
  /* pairs sorted by key: qsort over (key, value) records of two pointers */
  qsort(pairs, m->n, 2 * sizeof *pairs, fl_log_map_cmp);
  for (size_t i = 1; i < m->n; i++)
    FL_CHECK(strcmp(pairs[2 * i], pairs[2 * i - 2]) != 0, FL_ERR_INPUT, "%s: log node '%s' is mapped twice", path,
             pairs[2 * i]);
  m->key = pairs;
  pairs = NULL;
  *out = m;
  m = NULL;
done:
  if (pairs) {
    for (size_t i = 0; m && i < 2 * m->n; i++)
      free(pairs[i]);
    free(pairs);
    if (m)
      m->n = 0;
  }
  fl_log_map_destroy(&m);
  return rc;
}

const char *fl_log_map_find(const fl_log_map *m, const char *log_node)
{
  size_t lo = 0, hi = m ? m->n : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(m->key[2 * mid], log_node);
    if (c == 0)
      return m->key[2 * mid + 1];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

void fl_log_map_destroy(fl_log_map **pm)
{
  fl_log_map *m = pm ? *pm : NULL;
  if (!m)
    return;
  for (size_t i = 0; m->key && i < 2 * m->n; i++)
    free(m->key[i]);
  free(m->key);
  free(m);
  *pm = NULL;
}
