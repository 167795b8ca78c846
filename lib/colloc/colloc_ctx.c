/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local pieces of Gauss collocation of the reduced ODE (lib/colloc/colloc.h):
 * the decomposition at a time, the state-space basis, the coordinate map
 * R = T (W'T)^{-1} and one Gauss step with its stages eliminated.
 *
 * Coordinates (docs/collocation.md section 2): on an interval starting at a
 * with W an orthonormal basis of range(I - P(a)), y = W' v.  Since v(t) lies
 * in range(I - P(t)) (Clark Theorem 2) and W' is injective there while the
 * subspace has turned by less than 90 degrees, v = R(t) y, and
 *     y' = W' v' = W' (Ahat v + g) = C(t) y + d(t),   C = W' Ahat R,  d = W' g,
 * an ordinary p-dimensional ODE with smooth coefficients (no derivative of P
 * is needed, W being constant).  Collocation at the Gauss points c_j:
 *     K_j = C_j (y + h sum_l a_jl K_l) + d_j,   y(a + h) = y + h sum_j b_j K_j.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc.h"
#include "ivp/ivp_coef.h"

struct lth_colloc_ctx {
  const lth_system *sys;
  int s, m, p, st; /* DAE size, state dimension, manifold dimension, stages */
  lth_colloc_tableau tab;
  lth_coef *coef;  /* direct decompositions: mesh points and output times */
  lth_coef *nodes; /* coefficient table for the Gauss nodes (NULL: direct there too) */
  /* work */
  double *ImP, *sv, *U, *svwork;
  lapack_int svlwork;
  double *T, *WT, *AR, *C, *d, *M, *X, *cwork, *scratch;
  lapack_int *ipiv, *iwork;
  size_t dropped; /* decompositions of a table given up (lth_colloc_ctx_drop_table) */
  double *points; /* npoints intervals [lo, hi] around non-smooth points of the data */
  size_t npoints;
};

void lth_colloc_ctx_free(lth_colloc_ctx *cx) {
  if (!cx) return;
  lth_coef_free(cx->coef);
  lth_coef_free(cx->nodes);
  free(cx->ImP);
  free(cx->svwork);
  free(cx->scratch);
  free(cx->ipiv);
  free(cx->points);
  free(cx);
}

lth_colloc_ctx *lth_colloc_ctx_alloc(const lth_system *sys, int stages, const lth_ivp_opts *io,
                                     double t0, double t1, lth_error *err) {
  lth_colloc_ctx *cx = calloc(1, sizeof *cx);
  if (!cx) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  cx->sys = sys;
  cx->s = lth_system_size(sys);
  cx->m = lth_system_state_dim(sys);
  cx->p = lth_system_manifold_dim(sys);
  cx->st = stages;
  if (lth_colloc_gauss(stages, &cx->tab, err) != LTH_OK) {
    free(cx);
    return NULL;
  }
  int m = cx->m, p = cx->p;
  size_t mm = (size_t)m * m, mp = (size_t)m * p, sp = (size_t)stages * p;
  /* SVD work size (query) */
  double q = 0.0;
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'N', m, m, NULL, m, NULL, NULL, m,
                                        NULL, 1, &q, -1);
  cx->svlwork = info == 0 ? (lapack_int)q + 8 * m + 8 : 8 * m * m + 64;
  cx->ImP = malloc(sizeof(double) * (2 * mm + m + 3 * mp + (size_t)p * p + stages * (size_t)p * p +
                                     sp + sp * sp + sp * (p + 1) + 4 * sp + 1));
  cx->svwork = malloc(sizeof(double) * ((size_t)cx->svlwork + 1));
  cx->scratch = malloc(sizeof(double) *
                       ((p + 3) * (size_t)p + 2 * mp + sp + 2 * (size_t)m + (size_t)cx->s + 1));
  cx->ipiv = malloc(sizeof(lapack_int) * (2 * sp + p + 1));
  /* mesh points decompose directly (exact W, G, q: no drift), the Gauss
   * nodes read a table unless the caller asked for direct coefficients */
  lth_ivp_opts direct = *io;
  direct.coefficients = LTH_COEF_DIRECT;
  cx->coef = lth_coef_alloc(sys, lth_system_is_exact(sys) ? &direct : io, 0, t0, t1, err);
  if (cx->coef && lth_system_is_exact(sys) && io->coefficients != LTH_COEF_DIRECT) {
    lth_ivp_opts tab = *io;
    tab.coefficients = LTH_COEF_TABLE;
    cx->nodes = lth_coef_alloc_ex(sys, &tab, 0, 1, t0, t1, err); /* Ahat, g, P only */
    if (!cx->nodes) {
      lth_coef_free(cx->coef);
      cx->coef = NULL;
    }
  }
  if (!cx->ImP || !cx->svwork || !cx->scratch || !cx->ipiv || !cx->coef) {
    if (cx->coef) lth_error_set(err, LTH_ENOMEM, "out of memory");
    lth_colloc_ctx_free(cx);
    return NULL;
  }
  cx->U = cx->ImP + mm;
  cx->sv = cx->U + mm;
  cx->T = cx->sv + m;                     /* m x p */
  cx->AR = cx->T + mp;                    /* m x p */
  cx->WT = cx->AR + mp;                   /* p x p, then (m x p spare) */
  cx->C = cx->WT + (size_t)p * p + mp;    /* stages blocks p x p */
  cx->d = cx->C + (size_t)stages * p * p; /* sp */
  cx->M = cx->d + sp;                     /* sp x sp */
  cx->X = cx->M + sp * sp;                /* sp x (p + 1) */
  cx->cwork = cx->X + sp * (p + 1);       /* 4 sp */
  cx->iwork = cx->ipiv + sp;              /* sp + p + 1 */
  return cx;
}

size_t lth_colloc_ctx_decomps(const lth_colloc_ctx *cx) {
  size_t n = 0, n_nodes = 0;
  lth_coef_stats(cx->coef, &n, NULL);
  if (cx->nodes) lth_coef_stats(cx->nodes, &n_nodes, NULL);
  return n + n_nodes + cx->dropped;
}

int lth_colloc_ctx_has_table(const lth_colloc_ctx *cx) { return cx->nodes != NULL; }

double lth_colloc_table_tol(double tol) { return fmax(3e-15, fmin(1e-13, 1e-4 * tol)); }

int lth_colloc_ctx_drop_table(lth_colloc_ctx *cx) {
  if (!cx->nodes) return 0;
  lth_coef_stats(cx->nodes, &cx->dropped, NULL);
  lth_coef_free(cx->nodes);
  cx->nodes = NULL;
  return 1;
}

void lth_colloc_ctx_dims(const lth_colloc_ctx *cx, int *s, int *m, int *p) {
  *s = cx->s;
  *m = cx->m;
  *p = cx->p;
}

const lth_system *lth_colloc_ctx_system(const lth_colloc_ctx *cx) { return cx->sys; }

lth_status lth_colloc_ctx_set_points(lth_colloc_ctx *cx, const double *lohi, size_t n,
                                     lth_error *err) {
  free(cx->points);
  cx->points = NULL;
  cx->npoints = 0;
  if (n == 0) return LTH_OK;
  cx->points = malloc(2 * n * sizeof(double));
  if (!cx->points) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  memcpy(cx->points, lohi, 2 * n * sizeof(double));
  cx->npoints = n;
  return LTH_OK;
}

/* [a, b] inside one of the intervals around a non-smooth point? */
static int at_point(const lth_colloc_ctx *cx, double a, double b) {
  size_t lo = 0, hi = cx->npoints;
  while (lo < hi) { /* the first interval whose end is above a */
    size_t mid = lo + (hi - lo) / 2;
    if (cx->points[2 * mid + 1] <= a) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < cx->npoints && cx->points[2 * lo] <= a && b <= cx->points[2 * lo + 1];
}

const lth_colloc_tableau *lth_colloc_ctx_tableau(const lth_colloc_ctx *cx) { return &cx->tab; }

const double *lth_colloc_stage_map(const lth_colloc_ctx *cx) { return cx->X; }

double *lth_colloc_scratch(lth_colloc_ctx *cx) { return cx->scratch; }

lth_status lth_colloc_point(lth_colloc_ctx *cx, double t, const lth_point **pt, lth_error *err) {
  return lth_coef_eval_full(cx->coef, t, pt, err);
}

lth_status lth_colloc_node_point(lth_colloc_ctx *cx, double t, const lth_point **pt,
                                 lth_error *err) {
  /* the steps use Ahat, g and P only: no output maps from the table */
  return cx->nodes ? lth_coef_eval(cx->nodes, t, 0, pt, err)
                   : lth_coef_eval_full(cx->coef, t, pt, err);
}

/* W: the left singular vectors of I - P for its p largest singular values
 * (as lth_state_basis, without allocation). */
lth_status lth_colloc_basis(lth_colloc_ctx *cx, const lth_point *pt, double *W, lth_error *err) {
  int m = cx->m, p = cx->p;
  if (p == 0) return LTH_OK;
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      cx->ImP[i + (size_t)j * m] = (i == j ? 1.0 : 0.0) - LTH_JET_AT(&pt->P, 0, i, j);
    }
  }
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'S', 'N', m, m, cx->ImP, m, cx->sv, cx->U,
                                        m, NULL, 1, cx->svwork, cx->svlwork);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, pt->t, "SVD of I - P failed (info %d)", (int)info);
  }
  if (!(cx->sv[p - 1] > 1e-10 * cx->sv[0])) {
    return lth_error_set_t(err, LTH_EVERIFY, pt->t, "rank(I - P) < p = %d", p);
  }
  memcpy(W, cx->U, sizeof(double) * (size_t)m * p);
  return LTH_OK;
}

/* Reciprocal 1-norm condition of an LU-factored n x n matrix (anorm its
 * 1-norm).  dgecon costs more than everything else a Gauss node does for
 * the small matrices here (its triangular solves go through BLAS calls that
 * allocate and lock), so it runs only when the cheap lower bound on the
 * condition, max|u_ii| / min|u_ii| (<= ||U|| ||U^{-1}||), is above 1e4: below
 * that the true condition cannot be near the thresholds used (1e12 and 1e14)
 * except for matrices built to defeat partial pivoting, and the estimate
 * returned is min|u_ii| / anorm. */
static double lu_rcond(const double *LU, int n, int ld, double anorm, double *work,
                       lapack_int *iwork) {
  double umin = INFINITY, umax = 0.0;
  for (int i = 0; i < n; i++) {
    double u = fabs(LU[i + (size_t)i * ld]);
    umin = fmin(umin, u);
    umax = fmax(umax, u);
  }
  if (!(umin > 0.0) || !(anorm > 0.0)) return 0.0;
  if (umax <= 1e4 * umin) return fmin(1.0, umin / anorm);
  double rc = 0.0;
  LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', n, LU, ld, anorm, &rc, work, iwork);
  return rc;
}

lth_status lth_colloc_transfer(lth_colloc_ctx *cx, const lth_point *pt, const double *W, double *R,
                               double *rc, lth_error *err) {
  (void)err; /* no failure modes: a lost basis is reported through rc */
  int m = cx->m, p = cx->p;
  /* T = (I - P) W = W - P W */
  memcpy(cx->T, W, sizeof(double) * (size_t)m * p);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, p, m, -1.0, pt->P.c, pt->P.ld, W, m,
              1.0, cx->T, m);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, m, 1.0, W, m, cx->T, m, 0.0, cx->WT,
              p);
  double anorm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', p, p, cx->WT, p, NULL);
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, p, p, cx->WT, p, cx->ipiv);
  *rc = info == 0 ? lu_rcond(cx->WT, p, p, anorm, cx->cwork, cx->iwork) : 0.0;
  if (info != 0 || !(*rc > 1e-12)) {
    *rc = 0.0; /* W is no basis at t: the caller refines (not an error of the problem) */
    memset(R, 0, sizeof(double) * (size_t)m * p);
    return LTH_OK;
  }
  /* R = T (W'T)^{-1}:  R' = (W'T)^{-T} T'  ->  solve (W'T)' R' = T' via the LU, i.e. R (W'T) = T */
  memcpy(R, cx->T, sizeof(double) * (size_t)m * p);
  cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, m, p, 1.0, cx->WT,
              p, R, m);
  cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasUnit, m, p, 1.0, cx->WT, p,
              R, m);
  /* undo the row interchanges of W'T = P L U: R = T U^{-1} L^{-1} P' */
  for (int j = p - 1; j >= 0; j--) {
    int pj = cx->ipiv[j] - 1;
    if (pj != j) cblas_dswap(m, R + (size_t)j * m, 1, R + (size_t)pj * m, 1);
  }
  return LTH_OK;
}

/* A step inside the interval around a non-smooth point: Gam = I, gam = 0,
 * no stage derivatives (lth_colloc_ctx_set_points). */
static lth_status step_across(const lth_colloc_ctx *cx, double *Gam, double *gam, double *rc) {
  int p = cx->p;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) Gam[i + (size_t)j * p] = i == j ? 1.0 : 0.0;
    gam[j] = 0.0;
  }
  memset(cx->X, 0, sizeof(double) * (size_t)cx->st * p * (p + 1));
  *rc = 1.0;
  return LTH_OK;
}

/* A step the interval cannot carry (basis lost, singular stages): rc = 0,
 * Gam = I, gam = 0, and the caller refines the interval. */
static lth_status step_failed(const lth_colloc_ctx *cx, double *Gam, double *gam, double *rc) {
  int p = cx->p;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) Gam[i + (size_t)j * p] = i == j ? 1.0 : 0.0;
    gam[j] = 0.0;
  }
  *rc = 0.0;
  return LTH_OK;
}

lth_status lth_colloc_step(lth_colloc_ctx *cx, const double *W, double a, double h, double *Gam,
                           double *gam, double *rc, lth_error *err) {
  int m = cx->m, p = cx->p, st = cx->st;
  int sp = st * p, ldx = sp;
  size_t pp = (size_t)p * p;
  const lth_colloc_tableau *tab = &cx->tab;
  double rmin = 1.0, r;
  lth_status status = LTH_OK;
  if (cx->npoints > 0 && at_point(cx, a, a + h)) return step_across(cx, Gam, gam, rc);
  for (int j = 0; j < st && status == LTH_OK; j++) {
    const lth_point *pt;
    status = lth_colloc_node_point(cx, a + tab->c[j] * h, &pt, err);
    double *R = cx->WT + pp; /* m x p spare after W'T */
    if (status == LTH_OK) status = lth_colloc_transfer(cx, pt, W, R, &r, err);
    if (status != LTH_OK) break;
    rmin = fmin(rmin, r);
    if (r == 0.0) return step_failed(cx, Gam, gam, rc);
    /* C_j = W' Ahat R,  d_j = W' g */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, p, m, 1.0, pt->Ahat.c, pt->Ahat.ld, R,
                m, 0.0, cx->AR, m);
    double *Cj = cx->C + (size_t)j * pp;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, m, 1.0, W, m, cx->AR, m, 0.0, Cj, p);
    cblas_dgemv(CblasColMajor, CblasTrans, m, p, 1.0, W, m, pt->g.c, 1, 0.0, cx->d + (size_t)j * p,
                1);
  }
  if (status != LTH_OK) return status;
  /* M: block (j, l) = delta_jl I - h a_jl C_j;  X: block row j = [C_j | d_j] */
  for (int j = 0; j < st; j++) {
    const double *Cj = cx->C + (size_t)j * pp;
    for (int l = 0; l < st; l++) {
      double f = -h * tab->A[j + (size_t)l * st];
      for (int jj = 0; jj < p; jj++) {
        for (int ii = 0; ii < p; ii++) {
          cx->M[(size_t)j * p + ii + ((size_t)l * p + jj) * ldx] =
              f * Cj[ii + (size_t)jj * p] + (j == l && ii == jj ? 1.0 : 0.0);
        }
      }
    }
    for (int jj = 0; jj < p; jj++) {
      memcpy(cx->X + (size_t)j * p + (size_t)jj * ldx, Cj + (size_t)jj * p, sizeof(double) * p);
    }
    memcpy(cx->X + (size_t)j * p + (size_t)p * ldx, cx->d + (size_t)j * p, sizeof(double) * p);
  }
  double anorm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', sp, sp, cx->M, ldx, NULL);
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, sp, sp, cx->M, ldx, cx->ipiv);
  r = info == 0 ? lu_rcond(cx->M, sp, ldx, anorm, cx->cwork, cx->iwork) : 0.0;
  if (info != 0 || !(r > 1e-14)) return step_failed(cx, Gam, gam, rc);
  rmin = fmin(rmin, r);
  LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', sp, p + 1, cx->M, ldx, cx->ipiv, cx->X, ldx);
  /* Gam = I + h sum_j b_j X_y[j],  gam = h sum_j b_j X_d[j] */
  for (int jj = 0; jj <= p; jj++) {
    double *out = jj < p ? Gam + (size_t)jj * p : gam;
    for (int ii = 0; ii < p; ii++) {
      double v = 0.0;
      for (int j = 0; j < st; j++) v += tab->b[j] * cx->X[(size_t)j * p + ii + (size_t)jj * ldx];
      out[ii] = h * v + (jj < p && ii == jj ? 1.0 : 0.0);
    }
  }
  *rc = rmin;
  return LTH_OK;
}
