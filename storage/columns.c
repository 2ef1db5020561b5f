/* columns.c — the `runs` columns of columns.h as a table the code can walk: the schema, the insert and the
 * documentation are generated from it (db.c, `faultline columns`). */
#include "columns.h"

#include "db.h"

#include <string.h>

#define FL_COL_OFF_AUTO(n) 0
#define FL_COL_OFF_TEXT(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_TEXT0(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_REAL(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_COUNT(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_INT(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_SEED(n) offsetof(fl_db_run, n)
#define FL_COL_OFF_VERSION(n) 0
#define FL_COL_OFF_EMPTY(n) 0
#define FL_COL_OFF_INPUTS(n) 0
#define FL_COL_OFF_KEY(n) 0
#define FL_COL_OFF_HASH(n) 0
#define FL_COL_OFF_NODE_HOURS(n) 0
#define FL_COL_OFF_MREAL(n) offsetof(fl_db_machine, n)
#define FL_COL_OFF_MCOUNT(n) offsetof(fl_db_machine, n)

#define FL_COL_SUM 1
#define FL_COL_NOSUM 0
#define FL_COL_ROW(name, decl, how, unit, engines, sum, doc)                                                           \
  {#name, decl, FL_COL_##how, FL_COL_OFF_##how(name), unit, FL_COLENG_##engines, FL_COL_##sum, doc},
static const fl_column fl_run_columns[] = {FL_RUN_COLUMNS(FL_COL_ROW)};
#undef FL_COL_ROW

int fl_run_ncolumns(void)
{
  return (int)(sizeof fl_run_columns / sizeof fl_run_columns[0]);
}

const fl_column *fl_run_column(int i)
{
  return i >= 0 && i < fl_run_ncolumns() ? &fl_run_columns[i] : NULL;
}

const fl_column *fl_run_column_named(const char *name)
{
  for (int i = 0; name && i < fl_run_ncolumns(); i++)
    if (strcmp(fl_run_columns[i].name, name) == 0)
      return &fl_run_columns[i];
  return NULL;
}

const char *fl_column_type(const fl_column *c)
{
  if (strncmp(c->decl, "INTEGER", 7) == 0)
    return "integer";
  if (strncmp(c->decl, "REAL", 4) == 0)
    return "real";
  return "text";
}

int fl_column_numeric(const fl_column *c)
{
  return strcmp(fl_column_type(c), "text") != 0;
}

int fl_column_derived(const fl_column *c)
{
  return c->how == FL_COL_NODE_HOURS;
}

const char *fl_column_engines(const fl_column *c)
{
  return c->engines == FL_COLENG_BOTH ? "both" : c->engines == FL_COLENG_SIM ? "sim" : "real";
}

void fl_run_columns_markdown(FILE *out)
{
  fprintf(out, "| column | type | unit | filled by | report | meaning |\n| --- | --- | --- | --- | --- | --- |\n");
  for (int i = 0; i < fl_run_ncolumns(); i++) {
    const fl_column *c = fl_run_column(i);
    fprintf(out, "| `%s` | %s | %s | %s | %s | %s |\n", c->name, fl_column_type(c), c->unit[0] ? c->unit : "",
            fl_column_engines(c), c->summarised ? "summarised" : "", c->doc);
  }
}
