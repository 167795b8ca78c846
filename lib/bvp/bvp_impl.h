/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: shared pieces of the BVP methods (lib/bvp*.c). */
#ifndef LTH_BVP_IMPL_H
#define LTH_BVP_IMPL_H

#include "colloc/pieces.h"
#include "lth/bvp.h"

typedef struct lth_bvp_problem {
  const lth_system *sys;
  double t0, t1;
  int rows;
  const double *B0, *B1, *beta; /* p x s (ld p), p */
  const double *times;
  size_t n;
  int s, p;
  /* multiple shooting: pieces of [t0, t1] around the non-smooth points of
   * the data (lth_pieces_points; n = 0: none or unknown), whose ends become
   * segment ends */
  const lth_pieces *pieces;
} lth_bvp_problem;

double lth_bvp_cond_max(const lth_bvp_opts *o);
double lth_bvp_bc_residual(const lth_bvp_problem *bp, const double *z0, const double *z1);
/* LTH_ENOTUNIQUE: the method's matrix `what` is (numerically) singular;
 * detail (may be NULL): which conditions are dependent and why. */
lth_status lth_bvp_not_unique(double cond, const char *what, lth_error *err);
lth_status lth_bvp_not_unique_detail(double cond, const char *what, const char *detail,
                                     lth_error *err);
/* LTH_ENOTUNIQUE: cond_bvp above cmax. */
lth_status lth_bvp_ill_posed(double cond_bvp, double cmax, const char *method, const char *detail,
                             lth_error *err);
/* ||B0||_inf + ||B1||_inf */
double lth_bvp_bc_norm(const lth_bvp_problem *bp);
/* ||X||_inf of X (s x p, leading dimension ld). */
double lth_bvp_green_norm(const double *X, int s, int p, size_t ld);
/* The output times, t0, t1 and uniform points where cond_bvp's max_t is taken
 * (as lth_bvp_time_union). */
lth_status lth_bvp_cond_times(const lth_bvp_problem *bp, double **all, size_t *nall, size_t *idx,
                              lth_error *err);
/* Why S = B0 Phi0 + B1 Phi1 (p x p, unfactored) is singular, into buf. */
void lth_bvp_dependence(const lth_bvp_problem *bp, const double *Phi0, const double *Phi1,
                        const double *S, char *buf, size_t size);
lth_status lth_bvp_time_union(const lth_bvp_problem *bp, double **all, size_t *nall, size_t *idx,
                              lth_error *err);

lth_status lth_bvp_multiple(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                            lth_error *err);
lth_status lth_bvp_fd(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                      lth_error *err);
lth_status lth_bvp_collocation(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                               lth_bvp_result *res, lth_error *err);

/* A classical solution passes a non-smooth point of the data only if the
 * differential components stay continuous there.  They obey the hidden
 * constraints, which hold the data of block row j >= 2 differentiated up to
 * j - 2 times (the last row's constraint r - 2 times, and each substitution
 * of z_i' one order less of row i); those derivatives must therefore be
 * continuous, which an enclosure of order j - 1 bounded across the point
 * shows.  A row-j block whose enclosure of order j - 1 is unbounded at some t
 * (e.g. a jump in f(2) at index 2, a kink in f(3) at index 3) would make the
 * solution jump, an impulse the DAE's solutions do not have: LTH_ENOSOL
 * naming t and the block.  Only the rows of block row j that the
 * constraints reach are looked at (bvp_impulses.c says which: a pattern of
 * the blocks, not their values).  Data without enclosures: LTH_OK. */
lth_status lth_bvp_check_impulses(const lth_system *sys, double t0, double t1, lth_error *err);

/* After LTH_ENOTUNIQUE: append which conditions are dependent on the
 * consistent manifold and why (bases from lth_ic at t0 and t1). */
void lth_bvp_explain(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_error *err);

#endif
