/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A model read from a caller's own file format: the file, lines and names the
 * caller gives come back through lth_model_nvars, lth_model_nequations,
 * lth_model_var_name and lth_model_equation_line, and an error of structure
 * names the file and line set with lth_model_set_file /
 * lth_model_add_equation. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lth/model.h"
#include "testutil.h"

/* The "file" of a caller's format, one equation per line from line 3:
 *   x' = v,  v' = lambda + sin(t),  0 = x - 1.5 [+ lambda]   (index 3). */
static lth_model *cart(const char *file, int bad) {
  lth_model *m = lth_model_alloc(NULL);
  ck_assert_ptr_nonnull(m);
  lth_model_set_file(m, file);
  const char *names[3] = {"lambda", "x", "v"};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_eq(lth_model_add_variable(m, names[k], 1, 7 + 8 * k, NULL), k);
  }
  enum { L, X, V };
  for (int q = 0; q < 3; q++) {
    ck_assert_int_eq(lth_model_add_equation(m, 3 + 2 * q, 1, NULL), q);
  }
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 0, X, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 0, V, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, 1, V, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 1, L, 1.0, NULL));
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse("sin(t)", 6, NULL, NULL, &e, NULL));
  TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, 1, -1, e, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 2, X, 1.0, NULL));
  TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_F, 2, -1, -1.5, NULL));
  if (bad) {
    TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_A, 2, L, 1.0, NULL));
  }
  return m;
}

/* Names and lines come back as given, in the caller's order, before and
 * after the analysis; the system's rows map back to the caller's lines. */
START_TEST(test_names_and_lines) {
  lth_model *m = cart("cart.dae", 0);
  ck_assert_int_eq(lth_model_nvars(m), 3);
  ck_assert_int_eq(lth_model_nequations(m), 3);
  TU_ASSERT_OK(lth_model_analyze(m, 0.0, 2.0, NULL, 0, NULL));
  ck_assert_int_eq(lth_model_nvars(m), 3);
  ck_assert_int_eq(lth_model_nequations(m), 3);
  const char *names[3] = {"lambda", "x", "v"};
  for (int k = 0; k < 3; k++) {
    ck_assert_str_eq(lth_model_var_name(m, k), names[k]);
    ck_assert_int_eq(lth_model_find_variable(m, names[k], strlen(names[k])), k);
    ck_assert_int_eq(lth_model_equation_line(m, k), 3 + 2 * k);
  }
  ck_assert_ptr_null(lth_model_var_name(m, 3));
  ck_assert_ptr_null(lth_model_var_name(m, -1));
  ck_assert_int_eq(lth_model_equation_line(m, 3), 0);
  /* canonical z = (v | x | lambda) (Clark (2.2): the constraint's unknown x
   * is z_2, the one its equation involves z_1); rows in the same order */
  ck_assert_int_eq(lth_model_index(m), 3);
  const int *perm = lth_model_perm(m), *eq_perm = lth_model_eq_perm(m);
  ck_assert_str_eq(lth_model_var_name(m, perm[0]), "v");
  ck_assert_str_eq(lth_model_var_name(m, perm[1]), "x");
  ck_assert_str_eq(lth_model_var_name(m, perm[2]), "lambda");
  ck_assert_int_eq(lth_model_equation_line(m, eq_perm[0]), 5);
  ck_assert_int_eq(lth_model_equation_line(m, eq_perm[1]), 3);
  ck_assert_int_eq(lth_model_equation_line(m, eq_perm[2]), 7);
  /* the rows hold those equations: v' = lambda + sin(t), x' = v, 0 = x - 1.5 */
  lth_system *sys = NULL;
  TU_ASSERT_OK(lth_model_system(m, &sys, NULL));
  lth_jet *A = lth_jet_alloc(3, 3, 0, NULL), *f = lth_jet_alloc(3, 1, 0, NULL);
  double *w = malloc((lth_system_work_size(sys, 0) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_system_eval(sys, 0.7, 0, A, f, w, NULL));
  const double wantA[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}; /* rows: (0 0 1), (1 0 0), (0 1 0) */
  const double wantf[3] = {sin(0.7), 0.0, -1.5};
  for (int i = 0; i < 3; i++) {
    ck_assert_msg(fabs(LTH_JET_AT(f, 0, i, 0) - wantf[i]) <= 2 * DBL_EPSILON, "f(%d) = %g", i,
                  LTH_JET_AT(f, 0, i, 0));
    for (int j = 0; j < 3; j++)
      ck_assert_msg(LTH_JET_AT(A, 0, i, j) == wantA[i * 3 + j], "A(%d,%d) = %g", i, j,
                    LTH_JET_AT(A, 0, i, j));
  }
  free(w);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_system_free(sys);
  lth_model_free(m);
}
END_TEST

/* An error of structure names the file set with lth_model_set_file and the
 * line of the offending equation, and the unknown by the caller's name. */
START_TEST(test_errors_name_file_and_line) {
  lth_model *m = cart("models/cart.dae", 1);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_model_analyze(m, 0.0, 2.0, NULL, 0, &err), LTH_EMODEL);
  ck_assert_str_eq(err.file, "models/cart.dae");
  ck_assert_int_eq(err.line, lth_model_equation_line(m, 2));
  ck_assert_int_eq(err.line, 7);
  ck_assert_msg(strstr(err.message, lth_model_var_name(m, 0)) != NULL, "message: %s", err.message);
  lth_model_free(m);
  /* without a file, the line alone */
  m = cart(NULL, 1);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_model_analyze(m, 0.0, 2.0, NULL, 0, &err), LTH_EMODEL);
  ck_assert_str_eq(err.file, "");
  ck_assert_int_eq(err.line, 7);
  lth_model_free(m);
}
END_TEST

static Suite *model_names_suite(void) {
  Suite *s = suite_create("model_names");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_names_and_lines);
  tcase_add_test(tc, test_errors_name_file_and_line);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(model_names_suite)
