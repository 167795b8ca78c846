/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clark's decomposition at one point in operator form, for large sparse
 * Hessenberg systems with few constraints (n_r small): nothing of size
 * s x s is ever formed.
 *
 * The blocks A_ij are sparse (compressed sparse columns, a fixed pattern with
 * a jet of values), f_i dense jets.  The projectors are the identity minus a
 * thin correction, I - P_i = I - L_i S_i with L_i (n_i x n_r) and
 * S_i = Pi^{-1} R_i (n_r x n_i), and every algebraic map of Algorithm 1 is
 * L_i times an n_r x (m + 1) matrix, so the point keeps (lib/decomp/op_impl.h
 * gives the formulas):
 *   the sparse value jets of A and the jets of f        O(nnz(A) K + s K)
 *   L_i, S_i, and n_r x (m + 1) jets C_i, D_i, F_ij     O(s n_r K)
 * with K = out_order + r - 1 (C_i and D_i keep only the columns that the
 * blocks' patterns let be nonzero: a few dozen when the constraints act
 * locally), and applies P, I - P, Ahat, Bhat and
 * G = (Nhat + Bhat)(I - P) to vectors and thin matrices in O(nnz + s n_r)
 * per column and Taylor product.  The results are those of lth_decomp_at
 * (include/lth/decomp.h) to rounding; as there, Ahat and Bhat are unique only
 * on the state space, so compare Ahat (I - P) and G, not Ahat and Bhat.
 *
 * Pi (n_r x n_r) is factored densely by LAPACK: the path is for n_r up to a
 * few hundred.  For index 2 with large n_r (a discretised Stokes problem,
 * n_r ~ s/3) Pi is factored sparsely instead and the thin factors become
 * operators (lth_opsys_set_pi_factor): memory O(nnz(A) K + nnz(LU of Pi)).
 *
 * Vectors and thin matrices are lth_jet (column-major with a leading
 * dimension; a plain vector is a jet of order 0 with one column).  Every
 * apply is a truncated Cauchy product: the result has order min(the
 * argument's, the point's, the result's maxorder).
 */
#ifndef LTH_OPDECOMP_H
#define LTH_OPDECOMP_H

#include <stddef.h>

#include "lth/jet.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the sparse system ---- */

typedef struct lth_opsys lth_opsys;

/* Values of one sparse block (or of a dense forcing vector) at t: write the
 * Taylor coefficient k (M^{(k)}(t) / k!, NOT the derivative) of entry p into
 * val[p + k * stride], k = 0..order, p = 0..count-1, where entry p is the p-th
 * stored entry of the block's pattern (column by column) or, for f_i, row p.
 * Entries not written are zero.  Return 0 on success, nonzero on failure
 * (LTH_ECALLBACK naming t).  Reentrant: several workspaces may call it at
 * once. */
typedef int (*lth_op_fill_fn)(void *ctx, double t, int order, double *val, size_t stride);

/* r >= 2 blocks of sizes n[0..r-1] (n_r <= n_i, all >= 1), as lth_system_alloc. */
lth_opsys *lth_opsys_alloc(int r, const int *n, lth_error *err);
void lth_opsys_free(lth_opsys *sys);

/* Block A_ij (1-based, inside Clark's pattern (2.2), each set once) with the
 * pattern colptr[0..n_j] (colptr[0] = 0, non-decreasing, colptr[n_j] = nnz)
 * and rowind[0..nnz-1] (in 0..n_i - 1), both copied, and values from
 * fn(ctx, ...).  LTH_ESTRUCT outside the pattern, LTH_EDIM / LTH_EINVAL for
 * a bad pattern or a block set twice. */
lth_status lth_opsys_set_A(lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                           const int *rowind, lth_op_fill_fn fn, void *ctx, lth_error *err);
/* The same with constant values val[0..nnz-1] (copied). */
lth_status lth_opsys_set_A_const(lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                                 const int *rowind, const double *val, lth_error *err);
/* f_i (n_i entries, dense); a block row without f_i has zero forcing. */
lth_status lth_opsys_set_f(lth_opsys *sys, int i, lth_op_fill_fn fn, void *ctx, lth_error *err);

/* The operator form of an lth_system: its sparse blocks (CSC sources,
 * lth_source_csc_callback, and a data file's mm() blocks) with their own
 * patterns, filled through lth_source_fill_csc; its other blocks with full
 * patterns (for checking one path against the other on small systems); its
 * forcing, B u + f with inputs.  sys must outlive the result. */
lth_opsys *lth_opsys_from_system(const lth_system *sys, lth_error *err);

/* How the points of sys factor Pi (n_r x n_r).  LTH_OP_PI_DENSE: LAPACK, with
 * the thin dense factors L_i, S_i (s x n_r per order): for n_r up to a few
 * hundred.  LTH_OP_PI_SPARSE: index 2 only, SuiteSparse KLU on the sparse
 * pattern of Pi = A_21 A_12, with L = A_12 and S = Pi^{-1} A_21 applied as
 * operators (nothing s x n_r or n_r x n_r dense; memory O(nnz(A) K +
 * nnz(LU of Pi))).  LTH_OP_PI_AUTO (the default): sparse for index 2 when
 * n_r >= LTH_DEFAULT_OP_SPARSE_PI_NR and the library has KLU, else dense.
 * Both give the same results to rounding.  LTH_EINVAL for LTH_OP_PI_SPARSE
 * at an index other than 2 or in a library built without KLU (CMake option
 * LTH_SUITESPARSE).  Set it before allocating points and workspaces: each keeps the
 * choice it was allocated with. */
typedef enum lth_op_pi_factor {
  LTH_OP_PI_AUTO = 0,
  LTH_OP_PI_DENSE = 1,
  LTH_OP_PI_SPARSE = 2
} lth_op_pi_factor;
lth_status lth_opsys_set_pi_factor(lth_opsys *sys, lth_op_pi_factor how, lth_error *err);
/* 1 if the library was built with KLU (LTH_OP_PI_SPARSE works), else 0. */
int lth_op_sparse_pi_available(void);

int lth_opsys_index(const lth_opsys *sys);
int lth_opsys_size(const lth_opsys *sys);      /* s */
int lth_opsys_state_dim(const lth_opsys *sys); /* m = s - n_r */
int lth_opsys_block_size(const lth_opsys *sys, int i);
int lth_opsys_block_offset(const lth_opsys *sys, int i);
/* Stored entries of A in all (the nnz of the memory bound; with the entries
 * of the mass matrices kept as factorizations, see lth_opsys_mass_rows). */
size_t lth_opsys_nnz(const lth_opsys *sys);
/* The block rows of a system from lth_opsys_from_system whose mass matrix
 * (lth_source_solve, not diagonal) is kept as a sparse factorization: their
 * blocks are M_i^{-1} A_ij with A_ij on its own pattern and M_i factored by
 * SuiteSparse KLU, applied to vectors and thin matrices, never M_i^{-1}
 * formed.  M_i must be sparse (mm() files, the equation form) and constant:
 * a decomposition at a t where M_i changes is refused (LTH_EDATA) naming
 * it.  Without KLU, or for a dense M_i, such blocks are dense (full
 * patterns) as lth_source_solve fills them.  Pi's sparse factorization and
 * lth_oppoint_block do not take these rows (LTH_EINVAL naming the mass
 * matrix), and Pi's proof over an interval reports none for them. */
int lth_opsys_mass_rows(const lth_opsys *sys);

/* ---- the decomposition at one point ---- */

/* What the point was accepted with (the fields of lth_point of the same
 * name, include/lth/decomp.h). */
typedef struct lth_opinfo {
  double t;
  int order; /* the applies give Taylor coefficients 0..order */
  int r, s, m, nr;
  double cond_pi, cond_chain, pi_inv_norm, chain_norm, cond_interval;
  int pi_sign;
  double amplification; /* a priori cond_interval^(r-1) (see lth_opdecomp_at) */
  size_t bytes;         /* memory of the point's jets (and of Pi's sparse LU at t) */
  int sparse_pi;        /* 1: Pi factored sparsely (lth_opsys_set_pi_factor) */
  size_t pi_factor_nnz; /* the sparse LU's entries at t (0 on the dense path) */
} lth_opinfo;

typedef struct lth_oppoint lth_oppoint;
typedef struct lth_opdecomp_ws lth_opdecomp_ws;

/* A point for outputs of orders 0..order (order >= 0; order >= 1 gives one
 * derivative of every output, as Clark's Theorem 3 check needs).  Applies
 * work on up to max_cols columns at once (more are taken in chunks;
 * max_cols >= 1). */
lth_oppoint *lth_oppoint_alloc(const lth_opsys *sys, int order, int max_cols, lth_error *err);
void lth_oppoint_free(lth_oppoint *pt);
const lth_opinfo *lth_oppoint_info(const lth_oppoint *pt);

/* Scratch for decompositions with outputs up to out_order (sized once; the
 * decomposition allocates nothing).  One workspace per thread. */
lth_opdecomp_ws *lth_opdecomp_ws_alloc(const lth_opsys *sys, int out_order, lth_error *err);
void lth_opdecomp_ws_free(lth_opdecomp_ws *ws);
/* The threshold of cond_chain and cond_interval (default LTH_DEFAULT_COND_MAX). */
void lth_opdecomp_ws_set_cond_max(lth_opdecomp_ws *ws, double cond_max);
/* The scale of cond_interval (the largest chain_norm on the interval of
 * interest, docs/conditioning.md; default 0: the chain norm at t). */
void lth_opdecomp_ws_set_scale(lth_opdecomp_ws *ws, double scale);

/* Decompose at t into pt (pt->order <= the workspace's out_order).  Refusals
 * name t and the condition as lth_decomp_at's: an exactly singular Pi
 * (LTH_ESING), cond_chain or cond_interval above cond_max (LTH_ECOND), a
 * callback failure (LTH_ECALLBACK), a non-finite result (LTH_ENOTFINITE).
 * The error amplification is the a priori cond_interval^(r-1) only: where it
 * exceeds LTH_AMPLIFICATION_MEASURE -- where lth_decomp_at measures it by a
 * perturbed recomputation -- this path refuses (LTH_ECOND) and says so. */
lth_status lth_opdecomp_at(lth_opdecomp_ws *ws, double t, lth_oppoint *pt, lth_error *err);

/* ---- applying the results ----
 * x and y distinct; LTH_EDIM on a wrong size, LTH_EINVAL on a point without
 * a decomposition (none yet, or the last one failed).  The applies use the
 * point's scratch: one thread at a time per point (points are cheap to have
 * one per thread). */

/* y = P x or (I - P) x (minus = 1), P = blockdiag(P_1, ..., P_{r-1}): x, y m x k. */
lth_status lth_oppoint_apply_P(const lth_oppoint *pt, int minus, const lth_jet *x, lth_jet *y,
                               lth_error *err);
/* y = Ahat x (x, y m x k): the linear part of the reduced ODE v' = Ahat v + g. */
lth_status lth_oppoint_apply_Ahat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                                  lth_error *err);
/* y = Bhat x (x m x k, y s x k): rows of w_1, ..., w_{r-1}, then u, so that
 * (w, u) = Bhat v + q (Clark (3.11)). */
lth_status lth_oppoint_apply_Bhat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                                  lth_error *err);
/* y = G x = (Nhat + Bhat)(I - P) x (x m x k, y s x k; Corollary 3): the
 * consistent z of the state (I - P) x is G x + q. */
lth_status lth_oppoint_apply_G(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
/* y = A(t) x (x, y s x k), the system's own matrix at t (for residuals). */
lth_status lth_oppoint_apply_A(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
/* Block A_ij (1-based) of the system at the point's t, as stored: its
 * pattern (the one the system was given: rows x cols, colptr[0..cols],
 * rowind[0..nnz-1]) and the values at t, entry p at val[p] (the Taylor
 * coefficient 0).  An absent block is rows x cols with nnz = 0 and NULL
 * pointers.  The pointers are the point's, valid until its next
 * decomposition.  LTH_EINVAL for i, j outside 1..r or a point without a
 * decomposition.  (For building sparse approximations of Ahat, such as a
 * preconditioner from A(t); lib/decomp/op_blocks.c.) */
typedef struct lth_opblock {
  int rows, cols, nnz;
  const int *colptr, *rowind;
  const double *val;
} lth_opblock;
lth_status lth_oppoint_block(const lth_oppoint *pt, int i, int j, lth_opblock *out, lth_error *err);
/* Where the thin factors reach, for assembling Ahat, G and P as sparse
 * matrices (the collocation system of lth_bvp_solve_op, lib/bvp/bvp_op.c):
 * cols[c] = 1 (c < m) for the columns of v where Ahat, G or P use the thin
 * factors (the columns of S_i, C_i, D_i); at every other column c, Ahat e_c
 * is column c of the sparse blocks A_ik (i, k < r), G e_c = e_c and
 * P e_c = 0.  rows[k] = 1 (k < s) for the rows of z where the thin factors
 * add to Ahat (rows of L_i and F_ij) or G (rows of L_i and u's).  The sets
 * are those of the blocks' patterns, the same at every t.  LTH_EINVAL on a
 * point without a decomposition or with Pi factored sparsely
 * (lth_opsys_set_pi_factor: use LTH_OP_PI_DENSE). */
lth_status lth_oppoint_thin_reach(const lth_oppoint *pt, char *cols, char *rows, lth_error *err);
/* y = S x, rows (i-1) n_r .. i n_r - 1 of y being S_i x_i (x m x k, y
 * (r-1) n_r x k): P_i = L_i S_i with L_i of full column rank, so P x = 0 iff
 * S x = 0, the (r-1) n_r = m - p independent conditions that put a state on
 * range(I - P).  Orders as the other applies; LTH_EINVAL as
 * lth_oppoint_thin_reach. */
lth_status lth_oppoint_apply_S(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
/* g (m x 1), q (s x 1) and the forcing f (s x 1) at t into y (orders
 * min(pt's order, y's maxorder); f to the input order out_order + r - 1). */
lth_status lth_oppoint_g(const lth_oppoint *pt, lth_jet *y, lth_error *err);
lth_status lth_oppoint_q(const lth_oppoint *pt, lth_jet *y, lth_error *err);
lth_status lth_oppoint_f(const lth_oppoint *pt, lth_jet *y, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
