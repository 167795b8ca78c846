/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jet source M(t)^{-1} X(t) (include/lth/source.h): how a mass matrix is
 * eliminated exactly.  At t the source fills the jets of M and X, factors M_0
 * once (dgetrf) and runs the jet recurrence of docs/theory.md section 3,
 *     Y_m = M_0^{-1} (X_m - sum_{j=1}^m M_j Y_{m-j}),
 * so every Taylor coefficient of M^{-1} X is exact to rounding; nothing is
 * differenced.  All scratch lives in the caller's work array (the source is
 * filled concurrently by grid threads), so nothing is allocated per point.
 *
 * Conditioning is judged relative to the size of M on the whole interval:
 * with mscale = max_t ||M(t)||_1, a point where mscale * ||M(t)^{-1}||_1
 * exceeds cond_max is an error naming t, so a mass matrix that shrinks
 * towards singularity (M = (1 - t) I near t = 1) cannot slip through on the
 * grounds that cond(M(t)) itself is 1.
 *
 * A diagonal M (a sparse source whose pattern is its diagonal, as the
 * equation form's masses m x'' and a data file's diagonal mm() mass are) of
 * more than DIAG_MIN rows is solved entry by entry, the same recurrence
 * with M_0^{-1} a division: O(nnz(X) order^2), nothing n x n; M^{-1} X then
 * keeps X's pattern (a sparse source when X is one).  Smaller ones keep the
 * LAPACK path (their results stay those of before; the two agree to
 * rounding).
 */
#include "lth/defaults.h"
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/source.h"
#include "csc.h"
#include "source_rebind.h"

#ifdef LTH_HAVE_KLU
#include <klu.h>
#endif

#define SMALL    4096 /* n*n*k below this: level-2 BLAS (see lib/jet/jet.c's SMALL_PRODUCT) */
#define DIAG_MIN 64   /* a diagonal M of more rows is solved entry by entry */
/* Any other M is factored densely (n x n per point and per Taylor order of
 * its jet, and M^{-1} X is a dense n x k jet): beyond this many entries of
 * n x n it is refused before anything is allocated (the budget of a data
 * file's stored entries, lib/reader), naming what is missing, instead of
 * running out of memory or for hours. */
#define DENSE_MAX LTH_DEFAULT_DENSE_MASS_MAX_ENTRIES

typedef struct solve_state {
  const lth_source *M; /* n x n, shared (owned when M_own, see solve_rebind) */
  const lth_source *X; /* n x k, owned when X_own (always, from lth_source_solve) */
  lth_source *M_own, *X_own;
  int n, k;
  double mscale, cond_max;
  char label[128];
} solve_state;

static void solve_destroy(void *state) {
  solve_state *ss = state;
  if (ss) {
    lth_source_free(ss->M_own);
    lth_source_free(ss->X_own);
    free(ss);
  }
}

static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

/* Doubles: M jet, LU, pivots (2n), dgecon work (4n) and iwork (2n), then the
 * sources' own scratch. */
static int too_large(int n) { return (double)n * (double)n > DENSE_MAX; }

static size_t solve_work_size(const void *state, int order) {
  const solve_state *ss = state;
  size_t n = (size_t)ss->n;
  if (too_large(ss->n)) {
    return 1; /* solve_fill refuses */
  }
  size_t sub = max_sz(lth_source_work_size(ss->M, order), lth_source_work_size(ss->X, order));
  return n * n * (size_t)(order + 1) + n * n + 8 * n + sub + 1;
}

/* The refusal of a dense solve beyond DENSE_MAX entries of n x n. */
static lth_status dense_refusal(const char *label, int n, lth_error *err) {
  return lth_error_set(err, LTH_ENOMEM,
                       "the mass matrix %s (%d x %d) is not diagonal, and the dense path solves "
                       "such a mass matrix densely (%.3g entries per Taylor order, over the %.3g "
                       "allowed): at this size only the operator path takes it (--path operator; "
                       "a constant sparse mass matrix, factored by SuiteSparse KLU), or a "
                       "diagonal mass matrix",
                       label, n, n, (double)n * (double)n, DENSE_MAX);
}

static void solve_domain(const void *state, double *lo, double *hi) {
  const solve_state *ss = state;
  double a, b;
  lth_source_domain(ss->M, lo, hi);
  lth_source_domain(ss->X, &a, &b);
  *lo = a > *lo ? a : *lo;
  *hi = b < *hi ? b : *hi;
}

static double norm1(const double *a, int n, int ld) {
  double mx = 0.0;
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
      s += fabs(a[i + (size_t)j * ld]);
    }
    mx = s > mx ? s : mx;
  }
  return mx;
}

/* LU of M_0 into lu (ld n) with pivots; *inv_norm = estimate of ||M_0^{-1}||_1
 * (INFINITY if singular), *sign = sign of det M_0. */
static void factor(const double *m0, int ld, int n, double *lu, lapack_int *ipiv, double *cw,
                   lapack_int *iw, double *inv_norm, int *sign) {
  for (int j = 0; j < n; j++) {
    memcpy(lu + (size_t)j * n, m0 + (size_t)j * ld, (size_t)n * sizeof *lu);
  }
  double anorm = norm1(lu, n, n), rcond = 0.0;
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, lu, n, ipiv);
  if (info == 0 && anorm > 0.0 &&
      LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, lu, n, anorm, &rcond, cw, iw) != 0) {
    rcond = 0.0;
  }
  *inv_norm = info == 0 && rcond > 0.0 && isfinite(rcond) ? 1.0 / (rcond * anorm) : INFINITY;
  *sign = 1;
  for (int i = 0; info == 0 && i < n; i++) {
    *sign = (lu[(size_t)i * n + i] < 0.0) != (ipiv[i] != i + 1) ? -*sign : *sign;
  }
}

/* The error for a singular or ill-conditioned M at t. */
static lth_status cond_error(const char *label, double t, double inv_norm, double mscale,
                             double anorm, double cond_max, lth_error *err) {
  double rel = (mscale > 0.0 ? mscale : anorm) * inv_norm;
  lth_status st;
  if (!isfinite(rel)) {
    st =
        lth_error_set_t(err, LTH_ESING, t, "the mass matrix %s is singular at t = %.10g", label, t);
  } else {
    st = lth_error_set_t(err, LTH_ECOND, t,
                         "the mass matrix %s is nearly singular at t = %.10g: its condition "
                         "relative to its size on the interval, max||M|| ||M(t)^-1|| = %.3g, "
                         "exceeds %.3g",
                         label, t, rel, cond_max);
  }
  if (err) {
    err->has_cond = 1;
    err->cond = rel;
  }
  return st;
}

/* y <- M_0^{-1} y for k columns (ld ldy), from the factors. */
static void lu_apply(const double *lu, const lapack_int *ipiv, int n, int k, double *y, int ldy) {
  if ((long)n * n * k > SMALL) {
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, k, lu, n, ipiv, y, ldy);
    return;
  }
  LAPACKE_dlaswp_work(LAPACK_COL_MAJOR, k, y, ldy, 1, n, ipiv, 1);
  for (int j = 0; j < k; j++) {
    double *yj = y + (size_t)j * ldy;
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, n, lu, n, yj, 1);
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, n, lu, n, yj, 1);
  }
}

/* y -= A x with A n x n (ld n), x and y n x k (ld ldy). */
static void sub_product(const double *A, int n, int k, const double *x, double *y, int ldy) {
  if ((long)n * n * k > SMALL) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, k, n, -1.0, A, n, x, ldy, 1.0, y,
                ldy);
    return;
  }
  for (int j = 0; j < k; j++) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A, n, x + (size_t)j * ldy, 1, 1.0,
                y + (size_t)j * ldy, 1);
  }
}

static lth_status solve_fill(const void *state, double t, int order, lth_jet *out, double *work,
                             lth_error *err) {
  const solve_state *ss = state;
  int n = ss->n, k = ss->k;
  if (too_large(n)) {
    return dense_refusal(ss->label, n, err);
  }
  size_t nn = (size_t)n * (size_t)n;
  double *mc = work, *lu = mc + nn * (size_t)(order + 1), *cw = lu + nn + 2 * (size_t)n;
  lapack_int *ipiv = (lapack_int *)(void *)(lu + nn); /* 2n doubles hold n pivots */
  lapack_int *iw = (lapack_int *)(void *)(cw + 4 * (size_t)n);
  double *sub = cw + 6 * (size_t)n;
  lth_jet M = lth_jet_wrap(mc, n, n, n > 0 ? n : 1, nn, order);
  lth_status st = lth_source_fill(ss->M, t, order, &M, sub, err);
  if (st == LTH_OK) {
    st = lth_source_fill(ss->X, t, order, out, sub, err);
  }
  if (st != LTH_OK || n == 0) {
    return st;
  }
  double inv_norm;
  int sign;
  factor(mc, n, n, lu, ipiv, cw, iw, &inv_norm, &sign);
  double anorm = norm1(mc, n, n), scale = ss->mscale > 0.0 ? ss->mscale : anorm;
  if (!(scale * inv_norm <= ss->cond_max)) {
    return cond_error(ss->label, t, inv_norm, ss->mscale, anorm, ss->cond_max, err);
  }
  for (int m = 0; m <= order; m++) {
    double *ym = LTH_JET_COEF(out, m);
    for (int j = 1; j <= m; j++) {
      sub_product(mc + nn * (size_t)j, n, k, LTH_JET_COEF(out, m - j), ym, out->ld);
    }
    lu_apply(lu, ipiv, n, k, ym, out->ld);
  }
  return LTH_OK;
}

/* ---- a diagonal M ---- */

/* 1 if M is a sparse source of more than DIAG_MIN rows whose pattern is its
 * diagonal (entry j in column j, row j). */
static int is_diagonal(const lth_source *M) {
  int n = lth_source_rows(M), nnz = 0;
  const int *cp, *ri;
  if (n <= DIAG_MIN || n != lth_source_cols(M) || !lth_source_is_sparse(M) ||
      lth_source_csc_pattern(M, &nnz, &cp, &ri, NULL) != LTH_OK || nnz != n) {
    return 0;
  }
  for (int j = 0; j < n; j++) {
    if (cp[j] != j || ri[j] != j) {
      return 0;
    }
  }
  return 1;
}

/* ||M_0||_1 and ||M_0^{-1}||_1 (INFINITY if a zero is on the diagonal) and
 * the sign of det M_0, from d (n diagonal entries). */
static void diag_norms(const double *d, int n, double *anorm, double *inv_norm, int *sign) {
  *anorm = 0.0;
  *inv_norm = 0.0;
  *sign = 1;
  for (int i = 0; i < n; i++) {
    *anorm = fmax(*anorm, fabs(d[i]));
    *inv_norm = d[i] == 0.0 ? INFINITY : fmax(*inv_norm, 1.0 / fabs(d[i]));
    *sign = d[i] < 0.0 ? -*sign : *sign;
  }
}

/* Doubles: M's diagonal (n per order), then the sources' scratch. */
static size_t diag_work_size(const void *state, int order) {
  const solve_state *ss = state;
  size_t sub = max_sz(lth_source_work_size(ss->M, order), lth_source_work_size(ss->X, order));
  return (size_t)ss->n * (size_t)(order + 1) + sub + 1;
}

/* M's diagonal at t, orders 0..order, into d (stride n), checked. */
static lth_status diag_fill_m(const solve_state *ss, double t, int order, double *d, double *sub,
                              lth_error *err) {
  lth_status st = lth_source_fill_csc(ss->M, t, order, d, (size_t)ss->n, sub, err);
  if (st != LTH_OK) {
    return st;
  }
  double anorm, inv_norm;
  int sign;
  diag_norms(d, ss->n, &anorm, &inv_norm, &sign);
  double scale = ss->mscale > 0.0 ? ss->mscale : anorm;
  if (!(scale * inv_norm <= ss->cond_max)) {
    return cond_error(ss->label, t, inv_norm, ss->mscale, anorm, ss->cond_max, err);
  }
  return LTH_OK;
}

/* y_m <- (y_m - sum_{j=1}^m d_j y_{m-j}) / d_0 for one entry whose
 * coefficients are y[m*stride], on row i of d (stride n). */
static void diag_recur(const double *d, size_t n, int i, int order, double *y, size_t stride) {
  for (int m = 0; m <= order; m++) {
    double v = y[(size_t)m * stride];
    for (int j = 1; j <= m; j++) {
      v -= d[(size_t)j * n + (size_t)i] * y[(size_t)(m - j) * stride];
    }
    y[(size_t)m * stride] = v / d[i];
  }
}

static lth_status diag_fill(const void *state, double t, int order, lth_jet *out, double *work,
                            lth_error *err) {
  const solve_state *ss = state;
  double *d = work, *sub = work + (size_t)ss->n * (size_t)(order + 1);
  lth_status st = diag_fill_m(ss, t, order, d, sub, err);
  if (st == LTH_OK) {
    st = lth_source_fill(ss->X, t, order, out, sub, err);
  }
  for (int c = 0; c < ss->k && st == LTH_OK; c++) {
    for (int i = 0; i < ss->n; i++) {
      diag_recur(d, (size_t)ss->n, i, order, &LTH_JET_AT(out, 0, i, c), out->stride);
    }
  }
  return st;
}

static int diag_pattern(const void *state, const int **colptr, const int **rowind) {
  const solve_state *ss = state;
  int nnz = 0;
  lth_source_csc_pattern(ss->X, &nnz, colptr, rowind, NULL);
  return nnz;
}

static lth_status diag_fill_csc(const void *state, double t, int order, double *values,
                                size_t stride, double *work, lth_error *err) {
  const solve_state *ss = state;
  double *d = work, *sub = work + (size_t)ss->n * (size_t)(order + 1);
  lth_status st = diag_fill_m(ss, t, order, d, sub, err);
  if (st == LTH_OK) {
    st = lth_source_fill_csc(ss->X, t, order, values, stride, sub, err);
  }
  int nnz = 0;
  const int *cp, *ri;
  if (st == LTH_OK) {
    nnz = diag_pattern(state, &cp, &ri);
  }
  for (int p = 0; p < nnz && st == LTH_OK; p++) {
    diag_recur(d, (size_t)ss->n, ri[p], order, values + p, stride);
  }
  return st;
}

/* M^{-1} X is resolved where M and X are (M's conditioning is checked
 * apart, lth_source_solve_scan). */
static int solve_parts(const void *state, const lth_source **parts) {
  const solve_state *ss = state;
  parts[0] = ss->M;
  parts[1] = ss->X;
  return 2;
}

static const lth_source_type solve_types[2] = {
    {.name = "mass-matrix solve",
     .fill = solve_fill,
     .work_size = solve_work_size,
     .domain = solve_domain,
     .destroy = solve_destroy,
     .exact = 1,
     .parts = solve_parts},
    {.name = "mass-matrix solve",
     .fill = solve_fill,
     .work_size = solve_work_size,
     .domain = solve_domain,
     .destroy = solve_destroy,
     .exact = 0,
     .parts = solve_parts},
};

/* [X sparse][exact]: a diagonal M */
#define DIAG_TYPE(sparse, ex)                                                                      \
  {                                                                                                \
    .name = "mass-matrix solve", .fill = diag_fill, .work_size = diag_work_size,                   \
    .domain = solve_domain, .destroy = solve_destroy, .exact = ex, .parts = solve_parts,           \
    .csc_pattern = sparse ? diag_pattern : NULL, .fill_csc = sparse ? diag_fill_csc : NULL         \
  }
static const lth_source_type diag_types[2][2] = {{DIAG_TYPE(0, 0), DIAG_TYPE(0, 1)},
                                                 {DIAG_TYPE(1, 0), DIAG_TYPE(1, 1)}};

static lth_status solve_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err);

/* M^{-1} X owning M_own and X_own (each NULL or the source beside it), also
 * on failure. */
static lth_source *solve_new(const lth_source *M, const lth_source *X, lth_source *M_own,
                             lth_source *X_own, double mscale, double cond_max, const char *label,
                             lth_error *err) {
  solve_state *ss = calloc(1, sizeof *ss);
  if (!ss) {
    lth_source_free(M_own);
    lth_source_free(X_own);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a solve source");
    return NULL;
  }
  ss->M = M;
  ss->X = X;
  ss->M_own = M_own;
  ss->X_own = X_own;
  ss->n = lth_source_rows(M);
  ss->k = lth_source_cols(X);
  ss->mscale = mscale > 0.0 ? mscale : 0.0;
  ss->cond_max = cond_max > 0.0 ? cond_max : LTH_SOURCE_SOLVE_COND_MAX;
  snprintf(ss->label, sizeof ss->label, "%s", label ? label : "M");
  int exact = lth_source_is_exact(M) && lth_source_is_exact(X);
  const lth_source_type *ty =
      is_diagonal(M) ? &diag_types[lth_source_is_sparse(X)][exact] : &solve_types[exact ? 0 : 1];
  lth_source *src = lth_source_new(ty, ss, ss->n, ss->k, err);
  lth_source_set_rebind(src, solve_rebind);
  return src;
}

/* The same solve reading the replacements of M's and X's leaves. */
static lth_status solve_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err) {
  const solve_state *ss = state;
  const lth_source *M, *X;
  lth_source *M_own, *X_own;
  lth_status st = lth_source_rebind(ss->M, map, ctx, &M, &M_own, err);
  if (st != LTH_OK) {
    return st;
  }
  st = lth_source_rebind(ss->X, map, ctx, &X, &X_own, err);
  if (st != LTH_OK || (M == ss->M && X == ss->X)) {
    lth_source_free(M_own);
    return st;
  }
  *out = solve_new(M, X, M_own, X_own, ss->mscale, ss->cond_max, ss->label, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

lth_source *lth_source_solve(const lth_source *M, lth_source *X, double mscale, double cond_max,
                             const char *label, lth_error *err) {
  if (!M || !X || lth_source_rows(M) != lth_source_cols(M) ||
      lth_source_rows(X) != lth_source_rows(M)) {
    lth_error_set(err, LTH_EDIM, "lth_source_solve: M must be square with as many rows as X");
    lth_source_free(X);
    return NULL;
  }
  return solve_new(M, X, NULL, X, mscale, cond_max, label, err);
}

/* The judgement of one scan point of a mass matrix: its condition against
 * cond_max, and a sign change of its determinant since the point before. */
static lth_status scan_point(const char *label, const double *times, size_t i, double inv_norm,
                             double scale, double anorm, double cond_max, int sign,
                             int prev_sign, lth_error *err) {
  if (!(scale * inv_norm <= cond_max)) {
    return cond_error(label, times[i], inv_norm, scale, anorm, cond_max, err);
  }
  if (prev_sign && sign != prev_sign) {
    return lth_error_set_t(err, LTH_ESING, times[i],
                           "the mass matrix %s is singular between t = %.10g and t = %.10g "
                           "(its determinant changes sign)",
                           label, times[i - 1], times[i]);
  }
  return LTH_OK;
}

/* lth_source_solve_scan for a diagonal M: the same checks on its diagonal. */
static lth_status diag_scan(const lth_source *M, const double *times, size_t n, double cond_max,
                            const char *label, double *mscale, lth_error *err) {
  int m = lth_source_rows(M);
  size_t wn = lth_source_work_size(M, 0);
  double *d = malloc(((size_t)m + wn + 1) * sizeof *d);
  if (!d) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory checking a mass matrix");
  }
  lth_status st = LTH_OK;
  double scale = 0.0;
  for (int pass = 0; pass < 2 && st == LTH_OK; pass++) {
    int prev_sign = 0;
    for (size_t i = 0; i < n && st == LTH_OK; i++) {
      if ((st = lth_source_fill_csc(M, times[i], 0, d, (size_t)m, d + m, err)) != LTH_OK) {
        break;
      }
      double anorm, inv_norm;
      int sign;
      diag_norms(d, m, &anorm, &inv_norm, &sign);
      if (pass == 0) {
        scale = anorm > scale ? anorm : scale;
      } else {
        st = scan_point(label, times, i, inv_norm, scale, anorm, cond_max, sign, prev_sign, err);
      }
      prev_sign = sign;
    }
  }
  free(d);
  if (mscale) {
    *mscale = scale;
  }
  return st;
}

int lth_source_solve_parts(const lth_source *src, const lth_source **M, const lth_source **X,
                           const char **label) {
  const lth_source_type *ty = src ? lth_source_get_type(src) : NULL;
  if (ty != &solve_types[0] && ty != &solve_types[1]) {
    return 0;
  }
  const solve_state *ss = lth_source_state(src);
  *M = ss->M;
  *X = ss->X;
  if (label) {
    *label = ss->label;
  }
  return 1;
}

lth_status lth_source_solve_fits(const lth_source *src, lth_error *err) {
  const lth_source *M, *X;
  const char *label;
  if (lth_source_solve_parts(src, &M, &X, &label) && too_large(lth_source_rows(M))) {
    return dense_refusal(label, lth_source_rows(M), err);
  }
  return LTH_OK;
}

/* ---- a sparse M that is not diagonal: the scan by SuiteSparse KLU ---- */

#ifdef LTH_HAVE_KLU
/* The parity of a permutation p[0..n) (0 even, 1 odd), marking visited
 * entries in seen (n bytes). */
static int parity(const int *p, int n, char *seen) {
  int odd = 0;
  memset(seen, 0, (size_t)n);
  for (int i = 0; i < n; i++) {
    int len = 0;
    for (int j = i; !seen[j]; j = p[j], len++) seen[j] = 1;
    odd ^= len > 0 && (len - 1) % 2;
  }
  return odd;
}

/* ||M_0^{-1}||_1 (klu_condest's Hager/Higham estimate, as dgecon's on the
 * dense path; INFINITY if singular) and the sign of det M_0 from the LU of
 * P R^{-1} M_0 Q (R > 0 the row scaling, L unit lower triangular). */
static void klu_norms(const int *cp, const int *ri, double *v, int n, klu_symbolic *ks,
                      klu_common *kc, char *seen, double anorm, double *inv_norm, int *sign) {
  *inv_norm = INFINITY;
  *sign = 1;
  klu_numeric *kn = klu_factor((int *)cp, (int *)ri, v, ks, kc);
  if (kn && klu_condest((int *)cp, v, ks, kn, kc) && anorm > 0.0 && isfinite(kc->condest)) {
    *inv_norm = kc->condest / anorm;
    const double *ud = kn->Udiag;
    int odd = parity(kn->Pnum, n, seen) ^ parity(ks->Q, n, seen);
    for (int i = 0; i < n; i++) {
      odd ^= ud[i] < 0.0;
      *inv_norm = ud[i] == 0.0 ? INFINITY : *inv_norm;
    }
    *sign = odd ? -1 : 1;
  }
  if (kn) {
    klu_free_numeric(&kn, kc);
  }
}


lth_status lth_source_solve_sparse(const lth_source *M, double t, double *Y, int ld, int k,
                                   double *inv_norm, lth_error *err) {
  int n = lth_source_rows(M), nnz = 0;
  const int *cp, *ri;
  if (!lth_source_is_sparse(M) || lth_source_csc_pattern(M, &nnz, &cp, &ri, NULL) != LTH_OK) {
    return lth_error_set(err, LTH_EINVAL, "lth_source_solve_sparse: M is not a sparse source");
  }
  size_t wn = lth_source_work_size(M, 0);
  double *v = malloc(((size_t)nnz + wn + 1) * sizeof *v);
  klu_common kc;
  klu_defaults(&kc);
  klu_symbolic *ks = v ? klu_analyze(n, (int *)cp, (int *)ri, &kc) : NULL;
  lth_status st = ks ? lth_source_fill_csc(M, t, 0, v, (size_t)nnz, v + nnz, err) : LTH_ENOMEM;
  klu_numeric *kn = st == LTH_OK ? klu_factor((int *)cp, (int *)ri, v, ks, &kc) : NULL;
  if (st == LTH_OK && (!kn || !klu_condest((int *)cp, v, ks, kn, &kc))) {
    st = lth_error_set_t(err, LTH_ESING, t, "the mass matrix is singular at t = %.10g", t);
  }
  if (st == LTH_OK) {
    double anorm = lth_csc_norm1(cp, v, n);
    *inv_norm = anorm > 0.0 ? kc.condest / anorm : INFINITY;
    if (k > 0 && !klu_solve(ks, kn, ld, k, Y, &kc)) {
      st = lth_error_set_t(err, LTH_ESING, t, "the mass matrix is singular at t = %.10g", t);
    }
  }
  if (kn) klu_free_numeric(&kn, &kc);
  if (ks) klu_free_symbolic(&ks, &kc);
  free(v);
  if (st == LTH_ENOMEM && err && err->status == LTH_OK) {
    lth_error_set(err, LTH_ENOMEM, "out of memory solving with a mass matrix");
  }
  return st;
}

/* lth_source_solve_scan for a sparse M: the checks of the dense scan with a
 * sparse LU, O(nnz of the factors) per time instead of n^3. */
static lth_status sparse_scan(const lth_source *M, const double *times, size_t n, double cond_max,
                              const char *label, double *mscale, lth_error *err) {
  int m = lth_source_rows(M), nnz = 0;
  const int *cp, *ri;
  lth_status st = lth_source_csc_pattern(M, &nnz, &cp, &ri, err);
  if (st != LTH_OK) {
    return st;
  }
  size_t wn = lth_source_work_size(M, 0);
  /* v: M at t (nnz), the values last factored (nnz), the fill's scratch */
  double *v = malloc((2 * (size_t)nnz + wn + 1) * sizeof *v), *last = v ? v + nnz : NULL;
  char *seen = malloc((size_t)m + 1);
  klu_common kc;
  klu_defaults(&kc);
  klu_symbolic *ks = v && seen ? klu_analyze(m, (int *)cp, (int *)ri, &kc) : NULL;
  if (!ks) {
    free(v);
    free(seen);
    return lth_error_set(err, LTH_ENOMEM, "out of memory checking the mass matrix %s", label);
  }
  double scale = 0.0, inv_norm = INFINITY;
  int sign = 1, have = 0;
  for (int pass = 0; pass < 2 && st == LTH_OK; pass++) {
    int prev_sign = 0;
    for (size_t i = 0; i < n && st == LTH_OK; i++) {
      if ((st = lth_source_fill_csc(M, times[i], 0, v, (size_t)nnz, last + nnz, err)) != LTH_OK) {
        break;
      }
      double anorm = lth_csc_norm1(cp, v, m);
      if (pass == 0) {
        scale = anorm > scale ? anorm : scale;
        continue;
      }
      /* the same values as at the time before (a constant M): the same LU */
      if (!have || memcmp(v, last, (size_t)nnz * sizeof *v) != 0) {
        klu_norms(cp, ri, v, m, ks, &kc, seen, anorm, &inv_norm, &sign);
        memcpy(last, v, (size_t)nnz * sizeof *v);
        have = 1;
      }
      st = scan_point(label, times, i, inv_norm, scale, anorm, cond_max, sign, prev_sign, err);
      prev_sign = sign;
    }
  }
  klu_free_symbolic(&ks, &kc);
  free(v);
  free(seen);
  if (mscale) {
    *mscale = scale;
  }
  return st;
}
#else
lth_status lth_source_solve_sparse(const lth_source *M, double t, double *Y, int ld, int k,
                                   double *inv_norm, lth_error *err) {
  (void)M, (void)t, (void)Y, (void)ld, (void)k, (void)inv_norm;
  return lth_error_set(err, LTH_EINVAL,
                       "lth_source_solve_sparse needs SuiteSparse KLU (CMake option "
                       "LTH_SUITESPARSE)");
}
#endif

lth_status lth_source_solve_scan(const lth_source *M, const double *times, size_t n,
                                 double cond_max, const char *label, double *mscale,
                                 lth_error *err) {
  if (is_diagonal(M)) {
    return diag_scan(M, times, n, cond_max > 0.0 ? cond_max : LTH_SOURCE_SOLVE_COND_MAX, label,
                     mscale, err);
  }
#ifdef LTH_HAVE_KLU
  if (lth_source_is_sparse(M) && lth_source_rows(M) > LTH_DEFAULT_SPARSE_MASS_MIN_ROWS) {
    return sparse_scan(M, times, n, cond_max > 0.0 ? cond_max : LTH_SOURCE_SOLVE_COND_MAX,
                       label ? label : "M", mscale, err);
  }
#endif
  int m = lth_source_rows(M);
  if ((double)m * (double)m > DENSE_MAX) {
    return lth_error_set(err, LTH_ENOMEM,
                         "the mass matrix %s (%d x %d) is not diagonal and %s, so it is solved "
                         "densely (%.3g entries per Taylor order, over the %.3g allowed): at this "
                         "size only a diagonal mass matrix is taken (the unknowns' own "
                         "derivatives, one per equation, or a diagonal mm(...) file), or a sparse "
                         "one in a library built with SuiteSparse KLU",
                         label ? label : "M", m, m,
                         lth_source_is_sparse(M) ? "this library has no SuiteSparse KLU"
                                                 : "not sparse",
                         (double)m * (double)m, DENSE_MAX);
  }
  size_t nn = (size_t)m * (size_t)m, wn = lth_source_work_size(M, 0);
  double *w = malloc((2 * nn + 8 * (size_t)m + wn + 1) * sizeof *w);
  if (!w) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory checking a mass matrix");
  }
  double *mc = w, *lu = w + nn, *cw = lu + nn + 2 * (size_t)m, *sub = cw + 6 * (size_t)m;
  lapack_int *ipiv = (lapack_int *)(void *)(lu + nn), *iw = (lapack_int *)(void *)(cw + 4 * m);
  lth_jet J = lth_jet_wrap(mc, m, m, m > 0 ? m : 1, nn, 0);
  lth_status st = LTH_OK;
  double scale = 0.0;
  cond_max = cond_max > 0.0 ? cond_max : LTH_SOURCE_SOLVE_COND_MAX;
  for (int pass = 0; pass < 2 && st == LTH_OK && m > 0; pass++) {
    int prev_sign = 0;
    for (size_t i = 0; i < n && st == LTH_OK; i++) {
      if ((st = lth_source_fill(M, times[i], 0, &J, sub, err)) != LTH_OK) {
        break;
      }
      double anorm = norm1(mc, m, m), inv_norm;
      if (pass == 0) {
        scale = anorm > scale ? anorm : scale;
        continue;
      }
      int sign;
      factor(mc, m, m, lu, ipiv, cw, iw, &inv_norm, &sign);
      st = scan_point(label, times, i, inv_norm, scale, anorm, cond_max, sign, prev_sign, err);
      prev_sign = sign;
    }
  }
  free(w);
  if (mscale) {
    *mscale = scale;
  }
  return st;
}
