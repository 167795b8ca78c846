/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled matrix functions: a jet source built from values at strictly
 * increasing times.  Taylor coefficients are estimated from local polynomial
 * fits (the only source with truncation error); an error estimate compares
 * fits of two degrees.  docs/format.md section 1.1, `samples(...)` and
 * `sampling order K`.
 */
#ifndef LTH_SAMPLES_H
#define LTH_SAMPLES_H

#include <stddef.h>

#include "lth/source.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sampled rows x cols matrix function.  times[0..n-1] strictly increasing;
 * values[k*rows*cols + i*cols + j] is entry (i, j) at times[k] (row-major per
 * sample, as in the CSV files).  degree K >= 1 is the polynomial degree of the
 * local fits ("sampling order"); n must be >= K + 1.  Data are copied.
 * The source's domain is [times[0], times[n-1]]. */
lth_source *lth_source_samples(int rows, int cols, size_t n, const double *times,
                               const double *values, int degree, lth_error *err);

/* Read a CSV file: column t, then the rows*cols entries in row-major order;
 * an optional header row; '#' comments and blank lines skipped.  Errors name
 * the CSV line (err->file = path, err->line): wrong number of columns,
 * non-numeric or non-finite cells, t not strictly increasing, too few rows. */
lth_source *lth_samples_read_csv(const char *path, int rows, int cols, int degree,
                                 lth_error *err);

/* 1 if src is a sampled source. */
int lth_source_is_samples(const lth_source *src);
/* Degree of the local fits of a sampled source. */
int lth_samples_degree(const lth_source *src);
/* Sample times of a sampled source (n returned, *times set). */
size_t lth_samples_times(const lth_source *src, const double **times);

/* Estimate of the error of the derivatives of order 0..order at t: est[k]
 * is k! * max over the entries of the difference between the degree-K fit
 * and the degree-(K+1) fit through the same window plus its nearer
 * neighbour -- the leading term of the degree-K fit's own error (measured
 * ratio estimate / true error 0.95 .. 1.09 on a sine).  With only K + 1
 * samples it compares degrees K and K - 1, which overestimates.  Allocates. */
lth_status lth_samples_error_estimate(const lth_source *src, double t, int order, double *est,
                                      lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
