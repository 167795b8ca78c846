/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 10, item 1: a Pi that is singular or nearly so is refused, naming t
 * and cond_interval -- at a point where cond_pi and cond_chain see nothing
 * (a chain block that shrinks together with Pi), on a grid, and between the
 * times an integrator chooses (sign change of det Pi, double root, the
 * index-4 case that used to crawl for minutes). */
#include "wellposed_util.h"

#include <math.h>

#include "lth/decomp.h"
#include "lth/grid.h"
#include "lth/ivp.h"
#include "lth/conditioning.h"
#include "system/pi_text.h"
#include "testutil.h"

/* index 3, Pi = A(3,2) A(2,1) A(1,3) = cos(pi t): 6e-17 at t = 0.5 */
static const char *cos3 = "blocks 2 2 1\ninterval 0 1\n"
                          "A(1,3) = [1; 0]\nA(2,1) = eye\nA(3,2) = [cos(pi*t), 0]\nf(3) = -1\n";

START_TEST(cos_point_measure) {
  lth_problem *pb = wp_parse(cos3);
  const lth_system *sys = wp_system(pb);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  ck_assert_ptr_nonnull(pt);
  ck_assert_double_eq_tol(lth_decomp_ws_scale(ws), 1.0, 1e-15);
  /* t = 0.2: a 1 x 1 Pi has cond 1, the chain condition too; cond_interval
   * = ||Pi^-1|| max chain norm = 1 / cos(0.2 pi) */
  TU_ASSERT_OK(lth_decomp_at(ws, 0.2, pt, NULL));
  ck_assert_double_eq_tol(pt->cond_pi, 1.0, 1e-14);
  ck_assert_double_eq_tol(pt->cond_chain, 1.0, 1e-14);
  ck_assert_double_eq_tol(pt->chain_norm, cos(0.2 * M_PI), 1e-15);
  ck_assert_double_eq_tol(pt->pi_inv_norm, 1.0 / cos(0.2 * M_PI), 1e-14);
  ck_assert_double_eq_tol(pt->cond_interval, 1.0 / cos(0.2 * M_PI), 1e-14);
  ck_assert_int_eq(pt->pi_sign, 1);
  /* t = 0.5: refused, naming t and the measure (it used to print u = 8.6e49) */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_decomp_at(ws, 0.5, pt, &err), LTH_ECOND);
  ck_assert(err.has_t && err.t == 0.5);
  ck_assert(err.has_cond && err.cond > 1e15);
  ck_assert_ptr_nonnull(strstr(err.message, "cond_interval"));
  /* Pi's product written right for index 3: no "..." between A(3,2) and A(2,1) */
  ck_assert_ptr_nonnull(strstr(err.message, "Pi = A(3,2) A(2,1) A(1,3) is nearly singular"));
  ck_assert_ptr_nonnull(strstr(err.message, "max ||A(3,2)|| ||A(2,1)|| ||A(1,3)|| = "));
  /* the same workspace without the interval's scale judges only locally */
  lth_decomp_ws_set_scale(ws, 0.0);
  TU_ASSERT_OK(lth_decomp_at(ws, 0.5, pt, NULL));
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_problem_free(pb);
}
END_TEST

/* Pi's product in messages, for every index: written out up to r = 4 (it
 * used to read "A(2,1)...A(2,1) A(1,2)" for r = 2), "..." in the middle
 * beyond. */
START_TEST(pi_product_text) {
  static const char *const want[] = {"A(2,1) A(1,2)", "A(3,2) A(2,1) A(1,3)",
                                     "A(4,3) A(3,2) A(2,1) A(1,4)", "A(5,4) ... A(2,1) A(1,5)",
                                     "A(6,5) ... A(2,1) A(1,6)"};
  char buf[LTH_PI_TEXT_MAX];
  for (int r = 2; r <= 6; r++) {
    ck_assert_str_eq(lth_pi_text(r, 0, buf, sizeof buf), want[r - 2]);
  }
  ck_assert_str_eq(lth_pi_text(2, 1, buf, sizeof buf), "||A(2,1)|| ||A(1,2)||");
  ck_assert_str_eq(lth_pi_text(64, 1, buf, sizeof buf), "||A(64,63)|| ... ||A(2,1)|| ||A(1,64)||");
  /* and in a refusal of index 2 */
  lth_problem *pb = wp_parse("blocks 1 1\ninterval 0 1\nA(1,2) = t - 0.5\nA(2,1) = 1\n");
  const lth_system *sys = wp_system(pb);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_decomp_at(ws, 0.5, pt, &err), LTH_ESING);
  ck_assert_ptr_nonnull(strstr(err.message, "Pi = A(2,1) A(1,2) is singular"));
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_problem_free(pb);
}
END_TEST

/* A grid judges the measure against its own chain norms: the system has no
 * interval here (as from a caller that never set one). */
START_TEST(cos_grid_refused) {
  lth_problem *pb = wp_parse(cos3);
  const lth_system *sys = lth_problem_system(pb);
  double times[101];
  for (int k = 0; k <= 100; k++) times[k] = 0.01 * k;
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  for (int threads = 1; threads <= 2; threads++) {
    go.threads = threads;
    lth_grid_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_int_eq(lth_grid_store(sys, times, 101, &go, &res, &err), LTH_ECOND);
    ck_assert(err.has_t && err.t == 0.5);
    ck_assert(err.has_cond && err.cond > 1e15);
  }
  lth_problem_free(pb);
}
END_TEST

/* The near-singular point comes first, the large chain data later: only the
 * judgement after the last point can see it.  A(3,2) = t^2 + 1e-14 on [0, 1]. */
START_TEST(grid_judged_after_last_point) {
  lth_problem *pb = wp_parse("blocks 1 1 1\ninterval 0 1\nA(1,3) = 1\nA(2,1) = 1\n"
                             "A(3,2) = t^2 + 1e-14\nf(3) = -1\n");
  const lth_system *sys = lth_problem_system(pb);
  double times[11];
  for (int k = 0; k <= 10; k++) times[k] = 0.1 * k;
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = 1;
  lth_grid_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_grid_store(sys, times, 11, &go, &res, &err), LTH_ECOND);
  ck_assert(err.has_t && err.t == 0.0);
  ck_assert_double_eq_tol(err.cond, 1e14 * 1.0, 1e2);
  /* with cond_max above the measure and its amplification (index 3:
   * cond_interval^2 = 1e28), the grid passes and reports cond_interval */
  go.cond_max = 1e29;
  TU_ASSERT_OK(lth_grid_store(sys, times, 11, &go, &res, NULL));
  ck_assert_double_eq_tol(res->points[10]->cond_interval, 1.0, 1e-12);
  lth_grid_result_free(res);
  lth_problem_free(pb);
}
END_TEST

/* index 4; the last chain row vanishes between the grid points 0.50, 0.51 */
static const char *idx4 = "blocks 2 2 2 1\ninterval 0 1\nA(1,1) = [0, 1; -1, 0]\n"
                          "A(1,4) = [1; 0]\nA(2,1) = eye\nA(3,2) = eye\n"
                          "A(4,3) = [%s, 0]\nf(4) = -1\nf(1) = [sin(t); 0]\n";

static lth_status solve_idx4(const char *a43, int scan, double *t_named, double *seconds) {
  char text[512];
  snprintf(text, sizeof text, idx4, a43);
  lth_problem *pb = wp_parse(text);
  const lth_system *sys = lth_problem_system(pb);
  double times[101], z0[7] = {0};
  for (int k = 0; k <= 100; k++) times[k] = 0.01 * k;
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.project = 1;
  o.pi_scan = scan;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  double t_start = wp_now();
  lth_status st = lth_ivp_solve(sys, 0.0, z0, times, 101, &o, &res, &err);
  *seconds = wp_now() - t_start;
  *t_named = err.has_t ? err.t : NAN;
  lth_ivp_result_free(res);
  lth_problem_free(pb);
  return st;
}

/* Refused (exactly singular: LTH_ESING, or nearly: LTH_ECOND) naming t within tol of t*. */
static void refused_near(lth_status st, double t, double ts, double tol, double sec) {
  ck_assert_msg(st == LTH_ESING || st == LTH_ECOND, "status %d", (int)st);
  ck_assert_double_eq_tol(t, ts, tol);
  ck_assert_double_lt(sec, 1.0);
}

/* A caller that integrates several times scans once (lth_ivp_prescan) and
 * passes pi_scan = -1: the scan names the root of det Pi between grid points,
 * and on good data returns the chain scale it saw. */
START_TEST(prescan_once_for_several_solves) {
  char text[512];
  snprintf(text, sizeof text, idx4, "t - 0.503");
  lth_problem *bad = wp_parse(text);
  double scale = -1.0;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ivp_prescan(lth_problem_system(bad), 0.0, 1.0, NULL, &scale, &err),
                   LTH_ESING);
  ck_assert(err.has_t);
  ck_assert_double_eq_tol(err.t, 0.503, 1e-12);
  lth_problem_free(bad);
  snprintf(text, sizeof text, idx4, "2 + t");
  lth_problem *good = wp_parse(text);
  const lth_system *sys = lth_problem_system(good);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  ck_assert_int_eq(lth_ivp_prescan(sys, 0.0, 1.0, &o, &scale, NULL), LTH_OK);
  /* the chain norms ||A43|| ||A32|| ||A21|| ||A14|| reach 3 at t = 1 */
  ck_assert_double_eq_tol(scale, 3.0, 1e-12);
  o.pi_scan = -1;
  o.project = 1;
  double z0[7] = {0}, times[] = {0.5, 1.0};
  for (int k = 0; k < 2; k++) {
    lth_ivp_result *res = NULL;
    ck_assert_int_eq(lth_ivp_solve(sys, 0.0, z0, times + k, 1, &o, &res, NULL), LTH_OK);
    lth_ivp_result_free(res);
  }
  lth_problem_free(good);
}
END_TEST

START_TEST(ivp_sign_change_refused_at_once) {
  double t, sec;
  /* the scan before the integration */
  ck_assert_int_eq(solve_idx4("t - 0.503", 0, &t, &sec), LTH_ESING);
  ck_assert_double_eq_tol(t, 0.503, 1e-12);
  ck_assert_double_lt(sec, 1.0);
  /* no scan: the guard on the integrator's own steps, or (now that the data
   * file gives the system its interval) the decomposition itself, which
   * refuses a point whose cond_interval is out of range -- 1.4e-5 before the
   * root here, before any step could cross it */
  lth_status st = solve_idx4("t - 0.503", -1, &t, &sec);
  refused_near(st, t, 0.503, st == LTH_ESING ? 1e-12 : 1e-4, sec);
  /* a root that is no binary fraction and not on the scan points */
  st = solve_idx4("t - 0.50314159", -1, &t, &sec);
  refused_near(st, t, 0.50314159, st == LTH_ESING ? 1e-12 : 1e-4, sec);
  /* the scan refines the maximum of ||Pi^-1|| to the root's neighbourhood */
  st = solve_idx4("t - 0.50314159", 0, &t, &sec);
  refused_near(st, t, 0.50314159, 1e-12, sec);
}
END_TEST

/* det Pi touches zero without changing sign: found by refining the maxima of
 * ||Pi^-1|| between the scan points. */
START_TEST(ivp_double_root_refused) {
  double t, sec;
  lth_status st = solve_idx4("(t - 0.50314159)^2", 0, &t, &sec);
  ck_assert_msg(st == LTH_ECOND || st == LTH_ESING, "status %d", st);
  ck_assert_double_eq_tol(t, 0.50314159, 1e-5);
  ck_assert_double_lt(sec, 1.0);
  /* near singular but well above the threshold: accepted */
  ck_assert_int_eq(solve_idx4("(t - 0.50314159)^2 + 1e-3", 0, &t, &sec), LTH_OK);
}
END_TEST

/* The scan itself: a 2 x 2 Pi = diag(t - a, t - a) has det (t - a)^2 >= 0 and
 * a V-shaped smallest singular value; and a sign change of det. */
START_TEST(scan_finds_hidden_singularity) {
  lth_problem *pb = wp_parse("blocks 2 2\ninterval 0 1\nA(1,2) = eye\n"
                             "A(2,1) = [t - 0.3183098861837907, 0; 0, t - 0.3183098861837907]\n");
  lth_pi_scan sc;
  TU_ASSERT_OK(lth_pi_scan_run(lth_problem_system(pb), 0, 1, 101, 1, &sc, NULL));
  ck_assert_double_eq_tol(sc.worst_t, 0.3183098861837907, 1e-9);
  ck_assert_double_gt(sc.worst, 1e8);
  ck_assert_int_eq(sc.sign_change, 0);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_ne(lth_pi_scan_check(lth_problem_system(pb), 0, 1, 101, 0, NULL, &err), LTH_OK);
  ck_assert(err.has_t && fabs(err.t - 0.3183098861837907) < 1e-9);
  /* without refinement the 101 points of the sampled scan would see only
   * cond_interval ~ 1e2; the proof from the enclosures covers all but the
   * neighbourhood of the root, which is left to those points */
  TU_ASSERT_OK(lth_pi_scan_run(lth_problem_system(pb), 0, 1, 101, 0, &sc, NULL));
  ck_assert_double_ge(sc.proven, 0.5);
  ck_assert_double_lt(sc.proven, 1.0);
  lth_problem_free(pb);
  pb = wp_parse("blocks 2 2\ninterval 0 1\nA(1,2) = eye\n"
                "A(2,1) = [1, t; t - 0.7071067811865476, 1]\n"); /* det = 1 - t^2 + 0.707 t */
  TU_ASSERT_OK(lth_pi_scan_run(lth_problem_system(pb), 0, 2, 0, 1, &sc, NULL));
  double root = (0.7071067811865476 + sqrt(0.5 + 4.0)) / 2.0;
  ck_assert_int_eq(sc.sign_change, 1);
  ck_assert_double_eq_tol(sc.worst_t, root, 1e-12);
  ck_assert(isinf(sc.worst));
  lth_problem_free(pb);
}
END_TEST

/* A chain of constant blocks: Pi is the same at every t, and the scan is its
 * value at t0 (one point, lib/decomp/pi_scan.c), with the numbers a scan of
 * any number of points would give: Pi = [1, 2] [1; 2] = 5, chain norm
 * ||A(3,2)||_1 ||A(2,1)||_1 ||A(1,3)||_1 = 2 x 1 x 3 = 6, cond_interval 6/5.
 * Blocks outside the chain may vary; a chain block with t is scanned at every
 * point; a constant singular Pi is refused at t0. */
START_TEST(scan_of_constant_chain) {
  lth_problem *pb = wp_parse("blocks 2 2 1\ninterval 0 2\nA(1,1) = [sin(t), 0; 0, 1]\n"
                             "A(1,3) = [1; 2]\nA(2,1) = eye\nA(3,2) = [1, 2]\nf(3) = -4\n");
  lth_pi_scan sc;
  TU_ASSERT_OK(lth_pi_scan_run(lth_problem_system(pb), 0, 2, 1025, 1, &sc, NULL));
  ck_assert_int_eq((int)sc.points, 1);
  ck_assert_double_eq(sc.worst_t, 0.0);
  ck_assert_double_eq_tol(sc.pi_inv, 0.2, 1e-15);
  ck_assert_double_eq_tol(sc.scale, 6.0, 1e-14);
  ck_assert_double_eq_tol(sc.worst, 1.2, 1e-14);
  ck_assert_int_eq(sc.sign_change, 0);
  TU_ASSERT_OK(lth_pi_scan_check(lth_problem_system(pb), 0, 2, 0, 0, NULL, NULL));
  lth_problem_free(pb);
  pb = wp_parse("blocks 2 2 1\ninterval 0 2\nA(1,3) = [1; 2]\nA(2,1) = eye\n"
                "A(3,2) = [1, 2 + 0.1*t]\nf(3) = -4\n");
  TU_ASSERT_OK(lth_pi_scan_run(lth_problem_system(pb), 0, 2, 101, 1, &sc, NULL));
  ck_assert_int_ne((int)sc.points, 1);                 /* not the one point of a constant chain: */
  ck_assert_double_eq(sc.proven, 1.0);                 /* proven from the enclosures */
  ck_assert_double_eq_tol(sc.scale, 2.2 * 3.0, 1e-14); /* largest at t = 2 */
  lth_problem_free(pb);
  pb = wp_parse("blocks 2 2 1\ninterval 0 2\nA(1,3) = [2; -1]\nA(2,1) = eye\n"
                "A(3,2) = [1, 2]\nf(3) = -4\n");
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_pi_scan_check(lth_problem_system(pb), 0, 2, 0, 0, &sc, &err), LTH_ESING);
  ck_assert(err.has_t && err.t == 0.0);
  ck_assert_int_eq((int)sc.points, 1);
  lth_problem_free(pb);
}
END_TEST

/* The scan's refusals name Pi's product (and its norms where the data's size
 * is the reason): the texts are formatted on the refusing branches only
 * (lth_pi_scan_check), each of the three must still carry them. */
START_TEST(scan_refusals_name_pi) {
  static const struct {
    const char *text, *want, *norms;
    lth_status st;
  } c[] = {
      /* det Pi changes sign at sqrt(0.1), which no double is */
      {"blocks 1 1\ninterval 0 1\nA(1,2) = t*t - 0.1\nA(2,1) = 1\n",
       "Pi = A(2,1) A(1,2) is singular at t = ", NULL, LTH_ESING},
      /* Pi = 0 everywhere */
      {"blocks 1 1\ninterval 0 1\nA(1,2) = 0*t\nA(2,1) = 1\n",
       "Pi = A(2,1) A(1,2) is exactly singular at t = ", NULL, LTH_ESING},
      /* cos(pi t) at index 3: no sign change on [0, 0.4999999], but 3e-7 of the data there */
      {"blocks 2 2 1\ninterval 0 0.4999999\nA(1,3) = [1; 0]\nA(2,1) = eye\n"
       "A(3,2) = [cos(pi*t), 0]\nf(3) = -1\n",
       "Pi = A(3,2) A(2,1) A(1,3) is nearly singular at t = ",
       "max ||A(3,2)|| ||A(2,1)|| ||A(1,3)|| = ", LTH_ECOND},
  };
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
    lth_problem *pb = wp_parse(c[k].text);
    double t0, t1;
    lth_problem_interval(pb, &t0, &t1);
    lth_error err;
    lth_error_clear(&err);
    lth_status st = lth_pi_scan_check(lth_problem_system(pb), t0, t1, 0, 1e6, NULL, &err);
    ck_assert_msg(st == c[k].st, "case %zu: status %d: %s", k, st, err.message);
    ck_assert_msg(strstr(err.message, c[k].want) != NULL, "case %zu: %s", k, err.message);
    ck_assert_msg(!c[k].norms || strstr(err.message, c[k].norms) != NULL, "case %zu: %s", k,
                  err.message);
    ck_assert(err.has_t && err.has_cond);
    lth_problem_free(pb);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wellposed_pi");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cos_point_measure);
  tcase_add_test(tc, pi_product_text);
  tcase_add_test(tc, cos_grid_refused);
  tcase_add_test(tc, grid_judged_after_last_point);
  tcase_add_test(tc, ivp_sign_change_refused_at_once);
  tcase_add_test(tc, prescan_once_for_several_solves);
  tcase_add_test(tc, ivp_double_root_refused);
  tcase_add_test(tc, scan_finds_hidden_singularity);
  tcase_add_test(tc, scan_refusals_name_pi);
  tcase_add_test(tc, scan_of_constant_chain);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
