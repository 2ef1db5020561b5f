/* lossy.c — the lossy-CG study's section of `faultline report` (seed 001's table: iterations per codec and
 * recovery, then the failure-free figures), owned by the lossy-cg app's study and registered in FL_REPORT_SECTIONS
 * (report_impl.h). */
#include "report_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One number from a query with the lossy table's bindings: ?1 scenario, ?2 codec, ?3 mode, ?4 lost_at (-1: all),
 * ?5/?6 the id range. NAN when no row. */
static double fl_lossy_value(sqlite3 *db, const char *sql, const char *scenario, const char *codec, const char *mode,
                             long lost_at, const fl_report_opts *opt)
{
  sqlite3_stmt *st = NULL;
  double v = NAN;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    return NAN;
  sqlite3_bind_text(st, 1, scenario, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, codec, -1, SQLITE_STATIC);
  if (mode)
    sqlite3_bind_text(st, 3, mode, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, 3);
  sqlite3_bind_int64(st, 4, lost_at);
  sqlite3_bind_int64(st, 5, opt->min_id);
  sqlite3_bind_int64(st, 6, opt->max_id);
  if (sqlite3_step(st) == SQLITE_ROW)
    v = fl_report_col(st, 0);
  sqlite3_finalize(st);
  return v;
}

#define FL_LOSSY_COLS 16
#define FL_LOSSY_FAULTS 16

/* The lossy-CG study (seed 001's table): per codec, total CG iterations for global / local / improved recovery and
 * the auxiliary-solve iterations, averaged over the lost roles, overall and per loss iteration; then the
 * failure-free figures: iterations, compression ratio of x, checkpoint bytes, wall time against no checkpoint. */
static fl_err fl_report_lossy(sqlite3 *db, const fl_report_opts *opt, FILE *out, int *rows_out)
{
  static const char *const modes[] = {"global", "local", "improved"};
  const char *where = " WHERE scenario = ?1 AND codec = ?2 AND (?5 = 0 OR id IN temp.fl_report_ids)";
  char q_iter[512], q_aux[512], q_ff[512], sql[256];
  sqlite3_stmt *sc = NULL;
  *rows_out = 0;
  if (!fl_report_has_column(db, "codec"))
    return FL_OK;
  snprintf(q_iter, sizeof q_iter,
           "SELECT AVG(iterations) FROM runs%s AND recovery_mode = ?3 AND lost_role IS NOT NULL"
           " AND (?4 < 0 OR lost_at = ?4)",
           where);
  snprintf(q_aux, sizeof q_aux,
           "SELECT AVG(aux_iterations) FROM runs%s AND recovery_mode = 'improved' AND ?3 IS NULL"
           " AND lost_role IS NOT NULL AND (?4 < 0 OR lost_at = ?4)",
           where);
  snprintf(sql, sizeof sql,
           "SELECT DISTINCT scenario FROM runs WHERE codec IS NOT NULL AND (?1 IS NULL OR "
           "scenario = ?1) ORDER BY scenario");
  if (sqlite3_prepare_v2(db, sql, -1, &sc, NULL) != SQLITE_OK)
    return fl_err_set(FL_ERR_DB, "%s: report query: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
  if (opt->scenario)
    sqlite3_bind_text(sc, 1, opt->scenario, -1, SQLITE_STATIC);
  while (sqlite3_step(sc) == SQLITE_ROW) {
    char scen[256], codecs[FL_LOSSY_COLS][64];
    long faults[FL_LOSSY_FAULTS];
    int ncod = 0, nf = 0;
    sqlite3_stmt *st = NULL;
    snprintf(scen, sizeof scen, "%s", fl_report_text(sc, 0));
    if (sqlite3_prepare_v2(db,
                           "SELECT codec FROM runs WHERE scenario = ?1 AND codec IS NOT NULL AND codec <> 'off'"
                           " AND (?2 = 0 OR id IN temp.fl_report_ids) GROUP BY codec ORDER BY MIN(id)",
                           -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, scen, -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 2, opt->min_id);
      sqlite3_bind_int64(st, 3, opt->max_id);
      while (sqlite3_step(st) == SQLITE_ROW && ncod < FL_LOSSY_COLS)
        snprintf(codecs[ncod++], sizeof codecs[0], "%s", fl_report_text(st, 0));
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(db,
                           "SELECT DISTINCT lost_at FROM runs WHERE scenario = ?1 AND codec IS NOT NULL AND lost_at IS "
                           "NOT NULL AND (?2 = 0 OR id IN temp.fl_report_ids) ORDER BY lost_at",
                           -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, scen, -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, 2, opt->min_id);
      sqlite3_bind_int64(st, 3, opt->max_id);
      while (sqlite3_step(st) == SQLITE_ROW && nf < FL_LOSSY_FAULTS)
        faults[nf++] = (long)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (ncod == 0)
      continue;
    (*rows_out)++;
    fprintf(out,
            "lossy CG: %s (total CG iterations executed, mean over the lost roles; aux: auxiliary-solve "
            "iterations of improved)\n",
            scen);
    fprintf(out, "%-24s", "");
    for (int c = 0; c < ncod; c++) {
      char head[64];
      /* zfp-adaptive:TOL is the seed's aSZ_TOL; abbreviated to fit a column */
      if (strncmp(codecs[c], "zfp-adaptive:", 13) == 0)
        snprintf(head, sizeof head, "azfp:%.50s", codecs[c] + 13);
      else if (strncmp(codecs[c], "multigrid:", 10) == 0)
        snprintf(head, sizeof head, "mg:%.50s", codecs[c] + 10);
      else
        snprintf(head, sizeof head, "%.60s", codecs[c]);
      fprintf(out, " %12.12s", head);
    }
    fputc('\n', out);
    for (int f = -1; f < nf; f++) {
      if (f < 0 && nf == 0)
        continue;
      if (f < 0)
        fprintf(out, "Average\n");
      else
        fprintf(out, "Loss after iteration %ld\n", faults[f]);
      for (int m = 0; m < 4; m++) {
        fprintf(out, "  %-22s", m < 3 ? modes[m] : "aux iterations");
        for (int c = 0; c < ncod; c++) {
          double v = fl_lossy_value(db, m < 3 ? q_iter : q_aux, scen, codecs[c], m < 3 ? modes[m] : NULL,
                                    f < 0 ? -1 : faults[f], opt);
          if (isnan(v))
            fprintf(out, " %12s", "-");
          else
            fprintf(out, " %12.2f", v);
        }
        fputc('\n', out);
      }
    }
    fprintf(out, "Failure-free\n");
    {
      static const char *const what[] = {"iterations", "compression ratio x", "checkpoint bytes", "raw bytes",
                                         "wall s",     "overhead vs no ckpt"};
      const char *cols[] = {"iterations",           "compression_ratio", "checkpoint_bytes",
                            "raw_checkpoint_bytes", "makespan_s",        "makespan_s"};
      double base;
      snprintf(q_ff, sizeof q_ff,
               "SELECT MIN(makespan_s) FROM runs WHERE scenario = ?1 AND codec = ?2"
               " AND recovery_mode IS NULL AND (?5 = 0 OR id IN temp.fl_report_ids) AND ?3 IS NULL"
               " AND ?4 < 0");
      base = fl_lossy_value(db, q_ff, scen, "off", NULL, -1, opt);
      for (int w = 0; w < 6; w++) {
        fprintf(out, "  %-22s", what[w]);
        snprintf(q_ff, sizeof q_ff,
                 "SELECT %s(%s) FROM runs WHERE scenario = ?1 AND codec = ?2"
                 " AND recovery_mode IS NULL AND (?5 = 0 OR id IN temp.fl_report_ids) AND ?3 IS NULL"
                 " AND ?4 < 0",
                 w >= 4 ? "MIN" : "AVG", cols[w]);
        for (int c = 0; c < ncod; c++) {
          double v = fl_lossy_value(db, q_ff, scen, codecs[c], NULL, -1, opt);
          if (w == 5)
            v = isnan(v) || !(base > 0) ? NAN : 100.0 * (v / base - 1.0);
          if (isnan(v))
            fprintf(out, " %12s", "-");
          else if (w == 2 || w == 3)
            fprintf(out, " %12.4g", v);
          else if (w == 4)
            fprintf(out, " %12.4f", v);
          else if (w == 5)
            fprintf(out, " %11.1f%%", v);
          else
            fprintf(out, " %12.2f", v);
        }
        fputc('\n', out);
      }
      if (!isnan(base))
        fprintf(out, "  (no checkpoint: %.4f s)\n", base);
    }
    fputc('\n', out);
  }
  sqlite3_finalize(sc);
  return FL_OK;
}

const fl_report_section fl_report_section_lossy = {"lossy-cg", fl_report_lossy};
