/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Outputs from a collocation step's points (lib/ivp/ivp_outpoly.c): the
 * kept points at the step's Chebyshev nodes give z = (Nhat + Bhat) v + q at
 * an output time only where the polynomial through them resolves z as the
 * step resolves v.  Points made by hand (s = 2, m = 1, P = 0) on [0, 1] at
 * degree 16: z_2 a polynomial (served, exact to rounding); z_2 with sin(40 t)
 * (refused: its tail is above the tolerance); z_2 with cos(9 t), whose tail
 * 4e-8 meets rtol 1e-6 while v = e^t is resolved to rounding (refused: the
 * outputs would lose the accuracy the step has); a node not kept (refused).
 * Then whole solves: Ascher and Petzold's example with 200 outputs in one
 * step, served without a decomposition each and within 100 rtol of the
 * exact solution; the rational problem, whose steps resolve v far below the
 * tolerance, keeps that accuracy at 200 outputs. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ivp/cheb_rule.h"
#include "ivp/ivp_impl.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "rational_problem.h"
#include "testutil.h"

#define LEVEL 2 /* degree 16 */

typedef double (*fn)(double);
static double v_lin(double t) { return 1.0 + t; }
static double v_exp(double t) { return exp(t); }
static double v_cos2(double t) { return 2.0 * cos(9.0 * t); }
static double b_t(double t) { return t; }
static double b_zero(double t) { return 0.0 * t; }
static double q_sq(double t) { return t * t; }
static double q_sin(double t) { return sin(40.0 * t); }
static double q_cos(double t) { return cos(9.0 * t); }

/* A point at t with P = 0, Bhat = [0; b(t)], q = [0; q(t)]. */
static void keep_point(lth_ivp_nodes *nd, double t, fn b, fn q) {
  double P[1] = {0.0}, B[2] = {0.0, b(t)}, Q[2] = {0.0, q(t)};
  lth_point pt;
  memset(&pt, 0, sizeof pt);
  pt.t = t;
  pt.P = (lth_jet){.rows = 1, .cols = 1, .ld = 1, .stride = 1, .c = P};
  pt.Bhat = (lth_jet){.rows = 2, .cols = 1, .ld = 2, .stride = 2, .c = B};
  pt.q = (lth_jet){.rows = 2, .cols = 1, .ld = 2, .stride = 2, .c = Q};
  lth_ivp_nodes_keep(nd, &pt);
}

/* The step [0, 1] at degree 16 with v = v(t) at its nodes, the points kept
 * except node `skip` (-1: none); the output at t = 0.3 into z: served? */
static int served(fn v, fn b, fn q, int skip, double rtol, double *z) {
  const lth_cheb_rule *R = lth_cheb_rule_at(LEVEL);
  int N = R->N;
  double tn[LTH_CHEB_NMAX + 1], Y[LTH_CHEB_NMAX + 1];
  lth_ivp_nodes *nd = lth_ivp_nodes_alloc(2, 1);
  ck_assert_ptr_nonnull(nd);
  for (int j = 0; j <= N; j++) {
    tn[j] = j == 0 ? 0.0 : j == N ? 1.0 : 0.5 * (R->x[j] + 1.0);
    Y[j] = v(tn[j]);
    if (j != skip) keep_point(nd, tn[j], b, q);
  }
  double drift = -1.0, gain = -1.0;
  int ok = lth_ivp_nodes_output(nd, N, tn, Y, 0.3, rtol, rtol, z, &drift, &gain);
  if (ok) {
    ck_assert_msg(drift == 0.0, "drift %g with P = 0", drift);
    /* ||Nhat + Bhat||_inf = max(|1 + 0|, |b(0.3)|) */
    ck_assert_msg(fabs(gain - fmax(1.0, fabs(b(0.3)))) < 1e-14, "gain %.17g", gain);
  }
  lth_ivp_nodes_free(nd);
  return ok;
}

START_TEST(test_polynomial_served) {
  double z[2];
  ck_assert(served(v_lin, b_t, q_sq, -1, 1e-6, z));
  double t = 0.3, ex[2] = {1.0 + t, t * (1.0 + t) + t * t};
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(fabs(z[i] - ex[i]) < 16 * DBL_EPSILON, "z[%d] = %.17g, exact %.17g", i, z[i],
                  ex[i]);
  }
}
END_TEST

START_TEST(test_unresolved_refused) {
  double z[2];
  ck_assert(!served(v_lin, b_t, q_sin, -1, 1e-6, z));
}
END_TEST

/* cos(9 t) has a tail of about 4e-8 at degree 16 on [0, 1]: below rtol 1e-6,
 * but far above what v = e^t (resolved to rounding) carries into z. */
START_TEST(test_accuracy_of_the_step_kept) {
  double z[2];
  ck_assert(!served(v_exp, b_t, q_cos, -1, 1e-6, z));
  /* z_2 = cos(9 t) beside v = 2 cos(9 t), whose tail is twice z_2's: served,
   * within the tail of the exact value */
  ck_assert(served(v_cos2, b_zero, q_cos, -1, 1e-6, z));
  ck_assert_msg(fabs(z[1] - cos(2.7)) < 1e-7, "z_2 = %.17g, exact %.17g", z[1], cos(2.7));
}
END_TEST

START_TEST(test_missing_point_refused) {
  double z[2];
  ck_assert(served(v_lin, b_t, q_sq, -1, 1e-6, z));
  for (int skip = 0; skip <= 16; skip += 8) {
    ck_assert_msg(!served(v_lin, b_t, q_sq, skip, 1e-6, z), "node %d not kept", skip);
  }
}
END_TEST

static const char ap_text[] = "lth 1\nproblem dae\nblocks 2 1\ninterval 0 1\nparam a = 50\n"
                              "A(1,1) = [a - 1/(2-t), 0; (1-a)/(t-2), -1]\n"
                              "A(1,2) = [(2-t)*a; a-1]\nA(2,1) = [t+2, t^2-4]\n"
                              "f(1) = [(3-t)/(2-t)*exp(t); 2*exp(t)]\n"
                              "f(2) = -(t^2+t-2)*exp(t)\n";

static lth_ivp_result *cheb_solve(const char *text, const double *z0, const double *times, size_t n,
                                  double rtol, lth_problem **pb, int reproject) {
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "t.lth", NULL, pb, &err) == LTH_OK, "%s",
                err.message);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = LTH_IVP_CHEB;
  o.rtol = o.atol = rtol;
  o.error_estimate = 0;
  o.reproject = reproject;
  lth_ivp_result *res = NULL;
  ck_assert_msg(lth_ivp_solve(lth_problem_system(*pb), 0.0, z0, times, n, &o, &res, &err) == LTH_OK,
                "%s", err.message);
  return res;
}

/* x1 = x2 = e^t, u = -e^t / (2 - t); 200 outputs, fewer decompositions than
 * outputs (each output decomposing would take 200 more than the steps'). */
START_TEST(test_ap_outputs_from_step) {
  enum { NOUT = 200 };
  double z0[3] = {1.0, 1.0, -0.5}, times[NOUT], rtols[2] = {1e-6, 1e-10};
  for (int k = 0; k < NOUT; k++) times[k] = (k + 1.0) / NOUT;
  for (int q = 0; q < 2; q++) {
    lth_problem *pb = NULL;
    lth_ivp_result *res = cheb_solve(ap_text, z0, times, NOUT, rtols[q], &pb, 0);
    double e = 0.0;
    for (int k = 0; k < NOUT; k++) {
      double t = times[k], x = exp(t), ex[3] = {x, x, -x / (2 - t)}, sc = fmax(1.0, x / (2 - t));
      for (int i = 0; i < 3; i++) e = fmax(e, fabs(res->z[3 * k + i] - ex[i]) / sc);
    }
    ck_assert_msg(e < 100 * rtols[q], "ap rtol %g: error %.2e", rtols[q], e);
    ck_assert_msg(res->decomps < NOUT, "ap rtol %g: %zu decompositions for %d outputs", rtols[q],
                  res->decomps, NOUT);
    ck_assert_msg(fabs(res->output_gain - 100.0) < 1.0, "output gain %g", res->output_gain);
    lth_ivp_result_free(res);
    lth_problem_free(pb);
  }
}
END_TEST

/* The outputs read from the step's polynomial stay within the tolerance,
 * with fewer decompositions than outputs that decompose at their times
 * (--reproject, which also projects v there, a change of the drift's size;
 * its error is printed beside): the rational problem at rtol 1e-2 and 1e-6,
 * 200 outputs, errors against the exact solution (at 1e-2: 2.2e-3 against
 * 9.7e-4). */
static double rational_error(const lth_ivp_result *res, const double *times, int n) {
  double e = 0.0;
  for (int k = 0; k < n; k++) {
    double ex[6];
    rational_solution(times[k], ex, NULL);
    for (int i = 0; i < 6; i++) e = fmax(e, fabs(res->z[6 * k + i] - ex[i]));
  }
  return e;
}

START_TEST(test_rational_keeps_accuracy) {
  enum { NOUT = 200 };
  double z0[6], times[NOUT], rtols[2] = {1e-2, 1e-6};
  rational_solution(0.0, z0, NULL);
  for (int k = 0; k < NOUT; k++) times[k] = 10.0 * (k + 1.0) / NOUT;
  for (int q = 0; q < 2; q++) {
    lth_problem *pb = NULL, *pb2 = NULL;
    lth_ivp_result *res = cheb_solve(rational_text, z0, times, NOUT, rtols[q], &pb, 0);
    lth_ivp_result *ref = cheb_solve(rational_text, z0, times, NOUT, rtols[q], &pb2, 1);
    double e = rational_error(res, times, NOUT), e_ref = rational_error(ref, times, NOUT);
    /* (the polynomial may add up to its z test's tolerance, rtol max(1, |z|),
     * to the decomposed outputs' error: rtol itself is the sharper bound) */
    ck_assert_msg(e <= rtols[q], "rational rtol %g: error %.2e, decomposed outputs %.2e", rtols[q],
                  e, e_ref);
    ck_assert_msg(res->decomps < ref->decomps, "%zu decompositions, %zu decomposing every output",
                  res->decomps, ref->decomps);
    lth_ivp_result_free(res);
    lth_ivp_result_free(ref);
    lth_problem_free(pb);
    lth_problem_free(pb2);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ivp_outpoly");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_polynomial_served);
  tcase_add_test(tc, test_unresolved_refused);
  tcase_add_test(tc, test_accuracy_of_the_step_kept);
  tcase_add_test(tc, test_missing_point_refused);
  tcase_add_test(tc, test_ap_outputs_from_step);
  tcase_add_test(tc, test_rational_keeps_accuracy);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
