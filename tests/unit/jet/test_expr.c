/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for lth/expr.h: parsing, errors with columns, constant folding and
 * Taylor coefficients of every function against closed forms and identities.
 *
 * Tolerances.  For a reference coefficient r_m the computed c_m must satisfy
 *   |c_m - r_m| <= tol(m) * max(1, |r_m|),   tol(m) = 1e-13 * 10^(0.3 m),
 * i.e. 1e-13 at order 0 and 1e-10 at order 10.  For identities whose exact
 * value is 0 the scale is instead max(1, max_m |x_m|), the coefficient scale
 * of the input jet x of the identity. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lth/expr.h>
#include <lth/status.h>

#define PI   3.14159265358979323846
#define KMAX 12
/* x(t) in [0.1, 0.7]: inside every function's domain, nontrivial jet */
#define X    "(0.4 + 0.3*sin(1.7*t))"
#define XNEG "(-0.4 - 0.3*sin(1.7*t))"

static const double TS[] = {0.3, 0.7, 1.9};
#define NTS (sizeof TS / sizeof TS[0])

static double tol(int m) { return 1e-13 * pow(10.0, 0.3 * m); }

/* Exact-length heap copy without a terminating NUL, so that reading past len
 * is caught by valgrind and AddressSanitizer. */
static char *exact_copy(const char *s, size_t *len) {
  *len = strlen(s);
  char *b = malloc(*len ? *len : 1);
  ck_assert_ptr_nonnull(b);
  memcpy(b, s, *len);
  return b;
}

static lth_expr *parse_ok(const char *s, lth_expr_lookup_fn lookup, void *ctx) {
  size_t len;
  char *b = exact_copy(s, &len);
  lth_expr *e = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_expr_parse(b, len, lookup, ctx, &e, &err);
  free(b);
  ck_assert_msg(st == LTH_OK, "parse '%s': status %d: %s (column %d)", s, st, err.message,
                err.column);
  ck_assert_ptr_nonnull(e);
  return e;
}

/* Taylor coefficients c[0..K] of s at t; returns the status. */
static lth_status jet_st(const char *s, double t, int K, double *c, lth_error *err) {
  lth_expr *e = parse_ok(s, NULL, NULL);
  double *w = malloc(lth_expr_work_size(e, K) * sizeof *w);
  ck_assert_ptr_nonnull(w);
  lth_error_clear(err);
  lth_status st = lth_expr_taylor(e, t, K, c, w, err);
  free(w);
  lth_expr_free(e);
  return st;
}

static void jet(const char *s, double t, int K, double *c) {
  lth_error err;
  lth_status st = jet_st(s, t, K, c, &err);
  ck_assert_msg(st == LTH_OK, "'%s' at t=%g: status %d: %s", s, t, st, err.message);
}

static double value(const char *s, double t) {
  double c[1];
  jet(s, t, 0, c);
  return c[0];
}

typedef double (*ref_fn)(double t, int m);

static void check_ref(const char *s, double t, int K, ref_fn ref) {
  double c[KMAX + 1];
  jet(s, t, K, c);
  for (int m = 0; m <= K; m++) {
    double r = ref(t, m), scale = fabs(r) > 1 ? fabs(r) : 1;
    ck_assert_msg(fabs(c[m] - r) <= tol(m) * scale, "'%s' at t=%g, order %d: %.17g vs %.17g", s, t,
                  m, c[m], r);
  }
}

/* An identity s == 0 as a jet, scaled by the coefficients of x. */
static void check_zero(const char *s, const char *x, double t, int K) {
  double c[KMAX + 1], xc[KMAX + 1], scale = 1;
  jet(s, t, K, c);
  jet(x, t, K, xc);
  for (int m = 0; m <= K; m++) {
    scale = fabs(xc[m]) > scale ? fabs(xc[m]) : scale;
  }
  for (int m = 0; m <= K; m++) {
    ck_assert_msg(fabs(c[m]) <= tol(m) * scale, "'%s' at t=%g, order %d: %.3g (scale %g)", s, t, m,
                  c[m], scale);
  }
}

/* ---- closed forms ------------------------------------------------------- */

static double fact(int m) { return m ? m * fact(m - 1) : 1.0; }
/* generalized binomial coefficient binom(a, m) */
static double gbinom(double a, int m) {
  double r = 1;
  for (int i = 0; i < m; i++) {
    r *= (a - i) / (i + 1);
  }
  return r;
}

#define C1   0.37
#define C0   0.21
#define U(t) (C1 * (t) + C0)
static double r_exp(double t, int m) { return pow(C1, m) * exp(U(t)) / fact(m); }
static double r_sin(double t, int m) { return pow(C1, m) * sin(U(t) + m * PI / 2) / fact(m); }
static double r_cos(double t, int m) { return pow(C1, m) * cos(U(t) + m * PI / 2) / fact(m); }
static double r_sinh(double t, int m) {
  return pow(C1, m) * (m % 2 ? cosh(U(t)) : sinh(U(t))) / fact(m);
}
static double r_cosh(double t, int m) {
  return pow(C1, m) * (m % 2 ? sinh(U(t)) : cosh(U(t))) / fact(m);
}
static double r_sin_t(double t, int m) { return sin(t + m * PI / 2) / fact(m); }
static double r_geom(double t, int m) { return pow(1 - t, -(m + 1)); }
static double r_log(double t, int m) {
  return m ? (m % 2 ? 1 : -1) * pow(C1 / U(t), m) / m : log(U(t));
}
/* log(1 + t): (-1)^{m+1} / (m (1+t)^m), at t = 0 simply (-1)^{m+1} / m */
static double r_log1p(double t, int m) {
  return m ? (m % 2 ? 1.0 : -1.0) / (m * pow(1 + t, m)) : log1p(t);
}
static double r_sqrt(double t, int m) { return gbinom(0.5, m) * pow(C1, m) * pow(U(t), 0.5 - m); }
static double r_pow237(double t, int m) {
  return gbinom(2.37, m) * pow(C1, m) * pow(U(t), 2.37 - m);
}
static double r_powm3(double t, int m) { return gbinom(-3, m) * pow(C1, m) * pow(U(t), -3 - m); }
static double r_powm70(double t, int m) { return gbinom(-70, m) * pow(C1, m) * pow(U(t), -70 - m); }
static double r_cube(double t, int m) { return m > 3 ? 0 : gbinom(3, m) * pow(t, 3 - m); }
static double r_t70(double t, int m) { return gbinom(70, m) * pow(t, 70 - m); }
static double r_2t(double t, int m) { return pow(log(2.0), m) * pow(2.0, t) / fact(m); }
/* abs of a negative argument: -(0.37 t - 2) */
static double r_abs(double t, int m) { return m == 0 ? fabs(C1 * t - 2) : m == 1 ? -C1 : 0; }
/* series at t = 0 (odd functions: coefficient of t^m) */
static double r_atan0(double t, int m) {
  (void)t;
  return m % 2 ? ((m / 2) % 2 ? -1.0 : 1.0) / m : 0;
}
static double r_asin0(double t, int m) {
  (void)t;
  int n = m / 2; /* (2n)! / (4^n (n!)^2 (2n+1)) */
  return m % 2 ? fact(2 * n) / (pow(4, n) * fact(n) * fact(n) * (2 * n + 1)) : 0;
}
static double r_acos0(double t, int m) { return m == 0 ? PI / 2 : -r_asin0(t, m); }
static const double TAN0[] = {0, 1,           0, 1.0 / 3,         0, 2.0 / 15, 0, 17.0 / 315,
                              0, 62.0 / 2835, 0, 1382.0 / 155925, 0};
static double r_tan0(double t, int m) { return (void)t, TAN0[m]; }
static double r_tanh0(double t, int m) { return (void)t, (m % 4 == 3 ? -1 : 1) * TAN0[m]; }

START_TEST(test_closed_forms) {
  for (size_t i = 0; i < NTS; i++) {
    double t = TS[i];
    check_ref("exp(0.37*t + 0.21)", t, KMAX, r_exp);
    check_ref("sin(0.37*t + 0.21)", t, KMAX, r_sin);
    check_ref("cos(0.37*t + 0.21)", t, KMAX, r_cos);
    check_ref("sinh(0.37*t + 0.21)", t, KMAX, r_sinh);
    check_ref("cosh(0.37*t + 0.21)", t, KMAX, r_cosh);
    check_ref("sin(t)", t, KMAX, r_sin_t);
    check_ref("log(0.37*t + 0.21)", t, KMAX, r_log);
    check_ref("sqrt(0.37*t + 0.21)", t, KMAX, r_sqrt);
    check_ref("(0.37*t + 0.21)^2.37", t, KMAX, r_pow237);
    check_ref("(0.37*t + 0.21)^-3", t, KMAX, r_powm3);
    check_ref("1/(0.37*t + 0.21)^3", t, KMAX, r_powm3);
    check_ref("t^3", t, KMAX, r_cube);
    check_ref("(0.37*t + 0.21)^-70", t, KMAX, r_powm70); /* recurrence path, |b| > 64 */
    check_ref("t^70", t, KMAX, r_t70);
    check_ref("2^t", t, KMAX, r_2t);
    check_ref("abs(0.37*t - 2)", t, KMAX, r_abs);
    check_ref("log(1 + t)", t, KMAX, r_log1p);
    if (t < 1) {
      check_ref("1/(1-t)", t, KMAX, r_geom);
    }
  }
  check_ref("log(1 + t)", 0, KMAX, r_log1p);
  check_ref("atan(t)", 0, KMAX, r_atan0);
  check_ref("asin(t)", 0, KMAX, r_asin0);
  check_ref("acos(t)", 0, KMAX, r_acos0);
  check_ref("tan(t)", 0, KMAX, r_tan0);
  check_ref("tanh(t)", 0, KMAX, r_tanh0);
  check_ref("t^3", 0, KMAX, r_cube);
  check_ref("t^3", -1.9, KMAX, r_cube);
  check_ref("t^70", -0.7, KMAX, r_t70);
}
END_TEST

START_TEST(test_polynomial_exact) {
  /* t^3 at 1.5 (exactly representable): [3.375, 6.75, 4.5, 1, 0, ...] */
  double c[KMAX + 1], r[] = {3.375, 6.75, 4.5, 1};
  jet("t^3", 1.5, KMAX, c);
  for (int m = 0; m <= KMAX; m++) {
    ck_assert_double_eq(c[m], m < 4 ? r[m] : 0.0);
  }
  jet("(t - 1)*(t + 2)", 0.5, 4, c); /* t^2 + t - 2 */
  ck_assert_double_eq(c[0], -1.25);
  ck_assert_double_eq(c[1], 2.0);
  ck_assert_double_eq(c[2], 1.0);
  ck_assert_double_eq(c[3], 0.0);
}
END_TEST

static const char *const IDENTITIES[][2] = {
    {"sin(" X ")^2 + cos(" X ")^2 - 1", X},
    {"exp(log(" X ")) - " X, X},
    {"log(exp(" X ")) - " X, X},
    {"tan(" X ") - sin(" X ")/cos(" X ")", X},
    {"sqrt(" X ")^2 - " X, X},
    {"sqrt(" X ")*sqrt(" X ") - " X, X},
    {"(" X "^2.37)^(1/2.37) - " X, X},
    {"(" X "^-0.61)^(1/-0.61) - " X, X},
    {X "^t - exp(t*log(" X "))", X},
    {X "^(t/3) * " X "^(-t/3) - 1", X},
    {"sinh(" X ")^2 - cosh(" X ")^2 + 1", X},
    {"tanh(" X ") - sinh(" X ")/cosh(" X ")", X},
    {"sin(asin(" X ")) - " X, X},
    {"cos(acos(" X ")) - " X, X},
    {"asin(" X ") + acos(" X ") - pi/2", X},
    {"tan(atan(" X ")) - " X, X},
    {"atan(tan(" X ")) - " X, X},
    {"abs(" X ") - " X, X},
    {"abs(" XNEG ") + " XNEG, XNEG},
    {X "^5 - " X "*" X "*" X "*" X "*" X, X},
    {X "^-2 * " X "^2 - 1", X},
    {"exp(2*" X ") - exp(" X ")^2", X},
};

START_TEST(test_identities) {
  for (size_t i = 0; i < sizeof IDENTITIES / sizeof IDENTITIES[0]; i++) {
    for (size_t k = 0; k < NTS; k++) {
      check_zero(IDENTITIES[i][0], IDENTITIES[i][1], TS[k], KMAX);
    }
  }
}
END_TEST

/* ---- syntax ------------------------------------------------------------- */

START_TEST(test_precedence) {
  ck_assert_double_eq(value("-t^2", 3), -9);
  ck_assert_double_eq(value("2^3^2", 0), 512);
  ck_assert_double_eq(value("2*3+4*5", 0), 26);
  ck_assert_double_eq(value("(1+2)*3", 0), 9);
  ck_assert_double_eq(value("8/4/2", 0), 1);
  ck_assert_double_eq(value("1-2-3", 0), -4);
  ck_assert_double_eq(value("2^-1", 0), 0.5);
  ck_assert_double_eq_tol(value("2^-t^2", 1.5), pow(2, -2.25), 1e-16);
  ck_assert_double_eq(value("-2^2", 0), -4);
  ck_assert_double_eq(value("(-2)^2", 0), 4);
  ck_assert_double_eq(value("-(-t)", 2.385), 2.385);
  ck_assert_double_eq(value("+t", 2.385), 2.385);
  ck_assert_double_eq(value("+-+2", 0), -2);
  ck_assert_double_eq(value("- - t", 2.385), 2.385);
  ck_assert_double_eq(value("\t2 *\tt ", 1.25), 2.5);
  ck_assert_double_eq(value("2e3 + .5 + 1E-2 + 5.", 0), 2005.51);
  ck_assert_double_eq(value("-1.5e-3", 0), -1.5e-3);
  ck_assert_double_eq(value("0.1", 0), 0.1);
  ck_assert_double_eq(value("123456789012345678901234567890", 0), 123456789012345678901234567890.0);
  ck_assert_double_eq(value("0.000000000000000000001234e-300", 0), 1.234e-321);
  ck_assert_double_eq(value("pi", 0), PI);
  ck_assert_double_eq(value("sin(t)*2", PI / 6), 2 * sin(PI / 6));
  /* text need not be NUL-terminated: only len bytes are read */
  lth_expr *e = NULL;
  double v;
  ck_assert_int_eq(lth_expr_parse("1+2*t garbage", 5, NULL, NULL, &e, NULL), LTH_OK);
  ck_assert_int_eq(lth_expr_eval(e, 4, &v, NULL), LTH_OK);
  ck_assert_double_eq(v, 9);
  lth_expr_free(e);
  lth_expr_free(NULL);
}
END_TEST

static void expect_parse_error(const char *s, int column, const char *msg) {
  size_t len;
  char *b = exact_copy(s, &len);
  lth_expr *e = (lth_expr *)&len; /* must be reset to NULL on failure */
  lth_error err;
  lth_error_clear(&err);
  snprintf(err.file, sizeof err.file, "stale.lth"); /* stale fields must be cleared */
  err.line = 7;
  err.has_t = 1;
  lth_status st = lth_expr_parse(b, len, NULL, NULL, &e, &err);
  free(b);
  ck_assert_msg(st == LTH_EPARSE, "'%s': status %d, expected LTH_EPARSE", s, st);
  ck_assert_ptr_null(e);
  ck_assert_int_eq(err.status, LTH_EPARSE);
  ck_assert_msg(err.column == column, "'%s': column %d, expected %d (%s)", s, err.column, column,
                err.message);
  ck_assert_msg(strstr(err.message, msg) != NULL, "'%s': message '%s' lacks '%s'", s, err.message,
                msg);
  ck_assert_int_eq(err.line, 0);
  ck_assert_str_eq(err.file, "");
  ck_assert_int_eq(err.has_t, 0);
}

START_TEST(test_parse_errors) {
  /* the end of input is reported at column len + 1 */
  expect_parse_error("1 +", 4, "expected an expression after '+'");
  expect_parse_error("1 + ", 5, "expected an expression after '+'");
  expect_parse_error("(1+2", 5, "expected ')' to close the '(' at column 1");
  expect_parse_error("2*(t+sin(t)", 12, "expected ')' to close the '(' at column 3");
  expect_parse_error("2 ** 3", 3, "'**' is not an operator: write '^' for a power");
  expect_parse_error("2 * * 3", 5, "expected an expression after '*', found '*'");
  expect_parse_error("sinn(t)", 1, "unknown function 'sinn'");
  expect_parse_error("2*Sin(t)", 3, "unknown function 'Sin'");
  expect_parse_error("foo + 1", 1, "unknown name 'foo'");
  expect_parse_error("t + T", 5, "unknown name 'T'");
  expect_parse_error("sin t", 5, "expected '(' after function name 'sin', found name 't'");
  expect_parse_error("1 + sin", 8, "expected '(' after function name 'sin', found end of input");
  expect_parse_error("1 2", 3, "unexpected number '2' after expression");
  expect_parse_error("t t", 3, "unexpected name 't' after expression");
  expect_parse_error("", 1, "empty expression");
  expect_parse_error("  ", 3, "empty expression");
  expect_parse_error("3.4.5", 1, "bad number '3.4.5'");
  expect_parse_error("1e", 1, "bad number '1e'");
  expect_parse_error("t*1e+", 3, "bad number '1e+'");
  expect_parse_error("2t", 1, "bad number '2t'");
  expect_parse_error("0x1p3", 1, "bad number '0x1p3'");
  expect_parse_error("1e999", 1, "number out of range '1e999'");
  expect_parse_error("inf", 1, "unknown name 'inf'");
  expect_parse_error("nan", 1, "unknown name 'nan'");
  expect_parse_error("1)", 2, "unexpected ')' without a matching '('");
  expect_parse_error("()", 2, "expected an expression after '(', found ')'");
  expect_parse_error("atan(1, 2)", 7, "expected ')' to close the '(' at column 5, found ','");
  expect_parse_error("t(2)", 1, "t is the time, not a function");
  expect_parse_error("pi (2)", 1, "pi is a constant, not a function");
  expect_parse_error("t;", 2, "unexpected ';' after expression");
  expect_parse_error("2 $ 3", 3, "unexpected '$' after expression");
  expect_parse_error("*2", 1, "expected an expression, found '*'");
  expect_parse_error("2^", 3, "expected an expression after '^'");
  expect_parse_error("-", 2, "expected an expression after unary '-'");
  expect_parse_error("t\n+1", 2, "unexpected byte 0x0a after expression");
  expect_parse_error(".", 1, "expected an expression, found '.'");
  char longnum[200];
  memset(longnum, '1', sizeof longnum - 1);
  longnum[sizeof longnum - 1] = '\0';
  expect_parse_error(longnum, 1, "number too long");
}
END_TEST

static char *repeat(const char *head, size_t n, const char *tail) {
  size_t h = strlen(head), k = strlen(tail);
  char *s = malloc(n * h + k + 1);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < n; i++) {
    memcpy(s + i * h, head, h);
  }
  memcpy(s + n * h, tail, k + 1);
  return s;
}

START_TEST(test_nesting) {
  /* 150 levels are fine; 100000 '(' or '-' or '2^' are rejected, not a stack overflow */
  char *s = repeat("(", 150, "t");
  char *close = repeat(")", 150, "");
  char *full = malloc(strlen(s) + strlen(close) + 1);
  ck_assert_ptr_nonnull(full);
  strcpy(full, s);
  strcat(full, close);
  ck_assert_double_eq(value(full, 2.385), 2.385);
  free(s);
  free(close);
  free(full);
  s = repeat("(", 100000, "t");
  expect_parse_error(s, 201, "nested too deeply");
  free(s);
  s = repeat("-", 100000, "t");
  expect_parse_error(s, 201, "nested too deeply");
  free(s);
  s = repeat("2^", 100000, "t");
  expect_parse_error(s, 401, "nested too deeply");
  free(s);
}
END_TEST

/* ---- parameters --------------------------------------------------------- */

struct param {
  const char *name;
  double value;
};
static const struct param PARAMS[] = {{"g", 9.81}, {"g_2", -0.5},     {"pi", 3},
                                      {"t", 7},    {"bad", INFINITY}, {NULL, 0}};

static int lookup(void *ctx, const char *name, size_t len, double *v) {
  const struct param *ps = ctx;
  for (; ps->name; ps++) {
    if (strlen(ps->name) == len && memcmp(ps->name, name, len) == 0) {
      *v = ps->value;
      return 1;
    }
  }
  return 0;
}

START_TEST(test_params) {
  lth_expr *e = parse_ok("g*t", lookup, (void *)PARAMS);
  double c[3], w[64], v;
  ck_assert_uint_le(lth_expr_work_size(e, 2), 64);
  ck_assert_int_eq(lth_expr_taylor(e, 2, 2, c, w, NULL), LTH_OK);
  ck_assert_double_eq_tol(c[0], 19.62, 1e-14);
  ck_assert_double_eq(c[1], 9.81);
  ck_assert_double_eq(c[2], 0);
  ck_assert_int_eq(lth_expr_depends_on_t(e), 1);
  lth_expr_free(e);
  /* parameters fold to constants; t and pi are reserved and not looked up */
  e = parse_ok("g_2*g + pi - t", lookup, (void *)PARAMS);
  ck_assert_int_eq(lth_expr_eval(e, 0.25, &v, NULL), LTH_OK);
  ck_assert_double_eq_tol(v, -0.5 * 9.81 + PI - 0.25, 1e-14);
  lth_expr_free(e);
  lth_error err;
  ck_assert_int_eq(lth_expr_parse("2*g2", 4, lookup, (void *)PARAMS, &e, &err), LTH_EPARSE);
  ck_assert_int_eq(err.column, 3);
  ck_assert_ptr_nonnull(strstr(err.message, "unknown name 'g2'"));
  ck_assert_int_eq(lth_expr_parse("1+bad", 5, lookup, (void *)PARAMS, &e, &err), LTH_EPARSE);
  ck_assert_int_eq(err.column, 3);
  ck_assert_ptr_nonnull(strstr(err.message, "non-finite"));
  ck_assert_int_eq(lth_expr_parse("g(t)", 4, lookup, (void *)PARAMS, &e, &err), LTH_EPARSE);
  ck_assert_ptr_nonnull(strstr(err.message, "'g' is a param, not a function"));
}
END_TEST

/* ---- domain errors ------------------------------------------------------ */

static void expect_domain(const char *s, double t, int K, int column, const char *msg) {
  double c[KMAX + 1];
  lth_error err;
  lth_status st = jet_st(s, t, K, c, &err);
  ck_assert_msg(st == LTH_EDOMAIN, "'%s' at t=%g order %d: status %d", s, t, K, st);
  ck_assert_int_eq(err.status, LTH_EDOMAIN);
  ck_assert_int_eq(err.has_t, 1);
  ck_assert_double_eq(err.t, t);
  ck_assert_msg(err.column == column, "'%s': column %d, expected %d", s, err.column, column);
  ck_assert_msg(strstr(err.message, msg) != NULL, "'%s': message '%s' lacks '%s'", s, err.message,
                msg);
}

START_TEST(test_domain_errors) {
  expect_domain("log(t)", 0, 0, 1, "log of a non-positive value (0)");
  expect_domain("1 + log(t)", -1, 3, 5, "log of a non-positive value (-1)");
  expect_domain("1/(t-1)", 1, 0, 2, "division by zero");
  expect_domain("sqrt(t)", 0, 1, 1, "sqrt at 0 where derivatives are needed");
  expect_domain("sqrt(t)", -0.5, 0, 1, "sqrt of a negative value (-0.5)");
  expect_domain("2*abs(t)", 0, 1, 3, "abs at 0");
  expect_domain("asin(2)", 0.3, 0, 1, "asin of a value outside [-1, 1] (2)");
  expect_domain("acos(t)", -1.5, 0, 1, "acos of a value outside [-1, 1]");
  expect_domain("asin(t)", 1, 2, 1, "asin at 1 where derivatives are needed");
  expect_domain("t^0.5", -1, 0, 2, "real power of a non-positive value");
  expect_domain("t^0.5", 0, 1, 2, "real power of a non-positive value");
  expect_domain("t^-1", 0, 0, 2, "division by zero in '^'");
  expect_domain("t^t", -0.5, 0, 2, "real power of a non-positive value");
  expect_domain("(-2)^t", 0.3, 0, 5, "real power of a non-positive value");
  expect_domain("exp(t)", 1000, 0, 1, "non-finite value from exp");
  expect_domain("t*t", INFINITY, 0, 1, "non-finite value of t");
  expect_domain("log(0)", 0.3, 0, 1, "log of a non-positive value"); /* not folded */

  /* the boundary cases that are fine */
  double c[KMAX + 1];
  jet("sqrt(t)", 0, 0, c);
  ck_assert_double_eq(c[0], 0);
  jet("abs(t)", 0, 0, c);
  ck_assert_double_eq(c[0], 0);
  jet("asin(t)", 1, 0, c);
  ck_assert_double_eq(c[0], PI / 2);
  jet("t^0.5", 0, 0, c);
  ck_assert_double_eq(c[0], 0);
  jet("t^2", 0, 5, c);
  for (int m = 0; m <= 5; m++) {
    ck_assert_double_eq(c[m], m == 2 ? 1 : 0);
  }
  jet("t^3", 0, 5, c);
  for (int m = 0; m <= 5; m++) {
    ck_assert_double_eq(c[m], m == 3 ? 1 : 0);
  }
  jet("t^0", 0, 2, c);
  ck_assert_double_eq(c[0], 1);
  ck_assert_double_eq(c[1], 0);
  jet("sqrt(0)*t", 0.3, 3, c); /* constant sqrt(0) folds: no derivative needed */
  ck_assert_double_eq(c[1], 0);
}
END_TEST

/* ---- folding and API ---------------------------------------------------- */

START_TEST(test_folding) {
  lth_expr *e = parse_ok("2*pi", NULL, NULL);
  double v;
  ck_assert_int_eq(lth_expr_depends_on_t(e), 0);
  ck_assert_int_eq(lth_expr_eval(e, 123, &v, NULL), LTH_OK);
  ck_assert_double_eq(v, 2 * PI);
  lth_expr_free(e);
  /* a folded constant is a single node: one series of K+1 doubles */
  e = parse_ok("2*pi + exp(1) - sqrt(2)^3 + atan(1)*4 + 2^-0.5", NULL, NULL);
  ck_assert_uint_eq(lth_expr_work_size(e, 7), 8);
  ck_assert_int_eq(lth_expr_eval(e, 0, &v, NULL), LTH_OK);
  ck_assert_double_eq_tol(v, 2 * PI + exp(1) - pow(sqrt(2), 3) + PI + pow(2, -0.5), 1e-14);
  lth_expr_free(e);
  /* no algebraic simplification: t*0 still depends on t (documented) */
  e = parse_ok("t*0+1", NULL, NULL);
  ck_assert_int_eq(lth_expr_depends_on_t(e), 1);
  ck_assert_int_eq(lth_expr_eval(e, 5, &v, NULL), LTH_OK);
  ck_assert_double_eq(v, 1);
  lth_expr_free(e);
  e = parse_ok("sin(pi/6)*2", NULL, NULL);
  ck_assert_int_eq(lth_expr_depends_on_t(e), 0);
  ck_assert_int_eq(lth_expr_eval(e, 0, &v, NULL), LTH_OK);
  ck_assert_double_eq_tol(v, 1, 1e-15);
  lth_expr_free(e);
  /* bad arguments */
  lth_error err;
  ck_assert_int_eq(lth_expr_parse("1", 1, NULL, NULL, NULL, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_expr_parse(NULL, 3, NULL, NULL, &e, &err), LTH_EINVAL);
  e = parse_ok("t", NULL, NULL);
  double w[4], c[2];
  ck_assert_int_eq(lth_expr_taylor(e, 0, -1, c, w, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_expr_taylor(e, 0, 1, c, NULL, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_expr_eval(e, 0, NULL, &err), LTH_EINVAL);
  lth_expr_free(e);
}
END_TEST

/* ---- robustness --------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rng(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ULL;
}
static double urand(double lo, double hi) {
  return lo + (hi - lo) * ((double)(rng() >> 11) / 9007199254740992.0);
}

START_TEST(test_random_strings) {
  static const char alphabet[] = "t0123456789.e+-*/^()sincoxplgqrtahb ,;";
  rng_state = 0x2545f4914f6cdd1dULL;
  int parsed = 0;
  double w_small[1], c[8];
  for (int it = 0; it < 20000; it++) {
    size_t len = (size_t)(rng() % (it % 2 ? 8 : 24)); /* short strings parse more often */
    char *s = malloc(len ? len : 1);
    ck_assert_ptr_nonnull(s);
    for (size_t i = 0; i < len; i++) {
      s[i] = alphabet[rng() % (sizeof alphabet - 1)];
    }
    lth_expr *e = NULL;
    lth_error err;
    lth_status st = lth_expr_parse(s, len, NULL, NULL, &e, &err);
    ck_assert_msg(st == LTH_OK || st == LTH_EPARSE, "'%.*s': status %d", (int)len, s, st);
    if (st == LTH_EPARSE) {
      ck_assert_msg(err.column >= 1 && (size_t)err.column <= len + 1, "'%.*s': column %d", (int)len,
                    s, err.column);
    } else {
      parsed++;
      int K = (int)(rng() % 8);
      double *w = malloc(lth_expr_work_size(e, K) * sizeof *w);
      ck_assert_ptr_nonnull(w);
      st = lth_expr_taylor(e, urand(-2, 2), K, c, w, &err);
      ck_assert(st == LTH_OK || st == LTH_EDOMAIN);
      for (int m = 0; st == LTH_OK && m <= K; m++) {
        ck_assert(isfinite(c[m]));
      }
      free(w);
      lth_expr_free(e);
    }
    free(s);
  }
  (void)w_small;
  ck_assert_int_ge(parsed, 500); /* the test must exercise evaluation too */
}
END_TEST

/* Random well-formed expression (no abs: it is not analytic at 0). */
static void gen(char *b, size_t size, int depth) {
  static const char *const leaves[] = {"t", "0.37", "2.385", "pi", "1.5e-1", ".5"};
  static const char *const funcs[] = {"sin",  "cos",  "tan",  "exp",  "log",  "sqrt",
                                      "sinh", "cosh", "tanh", "asin", "acos", "atan"};
  static const char *const ops[] = {"+", "-", "*", "/", "^"};
  char x[512], y[512];
  int kind = depth <= 0 ? 0 : (int)(rng() % 5), n;
  switch (kind) {
  case 0:
    n = snprintf(b, size, "%s", leaves[rng() % 6]);
    break;
  case 1:
    gen(x, sizeof x, depth - 1);
    n = snprintf(b, size, "%s(%s)", funcs[rng() % 12], x);
    break;
  case 2:
    gen(x, sizeof x, depth - 1);
    n = snprintf(b, size, "-%s", x);
    break;
  default:
    gen(x, sizeof x, depth - 1);
    gen(y, sizeof y, depth - 1);
    n = snprintf(b, size, "(%s %s %s)", x, ops[rng() % 5], y);
    break;
  }
  ck_assert_int_lt(n, (int)size); /* depth 4 stays far below 512 characters */
}

/* The Taylor polynomial at t predicts the value at t + h:
 * |f(t+h) - sum_m c_m h^m| <= 1e-11 * sum_m |c_m h^m| + 1e3 |c_K| h^K (tail). */
START_TEST(test_random_series_consistency) {
  enum { K = 10 };
  const double h = 1e-3;
  rng_state = 0x9e3779b97f4a7c15ULL;
  int checked = 0;
  for (int it = 0; it < 3000; it++) {
    char s[512];
    gen(s, sizeof s, 4);
    double t = urand(-1.5, 1.5), c[K + 1], v;
    lth_error err;
    if (jet_st(s, t, K, c, &err) != LTH_OK || jet_st(s, t + h, 0, &v, &err) != LTH_OK) {
      continue;
    }
    double sum = 0, mag = 0, hm = 1;
    for (int m = 0; m <= K; m++, hm *= h) {
      sum += c[m] * hm;
      mag += fabs(c[m] * hm);
    }
    double bound = 1e-11 * mag + 1e3 * fabs(c[K]) * pow(h, K);
    ck_assert_msg(fabs(v - sum) <= bound, "'%s' at t=%.17g: f(t+h)=%.17g, series %.17g", s, t, v,
                  sum);
    checked++;
  }
  ck_assert_int_ge(checked, 1000);
}
END_TEST

static Suite *expr_suite(void) {
  Suite *s = suite_create("expr");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_closed_forms);
  tcase_add_test(tc, test_polynomial_exact);
  tcase_add_test(tc, test_identities);
  tcase_add_test(tc, test_precedence);
  tcase_add_test(tc, test_parse_errors);
  tcase_add_test(tc, test_nesting);
  tcase_add_test(tc, test_params);
  tcase_add_test(tc, test_domain_errors);
  tcase_add_test(tc, test_folding);
  tcase_add_test(tc, test_random_strings);
  tcase_add_test(tc, test_random_series_consistency);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(expr_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
