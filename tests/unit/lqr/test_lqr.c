/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Singular LQR (Clark section 4.2): a closed-form optimum, inconsistent x0
 * (impulse), an independent direct transcription (discretised dynamics +
 * quadratic cost, dense KKT with LAPACKE) on refined grids with C != 0 and
 * time-varying A, B, H, the regularised problem R = eps I through its Riccati
 * equation (GSL) as eps -> 0, and B'HB singular. */
#include <check.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/expr.h"
#include "lth/lqr.h"
#include "lqr_di.h"
#include "testutil.h"

static void value(const lth_source *s, double t, double *out) {
  lth_jet J = lth_jet_wrap(out, lth_source_rows(s), lth_source_cols(s), lth_source_rows(s),
                           (size_t)lth_source_rows(s) * lth_source_cols(s), 0);
  double work[256];
  ck_assert_int_eq(lth_source_fill(s, t, 0, &J, work, NULL), LTH_OK);
}

/* ---- double integrator, H = I, C = 0 on [0, T]: singular arc x2 = -x1 tanh(T - t) ----
 * x1 = a cosh(T - t), x2 = -a sinh(T - t), u = x1, lambda = (a sinh(T - t), 0),
 * J = a^2 sinh T cosh T / 2. */
START_TEST(test_closed_form_double_integrator) {
  const double T = 1.3, a = 0.7;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, a * cosh(T), -a * sinh(T));
  double times[] = {0, 0.4, 0.9, T};
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_lqr_solve(&pb.spec, times, 4, NULL, &res, &err) == LTH_OK, "%s", err.message);
  ck_assert(res->exists && res->unique && res->have_trajectory);
  for (int k = 0; k < 4; k++) {
    double s = T - times[k], x1 = a * cosh(s), x2 = -a * sinh(s);
    double ex[] = {x1, x2}, el[] = {a * sinh(s), 0.0};
    for (int i = 0; i < 2; i++) {
      ck_assert_msg(fabs(res->x[k * 2 + i] - ex[i]) < 1e-9, "x%d(%g)", i + 1, times[k]);
      ck_assert_msg(fabs(res->lambda[k * 2 + i] - el[i]) < 1e-9, "lambda%d(%g) = %.17g vs %.17g",
                    i + 1, times[k], res->lambda[k * 2 + i], el[i]);
    }
    ck_assert_msg(fabs(res->u[k] - x1) < 1e-9, "u(%g) = %.17g vs %.17g", times[k], res->u[k], x1);
    /* closed loop (Theorem 6): u = K [x; lambda] */
    double uk = 0;
    for (int j = 0; j < 4; j++)
      uk += res->gain[k * 4 + j] * (j < 2 ? res->x[k * 2 + j] : res->lambda[k * 2 + j - 2]);
    ck_assert(fabs(uk - res->u[k]) < 1e-10);
  }
  double J = a * a * sinh(T) * cosh(T) / 2;
  ck_assert_msg(fabs(res->cost - J) < 1e-9 * J, "cost %.17g vs %.17g", res->cost, J);
  ck_assert(res->theorem4 < 1e-14); /* H = I: P_1' = P_2 exactly */
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* x0 = (1, 0) is off the arc: no smooth optimum; the impulse u = nu delta
 * moves x2 to -tanh(T) (x1 stays), and the arc from there costs
 * cosh T sinh T / (2 cosh^2 T) = tanh(T) / 2. */
START_TEST(test_inconsistent_x0_impulse) {
  const double T = 1.3;
  lqr_problem pb;
  lqr_double_integrator(&pb, T, 1.0, 0.0);
  double times[] = {0, T};
  lth_lqr_result *res = NULL;
  ck_assert_int_eq(lth_lqr_solve(&pb.spec, times, 2, NULL, &res, NULL), LTH_OK);
  ck_assert(!res->exists && res->residual > 1e-3);
  ck_assert(res->jump_in_range_B);
  ck_assert(fabs(res->x0_consistent[0] - 1.0) < 1e-9);
  ck_assert(fabs(res->x0_consistent[1] + tanh(T)) < 1e-9);
  ck_assert(fabs(res->jump[0]) < 1e-9 && fabs(res->jump[1] + tanh(T)) < 1e-9);
  ck_assert(res->have_trajectory && fabs(res->x[1] + tanh(T)) < 1e-9);
  ck_assert_msg(fabs(res->cost - tanh(T) / 2) < 1e-9, "cost after the jump %.17g", res->cost);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* ---- time-varying problem with C != 0 ----
 * general = 1: C couples with B(t1) (B'C != 0), so the optimum also jumps at t1;
 * general = 0: C = diag(0.4, 0), B(t1)'C = 0, no terminal impulse. */
static void time_varying(lqr_problem *pb, int general) {
  static const char *A[] = {"0", "1", "-(1 + 0.5*sin(t))", "-0.1"}, *B[] = {"0", "1 + 0.2*cos(t)"},
                    *H[] = {"1 + 0.3*sin(2*t)", "0.1", "0.1", "0.5"};
  pb->A = lqr_src(2, 2, A);
  pb->B = lqr_src(2, 1, B);
  pb->H = lqr_src(2, 2, H);
  double C1[] = {0.4, 0.1, 0.1, 0.3}, C0[] = {0.4, 0.0, 0.0, 0.0};
  memcpy(pb->C, general ? C1 : C0, sizeof pb->C);
  pb->x0[0] = 1.0;
  pb->x0[1] = 0.0;
  pb->spec = (lth_lqr_spec){.nx = 2,
                            .nu = 1,
                            .t0 = 0.0,
                            .t1 = 1.5,
                            .A = pb->A,
                            .B = pb->B,
                            .H = pb->H,
                            .C = pb->C,
                            .x0 = pb->x0};
}

/* Direct transcription: x_{k+1} = x_k + h/2 (A_k x_k + A_{k+1} x_{k+1}) + h B_{k+1/2} u_k,
 * J = 1/2 x_N' C x_N + h/2 sum_k w_k x_k' H_k x_k (trapezoid), solved as one
 * dense KKT system with LAPACKE.  Returns J and x at the grid points. */
static double transcription(const lqr_problem *pb, int N, double *xs) {
  const int nx = 2, nu = 1;
  double t0 = pb->spec.t0, h = (pb->spec.t1 - t0) / N;
  int nv = N * (nx + nu), nc = N * nx, n = nv + nc;
  double *K = calloc((size_t)n * n, sizeof(double)), *rhs = calloc((size_t)n, sizeof(double));
  lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)n);
#define XI(k, i) (((k)-1) * nx + (i))    /* x_k, k = 1..N */
#define UI(k, i) (N * nx + (k)*nu + (i)) /* u_k, k = 0..N-1 */
#define KK(r, c) K[(size_t)(r) + (size_t)(c)*n]
  for (int k = 1; k <= N; k++) { /* Hessian: trapezoid weights and C */
    double Hk[4], w = k == N ? 0.5 : 1.0;
    value(pb->H, t0 + k * h, Hk);
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < nx; j++)
        KK(XI(k, i), XI(k, j)) = h * w * Hk[i + j * nx] + (k == N ? pb->C[i + j * nx] : 0.0);
  }
  for (int k = 0; k < N; k++) { /* dynamics rows */
    double A0[4], A1[4], Bm[2];
    value(pb->A, t0 + k * h, A0);
    value(pb->A, t0 + (k + 1) * h, A1);
    value(pb->B, t0 + (k + 0.5) * h, Bm);
    for (int i = 0; i < nx; i++) {
      int r = nv + k * nx + i;
      for (int j = 0; j < nx; j++) {
        double c1 = (i == j) - 0.5 * h * A1[i + j * nx];  /* x_{k+1} */
        double c0 = -(i == j) - 0.5 * h * A0[i + j * nx]; /* x_k */
        KK(r, XI(k + 1, j)) += c1;
        KK(XI(k + 1, j), r) += c1;
        if (k > 0) {
          KK(r, XI(k, j)) += c0;
          KK(XI(k, j), r) += c0;
        } else {
          rhs[r] -= c0 * pb->x0[j];
        }
      }
      KK(r, UI(k, 0)) = -h * Bm[i];
      KK(UI(k, 0), r) = -h * Bm[i];
    }
  }
  ck_assert_int_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, K, n, ipiv, rhs, n), 0);
  double J = 0;
  for (int k = 0; k <= N; k++) {
    double xk[2] = {k == 0 ? pb->x0[0] : rhs[XI(k, 0)], k == 0 ? pb->x0[1] : rhs[XI(k, 1)]};
    double Hk[4], w = (k == 0 || k == N) ? 0.5 : 1.0;
    value(pb->H, t0 + k * h, Hk);
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < nx; j++) J += 0.5 * h * w * xk[i] * Hk[i + j * nx] * xk[j];
    if (xs) {
      xs[2 * k] = xk[0];
      xs[2 * k + 1] = xk[1];
    }
    if (k == N)
      for (int i = 0; i < nx; i++)
        for (int j = 0; j < nx; j++) J += 0.5 * xk[i] * pb->C[i + j * nx] * xk[j];
  }
#undef XI
#undef UI
#undef KK
  free(K);
  free(rhs);
  free(ipiv);
  return J;
}

/* lth's cost and state against direct transcription on N = 100, 200, 400:
 * the gaps must shrink at the observed order q (at least 1) and the
 * Richardson extrapolation of the transcription costs must match lth. */
static void check_transcription(lqr_problem *pb, const lth_lqr_result *res, double tol_rich) {
  double J = res->cost, Jq[3], dx[3];
  int Ns[] = {100, 200, 400};
  for (int q = 0; q < 3; q++) {
    double *xs = malloc(sizeof(double) * 2 * (Ns[q] + 1));
    Jq[q] = transcription(pb, Ns[q], xs);
    dx[q] = fmax(fabs(xs[Ns[q]] - res->x[2]), fabs(xs[Ns[q] + 1] - res->x[3])); /* t = 0.75 */
    free(xs);
  }
  double order = log2((Jq[0] - Jq[1]) / (Jq[1] - Jq[2]));
  double rich = Jq[2] + (Jq[2] - Jq[1]) / (pow(2, order) - 1);
  ck_assert_msg(order > 0.9 && fabs(Jq[2] - J) < fabs(Jq[0] - J) && fabs(rich - J) < tol_rich * J,
                "transcription costs %.10f %.10f %.10f (order %.2f, extrapolated %.10f) vs %.10f",
                Jq[0], Jq[1], Jq[2], order, rich, J);
  /* states converge too (first order with impulses: measured 5.5e-3, 2.7e-3, 1.4e-3) */
  ck_assert_msg(dx[1] < 0.6 * dx[0] && dx[2] < 0.6 * dx[1] && dx[2] < 2e-3,
                "state gaps %.2e %.2e %.2e", dx[0], dx[1], dx[2]);
}

/* C != 0 compatible with B(t1) and a consistent x0: a smooth optimum. */
START_TEST(test_direct_transcription_smooth) {
  lqr_problem pb;
  time_varying(&pb, 0);
  double times[] = {0, 0.75, 1.5};
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_lqr_solve(&pb.spec, times, 3, NULL, &res, &err) == LTH_OK, "%s", err.message);
  ck_assert(!res->exists && res->jump_in_range_B && !res->terminal_impulse);
  memcpy(pb.x0, res->x0_consistent, sizeof pb.x0); /* start on the manifold */
  lth_lqr_result_free(res);
  ck_assert_int_eq(lth_lqr_solve(&pb.spec, times, 3, NULL, &res, NULL), LTH_OK);
  ck_assert(res->exists && res->unique && !res->terminal_impulse);
  ck_assert(res->theorem4 < 1e-13);
  /* lambda(t1) = C x(t1): the natural boundary condition with docs/theory.md's sign */
  for (int i = 0; i < 2; i++) {
    double cx = pb.C[i] * res->x[4] + pb.C[i + 2] * res->x[5];
    ck_assert(fabs(res->lambda[4 + i] - cx) < 1e-9);
  }
  check_transcription(&pb, res, 1e-6);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* General C and x0: impulses at both ends; the reported cost is the infimum,
 * which the transcription approaches with steep controls at the ends. */
START_TEST(test_direct_transcription_impulses) {
  lqr_problem pb;
  time_varying(&pb, 1);
  double times[] = {0, 0.75, 1.5};
  lth_lqr_result *res = NULL;
  ck_assert_int_eq(lth_lqr_solve(&pb.spec, times, 3, NULL, &res, NULL), LTH_OK);
  ck_assert(!res->exists && res->jump_in_range_B && res->terminal_impulse);
  ck_assert(fabs(res->jump[0]) < 1e-12); /* the jump is along B(0) = (0, 1.2) */
  /* first-order transcription (impulses become one steep step); measured:
   * extrapolated 0.3256988393 vs lth 0.3256983783, 1.4e-6 relative */
  check_transcription(&pb, res, 1e-5);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* ---- R = eps I: Riccati -S' = A'S + SA - S B B' S / eps + H, S(t1) = C ---- */
typedef struct {
  const lqr_problem *pb;
  double eps;
} riccati_ctx;

static int riccati_rhs(double t, const double y[], double dydt[], void *params) {
  riccati_ctx *rc = params;
  double A[4], B[2], H[4];
  value(rc->pb->A, t, A);
  value(rc->pb->B, t, B);
  value(rc->pb->H, t, H);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double v = H[i + 2 * j], sb_i = 0, sb_j = 0;
      for (int k = 0; k < 2; k++) {
        v += A[k + 2 * i] * y[k + 2 * j] + y[i + 2 * k] * A[k + 2 * j];
        sb_i += y[i + 2 * k] * B[k];
        sb_j += y[j + 2 * k] * B[k];
      }
      dydt[i + 2 * j] = -(v - sb_i * sb_j / rc->eps);
    }
  return GSL_SUCCESS;
}

static double riccati_cost(const lqr_problem *pb, double eps) {
  riccati_ctx rc = {pb, eps};
  gsl_odeiv2_system sys = {riccati_rhs, NULL, 4, &rc};
  gsl_odeiv2_driver *d =
      gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, -1e-6, 1e-12, 1e-10);
  double y[4], t = pb->spec.t1;
  memcpy(y, pb->C, sizeof y);
  ck_assert_int_eq(gsl_odeiv2_driver_apply(d, &t, pb->spec.t0, y), GSL_SUCCESS);
  gsl_odeiv2_driver_free(d);
  const double *x = pb->spec.x0;
  return 0.5 * (x[0] * (y[0] * x[0] + y[2] * x[1]) + x[1] * (y[1] * x[0] + y[3] * x[1]));
}

START_TEST(test_regularised_riccati_trend) {
  lqr_problem pb;
  time_varying(&pb, 1);
  double t1 = 1.5;
  lth_lqr_result *res = NULL;
  ck_assert_int_eq(lth_lqr_solve(&pb.spec, &t1, 1, NULL, &res, NULL), LTH_OK);
  double J = res->cost, gap[5], eps[5] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  for (int k = 0; k < 5; k++) gap[k] = riccati_cost(&pb, eps[k]) - J;
  /* J_eps >= J (the regularised cost adds eps |u|^2) and -> J like sqrt(eps) */
  for (int k = 0; k < 5; k++) {
    ck_assert_msg(gap[k] > -1e-9, "J_eps < J at eps %.0e: %.3e", eps[k], gap[k]);
    if (k > 0)
      ck_assert_msg(gap[k] < 0.6 * gap[k - 1], "gap not shrinking: %.3e -> %.3e", gap[k - 1],
                    gap[k]);
  }
  ck_assert_msg(gap[4] < 1e-2 * J && gap[0] / gap[4] > 30, "gaps %.3e .. %.3e (J = %.6f)", gap[0],
                gap[4], J);
  lth_lqr_result_free(res);
  lqr_problem_free(&pb);
}
END_TEST

/* B'HB = t - 0.5 vanishes inside the interval: an error naming t. */
START_TEST(test_singular_BHB_rejected) {
  static const char *A[] = {"0", "1", "0", "0"}, *B[] = {"0", "1"},
                    *H[] = {"1", "0", "0", "t - 0.5"};
  lqr_problem pb;
  pb.A = lqr_src(2, 2, A);
  pb.B = lqr_src(2, 1, B);
  pb.H = lqr_src(2, 2, H);
  memset(pb.C, 0, sizeof pb.C);
  pb.x0[0] = 1;
  pb.x0[1] = 0;
  pb.spec = (lth_lqr_spec){.nx = 2,
                           .nu = 1,
                           .t0 = 0.0,
                           .t1 = 1.0,
                           .A = pb.A,
                           .B = pb.B,
                           .H = pb.H,
                           .C = pb.C,
                           .x0 = pb.x0};
  double t1 = 1.0;
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_lqr_solve(&pb.spec, &t1, 1, NULL, &res, &err);
  ck_assert_msg(st == LTH_ECOND || st == LTH_ESING, "status %d: %s", st, err.message);
  ck_assert_msg(err.has_t && fabs(err.t - 0.5) < 0.05, "t = %g", err.t);
  ck_assert(strstr(err.message, "B'H B") != NULL);
  lqr_problem_free(&pb);
}
END_TEST

static Suite *lqr_suite(void) {
  Suite *s = suite_create("lqr");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_closed_form_double_integrator);
  tcase_add_test(tc, test_inconsistent_x0_impulse);
  tcase_add_test(tc, test_direct_transcription_smooth);
  tcase_add_test(tc, test_direct_transcription_impulses);
  tcase_add_test(tc, test_regularised_riccati_trend);
  tcase_add_test(tc, test_singular_BHB_rejected);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(lqr_suite)
