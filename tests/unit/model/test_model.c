/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The model layer from C (include/lth/model.h): a DAE given as coefficients
 * in any order of unknowns and equations gives the same canonical system as
 * the block form; the structural-zero rule; coefficients as sources; the
 * summary; and misuse of the API. */
#include <string.h>

#include "lth/model.h"
#include "lth/problem.h"
#include "testutil.h"

static lth_expr *ex(const char *s) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(s, strlen(s), NULL, NULL, &e, NULL));
  return e;
}

/* The sliding mass (data/slope.lth) with unknowns (lambda, y, x, v, w) and
 * equations in a shuffled order:
 *   0 = x + 2y - 4,  w' = 2 lambda - g,  x' = v,  v' = lambda,  y' = w. */
static lth_model *slope_model(void) {
  lth_model *m = lth_model_alloc(NULL);
  const char *names[5] = {"lambda", "y", "x", "v", "w"};
  for (int k = 0; k < 5; k++) {
    ck_assert_int_eq(lth_model_add_variable(m, names[k], 0, 0, NULL), k);
  }
  for (int q = 0; q < 5; q++) {
    ck_assert_int_eq(lth_model_add_equation(m, 0, 0, NULL), q);
  }
  enum { L, Y, X, V, W };
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 0, X, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 0, Y, 2.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_F, 0, -1, -4.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 1, W, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 1, L, 2.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_F, 1, 0, -9.81, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 2, X, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 2, V, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 3, V, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 3, L, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 4, Y, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 4, W, 1.0, NULL));
  return m;
}

static void dense(const lth_system *sys, double t, double *A, double *f) {
  int s = lth_system_size(sys);
  lth_jet *J = lth_jet_alloc(s, s, 0, NULL), *F = lth_jet_alloc(s, 1, 0, NULL);
  size_t wn = lth_system_work_size(sys, 0);
  double *w = malloc((wn ? wn : 1) * sizeof *w);
  TU_ASSERT_OK(lth_system_eval(sys, t, 0, J, F, w, NULL));
  for (int i = 0; i < s; i++) {
    f[i] = LTH_JET_AT(F, 0, i, 0);
    for (int j = 0; j < s; j++) {
      A[i * s + j] = LTH_JET_AT(J, 0, i, j);
    }
  }
  free(w);
  lth_jet_free(J);
  lth_jet_free(F);
}

START_TEST(test_slope_any_order) {
  lth_model *m = slope_model();
  TU_ASSERT_OK(lth_model_analyze(m, 0.0, 2.0, NULL, 0, NULL));
  ck_assert_int_eq(lth_model_index(m), 3);
  ck_assert_int_eq(lth_model_manifold_dim(m), 2);
  ck_assert_int_eq(lth_model_block_size(m, 1), 2);
  ck_assert_int_eq(lth_model_block_size(m, 3), 1);
  /* canonical (v, w | y, x | lambda): groups in the order of their first unknown */
  const int want[5] = {3, 4, 1, 2, 0};
  const int *perm = lth_model_perm(m), *iperm = lth_model_iperm(m), *eqp = lth_model_eq_perm(m);
  for (int k = 0; k < 5; k++) {
    ck_assert_int_eq(perm[k], want[k]);
    ck_assert_int_eq(iperm[want[k]], k);
  }
  ck_assert_int_eq(eqp[0], 3); /* v' = lambda is row 1 */
  ck_assert_int_eq(eqp[4], 0); /* the constraint is row 5 */
  ck_assert_int_eq(lth_model_var_block(m, 0), 3);
  ck_assert_int_eq(lth_model_var_block(m, 2), 2);
  ck_assert_int_eq(lth_model_mass_count(m), 4);
  ck_assert_int_eq(lth_model_mass_block(m, 0)->kind, LTH_MASS_IDENTITY);
  /* the same system as data/slope.lth, up to the order of y and x */
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/slope.lth", dir ? dir : "data");
  lth_problem *pb = NULL;
  TU_ASSERT_OK(lth_problem_read(path, &pb, NULL));
  lth_system *sys = NULL;
  TU_ASSERT_OK(lth_model_system(m, &sys, NULL));
  double A1[25], f1[5], A2[25], f2[5];
  const int to_slope[5] = {0, 1, 3, 2, 4}; /* (v, w, y, x, lambda) -> (v, w, x, y, lambda) */
  dense(sys, 0.7, A1, f1);
  dense(lth_problem_system(pb), 0.7, A2, f2);
  for (int i = 0; i < 5; i++) {
    ck_assert(f1[i] == f2[to_slope[i]]);
    for (int j = 0; j < 5; j++) {
      ck_assert_msg(A1[i * 5 + j] == A2[to_slope[i] * 5 + to_slope[j]], "A(%d,%d)", i, j);
    }
  }
  char desc[1024];
  lth_model_describe(m, desc, sizeof desc);
  ck_assert_ptr_nonnull(strstr(desc, "z_2 = {y, x} (differential)"));
  ck_assert_ptr_nonnull(strstr(desc, "u   = {lambda} (algebraic)"));
  lth_system_free(sys);
  lth_problem_free(pb);
  lth_model_free(m);
}
END_TEST

/* Structural zeros: sin(t) - sin(t) is one, sin(t) on [0, pi] is not. */
START_TEST(test_structural_zero_rule) {
  lth_model *m = slope_model();
  /* lambda in the constraint with an identically zero coefficient: still index 3 */
  TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, 0, 0, ex("sin(t) - sin(t)"), NULL));
  TU_ASSERT_OK(lth_model_analyze(m, 0.0, M_PI, NULL, 0, NULL));
  ck_assert_int_eq(lth_model_index(m), 3);
  lth_model_free(m);
  m = slope_model();
  TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, 0, 0, ex("sin(t)"), NULL));
  lth_error err;
  ck_assert_int_eq(lth_model_analyze(m, 0.0, M_PI, NULL, 0, &err), LTH_EMODEL);
  /* lambda is then fixed by the constraint (index 1) and no Hessenberg part is left */
  ck_assert_ptr_nonnull(strstr(err.message, "every algebraic unknown, {lambda}, is fixed by the "
                                            "equation 1 (index 1)"));
  lth_model_free(m);
}
END_TEST

static int mass_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  (void)ld;
  coef[0] = 2.0 + t; /* 2 + t: Taylor coefficients 2 + t, 1, 0, ... */
  if (order >= 1) {
    coef[stride] = 1.0;
  }
  return 0;
}

/* A callback coefficient: a time-varying mass matrix, exactly eliminated. */
START_TEST(test_source_coefficient) {
  lth_model *m = slope_model();
  /* v' = lambda becomes (2 + t) v' = lambda: replace by a fresh model */
  lth_model_free(m);
  m = lth_model_alloc(NULL);
  lth_model_add_variable(m, "x", 3, 11, NULL);
  lth_model_add_variable(m, "v", 3, 13, NULL);
  lth_model_add_variable(m, "lambda", 3, 15, NULL);
  for (int q = 0; q < 3; q++) {
    lth_model_add_equation(m, 5 + q, 1, NULL);
  }
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 0, 0, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 0, 1, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_source(m, LTH_MODEL_E, 1, 1,
                                    lth_source_callback(1, 1, mass_cb, NULL, NULL), NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 1, 2, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 2, 0, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, 2, -1, ex("-cos(t)"), NULL));
  TU_ASSERT_OK(lth_model_analyze(m, 0.0, 1.0, NULL, 0, NULL));
  ck_assert_int_eq(lth_model_index(m), 3);
  ck_assert_int_eq(lth_model_mass_block(m, 0)->kind, LTH_MASS_VARYING);
  ck_assert(fabs(lth_model_mass_block(m, 0)->size - 3.0) < 1e-15); /* max |2 + t| on [0, 1] */
  lth_system *sys = NULL;
  TU_ASSERT_OK(lth_model_system(m, &sys, NULL));
  /* A(1,3) = 1/(2 + t) and its derivative -1/(2 + t)^2 */
  lth_jet *A = lth_jet_alloc(3, 3, 1, NULL), *f = lth_jet_alloc(3, 1, 1, NULL);
  double w[256], t = 0.4;
  TU_ASSERT_OK(lth_system_eval(sys, t, 1, A, f, w, NULL));
  ck_assert(fabs(LTH_JET_AT(A, 0, 0, 2) - 1 / (2 + t)) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(A, 1, 0, 2) + 1 / ((2 + t) * (2 + t))) < 1e-15);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_system_free(sys);
  lth_model_free(m);
}
END_TEST

/* Two unknowns x1, x2 and two equations without lines, E z' = A z + f with
 * constant E and A (row-major here); every derivative appears. */
static lth_status no_algebraic(const double E[4], const double A[4], lth_error *err) {
  lth_model *m = lth_model_alloc(NULL);
  ck_assert_int_eq(lth_model_add_variable(m, "x1", 0, 0, NULL), 0);
  ck_assert_int_eq(lth_model_add_variable(m, "x2", 0, 0, NULL), 1);
  for (int q = 0; q < 2; q++) {
    ck_assert_int_eq(lth_model_add_equation(m, 0, 0, NULL), q);
    for (int v = 0; v < 2; v++) {
      if (E[2 * q + v] != 0.0) {
        TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, q, v, E[2 * q + v], NULL));
      }
      if (A[2 * q + v] != 0.0) {
        TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, q, v, A[2 * q + v], NULL));
      }
    }
  }
  lth_status st = lth_model_analyze(m, 0.0, 1.0, NULL, 0, err);
  lth_model_free(m);
  return st;
}

/* Every derivative appears: an ODE only when E is invertible; otherwise the
 * refusal says which DAE it is (index 1: E - A Q invertible, Q onto ker E)
 * and which equations combine to one without derivatives. */
START_TEST(test_no_algebraic_unknown) {
  lth_error err;
  const double I[4] = {1, 0, 0, 1}, ones[4] = {1, 1, 1, 1}, minus_I[4] = {-1, 0, 0, -1};
  ck_assert_int_eq(no_algebraic(I, minus_I, &err), LTH_EMODEL);
  ck_assert_ptr_nonnull(strstr(err.message, "is invertible: the equations are an ODE"));
  /* E = [1 1; 1 1], A = -I: ker E = (1, -1), E - A Q = [1.5 0.5; 0.5 1.5]: index 1 */
  ck_assert_int_eq(no_algebraic(ones, minus_I, &err), LTH_EMODEL);
  ck_assert_ptr_nonnull(strstr(err.message, "rank 1 of 2"));
  ck_assert_ptr_nonnull(
      strstr(err.message, "a combination of the equations 1, 2 has no derivative"));
  ck_assert_ptr_nonnull(strstr(err.message, "A DAE of index 1 "));
  ck_assert_ptr_null(strstr(err.message, "ODE"));
  /* E = [0 0; 1 1], A = [1 1; 0 1]: E - A Q = [0 0; 1.5 0.5] is singular */
  const double E2[4] = {0, 0, 1, 1}, A2[4] = {1, 1, 0, 1};
  ck_assert_int_eq(no_algebraic(E2, A2, &err), LTH_EMODEL);
  ck_assert_ptr_nonnull(strstr(err.message, "E is singular at every t checked (rank 1 of 2 at t = "
                                            "0.0731): equation 1 has no derivative"));
  ck_assert_ptr_nonnull(strstr(err.message, "A DAE of index >= 2"));
}
END_TEST

START_TEST(test_misuse) {
  lth_model *m = lth_model_alloc(NULL);
  lth_error err;
  ck_assert_int_eq(lth_model_add_variable(m, "x", 0, 0, NULL), 0);
  ck_assert_int_eq(lth_model_add_variable(m, "x", 0, 0, &err), -1);
  ck_assert_int_eq(err.status, LTH_EINVAL);
  ck_assert_int_eq(lth_model_add_variable(m, "", 0, 0, &err), -1);
  ck_assert_int_eq(lth_model_add_equation(m, 0, 0, NULL), 0);
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 0, 0, 1.0, NULL));
  ck_assert_int_eq(lth_model_set_const(m, LTH_MODEL_A, 1, 0, 2.0, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_model_set_const(m, LTH_MODEL_A, 0, 0, NAN, &err), LTH_EINVAL);
  ck_assert_int_eq(
      lth_model_set_source(m, LTH_MODEL_A, 0, 0, lth_source_identity(2, 2, NULL), &err), LTH_EDIM);
  ck_assert_int_eq(lth_model_analyze(m, 1.0, 0.0, NULL, 0, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_model_analyze(m, 0.0, 1.0, NULL, 0, &err), LTH_EMODEL); /* an ODE */
  ck_assert_int_eq(lth_model_index(m), 0);
  lth_system *sys = NULL;
  ck_assert_int_eq(lth_model_system(m, &sys, &err), LTH_EINVAL);
  lth_model_free(m);
  /* a coefficient set twice is found by the analysis */
  m = slope_model();
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 3, 0, 2.0, NULL));
  ck_assert_int_eq(lth_model_analyze(m, 0.0, 1.0, NULL, 0, &err), LTH_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "the coefficient A of equation 4 is set twice"));
  ck_assert_int_eq(lth_model_find_variable(m, "w", 1), 4);
  ck_assert_int_eq(lth_model_find_variable(m, "ww", 2), -1);
  lth_model_free(m);
}
END_TEST

static Suite *model_suite(void) {
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("model");
  tcase_add_test(tc, test_slope_any_order);
  tcase_add_test(tc, test_structural_zero_rule);
  tcase_add_test(tc, test_source_coefficient);
  tcase_add_test(tc, test_no_algebraic_unknown);
  tcase_add_test(tc, test_misuse);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(model_suite)
