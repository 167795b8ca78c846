/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for lib/colloc/pieces.h and lth_bvp_check_impulses: the pieces of [t0, t1] by what the
 * data's enclosures show.  Smooth data are one piece; a kink or a jump is a POINT piece a few ulps
 * wide with the point strictly inside; a pulse is cut into pieces on each of which the enclosure
 * check passes; a feature finer than wmin is NARROW near its t; merging keeps every piece end and
 * never a point inside a POINT piece; a jump in the constraint's data (or a kink where the hidden
 * constraints differentiate) is refused naming its t; callbacks are unknown.  Positions are
 * asserted to the widths the methods rely on (the POINT width, 64 ulps of the interval; a pulse to
 * a few of its widths). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lth/enclose.h>
#include <lth/problem.h>
#include <lth/system.h>

#include "bvp/bvp_impl.h"
#include "colloc/pieces.h"

/* An index-2 model with A(1,1) = [0, 0; 0, a], f(1) = [0; g], f(2) = k. */
static lth_problem *model2(const char *a, const char *g, const char *k) {
  char text[2048];
  snprintf(text, sizeof text,
           "lth 1\nproblem dae\nblocks 2 1\ninterval 0 1\n"
           "A(1,1) = [0, 0; 0, %s]\nA(1,2) = [1; 0]\nA(2,1) = [1, 0]\n"
           "f(1) = [0; %s]\nf(2) = %s\n",
           a, g, k);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "model", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

/* Pieces of the whole system's data at degree K and tol. */
static void pieces(const lth_problem *pb, int K, double tol, double wmin, lth_pieces *pc) {
  lth_error err;
  lth_error_clear(&err);
  lth_enclose *enc = lth_enclose_alloc(lth_problem_system(pb), K, &err);
  ck_assert(enc);
  ck_assert_msg(lth_pieces_find(enc, 0.0, 1.0, K, tol, wmin, 100000, pc, &err) == LTH_OK, "%s",
                err.message);
  /* the pieces tile [0, 1] */
  ck_assert(pc->n >= 1 && pc->t[0] == 0.0 && pc->t[pc->n] == 1.0);
  for (size_t i = 0; i < pc->n; i++) ck_assert(pc->t[i] < pc->t[i + 1]);
  /* every SMOOTH piece passes the check it was cut by */
  for (size_t i = 0; i < pc->n; i++) {
    if (pc->kind[i] != LTH_PIECE_SMOOTH) continue;
    lth_enclose_verdict v;
    ck_assert(lth_enclose_check(enc, pc->t[i], pc->t[i + 1], K, tol, pc->t[i + 1] - pc->t[i], &v,
                                &err) == LTH_OK);
    ck_assert_msg(v.answer == LTH_ENCLOSE_RESOLVED, "piece [%g, %g] not resolved", pc->t[i],
                  pc->t[i + 1]);
  }
  lth_enclose_free(enc);
}

START_TEST(test_smooth_one_piece) {
  lth_problem *pb = model2("-1 + 0.3*sin(2*t)", "cos(t)", "-sin(t)");
  lth_pieces pc;
  pieces(pb, 13, 1e-8, 0.0, &pc);
  ck_assert_int_eq((int)pc.n, 1);
  ck_assert(pc.known && pc.npoint == 0 && pc.nnarrow == 0);
  lth_pieces_release(&pc);
  lth_problem_free(pb);
}
END_TEST

/* Kinks and jumps at irregular points, in A and in f, alone and together. */
START_TEST(test_points_localized) {
  static const struct {
    const char *a, *g;
    int n;
    double c[2];
  } cases[] = {
      {"-abs(t-0.5037)", "1", 1, {0.5037, 0}},
      {"-1", "0.3*(t-0.71234567)/abs(t-0.71234567)", 1, {0.71234567, 0}},
      {"-1 + abs(t-0.2)", "abs(t-0.8123)", 2, {0.2, 0.8123}},
      {"-1", "sqrt(abs(t-0.4321))", 1, {0.4321, 0}},
  };
  double tiny = lth_pieces_tiny(0.0, 1.0);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    lth_problem *pb = model2(cases[k].a, cases[k].g, "-sin(t)");
    lth_pieces pc;
    pieces(pb, 13, 1e-8, 0.0, &pc);
    ck_assert_int_eq((int)pc.npoint, cases[k].n);
    int j = 0;
    for (size_t i = 0; i < pc.n; i++) {
      if (pc.kind[i] != LTH_PIECE_POINT) continue;
      double c = cases[k].c[j++], lo = pc.t[i], hi = pc.t[i + 1];
      ck_assert_msg(lo < c && c < hi, "case %zu: point %.17g outside [%.17g, %.17g]", k, c, lo, hi);
      ck_assert_msg(hi - lo <= 4 * tiny, "case %zu: point piece %.3g wide", k, hi - lo);
    }
    lth_pieces_release(&pc);
    lth_problem_free(pb);
  }
}
END_TEST

/* A pulse of width 1e-4 .. 1e-2 is cut finely around its t only, and a
 * coarser wmin leaves NARROW pieces near it. */
START_TEST(test_pulse_pieces) {
  static const double W[] = {1e-4, 1e-3, 1e-2};
  for (size_t k = 0; k < 3; k++) {
    char g[128];
    double c = 0.3 + 0.1 * (double)k, w = W[k];
    snprintf(g, sizeof g, "2.7*exp(-((t-%.17g)/%.17g)^2)", c, w);
    lth_problem *pb = model2("-1", g, "-sin(t)");
    lth_pieces pc;
    pieces(pb, 13, 1e-8, 0.0, &pc);
    ck_assert(pc.npoint == 0 && pc.nnarrow == 0 && pc.n > 2);
    for (size_t i = 0; i < pc.n; i++) { /* the piece holding c is a few widths at most */
      if (pc.t[i] <= c && c <= pc.t[i + 1]) ck_assert(pc.t[i + 1] - pc.t[i] < 8 * w);
    }
    lth_pieces_release(&pc);
    pieces(pb, 3, 1e-3, 20 * w, &pc);
    ck_assert(pc.nnarrow > 0 && pc.first < pc.n);
    double t = 0.5 * (pc.t[pc.first] + pc.t[pc.first + 1]);
    ck_assert_msg(fabs(t - c) < 10 * w, "NARROW at %g for a pulse at %g", t, c);
    ck_assert(strstr(pc.what, "f(1)") != NULL);
    lth_pieces_release(&pc);
    lth_problem_free(pb);
  }
}
END_TEST

START_TEST(test_merge) {
  lth_problem *pb = model2("-abs(t-0.5)", "abs(t-0.25)", "-sin(t)"); /* points on a mesh */
  lth_pieces pc;
  pieces(pb, 13, 1e-8, 0.0, &pc);
  ck_assert_int_eq((int)pc.npoint, 2);
  double x[9];
  for (int i = 0; i <= 8; i++) x[i] = i / 8.0;
  size_t n = 0;
  double *y = lth_pieces_merge(&pc, x, 9, &n);
  ck_assert(y && y[0] == 0.0 && y[n - 1] == 1.0);
  for (size_t i = 0; i + 1 < n; i++) ck_assert(y[i] < y[i + 1]);
  for (size_t i = 0; i <= pc.n; i++) { /* every piece end is a point */
    int found = 0;
    for (size_t j = 0; j < n; j++) found |= y[j] == pc.t[i];
    ck_assert(found);
  }
  for (size_t j = 0; j < n; j++) { /* 0.25 and 0.5 themselves are gone: nothing inside */
    ck_assert(y[j] != 0.25 && y[j] != 0.5);
    for (size_t i = 0; i < pc.n; i++) {
      if (pc.kind[i] == LTH_PIECE_POINT) ck_assert(!(pc.t[i] < y[j] && y[j] < pc.t[i + 1]));
    }
  }
  free(y);
  lth_pieces_release(&pc);
  lth_problem_free(pb);
}
END_TEST

/* Where the constraints' data jump (index 2) or kink where they are
 * differentiated (index 3) the solution would jump: refused naming t. */
START_TEST(test_impulses) {
  lth_error err;
  lth_problem *pb = model2("-1", "1", "-sin(t) - 0.25*(t-0.5037)/abs(t-0.5037)");
  lth_error_clear(&err);
  ck_assert_int_eq(lth_bvp_check_impulses(lth_problem_system(pb), 0, 1, &err), LTH_ENOSOL);
  ck_assert(err.has_t && fabs(err.t - 0.5037) < 1e-12);
  ck_assert(strstr(err.message, "f(2) entry 1") != NULL);
  lth_problem_free(pb);
  /* a kink in f(2) at index 2: lam jumps, x does not */
  pb = model2("-1", "1", "-sin(t) - 0.25*abs(t-0.5037)");
  ck_assert_int_eq(lth_bvp_check_impulses(lth_problem_system(pb), 0, 1, &err), LTH_OK);
  lth_problem_free(pb);
  /* index 3 (the pendulum's pattern): a kink in f(3) moves the velocities */
  static const char *const idx3[] = {"-abs(t-0.61)", "0.5*sin(t)"};
  for (int k = 0; k < 2; k++) {
    char text[1024];
    snprintf(text, sizeof text,
             "lth 1\nproblem dae\nblocks 2 2 1\ninterval 0 1\n"
             "A(1,2) = [-9.81, 0; 0, -9.81]\nA(1,3) = [0; 1]\nA(2,1) = eye\nA(3,2) = [0, -1]\n"
             "f(3) = [%s]\n",
             idx3[k]);
    lth_problem *p3 = NULL;
    ck_assert(lth_problem_parse(text, strlen(text), "idx3", NULL, &p3, &err) == LTH_OK);
    lth_status st = lth_bvp_check_impulses(lth_problem_system(p3), 0, 1, &err);
    ck_assert_int_eq(st, k == 0 ? LTH_ENOSOL : LTH_OK);
    if (k == 0) ck_assert(fabs(err.t - 0.61) < 1e-12 && strstr(err.message, "f(3)"));
    lth_problem_free(p3);
  }
}
END_TEST

static int cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  (void)ld;
  for (int m = 0; m <= order; m++) coef[(size_t)m * stride] = m == 0 ? -fabs(t - 0.5) : 0.0;
  return 0;
}

START_TEST(test_callback_unknown) {
  int n[2] = {1, 1};
  lth_error err;
  lth_error_clear(&err);
  lth_system *sys = lth_system_alloc(2, n, &err);
  ck_assert(sys);
  ck_assert(lth_system_set_A(sys, 1, 1, lth_source_callback(1, 1, cb, NULL, NULL), &err) == LTH_OK);
  lth_enclose *enc = lth_enclose_alloc(sys, 5, &err);
  lth_pieces pc;
  ck_assert(lth_pieces_find(enc, 0, 1, 5, 1e-8, 0, 100, &pc, &err) == LTH_OK);
  ck_assert(!pc.known && pc.n == 1 && pc.npoint == 0);
  lth_pieces_release(&pc);
  ck_assert_int_eq(lth_bvp_check_impulses(sys, 0, 1, &err), LTH_OK);
  lth_enclose_free(enc);
  lth_system_free(sys);
}
END_TEST

int main(void) {
  Suite *s = suite_create("bvp_features");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_smooth_one_piece);
  tcase_add_test(tc, test_points_localized);
  tcase_add_test(tc, test_pulse_pieces);
  tcase_add_test(tc, test_merge);
  tcase_add_test(tc, test_impulses);
  tcase_add_test(tc, test_callback_unknown);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
