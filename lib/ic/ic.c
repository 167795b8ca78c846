/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Consistent initial values: Clark's Corollary 3 and section 4.1 (include/lth/ic.h). */
#include "lth/ic.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ic/ic_scaled.h"
#include "lth/decomp.h"
#include "lth/sampling_error.h"

/* Relative singular-value threshold separating range(G) from N(G^T), and the
 * rank of the rows of the basis that fixed components select. */
#define IC_RANK_TOL 1e-10
/* A residual of the consistency conditions M0 z0 = b0 (Clark section 4.1)
 * below this times the size of the data counts as consistent (plus what the
 * decomposition's and the samples' errors add: lth_ic_tolerance). */
#define IC_CONSIST_TOL 1e-10
/* The sampled data's part of the consistency tolerance: this many times the
 * first-order effect of the estimated errors of q and G (the estimates are
 * within a factor of a few of the true errors: docs/sampled-data.md). */
#define IC_DATA_SAFETY 2.0

struct lth_ic {
  const lth_system *sys;
  int s, m, p;
  lth_decomp_ws *ws;
  lth_point *pt;
  double *U;    /* s x s left singular vectors of G */
  double *sv;   /* singular values */
  double *a;    /* s x m copy of G for dgesvd */
  double *work; /* dgesvd workspace */
  lapack_int lwork;
  double *M0, *b0; /* (s-p) x s, s-p */
  double *tmp;     /* 2 s */
  int ready;
  /* sampled data: the estimated errors of q and G at the setup time
   * (lth/sampling_error.h), which widen the consistency tolerance */
  lth_decomp_error *de;
  double data_dq, data_dG; /* ||error of q||_2, ||error of G||_F (estimates) */
};

static double maxabs(int n, const double *x) {
  double m = 0.0;
  for (int i = 0; i < n; i++) {
    double a = fabs(x[i]);
    m = a > m || isnan(a) ? a : m;
  }
  return m;
}

/* 2-norm scaled by the largest entry (no overflow in the sum of squares);
 * inf only when the norm itself exceeds the largest double. */
static double nrm2(int n, const double *x) {
  double m = maxabs(n, x), sum = 0.0;
  if (m == 0.0 || !isfinite(m)) return m;
  for (int i = 0; i < n; i++) sum += (x[i] / m) * (x[i] / m);
  return m * sqrt(sum);
}

/* A result with an entry that is not finite (the guess overflowed). */
static lth_status check_z0(const lth_ic *ic, const double *z0, const double *guess,
                           lth_error *err) {
  for (int i = 0; i < ic->s; i++) {
    if (!isfinite(z0[i])) {
      char name[64];
      lth_system_component_name(ic->sys, i, name, sizeof name);
      return lth_error_set_t(err, LTH_ENOTFINITE, ic->pt->t,
                             "the consistent value is not finite: %s overflows (largest |guess| "
                             "entry %.3e; scale the problem or give a smaller guess)",
                             name, guess ? maxabs(ic->s, guess) : 0.0);
    }
  }
  return LTH_OK;
}

lth_ic *lth_ic_alloc(const lth_system *sys, lth_error *err) {
  return lth_ic_alloc_scaled(sys, -1.0, err);
}

lth_ic *lth_ic_alloc_scaled(const lth_system *sys, double chain_scale, lth_error *err) {
  lth_ic *ic = calloc(1, sizeof *ic);
  if (!ic) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an initial-value workspace");
    return NULL;
  }
  ic->sys = sys;
  ic->s = lth_system_size(sys);
  ic->m = lth_system_state_dim(sys);
  ic->p = lth_system_manifold_dim(sys);
  int s = ic->s, m = ic->m, np = s - ic->p;
  ic->ws = lth_decomp_ws_alloc_scaled(sys, 0, chain_scale, err);
  ic->pt = ic->ws ? lth_point_alloc(sys, 0, err) : NULL;
  if (ic->ws) {
    lth_decomp_ws_set_measure(ic->ws, 1); /* its error is part of the consistency tolerance */
  }
  if (ic->pt && !lth_system_is_exact(sys)) {
    ic->de = lth_decomp_error_alloc(sys, err);
    ic->pt = ic->de ? ic->pt : NULL;
  }
  if (!ic->pt) {
    lth_ic_free(ic);
    return NULL;
  }
  double q;
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'N', s, m, NULL, s, NULL, NULL, s,
                                        NULL, 1, &q, -1);
  ic->lwork = info == 0 ? (lapack_int)q + 1 : 5 * (s + m);
  ic->U = malloc((size_t)s * s * sizeof(double));
  ic->sv = malloc((size_t)(s + 1) * sizeof(double));
  ic->a = malloc((size_t)s * (m + 1) * sizeof(double));
  ic->work = malloc((size_t)ic->lwork * sizeof(double));
  ic->M0 = malloc(((size_t)np * s + 1) * sizeof(double));
  ic->b0 = malloc(((size_t)np + 1) * sizeof(double));
  ic->tmp = malloc((size_t)2 * s * sizeof(double));
  if (!ic->U || !ic->sv || !ic->a || !ic->work || !ic->M0 || !ic->b0 || !ic->tmp) {
    lth_ic_free(ic);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an initial-value workspace");
    return NULL;
  }
  return ic;
}

void lth_ic_free(lth_ic *ic) {
  if (!ic) {
    return;
  }
  lth_point_free(ic->pt);
  lth_decomp_ws_free(ic->ws);
  lth_decomp_error_free(ic->de);
  free(ic->U);
  free(ic->sv);
  free(ic->a);
  free(ic->work);
  free(ic->M0);
  free(ic->b0);
  free(ic->tmp);
  free(ic);
}

void lth_ic_set_cond_max(lth_ic *ic, double cond_max) {
  lth_decomp_ws_set_cond_max(ic->ws, cond_max);
  if (ic->de) {
    lth_decomp_error_set_cond_max(ic->de, cond_max);
  }
}

/* Sampled data: the norms of the estimated errors of q and G at t. */
static lth_status data_error(lth_ic *ic, double t, lth_error *err) {
  ic->data_dq = ic->data_dG = 0.0;
  if (!ic->de) {
    return LTH_OK;
  }
  lth_decomp_errest e;
  lth_status st = lth_decomp_error_at(ic->de, t, &e, err);
  int rows, cols;
  const double *dq =
      st == LTH_OK ? lth_decomp_error_entries(ic->de, LTH_OUT_Q, &rows, &cols) : NULL;
  const double *dG = dq ? lth_decomp_error_entries(ic->de, LTH_OUT_GMAT, &rows, &cols) : NULL;
  if (dG) {
    ic->data_dq = nrm2(ic->s, dq);
    ic->data_dG = nrm2(rows * cols, dG);
  }
  return st;
}

/* SVD of G(t): range(G) = first p left singular vectors, N(G^T) = the rest
 * (Clark section 4.1: M0 = V^T, b0 = V^T q). */
static lth_status factor_G(lth_ic *ic, double t, lth_error *err) {
  int s = ic->s, m = ic->m, p = ic->p, np = s - p;
  for (int j = 0; j < m; j++) {
    memcpy(ic->a + (size_t)j * s, &LTH_JET_AT(&ic->pt->G, 0, 0, j), (size_t)s * sizeof(double));
  }
  lapack_int info = LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'A', 'N', s, m, ic->a, s, ic->sv, ic->U,
                                        s, NULL, 1, ic->work, ic->lwork);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t, "SVD of G failed (dgesvd info %d)", (int)info);
  }
  /* rank decisions against the size of the data G is made of, not against
   * sigma_1(G): with p = 0 G is rounding noise and sigma_1 / sigma_1 = 1 */
  int k = s < m ? s : m;
  double scale = lth_point_rank_scale(ic->pt);
  if (p > 0 && !(ic->sv[p - 1] > IC_RANK_TOL * scale)) {
    return lth_error_set_t(err, LTH_EVERIFY, t,
                           "rank G < p = %d: sigma_p = %.3e is below %.0e x ||Nhat + Bhat|| (1 + "
                           "||P||) = %.0e x %.3e (the state space is degenerate here)",
                           p, ic->sv[p - 1], IC_RANK_TOL, IC_RANK_TOL, scale);
  }
  if (p < k && ic->sv[p] > IC_RANK_TOL * scale) {
    return lth_error_set_t(err, LTH_EVERIFY, t,
                           "rank G > p = %d: sigma_{p+1} = %.3e exceeds %.0e x ||Nhat + Bhat|| (1 "
                           "+ ||P||) = %.0e x %.3e",
                           p, ic->sv[p], IC_RANK_TOL, IC_RANK_TOL, scale);
  }
  for (int i = 0; i < np; i++) {
    for (int j = 0; j < s; j++) {
      ic->M0[i + (size_t)j * np] = ic->U[j + (size_t)(p + i) * s];
    }
  }
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  if (np > 0) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, np, s, 1.0, ic->M0, np, q, 1, 0.0, ic->b0, 1);
  }
  return LTH_OK;
}

lth_status lth_ic_setup(lth_ic *ic, double t, lth_error *err) {
  ic->ready = 0;
  lth_status st = lth_decomp_at(ic->ws, t, ic->pt, err);
  if (st == LTH_OK) {
    st = factor_G(ic, t, err);
  }
  if (st == LTH_OK) {
    st = data_error(ic, t, err);
  }
  ic->ready = st == LTH_OK;
  return st;
}

static lth_status not_ready(const lth_ic *ic, lth_error *err) {
  return ic->ready ? LTH_OK : lth_error_set(err, LTH_EINVAL, "lth_ic_setup has not succeeded");
}

lth_status lth_ic_project(const lth_ic *ic, const double *guess, double *z0, lth_error *err) {
  lth_status st = not_ready(ic, err);
  if (st != LTH_OK) {
    return st;
  }
  /* z0 = G v + q; G already contains the factor (I - P) of Corollary 3 */
  const lth_point *pt = ic->pt;
  memcpy(z0, &LTH_JET_AT(&pt->q, 0, 0, 0), (size_t)ic->s * sizeof(double));
  if (ic->m > 0) {
    /* scaled by the guess's largest entry: G guess + q may be finite where
     * the sums of products are not */
    double m = maxabs(ic->m, guess), *tmp = ic->tmp;
    m = m > 0 && isfinite(m) ? m : 1.0;
    cblas_dgemv(CblasColMajor, CblasNoTrans, ic->s, ic->m, 1.0 / m, pt->G.c, pt->G.ld, guess, 1,
                0.0, tmp, 1);
    for (int i = 0; i < ic->s; i++) z0[i] += m * tmp[i];
  }
  return check_z0(ic, z0, guess, err);
}

/* z0 = q + U_p c. */
static void from_coords(const lth_ic *ic, const double *c, double *z0) {
  memcpy(z0, &LTH_JET_AT(&ic->pt->q, 0, 0, 0), (size_t)ic->s * sizeof(double));
  if (ic->p > 0) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, ic->s, ic->p, 1.0, ic->U, ic->s, c, 1, 1.0, z0, 1);
  }
}

/* c = U_p^T (guess - q), scaled by the largest entry so that a huge guess
 * does not overflow in the difference or the sums. */
static void to_coords(const lth_ic *ic, const double *guess, double *c) {
  double *d = ic->tmp + ic->s;
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  double m = fmax(maxabs(ic->s, guess), maxabs(ic->s, q));
  m = m > 0 && isfinite(m) ? m : 1.0;
  for (int i = 0; i < ic->s; i++) {
    d[i] = guess[i] / m - q[i] / m;
  }
  if (ic->p > 0) {
    cblas_dgemv(CblasColMajor, CblasTrans, ic->s, ic->p, m, ic->U, ic->s, d, 1, 0.0, c, 1);
  }
}

lth_status lth_ic_nearest(const lth_ic *ic, const double *guess, double *z0, lth_error *err) {
  lth_status st = not_ready(ic, err);
  if (st != LTH_OK) {
    return st;
  }
  to_coords(ic, guess, ic->tmp);
  from_coords(ic, ic->tmp, z0);
  return check_z0(ic, z0, guess, err);
}

/* Minimum-norm solution c of F c = b (F = rows idx of U_p, nfix x p) by SVD,
 * and an orthonormal basis N of N(F) (p x nnull).  Returns the rank. */
static int constrained_basis(const lth_ic *ic, int nfix, const int *idx, const double *b, double *c,
                             double *N, int *nnull, double *resid) {
  int p = ic->p, k = nfix < p ? nfix : p;
  double *F = malloc(sizeof(double) * ((size_t)nfix * p + (size_t)p * p + p + nfix + 2));
  if (!F) {
    return -1;
  }
  double *Vt = F + (size_t)nfix * p, *sv = Vt + (size_t)p * p, *superb = sv + p;
  for (int i = 0; i < nfix; i++) {
    for (int j = 0; j < p; j++) {
      F[i + (size_t)j * nfix] = ic->U[idx[i] + (size_t)j * ic->s];
    }
  }
  /* F = W S Vt: keep F's copy of W in F (jobu 'O') */
  lapack_int info =
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'O', 'A', nfix, p, F, nfix, sv, NULL, 1, Vt, p, superb);
  int rank = 0;
  for (int i = 0; info == 0 && i < k; i++) {
    rank += sv[i] > IC_RANK_TOL * (sv[0] > 1.0 ? sv[0] : 1.0);
  }
  /* c = V S^+ W^T b */
  for (int j = 0; j < p; j++) c[j] = 0.0;
  for (int i = 0; i < rank; i++) {
    double wb = 0.0;
    for (int l = 0; l < nfix; l++) wb += F[l + (size_t)i * nfix] * b[l];
    for (int j = 0; j < p; j++) c[j] += Vt[i + (size_t)j * p] * wb / sv[i];
  }
  *nnull = p - rank;
  for (int l = 0; l < *nnull; l++) {
    for (int j = 0; j < p; j++) N[j + (size_t)l * p] = Vt[(rank + l) + (size_t)j * p];
  }
  for (int i = 0; i < nfix; i++) {
    double r = -b[i];
    for (int j = 0; j < p; j++) r += ic->U[idx[i] + (size_t)j * ic->s] * c[j];
    resid[i] = r;
  }
  free(F);
  return info == 0 ? rank : -1;
}

/* The prescriptions do not hold together: blame the first one, in the order
 * given, that contradicts the ones before it and the algebraic constraints
 * (the least-squares residual spreads the conflict over all of them and may
 * point at an innocent one), and say what value they fix it at. */
static lth_status fix_conflict(const lth_ic *ic, int nfix, const int *idx, const double *val,
                               const double *b, double scale, double *c, double *N, double *resid,
                               lth_error *err) {
  int p = ic->p, k = nfix, nnull = 0;
  for (int m = 1; m <= nfix; m++) {
    int bad = 0;
    if (p == 0) {
      bad = fabs(b[m - 1]) > IC_CONSIST_TOL * scale;
    } else if (constrained_basis(ic, m, idx, b, c, N, &nnull, resid) >= 0) {
      for (int i = 0; i < m && !bad; i++) bad = fabs(resid[i]) > IC_CONSIST_TOL * scale;
    }
    if (bad) {
      k = m;
      break;
    }
  }
  /* the value the first k - 1 prescriptions and the constraints give z[idx[k-1]] */
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  double implied = q[idx[k - 1]];
  if (p > 0 && k > 1 && constrained_basis(ic, k - 1, idx, b, c, N, &nnull, resid) >= 0) {
    implied += cblas_ddot(p, ic->U + idx[k - 1], ic->s, c, 1);
  }
  char name[64];
  lth_system_component_name(ic->sys, idx[k - 1], name, sizeof name);
  if (p > 0 && k > 1 && nnull == 0) {
    return lth_error_set(err, LTH_ECONSIST,
                         "%s = %.17g conflicts with the %d prescription%s before it: with the "
                         "algebraic constraints they fix all p = %d free values, and %s at "
                         "%.17g (off by %.3e)",
                         name, val[k - 1], k - 1, k == 2 ? "" : "s", p, name, implied,
                         val[k - 1] - implied);
  }
  implied += 0.0; /* print 0, not -0 */
  return lth_error_set(err, LTH_ECONSIST,
                       "prescribed %s = %.17g cannot hold together with %sthe algebraic "
                       "constraints, which fix it at %.17g (off by %.3e)",
                       name, val[k - 1], k > 1 ? "the prescriptions before it and " : "", implied,
                       val[k - 1] - implied);
}

lth_status lth_ic_fix(const lth_ic *ic, const double *guess, int nfix, const int *idx,
                      const double *val, double *z0, lth_error *err) {
  lth_status st = not_ready(ic, err);
  if (st != LTH_OK) {
    return st;
  }
  int s = ic->s, p = ic->p;
  for (int i = 0; i < nfix; i++) {
    if (idx[i] < 0 || idx[i] >= s) {
      return lth_error_set(err, LTH_EINVAL, "component %d outside 1..%d", idx[i] + 1, s);
    }
  }
  double *buf = malloc(sizeof(double) * ((size_t)3 * p + (size_t)p * p + 2 * (size_t)nfix + 3));
  if (!buf) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double *c = buf, *g = c + p + 1, *N = g + p + 1, *b = N + (size_t)p * p + 1, *resid = b + nfix;
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  for (int i = 0; i < nfix; i++) {
    b[i] = val[i] - q[idx[i]];
  }
  int nnull = 0;
  int rank = p > 0 ? constrained_basis(ic, nfix, idx, b, c, N, &nnull, resid) : 0;
  if (p == 0) {
    for (int i = 0; i < nfix; i++) resid[i] = -b[i];
  }
  double scale = 1.0;
  for (int i = 0; i < nfix; i++) {
    scale = fmax(scale, fmax(fabs(val[i]), fabs(q[idx[i]])));
  }
  int bad = rank < 0;
  for (int i = 0; i < nfix && !bad; i++) {
    bad = fabs(resid[i]) > IC_CONSIST_TOL * scale;
  }
  if (bad) {
    st = fix_conflict(ic, nfix, idx, val, b, scale, c, N, resid, err);
  } else {
    /* free directions: c += N N^T (U^T (guess - q) - c), least squares to the guess */
    to_coords(ic, guess, g);
    for (int j = 0; j < p; j++) g[j] -= c[j];
    for (int l = 0; l < nnull; l++) {
      double d = cblas_ddot(p, N + (size_t)l * p, 1, g, 1);
      cblas_daxpy(p, d, N + (size_t)l * p, 1, c, 1);
    }
    from_coords(ic, c, z0);
    for (int i = 0; i < nfix; i++) {
      z0[idx[i]] = val[i]; /* exact, not merely to rounding */
    }
    st = check_z0(ic, z0, guess, err);
  }
  free(buf);
  return st;
}

int lth_ic_conditions(const lth_ic *ic, const double **M0, const double **b0) {
  *M0 = ic->M0;
  *b0 = ic->b0;
  return ic->s - ic->p;
}

double lth_ic_residual(const lth_ic *ic, const double *z0) {
  int np = ic->s - ic->p;
  if (np == 0) {
    return 0.0;
  }
  /* M0 z0 - b0 scaled by the largest entry of z0 and b0: no overflow before
   * the result itself (M0 has orthonormal rows, so ||M0 z0|| <= ||z0||) */
  double m = fmax(maxabs(ic->s, z0), maxabs(np, ic->b0));
  if (m == 0.0 || !isfinite(m)) {
    return m;
  }
  double *r = ic->tmp, *zs = ic->tmp + ic->s;
  for (int i = 0; i < ic->s; i++) zs[i] = z0[i] / m;
  for (int i = 0; i < np; i++) r[i] = ic->b0[i] / m;
  cblas_dgemv(CblasColMajor, CblasNoTrans, np, ic->s, 1.0, ic->M0, np, zs, 1, -1.0, r, 1);
  return m * nrm2(np, r);
}

double lth_ic_data_tolerance(const lth_ic *ic, const double *z0) {
  if (!ic->de || !ic->ready) {
    return 0.0;
  }
  /* z0 = q_exact + G_exact v consistent for the exact data gives, to first
   * order, ||M0 z0 - b0|| <= ||dq|| + ||dG|| ||v||, ||v|| <= ||z0 - q|| / sigma_p(G) */
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  double *d = ic->tmp + ic->s, nv = 0.0;
  for (int i = 0; i < ic->s; i++) {
    d[i] = z0[i] - q[i];
  }
  if (ic->p > 0 && ic->sv[ic->p - 1] > 0.0) {
    nv = nrm2(ic->s, d) / ic->sv[ic->p - 1];
  }
  return IC_DATA_SAFETY * (ic->data_dq + ic->data_dG * nv);
}

/* The decomposition's own error at the setup time: eps times the error
 * amplification it measured (lth_point.amplification) in q and in G, to
 * first order ||M0 z0 - b0|| <= ||dq|| + ||dG|| ||v|| as for sampled data (an
 * index-8 problem whose data oscillate loses 8 digits to the derivatives). */
static double decomp_tolerance(const lth_ic *ic, const double *z0) {
  if (!ic->ready) {
    return 0.0;
  }
  const double *q = &LTH_JET_AT(&ic->pt->q, 0, 0, 0);
  double *d = ic->tmp + ic->s, nv = 0.0;
  for (int i = 0; i < ic->s; i++) {
    d[i] = z0[i] - q[i];
  }
  if (ic->p > 0 && ic->sv[ic->p - 1] > 0.0) {
    nv = nrm2(ic->s, d) / ic->sv[ic->p - 1];
  }
  double e = DBL_EPSILON * ic->pt->amplification;
  double nG = ic->p > 0 ? ic->sv[0] : 0.0; /* ||G||_2, from factor_G */
  return e * (nrm2(ic->s, q) + fmax(nG, 1.0) * nv);
}

double lth_ic_tolerance(const lth_ic *ic, const double *z0) {
  double nq = nrm2(ic->s, &LTH_JET_AT(&ic->pt->q, 0, 0, 0)), nz = nrm2(ic->s, z0);
  double scale = fmax(1.0, fmax(nq, nz)), dec = decomp_tolerance(ic, z0);
  return (isfinite(scale) ? IC_CONSIST_TOL * scale : 0.0) + (isfinite(dec) ? dec : 0.0) +
         lth_ic_data_tolerance(ic, z0); /* never infinite */
}

const lth_point *lth_ic_point(const lth_ic *ic) { return ic->pt; }
const double *lth_ic_range_basis(const lth_ic *ic) { return ic->U; }
