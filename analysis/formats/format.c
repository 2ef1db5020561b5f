/* format.c — the report renderers' registry (see format.h). */
#include "format.h"

#include <stdio.h>
#include <string.h>

/* The registry, in the order --help lists it: one line per format, whose NAME.c defines fl_format_NAME (CMake
 * compiles every .c of this folder). */
#define FL_FORMAT_LIST                                                                                                 \
  X(table)                                                                                                             \
  X(markdown)                                                                                                          \
  X(csv)                                                                                                               \
  X(json)                                                                                                              \
  /* one line per entry, above this one */

#define X(name) extern const fl_report_format fl_format_##name;
FL_FORMAT_LIST
#undef X
static const fl_report_format *const fl_report_formats[] = {
#define X(name) &fl_format_##name,
    FL_FORMAT_LIST
#undef X
};
#define FL_NFORMATS ((int)(sizeof fl_report_formats / sizeof fl_report_formats[0]))

int fl_report_format_count(void)
{
  return FL_NFORMATS;
}

const fl_report_format *fl_report_format_at(int i)
{
  return i >= 0 && i < FL_NFORMATS ? fl_report_formats[i] : NULL;
}

const fl_report_format *fl_report_format_find(const char *name)
{
  for (int i = 0; name && i < FL_NFORMATS; i++)
    if (strcmp(fl_report_formats[i]->name, name) == 0)
      return fl_report_formats[i];
  return NULL;
}

const char *fl_report_format_names(char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NFORMATS; i++) {
    strncat(buf, i == 0 ? "" : i == FL_NFORMATS - 1 ? " or " : ", ", size - strlen(buf) - 1);
    strncat(buf, fl_report_formats[i]->name, size - strlen(buf) - 1);
  }
  return buf;
}

const char *fl_report_format_comparers(void)
{
  static char buf[256];
  int n = 0, k = 0;
  for (int i = 0; i < FL_NFORMATS; i++)
    n += fl_report_formats[i]->compare >= 0;
  snprintf(buf, sizeof buf, "the ");
  for (int i = 0; i < FL_NFORMATS; i++) {
    if (fl_report_formats[i]->compare < 0)
      continue;
    k++;
    strncat(buf, k == 1 ? "" : k == n ? " and " : ", ", sizeof buf - strlen(buf) - 1);
    strncat(buf, fl_report_formats[i]->name, sizeof buf - strlen(buf) - 1);
  }
  strncat(buf, n == 1 ? " format writes comparisons" : " formats write comparisons", sizeof buf - strlen(buf) - 1);
  return buf;
}
