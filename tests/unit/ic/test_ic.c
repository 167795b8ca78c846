/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Consistent initial values (Clark Corollary 3, section 4.1) on manufactured
 * problems: z*(t0) is consistent, projections land on the manifold, the
 * consistency conditions characterise it, prescriptions are honoured or
 * rejected with the conflicting component named. */
#include <cblas.h>
#include <check.h>
#include <math.h>
#include <string.h>

#include "lth/ic.h"
#include "testsys.h"
#include "testutil.h"

static double dist(int n, const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
  return sqrt(s);
}

static double norm(int n, const double *a) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

typedef struct {
  ts_sys *S;
  lth_system *sys;
  lth_ic *ic;
  double t0;
  double z[64];
} fixture;

static void setup_fixture(fixture *fx, int r, const int *n, uint64_t seed, double t0) {
  fx->S = ts_new(r, n, seed, 0.2, 1);
  fx->sys = ts_system(fx->S);
  fx->ic = lth_ic_alloc(fx->sys, NULL);
  fx->t0 = t0;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ic_setup(fx->ic, t0, &err) == LTH_OK, "%s", err.message);
  ts_z_coef(fx->S, t0, 0, fx->z);
}

static void teardown_fixture(fixture *fx) {
  lth_ic_free(fx->ic);
  lth_system_free(fx->sys);
  ts_free(fx->S);
}

/* M0 z*(t0) = b0 to rounding; M0 has orthonormal rows with M0 G = 0. */
START_TEST(test_manufactured_value_is_consistent) {
  int ns[][6] = {{3, 1}, {2, 3, 1}, {3, 3, 2, 2}, {2, 2, 2, 2, 1}, {3, 2, 2, 3, 2, 1}};
  for (int r = 2; r <= 6; r++) {
    fixture fx;
    setup_fixture(&fx, r, ns[r - 2], 600 + r, 0.4173);
    int s = fx.S->s;
    double res = lth_ic_residual(fx.ic, fx.z);
    ck_assert_msg(res < 1e-13 * fmax(1.0, norm(s, fx.z)), "index %d: residual %.3e", r, res);
    const double *M0, *b0;
    int np = lth_ic_conditions(fx.ic, &M0, &b0);
    ck_assert_int_eq(np, s - lth_system_manifold_dim(fx.sys));
    const lth_point *pt = lth_ic_point(fx.ic);
    for (int i = 0; i < np; i++) {
      for (int k = 0; k < np; k++) {
        double d = cblas_ddot(s, M0 + i, np, M0 + k, np);
        ck_assert(fabs(d - (i == k)) < 1e-14);
      }
      for (int j = 0; j < pt->m; j++) {
        double d = cblas_ddot(s, M0 + i, np, &LTH_JET_AT(&pt->G, 0, 0, j), 1);
        ck_assert(fabs(d) < 1e-13);
      }
    }
    /* a step of 1e-3 along the first condition leaves the manifold by exactly 1e-3 */
    for (int j = 0; j < s; j++) fx.z[j] += 1e-3 * M0[(size_t)j * np];
    ck_assert(fabs(lth_ic_residual(fx.ic, fx.z) - 1e-3) < 1e-14);
    teardown_fixture(&fx);
  }
}
END_TEST

/* Corollary 3: the oblique projection keeps (I - P) of the v-part and
 * recomputes the algebraic part; perturbing only w and u changes nothing. */
START_TEST(test_oblique_projection) {
  int n[] = {3, 3, 2, 1};
  fixture fx;
  setup_fixture(&fx, 4, n, 611, 1.1);
  int s = fx.S->s, m = fx.S->m;
  const lth_point *pt = lth_ic_point(fx.ic);
  double guess[64], z0[64], Pd[64], d[64];
  tu_seed(99);
  for (int i = 0; i < m; i++) d[i] = tu_uniform(-1, 1);
  /* perturbation P d lies in the algebraic space: it must be removed */
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, pt->P.c, pt->P.ld, d, 1, 0.0, Pd, 1);
  for (int i = 0; i < s; i++) guess[i] = fx.z[i] + (i < m ? Pd[i] : 0.77);
  ck_assert_int_eq(lth_ic_project(fx.ic, guess, z0, NULL), LTH_OK);
  ck_assert_msg(dist(s, z0, fx.z) < 1e-13 * norm(s, fx.z), "projection error %.3e",
                dist(s, z0, fx.z));
  /* a state-space perturbation is kept: the result is consistent but different */
  for (int i = 0; i < m; i++) guess[i] = fx.z[i] + d[i] - Pd[i];
  ck_assert_int_eq(lth_ic_project(fx.ic, guess, z0, NULL), LTH_OK);
  ck_assert(lth_ic_residual(fx.ic, z0) < lth_ic_tolerance(fx.ic, z0));
  ck_assert(dist(s, z0, fx.z) > 1e-2);
  teardown_fixture(&fx);
}
END_TEST

/* --nearest: consistent, and the correction is orthogonal to range(G). */
START_TEST(test_nearest) {
  int n[] = {2, 3, 1};
  fixture fx;
  setup_fixture(&fx, 3, n, 612, 0.2);
  int s = fx.S->s, p = lth_system_manifold_dim(fx.sys);
  double guess[64], z0[64], zo[64];
  tu_seed(5);
  for (int i = 0; i < s; i++) guess[i] = fx.z[i] + tu_uniform(-0.5, 0.5);
  ck_assert_int_eq(lth_ic_nearest(fx.ic, guess, z0, NULL), LTH_OK);
  ck_assert(lth_ic_residual(fx.ic, z0) < lth_ic_tolerance(fx.ic, z0));
  const double *U = lth_ic_range_basis(fx.ic);
  double diff[64];
  for (int i = 0; i < s; i++) diff[i] = guess[i] - z0[i];
  for (int j = 0; j < p; j++) ck_assert(fabs(cblas_ddot(s, U + (size_t)j * s, 1, diff, 1)) < 1e-14);
  /* nearer than the oblique projection, and than z* itself */
  ck_assert_int_eq(lth_ic_project(fx.ic, guess, zo, NULL), LTH_OK);
  ck_assert(dist(s, z0, guess) <= dist(s, zo, guess) + 1e-15);
  ck_assert(dist(s, z0, guess) <= dist(s, fx.z, guess) + 1e-15);
  teardown_fixture(&fx);
}
END_TEST

/* --fix: p independent prescriptions from z* determine z*; a wrong algebraic
 * value and too many prescriptions are rejected naming the component. */
START_TEST(test_fix_components) {
  int n[] = {3, 3, 1}; /* p = 4 */
  fixture fx;
  setup_fixture(&fx, 3, n, 613, 0.9);
  int s = fx.S->s;
  double guess[64], z0[64], val[8];
  for (int i = 0; i < s; i++) guess[i] = 0.0;
  /* components 0, 1 (z_1) and 3, 4 (z_2): generically p independent ones */
  int idx[] = {0, 1, 3, 4};
  for (int k = 0; k < 4; k++) val[k] = fx.z[idx[k]];
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ic_fix(fx.ic, guess, 4, idx, val, z0, &err) == LTH_OK, "%s", err.message);
  ck_assert_msg(dist(s, z0, fx.z) < 1e-12 * norm(s, fx.z), "fix error %.3e", dist(s, z0, fx.z));
  /* two prescriptions: they hold exactly, the result is consistent */
  ck_assert_int_eq(lth_ic_fix(fx.ic, guess, 2, idx, val, z0, NULL), LTH_OK);
  ck_assert(z0[0] == val[0] && z0[1] == val[1]);
  ck_assert(lth_ic_residual(fx.ic, z0) < lth_ic_tolerance(fx.ic, z0));
  /* u is algebraic given the state: prescribing a wrong u on top of 4 state values fails */
  int idx5[] = {0, 1, 3, 4, s - 1};
  double val5[] = {val[0], val[1], val[2], val[3], fx.z[s - 1] + 0.5};
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ic_fix(fx.ic, guess, 5, idx5, val5, z0, &err), LTH_ECONSIST);
  ck_assert_msg(strstr(err.message, "u[1]") || strstr(err.message, "p = 4"), "%s", err.message);
  /* ... while the right u is accepted (dependent but consistent) */
  val5[4] = fx.z[s - 1];
  lth_error_clear(&err);
  ck_assert_msg(lth_ic_fix(fx.ic, guess, 5, idx5, val5, z0, &err) == LTH_OK, "%s", err.message);
  /* out-of-range component */
  int bad[] = {s};
  ck_assert_int_eq(lth_ic_fix(fx.ic, guess, 1, bad, val, z0, NULL), LTH_EINVAL);
  teardown_fixture(&fx);
}
END_TEST

static Suite *ic_suite(void) {
  Suite *s = suite_create("ic");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_manufactured_value_is_consistent);
  tcase_add_test(tc, test_oblique_projection);
  tcase_add_test(tc, test_nearest);
  tcase_add_test(tc, test_fix_components);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(ic_suite)
