/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An initial-value workspace that judges the conditioning of Pi's chain
 * against a chain scale its caller already has (lib/ivp/ivp_solve.c computes
 * it once per solve, lth_ivp_opts.chain_scale): lth_ic_alloc computes the
 * same scale again, a scan of the system's data over its interval. */
#ifndef LTH_IC_SCALED_H
#define LTH_IC_SCALED_H

#include "lth/ic.h"

/* lth_ic_alloc with the chain scale given (chain_scale < 0: computed, as
 * lth_ic_alloc does; lth_decomp_ws_alloc_scaled). */
lth_ic *lth_ic_alloc_scaled(const lth_system *sys, double chain_scale, lth_error *err);

#endif
