/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Polynomials at the Chebyshev points (lib/ivp/cheb_rule.h). */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cheb_rule.h"

#define CHEB_PI 3.14159265358979323846

const int lth_cheb_degrees[LTH_CHEB_NDEGREES] = {8, 12, 16};

static lth_cheb_rule rules[LTH_CHEB_NDEGREES];
static pthread_once_t rules_once = PTHREAD_ONCE_INIT;

/* cos(pi q / N) for any integer q >= 0, from the table c[0 .. 2N - 1]. */
static double cos_pi(const double *c, int N, int q) { return c[q % (2 * N)]; }

/* The antiderivative of T_n at x_j = cos(pi (N - j) / N), up to a constant:
 * T_1 (n = 0), T_2 / 4 (n = 1), T_{n+1} / (2 (n+1)) - T_{n-1} / (2 (n-1));
 * q = N - j (q = N: x = -1). */
static double int_T(const double *c, int N, int n, int q) {
  if (n == 0) return cos_pi(c, N, q);
  if (n == 1) return 0.25 * cos_pi(c, N, 2 * q);
  return cos_pi(c, N, (n + 1) * q) / (2.0 * (n + 1)) - cos_pi(c, N, (n - 1) * q) / (2.0 * (n - 1));
}

/* Degree N's rule.  S through Chebyshev coefficients, exact but for
 * rounding: the k-th Lagrange polynomial is sum_n a_nk T_n with a_nk =
 * (2/N) c_k T_n(x_k) (c_k = 1/2 at the ends, a_0k and a_Nk halved again),
 * integrated term by term from -1.  Every cosine is one of cos(pi q / N),
 * q < 2N. */
static void rule_make(lth_cheb_rule *R, int N) {
  size_t n1 = (size_t)N + 1;
  double c[2 * LTH_CHEB_NMAX];
  R->N = N;
  for (int q = 0; q < 2 * N; q++) c[q] = cos(CHEB_PI * q / N);
  for (int j = 0; j <= N; j++) {
    R->x[j] = -c[j] + 0.0; /* (-cos(pi j / N); + 0.0: no -0 at the middle) */
    R->w[j] = (j % 2 ? -1.0 : 1.0) * (j == 0 || j == N ? 0.5 : 1.0);
    /* T_k(x_j) = cos(k pi (N - j) / N) at the ascending nodes */
    for (int k = 0; k <= N; k++) R->T[j + k * n1] = cos_pi(c, N, k * (N - j));
  }
  for (int k = 0; k <= N; k++) {
    double ck = (k == 0 || k == N) ? 0.5 : 1.0;
    for (int j = 0; j <= N; j++) {
      double sum = 0.0;
      for (int n = 0; j > 0 && n <= N; n++) {
        double a = (2.0 / N) * ck * R->T[k + n * n1] * ((n == 0 || n == N) ? 0.5 : 1.0);
        sum += a * (int_T(c, N, n, N - j) - int_T(c, N, n, N));
      }
      R->S[j + k * n1] = sum;
    }
  }
}

static void rules_make(void) {
  for (int l = 0; l < LTH_CHEB_NDEGREES; l++) rule_make(&rules[l], lth_cheb_degrees[l]);
}

const lth_cheb_rule *lth_cheb_rule_at(int level) {
  pthread_once(&rules_once, rules_make);
  return &rules[level];
}

void lth_cheb_coefs(const lth_cheb_rule *R, const double *Y, size_t stride, double *a) {
  int N = R->N;
  size_t n1 = (size_t)N + 1;
  for (int k = 0; k <= N; k++) {
    /* a_k = (2/N) sum'' y_j T_k(x_j) (ends halved; a_0, a_N halved again) */
    double sum = 0.0;
    for (int j = 0; j <= N; j++) {
      sum += (j == 0 || j == N ? 0.5 : 1.0) * Y[(size_t)j * stride] * R->T[j + k * n1];
    }
    a[k] = sum * (k == 0 || k == N ? 1.0 : 2.0) / N;
  }
}

double lth_cheb_tail(const double *a, int n) {
  return fmax(fabs(a[n]), fmax(fabs(a[n - 1]), fabs(a[n - 2])));
}

void lth_cheb_interp(const lth_cheb_rule *R, double x, const double *Y, size_t ld, size_t k,
                     double *y) {
  int N = R->N;
  for (int j = 0; j <= N; j++) {
    if (x == R->x[j]) {
      memcpy(y, Y + (size_t)j * ld, k * sizeof(double));
      return;
    }
  }
  double den = 0.0;
  memset(y, 0, k * sizeof(double));
  for (int j = 0; j <= N; j++) {
    double c = R->w[j] / (x - R->x[j]);
    den += c;
    for (size_t i = 0; i < k; i++) y[i] += c * Y[(size_t)j * ld + i];
  }
  for (size_t i = 0; i < k; i++) y[i] /= den;
}
