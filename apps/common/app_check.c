/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finiteness checks and scaled norms (app_check.h). */
#include "app_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

static lth_status not_finite(lth_error *err, const char *what, const char *detail, double t) {
  if (isnan(t)) {
    return lth_error_set(err, LTH_ENOTFINITE, "%s is not finite%s", what, detail);
  }
  return lth_error_set_t(err, LTH_ENOTFINITE, t, "%s is not finite%s", what, detail);
}

lth_status app_check_value(lth_status st, lth_error *err, const char *what, double t, double x) {
  if (st != LTH_OK || isfinite(x)) {
    return st;
  }
  return not_finite(err, what, "", t);
}

lth_status app_check_vector(lth_status st, lth_error *err, const char *what, double t,
                            const double *x, size_t n, const app_names *names) {
  for (size_t i = 0; st == LTH_OK && i < n; i++) {
    if (!isfinite(x[i])) {
      char detail[APP_NAME_MAX + 48];
      if (names && i < (size_t)names->n) {
        snprintf(detail, sizeof detail, ": %.*s = %g", APP_NAME_MAX, names->full[i], x[i]);
      } else {
        snprintf(detail, sizeof detail, ": component %zu = %g", i + 1, x[i]);
      }
      return not_finite(err, what, detail, t);
    }
  }
  return st;
}

lth_status app_check_rows(lth_status st, lth_error *err, const char *what, const double *times,
                          const double *x, size_t n, size_t dim, const app_names *names) {
  for (size_t k = 0; st == LTH_OK && k < n; k++) {
    st = app_check_vector(st, err, what, times[k], x + k * dim, dim, names);
  }
  return st;
}

/* max |x_i - y_i| scaled sum of squares (y may be NULL: zeros). */
static double scaled_norm(const double *x, const double *y, size_t n) {
  double scale = 0.0;
  for (size_t i = 0; i < n; i++) {
    scale = fmax(scale, fmax(fabs(x[i]), y ? fabs(y[i]) : 0.0));
  }
  if (!(scale > 0.0) || !isfinite(scale)) {
    return scale == 0.0 ? 0.0 : (isnan(scale) ? NAN : INFINITY);
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    /* divide first: x_i - y_i itself may overflow */
    double d = x[i] / scale - (y ? y[i] / scale : 0.0);
    sum += d * d;
  }
  return scale * sqrt(sum);
}

/* The plain sum of squares when it neither overflows nor underflows (so the
 * last bit is what a reader recomputing it gets), else the scaled one. */
static double norm_of(const double *x, const double *y, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] - (y ? y[i] : 0.0);
    sum += d * d;
  }
  if (isfinite(sum) && (sum >= DBL_MIN || sum == 0.0)) {
    double r = sqrt(sum);
    if (sum > 0.0 || scaled_norm(x, y, n) == 0.0) {
      return r;
    }
  }
  return scaled_norm(x, y, n);
}

double app_norm2(const double *x, size_t n) { return norm_of(x, NULL, n); }

double app_dist2(const double *x, const double *y, size_t n) { return norm_of(x, y, n); }
