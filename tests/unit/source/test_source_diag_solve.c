/* SPDX-License-Identifier: GPL-3.0-or-later */
/* M(t)^{-1} X(t) with a diagonal sparse M of more rows than the LAPACK path
 * takes (lib/source/source_solve.c): entry by entry, nothing n x n.
 *   - its jets, orders 0..4, agree with the LAPACK path (the same M as a
 *     dense callback) to a few ulps of the result's size, and with X sparse
 *     the result is sparse on X's pattern, its values on it its dense jet;
 *   - a diagonal entry crossing zero is refused as the LAPACK path refuses
 *     it: the scan names the two times around the sign change (LTH_ESING),
 *     a point near it is LTH_ECOND with the condition, the scale is the
 *     largest ||M(t)||_1. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lth/source.h"
#include "testutil.h"

enum { N = 150, K = 2, ORDER = 4 };

/* Diagonal entry i: d_i(t) = a_i + b_i sin(t) (+ shift t for the singular
 * case), Taylor coefficients of sin at t. */
typedef struct {
  double a[N], b[N];
  int shift; /* 1: entry 0 is t - 0.5 (zero at t = 0.5) */
} diag_ctx;

static double sin_coef(double t, int m) {
  /* d^m/dt^m sin(t) / m! */
  double f = 1.0;
  for (int k = 2; k <= m; k++) f *= k;
  switch (m % 4) {
  case 0:
    return sin(t) / f;
  case 1:
    return cos(t) / f;
  case 2:
    return -sin(t) / f;
  default:
    return -cos(t) / f;
  }
}

static double diag_coef(const diag_ctx *c, int i, double t, int m) {
  if (c->shift && i == 0) return m == 0 ? t - 0.5 : m == 1 ? 1.0 : 0.0;
  return (m == 0 ? c->a[i] : 0.0) + c->b[i] * sin_coef(t, m);
}

static int diag_csc(void *ctx, double t, int order, double *values, size_t stride) {
  for (int m = 0; m <= order; m++)
    for (int i = 0; i < N; i++) values[(size_t)m * stride + i] = diag_coef(ctx, i, t, m);
  return 0;
}

static int diag_dense(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  for (int m = 0; m <= order; m++)
    for (int i = 0; i < N; i++)
      coef[(size_t)m * stride + i + (size_t)i * ld] = diag_coef(ctx, i, t, m);
  return 0;
}

/* X: entry (i, c) nonzero where (i + c) % 3 == 0, value (1 + i + c) cos(t + i). */
static int x_csc(void *ctx, double t, int order, double *values, size_t stride) {
  (void)ctx;
  int p = 0;
  for (int c = 0; c < K; c++)
    for (int i = 0; i < N; i++)
      if ((i + c) % 3 == 0) {
        for (int m = 0; m <= order; m++)
          values[(size_t)m * stride + p] = (1.0 + i + c) * sin_coef(t + i + 1.5707963267948966, m);
        p++;
      }
  return 0;
}

static int x_dense(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  for (int c = 0; c < K; c++)
    for (int i = 0; i < N; i++)
      if ((i + c) % 3 == 0)
        for (int m = 0; m <= order; m++)
          coef[(size_t)m * stride + i + (size_t)c * ld] =
              (1.0 + i + c) * sin_coef(t + i + 1.5707963267948966, m);
  return 0;
}

static int cp_diag[N + 1], ri_diag[N], cp_x[K + 1], ri_x[N * K];

static void patterns(void) {
  for (int j = 0; j <= N; j++) cp_diag[j] = j;
  for (int j = 0; j < N; j++) ri_diag[j] = j;
  int p = 0;
  for (int c = 0; c < K; c++) {
    cp_x[c] = p;
    for (int i = 0; i < N; i++)
      if ((i + c) % 3 == 0) ri_x[p++] = i;
  }
  cp_x[K] = p;
}

static void fill_dense(const lth_source *s, double t, lth_jet *J) {
  double *w = malloc((lth_source_work_size(s, ORDER) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_source_fill(s, t, ORDER, J, w, NULL));
  free(w);
}

START_TEST(test_agrees_with_lapack) {
  patterns();
  diag_ctx c = {.shift = 0};
  for (int i = 0; i < N; i++) {
    c.a[i] = 1.0 + 0.37 * (i % 7);
    c.b[i] = 0.3 * ((i % 5) - 2) / 2.0;
  }
  lth_source *Ms = lth_source_csc_callback(N, N, cp_diag, ri_diag, diag_csc, &c, NULL);
  lth_source *Md = lth_source_callback(N, N, diag_dense, &c, NULL);
  lth_source *Xs = lth_source_csc_callback(N, K, cp_x, ri_x, x_csc, NULL, NULL);
  lth_source *Xd = lth_source_callback(N, K, x_dense, NULL, NULL);
  ck_assert(Ms && Md && Xs && Xd);
  lth_source *Ys = lth_source_solve(Ms, Xs, 0.0, 0.0, "M", NULL);
  lth_source *Yd = lth_source_solve(Md, Xd, 0.0, 0.0, "M", NULL);
  ck_assert(Ys && Yd);
  ck_assert(lth_source_is_sparse(Ys));
  ck_assert(!lth_source_is_sparse(Yd));
  lth_jet *A = lth_jet_alloc(N, K, ORDER, NULL), *B = lth_jet_alloc(N, K, ORDER, NULL);
  int nnz = 0;
  const int *cp, *ri;
  TU_ASSERT_OK(lth_source_csc_pattern(Ys, &nnz, &cp, &ri, NULL));
  ck_assert_int_eq(nnz, cp_x[K]);
  size_t nw = lth_source_work_size(Ys, ORDER);
  double *v = malloc(((size_t)nnz * (ORDER + 1) + nw + 1) * sizeof *v);
  for (int k = 0; k < 3; k++) {
    double t = 0.2 + 1.1 * k;
    fill_dense(Ys, t, A);
    fill_dense(Yd, t, B);
    double size = 0.0, worst = 0.0;
    for (int m = 0; m <= ORDER; m++)
      for (int j = 0; j < K; j++)
        for (int i = 0; i < N; i++) {
          size = fmax(size, fabs(LTH_JET_AT(B, m, i, j)));
          worst = fmax(worst, fabs(LTH_JET_AT(A, m, i, j) - LTH_JET_AT(B, m, i, j)));
        }
    /* each coefficient: a recurrence of at most ORDER products and one
     * division per entry on both paths (M well conditioned: |d_i| >= 0.62) */
    ck_assert_msg(worst <= 64 * DBL_EPSILON * size, "t = %g: %.3g of %.3g", t, worst, size);
    /* the values on the pattern are the dense jet, bitwise */
    TU_ASSERT_OK(
        lth_source_fill_csc(Ys, t, ORDER, v, (size_t)nnz, v + (size_t)nnz * (ORDER + 1), NULL));
    for (int m = 0; m <= ORDER; m++)
      for (int j = 0; j < K; j++)
        for (int p = cp[j]; p < cp[j + 1]; p++)
          ck_assert(v[(size_t)m * nnz + p] == LTH_JET_AT(A, m, ri[p], j));
  }
  free(v);
  lth_jet_free(A);
  lth_jet_free(B);
  lth_source_free(Ys);
  lth_source_free(Yd);
  lth_source_free(Ms);
  lth_source_free(Md);
}
END_TEST

START_TEST(test_singular_refused_alike) {
  patterns();
  diag_ctx c = {.shift = 1};
  for (int i = 0; i < N; i++) {
    c.a[i] = 2.0 + 0.1 * (i % 3);
    c.b[i] = 0.5;
  }
  lth_source *Ms = lth_source_csc_callback(N, N, cp_diag, ri_diag, diag_csc, &c, NULL);
  lth_source *Md = lth_source_callback(N, N, diag_dense, &c, NULL);
  ck_assert(Ms && Md);
  double times[41];
  for (int k = 0; k <= 40; k++) times[k] = 0.0125 * k + 0.00625; /* 0.5 between two */
  double scale_s = 0.0, scale_d = 0.0;
  lth_error es, ed;
  ck_assert_int_eq(lth_source_solve_scan(Ms, times, 41, 0.0, "M", &scale_s, &es), LTH_ESING);
  ck_assert_int_eq(lth_source_solve_scan(Md, times, 41, 0.0, "M", &scale_d, &ed), LTH_ESING);
  ck_assert_str_eq(es.message, ed.message);
  ck_assert(fabs(scale_s - scale_d) <= 4 * DBL_EPSILON * scale_d);
  /* a point near the zero: LTH_ECOND with the condition, as the LAPACK path */
  lth_source *Xs = lth_source_csc_callback(N, K, cp_x, ri_x, x_csc, NULL, NULL);
  lth_source *Xd = lth_source_callback(N, K, x_dense, NULL, NULL);
  lth_source *Ys = lth_source_solve(Ms, Xs, scale_d, 1e6, "M", NULL);
  lth_source *Yd = lth_source_solve(Md, Xd, scale_d, 1e6, "M", NULL);
  lth_jet *A = lth_jet_alloc(N, K, ORDER, NULL);
  double *w =
      malloc((lth_source_work_size(Ys, ORDER) + lth_source_work_size(Yd, ORDER) + 1) * sizeof *w);
  ck_assert_int_eq(lth_source_fill(Ys, 0.5 + 1e-8, 1, A, w, &es), LTH_ECOND);
  ck_assert_int_eq(lth_source_fill(Yd, 0.5 + 1e-8, 1, A, w, &ed), LTH_ECOND);
  ck_assert(es.has_cond && ed.has_cond && es.has_t && es.t == 0.5 + 1e-8);
  ck_assert(fabs(es.cond - ed.cond) <= 1e-6 * ed.cond);
  ck_assert_int_eq(lth_source_fill(Ys, 0.5, 1, A, w, &es), LTH_ESING);
  free(w);
  lth_jet_free(A);
  lth_source_free(Ys);
  lth_source_free(Yd);
  lth_source_free(Ms);
  lth_source_free(Md);
}
END_TEST

static Suite *diag_solve_suite(void) {
  Suite *s = suite_create("source_diag_solve");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_agrees_with_lapack);
  tcase_add_test(tc, test_singular_refused_alike);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(diag_solve_suite)
