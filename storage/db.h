/* db.h — the results database: one SQLite file per study, a `runs` row per simulated or real replica and an
 * optional `events` stream. Schema in docs/results.md and db.c; PRAGMA user_version is its version.
 *
 * A replica's row and its events are written in one transaction: a run that fails leaves nothing behind.
 * WAL journal, synchronous=NORMAL: a commit costs no fsync, a crash loses at most the last commits, never
 * consistency. */
#ifndef FL_DB_H
#define FL_DB_H

#include "columns.h"
#include "events.h"
#include "fl_err.h"
#include "inputs.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* 2: the scenario text stored once in scenario_texts, rows keep its xxh64 (scenario_xxh64) and an empty
 * scenario_text; rows of version 1 files keep their text
 * 3: typed events (events.h): `events` holds kind codes and numbers, `event_kinds` the codes, `events_text` the
 * sentence form; an event's id is run_id * 2^32 + its number within the run, so a run's events are one range of
 * the table's own key and need no index. Older files' events are converted on open (their text kept in `note`). */
#define FL_DB_SCHEMA_VERSION 3
/* PRAGMA application_id of a results file ("FLTL"): a file without it is never written unless it is empty or an
 * older faultline file. */
#define FL_DB_APPLICATION_ID 0x464C544Cu

typedef struct fl_db fl_db;

/* The C field a column's `how` (columns.h) gives fl_db_run, or none (computed by the insert, or fl_db_machine's). */
#define FL_COL_FIELD_AUTO(n)
#define FL_COL_FIELD_TEXT(n) const char *n;
#define FL_COL_FIELD_TEXT0(n) const char *n;
#define FL_COL_FIELD_REAL(n) double n;
#define FL_COL_FIELD_COUNT(n) long n;
#define FL_COL_FIELD_INT(n) long n;
#define FL_COL_FIELD_SEED(n) uint64_t n;
#define FL_COL_FIELD_VERSION(n)
#define FL_COL_FIELD_EMPTY(n)
#define FL_COL_FIELD_INPUTS(n)
#define FL_COL_FIELD_KEY(n)
#define FL_COL_FIELD_HASH(n)
#define FL_COL_FIELD_NODE_HOURS(n)
#define FL_COL_FIELD_MREAL(n)
#define FL_COL_FIELD_MCOUNT(n)
#define FL_COL_FIELD(name, decl, how, unit, engines, sum, doc) FL_COL_FIELD_##how(name)
/* fl_db_machine's: the machine figures of a workload run */
#define FL_COL_MFIELD_MREAL(n) double n;
#define FL_COL_MFIELD_MCOUNT(n) long n;
#define FL_COL_MFIELD(name, decl, how, unit, engines, sum, doc) FL_COL_MFIELD_##how(name)
#define FL_COL_MFIELD_AUTO(n)
#define FL_COL_MFIELD_TEXT(n)
#define FL_COL_MFIELD_TEXT0(n)
#define FL_COL_MFIELD_REAL(n)
#define FL_COL_MFIELD_COUNT(n)
#define FL_COL_MFIELD_INT(n)
#define FL_COL_MFIELD_SEED(n)
#define FL_COL_MFIELD_VERSION(n)
#define FL_COL_MFIELD_EMPTY(n)
#define FL_COL_MFIELD_INPUTS(n)
#define FL_COL_MFIELD_KEY(n)
#define FL_COL_MFIELD_HASH(n)
#define FL_COL_MFIELD_NODE_HOURS(n)

/* Values of one `runs` row: a field per column, generated from its line in columns.h (which says what each
 * means), in table order. Strings are borrowed for the call. NAN doubles and negative counts are NULL: what
 * fl_db_run_clear sets, a column that does not apply. */
typedef struct fl_db_run {
  FL_RUN_COLUMNS(FL_COL_FIELD)
  /* beside the columns */
  const char *scenario_text; /* the scenario file, verbatim (stored once in scenario_texts; its hash keys the row) */
  const char *job_id;     /* real runs: the job's identity (all its processes agree on it), so that one job writes one
                           * row however many of its processes try (replica sets); NULL: this process's moment */
  const fl_input *inputs; /* input files read (fingerprints; small ones' text): the `inputs` column */
  int ninputs;
  /* workloads (sim, app.kind = workload): the machine's figures and its `jobs` rows; NULL in every other row */
  const struct fl_db_machine *machine;
} fl_db_run;

/* One job of a workload run: a row of the `jobs` table (times from the replica's start, seconds of the job's own
 * wall time; multiply by nodes for node-seconds). */
typedef struct fl_db_job {
  long job;                        /* the trace's job number */
  double submit_s, start_s, end_s; /* first start; end: NAN when it did not finish */
  double run_s;                    /* its failure-free run time (the trace's) */
  long nodes, failures, checkpoints;
  long copies;         /* copies of each rank it ran (replication; 1 without) */
  double lost_work_s;  /* compute thrown away by failures (done again) */
  double checkpoint_s; /* checkpoint I/O, interrupted checkpoints included */
  double restart_s;    /* reading its checkpoint back, interrupted restarts included */
  double io_wait_s;    /* waiting for the PFS (app.checkpoint_io = ordered, least-waste) */
} fl_db_job;

/* A workload run's machine figures (columns.h: MREAL, MCOUNT) and its jobs. */
typedef struct fl_db_machine {
  FL_RUN_COLUMNS(FL_COL_MFIELD) /* columns.h's MREAL and MCOUNT lines */
  /* its jobs' rows: nrows in memory (rows), or, rows NULL, in a file from offset rows_at (a replica's, which holds
   * them rather than memory: a year's trace is hundreds of thousands) */
  const fl_db_job *rows;
  FILE *rows_file;
  long rows_at;
  long nrows;
} fl_db_machine;
/* Row k of m's jobs into *out; from a file, rows read in order cost one read each. */
fl_err fl_db_machine_row(const fl_db_machine *m, long k, fl_db_job *out);

/* Every column of a row "not applicable" (NAN, -1, NULL; INT and SEED columns 0), as a row's fields must start. */
void fl_db_run_clear(fl_db_run *row);
/* A cleared row with what identifies it: scenario name, path, text, overrides, and the mode ("sim", "real"). */
struct fl_scenario;
void fl_db_run_scenario(fl_db_run *row, const struct fl_scenario *sc, const char *mode);
/* A row of a real run (`faultline run`, faultline-mpi) of scenario `sc` with status `status`: what the scenario
 * says filled in (name, text, overrides, app, strategy, failure model, seed), every figure "not applicable" (NAN,
 * -1, NULL) for the caller to set. `kills`: failures given explicitly (--kill). */
void fl_db_run_real(fl_db_run *row, const struct fl_scenario *sc, const char *status, int kills);

/* A buffer of timed events for one replica, filled by the simulator or the runtime: typed entries (events.h says
 * what each column means for each kind), stored as they are; no formatting on the simulation's path. */
typedef struct fl_evlog_entry {
  double t_s;
  double value;      /* seconds of work; NAN: none */
  int64_t n;         /* a count; -1: none */
  int32_t node;      /* -1: none */
  int32_t rank;      /* -1: none */
  int32_t peer;      /* -1: none */
  int32_t kind;      /* fl_ev_kind */
  const char *level; /* static level name, or NULL */
  const char *label; /* a name that outlives the log (a task's, a host's) or a string the log owns; or NULL */
} fl_evlog_entry;

/* Events stay in memory up to FL_EVLOG_CHUNK entries; beyond, full chunks are streamed to an unlinked temporary
 * file (tmpfile: gone with the process, whatever ends it), so a replica's memory stays bounded however many
 * events it logs. */
#define FL_EVLOG_CHUNK 65536

typedef struct fl_evlog {
  int enabled;
  int phases; /* the job's phases too (FL_EV_PHASES): run.events = phases, timelines */
  fl_evlog_entry *v;
  size_t n, cap;
  void *spill;     /* FILE * of the chunks streamed out, or NULL */
  size_t nspilled; /* entries in it */
  int oom;         /* an append failed for want of memory or disk */
  char **texts;    /* labels the log owns (fl_evlog_add_text), freed by clear and free */
  size_t ntexts, captexts;
} fl_evlog;

/* Entries logged so far (in memory and streamed out). */
size_t fl_evlog_count(const fl_evlog *log);

/* enabled: 0 nothing, 1 every event, 2 every event and the job's phases (run.events = none, all, phases) */
void fl_evlog_init(fl_evlog *log, int enabled);
void fl_evlog_clear(fl_evlog *log);
void fl_evlog_free(fl_evlog *log);
/* Append an event of `kind` at `t_s` about `node` (-1: none), every other column "none", and return it for the
 * caller to fill (rank, peer, n, value, level, label); NULL when the log is disabled or an append failed (then
 * log->oom is set and the writer refuses the replica). */
fl_evlog_entry *fl_evlog_add(fl_evlog *log, double t_s, int kind, long node);
/* Shorthands for the usual shapes: seconds of work and a level; a count; a task (rank, peer, n); a name. */
static inline void fl_evlog_value(fl_evlog *log, double t_s, int kind, double value, const char *level)
{
  fl_evlog_entry *e = fl_evlog_add(log, t_s, kind, -1);
  if (e) {
    e->value = value;
    e->level = level;
  }
}
static inline void fl_evlog_count_of(fl_evlog *log, double t_s, int kind, long n)
{
  fl_evlog_entry *e = fl_evlog_add(log, t_s, kind, -1);
  if (e)
    e->n = n;
}
static inline void fl_evlog_task(fl_evlog *log, double t_s, int kind, long node, long rank, long peer, long n)
{
  fl_evlog_entry *e = fl_evlog_add(log, t_s, kind, node);
  if (e) {
    e->rank = (int32_t)rank;
    e->peer = (int32_t)peer;
    e->n = n;
  }
}
static inline void fl_evlog_label(fl_evlog *log, double t_s, int kind, long node, const char *label)
{
  fl_evlog_entry *e = fl_evlog_add(log, t_s, kind, node);
  if (e)
    e->label = label;
}
/* The same, with a label formatted into a string the log owns (rare kinds only: the GPU engine's). */
fl_evlog_entry *fl_evlog_add_text(fl_evlog *log, double t_s, int kind, long node, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Open or create `path`, creating or checking the schema. Refuses (FL_ERR_INPUT, the file unchanged) a file that
 * is not SQLite, another program's SQLite file, a damaged one, or one of a newer schema. */
fl_err fl_db_open(const char *path, fl_db **out);
/* The same, a new file made with 64 KiB pages (SQLite's largest): for a file that receives many rows at once
 * (merge), where a commit writes far fewer pages. */
fl_err fl_db_open_large(const char *path, fl_db **out);
/* The SQLite URI that opens `path` read-only without creating anything beside it: a WAL-mode file with no -wal
 * file beside it is opened immutable (else SQLite would create -wal and -shm files next to a file that is not ours
 * to touch). malloc'd; NULL when out of memory. */
char *fl_db_reader_uri(const char *path);
/* Open an existing database read-only (report). */
fl_err fl_db_open_readonly(const char *path, fl_db **out);
void fl_db_close(fl_db **db);

/* A row's identity (runs.row_key): simulated rows "sim:<xxh64 scenario text>:<xxh64 overrides but run.db and
 * run.replicas>:<seed>:<replica>", with ":<xxh64 of the input files' keys and content hashes>" after the replica
 * when the scenario reads files (an edited trace is another experiment), the same whichever command, shard or file
 * wrote it (so re-running a sweep and merging shards skip what is there); real rows a key of their own moment and
 * process. */
void fl_db_row_key(const fl_db_run *run, char *buf, size_t size);
void fl_db_sim_row_key(const char *scenario_text, const char *overrides, const fl_input *inputs, int ninputs,
                       uint64_t seed, long replica, char *buf, size_t size);
/* Is a row of that key in the database? The key as text, or as the value another file stored (compared as the
 * unique index compares it: a key read back as text could differ, a BLOB say). */
fl_err fl_db_has_row(fl_db *db, const char *row_key, int *found);
fl_err fl_db_has_row_value(fl_db *db, sqlite3_value *key, int *found);

/* Record that this file holds shard `shard` of `nshards` of sweep `sweep` (a fingerprint of the scenario text and
 * the command's options), planned to hold `expected` rows: `merge` reports missing and incomplete shards from it. */
fl_err fl_db_record_shard(fl_db *db, const char *sweep, long shard, long nshards, long expected);

/* Insert one run and its events in a single transaction; *id gets the run's id, or 0 when a row of the same key
 * was there already (written meanwhile by another process: nothing is added). */
fl_err fl_db_insert_run(fl_db *db, const fl_db_run *run, const fl_evlog *events, int64_t *id);

/* A writer thread for a run of many replicas: fl_db_insert_run on a thread of its own, so that storing one
 * replica's events overlaps simulating the next (the one other core does the SQLite work). Each submitted run is
 * still one transaction of its own, written in submission order; at most one is in flight.
 *
 * fl_db_writer_submit waits for the run before (so at most two replicas' events are in memory), then hands the row
 * over (a shallow copy: every string and array it points to must stay valid until fl_db_writer_sync) and swaps
 * *events with the writer's spent log (cleared): the caller logs the next replica into it. When the run is written,
 * *id is set as fl_db_insert_run sets it; until then the caller must keep *id where it is. An error of the writer
 * comes back from the next submit or sync, with its message. The caller must not use `db` at all between a submit
 * and the next sync (fl_db_open's connection has no mutex of SQLite's: one thread at a time). Without a
 * thread-safe SQLite build the writer writes at once, in the caller's thread. */
typedef struct fl_db_writer fl_db_writer;
/* threaded = 0: no thread, every submit writes at once (a caller that forks, as workload replicas do, must have no
 * other thread: a child forked while another thread holds an allocator's lock waits forever on it). */
fl_err fl_db_writer_start(fl_db *db, int threaded, fl_db_writer **out);
fl_err fl_db_writer_submit(fl_db_writer *w, const fl_db_run *row, fl_evlog *events, int64_t *id);
/* Wait until everything submitted is written; its error, if any. */
fl_err fl_db_writer_sync(fl_db_writer *w);
/* Sync, stop the thread, free; NULL is a no-op. An error not collected by a sync is lost: sync first. */
void fl_db_writer_destroy(fl_db_writer **w);

/* SQL expressions, for a query on `runs` of connection `h`, of a row's scenario text and of its xxh64 (16 hex
 * digits): rows written since schema 2 find their text in scenario_texts, older rows (and rows merged from older
 * files) carry it. The hash needs fl_xxh64(), which fl_db_sql_functions registers on `h` (SQLITE_OK or an error). */
const char *fl_db_text_sql(sqlite3 *h);
const char *fl_db_text_hash_sql(sqlite3 *h);
int fl_db_sql_functions(sqlite3 *h);
/* Is row_key a unique index of this (writable) database? (It is unless a file of schema 1 held duplicate keys.) */
int fl_db_key_unique(const fl_db *db);

/* Events of a database of any schema, for readers: a FROM-clause source (a view or subquery) of columns run_id,
 * t_s, kind (the name), variant, node, rank, peer, n, value, level, label, detail (the sentence). Files of schema
 * 3 and up give the `events_text` view; older ones (opened read-only, not upgraded) their own table. Static. */
const char *fl_db_events_sql(sqlite3 *h);
/* The WHERE condition that selects run ?N's events of a schema-3 `events` table by its key range (no index). */
#define FL_DB_EVENTS_OF_RUN(N) "id BETWEEN ?" #N " * 4294967296 AND ?" #N " * 4294967296 + 4294967295"
/* Copy the events of runs from `src_schema`.`src_table` (a file of any schema; "main" for the file itself) into
 * main.events, the run ids mapped by `map_sql`: a SELECT of (old_id, new_id) pairs. Older kinds are converted
 * (codes by name, their text kept in `note`); kinds unknown here are added to event_kinds as legacy kinds. */
fl_err fl_db_copy_events(sqlite3 *h, const char *src_schema, const char *src_table, const char *map_sql);
/* Event kind names (`names_sql`: a SELECT of a `name` column) that main.event_kinds lacks are added to it as legacy
 * kinds, numbered from FL_EV_LEGACY_CODE on. */
fl_err fl_db_add_legacy_kinds(sqlite3 *h, const char *names_sql);

/* The connection, borrowed, for queries (report, tests). */
sqlite3 *fl_db_sqlite(fl_db *db);
/* Does `schema`.`table` exist and have column `col`? (A file from an older faultline may lack a column.) */
int fl_db_has_column(sqlite3 *h, const char *schema, const char *table, const char *col);
const char *fl_db_path(const fl_db *db);

#endif
