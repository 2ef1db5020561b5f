/* test_ckpt_store.c — the checkpoint API on every registered store (file, hdf5 when built, memory): save and
 * restore, split-phase overlap, retention, version rules, all-or-nothing restore, corruption found and fallen
 * back from, one writer per directory, a dead writer's leftovers, a failing background write, and the guard
 * and region patterns of the Kokkos report. */
#include "ckpt.h"
#include "fl_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a small application state: two exact arrays, one multigrid-compressed field, one struct ---- */

typedef struct solver_state {
  int64_t iter;
  double residual;
  double x[3];
} solver_state;

static const fl_ckpt_field solver_state_fields[] = {
    FL_CKPT_FIELD(solver_state, iter),
    FL_CKPT_FIELD(solver_state, residual),
    FL_CKPT_FIELD(solver_state, x),
};
static const fl_ckpt_type solver_state_type = FL_CKPT_TYPE(solver_state, "solver_state", 1, solver_state_fields);

#define NU (32 * 24)
#define NI 100
#define NS 33

typedef struct app {
  fl_ckpt *ck;
  double u[NU];
  int32_t idx[NI];
  double smooth[NS * NS];
  solver_state st;
} app;

static void app_fill(app *a, int seed)
{
  for (int i = 0; i < NU; i++)
    a->u[i] = seed * 1000.0 + i * 0.5;
  for (int i = 0; i < NI; i++)
    a->idx[i] = seed * 7 + i;
  for (int i = 0; i < NS; i++)
    for (int j = 0; j < NS; j++)
      a->smooth[i * NS + j] = seed + sin(0.1 * i) * cos(0.1 * j);
  a->st.iter = seed;
  a->st.residual = 1.0 / (seed + 1);
  a->st.x[0] = seed, a->st.x[1] = -seed, a->st.x[2] = 0.5 * seed;
}

/* 1 when a holds exactly what app_fill(seed) wrote (smooth within the multigrid error, 0.015 on this grid;
 * seeds differ by 1). */
static int app_is(const app *a, int seed)
{
  app want;
  double err = 0;
  app_fill(&want, seed);
  for (int i = 0; i < NS * NS; i++)
    err = fmax(err, fabs(a->smooth[i] - want.smooth[i]));
  return memcmp(a->u, want.u, sizeof a->u) == 0 && memcmp(a->idx, want.idx, sizeof a->idx) == 0 &&
         memcmp(&a->st, &want.st, sizeof a->st) == 0 && err < 0.03;
}

static int on_disk(const char *store)
{
  return strcmp(store, "memory") != 0;
}

/* Warnings of the fl_ckpt objects opened by app_open: counted, the last one kept. */
static int nwarnings;
static char last_warning[2048];
static void capture_warning(void *user, const char *msg)
{
  (void)user;
  nwarnings++;
  snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* A fresh directory name for this store and test. */
static const char *dir_for(const char *store, const char *test)
{
  static char buf[512];
  char name[128];
  snprintf(name, sizeof name, "%s-%s", store, test);
  snprintf(buf, sizeof buf, "%s", fl_test_tmp(name));
  return buf;
}

static fl_err app_open(app *a, const char *store, const char *dir, int keep)
{
  fl_err rc = FL_OK;
  FL_TRY(fl_ckpt_create(
      &(fl_ckpt_opts){.store = store, .path = on_disk(store) ? dir : NULL, .keep = keep, .warn = capture_warning},
      &a->ck));
  FL_TRY(fl_ckpt_register(a->ck, &(fl_ckpt_array){.label = "u", .shape = {FL_CKPT_F64, 2, {32, 24}}, .data = a->u}));
  FL_TRY(fl_ckpt_register(a->ck, &(fl_ckpt_array){.label = "idx", .shape = {FL_CKPT_I32, 1, {NI}}, .data = a->idx}));
  FL_TRY(fl_ckpt_register(a->ck, &(fl_ckpt_array){.label = "smooth",
                                                  .shape = {FL_CKPT_F64, 2, {NS, NS}},
                                                  .data = a->smooth,
                                                  .codec = {.name = "multigrid", .levels = 1}}));
  FL_TRY(fl_ckpt_register_object(a->ck, "state", &solver_state_type, &a->st));
done:
  return rc;
}

static size_t count_versions(fl_ckpt *ck)
{
  long *v = NULL;
  size_t n = 0;
  CU_ASSERT_EQUAL(fl_ckpt_versions(ck, &v, &n), FL_OK);
  free(v);
  return n;
}

/* Names in a directory other than FORMAT, LOCK and committed versions (leftovers), and the version count. */
static void scan_dir(const char *dir, int *versions, int *others)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  *versions = *others = 0;
  CU_ASSERT_FATAL(d != NULL);
  while ((e = readdir(d)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "FORMAT") ||
        !strcmp(e->d_name, "LOCK"))
      continue;
    if (e->d_name[0] == 'v' && strlen(e->d_name) == 13)
      (*versions)++;
    else
      (*others)++;
  }
  closedir(d);
}

static void flip_byte(const char *path, long offset)
{
  unsigned char c;
  FILE *f = fopen(path, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  if (offset < 0) {
    fseek(f, 0, SEEK_END);
    offset += ftell(f);
  }
  fseek(f, offset, SEEK_SET);
  CU_ASSERT_FATAL(fread(&c, 1, 1, f) == 1);
  c ^= 0x10;
  fseek(f, offset, SEEK_SET);
  CU_ASSERT_FATAL(fwrite(&c, 1, 1, f) == 1);
  fclose(f);
}

/* ---- conformance: each test runs on every store of the registry ---- */

static void t_roundtrip(const char *store)
{
  app a;
  long r = -7, latest;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "roundtrip"), 0), FL_OK);
  CU_ASSERT_STRING_EQUAL(fl_ckpt_store_type(a.ck), store);
  CU_ASSERT_EQUAL(fl_ckpt_latest(a.ck, &latest), FL_OK);
  CU_ASSERT_EQUAL(latest, -1);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_ERR_INPUT); /* nothing to restore yet */
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 10), FL_OK);
  app_fill(&a, 2);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 20), FL_OK);
  app_fill(&a, 3);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
  CU_ASSERT_EQUAL(r, 20);
  CU_ASSERT(app_is(&a, 2));
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 10, &r), FL_OK);
  CU_ASSERT_EQUAL(r, 10);
  CU_ASSERT(app_is(&a, 1));
  /* One label alone. */
  app_fill(&a, 3);
  CU_ASSERT_EQUAL(fl_ckpt_restore(a.ck, "idx", 20), FL_OK);
  CU_ASSERT_EQUAL(a.idx[5], 2 * 7 + 5);
  CU_ASSERT_EQUAL(a.u[0], 3000.0);
  CU_ASSERT_EQUAL(fl_ckpt_restore(a.ck, "nope", 20), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 15, &r), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "no committed checkpoint version 15") != NULL);
  /* Every version verifies. */
  for (long v = 10; v <= 20; v += 10) {
    int ok = 0;
    char why[256];
    CU_ASSERT_EQUAL(fl_ckpt_verify(a.ck, v, &ok, why, sizeof why), FL_OK);
    CU_ASSERT(ok);
  }
  fl_ckpt_destroy(&a.ck);
  CU_ASSERT_PTR_NULL(a.ck);
  fl_ckpt_destroy(&a.ck); /* NULL-safe */
  if (on_disk(store)) {   /* and it is still there for the next process */
    memset(&a, 0, sizeof a);
    CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "roundtrip"), 0), FL_OK);
    CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
    CU_ASSERT(app_is(&a, 2));
    fl_ckpt_destroy(&a.ck);
  }
}

/* start snapshots: the application changes its arrays right after start, the checkpoint holds the old ones. */
static void t_split_phase(const char *store)
{
  app a;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "split"), 0), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_commit(a.ck), FL_ERR_INPUT); /* nothing in flight */
  app_fill(&a, 5);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_start(a.ck, 1), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_in_flight(a.ck), 1);
  app_fill(&a, 6); /* the computation goes on */
  CU_ASSERT_EQUAL(fl_ckpt_start(a.ck, 2), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(
      fl_ckpt_register(a.ck, &(fl_ckpt_array){.label = "late", .shape = {FL_CKPT_U8, 1, {1}}, .data = a.idx}),
      FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, NULL), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_commit(a.ck), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_in_flight(a.ck), -1);
  CU_ASSERT(app_is(&a, 6));
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 1, NULL), FL_OK);
  CU_ASSERT(app_is(&a, 5));
  /* A checkpoint started and never committed leaves nothing. */
  CU_ASSERT_EQUAL(fl_ckpt_start(a.ck, 2), FL_OK);
  fl_ckpt_destroy(&a.ck);
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "split"), 0), FL_OK);
  if (on_disk(store)) {
    long latest;
    int nv, other;
    CU_ASSERT_EQUAL(fl_ckpt_latest(a.ck, &latest), FL_OK);
    CU_ASSERT_EQUAL(latest, 1);
    scan_dir(dir_for(store, "split"), &nv, &other);
    CU_ASSERT_EQUAL(nv, 1);
    CU_ASSERT_EQUAL(other, 0);
  }
  fl_ckpt_destroy(&a.ck);
}

static void t_versions_and_retention(const char *store)
{
  app a;
  long *v = NULL;
  size_t n = 0;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "retain"), 3), FL_OK);
  for (int i = 0; i < 10; i++) {
    app_fill(&a, i);
    CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 100 + i), FL_OK);
    CU_ASSERT_EQUAL(count_versions(a.ck), (size_t)(i < 3 ? i + 1 : 3));
  }
  CU_ASSERT_EQUAL(fl_ckpt_versions(a.ck, &v, &n), FL_OK);
  CU_ASSERT_EQUAL_FATAL(n, 3);
  CU_ASSERT(v[0] == 107 && v[1] == 108 && v[2] == 109);
  free(v);
  /* Versions only grow; none is ever overwritten. */
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 109), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "not newer than the latest committed version 109") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 50), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, -3), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, FL_CKPT_VERSION_MAX + 1), FL_ERR_INPUT);
  app_fill(&a, 0);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, NULL), FL_OK);
  CU_ASSERT(app_is(&a, 9));
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 105, NULL), FL_ERR_INPUT); /* retired */
  if (on_disk(store)) {
    int nv, other;
    scan_dir(dir_for(store, "retain"), &nv, &other);
    CU_ASSERT_EQUAL(nv, 3);
    CU_ASSERT_EQUAL(other, 0);
  }
  fl_ckpt_destroy(&a.ck);
}

/* What a version holds must match what is registered, by name and shape. */
static void t_mismatch(const char *store)
{
  app a;
  fl_ckpt *ck = NULL;
  double other[10];
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "mismatch"), 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 1), FL_OK);
  if (!on_disk(store)) { /* memory versions live in their fl_ckpt: register more there */
    ck = a.ck;
    a.ck = NULL;
  } else {
    fl_ckpt_destroy(&a.ck);
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir_for(store, "mismatch")}, &ck),
                          FL_OK);
  }
  /* Same labels, other shapes. */
  CU_ASSERT_EQUAL(
      fl_ckpt_register(
          ck, &(fl_ckpt_array){.label = on_disk(store) ? "u" : "u2", .shape = {FL_CKPT_F64, 2, {24, 32}}, .data = a.u}),
      FL_OK);
  if (on_disk(store)) {
    CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 1, NULL), FL_ERR_INPUT);
    CU_ASSERT(strstr(fl_err_msg(), "'u' holds f64 32x24, registered as f64 24x32") != NULL);
  } else {
    CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 1, NULL), FL_ERR_INPUT);
    CU_ASSERT(strstr(fl_err_msg(), "has no entry 'u2'") != NULL);
  }
  fl_ckpt_destroy(&ck);
  /* Registration errors name the label and the value. */
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir_for(store, "mismatch2")}, &ck),
                        FL_OK);
  CU_ASSERT_EQUAL(
      fl_ckpt_register(ck, &(fl_ckpt_array){.label = "a b", .shape = {FL_CKPT_F64, 1, {10}}, .data = other}),
      FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "'a b'") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = ".x", .shape = {FL_CKPT_F64, 1, {10}}, .data = other}),
                  FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "x", .shape = {FL_CKPT_F64, 1, {10}}, .data = other}),
                  FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "x", .shape = {FL_CKPT_F64, 1, {10}}, .data = other}),
                  FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "'x' is already registered") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_register(ck, &(fl_ckpt_array){.label = "y", .shape = {FL_CKPT_F64, 1, {10}}, .data = NULL}),
                  FL_ERR_INPUT);
  CU_ASSERT_EQUAL(
      fl_ckpt_register(
          ck,
          &(fl_ckpt_array){.label = "z", .shape = {FL_CKPT_F64, 1, {10}}, .data = other, .codec = {.name = "gzip"}}),
      FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "unknown codec 'gzip'") != NULL);
  fl_ckpt_destroy(&ck);
}

static int consistent_flag;
static int check_flag(void *user)
{
  (void)user;
  return consistent_flag;
}

/* A per-array consistency check, in the report's spirit: u holds no negative value. */
static int u_nonneg_calls;
static int u_nonneg(void *user, const fl_ckpt_check_args *c)
{
  const double *u = c->data;
  (void)user;
  u_nonneg_calls++;
  CU_ASSERT_STRING_EQUAL(c->label, "u");
  for (size_t i = 0; i < c->shape->dims[0] * c->shape->dims[1]; i++)
    if (u[i] < 0)
      return 0;
  return 1;
}

/* Figure 1-2: save when the check passes, roll back when it fails. */
static void t_guard(const char *store)
{
  app a;
  fl_ckpt_guard_outcome out = 0;
  long r = 0;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "guard"), 0), FL_OK);
  consistent_flag = 0;
  CU_ASSERT_EQUAL(fl_ckpt_guard(a.ck, 1, check_flag, NULL, &out, &r), FL_OK);
  CU_ASSERT_EQUAL(out, FL_CKPT_UNRECOVERABLE);
  CU_ASSERT_EQUAL(r, -1);
  consistent_flag = 1;
  app_fill(&a, 4);
  CU_ASSERT_EQUAL(fl_ckpt_guard(a.ck, 1, check_flag, NULL, &out, &r), FL_OK);
  CU_ASSERT_EQUAL(out, FL_CKPT_SAVED);
  app_fill(&a, 99);    /* a fault corrupts the state... */
  consistent_flag = 0; /* ...and the check notices */
  CU_ASSERT_EQUAL(fl_ckpt_guard(a.ck, 2, check_flag, NULL, &out, &r), FL_OK);
  CU_ASSERT_EQUAL(out, FL_CKPT_ROLLED_BACK);
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT(app_is(&a, 4));
  CU_ASSERT_EQUAL(count_versions(a.ck), 1);
  /* The same through a per-array check: a negative value in u refuses the save. */
  CU_ASSERT_EQUAL(fl_ckpt_set_check(a.ck, "u", u_nonneg, NULL), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_set_check(a.ck, "nope", u_nonneg, NULL), FL_ERR_INPUT);
  a.u[7] = -1;
  CU_ASSERT_EQUAL(fl_ckpt_guard(a.ck, 2, NULL, NULL, &out, &r), FL_OK);
  CU_ASSERT(out == FL_CKPT_ROLLED_BACK && r == 1 && app_is(&a, 4));
  CU_ASSERT_EQUAL(count_versions(a.ck), 1);
  fl_ckpt_destroy(&a.ck);
}

/* The per-array check refuses a checkpoint (nothing written, the label named) and, on restore, makes
 * FL_CKPT_LATEST fall back past a version whose data fails it. */
static void t_check(const char *store)
{
  app a;
  long r;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "check"), 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 1), FL_OK);
  app_fill(&a, 2);
  a.u[5] = -2.0; /* fine for now: no check yet */
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 2), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_set_check(a.ck, "u", u_nonneg, NULL), FL_OK);
  u_nonneg_calls = 0;
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 3), FL_ERR_INPUT); /* refused */
  CU_ASSERT(strstr(fl_err_msg(), "checkpoint 3 refused: 'u' fails its consistency check") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_start(a.ck, 3), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_in_flight(a.ck), -1);
  CU_ASSERT_EQUAL(count_versions(a.ck), 2);
  CU_ASSERT_EQUAL(u_nonneg_calls, 2);
  /* Restore: version 2 holds the negative value: skipped, version 1 restored. */
  app_fill(&a, 7);
  nwarnings = 0;
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT(app_is(&a, 1));
  CU_ASSERT(nwarnings == 1 && strstr(last_warning, "skipping checkpoint version 2") &&
            strstr(last_warning, "restored 'u' fails its consistency check"));
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 1, &r), FL_OK);
  fl_ckpt_destroy(&a.ck);
}

typedef struct region_run {
  app *a;
  int bodies;
  long iter;
} region_run;

static fl_err region_body(void *user)
{
  region_run *rr = user;
  /* An iteration: deterministic update of the whole state. */
  for (int i = 0; i < NU; i++)
    rr->a->u[i] = rr->a->u[i] * 0.5 + (double)rr->iter;
  for (int i = 0; i < NI; i++)
    rr->a->idx[i] += (int32_t)rr->iter;
  rr->a->st.iter = rr->iter;
  rr->bodies++;
  return FL_OK;
}

/* Figure 1-3: a run killed after iteration 5 and restarted does no iteration twice and ends where an
 * uninterrupted run ends. */
static void t_region(const char *store)
{
  static app a, ref;
  region_run rr = {&a, 0, 0}, rref = {&ref, 0, 0};
  int skipped;
  if (!on_disk(store))
    return; /* a restart needs a store that outlives the process */
  memset(&a, 0, sizeof a);
  memset(&ref, 0, sizeof ref);
  app_fill(&ref, 1);
  for (rref.iter = 0; rref.iter < 10; rref.iter++)
    region_body(&rref);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "region"), 2), FL_OK);
  for (rr.iter = 0; rr.iter <= 5; rr.iter++) {
    CU_ASSERT_EQUAL(fl_ckpt_region(a.ck, "solve", rr.iter, region_body, &rr, &skipped), FL_OK);
    CU_ASSERT_EQUAL(skipped, 0);
  }
  fl_ckpt_destroy(&a.ck); /* the "crash" */
  memset(&a, 0, sizeof a);
  app_fill(&a, 1); /* the restarted program starts from its initial state */
  rr.bodies = 0;
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "region"), 2), FL_OK);
  for (rr.iter = 0; rr.iter < 10; rr.iter++) {
    CU_ASSERT_EQUAL(fl_ckpt_region(a.ck, "solve", rr.iter, region_body, &rr, &skipped), FL_OK);
    CU_ASSERT_EQUAL(skipped, rr.iter <= 5);
  }
  CU_ASSERT_EQUAL(fl_ckpt_region(a.ck, "other", 10, region_body, &rr, &skipped), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "runs region 'solve'") != NULL);
  CU_ASSERT_EQUAL(rr.bodies, 4);
  CU_ASSERT(memcmp(a.u, ref.u, sizeof a.u) == 0);
  CU_ASSERT(memcmp(a.idx, ref.idx, sizeof a.idx) == 0);
  CU_ASSERT_EQUAL(a.st.iter, 9);
  fl_ckpt_destroy(&a.ck);
}

/* A restart whose newest region version is damaged resumes from the one before (with a warning, the damaged
 * one set aside) and recomputes from there, writing that version number again. */
static void t_region_damaged(const char *store)
{
  static app a, ref;
  region_run rr = {&a, 0, 0}, rref = {&ref, 0, 0};
  char path[1024];
  int skipped;
  if (!on_disk(store))
    return;
  memset(&a, 0, sizeof a);
  memset(&ref, 0, sizeof ref);
  app_fill(&ref, 1);
  for (rref.iter = 0; rref.iter < 10; rref.iter++)
    region_body(&rref);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "region-damaged"), 0), FL_OK);
  for (rr.iter = 0; rr.iter <= 5; rr.iter++)
    CU_ASSERT_EQUAL(fl_ckpt_region(a.ck, "solve", rr.iter, region_body, &rr, &skipped), FL_OK);
  fl_ckpt_destroy(&a.ck);
  snprintf(path, sizeof path, "%s/v000000000005/MANIFEST", dir_for(store, "region-damaged"));
  flip_byte(path, 30);
  memset(&a, 0, sizeof a);
  app_fill(&a, 1);
  rr.bodies = 0;
  nwarnings = 0;
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "region-damaged"), 0), FL_OK);
  for (rr.iter = 0; rr.iter < 10; rr.iter++) {
    CU_ASSERT_EQUAL(fl_ckpt_region(a.ck, "solve", rr.iter, region_body, &rr, &skipped), FL_OK);
    CU_ASSERT_EQUAL(skipped, rr.iter <= 4);
  }
  CU_ASSERT_EQUAL(rr.bodies, 5);
  CU_ASSERT(nwarnings == 1 && strstr(last_warning, "skipping checkpoint version 5"));
  CU_ASSERT(memcmp(a.u, ref.u, sizeof a.u) == 0 && memcmp(a.idx, ref.idx, sizeof a.idx) == 0);
  fl_ckpt_destroy(&a.ck);
}

/* Every store x every codec x every element type the codec takes: write, restore, compare (bit-exact for
 * "none", within tol for zfp, within the measured multigrid error on this smooth field). The HDF5 store runs
 * twice when ZFP is built: with and without its ZFP filter. */
static double matrix_value(int i, int j)
{
  return 50.0 + 40.0 * sin(0.05 * i) * cos(0.04 * j);
}

static void t_matrix(const char *store)
{
  static const fl_ckpt_dtype dtypes[] = {FL_CKPT_U8, FL_CKPT_I32, FL_CKPT_I64, FL_CKPT_F32, FL_CKPT_F64};
  enum { NY = 20, NX = 30 };
  static unsigned char data[NY * NX * 8], orig[NY * NX * 8];
  static fl_ckpt_relres relres = {.r_norm = 1e-3, .b_norm = 1, .tol = 1};
  int combos = 0;
  for (int filter = 0; filter <= (strcmp(store, "hdf5") == 0 && fl_ckpt_codec_known("zfp")); filter++)
    for (int c = 0; c < fl_ckpt_codec_count(); c++)
      for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        const char *codec = fl_ckpt_codec_name(c);
        fl_ckpt_array arr = {"m", {dtypes[d], 2, {NY, NX}}, data, {.name = codec, .tol = 1e-3, .levels = 1}};
        fl_ckpt *ck = NULL;
        char dir[700];
        double err = 0;
        if (strcmp(codec, "zfp-adaptive") == 0) {
          arr.codec.rule = fl_ckpt_rule_relres;
          arr.codec.rule_user = &relres;
        }
        if (fl_ckpt_codec_check(&arr.codec, &arr.shape, "m") != FL_OK) {
          fl_err_clear();
          continue;
        }
        for (int i = 0; i < NY; i++)
          for (int j = 0; j < NX; j++) {
            double v = matrix_value(i, j);
            size_t k = (size_t)(i * NX + j);
            switch (dtypes[d]) {
            case FL_CKPT_U8: ((uint8_t *)data)[k] = (uint8_t)v; break;
            case FL_CKPT_I32: ((int32_t *)data)[k] = (int32_t)(v * 1e6); break;
            case FL_CKPT_I64: ((int64_t *)data)[k] = (int64_t)(v * 1e12); break;
            case FL_CKPT_F32: ((float *)data)[k] = (float)v; break;
            case FL_CKPT_F64: ((double *)data)[k] = v; break;
            }
          }
        memcpy(orig, data, sizeof data);
        snprintf(dir, sizeof dir, "%s-%d-%s-%s", dir_for(store, "matrix"), filter, codec,
                 fl_ckpt_dtype_name(dtypes[d]));
        CU_ASSERT_EQUAL_FATAL(
            fl_ckpt_create(
                &(fl_ckpt_opts){.store = store, .path = on_disk(store) ? dir : NULL, .hdf5_zfp_filter = filter}, &ck),
            FL_OK);
        CU_ASSERT_EQUAL(fl_ckpt_register(ck, &arr), FL_OK);
        CU_ASSERT_EQUAL(fl_ckpt_write(ck, 1), FL_OK);
        memset(data, 0, sizeof data);
        CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 1, NULL), FL_OK);
        for (size_t k = 0; k < (size_t)(NY * NX); k++) {
          if (dtypes[d] == FL_CKPT_F64)
            err = fmax(err, fabs(((double *)data)[k] - ((double *)orig)[k]));
          else if (dtypes[d] == FL_CKPT_F32)
            err = fmax(err, fabs((double)((float *)data)[k] - (double)((float *)orig)[k]));
        }
        if (!fl_ckpt_codec_is_lossy(codec)) {
          CU_ASSERT(memcmp(data, orig, fl_ckpt_shape_bytes(&arr.shape)) == 0);
        } else if (strcmp(codec, "zfp") == 0) {
          CU_ASSERT(err <= 1e-3);
        } else if (strcmp(codec, "zfp-adaptive") == 0) {
          CU_ASSERT(err <= 1e-3 * 50.0 * 1.2); /* eb = 1e-3 relative to the RMS of a field near 50 */
        } else {
          CU_ASSERT(err < 0.5); /* multigrid, one level: about 0.1 on this field */
        }
        combos++;
        fl_ckpt_destroy(&ck);
      }
  CU_ASSERT_EQUAL(combos, (1 + (strcmp(store, "hdf5") == 0 && fl_ckpt_codec_known("zfp"))) *
                              (5 + 2 * (fl_ckpt_codec_count() - 1)));
}

#define FOR_EACH_STORE(fn)                                                                                             \
  static void test_##fn(void)                                                                                          \
  {                                                                                                                    \
    for (int i = 0; i < fl_ckpt_store_count(); i++)                                                                    \
      fn(fl_ckpt_store_name(i));                                                                                       \
  }
FOR_EACH_STORE(t_roundtrip)
FOR_EACH_STORE(t_matrix)
FOR_EACH_STORE(t_split_phase)
FOR_EACH_STORE(t_versions_and_retention)
FOR_EACH_STORE(t_mismatch)
FOR_EACH_STORE(t_guard)
FOR_EACH_STORE(t_check)
FOR_EACH_STORE(t_region)
FOR_EACH_STORE(t_region_damaged)

/* ---- on-disk behaviour (file, hdf5) ---- */

/* A corrupt newest version: restoring it by number fails naming the file; FL_CKPT_LATEST skips it with a
 * warning naming it, sets it aside (.bad-v...) and restores the one before; the application can then write
 * that version number again. */
static void t_corrupt_manifest_fallback(const char *store)
{
  app a;
  char path[1024], why[512];
  long r;
  int ok = 1, nv, other;
  if (!on_disk(store))
    return;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "corrupt"), 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 1), FL_OK);
  app_fill(&a, 2);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 2), FL_OK);
  snprintf(path, sizeof path, "%s/v000000000002/MANIFEST", dir_for(store, "corrupt"));
  flip_byte(path, 40);
  app_fill(&a, 3);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 2, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "v000000000002/MANIFEST") && strstr(fl_err_msg(), "corrupt manifest"));
  CU_ASSERT(app_is(&a, 3)); /* untouched */
  CU_ASSERT_EQUAL(fl_ckpt_verify(a.ck, 2, &ok, why, sizeof why), FL_OK);
  CU_ASSERT_EQUAL(ok, 0);
  CU_ASSERT(strstr(why, "MANIFEST") != NULL);
  nwarnings = 0;
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT(app_is(&a, 1));
  CU_ASSERT_EQUAL(nwarnings, 1);
  CU_ASSERT(strstr(last_warning, "skipping checkpoint version 2 (") && strstr(last_warning, "corrupt manifest") &&
            strstr(last_warning, "moved to ") && strstr(last_warning, ".bad-v000000000002"));
  scan_dir(dir_for(store, "corrupt"), &nv, &other);
  CU_ASSERT(nv == 1 && other == 1); /* v1 and the set-aside .bad-v2, kept */
  app_fill(&a, 4);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 2), FL_OK); /* the number is free again */
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
  CU_ASSERT(r == 2 && app_is(&a, 4));
  fl_ckpt_destroy(&a.ck);
}

/* A writer stopped (SIGSTOP) while it holds the lock: a plain writer is refused, naming it by pid; a writer opened
 * with take_over (its caller holds the verdict that the holder is dead) kills it and takes the directory. */
static void t_take_over(const char *store)
{
  fl_ckpt *w = NULL;
  const char *dir;
  char pid[32];
  int ready[2], st;
  pid_t child;
  if (!on_disk(store))
    return;
  dir = dir_for(store, "takeover");
  CU_ASSERT_FATAL(pipe(ready) == 0);
  child = fork();
  CU_ASSERT_FATAL(child >= 0);
  if (child == 0) {
    fl_ckpt *mine = NULL;
    char ok = fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &mine) == FL_OK ? 'y' : 'n';
    if (write(ready[1], &ok, 1) != 1)
      _exit(1);
    raise(SIGSTOP);
    _exit(0); /* never continued */
  }
  close(ready[1]);
  {
    char ok = 'n';
    CU_ASSERT_FATAL(read(ready[0], &ok, 1) == 1 && ok == 'y');
  }
  close(ready[0]);
  CU_ASSERT_EQUAL_FATAL(waitpid(child, &st, WUNTRACED), child);
  CU_ASSERT(WIFSTOPPED(st));
  snprintf(pid, sizeof pid, "pid %ld", (long)child);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &w), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "another writer") && strstr(fl_err_msg(), pid));
  CU_ASSERT_PTR_NULL(w);
  CU_ASSERT_EQUAL(kill(child, 0), 0); /* refused, it did not touch the holder */
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir, .take_over = 1}, &w), FL_OK);
  CU_ASSERT_EQUAL(waitpid(child, &st, 0), child);
  CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  CU_ASSERT_EQUAL(fl_ckpt_write(w, 1), FL_OK);
  fl_ckpt_destroy(&w);
}

static void t_one_writer(const char *store)
{
  fl_ckpt *w1 = NULL, *w2 = NULL, *ro = NULL;
  const char *dir;
  if (!on_disk(store))
    return;
  dir = dir_for(store, "writer");
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &w1), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &w2), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "another writer") != NULL);
  CU_ASSERT_PTR_NULL(w2);
  /* take_over never kills its own process: the holder is named instead */
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir, .take_over = 1}, &w2), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "this process") != NULL);
  CU_ASSERT_PTR_NULL(w2);
  /* Readers need no lock, and cannot write. Store type comes from the directory. */
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.path = dir, .read_only = 1}, &ro), FL_OK);
  CU_ASSERT_STRING_EQUAL(fl_ckpt_store_type(ro), store);
  CU_ASSERT_EQUAL(fl_ckpt_write(ro, 1), FL_ERR_INPUT);
  fl_ckpt_destroy(&ro);
  fl_ckpt_destroy(&w1);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir}, &w2), FL_OK);
  fl_ckpt_destroy(&w2);
  /* Another store type's directory is refused, so is a foreign non-empty directory. */
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = strcmp(store, "file") ? "file" : "memory", .path = dir}, &w2),
                  strcmp(store, "file") ? FL_ERR_INPUT : FL_OK);
  fl_ckpt_destroy(&w2);
  {
    char foreign[600];
    FILE *f;
    snprintf(foreign, sizeof foreign, "%s-foreign", dir);
    CU_ASSERT_FATAL(mkdir(foreign, 0755) == 0);
    snprintf(foreign + strlen(foreign), sizeof foreign - strlen(foreign), "/notes.txt");
    f = fopen(foreign, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("mine\n", f);
    fclose(f);
    foreign[strlen(foreign) - strlen("/notes.txt")] = '\0';
    CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = foreign}, &w2), FL_ERR_INPUT);
    CU_ASSERT(strstr(fl_err_msg(), "not a faultline checkpoint directory") != NULL);
    CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.path = foreign, .read_only = 1}, &w2), FL_ERR_INPUT);
  }
}

/* A dead writer's temporary and half-retired versions are cleared by the next writer; other names are left. */
static void t_leftovers(const char *store)
{
  app a;
  char p[1024];
  const char *dir;
  int nv, other;
  FILE *f;
  if (!on_disk(store))
    return;
  dir = dir_for(store, "leftovers");
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir, 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 1), FL_OK);
  fl_ckpt_destroy(&a.ck);
  snprintf(p, sizeof p, "%s/.tmp-v000000000002", dir);
  CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
  snprintf(p, sizeof p, "%s/.tmp-v000000000002/u.bin", dir);
  f = fopen(p, "w");
  CU_ASSERT_FATAL(f != NULL);
  fputs("half", f);
  fclose(f);
  snprintf(p, sizeof p, "%s/.del-v000000000000", dir);
  CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
  snprintf(p, sizeof p, "%s/v12", dir); /* not ours: left alone, never read as a version */
  CU_ASSERT_FATAL(mkdir(p, 0755) == 0);
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir, 0), FL_OK);
  scan_dir(dir, &nv, &other);
  CU_ASSERT_EQUAL(nv, 1);
  CU_ASSERT_EQUAL(other, 1); /* v12 */
  CU_ASSERT_EQUAL(count_versions(a.ck), 1);
  app_fill(&a, 2);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 2), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, NULL), FL_OK);
  CU_ASSERT(app_is(&a, 2));
  fl_ckpt_destroy(&a.ck);
}

/* The background write fails (file size limit: write(2) gets EFBIG): commit reports it, naming the version and
 * the cause, leaves no trace, and the previous version stays intact. In a child, so the limit stays there. */
static void t_failed_write(const char *store)
{
  pid_t pid;
  int status = 0;
  if (!on_disk(store))
    return;
  fflush(NULL);
  pid = fork();
  CU_ASSERT_FATAL(pid >= 0);
  if (pid == 0) {
    static app a;
    struct rlimit rl = {2048, 2048};
    int code = 0, nv, other;
    long latest;
    signal(SIGXFSZ, SIG_IGN);
    if (app_open(&a, store, dir_for(store, "failwrite"), 0) != FL_OK)
      _exit(10);
    app_fill(&a, 1);
    if (fl_ckpt_write(a.ck, 1) != FL_OK)
      _exit(11);
    setrlimit(RLIMIT_FSIZE, &rl); /* u is 6 KiB */
    app_fill(&a, 2);
    if (fl_ckpt_write(a.ck, 2) != FL_ERR_IO)
      code |= 1;
    if (!strstr(fl_err_msg(), "checkpoint 2 not written") || !strstr(fl_err_msg(), "too large"))
      code |= 2;
    scan_dir(dir_for(store, "failwrite"), &nv, &other);
    if (nv != 1 || other != 0)
      code |= 4;
    if (fl_ckpt_latest(a.ck, &latest) != FL_OK || latest != 1)
      code |= 8;
    if (fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, NULL) != FL_OK || !app_is(&a, 1))
      code |= 16;
    if (code)
      fprintf(stderr, "t_failed_write(%s): code %d, last message: %s\n", store, code, fl_err_msg());
    fl_ckpt_destroy(&a.ck);
    _exit(code);
  }
  CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
  CU_ASSERT(WIFEXITED(status));
  CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

/* The file store's payload files: a flipped byte anywhere in one is found, and nothing is overwritten. */
static void t_corrupt_payload_all_or_nothing(const char *store)
{
  app a;
  char path[1024];
  long r;
  if (strcmp(store, "file") != 0)
    return; /* the HDF5 store's payloads: test_ckpt_hdf5.c */
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "payload"), 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 1), FL_OK);
  app_fill(&a, 2);
  CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 2), FL_OK);
  /* "state" is registered last: every array before it is read and decoded before the corruption is found. */
  snprintf(path, sizeof path, "%s/v000000000002/state.bin", dir_for(store, "payload"));
  flip_byte(path, -12);
  app_fill(&a, 3);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 2, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "v000000000002/state.bin: corrupt: checksum") != NULL);
  CU_ASSERT(app_is(&a, 3));
  CU_ASSERT_EQUAL(fl_ckpt_restore(a.ck, "u", 2), FL_OK); /* the intact ones still restore one by one */
  CU_ASSERT_EQUAL(a.u[0], 2000.0);
  nwarnings = 0;
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_OK);
  CU_ASSERT_EQUAL(r, 1);
  CU_ASSERT(app_is(&a, 1));
  CU_ASSERT(nwarnings == 1 && strstr(last_warning, "state.bin: corrupt: checksum"));
  /* A truncated file, a missing file. */
  snprintf(path, sizeof path, "%s/v000000000001/u.bin", dir_for(store, "payload"));
  CU_ASSERT_FATAL(truncate(path, 100) == 0);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 1, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "u.bin: corrupt: 100 bytes, the manifest says 6144") != NULL);
  CU_ASSERT_FATAL(unlink(path) == 0);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, 1, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "u.bin: missing") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(a.ck, FL_CKPT_LATEST, &r), FL_ERR_IO);
  CU_ASSERT(strstr(fl_err_msg(), "none of the 1 versions is intact") != NULL); /* v2 was set aside above */
  CU_ASSERT_EQUAL(count_versions(a.ck), 0);
  fl_ckpt_destroy(&a.ck);
}

/* Every single-bit flip anywhere in a MANIFEST is caught, including in its own checksum line (where a flip of
 * bit 5 turns a hex 'a' into 'A', which a lenient parser reads as the same number). Exhaustive, deterministic. */
static void t_manifest_every_bit(const char *store)
{
  app a;
  char path[1024];
  FILE *f;
  long size;
  int missed = 0;
  if (!on_disk(store))
    return;
  memset(&a, 0, sizeof a);
  CU_ASSERT_EQUAL_FATAL(app_open(&a, store, dir_for(store, "every-bit"), 0), FL_OK);
  app_fill(&a, 1);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_write(a.ck, 1), FL_OK);
  snprintf(path, sizeof path, "%s/v000000000001/MANIFEST", dir_for(store, "every-bit"));
  f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fclose(f);
  for (long byte = 0; byte < size; byte++)
    for (int bit = 0; bit < 8; bit++) {
      int ok = 1;
      f = fopen(path, "r+b");
      CU_ASSERT_FATAL(f != NULL);
      fseek(f, byte, SEEK_SET);
      {
        int c = fgetc(f);
        fseek(f, byte, SEEK_SET);
        fputc(c ^ (1 << bit), f);
        fclose(f);
        CU_ASSERT_EQUAL(fl_ckpt_verify(a.ck, 1, &ok, NULL, 0), FL_OK);
        missed += ok;
        f = fopen(path, "r+b");
        fseek(f, byte, SEEK_SET);
        fputc(c, f);
        fclose(f);
      }
    }
  CU_ASSERT_EQUAL(missed, 0);
  {
    int ok = 0;
    CU_ASSERT_EQUAL(fl_ckpt_verify(a.ck, 1, &ok, NULL, 0), FL_OK);
    CU_ASSERT(ok);
  }
  fl_ckpt_destroy(&a.ck);
}

FOR_EACH_STORE(t_corrupt_manifest_fallback)
FOR_EACH_STORE(t_manifest_every_bit)
FOR_EACH_STORE(t_one_writer)
FOR_EACH_STORE(t_take_over)
FOR_EACH_STORE(t_leftovers)
FOR_EACH_STORE(t_failed_write)
FOR_EACH_STORE(t_corrupt_payload_all_or_nothing)

/* ---- objects across type versions ---- */

typedef struct solver_state2 {
  int64_t iter;
  double residual;
  double x[3];
  int32_t restarts; /* new in version 2 */
} solver_state2;

static const fl_ckpt_field solver_state2_fields[] = {
    FL_CKPT_FIELD(solver_state2, iter),
    FL_CKPT_FIELD(solver_state2, residual),
    FL_CKPT_FIELD(solver_state2, x),
    FL_CKPT_FIELD_SINCE(solver_state2, restarts, 2),
};
static const fl_ckpt_type solver_state2_type = FL_CKPT_TYPE(solver_state2, "solver_state", 2, solver_state2_fields);

/* A checkpoint written by the program's version 1 restores into version 2 of its state type; the new field
 * keeps the value the program gave it. The other way round is refused. */
static void test_object_versions(void)
{
  const char *dir = fl_test_tmp("objects");
  fl_ckpt *ck = NULL;
  solver_state s1 = {42, 1e-3, {1, 2, 3}};
  solver_state2 s2 = {0, 0, {0, 0, 0}, 7};
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register_object(ck, "state", &solver_state_type, &s1), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_write(ck, 1), FL_OK);
  fl_ckpt_destroy(&ck);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register_object(ck, "state", &solver_state2_type, &s2), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, FL_CKPT_LATEST, NULL), FL_OK);
  CU_ASSERT(s2.iter == 42 && s2.residual == 1e-3 && s2.x[2] == 3 && s2.restarts == 7);
  s2.restarts = 8;
  CU_ASSERT_EQUAL(fl_ckpt_write(ck, 2), FL_OK);
  fl_ckpt_destroy(&ck);
  CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = dir}, &ck), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_register_object(ck, "state", &solver_state_type, &s1), FL_OK);
  CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, 2, NULL), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "version 2 is newer than this program's (version 1)") != NULL);
  CU_ASSERT_EQUAL(s1.iter, 42);
  fl_ckpt_destroy(&ck);
}

/* A struct holding arrays and nested structs, through every store. */
typedef struct stage {
  int32_t id;
  double coef[4];
} stage;
static const fl_ckpt_field stage_fields[] = {FL_CKPT_FIELD(stage, id), FL_CKPT_FIELD(stage, coef)};
static const fl_ckpt_type stage_type = FL_CKPT_TYPE(stage, "stage", 1, stage_fields);
typedef struct pipeline {
  int64_t step;
  stage stages[3];
  stage current;
} pipeline;
static const fl_ckpt_field pipeline_fields[] = {
    FL_CKPT_FIELD(pipeline, step),
    FL_CKPT_FIELD_STRUCT(pipeline, stages, &stage_type),
    FL_CKPT_FIELD_STRUCT(pipeline, current, &stage_type),
};
static const fl_ckpt_type pipeline_type = FL_CKPT_TYPE(pipeline, "pipeline", 1, pipeline_fields);

static void test_nested_object_stores(void)
{
  for (int i = 0; i < fl_ckpt_store_count(); i++) {
    const char *store = fl_ckpt_store_name(i);
    fl_ckpt *ck = NULL;
    pipeline p, q;
    memset(&p, 0, sizeof p);
    p.step = 17;
    for (int k = 0; k < 3; k++) {
      p.stages[k].id = k;
      for (int j = 0; j < 4; j++)
        p.stages[k].coef[j] = k + 0.25 * j;
    }
    p.current = p.stages[1];
    q = p;
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_create(&(fl_ckpt_opts){.store = store, .path = dir_for(store, "nested")}, &ck),
                          FL_OK);
    CU_ASSERT_EQUAL(fl_ckpt_register_object(ck, "pipe", &pipeline_type, &p), FL_OK);
    CU_ASSERT_EQUAL(fl_ckpt_write(ck, 1), FL_OK);
    memset(&p, 0, sizeof p);
    CU_ASSERT_EQUAL(fl_ckpt_restore_all(ck, FL_CKPT_LATEST, NULL), FL_OK);
    CU_ASSERT(memcmp(&p, &q, sizeof p) == 0);
    fl_ckpt_destroy(&ck);
  }
}

/* Buddy checkpoints: a version exported from one store (memory here, as in the MPI runtime) and imported into
 * another process's store restores the same data; a damaged blob is refused; versions keep growing. */
static void test_export_import(void)
{
  for (int i = 0; i < fl_ckpt_store_count(); i++) {
    const char *to = fl_ckpt_store_name(i);
    app a, b;
    fl_ckpt_buf blob = {0};
    long v = -1;
    char dir[600];
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    snprintf(dir, sizeof dir, "%s", dir_for(to, "import"));
    CU_ASSERT_EQUAL_FATAL(app_open(&a, "memory", NULL, 2), FL_OK);
    CU_ASSERT_EQUAL_FATAL(app_open(&b, to, dir, 2), FL_OK);
    for (int k = 1; k <= 3; k++) {
      app_fill(&a, k);
      CU_ASSERT_EQUAL(fl_ckpt_write(a.ck, 10 * k), FL_OK);
    }
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_export(a.ck, 30, &blob), FL_OK);
    CU_ASSERT_EQUAL(fl_ckpt_export(a.ck, 10, &blob), FL_ERR_INPUT); /* retired by keep = 2 */
    CU_ASSERT_EQUAL_FATAL(fl_ckpt_export(a.ck, 30, &blob), FL_OK);
    blob.data[blob.size / 2] ^= 1;
    CU_ASSERT_EQUAL(fl_ckpt_import(b.ck, blob.data, blob.size, &v), FL_ERR_IO);
    blob.data[blob.size / 2] ^= 1;
    CU_ASSERT_EQUAL(fl_ckpt_import(b.ck, blob.data, blob.size, &v), FL_OK);
    CU_ASSERT_EQUAL(v, 30);
    CU_ASSERT_EQUAL(fl_ckpt_import(b.ck, blob.data, blob.size, &v), FL_ERR_INPUT); /* not newer */
    app_fill(&b, 0);
    CU_ASSERT_EQUAL(fl_ckpt_restore_all(b.ck, FL_CKPT_LATEST, &v), FL_OK);
    CU_ASSERT(v == 30 && app_is(&b, 3));
    {
      int ok = 0;
      CU_ASSERT_EQUAL(fl_ckpt_verify(b.ck, 30, &ok, NULL, 0), FL_OK);
      CU_ASSERT(ok);
    }
    fl_ckpt_buf_free(&blob);
    fl_ckpt_destroy(&a.ck);
    fl_ckpt_destroy(&b.ck);
  }
}

static void test_bad_options(void)
{
  fl_ckpt *ck = NULL;
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "tape", .path = "x"}, &ck), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "unknown checkpoint store 'tape'") && strstr(fl_err_msg(), "file"));
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file"}, &ck), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "needs a directory") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = "x", .keep = -1}, &ck), FL_ERR_INPUT);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.path = fl_test_tmp("absent"), .read_only = 1}, &ck), FL_ERR_INPUT);
  CU_ASSERT(strstr(fl_err_msg(), "no such checkpoint directory") != NULL);
  CU_ASSERT_EQUAL(fl_ckpt_create(&(fl_ckpt_opts){.store = "file", .path = fl_test_tmp("no/such/parent")}, &ck),
                  FL_ERR_IO);
  CU_ASSERT_PTR_NULL(ck);
}

static CU_TestInfo conformance_tests[] = {
    {"save and restore (all, one, older, latest; reopen)", test_t_roundtrip},
    {"every codec x element type round-trips", test_t_matrix},
    {"split phase: start snapshots, commit publishes", test_t_split_phase},
    {"versions grow; retention keeps the newest K", test_t_versions_and_retention},
    {"entries must match what is registered", test_t_mismatch},
    {"guard: save or roll back", test_t_guard},
    {"per-array check: refuse to save, fall back on restore", test_t_check},
    {"region: restart skips finished iterations", test_t_region},
    {"region: a damaged newest version is resumed from the one before", test_t_region_damaged},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo disk_tests[] = {
    {"corrupt manifest: found, fallen back from", test_t_corrupt_manifest_fallback},
    {"every bit of a manifest is covered", test_t_manifest_every_bit},
    {"one writer per directory; foreign directories refused", test_t_one_writer},
    {"a stopped writer: named, or killed and taken over (take_over)", test_t_take_over},
    {"a dead writer's leftovers are cleared", test_t_leftovers},
    {"a failing background write leaves no trace", test_t_failed_write},
    {"corrupt payload: all-or-nothing restore", test_t_corrupt_payload_all_or_nothing},
    CU_TEST_INFO_NULL,
};

static CU_TestInfo misc_tests[] = {
    {"objects across type versions", test_object_versions},
    {"a struct with nested structs, every store", test_nested_object_stores},
    {"export from memory, import into every store", test_export_import},
    {"bad options", test_bad_options},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"ckpt conformance (every store)", NULL, NULL, NULL, NULL, conformance_tests},
    {"ckpt on disk", NULL, NULL, NULL, NULL, disk_tests},
    {"ckpt objects and options", NULL, NULL, NULL, NULL, misc_tests},
    CU_SUITE_INFO_NULL,
};

FL_TEST_MAIN(suites)
