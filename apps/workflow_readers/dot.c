/* dot.c — a task graph from DOT, SimGrid's convention (Graphviz's libcgraph): nodes with size (flops), edges with size
 * (bytes). */
#define _XOPEN_SOURCE 700 /* strdup */
#include "inputs.h"
#include "units.h"
#include "workflow_impl.h"

#include <ctype.h>
#include <errno.h>
#include <graphviz/cgraph.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- DOT (SimGrid's convention) ---- */

static char fl_dot_err[512];
static int fl_dot_errf(char *msg)
{
  /* cgraph reports in pieces ("Error", ": syntax error in line 1 near 'x'"): keep them on one line */
  size_t n = strlen(fl_dot_err);
  snprintf(fl_dot_err + n, sizeof fl_dot_err - n, "%s", msg);
  fl_dot_err[strcspn(fl_dot_err, "\n")] = '\0';
  return 0;
}

static fl_err fl_dot_size(const char *path, const char *what, const char *name, const char *text, double *out)
{
  char *end = NULL;
  double x;
  if (!text || !*text) {
    *out = 0.0;
    return FL_OK;
  }
  errno = 0;
  x = strtod(text, &end);
  if (end == text || *end != '\0' || errno || !(x >= 0) || !isfinite(x))
    return fl_err_set(FL_ERR_INPUT, "%s: %s '%s': size '%s' is not a number >= 0", path, what, name, text);
  *out = x;
  return FL_OK;
}

typedef struct fl_dot_rec {
  Agrec_t h;
  long id;
} fl_dot_rec;

static fl_err fl_wf_read_dot(fl_wfb *b, const char *path)
{
  fl_err rc = FL_OK;
  const char *why;
  FILE *f = fl_input_fopen(path, &why);
  Agraph_t *g = NULL;
  Agnode_t *n;

  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  fl_dot_err[0] = '\0';
  agseterr(AGERR);
  agseterrf(fl_dot_errf);
  g = agread(f, NULL);
  if (!g || fl_dot_err[0]) {
    rc = fl_err_set(FL_ERR_INPUT, "%s: malformed DOT: %s", path, fl_dot_err[0] ? fl_dot_err : "no graph");
    goto done;
  }
  FL_CHECK(agisdirected(g), FL_ERR_INPUT, "%s: an undirected graph: a workflow is a digraph", path);
  for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
    double flops;
    long id;
    FL_TRY(fl_dot_size(path, "task", agnameof(n), agget(n, "size"), &flops));
    FL_TRY(fl_wfb_task(b, agnameof(n), agget(n, "category"), flops, 0, &id));
    {
      const char *c = agget(n, "cores");
      double cores;
      if (c && *c) {
        FL_TRY(fl_dot_size(path, "task", agnameof(n), c, &cores));
        FL_CHECK(cores >= 1 && cores <= 1e6 && cores == floor(cores), FL_ERR_INPUT,
                 "%s: task '%s': cores '%s' must be a whole number >= 1", path, agnameof(n), c);
        b->wf->task[id].cores = (long)cores;
      }
    }
    FL_CHECK(agbindrec(n, "fl_wf", sizeof(fl_dot_rec), 0) != NULL, FL_ERR_NOMEM, "out of memory");
    ((fl_dot_rec *)aggetrec(n, "fl_wf", 0))->id = id;
  }
  for (n = agfstnode(g); n; n = agnxtnode(g, n))
    for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
      double bytes;
      char what[600];
      snprintf(what, sizeof what, "%s -> %s", agnameof(agtail(e)), agnameof(aghead(e)));
      FL_TRY(fl_dot_size(path, "edge", what, agget(e, "size"), &bytes));
      FL_TRY(fl_wfb_edge(b, ((fl_dot_rec *)aggetrec(agtail(e), "fl_wf", 0))->id,
                         ((fl_dot_rec *)aggetrec(aghead(e), "fl_wf", 0))->id, bytes, -1));
    }
done:
  if (g)
    agclose(g);
  if (f)
    fclose(f);
  return rc;
}

/* a (di)graph keyword */
static int fl_dot_probe(const char *head)
{
  return strncmp(head, "digraph", 7) == 0 || strncmp(head, "graph", 5) == 0 || strncmp(head, "strict", 6) == 0;
}

static fl_err fl_dot_read(fl_wfb *b, const char *path, double reference_speed, const char *task_runtime)
{
  (void)reference_speed;
  (void)task_runtime;
  return fl_wf_read_dot(b, path);
}

static const char *const fl_dot_exts[] = {"dot", "gv", NULL};
const fl_wf_reader fl_wf_reader_dot = {"DOT", fl_dot_exts, fl_dot_probe, fl_dot_read};
