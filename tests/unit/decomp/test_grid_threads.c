/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A grid with two threads runs on two threads, with OpenMP compiled in or not
 * (lib/decomp/grid.c on the pool of lib/core/threads.h), and gives the serial
 * run's points bitwise; one thread never leaves the calling thread. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/grid.h"
#include "meetsys.h"
#include "testutil.h"

enum { N = 240 };

static lth_grid_result *run(lth_system *sys, const double *times, int threads) {
  lth_grid_opts o;
  lth_grid_opts_init(&o);
  o.threads = threads;
  o.out_order = 1;
  lth_grid_result *res = NULL;
  lth_error err;
  ck_assert_msg(lth_grid_store(sys, times, N, &o, &res, &err) == LTH_OK, "%s", err.message);
  return res;
}

START_TEST(test_grid_uses_its_threads) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 733, 0.2, 0);
  meet_ctx M;
  double times[N];
  for (int k = 0; k < N; k++) times[k] = 4.0 * k / (N - 1);
  /* one thread: every evaluation on the calling thread */
  meet_init(&M, 1, 1, 0);
  lth_system *sys = meet_system(S, &M);
  lth_grid_result *one = run(sys, times, 1);
  ck_assert_int_eq(M.others, 0);
  ck_assert_int_gt(M.calls, N - 1);
  lth_system_free(sys);
  /* two: the calling thread waits in its first evaluations until the other
   * thread has evaluated too */
  meet_init(&M, 1, 1, 3);
  sys = meet_system(S, &M);
  lth_grid_result *two = run(sys, times, 2);
  ck_assert_msg(M.others > 0, "no evaluation on a second thread (%ld in all)", M.calls);
  for (size_t k = 0; k < N; k++) {
    const lth_jet *a = &one->points[k]->G, *b = &two->points[k]->G;
    for (int m = 0; m <= 1; m++)
      for (int j = 0; j < a->cols; j++)
        ck_assert(memcmp(LTH_JET_COEF(a, m) + (size_t)j * a->ld,
                         LTH_JET_COEF(b, m) + (size_t)j * b->ld,
                         sizeof(double) * (size_t)a->rows) == 0);
    ck_assert(one->points[k]->cond_interval == two->points[k]->cond_interval);
  }
  lth_grid_result_free(one);
  lth_grid_result_free(two);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

static Suite *grid_threads_suite(void) {
  Suite *s = suite_create("grid_threads");
  TCase *tc = tcase_create("grid");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_grid_uses_its_threads);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(grid_threads_suite)
