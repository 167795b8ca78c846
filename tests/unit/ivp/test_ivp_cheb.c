/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev collocation of the reduced ODE (method cheb, lib/ivp/
 * integrator_cheb.c) against exact solutions: the stiff index-2 DAE of
 * data/stiff.lth, where the explicit default needs steps of 3/k; Ascher and
 * Petzold's index-2 example at tight tolerances (drift damping gamma = 105,
 * stiff for rk8pd); rational coefficients, where the degree follows the
 * tail; the random index-2..4 families of testsys.h against their
 * manufactured solutions, with outputs inside long steps; and the refusal
 * of a state dimension above its limit. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lth/ivp.h"
#include "lth/problem.h"
#include "rational_problem.h"
#include "testsys.h"
#include "testutil.h"

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "cheb.lth", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

static lth_ivp_result *solve(const lth_system *sys, const double *z0, const double *times, size_t n,
                             lth_ivp_method method, double rtol, double atol) {
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = method;
  o.rtol = rtol;
  o.atol = atol;
  o.error_estimate = 0;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, n, &o, &res, &err) == LTH_OK, "%s %s",
                lth_ivp_method_name(method), err.message);
  return res;
}

/* x' = u, y' = -k (y - cos t) - sin t, 0 = x + y - 2 (k = 1e4): x = 2 - cos t,
 * y = cos t, u = sin t.  At the default tolerances (rtol 1e-10) every output
 * within 1e-9 of the exact solution, u carrying the gain k; in fewer than a
 * hundredth of rk8pd's steps (measured: 3 against 37,407). */
START_TEST(test_stiff_exact) {
  lth_problem *pb = parse("lth 1\nproblem equations\nvariables x y u\ninterval 0 10\n"
                          "param k = 1e4\nx' = u\ny' = -k*(y - cos(t)) - sin(t)\n"
                          "0 = x + y - 2\n");
  double z0[3] = {1.0, 1.0, 0.0}, times[10];
  for (int k = 0; k < 10; k++) times[k] = k + 1.0;
  lth_ivp_result *res = solve(lth_problem_system(pb), z0, times, 10, LTH_IVP_CHEB, 0.0, 0.0);
  double e = 0.0;
  for (int k = 0; k < 10; k++) {
    double t = times[k], ex[3] = {2.0 - cos(t), cos(t), sin(t)};
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(res->z[3 * k + i] - ex[i]));
  }
  ck_assert_msg(e < 1e-9, "stiff: error %.2e (%zu steps)", e, res->steps);
  lth_ivp_result *rk = solve(lth_problem_system(pb), z0, times, 10, LTH_IVP_RK8PD, 0.0, 0.0);
  ck_assert_msg(100 * res->steps < rk->steps, "cheb %zu steps, rk8pd %zu", res->steps, rk->steps);
  lth_ivp_result_free(rk);
  lth_ivp_result_free(res);
  lth_problem_free(pb);
}
END_TEST

/* Ascher and Petzold's index-2 example (alpha = 50): x1 = x2 = e^t,
 * u = -e^t / (2 - t); z amplifies the state's errors by ||Nhat + Bhat|| =
 * 100.  At rtol = atol = 1e-6, 1e-9 and 1e-11 the error at 20 outputs stays
 * below 100 rtol (measured: 1.5e-7, 1.6e-9, 9.4e-11 at 5.6e-8, 1e-9, 1e-11),
 * where rk8pd needs 100 to 243 steps and below rtol 1e-10 direct
 * decompositions for each of them. */
START_TEST(test_ap_tight) {
  lth_problem *pb = parse("lth 1\nproblem dae\nblocks 2 1\ninterval 0 1\nparam a = 50\n"
                          "A(1,1) = [a - 1/(2-t), 0; (1-a)/(t-2), -1]\n"
                          "A(1,2) = [(2-t)*a; a-1]\nA(2,1) = [t+2, t^2-4]\n"
                          "f(1) = [(3-t)/(2-t)*exp(t); 2*exp(t)]\nf(2) = -(t^2+t-2)*exp(t)\n");
  double z0[3] = {1.0, 1.0, -0.5}, times[20], rtols[3] = {1e-6, 1e-9, 1e-11};
  for (int k = 0; k < 20; k++) times[k] = (k + 1) / 20.0;
  for (int q = 0; q < 3; q++) {
    lth_ivp_result *res =
        solve(lth_problem_system(pb), z0, times, 20, LTH_IVP_CHEB, rtols[q], rtols[q]);
    double e = 0.0;
    for (int k = 0; k < 20; k++) {
      double t = times[k], x = exp(t), ex[3] = {x, x, -x / (2 - t)}, sc = fmax(1.0, x / (2 - t));
      for (int i = 0; i < 3; i++) e = fmax(e, fabs(res->z[3 * k + i] - ex[i]) / sc);
    }
    ck_assert_msg(e < 100 * rtols[q], "ap rtol %g: error %.2e (%zu steps)", rtols[q], e,
                  res->steps);
    lth_ivp_result_free(res);
  }
  lth_problem_free(pb);
}
END_TEST

/* The random families (callbacks with manufactured solutions, index 2..4,
 * t in [0, 6], 7 outputs: a step holds several) at rtol 1e-8: within 1e-6
 * of the exact solution relative to its size, as the other methods' tests
 * ask of rk8pd (tests/unit/ivp/test_ivp.c). */
START_TEST(test_random_families) {
  for (int r = 2; r <= 4; r++) {
    int n[4] = {2, 2, 1, 1};
    n[r - 1] = 1;
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ts_sys *S = ts_new(r, n, 4200 + 10 * (uint64_t)r + seed, 0.2, 1);
      lth_system *sys = ts_system(S);
      double z0[16], times[7];
      ts_z_coef(S, 0.0, 0, z0);
      for (int k = 0; k < 7; k++) times[k] = 6.0 * (k + 1) / 7.0;
      lth_ivp_result *res = solve(sys, z0, times, 7, LTH_IVP_CHEB, 1e-8, 1e-10);
      double e = ts_error(S, times, 7, res->z, 0);
      ck_assert_msg(e < 1e-6, "index %d seed %llu: error %.2e (%zu steps)", r,
                    (unsigned long long)seed, e, res->steps);
      lth_ivp_result_free(res);
      lth_system_free(sys);
      ts_free(S);
    }
  }
}
END_TEST

/* Rational coefficients with poles at -1, -2, -3 and +-i (index 2, blocks
 * 4 and 2) on [0, 10]: the stretches on which the data are resolved are
 * shorter than the steps the solution allows, so after each step the next
 * takes the lowest degree whose tail the last step met with room -- 8 or 12
 * at these tolerances.  Decomposed directly and through the
 * table, at rtol = atol = 1e-4, 1e-6, 1e-8 and 1e-10, every output within 100 rtol
 * of the exact solution (tests/fixtures/rational_problem.h). */
static void rational_exact(double t, double *z) { rational_solution(t, z, NULL); }

START_TEST(test_degree_follows_tail) {
  lth_problem *pb = parse(rational_text);
  double z0[6], times[20], rtols[4] = {1e-4, 1e-6, 1e-8, 1e-10};
  rational_exact(0.0, z0);
  for (int k = 0; k < 20; k++) times[k] = (k + 1) / 2.0;
  for (int c = 0; c < 2; c++) {
    for (int q = 0; q < 4; q++) {
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.method = LTH_IVP_CHEB;
      o.rtol = o.atol = rtols[q];
      o.error_estimate = 0;
      o.coefficients = c ? LTH_COEF_TABLE : LTH_COEF_DIRECT;
      lth_ivp_result *res = NULL;
      lth_error err;
      lth_error_clear(&err);
      ck_assert_msg(lth_ivp_solve(lth_problem_system(pb), 0.0, z0, times, 20, &o, &res, &err) ==
                        LTH_OK,
                    "%s", err.message);
      double e = 0.0;
      for (int k = 0; k < 20; k++) {
        double ex[6];
        rational_exact(times[k], ex);
        for (int i = 0; i < 6; i++) e = fmax(e, fabs(res->z[6 * k + i] - ex[i]));
      }
      ck_assert_msg(e < 100 * rtols[q], "%s, rtol %g: error %.2e (%zu steps)",
                    c ? "table" : "direct", rtols[q], e, res->steps);
      lth_ivp_result_free(res);
    }
  }
  lth_problem_free(pb);
}
END_TEST

/* The default method (LTH_IVP_AUTO): lth_ivp_solve takes cheb for a state
 * dimension m = 1 .. LTH_IVP_AUTO_CHEB_MAX and rk8pd above, and reports the
 * one it took; an explicit method stays itself.  Random index-2 systems with
 * blocks (n1, 1): m = n1, here 3 and 9, within 1e-6 of their
 * manufactured solutions at rtol 1e-8. */
START_TEST(test_auto_method) {
  int sizes[2] = {3, LTH_IVP_AUTO_CHEB_MAX + 1};
  for (int q = 0; q < 2; q++) {
    int n[2] = {sizes[q], 1};
    ts_sys *S = ts_new(2, n, 4711 + (uint64_t)q, 0.2, 1);
    lth_system *sys = ts_system(S);
    int m = lth_system_state_dim(sys);
    lth_ivp_method want = m <= LTH_IVP_AUTO_CHEB_MAX ? LTH_IVP_CHEB : LTH_IVP_RK8PD;
    ck_assert_int_eq(m, sizes[q]);
    ck_assert_int_eq(lth_ivp_method_resolve(LTH_IVP_AUTO, sys), want);
    ck_assert_int_eq(lth_ivp_method_resolve(LTH_IVP_MSBDF, sys), LTH_IVP_MSBDF);
    double z0[16], times[4];
    ts_z_coef(S, 0.0, 0, z0);
    for (int k = 0; k < 4; k++) times[k] = 1.5 * (k + 1);
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    ck_assert_int_eq(o.method, LTH_IVP_AUTO);
    o.rtol = 1e-8;
    o.atol = 1e-10;
    o.error_estimate = 0;
    lth_ivp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 4, &o, &res, &err) == LTH_OK, "%s",
                  err.message);
    ck_assert_int_eq(res->method, want);
    double e = ts_error(S, times, 4, res->z, 0);
    ck_assert_msg(e < 1e-6, "m = %d (%s): error %.2e", m, lth_ivp_method_name(res->method), e);
    lth_ivp_result_free(res);
    lth_system_free(sys);
    ts_free(S);
  }
}
END_TEST

/* Above 32 state unknowns the collocation system (8 m unknowns a step above
 * m = 8) is not worth forming: refused, naming the limit and the size.  34 masses
 * x_i' = -x_i + u held to sum(x) = 1 (index 2, m = 34). */
START_TEST(test_large_state_refused) {
  char text[4096];
  int len = snprintf(text, sizeof text, "lth 1\nproblem equations\nvariables");
  for (int i = 1; i <= 34; i++) len += snprintf(text + len, sizeof text - len, " x%d", i);
  len += snprintf(text + len, sizeof text - len, " u\ninterval 0 1\n");
  for (int i = 1; i <= 34; i++)
    len += snprintf(text + len, sizeof text - len, "x%d' = -x%d + u\n", i, i);
  len += snprintf(text + len, sizeof text - len, "0 = x1");
  for (int i = 2; i <= 34; i++) len += snprintf(text + len, sizeof text - len, " + x%d", i);
  snprintf(text + len, sizeof text - len, " - 1\n");
  lth_problem *pb = parse(text);
  double z0[35] = {0}, times[1] = {1.0};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = LTH_IVP_CHEB;
  o.propagate = 0; /* (constant data: else the exponential, no integrator) */
  o.project = 1;
  o.error_estimate = 0;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ivp_solve(lth_problem_system(pb), 0.0, z0, times, 1, &o, &res, &err),
                   LTH_EINVAL);
  ck_assert_ptr_null(res);
  ck_assert_msg(strstr(err.message, "at most 32") && strstr(err.message, "34"), "%s", err.message);
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ivp_cheb");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_stiff_exact);
  tcase_add_test(tc, test_ap_tight);
  tcase_add_test(tc, test_random_families);
  tcase_add_test(tc, test_degree_follows_tail);
  tcase_add_test(tc, test_auto_method);
  tcase_add_test(tc, test_large_state_refused);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
