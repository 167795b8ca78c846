/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 10, items 4 and 6: the LQR data are checked where the theory needs
 * them -- C symmetric positive semidefinite, H(t) symmetric positive
 * semidefinite on the whole interval (not only at t0, and also between scan
 * points), B'HB invertible between the integrator's times -- and refused
 * naming t and the eigenvalue; a non-finite solution names its t. */
#include "wellposed_util.h"

#include <math.h>

#include "lth/lqr.h"
#include "testutil.h"

static lth_status solve(const char *text, lth_error *err) {
  lth_problem *pb = wp_parse(text);
  const lth_lqr_spec *spec = lth_problem_lqr(pb);
  ck_assert_ptr_nonnull(spec);
  double times[21];
  for (int k = 0; k <= 20; k++) times[k] = spec->t0 + (spec->t1 - spec->t0) * k / 20.0;
  lth_lqr_result *res = NULL;
  lth_error_clear(err);
  lth_status st = lth_lqr_solve(spec, times, 21, NULL, &res, err);
  lth_lqr_result_free(res);
  lth_problem_free(pb);
  return st;
}

static char text[1024];
static const char *lqr(const char *sizes, const char *interval, const char *A, const char *B,
                       const char *H, const char *C, const char *x0) {
  snprintf(text, sizeof text,
           "problem lqr\nsizes %s\ninterval %s\nA = %s\nB = %s\nH = %s\nC = %s\nx0 = %s\n", sizes,
           interval, A, B, H, C, x0);
  return text;
}

/* Aly-Chan: x1' = x2, x2' = u, J = 1/2 int (x2^2 - x1^2): unbounded below
 * (it used to report "cost 0 (the infimum)" or a finite cost with exit 0). */
START_TEST(aly_chan_refused) {
  lth_error err;
  ck_assert_int_eq(
      solve(lqr("2 1", "0 2", "[0, 1; 0, 0]", "[0; 1]", "[-1, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
            &err),
      LTH_EDATA);
  ck_assert(err.has_t && err.t == 0.0);
  ck_assert_ptr_nonnull(strstr(err.message, "eigenvalue -1 "));
  ck_assert_int_eq(lth_status_exit_code(err.status), 2);
}
END_TEST

START_TEST(indefinite_H_and_C_refused) {
  lth_error err;
  ck_assert_int_eq(
      solve(lqr("3 1", "0 1", "[0, 1, 0; 0, 0, 1; 0, 0, 0]", "[0; 0; 1]",
                "[1, 0, 0; 0, -0.5, 0; 0, 0, 0.1]", "[0, 0, 0; 0, 0, 0; 0, 0, 0]", "[1; 0; 0]"),
            &err),
      LTH_EDATA);
  ck_assert_ptr_nonnull(strstr(err.message, "eigenvalue -0.5 "));
  ck_assert_int_eq(
      solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, 0; 0, 1]", "[1, 2; 2, 1]", "[1; 0]"),
            &err),
      LTH_EDATA);
  ck_assert_ptr_nonnull(strstr(err.message, "C must be positive semidefinite"));
  ck_assert_ptr_nonnull(strstr(err.message, "eigenvalue -1 "));
  /* semidefinite (singular) H and C are fine: H = [1, 1; 1, 1] has B'HB = 1 */
  ck_assert_int_eq(
      solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, 1; 1, 1]", "[1, 1; 1, 1]", "[1; 0]"),
            &err),
      LTH_OK);
}
END_TEST

/* lth_problem_lqr_check: the refusals of lth_lqr_solve, naming the H or C
 * statement of the file (line 6 or 7 of lqr()'s text) besides t. */
START_TEST(refusal_names_the_statement) {
  lth_error err;
  lth_problem *pb = wp_parse(
      lqr("2 1", "0 2", "[0, 1; 0, 0]", "[0; 1]", "[-1, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"));
  const double times[2] = {0.0, 2.0};
  ck_assert_int_eq(lth_problem_lqr_check(pb, times, 2, &err), LTH_EDATA);
  ck_assert_str_eq(err.file, "test.lth");
  ck_assert_int_eq(err.line, 6);
  ck_assert(err.has_t && err.t == 0.0);
  ck_assert_ptr_nonnull(strstr(err.message, "eigenvalue -1 "));
  lth_problem_free(pb);
  pb = wp_parse(
      lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, 0; 0, 1]", "[1, 2; 2, 1]", "[1; 0]"));
  ck_assert_int_eq(lth_problem_lqr_check(pb, NULL, 0, &err), LTH_EDATA);
  ck_assert_int_eq(err.line, 7);
  ck_assert_ptr_nonnull(strstr(err.message, "C must be positive semidefinite"));
  lth_problem_free(pb);
  /* lth_problem_lqr_locate: the solvers' own refusals, both paths, named
   * without checking again (H: line 6, C: line 7) */
  const char *bad[2] = {
      lqr("2 1", "0 2", "[0, 1; 0, 0]", "[0; 1]", "[-1, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
      NULL};
  char bad_h[1024];
  snprintf(bad_h, sizeof bad_h, "%s", bad[0]);
  bad[0] = bad_h;
  bad[1] = lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, 0; 0, 1]", "[1, 2; 2, 1]", "[1; 0]");
  const double ends[2] = {0.0, 1.0}; /* in both intervals */
  for (int k = 0; k < 2; k++) {
    for (int op = 0; op < 2; op++) {
      pb = wp_parse(bad[k]);
      lth_lqr_result *res = NULL;
      lth_error_clear(&err);
      lth_status st = op ? lth_lqr_solve_op(lth_problem_lqr(pb), ends, 2, NULL, &res, &err)
                         : lth_lqr_solve(lth_problem_lqr(pb), ends, 2, NULL, &res, &err);
      ck_assert_int_eq(st, LTH_EDATA);
      ck_assert_int_eq(err.line, 0);
      ck_assert_int_eq(lth_problem_lqr_locate(pb, &err), LTH_OK);
      ck_assert_str_eq(err.file, "test.lth");
      ck_assert_msg(err.line == 6 + k, "%s path: line %d for %s", op ? "operator" : "dense",
                    err.line, err.message);
      ck_assert_int_eq(err.status, LTH_EDATA);
      lth_lqr_result_free(res);
      lth_problem_free(pb);
    }
  }
  /* anything else is not located */
  pb = wp_parse(bad[1]);
  lth_error_clear(&err);
  lth_error_set(&err, LTH_EDATA, "A is bad");
  ck_assert_int_eq(lth_problem_lqr_locate(pb, &err), LTH_EINVAL);
  ck_assert_int_eq(err.line, 0);
  lth_error_set(&err, LTH_ECOND, "H 1");
  ck_assert_int_eq(lth_problem_lqr_locate(pb, &err), LTH_EINVAL);
  lth_problem_free(pb);
  /* data the theory accepts; a DAE file is a misuse */
  pb = wp_parse(
      lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, 1; 1, 1]", "[1, 1; 1, 1]", "[1; 0]"));
  ck_assert_int_eq(lth_problem_lqr_check(pb, times, 2, &err), LTH_OK);
  lth_problem_free(pb);
  pb = wp_parse("blocks 1 1\ninterval 0 1\nA(1,2) = 1\nA(2,1) = 1\n");
  ck_assert_int_eq(lth_problem_lqr_check(pb, NULL, 0, &err), LTH_EINVAL);
  lth_problem_free(pb);
}
END_TEST

/* H = [1, t; 0, 1] is symmetric at t0 only: it used to give cost 0.39558 with
 * exit 0 (the symmetric [1, t/2; t/2, 1] gives 0.36080). */
START_TEST(H_symmetric_on_the_interval) {
  lth_error err;
  ck_assert_int_eq(
      solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, t; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
            &err),
      LTH_EDATA);
  ck_assert(err.has_t && err.t > 0.0 && err.t < 0.01);
  ck_assert_ptr_nonnull(strstr(err.message, "symmetric"));
  ck_assert_int_eq(solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]", "[1, t/2; t/2, 1]",
                             "[0, 0; 0, 0]", "[1; 0]"),
                         &err),
                   LTH_OK);
}
END_TEST

/* H turns indefinite only on (0.50304, 0.50324), between the scan points. */
START_TEST(H_indefinite_between_points) {
  lth_error err;
  ck_assert_int_eq(solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]",
                             "[(t - 0.50314159)^2 - 1e-8, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
                         &err),
                   LTH_EDATA);
  ck_assert_double_eq_tol(err.t, 0.50314159, 1e-4);
  /* touching zero is still semidefinite */
  ck_assert_int_eq(solve(lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; 1]",
                             "[(t - 0.50314159)^2, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
                         &err),
                   LTH_OK);
}
END_TEST

/* B = [0; t - 0.503]: B'HB = (t - 0.503)^2 vanishes between the grid points
 * (it used to give u = -243.6 with exit 0). */
START_TEST(BHB_vanishing_between_points) {
  lth_error err;
  lth_status st = solve(
      lqr("2 1", "0 1", "[0, 1; 0, 0]", "[0; t - 0.503]", "[1, 0; 0, 1]", "[0, 0; 0, 0]", "[1; 0]"),
      &err);
  ck_assert_msg(st == LTH_ESING || st == LTH_ECOND, "status %d: %s", st, err.message);
  ck_assert_double_eq_tol(err.t, 0.503, 1e-6);
  ck_assert_ptr_nonnull(strstr(err.message, "B'H B"));
}
END_TEST

START_TEST(not_finite_names_t) {
  lth_error err;
  ck_assert_int_eq(solve(lqr("2 1", "0 2", "[0, 1; 0, 0]", "[0; 1]", "[1, 0; 0, 1]", "[0, 0; 0, 0]",
                             "[1e308; -1e308]"),
                         &err),
                   LTH_ENOTFINITE);
  ck_assert(err.has_t && err.t >= 0.0 && err.t <= 2.0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wellposed_lqr");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, aly_chan_refused);
  tcase_add_test(tc, indefinite_H_and_C_refused);
  tcase_add_test(tc, refusal_names_the_statement);
  tcase_add_test(tc, H_symmetric_on_the_interval);
  tcase_add_test(tc, H_indefinite_between_points);
  tcase_add_test(tc, BHB_vanishing_between_points);
  tcase_add_test(tc, not_finite_names_t);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
