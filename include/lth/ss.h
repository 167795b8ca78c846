/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The minimal state-space realization of a DAE plant with inputs
 * (docs/theory.md section 8, docs/control.md).
 *
 * For E z' = A(t) z + B(t) u + f(t), y = C(t) z + D(t) u + y0(t), Clark's
 * reduced system in the inputs (lth_decomp_input_maps) is
 *   v' = Ahat v + sum_j Bv_j u^(j) + g_f,   v in range(I - P(t)), dim p.
 * A realization at t consists of
 *   x' = A x + sum_{j < nb} B_j u^(j) + g,
 *   y  = C x + sum_{j < nd} D_j u^(j) + y_f,
 *   z  = Z x + sum_{j < nd} Dz_j u^(j) + z_f,
 * with x in R^p, p the dimension of the state space:
 *  - Basis.  v = Q(t) x~ with Q(t) (m x p) an orthonormal basis of
 *    range(I - P(t)) of minimal rotation, Q^T Q' = 0: it solves
 *    Q' = (I - Q Q^T) Ahat Q from a canonical Q(t0) (the polar factor of the
 *    columns of the orthogonal projector onto the state space with the
 *    largest diagonal), integrated to the ss's tolerance and checked against
 *    P at every time asked (||P Q||; then reprojected and reorthonormalised).
 *    With Q^T Q' = 0 the state equation is x' = Q^T Ahat Q x + ...: no Q'.
 *  - Change of state (unless raw).  Input derivatives leave the state
 *    equation: for k = J..1 (J the highest order with Bv_J != 0),
 *    K_k = Bv_k and Bv_{k-1} <- Bv_{k-1} + Ahat K_k - K_k', on exact Taylor
 *    jets of Ahat and the Bv_j; then v = Q x + sum_k K_k u^(k-1), and every
 *    K_k lies in range(I - P).  For smooth data this always exists: the cost
 *    is J more derivatives of the data.  The derivative feedthrough moves to
 *    the outputs (D_j, j >= 1): it is how a higher-index plant responds to
 *    its inputs, and no change of state removes it.
 * Every map is column-major; map j of B starts at B + j p nu (entry (i, k):
 * the coefficient of u_k^(j) in row i), likewise D (ny x nu), Dz (s x nu)
 * and K (m x nu). */
#ifndef LTH_SS_H
#define LTH_SS_H

#include "lth/decomp.h"
#include "lth/defaults.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_ss_opts {
  double rtol, atol; /* the basis ODE's local error tolerances (0: LTH_DEFAULT_SS_RTOL, _ATOL) */
  double range_tol;  /* largest ||P Q||_F / max(1, ||P||_F) (0: LTH_DEFAULT_SS_RANGE_TOL) */
  double cond_max;   /* the decompositions' threshold (0: LTH_DEFAULT_COND_MAX) */
  int raw;           /* 1: no change of state (the B_j of Clark's coordinates, j <= jmax) */
  double t0; /* where the basis starts (NAN: the system's interval start, else the first time asked) */
} lth_ss_opts;

void lth_ss_opts_init(lth_ss_opts *opts);

typedef struct lth_ss_point {
  double t;
  int p, m, s, nu, ny;
  int nb; /* B maps j = 0..nb-1: 1 after the change of state, jmax + 1 raw */
  int nd; /* D and Dz maps j = 0..nd-1: jmax + 1 (the derivative feedthrough) */
  int nk; /* change-of-state maps K_1..K_nk (0 raw or without input derivatives) */
  double *A;  /* p x p */
  double *B;  /* nb maps p x nu */
  double *C;  /* ny x p (NULL without outputs) */
  double *D;  /* nd maps ny x nu (NULL without outputs) */
  double *g;  /* p: the forcing f's part of the state equation */
  double *yf; /* ny: the forcing f's part of y, C z_f + y0 (NULL without outputs) */
  double *Q;  /* m x p: the basis, v = Q x + sum_k K_k u^(k-1) */
  double *K;  /* nk maps m x nu */
  double *Z;  /* s x p */
  double *Dz; /* nd maps s x nu */
  double *zf; /* s */
  double orth_err;  /* ||Q^T Q - I||_F of the integrated basis, before reorthonormalising */
  double range_err; /* ||P Q||_F / max(1, ||P||_F) of the integrated basis, before reprojecting */
  double amplification; /* the decomposition's error amplification at t (lth_point) */
} lth_ss_point;

typedef struct lth_ss lth_ss;

/* A realization of sys (with inputs: LTH_EINVAL without) for evaluation at
 * any times.  opts NULL: the defaults. */
lth_ss *lth_ss_alloc(const lth_system *sys, const lth_ss_opts *opts, lth_error *err);
void lth_ss_free(lth_ss *ss);
/* A result holder sized for ss. */
lth_ss_point *lth_ss_point_alloc(const lth_ss *ss, lth_error *err);
void lth_ss_point_free(lth_ss_point *pt);
/* The dimensions every point of ss has (p, nb, nd, nk, ...), without a time. */
const lth_ss_point *lth_ss_shape(const lth_ss *ss);

/* The realization at t into pt: the basis is integrated from the last time
 * evaluated (or t0) to t.  Refusals name t: the decomposition's (a singular
 * or ill-conditioned Pi, where no smooth basis exists because the dimension
 * p changes), a basis that leaves the state space (||P Q|| above range_tol:
 * LTH_ETOL), a step size underflow of the basis ODE (LTH_ETOL), a non-finite
 * value.  LTH_EDIM for a point of another realization. */
lth_status lth_ss_at(lth_ss *ss, double t, lth_ss_point *pt, lth_error *err);

/* ---- Taylor jets of the realization at t ----
 * For problems posed on the realization that need its derivatives (the
 * singular LQR, include/lth/plqr.h): the exact Taylor coefficients 0..order
 * of x' = A x + B u + g, y = C x + D u + y_f, z = Z x + Dz u + z_f and of
 * the basis Q, from the basis at t (lth_ss_at) and the exact jets of the
 * decomposition (the basis ODE gives Q's coefficients in turn; docs/theory.md
 * section 8).  Only for inputs the plant does not differentiate: a nonzero
 * map of an input derivative is LTH_EDATA naming the input and t.  The
 * handle keeps its own decomposition workspace; it shares ss's basis, so
 * it is not for concurrent use. */
typedef struct lth_ss_jets {
  double t;
  int order, p, m, s, nu, ny;
  lth_jet A, B, g;   /* p x p, p x nu, p x 1 */
  lth_jet C, D, yf;  /* ny x p, ny x nu, ny x 1 */
  lth_jet Z, Dz, zf; /* s x p, s x nu, s x 1 */
  lth_jet Q;         /* m x p */
  struct lth_ss_jets_priv *priv;
} lth_ss_jets;
lth_ss_jets *lth_ss_jets_alloc(lth_ss *ss, int order, lth_error *err);
void lth_ss_jets_free(lth_ss_jets *J);
lth_status lth_ss_jets_at(lth_ss_jets *J, double t, lth_error *err);
/* ---- the realization as a coefficient table, evaluable at any t ----
 * Chebyshev interpolants of degree LTH_SS_TABLE_DEGREE on panels of
 * [t0, t1] of every array of lth_ss_point (A, B, C, D, g, yf, Q, K, Z, Dz,
 * zf), built from lth_ss_at at the panels' Chebyshev-Lobatto nodes (left to
 * right, so the basis is the one lth_ss_at gives).  A panel is accepted when
 * the two last coefficients of every entry are below tol max(1, |entry|)
 * and the interpolant agrees with lth_ss_at at two more points (a quarter
 * and three quarters across) to 10 tol; otherwise it is halved.  What this
 * cannot see: a feature narrower than the spacing of those points
 * (docs/theory.md section 8).  tol <= 0: 1e-10. */
#define LTH_SS_TABLE_DEGREE 16
typedef struct lth_ss_table lth_ss_table;
lth_ss_table *lth_ss_table_build(lth_ss *ss, double t0, double t1, double tol, lth_error *err);
void lth_ss_table_free(lth_ss_table *tab);
/* The realization at t in [t0, t1] from the table into pt (sized by
 * lth_ss_point_alloc for the same ss; orth_err, range_err and
 * amplification are the largest over the panel's nodes).  LTH_ERANGE
 * outside [t0, t1].  Reads the table only: several threads may evaluate one
 * table at once (each with its own point). */
lth_status lth_ss_table_eval(const lth_ss_table *tab, double t, lth_ss_point *pt, lth_error *err);
/* Panels and calls of lth_ss_at spent building. */
void lth_ss_table_counts(const lth_ss_table *tab, size_t *panels, size_t *evals);

/* Steps and decompositions spent on the basis so far. */
void lth_ss_counts(const lth_ss *ss, long *steps, long *decompositions);

#ifdef __cplusplus
}
#endif
#endif
