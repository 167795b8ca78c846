/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The initial-value problem on the operator path with the dense path's
 * result: lth_opivp_solve (include/lth/opivp.h, SUNDIALS CVODE) in place of
 * lth_ivp_solve, its solution at the output times in an lth_ivp_result
 * (include/lth/ivp.h) together with the dense path's global error estimate,
 * so that a front end writes both paths the same way.
 *
 * Fields without meaning here: gamma and output_gain NaN (the operator path
 * neither damps drift nor forms Nhat + Bhat), coef_mode LTH_COEF_DIRECT (a
 * decomposition per right-hand side), z0_residual ||z0 - (G z0(1:m) + q)||
 * (zero exactly when z0 is consistent; include/lth/opic.h) instead of
 * ||M0 z0 - b0||, which needs the s x s conditions.
 *
 * The global error estimate is the dense path's (lth_ivp_result.error_*): a
 * second solve from z0_used with the same method at LTH_OPSOLVE_ERROR_FACTOR
 * times rtol (not below 1e-15) and atol, its difference from z at the output
 * times (z_error), the largest |z_error_ik| (error_estimate) and the largest
 * in units of atol + rtol max_k |z_ik| (error_tol, at component error_worst
 * and output error_worst_k).  A failure of the second solve that the solve
 * itself did not meet is reported (error_failed, z_error NULL); a singular or
 * ill-conditioned Pi there fails the call (the solve stepped over it).
 */
#ifndef LTH_OPSOLVE_H
#define LTH_OPSOLVE_H

#include <stddef.h>

#include "lth/ivp.h"
#include "lth/opivp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference solve's tolerances relative to the solve's (as the dense
 * path's msbdf, lth_ivp_result.error_rtol). */
#define LTH_OPSOLVE_ERROR_FACTOR 0.01

/* What lth_opivp_result says beyond lth_ivp_result (the solve's, not the
 * error estimate's). */
typedef struct lth_opsolve_stats {
  size_t jv_evals, lin_iters, projections;
  /* the proof that Pi is nonsingular between the output times
   * (lth_opivp_result.pi_proven and the fields after it) */
  double pi_proven, pi_inv_bound;
  size_t pi_proofs;
  const char *pi_proof_off; /* static text, or NULL */
} lth_opsolve_stats;

/* Solve from z0 (s entries) at t0, reporting at times[0..n-1] (finite,
 * non-decreasing, >= t0), with opts as lth_opivp_solve (NULL: the defaults;
 * opts.progress is called at each output time of the solve and of the error
 * estimate's second solve, which starts over from t0); error_estimate: 1 to
 * estimate the global error.  *out (lth_ivp_result_free) holds z, v,
 * z0_used (with opts.project: Corollary 3's projection of an inconsistent z0,
 * z0_change and z0_worst saying what changed), the drift and the counts;
 * stats (may be NULL) the Krylov and projection counts.  The refusals of
 * lth_opivp_solve. */
lth_status lth_opsolve(const lth_opsys *sys, double t0, const double *z0, const double *times,
                       size_t n, const lth_opivp_opts *opts, int error_estimate,
                       lth_ivp_result **out, lth_opsolve_stats *stats, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
