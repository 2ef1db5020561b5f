/* app.c — the application registry (see app.h): the list, the lookup engines and commands use, and the checks and
 * inputs every kind shares. */
#include "app.h"

#include "fm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fl_app *const fl_app_registry[] = {
#define X(name) &fl_app_##name,
    FL_APPS(X)
#undef X
};
#define FL_NBUILTIN ((int)(sizeof fl_app_registry / sizeof fl_app_registry[0]))
/* Kinds an engine brings with it (fl_app_register: the simulator's sim/apps/), after the built-in ones. */
#define FL_MAX_EXTRA 16
static const fl_app *fl_app_extra[FL_MAX_EXTRA];
static int fl_nextra, fl_app_frozen;
#define FL_NAPPS (FL_NBUILTIN + fl_nextra)

fl_err fl_app_register(const fl_app *app)
{
  if (fl_app_find(app->name) == app)
    return FL_OK; /* (twice is once) */
  if (fl_app_frozen)
    return fl_err_set(FL_ERR_INTERNAL, "app kind %s registered after fl_registries_init", app->name);
  if (fl_app_find(app->name))
    return fl_err_set(FL_ERR_INTERNAL, "two app kinds are called %s", app->name);
  if (fl_nextra == FL_MAX_EXTRA)
    return fl_err_set(FL_ERR_INTERNAL, "app kind %s: at most %d registered kinds", app->name, FL_MAX_EXTRA);
  fl_app_extra[fl_nextra++] = app;
  return FL_OK;
}

void fl_app_freeze(void)
{
  fl_app_frozen = 1;
}

int fl_app_count(void)
{
  return FL_NAPPS;
}

const fl_app *fl_app_at(int i)
{
  if (i >= 0 && i < FL_NBUILTIN)
    return fl_app_registry[i];
  return i >= FL_NBUILTIN && i < FL_NAPPS ? fl_app_extra[i - FL_NBUILTIN] : NULL;
}

const fl_app *fl_app_find(const char *name)
{
  for (int i = 0; name && i < FL_NAPPS; i++)
    if (strcmp(fl_app_at(i)->name, name) == 0)
      return fl_app_at(i);
  return NULL;
}

const char *fl_app_names(unsigned engine, char *buf, size_t size)
{
  int n = 0, k = 0;
  buf[0] = '\0';
  for (int i = 0; i < FL_NAPPS; i++)
    n += (fl_app_at(i)->flags & engine) != 0;
  for (int i = 0; i < FL_NAPPS; i++) {
    if (!(fl_app_at(i)->flags & engine))
      continue;
    k++;
    strncat(buf, k == 1 ? "" : k == n ? " and " : ", ", size - strlen(buf) - 1);
    strncat(buf, fl_app_at(i)->name, size - strlen(buf) - 1);
  }
  return buf;
}

fl_err fl_app_get(const fl_scenario *sc, unsigned engine, const fl_app **out)
{
  const fl_app *app = fl_app_find(sc->app);
  char names[256];
  *out = NULL;
  if (!app)
    return fl_scenario_fail(sc, "app", "kind", "unknown application '%s' (known: %s)", sc->app,
                            fl_app_names(FL_APP_SIM | FL_APP_REAL, names, sizeof names));
  if (!(app->flags & engine)) {
    char other[256];
    if (engine == FL_APP_REAL)
      return fl_scenario_fail(sc, "app", "kind",
                              "real mode runs app kinds %s (%s runs in the simulator: faultline "
                              "simulate)",
                              fl_app_names(FL_APP_REAL, names, sizeof names), app->name);
    return fl_scenario_fail(sc, "app", "kind",
                            "the simulator runs app kinds %s (%s runs on MPI ranks: faultline run; "
                            "apps %s)",
                            fl_app_names(FL_APP_SIM, names, sizeof names), app->name,
                            fl_app_names(FL_APP_REAL, other, sizeof other));
  }
  *out = app;
  return FL_OK;
}

/* Is `key` a word of the space-separated `list`? */
static int fl_app_listed(const char *list, const char *key)
{
  size_t n = strlen(key);
  for (const char *p = list; p && *p; p += strcspn(p, " "), p += *p == ' ')
    if (strncmp(p, key, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
      return 1;
  return 0;
}

int fl_app_reads(const fl_app *app, const fl_scenario *sc, const char *section, const char *key)
{
  char name[96];
  if (app->options)
    for (int k = 0; k < app->options->nkeys; k++)
      if (strcmp(app->options->keys[k].section, section) == 0 && strcmp(app->options->keys[k].key, key) == 0)
        return 1;
  if (strcmp(section, "app") == 0 && fl_app_listed(app->core_keys, key))
    return 1;
  snprintf(name, sizeof name, "%s.%s", section, key);
  return app->reads && app->reads(sc, name);
}

int fl_app_is_core_key(const char *key)
{
  for (int i = 0; i < FL_NAPPS; i++)
    if (fl_app_listed(fl_app_at(i)->core_keys, key))
      return 1;
  return 0;
}

const char *fl_app_core_readers(const char *key, char *buf, size_t size)
{
  int n = 0, k = 0;
  buf[0] = '\0';
  for (int i = 0; i < FL_NAPPS; i++)
    n += fl_app_listed(fl_app_at(i)->core_keys, key);
  for (int i = 0; i < FL_NAPPS; i++) {
    if (!fl_app_listed(fl_app_at(i)->core_keys, key))
      continue;
    k++;
    strncat(buf, k == 1 ? "" : k == n ? " or " : ", ", size - strlen(buf) - 1);
    strncat(buf, fl_app_at(i)->name, size - strlen(buf) - 1);
  }
  return buf;
}

int fl_app_unread_by_choice(const fl_scenario *sc, const char *section, const char *key)
{
  if (fl_scenario_override_at(sc, section, key) >= fl_scenario_override_at(sc, "app", "kind"))
    return 0;
  fprintf(stderr,
          "faultline: warning: %s.%s is not read by app.kind = %s, chosen after it (on the command line or by a "
          "calibration): "
          "the key is ignored\n",
          section, key, sc->app);
  return 1;
}

fl_err fl_app_check_keys(const fl_scenario *sc)
{
  const fl_app *own = fl_app_find(sc->app);
  char readers[160];
  if (!own)
    return FL_OK; /* (refused elsewhere, with the kinds there are) */
  for (int a = 0; a < FL_NAPPS; a++) {
    const fl_app *app = fl_app_at(a);
    for (int k = 0; app != own && app->options && k < app->options->nkeys; k++) {
      const fl_key *key = &app->options->keys[k];
      if (fl_scenario_given(sc, key->section, key->key) && !fl_app_reads(own, sc, key->section, key->key))
        return fl_scenario_fail(sc, key->section, key->key,
                                "app.kind = %s reads this key; this scenario runs app.kind = %s", app->name, own->name);
    }
  }
  for (int k = 0; k < fl_scenario_key_count(); k++) {
    const fl_scenario_keyinfo *key = fl_scenario_key_at(k);
    if (strcmp(key->section, "app") == 0 && fl_app_is_core_key(key->key) && fl_scenario_given(sc, "app", key->key) &&
        !fl_app_reads(own, sc, "app", key->key) && !fl_app_unread_by_choice(sc, "app", key->key))
      return fl_scenario_fail(sc, "app", key->key, "app.kind = %s does not read this key (app.kind = %s does)",
                              own->name, fl_app_core_readers(key->key, readers, sizeof readers));
  }
  return FL_OK;
}

long fl_app_job_slots(const fl_scenario *sc, long copies)
{
  const fl_app *app = fl_app_find(sc->app);
  if (app && app->job_slots)
    return app->job_slots(sc, copies);
  return sc->app_nodes * (copies > 1 ? copies : 1);
}

int fl_app_has(const fl_scenario *sc, unsigned flag)
{
  const fl_app *app = fl_app_find(sc->app);
  return app && (app->flags & flag);
}

fl_err fl_app_check(const fl_scenario *sc, long copies)
{
  const fl_app *app = fl_app_find(sc->app);
  long slots = fl_app_job_slots(sc, copies);
  const char *size_key = app && app->size_key ? app->size_key : "nodes";
  if (!sc->platform_file && sc->platform_nodes > 0 && slots > sc->platform_nodes) {
    if (strcmp(size_key, "nodes") != 0)
      return fl_scenario_fail(sc, "app", size_key, "%ld tasks need as many nodes but the platform has only %ld hosts",
                              slots, sc->platform_nodes);
    if (slots != sc->app_nodes)
      return fl_scenario_fail(sc, "app", "nodes",
                              "the job needs %ld ranks x %ld copies but the platform has only %ld hosts", sc->app_nodes,
                              copies, sc->platform_nodes);
    return fl_scenario_fail(sc, "app", "nodes", "the job needs %ld ranks but the platform has only %ld hosts",
                            sc->app_nodes, sc->platform_nodes);
  }
  if (!sc->platform_file && sc->platform_nodes == 0 && slots == 0)
    return fl_scenario_fail(sc, "platform", "nodes", "give [platform] file or nodes, or [app] nodes");
  return app && app->check ? app->check(sc) : FL_OK;
}

fl_err fl_app_check_input(const fl_scenario *sc, const char *key, const char *rel, const char *what)
{
  fl_err rc = FL_OK;
  const char *why = NULL;
  char *file = fl_scenario_resolve(sc, rel);
  FL_CHECK(file != NULL, FL_ERR_NOMEM, "out of memory");
  if (!fl_input_is_regular(file, &why))
    rc = fl_scenario_fail(sc, "app", key, "%s '%s': %s", what, file, why);
done:
  free(file);
  return rc;
}

fl_err fl_app_inputs(const fl_scenario *sc, fl_input **v, int *n)
{
  const fl_app *app = fl_app_find(sc->app);
  fl_input_ref refs[FL_FM_MAX_INPUTS + FL_APP_MAX_INPUTS];
  int nrefs = fl_fm_inputs(sc, refs); /* the failure trace and its map, then the app's */
  nrefs += app && app->inputs ? app->inputs(sc, refs + nrefs) : 0;
  return fl_inputs_collect(sc, refs, nrefs, v, n);
}
