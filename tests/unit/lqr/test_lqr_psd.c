/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sparse Cholesky test of positive semidefiniteness (lib/lqr/lqr_psd.c,
 * lth_lqr_psd_sparse) against dense LAPACK eigenvalues, on random sparse
 * symmetric matrices placed near the boundary it decides, lambda_min = -delta:
 * with the smallest eigenvalue at -delta/4 the matrix is accepted, at -4 delta
 * it is refused, and then the witness's Rayleigh quotient lies in
 * [lambda_min, -delta/2] (in exact arithmetic in [lambda_min, -delta]).  The
 * margin, a factor 4 either side of delta = 4 n eps ||H||_1, is 3 n eps
 * ||H||_1 at least: above the eigenvalue's rounding (dsyev: a small multiple
 * of eps ||H||_2) and Cholesky's backward error (about sqrt(n) eps ||H||
 * here, n <= 60) by a factor > 4 on any correct BLAS. */
#include <check.h>
#include <float.h>
#include <gsl/gsl_rng.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lqr/lqr_impl.h"

typedef struct csc {
  int n, *cp, *ri;
  double *v;
} csc;

static void csc_from_dense(csc *S, int n, const double *a) {
  S->n = n;
  S->cp = malloc(sizeof(int) * (size_t)(n + 1));
  S->ri = malloc(sizeof(int) * (size_t)(n * n + 1));
  S->v = malloc(sizeof(double) * (size_t)(n * n + 1));
  int q = 0;
  for (int j = 0; j < n; j++) {
    S->cp[j] = q;
    for (int i = 0; i < n; i++)
      if (a[i + j * n] != 0.0) S->ri[q] = i, S->v[q++] = a[i + j * n];
  }
  S->cp[n] = q;
}

static void csc_free(csc *S) {
  free(S->cp);
  free(S->ri);
  free(S->v);
}

/* Smallest eigenvalue of the symmetric a (n x n). */
static double lambda_min(int n, const double *a) {
  double *c = malloc(sizeof(double) * (size_t)(n * n)), *w = malloc(sizeof(double) * (size_t)n);
  memcpy(c, a, sizeof(double) * (size_t)(n * n));
  ck_assert_int_eq(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', n, c, n, w), 0);
  double l = w[0];
  free(c);
  free(w);
  return l;
}

/* A random sparse symmetric n x n matrix (density about p off the diagonal,
 * entries in [-1, 1], the diagonal present). */
static void random_sym(gsl_rng *r, int n, double p, double *a) {
  memset(a, 0, sizeof(double) * (size_t)(n * n));
  for (int j = 0; j < n; j++) {
    a[j + j * n] = 2.0 * gsl_rng_uniform(r) - 1.0;
    for (int i = j + 1; i < n; i++) {
      if (gsl_rng_uniform(r) < p) a[i + j * n] = a[j + i * n] = 2.0 * gsl_rng_uniform(r) - 1.0;
    }
  }
}

/* a + s I */
static void shift(int n, double *a, double s) {
  for (int j = 0; j < n; j++) a[j + j * n] += s;
}

/* a = S - lambda_min(S) I + tau I with tau = factor * delta (delta of the
 * matrix at lambda_min = 0); returns the dense lambda_min and the delta of
 * the final matrix (csc in *S). */
static double place(gsl_rng *r, int n, double factor, double *a, csc *S, double *delta) {
  random_sym(r, n, 0.15, a);
  shift(n, a, -lambda_min(n, a));
  csc_from_dense(S, n, a);
  double d0 = lth_lqr_psd_shift(n, S->cp, S->v);
  csc_free(S);
  shift(n, a, factor * d0);
  csc_from_dense(S, n, a);
  *delta = lth_lqr_psd_shift(n, S->cp, S->v);
  return lambda_min(n, a);
}

START_TEST(test_boundary_against_lapack) {
  if (!lth_lqr_psd_available()) return;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 27);
  double *a = malloc(sizeof(double) * 60 * 60);
  int accepted = 0, refused = 0;
  for (int trial = 0; trial < 200; trial++) {
    int n = 5 + (int)gsl_rng_uniform_int(r, 56);
    double factor = trial % 2 ? -0.25 : -4.0, delta;
    csc S;
    double lmin = place(r, n, factor, a, &S, &delta);
    lth_psd_result res;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_int_eq(lth_lqr_psd_sparse(n, S.cp, S.ri, S.v, &res, &err), LTH_OK);
    ck_assert(res.delta == delta);
    if (lmin > -delta / 2) { /* -delta/4 up to the eigenvalue's rounding */
      ck_assert_msg(res.psd, "n = %d: lambda_min = %.3g > -delta/2 = %.3g refused", n, lmin,
                    -delta / 2);
      ck_assert_int_eq(res.column, -1);
      accepted++;
    } else {
      ck_assert_msg(lmin < -2 * delta, "n = %d: lambda_min %.3g not placed", n, lmin);
      ck_assert_msg(!res.psd, "n = %d: lambda_min = %.3g < -2 delta = %.3g accepted", n, lmin,
                    -2 * delta);
      ck_assert(res.column >= 0 && res.column < n && res.pivot <= 0.0);
      /* a Rayleigh quotient never lies below lambda_min (up to its rounding),
       * and the witness's lies below -delta (up to its rounding) */
      ck_assert_msg(res.rayleigh >= lmin - delta / 2 && res.rayleigh <= -delta / 2,
                    "n = %d: Rayleigh quotient %.6g outside [%.6g, %.6g]", n, res.rayleigh, lmin,
                    -delta / 2);
      refused++;
    }
    csc_free(&S);
  }
  ck_assert_int_eq(accepted, 100);
  ck_assert_int_eq(refused, 100);
  free(a);
  gsl_rng_free(r);
}
END_TEST

/* H = Q'Q with Q rank deficient (second differences: null space of
 * dimension 2) has exact zero eigenvalues, which rounding in forming Q'Q may
 * turn slightly negative: the shift accepts it.  Q'Q - e v v' with a
 * localised v is refused, naming a Rayleigh quotient near its eigenvalue. */
START_TEST(test_rank_deficient_gram) {
  if (!lth_lqr_psd_available()) return;
  enum { n = 50 };
  double *a = calloc(n * n, sizeof(double));
  static const double d[3] = {1.0 / 3.0, -2.0 / 3.0, 1.0 / 3.0}; /* not exact in binary */
  for (int r = 0; r + 2 < n; r++)
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 3; q++) a[(r + p) + (r + q) * n] += d[p] * d[q];
  csc S;
  csc_from_dense(&S, n, a);
  lth_psd_result res;
  ck_assert_int_eq(lth_lqr_psd_sparse(n, S.cp, S.ri, S.v, &res, NULL), LTH_OK);
  ck_assert(res.psd);
  ck_assert(fabs(lambda_min(n, a)) < 1e-13); /* the zero eigenvalue, to rounding */
  csc_free(&S);
  /* a diagonal block [1 1+e; 1+e 1] appended: one eigenvalue -e */
  double *b = calloc((n + 2) * (n + 2), sizeof(double));
  for (int j = 0; j < n; j++) memcpy(b + j * (n + 2), a + j * n, sizeof(double) * n);
  const double e = 1e-8;
  b[n + n * (n + 2)] = b[(n + 1) + (n + 1) * (n + 2)] = 1.0;
  b[n + (n + 1) * (n + 2)] = b[(n + 1) + n * (n + 2)] = 1.0 + e;
  csc_from_dense(&S, n + 2, b);
  ck_assert_int_eq(lth_lqr_psd_sparse(n + 2, S.cp, S.ri, S.v, &res, NULL), LTH_OK);
  ck_assert(!res.psd);
  ck_assert(res.column >= 0 && res.pivot <= 0.0);
  ck_assert_msg(fabs(res.rayleigh + e) < 1e-3 * e, "Rayleigh quotient %.9g, eigenvalue %.9g",
                res.rayleigh, -e);
  csc_free(&S);
  free(a);
  free(b);
}
END_TEST

/* A path Laplacian minus e I: the negative eigenvector (constant) is spread
 * over every entry; the reported quotient (the witness refined by Lanczos)
 * is -e to 1 % (the spectral gap, (pi/n)^2, is small: 30 steps do not
 * reach rounding), and never below it beyond rounding. */
START_TEST(test_delocalised_negative) {
  if (!lth_lqr_psd_available()) return;
  enum { n = 400 };
  const double e = 1e-7;
  double *a = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i + 1 < n; i++) { /* edges (i, i+1) */
    a[i + i * n] += 1.0, a[(i + 1) + (i + 1) * n] += 1.0;
    a[i + (i + 1) * n] = a[(i + 1) + i * n] = -1.0;
  }
  shift(n, a, -e);
  csc S;
  csc_from_dense(&S, n, a);
  lth_psd_result res;
  ck_assert_int_eq(lth_lqr_psd_sparse(n, S.cp, S.ri, S.v, &res, NULL), LTH_OK);
  ck_assert(!res.psd);
  double lmin = lambda_min(n, a);
  ck_assert(fabs(lmin + e) < 1e-12);
  ck_assert_msg(res.rayleigh <= 0.99 * lmin && res.rayleigh >= lmin - 1e-13,
                "Rayleigh quotient %.9g, lambda_min %.9g", res.rayleigh, lmin);
  csc_free(&S);
  free(a);
}
END_TEST

/* One context over matrices of one pattern (its analysis kept) and of
 * another: the same verdicts as fresh factorizations.  A path Laplacian
 * plus s I, s = 1e-3, -1e-3, 1e-3, then a diagonal matrix with one -1. */
START_TEST(test_context_reuse) {
  if (!lth_lqr_psd_available()) return;
  enum { n = 60 };
  double *a = calloc((size_t)n * n, sizeof(double));
  const double s[3] = {1e-3, -1e-3, 1e-3};
  lth_psd_ctx *ctx = lth_lqr_psd_new();
  ck_assert_ptr_nonnull(ctx);
  for (int c = 0; c < 4; c++) {
    memset(a, 0, sizeof(double) * n * n);
    for (int i = 0; c < 3 && i + 1 < n; i++) {
      a[i + i * n] += 1.0, a[(i + 1) + (i + 1) * n] += 1.0;
      a[i + (i + 1) * n] = a[(i + 1) + i * n] = -1.0;
    }
    if (c < 3) shift(n, a, s[c]);
    for (int i = 0; c == 3 && i < n; i++) a[i + i * n] = i == 7 ? -1.0 : 2.0;
    csc S;
    csc_from_dense(&S, n, a);
    lth_psd_result r1, r2;
    ck_assert_int_eq(lth_lqr_psd_test(ctx, n, S.cp, S.ri, S.v, &r1, NULL), LTH_OK);
    ck_assert_int_eq(lth_lqr_psd_sparse(n, S.cp, S.ri, S.v, &r2, NULL), LTH_OK);
    ck_assert_int_eq(r1.psd, c == 0 || c == 2);
    ck_assert_int_eq(r1.psd, r2.psd);
    ck_assert_int_eq(r1.column, r2.column);
    if (c == 3) ck_assert_int_eq(r1.column, 7);
    if (!r1.psd) {
      double lmin = lambda_min(n, a);
      ck_assert(r1.rayleigh >= lmin - 1e-12 && r1.rayleigh < 0.0);
    }
    csc_free(&S);
  }
  lth_lqr_psd_free(ctx);
  free(a);
}
END_TEST

START_TEST(test_without_cholmod) {
  if (lth_lqr_psd_available()) return;
  int cp[2] = {0, 1}, ri[1] = {0};
  double v[1] = {1.0};
  lth_psd_result res;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_lqr_psd_sparse(1, cp, ri, v, &res, &err), LTH_EINVAL);
  ck_assert(strstr(err.message, "CHOLMOD") != NULL);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("lqr_psd");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_boundary_against_lapack);
  tcase_add_test(tc, test_rank_deficient_gram);
  tcase_add_test(tc, test_delocalised_negative);
  tcase_add_test(tc, test_context_reuse);
  tcase_add_test(tc, test_without_cholmod);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
