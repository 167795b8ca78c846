/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A mass matrix that is not diagonal kept as a sparse LU by the operator
 * form (lth_opsys_mass_rows; index 2 and 3 chains with coupled derivatives,
 * and masses on two block rows): the operator point against the dense one
 * (tests/fixtures/opcompare.h), A x against the dense solve of M,
 * lth_source_solve_sparse against LAPACK, and the refusal of an M that
 * changes with t. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/opdecomp.h"
#include "lth/problem.h"
#include "lth/source.h"
#include "opcompare.h"
#include "testutil.h"

/* ---- a mass matrix that is not diagonal (lth_opsys_mass_rows) ----
 * The equation form of a chain of n masses with coupled derivatives,
 * m_i v_i' + 0.1 v_{i-1}' + 0.1 v_{i+1}' = ..., m = 2 constraints: index 3
 * (positions constrained) or index 2 (velocities constrained).  Block row 1
 * is M^{-1} A(1,j) with M tridiagonal: the operator form keeps M as a
 * sparse LU, the dense point solves it by LAPACK. */

/* The chain's equations into buf (vary: the first mass is (1 + 0.1 t);
 * index3 = 2: the positions' derivatives coupled too, x_i' + 0.05 x_{i-1}'
 * + 0.05 x_{i+1}' = v_i, a mass matrix on a second block row). */
static void mass_chain_text(char *buf, size_t size, int n, int index3, int vary) {
  size_t len = 0;
#define PUT(...) len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__)
  PUT("problem equations\n");
  if (index3) {
    PUT("variables");
    for (int i = 1; i <= n; i++) PUT(" x%d", i);
    PUT("\n");
  }
  PUT("variables");
  for (int i = 1; i <= n; i++) PUT(" v%d", i);
  PUT("\nvariables lam1 lam2\ninterval 0 2\ngrid 5\n");
  PUT("k(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n");
  const char *u = index3 ? "x" : "v";
  int a[2] = {1, n / 2 + 1}; /* constraint j: 2.385 u_a - u_{a+1} */
  for (int i = 1; i <= n; i++) {
    if (index3) {
      PUT("x%d'", i);
      if (index3 == 2 && i > 1) PUT(" + 0.05*x%d'", i - 1);
      if (index3 == 2 && i < n) PUT(" + 0.05*x%d'", i + 1);
      PUT(" = v%d\n", i);
    }
    if (vary && i == 1) {
      PUT("(1 + 0.1*t)*v1'");
    } else {
      PUT("%g*v%d'", 1 + ((i - 1) % 3) / 2.0, i);
    }
    if (i > 1) PUT(" + 0.1*v%d'", i - 1);
    if (i < n) PUT(" + 0.1*v%d'", i + 1);
    PUT(" = -c(t)*(2*v%d", i);
    if (i > 1) PUT(" - v%d", i - 1);
    if (i < n) PUT(" - v%d", i + 1);
    PUT(")");
    if (index3) {
      PUT(" - k(t)*(2*x%d", i);
      if (i > 1) PUT(" - x%d", i - 1);
      if (i < n) PUT(" - x%d", i + 1);
      PUT(")");
    }
    for (int j = 0; j < 2; j++) {
      if (i == a[j]) PUT(" + 2.385*lam%d", j + 1);
      if (i == a[j] + 1) PUT(" - lam%d", j + 1);
    }
    if (i == n / 2) PUT(" + sin(3*t)");
    PUT("\n");
  }
  for (int j = 0; j < 2; j++) PUT("0 = 2.385*%s%d - %s%d\n", u, a[j], u, a[j] + 1);
#undef PUT
}

static lth_status mass_chain_parse(int n, int index3, int vary, lth_problem **pb,
                                   lth_error *err) {
  size_t size = 256 * (size_t)n + 1024;
  char *buf = malloc(size);
  ck_assert(buf);
  mass_chain_text(buf, size, n, index3, vary);
  *pb = NULL;
  lth_status st = lth_problem_parse(buf, strlen(buf), "chain", NULL, pb, err);
  free(buf);
  return st;
}

static lth_problem *mass_chain(int n, int index3, int vary) {
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(mass_chain_parse(n, index3, vary, &pb, &err) == LTH_OK, "%s", err.message);
  return pb;
}

/* y = A(t) x from the system's own (dense) sources: the dense solve of M. */
static lth_jet *dense_A_times(const lth_system *sys, double t, const lth_jet *x) {
  int r = lth_system_index(sys), s = lth_system_size(sys), K = x->order;
  lth_jet *y = jet_new(s, x->cols, K);
  lth_jet_set_zero(y, K);
  y->order = K;
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      const lth_source *src = lth_system_A(sys, i, j);
      if (!src) continue;
      int ni = lth_system_block_size(sys, i), nj = lth_system_block_size(sys, j);
      lth_jet *B = jet_new(ni, nj, K);
      double *work = malloc((lth_source_work_size(src, K) + 1) * sizeof(double));
      TU_ASSERT_OK(lth_source_fill(src, t, K, B, work, NULL));
      lth_jet xj = lth_jet_view(x, lth_system_block_offset(sys, j), 0, nj, x->cols);
      lth_jet yi = lth_jet_view(y, lth_system_block_offset(sys, i), 0, ni, x->cols);
      TU_ASSERT_OK(lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, B, &xj, 1.0, &yi, NULL));
      free(work);
      lth_jet_free(B);
    }
  }
  return y;
}

START_TEST(test_mass_rows) {
  for (int index3 = 0; index3 <= 2; index3++) {
    for (int n = 70; n <= 101; n += 31) { /* > LTH_DEFAULT_SPARSE_MASS_MIN_ROWS */
      lth_problem *pb = mass_chain(n, index3, 0);
      const lth_system *sys = lth_problem_system(pb);
      lth_opsys *os = lth_opsys_from_system(sys, NULL);
      ck_assert(os);
      ck_assert_int_eq(lth_opsys_mass_rows(os),
                       lth_op_sparse_pi_available() * (index3 == 2 ? 2 : 1));
      for (int k = 0; k < 3; k++) {
        double t = 0.2 + 0.6 * k;
        tu_seed(500 + (uint64_t)(k + 10 * n + 1000 * index3));
        cmp_result rs = compare_at(sys, 1, t, 3);
        ck_assert_msg(!rs.op_refused && rs.worst <= 1.0,
                      "index %d (%d), n = %d, t = %g: difference %.3g x tolerance",
                      2 + (index3 > 0), index3, n, t, rs.worst);
        /* A x (the mass matrix's row through the sparse LU) against the
         * dense solve of M, orders 0..2 */
        lth_opdecomp_ws *ows = lth_opdecomp_ws_alloc(os, 2, NULL);
        lth_oppoint *op = lth_oppoint_alloc(os, 2, 3, NULL);
        ck_assert(ows && op);
        TU_ASSERT_OK(lth_opdecomp_at(ows, t, op, NULL));
        int s = lth_system_size(sys);
        lth_jet *x = jet_new(s, 5, 2), *y = jet_new(s, 5, 2);
        tu_random_jet(x, 2);
        TU_ASSERT_OK(lth_oppoint_apply_A(op, x, y, NULL));
        lth_jet *ref = dense_A_times(sys, t, x);
        double d = diff(y, ref, fmax(1.0, maxabs(ref)));
        ck_assert_msg(d <= 1e3 * DBL_EPSILON * s, "A x: %.3g", d);
        if (lth_opsys_mass_rows(os)) { /* M^{-1} has no sparse form */
          lth_opblock b;
          lth_error err;
          ck_assert_int_eq(lth_oppoint_block(op, 1, 1, &b, &err), LTH_EINVAL);
          ck_assert(strstr(err.message, "mass matrix") != NULL);
        }
        lth_jet_free(x);
        lth_jet_free(y);
        lth_jet_free(ref);
        lth_oppoint_free(op);
        lth_opdecomp_ws_free(ows);
      }
      lth_opsys_free(os);
      lth_problem_free(pb);
    }
  }
}
END_TEST

/* lth_source_solve_sparse against LAPACK's dense solve of the same M. */
START_TEST(test_mass_solve_sparse) {
  lth_problem *pb = mass_chain(80, 1, 0);
  const lth_system *sys = lth_problem_system(pb);
  const lth_source *M = NULL, *X = NULL;
  const char *label = NULL;
  ck_assert(lth_source_solve_parts(lth_system_A(sys, 1, 2), &M, &X, &label));
  ck_assert_msg(label && strstr(label, "block") != NULL, "label %s", label ? label : "(null)");
  int n = lth_source_rows(M), k = 3;
  lth_jet *Mj = jet_new(n, n, 0);
  double *work = malloc((lth_source_work_size(M, 0) + 1) * sizeof(double));
  TU_ASSERT_OK(lth_source_fill(M, 0.5, 0, Mj, work, NULL));
  double *Y = malloc((size_t)n * k * sizeof(double)), *Z = malloc((size_t)n * k * sizeof(double));
  double *A = malloc((size_t)n * n * sizeof(double));
  lapack_int *piv = malloc((size_t)n * sizeof(lapack_int));
  for (int q = 0; q < n * k; q++) Y[q] = Z[q] = sin(1.0 + q);
  for (int q = 0; q < n * n; q++) A[q] = LTH_JET_AT(Mj, 0, q % n, q / n);
  ck_assert_int_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, k, A, n, piv, Z, n), 0);
  double inv = 0.0;
  lth_status st = lth_source_solve_sparse(M, 0.5, Y, n, k, &inv, NULL);
  if (lth_op_sparse_pi_available()) {
    TU_ASSERT_OK(st);
    double d = 0.0, zm = 0.0;
    for (int q = 0; q < n * k; q++) {
      d = fmax(d, fabs(Y[q] - Z[q]));
      zm = fmax(zm, fabs(Z[q]));
    }
    ck_assert_msg(d <= 1e2 * DBL_EPSILON * zm, "M^-1 Y: %.3g", d);
    ck_assert(inv > 0.5 && inv < 10.0); /* M diagonally dominant, diagonal >= 1 */
  } else {
    ck_assert_int_eq(st, LTH_EINVAL);
  }
  free(Y);
  free(Z);
  free(A);
  free(piv);
  free(work);
  lth_jet_free(Mj);
  lth_problem_free(pb);
}
END_TEST

/* A mass matrix that changes with t: while its dense solve fits, the
 * operator form keeps it (its enclosure shows the change) and agrees with
 * the dense point; beyond (n > 7071) it refuses a point naming it, as the
 * dense path refuses the solve. */
START_TEST(test_mass_varying) {
  lth_problem *pb = mass_chain(70, 1, 1);
  const lth_system *sys = lth_problem_system(pb);
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  ck_assert(os);
  ck_assert_int_eq(lth_opsys_mass_rows(os), 0);
  ck_assert_int_eq(lth_source_solve_fits(lth_system_A(sys, 1, 1), NULL), LTH_OK);
  tu_seed(4711);
  cmp_result rs = compare_at(sys, 1, 0.3, 2);
  ck_assert_msg(!rs.op_refused && rs.worst <= 1.0, "varying M: %.3g x tolerance", rs.worst);
  lth_opsys_free(os);
  lth_problem_free(pb);
  if (!lth_op_sparse_pi_available()) { /* without KLU the file's check refuses M, naming KLU */
    lth_error err;
    ck_assert_int_eq(mass_chain_parse(7100, 1, 1, &pb, &err), LTH_ENOMEM);
    ck_assert_msg(strstr(err.message, "SuiteSparse KLU") != NULL, "%s", err.message);
    return;
  }
  pb = mass_chain(7100, 1, 1);
  sys = lth_problem_system(pb);
  os = lth_opsys_from_system(sys, NULL);
  ck_assert(os);
  ck_assert_int_eq(lth_opsys_mass_rows(os), lth_op_sparse_pi_available());
  if (lth_opsys_mass_rows(os)) {
    lth_opdecomp_ws *ows = lth_opdecomp_ws_alloc(os, 0, NULL);
    lth_oppoint *op = lth_oppoint_alloc(os, 0, 1, NULL);
    lth_error err;
    ck_assert_int_eq(lth_opdecomp_at(ows, 0.3, op, &err), LTH_EDATA);
    ck_assert_msg(strstr(err.message, "changes with t") && err.t == 0.3, "%s", err.message);
    lth_oppoint_free(op);
    lth_opdecomp_ws_free(ows);
  }
  lth_error err;
  int refused = 0; /* the solves of row 1 do not fit the dense path */
  for (int j = 1; j <= lth_system_index(sys); j++) {
    const lth_source *a = lth_system_A(sys, 1, j);
    refused += a && lth_source_solve_fits(a, NULL) == LTH_ENOMEM;
  }
  ck_assert(refused >= 1);
  ck_assert(lth_decomp_ws_alloc(sys, 0, &err) == NULL); /* refused before anything s x s */
  ck_assert_msg(err.status == LTH_ENOMEM && strstr(err.message, "not diagonal"), "%s",
                err.message);
  lth_opsys_free(os);
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("opdecomp_mass");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_mass_rows);
  tcase_add_test(tc, test_mass_solve_sparse);
  tcase_add_test(tc, test_mass_varying);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
