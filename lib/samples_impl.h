/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the state of a sampled source (include/lth/samples.h), shared by
 * lib/samples.c (the source type), lib/samples_fit.c (local least-squares
 * fits by QR), lib/samples_select.c (noise level and the automatic choice of
 * degree and window) and lib/samples_est.c (error estimates).
 *
 * Units.  A fit of degree K on a window of N consecutive samples is a
 * polynomial in x = (t - tc) / u around a centre tc; its coefficient j of x^j
 * is c_j, and derivative m of the data at tc is estimated as m! c_j / u^m
 * (j = m).  The QR is done in the window's own scale (|x| <= 1); the
 * coefficients are then converted to the unit the caller asks for.
 */
#ifndef LTH_SAMPLES_IMPL_H
#define LTH_SAMPLES_IMPL_H

#include <stdatomic.h>
#include <stddef.h>

#include "lth/samples.h"

#define SAMPLES_MAX_DEGREE 30      /* `sampling order K`: K <= 30 */
#define SAMPLES_AUTO_MAX_DEGREE 16 /* highest degree the automatic choice tries */
#define SAMPLES_AUTO_MAX_ORDER 12  /* derivative orders served in automatic mode */
#define SAMPLES_CACHE_BUDGET ((size_t)1 << 23) /* doubles of fit cache per source, at most */
#define SAMPLES_MAX_WINDOW 160     /* largest least-squares window (samples) */
#define SAMPLES_MAX_CELLS 32       /* automatic choices are made per cell of intervals */
#define SAMPLES_ROUNDING 3.3e-17   /* 0.3 DBL_EPSILON: std of a correctly rounded value */
#define SAMPLES_NOISE_COVER 3.0    /* the error estimate's noise term: 3 standard deviations */

typedef struct samples_state {
  int rows, cols;
  size_t n;      /* number of samples */
  size_t nrhs;   /* rows * cols */
  double *t;     /* n times */
  double *v;     /* n * nrhs values, row-major per sample */
  int K;         /* fixed degree (`sampling order`), or 0: automatic */
  int maxorder;  /* highest derivative order fill serves */
  int maxwin;    /* largest window of any fit */
  int maxcol;    /* largest number of Vandermonde columns of any fit (degree + 1) */
  size_t lwork;  /* LAPACK workspace (dgeqrf, dormqr) of the largest fit */
  double *sigma; /* nrhs: noise level of each entry (declared or estimated, >= rounding) */
  double sigma_max;
  int noise_kind;        /* lth_samples_noise_kind */
  double noise_declared; /* as declared (absolute, or relative to each entry's max |value|) */
  /* automatic mode: the choice (degree, window) per derivative order and cell
   * of `stride` consecutive sample intervals, made on first use (fill may run
   * in several threads: the cells are atomics, and a choice is a pure
   * function of the data, so two threads making it at once agree) */
  size_t ncell, stride;
  int sel_orders;         /* orders 0..sel_orders are chosen together and kept */
  atomic_uint *cell_done; /* ncell: 1 once the cell's choices are kept */
  atomic_uint *choice;    /* ncell * (SAMPLES_AUTO_MAX_ORDER + 1): K | N << 8 */
  /* cache of the fits per sample interval (both modes): orders 0..cache_orders
   * as polynomials in x = (t - midpoint) / width, maxcol coefficients per entry
   * and order; -1: no cache (it would exceed SAMPLES_CACHE_BUDGET) */
  int cache_orders;
  atomic_uchar *cache_state; /* n - 1: 0 empty, 1 being written, 2 ready */
  double *cache;
} samples_state;

/* ---- windows and fits (lib/samples_fit.c) ---- */

/* Index i of the sample interval [t_i, t_i+1] holding t (clamped to 0..n-2). */
size_t samples_interval(const samples_state *s, double t);
/* First sample of the npts-sample window of interval i: npts / 2 samples up
 * to t_i and the rest after it (an odd one on the side of the nearer
 * neighbour), shifted inwards at the two ends of the data. */
size_t samples_window(const samples_state *s, size_t i, size_t npts);

/* QR factorisation of one window's Vandermonde matrix: columns x^0..x^(C-1)
 * with x = (t_k - tc) / hs, hs = max |t_k - tc| over the window. */
typedef struct samples_qr {
  size_t k0, N; /* samples k0 .. k0 + N - 1 */
  int C;        /* columns: fits of degree 0 .. C - 1 */
  double tc, hs;
  double *R;    /* N x C, dgeqrf's output (R in the upper triangle), ld N */
  double *tau;  /* C */
  double *QtB;  /* N x nrhs, Q^T times the values, ld N */
  double *lw;   /* LAPACK workspace, s->lwork doubles */
} samples_qr;

/* Doubles one samples_qr needs (window of s->maxwin samples, s->maxcol columns). */
size_t samples_qr_size(const samples_state *s);
/* Factor the window k0 .. k0+N-1 around tc with C <= N columns; the
 * samples_qr's arrays are carved from work (samples_qr_size doubles). */
lth_status samples_qr_factor(const samples_state *s, double tc, size_t k0, size_t N, int C,
                             double *work, samples_qr *q, lth_error *err);
/* Coefficients of the degree-K least-squares fit (K < q->C) in the unit u:
 * coef[j + e*ld] = c_j of entry e (row-major index i*cols + j) for j <= K,
 * x = (t - tc) / u.  ld >= K + 1. */
lth_status samples_qr_coef(const samples_state *s, const samples_qr *q, int K, double u,
                           double *coef, int ld, lth_error *err);
/* Noise amplification of the fits of degree K = 0 .. q->C-1 in the unit u:
 * amp[m + K*ldA] = m! ||row m of R_K^{-1}||_2 (u / hs)^m for m <= K, so that
 * sigma * amp is the standard deviation of derivative m (times u^m) caused
 * by independent noise of standard deviation sigma in the values.
 * rinv: q->C * q->C doubles of scratch. */
lth_status samples_qr_amp(const samples_qr *q, double u, double *rinv, double *amp, int ldA,
                          lth_error *err);

/* max over probes x_p and entries e of |d^m/dx^m sum_j d_j x^j| at x_p,
 * d_j = a[j + e*lda] - b[j + e*ldb] (coefficients above ka / kb are 0). */
double samples_diff_deriv(const samples_state *s, const double *a, int lda, int ka,
                          const double *b, int ldb, int kb, int m, const double *xp, int np);

/* ---- noise (lib/samples_noise.c) and the automatic choice (lib/samples_select.c) ---- */

/* Estimate each entry's noise level from the data (lib/samples_noise.c), or
 * apply the declared one; never below the rounding of the values.  Allocates. */
lth_status samples_noise_init(samples_state *s, lth_error *err);
/* The (degree, window) of derivative order m <= s->maxorder at interval i:
 * the fixed choice, or the automatic one of the interval's cell (made now
 * if needed, with scratch from work: samples_select_size doubles). */
lth_status samples_choice(const samples_state *s, size_t i, int m, int *K, size_t *N,
                          double *work, lth_error *err);
size_t samples_select_size(const samples_state *s);

/* ---- fill and the error estimate (lib/samples_est.c) ---- */

/* Coefficients 0..order at t of the chosen fits (variant 0) or of the
 * alternative fits the error estimate compares them with (variant 1), into
 * coef[m + e*ld] (Taylor coefficients in t). */
lth_status samples_eval(const samples_state *s, double t, int order, int variant, double *coef,
                        int ld, double *work, lth_error *err);
/* Error estimates est[0..order] of the derivatives at t (see
 * lib/samples_est.c) and, if alt != NULL, the alternative fits' Taylor
 * coefficients alt[m + e*ld]. */
lth_status samples_error(const samples_state *s, double t, int order, double *est, double *alt,
                         int ld, double *work, lth_error *err);
/* Doubles of work samples_eval and samples_error need. */
size_t samples_eval_size(const samples_state *s);

#endif
