/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the expression builder (lib/jet/expr_build.h): built expressions
 * evaluate exactly as the parsed text that describes them (the same
 * operations in the same order, so values, Taylor coefficients, enclosures
 * and domain errors are bitwise equal); the algebra keeps structural zeros
 * exact and folds constants with the run-time kernels' errors; shared nodes
 * are compiled once; the compiled size is bounded on request. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jet/expr_build.h"
#include "lth/expr.h"
#include "testutil.h"

#define K 6

static lth_expr *compile(lth_ebuild *b, int root) {
  lth_expr *e = NULL;
  lth_error err;
  lth_status st = lth_ebuild_compile(b, root, SIZE_MAX, &e, NULL, &err);
  ck_assert_msg(st == LTH_OK, "compile: %s", err.message);
  return e;
}

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  lth_error err;
  lth_status st = lth_expr_parse(s, strlen(s), NULL, NULL, &e, &err);
  ck_assert_msg(st == LTH_OK, "parse '%s': %s (column %d)", s, err.message, err.column);
  return e;
}

/* Status and coefficients c[0..K] (or the error message) at t. */
static lth_status taylor(const lth_expr *e, double t, double *c, char *msg, size_t size) {
  double *w = malloc(lth_expr_work_size(e, K) * sizeof *w);
  ck_assert_ptr_nonnull(w);
  lth_error err;
  lth_error_clear(&err);
  memset(c, 0, (K + 1) * sizeof *c);
  lth_status st = lth_expr_taylor(e, t, K, c, w, &err);
  snprintf(msg, size, "%s", st == LTH_OK ? "" : err.message);
  free(w);
  return st;
}

/* Built and parsed agree bitwise at several t, in enclosures and structural zeros. */
static void check_same(const lth_expr *built, const lth_expr *parsed, const char *text) {
  static const double ts[] = {0.0, 0.37, -1.3, 2.385};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    double cb[K + 1], cp[K + 1];
    char mb[LTH_ERROR_MSG_MAX], mp[LTH_ERROR_MSG_MAX];
    lth_status sb = taylor(built, ts[k], cb, mb, sizeof mb);
    lth_status sp = taylor(parsed, ts[k], cp, mp, sizeof mp);
    ck_assert_msg(sb == sp && strcmp(mb, mp) == 0, "%s at t = %g: built %d '%s', parsed %d '%s'",
                  text, ts[k], sb, mb, sp, mp);
    ck_assert_msg(memcmp(cb, cp, sizeof cb) == 0, "%s at t = %g: value %.17g, parsed %.17g", text,
                  ts[k], cb[0], cp[0]);
    lth_interval ib[K + 1], ip[K + 1];
    lth_interval *w = malloc(lth_expr_enclose_work_size(parsed, K) * sizeof *w);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(lth_expr_enclose(parsed, ts[k], ts[k] + 0.25, K, ip, w, NULL), LTH_OK);
    free(w);
    w = malloc(lth_expr_enclose_work_size(built, K) * sizeof *w);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(lth_expr_enclose(built, ts[k], ts[k] + 0.25, K, ib, w, NULL), LTH_OK);
    free(w);
    ck_assert_msg(memcmp(ib, ip, sizeof ib) == 0, "%s: enclosures differ on [%g, %g]", text, ts[k],
                  ts[k] + 0.25);
  }
  ck_assert_int_eq(lth_expr_depends_on_t(built), lth_expr_depends_on_t(parsed));
  ck_assert_int_eq(lth_expr_is_zero(built), lth_expr_is_zero(parsed));
}

/* ---- random expressions, built and written at once ---------------------- */

typedef struct gen {
  uint64_t state;
  lth_ebuild *b;
} gen;

static unsigned rnd(gen *g, unsigned n) {
  g->state = g->state * 6364136223846793005u + 1442695040888963407u;
  return (unsigned)(g->state >> 33) % n;
}

/* A random expression of depth <= d: its node, and its text appended to s. */
static int random_expr(gen *g, int d, char *s, size_t size) {
  static const double consts[] = {2.385, 0.0, 1.0, -0.5, 3.0, 1e-3, 7.25};
  static const char *const ops = "+-*/^";
  size_t len = strlen(s);
  unsigned kind = d <= 0 ? rnd(g, 2) : rnd(g, 6);
  if (kind == 0) {
    double c = consts[rnd(g, sizeof consts / sizeof consts[0])];
    snprintf(s + len, size - len, "(%.17g)", c);
    return lth_ebuild_const(g->b, c, 1);
  }
  if (kind == 1) {
    snprintf(s + len, size - len, "t");
    return lth_ebuild_t(g->b, 1);
  }
  if (kind == 2) {
    snprintf(s + len, size - len, "-(");
    int x = random_expr(g, d - 1, s, size);
    strncat(s, ")", size - strlen(s) - 1);
    return lth_ebuild_neg(g->b, x, 1);
  }
  if (kind == 3) {
    int fn = (int)rnd(g, LTH_EFN_COUNT);
    len = strlen(s);
    snprintf(s + len, size - len, "%s(", lth_expr_func_name(fn));
    int x = random_expr(g, d - 1, s, size);
    strncat(s, ")", size - strlen(s) - 1);
    return lth_ebuild_func(g->b, fn, x, 1);
  }
  int op = ops[rnd(g, 5)];
  strncat(s, "(", size - strlen(s) - 1);
  int x = random_expr(g, d - 1, s, size);
  len = strlen(s);
  snprintf(s + len, size - len, ")%c(", op);
  int y = random_expr(g, d - 1, s, size);
  strncat(s, ")", size - strlen(s) - 1);
  return lth_ebuild_binary(g->b, op, x, y, 1);
}

START_TEST(test_built_equals_parsed) {
  gen g = {2385, lth_ebuild_alloc()};
  ck_assert_ptr_nonnull(g.b);
  for (int k = 0; k < 2000; k++) {
    char text[1 << 14] = "";
    int root = random_expr(&g, 1 + k % 6, text, sizeof text);
    ck_assert_int_ge(root, 0);
    lth_expr *built = compile(g.b, root), *parsed = parse(text);
    /* the same program: the same workspace */
    ck_assert_uint_eq(lth_expr_work_size(built, K), lth_expr_work_size(parsed, K));
    check_same(built, parsed, text);
    lth_expr_free(built);
    lth_expr_free(parsed);
  }
  lth_ebuild_free(g.b);
}
END_TEST

/* ---- the algebra -------------------------------------------------------- */

static lth_escalar C(double v) { return (lth_escalar){v, -1}; }
static lth_escalar N(int node) { return (lth_escalar){0.0, node}; }

static lth_escalar comb(lth_ebuild *b, int op, lth_escalar x, lth_escalar y) {
  lth_escalar r;
  lth_error err;
  lth_status st = lth_ebuild_combine(b, op, x, y, &r, &err);
  ck_assert_msg(st == LTH_OK, "combine '%c': %s", op, err.message);
  return r;
}

static void expect_error(lth_status st, const lth_error *err, const char *msg) {
  ck_assert_int_eq(st, LTH_EDOMAIN);
  ck_assert_msg(strstr(err->message, msg) != NULL, "'%s' lacks '%s'", err->message, msg);
}

START_TEST(test_exact_zeros_and_ones) {
  lth_ebuild *b = lth_ebuild_alloc();
  int t = lth_ebuild_t(b, 1), s = lth_ebuild_func(b, LTH_EFN_SIN, t, 1);
  lth_escalar x = N(s), r;
  /* structural zeros are exact constants, no nodes */
  size_t n0 = lth_ebuild_size(b);
  r = comb(b, '*', C(0.0), x);
  ck_assert(r.node < 0 && r.v == 0.0 && !signbit(r.v));
  r = comb(b, '*', x, C(0.0));
  ck_assert(r.node < 0 && r.v == 0.0);
  r = comb(b, '/', C(0.0), x);
  ck_assert(r.node < 0 && r.v == 0.0);
  r = comb(b, '^', x, C(0.0));
  ck_assert(r.node < 0 && r.v == 1.0);
  /* ones and zeros that leave x: the same node, shared */
  ck_assert_int_eq(comb(b, '*', C(1.0), x).node, s);
  ck_assert_int_eq(comb(b, '*', x, C(1.0)).node, s);
  ck_assert_int_eq(comb(b, '+', C(0.0), x).node, s);
  ck_assert_int_eq(comb(b, '+', x, C(0.0)).node, s);
  ck_assert_int_eq(comb(b, '-', x, C(0.0)).node, s);
  ck_assert_int_eq(comb(b, '/', x, C(1.0)).node, s);
  ck_assert_int_eq(comb(b, '^', x, C(1.0)).node, s);
  ck_assert_uint_eq(lth_ebuild_size(b), n0); /* none of the above built a node */
  /* 0 - x is -x */
  r = comb(b, '-', C(0.0), x);
  lth_expr *e = compile(b, r.node), *p = parse("-(sin(t))");
  check_same(e, p, "0 - sin(t)");
  lth_expr_free(e);
  lth_expr_free(p);
  /* constants: + - * / in doubles, ^ by the kernel */
  r = comb(b, '*', C(2.385), C(3.0));
  ck_assert(r.node < 0 && r.v == 2.385 * 3.0);
  r = comb(b, '^', C(2.0), C(0.5));
  ck_assert(r.node < 0 && r.v == sqrt(2.0));
  lth_error err;
  expect_error(lth_ebuild_combine(b, '/', C(2.385), C(0.0), &r, &err), &err,
               "division by zero in '/' (2.385 / 0)");
  expect_error(lth_ebuild_combine(b, '/', x, C(0.0), &r, &err), &err,
               "division by zero in '/' (a function of t / 0)");
  expect_error(lth_ebuild_combine(b, '*', C(1e308), C(10.0), &r, &err), &err,
               "non-finite value from '*'");
  expect_error(lth_ebuild_combine(b, '^', C(-1.0), C(0.5), &r, &err), &err,
               "real power of a non-positive value");
  expect_error(lth_ebuild_apply(b, LTH_EFN_LOG, C(-1.0), &r, &err), &err,
               "log of a non-positive value (-1)");
  ck_assert_int_eq(lth_ebuild_apply(b, LTH_EFN_ATAN, C(1.0), &r, &err), LTH_OK);
  ck_assert(r.node < 0 && r.v == atan(1.0));
  ck_assert_int_eq(lth_ebuild_negate(b, C(0.0), &r, &err), LTH_OK);
  ck_assert(r.node < 0 && r.v == 0.0 && !signbit(r.v)); /* no negative zero */
  lth_ebuild_free(b);
}
END_TEST

/* Nodes as written fold constants only, as the parser does: t*0 stays a
 * function of t (its enclosure is exactly 0), 1/0 stays for evaluation. */
START_TEST(test_nodes_as_written) {
  lth_ebuild *b = lth_ebuild_alloc();
  double v;
  int two = lth_ebuild_const(b, 2.0, 1), three = lth_ebuild_const(b, 3.0, 3);
  int six = lth_ebuild_binary(b, '*', two, three, 2);
  ck_assert(lth_ebuild_is_const(b, six, &v) && v == 6.0);
  int t = lth_ebuild_t(b, 1), zero = lth_ebuild_const(b, 0.0, 3);
  int tz = lth_ebuild_binary(b, '*', t, zero, 2);
  ck_assert(!lth_ebuild_is_const(b, tz, &v) && lth_ebuild_depends_on_t(b, tz));
  lth_expr *e = compile(b, tz);
  ck_assert_int_eq(lth_expr_depends_on_t(e), 1);
  ck_assert_int_eq(lth_expr_is_zero(e), 1);
  lth_expr_free(e);
  int one = lth_ebuild_const(b, 1.0, 1), z2 = lth_ebuild_const(b, 0.0, 3);
  int q = lth_ebuild_binary(b, '/', one, z2, 2);
  ck_assert(!lth_ebuild_is_const(b, q, &v));
  e = compile(b, q);
  double c[1];
  lth_error err;
  ck_assert_int_eq(lth_expr_eval(e, 0.5, c, &err), LTH_EDOMAIN);
  ck_assert_int_eq(err.column, 2); /* the operator's column */
  ck_assert_ptr_nonnull(strstr(err.message, "division by zero in '/'"));
  lth_expr_free(e);
  lth_ebuild_free(b);
}
END_TEST

/* ---- sharing ------------------------------------------------------------ */

START_TEST(test_shared_nodes_compile_once) {
  lth_ebuild *b = lth_ebuild_alloc();
  lth_error err;
  int t = lth_ebuild_t(b, 1), s = lth_ebuild_func(b, LTH_EFN_SIN, t, 1);
  /* sin(t) * sin(t) with one sin(t): 3 nodes, not the parser's 5 */
  int sq = lth_ebuild_binary(b, '*', s, s, 1);
  lth_expr *e = NULL, *p = parse("sin(t)*sin(t)");
  size_t nodes = 0;
  ck_assert_int_eq(lth_ebuild_compile(b, sq, SIZE_MAX, &e, &nodes, &err), LTH_OK);
  ck_assert_uint_eq(nodes, 3);
  ck_assert_uint_lt(lth_expr_work_size(e, K), lth_expr_work_size(p, K));
  double ce[K + 1], cp[K + 1];
  char msg[LTH_ERROR_MSG_MAX];
  for (double tt = -1.3; tt < 2.0; tt += 0.4) {
    ck_assert_int_eq(taylor(e, tt, ce, msg, sizeof msg), LTH_OK);
    ck_assert_int_eq(taylor(p, tt, cp, msg, sizeof msg), LTH_OK);
    ck_assert(memcmp(ce, cp, sizeof ce) == 0);
  }
  lth_expr_free(e);
  lth_expr_free(p);
  /* doubling 60 times: a tree of 2^61 nodes, a program of 62 */
  lth_escalar x = N(s);
  for (int k = 0; k < 60; k++) {
    x = comb(b, '+', x, x);
  }
  ck_assert_int_eq(lth_ebuild_compile(b, x.node, SIZE_MAX, &e, &nodes, &err), LTH_OK);
  ck_assert_uint_eq(nodes, 62);
  double v;
  ck_assert_int_eq(lth_expr_eval(e, 0.37, &v, NULL), LTH_OK);
  ck_assert(v == ldexp(sin(0.37), 60)); /* every sum doubles exactly */
  lth_expr_free(e);
  /* x - x is exactly 0 whether x is shared or written twice, x - y is not */
  int s2 = lth_ebuild_func(b, LTH_EFN_SIN, lth_ebuild_t(b, 5), 5);
  int c2 = lth_ebuild_func(b, LTH_EFN_COS, lth_ebuild_t(b, 5), 5);
  int d1 = lth_ebuild_binary(b, '-', s, s, 1), d2 = lth_ebuild_binary(b, '-', s, s2, 1);
  int d3 = lth_ebuild_binary(b, '-', s, c2, 1);
  lth_expr *e1 = compile(b, d1), *e2 = compile(b, d2), *e3 = compile(b, d3);
  ck_assert_int_eq(lth_expr_is_zero(e1), 1);
  ck_assert_int_eq(lth_expr_is_zero(e2), 1);
  ck_assert_int_eq(lth_expr_is_zero(e3), 0);
  lth_expr_free(e1);
  lth_expr_free(e2);
  lth_expr_free(e3);
  lth_ebuild_free(b);
}
END_TEST

START_TEST(test_compile_bound_and_reset) {
  lth_ebuild *b = lth_ebuild_alloc();
  lth_error err;
  lth_escalar x = N(lth_ebuild_t(b, 1));
  for (int k = 0; k < 100; k++) {
    x = comb(b, '*', x, N(lth_ebuild_func(b, LTH_EFN_COS, lth_ebuild_t(b, 1), 1)));
  }
  lth_expr *e = (lth_expr *)&err; /* must be reset to NULL */
  ck_assert_int_eq(lth_ebuild_compile(b, x.node, 100, &e, NULL, &err), LTH_EDIM);
  ck_assert_ptr_null(e);
  ck_assert_ptr_nonnull(strstr(err.message, "more than 100 operations"));
  size_t nodes = 0;
  ck_assert_int_eq(lth_ebuild_compile(b, x.node, 301, &e, &nodes, &err), LTH_OK); /* again */
  ck_assert_uint_eq(nodes, 301);
  lth_expr_free(e);
  ck_assert_int_eq(lth_ebuild_compile(b, -1, SIZE_MAX, &e, NULL, &err), LTH_EINVAL);
  lth_ebuild_reset(b);
  ck_assert_uint_eq(lth_ebuild_size(b), 0);
  ck_assert_int_eq(lth_ebuild_compile(b, x.node, SIZE_MAX, &e, NULL, &err), LTH_EINVAL);
  int t = lth_ebuild_t(b, 1);
  ck_assert_int_eq(t, 0);
  e = compile(b, t);
  double v;
  ck_assert_int_eq(lth_expr_eval(e, 2.385, &v, NULL), LTH_OK);
  ck_assert(v == 2.385);
  lth_expr_free(e);
  lth_ebuild_free(b);
}
END_TEST

START_TEST(test_function_names) {
  for (int k = 0; k < LTH_EFN_COUNT; k++) {
    const char *name = lth_expr_func_name(k);
    ck_assert_int_eq(lth_expr_func_find(name, strlen(name)), k);
  }
  ck_assert_int_eq(lth_expr_func_find("sinn", 4), -1);
  ck_assert_int_eq(lth_expr_func_find("sin", 2), -1);
}
END_TEST

static Suite *build_suite(void) {
  Suite *s = suite_create("expr_build");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_built_equals_parsed);
  tcase_add_test(tc, test_exact_zeros_and_ones);
  tcase_add_test(tc, test_nodes_as_written);
  tcase_add_test(tc, test_shared_nodes_compile_once);
  tcase_add_test(tc, test_compile_bound_and_reset);
  tcase_add_test(tc, test_function_names);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(build_suite)
