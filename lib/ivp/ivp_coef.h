/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: where the integrator, the fundamental matrix (shooting, multiple
 * shooting) and LQR get Ahat, g (and P, Bhat, q, G) at any t -- a coefficient
 * table (include/lth/table.h), the decomposition itself (exact jets), or
 * Hermite interpolation of the decomposition's output jets on a grid (sampled
 * data).  lth_ivp_opts.coefficients and .hermite choose. */
#ifndef LTH_IVP_COEF_H
#define LTH_IVP_COEF_H

#include "lth/decomp.h"
#include "lth/ivp.h"

typedef struct lth_coef lth_coef;

/* The coefficients' interpolation tolerance, relative to max(1, |field|):
 * opts->table_tol, or by default 1e-3 rtol in [LTH_COEF_TABLE_TOL_MIN, 1e-6]
 * (a table's, and Hermite mode's). */
#define LTH_COEF_TABLE_TOL_MIN 3e-15
double lth_coef_tol(const lth_ivp_opts *opts);
/* opts->chain_scale, or where it is 0 the scale of a scan of the system's
 * interval (lth_pi_chain_scale): what a solve computes once and hands to
 * every integrator, table and workspace it makes (include/lth/ivp.h). */
double lth_coef_chain_scale(const lth_system *sys, const lth_ivp_opts *opts);

/* deriv = 1: lth_coef_eval must also deliver the first derivative (order 1)
 * of Ahat, g and P (stiff steppers).  [t_lo, t_hi] is the span to cover. */
lth_coef *lth_coef_alloc(const lth_system *sys, const lth_ivp_opts *opts, int deriv, double t_lo,
                         double t_hi, lth_error *err);
/* The same; with outputs_direct = 1 a table holds Ahat, g and P only and
 * lth_coef_eval_full decomposes directly (for callers that need the output
 * maps at a few times: tabulating Bhat, q and G costs more transform work and
 * often more nodes than those few decompositions). */
lth_coef *lth_coef_alloc_ex(const lth_system *sys, const lth_ivp_opts *opts, int deriv,
                            int outputs_direct, double t_lo, double t_hi, lth_error *err);
void lth_coef_free(lth_coef *c);
/* 1 when lth_coef_alloc with these arguments starts with a table (auto may
 * still fall back to direct decomposition part-way). */
int lth_coef_starts_table(const lth_system *sys, const lth_ivp_opts *opts, double t_lo,
                          double t_hi);
/* Ahat, g and P (coefficients 0..order, order <= deriv) at t; other fields
 * may be stale. */
lth_status lth_coef_eval(lth_coef *c, double t, int order, const lth_point **pt, lth_error *err);
/* The damped right-hand side's coefficients at t (order 0): from a table,
 * Ahat - gamma P in pt->Ahat in one pass and *damped = 1 (pt->P not
 * evaluated); otherwise as lth_coef_eval, *damped = 0. */
lth_status lth_coef_eval_damped(lth_coef *c, double t, double gamma, const lth_point **pt,
                                int *damped, lth_error *err);
/* Every field (P, Ahat, g, Bhat, q, G) at t, order 0. */
lth_status lth_coef_eval_full(lth_coef *c, double t, const lth_point **pt, lth_error *err);
double lth_coef_span(const lth_coef *c);
/* Where the right-hand side from t on is served by one table panel's
 * polynomials of degree <= degree (lth_table_panel_end; the panels ahead are built
 * first where t ends the covered part); t where it is not (no table, auto
 * fell back, a direct panel, a higher degree).  Valid while
 * lth_coef_generation stays the same: a fall-back or a rebuilt table
 * changes what serves the right-hand side. */
double lth_coef_table_end(lth_coef *c, double t, int degree);
unsigned lth_coef_generation(const lth_coef *c);
/* 1 when pt (just served by c) is a decomposition at pt->t, with its outputs
 * Bhat and q, rather than a table's interpolant. */
int lth_coef_is_exact(const lth_coef *c, const lth_point *pt);
/* How many lth_coef_eval_full calls per unit t the caller expects (a table
 * tabulates the output maps only on panels where that many pay for it;
 * default: every panel). */
void lth_coef_output_density(lth_coef *c, double per_unit_t);
/* Decompositions (table nodes and bisections included) and their seconds. */
void lth_coef_stats(const lth_coef *c, size_t *decomps, double *seconds);
/* The scales of the drift at t and at the span's end (the larger of the
 * two), for the automatic drift damping: *mu the largest growth rate of
 * ||y||_2 over the drift y = P v in range P (y' = (P' + P Ahat - gamma) y),
 * *rho the spectral radius of (I - P) Ahat (I - P), the reduced ODE's own
 * scale on the state space.  0 where they are not had (sampled data, m above
 * a limit, a failed decomposition: nothing recorded). */
int lth_coef_drift_scales(lth_coef *c, double t, double *mu, double *rho);
/* Fill res->coef_mode, coef_order, table_panels, table_direct_panels, coef_error. */
void lth_coef_report(const lth_coef *c, lth_ivp_result *res);

#endif
