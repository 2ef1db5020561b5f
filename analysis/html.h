/* html.h — `faultline report DB --html FILE`: one self-contained page (no external file, script or font) with the
 * report's table and, inline as SVG, the waste of every strategy against each scenario key that varies in the
 * rows (plot.h), and the event timeline of the first run that logged events. Opens in any browser. */
#ifndef FL_HTML_H
#define FL_HTML_H

#include "fl_err.h"

#include <sqlite3.h>

/* db_label names the database in the page. The file appears complete or not at all. */
fl_err fl_report_html(sqlite3 *db, const char *db_label, const char *scenario, const char *file);

#endif
