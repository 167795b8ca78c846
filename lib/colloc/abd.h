/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: linear-time solver for the condensed collocation system, an
 * almost block diagonal (ABD) two-point system in y_0 .. y_N (p each):
 *     -F_k y_k + y_{k+1} = f_k        k = 0 .. N-1   (p rows each)
 *     D0 y_0 + DN y_N    = d          nb >= p rows (boundary conditions)
 * by a structured orthogonal factorisation (S. J. Wright, "Stable parallel
 * algorithms for two-point boundary value problems", SIAM J. Sci. Stat.
 * Comput. 13 (1992)): y_1 .. y_{N-1} are eliminated in turn, each by one
 * Householder QR (LAPACK dgeqrf / dormqr) of the 2p x p column that holds
 * y_k in the running equation a y_0 + b y_k = r and in row block k.  It is a
 * QR factorisation of the column-permuted matrix, hence backward stable for
 * growing and decaying modes alike (no pivoting order to get wrong, unlike
 * compactification or single shooting); the running rows are rescaled to
 * unit size so that no product of the F_k over- or underflows.  The last
 * (nb + p) x 2p system [D0 DN; a b] in (y_0, y_N) is solved by an SVD
 * (dgesvd): its rank tells uniqueness, and for nb > p its residual whether
 * the data are consistent.  Work and storage O(N p^3) and O(N p^2); never a dense solve.
 */
#ifndef LTH_ABD_H
#define LTH_ABD_H

#include <stddef.h>

#include "lth/status.h"

typedef struct lth_abd lth_abd;

lth_abd *lth_abd_alloc(int p, int nb, size_t N, lth_error *err);
void lth_abd_free(lth_abd *a);

/* Factor for F (N blocks p x p, ld p, consecutive), D0 and DN (nb x p, ld nb). */
lth_status lth_abd_factor(lth_abd *a, const double *F, const double *D0, const double *DN,
                          lth_error *err);

/* Numerical rank of the reduced matrix (2p: unique solution) and its
 * condition sigma_max / sigma_min (rows scaled to unit length). */
int lth_abd_rank(const lth_abd *a);
/* Singular values up to tol * sigma_max count as zero (default 0: only exact
 * zeros; the callers judge near-singularity by their own condition numbers). */
void lth_abd_set_rank_tol(lth_abd *a, double tol);
double lth_abd_cond(const lth_abd *a);
/* Condition sigma_max / sigma_min of the boundary rows [D0 DN] on the
 * solution space of the recurrence (an orthonormal basis of the null space
 * of the running rows [a b]): how well the conditions fix the p free
 * constants, in end-point coordinates (INFINITY if they do not). */
double lth_abd_bc_cond(const lth_abd *a);

/* Solve for nrhs right-hand sides: f (N blocks p x nrhs, ld p; NULL: zero),
 * d (nb x nrhs, ld nb); y receives N + 1 blocks p x nrhs (ld p).  A rank-
 * deficient reduced matrix gives the minimum-norm least-squares (y_0, y_N).
 * resid (nrhs entries, may be NULL): relative residual of the reduced
 * least-squares problem (0 when nb = p and the rank is full). */
lth_status lth_abd_solve(const lth_abd *a, int nrhs, const double *f, const double *d, double *y,
                         double *resid, lth_error *err);

#endif
