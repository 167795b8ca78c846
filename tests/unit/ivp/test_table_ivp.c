/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The coefficient table inside the integrator (lib/ivp/ivp_coef.c): the default
 * (auto = table for exact data) gives the direct path's solutions with far
 * fewer decompositions for index 2..6; Pi singular inside the span is refused
 * naming t; auto goes over to direct decompositions where the table does not
 * pay; a stiff problem (reduced-ODE eigenvalues near -1e6) with the stiff
 * steppers and table Jacobians; sampled data: the Hermite order reported and
 * the interpolation at least as accurate as the fits themselves; few output
 * times decomposed directly, many read from the table, both as accurate; the
 * scan of Pi running beside the integration gives the same answers and the
 * same refusals as run before it. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ivp/ivp_impl.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "lth/samples.h"
#include "pulse_problem.h"
#include "testsys.h"
#include "testutil.h"

static double solution_error(ts_sys *S, const lth_ivp_result *res) {
  double err = 0.0, scale = 1.0, z[64];
  for (size_t k = 0; k < res->n; k++) {
    ts_z_coef(S, res->times[k], 0, z);
    for (int i = 0; i < S->s; i++) {
      err = fmax(err, fabs(res->z[k * S->s + i] - z[i]));
      scale = fmax(scale, fabs(z[i]));
    }
  }
  return err / scale;
}

static lth_ivp_result *solve(ts_sys *S, lth_system *sys, double t1, double rtol, int method,
                             lth_ivp_coefficients coef) {
  double z0[64], times[20];
  ts_z_coef(S, 0.0, 0, z0);
  for (int k = 0; k < 20; k++) times[k] = t1 * (k + 1) / 20.0;
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol * 1e-2;
  o.method = method;
  o.coefficients = coef;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 20, &o, &res, &err) == LTH_OK, "%s (t=%g)",
                err.message, err.t);
  return res;
}

/* Measured (rtol 1e-10, [0, 6]): errors equal to 2 digits, decompositions
 * 9x .. 15x fewer. */
START_TEST(test_default_is_table_and_matches_direct) {
  int ns[][6] = {{3, 1}, {2, 3, 1}, {3, 3, 2, 2}, {2, 2, 2, 2, 1}, {3, 2, 2, 3, 2, 1}};
  for (int r = 2; r <= 6; r++) {
    ts_sys *S = ts_new(r, ns[r - 2], 800 + r, 0.2, 1);
    lth_system *sys = ts_system(S);
    lth_ivp_result *t = solve(S, sys, 6.0, 1e-10, LTH_IVP_RK8PD, LTH_COEF_AUTO);
    lth_ivp_result *d = solve(S, sys, 6.0, 1e-10, LTH_IVP_RK8PD, LTH_COEF_DIRECT);
    double et = solution_error(S, t), ed = solution_error(S, d);
    ck_assert_int_eq(t->coef_mode, LTH_COEF_TABLE);
    ck_assert_int_eq(d->coef_mode, LTH_COEF_DIRECT);
    ck_assert_msg(et <= 1.1 * ed + 1e-14 && et < 1e-8, "index %d: table %.3e, direct %.3e", r, et,
                  ed);
    ck_assert_msg(5 * t->decomps < d->decomps, "index %d: decompositions %zu vs %zu", r, t->decomps,
                  d->decomps);
    ck_assert(t->table_panels > 0 && t->coef_order >= 9 && t->coef_error < 1e-12);
    ck_assert(t->table_end == 6.0 && isnan(d->table_end) && d->coef_order == -1);
    ck_assert(t->drift < 1e-10);
    lth_ivp_result_free(t);
    lth_ivp_result_free(d);
    lth_system_free(sys);
    ts_free(S);
  }
}
END_TEST

/* Index 2, blocks (2, 1), Pi = A21 A12 = t - 0.3137: singular inside [0, 1]. */
static int a21_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  for (int k = 0; k <= order; k++) {
    coef[k * stride] = k == 0 ? t - 0.3137 : (k == 1 ? 1.0 : 0.0);
    coef[k * stride + ld] = k == 0 ? 0.5 : 0.0;
  }
  return 0;
}

START_TEST(test_singular_pi_refused) {
  int n[] = {2, 1};
  double a11[] = {0, -1, 1, 0}, a12[] = {1, 0};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_system_set_A(sys, 1, 1, lth_source_const(2, 2, a11, 2, NULL), NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_callback(1, 2, a21_cb, NULL, NULL), NULL);
  double z0[3] = {1.0, 0.6274, 0.0}, t1 = 1.0;
  for (int mode = LTH_COEF_AUTO; mode <= LTH_COEF_TABLE; mode += 2) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.coefficients = mode;
    o.project = 1;
    lth_ivp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    lth_status st = lth_ivp_solve(sys, 0.0, z0, &t1, 1, &o, &res, &err);
    ck_assert_msg(st == LTH_ESING || st == LTH_ECOND, "%s: status %d",
                  lth_ivp_coefficients_name(mode), st);
    ck_assert_msg(err.has_t && fabs(err.t - 0.3137) < 1e-6, "t = %.17g: %s", err.t, err.message);
    ck_assert(res == NULL);
  }
  lth_system_free(sys);
}
END_TEST

/* A(1,1)[0][0] plus 1e-7 sin(300 t): the table must resolve it (thousands of
 * nodes), the integrator hardly sees it (it moves the solution by ~1e-10).  Auto leaves the
 * table after a few panels (narrow panels are left to direct decomposition,
 * TAB_DIRECT_WIDTH, so it takes a little longer to see that the table does not
 * pay); the solution is the direct path's and the cost stays near it. */
typedef struct wiggle {
  ts_sys *S;
  struct ts_blk blk;
} wiggle;

static int wiggle_a11(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  wiggle *W = ctx;
  int rc = ts_A_cb(&W->blk, t, order, coef, ld, stride);
  double f = 1.0, w = 300.0;
  for (int k = 0; k <= order; k++) {
    if (k) f *= k;
    coef[k * stride] += 1e-7 * pow(w, k) * sin(w * t + k * M_PI / 2) / f;
  }
  return rc;
}

START_TEST(test_auto_falls_back_where_the_table_does_not_pay) {
  int n[] = {3, 1};
  wiggle W = {ts_new(2, n, 861, 0.2, 1), {0}};
  ts_sys *S = W.S;
  W.blk = (struct ts_blk){S, 1, 1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  S->blk[0] = (struct ts_blk){S, 1, 2};
  S->blk[1] = (struct ts_blk){S, 1, 0};
  S->blk[2] = (struct ts_blk){S, 2, 1};
  S->blk[3] = (struct ts_blk){S, 2, 0};
  lth_system_set_A(sys, 1, 1, lth_source_callback(3, 3, wiggle_a11, &W, NULL), NULL);
  lth_system_set_A(sys, 1, 2, lth_source_callback(3, 1, ts_A_cb, &S->blk[0], NULL), NULL);
  lth_system_set_f(sys, 1, lth_source_callback(3, 1, ts_f_cb, &S->blk[1], NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_callback(1, 3, ts_A_cb, &S->blk[2], NULL), NULL);
  lth_system_set_f(sys, 2, lth_source_callback(1, 1, ts_f_cb, &S->blk[3], NULL), NULL);
  lth_ivp_result *a = solve(S, sys, 10.0, 1e-6, LTH_IVP_RK8PD, LTH_COEF_AUTO);
  lth_ivp_result *d = solve(S, sys, 10.0, 1e-6, LTH_IVP_RK8PD, LTH_COEF_DIRECT);
  ck_assert_msg(a->table_end < 5.0, "the table went on to %g (%zu decompositions, %zu rhs)",
                a->table_end, a->decomps, a->rhs_evals);
  ck_assert_msg(a->decomps < 3 * d->decomps, "%zu decompositions, direct %zu", a->decomps,
                d->decomps);
  double ea = solution_error(S, a), ed = solution_error(S, d);
  /* both solve the problem to the integrator's accuracy (the steps differ a little) */
  ck_assert_msg(ea < 1e-5 && ed < 1e-5, "errors %.3e vs %.3e", ea, ed);
  lth_ivp_result_free(a);
  lth_ivp_result_free(d);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* A table whose work arrays exceed its memory budget (table_max_bytes,
 * counted before allocating): auto serves the whole span by direct
 * decompositions and says so (table_end = t0, no panels), with the direct
 * path's solution; the table mode refuses (LTH_ENOMEM naming the budget). */
START_TEST(test_auto_direct_when_the_table_does_not_fit) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 931, 0.2, 1);
  lth_system *sys = ts_system(S);
  double z0[64], times[5] = {0.5, 1.0, 1.5, 2.0, 2.5};
  ts_z_coef(S, 0.0, 0, z0);
  lth_ivp_result *res[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.method = LTH_IVP_RK8PD; /* (the default, cheb, decomposes directly under auto) */
    o.coefficients = k == 0 ? LTH_COEF_AUTO : LTH_COEF_DIRECT;
    o.table_max_bytes = 1000;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 5, &o, &res[k], &err) == LTH_OK, "%s",
                  err.message);
  }
  ck_assert_int_eq(res[0]->coef_mode, LTH_COEF_TABLE);
  ck_assert_msg(res[0]->table_panels == 0 && res[0]->table_end == 0.0, "%zu panels, end %g",
                res[0]->table_panels, res[0]->table_end);
  ck_assert_int_eq(res[0]->decomps, res[1]->decomps);
  double d = 0.0, scale = 1.0;
  for (size_t i = 0; i < 5 * (size_t)S->s; i++) {
    d = fmax(d, fabs(res[0]->z[i] - res[1]->z[i]));
    scale = fmax(scale, fabs(res[1]->z[i]));
  }
  ck_assert_msg(d <= 1e-13 * scale, "auto and direct differ by %.3e", d);
  ck_assert_msg(solution_error(S, res[0]) < 1e-8, "error %.3e", solution_error(S, res[0]));
  lth_ivp_result_free(res[0]);
  lth_ivp_result_free(res[1]);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.coefficients = LTH_COEF_TABLE;
  o.table_max_bytes = 1000;
  lth_ivp_result *r = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_ivp_solve(sys, 0.0, z0, times, 5, &o, &r, &err), LTH_ENOMEM);
  ck_assert_msg(strstr(err.message, "memory budget") != NULL, "%s", err.message);
  lth_ivp_result_free(r);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Stiff: index 3 with -1e6 added on the state diagonal of A_11, A_22 (the
 * chain blocks constant and diagonal, so the reduced ODE has eigenvalues near
 * -1e6 and the constraints do not see them); the manufactured solution stays
 * smooth.  msbdf and bsimp with the table's Jacobian (Ahat, Ahat', g'
 * interpolated) reach it. */
START_TEST(test_stiff_with_table_jacobian) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 871, 0.0, 1);
  for (int i = 1; i <= 2; i++)
    for (int ii = 1; ii < 3; ii++) {
      int g = S->off[i - 1] + ii;
      S->A[g + g * S->s].c0 -= 1e6;
    }
  lth_system *sys = ts_system(S);
  const int methods[] = {LTH_IVP_MSBDF, LTH_IVP_BSIMP};
  for (int k = 0; k < 2; k++) {
    lth_ivp_result *t = solve(S, sys, 1.0, 1e-8, methods[k], LTH_COEF_AUTO);
    lth_ivp_result *d = solve(S, sys, 1.0, 1e-8, methods[k], LTH_COEF_DIRECT);
    double et = solution_error(S, t), ed = solution_error(S, d);
    /* errors in v of ~1e-10 appear in u multiplied by the 1e6 entries of A */
    ck_assert_msg(et < 1e-3 && et < 10 * ed + 1e-12, "%s: table %.3e, direct %.3e",
                  lth_ivp_method_name(methods[k]), et, ed);
    ck_assert_msg(t->decomps < 100 && t->decomps * 5 < d->decomps, "%s: %zu vs %zu decompositions",
                  lth_ivp_method_name(methods[k]), t->decomps, d->decomps);
    lth_ivp_result_free(t);
    lth_ivp_result_free(d);
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* ---- sampled data ----
 * Index 2, blocks (2, 1) (data/sampled.lth): A(1,1) = [-1 + 0.5 sin t, 1;
 * -0.5 cos t, -2 + 0.25 t], A(1,2) = [1; 1], A(2,1) = [1, 0], f(1) = [0; sin t],
 * f(2) = -1, z0 = (1, 0.5, 0.5).  A(1,1) exact or sampled with spacing 0.02. */
static void a11_coef(double t, int order, double *c, int ld, size_t stride) {
  double f = 1.0;
  for (int k = 0; k <= order; k++) {
    if (k) f *= k;
    double s = sin(t + k * M_PI / 2) / f, co = cos(t + k * M_PI / 2) / f;
    c[k * stride + 0] = (k == 0 ? -1.0 : 0.0) + 0.5 * s;
    c[k * stride + 1] = -0.5 * co;
    c[k * stride + ld] = k == 0 ? 1.0 : 0.0;
    c[k * stride + ld + 1] = k == 0 ? -2.0 + 0.25 * t : (k == 1 ? 0.25 : 0.0);
  }
}

static int a11_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  a11_coef(t, order, coef, ld, stride);
  return 0;
}

static int f1_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  (void)ld;
  double f = 1.0;
  for (int k = 0; k <= order; k++) {
    if (k) f *= k;
    coef[k * stride] = 0.0;
    coef[k * stride + 1] = sin(t + k * M_PI / 2) / f;
  }
  return 0;
}

static lth_system *sampled_system(int degree) {
  int n[] = {2, 1};
  double a12[] = {1, 1}, a21[] = {1, 0}, f2[] = {-1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_source *a11;
  if (degree > 0) {
    size_t ns = 211;
    double *t = malloc(sizeof(double) * ns), *v = malloc(sizeof(double) * ns * 4), c[4];
    for (size_t k = 0; k < ns; k++) {
      t[k] = -0.1 + 0.02 * (double)k;
      a11_coef(t[k], 0, c, 2, 4);
      v[4 * k + 0] = c[0]; /* row-major per sample: a11 a12 a21 a22 */
      v[4 * k + 1] = c[2];
      v[4 * k + 2] = c[1];
      v[4 * k + 3] = c[3];
    }
    a11 = lth_source_samples(2, 2, ns, t, v, degree, NULL);
    free(t);
    free(v);
  } else {
    a11 = lth_source_callback(2, 2, a11_cb, NULL, NULL);
  }
  lth_system_set_A(sys, 1, 1, a11, NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_const(1, 2, a21, 1, NULL), NULL);
  lth_system_set_f(sys, 1, lth_source_callback(2, 1, f1_cb, NULL, NULL), NULL);
  lth_system_set_f(sys, 2, lth_source_const(1, 1, f2, 1, NULL), NULL);
  return sys;
}

static lth_ivp_result *solve_sampled(const lth_system *sys, int hermite) {
  double z0[3] = {1, 0.5, 0.5}, times[40];
  for (int k = 0; k < 40; k++) times[k] = 0.1 * (k + 1);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  o.hermite = hermite;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 40, &o, &res, &err) == LTH_OK, "%s",
                err.message);
  return res;
}

static double diff(const lth_ivp_result *a, const lth_ivp_result *b) {
  double e = 0.0;
  for (size_t k = 0; k < a->n * 3; k++) e = fmax(e, fabs(a->z[k] - b->z[k]));
  return e;
}

/* The Hermite order is all the fits support (k = K - r + 1, at most 4) and
 * the interpolation between the 201 grid points is no worse than the fits:
 * the solution is within 2x of the one that evaluates the fits at every t.
 * Measured (K = 1, 3, 5, 8): Hermite 2.7e-5, 1.8e-8, 1.4e-10, 1.2e-13 against
 * the exact data; the fits everywhere 2.7e-5, 1.8e-8, 1.4e-10, 1.6e-13. */
START_TEST(test_sampled_hermite_order_and_accuracy) {
  lth_system *exact = sampled_system(0);
  lth_ivp_result *ref = solve_sampled(exact, 0);
  const int degrees[] = {1, 3, 5, 8}, orders[] = {0, 2, 4, 4};
  for (int k = 0; k < 4; k++) {
    lth_system *sys = sampled_system(degrees[k]);
    lth_ivp_result *h = solve_sampled(sys, -1), *d = solve_sampled(sys, 0);
    ck_assert_int_eq(h->coef_mode, LTH_COEF_HERMITE);
    ck_assert_int_eq(d->coef_mode, LTH_COEF_DIRECT);
    ck_assert_msg(h->coef_order == orders[k], "sampling order %d: Hermite order %d", degrees[k],
                  h->coef_order);
    double eh = diff(h, ref), ed = diff(d, ref);
    ck_assert_msg(eh <= 2 * ed + 1e-13, "sampling order %d: Hermite %.3e, fits %.3e", degrees[k],
                  eh, ed);
    lth_ivp_result_free(h);
    lth_ivp_result_free(d);
    lth_system_free(sys);
  }
  lth_ivp_result_free(ref);
  lth_system_free(exact);
}
END_TEST

/* A few output times are decomposed directly, many come from the table (its
 * panels carry the output maps once a panel holds TAB_OUT_PER_PANEL of them):
 * both agree with the direct path to the integrator's accuracy. */
START_TEST(test_output_times_sparse_and_dense) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 803, 0.2, 1);
  lth_system *sys = ts_system(S);
  double z0[64], times[600];
  ts_z_coef(S, 0.0, 0, z0);
  const size_t counts[2] = {4, 600};
  for (int c = 0; c < 2; c++) {
    size_t nt = counts[c];
    for (size_t k = 0; k < nt; k++) times[k] = 6.0 * (double)(k + 1) / (double)nt;
    lth_ivp_result *res[2];
    for (int mode = 0; mode < 2; mode++) {
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.rtol = 1e-10;
      o.atol = 1e-12;
      o.coefficients = mode ? LTH_COEF_DIRECT : LTH_COEF_TABLE;
      lth_error err;
      ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, nt, &o, &res[mode], &err) == LTH_OK, "%s",
                    err.message);
    }
    /* equal to the integrator's accuracy: below rtol both errors are
     * rounding-level and either path may be the better one (over seeds
     * 800..811, table / direct = 0.2 .. 40 at errors 1e-14 .. 2e-11) */
    ck_assert_msg(solution_error(S, res[0]) <= 1.1 * solution_error(S, res[1]) + 1e-2 * 1e-10,
                  "%zu outputs: table %.3e, direct %.3e", nt, solution_error(S, res[0]),
                  solution_error(S, res[1]));
    ck_assert(solution_error(S, res[0]) < 1e-8);
    /* dense: the outputs were not decomposed one by one */
    if (nt == 600) ck_assert_msg(res[0]->decomps < 300, "%zu decompositions", res[0]->decomps);
    lth_ivp_result_free(res[0]);
    lth_ivp_result_free(res[1]);
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Index 2, Pi = (t - 0.3137)^2 + eps: nearly singular at 0.3137 without a
 * change of sign (eps = 1e-14: the scan refuses by condition), or (eps < 0)
 * with two changes of sign close together. */
static int a21_double_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  double eps = *(const double *)ctx, d = t - 0.3137;
  for (int k = 0; k <= order; k++) {
    coef[k * stride] = k == 0 ? d * d + eps : (k == 1 ? 2 * d : (k == 2 ? 1.0 : 0.0));
    coef[k * stride + ld] = k == 0 ? 0.5 : 0.0;
  }
  return 0;
}

/* The scan of Pi runs on a second thread while the integration starts
 * (lib/ivp/ivp_prescan.c): with one thread and with two, the same solutions
 * bitwise and the same refusals, named by the scan. */
START_TEST(test_scan_beside_integration) {
  int n2[] = {2, 1}, n3[] = {3, 3, 1};
  double a11[] = {0, -1, 1, 0}, a12[] = {1, 0}, eps[] = {1e-14, -1e-6};
  ts_sys *S = ts_new(3, n3, 805, 0.2, 1);
  lth_system *good = ts_system(S);
  /* these scans are short: run them beside all the same */
  lth_ivp_scan_beside_seconds = 0.0;
  lth_ivp_scan_beside_table_seconds = 0.0;
  lth_ivp_result *res[2];
  lth_status st[2][2];
  lth_error err[2][2];
  for (int th = 0; th < 2; th++) {
    setenv("LTH_NUM_THREADS", th ? "2" : "1", 1); /* lth_threads_available */
    res[th] = solve(S, good, 6.0, 1e-10, LTH_IVP_RK8PD, LTH_COEF_AUTO);
    for (int c = 0; c < 2; c++) {
      lth_system *sys = lth_system_alloc(2, n2, NULL);
      lth_system_set_A(sys, 1, 1, lth_source_const(2, 2, a11, 2, NULL), NULL);
      lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
      lth_system_set_A(sys, 2, 1, lth_source_callback(1, 2, a21_double_cb, &eps[c], NULL), NULL);
      double z0[3] = {1.0, 0.6274, 0.0}, t1 = 1.0;
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.project = 1;
      lth_ivp_result *r = NULL;
      lth_error_clear(&err[th][c]);
      st[th][c] = lth_ivp_solve(sys, 0.0, z0, &t1, 1, &o, &r, &err[th][c]);
      ck_assert(r == NULL);
      lth_system_free(sys);
    }
  }
  unsetenv("LTH_NUM_THREADS");
  lth_ivp_scan_beside_seconds = 2e-3;
  lth_ivp_scan_beside_table_seconds = 2e-4;
  ck_assert_int_eq(res[0]->n, res[1]->n);
  ck_assert(memcmp(res[0]->z, res[1]->z, res[0]->n * (size_t)S->s * sizeof(double)) == 0);
  for (int c = 0; c < 2; c++) {
    ck_assert_msg(st[0][c] == st[1][c] && (st[0][c] == LTH_ECOND || st[0][c] == LTH_ESING),
                  "case %d: status %d / %d", c, st[0][c], st[1][c]);
    ck_assert_msg(strcmp(err[0][c].message, err[1][c].message) == 0, "%s\n%s", err[0][c].message,
                  err[1][c].message);
    ck_assert_msg(strncmp(err[1][c].message, "before integrating", 18) == 0, "%s",
                  err[1][c].message);
    ck_assert(err[1][c].has_t && fabs(err[1][c].t - 0.3137) < 1e-3);
  }
  lth_ivp_result_free(res[0]);
  lth_ivp_result_free(res[1]);
  lth_system_free(good);
  ts_free(S);
}
END_TEST

/* On the table's panels the integrator's stretches are the panels
 * themselves (lth_coef_table_end: no enclosure checks where a panel's
 * polynomials have degree <= 16).  A pulse of width 0.002 at t = 6.3 in f
 * must not be stepped over: narrow panels hold it, and a step may not reach
 * across a panel's end.  The table's solution against direct decompositions
 * at 20 output times (0.5 apart, so that without stretches a step could
 * cover the pulse): within 100 rtol of the solution's size, where skipping
 * the pulse costs about 4e-3. */
START_TEST(test_pulse_between_table_panels) {
  const char *text = pulse_problem_text;
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "pulse", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  const lth_system *sys = lth_problem_system(pb);
  double times[20], z0[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 20; k++) times[k] = 0.5 * (k + 1);
  lth_ivp_result *res[2] = {NULL, NULL};
  for (int d = 0; d < 2; d++) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    o.rtol = 1e-8;
    o.atol = 1e-10;
    o.project = 1;
    o.error_estimate = 0;
    o.coefficients = d ? LTH_COEF_DIRECT : LTH_COEF_TABLE;
    ck_assert_msg(lth_ivp_solve(sys, 0.0, z0, times, 20, &o, &res[d], &err) == LTH_OK, "%s",
                  err.message);
  }
  ck_assert_int_eq(res[0]->coef_mode, LTH_COEF_TABLE);
  double diff = 0.0, scale = 1.0;
  for (size_t k = 0; k < 20 * 3; k++) {
    diff = fmax(diff, fabs(res[0]->z[k] - res[1]->z[k]));
    scale = fmax(scale, fabs(res[1]->z[k]));
  }
  ck_assert_msg(diff < 100 * 1e-8 * scale, "table and direct differ by %.2e (scale %.2e)", diff,
                scale);
  lth_ivp_result_free(res[0]);
  lth_ivp_result_free(res[1]);
  lth_problem_free(pb);
}
END_TEST

static Suite *table_ivp_suite(void) {
  Suite *s = suite_create("table_ivp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_default_is_table_and_matches_direct);
  tcase_add_test(tc, test_singular_pi_refused);
  tcase_add_test(tc, test_auto_falls_back_where_the_table_does_not_pay);
  tcase_add_test(tc, test_auto_direct_when_the_table_does_not_fit);
  tcase_add_test(tc, test_stiff_with_table_jacobian);
  tcase_add_test(tc, test_sampled_hermite_order_and_accuracy);
  tcase_add_test(tc, test_output_times_sparse_and_dense);
  tcase_add_test(tc, test_scan_beside_integration);
  tcase_add_test(tc, test_pulse_between_table_panels);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(table_ivp_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
