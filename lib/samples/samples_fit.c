/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Local polynomial fits of sampled data (lib/samples/samples_impl.h).
 *
 * A window is N consecutive samples around one cell (lib/samples/samples_impl.h).  Its
 * Vandermonde matrix V (N x C, V[k, j] = x_k^j, x_k = (t_k - tc) / hs, hs the
 * largest |t_k - tc|, so |x| <= 1 and V stays well conditioned) is factored
 * once by LAPACK's dgeqrf, and Q^T b is formed by dormqr for all entries at
 * once.  Because V's columns are ordered by degree, the leading (K+1) x (K+1)
 * block of R is the R factor of the first K+1 columns: one factorisation gives
 * the least-squares fits of every degree K < C on that window (dtrtrs on the
 * leading block), interpolation when K = N - 1.  The inverse of R (dtrtri)
 * gives every fit's noise amplification the same way: with independent noise
 * of standard deviation sigma in the values, Q^T b carries the same noise, so
 * coefficient m of the degree-K fit has standard deviation sigma times the
 * 2-norm of row m of R_K^{-1}, whose entries are those of R^{-1}.
 *
 * Nothing here allocates: the arrays come from the caller's work.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "samples_impl.h"

size_t samples_interval(const samples_state *s, double t) {
  size_t lo = 0, hi = s->n - 1; /* invariant: t_lo <= t < t_hi */
  if (!(t > s->t[0])) {
    return 0;
  }
  if (!(t < s->t[hi])) {
    return hi - 1;
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->t[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t samples_cell_of(const samples_state *s, double t) {
  size_t c = samples_interval(s, t) / s->stride;
  return c < s->ncell ? c : s->ncell - 1;
}

void samples_cell(const samples_state *s, size_t cell, size_t *a, size_t *b, double *tc,
                  double *u) {
  *a = cell * s->stride;
  *b = *a + s->stride < s->n - 1 ? *a + s->stride : s->n - 1;
  *tc = 0.5 * (s->t[*a] + s->t[*b]);
  *u = s->t[*b] - s->t[*a];
}

size_t samples_window(const samples_state *s, size_t cell, size_t npts) {
  size_t a, b;
  double tc, u;
  samples_cell(s, cell, &a, &b, &tc, &u);
  long long n = (long long)s->n, extra = (long long)npts - (long long)(b - a + 1);
  long long left = extra / 2;
  if (extra % 2 != 0) {
    /* the odd sample goes to the side whose candidate is nearer the centre */
    long long lc = (long long)a - left - 1, rc = (long long)b + left + 1;
    left += rc > n - 1 || (lc >= 0 && tc - s->t[lc] < s->t[rc] - tc);
  }
  long long k0 = (long long)a - left, last = n - (long long)npts;
  k0 = k0 > last ? last : k0;
  return (size_t)(k0 < 0 ? 0 : k0);
}

size_t samples_qr_size(const samples_state *s) {
  size_t w = (size_t)s->maxwin, c = (size_t)s->maxcol;
  return w * c + c + w * s->nrhs + s->lwork;
}

lth_status samples_qr_factor(const samples_state *s, double tc, size_t k0, size_t N, int C,
                             double *work, samples_qr *q, lth_error *err) {
  size_t w = (size_t)s->maxwin, c = (size_t)s->maxcol, nc = (size_t)C;
  q->R = work;
  q->tau = work + w * c;
  q->QtB = q->tau + c;
  q->lw = q->QtB + w * s->nrhs;
  q->k0 = k0;
  q->N = N;
  q->C = C;
  q->tc = tc;
  double hs = 0.0;
  for (size_t k = 0; k < N; k++) {
    double d = fabs(s->t[k0 + k] - tc);
    hs = d > hs ? d : hs;
  }
  q->hs = hs;
  for (size_t k = 0; k < N; k++) {
    double x = (s->t[k0 + k] - tc) / hs, p = 1.0;
    for (size_t j = 0; j < nc; j++, p *= x) {
      q->R[k + j * N] = p;
    }
    const double *val = s->v + (k0 + k) * s->nrhs;
    for (size_t e = 0; e < s->nrhs; e++) {
      q->QtB[k + e * N] = val[e];
    }
  }
  lapack_int m = (lapack_int)N, n = (lapack_int)C, lw = (lapack_int)s->lwork;
  lapack_int info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, q->R, m, q->tau, q->lw, lw);
  if (info == 0) {
    info = LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'T', m, (lapack_int)s->nrhs, n, q->R, m,
                               q->tau, q->QtB, m, q->lw, lw);
  }
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, tc,
                           "sampled data: QR of the fit on samples %zu..%zu failed (LAPACK info "
                           "%d)",
                           k0 + 1, k0 + N, (int)info);
  }
  return LTH_OK;
}

lth_status samples_qr_coef(const samples_state *s, const samples_qr *q, int K, double u,
                           double *coef, int ld, lth_error *err) {
  size_t nk = (size_t)K + 1, N = q->N;
  for (size_t e = 0; e < s->nrhs; e++) {
    memcpy(coef + e * (size_t)ld, q->QtB + e * N, nk * sizeof *coef);
  }
  lapack_int info = LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'U', 'N', 'N', (lapack_int)nk,
                                        (lapack_int)s->nrhs, q->R, (lapack_int)N, coef, ld);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, q->tc,
                           "sampled data: the degree-%d fit on samples %zu..%zu is singular "
                           "(dtrtrs info %d)",
                           K, q->k0 + 1, q->k0 + N, (int)info);
  }
  double r = u / q->hs, scale = 1.0;
  for (size_t j = 0; j < nk; j++, scale *= r) {
    for (size_t e = 0; e < s->nrhs; e++) {
      coef[j + e * (size_t)ld] *= scale;
    }
  }
  return LTH_OK;
}

lth_status samples_qr_amp(const samples_qr *q, double u, double *rinv, double *amp, int ldA,
                          lth_error *err) {
  size_t C = (size_t)q->C, N = q->N;
  for (size_t j = 0; j < C; j++) {
    for (size_t i = 0; i <= j; i++) {
      rinv[i + j * C] = q->R[i + j * N];
    }
    for (size_t i = j + 1; i < C; i++) {
      rinv[i + j * C] = 0.0;
    }
  }
  lapack_int info =
      LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', (lapack_int)C, rinv, (lapack_int)C);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, q->tc,
                           "sampled data: the fit on samples %zu..%zu is singular (dtrtri info "
                           "%d)",
                           q->k0 + 1, q->k0 + N, (int)info);
  }
  double r = u / q->hs, scale = 1.0; /* m! (u / hs)^m */
  for (size_t m = 0; m < C; m++) {
    scale *= m > 0 ? (double)m * r : 1.0;
    double acc = 0.0;
    for (size_t K = m; K < C; K++) {
      double x = rinv[m + K * C];
      acc += x * x;
      amp[m + K * (size_t)ldA] = scale * sqrt(acc);
    }
  }
  return LTH_OK;
}

double samples_diff_deriv(const samples_state *s, const double *a, int lda, int ka, const double *b,
                          int ldb, int kb, int m, const double *xp, int np) {
  int kmax = ka > kb ? ka : kb;
  double falling[SAMPLES_MAX_DEGREE + 3]; /* j! / (j - m)! */
  for (int j = m; j <= kmax; j++) {
    double f = 1.0;
    for (int i = j - m + 1; i <= j; i++) {
      f *= i;
    }
    falling[j] = f;
  }
  double mx = 0.0;
  for (size_t e = 0; e < s->nrhs; e++) {
    const double *ae = a + e * (size_t)lda, *be = b + e * (size_t)ldb;
    for (int p = 0; p < np; p++) {
      double acc = 0.0;
      for (int j = kmax; j >= m; j--) {
        double d = (j <= ka ? ae[j] : 0.0) - (j <= kb ? be[j] : 0.0);
        acc = acc * xp[p] + d * falling[j];
      }
      acc = fabs(acc);
      mx = acc > mx || acc != acc ? acc : mx;
    }
  }
  return mx;
}
