/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Initial-value problems through the reduced ODE: manufactured exact solutions
 * for index 2..6, convergence as tolerances tighten, drift, a long horizon
 * with periodic coefficients, the fundamental matrix against direct solves,
 * a stiff stepper, Hermite mode against exact mode, inconsistent z0. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "lth/ic.h"
#include "lth/ivp.h"
#include "testsys.h"
#include "testutil.h"

/* max_k ||z(t_k) - z*(t_k)||_inf / max(1, max |z*|) */
static double solution_error(ts_sys *S, const lth_ivp_result *res) {
  double err = 0.0, scale = 1.0, z[64];
  for (size_t k = 0; k < res->n; k++) {
    ts_z_coef(S, res->times[k], 0, z);
    for (int i = 0; i < S->s; i++) {
      err = fmax(err, fabs(res->z[k * S->s + i] - z[i]));
      scale = fmax(scale, fabs(z[i]));
    }
  }
  return err / scale;
}

static lth_ivp_result *solve_manufactured(ts_sys *S, lth_system *sys, double rtol, int method,
                                          int hermite) {
  double z0[64], times[20];
  const double t0 = 0.1;
  ts_z_coef(S, t0, 0, z0);
  for (int k = 0; k < 20; k++) times[k] = t0 + 0.1 * (k + 1);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol * 1e-2;
  o.method = method;
  o.hermite = hermite;
  double grid[401];
  if (hermite) {
    for (int k = 0; k < 401; k++) grid[k] = t0 + 2.0 * k / 400.0;
    o.hermite_grid = grid;
    o.hermite_n = 401;
  }
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, t0, z0, times, 20, &o, &res, &err) == LTH_OK, "%s (t=%g)",
                err.message, err.t);
  return res;
}

START_TEST(test_manufactured_index2_to_6) {
  int ns[][6] = {{3, 1}, {2, 3, 1}, {3, 3, 2, 2}, {2, 2, 2, 2, 1}, {3, 2, 2, 3, 2, 1}};
  for (int r = 2; r <= 6; r++) {
    ts_sys *S = ts_new(r, ns[r - 2], 700 + r, 0.2, 1);
    lth_system *sys = ts_system(S);
    lth_ivp_result *res = solve_manufactured(S, sys, 1e-10, LTH_IVP_RK8PD, 0);
    double e = solution_error(S, res);
    ck_assert_msg(e < 1e-8, "index %d: error %.3e at rtol 1e-10", r, e);
    ck_assert_msg(res->drift < 1e-10, "index %d: drift %.3e", r, res->drift);
    ck_assert(!res->projected && res->z0_residual < 1e-12);
    lth_ivp_result_free(res);
    lth_system_free(sys);
    ts_free(S);
  }
}
END_TEST

/* The error follows the tolerance.  One output far away (t = 3.1), so output
 * points do not cap the step size.  Measured (rk8pd / rkf45): rtol 1e-4:
 * 2.3e-5 / 5.8e-4, 1e-6: 1.8e-7 / 4.2e-6, 1e-8: 1.4e-9 / 3.7e-8,
 * 1e-10: 1.4e-11 / 2.7e-10. */
START_TEST(test_convergence_with_tolerance) {
  int n[] = {3, 3, 2, 1};
  ts_sys *S = ts_new(4, n, 731, 0.2, 1);
  lth_system *sys = ts_system(S);
  double z0[64], tend = 3.1, rt[4] = {1e-4, 1e-6, 1e-8, 1e-10};
  ts_z_coef(S, 0.1, 0, z0);
  for (int method = LTH_IVP_RK8PD; method <= LTH_IVP_RKF45; method++) {
    double e[4];
    size_t steps[4];
    for (int k = 0; k < 4; k++) {
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.rtol = rt[k];
      o.atol = rt[k] * 1e-2;
      o.method = method;
      lth_ivp_result *res = NULL;
      ck_assert_int_eq(lth_ivp_solve(sys, 0.1, z0, &tend, 1, &o, &res, NULL), LTH_OK);
      e[k] = solution_error(S, res);
      steps[k] = res->steps;
      lth_ivp_result_free(res);
    }
    for (int k = 0; k < 4; k++) {
      ck_assert_msg(e[k] < 10 * rt[k], "%s: error %.2e at rtol %.0e", lth_ivp_method_name(method),
                    e[k], rt[k]);
      ck_assert_msg(k == 0 || (e[k - 1] > 30 * e[k] && steps[k] > steps[k - 1]),
                    "%s: errors %.2e -> %.2e as rtol %.0e -> %.0e", lth_ivp_method_name(method),
                    e[k - 1], e[k], rt[k - 1], rt[k]);
    }
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* A stiff stepper (variable-order BDF, Jacobian Ahat) reaches the same solution. */
START_TEST(test_stiff_stepper) {
  int n[] = {2, 3, 1};
  ts_sys *S = ts_new(3, n, 741, 0.2, 1);
  lth_system *sys = ts_system(S);
  lth_ivp_result *res = solve_manufactured(S, sys, 1e-10, LTH_IVP_MSBDF, 0);
  double e = solution_error(S, res);
  ck_assert_msg(e < 1e-7, "msbdf error %.3e", e);
  lth_ivp_result_free(res);
  res = solve_manufactured(S, sys, 1e-10, LTH_IVP_BSIMP, 0);
  e = solution_error(S, res);
  ck_assert_msg(e < 1e-7, "bsimp error %.3e", e);
  lth_ivp_result_free(res);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Hermite interpolation of the output jets (the sampled-data path) on an
 * exact system agrees with the exact path. */
START_TEST(test_hermite_mode) {
  int n[] = {3, 3, 2, 1};
  ts_sys *S = ts_new(4, n, 751, 0.2, 1);
  lth_system *sys = ts_system(S);
  lth_ivp_result *res = solve_manufactured(S, sys, 1e-11, LTH_IVP_RK8PD, 1);
  double e = solution_error(S, res);
  ck_assert_msg(e < 1e-8, "Hermite mode error %.3e", e);
  /* every decomposition is a node, the caller's 401 among them */
  ck_assert_uint_eq(res->decomps, res->table_panels + 1);
  ck_assert_uint_ge(res->decomps, 401);
  lth_ivp_result_free(res);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Every solution is z = Phi c + zp: the fundamental matrix against a solve. */
START_TEST(test_fundamental_matches_solve) {
  int n[] = {3, 2, 2, 1};
  ts_sys *S = ts_new(4, n, 761, 0.2, 0); /* random f */
  lth_system *sys = ts_system(S);
  int s = S->s, p = lth_system_manifold_dim(sys);
  double t0 = 0.3, times[] = {0.3, 0.8, 1.6};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  lth_fundamental *fm = NULL;
  ck_assert_int_eq(lth_ivp_fundamental(sys, t0, times, 3, &o, &fm, NULL), LTH_OK);
  ck_assert_int_eq(fm->p, p);
  ck_assert(fm->drift < 1e-10);
  double c[16], z0[64];
  tu_seed(17);
  for (int j = 0; j < p; j++) c[j] = tu_uniform(-1, 1);
  for (int i = 0; i < s; i++) {
    z0[i] = fm->zp[i];
    for (int j = 0; j < p; j++) z0[i] += fm->Phi[i + (size_t)j * s] * c[j];
  }
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, t0, z0, times, 3, &o, &res, &err) == LTH_OK, "%s", err.message);
  double worst = 0, scale = 1;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < s; i++) {
      double zk = fm->zp[(size_t)k * s + i];
      for (int j = 0; j < p; j++) zk += fm->Phi[(size_t)k * s * p + i + (size_t)j * s] * c[j];
      worst = fmax(worst, fabs(zk - res->z[(size_t)k * s + i]));
      scale = fmax(scale, fabs(zk));
    }
  ck_assert_msg(worst / scale < 1e-9, "Phi c + zp vs solve: %.3e", worst / scale);
  /* Q is an orthonormal basis of the state space at t0: P Q = 0, Q'Q = I */
  lth_ivp_result_free(res);
  lth_fundamental_free(fm);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Inconsistent z0: an error naming the residual, or with project = 1 the
 * Corollary 3 projection, reported. */
START_TEST(test_inconsistent_z0) {
  int n[] = {2, 3, 1};
  ts_sys *S = ts_new(3, n, 771, 0.2, 1);
  lth_system *sys = ts_system(S);
  double z0[64], times[] = {0.5, 1.0};
  ts_z_coef(S, 0.1, 0, z0);
  z0[S->s - 1] += 0.25; /* u off its algebraic value */
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ivp_solve(sys, 0.1, z0, times, 2, &o, &res, &err), LTH_ECONSIST);
  ck_assert(strstr(err.message, "not consistent") != NULL && err.has_t && err.t == 0.1);
  /* the library names its own option, not a tool's flag */
  ck_assert_msg(strstr(err.message, "opts.project") && !strstr(err.message, "--"), "%s",
                err.message);
  o.project = 1;
  ck_assert_int_eq(lth_ivp_solve(sys, 0.1, z0, times, 2, &o, &res, NULL), LTH_OK);
  ck_assert(res->projected && res->z0_worst == S->s - 1);
  ck_assert(fabs(res->z0_change - 0.25) < 1e-12); /* only u was off: the projection restores it */
  ck_assert(solution_error(S, res) < 1e-8);
  lth_ivp_result_free(res);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* ---- long horizon: a bead on a rotating rod with a spring (index 3) ----
 * p' = -k q + c(t) lambda, q' = p, 0 = c(t)' q, c = (cos t, sin t): the bead
 * moves along d = (-sin t, cos t), q = s d with s'' = (1 - k) s; k = 4 gives
 * s = sin(sqrt(3) t), p = s' d - s c, lambda = -2 s'.  Neutral stability:
 * errors may grow linearly, never exponentially, and the constraints must
 * hold to rounding for all t (no drift). */
static int rod_c(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  int transpose = *(int *)ctx;
  double f = 1.0;
  for (int k = 0; k <= order; k++) {
    if (k) f *= k;
    double c = cos(t + k * M_PI / 2) / f, s = sin(t + k * M_PI / 2) / f;
    coef[k * stride + 0] = c;
    coef[k * stride + (transpose ? (size_t)ld : 1)] = s;
  }
  return 0;
}

static void rod_exact(double t, double *z) {
  double w = sqrt(3.0), s = sin(w * t), ds = w * cos(w * t);
  double c[2] = {cos(t), sin(t)}, d[2] = {-sin(t), cos(t)};
  for (int i = 0; i < 2; i++) {
    z[i] = ds * d[i] - s * c[i]; /* p */
    z[2 + i] = s * d[i];         /* q */
  }
  z[4] = -2 * ds; /* lambda */
}

START_TEST(test_long_horizon_rotating_rod) {
  static int no = 0, yes = 1;
  int n[] = {2, 2, 1};
  lth_system *sys = lth_system_alloc(3, n, NULL);
  double mk[] = {-4, 0, 0, -4};
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 2, mk, 2, NULL), NULL);
  lth_system_set_A(sys, 1, 3, lth_source_callback(2, 1, rod_c, &no, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_identity(2, 2, NULL), NULL);
  lth_system_set_A(sys, 3, 2, lth_source_callback(1, 2, rod_c, &yes, NULL), NULL);
  double z0[5], times[4] = {10, 100, 500, 1000};
  rod_exact(0.0, z0);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 4, &o, &res, &err) == LTH_OK, "%s", err.message);
  double e[4], cq[4];
  for (int k = 0; k < 4; k++) {
    double z[5];
    rod_exact(times[k], z);
    e[k] = 0;
    for (int i = 0; i < 5; i++) e[k] = fmax(e[k], fabs(res->z[k * 5 + i] - z[i]));
    cq[k] = fabs(cos(times[k]) * res->z[k * 5 + 2] + sin(times[k]) * res->z[k * 5 + 3]);
  }
  /* error bounded (measured 1.4e-12, 5.4e-12, 9.9e-11, 5.5e-11 at t = 10, 100,
   * 500, 1000), drift 4.9e-13 with the default drift damping; the constraint
   * c' q = c' P v holds to the drift level */
  ck_assert_msg(e[3] < 1e-9 && e[1] < 1e-10, "errors %.2e %.2e %.2e %.2e", e[0], e[1], e[2], e[3]);
  ck_assert_msg(res->drift < 1e-11 && res->gamma > 0, "drift %.3e", res->drift);
  for (int k = 0; k < 4; k++) ck_assert_msg(cq[k] <= 1.01 * res->drift + 1e-15, "c'q %.3e", cq[k]);
  lth_ivp_result_free(res);
  /* without damping the drift accumulates (measured 3.4e-10) and so does the error;
   * its size depends on the step sequence: 2.5e-10 .. 4.3e-9 for rtol 0.9e-12 .. 1.1e-12,
   * direct decompositions and coefficient table alike */
  o.stabilize = 0.0;
  ck_assert_int_eq(lth_ivp_solve(sys, 0.0, z0, times, 4, &o, &res, NULL), LTH_OK);
  ck_assert_msg(res->drift > 1e-11 && res->drift < 1e-8 && res->gamma == 0.0, "drift %.3e",
                res->drift);
  lth_ivp_result_free(res);
  /* with reprojection at the outputs the constraint holds to rounding */
  o.stabilize = -1.0;
  o.reproject = 1;
  ck_assert_int_eq(lth_ivp_solve(sys, 0.0, z0, times, 4, &o, &res, NULL), LTH_OK);
  for (int k = 0; k < 4; k++) {
    double c = cos(times[k]) * res->z[k * 5 + 2] + sin(times[k]) * res->z[k * 5 + 3];
    ck_assert_msg(fabs(c) < 1e-14, "reprojected constraint %.3e at t=%g", c, times[k]);
  }
  lth_ivp_result_free(res);
  lth_system_free(sys);
}
END_TEST

/* A first step below the smallest step (1e-10 of the span) is taken as the
 * smallest step: the solve succeeds to its tolerance (it aborted the host
 * before: GSL's handler refused hmin > h0). */
START_TEST(test_first_step_below_minimum) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 757, 0.2, 1);
  lth_system *sys = ts_system(S);
  double z0[64], times[3] = {0.9, 2.2, 3.1};
  ts_z_coef(S, 0.1, 0, z0);
  for (int method = LTH_IVP_RK8PD; method <= LTH_IVP_BSIMP; method++) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.method = method;
    o.h0 = 2.385e-14;
    lth_ivp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_ivp_solve(sys, 0.1, z0, times, 3, &o, &res, &err) == LTH_OK, "%s: %s",
                  lth_ivp_method_name(method), err.message);
    double e = solution_error(S, res);
    ck_assert_msg(e < 1e-7, "%s: error %.3e", lth_ivp_method_name(method), e);
    lth_ivp_result_free(res);
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* A caller may pass no error record: the status is the same as with one
 * (a missing chain block found while allocating the integrator was reported
 * as LTH_ENOMEM without a record). */
START_TEST(test_null_error_record_keeps_status) {
  int n[] = {2, 1};
  double a12[] = {1, 0};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL); /* no A(2,1) */
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.pi_scan = -1; /* straight to the integrator's allocation */
  o.project = 1;
  double z0[3] = {0}, t1 = 1.0;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status with = lth_ivp_solve(sys, 0.0, z0, &t1, 1, &o, &res, &err);
  lth_status without = lth_ivp_solve(sys, 0.0, z0, &t1, 1, &o, &res, NULL);
  ck_assert_int_ne(with, LTH_OK);
  ck_assert_int_ne(with, LTH_ENOMEM);
  ck_assert_int_eq(without, with);
  lth_system_free(sys);
}
END_TEST

static Suite *ivp_suite(void) {
  Suite *s = suite_create("ivp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_manufactured_index2_to_6);
  tcase_add_test(tc, test_convergence_with_tolerance);
  tcase_add_test(tc, test_stiff_stepper);
  tcase_add_test(tc, test_hermite_mode);
  tcase_add_test(tc, test_fundamental_matches_solve);
  tcase_add_test(tc, test_inconsistent_z0);
  tcase_add_test(tc, test_long_horizon_rotating_rod);
  tcase_add_test(tc, test_first_step_below_minimum);
  tcase_add_test(tc, test_null_error_record_keeps_status);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(ivp_suite)
