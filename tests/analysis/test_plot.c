/* test_plot.c — `faultline report DB --plot FILE --x KEY`: gnuplot draws one line per strategy with its CI band,
 * as SVG or PNG; bad requests (a key that does not vary, an unknown extension or y) are one line, exit 2, no file.
 * Skipped (77) when gnuplot is not installed (scripts/setup.sh installs it). */
#include "cli_util.h"
#include "fl_test.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SCEN = "[run]\nname = plotme\nseed = 3\nreplicas = 6\nevents = none\n"
                                "sweep = failures.node_mtbf=1y,3y,10y strategy.kind=checkpoint,buddy\n"
                                "[platform]\nnodes = 600\n[app]\nnodes = 512\nwork = 24h\n"
                                "[strategy]\ncheckpoint_cost = 10min\nrestart_cost = 10min\n";

static void test_plot_svg_png(void)
{
  long n = 0;
  char *svg;
  fl_cli_write("plot.ini", SCEN);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate plot.ini --db p.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot waste.svg --x failures.node_mtbf", 60), 0);
  svg = fl_test_read_file(fl_test_tmp("waste.svg"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<svg"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">checkpoint<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">buddy<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, "failures.node_mtbf"));
  CU_ASSERT(n > 5000); /* axes, two lines, two bands */
  free(svg);
  /* any numeric results column, with its unit on the axis */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot nh.svg --x failures.node_mtbf --y node_hours", 60), 0);
  svg = fl_test_read_file(fl_test_tmp("nh.svg"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, "node_hours (node-h)"));
  free(svg);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot ct.svg --x failures.node_mtbf --y strategy", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "a numeric results column"));
  /* bars: a bar per configuration, labelled by what varies, with its interval */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot bars.svg --bars --y node_hours", 60), 0);
  svg = fl_test_read_file(fl_test_tmp("bars.svg"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">buddy 1y<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">checkpoint 10y<"));
  free(svg);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot bars2.svg --bars --x failures.node_mtbf", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot bars2.svg --bars --y strategy", 60), 2);
  CU_ASSERT_FALSE(fl_cli_exists("bars2.svg"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot m.png --x failures.node_mtbf --y makespan", 60), 0);
  {
    char *png = fl_test_read_file(fl_test_tmp("m.png"), &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(png);
    CU_ASSERT(n > 1000 && memcmp(png, "\x89PNG", 4) == 0);
    free(png);
  }
}

static void test_plot_bad_requests(void)
{
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot w2.svg --x app.work", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--x app.work: does not vary in these rows; keys that vary: "
                                            "failures.node_mtbf"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot w2.svg --x strategy.kind", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "is not a numeric scenario key"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot w2.txt --x failures.node_mtbf", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "must end in .svg, .png or .pdf"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot w2.svg --x failures.node_mtbf --y speed", 60), 2);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --plot w2.svg", 60), 2);
  CU_ASSERT_FALSE(fl_cli_exists("w2.svg"));
  CU_ASSERT_FALSE(fl_cli_exists("w2.txt"));
}

/* The timeline `file` drew the kinds a run with failures logs */
static void check_timeline_svg(const char *file)
{
  long n = 0;
  char *svg = fl_test_read_file(fl_test_tmp(file), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(svg);
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">checkpoint<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">failure<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, ">restart<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(svg, "time (hours)"));
  free(svg);
}

/* One run on a time axis: a Gantt chart of its phases, failures and nodes down. */
static void test_timeline(void)
{
  fl_cli_write("tl.ini", "[run]\nname = tl\nseed = 5\nreplicas = 1\nevents = all\n[platform]\nnodes = 600\n"
                         "[failures]\nnode_mtbf = 0.5y\nrepair = 1h\n[app]\nnodes = 512\nwork = 12h\n"
                         "[strategy]\ncheckpoint_cost = 2min\nrestart_cost = 2min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tl.ini --db tl.sqlite --quiet", 60), 0);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --timeline 1 --plot tl.svg", 60), 0);
  check_timeline_svg("tl.svg");
  /* a file of schema 2 (events as text) is read as it is, read-only: the same timeline, the file unchanged */
  {
    sqlite3 *h = NULL;
    CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate tl.ini --db tl2.sqlite --quiet", 60), 0);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(fl_test_tmp("tl2.sqlite"), &h), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(h, "PRAGMA journal_mode=DELETE;" FL_CLI_EVENTS_AS_TEXT_SQL "PRAGMA user_version = 2",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    sqlite3_close(h);
    CU_ASSERT_EQUAL(fl_cli_run_limited("report tl2.sqlite --timeline 1 --plot tlo.svg", 60), 0);
    check_timeline_svg("tlo.svg");
    CU_ASSERT_EQUAL(fl_cli_query("tl2.sqlite", "PRAGMA user_version"), 2);
    CU_ASSERT_EQUAL(
        fl_cli_query("tl2.sqlite", "SELECT COUNT(*) FROM pragma_table_info('events') WHERE name = 'detail'"), 1);
  }
  /* a bsp run stored without events is simulated again from its row for its timeline (test_trace: a task graph's
   * without events is refused) */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report p.sqlite --timeline 1 --plot tl3.svg", 60), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "simulated again from its row for the timeline, to the same makespan"));
  CU_ASSERT_TRUE(fl_cli_exists("tl3.svg"));
  /* a run that does not exist, --timeline without --plot: one line, exit 2, no file */
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --timeline 7 --plot tl2.svg", 60), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--timeline 7: no such run"));
  CU_ASSERT_EQUAL(fl_cli_run_limited("report tl.sqlite --timeline 1", 60), 2);
  CU_ASSERT_FALSE(fl_cli_exists("tl2.svg"));
}

/* The HTML page without a browser (test_html opens it in one): the summary is a <table> of the groups, a row each,
 * one unit per column in its head; the timeline shown is of the run that had the most failures. */
static void test_html_page(void)
{
  long n = 0;
  char *page, sql[128];
  int rows = 0;
  fl_cli_write("hp.ini", "[run]\nname = hp\nseed = 5\nreplicas = 4\nevents = all\n"
                         "sweep = strategy.kind=checkpoint,none\n[platform]\nnodes = 600\n"
                         "[failures]\nnode_mtbf = 0.5y\nrepair = 1h\n[app]\nnodes = 512\nwork = 12h\n"
                         "[strategy]\ncheckpoint_cost = 2min\nrestart_cost = 2min\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate hp.ini --db hp.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report hp.sqlite --html hp.html", 120), 0);
  page = fl_test_read_file(fl_test_tmp("hp.html"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(page);
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<table id=\"summary\" class=\"sortable\">"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<th data-fig=\"strategy.kind\">strategy.<wbr>kind</th>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<th data-fig=\"makespan_s\">makespan (h)</th>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<th data-fig=\"waste\">waste (%)</th>"));
  { /* energy in the unit its largest mean reads best in: kWh, MWh or GWh */
    const char *e = strstr(page, "<th data-fig=\"energy_j\">energy (");
    CU_ASSERT_PTR_NOT_NULL(e);
    CU_ASSERT(e && (strncmp(e + 32, "kWh)</th>", 9) == 0 || strncmp(e + 32, "MWh)</th>", 9) == 0 ||
                    strncmp(e + 32, "GWh)</th>", 9) == 0));
  }
  for (const char *p = strstr(page, "<tbody>"); p && (p = strstr(p, "<tr>")) && p < strstr(page, "</tbody>"); p++)
    rows++;
  CU_ASSERT_EQUAL(rows, 2);
  CU_ASSERT_PTR_NULL(strstr(page, "<script src")); /* one inline script: the tables' sorting */
  /* the paired comparison: none against checkpoint, run by run; its makespan difference is the mean of the
   * pairs' differences, computed here from the rows */
  {
    const char *paired = strstr(page, "<table id=\"paired\"");
    const char *cell = paired ? strstr(paired, "data-fig=\"makespan_s_diff\" data-v=\"") : NULL;
    double want = fl_cli_query("hp.sqlite", "SELECT AVG(a.makespan_s - b.makespan_s) FROM runs a JOIN runs b ON "
                                            "a.seed = b.seed AND a.replica = b.replica WHERE a.strategy = 'none' AND "
                                            "b.strategy = 'checkpoint' AND a.status = 'completed' AND "
                                            "b.status = 'completed'");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
    CU_ASSERT_DOUBLE_EQUAL(strtod(cell + strlen("data-fig=\"makespan_s_diff\" data-v=\""), NULL), want,
                           1e-9 * fabs(want));
    CU_ASSERT_PTR_NOT_NULL(strstr(page, "the run of the baseline <code>strategy.kind=checkpoint</code>"));
  }
  /* no numeric key varies: the two strategies as bars, not "nothing to draw" */
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "waste of each configuration"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, ">checkpoint<"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, ">none<"));
  {
    /* the run drawn had failures */
    const char *run = strstr(page, "<h2>Run ");
    long id = run ? atol(run + 8) : 0;
    CU_ASSERT_FATAL(id > 0);
    snprintf(sql, sizeof sql, "SELECT failures FROM runs WHERE id = %ld", id);
    CU_ASSERT(fl_cli_query("hp.sqlite", sql) > 0);
    /* the one with the most failures: the timeline worth looking at (not simply the first run) */
    CU_ASSERT_EQUAL(fl_cli_query("hp.sqlite", sql), fl_cli_query("hp.sqlite", "SELECT MAX(failures) FROM runs"));
    CU_ASSERT(fl_cli_query("hp.sqlite", "SELECT failures FROM runs WHERE id = 1") <
              fl_cli_query("hp.sqlite", "SELECT MAX(failures) FROM runs"));
  }
  free(page);
  /* or the run asked for; one that does not exist: exit 2, no page */
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report hp.sqlite --html hp1.html --timeline 1", 120), 0);
  page = fl_test_read_file(fl_test_tmp("hp1.html"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(page);
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<h2>Run 1, on a time axis</h2>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "The run asked for"));
  free(page);
  CU_ASSERT_EQUAL(fl_cli_run_limited("report hp.sqlite --html hp9.html --timeline 99", 120), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "--timeline 99: no such run"));
  CU_ASSERT_FALSE(fl_cli_exists("hp9.html"));
}

/* Task graphs and grid worlds get their own figures in the HTML page: the slowdown against the failure-free
 * schedule (makespan / work_s, checked from the rows), resilience for a grid world. */
static void test_html_task_sections(void)
{
  long n = 0;
  char *page;
  fl_cli_write("wfc.dot", "digraph g { a [size=\"2e9\"]; b [size=\"3e9\"]; c [size=\"1e9\"]; d [size=\"2e9\"]; "
                          "a -> b; a -> c; b -> d; c -> d; }\n");
  fl_cli_write("wfh.ini", "[run]\nname = wfh\nreplicas = 3\nsweep = failures.node_mtbf=20s,1h\n[platform]\nnodes = 3\n"
                          "[app]\nkind = workflow\ngraph = wfc.dot\n[failures]\nrepair = 5s\n"
                          "[strategy]\nkind = replication\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("simulate wfh.ini --db wfh.sqlite --quiet", 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited("report wfh.sqlite --html wfh.html", 120), 0);
  page = fl_test_read_file(fl_test_tmp("wfh.html"), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(page);
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<h2>Slowdown against what varies</h2>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(page, "<th data-fig=\"slowdown\">&times; schedule</th>"));
  {
    /* the first group's slowdown: the mean of makespan / work_s of its completed runs */
    const char *cell = strstr(page, "<td class=\"num\" data-fig=\"slowdown\" data-v=\"");
    double want = fl_cli_query("wfh.sqlite", "SELECT AVG(makespan_s / work_s) FROM runs WHERE status = 'completed' "
                                             "AND node_mtbf_s = 20");
    CU_ASSERT_PTR_NOT_NULL_FATAL(cell);
    CU_ASSERT_DOUBLE_EQUAL(strtod(strstr(cell, "data-v=\"") + 8, NULL), want, 1e-9 * want);
    CU_ASSERT(want > 1.0); /* failures every 20 s of a 4 s schedule: slower than the schedule */
  }
  free(page);
}

static CU_TestInfo plot_tests[] = {
    {"the HTML page: a table of the groups, a timeline with failures", test_html_page},
    {"the HTML page: task graphs' slowdown", test_html_task_sections},
    {"waste against the MTBF: SVG and PNG", test_plot_svg_png},
    {"bad requests: one line, exit 2, no file", test_plot_bad_requests},
    {"one run's events on a time axis", test_timeline},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"plot", NULL, NULL, NULL, NULL, plot_tests}, CU_SUITE_INFO_NULL};

int main(void)
{
  if (system("gnuplot --version >/dev/null 2>&1") != 0) {
    fprintf(stderr, "gnuplot is not installed (scripts/setup.sh installs gnuplot-nox): skipped\n");
    return FL_TEST_SKIP;
  }
  return fl_test_run(suites);
}
