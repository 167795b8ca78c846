/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Taylor jets.
 *
 * A jet of order K is a matrix function truncated around a point t0:
 *     M(t0 + h) = sum_{m=0}^{K} M_m h^m,   M_m = M^{(m)}(t0) / m!.
 * The K+1 coefficients are rows x cols matrices, column-major with leading
 * dimension ld; coefficient m starts at c + m*stride.  A jet struct is a small
 * value: it either owns its storage (lth_jet_init / lth_jet_alloc) or is a view
 * into another jet (lth_jet_view) or into caller memory (lth_jet_wrap).
 *
 * Order bookkeeping: every operation sets the order of its result to the
 * highest order that is exact given its operands (a product has the smaller
 * order of its factors, a derivative one less).  Nothing here allocates except
 * lth_jet_init/_alloc/lth_jet_lu_alloc and the convenience lth_jet_solve.
 * See docs/theory.md section 3.
 */
#ifndef LTH_JET_H
#define LTH_JET_H

#include <stddef.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_jet {
  int rows, cols; /* size of every coefficient */
  int order;      /* coefficients 0..order are valid (-1: none) */
  int maxorder;   /* storage holds coefficients 0..maxorder */
  int ld;         /* leading dimension of each coefficient (>= rows) */
  size_t stride;  /* distance in doubles between coefficients (>= ld*cols) */
  double *c;      /* coefficient m, entry (i,j): c[m*stride + i + j*ld] */
  int owner;      /* 1 if c was allocated by lth_jet_init */
} lth_jet;

typedef enum lth_trans { LTH_NOTRANS = 0, LTH_TRANS = 1 } lth_trans;

/* Pointer to coefficient m (column-major, leading dimension J->ld). */
#define LTH_JET_COEF(J, m) ((J)->c + (size_t)(m) * (J)->stride)
/* Entry (i, j) of coefficient m (0-based). */
#define LTH_JET_AT(J, m, i, j)                                                                     \
  ((J)->c[(size_t)(m) * (J)->stride + (size_t)(i) + (size_t)(j) * (size_t)(J)->ld])

/* Allocate storage for a rows x cols jet of orders 0..maxorder (zeroed,
 * order = maxorder).  Sizes may be 0.  Release with lth_jet_release. */
lth_status lth_jet_init(lth_jet *J, int rows, int cols, int maxorder, lth_error *err);
void lth_jet_release(lth_jet *J);

/* Heap handle variants of the above. */
lth_jet *lth_jet_alloc(int rows, int cols, int maxorder, lth_error *err);
void lth_jet_free(lth_jet *J);

/* View of the block of J starting at (r0, c0) of size rows x cols (no copy). */
lth_jet lth_jet_view(const lth_jet *J, int r0, int c0, int rows, int cols);
/* Jet over caller memory: coefficient m of a rows x cols matrix with leading
 * dimension ld at data + m*stride, orders 0..order. */
lth_jet lth_jet_wrap(double *data, int rows, int cols, int ld, size_t stride, int order);

/* J = 0 (orders 0..order).  Requires order <= J->maxorder. */
void lth_jet_set_zero(lth_jet *J, int order);
/* J = I (constant; square or rectangular "eye"), orders 0..order. */
void lth_jet_set_identity(lth_jet *J, int order);
/* dst = src (sizes must match); dst->order = min(src->order, dst->maxorder). */
lth_status lth_jet_copy(lth_jet *dst, const lth_jet *src, lth_error *err);
/* Y = Y + a X; Y->order = min(X->order, Y->order). */
lth_status lth_jet_axpy(double a, const lth_jet *X, lth_jet *Y, lth_error *err);
/* J = a J. */
void lth_jet_scale(lth_jet *J, double a);
/* Keep orders 0..order only: J->order = order, the storage untouched, so a
 * later evaluation or product sees the partial sum of the series (no-op when
 * order >= J->order). */
void lth_jet_truncate(lth_jet *J, int order);

/* Truncated Cauchy product through cblas_dgemm (products of at most 16^3
 * multiply-adds through cblas_dgemv, which avoids OpenBLAS's per-call lock):
 *   C_m = alpha * sum_{j=0}^{m} op(A)_j op(B)_{m-j} + beta * C_m,
 * for m = 0..K, K = min(A->order, B->order[, C->order if beta != 0],
 * C->maxorder).  C must not overlap A or B. */
lth_status lth_jet_gemm(lth_trans ta, lth_trans tb, double alpha, const lth_jet *A,
                        const lth_jet *B, double beta, lth_jet *C, lth_error *err);
/* C = A B. */
lth_status lth_jet_mul(const lth_jet *A, const lth_jet *B, lth_jet *C, lth_error *err);

/* Derivative: dst_m = (m+1) src_{m+1}, dst->order = src->order - 1.
 * dst may be src (in place).  LTH_EORDER if src->order < 1. */
lth_status lth_jet_deriv(lth_jet *dst, const lth_jet *src, lth_error *err);

/* out = sum_m J_m h^m (Horner), out is rows x cols with leading dimension ldout. */
void lth_jet_eval(const lth_jet *J, double h, double *out, int ldout);

/* Largest absolute entry over coefficients 0..order (a scale for tolerances). */
double lth_jet_maxabs(const lth_jet *J, int order);
/* The 1-norm (largest column sum of absolute values) of coefficient k. */
double lth_jet_norm1(const lth_jet *J, int k);

/* ---- Solves: one LU of M_0, then X_m = M_0^{-1}(N_m - sum_{j=1}^m M_j X_{m-j}) ---- */

typedef struct lth_jet_lu lth_jet_lu; /* workspace: LU of M_0 for n <= nmax */

lth_jet_lu *lth_jet_lu_alloc(int nmax, lth_error *err);
void lth_jet_lu_free(lth_jet_lu *lu);

/* Factor M_0 (square).  On success *cond (if non-NULL) is a 1-norm condition
 * estimate of M_0 (dgecon).  An exactly singular M_0 is LTH_ESING; a
 * reciprocal condition estimate below rcond_min is LTH_ECOND; both record the
 * condition estimate in err.  The LU keeps a pointer to M: M must stay
 * unchanged until the last solve. */
lth_status lth_jet_lu_factor(lth_jet_lu *lu, const lth_jet *M, double rcond_min, double *cond,
                             lth_error *err);
/* X = M^{-1} N for the factored M; X->order = min(M->order, N->order).
 * X may be N (in place). */
lth_status lth_jet_lu_solve(const lth_jet_lu *lu, const lth_jet *N, lth_jet *X, lth_error *err);
/* Sign of det M_0 of the last successful factorization (+1 or -1; +1 for
 * n = 0): a change of sign between two times means M passed through a
 * singular matrix in between. */
int lth_jet_lu_det_sign(const lth_jet_lu *lu);
/* X = M^{-1} for the factored M: X (n x n, any maxorder) gets orders
 * 0..min(M->order, X->maxorder) by the recurrence above with N = I, so
 * M X = I to rounding at every order.  LTH_EDIM for another size. */
lth_status lth_jet_lu_inverse(const lth_jet_lu *lu, lth_jet *X, lth_error *err);

/* Convenience (allocates a temporary LU workspace): X = M^{-1} N, and X = M^{-1}. */
lth_status lth_jet_solve(const lth_jet *M, const lth_jet *N, lth_jet *X, double rcond_min,
                         double *cond, lth_error *err);
lth_status lth_jet_inverse(const lth_jet *M, lth_jet *X, double rcond_min, double *cond,
                           lth_error *err);

/* *cond = the 1-norm condition estimate ||M_0||_1 est(||M_0^{-1}||_1) of the
 * square M_0 (dgecon: a lower bound of the true value, rarely below a third
 * of it), as lth_jet_lu_factor gives it, without a solve; allocates.  No
 * threshold applies: only an exactly singular M_0 fails (LTH_ESING, *cond =
 * inf). */
lth_status lth_jet_cond(const lth_jet *M, double *cond, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
