/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fundamental solution on the state space (include/lth/ivp.h; Clark
 * Corollary 2 and section 4): Psi(t, t0) Q and the particular solution,
 * integrated together as the columns of one matrix ODE. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ivp_impl.h"
#include "lth/ivp.h"
#include "core/errors.h"

/* ---- fundamental solution ---- */

void lth_fundamental_free(lth_fundamental *fm) {
  if (!fm) {
    return;
  }
  free(fm->times);
  free(fm->Q);
  free(fm->Psi);
  free(fm->Phi);
  free(fm->vp);
  free(fm->zp);
  free(fm);
}

static lth_fundamental *fundamental_alloc(int s, int m, int p, size_t n) {
  lth_fundamental *fm = calloc(1, sizeof *fm);
  if (!fm) {
    return NULL;
  }
  fm->n = n;
  fm->s = s;
  fm->m = m;
  fm->p = p;
  size_t n1 = n ? n : 1;
  fm->times = malloc(n1 * sizeof(double));
  fm->Q = malloc(((size_t)m * p + 1) * sizeof(double));
  fm->Psi = malloc(((size_t)m * p * n1 + 1) * sizeof(double));
  fm->Phi = malloc(((size_t)s * p * n1 + 1) * sizeof(double));
  fm->vp = malloc(((size_t)m * n1 + 1) * sizeof(double));
  fm->zp = malloc(((size_t)s * n1 + 1) * sizeof(double));
  if (!fm->times || !fm->Q || !fm->Psi || !fm->Phi || !fm->vp || !fm->zp) {
    lth_fundamental_free(fm);
    return NULL;
  }
  return fm;
}

lth_status lth_state_basis(const lth_point *pt, double *Q, lth_error *err) {
  int m = pt->m, p = pt->p;
  double *a = malloc(sizeof(double) * ((size_t)m * m * 2 + (size_t)m * 2 + 2));
  if (!a) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double *U = a + (size_t)m * m, *sv = U + (size_t)m * m, *superb = sv + m;
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      a[i + (size_t)j * m] = (i == j ? 1.0 : 0.0) - LTH_JET_AT(&pt->P, 0, i, j);
    }
  }
  lapack_int info =
      m > 0 ? LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'S', 'N', m, m, a, m, sv, U, m, NULL, 1, superb) : 0;
  lth_status st = LTH_OK;
  if (info != 0) {
    st = lth_error_set_t(err, LTH_ELAPACK, pt->t, "SVD of I - P failed (info %d)", (int)info);
  } else if (p > 0 && !(sv[p - 1] > 1e-10 * sv[0])) {
    st = lth_error_set_t(err, LTH_EVERIFY, pt->t, "rank(I - P) < p = %d", p);
  } else {
    memcpy(Q, U, (size_t)m * p * sizeof(double));
  }
  free(a);
  return st;
}

/* Columns: Psi Q (p of them) and the particular solution (affine column). */
static lth_status fundamental_run(lth_ivp *iv, lth_fundamental *fm, const double *times,
                                  lth_error *err) {
  int m = fm->m, p = fm->p, s = fm->s;
  double *V = calloc((size_t)m * (p + 1) + 1, sizeof(double));
  if (!V) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  const lth_point *pt;
  lth_status st = lth_ivp_point(iv, fm->t0, &pt, err);
  if (st == LTH_OK) {
    st = lth_state_basis(pt, fm->Q, err);
  }
  if (st == LTH_OK) {
    memcpy(V, fm->Q, (size_t)m * p * sizeof(double));
    st = lth_ivp_start(iv, fm->t0, V, err);
  }
  for (size_t k = 0; k < fm->n && st == LTH_OK; k++) {
    fm->times[k] = times[k];
    st = lth_ivp_advance(iv, times[k], V, err);
    if (st == LTH_OK) {
      st = lth_ivp_point(iv, times[k], &pt, err);
    }
    if (st != LTH_OK) {
      break;
    }
    double *Psi = fm->Psi + (size_t)k * m * p, *Phi = fm->Phi + (size_t)k * s * p;
    double *vp = fm->vp + (size_t)k * m, *zp = fm->zp + (size_t)k * s;
    memcpy(Psi, V, (size_t)m * p * sizeof(double));
    memcpy(vp, V + (size_t)m * p, (size_t)m * sizeof(double));
    /* Phi = (Nhat + Bhat) Psi Q;  zp = (Nhat + Bhat) vp + q */
    for (int j = 0; j < p; j++) {
      memset(Phi + (size_t)j * s, 0, (size_t)s * sizeof(double));
      memcpy(Phi + (size_t)j * s, Psi + (size_t)j * m, (size_t)m * sizeof(double));
    }
    if (p > 0) {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, p, m, 1.0, pt->Bhat.c, pt->Bhat.ld,
                  Psi, m, 1.0, Phi, s);
    }
    memcpy(zp, pt->q.c, (size_t)s * sizeof(double));
    cblas_daxpy(m, 1.0, vp, 1, zp, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, m, 1.0, pt->Bhat.c, pt->Bhat.ld, vp, 1, 1.0, zp, 1);
    /* drift of every column: ||P V|| */
    for (int j = 0; j <= p; j++) {
      const double *col = V + (size_t)j * m;
      double d = 0.0;
      for (int i = 0; i < m; i++) {
        double x = cblas_ddot(m, pt->P.c + i, pt->P.ld, col, 1);
        d += x * x;
      }
      fm->drift = fmax(fm->drift, sqrt(d));
    }
  }
  free(V);
  return st;
}

lth_status lth_ivp_fundamental(const lth_system *sys, double t0, const double *times, size_t n,
                               const lth_ivp_opts *opts, lth_fundamental **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  lth_status st = lth_ivp_check_times(t0, times, n, err);
  double scale = 0.0, t_hi = n > 0 ? times[n - 1] : t0;
  if (st == LTH_OK) {
    st = lth_ivp_prescan(sys, t0, t_hi, opts, &scale, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  int s = lth_system_size(sys), m = lth_system_state_dim(sys), p = lth_system_manifold_dim(sys);
  lth_fundamental *fm = fundamental_alloc(s, m, p, n);
  if (!fm) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a fundamental solution");
  }
  fm->t0 = t0;
  lth_ivp *iv = lth_ivp_alloc(sys, p + 1, 1, opts, t0, t_hi, err);
  if (iv) {
    lth_ivp_guard_scale(iv, scale);
  }
  st = iv ? fundamental_run(iv, fm, times, err) : (lth_error_status(err));
  if (iv) {
    lth_ivp_stats(iv, &fm->steps, &fm->rhs_evals, NULL, NULL);
  }
  lth_ivp_free(iv);
  if (st != LTH_OK) {
    lth_fundamental_free(fm);
    return st;
  }
  *out = fm;
  return LTH_OK;
}
