/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Outward-rounded interval arithmetic on lth_interval, private to the jet
 * layer: the real enclosures (lib/jet/expr_enclose.c) and the complex ones
 * (lib/jet/expr_ellipse.c) share it.  What the widening guarantees is said
 * at the top of lib/jet/expr_enclose.c. */
#ifndef LTH_INTERVAL_IMPL_H
#define LTH_INTERVAL_IMPL_H

#include <float.h>
#include <math.h>

#include "lth/expr.h"

#define LIBM_REL 8e-16 /* > 3.5 ulp: glibc's exp, log, sin, ... err by < 1 ulp */
#define TWO_PI   6.283185307179586476925
#define HALF_PI  1.570796326794896619231
#define PI_      3.14159265358979323846

typedef lth_interval iv;

static const iv ENTIRE = {-INFINITY, INFINITY};

/* ---- endpoints ---- */

/* x = fl(exact) of a sum or product: |exact - x| <= 2^-53 |x| + (below the
 * normal range) half a subnormal step, so x -+ (2^-52 |x| + DBL_TRUE_MIN),
 * computed in round-to-nearest, lies on the far side of the exact value.
 * (Cheaper than nextafter, which is a libm call.) */
static inline double dn(double x) { return x - (fabs(x) * 0x1p-52 + DBL_TRUE_MIN); }
static inline double up(double x) { return x + (fabs(x) * 0x1p-52 + DBL_TRUE_MIN); }
/* x + 0 is exact: structural zeros stay exact. */
static inline double add_dn(double x, double y) { return x == 0.0 ? y : y == 0.0 ? x : dn(x + y); }
static inline double add_up(double x, double y) { return x == 0.0 ? y : y == 0.0 ? x : up(x + y); }

/* Normalize after an operation: NaN ends become unbounded, an overflowed end
 * keeps the other side finite. */
static inline iv norm(iv x) {
  if (isnan(x.lo)) x.lo = -INFINITY;
  if (isnan(x.hi)) x.hi = INFINITY;
  if (x.lo == INFINITY) x.lo = DBL_MAX;
  if (x.hi == -INFINITY) x.hi = -DBL_MAX;
  return x;
}

/* A libm result y ~ f(x): out by LIBM_REL |y| and the smallest subnormal. */
static inline double lm_dn(double y) { return y - LIBM_REL * fabs(y) - DBL_TRUE_MIN; }
static inline double lm_up(double y) { return y + LIBM_REL * fabs(y) + DBL_TRUE_MIN; }
static inline iv lm(double lo, double hi) { return norm((iv){lm_dn(lo), lm_up(hi)}); }

static inline int is_zero(iv x) { return x.lo == 0.0 && x.hi == 0.0; }
static inline int has_zero(iv x) { return x.lo <= 0.0 && x.hi >= 0.0; }
static inline double mag(iv x) { return fmax(fabs(x.lo), fabs(x.hi)); }

/* ---- interval arithmetic ---- */

static inline iv i_const(double c) { return (iv){c, c}; }
static inline iv i_add(iv x, iv y) { return norm((iv){add_dn(x.lo, y.lo), add_up(x.hi, y.hi)}); }
static inline iv i_neg(iv x) { return (iv){-x.hi, -x.lo}; }
static inline iv i_sub(iv x, iv y) { return i_add(x, i_neg(y)); }

/* One endpoint product as [lo, hi]: exact for a zero factor. */
static inline void prod(double x, double y, double *lo, double *hi) {
  if (x == 0.0 || y == 0.0) {
    *lo = *hi = 0.0;
  } else {
    double p = x * y;
    *lo = dn(p);
    *hi = up(p);
  }
}

static inline double mul_raw(double x, double y) { return x == 0.0 || y == 0.0 ? 0.0 : x * y; }
static inline double min2(double x, double y) { return x < y ? x : y; }
static inline double max2(double x, double y) { return x > y ? x : y; }
/* A product that came out 0 is exact only with a zero factor (else it
 * underflowed). */
static inline int zero_ok(double x, double y, double p) { return p != 0.0 || x == 0.0 || y == 0.0; }

static inline iv i_mul(iv x, iv y) {
  if (is_zero(x) || is_zero(y)) {
    return i_const(0.0);
  }
  double p0 = mul_raw(x.lo, y.lo), p1 = mul_raw(x.lo, y.hi), p2 = mul_raw(x.hi, y.lo),
         p3 = mul_raw(x.hi, y.hi);
  double lo = min2(min2(p0, p1), min2(p2, p3)), hi = max2(max2(p0, p1), max2(p2, p3));
  /* (dn, up are monotone: widening the extreme products encloses all four) */
  if (lo == 0.0 || hi == 0.0) {
    int exact = zero_ok(x.lo, y.lo, p0) && zero_ok(x.lo, y.hi, p1) && zero_ok(x.hi, y.lo, p2) &&
                zero_ok(x.hi, y.hi, p3);
    return norm((iv){lo == 0.0 && exact ? 0.0 : dn(lo), hi == 0.0 && exact ? 0.0 : up(hi)});
  }
  return norm((iv){dn(lo), up(hi)});
}

/* c x for a double c (exact c: integers, signs). */
static inline iv i_scale(double c, iv x) {
  if (c > 0.0 && !is_zero(x)) {
    double l, h, l2, h2;
    prod(c, x.lo, &l, &h);
    prod(c, x.hi, &l2, &h2);
    return norm((iv){l, h2});
  }
  return i_mul(i_const(c), x);
}

/* x / c for a double c > 0, through r = fl(1/c) (one division for several
 * calls): x r is within 2^-52 |x / c| of x / c (r's rounding and the
 * product's), so the ends move out by 2^-51 relative plus a subnormal. */
static inline iv i_mulrec(iv x, double r) {
  if (is_zero(x)) {
    return x;
  }
  double lo = x.lo * r, hi = x.hi * r;
  return norm((iv){lo - (fabs(lo) * 0x1p-51 + 2 * DBL_TRUE_MIN),
                   hi + (fabs(hi) * 0x1p-51 + 2 * DBL_TRUE_MIN)});
}
static inline iv i_divpos(iv x, double c) { return i_mulrec(x, 1.0 / c); }

static inline iv i_sqr(iv x) {
  if (is_zero(x)) {
    return x;
  }
  double a = fabs(x.lo), b = fabs(x.hi);
  double lo = has_zero(x) ? 0.0 : fmin(a, b), hi = fmax(a, b);
  return norm((iv){has_zero(x) ? 0.0 : dn(lo * lo), up(hi * hi)});
}

/* x / y; y must not contain 0 (callers check). */
static inline iv i_div(iv x, iv y) {
  if (is_zero(x)) {
    return x;
  }
  double p[4] = {x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi};
  double lo = p[0], hi = p[0];
  for (int k = 1; k < 4; k++) {
    lo = fmin(lo, p[k]);
    hi = fmax(hi, p[k]);
  }
  return norm((iv){dn(lo), up(hi)});
}

/* Monotone increasing f: [f(lo), f(hi)] widened; decreasing: swapped. */
static inline iv i_incr(double (*f)(double), iv x) { return lm(f(x.lo), f(x.hi)); }
static inline iv i_decr(double (*f)(double), iv x) { return lm(f(x.hi), f(x.lo)); }

/* Does [lo, hi] (widened a little) contain phase + 2 k pi for some k? */
static inline int hits(double lo, double hi, double phase) {
  double slack = 4 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)) + 1e-15;
  double k = ceil((lo - slack - phase) / TWO_PI);
  return phase + k * TWO_PI <= hi + slack;
}

/* sin (shift 0) or cos (shift = pi/2: cos x = sin(x + pi/2), extrema moved). */
static inline iv i_sin_cos(iv x, int cosine) {
  if (!(x.hi - x.lo < TWO_PI) || !isfinite(x.lo) || !isfinite(x.hi)) {
    return lm(-1.0, 1.0);
  }
  double (*f)(double) = cosine ? cos : sin;
  double fa = f(x.lo), fb = f(x.hi), lo = fmin(fa, fb), hi = fmax(fa, fb);
  double pmax = cosine ? 0.0 : HALF_PI, pmin = cosine ? PI_ : -HALF_PI;
  if (hits(x.lo, x.hi, pmax)) {
    hi = 1.0;
  }
  if (hits(x.lo, x.hi, pmin)) {
    lo = -1.0;
  }
  iv r = lm(lo, hi);
  return (iv){fmax(r.lo, -1.0), fmin(r.hi, 1.0)};
}

static inline iv i_cosh(iv x) {
  if (has_zero(x)) {
    return lm(1.0, fmax(cosh(x.lo), cosh(x.hi)));
  }
  return x.lo > 0 ? i_incr(cosh, x) : i_decr(cosh, x);
}

#endif
