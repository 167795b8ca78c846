/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Consistent initial values on the operator path (include/lth/opdecomp.h):
 * the consistent value of Clark's Corollary 3, z0 = G(t) x(1:m) + q(t),
 * G = (Nhat + Bhat)(I - P), and how far a value is from consistent,
 * ||x - (G x(1:m) + q)||_2 -- zero exactly when x is consistent (x = G v + q
 * for some v gives G x(1:m) = G v, as (I - P) x(1:m) = (I - P) v) and bounds
 * ||M0 x - b0||_2 from above (M0 (x - q) is the part of x - q orthogonal to
 * range G, no longer than x - q - G x(1:m)) -- without forming anything
 * s x s.  The counterpart of lth_ic_project, lth_ic_residual and
 * lth_ic_tolerance (include/lth/ic.h) for large sparse systems; the dense
 * path's lth_ic_nearest, lth_ic_fix and the conditions M0, b0 have no
 * operator form.
 */
#ifndef LTH_OPIC_H
#define LTH_OPIC_H

#include "lth/opdecomp.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_opic lth_opic;

/* A handle for consistent values of sys (sys must outlive it). */
lth_opic *lth_opic_alloc(const lth_opsys *sys, lth_error *err);
void lth_opic_free(lth_opic *h);
/* Pi's chain condition threshold (default 0: LTH_DEFAULT_COND_MAX). */
void lth_opic_set_cond_max(lth_opic *h, double cond_max);
/* Decompose at t (the refusals of lth_opdecomp_at, naming t). */
lth_status lth_opic_setup(lth_opic *h, double t, lth_error *err);
/* The point of the last setup (cond_chain, cond_pi, amplification, ...). */
const lth_opinfo *lth_opic_info(const lth_opic *h);
/* z = G x(1:m) + q (x, z: s entries; distinct). */
lth_status lth_opic_project(const lth_opic *h, const double *x, double *z, lth_error *err);
/* *res = ||x - (G x(1:m) + q)||_2. */
lth_status lth_opic_residual(const lth_opic *h, const double *x, double *res, lth_error *err);
/* The residual below which x counts as consistent: 1e-10 max(1, ||x||, ||q||)
 * plus the rounding of the point, 64 eps times its error amplification
 * (the tolerance lth_opivp_solve judges z0 with). */
double lth_opic_tolerance(const lth_opic *h, const double *x);

#ifdef __cplusplus
}
#endif
#endif
