/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clark's decomposition at one time point (Algorithm 1 in the uniform form of
 * docs/theory.md section 2), for any index r >= 2, with every derivative
 * carried exactly as a Taylor jet (docs/theory.md section 3).
 *
 * Results at t (all jets of order `order` around t; coefficient 0 is the value):
 *   Pi    n_r x n_r          A_{r,r-1} ... A_21 A_1r, with a condition estimate
 *   P     m x m              blockdiag(P_1, ..., P_{r-1}), P_i = L_i Pi^{-1} R_i
 *   Q[i-1]                   Q_i: n_r x n_1 (i = 1) or n_{i-1} x n_i (i >= 2)
 *   Ahat  m x m, g  m x 1    the reduced ODE  v' = Ahat v + g   (Clark (3.9))
 *   Bhat  s x m, q  s x 1    (w_1, ..., w_{r-1}, u) = Bhat v + q (Clark (3.11))
 *   G     s x m              [Nhat + Bhat][I - P]                (Corollary 3)
 * Matrices are column-major (lth_jet).  Ahat and Bhat are unique only on the
 * state space range(I - P): compare Ahat (I - P) and Bhat (I - P).
 */
#ifndef LTH_DECOMP_H
#define LTH_DECOMP_H

#include "lth/defaults.h"
#include "lth/jet.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_point {
  double t;
  int order;            /* jets below hold coefficients 0..order */
  double cond_pi;       /* 1-norm condition estimate of Pi(t) (dgecon) */
  double cond_chain;    /* ||Pi^{-1}|| max_i ||L_i|| max_j ||R_j|| (1-norms, >= cond_pi), with
                           L_i = A_{i,i-1}...A_21 A_1r, R_j = A_{r,r-1}...A_{j+1,j}: the
                           scale-aware measure the threshold applies to; it bounds every
                           P_i and Q_i */
  int pi_sign;          /* sign of det Pi(t) (+1 or -1): a change of sign between two times
                           means Pi is singular somewhere in between */
  double pi_inv_norm;   /* ||Pi(t)^{-1}||_1 (estimate, dgecon) */
  double chain_norm;    /* ||A_{r,r-1}(t)||_1 ... ||A_21(t)||_1 ||A_1r(t)||_1 >= ||Pi(t)||_1 */
  double cond_interval; /* ||Pi(t)^{-1}||_1 max(chain_norm(t), scale), scale = the largest
                           chain_norm on the workspace's interval (lth_decomp_ws_set_scale;
                           docs/conditioning.md): how close Pi(t) is to singular relative to
                           the size of the data on the whole interval.  A chain block that
                           shrinks to nothing at one t leaves cond_pi and cond_chain at 1 but
                           not this.  The threshold cond_max applies to it. */
  double amplification; /* the error amplification the point was accepted with: the outputs'
                           relative error is about eps times this (include/lth/conditioning.h,
                           docs/conditioning.md section 1.2).  The a priori
                           cond_interval^(r-1) where that is at most
                           LTH_AMPLIFICATION_MEASURE; above it (or always, with
                           lth_decomp_ws_set_measure) measured by recomputing the point with
                           every intermediate result perturbed */
  int amplification_measured; /* 1: amplification is the measured one */
  int r, s, m, p;             /* index, size, state dimension s - n_r, manifold dimension */
  lth_jet Pi, P, Ahat, g, Bhat, q, G;
  lth_jet *Q; /* Q[i-1] = Q_i, i = 1..r-1 */
} lth_point;

/* A result holder for a system, with jets of orders 0..order. */
lth_point *lth_point_alloc(const lth_system *sys, int order, lth_error *err);
void lth_point_free(lth_point *pt);
/* dst = src, every field and jet (e.g. to keep a result while the workspace
 * moves on); dst->order = min(dst's, src's).  LTH_EDIM for a point of
 * another system. */
lth_status lth_point_copy(lth_point *dst, const lth_point *src, lth_error *err);

/* Workspace for decompositions of one system with outputs of order
 * out_order >= 0 (the inputs are differentiated to order out_order + r - 1).
 * Sized once; lth_decomp_at does not allocate.  One workspace per thread. */
typedef struct lth_decomp_ws lth_decomp_ws;
lth_decomp_ws *lth_decomp_ws_alloc(const lth_system *sys, int out_order, lth_error *err);
/* The same with a known scale of cond_interval (scale >= 0, see
 * lth_decomp_ws_set_scale) instead of a scan of the system's interval (scale
 * < 0, as lth_decomp_ws_alloc): for callers that allocate several workspaces
 * of one system on unchanged data (the threads of a grid or a table, the
 * workspaces of one solve: lth_ivp_opts.chain_scale). */
lth_decomp_ws *lth_decomp_ws_alloc_scaled(const lth_system *sys, int out_order, double scale,
                                          lth_error *err);
void lth_decomp_ws_free(lth_decomp_ws *ws);
/* cond_chain or cond_interval above cond_max is LTH_ECOND (default
 * LTH_DEFAULT_COND_MAX), and so is an error amplification above
 * max(cond_max, LTH_AMPLIFICATION_MAX): the a priori cond_interval^(r-1), or,
 * where that exceeds the limit, the amplification measured by a perturbed
 * recomputation (lth_point.amplification, include/lth/conditioning.h). */
void lth_decomp_ws_set_cond_max(lth_decomp_ws *ws, double cond_max);
/* The scale of cond_interval: the largest chain_norm on the interval of
 * interest.  A workspace of a system with an interval (lth_system_set_interval)
 * starts with the scale of a scan of that interval (lth_pi_chain_scale);
 * otherwise with 0, i.e. cond_interval = ||Pi^-1|| chain_norm(t) until a caller
 * that knows the interval sets it (lth_grid_decompose does, from its times). */
void lth_decomp_ws_set_scale(lth_decomp_ws *ws, double scale);
double lth_decomp_ws_scale(const lth_decomp_ws *ws);
/* The system and out_order the workspace was allocated for: code handed
 * only a workspace sizes its results with lth_point_alloc(system, order). */
/* always = 1: measure the error amplification at every point, not only where
 * the a priori one exceeds LTH_AMPLIFICATION_MEASURE (one more decomposition
 * per point).  For callers whose tolerances use the error of a few points
 * (lth_ic: the consistency tolerance at t0). */
void lth_decomp_ws_set_measure(lth_decomp_ws *ws, int always);
const lth_system *lth_decomp_ws_system(const lth_decomp_ws *ws);
/* on = 1: the forcing is f alone, without B u (free inputs allowed; g and q
 * are g_f and q_f), for callers that take the inputs' part from the input
 * maps (lth_decomp_input_maps, include/lth/ss.h).  Default 0. */
void lth_decomp_ws_set_unforced(lth_decomp_ws *ws, int on);
int lth_decomp_ws_order(const lth_decomp_ws *ws);

/* Decompose at t into pt (pt->order must be <= the workspace's out_order; the
 * results are truncated to pt->order).  Errors name t: a singular or
 * ill-conditioned Pi (LTH_ESING / LTH_ECOND with the condition estimate: the
 * chain condition or cond_interval above the threshold, or an error
 * amplification above the limit, lth_point.amplification), a
 * source failure, or a non-finite result (LTH_ENOTFINITE). */
lth_status lth_decomp_at(lth_decomp_ws *ws, double t, lth_point *pt, lth_error *err);

/* The scale of rank decisions on G = (Nhat + Bhat)(I - P) = Z - Z P
 * (Corollary 3): ||Nhat + Bhat||_F (1 + ||P||_F) at order 0, which bounds ||G||
 * and makes its rounding error eps times a modest factor.  Never ||G|| itself:
 * with p = 0, G is rounding noise and its largest singular value says
 * nothing.  Used by lth_verify_point and lth_ic for the rank of G. */
double lth_point_rank_scale(const lth_point *pt);

/* ---- input maps: how the inputs enter the reduced system at t ----
 * With inputs (lth_system_set_inputs), E z' = A z + B(t) u + f, outputs
 * y = C(t) z + D(t) u + y0.  Clark's g and q are linear in the forcing
 * F = B u + f and its derivatives, so
 *   v' = Ahat v + sum_j Bv_j(t) u^(j) + g_f,
 *   z  = (Nhat + Bhat) v + sum_j Dz_j(t) u^(j) + q_f,
 *   y  = C (Nhat + Bhat) v + sum_j Dy_j(t) u^(j) + C q_f + y0,
 * j = 0..r-1, where g_f, q_f are the decomposition with f alone and
 * Dy_j = C Dz_j (+ D for j = 0).  Dz_j has the rows of q, i.e. of z: the
 * inputs reach z_i only through its algebraic part w_i = P_i z_i, and u.
 * Derivative feedthrough: an input in
 * block row i < r (B_i != 0) enters with derivatives j <= i - 1, an input in
 * the constraint (B_r != 0) with j <= r - 1; the maps above that are exactly
 * zero.  jmax is this bound over the blocks B_i that are set.
 * Each set of maps is column-major, map j of Bv starting at Bv + j ld_Bv nu
 * (entry (i, k): the coefficient of u_k^(j) in row i), likewise Dz, Dy. */
typedef struct lth_input_maps {
  double t;
  int r, s, m, nu, ny;
  int nj;                  /* r: the maps of the orders j = 0..r-1 */
  int jmax;                /* the highest j whose maps can be nonzero (see above) */
  int ld_Bv, ld_Dz, ld_Dy; /* m, s, ny (ld_Dy = 1 without outputs) */
  double *Bv;              /* nj maps m x nu: the state equation's input maps Bv_j */
  double *Dz;              /* nj maps s x nu: z's input maps (through w_i and u) */
  double *Dy;              /* nj maps ny x nu: y's input maps (NULL without outputs) */
  int order;               /* Bv_jet holds the Taylor coefficients 0..order of the Bv_j */
  double *Bv_jet;          /* coefficient c of map j, entry (i, k):
                              Bv_jet[i + ld_Bv (k + nu (j + nj c))]; coefficient 0 is Bv */
  double *Dz_jet;          /* the same for the Dz_j (ld_Dz), coefficients 0..order */
} lth_input_maps;

/* Maps for a system with inputs (LTH_EINVAL without). */
lth_input_maps *lth_input_maps_alloc(const lth_system *sys, lth_error *err);
/* The same with the jets of the Bv_j and the Dz_j to `order` (>= 0; the
 * workspace given to lth_decomp_input_maps must have out_order >= order):
 * exact Taylor coefficients, for a change of state that removes input
 * derivatives and for the realization's jets (include/lth/ss.h). */
lth_input_maps *lth_input_maps_alloc_order(const lth_system *sys, int order, lth_error *err);
void lth_input_maps_free(lth_input_maps *maps);
/* Decompose at t with the forcing f alone into pt (its g and q are g_f and
 * q_f; free inputs are fine: no signal is read) and the input maps at t into
 * maps, exact to rounding: each map is the affine part of Algorithm 1 for the
 * forcing jet B(t + h) e_k h^j / j! (the unit jet of u_k^(j)), on the same
 * projectors and linear parts.  Refusals as lth_decomp_at (the maps carry
 * the point's error amplification, pt->amplification); LTH_EDIM for maps of
 * another system, LTH_EORDER for maps of an order above the workspace's.
 * Afterwards lth_decomp_ws_f holds f alone. */
lth_status lth_decomp_input_maps(lth_decomp_ws *ws, double t, lth_point *pt, lth_input_maps *maps,
                                 lth_error *err);

/* The input jets of the last successful lth_decomp_at (A: s x s, f: s x 1),
 * of order out_order + r - 1.  Valid until the next call. */
const lth_jet *lth_decomp_ws_A(const lth_decomp_ws *ws);
const lth_jet *lth_decomp_ws_f(const lth_decomp_ws *ws);

#ifdef __cplusplus
}
#endif
#endif
