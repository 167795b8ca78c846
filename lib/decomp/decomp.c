/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clark's Algorithm 1 for any index, at one point (include/lth/decomp.h).
 *
 * Uniform form (docs/theory.md section 2).  Every algebraic quantity is an
 * affine map of the state v = (v_1, ..., v_{r-1}) in R^m, m = s - n_r.  We store
 * such a map as an "augmented" matrix [B | q] with W = m + 1 columns, the last
 * column being the affine part.  Then
 *   X = [Bhat | q]  (s x W: rows of w_1 .. w_{r-1}, then u), and
 *   Y = [Ahat | g]  (m x W: the reduced ODE v' = Ahat v + g),
 * and the derivative of a map along the reduced flow (docs/theory.md §2) is
 *   D[X_i] = X_i' + X_i(:, 1:m) Y,
 * a jet derivative plus one jet product.  V_j denotes the selector of v_j.
 *
 * Step i = r-1 .. 1 (Clark (3.6), (3.7) with Corollary 1):
 *   T_i = sum_{j>=i} A_ij X_j + [0 | f_i] - D[X_i]
 *   U_i = T_i + sum_{j>=i} A_ij V_j
 *   Y_i = (I - P_i) U_i - P_i P_i' V_i + A_{i,i-1} V_{i-1}          (3.6)
 *   X_{i-1} = -Q_i (U_i + P_i' V_i)     (X_0 = u's map, Q_1 = Pi^{-1} R_1) (3.7)/(3.8)
 * with (I - P_i) U = U - L_i (S_i U), Q_i = L_{i-1} S_i, S_i = Pi^{-1} R_i, so that
 * only rank-n_r products appear.  Start (3.4): X_{r-1} = [0 | -L_{r-1} Pi^{-1} f_r].
 *
 * Orders: with input jets of order K = out_order + r - 1, X_i has order
 * K - (r-1-i) and Y_i order K - r + i, so every output has order >= out_order.
 * Columns: X_i (i <= r-2) vanishes left of block i+1 and Y_i left of block
 * i-1, so step i works on columns off_i .. W only.
 */
#include "lth/defaults.h"
#include "lth/decomp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_bytes.h"
#include "decomp_impl.h"
#include "system/pi_text.h"
#include "system/system_parts.h"
#include "lth/conditioning.h"

static lth_jet sub(const lth_jet *J, int r0, int c0, int rows, int cols, int order) {
  lth_jet V = lth_jet_view(J, r0, c0, rows, cols);
  V.order = order;
  return V;
}

static int imin(int a, int b) { return a < b ? a : b; }

/* ---- workspace ---- */

static lth_status ws_jets(lth_decomp_ws *ws, lth_error *err) {
  int r = ws->r, K = ws->K, nr = ws->nr, W = ws->m + 1;
  lth_status st = LTH_OK;
  struct {
    lth_jet *J;
    int rows, cols;
  } list[] = {{&ws->A, ws->s, ws->s}, {&ws->f, ws->s, 1}, {&ws->Pi, nr, nr},
              {&ws->X, ws->s, W},     {&ws->Y, ws->m, W}, {&ws->T, ws->nmax, W},
              {&ws->D, ws->nmax, W},  {&ws->Z, nr, W},    {&ws->tmp, ws->s, ws->nmax}};
  for (size_t k = 0; k < sizeof list / sizeof list[0] && st == LTH_OK; k++) {
    st = lth_jet_init(list[k].J, list[k].rows, list[k].cols, K, err);
  }
  int nu = lth_system_ninputs(ws->sys);
  if (nu > 0 && st == LTH_OK) {
    st = lth_jet_init(&ws->Bu, ws->s, nu, K, err);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    int ni = ws->n[i - 1];
    lth_jet *per[] = {&ws->L[i - 1], &ws->R[i - 1], &ws->S[i - 1], &ws->P[i - 1], &ws->dP[i - 1]};
    int rows[] = {ni, nr, nr, ni, ni}, cols[] = {nr, ni, ni, ni, ni};
    for (int k = 0; k < 5 && st == LTH_OK; k++) {
      st = lth_jet_init(per[k], rows[k], cols[k], K, err);
    }
  }
  return st;
}

static lth_decomp_ws *ws_alloc(const lth_system *sys, int out_order, double scale, lth_error *err);

/* Scratch of the sources: the system's at order K, and C, D at order 0 (the
 * input maps). */
static size_t work_size(lth_decomp_ws *ws, const lth_system *sys, int K) {
  size_t mx = 0;
  ws->ledger = lth_system_work_acquire(sys, K, &mx); /* released by lth_decomp_ws_free */
  const lth_source *cd[] = {lth_system_C(sys), lth_system_D(sys)};
  for (int k = 0; k < 2; k++) {
    size_t w = cd[k] ? lth_source_work_size(cd[k], 0) : 0;
    mx = w > mx ? w : mx;
  }
  return mx;
}

/* The doubles of ws_jets' lists and of the perturbed recomputation's point
 * and scratch (lth_decomp_perturb_alloc); the sources' scratch and the LU of
 * Pi are left out (of the size of one block of data, not of s^2). */
size_t lth_decomp_ws_bytes(const lth_system *sys, int out_order) {
  size_t r = (size_t)lth_system_index(sys), s = (size_t)lth_system_size(sys);
  size_t m = (size_t)lth_system_state_dim(sys), nr = (size_t)lth_system_block_size(sys, (int)r);
  size_t K1 = (size_t)out_order + r, W = m + 1, nmax = 0, per = 0;
  for (size_t i = 1; i <= r; i++) {
    size_t ni = (size_t)lth_system_block_size(sys, (int)i);
    nmax = ni > nmax ? ni : nmax;
    per += i < r ? 2 * ni * nr + 3 * ni * ni : 0; /* L, R, S, P, dP */
  }
  size_t nu = (size_t)lth_system_ninputs(sys);
  size_t jets = s * s + s + nr * nr + s * W + m * W + 2 * nmax * W + nr * W + s * nmax + s * nu;
  size_t perturb = 2 * (s + m) * W;
  return ((jets + per) * K1 + perturb) * sizeof(double) + lth_point_bytes(sys, 0);
}

lth_decomp_ws *lth_decomp_ws_alloc(const lth_system *sys, int out_order, lth_error *err) {
  return ws_alloc(sys, out_order, -1.0, err);
}

lth_decomp_ws *lth_decomp_ws_alloc_scaled(const lth_system *sys, int out_order, double scale,
                                          lth_error *err) {
  return ws_alloc(sys, out_order, scale, err);
}

/* A mass matrix's solve that this path would fill densely beyond its
 * budget is refused before anything s x s is allocated (lth_source_solve_fits). */
static lth_status solves_fit(const lth_system *sys, lth_error *err) {
  int r = lth_system_index(sys);
  lth_status st = LTH_OK;
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    for (int j = 1; j <= r + 1 && st == LTH_OK; j++) {
      const lth_source *src = j <= r ? lth_system_A(sys, i, j) : lth_system_forcing(sys, i);
      st = src ? lth_source_solve_fits(src, err) : LTH_OK;
    }
  }
  return st;
}

/* scale < 0: the chain scale of the system's interval, computed here (a
 * solve computes it once and hands it to its workspaces: lth_ivp_opts.chain_scale). */
static lth_decomp_ws *ws_alloc(const lth_system *sys, int out_order, double scale, lth_error *err) {
  if (out_order < 0) {
    lth_error_set(err, LTH_EINVAL, "output order %d must be >= 0", out_order);
    return NULL;
  }
  if (lth_system_validate(sys, err) != LTH_OK || solves_fit(sys, err) != LTH_OK) {
    return NULL;
  }
  lth_decomp_ws *ws = calloc(1, sizeof *ws);
  if (!ws) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a decomposition workspace");
    return NULL;
  }
  ws->sys = sys;
  ws->r = lth_system_index(sys);
  ws->s = lth_system_size(sys);
  ws->m = lth_system_state_dim(sys);
  ws->nr = lth_system_block_size(sys, ws->r);
  ws->out_order = out_order;
  ws->K = out_order + ws->r - 1;
  ws->cond_max = LTH_DEFAULT_COND_MAX;
  ws->scale = scale < 0 ? lth_pi_interval_scale(sys) : scale;
  int r = ws->r;
  ws->n = malloc((size_t)r * sizeof *ws->n);
  ws->off = malloc((size_t)(r + 1) * sizeof *ws->off);
  ws->xord = malloc((size_t)r * sizeof *ws->xord);
  ws->yord = malloc((size_t)r * sizeof *ws->yord);
  lth_jet **per[] = {&ws->L, &ws->R, &ws->S, &ws->P, &ws->dP};
  int ok = ws->n && ws->off && ws->xord && ws->yord;
  for (int k = 0; k < 5; k++) {
    *per[k] = calloc((size_t)r, sizeof(lth_jet));
    ok = ok && *per[k];
  }
  if (ok) {
    for (int i = 1; i <= r; i++) {
      ws->n[i - 1] = lth_system_block_size(sys, i);
      ws->off[i - 1] = lth_system_block_offset(sys, i);
      ws->nmax = ws->n[i - 1] > ws->nmax ? ws->n[i - 1] : ws->nmax;
    }
    ws->off[r] = ws->s;
    ws->src_work = malloc((work_size(ws, sys, ws->K) + 1) * sizeof(double));
    ws->lu = lth_jet_lu_alloc(ws->nr, err);
    int ny = lth_system_noutputs(sys), nu = lth_system_ninputs(sys);
    ws->cd = malloc(((size_t)ny * (size_t)(ws->s + nu) + 1) * sizeof(double));
    ok = ws->src_work && ws->lu && ws->cd;
  }
  if (!ok || ws_jets(ws, err) != LTH_OK || lth_decomp_perturb_alloc(ws, err) != LTH_OK) {
    if (!ok) {
      lth_error_set(err, LTH_ENOMEM, "out of memory allocating a decomposition workspace");
    }
    lth_decomp_ws_free(ws);
    return NULL;
  }
  return ws;
}

void lth_decomp_ws_free(lth_decomp_ws *ws) {
  if (!ws) {
    return;
  }
  lth_work_ledger_release(ws->ledger, ws->K); /* the system may be gone: the ledger is not */
  lth_jet *list[] = {&ws->A, &ws->f, &ws->Pi, &ws->X,   &ws->Y,
                     &ws->T, &ws->D, &ws->Z,  &ws->tmp, &ws->Bu};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
    lth_jet_release(list[k]);
  }
  free(ws->cd);
  lth_jet *per[] = {ws->L, ws->R, ws->S, ws->P, ws->dP};
  for (int k = 0; k < 5; k++) {
    for (int i = 0; per[k] && i < ws->r; i++) {
      lth_jet_release(&per[k][i]);
    }
    free(per[k]);
  }
  lth_decomp_perturb_free(ws);
  lth_jet_lu_free(ws->lu);
  free(ws->src_work);
  free(ws->n);
  free(ws->off);
  free(ws->xord);
  free(ws->yord);
  free(ws);
}

void lth_decomp_ws_set_cond_max(lth_decomp_ws *ws, double cond_max) { ws->cond_max = cond_max; }
void lth_decomp_ws_set_measure(lth_decomp_ws *ws, int always) { ws->measure_always = always != 0; }
void lth_decomp_ws_set_scale(lth_decomp_ws *ws, double scale) { ws->scale = scale > 0 ? scale : 0; }
double lth_decomp_ws_scale(const lth_decomp_ws *ws) { return ws->scale; }
const lth_system *lth_decomp_ws_system(const lth_decomp_ws *ws) { return ws->sys; }
int lth_decomp_ws_order(const lth_decomp_ws *ws) { return ws->out_order; }
const lth_jet *lth_decomp_ws_A(const lth_decomp_ws *ws) { return &ws->A; }
const lth_jet *lth_decomp_ws_f(const lth_decomp_ws *ws) { return &ws->f; }

/* ---- the algorithm ---- */

/* Block A_ij of the assembled input jet (1-based). */
static lth_jet Ablk(const lth_decomp_ws *ws, int i, int j) {
  return sub(&ws->A, ws->off[i - 1], ws->off[j - 1], ws->n[i - 1], ws->n[j - 1], ws->K);
}

static int has_A(const lth_decomp_ws *ws, int i, int j) {
  return lth_system_A(ws->sys, i, j) != NULL;
}

/* cond_interval = ||Pi^-1|| max(chain_norm(t), scale), chain_norm = the product
 * of the chain blocks' norms (include/lth/conditioning.h): Pi's distance to
 * singularity relative to the largest size the chain data reach on the
 * interval.  Unlike cond_chain it sees a block that shrinks with Pi. */
static lth_status chain_measure(lth_decomp_ws *ws, double t, lth_error *err) {
  int r = ws->r;
  lth_jet a = Ablk(ws, 1, r);
  double chain = lth_jet_norm1(&a, 0);
  for (int i = 2; i <= r; i++) {
    a = Ablk(ws, i, i - 1);
    chain *= lth_jet_norm1(&a, 0);
  }
  ws->chain_norm = chain;
  ws->cond_interval = ws->pi_inv_norm * fmax(chain, ws->scale);
  if (ws->cond_interval < ws->cond_pi) {
    ws->cond_interval = ws->cond_pi;
  }
  /* the error amplification is judged on the results (lth_decomp_judge_amplification) */
  if (ws->cond_interval <= ws->cond_max) {
    return LTH_OK;
  }
  return lth_decomp_interval_error(err, t, r, ws->pi_inv_norm, fmax(chain, ws->scale),
                                   ws->cond_max);
}

lth_status lth_decomp_singular_error(lth_error *err, double t, int r) {
  char pi[LTH_PI_TEXT_MAX];
  return lth_error_set_t(err, LTH_ESING, t,
                         "Pi = %s is singular: the system is not Hessenberg of index %d here",
                         lth_pi_text(r, 0, pi, sizeof pi), r);
}

lth_status lth_decomp_chain_error(lth_error *err, double t, int r, double cond_pi,
                                  double cond_chain, double cond_max) {
  char pi[LTH_PI_TEXT_MAX];
  lth_error_set_t(err, LTH_ECOND, t,
                  "Pi = %s is ill-conditioned: cond(Pi) = %.3e, ||Pi^-1|| max ||L_i|| max "
                  "||R_j|| = %.3e exceeds %.3e (opts.cond_max)",
                  lth_pi_text(r, 0, pi, sizeof pi), cond_pi, cond_chain, cond_max);
  if (err) {
    err->has_cond = 1;
    err->cond = cond_chain;
  }
  return LTH_ECOND;
}

lth_status lth_decomp_interval_error(lth_error *err, double t, int r, double pi_inv, double scale,
                                     double cond_max) {
  double kappa = pi_inv * scale;
  char pi[LTH_PI_TEXT_MAX], norms[LTH_PI_TEXT_MAX];
  lth_error_set_t(err, LTH_ECOND, t,
                  "Pi = %s is nearly singular relative to the data on the interval: "
                  "cond_interval = ||Pi^-1|| x max %s = %.3e x %.3e = %.3e (error amplification "
                  "cond_interval^%d = %.3e) exceeds %.3e (opts.cond_max%s)",
                  lth_pi_text(r, 0, pi, sizeof pi), lth_pi_text(r, 1, norms, sizeof norms), pi_inv,
                  scale, kappa, r - 1, lth_cond_amplification(kappa, r),
                  kappa > cond_max ? cond_max : fmax(cond_max, LTH_AMPLIFICATION_MAX),
                  kappa > cond_max ? "" : "; the amplification keeps 2 digits at least");
  if (err) {
    err->has_cond = 1;
    err->cond = pi_inv * scale;
  }
  return LTH_ECOND;
}

/* Chains L_1 = A_1r, L_i = A_{i,i-1} L_{i-1}; R_{r-1} = A_{r,r-1},
 * R_i = R_{i+1} A_{i+1,i}; Pi = A_{r,r-1} L_{r-1} (Clark (2.3)); S_i = Pi^{-1} R_i.
 * judge = 0 (a perturbed recomputation): no thresholds. */
static lth_status chains(lth_decomp_ws *ws, double t, int judge, lth_error *err) {
  int r = ws->r;
  lth_status st = LTH_OK;
  lth_jet a = Ablk(ws, 1, r);
  st = lth_jet_copy(&ws->L[0], &a, err);
  for (int i = 2; i < r && st == LTH_OK; i++) {
    a = Ablk(ws, i, i - 1);
    st = lth_jet_mul(&a, &ws->L[i - 2], &ws->L[i - 1], err);
    lth_decomp_mca(ws, &ws->L[i - 1]);
  }
  a = Ablk(ws, r, r - 1);
  if (st == LTH_OK) {
    st = lth_jet_copy(&ws->R[r - 2], &a, err);
  }
  for (int i = r - 2; i >= 1 && st == LTH_OK; i--) {
    a = Ablk(ws, i + 1, i);
    st = lth_jet_mul(&ws->R[i], &a, &ws->R[i - 1], err);
    lth_decomp_mca(ws, &ws->R[i - 1]);
  }
  if (st == LTH_OK) {
    st = lth_jet_mul(&ws->R[r - 2], &ws->L[r - 2], &ws->Pi, err);
    lth_decomp_mca(ws, &ws->Pi);
  }
  if (st != LTH_OK) {
    return st;
  }
  /* Only an exactly singular Pi fails here; conditioning is judged below. */
  st = lth_jet_lu_factor(ws->lu, &ws->Pi, 0.0, &ws->cond_pi, err);
  if (st == LTH_ESING) {
    return lth_decomp_singular_error(err, t, r);
  }
  if (st != LTH_OK) {
    return st;
  }
  ws->pi_sign = lth_jet_lu_det_sign(ws->lu);
  /* cond(Pi) alone is blind to scale (a 1 x 1 Pi always has cond 1).  What a
   * near-singular Pi spoils are P_i = L_i Pi^{-1} R_i and Q_i = L_{i-1} Pi^{-1} R_i,
   * so the threshold applies to ||Pi^{-1}|| max_i ||L_i|| max_j ||R_j||, which
   * bounds all of them and is >= cond(Pi) (Pi = R_i L_i).  A merely badly
   * scaled block (A_1r = [eps; 0]) leaves it O(1). */
  double npi = lth_jet_norm1(&ws->Pi, 0), lmax = 0.0, rmax = 0.0;
  for (int i = 1; i < r; i++) {
    lmax = fmax(lmax, lth_jet_norm1(&ws->L[i - 1], 0));
    rmax = fmax(rmax, lth_jet_norm1(&ws->R[i - 1], 0));
  }
  ws->pi_inv_norm = npi > 0 ? ws->cond_pi / npi : INFINITY;
  ws->cond_chain = lmax * rmax * ws->pi_inv_norm;
  if (ws->cond_chain < ws->cond_pi) {
    ws->cond_chain = ws->cond_pi; /* rounding in the estimates */
  }
  if (judge && !(ws->cond_chain <= ws->cond_max)) {
    return lth_decomp_chain_error(err, t, r, ws->cond_pi, ws->cond_chain, ws->cond_max);
  }
  st = judge ? chain_measure(ws, t, err) : LTH_OK;
  for (int i = 1; i < r && st == LTH_OK; i++) {
    st = lth_jet_lu_solve(ws->lu, &ws->R[i - 1], &ws->S[i - 1], err);
    lth_decomp_mca(ws, &ws->S[i - 1]);
  }
  return st;
}

/* P_i = L_i Pi^{-1} R_i = L_i S_i and P_i' (Clark section 2). */
static lth_status projectors(lth_decomp_ws *ws, lth_error *err) {
  lth_status st = LTH_OK;
  for (int i = 1; i < ws->r && st == LTH_OK; i++) {
    st = lth_jet_mul(&ws->L[i - 1], &ws->S[i - 1], &ws->P[i - 1], err);
    lth_decomp_mca(ws, &ws->P[i - 1]);
    if (st == LTH_OK) {
      st = lth_jet_deriv(&ws->dP[i - 1], &ws->P[i - 1], err);
    }
  }
  return st;
}

/* Clark (3.4): w_{r-1} = -L_{r-1} Pi^{-1} f_r, a map with zero linear part. */
static lth_status last_algebraic(lth_decomp_ws *ws, lth_error *err) {
  int r = ws->r, K = ws->K;
  lth_jet fr = sub(&ws->f, ws->off[r - 1], 0, ws->nr, 1, K);
  lth_jet z = sub(&ws->Z, 0, 0, ws->nr, 1, K);
  lth_status st = lth_jet_lu_solve(ws->lu, &fr, &z, err);
  lth_jet x = sub(&ws->X, ws->off[r - 2], ws->m, ws->n[r - 2], 1, K);
  if (st == LTH_OK) {
    st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, &ws->L[r - 2], &z, 0.0, &x, err);
  }
  ws->xord[r - 1] = K;
  lth_decomp_mca(ws, &x);
  return st;
}

/* D = D[X_i] = X_i' + X_i(:, blocks > i) Y(blocks > i, :), on columns c0 .. W
 * (c0 = off_i: the whole step; c0 = m: the affine column alone, q_i' + B_i g). */
static lth_status flow_derivative(lth_decomp_ws *ws, int i, int c0, lth_jet *D, lth_error *err) {
  int oi = ws->off[i - 1], ni = ws->n[i - 1], W = ws->m + 1;
  lth_jet Xi = sub(&ws->X, oi, c0, ni, W - c0, ws->xord[i]);
  *D = sub(&ws->D, 0, 0, ni, W - c0, ws->K);
  lth_status st = lth_jet_deriv(D, &Xi, err);
  if (st != LTH_OK || i == ws->r - 1) {
    return st; /* B_{r-1} = 0: no flow term */
  }
  int c = ws->off[i];
  lth_jet Xb = sub(&ws->X, oi, c, ni, ws->m - c, ws->xord[i]);
  lth_jet Yb = sub(&ws->Y, c, c0, ws->m - c, W - c0, ws->yord[i + 1]);
  return lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &Xb, &Yb, 1.0, D, err);
}

/* U_i = sum_{j>=i} A_ij (X_j + V_j) + [0 | f_i] - D[X_i], columns c0 .. W
 * (the V_j terms only in the linear columns, c0 < m). */
static lth_status build_U(lth_decomp_ws *ws, int i, int c0, const lth_jet *D, lth_jet *U,
                          lth_error *err) {
  int ni = ws->n[i - 1], W = ws->m + 1, r = ws->r;
  *U = sub(&ws->T, 0, 0, ni, W - c0, D->order);
  lth_status st = lth_jet_copy(U, D, err);
  lth_jet_scale(U, -1.0);
  lth_jet fi = sub(&ws->f, ws->off[i - 1], 0, ni, 1, ws->K);
  lth_jet ucol = sub(&ws->T, 0, W - 1 - c0, ni, 1, U->order);
  if (st == LTH_OK) {
    st = lth_jet_axpy(1.0, &fi, &ucol, err);
  }
  for (int j = i; j < r && st == LTH_OK; j++) {
    if (!has_A(ws, i, j)) {
      continue;
    }
    lth_jet a = Ablk(ws, i, j);
    lth_jet Xj = sub(&ws->X, ws->off[j - 1], c0, ws->n[j - 1], W - c0, ws->xord[j]);
    st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &a, &Xj, 1.0, U, err);
    if (st == LTH_OK && c0 < ws->m) {
      lth_jet ublk = sub(&ws->T, 0, ws->off[j - 1] - c0, ni, ws->n[j - 1], U->order);
      st = lth_jet_axpy(1.0, &a, &ublk, err);
    }
  }
  return st;
}

/* One step of Algorithm 1 (uniform form): row i of [Ahat | g] and the map of
 * w_{i-1} (of u when i = 1).  Clark (3.6), (3.7), (3.8).  affine = 1: the
 * affine column alone (g_i and q_{i-1} for the forcing in ws->f), on the
 * linear parts and orders of the last full run; the -P_i P_i' V_i and
 * S_i P_i' V_i terms act on the linear columns only. */
static lth_status reduce_row(lth_decomp_ws *ws, int i, int affine, lth_error *err) {
  int oi = ws->off[i - 1], ni = ws->n[i - 1], W = ws->m + 1, nr = ws->nr;
  int c0 = affine ? ws->m : oi;
  lth_jet D, U;
  lth_status st = flow_derivative(ws, i, c0, &D, err);
  if (st == LTH_OK) {
    st = build_U(ws, i, c0, &D, &U, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  const lth_jet *Si = &ws->S[i - 1], *Li = &ws->L[i - 1];
  const lth_jet *Pi_ = &ws->P[i - 1], *dPi = &ws->dP[i - 1];
  /* Z = S_i U_i;  Y_i = U_i - L_i Z - P_i P_i' V_i (+ A_{i,i-1} V_{i-1}) */
  lth_jet Z = sub(&ws->Z, 0, 0, nr, W - c0, ws->K);
  lth_jet Yi = sub(&ws->Y, oi, c0, ni, W - c0, ws->K);
  st = lth_jet_mul(Si, &U, &Z, err);
  lth_decomp_mca(ws, &Z);
  if (st == LTH_OK) {
    st = lth_jet_copy(&Yi, &U, err);
  }
  if (st == LTH_OK) {
    st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, Li, &Z, 1.0, &Yi, err);
  }
  if (!affine) {
    lth_jet Yii = sub(&ws->Y, oi, oi, ni, ni, Yi.order);
    if (st == LTH_OK) {
      st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, Pi_, dPi, 1.0, &Yii, err);
    }
    ws->yord[i] = imin(Yi.order, Yii.order);
  }
  lth_decomp_mca(ws, &Yi);
  if (st == LTH_OK && i >= 2 && !affine) {
    lth_jet a = Ablk(ws, i, i - 1);
    lth_jet Ysub = sub(&ws->Y, oi, ws->off[i - 2], ni, ws->n[i - 2], ws->K);
    st = lth_jet_copy(&Ysub, &a, err);
  }
  /* Z += S_i P_i' V_i;  X_{i-1} = -L_{i-1} Z  (u: X_0 = -Z) */
  if (st == LTH_OK && !affine) {
    lth_jet Zi = sub(&ws->Z, 0, 0, nr, ni, Z.order);
    st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, Si, dPi, 1.0, &Zi, err);
    Z.order = imin(Z.order, Zi.order);
  }
  if (st != LTH_OK) {
    return st;
  }
  if (i >= 2) {
    lth_jet Xp = sub(&ws->X, ws->off[i - 2], c0, ws->n[i - 2], W - c0, ws->K);
    st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, &ws->L[i - 2], &Z, 0.0, &Xp, err);
    ws->xord[i - 1] = affine ? ws->xord[i - 1] : Xp.order;
    lth_decomp_mca(ws, &Xp);
  } else {
    lth_jet Xu = sub(&ws->X, ws->m, c0, nr, W - c0, ws->K);
    st = lth_jet_copy(&Xu, &Z, err);
    lth_jet_scale(&Xu, -1.0);
    ws->xord[0] = affine ? ws->xord[0] : Xu.order;
    lth_decomp_mca(ws, &Xu);
  }
  return st;
}

/* ---- outputs ---- */

static lth_status copy_out(lth_jet *dst, const lth_jet *src, lth_error *err) {
  lth_jet s = *src;
  s.order = imin(s.order, dst->order);
  return lth_jet_copy(dst, &s, err);
}

/* G = [Nhat + Bhat][I - P], block column j: (Nhat + Bhat)_j (I - P_j) (Corollary 3). */
static lth_status build_G(lth_decomp_ws *ws, lth_point *pt, lth_error *err) {
  int K = pt->order;
  lth_jet_set_zero(&pt->G, K);
  lth_jet Bh = sub(&ws->X, 0, 0, ws->s, ws->m, K);
  lth_status st = copy_out(&pt->G, &Bh, err);
  for (int k = 0; k < ws->m; k++) {
    LTH_JET_AT(&pt->G, 0, k, k) += 1.0;
  }
  for (int j = 1; j < ws->r && st == LTH_OK; j++) {
    int oj = ws->off[j - 1], nj = ws->n[j - 1];
    lth_jet Gj = sub(&pt->G, 0, oj, ws->s, nj, K);
    lth_jet tj = sub(&ws->tmp, 0, 0, ws->s, nj, K);
    lth_jet Pj = sub(&ws->P[j - 1], 0, 0, nj, nj, K);
    st = lth_jet_mul(&Gj, &Pj, &tj, err);
    if (st == LTH_OK) {
      st = lth_jet_axpy(-1.0, &tj, &Gj, err);
    }
  }
  return st;
}

lth_status lth_decomp_outputs(lth_decomp_ws *ws, lth_point *pt, lth_error *err) {
  int K = pt->order, m = ws->m, s = ws->s;
  lth_jet Ah = sub(&ws->Y, 0, 0, m, m, ws->yord[1]);
  lth_jet gg = sub(&ws->Y, 0, m, m, 1, ws->yord[1]);
  lth_jet Bh = sub(&ws->X, 0, 0, s, m, ws->xord[0]);
  lth_jet qq = sub(&ws->X, 0, m, s, 1, ws->xord[0]);
  lth_jet *d[] = {&pt->Ahat, &pt->g, &pt->Bhat, &pt->q, &pt->Pi};
  const lth_jet *src[] = {&Ah, &gg, &Bh, &qq, &ws->Pi};
  lth_status st = LTH_OK;
  for (size_t k = 0; k < 5 && st == LTH_OK; k++) {
    d[k]->order = K;
    st = copy_out(d[k], src[k], err);
  }
  lth_jet_set_zero(&pt->P, K);
  for (int i = 1; i < ws->r && st == LTH_OK; i++) {
    int oi = ws->off[i - 1], ni = ws->n[i - 1];
    lth_jet Pblk = sub(&pt->P, oi, oi, ni, ni, K);
    st = copy_out(&Pblk, &ws->P[i - 1], err);
    /* Q_1 = Pi^{-1} R_1 = S_1; Q_i = L_{i-1} S_i */
    pt->Q[i - 1].order = K;
    if (st == LTH_OK && i == 1) {
      st = copy_out(&pt->Q[0], &ws->S[0], err);
    } else if (st == LTH_OK) {
      st = lth_jet_mul(&ws->L[i - 2], &ws->S[i - 1], &pt->Q[i - 1], err);
      lth_jet_truncate(&pt->Q[i - 1], K);
    }
  }
  if (st == LTH_OK) {
    st = build_G(ws, pt, err);
  }
  return st;
}

static int jet_finite(const lth_jet *J) {
  for (int k = 0; k <= J->order; k++) {
    for (int j = 0; j < J->cols; j++) {
      for (int i = 0; i < J->rows; i++) {
        if (!isfinite(LTH_JET_AT(J, k, i, j))) {
          return 0;
        }
      }
    }
  }
  return 1;
}

static lth_status check_finite(const lth_point *pt, double t, lth_error *err) {
  const lth_jet *list[] = {&pt->Ahat, &pt->g, &pt->Bhat, &pt->q, &pt->G, &pt->P};
  const char *names[] = {"Ahat", "g", "Bhat", "q", "G", "P"};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
    if (!jet_finite(list[k])) {
      return lth_error_set_t(err, LTH_ENOTFINITE, t,
                             "%s is not finite (overflow in the derivative chain)", names[k]);
    }
  }
  return LTH_OK;
}

lth_status lth_decomp_run(lth_decomp_ws *ws, double t, int judge, lth_error *err) {
  lth_jet_set_zero(&ws->X, ws->K);
  lth_jet_set_zero(&ws->Y, ws->K);
  lth_status st = chains(ws, t, judge, err);
  if (st == LTH_OK) {
    st = projectors(ws, err);
  }
  if (st == LTH_OK) {
    st = last_algebraic(ws, err);
  }
  for (int i = ws->r - 1; i >= 1 && st == LTH_OK; i--) {
    st = reduce_row(ws, i, 0, err);
  }
  return st;
}

/* The affine columns (g, q) of Algorithm 1 for the forcing in ws->f, on the
 * chains, projectors and linear parts of the last lth_decomp_run: the same
 * operations on the last column only, so that (g, q) is exactly linear in
 * the forcing's jet. */
lth_status lth_decomp_run_affine(lth_decomp_ws *ws, lth_error *err) {
  int m = ws->m;
  lth_jet xa = sub(&ws->X, 0, m, ws->s, 1, ws->K), ya = sub(&ws->Y, 0, m, m, 1, ws->K);
  lth_jet_set_zero(&xa, ws->K);
  lth_jet_set_zero(&ya, ws->K);
  lth_status st = last_algebraic(ws, err);
  for (int i = ws->r - 1; i >= 1 && st == LTH_OK; i--) {
    st = reduce_row(ws, i, 1, err);
  }
  return st;
}

lth_status lth_decomp_eval(lth_decomp_ws *ws, double t, lth_error *err) {
  if (ws->unforced) {
    return lth_system_eval_unforced(ws->sys, t, ws->K, &ws->A, &ws->f, ws->src_work, err);
  }
  return lth_system_eval(ws->sys, t, ws->K, &ws->A, &ws->f, ws->src_work, err);
}

lth_status lth_decomp_at(lth_decomp_ws *ws, double t, lth_point *pt, lth_error *err) {
  if (pt->order > ws->out_order || pt->r != ws->r || pt->s != ws->s) {
    return lth_error_set(err, LTH_EORDER, "result of order %d from a workspace of output order %d",
                         pt->order, ws->out_order);
  }
  lth_status st = lth_decomp_eval(ws, t, err);
  if (st == LTH_OK) {
    st = lth_decomp_run(ws, t, 1, err);
  }
  if (st == LTH_OK) {
    st = lth_decomp_outputs(ws, pt, err);
  }
  if (st == LTH_OK) {
    pt->t = t;
    pt->cond_pi = ws->cond_pi;
    pt->cond_chain = ws->cond_chain;
    pt->pi_sign = ws->pi_sign;
    pt->pi_inv_norm = ws->pi_inv_norm;
    pt->chain_norm = ws->chain_norm;
    pt->cond_interval = ws->cond_interval;
    st = check_finite(pt, t, err);
  }
  if (st == LTH_OK) {
    st = lth_decomp_judge_amplification(ws, pt, err);
  }
  if (st != LTH_OK && err && !err->has_t) {
    err->has_t = 1;
    err->t = t;
  }
  return st;
}
