/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Banded solver for two-point block systems (lib/bvp/twopoint.h). */
#include "twopoint.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double *ab; /* band storage, ldab x ncols */
  lapack_int ldab, kl, ku, nrows;
  double *colsum; /* for the 1-norm */
} band;

static void put(band *b, size_t i, size_t j, double v) {
  if (v == 0.0) {
    return;
  }
  b->ab[(size_t)(b->kl + b->ku) + i - j + j * (size_t)b->ldab] += v;
  b->colsum[j] += fabs(v);
}

/* Block (rows x cols, column-major, leading dimension ld) at (r0, c0), scaled. */
static void put_block(band *b, size_t r0, size_t c0, int rows, int cols, const double *a, int ld,
                      double scale) {
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows; i++) {
      put(b, r0 + (size_t)i, c0 + (size_t)j, scale * a[i + (size_t)j * ld]);
    }
  }
}

static void put_identity(band *b, size_t r0, size_t c0, int k, double scale) {
  for (int i = 0; i < k; i++) {
    put(b, r0 + (size_t)i, c0 + (size_t)i, scale);
  }
}

/* Rows: node 0 (n rows), node j = 1..N (n + nb rows), final (nb rows). */
static void assemble(const lth_twopoint *tp, band *b, double *rhs) {
  int n = tp->n, nl = tp->nl, nb = tp->nb, w = n + nb;
  put_block(b, 0, 0, nl, n, tp->L0, nl, 1.0);
  if (nl > 0) {
    memcpy(rhs, tp->l0, (size_t)nl * sizeof(double));
  }
  put_block(b, (size_t)nl, 0, nb, n, tp->D0, nb, 1.0); /* D0 x_0 - w_0 = 0 */
  put_identity(b, (size_t)nl, (size_t)n, nb, -1.0);
  for (int i = 0; i < nb; i++) rhs[nl + i] = 0.0;
  for (size_t j = 1; j <= tp->N; j++) {
    size_t r = (size_t)n + (j - 1) * (size_t)w, cp = (j - 1) * (size_t)w, cj = j * (size_t)w;
    put_block(b, r, cp, n, n, tp->C + (j - 1) * (size_t)n * n, n, 1.0);
    put_block(b, r, cj, n, n, tp->E + (j - 1) * (size_t)n * n, n, 1.0);
    memcpy(rhs + r, tp->e + (j - 1) * (size_t)n, (size_t)n * sizeof(double));
    put_identity(b, r + (size_t)n, cj + (size_t)n, nb, 1.0); /* w_j - w_{j-1} = 0 */
    put_identity(b, r + (size_t)n, cp + (size_t)n, nb, -1.0);
    for (int i = 0; i < nb; i++) rhs[r + (size_t)n + (size_t)i] = 0.0;
  }
  size_t r = (size_t)b->nrows - (size_t)nb, cN = tp->N * (size_t)w;
  put_block(b, r, cN, nb, n, tp->DN, nb, 1.0); /* w_N + DN x_N = d */
  put_identity(b, r, cN + (size_t)n, nb, 1.0);
  if (nb > 0) {
    memcpy(rhs + r, tp->d, (size_t)nb * sizeof(double));
  }
}

/* ||A^{-1}||_1 by Hager/Higham's estimator (LAPACK dlacn2) on the banded LU:
 * a few banded solves, linear in the order.  dgbcon would do the same in
 * principle, but its scaled triangular solves fall into an O(n^2) path on
 * these badly scaled DAE matrices (measured: 0.4 s of 0.43 s at 3201 points). */
static double inverse_norm_estimate(const band *b, const lapack_int *ipiv, double *work,
                                    lapack_int *iwork) {
  lapack_int n = b->nrows, kase = 0, isave[3] = {0, 0, 0};
  double *v = work, *x = work + n, est = 0.0;
  for (int it = 0; it < 10; it++) {
    LAPACKE_dlacn2_work(n, v, x, iwork, &est, &kase, isave);
    if (kase == 0) {
      break;
    }
    LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, kase == 1 ? 'N' : 'T', n, b->kl, b->ku, 1, b->ab, b->ldab,
                        ipiv, x, n);
  }
  return est;
}

lth_status lth_twopoint_solve(const lth_twopoint *tp, double *x, double *cond, lth_error *err) {
  return lth_twopoint_solve_green(tp, x, cond, NULL, err);
}

lth_status lth_twopoint_solve_green(const lth_twopoint *tp, double *x, double *cond, double *green,
                                    lth_error *err) {
  int n = tp->n, nb = tp->nb, w = n + nb, nrhs = green ? 1 + nb : 1;
  band b;
  b.nrows = (lapack_int)((tp->N + 1) * (size_t)w);
  b.kl = 2 * n + nb - 1;
  b.ku = n + 2 * nb - 1;
  b.ldab = 2 * b.kl + b.ku + 1;
  size_t nr = (size_t)b.nrows;
  b.ab = calloc((size_t)b.ldab * nr, sizeof(double));
  b.colsum = calloc(nr, sizeof(double));
  double *rhs = calloc(nr * (size_t)nrhs, sizeof(double)), *work = malloc(3 * nr * sizeof(double));
  lapack_int *ipiv = malloc(nr * sizeof(lapack_int)), *iwork = malloc(nr * sizeof(lapack_int));
  lth_status st = LTH_OK;
  if (!b.ab || !b.colsum || !rhs || !work || !ipiv || !iwork) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory for a banded system of order %zu", nr);
    goto cleanup;
  }
  assemble(tp, &b, rhs);
  double anorm = 0.0, rcond = 0.0;
  for (size_t j = 0; j < nr; j++) anorm = fmax(anorm, b.colsum[j]);
  lapack_int info =
      LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, b.nrows, b.nrows, b.kl, b.ku, b.ab, b.ldab, ipiv);
  if (info == 0) {
    rcond = inverse_norm_estimate(&b, ipiv, work, iwork);
    rcond = rcond > 0 && anorm > 0 ? 1.0 / (anorm * rcond) : 0.0;
  }
  *cond = rcond > 0 ? 1.0 / rcond : INFINITY;
  if (info != 0 || rcond == 0.0) {
    st = lth_error_set(err, LTH_ESING, "singular banded system of order %zu", nr);
    goto cleanup;
  }
  for (int j = 1; j < nrhs; j++) { /* unit boundary value j - 1: the last nb rows hold d */
    rhs[(size_t)j * nr + nr - (size_t)nb + (size_t)(j - 1)] = 1.0;
  }
  LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', b.nrows, b.kl, b.ku, nrhs, b.ab, b.ldab, ipiv, rhs,
                      b.nrows);
  for (int c = 0; c < nrhs; c++) {
    double *dst = c == 0 ? x : green + (size_t)(c - 1) * (tp->N + 1) * (size_t)n;
    for (size_t j = 0; j <= tp->N; j++) {
      memcpy(dst + j * (size_t)n, rhs + (size_t)c * nr + j * (size_t)w, (size_t)n * sizeof(double));
    }
  }
cleanup:
  free(b.ab);
  free(b.colsum);
  free(rhs);
  free(work);
  free(ipiv);
  free(iwork);
  return st;
}
