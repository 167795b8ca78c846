/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: pieces of the LQR solver (lib/lqr*.c). */
#ifndef LTH_LQR_IMPL_H
#define LTH_LQR_IMPL_H

#include "lth/lqr.h"

/* C symmetric positive semidefinite; H(t) symmetric positive semidefinite on
 * [t0, t1] (a scan, the output times, refined minima of its smallest
 * eigenvalue).  LTH_EDATA naming t and the eigenvalue or the asymmetry. */
lth_status lth_lqr_check_data(const lth_lqr_spec *spec, const double *times, size_t n,
                              lth_error *err);

#endif
