/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Issue 10, "Done when": a property test over a family whose chain block
 * passes through zero at a random t* (between grid points and on them, inside
 * the interval, up to 1e-10 from a grid point or from an end of the
 * interval, and up to 0.3 outside it).  Every tool -- the grid decomposition,
 * the IVP, single and multiple shooting, finite differences, the LQR solver --
 * either refuses naming a t within one grid step of t*, or returns an answer
 * correct to its tolerance.  Deterministic seed; a few hundred draws.
 *
 * DAE family (index 3, blocks 2 2 1, p = 2), Pi = c(t):
 *   A(1,1) = [0, 0.5; -0.5, 0], A(1,3) = [1; 0], A(2,1) = eye, A(3,2) = [c(t), 0]
 *   c(t) = a (t - t*)              (det Pi changes sign at t*), or
 *   c(t) = a ((t - t*)^2 + d)      (touches or nearly touches zero at t*),
 * with f manufactured so that z* = (e^(t/3), t^2, cos t, sin 2t, sin t + 2)
 * solves it (f(3) = -c(t) cos t).  Free components: v2 and x2, so the BVP
 * conditions are v2(0) and x2(1).
 * LQR family: x' = [0, 1; 0, 0] x + [0; b(t)] u, H = I, b as c above, checked
 * against the cost integrated from its own trajectory. */
#include "wellposed_util.h"

#include <math.h>
#include <stdlib.h>

#include "lth/bvp.h"
#include "lth/grid.h"
#include "lth/ivp.h"
#include "lth/lqr.h"
#include "lth/conditioning.h"
#include "testutil.h"

#define GRID_STEP 0.01
#define DRAWS     240

static void zstar(double t, double *z) {
  z[0] = exp(t / 3);
  z[1] = t * t;
  z[2] = cos(t);
  z[3] = sin(2 * t);
  z[4] = sin(t) + 2;
}

static void cexpr(char *buf, size_t size, int kind, double a, double ts, double d) {
  if (kind == 0) {
    snprintf(buf, size, "%.17g*(t - %.17g)", a, ts);
  } else {
    snprintf(buf, size, "%.17g*((t - %.17g)^2 + %.17g)", a, ts, d);
  }
}

static lth_problem *dae(int kind, double a, double ts, double d) {
  char c[128], text[2048];
  cexpr(c, sizeof c, kind, a, ts, d);
  snprintf(text, sizeof text,
           "blocks 2 2 1\ninterval 0 1\ngrid 101\n"
           "A(1,1) = [0, 0.5; -0.5, 0]\nA(1,3) = [1; 0]\nA(2,1) = eye\nA(3,2) = [%s, 0]\n"
           "f(1) = [exp(t/3)/3 - 0.5*t^2 - (sin(t) + 2); 2*t + 0.5*exp(t/3)]\n"
           "f(2) = [-sin(t) - exp(t/3); 2*cos(2*t) - t^2]\n"
           "f(3) = -(%s)*cos(t)\n",
           c, c);
  return wp_parse(text);
}

/* Tallies, printed at the end: the test is meaningful only if both outcomes occur. */
static int n_refused, n_solved;

/* A refusal must name a t within one grid step of t* (a numerical failure). */
static void judge_refusal(const char *tool, lth_status st, const lth_error *err, double ts) {
  ck_assert_msg(lth_status_exit_code(st) == 3, "%s, t* = %.17g: status %d (%s)", tool, ts, st,
                err->message);
  ck_assert_msg(err->has_t && fabs(err->t - ts) <= GRID_STEP * (1 + 1e-9),
                "%s, t* = %.17g: refused naming t = %.17g: %s", tool, ts, err->has_t ? err->t : NAN,
                err->message);
  n_refused++;
}

/* max_k |z_k - z*(t_k)|_inf / max(1, |z*|) */
static double zerr(const double *z, const double *times, size_t n) {
  double e = 0.0, zs[5];
  for (size_t k = 0; k < n; k++) {
    zstar(times[k], zs);
    for (int i = 0; i < 5; i++) e = fmax(e, fabs(z[k * 5 + i] - zs[i]) / fmax(1.0, fabs(zs[i])));
  }
  return e;
}

/* The stated accuracy eps cond_interval^(r-1) (a multiple of it: here up to
 * ~100 eps where cond_interval is small, 0.2 to 2 eps near a root), and never
 * worse than the two digits lth_cond_acceptable keeps (with a margin). */
static double amp_tol(double amplification) { return fmin(1e-13 * fmax(1.0, amplification), 5e-2); }

static void check_grid(const lth_system *sys, const double *times, double ts) {
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = 1;
  lth_grid_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_grid_store(sys, times, 101, &go, &res, &err);
  if (st != LTH_OK) {
    judge_refusal("grid", st, &err, ts);
    return;
  }
  /* z* must be reproduced by Corollary 3 from its own state part: z = G v + q,
   * exact to rounding times the conditioning the point reports */
  for (int k = 0; k <= 100; k++) {
    const lth_point *pt = res->points[k];
    double zs[5], z[5];
    zstar(times[k], zs);
    for (int i = 0; i < 5; i++) {
      z[i] = LTH_JET_AT(&pt->q, 0, i, 0);
      for (int j = 0; j < 4; j++) z[i] += LTH_JET_AT(&pt->G, 0, i, j) * zs[j];
    }
    /* stated accuracy: a modest multiple of eps cond_interval^(r-1)
     * (include/lth/conditioning.h; the multiple grows with the derivatives of
     * the data, here up to ~100) */
    double e = zerr(z, times + k, 1);
    double tol = amp_tol(lth_cond_amplification(pt->cond_interval, 3));
    ck_assert_msg(e <= tol, "grid, t* = %.17g, t = %g: error %g > %g (cond_interval %g)", ts,
                  times[k], e, tol, pt->cond_interval);
  }
  n_solved++;
  lth_grid_result_free(res);
}

/* Tolerances of the integrating tools: their own (1e-7 at rtol 1e-10) plus
 * the coefficients' error eps cond_interval^(r-1) at the worst point. */
static double amp;

static void check_ivp(const lth_system *sys, const double *times, double ts) {
  double z0[5];
  zstar(0.0, z0);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_ivp_solve(sys, 0.0, z0, times, 101, &o, &res, &err);
  if (st != LTH_OK) {
    judge_refusal("ivp", st, &err, ts);
    return;
  }
  double e = zerr(res->z, times, 101);
  ck_assert_msg(e <= 1e-7 + amp_tol(amp), "ivp, t* = %.17g: error %g (amplification %g)", ts, e,
                amp);
  n_solved++;
  lth_ivp_result_free(res);
}

static void check_bvp(const lth_system *sys, const double *times, double ts,
                      lth_bvp_method method) {
  double B0[10] = {0}, B1[10] = {0}, beta[2], z0[5], z1[5];
  zstar(0.0, z0);
  zstar(1.0, z1);
  B0[0 + 2 * 1] = 1.0; /* row 1: v2(0) */
  B1[1 + 2 * 3] = 1.0; /* row 2: x2(1) */
  beta[0] = z0[1];
  beta[1] = z1[3];
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = method;
  o.fd.points = 401;
  lth_bvp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_bvp_solve(sys, 0, 1, 2, B0, B1, beta, times, 101, &o, &res, &err);
  if (st != LTH_OK) {
    judge_refusal(lth_bvp_method_name(method), st, &err, ts);
    return;
  }
  double e = zerr(res->z, times, 101);
  /* shooting methods: integration tolerance times the conditioning of the
   * BVP; fd: its own error estimate (beyond and inside the start-up layer) */
  double tol = method == LTH_BVP_FD ? 3 * fmax(res->fd_error, res->fd_error_layer) + 1e-9
                                    : 1e-7 * fmax(1.0, res->cond_bvp) + amp_tol(amp);
  ck_assert_msg(e <= tol, "%s, t* = %.17g: error %g > %g (cond_bvp %g)",
                lth_bvp_method_name(method), ts, e, tol, res->cond_bvp);
  n_solved++;
  lth_bvp_result_free(res);
}

static void check_lqr(int kind, double a, double ts, double d) {
  char b[128], text[1024];
  cexpr(b, sizeof b, kind, a, ts, d);
  snprintf(text, sizeof text,
           "problem lqr\nsizes 2 1\ninterval 0 1\nA = [0, 1; 0, 0]\nB = [0; %s]\n"
           "H = [1, 0; 0, 1]\nC = [0, 0; 0, 0]\nx0 = [1; 0]\n",
           b);
  lth_problem *pb = wp_parse(text);
  enum { N = 2001 };
  static double times[N];
  for (int k = 0; k < N; k++) times[k] = (double)k / (N - 1);
  lth_lqr_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_lqr_solve(lth_problem_lqr(pb), times, N, NULL, &res, &err);
  if (st != LTH_OK) {
    judge_refusal("lqr", st, &err, ts);
  } else {
    ck_assert(res->have_trajectory);
    /* the cost from the trajectory: 1/2 int x'x dt (trapezoid, h = 5e-4), and
     * after an impulse at t0 the arc starts at x0_consistent */
    double J = 0.0;
    for (int k = 0; k < N; k++) {
      double w = (k == 0 || k == N - 1) ? 0.5 : 1.0;
      const double *x = res->x + 2 * k;
      J += w * 0.5 * (x[0] * x[0] + x[1] * x[1]) / (N - 1);
    }
    ck_assert_msg(fabs(J - res->cost) <= 1e-5 * fmax(1.0, fabs(J)),
                  "lqr, t* = %.17g: cost %.12g but the trajectory gives %.12g", ts, res->cost, J);
    n_solved++;
  }
  lth_lqr_result_free(res);
  lth_problem_free(pb);
}

START_TEST(family_property) {
  tu_seed(20260110);
  double times[101];
  for (int k = 0; k <= 100; k++) times[k] = GRID_STEP * k;
  times[100] = 1.0;
  for (int draw = 0; draw < DRAWS; draw++) {
    int kind = draw % 2;
    double a = tu_uniform(0.5, 2.0), u = tu_uniform(0, 1), ts;
    double tiny = pow(10.0, -tu_uniform(3, 10)), sign = u < 0.5 ? -1.0 : 1.0;
    if (draw % 5 == 0) {
      ts = round(tu_uniform(0, 100)) * GRID_STEP; /* on a grid point */
    } else if (draw % 5 == 1) {
      ts = round(tu_uniform(0, 100)) * GRID_STEP + sign * tiny; /* next to one */
    } else if (draw % 5 == 2) {
      ts = sign < 0 ? -tiny : 1.0 + tiny; /* just outside the interval */
    } else {
      ts = -0.3 + 1.6 * u; /* inside or up to 0.3 outside [0, 1] */
    }
    static const double deltas[4] = {0.0, 1e-14, 1e-6, 1e-2};
    double d = deltas[(draw / 2) % 4];
    lth_problem *pb = dae(kind, a, ts, d);
    const lth_system *sys = lth_problem_system(pb);
    lth_pi_scan sc;
    TU_ASSERT_OK(lth_pi_scan_run(sys, 0, 1, 0, 1, &sc, NULL));
    amp = lth_cond_amplification(sc.worst, 3);
    check_grid(sys, times, ts);
    check_ivp(sys, times, ts);
    check_bvp(sys, times, ts, LTH_BVP_SHOOTING);
    if (draw % 4 == 0) {
      check_bvp(sys, times, ts, LTH_BVP_MULTIPLE);
      check_bvp(sys, times, ts, LTH_BVP_FD);
      check_lqr(kind, a, ts, d);
    }
    lth_problem_free(pb);
  }
  fprintf(stderr, "family: %d refusals naming t near t*, %d correct answers\n", n_refused,
          n_solved);
  ck_assert_int_gt(n_refused, 100);
  ck_assert_int_gt(n_solved, 100);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("wellposed_family");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, family_property);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
