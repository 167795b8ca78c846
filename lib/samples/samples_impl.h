/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the state of a sampled source (include/lth/samples.h), shared by
 * lib/samples/samples.c (the source type), lib/samples/samples_fit.c (local least-squares
 * fits by QR), lib/samples/samples_select.c (noise level and the automatic choice of
 * degree and window) and lib/samples/samples_est.c (error estimates).
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

#define SAMPLES_MAX_DEGREE      30                /* `sampling order K`: K <= 30 */
#define SAMPLES_AUTO_MAX_DEGREE 16                /* highest degree the automatic choice tries */
#define SAMPLES_AUTO_MAX_ORDER  12                /* derivative orders served in automatic mode */
#define SAMPLES_MAX_WINDOW      160               /* largest least-squares window (samples) */
#define SAMPLES_CELL_TARGET     8                 /* automatic mode: about this many cells ... */
#define SAMPLES_CELL_MAX_STRIDE 16                /* ... of at most this many sample intervals */
#define SAMPLES_CACHE_BUDGET    ((size_t)1 << 23) /* doubles of fit cache per source, at most */
#define SAMPLES_ROUNDING        3.3e-17 /* 0.3 DBL_EPSILON: std of a correctly rounded value */
#define SAMPLES_NOISE_COVER     3.0     /* the error estimate's noise term: 3 standard deviations */

/* Cells.  The data are fitted cell by cell: a cell is `stride` consecutive
 * sample intervals, [t_a, t_b] with a = cell * stride, b = min(a + stride,
 * n - 1).  All t in a cell use the same fits: one polynomial per derivative
 * order, fitted on a window of samples placed around the cell.  With a fixed
 * degree K a cell is one interval and the window its K + 1 nearest samples
 * (interpolation); in automatic mode a cell is up to 8 intervals and its
 * fits are chosen per order (lib/samples/samples_select.c). */
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
  size_t ncell, stride;
  /* per cell, made on first use (fill may run in several threads: the thread
   * that moves cell_state from 0 to 1 writes the cell's data and then sets 2;
   * others read the data only after seeing 2, and meanwhile compute their own
   * copy, which is the same: everything is a function of the data alone) */
  int kept;                 /* orders 0..kept are kept per cell */
  int low;                  /* automatic mode: orders 0..low (the decomposition's) are chosen
                               for themselves, the orders above them with them but without
                               changing their choice (lib/samples/samples_est.c) */
  atomic_uchar *cell_state; /* 2 ncell: per cell, of orders 0..low and low+1..kept (made
                               on first use of each): 0 empty, 1 being written, 2 ready */
  unsigned *choice;         /* ncell * (kept + 1): degree | window << 8 (automatic mode) */
  double *cache;            /* ncell * polys_size(kept), or NULL (over the budget) */
} samples_state;

/* ---- cells, windows and fits (lib/samples/samples_fit.c) ---- */

/* Index i of the sample interval [t_i, t_i+1] holding t (clamped to 0..n-2). */
size_t samples_interval(const samples_state *s, double t);
/* The cell holding t. */
size_t samples_cell_of(const samples_state *s, double t);
/* Cell geometry: samples a..b, centre tc, width u = t_b - t_a. */
void samples_cell(const samples_state *s, size_t cell, size_t *a, size_t *b, double *tc, double *u);
/* First sample of the npts-sample window of a cell (npts >= its b - a + 1
 * samples): the extra samples split evenly on both sides (an odd one on the
 * side of the nearer neighbour), shifted inwards at the ends of the data. */
size_t samples_window(const samples_state *s, size_t cell, size_t npts);

/* QR factorisation of one window's Vandermonde matrix: columns x^0..x^(C-1)
 * with x = (t_k - tc) / hs, hs = max |t_k - tc| over the window. */
typedef struct samples_qr {
  size_t k0, N; /* samples k0 .. k0 + N - 1 */
  int C;        /* columns: fits of degree 0 .. C - 1 */
  double tc, hs;
  double *R;   /* N x C, dgeqrf's output (R in the upper triangle), ld N */
  double *tau; /* C */
  double *QtB; /* N x nrhs, Q^T times the values, ld N */
  double *lw;  /* LAPACK workspace, s->lwork doubles */
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
double samples_diff_deriv(const samples_state *s, const double *a, int lda, int ka, const double *b,
                          int ldb, int kb, int m, const double *xp, int np);

/* ---- noise (lib/samples/samples_noise.c) and the automatic choice (lib/samples/samples_select.c)
 * ---- */

/* Estimate each entry's noise level from the data (lib/samples/samples_noise.c), or
 * apply the declared one; never below the rounding of the values.  Allocates. */
lth_status samples_noise_init(samples_state *s, lth_error *err);
/* Automatic mode: the fits (degree | window << 8) of orders 0..M of a cell,
 * into choice[0..M] (0: no fit, too few samples).  work: samples_select_size. */
lth_status samples_select(const samples_state *s, size_t cell, int M, double *work,
                          unsigned *choice, lth_error *err);
size_t samples_select_size(const samples_state *s);

/* ---- fits of a cell, fill and the error estimate (lib/samples/samples_est.c) ---- */

/* Doubles of one set of cell polynomials of orders 0..M. */
size_t samples_polys_size(const samples_state *s, int M);
/* Coefficients 0..order at t of the chosen fits (variant 0) or of the
 * alternative fits the error estimate compares them with (variant 1), into
 * coef[m + e*ld] (Taylor coefficients in t). */
lth_status samples_eval(const samples_state *s, double t, int order, int variant, double *coef,
                        int ld, double *work, lth_error *err);
/* Error estimates est[0..order] of the derivatives at t (see
 * lib/samples/samples_est.c) and, if alt != NULL, the alternative fits' Taylor
 * coefficients alt[m + e*ld]. */
lth_status samples_error(const samples_state *s, double t, int order, double *est, double *alt,
                         int ld, double *work, lth_error *err);
/* The fit (degree, window) of order m at t (for reports). */
lth_status samples_fit_of(const samples_state *s, double t, int m, int *K, size_t *N, double *work,
                          lth_error *err);
/* Doubles of work samples_eval, samples_error and samples_fit_of need. */
size_t samples_eval_size(const samples_state *s);

#endif
