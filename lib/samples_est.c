/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled data at a time t: the chosen fits' Taylor coefficients, the
 * alternative fits they are checked against, and the error estimate
 * (lib/samples_impl.h, docs/sampled-data.md).
 *
 * For derivative order m at t in the sample interval [t_i, t_i+1] the chosen
 * fit is (degree K, window of N samples) -- `sampling order K` with N = K + 1,
 * or the automatic choice of lib/samples_select.c -- and the alternative fit
 * is the next degree: K + 1 on the same window, or on one more sample when
 * the chosen fit interpolates (K + 1 = N).  With a fixed degree and exactly
 * K + 1 samples there is no larger window: the alternative is then degree
 * K - 1 on the same samples, which overestimates.
 *
 * The estimate of the error of derivative m is
 *     est_m = max over t_i, the midpoint, t_i+1 and t itself, and the entries,
 *             of |d^m/dt^m (chosen - alternative)|   +   sigma * amp_m,
 * the first term the leading truncation error (taken over the whole interval
 * so that it does not vanish where that leading term happens to cross zero),
 * the second the standard deviation the noise level sigma gives derivative m
 * (lib/samples_fit.c).  It is an estimate of the error's size, not a bound.
 *
 * Fits that share a window share one QR factorisation.  Nothing allocates.
 */
#include <math.h>
#include <string.h>

#include "samples_impl.h"

/* The alternative fit of (K, N) (see the file comment). */
static void alt_fit(const samples_state *s, int K, size_t N, int *Ka, size_t *Na) {
  if ((size_t)K + 1 < N) {
    *Ka = K + 2; /* least squares (automatic mode only: K + 2 < N, K + 2 <= 18) */
    *Na = N;
  } else if (N + 1 <= s->n) {
    *Ka = K + 1;
    *Na = N + 1;
  } else {
    *Ka = K - 1;
    *Na = N;
  }
}

static lth_status choices(const samples_state *s, size_t i, int order, int variant, int *Km,
                          size_t *Nm, double *work, lth_error *err) {
  for (int m = 0; m <= order; m++) {
    lth_status st = samples_choice(s, i, m, &Km[m], &Nm[m], work, err);
    if (st != LTH_OK) {
      return st;
    }
    if (variant) {
      alt_fit(s, Km[m], Nm[m], &Km[m], &Nm[m]);
    }
  }
  return LTH_OK;
}

/* Doubles of one set of interval polynomials of orders 0..M. */
static size_t polys_size(const samples_state *s, int M) {
  return (size_t)(M + 1) * (size_t)s->maxcol * s->nrhs;
}

size_t samples_eval_size(const samples_state *s) {
  size_t c = (size_t)s->maxcol;
  size_t a = samples_qr_size(s) + c * s->nrhs + polys_size(s, s->maxorder);
  size_t b = 2 * samples_qr_size(s) + 2 * c * s->nrhs + 2 * c * c;
  size_t sel = s->K > 0 ? 0 : samples_select_size(s);
  sel += polys_size(s, s->maxorder); /* the choice is made while the polynomials wait */
  a = a > b ? a : b;
  return a > sel ? a : sel;
}

/* The fits of orders 0..M at interval i (chosen, or alternative when
 * variant) as polynomials in x = (t - midpoint) / width: coefficient j of
 * order m's polynomial for entry e at P[m*maxcol*nrhs + j + e*maxcol] (zero
 * above its degree).  Orders sharing a window share its QR. */
static lth_status interval_polys(const samples_state *s, size_t i, int M, int variant, double *P,
                                 double *work, lth_error *err) {
  int Km[SAMPLES_MAX_DEGREE + 1], done[SAMPLES_MAX_DEGREE + 1] = {0};
  size_t Nm[SAMPLES_MAX_DEGREE + 1], c = (size_t)s->maxcol, blk = c * s->nrhs;
  lth_status st = choices(s, i, M, variant, Km, Nm, work, err);
  double tc = 0.5 * (s->t[i] + s->t[i + 1]), u = s->t[i + 1] - s->t[i];
  double *cf = work + samples_qr_size(s);
  memset(P, 0, (size_t)(M + 1) * blk * sizeof *P);
  for (int m = 0; m <= M && st == LTH_OK; m++) {
    if (done[m]) {
      continue;
    }
    int C = 0; /* one factorisation for every order that uses window Nm[m] */
    for (int k = m; k <= M; k++) {
      C = !done[k] && Nm[k] == Nm[m] && Km[k] + 1 > C ? Km[k] + 1 : C;
    }
    samples_qr q;
    st = samples_qr_factor(s, tc, samples_window(s, i, Nm[m]), Nm[m], C, work, &q, err);
    for (int K = 0; K < C && st == LTH_OK; K++) {
      int used = 0;
      for (int k = m; k <= M; k++) {
        used |= !done[k] && Nm[k] == Nm[m] && Km[k] == K;
      }
      if (!used || (st = samples_qr_coef(s, &q, K, u, cf, (int)c, err)) != LTH_OK) {
        continue;
      }
      for (int k = m; k <= M; k++) {
        if (!done[k] && Nm[k] == Nm[m] && Km[k] == K) {
          for (size_t e = 0; e < s->nrhs; e++) {
            memcpy(P + (size_t)k * blk + e * c, cf + e * c, ((size_t)K + 1) * sizeof *P);
          }
          done[k] = 1;
        }
      }
    }
  }
  return st;
}

/* The interval polynomials of orders 0..order: from the cache (filling it
 * on first use) or computed into work. */
static lth_status polys_for(const samples_state *s, size_t i, int order, int variant,
                            const double **P, double *work, lth_error *err) {
  double *own = work + samples_eval_size(s) - polys_size(s, s->maxorder);
  if (variant || order > s->cache_orders) {
    *P = own;
    return interval_polys(s, i, order, variant, own, work, err);
  }
  int Mc = s->cache_orders;
  double *slot = s->cache + i * polys_size(s, Mc);
  unsigned char state = atomic_load_explicit(&s->cache_state[i], memory_order_acquire);
  if (state == 2) {
    *P = slot;
    return LTH_OK;
  }
  unsigned char expect = 0;
  if (state == 0 && atomic_compare_exchange_strong_explicit(&s->cache_state[i], &expect, 1,
                                                            memory_order_acquire,
                                                            memory_order_relaxed)) {
    lth_status st = interval_polys(s, i, Mc, 0, slot, work, err);
    atomic_store_explicit(&s->cache_state[i], st == LTH_OK ? 2 : 0, memory_order_release);
    *P = slot;
    return st;
  }
  *P = own; /* another thread is filling the slot: do not wait for it */
  return interval_polys(s, i, Mc, 0, own, work, err);
}

lth_status samples_eval(const samples_state *s, double t, int order, int variant, double *coef,
                        int ld, double *work, lth_error *err) {
  size_t i = samples_interval(s, t), c = (size_t)s->maxcol, blk = c * s->nrhs;
  const double *P = NULL;
  lth_status st = polys_for(s, i, order, variant, &P, work, err);
  if (st != LTH_OK) {
    return st;
  }
  /* Taylor coefficient m at t: (1 / u^m) sum_{j >= m} C(j, m) p_j x^(j - m) */
  double u = s->t[i + 1] - s->t[i], x = (t - 0.5 * (s->t[i] + s->t[i + 1])) / u, um = 1.0;
  double binom[SAMPLES_MAX_DEGREE + 3];
  for (int m = 0; m <= order; m++, um *= u) {
    binom[m] = 1.0;
    for (size_t j = (size_t)m + 1; j < c; j++) {
      binom[j] = binom[j - 1] * (double)j / (double)(j - (size_t)m);
    }
    for (size_t e = 0; e < s->nrhs; e++) {
      const double *p = P + (size_t)m * blk + e * c;
      double acc = 0.0;
      for (size_t j = c; j-- > (size_t)m;) {
        acc = acc * x + binom[j] * p[j];
      }
      coef[(size_t)m + e * (size_t)ld] = acc / um;
    }
  }
  return LTH_OK;
}

/* Coefficients (unit u, centre t) of the degree-K fit on window N of
 * interval i into cf (ld maxcol); amp (optional) gets its amplifications. */
static lth_status fit_at(const samples_state *s, double t, size_t i, int K, size_t N, double u,
                         double *work, double *cf, double *amp, double *rinv, lth_error *err) {
  samples_qr q;
  lth_status st = samples_qr_factor(s, t, samples_window(s, i, N), N, K + 1, work, &q, err);
  if (st == LTH_OK) {
    st = samples_qr_coef(s, &q, K, u, cf, s->maxcol, err);
  }
  if (st == LTH_OK && amp) {
    st = samples_qr_amp(&q, u, rinv, amp, s->maxcol, err);
  }
  return st;
}

lth_status samples_error(const samples_state *s, double t, int order, double *est, double *alt,
                         int ld, double *work, lth_error *err) {
  int Km[SAMPLES_MAX_DEGREE + 1], Ka[SAMPLES_MAX_DEGREE + 1];
  size_t Nm[SAMPLES_MAX_DEGREE + 1], Na[SAMPLES_MAX_DEGREE + 1], i = samples_interval(s, t);
  size_t c = (size_t)s->maxcol, qs = samples_qr_size(s);
  lth_status st = choices(s, i, order, 0, Km, Nm, work, err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    alt_fit(s, Km[m], Nm[m], &Ka[m], &Na[m]);
  }
  double u = s->t[i + 1] - s->t[i];
  double xp[4] = {(s->t[i] - t) / u, (0.5 * (s->t[i] + s->t[i + 1]) - t) / u,
                  (s->t[i + 1] - t) / u, 0.0};
  double *a = work + 2 * qs, *b = a + c * s->nrhs, *amp = b + c * s->nrhs, *rinv = amp + c * c;
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    int K = Km[m], KA = Ka[m];
    if (m == 0 || K != Km[m - 1] || Nm[m] != Nm[m - 1] || KA != Ka[m - 1] || Na[m] != Na[m - 1]) {
      st = fit_at(s, t, i, K, Nm[m], u, work, a, amp, rinv, err);
      if (st == LTH_OK) {
        st = fit_at(s, t, i, KA, Na[m], u, work + qs, b, NULL, NULL, err);
      }
      if (st != LTH_OK) {
        break;
      }
    }
    double T = samples_diff_deriv(s, a, (int)c, K, b, (int)c, KA, m, xp, 4);
    double S = m <= K ? SAMPLES_NOISE_COVER * s->sigma_max * amp[(size_t)m + (size_t)K * c] : 0.0;
    double um = pow(u, m);
    est[m] = (T + S) / um;
    for (size_t e = 0; alt && e < s->nrhs; e++) {
      alt[(size_t)m + e * (size_t)ld] = m <= KA ? b[(size_t)m + e * c] / um : 0.0;
    }
  }
  return st;
}
