/* test_scenario.c — scenario files, overrides, and the errors a user sees for bad input. */
#include "fl_test.h"
#include "inputs.h"
#include "scenario.h"
#include "units.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *write_file(const char *name, const char *text)
{
  const char *path = fl_test_tmp(name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Load text that must fail; returns the message. */
static const char *load_fail(const char *name, const char *text)
{
  fl_scenario *sc = NULL;
  const char *path = write_file(name, text);
  fl_err rc = fl_scenario_load(path, &sc);
  CU_ASSERT_EQUAL(rc, FL_ERR_INPUT);
  CU_ASSERT_PTR_NULL(sc);
  fl_scenario_destroy(&sc);
  return fl_err_msg();
}

/* Runs first, before any scenario froze the table: a plugin's set that declares a key core or another set
 * declares is refused (a bug, at start-up), and so is a set whose key repeats; a well-formed set is taken, once
 * however often it is registered. */
static int plugin_check_calls;
static fl_err plugin_check(const fl_scenario *sc, const void *opts)
{
  (void)sc;
  (void)opts;
  plugin_check_calls++;
  return FL_OK;
}

static void test_plugin_sets_refused(void)
{
  typedef struct {
    long a;
    double b;
  } opts;
  static const fl_key dup_core[] = {{"run", "seed", FL_K_COUNT, 0, 0, "1", NULL, "clash"}};
  static const fl_key dup_plugin[] = {{"strategy", "degree", FL_K_COUNT, 0, 0, "1", NULL, "clash"}};
  static const fl_key twice[] = {{"test", "a", FL_K_COUNT, 0, 0, "1", NULL, "a"},
                                 {"test", "a", FL_K_COUNT, 0, 0, "1", NULL, "a again"}};
  static const fl_key good[] = {{"test", "a", FL_K_COUNT, offsetof(opts, a), FL_K_POS, "3", NULL, "a count"},
                                {"test", "b", FL_K_DURATION, offsetof(opts, b), 0, "2min", NULL, "a duration"}};
  static const fl_keyset s1 = {"test dup-core", sizeof(opts), dup_core, 1, NULL};
  static const fl_keyset s2 = {"test dup-plugin", sizeof(opts), dup_plugin, 1, NULL};
  static const fl_keyset s3 = {"test twice", sizeof(opts), twice, 2, NULL};
  static const fl_keyset s4 = {"test good", sizeof(opts), good, 2, plugin_check};
  fl_scenario *sc = NULL;
  const opts *o;
  CU_ASSERT_EQUAL(fl_scenario_register(&s1), FL_ERR_INTERNAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "test dup-core declares [run] seed"));
  CU_ASSERT_EQUAL(fl_scenario_register(&s2), FL_ERR_INTERNAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "[strategy] degree, which another set or core declares"));
  CU_ASSERT_EQUAL(fl_scenario_register(&s3), FL_ERR_INTERNAL);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "declares [test] a twice"));
  CU_ASSERT_EQUAL(fl_scenario_register(&s4), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_register(&s4), FL_OK);
  /* the new section's keys: defaults, the file, --set, provenance in messages, the set's check */
  CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("[test]\na = 5\n", "plug.ini", NULL, &sc), FL_OK);
  o = fl_scenario_options(sc, &s4);
  CU_ASSERT_EQUAL(o->a, 5);
  CU_ASSERT_DOUBLE_EQUAL(o->b, 120.0, 0.0);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "test.b=1h"), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(o->b, 3600.0, 0.0);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "test.a=0"), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "--set test.a=0: must be at least 1"));
  plugin_check_calls = 0;
  CU_ASSERT_EQUAL(fl_scenario_check(sc), FL_OK);
  CU_ASSERT_EQUAL(plugin_check_calls, 1);
  fl_scenario_destroy(&sc);
  CU_ASSERT_EQUAL(fl_scenario_from_text("[test]\na = x\n", "plug.ini", NULL, &sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "plug.ini:2: [test] a = 'x': not a whole number"));
  /* frozen now: a set registered after the first scenario is refused */
  {
    static const fl_key late[] = {{"late", "k", FL_K_COUNT, 0, 0, "1", NULL, "late"}};
    static const fl_keyset s5 = {"test late", sizeof(long), late, 1, NULL};
    CU_ASSERT_EQUAL(fl_scenario_register(&s5), FL_ERR_INTERNAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "registered after the first scenario"));
  }
}

/* Every plugin's key (those fl_registries_init registered): its owner named, its default what the table says,
 * and a value of the wrong kind refused naming file, line, key and value. */
static void test_plugin_keys_conform(void)
{
  int owned = 0;
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    char text[160], want[160], buf[64], name[64];
    fl_scenario *sc = NULL;
    const char *v;
    if (!k->owner || strcmp(k->section, "test") == 0)
      continue;
    owned++;
    snprintf(name, sizeof name, "%s.%s", k->section, k->key);
    CU_ASSERT_EQUAL_FATAL(fl_scenario_from_text("", "conform.ini", NULL, &sc), FL_OK);
    CU_ASSERT_FALSE(fl_scenario_given(sc, k->section, k->key));
    v = fl_scenario_text(sc, name, buf, sizeof buf);
    if (k->def[0] && strcmp(k->vtype, "text") == 0)
      CU_ASSERT(v && strcmp(v, k->def) == 0);
    fl_scenario_destroy(&sc);
    if (strcmp(k->type, "text") == 0)
      continue; /* any text is a value */
    snprintf(text, sizeof text, "[%s]\n%s = not-a-value\n", k->section, k->key);
    snprintf(want, sizeof want, "conform.ini:2: [%s] %s = 'not-a-value': ", k->section, k->key);
    CU_ASSERT_EQUAL(fl_scenario_from_text(text, "conform.ini", NULL, &sc), FL_ERR_INPUT);
    if (!strstr(fl_err_msg(), want))
      fprintf(stderr, "%s: %s\n", name, fl_err_msg());
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), want));
  }
  CU_ASSERT(owned >= 20); /* the strategies', the laws', the policy's and the apps' */
}

static void test_defaults_and_values(void)
{
  fl_scenario *sc = NULL;
  const char *path = write_file("ok.ini", "; comment\n[run]\nseed = 7\nreplicas = 400\n\n[failures]\n"
                                          "model = weibull\nshape = 0.5\nnode_mtbf = 1y\nrepair = never\n"
                                          "[app]\nnodes = 64\nwork = 12h\n[strategy]\ninterval = 600s\n");
  CU_ASSERT_EQUAL_FATAL(fl_scenario_load(path, &sc), FL_OK);
  CU_ASSERT_STRING_EQUAL(sc->name, "ok"); /* base name without .ini */
  CU_ASSERT_EQUAL(sc->seed, 7u);
  CU_ASSERT_EQUAL(sc->replicas, 400);
  CU_ASSERT_STRING_EQUAL(sc->model, "weibull");
  {
    double shape = 0;
    CU_ASSERT_EQUAL(fl_scenario_number(sc, "failures.shape", &shape), 1); /* a failure law's own key */
    CU_ASSERT_DOUBLE_EQUAL(shape, 0.5, 0.0);
  }
  CU_ASSERT_DOUBLE_EQUAL(sc->node_mtbf_s, FL_SECONDS_PER_YEAR, 1e-6);
  CU_ASSERT(isinf(sc->repair_s));
  CU_ASSERT_EQUAL(sc->app_nodes, 64);
  CU_ASSERT_DOUBLE_EQUAL(sc->work_s, 43200.0, 0.0);
  CU_ASSERT_STRING_EQUAL(sc->interval_rule, "fixed");
  CU_ASSERT_DOUBLE_EQUAL(sc->interval_s, 600.0, 0.0);
  /* defaults */
  CU_ASSERT_STRING_EQUAL(sc->db, "results.sqlite");
  CU_ASSERT_STRING_EQUAL(sc->strategy, "checkpoint");
  CU_ASSERT_DOUBLE_EQUAL(sc->checkpoint_cost_s, 300.0, 0.0);
  CU_ASSERT_EQUAL(sc->events_all, 1);
  CU_ASSERT_EQUAL(sc->start, FL_START_STATIONARY);
  CU_ASSERT_PTR_NOT_NULL(strstr(sc->text, "model = weibull"));
  CU_ASSERT_EQUAL(fl_scenario_check(sc), FL_OK);
  fl_scenario_destroy(&sc);
  CU_ASSERT_PTR_NULL(sc);
  fl_scenario_destroy(&sc); /* NULL is a no-op */
}

static void test_overrides(void)
{
  fl_scenario *sc = NULL, *again = NULL;
  const char *path = write_file("ov.ini", "[app]\nnodes = 10\n[failures]\nnode_mtbf = 5y\n");
  CU_ASSERT_EQUAL_FATAL(fl_scenario_load(path, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "failures.node_mtbf=1y"), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "strategy.interval=young"), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "run.replicas=3"), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(sc->node_mtbf_s, FL_SECONDS_PER_YEAR, 1e-6);
  CU_ASSERT_STRING_EQUAL(sc->interval_rule, "young");
  CU_ASSERT_STRING_EQUAL(sc->overrides, "failures.node_mtbf=1y\nstrategy.interval=young\nrun.replicas=3\n");
  /* replay: stored text + overrides give the same values */
  CU_ASSERT_EQUAL_FATAL(fl_scenario_replay(sc->text, sc->overrides, sc->path, &again), FL_OK);
  CU_ASSERT_DOUBLE_EQUAL(again->node_mtbf_s, sc->node_mtbf_s, 0.0);
  CU_ASSERT_EQUAL(again->replicas, 3);
  CU_ASSERT_STRING_EQUAL(again->interval_rule, "young");
  CU_ASSERT_STRING_EQUAL(again->name, sc->name);
  fl_scenario_destroy(&again);

  CU_ASSERT_EQUAL(fl_scenario_set(sc, "failures.node_mtbf=-1y"), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "--set failures.node_mtbf=-1y"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "positive"));
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "failures.mtbf=1y"), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "unknown key 'failures.mtbf'"));
  CU_ASSERT_EQUAL(fl_scenario_set(sc, "nonsense"), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "section.key=value"));
  fl_scenario_destroy(&sc);
}

/* Every message names file, line, key and value. */
/* Two rules, as a registry above core would answer the parser (fl_scenario_interval_rules). */
static int two_rules(const char *name, char *buf, size_t size)
{
  if (strcmp(name, "daly") == 0 || strcmp(name, "young") == 0)
    return 1;
  snprintf(buf, size, "daly, young or a duration");
  return 0;
}

static void test_errors_name_file_line_key_value(void)
{
  const char *m;
  m = load_fail("neg.ini", "[run]\nseed = 1\n[failures]\nnode_mtbf = -5y\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "neg.ini:4: [failures] node_mtbf = '-5y'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "positive"));

  m = load_fail("unit.ini", "[strategy]\ncheckpoint_cost = 5 parsecs\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "unit.ini:2: [strategy] checkpoint_cost = '5 parsecs'"));

  m = load_fail("key.ini", "[failures]\nmtbf = 5y\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "key.ini:2: [failures] mtbf = '5y': unknown key"));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "node_mtbf")); /* lists the known keys */

  m = load_fail("section.ini", "[failure]\nmodel = weibull\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "section.ini:2: unknown section [failure]"));

  m = load_fail("twice.ini", "[run]\nseed = 1\nseed = 2\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "twice.ini:3: [run] seed = '2': given twice (first at line 2)"));

  m = load_fail("malformed.ini", "[run]\nseed 1\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "malformed.ini:2: malformed line"));

  m = load_fail("events.ini", "[run]\nevents = some\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "events.ini:2: [run] events = 'some': unknown value (known: none, all, phases)"));

  /* strategy.interval's words are a registry above core (policy/intervals, given by fl_registries_init: the CLI's
   * tests check it there); core asks whoever registered one */
  fl_scenario_interval_rules(two_rules);
  m = load_fail("interval.ini", "[strategy]\ninterval = dally\n");
  CU_ASSERT_PTR_NOT_NULL(
      strstr(m, "interval.ini:2: [strategy] interval = 'dally': unknown rule (expected daly, young or a duration)"));
  m = load_fail("fixed.ini", "[strategy]\ninterval = fixed\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "fixed.ini:2: [strategy] interval = 'fixed': a fixed interval is written as its "
                                   "duration"));
  m = load_fail("interval0.ini", "[strategy]\ninterval = 0s\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "interval0.ini:2: [strategy] interval = '0s': must be positive"));
  fl_scenario_interval_rules(NULL);

  m = load_fail("replicas.ini", "[run]\nreplicas = 0\n");
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "replicas.ini:2: [run] replicas = '0': must be at least 1"));

  {
    char text[400];
    memset(text, 0, sizeof text);
    strcpy(text, "[run]\nname = ");
    memset(text + strlen(text), 'x', 250);
    strcat(text, "\n");
    m = load_fail("long.ini", text);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "long.ini:2: line too long"));
  }
  {
    fl_scenario *sc = NULL;
    CU_ASSERT_EQUAL(fl_scenario_load(fl_test_tmp("does-not-exist.ini"), &sc), FL_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "does-not-exist.ini: cannot open scenario"));
  }
}

static void test_checks_across_keys(void)
{
  fl_scenario *sc = NULL;
  const char *path = write_file("nofile.ini", "[platform]\nfile = no-such-platform.xml\n");
  CU_ASSERT_EQUAL_FATAL(fl_scenario_load(path, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_check(sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "nofile.ini:2: [platform] file = 'no-such-platform.xml'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "No such file or directory"));
  fl_scenario_destroy(&sc);

  path = write_file("both.ini", "[platform]\nfile = both.ini\nnodes = 4\n");
  CU_ASSERT_EQUAL_FATAL(fl_scenario_load(path, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_check(sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "not both"));
  fl_scenario_destroy(&sc);

  path = write_file("trace.ini", "[app]\nnodes = 4\n[failures]\nmodel = trace\n");
  CU_ASSERT_EQUAL_FATAL(fl_scenario_load(path, &sc), FL_OK);
  CU_ASSERT_EQUAL(fl_scenario_check(sc), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "needs a trace file"));
  fl_scenario_destroy(&sc);
}

/* The default cell of key `needle`'s row in scenarios.md's tables ("| `s.k` | type | default | meaning |", cells split
 * at unescaped bars), backticks stripped, into out; 0 when the key has no row. */
static int fl_doc_default(const char *doc, const char *needle, char *out, size_t size)
{
  char row[128];
  const char *p, *cell;
  int bars = 0;
  size_t n = 0;
  snprintf(row, sizeof row, "\n| %s |", needle);
  if (!(p = strstr(doc, row)))
    return 0;
  for (p += 1; *p && *p != '\n' && bars < 3; p++)
    if (*p == '|' && p[-1] != '\\')
      bars++;
  for (cell = p; *cell == ' ' || *cell == '`'; cell++)
    ;
  while (cell[n] && cell[n] != '\n' && !(cell[n] == '|' && cell[n - 1] != '\\') && n + 1 < size)
    n++;
  while (n > 0 && (cell[n - 1] == ' ' || cell[n - 1] == '`'))
    n--;
  memcpy(out, cell, n);
  out[n] = '\0';
  return 1;
}

/* docs/scenarios.md documents every key of the table, each with the binary's default (an unset one is the doc's to
 * explain: "unset", "—", or what unset means). */
static void test_docs_cover_every_key(void)
{
  FILE *f = fopen(fl_test_src("docs/scenarios.md"), "r");
  static char doc[1 << 17];
  size_t n;
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  n = fread(doc, 1, sizeof doc - 1, f);
  doc[n] = '\0';
  fclose(f);
  for (int i = 0; i < fl_scenario_key_count(); i++) {
    const fl_scenario_keyinfo *k = fl_scenario_key_at(i);
    char needle[96];
    if (k->owner && strcmp(k->section, "test") == 0)
      continue; /* this suite's own set (test_plugin_sets_refused) */
    snprintf(needle, sizeof needle, "`%s.%s`", k->section, k->key);
    if (!strstr(doc, needle))
      fprintf(stderr, "docs/scenarios.md lacks %s\n", needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(doc, needle));
    {
      char def[256];
      int row = fl_doc_default(doc, needle, def, sizeof def);
      if (row && k->def[0] && strcmp(def, k->def) != 0)
        fprintf(stderr, "docs/scenarios.md gives %s the default '%s'; the binary's is '%s'\n", needle, def, k->def);
      CU_ASSERT(!row || !k->def[0] || strcmp(def, k->def) == 0);
    }
  }
}

/* fl_file_mentions: which of several byte strings a file holds, found in one pass whatever the file's size, a
 * string lying across two of its reads included. */
static void test_file_mentions(void)
{
  static const char *const needles[] = {"state_file", "speed_file", "bandwidth_file"};
  const size_t big = 3 * 65536 + 100;
  char *text = malloc(big + 1);
  const char *path;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  path = write_file("mentions-none.xml", "<platform><host id=\"a\" speed=\"1f\"/></platform>\n");
  CU_ASSERT_EQUAL(fl_file_mentions(path, needles, 3), 0u);
  CU_ASSERT_EQUAL(fl_file_mentions(fl_test_tmp("mentions-absent.xml"), needles, 3), 0u);
  /* "speed_file" across the first read's end (64 KiB), "bandwidth_file" across the second's (the 13 bytes kept
   * from the first, then 64 KiB less those), nothing else */
  for (int off = 1; off < 14; off += 3) {
    memset(text, 'x', big);
    text[big] = '\0';
    memcpy(text + 65536 - off, "speed_file", 10);
    memcpy(text + 2 * 65536 - 13 - off, "bandwidth_file", 14);
    path = write_file("mentions-big.xml", text);
    CU_ASSERT_EQUAL(fl_file_mentions(path, needles, 3), 6u);
    CU_ASSERT_EQUAL(fl_file_mentions(path, needles, 1), 0u);
    CU_ASSERT_EQUAL(fl_file_mentions(path, needles + 1, 1), 1u);
  }
  /* at the very end, and the three together */
  memset(text, 'x', big);
  memcpy(text + big - 10, "state_file", 10);
  memcpy(text + 5, "bandwidth_file", 14);
  memcpy(text + 2 * 65536, "speed_file", 10);
  path = write_file("mentions-big.xml", text);
  CU_ASSERT_EQUAL(fl_file_mentions(path, needles, 3), 7u);
  free(text);
}

static CU_TestInfo scenario_tests[] = {
    {"a plugin's key set: clashes refused, values parsed", test_plugin_sets_refused},
    {"every plugin's key conforms", test_plugin_keys_conform},
    {"values and defaults", test_defaults_and_values},
    {"--set overrides and replay", test_overrides},
    {"errors name file, line, key, value", test_errors_name_file_line_key_value},
    {"checks across keys", test_checks_across_keys},
    {"docs/scenarios.md covers every key", test_docs_cover_every_key},
    {"a file's mentions found in one pass", test_file_mentions},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {{"scenario", NULL, NULL, NULL, NULL, scenario_tests}, CU_SUITE_INFO_NULL};
FL_TEST_MAIN(suites)
