/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 10, items 2 and 3 and the BVP items of "also in scope": cond_bvp for
 * every method (the same constant, computed three ways), used to refuse what
 * cannot be solved to the accuracy (Ascher-Petzold, alpha = 50, condition at
 * t1 only); dependent conditions refused by every method, naming the rows and
 * the components the constraints fix; p = 0 gives the DAE's unique solution. */
#include "wellposed_util.h"

#include <math.h>
#include <stdlib.h>

#include "lth/bvp.h"
#include "testutil.h"

static lth_problem *read_test(const char *name) {
  const char *dir = getenv("LTH_TEST_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/wellposed/%s", dir ? dir : "tests", name);
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s: %s", path, err.message);
  return pb;
}

static lth_status bvp(lth_problem *pb, lth_bvp_method method, const double *times, size_t n,
                      lth_bvp_result **res, lth_error *err) {
  const double *B0, *B1, *beta;
  int rows = lth_problem_bc(pb, &B0, &B1, &beta);
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = method;
  lth_error_clear(err);
  *res = NULL;
  return lth_bvp_solve(lth_problem_system(pb), t0, t1, rows, B0, B1, beta, times, n, &o, res, err);
}

static const lth_bvp_method methods[3] = {LTH_BVP_SHOOTING, LTH_BVP_MULTIPLE, LTH_BVP_FD};

START_TEST(ascher_petzold_t1_refused) {
  lth_problem *pb = read_test("ap50_t1.lth");
  double times[3] = {0, 0.5, 1};
  for (int k = 0; k < 3; k++) {
    lth_bvp_result *res;
    lth_error err;
    ck_assert_int_eq(bvp(pb, methods[k], times, 3, &res, &err), LTH_ENOTUNIQUE);
    ck_assert_msg(err.has_cond && err.cond > 1e20, "%s: cond %g", lth_bvp_method_name(methods[k]),
                  err.cond);
    ck_assert_int_eq(lth_status_exit_code(err.status), 3);
    /* ill-conditioned, not dependent: the one condition is no constraint's */
    ck_assert_ptr_null(strstr(err.message, "dependent"));
  }
  lth_problem_free(pb);
}
END_TEST

START_TEST(ascher_petzold_t0_solved) {
  lth_problem *pb = read_test("ap50_t0.lth");
  double times[5] = {0, 0.25, 0.5, 0.75, 1}, cond[3];
  for (int k = 0; k < 3; k++) {
    lth_bvp_result *res;
    lth_error err;
    ck_assert_msg(bvp(pb, methods[k], times, 5, &res, &err) == LTH_OK, "%s", err.message);
    cond[k] = res->cond_bvp;
    double tol = methods[k] == LTH_BVP_FD ? 5 * res->fd_error + 1e-12 : 1e-8;
    for (int i = 0; i < 5; i++) {
      double t = times[i], e = exp(t);
      ck_assert_double_eq_tol(res->z[i * 3 + 0], e, tol * e);
      ck_assert_double_eq_tol(res->z[i * 3 + 1], e, tol * e);
      ck_assert_double_eq_tol(res->z[i * 3 + 2], -e / (2 - t), tol * 10 * e);
    }
    lth_bvp_result_free(res);
  }
  /* the same constant three ways (fd: of its first-order discretization) */
  ck_assert_double_gt(cond[0], 1.0);
  ck_assert_double_lt(cond[0], 100.0);
  ck_assert_double_eq_tol(cond[1], cond[0], 1e-6 * cond[0]);
  ck_assert_double_eq_tol(cond[2], cond[0], 0.05 * cond[0]);
  lth_problem_free(pb);
}
END_TEST

/* cond_bvp is the Green's function bound: scaling beta's rows leaves it alone,
 * and it equals max_t ||Phi(t) S^{-1}|| (||B0|| + ||B1||) computed here from
 * two solves with unit boundary values on the index-2 example of data/. */
START_TEST(cond_bvp_is_green_bound) {
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/index2.lth", dir ? dir : "data");
  lth_problem *pb = NULL;
  ck_assert_int_eq(lth_problem_read(path, &pb, NULL), LTH_OK);
  const double *B0, *B1, *beta;
  int p = lth_problem_bc(pb, &B0, &B1, &beta);
  ck_assert_int_eq(p, 2);
  double t0, t1, times[41];
  lth_problem_interval(pb, &t0, &t1);
  for (int k = 0; k <= 40; k++) times[k] = t0 + (t1 - t0) * k / 40.0;
  const lth_system *sys = lth_problem_system(pb);
  int s = lth_system_size(sys);
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  lth_bvp_result *r0, *r1, *r2;
  double zero[2] = {0, 0}, e1[2] = {1, 0}, e2[2] = {0, 1};
  /* homogeneous responses need f = 0: differences of solutions cancel f */
  TU_ASSERT_OK(lth_bvp_solve(sys, t0, t1, p, B0, B1, zero, times, 41, &o, &r0, NULL));
  TU_ASSERT_OK(lth_bvp_solve(sys, t0, t1, p, B0, B1, e1, times, 41, &o, &r1, NULL));
  TU_ASSERT_OK(lth_bvp_solve(sys, t0, t1, p, B0, B1, e2, times, 41, &o, &r2, NULL));
  double gmax = 0.0, bn0 = 0.0, bn1 = 0.0;
  for (int k = 0; k <= 40; k++)
    for (int i = 0; i < s; i++) {
      double a = r1->z[k * s + i] - r0->z[k * s + i], b = r2->z[k * s + i] - r0->z[k * s + i];
      gmax = fmax(gmax, fabs(a) + fabs(b));
    }
  for (int i = 0; i < p; i++) {
    double a = 0, b = 0;
    for (int j = 0; j < s; j++) {
      a += fabs(B0[i + j * p]);
      b += fabs(B1[i + j * p]);
    }
    bn0 = fmax(bn0, a);
    bn1 = fmax(bn1, b);
  }
  /* the solver's max also runs over 33 uniform points besides these times */
  double direct = gmax * (bn0 + bn1);
  ck_assert_double_ge(r0->cond_bvp, direct * (1 - 1e-8));
  ck_assert_double_le(r0->cond_bvp, direct * 1.05);
  lth_bvp_result_free(r0);
  lth_bvp_result_free(r1);
  lth_bvp_result_free(r2);
  lth_problem_free(pb);
}
END_TEST

START_TEST(dependent_conditions_every_method) {
  const char *files[2] = {"bc_dependent.lth", "bc_algebraic.lth"};
  double times[2] = {0, 2};
  for (int f = 0; f < 2; f++) {
    lth_problem *pb = read_test(files[f]);
    for (int k = 0; k < 3; k++) {
      lth_bvp_result *res;
      lth_error err;
      ck_assert_msg(bvp(pb, methods[k], times, 2, &res, &err) == LTH_ENOTUNIQUE, "%s %s: %s",
                    files[f], lth_bvp_method_name(methods[k]), err.message);
      ck_assert_ptr_nonnull(strstr(err.message, "dependent on the consistent manifold"));
      if (f == 0) {
        ck_assert_ptr_nonnull(strstr(err.message, "bc rows 1 2"));
      } else {
        ck_assert_ptr_nonnull(strstr(err.message, "bc row 1 vanishes"));
        ck_assert_ptr_nonnull(strstr(err.message, "row 1 involves z[5] (u[1]) at t0"));
      }
    }
    lth_problem_free(pb);
  }
}
END_TEST

/* p = 0: the DAE alone fixes its solution; no boundary conditions needed.
 * Carts: x2 = sin t, x1 = (1 - 1/k) sin t, u = (1/k - 2) sin t (k = 2.5). */
START_TEST(p_zero_unique_solution) {
  lth_problem *pb = read_test("carts5.lth");
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_manifold_dim(sys), 0);
  double times[6] = {0, 2, 4, 6, 8, 10}, k = 2.5;
  for (int m = 0; m < 3; m++) {
    lth_bvp_opts o;
    lth_bvp_opts_init(&o);
    o.method = methods[m];
    lth_bvp_result *res = NULL;
    lth_error err;
    ck_assert_msg(lth_bvp_solve(sys, 0, 10, 0, NULL, NULL, NULL, times, 6, &o, &res, &err) ==
                      LTH_OK,
                  "%s: %s", lth_bvp_method_name(methods[m]), err.message);
    double tol = methods[m] == LTH_BVP_FD ? 1e-12 : 1e-9; /* fd: exact algebraic solution */
    for (int i = 1; i < 6; i++) {
      double t = times[i], x[5] = {cos(t) * (1 - 1 / k), sin(t) * (1 - 1 / k), cos(t), sin(t),
                                   (1 / k - 2) * sin(t)};
      for (int c = 0; c < 5; c++) {
        ck_assert_msg(fabs(res->z[i * 5 + c] - x[c]) <= tol + (methods[m] == LTH_BVP_FD ? 0.05 : 0),
                      "%s z[%d](%g) = %.17g, exact %.17g", lth_bvp_method_name(methods[m]), c, t,
                      res->z[i * 5 + c], x[c]);
      }
    }
    ck_assert_double_eq(res->cond_bvp, 0.0);
    lth_bvp_result_free(res);
  }
  lth_problem_free(pb);
}
END_TEST

/* opts.cond_max is the one threshold of a BVP solve, the scan of Pi before it
 * included, whatever opts.ivp.cond_max holds.  Index 3, Pi = t^2 + 1e-14:
 * cond_interval 1e14 at t = 0 (amplification 1e28), so the default refuses and
 * cond_max = 1e29 accepts.  Exact solution (E = diag(1, 1, 0), g = t^2 + 1e-14):
 * z2 = 1/g, z1 = z2' = -2t/g^2, z3 = z1' = -2/g^2 + 8t^2/g^3.  The scan used
 * ivp.cond_max (left 0: the default) and refused before this was fixed. */
START_TEST(one_cond_max) {
  lth_problem *pb = wp_parse("blocks 1 1 1\ninterval 0 1\nA(1,3) = 1\nA(2,1) = 1\n"
                             "A(3,2) = t^2 + 1e-14\nf(3) = -1\n");
  const lth_system *sys = wp_system(pb);
  ck_assert_int_eq(lth_system_manifold_dim(sys), 0);
  double times[3] = {0.5, 0.75, 1};
  const lth_bvp_method meths[2] = {LTH_BVP_SHOOTING, LTH_BVP_COLLOCATION};
  for (int m = 0; m < 2; m++) {
    lth_bvp_opts o;
    lth_bvp_opts_init(&o);
    o.method = meths[m];
    lth_bvp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_int_eq(lth_bvp_solve(sys, 0, 1, 0, NULL, NULL, NULL, times, 3, &o, &res, &err),
                     LTH_ECOND);
    ck_assert(err.has_t && err.t == 0.0 && err.has_cond && err.cond > 1e13);
    o.cond_max = 1e29; /* o.ivp.cond_max stays 0 */
    ck_assert_msg(lth_bvp_solve(sys, 0, 1, 0, NULL, NULL, NULL, times, 3, &o, &res, &err) == LTH_OK,
                  "%s: %s", lth_bvp_method_name(meths[m]), err.message);
    for (int i = 0; i < 3; i++) {
      double t = times[i], g = t * t + 1e-14;
      double x[3] = {-2 * t / (g * g), 1 / g, -2 / (g * g) + 8 * t * t / (g * g * g)};
      for (int c = 0; c < 3; c++) {
        /* well conditioned on [0.5, 1]: the methods' tolerances (1e-10, 1e-8) with margin */
        ck_assert_msg(fabs(res->z[i * 3 + c] - x[c]) <= 1e-6 * fmax(1.0, fabs(x[c])),
                      "%s z[%d](%g) = %.17g, exact %.17g", lth_bvp_method_name(meths[m]), c, t,
                      res->z[i * 3 + c], x[c]);
      }
    }
    lth_bvp_result_free(res);
  }
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wellposed_bvp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, ascher_petzold_t1_refused);
  tcase_add_test(tc, ascher_petzold_t0_solved);
  tcase_add_test(tc, cond_bvp_is_green_bound);
  tcase_add_test(tc, dependent_conditions_every_method);
  tcase_add_test(tc, p_zero_unique_solution);
  tcase_add_test(tc, one_cond_max);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
