/* dax.c — a task graph from a Pegasus DAX (libxml2): jobs, their runtimes, files and their sizes, child/parent. */
#define _XOPEN_SOURCE 700 /* strdup */
#include "inputs.h"
#include "units.h"
#include "workflow_impl.h"

#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int fl_dax_probe(const char *head)
{
  return head[0] == '<';
}

static const char *const fl_dax_exts[] = {"dax", "xml", NULL};
const fl_wf_reader fl_wf_reader_dax = {"Pegasus DAX", fl_dax_exts, fl_dax_probe, fl_wf_read_dax};
