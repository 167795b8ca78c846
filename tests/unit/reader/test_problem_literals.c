/* SPDX-License-Identifier: GPL-3.0-or-later */
/* MATLAB-like literals in data files (lib/reader/problem_lit.c, lib/reader/problem_val.c):
 * blank-separated entries with MATLAB's rule for signs, eye / zeros / ones /
 * diag, scalar * matrix, sums, products, transposes, concatenation, a
 * trailing ';', vectors as rows or columns; and the exact errors (line,
 * column, message) with hints for MATLAB habits. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "lth/problem.h"
#include "testutil.h"

/* A(1,1) (2 x 2) of an index-2 system whose other blocks are fixed. */
static lth_problem *parse_block(const char *rhs, lth_error *err) {
  char text[4096];
  snprintf(text, sizeof text,
           "blocks 2 1\ninterval 0 1\nparam m = 2.385\nA(1,1) = %s\nA(1,2) = [1; 0]\n"
           "A(2,1) = [0, 1]\n",
           rhs);
  lth_problem *pb = NULL;
  lth_problem_parse(text, strlen(text), "lit.lth", NULL, &pb, err);
  return pb;
}

/* Check A(1,1)(t) and its first Taylor coefficient against ref (row-major). */
static void check_block(const char *rhs, double t, const double ref[4], const double dref[4]) {
  lth_error err;
  char msg[1024];
  lth_problem *pb = parse_block(rhs, &err);
  ck_assert_msg(pb != NULL, "%s: %s", rhs, lth_error_format(&err, msg, sizeof msg));
  const lth_system *sys = lth_problem_system(pb);
  lth_jet *A = lth_jet_alloc(3, 3, 1, NULL), *f = lth_jet_alloc(3, 1, 1, NULL);
  size_t wn = lth_system_work_size(sys, 1);
  double *work = malloc((wn ? wn : 1) * sizeof *work);
  TU_ASSERT_OK(lth_system_eval(sys, t, 1, A, f, work, NULL));
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      double v = LTH_JET_AT(A, 0, i, j), d = LTH_JET_AT(A, 1, i, j);
      ck_assert_msg(fabs(v - ref[2 * i + j]) <= 1e-15 * (1 + fabs(ref[2 * i + j])),
                    "%s: entry (%d,%d) = %.17g, expected %.17g", rhs, i + 1, j + 1, v,
                    ref[2 * i + j]);
      double dr = dref ? dref[2 * i + j] : 0.0;
      ck_assert_msg(fabs(d - dr) <= 1e-13 * (1 + fabs(dr)), "%s: d/dt (%d,%d) = %.17g", rhs, i + 1,
                    j + 1, d);
      ck_assert_msg(!signbit(v) || v != 0.0, "%s: a negative zero at (%d,%d)", rhs, i + 1, j + 1);
    }
  }
  free(work);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_problem_free(pb);
}

/* The literal must fail on line 4 (A(1,1)'s line) at col with msg inside. */
static void check_error(const char *rhs, int col, const char *substring) {
  lth_error err;
  lth_problem *pb = parse_block(rhs, &err);
  ck_assert_msg(pb == NULL, "%s parsed but should fail", rhs);
  ck_assert_msg(err.line == 4 && err.column == col && strstr(err.message, substring) != NULL,
                "%s: got %d:%d %s; expected 4:%d ...%s...", rhs, err.line, err.column, err.message,
                col, substring);
  ck_assert_int_eq(lth_status_exit_code(err.status), 2);
}

START_TEST(test_blank_separated_entries) {
  const double a[4] = {1, -2, 3, 4}, b[4] = {-1, 0, 3, 4}, c[4] = {1, 2, 3, 4};
  check_block("[1 -2; 3 4]", 0.5, a, NULL);     /* '-' after a blank, none after: new entry */
  check_block("[1, -2; 3, 4]", 0.5, a, NULL);   /* the contract's commas */
  check_block("[1 - 2, 0; 3 4]", 0.5, b, NULL); /* blanks on both sides: binary */
  check_block("[1-2 0; 3 4]", 0.5, b, NULL);    /* no blanks: binary */
  check_block("[1 -  2 0; 3 4]", 0.5, b, NULL);
  check_block("[1 +2; 3 4]", 0.5, c, NULL);
  check_block("[1 2\n 3 4]", 0.5, c, NULL);      /* newline between rows */
  check_block("[1, 2\n\n 3, 4;]", 0.5, c, NULL); /* blank line, ';' before ']' */
}
END_TEST

START_TEST(test_builders_and_algebra) {
  double t = 0.37, m = 2.385;
  const double I[4] = {1, 0, 0, 1}, mI[4] = {-1, 0, 0, -1}, mI2[4] = {m, 0, 0, m};
  check_block("eye", t, I, NULL);
  check_block("eye(2)", t, I, NULL);
  check_block("-eye", t, mI, NULL);
  check_block("m*eye", t, mI2, NULL);
  check_block("eye*m;", t, mI2, NULL); /* trailing ';' */
  const double z[4] = {0, 0, 0, 0}, o[4] = {1, 1, 1, 1}, d[4] = {m, 0, 0, -1};
  check_block("zeros(2)", t, z, NULL);
  check_block("zeros(2, 2)", t, z, NULL);
  check_block("ones(2,2)", t, o, NULL);
  check_block("diag([m -1])", t, d, NULL);
  check_block("[eye(2,1) zeros(2,1)] + [0; 0]*[1 1] + [0 0; 0 1]", t, I, NULL);
  const double tr[4] = {1, 3, 2, 4}, pr[4] = {1 + 6, 2 + 8, 3, 4};
  check_block("[1 2; 3 4]'", t, tr, NULL);
  check_block("[1 2; 3 4].'", t, tr, NULL);
  check_block("[[1 2]' [3 4]']", t, tr, NULL);
  check_block("[1 2; 0 1] * [1 2; 3 4]", t, pr, NULL);
  const double sc[4] = {0.5, 1, 1.5, 2};
  check_block("[1 2; 3 4]/2", t, sc, NULL);
  check_block("[1 2; 3 4] - 1 + 0.5*[1 2; 3 4] - [0 0; 0 0] + [1 1; 1 1] - [1 2; 3 4]/2", t,
              (const double[4]){1, 2, 3, 4}, NULL);
  /* t-dependent sums and products, with derivatives */
  const double v[4] = {1 + t * t, sin(t), 3 * t, 2};
  const double dv[4] = {2 * t, cos(t), 3, 0};
  check_block("eye + [t^2 sin(t); 3*t 1]", t, v, dv);
  check_block("[t 0; 0 t] * [t, sin(t)/t; 3 2/t] + [1 0; 0 0]", t, v, dv);
  /* precedence as in lib/jet/expr.c: -t^2 = -(t^2), 2^3^2 = 2^9 */
  const double p[4] = {-t * t, 512, 0, 1}, dp[4] = {-2 * t, 0, 0, 0};
  check_block("[-t^2, 2^3^2; 0 1]", t, p, dp);
  /* vectors as rows or columns: A(1,2) is 2 x 1 */
  lth_error err;
  const char *text = "blocks 2 1\ninterval 0 1\nA(1,2) = [1 2]\nA(2,1) = [0; 1]\nf(1) = [0, t]\n";
  lth_problem *pb = NULL;
  ck_assert_int_eq(lth_problem_parse(text, strlen(text), "v.lth", NULL, &pb, &err), LTH_OK);
  lth_jet *A = lth_jet_alloc(3, 3, 0, NULL), *f = lth_jet_alloc(3, 1, 0, NULL);
  double work[64];
  TU_ASSERT_OK(lth_system_eval(lth_problem_system(pb), 0.25, 0, A, f, work, NULL));
  ck_assert(LTH_JET_AT(A, 0, 0, 2) == 1.0 && LTH_JET_AT(A, 0, 1, 2) == 2.0);
  ck_assert(LTH_JET_AT(A, 0, 2, 1) == 1.0 && LTH_JET_AT(f, 0, 1, 0) == 0.25);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_problem_free(pb);
}
END_TEST

/* Constants that come out of arithmetic are exact where lib/jet/expr.c is. */
START_TEST(test_structural_zeros_stay_exact) {
  const double z[4] = {0, 0, 0, 0};
  check_block("0*[t sin(t); 1 2]", 0.3, z, NULL);
  check_block("[t 1; 2 3] - [t 1; 2 3]", 0.3, (const double[4]){0, 0, 0, 0}, NULL);
}
END_TEST

START_TEST(test_errors_with_hints) {
  check_error("[1 2; 3]", 16, "row 2 of the matrix has 1 entry, but row 1 has 2");
  check_error("[1 2 3; 4 5 6]", 10, "A(1,1) is 2 x 2, but the matrix literal is 2 x 3");
  check_error("[1 2]*[3 4]", 15, "the inner sizes must agree (2 != 1)");
  check_error("[1 2; 3 4] .* eye", 21, "elementwise operators are not supported");
  check_error("[1 2; 3 4] ** 2", 21, "'**' is not an operator: write '^'");
  check_error("[1 2 % c\n 3 4]", 15, "'%' does not start a comment");
  check_error("{1 2; 3 4}", 10, "matrix literals are written with '[' and ']'");
  check_error("[1 ', 2; 3 4]", 13, "a quote after a blank");
  check_error("[1(2) 3; 4 5]", 12, "expected ',', a blank, ';' or ']' after an entry");
  check_error("[1, , 2; 3 4]", 14, "empty expression between two ','");
  check_error("[1 Inf; 3 4]", 13, "unknown name 'Inf' (non-finite values are not allowed");
  check_error("eye(2,3)", 10, "A(1,1) is 2 x 2, but the matrix literal is 2 x 3");
  check_error("zeros", 15, "expected '(' and a size after zeros/ones");
  check_error("eye(1.5)", 14, "must be a constant integer");
  check_error("[t 0; 0 t]^2", 20, "matrix powers are not supported");
  check_error("sin([1 2; 3 4])", 10, "functions apply to scalars");
  check_error("m(2)*eye", 10, "'m' is a param, not a function");
  check_error("2", 10, "give its entries as a matrix literal");
  check_error("[1 2; 3 4] 5", 21, "expected the end of the statement");
  check_error("(eye", 14, "expected ')' to close the '(' at 4:10");
  check_error("[1 2; 3 4]/[1 2]", 20, "'/' needs a scalar on its right");
  check_error("[1 2; 3 4]/0", 20, "division by zero");
  check_error("[log(-1) 0; 0 1]", 11, "log of a non-positive value");
  check_error("[1 2; 3 4] + [1 2 3]", 21, "'+' of a 2 x 2 and a 1 x 3 matrix");
}
END_TEST

/* eye sized by its block: refused where the block is not square. */
START_TEST(test_bare_eye_needs_square_block) {
  const char *text = "blocks 2 1\ninterval 0 1\nA(1,2) = eye\n";
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_ne(lth_problem_parse(text, strlen(text), "e.lth", NULL, &pb, &err), LTH_OK);
  ck_assert_int_eq(err.line, 3);
  ck_assert_int_eq(err.column, 10);
  ck_assert_ptr_nonnull(strstr(err.message, "`eye` needs a square block, but A(1,2) is 2 x 1"));
  /* ... and a z0 / bc / C literal may use builders and algebra */
  text = "blocks 2 2 1\ninterval 0 1\nA(1,3) = [1 2]\nA(2,1) = eye\nA(3,2) = [1 2]\n"
         "z0 = [zeros(1,4) 1]';\nbc B0 = [eye(2) zeros(2,3)]\nbc B1 = zeros(2,5)\n"
         "bc beta = 2*ones(2,1)\ngrid [0 0.5 1]\n";
  ck_assert_int_eq(lth_problem_parse(text, strlen(text), "z.lth", NULL, &pb, &err), LTH_OK);
  const double *z0, *B0, *B1, *beta, *grid;
  ck_assert_int_eq(lth_problem_z0(pb, &z0), 1);
  ck_assert(z0[4] == 1.0 && z0[0] == 0.0);
  ck_assert_int_eq(lth_problem_bc(pb, &B0, &B1, &beta), 2);
  ck_assert(B0[0] == 1.0 && B0[3] == 1.0 && B0[2] == 0.0 && beta[1] == 2.0);
  ck_assert_uint_eq(lth_problem_grid(pb, &grid), 3);
  ck_assert(grid[1] == 0.5);
  lth_problem_free(pb);
}
END_TEST

/* A long scalar sum (990 KB, 120,000 terms, as in a file generated by a
 * modelling tool): its cost is its length.  It used to be refused ("the
 * matrix algebra of this file would take more than 2e+08 entry operations":
 * every '+' copied and charged the whole text so far). */
START_TEST(test_long_scalar_sum) {
  static const char *const term[] = {"+sin(t)*t", "+cos(t)*t", "-t*t/2", "+exp(-t)"};
  enum { TERMS = 120000 };
  size_t cap = (size_t)TERMS * 10 + 256, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text, cap, "blocks 1 1\ninterval 0 1\nA(1,1) = t");
  double cnt[4] = {0};
  for (int k = 0; k < TERMS; k++) {
    int kind = (k * 7 + k / 3) % 4; /* an irregular mix */
    len += (size_t)snprintf(text + len, cap - len, "%s", term[kind]);
    cnt[kind]++;
  }
  len += (size_t)snprintf(text + len, cap - len, "\nA(1,2) = 1\nA(2,1) = 1\n");
  ck_assert_int_gt((long)len, 900000);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, len, "sum.lth", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  const lth_system *sys = lth_problem_system(pb);
  lth_jet *A = lth_jet_alloc(2, 2, 1, NULL), *f = lth_jet_alloc(2, 1, 1, NULL);
  size_t wn = lth_system_work_size(sys, 1);
  double *work = malloc((wn ? wn : 1) * sizeof *work), t = 0.7;
  TU_ASSERT_OK(lth_system_eval(sys, t, 1, A, f, work, NULL));
  double v = t + cnt[0] * sin(t) * t + cnt[1] * cos(t) * t - cnt[2] * t * t / 2 + cnt[3] * exp(-t);
  double d = 1 + cnt[0] * (cos(t) * t + sin(t)) + cnt[1] * (cos(t) - sin(t) * t) - cnt[2] * t -
             cnt[3] * exp(-t);
  /* recursive summation: |error| <= (n - 1) eps sum |terms| (Higham, Accuracy and
   * Stability, (4.4)), for the values and, term by term, the derivatives */
  double st = sin(t), ct = cos(t), e = exp(-t);
  double abs_v = t + cnt[0] * st * t + cnt[1] * ct * t + cnt[2] * t * t / 2 + cnt[3] * e;
  double abs_d = 1 + cnt[0] * (ct * t + st) + cnt[1] * (ct + st * t) + cnt[2] * t + cnt[3] * e;
  double tol = 2.0 * TERMS * DBL_EPSILON * fmax(abs_v, abs_d);
  ck_assert_msg(fabs(LTH_JET_AT(A, 0, 0, 0) - v) <= tol, "value %.17g, exact %.17g",
                LTH_JET_AT(A, 0, 0, 0), v);
  ck_assert_msg(fabs(LTH_JET_AT(A, 1, 0, 0) - d) <= tol, "d/dt %.17g, exact %.17g",
                LTH_JET_AT(A, 1, 0, 0), d);
  free(work);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_problem_free(pb);
  free(text);
}
END_TEST

/* Nesting is bounded through every operator: 100,000 powers 2^2^...^t are
 * refused naming the depth, not a stack overflow (they crashed the reader,
 * whose own parser counted parentheses and signs but not '^'). */
START_TEST(test_power_chain_is_bounded) {
  enum { N = 100000 };
  size_t cap = 2 * (size_t)N + 128, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text, cap, "blocks 1 1\ninterval 0 1\nA(1,1) = ");
  for (int k = 0; k < N; k++) {
    memcpy(text + len, "2^", 2);
    len += 2;
  }
  len += (size_t)snprintf(text + len, cap - len, "t\nA(1,2) = 1\nA(2,1) = 1\n");
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_ne(lth_problem_parse(text, len, "pow.lth", NULL, &pb, &err), LTH_OK);
  ck_assert_ptr_null(pb);
  ck_assert_int_eq(lth_status_exit_code(err.status), 2);
  ck_assert_int_eq(err.line, 3);
  ck_assert_int_eq(err.column, 10 + 2 * 200); /* the '2' past 200 levels */
  ck_assert_ptr_nonnull(strstr(err.message, "nested too deeply (more than 200 levels)"));
  free(text);
}
END_TEST

/* A product of 64 rotation matrices R(t) = [cos t, -sin t; sin t, cos t] is
 * R(64 t): read without a size limit (its entries, written out as formulas,
 * would hold 4^64 terms; they used to be refused as text of more than 16 MB
 * or 2e8 entry operations) and evaluated in time linear in the factors.
 * Tolerances: 64 products of exact rotations in doubles err by a few
 * hundred ulps in the value; the first derivative 64 R'(64 t) by 64 times
 * that. */
START_TEST(test_long_matrix_product) {
  enum { FACTORS = 64 };
  static const char rot[] = "[cos(t), -sin(t); sin(t), cos(t)]";
  size_t cap = FACTORS * (sizeof rot + 2) + 256, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text, cap, "blocks 2 2\ninterval 0 1\nA(1,1) = %s", rot);
  for (int k = 1; k < FACTORS; k++) {
    len += (size_t)snprintf(text + len, cap - len, "*%s", rot);
  }
  len += (size_t)snprintf(text + len, cap - len, "\nA(1,2) = eye\nA(2,1) = eye\n");
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, len, "rot.lth", NULL, &pb, &err) == LTH_OK, "%d:%d %s",
                err.line, err.column, err.message);
  const lth_system *sys = lth_problem_system(pb);
  lth_jet *A = lth_jet_alloc(4, 4, 1, NULL), *f = lth_jet_alloc(4, 1, 1, NULL);
  size_t wn = lth_system_work_size(sys, 1);
  double *work = malloc((wn ? wn : 1) * sizeof *work);
  for (double t = 0.1; t < 1.0; t += 0.2) {
    TU_ASSERT_OK(lth_system_eval(sys, t, 1, A, f, work, NULL));
    double c = cos(FACTORS * t), s = sin(FACTORS * t);
    const double R[2][2] = {{c, -s}, {s, c}}, dR[2][2] = {{-s, -c}, {c, -s}};
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 2; j++) {
        double v = LTH_JET_AT(A, 0, i, j), d = LTH_JET_AT(A, 1, i, j);
        ck_assert_msg(fabs(v - R[i][j]) <= 1e-13, "(%d,%d) at %g: %.17g, exact %.17g", i, j, t, v,
                      R[i][j]);
        ck_assert_msg(fabs(d - FACTORS * dR[i][j]) <= FACTORS * 1e-13,
                      "d/dt (%d,%d) at %g: %.17g, exact %.17g", i, j, t, d, FACTORS * dR[i][j]);
      }
    }
  }
  free(work);
  lth_jet_free(A);
  lth_jet_free(f);
  lth_problem_free(pb);
  free(text);
}
END_TEST

/* Formulas that grow through matrix algebra still meet the file's budget,
 * now counted in expression nodes built and compiled: refused at once, not
 * after minutes or gigabytes. */
START_TEST(test_growth_meets_the_budget) {
  const char *text = "blocks 300 300\ninterval 0 1\n"
                     "A(1,1) = (t*ones(300, 300))*(sin(t)*ones(300, 300))*(cos(t)*ones(300, 300))"
                     "\nA(1,2) = eye\nA(2,1) = eye\n";
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_ne(lth_problem_parse(text, strlen(text), "big.lth", NULL, &pb, &err), LTH_OK);
  ck_assert_ptr_null(pb);
  ck_assert_int_eq(err.line, 3);
  ck_assert_int_eq(lth_status_exit_code(err.status), 2);
  ck_assert_ptr_nonnull(strstr(err.message, "too large for a data file"));
}
END_TEST

static Suite *literal_suite(void) {
  Suite *s = suite_create("problem_literals");
  TCase *tc = tcase_create("literals");
  tcase_set_timeout(tc, 120); /* a 1 MB formula on a loaded machine */
  tcase_add_test(tc, test_blank_separated_entries);
  tcase_add_test(tc, test_builders_and_algebra);
  tcase_add_test(tc, test_structural_zeros_stay_exact);
  tcase_add_test(tc, test_errors_with_hints);
  tcase_add_test(tc, test_bare_eye_needs_square_block);
  tcase_add_test(tc, test_long_scalar_sum);
  tcase_add_test(tc, test_power_chain_is_bounded);
  tcase_add_test(tc, test_long_matrix_product);
  tcase_add_test(tc, test_growth_meets_the_budget);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(literal_suite)
