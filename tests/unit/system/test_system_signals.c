/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Signals given after workspaces were sized on the system
 * (lth_system_set_input, include/lth/system.h): a workspace sizes its scratch
 * once (lth_system_work_size), so a later signal that needs more scratch
 * would overflow it.  Such a signal is refused (LTH_EINVAL) and the old one
 * kept -- the decomposition still evaluates, with the old signal -- while a
 * signal that fits is taken.  Before any workspace, and after the last one
 * is freed, any signal is taken. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testsys.h"
#include "testutil.h"

static int zero_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx, (void)t, (void)ld;
  for (int k = 0; k <= order; k++) coef[(size_t)k * stride] = 0.0;
  return 0;
}

static int ones_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx, (void)t, (void)ld;
  for (int k = 0; k <= order; k++) coef[(size_t)k * stride] = k == 0 ? 1.0 : 0.0;
  return 0;
}

/* A 1 x 1 expression source whose evaluation needs scratch. */
static lth_source *expr_signal(const char *text) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(text, strlen(text), NULL, NULL, &e, NULL));
  lth_expr *entries[1] = {e};
  lth_source *src = lth_source_expr(1, 1, entries, NULL);
  ck_assert(src);
  return src;
}

START_TEST(test_signal_after_workspace) {
  static const int n[TS_MAXR] = {2, 1};
  ts_sys *S = ts_new(2, n, 3, 0.4, 0);
  lth_system *sys = ts_system(S);
  ck_assert(sys);
  TU_ASSERT_OK(lth_system_set_inputs(sys, 1, NULL));
  TU_ASSERT_OK(lth_system_set_B(sys, 1, lth_source_callback(2, 1, ones_cb, NULL, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_input(sys, 0, lth_source_callback(1, 1, zero_cb, NULL, NULL), NULL));
  /* a deep expression needs scratch: before any workspace it is taken, and back */
  const char *deep = "sin(t)*cos(2*t) + exp(0.1*t)*sin(3*t)^2 + t^3*cos(t)/(2 + sin(t))";
  lth_source *big = expr_signal(deep);
  ck_assert(lth_source_work_size(big, 5) > 0); /* (the callbacks need none) */
  TU_ASSERT_OK(lth_system_set_input(sys, 0, big, NULL));
  TU_ASSERT_OK(lth_system_set_input(sys, 0, lth_source_callback(1, 1, zero_cb, NULL, NULL), NULL));
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 2, NULL);
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  ck_assert(ws && pt);
  TU_ASSERT_OK(lth_decomp_at(ws, 0.4, pt, NULL));
  double g0 = LTH_JET_AT(&pt->g, 0, 0, 0);
  /* now refused, naming the order and the sizes; the old signal stays */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_system_set_input(sys, 0, expr_signal(deep), &err), LTH_EINVAL);
  ck_assert_msg(strstr(err.message, "before allocating workspaces"), "%s", err.message);
  TU_ASSERT_OK(lth_decomp_at(ws, 0.4, pt, NULL));
  ck_assert(LTH_JET_AT(&pt->g, 0, 0, 0) == g0);
  /* a signal that fits is taken: u = 1 changes g */
  TU_ASSERT_OK(lth_system_set_input(sys, 0, lth_source_callback(1, 1, ones_cb, NULL, NULL), NULL));
  TU_ASSERT_OK(lth_decomp_at(ws, 0.4, pt, NULL));
  ck_assert(LTH_JET_AT(&pt->g, 0, 0, 0) != g0);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  /* with no workspace left, any signal is taken again */
  TU_ASSERT_OK(lth_system_set_input(sys, 0, expr_signal(deep), NULL));
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* A workspace may be freed after its system (the record of its scratch
 * outlives the system: the sanitizer run checks the order). */
START_TEST(test_workspace_outlives_system) {
  static const int n[TS_MAXR] = {2, 1};
  ts_sys *S = ts_new(2, n, 4, 0.4, 0);
  lth_system *sys = ts_system(S);
  lth_decomp_ws *a = lth_decomp_ws_alloc(sys, 1, NULL), *b = lth_decomp_ws_alloc(sys, 0, NULL);
  ck_assert(a && b);
  lth_decomp_ws_free(b);
  lth_system_free(sys);
  lth_decomp_ws_free(a);
  ts_free(S);
}
END_TEST

static Suite *signals_suite(void) {
  Suite *s = suite_create("system_signals");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_signal_after_workspace);
  tcase_add_test(tc, test_workspace_outlives_system);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(signals_suite)
