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
  double fl = fmax(100.0, (double)res->steps) * DBL_EPSILON * 10;
  ck_assert_msg(e <= fl, "error %.3e above the rounding floor %.3e", e, fl);
  /* the estimate: rk8pd's second solve (exact on this quadratic too) */
  ck_assert_msg(res->error_estimate <= 10 * fl && res->error_estimate >= 0.5 * e,
                "estimate %.3e, error %.3e, floor %.3e", res->error_estimate, e, fl);
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

/* Index r = 2, 3 or 4, blocks n_1 >= n_2 >= ... >= n_r >= 1 drawn from the
 * seed, every block of the Hessenberg pattern random; with `oblique` the
 * chain's last block (A(1,r)) is 30 times larger, which makes P far from
 * orthogonal (||P|| in the tens) and Ahat large off the state space. */
static void random_text(char *buf, size_t cap, int r, unsigned seed, int oblique) {
  uint64_t R = seed;
  int n[4];
  n[0] = 3 + (int)(rng_splitmix(&R, 0.0, 1.0) * 8); /* 3 .. 10 */
  for (int i = 1; i < r; i++) {
    n[i] = 1 + (int)(rng_splitmix(&R, 0.0, 1.0) * (n[i - 1] - 1));
    if (n[i] > n[i - 1]) n[i] = n[i - 1];
  }
  size_t len = (size_t)snprintf(buf, cap, "lth 1\nproblem dae\nblocks");
  for (int i = 0; i < r; i++) len += (size_t)snprintf(buf + len, cap - len, " %d", n[i]);
  snprintf(buf + len, cap - len, "\ninterval 0 2\n");
  char name[32];
  /* row 1: A(1,1..r); rows 2..r-1: A(i,i-1..r-1); row r: A(r,r-1) */
  for (int i = 1; i <= r; i++) {
    int j0 = i == 1 ? 1 : i - 1, j1 = i == 1 ? r : (i == r ? r - 1 : r - 1);
    for (int j = j0; j <= j1; j++) {
      snprintf(name, sizeof name, "A(%d,%d)", i, j);
      double sc = j == i - 1 ? 1.0 : (i == 1 && j == r ? (oblique ? 30.0 : 1.0) : 0.5);
      put_matrix(buf, cap, name, n[i - 1], n[j - 1], &R, sc);
    }
    snprintf(name, sizeof name, "f(%d)", i);
    put_matrix(buf, cap, name, n[i - 1], 1, &R, 1.0);
  }
}

/* The exponential against rk8pd at rtol 1e-12 on the same consistent z0:
 * within ten times the integrator's own error estimate plus the rounding
 * of both (|z| scale, output gain). */
START_TEST(test_against_integrator) {
  char text[32768];
  int cases = 0, fallbacks = 0;
  for (unsigned seed = 1; seed <= 30; seed++) {
    int r = 2 + (int)(seed % 3), oblique = seed % 4 == 0;
    random_text(text, sizeof text, r, 1000 + seed, oblique);
    lth_problem *pb = parse(text);
    const lth_system *sys = lth_problem_system(pb);
    int s = lth_system_size(sys);
    double z0[64], times[21];
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
    ck_assert_msg(d <= tol, "seed %u (index %d, s = %d%s): exponential and rk8pd differ by %.3e > %.3e",
                  seed, r, s, oblique ? ", oblique" : "", d, tol);
    /* at a tolerance near rounding the exponential may miss (one
     * decomposition's rounding, carried); then the integrator answers: a
     * propagated result never exceeds its tolerance by its own estimate */
    lth_ivp_opts_init(&o);
    o.project = 1;
    o.rtol = o.atol = 1e-14;
    lth_ivp_result *tr = solve(pb, z0, times, 21, &o);
    ck_assert_msg(!(tr->propagated && tr->error_tol > 1),
                  "seed %u: propagated, %.3g x the tolerance by its estimate", seed, tr->error_tol);
    fallbacks += !tr->propagated;
    lth_ivp_result_free(tr);
    cases++;
    lth_ivp_result_free(pr);
    lth_ivp_result_free(ir);
    lth_problem_free(pb);
  }
  ck_assert_int_eq(cases, 30);
  /* (the growing, far from normal members miss 1e-14: the fallback is exercised) */
  ck_assert_int_gt(fallbacks, 0);
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
