/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the calculus on built expressions (lth_ebuild_deriv,
 * lth_ebuild_subst_t, lib/jet/expr_deriv.c).
 *
 * The derivative is checked against an independent computation: the Taylor
 * coefficients of x at t, shifted (coefficient m of x' is (m+1) x_{m+1}),
 * over random expressions using every operation; the two differ by the
 * rounding of two different evaluations, so they are compared with a
 * relative tolerance of 1e-9 of the coefficients' size (a wrong rule is off
 * by O(1)).  The substitution is checked against the composition written
 * as text, bitwise (the same operations in the same order). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jet/expr_build.h"
#include "lth/expr.h"
#include "testutil.h"

#define K 5

static lth_escalar C(double v) { return (lth_escalar){v, -1}; }
static lth_escalar N(int node) { return (lth_escalar){0.0, node}; }

static lth_expr *compile(lth_ebuild *b, lth_escalar x) {
  lth_expr *e = NULL;
  lth_error err;
  int root = x.node >= 0 ? x.node : lth_ebuild_const(b, x.v, 0);
  ck_assert_int_eq(lth_ebuild_compile(b, root, SIZE_MAX, &e, NULL, &err), LTH_OK);
  return e;
}

static lth_status taylor(const lth_expr *e, double t, int k, double *c) {
  double *w = malloc(lth_expr_work_size(e, k) * sizeof *w);
  ck_assert_ptr_nonnull(w);
  lth_status st = lth_expr_taylor(e, t, k, c, w, NULL);
  free(w);
  return st;
}

typedef struct gen {
  uint64_t state;
  lth_ebuild *b;
} gen;

static unsigned rnd(gen *g, unsigned n) {
  g->state = g->state * 6364136223846793005u + 1442695040888963407u;
  return (unsigned)(g->state >> 33) % n;
}

static lth_escalar op(lth_ebuild *b, int o, lth_escalar x, lth_escalar y) {
  lth_escalar r;
  ck_assert_int_eq(lth_ebuild_combine(b, o, x, y, &r, NULL), LTH_OK);
  return r;
}

static lth_escalar fn(lth_ebuild *b, int f, lth_escalar x) {
  lth_escalar r;
  ck_assert_int_eq(lth_ebuild_apply(b, f, x, &r, NULL), LTH_OK);
  return r;
}

/* A random expression of depth <= d, its operands kept inside the domains
 * (a bounded s = sin(...) feeds the functions that need one). */
static lth_escalar random_expr(gen *g, int d) {
  lth_ebuild *b = g->b;
  unsigned kind = d <= 0 ? rnd(g, 2) : 2 + rnd(g, 6);
  if (kind == 0) {
    static const double consts[] = {2.385, 0.5, 1.0, -0.75, 3.0};
    return C(consts[rnd(g, 5)]);
  }
  if (kind == 1) {
    return N(lth_ebuild_t(b, 1));
  }
  lth_escalar x = random_expr(g, d - 1);
  if (kind == 2) {
    lth_escalar r;
    ck_assert_int_eq(lth_ebuild_negate(b, x, &r, NULL), LTH_OK);
    return r;
  }
  if (kind <= 4) {
    static const char ops[] = "+-*";
    return op(b, ops[rnd(g, 3)], x, random_expr(g, d - 1));
  }
  lth_escalar s = fn(b, LTH_EFN_SIN, x), pos = op(b, '+', C(2.0), s); /* in [1, 3] */
  if (kind == 5) {
    switch (rnd(g, 5)) {
    case 0:
      return op(b, '/', random_expr(g, d - 1), pos);
    case 1:
      return op(b, '^', pos, C(rnd(g, 2) ? 0.5 : 3.0));
    case 2:
      return op(b, '^', x, C(rnd(g, 2) ? 2.0 : 1.0));
    case 3:
      return op(b, '^', pos, fn(b, LTH_EFN_COS, random_expr(g, d - 1)));
    default:
      return op(b, '^', pos, C(-1.5));
    }
  }
  switch (rnd(g, 13)) {
  case 0:
    return fn(b, LTH_EFN_SIN, x);
  case 1:
    return fn(b, LTH_EFN_COS, x);
  case 2:
    return fn(b, LTH_EFN_TAN, op(b, '*', C(0.5), s));
  case 3:
    return fn(b, LTH_EFN_EXP, s);
  case 4:
    return fn(b, LTH_EFN_LOG, pos);
  case 5:
    return fn(b, LTH_EFN_SQRT, pos);
  case 6:
    return fn(b, LTH_EFN_SINH, s);
  case 7:
    return fn(b, LTH_EFN_COSH, s);
  case 8:
    return fn(b, LTH_EFN_TANH, x);
  case 9:
    return fn(b, LTH_EFN_ASIN, op(b, '*', C(0.5), s));
  case 10:
    return fn(b, LTH_EFN_ACOS, op(b, '*', C(0.5), s));
  case 11:
    return fn(b, LTH_EFN_ATAN, x);
  default:
    return fn(b, LTH_EFN_ABS, op(b, '-', s, C(2.0))); /* in [-3, -1] */
  }
}

/* Coefficient m of x' equals (m+1) x_{m+1} at several t. */
static void check_deriv(lth_ebuild *b, lth_escalar x, const char *what) {
  static const double ts[] = {0.0, 0.37, -1.3, 2.385};
  lth_escalar dx;
  lth_error err;
  ck_assert_int_eq(lth_ebuild_deriv(b, x, &dx, &err), LTH_OK);
  lth_expr *e = compile(b, x), *de = compile(b, dx);
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
    double c[K + 2], dc[K + 1];
    ck_assert_int_eq(taylor(e, ts[i], K + 1, c), LTH_OK);
    ck_assert_int_eq(taylor(de, ts[i], K, dc), LTH_OK);
    double scale = 1.0;
    for (int m = 0; m <= K; m++) {
      scale = fmax(scale, fmax(fabs(dc[m]), fabs((m + 1) * c[m + 1])));
    }
    for (int m = 0; m <= K; m++) {
      double ref = (m + 1) * c[m + 1];
      ck_assert_msg(fabs(dc[m] - ref) <= 1e-9 * scale,
                    "%s: coefficient %d of d/dt at t = %g is %.17g, the shifted series gives "
                    "%.17g",
                    what, m, ts[i], dc[m], ref);
    }
  }
  lth_expr_free(e);
  lth_expr_free(de);
}

START_TEST(test_deriv_random) {
  gen g = {2385, lth_ebuild_alloc()};
  ck_assert_ptr_nonnull(g.b);
  for (int k = 0; k < 3000; k++) {
    char what[64];
    snprintf(what, sizeof what, "random expression %d", k);
    check_deriv(g.b, random_expr(&g, 1 + k % 5), what);
    lth_ebuild_reset(g.b);
  }
  lth_ebuild_free(g.b);
}
END_TEST

/* d/dt is built with the algebra: constants are exact zeros, and the
 * derivative of a formula is the node a user would write. */
START_TEST(test_deriv_exact) {
  lth_ebuild *b = lth_ebuild_alloc();
  lth_escalar t = N(lth_ebuild_t(b, 1)), d;
  ck_assert_int_eq(lth_ebuild_deriv(b, C(3.0), &d, NULL), LTH_OK);
  ck_assert(d.node < 0 && d.v == 0.0);
  ck_assert_int_eq(lth_ebuild_deriv(b, t, &d, NULL), LTH_OK);
  ck_assert(d.node < 0 && d.v == 1.0);
  /* 1 + 0.5 sin(t) -> 0.5 cos(t), bitwise as written */
  lth_escalar x = op(b, '+', C(1.0), op(b, '*', C(0.5), fn(b, LTH_EFN_SIN, t)));
  ck_assert_int_eq(lth_ebuild_deriv(b, x, &d, NULL), LTH_OK);
  lth_expr *e = compile(b, d), *p = NULL;
  ck_assert_int_eq(lth_expr_parse("0.5*cos(t)", 10, NULL, NULL, &p, NULL), LTH_OK);
  for (double s = -2.0; s <= 2.0; s += 0.37) {
    double c[K + 1], q[K + 1];
    ck_assert_int_eq(taylor(e, s, K, c), LTH_OK);
    ck_assert_int_eq(taylor(p, s, K, q), LTH_OK);
    ck_assert(memcmp(c, q, sizeof c) == 0);
  }
  lth_expr_free(e);
  lth_expr_free(p);
  /* |a|' at a = 0 fails when evaluated, naming t */
  lth_escalar a = fn(b, LTH_EFN_ABS, op(b, '-', t, C(1.0)));
  ck_assert_int_eq(lth_ebuild_deriv(b, a, &d, NULL), LTH_OK);
  e = compile(b, d);
  double v;
  lth_error err;
  ck_assert_int_eq(lth_expr_eval(e, 2.0, &v, NULL), LTH_OK);
  ck_assert(v == 1.0);
  ck_assert_int_eq(lth_expr_eval(e, 0.0, &v, NULL), LTH_OK);
  ck_assert(v == -1.0);
  ck_assert_int_ne(lth_expr_eval(e, 1.0, &v, &err), LTH_OK);
  lth_expr_free(e);
  lth_ebuild_free(b);
}
END_TEST

/* A chain of 200000 nodes: no recursion on the C stack. */
START_TEST(test_deriv_long_chain) {
  lth_ebuild *b = lth_ebuild_alloc();
  lth_escalar x = N(lth_ebuild_t(b, 1)), d, s;
  for (int k = 0; k < 100000; k++) {
    x = op(b, '+', op(b, '*', C(0.5), x), N(lth_ebuild_t(b, 1)));
  }
  ck_assert_int_eq(lth_ebuild_deriv(b, x, &d, NULL), LTH_OK);
  lth_expr *e = compile(b, d);
  double v; /* x' = 0.5 x' + 1 from x' = 1: tends to 2 */
  ck_assert_int_eq(lth_expr_eval(e, 0.3, &v, NULL), LTH_OK);
  ck_assert(fabs(v - 2.0) < 1e-12);
  lth_expr_free(e);
  ck_assert_int_eq(lth_ebuild_subst_t(b, x, C(0.0), &s, NULL), LTH_OK);
  ck_assert(s.node < 0 && s.v == 0.0);
  lth_ebuild_free(b);
}
END_TEST

/* x(arg): the composition written as text, bitwise; x(t) shares x. */
START_TEST(test_subst) {
  lth_ebuild *b = lth_ebuild_alloc();
  lth_escalar t = N(lth_ebuild_t(b, 1)), r;
  lth_escalar x = op(b, '+', C(2.0), op(b, '*', C(0.5), fn(b, LTH_EFN_SIN, op(b, '^', t, C(2.0)))));
  ck_assert_int_eq(lth_ebuild_subst_t(b, x, N(lth_ebuild_t(b, 3)), &r, NULL), LTH_OK);
  ck_assert_int_eq(r.node, x.node);
  lth_escalar arg = op(b, '-', op(b, '*', C(2.0), t), C(1.0));
  ck_assert_int_eq(lth_ebuild_subst_t(b, x, arg, &r, NULL), LTH_OK);
  lth_expr *e = compile(b, r), *p = NULL;
  const char *text = "2 + 0.5*sin((2*t - 1)^2)";
  ck_assert_int_eq(lth_expr_parse(text, strlen(text), NULL, NULL, &p, NULL), LTH_OK);
  for (double s = -2.0; s <= 2.0; s += 0.37) {
    double c[K + 1], q[K + 1];
    ck_assert_int_eq(taylor(e, s, K, c), LTH_OK);
    ck_assert_int_eq(taylor(p, s, K, q), LTH_OK);
    ck_assert_msg(memcmp(c, q, sizeof c) == 0, "x(2t - 1) at t = %g", s);
  }
  lth_expr_free(e);
  lth_expr_free(p);
  /* a constant argument folds; one outside a domain is an error here */
  ck_assert_int_eq(lth_ebuild_subst_t(b, x, C(0.0), &r, NULL), LTH_OK);
  ck_assert(r.node < 0 && r.v == 2.0);
  lth_escalar l = fn(b, LTH_EFN_LOG, t);
  lth_error err;
  ck_assert_int_eq(lth_ebuild_subst_t(b, l, C(-1.0), &r, &err), LTH_EDOMAIN);
  ck_assert_ptr_nonnull(strstr(err.message, "log"));
  lth_ebuild_free(b);
}
END_TEST

START_TEST(test_truncate) {
  lth_ebuild *b = lth_ebuild_alloc();
  int t = lth_ebuild_t(b, 1), s = lth_ebuild_func(b, LTH_EFN_SIN, t, 1);
  lth_ebuild_const(b, 2.0, 1);
  lth_ebuild_truncate(b, 2);
  ck_assert_uint_eq(lth_ebuild_size(b), 2);
  lth_expr *e = compile(b, N(s));
  double v;
  ck_assert_int_eq(lth_expr_eval(e, 0.5, &v, NULL), LTH_OK);
  ck_assert(v == sin(0.5));
  lth_expr_free(e);
  lth_ebuild_truncate(b, 10); /* beyond the size: nothing */
  ck_assert_uint_eq(lth_ebuild_size(b), 2);
  lth_ebuild_free(b);
}
END_TEST

static Suite *deriv_suite(void) {
  Suite *s = suite_create("expr_deriv");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_deriv_random);
  tcase_add_test(tc, test_deriv_exact);
  tcase_add_test(tc, test_deriv_long_chain);
  tcase_add_test(tc, test_subst);
  tcase_add_test(tc, test_truncate);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(deriv_suite)
