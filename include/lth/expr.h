/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scalar expressions in t with Taylor-mode automatic differentiation.
 *
 * Language (docs/format.md section 1.1): numbers (2, -1.5e-3, .5),
 * the variable t, named parameters (resolved when parsing), pi,
 * + - * / and ^ (power, right-associative, binds tighter than unary minus:
 * -t^2 = -(t^2), 2^3^2 = 2^9), parentheses, and the functions
 * sin cos tan exp log sqrt sinh cosh tanh asin acos atan abs.
 *
 * A parsed expression is compiled once into a flat program; lth_expr_taylor
 * then returns its Taylor coefficients x_m = x^{(m)}(t)/m!, m = 0..order, at
 * any t, using the standard recurrences (products, quotients, exp/log,
 * sin/cos pairs, powers, tan/tanh through their ODEs).
 */
#ifndef LTH_EXPR_H
#define LTH_EXPR_H

#include <stddef.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_expr lth_expr;

/* A closed interval [lo, hi]; lo = -inf / hi = +inf for unbounded ones
 * (enclosures of the data, include/lth/enclose.h). */
typedef struct lth_interval {
  double lo, hi;
} lth_interval;

/* Resolves a name that is not t, pi or a function: return 1 and set *value
 * when the name (name[0..len-1], not NUL-terminated) is known, else 0. */
typedef int (*lth_expr_lookup_fn)(void *ctx, const char *name, size_t len, double *value);

/* Parse and compile text[0..len-1].  lookup may be NULL (no parameters).
 * On a syntax error: LTH_EPARSE, err->column is the 1-based column within
 * text and err->message says what was expected.  An unknown name is
 * LTH_EPARSE naming it. */
lth_status lth_expr_parse(const char *text, size_t len, lth_expr_lookup_fn lookup, void *ctx,
                          lth_expr **out, lth_error *err);
void lth_expr_free(lth_expr *e);

/* 1 if the value depends on t, 0 if it is a constant. */
int lth_expr_depends_on_t(const lth_expr *e);

/* Number of doubles of workspace lth_expr_taylor needs for this order. */
size_t lth_expr_work_size(const lth_expr *e, int order);

/* Taylor coefficients coef[0..order] at t.  work holds at least
 * lth_expr_work_size(e, order) doubles.  Thread-safe for distinct work
 * arrays.  Domain errors (log or a real power of a non-positive value,
 * division by zero, sqrt/abs at 0 when derivatives are requested, asin/acos
 * outside (-1, 1) when derivatives are requested, a non-finite value) are
 * LTH_EDOMAIN with err->t set and the offending function named. */
lth_status lth_expr_taylor(const lth_expr *e, double t, int order, double *coef, double *work,
                           lth_error *err);

/* ---- several expressions as one program (lib/jet/expr_merge.c) ----
 * The entries' common subexpressions shared (same operation, operands,
 * constant bit for bit): one sweep computes each once, with the same
 * operations as the entries alone, so the results are bitwise theirs.
 * roots[k] is the node of entry k's value (-1 for a NULL entry); the
 * entries are not consumed.  NULL (LTH_ENOMEM) on failure. */
lth_expr *lth_expr_merge(lth_expr *const *entries, size_t count, int *roots, lth_error *err);
/* Every node's Taylor coefficients into work (lth_expr_work_size(e, order)
 * doubles); node k's are at lth_expr_series(e, work, k, order).  Errors as
 * lth_expr_taylor. */
lth_status lth_expr_taylor_all(const lth_expr *e, double t, int order, double *work,
                               lth_error *err);
const double *lth_expr_series(const lth_expr *e, const double *work, int node, int order);

/* Value at t (order 0; allocates its workspace). */
lth_status lth_expr_eval(const lth_expr *e, double t, double *value, lth_error *err);

/* ---- enclosures of the data (docs/enclosures.md, include/lth/enclose.h) ---- */

/* Intervals of workspace lth_expr_enclose needs for this order. */
size_t lth_expr_enclose_work_size(const lth_expr *e, int order);
/* Enclosures coef[m], m = 0..order, of the Taylor coefficients
 * e^{(m)}(t)/m! for all t in [a, b] (a <= b; a = b gives a point enclosure).
 * work holds lth_expr_enclose_work_size(e, order) intervals.  Never fails on
 * the data: where the expression is undefined or not differentiable
 * somewhere in [a, b] the enclosures concerned are unbounded (or, for order
 * 0 outside any domain, [-inf, inf]).  LTH_EINVAL for bad arguments only.
 * Thread-safe for distinct work arrays. */
/* Every node's enclosures into work (lth_expr_enclose_work_size(e, order)
 * intervals, a <= b); node k's at lth_expr_iseries(e, work, k, order). */
void lth_expr_enclose_all(const lth_expr *e, double a, double b, int order, lth_interval *work);
const lth_interval *lth_expr_iseries(const lth_expr *e, const lth_interval *work, int node,
                                     int order);
lth_status lth_expr_enclose(const lth_expr *e, double a, double b, int order, lth_interval *coef,
                            lth_interval *work, lth_error *err);
/* Bounds over the Bernstein ellipse E_rho of [a, b] (foci a and b, semi-axes
 * summing to rho (b - a) / 2, rho > 1): M[k] >= |x_k(z)| for every z in the
 * closed region bounded by E_rho, where x_k is node roots[k] of e (0 for
 * roots[k] < 0), and x_k is analytic there.  INFINITY where that is not
 * proven (a pole or a branch cut within reach, an operation without a
 * complex evaluation: asin, acos, atan, abs).  With it, the Chebyshev
 * interpolant of degree K on [a, b] is within 4 M[k] rho^-K / (rho - 1) of
 * x_k (docs/enclosures.md).  target (NULL: none) says how small each M[k]
 * is wanted: the cover of the region is refined, within a fixed budget,
 * where some M[k] exceeds it, and where that fails the cover stops and
 * every M[k] is INFINITY; *over (over may be NULL) is then the largest
 * |x_k| / target[k] on the rectangle where it stopped (INFINITY when
 * unbounded there, and when the cover did not stop), a hint of how far the
 * targets are out of reach.  Returns LTH_ELLIPSE_BOUNDED (every M[k] a
 * bound, the targets met or not), LTH_ELLIPSE_MISSED (stopped on a finite
 * value over its target) or LTH_ELLIPSE_UNBOUNDED (stopped on, or found, an
 * unbounded one).  work: lth_expr_ellipse_work_size(e, nroots) intervals.
 * Thread-safe for distinct work arrays. */
enum { LTH_ELLIPSE_BOUNDED, LTH_ELLIPSE_MISSED, LTH_ELLIPSE_UNBOUNDED };
/* 1 if e may have poles at finite complex t: a quotient by, or a negative
 * power of, a subexpression of t, or tan or tanh of one.  There the interval
 * Taylor bound overestimates most and the ellipse's is the one to try first
 * (lib/system/enclose.c). */
int lth_expr_has_poles(const lth_expr *e);
size_t lth_expr_ellipse_work_size(const lth_expr *e, size_t nroots);
int lth_expr_ellipse_bound(const lth_expr *e, double a, double b, double rho, const int *roots,
                           size_t nroots, const double *target, double *M, double *over,
                           lth_interval *work);
/* 1 if e is identically zero: its value is the constant 0, or its
 * enclosure (on [-1, 1]) is exactly {0} (e.g. 0 * sin(t), x - x for the same
 * subexpression x).  Decided from the expression, never from samples. */
int lth_expr_is_zero(const lth_expr *e);
/* The same on [a, b]: there only the denominators' enclosures differ
 * (0 / t is identically zero on [1, 2]). */
int lth_expr_is_zero_on(const lth_expr *e, double a, double b);

#ifdef __cplusplus
}
#endif
#endif
