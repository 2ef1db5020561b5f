/* test_workflow.c — task graphs: the readers (WfCommons JSON 1.4 and 1.5, Pegasus DAX, DOT), the substitution
 * relation, HEFT against a schedule computed by hand, and through `faultline simulate`: the failure-free makespan
 * equals that schedule, the hand-made replicate/substitute decision (the full MIP beats the simplified knapsack on
 * a case built for it), and bad graphs refused with one line, exit 2, no row. */
#include "cli_util.h"
#include "dag.h"
#include "fl_test.h"
#include "heft.h"
#include "io_async.h"
#include "scenario.h"
#include "sim.h"
#include "workflow.h"

#include <CUnit/CUnit.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fl_wf *load(const char *path)
{
  fl_wf *wf = NULL;
  fl_err rc = fl_wf_load(path, 1e9, &wf);
  if (rc != FL_OK)
    fprintf(stderr, "load %s: %s\n", path, fl_err_msg());
  CU_ASSERT_EQUAL(rc, FL_OK);
  return wf;
}

static long edge(const fl_wf *wf, const char *a, const char *b)
{
  long s = fl_wf_find(wf, a), d = fl_wf_find(wf, b);
  for (long e = 0; s >= 0 && e < wf->nedges; e++)
    if (wf->edge_src[e] == s && wf->edge_dst[e] == d)
      return e;
  return -1;
}

/* every edge goes forward in the topological order */
static int topo_ok(const fl_wf *wf)
{
  long *pos = calloc((size_t)wf->ntasks, sizeof *pos);
  int ok = pos != NULL;
  for (long i = 0; ok && i < wf->ntasks; i++)
    pos[wf->topo[i]] = i;
  for (long e = 0; ok && e < wf->nedges; e++)
    ok = pos[wf->edge_src[e]] < pos[wf->edge_dst[e]];
  free(pos);
  return ok;
}

static void test_dot(void)
{
  fl_wf *wf = load(fl_test_src("tests/data/workflows/diamond.dot"));
  long e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL(wf->ntasks, 4);
  CU_ASSERT_EQUAL(wf->nedges, 4);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "T2")].flops, 4e9, 1e-3);
  e = edge(wf, "T1", "T3");
  CU_ASSERT_FATAL(e >= 0);
  CU_ASSERT_DOUBLE_EQUAL(wf->edge_bytes[e], 2e8, 1e-3);
  CU_ASSERT(edge(wf, "T3", "T1") < 0);
  CU_ASSERT(topo_ok(wf));
  CU_ASSERT_STRING_EQUAL(wf->task[fl_wf_find(wf, "T4")].stage, "T"); /* the name without its digits */
  fl_wf_destroy(&wf);
}

/* A published WfCommons 1.4 instance (Pegasus Epigenomics on Chameleon, shipped in data/workflows). */
static void test_wfcommons_14(void)
{
  fl_wf *wf = load(fl_test_src("data/workflows/epigenomics-chameleon-hep-1seq-100k-001.json"));
  long chr, merge, e;
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL(wf->ntasks, 41);
  CU_ASSERT(topo_ok(wf));
  chr = fl_wf_find(wf, "chr21_chr21_ID0000001");
  merge = fl_wf_find(wf, "mapMerge_mapMerge_HEP2_MSP1_Digests_ID0000021");
  CU_ASSERT_FATAL(chr >= 0 && merge >= 0);
  CU_ASSERT_STRING_EQUAL(wf->task[chr].stage, "chr21");
  /* the file mapMerge writes and chr21 reads: its size on the edge */
  e = edge(wf, "mapMerge_mapMerge_HEP2_MSP1_Digests_ID0000021", "chr21_chr21_ID0000001");
  CU_ASSERT_FATAL(e >= 0);
  CU_ASSERT_DOUBLE_EQUAL(wf->edge_bytes[e], 8974436.0, 0.5);
  /* its runtime, 2.774 s, x the speed of the machine it ran on, 1202 MHz */
  CU_ASSERT_DOUBLE_EQUAL(wf->task[chr].flops, 2.774 * 1202e6, 1.0);
  fl_wf_destroy(&wf);
}

static void test_wfcommons_15(void)
{
  fl_wf *wf;
  fl_cli_write("w15.json",
               "{\"name\":\"t\",\"schemaVersion\":\"1.5\",\"workflow\":{\"specification\":{"
               "\"tasks\":[{\"name\":\"a\",\"id\":\"a_1\",\"parents\":[],\"children\":[\"b_1\"],\"inputFiles\":[],"
               "\"outputFiles\":[\"f1\"]},"
               "{\"name\":\"b\",\"id\":\"b_1\",\"parents\":[\"a_1\"],\"children\":[],\"inputFiles\":[\"f1\"],"
               "\"outputFiles\":[]}],"
               "\"files\":[{\"id\":\"f1\",\"sizeInBytes\":5000}]},"
               "\"execution\":{\"makespanInSeconds\":3,\"tasks\":[{\"id\":\"a_1\",\"runtimeInSeconds\":2,"
               "\"coreCount\":2,\"machines\":[\"m\"]},{\"id\":\"b_1\",\"runtimeInSeconds\":1}],"
               "\"machines\":[{\"nodeName\":\"m\",\"cpu\":{\"coreCount\":4,\"speedInMHz\":2000}}]}}}");
  wf = load(fl_test_tmp("w15.json"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL(wf->ntasks, 2);
  CU_ASSERT_EQUAL(wf->nedges, 1);
  CU_ASSERT_DOUBLE_EQUAL(wf->edge_bytes[0], 5000.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "a_1")].flops, 2 * 2000e6, 1e-3); /* on machine m */
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "b_1")].flops, 1e9, 1e-3);        /* the reference speed */
  CU_ASSERT_EQUAL(wf->task[fl_wf_find(wf, "a_1")].cores, 2);
  fl_wf_destroy(&wf);
}

/* The shipped Epigenomics instance (schema 1.4, categories given) written as schema 1.5 writes it (WfInstances'
 * newer files: specification and execution apart, no category, id = name): the stages derived from the names must
 * be 1.4's categories, so the substitution relation — and what substitution does — is the same. */
static char *to_schema15(const char *path14)
{
  json_error_t err;
  json_t *in = json_load_file(path14, 0, &err), *root = json_object(), *wf = json_object(), *spec = json_object(),
         *exec = json_object(), *stasks = json_array(), *etasks = json_array(), *files = json_object(), *tasks, *t,
         *flist = json_array();
  size_t i;
  const char *key;
  json_t *v;
  char *out;
  if (!in)
    return NULL;
  tasks = json_object_get(json_object_get(in, "workflow"), "tasks");
  json_array_foreach(tasks, i, t)
  {
    json_t *st = json_object(), *et = json_object(), *ins = json_array(), *outs = json_array(), *kids = json_array(),
           *f, *u;
    size_t k, m;
    const char *name = json_string_value(json_object_get(t, "name"));
    json_object_set_new(st, "name", json_string(name));
    json_object_set_new(st, "id", json_string(name));
    json_object_set(st, "parents", json_object_get(t, "parents"));
    json_array_foreach(tasks, m, u)
    {
      json_t *p;
      json_array_foreach(json_object_get(u, "parents"), k, p) if (strcmp(json_string_value(p), name) == 0)
          json_array_append_new(kids, json_string(json_string_value(json_object_get(u, "name"))));
    }
    json_object_set_new(st, "children", kids);
    json_array_foreach(json_object_get(t, "files"), k, f)
    {
      const char *fname = json_string_value(json_object_get(f, "name"));
      json_array_append_new(strcmp(json_string_value(json_object_get(f, "link")), "input") == 0 ? ins : outs,
                            json_string(fname));
      if (!json_object_get(files, fname))
        json_object_set(files, fname, json_object_get(f, "sizeInBytes"));
    }
    json_object_set_new(st, "inputFiles", ins);
    json_object_set_new(st, "outputFiles", outs);
    json_array_append_new(stasks, st);
    json_object_set_new(et, "id", json_string(name));
    json_object_set(et, "runtimeInSeconds", json_object_get(t, "runtimeInSeconds"));
    json_object_set_new(et, "machines", json_pack("[O]", json_object_get(t, "machine")));
    json_array_append_new(etasks, et);
  }
  json_object_foreach(files, key, v) json_array_append_new(flist, json_pack("{s:s, s:O}", "id", key, "sizeInBytes", v));
  json_object_set_new(spec, "tasks", stasks);
  json_object_set_new(spec, "files", flist);
  json_object_set_new(exec, "tasks", etasks);
  json_object_set(exec, "machines", json_object_get(json_object_get(in, "workflow"), "machines"));
  json_object_set_new(wf, "specification", spec);
  json_object_set_new(wf, "execution", exec);
  json_object_set_new(root, "name", json_string("epigenomics, schema 1.5"));
  json_object_set_new(root, "schemaVersion", json_string("1.5"));
  json_object_set_new(root, "workflow", wf);
  out = json_dumps(root, JSON_INDENT(1));
  json_decref(root);
  json_decref(files);
  json_decref(in);
  return out;
}

static void test_wfcommons_15_stages(void)
{
  const char *p14 = fl_test_src("data/workflows/epigenomics-chameleon-hep-1seq-100k-001.json");
  char *text = to_schema15(p14);
  fl_wf *a, *b;
  long differ = 0;
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  fl_cli_write("epi15.json", text);
  free(text);
  a = load(p14);
  b = load(fl_test_tmp("epi15.json"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL_FATAL(a->ntasks, b->ntasks);
  CU_ASSERT_EQUAL(a->nedges, b->nedges);
  for (long i = 0; i < a->ntasks; i++) {
    long j = fl_wf_find(b, a->task[i].name);
    /* 1.4 names the task by its name too (ids ID00000nn are not unique across instances) */
    CU_ASSERT_FATAL(j >= 0);
    differ += strcmp(a->task[i].stage, b->task[j].stage) != 0;
    CU_ASSERT_DOUBLE_EQUAL(a->task[i].in_bytes, b->task[j].in_bytes, 1e-6);
  }
  CU_ASSERT_EQUAL(differ, 0);
  /* the same substitutes for every task */
  CU_ASSERT_EQUAL_FATAL(fl_wf_subs_rule(a, 0.5, 2), FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_wf_subs_rule(b, 0.5, 2), FL_OK);
  CU_ASSERT_EQUAL(a->nsubs, b->nsubs);
  for (long i = 0; i < a->ntasks; i++) {
    long j = fl_wf_find(b, a->task[i].name);
    CU_ASSERT_EQUAL(a->sub_start[i + 1] - a->sub_start[i], b->sub_start[j + 1] - b->sub_start[j]);
  }
  CU_ASSERT(a->nsubs > a->ntasks); /* most tasks have substitutes: the check is not vacuous */
  fl_wf_destroy(&a);
  fl_wf_destroy(&b);
}

/* A substitution rule that leaves most tasks without a substitute is said before the rows (substitution would
 * silently re-execute them); replication, which needs none, is not warned about. */
static void test_cli_substitute_warning(void)
{
  char ini[1024];
  fl_cli_write("alone.dot",
               "digraph alone {\n  a [size=\"1e9\", category=\"x\"];\n  b [size=\"1e9\", category=\"y\"];\n"
               "  c [size=\"1e9\", category=\"z\"];\n  a -> b [size=\"1e6\"];\n  b -> c [size=\"1e6\"];\n}\n");
  snprintf(ini, sizeof ini,
           "[platform]\nfile = %s\ncontroller = ctl\n[app]\nkind = workflow\ngraph = alone.dot\noutputs = local\n"
           "[failures]\nmodel = none\n[strategy]\nkind = substitution\n",
           fl_test_src("tests/data/workflows/heft2.xml"));
  fl_cli_write("alone.ini", ini);
  CU_ASSERT_EQUAL(fl_cli_run("simulate alone.ini --db alone.db --replicas 1 --quiet"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "warning: alone.dot: app.substitute_rule = stage gives 3 of 3 tasks no "
                                            "substitute"));
  CU_ASSERT_EQUAL(fl_cli_run("simulate alone.ini --db alone.db --replicas 1 --quiet --set strategy.kind=replication"),
                  0);
  CU_ASSERT_PTR_NULL(strstr(fl_cli_err, "no substitute"));
}

static void test_dax(void)
{
  fl_wf *wf;
  fl_cli_write("w.dax", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"m\">\n"
                        "  <job id=\"ID1\" namespace=\"m\" name=\"mProject\" runtime=\"3.5\">\n"
                        "    <uses file=\"in.fits\" link=\"input\" size=\"100\"/>\n"
                        "    <uses file=\"p1.fits\" link=\"output\" size=\"4000\"/>\n"
                        "  </job>\n"
                        "  <job id=\"ID2\" namespace=\"m\" name=\"mProject\" runtime=\"3.0\">\n"
                        "    <uses file=\"in2.fits\" link=\"input\" size=\"120\"/>\n"
                        "    <uses file=\"p2.fits\" link=\"output\" size=\"4000\"/>\n"
                        "  </job>\n"
                        "  <job id=\"ID3\" namespace=\"m\" name=\"mAdd\" runtime=\"1\">\n"
                        "    <uses file=\"p1.fits\" link=\"input\" size=\"4000\"/>\n"
                        "    <uses file=\"p2.fits\" link=\"input\" size=\"4000\"/>\n"
                        "  </job>\n"
                        "  <child ref=\"ID3\"><parent ref=\"ID1\"/><parent ref=\"ID2\"/></child>\n"
                        "</adag>\n");
  wf = load(fl_test_tmp("w.dax"));
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL(wf->ntasks, 3);
  CU_ASSERT_EQUAL(wf->nedges, 2); /* the <child> dependencies and the files are the same two edges */
  CU_ASSERT_DOUBLE_EQUAL(wf->edge_bytes[edge(wf, "ID1", "ID3")], 4000.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "ID1")].flops, 3.5e9, 1e-3);
  CU_ASSERT_STRING_EQUAL(wf->task[fl_wf_find(wf, "ID2")].stage, "mProject");
  /* the rule: the two mProject jobs (inputs 100 and 120 bytes) stand in for each other, weight 1 + 20/120 */
  CU_ASSERT_EQUAL_FATAL(fl_wf_subs_rule(wf, 0.5, 2), FL_OK);
  {
    long i = fl_wf_find(wf, "ID1"), j = fl_wf_find(wf, "ID2"), a = fl_wf_find(wf, "ID3");
    CU_ASSERT_EQUAL_FATAL(wf->sub_start[i + 1] - wf->sub_start[i], 1);
    CU_ASSERT_EQUAL(wf->sub_j[wf->sub_start[i]], j);
    CU_ASSERT_DOUBLE_EQUAL(wf->sub_w[wf->sub_start[i]], 1.0 + 20.0 / 120.0, 1e-12);
    CU_ASSERT_EQUAL(wf->sub_start[a + 1] - wf->sub_start[a], 0); /* alone in its stage */
  }
  /* a stricter rule: 20/120 is too far */
  CU_ASSERT_EQUAL(fl_wf_subs_rule(wf, 0.1, 2), FL_OK);
  CU_ASSERT_EQUAL(wf->nsubs, 0);
  fl_wf_destroy(&wf);
}

/* Pegasus' blackdiamond as DAX 3.3 writes it (an abstract workflow: no runtimes, no sizes): refused without
 * app.task_runtime, naming the job and the key; with runtimes by transformation, the diamond's costs; through
 * simulate with one runtime for all, on two hosts, the schedule preprocess, two findranges side by side, analyze:
 * 4 x 60 s less the one in parallel = 180 s. */
static const char blackdiamond[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"3.3\" name=\"blackdiamond\" index=\"0\" count=\"1\">\n"
    "  <job id=\"ID0000001\" namespace=\"diamond\" name=\"preprocess\" version=\"4.0\">\n"
    "    <argument>-a preprocess -T 60 -i <file name=\"f.a\"/> -o <file name=\"f.b1\"/> <file "
    "name=\"f.b2\"/></argument>\n"
    "    <uses name=\"f.a\" link=\"input\"/>\n    <uses name=\"f.b1\" link=\"output\"/>\n"
    "    <uses name=\"f.b2\" link=\"output\"/>\n  </job>\n"
    "  <job id=\"ID0000002\" namespace=\"diamond\" name=\"findrange\" version=\"4.0\">\n"
    "    <uses name=\"f.b1\" link=\"input\"/>\n    <uses name=\"f.c1\" link=\"output\"/>\n  </job>\n"
    "  <job id=\"ID0000003\" namespace=\"diamond\" name=\"findrange\" version=\"4.0\">\n"
    "    <uses name=\"f.b2\" link=\"input\"/>\n    <uses name=\"f.c2\" link=\"output\"/>\n  </job>\n"
    "  <job id=\"ID0000004\" namespace=\"diamond\" name=\"analyze\" version=\"4.0\">\n"
    "    <uses name=\"f.c1\" link=\"input\"/>\n    <uses name=\"f.c2\" link=\"input\"/>\n"
    "    <uses name=\"f.d\" link=\"output\"/>\n  </job>\n"
    "  <child ref=\"ID0000002\">\n    <parent ref=\"ID0000001\"/>\n  </child>\n"
    "  <child ref=\"ID0000003\">\n    <parent ref=\"ID0000001\"/>\n  </child>\n"
    "  <child ref=\"ID0000004\">\n    <parent ref=\"ID0000002\"/>\n    <parent ref=\"ID0000003\"/>\n  </child>\n"
    "</adag>\n";

static void test_dax_task_runtime(void)
{
  fl_wf *wf = NULL;
  fl_cli_write("blackdiamond.dax", blackdiamond);
  CU_ASSERT_EQUAL(fl_wf_load(fl_test_tmp("blackdiamond.dax"), 1e9, &wf), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "blackdiamond.dax:3: <job id=ID0000001 name=preprocess>"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "app.task_runtime"));
  /* by transformation; a transformation the spec does not name and no '*': refused, naming it */
  CU_ASSERT_EQUAL(fl_wf_load_runtimes(fl_test_tmp("blackdiamond.dax"), 1e9, "preprocess:10s,findrange:20s", &wf),
                  FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "for 'analyze'"));
  CU_ASSERT_EQUAL_FATAL(
      fl_wf_load_runtimes(fl_test_tmp("blackdiamond.dax"), 1e9, "preprocess:10s,findrange:20s,*:5s", &wf), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 4);
  CU_ASSERT_EQUAL(wf->nedges, 4);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "ID0000001")].flops, 10e9, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "ID0000002")].flops, 20e9, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "ID0000003")].flops, 20e9, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "ID0000004")].flops, 5e9, 1e-3);
  CU_ASSERT_STRING_EQUAL(wf->task[fl_wf_find(wf, "ID0000002")].stage, "findrange");
  fl_wf_destroy(&wf);
  /* through simulate: one runtime for every job */
  fl_cli_write("bd.ini", "[platform]\nnodes = 2\n[app]\nkind = workflow\ngraph = blackdiamond.dax\n"
                         "task_runtime = 60s\n[failures]\nmodel = none\n[strategy]\nkind = replication\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate bd.ini --db bd.db --replicas 1 --quiet"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bd.db", "SELECT work_s FROM runs"), 180.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bd.db", "SELECT makespan_s FROM runs"), 180.0, 1e-6);
  /* a malformed spec: exit 2, the key and the term named, no row */
  CU_ASSERT_EQUAL(fl_cli_run("simulate bd.ini --db bd2.db --replicas 1 --quiet --set app.task_runtime=preprocess=10s"),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "task_runtime"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "preprocess=10s"));
  CU_ASSERT_FALSE(fl_cli_exists("bd2.db"));
}

/* The format comes from the content: a DAX named .txt, a WfCommons instance named .data, a DOT named .graph
 * (its keyword first) all load as what they are. */
/* Pegasus 5 YAML: Pegasus' own blackdiamond (tests/data/workflows/blackdiamond-pegasus5.yml, as its Python API
 * wrote it) reads as the same graph as the DAX 3.3 one above: four jobs, the diamond's four edges, runtimes by
 * transformation from app.task_runtime, the transformation as the stage; a job's Pegasus profile `runtime` and a
 * use's size (or metadata size) are read; through simulate, 180 s on two hosts as by hand. */
static void test_pegasus5_yaml(void)
{
  fl_wf *wf = NULL, *dax = NULL;
  const char *spec = "preprocess:10s,findrange:20s,*:5s";
  CU_ASSERT_EQUAL(fl_wf_load(fl_test_src("tests/data/workflows/blackdiamond-pegasus5.yml"), 1e9, &wf), FL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "blackdiamond-pegasus5.yml:11: job ID0000001 (preprocess)"));
  CU_ASSERT_EQUAL_FATAL(
      fl_wf_load_runtimes(fl_test_src("tests/data/workflows/blackdiamond-pegasus5.yml"), 1e9, spec, &wf), FL_OK);
  fl_cli_write("blackdiamond.dax", blackdiamond);
  CU_ASSERT_EQUAL_FATAL(fl_wf_load_runtimes(fl_test_tmp("blackdiamond.dax"), 1e9, spec, &dax), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 4);
  CU_ASSERT_EQUAL(wf->ntasks, dax->ntasks);
  CU_ASSERT_EQUAL(wf->nedges, 4);
  CU_ASSERT_EQUAL(wf->nedges, dax->nedges);
  for (long i = 0; i < wf->ntasks; i++) {
    long j = fl_wf_find(dax, wf->task[i].name);
    CU_ASSERT_FATAL(j >= 0);
    CU_ASSERT_DOUBLE_EQUAL(wf->task[i].flops, dax->task[j].flops, 1e-6);
    CU_ASSERT_STRING_EQUAL(wf->task[i].stage, dax->task[j].stage);
  }
  for (long e = 0; e < wf->nedges; e++) {
    CU_ASSERT_STRING_EQUAL(wf->task[wf->edge_src[e]].name, dax->task[dax->edge_src[e]].name);
    CU_ASSERT_STRING_EQUAL(wf->task[wf->edge_dst[e]].name, dax->task[dax->edge_dst[e]].name);
  }
  fl_wf_destroy(&wf);
  fl_wf_destroy(&dax);
  /* runtime from the job's Pegasus profile (no app.task_runtime needed), sizes from size and metadata.size */
  fl_cli_write("sized.yml", "pegasus: '5.0'\nname: sized\njobs:\n"
                            "- id: a\n  name: gen\n  arguments: []\n  profiles: {pegasus: {runtime: '30'}}\n"
                            "  uses:\n  - {lfn: f1, type: output, size: '2048'}\n"
                            "  - {lfn: f2, type: output, metadata: {size: '512'}}\n"
                            "- id: b\n  name: use\n  arguments: []\n  profiles: {pegasus: {runtime: '7.5'}}\n"
                            "  uses:\n  - {lfn: f1, type: input}\n  - {lfn: f2, type: input}\n"
                            "  - {lfn: ck, type: checkpoint}\n");
  CU_ASSERT_EQUAL_FATAL(fl_wf_load(fl_test_tmp("sized.yml"), 1e9, &wf), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 2);
  CU_ASSERT_EQUAL_FATAL(wf->nedges, 1);
  CU_ASSERT_DOUBLE_EQUAL(wf->edge_bytes[0], 2560.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "a")].flops, 30e9, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(wf->task[fl_wf_find(wf, "b")].flops, 7.5e9, 1e-3);
  fl_wf_destroy(&wf);
  /* through simulate: one runtime for every job, on two hosts */
  {
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[platform]\nnodes = 2\n[app]\nkind = workflow\ngraph = %s\ntask_runtime = 60s\n[failures]\n"
             "model = none\n[strategy]\nkind = replication\n",
             fl_test_src("tests/data/workflows/blackdiamond-pegasus5.yml"));
    fl_cli_write("bd5.ini", ini);
  }
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate bd5.ini --db bd5.db --replicas 1 --quiet"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bd5.db", "SELECT work_s FROM runs"), 180.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("bd5.db", "SELECT makespan_s FROM runs"), 180.0, 1e-6);
}

static void test_format_from_content(void)
{
  fl_wf *wf = NULL;
  long n = 0;
  char *dot = fl_test_read_file(fl_test_src("tests/data/workflows/diamond.dot"), &n);
  fl_cli_write("bd.txt", blackdiamond);
  CU_ASSERT_EQUAL_FATAL(fl_wf_load_runtimes(fl_test_tmp("bd.txt"), 1e9, "1s", &wf), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 4);
  fl_wf_destroy(&wf);
  fl_cli_write("w.data", "{\"workflow\":{\"tasks\":[{\"name\":\"a\",\"runtimeInSeconds\":1,\"parents\":[],"
                         "\"files\":[]}]}}");
  CU_ASSERT_EQUAL_FATAL(fl_wf_load(fl_test_tmp("w.data"), 1e9, &wf), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 1);
  fl_wf_destroy(&wf);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dot);
  /* the diamond without its leading comment, under another name */
  fl_cli_write("d.graph", strstr(dot, "digraph"));
  free(dot);
  CU_ASSERT_EQUAL_FATAL(fl_wf_load(fl_test_tmp("d.graph"), 1e9, &wf), FL_OK);
  CU_ASSERT_EQUAL(wf->ntasks, 4);
  fl_wf_destroy(&wf);
}

static void test_side_file(void)
{
  fl_wf *wf = load(fl_test_src("tests/data/workflows/decide.dot"));
  long x;
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL_FATAL(fl_wf_subs_file(wf, fl_test_src("tests/data/workflows/decide-subs.csv")), FL_OK);
  x = fl_wf_find(wf, "X");
  CU_ASSERT_EQUAL(wf->nsubs, 4);
  CU_ASSERT_EQUAL(wf->sub_start[x + 1] - wf->sub_start[x], 4);
  CU_ASSERT_EQUAL(wf->sub_k[wf->sub_start[x]], fl_wf_find(wf, "K1"));
  fl_cli_write("bad-subs.csv", "task,substitute,weight\nX,J1,0.5\nX,J9,0.5\n");
  CU_ASSERT_EQUAL(fl_wf_subs_file(wf, fl_test_tmp("bad-subs.csv")), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "bad-subs.csv:3") && strstr(fl_err_msg(), "J9"));
  fl_cli_write("bad-subs2.csv", "X,J1,-1\n");
  CU_ASSERT_EQUAL(fl_wf_subs_file(wf, fl_test_tmp("bad-subs2.csv")), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "bad-subs2.csv:1") && strstr(fl_err_msg(), "weight"));
  fl_wf_destroy(&wf);
}

/* Each bad graph names the file and the element. */
static void test_bad_graphs(void)
{
  static const struct {
    const char *name, *text, *expect;
  } bad[] = {
      {"cycle.dot", "digraph g { a [size=1]; b [size=1]; c [size=1]; a -> b; b -> c; c -> a; }", "cycle"},
      {"self.dot", "digraph g { a [size=1]; a -> a; }", "itself"},
      {"syntax.dot", "digraph g { a [size=1]; a -> ; }", "malformed DOT"},
      {"neg.dot", "digraph g { a [size=\"-5\"]; }", "task 'a'"},
      {"unknown.json",
       "{\"workflow\":{\"tasks\":[{\"name\":\"a\",\"runtimeInSeconds\":1,\"parents\":[\"zz\"],\"files\":[]}]}}",
       "parent 'zz'"},
      {"broken.json", "{\"workflow\":{\"tasks\":[\n{\"name\":\"a\",,}]}}", "broken.json:2"},
      {"noruntime.json", "{\"workflow\":{\"tasks\":[{\"name\":\"a\",\"parents\":[]}]}}", "task 'a'"},
      {"broken.dax", "<adag><job id=\"a\" runtime=\"1\"></adag>", "malformed DAX"},
      {"unknown.dax", "<adag><job id=\"a\" runtime=\"1\"/><child ref=\"a\"><parent ref=\"q\"/></child></adag>",
       "parent 'q'"},
      {"cycle.dax",
       "<adag><job id=\"a\" runtime=\"1\"/><job id=\"b\" runtime=\"1\"/>"
       "<child ref=\"a\"><parent ref=\"b\"/></child><child ref=\"b\"><parent ref=\"a\"/></child></adag>",
       "cycle"},
      {"graph.txt", "x", "unknown workflow format"},
      /* Pegasus 5 YAML (read by its content, whatever the extension) */
      {"broken.yml", "pegasus: '5.0'\njobs:\n- id: a\n   name: x\n  - b\n", "malformed YAML"},
      {"v4.yml", "pegasus: '4.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  uses: []\n",
       "Pegasus 5 workflows"},
      {"noruntime.json", "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  uses: []\n",
       "noruntime.json:4: job a (x): no runtime"},
      {"sub.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- type: dax\n  id: inner\n  file: inner.yml\n  arguments: []\n  uses: []\n",
       "sub-workflow"},
      {"inout.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: '5'}}\n"
       "  uses:\n  - {lfn: f, type: inout}\n",
       "inout"},
      {"unknown.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: '5'}}\n"
       "  uses: []\njobDependencies:\n- id: q\n  children: [a]\n",
       "parent 'q'"},
      {"size.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: '5'}}\n"
       "  uses:\n  - {lfn: f, type: output, size: '-3'}\n",
       "size '-3'"},
      /* a runtime the file gives wins, so one that is no number of seconds >= 0 is refused (not replaced by
       * app.task_runtime); a dangling child in YAML words */
      {"negrt.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: -4}}\n"
       "  uses: []\n",
       "negrt.yml:7: job a (x): profiles.pegasus.runtime '-4': not a number of seconds >= 0"},
      {"abcrt.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: abc}}\n"
       "  uses: []\n",
       "abcrt.yml:7: job a (x): profiles.pegasus.runtime 'abc'"},
      {"child.yml",
       "pegasus: '5.0'\nname: d\njobs:\n- id: a\n  name: x\n  arguments: []\n  profiles: {pegasus: {runtime: '5'}}\n"
       "  uses: []\njobDependencies:\n- id: a\n  children: [C]\n",
       "child.yml:11: jobDependencies: child 'C' of 'a' is no job of the workflow"},
      /* a schema this reader does not know is named (1.2: tasks under workflow.jobs) */
      {"v12.json", "{\"schemaVersion\":\"1.2\",\"workflow\":{\"jobs\":[{\"name\":\"a\"}]}}",
       "schemaVersion 1.2, whose tasks are workflow.jobs"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    fl_wf *wf = NULL;
    fl_cli_write(bad[k].name, bad[k].text);
    CU_ASSERT_EQUAL(fl_wf_load(fl_test_tmp(bad[k].name), 1e9, &wf), FL_ERR_INPUT);
    CU_ASSERT_PTR_NULL(wf);
    if (!strstr(fl_err_msg(), bad[k].name) || !strstr(fl_err_msg(), bad[k].expect)) {
      fprintf(stderr, "%s: got '%s'\n", bad[k].name, fl_err_msg());
      CU_FAIL("message names the file and the element");
    }
  }
  { /* with app.task_runtime given, the bad runtime is still refused, not run at the key's */
    fl_wf *wf = NULL;
    CU_ASSERT_EQUAL(fl_wf_load_runtimes(fl_test_tmp("negrt.yml"), 1e9, "7s", &wf), FL_ERR_INPUT);
    CU_ASSERT_PTR_NULL(wf);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_err_msg(), "profiles.pegasus.runtime '-4'"));
  }
}

/* HEFT on the diamond (tests/data/workflows/diamond.dot) on two 1 Gflop/s hosts, 1e8 B/s between them, computed
 * by hand: ranks T1 10, T2 7, T3 5, T4 2; T1 on host 0 [0, 2]; T2 host 0 [2, 6] (host 1: 3 + 4 = 7); T3 host 1
 * [4, 6] (T1's 2e8 bytes arrive at 4; host 0 would end at 8); T4 host 0 [7, 9] (T3's bytes arrive at 7; host 1
 * ties at 9 and the lower index wins). Makespan 9. */
static double comm_1e8(void *ctx, long a, long b, double bytes)
{
  (void)ctx;
  (void)a;
  (void)b;
  return bytes / 1e8;
}

/* HEFT's view of a loaded graph, with per-task flops and cores (NULL: any host). */
static fl_heft_graph heft_graph(const fl_wf *wf, const double *flops, const long *cores)
{
  return (fl_heft_graph){.ntasks = wf->ntasks,
                         .nedges = wf->nedges,
                         .flops = flops,
                         .edge_src = wf->edge_src,
                         .edge_dst = wf->edge_dst,
                         .edge_bytes = wf->edge_bytes,
                         .child_start = wf->child_start,
                         .parent_start = wf->parent_start,
                         .parent_edge = wf->parent_edge,
                         .topo = wf->topo,
                         .cores = cores};
}

/* A scheduler's plan for a four-task graph on two 1 Gflop/s hosts, 1e8 B/s between them. */
static void schedule_two_hosts(const fl_wf *wf, const fl_dag_sched_ops *ops, fl_heft_schedule *s)
{
  double speed[2] = {1e9, 1e9}, flops[4];
  fl_heft_hosts h = {
      .nhosts = 2, .speed = speed, .comm = comm_1e8, .mean_latency = 0, .mean_bandwidth = 1e8, .candidates = 4};
  fl_heft_graph g;
  CU_ASSERT_PTR_NOT_NULL_FATAL(wf);
  CU_ASSERT_EQUAL_FATAL(wf->ntasks, 4);
  for (long i = 0; i < 4; i++)
    flops[i] = wf->task[i].flops;
  g = heft_graph(wf, flops, NULL);
  CU_ASSERT_EQUAL_FATAL(ops->schedule(&g, &h, s), FL_OK);
}

static void test_heft_by_hand(void)
{
  fl_wf *wf = load(fl_test_src("tests/data/workflows/diamond.dot"));
  fl_heft_schedule s;
  long t1, t2, t3, t4;
  schedule_two_hosts(wf, &fl_dag_heft, &s);
  t1 = fl_wf_find(wf, "T1");
  t2 = fl_wf_find(wf, "T2");
  t3 = fl_wf_find(wf, "T3");
  t4 = fl_wf_find(wf, "T4");
  CU_ASSERT_DOUBLE_EQUAL(s.rank[t1], 10.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.rank[t2], 7.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.rank[t3], 5.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.rank[t4], 2.0, 1e-12);
  CU_ASSERT_EQUAL(s.host[t1], 0);
  CU_ASSERT_EQUAL(s.host[t2], 0);
  CU_ASSERT_EQUAL(s.host[t3], 1);
  CU_ASSERT_EQUAL(s.host[t4], 0);
  CU_ASSERT_DOUBLE_EQUAL(s.start[t3], 4.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.start[t4], 7.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.makespan, 9.0, 1e-12);
  CU_ASSERT(s.exhaustive);
  fl_heft_free(&s);
  fl_wf_destroy(&wf);
}

/* min-min by hand (dag.h), on the diamond above: T1 host 0 [0, 2]; ready T2, T3: T2's best is host 0 [2, 6] (host
 * 1: 3 + 4 = 7), T3's host 0 [2, 4] (host 1: 4 + 2 = 6): T3 first, on host 0; then T2: host 0 [4, 8], host 1
 * [3, 7]: host 1; T4: host 0 max(4, 7 + 1) + 2 = 10, host 1 max(7, 4 + 1) + 2 = 9: host 1 [7, 9]. Makespan 9 as
 * HEFT's, another mapping. And four independent tasks of 1, 1, 1, 3 s on the two hosts: min-min places the short
 * ones first (0-1, 0-1, 1-2) and the long one last, [1, 4]: 4 s; HEFT the long one first: 3 s. */
static void test_minmin_by_hand(void)
{
  fl_wf *wf = load(fl_test_src("tests/data/workflows/diamond.dot"));
  fl_heft_schedule s;
  long t1, t2, t3, t4;
  const fl_dag_sched_ops *mm = fl_dag_sched_find("min-min");
  CU_ASSERT_PTR_NOT_NULL_FATAL(mm);
  CU_ASSERT_PTR_EQUAL(fl_dag_sched_find("heft"), &fl_dag_heft);
  schedule_two_hosts(wf, mm, &s);
  t1 = fl_wf_find(wf, "T1");
  t2 = fl_wf_find(wf, "T2");
  t3 = fl_wf_find(wf, "T3");
  t4 = fl_wf_find(wf, "T4");
  CU_ASSERT_EQUAL(s.host[t1], 0);
  CU_ASSERT_EQUAL(s.host[t3], 0);
  CU_ASSERT_EQUAL(s.host[t2], 1);
  CU_ASSERT_EQUAL(s.host[t4], 1);
  CU_ASSERT_DOUBLE_EQUAL(s.start[t3], 2.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.start[t2], 3.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.start[t4], 7.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.makespan, 9.0, 1e-12);
  CU_ASSERT_EQUAL(s.order[0], t1);
  CU_ASSERT_EQUAL(s.order[1], t3);
  fl_heft_free(&s);
  fl_wf_destroy(&wf);
  /* independent tasks */
  fl_cli_write("four.dot", "digraph four {\n  a [size=\"1e9\"];\n  b [size=\"1e9\"];\n  c [size=\"1e9\"];\n"
                           "  d [size=\"3e9\"];\n}\n");
  wf = load(fl_test_tmp("four.dot"));
  schedule_two_hosts(wf, mm, &s);
  CU_ASSERT_DOUBLE_EQUAL(s.makespan, 4.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.start[fl_wf_find(wf, "d")], 1.0, 1e-12);
  fl_heft_free(&s);
  schedule_two_hosts(wf, &fl_dag_heft, &s);
  CU_ASSERT_DOUBLE_EQUAL(s.makespan, 3.0, 1e-12);
  fl_heft_free(&s);
  fl_wf_destroy(&wf);
}

/* app.scheduler for a workflow: min-min through simulate gives its schedule, run as scheduled (4 s on the four
 * independent tasks, where HEFT's is 3 s); a batch scheduler's name is refused for a workflow, naming those it
 * takes. */
static void test_cli_scheduler(void)
{
  char ini[1024];
  fl_cli_write("four.dot", "digraph four {\n  a [size=\"1e9\"];\n  b [size=\"1e9\"];\n  c [size=\"1e9\"];\n"
                           "  d [size=\"3e9\"];\n}\n");
  snprintf(ini, sizeof ini,
           "[platform]\nfile = %s\ncontroller = ctl\n[app]\nkind = workflow\ngraph = four.dot\noutputs = local\n"
           "[failures]\nmodel = none\n[strategy]\nkind = replication\n",
           fl_test_src("tests/data/workflows/heft2.xml"));
  fl_cli_write("four.ini", ini);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate four.ini --db four.db --replicas 1 --quiet"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("four.db", "SELECT makespan_s FROM runs"), 3.0, 1e-9);
  CU_ASSERT_EQUAL_FATAL(
      fl_cli_run("simulate four.ini --db four-mm.db --replicas 1 --quiet --set app.scheduler=min-min"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("four-mm.db", "SELECT work_s FROM runs"), 4.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("four-mm.db", "SELECT makespan_s FROM runs"), 4.0, 1e-9);
  CU_ASSERT_EQUAL(fl_cli_run("simulate four.ini --db four-x.db --replicas 1 --quiet --set app.scheduler=easy"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "heft | min-min"));
  CU_ASSERT_FALSE(fl_cli_exists("four-x.db"));
}

/* The means HEFT prices with are exact for equal samples (256 host pairs of one 1e8 B/s bandwidth: 1e8, where a
 * plain sum of inverses gives 100000000.00000057 and breaks rank ties by rounding), and right for unequal ones. */
static void test_heft_means(void)
{
  double bw[256], lat[256], naive = 0.0, mixed[2] = {1e8, 2e8}, l2[3] = {1e-4, 2e-4, 6e-4};
  for (int k = 0; k < 256; k++) {
    bw[k] = 1e8;
    lat[k] = 1.7e-5;
    naive += 1.0 / bw[k];
  }
  CU_ASSERT(256.0 / naive != 1e8); /* the case the old sum got wrong */
  CU_ASSERT(fl_heft_harmonic_mean(bw, 256) == 1e8);
  CU_ASSERT(fl_heft_mean(lat, 256) == 1.7e-5);
  CU_ASSERT_DOUBLE_EQUAL(fl_heft_harmonic_mean(mixed, 2), 2.0 / (1.0 / 1e8 + 1.0 / 2e8), 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_heft_mean(l2, 3), 3e-4, 1e-18);
}

/* Above 2e7 task x host pairs HEFT looks at the parents' hosts and the 16 earliest free: a 20x20 grid world of 100
 * sweeps on 800 hosts (3.2e7 pairs) still runs each sweep in parallel, 100 s in all. Regression: hosts taken out
 * of the earliest-free heap were not all put back, and the schedule serialised (3,288 s). */
static void test_heft_candidates(void)
{
  fl_wf *wf = NULL;
  long H = 800, *cores = NULL, *tcores = NULL;
  double *speed = NULL, *flops = NULL;
  fl_heft_schedule s;
  CU_ASSERT_EQUAL_FATAL(fl_wf_gridworld(20, 20, 100, 1e9, 1.0, &wf), FL_OK);
  speed = malloc((size_t)H * sizeof *speed);
  cores = malloc((size_t)H * sizeof *cores);
  flops = malloc((size_t)wf->ntasks * sizeof *flops);
  tcores = malloc((size_t)wf->ntasks * sizeof *tcores);
  CU_ASSERT_FATAL(speed && cores && flops && tcores);
  for (long p = 0; p < H; p++) {
    speed[p] = 1e9;
    cores[p] = 1;
  }
  for (long i = 0; i < wf->ntasks; i++) {
    flops[i] = wf->task[i].flops;
    tcores[i] = 1;
  }
  {
    fl_heft_graph g = heft_graph(wf, flops, tcores);
    fl_heft_hosts h = {.nhosts = H,
                       .speed = speed,
                       .cores = cores,
                       .comm = comm_1e8,
                       .mean_latency = 0,
                       .mean_bandwidth = 1e8,
                       .candidates = 16};
    CU_ASSERT_EQUAL_FATAL(fl_heft(&g, &h, &s), FL_OK);
  }
  CU_ASSERT(!s.exhaustive);
  CU_ASSERT(s.makespan >= 100.0 && s.makespan < 100.0 + 100 * 1e-6);
  fl_heft_free(&s);
  fl_wf_destroy(&wf);
  free(speed);
  free(cores);
  free(flops);
  free(tcores);
}

/* ---- through faultline simulate ---- */

static void test_cli_heft_makespan(void)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "simulate %s --db heft.db", fl_test_src("tests/data/workflows/diamond.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("heft.db", "SELECT makespan_s FROM runs"), 9.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("heft.db", "SELECT work_s FROM runs"), 9.0, 1e-9);
  CU_ASSERT_EQUAL(fl_cli_query("heft.db", "SELECT count(*) FROM runs WHERE status = 'completed' AND app = "
                                          "'workflow' AND tasks_lost = 0"),
                  1.0);
}

/* One transfer per edge: a finished task pushes its output to its children's hosts while a child's host may be
 * pulling the same edge; starting a SimGrid communication yields to the other actors, so both could start before
 * either recorded it (the later overwrote the earlier, which kept its share of the link). The DAG, on heft2.xml's two
 * 1 Gflop/s hosts (n1, n2; one 1e8 B/s link, no latency), edges declared S->X, S->C1, S->C2:
 *   S 1e9 flops; X 3.5e9; C1 1e9; C2 2e9; S->X, S->C1, S->C2 each 1e8 B.
 * HEFT (mean transfer 1 s): ranks S 1 + max(1 + 3.5, 1 + 1, 1 + 2) = 5.5, X 3.5, C2 2, C1 1. S on n1 [0, 1]; X on n1
 * [1, 4.5] (n2: data at 2, ends 5.5); C2 on n2 [2, 4] (n1 would end 6.5); C1 on n2 [4, 5] (n1: 5.5). Schedule: 5.
 * Simulated: at 1 S ends and pushes S->C1, then S->C2 to n2 (waking n2, whose first task, C2, needs S->C2: it must
 * find that transfer on its way, not start another); the two share the link: both arrive at 3. C2 [3, 5], C1 [5, 6],
 * X [1, 4.5]: makespan 6. With a duplicate S->C2, three flows share it until 4: C2 [4, 6], C1 [6, 7], makespan 7. */
static void test_cli_one_transfer_per_edge(void)
{
  char cmd[2048], ini[1024];
  fl_cli_write("race.dot", "digraph race {\n  S [size=\"1e9\"];\n  X [size=\"3.5e9\"];\n  C1 [size=\"1e9\"];\n"
                           "  C2 [size=\"2e9\"];\n  S -> X [size=\"1e8\"];\n  S -> C1 [size=\"1e8\"];\n"
                           "  S -> C2 [size=\"1e8\"];\n}\n");
  snprintf(ini, sizeof ini,
           "[platform]\nfile = %s\ncontroller = ctl\n[app]\nkind = workflow\ngraph = race.dot\noutputs = local\n"
           "[failures]\nmodel = none\n[strategy]\nkind = replication\n",
           fl_test_src("tests/data/workflows/heft2.xml"));
  fl_cli_write("race.ini", ini);
  snprintf(cmd, sizeof cmd, "simulate %s --db race.db --replicas 1 --quiet", fl_test_tmp("race.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("race.db", "SELECT work_s FROM runs"), 5.0, 1e-9); /* the schedule */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("race.db", "SELECT makespan_s FROM runs"), 6.0, 1e-9);
  /* the failure-free simulated makespan: 6 s, the transfers' contention included (the schedule says 5 s) */
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("race.db", "SELECT failure_free_s FROM runs"), 6.0, 1e-9);
  /* under failures the rows keep it, and the report divides each makespan by it */
  snprintf(cmd, sizeof cmd,
           "simulate %s --db race2.db --replicas 4 --quiet --set failures.model=exponential "
           "--set failures.node_mtbf=4s --set failures.repair=1s",
           fl_test_tmp("race.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_EQUAL(fl_cli_query("race2.db", "SELECT COUNT(*) FROM runs WHERE failure_free_s = 6.0"), 4);
  CU_ASSERT(fl_cli_query("race2.db", "SELECT SUM(failures) FROM runs") > 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("report race2.db"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "x failure-free"));
  {
    /* the figure printed is the mean of makespan / 6 s over the completed runs */
    double want = fl_cli_query("race2.db", "SELECT AVG(makespan_s / 6.0) FROM runs WHERE status = 'completed'");
    char num[32];
    const char *row = strstr(fl_cli_out, "\nrace ");
    snprintf(num, sizeof num, " %.3g ", want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    if (!strstr(row, num))
      fprintf(stderr, "\n    want %s in: %s", num, row);
    CU_ASSERT_PTR_NOT_NULL(strstr(row, num));
  }
}

/* Staged inputs (files no task writes) are read from the controller as a task starts, and HEFT prices the read:
 * one job reading a 200 MB input, 1 s of computation; the controller reaches n1 at 100 MB/s and n2 at 50 MB/s, so
 * HEFT picks n1 and both the schedule and the simulated run take 2 + 1 = 3 s (1 s with app.stage_inputs = no). */
static void test_cli_staged_inputs(void)
{
  fl_cli_write("stage.xml",
               "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n"
               "    <host id=\"ctl\" speed=\"1Gf\"/>\n    <host id=\"n1\" speed=\"1Gf\"/>\n"
               "    <host id=\"n2\" speed=\"1Gf\"/>\n"
               "    <link id=\"c1\" bandwidth=\"100MBps\" latency=\"0s\"/>\n"
               "    <link id=\"c2\" bandwidth=\"50MBps\" latency=\"0s\"/>\n"
               "    <link id=\"l12\" bandwidth=\"100MBps\" latency=\"0s\"/>\n"
               "    <route src=\"ctl\" dst=\"n1\"><link_ctn id=\"c1\"/></route>\n"
               "    <route src=\"ctl\" dst=\"n2\"><link_ctn id=\"c2\"/></route>\n"
               "    <route src=\"n1\" dst=\"n2\"><link_ctn id=\"l12\"/></route>\n  </zone>\n</platform>\n");
  fl_cli_write("stage.dax", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                            "<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"s\">\n"
                            "  <job id=\"ID1\" name=\"read\" runtime=\"1\">\n"
                            "    <uses file=\"in.dat\" link=\"input\" size=\"200000000\"/>\n  </job>\n</adag>\n");
  fl_cli_write("stage.ini", "[platform]\nfile = stage.xml\ncontroller = ctl\n[app]\nkind = workflow\n"
                            "graph = stage.dax\nreference_speed = 1e9\n[failures]\nmodel = none\n[strategy]\n"
                            "kind = replication\n[run]\nreplicas = 1\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate stage.ini --db stage.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("stage.db", "SELECT work_s FROM runs"), 3.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("stage.db", "SELECT makespan_s FROM runs"), 3.0, 1e-6);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate stage.ini --db stage-no.db --set app.stage_inputs=no"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("stage-no.db", "SELECT makespan_s FROM runs"), 1.0, 1e-6);
}

/* app.stage_cache: two jobs in a chain, A then B, each reading the 200 MB input in.dat, 1 s of computation each, on
 * the platform above. HEFT prices every read in full: A on n1 [0, 3] (2 s of read), B on n1 [3, 6] (n2: 3 + 4 + 1
 * = 8). Without the cache the run takes 6 s; with it B finds in.dat on n1 and computes at once: 3 + 1 = 4 s. */
static void test_cli_stage_cache(void)
{
  fl_cli_write("cache.dax", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                            "<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"c\">\n"
                            "  <job id=\"ID1\" name=\"a\" runtime=\"1\">\n"
                            "    <uses file=\"in.dat\" link=\"input\" size=\"200000000\"/>\n  </job>\n"
                            "  <job id=\"ID2\" name=\"b\" runtime=\"1\">\n"
                            "    <uses file=\"in.dat\" link=\"input\" size=\"200000000\"/>\n  </job>\n"
                            "  <child ref=\"ID2\"><parent ref=\"ID1\"/></child>\n</adag>\n");
  fl_cli_write("cache.ini", "[platform]\nfile = stage.xml\ncontroller = ctl\n[app]\nkind = workflow\n"
                            "graph = cache.dax\nreference_speed = 1e9\n[failures]\nmodel = none\n[strategy]\n"
                            "kind = replication\n[run]\nreplicas = 1\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate cache.ini --db cache-no.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("cache-no.db", "SELECT work_s FROM runs"), 6.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("cache-no.db", "SELECT makespan_s FROM runs"), 6.0, 1e-6);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate cache.ini --db cache-yes.db --set app.stage_cache=yes"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("cache-yes.db", "SELECT work_s FROM runs"), 6.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("cache-yes.db", "SELECT makespan_s FROM runs"), 4.0, 1e-6);
}

/* Two hosts of 1 Gflop/s behind one 100 MB/s link (and the controller): n1's attributes and properties, then n2's
 * memory 16 GiB. */
static const char *const fl_two_hosts =
    "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n"
    "    <host id=\"ctl\" speed=\"1Gf\"/>\n    <host id=\"n1\" speed=\"1Gf\"%s>%s</host>\n"
    "    <host id=\"n2\" speed=\"1Gf\"><prop id=\"memory\" value=\"16GiB\"/></host>\n"
    "    <link id=\"l\" bandwidth=\"100MBps\" latency=\"0s\"/>\n"
    "    <route src=\"ctl\" dst=\"n1\"><link_ctn id=\"l\"/></route>\n"
    "    <route src=\"ctl\" dst=\"n2\"><link_ctn id=\"l\"/></route>\n"
    "    <route src=\"n1\" dst=\"n2\"><link_ctn id=\"l\"/></route>\n  </zone>\n</platform>\n";

/* Host memory: three tasks of a WfCommons 1.5 instance, a and b of 2 s needing 8 GB, c of 1 s needing 1 GB, on
 * hosts n1 and n2 of 1 Gflop/s. Without limits HEFT puts a on n1 [0, 2], b on n2 [0, 2], c on n1 [2, 3]: 3 s. With
 * n1's <prop id="memory" value="4GiB">, a and b go to n2 only ([0, 2], [2, 4]) and c to n1 [0, 1]: 4 s.
 * platform.node_memory = 4GB on a generated platform leaves a and b nowhere: refused, naming a. */
static void test_cli_memory(void)
{
  char xml[2048];
  fl_cli_write("mem.json",
               "{\"name\":\"m\",\"schemaVersion\":\"1.5\",\"workflow\":{\"specification\":{\"tasks\":["
               "{\"name\":\"a\",\"id\":\"a_1\",\"parents\":[],\"children\":[],\"inputFiles\":[],\"outputFiles\":[]},"
               "{\"name\":\"b\",\"id\":\"b_1\",\"parents\":[],\"children\":[],\"inputFiles\":[],\"outputFiles\":[]},"
               "{\"name\":\"c\",\"id\":\"c_1\",\"parents\":[],\"children\":[],\"inputFiles\":[],\"outputFiles\":[]}],"
               "\"files\":[]},\"execution\":{\"makespanInSeconds\":5,\"tasks\":["
               "{\"id\":\"a_1\",\"runtimeInSeconds\":2,\"memoryInBytes\":8e9},"
               "{\"id\":\"b_1\",\"runtimeInSeconds\":2,\"memoryInBytes\":8e9},"
               "{\"id\":\"c_1\",\"runtimeInSeconds\":1,\"memoryInBytes\":1e9}],\"machines\":[]}}}");
  fl_cli_write("mem.ini", "[platform]\nfile = mem.xml\ncontroller = ctl\n[app]\nkind = workflow\ngraph = mem.json\n"
                          "[failures]\nmodel = none\n[strategy]\nkind = replication\n[run]\nreplicas = 1\n");
  snprintf(xml, sizeof xml, fl_two_hosts, "", "");
  fl_cli_write("mem.xml", xml);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate mem.ini --db mem-free.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("mem-free.db", "SELECT work_s FROM runs"), 3.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("mem-free.db", "SELECT makespan_s FROM runs"), 3.0, 1e-6);
  snprintf(xml, sizeof xml, fl_two_hosts, "", "<prop id=\"memory\" value=\"4GiB\"/>");
  fl_cli_write("mem.xml", xml);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate mem.ini --db mem-4.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("mem-4.db", "SELECT work_s FROM runs"), 4.0, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("mem-4.db", "SELECT makespan_s FROM runs"), 4.0, 1e-6);
  CU_ASSERT_EQUAL(fl_cli_run("simulate mem.ini --db mem-x.db --set platform.file= --set platform.controller=controller "
                             "--set platform.nodes=2 --set platform.node_memory=4GB"),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "task 'a_1' needs 8e+09 bytes of memory"));
  CU_ASSERT_EQUAL(fl_cli_exists("mem-x.db"), 0);
}

/* A file two dependents read on one host crosses the link once (issue "Every run ends right", item 10): a (1 s, 2
 * cores: only n1 has them) writes f, 1e9 bytes; b and c (1 s each, 8 GB: only n2 has the memory) read it on n2, one
 * at a time (one core); 100 MB/s. Expected 1 + 10 + 1 + 1 = 13 s (it took 23 s: f crossed twice, as if c read a
 * second file). With c on n1 instead (c needs no memory, and 2 cores), each host gets its copy: 1 + 10 + 1 = 12 s,
 * c on n1 [1, 2]. */
static void test_cli_file_once_per_host(void)
{
  static const char *const wf =
      "{\"name\":\"two\",\"schemaVersion\":\"1.5\",\"workflow\":{\"specification\":{\"tasks\":["
      "{\"name\":\"a\",\"id\":\"a\",\"parents\":[],\"children\":[\"b\",\"c\"],\"inputFiles\":[],\"outputFiles\":[\"f\"]"
      "},"
      "{\"name\":\"b\",\"id\":\"b\",\"parents\":[\"a\"],\"children\":[],\"inputFiles\":[\"f\"],\"outputFiles\":[]},"
      "{\"name\":\"c\",\"id\":\"c\",\"parents\":[\"a\"],\"children\":[],\"inputFiles\":[\"f\"],\"outputFiles\":[]}],"
      "\"files\":[{\"id\":\"f\",\"sizeInBytes\":1e9}]},\"execution\":{\"makespanInSeconds\":13,\"tasks\":["
      "{\"id\":\"a\",\"runtimeInSeconds\":1,\"coreCount\":2},"
      "{\"id\":\"b\",\"runtimeInSeconds\":1,\"memoryInBytes\":8e9},"
      "{\"id\":\"c\",\"runtimeInSeconds\":1,%s}],\"machines\":[]}}}";
  char text[2048];
  char xml[2048];
  snprintf(xml, sizeof xml, fl_two_hosts, " core=\"2\"", "<prop id=\"memory\" value=\"4GiB\"/>");
  fl_cli_write("once.xml", xml);
  fl_cli_write("once.ini", "[platform]\nfile = once.xml\ncontroller = ctl\n[app]\nkind = workflow\ngraph = once.json\n"
                           "[failures]\nmodel = none\n[strategy]\nkind = replication\n[run]\nreplicas = 1\n");
  snprintf(text, sizeof text, wf, "\"memoryInBytes\":8e9");
  fl_cli_write("once.json", text);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate once.ini --db once.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once.db", "SELECT makespan_s FROM runs"), 13.0, 1e-6);
  snprintf(text, sizeof text, wf, "\"coreCount\":2");
  fl_cli_write("once.json", text);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate once.ini --db once-apart.db"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-apart.db", "SELECT makespan_s FROM runs"), 12.0, 1e-6);
}

/* A workflow's timeline (run.events = phases): each task on its host with its length (killed or not), each transfer
 * with its bytes, the ends and the length; `report --timeline` draws them as the Gantt a workflow user reads first
 * (it said "the run has no events"). The hand case above, n1 down from 0.5 s to 2.5 s (a trace): a is killed after
 * 0.5 s, waits for n1 (only n1 has its 2 cores), runs [2.5, 3.5]; f crosses [3.5, 13.5]; b [13.5, 14.5], c [14.5,
 * 15.5]: 15.5 s. */
static void test_cli_workflow_timeline(void)
{
  char line[512];
  int killed = 0, task = 0;
  FILE *f;
  test_cli_file_once_per_host(); /* its platform and scenario (and a check of them) */
  fl_cli_write("once.json",      /* c on n2 with b again */
               "{\"name\":\"two\",\"schemaVersion\":\"1.5\",\"workflow\":{\"specification\":{\"tasks\":["
               "{\"name\":\"a\",\"id\":\"a\",\"parents\":[],\"children\":[\"b\",\"c\"],\"inputFiles\":[],"
               "\"outputFiles\":[\"f\"]},"
               "{\"name\":\"b\",\"id\":\"b\",\"parents\":[\"a\"],\"children\":[],\"inputFiles\":[\"f\"],"
               "\"outputFiles\":[]},"
               "{\"name\":\"c\",\"id\":\"c\",\"parents\":[\"a\"],\"children\":[],\"inputFiles\":[\"f\"],"
               "\"outputFiles\":[]}],"
               "\"files\":[{\"id\":\"f\",\"sizeInBytes\":1e9}]},\"execution\":{\"makespanInSeconds\":13,\"tasks\":["
               "{\"id\":\"a\",\"runtimeInSeconds\":1,\"coreCount\":2},"
               "{\"id\":\"b\",\"runtimeInSeconds\":1,\"memoryInBytes\":8e9},"
               "{\"id\":\"c\",\"runtimeInSeconds\":1,\"memoryInBytes\":8e9}],\"machines\":[]}}}");
  fl_cli_write("once-kill.csv", "0.5,0,2\n");
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate once.ini --db once-tl.db --set run.events=phases --set "
                                   "failures.model=trace --set failures.trace=once-kill.csv"),
                        0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-tl.db", "SELECT makespan_s FROM runs"), 15.5, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-tl.db", "SELECT COUNT(*) FROM events_text WHERE kind = 'task'"), 4, 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-tl.db", "SELECT value FROM events_text WHERE kind = 'task' AND label = "
                                                    "'a' AND n = 1 AND node = 0 AND t_s = 0.5"),
                         0.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-tl.db", "SELECT t_s FROM events_text WHERE kind = 'task' AND label = "
                                                    "'c' AND n = 0 AND node = 1 AND value = 1"),
                         15.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-tl.db", "SELECT COUNT(*) FROM events_text WHERE kind = 'transfer' AND "
                                                    "node = 0 AND peer = 1 AND n = 1000000000 AND value = 10 AND "
                                                    "t_s = 13.5 AND label = 'a'"),
                         1, 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("report once-tl.db --timeline 1 --trace once-tl.paje"), 0);
  f = fopen(fl_test_tmp("once-tl.paje"), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  while (fgets(line, sizeof line, f)) {
    killed |= strcmp(line, "6 0 ST n0 killed\n") == 0;
    task |= strcmp(line, "6 13.5 ST n1 task\n") == 0;
  }
  fclose(f);
  CU_ASSERT(killed && task);
  CU_ASSERT_EQUAL(fl_cli_run("report once-tl.db --timeline 1 --plot once-tl.svg"), 0);
  /* stored without them (run.events = all, the default): simulated again for the timeline, the same bars */
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate once.ini --db once-all.db --set failures.model=trace --set "
                                   "failures.trace=once-kill.csv"),
                        0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("once-all.db", "SELECT COUNT(*) FROM events_text WHERE kind = 'task'"), 0, 0);
  CU_ASSERT_EQUAL(fl_cli_run("report once-all.db --timeline 1 --trace once-all.paje"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "simulated again"));
}

/* Amdahl's law (app.serial_fraction): a task that ran 8 s on 4 cores of a 1 GHz machine, on generated hosts of one
 * core: refused without the law; with F = 0.5 it takes 8 x (0.5 + 0.5) / (0.5 + 0.5 / 4) = 12.8 s, with F = 0 by
 * its stage (a) 8 x 1 / (1 / 4) = 32 s, both in the schedule and in the run. */
static void test_cli_amdahl(void)
{
  fl_cli_write("amdahl.json",
               "{\"name\":\"m\",\"schemaVersion\":\"1.5\",\"workflow\":{\"specification\":{\"tasks\":["
               "{\"name\":\"a\",\"id\":\"a_1\",\"parents\":[],\"children\":[],\"inputFiles\":[],\"outputFiles\":[]}],"
               "\"files\":[]},\"execution\":{\"makespanInSeconds\":8,\"tasks\":["
               "{\"id\":\"a_1\",\"runtimeInSeconds\":8,\"coreCount\":4,\"machines\":[\"m\"]}],"
               "\"machines\":[{\"nodeName\":\"m\",\"cpu\":{\"coreCount\":4,\"speedInMHz\":1000}}]}}}");
  fl_cli_write("amdahl.ini", "[platform]\nnodes = 2\n[app]\nkind = workflow\ngraph = amdahl.json\n"
                             "[failures]\nmodel = none\n[strategy]\nkind = replication\n[run]\nreplicas = 1\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate amdahl.ini --db amdahl-x.db"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "needs 4 cores"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate amdahl.ini --db amdahl-half.db --set app.serial_fraction=0.5"), 0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("amdahl-half.db", "SELECT work_s FROM runs"), 12.8, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("amdahl-half.db", "SELECT makespan_s FROM runs"), 12.8, 1e-6);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate amdahl.ini --db amdahl-a.db --set app.serial_fraction=b:0.9,a:0,*:0.5"),
                        0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("amdahl-a.db", "SELECT makespan_s FROM runs"), 32.0, 1e-6);
  CU_ASSERT_EQUAL(fl_cli_run("simulate amdahl.ini --db amdahl-bad.db --set app.serial_fraction=a:1.5"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "app.serial_fraction"));
}

/* X fails at 5 s. Budget 0.5: the simplified knapsack (w_X = 2 x max(0.1, 1.0) = 2) re-executes X with every
 * solver; the full MIP substitutes J1 for K1 and J2 for K2 (error 0.2) and the run ends 10 s earlier. Budget 2.5:
 * the simplified one substitutes X by one task for both (error 0.1 + 1.0). */
static void test_cli_decisions(void)
{
  static const char *simplified[] = {"greedy", "exact", "mip"};
  char cmd[2048];
  for (int k = 0; k < 3; k++) {
    snprintf(cmd, sizeof cmd, "simulate %s --db dec.db --set policy.kind=%s",
             fl_test_src("tests/data/workflows/decide.ini"), simplified[k]);
    CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  }
  snprintf(cmd, sizeof cmd, "simulate %s --db dec.db --set policy.kind=full-mip",
           fl_test_src("tests/data/workflows/decide.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  snprintf(cmd, sizeof cmd, "simulate %s --db dec.db --set policy.kind=greedy --set policy.error_budget=2.5",
           fl_test_src("tests/data/workflows/decide.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_EQUAL(fl_cli_query("dec.db", "SELECT count(*) FROM runs WHERE error_budget = 0.5 AND policy IN "
                                         "('greedy','exact','mip') AND tasks_replicated = 1 AND "
                                         "tasks_substituted = 0 AND tasks_lost = 1 AND status = 'completed'"),
                  3.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("dec.db", "SELECT max(makespan_s) FROM runs WHERE error_budget = 0.5 AND "
                                                "policy = 'greedy'"),
                         16.0, 0.01);
  CU_ASSERT_EQUAL(fl_cli_query("dec.db", "SELECT tasks_substituted FROM runs WHERE policy_solver = 'full-mip'"), 1.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("dec.db", "SELECT error_spent FROM runs WHERE policy_solver = 'full-mip'"), 0.2,
                         1e-12);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("dec.db", "SELECT makespan_s FROM runs WHERE policy_solver = 'full-mip'"), 6.0,
                         0.01);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("dec.db", "SELECT error_spent FROM runs WHERE error_budget = 2.5"), 1.1, 1e-12);
  CU_ASSERT_EQUAL(fl_cli_query("dec.db", "SELECT tasks_substituted FROM runs WHERE error_budget = 2.5"), 1.0);
}

/* Substitutes of substitutes (tests/data/workflows/chain.dot says the case). Regressions: a lost substitute whose
 * dependent reads it through two edges (its own input and the one it stood in for) was counted as two dependents
 * and could never be substituted (3 of 3 re-executed here); a substituted task was no candidate, though what its
 * dependents read (its substitute's output) is what a node asking it for its value gets. */
static void test_cli_substitute_chain(void)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "simulate %s --db chain.db", fl_test_src("tests/data/workflows/chain.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_EQUAL(fl_cli_query("chain.db", "SELECT count(*) FROM runs WHERE status = 'completed' AND tasks_lost = 3 "
                                           "AND tasks_substituted = 3 AND tasks_replicated = 0"),
                  1.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("chain.db", "SELECT error_spent FROM runs"), 0.8, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("chain.db", "SELECT makespan_s FROM runs"), 21.0, 0.01);
  /* without Z, Y has no substitute: re-executed (on a live host, after its failure), and K waits for it */
  fl_cli_write("chain2-subs.csv", "task,substitute,weight\nX,Y,0.1\nW,X,0.2\n");
  /* (a key's path is relative to the scenario file: an absolute one) */
  snprintf(cmd, sizeof cmd, "simulate %s --db chain2.db --set app.substitutes=%s/chain2-subs.csv",
           fl_test_src("tests/data/workflows/chain.ini"), fl_test_tmpdir());
  CU_ASSERT_EQUAL_FATAL(fl_cli_run(cmd), 0);
  CU_ASSERT_EQUAL(fl_cli_query("chain2.db", "SELECT count(*) FROM runs WHERE status = 'completed' AND "
                                            "tasks_substituted = 2 AND tasks_replicated = 1"),
                  1.0);
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("chain2.db", "SELECT error_spent FROM runs"), 0.4, 1e-12);
}

static void test_cli_bad_input(void)
{
  static const struct {
    const char *file, *text, *expect;
  } bad[] = {
      {"cyc.dot", "digraph g { a [size=\"1e9\"]; b [size=\"1e9\"]; a -> b; b -> a; }", "cycle"},
      {"bad.json", "{\"workflow\": [1,", "bad.json:1"},
      {"cores.dot", "digraph g { a [size=\"1e9\", cores=64]; }", "no host can run it"},
  };
  char ini[1024], cmd[2048];
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    fl_cli_write(bad[k].file, bad[k].text);
    snprintf(ini, sizeof ini,
             "[platform]\nnodes = 4\n[app]\nkind = workflow\ngraph = %s\n[strategy]\nkind = "
             "replication\n[failures]\nmodel = none\n",
             bad[k].file);
    fl_cli_write("bad.ini", ini);
    snprintf(cmd, sizeof cmd, "simulate bad.ini --db bad-%zu.db", k);
    CU_ASSERT_EQUAL(fl_cli_run(cmd), 2);
    CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
    if (!strstr(fl_cli_err, bad[k].file) || !strstr(fl_cli_err, bad[k].expect)) {
      fprintf(stderr, "%s: got '%s'\n", bad[k].file, fl_cli_err);
      CU_FAIL("the message names the file and the element");
    }
    snprintf(cmd, sizeof cmd, "bad-%zu.db", k);
    CU_ASSERT(!fl_cli_exists(cmd) || fl_cli_query(cmd, "SELECT count(*) FROM runs") == 0.0);
  }
  /* a substitution edge to an unknown task */
  fl_cli_write("ok.dot", "digraph g { a [size=\"1e9\"]; b [size=\"1e9\"]; a -> b [size=10]; }");
  fl_cli_write("subs.csv", "task,substitute,weight\na,nosuch,0.5\n");
  fl_cli_write("subs.ini", "[platform]\nnodes = 4\n[app]\nkind = workflow\ngraph = ok.dot\nsubstitutes = subs.csv\n"
                           "[strategy]\nkind = substitution\n[failures]\nmodel = none\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate subs.ini --db subs.db"), 2);
  CU_ASSERT(strstr(fl_cli_err, "subs.csv:2") && strstr(fl_cli_err, "nosuch"));
  CU_ASSERT(!fl_cli_exists("subs.db") || fl_cli_query("subs.db", "SELECT count(*) FROM runs") == 0.0);
  /* shared outputs read from a controller the platform cannot route to the nodes (SimGrid crashed on the query) */
  fl_cli_write("noroute.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                              "<platform version=\"4.1\"><zone id=\"top\" routing=\"Full\">"
                              "<zone id=\"a\" routing=\"None\"><host id=\"controller\" speed=\"1Gf\"/></zone>"
                              "<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" "
                              "lat=\"1us\"/></zone></platform>\n");
  fl_cli_write("nr.ini",
               "[platform]\nfile = noroute.xml\n[app]\nkind = workflow\ngraph = gridworld\ngrid = 2x2\n"
               "iterations = 3\noutputs = shared\n[strategy]\nkind = replication\n[failures]\nmodel = none\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate nr.ini --db nr.db"), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT(strstr(fl_cli_err, "nr.ini:") && strstr(fl_cli_err, "outputs") && strstr(fl_cli_err, "zone"));
  CU_ASSERT(!fl_cli_exists("nr.db") || fl_cli_query("nr.db", "SELECT count(*) FROM runs") == 0.0);
  CU_ASSERT_EQUAL(fl_cli_run("simulate nr.ini --db nr.db --set app.outputs=local"), 0); /* local needs no route */
  /* nodes in two clusters the platform does not connect: SimGrid crashed (SIGSEGV) on HEFT's first route query;
   * now one line naming the two hosts and their zones, exit 2, no row */
  fl_cli_write("nr2.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                          "<platform version=\"4.1\"><zone id=\"top\" routing=\"Full\">"
                          "<zone id=\"a\" routing=\"None\"><host id=\"controller\" speed=\"1Gf\"/></zone>"
                          "<cluster id=\"c1\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" "
                          "lat=\"1us\"/><cluster id=\"c2\" prefix=\"m-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" "
                          "bw=\"1GBps\" lat=\"1us\"/></zone></platform>\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate nr.ini --db nr2.db --set platform.file=nr2.xml --set app.outputs=local"), 2);
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_err), 1);
  CU_ASSERT(strstr(fl_cli_err, "no route from host") && strstr(fl_cli_err, "zone 'c1'") &&
            strstr(fl_cli_err, "zone 'c2'"));
  CU_ASSERT(!fl_cli_exists("nr2.db") || fl_cli_query("nr2.db", "SELECT count(*) FROM runs") == 0.0);
  /* full-mip outside a workflow */
  fl_cli_write("gwmip.ini", "[platform]\nnodes = 100\n[app]\nkind = gridworld\n[strategy]\nkind = hybrid\n"
                            "[policy]\nkind = full-mip\n[failures]\nmodel = none\n");
  CU_ASSERT_EQUAL(fl_cli_run("simulate gwmip.ini --db subs.db"), 2);
  CU_ASSERT(strstr(fl_cli_err, "full-mip") != NULL);
  /* a workflow's own keys on a grid world: refused, naming who reads them (they were ignored) */
  CU_ASSERT_EQUAL(fl_cli_run("simulate subs.ini --db subs.db --set app.kind=gridworld --set platform.nodes=100"), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_err, "[app] graph = 'ok.dot': app.kind = workflow reads this key; this "
                                            "scenario runs app.kind = gridworld"));
}

/* A task graph's executions leave nothing behind in SimGrid: its host on/off signal has as many callbacks after
 * failing replicas as after the first (SimGrid 3.32 connects one per execution and never disconnects it: each
 * replica was slower than the one before, ~4x by the 20th on a 10x10 grid world). */
static void test_workflow_no_leak(void)
{
  fl_sim_result r;
  long slots = -1, failures = 0;
  fl_scenario *sc = NULL;
  fl_sim *sim = NULL;
  CU_ASSERT_EQUAL_FATAL(
      fl_scenario_from_text("[platform]\nnodes = 40\n[run]\nseed = 5\nmax_time = 2000s\n[failures]\nmodel = "
                            "exponential\nnode_mtbf = 20s\n"
                            "repair = 20s\nstart = steady\n[app]\nkind = workflow\ngraph = gridworld\ngrid = 4x4\n"
                            "iterations = 10\ntask_time = 1s\n[strategy]\nkind = replication\n",
                            "<test>", fl_test_tmpdir(), &sc),
      FL_OK);
  CU_ASSERT_EQUAL_FATAL(fl_sim_create(sc, &sim), FL_OK);
  for (long k = 0; k < 5; k++) {
    CU_ASSERT_EQUAL_FATAL(fl_sim_run_replica(sim, k, &r, NULL), FL_OK);
    CU_ASSERT_STRING_EQUAL(r.status, "completed");
    failures += r.failures;
    if (k == 0)
      slots = fl_sg_state_callbacks();
    CU_ASSERT_EQUAL(fl_sg_state_callbacks(), slots);
  }
  CU_ASSERT(failures > 10); /* executions were killed, not only finished */
  fl_sim_destroy(&sim);
  fl_scenario_destroy(&sc);
}

/* Seed 002's grid world as a graph. Without failures the engine's values equal value iteration's (error 0 exactly:
 * every task computed its state from its inputs) and the makespan is the sweeps' (1 s each, plus microsecond
 * transfers). With outputs on shared storage, replication re-executes lost tasks from the same inputs: error 0 again;
 * substitution finishes no later and pays with error. Regression: every replica of these finishes (a task placed
 * on a host while its worker gathered another's inputs was dropped from the queue; a dependent re-executed after
 * its producer was substituted waited for ever). */
static void test_cli_gridworld_graph(void)
{
  const char *base = "[run]\nseed = 3\nreplicas = 1\nevents = none\nmax_time = 2000s\n[platform]\nnodes = 20\n"
                     "[failures]\nmodel = exponential\nnode_mtbf = 20s\nrepair = 20s\nstart = steady\n[app]\n"
                     "kind = workflow\ngraph = gridworld\ngrid = 4x4\niterations = 5\ntask_time = 1s\noutputs = local\n"
                     "[strategy]\nkind = replication\n";
  char cmd[2048];
  fl_cli_write("gwg.ini", base);
  CU_ASSERT_EQUAL_FATAL(fl_cli_run("simulate gwg.ini --db gwg-free.db --set failures.model=none --set app.grid=6x6 "
                                   "--set app.iterations=20 --set platform.nodes=40"),
                        0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-free.db", "SELECT error_linf FROM runs"), 0.0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-free.db", "SELECT iterations FROM runs"), 20.0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-free.db", "SELECT complete_iterations FROM runs"), 20.0);
  /* a run stopped by run.max_time says how far it got: the leading sweeps with every value */
  CU_ASSERT_EQUAL(fl_cli_run("simulate gwg.ini --db gwg-cut.db --set failures.model=none --set app.grid=6x6 "
                             "--set app.iterations=20 --set platform.nodes=40 --set run.max_time=7.5s"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-cut.db", "SELECT count(*) FROM runs WHERE status = 'timeout'"), 1.0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-cut.db", "SELECT complete_iterations FROM runs"), 7.0);
  CU_ASSERT_EQUAL(fl_cli_run("report gwg-cut.db"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "sweeps done"));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "35.0%"));
  CU_ASSERT_DOUBLE_EQUAL(fl_cli_query("gwg-free.db", "SELECT makespan_s FROM runs"), 20.0, 0.01);
  /* the replicas that stalled before the fixes: replication, shared outputs, seeds 1..8 */
  for (int seed = 1; seed <= 8; seed++) {
    snprintf(cmd, sizeof cmd, "simulate gwg.ini --db gwg-rep.db --set app.outputs=shared --set run.seed=%d", seed);
    CU_ASSERT_EQUAL(fl_cli_run(cmd), 0);
  }
  CU_ASSERT_EQUAL(fl_cli_query("gwg-rep.db", "SELECT count(*) FROM runs WHERE status = 'completed' AND "
                                             "error_linf = 0 AND tasks_replicated > 0"),
                  8.0);
  /* local outputs, node MTBF 100 s: substitution with a substitute produced later (pending) and re-opened */
  CU_ASSERT_EQUAL(fl_cli_run("simulate gwg.ini --db gwg-sub.db --set app.grid=10x10 --set app.iterations=100 "
                             "--set platform.nodes=200 --set failures.node_mtbf=100s --set run.replicas=2 "
                             "--set run.seed=11 --set strategy.kind=substitution"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-sub.db", "SELECT count(*) FROM runs WHERE status = 'completed' AND "
                                             "error_linf > 0 AND tasks_substituted > 0"),
                  2.0);
  /* seed 002's shape through the task graphs: 10x10 at node MTBF = repair = 20 s, outputs in node memory;
   * replication's re-executions cascade and it gets through almost no sweep by 10x the failure-free time, while
   * substitution finishes (before substitutes of substitutes, it re-executed every lost substitute) */
  CU_ASSERT_EQUAL(fl_cli_run("simulate gwg.ini --db gwg-shape.db --set app.grid=10x10 --set app.iterations=100 "
                             "--set platform.nodes=200 --set run.max_time=1000s --set run.replicas=2 --set run.seed=11 "
                             "--sweep strategy.kind=replication,substitution"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-shape.db", "SELECT count(*) FROM runs WHERE strategy = 'substitution' AND "
                                               "status = 'completed' AND complete_iterations = 100 AND "
                                               "tasks_replicated < tasks_substituted / 20"),
                  2.0);
  CU_ASSERT_EQUAL(fl_cli_query("gwg-shape.db", "SELECT count(*) FROM runs WHERE strategy = 'replication' AND "
                                               "status = 'timeout' AND complete_iterations < 10"),
                  2.0);
  /* a row from the middle of a sweep re-simulates alone to the same numbers (SimGrid's clock is shared by the
   * replicas of one process; makespans are kept at its 1e-9 s precision) */
  CU_ASSERT_EQUAL(fl_cli_run("simulate gwg.ini --db gwg-re.db --set app.outputs=shared --set run.replicas=2 "
                             "--sweep strategy.kind=replication,substitution"),
                  0);
  CU_ASSERT_EQUAL(fl_cli_run("rerun gwg-re.db 4"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "identical"));
  /* report: task graphs have their own table (makespan against the schedule, tasks lost / re-executed /
   * substituted, error) */
  CU_ASSERT_EQUAL(fl_cli_run("report gwg-re.db"), 0);
  CU_ASSERT(strstr(fl_cli_out, "x schedule") && strstr(fl_cli_out, "re-executed") && strstr(fl_cli_out, "error Linf"));
  CU_ASSERT_EQUAL(fl_cli_run("report gwg-re.db --csv"), 0);
  /* typed: one line per strategy; app.outputs, the same in every row, is no column */
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\n\"gwg\",sim,\"workflow\",\"replication\","));
  CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "\n\"gwg\",sim,\"workflow\",\"substitution\","));
  CU_ASSERT_PTR_NULL(strstr(fl_cli_out, ",app.outputs,"));
  CU_ASSERT_EQUAL(fl_cli_lines(fl_cli_out), 3);
}

/* The shipped WfCommons scenarios run with failures and every replica completes. */
static void test_cli_real_instances(void)
{
  static const char *sc[] = {"scenarios/workflow-epigenomics.ini", "scenarios/workflow-1000genome.ini",
                             "scenarios/workflow-montage.ini"};
  char cmd[2048];
  for (int k = 0; k < 3; k++) {
    snprintf(cmd, sizeof cmd, "simulate %s --db real.db --set run.replicas=4 --set run.sweep=", fl_test_src(sc[k]));
    CU_ASSERT_EQUAL(fl_cli_run(cmd), 0);
  }
  CU_ASSERT_EQUAL(fl_cli_query("real.db", "SELECT count(*) FROM runs WHERE status = 'completed'"), 12.0);
  CU_ASSERT(fl_cli_query("real.db", "SELECT sum(tasks_lost) FROM runs") > 0);
  CU_ASSERT(fl_cli_query("real.db", "SELECT min(makespan_s - work_s) FROM runs") >= -1e-9);
}

/* A task graph's replicas each run in a child process from SimGrid's clock at zero, so the second comes back from
 * rerun (alone in its process) bit for bit. Before, it ran on from the first's clock, and its energy (dates from
 * SimGrid's clock) differed in the last digits. */
static void test_cli_rerun_second_replica(void)
{
  char args[1024];
  snprintf(args, sizeof args,
           "simulate '%s' --set run.sweep= --set run.events=none --replicas 2 --db wg.sqlite --quiet",
           fl_test_src("scenarios/workflow-gridworld-10x10.ini"));
  CU_ASSERT_EQUAL_FATAL(fl_cli_run_limited(args, 120), 0);
  CU_ASSERT_EQUAL_FATAL(fl_cli_query("wg.sqlite", "SELECT COUNT(*) FROM runs"), 2);
  for (int id = 1; id <= 2; id++) {
    snprintf(args, sizeof args, "rerun wg.sqlite %d", id);
    CU_ASSERT_EQUAL(fl_cli_run_limited(args, 120), 0);
    if (!strstr(fl_cli_out, "identical"))
      fprintf(stderr, "\n    replica %d:\n%s", id - 1, fl_cli_out);
    CU_ASSERT_PTR_NOT_NULL(strstr(fl_cli_out, "identical"));
  }
}

static CU_TestInfo graph_tests[] = {
    {"DOT: sizes, edges, topological order", test_dot},
    {"WfCommons 1.4: a published Epigenomics instance", test_wfcommons_14},
    {"WfCommons 1.5: specification and execution", test_wfcommons_15},
    {"WfCommons 1.5 without categories: the stages of 1.4", test_wfcommons_15_stages},
    {"Pegasus 5 YAML: the same graph as the DAX", test_pegasus5_yaml},
    {"Pegasus DAX, and the stage rule", test_dax},
    {"Pegasus DAX 3.3 without runtimes: app.task_runtime", test_dax_task_runtime},
    {"the format from the content, not the extension", test_format_from_content},
    {"side file of substitutes", test_side_file},
    {"bad graphs name the file and the element", test_bad_graphs},
    {"HEFT: the diamond by hand", test_heft_by_hand},
    {"min-min by hand: the diamond, and where it loses to HEFT", test_minmin_by_hand},
    {"HEFT: mean bandwidth and latency exact for equal links", test_heft_means},
    {"HEFT: candidate hosts on a large platform", test_heft_candidates},
    CU_TEST_INFO_NULL,
};
static CU_TestInfo cli_tests[] = {
    {"failure-free makespan = HEFT's schedule", test_cli_heft_makespan},
    {"staged inputs: read from the controller, priced by HEFT", test_cli_staged_inputs},
    {"staged inputs cached on a host (app.stage_cache), by hand", test_cli_stage_cache},
    {"host memory limits: placement and refusal, by hand", test_cli_memory},
    {"a file two dependents read on one host crosses the link once", test_cli_file_once_per_host},
    {"a workflow's timeline: tasks on their hosts, transfers, Paje and the plot", test_cli_workflow_timeline},
    {"Amdahl's law on hosts of fewer cores (app.serial_fraction), by hand", test_cli_amdahl},
    {"one transfer per edge: a push and a pull never both start it", test_cli_one_transfer_per_edge},
    {"a rule that leaves most tasks without substitute is said", test_cli_substitute_warning},
    {"decisions: simplified re-executes, full MIP substitutes", test_cli_decisions},
    {"substitutes of substitutes, a dependent reading twice", test_cli_substitute_chain},
    {"bad graphs: exit 2, one line, no row", test_cli_bad_input},
    {"shipped WfCommons scenarios", test_cli_real_instances},
    {"the grid world as a graph: values, regressions", test_cli_gridworld_graph},
    {"task graphs leave no SimGrid callbacks behind", test_workflow_no_leak},
    {"a second replica comes back from rerun bit for bit", test_cli_rerun_second_replica},
    {"app.scheduler = min-min for a workflow", test_cli_scheduler},
    CU_TEST_INFO_NULL,
};
static CU_SuiteInfo suites[] = {
    {"workflow", NULL, NULL, NULL, NULL, graph_tests},
    {"workflow-cli", NULL, NULL, NULL, NULL, cli_tests},
    CU_SUITE_INFO_NULL,
};
FL_TEST_MAIN(suites)
