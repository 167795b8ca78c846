/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The impulse check (lth_bvp_check_data, lib/bvp/bvp_impulses.c) looks only
 * at the rows of block row j that the hidden constraints reach: a jump of the
 * data in a row they never multiply cannot move the differential components,
 * and the BVP is solved (checked against its closed form within the
 * solver's own error estimate); the same jump in a reached row is refused
 * naming t.  At index 4 a row reached through a diagonal block A(3,3) (not
 * through the chain A(4,3) alone) is still refused. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lth/bvp.h"
#include "lth/problem.h"
#include "testutil.h"

#define C_JUMP 0.5037
#define SIGN   "(t-0.5037)/abs(t-0.5037)" /* -1 before C_JUMP, 1 after */

/* Index 3, blocks (2, 2, 1), z = (x1, x2, y1, y2, u), with the blocks
 * A(2,1), A(2,2), f(2) given (the base case: [1, 0; 0, 0], [0, 0; 0, -1],
 * [0; h(t)]):
 *   x1' = u,  x2' = y2,  y1' = x1,  y2' = -y2 + h(t),  0 = y1 - sin t.
 * The constraint y1 = sin t reaches x1 and y1 (A(3,2) = [1, 0]), never
 * y2's row; x2 and y2 are the free components (p = 2). */
static lth_problem *idx3(const char *A21, const char *A22, const char *f2) {
  char text[1024];
  snprintf(text, sizeof text,
           "lth 1\nproblem dae\nblocks 2 2 1\ninterval 0 1\n"
           "A(1,2) = [0, 0; 0, 1]\nA(1,3) = [1; 0]\nA(2,1) = %s\nA(2,2) = %s\n"
           "A(3,2) = [1, 0]\nf(2) = %s\nf(3) = -sin(t)\n",
           A21, A22, f2);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "idx3", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

/* LTH_ENOSOL naming t = C_JUMP and `what`. */
static void assert_refused(const lth_system *sys, const char *what) {
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_bvp_check_data(sys, 0.0, 1.0, &err), LTH_ENOSOL);
  ck_assert_msg(err.has_t && fabs(err.t - C_JUMP) < 1e-12, "t = %.17g", err.t);
  ck_assert_msg(strstr(err.message, what) && strstr(err.message, "without an impulse"), "%s",
                err.message);
}

/* The closed form of the free part x2' = y2, y2' = -y2 + s(t), s = sign(t -
 * c), with x2(0) = 1, x2(1) = 0: y2 = y0 e^-t + Y, x2 = 1 + y0 (1 - e^-t) + X. */
static void free_part(double t, double y0, double *x2, double *y2) {
  const double c = C_JUMP;
  double Y, X;
  if (t <= c) {
    Y = -(1.0 - exp(-t));
    X = -t + 1.0 - exp(-t);
  } else {
    double Xc = -c + 1.0 - exp(-c);
    Y = 1.0 - 2.0 * exp(-(t - c)) + exp(-t);
    X = Xc + (t - c) - 2.0 * (1.0 - exp(-(t - c))) + (exp(-c) - exp(-t));
  }
  *y2 = y0 * exp(-t) + Y;
  *x2 = 1.0 + y0 * (1.0 - exp(-t)) + X;
}

/* A jump of f(2) in the row A(3,2) never touches: accepted, and every
 * method's answer meets the closed form within its own error estimate. */
START_TEST(test_unreached_jump_solved) {
  lth_problem *pb = idx3("[1, 0; 0, 0]", "[0, 0; 0, -1]", "[0; " SIGN "]");
  const lth_system *sys = lth_problem_system(pb);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_bvp_check_data(sys, 0.0, 1.0, &err) == LTH_OK, "%s", err.message);
  ck_assert_int_eq(lth_system_manifold_dim(sys), 2);
  /* x2(0) = 1, x2(1) = 0 (B0, B1: 2 x 5, column-major) */
  double B0[10] = {0}, B1[10] = {0}, beta[2] = {1.0, 0.0};
  B0[0 + 1 * 2] = 1.0;
  B1[1 + 1 * 2] = 1.0;
  double x2_1, y2_1;
  free_part(1.0, 0.0, &x2_1, &y2_1); /* x2(1) with y0 = 0 */
  double y0 = -x2_1 / (1.0 - exp(-1.0));
  double times[] = {0.0, 0.25, 0.5, C_JUMP - 1e-3, C_JUMP + 1e-3, 0.75, 1.0};
  const int nt = (int)(sizeof times / sizeof *times);
  static const lth_bvp_method methods[] = {LTH_BVP_COLLOCATION, LTH_BVP_SHOOTING, LTH_BVP_MULTIPLE};
  for (int m = 0; m < 3; m++) {
    lth_bvp_opts o;
    lth_bvp_opts_init(&o);
    o.method = methods[m];
    o.colloc.tol = 1e-10;
    o.ivp.rtol = 1e-10;
    o.ivp.atol = 1e-12;
    lth_bvp_result *res = NULL;
    ck_assert_msg(
        lth_bvp_solve(sys, 0.0, 1.0, 2, B0, B1, beta, times, (size_t)nt, &o, &res, &err) == LTH_OK,
        "%s: %s", lth_bvp_method_name(methods[m]), err.message);
    double e = 0.0;
    for (int k = 0; k < nt; k++) {
      double t = times[k], x2, y2;
      free_part(t, y0, &x2, &y2);
      double ze[5] = {cos(t), x2, sin(t), y2, -sin(t)};
      for (int i = 0; i < 5; i++) e = fmax(e, fabs(res->z[(size_t)k * 5 + (size_t)i] - ze[i]));
    }
    /* collocation: its estimate (relative to max(1, |z|) = 1 here) and the
     * rounding of a few hundred steps; the shooting methods: the integrator's
     * tolerance, amplified by cond_bvp */
    double bound =
        methods[m] == LTH_BVP_COLLOCATION
            ? 10.0 * res->error_estimate + 1e-12
            : 10.0 * o.ivp.rtol * fmax(1.0, isfinite(res->cond_bvp) ? res->cond_bvp : 1.0);
    ck_assert_msg(e <= bound, "%s: error %.3g above %.3g (estimate %.3g)",
                  lth_bvp_method_name(methods[m]), e, bound, res->error_estimate);
    lth_bvp_result_free(res);
  }
  lth_problem_free(pb);
}
END_TEST

/* Jumps of A(2,1) and A(2,2) in the unreached row pass too; the same jumps
 * (and f(2)'s) in the reached row are refused naming t and the entry, by the
 * check and by lth_bvp_solve. */
START_TEST(test_reached_refused) {
  lth_error err;
  lth_error_clear(&err);
  lth_problem *pb = idx3("[1, 0; 0.3*" SIGN ", 0]", "[0, 0; 0, -1 + 0.5*" SIGN "]", "[0; 0]");
  ck_assert_msg(lth_bvp_check_data(lth_problem_system(pb), 0, 1, &err) == LTH_OK, "%s",
                err.message);
  lth_problem_free(pb);
  pb = idx3("[1, 0; 0, 0]", "[0, 0; 0, -1]", "[0.25*" SIGN "; 0]");
  assert_refused(lth_problem_system(pb), "f(2) entry 1");
  double B0[10] = {0}, B1[10] = {0}, beta[2] = {1.0, 0.0}, times[] = {0.0, 1.0};
  B0[0 + 1 * 2] = 1.0;
  B1[1 + 1 * 2] = 1.0;
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  lth_bvp_result *res = NULL;
  ck_assert_int_eq(
      lth_bvp_solve(lth_problem_system(pb), 0, 1, 2, B0, B1, beta, times, 2, &o, &res, &err),
      LTH_ENOSOL);
  ck_assert(res == NULL && fabs(err.t - C_JUMP) < 1e-12);
  lth_problem_free(pb);
  pb = idx3("[1, 0; 0, 0]", "[0, 0.3*" SIGN "; 0, -1]", "[0; 0]");
  assert_refused(lth_problem_system(pb), "A(2,2) entry (1,2)");
  lth_problem_free(pb);
  pb = idx3("[1 + 0.3*" SIGN ", 0; 0, 0]", "[0, 0; 0, -1]", "[0; 0]");
  assert_refused(lth_problem_system(pb), "A(2,1) entry (1,1)");
  lth_problem_free(pb);
}
END_TEST

/* Index 4, blocks (2, 2, 2, 1), A(4,3) = [1, 0]: f(3) entry 2 jumps.  The
 * chain A(4,3) never touches row 2 of block row 3, but with A(3,3)(1,2) != 0
 * the second hidden constraint holds A(4,3) A(3,3) f(3) (the first one's
 * A(4,3) A(3,3) z3, differentiated): the jump reaches it and is refused;
 * with A(3,3) = 0 it does not, and passes. */
START_TEST(test_index4_diagonal_reach) {
  static const char *const A33[] = {"[0, 0; 0, -1]", "[0, 0.7; 0, -1]"};
  for (int k = 0; k < 2; k++) {
    char text[1024];
    snprintf(text, sizeof text,
             "lth 1\nproblem dae\nblocks 2 2 2 1\ninterval 0 1\n"
             "A(1,1) = [0, 0; 0, -1]\nA(1,4) = [1; 0]\nA(2,1) = eye\nA(3,2) = eye\n"
             "A(3,3) = %s\nA(4,3) = [1, 0]\nf(3) = [0; " SIGN "]\nf(4) = -cos(t)\n",
             A33[k]);
    lth_problem *pb = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_problem_parse(text, strlen(text), "idx4", NULL, &pb, &err) == LTH_OK, "%s",
                  err.message);
    if (k == 0) {
      ck_assert_msg(lth_bvp_check_data(lth_problem_system(pb), 0, 1, &err) == LTH_OK, "%s",
                    err.message);
    } else {
      assert_refused(lth_problem_system(pb), "f(3) entry 2");
    }
    lth_problem_free(pb);
  }
}
END_TEST

static Suite *reach_suite(void) {
  Suite *s = suite_create("bvp_reach");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_unreached_jump_solved);
  tcase_add_test(tc, test_reached_refused);
  tcase_add_test(tc, test_index4_diagonal_reach);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(reach_suite)
