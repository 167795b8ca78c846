/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 10, item 5 and the smaller items: --check's residuals measured
 * against the data (index-5 chain of 1 x 1 blocks, p = 0), lth_ic_fix blames
 * the conflicting prescription, huge guesses give scaled norms or a
 * non-finite error naming t, an explicit method refuses a stiff
 * --stabilize at once. */
#include "wellposed_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lth/grid.h"
#include "lth/ic.h"
#include "lth/ivp.h"
#include "testutil.h"

static lth_problem *read_file(const char *env, const char *sub, const char *name) {
  const char *dir = getenv(env);
  char path[1024];
  snprintf(path, sizeof path, "%s%s/%s", dir ? dir : ".", sub, name);
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s: %s", path, err.message);
  return pb;
}

/* It used to fail 47 of 101 points with structure = 1.00 (g measured
 * against itself). */
START_TEST(check_carts_index5) {
  lth_problem *pb = read_file("LTH_TEST_DIR", "/wellposed", "carts5.lth");
  double times[101];
  for (int k = 0; k <= 100; k++) times[k] = 0.1 * k;
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.verify = 1;
  lth_grid_result *res = NULL;
  TU_ASSERT_OK(lth_grid_store(lth_problem_system(pb), times, 101, &go, &res, NULL));
  for (int k = 0; k <= 100; k++) {
    ck_assert_msg(res->checks[k].worst < 1e-13, "t = %g: worst %g (structure %g)", times[k],
                  res->checks[k].worst, res->checks[k].structure);
  }
  lth_grid_result_free(res);
  lth_problem_free(pb);
}
END_TEST

START_TEST(fix_blames_the_conflicting_value) {
  lth_problem *pb = read_file("LTH_TEST_DIR", "/wellposed", "fix_order.lth");
  lth_ic *ic = lth_ic_alloc(lth_problem_system(pb), NULL);
  TU_ASSERT_OK(lth_ic_setup(ic, 0.0, NULL));
  int idx[3] = {1, 2, 3};
  double val[3] = {0.5, 1, 7}, guess[4] = {0}, z0[4];
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ic_fix(ic, guess, 3, idx, val, z0, &err), LTH_ECONSIST);
  ck_assert_msg(strncmp(err.message, "z[4] (u[1]) = 7 conflicts", 25) == 0, "%s", err.message);
  ck_assert_ptr_nonnull(strstr(err.message, "at -6"));
  /* in another order the last one is blamed again */
  int idx2[3] = {3, 2, 1};
  double val2[3] = {7, 1, 0.5};
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ic_fix(ic, guess, 3, idx2, val2, z0, &err), LTH_ECONSIST);
  ck_assert_msg(strncmp(err.message, "z[2] (z_1[2]) = 0.5 conflicts", 29) == 0, "%s", err.message);
  /* a value the constraints fix by themselves: z[1] = x1 = 0 */
  int idx3[2] = {1, 0};
  double val3[2] = {0.5, 2};
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ic_fix(ic, guess, 2, idx3, val3, z0, &err), LTH_ECONSIST);
  ck_assert_msg(strstr(err.message, "prescribed z[1] (z_1[1]) = 2 cannot hold"), "%s", err.message);
  /* consistent prescriptions pass */
  double val4[2] = {0.5, 1};
  TU_ASSERT_OK(lth_ic_fix(ic, guess, 2, idx, val4, z0, NULL));
  ck_assert_double_eq_tol(z0[3], -6.0, 1e-13);
  lth_ic_free(ic);
  lth_problem_free(pb);
}
END_TEST

/* --guess 1e308,...: norms without overflow; a result that overflows is
 * LTH_ENOTFINITE naming t (it used to label a residual of 1.7e308
 * "consistent"). */
START_TEST(huge_guess) {
  lth_problem *pb = read_file("LTH_DATA_DIR", "", "slope.lth");
  lth_ic *ic = lth_ic_alloc(lth_problem_system(pb), NULL);
  TU_ASSERT_OK(lth_ic_setup(ic, 0.0, NULL));
  double g[5] = {1e308, 1e308, 1e308, 1e308, 1e308}, z0[5];
  TU_ASSERT_OK(lth_ic_project(ic, g, z0, NULL));
  double res = lth_ic_residual(ic, z0), tol = lth_ic_tolerance(ic, z0);
  ck_assert(isfinite(res) && isfinite(tol));
  ck_assert_double_le(res, tol);
  /* a guess far from consistent: its residual (sqrt(4.6) 1e307 here) without
   * overflow in the sums; at 1e308 the residual itself exceeds DBL_MAX */
  double g1[5] = {1e307, 1e307, 1e307, 1e307, 1e307};
  double rg = lth_ic_residual(ic, g1);
  ck_assert_msg(fabs(rg - sqrt(4.6) * 1e307) < 1e295, "residual %g", rg); /* (3/sqrt5)^2 2 + 1 */
  ck_assert_double_gt(rg, lth_ic_tolerance(ic, g1));
  ck_assert(isinf(lth_ic_residual(ic, g)));
  double g2[5] = {1.7e308, -1.7e308, 1.7e308, -1.7e308, 1e308};
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ic_project(ic, g2, z0, &err), LTH_ENOTFINITE);
  ck_assert(err.has_t && err.t == 0.0);
  ck_assert_int_eq(lth_ic_nearest(ic, g2, z0, &err), LTH_ENOTFINITE);
  lth_ic_free(ic);
  lth_problem_free(pb);
}
END_TEST

/* --stabilize 1e8 with the explicit rk8pd (the default until cheb) ran for
 * over 15 minutes. */
START_TEST(stiff_stabilize_refused_at_once) {
  lth_problem *pb = read_file("LTH_DATA_DIR", "", "slope.lth");
  const double *z0;
  ck_assert(lth_problem_z0(pb, &z0));
  double times[2] = {1, 2};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = LTH_IVP_RK8PD;
  o.stabilize = 1e8;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  double t_start = wp_now();
  ck_assert_int_eq(lth_ivp_solve(lth_problem_system(pb), 0, z0, times, 2, &o, &res, &err),
                   LTH_EINVAL);
  ck_assert_double_lt(wp_now() - t_start, 1.0);
  ck_assert_ptr_nonnull(strstr(err.message, "stiff"));
  /* a stiff method integrates it */
  o.method = LTH_IVP_MSBDF;
  TU_ASSERT_OK(lth_ivp_solve(lth_problem_system(pb), 0, z0, times, 2, &o, &res, NULL));
  ck_assert_double_eq(res->gamma, 1e8);
  lth_ivp_result_free(res);
  /* moderate damping with the explicit method is fine */
  o.method = LTH_IVP_RK8PD;
  o.stabilize = 100;
  TU_ASSERT_OK(lth_ivp_solve(lth_problem_system(pb), 0, z0, times, 2, &o, &res, NULL));
  lth_ivp_result_free(res);
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wellposed_misc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, check_carts_index5);
  tcase_add_test(tc, fix_blames_the_conflicting_value);
  tcase_add_test(tc, huge_guess);
  tcase_add_test(tc, stiff_stabilize_refused_at_once);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
