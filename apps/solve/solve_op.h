/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's operator path: lth_opivp_solve (include/lth/opivp.h, SUNDIALS
 * CVODE) in place of lth_ivp_solve, its results in an lth_ivp_result so that
 * the writers are those of the dense path.  Fields without meaning here:
 * gamma and output_gain NaN (written as null), coef_mode LTH_COEF_DIRECT (a
 * decomposition per right-hand side), z0_residual ||z0 - (G z0(1:m) + q)||
 * (zero exactly when z0 is consistent) instead of ||M0 z0 - b0||, which
 * needs the s x s conditions.  The global error estimate is the dense path's
 * (lth_ivp_result.error_*): a second solve from the same z0 with the same
 * method at SOLVE_OP_ERROR_FACTOR times rtol and atol, its difference from z
 * at the output times.  lth_ivp_result_free frees what solve_op returns.
 */
#ifndef LTH_SOLVE_OP_H
#define LTH_SOLVE_OP_H

#include <stddef.h>

#include "lth/ivp.h"
#include "lth/opivp.h"

/* The reference solve's tolerances relative to the solve's (as the dense
 * path's msbdf, lth_ivp_result.error_rtol). */
#define SOLVE_OP_ERROR_FACTOR 0.01

typedef struct solve_op_opts {
  int adams; /* 1: CVODE's Adams method, 0: BDF with SPGMR */
  double rtol, atol, cond_max;
  int project, error_estimate;
  /* at each output time of the solve and of the error estimate's second solve
   * (which starts over from t0): lth_opivp_opts.progress */
  void (*progress)(void *ctx, double t, double t_end);
  void *progress_ctx;
} solve_op_opts;

/* What lth_opivp_result says beyond lth_ivp_result. */
typedef struct solve_op_stats {
  size_t jv_evals, lin_iters, projections;
  /* the proof that Pi is nonsingular between the output times
   * (lth_opivp_result.pi_proven and the fields after it) */
  double pi_proven, pi_inv_bound;
  size_t pi_proofs;
  const char *pi_proof_off;
} solve_op_stats;

lth_status solve_op(const lth_opsys *sys, double t0, const double *z0, const double *times,
                    size_t n, const solve_op_opts *o, lth_ivp_result **out, solve_op_stats *stats,
                    lth_error *err);

#endif
