/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cost of an LQR problem on a DAE plant seen on its realization
 * (include/lth/plqr.h): with w = (z, u, y) = M x + N u + m,
 *   w'Ww + 2w'l + c = x'(M'WM)x + 2x'(M'WN)u + u'(N'WN)u
 *                     + 2(M'(Wm + l))'x + 2(N'(Wm + l))'u + m'Wm + 2m'l + c. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "plqr_impl.h"

/* 1 if input k reaches the realization without derivatives at this point:
 * its columns of the change of state K_k and of D_j, Dz_j (j >= 1) are
 * exactly zero -- as the input maps make them for an input that stands in
 * the dynamic rows alone (include/lth/decomp.h). */
int plqr_underived(const lth_ss_point *pt, int k) {
  for (int j = 0; j < pt->nk; j++) {
    const double *col = pt->K + (size_t)pt->m * ((size_t)j * pt->nu + k);
    for (int i = 0; i < pt->m; i++) {
      if (col[i] != 0.0) {
        return 0;
      }
    }
  }
  for (int j = 1; j < pt->nd; j++) {
    const double *dz = pt->Dz + (size_t)pt->s * ((size_t)j * pt->nu + k);
    for (int i = 0; i < pt->s; i++) {
      if (dz[i] != 0.0) {
        return 0;
      }
    }
  }
  return 1;
}

/* M = [Z; 0; C], N = [Dz_0; I; D_0], m = [z_f; 0; y_f] (n rows). */
static void stack_maps(plqr *L) {
  const lth_ss_point *pt = L->pt;
  int n = L->n, s = L->s, nu = L->nu, ny = L->ny, p = L->p;
  memset(L->M, 0, (size_t)n * p * sizeof(double));
  memset(L->N, 0, (size_t)n * nu * sizeof(double));
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < s; i++) {
      L->M[i + (size_t)j * n] = pt->Z[i + (size_t)j * s];
    }
    for (int i = 0; i < ny; i++) {
      L->M[s + nu + i + (size_t)j * n] = pt->C[i + (size_t)j * ny];
    }
  }
  for (int k = 0; k < nu; k++) {
    for (int i = 0; i < s; i++) {
      L->N[i + (size_t)k * n] = pt->Dz[i + (size_t)k * s];
    }
    L->N[s + k + (size_t)k * n] = 1.0;
    for (int i = 0; i < ny; i++) {
      L->N[s + nu + i + (size_t)k * n] = pt->D[i + (size_t)k * ny];
    }
  }
  memset(L->mv, 0, (size_t)n * sizeof(double));
  memcpy(L->mv, pt->zf, (size_t)s * sizeof(double));
  if (ny > 0) {
    memcpy(L->mv + s + nu, pt->yf, (size_t)ny * sizeof(double));
  }
}

/* The cost's W, l, c at t (zero where not given). */
static lth_status cost_sources(plqr *L, double t, double *c, lth_error *err) {
  int n = L->n;
  lth_jet JW = lth_jet_wrap(L->W, n, n, n, (size_t)n * n, 0);
  lth_jet Jl = lth_jet_wrap(L->l, n, 1, n, (size_t)n, 0);
  lth_jet Jc = lth_jet_wrap(c, 1, 1, 1, 1, 0);
  lth_jet *J[3] = {&JW, &Jl, &Jc};
  const lth_source *src[3] = {L->cost->W, L->cost->l, L->cost->c};
  const char *name[3] = {"the cost's weight W", "the cost's linear term l", "the cost's constant c"};
  for (int k = 0; k < 3; k++) {
    lth_jet_set_zero(J[k], 0);
    lth_status st = src[k] ? lth_source_fill(src[k], t, 0, J[k], L->work, err) : LTH_OK;
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", name[k]);
      return st;
    }
  }
  return LTH_OK;
}

lth_status plqr_weights_at(plqr *L, double t, lth_error *err) {
  return L->wready ? plqr_wtable_eval(L, t, err) : plqr_weights_direct(L, t, err);
}

lth_status plqr_weights_direct(plqr *L, double t, lth_error *err) {
  lth_status st = plqr_weights_values(L, t, err);
  return st == LTH_OK ? plqr_factor_r(L, t, err) : st;
}

lth_status plqr_weights_values(plqr *L, double t, lth_error *err) {
  plqr_weights *w = &L->wt;
  lth_status st = lth_ss_table_eval(L->tab, t, L->pt, err);
  double c = 0.0;
  st = st == LTH_OK ? cost_sources(L, t, &c, err) : st;
  if (st != LTH_OK) {
    return st;
  }
  stack_maps(L);
  int n = L->n, p = L->p, nu = L->nu;
  double *WM = L->work + L->nwork, *WN = WM + (size_t)n * p, *Wm = WN + (size_t)n * nu;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, p, n, 1.0, L->W, n, L->M, n, 0.0, WM, n);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, nu, n, 1.0, L->W, n, L->N, n, 0.0, WN, n);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, n, 1.0, L->W, n, L->mv, n, 0.0, Wm, n);
  w->c0 = c;
  for (int i = 0; i < n; i++) {
    w->c0 += L->mv[i] * (Wm[i] + 2.0 * L->l[i]);
    Wm[i] += L->l[i];
  }
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, n, 1.0, L->M, n, WM, n, 0.0, w->Q, p);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, nu, n, 1.0, L->M, n, WN, n, 0.0, w->S, p);
  lth_small_gemm(CblasTrans, CblasNoTrans, nu, nu, n, 1.0, L->N, n, WN, n, 0.0, w->R, nu);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, 1, n, 1.0, L->M, n, Wm, n, 0.0, w->q, p);
  lth_small_gemm(CblasTrans, CblasNoTrans, nu, 1, n, 1.0, L->N, n, Wm, n, 0.0, w->r, nu);
  w->A = L->pt->A;
  w->B = L->pt->B;
  w->g = L->pt->g;
  for (int k = 0; k < nu; k++) { /* every input is a control: none may be differentiated */
    if (!plqr_underived(L->pt, k)) {
      return lth_error_set_t(err, LTH_EDATA, t,
                             "the input %d reaches the plant through its derivatives (it stands "
                             "in a position or constraint equation: the realization's D_j, "
                             "j >= 1, lth-ss): an LQR problem with such an input is not "
                             "supported yet",
                             k + 1);
    }
  }
  return LTH_OK;
}

lth_status plqr_factor_r(plqr *L, double t, lth_error *err) {
  plqr_weights *w = &L->wt;
  int nu = L->nu;
  memcpy(w->Rf, w->R, (size_t)nu * nu * sizeof(double));
  lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nu, w->Rf, nu);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ESING, t,
                           "the weight of the inputs R(t) is not positive definite at t = %.10g "
                           "(R has a leading minor <= 0 at %d): a singular LQR problem, not "
                           "supported on a DAE plant yet",
                           t, (int)info);
  }
  return LTH_OK;
}

lth_status plqr_final(plqr *L, double *Y, lth_error *err) {
  const lth_plqr_cost *cost = L->cost;
  int n = L->n, p = L->p, nu = L->nu;
  lth_status st = lth_ss_table_eval(L->tab, L->t1, L->pt, err);
  if (st != LTH_OK) {
    return st;
  }
  stack_maps(L);
  memset(Y, 0, L->ny_ * sizeof(double));
  if (!cost->F && !cost->f && cost->cF == 0.0) {
    return LTH_OK;
  }
  double *FM = L->work + L->nwork, *FN = FM + (size_t)n * p, *Fm = FN + (size_t)n * nu;
  memset(FM, 0, (size_t)n * (p + nu + 1) * sizeof(double));
  if (cost->F) {
    lth_small_gemm(CblasNoTrans, CblasNoTrans, n, p, n, 1.0, cost->F, n, L->M, n, 0.0, FM, n);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, n, nu, n, 1.0, cost->F, n, L->N, n, 0.0, FN, n);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, n, 1.0, cost->F, n, L->mv, n, 0.0, Fm, n);
  }
  /* the final cost may not weigh u(t1), directly or through z and y: F N = 0, f'N = 0 */
  double fn = 0.0, big = 0.0;
  for (int k = 0; k < nu; k++) {
    double d = 0.0;
    for (int i = 0; i < n; i++) {
      fn = fmax(fn, fabs(FN[i + (size_t)k * n]));
      d += (cost->f ? cost->f[i] : 0.0) * L->N[i + (size_t)k * n];
      big = fmax(big, fabs(L->N[i + (size_t)k * n]));
    }
    fn = fmax(fn, fabs(d));
  }
  double fscale = 0.0;
  for (int i = 0; cost->F && i < n * n; i++) {
    fscale = fmax(fscale, fabs(cost->F[i]));
  }
  for (int i = 0; cost->f && i < n; i++) {
    fscale = fmax(fscale, fabs(cost->f[i]));
  }
  if (fn > 1e-12 * fmax(fscale, 1e-300) * fmax(1.0, big)) {
    return lth_error_set_t(err, LTH_EDATA, L->t1,
                           "the final cost weighs the inputs at t1 (directly or through an "
                           "unknown or output that the inputs reach at once): a final cost is a "
                           "function of the state");
  }
  double c = cost->cF;
  for (int i = 0; i < n; i++) {
    double fi = cost->f ? cost->f[i] : 0.0;
    c += L->mv[i] * (Fm[i] + 2.0 * fi);
    Fm[i] += fi;
  }
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, n, 1.0, L->M, n, FM, n, 0.0, Y, p);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, 1, n, 1.0, L->M, n, Fm, n, 0.0, Y + (size_t)p * p, p);
  Y[(size_t)p * p + p] = c;
  return LTH_OK;
}

/* R^-1 X (nu x cols) in place, from the Cholesky factor. */
static void r_solve(const plqr_weights *w, double *X, int cols) {
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', w->nu, cols, w->Rf, w->nu, X, w->nu);
}

void plqr_riccati_rhs(const plqr *L, const double *Y, double *dY) {
  const plqr_weights *w = &L->wt;
  int p = L->p, nu = L->nu;
  const double *P = Y, *pv = Y + (size_t)p * p;
  double *dP = dY, *dp = dY + (size_t)p * p;
  double *Ps = L->work + L->nwork, *PBS = Ps + (size_t)p * p, *G = PBS + (size_t)p * nu,
         *h = G + (size_t)nu * p, *PA = h + nu;
  for (int j = 0; j < p; j++) { /* the symmetric part: rounding leaves P' = P only nearly */
    for (int i = 0; i < p; i++) {
      Ps[i + (size_t)j * p] = 0.5 * (P[i + (size_t)j * p] + P[j + (size_t)i * p]);
    }
  }
  /* PBS = P B + S, G = R^-1 PBS' */
  memcpy(PBS, w->S, (size_t)p * nu * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, nu, p, 1.0, Ps, p, w->B, p, 1.0, PBS, p);
  for (int i = 0; i < p; i++) {
    for (int k = 0; k < nu; k++) {
      G[k + (size_t)i * nu] = PBS[i + (size_t)k * p];
    }
  }
  r_solve(w, G, p);
  /* -P' = Q + P A + A'P - PBS G */
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, p, p, 1.0, Ps, p, w->A, p, 0.0, PA, p);
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) {
      dP[i + (size_t)j * p] = -(w->Q[i + (size_t)j * p] + PA[i + (size_t)j * p] +
                               PA[j + (size_t)i * p]);
    }
  }
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, p, nu, 1.0, PBS, p, G, nu, 1.0, dP, p);
  /* h = B'p + r, k = R^-1 h; -p' = q + A'p + P g - PBS k; -c' = c0 + 2 p'g - h'k */
  for (int k = 0; k < nu; k++) {
    double sum = w->r[k];
    for (int i = 0; i < p; i++) {
      sum += w->B[i + (size_t)k * p] * pv[i];
    }
    h[k] = sum;
  }
  double *kk = PA + (size_t)p * p;
  memcpy(kk, h, (size_t)nu * sizeof(double));
  r_solve(w, kk, 1);
  double hk = 0.0, pg = 0.0;
  for (int k = 0; k < nu; k++) {
    hk += h[k] * kk[k];
  }
  for (int i = 0; i < p; i++) {
    double sum = w->q[i];
    for (int l = 0; l < p; l++) {
      sum += w->A[l + (size_t)i * p] * pv[l] + Ps[i + (size_t)l * p] * w->g[l];
    }
    for (int k = 0; k < nu; k++) {
      sum -= PBS[i + (size_t)k * p] * kk[k];
    }
    dp[i] = -sum;
    pg += pv[i] * w->g[i];
  }
  dY[(size_t)p * p + p] = -(w->c0 + 2.0 * pg - hk);
}
