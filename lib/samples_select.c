/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The automatic choice of degree and window for sampled data
 * (lib/samples_impl.h; docs/sampled-data.md explains the method).
 *
 * For every cell of `stride` sample intervals the choice is made at the
 * cell's middle interval [t_i, t_i+1] (centre tc, width u).  Candidates are
 * least-squares fits of degree K on windows of N samples around it: for
 * every derivative order m, a candidate's estimated error is
 *     E_m(K, N) = T_m(K, N) + sigma * amp_m(K, N),
 *   T_m   = max over the interval (its ends and midpoint) and the entries of
 *           |d^m/dt^m (fit(K, N) - fit(K', N'))|, fit(K', N') the comparison
 *           fit: degree K + 2 on the same window for a least-squares fit
 *           (K + 2, not K + 1: on a window symmetric about the interval the
 *           fits of degrees 2j and 2j + 1 share their even part and would
 *           hide each other's error), or for an interpolant (K = N - 1)
 *           degree K + 1 on one more sample -- the leading term of the
 *           truncation error (Richardson's idea: the difference of two
 *           approximations of consecutive orders estimates the error of the
 *           lower one), plus the noise both fits carry;
 *   amp_m = the noise amplification of derivative m (lib/samples_fit.c), so
 *           that sigma * amp_m is the standard deviation the noise level
 *           sigma (the block's largest) gives it.
 * Truncation falls with K and with smaller windows; the noise term grows with
 * K and falls with larger windows; the smallest E balances the two, as
 * Ridders' choice of step does for a finite difference.
 *
 * Windows: N = 2 .. 18 (interpolants up to degree 16 and the least-squares
 * fits below them), then N growing by 30 % up to 160 samples, every one
 * tried (the gains of larger windows under noise are irregular: stopping
 * early loses them).  One QR per window (dgeqrf, dormqr) gives every degree
 * below N: R^{-1} (dtrtri) applied to the leading part of Q^T b gives the
 * coefficients of degree K as those of degree K - 1 plus one column, so the
 * derivatives at the probes and the amplifications of all degrees come from
 * running sums.
 *
 * One window per cell: the window N whose best fits are closest, over the
 * orders m, to each order's best (the smallest max_m E_m(N) / min_N E_m), and
 * for every order the best degree on it.  So one QR per interval serves every
 * order when the fits are evaluated (lib/samples_est.c).  The choice is a
 * function of the data and the orders 0..M it is made for; the orders chosen
 * together are fixed per source (samples_choice), so every thread and every
 * call makes the same.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "samples_impl.h"

#define SEL_COLS (SAMPLES_AUTO_MAX_DEGREE + 2)
#define SEL_NP 3  /* probes */
#define SEL_NWIN 40
#ifndef SEL_STEP
#define SEL_STEP 2
#endif
#ifndef SEL_GROW
#define SEL_GROW 4
#endif
#ifndef SEL_INTERP
#define SEL_INTERP 0
#endif
#ifndef SEL_SLACK
#define SEL_SLACK 2.0
#endif
#ifndef SEL_N0
#define SEL_N0 4
#endif
#define SEL_M (SAMPLES_AUTO_MAX_ORDER + 1)

/* Next window size after N (see the file comment). */
static size_t next_window(size_t N) {
  return N < SEL_COLS ? N + SEL_STEP : N + (SEL_GROW * N + 9) / 10;
}

size_t samples_select_size(const samples_state *s) {
  size_t c = SEL_COLS, m = SEL_M, np = SEL_NP;
  return samples_qr_size(s) + c * c + 2 * m * c * np + c * m * np * s->nrhs +
         m * np * s->nrhs + c * m + m + 2 * SEL_NWIN * m;
}

typedef struct sel {
  const samples_state *s;
  int M, C;        /* orders 0..M; columns of the current window */
  double *rinv;    /* C x C, ld SEL_COLS: R^{-1} in units of u (row j times (u/hs)^j) */
  double *phi;     /* phi[(m*SEL_COLS + j)*NP + p] = j!/(j-m)! x_p^(j-m) */
  double *psi;     /* psi[(l*SEL_M + m)*NP + p] = d^m/dx^m of column l of R^{-1} at x_p */
  double *dv;      /* dv[((K*SEL_M + m)*NP + p)*nrhs + e]: derivative m of fit K at x_p */
  double *pdv;     /* the previous window's interpolant: [(m*NP + p)*nrhs + e] */
  double *amp;     /* amp[K*SEL_M + m] */
  double *pamp;    /* the previous window's interpolant's */
  double *E, *Kb;  /* per window w and order m: best estimate and its degree */
} sel;

/* max over probes and entries of |dv_a - dv_b| for order m. */
static double probe_diff(const sel *c, const double *a, const double *b, int m) {
  size_t nr = c->s->nrhs, off = (size_t)m * SEL_NP * nr;
  double mx = 0.0;
  for (size_t k = 0; k < SEL_NP * nr; k++) {
    double d = fabs(a[off + k] - b[off + k]);
    mx = d > mx || d != d ? d : mx;
  }
  return mx;
}

static void offer(sel *c, int w, int m, int K, double E) {
  double *e = c->E + (size_t)w * SEL_M + (size_t)m;
  if (E < *e) {
    *e = E;
    c->Kb[(size_t)w * SEL_M + (size_t)m] = K;
  }
}

/* R^{-1}, the running sums of the derivatives at the probes and the
 * amplifications of every degree on window q. */
static lth_status window_sums(sel *c, const samples_qr *q, double u, lth_error *err) {
  int C = q->C;
  size_t nr = c->s->nrhs, L = SEL_COLS, N = q->N;
  for (int j = 0; j < C; j++) {
    for (int i = 0; i < C; i++) {
      c->rinv[i + (size_t)j * L] = i <= j ? q->R[i + (size_t)j * N] : 0.0;
    }
  }
  lapack_int info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', C, c->rinv, (lapack_int)L);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, q->tc,
                           "sampled data: the fit on samples %zu..%zu is singular (dtrtri info "
                           "%d)",
                           q->k0 + 1, q->k0 + N, (int)info);
  }
  double r = u / q->hs, sc = 1.0;
  for (int j = 0; j < C; j++, sc *= r) {
    for (int l = j; l < C; l++) {
      c->rinv[j + (size_t)l * L] *= sc;
    }
  }
  for (int l = 0; l < C; l++) {
    for (int m = 0; m <= c->M; m++) {
      for (int p = 0; p < SEL_NP; p++) {
        double acc = 0.0;
        for (int j = m; j <= l; j++) {
          acc += c->rinv[j + (size_t)l * L] * c->phi[((size_t)m * L + (size_t)j) * SEL_NP + p];
        }
        c->psi[((size_t)l * SEL_M + (size_t)m) * SEL_NP + (size_t)p] = acc;
      }
    }
  }
  size_t blk = (size_t)SEL_M * SEL_NP * nr;
  for (int K = 0; K < C; K++) {
    double *dv = c->dv + (size_t)K * blk;
    for (int m = 0; m <= c->M; m++) {
      for (int p = 0; p < SEL_NP; p++) {
        double ps = c->psi[((size_t)K * SEL_M + (size_t)m) * SEL_NP + (size_t)p];
        for (size_t e = 0; e < nr; e++) {
          size_t k = ((size_t)m * SEL_NP + (size_t)p) * nr + e;
          dv[k] = (K > 0 ? dv[k - blk] : 0.0) + q->QtB[(size_t)K + e * N] * ps;
        }
      }
    }
  }
  for (int m = 0; m <= c->M; m++) {
    double acc = 0.0, fact = 1.0;
    for (int k = 2; k <= m; k++) {
      fact *= k;
    }
    for (int K = 0; K < C; K++) {
      double x = K >= m ? c->rinv[m + (size_t)K * L] : 0.0;
      acc += x * x;
      c->amp[(size_t)K * SEL_M + (size_t)m] = fact * sqrt(acc);
    }
  }
  return LTH_OK;
}

/* The candidates of window w (N samples); Kp >= 0: the interpolant of the
 * previous window w - 1, now comparable. */
static void candidates(sel *c, int w, size_t N, int Kp) {
  size_t blk = (size_t)SEL_M * SEL_NP * c->s->nrhs;
  double sig = c->s->sigma_max;
  for (int m = 0; m <= c->M; m++) {
    if (Kp >= m) {
      double T = probe_diff(c, c->pdv, c->dv + (size_t)(Kp + 1) * blk, m);
      offer(c, w - 1, m, Kp, T + sig * c->pamp[m]);
    }
    for (int K = m; K + 2 < c->C && K <= SAMPLES_AUTO_MAX_DEGREE; K++) {
      double T = probe_diff(c, c->dv + (size_t)K * blk, c->dv + (size_t)(K + 2) * blk, m);
      offer(c, w, m, K, T + sig * c->amp[(size_t)K * SEL_M + (size_t)m]);
    }
  }
  if ((size_t)c->C == N && c->C - 1 <= SAMPLES_AUTO_MAX_DEGREE) { /* keep the interpolant */
    memcpy(c->pdv, c->dv + (size_t)(c->C - 1) * blk, blk * sizeof *c->pdv);
    for (int m = 0; m <= c->M; m++) {
      c->pamp[m] = c->amp[(size_t)(c->C - 1) * SEL_M + (size_t)m];
    }
  }
}

/* The common window and each order's degree on it (see the file comment). */
static void pick(const sel *c, const size_t *Nw, int nw, unsigned *choice) {
  double best[SEL_M];
  for (int m = 0; m <= c->M; m++) {
    best[m] = INFINITY;
    for (int w = 0; w < nw; w++) {
      best[m] = fmin(best[m], c->E[(size_t)w * SEL_M + (size_t)m]);
    }
  }
  int wbest = -1;
  double score[SEL_NWIN], smin = INFINITY;
  for (int w = 0; w < nw; w++) {
    double worst = 0.0;
    for (int m = 0; m <= c->M; m++) {
      double e = c->E[(size_t)w * SEL_M + (size_t)m];
      worst = fmax(worst, best[m] > 0.0 ? e / best[m] : (e > 0.0 ? INFINITY : 1.0));
    }
    score[w] = worst;
    smin = fmin(smin, worst);
  }
  /* the smallest window within a factor SEL_SLACK of the best score: the
   * estimates are not sharper than that, and smaller windows cost less */
  for (int w = nw - 1; w >= 0; w--) {
    wbest = score[w] <= SEL_SLACK * smin ? w : wbest;
  }
  for (int m = 0; m <= c->M; m++) {
    choice[m] = wbest < 0 ? 0
                          : (unsigned)c->Kb[(size_t)wbest * SEL_M + (size_t)m] |
                                (unsigned)Nw[wbest] << 8;
  }
}

static lth_status select_cell(const samples_state *s, size_t cell, int M, double *work,
                              unsigned *choice, lth_error *err) {
  size_t i = cell * s->stride + s->stride / 2, L = SEL_COLS, nr = s->nrhs;
  i = i > s->n - 2 ? s->n - 2 : i;
  double tc = 0.5 * (s->t[i] + s->t[i + 1]), u = s->t[i + 1] - s->t[i];
  double xp[SEL_NP] = {-0.5, 0.0, 0.5};
  sel c = {s, M, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  c.rinv = work + samples_qr_size(s);
  c.phi = c.rinv + L * L;
  c.psi = c.phi + (size_t)SEL_M * L * SEL_NP;
  c.dv = c.psi + (size_t)SEL_M * L * SEL_NP;
  c.pdv = c.dv + L * SEL_M * SEL_NP * nr;
  c.amp = c.pdv + (size_t)SEL_M * SEL_NP * nr;
  c.pamp = c.amp + L * SEL_M;
  c.E = c.pamp + SEL_M;
  c.Kb = c.E + (size_t)SEL_NWIN * SEL_M;
  for (int m = 0; m <= M; m++) { /* phi: derivative m of x^j at the probes */
    for (size_t j = 0; j < L; j++) {
      for (int p = 0; p < SEL_NP; p++) {
        double f = 1.0;
        for (size_t k = j - (size_t)m + 1; (int)j >= m && k <= j; k++) {
          f *= (double)k;
        }
        c.phi[((size_t)m * L + j) * SEL_NP + (size_t)p] =
            (int)j >= m ? f * pow(xp[p], (double)(j - (size_t)m)) : 0.0;
      }
    }
  }
  for (size_t k = 0; k < (size_t)SEL_NWIN * SEL_M; k++) {
    c.E[k] = INFINITY;
  }
  size_t nmax = s->n < (size_t)s->maxwin ? s->n : (size_t)s->maxwin, Nw[SEL_NWIN];
  int nw = 0, Kp = -1;
  for (size_t N = SEL_N0; N <= nmax && nw < SEL_NWIN; N = next_window(N), nw++) {
    c.C = N < L ? (int)N : (int)L;
    samples_qr q;
    lth_status st = samples_qr_factor(s, tc, samples_window(s, i, N), N, c.C, work, &q, err);
    if (st == LTH_OK) {
      st = window_sums(&c, &q, u, err);
    }
    if (st != LTH_OK) {
      return st;
    }
    Nw[nw] = N;
    int prev = Kp >= 0 && N == Nw[nw > 0 ? nw - 1 : 0] + 1 && Kp + 1 < c.C ? Kp : -1;
    Kp = SEL_INTERP && (size_t)c.C == N && c.C - 1 <= SAMPLES_AUTO_MAX_DEGREE ? c.C - 1 : -1;
    candidates(&c, nw, N, prev);
  }
  pick(&c, Nw, nw, choice);
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
  unsigned c = 0, local[SAMPLES_AUTO_MAX_ORDER + 1] = {0};
  if (m > s->sel_orders) {
    /* above the orders chosen together: chosen with the orders below it, not kept */
    lth_status st = select_cell(s, cell, m, work, local, err);
    if (st != LTH_OK) {
      return st;
    }
    c = local[m];
  } else {
    if (!atomic_load_explicit(&s->cell_done[cell], memory_order_acquire)) {
      lth_status st = select_cell(s, cell, s->sel_orders, work, local, err);
      if (st != LTH_OK) {
        return st;
      }
      for (int k = 0; k <= s->sel_orders; k++) {
        atomic_store_explicit(&ch[k], local[k], memory_order_relaxed);
      }
      atomic_store_explicit(&s->cell_done[cell], 1u, memory_order_release);
    }
    c = atomic_load_explicit(&ch[m], memory_order_relaxed);
  }
  *K = (int)(c & 0xffu);
  *N = c >> 8;
  return *N > 0 ? LTH_OK
                : lth_error_set(err, LTH_EORDER,
                                "%zu samples give no fit for derivative order %d", s->n, m);
}
