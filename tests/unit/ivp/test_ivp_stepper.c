/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The step-by-step integrator of the reduced ODE (include/lth/ivp.h, "the
 * integrator underneath"), used as a caller with a loop of its own would:
 * start from the state part v0 = (I - P(t0)) z*(t0) of a manufactured exact
 * solution, advance, rebuild z = q + v + Bhat v from lth_ivp_point, reset the
 * state and go on; the statistics and the damping rate say what was done.
 * Also the conditioning helpers of include/lth/conditioning.h and decomp.h that
 * a caller uses to judge a point: lth_pi_chain_scale, lth_cond_acceptable,
 * lth_amplification_limit, lth_point_rank_scale. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/conditioning.h"
#include "testsys.h"

static double z_error(const ts_sys *S, const lth_point *pt, const double *v, double t) {
  double z[64], zs[64], e = 0.0;
  int m = pt->m, s = pt->s;
  memcpy(z, pt->q.c, (size_t)s * sizeof(double));
  for (int i = 0; i < m; i++) z[i] += v[i];
  for (int j = 0; j < m; j++)
    for (int i = 0; i < s; i++) z[i] += LTH_JET_AT(&pt->Bhat, 0, i, j) * v[j];
  ts_z_coef(S, t, 0, zs);
  for (int i = 0; i < s; i++) e = fmax(e, fabs(z[i] - zs[i]) / fmax(1.0, fabs(zs[i])));
  return e;
}

START_TEST(test_step_by_step_manufactured) {
  int n[] = {3, 2, 2, 1};
  ts_sys *S = ts_new(4, n, 4711, 0.2, 1);
  lth_system *sys = ts_system(S);
  ck_assert_int_eq(lth_ivp_coefficients_from_name("table"), LTH_COEF_TABLE);
  ck_assert_int_eq(lth_ivp_coefficients_from_name("direct"), LTH_COEF_DIRECT);
  ck_assert_int_eq(lth_ivp_coefficients_from_name("tabel"), -1);
  for (int coef = LTH_COEF_DIRECT; coef <= LTH_COEF_TABLE; coef++) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.coefficients = (lth_ivp_coefficients)coef;
    lth_error err;
    lth_error_clear(&err);
    lth_ivp *iv = lth_ivp_alloc(sys, 1, 1, &o, 0.0, 4.0, &err);
    ck_assert_msg(iv != NULL, "%s", err.message);
    const lth_point *pt;
    ck_assert_int_eq(lth_ivp_point(iv, 0.0, &pt, NULL), LTH_OK);
    int m = pt->m;
    double z0[64], v[64];
    ts_z_coef(S, 0.0, 0, z0);
    /* v0 = (I - P) z0(1:m) */
    for (int i = 0; i < m; i++) {
      v[i] = z0[i];
      for (int j = 0; j < m; j++) v[i] -= LTH_JET_AT(&pt->P, 0, i, j) * z0[j];
    }
    ck_assert_int_eq(lth_ivp_start(iv, 0.0, v, &err), LTH_OK);
    ck_assert(lth_ivp_gamma(iv) >= 0.0);
    size_t steps0 = 0, rhs0 = 0, dec0 = 0, steps, rhs, dec;
    double sd;
    for (int k = 1; k <= 8; k++) {
      double t = 0.5 * k;
      ck_assert_msg(lth_ivp_advance(iv, t, v, &err) == LTH_OK, "%s", err.message);
      ck_assert_int_eq(lth_ivp_point(iv, t, &pt, NULL), LTH_OK);
      double e = z_error(S, pt, v, t);
      ck_assert_msg(e < 1e-8, "coefficients %d, t = %g: error %.3e at rtol 1e-10", coef, t, e);
      /* a caller's projection back onto the state space, as reproject does */
      double w[64];
      for (int i = 0; i < m; i++) {
        w[i] = v[i];
        for (int j = 0; j < m; j++) w[i] -= LTH_JET_AT(&pt->P, 0, i, j) * v[j];
      }
      ck_assert_int_eq(lth_ivp_reset(iv, w, NULL), LTH_OK);
      memcpy(v, w, (size_t)m * sizeof(double));
      lth_ivp_stats(iv, &steps, &rhs, &dec, &sd);
      ck_assert(steps > steps0 && rhs > rhs0 && dec >= dec0 && sd >= 0.0);
      steps0 = steps, rhs0 = rhs, dec0 = dec;
    }
    /* time runs forwards only */
    ck_assert_int_eq(lth_ivp_advance(iv, 1.0, v, NULL), LTH_EINVAL);
    lth_ivp_free(iv);
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

START_TEST(test_conditioning_helpers) {
  /* the limit of the amplification and the a priori acceptance rule */
  ck_assert_double_eq(lth_amplification_limit(0.0),
                      fmax(LTH_DEFAULT_COND_MAX, LTH_AMPLIFICATION_MAX));
  ck_assert_double_eq(lth_amplification_limit(1e20), 1e20);
  for (int r = 2; r <= 6; r++) {
    double lim = lth_amplification_limit(0.0), c = pow(lim, 1.0 / (r - 1));
    c = fmin(c, LTH_DEFAULT_COND_MAX);
    double cm = LTH_DEFAULT_COND_MAX;
    ck_assert_msg(lth_cond_acceptable(0.99 * c, r, cm), "r = %d, cond %g", r, 0.99 * c);
    ck_assert_msg(!lth_cond_acceptable(1.01 * c, r, cm), "r = %d, cond %g", r, 1.01 * c);
    ck_assert(lth_cond_acceptable(1.01 * c, r, 1e300)); /* raised knowingly */
    ck_assert_double_eq_tol(lth_cond_amplification(c, r), pow(c, r - 1), 1e-12 * pow(c, r - 1));
  }
  /* the chain scale bounds the chain norm at every decomposed point, and the
   * rank scale bounds ||G|| (Frobenius) */
  int n[] = {2, 3, 2, 1};
  ts_sys *S = ts_new(4, n, 99, 0.3, 1);
  lth_system *sys = ts_system(S);
  double scale = lth_pi_chain_scale(sys, 0.0, 3.0, 0);
  ck_assert(scale > 0.0);
  lth_decomp_ws *ws = lth_decomp_ws_alloc_scaled(sys, 0, scale, NULL);
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  for (int k = 0; k <= 30; k++) {
    ck_assert_int_eq(lth_decomp_at(ws, 0.1 * k, pt, NULL), LTH_OK);
    /* cond_interval = ||Pi^-1|| max(chain_norm(t), scale) >= cond_pi-like ||Pi^-1|| scale */
    ck_assert(pt->cond_interval >= pt->pi_inv_norm * scale * (1 - 1e-12));
    double g = 0.0;
    for (int j = 0; j < pt->m; j++)
      for (int i = 0; i < pt->s; i++) g += pow(LTH_JET_AT(&pt->G, 0, i, j), 2);
    ck_assert(sqrt(g) <= lth_point_rank_scale(pt) * (1 + 1e-12));
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ivp_stepper");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_step_by_step_manufactured);
  tcase_add_test(tc, test_conditioning_helpers);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
