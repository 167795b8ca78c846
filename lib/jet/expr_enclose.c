/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interval Taylor enclosures of compiled expressions (include/lth/enclose.h):
 * the forward sweep of lib/jet/expr_taylor.c with every series coefficient an
 * interval, t = [a, b], so coefficient m encloses x^{(m)}(t)/m! for every t
 * in [a, b].
 *
 * Outward rounding without touching the FPU's rounding mode: a sum or
 * product of two doubles is correctly rounded, so moving the result one ulp
 * outward (nextafter) encloses the exact value; libm's functions are
 * accurate to a few ulps, so their results move out by LIBM_REL relative
 * plus the smallest subnormal.  Exact zeros stay exact (0 + x, 0 * x are not
 * widened): an expression that is zero by its structure (0 * sin(t)) has
 * the enclosure {0} everywhere, which is how lth_expr_is_zero decides.
 *
 * Unbounded is [-inf, inf]; the lower end is never +inf nor the upper -inf
 * (overflow keeps a finite bound on the other side), so endpoint sums never
 * meet inf - inf; 0 * inf is taken as 0 (a zero factor is exactly zero).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr_impl.h"

#include "interval_impl.h"

/* ---- series (K + 1 intervals each) ---- */

static void s_const(iv *y, double c, int K) {
  y[0] = i_const(c);
  for (int m = 1; m <= K; m++) {
    y[m] = i_const(0.0);
  }
}

static void s_entire(iv *y, int from, int K) {
  for (int m = from; m <= K; m++) {
    y[m] = ENTIRE;
  }
}

/* Index of the last nonzero coefficient (-1: none): the series of t, of a
 * linear or polynomial argument end early, and the recurrences skip the
 * exact zeros (sin(w t + phi) costs O(K), not O(K^2)). */
static int last_nz(const iv *a, int K) {
  while (K >= 0 && is_zero(a[K])) {
    K--;
  }
  return K;
}

static int imax(int x, int y) { return x > y ? x : y; }
static int imin(int x, int y) { return x < y ? x : y; }

/* Sum of a[j] b[m - j], j = j0 .. j1, one rounding bound for all its
 * operations: the endpoint products and their sums in round-to-nearest,
 * then each end moved out once by 2 (n + 2) u times the sum of the
 * magnitudes of what was added (>= gamma_{n+1} of the n products' and n - 1
 * additions' roundings, u = 2^-53; Higham, Accuracy and Stability of
 * Numerical Algorithms, (3.4) and Lemma 3.1), n DBL_MIN for products
 * that underflowed, and the last subtraction's own ulp.  The
 * per-operation widening of i_add and i_mul cost twice the products
 * themselves in these convolutions, the bulk of an enclosure.  0 where an
 * end is not finite (0 inf, overflow): the caller then takes the slow path,
 * whose conventions cover those cases. */
static int conv_sum(const iv *a, const iv *b, int j0, int j1, int m, iv *out) {
  double lo = 0.0, hi = 0.0, alo = 0.0, ahi = 0.0;
  int n = 0;
  for (int j = j0; j <= j1; j++) {
    iv x = a[j], z = b[m - j];
    if (is_zero(x) || is_zero(z)) {
      continue; /* exactly 0, as i_mul */
    }
    double p0 = x.lo * z.lo, p1 = x.lo * z.hi, p2 = x.hi * z.lo, p3 = x.hi * z.hi;
    double l = min2(min2(p0, p1), min2(p2, p3)), h = max2(max2(p0, p1), max2(p2, p3));
    lo += l;
    hi += h;
    alo += fabs(l);
    ahi += fabs(h);
    n++;
  }
  if (n == 0) {
    *out = i_const(0.0);
    return 1;
  }
  if (!(isfinite(lo) && isfinite(hi) && isfinite(alo) && isfinite(ahi))) {
    return 0;
  }
  /* (n DBL_MIN >= n subnormal steps, and no arithmetic on subnormals, which
   * costs microcode assists on common CPUs) */
  double g = 2.0 * (n + 2) * 0x1p-53 * (1.0 + 0x1p-40), tiny = n * DBL_MIN;
  double elo = up(g * alo) + tiny, ehi = up(g * ahi) + tiny;
  *out = norm((iv){dn(lo - elo), up(hi + ehi)});
  return 1;
}

static void s_mul(const iv *a, const iv *b, iv *y, int K) {
  int na = last_nz(a, K), nb = last_nz(b, K);
  for (int m = 0; m <= K; m++) {
    int j0 = imax(0, m - nb), j1 = imin(m, na);
    if (m > 0 && conv_sum(a, b, j0, j1, m, &y[m])) {
      continue; /* (order 0: the exact zeros of i_mul's ends decide domains) */
    }
    iv s = i_const(0.0);
    for (int j = j0; j <= j1; j++) {
      s = i_add(s, i_mul(a[j], b[m - j]));
    }
    y[m] = s;
  }
}

/* y = a^2 with the symmetric terms paired: the order-0 term is a square
 * (>= 0), which a plain product of an interval with itself is not. */
static void s_sqr(const iv *a, iv *y, int K) {
  int na = last_nz(a, K);
  for (int m = 0; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = imax(0, m - na); 2 * j < m; j++) {
      s = i_add(s, i_mul(a[j], a[m - j]));
    }
    s = i_scale(2.0, s);
    if (m % 2 == 0) {
      s = i_add(s, i_sqr(a[m / 2]));
    }
    y[m] = s;
  }
}

/* y = a / b, 0 not in b[0]. */
static void s_div(const iv *a, const iv *b, iv *y, int K) {
  int nb = last_nz(b, K);
  /* 1 / b[0] once, its ends moved out by an ulp (b[0] has one sign: 1/hi <=
   * 1/x <= 1/lo on it); orders >= 1 multiply by it instead of dividing by
   * b[0] four times each */
  iv r = norm((iv){dn(1.0 / b[0].hi), up(1.0 / b[0].lo)});
  for (int m = 0; m <= K; m++) {
    iv s = a[m], c;
    if (conv_sum(y, b, imax(0, m - nb), m - 1, m, &c)) {
      s = i_sub(s, c);
    } else {
      for (int j = imax(0, m - nb); j < m; j++) {
        s = i_sub(s, i_mul(y[j], b[m - j]));
      }
    }
    y[m] = m == 0 ? i_div(s, b[0]) : i_mul(s, r);
  }
}

/* Orders 1..K of y = exp(a) given y[0]. */
static void s_exp_tail(const iv *a, iv *y, int K) {
  int na = last_nz(a, K);
  for (int m = 1; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = 1; j <= imin(m, na); j++) {
      s = i_add(s, i_mul(i_scale(j, a[j]), y[m - j]));
    }
    y[m] = i_divpos(s, m);
  }
}

/* y = log(a), a[0] > 0. */
static void s_log(const iv *a, iv *y, int K) {
  y[0] = i_incr(log, a[0]);
  for (int m = 1; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = 1; j < m; j++) {
      s = i_add(s, i_mul(i_scale(j, y[j]), a[m - j]));
    }
    y[m] = i_div(i_sub(a[m], i_divpos(s, m)), a[0]);
  }
}

/* y = sqrt(a), a[0] > 0. */
static void s_sqrt(const iv *a, iv *y, int K) {
  y[0] = i_incr(sqrt, a[0]);
  y[0].lo = fmax(y[0].lo, 0.0);
  for (int m = 1; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = 1; j < m; j++) {
      s = i_add(s, i_mul(y[j], y[m - j]));
    }
    y[m] = i_div(i_sub(a[m], s), i_scale(2.0, y[0]));
  }
}

/* sin/cos (hyp = 0) or sinh/cosh (hyp = 1) pairs: s' = a' c, c' = -+ a' s. */
static void s_sincos(const iv *a, iv *s, iv *c, int K, int hyp) {
  s[0] = hyp ? i_incr(sinh, a[0]) : i_sin_cos(a[0], 0);
  c[0] = hyp ? i_cosh(a[0]) : i_sin_cos(a[0], 1);
  int na = last_nz(a, K);
  for (int m = 1; m <= K; m++) {
    iv ss = i_const(0.0), cs = i_const(0.0);
    for (int j = 1; j <= imin(m, na); j++) {
      iv ja = i_scale(j, a[j]);
      ss = i_add(ss, i_mul(ja, c[m - j]));
      cs = i_add(cs, i_mul(ja, s[m - j]));
    }
    double r = 1.0 / m;
    s[m] = i_mulrec(ss, r);
    c[m] = i_mulrec(hyp ? cs : i_neg(cs), r);
  }
}

/* T = tan(a) (sgn 1) / tanh(a) (sgn -1), T' = u a', u = 1 + sgn T^2. */
static void s_tan(const iv *a, iv *T, iv *u, int K, int sgn) {
  T[0] = sgn > 0 ? i_incr(tan, a[0]) : i_incr(tanh, a[0]);
  u[0] = i_add(i_const(1.0), i_scale(sgn, i_sqr(T[0])));
  int na = last_nz(a, K);
  for (int m = 1; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = 1; j <= imin(m, na); j++) {
      s = i_add(s, i_mul(i_scale(j, a[j]), u[m - j]));
    }
    T[m] = i_divpos(s, m);
    iv q = i_const(0.0);
    for (int j = 0; 2 * j < m; j++) {
      q = i_add(q, i_mul(T[j], T[m - j]));
    }
    q = i_scale(2.0, q);
    if (m % 2 == 0) {
      q = i_add(q, i_sqr(T[m / 2]));
    }
    u[m] = i_scale(sgn, q);
  }
}

/* Orders 1..K of y from w y' = sgn a', 0 not in w[0]. */
static void s_integrate_quotient(const iv *a, const iv *w, iv *y, int K, double sgn) {
  for (int m = 1; m <= K; m++) {
    iv s = i_scale(sgn * m, a[m]);
    for (int j = 1; j < m; j++) {
      s = i_sub(s, i_mul(w[j], i_scale(m - j, y[m - j])));
    }
    y[m] = i_div(s, i_mul(i_const(m), w[0]));
  }
}

/* y = a^b, b constant, 0 not in a[0] (b real: a[0] > 0). */
static void s_pow_rec(const iv *a, double b, iv *y, iv y0, int K) {
  y[0] = y0;
  int na = last_nz(a, K);
  for (int m = 1; m <= K; m++) {
    iv s = i_const(0.0);
    for (int j = 1; j <= imin(m, na); j++) {
      s = i_add(s, i_mul(i_const(b * j - (m - j)), i_mul(a[j], y[m - j])));
    }
    y[m] = i_div(s, i_scale(m, a[0]));
  }
}

/* ---- node kernels (no errors: undefined means unbounded) ---- */

typedef struct ikargs {
  const enode *nd;
  const iv *a, *b;
  iv *y;
  int K;
  iv t;
} ikargs;

#define IAUX(k, i) ((k)->y + (size_t)(i) * (size_t)((k)->K + 1))

static int s_is_zero(const iv *a, int K) {
  for (int m = 0; m <= K; m++) {
    if (!is_zero(a[m])) {
      return 0;
    }
  }
  return 1;
}

/* pow(x, b) over an interval x >= 0 (b real), monotone in x. */
static iv i_powr(iv x, double b) {
  double plo = pow(x.lo, b), phi = pow(x.hi, b);
  return b >= 0 ? lm(plo, phi) : lm(phi, plo);
}

/* a^n, integer n: squares paired (exact structure at 0 as in the point code). */
static void k_powi(const ikargs *k, double n) {
  int K = k->K;
  iv *P = IAUX(k, 1), *Q = IAUX(k, 2), *S = IAUX(k, 3);
  size_t bytes = (size_t)(K + 1) * sizeof(iv);
  s_const(P, 1.0, K);
  memcpy(Q, k->a, bytes);
  for (unsigned long e = (unsigned long)fabs(n); e; e >>= 1) {
    if (e & 1u) {
      s_mul(P, Q, S, K);
      memcpy(P, S, bytes);
    }
    if (e > 1) {
      s_sqr(Q, S, K);
      memcpy(Q, S, bytes);
    }
  }
  if (n >= 0) {
    memcpy(k->y, P, bytes);
  } else if (has_zero(P[0])) {
    s_entire(k->y, 0, K);
  } else {
    s_const(S, 1.0, K);
    s_div(S, P, k->y, K);
  }
}

static void k_powc(const ikargs *k) {
  double b = k->nd->v;
  iv a0 = k->a[0];
  int K = k->K;
  if (b == floor(b) && fabs(b) <= 2147483648.0 && (fabs(b) <= 64 || has_zero(a0))) {
    k_powi(k, b);
  } else if (b == floor(b) && !has_zero(a0)) {
    /* |b| > 64: pow of the endpoints' magnitudes, sign from the parity */
    iv m = {fmin(fabs(a0.lo), fabs(a0.hi)), fmax(fabs(a0.lo), fabs(a0.hi))};
    iv p = i_powr(m, b);
    int odd = fmod(fabs(b), 2.0) == 1.0;
    s_pow_rec(k->a, b, k->y, a0.hi < 0 && odd ? i_neg(p) : p, K);
  } else if (a0.lo > 0) {
    s_pow_rec(k->a, b, k->y, i_powr(a0, b), K);
  } else if (a0.lo == 0 && b > 0) {
    k->y[0] = i_powr(a0, b); /* the value is defined; derivatives may not be */
    s_entire(k->y, 1, K);
  } else {
    s_entire(k->y, 0, K);
  }
}

static void k_pow(const ikargs *k) {
  if (!(k->a[0].lo > 0)) {
    s_entire(k->y, 0, k->K);
    return;
  }
  iv *L = IAUX(k, 1), *M = IAUX(k, 2);
  s_log(k->a, L, k->K);
  s_mul(k->b, L, M, k->K);
  k->y[0] = i_incr(exp, M[0]);
  s_exp_tail(M, k->y, k->K);
}

static void k_sqrt(const ikargs *k) {
  iv a0 = k->a[0];
  if (a0.lo > 0) {
    s_sqrt(k->a, k->y, k->K);
  } else if (a0.lo == 0) {
    k->y[0] = (iv){0.0, is_zero(a0) ? 0.0 : lm_up(sqrt(a0.hi))};
    s_entire(k->y, 1, k->K);
  } else {
    s_entire(k->y, 0, k->K);
  }
}

/* abs: where the sign of a is fixed, +-a; across 0 the value is bounded and
 * its first derivative lies in [-1, 1] a' (abs is 1-Lipschitz), higher
 * orders do not exist at the kink. */
static void k_abs(const ikargs *k) {
  int K = k->K;
  iv a0 = k->a[0];
  if (s_is_zero(k->a, K)) {
    s_const(k->y, 0.0, K);
  } else if (a0.lo > 0 || a0.hi < 0) {
    for (int m = 0; m <= K; m++) {
      k->y[m] = a0.lo > 0 ? k->a[m] : i_neg(k->a[m]);
    }
  } else {
    k->y[0] = (iv){0.0, mag(a0)};
    if (K >= 1) {
      k->y[1] = i_mul((iv){-1.0, 1.0}, k->a[1]);
    }
    s_entire(k->y, 2, K);
  }
}

static void k_asin(const ikargs *k, int is_acos) {
  iv a0 = k->a[0];
  int K = k->K;
  if (a0.lo < -1.0 || a0.hi > 1.0) {
    s_entire(k->y, 0, K);
    return;
  }
  k->y[0] = is_acos ? i_decr(acos, a0) : i_incr(asin, a0);
  if (!(a0.lo > -1.0 && a0.hi < 1.0)) {
    s_entire(k->y, 1, K);
    return;
  }
  if (K == 0) {
    return;
  }
  iv *U = IAUX(k, 1), *W = IAUX(k, 2);
  s_sqr(k->a, U, K);
  for (int m = 0; m <= K; m++) {
    U[m] = i_neg(U[m]);
  }
  U[0] = i_mul(i_sub(i_const(1.0), a0), i_add(i_const(1.0), a0));
  s_sqrt(U, W, K);
  s_integrate_quotient(k->a, W, k->y, K, is_acos ? -1.0 : 1.0);
}

static void k_atan(const ikargs *k) {
  iv *W = IAUX(k, 1);
  s_sqr(k->a, W, k->K);
  W[0] = i_add(W[0], i_const(1.0));
  k->y[0] = i_incr(atan, k->a[0]);
  s_integrate_quotient(k->a, W, k->y, k->K, 1.0);
}

static void k_tan(const ikargs *k, int sgn) {
  iv a0 = k->a[0];
  /* a pole of tan (pi/2 + j pi) inside: unbounded */
  if (sgn > 0 &&
      (!(a0.hi - a0.lo < PI_) || hits(a0.lo, a0.hi, HALF_PI) || hits(a0.lo, a0.hi, -HALF_PI))) {
    s_entire(k->y, 0, k->K);
    return;
  }
  s_tan(k->a, k->y, IAUX(k, 1), k->K, sgn);
}

static void k_elementary(const ikargs *k) {
  int K = k->K;
  switch (k->nd->op) {
  case OP_EXP:
    k->y[0] = i_incr(exp, k->a[0]);
    s_exp_tail(k->a, k->y, K);
    return;
  case OP_LOG:
    if (k->a[0].lo > 0) {
      s_log(k->a, k->y, K);
    } else {
      s_entire(k->y, 0, K);
    }
    return;
  case OP_SQRT:
    k_sqrt(k);
    return;
  case OP_ABS:
    k_abs(k);
    return;
  case OP_SIN:
    s_sincos(k->a, k->y, IAUX(k, 1), K, 0);
    return;
  case OP_COS:
    s_sincos(k->a, IAUX(k, 1), k->y, K, 0);
    return;
  case OP_SINH:
    s_sincos(k->a, k->y, IAUX(k, 1), K, 1);
    return;
  case OP_COSH:
    s_sincos(k->a, IAUX(k, 1), k->y, K, 1);
    return;
  case OP_TAN:
    k_tan(k, 1);
    return;
  case OP_TANH:
    k_tan(k, -1);
    return;
  case OP_ASIN:
    k_asin(k, 0);
    return;
  case OP_ACOS:
    k_asin(k, 1);
    return;
  default:
    k_atan(k);
    return;
  }
}

static void k_dispatch(const ikargs *k) {
  int K = k->K;
  switch (k->nd->op) {
  case OP_CONST:
    s_const(k->y, k->nd->v, K);
    return;
  case OP_T:
    s_const(k->y, 0.0, K);
    k->y[0] = k->t;
    if (K > 0) {
      k->y[1] = i_const(1.0);
    }
    return;
  case OP_NEG:
    for (int m = 0; m <= K; m++) k->y[m] = i_neg(k->a[m]);
    return;
  case OP_ADD:
    for (int m = 0; m <= K; m++) k->y[m] = i_add(k->a[m], k->b[m]);
    return;
  case OP_SUB:
    if (k->nd->same) {
      s_const(k->y, 0.0, K); /* x - x, whatever x encloses */
      return;
    }
    for (int m = 0; m <= K; m++) k->y[m] = i_sub(k->a[m], k->b[m]);
    return;
  case OP_MUL:
    if (k->nd->a == k->nd->b) {
      s_sqr(k->a, k->y, K);
    } else {
      s_mul(k->a, k->b, k->y, K);
    }
    return;
  case OP_DIV:
    if (s_is_zero(k->a, K) && !has_zero(k->b[0])) {
      s_const(k->y, 0.0, K);
    } else if (has_zero(k->b[0])) {
      s_entire(k->y, 0, K);
    } else {
      s_div(k->a, k->b, k->y, K);
    }
    return;
  case OP_POWC:
    k_powc(k);
    return;
  case OP_POW:
    k_pow(k);
    return;
  default:
    k_elementary(k);
    return;
  }
}

size_t lth_expr_enclose_work_size(const lth_expr *e, int order) {
  return lth_expr_work_size(e, order);
}

void lth_expr_enclose_all(const lth_expr *e, double a, double b, int order, lth_interval *work) {
  size_t k1 = (size_t)order + 1;
  for (int i = 0; i < e->n; i++) {
    const enode *nd = &e->nodes[i];
    ikargs k = {.nd = nd,
                .a = nd->a >= 0 ? work + e->nodes[nd->a].off * k1 : NULL,
                .b = nd->b >= 0 ? work + e->nodes[nd->b].off * k1 : NULL,
                .y = work + nd->off * k1,
                .K = order,
                .t = {a, b}};
    k_dispatch(&k);
  }
}

lth_status lth_expr_enclose(const lth_expr *e, double a, double b, int order, lth_interval *coef,
                            lth_interval *work, lth_error *err) {
  if (!e || !coef || !work || order < 0 || !(a <= b)) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL,
                         "lth_expr_enclose: NULL argument, negative order or a > b");
  }
  size_t k1 = (size_t)order + 1;
  lth_expr_enclose_all(e, a, b, order, work);
  memcpy(coef, work + e->nodes[e->n - 1].off * k1, k1 * sizeof *coef);
  return LTH_OK;
}

/* Structural zero: the enclosure of the value is exactly {0}.  Exact zeros
 * propagate only through the expression's structure (a zero factor, 0 + 0,
 * x - x, 0 / x, abs(0), 0^n), never through rounding; the interval matters
 * only where a denominator might vanish (0 / t is zero on [1, 2], not on
 * [-1, 1]). */
int lth_expr_is_zero_on(const lth_expr *e, double a, double b) {
  if (!e || e->n <= 0 || !(a <= b)) {
    return 0;
  }
  if (!lth_expr_depends_on_t(e)) {
    double v;
    return lth_expr_eval(e, a, &v, NULL) == LTH_OK && v == 0.0;
  }
  size_t n = lth_expr_enclose_work_size(e, 0);
  lth_interval y, *w = malloc((n ? n : 1) * sizeof *w);
  int z = w && lth_expr_enclose(e, a, b, 0, &y, w, NULL) == LTH_OK && is_zero(y);
  free(w);
  return z;
}

int lth_expr_is_zero(const lth_expr *e) { return lth_expr_is_zero_on(e, -1.0, 1.0); }
