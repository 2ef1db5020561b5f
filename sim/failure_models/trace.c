/* trace.c — the `trace` failure model: replay recorded failures from a CSV file.
 *
 * Format (docs/scenarios.md): one failure per line, `time, node, downtime`; '#' starts a comment line; an
 * optional header line starts with "time". time and downtime take units ("3600", "1h"); downtime may be empty
 * (use [failures] repair) or "never". node is a 0-based node index (the controller is not counted) or a host
 * name. Records are sorted by time (stable), so a trace may list them in any order. */
#include "fm_impl.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *fl_trim(char *s)
{
  char *e;
  while (isspace((unsigned char)*s))
    s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

static int fl_trace_cmp(const void *a, const void *b)
{
  const fl_fm_trace_rec *x = a, *y = b;
  if (x->t_s != y->t_s)
    return x->t_s < y->t_s ? -1 : 1;
  return x->line - y->line; /* stable */
}

static fl_err fl_trace_parse_line(const char *file, int lineno, char *line, fl_fm_trace_rec *rec)
{
  char *fields[4] = {NULL, NULL, NULL, NULL};
  int n = 0;
  char *tok;
  double v;

  /* strtok_r skips empty fields; split by hand to keep an empty downtime */
  tok = line;
  while (n < 4) {
    char *comma = strchr(tok, ',');
    if (comma)
      *comma = '\0';
    fields[n++] = fl_trim(tok);
    if (!comma)
      break;
    tok = comma + 1;
  }
  if (n < 2 || n > 3)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: expected 'time, node[, downtime]', got %d field%s", file, lineno, n,
                      n == 1 ? "" : "s");
  if (fl_units_duration(fields[0], 0, &v) != FL_OK) {
    char why[256];
    snprintf(why, sizeof why, "%s", fl_err_msg()); /* fl_err_set writes over fl_err_msg() */
    return fl_err_set(FL_ERR_INPUT, "%s:%d: time '%s': %s", file, lineno, fields[0], why);
  }
  if (v < 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: time '%s': must not be negative", file, lineno, fields[0]);
  rec->t_s = v;
  if (fields[1][0] == '\0')
    return fl_err_set(FL_ERR_INPUT, "%s:%d: node '': empty (give an index or a host name)", file, lineno);
  if (isdigit((unsigned char)fields[1][0])) {
    char *end = NULL;
    long idx;
    errno = 0;
    idx = strtol(fields[1], &end, 10);
    if (*end != '\0' || errno != 0 || idx < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': not a node index", file, lineno, fields[1]);
    rec->node = idx;
    rec->host = NULL;
  } else {
    for (const char *c = fields[1]; *c; c++)
      if (isspace((unsigned char)*c))
        return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': host names have no blanks", file, lineno, fields[1]);
    rec->node = -1;
    rec->host = malloc(strlen(fields[1]) + 1);
    if (!rec->host)
      return fl_err_set(FL_ERR_NOMEM, "out of memory");
    strcpy(rec->host, fields[1]);
  }
  rec->downtime_s = NAN;
  if (n == 3 && fields[2][0] != '\0') {
    if (fl_units_duration(fields[2], 1, &v) != FL_OK || v < 0) {
      free(rec->host);
      rec->host = NULL;
      return fl_err_set(FL_ERR_INPUT, "%s:%d: downtime '%s': expected a duration >= 0 or never", file, lineno,
                        fields[2]);
    }
    rec->downtime_s = v;
  }
  rec->line = lineno;
  return FL_OK;
}

static fl_err fl_fm_trace_setup(fl_fm *fm, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  char *path = fl_scenario_resolve(sc, sc->trace);
  FILE *f = NULL;
  char *line = NULL;
  size_t cap = 0, alloc = 0;
  ssize_t len;
  int lineno = 0, seen_data = 0;

  FL_CHECK(path != NULL, FL_ERR_NOMEM, "out of memory");
  f = fopen(path, "r");
  if (!f) {
    rc = fl_scenario_fail(sc, "failures", "trace", "cannot open trace '%s': %s", path, strerror(errno));
    goto done;
  }
  while ((len = getline(&line, &cap, f)) >= 0) {
    char *p;
    lineno++;
    p = fl_trim(line);
    if (*p == '\0' || *p == '#')
      continue;
    if (!seen_data && strncasecmp(p, "time", 4) == 0 && (p[4] == ',' || isspace((unsigned char)p[4]))) {
      seen_data = 1; /* header */
      continue;
    }
    seen_data = 1;
    if (fm->ntrace == alloc) {
      size_t na = alloc ? 2 * alloc : 64;
      fl_fm_trace_rec *grown = realloc(fm->trace, na * sizeof *grown);
      FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory reading trace");
      fm->trace = grown;
      alloc = na;
    }
    FL_TRY(fl_trace_parse_line(path, lineno, p, &fm->trace[fm->ntrace]));
    fm->ntrace++;
  }
  if (fm->ntrace > 1)
    qsort(fm->trace, fm->ntrace, sizeof *fm->trace, fl_trace_cmp);
  fm->mean_s = NAN; /* estimated by the caller, who knows the node count */
done:
  if (f)
    fclose(f);
  free(line);
  free(path);
  return rc;
}

static double fl_fm_nan(const fl_fm *fm)
{
  (void)fm;
  return NAN;
}

const fl_fm_ops fl_fm_trace_ops = {
    .name = "trace",
    .setup = fl_fm_trace_setup,
    .mean = fl_fm_nan,
    .variance = fl_fm_nan,
};
