/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: pieces of the LQR solver (lib/lqr/lqr.c: shooting, lib/lqr/lqr_colloc.c:
 * collocation, lib/lqr/lqr_check.c: the data's requirements). */
#ifndef LTH_LQR_IMPL_H
#define LTH_LQR_IMPL_H

#include "lth/lqr.h"
/* C symmetric positive semidefinite; H(t) symmetric positive semidefinite on
 * [t0, t1] (a scan, the output times, refined minima of its smallest
 * eigenvalue).  LTH_EDATA naming t and the eigenvalue or the asymmetry.
 * lth_lqr_check_data is the two in turn; the data-file reader calls them
 * apart, to name the statement at fault (lth_problem_lqr_check). */
lth_status lth_lqr_check_C(const lth_lqr_spec *spec, lth_error *err);
lth_status lth_lqr_check_H(const lth_lqr_spec *spec, const double *times, size_t n,
                           lth_error *err);
lth_status lth_lqr_check_data(const lth_lqr_spec *spec, const double *times, size_t n,
                              lth_error *err);

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

#endif
