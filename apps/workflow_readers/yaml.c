/* yaml.c — a task graph from a Pegasus 5 YAML abstract workflow (libyaml): jobs, uses, jobDependencies. */
#define _XOPEN_SOURCE 700 /* strdup */
#include "inputs.h"
#include "units.h"
#include "workflow_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

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

/* its top-level `pegasus:` key, on any line of the first bytes */
static int fl_yaml_probe(const char *head)
{
  for (const char *line = head; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp(line, "pegasus:", 8) == 0)
      return 1;
  return 0;
}

static fl_err fl_yaml_read(fl_wfb *b, const char *path, double reference_speed, const char *task_runtime)
{
  b->yaml = 1; /* its errors in its words (jobDependencies, children) */
  return fl_wf_read_yaml(b, path, reference_speed, task_runtime);
}

static const char *const fl_yaml_exts[] = {"yml", "yaml", NULL};
const fl_wf_reader fl_wf_reader_yaml = {"Pegasus 5 YAML", fl_yaml_exts, fl_yaml_probe, fl_yaml_read};
