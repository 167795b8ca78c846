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

#endif
