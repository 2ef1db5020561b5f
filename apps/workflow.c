/* workflow.c — task graphs: the builder that checks and indexes what a graph reader collected (tasks, parent
 * references, file uses), the choice of reader (workflow_readers/: one file per format, registered in
 * FL_WF_READERS), the grid world as a graph, and the substitution relation (see workflow.h). */
#define _XOPEN_SOURCE 700 /* strdup */
#include "workflow.h"

#include "app.h"
#include "gridworld_keys.h"
#include "inputs.h"
#include "units.h"
#include "workflow_impl.h"
#include "workflow_keys.h"

#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the builder ---- */

char *fl_wf_strdup(const char *s)
{
  return strdup(s ? s : "");
}

/* The stage of a task without one: its name without trailing digits, underscores and dashes. */
char *fl_wf_stage_of(const char *name)
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
char *fl_wf_stage_wfcommons(const char *name)
{
  const char *us = strchr(name, '_');
  if (!us || us == name)
    return fl_wf_stage_of(name);
  return strndup(name, (size_t)(us - name));
}

fl_err fl_wfb_task(fl_wfb *b, const char *name, const char *stage, double flops, int line, long *id)
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

fl_err fl_wfb_ref(fl_wfb *b, long child, const char *child_name, const char *parent, int line)
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

fl_err fl_wfb_use(fl_wfb *b, long task, const char *file, double size, int out)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_grow((void **)&b->use, &b->cap_use, b->nuse + 1, sizeof *b->use));
  b->use[b->nuse] = (fl_wf_use){.file = fl_wf_strdup(file), .task = task, .size = size, .out = out};
  FL_CHECK(b->use[b->nuse].file != NULL, FL_ERR_NOMEM, "out of memory");
  b->nuse++;
done:
  return rc;
}

fl_err fl_wfb_edge(fl_wfb *b, long src, long dst, double bytes, long file)
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
/* Task names are unique (sorted into wf->by_name for lookups), and each parent named by a task (DAX's <child>, YAML's
 * jobDependencies) is one: an edge each. */
static fl_err fl_wfb_names_refs(fl_wfb *b)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  long n = wf->ntasks;
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
done:
  return rc;
}

/* Files: the producer of each file (its first writer) sends it to every reader; a file nobody writes is staged
 * (numbered in file order, each reader's uses counted in staged_start, then listed). */
static fl_err fl_wfb_files(fl_wfb *b)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  long n = wf->ntasks;
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
done:
  return rc;
}

/* Data twins: edges from one task that carry the same files (B and C both read A's f) carry one copy of the data —
 * a transfer to a host where a twin is, or is going, is not made again. Each edge's files (sorted, control
 * dependencies left out), then each task's out-edges sorted by them: equal neighbours are twins, numbered by the
 * first of them. Edges with no file (DOT graphs, control dependencies) have none. order: the raw edges sorted by
 * (src, dst), as merged. */
static fl_err fl_wfb_twins(fl_wfb *b, const long *order)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  long n = wf->ntasks, *fstart = NULL, *files = NULL, *group = NULL;
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
done:
  free(fstart);
  free(files);
  free(group);
  return rc;
}

static fl_err fl_wfb_finish(fl_wfb *b)
{
  fl_err rc = FL_OK;
  fl_wf *wf = b->wf;
  long n = wf->ntasks, *order = NULL, *indeg = NULL, *queue = NULL, head = 0, tail = 0;

  FL_CHECK(n > 0, FL_ERR_INPUT, "%s: the workflow has no task", wf->path);
  FL_TRY(fl_wfb_names_refs(b));
  FL_TRY(fl_wfb_files(b));
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
  FL_TRY(fl_wfb_twins(b, order));
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

/* ---- app.task_runtime (the DAX and YAML readers' fallback runtimes) ---- */

/* app.task_runtime: the runtime of a job of transformation `tr` whose file gives none; NAN when the spec has none
 * for it. *bad gets the offending term of a malformed spec (NULL when it is well formed). */
double fl_wf_runtime_for(const char *spec, const char *tr, char *bad, size_t badsize)
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

/* The graph readers (workflow_readers/), in the order their probes are asked. */
#define FL_WF_READER_ENTRY(name) &fl_wf_reader_##name,
static const fl_wf_reader *const fl_wf_readers[] = {FL_WF_READERS(FL_WF_READER_ENTRY)};
#undef FL_WF_READER_ENTRY
#define FL_WF_NREADERS (sizeof fl_wf_readers / sizeof fl_wf_readers[0])

/* What a graph file holds, from its first bytes (each reader's probe, in order); NULL when the content does not say
 * (comments first, say): then the extension decides. */
static const fl_wf_reader *fl_wf_sniff(FILE *f)
{
  char buf[4096];
  size_t n = fread(buf, 1, sizeof buf - 1, f), i = 0;
  buf[n] = '\0';
  if (n >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB && (unsigned char)buf[2] == 0xBF)
    i = 3; /* a UTF-8 byte order mark */
  while (i < n && isspace((unsigned char)buf[i]))
    i++;
  for (size_t r = 0; r < FL_WF_NREADERS; r++)
    if (fl_wf_readers[r]->probe(buf + i))
      return fl_wf_readers[r];
  return NULL;
}

static const fl_wf_reader *fl_wf_by_ext(const char *ext)
{
  for (size_t r = 0; r < FL_WF_NREADERS; r++)
    for (const char *const *e = fl_wf_readers[r]->exts; *e; e++)
      if (strcmp(ext, *e) == 0)
        return fl_wf_readers[r];
  return NULL;
}

fl_err fl_wf_load_runtimes(const char *path, double reference_speed, const char *task_runtime, fl_wf **out)
{
  fl_err rc = FL_OK;
  fl_wfb b;
  fl_wf *wf = NULL;
  const char *ext = fl_ext(path);
  FILE *probe;
  const char *why;
  const fl_wf_reader *reader;
  char known[256] = "";

  *out = NULL;
  memset(&b, 0, sizeof b);
  FL_CHECK(reference_speed > 0, FL_ERR_INPUT, "%s: reference speed %g: must be positive", path, reference_speed);
  probe = fl_input_fopen(path, &why);
  FL_CHECK(probe != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  reader = fl_wf_sniff(probe); /* the content decides; the extension only where the first bytes do not say */
  fclose(probe);
  if (!reader)
    reader = fl_wf_by_ext(ext);
  for (size_t r = 0; r < FL_WF_NREADERS; r++)
    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", r ? ", " : "", fl_wf_readers[r]->name);
  FL_CHECK(reader != NULL, FL_ERR_INPUT,
           "%s: unknown workflow format (content not JSON, XML, YAML or DOT, extension '.%s'; known: %s)", path, ext,
           known);
  FL_TRY(fl_wf_new(path, &wf, &b));
  FL_TRY(reader->read(&b, path, reference_speed, task_runtime));
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

/* app.graph = gridworld: the grid world's own keys (discount, move probability, task time) and the grid's (grid,
 * iterations, tolerance) are the graph's. */
static int fl_workflow_reads(const fl_scenario *sc, const char *key)
{
  const char *dot = strchr(key, '.');
  char section[32];
  if (!dot || (size_t)(dot - key) >= sizeof section || !fl_workflow_graph_generated(sc))
    return 0;
  snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
  return fl_app_reads(&fl_app_gridworld, sc, section, dot + 1);
}

const fl_app fl_app_workflow = {
    .name = "workflow",
    .summary = "a task graph (WfCommons JSON, Pegasus DAX, DOT) scheduled by HEFT on the platform's hosts "
               "(sim/workflow/)",
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
    .core_keys = "nodes",
    .reads = fl_workflow_reads,
};
