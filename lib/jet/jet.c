/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Taylor jets (include/lth/jet.h), docs/theory.md section 3.
 * All products go through cblas_dgemm, all factorizations through LAPACKE. */
#include "lth/jet.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/small_blas.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

lth_status lth_jet_init(lth_jet *J, int rows, int cols, int maxorder, lth_error *err) {
  memset(J, 0, sizeof *J);
  if (rows < 0 || cols < 0 || maxorder < 0) {
    return lth_error_set(err, LTH_EINVAL, "jet size %d x %d, order %d is invalid", rows, cols,
                         maxorder);
  }
  J->rows = rows;
  J->cols = cols;
  J->ld = imax(rows, 1);
  J->stride = (size_t)J->ld * (size_t)imax(cols, 1);
  J->maxorder = maxorder;
  J->order = maxorder;
  J->c = calloc(J->stride * (size_t)(maxorder + 1), sizeof(double));
  if (!J->c) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a %d x %d jet of order %d",
                         rows, cols, maxorder);
  }
  J->owner = 1;
  return LTH_OK;
}

void lth_jet_release(lth_jet *J) {
  if (J && J->owner) {
    free(J->c);
  }
  if (J) {
    memset(J, 0, sizeof *J);
  }
}

lth_jet *lth_jet_alloc(int rows, int cols, int maxorder, lth_error *err) {
  lth_jet *J = malloc(sizeof *J);
  if (!J) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a jet");
    return NULL;
  }
  if (lth_jet_init(J, rows, cols, maxorder, err) != LTH_OK) {
    free(J);
    return NULL;
  }
  return J;
}

void lth_jet_free(lth_jet *J) {
  if (J) {
    lth_jet_release(J);
    free(J);
  }
}

lth_jet lth_jet_view(const lth_jet *J, int r0, int c0, int rows, int cols) {
  lth_jet V = *J;
  V.c = J->c + (size_t)r0 + (size_t)c0 * (size_t)J->ld;
  V.rows = rows;
  V.cols = cols;
  V.owner = 0;
  return V;
}

lth_jet lth_jet_wrap(double *data, int rows, int cols, int ld, size_t stride, int order) {
  lth_jet V;
  V.rows = rows;
  V.cols = cols;
  V.order = order;
  V.maxorder = order;
  V.ld = ld;
  V.stride = stride;
  V.c = data;
  V.owner = 0;
  return V;
}

/* A jet whose coefficients lie back to back, each with ld == rows, can be
 * treated as one wide matrix [J_0 J_1 ... J_K] by BLAS. */
static int is_packed(const lth_jet *J) {
  return J->ld == J->rows && J->stride == (size_t)J->ld * (size_t)J->cols;
}

static void coef_fill(double *a, int rows, int cols, int ld, double value) {
  if (ld == rows) {
    size_t n = (size_t)rows * (size_t)cols;
    for (size_t k = 0; k < n; k++) {
      a[k] = value;
    }
    return;
  }
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows; i++) {
      a[i + (size_t)j * ld] = value;
    }
  }
}

void lth_jet_set_zero(lth_jet *J, int order) {
  J->order = order;
  for (int m = 0; m <= order; m++) {
    coef_fill(LTH_JET_COEF(J, m), J->rows, J->cols, J->ld, 0.0);
  }
}

void lth_jet_set_identity(lth_jet *J, int order) {
  lth_jet_set_zero(J, order);
  int n = imin(J->rows, J->cols);
  for (int i = 0; i < n; i++) {
    LTH_JET_AT(J, 0, i, i) = 1.0;
  }
}

static lth_status check_same_size(const lth_jet *X, const lth_jet *Y, const char *op,
                                  lth_error *err) {
  if (X->rows != Y->rows || X->cols != Y->cols) {
    return lth_error_set(err, LTH_EDIM, "%s: jet sizes %d x %d and %d x %d differ", op, X->rows,
                         X->cols, Y->rows, Y->cols);
  }
  return LTH_OK;
}

lth_status lth_jet_copy(lth_jet *dst, const lth_jet *src, lth_error *err) {
  lth_status st = check_same_size(src, dst, "copy", err);
  if (st != LTH_OK) {
    return st;
  }
  int K = imin(src->order, dst->maxorder);
  for (int m = 0; m <= K; m++) {
    const double *s = LTH_JET_COEF(src, m);
    double *d = LTH_JET_COEF(dst, m);
    for (int j = 0; j < src->cols; j++) {
      memmove(d + (size_t)j * dst->ld, s + (size_t)j * src->ld, (size_t)src->rows * sizeof *d);
    }
  }
  dst->order = K;
  return LTH_OK;
}

lth_status lth_jet_axpy(double a, const lth_jet *X, lth_jet *Y, lth_error *err) {
  lth_status st = check_same_size(X, Y, "axpy", err);
  if (st != LTH_OK) {
    return st;
  }
  int K = imin(X->order, Y->order);
  for (int m = 0; m <= K; m++) {
    const double *x = LTH_JET_COEF(X, m);
    double *y = LTH_JET_COEF(Y, m);
    for (int j = 0; j < X->cols; j++) {
      cblas_daxpy(X->rows, a, x + (size_t)j * X->ld, 1, y + (size_t)j * Y->ld, 1);
    }
  }
  Y->order = K;
  return LTH_OK;
}

void lth_jet_scale(lth_jet *J, double a) {
  for (int m = 0; m <= J->order; m++) {
    double *x = LTH_JET_COEF(J, m);
    for (int j = 0; j < J->cols; j++) {
      if (a == 0.0) {
        coef_fill(x + (size_t)j * J->ld, J->rows, 1, J->ld, 0.0);
      } else {
        cblas_dscal(J->rows, a, x + (size_t)j * J->ld, 1);
      }
    }
  }
}

void lth_jet_truncate(lth_jet *J, int order) {
  if (order < J->order) {
    J->order = order;
  }
}

/* C_m = beta C_m for m = 0..K (beta == 0 overwrites, so NaNs in C never leak). */
static void scale_coefs(lth_jet *C, int K, double beta) {
  if (beta == 1.0) {
    return;
  }
  int saved = C->order;
  C->order = K;
  lth_jet_scale(C, beta);
  C->order = saved;
}

static int op_rows(const lth_jet *A, lth_trans t) { return t == LTH_TRANS ? A->cols : A->rows; }
static int op_cols(const lth_jet *A, lth_trans t) { return t == LTH_TRANS ? A->rows : A->cols; }
static enum CBLAS_TRANSPOSE cblas_trans(lth_trans t) {
  return t == LTH_TRANS ? CblasTrans : CblasNoTrans;
}

/* C += alpha op(A) op(B), one coefficient pair (lib/core/small_blas.c picks the
 * way by size). */
static void coef_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int Kd,
                      double alpha, const double *a, int lda, const double *b, int ldb, double *c,
                      int ldc) {
  lth_small_gemm(ta, tb, M, N, Kd, alpha, a, lda, b, ldb, 1.0, c, ldc);
}

/* Truncated Cauchy product, docs/theory.md section 3. */
lth_status lth_jet_gemm(lth_trans ta, lth_trans tb, double alpha, const lth_jet *A,
                        const lth_jet *B, double beta, lth_jet *C, lth_error *err) {
  int M = op_rows(A, ta), Kd = op_cols(A, ta), N = op_cols(B, tb);
  if (op_rows(B, tb) != Kd || C->rows != M || C->cols != N) {
    return lth_error_set(err, LTH_EDIM, "jet product: (%d x %d) times (%d x %d) into %d x %d", M,
                         Kd, op_rows(B, tb), N, C->rows, C->cols);
  }
  int K = imin(imin(A->order, B->order), C->maxorder);
  if (beta != 0.0) {
    K = imin(K, C->order);
  }
  if (K < 0) {
    C->order = -1;
    return LTH_OK;
  }
  scale_coefs(C, K, beta);
  C->order = K;
  if (M == 0 || N == 0 || Kd == 0 || alpha == 0.0) {
    return LTH_OK;
  }
  enum CBLAS_TRANSPOSE cta = cblas_trans(ta), ctb = cblas_trans(tb);
  if (tb == LTH_NOTRANS && is_packed(B) && is_packed(C) && (long)M * N * Kd > LTH_SMALL_PRODUCT) {
    /* C_{j..K} += alpha A_j [B_0 ... B_{K-j}]: one wide dgemm per j. */
    for (int j = 0; j <= K; j++) {
      cblas_dgemm(CblasColMajor, cta, ctb, M, N * (K - j + 1), Kd, alpha, LTH_JET_COEF(A, j), A->ld,
                  LTH_JET_COEF(B, 0), B->ld, 1.0, LTH_JET_COEF(C, j), C->ld);
    }
    return LTH_OK;
  }
  for (int m = 0; m <= K; m++) {
    for (int j = 0; j <= m; j++) {
      coef_gemm(cta, ctb, M, N, Kd, alpha, LTH_JET_COEF(A, j), A->ld, LTH_JET_COEF(B, m - j), B->ld,
                LTH_JET_COEF(C, m), C->ld);
    }
  }
  return LTH_OK;
}

lth_status lth_jet_mul(const lth_jet *A, const lth_jet *B, lth_jet *C, lth_error *err) {
  return lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, A, B, 0.0, C, err);
}

lth_status lth_jet_deriv(lth_jet *dst, const lth_jet *src, lth_error *err) {
  lth_status st = check_same_size(src, dst, "derivative", err);
  if (st != LTH_OK) {
    return st;
  }
  if (src->order < 1) {
    return lth_error_set(err, LTH_EORDER, "derivative of a jet of order %d", src->order);
  }
  int K = src->order - 1;
  if (K > dst->maxorder) {
    K = dst->maxorder;
  }
  /* Ascending m reads coefficient m+1 before it is overwritten: safe in place. */
  for (int m = 0; m <= K; m++) {
    const double *s = LTH_JET_COEF(src, m + 1);
    double *d = LTH_JET_COEF(dst, m);
    for (int j = 0; j < src->cols; j++) {
      for (int i = 0; i < src->rows; i++) {
        d[i + (size_t)j * dst->ld] = (double)(m + 1) * s[i + (size_t)j * src->ld];
      }
    }
  }
  dst->order = K;
  return LTH_OK;
}

void lth_jet_eval(const lth_jet *J, double h, double *out, int ldout) {
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) {
      double acc = 0.0;
      for (int m = J->order; m >= 0; m--) {
        acc = acc * h + LTH_JET_AT(J, m, i, j);
      }
      out[i + (size_t)j * ldout] = acc;
    }
  }
}

double lth_jet_norm1(const lth_jet *J, int k) {
  double mx = 0.0;
  for (int j = 0; j < J->cols; j++) {
    double c = 0.0;
    for (int i = 0; i < J->rows; i++) {
      c += fabs(LTH_JET_AT(J, k, i, j));
    }
    mx = c > mx ? c : mx;
  }
  return mx;
}

double lth_jet_maxabs(const lth_jet *J, int order) {
  double mx = 0.0;
  int K = imin(order, J->order);
  for (int m = 0; m <= K; m++) {
    for (int j = 0; j < J->cols; j++) {
      for (int i = 0; i < J->rows; i++) {
        double a = fabs(LTH_JET_AT(J, m, i, j));
        if (a > mx || a != a) {
          mx = a;
        }
      }
    }
  }
  return mx;
}

/* ---- LU-based solves ---- */

struct lth_jet_lu {
  int nmax, n;
  double *lu;        /* n x n, ld = nmax: LU factors of M_0 */
  lapack_int *ipiv;  /* nmax */
  double *work;      /* 4 nmax, for dgecon */
  lapack_int *iwork; /* nmax, for dgecon */
  lth_jet M;         /* the factored jet (by value; storage owned by the caller) */
};

lth_jet_lu *lth_jet_lu_alloc(int nmax, lth_error *err) {
  if (nmax < 0) {
    lth_error_set(err, LTH_EINVAL, "LU workspace size %d is invalid", nmax);
    return NULL;
  }
  lth_jet_lu *lu = calloc(1, sizeof *lu);
  int n1 = imax(nmax, 1);
  if (lu) {
    lu->nmax = nmax;
    lu->lu = malloc((size_t)n1 * (size_t)n1 * sizeof *lu->lu);
    lu->ipiv = malloc((size_t)n1 * sizeof *lu->ipiv);
    lu->work = malloc((size_t)4 * (size_t)n1 * sizeof *lu->work);
    lu->iwork = malloc((size_t)n1 * sizeof *lu->iwork);
  }
  if (!lu || !lu->lu || !lu->ipiv || !lu->work || !lu->iwork) {
    lth_jet_lu_free(lu);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an LU workspace of size %d", nmax);
    return NULL;
  }
  return lu;
}

void lth_jet_lu_free(lth_jet_lu *lu) {
  if (!lu) {
    return;
  }
  free(lu->lu);
  free(lu->ipiv);
  free(lu->work);
  free(lu->iwork);
  free(lu);
}

/* 1-norm of an n x n matrix; NaN if any entry is not finite. */
static double norm1(const double *a, int n, int ld) {
  double mx = 0.0;
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
      s += fabs(a[i + (size_t)j * ld]);
    }
    if (!isfinite(s)) {
      return NAN;
    }
    mx = s > mx ? s : mx;
  }
  return mx;
}

int lth_jet_lu_det_sign(const lth_jet_lu *lu) {
  int sign = 1;
  for (int i = 0; i < lu->n; i++) {
    if (lu->lu[(size_t)i * lu->nmax + i] < 0.0) sign = -sign;
    if (lu->ipiv[i] != i + 1) sign = -sign; /* a row interchange */
  }
  return sign;
}

/* Matrices up to this order get the exact 1-norm condition number from their
 * LU factors (exact_rcond) instead of LAPACK's estimate (dgecon): a few dozen
 * operations where dgecon's call and its iterations cost more than the LU
 * (perf, bench_peer rational, a 2 x 2 Pi: dgecon 13 % of the solve). */
#define EXACT_COND_MAX_N 3

static double exact_rcond(const lth_jet_lu *lu, double anorm);

lth_status lth_jet_lu_factor(lth_jet_lu *lu, const lth_jet *M, double rcond_min, double *cond,
                             lth_error *err) {
  int n = M->rows;
  if (M->cols != n || n > lu->nmax) {
    return lth_error_set(err, LTH_EDIM, "LU of a %d x %d jet in a workspace for %d", M->rows,
                         M->cols, lu->nmax);
  }
  if (M->order < 0) {
    return lth_error_set(err, LTH_EORDER, "LU of an empty jet");
  }
  lu->n = n;
  lu->M = *M;
  if (cond) {
    *cond = 1.0;
  }
  if (n == 0) {
    return LTH_OK;
  }
  const double *m0 = LTH_JET_COEF(M, 0);
  double anorm = norm1(m0, n, M->ld);
  if (!isfinite(anorm)) {
    return lth_error_set(err, LTH_ENOTFINITE, "matrix to factor has a non-finite entry");
  }
  for (int j = 0; j < n; j++) {
    memcpy(lu->lu + (size_t)j * lu->nmax, m0 + (size_t)j * M->ld, (size_t)n * sizeof(double));
  }
  lapack_int info;
  double rcond = 0.0;
  if (n == 1) {
    /* what dgetrf and dgecon return for 1 x 1 (rcond exactly 1), without
     * their call overhead, which dominated the scan of a scalar Pi */
    lu->ipiv[0] = 1;
    info = lu->lu[0] == 0.0 ? 1 : 0;
    rcond = info == 0 ? 1.0 : 0.0;
  } else {
    info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, lu->lu, lu->nmax, lu->ipiv);
  }
  if (n > 1 && n <= EXACT_COND_MAX_N && info == 0 && anorm > 0.0) {
    rcond = exact_rcond(lu, anorm);
  } else if (n > 1 && info == 0 && anorm > 0.0) {
    lapack_int ci = LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, lu->lu, lu->nmax, anorm, &rcond,
                                        lu->work, lu->iwork);
    if (ci != 0 || !isfinite(rcond)) {
      rcond = 0.0;
    }
  }
  double c = rcond > 0.0 ? 1.0 / rcond : INFINITY;
  if (cond) {
    *cond = c;
  }
  if (info < 0) {
    return lth_error_set(err, LTH_ELAPACK, "dgetrf argument %d invalid", (int)-info);
  }
  if (info > 0 || rcond == 0.0 || rcond < rcond_min) {
    lth_status st = (info > 0 || rcond == 0.0) ? LTH_ESING : LTH_ECOND;
    lth_error_set(err, st, "%s %d x %d matrix", st == LTH_ESING ? "singular" : "ill-conditioned", n,
                  n);
    if (err) {
      err->has_cond = 1;
      err->cond = c;
    }
    return st;
  }
  return LTH_OK;
}

/* Forward and back substitution with LAPACK's factors L (unit lower) and U
 * of order n, column by column as the reference dtrsv orders them.  OpenBLAS
 * 0.3.21's dtrsv takes the process-wide buffer lock on every call (perf: with
 * two threads decomposing, 10 % of the time in that lock and the threaded
 * table build slower than the serial one); these solves are a few dozen
 * operations. */
static void lu_substitute(int n, const double *lu, int ld, double *x) {
  for (int j = 0; j < n; j++) {
    double xj = x[j];
    if (xj != 0.0) {
      for (int i = j + 1; i < n; i++) x[i] -= xj * lu[i + (size_t)j * ld];
    }
  }
  for (int j = n - 1; j >= 0; j--) {
    if (x[j] != 0.0) {
      x[j] /= lu[j + (size_t)j * ld];
      double xj = x[j];
      for (int i = 0; i < j; i++) x[i] -= xj * lu[i + (size_t)j * ld];
    }
  }
}

/* x <- M_0^{-1} x for nrhs columns.  Small systems use the LU factors through
 * LAPACK's row interchanges (dlaswp) and the substitutions above: dgetrs goes
 * through dtrsm, whose OpenBLAS buffer lock serialises threads (see
 * LTH_SMALL_PRODUCT). */
static lapack_int lu_apply(const lth_jet_lu *lu, int nrhs, double *x, int ldx) {
  int n = lu->n;
  if ((long)n * n * nrhs > LTH_SMALL_PRODUCT) {
    return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, nrhs, lu->lu, lu->nmax, lu->ipiv, x, ldx);
  }
  lapack_int info = LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, nrhs, x, ldx, 1, n, lu->ipiv, 1);
  for (int j = 0; info == 0 && j < nrhs; j++) {
    lu_substitute(n, lu->lu, lu->nmax, x + (size_t)j * ldx);
  }
  return info;
}

/* 1 / (||M_0||_1 ||M_0^{-1}||_1) with M_0^{-1} from the LU factors (the
 * columns of the identity through lu_apply): the exact reciprocal condition
 * number up to rounding, where dgecon gives an estimate that is never larger
 * than ||M_0^{-1}||_1; 0 if the inverse is not finite (as a dgecon failure). */
static double exact_rcond(const lth_jet_lu *lu, double anorm) {
  int n = lu->n;
  double *x = lu->work; /* n^2 <= 4 n doubles for n <= 4 */
  for (int k = 0; k < n * n; k++) x[k] = k % (n + 1) == 0 ? 1.0 : 0.0;
  if (lu_apply(lu, n, x, n) != 0) return 0.0;
  double inv = 0.0;
  for (int j = 0; j < n; j++) {
    double c = 0.0;
    for (int i = 0; i < n; i++) c += fabs(x[i + (size_t)j * n]);
    inv = c > inv || c != c ? c : inv;
  }
  double rc = 1.0 / (anorm * inv);
  return isfinite(inv) && rc > 0.0 ? rc : 0.0;
}

/* X_m = M_0^{-1} (N_m - sum_{j=1}^m M_j X_{m-j}); docs/theory.md section 3. */
lth_status lth_jet_lu_solve(const lth_jet_lu *lu, const lth_jet *N, lth_jet *X, lth_error *err) {
  const lth_jet *M = &lu->M;
  if (N->rows != lu->n || X->rows != lu->n || X->cols != N->cols) {
    return lth_error_set(err, LTH_EDIM,
                         "jet solve: %d x %d system, right side %d x %d, result "
                         "%d x %d",
                         lu->n, lu->n, N->rows, N->cols, X->rows, X->cols);
  }
  int K = imin(imin(M->order, N->order), X->maxorder);
  if (X != N) {
    lth_status st = lth_jet_copy(X, N, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  X->order = K;
  if (lu->n == 0 || X->cols == 0) {
    return LTH_OK;
  }
  for (int m = 0; m <= K; m++) {
    double *xm = LTH_JET_COEF(X, m);
    for (int j = 1; j <= m; j++) {
      coef_gemm(CblasNoTrans, CblasNoTrans, lu->n, X->cols, lu->n, -1.0, LTH_JET_COEF(M, j), M->ld,
                LTH_JET_COEF(X, m - j), X->ld, xm, X->ld);
    }
    lapack_int info = lu_apply(lu, X->cols, xm, X->ld);
    if (info != 0) {
      return lth_error_set(err, LTH_ELAPACK, "dgetrs argument %d invalid", (int)-info);
    }
  }
  return LTH_OK;
}

lth_status lth_jet_lu_inverse(const lth_jet_lu *lu, lth_jet *X, lth_error *err) {
  if (X->rows != lu->n || X->cols != lu->n) {
    return lth_error_set(err, LTH_EDIM, "jet inverse of a %d x %d matrix into %d x %d", lu->n,
                         lu->n, X->rows, X->cols);
  }
  lth_jet_set_identity(X, imin(lu->M.order, X->maxorder));
  return lth_jet_lu_solve(lu, X, X, err);
}

lth_status lth_jet_solve(const lth_jet *M, const lth_jet *N, lth_jet *X, double rcond_min,
                         double *cond, lth_error *err) {
  lth_jet_lu *lu = lth_jet_lu_alloc(M->rows, err);
  if (!lu) {
    return LTH_ENOMEM;
  }
  lth_status st = lth_jet_lu_factor(lu, M, rcond_min, cond, err);
  if (st == LTH_OK) {
    st = lth_jet_lu_solve(lu, N, X, err);
  }
  lth_jet_lu_free(lu);
  return st;
}

lth_status lth_jet_inverse(const lth_jet *M, lth_jet *X, double rcond_min, double *cond,
                           lth_error *err) {
  lth_jet_lu *lu = lth_jet_lu_alloc(M->rows, err);
  if (!lu) {
    return LTH_ENOMEM;
  }
  lth_status st = lth_jet_lu_factor(lu, M, rcond_min, cond, err);
  if (st == LTH_OK) {
    st = lth_jet_lu_inverse(lu, X, err);
  }
  lth_jet_lu_free(lu);
  return st;
}

lth_status lth_jet_cond(const lth_jet *M, double *cond, lth_error *err) {
  lth_jet_lu *lu = lth_jet_lu_alloc(M->rows, err);
  if (!lu) {
    return LTH_ENOMEM;
  }
  lth_status st = lth_jet_lu_factor(lu, M, 0.0, cond, err);
  lth_jet_lu_free(lu);
  return st;
}
