/* db_impl.h — the results database's connection and what its files share (db.c: open, classify, close, SQL
 * functions; db_sql.c: errors, scripts, transactions; db_schema.c: the schema and its migrations; db_insert.c: rows,
 * events, jobs and input files; db_writer.c: the writer thread). Not for other modules: they use db.h. */
#ifndef FL_DB_IMPL_H
#define FL_DB_IMPL_H

#include "db.h"

#include <sqlite3.h>
#include <xxhash.h>

struct fl_db {
  sqlite3 *h;
  char *path;
  sqlite3_stmt *ins_run, *ins_ev, *ins_ev_batch, *ins_input, *ins_text, *has_row, *ins_job;
  char text_stored[17]; /* the scenario text last committed to scenario_texts by this connection */
  int key_unique;       /* runs_key, a unique index on row_key, is there */
};
/* events inserted FL_DB_EV_BATCH rows a statement (fl_db_insert_events) */
#define FL_DB_EV_BATCH 64

/* db_sql.c: errors, statements, transactions */
fl_err fl_db_fail(fl_db *db, const char *what);
fl_err fl_db_exec_h(sqlite3 *h, const char *path, const char *sql, const char *what);
fl_err fl_db_exec(fl_db *db, const char *sql, const char *what);
fl_err fl_db_begin(fl_db *db, const char *what);

/* db_schema.c: the schema, written or brought up to date */
extern const char fl_db_schema[]; /* the tables but `runs` */
char *fl_db_runs_sql(void);
char *fl_db_ins_run_sql(int key_unique);
fl_err fl_db_add_missing_columns(fl_db *db);
fl_err fl_db_events_vocabulary(fl_db *db);
fl_err fl_db_set_aside_old_events(fl_db *db, int *old);
fl_err fl_db_upgrade_events(fl_db *db);
fl_err fl_db_key_index(fl_db *db);

#endif
