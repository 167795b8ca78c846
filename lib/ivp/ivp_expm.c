/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrix exponential for the exact propagator of constant data
 * (lib/ivp/ivp_const.c), through GSL's scaling and squaring: apart, because
 * GSL's linear algebra header brings its own CBLAS declarations, which
 * clash with OpenBLAS's. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "ivp_impl.h"

int lth_ivp_expm(const double *X, int n, int ldx, double *E, int lde, const char **why) {
  gsl_matrix *a = gsl_matrix_alloc((size_t)n, (size_t)n), *e = gsl_matrix_alloc((size_t)n, (size_t)n);
  int rc = a && e ? GSL_SUCCESS : GSL_ENOMEM;
  /* (GSL's matrices are row-major: a(i, j) = data[i * tda + j]) */
  for (int i = 0; rc == GSL_SUCCESS && i < n; i++) {
    for (int j = 0; j < n; j++) a->data[(size_t)i * a->tda + j] = X[i + (size_t)j * ldx];
  }
  if (rc == GSL_SUCCESS) {
    gsl_error_handler_t *saved = gsl_set_error_handler_off();
    rc = gsl_linalg_exponential_ss(a, e, GSL_PREC_DOUBLE);
    gsl_set_error_handler(saved);
  }
  for (int i = 0; rc == GSL_SUCCESS && i < n; i++) {
    for (int j = 0; j < n; j++) E[i + (size_t)j * lde] = e->data[(size_t)i * e->tda + j];
  }
  if (why) *why = rc == GSL_SUCCESS ? "" : gsl_strerror(rc);
  gsl_matrix_free(a);
  gsl_matrix_free(e);
  return rc == GSL_SUCCESS ? 0 : -1;
}
