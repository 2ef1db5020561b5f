/* workflow_impl.h — inside the workflow app: the builder a graph reader fills (workflow.c) and the reader registry.
 * A reader (workflow_readers/NAME.c) only collects tasks (fl_wfb_task), parent references (fl_wfb_ref), file uses
 * (fl_wfb_use) and edges (fl_wfb_edge, DOT); the builder checks and indexes them the same way for every format.
 *
 * Adding a graph format: workflow_readers/NAME.c defining `const fl_wf_reader fl_wf_reader_NAME` (its name, its
 * extensions, a probe of the file's first bytes, its read function), and one X(NAME) in FL_WF_READERS below (the
 * order the probes are asked in); CMake compiles the folder. */
#ifndef FL_WORKFLOW_IMPL_H
#define FL_WORKFLOW_IMPL_H

#include "workflow.h"

#include <stddef.h>

typedef struct fl_wf_use {
  char *file;
  long task;
  double size;
  int out;
} fl_wf_use;

typedef struct fl_wf_ref {
  char *parent;
  char *child_name; /* resolved at the end when child < 0 */
  long child;
  int line;
} fl_wf_ref;

typedef struct fl_wfb {
  fl_wf *wf;
  long cap_tasks;
  fl_wf_use *use;
  long nuse, cap_use;
  fl_wf_ref *ref;
  long nref, cap_ref;
  long *rs, *rd; /* raw edges */
  double *rb;
  long *rf; /* each raw edge's file (a number per distinct file name), -1: none (DOT, a control dependency) */
  long nraw, cap_raw;
  int yaml; /* a Pegasus 5 YAML file: its errors in its words (jobDependencies, children) */
} fl_wfb;

char *fl_wf_strdup(const char *s);
/* A task's stage (its type): the name less a trailing number (DAX, YAML, DOT), or WfCommons' NAME_ID's NAME. */
char *fl_wf_stage_of(const char *name);
char *fl_wf_stage_wfcommons(const char *name);
/* A task of `flops`, its id in *id; line: where it is in its file (0: not known). */
fl_err fl_wfb_task(fl_wfb *b, const char *name, const char *stage, double flops, int line, long *id);
/* Task `child` (or, child < 0, the task named child_name, resolved at the end) depends on `parent` (a name). */
fl_err fl_wfb_ref(fl_wfb *b, long child, const char *child_name, const char *parent, int line);
/* Task `task` reads (out = 0) or writes (out = 1) `file` of `size` bytes. */
fl_err fl_wfb_use(fl_wfb *b, long task, const char *file, double size, int out);
/* An edge src -> dst carrying `bytes` (file: the file's number, -1: none). */
fl_err fl_wfb_edge(fl_wfb *b, long src, long dst, double bytes, long file);
/* app.task_runtime: the runtime of a job of transformation `tr` whose file gives none; NAN when none applies. */
double fl_wf_runtime_for(const char *spec, const char *tr, char *bad, size_t badsize);

/* A graph format. */
typedef struct fl_wf_reader {
  const char *name;        /* in messages: "WfCommons JSON" */
  const char *const *exts; /* the extensions that name it when the content does not say, NULL-terminated */
  /* 1 when the file's first bytes (after a byte order mark and blanks; up to 4 KiB) are of this format */
  int (*probe)(const char *head);
  fl_err (*read)(fl_wfb *b, const char *path, double reference_speed, const char *task_runtime);
} fl_wf_reader;

/* The readers, in the order their probes are asked. */
#define FL_WF_READERS(X) X(json) X(dax) X(yaml) X(dot)
#define FL_WF_READER_DECLARE(name) extern const fl_wf_reader fl_wf_reader_##name;
FL_WF_READERS(FL_WF_READER_DECLARE)
#undef FL_WF_READER_DECLARE

#endif
