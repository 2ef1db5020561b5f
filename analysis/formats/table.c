/* table.c — the report as aligned text, one table per kind of run (report.c lays it out). */
#include "compare.h"
#include "format.h"

const fl_report_format fl_format_table = {
    .name = "table",
    .summary = "aligned text: each configuration's mean and 95 % interval per figure, one table per kind of run",
    .compare = FL_COMPARE_TABLE,
};
