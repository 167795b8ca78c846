/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Results are checked before a byte is written: a number that is not finite
 * is a numerical failure (exit 3) naming the quantity and the time t, in
 * every format (docs/format.md section 2: no NaN or Inf in any output).
 * The JSON and CSV writers refuse non-finite numbers too (the driver then
 * fails with exit 3 naming the key), but only a check made here can name t.
 *
 * The checks chain: each takes the status so far and returns it unchanged
 * when it is already an error, so a tool's check reads as a list:
 *   lth_status st = LTH_OK;
 *   st = app_check_vector(st, err, "the consistent value z0", t, z0, s, &run->names);
 *   st = app_check_value(st, err, "the residual ||M0 z0 - b0||", t, res);
 *   return st;
 * t = NAN: the quantity belongs to no single time (then `what` should say
 * what it is taken over).
 *
 * Norms without overflow: a vector whose entries are near DBL_MAX has a
 * finite norm whenever the norm itself is representable. */
#ifndef LTH_APP_CHECK_H
#define LTH_APP_CHECK_H

#include <stddef.h>

#include "lth/status.h"

#include "app_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "WHAT is not finite (t = T)". */
lth_status app_check_value(lth_status st, lth_error *err, const char *what, double t, double x);
/* "WHAT is not finite: NAME = inf (t = T)"; names (NULL: "component i", 1-based) name
 * the entries. */
lth_status app_check_vector(lth_status st, lth_error *err, const char *what, double t,
                            const double *x, size_t n, const app_names *names);
/* Rows k = 0..n-1 of dim entries at x + k*dim, row k at times[k]. */
lth_status app_check_rows(lth_status st, lth_error *err, const char *what, const double *times,
                          const double *x, size_t n, size_t dim, const app_names *names);

/* ||x||_2 and ||x - y||_2, scaled: no overflow or underflow on the way. */
double app_norm2(const double *x, size_t n);
double app_dist2(const double *x, const double *y, size_t n);

#ifdef __cplusplus
}
#endif
#endif
