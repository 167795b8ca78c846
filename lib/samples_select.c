/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Noise level and the automatic choice of degree and window for sampled data
 * (lib/samples_impl.h; docs/sampled-data.md explains the method).
 *
 * Noise.  For q + 2 consecutive samples the divided difference of order q + 1,
 *     d = sum_j w_j v_j,   w_j = 1 / prod_{i != j} (x_j - x_i),
 * vanishes on polynomials of degree <= q, so for smooth data it is a
 * truncation term of size |f^(q+1)| h^(q+1) that falls quickly with q, while
 * for independent noise of standard deviation sigma, d / ||w||_2 has standard
 * deviation exactly sigma, whatever q and the spacing.  The estimate is the
 * smallest over q = 3, 5, 7, 9 of median(|d| / ||w||_2) / 0.6745 (the median
 * of |N(0, sigma^2)| is 0.6745 sigma) over all windows: the decay of
 * high-order differences stops at the noise level.  Times inside a window are
 * scaled to [0, 1] (w then has moderate size); the weights are explicit, no
 * system is solved.  A declared `sampling noise` replaces the estimate.
 * Every entry's level is at least the rounding of its values, eps max |v|.
 *
 * Choice (automatic mode).  For every cell of `stride` sample intervals, at
 * the cell's middle interval [t_i, t_i+1] with centre tc and width u, and for
 * every derivative order m, the fit (degree K, window of N samples) with the
 * smallest estimated error
 *     E_m(K, N) = T_m(K, N) + sigma * amp_m(K, N)
 * is chosen, where
 *   T_m = max over the interval (probes at t_i, tc, t_i+1) and the entries of
 *         the m-th derivative of fit(K, N) - fit(K + 1, N'), the next-degree
 *         fit on the same window (N' = N) or, for an interpolant (K = N - 1),
 *         on the window with one more sample (N' = N + 1): the leading term of
 *         the truncation error of fit(K, N), plus the noise both carry
 *         (Richardson's idea: the difference of two approximations of
 *         consecutive orders estimates the error of the lower one);
 *   amp_m = the noise amplification of derivative m (lib/samples_fit.c): the
 *         standard deviation the noise sigma (the largest of the block's
 *         entries) gives it.
 * Truncation falls with K and with smaller windows; the noise term grows
 * with K and falls with larger windows, so the minimum balances the two, as
 * Ridders' step choice does for a finite difference.  Windows are tried in
 * increasing size: N = 2 .. 18 (each one's QR gives all degrees below N,
 * interpolation included), then N growing by a quarter up to 160 samples;
 * the search stops once three consecutive windows improved no order.
 * Degrees go up to SAMPLES_AUTO_MAX_DEGREE.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samples_impl.h"

#define NOISE_MEDIAN_GAUSS 0.6744897501960817

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Divided-difference weights of samples k .. k+q+1 (times scaled to [0, 1]),
 * normalised to ||w||_2 = 1. */
static void dd_weights(const samples_state *s, size_t k, int q, double *w) {
  int np = q + 2;
  double t0 = s->t[k], span = s->t[k + (size_t)np - 1] - t0, nrm = 0.0;
  for (int j = 0; j < np; j++) {
    double xj = (s->t[k + (size_t)j] - t0) / span, p = 1.0;
    for (int i = 0; i < np; i++) {
      if (i != j) {
        p *= xj - (s->t[k + (size_t)i] - t0) / span;
      }
    }
    w[j] = 1.0 / p;
    nrm += w[j] * w[j];
  }
  nrm = sqrt(nrm);
  for (int j = 0; j < np; j++) {
    w[j] /= nrm;
  }
}

/* sigma per entry from the data (see the file comment); r: n * nrhs scratch. */
static void noise_estimate(samples_state *s, double *r) {
  static const int qs[] = {3, 5, 7, 9};
  double w[16];
  for (size_t e = 0; e < s->nrhs; e++) {
    s->sigma[e] = INFINITY;
  }
  for (size_t iq = 0; iq < sizeof qs / sizeof qs[0]; iq++) {
    int q = qs[iq];
    if (s->n < (size_t)q + 2 + 4) {
      break; /* too few windows for a median */
    }
    size_t nw = s->n - (size_t)q - 1;
    for (size_t k = 0; k < nw; k++) {
      dd_weights(s, k, q, w);
      for (size_t e = 0; e < s->nrhs; e++) {
        double d = 0.0;
        for (int j = 0; j < q + 2; j++) {
          d += w[j] * s->v[(k + (size_t)j) * s->nrhs + e];
        }
        r[e * nw + k] = fabs(d);
      }
    }
    for (size_t e = 0; e < s->nrhs; e++) {
      double *re = r + e * nw;
      qsort(re, nw, sizeof *re, cmp_double);
      double med = nw % 2 ? re[nw / 2] : 0.5 * (re[nw / 2 - 1] + re[nw / 2]);
      double sig = med / NOISE_MEDIAN_GAUSS;
      s->sigma[e] = sig < s->sigma[e] ? sig : s->sigma[e];
    }
  }
  for (size_t e = 0; e < s->nrhs; e++) {
    s->sigma[e] = isfinite(s->sigma[e]) ? s->sigma[e] : 0.0; /* too few samples to tell */
  }
}

lth_status samples_noise_init(samples_state *s, lth_error *err) {
  s->sigma = calloc(s->nrhs, sizeof *s->sigma);
  double *r = s->noise_kind == LTH_SAMPLES_NOISE_ESTIMATED
                  ? malloc(s->n * s->nrhs * sizeof *r)
                  : NULL;
  if (!s->sigma || (s->noise_kind == LTH_SAMPLES_NOISE_ESTIMATED && !r)) {
    free(r);
    return lth_error_set(err, LTH_ENOMEM, "out of memory estimating the noise of %zu samples",
                         s->n);
  }
  if (r) {
    noise_estimate(s, r);
    free(r);
  }
  s->sigma_max = 0.0;
  for (size_t e = 0; e < s->nrhs; e++) {
    double vmax = 0.0;
    for (size_t k = 0; k < s->n; k++) {
      vmax = fmax(vmax, fabs(s->v[k * s->nrhs + e]));
    }
    double floor = DBL_EPSILON * vmax, sig = s->sigma[e];
    if (s->noise_kind == LTH_SAMPLES_NOISE_ABSOLUTE) {
      sig = s->noise_declared;
    } else if (s->noise_kind == LTH_SAMPLES_NOISE_RELATIVE) {
      sig = s->noise_declared * vmax;
    }
    s->sigma[e] = sig > floor ? sig : floor;
    s->sigma_max = fmax(s->sigma_max, s->sigma[e]);
  }
  return LTH_OK;
}

/* ---- the automatic choice ---- */

#define SEL_COLS (SAMPLES_AUTO_MAX_DEGREE + 2)
#define SEL_STALL 3

size_t samples_select_size(const samples_state *s) {
  size_t c = SEL_COLS, cm = (size_t)SAMPLES_AUTO_MAX_ORDER + 1;
  return samples_qr_size(s) + c * c * s->nrhs + c * s->nrhs + 2 * c * c + c + cm;
}

typedef struct sel_ctx {
  const samples_state *s;
  int M;               /* orders 0..M */
  double xp[3];        /* probes in units of u */
  double best[SAMPLES_AUTO_MAX_ORDER + 1];
  unsigned choice[SAMPLES_AUTO_MAX_ORDER + 1];
  int improved;
} sel_ctx;

/* Candidate fit a (degree K on N samples) against b (degree kb > K). */
static void candidate(sel_ctx *c, int K, size_t N, const double *a, const double *b, int kb,
                      const double *amp) {
  int top = K < c->M ? K : c->M;
  for (int m = 0; m <= top; m++) {
    double T = samples_diff_deriv(c->s, a, SEL_COLS, K, b, SEL_COLS, kb, m, c->xp, 3);
    double E = T + c->s->sigma_max * amp[m];
    if (E < c->best[m]) {
      c->improved |= E < 0.999 * c->best[m];
      c->best[m] = E;
      c->choice[m] = (unsigned)K | (unsigned)N << 8;
    }
  }
}

/* Next window size after N (see the file comment). */
static size_t next_window(size_t N) {
  return N < SEL_COLS ? N + 1 : N + (N + 3) / 4;
}

static lth_status select_cell(const samples_state *s, size_t cell, double *work,
                              unsigned *choice, lth_error *err) {
  size_t i = cell * s->stride + s->stride / 2, cC = SEL_COLS, blk = cC * s->nrhs;
  i = i > s->n - 2 ? s->n - 2 : i;
  double tc = 0.5 * (s->t[i] + s->t[i + 1]), u = s->t[i + 1] - s->t[i];
  double *coefs = work + samples_qr_size(s), *pend = coefs + cC * blk;
  double *amp = pend + blk, *rinv = amp + cC * cC, *pamp = rinv + cC * cC;
  sel_ctx c = {s, s->maxorder, {-0.5, 0.0, 0.5}, {0}, {0}, 0};
  for (int m = 0; m <= c.M; m++) {
    c.best[m] = INFINITY;
  }
  size_t nmax = s->n < (size_t)s->maxwin ? s->n : (size_t)s->maxwin, Np = 0;
  int stall = 0, Kp = -1;
  for (size_t N = 2; N <= nmax && stall < SEL_STALL; N = next_window(N)) {
    int C = N < cC ? (int)N : (int)cC;
    samples_qr q;
    lth_status st = samples_qr_factor(s, tc, samples_window(s, i, N), N, C, work, &q, err);
    for (int K = 0; K < C && st == LTH_OK; K++) {
      st = samples_qr_coef(s, &q, K, u, coefs + (size_t)K * blk, (int)cC, err);
    }
    if (st == LTH_OK) {
      st = samples_qr_amp(&q, u, rinv, amp, (int)cC, err);
    }
    if (st != LTH_OK) {
      return st;
    }
    c.improved = 0;
    if (Kp >= 0 && N == Np + 1 && Kp + 1 < C) { /* the last window's interpolant */
      candidate(&c, Kp, Np, pend, coefs + (size_t)(Kp + 1) * blk, Kp + 1, pamp);
    }
    Kp = -1;
    for (int K = 0; K + 2 < C && K <= SAMPLES_AUTO_MAX_DEGREE; K++) { /* least squares */
      candidate(&c, K, N, coefs + (size_t)K * blk, coefs + (size_t)(K + 2) * blk, K + 2,
                amp + (size_t)K * cC);
    }
    if ((size_t)C == N && C - 1 <= SAMPLES_AUTO_MAX_DEGREE) { /* interpolation */
      Kp = C - 1;
      Np = N;
      memcpy(pend, coefs + (size_t)Kp * blk, blk * sizeof *pend);
      memcpy(pamp, amp + (size_t)Kp * cC, cC * sizeof *pamp);
    }
    stall = c.improved ? 0 : stall + 1;
  }
  for (int m = 0; m <= c.M; m++) {
    choice[m] = c.best[m] < INFINITY ? c.choice[m] : 0; /* 0: too few samples */
  }
  return LTH_OK;
}

lth_status samples_choice(const samples_state *s, size_t i, int m, int *K, size_t *N,
                          double *work, lth_error *err) {
  if (s->K > 0) {
    *K = s->K;
    *N = (size_t)s->K + 1;
    return LTH_OK;
  }
  size_t cell = i / s->stride, cm = (size_t)SAMPLES_AUTO_MAX_ORDER + 1;
  cell = cell < s->ncell ? cell : s->ncell - 1;
  atomic_uint *ch = s->choice + cell * cm;
  if (!atomic_load_explicit(&s->cell_done[cell], memory_order_acquire)) {
    unsigned local[SAMPLES_AUTO_MAX_ORDER + 1] = {0};
    lth_status st = select_cell(s, cell, work, local, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int k = 0; k <= s->maxorder; k++) {
      atomic_store_explicit(&ch[k], local[k], memory_order_relaxed);
    }
    atomic_store_explicit(&s->cell_done[cell], 1u, memory_order_release);
  }
  unsigned c = atomic_load_explicit(&ch[m], memory_order_relaxed);
  *K = (int)(c & 0xffu);
  *N = c >> 8;
  return *N > 0 ? LTH_OK
                : lth_error_set(err, LTH_EORDER,
                                "%zu samples give no fit for derivative order %d", s->n, m);
}
