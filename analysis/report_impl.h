/* report_impl.h — inside `faultline report`: what an app's own section of the report (report_sections/) may use
 * of report.c, and the section registry.
 *
 * A section prints the table of one app's study after the shared tables (lossy-CG's codec x recovery table,
 * report_sections/lossy.c). Adding one: report_sections/NAME.c defining `const fl_report_section
 * fl_report_section_NAME`, and one X(NAME) in FL_REPORT_SECTIONS; CMake compiles the folder. */
#ifndef FL_REPORT_IMPL_H
#define FL_REPORT_IMPL_H

#include "report.h"

#include <sqlite3.h>
#include <stdio.h>

/* A column's value: NAN for NULL; its text: "" for NULL. */
double fl_report_col(sqlite3_stmt *st, int i);
const char *fl_report_text(sqlite3_stmt *st, int i);
/* 1 when runs has column `name` (report opens older databases read-only, as they are). */
int fl_report_has_column(sqlite3 *db, const char *name);

typedef struct fl_report_section {
  const char *name;
  /* Print the section for the runs opt selects (nothing when none of its rows are there); *rows_out: how many
   * rows it summarised. */
  fl_err (*print)(sqlite3 *db, const fl_report_opts *opt, FILE *out, int *rows_out);
} fl_report_section;

#define FL_REPORT_SECTIONS(X) X(lossy)
#define FL_REPORT_SECTION_DECLARE(name) extern const fl_report_section fl_report_section_##name;
FL_REPORT_SECTIONS(FL_REPORT_SECTION_DECLARE)
#undef FL_REPORT_SECTION_DECLARE

#endif
