/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Singular LQR by collocation (lib/lqr/lqr_colloc.c) cross-checked against the
 * shooting path (lib/lqr/lqr.c) and closed forms: the shipped examples, the
 * double integrator on a long horizon where Psi(t1, t0) spans e^{+-40}, and
 * the fallback to the shooting analysis when no smooth optimum exists. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lqr/lqr_impl.h"
#include "lth/expr.h"
#include "lth/lqr.h"
#include "lth/problem.h"
#include "lqr_di.h"
#include "testutil.h"

static lth_lqr_result *solve(const lth_lqr_spec *spec, lth_lqr_method method, const double *tt,
                             size_t n, lth_status *st, lth_error *err) {
  lth_lqr_opts o;
  lth_lqr_opts_init(&o);
  o.method = method;
  lth_lqr_result *res = NULL;
  lth_error_clear(err);
  *st = lth_lqr_solve(spec, tt, n, &o, &res, err);
  return res;
}

/* max relative difference of two results' trajectories, cost and gain */
static double result_diff(const lth_lqr_result *a, const lth_lqr_result *b) {
  int nx = a->nx, nu = a->nu;
  double d = 0.0, sc = 1e-300;
  for (size_t k = 0; k < a->n * nx; k++) {
    d = fmax(d, fmax(fabs(a->x[k] - b->x[k]), fabs(a->lambda[k] - b->lambda[k])));
    sc = fmax(sc, fmax(fabs(b->x[k]), fabs(b->lambda[k])));
  }
  for (size_t k = 0; k < a->n * nu; k++) {
    d = fmax(d, fabs(a->u[k] - b->u[k]));
    sc = fmax(sc, fabs(b->u[k]));
  }
  for (size_t k = 0; k < a->n * nu * 2 * nx; k++) d = fmax(d, fabs(a->gain[k] - b->gain[k]) / 10);
  d = fmax(d, fabs(a->cost - b->cost));
  return d / fmax(sc, fabs(b->cost));
}

/* Both paths on one problem: identical when there is no smooth unique
 * optimum (the collocation path hands over), within 1e-8 otherwise. */
static void cross_check(const lth_lqr_spec *spec, const double *tt, size_t n, int *smooth,
                        double *x0c) {
  lth_status st1, st2;
  lth_error err;
  lth_lqr_result *a = solve(spec, LTH_LQR_COLLOCATION, tt, n, &st1, &err);
  ck_assert_msg(st1 == LTH_OK, "%s", err.message);
  lth_lqr_result *b = solve(spec, LTH_LQR_SHOOTING, tt, n, &st2, &err);
  ck_assert(st2 == LTH_OK && a->exists == b->exists && a->unique == b->unique);
  double d = result_diff(a, b);
  *smooth = b->exists && b->unique && !b->terminal_impulse;
  if (*smooth) {
    ck_assert_msg(d < 1e-8, "collocation and shooting differ by %.3e", d);
    ck_assert(a->have_trajectory && fabs(a->theorem4 - b->theorem4) < 1e-12 && a->residual < 1e-10);
    ck_assert(isfinite(a->cond_W) && a->cond_W >= 1.0 && a->drift < 1e-13);
  } else {
    ck_assert(d == 0.0);
  }
  memcpy(x0c, b->x0_consistent, sizeof(double) * spec->nx);
  lth_lqr_result_free(a);
  lth_lqr_result_free(b);
}

/* The shipped LQR examples as they are, with C = 0 or C = diag(0.7, 0)
 * (B(t1)' C = 0: no terminal impulse, but lambda(t1) = C x(t1) != 0), and
 * started on the smooth optimal manifold: measured differences 4e-12 and
 * below.  lqr_timevarying has B(t1)' C != 0 (a terminal impulse) and an x0
 * off the manifold. */
START_TEST(test_cross_check_examples) {
  const char *names[] = {"lqr_double_integrator", "lqr_timevarying"};
  int smooth_cases = 0;
  for (int i = 0; i < 6; i++) {
    const char *dir = getenv("LTH_DATA_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.lth", dir ? dir : "data", names[i % 2]);
    lth_problem *pb = NULL;
    lth_error err;
    ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s", err.message);
    const double *tt;
    size_t n = lth_problem_grid(pb, &tt);
    lth_lqr_spec spec = *lth_problem_lqr(pb);
    double C0[4] = {0, 0, 0, 0}, C1[4] = {0.7, 0, 0, 0}, x0c[2];
    if (i >= 2) spec.C = i < 4 ? C0 : C1;
    int smooth;
    cross_check(&spec, tt, n, &smooth, x0c);
    smooth_cases += smooth;
    if (!smooth && i >= 2) { /* start on the manifold: now smooth */
      spec.x0 = x0c;
      cross_check(&spec, tt, n, &smooth, x0c);
      ck_assert(smooth);
      smooth_cases++;
    }
    lth_problem_free(pb);
  }
  ck_assert_int_eq(smooth_cases, 5);
}
END_TEST

/* Double integrator, H = I, C = 0 on [0, T]: x1 = a cosh(T - t), x2 = -a sinh(T - t),
 * u = x1, lambda = (a sinh(T - t), 0), J = a^2 sinh T cosh T / 2 (entries
 * column-major; A and H are symmetric here). */
/* Double integrator, H = I, C = diag(c, 0) (B' C = 0: no terminal impulse) on
 * [0, T]: lambda_2 = 0, x2 = -lambda_1, x1'' = x1 and lambda_1(T) = c x1(T) give
 *     x1 = a (cosh(T - t) + c sinh(T - t)),  x2 = -a (sinh(T - t) + c cosh(T - t)),
 *     u = x1,  lambda_1 = -x2,  J = x0_1 lambda_1(0) / 2;
 * a = 1 / (cosh T + c sinh T), so x1(0) = 1.  For T = 40 the optimum is
 * x1 ~ e^{-t}, but Psi(t1, t0) of the Hamiltonian system holds e^{+-40}.
 * Collocation is exact to 1e-9 with cond_W = O(1).  (The shooting path,
 * measured for c = 0: for T >= 20 its W has cond 3e8 .. 7e15 and it reports
 * "no smooth optimum, not unique".) */
START_TEST(test_long_horizon) {
  const double cs[] = {0.0, 0.7, 0.7}, Ts[] = {40, 40, 2};
  for (int ic = 0; ic < 3; ic++) {
    double T = Ts[ic], c = cs[ic], a = 1.0 / (cosh(T) + c * sinh(T));
    lqr_problem pb;
    lqr_double_integrator(&pb, T, 1.0, -a * (sinh(T) + c * cosh(T)));
    pb.C[0] = c;
    double tt[] = {0, 1, 5, 10, 20, 39, 40};
    if (T == 2) { /* the closed form on [0, 2] */
      for (int k = 0; k < 7; k++) tt[k] = k / 3.0;
    }
    lth_status st;
    lth_error err;
    lth_lqr_opts o;
    lth_lqr_opts_init(&o);
    lth_lqr_result *res = NULL;
    st = lth_lqr_colloc_smooth(&pb.spec, tt, 7, &o, &res, &err); /* no hand-over */
    ck_assert_msg(st == LTH_OK, "c = %g, T = %g: %s", c, T, err.message);
    ck_assert_msg(res->exists && res->unique, "c = %g: exists %d unique %d", c, res->exists,
                  res->unique);
    for (int k = 0; k < 7; k++) {
      double s = T - tt[k], x1 = a * (cosh(s) + c * sinh(s)), x2 = -a * (sinh(s) + c * cosh(s));
      ck_assert_msg(fabs(res->x[2 * k] - x1) < 1e-9 && fabs(res->x[2 * k + 1] - x2) < 1e-9,
                    "c = %g, t = %g: x = %.17g %.17g vs %.17g %.17g", c, tt[k], res->x[2 * k],
                    res->x[2 * k + 1], x1, x2);
      ck_assert(fabs(res->lambda[2 * k] + x2) < 1e-9 && fabs(res->lambda[2 * k + 1]) < 1e-9);
      ck_assert(fabs(res->u[k] - x1) < 1e-9);
    }
    double J = -0.5 * res->x[0] * (-a * (sinh(T) + c * cosh(T)));
    ck_assert_msg(fabs(res->cost - J) < 1e-9, "cost %.17g vs %.17g", res->cost, J);
    ck_assert(res->cond_W < 10);
    lth_lqr_result_free(res);
    lqr_problem_free(&pb);
  }
}
END_TEST

/* x0 = (1, 0) is not on the smooth optimal manifold x2 = -x1 tanh(T - t):
 * no smooth optimum; the collocation path returns the shooting path's
 * analysis (the impulse at t0 and the arc after it) unchanged. */
START_TEST(test_fallback_inconsistent) {
  lqr_problem pb;
  lqr_double_integrator(&pb, 2.0, 1.0, 0.0);
  double tt[] = {0, 0.5, 2};
  lth_status st1, st2;
  lth_error err;
  lth_lqr_result *a = solve(&pb.spec, LTH_LQR_COLLOCATION, tt, 3, &st1, &err);
  lth_lqr_result *b = solve(&pb.spec, LTH_LQR_SHOOTING, tt, 3, &st2, &err);
  ck_assert(st1 == LTH_OK && st2 == LTH_OK);
  ck_assert(!a->exists && a->jump_in_range_B && a->have_trajectory);
  ck_assert(result_diff(a, b) == 0.0 && a->x0_consistent[1] == b->x0_consistent[1]);
  lth_lqr_result_free(a);
  lth_lqr_result_free(b);
  lqr_problem_free(&pb);
}
END_TEST

static Suite *lqr_colloc_suite(void) {
  Suite *s = suite_create("lqr_colloc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_cross_check_examples);
  tcase_add_test(tc, test_long_horizon);
  tcase_add_test(tc, test_fallback_inconsistent);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(lqr_colloc_suite)
