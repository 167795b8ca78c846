/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Kalman-Bucy filter of a DAE plant (lth_kalman_solve, include/lth/kalman.h):
 * (1) two masses on springs held together by a rigid link (index 3), process
 *     noise as the force on one (intensity W = 1), the position x1 measured
 *     with noise of intensity V = 0.1: over a long horizon the covariance of
 *     the unknowns' estimate and the gain equal those of the algebraic
 *     Riccati equation of the hand-reduced ODE x'' = -x + w/2 (the dual of
 *     the LQR's: Hamiltonian eigenvectors, LAPACK dgeev);
 * (2) Sigma stays symmetric positive semidefinite, and the initial
 *     covariance is Q'(I - P) Sigma0_z (I - P)'Q;
 * (3) refusals: V = 0 (not positive definite, named t), a noise index that
 *     is not an input, a plant without outputs. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <check.h>
#include <math.h>
#include <string.h>

#include "lth/kalman.h"
#include "plantlq.h"

static const char *plant = "problem equations\n"
                           "variables x1 x2 v1 v2 lam\n"
                           "inputs w\n"
                           "outputs y = x1\n"
                           "interval 0 30\n"
                           "x1' = v1\n"
                           "x2' = v2\n"
                           "v1' = -x1 + lam + w\n"
                           "v2' = -x2 - lam\n"
                           "0 = x1 - x2\n";

START_TEST(test_steady_state_against_are) {
  lth_problem *pb = read_text(plant);
  const lth_system *sys = lth_problem_system(pb);
  int s = lth_system_size(sys);
  double Vv = 0.1, S0[25] = {0};
  for (int k = 0; k < s; k++) S0[k + 5 * k] = 0.5;
  lth_source *V = lth_source_const(1, 1, &Vv, 1, NULL);
  int noise[1] = {0};
  lth_kalman_spec spec = {.nw = 1, .noise = noise, .W = NULL, .V = V, .Sigma0_z = S0};
  double times[3] = {0.0, 1.0, 30.0};
  lth_kalman_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_kalman_opts o;
  lth_kalman_opts_init(&o);
  ck_assert_msg(lth_kalman_solve(sys, &spec, 0.0, 30.0, times, 3, &o, &res, &err) == LTH_OK, "%s",
                err.message);
  /* the dual ARE: A' -> A, C' -> B, B W B' -> Q, V -> R */
  double At[4] = {0, 1, -1, 0}, Ct[2] = {1, 0}, BWB[4] = {0, 0, 0, 0.25}, Sh[4];
  are_2x2(At, Ct, BWB, Vv, Sh);
  int ix = canon(pb, 0), iv = canon(pb, 2);
  const double *Sz = res->Sigma_z + 2 * (size_t)s * s; /* at t = 30 */
  double e = fmax(fabs(Sz[ix + s * ix] - Sh[0]), fmax(fabs(Sz[iv + s * iv] - Sh[3]),
                                                      fabs(Sz[ix + s * iv] - Sh[2])));
  ck_assert_msg(e <= 1e-8 * fabs(Sh[0]), "Sigma_z against the ARE: %.3e (%g %g %g vs %g %g %g)", e,
                Sz[ix + s * ix], Sz[iv + s * iv], Sz[ix + s * iv], Sh[0], Sh[3], Sh[2]);
  /* the gain on the unknowns: Z L = Sigma_h C' / V */
  int p = res->p;
  lth_ss *ss = lth_ss_alloc(sys, NULL, NULL);
  lth_ss_point *pt = lth_ss_point_alloc(ss, NULL);
  TU_ASSERT_OK(lth_ss_at(ss, 30.0, pt, NULL));
  /* (the basis starts at t0 = 0 in both: the same Q(30)) */
  double zl_x = 0.0, zl_v = 0.0;
  const double *L = res->L + 2 * (size_t)p;
  for (int a = 0; a < p; a++) {
    zl_x += pt->Z[ix + (size_t)a * s] * L[a];
    zl_v += pt->Z[iv + (size_t)a * s] * L[a];
  }
  ck_assert_msg(fabs(zl_x - Sh[0] / Vv) <= 1e-7 * fabs(Sh[0] / Vv) &&
                    fabs(zl_v - Sh[1] / Vv) <= 1e-7 * fabs(Sh[0] / Vv),
                "gain %g %g, ARE %g %g", zl_x, zl_v, Sh[0] / Vv, Sh[1] / Vv);
  /* symmetric, positive semidefinite (2 x 2 here: trace and determinant) */
  for (size_t q = 0; q < res->n; q++) {
    const double *S = res->Sigma + q * (size_t)p * p;
    ck_assert_int_eq(p, 2);
    ck_assert(S[1] == S[2] && S[0] >= 0 && S[3] >= 0 && S[0] * S[3] - S[1] * S[2] >= -1e-14);
  }
  fprintf(stderr, "kalman: Sigma_z(30) - ARE %.2e, gain %.6g %.6g (ARE %.6g %.6g)\n", e, zl_x, zl_v,
          Sh[0] / Vv, Sh[1] / Vv);
  lth_ss_point_free(pt);
  lth_ss_free(ss);
  lth_kalman_result_free(res);
  /* refusals: V = 0; a noise input that is not one */
  double zero = 0.0;
  lth_source *V0 = lth_source_const(1, 1, &zero, 1, NULL);
  spec.V = V0;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_kalman_solve(sys, &spec, 0.0, 30.0, times, 3, NULL, &res, &err), LTH_ESING);
  ck_assert(err.has_t);
  spec.V = V;
  noise[0] = 3;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_kalman_solve(sys, &spec, 0.0, 30.0, times, 3, NULL, &res, &err), LTH_EINVAL);
  lth_source_free(V0);
  lth_source_free(V);
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("kalman");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_steady_state_against_are);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
