/* rerun.h — simulate a stored row again (rerun.c). */
#ifndef FL_RERUN_H
#define FL_RERUN_H

#include "db.h"
#include "fl_err.h"
#include "scenario.h"
#include "sim.h"

#include <sqlite3.h>

/* The columns of a stored row that re-simulating it needs */
enum { FL_RR_TEXT, FL_RR_OVER, FL_RR_PATH, FL_RR_REPLICA, FL_RR_MODE, FL_RR_INPUTS, FL_RR_STATUS, FL_RR_N };

/* Open database `path` read-only and read run `id`: *st on its row (every column, and its scenario text as
 * fl_scenario_text), cols[] their indices. FL_ERR_INPUT for no such run, a real run, or a file that is not
 * faultline's. */
fl_err fl_rerun_load(const char *path, double id, fl_db **db, sqlite3_stmt **st, int cols[FL_RR_N]);
/* Simulate the stored row again, its events into `log` (or none), after checking that the input files it read
 * are those there now (FL_ERR_INPUT, naming the file and both fingerprints, otherwise); the row is written through
 * the very code that wrote the stored one into a database in memory (*mem, its run id 1). */
fl_err fl_rerun_sim(const char *path, double id, sqlite3_stmt *st, const int cols[FL_RR_N], fl_evlog *log,
                    fl_scenario **sc, fl_sim **sim, fl_sim_result *res, fl_db **mem);
/* Compare every numeric column of the stored row (`a`) with the re-simulated one (`b`), exactly, but those that
 * measure the host; prints each difference on stdout; returns how many differ (*compared: how many were). */
int fl_rerun_compare(sqlite3_stmt *a, sqlite3_stmt *b, int *compared, double *max_rel);
/* For a timeline of run `run` of database `path` (open as `h`): a simulated bsp or gridworld run stored without
 * its phases (run.events = all or none) is simulated again with them into a database in memory (*mem, the run
 * under its own id); whether the new simulation has the stored makespan and status is said on stderr. *mem stays
 * NULL when the stored run serves as it is (it has its phases, or is one without: real, workflow, workload), and
 * when it cannot be simulated again (an input file changed since: said on stderr, not an error). */
fl_err fl_rerun_timeline(sqlite3 *h, const char *path, long run, fl_db **mem);

#endif
