/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The minimal-rotation basis Q(t) of the state space range(I - P(t))
 * (include/lth/ss.h, docs/theory.md section 8).
 *
 * The solutions v of the homogeneous reduced ODE v' = Ahat v that start in
 * range(I - P) stay there (Clark, Theorem 3), so range(I - P(t)) is the span
 * of V(t) with V' = Ahat V.  The orthogonal projector Pi_o = V (V^T V)^-1 V^T
 * onto it then has Pi_o' = (I - Pi_o) Ahat Pi_o + its transpose, and
 * Q' = Pi_o' Q = (I - Q Q^T) Ahat Q keeps an orthonormal Q in the space
 * with Q^T Q' = Q^T (I - Q Q^T) Ahat Q = 0: the basis that does not rotate
 * within the space.  It is integrated with an explicit Runge-Kutta pair
 * (Prince-Dormand 8(9)) on exact decompositions at every stage. */
#include <float.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "ss_impl.h"

static double fro(const double *a, int rows, int cols, int ld) {
  double sum = 0.0;
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows; i++) {
      sum += a[i + (size_t)j * ld] * a[i + (size_t)j * ld];
    }
  }
  return sqrt(sum);
}

/* a (m x p) <- U V^T from a = U S V^T; smin, smax: the extreme singular values. */
static lth_status polar(double *a, int m, int p, double *work, double *smin, double *smax,
                        lth_error *err) {
  size_t mp = (size_t)m * (size_t)p;
  double *c = work, *u = c + mp, *sv = u + mp, *vt = sv + p, *sup = vt + (size_t)p * p;
  memcpy(c, a, mp * sizeof(double));
  lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'S', m, p, c, m, sv, u, m, vt, p, sup);
  if (info != 0) {
    return lth_error_set(err, LTH_ELAPACK, "dgesvd of the state-space basis: info %d", (int)info);
  }
  *smax = sv[0];
  *smin = sv[p - 1];
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, p, 1.0, u, m, vt, p, 0.0, a, m);
  return LTH_OK;
}

lth_status lth_ss_polar(double *a, int m, int p, double *work, lth_error *err) {
  double smin, smax;
  return p > 0 ? polar(a, m, p, work, &smin, &smax, err) : LTH_OK;
}

/* The p coordinates whose unit vectors the orthogonal projector onto the
 * space keeps best (largest diagonal Pi_o(i,i) = |N(i,:)|^2), ties within
 * 1e-10 to the lower index: a choice that rounding does not flip. */
static void pick_columns(const double *N, int m, int p, double *diag, int *sel) {
  for (int i = 0; i < m; i++) {
    diag[i] = 0.0;
    for (int k = 0; k < p; k++) {
      diag[i] += N[i + (size_t)k * m] * N[i + (size_t)k * m];
    }
  }
  for (int c = 0; c < p; c++) {
    double best = -1.0;
    for (int i = 0; i < m; i++) {
      best = diag[i] > best ? diag[i] : best;
    }
    int pick = 0;
    for (int i = 0; i < m; i++) {
      if (diag[i] >= best - 1e-10) {
        pick = i;
        break;
      }
    }
    sel[c] = pick;
    diag[pick] = -2.0;
  }
}

/* N (m x p): an orthonormal basis of ker P from the SVD of P (m x m, ld). */
static lth_status null_space(lth_ss *ss, const double *P, int ld, double *N, double t,
                             lth_error *err) {
  int m = ss->m, p = ss->p;
  size_t m2 = (size_t)m * (size_t)m;
  double *c = ss->svd, *vt = c + m2, *sv = vt + m2, *sup = sv + m;
  for (int j = 0; j < m; j++) {
    memcpy(c + (size_t)j * m, P + (size_t)j * ld, (size_t)m * sizeof(double));
  }
  double dummy;
  lapack_int info =
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', m, m, c, m, sv, &dummy, 1, vt, m, sup);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t, "dgesvd of P: info %d", (int)info);
  }
  /* P is a projector of rank m - p: singular values >= 1, then p zeros */
  double big = sv[0] > 1.0 ? sv[0] : 1.0;
  if ((p < m && sv[m - p - 1] < 0.5) || sv[m - p] > 1e-6 * big) {
    return lth_error_set_t(err, LTH_ESING, t,
                           "the state space range(I - P) does not have dimension p = %d "
                           "(singular values of P %.3g and %.3g)",
                           p, p < m ? sv[m - p - 1] : 1.0, sv[m - p]);
  }
  for (int k = 0; k < p; k++) {
    for (int i = 0; i < m; i++) {
      N[i + (size_t)k * m] = vt[(m - p + k) + (size_t)i * m];
    }
  }
  return LTH_OK;
}

lth_status lth_ss_basis_start(lth_ss *ss, double t0, lth_error *err) {
  int m = ss->m, p = ss->p;
  ss->t_cur = t0;
  ss->have_q = 1;
  if (p == 0) {
    return LTH_OK;
  }
  lth_status st = lth_decomp_at(ss->ws_rhs, t0, ss->pt_rhs, err);
  ss->decomps++;
  if (st != LTH_OK) {
    ss->have_q = 0;
    return st;
  }
  const lth_jet *P = &ss->pt_rhs->P;
  double *N = ss->w1, *X = ss->w2;
  st = null_space(ss, P->c, P->ld, N, t0, err);
  if (st != LTH_OK) {
    ss->have_q = 0;
    return st;
  }
  int *sel = ss->sel;
  pick_columns(N, m, p, ss->w3, sel);
  /* X = Pi_o S = N (N^T S): the chosen columns of the projector */
  for (int c = 0; c < p; c++) {
    for (int i = 0; i < m; i++) {
      double sum = 0.0;
      for (int k = 0; k < p; k++) {
        sum += N[i + (size_t)k * m] * N[sel[c] + (size_t)k * m];
      }
      X[i + (size_t)c * m] = sum;
    }
  }
  double smin, smax;
  st = polar(X, m, p, ss->svd, &smin, &smax, err);
  if (st == LTH_OK && smin < 1e-3 * smax) {
    /* the greedy choice is nearly dependent: the null-space basis itself */
    memcpy(X, N, (size_t)m * p * sizeof(double));
  }
  if (st == LTH_OK) {
    memcpy(ss->q, X, (size_t)m * p * sizeof(double));
  } else {
    ss->have_q = 0;
  }
  return st;
}

/* Q' = (I - Q Q^T) Ahat(t) Q = W - Q (Q^T W), W = Ahat Q, plus the damping
 * dir c Q (I - Q^T Q), zero while Q is orthonormal: with it E = Q^T Q - I
 * obeys E' = -(E B + B^T E) - 2 c E to first order (B = Q^T Ahat Q), which
 * decays in the direction of integration where c exceeds the largest
 * eigenvalue of -(B + B^T) / 2 (bounded by Gershgorin's discs; c = 2 ||B||_1
 * + 1 made the steps of data/carts_io.lth 2.4 times as many).
 * (Without it, E grew 5e7-fold within the 8 steps between two reprojections
 * of lth_ss_basis_move on data/circuit_io.lth, t from 0 to 10.) */
static int basis_rhs(double t, const double y[], double dydt[], void *params) {
  lth_ss *ss = params;
  int m = ss->m, p = ss->p;
  lth_status st = lth_decomp_at(ss->ws_rhs, t, ss->pt_rhs, &ss->rhs_err);
  ss->decomps++;
  if (st != LTH_OK) {
    ss->rhs_failed = 1;
    return GSL_EBADFUNC;
  }
  const lth_jet *Ah = &ss->pt_rhs->Ahat;
  double *W = ss->w1, *M = ss->w2;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, m, 1.0, Ah->c, Ah->ld, y, m, 0.0, W, m);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, m, 1.0, y, m, W, m, 0.0, M, p);
  memcpy(dydt, W, (size_t)m * p * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, p, -1.0, y, m, M, p, 1.0, dydt, m);
  /* c: Gershgorin's bound on the largest eigenvalue of S = -(B + B^T) / 2
   * (B = M), the rate at which -(E B + B^T E) can make E grow, plus 1 */
  double c = 0.0;
  for (int i = 0; i < p; i++) {
    double row = -M[i + (size_t)i * p];
    for (int j = 0; j < p; j++) {
      if (j != i) row += 0.5 * fabs(M[i + (size_t)j * p] + M[j + (size_t)i * p]);
    }
    c = fmax(c, row);
  }
  c += 1.0;
  /* M <- I - Q^T Q, then dydt += dir c Q M */
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, m, -1.0, y, m, y, m, 0.0, M, p);
  for (int i = 0; i < p; i++) M[i + (size_t)i * p] += 1.0;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, p, ss->dir * c, y, m, M, p, 1.0, dydt, m);
  return GSL_SUCCESS;
}

/* Q is orthonormal and in range(I - P) only in exact arithmetic: the basis
 * ODE leaves both where the state's modes decay (E = Q^T Q - I obeys
 * E' = -(E B + B^T E), B = Q^T Ahat Q) or the drift P Q grows (as the
 * reduced ODE's, Clark's Theorem 1).  Over t in [2.5, 7.5] of
 * data/circuit_io.lth rounding's 1e-16 reached O(1) in one move (Q grew to
 * 5e5 and the steps collapsed; with OpenBLAS's Haswell and Zen kernels, not
 * SkylakeX), or ||P Q|| 1.6e-8 with E held.  So a move stops every
 * BASIS_CHUNK_STEPS steps, and Q <- polar((I - P) Q) there: the nearest
 * orthonormal basis of its projection, which the exact Q is. */
#define BASIS_CHUNK_STEPS 8

static lth_status reproject(lth_ss *ss, double t, lth_error *err) {
  int m = ss->m, p = ss->p;
  lth_status st = lth_decomp_at(ss->ws_rhs, t, ss->pt_rhs, err);
  ss->decomps++;
  if (st != LTH_OK) {
    return st;
  }
  const lth_jet *P = &ss->pt_rhs->P;
  double *X = ss->w1, smin, smax;
  memcpy(X, ss->q, (size_t)m * p * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, m, -1.0, P->c, P->ld, ss->q, m, 1.0, X, m);
  st = polar(X, m, p, ss->svd, &smin, &smax, err);
  if (st == LTH_OK) {
    memcpy(ss->q, X, (size_t)m * p * sizeof(double));
  }
  return st;
}

lth_status lth_ss_basis_move(lth_ss *ss, double t, lth_error *err) {
  if (t == ss->t_cur || ss->p == 0) {
    ss->t_cur = t;
    return LTH_OK;
  }
  double dir = t > ss->t_cur ? 1.0 : -1.0, h0 = dir * fabs(t - ss->t_cur) / 16.0;
  ss->dir = dir; /* (basis_rhs damps E in this direction) */
  if (!ss->drv) {
    ss->gsys.function = basis_rhs;
    ss->gsys.jacobian = NULL;
    ss->gsys.dimension = (size_t)ss->m * (size_t)ss->p;
    ss->gsys.params = ss;
    ss->drv = gsl_odeiv2_driver_alloc_y_new(&ss->gsys, gsl_odeiv2_step_rk8pd, h0, ss->opts.atol,
                                            ss->opts.rtol);
    if (!ss->drv) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory allocating the basis integrator");
    }
  } else {
    /* the last step size, where it fits: times asked close together cost
     * one step each, not a new start (4 steps per point at 1/16) */
    double hl = fabs(ss->drv->h), span = fabs(t - ss->t_cur);
    gsl_odeiv2_driver_reset_hstart(ss->drv, hl > 0 && hl < span ? dir * hl : dir * span);
  }
  ss->rhs_failed = 0;
  lth_error_clear(&ss->rhs_err);
  double tt = ss->t_cur;
  gsl_odeiv2_driver_set_nmax(ss->drv, BASIS_CHUNK_STEPS);
  int gst;
  for (;;) {
    gst = gsl_odeiv2_driver_apply(ss->drv, &tt, t, ss->q);
    ss->steps += (long)ss->drv->n;
    if (gst != GSL_EMAXITER || ss->rhs_failed) {
      break;
    }
    lth_status st = reproject(ss, tt, err);
    if (st != LTH_OK) {
      ss->have_q = 0;
      return st;
    }
  }
  if (ss->rhs_failed) {
    *err = ss->rhs_err;
    ss->have_q = 0; /* the basis is lost: start again on the next call */
    return err->status;
  }
  if (gst != GSL_SUCCESS) {
    ss->have_q = 0;
    return lth_error_set_t(err, LTH_ETOL, tt,
                           "the state-space basis could not be integrated to t = %.17g at "
                           "tolerance %.3g (GSL: %s)",
                           t, ss->opts.rtol, gsl_strerror(gst));
  }
  ss->t_cur = t;
  return LTH_OK;
}

lth_status lth_ss_basis_check(lth_ss *ss, lth_ss_point *pt, lth_error *err) {
  int m = ss->m, p = ss->p;
  pt->orth_err = 0.0;
  pt->range_err = 0.0;
  if (p == 0) {
    return LTH_OK;
  }
  const lth_jet *P = &ss->pt->P;
  double *PQ = ss->w1, *G = ss->w2;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, m, 1.0, P->c, P->ld, ss->q, m, 0.0, PQ, m);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, m, 1.0, ss->q, m, ss->q, m, 0.0, G, p);
  for (int k = 0; k < p; k++) {
    G[k + (size_t)k * p] -= 1.0;
  }
  double pn = fro(P->c, m, m, P->ld);
  pt->range_err = fro(PQ, m, p, m) / (pn > 1.0 ? pn : 1.0);
  pt->orth_err = fro(G, p, p, p);
  /* the point's own rounding (its amplification) bounds how well P is known */
  double own = 100.0 * DBL_EPSILON * ss->pt->amplification;
  double tol = ss->opts.range_tol > own ? ss->opts.range_tol : own;
  if (!(pt->range_err <= tol)) {
    ss->have_q = 0;
    return lth_error_set_t(err, LTH_ETOL, ss->pt->t,
                           "the state-space basis left range(I - P): ||P Q|| = %.3g > %.3g "
                           "(the basis ODE's tolerance %.3g is too loose for this interval)",
                           pt->range_err, tol, ss->opts.rtol);
  }
  /* back onto the space along range(P), then the closest orthonormal basis */
  for (size_t i = 0; i < (size_t)m * p; i++) {
    ss->q[i] -= PQ[i];
  }
  lth_status st = lth_ss_polar(ss->q, m, p, ss->svd, err);
  if (st == LTH_OK) {
    memcpy(pt->Q, ss->q, (size_t)m * p * sizeof(double));
  }
  return st;
}
