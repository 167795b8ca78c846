/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LQR on a DAE plant with inputs (lth_plqr_solve, include/lth/plqr.h):
 * (1) two masses on springs held together by a rigid link (index 3), a force
 *     on one, the cost  int y^2 + 0.1 u^2  with y = x1 over a long horizon:
 *     the gain on the unknowns and the optimal cost against the algebraic
 *     Riccati equation of the ODE reduced by hand, x'' = -x + u/2, solved
 *     independently from the stable invariant subspace of its Hamiltonian
 *     matrix (LAPACK dgeev); the closed loop's cost, integrated along it,
 *     equals the reported one to 1e-8;
 * (2) a time-varying spring and a final cost: the closed loop's cost equals
 *     the reported one;
 * (3) refusals: R = 0 with B'QB = 0 (a singular problem whose arc is of higher
 *     order: Pi of the optimality DAE singular), an indefinite cost with a
 *     conjugate point (the Riccati solution escapes), an input the plant
 *     differentiates, a final cost on u. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <check.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lth/model.h"
#include "lth/plqr.h"
#include "lth/problem.h"
#include "plantlq.h"
#include "testutil.h"

static const char *plant_ti = "problem equations\n"
                              "variables x1 x2 v1 v2 lam\n"
                              "inputs u\n"
                              "outputs y = x1\n"
                              "interval 0 20\n"
                              "x1' = v1\n"
                              "x2' = v2\n"
                              "v1' = -x1 + lam + u\n"
                              "v2' = -x2 - lam\n"
                              "0 = x1 - x2\n"
                              "z0 = [1, 1, 0, 0, 0]\n";

static const char *plant_tv = "problem equations\n"
                              "variables x1 x2 v1 v2 lam\n"
                              "inputs u\n"
                              "outputs y = x1\n"
                              "interval 0 4\n"
                              "x1' = v1\n"
                              "x2' = v2\n"
                              "v1' = -(1 + 0.5*sin(2*t))*x1 + lam + u\n"
                              "v2' = -x2 - 0.2*v2 - lam\n"
                              "0 = x1 - x2\n"
                              "z0 = [1, 1, 0.3, 0.3, 0]\n";

typedef struct cost_data {
  double W[49];
  lth_source *Ws;
  lth_plqr_cost c;
} cost_data;

/* w = (z (5), u, y): weights wu on u^2 and wy on y^2. */
static void make_cost(cost_data *cd, double wu, double wy) {
  memset(cd, 0, sizeof *cd);
  cd->W[5 + 7 * 5] = wu;
  cd->W[6 + 7 * 6] = wy;
  cd->Ws = lth_source_const(7, 7, cd->W, 7, NULL);
  ck_assert(cd->Ws);
  cd->c.W = cd->Ws;
}

START_TEST(test_time_invariant_against_are) {
  lth_problem *pb = read_text(plant_ti);
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_size(sys), 5);
  cost_data cd;
  make_cost(&cd, 0.1, 1.0);
  const double *z0 = z0_of(pb);
  double times[3] = {0.0, 1.0, 20.0};
  lth_plqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_plqr_solve(sys, &cd.c, 0.0, 20.0, z0, times, 3, NULL, &res, &err) == LTH_OK,
                "%s", err.message);
  /* the hand reduction: x = x1 = x2, 2 x'' = -2 x + u */
  double A[4] = {0, -1, 1, 0}, B[2] = {0, 0.5}, Q[4] = {1, 0, 0, 0}, P[4];
  are_2x2(A, B, Q, 0.1, P);
  double Kx = B[1] * P[1] / 0.1, Kv = B[1] * P[3] / 0.1; /* K = R^-1 B'P */
  int s = res->s, ix1 = canon(pb, 0), ix2 = canon(pb, 1), iv1 = canon(pb, 2), iv2 = canon(pb, 3);
  const double *Kz = res->Kz; /* at t = 0, nu = 1: Kz[0 + k] */
  double gx = Kz[ix1] + Kz[ix2], gv = Kz[iv1] + Kz[iv2];
  ck_assert_msg(fabs(gx - Kx) <= 1e-8 * fabs(Kx) && fabs(gv - Kv) <= 1e-8 * fabs(Kv),
                "gain on x %.12g (ARE %.12g), on v %.12g (ARE %.12g)", gx, Kx, gv, Kv);
  ck_assert(Kz[canon(pb, 4)] == 0.0); /* nothing on the multiplier */
  /* J* from x = 1, v = 0 over a long horizon: P(0,0) of the ARE */
  ck_assert_msg(fabs(res->cost - P[0]) <= 1e-8 * P[0], "cost %.12g, ARE %.12g", res->cost, P[0]);
  ck_assert_msg(fabs(res->cost_closed - res->cost) <= 1e-8 * res->cost,
                "closed loop %.12g, reported %.12g", res->cost_closed, res->cost);
  /* the closed loop: u = -Kz z - kz, and z satisfies the constraint */
  for (size_t q = 0; q < res->n; q++) {
    const double *z = res->z + q * (size_t)s;
    double u = -res->kz[q];
    for (int k = 0; k < s; k++) u -= res->Kz[q * (size_t)s + k] * z[k];
    ck_assert(fabs(u - res->u[q]) <= 1e-10 * (1 + fabs(u)));
    ck_assert(fabs(z[ix1] - z[ix2]) <= 1e-10);
    ck_assert(fabs(res->y[q] - z[ix1]) <= 1e-12);
  }
  fprintf(stderr, "plqr, time-invariant: gain error %.2e %.2e, cost %.12g (ARE %.12g), closed %.12g, %zu panels\n",
          fabs(gx - Kx) / fabs(Kx), fabs(gv - Kv) / fabs(Kv), res->cost, P[0], res->cost_closed,
          res->riccati_panels);
  lth_plqr_result_free(res);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_time_varying_cost_consistent) {
  lth_problem *pb = read_text(plant_tv);
  const lth_system *sys = lth_problem_system(pb);
  cost_data cd;
  make_cost(&cd, 0.05, 2.0);
  double F[49] = {0};
  F[6 + 7 * 6] = 3.0; /* final 3 y^2 */
  cd.c.F = F;
  cd.c.cF = 0.25;
  double times[5] = {0.0, 1.0, 2.0, 3.0, 4.0};
  lth_plqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_plqr_opts o;
  lth_plqr_opts_init(&o);
  o.table_tol = 1e-12; /* tighter than the default 1e-11 */
  ck_assert_msg(lth_plqr_solve(sys, &cd.c, 0.0, 4.0, z0_of(pb), times, 5, &o, &res,
                               &err) == LTH_OK,
                "%s", err.message);
  ck_assert_msg(fabs(res->cost_closed - res->cost) <= 1e-8 * res->cost,
                "closed loop %.12g, reported %.12g", res->cost_closed, res->cost);
  /* V(t1) = the final cost: P(t1) weighs y = x, pv = 0, cv = cF */
  ck_assert(fabs(res->cv[4] - 0.25) <= 1e-12);
  fprintf(stderr, "plqr, time-varying: cost %.12g, closed %.12g\n", res->cost, res->cost_closed);
  lth_plqr_result_free(res);
  /* a final cost on u is refused */
  F[5 + 7 * 5] = 1.0;
  lth_error_clear(&err);
  ck_assert(lth_plqr_solve(sys, &cd.c, 0.0, 4.0, z0_of(pb), times, 5, NULL, &res, &err) ==
            LTH_EDATA);
  ck_assert_msg(strstr(err.message, "final cost weighs the inputs"), "%s", err.message);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_refusals) {
  lth_problem *pb = read_text(plant_ti);
  const lth_system *sys = lth_problem_system(pb);
  double times[1] = {0.0};
  lth_plqr_result *res = NULL;
  lth_error err;
  cost_data cd;
  /* R = 0: singular */
  make_cost(&cd, 0.0, 1.0);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_plqr_solve(sys, &cd.c, 0.0, 20.0, z0_of(pb), times, 1, NULL, &res,
                                  &err),
                   LTH_ECOND);
  ck_assert_msg(err.has_t && strstr(err.message, "must be invertible"), "%s", err.message);
  fprintf(stderr, "R = 0 on the linked masses: %s\n", err.message);
  lth_source_free(cd.Ws);
  /* y^2 weighted negatively: a conjugate point, P escapes */
  make_cost(&cd, 0.1, -5.0);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_plqr_solve(sys, &cd.c, 0.0, 20.0, z0_of(pb), times, 1, NULL, &res,
                                  &err),
                   LTH_ENOSOL);
  ck_assert_msg(err.has_t && err.t > 0.0 && err.t < 20.0, "t %g: %s", err.t, err.message);
  fprintf(stderr, "escape: %s\n", err.message);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
  /* an input in the constraint: differentiated by the plant */
  pb = read_text("problem equations\nvariables x1 x2 v1 v2 lam\ninputs u\noutputs y = x1\n"
                 "interval 0 2\nx1' = v1\nx2' = v2\nv1' = -x1 + lam\nv2' = -x2 - lam\n"
                 "0 = x1 - x2 + u\n");
  make_cost(&cd, 0.1, 1.0);
  double z0[5] = {0};
  lth_error_clear(&err);
  ck_assert_int_eq(lth_plqr_solve(lth_problem_system(pb), &cd.c, 0.0, 2.0, z0, times, 1, NULL,
                                  &res, &err),
                   LTH_EDATA);
  ck_assert_msg(strstr(err.message, "the input 1 reaches the plant through its derivatives"), "%s",
                err.message);
  lth_source_free(cd.Ws);
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plqr");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_time_invariant_against_are);
  tcase_add_test(tc, test_time_varying_cost_consistent);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
