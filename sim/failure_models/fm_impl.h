/* fm_impl.h — what a failure model implements (private to sim/failure_models). Adding a model: one file with
 * a `const fl_fm_ops`, one line in FL_FM_LIST (fm.c). */
#ifndef FL_FM_IMPL_H
#define FL_FM_IMPL_H

#include "fm.h"

typedef struct fl_fm_ops {
  const char *name;
  /* Read parameters from the scenario; raise FL_ERR_INPUT through fl_scenario_fail. */
  fl_err (*setup)(fl_fm *fm, const fl_scenario *sc);
  double (*draw)(const fl_fm *fm, gsl_rng *r); /* NULL: not a renewal model */
  double (*draw_residual)(const fl_fm *fm, gsl_rng *r);
  double (*mean)(const fl_fm *fm);
  double (*variance)(const fl_fm *fm);
  double (*cumhazard)(const fl_fm *fm, double age_s); /* -log S(age); NULL: not a renewal model */
  /* Laws drawn by inversion from one uniform (exponential, Weibull): draw = time(uniform(r)), the uniform drawn
   * as GSL draws it, so that the time can be computed later from the stored uniform, bit for bit the same
   * (fl_fsrc's lazy first failures). NULL: not so drawn. `decreasing`: the time falls as the uniform grows. */
  double (*uniform)(gsl_rng *r);
  double (*time_of)(const fl_fm *fm, double u);
  int decreasing;
  const fl_fm_fit *fit;     /* how `faultline fit` fits it (fm.h); NULL: it cannot */
  const fl_keyset *options; /* the keys it declares (core/keys.h); NULL: none of its own */
  /* The input files its keys name, fingerprinted into rows (at most FL_FM_MAX_INPUTS): fills refs, returns how
   * many. NULL: none. Asked of every model, chosen or not (a model's check refuses its keys given to another). */
  int (*inputs)(const fl_scenario *sc, fl_input_ref *refs);
  unsigned traits; /* FL_FM_REPLAYS, FL_FM_MEMORYLESS, FL_FM_NEVER (fm.h) */
} fl_fm_ops;

struct fl_fm {
  const fl_fm_ops *ops;
  double mean_s; /* node MTBF */
  double shape;  /* Weibull k */
  double scale;  /* Weibull lambda, seconds */
  double zeta;   /* log-normal location */
  double sigma;  /* log-normal scale */
  fl_fm_trace_rec *trace;
  size_t ntrace;
  char *trace_file;  /* trace: the log's path, resolved against the scenario */
  int trace_by_work; /* trace: a record's time is the job's work done (failures.trace_clock = work) */
};

/* the models are named by the registry (fm.c) */

#endif
