/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: a banded LAPACKE solver for two-point block systems, shared by
 * multiple shooting and finite differences.  Unknowns x_0..x_N (n each):
 *     L0 x_0 = l0                      (nl rows: consistency conditions)
 *     D0 x_0 + DN x_N = d              (nb rows: boundary conditions), nl + nb = n
 *     C_j x_{j-1} + E_j x_j = e_j      (n rows each, j = 1..N)
 * The corner coupling D0 ... DN is made banded by carrying w_j = D0 x_0 along
 * the grid (w_0 = D0 x_0, w_j = w_{j-1}, w_N + DN x_N = d): node unknowns
 * (x_j, w_j), bandwidths kl = 2n + nb - 1, ku = n + 2nb - 1, partial pivoting
 * (dgbtrf), never a dense (N+1)n solve.  All blocks column-major. */
#ifndef LTH_TWOPOINT_H
#define LTH_TWOPOINT_H

#include <stddef.h>

#include "lth/status.h"

typedef struct lth_twopoint {
  int n, nl, nb;
  size_t N;
  const double *L0, *l0;     /* nl x n (ld nl), nl */
  const double *D0, *DN, *d; /* nb x n (ld nb), nb */
  const double *C, *E, *e;   /* block j-1 of each: n x n at C + (j-1) n n, e: n */
} lth_twopoint;

/* Solve into x ((N+1) n).  *cond: 1-norm condition estimate of the banded
 * matrix (dgbcon).  A singular matrix is LTH_ESING. */
lth_status lth_twopoint_solve(const lth_twopoint *tp, double *x, double *cond, lth_error *err);

/* The same, and with the same factorization the boundary Green's function:
 * green ((N+1) n x nb, may be NULL) receives in column j the solution x_0..x_N
 * of the system with every right-hand side zero except d = e_j (the response
 * to a unit change of boundary value j; column j starts at green + j (N+1) n). */
lth_status lth_twopoint_solve_green(const lth_twopoint *tp, double *x, double *cond, double *green,
                                    lth_error *err);

#endif
