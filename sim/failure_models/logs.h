/* logs.h — failure logs as users have them: faultline's own CSV, the LANL/CFDR release (LA-UR-05-7318, the
 * 1996-2005 failure data of 22 LANL systems) and the Failure Trace Archive's tab-separated event traces.
 *
 * A log is read into records (node, time, downtime) with the file's line for each, so everything downstream —
 * `faultline fit`, the `trace` failure model — can name the line a bad value came from. Fields are split by
 * libcsv (quoted fields with commas, as the LANL file has them).
 *
 *   csv   `time, node[, downtime]` per line, '#' comments, optional header starting with "time"; times in
 *         seconds or with units from the job's start (docs/scenarios.md).
 *   lanl  the LANL CSV with its header row; the columns used: System, nodes, nodenumz, Prob Started,
 *         Prob Fixed, Down Time (minutes). Dates "m/d/yyyy h:mm" (UTC). Node id: "SYSTEM:NODENUMZ".
 *   fta   FTA event_trace rows, tab-separated: event_id, component_id, node_id, platform_id, node_name,
 *         event_type, event_start_time, event_stop_time, event_end_reason (epoch seconds); a header row naming
 *         the columns is also accepted. Only unavailability events (event_type 0) are failures. Node id: node_id.
 * For lanl and fta, times become seconds since the earliest record kept (origin_epoch holds it). */
#ifndef FL_LOGS_H
#define FL_LOGS_H

#include "fl_err.h"

#include <stddef.h>

typedef enum fl_log_format { FL_LOG_AUTO = 0, FL_LOG_CSV, FL_LOG_LANL, FL_LOG_FTA } fl_log_format;

typedef struct fl_log_rec {
  double t_s;        /* seconds from the log's origin (>= 0) */
  double downtime_s; /* NAN: not given; INFINITY: never repaired */
  char *node;        /* node id as the log names it */
  long system;       /* LANL System / FTA platform_id; -1 for csv */
  int line;          /* line of the file */
} fl_log_rec;

/* The most nodes a log's system (and all its systems together) may declare: a fit sizes its observations by them. */
#define FL_LOG_MAX_NODES 10000000L

typedef struct fl_log {
  char *path;
  fl_log_format format; /* as detected */
  fl_log_rec *rec;      /* in file order */
  size_t n;
  double origin_epoch; /* lanl/fta: Unix time of t = 0; NAN for csv */
  long nodes;          /* lanl: nodes of the systems kept (from the `nodes` column); -1 when the log does not say */
  long systems;        /* distinct systems kept */
} fl_log;

/* Read `path`. format FL_LOG_AUTO: fta for .tab/.fta files, lanl when the header row starts "System,", else
 * csv. system >= 0 keeps only that LANL system / FTA platform. Errors (FL_ERR_INPUT) name the file, the line
 * and the field. */
fl_err fl_log_read(const char *path, fl_log_format format, long system, fl_log **out);
void fl_log_destroy(fl_log **log);

/* "csv", "lanl", "fta" (and "auto"); parse the same. */
const char *fl_log_format_name(fl_log_format f);
fl_err fl_log_format_parse(const char *text, fl_log_format *f);

/* A node map (failures.trace_map, fit --map): one `LOG_NODE, NODE` per line ('#' comments), NODE a 0-based
 * node index or a host name. fl_log_map_find returns the entry's NODE text or NULL. */
typedef struct fl_log_map fl_log_map;
fl_err fl_log_map_read(const char *path, fl_log_map **out);
const char *fl_log_map_find(const fl_log_map *m, const char *log_node);
void fl_log_map_destroy(fl_log_map **m);

#endif
