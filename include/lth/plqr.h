/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LQR on a DAE plant with inputs (docs/control.md section 10): minimise
 *   J = phi(w(t1)) + int_{t0}^{t1} L(t, w) dt,   w = (z, u, y),
 *   L   = w' W(t) w + 2 w' l(t) + c(t),
 *   phi = w' F w + 2 w' f + c_F,
 * exactly as written (no hidden 1/2), subject to the plant
 * E z' = A(t) z + B(t) u + f(t), y = C(t) z + D(t) u + y0(t) from the
 * state part of z0 at t0.  z is in the system's canonical order (s entries), u
 * has nu entries, y ny (w has n = s + nu + ny).
 *
 * On the minimal realization (include/lth/ss.h) x' = A x + B u + g,
 * w = M x + N u + m with M = [Z; 0; C], N = [Dz_0; I; D_0], m = [z_f; 0; y_f],
 * the cost is x'Qx + 2x'Su + u'Ru + 2q'x + 2r'u + c0 and the value function
 * V(t, x) = x'P x + 2 p'x + c solves, backwards from t1,
 *   -P' = Q + P A + A'P - (P B + S) R^-1 (B'P + S'),
 *   -p' = q + A'p + P g - (P B + S) R^-1 (B'p + r),
 *   -c' = c0 + 2 p'g - (B'p + r)' R^-1 (B'p + r),
 * P(t1), p(t1), c(t1) from phi; the optimal control is the feedback
 * u = -K x - k, K = R^-1 (B'P + S'), k = R^-1 (B'p + r), and J* = V(t0, x0).
 *
 * R(t) singular at t0 (inputs the cost leaves free) with a constant rank and
 * kernel: the inputs split by R's kernel, the weighted ones are eliminated
 * and the problem is a totally singular one in the free ones (Clark's
 * section 4.2, lib/lqr/plqr_sing.h), whose optimality DAE is solved open
 * loop by collocation on the realization's exact jets (lth_ss_jets): no
 * gains (have_gain = 0); an initial state off the singular arc is reached
 * by an impulse of the free inputs at t0 (impulse), and a final cost on what
 * they move is lowered by one at t1 (impulse_t1).
 *
 * Supported: inputs that reach the state without derivatives (inputs in the
 * dynamic rows, and through index-1 parts); an input that the plant
 * differentiates (a prescribed motion: nonzero columns of the realization's
 * K_k or D_j, j >= 1) is refused, naming it (LTH_EDATA).  Refusals name t:
 * R(t) indefinite (LTH_ESING), R changing rank or kernel (LTH_EDATA: a scan
 * of its smallest weighted eigenvalue with the minima refined,
 * lib/lqr/plqr_rcheck.c, and every point a singular solve evaluates), a
 * Riccati solution above opts.escape (LTH_ENOSOL: a conjugate point, the
 * cost unbounded below), a final cost that weighs u (LTH_EDATA); for a
 * singular problem also a cost not convex in the state (LTH_EDATA), Pi =
 * -B2'Qt B2 singular (LTH_ESING / LTH_ECOND: an arc of higher order), a
 * final cost that falls without bound along a free input (LTH_ENOSOL).
 */
#ifndef LTH_PLQR_H
#define LTH_PLQR_H

#include "lth/source.h"
#include "lth/ss.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_plqr_cost {
  const lth_source *W; /* n x n, symmetric (NULL: zero) */
  const lth_source *l; /* n x 1 (NULL: zero) */
  const lth_source *c; /* 1 x 1 (NULL: zero) */
  const double *F;     /* n x n at t1, column-major, symmetric (NULL: zero) */
  const double *f;     /* n (NULL: zero) */
  double cF;
} lth_plqr_cost;

typedef struct lth_plqr_opts {
  lth_ss_opts ss;    /* the realization */
  double table_tol;  /* the realization's and the Riccati solution's tables (0: 1e-11) */
  double rtol, atol; /* the Riccati and closed-loop integrations (0: 1e-11, 1e-13) */
  double escape;     /* largest ||P||_F relative to max(1, ||P(t1)||_F, ||Q||) (0: 1e12) */
} lth_plqr_opts;

void lth_plqr_opts_init(lth_plqr_opts *opts);

typedef struct lth_plqr_result {
  size_t n; /* output times */
  int p, s, nu, ny;
  double *times;
  double *K, *k;   /* u = -K x - k on the realization's state: nu x p and nu per time */
  double *Kz, *kz; /* u = -Kz z - kz on the plant's unknowns (canonical order): nu x s, nu */
  double *P, *pv, *cv; /* the value function x'P x + 2 pv'x + cv: p x p, p, 1 per time */
  double *x, *z, *u, *y; /* the closed loop from z0: p, s, nu, ny per time */
  double cost;           /* J* = V(t0, x0) (singular: from the multiplier at t0) */
  double cost_closed;    /* J of the closed loop, integrated along it (singular: J by
                            quadrature of the integrand along the optimum) */
  int singular;          /* the inputs the cost does not weigh: dim ker R (0: R > 0) */
  int have_gain;         /* 1: K, k, Kz, kz, P, pv, cv are set (R > 0); 0: a singular
                            problem, solved open loop (they are zero) */
  double *impulse;       /* nu: a singular problem's impulse of the inputs at t0 (the
                            integral of u over it; zero when none): the state jumps along
                            the free inputs' directions onto the singular arc, and z, x at
                            t0 are after the jump */
  double *impulse_t1;    /* nu: the same at t1, where the final cost weighs what the free
                            inputs move (z, x at t1 are before it) */
  size_t riccati_panels; /* the Riccati solution's table */
} lth_plqr_result;

/* Solve on [t0, t1] from z0 (s entries; its state part counts: x0 = Q^T
 * (I - P) z0), reporting at times[0..n-1] (in [t0, t1], nondecreasing). */
lth_status lth_plqr_solve(const lth_system *sys, const lth_plqr_cost *cost, double t0, double t1,
                          const double *z0, const double *times, size_t n,
                          const lth_plqr_opts *opts, lth_plqr_result **out, lth_error *err);
void lth_plqr_result_free(lth_plqr_result *res);

#ifdef __cplusplus
}
#endif
#endif
