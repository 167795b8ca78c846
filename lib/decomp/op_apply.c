/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Applying the operator-form results (include/lth/opdecomp.h) to vectors and
 * thin matrices: sparse blocks plus thin factors, never an s x s matrix.
 * Columns go in chunks of the point's max_cols through its scratch. */
#include "lth/opdecomp.h"

#include "op_impl.h"
#include "op_sparsepi.h"

static int imin(int a, int b) { return a < b ? a : b; }

static void lower(lth_jet *J, int order) {
  if (order < J->order) {
    J->order = order;
  }
}

/* Scratch block b (n_r x k) of the point. */
static lth_jet scratch(const lth_oppoint *pt, int b, int k) {
  return lth_jet_view(pt->work, 0, b * pt->max_cols, pt->sys->nr, k);
}

/* Rows of block i (1-based) of a jet over z (s rows) or v (m rows). */
static lth_jet rows_of(const lth_jet *J, const lth_opsys *sys, int i) {
  return lth_jet_view(J, sys->off[i - 1], 0, sys->n[i - 1], J->cols);
}

/* x's rows at the columns C_i, D_i hold (lib/decomp/op_columns.c), the
 * affine one left out: x itself when they hold every column, else gathered
 * into the point's xg. */
static lth_jet x_rows(const lth_oppoint *pt, const lth_jet *x) {
  if (!pt->compact) {
    return *x;
  }
  int nu = pt->Wc - 1;
  lth_jet X = lth_jet_view(pt->xg, 0, 0, nu, x->cols);
  for (int k = 0; k <= x->order; k++) {
    for (int c = 0; c < x->cols; c++) {
      const double *f = LTH_JET_COEF(x, k) + (size_t)c * x->ld;
      double *g = LTH_JET_COEF(&X, k) + (size_t)c * X.ld;
      for (int a = 0; a < nu; a++) g[a] = f[pt->ucol[a]];
    }
  }
  X.order = x->order;
  return X;
}

/* c = C_i(:, linear columns) x, only over the columns where C_i can be
 * nonzero: blocks i+1.. (C_0: all); D_i from block i.  xu: x_rows. */
static lth_status thin_times(const lth_jet *Cfac, int c0, const lth_jet *xu, lth_jet *c,
                             lth_error *err) {
  int nu = xu->rows;
  lth_jet Cv = lth_jet_view(Cfac, 0, c0, Cfac->rows, nu - c0);
  lth_jet xv = lth_jet_view(xu, c0, 0, nu - c0, xu->cols);
  return lth_jet_mul(&Cv, &xv, c, err);
}

/* First column of C_i's part in thin_times: block i+1's (C_0: 0). */
static int c_start(const lth_oppoint *pt, int i) { return i == 0 ? 0 : pt->cb[i + 1]; }

typedef lth_status (*chunk_fn)(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);

/* Check sizes, cap the order, and run f on column chunks. */
static lth_status by_chunks(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, int xrows,
                            int yrows, int order, chunk_fn f, const char *what, lth_error *err) {
  if (x->rows != xrows || y->rows != yrows || x->cols != y->cols) {
    return lth_error_set(err, LTH_EDIM, "%s: x is %d x %d and y %d x %d, expected %d and %d rows",
                         what, x->rows, x->cols, y->rows, y->cols, xrows, yrows);
  }
  if (x->c == y->c) {
    return lth_error_set(err, LTH_EINVAL, "%s: x and y must not overlap", what);
  }
  if (x->order < 0) {
    return lth_error_set(err, LTH_EORDER, "%s: x has no coefficients", what);
  }
  if (!(pt->info.t == pt->info.t)) {
    return lth_error_set(err, LTH_EINVAL, "%s: the point holds no decomposition", what);
  }
  int o = imin(imin(x->order, order), y->maxorder);
  lth_jet_set_zero(y, o);
  lth_status st = LTH_OK;
  for (int c0 = 0; c0 < x->cols && st == LTH_OK; c0 += pt->max_cols) {
    int k = imin(pt->max_cols, x->cols - c0);
    lth_jet xc = lth_jet_view(x, 0, c0, x->rows, k), yc = lth_jet_view(y, 0, c0, y->rows, k);
    xc.order = o;
    st = f(pt, &xc, &yc, err);
    lower(y, yc.order);
  }
  return st;
}

/* ---- P and I - P: P_i x_i = L_i (S_i x_i) ----
 * S_i at its columns act(S_i), L_i and F_ij at their rows (op_impl.h): the
 * products gather x's rows there and scatter into y's. */

static lth_status P_chunk(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, int minus,
                          lth_error *err) {
  const lth_opsys *sys = pt->sys;
  lth_status st = LTH_OK;
  lth_jet c = scratch(pt, 0, x->cols);
  for (int i = 1; i < sys->r && st == LTH_OK; i++) {
    lth_jet xi = rows_of(x, sys, i), yi = rows_of(y, sys, i);
    lth_jet_set_zero(&c, c.maxorder);
    op_gather_mul(1.0, &pt->S[i - 1], op_idx(&pt->sa[i - 1]), NULL, &xi, &c);
    if (minus) st = lth_jet_copy(&yi, &xi, err); /* else y is zero (by_chunks) */
    op_scatter_mul(minus ? -1.0 : 1.0, &pt->L[i - 1], op_idx(&pt->lr[i - 1]), &c, &yi);
    lower(y, yi.order);
  }
  return st;
}
static lth_status P_plus(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  return P_chunk(pt, x, y, 0, err);
}
static lth_status P_minus(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  return P_chunk(pt, x, y, 1, err);
}

lth_status lth_oppoint_apply_P(const lth_oppoint *pt, int minus, const lth_jet *x, lth_jet *y,
                               lth_error *err) {
  int m = pt->sys->m;
  chunk_fn f = pt->sp ? (minus ? op_sparsepi_IP : op_sparsepi_P) : (minus ? P_minus : P_plus);
  return by_chunks(pt, x, y, m, m, pt->info.order, f, minus ? "(I - P) x" : "P x", err);
}

/* ---- Ahat: Y_i x = sum_{k>=i-1} A_ik x_k + sum_{j>=i} F_ij (C_j x) + L_i (D_i x) ---- */

static lth_status Ahat_chunk(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  const lth_opsys *sys = pt->sys;
  int r = sys->r, k = x->cols;
  lth_status st = LTH_OK;
  lth_jet xu = x_rows(pt, x);
  for (int j = 1; j < r && st == LTH_OK; j++) {
    lth_jet cj = scratch(pt, j, k), dj = scratch(pt, r + j, k);
    st = thin_times(&pt->C[j], c_start(pt, j), &xu, &cj, err);
    if (st == LTH_OK) st = thin_times(&pt->D[j - 1], pt->cb[j], &xu, &dj, err);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    lth_jet yi = rows_of(y, sys, i);
    for (int kk = i > 1 ? i - 1 : 1; kk < r; kk++) {
      lth_jet xk = rows_of(x, sys, kk);
      op_csc_left(1.0, op_A(pt, i, kk), &xk, &yi);
    }
    for (int j = i; j < r && st == LTH_OK; j++) {
      const lth_jet *F = &pt->F[(i - 1) + r * (j - 1)];
      lth_jet cj = scratch(pt, j, k);
      if (F->c) op_scatter_mul(1.0, F, op_idx(&pt->fr[(i - 1) + r * (j - 1)]), &cj, &yi);
    }
    lth_jet di = scratch(pt, r + i, k);
    op_scatter_mul(1.0, &pt->L[i - 1], op_idx(&pt->lr[i - 1]), &di, &yi);
    lower(y, yi.order);
  }
  return st;
}

lth_status lth_oppoint_apply_Ahat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                                  lth_error *err) {
  int m = pt->sys->m;
  return by_chunks(pt, x, y, m, m, pt->info.order, pt->sp ? op_sparsepi_Ahat : Ahat_chunk, "Ahat x",
                   err);
}

/* ---- Bhat and G: w_i = L_i (C_i v), u = C_0 v ---- */

/* y(w rows) += L_i (C_i x), y(u rows) = C_0 x, reading x before y is written
 * (x may be y's first m rows, as in G). */
static lth_status B_into(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  const lth_opsys *sys = pt->sys;
  int r = sys->r, k = x->cols;
  lth_status st = LTH_OK;
  lth_jet xu = x_rows(pt, x);
  for (int i = 0; i < r && st == LTH_OK; i++) {
    lth_jet ci = scratch(pt, i, k);
    st = thin_times(&pt->C[i], c_start(pt, i), &xu, &ci, err);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    lth_jet yi = rows_of(y, sys, i), ci = scratch(pt, i, k);
    op_scatter_mul(1.0, &pt->L[i - 1], op_idx(&pt->lr[i - 1]), &ci, &yi);
    lower(y, yi.order);
  }
  lth_jet yu = rows_of(y, sys, r), c0 = scratch(pt, 0, k);
  if (st == LTH_OK) st = lth_jet_copy(&yu, &c0, err);
  lower(y, yu.order);
  return st;
}

static lth_status Bhat_chunk(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  return B_into(pt, x, y, err);
}

static lth_status G_chunk(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  lth_jet yv = lth_jet_view(y, 0, 0, pt->sys->m, x->cols);
  lth_status st = P_chunk(pt, x, &yv, 1, err);
  lower(y, yv.order);
  yv.order = y->order;
  if (st == LTH_OK) st = B_into(pt, &yv, y, err);
  return st;
}

lth_status lth_oppoint_apply_Bhat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                                  lth_error *err) {
  return by_chunks(pt, x, y, pt->sys->m, pt->sys->s, pt->info.order,
                   pt->sp ? op_sparsepi_Bhat : Bhat_chunk, "Bhat x", err);
}

lth_status lth_oppoint_apply_G(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                               lth_error *err) {
  return by_chunks(pt, x, y, pt->sys->m, pt->sys->s, pt->info.order,
                   pt->sp ? op_sparsepi_G : G_chunk, "G x", err);
}

/* ---- A itself ---- */

static lth_status A_chunk(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  (void)err;
  const lth_opsys *sys = pt->sys;
  int r = sys->r;
  for (int i = 1; i <= r; i++) {
    lth_jet yi = rows_of(y, sys, i);
    for (int j = 1; j <= r; j++) {
      lth_jet xj = rows_of(x, sys, j);
      op_csc_left(1.0, op_A(pt, i, j), &xj, &yi);
    }
    lower(y, yi.order);
  }
  return LTH_OK;
}

lth_status lth_oppoint_apply_A(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                               lth_error *err) {
  return by_chunks(pt, x, y, pt->sys->s, pt->sys->s, pt->K, A_chunk, "A x", err);
}

/* ---- vectors ---- */

static lth_status vec_out(const lth_oppoint *pt, const lth_jet *src, int order, lth_jet *y,
                          const char *what, lth_error *err) {
  if (y->rows != src->rows || y->cols != 1) {
    return lth_error_set(err, LTH_EDIM, "%s is %d x 1, not %d x %d", what, src->rows, y->rows,
                         y->cols);
  }
  if (!(pt->info.t == pt->info.t)) {
    return lth_error_set(err, LTH_EINVAL, "%s: the point holds no decomposition", what);
  }
  lth_jet s = *src;
  s.order = imin(s.order, order);
  return lth_jet_copy(y, &s, err);
}

lth_status lth_oppoint_g(const lth_oppoint *pt, lth_jet *y, lth_error *err) {
  return vec_out(pt, &pt->g, pt->info.order, y, "g", err);
}
lth_status lth_oppoint_q(const lth_oppoint *pt, lth_jet *y, lth_error *err) {
  return vec_out(pt, &pt->q, pt->info.order, y, "q", err);
}
lth_status lth_oppoint_f(const lth_oppoint *pt, lth_jet *y, lth_error *err) {
  return vec_out(pt, &pt->f, pt->K, y, "f", err);
}
