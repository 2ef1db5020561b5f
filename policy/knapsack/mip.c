/* mip.c — the seed's MIP (or its knapsack simplification) solved by GLPK, the greedy answer as incumbent and as
 * fallback.
 *
 * Full model (in->full): columns v_i (one per failed task) and z_t (one per usable, non-dominated term
 * t = (i, j, k): see fl_pol_mip_build); rows
 *   budget:    sum_t w_t z_t <= eps
 *   crossing:  sum_{t crossing} z_t <= max_cross               (only when the limit is active)
 *   one per (i, k), k in D_i:  sum_{t in (i, k)} z_t - v_i = 0  ("a single substitute for i, k, iff v_i")
 * Terms whose j is failed are not columns (the seed's z_ijk = 0, i, j in I), and a task that cannot be substituted
 * (a dependent without a usable term, more forced crossings than the limit, a cost over the budget) has v_i
 * fixed at 0. Simplified model: columns v_i, one budget row sum_i w_i v_i <= eps.
 *
 * How it is solved, following PLATFORM-NOTES.md (GLPK): the greedy runs first. The LP relaxation is warm-started
 * from a dual-feasible basis (every v_i at 1; in the full model each (i, k) row's cheapest z basic: see
 * fl_pol_mip_build) and solved by the dual simplex with the long-step ratio test, presolve off: a 10k knapsack's
 * LP in milliseconds instead of a second, a 1,000-task full model's in 3 ms instead of 0.3-0.8 s from GLPK's
 * standard or advanced bases. glp_intopt then starts from that basis and gets the greedy answer through its
 * callback at the first GLP_IHEUR. The objective counts tasks, so GLPK rounds its bounds down and stops at the
 * root whenever the greedy is optimal. A time limit (tm_lim, ms) shorter than the
 * LP gives no solution at all: the greedy answer is kept and the solver reported as "mip (greedy fallback)".
 * GLPK's answer is checked against every constraint here before it can replace the greedy's.
 *
 * Bound: the best of the greedy's relaxation bound, the LP relaxation (rounded down) and the best active node's
 * bound seen in the callback; the count itself when GLPK proves optimality. */
#include "knapsack_impl.h"

#include <glpk.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct fl_pol_mip_cb {
  const double *x; /* the greedy answer, columns 1..n */
  int given;
  double bound; /* best active node's bound when last seen; NAN if never */
} fl_pol_mip_cb;

static void fl_pol_mip_callback(glp_tree *tree, void *info)
{
  fl_pol_mip_cb *cb = info;
  int best;
  if (glp_ios_reason(tree) == GLP_IHEUR && !cb->given) {
    cb->given = 1;
    glp_ios_heur_sol(tree, cb->x);
  }
  best = glp_ios_best_node(tree);
  if (best)
    cb->bound = glp_ios_node_bound(tree, best);
}

/* Milliseconds left of the time limit: INT_MAX without one, 0 when (nearly) spent. */
static int fl_pol_ms_left(const fl_pol_ctx *ctx)
{
  double left;
  if (!(ctx->in->time_limit_s > 0))
    return INT_MAX;
  left = (ctx->in->time_limit_s - (fl_pol_now() - ctx->t0_s)) * 1e3;
  if (left >= (double)INT_MAX)
    return INT_MAX;
  return left < 1.0 ? 0 : (int)left;
}

/* Can task i take the value 1 at all? */
static int fl_pol_mip_open(const fl_pol_ctx *ctx, long i)
{
  const fl_pol_instance *in = ctx->in;
  double c = ctx->terms ? ctx->terms->cost[i] : in->weight[i];
  return isfinite(c) && fl_pol_fits(c, in->budget);
}

typedef struct fl_pol_mip_model {
  glp_prob *P;
  long ncols, nrows;
  long *term_of_col;        /* full: term of column c (at index c - 1 - nfailed) */
  unsigned char *col_basic; /* full: the z made basic by the warm start (ncols + 1) */
} fl_pol_mip_model;

/* The model, and the warm start's basis: budget and crossing rows basic, each (i, k) row's cheapest z basic
 * (z = v_i), every v_i non-basic at 1, every other z at 0. All duals are then 0 and every reduced cost is the
 * objective coefficient (1 for v at its upper bound, 0 for z): dual feasible for a maximisation, so the dual
 * simplex only has to repair the budget and crossing rows — as with the knapsack's "all at upper bound" start.
 * Only the two non-dominated terms of a group are columns: its cheapest crossing and cheapest non-crossing one;
 * in any solution, a more expensive term of the same kind can be swapped for it without breaking a constraint. */
static fl_err fl_pol_mip_build(const fl_pol_ctx *ctx, fl_pol_mip_model *mm)
{
  fl_err rc = FL_OK;
  const fl_pol_instance *in = ctx->in;
  const fl_pol_terms *t = ctx->terms;
  long n = in->nfailed, nz = 0, ngr = 0, ne = 0;
  int *ia = NULL, *ja = NULL;
  double *ar = NULL;

  if (t)
    for (long i = 0; i < n; i++)
      if (fl_pol_mip_open(ctx, i))
        for (long g = t->group_start[i]; g < t->group_start[i + 1]; g++) {
          ngr++;
          nz += (t->group_nc[g] >= 0) + (t->group_cr[g] >= 0);
        }
  mm->ncols = n + nz;
  mm->nrows = 1 + (t && t->cross_active) + ngr;
  FL_CHECK(mm->ncols < INT_MAX / 4 && mm->nrows < INT_MAX / 4, FL_ERR_INPUT,
           "policy 'mip': %ld columns and %ld rows are too many for GLPK", mm->ncols, mm->nrows);
  FL_ALLOC(ia, 3 * nz + ngr + n + 1);
  FL_ALLOC(ja, 3 * nz + ngr + n + 1);
  FL_ALLOC(ar, 3 * nz + ngr + n + 1);
  if (t) {
    FL_ALLOC(mm->term_of_col, nz);
    FL_ALLOC(mm->col_basic, mm->ncols + 1);
  }

  mm->P = glp_create_prob();
  glp_set_obj_dir(mm->P, GLP_MAX);
  glp_add_cols(mm->P, (int)mm->ncols);
  glp_add_rows(mm->P, (int)mm->nrows);
  for (long i = 0; i < n; i++) {
    int c = (int)(i + 1);
    glp_set_col_kind(mm->P, c, GLP_BV);
    glp_set_obj_coef(mm->P, c, 1.0);
    if (!fl_pol_mip_open(ctx, i))
      glp_set_col_bnds(mm->P, c, GLP_FX, 0.0, 0.0);
    else if (!t && in->weight[i] > 0) {
      ne++;
      ia[ne] = 1, ja[ne] = c, ar[ne] = in->weight[i];
    }
  }
  /* The budget row carries the tolerance every solver uses (knapsack.h). */
  if (isinf(in->budget))
    glp_set_row_bnds(mm->P, 1, GLP_FR, 0.0, 0.0);
  else
    glp_set_row_bnds(mm->P, 1, GLP_UP, 0.0, in->budget + FL_POL_REL_TOL * fmax(1.0, in->budget));
  if (t) {
    long c = n, row = 1 + t->cross_active;
    if (t->cross_active)
      glp_set_row_bnds(mm->P, 2, GLP_UP, 0.0, (double)t->max_cross);
    for (long i = 0; i < n; i++) {
      if (!fl_pol_mip_open(ctx, i))
        continue;
      for (long g = t->group_start[i]; g < t->group_start[i + 1]; g++) {
        long side[2] = {t->group_nc[g], t->group_cr[g]};
        int cheaper = side[0] < 0 || (side[1] >= 0 && in->full->term_w[side[1]] < in->full->term_w[side[0]]);
        row++;
        glp_set_row_bnds(mm->P, (int)row, GLP_FX, 0.0, 0.0);
        ne++;
        ia[ne] = (int)row, ja[ne] = (int)(i + 1), ar[ne] = -1.0;
        for (int k = 0; k < 2; k++) {
          long q = side[k];
          if (q < 0)
            continue;
          c++;
          mm->term_of_col[c - 1 - n] = q;
          mm->col_basic[c] = k == cheaper;
          glp_set_col_kind(mm->P, (int)c, GLP_BV);
          ne++;
          ia[ne] = (int)row, ja[ne] = (int)c, ar[ne] = 1.0;
          if (in->full->term_w[q] > 0) {
            ne++;
            ia[ne] = 1, ja[ne] = (int)c, ar[ne] = in->full->term_w[q];
          }
          if (t->cross_active && k == 1) {
            ne++;
            ia[ne] = 2, ja[ne] = (int)c, ar[ne] = 1.0;
          }
        }
      }
    }
  }
  glp_load_matrix(mm->P, (int)ne, ia, ja, ar);

  /* the warm start (see above) */
  for (long r = 1; r <= mm->nrows; r++)
    glp_set_row_stat(mm->P, (int)r, r <= 1 + (t && t->cross_active) ? GLP_BS : GLP_NS);
  for (long c = 1; c <= mm->ncols; c++) {
    if (c <= n)
      glp_set_col_stat(mm->P, (int)c, fl_pol_mip_open(ctx, c - 1) ? GLP_NU : GLP_NS);
    else
      glp_set_col_stat(mm->P, (int)c, mm->col_basic[c] ? GLP_BS : GLP_NL);
  }
done:
  free(ia);
  free(ja);
  free(ar);
  return rc;
}

/* Read GLPK's integer solution into `out` if it satisfies every constraint; 0 if it does not. */
static int fl_pol_mip_read(const fl_pol_ctx *ctx, const fl_pol_mip_model *mm, fl_pol_decision *out)
{
  const fl_pol_instance *in = ctx->in;
  const fl_pol_terms *t = ctx->terms;
  long n = in->nfailed, count = 0, ncross = 0;
  double err = 0.0;

  for (long i = 0; i < n; i++) {
    int v = glp_mip_col_val(mm->P, (int)(i + 1)) > 0.5;
    if (v && !fl_pol_mip_open(ctx, i))
      return 0;
    count += v;
    if (v && !t)
      err += in->weight[i];
  }
  if (t) {
    /* one substitute per (i, k) iff v_i: count the chosen z of each group */
    long *per_group = calloc((size_t)(t->ngroups ? t->ngroups : 1), sizeof *per_group);
    int ok = per_group != NULL;
    for (long k = 0; ok && k < mm->ncols - n; k++) {
      long q = mm->term_of_col[k];
      if (glp_mip_col_val(mm->P, (int)(n + 1 + k)) > 0.5) {
        per_group[t->term_group[q]]++;
        err += in->full->term_w[q];
        ncross += in->full->crosses && in->full->crosses[q];
      }
    }
    for (long i = 0; ok && i < n; i++) {
      int v = glp_mip_col_val(mm->P, (int)(i + 1)) > 0.5;
      for (long g = t->group_start[i]; ok && g < t->group_start[i + 1]; g++)
        ok = per_group[g] == v;
    }
    free(per_group);
    if (!ok || (t->cross_active && ncross > t->max_cross))
      return 0;
  }
  if (!fl_pol_fits(err, in->budget))
    return 0;
  memset(out->substitute, 0, (size_t)n);
  for (long i = 0; i < n; i++)
    out->substitute[i] = glp_mip_col_val(mm->P, (int)(i + 1)) > 0.5;
  if (t && out->substitute_by) {
    memset(out->substitute_by, 0, (size_t)t->nterms * sizeof *out->substitute_by);
    for (long k = 0; k < mm->ncols - n; k++)
      out->substitute_by[mm->term_of_col[k]] = glp_mip_col_val(mm->P, (int)(n + 1 + k)) > 0.5;
  }
  out->nsubstituted = count;
  out->error = err;
  return 1;
}

static fl_err fl_pol_mip_solve(const fl_pol_ctx *ctx, fl_pol_decision *out)
{
  fl_err rc = FL_OK;
  const fl_pol_instance *in = ctx->in;
  long n = in->nfailed;
  fl_pol_mip_model mm = {0};
  fl_pol_mip_cb cb = {.bound = NAN};
  fl_pol_decision mine = {0};
  unsigned char *sub_save = NULL;
  double *x = NULL;
  double bound;
  long greedy_count;
  int term_was = glp_term_out(GLP_OFF), ms, ret, status, proven = 0, glpk_won = 0, glpk_done = 0;

  /* 1. The greedy: the incumbent, the fallback, and a first bound. */
  FL_TRY(fl_pol_greedy_ops.solve(ctx, out));
  greedy_count = out->nsubstituted;
  bound = out->bound;
  out->solver = "mip (greedy fallback)";

  /* 2. The model, and the greedy answer as a GLPK point. */
  FL_TRY(fl_pol_mip_build(ctx, &mm));
  FL_ALLOC(x, mm.ncols + 1);
  for (long i = 0; i < n; i++)
    x[i + 1] = out->substitute[i];
  if (ctx->terms && out->substitute_by)
    for (long k = 0; k < mm.ncols - n; k++)
      x[n + 1 + k] = (double)out->substitute_by[mm.term_of_col[k]];
  else if (ctx->terms) {
    /* the caller wants no z: rebuild the greedy's z for GLPK from a private decision */
    FL_ALLOC(mine.substitute_by, ctx->terms->nterms);
    FL_ALLOC(sub_save, n);
    mine.substitute = sub_save;
    FL_TRY(fl_pol_greedy_ops.solve(ctx, &mine));
    for (long k = 0; k < mm.ncols - n; k++)
      x[n + 1 + k] = (double)mine.substitute_by[mm.term_of_col[k]];
  }

  /* 3. LP relaxation from a dual-feasible warm start. */
  ms = fl_pol_ms_left(ctx);
  if (ms == 0)
    goto decide;
  {
    glp_smcp smcp;
    glp_init_smcp(&smcp);
    smcp.msg_lev = GLP_MSG_OFF;
    smcp.meth = GLP_DUAL;
    smcp.r_test = GLP_RT_FLIP;
    smcp.presolve = GLP_OFF;
    smcp.tm_lim = ms;
    ret = glp_simplex(mm.P, &smcp);
    if (ret != 0 || glp_get_status(mm.P) != GLP_OPT)
      goto decide;
    bound = fmin(bound, floor(glp_get_obj_val(mm.P) + 1e-6));
  }

  /* 4. Branch and bound from that basis, the greedy answer offered at the first heuristic call. */
  ms = fl_pol_ms_left(ctx);
  if (ms == 0)
    goto decide;
  {
    glp_iocp iocp;
    glp_init_iocp(&iocp);
    iocp.msg_lev = GLP_MSG_OFF;
    iocp.presolve = GLP_OFF;
    iocp.tm_lim = ms;
    iocp.mip_gap = in->mip_gap > 0 ? in->mip_gap : 0.0;
    iocp.cb_func = fl_pol_mip_callback;
    iocp.cb_info = &cb;
    cb.x = x;
    ret = glp_intopt(mm.P, &iocp);
    status = glp_mip_status(mm.P);
    proven = ret == 0 && status == GLP_OPT;
    glpk_done = ret == 0 || ret == GLP_EMIPGAP; /* finished on its own terms, not on time or failure */
    if (!isnan(cb.bound))
      bound = fmin(bound, floor(cb.bound + 1e-6));
    if (status == GLP_OPT || status == GLP_FEAS) {
      double v = glp_mip_obj_val(mm.P);
      if (v > (double)greedy_count + 0.5 || ((proven || glpk_done) && v > (double)greedy_count - 0.5))
        glpk_won = fl_pol_mip_read(ctx, &mm, out);
    }
  }

decide:
  if (glpk_won) {
    out->solver = "mip";
    if (proven)
      bound = (double)out->nsubstituted;
  }
  out->bound = fmax(bound, (double)out->nsubstituted);
  out->gap = (out->bound - (double)out->nsubstituted) / fmax(1.0, out->bound);
done:
  glp_term_out(term_was);
  if (mm.P)
    glp_delete_prob(mm.P);
  free(mm.term_of_col);
  free(mm.col_basic);
  free(x);
  free(sub_save);
  free(mine.substitute_by);
  return rc;
}

const fl_pol_ops fl_pol_mip_ops = {
    .name = "mip",
    .solve = fl_pol_mip_solve,
};
