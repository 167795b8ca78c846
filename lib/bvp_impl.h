/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: shared pieces of the BVP methods (lib/bvp*.c). */
#ifndef LTH_BVP_IMPL_H
#define LTH_BVP_IMPL_H

#include "lth/bvp.h"

typedef struct lth_bvp_problem {
  const lth_system *sys;
  double t0, t1;
  int rows;
  const double *B0, *B1, *beta; /* p x s (ld p), p */
  const double *times;
  size_t n;
  int s, p;
} lth_bvp_problem;

double lth_bvp_cond_max(const lth_bvp_opts *o);
double lth_bvp_bc_residual(const lth_bvp_problem *bp, const double *z0, const double *z1);
lth_status lth_bvp_not_unique(double cond, const char *what, lth_error *err);
lth_status lth_bvp_time_union(const lth_bvp_problem *bp, double **all, size_t *nall,
                              size_t *idx, lth_error *err);

lth_status lth_bvp_multiple(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                            lth_bvp_result *res, lth_error *err);
lth_status lth_bvp_fd(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                      lth_error *err);
lth_status lth_bvp_collocation(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                               lth_bvp_result *res, lth_error *err);

#endif
