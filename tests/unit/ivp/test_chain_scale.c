/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The chain scale cond_interval is judged against (docs/conditioning.md 1.1):
 * computed once per solve and handed down (lth_ivp_opts.chain_scale), never
 * stored in the system.  A caller's data that change between calls (a sweep
 * over a callback's context) are seen afresh by every public allocation and
 * every solve; a scale the caller passes is used as given; two threads solving
 * one system at once share nothing they write. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ic/ic_scaled.h"
#include "lth/conditioning.h"
#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/source.h"
#include "lth/system.h"

/* index 2, blocks (2, 1): A(1,2) = [1; 0], A(2,1) = k [1 + t/10, 0.5], so
 * Pi = k (1 + t/10) and the chain norm is about k: cond_interval is O(1)
 * for any k, as long as the scale is that of the data in use. */
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
  double a11[] = {0, -1, 1, 0}, a12[] = {1, 0}, f1[] = {1, 0};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_system_set_A(sys, 1, 1, lth_source_const(2, 2, a11, 2, NULL), NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_callback(1, 2, a21_cb, k, NULL), NULL);
  lth_system_set_f(sys, 1, lth_source_const(2, 1, f1, 2, NULL), NULL);
  lth_system_set_interval(sys, 0.0, 10.0, NULL);
  return sys;
}

static lth_status solve(const lth_system *sys, double chain_scale, double *z, lth_error *err) {
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.chain_scale = chain_scale;
  o.project = 1;
  o.error_estimate = 0;
  double z0[3] = {0, 0, 0}, t1 = 2.0;
  lth_ivp_result *res = NULL;
  lth_status st = lth_ivp_solve(sys, 0.0, z0, &t1, 1, &o, &res, err);
  if (st == LTH_OK && z) memcpy(z, res->z, 3 * sizeof(double));
  lth_ivp_result_free(res);
  return st;
}

START_TEST(test_public_allocations_fresh) {
  double k = 1.0;
  lth_system *sys = make(&k);
  lth_decomp_ws *a = lth_decomp_ws_alloc(sys, 0, NULL);
  double s1 = lth_decomp_ws_scale(a);
  ck_assert(s1 > 0);
  k = 1000.0; /* the user's sweep changes the data */
  lth_decomp_ws *b = lth_decomp_ws_alloc(sys, 0, NULL);
  ck_assert_msg(fabs(lth_decomp_ws_scale(b) / s1 - 1000.0) < 1e-9, "scale %g after x1000 (was %g)",
                lth_decomp_ws_scale(b), s1);
  /* a scale the caller knows is taken as given */
  lth_decomp_ws *c = lth_decomp_ws_alloc_scaled(sys, 0, 7.0, NULL);
  ck_assert(lth_decomp_ws_scale(c) == 7.0);
  lth_decomp_ws_free(a);
  lth_decomp_ws_free(b);
  lth_decomp_ws_free(c);
  lth_system_free(sys);
}
END_TEST

/* One number for a whole solve: the interval's scale is what a workspace
 * computes for itself, the scan of the system's own interval, and 0 (judged
 * without a scale) where there is no interval. */
START_TEST(test_interval_scale_is_the_workspace_scale) {
  double k = 3.0;
  lth_system *sys = make(&k);
  double s = lth_pi_interval_scale(sys);
  ck_assert(s > 0);
  ck_assert(s == lth_pi_chain_scale(sys, 0.0, 10.0, 0));
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  ck_assert(lth_decomp_ws_scale(ws) == s);
  lth_decomp_ws_free(ws);
  /* the chain norm is about |k| (1 + t/10) <= 2k on [0, 10] */
  ck_assert_msg(s >= k && s <= 4 * k, "scale %g for k = %g", s, k);
  int n[] = {2, 1};
  lth_system *bare = lth_system_alloc(2, n, NULL); /* no interval, no blocks */
  ck_assert(lth_pi_interval_scale(bare) == 0.0);
  lth_system_free(bare);
  lth_system_free(sys);
}
END_TEST

/* The contract for a caller's sweep, stated: every solve judges the data it
 * is given.  (This also held under the former design that cached the scale in
 * the system and cleared it at each solve's start; the concurrency test below
 * is the one that guards against that design.) */
START_TEST(test_solves_see_new_data) {
  double k = 1e6, z[3];
  lth_system *sys = make(&k);
  ck_assert_int_eq(solve(sys, 0.0, z, NULL), LTH_OK);
  /* the data shrink by 1e12: a scale kept from the last solve would make
   * cond_interval ~ 1e12 * ||Pi^-1|| and refuse; each solve computes its own */
  k = 1e-6;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(solve(sys, 0.0, z, &err) == LTH_OK, "%s", err.message);
  /* the same stale scale passed on purpose is used, and refused with the estimate */
  lth_error_clear(&err);
  ck_assert_int_eq(solve(sys, 1e7, z, &err), LTH_ECOND);
  ck_assert(err.has_cond && err.cond > 1e12);
  lth_system_free(sys);
}
END_TEST

/* The initial value of a solve is judged against the solve's scale, not one
 * of its own (lib/ivp/ivp_solve.c hands it over: one scan of the interval, not
 * two).  With a stale scale 1e13 times the data's, the consistency check at
 * t0 refuses naming t0 and the estimate; with the computed one (or -1: the
 * ic computes it as lth_ic_alloc does) it succeeds, and the two ways give the
 * same bits. */
START_TEST(test_initial_value_takes_the_solve_scale) {
  double k = 1e-6, zp[3], zq[3], guess[2] = {0.3, -0.2};
  lth_system *sys = make(&k);
  lth_error err;
  lth_error_clear(&err);
  lth_ic *stale = lth_ic_alloc_scaled(sys, 1e7, &err);
  ck_assert(stale != NULL);
  ck_assert_int_eq(lth_ic_setup(stale, 0.0, &err), LTH_ECOND);
  ck_assert_msg(err.has_t && err.t == 0.0 && err.has_cond && err.cond > 1e12, "%s", err.message);
  lth_ic_free(stale);
  lth_ic *own = lth_ic_alloc_scaled(sys, -1.0, NULL), *plain = lth_ic_alloc(sys, NULL),
         *given = lth_ic_alloc_scaled(sys, lth_pi_interval_scale(sys), NULL);
  ck_assert(own && plain && given);
  lth_ic *all[] = {own, plain, given};
  for (int i = 0; i < 3; i++) ck_assert_int_eq(lth_ic_setup(all[i], 0.0, NULL), LTH_OK);
  ck_assert_int_eq(lth_ic_project(plain, guess, zp, NULL), LTH_OK);
  for (int i = 0; i < 3; i += 2) {
    ck_assert_int_eq(lth_ic_project(all[i], guess, zq, NULL), LTH_OK);
    ck_assert(memcmp(zp, zq, sizeof zp) == 0);
  }
  for (int i = 0; i < 3; i++) lth_ic_free(all[i]);
  lth_system_free(sys);
}
END_TEST

typedef struct job {
  const lth_system *sys;
  double z[3];
  lth_status st;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  j->st = solve(j->sys, 0.0, j->z, NULL);
  return NULL;
}

START_TEST(test_concurrent_solves_of_one_system) {
  double k = 2.0;
  lth_system *sys = make(&k);
  job one = {.sys = sys};
  run_job(&one);
  ck_assert_int_eq(one.st, LTH_OK);
  for (int round = 0; round < 8; round++) {
    job j[2] = {{.sys = sys}, {.sys = sys}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, run_job, &j[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
      ck_assert_int_eq(j[i].st, LTH_OK);
      /* the same arithmetic on the same data: the same bits */
      ck_assert(memcmp(j[i].z, one.z, sizeof one.z) == 0);
    }
  }
  lth_system_free(sys);
}
END_TEST

int main(void) {
  Suite *s = suite_create("chain_scale");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_public_allocations_fresh);
  tcase_add_test(tc, test_interval_scale_is_the_workspace_scale);
  tcase_add_test(tc, test_solves_see_new_data);
  tcase_add_test(tc, test_initial_value_takes_the_solve_scale);
  tcase_add_test(tc, test_concurrent_solves_of_one_system);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
