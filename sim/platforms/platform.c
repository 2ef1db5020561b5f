/* platform.c — SimGrid initialisation and platform loading (see platform.h).
 *
 * SimGrid is a process-wide engine: it is initialised once and loads one platform. That single loaded
 * platform is the only process-level state in faultline, kept here and nowhere else. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "platform.h"

#include "app.h"
#include "cleanup.h"
#include "inputs.h"
#include "io_async.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libxml/xmlreader.h>
#include <math.h>
#include <signal.h>
#include <simgrid/disk.h>
#include <simgrid/version.h>
#include <simgrid/zone.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/dynar.h>

struct fl_platform {
  char *describe; /* what was loaded, to refuse a different second request */
  char *name;     /* for messages: the file's path, or "generated (N nodes)" */
  long nnodes;
  int generated;
  sg_host_t controller;
  sg_host_t *hosts;           /* node -> host: filled for file platforms; lazily for generated ones */
  const char **names;         /* file platforms: node names, sorted (for lookups by name) */
  int controller_substituted; /* file platforms: no host of the scenario's controller name; another serves */
  fl_platform_gen gen;        /* generated platforms */
  sg_host_t *pfs;             /* the PFS servers */
  long npfs;
  fl_profiles profiles; /* file platforms: hosts' state profiles, played as failures (profiles.h) */
  int controller_added; /* every host of the file may fail: faultline added its own controller */
  /* a generated platform without a network, not made in SimGrid yet (fl_platform_realize): the direct engine runs
   * a bsp job without it, so SimGrid is set up only when a replica goes to SimGrid's engine */
  int lazy, cm02;
};

static fl_platform *fl_the_platform; /* SimGrid loads one platform per process: see the file comment */

/* A platform file SimGrid cannot parse makes it log the reason and abort the process. While a user's file
 * loads, stderr goes to a temporary file and SIGABRT to this handler, which turns SimGrid's reason into the
 * one-line bad-input message and exit status 2. Signal-handler state must be static; only async-signal-safe
 * calls (lseek, read, write, _exit) are made from the handler. */
static struct {
  int capture_fd, stderr_fd;
  char prefix[1024];
  char text[8192];
} fl_load_guard = {-1, -1, "", ""};

static void fl_load_abort_handler(int sig)
{
  ssize_t n;
  const char *p, *reason = "SimGrid aborted while loading it";
  size_t rlen = strlen(reason);
  (void)sig;
  if (lseek(fl_load_guard.capture_fd, 0, SEEK_SET) == 0 &&
      (n = read(fl_load_guard.capture_fd, fl_load_guard.text, sizeof fl_load_guard.text - 1)) > 0) {
    fl_load_guard.text[n] = '\0';
    for (p = fl_load_guard.text; *p; p++) {
      if ((p[0] == 'E' && strncmp(p, "ERROR] ", 7) == 0) || (p[0] == 'C' && strncmp(p, "CRITICAL] ", 10) == 0)) {
        const char *e;
        p = strchr(p, ']') + 2;
        for (e = p; *e && *e != '\n'; e++)
          ;
        reason = p;
        rlen = (size_t)(e - p);
        break;
      }
    }
  }
  if (write(fl_load_guard.stderr_fd, fl_load_guard.prefix, strlen(fl_load_guard.prefix)) < 0 ||
      write(fl_load_guard.stderr_fd, reason, rlen) < 0 || write(fl_load_guard.stderr_fd, "\n", 1) < 0)
    _exit(2);
  _exit(2);
}

/* Load a user's platform file, turning SimGrid's abort on a bad file into FL_ERR_INPUT-style exit 2. */
static fl_err fl_load_user_platform(const fl_scenario *sc, const char *file)
{
  struct sigaction sa, old;
  char tmpl[] = "/tmp/faultline-load-XXXXXX";
  int fd;
  ssize_t n;

  (void)fl_scenario_fail(sc, "platform", "file", "%s", "");
  snprintf(fl_load_guard.prefix, sizeof fl_load_guard.prefix, "faultline: %s", fl_err_msg());
  fl_err_clear();
  fd = mkstemp(tmpl);
  if (fd < 0) { /* no capture possible: load unguarded */
    simgrid_load_platform(file);
    return FL_OK;
  }
  unlink(tmpl);
  fflush(stderr);
  fl_load_guard.capture_fd = fd;
  fl_load_guard.stderr_fd = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fl_load_abort_handler;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGABRT, &sa, &old);

  simgrid_load_platform(file);

  sigaction(SIGABRT, &old, NULL);
  fflush(stderr);
  dup2(fl_load_guard.stderr_fd, STDERR_FILENO);
  close(fl_load_guard.stderr_fd);
  /* pass on what SimGrid said while loading (warnings) */
  if (lseek(fd, 0, SEEK_SET) == 0)
    while ((n = read(fd, fl_load_guard.text, sizeof fl_load_guard.text)) > 0)
      if (write(STDERR_FILENO, fl_load_guard.text, (size_t)n) < 0)
        break;
  close(fd);
  fl_load_guard.capture_fd = fl_load_guard.stderr_fd = -1;
  return FL_OK;
}

/* Write `count` lines "<pre>I<post>" for I = first .. first+count-1: a million lines with the constant parts
 * formatted once and the index by hand (fprintf costs 3x more). */
static void fl_xml_indexed(FILE *f, const char *pre, long first, long count, const char *post)
{
  char line[512];
  size_t npre = strlen(pre), npost = strlen(post);
  if (npre + npost + 24 > sizeof line)
    return;
  memcpy(line, pre, npre);
  for (long i = first; i < first + count; i++) {
    char digits[24];
    int nd = 0;
    long v = i;
    size_t len = npre;
    do {
      digits[nd++] = (char)('0' + v % 10);
      v /= 10;
    } while (v);
    while (nd)
      line[len++] = digits[--nd];
    memcpy(line + len, post, npost);
    len += npost;
    fwrite(line, 1, len, f);
  }
}

void fl_platform_gen_from(const fl_scenario *sc, long nodes, int io, fl_platform_gen *g)
{
  *g = (fl_platform_gen){.nodes = nodes,
                         .speed = sc->node_speed,
                         .io = io,
                         .cabinet = sc->cabinet,
                         .link_bw = sc->link_bw,
                         .link_lat_s = sc->link_lat_s,
                         .cabinet_bw = sc->cabinet_bw,
                         .disk_bw = sc->disk_bw,
                         .pfs_servers = sc->pfs_servers,
                         .pfs_bw = sc->pfs_bw,
                         .pfs_link_bw = sc->pfs_link_bw};
}

long fl_platform_gen_cabinets(const fl_platform_gen *g)
{
  return (g->nodes + g->cabinet - 1) / g->cabinet;
}

int fl_platform_gen_routable(const fl_platform_gen *g)
{
  return g->io != FL_IO_PER_RANK || fl_platform_gen_cabinets(g) <= FL_PLATFORM_PER_RANK_MAX_CABINETS;
}

/* A host's disk, a full-duplex link and the host_link joining them, in a Cluster zone. */
static void fl_xml_io_host(FILE *f, const char *host, double speed, const char *disk, double disk_bw, double bw,
                           double lat)
{
  fprintf(f, "<host id=\"%s\" speed=\"%.17gf\">", host, speed);
  if (disk_bw > 0)
    fprintf(f, "<disk id=\"%s\" read_bw=\"%.17gBps\" write_bw=\"%.17gBps\"/>", disk, disk_bw, disk_bw);
  fprintf(f,
          "</host>\n<link id=\"%s-link\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n"
          "<host_link id=\"%s\" up=\"%s-link_UP\" down=\"%s-link_DOWN\"/>\n",
          host, bw, lat, host, host, host);
}

fl_err fl_platform_write_xml(FILE *f, const fl_platform_gen *g)
{
  char spd[64], post[128], name[64];
  long ncab = fl_platform_gen_cabinets(g);

  snprintf(spd, sizeof spd, "%.17gf", g->speed);
  fputs("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n",
        f);
  if (g->io != 0)
    /* SimGrid bounds a flow by a TCP window over its round trip (network/TCP-gamma, 4 MiB): with microsecond
     * latencies that is ~500 GB/s, which one aggregated flow per cabinet exceeds while its nodes' own flows do
     * not. HPC interconnects are not window-bound: lift the bound, so aggregation stays exact. */
    fputs("<config>\n<prop id=\"network/TCP-gamma\" value=\"1e18\"/>\n</config>\n", f);
  if (g->io == 0) {
    /* no network: plain hosts in a routing="None" zone, the cheapest form SimGrid loads */
    fprintf(f, "<zone id=\"faultline\" routing=\"None\">\n<host id=\"controller\" speed=\"%s\"/>\n", spd);
    snprintf(post, sizeof post, "\" speed=\"%s\"/>\n", spd);
    fl_xml_indexed(f, "<host id=\"node-", 0, g->nodes, post);
    fputs("</zone>\n</platform>\n", f);
  } else if (g->io == FL_PLATFORM_CLUSTER) {
    /* SimGrid's <cluster> spelled out, so that the controller is a member too (it reads a workflow's outputs
     * back from shared storage): a private link per host, one backbone */
    fputs("<zone id=\"faultline\" routing=\"Cluster\">\n", f);
    fl_xml_io_host(f, "controller", g->speed, "", 0.0, g->link_bw, g->link_lat_s);
    for (long i = 0; i < g->nodes; i++) {
      snprintf(name, sizeof name, "node-%ld", i);
      fl_xml_io_host(f, name, g->speed, "", 0.0, g->link_bw, g->link_lat_s);
    }
    fprintf(f, "<backbone id=\"backbone\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n</zone>\n</platform>\n",
            g->cabinet_bw);
  } else if (g->io == FL_IO_AGGREGATED) {
    /* the nodes as plain hosts (they fail and compute); the I/O runs between one host per cabinet, whose link
     * carries what its nodes' links carry in parallel (up to the cabinet's uplink), and the PFS servers */
    fprintf(f,
            "<zone id=\"faultline\" routing=\"Full\">\n<zone id=\"nodes\" routing=\"None\">\n"
            "<host id=\"controller\" speed=\"%s\"/>\n",
            spd);
    snprintf(post, sizeof post, "\" speed=\"%s\"/>\n", spd);
    fl_xml_indexed(f, "<host id=\"node-", 0, g->nodes, post);
    fputs("</zone>\n<zone id=\"io\" routing=\"Cluster\">\n", f);
    for (long c = 0; c < ncab; c++) {
      long members = c == ncab - 1 ? g->nodes - c * g->cabinet : g->cabinet;
      snprintf(name, sizeof name, "cab-%ld", c);
      fl_xml_io_host(f, name, g->speed, "local", g->disk_bw, fmin((double)members * g->link_bw, g->cabinet_bw),
                     2.0 * g->link_lat_s);
    }
    for (long j = 0; j < g->pfs_servers; j++) {
      snprintf(name, sizeof name, "pfs-%ld", j);
      fl_xml_io_host(f, name, g->speed, "pfs", g->pfs_bw, g->pfs_link_bw, g->link_lat_s);
    }
    fputs("</zone>\n</zone>\n</platform>\n", f);
  } else {
    /* every node with its disk and link, in its cabinet's zone; cabinets reach each other and the PFS through
     * their uplinks */
    fprintf(f,
            "<zone id=\"faultline\" routing=\"Full\">\n<zone id=\"ctl\" routing=\"None\">\n"
            "<host id=\"controller\" speed=\"%s\"/>\n</zone>\n",
            spd);
    for (long c = 0; c < ncab; c++) {
      long last = c == ncab - 1 ? g->nodes : (c + 1) * g->cabinet;
      fprintf(f, "<zone id=\"cab-%ld\" routing=\"Cluster\">\n", c);
      for (long i = c * g->cabinet; i < last; i++) {
        snprintf(name, sizeof name, "node-%ld", i);
        fl_xml_io_host(f, name, g->speed, "local", g->disk_bw, g->link_bw, g->link_lat_s);
      }
      fprintf(f, "<router id=\"cab-%ld-gw\"/>\n</zone>\n", c);
    }
    fputs("<zone id=\"pfs\" routing=\"Cluster\">\n", f);
    for (long j = 0; j < g->pfs_servers; j++) {
      snprintf(name, sizeof name, "pfs-%ld", j);
      fl_xml_io_host(f, name, g->speed, "pfs", g->pfs_bw, g->pfs_link_bw, g->link_lat_s);
    }
    fputs("<router id=\"pfs-gw\"/>\n</zone>\n", f);
    for (long c = 0; c < ncab; c++)
      fprintf(f, "<link id=\"cab-%ld-up\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n",
              c, g->cabinet_bw, g->link_lat_s);
    for (long c = 0; c < ncab; c++) {
      if (g->pfs_servers > 0)
        fprintf(f,
                "<zoneRoute src=\"cab-%ld\" dst=\"pfs\" gw_src=\"cab-%ld-gw\" gw_dst=\"pfs-gw\" symmetrical=\"NO\">"
                "<link_ctn id=\"cab-%ld-up\" direction=\"UP\"/></zoneRoute>\n"
                "<zoneRoute src=\"pfs\" dst=\"cab-%ld\" gw_src=\"pfs-gw\" gw_dst=\"cab-%ld-gw\" symmetrical=\"NO\">"
                "<link_ctn id=\"cab-%ld-up\" direction=\"DOWN\"/></zoneRoute>\n",
                c, c, c, c, c, c);
      for (long d = 0; d < ncab; d++)
        if (d != c)
          fprintf(f,
                  "<zoneRoute src=\"cab-%ld\" dst=\"cab-%ld\" gw_src=\"cab-%ld-gw\" gw_dst=\"cab-%ld-gw\" "
                  "symmetrical=\"NO\"><link_ctn id=\"cab-%ld-up\" direction=\"UP\"/><link_ctn id=\"cab-%ld-up\" "
                  "direction=\"DOWN\"/></zoneRoute>\n",
                  c, d, c, d, c, d);
    }
    fputs("</zone>\n</platform>\n", f);
  }
  if (ferror(f))
    return fl_err_set(FL_ERR_IO, "cannot write platform XML: %s", strerror(errno));
  return FL_OK;
}

void fl_simgrid_init(long hosts, int generated, int workflow)
{
  /* cpu/optim:TI is the cheapest CPU model to set up for many hosts, but handles single-core hosts only: it
   * serves our generated platforms; a user's file keeps SimGrid's default. At a million hosts SimGrid's own
   * teardown takes seconds, so skip it (the process exits right after). A platform file SimGrid refuses ends in
   * its assertion or exception handler, which resolves a backtrace of the call first (a second or so of reading
   * SimGrid's symbols) that no user sees: the load guard below keeps SimGrid's one line of reason. no_loc and
   * exception/cutpath skip that backtrace; the reason's text is the same. */
  char a0[] = "faultline", a1[] = "--log=root.thresh:warning", a2[] = "--cfg=cpu/optim:TI",
       a3[] = "--cfg=debug/clean-atexit:0", a4[] = "--cfg=network/model:CM02", a5[] = "--cfg=network/TCP-gamma:0",
       a6[] = "--cfg=network/crosstraffic:0", a7[] = "--log=no_loc", a8[] = "--cfg=exception/cutpath:yes";
  char *argv[] = {a0, a1, a7, a8, NULL, NULL, NULL, NULL, NULL, NULL};
  int argc = 4;
  if (generated)
    argv[argc++] = a2;
  if (workflow) {
    /* task graphs: a lone transfer takes latency + bytes / bandwidth, the time HEFT prices it at (SimGrid's
     * default LV08 model scales latency by 13.01 and bandwidth by 0.97, bounds TCP's window and sends
     * acknowledgements back as 5 % cross-traffic) */
    argv[argc++] = a4;
    argv[argc++] = a5;
    argv[argc++] = a6;
  }
  if (hosts >= 100000)
    argv[argc++] = a3;
  simgrid_init(&argc, argv);
  fl_cleanup_install(); /* SimGrid's own SIGINT handler would leave a load half-done and the heap inconsistent */
}

/* Natural order of host names: digit runs compare as numbers, so cn-2 comes before cn-10 and node indexes
 * read as users expect. */
static int fl_natcmp(const char *a, const char *b)
{
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      const char *ea = a, *eb = b;
      size_t la, lb;
      while (*a == '0' && isdigit((unsigned char)a[1]))
        a++;
      while (*b == '0' && isdigit((unsigned char)b[1]))
        b++;
      for (ea = a; isdigit((unsigned char)*ea); ea++)
        ;
      for (eb = b; isdigit((unsigned char)*eb); eb++)
        ;
      la = (size_t)(ea - a);
      lb = (size_t)(eb - b);
      if (la != lb)
        return la < lb ? -1 : 1;
      for (; a < ea; a++, b++)
        if (*a != *b)
          return *a < *b ? -1 : 1;
      continue;
    }
    if (*a != *b)
      return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    a++;
    b++;
  }
  return *a ? 1 : *b ? -1 : 0;
}

static int fl_cmp_host(const void *a, const void *b)
{
  int c = fl_natcmp(sg_host_get_name(*(const sg_host_t *)a), sg_host_get_name(*(const sg_host_t *)b));
  return c ? c : strcmp(sg_host_get_name(*(const sg_host_t *)a), sg_host_get_name(*(const sg_host_t *)b));
}

static int fl_cmp_name(const void *key, const void *elem)
{
  const char *k = *(const char *const *)key, *e = *(const char *const *)elem;
  int c = fl_natcmp(k, e);
  return c ? c : strcmp(k, e);
}

/* Memory this process may still use, in bytes: the least of MemAvailable, the address-space and data
 * limits, and the cgroup's memory.max less its usage. INFINITY when nothing is known. */
static double fl_memory_available(void)
{
  double avail = INFINITY;
  struct rlimit rl;
  FILE *f;
  char line[256];
  if ((f = fopen("/proc/meminfo", "r"))) {
    while (fgets(line, sizeof line, f)) {
      double kb;
      if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
        avail = fmin(avail, kb * 1024.0);
    }
    fclose(f);
  }
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    avail = fmin(avail, (double)rl.rlim_cur);
  if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    avail = fmin(avail, (double)rl.rlim_cur);
  if ((f = fopen("/sys/fs/cgroup/memory.max", "r"))) {
    double max, cur = 0;
    if (fscanf(f, "%lf", &max) == 1) {
      FILE *g = fopen("/sys/fs/cgroup/memory.current", "r");
      if (g) {
        if (fscanf(g, "%lf", &cur) != 1)
          cur = 0;
        fclose(g);
      }
      avail = fmin(avail, max - cur);
    }
    fclose(f);
  }
  return avail;
}

fl_err fl_platform_check_size(const fl_scenario *sc, long nodes)
{
  fl_err rc = FL_OK;
  /* the key that asked for these hosts: platform.nodes, else the job's size (app.nodes or app.grid) */
  const char *key = "nodes", *section = sc->platform_nodes > 0 ? "platform" : "app";
  const fl_app *app = fl_app_find(sc->app);
  double need = FL_PLATFORM_BASE_BYTES + (double)nodes * FL_PLATFORM_BYTES_PER_HOST;
  double avail = fl_memory_available(), disk = INFINITY;
  char a[32], b[32];
  struct statvfs vfs;
  const char *dir = getenv("TMPDIR");

  if (sc->platform_nodes == 0 && app && app->size_key)
    key = app->size_key; /* app.grid, for a grid world */
  if (nodes > FL_PLATFORM_MAX_NODES) {
    rc = fl_scenario_fail(
        sc, section, key, "%ld hosts: at most %ld (a generated platform costs about %.0f bytes per host: %s)", nodes,
        (long)FL_PLATFORM_MAX_NODES, FL_PLATFORM_BYTES_PER_HOST, fl_units_format_bytes(need, a, sizeof a));
    goto done;
  }
  if (need > avail) {
    rc = fl_scenario_fail(sc, section, key,
                          "%ld hosts would need about %s of memory (%.0f bytes per host, measured) but %s are "
                          "available",
                          nodes, fl_units_format_bytes(need, a, sizeof a), FL_PLATFORM_BYTES_PER_HOST,
                          fl_units_format_bytes(avail, b, sizeof b));
    goto done;
  }
  if (statvfs(dir && *dir ? dir : "/tmp", &vfs) == 0)
    disk = (double)vfs.f_bavail * (double)vfs.f_frsize;
  if ((double)nodes * FL_PLATFORM_XML_BYTES_PER_HOST > disk) {
    rc = fl_scenario_fail(sc, section, key, "%ld hosts need a %s platform file in %s, which has %s free", nodes,
                          fl_units_format_bytes((double)nodes * FL_PLATFORM_XML_BYTES_PER_HOST, a, sizeof a),
                          dir && *dir ? dir : "/tmp", fl_units_format_bytes(disk, b, sizeof b));
    goto done;
  }
done:
  return rc;
}

/* Hosts a cluster's radical names ("0-99", "1,3,5-9"; a number read as far as it goes, as SimGrid reads it):
 * -1 when it is no list of numbers (SimGrid says why) */
static double fl_radical_hosts(const char *radical)
{
  double n = 0;
  const char *p = radical;
  while (p && *p) {
    char *end;
    long a = strtol(p, &end, 10), b;
    if (end == p)
      return -1;
    b = a;
    if (*end == '-') {
      const char *q = end + 1;
      b = strtol(q, &end, 10);
      if (end == q)
        return -1;
    }
    n += b >= a ? (double)b - (double)a + 1 : 0;
    while (*end && *end != ',')
      end++;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

/* A piece of a cluster's topo_parameters */
typedef struct fl_span {
  const char *s;
  size_t n;
} fl_span;

/* boost::split of s (n bytes) at every `sep`, as SimGrid splits topo_parameters (empty pieces kept): the number of
 * pieces, the first `max` of them stored */
static size_t fl_split(const char *s, size_t n, char sep, fl_span *out, size_t max)
{
  size_t k = 0, start = 0;
  for (size_t i = 0; i <= n; i++)
    if (i == n || s[i] == sep) {
      if (k < max) {
        out[k].s = s + start;
        out[k].n = i - start;
      }
      k++;
      start = i + 1;
    }
  return k;
}

/* One count of topo_parameters as SimGrid 3.32 reads it (std::stoi: blanks, a sign, digits, the rest of the piece
 * ignored): 0 with *v, or -1 with the reason in `why`. SimGrid refuses 0 and keeps a negative count in an unsigned
 * one (-2 becomes 4294967294: std::bad_alloc, or the machine's memory): both refused here, as is a number past an
 * int (std::out_of_range). */
static int fl_topo_count(fl_span f, const char *what, double *v, char *why, size_t wsize)
{
  size_t i = 0, digits = 0;
  int neg = 0;
  double x = 0;
  while (i < f.n && isspace((unsigned char)f.s[i]))
    i++;
  if (i < f.n && (f.s[i] == '+' || f.s[i] == '-'))
    neg = f.s[i++] == '-';
  for (; i < f.n && isdigit((unsigned char)f.s[i]); i++, digits++)
    x = x * 10 + (f.s[i] - '0');
  if (digits == 0) {
    snprintf(why, wsize, "%s '%.*s' is not a number", what, (int)(f.n < 40 ? f.n : 40), f.s);
    return -1;
  }
  if (x > 2147483647.0) {
    snprintf(why, wsize, "%s %s%.0f is beyond an int", what, neg ? "-" : "", x);
    return -1;
  }
  if (neg || x == 0) {
    snprintf(why, wsize, "%s %s%.0f: a count is 1 or more", what, neg && x > 0 ? "-" : "", x);
    return -1;
  }
  *v = x;
  return 0;
}

/* A comma list of counts (a torus' dimensions, a fat tree's counts per level), each read by fl_topo_count and named
 * "`what` K": their number, product, and the first `max` of them in `out` (NULL: none kept); -1 as fl_topo_count */
static int fl_topo_list(fl_span list, const char *what, double *out, size_t max, size_t *count, double *product,
                        char *why, size_t wsize)
{
  size_t k = 0, start = 0;
  *product = 1;
  for (size_t i = 0; i <= list.n; i++)
    if (i == list.n || list.s[i] == ',') {
      char name[48];
      double v;
      fl_span one = {list.s + start, i - start};
      snprintf(name, sizeof name, "%s %zu", what, k + 1);
      if (fl_topo_count(one, name, &v, why, wsize) != 0)
        return -1;
      if (out && k < max)
        out[k] = v;
      *product *= v;
      k++;
      start = i + 1;
    }
  *count = k;
  return 0;
}

/* What a cluster's TORUS, FAT_TREE or DRAGONFLY topology builds in SimGrid 3.32 (TorusZone, FatTreeZone and
 * DragonflyZone: parse_topo_parameters and the zone's creation): its hosts, its switches or routers, and its links;
 * 0, or -1 with the reason in `why` for parameters SimGrid would misread or die on. */
static int fl_topology_size(const char *topology, const char *params, double *hosts, double *switches, double *links,
                            char *why, size_t wsize)
{
  size_t n = strlen(params), np;
  fl_span part[4], f[2];
  *hosts = 1;
  *switches = *links = 0;
  if (strcmp(topology, "TORUS") == 0) {
    /* dims "d1,d2,...": a host per point, a link per host and dimension */
    fl_span all = {params, n};
    size_t dims;
    if (fl_topo_list(all, "dimension", NULL, 0, &dims, hosts, why, wsize) != 0)
      return -1;
    *links = *hosts * (double)dims;
    return 0;
  }
  if (strcmp(topology, "DRAGONFLY") == 0) {
    /* "groups,blue;chassis,black;routers,green;nodes" */
    static const char *names[3][2] = {{"groups", "blue links"}, {"chassis", "black links"}, {"routers", "green links"}};
    double v[3][2], nodes, g, c, r;
    if (fl_split(params, n, ';', part, 4) != 4) {
      snprintf(why, wsize, "a Dragonfly is 'groups,links;chassis,links;routers,links;nodes' (4 fields)");
      return -1;
    }
    for (int l = 0; l < 3; l++) {
      if (fl_split(part[l].s, part[l].n, ',', f, 2) != 2) {
        snprintf(why, wsize, "a Dragonfly's %s field is '%s,%s'", names[l][0], names[l][0], names[l][1]);
        return -1;
      }
      for (int e = 0; e < 2; e++)
        if (fl_topo_count(f[e], names[l][e], &v[l][e], why, wsize) != 0)
          return -1;
    }
    if (fl_topo_count(part[3], "nodes", &nodes, why, wsize) != 0)
      return -1;
    g = v[0][0];
    c = v[1][0];
    r = v[2][0];
    if (g > c * r) {
      snprintf(why, wsize,
               "%.0f groups, but a group has %.0f routers (chassis x routers): SimGrid links router n of each group "
               "to group n, and past its last router it writes beyond its table",
               g, c * r);
      return -1;
    }
    *switches = g * c * r;
    *hosts = *switches * nodes;
    /* a link from each router to each of its nodes, green links between the routers of a chassis, black links
     * between the chassis of a group (one per router), blue links between groups */
    *links = *hosts + g * c * r * (r - 1) / 2 + g * r * c * (c - 1) / 2 + g * (g - 1) / 2;
    return 0;
  }
  if (strcmp(topology, "FAT_TREE") == 0) {
    /* "levels;down,...;up,...;links,...": hosts the product of the down counts; at level i+1 the product of the up
     * counts to i and of the down counts past i; from each switch down[i] x links[i] links to its children */
    static const char *names[3] = {"down", "up", "link"};
    double levels, below = 1, ups = 1;
    double *vec[3] = {NULL, NULL, NULL};
    int rc = -1;
    if ((np = fl_split(params, n, ';', part, 4)) != 4) {
      snprintf(why, wsize, "a Fat-Tree is 'levels;down counts;up counts;link counts' (4 fields, not %zu)", np);
      return -1;
    }
    if (fl_topo_count(part[0], "levels", &levels, why, wsize) != 0)
      return -1;
    for (int l = 0; l < 3; l++) {
      size_t pieces = fl_split(part[l + 1].s, part[l + 1].n, ',', NULL, 0);
      double product;
      char what[16];
      if ((double)pieces != levels) {
        snprintf(why, wsize, "%.0f levels, but %zu %s counts", levels, pieces, names[l]);
        goto out;
      }
      if (!(vec[l] = malloc(pieces * sizeof *vec[l]))) {
        snprintf(why, wsize, "out of memory");
        goto out;
      }
      snprintf(what, sizeof what, "%s count", names[l]);
      if (fl_topo_list(part[l + 1], what, vec[l], pieces, &pieces, &product, why, wsize) != 0)
        goto out;
      if (l == 0)
        *hosts = product;
    }
    for (size_t i = 0; i < (size_t)levels; i++) {
      double at;
      below *= vec[0][i];
      ups *= vec[1][i];
      at = ups * (*hosts / below); /* switches at level i+1 */
      *switches += at;
      *links += at * vec[0][i] * vec[2][i];
    }
    rc = 0;
  out:
    for (int l = 0; l < 3; l++)
      free(vec[l]);
    return rc;
  }
  return 0; /* FLAT, or what SimGrid refuses itself */
}

/* A <cluster>'s topology, for the size pass: for a TORUS, FAT_TREE or DRAGONFLY one its hosts (*hosts, which its
 * radical must name), and the memory of its hosts, switches and links (*bytes, *links; else *bytes 0); *topo its
 * topo_parameters (for the messages; xmlFree) when it has them. FL_ERR_INPUT naming the line for parameters SimGrid
 * would misread. */
static fl_err fl_cluster_topology(xmlTextReader *r, const char *file, const char *radical, double *hosts, double *bytes,
                                  double *links, xmlChar **topo)
{
  fl_err rc = FL_OK;
  xmlChar *topology = xmlTextReaderGetAttribute(r, (const xmlChar *)"topology");
  long line = xmlGetLineNo(xmlTextReaderCurrentNode(r));
  char why[256] = "";
  double h, sw, ln, named;
  *bytes = *links = 0;
  *topo = NULL;
  if (!topology || !(strcmp((const char *)topology, "TORUS") == 0 || strcmp((const char *)topology, "FAT_TREE") == 0 ||
                     strcmp((const char *)topology, "DRAGONFLY") == 0))
    goto done;
  *topo = xmlTextReaderGetAttribute(r, (const xmlChar *)"topo_parameters");
  FL_CHECK(*topo != NULL, FL_ERR_INPUT, "%s:%ld: cluster topology = '%s': no topo_parameters", file, line,
           (const char *)topology);
  if (fl_topology_size((const char *)topology, (const char *)*topo, &h, &sw, &ln, why, sizeof why) != 0) {
    rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: cluster topo_parameters = '%.200s': %s", file, line, (const char *)*topo,
                    why);
    goto done;
  }
  /* SimGrid names host i by the radical's i-th number and dies past its last one */
  named = radical ? fl_radical_hosts(radical) : -1;
  if (named >= 0 && h > named) {
    rc = fl_err_set(FL_ERR_INPUT,
                    "%s:%ld: cluster topo_parameters = '%.200s': a %s of %.0f hosts, but radical = "
                    "'%.100s' names %.0f",
                    file, line, (const char *)*topo, (const char *)topology, h, radical, named);
    goto done;
  }
  {
    /* SPLITDUPLEX (FULLDUPLEX) makes two links of each */
    xmlChar *sharing = xmlTextReaderGetAttribute(r, (const xmlChar *)"sharing_policy");
    if (sharing &&
        (strcmp((const char *)sharing, "SPLITDUPLEX") == 0 || strcmp((const char *)sharing, "FULLDUPLEX") == 0))
      ln *= 2;
    xmlFree(sharing);
  }
  *hosts = h;
  *links = ln;
  *bytes = (h + sw) * FL_PLATFORM_TOPO_BYTES_PER_HOST + ln * FL_PLATFORM_FILE_BYTES_PER_LINK;
done:
  xmlFree(topology);
  return rc;
}

/* The file to libxml2 with every NUL byte a space: SimGrid's parser reads past one, libxml2 would stop there */
static int fl_read_no_nul(void *ctx, char *buf, int len)
{
  size_t n = fread(buf, 1, (size_t)len, (FILE *)ctx);
  for (size_t i = 0; i < n; i++)
    if (!buf[i])
      buf[i] = ' ';
  return n == 0 && ferror((FILE *)ctx) ? -1 : (int)n;
}
static int fl_close_file(void *ctx)
{
  return fclose((FILE *)ctx);
}

/* A zone open around the element read: its routing and its members (hosts, routers, zones) */
typedef struct fl_zone_size {
  int quadratic; /* bytes per pair of members: Full 8, Floyd 24 */
  double members;
  long line;
  char id[64];
} fl_zone_size;

/* A zone closed: its routing table counted, and kept for the message when it is the largest */
static void fl_zone_close(const fl_zone_size *z, fl_platform_estimate *est)
{
  double cost = z->quadratic * z->members * z->members;
  est->bytes += cost;
  if (cost > est->table_bytes) {
    est->table_bytes = cost;
    est->table_line = z->line;
    est->table_members = z->members;
    snprintf(est->table_zone, sizeof est->table_zone, "%s", z->id);
  }
}

/* The files an element names (a host's or link's *_file profile, a <trace file>): one that exists but is not a
 * regular file (a FIFO, /dev/zero) would block SimGrid's read or never end; refused here, naming the line. Looked
 * for against the platform file's directory, as faultline resolves profiles, and as written, as SimGrid does. */
static fl_err fl_platform_named_files(xmlTextReader *r, const char *file, const char *element)
{
  fl_err rc = FL_OK;
  long line = xmlGetLineNo(xmlTextReaderCurrentNode(r));
  while (rc == FL_OK && xmlTextReaderMoveToNextAttribute(r) == 1) {
    const char *an = (const char *)xmlTextReaderConstLocalName(r), *val = (const char *)xmlTextReaderConstValue(r);
    const char *why = NULL;
    size_t al = an ? strlen(an) : 0;
    char *abs;
    if (!an || !val || !*val ||
        !((al > 5 && strcmp(an + al - 5, "_file") == 0) || (strcmp(element, "trace") == 0 && strcmp(an, "file") == 0)))
      continue;
    FL_CHECK((abs = fl_input_resolve(file, val)) != NULL, FL_ERR_NOMEM, "out of memory");
    if (fl_input_is_special(abs, &why) || fl_input_is_special(val, &why))
      rc = fl_err_set(FL_ERR_INPUT, "%s:%ld: %s %s = '%.200s': %s", file, line, element, an, val, why);
    free(abs);
  }
  xmlTextReaderMoveToElement(r);
done:
  return rc;
}

fl_err fl_platform_file_estimate(const char *file, fl_platform_estimate *est)
{
  fl_err rc = FL_OK;
  xmlTextReader *r = NULL;
  fl_zone_size zone[64];
  int depth = 0, deeper = 0, step; /* deeper: zones nested past 64, not counted */
  double biggest = 0;

  memset(est, 0, sizeof *est);
  /* read as Latin-1: every byte is a character (SimGrid's own parser takes any byte; a name it accepts must not
   * stop the count), and in recovery mode (what is well-formed enough to read is counted) */
  {
    const char *why;
    FILE *f = fl_input_fopen(file, &why);
    FL_CHECK(f != NULL, FL_ERR_INPUT, "%s: cannot open the platform file: %s", file, why);
    fl_xml_quiet();
    r = xmlReaderForIO(fl_read_no_nul, fl_close_file, f, file, "ISO-8859-1",
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_RECOVER | XML_PARSE_HUGE);
    if (!r)
      fclose(f);
    FL_CHECK(r != NULL, FL_ERR_NOMEM, "%s: out of memory reading the platform file", file);
  }
  while ((step = xmlTextReaderRead(r)) == 1) {
    const char *name = (const char *)xmlTextReaderConstLocalName(r);
    int type = xmlTextReaderNodeType(r), empty = xmlTextReaderIsEmptyElement(r);
    double hosts = 0, members = 1, bytes = -1, links = 0; /* bytes: those of a cluster's topology, or per host */
    const char *attr = NULL;
    xmlChar *value = NULL;
    if (!name)
      continue;
    if (type == XML_READER_TYPE_END_ELEMENT) {
      if ((strcmp(name, "zone") == 0 || strcmp(name, "AS") == 0) && deeper > 0)
        deeper--;
      else if ((strcmp(name, "zone") == 0 || strcmp(name, "AS") == 0) && depth > 0)
        fl_zone_close(&zone[--depth], est);
      continue;
    }
    if (type != XML_READER_TYPE_ELEMENT)
      continue;
    if (xmlTextReaderHasAttributes(r) == 1)
      FL_TRY(fl_platform_named_files(r, file, name));
    if (strcmp(name, "host") == 0 || strcmp(name, "peer") == 0) {
      hosts = 1;
    } else if (strcmp(name, "cluster") == 0 || strcmp(name, "cabinet") == 0) {
      attr = "radical";
      value = xmlTextReaderGetAttribute(r, (const xmlChar *)attr);
      hosts = value ? fmax(0, fl_radical_hosts((const char *)value)) : 0;
      if (strcmp(name, "cluster") == 0) {
        xmlChar *topo = NULL;
        rc = fl_cluster_topology(r, file, (const char *)value, &hosts, &bytes, &links, &topo);
        if (topo && rc == FL_OK && links * FL_PLATFORM_FILE_BYTES_PER_LINK > hosts * FL_PLATFORM_TOPO_BYTES_PER_HOST) {
          /* its links weigh more than its hosts: the message names its topo_parameters */
          attr = "topo_parameters";
          xmlFree(value);
          value = topo;
          topo = NULL;
        }
        xmlFree(topo);
        if (rc != FL_OK) {
          xmlFree(value);
          goto done;
        }
      }
    } else if (strcmp(name, "router") != 0 && strcmp(name, "zone") != 0 && strcmp(name, "AS") != 0) {
      members = 0;
    }
    if (depth > 0)
      zone[depth - 1].members += members;
    if (bytes <= 0)
      bytes = hosts * FL_PLATFORM_FILE_BYTES_PER_HOST;
    est->hosts += hosts;
    est->links += links;
    est->bytes += bytes;
    if (bytes > biggest) {
      /* the element that brings the most memory, for the message */
      biggest = est->element_bytes = bytes;
      est->line = xmlGetLineNo(xmlTextReaderCurrentNode(r));
      snprintf(est->element, sizeof est->element, "%s", name);
      snprintf(est->attr, sizeof est->attr, "%s", attr ? attr : "");
      snprintf(est->value, sizeof est->value, "%s", value ? (const char *)value : "");
    }
    xmlFree(value);
    if ((strcmp(name, "zone") == 0 || strcmp(name, "AS") == 0) && !empty) {
      xmlChar *routing = xmlTextReaderGetAttribute(r, (const xmlChar *)"routing");
      if (depth < (int)(sizeof zone / sizeof zone[0])) {
        zone[depth].quadratic = !routing                                      ? 0
                                : strcmp((const char *)routing, "Full") == 0  ? 8
                                : strcmp((const char *)routing, "Floyd") == 0 ? 24
                                                                              : 0;
        zone[depth].members = 0;
        zone[depth].line = xmlGetLineNo(xmlTextReaderCurrentNode(r));
        {
          xmlChar *id = xmlTextReaderGetAttribute(r, (const xmlChar *)"id");
          snprintf(zone[depth].id, sizeof zone[depth].id, "%s", id ? (const char *)id : "");
          xmlFree(id);
        }
        depth++;
      } else {
        deeper++;
      }
      xmlFree(routing);
    }
  }
  /* a file SimGrid cannot parse: it says why; what was counted up to there stands (zones left open included) */
  while (depth > 0)
    fl_zone_close(&zone[--depth], est);
  est->bytes += FL_PLATFORM_BASE_BYTES;
done:
  if (r)
    xmlFreeTextReader(r);
  return rc;
}

/* Refuse a platform file whose hosts (and the routing tables of its Full and Floyd zones, a pointer or three per
 * pair of members) would not fit in memory, before SimGrid builds any of it. */
static fl_err fl_platform_file_check_size(const char *file)
{
  fl_err rc = FL_OK;
  fl_platform_estimate est;
  double avail = fl_memory_available();
  char a[32], b[32], where[320] = "", links[64] = "", costs[96] = "";
  FL_TRY(fl_platform_file_estimate(file, &est));
  if (est.table_bytes > est.element_bytes)
    snprintf(where, sizeof where, "%ld: zone '%.60s': %.0f members, whose routing table takes %s; ", est.table_line,
             est.table_zone, est.table_members, fl_units_format_bytes(est.table_bytes, a, sizeof a));
  else if (est.value[0])
    snprintf(where, sizeof where, "%ld: %s %s = '%.160s': ", est.line, est.element, est.attr, est.value);
  else if (est.element[0])
    snprintf(where, sizeof where, "%ld: %s: ", est.line, est.element);
  FL_CHECK(est.hosts <= (double)FL_PLATFORM_MAX_NODES, FL_ERR_INPUT, "%s:%s%.0f hosts: at most %ld", file, where,
           est.hosts, (long)FL_PLATFORM_MAX_NODES);
  if (est.links > 0) {
    snprintf(links, sizeof links, " and %.0f links of cluster topologies", est.links);
    snprintf(costs, sizeof costs, ", %.0f a topology's host or switch, %.0f a link", FL_PLATFORM_TOPO_BYTES_PER_HOST,
             FL_PLATFORM_FILE_BYTES_PER_LINK);
  }
  FL_CHECK(est.bytes <= avail, FL_ERR_INPUT,
           "%s:%s%.0f hosts%s would need about %s of memory (%.0f bytes a host%s, measured, and the routing tables "
           "of Full and Floyd zones) but %s are available",
           file, where, est.hosts, links, fl_units_format_bytes(est.bytes, a, sizeof a),
           FL_PLATFORM_FILE_BYTES_PER_HOST, costs, fl_units_format_bytes(avail, b, sizeof b));
done:
  return rc;
}

/* Everything done to a platform file before SimGrid sees it: its size first (a cluster's radical or a Full zone can
 * ask for more memory than there is), then its hosts' state profiles, which become failures faultline plays, and for
 * a bsp job (take_speed) its speed and link profiles too (profiles.h); task graphs and the grid world run on
 * SimGrid's CPUs and network, which play those themselves. */
fl_err fl_platform_file_prepare(const char *file, int take_speed, char **load_path, int *fd, fl_profiles *profiles)
{
  fl_err rc = FL_OK;
  *load_path = NULL;
  *fd = -1;
  memset(profiles, 0, sizeof *profiles);
  FL_TRY(fl_platform_file_check_size(file));
  FL_TRY(fl_profiles_prepare(file, take_speed, load_path, fd, profiles));
done:
  return rc;
}

/* storage.pfs of a file platform: host names or zone:ID, resolved to hosts (FL_ERR_INPUT naming the key). */
static fl_err fl_platform_parse_pfs(const fl_scenario *sc, fl_platform *pf)
{
  fl_err rc = FL_OK;
  char *copy = NULL, *save = NULL;
  const char *p = sc->storage_pfs;
  while (*p == ' ' || *p == '\t')
    p++;
  if (strncmp(p, "zone:", 5) == 0) {
    sg_netzone_t z = sg_zone_get_by_name(p + 5);
    xbt_dynar_t hosts;
    if (!z) {
      rc = fl_scenario_fail(sc, "storage", "pfs", "the platform has no zone '%s'", p + 5);
      goto done;
    }
    hosts = xbt_dynar_new(sizeof(sg_host_t), NULL);
    sg_zone_get_hosts(z, hosts);
    pf->npfs = (long)xbt_dynar_length(hosts);
    if (pf->npfs == 0) {
      xbt_dynar_free(&hosts);
      rc = fl_scenario_fail(sc, "storage", "pfs", "zone '%s' has no host", p + 5);
      goto done;
    }
    FL_ALLOC(pf->pfs, pf->npfs);
    for (long j = 0; j < pf->npfs; j++)
      pf->pfs[j] = xbt_dynar_get_as(hosts, (unsigned long)j, sg_host_t);
    xbt_dynar_free(&hosts);
    qsort(pf->pfs, (size_t)pf->npfs, sizeof *pf->pfs, fl_cmp_host);
  } else {
    FL_ALLOC(copy, strlen(p) + 1);
    strcpy(copy, p);
    FL_ALLOC(pf->pfs, strlen(p) / 2 + 1);
    for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
      sg_host_t h = sg_host_by_name(t);
      if (!h) {
        rc = fl_scenario_fail(sc, "storage", "pfs", "no host '%s' on the platform", t);
        goto done;
      }
      pf->pfs[pf->npfs++] = h;
    }
  }
  for (long j = 0; j < pf->npfs; j++) {
    unsigned int nd = 0;
    sg_disk_t *disks = NULL;
    if (pf->pfs[j] == pf->controller) {
      rc = fl_scenario_fail(sc, "storage", "pfs", "host '%s' is the controller", sg_host_get_name(pf->pfs[j]));
      goto done;
    }
    sg_host_get_disks(pf->pfs[j], &nd, &disks);
    free(disks);
    if (nd == 0) {
      rc = fl_scenario_fail(sc, "storage", "pfs", "host '%s' has no <disk>", sg_host_get_name(pf->pfs[j]));
      goto done;
    }
  }
done:
  free(copy);
  return rc;
}

static int fl_platform_is_pfs(const fl_platform *pf, sg_host_t h)
{
  for (long j = 0; j < pf->npfs; j++)
    if (pf->pfs[j] == h)
      return 1;
  return 0;
}

fl_err fl_platform_key(const fl_scenario *sc, int io, long copies, char *describe, size_t size)
{
  fl_err rc = FL_OK;
  long gen_nodes = sc->platform_nodes > 0 ? sc->platform_nodes : fl_app_job_slots(sc, copies);
  fl_platform_gen gen;
  char *file = NULL;
  fl_platform_gen_from(sc, gen_nodes, sc->platform_file ? 0 : io, &gen);
  if (sc->platform_file) {
    file = fl_scenario_resolve(sc, sc->platform_file);
    FL_CHECK(file != NULL, FL_ERR_NOMEM, "out of memory");
    snprintf(describe, size, "file:%s:controller=%s:pfs=%s%s", file, sc->controller,
             sc->storage_pfs ? sc->storage_pfs : "", fl_app_has(sc, FL_APP_CM02) ? ":cm02" : "");
  } else if (io == 0) {
    snprintf(describe, size, "generated:%ld:%.17g", gen_nodes, sc->node_speed);
  } else {
    snprintf(describe, size, "generated:%ld:%.17g:io=%d:%ld:%.17g:%.17g:%.17g:%.17g:%ld:%.17g:%.17g", gen_nodes,
             sc->node_speed, io, gen.cabinet, gen.link_bw, gen.link_lat_s, gen.cabinet_bw, gen.disk_bw, gen.pfs_servers,
             gen.pfs_bw, gen.pfs_link_bw);
  }
  if (fl_app_has(sc, FL_APP_CM02) && !sc->platform_file)
    strncat(describe, ":cm02", size - strlen(describe) - 1);
done:
  free(file);
  return rc;
}

/* A platform file loaded into SimGrid (its profiles taken out for the app to play where it plays them): its hosts in
 * the natural order of their names, the controller (app.controller, else the first host that never fails, else one
 * faultline adds, said on stderr), the PFS's hosts, and the nodes, which are the others. */
static fl_err fl_platform_load_file(const fl_scenario *sc, const char *file, fl_platform *pf)
{
  fl_err rc = FL_OK;
  sg_host_t *all;
  size_t count, k = 0;
  char *load_path = NULL;
  int pfd = -1;
  FL_TRY(fl_platform_file_prepare(file, fl_app_has(sc, FL_APP_SPEED_PROFILES), &load_path, &pfd, &pf->profiles));
  fl_simgrid_init(0, 0, fl_app_has(sc, FL_APP_CM02));
  fl_sg_watch_hosts(); /* the host list comes from the load itself */
  rc = fl_load_user_platform(sc, load_path);
  free(load_path);
  if (pfd >= 0)
    close(pfd);
  if (rc != FL_OK)
    goto done;
  /* SimGrid 3.32 rebuilds and sorts the whole host list on each sg_host_count(), sg_host_list() or
   * get_all_hosts() (seconds at a million hosts): the hosts were collected as SimGrid created them */
  all = fl_sg_all_hosts(&count);
  FL_CHECK(all != NULL, FL_ERR_NOMEM, "out of memory listing the hosts");
  if (count < 2) {
    free(all);
    rc = fl_err_set(FL_ERR_INPUT, "%s: the platform has %zu host%s; it needs a controller and at least one node", file,
                    count, count == 1 ? "" : "s");
    goto done;
  }
  qsort(all, count, sizeof *all, fl_cmp_host); /* natural order of names */
  pf->controller = sg_host_by_name(sc->controller);
  if (pf->controller && fl_profiles_find(&pf->profiles, sc->controller)) {
    free(all);
    rc = fl_scenario_fail(sc, "platform", "controller",
                          "host '%s' has a state profile in %s: the controller runs the simulator and must never fail",
                          sc->controller, file);
    goto done;
  }
  if (!pf->controller) {
    /* no host of that name: the first host by name that never fails serves, is no node of the job, and the user
     * is told; when every host may fail, faultline adds its own */
    for (size_t i = 0; i < count && !pf->controller; i++)
      if (!fl_profiles_find(&pf->profiles, sg_host_get_name(all[i])))
        pf->controller = all[i];
    if (!pf->controller) {
      pf->controller = fl_sg_add_host("faultline-controller", 1e9);
      pf->controller_added = 1;
    }
    pf->controller_substituted = 1;
    fprintf(stderr,
            "faultline: %s: no host named '%s' ([platform] controller): host '%s' runs the simulator's actors "
            "and is not a node of the job%s\n",
            file, sc->controller, sg_host_get_name(pf->controller),
            pf->controller_added ? " (added: every host of the file has a state profile)" : "");
  }
  if (sc->storage_pfs && (rc = fl_platform_parse_pfs(sc, pf)) != FL_OK) {
    free(all);
    goto done;
  }
  /* storage hosts run no ranks and are no spares */
  pf->nnodes = (long)count - (pf->controller_added ? 0 : 1) - pf->npfs;
  if (pf->nnodes < 1) {
    free(all);
    rc = fl_scenario_fail(sc, "storage", "pfs", "no host of %s is left to run ranks", file);
    goto done;
  }
  FL_ALLOC(pf->hosts, pf->nnodes);
  FL_ALLOC(pf->names, pf->nnodes);
  for (size_t i = 0; i < count; i++) {
    if (all[i] == pf->controller || fl_platform_is_pfs(pf, all[i]))
      continue;
    pf->hosts[k] = all[i];
    pf->names[k] = sg_host_get_name(all[i]);
    k++;
  }
  free(all);
done:
  return rc;
}

fl_err fl_platform_get(const fl_scenario *sc, int io, long copies, fl_platform **out)
{
  fl_err rc = FL_OK;
  fl_platform *pf = NULL;
  char *file = NULL, tmpl[4096], loadpath[4200];
  char describe[4200];
  FILE *f = NULL;
  int fd = -1, tmp_made = 0;
  long gen_nodes = sc->platform_nodes > 0 ? sc->platform_nodes : fl_app_job_slots(sc, copies);
  fl_platform_gen gen;

  *out = NULL;
  fl_platform_gen_from(sc, gen_nodes, sc->platform_file ? 0 : io, &gen);
  if (sc->platform_file) {
    file = fl_scenario_resolve(sc, sc->platform_file);
    FL_CHECK(file != NULL, FL_ERR_NOMEM, "out of memory");
  }
  FL_TRY(fl_platform_key(sc, io, copies, describe, sizeof describe));
  if (fl_the_platform) {
    FL_CHECK(strcmp(fl_the_platform->describe, describe) == 0, FL_ERR_SIM,
             "SimGrid loads one platform per process: '%s' is loaded, '%s' asked for", fl_the_platform->describe,
             describe);
    *out = fl_the_platform;
    goto done;
  }
  FL_ALLOC(pf, 1);
  FL_ALLOC(pf->describe, strlen(describe) + 1);
  strcpy(pf->describe, describe);
  {
    char gname[64];
    const char *name = file;
    if (!file) {
      snprintf(gname, sizeof gname, "generated (%ld nodes)", gen_nodes);
      name = gname;
    }
    FL_ALLOC(pf->name, strlen(name) + 1);
    strcpy(pf->name, name);
  }

  if (!file) {
    const char *dir = getenv("TMPDIR");
    FL_TRY(fl_platform_check_size(sc, gen_nodes)); /* before anything is written or built */
    if (!fl_platform_gen_routable(&gen)) {
      rc = fl_scenario_fail(sc, "platform", "io_flows",
                            "per-rank flows on a generated platform of %ld cabinets: at most %ld cabinets (their "
                            "routes grow as the square); use aggregated",
                            fl_platform_gen_cabinets(&gen), FL_PLATFORM_PER_RANK_MAX_CABINETS);
      goto done;
    }
    if (gen.io == 0) {
      /* no network: the hosts made by SimGrid's API when first asked for (fl_platform_realize; the XML form,
       * fl_platform_write_xml, is the same platform, and at a million nodes its writing and parsing took a third
       * of the set-up) */
      FL_ALLOC(pf->hosts, gen_nodes);
      pf->lazy = 1;
      pf->cm02 = fl_app_has(sc, FL_APP_CM02);
      pf->generated = 1;
      pf->gen = gen;
      pf->nnodes = gen_nodes;
      goto made;
    }
    snprintf(tmpl, sizeof tmpl, "%s/faultline-platform-XXXXXX.xml", dir && *dir ? dir : "/tmp");
    fd = mkstemps(tmpl, 4);
    FL_CHECK(fd >= 0, FL_ERR_IO, "cannot create a temporary platform file %s: %s", tmpl, strerror(errno));
    /* The name is removed at once: SimGrid reads the file through /proc/self/fd, so nothing is left on disk
     * however the process ends, kill -9 included. Where /proc is missing, the named file is kept until loaded
     * and removed on every other exit path (fl_cleanup). */
    if (access("/proc/self/fd", X_OK) == 0 && unlink(tmpl) == 0) {
      snprintf(loadpath, sizeof loadpath, "/proc/self/fd/%d", fd);
    } else {
      tmp_made = 1;
      FL_TRY(fl_cleanup_add(tmpl)); /* removed on a signal too */
      snprintf(loadpath, sizeof loadpath, "%s", tmpl);
    }
    {
      int wfd = dup(fd);
      FL_CHECK(wfd >= 0 && (f = fdopen(wfd, "w")) != NULL, FL_ERR_IO, "%s: %s", tmpl, strerror(errno));
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    FL_TRY(fl_platform_write_xml(f, &gen));
    FL_CHECK(fclose(f) == 0, FL_ERR_IO, "%s: %s", tmpl, strerror(errno));
    f = NULL;
    fl_simgrid_init(gen_nodes, 1, fl_app_has(sc, FL_APP_CM02));
    simgrid_load_platform(loadpath);
    pf->generated = 1;
    pf->gen = gen;
    pf->nnodes = gen_nodes;
    pf->controller = sg_host_by_name("controller");
    FL_ALLOC(pf->hosts, gen_nodes);
    if (io && io != FL_PLATFORM_CLUSTER && gen.pfs_servers > 0) {
      pf->npfs = gen.pfs_servers;
      FL_ALLOC(pf->pfs, pf->npfs);
      for (long j = 0; j < pf->npfs; j++) {
        char name[32];
        snprintf(name, sizeof name, "pfs-%ld", j);
        pf->pfs[j] = sg_host_by_name(name);
      }
    }
  } else {
    FL_TRY(fl_platform_load_file(sc, file, pf));
  }
made:
  FL_CHECK(pf->lazy || pf->controller != NULL, FL_ERR_SIM, "the platform has no controller host");
  fl_the_platform = pf;
  *out = pf;
  pf = NULL;
done:
  if (f)
    fclose(f);
  if (fd >= 0)
    close(fd);
  if (tmp_made)
    fl_cleanup_remove(tmpl);
  if (pf) {
    free(pf->describe);
    free(pf->name);
    free(pf->hosts);
    free(pf->names);
    free(pf->pfs);
    fl_profiles_free(&pf->profiles);
    free(pf);
  }
  free(file);
  return rc;
}

long fl_platform_nodes(const fl_platform *pf)
{
  return pf->nnodes;
}
const char *fl_platform_describe(const fl_platform *pf)
{
  return pf->name;
}
sg_host_t fl_platform_controller(const fl_platform *pf)
{
  fl_platform_realize((fl_platform *)(uintptr_t)pf); /* (made on first use: the same platform, as if made before) */
  return pf->controller;
}
const char *fl_platform_controller_name(const fl_platform *pf)
{
  return pf->lazy ? "controller" : sg_host_get_name(pf->controller);
}
int fl_platform_controller_substituted(const fl_platform *pf)
{
  return pf->controller_substituted;
}

void fl_platform_realize(fl_platform *pf)
{
  if (!pf->lazy)
    return;
  pf->lazy = 0;
  fl_simgrid_init(pf->nnodes, 1, pf->cm02);
  pf->controller = fl_sg_build_plain(pf->nnodes, pf->gen.speed, pf->hosts);
}

int fl_platform_realized(const fl_platform *pf)
{
  return !pf->lazy;
}

sg_host_t fl_platform_host(fl_platform *pf, long node)
{
  fl_platform_realize(pf);
  if (!pf->hosts[node]) {
    char name[32];
    snprintf(name, sizeof name, "node-%ld", node);
    pf->hosts[node] = sg_host_by_name(name);
  }
  return pf->hosts[node];
}

fl_err fl_platform_power(fl_platform *pf, const fl_scenario *sc, fl_power **per_node, fl_power *uniform)
{
  fl_err rc = FL_OK;
  fl_power *p = NULL;
  int differ = 0;

  *per_node = NULL;
  *uniform = (fl_power){.idle = sc->node_power[0],
                        .epsilon = sc->node_power[1],
                        .busy = sc->node_power[2],
                        .off = sc->node_power_off,
                        .cores = 1};
  if (pf->generated)
    return FL_OK;
  FL_ALLOC(p, pf->nnodes);
  for (long n = 0; n < pf->nnodes; n++) {
    sg_host_t h = fl_platform_host(pf, n);
    const char *ws = sg_host_get_property_value(h, "wattage_per_state");
    const char *wo = sg_host_get_property_value(h, "wattage_off");
    double w[3];
    p[n] = *uniform;
    p[n].cores = sg_host_core_count(h);
    if (ws) {
      int pstate = sg_host_get_pstate(h);
      if (fl_units_wattage(ws, pstate, w) != FL_OK) {
        rc = fl_err_set(FL_ERR_INPUT, "%s: host '%s': wattage_per_state = '%.200s': %s", pf->name, sg_host_get_name(h),
                        ws, fl_err_msg());
        goto done;
      }
      p[n].idle = w[0];
      p[n].epsilon = w[1];
      p[n].busy = w[2];
    }
    if (wo && (fl_units_power(wo, &p[n].off) != FL_OK || p[n].off < 0)) {
      rc = fl_err_set(FL_ERR_INPUT, "%s: host '%s': wattage_off = '%.200s': not a power in watts, 0 or more", pf->name,
                      sg_host_get_name(h), wo);
      goto done;
    }
    if (p[n].idle != p[0].idle || p[n].epsilon != p[0].epsilon || p[n].busy != p[0].busy || p[n].off != p[0].off ||
        p[n].cores != p[0].cores)
      differ = 1;
  }
  if (differ) {
    *per_node = p;
    p = NULL;
  } else if (pf->nnodes > 0) {
    *uniform = p[0];
  }
done:
  free(p);
  return rc;
}

long fl_platform_node_of(const fl_platform *pf, const char *name)
{
  if (pf->generated) {
    char *end = NULL;
    long i;
    if (strncmp(name, "node-", 5) != 0)
      return -1;
    errno = 0;
    i = strtol(name + 5, &end, 10);
    return (errno == 0 && *end == '\0' && i >= 0 && i < pf->nnodes && name[5] != '\0') ? i : -1;
  }
  /* names[] is in natural order */
  {
    const char *key = name;
    const char **hit = bsearch(&key, pf->names, (size_t)pf->nnodes, sizeof *pf->names, fl_cmp_name);
    return hit ? (long)(hit - pf->names) : -1;
  }
}

const fl_profiles *fl_platform_profiles(const fl_platform *pf)
{
  return &pf->profiles;
}

int fl_platform_io(const fl_platform *pf)
{
  return pf->generated ? pf->gen.io : 0;
}
const fl_platform_gen *fl_platform_generated(const fl_platform *pf)
{
  return pf->generated ? &pf->gen : NULL;
}
long fl_platform_pfs_count(const fl_platform *pf)
{
  return pf->npfs;
}
sg_host_t fl_platform_pfs_host(const fl_platform *pf, long j)
{
  return pf->pfs[j];
}

/* SimGrid 3.32 crashes (SIGSEGV, or an abort on "bad gateways") on a route query it cannot answer: the queries are
 * asked in a child process first, one pair of hosts per pair of zones (and two hosts of each zone), each pair's
 * index sent up a pipe before its query, so that a child ended by a signal names the pair that has no route. */
fl_err fl_platform_check_routes(const fl_platform *pf, const fl_scenario *sc, sg_host_t *host, long H, const char *why)
{
  fl_err rc = FL_OK;
  enum { FL_ZONES_ALL_PAIRS = 64 };
  long *rep = NULL, nz = 0, *second = NULL, npairs = 0, (*pairs)[2] = NULL, last = -1;
  int fds[2] = {-1, -1}, st = 0;
  pid_t pid;

  FL_ALLOC(rep, H);
  FL_ALLOC(second, H);
  for (long p = 0; p < H; p++) {
    long z = 0;
    while (z < nz && strcmp(fl_sg_zone_name(host[rep[z]]), fl_sg_zone_name(host[p])) != 0)
      z++;
    if (z == nz) {
      rep[nz] = p;
      second[nz++] = -1;
    } else if (second[z] < 0) {
      second[z] = p;
    }
  }
  /* within each zone; between every two zones (or, with many zones, each to the first and to the next) */
  FL_ALLOC(pairs, 2 * nz * (nz <= FL_ZONES_ALL_PAIRS ? nz : 3) + 1);
  for (long z = 0; z < nz; z++) {
    if (second[z] >= 0) {
      pairs[npairs][0] = rep[z];
      pairs[npairs++][1] = second[z];
    }
    for (long y = 0; y < nz; y++)
      if (y != z && (nz <= FL_ZONES_ALL_PAIRS || y == 0 || z == 0 || y == z + 1)) {
        pairs[npairs][0] = rep[z];
        pairs[npairs++][1] = rep[y];
      }
  }
  if (npairs == 0)
    goto done;
  FL_CHECK(pipe(fds) == 0, FL_ERR_IO, "pipe: %s", strerror(errno));
  fflush(NULL);
  pid = fork();
  FL_CHECK(pid >= 0, FL_ERR_IO, "fork: %s", strerror(errno));
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    close(fds[0]);
    if (devnull >= 0)
      dup2(devnull, STDERR_FILENO); /* SimGrid's own last words: the parent says what happened, in one line */
    for (long k = 0; k < npairs; k++) {
      if (write(fds[1], &k, sizeof k) != (ssize_t)sizeof k)
        _exit(3);
      (void)sg_host_get_route_latency(host[pairs[k][0]], host[pairs[k][1]]);
    }
    _exit(0);
  }
  close(fds[1]);
  fds[1] = -1;
  for (long k; read(fds[0], &k, sizeof k) == (ssize_t)sizeof k;)
    last = k;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0) && last >= 0) {
    sg_host_t a = host[pairs[last][0]], b = host[pairs[last][1]];
    rc = fl_scenario_fail(sc, "platform", "file",
                          "no route from host %s (zone '%s') to host %s (zone '%s') in platform '%s': %s (add a "
                          "zoneRoute, or use one zone)",
                          sg_host_get_name(a), fl_sg_zone_name(a), sg_host_get_name(b), fl_sg_zone_name(b),
                          fl_platform_describe(pf), why);
  }
done:
  if (fds[0] >= 0)
    close(fds[0]);
  if (fds[1] >= 0)
    close(fds[1]);
  free(rep);
  free(second);
  free(pairs);
  return rc;
}
