/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A block row's mass matrix on the operator path (lib/decomp/op_impl.h).
 *
 * A data file's M(i) or the equation form's coupled derivatives make block
 * row i of A the solve M_i^{-1} B_ij (lth_source_solve).  With M_i sparse and
 * not diagonal, M_i^{-1} B_ij is dense: the dense path forms it (n_i x n_j
 * per Taylor order).  Here the point keeps B_ij on its own pattern and a
 * sparse LU of M_i (SuiteSparse KLU), and every product with the block goes
 * through it:
 *     M^{-1} B X     = solve(M, B X)                 (op_mass_left_rows)
 *     X M^{-1} B     = solve(M^T, X^T)^T B           (op_mass_right_cols)
 *     M^{-1} B(:, J) = solve(M, B(:, J))             (op_mass_dense_map)
 * on chunks of `chunk` columns, in O(nnz(B) + nnz(LU of M)) per column and
 * Taylor order; nothing n_i x n_i is formed.
 *
 * M is constant: the jet of M^{-1} Y is M_0^{-1} Y coefficient by
 * coefficient (the recurrence of lib/source/source_solve.c with M_j = 0 for
 * j >= 1).  That is checked at every point, not assumed: op_mass_eval fills
 * M's jet at t and refuses (naming M and t) if a derivative is nonzero, and
 * factors M again whenever its values differ from those factored, so each
 * point's products are exact to rounding whatever the data do between
 * points.  A time-varying M would need the full recurrence; it is refused.
 *
 * Without KLU (CMake option LTH_SUITESPARSE) lth_opsys_from_system keeps
 * today's dense blocks and nothing here is called. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/defaults.h"
#include "op_impl.h"
#include "source/csc.h"

#ifdef LTH_HAVE_KLU
#include <klu.h>

#define NORM_EXACT_COLS 256 /* ||M^{-1} B||_1 exactly up to this many columns */

static int imin(int a, int b) { return a < b ? a : b; }

struct op_mass {
  const lth_source *M;
  const char *label;
  int n, nnz, chunk, K;
  const int *colptr, *rowind;
  double *mv;      /* M's coefficients 0..K on its pattern (stride nnz) */
  double *fac;     /* the values factored (nnz), valid when kn */
  double inv_norm; /* ||M^{-1}||_1 (klu_condest / ||M||_1) */
  size_t work;     /* doubles of M's fill */
  double *mwork;
  lth_jet T;     /* n x chunk, orders 0..K: products before and after the solve */
  klu_common kc; /* settings and status (klu_solve writes it: one thread) */
  klu_symbolic *ks;
  klu_numeric *kn;
};

op_mass *op_mass_alloc(const lth_source *M, const char *label, int chunk, int K, lth_error *err) {
  op_mass *ms = calloc(1, sizeof *ms);
  lth_status st =
      ms ? lth_source_csc_pattern(M, &ms->nnz, &ms->colptr, &ms->rowind, err) : LTH_ENOMEM;
  if (st == LTH_OK) {
    ms->M = M;
    ms->label = label ? label : "M";
    ms->n = lth_source_rows(M);
    ms->chunk = chunk < 1 ? 1 : chunk;
    ms->K = K;
    ms->work = lth_source_work_size(M, K);
    ms->mv = malloc(((size_t)ms->nnz * (size_t)(K + 1) + 1) * sizeof(double));
    ms->fac = malloc(((size_t)ms->nnz + 1) * sizeof(double));
    ms->mwork = malloc((ms->work + 1) * sizeof(double));
    st = ms->mv && ms->fac && ms->mwork ? lth_jet_init(&ms->T, ms->n, ms->chunk, K, err)
                                        : LTH_ENOMEM;
  }
  if (st == LTH_OK) {
    klu_defaults(&ms->kc);
    ms->ks = klu_analyze(ms->n, (int *)ms->colptr, (int *)ms->rowind, &ms->kc);
    st = ms->ks ? LTH_OK : LTH_ENOMEM;
  }
  if (st != LTH_OK) {
    op_mass_free(ms);
    if (st == LTH_ENOMEM) {
      lth_error_set(err, LTH_ENOMEM, "out of memory setting up the mass matrix %s",
                    label ? label : "M");
    }
    return NULL;
  }
  return ms;
}

void op_mass_free(op_mass *ms) {
  if (!ms) return;
  if (ms->kn) klu_free_numeric(&ms->kn, &ms->kc);
  if (ms->ks) klu_free_symbolic(&ms->ks, &ms->kc);
  lth_jet_release(&ms->T);
  free(ms->mv);
  free(ms->fac);
  free(ms->mwork);
  free(ms);
}

size_t op_mass_bytes(const op_mass *ms) {
  if (!ms) return 0;
  size_t b = ((size_t)ms->nnz * (size_t)(ms->K + 2) + ms->work) * sizeof(double);
  b += ms->T.stride * (size_t)(ms->K + 1) * sizeof(double);
  if (ms->kn) b += (size_t)(ms->kn->lnz + ms->kn->unz + ms->n) * sizeof(double);
  return b;
}

/* Factor M_0 = mv[0..nnz) (its values differ from those factored). */
static lth_status factor(op_mass *ms, double t, lth_error *err) {
  if (ms->kn) klu_free_numeric(&ms->kn, &ms->kc);
  ms->kn = klu_factor((int *)ms->colptr, (int *)ms->rowind, ms->mv, ms->ks, &ms->kc);
  double anorm = lth_csc_norm1(ms->colptr, ms->mv, ms->n);
  if (!ms->kn || ms->kc.status != KLU_OK ||
      !klu_condest((int *)ms->colptr, ms->mv, ms->ks, ms->kn, &ms->kc) || !(anorm > 0.0)) {
    if (ms->kn) klu_free_numeric(&ms->kn, &ms->kc);
    return lth_error_set_t(err, LTH_ESING, t, "the mass matrix %s is singular at t = %.10g",
                           ms->label, t);
  }
  double cond = ms->kc.condest;
  if (!(cond <= LTH_SOURCE_SOLVE_COND_MAX)) {
    klu_free_numeric(&ms->kn, &ms->kc);
    lth_status st = lth_error_set_t(err, LTH_ECOND, t,
                                    "the mass matrix %s is nearly singular at t = %.10g: its "
                                    "condition estimate %.3g exceeds %.3g",
                                    ms->label, t, cond, LTH_SOURCE_SOLVE_COND_MAX);
    if (err) {
      err->has_cond = 1;
      err->cond = cond;
    }
    return st;
  }
  ms->inv_norm = cond / anorm;
  memcpy(ms->fac, ms->mv, (size_t)ms->nnz * sizeof(double));
  return LTH_OK;
}

lth_status op_mass_eval(op_mass *ms, double t, int K, lth_error *err) {
  size_t nz = (size_t)ms->nnz;
  lth_status st = lth_source_fill_csc(ms->M, t, K, ms->mv, nz, ms->mwork, err);
  for (int k = 1; k <= K && st == LTH_OK; k++) {
    for (size_t p = 0; p < nz; p++) {
      if (ms->mv[p + (size_t)k * nz] != 0.0) {
        return lth_error_set_t(err, LTH_EDATA, t,
                               "the mass matrix %s changes with t (its Taylor "
                               "coefficient of order %d is nonzero): the operator path takes a "
                               "mass matrix that is not diagonal only when it is constant (the "
                               "dense path, --path dense, takes it up to n = 7071)",
                               ms->label, k);
      }
    }
  }
  if (st == LTH_OK && (!ms->kn || memcmp(ms->fac, ms->mv, nz * sizeof(double)) != 0)) {
    st = factor(ms, t, err);
  }
  return st;
}

/* b <- M_0^{-1} b (trans: M_0^{-T} b), nrhs columns of leading dimension ld. */
static void solve(op_mass *ms, int trans, double *b, int ld, int nrhs) {
  if (nrhs <= 0) return;
  if (trans) {
    klu_tsolve(ms->ks, ms->kn, ld, nrhs, b, &ms->kc);
  } else {
    klu_solve(ms->ks, ms->kn, ld, nrhs, b, &ms->kc);
  }
}

void op_mass_solve_jet(op_mass *ms, lth_jet *Y) {
  for (int c = 0; c <= Y->order; c++) solve(ms, 0, LTH_JET_COEF(Y, c), Y->ld, Y->cols);
}

/* A's pattern and values without the mass (B itself). */
static op_csc plain(const op_csc *A) {
  op_csc b = *A;
  b.mass = NULL;
  return b;
}

void op_mass_left_rows(double alpha, const op_csc *A, const lth_jet *X, const op_rows *xr,
                       lth_jet *Y, const int *ypos) {
  op_mass *ms = A->mass;
  op_csc b = plain(A);
  int K = imin(imin(A->order, X->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  for (int c0 = 0; c0 < X->cols; c0 += ms->chunk) {
    int k = imin(ms->chunk, X->cols - c0);
    lth_jet xc = lth_jet_view(X, 0, c0, X->rows, k);
    lth_jet T = lth_jet_view(&ms->T, 0, 0, ms->n, k);
    T.order = K;
    lth_jet_set_zero(&T, K);
    op_csc_left_rows(1.0, &b, &xc, xr, &T, NULL); /* B X */
    T.order = K;
    op_mass_solve_jet(ms, &T);
    for (int c = 0; c <= K; c++) {
      for (int q = 0; q < k; q++) {
        const double *tq = LTH_JET_COEF(&T, c) + (size_t)q * T.ld;
        double *yq = LTH_JET_COEF(Y, c) + (size_t)(c0 + q) * Y->ld;
        for (int i = 0; i < ms->n; i++) {
          int yr = ypos ? ypos[i] : i;
          if (yr >= 0) yq[yr] += alpha * tq[i];
        }
      }
    }
  }
}

void op_mass_right_cols(double alpha, const lth_jet *X, const int *xpos, const op_csc *A,
                        lth_jet *Y, const int *ycols) {
  op_mass *ms = A->mass;
  int K = imin(imin(A->order, X->order), imin(Y->order, Y->maxorder));
  Y->order = K;
  for (int r0 = 0; r0 < X->rows; r0 += ms->chunk) {
    int k = imin(ms->chunk, X->rows - r0);
    /* T = X(r0.., xpos)^T, then M^{-T} T: T^T = X M^{-1} on those rows */
    lth_jet T = lth_jet_view(&ms->T, 0, 0, ms->n, k);
    T.order = K;
    for (int c = 0; c <= K; c++) {
      for (int q = 0; q < k; q++) {
        double *tq = LTH_JET_COEF(&T, c) + (size_t)q * T.ld;
        const double *x = LTH_JET_COEF(X, c) + (r0 + q);
        for (int i = 0; i < ms->n; i++) {
          int xc = xpos ? xpos[i] : i;
          tq[i] = xc >= 0 ? x[(size_t)xc * X->ld] : 0.0;
        }
      }
      solve(ms, 1, LTH_JET_COEF(&T, c), T.ld, k);
    }
    /* Y(r0.., q) += alpha sum_p T(rowind p, :)^T B_p over column ycols[q] */
    for (int q = 0; q < Y->cols; q++) {
      int jj = ycols[q];
      for (int p = A->colptr[jj]; p < A->colptr[jj + 1]; p++) {
        int row = A->rowind[p];
        for (int c = 0; c <= K; c++) {
          double *yq = LTH_JET_COEF(Y, c) + (size_t)q * Y->ld + r0;
          for (int a = 0; a <= c; a++) {
            double w = alpha * A->val[p + (size_t)a * A->stride];
            const double *tr = LTH_JET_COEF(&T, c - a) + row;
            for (int rr = 0; w != 0.0 && rr < k; rr++) yq[rr] += w * tr[(size_t)rr * T.ld];
          }
        }
      }
    }
  }
}

void op_mass_dense_map(const op_csc *A, const int *ypos, const int *ycols, lth_jet *Y) {
  op_mass *ms = A->mass;
  op_csc b = plain(A);
  int K = imin(A->order, Y->maxorder);
  lth_jet_set_zero(Y, K < 0 ? 0 : K);
  Y->order = K;
  int ncols = Y->cols;
  for (int c0 = 0; c0 < ncols && A->val; c0 += ms->chunk) {
    int k = imin(ms->chunk, ncols - c0);
    int cols[64];
    const int *yc = ycols ? ycols + c0 : NULL;
    if (!ycols) { /* columns c0 .. c0 + k - 1 (chunk <= 64, op_mass_alloc's caller) */
      for (int q = 0; q < k; q++) cols[q] = c0 + q;
      yc = cols;
    }
    lth_jet T = lth_jet_view(&ms->T, 0, 0, ms->n, k);
    op_csc_dense_map(&b, NULL, yc, &T);
    T.order = K;
    op_mass_solve_jet(ms, &T);
    for (int c = 0; c <= K; c++) {
      for (int q = 0; q < k; q++) {
        for (int i = 0; i < ms->n; i++) {
          int yr = ypos ? ypos[i] : i;
          if (yr >= 0) LTH_JET_AT(Y, c, yr, c0 + q) = LTH_JET_AT(&T, c, i, q);
        }
      }
    }
  }
}

double op_mass_norm1(const op_csc *A) {
  op_mass *ms = A->mass;
  op_csc b = plain(A);
  if (A->cols > NORM_EXACT_COLS) {
    /* ||M^{-1} B||_1 <= ||M^{-1}||_1 ||B||_1, with KLU's (Hager) estimate of
     * ||M^{-1}||_1: columns beyond NORM_EXACT_COLS would cost a solve each */
    return ms->inv_norm * op_csc_norm1(&b);
  }
  double mx = 0.0;
  int cols[64];
  for (int c0 = 0; c0 < A->cols; c0 += ms->chunk) {
    int k = imin(ms->chunk, A->cols - c0);
    for (int q = 0; q < k; q++) cols[q] = c0 + q;
    lth_jet T = lth_jet_view(&ms->T, 0, 0, ms->n, k);
    b.order = 0;
    op_csc_dense_map(&b, NULL, cols, &T);
    solve(ms, 0, T.c, T.ld, k);
    for (int q = 0; q < k; q++) {
      double s = 0.0;
      for (int i = 0; i < ms->n; i++) s += fabs(LTH_JET_AT(&T, 0, i, q));
      mx = s > mx ? s : mx;
    }
  }
  return mx;
}

int op_mass_available(void) { return 1; }

#else /* without KLU: lth_opsys_from_system never sets a mass up */

op_mass *op_mass_alloc(const lth_source *M, const char *label, int chunk, int K, lth_error *err) {
  (void)M, (void)chunk, (void)K;
  lth_error_set(err, LTH_EINVAL,
                "the mass matrix %s: its sparse factorization needs SuiteSparse KLU (CMake option "
                "LTH_SUITESPARSE)",
                label ? label : "M");
  return NULL;
}
void op_mass_free(op_mass *ms) { (void)ms; }
size_t op_mass_bytes(const op_mass *ms) {
  (void)ms;
  return 0;
}
lth_status op_mass_eval(op_mass *ms, double t, int K, lth_error *err) {
  (void)ms, (void)K;
  return lth_error_set_t(err, LTH_EINVAL, t, "a sparse mass matrix needs SuiteSparse KLU");
}
void op_mass_solve_jet(op_mass *ms, lth_jet *Y) { (void)ms, (void)Y; }
void op_mass_left_rows(double alpha, const op_csc *A, const lth_jet *X, const op_rows *xr,
                       lth_jet *Y, const int *ypos) {
  (void)alpha, (void)A, (void)X, (void)xr, (void)Y, (void)ypos;
}
void op_mass_right_cols(double alpha, const lth_jet *X, const int *xpos, const op_csc *A,
                        lth_jet *Y, const int *ycols) {
  (void)alpha, (void)X, (void)xpos, (void)A, (void)Y, (void)ycols;
}
void op_mass_dense_map(const op_csc *A, const int *ypos, const int *ycols, lth_jet *Y) {
  (void)A, (void)ypos, (void)ycols, (void)Y;
}
double op_mass_norm1(const op_csc *A) {
  (void)A;
  return NAN;
}
int op_mass_available(void) { return 0; }

#endif
