/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Totally singular LQR by Clark's section 4.2 (../shared/MATH.md section 6):
 *   minimise 1/2 x(t1)' C x(t1) + 1/2 int_{t0}^{t1} x' H x dt
 *   subject to x' = A(t) x + B(t) u, x(t0) = x0, R = 0, B' H B invertible.
 * Optimality DAE (index 3): z = (x, lambda, u),
 *   x' = A x + B u,  lambda' = -H x - A' lambda,  0 = B' lambda,
 * i.e. A_11 = A, A_13 = B, A_21 = -H, A_22 = -A', A_32 = B', Pi = -B' H B,
 * with x(t0) = x0 and the natural condition lambda(t1) = +C x(t1).
 */
#ifndef LTH_LQR_H
#define LTH_LQR_H

#include "lth/source.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_lqr_spec {
  int nx, nu;              /* nx > nu >= 1 */
  double t0, t1;
  const lth_source *A;     /* nx x nx */
  const lth_source *B;     /* nx x nu */
  const lth_source *H;     /* nx x nx, symmetric positive semidefinite */
  const double *C;         /* nx x nx terminal weight, column-major, ld = nx */
  const double *x0;        /* nx */
} lth_lqr_spec;

/* The index-3 optimality DAE with blocks (nx, nx, nu).  The system refers to
 * spec's sources (they must outlive it). */
lth_status lth_lqr_build_system(const lth_lqr_spec *spec, lth_system **out, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
