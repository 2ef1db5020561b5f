/* profiles.c — host availability profiles read, not left to SimGrid (see profiles.h). */
#define _DEFAULT_SOURCE /* mkstemp, realpath */
#include "profiles.h"

#include "inputs.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fl_host_profile_free(fl_host_profile *h)
{
  free(h->host);
  free(h->first_t);
  free(h->first_dur);
  free(h->steady_t);
  free(h->steady_dur);
  memset(h, 0, sizeof *h);
}

void fl_profiles_free(fl_profiles *p)
{
  for (size_t i = 0; i < p->n; i++)
    fl_host_profile_free(&p->v[i]);
  free(p->v);
  memset(p, 0, sizeof *p);
}

const fl_host_profile *fl_profiles_find(const fl_profiles *p, const char *host)
{
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->v[i].host, host) == 0)
      return &p->v[i];
  return NULL;
}

static fl_err fl_append(double **t, double **dur, size_t *n, double tv, double dv)
{
  fl_err rc = FL_OK;
  double *gt = realloc(*t, (*n + 1) * sizeof *gt), *gd;
  FL_CHECK(gt != NULL, FL_ERR_NOMEM, "out of memory");
  *t = gt;
  gd = realloc(*dur, (*n + 1) * sizeof *gd);
  FL_CHECK(gd != NULL, FL_ERR_NOMEM, "out of memory");
  *dur = gd;
  (*t)[*n] = tv;
  (*dur)[*n] = dv;
  (*n)++;
done:
  return rc;
}

/* An outage [start, end) found while playing: into the list of the play it starts in. */
static fl_err fl_file_outage(fl_host_profile *hp, double start, double end)
{
  double dur = isfinite(end) ? end - start : INFINITY;
  if (!isfinite(hp->period) || start < hp->period)
    return fl_append(&hp->first_t, &hp->first_dur, &hp->nfirst, start, dur);
  if (start < 2 * hp->period)
    return fl_append(&hp->steady_t, &hp->steady_dur, &hp->nsteady, start - hp->period, dur);
  return FL_OK; /* the third play only closes what the second opened */
}

fl_err fl_profiles_parse_state(const char *text, const char *label, fl_host_profile *hp)
{
  fl_err rc = FL_OK;
  double *date = NULL, *value = NULL, loop = -1.0, off_at = NAN;
  size_t n = 0, cap = 0;
  int line = 0, plays;
  const char *p = text;

  while (*p) {
    char buf[256], word[32];
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    double d, v;
    int used = 0;
    line++;
    if (len >= sizeof buf) {
      rc = fl_err_set(FL_ERR_INPUT, "%s:%d: line too long", label, line);
      goto done;
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    p = e ? e + 1 : p + len;
    if (strchr(buf, '#'))
      *strchr(buf, '#') = '\0';
    if (sscanf(buf, " %31s", word) != 1)
      continue; /* blank */
    if (strcmp(word, "LOOPAFTER") == 0 || strcmp(word, "PERIODICITY") == 0) {
      if (sscanf(buf, " %*s %lf %n", &loop, &used) != 1 || buf[used] != '\0' || !(loop >= 0) || !isfinite(loop)) {
        rc = fl_err_set(FL_ERR_INPUT, "%s:%d: '%s': expected %s and a delay >= 0", label, line, buf, word);
        goto done;
      }
      continue;
    }
    if (sscanf(buf, " %lf %lf %n", &d, &v, &used) != 2 || buf[used] != '\0' || !isfinite(d) || !isfinite(v) ||
        d < 0 || (n > 0 && d < date[n - 1])) {
      rc = fl_err_set(FL_ERR_INPUT, "%s:%d: '%s': expected DATE VALUE, dates from 0 and never decreasing", label, line,
                      buf);
      goto done;
    }
    if (n == cap) {
      double *gd, *gv;
      cap = cap ? 2 * cap : 16;
      gd = realloc(date, cap * sizeof *gd);
      FL_CHECK(gd != NULL, FL_ERR_NOMEM, "out of memory reading %s", label);
      date = gd;
      gv = realloc(value, cap * sizeof *gv);
      FL_CHECK(gv != NULL, FL_ERR_NOMEM, "out of memory reading %s", label);
      value = gv;
    }
    date[n] = d;
    value[n] = v;
    n++;
  }
  hp->period = INFINITY;
  if (n == 0)
    goto done;
  if (loop >= 0) {
    hp->period = date[n - 1] + loop;
    FL_CHECK(hp->period > 0, FL_ERR_INPUT, "%s: a looping profile must span some time", label);
  }
  /* play once, or three times when looping (the second play is every later one; the third closes its outages) */
  plays = isfinite(hp->period) ? 3 : 1;
  for (int k = 0; k < plays; k++) {
    double base = isfinite(hp->period) ? k * hp->period : 0.0;
    for (size_t i = 0; i < n; i++) {
      double t = base + date[i];
      if (value[i] == 0.0 && isnan(off_at)) {
        off_at = t;
      } else if (value[i] != 0.0 && !isnan(off_at)) {
        if (t > off_at)
          FL_TRY(fl_file_outage(hp, off_at, t));
        off_at = NAN;
      }
    }
  }
  if (!isnan(off_at)) /* still off: for good (a looping profile off through two whole plays never comes back) */
    FL_TRY(fl_file_outage(hp, off_at, INFINITY));
done:
  free(date);
  free(value);
  return rc;
}

/* `rel` against the directory of `file`, absolute (caller frees). */
static char *fl_resolve_against(const char *file, const char *rel)
{
  const char *slash = strrchr(file, '/');
  size_t dl = slash ? (size_t)(slash - file) : 1;
  char *out;
  if (rel[0] == '/')
    return strdup(rel);
  out = malloc(dl + strlen(rel) + 2);
  if (!out)
    return NULL;
  if (slash)
    memcpy(out, file, dl);
  else
    out[0] = '.';
  out[dl] = '/';
  strcpy(out + dl + 1, rel);
  return out;
}

static fl_err fl_read_text(const char *path, char **text)
{
  fl_err rc = FL_OK;
  FILE *f = fopen(path, "rb");
  long len;
  *text = NULL;
  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, strerror(errno));
  FL_CHECK(fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0, FL_ERR_INPUT,
           "%s: cannot read", path);
  FL_CHECK(len <= 64L * 1024 * 1024, FL_ERR_INPUT, "%s: %ld bytes: a profile is at most 64 MiB", path, len);
  FL_ALLOC(*text, (size_t)len + 1);
  FL_CHECK(fread(*text, 1, (size_t)len, f) == (size_t)len, FL_ERR_INPUT, "%s: cannot read", path);
  (*text)[len] = '\0';
done:
  if (f)
    fclose(f);
  if (rc != FL_OK) {
    free(*text);
    *text = NULL;
  }
  return rc;
}

/* Every element: state_file of a host read and removed; other *_file attributes and <include file> made absolute. */
static fl_err fl_walk(xmlNode *node, const char *file, fl_profiles *out)
{
  fl_err rc = FL_OK;
  for (xmlNode *n = node; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    for (xmlAttr *a = n->properties; a; a = a->next) {
      const char *an = (const char *)a->name;
      size_t al = strlen(an);
      xmlChar *val;
      char *abs;
      int is_file = (al > 5 && strcmp(an + al - 5, "_file") == 0) ||
                    (strcmp((const char *)n->name, "include") == 0 && strcmp(an, "file") == 0);
      if (!is_file)
        continue;
      val = xmlNodeGetContent((xmlNode *)a);
      abs = val ? fl_resolve_against(file, (const char *)val) : NULL;
      xmlFree(val);
      FL_CHECK(abs != NULL, FL_ERR_NOMEM, "out of memory");
      xmlSetProp(n, a->name, (const xmlChar *)abs);
      if (strcmp((const char *)n->name, "host") == 0 && strcmp(an, "state_file") == 0) {
        xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
        char *text = NULL;
        fl_host_profile *grown, *hp;
        if (!id) {
          free(abs);
          rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: a <host> without id", file, (long)xmlGetLineNo(n));
          goto done;
        }
        grown = realloc(out->v, (out->n + 1) * sizeof *grown);
        if (!grown) {
          xmlFree(id);
          free(abs);
          rc = fl_err_set(FL_ERR_NOMEM, "out of memory");
          goto done;
        }
        out->v = grown;
        hp = &out->v[out->n++];
        memset(hp, 0, sizeof *hp);
        hp->host = strdup((const char *)id);
        xmlFree(id);
        rc = hp->host ? fl_read_text(abs, &text) : fl_err_set(FL_ERR_NOMEM, "out of memory");
        if (rc == FL_OK)
          rc = fl_profiles_parse_state(text, abs, hp);
        else
          rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: host '%s': state_file: %s", file, (long)xmlGetLineNo(n),
                          hp->host ? hp->host : "?", fl_err_msg());
        free(text);
        free(abs);
        if (rc != FL_OK)
          goto done;
        xmlRemoveProp(a); /* faultline plays it, not SimGrid */
        break;            /* the attribute list changed: this element is done (a host has one state_file) */
      }
      free(abs);
    }
    FL_TRY(fl_walk(n->children, file, out));
  }
done:
  return rc;
}

fl_err fl_profiles_prepare(const char *file, char **load_path, int *fd, fl_profiles *out)
{
  fl_err rc = FL_OK;
  xmlDoc *doc = NULL;
  FILE *f = NULL;

  memset(out, 0, sizeof *out);
  *fd = -1;
  *load_path = NULL;
  if (!fl_file_mentions(file, "state_file")) {
    /* no profile: SimGrid loads the file itself, and no XML tree is built (a million hosts would cost more than
     * SimGrid's own load) */
    *load_path = strdup(file);
    FL_CHECK(*load_path != NULL, FL_ERR_NOMEM, "out of memory");
    goto done;
  }
  doc = xmlReadFile(file, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) {
    const xmlError *e = xmlGetLastError();
    rc = fl_err_set(FL_ERR_INPUT, "%s:%d: not well-formed XML: %s", file, e ? e->line : 0,
                    e && e->message ? strtok(e->message, "\n") : "unreadable");
    goto done;
  }
  FL_TRY(fl_walk(xmlDocGetRootElement(doc), file, out));
  if (out->n == 0) {
    *load_path = strdup(file);
    FL_CHECK(*load_path != NULL, FL_ERR_NOMEM, "out of memory");
    goto done;
  }
  {
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int tfd;
    snprintf(path, sizeof path, "%s/faultline-platform-XXXXXX", dir && *dir ? dir : "/tmp");
    tfd = mkstemp(path);
    FL_CHECK(tfd >= 0, FL_ERR_IO, "cannot create a temporary platform file: %s", strerror(errno));
    unlink(path); /* nothing left behind, however the process ends */
    *fd = tfd;
    f = fdopen(dup(tfd), "w");
    FL_CHECK(f != NULL, FL_ERR_IO, "temporary platform file: %s", strerror(errno));
    FL_CHECK(xmlDocDump(f, doc) >= 0 && fclose(f) == 0, FL_ERR_IO, "cannot write the temporary platform file");
    f = NULL;
    FL_ALLOC(*load_path, 64);
    snprintf(*load_path, 64, "/proc/self/fd/%d", tfd);
  }
done:
  if (f)
    fclose(f);
  if (doc)
    xmlFreeDoc(doc);
  if (rc != FL_OK) {
    if (*fd >= 0)
      close(*fd);
    *fd = -1;
    free(*load_path);
    *load_path = NULL;
    fl_profiles_free(out);
  }
  return rc;
}
