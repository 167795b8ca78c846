/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev interpolation on a panel (lib/ss/cheb.h). */
#include "cheb.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void lth_cheb_coef(const double *f, size_t L, int n, double *coef) {
  double w[LTH_CHEB_MAX + 1][LTH_CHEB_MAX + 1]; /* the weights: once, not per entry */
  for (int j = 0; j <= n; j++) {
    double half = (j == 0 || j == n) ? 0.5 : 1.0; /* c_0 and c_n count half */
    for (int k = 0; k <= n; k++) {
      double end = (k == 0 || k == n) ? 0.5 : 1.0;
      w[j][k] = end * cos(M_PI * j * k / n) * 2.0 / n * half;
    }
  }
  for (int j = 0; j <= n; j++) {
    double *cj = coef + L * (size_t)j;
    for (size_t e = 0; e < L; e++) {
      cj[e] = 0.0;
    }
    for (int k = 0; k <= n; k++) {
      const double *fk = f + L * (size_t)k;
      for (size_t e = 0; e < L; e++) {
        cj[e] += w[j][k] * fk[e];
      }
    }
  }
}

void lth_cheb_eval(const double *coef, size_t L, int n, size_t e0, size_t cnt, double x,
                   double *out) {
  for (size_t e = e0; e < e0 + cnt; e++) {
    double b1 = 0.0, b2 = 0.0;
    for (int j = n; j >= 1; j--) {
      double b0 = 2.0 * x * b1 - b2 + coef[e + L * (size_t)j];
      b2 = b1;
      b1 = b0;
    }
    out[e - e0] = x * b1 - b2 + coef[e];
  }
}

int lth_cheb_tails_below(const double *f, const double *coef, size_t L, int n, double tol) {
  for (size_t e = 0; e < L; e++) {
    double scale = 1.0;
    for (int k = 0; k <= n; k++) {
      scale = fmax(scale, fabs(f[e + L * (size_t)k]));
    }
    double tail = fmax(fabs(coef[e + L * (size_t)(n - 1)]), fabs(coef[e + L * (size_t)n]));
    if (!(tail <= tol * scale)) {
      return 0;
    }
  }
  return 1;
}
