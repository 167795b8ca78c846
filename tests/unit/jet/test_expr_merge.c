/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Several expressions as one program (lth_expr_merge, include/lth/expr.h):
 * (1) on entries that share pieces (sin(t), 1/(1+t), a power, constants),
 *     the merged program's roots give the Taylor coefficients (orders 0..5)
 *     and the enclosures of each entry bitwise as the entry evaluated alone,
 *     at several t and on several intervals, and it needs less workspace
 *     than the entries together (the pieces are shared);
 * (2) a NULL entry has no root, and a domain error in one entry is reported
 *     as that entry alone reports it (status and t). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/expr.h"
#include "testutil.h"

enum { NE = 5, KMAX = 5 };

static const char *texts[NE] = {"sin(t)/(1+t) + 2*t^3", "1/(1+t) - sin(t)*cos(t)",
                                "exp(-t)*sin(t) + 1/(1+t)", "sqrt(2+t)*sin(t) - 0.5",
                                "(1 + 0.1*sin(t))*(2 + t^3)"};

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(s, strlen(s), NULL, NULL, &e, NULL));
  return e;
}

START_TEST(test_bitwise_equal) {
  lth_expr *e[NE + 1];
  size_t alone = 0;
  for (int k = 0; k < NE; k++) {
    e[k] = parse(texts[k]);
    alone += lth_expr_work_size(e[k], KMAX);
  }
  e[NE] = NULL;
  int roots[NE + 1];
  lth_expr *m = lth_expr_merge(e, NE + 1, roots, NULL);
  ck_assert(m);
  ck_assert_int_eq(roots[NE], -1);
  size_t merged = lth_expr_work_size(m, KMAX);
  ck_assert_msg(merged < alone, "merged workspace %zu, entries %zu", merged, alone);
  double *w = malloc(merged * sizeof *w), *w1 = malloc(alone * sizeof *w1);
  lth_interval *iw = malloc(merged * sizeof *iw), *iw1 = malloc(alone * sizeof *iw1);
  for (int q = 0; q < 4; q++) {
    double t = -0.3 + 0.7 * q;
    TU_ASSERT_OK(lth_expr_taylor_all(m, t, KMAX, w, NULL));
    lth_expr_enclose_all(m, t, t + 0.25, KMAX, iw);
    for (int k = 0; k < NE; k++) {
      double c[KMAX + 1];
      lth_interval ic[KMAX + 1];
      TU_ASSERT_OK(lth_expr_taylor(e[k], t, KMAX, c, w1, NULL));
      TU_ASSERT_OK(lth_expr_enclose(e[k], t, t + 0.25, KMAX, ic, iw1, NULL));
      const double *y = lth_expr_series(m, w, roots[k], KMAX);
      const lth_interval *iy = lth_expr_iseries(m, iw, roots[k], KMAX);
      ck_assert_msg(memcmp(y, c, sizeof c) == 0, "entry %d at t = %g differs", k, t);
      ck_assert_msg(memcmp(iy, ic, sizeof ic) == 0, "entry %d's enclosure on [%g, %g] differs", k,
                    t, t + 0.25);
    }
  }
  free(w);
  free(w1);
  free(iw);
  free(iw1);
  lth_expr_free(m);
  for (int k = 0; k < NE; k++) lth_expr_free(e[k]);
}
END_TEST

START_TEST(test_domain_error) {
  lth_expr *e[2] = {parse("1/(1+t)"), parse("log(t)")};
  int roots[2];
  lth_expr *m = lth_expr_merge(e, 2, roots, NULL);
  ck_assert(m);
  double w[256], c[2];
  lth_error err, err1;
  lth_error_clear(&err);
  lth_error_clear(&err1);
  ck_assert(lth_expr_work_size(m, 1) <= 256 && lth_expr_work_size(e[1], 1) <= 256);
  ck_assert_int_eq(lth_expr_taylor_all(m, -0.5, 1, w, &err), LTH_EDOMAIN);
  ck_assert_int_eq(lth_expr_taylor(e[1], -0.5, 1, c, w, &err1), LTH_EDOMAIN);
  ck_assert(err.has_t && err.t == -0.5);
  ck_assert_str_eq(err.message, err1.message);
  lth_expr_free(m);
  lth_expr_free(e[0]);
  lth_expr_free(e[1]);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("expr_merge");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_bitwise_equal);
  tcase_add_test(tc, test_domain_error);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
