/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Singular LQR on the operator path (lth_lqr_solve_op, lib/lqr/lqr_op.c):
 * the closed-form double integrator (H = I, C = 0: the singular arc
 * x2 = -x1 tanh(T - t)), the existence decision from the slack along
 * range(B(t0)) (lth_bvp_solve_op_slack: the slack is the impulse tanh(T)
 * of the closed form) against the tolerance on both sides of it, and the
 * refusals of what only the dense analysis answers (an impulse at t0, a
 * terminal impulse).  Each answer is checked against the closed form or the
 * dense path, never against itself. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/bvp.h"
#include "lth/expr.h"
#include "lth/lqr.h"
#include "lth/opdecomp.h"
#include "lqr_di.h"
#include "testutil.h"

START_TEST(test_op_closed_form) {
  if (!lth_lqr_op_available()) return;
  const double T = 1.3, a = 0.7;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, a * cosh(T), -a * sinh(T));
  double times[] = {0, 0.4, 0.9, T};
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_lqr_solve_op(&pb.spec, times, 4, NULL, &res, &err) == LTH_OK, "%s",
                err.message);
  ck_assert(res->exists && res->unique && res->have_trajectory);
  for (int k = 0; k < 4; k++) {
    double s = T - times[k], x1 = a * cosh(s), x2 = -a * sinh(s);
    ck_assert_msg(fabs(res->x[2 * k] - x1) < 1e-9 && fabs(res->x[2 * k + 1] - x2) < 1e-9, "x(%g)",
                  times[k]);
    ck_assert_msg(fabs(res->lambda[2 * k] - a * sinh(s)) < 1e-9 &&
                      fabs(res->lambda[2 * k + 1]) < 1e-9,
                  "lambda(%g)", times[k]);
    ck_assert_msg(fabs(res->u[k] - x1) < 1e-9, "u(%g)", times[k]);
  }
  double J = a * a * sinh(T) * cosh(T) / 2;
  ck_assert_msg(fabs(res->cost - J) < 1e-9 * J, "cost %.17g vs %.17g", res->cost, J);
  ck_assert(res->residual <= 1e-8);
  ck_assert(isnan(res->theorem4) && isnan(res->cond_W)); /* not computed on this path */
  ck_assert(res->intervals > 0 && res->error_estimate < 1e-9);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* The slack of x(t0) - B(t0) s0 = x0 is the impulse: from x0 = (1, 0) the arc
 * needs x2 = -tanh(T), so s0 = -tanh(T); the terminal slack is zero. */
START_TEST(test_slack_is_the_impulse) {
  if (!lth_lqr_op_available()) return;
  const double T = 1.3;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, 1.0, 0.0);
  lth_system *sys = NULL;
  ck_assert_int_eq(lth_lqr_build_system(&pb.spec, &sys, NULL), LTH_OK);
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  ck_assert(os != NULL);
  /* z = (x1, x2, l1, l2, u): rows x(t0) = x0 (B0), lambda(t1) = 0 (B1) */
  int cp0[] = {0, 1, 2, 2, 2, 2}, ri0[] = {0, 1}, cp1[] = {0, 0, 0, 1, 2, 2}, ri1[] = {2, 3};
  double v[] = {1.0, 1.0}, beta[] = {1.0, 0.0, 0.0, 0.0};
  lth_bvp_sparse_bc bc = {4, {cp0, ri0, v}, {cp1, ri1, v}, beta};
  int cpe[] = {0, 1, 2}, rie[] = {1, 3}; /* E = [B(t0) 0; 0 B(t1)] */
  lth_bvp_csc E = {cpe, rie, v};
  double times[] = {0.0, T}, slack[2] = {NAN, NAN};
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.colloc.tol = 1e-10;
  lth_bvp_result *br = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_bvp_solve_op_slack(os, 0.0, T, &bc, 2, &E, times, 2, &o, &br, slack, &err) ==
                    LTH_OK,
                "%s", err.message);
  ck_assert_msg(fabs(slack[0] + tanh(T)) < 1e-9, "s0 = %.17g vs %.17g", slack[0], -tanh(T));
  ck_assert_msg(fabs(slack[1]) < 1e-9, "s1 = %g", slack[1]);
  ck_assert(fabs(br->bc_residual - tanh(T)) < 1e-9); /* ||E s|| */
  ck_assert(fabs(br->z[1] + tanh(T)) < 1e-9);        /* x2(t0) on the arc */
  /* rows != p + ne is an input error */
  bc.rows = 3;
  lth_bvp_result_free(br);
  br = NULL;
  ck_assert_int_eq(lth_bvp_solve_op_slack(os, 0.0, T, &bc, 2, &E, times, 2, &o, &br, slack, NULL),
                   LTH_EBC);
  lth_opsys_free(os);
  lth_system_free(sys);
  lqr_problem_free(&pb);
}
END_TEST

/* The existence decision: x0 off the arc by d in x2 needs the impulse d, of
 * relative size d / ||x0||; it is an answer below opts.tol and a refusal
 * (LTH_ENOSOL naming the impulse) above it. */
START_TEST(test_existence_tolerance) {
  if (!lth_lqr_op_available()) return;
  const double T = 1.3, a = 0.7, d = 1e-5;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, a * cosh(T), -a * sinh(T) + d);
  double rel = d / hypot(pb.x0[0], pb.x0[1]), times[] = {0, T};
  lth_lqr_opts o;
  lth_lqr_opts_init(&o);
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  o.tol = 0.5 * rel;
  ck_assert_int_eq(lth_lqr_solve_op(&pb.spec, times, 2, &o, &res, &err), LTH_ENOSOL);
  ck_assert_msg(strstr(err.message, "impulse at t0") != NULL, "%s", err.message);
  o.tol = 2.0 * rel;
  ck_assert_msg(lth_lqr_solve_op(&pb.spec, times, 2, &o, &res, &err) == LTH_OK, "%s", err.message);
  ck_assert_msg(fabs(res->residual - rel) < 1e-3 * rel, "residual %.17g vs %.17g", res->residual,
                rel);
  lth_lqr_result_free(res);
  /* the dense path decides the same way at its tolerance */
  res = NULL;
  o.tol = 0.5 * rel;
  ck_assert_int_eq(lth_lqr_solve(&pb.spec, times, 2, &o, &res, NULL), LTH_OK);
  ck_assert(!res->exists);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* B(t1)'C != 0: a terminal impulse, refused (the dense path analyses it). */
START_TEST(test_terminal_impulse_refused) {
  if (!lth_lqr_op_available()) return;
  const double T = 1.3, a = 0.7;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, a * cosh(T), -a * sinh(T));
  pb.C[0] = pb.C[3] = 1.0;
  double times[] = {0, T};
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_lqr_solve_op(&pb.spec, times, 2, NULL, &res, &err), LTH_ENOSOL);
  ck_assert_msg(strstr(err.message, "terminal impulse") != NULL, "%s", err.message);
  ck_assert(res == NULL);
  lqr_problem_free(&pb);
}
END_TEST

/* Data that jump where the constraint 0 = B' lambda cannot see them: with
 * B = (0, 1)' row 1 of B is zero, so a jump of H(1,1) or of A's column 1
 * (row 1 of A(2,2) = -A') is a jump of lambda_1's equation, which the
 * constraint never differentiates (docs/collocation.md section 8): the
 * operator path answers, and agrees with the dense path within both
 * results' tolerances.  x0 is put on the arc by the dense path first.  A
 * jump in row 2 of A' (B's row) is still refused. */
START_TEST(test_jump_off_the_constraint) {
  if (!lth_lqr_op_available()) return;
  static const char *const Hj[] = {"1 + 0.5*(t-0.61)/abs(t-0.61)", "0", "0", "1"};
  static const char *const Aj[] = {"0", "1", "0.3*(t-0.61)/abs(t-0.61)", "0"};
  const double T = 1.3;
  for (int k = 0; k < 2; k++) {
    lqr_problem pb;
    lqr_double_integrator(&pb, T, 0.7 * cosh(T), -0.7 * sinh(T));
    if (k == 0) {
      lth_source_free(pb.H);
      pb.spec.H = pb.H = lqr_src(2, 2, Hj);
    } else {
      lth_source_free(pb.A);
      pb.spec.A = pb.A = lqr_src(2, 2, Aj);
    }
    double times[] = {0, 0.3, 0.6, 0.62, 1.0, T};
    lth_lqr_opts o;
    lth_lqr_opts_init(&o);
    o.ivp.rtol = 1e-10;
    o.ivp.atol = 1e-12;
    lth_lqr_result *dn = NULL, *op = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_lqr_solve(&pb.spec, times, 6, &o, &dn, &err) == LTH_OK, "%s", err.message);
    memcpy(pb.x0, dn->x0_consistent, sizeof pb.x0);
    lth_lqr_result_free(dn);
    dn = NULL;
    ck_assert_msg(lth_lqr_solve(&pb.spec, times, 6, &o, &dn, &err) == LTH_OK, "%s", err.message);
    ck_assert(dn->exists && dn->have_trajectory);
    ck_assert_msg(lth_lqr_solve_op(&pb.spec, times, 6, &o, &op, &err) == LTH_OK, "case %d: %s", k,
                  err.message);
    ck_assert(op->exists && op->have_trajectory);
    double e = 0.0, scale = 1.0;
    for (int q = 0; q < 6; q++) {
      for (int i = 0; i < 2; i++) {
        e = fmax(e, fabs(op->x[2 * q + i] - dn->x[2 * q + i]));
        e = fmax(e, fabs(op->lambda[2 * q + i] - dn->lambda[2 * q + i]));
        scale = fmax(scale, fmax(fabs(dn->x[2 * q + i]), fabs(dn->lambda[2 * q + i])));
      }
      e = fmax(e, fabs(op->u[q] - dn->u[q]));
    }
    /* the operator path's estimate and the dense path's integrator
     * tolerance (relative to the solution's size), each with a margin of 10 */
    double tol = 10.0 * (op->error_estimate + o.ivp.rtol) * scale;
    ck_assert_msg(e <= tol, "case %d: the paths differ by %.3g (allowed %.3g)", k, e, tol);
    lth_lqr_result_free(dn);
    lth_lqr_result_free(op);
    lqr_problem_free(&pb);
  }
  /* A(1,2) jumps: row 2 of A(2,2) = -A', which 0 = B' lambda differentiates
   * (lambda_2' = -lambda_1 - A(1,2) ... : x would jump), refused naming t
   * and the entry of A(2,2) (A' numbering) */
  static const char *const Ar[] = {"0", "1 + 0.3*(t-0.61)/abs(t-0.61)", "0", "0"};
  lqr_problem pb;
  lqr_double_integrator(&pb, T, 0.7 * cosh(T), -0.7 * sinh(T));
  lth_source_free(pb.A);
  pb.spec.A = pb.A = lqr_src(2, 2, Ar);
  double times[] = {0, T};
  lth_lqr_result *op = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_lqr_solve_op(&pb.spec, times, 2, NULL, &op, &err), LTH_ENOSOL);
  ck_assert_msg(strstr(err.message, "without an impulse") &&
                    strstr(err.message, "A(2,2) entry (2,1)"),
                "%s", err.message);
  ck_assert(op == NULL && err.has_t && fabs(err.t - 0.61) < 1e-12);
  lqr_problem_free(&pb);
}
END_TEST

/* The refusal names the entry of the block as the DAE has it: a jump of
 * A(1,2) is entry (2,1) of A(2,2) = -A' (B = (1, 1)' reaches both rows). */
START_TEST(test_jump_names_the_transpose) {
  static const char *const Aj[] = {"0", "1 + 0.3*(t-0.61)/abs(t-0.61)", "0", "0"},
                           *B[] = {"1", "1"};
  lqr_problem pb;
  lqr_double_integrator(&pb, 1.3, 1.0, 0.0);
  lth_source_free(pb.A);
  lth_source_free(pb.B);
  pb.spec.A = pb.A = lqr_src(2, 2, Aj);
  pb.spec.B = pb.B = lqr_src(2, 1, B);
  lth_system *sys = NULL;
  ck_assert_int_eq(lth_lqr_build_system(&pb.spec, &sys, NULL), LTH_OK);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_bvp_check_data(sys, 0.0, 1.3, &err), LTH_ENOSOL);
  ck_assert_msg(strstr(err.message, "A(2,2) entry (2,1)") != NULL, "%s", err.message);
  ck_assert(err.has_t && fabs(err.t - 0.61) < 1e-12);
  lth_system_free(sys);
  lqr_problem_free(&pb);
}
END_TEST

static Suite *lqr_op_suite(void) {
  Suite *s = suite_create("lqr_op");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_op_closed_form);
  tcase_add_test(tc, test_slack_is_the_impulse);
  tcase_add_test(tc, test_existence_tolerance);
  tcase_add_test(tc, test_terminal_impulse_refused);
  tcase_add_test(tc, test_jump_off_the_constraint);
  tcase_add_test(tc, test_jump_names_the_transpose);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(lqr_op_suite)
