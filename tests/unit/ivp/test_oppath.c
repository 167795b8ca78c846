/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator path as the front ends call it (include/lth/path.h,
 * include/lth/opic.h, include/lth/opsolve.h):
 *   - lth_path_choose: below the size auto and dense stay dense (with the
 *     reason), operator builds the operator form and counts A's entries, an
 *     obstacle (what only the dense path does) makes operator a refusal
 *     naming it, sampled data are one, a bad mode is refused;
 *   - lth_opic: Corollary 3's projection equals the dense lth_ic_project to
 *     rounding, its residual is below its tolerance, an inconsistent guess's
 *     is above;
 *   - lth_opsolve: on a damped index-3 system with an exact solution the
 *     solution meets the error its global error estimate allows, the estimate
 *     is not below the true error by more than a factor of 10 over the floor,
 *     the dense lth_ivp_solve agrees within both estimates; without the
 *     estimate z_error is NULL; with project an inconsistent z0 is replaced by
 *     a consistent one and the change reported. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/ic.h"
#include "lth/ivp.h"
#include "lth/opic.h"
#include "lth/opsolve.h"
#include "lth/path.h"
#include "lth/problem.h"

/* x'' = -x - 0.5 x' + lam, y'' = -y - 0.5 y' - lam, 0 = x - y (index 3, s = 5):
 * x = y = exp(-t/4) (cos(w t) + sin(w t) / (4 w)), w = sqrt(15)/4, lam = 0. */
static const char damped[] = "blocks 2 2 1\n"
                             "interval 0 2\n"
                             "A(1,1) = [-0.5, 0; 0, -0.5]\n"
                             "A(1,2) = [-1, 0; 0, -1]\n"
                             "A(1,3) = [1; -1]\n"
                             "A(2,1) = eye\n"
                             "A(3,2) = [1, -1]\n";

static lth_problem *load(const char *text, size_t len) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, len, "t.lth", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

static void exact(double t, double *z) {
  double w = sqrt(15.0) / 4.0, e = exp(-t / 4.0);
  double x = e * (cos(w * t) + sin(w * t) / (4.0 * w));
  double dx = -x / 4.0 + e * (-w * sin(w * t) + cos(w * t) / 4.0);
  z[0] = z[1] = dx; /* z_1: velocities, z_2: positions, z_3: lam */
  z[2] = z[3] = x;
  z[4] = 0.0;
}

START_TEST(test_choose) {
  lth_problem *pb = load(damped, sizeof damped - 1);
  const lth_system *sys = lth_problem_system(pb);
  lth_error err;
  lth_error_clear(&err);
  lth_path_choice c;
  ck_assert_int_eq(lth_path_choose(sys, LTH_PATH_AUTO, 0, NULL, &c, &err), LTH_OK);
  ck_assert(!c.op && !c.sys && !c.obstacle);
  ck_assert_str_eq(c.why, "s = 5 < 500");
  ck_assert_str_eq(lth_path_name(&c), "dense");
  lth_path_choice_free(&c);
  ck_assert_int_eq(lth_path_choose(sys, LTH_PATH_DENSE, 0, "--x", &c, &err), LTH_OK);
  ck_assert(!c.op && !c.sys);
  ck_assert_int_eq(lth_path_choose(sys, LTH_PATH_OPERATOR, LTH_PATH_INTEGRATES, NULL, &c, &err),
                   LTH_OK);
  ck_assert(c.op && c.sys && c.nnz > 0 && c.density > 0 && c.density <= 1);
  ck_assert_str_eq(lth_path_name(&c), "operator");
  ck_assert_msg(strstr(c.why, "A stores") == c.why, "%s", c.why);
  ck_assert_int_eq(lth_opsys_size(c.sys), 5);
  lth_path_choice_free(&c);
  lth_path_choice_free(&c); /* twice: nothing left to free */
  lth_error_clear(&err);
  ck_assert_int_eq(lth_path_choose(sys, LTH_PATH_OPERATOR, 0, "--nearest", &c, &err), LTH_EINVAL);
  ck_assert(!c.op && !c.sys && c.obstacle && strcmp(c.obstacle, "--nearest") == 0);
  ck_assert_msg(strstr(err.message, "does not take --nearest"), "%s", err.message);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_path_choose(sys, (lth_path_mode)7, 0, NULL, &c, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_path_choose(NULL, LTH_PATH_AUTO, 0, NULL, &c, &err), LTH_EINVAL);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_choose_sampled) {
  const char *dir = getenv("LTH_DATA_DIR");
  ck_assert_msg(dir, "LTH_DATA_DIR must name data/");
  char path[4096];
  snprintf(path, sizeof path, "%s/sampled.lth", dir);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s", err.message);
  lth_path_choice c;
  ck_assert_int_eq(lth_path_choose(lth_problem_system(pb), LTH_PATH_OPERATOR, 0, NULL, &c, &err),
                   LTH_EINVAL);
  ck_assert_msg(c.obstacle && strstr(c.obstacle, "sampled data"), "%s", err.message);
  lth_path_choice_free(&c);
  lth_problem_free(pb);
}
END_TEST

static lth_opsys *opsys_of(const lth_system *sys, lth_path_choice *c) {
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_path_choose(sys, LTH_PATH_OPERATOR, 0, NULL, c, &err), LTH_OK);
  return c->sys;
}

START_TEST(test_opic_matches_dense) {
  lth_problem *pb = load(damped, sizeof damped - 1);
  const lth_system *sys = lth_problem_system(pb);
  lth_path_choice c;
  lth_opsys *os = opsys_of(sys, &c);
  lth_error err;
  lth_error_clear(&err);
  double guess[5] = {0.3, -0.2, 1.0, 0.7, 5.0}, za[5], zb[5], res;
  lth_opic *h = lth_opic_alloc(os, &err);
  ck_assert(h);
  lth_opic_set_cond_max(h, 1e12);
  ck_assert_int_eq(lth_opic_setup(h, 0.4, &err), LTH_OK);
  ck_assert(lth_opic_info(h)->cond_chain >= 1.0);
  ck_assert_int_eq(lth_opic_project(h, guess, za, &err), LTH_OK);
  lth_ic *ic = lth_ic_alloc(sys, &err);
  ck_assert(ic && lth_ic_setup(ic, 0.4, &err) == LTH_OK);
  ck_assert_int_eq(lth_ic_project(ic, guess, zb, &err), LTH_OK);
  for (int i = 0; i < 5; i++) { /* entries of size ~1, cond_chain ~1: rounding */
    ck_assert_msg(fabs(za[i] - zb[i]) <= 1e-12, "z0[%d]: %.17g vs %.17g", i, za[i], zb[i]);
  }
  ck_assert_int_eq(lth_opic_residual(h, za, &res, &err), LTH_OK);
  ck_assert(res <= lth_opic_tolerance(h, za));
  ck_assert_int_eq(lth_opic_residual(h, guess, &res, &err), LTH_OK);
  ck_assert(res > 0.1); /* x != y in the guess */
  lth_ic_free(ic);
  lth_opic_free(h);
  lth_path_choice_free(&c);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_opsolve_error_estimate) {
  if (!lth_opivp_available()) {
    return; /* lth_opivp_solve's refusal is tested in test_opivp */
  }
  lth_problem *pb = load(damped, sizeof damped - 1);
  const lth_system *sys = lth_problem_system(pb);
  lth_path_choice c;
  lth_opsys *os = opsys_of(sys, &c);
  lth_error err;
  lth_error_clear(&err);
  double times[3] = {0.5, 1.0, 2.0}, z0[5], zt[5];
  exact(0.0, z0);
  lth_opivp_opts o;
  lth_opivp_opts_init(&o);
  o.rtol = 1e-7;
  o.atol = 1e-9;
  lth_ivp_result *res = NULL;
  lth_opsolve_stats st;
  ck_assert_msg(lth_opsolve(os, 0.0, z0, times, 3, &o, 1, &res, &st, &err) == LTH_OK, "%s",
                err.message);
  ck_assert(res->z_error && fabs(res->error_rtol - 1e-9) <= 1e-24 &&
            fabs(res->error_atol - 1e-11) <= 1e-26);
  ck_assert(isnan(res->gamma) && isnan(res->output_gain) && st.jv_evals > 0);
  ck_assert_int_eq(res->method, LTH_IVP_MSBDF); /* (CVODE's BDF, the default) */
  double worst = 0.0, floor = o.atol + o.rtol;
  for (size_t k = 0; k < 3; k++) {
    exact(times[k], zt);
    for (int i = 0; i < 5; i++) {
      worst = fmax(worst, fabs(res->z[k * 5 + i] - zt[i]));
    }
  }
  ck_assert_msg(worst <= 3 * res->error_estimate + 10 * floor, "error %.3g, estimate %.3g", worst,
                res->error_estimate);
  ck_assert_msg(worst <= 10 * res->error_estimate + 10 * floor, "estimate %.3g too small",
                res->error_estimate);
  /* the dense path on the same problem: within both estimates */
  lth_ivp_opts io;
  lth_ivp_opts_init(&io);
  io.rtol = o.rtol;
  io.atol = o.atol;
  lth_ivp_result *dn = NULL;
  ck_assert(lth_ivp_solve(sys, 0.0, z0, times, 3, &io, &dn, &err) == LTH_OK);
  for (size_t k = 0; k < 15; k++) {
    ck_assert(fabs(dn->z[k] - res->z[k]) <=
              3 * (res->error_estimate + dn->error_estimate) + 10 * floor);
  }
  lth_ivp_result_free(dn);
  lth_ivp_result_free(res);
  /* no estimate; the defaults (opts NULL) */
  ck_assert(lth_opsolve(os, 0.0, z0, times, 3, NULL, 0, &res, NULL, &err) == LTH_OK);
  ck_assert(!res->z_error && isnan(res->error_estimate));
  lth_ivp_result_free(res);
  /* an inconsistent z0: refused, or with project replaced by its projection */
  double bad[5] = {0.1, 0.0, 1.0, 0.8, 0.0};
  ck_assert_int_eq(lth_opsolve(os, 0.0, bad, times, 3, &o, 1, &res, NULL, &err), LTH_ECONSIST);
  ck_assert(res == NULL);
  o.project = 1;
  ck_assert(lth_opsolve(os, 0.0, bad, times, 3, &o, 1, &res, NULL, &err) == LTH_OK);
  ck_assert(res->projected && res->z0_worst >= 0 && res->z0_change > 0.01);
  ck_assert(fabs(res->z0_used[2] - res->z0_used[3]) <= 1e-12); /* x = y */
  lth_ivp_result_free(res);
  lth_path_choice_free(&c);
  lth_problem_free(pb);
}
END_TEST

int main(void) {
  Suite *s = suite_create("oppath");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_choose);
  tcase_add_test(tc, test_choose_sampled);
  tcase_add_test(tc, test_opic_matches_dense);
  tcase_add_test(tc, test_opsolve_error_estimate);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
