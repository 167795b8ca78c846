/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The library leaves BLAS as its host set it (docs/library.md, "Threads"): no
 * lth call changes BLAS's thread count, not even for the time of the call --
 * grids, tables, IVPs (table and direct coefficients, the fundamental
 * solution), every BVP method -- and loading lth does not stop OpenBLAS's
 * thread pool.  The data callbacks, called during the computations, see the
 * host's count; with another BLAS than OpenBLAS's pthreads build the pool
 * check has nothing to look at. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <string.h>

#include "lth/bvp.h"
#include "lth/grid.h"
#include "lth/ivp.h"
#include "lth/table.h"
#include "meetsys.h"
#include "testutil.h"

/* OpenBLAS-internal (pthreads build): 1 while its thread pool is up. */
extern int blas_server_avail __attribute__((weak));
static int pool_at_start = -1; /* blas_server_avail in main, before any test */

static int host_threads(void) {
  openblas_set_num_threads(2);
  return openblas_get_num_threads(); /* 1 if this OpenBLAS has a single thread */
}

#define ASSERT_SEEN(M, n, what)                                                                    \
  ck_assert_msg((M).calls > 0 && (M).blas_min == (n) && (M).blas_max == (n),                       \
                "%s: BLAS threads seen %d..%d, the host set %d", what, (M).blas_min, (M).blas_max, \
                n);                                                                                \
  ck_assert_int_eq(openblas_get_num_threads(), n)

START_TEST(test_calls_leave_blas_threads) {
  int host = host_threads();
  int n[] = {2, 3, 1};
  ts_sys *S = ts_new(3, n, 0xb1a5, 0.2, 1);
  meet_ctx M;
  double times[40];
  for (int k = 0; k < 40; k++) times[k] = 2.0 * (k + 1) / 40.0;
  /* a grid on two threads */
  meet_init(&M, 0, 0, 0);
  lth_system *sys = meet_system(S, &M);
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = 2;
  lth_grid_result *gr = NULL;
  ck_assert_int_eq(lth_grid_store(sys, times, 40, &go, &gr, NULL), LTH_OK);
  lth_grid_result_free(gr);
  ASSERT_SEEN(M, host, "grid");
  lth_system_free(sys);
  /* a table on two threads */
  meet_init(&M, 0, 0, 0);
  sys = meet_system(S, &M);
  lth_table_opts to;
  lth_table_opts_init(&to);
  to.threads = 2;
  lth_table *tab = lth_table_alloc(sys, 0.0, 20.0, &to, NULL);
  ck_assert_int_eq(lth_table_build(tab, 20.0, NULL), LTH_OK);
  lth_table_free(tab);
  ASSERT_SEEN(M, host, "table");
  lth_system_free(sys);
  /* IVPs: table and direct coefficients, and the fundamental solution */
  double z0[64];
  ts_z_coef(S, 0.0, 0, z0);
  for (int c = 0; c < 2; c++) {
    meet_init(&M, 0, 0, 0);
    sys = meet_system(S, &M);
    lth_ivp_opts io;
    lth_ivp_opts_init(&io);
    io.coefficients = c ? LTH_COEF_DIRECT : LTH_COEF_TABLE;
    lth_ivp_result *res = NULL;
    lth_error err;
    ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 40, &io, &res, &err) == LTH_OK, "%s",
                  err.message);
    lth_ivp_result_free(res);
    ASSERT_SEEN(M, host, c ? "ivp, direct" : "ivp, table");
    lth_system_free(sys);
  }
  meet_init(&M, 0, 0, 0);
  sys = meet_system(S, &M);
  lth_fundamental *fm = NULL;
  ck_assert_int_eq(lth_ivp_fundamental(sys, 0.0, times, 40, NULL, &fm, NULL), LTH_OK);
  lth_fundamental_free(fm);
  ASSERT_SEEN(M, host, "fundamental solution");
  lth_system_free(sys);
  /* every BVP method: the manufactured solution's values at both ends */
  int s = 6, p = 0;
  for (int m = LTH_BVP_SHOOTING; m <= LTH_BVP_COLLOCATION; m++) {
    meet_init(&M, 0, 0, 0);
    sys = meet_system(S, &M);
    p = lth_system_manifold_dim(sys);
    double B0[64], B1[64], beta[8], za[64], zb[64];
    ts_z_coef(S, 0.0, 0, za);
    ts_z_coef(S, 2.0, 0, zb);
    tu_seed(0xb0b);
    for (int k = 0; k < p * s; k++) {
      B0[k] = tu_uniform(-1, 1);
      B1[k] = tu_uniform(-1, 1);
    }
    for (int i = 0; i < p; i++) {
      beta[i] = 0.0;
      for (int j = 0; j < s; j++) beta[i] += B0[i + j * p] * za[j] + B1[i + j * p] * zb[j];
    }
    lth_bvp_opts bo;
    lth_bvp_opts_init(&bo);
    bo.method = (lth_bvp_method)m;
    lth_bvp_result *res = NULL;
    lth_error err;
    ck_assert_msg(lth_bvp_solve(sys, 0.0, 2.0, p, B0, B1, beta, times, 40, &bo, &res, &err) ==
                      LTH_OK,
                  "%s: %s", lth_bvp_method_name(bo.method), err.message);
    lth_bvp_result_free(res);
    ASSERT_SEEN(M, host, lth_bvp_method_name(bo.method));
    lth_system_free(sys);
  }
  ts_free(S);
}
END_TEST

START_TEST(test_load_leaves_blas_pool) {
  if (&blas_server_avail && openblas_get_parallel() == 1) {
    ck_assert_msg(pool_at_start == 1, "OpenBLAS's thread pool was stopped before main");
  }
}
END_TEST

static Suite *host_blas_suite(void) {
  Suite *s = suite_create("host_blas");
  TCase *tc = tcase_create("blas");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_calls_leave_blas_threads);
  tcase_add_test(tc, test_load_leaves_blas_pool);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* before Check forks the tests: OpenBLAS stops its pool in a forked child */
  pool_at_start = &blas_server_avail ? blas_server_avail : -1;
  SRunner *sr = srunner_create(host_blas_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
