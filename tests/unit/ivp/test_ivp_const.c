/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_ivp_solve on constant data (lib/ivp/ivp_const.c, lth_ivp_opts.propagate):
 * the exact propagator against an exact solution (the sliding mass, a
 * quadratic in t), against the integrators on random constant index-2 and
 * index-3 systems (within the integrator's own error estimate), and where it
 * must not serve: data that vary, an explicit propagate = 0, a stiff system
 * whose substeps would cost too much (the integrator takes over). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "lth/ivp.h"
#include "lth/problem.h"
#include "rng.h"

static lth_problem *parse(const char *text) {
  lth_error err;
  lth_error_clear(&err);
  lth_problem *pb = NULL;
  ck_assert_msg(lth_problem_parse(text, strlen(text), "const", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

static lth_ivp_result *solve(const lth_problem *pb, const double *z0, const double *times,
                             size_t n, const lth_ivp_opts *o) {
  lth_error err;
  lth_error_clear(&err);
  lth_ivp_result *res = NULL;
  ck_assert_msg(lth_ivp_solve(lth_problem_system(pb), 0.0, z0, times, n, o, &res, &err) == LTH_OK,
                "%s", err.message);
  return res;
}

/* The sliding mass of data/slope.lth: x'' = l, y'' = 2 l - g on x + 2 y = 4,
 * so l = 2 g / 5 and x = 2 - 0.6 t + g t^2 / 5, y = 1 + 0.3 t - g t^2 / 10. */
static const char slope[] = "lth 1\nproblem dae\nblocks 2 2 1\ninterval 0 2\nparam g = 9.81\n"
                            "A(1,3) = [1; 2]\nA(2,1) = eye\nA(3,2) = [1, 2]\n"
                            "f(1) = [0; -g]\nf(3) = -4\n";

static void slope_exact(double t, double *z) {
  const double g = 9.81;
  double val[5] = {-0.6 + 2 * g * t / 5, 0.3 - g * t / 5, 2 - 0.6 * t + g * t * t / 5,
                   1 + 0.3 * t - g * t * t / 10, 2 * g / 5};
  memcpy(z, val, sizeof val);
}

START_TEST(test_exact_solution) {
  lth_problem *pb = parse(slope);
  /* unevenly spaced, repeated, and t0 itself among the outputs */
  double times[] = {0.0, 0.0, 0.1, 0.35, 0.35, 1.0, 1.7, 2.0}, z0[5], zs[5];
  size_t n = sizeof times / sizeof times[0];
  slope_exact(0.0, z0);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  ck_assert_int_eq(o.propagate, -1);
  lth_ivp_result *res = solve(pb, z0, times, n, &o);
  ck_assert_int_eq(res->propagated, 1);
  ck_assert_int_eq(res->rhs_evals, 0);
  ck_assert_int_eq(res->decomps, 1);
  double e = 0.0;
  for (size_t k = 0; k < n; k++) {
    slope_exact(times[k], zs);
    for (int i = 0; i < 5; i++) e = fmax(e, fabs(res->z[k * 5 + i] - zs[i]) / fmax(1.0, fabs(zs[i])));
  }
  /* each substep exact to a few eps (|z| <= 10): rounding, carried */
  double fl = fmax(100.0, (double)res->error_steps) * DBL_EPSILON * 10;
  ck_assert_msg(e <= fl, "error %.3e above the rounding floor %.3e", e, fl);
  ck_assert_msg(res->error_estimate <= 10 * fl && isfinite(res->error_estimate),
                "estimate %.3e, floor %.3e", res->error_estimate, fl);
  ck_assert_msg(res->drift <= 1e3 * DBL_EPSILON, "drift %.3e", res->drift);
  lth_ivp_result_free(res);
  /* an inconsistent z0 is still refused */
  z0[4] += 1.0;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ivp_solve(lth_problem_system(pb), 0.0, z0, times, n, &o, &res, &err),
                   LTH_ECONSIST);
  lth_problem_free(pb);
}
END_TEST

/* A random constant Hessenberg system of index r (2 or 3) as a data file. */
static void put_matrix(char *buf, size_t cap, const char *name, int rows, int cols, uint64_t *R,
                       double scale) {
  size_t len = strlen(buf);
  len += (size_t)snprintf(buf + len, cap - len, "%s = [", name);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      len += (size_t)snprintf(buf + len, cap - len, "%s%.17g", j ? ", " : (i ? "; " : ""),
                              scale * rng_splitmix(R, -1.0, 1.0));
    }
  }
  snprintf(buf + len, cap - len, "]\n");
}

static void random_text(char *buf, size_t cap, int r, unsigned seed) {
  uint64_t R = seed;
  int n1 = 3, n2 = r == 2 ? 1 + (int)(seed % 2) : 2, n3 = 1;
  if (r == 2) {
    snprintf(buf, cap, "lth 1\nproblem dae\nblocks %d %d\ninterval 0 2\n", n1, n2);
    put_matrix(buf, cap, "A(1,1)", n1, n1, &R, 0.5);
    put_matrix(buf, cap, "A(1,2)", n1, n2, &R, 1.0);
    put_matrix(buf, cap, "A(2,1)", n2, n1, &R, 1.0);
    put_matrix(buf, cap, "f(1)", n1, 1, &R, 1.0);
    put_matrix(buf, cap, "f(2)", n2, 1, &R, 1.0);
  } else {
    snprintf(buf, cap, "lth 1\nproblem dae\nblocks %d %d %d\ninterval 0 2\n", n1, n2, n3);
    put_matrix(buf, cap, "A(1,1)", n1, n1, &R, 0.5);
    put_matrix(buf, cap, "A(1,2)", n1, n2, &R, 0.5);
    put_matrix(buf, cap, "A(1,3)", n1, n3, &R, 1.0);
    put_matrix(buf, cap, "A(2,1)", n2, n1, &R, 1.0);
    put_matrix(buf, cap, "A(2,2)", n2, n2, &R, 0.5);
    put_matrix(buf, cap, "A(3,2)", n3, n2, &R, 1.0);
    put_matrix(buf, cap, "f(1)", n1, 1, &R, 1.0);
    put_matrix(buf, cap, "f(2)", n2, 1, &R, 1.0);
    put_matrix(buf, cap, "f(3)", n3, 1, &R, 1.0);
  }
}

/* The exponential against rk8pd at rtol 1e-12 on the same consistent z0:
 * within ten times the integrator's own error estimate plus the rounding
 * of both (|z| scale, output gain). */
START_TEST(test_against_integrator) {
  char text[8192];
  int cases = 0;
  for (unsigned seed = 1; seed <= 12; seed++) {
    int r = seed % 2 ? 2 : 3;
    random_text(text, sizeof text, r, 1000 + seed);
    lth_problem *pb = parse(text);
    const lth_system *sys = lth_problem_system(pb);
    int s = lth_system_size(sys);
    double z0[16], times[21];
    uint64_t R = seed;
    for (int i = 0; i < s; i++) z0[i] = rng_splitmix(&R, -1.0, 1.0);
    for (int k = 0; k < 21; k++) times[k] = 0.1 * k;
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.project = 1; /* a consistent z0 from the random one (the same for both) */
    lth_ivp_result *pr = solve(pb, z0, times, 21, &o);
    o.propagate = 0;
    o.rtol = 1e-12;
    o.atol = 1e-14;
    lth_ivp_result *ir = solve(pb, z0, times, 21, &o);
    ck_assert_int_eq(pr->propagated, 1);
    ck_assert_int_eq(ir->propagated, 0);
    double d = 0.0, zmax = 0.0;
    for (int q = 0; q < 21 * s; q++) {
      d = fmax(d, fabs(pr->z[q] - ir->z[q]));
      zmax = fmax(zmax, fabs(pr->z[q]));
    }
    double tol = 10 * (ir->error_estimate + pr->error_estimate) +
                 1e3 * DBL_EPSILON * fmax(1.0, zmax) * fmax(pr->output_gain, 1.0);
    ck_assert_msg(d <= tol, "seed %u (index %d): exponential and rk8pd differ by %.3e > %.3e", seed,
                  r, d, tol);
    cases++;
    lth_ivp_result_free(pr);
    lth_ivp_result_free(ir);
    lth_problem_free(pb);
  }
  ck_assert_int_eq(cases, 12);
}
END_TEST

/* Data that vary (here only the forcing) are integrated. */
START_TEST(test_varying_data_integrate) {
  static const char text[] = "lth 1\nproblem dae\nblocks 2 2 1\ninterval 0 2\n"
                             "A(1,3) = [1; 2]\nA(2,1) = eye\nA(3,2) = [1, 2]\n"
                             "f(1) = [0; -9.81]\nf(3) = -4 - 0*t + 1e-3*sin(t)\n";
  lth_problem *pb = parse(text);
  double z0[5] = {0, 0, 2, 1, 0}, times[] = {0.5, 1.0};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.project = 1;
  lth_ivp_result *res = solve(pb, z0, times, 2, &o);
  ck_assert_int_eq(res->propagated, 0);
  ck_assert_int_gt(res->rhs_evals, 0);
  lth_ivp_result_free(res);
  lth_problem_free(pb);
  /* and constant data with propagate = 0 too */
  pb = parse(slope);
  slope_exact(0.0, z0);
  lth_ivp_opts_init(&o);
  o.propagate = 0;
  res = solve(pb, z0, times, 2, &o);
  ck_assert_int_eq(res->propagated, 0);
  lth_ivp_result_free(res);
  lth_problem_free(pb);
}
END_TEST

/* A stiff constant system (a mode -1e7 on the state space) over [0, 100]:
 * about 1e9 substeps -- the integrator takes over (msbdf here), with the
 * answer y -> 1 of y' = -1e7 (y - 1), x = y. */
START_TEST(test_stiff_falls_back) {
  static const char text[] = "lth 1\nproblem dae\nblocks 2 1\ninterval 0 100\n"
                             "A(1,1) = [-1e7, 0; 0, 0]\nA(1,2) = [0; 1]\nA(2,1) = [1, -1]\n"
                             "f(1) = [1e7; 0]\n";
  lth_problem *pb = parse(text);
  /* z = (y, x, u): x = y, so x' = y' = u */
  double z0[3] = {0, 0, 1e7}, times[] = {50.0, 100.0};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = LTH_IVP_MSBDF;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.error_estimate = 0;
  lth_ivp_result *res = solve(pb, z0, times, 2, &o);
  ck_assert_int_eq(res->propagated, 0);
  for (int k = 0; k < 2; k++) {
    ck_assert_msg(fabs(res->z[k * 3] - 1.0) < 1e-6 && fabs(res->z[k * 3 + 1] - 1.0) < 1e-6,
                  "t = %g: y %.10g, x %.10g", times[k], res->z[k * 3], res->z[k * 3 + 1]);
  }
  lth_ivp_result_free(res);
  lth_problem_free(pb);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ivp_const");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_exact_solution);
  tcase_add_test(tc, test_against_integrator);
  tcase_add_test(tc, test_varying_data_integrate);
  tcase_add_test(tc, test_stiff_falls_back);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
