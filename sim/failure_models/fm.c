/* fm.c — the failure-model registry and dispatch (see fm.h). */
#include "fm_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The registry, in the order the docs list it: one line per model, whose file defines fl_fm_NAME_ops (CMake
 * compiles every .c of this folder). */
#define FL_FM_LIST                                                                                                     \
  X(none)                                                                                                              \
  X(exponential)                                                                                                       \
  X(weibull)                                                                                                           \
  X(lognormal)                                                                                                         \
  X(gamma)                                                                                                             \
  X(trace)                                                                                                             \
  /* one line per entry, above this one */

#define X(name) extern const fl_fm_ops fl_fm_##name##_ops;
FL_FM_LIST
#undef X
static const fl_fm_ops *const fl_fm_registry[] = {
#define X(name) &fl_fm_##name##_ops,
    FL_FM_LIST
#undef X
};
#define FL_FM_NREG ((int)(sizeof fl_fm_registry / sizeof fl_fm_registry[0]))

const fl_keyset *fl_fm_registry_options(int i)
{
  return (i >= 0 && i < FL_FM_NREG) ? fl_fm_registry[i]->options : NULL;
}

int fl_fm_inputs(const fl_scenario *sc, fl_input_ref *refs)
{
  int n = 0;
  for (int i = 0; i < FL_FM_NREG; i++)
    if (fl_fm_registry[i]->inputs)
      n += fl_fm_registry[i]->inputs(sc, refs + n);
  return n;
}

const char *fl_fm_trace_file(const fl_fm *fm)
{
  return fm->trace_file;
}

int fl_fm_trace_by_work(const fl_fm *fm)
{
  return fm->trace_by_work;
}

int fl_fm_registry_count(void)
{
  return FL_FM_NREG;
}
const char *fl_fm_registry_name(int i)
{
  return (i >= 0 && i < FL_FM_NREG) ? fl_fm_registry[i]->name : NULL;
}

const fl_fm_fit *fl_fm_registry_fit(int i)
{
  return (i >= 0 && i < FL_FM_NREG) ? fl_fm_registry[i]->fit : NULL;
}

fl_err fl_fm_create(const fl_scenario *sc, fl_fm **out)
{
  fl_err rc = FL_OK;
  fl_fm *fm = NULL;
  const fl_fm_ops *ops = NULL;
  char known[256] = "";

  *out = NULL;
  for (int i = 0; i < FL_FM_NREG; i++) {
    if (strcmp(fl_fm_registry[i]->name, sc->model) == 0)
      ops = fl_fm_registry[i];
    strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, fl_fm_registry[i]->name, sizeof known - strlen(known) - 1);
  }
  if (!ops)
    return fl_scenario_fail(sc, "failures", "model", "unknown failure model '%s' (known: %s)", sc->model, known);
  FL_ALLOC(fm, 1);
  fm->ops = ops;
  fm->mean_s = sc->node_mtbf_s;
  FL_TRY(ops->setup(fm, sc));
  *out = fm;
  fm = NULL;
done:
  fl_fm_destroy(&fm);
  return rc;
}

void fl_fm_destroy(fl_fm **pfm)
{
  fl_fm *fm = pfm ? *pfm : NULL;
  if (!fm)
    return;
  for (size_t i = 0; i < fm->ntrace; i++)
    free(fm->trace[i].host);
  free(fm->trace);
  free(fm->trace_file);
  free(fm);
  *pfm = NULL;
}

const char *fl_fm_name(const fl_fm *fm)
{
  return fm->ops->name;
}
int fl_fm_is_renewal(const fl_fm *fm)
{
  return fm->ops->draw != NULL;
}
int fl_fm_has(const fl_fm *fm, unsigned trait)
{
  return (fm->ops->traits & trait) != 0;
}
int fl_fm_named_has(const char *name, unsigned trait)
{
  for (int i = 0; name && i < FL_FM_NREG; i++)
    if (strcmp(fl_fm_registry[i]->name, name) == 0)
      return (fl_fm_registry[i]->traits & trait) != 0;
  return 0;
}
double fl_fm_draw(const fl_fm *fm, gsl_rng *r)
{
  return fm->ops->draw(fm, r);
}
int fl_fm_by_inversion(const fl_fm *fm, int residual)
{
  return fm->ops->uniform && fm->ops->time_of && (!residual || fm->ops->draw_residual == fm->ops->draw);
}
double fl_fm_uniform(const fl_fm *fm, gsl_rng *r)
{
  return fm->ops->uniform(r);
}
double fl_fm_time_of(const fl_fm *fm, double u)
{
  return fm->ops->time_of(fm, u);
}
int fl_fm_decreasing(const fl_fm *fm)
{
  return fm->ops->decreasing;
}
double fl_fm_draw_residual(const fl_fm *fm, gsl_rng *r)
{
  return fm->ops->draw_residual(fm, r);
}
double fl_fm_mean(const fl_fm *fm)
{
  return fm->ops->mean(fm);
}
double fl_fm_variance(const fl_fm *fm)
{
  return fm->ops->variance(fm);
}
double fl_fm_cumhazard(const fl_fm *fm, double age_s)
{
  return fm->ops->cumhazard ? fm->ops->cumhazard(fm, age_s) : NAN;
}
size_t fl_fm_trace_count(const fl_fm *fm)
{
  return fm->ntrace;
}
const fl_fm_trace_rec *fl_fm_trace_at(const fl_fm *fm, size_t i)
{
  return i < fm->ntrace ? &fm->trace[i] : NULL;
}
