/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The collocation solution at any time (lib/colloc/colloc.h).
 *
 * Between mesh points t_k < t < t_{k+1}: one Gauss step of length t - t_k from
 * y_k in the coordinates of W_k (order 2s, as at the mesh points: the error
 * at t_k carried over a short step, plus that step's local error), or the
 * collocation polynomial of the interval (order s + 1; for the tests).  Then
 * v = R_k(t) y in range(I - P(t)), and z = G(t) v + q(t) (Corollary 3): the
 * algebraic components have the accuracy of v at every index.
 */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "colloc.h"

/* Mesh interval holding t: the largest k < N with t_k <= t; k = N at t_N. */
static size_t locate(const lth_cmesh *M, double t) {
  size_t lo = 0, hi = M->N;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (M->t[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return t >= M->t[M->N] ? M->N : lo;
}

/* z, v, drift at mesh point k from its own data (no decomposition). */
static void at_point(const lth_cmesh *M, size_t k, double *z, double *v, double *drift,
                     double *vv) {
  int s = M->s, m = M->m, p = M->p;
  const double *yk = M->y + k * (size_t)p;
  memcpy(z, M->q + k * (size_t)s, sizeof(double) * s);
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, M->GW + k * (size_t)s * p, s, yk, 1, 1.0, z,
              1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, p, 1.0, M->W + k * (size_t)m * p, m, yk, 1, 0.0, vv,
              1);
  if (v) memcpy(v, vv, sizeof(double) * m);
  if (drift) *drift = M->pw[k] * cblas_dnrm2(p, yk, 1);
}

/* v = R y, z = G v + q at a decomposed point, drift = ||P v||.  With R from
 * a table (project = 1), v first loses its component along range(P(t)) --
 * the table's error, which the exact P removes -- so that z lies on the
 * manifold of the exact decomposition. */
static void lift(const lth_point *pt, const double *R, const double *ys, int m, int p, int s,
                 int project, double *z, double *v, double *drift, double *vv, double *w) {
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, p, 1.0, R, m, ys, 1, 0.0, vv, 1);
  if (project) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, pt->P.c, pt->P.ld, vv, 1, 0.0, w, 1);
    cblas_daxpy(m, -1.0, w, 1, vv, 1);
  }
  memcpy(z, pt->q.c, sizeof(double) * s);
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, m, 1.0, pt->G.c, pt->G.ld, vv, 1, 1.0, z, 1);
  if (v) memcpy(v, vv, sizeof(double) * m);
  if (drift) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, pt->P.c, pt->P.ld, vv, 1, 0.0, w, 1);
    *drift = cblas_dnrm2(m, w, 1);
  }
}

typedef struct {
  double *Gam, *gam, *R, *ys, *K, *vv, *w;
} scratch_t;

static scratch_t scratch(lth_colloc_ctx *cx, int m, int p) {
  scratch_t S;
  S.Gam = lth_colloc_scratch(cx);
  S.gam = S.Gam + (size_t)p * p;
  S.R = S.gam + p;
  S.ys = S.R + (size_t)m * p;
  S.K = S.ys + p;
  S.vv = S.K + (size_t)lth_colloc_ctx_tableau(cx)->s * p;
  S.w = S.vv + m;
  return S;
}

/* R_k(t) for the coordinates W_k from the coefficients the step to t used,
 * and the exact decomposition at t (*pt) for z; *project when they differ. */
static lth_status point_and_map(lth_colloc_ctx *cx, const double *Wk, double t, double *R,
                                const lth_point **pt, int *project, lth_error *err) {
  double rc = 0.0;
  const lth_point *pn = NULL;
  lth_status st = lth_colloc_node_point(cx, t, &pn, err);
  if (st == LTH_OK) st = lth_colloc_transfer(cx, pn, Wk, R, &rc, err);
  if (st == LTH_OK && rc == 0.0) {
    st = lth_error_set_t(err, LTH_ESING, t, "state-space basis lost at the output time");
  }
  if (st == LTH_OK) st = lth_colloc_point(cx, t, pt, err);
  *project = st == LTH_OK && *pt != pn;
  return st;
}

lth_status lth_cmesh_eval(lth_colloc_ctx *cx, const lth_cmesh *M, double t, int mode, double *z,
                          double *v, double *drift, lth_error *err) {
  int s = M->s, m = M->m, p = M->p;
  scratch_t S = scratch(cx, m, p);
  size_t k = locate(M, t);
  if (t == M->t[k]) {
    at_point(M, k, z, v, drift, S.vv);
    return LTH_OK;
  }
  const double *Wk = M->W + k * (size_t)m * p, *yk = M->y + k * (size_t)p;
  double rc = 0.0, h = M->t[k + 1] - M->t[k];
  lth_status st;
  if (mode == LTH_COLLOC_STEP) {
    st = lth_colloc_step(cx, Wk, M->t[k], t - M->t[k], S.Gam, S.gam, &rc, err);
    memcpy(S.ys, S.gam, sizeof(double) * p);
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, S.Gam, p, yk, 1, 1.0, S.ys, 1);
  } else {
    /* the collocation polynomial y_k + h sum_l a_l(tau) K_l, K = X_y y_k + X_d */
    const lth_colloc_tableau *tab = lth_colloc_ctx_tableau(cx);
    double al[LTH_COLLOC_MAX_STAGES];
    int sp = tab->s * p;
    st = lth_colloc_step(cx, Wk, M->t[k], h, S.Gam, S.gam, &rc, err);
    const double *X = lth_colloc_stage_map(cx);
    memcpy(S.K, X + (size_t)p * sp, sizeof(double) * sp);
    cblas_dgemv(CblasColMajor, CblasNoTrans, sp, p, 1.0, X, sp, yk, 1, 1.0, S.K, 1);
    lth_colloc_gauss_integrals(tab, (t - M->t[k]) / h, al);
    memcpy(S.ys, yk, sizeof(double) * p);
    for (int l = 0; l < tab->s; l++) cblas_daxpy(p, h * al[l], S.K + (size_t)l * p, 1, S.ys, 1);
  }
  if (st == LTH_OK && rc == 0.0) {
    st = lth_error_set_t(err, LTH_ESING, t, "collocation step to the output time failed");
  }
  const lth_point *pt;
  int project = 0;
  if (st == LTH_OK) st = point_and_map(cx, Wk, t, S.R, &pt, &project, err);
  if (st == LTH_OK) lift(pt, S.R, S.ys, m, p, s, project, z, v, drift, S.vv, S.w);
  return st;
}

lth_status lth_cmesh_eval_est(lth_colloc_ctx *cx, const lth_cmesh *M, const lth_cmesh *Mf,
                              const double *lev, double t, double *z, double *v, double *drift,
                              double *est, lth_error *err) {
  int s = M->s, m = M->m, p = M->p, st_s = lth_colloc_ctx_tableau(cx)->s;
  scratch_t S = scratch(cx, m, p);
  size_t k = locate(M, t);
  double *dy = S.K; /* y_k - y_{2k} of the halved mesh, then carried */
  const double *yk = M->y + k * (size_t)p;
  for (int i = 0; i < p; i++) dy[i] = yk[i] - Mf->y[2 * k * (size_t)p + i];
  if (t == M->t[k]) {
    at_point(M, k, z, v, drift, S.vv);
    *est = 0.0;
    for (int i = 0; i < s; i++) {
      *est = fmax(*est, fabs(cblas_ddot(p, M->GW + k * (size_t)s * p + i, s, dy, 1)));
    }
    return LTH_OK;
  }
  const double *Wk = M->W + k * (size_t)m * p;
  double rc = 0.0, h = M->t[k + 1] - M->t[k], tau = (t - M->t[k]) / h;
  lth_status st = lth_colloc_step(cx, Wk, M->t[k], t - M->t[k], S.Gam, S.gam, &rc, err);
  if (st == LTH_OK && rc == 0.0) {
    st = lth_error_set_t(err, LTH_ESING, t, "collocation step to the output time failed");
  }
  const lth_point *pt;
  int project = 0;
  if (st == LTH_OK) st = point_and_map(cx, Wk, t, S.R, &pt, &project, err);
  if (st != LTH_OK) return st;
  memcpy(S.ys, S.gam, sizeof(double) * p);
  cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, S.Gam, p, yk, 1, 1.0, S.ys, 1);
  lift(pt, S.R, S.ys, m, p, s, project, z, v, drift, S.vv, S.w);
  /* the error at t_k through the step: G R Gam dy (z errors), plus the step's own */
  double *gd = S.gam; /* free now */
  cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, S.Gam, p, dy, 1, 0.0, gd, 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, p, 1.0, S.R, m, gd, 1, 0.0, S.vv, 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, m, 1.0, pt->G.c, pt->G.ld, S.vv, 1, 0.0, S.w, 1);
  double e = 0.0, f = pow(tau, 2.0 * st_s + 1.0); /* S.w: s entries (m + s + mp after vv) */
  for (int i = 0; i < s; i++) e = fmax(e, fabs(S.w[i] + f * lev[k * (size_t)s + i]));
  *est = e;
  return LTH_OK;
}
