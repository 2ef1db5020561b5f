/* inputs.c — see inputs.h. xxHash's streaming XXH64 over the file, read once: the text of a small file is kept
 * from the same read, so the stored copy and the hash always agree. */
#define _GNU_SOURCE /* realpath, memmem */
#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static fl_err fl_input_read(const char *key, const char *path, fl_input *in)
{
  fl_err rc = FL_OK;
  FILE *f = NULL;
  XXH64_state_t *st = NULL;
  const char *why;
  char buf[65536];
  size_t n, have = 0, cap = 0;

  memset(in, 0, sizeof *in);
  in->key = key;
  in->path = realpath(path, NULL); /* stored absolute: the row says which file, wherever rerun runs */
  if (!in->path) {
    FL_CHECK((in->path = malloc(strlen(path) + 1)) != NULL, FL_ERR_NOMEM, "out of memory");
    strcpy(in->path, path);
  }
  f = fl_input_fopen(path, &why);
  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, why);
  FL_CHECK((st = XXH64_createState()) != NULL, FL_ERR_NOMEM, "out of memory");
  XXH64_reset(st, 0);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    XXH64_update(st, buf, n);
    if (have + n <= FL_INPUT_TEXT_MAX) {
      if (have + n + 1 > cap) {
        char *g = realloc(in->text, (cap = have + n + 1));
        FL_CHECK(g != NULL, FL_ERR_NOMEM, "out of memory");
        in->text = g;
      }
      memcpy(in->text + have, buf, n);
      in->text[have + n] = '\0';
    } else {
      free(in->text);
      in->text = NULL;
    }
    have += n;
  }
  FL_CHECK(!ferror(f), FL_ERR_INPUT, "%s %s: %s", key, path, strerror(errno));
  in->size = (long)have;
  in->xxh64 = XXH64_digest(st);
  if (have == 0 && !in->text)
    FL_CHECK((in->text = calloc(1, 1)) != NULL, FL_ERR_NOMEM, "out of memory");
  if (have > FL_INPUT_TEXT_MAX) {
    free(in->text);
    in->text = NULL;
  }
done:
  if (st)
    XXH64_freeState(st);
  if (f)
    fclose(f);
  return rc;
}


static void fl_xml_silent(void *ctx, xmlErrorPtr e)
{
  (void)ctx;
  (void)e;
}

/* what libxml2 prints itself ("xmlParseChunk: encoder error") */
static void fl_xml_silent_text(void *ctx, const char *fmt, ...)
{
  (void)ctx;
  (void)fmt;
}

void fl_xml_quiet(void)
{
  xmlSetStructuredErrorFunc(NULL, fl_xml_silent);
  xmlSetGenericErrorFunc(NULL, fl_xml_silent_text);
}

xmlDoc *fl_xml_read_file(const char *path)
{
  fl_xml_quiet();
  return xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

/* The profiles a platform file names (<host state_file="..."> or speed_file, <link bandwidth_file="..."> or
 * latency_file), and the files of its <trace> elements (SimGrid's older way to the same profiles), resolved against
 * its directory: the simulator plays them as failures, slowdowns and checkpoint costs, so they are inputs of the row
 * too; (*kind)[i] indexes fl_profile_keys. A file that is not XML has none here (loading it reports that). */
const char *const fl_profile_attrs[4] = {"state_file", "speed_file", "bandwidth_file", "latency_file"};
static const char *const fl_profile_keys[] = {"platform.state_file", "platform.speed_file", "platform.bandwidth_file",
                                              "platform.latency_file", "platform.trace_file"};
static fl_err fl_inputs_profiles(const char *xml, char ***paths, int **kind, long **line, int *n)
{
  fl_err rc = FL_OK;
  xmlDoc *doc = fl_xml_read_file(xml);
  xmlXPathContext *ctx = NULL;
  xmlXPathObject *hits = NULL;

  *paths = NULL;
  *kind = NULL;
  *line = NULL;
  *n = 0;
  if (!doc)
    goto done;
  FL_CHECK((ctx = xmlXPathNewContext(doc)) != NULL, FL_ERR_NOMEM, "out of memory");
  hits = xmlXPathEvalExpression(
      (const xmlChar *)"//host/@state_file | //host/@speed_file | //link/@bandwidth_file | //link/@latency_file | "
                       "//link/@state_file | //trace/@file",
      ctx);
  if (!hits || !hits->nodesetval || hits->nodesetval->nodeNr == 0)
    goto done;
  FL_ALLOC(*paths, hits->nodesetval->nodeNr);
  FL_ALLOC(*kind, hits->nodesetval->nodeNr);
  FL_ALLOC(*line, hits->nodesetval->nodeNr);
  for (int i = 0; i < hits->nodesetval->nodeNr; i++) {
    xmlChar *val = xmlNodeGetContent(hits->nodesetval->nodeTab[i]);
    char *p = val ? fl_input_resolve(xml, (const char *)val) : NULL;
    xmlFree(val);
    FL_CHECK(p != NULL, FL_ERR_NOMEM, "out of memory");
    (*kind)[*n] = 4; /* <trace file> */
    for (int k = 0; k < 4; k++)
      if (strcmp((const char *)hits->nodesetval->nodeTab[i]->name, fl_profile_keys[k] + 9) == 0)
        (*kind)[*n] = k;
    (*line)[*n] = xmlGetLineNo(hits->nodesetval->nodeTab[i]->parent);
    (*paths)[(*n)++] = p;
  }
done:
  if (hits)
    xmlXPathFreeObject(hits);
  if (ctx)
    xmlXPathFreeContext(ctx);
  if (doc)
    xmlFreeDoc(doc);
  return rc;
}

fl_err fl_inputs_collect(const fl_scenario *sc, const fl_input_ref *app, int napp, fl_input **v, int *n)
{
  fl_err rc = FL_OK;
  enum { NOWN = 1, NMAX = NOWN + 8 };
  const char *keys[NMAX] = {"platform.file"};
  const char *rel[NMAX] = {sc->platform_file};
  int nkeys = NOWN;
  char *path = NULL, *xml = NULL, **profiles = NULL, why[1024];
  int nprofiles = 0, *speed = NULL;
  long *line = NULL;

  *v = NULL;
  *n = 0;
  FL_CHECK(napp <= NMAX - NOWN, FL_ERR_INPUT, "at most %d input files of an app", NMAX - NOWN);
  for (int k = 0; k < napp; k++, nkeys++) {
    keys[nkeys] = app[k].key;
    rel[nkeys] = app[k].rel;
  }
  if (sc->platform_file && sc->platform_file[0]) {
    const char *scan[5] = {fl_profile_attrs[0], fl_profile_attrs[1], fl_profile_attrs[2], fl_profile_attrs[3],
                           "<trace"};
    FL_CHECK((xml = fl_scenario_resolve(sc, sc->platform_file)) != NULL, FL_ERR_NOMEM, "out of memory");
    /* a scan of the bytes first: no XML tree for a million hosts */
    if (fl_file_mentions(xml, scan, 5))
      FL_TRY(fl_inputs_profiles(xml, &profiles, &speed, &line, &nprofiles));
  }
  FL_ALLOC(*v, nkeys + nprofiles);
  for (int k = 0; k < nkeys; k++) {
    char section[16];
    if (!rel[k] || !rel[k][0])
      continue;
    FL_CHECK((path = fl_scenario_resolve(sc, rel[k])) != NULL, FL_ERR_NOMEM, "out of memory");
    if ((rc = fl_input_read(keys[k], path, &(*v)[*n])) != FL_OK) {
      /* where the scenario names the file, then what is wrong with it */
      snprintf(why, sizeof why, "%s", fl_err_msg());
      snprintf(section, sizeof section, "%.*s", (int)(strchr(keys[k], '.') - keys[k]), keys[k]);
      if (rc == FL_ERR_INPUT)
        rc = fl_scenario_fail(sc, section, strchr(keys[k], '.') + 1, "%s", why);
      goto done;
    }
    (*n)++;
    free(path);
    path = NULL;
  }
  for (int k = 0; k < nprofiles; k++) {
    if ((rc = fl_input_read(fl_profile_keys[speed[k]], profiles[k], &(*v)[*n])) != FL_OK) {
      /* where the platform names the profile */
      snprintf(why, sizeof why, "%s", fl_err_msg());
      if (rc == FL_ERR_INPUT)
        rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: %s: %s", xml, line[k],
                        speed[k] < 4 ? fl_profile_attrs[speed[k]] : "trace file", why);
      goto done;
    }
    (*n)++;
  }
done:
  free(path);
  free(xml);
  for (int k = 0; k < nprofiles; k++)
    free(profiles[k]);
  free(profiles);
  free(speed);
  free(line);
  if (rc != FL_OK) {
    fl_inputs_free(v, *n + 1);
    *n = 0;
  }
  return rc;
}

void fl_inputs_free(fl_input **v, int n)
{
  if (!v || !*v)
    return;
  for (int k = 0; k < n; k++) {
    free((*v)[k].path);
    free((*v)[k].text);
  }
  free(*v);
  *v = NULL;
}

char *fl_inputs_format(const fl_input *v, int n)
{
  size_t len = 1;
  char *s, *p;
  for (int k = 0; k < n; k++)
    len += strlen(v[k].key) + strlen(v[k].path) + 48;
  if (!(s = malloc(len)))
    return NULL;
  p = s;
  *p = '\0';
  for (int k = 0; k < n; k++)
    p += sprintf(p, "%s\t%s\t%ld\t%016" PRIx64 "\n", v[k].key, v[k].path, v[k].size, v[k].xxh64);
  return s;
}
