/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: where the integrator gets Ahat, g (and P, Bhat, q) at any t --
 * the decomposition itself (exact jets), or Hermite interpolation of the
 * decomposition's output jets on a grid (sampled data). */
#ifndef LTH_IVP_COEF_H
#define LTH_IVP_COEF_H

#include "lth/decomp.h"
#include "lth/ivp.h"

typedef struct lth_coef lth_coef;

/* deriv = 1: lth_coef_eval must also deliver the first derivative (order 1)
 * of Ahat and g (stiff steppers).  [t_lo, t_hi] is the span to cover. */
lth_coef *lth_coef_alloc(const lth_system *sys, const lth_ivp_opts *opts, int deriv,
                         double t_lo, double t_hi, lth_error *err);
void lth_coef_free(lth_coef *c);
/* Ahat and g (coefficients 0..order, order <= deriv) and P (order 0) at t;
 * other fields may be stale. */
lth_status lth_coef_eval(lth_coef *c, double t, int order, const lth_point **pt, lth_error *err);
/* Every field (P, Ahat, g, Bhat, q, G) at t, order 0. */
lth_status lth_coef_eval_full(lth_coef *c, double t, const lth_point **pt, lth_error *err);
double lth_coef_span(const lth_coef *c);
void lth_coef_stats(const lth_coef *c, size_t *decomps, double *seconds);

#endif
