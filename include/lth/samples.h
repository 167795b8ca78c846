/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled matrix functions: a jet source built from values at strictly
 * increasing times (docs/format.md section 1.1, `samples(...)`; the method
 * is docs/sampled-data.md).
 *
 * Taylor coefficients are estimated from local polynomial least-squares fits
 * (LAPACK QR) -- the only source with truncation error.  Two modes:
 *   automatic (default): per cell of up to 16 sample intervals and per
 *     derivative order, the degree (up to 16) and the window (up to 160
 *     samples) with the smallest estimated total error: truncation,
 *     estimated by the difference to the degree K + 2 fit, plus the
 *     amplified noise, whose level is estimated from the data or declared
 *     (`sampling noise`);
 *   fixed (`sampling order K`): interpolation of degree K through the K + 1
 *     samples around t's sample interval.
 * For every derivative the source also gives an error estimate and an
 * alternative fit (the one the estimate compares with), from which
 * lth/sampling_error.h derives error estimates of the decomposition's outputs.
 */
#ifndef LTH_SAMPLES_H
#define LTH_SAMPLES_H

#include <stddef.h>

#include "lth/jet.h"
#include "lth/source.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* degree value meaning "choose automatically" */
#define LTH_SAMPLES_AUTO 0

typedef enum lth_samples_noise_kind {
  LTH_SAMPLES_NOISE_ESTIMATED = 0, /* from the data (the default) */
  LTH_SAMPLES_NOISE_ABSOLUTE = 1,  /* declared: standard deviation `noise` */
  LTH_SAMPLES_NOISE_RELATIVE = 2   /* declared: `noise` times each entry's largest |value| */
} lth_samples_noise_kind;

typedef struct lth_samples_opts {
  int degree;     /* LTH_SAMPLES_AUTO (default) or a fixed degree K = 1..30 */
  int noise_kind; /* lth_samples_noise_kind (default estimated) */
  double noise;   /* the declared level (>= 0) for the declared kinds */
  int need_order; /* derivatives up to this order must be available: with a
                     fixed degree K >= need_order is required; in automatic mode
                     at least need_order + 3 samples (default 0: no check) */
} lth_samples_opts;

void lth_samples_opts_init(lth_samples_opts *opts);

/* Sampled rows x cols matrix function.  times[0..n-1] strictly increasing;
 * values[k*rows*cols + i*cols + j] is entry (i, j) at times[k] (row-major per
 * sample, as in the CSV files).  Data are copied.  The domain is
 * [times[0], times[n-1]].  opts NULL: the defaults. */
lth_source *lth_source_samples_opts(int rows, int cols, size_t n, const double *times,
                                    const double *values, const lth_samples_opts *opts,
                                    lth_error *err);
/* Same with a fixed degree (degree >= 1, n >= degree + 1) or LTH_SAMPLES_AUTO. */
lth_source *lth_source_samples(int rows, int cols, size_t n, const double *times,
                               const double *values, int degree, lth_error *err);

/* Read a CSV file: column t, then the rows*cols entries in row-major order;
 * an optional header row (a first row none of whose cells looks like a
 * number); '#' comments and blank lines skipped.  Numbers are read exactly
 * as strtod reads them (correctly rounded, whatever their length), in the C
 * locale's syntax: [+-]digits[.digits][(e|E)[+-]digits]; anything else is an
 * error.  Errors name the CSV line and column (err->file = path, err->line,
 * err->column): wrong number of columns, non-numeric or non-finite cells, t
 * not strictly increasing, too few rows. */
lth_source *lth_samples_read_csv_opts(const char *path, int rows, int cols,
                                      const lth_samples_opts *opts, lth_error *err);
lth_source *lth_samples_read_csv(const char *path, int rows, int cols, int degree, lth_error *err);

/* 1 if src is a sampled source. */
int lth_source_is_samples(const lth_source *src);
/* The fixed degree of the fits, or LTH_SAMPLES_AUTO (0) in automatic mode. */
int lth_samples_degree(const lth_source *src);
/* Highest derivative order the source delivers: K with a fixed degree K;
 * in automatic mode min(12, n - 2). */
int lth_samples_max_order(const lth_source *src);
/* Sample times of a sampled source (n returned, *times set). */
size_t lth_samples_times(const lth_source *src, const double **times);
/* Noise level used (the largest over the entries: declared, or estimated
 * from the data, never below the values' rounding); *kind (may be NULL)
 * says which (lth_samples_noise_kind). */
double lth_samples_noise(const lth_source *src, int *kind);
/* The fit used for derivative order m at t: its degree and window size
 * (number of samples).  In automatic mode the choice is made on first use. */
lth_status lth_samples_fit_at(const lth_source *src, double t, int m, int *degree, size_t *window,
                              lth_error *err);

/* Error estimates of the derivatives of order 0..order at t: est[k] estimates
 * max over the entries of |error of the k-th derivative| as the difference
 * between the chosen fit and the alternative fit (largest over t's sample
 * interval) plus three times the noise level times the fit's noise
 * amplification (three standard deviations).  An estimate, not a bound: on
 * the test data it is about 0.5 to 10 times the true error
 * (tests/unit/samples/test_samples_auto.c).  Allocates (lth_samples_error_jet does not). */
lth_status lth_samples_error_estimate(const lth_source *src, double t, int order, double *est,
                                      lth_error *err);
/* Doubles of work lth_samples_error_jet and lth_samples_fill_alternative need. */
size_t lth_samples_error_work_size(const lth_source *src, int order);
/* As lth_samples_error_estimate, without allocating; if alt != NULL (rows x
 * cols, maxorder >= order) it receives the alternative (next-degree) fits'
 * Taylor coefficients, so that alt - (the source's own coefficients) shows
 * the pattern of the error over the entries. */
lth_status lth_samples_error_jet(const lth_source *src, double t, int order, double *est,
                                 lth_jet *alt, double *work, lth_error *err);
/* The alternative fits' Taylor coefficients at t (as lth_source_fill). */
lth_status lth_samples_fill_alternative(const lth_source *src, double t, int order, lth_jet *out,
                                        double *work, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
