/* swf.c — the Standard Workload Format reader (swf.h).
 *
 * Lines come through zlib's gzgets, which reads gzip and plain files alike; each job line is split into its 18
 * numbers with strtod. Logs in the archive are sorted by submit time, but edited copies need not be: the jobs are
 * sorted (stably) and the count of out-of-order lines reported, never silently. */
#include "swf.h"

#include "rng.h"

#include <ctype.h>
#include <gsl/gsl_randist.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FL_SWF_FIELDS 18
#define FL_SWF_LINE_MAX 4096

static const char *const fl_swf_field_names[FL_SWF_FIELDS] = {"job number",
                                                              "submit time",
                                                              "wait time",
                                                              "run time",
                                                              "allocated processors",
                                                              "average CPU time",
                                                              "used memory",
                                                              "requested processors",
                                                              "requested time",
                                                              "requested memory",
                                                              "status",
                                                              "user id",
                                                              "group id",
                                                              "executable number",
                                                              "queue number",
                                                              "partition number",
                                                              "preceding job",
                                                              "think time"};

/* A header field `; Key: value` with a whole number; 0 when the line is not that key. */
static long fl_swf_header_long(const char *line, const char *key)
{
  const char *p = line + 1;
  while (*p == ' ' || *p == '\t')
    p++;
  size_t n = strlen(key);
  if (strncmp(p, key, n) != 0 || p[n] != ':')
    return 0;
  char *end;
  errno = 0;
  long v = strtol(p + n + 1, &end, 10);
  if (errno || end == p + n + 1 || v < 0)
    return 0;
  return v;
}

static int fl_swf_cmp(const void *a, const void *b)
{
  const fl_swf_job *x = a, *y = b;
  if (x->submit_s != y->submit_s)
    return x->submit_s < y->submit_s ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line; /* stable: file order */
}

/* Parse one job line into f[]; FL_ERR_INPUT naming the field. */
static fl_err fl_swf_fields(const char *path, long lineno, char *line, double f[FL_SWF_FIELDS])
{
  char *p = line;
  int i = 0;
  for (;;) {
    while (isspace((unsigned char)*p))
      p++;
    if (!*p)
      break;
    char *tok = p;
    while (*p && !isspace((unsigned char)*p))
      p++;
    char save = *p;
    *p = '\0';
    if (i == FL_SWF_FIELDS)
      return fl_err_set(FL_ERR_INPUT, "%s:%ld: '%s' after the %d fields of a job line", path, lineno, tok,
                        FL_SWF_FIELDS);
    char *end;
    errno = 0;
    double v = strtod(tok, &end);
    if (end == tok || *end || errno || !isfinite(v))
      return fl_err_set(FL_ERR_INPUT, "%s:%ld: field %d (%s) '%s': not a number", path, lineno, i + 1,
                        fl_swf_field_names[i], tok);
    f[i++] = v;
    *p = save;
  }
  if (i != FL_SWF_FIELDS)
    return fl_err_set(FL_ERR_INPUT, "%s:%ld: %d field%s, a job line has %d", path, lineno, i, i == 1 ? "" : "s",
                      FL_SWF_FIELDS);
  return FL_OK;
}

fl_err fl_swf_read(const char *path, long cores_per_node, fl_swf **out)
{
  fl_err rc = FL_OK;
  fl_swf *t = NULL;
  gzFile gz = NULL;
  long cap = 0, lineno = 0;
  char line[FL_SWF_LINE_MAX];
  *out = NULL;
  FL_CHECK(cores_per_node >= 1, FL_ERR_INPUT, "app.cores_per_node = %ld: must be at least 1", cores_per_node);
  t = calloc(1, sizeof *t);
  FL_CHECK(t, FL_ERR_NOMEM, "out of memory reading %s", path);
  t->path = strdup(path);
  FL_CHECK(t->path, FL_ERR_NOMEM, "out of memory reading %s", path);
  gz = gzopen(path, "rb");
  FL_CHECK(gz, FL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  double last_submit = -INFINITY;
  while (gzgets(gz, line, sizeof line)) {
    lineno++;
    size_t len = strlen(line);
    FL_CHECK(len < sizeof line - 1 || line[len - 1] == '\n' || gzeof(gz), FL_ERR_INPUT,
             "%s:%ld: line longer than %d characters (not an SWF file?)", path, lineno, FL_SWF_LINE_MAX - 2);
    char *p = line;
    while (isspace((unsigned char)*p))
      p++;
    if (!*p)
      continue;
    if (*p == ';') {
      long v;
      if ((v = fl_swf_header_long(p, "MaxNodes")) > 0)
        t->max_nodes = v;
      if ((v = fl_swf_header_long(p, "MaxProcs")) > 0)
        t->max_procs = v;
      continue;
    }
    double f[FL_SWF_FIELDS];
    FL_TRY(fl_swf_fields(path, lineno, p, f));
    long procs = f[4] > 0 ? (long)f[4] : f[7] > 0 ? (long)f[7] : -1;
    if (f[3] < 0 || procs <= 0) {
      t->skipped++;
      continue;
    }
    FL_CHECK(f[1] >= 0, FL_ERR_INPUT, "%s:%ld: field 2 (submit time) '%g': must not be negative", path, lineno, f[1]);
    int fi = f[4] > 0 ? 5 : 8;
    FL_CHECK(!t->max_procs || procs <= t->max_procs, FL_ERR_INPUT,
             "%s:%ld: field %d (%s) '%ld': larger than the machine (MaxProcs: %ld)", path, lineno, fi,
             fl_swf_field_names[fi - 1], procs, t->max_procs);
    long nodes = (procs + cores_per_node - 1) / cores_per_node;
    FL_CHECK(!t->max_nodes || t->max_procs || nodes <= t->max_nodes, FL_ERR_INPUT,
             "%s:%ld: field %d (%s) '%ld': %ld nodes at app.cores_per_node = %ld, larger than the machine "
             "(MaxNodes: %ld)",
             path, lineno, fi, fl_swf_field_names[fi - 1], procs, nodes, cores_per_node, t->max_nodes);
    FL_TRY(fl_grow((void **)&t->jobs, &cap, t->njobs + 1, sizeof *t->jobs));
    fl_swf_job *j = &t->jobs[t->njobs++];
    j->id = (long)f[0];
    j->line = lineno;
    j->submit_s = f[1];
    j->wait_s = f[2];
    j->run_s = f[3];
    j->procs = procs;
    j->nodes = nodes;
    j->req_s = f[8] > 0 ? f[8] : f[3];
    if (!(f[8] > 0))
      t->no_estimate++;
    j->mem_kb = f[6] > 0 ? f[6] : f[9] > 0 ? f[9] : -1;
    j->status = (int)f[10];
    if (f[1] < last_submit)
      t->unsorted++;
    else
      last_submit = f[1];
  }
  int zerr;
  const char *zmsg = gzerror(gz, &zerr);
  FL_CHECK(zerr == Z_OK || zerr == Z_BUF_ERROR, FL_ERR_INPUT, "%s:%ld: cannot read: %s", path, lineno + 1,
           zerr == Z_ERRNO ? strerror(errno) : zmsg);
  FL_CHECK(t->njobs > 0, FL_ERR_INPUT, "%s: no job that ran (%ld line%s; %ld job%s without run time or processors)",
           path, lineno, lineno == 1 ? "" : "s", t->skipped, t->skipped == 1 ? "" : "s");
  if (t->unsorted)
    qsort(t->jobs, (size_t)t->njobs, sizeof *t->jobs, fl_swf_cmp);
  *out = t;
  t = NULL;
done:
  if (gz)
    gzclose(gz);
  fl_swf_destroy(&t);
  return rc;
}

long fl_swf_machine_nodes(const fl_swf *t, long cores_per_node)
{
  if (t->max_procs > 0)
    return (t->max_procs + cores_per_node - 1) / cores_per_node;
  return t->max_nodes;
}

double fl_swf_logged_utilisation(const fl_swf *t, long nodes)
{
  double t0 = INFINITY, t1 = -INFINITY, area = 0;
  for (long i = 0; i < t->njobs; i++) {
    const fl_swf_job *j = &t->jobs[i];
    if (j->wait_s < 0)
      return NAN;
    double end = j->submit_s + j->wait_s + j->run_s;
    t0 = fmin(t0, j->submit_s);
    t1 = fmax(t1, end);
    area += j->run_s * (double)j->nodes;
  }
  if (!(t1 > t0) || nodes <= 0)
    return NAN;
  return area / ((t1 - t0) * (double)nodes);
}

void fl_swf_destroy(fl_swf **pt)
{
  if (!pt || !*pt)
    return;
  free((*pt)->jobs);
  free((*pt)->path);
  free(*pt);
  *pt = NULL;
}

fl_err fl_swf_generate(const fl_swf_gen *g, fl_swf **out)
{
  fl_err rc = FL_OK;
  fl_swf *t = NULL;
  gsl_rng *rng = NULL;
  long sizes[64], nsizes = 0;
  double submit = 0;
  *out = NULL;
  for (long p = 1; p > 0 && p <= g->max_nodes; p *= 2)
    if (p >= g->min_nodes)
      sizes[nsizes++] = p;
  FL_CHECK(nsizes > 0 && g->jobs > 0, FL_ERR_INPUT, "no power of two between %ld and %ld nodes", g->min_nodes,
           g->max_nodes);
  FL_ALLOC(t, 1);
  FL_ALLOC(t->jobs, g->jobs);
  FL_CHECK((t->path = strdup("generated")) != NULL, FL_ERR_NOMEM, "out of memory");
  FL_TRY(fl_rng_create(g->seed, 0, FL_STREAM_APP, &rng));
  for (long i = 0; i < g->jobs; i++) {
    fl_swf_job *j = &t->jobs[i];
    if (i > 0 && g->mean_gap_s > 0)
      submit += floor(gsl_ran_exponential(rng, g->mean_gap_s));
    j->id = i + 1;
    j->line = 0;
    j->submit_s = submit;
    j->wait_s = -1;
    j->nodes = j->procs = sizes[gsl_rng_uniform_int(rng, (unsigned long)nsizes)];
    j->run_s = fmax(1.0, floor(g->mean_run_s * (0.5 + gsl_rng_uniform(rng))));
    j->req_s = ceil(1.25 * j->run_s);
    j->mem_kb = -1;
    j->status = 1;
  }
  t->njobs = g->jobs;
  t->max_nodes = sizes[nsizes - 1];
  *out = t;
  t = NULL;
done:
  if (rng)
    gsl_rng_free(rng);
  fl_swf_destroy(&t);
  return rc;
}
