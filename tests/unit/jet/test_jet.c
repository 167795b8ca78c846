/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Taylor jets: products, inverses, solves, derivatives, evaluation and
 * order bookkeeping against matrix functions with known series. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "lth/jet.h"
#include "testutil.h"

#define K 10

/* Taylor coefficients of the rotation R(t) = [cos t, -sin t; sin t, cos t]
 * at t0, or of its transpose: the m-th derivative of cos is cos(x + m pi/2). */
static void rotation_jet(lth_jet *R, double t0, int transpose) {
  double fact = 1.0;
  for (int m = 0; m <= R->order; m++) {
    if (m > 0) fact *= m;
    double c = cos(t0 + m * M_PI / 2) / fact, s = sin(t0 + m * M_PI / 2) / fact;
    double sgn = transpose ? -1.0 : 1.0;
    LTH_JET_AT(R, m, 0, 0) = c;
    LTH_JET_AT(R, m, 1, 1) = c;
    LTH_JET_AT(R, m, 0, 1) = -sgn * s;
    LTH_JET_AT(R, m, 1, 0) = sgn * s;
  }
}

START_TEST(test_rotation_inverse_is_transpose) {
  const double t0s[] = {0.0, 0.385, 2.71, -1.3};
  for (int k = 0; k < 4; k++) {
    lth_jet R, Rt, X, I, RRt;
    TU_ASSERT_OK(lth_jet_init(&R, 2, 2, K, NULL));
    TU_ASSERT_OK(lth_jet_init(&Rt, 2, 2, K, NULL));
    TU_ASSERT_OK(lth_jet_init(&X, 2, 2, K, NULL));
    TU_ASSERT_OK(lth_jet_init(&I, 2, 2, K, NULL));
    TU_ASSERT_OK(lth_jet_init(&RRt, 2, 2, K, NULL));
    rotation_jet(&R, t0s[k], 0);
    rotation_jet(&Rt, t0s[k], 1);
    double cond = 0;
    TU_ASSERT_OK(lth_jet_inverse(&R, &X, 1e-12, &cond, NULL));
    ck_assert_int_eq(X.order, K);
    ck_assert_msg(tu_jet_relerr(&X, &Rt) < 1e-13, "R^{-1} != R^T at t0=%g: %g", t0s[k],
                  tu_jet_relerr(&X, &Rt));
    /* cond_1 of a rotation is exactly (|c|+|s|)^2 / 1; the estimate is within a factor 3 */
    double c = fabs(cos(t0s[k])) + fabs(sin(t0s[k]));
    ck_assert_msg(cond >= c * c / 3 && cond <= 3 * c * c, "cond %g vs %g", cond, c * c);
    /* R R^T = I: all coefficients of order >= 1 vanish */
    TU_ASSERT_OK(lth_jet_mul(&R, &Rt, &RRt, NULL));
    lth_jet_set_identity(&I, K);
    ck_assert_msg(tu_jet_relerr(&RRt, &I) < 1e-14, "R R^T - I = %g", tu_jet_relerr(&RRt, &I));
    lth_jet_release(&R);
    lth_jet_release(&Rt);
    lth_jet_release(&X);
    lth_jet_release(&I);
    lth_jet_release(&RRt);
  }
}
END_TEST

static double binom(int n, int k) {
  double b = 1.0;
  for (int i = 1; i <= k; i++) b = b * (n - k + i) / i;
  return b;
}

/* (I - tN)^{-1} = sum_k t^k N^k for nilpotent N, expanded around t0. */
START_TEST(test_nilpotent_inverse) {
  enum { n = 5 };
  double N[n * n] = {0}, Nk[n][n * n];
  tu_seed(7);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) N[i + j * n] = tu_uniform(-2, 2);
  /* powers N^k, k = 0..n-1, by plain loops (reference code) */
  memset(Nk, 0, sizeof Nk);
  for (int i = 0; i < n; i++) Nk[0][i + i * n] = 1.0;
  for (int k = 1; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double s = 0;
        for (int l = 0; l < n; l++) s += Nk[k - 1][i + l * n] * N[l + j * n];
        Nk[k][i + j * n] = s;
      }
  const double t0 = 0.6137;
  lth_jet M, X, Ref;
  TU_ASSERT_OK(lth_jet_init(&M, n, n, 7, NULL));
  TU_ASSERT_OK(lth_jet_init(&X, n, n, 7, NULL));
  TU_ASSERT_OK(lth_jet_init(&Ref, n, n, 7, NULL));
  lth_jet_set_identity(&M, 7);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      LTH_JET_AT(&M, 0, i, j) -= t0 * N[i + j * n];
      LTH_JET_AT(&M, 1, i, j) = -N[i + j * n];
    }
  lth_jet_set_zero(&Ref, 7);
  for (int m = 0; m <= 7; m++)
    for (int k = m; k < n; k++)
      for (int e = 0; e < n * n; e++)
        Ref.c[m * Ref.stride + e] += binom(k, m) * pow(t0, k - m) * Nk[k][e];
  TU_ASSERT_OK(lth_jet_inverse(&M, &X, 1e-14, NULL, NULL));
  ck_assert_msg(tu_jet_relerr(&X, &Ref) < 1e-13, "nilpotent inverse error %g",
                tu_jet_relerr(&X, &Ref));
  /* coefficients beyond n-1 are exactly representable zeros up to rounding */
  ck_assert(lth_jet_maxabs(&X, 7) > 1.0);
  lth_jet_release(&M);
  lth_jet_release(&X);
  lth_jet_release(&Ref);
}
END_TEST

/* X = M^{-1} N must satisfy M X = N coefficient by coefficient. */
START_TEST(test_solve_against_multiply) {
  tu_seed(11);
  for (int trial = 0; trial < 5; trial++) {
    int n = 1 + trial * 3, nrhs = 2 + trial;
    lth_jet M, N, X, MX;
    TU_ASSERT_OK(lth_jet_init(&M, n, n, 6, NULL));
    TU_ASSERT_OK(lth_jet_init(&N, n, nrhs, 6, NULL));
    TU_ASSERT_OK(lth_jet_init(&X, n, nrhs, 6, NULL));
    TU_ASSERT_OK(lth_jet_init(&MX, n, nrhs, 6, NULL));
    tu_random_jet(&M, 6);
    for (int i = 0; i < n; i++) LTH_JET_AT(&M, 0, i, i) += 3.0 + n; /* well conditioned */
    tu_random_jet(&N, 6);
    TU_ASSERT_OK(lth_jet_solve(&M, &N, &X, 1e-12, NULL, NULL));
    TU_ASSERT_OK(lth_jet_mul(&M, &X, &MX, NULL));
    ck_assert_msg(tu_jet_relerr(&MX, &N) < 1e-13, "M X - N = %g (n=%d)", tu_jet_relerr(&MX, &N), n);
    /* in place: N <- M^{-1} N gives the same X */
    lth_jet_lu *lu = lth_jet_lu_alloc(n, NULL);
    ck_assert_ptr_nonnull(lu);
    TU_ASSERT_OK(lth_jet_lu_factor(lu, &M, 1e-12, NULL, NULL));
    TU_ASSERT_OK(lth_jet_lu_solve(lu, &N, &N, NULL));
    ck_assert(tu_jet_relerr(&N, &X) < 1e-15);
    lth_jet_lu_free(lu);
    lth_jet_release(&M);
    lth_jet_release(&N);
    lth_jet_release(&X);
    lth_jet_release(&MX);
  }
}
END_TEST

/* (AB)' = A'B + AB'. */
START_TEST(test_product_rule) {
  tu_seed(3);
  lth_jet A, B, AB, dAB, dA, dB, rhs;
  TU_ASSERT_OK(lth_jet_init(&A, 4, 3, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, 3, 5, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&AB, 4, 5, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&dAB, 4, 5, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&dA, 4, 3, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&dB, 3, 5, 8, NULL));
  TU_ASSERT_OK(lth_jet_init(&rhs, 4, 5, 8, NULL));
  tu_random_jet(&A, 8);
  tu_random_jet(&B, 8);
  TU_ASSERT_OK(lth_jet_mul(&A, &B, &AB, NULL));
  TU_ASSERT_OK(lth_jet_deriv(&dAB, &AB, NULL));
  ck_assert_int_eq(dAB.order, 7);
  TU_ASSERT_OK(lth_jet_deriv(&dA, &A, NULL));
  TU_ASSERT_OK(lth_jet_deriv(&dB, &B, NULL));
  TU_ASSERT_OK(lth_jet_mul(&dA, &B, &rhs, NULL));
  ck_assert_int_eq(rhs.order, 7);
  TU_ASSERT_OK(lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &A, &dB, 1.0, &rhs, NULL));
  ck_assert_int_eq(rhs.order, 7);
  ck_assert_msg(tu_jet_relerr(&dAB, &rhs) < 1e-14, "product rule %g", tu_jet_relerr(&dAB, &rhs));
  /* in-place derivative equals the out-of-place one */
  TU_ASSERT_OK(lth_jet_deriv(&AB, &AB, NULL));
  ck_assert(tu_jet_relerr(&AB, &dAB) == 0.0);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_jet_release(&AB);
  lth_jet_release(&dAB);
  lth_jet_release(&dA);
  lth_jet_release(&dB);
  lth_jet_release(&rhs);
}
END_TEST

/* The result order is the smallest order that is exact. */
START_TEST(test_order_bookkeeping) {
  lth_jet A, B, C, M, X;
  TU_ASSERT_OK(lth_jet_init(&A, 2, 2, 6, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, 2, 2, 6, NULL));
  TU_ASSERT_OK(lth_jet_init(&C, 2, 2, 6, NULL));
  TU_ASSERT_OK(lth_jet_init(&M, 2, 2, 6, NULL));
  TU_ASSERT_OK(lth_jet_init(&X, 2, 2, 6, NULL));
  tu_random_jet(&A, 3);
  tu_random_jet(&B, 5);
  TU_ASSERT_OK(lth_jet_mul(&A, &B, &C, NULL));
  ck_assert_int_eq(C.order, 3);
  TU_ASSERT_OK(lth_jet_mul(&B, &B, &C, NULL));
  ck_assert_int_eq(C.order, 5);
  TU_ASSERT_OK(lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &B, &B, 1.0, &C, NULL));
  ck_assert_int_eq(C.order, 5);
  C.order = 2; /* beta != 0 keeps the lower order of C */
  TU_ASSERT_OK(lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &B, &B, 1.0, &C, NULL));
  ck_assert_int_eq(C.order, 2);
  TU_ASSERT_OK(lth_jet_axpy(2.0, &A, &B, NULL));
  ck_assert_int_eq(B.order, 3);
  lth_jet_set_identity(&M, 4);
  LTH_JET_AT(&M, 1, 0, 1) = 0.5;
  TU_ASSERT_OK(lth_jet_solve(&M, &A, &X, 1e-12, NULL, NULL));
  ck_assert_int_eq(X.order, 3);
  TU_ASSERT_OK(lth_jet_deriv(&X, &X, NULL));
  TU_ASSERT_OK(lth_jet_deriv(&X, &X, NULL));
  TU_ASSERT_OK(lth_jet_deriv(&X, &X, NULL));
  ck_assert_int_eq(X.order, 0);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_jet_deriv(&X, &X, &err), LTH_EORDER);
  ck_assert_int_eq(err.status, LTH_EORDER);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_jet_release(&C);
  lth_jet_release(&M);
  lth_jet_release(&X);
}
END_TEST

/* Horner evaluation of the exp series reproduces exp(t0 + h). */
START_TEST(test_eval_horner) {
  lth_jet E;
  TU_ASSERT_OK(lth_jet_init(&E, 1, 1, 20, NULL));
  const double t0 = 0.3;
  double f = 1.0;
  for (int m = 0; m <= 20; m++) {
    if (m) f *= m;
    E.c[m * E.stride] = exp(t0) / f;
  }
  const double hs[] = {0.0, 0.1, -0.27, 0.5};
  for (int k = 0; k < 4; k++) {
    double v;
    lth_jet_eval(&E, hs[k], &v, 1);
    ck_assert_msg(fabs(v - exp(t0 + hs[k])) < 1e-15 * exp(t0 + hs[k]) * 4, "exp(%g)", hs[k]);
  }
  lth_jet_release(&E);
}
END_TEST

/* op(A) op(B) with transposes equals the product of explicit transposes; a
 * product of sub-block views (not packed) equals the packed product. */
START_TEST(test_transposes_and_views) {
  tu_seed(5);
  lth_jet A, B, At, Bt, C1, C2, Big;
  TU_ASSERT_OK(lth_jet_init(&A, 3, 4, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, 4, 2, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&At, 4, 3, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&Bt, 2, 4, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&C1, 3, 2, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&C2, 3, 2, 4, NULL));
  TU_ASSERT_OK(lth_jet_init(&Big, 9, 9, 4, NULL));
  tu_random_jet(&A, 4);
  tu_random_jet(&B, 4);
  for (int m = 0; m <= 4; m++) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++) LTH_JET_AT(&At, m, j, i) = LTH_JET_AT(&A, m, i, j);
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 2; j++) LTH_JET_AT(&Bt, m, j, i) = LTH_JET_AT(&B, m, i, j);
  }
  TU_ASSERT_OK(lth_jet_mul(&A, &B, &C1, NULL));
  TU_ASSERT_OK(lth_jet_gemm(LTH_TRANS, LTH_TRANS, 1.0, &At, &Bt, 0.0, &C2, NULL));
  ck_assert(tu_jet_relerr(&C2, &C1) < 1e-15);
  TU_ASSERT_OK(lth_jet_gemm(LTH_TRANS, LTH_NOTRANS, 1.0, &At, &B, 0.0, &C2, NULL));
  ck_assert(tu_jet_relerr(&C2, &C1) < 1e-15);
  TU_ASSERT_OK(lth_jet_gemm(LTH_NOTRANS, LTH_TRANS, 1.0, &A, &Bt, 0.0, &C2, NULL));
  ck_assert(tu_jet_relerr(&C2, &C1) < 1e-15);
  /* views: copy A and B into blocks of Big, multiply the views into a third block */
  lth_jet_set_zero(&Big, 4);
  lth_jet Av = lth_jet_view(&Big, 1, 0, 3, 4), Bv = lth_jet_view(&Big, 4, 4, 4, 2),
          Cv = lth_jet_view(&Big, 0, 6, 3, 2);
  TU_ASSERT_OK(lth_jet_copy(&Av, &A, NULL));
  TU_ASSERT_OK(lth_jet_copy(&Bv, &B, NULL));
  TU_ASSERT_OK(lth_jet_mul(&Av, &Bv, &Cv, NULL));
  ck_assert(tu_jet_relerr(&Cv, &C1) < 1e-15);
  /* dimension mismatch is reported, not computed */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_jet_mul(&A, &A, &C1, &err), LTH_EDIM);
  ck_assert(strstr(err.message, "3 x 4") != NULL);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_jet_release(&At);
  lth_jet_release(&Bt);
  lth_jet_release(&C1);
  lth_jet_release(&C2);
  lth_jet_release(&Big);
}
END_TEST

/* Singular and ill-conditioned M_0 are errors carrying the condition estimate. */
START_TEST(test_singular_and_ill_conditioned) {
  lth_jet M, X;
  TU_ASSERT_OK(lth_jet_init(&M, 3, 3, 2, NULL));
  TU_ASSERT_OK(lth_jet_init(&X, 3, 3, 2, NULL));
  lth_jet_set_identity(&M, 2);
  LTH_JET_AT(&M, 0, 2, 2) = 0.0; /* rank 2 */
  LTH_JET_AT(&M, 1, 2, 2) = 1.0; /* invertible for t != t0, singular at t0 */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_jet_inverse(&M, &X, 1e-12, NULL, &err), LTH_ESING);
  ck_assert(err.has_cond && isinf(err.cond));
  LTH_JET_AT(&M, 0, 2, 2) = 1e-14;
  lth_error_clear(&err);
  double cond = 0;
  ck_assert_int_eq(lth_jet_inverse(&M, &X, 1e-12, &cond, &err), LTH_ECOND);
  ck_assert(err.has_cond && err.cond > 1e13 && err.cond < 1e15);
  ck_assert(cond == err.cond);
  /* the same matrix passes with a looser threshold */
  TU_ASSERT_OK(lth_jet_inverse(&M, &X, 1e-16, &cond, NULL));
  ck_assert(cond > 1e13);
  LTH_JET_AT(&M, 0, 0, 0) = NAN;
  ck_assert_int_eq(lth_jet_inverse(&M, &X, 1e-12, NULL, &err), LTH_ENOTFINITE);
  lth_jet_release(&M);
  lth_jet_release(&X);
}
END_TEST

/* The sign of det M_0 from the LU (pivots included), against det of 3 x 3
 * matrices with known determinants: permutations and random entries. */
START_TEST(test_det_sign) {
  const double mats[][9] = {
      {1, 0, 0, 0, 1, 0, 0, 0, 1}, /* I: +1 */
      {0, 1, 0, 1, 0, 0, 0, 0, 1}, /* one swap: -1 */
      {0, 1, 0, 0, 0, 1, 1, 0, 0}, /* cyclic: +1 */
      {2.385, -1.2, 0.7, 0.3, 4.1, -2.2, 1.9, 0.5, -3.3},
      {-2.385, 1.2, -0.7, -0.3, -4.1, 2.2, -1.9, -0.5, 3.3}, /* negated 3 x 3: det flips */
  };
  lth_jet *M = lth_jet_alloc(3, 3, 0, NULL);
  lth_jet_lu *lu = lth_jet_lu_alloc(3, NULL);
  for (size_t k = 0; k < sizeof mats / sizeof mats[0]; k++) {
    const double *a = mats[k];
    double det = a[0] * (a[4] * a[8] - a[7] * a[5]) - a[3] * (a[1] * a[8] - a[7] * a[2]) +
                 a[6] * (a[1] * a[5] - a[4] * a[2]);
    memcpy(LTH_JET_COEF(M, 0), a, sizeof mats[0]);
    M->order = 0;
    ck_assert_int_eq(lth_jet_lu_factor(lu, M, 0.0, NULL, NULL), LTH_OK);
    ck_assert_int_eq(lth_jet_lu_det_sign(lu), det > 0 ? 1 : -1);
  }
  lth_jet_lu_free(lu);
  lth_jet_free(M);
}
END_TEST

/* Inverse of a 2 x 2 or 3 x 3 matrix (column-major) by cofactors over the
 * determinant: a reference independent of the LU. */
static void cofactor_inverse(int n, const double *a, double *inv) {
  if (n == 2) {
    double det = a[0] * a[3] - a[2] * a[1];
    inv[0] = a[3] / det, inv[1] = -a[1] / det, inv[2] = -a[2] / det, inv[3] = a[0] / det;
    return;
  }
#define A_(i, j) a[(i) + 3 * (j)]
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) { /* inv(i, j) = cofactor(j, i) / det */
      int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
      inv[i + 3 * j] = A_(r0, c0) * A_(r1, c1) - A_(r0, c1) * A_(r1, c0);
    }
  }
  double det = A_(0, 0) * inv[0] + A_(0, 1) * inv[1] + A_(0, 2) * inv[2];
#undef A_
  for (int k = 0; k < 9; k++) inv[k] /= det;
}

static double norm1_cm(int n, const double *a) {
  double mx = 0.0;
  for (int j = 0; j < n; j++) {
    double c = 0.0;
    for (int i = 0; i < n; i++) c += fabs(a[i + n * j]);
    mx = fmax(mx, c);
  }
  return mx;
}

/* The condition number lth_jet_lu_factor reports for 2 x 2 and 3 x 3
 * matrices is ||M_0||_1 ||M_0^{-1}||_1 itself (not an estimate, which can
 * fall short of it), to the accuracy the inverse has: against the cofactor
 * inverse, relative difference <= 64 eps cond, over random matrices scaled
 * towards singular. */
START_TEST(test_small_cond_exact) {
  tu_seed(0x5c0d);
  lth_jet_lu *lu = lth_jet_lu_alloc(3, NULL);
  double worst = 0.0;
  for (int n = 2; n <= 3; n++) {
    lth_jet *M = lth_jet_alloc(n, n, 0, NULL);
    for (int draw = 0; draw < 2000; draw++) {
      double a[9], inv[9];
      for (int k = 0; k < n * n; k++) a[k] = tu_uniform(-1.0, 1.0);
      double shrink = pow(10.0, -8.0 * (draw % 5) / 4.0); /* last column towards the first */
      for (int i = 0; i < n; i++) a[i + n * (n - 1)] = a[i] + shrink * a[i + n * (n - 1)];
      memcpy(LTH_JET_COEF(M, 0), a, (size_t)(n * n) * sizeof(double));
      M->order = 0;
      double cond = 0.0;
      ck_assert_int_eq(lth_jet_lu_factor(lu, M, 0.0, &cond, NULL), LTH_OK);
      cofactor_inverse(n, a, inv);
      double ref = norm1_cm(n, a) * norm1_cm(n, inv);
      double rel = fabs(cond - ref) / ref;
      ck_assert_msg(rel <= 64 * DBL_EPSILON * ref, "n = %d, draw %d: cond %.17g, exact %.17g", n,
                    draw, cond, ref);
      worst = fmax(worst, rel / (DBL_EPSILON * ref));
    }
    lth_jet_free(M);
  }
  ck_assert(worst > 0.0); /* the comparison saw rounding, not identical code */
  lth_jet_lu_free(lu);
}
END_TEST

static Suite *jet_suite(void) {
  Suite *s = suite_create("jet");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_rotation_inverse_is_transpose);
  tcase_add_test(tc, test_nilpotent_inverse);
  tcase_add_test(tc, test_solve_against_multiply);
  tcase_add_test(tc, test_product_rule);
  tcase_add_test(tc, test_order_bookkeeping);
  tcase_add_test(tc, test_eval_horner);
  tcase_add_test(tc, test_transposes_and_views);
  tcase_add_test(tc, test_singular_and_ill_conditioned);
  tcase_add_test(tc, test_det_sign);
  tcase_add_test(tc, test_small_cond_exact);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(jet_suite)
