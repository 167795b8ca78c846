/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How close Pi(t) = A(r,r-1) ... A(2,1) A(1,r) comes to singular on an
 * interval, measured against the size of the data there (docs/conditioning.md):
 *
 *   chain_norm(t)    = ||A(r,r-1)(t)||_1 ... ||A(2,1)(t)||_1 ||A(1,r)(t)||_1   (>= ||Pi(t)||_1)
 *   scale            = max of chain_norm over the interval
 *   cond_interval(t) = ||Pi(t)^-1||_1 * max(scale, chain_norm(t))
 *
 * cond(Pi) and the chain condition are blind to a chain block that shrinks to
 * nothing at one t together with Pi (a 1 x 1 Pi always has cond 1);
 * cond_interval is not: it is the reciprocal of Pi's distance to singularity
 * relative to the largest size the chain's data reach on the interval.
 *
 * Where every chain block carries an enclosure of its own (include/lth/
 * enclose.h: constants, expressions, the equation form's blocks; not
 * callbacks, sampled data or mass-matrix solves), a scan first PROVES: on a
 * piece [a, b] with middle c, second-order Taylor models of the blocks (their
 * values and derivatives enclosed at c, their second Taylor coefficients
 * enclosed over [a, b]) give an interval model of Pi(t) for every t of the
 * piece, and with M = Pi(c)^-1 (LAPACK's LU), if ||I - M Pi(t)||_1 <= q < 1
 * for all those t (bounded in interval arithmetic, rounding included), then
 * Pi(t) is nonsingular on all of [a, b], det Pi keeps its sign there, and
 *   ||Pi(t)^-1||_1 <= ||M||_1 / (1 - q),   chain_norm(t) <= the models' bound.
 * Pieces are halved until q <= 3/4 and the bound of cond_interval (bound of
 * ||Pi^-1|| times the larger of the scale and the piece's chain bound) is
 * within the threshold (cond_max for lth_pi_scan_check, the default for
 * lth_pi_scan_run); no narrower than 16 spacings of the sampled scan, at most
 * (points - 1) / 16 proofs (one costs about 16 point evaluations).  What is
 * proven cannot hide a singular or too ill-conditioned Pi: it holds between
 * every two points, whatever the data do there.  The reported values on the
 * proven part (scale, worst, worst_t, pi_inv) are values of the chain at the
 * pieces' ends and middles; the proven bounds are in pi_inv_bound and
 * scale_bound, and the proven share of the interval in proven.
 *
 * The rest -- all of it without enclosures, and the pieces the proof could
 * not settle (a root of det Pi, a Pi too ill-conditioned for the threshold,
 * data that vary faster than the pieces allowed) -- is SAMPLED as before, at
 * the density of the scan's points: the chain blocks (values only) at
 * uniform points, every sign change of det Pi located by bisection (Pi is
 * singular there) and the local maxima of ||Pi^-1|| refined by golden-section
 * search, so a Pi that is singular or nearly so between the points is found
 * too.  What the sampled part sees is what the points and the refinements
 * see: a feature of Pi narrower than the spacing of the points, with no sign
 * change at them and no rise of ||Pi^-1|| towards it, can hide between them
 * there (and only there).  The tools that integrate at times of their own
 * choosing (lth_ivp_solve, lth_ivp_fundamental, lth_bvp_solve,
 * lth_lqr_solve) scan before they start.  Where every chain block is
 * constant on the interval (its enclosure bounds its derivative by exactly
 * 0: constant matrices, expressions without t), Pi is the same at every t,
 * and its value at t0 is the whole scan (points = 1), exactly what any
 * number of points gives.
 *
 * The scale where the proof covers the interval: the piece with the largest
 * chain bound is halved (at most 48 times) until that bound is within 1/1024
 * of the largest chain_norm evaluated; scale is that evaluated value (a value
 * the chain reaches, as a sampled scale is), scale_bound the bound.  On the
 * shipped examples and bench_peer's problems the scale, and so every judged
 * cond_interval, came out bitwise the same as the 1025-point scan's (their
 * largest chain norms lie at t0 or t1, which both evaluate).
 */
#ifndef LTH_CONDITIONING_H
#define LTH_CONDITIONING_H

#include <stddef.h>

#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The error amplification behind cond_interval for index r
 * (docs/conditioning.md section 1.2).
 *
 * A priori: amplification = cond_interval^(r-1).  The outputs (Ahat, g,
 * Bhat, q) carry derivatives of order up to r - 1 of Pi^-1-weighted data.
 * Near a simple root of det Pi every order of the jet division divides the
 * rounding error once more by Pi: their relative error is then about
 * eps * cond_interval^(r-1) (measured on the index-3 family Pi = t - t*: 0.2
 * to 2 eps cond^2).  It is a guess, not a bound: away from a root -- a Pi
 * that is merely small relative to the interval's data, e.g. six chain
 * blocks with masses that each vary by a factor of 26 (tests/wellposed/
 * mass6.lth) -- it is far too pessimistic (2e16 where the error is 3e-10
 * relative), and it can fall short of the error, since cond_interval does not
 * see the derivatives the higher indices take (on the calibration points
 * below, by up to 4e3 at index 2 to 5 and 2e7 at index 8).
 *
 * Measured: where the a priori amplification exceeds
 * LTH_AMPLIFICATION_MEASURE, the decomposition is recomputed with the input
 * jets and every intermediate jet multiplied entrywise by
 * 1 + LTH_PERTURB_ULPS eps xi, xi uniform in [-1, 1] from a fixed seed (Monte
 * Carlo arithmetic: the spread of such runs samples the rounding error), and
 * the relative change of the canonical outputs G, q, Ahat (I - P) and g
 * estimates their error (each relative to a size of the data: ||G|| and 1,
 * ||q||, ||Ahat (I - P)|| and ||A||, ||g|| and ||A|| ||q|| + ||f|| -- never
 * to a quantity that is rounding noise itself).  The measured amplification
 * is LTH_PERTURB_SAFETY * change / eps.  Calibration (`test_refusal_family
 * --calibrate --draws 700`, tests/unit/decomp/: 9422 points of index 2 to 8
 * with an error above 1e-12, near roots of det Pi included): the change
 * reached the true error at 99.1 % of them and fell short of it by more than
 * the safety factor at 3 (0.03 %).
 *
 * A point is accepted when cond_interval <= cond_max and its amplification
 * (a priori up to LTH_AMPLIFICATION_MEASURE, measured above) stays below
 * max(cond_max, LTH_AMPLIFICATION_MAX), i.e. the outputs keep at least two
 * digits.  lth_decomp_at judges every point so and records the number in
 * lth_point.amplification; lth_cond_acceptable is the a priori test alone. */
#define LTH_AMPLIFICATION_MAX     4.5e13 /* 1 / (100 eps) */
#define LTH_AMPLIFICATION_MEASURE 1e6
#define LTH_PERTURB_ULPS          64.0
#define LTH_PERTURB_SAFETY        10.0
double lth_cond_amplification(double cond_interval, int r);
int lth_cond_acceptable(double cond_interval, int r, double cond_max);
/* The limit of the amplification for a threshold cond_max (0: the default):
 * max(cond_max, LTH_AMPLIFICATION_MAX). */
double lth_amplification_limit(double cond_max);

/* Default number of scan points of a check (lth_pi_scan_check with points = 0). */
#define LTH_PI_SCAN_POINTS 1025

typedef struct lth_pi_scan {
  double t0, t1;
  size_t points;        /* uniform points of the sampled part (0: all proven) */
  size_t evals;         /* chain evaluations at points in all (scan, proof, bisection,
                           refinement) */
  double scale;         /* largest chain_norm evaluated */
  double worst;         /* largest cond_interval found (inf: Pi exactly singular there) */
  double worst_t;       /* where */
  double pi_inv;        /* ||Pi^-1||_1 at worst_t (inf: exactly singular) */
  int sign_change;      /* 1: det Pi changes sign between lo and hi (Pi singular in between) */
  double lo, hi;        /* bracket of worst_t after refinement */
  double amplification; /* the error amplification at worst_t: cond_interval^(r-1), or
                           the measured one where lth_pi_scan_check measured it */
  /* The proof from enclosures (above): */
  double proven;       /* fraction of [t0, t1] (by length) proven; 0: none (no enclosures) */
  size_t proofs;       /* pieces examined by the proof (enclosures of the chain) */
  double pi_inv_bound; /* ||Pi(t)^-1||_1 <= pi_inv_bound for every t of the proven part */
  double scale_bound;  /* chain_norm(t) <= scale_bound for every t of the proven part */
} lth_pi_scan;

/* Scan [t0, t1]: the proof where the chain has enclosures, and the rest at
 * the density of `points` uniform points (>= 2; 0: an automatic number that
 * keeps the scan cheap for large blocks), with bisection and refinement when
 * refine != 0.  Points where a block cannot be evaluated are skipped (the
 * solver reports them itself when it gets there).  Fills out; the status is
 * an error only for bad arguments or memory. */
lth_status lth_pi_scan_run(const lth_system *sys, double t0, double t1, size_t points, int refine,
                           lth_pi_scan *out, lth_error *err);

/* The scan with refinement, judged: LTH_ESING (det Pi changes sign, or Pi is
 * exactly singular at a point) or LTH_ECOND (cond_interval > cond_max; 0: the
 * default LTH_DEFAULT_COND_MAX; or, where the a priori amplification at the
 * worst point exceeds LTH_AMPLIFICATION_MEASURE, the amplification the
 * decomposition there measures exceeds the limit) naming t and the measure;
 * out may be NULL. */
lth_status lth_pi_scan_check(const lth_system *sys, double t0, double t1, size_t points,
                             double cond_max, lth_pi_scan *out, lth_error *err);

/* Largest chain_norm on a scan of [t0, t1] without refinement (the scale a
 * decomposition workspace uses); 0 if no point could be evaluated. */
double lth_pi_chain_scale(const lth_system *sys, double t0, double t1, size_t points);

/* The scale of one solve: lth_pi_chain_scale over the system's own interval
 * (lth_system_interval) with the default points; 0 where the system is not
 * valid, has no interval, or no point could be evaluated.  A solve computes
 * it once and hands it to every workspace and table it builds
 * (lth_decomp_ws_alloc_scaled, lth_ivp_opts.chain_scale,
 * lth_table_opts.chain_scale), so that all of them judge cond_interval
 * against the same number. */
double lth_pi_interval_scale(const lth_system *sys);

#ifdef __cplusplus
}
#endif
#endif
