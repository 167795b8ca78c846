/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Kalman-Bucy filter of a DAE plant with inputs (docs/control.md
 * section 11): some inputs are process noise w, white with intensity W(t),
 * and the outputs are measured with white noise v of intensity V(t):
 *   E z' = A z + B_u u + B_w w + f,   y_m = C z + D_u u + D_w w + y0 + v.
 * On the minimal realization (include/lth/ss.h), x' = A x + B_u u + B_w w + g,
 * y_m = C x + D_u u + D_w w + y_f + v, the error covariance Sigma of the
 * estimate x^ solves, forwards from Sigma(t0),
 *   Sigma' = A Sigma + Sigma A' + B_w W B_w'
 *            - (Sigma C' + B_w W D_w') Rm^-1 (C Sigma + D_w W B_w'),
 * Rm = D_w W D_w' + V (the measurement noise, with the part of w that
 * reaches y), and the filter is
 *   x^' = A x^ + B_u u + g + L (y_m - C x^ - D_u u - y_f),
 *   L = (Sigma C' + B_w W D_w') Rm^-1.
 * The estimate of the unknowns is z^ = Z x^ + Dz_0 u + z_f, its error
 * covariance Z Sigma Z'.  It is the dual of the LQR Riccati equation
 * (include/lth/plqr.h) with (A, B, Q, R) -> (A', C', B_w W B_w', Rm) run
 * backwards in time.
 *
 * Supported as for the LQR: inputs that reach the state without derivatives
 * (a differentiated white noise has no meaning).  Refusals name t: Rm not
 * positive definite (LTH_ESING), a covariance that is not finite.
 */
#ifndef LTH_KALMAN_H
#define LTH_KALMAN_H

#include "lth/source.h"
#include "lth/ss.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_kalman_spec {
  int nw;              /* how many inputs are noise */
  const int *noise;    /* their indices (0-based, distinct); the others are known inputs */
  const lth_source *W; /* nw x nw, the process noise's intensity (NULL: identity) */
  const lth_source *V; /* ny x ny, the measurement noise's intensity (positive definite) */
  const double *Sigma0_z; /* s x s covariance of z(t0) (column-major); its state part counts:
                             Sigma(t0) = T Sigma0_z T', T = Q' (I - P) on z's first m rows */
} lth_kalman_spec;

typedef struct lth_kalman_opts {
  lth_ss_opts ss;    /* the realization */
  double table_tol;  /* the realization's table (0: 1e-11) */
  double rtol, atol; /* the covariance's integration (0: 1e-11, 1e-13) */
} lth_kalman_opts;

void lth_kalman_opts_init(lth_kalman_opts *opts);

typedef struct lth_kalman_result {
  size_t n;
  int p, s, ny;
  double *times;
  double *Sigma;   /* p x p per time: the realization state's error covariance */
  double *L;       /* p x ny per time: the gain */
  double *Sigma_z; /* s x s per time: the unknowns' error covariance, Z Sigma Z' */
} lth_kalman_result;

/* The covariance and the gain on [t0, t1] at times[0..n-1] (nondecreasing in
 * [t0, t1]).  A plant with outputs and at least one noise input. */
lth_status lth_kalman_solve(const lth_system *sys, const lth_kalman_spec *spec, double t0,
                            double t1, const double *times, size_t n, const lth_kalman_opts *opts,
                            lth_kalman_result **out, lth_error *err);
void lth_kalman_result_free(lth_kalman_result *res);

#ifdef __cplusplus
}
#endif
#endif
