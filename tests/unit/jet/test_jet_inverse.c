/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The inverse of a matrix jet from one factorization (lth_jet_lu_inverse), the
 * condition estimate without a solve (lth_jet_cond) and truncation
 * (lth_jet_truncate), used as a C caller would: against the defining
 * identities M X = X M = I, the condition number of an explicit inverse and
 * the partial sums of a known series. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include <lapacke.h>

#include "lth/jet.h"
#include "testutil.h"

#define K 6

/* Largest absolute entry of coefficient m. */
static double coef_maxabs(const lth_jet *J, int m) {
  double mx = 0.0;
  for (int j = 0; j < J->cols; j++)
    for (int i = 0; i < J->rows; i++) mx = fmax(mx, fabs(LTH_JET_AT(J, m, i, j)));
  return mx;
}

/* max over m of ||(A B - I)_m||_max / (n sum_j ||A_j|| ||B_{m-j}||): the
 * residual of a product against the identity jet, relative to the size of
 * the terms that make up each coefficient. */
static double identity_residual(const lth_jet *A, const lth_jet *B, int n) {
  lth_jet C;
  TU_ASSERT_OK(lth_jet_init(&C, n, n, K, NULL));
  TU_ASSERT_OK(lth_jet_mul(A, B, &C, NULL));
  ck_assert_int_eq(C.order, K);
  double worst = 0.0;
  for (int m = 0; m <= K; m++) {
    double terms = 0.0;
    for (int j = 0; j <= m; j++) terms += coef_maxabs(A, j) * coef_maxabs(B, m - j);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double d = fabs(LTH_JET_AT(&C, m, i, j) - (m == 0 && i == j ? 1.0 : 0.0));
        double r = d / (n * terms);
        if (!(r <= worst)) worst = r; /* NaN too */
      }
  }
  lth_jet_release(&C);
  return worst;
}

/* Random M(t0 + h) whose M_0 has condition about 10^g: a random matrix whose
 * rows are scaled by 10^(g i / (n-1)). */
static void graded_jet(lth_jet *M, int n, double g) {
  tu_random_jet(M, K);
  for (int i = 0; i < n; i++) {
    double s = pow(10.0, g * i / (n - 1));
    for (int j = 0; j < n; j++)
      LTH_JET_AT(M, 0, i, j) = s * (LTH_JET_AT(M, 0, i, j) + (i == j ? 3.0 : 0.0));
  }
}

/* X = M^{-1} from one LU: M X = I to a backward-stable residual (the
 * recurrence solves with M_0), X M = I to that times cond(M_0), at every
 * order, for random jets of growing condition. */
START_TEST(test_lu_inverse_is_inverse) {
  enum { n = 6 };
  lth_jet_lu *lu = lth_jet_lu_alloc(n, NULL);
  ck_assert_ptr_nonnull(lu);
  tu_seed(2385);
  const double grades[] = {0.0, 2.0, 4.0, 6.0};
  for (size_t k = 0; k < sizeof grades / sizeof grades[0]; k++) {
    lth_jet M, X;
    TU_ASSERT_OK(lth_jet_init(&M, n, n, K, NULL));
    TU_ASSERT_OK(lth_jet_init(&X, n, n, K, NULL));
    graded_jet(&M, n, grades[k]);
    double cond = 0.0;
    TU_ASSERT_OK(lth_jet_lu_factor(lu, &M, 1e-14, &cond, NULL));
    TU_ASSERT_OK(lth_jet_lu_inverse(lu, &X, NULL));
    ck_assert_int_eq(X.order, K);
    double right = identity_residual(&M, &X, n), left = identity_residual(&X, &M, n);
    ck_assert_msg(right < 64 * DBL_EPSILON, "grade %g: M X - I relative residual %g", grades[k],
                  right);
    ck_assert_msg(left < 64 * DBL_EPSILON * cond, "grade %g (cond %g): X M - I residual %g",
                  grades[k], cond, left);
    /* the convenience form gives the same inverse */
    lth_jet Y;
    TU_ASSERT_OK(lth_jet_init(&Y, n, n, K, NULL));
    TU_ASSERT_OK(lth_jet_inverse(&M, &Y, 1e-14, NULL, NULL));
    ck_assert_msg(tu_jet_relerr(&Y, &X) < 64 * DBL_EPSILON * cond, "two inverses differ: %g",
                  tu_jet_relerr(&Y, &X));
    lth_jet_release(&Y);
    lth_jet_release(&M);
    lth_jet_release(&X);
  }
  /* the order of X is limited by its storage and by M's order */
  lth_jet M, X;
  TU_ASSERT_OK(lth_jet_init(&M, n, n, K, NULL));
  TU_ASSERT_OK(lth_jet_init(&X, n, n, 3, NULL));
  graded_jet(&M, n, 1.0);
  TU_ASSERT_OK(lth_jet_lu_factor(lu, &M, 0.0, NULL, NULL));
  TU_ASSERT_OK(lth_jet_lu_inverse(lu, &X, NULL));
  ck_assert_int_eq(X.order, 3);
  lth_jet_release(&X);
  /* a result of the wrong size is refused before any work */
  TU_ASSERT_OK(lth_jet_init(&X, n, n - 1, K, NULL));
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_jet_lu_inverse(lu, &X, &err), LTH_EDIM);
  lth_jet_release(&X);
  lth_jet_release(&M);
  lth_jet_lu_free(lu);
}
END_TEST

/* ||A||_1 of an n x n column-major matrix. */
static double norm1(const double *a, int n, int lda) {
  double mx = 0.0;
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += fabs(a[i + j * lda]);
    mx = fmax(mx, s);
  }
  return mx;
}

/* The 1-norm condition estimate of M_0 against ||M_0||_1 ||M_0^{-1}||_1 with
 * the inverse formed explicitly (LAPACK dgetri).  The estimate (dgecon,
 * Hager-Higham) is a lower bound of the true value and, for these sizes,
 * within a factor 3 of it; the explicit inverse's norm carries a relative
 * error of order n eps cond. */
START_TEST(test_cond_against_explicit_inverse) {
  enum { n = 7 };
  tu_seed(4711);
  const double grades[] = {0.0, 3.0, 6.0, 9.0};
  for (size_t k = 0; k < sizeof grades / sizeof grades[0]; k++) {
    lth_jet M;
    TU_ASSERT_OK(lth_jet_init(&M, n, n, K, NULL));
    graded_jet(&M, n, grades[k]);
    double cond = 0.0;
    TU_ASSERT_OK(lth_jet_cond(&M, &cond, NULL));
    double a[n * n], inv[n * n];
    lapack_int ipiv[n];
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) a[i + j * n] = inv[i + j * n] = LTH_JET_AT(&M, 0, i, j);
    ck_assert_int_eq(LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, inv, n, ipiv), 0);
    ck_assert_int_eq(LAPACKE_dgetri(LAPACK_COL_MAJOR, n, inv, n, ipiv), 0);
    double truth = norm1(a, n, n) * norm1(inv, n, n);
    double slack = 1.0 + 100.0 * n * DBL_EPSILON * truth;
    ck_assert_msg(cond <= truth * slack && cond >= truth / (3.0 * slack),
                  "grade %g: estimate %g, explicit %g", grades[k], cond, truth);
    ck_assert_msg(truth > pow(10.0, grades[k]) / 10, "grade %g gave cond %g only", grades[k],
                  truth);
    lth_jet_release(&M);
  }
  /* exactly singular: LTH_ESING, the estimate infinite */
  lth_jet M;
  TU_ASSERT_OK(lth_jet_init(&M, 3, 3, 1, NULL));
  lth_jet_set_identity(&M, 1);
  LTH_JET_AT(&M, 0, 1, 1) = 0.0;
  double cond = 0.0;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_jet_cond(&M, &cond, &err), LTH_ESING);
  ck_assert(isinf(cond));
  /* however ill-conditioned, a nonsingular M_0 is not an error */
  LTH_JET_AT(&M, 0, 1, 1) = 1e-15;
  TU_ASSERT_OK(lth_jet_cond(&M, &cond, NULL));
  ck_assert_msg(cond > 1e14 && cond < 1e16, "cond %g of diag(1, 1e-15, 1)", cond);
  lth_jet_release(&M);
}
END_TEST

/* Truncating exp(a (t0 + h)) = e^{a t0} sum (a h)^m / m! to order k leaves the
 * partial sum: evaluation matches it, a product with the truncated jet has
 * order k, and truncating to a higher order changes nothing. */
START_TEST(test_truncate_partial_sums) {
  const double a = -1.385, t0 = 0.7, h = 0.31;
  lth_jet E, F, P;
  TU_ASSERT_OK(lth_jet_init(&E, 1, 1, K, NULL));
  TU_ASSERT_OK(lth_jet_init(&F, 1, 1, K, NULL));
  TU_ASSERT_OK(lth_jet_init(&P, 1, 1, K, NULL));
  double c = exp(a * t0);
  for (int m = 0; m <= K; m++) {
    LTH_JET_AT(&E, m, 0, 0) = c;
    c *= a / (m + 1);
  }
  TU_ASSERT_OK(lth_jet_copy(&F, &E, NULL));
  for (int k = K; k >= 0; k--) {
    lth_jet_truncate(&E, k);
    ck_assert_int_eq(E.order, k);
    double sum = 0.0, term = exp(a * t0);
    for (int m = 0; m <= k; m++) {
      sum += term;
      term *= a * h / (m + 1);
    }
    double v = 0.0;
    lth_jet_eval(&E, h, &v, 1);
    ck_assert_msg(fabs(v - sum) <= 8 * DBL_EPSILON * fabs(sum), "order %d: %.17g vs %.17g", k, v,
                  sum);
    TU_ASSERT_OK(lth_jet_mul(&E, &F, &P, NULL));
    ck_assert_int_eq(P.order, k);
  }
  lth_jet_truncate(&E, K); /* no-op: the dropped coefficients stay dropped */
  ck_assert_int_eq(E.order, 0);
  lth_jet_release(&E);
  lth_jet_release(&F);
  lth_jet_release(&P);
}
END_TEST

static Suite *jet_inverse_suite(void) {
  Suite *s = suite_create("jet_inverse");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_lu_inverse_is_inverse);
  tcase_add_test(tc, test_cond_against_explicit_inverse);
  tcase_add_test(tc, test_truncate_partial_sums);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(jet_inverse_suite)
