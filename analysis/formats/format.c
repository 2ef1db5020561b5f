/* format.c — the report renderers' registry (see format.h). */
#include "format.h"

#include <stdio.h>
#include <string.h>

static const fl_report_format *const fl_report_formats[] = {
    &fl_format_table,
    &fl_format_markdown,
    &fl_format_csv,
    &fl_format_json,
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
