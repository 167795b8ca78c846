/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One point of the operator form (include/lth/opdecomp.h) for the tools'
 * operator path: the consistent value of Clark's Corollary 3,
 * z0 = G(t) x(1:m) + q(t), G = (Nhat + Bhat)(I - P), and how far a value is
 * from consistent, ||x - (G x(1:m) + q)||_2 -- zero exactly when x is
 * consistent (x = G v + q for some v gives G x(1:m) = G v, as (I - P)
 * x(1:m) = (I - P) v) and bounds ||M0 x - b0||_2 from above (M0 (x - q) is
 * the part of x - q orthogonal to range G, no longer than x - q - G x(1:m))
 * -- without forming anything s x s.
 */
#ifndef LTH_APP_OPPOINT_H
#define LTH_APP_OPPOINT_H

#include "lth/opdecomp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_oppoint {
  int s, m;
  lth_opdecomp_ws *ws;
  lth_oppoint *pt;
  double *q;   /* s: q(t) (order 0) */
  double *tmp; /* s */
} app_oppoint;

/* Decompose sys at t for outputs of orders 0..order, Pi's chain condition up
 * to cond_max (0: the default).  The refusals of lth_opdecomp_at. */
lth_status app_oppoint_at(app_oppoint *a, const lth_opsys *sys, double t, int order,
                          double cond_max, lth_error *err);
void app_oppoint_free(app_oppoint *a);
/* z = G x(1:m) + q (x, z: s entries; distinct). */
lth_status app_oppoint_consistent(const app_oppoint *a, const double *x, double *z, lth_error *err);
/* *res = ||x - (G x(1:m) + q)||_2. */
lth_status app_oppoint_residual(const app_oppoint *a, const double *x, double *res, lth_error *err);
/* The residual below which x counts as consistent: 1e-10 max(1, ||x||, ||q||)
 * plus the rounding of the point, 64 eps times its error amplification
 * (the tolerance lth_opivp_solve judges z0 with). */
double app_oppoint_tolerance(const app_oppoint *a, const double *x);

#ifdef __cplusplus
}
#endif
#endif
