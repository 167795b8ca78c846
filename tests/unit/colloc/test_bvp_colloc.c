/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation for DAE BVPs (lib/bvp/bvp_colloc.c): manufactured exact solutions
 * of index 2..6, the convergence orders on mesh sequences in v, w and u, the
 * honesty of the error estimate, no drift, p = 0, and the refusals
 * (dependent conditions, ill-conditioning, unreachable tolerance, options). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "colloc/colloc.h"
#include "lth/bvp.h"
#include "lth/decomp.h"
#include "lth/expr.h"
#include "lth/ic.h"
#include "lth/problem.h"
#include "testsys.h"
#include "testutil.h"

#define T0 0.2
#define T1 1.7
#define NT 9

typedef struct {
  ts_sys *S;
  lth_system *sys;
  int s, m, p;
  double B0[256], B1[256], beta[16];
} bvp_case;

static const int blocks[][6] = {
    {3, 1}, {2, 3, 1}, {3, 3, 2, 2}, {2, 2, 2, 2, 1}, {2, 2, 2, 2, 2, 1}};
static const double times[NT] = {T0, 0.31, 0.5, 0.77, 1.0, 1.13, 1.3, 1.61, T1};

/* Random boundary matrices; beta from z* so that z* solves the BVP. */
static void make_case(bvp_case *c, int r, uint64_t seed) {
  c->S = ts_new(r, blocks[r - 2], seed, 0.2, 1);
  c->sys = ts_system(c->S);
  c->s = c->S->s;
  c->m = lth_system_state_dim(c->sys);
  c->p = lth_system_manifold_dim(c->sys);
  tu_seed(seed * 7 + 1);
  for (int k = 0; k < c->p * c->s; k++) {
    c->B0[k] = tu_uniform(-1, 1);
    c->B1[k] = tu_uniform(-1, 1);
  }
  double z0[64], z1[64];
  ts_z_coef(c->S, T0, 0, z0);
  ts_z_coef(c->S, T1, 0, z1);
  for (int i = 0; i < c->p; i++) {
    c->beta[i] = 0;
    for (int j = 0; j < c->s; j++)
      c->beta[i] += c->B0[i + j * c->p] * z0[j] + c->B1[i + j * c->p] * z1[j];
  }
}

static void free_case(bvp_case *c) {
  lth_system_free(c->sys);
  ts_free(c->S);
}

static lth_status solve(bvp_case *c, double tol, int stages, lth_bvp_result **res, lth_error *err) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  o.colloc.tol = tol;
  o.colloc.stages = stages;
  lth_error_clear(err);
  return lth_bvp_solve(c->sys, T0, T1, c->p, c->B0, c->B1, c->beta, times, NT, &o, res, err);
}

/* max |z - z*| over the output times, and the scale max(1, max |z*|) */
static double abs_error(const bvp_case *c, const lth_bvp_result *res, double *scale) {
  double e = 0, z[64];
  *scale = 1.0;
  for (size_t k = 0; k < res->n; k++) {
    ts_z_coef(c->S, res->times[k], 0, z);
    for (int i = 0; i < c->s; i++) {
      e = fmax(e, fabs(res->z[k * c->s + i] - z[i]));
      *scale = fmax(*scale, fabs(z[i]));
    }
  }
  return e;
}

/* Index 2..6 at tol 1e-12: error <= 1e-10 (measured: 2e-14 .. 8e-14). */
START_TEST(test_manufactured_tight) {
  for (int r = 2; r <= 6; r++) {
    bvp_case c;
    make_case(&c, r, 800 + r);
    lth_bvp_result *res = NULL;
    lth_error err;
    ck_assert_msg(solve(&c, 1e-12, 0, &res, &err) == LTH_OK, "index %d: %s", r, err.message);
    double scale, e = abs_error(&c, res, &scale);
    ck_assert_msg(e <= 1e-10 * scale, "index %d: error %.3e", r, e);
    ck_assert_msg(res->error_estimate <= 1e-12 * scale * 1.0001, "index %d: estimate %.3e", r,
                  res->error_estimate);
    ck_assert(res->bc_residual < 1e-12 * scale && res->drift < 1e-14 * scale);
    ck_assert(isfinite(res->cond_bvp) && res->cond_bvp >= 1.0 && res->intervals >= 8);
    lth_bvp_result_free(res);
    free_case(&c);
  }
}
END_TEST

/* The estimate is honest: within a factor 10 of the true error, for every
 * number of stages, at tolerances where the error is far above rounding. */
START_TEST(test_estimate_honest) {
  for (int r = 2; r <= 6; r++) {
    bvp_case c;
    make_case(&c, r, 810 + r);
    for (int st = 2; st <= 5; st++) {
      lth_bvp_result *res = NULL;
      lth_error err;
      double tol = st == 2 ? 1e-6 : 1e-8;
      ck_assert_msg(solve(&c, tol, st, &res, &err) == LTH_OK, "%s", err.message);
      double scale, e = abs_error(&c, res, &scale);
      ck_assert_msg(e <= tol * scale, "index %d stages %d: error %.3e > tol", r, st, e);
      if (e > 1e-12 * scale) {
        ck_assert_msg(res->error_estimate <= 10 * e && res->error_estimate >= e / 10,
                      "index %d stages %d: estimate %.3e vs error %.3e", r, st, res->error_estimate,
                      e);
      }
      lth_bvp_result_free(res);
    }
    free_case(&c);
  }
}
END_TEST

/* ---- convergence orders on uniform meshes N = 4, 8, 16, 32 (internal API) ---- */

/* errors in v, w, u at the mesh points (pass 0) or at t_k + 0.3 h (pass 1) */
static void mesh_errors(bvp_case *c, lth_colloc_ctx *cx, lth_cmesh *M, int pass, int mode,
                        lth_decomp_ws *ws, lth_point *pt, double e[3]) {
  int s = c->s, m = c->m;
  e[0] = e[1] = e[2] = 0.0;
  for (size_t k = 0; k < M->N; k++) {
    double t = pass == 0 ? M->t[k + 1] : M->t[k] + 0.3 * (M->t[k + 1] - M->t[k]);
    double z[64], v[64], zs[64];
    ck_assert_int_eq(lth_cmesh_eval(cx, M, t, mode, z, v, NULL, NULL), LTH_OK);
    ts_z_coef(c->S, t, 0, zs);
    ck_assert_int_eq(lth_decomp_at(ws, t, pt, NULL), LTH_OK);
    for (int i = 0; i < m; i++) { /* exact v = (I - P) z*_{1:m}, w = P z*_{1:m} */
      double vs = zs[i];
      for (int j = 0; j < m; j++) vs -= LTH_JET_AT(&pt->P, 0, i, j) * zs[j];
      e[0] = fmax(e[0], fabs(v[i] - vs));
      e[1] = fmax(e[1], fabs((z[i] - v[i]) - (zs[i] - vs)));
    }
    for (int i = m; i < s; i++) e[2] = fmax(e[2], fabs(z[i] - zs[i]));
  }
}

/* Observed orders from N = 16 to 32 (the last pair, asymptotic); measured for
 * index 4, stages 2: mesh 4.01 / between (step) 4.01 / polynomial 3.01;
 * stages 3: 6.00 / 5.99 / 4.01 (v, w and u alike). */
static void check_orders(int r, int stages) {
  bvp_case c;
  make_case(&c, r, 800 + r);
  lth_ivp_opts io;
  lth_ivp_opts_init(&io);
  lth_colloc_ctx *cx = lth_colloc_ctx_alloc(c.sys, stages, &io, T0, T1, NULL);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(c.sys, 0, NULL);
  lth_point *pt = lth_point_alloc(c.sys, 0, NULL);
  lth_colloc_bc bc = {c.p, c.B0, c.B1, c.beta};
  double prev[3][3], cur[3][3];
  const char *where[] = {"mesh points", "between (Gauss step)", "between (polynomial)"};
  for (size_t N = 8; N <= 32; N *= 2) {
    lth_cmesh *M = lth_cmesh_uniform(N, T0, T1, c.s, c.m, c.p, NULL);
    ck_assert_int_eq(lth_cmesh_build(cx, M, NULL, 0, NULL), LTH_OK);
    ck_assert_int_eq(lth_cmesh_solve(cx, M, &bc, 0, 0.0, NULL), LTH_OK);
    mesh_errors(&c, cx, M, 0, LTH_COLLOC_STEP, ws, pt, cur[0]);
    mesh_errors(&c, cx, M, 1, LTH_COLLOC_STEP, ws, pt, cur[1]);
    mesh_errors(&c, cx, M, 1, LTH_COLLOC_POLY, ws, pt, cur[2]);
    if (N == 32) {
      for (int w = 0; w < 3; w++) {
        double expect = w < 2 ? 2 * stages : stages + 1;
        for (int comp = 0; comp < 3; comp++) {
          double q = log2(prev[w][comp] / cur[w][comp]);
          ck_assert_msg(fabs(q - expect) < 0.25,
                        "index %d, %d stages, %s, %s: order %.2f (%.2e -> %.2e)", r, stages,
                        where[w],
                        comp == 0   ? "v"
                        : comp == 1 ? "w"
                                    : "u",
                        q, prev[w][comp], cur[w][comp]);
        }
      }
    }
    memcpy(prev, cur, sizeof cur);
    lth_cmesh_free(M);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_colloc_ctx_free(cx);
  free_case(&c);
}

START_TEST(test_orders) {
  check_orders(3, 2);
  check_orders(4, 2);
  check_orders(4, 3);
  check_orders(6, 2);
}
END_TEST

/* No drift and every constraint (hidden ones too: M0 z = b0) at rounding level,
 * also where the discretisation error is large (tol 1e-3, few intervals). */
START_TEST(test_no_drift) {
  for (int r = 3; r <= 5; r += 2) {
    bvp_case c;
    make_case(&c, r, 820 + r);
    lth_bvp_result *res = NULL;
    lth_error err;
    ck_assert_int_eq(solve(&c, 1e-3, 2, &res, &err), LTH_OK);
    double scale, e = abs_error(&c, res, &scale);
    ck_assert(e > 1e-7 * scale); /* a coarse answer ... */
    lth_ic *ic = lth_ic_alloc(c.sys, NULL);
    for (int k = 0; k < NT; k++) {
      ck_assert_int_eq(lth_ic_setup(ic, times[k], NULL), LTH_OK);
      double rc = lth_ic_residual(ic, res->z + k * c.s);
      ck_assert_msg(rc < 1e-13 * scale, "index %d, t = %g: ||M0 z - b0|| = %.3e", r, times[k], rc);
    }
    ck_assert_msg(res->drift < 1e-14 * scale, "drift %.3e",
                  res->drift); /* ... exactly consistent */
    lth_ic_free(ic);
    lth_bvp_result_free(res);
    free_case(&c);
  }
}
END_TEST

/* p = 0: z' = u, 0 = z - sin t: the unique solution z = sin t, u = cos t. */
START_TEST(test_no_free_constants) {
  int n[] = {1, 1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  double one[] = {1.0};
  lth_expr *e;
  ck_assert_int_eq(lth_expr_parse("-sin(t)", 7, NULL, NULL, &e, NULL), LTH_OK);
  lth_system_set_A(sys, 1, 2, lth_source_const(1, 1, one, 1, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_const(1, 1, one, 1, NULL), NULL);
  lth_system_set_f(sys, 2, lth_source_expr(1, 1, &e, NULL), NULL);
  double tt[] = {0.3, 1.1, 2.0};
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  lth_bvp_result *res = NULL;
  ck_assert_int_eq(lth_bvp_solve(sys, 0, 2, 0, NULL, NULL, NULL, tt, 3, &o, &res, NULL), LTH_OK);
  for (int k = 0; k < 3; k++) {
    ck_assert(fabs(res->z[2 * k] - sin(tt[k])) < 1e-15);
    ck_assert(fabs(res->z[2 * k + 1] - cos(tt[k])) < 1e-15);
  }
  ck_assert(res->error_estimate == 0.0 && res->cond_bvp == 1.0);
  lth_bvp_result_free(res);
  lth_system_free(sys);
}
END_TEST

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_parse(text, strlen(text), "test", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  return pb;
}

static lth_status solve_pb(const lth_problem *pb, double tol, lth_bvp_result **res,
                           lth_error *err) {
  const double *B0, *B1, *beta, *tt;
  int rows = lth_problem_bc(pb, &B0, &B1, &beta);
  size_t n = lth_problem_grid(pb, &tt);
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  o.colloc.tol = tol;
  lth_error_clear(err);
  return lth_bvp_solve(lth_problem_system(pb), t0, t1, rows, B0, B1, beta, tt, n, &o, res, err);
}

/* The Gauss nodes read a coefficient table by default (lib/colloc/colloc_ctx.c):
 * the result agrees with direct decompositions everywhere to the tolerance,
 * and a table far too coarse for the tolerance (1e-6) is seen -- its share of
 * the error estimated, or the table dropped -- never a silently worse answer. */
START_TEST(test_table_at_the_nodes) {
  for (int r = 2; r <= 5; r++) {
    bvp_case c;
    make_case(&c, r, 830 + r);
    lth_bvp_result *res[3] = {NULL, NULL, NULL};
    lth_error err;
    for (int v = 0; v < 3; v++) {
      lth_bvp_opts o;
      lth_bvp_opts_init(&o);
      o.method = LTH_BVP_COLLOCATION;
      o.colloc.tol = 1e-10;
      if (v == 1) o.ivp.coefficients = LTH_COEF_DIRECT;
      if (v == 2) o.ivp.table_tol = 1e-6;
      lth_error_clear(&err);
      ck_assert_msg(lth_bvp_solve(c.sys, T0, T1, c.p, c.B0, c.B1, c.beta, times, NT, &o, &res[v],
                                  &err) == LTH_OK,
                    "index %d variant %d: %s", r, v, err.message);
      double scale, e = abs_error(&c, res[v], &scale);
      ck_assert_msg(e <= 1e-10 * scale, "index %d variant %d: error %.3e", r, v, e);
      ck_assert_msg(res[v]->error_estimate <= 1e-10 * scale * 1.0001, "index %d variant %d", r, v);
      if (e > 1e-12 * scale) {
        ck_assert_msg(res[v]->error_estimate >= e / 10,
                      "index %d variant %d: estimate %.3e vs %.3e", r, v, res[v]->error_estimate,
                      e);
      }
      ck_assert(res[v]->drift < 1e-13 * scale);
    }
    double d = 0.0, scale = 1.0;
    for (size_t k = 0; k < NT * (size_t)c.s; k++) {
      d = fmax(d, fabs(res[0]->z[k] - res[1]->z[k]));
      scale = fmax(scale, fabs(res[1]->z[k]));
    }
    ck_assert_msg(d <= 2e-10 * scale, "index %d: table vs direct %.3e", r, d);
    for (int v = 0; v < 3; v++) lth_bvp_result_free(res[v]);
    free_case(&c);
  }
}
END_TEST

/* Ascher-Petzold index-2 problem (alpha = 50): exact x1 = x2 = e^t,
 * y = -e^t / (2 - t); its state mode decays like e^{-50 t}.  With x1(0) = 1
 * it is well posed; with its one condition at t1 (x1(1) = e) the Green's
 * function grows like e^{50 (1 - t)}: cond_bvp ~ 1e22, refused. */
static const char *ap_text = "blocks 2 1\ninterval 0 1\ngrid 11\nparam a = 50\n"
                             "A(1,1) = [a - 1/(2-t), 0; (1-a)/(t-2), -1]\n"
                             "A(1,2) = [(2-t)*a; a-1]\n"
                             "A(2,1) = [t+2, t^2-4]\n"
                             "f(1) = [(3-t)/(2-t)*exp(t); 2*exp(t)]\n"
                             "f(2) = -(t^2+t-2)*exp(t)\n";

START_TEST(test_ascher_petzold) {
  char text[1024];
  snprintf(text, sizeof text, "%sbc B0 = [1, 0, 0]\nbc B1 = [0, 0, 0]\nbc beta = [1]\n", ap_text);
  lth_problem *pb = parse(text);
  lth_bvp_result *res = NULL;
  lth_error err;
  ck_assert_msg(solve_pb(pb, 1e-10, &res, &err) == LTH_OK, "%s", err.message);
  for (size_t k = 0; k < res->n; k++) {
    double t = res->times[k], e = exp(t);
    ck_assert(fabs(res->z[3 * k] - e) < 1e-9 && fabs(res->z[3 * k + 1] - e) < 1e-9);
    ck_assert(fabs(res->z[3 * k + 2] + e / (2 - t)) < 1e-9);
  }
  ck_assert(res->cond_bvp < 1e3);
  lth_bvp_result_free(res);
  lth_problem_free(pb);
  snprintf(text, sizeof text, "%sbc B0 = [0, 0, 0]\nbc B1 = [1, 0, 0]\nbc beta = [%.17g]\n",
           ap_text, exp(1.0));
  pb = parse(text);
  ck_assert_int_eq(solve_pb(pb, 1e-8, &res, &err), LTH_ENOTUNIQUE);
  ck_assert_msg(err.has_cond && err.cond > 1e20 && strstr(err.message, "cond_bvp") != NULL, "%s",
                err.message);
  ck_assert_int_eq(lth_status_exit_code(err.status), 3);
  lth_problem_free(pb);
}
END_TEST

/* Conditions that are dependent on the consistent manifold (not in R^{2s}):
 * w = z_1[3] is fixed by the constraint 0 = z_1[3] - sin t, so a condition on
 * it fixes nothing, and rows "x1(0)" and "x1(0) + w(0)" say the same. */
static const char *dep_text =
    "blocks 3 1\ninterval 0 2\ngrid 5\n"
    "A(1,1) = [0, 1, 0; -1, 0, 0; 0, 0, 0]\nA(1,2) = [0; 0; 1]\nA(2,1) = [0, 0, 1]\n"
    "f(2) = -sin(t)\n";

START_TEST(test_dependent_conditions) {
  char text[1024];
  lth_bvp_result *res = NULL;
  lth_error err;
  snprintf(text, sizeof text,
           "%sbc B0 = [1, 0, 0, 0; 1, 0, 1, 0]\nbc B1 = [0, 0, 0, 0; 0, 0, 0, 0]\n"
           "bc beta = [1; 1]\n",
           dep_text);
  lth_problem *pb = parse(text);
  ck_assert_int_eq(solve_pb(pb, 1e-8, &res, &err), LTH_ENOTUNIQUE);
  ck_assert_msg(strstr(err.message, "rows 1, 2") != NULL, "%s", err.message);
  lth_problem_free(pb);
  snprintf(text, sizeof text,
           "%sbc B0 = [1, 0, 0, 0; 0, 0, 1, 0]\nbc B1 = [0, 0, 0, 0; 0, 0, 0, 0]\n"
           "bc beta = [1; 0]\n",
           dep_text);
  pb = parse(text);
  ck_assert_int_eq(solve_pb(pb, 1e-8, &res, &err), LTH_ENOTUNIQUE);
  ck_assert_msg(strstr(err.message, "row 2 fixes nothing") != NULL, "%s", err.message);
  lth_problem_free(pb);
  /* the same system with independent conditions: x1(0) = 1, x2(2) = 0.5 */
  snprintf(text, sizeof text,
           "%sbc B0 = [1, 0, 0, 0; 0, 0, 0, 0]\nbc B1 = [0, 0, 0, 0; 0, 1, 0, 0]\n"
           "bc beta = [1; 0.5]\n",
           dep_text);
  pb = parse(text);
  ck_assert_msg(solve_pb(pb, 1e-10, &res, &err) == LTH_OK, "%s", err.message);
  /* x1 = a cos t + b sin t, x2 = -a sin t + b cos t, w = sin t, u = cos t */
  double a = 1.0, b = (0.5 + sin(2.0)) / cos(2.0);
  for (size_t k = 0; k < res->n; k++) {
    double t = res->times[k], *z = res->z + 4 * k;
    ck_assert(fabs(z[0] - (a * cos(t) + b * sin(t))) < 1e-9);
    ck_assert(fabs(z[1] - (-a * sin(t) + b * cos(t))) < 1e-9);
    ck_assert(fabs(z[2] - sin(t)) < 1e-13 && fabs(z[3] - cos(t)) < 1e-13);
  }
  lth_bvp_result_free(res);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_options_and_limits) {
  bvp_case c;
  make_case(&c, 3, 803);
  lth_bvp_result *res = NULL;
  lth_error err;
  ck_assert_int_eq(solve(&c, 1e-8, 9, &res, &err), LTH_EINVAL);
  ck_assert(strstr(err.message, "stages 9") != NULL);
  ck_assert_int_eq(solve(&c, -1e-8, 0, &res, &err), LTH_EINVAL);
  ck_assert_int_eq(solve(&c, NAN, 0, &res, &err), LTH_EINVAL);
  for (int st = 1; st <= 8; st++) {
    ck_assert_msg(solve(&c, 1e-5, st, &res, &err) == LTH_OK, "stages %d: %s", st, err.message);
    double scale, e = abs_error(&c, res, &scale);
    ck_assert_msg(e <= 1e-5 * scale, "stages %d: error %.3e", st, e);
    lth_bvp_result_free(res);
  }
  /* a tolerance beyond max_intervals: LTH_ETOL naming the estimate reached */
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  o.colloc.stages = 1;
  o.colloc.tol = 1e-12;
  o.colloc.max_intervals = 200;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_bvp_solve(c.sys, T0, T1, c.p, c.B0, c.B1, c.beta, times, NT, &o, &res, &err),
                   LTH_ETOL);
  ck_assert_msg(strstr(err.message, "error estimate") && strstr(err.message, "max_intervals"), "%s",
                err.message);
  ck_assert_int_eq(lth_status_exit_code(err.status), 3);
  free_case(&c);
}
END_TEST

static Suite *colloc_suite(void) {
  Suite *s = suite_create("bvp_colloc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_manufactured_tight);
  tcase_add_test(tc, test_estimate_honest);
  tcase_add_test(tc, test_orders);
  tcase_add_test(tc, test_no_drift);
  tcase_add_test(tc, test_no_free_constants);
  tcase_add_test(tc, test_ascher_petzold);
  tcase_add_test(tc, test_table_at_the_nodes);
  tcase_add_test(tc, test_dependent_conditions);
  tcase_add_test(tc, test_options_and_limits);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(colloc_suite)
