/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mass matrices: the jet source M^{-1} X (lib/source/source_solve.c) is exact in
 * every Taylor coefficient, and the block form's M(i) (lib/reader/problem_block.c)
 * gives the same system, decomposition and trajectories as the file with
 * M(i)^{-1} multiplied out by hand; singular, shrinking and misplaced mass
 * matrices are refused naming t, the block and the condition. */
#include <string.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "testutil.h"

static lth_source *expr_source(int rows, int cols, const char *const *text) {
  lth_expr **e = calloc((size_t)rows * cols, sizeof *e);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      const char *s = text[i * cols + j];
      TU_ASSERT_OK(lth_expr_parse(s, strlen(s), NULL, NULL, &e[i + j * rows], NULL));
    }
  }
  lth_source *src = lth_source_expr(rows, cols, e, NULL);
  free(e);
  ck_assert_ptr_nonnull(src);
  return src;
}

static void fill(const lth_source *src, double t, int order, lth_jet *J) {
  size_t wn = lth_source_work_size(src, order);
  double *w = malloc((wn ? wn : 1) * sizeof *w);
  lth_error err;
  int st = lth_source_fill(src, t, order, J, w, &err);
  ck_assert_msg(st == LTH_OK, "fill: %s", err.message);
  free(w);
}

/* M Y = X coefficient by coefficient (Cauchy products), orders 0..6. */
START_TEST(test_solve_source_is_exact) {
  const char *m[9] = {"2 + sin(t)", "0.3*t", "exp(-t)",  "t^2",    "3 - cos(2*t)",
                      "0.1",        "0.5",   "log(2+t)", "1.5 + t"};
  const char *x[6] = {"sin(t)", "1", "t^3", "cos(t)", "exp(t)", "2.385*t"};
  lth_source *M = expr_source(3, 3, m), *X = expr_source(3, 2, x);
  lth_source *Y = lth_source_solve(M, X, 0.0, 0.0, "M(test)", NULL);
  ck_assert_ptr_nonnull(Y);
  int K = 6;
  lth_jet *Mj = lth_jet_alloc(3, 3, K, NULL), *Xj = lth_jet_alloc(3, 2, K, NULL);
  lth_jet *Yj = lth_jet_alloc(5, 4, K, NULL); /* a view with ld > rows, as the system uses */
  lth_jet Yv = lth_jet_view(Yj, 1, 1, 3, 2), *P = lth_jet_alloc(3, 2, K, NULL);
  for (double t = -0.7; t < 1.0; t += 0.41) {
    fill(M, t, K, Mj);
    fill(X, t, K, Xj);
    fill(Y, t, K, &Yv);
    TU_ASSERT_OK(lth_jet_mul(Mj, &Yv, P, NULL));
    /* rounding relative to the size of the products M_j Y_{m-j} (the
     * coefficients of Y grow with the order where M is near singular in the
     * complex plane) */
    double scale = 3 * (K + 1) * lth_jet_maxabs(Mj, K) * lth_jet_maxabs(&Yv, K);
    double e = tu_jet_relerr(P, Xj) * fmax(1.0, lth_jet_maxabs(Xj, K)) / scale;
    ck_assert_msg(e < 1e-15, "M Y - X at t = %g: %.3g of the products", t, e);
  }
  lth_jet_free(Mj);
  lth_jet_free(Xj);
  lth_jet_free(Yj);
  lth_jet_free(P);
  lth_source_free(Y);
  lth_source_free(M);
}
END_TEST

/* Singular at t: LTH_ESING naming t and the label; shrinking relative to its
 * size on the interval: LTH_ECOND although cond(M(t)) = 1. */
START_TEST(test_solve_source_refuses) {
  const char *m[4] = {"1", "0", "0", "t - 0.5"}, *x[2] = {"1", "2"};
  lth_source *M = expr_source(2, 2, m),
             *Y = lth_source_solve(M, expr_source(2, 1, x), 0.0, 0.0, "of block {a, b}", NULL);
  lth_jet *J = lth_jet_alloc(2, 1, 2, NULL);
  size_t wn = lth_source_work_size(Y, 2);
  double *w = malloc(wn * sizeof *w);
  lth_error err;
  ck_assert_int_eq(lth_source_fill(Y, 0.5, 2, J, w, &err), LTH_ESING);
  ck_assert(err.has_t && err.t == 0.5);
  ck_assert_ptr_nonnull(
      strstr(err.message, "the mass matrix of block {a, b} is singular at t = 0.5"));
  TU_ASSERT_OK(lth_source_fill(Y, 0.25, 2, J, w, NULL));
  ck_assert(fabs(LTH_JET_AT(J, 0, 1, 0) - 2 / (0.25 - 0.5)) < 1e-14);
  /* the scan finds the sign change between two check points */
  double times[3] = {0.0, 0.3, 0.7}, mscale = 0.0;
  ck_assert_int_eq(lth_source_solve_scan(M, times, 3, 0.0, "M(1)", &mscale, &err), LTH_ESING);
  ck_assert_ptr_nonnull(strstr(err.message, "singular between t = 0.3 and t = 0.7"));
  free(w);
  lth_jet_free(J);
  lth_source_free(Y);
  lth_source_free(M);
  /* (1 + 1e-13 - t) I on [0, 1]: cond(M(1)) = 1, but it is 1e-13 of its size */
  const char *s[4] = {"1.0000000000001 - t", "0", "0", "1.0000000000001 - t"};
  M = expr_source(2, 2, s);
  double ts[2] = {0.0, 1.0};
  ck_assert_int_eq(lth_source_solve_scan(M, ts, 2, 0.0, "M(2)", &mscale, &err), LTH_ECOND);
  ck_assert(err.has_t && err.t == 1.0 && err.has_cond && err.cond > 9e12);
  ck_assert_ptr_nonnull(strstr(err.message, "the mass matrix M(2) is nearly singular at t = 1"));
  lth_source_free(M);
}
END_TEST

/* An index-3 system with blocks (2, 2, 1); `mass` adds M(1), M(2) and
 * multiplies rows 1 and 2 by them with literal products. */
static const char *BASE = "blocks 2 2 1\ninterval 0 2\ngrid 5\n"
                          "A(1,1) = [-0.1 0.2*t; 0 -0.3]\n"
                          "A(1,2) = [1 0; 0.5*sin(t) 1]\n"
                          "A(1,3) = [1; 0.5 + 0.1*t]\n"
                          "A(2,1) = [1 0.2; 0 1 + 0.1*cos(t)]\n"
                          "A(2,2) = [0 0.1; -0.1 0]\n"
                          "A(3,2) = [1 t]\n"
                          "f(1) = [sin(t); 1]\n"
                          "f(2) = [0; t^2]\n"
                          "f(3) = 0.2*cos(t)\n";

static const char *MASSED = "blocks 2 2 1\ninterval 0 2\ngrid 5\n"
                            "M(1) = [2 + sin(t), 0.3*t; exp(-t) 1.5]\n"
                            "M(2) = [3 - cos(t) 0.5; 0.2*t^2 1];\n"
                            "A(1,1) = [2 + sin(t), 0.3*t; exp(-t) 1.5] * [-0.1 0.2*t; 0 -0.3]\n"
                            "A(1,2) = [2 + sin(t), 0.3*t; exp(-t) 1.5] * [1 0; 0.5*sin(t) 1]\n"
                            "A(1,3) = [2 + sin(t), 0.3*t; exp(-t) 1.5] * [1; 0.5 + 0.1*t]\n"
                            "A(2,1) = [3 - cos(t) 0.5; 0.2*t^2 1] * [1 0.2; 0 1 + 0.1*cos(t)]\n"
                            "A(2,2) = [3 - cos(t) 0.5; 0.2*t^2 1] * [0 0.1; -0.1 0]\n"
                            "A(3,2) = [1 t]\n"
                            "f(1) = [2 + sin(t), 0.3*t; exp(-t) 1.5] * [sin(t); 1]\n"
                            "f(2) = [3 - cos(t) 0.5; 0.2*t^2 1] * [0; t^2]\n"
                            "f(3) = 0.2*cos(t)\n";

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  char msg[1024];
  int st = lth_problem_parse(text, strlen(text), "mass.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s", lth_error_format(&err, msg, sizeof msg));
  return pb;
}

START_TEST(test_block_form_mass_matches) {
  lth_problem *a = parse(BASE), *b = parse(MASSED);
  const lth_system *sa = lth_problem_system(a), *sb = lth_problem_system(b);
  int K = 4, s = 5;
  lth_jet *Aa = lth_jet_alloc(s, s, K, NULL), *fa = lth_jet_alloc(s, 1, K, NULL);
  lth_jet *Ab = lth_jet_alloc(s, s, K, NULL), *fb = lth_jet_alloc(s, 1, K, NULL);
  size_t wn = lth_system_work_size(sb, K) + lth_system_work_size(sa, K);
  double *w = malloc(wn * sizeof *w), worst = 0.0;
  for (double t = 0.0; t <= 2.0; t += 0.37) {
    TU_ASSERT_OK(lth_system_eval(sa, t, K, Aa, fa, w, NULL));
    TU_ASSERT_OK(lth_system_eval(sb, t, K, Ab, fb, w, NULL));
    double e = fmax(tu_jet_relerr(Ab, Aa), tu_jet_relerr(fb, fa));
    worst = fmax(worst, e);
  }
  ck_assert_msg(worst < 1e-13, "M(i) eliminated: worst relative difference %.3g", worst);
  /* the decomposition agrees (canonical outputs), and so do trajectories */
  lth_point *pa = lth_point_alloc(sa, 0, NULL), *pbp = lth_point_alloc(sb, 0, NULL);
  lth_decomp_ws *wa = lth_decomp_ws_alloc(sa, 0, NULL), *wb = lth_decomp_ws_alloc(sb, 0, NULL);
  TU_ASSERT_OK(lth_decomp_at(wa, 1.3, pa, NULL));
  TU_ASSERT_OK(lth_decomp_at(wb, 1.3, pbp, NULL));
  ck_assert(tu_jet_relerr(&pbp->P, &pa->P) < 1e-12 && tu_jet_relerr(&pbp->q, &pa->q) < 1e-12);
  ck_assert(tu_jet_relerr(&pbp->G, &pa->G) < 1e-12 && tu_jet_relerr(&pbp->g, &pa->g) < 1e-12);
  double z0[5] = {0}, times[3] = {0.0, 1.0, 2.0};
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.project = 1;
  lth_ivp_result *ra = NULL, *rb = NULL;
  TU_ASSERT_OK(lth_ivp_solve(sa, 0.0, z0, times, 3, &o, &ra, NULL));
  TU_ASSERT_OK(lth_ivp_solve(sb, 0.0, z0, times, 3, &o, &rb, NULL));
  for (int k = 0; k < 15; k++) {
    ck_assert_msg(fabs(ra->z[k] - rb->z[k]) <= 1e-9 * (1 + fabs(ra->z[k])), "z[%d]", k);
  }
  lth_ivp_result_free(ra);
  lth_ivp_result_free(rb);
  lth_decomp_ws_free(wa);
  lth_decomp_ws_free(wb);
  lth_point_free(pa);
  lth_point_free(pbp);
  free(w);
  lth_jet_free(Aa);
  lth_jet_free(fa);
  lth_jet_free(Ab);
  lth_jet_free(fb);
  lth_problem_free(a);
  lth_problem_free(b);
}
END_TEST

static void refused(const char *text, int line, int status, const char *substring) {
  lth_problem *pb = NULL;
  lth_error err;
  int st = lth_problem_parse(text, strlen(text), "m.lth", NULL, &pb, &err);
  ck_assert_msg(st == status && err.line == line && strstr(err.message, substring),
                "got %d at line %d: %s", st, err.line, err.message);
  ck_assert_int_eq(lth_status_exit_code(st), 2);
  ck_assert_ptr_null(pb);
}

START_TEST(test_block_form_mass_refused) {
  const char *head = "blocks 2 1\ninterval 0 1\nA(1,2) = [1; 1]\nA(2,1) = [1 0]\n";
  char text[1024];
  snprintf(text, sizeof text, "%sM(1) = [1 0; 0 t - 0.5]\n", head);
  refused(text, 5, LTH_EMODEL, "the mass matrix M(1) is singular at t = 0.5");
  snprintf(text, sizeof text, "%sgrid [0 0.3 0.7 1]\nM(1) = [1 0; 0 1.0000000000001 - t]\n", head);
  refused(text, 6, LTH_EMODEL, "the mass matrix M(1) is nearly singular at t = 1");
  snprintf(text, sizeof text, "%sM(2) = 1\n", head);
  refused(text, 5, LTH_ESTRUCT, "M(2): mass matrices belong to the differential block rows 1..1");
  snprintf(text, sizeof text, "%sM(1) = eye\nM(1) = 2*eye\n", head);
  refused(text, 6, LTH_EPARSE, "M(1) is given twice (first on line 5)");
  snprintf(text, sizeof text, "%sM(1) = [1 2 3]\n", head);
  refused(text, 5, LTH_EDIM, "M(1) is 2 x 2, but the matrix literal is 1 x 3");
  refused("M(1) = 1\nblocks 2 1\n", 1, LTH_EPARSE, "M(1) before `blocks`");
}
END_TEST

static Suite *mass_suite(void) {
  Suite *s = suite_create("mass");
  TCase *tc = tcase_create("mass");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_solve_source_is_exact);
  tcase_add_test(tc, test_solve_source_refuses);
  tcase_add_test(tc, test_block_form_mass_matches);
  tcase_add_test(tc, test_block_form_mass_refused);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(mass_suite)
