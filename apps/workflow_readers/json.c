/* json.c — a task graph from a WfCommons JSON instance (jansson): tasks, runtimes on the reference speed, parents,
 * files. */
#define _XOPEN_SOURCE 700 /* strdup */
#include "inputs.h"
#include "units.h"
#include "workflow_impl.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A task's memory and cores, where its (execution) entry gives them. */
static fl_err fl_json_task_resources(fl_wfb *b, const char *path, const char *name, size_t i, const json_t *et, long id)
{
  fl_err rc = FL_OK;
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
done:
  return rc;
}

/* A task's files: schema 1.5's inputFiles and outputFiles, ids into workflow.specification.files (file_by_id); the
 * older schemas' files list, each with its name, link and size. */
static fl_err fl_json_task_files(fl_wfb *b, const char *path, const char *name, size_t i, const json_t *t, long id,
                                 int v15, const json_t *file_by_id)
{
  fl_err rc = FL_OK;
  json_t *p;
  size_t k;
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
    json_t *fl = json_object_get(t, "files");
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
done:
  return rc;
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
    json_t *parents, *p;
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
    FL_TRY(fl_json_task_resources(b, path, name, i, et, id));
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
    FL_TRY(fl_json_task_files(b, path, name, i, t, id, v15, file_by_id));
  }
done:
  json_decref(exec_by_id);
  json_decref(file_by_id);
  json_decref(root);
  return rc;
}

static int fl_json_probe(const char *head)
{
  return head[0] == '{';
}

static fl_err fl_json_read(fl_wfb *b, const char *path, double reference_speed, const char *task_runtime)
{
  (void)task_runtime;
  return fl_wf_read_json(b, path, reference_speed);
}

static const char *const fl_json_exts[] = {"json", NULL};
const fl_wf_reader fl_wf_reader_json = {"WfCommons JSON", fl_json_exts, fl_json_probe, fl_json_read};
