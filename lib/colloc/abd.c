/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Structured orthogonal factorisation of the condensed collocation system
 * (lib/colloc/abd.h).  Step k (1 <= k < N) holds the running equation
 *     a y_0 + b y_k = r                                   (p rows)
 * and row block k, -F_k y_k + y_{k+1} = f_k.  A Householder QR of the column
 * [b; -F_k] (2p x p) turns the pair into
 *     R_k y_k + S_k y_0 + T_k y_{k+1} = rho_k              (kept for back-substitution)
 *     a' y_0 + b' y_{k+1} = r'                             (the next running equation).
 * The running equation starts as row block 0: a = -F_0, b = I, r = f_0.
 */
#include "abd.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lth_abd {
  int p, nb;
  size_t N;
  double *qr;    /* N-1 blocks 2p x p (ld 2p): Householder vectors and R_k */
  double *tau;   /* N-1 blocks p */
  double *S, *T; /* N-1 blocks p x p: coefficients of y_0 and y_{k+1} in the kept rows */
  double *sc;    /* N blocks p: scaling of the running rows after step k (k = 0: row block 0) */
  double *K;     /* (nb + p) x 2p: the reduced matrix, rows scaled to unit length */
  double *rs;    /* nb + p: those row scales */
  double *U, *sv, *Vt; /* SVD of K: (nb+p) x (nb+p), 2p, 2p x 2p */
  int rank;
  double *work; /* 2p x 3p step matrix, then LAPACK work */
  lapack_int lwork;
};

void lth_abd_free(lth_abd *a) {
  if (!a) return;
  free(a->qr);
  free(a->K);
  free(a->work);
  free(a);
}

lth_abd *lth_abd_alloc(int p, int nb, size_t N, lth_error *err) {
  lth_abd *a = calloc(1, sizeof *a);
  if (!a || p < 1 || nb < p || N < 1) {
    if (a)
      lth_error_set(err, LTH_EINVAL, "ABD solver: need p >= 1, rows >= p, N >= 1");
    else
      lth_error_set(err, LTH_ENOMEM, "out of memory");
    free(a);
    return NULL;
  }
  a->p = p;
  a->nb = nb;
  a->N = N;
  size_t pp = (size_t)p * p, steps = N - 1, rows = (size_t)nb + p;
  a->qr = malloc(sizeof(double) * (steps * (2 * pp + p + 2 * pp) + N * p + 1));
  a->K = malloc(sizeof(double) * (rows * 2 * p + rows + rows * rows + 2 * p + 4 * pp + 1));
  /* LAPACK work: generous for dgeqrf/dormqr (block size 64) and dgesvd */
  a->lwork = (lapack_int)(64 * (3 * (size_t)p + rows) + 5 * rows + 16 * (size_t)p + 64 +
                          rows * 2 * (size_t)p);
  a->work = malloc(sizeof(double) * (6 * pp + (size_t)a->lwork));
  if (!a->qr || !a->K || !a->work) {
    lth_abd_free(a);
    lth_error_set(err, LTH_ENOMEM, "out of memory for the collocation system (%zu intervals)", N);
    return NULL;
  }
  a->tau = a->qr + steps * 2 * pp;
  a->S = a->tau + steps * p;
  a->T = a->S + steps * pp;
  a->sc = a->T + steps * pp;
  a->rs = a->K + rows * 2 * p;
  a->U = a->rs + rows;
  a->sv = a->U + rows * rows;
  a->Vt = a->sv + 2 * p;
  return a;
}

/* Scale each row of the p x p pair (A, B) (ld lda, ldb) to unit max-norm;
 * the scales go to s (1 for a zero row). */
static void scale_rows(int p, double *A, int lda, double *B, int ldb, double *s) {
  for (int i = 0; i < p; i++) {
    double mx = 0.0;
    for (int j = 0; j < p; j++) {
      mx = fmax(mx, fmax(fabs(A[i + (size_t)j * lda]), fabs(B[i + (size_t)j * ldb])));
    }
    s[i] = mx > 0.0 ? 1.0 / mx : 1.0;
    for (int j = 0; j < p; j++) {
      A[i + (size_t)j * lda] *= s[i];
      B[i + (size_t)j * ldb] *= s[i];
    }
  }
}

lth_status lth_abd_factor(lth_abd *a, const double *F, const double *D0, const double *DN,
                          lth_error *err) {
  int p = a->p, nb = a->nb, p2 = 2 * p, rows = nb + p;
  size_t pp = (size_t)p * p;
  double *Mk = a->work, *lw = a->work + 6 * pp;                 /* Mk: 2p x 3p, ld 2p */
  double *ra = Mk + (size_t)p2 * p, *rb = Mk + (size_t)p2 * p2; /* running a, b: top rows */
  /* row block 0 starts the running equation: a = -F_0, b = I */
  memset(Mk, 0, sizeof(double) * 6 * pp);
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) ra[i + (size_t)j * p2] = -F[i + (size_t)j * p];
    rb[j + (size_t)j * p2] = 1.0;
  }
  scale_rows(p, ra, p2, rb, p2, a->sc);
  for (size_t k = 1; k < a->N; k++) {
    const double *Fk = F + k * pp;
    double *qr = a->qr + (k - 1) * 2 * pp, *tau = a->tau + (k - 1) * p;
    /* first block column: [b; -F_k];  the others: [a 0; 0 I] */
    for (int j = 0; j < p; j++) {
      for (int i = 0; i < p; i++) {
        qr[i + (size_t)j * p2] = rb[i + (size_t)j * p2];
        qr[p + i + (size_t)j * p2] = -Fk[i + (size_t)j * p];
        ra[p + i + (size_t)j * p2] = 0.0;
        rb[i + (size_t)j * p2] = 0.0;
        rb[p + i + (size_t)j * p2] = i == j ? 1.0 : 0.0;
      }
    }
    lapack_int info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, p2, p, qr, p2, tau, lw, a->lwork);
    if (info == 0) {
      info = LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'T', p2, p2, p, qr, p2, tau, ra, p2, lw,
                                 a->lwork);
    }
    if (info != 0) {
      return lth_error_set(err, LTH_ELAPACK, "collocation system: QR of block %zu (info %d)", k,
                           (int)info);
    }
    for (int i = 0; i < p; i++) {
      if (qr[i + (size_t)i * p2] == 0.0) {
        return lth_error_set(err, LTH_ESING, "collocation system: singular block %zu", k);
      }
    }
    double *S = a->S + (k - 1) * pp, *T = a->T + (k - 1) * pp;
    for (int j = 0; j < p; j++) {
      for (int i = 0; i < p; i++) {
        S[i + (size_t)j * p] = ra[i + (size_t)j * p2];
        T[i + (size_t)j * p] = rb[i + (size_t)j * p2];
        ra[i + (size_t)j * p2] = ra[p + i + (size_t)j * p2]; /* bottom rows move up */
        rb[i + (size_t)j * p2] = rb[p + i + (size_t)j * p2];
      }
    }
    scale_rows(p, ra, p2, rb, p2, a->sc + k * p);
  }
  /* K = [D0 DN; a b], rows scaled to unit 2-norm */
  double *K = a->K;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < nb; i++) {
      K[i + (size_t)j * rows] = D0[i + (size_t)j * nb];
      K[i + (size_t)(p + j) * rows] = DN[i + (size_t)j * nb];
    }
    for (int i = 0; i < p; i++) {
      K[nb + i + (size_t)j * rows] = ra[i + (size_t)j * p2];
      K[nb + i + (size_t)(p + j) * rows] = rb[i + (size_t)j * p2];
    }
  }
  for (int i = 0; i < rows; i++) {
    double n2 = cblas_dnrm2(p2, K + i, rows);
    a->rs[i] = n2 > 0.0 ? 1.0 / n2 : 1.0;
    cblas_dscal(p2, a->rs[i], K + i, rows);
  }
  double *Kc = lw; /* dgesvd destroys its input: factor a copy */
  memcpy(Kc, K, sizeof(double) * (size_t)rows * p2);
  lapack_int info =
      LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'A', rows, p2, Kc, rows, a->sv, a->U, rows, a->Vt,
                          p2, lw + (size_t)rows * p2, a->lwork - (lapack_int)((size_t)rows * p2));
  if (info != 0) {
    return lth_error_set(err, LTH_ELAPACK,
                         "collocation system: SVD of the reduced matrix (info %d)", (int)info);
  }
  lth_abd_set_rank_tol(a, 0.0);
  return LTH_OK;
}

void lth_abd_set_rank_tol(lth_abd *a, double tol) {
  a->rank = 0;
  for (int i = 0; i < 2 * a->p; i++) a->rank += a->sv[i] > tol * a->sv[0];
}

int lth_abd_rank(const lth_abd *a) { return a->rank; }

double lth_abd_cond(const lth_abd *a) {
  int p2 = 2 * a->p;
  return a->sv[p2 - 1] > 0.0 ? a->sv[0] / a->sv[p2 - 1] : INFINITY;
}

double lth_abd_bc_cond(const lth_abd *a) {
  int p = a->p, nb = a->nb, p2 = 2 * p, rows = nb + p;
  size_t need = (size_t)p * p2 + (size_t)p2 * p2 + (size_t)p2 * 2 + (size_t)nb * p2 +
                (size_t)nb * p + (size_t)p + (size_t)nb + 8;
  double *buf = malloc(sizeof(double) * need), cond = NAN;
  if (!buf) return NAN;
  double *R = buf, *Vt = R + (size_t)p * p2, *sv = Vt + (size_t)p2 * p2, *D = sv + 2 * (size_t)p2;
  double *WN = D + (size_t)nb * p2, *sw = WN + (size_t)nb * p;
  /* the running rows [a b] (their scaling does not move the null space) */
  for (int j = 0; j < p2; j++) {
    for (int i = 0; i < p; i++) R[i + (size_t)j * p] = a->K[nb + i + (size_t)j * rows];
    for (int i = 0; i < nb; i++) D[i + (size_t)j * nb] = a->K[i + (size_t)j * rows] / a->rs[i];
  }
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', p, p2, R, p, sv, NULL, 1, Vt, p2, sv + p2) == 0) {
    /* N = rows p..2p-1 of V' (transposed): WN = D N */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nb, p, p2, 1.0, D, nb, Vt + p, p2, 0.0, WN,
                nb);
    int k = nb < p ? nb : p;
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', nb, p, WN, nb, sw, NULL, 1, NULL, 1, sv) == 0) {
      cond = sw[k - 1] > 0.0 && k == p ? sw[0] / sw[k - 1] : INFINITY;
    }
  }
  free(buf);
  return cond;
}

lth_status lth_abd_solve(const lth_abd *a, int nrhs, const double *f, const double *d, double *y,
                         double *resid, lth_error *err) {
  int p = a->p, nb = a->nb, p2 = 2 * p, rows = nb + p;
  size_t N = a->N, pp = (size_t)p * p, blk = (size_t)p * nrhs;
  double *buf = malloc(sizeof(double) * ((size_t)p2 * nrhs + (size_t)rows * nrhs * 2 + 1));
  if (!buf) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *Mr = buf, *rhs = Mr + (size_t)p2 * nrhs, *c = rhs + (size_t)rows * nrhs;
  lth_status st = LTH_OK;
  /* running right-hand side r = f_0, scaled as its rows */
  for (int j = 0; j < nrhs; j++) {
    for (int i = 0; i < p; i++)
      Mr[i + (size_t)j * p2] = (f ? f[i + (size_t)j * p] : 0.0) * a->sc[i];
  }
  for (size_t k = 1; k < N && st == LTH_OK; k++) {
    for (int j = 0; j < nrhs; j++) {
      for (int i = 0; i < p; i++)
        Mr[p + i + (size_t)j * p2] = f ? f[k * blk + i + (size_t)j * p] : 0.0;
    }
    lapack_int info =
        LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'T', p2, nrhs, p, a->qr + (k - 1) * 2 * pp, p2,
                            a->tau + (k - 1) * p, Mr, p2, a->work + 6 * pp, a->lwork);
    if (info != 0) {
      st = lth_error_set(err, LTH_ELAPACK, "collocation system: dormqr (info %d)", (int)info);
      break;
    }
    double *rho = y + k * blk; /* rho_k waits in y_k's place */
    for (int j = 0; j < nrhs; j++) {
      for (int i = 0; i < p; i++) {
        rho[i + (size_t)j * p] = Mr[i + (size_t)j * p2];
        Mr[i + (size_t)j * p2] = Mr[p + i + (size_t)j * p2] * a->sc[k * p + i];
      }
    }
  }
  if (st == LTH_OK) {
    /* reduced least squares: x = V Sigma_r^{-1} U_r' (scaled rhs) */
    for (int j = 0; j < nrhs; j++) {
      for (int i = 0; i < nb; i++) rhs[i + (size_t)j * rows] = d[i + (size_t)j * nb] * a->rs[i];
      for (int i = 0; i < p; i++) {
        rhs[nb + i + (size_t)j * rows] = Mr[i + (size_t)j * p2] * a->rs[nb + i];
      }
    }
    /* c = U' rhs: the first rank entries solve, the others are the residual */
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, rows, nrhs, rows, 1.0, a->U, rows, rhs,
                rows, 0.0, c, rows);
    for (int j = 0; j < nrhs; j++) {
      double nr = cblas_dnrm2(rows, rhs + (size_t)j * rows, 1);
      double nres = cblas_dnrm2(rows - a->rank, c + a->rank + (size_t)j * rows, 1);
      if (resid) resid[j] = nr > 0.0 ? nres / nr : 0.0;
      for (int i = 0; i < a->rank; i++) c[i + (size_t)j * rows] /= a->sv[i];
    }
    double *x = rhs; /* 2p x nrhs, ld p2 */
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p2, nrhs, a->rank, 1.0, a->Vt, p2, c, rows,
                0.0, x, p2);
    for (int j = 0; j < nrhs; j++) {
      memcpy(y + (size_t)j * p, x + (size_t)j * p2, sizeof(double) * p);
      memcpy(y + N * blk + (size_t)j * p, x + p + (size_t)j * p2, sizeof(double) * p);
    }
    /* back-substitution: R_k y_k = rho_k - S_k y_0 - T_k y_{k+1} */
    for (size_t k = N - 1; k >= 1; k--) {
      double *yk = y + k * blk;
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, nrhs, p, -1.0, a->S + (k - 1) * pp,
                  p, y, p, 1.0, yk, p);
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, nrhs, p, -1.0, a->T + (k - 1) * pp,
                  p, y + (k + 1) * blk, p, 1.0, yk, p);
      cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, p, nrhs, 1.0,
                  a->qr + (k - 1) * 2 * pp, p2, yk, p);
    }
  }
  free(buf);
  return st;
}
