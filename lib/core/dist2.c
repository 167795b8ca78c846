/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ||x - y||_2 without overflow (include/lth/norms.h). */
#include <float.h>
#include <math.h>

#include "lth/norms.h"

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

double lth_dist2(const double *x, const double *y, size_t n) {
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
