/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: pieces of the LQR solver (lib/lqr/lqr.c: shooting, lib/lqr/lqr_colloc.c:
 * collocation, lib/lqr/lqr_check.c: the data's requirements). */
#ifndef LTH_LQR_IMPL_H
#define LTH_LQR_IMPL_H

#include "lth/lqr.h"
#include "lqr_check.h"

/* An empty result for n output times (lib/lqr/lqr.c). */
lth_lqr_result *lth_lqr_result_new(int nx, int nu, size_t n, const double *times);

/* lth_lqr_solve with opts->method == LTH_LQR_COLLOCATION (lib/lqr/lqr_colloc.c);
 * spec and times are checked already. */
lth_status lth_lqr_colloc(const lth_lqr_spec *spec, const double *times, size_t n,
                          const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err);

/* The collocation path alone: LTH_ENOSOL (no smooth optimum: terminal
 * impulse, or (x0, 0) not in range(W)) or LTH_ENOTUNIQUE instead of the
 * hand-over to the shooting analysis (for tests). */
lth_status lth_lqr_colloc_smooth(const lth_lqr_spec *spec, const double *times, size_t n,
                                 const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err);

/* A sparse symmetric n x n matrix (CSC, both triangles stored; only the upper
 * one is factored) shown positive semidefinite to rounding by a sparse
 * Cholesky factorization of H + delta I (lib/lqr/lqr_psd.c says why it is
 * sound and what delta is).  res->psd = 1: factored, lambda_min(H) >= -delta
 * to rounding; 0: a pivot <= 0, so H has an eigenvalue below -delta (to
 * rounding), with the pivot, its column (0-based) and the Rayleigh quotient
 * x'Hx / x'x of the witness built from it (NaN when out of memory for it).
 * LTH_EINVAL in a build without SuiteSparse CHOLMOD (lth_lqr_psd_available
 * is 0), LTH_ENOMEM when the factor does not fit. */
typedef struct lth_psd_result {
  int psd;
  double delta;    /* the shift */
  int column;      /* the failed pivot's column, -1 if none */
  double pivot;    /* that pivot of H + delta I */
  double rayleigh; /* x'Hx / x'x of the witness (< -delta in exact arithmetic) */
} lth_psd_result;
int lth_lqr_psd_available(void);
/* The shift delta for H (colptr, val as below): 4 n eps ||H||_1. */
double lth_lqr_psd_shift(int n, const int *colptr, const double *val);
lth_status lth_lqr_psd_sparse(int n, const int *colptr, const int *rowind, const double *val,
                              lth_psd_result *res, lth_error *err);
/* The same through a context that keeps CHOLMOD's analysis while the
 * pattern stays the same (a scan of H(t)): new (NULL when out of memory),
 * test any number of times, free. */
typedef struct lth_psd_ctx lth_psd_ctx;
lth_psd_ctx *lth_lqr_psd_new(void);
lth_status lth_lqr_psd_test(lth_psd_ctx *c, int n, const int *colptr, const int *rowind,
                            const double *val, lth_psd_result *res, lth_error *err);
void lth_lqr_psd_free(lth_psd_ctx *c);

#endif
