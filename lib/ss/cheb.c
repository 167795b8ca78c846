/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev interpolation on a panel (lib/ss/cheb.h). */
#include "cheb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int lth_cheb_panels_push(lth_cheb_panels *T, double a, double b, const double *coef) {
  size_t per = T->L * (size_t)(T->n + 1);
  if (T->count == T->cap) {
    size_t cap = T->cap ? 2 * T->cap : 16;
    double *na = realloc(T->a, cap * sizeof *na);
    T->a = na ? na : T->a;
    double *nb = na ? realloc(T->b, cap * sizeof *nb) : NULL;
    T->b = nb ? nb : T->b;
    double *nc = nb ? realloc(T->coef, cap * per * sizeof *nc) : NULL;
    if (!nc) {
      return -1;
    }
    T->coef = nc;
    T->cap = cap;
  }
  T->a[T->count] = a;
  T->b[T->count] = b;
  memcpy(T->coef + T->count * per, coef, per * sizeof(double));
  T->count++;
  return 0;
}

void lth_cheb_panels_eval(const lth_cheb_panels *T, double t, size_t e0, size_t cnt, double *out) {
  /* binary search on the panels' left ends, in the direction they were laid */
  int up = T->count < 2 || T->a[1] > T->a[0];
  size_t lo = 0, hi = T->count;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (up ? T->a[mid] <= t : T->b[mid] >= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  double a = T->a[lo], b = T->b[lo], x = (2.0 * t - a - b) / (b - a);
  x = x < -1.0 ? -1.0 : (x > 1.0 ? 1.0 : x);
  lth_cheb_eval(T->coef + lo * T->L * (size_t)(T->n + 1), T->L, T->n, e0, cnt, x, out);
}

void lth_cheb_panels_free(lth_cheb_panels *T) {
  free(T->a);
  free(T->b);
  free(T->coef);
  memset(T, 0, sizeof *T);
}
