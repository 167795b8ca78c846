/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the data of a BVP do between the points a method looks at
 * (include/lth/enclose.h; docs/collocation.md section 8), shared by the
 * collocation mesh (colloc_adapt.c) and the BVP methods (lib/bvp/).
 *
 * [t0, t1] is cut into pieces of three kinds:
 *  - SMOOTH: the data are resolved on the piece by a polynomial of the
 *    given degree to the given tolerance (the enclosure's bound), so no
 *    pulse, kink or jump hides inside it;
 *  - POINT: a piece of width <= lth_pieces_tiny that holds a point where an
 *    enclosure of the data is unbounded (a kink, a jump, a cusp), its ends on
 *    either side of that point;
 *  - NARROW: a piece narrower than the caller's wmin on which the data are
 *    still not resolved (a feature finer than the method's grid).
 * Data without enclosures (callbacks, samples) give one SMOOTH piece and
 * known = 0: nothing is known between the points, as before.
 */
#ifndef LTH_COLLOC_PIECES_H
#define LTH_COLLOC_PIECES_H

#include <stddef.h>

#include "lth/enclose.h"
#include "lth/system.h"

enum { LTH_PIECE_SMOOTH = 0, LTH_PIECE_POINT = 1, LTH_PIECE_NARROW = 2 };

typedef struct lth_pieces {
  size_t n;            /* pieces */
  double *t;           /* n + 1 ends: t[0] = t0 < ... < t[n] = t1 */
  unsigned char *kind; /* n: LTH_PIECE_* */
  size_t npoint, nnarrow;
  int known;     /* 0: the data carry no enclosure (one SMOOTH piece) */
  size_t first;  /* the first POINT or NARROW piece (n if none) */
  char what[64]; /* which data there, e.g. "A(1,1) entry (2,2)" */
} lth_pieces;

/* The width below which a non-smooth point counts as localized: 64 ulps of
 * the interval's scale max(|t0|, |t1|, t1 - t0). */
double lth_pieces_tiny(double t0, double t1);

/* Cut [t0, t1] into pieces (above) for the data behind enc, halving
 * unresolved ones and localizing unbounded enclosures by bisection.
 * degree <= enc's max_degree; tol: relative, as lth_enclose_check's (a huge
 * tol asks only where the data are not smooth); wmin <= 0: never NARROW.
 * More than max_pieces pieces: LTH_ETOL naming the t where they crowd. */
lth_status lth_pieces_find(lth_enclose *enc, double t0, double t1, int degree, double tol,
                           double wmin, size_t max_pieces, lth_pieces *out, lth_error *err);
void lth_pieces_release(lth_pieces *pc);

/* The POINT pieces of the whole system's data, at a degree that sees kinks
 * and jumps up to that order (for segment ends and output times of the
 * shooting methods): pieces->n = 0 when there are none. */
lth_status lth_pieces_points(const lth_system *sys, double t0, double t1, int degree,
                             lth_pieces *out, lth_error *err);

/* 1 if [a, b] lies inside a POINT piece. */
int lth_pieces_at_point(const lth_pieces *pc, double a, double b);

/* Sorted points x[0..n-1] (x[0] = t0, x[n-1] = t1) merged with the ends of
 * the pieces: every piece end becomes a point, and the points of x that fall
 * inside a POINT piece or nearer to a piece end than 1/20 of their
 * neighbours' spacing are dropped (no slivers).  Returns the merged points
 * (malloc'ed) and their number, or NULL when out of memory. */
double *lth_pieces_merge(const lth_pieces *pc, const double *x, size_t n, size_t *nout);

#endif
