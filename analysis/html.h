/* html.h — `faultline report DB --html FILE`: one self-contained page (nothing fetched; one inline script sorts its
 * tables) with the groups as a table, the strategies' paired comparison, inline as SVG the figure of every strategy
 * against each scenario key that varies in the rows (plot.h), and one run's timeline. Opens in any browser. */
#ifndef FL_HTML_H
#define FL_HTML_H

#include "fl_err.h"

#include <sqlite3.h>

/* db_label names the database in the page. timeline_run: the run whose timeline the page shows; 0: the one with the
 * most failures (FL_ERR_INPUT for a run that does not exist). The file appears complete or not at all. */
fl_err fl_report_html(sqlite3 *db, const char *db_label, const char *scenario, long timeline_run, const char *file);

#endif
