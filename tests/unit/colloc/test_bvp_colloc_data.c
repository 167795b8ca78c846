/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The literature and user BVPs shipped in data/ (an RLC circuit's periodic
 * steady state, linearised pendulum BVPs, a 10-second pendulum BVP) through
 * the library with collocation at tol 1e-8, against their exact solutions
 * (stated in each file's comments). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/bvp.h"
#include "lth/problem.h"
#include "testutil.h"

#define G 9.81

typedef void (*exact_fn)(double t, double *z);

static void rlc(double t, double *z) {
  const double w = 0.9, a = 0.19 / 0.0442, b = -0.09 / 0.0442, C1 = 0.5, C2 = 1, V0 = 1;
  z[0] = V0 * sin(w * t);
  z[1] = C2 * V0 * w * (a * cos(w * t) - b * sin(w * t));
  z[2] = V0 * (a * sin(w * t) + b * cos(w * t));
  z[3] = C1 * V0 * w * cos(w * t) + z[1];
}

/* dx = a cos(w t) + b sin(w t): z = (dx', dy', dx, dy, d lambda) */
static void swing(double t, double a, double b, double *z) {
  double w = sqrt(G);
  z[0] = w * (b * cos(w * t) - a * sin(w * t));
  z[1] = 0.0;
  z[2] = a * cos(w * t) + b * sin(w * t);
  z[3] = 0.0;
  z[4] = 0.0;
}

static double b_between(double x0, double x1, double T) {
  double w = sqrt(G);
  return (x1 - x0 * cos(w * T)) / sin(w * T);
}

static void pendulum(double t, double *z) { swing(t, 0.05, b_between(0.05, -0.03, 1.5), z); }
static void pendulum_10s(double t, double *z) { swing(t, 0.05, b_between(0.05, 0.03, 10), z); }

static void pendulum_forced(double t, double *z) {
  double w = sqrt(G), c = 0.2 / (G - 4), b = -2 * c * cos(4.0) / (w * cos(2 * w));
  swing(t, 0.0, b, z);
  z[0] += 2 * c * cos(2 * t);
  z[2] += c * sin(2 * t);
  z[4] = -0.1 * cos(3 * t);
}

static lth_problem *load(const char *name) {
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.lth", dir ? dir : "data", name);
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s: %s", path, err.message);
  return pb;
}

/* Collocation at tol 1e-8 on the file's grid: error <= 1e-8 (relative to
 * max(1, max |z|)), estimate within 10x of it, constraints exact (drift). */
static void check_file(const char *name, exact_fn exact) {
  lth_problem *pb = load(name);
  const double *B0, *B1, *beta, *tt;
  int rows = lth_problem_bc(pb, &B0, &B1, &beta);
  size_t n = lth_problem_grid(pb, &tt);
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  o.tol = 1e-8;
  lth_bvp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_bvp_solve(lth_problem_system(pb), t0, t1, rows, B0, B1, beta, tt, n, &o, &res,
                              &err) == LTH_OK,
                "%s: %s", name, err.message);
  double e = 0.0, scale = 1.0, z[8];
  for (size_t k = 0; k < n; k++) {
    exact(tt[k], z);
    for (int i = 0; i < res->s; i++) {
      e = fmax(e, fabs(res->z[k * res->s + i] - z[i]));
      scale = fmax(scale, fabs(z[i]));
    }
  }
  ck_assert_msg(e <= 1e-8 * scale, "%s: error %.3e", name, e);
  ck_assert_msg(res->error_estimate >= e / 10 && res->error_estimate <= 10 * e,
                "%s: estimate %.3e, error %.3e", name, res->error_estimate, e);
  ck_assert(res->drift < 1e-14 * scale && res->bc_residual < 1e-12 * scale);
  lth_bvp_result_free(res);
  lth_problem_free(pb);
}

START_TEST(test_rlc_periodic) { check_file("rlc_periodic", rlc); }
END_TEST

START_TEST(test_pendulum_bvp) { check_file("pendulum_bvp", pendulum); }
END_TEST

START_TEST(test_pendulum_forced_bvp) { check_file("pendulum_forced_bvp", pendulum_forced); }
END_TEST

START_TEST(test_pendulum_10s_bvp) { check_file("pendulum_10s_bvp", pendulum_10s); }
END_TEST

static Suite *data_suite(void) {
  Suite *s = suite_create("bvp_colloc_data");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_rlc_periodic);
  tcase_add_test(tc, test_pendulum_bvp);
  tcase_add_test(tc, test_pendulum_forced_bvp);
  tcase_add_test(tc, test_pendulum_10s_bvp);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(data_suite)
