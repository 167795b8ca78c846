/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Products of sparse value jets (compressed sparse columns, one pattern for
 * every Taylor coefficient) with dense thin jets: the only place the
 * operator form touches the sparse blocks (lib/decomp/op_impl.h); a block
 * that is a mass matrix's solve M^{-1} B goes through lib/decomp/op_mass.c. */
#include <math.h>

#include "op_impl.h"
#include "source/csc.h"

static int imin(int a, int b) { return a < b ? a : b; }

/* Y_c += alpha A_a X_b over a + b = c <= K: the identity maps of
 * op_csc_left_rows (the same loops and order of summation). */
void op_csc_left(double alpha, const op_csc *A, const lth_jet *X, lth_jet *Y) {
  op_csc_left_rows(alpha, A, X, NULL, Y, NULL);
}

double op_csc_norm1(const op_csc *A) {
  if (A->mass) {
    return A->nrm;
  }
  if (A->fixed && A->nrm >= 0.0) {
    return A->nrm;
  }
  return A->val ? lth_csc_norm1(A->colptr, A->val, A->cols) : 0.0;
}

/* ---- products with row- or column-compact thin factors ---- */

void op_csc_left_rows(double alpha, const op_csc *A, const lth_jet *X, const op_rows *xr,
                      lth_jet *Y, const int *ypos) {
  if (!A->val || alpha == 0.0) {
    return;
  }
  if (A->mass) {
    op_mass_left_rows(alpha, A, X, xr, Y, ypos);
    return;
  }
  int K = imin(imin(A->order, X->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  for (int c = 0; c <= K; c++) {
    double *y = LTH_JET_COEF(Y, c);
    for (int a = 0; a <= c; a++) {
      const double *v = A->val + (size_t)a * A->stride;
      const double *x = LTH_JET_COEF(X, c - a);
      for (int k = 0; k < X->cols; k++) {
        const double *xk = x + (size_t)k * X->ld;
        double *yk = y + (size_t)k * Y->ld;
        for (int q = 0, nq = xr ? X->rows : A->cols; q < nq; q++) {
          int jj = xr ? xr->idx[q] : q;
          double xj = alpha * xk[q];
          for (int p = A->colptr[jj]; xj != 0.0 && p < A->colptr[jj + 1]; p++) {
            int yr = ypos ? ypos[A->rowind[p]] : A->rowind[p];
            if (yr >= 0) yk[yr] += v[p] * xj;
          }
        }
      }
    }
  }
}

void op_csc_right_cols(double alpha, const lth_jet *X, const int *xpos, const op_csc *A, lth_jet *Y,
                       const int *ycols) {
  if (!A->val || alpha == 0.0) {
    return;
  }
  if (A->mass) {
    op_mass_right_cols(alpha, X, xpos, A, Y, ycols);
    return;
  }
  int K = imin(imin(A->order, X->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  int k = X->rows;
  for (int q = 0; q < Y->cols; q++) {
    int jj = ycols[q];
    for (int p = A->colptr[jj]; p < A->colptr[jj + 1]; p++) {
      int xc = xpos ? xpos[A->rowind[p]] : A->rowind[p];
      for (int c = 0; xc >= 0 && c <= K; c++) {
        double *yq = LTH_JET_COEF(Y, c) + (size_t)q * Y->ld;
        for (int a = 0; a <= c; a++) {
          double w = alpha * A->val[p + (size_t)a * A->stride];
          const double *xr = LTH_JET_COEF(X, c - a) + (size_t)xc * X->ld;
          for (int rr = 0; rr < k; rr++) yq[rr] += w * xr[rr];
        }
      }
    }
  }
}

void op_csc_dense_map(const op_csc *A, const int *ypos, const int *ycols, lth_jet *Y) {
  if (A->mass) {
    op_mass_dense_map(A, ypos, ycols, Y);
    return;
  }
  int K = imin(A->order, Y->maxorder);
  lth_jet_set_zero(Y, K < 0 ? 0 : K);
  Y->order = K;
  for (int c = 0; c <= K && A->val; c++) {
    const double *v = A->val + (size_t)c * A->stride;
    for (int q = 0; q < Y->cols; q++) {
      int jj = ycols ? ycols[q] : q;
      for (int p = A->colptr[jj]; p < A->colptr[jj + 1]; p++) {
        int yr = ypos ? ypos[A->rowind[p]] : A->rowind[p];
        if (yr >= 0) LTH_JET_AT(Y, c, yr, q) += v[p]; /* a pattern may name an entry twice */
      }
    }
  }
}

void op_gather_mul(double alpha, const lth_jet *X, const int *m1, const int *m2, const lth_jet *B,
                   lth_jet *Y) {
  if (!m1 && !m2) { /* every row of B's first X->cols: a dense product */
    lth_jet Bv = lth_jet_view(B, 0, 0, X->cols, B->cols);
    (void)lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, alpha, X, &Bv, 1.0, Y, NULL);
    return;
  }
  int K = imin(imin(X->order, B->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  for (int c = 0; c <= K; c++) {
    double *y = LTH_JET_COEF(Y, c);
    for (int a = 0; a <= c; a++) {
      const double *x = LTH_JET_COEF(X, a), *b = LTH_JET_COEF(B, c - a);
      for (int p = 0; p < X->cols; p++) {
        int row = m1 ? m1[p] : p;
        row = m2 && row >= 0 ? m2[row] : row;
        if (row < 0) {
          continue;
        }
        const double *xp = x + (size_t)p * X->ld;
        for (int k = 0; k < Y->cols; k++) {
          double w = alpha * b[row + (size_t)k * B->ld];
          double *yk = y + (size_t)k * Y->ld;
          for (int i = 0; w != 0.0 && i < Y->rows; i++) yk[i] += w * xp[i];
        }
      }
    }
  }
}

void op_scatter_mul(double alpha, const lth_jet *X, const int *rows, const lth_jet *B, lth_jet *Y) {
  if (!rows) { /* every row */
    (void)lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, alpha, X, B, 1.0, Y, NULL);
    return;
  }
  int K = imin(imin(X->order, B->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  for (int c = 0; c <= K; c++) {
    double *y = LTH_JET_COEF(Y, c);
    for (int a = 0; a <= c; a++) {
      const double *x = LTH_JET_COEF(X, a), *b = LTH_JET_COEF(B, c - a);
      for (int k = 0; k < Y->cols; k++) {
        double *yk = y + (size_t)k * Y->ld;
        for (int q = 0; q < X->cols; q++) {
          double w = alpha * b[q + (size_t)k * B->ld];
          const double *xq = x + (size_t)q * X->ld;
          for (int p = 0; w != 0.0 && p < X->rows; p++) yk[rows[p]] += w * xq[p];
        }
      }
    }
  }
}
