/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The LQR data's requirements (lib/lqr/lqr_check.c), for the solver and for
 * the data-file reader, which checks the statements apart to name the one at
 * fault (lth_problem_lqr_check). */
#ifndef LTH_LQR_CHECK_H
#define LTH_LQR_CHECK_H

#include "lth/lqr.h"

/* The points of the scan of [t0, t1] on which H(t) is checked (both paths). */
#define LQR_H_SCAN_POINTS 1025

/* C symmetric positive semidefinite; H(t) symmetric positive semidefinite on
 * [t0, t1] (a scan, the output times, refined minima of its smallest
 * eigenvalue).  LTH_EDATA naming t and the eigenvalue or the asymmetry.
 * lth_lqr_check_data is the two in turn; the data-file reader calls them
 * apart, to name the statement at fault (lth_problem_lqr_check). */
lth_status lth_lqr_check_C(const lth_lqr_spec *spec, lth_error *err);
/* spec's terminal weight as a dense nx x nx matrix: spec->C itself (*own =
 * NULL), or formed from spec->C_src, or zero (*own: to be freed). */
lth_status lth_lqr_dense_C(const lth_lqr_spec *spec, const double **C, double **own,
                           lth_error *err);
lth_status lth_lqr_check_H(const lth_lqr_spec *spec, const double *times, size_t n, lth_error *err);
/* Largest nx for which a dense source is enclosed entry by entry to prove it
 * constant (larger dense ones count as time-varying). */
#define LQR_DENSE_ENCLOSE_MAX 3000
/* 1 if src (NULL: absent, zero) is proven constant on [t0, t1]: the
 * enclosure of every entry's first Taylor coefficient there is exactly zero
 * (a sparse source on its pattern, a dense one entry by entry up to
 * LQR_DENSE_ENCLOSE_MAX squared entries); 0 for callbacks and samples. */
int lth_lqr_proven_constant(const lth_source *src, double t0, double t1);
lth_status lth_lqr_check_data(const lth_lqr_spec *spec, const double *times, size_t n,
                              lth_error *err);

#endif
