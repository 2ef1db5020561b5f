/* workflow.c — task graphs from WfCommons JSON (jansson), Pegasus DAX (libxml2), Pegasus 5 YAML (libyaml) and DOT
 * (libcgraph), the grid world as a graph, and the substitution relation (see workflow.h). The readers only collect
 * tasks, parent references and file uses; one builder checks and indexes them for every format. */
#define _XOPEN_SOURCE 700 /* strdup */
#include "workflow.h"

#include "app.h"
#include "gridworld_keys.h"
#include "inputs.h"
#include "units.h"
#include "workflow_keys.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <graphviz/cgraph.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- the builder ---- */

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

static char *fl_wf_strdup(const char *s)
{
  return strdup(s ? s : "");
}

/* The stage of a task without one: its name without trailing digits, underscores and dashes. */
static char *fl_wf_stage_of(const char *name)
{
  char *s = fl_wf_strdup(name);
  size_t n = s ? strlen(s) : 0;
  while (n > 1 && (isdigit((unsigned char)s[n - 1]) || s[n - 1] == '_' || s[n - 1] == '-'))
    s[--n] = '\0';
  return s;
}

/* The stage of a WfCommons task without a category (schema 1.5 and later dropped it): the name up to its first
 * underscore, as the WfCommons instances name their tasks <transformation>_<...>_ID<n> ("fast2bfq_fast2bfq_HEP2_
 * MSP1_Digests_s_1_sequence_1_ID0000002", "mProject_ID0000001", "individuals_ID0000001"): the transformation, the
 * category schema 1.4 gave. A name without an underscore: the rule of the other formats. malloc'd. */
static char *fl_wf_stage_wfcommons(const char *name)
{
  const char *us = strchr(name, '_');
  if (!us || us == name)
    return fl_wf_stage_of(name);
  return strndup(name, (size_t)(us - name));
}

static fl_err fl_wfb_task(fl_wfb *b, const char *name, const char *stage, double flops, int line, long *id)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  fl_wf_task *t;
  FL_TRY(fl_grow((void **)&wf->task, &b->cap_tasks, wf->ntasks + 1, sizeof *wf->task));
  t = &wf->task[wf->ntasks];
  memset(t, 0, sizeof *t);
  t->name = fl_wf_strdup(name);
  t->stage = stage && *stage ? fl_wf_strdup(stage) : fl_wf_stage_of(name);
  FL_CHECK(t->name && t->stage, FL_ERR_NOMEM, "out of memory");
  t->flops = flops;
  t->cores = 1;
  t->line = line;
  *id = wf->ntasks++;
done:
  return rc;
}

static fl_err fl_wfb_ref(fl_wfb *b, long child, const char *child_name, const char *parent, int line)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&b->ref, &b->cap_ref, b->nref + 1, sizeof *b->ref));
  b->ref[b->nref] = (fl_wf_ref){.parent = fl_wf_strdup(parent), .child = child, .line = line};
  if (child_name)
    b->ref[b->nref].child_name = fl_wf_strdup(child_name);
  FL_CHECK(b->ref[b->nref].parent != NULL && (!child_name || b->ref[b->nref].child_name), FL_ERR_NOMEM,
           "out of memory");
  b->nref++;
done:
  return rc;
}

static fl_err fl_wfb_use(fl_wfb *b, long task, const char *file, double size, int out)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&b->use, &b->cap_use, b->nuse + 1, sizeof *b->use));
  b->use[b->nuse] = (fl_wf_use){.file = fl_wf_strdup(file), .task = task, .size = size, .out = out};
  FL_CHECK(b->use[b->nuse].file != NULL, FL_ERR_NOMEM, "out of memory");
  b->nuse++;
done:
  return rc;
}

static fl_err fl_wfb_edge(fl_wfb *b, long src, long dst, double bytes, long file)
{
  fl_err rc = FL_OK;
  if (b->nraw + 1 > b->cap_raw) { /* the four arrays grow together, only when full */
    long cap_d = b->cap_raw, cap_b = b->cap_raw, cap_f = b->cap_raw;
    FL_TRY(fl_grow((void **)&b->rd, &cap_d, b->nraw + 1, sizeof *b->rd));
    FL_TRY(fl_grow((void **)&b->rb, &cap_b, b->nraw + 1, sizeof *b->rb));
    FL_TRY(fl_grow((void **)&b->rf, &cap_f, b->nraw + 1, sizeof *b->rf));
    FL_TRY(fl_grow((void **)&b->rs, &b->cap_raw, b->nraw + 1, sizeof *b->rs));
  }
  b->rs[b->nraw] = src;
  b->rd[b->nraw] = dst;
  b->rb[b->nraw] = bytes;
  b->rf[b->nraw] = file;
  b->nraw++;
done:
  return rc;
}

static void fl_wfb_free(fl_wfb *b)
{
  for (long i = 0; i < b->nuse; i++)
    free(b->use[i].file);
  for (long i = 0; i < b->nref; i++) {
    free(b->ref[i].parent);
    free(b->ref[i].child_name);
  }
  free(b->use);
  free(b->ref);
  free(b->rs);
  free(b->rd);
  free(b->rb);
  free(b->rf);
}

static const fl_wf *fl_sort_wf; /* qsort has no context argument */
static int fl_cmp_task_name(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  int c = strcmp(fl_sort_wf->task[x].name, fl_sort_wf->task[y].name);
  return c ? c : (x > y) - (x < y);
}

static int fl_cmp_use(const void *a, const void *b)
{
  const fl_wf_use *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  if (c)
    return c;
  if (x->out != y->out)
    return y->out - x->out; /* producers first */
  return (x->task > y->task) - (x->task < y->task);
}

static long *fl_sort_src, *fl_sort_dst;
static int fl_cmp_edge(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  if (fl_sort_src[x] != fl_sort_src[y])
    return (fl_sort_src[x] > fl_sort_src[y]) - (fl_sort_src[x] < fl_sort_src[y]);
  if (fl_sort_dst[x] != fl_sort_dst[y])
    return (fl_sort_dst[x] > fl_sort_dst[y]) - (fl_sort_dst[x] < fl_sort_dst[y]);
  return (x > y) - (x < y);
}

/* Edges by their files (fstart/files: an edge's sorted file numbers), then by number. */
static const long *fl_sort_fstart, *fl_sort_files;
static int fl_cmp_edge_files(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  long nx = fl_sort_fstart[x + 1] - fl_sort_fstart[x], ny = fl_sort_fstart[y + 1] - fl_sort_fstart[y];
  if (nx != ny)
    return (nx > ny) - (nx < ny);
  for (long k = 0; k < nx; k++) {
    long fx = fl_sort_files[fl_sort_fstart[x] + k], fy = fl_sort_files[fl_sort_fstart[y] + k];
    if (fx != fy)
      return (fx > fy) - (fx < fy);
  }
  return (x > y) - (x < y);
}

static int fl_same_files(long x, long y)
{
  long nx = fl_sort_fstart[x + 1] - fl_sort_fstart[x];
  if (nx != fl_sort_fstart[y + 1] - fl_sort_fstart[y])
    return 0;
  for (long k = 0; k < nx; k++)
    if (fl_sort_files[fl_sort_fstart[x] + k] != fl_sort_files[fl_sort_fstart[y] + k])
      return 0;
  return 1;
}

long fl_wf_find(const fl_wf *wf, const char *name)
{
  long lo = 0, hi = wf->ntasks - 1;
  while (lo <= hi) {
    long mid = lo + (hi - lo) / 2, t = wf->by_name[mid];
    int c = strcmp(wf->task[t].name, name);
    if (c == 0)
      return t;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Index names, resolve parent references and files into edges, merge duplicate edges, build the adjacency and a
 * topological order. Every message names the file and the task. */
static fl_err fl_wfb_finish(fl_wfb *b)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  long n = wf->ntasks, *order = NULL, *indeg = NULL, *queue = NULL, head = 0, tail = 0;
  long *fstart = NULL, *files = NULL, *group = NULL;

  FL_CHECK(n > 0, FL_ERR_INPUT, "%s: the workflow has no task", wf->path);
  FL_ALLOC(wf->by_name, n);
  for (long i = 0; i < n; i++)
    wf->by_name[i] = i;
  fl_sort_wf = wf;
  qsort(wf->by_name, (size_t)n, sizeof *wf->by_name, fl_cmp_task_name);
  for (long i = 1; i < n; i++) {
    const fl_wf_task *a = &wf->task[wf->by_name[i - 1]], *t = &wf->task[wf->by_name[i]];
    if (strcmp(a->name, t->name) == 0) {
      if (t->line > 0)
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: task '%s' is declared twice (first at line %d)", wf->path, t->line,
                        t->name, a->line);
      else
        rc = fl_err_set(FL_ERR_INPUT, "%s: task '%s' is declared twice", wf->path, t->name);
      goto done;
    }
  }
  for (long r = 0; r < b->nref; r++) {
    long p = fl_wf_find(wf, b->ref[r].parent);
    if (b->ref[r].child < 0 && (b->ref[r].child = fl_wf_find(wf, b->ref[r].child_name)) < 0) {
      if (b->yaml)
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: jobDependencies: child '%s' of '%s' is no job of the workflow", wf->path,
                        b->ref[r].line, b->ref[r].child_name, b->ref[r].parent);
      else
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: <child ref=\"%s\">: no such job", wf->path, b->ref[r].line,
                        b->ref[r].child_name);
      goto done;
    }
    if (p < 0) {
      if (b->ref[r].line > 0)
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: task '%s': parent '%s' is no task of the workflow", wf->path,
                        b->ref[r].line, wf->task[b->ref[r].child].name, b->ref[r].parent);
      else
        rc = fl_err_set(FL_ERR_INPUT, "%s: task '%s': parent '%s' is no task of the workflow", wf->path,
                        wf->task[b->ref[r].child].name, b->ref[r].parent);
      goto done;
    }
    FL_TRY(fl_wfb_edge(b, p, b->ref[r].child, 0.0, -1));
  }
  /* files: the producer of each file (its first writer) sends it to every reader; a file nobody writes is staged
   * (numbered in file order, each reader's uses counted in staged_start, then listed) */
  if (b->nuse > 0)
    qsort(b->use, (size_t)b->nuse, sizeof *b->use, fl_cmp_use);
  FL_ALLOC(wf->staged_start, n + 1);
  for (int pass = 0; pass < 2; pass++) {
    long *fill = NULL;
    if (pass == 1) {
      for (long i = 0; i < n; i++)
        wf->staged_start[i + 1] += wf->staged_start[i];
      FL_ALLOC(wf->staged_file, wf->staged_start[n] > 0 ? wf->staged_start[n] : 1);
      FL_ALLOC(wf->staged_size, wf->staged_start[n] > 0 ? wf->staged_start[n] : 1);
      FL_ALLOC(fill, n);
    }
    wf->nstaged_files = 0;
    long nfiles = 0; /* the file names, in order: a raw edge's file */
    for (long u = 0; u < b->nuse;) {
      long v = u, producer = b->use[u].out ? b->use[u].task : -1;
      while (v < b->nuse && strcmp(b->use[v].file, b->use[u].file) == 0) {
        fl_wf_use *x = &b->use[v];
        if (pass == 0 && x->out)
          wf->task[x->task].out_bytes += x->size;
        else if (pass == 0) {
          wf->task[x->task].in_bytes += x->size;
          if (producer >= 0 && producer != x->task)
            FL_TRY(fl_wfb_edge(b, producer, x->task, x->size, nfiles));
          else if (producer < 0) {
            wf->task[x->task].staged_bytes += x->size; /* an input of the workflow */
            wf->staged_start[x->task + 1]++;
          }
        } else if (!x->out && producer < 0) {
          long at = wf->staged_start[x->task] + fill[x->task]++;
          wf->staged_file[at] = wf->nstaged_files;
          wf->staged_size[at] = x->size;
        }
        v++;
      }
      wf->nstaged_files += producer < 0;
      nfiles++;
      u = v;
    }
    free(fill);
  }
  /* edges: sort by (src, dst) and merge */
  FL_ALLOC(order, b->nraw);
  for (long e = 0; e < b->nraw; e++) {
    order[e] = e;
    if (b->rs[e] == b->rd[e]) {
      rc = fl_err_set(FL_ERR_INPUT, "%s: task '%s' depends on itself (a cycle)", wf->path, wf->task[b->rs[e]].name);
      goto done;
    }
  }
  fl_sort_src = b->rs;
  fl_sort_dst = b->rd;
  if (b->nraw > 0)
    qsort(order, (size_t)b->nraw, sizeof *order, fl_cmp_edge);
  FL_ALLOC(wf->edge_src, b->nraw);
  FL_ALLOC(wf->edge_dst, b->nraw);
  FL_ALLOC(wf->edge_bytes, b->nraw);
  for (long k = 0; k < b->nraw; k++) {
    long e = order[k], m = wf->nedges;
    if (m > 0 && wf->edge_src[m - 1] == b->rs[e] && wf->edge_dst[m - 1] == b->rd[e]) {
      wf->edge_bytes[m - 1] += b->rb[e];
      continue;
    }
    wf->edge_src[m] = b->rs[e];
    wf->edge_dst[m] = b->rd[e];
    wf->edge_bytes[m] = b->rb[e];
    wf->nedges++;
  }
  FL_ALLOC(wf->child_start, n + 1);
  FL_ALLOC(wf->parent_start, n + 1);
  FL_ALLOC(wf->parent_edge, wf->nedges);
  for (long e = 0; e < wf->nedges; e++) {
    wf->child_start[wf->edge_src[e] + 1]++;
    wf->parent_start[wf->edge_dst[e] + 1]++;
  }
  for (long i = 0; i < n; i++) {
    wf->child_start[i + 1] += wf->child_start[i];
    wf->parent_start[i + 1] += wf->parent_start[i];
  }
  /* Data twins: edges from one task that carry the same files (B and C both read A's f) carry one copy of the
   * data — a transfer to a host where a twin is, or is going, is not made again. Each edge's files (sorted, control
   * dependencies left out), then each task's out-edges sorted by them: equal neighbours are twins, numbered by
   * the first of them. Edges with no file (DOT graphs, control dependencies) have none. */
  FL_ALLOC(wf->edge_data, wf->nedges > 0 ? wf->nedges : 1);
  FL_ALLOC(fstart, wf->nedges + 1);
  FL_ALLOC(files, b->nraw > 0 ? b->nraw : 1);
  FL_ALLOC(group, wf->nedges > 0 ? wf->nedges : 1);
  for (long k = 0, m = -1, nf = 0; k < b->nraw; k++) {
    long e = order[k];
    if (m < 0 || b->rs[e] != wf->edge_src[m] || b->rd[e] != wf->edge_dst[m])
      fstart[++m] = nf;
    if (b->rf && b->rf[e] >= 0) {
      long at = nf++;
      files[at] = b->rf[e];
      while (at > fstart[m] && files[at - 1] > files[at]) { /* insertion: an edge's files are few */
        long x = files[at - 1];
        files[at - 1] = files[at];
        files[at--] = x;
      }
    }
    fstart[m + 1] = nf;
  }
  fl_sort_fstart = fstart;
  fl_sort_files = files;
  for (long e = 0; e < wf->nedges; e++)
    wf->edge_data[e] = e;
  for (long i = 0; i < n; i++) {
    long lo = wf->child_start[i], d = wf->child_start[i + 1] - lo;
    for (long k = 0; k < d; k++)
      group[k] = lo + k;
    if (d > 1)
      qsort(group, (size_t)d, sizeof *group, fl_cmp_edge_files);
    for (long k = 1; k < d; k++)
      if (fstart[group[k] + 1] > fstart[group[k]] && fl_same_files(group[k - 1], group[k]))
        wf->edge_data[group[k]] = wf->edge_data[group[k - 1]];
  }
  FL_ALLOC(indeg, n);
  for (long e = 0; e < wf->nedges; e++) {
    long d = wf->edge_dst[e];
    wf->parent_edge[wf->parent_start[d] + indeg[d]++] = e;
  }
  /* Kahn: a topological order, or the cycle's name */
  FL_ALLOC(wf->topo, n);
  FL_ALLOC(queue, n);
  for (long i = 0; i < n; i++)
    if (indeg[i] == 0)
      queue[tail++] = i;
  while (head < tail) {
    long i = queue[head++];
    wf->topo[head - 1] = i;
    for (long e = wf->child_start[i]; e < wf->child_start[i + 1]; e++)
      if (--indeg[wf->edge_dst[e]] == 0)
        queue[tail++] = wf->edge_dst[e];
  }
  if (tail < n) {
    long on = -1;
    for (long i = 0; i < n && on < 0; i++)
      if (indeg[i] > 0)
        on = i;
    rc = fl_err_set(FL_ERR_INPUT, "%s: task '%s' is on a dependency cycle (%ld tasks are)", wf->path, wf->task[on].name,
                    n - tail);
    goto done;
  }
  FL_ALLOC(wf->sub_start, n + 1);
done:
  free(order);
  free(indeg);
  free(queue);
  free(fstart);
  free(files);
  free(group);
  return rc;
}

static fl_err fl_wf_new(const char *path, fl_wf **out, fl_wfb *b)
{
  fl_err rc = FL_OK;
  memset(b, 0, sizeof *b);
  FL_ALLOC(*out, 1);
  (*out)->path = fl_wf_strdup(path);
  FL_CHECK((*out)->path != NULL, FL_ERR_NOMEM, "out of memory");
  b->wf = *out;
done:
  return rc;
}

void fl_wf_destroy(fl_wf **pwf)
{
  fl_wf *wf = pwf ? *pwf : NULL;
  if (!wf)
    return;
  for (long i = 0; wf->task && i < wf->ntasks; i++) {
    free(wf->task[i].name);
    free(wf->task[i].stage);
  }
  free(wf->task);
  free(wf->path);
  free(wf->edge_src);
  free(wf->edge_dst);
  free(wf->edge_bytes);
  free(wf->edge_data);
  free(wf->child_start);
  free(wf->parent_start);
  free(wf->parent_edge);
  free(wf->topo);
  free(wf->staged_start);
  free(wf->staged_file);
  free(wf->staged_size);
  free(wf->by_name);
  free(wf->sub_start);
  free(wf->sub_j);
  free(wf->sub_k);
  free(wf->sub_w);
  free(wf);
  *pwf = NULL;
}

/* ---- WfCommons JSON ---- */

static double fl_json_num(const json_t *o, const char *k1, const char *k2)
{
  const json_t *v = json_object_get(o, k1);
  if (!v && k2)
    v = json_object_get(o, k2);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *fl_json_str(const json_t *o, const char *k1, const char *k2)
{
  const json_t *v = json_object_get(o, k1);
  if (!v && k2)
    v = json_object_get(o, k2);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The speed (flop/s per core) of machine `name` in a WfCommons machines array; NAN if unknown. */
static double fl_json_machine_speed(const json_t *machines, const char *name)
{
  size_t i;
  json_t *m;
  if (!json_is_array(machines) || !name)
    return NAN;
  json_array_foreach(machines, i, m)
  {
    const char *nn = fl_json_str(m, "nodeName", NULL);
    if (nn && strcmp(nn, name) == 0) {
      double mhz = fl_json_num(json_object_get(m, "cpu"), "speedInMHz", "speed");
      return mhz > 0 ? mhz * 1e6 : NAN;
    }
  }
  return NAN;
}

static fl_err fl_json_task_error(const char *path, const char *name, size_t idx, const char *what)
{
  if (name)
    return fl_err_set(FL_ERR_INPUT, "%s: task '%s': %s", path, name, what);
  return fl_err_set(FL_ERR_INPUT, "%s: workflow.tasks[%zu]: %s", path, idx, what);
}

static fl_err fl_wf_read_json(fl_wfb *b, const char *path, double ref_speed)
{
  fl_err rc = FL_OK;
  json_error_t jerr;
  json_t *root = json_load_file(path, 0, &jerr), *wfj, *tasks, *machines, *files = NULL, *exec_tasks = NULL;
  json_t *exec_by_id = NULL, *file_by_id = NULL; /* schema 1.5: id -> execution task, id -> file */
  int v15;
  size_t i;
  json_t *t;

  if (!root) {
    rc = fl_err_set(FL_ERR_INPUT, "%s:%d: malformed JSON: %s", path, jerr.line, jerr.text);
    goto done;
  }
  wfj = json_object_get(root, "workflow");
  FL_CHECK(json_is_object(wfj), FL_ERR_INPUT, "%s: no \"workflow\" object: not a WfCommons instance", path);
  v15 = json_is_object(json_object_get(wfj, "specification"));
  if (v15) {
    json_t *spec = json_object_get(wfj, "specification"), *ex = json_object_get(wfj, "execution");
    tasks = json_object_get(spec, "tasks");
    files = json_object_get(spec, "files");
    machines = json_object_get(ex, "machines");
    exec_tasks = json_object_get(ex, "tasks");
  } else {
    tasks = json_object_get(wfj, "tasks");
    machines = json_object_get(wfj, "machines");
  }
  {
    /* a schema this reader does not know says which it is (1.2 keeps its tasks under workflow.jobs) */
    json_t *ver = json_object_get(root, "schemaVersion");
    FL_CHECK(json_is_array(tasks), FL_ERR_INPUT,
             "%s: no workflow%s.tasks array%s%s%s (faultline reads WfCommons schemas 1.3, 1.4 and 1.5)", path,
             v15 ? ".specification" : "", json_is_string(ver) ? ": schemaVersion " : "",
             json_is_string(ver) ? json_string_value(ver) : "",
             json_is_array(json_object_get(wfj, "jobs")) ? ", whose tasks are workflow.jobs" : "");
  }
  if (v15) {
    /* schema 1.5 keeps a task's runtime and a file's size in lists of their own: index them by id once (Jansson's
     * objects are hash tables), not a search of the list per task and per file reference (quadratic: 100k tasks
     * did not load in three minutes); the first entry of an id wins, as the search took it */
    json_t *x;
    size_t q;
    FL_CHECK((exec_by_id = json_object()) && (file_by_id = json_object()), FL_ERR_NOMEM, "out of memory");
    json_array_foreach(exec_tasks, q, x)
    {
      const char *xid = fl_json_str(x, "id", NULL);
      if (xid && !json_object_get(exec_by_id, xid))
        FL_CHECK(json_object_set(exec_by_id, xid, x) == 0, FL_ERR_NOMEM, "out of memory");
    }
    json_array_foreach(files, q, x)
    {
      const char *fid = fl_json_str(x, "id", "name");
      if (fid && !json_object_get(file_by_id, fid))
        FL_CHECK(json_object_set(file_by_id, fid, x) == 0, FL_ERR_NOMEM, "out of memory");
    }
  }

  json_array_foreach(tasks, i, t)
  {
    const char *name = fl_json_str(t, v15 ? "id" : "name", v15 ? "name" : "id"), *stage, *machine = NULL;
    double runtime = NAN, speed, flops;
    json_t *parents, *fl, *p;
    const json_t *et = t;
    long id;
    size_t k;
    if (!json_is_object(t) || !name) {
      rc = fl_json_task_error(path, NULL, i, "a task needs a name");
      goto done;
    }
    if (v15 && json_is_array(exec_tasks)) {
      et = json_object_get(exec_by_id, name);
      if (!et) {
        rc = fl_json_task_error(path, name, i, "no workflow.execution.tasks entry gives its runtime");
        goto done;
      }
      {
        json_t *ms = json_object_get(et, "machines");
        if (json_is_array(ms) && json_array_size(ms) > 0 && json_is_string(json_array_get(ms, 0)))
          machine = json_string_value(json_array_get(ms, 0));
      }
    } else {
      machine = fl_json_str(t, "machine", NULL);
    }
    runtime = fl_json_num(et, "runtimeInSeconds", "runtime");
    if (!(runtime >= 0) || !isfinite(runtime)) {
      rc = fl_json_task_error(path, name, i, "runtimeInSeconds missing or negative");
      goto done;
    }
    speed = fl_json_machine_speed(machines, machine);
    flops = runtime * (isfinite(speed) ? speed : ref_speed);
    stage = fl_json_str(t, "category", NULL);
    if (stage && *stage) {
      FL_TRY(fl_wfb_task(b, name, stage, flops, 0, &id));
    } else {
      /* no category (schema 1.5): the stage from the name (the specification's name; the id for older files) */
      const char *sname = v15 ? fl_json_str(t, "name", "id") : name;
      char *derived = fl_wf_stage_wfcommons(sname ? sname : name);
      FL_CHECK(derived != NULL, FL_ERR_NOMEM, "out of memory");
      rc = fl_wfb_task(b, name, derived, flops, 0, &id);
      free(derived);
      FL_TRY(rc);
    }
    {
      double mem = fl_json_num(et, "memoryInBytes", "memoryInBytes");
      if (isfinite(mem)) {
        if (!(mem >= 0)) {
          rc = fl_json_task_error(path, name, i, "memoryInBytes must be >= 0");
          goto done;
        }
        b->wf->task[id].memory = mem;
      }
    }
    {
      double cores = fl_json_num(et, "coreCount", "cores");
      if (isfinite(cores)) {
        if (!(cores >= 1 && cores <= 1e6 && cores == floor(cores))) {
          rc = fl_json_task_error(path, name, i, "cores must be a whole number >= 1");
          goto done;
        }
        b->wf->task[id].cores = (long)cores;
      }
    }
    parents = json_object_get(t, "parents");
    if (parents && !json_is_array(parents)) {
      rc = fl_json_task_error(path, name, i, "\"parents\" is not an array");
      goto done;
    }
    json_array_foreach(parents, k, p)
    {
      if (!json_is_string(p)) {
        rc = fl_json_task_error(path, name, i, "a parent is not a task name");
        goto done;
      }
      FL_TRY(fl_wfb_ref(b, id, NULL, json_string_value(p), 0));
    }
    if (v15) {
      const char *lists[2] = {"inputFiles", "outputFiles"};
      for (int out = 0; out < 2; out++) {
        json_t *lst = json_object_get(t, lists[out]);
        json_array_foreach(lst, k, p)
        {
          const char *fid = json_is_string(p) ? json_string_value(p) : NULL;
          json_t *f = fid ? json_object_get(file_by_id, fid) : NULL;
          double size = f ? fl_json_num(f, "sizeInBytes", "size") : NAN;
          if (!fid || !(size >= 0)) {
            char what[512];
            snprintf(what, sizeof what, "file '%s': no size in workflow.specification.files", fid ? fid : "?");
            rc = fl_json_task_error(path, name, i, what);
            goto done;
          }
          FL_TRY(fl_wfb_use(b, id, fid, size, out));
        }
      }
    } else {
      fl = json_object_get(t, "files");
      json_array_foreach(fl, k, p)
      {
        const char *fname = fl_json_str(p, "name", "id"), *link = fl_json_str(p, "link", NULL);
        double size = fl_json_num(p, "sizeInBytes", "size");
        if (!fname || !link || (strcmp(link, "input") != 0 && strcmp(link, "output") != 0) || !(size >= 0)) {
          char what[512];
          snprintf(what, sizeof what, "files[%zu]: needs a name, link input|output and a size >= 0", k);
          rc = fl_json_task_error(path, name, i, what);
          goto done;
        }
        FL_TRY(fl_wfb_use(b, id, fname, size, strcmp(link, "output") == 0));
      }
    }
  }
done:
  json_decref(exec_by_id);
  json_decref(file_by_id);
  json_decref(root);
  return rc;
}

/* ---- Pegasus DAX ---- */

static double fl_xml_num(xmlNode *n, const char *attr, int *present)
{
  xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
  double x = NAN;
  char *end = NULL;
  *present = v != NULL;
  if (v) {
    errno = 0;
    x = strtod((const char *)v, &end);
    if (end == (char *)v || *end != '\0' || errno)
      x = NAN;
    xmlFree(v);
  }
  return x;
}

/* app.task_runtime: the runtime of a job of transformation `tr` whose file gives none; NAN when the spec has none
 * for it. *bad gets the offending term of a malformed spec (NULL when it is well formed). */
static double fl_wf_runtime_for(const char *spec, const char *tr, char *bad, size_t badsize)
{
  double fallback = NAN, found = NAN;
  char *copy, *save = NULL;
  if (bad)
    bad[0] = '\0';
  if (!spec || !*spec)
    return NAN;
  if (!(copy = strdup(spec)))
    return NAN;
  for (char *term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
    char *colon = strrchr(term, ':'), *name = term, *dur = term;
    double sec;
    while (*name == ' ')
      name++;
    if (colon) {
      *colon = '\0';
      dur = colon + 1;
    }
    if (fl_units_duration(dur, 0, &sec) != FL_OK || !(sec >= 0) || (colon && !*name)) {
      if (bad)
        snprintf(bad, badsize, "%s%s%s", colon ? name : "", colon ? ":" : "", dur);
      found = NAN;
      break;
    }
    if (!colon || strcmp(name, "*") == 0)
      fallback = sec;
    else if (tr && strcmp(name, tr) == 0)
      found = sec;
  }
  free(copy);
  if (bad && bad[0])
    return NAN;
  return isnan(found) ? fallback : found;
}

fl_err fl_wf_runtime_check(const char *task_runtime)
{
  char bad[256];
  fl_wf_runtime_for(task_runtime, NULL, bad, sizeof bad);
  if (bad[0])
    return fl_err_set(FL_ERR_INPUT, "'%s': not DURATION or NAME:DURATION (a term of 'NAME:DURATION,...')", bad);
  return FL_OK;
}

static fl_err fl_wf_read_dax(fl_wfb *b, const char *path, double ref_speed, const char *task_runtime)
{
  fl_err rc = FL_OK;
  xmlDoc *doc = fl_xml_read_file(path);
  xmlNode *root, *n;

  if (!doc) {
    const xmlError *e = xmlGetLastError();
    rc = fl_err_set(FL_ERR_INPUT, "%s:%d: malformed DAX: %s", path, e ? e->line : 0,
                    e && e->message ? strtok(e->message, "\n") : "cannot parse");
    goto done;
  }
  root = xmlDocGetRootElement(doc);
  FL_CHECK(root && xmlStrcmp(root->name, (const xmlChar *)"adag") == 0, FL_ERR_INPUT,
           "%s: the root element is not <adag>: not a Pegasus DAX", path);
  for (n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (xmlStrcmp(n->name, (const xmlChar *)"job") == 0) {
      xmlChar *id = xmlGetProp(n, (const xmlChar *)"id"), *tr = xmlGetProp(n, (const xmlChar *)"name");
      int has;
      double runtime = fl_xml_num(n, "runtime", &has);
      long tid = -1;
      if (!has) /* an abstract workflow (DAX 3) records no runtime: app.task_runtime gives it */
        runtime = fl_wf_runtime_for(task_runtime, (const char *)tr, NULL, 0);
      if (!id || !(runtime >= 0)) {
        if (id && !has)
          rc = fl_err_set(FL_ERR_INPUT,
                          "%s:%ld: <job id=%s name=%s>: no runtime in the file, and app.task_runtime gives none for "
                          "'%s' (app.task_runtime = DURATION, or NAME:DURATION,... with * for the others)",
                          path, xmlGetLineNo(n), (const char *)id, tr ? (const char *)tr : "?",
                          tr ? (const char *)tr : "?");
        else
          rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: <job%s%s>: needs an id and a runtime >= 0", path, xmlGetLineNo(n),
                          id ? " id=" : "", id ? (const char *)id : "");
        xmlFree(id);
        xmlFree(tr);
        goto done;
      }
      rc = fl_wfb_task(b, (const char *)id, (const char *)tr, runtime * ref_speed, (int)xmlGetLineNo(n), &tid);
      xmlFree(id);
      xmlFree(tr);
      FL_TRY(rc);
      for (xmlNode *u = n->children; u; u = u->next) {
        xmlChar *file, *link;
        double size;
        if (u->type != XML_ELEMENT_NODE || xmlStrcmp(u->name, (const xmlChar *)"uses") != 0)
          continue;
        file = xmlGetProp(u, (const xmlChar *)"file");
        if (!file)
          file = xmlGetProp(u, (const xmlChar *)"name");
        link = xmlGetProp(u, (const xmlChar *)"link");
        size = fl_xml_num(u, "size", &has);
        if (!has)
          size = 0.0;
        if (!file || !link || !(size >= 0) ||
            (xmlStrcmp(link, (const xmlChar *)"input") != 0 && xmlStrcmp(link, (const xmlChar *)"output") != 0)) {
          rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: <uses> of job '%s': needs file, link input|output and a size >= 0",
                          path, xmlGetLineNo(u), b->wf->task[tid].name);
          xmlFree(file);
          xmlFree(link);
          goto done;
        }
        rc = fl_wfb_use(b, tid, (const char *)file, size, xmlStrcmp(link, (const xmlChar *)"output") == 0);
        xmlFree(file);
        xmlFree(link);
        FL_TRY(rc);
      }
    } else if (xmlStrcmp(n->name, (const xmlChar *)"child") == 0) {
      xmlChar *ref = xmlGetProp(n, (const xmlChar *)"ref");
      if (!ref) {
        rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: <child> without ref", path, xmlGetLineNo(n));
        goto done;
      }
      for (xmlNode *p = n->children; p && rc == FL_OK; p = p->next) {
        xmlChar *pr;
        if (p->type != XML_ELEMENT_NODE || xmlStrcmp(p->name, (const xmlChar *)"parent") != 0)
          continue;
        pr = xmlGetProp(p, (const xmlChar *)"ref");
        if (!pr)
          rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: <parent> without ref", path, xmlGetLineNo(p));
        else
          rc = fl_wfb_ref(b, -1, (const char *)ref, (const char *)pr, (int)xmlGetLineNo(p));
        xmlFree(pr);
      }
      xmlFree(ref);
      FL_TRY(rc);
    }
  }
done:
  if (doc)
    xmlFreeDoc(doc);
  return rc;
}

/* ---- Pegasus 5 YAML (the abstract workflow of Pegasus 5.x, schema wf-5.0.yml) ---- */

static const fl_wf_use *fl_sort_uses; /* qsort has no context argument */
static int fl_cmp_use_file(const void *a, const void *b)
{
  return strcmp(fl_sort_uses[*(const long *)a].file, fl_sort_uses[*(const long *)b].file);
}

/* The value of `key` in mapping `m`, or NULL. */
static yaml_node_t *fl_y_get(yaml_document_t *d, yaml_node_t *m, const char *key)
{
  if (!m || m->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(d, p->key);
    if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0)
      return yaml_document_get_node(d, p->value);
  }
  return NULL;
}

/* The scalar text of `n`, or NULL when it is no scalar. */
static const char *fl_y_str(yaml_node_t *n)
{
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int fl_y_line(yaml_node_t *n)
{
  return n ? (int)n->start_mark.line + 1 : 0;
}

/* A number >= 0 written as a YAML scalar ("2048", 2048, "60.5"); NAN when it is not one. */
static double fl_y_num(yaml_node_t *n)
{
  const char *s = fl_y_str(n);
  char *end = NULL;
  double v = s ? strtod(s, &end) : NAN;
  return s && end != s && *end == '\0' && v >= 0 ? v : NAN;
}

/* A Pegasus 5 file may give a file's size on one of its uses only (the producer's, say): the uses from `first`
 * on without one (size < 0) take the size another use of the same file gives, else 0. */
static fl_err fl_y_sizes(fl_wfb *b, long first)
{
  fl_err rc = FL_OK;
  long n = b->nuse - first, *idx = NULL;
  if (n <= 0)
    return FL_OK;
  FL_ALLOC(idx, n);
  for (long k = 0; k < n; k++)
    idx[k] = first + k;
  fl_sort_uses = b->use;
  qsort(idx, (size_t)n, sizeof *idx, fl_cmp_use_file);
  for (long u = 0; u < n;) {
    long v = u;
    double size = -1.0;
    while (v < n && strcmp(b->use[idx[v]].file, b->use[idx[u]].file) == 0)
      size = fmax(size, b->use[idx[v++]].size);
    for (long k = u; k < v; k++)
      if (b->use[idx[k]].size < 0)
        b->use[idx[k]].size = size > 0 ? size : 0.0;
    u = v;
  }
done:
  free(idx);
  return rc;
}

static fl_err fl_wf_read_yaml(fl_wfb *b, const char *path, double ref_speed, const char *task_runtime)
{
  fl_err rc = FL_OK;
  const char *why = NULL;
  FILE *f = fl_input_fopen(path, &why);
  yaml_parser_t parser;
  yaml_document_t doc;
  int parsed = 0, loaded = 0;
  yaml_node_t *root, *jobs, *deps, *ver;
  long first_use = b->nuse;

  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  FL_CHECK(yaml_parser_initialize(&parser), FL_ERR_NOMEM, "out of memory");
  parsed = 1;
  yaml_parser_set_input_file(&parser, f);
  if (!yaml_parser_load(&parser, &doc)) {
    rc = fl_err_set(FL_ERR_INPUT, "%s:%zu: malformed YAML: %s", path, parser.problem_mark.line + 1,
                    parser.problem ? parser.problem : "cannot parse");
    goto done;
  }
  loaded = 1;
  root = yaml_document_get_root_node(&doc);
  ver = fl_y_get(&doc, root, "pegasus");
  FL_CHECK(fl_y_str(ver) && fl_y_str(ver)[0] == '5', FL_ERR_INPUT,
           "%s:%d: pegasus: '%s': faultline reads Pegasus 5 workflows (pegasus: 5.x); a DAX 3 file is read as XML",
           path, fl_y_line(ver ? ver : root), fl_y_str(ver) ? fl_y_str(ver) : "");
  jobs = fl_y_get(&doc, root, "jobs");
  FL_CHECK(jobs && jobs->type == YAML_SEQUENCE_NODE, FL_ERR_INPUT, "%s:%d: no jobs list: not a Pegasus 5 workflow",
           path, fl_y_line(root));
  for (yaml_node_item_t *it = jobs->data.sequence.items.start; it < jobs->data.sequence.items.top; it++) {
    yaml_node_t *j = yaml_document_get_node(&doc, *it), *uses, *profiles;
    const char *id = fl_y_str(fl_y_get(&doc, j, "id")), *tr = fl_y_str(fl_y_get(&doc, j, "name"));
    const char *type = fl_y_str(fl_y_get(&doc, j, "type"));
    double runtime;
    long tid = -1;
    FL_CHECK(!type || strcmp(type, "job") == 0, FL_ERR_INPUT,
             "%s:%d: job %s is a sub-workflow (type %s), which faultline does not expand: give the workflow it "
             "runs as a graph of its own",
             path, fl_y_line(j), id ? id : "?", type);
    FL_CHECK(id != NULL, FL_ERR_INPUT, "%s:%d: a job without an id", path, fl_y_line(j));
    /* the expected runtime: the job's Pegasus profile `runtime` (seconds), else app.task_runtime */
    profiles = fl_y_get(&doc, fl_y_get(&doc, j, "profiles"), "pegasus");
    {
      yaml_node_t *rt = fl_y_get(&doc, profiles, "runtime");
      runtime = fl_y_num(rt);
      /* the file's runtime wins; one it gives that is no number of seconds >= 0 is refused, as DAX's is */
      FL_CHECK(!rt || !isnan(runtime), FL_ERR_INPUT,
               "%s:%d: job %s (%s): profiles.pegasus.runtime '%s': not a number of seconds >= 0", path, fl_y_line(rt),
               id, tr ? tr : "?", fl_y_str(rt) ? fl_y_str(rt) : "(not a scalar)");
    }
    if (isnan(runtime))
      runtime = fl_wf_runtime_for(task_runtime, tr, NULL, 0);
    FL_CHECK(runtime >= 0, FL_ERR_INPUT,
             "%s:%d: job %s (%s): no runtime in the file (a Pegasus profile pegasus.runtime), and app.task_runtime "
             "gives none for '%s' (app.task_runtime = DURATION, or NAME:DURATION,... with * for the others)",
             path, fl_y_line(j), id, tr ? tr : "?", tr ? tr : "?");
    FL_TRY(fl_wfb_task(b, id, tr, runtime * ref_speed, fl_y_line(j), &tid));
    uses = fl_y_get(&doc, j, "uses");
    if (!uses)
      continue;
    FL_CHECK(uses->type == YAML_SEQUENCE_NODE, FL_ERR_INPUT, "%s:%d: job %s: uses is not a list", path, fl_y_line(uses),
             id);
    for (yaml_node_item_t *u = uses->data.sequence.items.start; u < uses->data.sequence.items.top; u++) {
      yaml_node_t *un = yaml_document_get_node(&doc, *u), *sz;
      const char *lfn = fl_y_str(fl_y_get(&doc, un, "lfn")), *link = fl_y_str(fl_y_get(&doc, un, "type"));
      double size = -1.0; /* none given: the file's size from another use of it (fl_y_sizes) */
      FL_CHECK(lfn && link, FL_ERR_INPUT, "%s:%d: a use of job %s needs lfn and type", path, fl_y_line(un), id);
      if (strcmp(link, "checkpoint") == 0 || strcmp(link, "none") == 0)
        continue; /* no data dependency */
      FL_CHECK(strcmp(link, "input") == 0 || strcmp(link, "output") == 0, FL_ERR_INPUT,
               "%s:%d: job %s, %s: type %s: faultline models input and output files (inout is not)", path,
               fl_y_line(un), id, lfn, link);
      sz = fl_y_get(&doc, un, "size");
      if (!sz)
        sz = fl_y_get(&doc, fl_y_get(&doc, un, "metadata"), "size");
      if (sz) {
        size = fl_y_num(sz);
        FL_CHECK(size >= 0, FL_ERR_INPUT, "%s:%d: job %s, %s: size '%s': expected bytes >= 0", path, fl_y_line(sz), id,
                 lfn, fl_y_str(sz) ? fl_y_str(sz) : "");
      }
      FL_TRY(fl_wfb_use(b, tid, lfn, size, strcmp(link, "output") == 0));
    }
  }
  FL_TRY(fl_y_sizes(b, first_use));
  deps = fl_y_get(&doc, root, "jobDependencies");
  if (deps) {
    FL_CHECK(deps->type == YAML_SEQUENCE_NODE, FL_ERR_INPUT, "%s:%d: jobDependencies is not a list", path,
             fl_y_line(deps));
    for (yaml_node_item_t *it = deps->data.sequence.items.start; it < deps->data.sequence.items.top; it++) {
      yaml_node_t *p = yaml_document_get_node(&doc, *it), *ch = fl_y_get(&doc, p, "children");
      const char *parent = fl_y_str(fl_y_get(&doc, p, "id"));
      FL_CHECK(parent && (!ch || ch->type == YAML_SEQUENCE_NODE), FL_ERR_INPUT,
               "%s:%d: a dependency needs an id and a list of children", path, fl_y_line(p));
      for (yaml_node_item_t *c = ch ? ch->data.sequence.items.start : NULL; ch && c < ch->data.sequence.items.top;
           c++) {
        yaml_node_t *cn = yaml_document_get_node(&doc, *c);
        FL_CHECK(fl_y_str(cn), FL_ERR_INPUT, "%s:%d: a child of %s is not a job id", path, fl_y_line(cn), parent);
        FL_TRY(fl_wfb_ref(b, -1, fl_y_str(cn), parent, fl_y_line(cn)));
      }
    }
  }
done:
  if (loaded)
    yaml_document_delete(&doc);
  if (parsed)
    yaml_parser_delete(&parser);
  if (f)
    fclose(f);
  return rc;
}

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

/* ---- entry points ---- */

static const char *fl_ext(const char *path)
{
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) ? dot + 1 : "";
}

fl_err fl_wf_load(const char *path, double reference_speed, fl_wf **out)
{
  return fl_wf_load_runtimes(path, reference_speed, NULL, out);
}

/* What a graph file holds, from its first bytes: 'j' JSON, 'x' XML (a DAX if its root is <adag>), 'y' Pegasus 5
 * YAML (its top-level `pegasus:` key), 'd' DOT (a (di)graph keyword), 0 when the content does not say (comments
 * first, say): then the extension decides. */
static int fl_wf_sniff(FILE *f)
{
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f), i = 0;
  buf[n] = '\0';
  if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
    i = 3; /* a UTF-8 byte order mark */
  while (i < n && isspace((unsigned char)buf[i]))
    i++;
  if (buf[i] == '{')
    return 'j';
  if (buf[i] == '<')
    return 'x';
  for (const char *line = buf + i; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp(line, "pegasus:", 8) == 0)
      return 'y';
  if (strncmp(buf + i, "digraph", 7) == 0 || strncmp(buf + i, "graph", 5) == 0 || strncmp(buf + i, "strict", 6) == 0)
    return 'd';
  return 0;
}

fl_err fl_wf_load_runtimes(const char *path, double reference_speed, const char *task_runtime, fl_wf **out)
{
  fl_err rc = FL_OK;
  fl_wfb b;
  fl_wf *wf = NULL;
  const char *ext = fl_ext(path);
  FILE *probe;
  const char *why;
  int kind;

  *out = NULL;
  memset(&b, 0, sizeof b);
  FL_CHECK(reference_speed > 0, FL_ERR_INPUT, "%s: reference speed %g: must be positive", path, reference_speed);
  probe = fl_input_fopen(path, &why);
  FL_CHECK(probe != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  kind = fl_wf_sniff(probe); /* the content decides; the extension only where the first bytes do not say */
  fclose(probe);
  if (!kind)
    kind = strcmp(ext, "json") == 0                              ? 'j'
           : strcmp(ext, "dax") == 0 || strcmp(ext, "xml") == 0  ? 'x'
           : strcmp(ext, "dot") == 0 || strcmp(ext, "gv") == 0   ? 'd'
           : strcmp(ext, "yml") == 0 || strcmp(ext, "yaml") == 0 ? 'y'
                                                                 : 0;
  FL_CHECK(kind != 0, FL_ERR_INPUT,
           "%s: unknown workflow format (content not JSON, XML, YAML or DOT, extension '.%s'; known: WfCommons JSON, "
           "Pegasus DAX, Pegasus 5 YAML, DOT)",
           path, ext);
  FL_TRY(fl_wf_new(path, &wf, &b));
  if (kind == 'j')
    FL_TRY(fl_wf_read_json(&b, path, reference_speed));
  else if (kind == 'x')
    FL_TRY(fl_wf_read_dax(&b, path, reference_speed, task_runtime));
  else if (kind == 'y') {
    b.yaml = 1;
    FL_TRY(fl_wf_read_yaml(&b, path, reference_speed, task_runtime));
  } else
    FL_TRY(fl_wf_read_dot(&b, path));
  FL_TRY(fl_wfb_finish(&b));
  *out = wf;
  wf = NULL;
done:
  fl_wfb_free(&b);
  fl_wf_destroy(&wf);
  return rc;
}

fl_err fl_wf_gridworld(long rows, long cols, long sweeps, double flops, double bound, fl_wf **out)
{
  fl_err rc = FL_OK;
  fl_wfb b;
  fl_wf *wf = NULL;
  long states = rows * cols, n;
  char name[64];

  *out = NULL;
  memset(&b, 0, sizeof b);
  FL_CHECK(rows >= 1 && cols >= 1 && sweeps >= 1 && states <= 100000000L / sweeps, FL_ERR_INPUT,
           "grid world %ldx%ld x %ld sweeps: at most 10^8 tasks", rows, cols, sweeps);
  snprintf(name, sizeof name, "gridworld %ldx%ld", rows, cols);
  FL_TRY(fl_wf_new(name, &wf, &b));
  n = states * sweeps;
  for (long t = 0; t < sweeps; t++)
    for (long s = 0; s < states; s++) {
      long id;
      snprintf(name, sizeof name, "s%ld@%ld", s, t + 1);
      FL_TRY(fl_wfb_task(&b, name, "sweep", flops, 0, &id));
      if (t == 0)
        continue;
      {
        long r = s / cols, c = s % cols, nb[5] = {s, -1, -1, -1, -1};
        if (r > 0)
          nb[1] = s - cols;
        if (r + 1 < rows)
          nb[2] = s + cols;
        if (c > 0)
          nb[3] = s - 1;
        if (c + 1 < cols)
          nb[4] = s + 1;
        for (int k = 0; k < 5; k++)
          if (nb[k] >= 0)
            FL_TRY(fl_wfb_edge(&b, (t - 1) * states + nb[k], id, 8.0, -1));
      }
    }
  FL_TRY(fl_wfb_finish(&b));
  wf->gw_rows = rows;
  wf->gw_cols = cols;
  wf->gw_sweeps = sweeps;
  /* substitutes: the same sweep's neighbours, the seed's bound */
  FL_ALLOC(wf->sub_j, 4 * n);
  FL_ALLOC(wf->sub_k, 4 * n);
  FL_ALLOC(wf->sub_w, 4 * n);
  for (long i = 0; i < n; i++) {
    long s = i % states, base = i - s, r = s / cols, c = s % cols;
    long nb[4] = {r > 0 ? s - cols : -1, r + 1 < rows ? s + cols : -1, c > 0 ? s - 1 : -1, c + 1 < cols ? s + 1 : -1};
    wf->sub_start[i] = wf->nsubs;
    for (int k = 0; k < 4; k++)
      if (nb[k] >= 0) {
        wf->sub_j[wf->nsubs] = base + nb[k];
        wf->sub_k[wf->nsubs] = -1;
        wf->sub_w[wf->nsubs] = bound;
        wf->nsubs++;
      }
  }
  wf->sub_start[n] = wf->nsubs;
  *out = wf;
  wf = NULL;
done:
  fl_wfb_free(&b);
  fl_wf_destroy(&wf);
  return rc;
}

/* ---- the substitution relation ---- */

static void fl_wf_subs_clear(fl_wf *wf)
{
  free(wf->sub_j);
  free(wf->sub_k);
  free(wf->sub_w);
  wf->sub_j = wf->sub_k = NULL;
  wf->sub_w = NULL;
  wf->nsubs = 0;
  memset(wf->sub_start, 0, (size_t)(wf->ntasks + 1) * sizeof *wf->sub_start);
}

static const fl_wf *fl_rule_wf;
static int fl_cmp_stage_in(const void *a, const void *b)
{
  const fl_wf_task *x = &fl_rule_wf->task[*(const long *)a], *y = &fl_rule_wf->task[*(const long *)b];
  int c = strcmp(x->stage, y->stage);
  if (c)
    return c;
  if (x->in_bytes != y->in_bytes)
    return (x->in_bytes > y->in_bytes) - (x->in_bytes < y->in_bytes);
  return (*(const long *)a > *(const long *)b) - (*(const long *)a < *(const long *)b);
}

static double fl_rel_diff(double a, double b)
{
  double m = fmax(fabs(a), fabs(b));
  return m > 0 ? fabs(a - b) / m : 0.0;
}

fl_err fl_wf_subs_rule(fl_wf *wf, double max_diff, int k)
{
  fl_err rc = FL_OK;
  long n = wf->ntasks, *order = NULL, *pos = NULL;

  FL_CHECK(max_diff >= 0 && k >= 1, FL_ERR_INPUT, "substitution rule: max_diff %g >= 0 and k %d >= 1", max_diff, k);
  fl_wf_subs_clear(wf);
  FL_ALLOC(order, n);
  FL_ALLOC(pos, n);
  for (long i = 0; i < n; i++)
    order[i] = i;
  fl_rule_wf = wf;
  qsort(order, (size_t)n, sizeof *order, fl_cmp_stage_in);
  for (long q = 0; q < n; q++)
    pos[order[q]] = q;
  FL_ALLOC(wf->sub_j, 2 * (long)k * n);
  FL_ALLOC(wf->sub_k, 2 * (long)k * n);
  FL_ALLOC(wf->sub_w, 2 * (long)k * n);
  for (long i = 0; i < n; i++) {
    const fl_wf_task *ti = &wf->task[i];
    wf->sub_start[i] = wf->nsubs;
    for (int side = -1; side <= 1; side += 2)
      for (long q = pos[i] + side, taken = 0; q >= 0 && q < n && taken < k; q += side) {
        const fl_wf_task *tj = &wf->task[order[q]];
        double d;
        if (strcmp(tj->stage, ti->stage) != 0)
          break;
        d = fl_rel_diff(ti->in_bytes, tj->in_bytes);
        if (d > max_diff)
          break;
        wf->sub_j[wf->nsubs] = order[q];
        wf->sub_k[wf->nsubs] = -1;
        wf->sub_w[wf->nsubs] = 1.0 + d;
        wf->nsubs++;
        taken++;
      }
  }
  wf->sub_start[n] = wf->nsubs;
done:
  free(order);
  free(pos);
  return rc;
}

typedef struct fl_subs_row {
  char *f[4];
  int nf, line;
  fl_wf *wf;
  const char *path;
  long *ti, *tj, *tk;
  double *tw;
  long n, cap;
  fl_err rc;
} fl_subs_row;

static void fl_subs_field(void *s, size_t len, void *data)
{
  fl_subs_row *r = data;
  if (r->nf < 4) {
    r->f[r->nf] = malloc(len + 1);
    if (r->f[r->nf]) {
      memcpy(r->f[r->nf], s, len);
      r->f[r->nf][len] = '\0';
    }
  }
  r->nf++;
}

static fl_err fl_subs_take(fl_subs_row *r)
{
  fl_err rc = FL_OK;
  long i, j, k = -1;
  double w;
  char *end = NULL;
  if (r->nf == 0 || (r->nf == 1 && r->f[0] && !r->f[0][0]))
    goto done; /* empty line */
  FL_CHECK(r->nf >= 3 && r->nf <= 4 && r->f[0] && r->f[1] && r->f[2] && (r->nf < 4 || r->f[3]), FL_ERR_INPUT,
           "%s:%d: %d fields: expected task,substitute,weight[,dependent]", r->path, r->line, r->nf);
  if (r->line == 1 && strcmp(r->f[0], "task") == 0)
    goto done; /* the header */
  i = fl_wf_find(r->wf, r->f[0]);
  j = fl_wf_find(r->wf, r->f[1]);
  FL_CHECK(i >= 0, FL_ERR_INPUT, "%s:%d: task '%s': no such task in %s", r->path, r->line, r->f[0], r->wf->path);
  FL_CHECK(j >= 0, FL_ERR_INPUT, "%s:%d: substitute '%s': no such task in %s", r->path, r->line, r->f[1], r->wf->path);
  FL_CHECK(i != j, FL_ERR_INPUT, "%s:%d: task '%s' cannot substitute itself", r->path, r->line, r->f[0]);
  errno = 0;
  w = strtod(r->f[2], &end);
  FL_CHECK(end != r->f[2] && *end == '\0' && !errno && w >= 0 && isfinite(w), FL_ERR_INPUT,
           "%s:%d: weight '%s': a number >= 0", r->path, r->line, r->f[2]);
  if (r->nf == 4 && r->f[3][0]) {
    k = fl_wf_find(r->wf, r->f[3]);
    FL_CHECK(k >= 0, FL_ERR_INPUT, "%s:%d: dependent '%s': no such task in %s", r->path, r->line, r->f[3], r->wf->path);
  }
  FL_TRY(fl_grow((void **)&r->ti, &r->cap, r->n + 1, sizeof *r->ti));
  r->tj = realloc(r->tj, (size_t)r->cap * sizeof *r->tj);
  r->tk = realloc(r->tk, (size_t)r->cap * sizeof *r->tk);
  r->tw = realloc(r->tw, (size_t)r->cap * sizeof *r->tw);
  FL_CHECK(r->tj && r->tk && r->tw, FL_ERR_NOMEM, "out of memory");
  r->ti[r->n] = i;
  r->tj[r->n] = j;
  r->tk[r->n] = k;
  r->tw[r->n] = w;
  r->n++;
done:
  return rc;
}

static void fl_subs_end(int c, void *data)
{
  fl_subs_row *r = data;
  (void)c;
  if (r->rc == FL_OK)
    r->rc = fl_subs_take(r);
  for (int q = 0; q < 4; q++) {
    free(r->f[q]);
    r->f[q] = NULL;
  }
  r->nf = 0;
}

fl_err fl_wf_subs_file(fl_wf *wf, const char *path)
{
  fl_err rc = FL_OK;
  const char *why;
  FILE *f = fl_input_fopen(path, &why);
  struct csv_parser p;
  int ready = 0;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  fl_subs_row r = {.wf = wf, .path = path};
  long n = wf->ntasks;

  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  FL_CHECK(csv_init(&p, CSV_APPEND_NULL) == 0, FL_ERR_NOMEM, "out of memory");
  ready = 1;
  while ((len = getline(&line, &cap, f)) >= 0) {
    r.line++;
    if (len > 0 && line[0] == '#')
      continue;
    if (csv_parse(&p, line, (size_t)len, fl_subs_field, fl_subs_end, &r) != (size_t)len)
      FL_CHECK(0, FL_ERR_INPUT, "%s:%d: %s", path, r.line, csv_strerror(csv_error(&p)));
    csv_fini(&p, fl_subs_field, fl_subs_end, &r);
    FL_TRY(r.rc);
  }
  fl_wf_subs_clear(wf);
  /* group by i (counting sort, file order kept within a task) */
  FL_ALLOC(wf->sub_j, r.n);
  FL_ALLOC(wf->sub_k, r.n);
  FL_ALLOC(wf->sub_w, r.n);
  for (long q = 0; q < r.n; q++)
    wf->sub_start[r.ti[q] + 1]++;
  for (long i = 0; i < n; i++)
    wf->sub_start[i + 1] += wf->sub_start[i];
  {
    long *fill = calloc((size_t)n + 1, sizeof *fill);
    FL_CHECK(fill != NULL, FL_ERR_NOMEM, "out of memory");
    for (long q = 0; q < r.n; q++) {
      long at = wf->sub_start[r.ti[q]] + fill[r.ti[q]]++;
      wf->sub_j[at] = r.tj[q];
      wf->sub_k[at] = r.tk[q];
      wf->sub_w[at] = r.tw[q];
    }
    free(fill);
  }
  wf->nsubs = r.n;
done:
  if (ready)
    csv_free(&p);
  for (int q = 0; q < 4; q++)
    free(r.f[q]);
  free(r.ti);
  free(r.tj);
  free(r.tk);
  free(r.tw);
  free(line);
  if (f)
    fclose(f);
  return rc;
}

/* ---- the app kind ---- */

static const char *const fl_wf_rule_choices[] = {"stage", "none", NULL};
static const char *const fl_wf_outputs_choices[] = {"local", "shared", NULL};
static const char *const fl_wf_no_yes[] = {"no", "yes", NULL};

#define FL_OFF(field) offsetof(fl_workflow_opts, field)
static const fl_key fl_workflow_key_table[] = {
    {"app", "graph", FL_K_STR, FL_OFF(graph), FL_K_OPTIONAL, "", NULL,
     "workflow: the task graph, its format from the extension: .json (WfCommons instance), .dax (Pegasus), .dot "
     "(SimGrid's convention: size = flops on a task, bytes on an edge); relative to the scenario's directory; or "
     "gridworld: seed 002's value iteration as a graph (app.grid, app.iterations sweeps, app.task_time each on a host "
     "of app.reference_speed), its values computed and compared with the failure-free run"},
    {"app", "substitutes", FL_K_STR, FL_OFF(substitutes), FL_K_OPTIONAL, "", NULL,
     "workflow: CSV side file of substitutes, task,substitute,weight[,dependent] (default: app.substitute_rule)"},
    {"app", "substitute_rule", FL_K_ENUM_INT, FL_OFF(substitute_rule), 0, "stage", fl_wf_rule_choices,
     "workflow without a side file: stage = tasks of the same stage with similar input sizes substitute for each "
     "other (weight 1 + relative difference; the 2 nearest on each side); none = no substitutes"},
    {"app", "outputs", FL_K_ENUM_INT, FL_OFF(outputs_shared), 0, "shared", fl_wf_outputs_choices,
     "workflow: where a task's output lives: shared = also on shared storage that survives failures, as Pegasus, "
     "Makeflow and Nextflow keep it (after its host fails it is read from the controller host over the platform); "
     "local = only in its host's memory, seed 002's regime (a host failure loses the outputs still needed, and "
     "re-executing them may cascade back through the graph)"},
    {"app", "stage_inputs", FL_K_ENUM_INT, FL_OFF(stage_inputs), 0, "yes", fl_wf_no_yes,
     "workflow: the files no task writes (the workflow's inputs) are staged on storage (the controller host) and each "
     "task reads its own over the platform as it starts, as HEFT prices it; no = they are on every host already"},
    {"app", "substitute_max_diff", FL_K_REAL, FL_OFF(substitute_max_diff), FL_K_NONNEG, "0.5", NULL,
     "workflow, rule stage: largest relative difference of input sizes between a task and its substitute"},
    {"app", "task_runtime", FL_K_STR, FL_OFF(task_runtime), FL_K_OPTIONAL, "", NULL,
     "workflow: the runtime of a job its file gives none (Pegasus DAX 3 abstract workflows carry no runtimes): one "
     "duration for every job (30s), or per transformation NAME:DURATION,... with * for the others "
     "(preprocess:10s,findrange:20s,*:5s); a job with neither is refused naming it"},
    {"app", "serial_fraction", FL_K_STR, FL_OFF(serial_fraction), FL_K_OPTIONAL, "", NULL,
     "workflow: Amdahl's law for tasks that ran on several cores (WfCommons coreCount): a task of serial fraction F "
     "that ran on k cores runs on a host of c < k cores in its time x (F + (1 - F) / c) / (F + (1 - F) / k); F for "
     "every task (0.05) or by stage STAGE:F,...,*:F; unset: a task runs only on a host with its cores"},
    {"app", "stage_cache", FL_K_ENUM_INT, FL_OFF(stage_cache), 0, "no", fl_wf_no_yes,
     "workflow with staged inputs: no = every task reads all its staged inputs as it starts (as Pegasus's condorio "
     "jobs do); yes = a host keeps the staged files it read on its local disk (as Work Queue's workers and WRENCH's "
     "storage services do) and a later task there reads only those it lacks; a failure of the host empties it"},
    {"app", "reference_speed", FL_K_SPEED, FL_OFF(reference_speed), FL_K_POS, "1Gf", NULL,
     "workflow: flop/s that turns a recorded runtime into flops where the instance names no machine speed"},
};
#undef FL_OFF
const fl_keyset fl_workflow_keys = {"app workflow", sizeof(fl_workflow_opts), fl_workflow_key_table,
                                    FL_KEYS_N(fl_workflow_key_table), NULL};

const fl_workflow_opts *fl_workflow_options(const fl_scenario *sc)
{
  return fl_scenario_options(sc, &fl_workflow_keys);
}

int fl_workflow_graph_generated(const fl_scenario *sc)
{
  const char *graph = fl_workflow_options(sc)->graph;
  return graph && strcmp(graph, "gridworld") == 0;
}

static long fl_workflow_slots(const fl_scenario *sc, long copies)
{
  (void)copies;
  return sc->app_nodes; /* hosts the scheduler may use (0: every host) */
}

static fl_err fl_workflow_check(const fl_scenario *sc)
{
  const fl_workflow_opts *o = fl_workflow_options(sc);
  if (fl_workflow_graph_generated(sc))
    return FL_OK;
  if (!o->graph)
    return fl_scenario_fail(sc, "app", "graph", "a workflow needs its task graph (.json, .dax or .dot, or gridworld)");
  return fl_app_check_input(sc, "graph", o->graph, "workflow file");
}

static int fl_workflow_inputs(const fl_scenario *sc, fl_input_ref *refs)
{
  int n = 0;
  if (!fl_workflow_graph_generated(sc))
    refs[n++] = (fl_input_ref){"app.graph", fl_workflow_options(sc)->graph};
  refs[n++] = (fl_input_ref){"app.substitutes", fl_workflow_options(sc)->substitutes};
  return n;
}

/* app.graph = gridworld: the grid world's own keys (discount, move probability, task time) are the graph's. */
static int fl_workflow_reads(const fl_scenario *sc, const fl_keyset *set)
{
  return set == &fl_gridworld_keys && fl_workflow_graph_generated(sc);
}

const fl_app fl_app_workflow = {
    .name = "workflow",
    .summary = "a task graph (WfCommons JSON, Pegasus DAX, DOT) scheduled by HEFT on the platform's hosts "
               "(sim/run_workflow.c)",
    .flags = FL_APP_SIM | FL_APP_CM02,
    .size_key = "nodes",
    .unit = "hosts",
    .example =
        "[platform]\nnodes = 8\n[failures]\nnode_mtbf = 1h\n[app]\nkind = workflow\ngraph = gridworld\ngrid = 3x3\n"
        "iterations = 4\ntask_time = 1s\n[strategy]\nkind = replication\n",
    .job_slots = fl_workflow_slots,
    .check = fl_workflow_check,
    .inputs = fl_workflow_inputs,
    .options = &fl_workflow_keys,
    .reads = fl_workflow_reads,
};
