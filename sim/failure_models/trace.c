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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The model's own keys (core/keys.h). */
typedef struct fl_trace_opts {
  char *trace; /* the log, relative to the scenario (NULL: none) */
  int format;  /* fl_log_format: auto, csv, lanl, fta */
  int by_work; /* trace_clock: 0 a record's time is the date of the failure; 1 the job's work done */
  long system; /* lanl/fta: keep this system only (0: all) */
  char *map;   /* log node id -> node index or host, or NULL */
} fl_trace_opts;

static const char *const fl_log_format_choices[] = {"auto", "csv", "lanl", "fta", NULL}; /* fl_log_format order */
static const char *const fl_trace_clock_choices[] = {"time", "work", NULL};

/* A trace given to another model, or none to this one; work-placed failures need a trace and no repair. */
static fl_err fl_trace_check(const fl_scenario *sc, const void *opts)
{
  const fl_trace_opts *o = opts;
  int chosen = strcmp(sc->model, "trace") == 0;
  if (chosen && !o->trace)
    return fl_scenario_fail(sc, "failures", "trace", "model = trace needs a trace file");
  if (o->trace && !chosen)
    return fl_scenario_fail(sc, "failures", "trace", "a trace is given but model is '%s' (set model = trace)",
                            sc->model);
  if (o->by_work && !chosen)
    return fl_scenario_fail(sc, "failures", "trace_clock", "work places a trace's failures: it needs model = trace");
  if (o->by_work && isfinite(sc->repair_s))
    return fl_scenario_fail(sc, "failures", "trace_clock",
                            "work: failures placed by progress are never repaired (set failures.repair = never)");
  return FL_OK;
}

#define FL_OFF(field) offsetof(fl_trace_opts, field)
static const fl_key fl_trace_key_table[] = {
    {"failures", "trace", FL_K_STR, FL_OFF(trace), FL_K_OPTIONAL, "", NULL,
     "failure log, relative to the scenario file; model = trace (formats: trace_format)"},
    {"failures", "trace_format", FL_K_ENUM_INT, FL_OFF(format), 0, "auto", fl_log_format_choices,
     "csv: time, node, downtime; lanl: the LANL 1996-2005 release (LA-UR-05-7318); fta: Failure Trace Archive "
     "event_trace (tab-separated); auto: fta for .tab/.tsv, lanl when the header starts 'System,', else csv"},
    {"failures", "trace_clock", FL_K_ENUM_INT, FL_OFF(by_work), 0, "time", fl_trace_clock_choices,
     "time: a record's time is when the node fails; work (bsp jobs): the job's work done (seconds of failure-free "
     "compute) when it fails, the first time the job gets there: the same failures at the same progress whatever "
     "the strategy (faultline agree places them so, as faultline run's RANK@ITER kills); never repaired"},
    {"failures", "trace_system", FL_K_COUNT, FL_OFF(system), 0, "0", NULL,
     "lanl/fta: keep only this System / platform_id (0: all; a log of several systems then needs trace_map)"},
    {"failures", "trace_map", FL_K_STR, FL_OFF(map), FL_K_OPTIONAL, "", NULL,
     "file of 'LOG_NODE, NODE' lines mapping the log's node ids (lanl: SYSTEM:NODENUMZ, fta: node_id, csv: as "
     "written) to node indices or host names; a logged node missing from it is an error"},
};
#undef FL_OFF
static const fl_keyset fl_trace_options = {"failure model trace", sizeof(fl_trace_opts), fl_trace_key_table,
                                           FL_KEYS_N(fl_trace_key_table), fl_trace_check};

static int fl_fm_trace_inputs(const fl_scenario *sc, fl_input_ref *refs)
{
  const fl_trace_opts *o = fl_scenario_options(sc, &fl_trace_options);
  refs[0] = (fl_input_ref){"failures.trace", o->trace};
  refs[1] = (fl_input_ref){"failures.trace_map", o->trace && o->trace[0] ? o->map : NULL};
  return 2;
}

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
  const fl_trace_opts *o = fl_scenario_options(sc, &fl_trace_options);
  char *path = fl_scenario_resolve(sc, o->trace), *map_path = NULL;
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
  FL_TRY(fl_log_read(path, (fl_log_format)o->format, o->system > 0 ? o->system : -1, &log));
  if (o->map) {
    map_path = fl_scenario_resolve(sc, o->map);
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
  fm->trace_by_work = o->by_work;
  fm->trace_file = path;
  path = NULL;
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
    .traits = FL_FM_REPLAYS,
    .options = &fl_trace_options,
    .inputs = fl_fm_trace_inputs,
    .setup = fl_fm_trace_setup,
    .mean = fl_fm_nan,
    .variance = fl_fm_nan,
};
