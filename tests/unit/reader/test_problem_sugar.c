/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Conveniences of the data file against their hand-written equivalents:
 *   - named functions of t (lib/reader/problem_func.c), in the equation
 *     form, the block form (matrix literals, matrix-valued functions, a
 *     definition between blocks) and LQR files, and composed with
 *     expressions in t: the same system, bitwise (the same operations on the
 *     same values: nodes are shared, not rewritten);
 *   - derivatives of products (m(t)*v)' (lib/reader/problem_deriv.c)
 *     against the product rule written by hand: bitwise where the hand
 *     writes the derivative as the chain rule builds it (0.5*cos(t) for
 *     1 + 0.5*sin(t)), else to 1e-13 relative to the size of the jets:
 *     both sides evaluate the same smooth coefficients, each with a few
 *     dozen roundings of terms no larger than the jets' size (a wrong
 *     derivative is off by O(1));
 *   - names of derivatives without the apostrophe (lth_name_find).
 * The system is compared through lth_system_eval: the assembled A(t) and
 * f(t) with Taylor coefficients to order 6, at points across the interval,
 * which is all that the decomposition, the IVP and the BVP read. */
#include <string.h>

#include "lth/problem.h"
#include "sysdiff.h"
#include "testutil.h"

#define ORDER 6

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_status st = lth_problem_parse(text, strlen(text), "sugar.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s:%d:%d: %s\n%s", err.file, err.line, err.column, err.message,
                text);
  return pb;
}

/* The largest difference of the assembled jets of A and f over the points,
 * relative to their size (max(1, max |coefficient|)); -1 if the structure
 * (index, blocks, names) differs. */
static double system_diff(const char *a, const char *b) {
  lth_problem *pa = parse(a), *pbb = parse(b);
  const lth_system *sa = lth_problem_system(pa), *sb = lth_problem_system(pbb);
  int s = lth_system_size(sa);
  double worst = 0.0;
  if (s != lth_system_size(sb) || lth_system_index(sa) != lth_system_index(sb)) {
    worst = -1.0;
  }
  for (int k = 0; worst >= 0 && k < lth_problem_nvars(pa); k++) {
    if (strcmp(lth_problem_var_name(pa, k), lth_problem_var_name(pbb, k)) != 0) {
      worst = -1.0;
    }
  }
  if (worst >= 0) {
    double t0, t1;
    lth_problem_interval(pa, &t0, &t1);
    worst = sysdiff_jets(sa, sb, t0, t1, ORDER);
  }
  lth_problem_free(pa);
  lth_problem_free(pbb);
  return worst;
}

#define SAME(a, b) ck_assert_msg(system_diff(a, b) == 0.0, "not the same system, bitwise")

/* ---- named functions ---------------------------------------------------- */

static const char *MASS_HEAD = "problem equations\n"
                               "variables x1 x2 v1 v2 lambda\n"
                               "interval 0 5\n"
                               "param k = 3\n"
                               "x1' = v1\n"
                               "x2' = v2\n";

START_TEST(test_named_equations) {
  char a[4096], b[4096];
  snprintf(a, sizeof a,
           "%sm11(t) = 2 + sin(t)\n"
           "m22(t) = 1.5 + 0.5*cos(t)\n"
           "f1(t) = m11(t)*(-sin(t)) - 0.3*cos(t) + k*sin(t) - cos(2*t)\n"
           "f2(t) = -0.3*sin(t) - m22(t)*cos(t) + k*cos(t) - cos(2*t)\n"
           "m11(t)*v1' + 0.3*v2' = -k*x1 + lambda + f1(t)\n"
           "[0.3 m22(t)]*[v1'; v2'] = -k*x2 + lambda + f2(t)\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  snprintf(b, sizeof b,
           "%s(2 + sin(t))*v1' + 0.3*v2' = -k*x1 + lambda + ((2 + sin(t))*(-sin(t)) - "
           "0.3*cos(t) + k*sin(t) - cos(2*t))\n"
           "[0.3 1.5 + 0.5*cos(t)]*[v1'; v2'] = -k*x2 + lambda + (-0.3*sin(t) - (1.5 + "
           "0.5*cos(t))*cos(t) + k*cos(t) - cos(2*t))\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  SAME(a, b);
}
END_TEST

START_TEST(test_named_blocks) {
  /* a matrix-valued function, a function between blocks, k(2*t - 1) and k(0) */
  SAME("blocks 2 2 1\ninterval 0 10\n"
       "R(t) = [cos(t) -sin(t); sin(t) cos(t)]\n"
       "A(1,2) = -4*R(t)'*R(t)\n"
       "A(1,3) = R(t)*[1; 0]\n"
       "w(t) = 1 + 0.1*t^2\n"
       "A(2,1) = [w(t) 0; 0 w(2*t - 1)]\n"
       "A(3,2) = [1 w(0)]*R(t)'\n"
       "f(1) = [w(t); exp(-w(t))]\n",
       "blocks 2 2 1\ninterval 0 10\n"
       "A(1,2) = -4*[cos(t) -sin(t); sin(t) cos(t)]'*[cos(t) -sin(t); sin(t) cos(t)]\n"
       "A(1,3) = [cos(t) -sin(t); sin(t) cos(t)]*[1; 0]\n"
       "A(2,1) = [1 + 0.1*t^2 0; 0 1 + 0.1*(2*t - 1)^2]\n"
       "A(3,2) = [1 1]*[cos(t) -sin(t); sin(t) cos(t)]'\n"
       "f(1) = [1 + 0.1*t^2; exp(-(1 + 0.1*t^2))]\n");
}
END_TEST

START_TEST(test_named_lqr) {
  SAME("problem lqr\nsizes 2 1\ninterval 0 1.5\n"
       "a(t) = 1 + 0.5*sin(t)\n"
       "A = [0, 1; -a(t), -0.1]\nB = [0; 1 + 0.2*cos(t)]\nH = [1 + 0.3*sin(2*t), 0.1; 0.1, "
       "a(t)]\nx0 = [1; 0]\n",
       "problem lqr\nsizes 2 1\ninterval 0 1.5\n"
       "A = [0, 1; -(1 + 0.5*sin(t)), -0.1]\nB = [0; 1 + 0.2*cos(t)]\nH = [1 + 0.3*sin(2*t), "
       "0.1; 0.1, 1 + 0.5*sin(t)]\nx0 = [1; 0]\n");
}
END_TEST

/* ---- derivatives of products --------------------------------------------- */

START_TEST(test_product_rule_as_written) {
  char a[4096], b[4096];
  /* Newton's law with a time-varying mass, a sum of products, and m(t) named */
  snprintf(a, sizeof a,
           "%sm(t) = 2 + sin(t)\n"
           "(m(t)*v1 + 0.3*v2)' = -k*x1 + lambda\n"
           "((1.5 + 0.5*cos(t))*v2 + 0.3*v1)' = -k*x2 + lambda + sin(t)\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  snprintf(b, sizeof b,
           "%s(2 + sin(t))*v1' + cos(t)*v1 + 0.3*v2' = -k*x1 + lambda\n"
           "(1.5 + 0.5*cos(t))*v2' + 0.5*(-sin(t))*v2 + 0.3*v1' = -k*x2 + lambda + sin(t)\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  SAME(a, b);
  /* the second derivative of a product brings the velocity, as x'' does */
  SAME("problem equations\nvariables x lambda y\ninterval 0 2\n"
       "((1 + t)*x')' = -x + lambda\n0 = x - y\ny' = (1 + t)*x\n",
       "problem equations\nvariables x lambda y\ninterval 0 2\n"
       "(1 + t)*x'' + x' = -x + lambda\n0 = x - y\ny' = (1 + t)*x\n");
}
END_TEST

START_TEST(test_product_rule_to_rounding) {
  char a[4096], b[4096];
  snprintf(a, sizeof a,
           "%sc(t) = exp(-t/4)*(2 + sin(3*t))\n"
           "(c(t)*v1 + 0.3*v2 + atan(t))' = -k*x1 + lambda\n"
           "(0.3*v1 + sqrt(2 + t)*v2)' = -k*x2 + lambda\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  snprintf(b, sizeof b,
           "%sc(t) = exp(-t/4)*(2 + sin(3*t))\n"
           "c(t)*v1' + (-exp(-t/4)/4*(2 + sin(3*t)) + exp(-t/4)*3*cos(3*t))*v1 + 0.3*v2' = "
           "-k*x1 + lambda - 1/(1 + t^2)\n"
           "0.3*v1' + sqrt(2 + t)*v2' + 1/(2*sqrt(2 + t))*v2 = -k*x2 + lambda\n"
           "0 = x1 + x2 - sin(t) - cos(t)\n",
           MASS_HEAD);
  double d = system_diff(a, b);
  ck_assert_msg(d >= 0.0 && d <= 1e-13, "product rule vs by hand: %.3g", d);
  /* a wrong hand derivative (a sign) is seen: the comparison can fail */
  char *minus = strstr(b, "-exp(-t/4)/4");
  ck_assert_ptr_nonnull(minus);
  *minus = ' ';
  d = system_diff(a, b);
  ck_assert_msg(d > 1e-3, "a wrong derivative went unnoticed: %.3g", d);
}
END_TEST

/* ---- names of derivatives ------------------------------------------------ */

START_TEST(test_name_spellings) {
  const char *names[] = {"x", "x'", "y", "p2_dot", "p2_dot'", "q", "q''", "q_dot'", "r", "r'''"};
  int n = (int)(sizeof names / sizeof names[0]);
  ck_assert_int_eq(lth_name_find(names, n, "x'"), 1);
  ck_assert_int_eq(lth_name_find(names, n, "d.x"), 1);
  ck_assert_int_eq(lth_name_find(names, n, "x_dot"), 1);
  ck_assert_int_eq(lth_name_find(names, n, "p2_dot"), 3);     /* the name itself first */
  ck_assert_int_eq(lth_name_find(names, n, "d.p2_dot"), 4);   /* p2'' does not exist */
  ck_assert_int_eq(lth_name_find(names, n, "q_dot_dot"), -1); /* q'' or q_dot': neither */
  ck_assert_int_eq(lth_name_find(names, n, "d.q_dot"), -1);
  ck_assert_int_eq(lth_name_find(names, n, "d.d.q"), 6);
  ck_assert_int_eq(lth_name_find(names, n, "d.d.r_dot"), 9);
  ck_assert_int_eq(lth_name_find(names, n, "d.y"), -1);
  ck_assert_int_eq(lth_name_find(names, n, "x_dot_dot"), -1);
  ck_assert_int_eq(lth_name_find(names, n, "d."), -1);
  ck_assert_int_eq(lth_name_find(names, n, "_dot"), -1);
  ck_assert_int_eq(lth_name_find(names, n, "d.x'"), -1); /* x'' does not exist */
  ck_assert_int_eq(lth_name_find(names, n, NULL), -1);
  lth_problem *pb = parse("problem equations\nvariables x lambda\ninterval 0 1\n"
                          "x'' = lambda\n0 = x - t^2\n");
  ck_assert_int_eq(lth_problem_find_var(pb, "x_dot"), lth_problem_find_var(pb, "x'"));
  ck_assert_int_eq(lth_problem_find_var(pb, "d.x"), 1);
  lth_problem_free(pb);
}
END_TEST

static Suite *sugar_suite(void) {
  Suite *s = suite_create("problem_sugar");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_named_equations);
  tcase_add_test(tc, test_named_blocks);
  tcase_add_test(tc, test_named_lqr);
  tcase_add_test(tc, test_product_rule_as_written);
  tcase_add_test(tc, test_product_rule_to_rounding);
  tcase_add_test(tc, test_name_spellings);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(sugar_suite)
