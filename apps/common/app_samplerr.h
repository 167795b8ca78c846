/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sampling contribution to a solution's error (lth-solve, lth-bvp,
 * lth-ic): what the fits of the samples cost, which no integration tolerance
 * can buy back.  Estimated as the library documents it (lth/sampling_error.h,
 * docs/sampled-data.md): solve again with each sampled data set on its
 * alternative fits (lth_system_sampling_variant, one solve per data set,
 * wherever the system reads it: blocks, mass matrices, equation-form
 * coefficients) and add the differences, plus the error of the map
 * z = G v + q at the output times (the decomposition's error bars times
 * |v|).  python/lth/sampling.py computes the same. */
#ifndef LTH_APP_SAMPLERR_H
#define LTH_APP_SAMPLERR_H

#include <stddef.h>

#include "lth/bvp.h"
#include "lth/ivp.h"
#include "lth/system.h"

/* One more solve of the same problem with sys replaced by its variant:
 * writes z at the same n times (s x n) into z, or fails. */
typedef lth_status (*app_resolve_fn)(void *ctx, const lth_system *variant, double *z,
                                     lth_error *err);

/* *out: the estimate (max-norm over times and components), NaN if sys has no
 * sampled blocks.  z (s x n) and v (m x n, or NULL) are the
 * solution at times[0..n-1] (without v the map term takes z's first m
 * entries, which bound v = (I - P) z(1:m) up to the size of I - P). */
lth_status app_sampling_error(const lth_system *sys, const double *times, size_t n, const double *z,
                              const double *v, app_resolve_fn resolve, void *ctx, double *out,
                              lth_error *err);

#endif
