/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled data at a time t: the fits of t's cell, their Taylor coefficients
 * at t, the alternative fits they are checked against, and the error
 * estimate (lib/samples/samples_impl.h, docs/sampled-data.md).
 *
 * For derivative order m in a cell the chosen fit is (degree K, window of N
 * samples): `sampling order K` with N = K + 1, or the automatic choice of
 * lib/samples/samples_select.c.  The alternative fit is the one the choice compared
 * it with: degree K + 2 on the same window (automatic mode), or degree K + 1
 * on one more sample (interpolation, fixed degree).  With a fixed degree and
 * exactly K + 1 samples there is no larger window: the alternative is then
 * degree K - 1 on the same samples, which overestimates.
 *
 * The fits of a cell are polynomials in x = (t - tc) / u (tc the cell's
 * centre, u its width), one per order; orders 0..kept are made on first use
 * and kept (the choice and, within the memory budget, the polynomials), so
 * that a fill costs one polynomial evaluation per order.  Fits that share a
 * window share one QR factorisation.
 *
 * The estimate of the error of derivative m at t is
 *     est_m = max over t's sample interval (its ends and middle) and t itself,
 *             and the entries, of |d^m/dt^m (chosen - alternative)|
 *             + 3 sigma amp_m,
 * the first term the leading truncation error (over the interval, so that it
 * does not vanish where that leading term happens to cross zero), the
 * second three standard deviations of the noise level sigma propagated to
 * derivative m (lib/samples/samples_fit.c).  An estimate, not a bound.
 */
#include <math.h>
#include <string.h>

#include "samples_impl.h"

/* The alternative fit of (K, N) (see the file comment). */
static void alt_fit(const samples_state *s, int K, size_t N, int *Ka, size_t *Na) {
  if (s->K == 0) {
    *Ka = K + 2;
    *Na = N;
  } else if (N + 1 <= s->n) {
    *Ka = K + 1;
    *Na = N + 1;
  } else {
    *Ka = K - 1;
    *Na = N;
  }
}

size_t samples_polys_size(const samples_state *s, int M) {
  return (size_t)(M + 1) * (size_t)s->maxcol * s->nrhs;
}

/* Scratch of the QR and one fit (coefficients of every entry). */
static size_t fit_size(const samples_state *s) {
  return samples_qr_size(s) + (size_t)s->maxcol * s->nrhs;
}

size_t samples_eval_size(const samples_state *s) {
  size_t c = (size_t)s->maxcol, sel = s->K > 0 ? 0 : samples_select_size(s);
  size_t est = 2 * fit_size(s) + c * c + c * c; /* two fits, amplifications, R^{-1} */
  size_t scratch = sel > est ? sel : est;
  /* then the polynomials of two sets of fits and one set of choices */
  return scratch + 2 * samples_polys_size(s, s->maxorder) + (size_t)s->maxorder + 1;
}

/* The polynomials of the fits (Km[m], Nm[m]), m = m0..M, of a cell into P
 * (orders below m0 untouched): coefficient j of order m's polynomial for
 * entry e at P[m*maxcol*nrhs + j + e*maxcol] (zero above its degree). */
static lth_status cell_polys(const samples_state *s, size_t cell, int m0, int M, const int *Km,
                             const size_t *Nm, double *P, double *work, lth_error *err) {
  size_t a, b, c = (size_t)s->maxcol, blk = c * s->nrhs;
  double tc, u;
  samples_cell(s, cell, &a, &b, &tc, &u);
  double *cf = work + samples_qr_size(s);
  int done[SAMPLES_MAX_DEGREE + 1] = {0};
  lth_status st = LTH_OK;
  memset(P + (size_t)m0 * blk, 0, (size_t)(M + 1 - m0) * blk * sizeof *P);
  for (int m = m0; m <= M && st == LTH_OK; m++) {
    if (done[m]) {
      continue;
    }
    int C = 0; /* one factorisation for every order that uses window Nm[m] */
    for (int k = m; k <= M; k++) {
      C = !done[k] && Nm[k] == Nm[m] && Km[k] + 1 > C ? Km[k] + 1 : C;
    }
    samples_qr q;
    st = samples_qr_factor(s, tc, samples_window(s, cell, Nm[m]), Nm[m], C, work, &q, err);
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

/* Automatic choice of orders m0..M (into ch[m0..M]), or the fixed one.
 * Orders 0..s->low are chosen for themselves (one window serves them), so
 * that asking for higher orders does not change the fits the decomposition
 * uses; the orders above are chosen with all orders up to max(M, kept). */
static lth_status choose_orders(const samples_state *s, size_t cell, int m0, int M, unsigned *ch,
                                double *work, lth_error *err) {
  if (s->K > 0) {
    for (int m = m0; m <= M; m++) {
      ch[m] = (unsigned)s->K | (unsigned)(s->K + 1) << 8;
    }
    return LTH_OK;
  }
  int low = M < s->low ? M : s->low;
  lth_status st = m0 <= low ? samples_select(s, cell, low, work, ch, err) : LTH_OK;
  if (st == LTH_OK && M > low) {
    /* the kept orders are always chosen together (M = kept), whichever are
     * asked for: every thread and every call gets the same fits */
    unsigned high[SAMPLES_AUTO_MAX_ORDER + 1] = {0};
    st = samples_select(s, cell, M > s->kept ? M : s->kept, work, high, err);
    for (int m = low + 1; st == LTH_OK && m <= M; m++) {
      ch[m] = high[m];
    }
  }
  return st;
}

static lth_status choose(const samples_state *s, size_t cell, int M, unsigned *ch, double *work,
                         lth_error *err) {
  return choose_orders(s, cell, 0, M, ch, work, err);
}

static void unpack(const unsigned *ch, int M, int *Km, size_t *Nm) {
  for (int m = 0; m <= M; m++) {
    Km[m] = (int)(ch[m] & 0xffu);
    Nm[m] = ch[m] >> 8;
  }
}

/* Orders of kept group g of a cell: 0..low, then low+1..kept. */
static void group_orders(const samples_state *s, int g, int *m0, int *m1) {
  *m0 = g ? s->low + 1 : 0;
  *m1 = g ? s->kept : s->low;
}

/* Make kept group g of a cell: its choices into ch (when kept: automatic
 * mode) and its polynomials into P (when kept: within the memory budget). */
static lth_status make_group(const samples_state *s, size_t cell, int g, unsigned *ch, double *P,
                             double *work, lth_error *err) {
  int m0, m1;
  group_orders(s, g, &m0, &m1);
  unsigned own[SAMPLES_AUTO_MAX_ORDER + SAMPLES_MAX_DEGREE + 2];
  unsigned *cw = ch ? ch : own;
  lth_status st = choose_orders(s, cell, m0, m1, cw, work, err);
  if (st != LTH_OK || !P) {
    return st;
  }
  int Km[SAMPLES_MAX_DEGREE + 1] = {0};
  size_t Nm[SAMPLES_MAX_DEGREE + 1] = {0};
  for (int m = m0; m <= m1; m++) {
    Km[m] = (int)(cw[m] & 0xffu);
    Nm[m] = cw[m] >> 8;
  }
  return Nm[m1] > 0 ? cell_polys(s, cell, m0, m1, Km, Nm, P, work, err) : LTH_OK;
}

/* The kept choices and polynomials of orders 0..order <= s->kept of a cell
 * (see lib/samples/samples_impl.h), kept in two groups, the decomposition's orders
 * 0..low and the orders above, each made on first use: both ready, made and
 * stored now, or, while another thread stores one, made into the caller's
 * buffers ch_own / P_own.  *P is NULL when the polynomials are not kept
 * (over the memory budget) and were not made here. */
static lth_status cell_kept(const samples_state *s, size_t cell, int order, const unsigned **ch,
                            const double **P, unsigned *ch_own, double *P_own, double *work,
                            lth_error *err) {
  int M = s->kept, G = order > s->low ? 2 : 1;
  int ready = s->choice || s->cache; /* a fixed degree without a cache keeps nothing */
  unsigned *ch_slot = s->choice ? s->choice + cell * (size_t)(M + 1) : NULL;
  double *P_slot = s->cache ? s->cache + cell * samples_polys_size(s, M) : NULL;
  for (int g = 0; g < G && ready; g++) {
    atomic_uchar *cs = &s->cell_state[2 * cell + (size_t)g];
    unsigned char state = atomic_load_explicit(cs, memory_order_acquire), expect = 0;
    if (state == 2) {
      continue;
    }
    if (state == 0 && atomic_compare_exchange_strong_explicit(cs, &expect, 1, memory_order_acquire,
                                                              memory_order_relaxed)) {
      lth_status st = make_group(s, cell, g, ch_slot, P_slot, work, err);
      atomic_store_explicit(cs, st == LTH_OK ? 2 : 0, memory_order_release);
      if (st != LTH_OK) {
        return st;
      }
      continue;
    }
    ready = 0; /* another thread is storing it: make our own copy */
  }
  if (ready) {
    *ch = ch_slot ? ch_slot : ch_own;
    *P = P_slot;
    return ch_slot ? LTH_OK : choose(s, cell, order, ch_own, work, err); /* fixed: not kept */
  }
  /* the same fits as the kept ones, made the same way: group by group */
  lth_status st = LTH_OK;
  for (int g = 0; g < G && st == LTH_OK; g++) {
    st = make_group(s, cell, g, ch_own, P_own, work, err);
  }
  *ch = ch_own;
  *P = P_own;
  return st;
}

/* Choices of orders 0..order of a cell (Km, Nm), alternative fits when
 * variant, and when available the kept polynomials (*P, else NULL). */
static lth_status fits_of(const samples_state *s, size_t cell, int order, int variant, int *Km,
                          size_t *Nm, const double **P, double *work, lth_error *err) {
  size_t scratch =
      samples_eval_size(s) - 2 * samples_polys_size(s, s->maxorder) - (size_t)s->maxorder - 1;
  double *P_own = work + scratch;
  unsigned ch_own[SAMPLES_AUTO_MAX_ORDER + SAMPLES_MAX_DEGREE + 2];
  const unsigned *ch = ch_own;
  lth_status st;
  *P = NULL;
  if (order <= s->kept) {
    st = cell_kept(s, cell, order, &ch, P, ch_own, P_own, work, err);
  } else {
    st = choose(s, cell, order, ch_own, work, err); /* above the kept orders: not kept */
  }
  if (st != LTH_OK) {
    return st;
  }
  unpack(ch, order, Km, Nm);
  for (int m = 0; m <= order; m++) {
    if (Nm[m] == 0) {
      return lth_error_set(err, LTH_EORDER, "%zu samples give no fit for derivative order %d", s->n,
                           m);
    }
    if (variant) {
      alt_fit(s, Km[m], Nm[m], &Km[m], &Nm[m]);
    }
  }
  if (variant) {
    *P = NULL;
  }
  return LTH_OK;
}

/* binom[j] = C(j, m) for j = m..deg. */
static void binomials(int m, int deg, double *binom) {
  binom[m] = 1.0;
  for (int j = m + 1; j <= deg; j++) {
    binom[j] = binom[j - 1] * (double)j / (double)(j - m);
  }
}

/* Taylor coefficient m at x of the polynomial p of degree deg (unit u):
 * (1 / u^m) sum_{j >= m} C(j, m) p_j x^(j - m). */
static double taylor_at(const double *p, const double *binom, int deg, int m, double x, double um) {
  double acc = 0.0;
  for (int j = deg; j >= m; j--) {
    acc = acc * x + binom[j] * p[j];
  }
  return acc / um;
}

lth_status samples_eval(const samples_state *s, double t, int order, int variant, double *coef,
                        int ld, double *work, lth_error *err) {
  size_t cell = samples_cell_of(s, t), a, b, c = (size_t)s->maxcol, blk = c * s->nrhs;
  double tc, u;
  samples_cell(s, cell, &a, &b, &tc, &u);
  int Km[SAMPLES_MAX_DEGREE + 1];
  size_t Nm[SAMPLES_MAX_DEGREE + 1];
  const double *P = NULL;
  lth_status st = fits_of(s, cell, order, variant, Km, Nm, &P, work, err);
  if (st == LTH_OK && !P) {
    double *own =
        work + samples_eval_size(s) - samples_polys_size(s, s->maxorder) - (size_t)s->maxorder - 1;
    st = cell_polys(s, cell, 0, order, Km, Nm, own, work, err);
    P = own;
  }
  if (st != LTH_OK) {
    return st;
  }
  double x = (t - tc) / u, um = 1.0, binom[SAMPLES_MAX_DEGREE + 3];
  for (int m = 0; m <= order; m++, um *= u) {
    binomials(m, Km[m], binom);
    for (size_t e = 0; e < s->nrhs; e++) {
      coef[(size_t)m + e * (size_t)ld] =
          taylor_at(P + (size_t)m * blk + e * c, binom, Km[m], m, x, um);
    }
  }
  return LTH_OK;
}

/* Coefficients (unit u, centre tc) of the degree-K fit on window N of a cell
 * into cf (ld maxcol); amp (optional) gets its amplifications. */
static lth_status fit_at(const samples_state *s, size_t cell, int K, size_t N, double *work,
                         double *cf, double *amp, double *rinv, lth_error *err) {
  size_t a, b;
  double tc, u;
  samples_cell(s, cell, &a, &b, &tc, &u);
  samples_qr q;
  lth_status st = samples_qr_factor(s, tc, samples_window(s, cell, N), N, K + 1, work, &q, err);
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
  size_t Nm[SAMPLES_MAX_DEGREE + 1], Na[SAMPLES_MAX_DEGREE + 1];
  size_t cell = samples_cell_of(s, t), a0, b0, c = (size_t)s->maxcol, fs = fit_size(s);
  double tc, u;
  samples_cell(s, cell, &a0, &b0, &tc, &u);
  const double *P = NULL;
  lth_status st = fits_of(s, cell, order, 0, Km, Nm, &P, work, err);
  for (int m = 0; st == LTH_OK && m <= order; m++) {
    alt_fit(s, Km[m], Nm[m], &Ka[m], &Na[m]);
  }
  /* probes: t's sample interval (its ends and middle) and t itself */
  size_t i = samples_interval(s, t);
  double x = (t - tc) / u, xi = (s->t[i] - tc) / u, xj = (s->t[i + 1] - tc) / u;
  double xp[4] = {xi, 0.5 * (xi + xj), xj, x};
  double *fa = work + samples_qr_size(s), *fb = work + fs + samples_qr_size(s);
  double *amp = work + 2 * fs, *rinv = amp + c * c, um = 1.0;
  for (int m = 0; m <= order && st == LTH_OK; m++, um *= u) {
    int K = Km[m], KA = Ka[m];
    if (m == 0 || K != Km[m - 1] || Nm[m] != Nm[m - 1] || KA != Ka[m - 1] || Na[m] != Na[m - 1]) {
      st = fit_at(s, cell, K, Nm[m], work, fa, amp, rinv, err);
      if (st == LTH_OK) {
        st = fit_at(s, cell, KA, Na[m], work + fs, fb, NULL, NULL, err);
      }
      if (st != LTH_OK) {
        break;
      }
    }
    double T = samples_diff_deriv(s, fa, (int)c, K, fb, (int)c, KA, m, xp, 4);
    double S = m <= K ? SAMPLES_NOISE_COVER * s->sigma_max * amp[(size_t)m + (size_t)K * c] : 0.0;
    est[m] = (T + S) / um;
    double binom[SAMPLES_MAX_DEGREE + 3];
    binomials(m, KA, binom);
    for (size_t e = 0; alt && e < s->nrhs; e++) {
      alt[(size_t)m + e * (size_t)ld] = m <= KA ? taylor_at(fb + e * c, binom, KA, m, x, um) : 0.0;
    }
  }
  return st;
}

lth_status samples_fit_of(const samples_state *s, double t, int m, int *K, size_t *N, double *work,
                          lth_error *err) {
  int Km[SAMPLES_MAX_DEGREE + 1];
  size_t Nm[SAMPLES_MAX_DEGREE + 1];
  const double *P = NULL;
  lth_status st = fits_of(s, samples_cell_of(s, t), m, 0, Km, Nm, &P, work, err);
  *K = st == LTH_OK ? Km[m] : 0;
  *N = st == LTH_OK ? Nm[m] : 0;
  return st;
}
