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
#include <limits.h>
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

struct fl_swf_stream {
  fl_swf info; /* path, header fields and counts so far; jobs NULL, njobs the jobs given */
  long cores_per_node;
  gzFile gz; /* a file; NULL: generated */
  long lineno;
  double last_submit;
  /* generated */
  fl_swf_gen gen;
  gsl_rng *rng;
  long sizes[64], nsizes;
  double submit;
};

fl_err fl_swf_open(const char *path, long cores_per_node, fl_swf_stream **out)
{
  fl_err rc = FL_OK;
  fl_swf_stream *s = NULL;
  *out = NULL;
  FL_CHECK(cores_per_node >= 1, FL_ERR_INPUT, "app.cores_per_node = %ld: must be at least 1", cores_per_node);
  FL_ALLOC(s, 1);
  s->cores_per_node = cores_per_node;
  s->last_submit = -INFINITY;
  FL_CHECK((s->info.path = strdup(path)) != NULL, FL_ERR_NOMEM, "out of memory reading %s", path);
  errno = 0;
  s->gz = gzopen(path, "rb");
  FL_CHECK(s->gz, FL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  *out = s;
  s = NULL;
done:
  fl_swf_close(&s);
  return rc;
}

/* The next job line of a file into *j (1), or 0 at its end. */
static fl_err fl_swf_next_line(fl_swf_stream *s, fl_swf_job *j, int *got)
{
  fl_err rc = FL_OK;
  fl_swf *t = &s->info;
  const char *path = t->path;
  char line[FL_SWF_LINE_MAX];
  *got = 0;
  while (gzgets(s->gz, line, sizeof line)) {
    long lineno = ++s->lineno;
    size_t len = strlen(line);
    FL_CHECK(len < sizeof line - 1 || line[len - 1] == '\n' || gzeof(s->gz), FL_ERR_INPUT,
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
    {
      /* the fields kept as whole numbers must fit one (a count past 2^53 is no count: found by fuzz_swf) */
      static const int whole[] = {0, 4, 7, 10};
      for (int w = 0; w < 4; w++) {
        int i = whole[w];
        FL_CHECK(fabs(f[i]) <= (i == 10 ? (double)INT_MAX : 9007199254740992.0), FL_ERR_INPUT,
                 "%s:%ld: field %d (%s) '%g': too large for a whole number", path, lineno, i + 1,
                 fl_swf_field_names[i], f[i]);
      }
    }
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
    long nodes = (procs + s->cores_per_node - 1) / s->cores_per_node;
    FL_CHECK(!t->max_nodes || t->max_procs || nodes <= t->max_nodes, FL_ERR_INPUT,
             "%s:%ld: field %d (%s) '%ld': %ld nodes at app.cores_per_node = %ld, larger than the machine "
             "(MaxNodes: %ld)",
             path, lineno, fi, fl_swf_field_names[fi - 1], procs, nodes, s->cores_per_node, t->max_nodes);
    *j = (fl_swf_job){.id = (long)f[0],
                      .line = lineno,
                      .submit_s = f[1],
                      .wait_s = f[2],
                      .run_s = f[3],
                      .procs = procs,
                      .nodes = nodes,
                      .req_s = f[8] > 0 ? f[8] : f[3],
                      .mem_kb = f[6] > 0 ? f[6] : f[9] > 0 ? f[9] : -1,
                      .status = (int)f[10]};
    if (!(f[8] > 0))
      t->no_estimate++;
    if (f[1] < s->last_submit)
      t->unsorted++;
    else
      s->last_submit = f[1];
    t->njobs++;
    *got = 1;
    goto done;
  }
  {
    int zerr;
    const char *zmsg = gzerror(s->gz, &zerr);
    FL_CHECK(zerr == Z_OK || zerr == Z_BUF_ERROR, FL_ERR_INPUT, "%s:%ld: cannot read: %s", path, s->lineno + 1,
             zerr == Z_ERRNO ? strerror(errno) : zmsg);
  }
  FL_CHECK(t->njobs > 0, FL_ERR_INPUT, "%s: no job that ran (%ld line%s; %ld job%s without run time or processors)",
           path, s->lineno, s->lineno == 1 ? "" : "s", t->skipped, t->skipped == 1 ? "" : "s");
done:
  return rc;
}

/* The next generated job (fl_swf_generate's mix, drawn one job at a time). */
static void fl_swf_next_generated(fl_swf_stream *s, fl_swf_job *j, int *got)
{
  long i = s->info.njobs;
  *got = 0;
  if (i >= s->gen.jobs)
    return;
  if (i > 0 && s->gen.mean_gap_s > 0)
    s->submit += floor(gsl_ran_exponential(s->rng, s->gen.mean_gap_s));
  *j = (fl_swf_job){.id = i + 1, .line = 0, .submit_s = s->submit, .wait_s = -1, .mem_kb = -1, .status = 1};
  j->nodes = j->procs = s->sizes[gsl_rng_uniform_int(s->rng, (unsigned long)s->nsizes)];
  j->run_s = fmax(1.0, floor(s->gen.mean_run_s * (0.5 + gsl_rng_uniform(s->rng))));
  j->req_s = ceil(1.25 * j->run_s);
  s->info.njobs++;
  *got = 1;
}

fl_err fl_swf_next(fl_swf_stream *s, fl_swf_job *job, int *got)
{
  if (!s->gz) {
    fl_swf_next_generated(s, job, got);
    return FL_OK;
  }
  return fl_swf_next_line(s, job, got);
}

const fl_swf *fl_swf_stream_info(const fl_swf_stream *s)
{
  return &s->info;
}

void fl_swf_close(fl_swf_stream **ps)
{
  if (!ps || !*ps)
    return;
  fl_swf_stream *s = *ps;
  if (s->gz)
    gzclose(s->gz);
  if (s->rng)
    gsl_rng_free(s->rng);
  free(s->info.path);
  free(s);
  *ps = NULL;
}

/* Every job of an open stream into a fl_swf, sorted by submit time. */
static fl_err fl_swf_slurp(fl_swf_stream *s, fl_swf **out)
{
  fl_err rc = FL_OK;
  fl_swf_job *jobs = NULL;
  long cap = 0, n = 0;
  int got = 1;
  *out = NULL;
  for (;;) {
    fl_swf_job j;
    FL_TRY(fl_swf_next(s, &j, &got));
    if (!got)
      break;
    FL_TRY(fl_grow((void **)&jobs, &cap, n + 1, sizeof *jobs));
    jobs[n++] = j;
  }
  FL_ALLOC(*out, 1);
  **out = s->info; /* the counts and header fields as the whole file gives them */
  (*out)->jobs = jobs;
  jobs = NULL;
  (*out)->path = s->info.path; /* the stream's, taken over */
  s->info.path = NULL;
  if ((*out)->unsorted)
    qsort((*out)->jobs, (size_t)(*out)->njobs, sizeof *(*out)->jobs, fl_swf_cmp);
done:
  free(jobs);
  return rc;
}

fl_err fl_swf_read(const char *path, long cores_per_node, fl_swf **out)
{
  fl_err rc = FL_OK;
  fl_swf_stream *s = NULL;
  *out = NULL;
  FL_TRY(fl_swf_open(path, cores_per_node, &s));
  FL_TRY(fl_swf_slurp(s, out));
done:
  fl_swf_close(&s);
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

fl_err fl_swf_open_generated(const fl_swf_gen *g, fl_swf_stream **out)
{
  fl_err rc = FL_OK;
  fl_swf_stream *s = NULL;
  *out = NULL;
  FL_ALLOC(s, 1);
  s->gen = *g;
  for (long p = 1; p > 0 && p <= g->max_nodes && s->nsizes < 64; p *= 2)
    if (p >= g->min_nodes)
      s->sizes[s->nsizes++] = p;
  FL_CHECK(s->nsizes > 0 && g->jobs > 0, FL_ERR_INPUT, "no power of two between %ld and %ld nodes", g->min_nodes,
           g->max_nodes);
  FL_CHECK((s->info.path = strdup("generated")) != NULL, FL_ERR_NOMEM, "out of memory");
  s->info.max_nodes = s->sizes[s->nsizes - 1];
  FL_TRY(fl_rng_create(g->seed, 0, FL_STREAM_APP, &s->rng));
  *out = s;
  s = NULL;
done:
  fl_swf_close(&s);
  return rc;
}

fl_err fl_swf_generate(const fl_swf_gen *g, fl_swf **out)
{
  fl_err rc = FL_OK;
  fl_swf_stream *s = NULL;
  *out = NULL;
  FL_TRY(fl_swf_open_generated(g, &s));
  FL_TRY(fl_swf_slurp(s, out));
done:
  fl_swf_close(&s);
  return rc;
}
