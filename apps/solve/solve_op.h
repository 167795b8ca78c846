/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's operator path: its options as lth_opivp_opts for lth_opsolve
 * (include/lth/opsolve.h: lth_opivp_solve, SUNDIALS CVODE, in place of
 * lth_ivp_solve, its results and global error estimate in an lth_ivp_result
 * so that the writers are those of the dense path; gamma and output_gain
 * NaN, written as null).  lth_ivp_result_free frees what solve_op returns.
 */
#ifndef LTH_SOLVE_OP_H
#define LTH_SOLVE_OP_H

#include <stddef.h>

#include "lth/ivp.h"
#include "lth/opivp.h"
#include "lth/opsolve.h"

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
typedef lth_opsolve_stats solve_op_stats;

lth_status solve_op(const lth_opsys *sys, double t0, const double *z0, const double *times,
                    size_t n, const solve_op_opts *o, lth_ivp_result **out, solve_op_stats *stats,
                    lth_error *err);

#endif
