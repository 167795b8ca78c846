/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A coefficient table built with two threads runs on two threads (the job
 * board of a level's nodes and the stretches, lib/table/, on the pool of
 * lib/core/threads.h), with OpenMP compiled in or not, and is bitwise the
 * table one thread builds; with one thread nothing leaves the calling thread. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <string.h>

#include "lth/table.h"
#include "meetsys.h"
#include "testutil.h"

#define T1 60.0

static lth_table *build(lth_system *sys, int threads) {
  lth_table_opts o;
  lth_table_opts_init(&o);
  o.threads = threads;
  o.tol = 1e-10;
  lth_table *tab = lth_table_alloc(sys, 0.0, T1, &o, NULL);
  ck_assert_ptr_nonnull(tab);
  lth_error err;
  ck_assert_msg(lth_table_build(tab, T1, &err) == LTH_OK, "%s", err.message);
  return tab;
}

START_TEST(test_table_uses_its_threads) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 0x7ab1e, 0.2, 0);
  meet_ctx M;
  meet_init(&M, 1, 1, 0);
  lth_system *sys = meet_system(S, &M);
  lth_table *one = build(sys, 1);
  ck_assert_int_eq(M.others, 0);
  long calls = M.calls;
  lth_system_free(sys);
  /* two threads: from a quarter of the evaluations on, the calling thread
   * waits now and then until another thread evaluates too (the board starts
   * once the build has cost 2 ms, the stretches after 8 panels) */
  meet_init(&M, calls / 4, calls / 16 + 1, 4);
  sys = meet_system(S, &M);
  lth_table *two = build(sys, 2);
  ck_assert_msg(M.others > 0, "no evaluation on a second thread (%ld in all)", M.calls);
  lth_table_info a, b;
  lth_table_info_get(one, &a);
  lth_table_info_get(two, &b);
  ck_assert_uint_ge(a.panels, 24); /* long enough to be split */
  ck_assert_uint_eq(a.panels, b.panels);
  ck_assert_uint_eq(a.decomps, b.decomps);
  lth_point *pa = lth_point_alloc(sys, 0, NULL), *pb = lth_point_alloc(sys, 0, NULL);
  for (int k = 0; k <= 500; k++) {
    double t = T1 * k / 500.0;
    ck_assert_int_eq(lth_table_eval(one, t, 0, 1, pa, NULL, NULL), LTH_OK);
    ck_assert_int_eq(lth_table_eval(two, t, 0, 1, pb, NULL, NULL), LTH_OK);
    const lth_jet *x[3] = {&pa->Ahat, &pa->g, &pa->G}, *y[3] = {&pb->Ahat, &pb->g, &pb->G};
    for (int f = 0; f < 3; f++)
      for (int j = 0; j < x[f]->cols; j++)
        ck_assert(memcmp(LTH_JET_COEF(x[f], 0) + (size_t)j * x[f]->ld,
                         LTH_JET_COEF(y[f], 0) + (size_t)j * y[f]->ld,
                         sizeof(double) * (size_t)x[f]->rows) == 0);
  }
  lth_point_free(pa);
  lth_point_free(pb);
  lth_table_free(one);
  lth_table_free(two);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

static Suite *table_threads_suite(void) {
  Suite *s = suite_create("table_threads");
  TCase *tc = tcase_create("table");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_table_uses_its_threads);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(table_threads_suite)
