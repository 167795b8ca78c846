/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bounds of expressions over Bernstein ellipses (lth_expr_ellipse_bound):
 * every bound holds at points of the ellipse's region (complex values from
 * C99 <complex.h>, an evaluation independent of lth's), the Chebyshev
 * interpolation error it implies holds on [a, b], and a singularity or a
 * branch cut inside the region leaves no bound. */
#include <check.h>
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lth/expr.h>

#include "interp_error.h"
#include "testutil.h"

#define PI M_PI

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_expr_parse(s, strlen(s), NULL, NULL, &e, &err) == LTH_OK, "parse %s: %s", s,
                err.message);
  return e;
}

static double urand(void) { return tu_uniform(0.0, 1.0); }

/* The expression's root is its last node. */
static int root_of(const lth_expr *e) { return (int)(lth_expr_ellipse_work_size(e, 0) / 2) - 1; }

static double bound(const lth_expr *e, double a, double b, double rho) {
  int root = root_of(e);
  double M;
  lth_interval *w = malloc((lth_expr_ellipse_work_size(e, 1) + 1) * sizeof *w);
  ck_assert_ptr_nonnull(w);
  lth_expr_ellipse_bound(e, a, b, rho, &root, 1, NULL, &M, NULL, w);
  free(w);
  return M;
}

typedef struct {
  const char *text;
  double complex (*f)(double complex);
  double lo, hi; /* where the intervals are drawn */
} family;

static double complex f0(double complex t) { return 1 / (1 + t * t); }
static double complex f1(double complex t) { return t / (1 + t * t) + 2 / (2 + t); }
static double complex f2(double complex t) { return ccos(2 * t) / (1 + t); }
static double complex f3(double complex t) { return cexp(-t) * csin(5 * t); }
static double complex f4(double complex t) { return 1 / (0.05 + (t - 0.3) * (t - 0.3)); }
static double complex f5(double complex t) { return ctanh(8 * t - 2); }
static double complex f6(double complex t) {
  return (1 - t * t) / ((1 + t * t) * (1 + t * t)) - 1 / ((1 + t) * (1 + t * t));
}
static double complex f7(double complex t) { return csqrt(t) + clog(t) * csinh(t); }
static double complex f8(double complex t) { return cpow(t, 1.5) + ccosh(t) / ctan(t); }
static double complex f9(double complex t) { return cpow(t, t) - cexp(t * t) * t * t * t; }

static const family FAM[] = {
    {"1/(1+t^2)", f0, -2.0, 3.0},
    {"t/(1+t^2) + 2/(2+t)", f1, -0.5, 3.0},
    {"cos(2*t)/(1+t)", f2, -0.5, 3.0},
    {"exp(-t)*sin(5*t)", f3, -2.0, 3.0},
    {"1/(0.05 + (t-0.3)^2)", f4, -1.0, 2.0},
    {"tanh(8*t - 2)", f5, -1.0, 1.0},
    {"(1-t^2)/(1+t^2)^2 - 1/((1+t)*(1+t^2))", f6, -0.5, 3.0},
    {"sqrt(t) + log(t)*sinh(t)", f7, 0.2, 3.0},
    {"t^1.5 + cosh(t)/tan(t)", f8, 0.2, 1.4},
    {"t^t - exp(t^2)*t^3", f9, 0.3, 2.0},
};
#define NFAM (sizeof FAM / sizeof FAM[0])

/* A point of the closed region bounded by E_rho for [a, b]: the Joukowski
 * image of a point of the annulus 1 <= |w| <= rho. */
static double complex region_point(double a, double b, double rho) {
  double r = 1.0 + (rho - 1.0) * urand(), th = 2.0 * PI * urand();
  double complex w = r * cexp(I * th);
  return 0.5 * (a + b) + 0.25 * (b - a) * (w + 1.0 / w);
}

/* Every finite bound holds at 400 points of its region, the boundary
 * included; most draws give one. */
START_TEST(test_bound_holds_in_region) {
  int finite = 0, draws = 0;
  for (size_t i = 0; i < NFAM; i++) {
    lth_expr *e = parse(FAM[i].text);
    for (int d = 0; d < 30; d++) {
      double a = FAM[i].lo + (FAM[i].hi - FAM[i].lo) * urand();
      double b = a + (FAM[i].hi - a) * (0.02 + 0.98 * urand());
      double rho = 1.05 + 4.0 * urand() * urand();
      double M = bound(e, a, b, rho);
      draws++;
      ck_assert_msg(M >= 0.0, "%s: M = %g", FAM[i].text, M);
      if (!isfinite(M)) {
        continue;
      }
      finite++;
      for (int p = 0; p < 400; p++) {
        double complex z = p < 50 ? 0.5 * (a + b) + 0.25 * (b - a) *
                                                        (rho * cexp(I * 2 * PI * p / 50.0) +
                                                         cexp(-I * 2 * PI * p / 50.0) / rho)
                                  : region_point(a, b, rho);
        double v = cabs(FAM[i].f(z));
        ck_assert_msg(v <= M * (1 + 1e-12),
                      "%s on [%g, %g], rho %g: |f(%g%+gi)| = %.17g > M = %.17g", FAM[i].text, a, b,
                      rho, creal(z), cimag(z), v, M);
      }
    }
    lth_expr_free(e);
  }
  ck_assert_int_ge(finite, draws / 2);
}
END_TEST

/* 4 M rho^-K / (rho - 1) bounds the interpolation error (Trefethen, ATAP
 * Theorem 8.2), for the least of it over a ladder of rho; up to the
 * measurement's rounding (Lambda_K times a few ulps of max |f|). */
START_TEST(test_bound_holds_for_interpolant) {
  static const int DEG[] = {8, 16, 32};
  int tight = 0, checked = 0;
  for (size_t i = 0; i < NFAM; i++) {
    lth_expr *e = parse(FAM[i].text);
    for (int d = 0; d < 6; d++) {
      double a = FAM[i].lo + (FAM[i].hi - FAM[i].lo) * urand();
      double b = a + (FAM[i].hi - a) * (0.02 + 0.98 * urand());
      double fa;
      ck_assert_int_eq(lth_expr_eval(e, a, &fa, NULL), LTH_OK);
      for (size_t k = 0; k < 3; k++) {
        double best = INFINITY;
        for (double rho = 1.1; rho < 40.0; rho *= 1.3) {
          best = fmin(best, 4.0 * bound(e, a, b, rho) * pow(rho, -DEG[k]) / (rho - 1.0));
        }
        double err = interp_error(e, a, b, DEG[k], 0);
        /* best is absolute, err relative to max(1, max |f|) >= max(1, |f(a)|) */
        ck_assert_msg(err <= best / fmax(1.0, fabs(fa)) + 1e-13,
                      "%s on [%g, %g] degree %d: error %.3g > bound %.3g", FAM[i].text, a, b,
                      DEG[k], err, best);
        checked++;
        tight += best < 1e-6;
      }
    }
    lth_expr_free(e);
  }
  ck_assert_int_ge(checked, 150);
  ck_assert_int_ge(tight, 20); /* the bound is not vacuous */
}
END_TEST

/* No bound across a pole, a branch cut, or an operation without a complex
 * evaluation; a bound short of a complex pole; zero for a zero entry. */
START_TEST(test_singularities) {
  lth_expr *p = parse("1/(t-0.5)");
  ck_assert(isinf(bound(p, 0.0, 1.0, 1.5)));
  ck_assert(isinf(bound(p, 0.0, 0.49, 8.0))); /* the pole inside a wide ellipse */
  ck_assert(isfinite(bound(p, 0.0, 0.4, 1.2)));
  lth_expr_free(p);
  /* poles at 0.3 +- 0.2236i: on [0, 1] its ellipse has rho_p = |u + sqrt(u^2 - 1)|
   * for u = (z - 0.5) / 0.5 */
  lth_expr *q = parse("1/(0.05 + (t-0.3)^2)");
  double complex u = (0.3 + I * sqrt(0.05) - 0.5) / 0.5, s = csqrt(u * u - 1);
  double rho_p = fmax(cabs(u + s), cabs(u - s));
  ck_assert(isinf(bound(q, 0.0, 1.0, rho_p * 1.01)));
  ck_assert(isfinite(bound(q, 0.0, 1.0, 1.0 + 0.5 * (rho_p - 1.0))));
  lth_expr_free(q);
  const char *none[] = {"sqrt(t)",   "log(t)",  "t^0.5",     "abs(t-2)",
                        "asin(t/4)", "atan(t)", "tan(t + 1)"};
  for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) {
    lth_expr *e = parse(none[k]);
    ck_assert_msg(isinf(bound(e, 0.0, 1.0, 1.5)), "%s: bounded", none[k]);
    lth_expr_free(e);
  }
  lth_expr *c = parse("3 + 0*t");
  int roots[2] = {root_of(c), -1};
  double M[2];
  lth_interval w[64];
  ck_assert(lth_expr_ellipse_work_size(c, 2) <= 64);
  lth_expr_ellipse_bound(c, 0.0, 1.0, 4.0, roots, 2, NULL, M, NULL, w);
  ck_assert(M[0] >= 3.0 && M[0] <= 3.0 * (1 + 1e-14));
  ck_assert(M[1] == 0.0);
  lth_expr_ellipse_bound(c, 1.0, 1.0, 4.0, roots, 2, NULL, M, NULL, w); /* a point: none */
  ck_assert(isinf(M[0]));
  lth_expr_free(c);
}
END_TEST

/* A target within reach is met; one out of reach is reported as missed
 * (the bound returned exceeds it), never as met. */
START_TEST(test_targets) {
  lth_expr *e = parse("1/(1+t^2) + sin(t)");
  int root = root_of(e);
  double M, T;
  lth_interval *w = malloc(lth_expr_ellipse_work_size(e, 1) * sizeof *w);
  lth_expr_ellipse_bound(e, 0.0, 2.0, 2.0, &root, 1, NULL, &M, NULL, w);
  ck_assert(isfinite(M));
  T = 2.0 * M;
  lth_expr_ellipse_bound(e, 0.0, 2.0, 2.0, &root, 1, &T, &M, NULL, w);
  ck_assert(M <= T);
  T = 0.5; /* |f(0)| = 1: no bound can be below it */
  lth_expr_ellipse_bound(e, 0.0, 2.0, 2.0, &root, 1, &T, &M, NULL, w);
  ck_assert(M > T);
  free(w);
  lth_expr_free(e);
}
END_TEST

/* Which expressions may have poles (the ellipse's bound goes first there). */
START_TEST(test_has_poles) {
  const char *yes[] = {"1/(1+t^2)", "tan(t)", "tanh(3*t)", "t^-2", "t^t", "exp(t)/(2-t)"};
  const char *no[] = {"sin(t)*t^3 + exp(t)", "t/2", "cosh(t)^2 - 1/3", "sqrt(2)*t^1.5"};
  for (size_t k = 0; k < sizeof yes / sizeof yes[0]; k++) {
    lth_expr *e = parse(yes[k]);
    ck_assert_msg(lth_expr_has_poles(e), "%s", yes[k]);
    lth_expr_free(e);
  }
  for (size_t k = 0; k < sizeof no / sizeof no[0]; k++) {
    lth_expr *e = parse(no[k]);
    ck_assert_msg(!lth_expr_has_poles(e), "%s", no[k]);
    lth_expr_free(e);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("expr_ellipse");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_bound_holds_in_region);
  tcase_add_test(tc, test_bound_holds_for_interpolant);
  tcase_add_test(tc, test_singularities);
  tcase_add_test(tc, test_targets);
  tcase_add_test(tc, test_has_poles);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
