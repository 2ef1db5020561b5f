/* workflow_keys.h — the workflow app's own keys (apps/workflow.c declares them), read by its simulator
 * (sim/workflow/) through fl_workflow_options. */
#ifndef FL_WORKFLOW_KEYS_H
#define FL_WORKFLOW_KEYS_H

#include "scenario.h"

typedef struct fl_workflow_opts {
  char *graph;                /* the task graph (.json WfCommons, .dax, .dot, or "gridworld"; NULL: none) */
  char *substitutes;          /* side file of substitutes (NULL: the rule) */
  int substitute_rule;        /* 0 stage, 1 none */
  int outputs_shared;         /* 0 outputs in the producer host's memory, 1 also on shared storage */
  int stage_inputs;           /* 1 a task reads its staged inputs from the controller as it starts */
  double substitute_max_diff; /* the rule: relative difference of input sizes allowed */
  char *task_runtime;         /* runtimes for jobs whose file gives none (DURATION or NAME:DURATION,...) */
  char *serial_fraction;      /* Amdahl's serial fraction (F, or STAGE:F,...,*:F; NULL: no speedup model) */
  int stage_cache;            /* 1 a host keeps the staged inputs it read (not read again) */
  double reference_speed;     /* flop/s that converts a recorded runtime without a machine speed */
} fl_workflow_opts;

extern const fl_keyset fl_workflow_keys;
/* sc's values of the workflow's keys (borrowed). */
const fl_workflow_opts *fl_workflow_options(const fl_scenario *sc);
/* app.graph = gridworld: the workflow is generated (no file). */
int fl_workflow_graph_generated(const fl_scenario *sc);

#endif
