/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for lth/enclose.h: interval Taylor enclosures of expressions (every
 * function of the grammar) contain the point Taylor coefficients at every t
 * of the interval; structural zeros are decided from the expression; the
 * resolution check finds a narrow pulse between any points and names its t;
 * callbacks are "unknown".
 *
 * Containment is an exact property (outward rounding): a point coefficient
 * outside its enclosure by any amount is a failure, so the assertions have no
 * tolerance.  The pulse's t must be named to within a few widths of it. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lth/enclose.h>
#include <lth/expr.h>
#include <lth/problem.h>
#include <lth/source.h>

#include "system/enclose_impl.h"
#include "interp_error.h"

#define KMAX 10

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_expr_parse(s, strlen(s), NULL, NULL, &e, &err) == LTH_OK, "parse %s: %s", s,
                err.message);
  return e;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* Every function of the grammar, composed; some undefined in places. */
static const char *const EXPRS[] = {
    "sin(3.1*t) + cos(t^2)",
    "exp(-2000*t)",
    "exp(-((t-0.5)/0.05)^2)",
    "abs(t-0.37) + (t-0.37)",
    "sqrt(t + 1.2)",
    "log(t + 1.3) * t",
    "tan(0.7*t)",
    "tanh(2.3*t - 0.4)",
    "sinh(t) * cosh(0.5*t)",
    "asin(0.4*t)",
    "acos(0.3*t + 0.1)",
    "atan(5*t - 1)",
    "t^7 - 3*t^4 + 2",
    "(t + 2)^(-3)",
    "(t + 1.5)^2.5",
    "(t + 1.7)^(0.3*t)",
    "1 / (t^2 + 0.01)",
    "1 / (t - 0.5)",
    "sqrt(abs(t))",
    "1e12*((t-0.1)*(t-0.3)*(t-0.7))^4",
    "2000*exp(-2000*t)*sin(40*t)",
    "-t^2 / (1 + t^2)",
};
#define NEXPR (sizeof EXPRS / sizeof EXPRS[0])

static int inside(double x, lth_interval v) { return x >= v.lo && x <= v.hi; }

START_TEST(test_containment) {
  double c[KMAX + 1];
  lth_interval enc[KMAX + 1];
  for (size_t k = 0; k < NEXPR; k++) {
    lth_expr *e = parse(EXPRS[k]);
    double *w = malloc(lth_expr_work_size(e, KMAX) * sizeof *w);
    lth_interval *iw = malloc(lth_expr_enclose_work_size(e, KMAX) * sizeof *iw);
    ck_assert(w && iw);
    for (int draw = 0; draw < 60; draw++) {
      double a = -1.0 + 2.0 * urand(), width = pow(10.0, -4.0 + 4.0 * urand());
      double b = a + width;
      int K = draw % (KMAX + 1);
      ck_assert_int_eq(lth_expr_enclose(e, a, b, K, enc, iw, NULL), LTH_OK);
      for (int j = 0; j <= 12; j++) {
        double t = j == 0 ? a : j == 12 ? b : a + width * urand();
        if (lth_expr_taylor(e, t, K, c, w, NULL) != LTH_OK) {
          continue; /* undefined there: nothing to contain */
        }
        for (int m = 0; m <= K; m++) {
          ck_assert_msg(inside(c[m], enc[m]),
                        "%s: coefficient %d at t = %.17g is %.17g, outside [%.17g, %.17g] "
                        "enclosing [%.17g, %.17g]",
                        EXPRS[k], m, t, c[m], enc[m].lo, enc[m].hi, a, b);
        }
      }
    }
    free(w);
    free(iw);
    lth_expr_free(e);
  }
}
END_TEST

/* Where a function is undefined or not differentiable inside [a, b], the
 * orders concerned are unbounded; elsewhere they are finite. */
START_TEST(test_unbounded) {
  struct {
    const char *s;
    double a, b;
    int first_unbounded; /* -1: none */
  } cases[] = {
      {"1/(t-0.5)", 0.0, 1.0, 0},   {"1/(t-0.5)", 0.6, 1.0, -1}, {"abs(t-0.5)", 0.0, 1.0, 2},
      {"abs(t-0.5)", 0.6, 1.0, -1}, {"sqrt(t)", 0.0, 1.0, 1},    {"log(t)", -1.0, 1.0, 0},
      {"tan(t)", 1.0, 2.0, 0},      {"tan(t)", -1.0, 1.0, -1},   {"asin(t)", 0.5, 1.0, 1},
      {"t^(-2)", -1.0, 1.0, 0},     {"t^2", -1.0, 1.0, -1},
  };
  lth_interval enc[6], w[256];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    lth_expr *e = parse(cases[k].s);
    ck_assert(lth_expr_enclose_work_size(e, 5) <= 256);
    ck_assert_int_eq(lth_expr_enclose(e, cases[k].a, cases[k].b, 5, enc, w, NULL), LTH_OK);
    for (int m = 0; m <= 5; m++) {
      int unb = !isfinite(enc[m].lo) || !isfinite(enc[m].hi);
      int want = cases[k].first_unbounded >= 0 && m >= cases[k].first_unbounded;
      ck_assert_msg(unb == want, "%s on [%g, %g]: order %d [%g, %g]", cases[k].s, cases[k].a,
                    cases[k].b, m, enc[m].lo, enc[m].hi);
    }
    lth_expr_free(e);
  }
  /* t^2 over an interval containing 0 is a square, not a product: >= 0 */
  lth_expr *e = parse("t^2");
  lth_expr_enclose(e, -1.0, 2.0, 0, enc, w, NULL);
  ck_assert(enc[0].lo == 0.0 && enc[0].hi >= 4.0 && enc[0].hi < 4.0001);
  lth_expr_free(e);
}
END_TEST

START_TEST(test_structural_zero) {
  const char *zero[] = {"0",
                        "0*sin(t)",
                        "t*0 + 0*exp(t)",
                        "0/(t+5)",
                        "abs(0*t)",
                        "(0*t)^3",
                        "0*log(t)",
                        "2 - 2",
                        "t - t",
                        "sin(2*t)^2 - sin(2*t)^2",
                        "exp(t)*(cos(t) - cos(t))"};
  /* (zero by algebra, not by structure: kept, which is always safe) */
  const char *nonzero[] = {"t*(t+1) - t^2 - t", "sin(t) - sin(1*t)", "1e-300",
                           "sin(t)*1e-200",     "exp(-2000*t)",      "abs(t-0.95)+(t-0.95)",
                           "1e12*(t*(t-1))^4",  "sin(pi*t)"};
  for (size_t k = 0; k < sizeof zero / sizeof zero[0]; k++) {
    lth_expr *e = parse(zero[k]);
    ck_assert_msg(lth_expr_is_zero(e), "%s is identically zero", zero[k]);
    lth_expr_free(e);
  }
  lth_expr *q = parse("0/(t-0.5)");
  ck_assert(!lth_expr_is_zero_on(q, 0.0, 1.0) && lth_expr_is_zero_on(q, 1.0, 2.0));
  lth_expr_free(q);
  for (size_t k = 0; k < sizeof nonzero / sizeof nonzero[0]; k++) {
    lth_expr *e = parse(nonzero[k]);
    ck_assert_msg(!lth_expr_is_zero(e), "%s is not a structural zero", nonzero[k]);
    lth_expr_free(e);
  }
}
END_TEST

static lth_source *expr_source(const char *s) {
  lth_expr *e = parse(s);
  lth_source *src = lth_source_expr(1, 1, &e, NULL);
  ck_assert_ptr_nonnull(src);
  return src;
}

/* A pulse far narrower than the gaps between any sample points: found, and
 * its t named; smooth data resolved; wherever the pulse sits. */
START_TEST(test_pulse_found) {
  for (int draw = 0; draw < 40; draw++) {
    double c = 0.05 + 0.9 * urand(), width = pow(10.0, -4.0 + 2.0 * urand());
    char s[160];
    snprintf(s, sizeof s, "sin(t) + exp(-((t-%.17g)/%.17g)^2)", c, width);
    lth_source *src = expr_source(s);
    const lth_source *set[1] = {src};
    lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 32, NULL);
    ck_assert_ptr_nonnull(enc);
    ck_assert(lth_enclose_known(enc));
    lth_enclose_verdict v;
    ck_assert_int_eq(lth_enclose_check(enc, 0.0, 1.0, 16, 1e-10, 0, &v, NULL), LTH_OK);
    ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
    ck_assert_msg(fabs(v.t_feature - c) <= 10 * width, "pulse at %g (width %g) named at %g (+-%g)",
                  c, width, v.t_feature, v.t_width);
    ck_assert_msg(strstr(v.what, "source 1") != NULL, "%s", v.what);
    /* resolved far from the pulse, by a step the width allows */
    double w;
    int res;
    ck_assert_int_eq(lth_enclose_width(enc, c + 40 * width, 1.0, 1e-9, 16, 1e-10, &w, &res, NULL),
                     LTH_OK);
    ck_assert_int_eq(res, 1);
    lth_enclose_free(enc);
    lth_source_free(src);
  }
  lth_source *src = expr_source("sin(3*t) + t^3");
  const lth_source *set[1] = {src};
  lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 32, NULL);
  lth_enclose_verdict v;
  ck_assert_int_eq(lth_enclose_check(enc, 0.0, 1.0, 24, 1e-12, 0, &v, NULL), LTH_OK);
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_RESOLVED);
  lth_enclose_free(enc);
  lth_source_free(src);
}
END_TEST

/* A width accepted is resolved: the degree-K Chebyshev interpolant on it is
 * within tol, measured on 2001 points (interp_error.h), whichever bound
 * accepted it (the check takes low degrees' bounds times 1 + Lambda_K where
 * they suffice, and Bernstein ellipses' bounds, lib/system/enclose.c).  Rational and entire data,
 * the degrees of coefficient tables, tolerances down to 1e-11 (the measurement's own rounding,
 * about Lambda_K 1e-16, stays far below). */
START_TEST(test_width_is_resolved) {
  static const char *const SMOOTH[] = {
      "1/(1+t^2)",
      "t/(1+t^2) + 2/(2+t)",
      "1/(1+t) * cos(2*t)",
      "exp(-t) * sin(5*t)",
      "1/(0.05 + (t-0.3)^2)",
      "tanh(8*t - 2)",
      "(1-t^2)/(1+t^2)^2 - 1/((1+t)*(1+t^2))",
      /* its denominator's real enclosure reaches 0 on wide intervals (no
       * bound of either kind there), its poles at 0.5 +- 0.22i */
      "1/(t*t - t + 0.3)",
  };
  static const int DEG[] = {16, 24, 40, 65, 98};
  static const double TOL[] = {1e-6, 1e-9, 1e-11};
  int checked = 0;
  for (size_t i = 0; i < sizeof SMOOTH / sizeof SMOOTH[0]; i++) {
    lth_expr *e = parse(SMOOTH[i]);
    lth_source *src = expr_source(SMOOTH[i]);
    const lth_source *set[1] = {src};
    lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 98, NULL);
    ck_assert_ptr_nonnull(enc);
    for (size_t k = 0; k < 5; k++) {
      for (size_t m = 0; m < 3; m++) {
        double a = -0.5 + 2.0 * urand(), w;
        int res;
        ck_assert_int_eq(lth_enclose_width(enc, a, 10.0, 1e-6, DEG[k], TOL[m], &w, &res, NULL),
                         LTH_OK);
        if (res != 1) {
          continue;
        }
        double err = interp_error(e, a, a + w, DEG[k], 1);
        ck_assert_msg(err <= TOL[m], "%s on [%g, %g] degree %d: error %.3g > tol %.3g", SMOOTH[i],
                      a, a + w, DEG[k], err, TOL[m]);
        checked++;
        /* and every width check answers "resolved" only where it is */
        for (double x = 8.0; x > 1e-3; x *= 0.6) {
          lth_enclose_verdict v;
          ck_assert_int_eq(lth_enclose_check(enc, a, a + x, DEG[k], TOL[m], 1e-3, &v, NULL),
                           LTH_OK);
          if (v.answer == LTH_ENCLOSE_RESOLVED) {
            err = interp_error(e, a, a + x, DEG[k], 1);
            ck_assert_msg(err <= TOL[m], "%s on [%g, %g] degree %d: error %.3g > tol %.3g",
                          SMOOTH[i], a, a + x, DEG[k], err, TOL[m]);
            checked++;
          }
        }
      }
    }
    lth_enclose_free(enc);
    lth_source_free(src);
    lth_expr_free(e);
  }
  ck_assert_int_ge(checked, 200);
}
END_TEST

/* A kink is never resolved by degree >= 1: the check names its t. */
START_TEST(test_kink_found) {
  lth_source *src = expr_source("abs(t-0.6180339887) + t");
  const lth_source *set[1] = {src};
  lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 32, NULL);
  lth_enclose_verdict v;
  ck_assert_int_eq(lth_enclose_check(enc, 0.0, 1.0, 8, 1e-10, 1e-12, &v, NULL), LTH_OK);
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
  ck_assert_msg(fabs(v.t_feature - 0.6180339887) <= 1e-11, "kink named at %.15g", v.t_feature);
  lth_enclose_free(enc);
  lth_source_free(src);
}
END_TEST

static int cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx;
  (void)ld;
  coef[0] = t;
  if (order > 0) {
    coef[stride] = 1.0;
  }
  return 0;
}

/* lth_enclose_width_bound: the width and verdict of lth_enclose_width, and
 * the bound that resolved it -- at most tol, and the bound lth_enclose_check
 * gives on [a, a + w] (the integrator predicts its next stretch from it). */
START_TEST(test_width_bound) {
  static const char *const DATA[] = {"1/(1+t^2)", "1/(1+t) * cos(2*t)", "exp(-t) * sin(5*t)"};
  static const double TOL[] = {1e-2, 1e-6, 1e-10};
  for (size_t i = 0; i < sizeof DATA / sizeof DATA[0]; i++) {
    lth_source *src = expr_source(DATA[i]);
    const lth_source *set[1] = {src};
    lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 16, NULL);
    ck_assert_ptr_nonnull(enc);
    for (size_t m = 0; m < 3; m++) {
      double a = 0.25 * (double)m, w, w2, bound;
      int res, res2;
      ck_assert_int_eq(lth_enclose_width(enc, a, 10.0, 1e-6, 16, TOL[m], &w, &res, NULL), LTH_OK);
      ck_assert_int_eq(
          lth_enclose_width_bound(enc, a, 10.0, 1e-6, 16, TOL[m], &w2, &res2, &bound, NULL),
          LTH_OK);
      ck_assert(w2 == w && res2 == res && res == 1);
      ck_assert_msg(bound >= 0 && bound <= TOL[m], "%s: bound %g, tol %g", DATA[i], bound, TOL[m]);
      lth_enclose_verdict v;
      ck_assert_int_eq(lth_enclose_check(enc, a, a + w, 16, TOL[m], 1e-3, &v, NULL), LTH_OK);
      ck_assert_msg(fabs(v.bound - bound) <= 1e-12 * TOL[m], "%s: %g against the check's %g",
                    DATA[i], bound, v.bound);
    }
    lth_enclose_free(enc);
    lth_source_free(src);
  }
}
END_TEST

START_TEST(test_callback_unknown) {
  lth_source *src = lth_source_callback(1, 1, cb, NULL, NULL);
  ck_assert(!lth_source_can_enclose(src));
  const lth_source *set[1] = {src};
  lth_enclose *enc = lth_enclose_alloc_sources(set, 1, 8, NULL);
  ck_assert(!lth_enclose_known(enc));
  lth_enclose_verdict v;
  ck_assert_int_eq(lth_enclose_check(enc, 0.0, 1.0, 8, 1e-10, 0, &v, NULL), LTH_OK);
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNKNOWN);
  double w;
  int res;
  lth_enclose_width(enc, 0.0, 0.5, 1e-6, 8, 1e-10, &w, &res, NULL);
  ck_assert(w == 0.5 && res == LTH_ENCLOSE_UNKNOWN);
  lth_enclose_free(enc);
  lth_source_free(src);
}
END_TEST

/* The equation form's blocks and its mass matrices (M^{-1} X, examined
 * through M and X) carry enclosures: a pulse in the mass matrix is found
 * and named; samples make the system unknown. */
START_TEST(test_equation_form_and_masses) {
  const char *text = "problem equations\nvariables x1 x2 v1 v2 lambda\ninterval 0 5\n"
                     "x1' = v1\nx2' = v2\n"
                     "(2 + exp(-((t-3.3)/0.001)^2))*v1' + 0.3*v2' = -x1 + lambda\n"
                     "0.3*v1' + (1.5 + 0.5*cos(t))*v2' = -x2 + lambda\n"
                     "0 = x1 + x2 - sin(t)\n";
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_parse(text, strlen(text), "masses", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  lth_enclose *enc = lth_enclose_alloc(lth_problem_system(pb), 16, NULL);
  ck_assert(lth_enclose_known(enc));
  lth_enclose_verdict v;
  ck_assert_int_eq(lth_enclose_check(enc, 0.0, 5.0, 16, 1e-10, 0, &v, NULL), LTH_OK);
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
  ck_assert_msg(fabs(v.t_feature - 3.3) < 0.01, "mass pulse at 3.3 named at %g (%s)", v.t_feature,
                v.what);
  ck_assert_int_eq(lth_enclose_check(enc, 0.0, 3.0, 16, 1e-10, 0, &v, NULL), LTH_OK);
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_RESOLVED); /* cos t, sin t, the pulse's far tail */
  double w;
  int res;
  ck_assert_int_eq(lth_enclose_width(enc, 3.25, 1.0, 1e-9, 16, 1e-10, &w, &res, NULL), LTH_OK);
  ck_assert_msg(res == 1 && w < 0.05, "from 3.25: %g (resolved %d)", w, res);
  lth_enclose_free(enc);
  lth_problem_free(pb);
}
END_TEST

/* lth_enclose_constant: 1 exactly when every entry's derivative is enclosed
 * by {0} -- constant matrices and expressions without t, and t - t (the same
 * subexpression) -- and 0 for any t at all, however small its weight
 * (1e-300 t), for data constant only by an identity (sin^2 + cos^2), and
 * where a mass matrix varies.  Data that are not constant taken for constant
 * would be tabulated from one decomposition (lib/table/coef_table.c). */
static int constant_of(const char *text, double a, double b) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "const", NULL, &pb, &err) == LTH_OK, "%s",
                err.message);
  lth_enclose *enc = lth_enclose_alloc(lth_problem_system(pb), 16, NULL);
  ck_assert_ptr_nonnull(enc);
  int c = lth_enclose_constant(enc, a, b);
  lth_enclose_free(enc);
  lth_problem_free(pb);
  return c;
}

START_TEST(test_constant_data) {
  const char *head = "lth 1\nproblem dae\nblocks 2 2 1\ninterval 0 2\nparam g = 9.81\n"
                     "A(2,1) = eye\nA(3,2) = [1, 2]\nf(3) = -4\n";
  const struct {
    const char *more;
    int constant;
  } cases[] = {
      {"A(1,3) = [1; 2]\nf(1) = [0; -g]\n", 1},
      {"A(1,3) = [1; 2]\nf(1) = [0; -g + (t - t)]\n", 1},
      {"A(1,3) = [1; 2]\nf(1) = [0; -g + 1e-300*t]\n", 0},
      {"A(1,3) = [1; 2 + 0*sin(t)]\nf(1) = [0; -g]\n", 1},
      {"A(1,3) = [1; sin(t)^2 + cos(t)^2 + 1]\nf(1) = [0; -g]\n", 0},
      {"A(1,3) = [1; 2]\nf(1) = [0; -g]\nA(1,1) = [0, 0; 0, -0.1*exp(-((t - 1.5)/0.01)^2)]\n", 0},
  };
  char text[512];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    snprintf(text, sizeof text, "%s%s", head, cases[k].more);
    ck_assert_msg(constant_of(text, 0.0, 2.0) == cases[k].constant, "case %zu: %s", k,
                  cases[k].more);
  }
  /* a pulse far from [a, b] still moves the data there */
  snprintf(text, sizeof text, "%s%s", head, cases[5].more);
  ck_assert_int_eq(constant_of(text, 0.0, 0.5), 0);
  /* a mass matrix that varies (equation form: M^-1 X through M and X) */
  ck_assert_int_eq(constant_of("problem equations\nvariables x v lambda\ninterval 0 1\n"
                               "x' = v\n(2 + t)*v' = -x + lambda\n0 = x - 1\n",
                               0.0, 1.0),
                   0);
  ck_assert_int_eq(constant_of("problem equations\nvariables x v lambda\ninterval 0 1\n"
                               "x' = v\n2*v' = -x + lambda\n0 = x - 1\n",
                               0.0, 1.0),
                   1);
}
END_TEST

/* Point enclosures (a = b) of long products and quotients of series contain
 * the exact Taylor coefficients, computed in long double from closed forms.
 * At a point the enclosures are a few ulps wide, so this catches rounding
 * bounds that fall short (lib/jet/expr_enclose.c conv_sum: without its
 * widening, coefficients miss the exact value by an ulp). */
static long double exact_coef(int which, long double t, int m) {
  long double sg = (m % 2) ? -1.0L : 1.0L;
  switch (which) {
  case 0: /* 1/((3+t)(7+t)) = (1/(3+t) - 1/(7+t))/4 */
    return 0.25L * sg * (powl(3.0L + t, -(m + 1)) - powl(7.0L + t, -(m + 1)));
  case 1: /* 1/((1+t)(2+t)(5+t)) = 1/4/(1+t) - 1/3/(2+t) + 1/12/(5+t) */
    return sg * (powl(1.0L + t, -(m + 1)) / 4.0L - powl(2.0L + t, -(m + 1)) / 3.0L +
                 powl(5.0L + t, -(m + 1)) / 12.0L);
  default: { /* sin(t) cos(t) = sin(2t)/2: coefficient 2^m sin(2t + m pi/2) / (2 m!) */
    long double f = 1.0L;
    for (int k = 2; k <= m; k++) f *= k;
    return ldexpl(1.0L, m) * sinl(2.0L * t + m * 1.5707963267948966192313216916397514L) /
           (2.0L * f);
  }
  }
}

START_TEST(test_point_enclosures_exact) {
  const char *src[] = {"1/((3+t)*(7+t))", "1/((1+t)*(2+t)*(5+t))", "sin(t)*cos(t)"};
  enum { K = 24 };
  for (int w = 0; w < 3; w++) {
    lth_expr *e = parse(src[w]);
    lth_interval *iw = malloc(lth_expr_enclose_work_size(e, K) * sizeof *iw), enc[K + 1];
    for (int k = 0; k <= 200; k++) {
      double t = 0.05 * k - 0.5;
      ck_assert_int_eq(lth_expr_enclose(e, t, t, K, enc, iw, NULL), LTH_OK);
      for (int m = 0; m <= K; m++) {
        /* the reference's own error: a few long double ulps of the size
         * of the terms (2^m/m! for sin 2t: its zeros are not exact) */
        long double x = exact_coef(w, t, m), f = 1.0L;
        for (int q = 2; q <= m; q++) f *= q;
        long double d = 64 * LDBL_EPSILON * (w == 2 ? ldexpl(1.0L, m) / f : fabsl(x));
        ck_assert_msg(enc[m].lo <= x + d && x - d <= enc[m].hi,
                      "%s at t = %g, order %d: [%.17g, %.17g] misses %.20Lg", src[w], t, m,
                      enc[m].lo, enc[m].hi, x);
      }
    }
    free(iw);
    lth_expr_free(e);
  }
}
END_TEST

/* The sparse sources' enclosures on their patterns (mm() combinations, the
 * equation form's blocks) give the same verdicts as the same sources
 * enclosed entry by entry as rows x cols (lth_enclose_set_dense): answer,
 * bound, the t named and the entry named, on smooth data, a pulse, a kink
 * and a jump (the check lth_bvp_check_data makes: tol DBL_MAX at degrees 0
 * and 1), and at a tolerance.  A jump of the data is found by both. */
static void verdicts_equal(const lth_system *sys, double t0, double t1, const char *what) {
  lth_enclose *sp = lth_enclose_alloc(sys, 16, NULL), *dn = lth_enclose_alloc(sys, 16, NULL);
  ck_assert(sp && dn && lth_enclose_known(sp));
  ck_assert_int_eq(lth_enclose_set_dense(dn, 1, NULL), LTH_OK);
  const struct {
    int degree;
    double tol;
  } q[] = {{0, DBL_MAX}, {1, DBL_MAX}, {8, 1e-10}, {16, 1e-6}};
  for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
    for (int piece = 0; piece < 3; piece++) {
      double a = t0 + (t1 - t0) * (piece == 2 ? 0.3 : 0.0),
             b = piece == 1 ? t0 + 0.7 * (t1 - t0) : t1;
      lth_enclose_verdict vs, vd;
      ck_assert_int_eq(lth_enclose_check(sp, a, b, q[k].degree, q[k].tol, 0, &vs, NULL), LTH_OK);
      ck_assert_int_eq(lth_enclose_check(dn, a, b, q[k].degree, q[k].tol, 0, &vd, NULL), LTH_OK);
      ck_assert_msg(vs.answer == vd.answer && vs.bound == vd.bound &&
                        strcmp(vs.what, vd.what) == 0 &&
                        (vs.answer != LTH_ENCLOSE_UNRESOLVED ||
                         (vs.t_feature == vd.t_feature && vs.t_width == vd.t_width)),
                    "%s, degree %d on [%g, %g]: sparse %d %.17g at %.17g (%s), dense %d %.17g at "
                    "%.17g (%s)",
                    what, q[k].degree, a, b, vs.answer, vs.bound, vs.t_feature, vs.what, vd.answer,
                    vd.bound, vd.t_feature, vd.what);
    }
  }
  ck_assert_int_eq(lth_enclose_constant(sp, t0, t1), lth_enclose_constant(dn, t0, t1));
  lth_enclose_free(sp);
  lth_enclose_free(dn);
}

static const char *const PHI[] = {
    "1 + 0.1*sin(t)", "2", "exp(-((t-3.3)/0.01)^2)", "abs(t-4.4)", "(t-6.1)/abs(t-6.1)",
};

START_TEST(test_sparse_dense_same) {
  const char *dir = getenv("LTH_DATA_DIR");
  char text[2048];
  lth_error err;
  for (size_t k = 0; k < sizeof PHI / sizeof PHI[0]; k++) {
    /* mm() combinations (data/chain_sparse.lth's matrices) */
    snprintf(text, sizeof text,
             "lth 1\nproblem dae\nblocks 4 4 1\ninterval 0 10\n"
             "A(1,1) = -mm(\"chain_D.mtx\")\nA(1,2) = -(%s) * mm(\"chain_K.mtx\")\n"
             "A(1,3) = mm(\"chain_G.mtx\")'\nA(2,1) = eye\nA(3,2) = (%s) * mm(\"chain_G.mtx\")\n"
             "f(3) = -0.1*sin(t)\n",
             PHI[k], PHI[k]);
    lth_problem *pb = NULL;
    lth_error_clear(&err);
    ck_assert_msg(lth_problem_parse(text, strlen(text), "mm", dir ? dir : "data", &pb, &err) ==
                      LTH_OK,
                  "%s", err.message);
    verdicts_equal(lth_problem_system(pb), 0.0, 10.0, PHI[k]);
    lth_problem_free(pb);
    /* the equation form's blocks */
    snprintf(text, sizeof text,
             "problem equations\nvariables x1 x2 v1 v2 lambda\ninterval 0 10\n"
             "x1' = v1\nx2' = v2\nv1' = -(%s)*x1 + 0.5*x2 + lambda\n"
             "v2' = 0.5*x1 - x2 - 0.2*v2\n0 = (%s)*x1 + x2 - sin(t)\n",
             PHI[k], PHI[k]);
    lth_error_clear(&err);
    ck_assert_msg(lth_problem_parse(text, strlen(text), "eq", NULL, &pb, &err) == LTH_OK, "%s",
                  err.message);
    verdicts_equal(lth_problem_system(pb), 0.0, 10.0, PHI[k]);
    lth_problem_free(pb);
  }
}
END_TEST

/* A jump of an mm() block is found by both ways, named at its t. */
START_TEST(test_sparse_jump_found) {
  const char *dir = getenv("LTH_DATA_DIR");
  const char *text = "lth 1\nproblem dae\nblocks 4 4 1\ninterval 0 10\n"
                     "A(1,1) = -mm(\"chain_D.mtx\")\nA(1,2) = -mm(\"chain_K.mtx\")\n"
                     "A(1,3) = mm(\"chain_G.mtx\")'\nA(2,1) = eye\n"
                     "A(3,2) = (2 + (t-6.1)/abs(t-6.1)) * mm(\"chain_G.mtx\")\n";
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "jump", dir ? dir : "data", &pb, &err) ==
                    LTH_OK,
                "%s", err.message);
  for (int dense = 0; dense <= 1; dense++) {
    lth_enclose *enc = lth_enclose_alloc(lth_problem_system(pb), 4, NULL);
    ck_assert_int_eq(lth_enclose_set_dense(enc, dense, NULL), LTH_OK);
    lth_enclose_verdict v;
    ck_assert_int_eq(lth_enclose_check(enc, 0.0, 10.0, 0, DBL_MAX, 1e-13, &v, NULL), LTH_OK);
    ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
    ck_assert_msg(fabs(v.t_feature - 6.1) < 1e-11 && strcmp(v.what, "A(3,2) entry (1,4)") == 0,
                  "dense %d: the jump named at %.17g (%s)", dense, v.t_feature, v.what);
    lth_enclose_free(enc);
  }
  lth_problem_free(pb);
}
END_TEST

static Suite *enclose_suite(void) {
  Suite *s = suite_create("enclose");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_containment);
  tcase_add_test(tc, test_unbounded);
  tcase_add_test(tc, test_structural_zero);
  tcase_add_test(tc, test_pulse_found);
  tcase_add_test(tc, test_kink_found);
  tcase_add_test(tc, test_width_is_resolved);
  tcase_add_test(tc, test_width_bound);
  tcase_add_test(tc, test_callback_unknown);
  tcase_add_test(tc, test_equation_form_and_masses);
  tcase_add_test(tc, test_constant_data);
  tcase_add_test(tc, test_point_enclosures_exact);
  tcase_add_test(tc, test_sparse_dense_same);
  tcase_add_test(tc, test_sparse_jump_found);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(enclose_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
