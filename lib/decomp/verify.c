/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Verification of a decomposition at a point: docs/theory.md section 4. */
#include "lth/verify.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_impl.h"

/* Singular values below this fraction of the largest count as zero. */
#define RANK_TOL 1e-10

struct lth_verify_ws {
  int r, s, m;
  lth_jet Zm;     /* [Nhat + Bhat | q], s x (m+1), order 1 */
  lth_jet R;      /* residual, s x (m+1), order 0 */
  lth_jet dP;     /* P', m x m, order 0 */
  lth_jet T1, T2; /* s x s scratch, order 0 */
  double *svd;    /* s*(s+1) + s + 1 doubles: the matrix and its singular values */
  double *work;   /* dgesvd workspace, sized at alloc for the largest matrix (G) */
  lapack_int lwork;
};

lth_verify_ws *lth_verify_ws_alloc(const lth_system *sys, lth_error *err) {
  lth_verify_ws *vw = calloc(1, sizeof *vw);
  if (!vw) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a verification workspace");
    return NULL;
  }
  vw->r = lth_system_index(sys);
  vw->s = lth_system_size(sys);
  vw->m = lth_system_state_dim(sys);
  int s = vw->s, W = vw->m + 1;
  lth_status st = lth_jet_init(&vw->Zm, s, W, 1, err);
  if (st == LTH_OK) st = lth_jet_init(&vw->R, s, W, 0, err);
  if (st == LTH_OK) st = lth_jet_init(&vw->dP, vw->m, vw->m, 0, err);
  if (st == LTH_OK) st = lth_jet_init(&vw->T1, s, s + 1, 0, err);
  if (st == LTH_OK) st = lth_jet_init(&vw->T2, s, s + 1, 0, err);
  if (st == LTH_OK) {
    /* the largest SVD is of G (s x m); the P_i are smaller */
    double q = 0.0;
    lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', s, vw->m, NULL, s, NULL, NULL,
                                          1, NULL, 1, &q, -1);
    vw->lwork = info == 0 ? (lapack_int)q + 1 : 5 * (s + vw->m) + 1;
    vw->svd = malloc(((size_t)s * (size_t)(s + 1) + (size_t)s + 1) * sizeof(double));
    vw->work = malloc((size_t)vw->lwork * sizeof(double));
    if (!vw->svd || !vw->work) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st != LTH_OK) {
    lth_verify_ws_free(vw);
    return NULL;
  }
  return vw;
}

void lth_verify_ws_free(lth_verify_ws *vw) {
  if (!vw) return;
  lth_jet_release(&vw->Zm);
  lth_jet_release(&vw->R);
  lth_jet_release(&vw->dP);
  lth_jet_release(&vw->T1);
  lth_jet_release(&vw->T2);
  free(vw->svd);
  free(vw->work);
  free(vw);
}

static lth_jet sub0(const lth_jet *J, int r0, int c0, int rows, int cols) {
  lth_jet V = lth_jet_view(J, r0, c0, rows, cols);
  V.order = 0;
  return V;
}

static double ratio(double num, double den) {
  return num == 0.0 ? 0.0 : num / (den > DBL_MIN ? den : DBL_MIN);
}

/* C = alpha A B + beta C at order 0, returning ||C||_1. */
static double gemm0(double alpha, const lth_jet *A, const lth_jet *B, double beta, lth_jet *C) {
  lth_jet a = *A, b = *B;
  a.order = 0;
  b.order = 0;
  C->order = 0;
  lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, alpha, &a, &b, beta, C, NULL);
  return lth_jet_norm1(C, 0);
}

/* Singular values of coefficient 0 of J (rows x cols) into sv (min(rows, cols)). */
static int singular_values(lth_verify_ws *vw, const lth_jet *J, double *sv) {
  int rows = J->rows, cols = J->cols, k = rows < cols ? rows : cols;
  if (k == 0) return 0;
  double *a = vw->svd;
  for (int j = 0; j < cols; j++)
    memcpy(a + (size_t)j * rows, &LTH_JET_AT(J, 0, 0, j), (size_t)rows * sizeof(double));
  /* no allocation per point: the _work variant with the workspace sized at alloc */
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', rows, cols, a, rows, sv, NULL,
                                        1, NULL, 1, vw->work, vw->lwork);
  return info == 0 ? k : -1;
}

/* Singular values above RANK_TOL * scale; scale comes from the data that
 * make the matrix (a projector P_i has sigma_1 >= 1, so its own sigma_1 serves). */
static int numerical_rank(const double *sv, int k, double scale) {
  int rank = 0;
  for (int i = 0; i < k; i++) rank += sv[i] > RANK_TOL * scale;
  return rank;
}

/* Theorem 3 (docs/theory.md §4 item 3): residual of z = (Nhat + Bhat) v + q along v' = Ahat v + g.
 */
static lth_status theorem3(lth_verify_ws *vw, const lth_decomp_ws *ws, const lth_point *pt,
                           lth_verify_report *rep, lth_error *err) {
  int s = vw->s, m = vw->m, W = m + 1;
  lth_jet Zb = lth_jet_view(&vw->Zm, 0, 0, s, m), Zq = lth_jet_view(&vw->Zm, 0, m, s, 1);
  lth_status st = lth_jet_copy(&Zb, &pt->Bhat, err);
  if (st == LTH_OK) st = lth_jet_copy(&Zq, &pt->q, err);
  if (st != LTH_OK) return st;
  vw->Zm.order = 1;
  for (int k = 0; k < m; k++) LTH_JET_AT(&vw->Zm, 0, k, k) += 1.0;
  /* D[Zm] = Zm' + Zm(:, 1:m) [Ahat | g], at order 0, into R */
  lth_jet Y = sub0(&vw->T2, 0, 0, m, W);
  lth_jet Ya = sub0(&vw->T2, 0, 0, m, m), Yg = sub0(&vw->T2, 0, m, m, 1);
  lth_jet_copy(&Ya, &pt->Ahat, NULL);
  lth_jet_copy(&Yg, &pt->g, NULL);
  for (int j = 0; j < W; j++)
    for (int i = 0; i < s; i++) LTH_JET_AT(&vw->R, 0, i, j) = LTH_JET_AT(&vw->Zm, 1, i, j);
  double nDZ = gemm0(1.0, &Zb, &Y, 1.0, &vw->R);
  for (int j = 0; j < W; j++)
    for (int i = m; i < s; i++) LTH_JET_AT(&vw->R, 0, i, j) = 0.0; /* E = diag(I, 0) */
  /* R -= A Zm;  R(:, m) -= f.  The scale is the size of the terms that cancel,
   * ||E D[Z]|| + ||A Z|| + ||f||, so the ratio is a multiple of the roundoff. */
  lth_jet Zm0 = sub0(&vw->Zm, 0, 0, s, W), AZ = sub0(&vw->T1, 0, 0, s, W);
  lth_jet A0 = sub0(&ws->A, 0, 0, s, s), f0 = sub0(&ws->f, 0, 0, s, 1);
  double scale = nDZ + gemm0(1.0, &A0, &Zm0, 0.0, &AZ) + lth_jet_norm1(&f0, 0);
  lth_jet_axpy(-1.0, &AZ, &vw->R, NULL);
  for (int i = 0; i < s; i++) LTH_JET_AT(&vw->R, 0, i, m) -= LTH_JET_AT(&ws->f, 0, i, 0);
  lth_jet c = sub0(&vw->R, 0, m, s, 1), M = sub0(&vw->R, 0, 0, s, m);
  rep->theorem3_affine = ratio(lth_jet_norm1(&c, 0), scale);
  /* M (I - P) = M - M P */
  lth_jet MP = sub0(&vw->T1, 0, 0, s, m), P0 = sub0(&pt->P, 0, 0, m, m);
  lth_jet_copy(&MP, &M, NULL);
  rep->theorem3_linear = ratio(gemm0(-1.0, &M, &P0, 1.0, &MP), scale);
  return LTH_OK;
}

/* (2.5): P_i^2 = P_i, P_1 A_1r = A_1r, P_i A_{i,i-1} = A_{i,i-1} P_{i-1}, A_{r,r-1} P_{r-1} =
 * A_{r,r-1}. */
static void projector_identities(lth_verify_ws *vw, const lth_decomp_ws *ws, const lth_point *pt,
                                 lth_verify_report *rep) {
  int r = vw->r;
  rep->idempotent = rep->commute = 0.0;
  rep->rank_P_ok = 1;
  for (int i = 1; i < r; i++) {
    int oi = ws->off[i - 1], ni = ws->n[i - 1];
    lth_jet Pi_ = sub0(&pt->P, oi, oi, ni, ni), T = sub0(&vw->T1, 0, 0, ni, ni);
    lth_jet_copy(&T, &Pi_, NULL);
    double e = ratio(gemm0(1.0, &Pi_, &Pi_, -1.0, &T), lth_jet_norm1(&Pi_, 0));
    rep->idempotent = e > rep->idempotent ? e : rep->idempotent;
    double sv[ni > 0 ? ni : 1];
    int k = singular_values(vw, &Pi_, sv);
    int rank = k > 0 ? numerical_rank(sv, k, sv[0]) : -1;
    if (rank != ws->nr) rep->rank_P_ok = 0;
    /* left: P_i A_{i,i-1} (A_1r for i = 1); right: A_{i,i-1} P_{i-1} (A_1r) */
    int cj = i == 1 ? r : i - 1;
    lth_jet a = sub0(&ws->A, oi, ws->off[cj - 1], ni, ws->n[cj - 1]);
    lth_jet L = sub0(&vw->T1, 0, 0, ni, a.cols);
    double scale = lth_jet_norm1(&Pi_, 0) * lth_jet_norm1(&a, 0);
    if (i == 1) {
      lth_jet_copy(&L, &a, NULL);
    } else {
      lth_jet Pp = sub0(&pt->P, ws->off[i - 2], ws->off[i - 2], ws->n[i - 2], ws->n[i - 2]);
      gemm0(1.0, &a, &Pp, 0.0, &L);
      scale += lth_jet_norm1(&a, 0) * lth_jet_norm1(&Pp, 0);
    }
    e = ratio(gemm0(1.0, &Pi_, &a, -1.0, &L), scale);
    rep->commute = e > rep->commute ? e : rep->commute;
  }
  /* A_{r,r-1} P_{r-1} = A_{r,r-1} */
  int o = ws->off[r - 2], n = ws->n[r - 2];
  lth_jet a = sub0(&ws->A, ws->off[r - 1], o, ws->nr, n);
  lth_jet Pl = sub0(&pt->P, o, o, n, n), L = sub0(&vw->T1, 0, 0, ws->nr, n);
  lth_jet_copy(&L, &a, NULL);
  double e = ratio(gemm0(1.0, &a, &Pl, -1.0, &L), lth_jet_norm1(&a, 0) * lth_jet_norm1(&Pl, 0) + lth_jet_norm1(&a, 0));
  rep->commute = e > rep->commute ? e : rep->commute;
}

/* Theorem 1 as one matrix test: (P' + P Ahat)(I - P) = 0 and P g = 0.  Each
 * residual is relative to the size of the data that enter it, never to the
 * quantity itself: g is made of A q + f - q' (Clark (3.6), affine part), so a
 * g that is rounding noise (p = 0: g = 0 exactly) is measured against those,
 * and Ahat against A as well as itself. */
static lth_status structure(lth_verify_ws *vw, const lth_decomp_ws *ws, const lth_point *pt,
                            lth_verify_report *rep, lth_error *err) {
  int m = vw->m, s = vw->s;
  lth_status st = lth_jet_deriv(&vw->dP, &pt->P, err);
  if (st != LTH_OK) return st;
  lth_jet P0 = sub0(&pt->P, 0, 0, m, m), A0 = sub0(&pt->Ahat, 0, 0, m, m);
  lth_jet g0 = sub0(&pt->g, 0, 0, m, 1);
  lth_jet S = sub0(&vw->T1, 0, 0, m, m), T = sub0(&vw->T2, 0, 0, m, m);
  lth_jet Ain = sub0(&ws->A, 0, 0, s, s), fin = sub0(&ws->f, 0, 0, s, 1);
  lth_jet q0 = sub0(&pt->q, 0, 0, s, 1), q1 = lth_jet_view(&pt->q, 0, 0, s, 1);
  double dq = 0.0;
  for (int i = 0; i < s; i++) dq += fabs(LTH_JET_AT(&q1, 1, i, 0));
  double nA = lth_jet_norm1(&Ain, 0), nP = lth_jet_norm1(&P0, 0);
  double scale = lth_jet_norm1(&vw->dP, 0) + nP * (lth_jet_norm1(&A0, 0) + nA);
  double scale_g = nP * (lth_jet_norm1(&g0, 0) + nA * lth_jet_norm1(&q0, 0) + lth_jet_norm1(&fin, 0) + dq);
  lth_jet_copy(&S, &vw->dP, NULL);
  gemm0(1.0, &P0, &A0, 1.0, &S); /* S = P' + P Ahat */
  lth_jet_copy(&T, &S, NULL);
  double e1 = ratio(gemm0(-1.0, &S, &P0, 1.0, &T), scale); /* S (I - P) */
  lth_jet Pg = sub0(&vw->T1, 0, 0, m, 1);
  double e2 = ratio(gemm0(1.0, &P0, &g0, 0.0, &Pg), scale_g);
  rep->structure = e1 > e2 ? e1 : e2;
  return LTH_OK;
}

lth_status lth_verify_at(lth_verify_ws *vw, const lth_decomp_ws *ws, const lth_point *pt,
                         lth_verify_report *rep, lth_error *err) {
  memset(rep, 0, sizeof *rep);
  rep->t = pt->t;
  if (pt->order < 1) {
    return lth_error_set_t(err, LTH_EORDER, pt->t,
                           "verification needs results of order >= 1 (got %d)", pt->order);
  }
  if (vw->s != pt->s || vw->m != pt->m) {
    return lth_error_set(err, LTH_EDIM, "verification workspace of another system");
  }
  lth_status st = theorem3(vw, ws, pt, rep, err);
  if (st == LTH_OK) st = structure(vw, ws, pt, rep, err);
  if (st != LTH_OK) return st;
  projector_identities(vw, ws, pt, rep);
  double sv[vw->m > 0 ? vw->m : 1];
  int k = singular_values(vw, &pt->G, sv);
  /* relative to the size of Nhat + Bhat and P, never to sigma_1(G): with p = 0
   * G is rounding noise (lth_point_rank_scale) */
  rep->rank_G = k > 0 ? numerical_rank(sv, k, lth_point_rank_scale(pt)) : 0;
  int p = pt->p;
  /* sigma_p = 0: G has lost rank p (rank_G says so); no gap at all, not 0/0 */
  rep->sv_gap = (p < k && p > 0) ? (sv[p - 1] > 0.0 ? sv[p] / sv[p - 1] : 1.0) : 0.0;
  double w[] = {rep->theorem3_linear, rep->theorem3_affine, rep->idempotent, rep->commute,
                rep->structure};
  rep->worst = 0.0;
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
    rep->worst = w[i] > rep->worst ? w[i] : rep->worst;
  return LTH_OK;
}
