/* rowset.h — the runs a report reads, each with the configuration it ran: the values of every scenario key,
 * replayed from the row's stored scenario text and overrides (as `rerun` does) and written as `export` writes
 * them (SI units, numbers as %.17g). Grouping rows by configuration therefore needs no string parsing of
 * overrides, and `2y` and `63115200s` are one value.
 *
 * Each distinct stored scenario (text, overrides, path) with the row's scenario name and mode is replayed once
 * (consecutive rows of a sweep point share it). Rows whose scenario no longer parses are left out, with a line on
 * stderr. Figures are SQL expressions on the runs table, read as doubles (NULL: NAN). */
#ifndef FL_ROWSET_H
#define FL_ROWSET_H

#include "fl_err.h"
#include "scenario.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fl_rowcfg {
  char *scenario, *mode;
  char **vals; /* per scenario key (fl_scenario_key_at order): its value as text */
  char **dims; /* per dimension of the query: the row's value as text ('' for NULL) */
} fl_rowcfg;

typedef struct fl_row {
  int cfg;
  long long id, replica;
  uint64_t seed;
  char status[16];
  double *fig; /* nfig values (NAN: NULL) */
} fl_row;

typedef struct fl_rowset {
  fl_rowcfg *cfg;
  int ncfg;
  fl_row *rows;
  size_t nrows;
  int nfig, ndim;
  /* private */
  char **text, **overrides, **path; /* per cfg: what identifies it */
  int capcfg;
  size_t caprows;
  double *figs;
} fl_rowset;

typedef struct fl_rowset_query {
  const char *scenario;       /* only this scenario (NULL: all) */
  const char *where;          /* an SQL condition on runs (NULL: all); refused by SQLite: FL_ERR_INPUT */
  const char *const *fig_sql; /* nfig SQL expressions on runs */
  int nfig;
  int no_lossy;               /* leave out the lossy-CG study's rows (codec set) */
  const char *const *dim_sql; /* ndim SQL expressions on runs that tell configurations apart besides the keys
                               * (the lossy-CG study's codec, recovery mode and fault instant) */
  int ndim;
} fl_rowset_query;

fl_err fl_rowset_load(sqlite3 *h, const char *path, const fl_rowset_query *q, fl_rowset **out);
void fl_rowset_destroy(fl_rowset **rs);

/* Keys that only say where rows go (run.db, run.replicas, run.events): never a difference between configurations. */
int fl_rowset_key_ignored(int k);
/* A typed value as the rowset writes it. */
void fl_value_text(const fl_value *v, char *buf, size_t size);
/* Key k's value `v` for a person: durations and sizes in the unit that reads best, the rest as stored. */
void fl_rowset_show(int k, const char *v, char *buf, size_t size);
/* Prepare `sql`, a query of runs whose condition includes the user's --where `where` (NULL: none): a statement
 * SQLite refuses is FL_ERR_INPUT naming the file and the condition when there is one (it is the likely culprit),
 * else FL_ERR_DB. */
fl_err fl_runs_prepare(sqlite3 *h, const char *path, const char *sql, const char *where, sqlite3_stmt **st);
/* Does this results file's runs table have column `name`? (Files of older versions lack the newer ones.) */
int fl_runs_has_column(sqlite3 *h, const char *name);
/* The SQL expression of the figure `name` on this file: a derived one (waste, node_hours of older files) or the
 * column. Static text or NULL for an unknown name. */
const char *fl_rowset_figure_sql(sqlite3 *h, const char *name);
/* Does configuration a come before b? By scenario, mode, then the keys ks[0..nk) (numbers as numbers). */
int fl_rowset_before(const fl_rowset *rs, int a, int b, const int *ks, int nk);

#endif
