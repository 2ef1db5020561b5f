/* dag.c — the task-graph schedulers' registry (see dag.h). */
#include "dag.h"

#include <string.h>

static const fl_dag_sched_ops *const fl_dag_scheds[] = {&fl_dag_heft, &fl_dag_minmin};
#define FL_NDAG ((int)(sizeof fl_dag_scheds / sizeof fl_dag_scheds[0]))

const fl_dag_sched_ops *fl_dag_sched_find(const char *name)
{
  for (int i = 0; name && i < FL_NDAG; i++)
    if (strcmp(fl_dag_scheds[i]->name, name) == 0)
      return fl_dag_scheds[i];
  return NULL;
}

const char *fl_dag_sched_names(char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NDAG; i++) {
    strncat(buf, i ? " | " : "", size - strlen(buf) - 1);
    strncat(buf, fl_dag_scheds[i]->name, size - strlen(buf) - 1);
  }
  return buf;
}
