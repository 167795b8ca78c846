/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The singular and partially singular LQR on a DAE plant (lth_plqr_solve with
 * R singular, lib/lqr/plqr_sing.h):
 * (1) totally singular, against the closed form: the index-2 plant
 *     x1' = u, x2' = x1, w' = mu, 0 = w - x1 (so mu = u) with the cost
 *     int_0^1 x1^2 + x2^2.  On the singular arc lambda1 = 0, lambda2 = -x1,
 *     u = x2, so x2 = a e^t + b e^-t, x1 = a e^t - b e^-t; lambda(1) = 0
 *     gives b = a e^2, and x0 = (-tanh 1, 1) lies on the arc with
 *     a = 1 / (1 + e^2);  J* = a^2 (e^2 - 1) + b^2 (1 - e^-2);
 * (2) partially singular: the same plant with a decoupled x3' = -x3 + u2 and
 *     the cost + x3^2 + 0.5 u2^2: J* is the sum of (1) and the regular
 *     problem of x3 alone (with an index-2 copy of x3 to make it a DAE; solved
 *     by the Riccati path, itself checked
 *     against the ARE in test_plqr.c), u2 its optimal control;
 * (3) the cost from the multiplier equals the cost by quadrature;
 * (4) an initial state off the singular arc: the impulse of u at t0 that
 *     jumps x1 onto it (-1 - tanh 1), then the arc of (1);
 * (5) the final cost x1^2 + x2^2, lowered by an impulse at t1 (closed form);
 * (6) refusals: a final cost that falls without bound along u, an R
 *     that changes rank (R = t u^2 from t0 = 0, and (t - 1/2)^2 u^2), a cost
 *     indefinite in the state (-x1^2 + x2^2: a stationary point, no minimum). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lth/model.h"
#include "lth/plqr.h"
#include "lth/problem.h"
#include "plantlq.h"
#include "testutil.h"

static const char *plant1 = "problem equations\n"
                            "variables x1 x2 w mu\n"
                            "inputs u\n"
                            "interval 0 1\n"
                            "x1' = u\n"
                            "x2' = x1\n"
                            "w' = mu\n"
                            "0 = w - x1\n"
                            "z0 = [-0.7615941559557649, 1, -0.7615941559557649, 0]\n";

static const char *plant2 = "problem equations\n"
                            "variables x1 x2 w mu x3\n"
                            "inputs u u2\n"
                            "interval 0 1\n"
                            "x1' = u\n"
                            "x2' = x1\n"
                            "w' = mu\n"
                            "0 = w - x1\n"
                            "x3' = -x3 + u2\n"
                            "z0 = [-0.7615941559557649, 1, -0.7615941559557649, 0, 0.8]\n";

static const char *plant3 = "problem equations\n"
                            "variables x3 v nu\n"
                            "inputs u2\n"
                            "interval 0 1\n"
                            "x3' = -x3 + u2\n"
                            "v' = nu\n"
                            "0 = v - x3\n"
                            "z0 = [0.8, 0.8, 0]\n";

/* A diagonal weight W on w = (z, u) (no outputs) from (index, weight) pairs. */
typedef struct cost_data {
  double W[64];
  lth_source *Ws;
  lth_plqr_cost c;
} cost_data;

static void make_cost(cost_data *cd, int n, const int *idx, const double *wt, int k) {
  memset(cd, 0, sizeof *cd);
  for (int i = 0; i < k; i++) {
    cd->W[idx[i] + n * idx[i]] = wt[i];
  }
  cd->Ws = lth_source_const(n, n, cd->W, n, NULL);
  ck_assert(cd->Ws);
  cd->c.W = cd->Ws;
}

static double closed_form_cost(void) {
  double e2 = exp(2.0), a = 1.0 / (1.0 + e2), b = a * e2;
  return a * a * (e2 - 1.0) + b * b * (1.0 - 1.0 / e2);
}

START_TEST(test_totally_singular_closed_form) {
  lth_problem *pb = read_text(plant1);
  const lth_system *sys = lth_problem_system(pb);
  int ix1 = canon(pb, 0), ix2 = canon(pb, 1);
  int idx[2] = {ix1, ix2};
  double wt[2] = {1.0, 1.0};
  cost_data cd;
  make_cost(&cd, 5, idx, wt, 2);
  double times[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
  lth_plqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(sys, &cd.c, 0.0, 1.0, z0_of(pb), times, 5, NULL, &res, &err) ==
                    LTH_OK,
                "%s", err.message);
  ck_assert_int_eq(res->singular, 1);
  ck_assert_int_eq(res->have_gain, 0);
  double J = closed_form_cost(), e2 = exp(2.0), a = 1.0 / (1.0 + e2), b = a * e2, worst = 0.0;
  for (size_t q = 0; q < res->n; q++) {
    double t = times[q], x2 = a * exp(t) + b * exp(-t), x1 = a * exp(t) - b * exp(-t);
    const double *z = res->z + q * (size_t)res->s;
    worst = fmax(worst, fabs(z[ix1] - x1));
    worst = fmax(worst, fabs(z[ix2] - x2));
    worst = fmax(worst, fabs(res->u[q] - x2));           /* u = x2 on the arc */
    worst = fmax(worst, fabs(z[canon(pb, 3)] - x2));     /* mu = u */
    worst = fmax(worst, fabs(z[canon(pb, 2)] - z[ix1])); /* the constraint */
  }
  ck_assert_msg(worst <= 1e-8, "trajectory error %.3e", worst);
  ck_assert_msg(fabs(res->cost - J) <= 1e-9 * J, "cost %.15g, closed form %.15g", res->cost, J);
  ck_assert_msg(fabs(res->cost_closed - J) <= 1e-9 * J, "quadrature %.15g, closed form %.15g",
                res->cost_closed, J);
  fprintf(stderr, "singular: cost %.15g (closed form %.15g, quadrature %.15g), trajectory %.2e\n",
          res->cost, J, res->cost_closed, worst);
  lth_plqr_result_free(res);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_partially_singular_sum) {
  /* the regular part alone */
  lth_problem *p3 = read_text(plant3);
  int i3[2] = {canon(p3, 0), 3};
  double w3[2] = {1.0, 0.5};
  cost_data c3;
  make_cost(&c3, 4, i3, w3, 2);
  double times[3] = {0.0, 0.5, 1.0};
  lth_plqr_result *r3 = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(lth_problem_system(p3), &c3.c, 0.0, 1.0, z0_of(p3), times, 3, NULL,
                               &r3, &err) == LTH_OK,
                "%s", err.message);
  /* the whole plant: w = (z (5), u, u2) */
  lth_problem *pb = read_text(plant2);
  int idx[4] = {canon(pb, 0), canon(pb, 1), canon(pb, 4), 6};
  double wt[4] = {1.0, 1.0, 1.0, 0.5};
  cost_data cd;
  make_cost(&cd, 7, idx, wt, 4);
  lth_plqr_result *res = NULL;
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(lth_problem_system(pb), &cd.c, 0.0, 1.0, z0_of(pb), times, 3, NULL,
                               &res, &err) == LTH_OK,
                "%s", err.message);
  ck_assert_int_eq(res->singular, 1);
  double J = closed_form_cost() + r3->cost;
  ck_assert_msg(fabs(res->cost - J) <= 1e-9 * J, "cost %.15g, expected %.15g", res->cost, J);
  ck_assert_msg(fabs(res->cost_closed - J) <= 1e-9 * J, "quadrature %.15g, expected %.15g",
                res->cost_closed, J);
  double worst = 0.0, e2 = exp(2.0), a = 1.0 / (1.0 + e2), b = a * e2;
  for (size_t q = 0; q < res->n; q++) {
    worst = fmax(worst, fabs(res->u[2 * q + 1] - r3->u[q]));
    worst = fmax(worst, fabs(res->u[2 * q] - (a * exp(times[q]) + b * exp(-times[q]))));
    worst = fmax(worst, fabs(res->z[q * (size_t)res->s + canon(pb, 4)] -
                             r3->z[q * (size_t)r3->s + canon(p3, 0)]));
  }
  ck_assert_msg(worst <= 1e-8, "controls and x3 differ by %.3e", worst);
  fprintf(stderr, "partially singular: cost %.15g (expected %.15g), controls %.2e\n", res->cost, J,
          worst);
  lth_plqr_result_free(res);
  lth_plqr_result_free(r3);
  lth_source_free(cd.Ws);
  lth_source_free(c3.Ws);
  lth_problem_free(pb);
  lth_problem_free(p3);
}
END_TEST

START_TEST(test_refusals) {
  lth_problem *pb = read_text(plant1);
  const lth_system *sys = lth_problem_system(pb);
  int ix1 = canon(pb, 0), ix2 = canon(pb, 1);
  int idx[2] = {ix1, ix2};
  double wt[2] = {1.0, 1.0}, times[1] = {0.0};
  cost_data cd;
  make_cost(&cd, 5, idx, wt, 2);
  lth_plqr_result *res = NULL;
  lth_error err;
  /* off the arc: x0 = (1, 1) needs an impulse of u that moves x1 (and w) to
   * -tanh 1; x2(0) = 1 stays, so the arc and J* are those of test 1 */
  double z0[4] = {0};
  z0[ix1] = 1.0;
  z0[ix2] = 1.0;
  z0[canon(pb, 2)] = 1.0;
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(sys, &cd.c, 0.0, 1.0, z0, times, 1, NULL, &res, &err) == LTH_OK,
                "%s", err.message);
  double J = closed_form_cost(), eta = -tanh(1.0) - 1.0;
  ck_assert_msg(fabs(res->impulse[0] - eta) <= 1e-9, "impulse %.15g, expected %.15g",
                res->impulse[0], eta);
  ck_assert_msg(fabs(res->cost - J) <= 1e-9 * J && fabs(res->cost_closed - J) <= 1e-9 * J,
                "cost %.15g, quadrature %.15g, expected %.15g", res->cost, res->cost_closed, J);
  ck_assert(fabs(res->z[ix1] + tanh(1.0)) <= 1e-9 && fabs(res->z[ix2] - 1.0) <= 1e-9);
  fprintf(stderr, "impulse %.15g (expected %.15g), cost %.15g\n", res->impulse[0], eta, res->cost);
  lth_plqr_result_free(res);
  /* a final cost x1^2 + x2^2: u jumps x1 to 0 at t1 for free, so the arc sees
   * x2(1)^2 alone: lambda2(1) = x2(1) = -x1(1), so x2 = e^-t = -x1 from
   * z0 = (-1, 1), and J* = int 2 e^-2t + e^-2 = 1, the impulse at t1 +1/e */
  double F[25] = {0};
  F[ix1 + 5 * ix1] = 1.0;
  F[ix2 + 5 * ix2] = 1.0;
  cd.c.F = F;
  double zt[4] = {0};
  zt[ix1] = -1.0;
  zt[ix2] = 1.0;
  zt[canon(pb, 2)] = -1.0;
  double t2[2] = {0.0, 1.0};
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(sys, &cd.c, 0.0, 1.0, zt, t2, 2, NULL, &res, &err) == LTH_OK, "%s",
                err.message);
  ck_assert_msg(fabs(res->cost - 1.0) <= 1e-9 && fabs(res->cost_closed - 1.0) <= 1e-9,
                "cost %.15g, quadrature %.15g, expected 1", res->cost, res->cost_closed);
  ck_assert_msg(fabs(res->impulse_t1[0] - exp(-1.0)) <= 1e-9 && fabs(res->impulse[0]) <= 1e-9,
                "impulses %.15g at t0, %.15g at t1 (expected 0, %.15g)", res->impulse[0],
                res->impulse_t1[0], exp(-1.0));
  ck_assert(fabs(res->z[(size_t)res->s + ix2] - exp(-1.0)) <= 1e-9);
  fprintf(stderr, "terminal impulse %.15g (expected %.15g), cost %.15g\n", res->impulse_t1[0],
          exp(-1.0), res->cost);
  lth_plqr_result_free(res);
  /* a final cost that falls without bound along u: -x1 + x2^2 */
  memset(F, 0, sizeof F);
  F[ix2 + 5 * ix2] = 1.0;
  double fl[5] = {0};
  fl[ix1] = -0.5;
  cd.c.F = F;
  cd.c.f = fl;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_plqr_solve(sys, &cd.c, 0.0, 1.0, zt, times, 1, NULL, &res, &err),
                   LTH_ENOSOL);
  ck_assert_msg(err.has_t && err.t == 1.0 && strstr(err.message, "without bound"), "%s",
                err.message);
  cd.c.f = NULL;
  cd.c.F = NULL;
  lth_source_free(cd.Ws);
  /* an indefinite weight of the state (Aly-Chan): a stationary point only */
  wt[0] = -1.0;
  make_cost(&cd, 5, idx, wt, 2);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_plqr_solve(sys, &cd.c, 0.0, 1.0, z0_of(pb), times, 1, NULL, &res, &err),
                   LTH_EDATA);
  ck_assert_msg(err.has_t && strstr(err.message, "indefinite in the state"), "%s", err.message);
  fprintf(stderr, "indefinite: %s\n", err.message);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
  /* R = t u^2 from t0 = 0: singular at t0 only; R = (t - 1/2)^2 u^2: at 1/2 only */
  const char *cost_t[2] = {"cost integral x1^2 + x2^2 + t*u^2\n",
                           "cost integral x1^2 + x2^2 + (t - 0.5)^2*u^2\n"};
  for (int k = 0; k < 2; k++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s", plant1, cost_t[k]);
    pb = read_text(text);
    const lth_plqr_cost *c = lth_problem_cost(pb);
    ck_assert(c);
    lth_error_clear(&err);
    lth_status st =
        lth_plqr_solve(lth_problem_system(pb), c, 0.0, 1.0, z0_of(pb), times, 1, NULL, &res, &err);
    ck_assert_msg(st == LTH_EDATA || st == LTH_ESING, "status %d: %s", (int)st, err.message);
    ck_assert_msg(err.has_t && strstr(err.message, "rank"), "%s", err.message);
    if (k == 1) {
      ck_assert_msg(fabs(err.t - 0.5) <= 1e-3, "t = %.10g: %s", err.t, err.message);
    } else {
      ck_assert_msg(err.t > 0.0, "t = %.10g: %s", err.t, err.message);
    }
    fprintf(stderr, "rank change %d: %s\n", k, err.message);
    lth_problem_free(pb);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plqr_singular");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_totally_singular_closed_form);
  tcase_add_test(tc, test_partially_singular_sum);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
