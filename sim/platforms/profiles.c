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
  for (size_t i = 0; i < p->nspeed; i++) {
    free(p->speed[i].host);
    free(p->speed[i].t);
    free(p->speed[i].v);
  }
  free(p->speed);
  for (size_t i = 0; i < p->nlink; i++) {
    free(p->link[i].host);
    free(p->link[i].t);
    free(p->link[i].v);
  }
  free(p->link);
  free(p->link_latency);
  for (size_t i = 0; i < p->nlink_state; i++)
    fl_host_profile_free(&p->link_state[i]);
  free(p->link_state);
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

/* The "DATE VALUE" lines of a SimGrid profile, and its LOOPAFTER delay (< 0: none); *date and *value malloc'ed
 * (freed on error too). */
static fl_err fl_profile_lex(const char *text, const char *label, double **pdate, double **pvalue, size_t *pn,
                             double *ploop)
{
  fl_err rc = FL_OK;
  double *date = NULL, *value = NULL, loop = -1.0;
  size_t n = 0, cap = 0;
  int line = 0;
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
    if (sscanf(buf, " %lf %lf %n", &d, &v, &used) != 2 || buf[used] != '\0' || !isfinite(d) || !isfinite(v) || d < 0 ||
        (n > 0 && d < date[n - 1])) {
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
done:
  if (rc != FL_OK) {
    free(date);
    free(value);
    date = value = NULL;
    n = 0;
  }
  *pdate = date;
  *pvalue = value;
  *pn = n;
  *ploop = loop;
  return rc;
}

fl_err fl_profiles_parse_state(const char *text, const char *label, fl_host_profile *hp)
{
  fl_err rc = FL_OK;
  double *date = NULL, *value = NULL, loop = -1.0, off_at = NAN;
  size_t n = 0;
  int plays;

  FL_TRY(fl_profile_lex(text, label, &date, &value, &n, &loop));
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

/* A profile of values (a host's speed fraction, a link's bandwidth or latency): its lines, each value checked
 * (above 0, or from 0 with zero_ok, else `why`), the value before its first date, its period. */
static fl_err fl_profile_values(const char *text, const char *label, double initial, int zero_ok, const char *why,
                                fl_host_speed *hs)
{
  fl_err rc = FL_OK;
  double loop;
  FL_TRY(fl_profile_lex(text, label, &hs->t, &hs->v, &hs->n, &loop));
  hs->initial = initial;
  for (size_t i = 0; i < hs->n; i++)
    FL_CHECK(zero_ok ? hs->v[i] >= 0 : hs->v[i] > 0, FL_ERR_INPUT, "%s: '%g %g': %s", label, hs->t[i], hs->v[i], why);
  hs->period = INFINITY;
  if (hs->n > 0 && loop >= 0) {
    hs->period = hs->t[hs->n - 1] + loop;
    FL_CHECK(hs->period > 0, FL_ERR_INPUT, "%s: a looping profile must span some time", label);
  }
done:
  return rc;
}

fl_err fl_profiles_parse_speed(const char *text, const char *label, fl_host_speed *hs)
{
  return fl_profile_values(text, label, 1.0, 0,
                           "a speed must be above 0 (a host that stops is an outage: give it a state_file)", hs);
}

/* A link's bandwidth or latency profile: absolute values (SimGrid's examples/platforms/profiles/link1_bandwidth.profile
 * gives 2 and 3 MB/s for a 1 MBps link), bandwidths above 0, latencies from 0; before the first date the link's
 * declared value (NAN here). */
static fl_err fl_profiles_parse_link(const char *text, const char *label, int latency, fl_host_speed *hs)
{
  return fl_profile_values(text, label, NAN, latency,
                           latency ? "a latency must be 0 or more seconds" : "a bandwidth must be above 0 bytes/s", hs);
}

size_t fl_profile_index_at(const fl_host_speed *hs, double t, double *next)
{
  double base = 0.0, tau = t;
  size_t i;
  *next = INFINITY;
  if (hs->n == 0)
    return 0;
  if (isfinite(hs->period) && t >= hs->period) {
    double k = floor(t / hs->period);
    base = k * hs->period;
    tau = t - base;
    if (tau < hs->t[0]) { /* a later play before its first date: the last value holds */
      *next = base + hs->t[0];
      return hs->n;
    }
  }
  if (tau < hs->t[0]) {
    *next = hs->t[0];
    return 0;
  }
  /* the last date at or before tau (few dates: a linear scan) */
  for (i = 0; i + 1 < hs->n && hs->t[i + 1] <= tau; i++)
    ;
  if (i + 1 < hs->n)
    *next = base + hs->t[i + 1];
  else if (isfinite(hs->period))
    *next = base + hs->period + hs->t[0];
  return i + 1;
}

double fl_host_speed_at(const fl_host_speed *hs, double t, double *next)
{
  size_t k = fl_profile_index_at(hs, t, next);
  return k == 0 ? hs->initial : hs->v[k - 1];
}

static fl_err fl_read_text(const char *path, char **text)
{
  fl_err rc = FL_OK;
  const char *why;
  FILE *f = fl_input_fopen(path, &why);
  long len;
  *text = NULL;
  FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: %s", path, why);
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

/* A host's state_file or speed_file (`abs`, its absolute path), read into *out. */
static fl_err fl_host_profile_read(xmlNode *n, const char *file, const char *attr, const char *abs, fl_profiles *out)
{
  fl_err rc = FL_OK;
  int speed = strcmp(attr, "speed_file") == 0;
  int link = strcmp((const char *)n->name, "link") == 0;
  xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
  char *text = NULL, **host;
  FL_CHECK(id != NULL, FL_ERR_INPUT, "%s:%ld: a <%s> without id", file, (long)xmlGetLineNo(n), (const char *)n->name);
  if (link && strcmp(attr, "state_file") == 0) {
    fl_host_profile *grown = realloc(out->link_state, (out->nlink_state + 1) * sizeof *grown);
    FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
    out->link_state = grown;
    memset(&out->link_state[out->nlink_state], 0, sizeof *grown);
    host = &out->link_state[out->nlink_state++].host;
    speed = -1; /* a link's outages */
  } else if (link) {
    fl_host_speed *grown = realloc(out->link, (out->nlink + 1) * sizeof *grown);
    int *lat;
    FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
    out->link = grown;
    lat = realloc(out->link_latency, (out->nlink + 1) * sizeof *lat);
    FL_CHECK(lat != NULL, FL_ERR_NOMEM, "out of memory");
    out->link_latency = lat;
    memset(&out->link[out->nlink], 0, sizeof *grown);
    out->link_latency[out->nlink] = strcmp(attr, "latency_file") == 0;
    host = &out->link[out->nlink++].host;
  } else if (speed) {
    fl_host_speed *grown = realloc(out->speed, (out->nspeed + 1) * sizeof *grown);
    FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
    out->speed = grown;
    memset(&out->speed[out->nspeed], 0, sizeof *grown);
    host = &out->speed[out->nspeed++].host;
  } else {
    fl_host_profile *grown = realloc(out->v, (out->n + 1) * sizeof *grown);
    FL_CHECK(grown != NULL, FL_ERR_NOMEM, "out of memory");
    out->v = grown;
    memset(&out->v[out->n], 0, sizeof *grown);
    host = &out->v[out->n++].host;
  }
  *host = strdup((const char *)id);
  rc = *host ? fl_read_text(abs, &text) : fl_err_set(FL_ERR_NOMEM, "out of memory");
  if (speed < 0 && rc == FL_OK)
    rc = fl_profiles_parse_state(text, abs, &out->link_state[out->nlink_state - 1]);
  else if (link && rc == FL_OK)
    rc = fl_profiles_parse_link(text, abs, out->link_latency[out->nlink - 1], &out->link[out->nlink - 1]);
  else if (rc == FL_OK)
    rc = speed ? fl_profiles_parse_speed(text, abs, &out->speed[out->nspeed - 1])
               : fl_profiles_parse_state(text, abs, &out->v[out->n - 1]);
  if (rc != FL_OK) { /* where the platform names it, then what is wrong in it */
    char why[512];
    snprintf(why, sizeof why, "%s", fl_err_msg());
    rc = fl_err_set(rc == FL_ERR_NOMEM ? FL_ERR_NOMEM : FL_ERR_INPUT, "%s:%ld: %s '%s' %s: %s", file,
                    (long)xmlGetLineNo(n), (const char *)n->name, (const char *)id, attr, why);
  }
done:
  xmlFree(id);
  free(text);
  return rc;
}

/* Every element: state_file and (take_speed) speed_file of a host read and removed (faultline plays them, not
 * SimGrid); other
 * *_file attributes and <include file> made absolute. */
static fl_err fl_walk(xmlNode *node, const char *file, int take_speed, fl_profiles *out)
{
  fl_err rc = FL_OK;
  for (xmlNode *n = node; n; n = n->next) {
    xmlAttr *taken[3];
    int ntaken = 0;
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp((const char *)n->name, "trace") == 0)
      out->kept++;
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
      abs = val ? fl_input_resolve(file, (const char *)val) : NULL;
      xmlFree(val);
      FL_CHECK(abs != NULL, FL_ERR_NOMEM, "out of memory");
      xmlSetProp(n, a->name, (const xmlChar *)abs);
      if (ntaken < 3 &&
          ((strcmp((const char *)n->name, "host") == 0 &&
            (strcmp(an, "state_file") == 0 || (take_speed && strcmp(an, "speed_file") == 0))) ||
           (take_speed && strcmp((const char *)n->name, "link") == 0 &&
            (strcmp(an, "bandwidth_file") == 0 || strcmp(an, "latency_file") == 0 || strcmp(an, "state_file") == 0)))) {
        rc = fl_host_profile_read(n, file, an, abs, out);
        taken[ntaken++] = a;
      } else {
        out->kept++; /* SimGrid plays it (or an included file, which may have profiles of its own) */
      }
      free(abs);
      if (rc != FL_OK)
        goto done;
    }
    for (int k = 0; k < ntaken; k++)
      xmlRemoveProp(taken[k]);
    FL_TRY(fl_walk(n->children, file, take_speed, out));
  }
done:
  return rc;
}

fl_err fl_profiles_prepare(const char *file, int take_speed, char **load_path, int *fd, fl_profiles *out)
{
  fl_err rc = FL_OK;
  xmlDoc *doc = NULL;
  FILE *f = NULL;

  memset(out, 0, sizeof *out);
  *fd = -1;
  *load_path = NULL;
  if (!fl_file_mentions(file, fl_profile_attrs, take_speed ? 4 : 1)) {
    /* no profile: SimGrid loads the file itself, and no XML tree is built (a million hosts would cost more than
     * SimGrid's own load); anything SimGrid might play is counted as kept (any *_file, <trace>, an included file) */
    static const char *const kept[] = {"_file", "<trace", "<include"};
    out->kept = fl_file_mentions(file, kept, 3) != 0;
    *load_path = strdup(file);
    FL_CHECK(*load_path != NULL, FL_ERR_NOMEM, "out of memory");
    goto done;
  }
  doc = fl_xml_read_file(file);
  if (!doc) {
    const xmlError *e = xmlGetLastError();
    rc = fl_err_set(FL_ERR_INPUT, "%s:%d: not well-formed XML: %s", file, e ? e->line : 0,
                    e && e->message ? strtok(e->message, "\n") : "unreadable");
    goto done;
  }
  FL_TRY(fl_walk(xmlDocGetRootElement(doc), file, take_speed, out));
  if (out->n == 0 && out->nspeed == 0 && out->nlink == 0 && out->nlink_state == 0) {
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
