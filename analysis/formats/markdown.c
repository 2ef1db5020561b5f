/* markdown.c — the report's tables in Markdown (pipes), for a README or a wiki. */
#include "format.h"

const fl_report_format fl_format_markdown = {
    .name = "markdown",
    .summary = "the text tables in Markdown (pipes), for a README or a wiki page",
    .markdown = 1,
    .compare = -1,
};
