/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Enclosures of the data: what a coefficient does between the points lth
 * looks at (docs/enclosures.md).
 *
 * Every decision taken from values at finitely many points (a table panel
 * accepted from its nodes, an integrator step from its stages) can miss what
 * happens in between.  For data given as expressions lth can bound it: the
 * expression is evaluated over an interval [a, b] in interval arithmetic on
 * the same Taylor recurrences as lth_expr_taylor, which encloses every Taylor
 * coefficient f_m(t) = f^{(m)}(t)/m! for all t in [a, b] at once.  Bounds are
 * widened outward after every operation (never by changing the FPU's rounding
 * mode): each computed endpoint is moved out by a relative and absolute
 * margin that covers the error of the operation and of libm's functions.
 *
 * From the enclosure of f_{K+1} on [a, b] (half-width h) follows a bound of
 * how far f is from the polynomial of degree K that interpolates it at the
 * K + 1 Chebyshev points of [a, b]:
 *     max_{[a,b]} |f - p_K|  <=  2^{-K} h^{K+1} max |F_{K+1}([a, b])|
 * (the interpolation remainder f^{(K+1)}(xi)/(K+1)! times the node
 * polynomial, whose size on [a, b] is 2^{-K} h^{K+1}).  When this bound is
 * below tol * max(1, max |F_0([a, b])|) for every entry, no pulse, kink or
 * jump of the data can hide in [a, b] from K + 1 well-spread points: the data
 * are "resolved on [a, b] by degree K to tol".
 *
 * A second bound of the same distance, for expressions whose operations
 * extend to complex t (all but asin, acos, atan, abs): where f is analytic
 * in the region bounded by a Bernstein ellipse E_rho of [a, b] and |f| <= M
 * there, max |f - p_K| <= 4 M rho^{-K} / (rho - 1) (lth_expr_ellipse_bound,
 * include/lth/expr.h).  M comes from the expression evaluated in complex
 * rectangle arithmetic over rectangles covering the region, which also
 * proves the analyticity.  It sees the distance of the data's singularities
 * where the interval Taylor recurrences overestimate geometrically in K;
 * an entry is resolved when either bound says so.  (Dense sources only:
 * those enclosed on a sparse pattern keep the Taylor bound alone.)
 *
 * Which data carry an enclosure: constants, expressions (every function of
 * the grammar; a division whose denominator's enclosure contains 0, a log or
 * a real power of an enclosure reaching 0, sqrt/abs/asin/acos where their
 * derivatives do not exist inside [a, b] give unbounded enclosures of the
 * orders concerned), the equation form's coefficients, scaled views of those,
 * and mass-matrix solves M^{-1} X through M and X.  Callbacks and sampled data
 * carry none: the answer for them is "unknown" (LTH_ENCLOSE_UNKNOWN), and the
 * consumers (tables, integrator) then decide from their points as before.
 */
#ifndef LTH_ENCLOSE_H
#define LTH_ENCLOSE_H

#include <stddef.h>

#include "lth/expr.h"
#include "lth/source.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The enclosures of one expression (lth_expr_enclose, lth_expr_is_zero) are
 * declared in include/lth/expr.h, those of one source (lth_source_enclose) in
 * include/lth/source.h: each with its layer. */

/* ---- a whole system (or any set of sources) ---- */

typedef struct lth_enclose lth_enclose;

/* Over every block of sys: A_ij, f_i, and through mass-matrix solves the
 * mass matrices and the blocks they multiply.  max_degree bounds the degree
 * K the checks below may ask for.  sys must outlive the handle. */
lth_enclose *lth_enclose_alloc(const lth_system *sys, int max_degree, lth_error *err);
/* The same over n sources (e.g. the mass matrices of a model); they must
 * outlive the handle. */
lth_enclose *lth_enclose_alloc_sources(const lth_source *const *src, int n, int max_degree,
                                       lth_error *err);
void lth_enclose_free(lth_enclose *enc);
/* 1 if every piece of data carries an enclosure; 0 if some are callbacks or
 * samples (every check then answers LTH_ENCLOSE_UNKNOWN). */
int lth_enclose_known(const lth_enclose *enc);

typedef enum lth_enclose_answer {
  LTH_ENCLOSE_UNKNOWN = -1, /* some data carry no enclosure */
  LTH_ENCLOSE_UNRESOLVED = 0,
  LTH_ENCLOSE_RESOLVED = 1
} lth_enclose_answer;

typedef struct lth_enclose_verdict {
  lth_enclose_answer answer;
  double bound;     /* largest interpolation-remainder bound over the entries, relative to
                       max(1, max |value|) of each entry on [a, b] (inf: unbounded) */
  double t_feature; /* UNRESOLVED: a t of [a, b] where the data are not resolved, localized
                       by bisection to t_width (the middle of the smallest unresolved
                       piece found) */
  double t_width;
  char what[64]; /* UNRESOLVED: which data, e.g. "f(2) entry 1" or "A(1,3) entry (2,1)" */
} lth_enclose_verdict;

/* Are the data resolved on [a, b] by degree `degree` (<= max_degree) to the
 * relative tolerance tol (see the top of this file)?  v->bound is the
 * largest remainder bound either way.  If not, where: the unresolved
 * interval is bisected down to width min_width (<= 0: 1e-12 of b - a;
 * >= b - a: no bisection, t_feature the middle) and the verdict names the t.
 * Errors only for bad arguments.  Not thread-safe on one handle (it owns
 * its workspace): one handle per thread. */
lth_status lth_enclose_check(lth_enclose *enc, double a, double b, int degree, double tol,
                             double min_width, lth_enclose_verdict *v, lth_error *err);

/* A wide w <= wmax, >= wmin, with the data resolved on [a, a + w] (wmax < 0:
 * on [a + w, a], backwards) by `degree` to tol: wmax shrunk by factors of
 * 0.8 to 1/16 (where the bound predicts the width, that width) until
 * resolved; wmin
 * in sign and size as wmax (wmin = wmax: a single check).  *resolved = 1 and
 * that w when found; *w = wmax and *resolved = LTH_ENCLOSE_UNKNOWN when the
 * data carry no enclosure; *w = wmin and *resolved = 0 when even that is
 * not resolved (a kink or jump at a, or features narrower than wmin).
 * resolved may be NULL. */
lth_status lth_enclose_width(lth_enclose *enc, double a, double wmax, double wmin, int degree,
                             double tol, double *w, int *resolved, lth_error *err);
/* As lth_enclose_width, and the bound of the last check into *bound (NaN
 * where no check ran): with *resolved = 1 the bound that met tol at *w,
 * from which the width the next stretch may take is predicted (the bound
 * scales like w^(degree + 1)). */
lth_status lth_enclose_width_bound(lth_enclose *enc, double a, double wmax, double wmin, int degree,
                                   double tol, double *w, int *resolved, double *bound,
                                   lth_error *err);

/* 1 if every piece of data is constant on [a, b]: the enclosure of its
 * first derivative there is exactly {0} for every entry (constant matrices,
 * expressions without t, sums and products of those).  Then anything
 * computed from the data alone is the same at every t of [a, b], to the
 * last bit.  0 otherwise, also when the data carry no enclosure.  Not
 * thread-safe on one handle. */
int lth_enclose_constant(lth_enclose *enc, double a, double b);

/* Enclosures computed so far by this handle's checks (lth_enclose_check,
 * lth_enclose_width): one per piece of data per interval examined, none
 * while the data carry no enclosure.  The cost of the checks, e.g. to choose
 * a degree or a tolerance. */
size_t lth_enclose_evals(const lth_enclose *enc);

#ifdef __cplusplus
}
#endif
#endif
