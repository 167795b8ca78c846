/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The chain scale cache (lib/system/system_scale.h): the workspaces of one solve
 * share the scale, but a callback whose data change between calls (a sweep
 * over its context) is seen afresh by every public allocation and by every
 * solve, never through a stale cached number; setting the interval or a block
 * forgets the cache. */
#include <check.h>
#include <math.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/source.h"
#include "lth/system.h"
#include "decomp/decomp_shared.h"
#include "system/system_scale.h"

/* index 2, blocks (2, 1): A(1,2) = [1; 0], A(2,1) = k [1 + t/10, 0.5] */
static int a21_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  double k = *(const double *)ctx;
  for (int m = 0; m <= order; m++) {
    coef[m * stride] = k * (m == 0 ? 1.0 + t / 10 : (m == 1 ? 0.1 : 0.0));
    coef[m * stride + ld] = m == 0 ? 0.5 * k : 0.0;
  }
  return 0;
}

static lth_system *make(double *k) {
  int n[] = {2, 1};
  double a11[] = {0, -1, 1, 0}, a12[] = {1, 0};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_system_set_A(sys, 1, 1, lth_source_const(2, 2, a11, 2, NULL), NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_callback(1, 2, a21_cb, k, NULL), NULL);
  lth_system_set_interval(sys, 0.0, 10.0, NULL);
  return sys;
}

START_TEST(test_public_allocations_fresh) {
  double k = 1.0;
  lth_system *sys = make(&k);
  lth_decomp_ws *a = lth_decomp_ws_alloc(sys, 0, NULL);
  double s1 = lth_decomp_ws_scale(a);
  ck_assert(s1 > 0 && lth_system_scale_cached(sys) == s1);
  k = 1000.0; /* the user's sweep changes the data */
  lth_decomp_ws *b = lth_decomp_ws_alloc(sys, 0, NULL);
  ck_assert_msg(fabs(lth_decomp_ws_scale(b) / s1 - 1000.0) < 1e-9, "scale %g after x1000 (was %g)",
                lth_decomp_ws_scale(b), s1);
  /* a workspace of a solve takes the cached number (the same data) */
  lth_decomp_ws *c = lth_decomp_ws_alloc_shared(sys, 0, NULL);
  ck_assert(lth_decomp_ws_scale(c) == lth_decomp_ws_scale(b));
  /* a solve starts afresh: after it, the cache holds the scale of the data it saw */
  k = 1.0;
  double z0[3] = {0, 0, 0}, t1 = 1.0;
  lth_ivp_result *res = NULL;
  ck_assert_int_eq(lth_ivp_solve(sys, 0.0, z0, &t1, 1, NULL, &res, NULL), LTH_OK);
  lth_ivp_result_free(res);
  ck_assert_msg(fabs(lth_system_scale_cached(sys) / s1 - 1.0) < 1e-9, "cache %g after the solve",
                lth_system_scale_cached(sys));
  /* setting the interval forgets it */
  lth_system_set_interval(sys, 0.0, 5.0, NULL);
  ck_assert(lth_system_scale_cached(sys) < 0);
  lth_decomp_ws_free(a);
  lth_decomp_ws_free(b);
  lth_decomp_ws_free(c);
  lth_system_free(sys);
}
END_TEST

int main(void) {
  Suite *s = suite_create("scale_cache");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_public_allocations_fresh);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
