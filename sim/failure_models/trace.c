/* trace.c — the `trace` failure model: replay recorded failures from a log (logs.h: faultline's CSV, the LANL
 * release, FTA event traces).
 *
 * CSV (docs/scenarios.md): one failure per line, `time, node, downtime`; '#' starts a comment line; an
 * optional header line starts with "time". time and downtime take units ("3600", "1h"); downtime may be empty
 * (use [failures] repair) or "never". node is a 0-based node index (the controller is not counted) or a host
 * name. LANL and FTA logs: time 0 is the earliest failure kept; nodes are LANL's nodenumz, FTA's node_id, or
 * whatever [failures] trace_map maps them to. Records are sorted by time (stable), so a trace may list them
 * in any order. */
#include "fm_impl.h"
#include "inputs.h"
#include "logs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fl_trace_cmp(const void *a, const void *b)
{
  const fl_fm_trace_rec *x = a, *y = b;
  if (x->t_s != y->t_s)
    return x->t_s < y->t_s ? -1 : 1;
  return x->line - y->line; /* stable */
}

/* The node a log record names, as an index or a host: through the map when there is one, else the log's own
 * numbering (csv: index or host; lanl: nodenumz; fta: node_id). */
static fl_err fl_trace_node(const fl_log *log, const fl_log_map *map, const char *map_path, const fl_log_rec *r,
                            fl_fm_trace_rec *rec)
{
  const char *id = r->node;
  char *end = NULL;
  long idx;
  if (map) {
    id = fl_log_map_find(map, r->node);
    if (!id)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': not in the node map '%s'", log->path, r->line, r->node,
                        map_path);
  } else if (log->format == FL_LOG_LANL) {
    id = strchr(r->node, ':') + 1;
  }
  if (strcmp(id, "*") == 0)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: the log does not say which node failed", log->path, r->line);
  if (isdigit((unsigned char)id[0])) {
    errno = 0;
    idx = strtol(id, &end, 10);
    if (*end != '\0' || errno != 0 || idx < 0)
      return fl_err_set(FL_ERR_INPUT, "%s:%d: node '%s': not a node index", map ? map_path : log->path, r->line, id);
    rec->node = idx;
    rec->host = NULL;
    return FL_OK;
  }
  if (log->format == FL_LOG_FTA && !map)
    return fl_err_set(FL_ERR_INPUT, "%s:%d: node_id '%s': not a node index (map it with [failures] trace_map)",
                      log->path, r->line, id);
  rec->node = -1;
  rec->host = malloc(strlen(id) + 1);
  if (!rec->host)
    return fl_err_set(FL_ERR_NOMEM, "out of memory");
  strcpy(rec->host, id);
  return FL_OK;
}

static fl_err fl_fm_trace_setup(fl_fm *fm, const fl_scenario *sc)
{
  fl_err rc = FL_OK;
  char *path = fl_scenario_resolve(sc, sc->trace), *map_path = NULL;
  fl_log *log = NULL;
  fl_log_map *map = NULL;

  FL_CHECK(path != NULL, FL_ERR_NOMEM, "out of memory");
  {
    const char *why;
    FILE *probe = fl_input_fopen(path, &why);
    if (!probe) {
      rc = fl_scenario_fail(sc, "failures", "trace", "cannot open trace '%s': %s", path, why);
      goto done;
    }
    fclose(probe);
  }
  FL_TRY(fl_log_read(path, (fl_log_format)sc->trace_format, sc->trace_system > 0 ? sc->trace_system : -1, &log));
  if (sc->trace_map) {
    map_path = fl_scenario_resolve(sc, sc->trace_map);
    FL_CHECK(map_path != NULL, FL_ERR_NOMEM, "out of memory");
    FL_TRY(fl_log_map_read(map_path, &map));
  }
  if (log->systems > 1 && !map)
    FL_CHECK(0, FL_ERR_INPUT,
             "%s: the log holds %ld systems; pick one with [failures] trace_system = N or map its "
             "nodes with trace_map",
             path, log->systems);
  FL_ALLOC(fm->trace, log->n);
  for (size_t i = 0; i < log->n; i++) {
    fl_fm_trace_rec *rec = &fm->trace[fm->ntrace];
    FL_TRY(fl_trace_node(log, map, map_path, &log->rec[i], rec));
    rec->t_s = log->rec[i].t_s;
    rec->downtime_s = log->rec[i].downtime_s;
    rec->line = log->rec[i].line;
    fm->ntrace++;
  }
  if (fm->ntrace > 1)
    qsort(fm->trace, fm->ntrace, sizeof *fm->trace, fl_trace_cmp);
  fm->mean_s = NAN; /* estimated by the caller, who knows the node count */
done:
  fl_log_map_destroy(&map);
  fl_log_destroy(&log);
  free(map_path);
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
