/* test_html.c — `faultline report DB --html FILE` opened in a real browser (headless Chromium): the page loads, its
 * DOM holds the table and the inline plots, and the plots render: a screenshot of the page is much richer than a
 * screenshot of the same page with its plots taken out (PNG bytes: > 1.3x, a ratio taken in the same run; 1.75x
 * measured). Slow (a browser
 * starts twice); skipped (77) without Chromium or gnuplot (scripts/test.sh installs Chromium when FL_TEST_ALL=1). */
#include "cli_util.h"
#include "fl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *browser(void)
{
  static const char *const names[] = {"chromium", "chromium-browser", "google-chrome", NULL};
  for (int i = 0; names[i]; i++) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", names[i]);
    if (system(cmd) == 0)
      return names[i];
  }
  return NULL;
}

static long file_size(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Chromium, headless, on a local file: mode "--dump-dom" (stdout to out) or "--screenshot=OUT". */
static int chromium(const char *mode, const char *page, const char *out)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars "
           "--window-size=1200,2400 %s%s 'file://%s' %s%s%s 2>/dev/null",
           browser(), mode, strcmp(mode, "--screenshot=") == 0 ? out : "", page,
           strcmp(mode, "--dump-dom") == 0 ? ">'" : "", strcmp(mode, "--dump-dom") == 0 ? out : "",
           strcmp(mode, "--dump-dom") == 0 ? "'" : "");
  return system(cmd);
}

/* The page at `hash`, in the browser: the values (data-v) of column `fig`'s cells in the DOM's row order. */
static int sorted_column(const char *page, const char *hash, const char *fig, double *v, int max)
{
  char url[1100], dom_path[1024], key[64];
  long n = 0;
  int k = 0;
  char *dom;
  snprintf(url, sizeof url, "%s%s", page, hash);
  snprintf(dom_path, sizeof dom_path, "%s", fl_test_tmp("sorted.html"));
  if (chromium("--dump-dom", url, dom_path) != 0 || !(dom = fl_test_read_file(dom_path, &n)))
    return -1;
  snprintf(key, sizeof key, "<td class=\"num\" data-fig=\"%s\" data-v=\"", fig);
  for (const char *p = strstr(dom, key); p && k < max; p = strstr(p + 1, key))
    v[k++] = strtod(p + strlen(key), NULL);
  free(dom);
  return k;
}

static void test_html_in_browser(void)
{
  long n = 0;
  char *page, *dom, *cut;
  char path[1024], dom_path[1024], bare[1024], shot[1024], shot_bare[1024];
  fl_cli_write("h.ini", "[run]\nname = html\nseed = 4\nreplicas = 5\nevents = all\n"
                        "sweep = failures.node_mtbf=1y,4y strategy.kind=checkpoint,buddy\n[platform]\nnodes = 600\n"
                        "[app]\nnodes = 512\nwork = 12h\n[strategy]\ncheckpoint_cost = 5min\nrestart_cost = 5min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate h.ini --db h.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report h.sqlite --html report.html", 120), 0);
  snprintf(path, sizeof path, "%s", fl_test_tmp("report.html"));
  page = fl_test_read_file(path, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(page);
  /* self-contained: one inline script (the table's sorting), nothing fetched */
  CU_ASSERT_PTR_NULL(strstr(page, "<script src"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<script>"));
  CU_ASSERT_PTR_NULL(strstr(strstr(page, "<script>") + 1, "<script"));
  CU_ASSERT_PTR_NULL(strstr(page, "http://www.w3.org/1999/xlink\" xlink:href=\"http"));

  /* the browser's DOM: the table and the two figures (waste against the MTBF, one run's events) */
  snprintf(dom_path, sizeof dom_path, "%s", fl_test_tmp("dom.html"));
  CU_ASSERT_EQUAL(chromium("--dump-dom", path, dom_path), 0);
  dom = fl_test_read_file(dom_path, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dom);
  CU_ASSERT_PTR_NOT_NULL(strstr(dom, "id=\"table\""));
  {
    int figures = 0;
    for (const char *p = strstr(dom, "<figure"); p; p = strstr(p + 1, "<figure"))
      figures += strstr(p, "<svg") != NULL;
    CU_ASSERT_EQUAL(figures, 2);
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(dom, ">checkpoint<"));
  free(dom);

  /* the table sorts in the browser: asked by the address, by makespan down, then up */
  {
    double desc[16], asc[16];
    int nd = sorted_column(path, "#sort=makespan_s:desc", "makespan_s", desc, 16);
    int na = sorted_column(path, "#sort=makespan_s", "makespan_s", asc, 16);
    CU_ASSERT_EQUAL(nd, 4);
    CU_ASSERT_EQUAL(na, 4);
    for (int i = 1; i < nd; i++)
      CU_ASSERT(desc[i - 1] >= desc[i]);
    for (int i = 1; i < na; i++)
      CU_ASSERT(asc[i - 1] <= asc[i]);
    CU_ASSERT(nd == 4 && desc[0] > desc[3]); /* not all equal: the order means something */
    for (int i = 0; i < na && i < nd; i++)
      CU_ASSERT_EQUAL(asc[i], desc[nd - 1 - i]);
  }

  /* the plots render: the page against itself without them */
  snprintf(bare, sizeof bare, "%s", fl_test_tmp("bare.html"));
  while ((cut = strstr(page, "<svg"))) {
    char *end = strstr(cut, "</svg>");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    memmove(cut, end + 6, strlen(end + 6) + 1);
  }
  {
    FILE *f = fopen(bare, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(page, f);
    fclose(f);
  }
  free(page);
  snprintf(shot, sizeof shot, "%s", fl_test_tmp("page.png"));
  snprintf(shot_bare, sizeof shot_bare, "%s", fl_test_tmp("bare.png"));
  CU_ASSERT_EQUAL(chromium("--screenshot=", path, shot), 0);
  CU_ASSERT_EQUAL(chromium("--screenshot=", bare, shot_bare), 0);
  fprintf(stderr, "\n    screenshot: %ld bytes with the plots, %ld without", file_size(shot), file_size(shot_bare));
  CU_ASSERT(file_size(shot_bare) > 0);
  CU_ASSERT(file_size(shot) > 13 * file_size(shot_bare) / 10); /* plots drawn: colour, lines, bands */
}

/* The page in a window 1280 pixels wide: the right edge of each of its tables, as the browser lays it out (a page of
 * this test's loads the report in a frame of that width and writes what it measured into its own DOM). */
static int table_edges(const char *report, int *right, int max)
{
  char wrapper[1024], dom_path[1024], cmd[4096];
  long n = 0;
  int k = 0;
  char *dom;
  const char *p;
  FILE *f;
  snprintf(wrapper, sizeof wrapper, "%s", fl_test_tmp("measure.html"));
  snprintf(dom_path, sizeof dom_path, "%s", fl_test_tmp("measured.html"));
  f = fopen(wrapper, "w");
  if (!f)
    return -1;
  fprintf(f,
          "<!doctype html><html><body style=\"margin:0\"><iframe id=\"f\" src=\"file://%s\" "
          "style=\"width:1280px;height:900px;border:0\"></iframe><script>\n"
          "document.getElementById('f').onload = function () {\n"
          "  var out = [];\n"
          "  this.contentDocument.querySelectorAll('table').forEach(function (t) {\n"
          "    out.push(Math.round(t.getBoundingClientRect().right)); });\n"
          "  var p = document.createElement('pre'); p.textContent = 'edges=' + out.join(',') + ';';\n"
          "  document.body.appendChild(p); };\n</script></body></html>\n",
          report);
  fclose(f);
  snprintf(
      cmd, sizeof cmd,
      "timeout 120 %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --allow-file-access-from-files "
      "--window-size=1300,1000 --virtual-time-budget=5000 --dump-dom 'file://%s' >'%s' 2>/dev/null",
      browser(), wrapper, dom_path);
  if (system(cmd) != 0 || !(dom = fl_test_read_file(dom_path, &n)))
    return -1;
  if ((p = strstr(dom, "<pre>edges="))) /* (the element the script added, not the script's own text) */
    for (p += 11; k < max && *p >= '0' && *p <= '9'; p += strspn(p, ","))
      right[k++] = (int)strtol(p, (char **)&p, 10);
  free(dom);
  return k;
}

/* Both tables of a study's page — configurations by four failure rates and three strategies with their own costs,
 * every figure, and the paired comparison against the file system — fit a window 1280 pixels wide: a key with one
 * value in every row is said above its table, numbers carry 3 significant digits (2 for an interval) in one unit
 * per column, the heads wrap, a ratio goes under its difference. */
static void test_html_fits_1280(void)
{
  int right[8], n;
  fl_cli_write("w.ini", "[run]\nname = widths\nseed = 3\nreplicas = 4\nevents = none\nsweep = failures.node_mtbf=2y,5y,"
                        "10y,25y strategy.kind+strategy.checkpoint_cost+strategy.restart_cost=checkpoint/5min/5min,"
                        "two-level/30s/30s,replication/5min/5min\n[platform]\nnodes = 10000\n[failures]\nrepair = 1h\n"
                        "[app]\nnodes = 4900\nwork = 24h\n[strategy]\nfile_cost = 5min\nfile_every = 4\ndowntime = "
                        "30s\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate w.ini --db w.sqlite --quiet", 300), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report w.sqlite --html w.html", 120), 0);
  n = table_edges(fl_test_tmp("w.html"), right, 8);
  /* the summary, the strategies' paired comparison, and the one against the default node MTBF (5y) */
  CU_ASSERT_EQUAL(n, 3);
  for (int i = 0; i < n; i++) {
    fprintf(stderr, "\n    table %d: right edge at %d px", i, right[i]);
    CU_ASSERT(right[i] > 600 && right[i] <= 1280);
  }
}

static CU_TestInfo html_tests[] = {
    {"the HTML report in headless Chromium", test_html_in_browser},
    {"the HTML report's tables fit a window 1280 pixels wide", test_html_fits_1280},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"html", NULL, NULL, NULL, NULL, html_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  if (!browser() || system("gnuplot --version >/dev/null 2>&1") != 0) {
    fprintf(stderr, "no Chromium or no gnuplot (FL_TEST_ALL=1 scripts/test.sh installs them): skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
