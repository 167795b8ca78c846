/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to lib/ivp: polynomials through values at the Chebyshev points
 * x_j = -cos(pi j / N), j = 0 .. N (ascending, both ends included), for the
 * collocation integrator (lib/ivp/integrator_cheb.c) and the outputs served
 * from its steps (lib/ivp/ivp_outpoly.c). */
#ifndef LTH_CHEB_RULE_H
#define LTH_CHEB_RULE_H

#include <stddef.h>

/* The degrees a rule exists for (lth_cheb_rule_get), the highest last. */
#define LTH_CHEB_NDEGREES 3
extern const int lth_cheb_degrees[LTH_CHEB_NDEGREES];
#define LTH_CHEB_NMAX 16

/* Degree N's rule: the nodes x, the barycentric weights w, the integration
 * matrix S ((N+1) x (N+1): S[j + k (N+1)] = the integral from -1 to x_j of
 * the k-th Lagrange polynomial) and T_k(x_j) (T[j + k (N+1)]). */
typedef struct lth_cheb_rule {
  int N;
  double x[LTH_CHEB_NMAX + 1], w[LTH_CHEB_NMAX + 1];
  double S[(LTH_CHEB_NMAX + 1) * (LTH_CHEB_NMAX + 1)];
  double T[(LTH_CHEB_NMAX + 1) * (LTH_CHEB_NMAX + 1)];
} lth_cheb_rule;

/* The rule of degree lth_cheb_degrees[level], made once per process (they
 * depend on nothing else). */
const lth_cheb_rule *lth_cheb_rule_at(int level);

/* The Chebyshev coefficients a[0 .. N] of the polynomial through the values
 * y_j = Y[j * stride] at the rule's nodes. */
void lth_cheb_coefs(const lth_cheb_rule *R, const double *Y, size_t stride, double *a);

/* The tail of degree n (2 <= n <= N) read from coefficients a of a degree-N
 * polynomial: the largest of |a_n|, |a_{n-1}|, |a_{n-2}| -- three, so that a
 * function even or odd about the midpoint, whose every other coefficient
 * vanishes, still shows its tail. */
double lth_cheb_tail(const double *a, int n);

/* y[0 .. k-1] at x in [-1, 1] of the polynomials through the rows
 * Y + j * ld (k values each) at the nodes: barycentric interpolation. */
void lth_cheb_interp(const lth_cheb_rule *R, double x, const double *Y, size_t ld, size_t k,
                     double *y);

#endif
