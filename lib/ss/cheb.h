/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: Chebyshev interpolation of vector functions on a panel (the
 * realization's table, lib/ss/ss_table.c, and the LQR's Riccati table,
 * lib/lqr/plqr_riccati.c).  Values f at the Chebyshev-Lobatto points
 * x_k = cos(pi k / n), k = 0..n (x_0 = 1: the panel's right end), L entries
 * each (entry e of point k at f[e + L k]); coefficients c_j (entry e at
 * coef[e + L j]) with f(x) = sum_j c_j T_j(x). */
#ifndef LTH_SS_CHEB_H
#define LTH_SS_CHEB_H

#include <stddef.h>

/* The highest degree n of these functions. */
#define LTH_CHEB_MAX 64

/* The coefficients from the values (the discrete Chebyshev transform; n <= LTH_CHEB_MAX). */
void lth_cheb_coef(const double *f, size_t L, int n, double *coef);
/* sum_j c_j T_j(x) for the entries e0 .. e0 + cnt - 1 into out[0 .. cnt) (Clenshaw). */
void lth_cheb_eval(const double *coef, size_t L, int n, size_t e0, size_t cnt, double x,
                   double *out);
/* 1 if the two last coefficients of every entry are at most tol max(1, max_k |f_k|). */
int lth_cheb_tails_below(const double *f, const double *coef, size_t L, int n, double tol);

/* Panels [a_i, b_i] laid one after another, left to right or right to left,
 * each with its coefficients (L entries, degree n). */
typedef struct lth_cheb_panels {
  size_t L, count, cap;
  int n;
  double *a, *b, *coef;
} lth_cheb_panels;

/* Append [a, b] with its coefficients; -1 out of memory. */
int lth_cheb_panels_push(lth_cheb_panels *T, double a, double b, const double *coef);
/* The entries e0 .. e0 + cnt - 1 at t (in the panels' span) into out. */
void lth_cheb_panels_eval(const lth_cheb_panels *T, double t, size_t e0, size_t cnt, double *out);
void lth_cheb_panels_free(lth_cheb_panels *T);

#endif
