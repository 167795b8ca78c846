/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: shared pieces of the BVP methods (lib/bvp*.c). */
#ifndef LTH_BVP_IMPL_H
#define LTH_BVP_IMPL_H

#include "lth/bvp.h"

typedef struct lth_bvp_problem {
  const lth_system *sys;
  double t0, t1;
  int rows;
  const double *B0, *B1, *beta; /* p x s (ld p), p */
  const double *times;
  size_t n;
  int s, p;
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
lth_status lth_bvp_time_union(const lth_bvp_problem *bp, double **all, size_t *nall,
                              size_t *idx, lth_error *err);

lth_status lth_bvp_multiple(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                            lth_bvp_result *res, lth_error *err);
lth_status lth_bvp_fd(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                      lth_error *err);
lth_status lth_bvp_collocation(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                               lth_bvp_result *res, lth_error *err);

/* After LTH_ENOTUNIQUE: append which conditions are dependent on the
 * consistent manifold and why (bases from lth_ic at t0 and t1). */
void lth_bvp_explain(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_error *err);

#endif
