/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bounds of an expression over a Bernstein ellipse (include/lth/expr.h,
 * lth_expr_ellipse_bound): the expression evaluated in complex rectangle
 * arithmetic (real and imaginary parts outward-rounded intervals,
 * lib/jet/interval_impl.h) over rectangles that cover the closed region
 * bounded by the ellipse.  A finite bound on every rectangle proves that the
 * expression is analytic there: every denominator's modulus is bounded away
 * from 0, every logarithm, root or real power sees a right half-plane (away
 * from the principal branch's cut), and the other functions are entire.
 *
 * Why: the Chebyshev interpolant p_K of a function analytic in the open
 * region bounded by the ellipse E_rho of [a, b] and bounded by M there is
 * within 4 M rho^-K / (rho - 1) of it on [a, b] (Trefethen, Approximation
 * Theory and Approximation Practice, Theorem 8.2).  The interval Taylor
 * series of lib/jet/expr_enclose.c bound the same error through the
 * (K+1)-st derivative on [a, b], and their recurrences overestimate it
 * geometrically in K where the data have poles (1/(1+t^2) at degree 16 on
 * [0.6, 1.4]: 1e7 times); the ellipse sees the pole's distance itself.
 *
 * Only the upper half of the region is covered: every operation of the
 * grammar has real coefficients and, where it is defined here, commutes with
 * conjugation, so the lower half mirrors it.  asin, acos, atan and abs are
 * not evaluated here (abs is not analytic; the others would need their
 * cuts): an expression with them has no bound (INFINITY), and the caller
 * keeps the Taylor bound. */
#include <math.h>
#include <stdlib.h>

#include "expr_impl.h"
#include "interval_impl.h"

typedef struct {
  iv re, im;
} civ;

static const civ CENTIRE = {{-INFINITY, INFINITY}, {-INFINITY, INFINITY}};

static int c_finite(civ x) {
  return isfinite(x.re.lo) && isfinite(x.re.hi) && isfinite(x.im.lo) && isfinite(x.im.hi);
}
static civ c_real(double v) { return (civ){i_const(v), i_const(0.0)}; }
static civ c_add(civ x, civ y) { return (civ){i_add(x.re, y.re), i_add(x.im, y.im)}; }
static civ c_sub(civ x, civ y) { return (civ){i_sub(x.re, y.re), i_sub(x.im, y.im)}; }
static civ c_neg(civ x) { return (civ){i_neg(x.re), i_neg(x.im)}; }
static civ c_mul(civ x, civ y) {
  return (civ){i_sub(i_mul(x.re, y.re), i_mul(x.im, y.im)),
               i_add(i_mul(x.re, y.im), i_mul(x.im, y.re))};
}
static civ c_sqr(civ x) {
  return (civ){i_sub(i_sqr(x.re), i_sqr(x.im)), i_scale(2.0, i_mul(x.re, x.im))};
}
/* |x|^2 */
static iv c_abs2(civ x) { return i_add(i_sqr(x.re), i_sqr(x.im)); }

/* x / y = x conj(y) / |y|^2; unbounded where |y| may vanish. */
static civ c_div(civ x, civ y) {
  iv d = c_abs2(y);
  if (!(d.lo > 0.0) || !c_finite(x) || !c_finite(y)) {
    return CENTIRE;
  }
  iv re = i_add(i_mul(x.re, y.re), i_mul(x.im, y.im));
  iv im = i_sub(i_mul(x.im, y.re), i_mul(x.re, y.im));
  iv r = {dn(1.0 / d.hi), up(1.0 / d.lo)}; /* 1 / |y|^2, d.lo > 0 */
  return (civ){i_mul(re, r), i_mul(im, r)};
}

static iv i_sinh(iv x) { return i_incr(sinh, x); }

/* exp(x + iy) = e^x (cos y + i sin y) */
static civ c_exp(civ x) {
  iv e = i_incr(exp, x.re);
  return (civ){i_mul(e, i_sin_cos(x.im, 1)), i_mul(e, i_sin_cos(x.im, 0))};
}
/* sin(x + iy) = sin x cosh y + i cos x sinh y; cos(x + iy) = cos x cosh y
 * - i sin x sinh y; sinh(x + iy) = sinh x cos y + i cosh x sin y; cosh(x +
 * iy) = cosh x cos y + i sinh x sin y. */
static civ c_sin(civ x) {
  return (civ){i_mul(i_sin_cos(x.re, 0), i_cosh(x.im)), i_mul(i_sin_cos(x.re, 1), i_sinh(x.im))};
}
static civ c_cos(civ x) {
  return (civ){i_mul(i_sin_cos(x.re, 1), i_cosh(x.im)),
               i_neg(i_mul(i_sin_cos(x.re, 0), i_sinh(x.im)))};
}
static civ c_sinh(civ x) {
  return (civ){i_mul(i_sinh(x.re), i_sin_cos(x.im, 1)), i_mul(i_cosh(x.re), i_sin_cos(x.im, 0))};
}
static civ c_cosh(civ x) {
  return (civ){i_mul(i_cosh(x.re), i_sin_cos(x.im, 1)), i_mul(i_sinh(x.re), i_sin_cos(x.im, 0))};
}

/* The principal logarithm where Re x > 0 (away from its cut): log |x| + i
 * atan(Im x / Re x); unbounded elsewhere. */
static civ c_log(civ x) {
  if (!(x.re.lo > 0.0) || !c_finite(x)) {
    return CENTIRE;
  }
  iv l = i_scale(0.5, i_incr(log, c_abs2(x)));
  return (civ){l, i_incr(atan, i_div(x.im, x.re))};
}

/* x^n for an integer n (binary powers; n < 0 through 1 / x^-n). */
static civ c_powi(civ x, long n) {
  long m = n < 0 ? -n : n;
  civ r = c_real(1.0), p = x;
  for (int first = 1; m > 0; m >>= 1) {
    if (m & 1) {
      r = first ? p : c_mul(r, p);
      first = 0;
    }
    if (m > 1) {
      p = c_sqr(p);
    }
  }
  return n < 0 ? c_div(c_real(1.0), r) : r;
}

static civ c_powc(civ x, double v) {
  if (v == floor(v) && fabs(v) <= 64.0) {
    return c_powi(x, (long)v);
  }
  civ l = c_log(x);
  return c_finite(l) ? c_exp(c_mul(c_real(v), l)) : CENTIRE;
}

static civ c_elementary(int op, civ x) {
  switch (op) {
  case OP_SIN:
    return c_sin(x);
  case OP_COS:
    return c_cos(x);
  case OP_TAN:
    return c_div(c_sin(x), c_cos(x));
  case OP_EXP:
    return c_exp(x);
  case OP_LOG:
    return c_log(x);
  case OP_SQRT:
    return c_powc(x, 0.5);
  case OP_SINH:
    return c_sinh(x);
  case OP_COSH:
    return c_cosh(x);
  case OP_TANH:
    return c_div(c_sinh(x), c_cosh(x));
  default:
    return CENTIRE; /* asin, acos, atan, abs: see the top of the file */
  }
}

static civ c_node(const enode *nd, const civ *w, civ t) {
  civ x = nd->a >= 0 ? w[nd->a] : CENTIRE, y = nd->b >= 0 ? w[nd->b] : CENTIRE;
  switch (nd->op) {
  case OP_CONST:
    return c_real(nd->v);
  case OP_T:
    return t;
  case OP_NEG:
    return c_neg(x);
  case OP_ADD:
    return c_add(x, y);
  case OP_SUB:
    return nd->same ? c_real(0.0) : c_sub(x, y);
  case OP_MUL:
    return nd->a == nd->b ? c_sqr(x) : c_mul(x, y);
  case OP_DIV:
    return c_div(x, y);
  case OP_POWC:
    return c_powc(x, nd->v);
  case OP_POW: {
    civ l = c_log(x);
    return c_finite(l) ? c_exp(c_mul(y, l)) : CENTIRE;
  }
  default:
    return c_elementary(nd->op, x);
  }
}

/* An upper bound of |x| for a finite x (sqrt is correctly rounded). */
static double c_mag(civ x) {
  double r = mag(x.re), i = mag(x.im);
  return up(sqrt(up(up(r * r) + up(i * i))));
}

int lth_expr_has_poles(const lth_expr *e) {
  for (int i = 0; e && i < e->n; i++) {
    const enode *nd = &e->nodes[i];
    int dep_a = nd->a >= 0 && e->nodes[nd->a].dep, dep_b = nd->b >= 0 && e->nodes[nd->b].dep;
    if ((nd->op == OP_DIV && dep_b) || (nd->op == OP_POWC && nd->v < 0.0 && dep_a) ||
        (nd->op == OP_POW && (dep_a || dep_b)) ||
        ((nd->op == OP_TAN || nd->op == OP_TANH) && dep_a)) {
      return 1;
    }
  }
  return 0;
}

size_t lth_expr_ellipse_work_size(const lth_expr *e, size_t nroots) {
  return e ? 2 * (size_t)e->n + nroots : 0; /* a complex interval a node, a double a root */
}

/* Every node over one rectangle; m[k] = |root k| there (INFINITY: not
 * proven analytic there).  Returns 1 when some m[k] exceeds target[k]. */
static int over_rect(const lth_expr *e, civ t, const int *roots, size_t nroots,
                     const double *target, double *m, civ *w) {
  for (int i = 0; i < e->n; i++) {
    civ y = c_node(&e->nodes[i], w, t);
    w[i] = c_finite(y) ? y : CENTIRE;
  }
  int over = 0;
  for (size_t k = 0; k < nroots; k++) {
    m[k] = roots[k] < 0 ? 0.0 : c_finite(w[roots[k]]) ? c_mag(w[roots[k]]) : INFINITY;
    over |= target ? m[k] > target[k] : isinf(m[k]);
  }
  return over;
}

/* The region: the upper half of the one bounded by E_rho for [a, b]
 * (centre c, half-width h), semi-axes A = h (rho + 1/rho) / 2 along the real
 * axis and B = h (rho - 1/rho) / 2 across, both taken a little larger than
 * computed so that rounding never leaves a sliver uncovered. */
typedef struct {
  double c, A, B;
} region;

/* Does the rectangle miss the region?  Its point nearest the centre lies
 * outside the ellipse. */
static int outside(const region *g, double x0, double x1, double y0) {
  double xn = g->c < x0 ? x0 : g->c > x1 ? x1 : g->c;
  double u = (xn - g->c) / g->A, v = y0 / g->B;
  return u * u + v * v > 1.0;
}

/* The cover: ELLIPSE_COLUMNS x ELLIPSE_ROWS rectangles over the region's
 * bounding box [c - A, c + A] x [0, B], those outside it dropped; a
 * rectangle on which some entry's bound exceeds its target is split in four,
 * at most ELLIPSE_DEPTH times and ELLIPSE_RECTS rectangles in all (the
 * entries still over their targets then keep the bound they have: the
 * caller's check fails).  Without targets, only rectangles on which some
 * entry is unbounded are split. */
#define ELLIPSE_COLUMNS 4
#define ELLIPSE_ROWS    2
#define ELLIPSE_DEPTH   3
#define ELLIPSE_RECTS   96
typedef struct {
  double x0, x1, y0, y1;
  int depth;
} rect;

int lth_expr_ellipse_bound(const lth_expr *e, double a, double b, double rho, const int *roots,
                           size_t nroots, const double *target, double *M, double *over,
                           lth_interval *work) {
  if (over) {
    *over = INFINITY;
  }
  for (size_t k = 0; k < nroots; k++) {
    M[k] = roots[k] < 0 ? 0.0 : INFINITY;
  }
  if (!e || !(a < b) || !(rho > 1.0) || !isfinite(rho)) {
    return LTH_ELLIPSE_UNBOUNDED;
  }
  for (size_t k = 0; k < nroots; k++) {
    M[k] = 0.0;
  }
  civ *w = (civ *)work;
  double *m = (double *)(w + e->n);
  double h = 0.5 * (b - a);
  region g = {0.5 * (a + b), h * 0.5 * (rho + 1.0 / rho) * (1.0 + 1e-12),
              h * 0.5 * (rho - 1.0 / rho) * (1.0 + 1e-12)};
  rect stack[ELLIPSE_COLUMNS * ELLIPSE_ROWS + 3 * ELLIPSE_DEPTH + 8];
  int top = 0, done = 0;
  double dx = 2.0 * g.A / ELLIPSE_COLUMNS, dy = g.B / ELLIPSE_ROWS;
  for (int i = ELLIPSE_COLUMNS - 1; i >= 0; i--) {
    for (int j = ELLIPSE_ROWS - 1; j >= 0; j--) {
      stack[top++] = (rect){g.c - g.A + i * dx,
                            i == ELLIPSE_COLUMNS - 1 ? g.c + g.A : g.c - g.A + (i + 1) * dx, j * dy,
                            j == ELLIPSE_ROWS - 1 ? g.B : (j + 1) * dy, 0};
    }
  }
  while (top > 0) {
    rect r = stack[--top];
    if (outside(&g, r.x0, r.x1, r.y0)) {
      continue;
    }
    civ t = {{r.x0, r.x1}, {r.y0, r.y1}};
    int missed = over_rect(e, t, roots, nroots, target, m, w);
    done++;
    if (missed && (r.depth == ELLIPSE_DEPTH || done + top + 4 > ELLIPSE_RECTS)) {
      /* a target out of reach on this ellipse: the rest of the region is
       * not covered, so no entry has a bound */
      int unbounded = 0;
      double ratio = 0.0;
      for (size_t k = 0; k < nroots; k++) {
        unbounded |= isinf(m[k]);
        ratio = target && m[k] > target[k] ? fmax(ratio, m[k] / target[k]) : ratio;
        M[k] = roots[k] < 0 ? 0.0 : INFINITY;
      }
      if (over) {
        *over = unbounded ? INFINITY : ratio;
      }
      return unbounded ? LTH_ELLIPSE_UNBOUNDED : LTH_ELLIPSE_MISSED;
    }
    if (missed) {
      double xm = 0.5 * (r.x0 + r.x1), ym = 0.5 * (r.y0 + r.y1);
      stack[top++] = (rect){xm, r.x1, ym, r.y1, r.depth + 1};
      stack[top++] = (rect){r.x0, xm, ym, r.y1, r.depth + 1};
      stack[top++] = (rect){xm, r.x1, r.y0, ym, r.depth + 1};
      stack[top++] = (rect){r.x0, xm, r.y0, ym, r.depth + 1};
      continue;
    }
    for (size_t k = 0; k < nroots; k++) {
      M[k] = fmax(M[k], m[k]);
    }
  }
  return LTH_ELLIPSE_BOUNDED;
}
