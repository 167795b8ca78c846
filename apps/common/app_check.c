/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finiteness checks and scaled norms (app_check.h). */
#include "app_check.h"

#include "lth/norms.h"

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

double app_norm2(const double *x, size_t n) { return lth_dist2(x, NULL, n); }

double app_dist2(const double *x, const double *y, size_t n) { return lth_dist2(x, y, n); }
