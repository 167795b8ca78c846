/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sparse sources (include/lth/source.h, lib/source/source_sparse.c):
 *  - a CSC callback source gives the same jets (orders 0..4) as a dense
 *    callback source with the same values, entry for entry, and the values
 *    on its pattern through lth_source_fill_csc;
 *  - its pattern is checked, its callback's failure and non-finite values are
 *    reported with t;
 *  - a sum of scalar functions of t times constant sparse matrices (the
 *    mm(...) blocks of data files) has the jets (phi M)_m = phi_m M: it
 *    agrees with the same entries written as expressions, orders 0..4, to
 *    the rounding of the sums, and its enclosures contain its values. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/expr.h"
#include "lth/source.h"
#include "source/source_sparse.h"
#include "testutil.h"

enum { ORDER = 4, ROWS = 5, COLS = 6 };

/* Entry values a + b sin(w t + c): Taylor coefficient m at t is
 * b w^m sin(w t + c + m pi/2) / m! (+ a for m = 0). */
typedef struct wave {
  double a, b, w, c;
} wave;

static double wave_coef(const wave *v, double t, int m) {
  double f = 1.0;
  for (int k = 1; k <= m; k++) {
    f *= v->w / k;
  }
  return (m == 0 ? v->a : 0.0) + v->b * f * sin(v->w * t + v->c + m * M_PI / 2);
}

/* A random pattern (column 2 empty, column 4 full) with waves on it. */
typedef struct problem {
  int colptr[COLS + 1], rowind[ROWS * COLS], nnz;
  wave v[ROWS * COLS];
  int fail_at_negative_t; /* the callback reports failure for t < 0 */
  int nan_entry;          /* >= 0: that entry's order-2 coefficient is NaN */
} problem;

static void random_problem(problem *pr) {
  memset(pr, 0, sizeof *pr);
  pr->nan_entry = -1;
  for (int j = 0; j < COLS; j++) {
    pr->colptr[j] = pr->nnz;
    for (int i = 0; i < ROWS; i++) {
      int keep = j == 4 || (j != 2 && tu_uniform(0.0, 1.0) < 0.4);
      if (keep) {
        pr->v[pr->nnz] =
            (wave){tu_uniform(-2, 2), tu_uniform(-1, 1), tu_uniform(0.3, 2.7), tu_uniform(0, 3)};
        pr->rowind[pr->nnz++] = i;
      }
    }
  }
  pr->colptr[COLS] = pr->nnz;
}

static int csc_values(void *ctx, double t, int order, double *values, size_t stride) {
  const problem *pr = ctx;
  if (pr->fail_at_negative_t && t < 0) {
    return 7;
  }
  for (int m = 0; m <= order; m++) {
    for (int p = 0; p < pr->nnz; p++) {
      values[(size_t)m * stride + p] =
          p == pr->nan_entry && m == 2 ? NAN : wave_coef(&pr->v[p], t, m);
    }
  }
  return 0;
}

static int dense_values(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const problem *pr = ctx;
  for (int m = 0; m <= order; m++) {
    for (int j = 0; j < COLS; j++) {
      for (int p = pr->colptr[j]; p < pr->colptr[j + 1]; p++) {
        coef[(size_t)m * stride + pr->rowind[p] + (size_t)j * ld] = wave_coef(&pr->v[p], t, m);
      }
    }
  }
  return 0;
}

START_TEST(test_csc_callback_like_dense) {
  tu_seed(2385);
  problem pr;
  random_problem(&pr);
  lth_error err;
  lth_error_clear(&err);
  lth_source *sp = lth_source_csc_callback(ROWS, COLS, pr.colptr, pr.rowind, csc_values, &pr, &err);
  lth_source *de = lth_source_callback(ROWS, COLS, dense_values, &pr, &err);
  ck_assert_msg(sp && de, "%s", err.message);
  ck_assert_int_eq(lth_source_is_sparse(sp), 1);
  ck_assert_int_eq(lth_source_is_sparse(de), 0);
  int nnz;
  const int *cp, *ri;
  TU_ASSERT_OK(lth_source_csc_pattern(sp, &nnz, &cp, &ri, NULL));
  ck_assert_int_eq(nnz, pr.nnz);
  ck_assert_int_eq(memcmp(cp, pr.colptr, sizeof pr.colptr), 0);
  ck_assert_int_eq(memcmp(ri, pr.rowind, (size_t)nnz * sizeof *ri), 0);
  ck_assert_int_eq(lth_source_csc_pattern(de, &nnz, &cp, &ri, &err), LTH_EINVAL);

  lth_jet A, B;
  TU_ASSERT_OK(lth_jet_init(&A, ROWS, COLS, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, ROWS, COLS, ORDER, NULL));
  double *work = malloc(lth_source_work_size(sp, ORDER) * sizeof *work);
  size_t stride = (size_t)pr.nnz + 3; /* a stride beyond nnz */
  double *vals = malloc(stride * (ORDER + 1) * sizeof *vals);
  const double ts[] = {-1.3, 0.0, 0.7, 2.385};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    for (int order = 0; order <= ORDER; order++) {
      tu_random_jet(&A, ORDER); /* garbage that the fill must overwrite */
      TU_ASSERT_OK(lth_source_fill(sp, ts[k], order, &A, work, NULL));
      TU_ASSERT_OK(lth_source_fill(de, ts[k], order, &B, NULL, NULL));
      ck_assert_int_eq(A.order, order);
      /* the same numbers placed: equal, not merely close */
      for (int m = 0; m <= order; m++) {
        for (int j = 0; j < COLS; j++) {
          for (int i = 0; i < ROWS; i++) {
            ck_assert_msg(LTH_JET_AT(&A, m, i, j) == LTH_JET_AT(&B, m, i, j),
                          "t = %g, order %d: entry (%d,%d) %.17g != %.17g", ts[k], m, i, j,
                          LTH_JET_AT(&A, m, i, j), LTH_JET_AT(&B, m, i, j));
          }
        }
      }
      TU_ASSERT_OK(lth_source_fill_csc(sp, ts[k], order, vals, stride, work, NULL));
      for (int m = 0; m <= order; m++) {
        for (int j = 0; j < COLS; j++) {
          for (int p = cp[j]; p < cp[j + 1]; p++) {
            ck_assert(vals[(size_t)m * stride + p] == LTH_JET_AT(&B, m, ri[p], j));
          }
        }
      }
    }
  }
  /* the callback's failure and a NaN are errors with t */
  pr.fail_at_negative_t = 1;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_source_fill(sp, -0.5, 2, &A, work, &err), LTH_ECALLBACK);
  ck_assert(err.has_t && err.t == -0.5);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_source_fill_csc(sp, -0.5, 2, vals, stride, work, &err), LTH_ECALLBACK);
  pr.fail_at_negative_t = 0;
  pr.nan_entry = pr.colptr[4] + 1; /* row 2 of column 5 (1-based) */
  lth_error_clear(&err);
  ck_assert_int_eq(lth_source_fill(sp, 0.25, 2, &A, work, &err), LTH_ENOTFINITE);
  ck_assert(err.has_t && err.t == 0.25);
  ck_assert_ptr_nonnull(strstr(err.message, "(2,5)"));
  lth_error_clear(&err);
  ck_assert_int_eq(lth_source_fill_csc(sp, 0.25, 2, vals, stride, work, &err), LTH_ENOTFINITE);
  ck_assert_ptr_nonnull(strstr(err.message, "(2,5)"));
  ck_assert_ptr_nonnull(strstr(err.message, "order 2"));
  /* a stride below nnz is refused */
  ck_assert_int_eq(lth_source_fill_csc(sp, 0.25, 1, vals, (size_t)pr.nnz - 1, work, &err),
                   LTH_EDIM);
  free(vals);
  free(work);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_source_free(sp);
  lth_source_free(de);
}
END_TEST

START_TEST(test_csc_pattern_checked) {
  problem pr;
  lth_error err;
  const int good[] = {0, 1, 3}, rows_ok[] = {1, 0, 2};
  lth_source *s = lth_source_csc_callback(3, 2, good, rows_ok, csc_values, &pr, NULL);
  ck_assert_ptr_nonnull(s);
  lth_source_free(s);
  struct {
    int colptr[3], rowind[3];
    const char *msg;
  } bad[] = {
      {{1, 1, 3}, {1, 0, 2}, "colptr[0] = 1"},
      {{0, 2, 1}, {0, 1, 2}, "decreases at column 2"},
      {{0, 1, 3}, {1, 0, 3}, "row index 3, outside 0..2"},
      {{0, 1, 3}, {1, 2, 0}, "not strictly increasing"},
      {{0, 1, 3}, {1, 2, 2}, "not strictly increasing"}, /* an entry twice */
      {{0, 1, 3}, {-1, 0, 2}, "row index -1"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    lth_error_clear(&err);
    ck_assert_ptr_null(
        lth_source_csc_callback(3, 2, bad[k].colptr, bad[k].rowind, csc_values, &pr, &err));
    ck_assert_int_eq(err.status, LTH_EINVAL);
    ck_assert_msg(strstr(err.message, bad[k].msg) != NULL, "case %zu: %s", k, err.message);
  }
  lth_error_clear(&err);
  ck_assert_ptr_null(lth_source_csc_callback(3, 2, good, rows_ok, NULL, &pr, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
}
END_TEST

/* ---- sums phi_k(t) M_k ---- */

static const char *const PHI[] = {"-(1 + 0.1*sin(t))", NULL, "exp(-t/3)*cos(2*t)"};
static const double CONST_COEF[] = {0.0, -1.0, 0.0}; /* the coefficient of term 2 */

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(s, strlen(s), NULL, NULL, &e, NULL));
  return e;
}

/* Three random sparse 4 x 3 matrices; *dense[k] their entries. */
static void random_terms(lth_csc **m, double dense[3][12]) {
  for (int k = 0; k < 3; k++) {
    int ri[12], ci[12], n = 0;
    double v[12];
    for (int j = 0; j < 3; j++) {
      for (int i = 0; i < 4; i++) {
        dense[k][i + 4 * j] = 0.0;
        if (tu_uniform(0, 1) < 0.5) {
          ri[n] = i;
          ci[n] = j;
          v[n] = dense[k][i + 4 * j] = tu_uniform(-3, 3);
          n++;
        }
      }
    }
    m[k] = lth_csc_from_triplets(4, 3, (size_t)n, ri, ci, v, NULL);
    ck_assert_ptr_nonnull(m[k]);
  }
}

START_TEST(test_sparse_sum_jets) {
  tu_seed(77);
  lth_csc *m[3];
  double dense[3][12];
  random_terms(m, dense);
  lth_expr *phi[3];
  for (int k = 0; k < 3; k++) {
    phi[k] = PHI[k] ? parse(PHI[k]) : NULL;
  }
  lth_source *s = lth_source_sparse_sum(4, 3, 3, phi, CONST_COEF, m, NULL);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(lth_source_is_sparse(s), 1);
  ck_assert_int_eq(lth_source_can_enclose(s), 1);
  /* the same entries as expressions: sum_k phi_k * M_k(i,j) */
  lth_expr *ent[12];
  for (int e = 0; e < 12; e++) {
    char buf[512] = "0";
    for (int k = 0; k < 3; k++) {
      size_t n = strlen(buf);
      if (dense[k][e] != 0.0) {
        snprintf(buf + n, sizeof buf - n, " + (%s)*(%.17g)", PHI[k] ? PHI[k] : "-1", dense[k][e]);
      }
    }
    ent[e] = parse(buf);
  }
  lth_source *x = lth_source_expr(4, 3, ent, NULL);
  ck_assert_ptr_nonnull(x);
  lth_jet A, B;
  TU_ASSERT_OK(lth_jet_init(&A, 4, 3, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, 4, 3, ORDER, NULL));
  double *ws = malloc(lth_source_work_size(s, ORDER) * sizeof *ws);
  double *wx = malloc(lth_source_work_size(x, ORDER) * sizeof *wx);
  double *vals = malloc(12 * (ORDER + 1) * sizeof *vals);
  int nnz;
  const int *cp, *ri;
  TU_ASSERT_OK(lth_source_csc_pattern(s, &nnz, &cp, &ri, NULL));
  for (int k = 0; k < 3; k++) { /* the pattern is the union of the terms' */
    for (int e = 0; e < 12; e++) {
      int j = e / 4, i = e % 4, in = 0;
      for (int p = cp[j]; p < cp[j + 1]; p++) {
        in |= ri[p] == i;
      }
      ck_assert(dense[k][e] == 0.0 || in);
    }
  }
  const double ts[] = {-2.1, 0.0, 0.9, 3.7};
  for (size_t q = 0; q < sizeof ts / sizeof ts[0]; q++) {
    TU_ASSERT_OK(lth_source_fill(s, ts[q], ORDER, &A, ws, NULL));
    TU_ASSERT_OK(lth_source_fill(x, ts[q], ORDER, &B, wx, NULL));
    TU_ASSERT_OK(lth_source_fill_csc(s, ts[q], ORDER, vals, (size_t)nnz, ws, NULL));
    for (int mo = 0; mo <= ORDER; mo++) {
      /* each coefficient is a sum of three products of exact-to-rounding
       * factors (phi's jet has rounding of order its size, its Taylor
       * recurrences add a few ulps): 64 eps times the size of the terms */
      double scale = 0.0;
      for (int e = 0; e < 12; e++) {
        scale = fmax(scale, fabs(LTH_JET_AT(&B, mo, e % 4, e / 4)));
      }
      double tol = 64 * DBL_EPSILON * fmax(scale, 3.0 * 3.0 * 2.0);
      for (int e = 0; e < 12; e++) {
        double a = LTH_JET_AT(&A, mo, e % 4, e / 4), b = LTH_JET_AT(&B, mo, e % 4, e / 4);
        ck_assert_msg(fabs(a - b) <= tol, "t = %g order %d entry %d: %.17g vs %.17g", ts[q], mo, e,
                      a, b);
      }
      for (int j = 0; j < 3; j++) { /* the values on the pattern are the dense view's */
        for (int p = cp[j]; p < cp[j + 1]; p++) {
          ck_assert(vals[(size_t)mo * nnz + p] == LTH_JET_AT(&A, mo, ri[p], j));
        }
      }
    }
  }
  /* enclosures over [a, b] contain the coefficients at points inside */
  size_t we = lth_source_enclose_work_size(s, ORDER);
  lth_interval *work = malloc((we ? we : 1) * sizeof *work);
  lth_interval coef[12 * (ORDER + 1)];
  TU_ASSERT_OK(lth_source_enclose(s, 0.4, 0.6, ORDER, coef, work, NULL));
  for (double t = 0.4; t <= 0.6; t += 0.05) {
    TU_ASSERT_OK(lth_source_fill(s, t, ORDER, &A, ws, NULL));
    for (int mo = 0; mo <= ORDER; mo++) {
      for (int e = 0; e < 12; e++) {
        double a = LTH_JET_AT(&A, mo, e % 4, e / 4);
        const lth_interval *iv = &coef[mo * 12 + e];
        ck_assert_msg(iv->lo <= a && a <= iv->hi,
                      "t = %g order %d entry %d: %.17g outside [%g, %g]", t, mo, e, a, iv->lo,
                      iv->hi);
      }
    }
  }
  free(work);
  free(vals);
  free(ws);
  free(wx);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_source_free(s);
  lth_source_free(x);
}
END_TEST

START_TEST(test_sparse_sum_refusals) {
  tu_seed(5);
  lth_csc *m[3];
  double dense[3][12];
  random_terms(m, dense);
  lth_expr *phi[3] = {NULL, NULL, NULL};
  lth_error err;
  lth_error_clear(&err);
  /* a term of another size: refused, and everything given is freed (ASan) */
  ck_assert_ptr_null(lth_source_sparse_sum(3, 4, 3, phi, CONST_COEF, m, &err));
  ck_assert_int_eq(err.status, LTH_EDIM);
}
END_TEST

static Suite *source_sparse_suite(void) {
  Suite *s = suite_create("source_sparse");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_csc_callback_like_dense);
  tcase_add_test(tc, test_csc_pattern_checked);
  tcase_add_test(tc, test_sparse_sum_jets);
  tcase_add_test(tc, test_sparse_sum_refusals);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(source_sparse_suite)
