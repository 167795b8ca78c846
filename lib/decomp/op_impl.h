/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the operator form of Clark's decomposition (include/lth/opdecomp.h).
 *
 * Algorithm 1 in the uniform form (docs/theory.md section 2, lib/decomp/
 * decomp.c) keeps every algebraic map as [B | q] (W = m + 1 columns, the last
 * the affine part).  Each map of w_i is Q_{i+1}[...] = L_i S_{i+1}[...], so
 *     X_i = L_i C_i   (i = 1..r-1),   X_0 = C_0 (u's map),
 * with C_i an n_r x W jet, and with S_i L_i = I (S_i = Pi^{-1} R_i,
 * Pi = R_i L_i) step i of Algorithm 1 (Clark (3.6), (3.7)) becomes
 *     E_i     = D[C_i] = C_i' + C_i Y                  (the flow derivative)
 *     Ut_i    = sum_{j>=i} A_ij V_j + sum_{j>=i} F_ij C_j + [0 | f_i]
 *     C_{i-1} = E_i - S_i Ut_i - T_i V_i
 *     Y_i     = Ut_i + A_{i,i-1} V_{i-1} + L_i D_i,     D_i = C_{i-1} - E_i
 * where F_ii = A_ii L_i - L_i', F_ij = A_ij L_j (j > i), and
 * T_i = S_i P_i' = S_i L_i' S_i + S_i' (so P_i P_i' = L_i T_i).  Derivation:
 * U_i = Ut_i - L_i E_i is the dense code's U_i (A_ij X_j = F_ij C_j, and
 * D[X_i] = L_i' C_i + L_i E_i); then X_{i-1} = -L_{i-1} S_i (U_i + P_i' V_i)
 * gives C_{i-1}, and Y_i = (I - P_i) U_i - P_i P_i' V_i + A_{i,i-1} V_{i-1}
 * = Ut_i - L_i (S_i Ut_i + T_i V_i) + A_{i,i-1} V_{i-1} gives Y_i (the
 * L_i E_i terms cancel exactly).  Start (3.4): C_{r-1} = [0 | -Pi^{-1} f_r].
 *
 * Ahat (the linear columns of Y) is never formed: Y_i x = sum_j A_ij x_j +
 * sum_j F_ij (C_j x) + L_i (D_i x), and C_i Y in E_i is taken the same way
 * from the rows of Y already computed.  Orders as the dense code: with
 * input order K, C_i has order K - (r-1-i), D_i and Y_i order K - r + i.
 *
 * Storage (lib/decomp/op_columns.c): entries outside the blocks' patterns
 * are exact zeros at every t, so most rows of L_i and F_ij, most columns of
 * R_i, S_i, T_i and of C_i, D_i are zero at every point when the
 * constraints act locally.  Each factor is stored and multiplied at the
 * rows or columns its pattern allows alone (op_rows); with dense blocks
 * those are all of them.
 */
#ifndef LTH_OP_IMPL_H
#define LTH_OP_IMPL_H

#include <stddef.h>

#include "lth/jet.h"
#include "lth/opdecomp.h"
#include "lth/source.h"

/* A block as set: a pattern and where its values come from. */
typedef struct op_block {
  int set;
  int rows, cols, nnz;
  int *colptr, *rowind;
  lth_op_fill_fn fn; /* values from a callback, */
  void *ctx;
  double *cval;          /* or constant values, */
  const lth_source *src; /* or a source of lth_opsys_from_system: */
  int src_sparse;        /* 1: its own pattern (lth_source_fill_csc), 0: the full one */
  int mass;              /* 1: the block is M_i^{-1} times these values (op_mass.c) */
} op_block;

typedef struct op_fblock {
  lth_op_fill_fn fn;
  void *ctx;
  const lth_source *src;
  int mass; /* 1: f_i is M_i^{-1} times src */
} op_fblock;

/* A block row's constant sparse mass matrix, factored (lib/decomp/op_mass.c). */
typedef struct op_mass op_mass;

struct lth_opsys {
  int r, s, m, nr, nmax;
  int *n, *off; /* n[i-1] = n_i, off[i-1] = offset of block i, off[r] = s */
  op_block *A;  /* A[(i-1) + r (j-1)] */
  op_fblock *f; /* f[i-1] */
  int has_src;  /* some block or f is a dense source */
  /* mass[i-1]: block row i's mass matrix M_i (a sparse source, not
   * diagonal, constant: op_mass.c) when its blocks and f_i are kept as
   * M_i^{-1} times their own values, else NULL; mlabel[i-1] its name */
  const lth_source **mass;
  const char **mlabel;
  int nmass; /* block rows with a mass */
  lth_op_pi_factor pi_factor; /* lth_opsys_set_pi_factor (op_sparsepi.c) */
  /* the system lth_opsys_from_system made this from, while every block and
   * f_i are still its sources (op_data.h); NULL otherwise */
  const lth_system *origin;
};

/* The value jets of one sparse block at a point: coefficient k of entry p
 * at val[p + k stride]; the pattern is the system's. */
typedef struct op_csc {
  int rows, cols, nnz;
  const int *colptr, *rowind;
  int order;
  size_t stride;
  double *val; /* NULL: the block is absent (zero) */
  int fixed;   /* constant values, already in val (op_eval fills them once) */
  double nrm;  /* ||A_0||_1 of a fixed block once known, else -1 (of a block
               * with a mass: set at each evaluation, op_mass_norm1) */
  op_mass *mass; /* non-NULL: the block is M^{-1} times these values */
} op_csc;

/* The entries of a thin factor's rows (or columns) that its pattern lets be
 * nonzero, of u in all (lib/decomp/op_columns.c): idx[0..n) ascending,
 * pos[0..u) the place of each in idx, or -1 (an exact zero at every t). */
typedef struct op_rows {
  int n, u;
  int *idx, *pos;
} op_rows;

/* idx and pos as maps for the kernels below: NULL (the identity, and dense
 * BLAS products) when the set is every entry. */
static inline const int *op_idx(const op_rows *rs) { return rs->n == rs->u ? NULL : rs->idx; }
static inline const int *op_pos(const op_rows *rs) { return rs->n == rs->u ? NULL : rs->pos; }

struct lth_oppoint {
  const lth_opsys *sys;
  lth_opinfo info;
  int K, W, max_cols;
  op_csc *A;  /* A[(i-1) + r (j-1)] */
  lth_jet f;  /* s x 1 */
  lth_jet Pi; /* n_r x n_r */
  lth_jet *L; /* L[i-1] = L_i at its rows lr[i-1]: lr.n x n_r */
  lth_jet *S; /* S[i-1] = S_i at its columns sa[i-1]: n_r x sa.n */
  lth_jet *C; /* C[i] = C_i, n_r x W, i = 0..r-1 */
  lth_jet *D; /* D[i-1] = D_i, n_r x W */
  lth_jet *F; /* F[(i-1) + r (j-1)] = F_ij at its rows fr[same]: fr.n x n_r
               * (j = i, and j > i where A_ij is set; else no storage) */
  /* the rows of L_i, columns of S_i, rows of F_ij (op_thin_sets) */
  op_rows *lr, *sa, *fr;
  lth_jet g, q;  /* m x 1, s x 1 */
  lth_jet *work; /* n_r x (2 r max_cols) scratch of the applies */
  /* The columns of [v | 1] that C_i, D_i can have nonzero (op_columns.c):
   * C_i, D_i (and the workspace's E) hold those Wc <= W alone, in order, so
   * that block k's part is columns cb[k] .. cb[k+1]-1 (k = 1..r-1) and the
   * affine one is cb[r] = Wc - 1.  ucol[c]: the column of [v | 1] that
   * column c holds; upos[w]: the column holding w, or -1 (a zero column). */
  int Wc, compact; /* compact: Wc < W */
  int *cb, *ucol, *upos;
  int *uloc;   /* uloc[c]: ucol[c]'s row within its block (c < Wc - 1) */
  lth_jet *xg; /* Wc x max_cols: an apply's argument at the rows ucol */
  struct op_sparsepi *sp; /* the sparse-Pi path (op_sparsepi.h), else NULL */
  op_mass **mass;         /* mass[i-1]: block row i's (sys->mass), else NULL */
};

/* ---- mass matrices (lib/decomp/op_mass.c) ----
 * The kernels below take a block with a mass (A->mass) as M^{-1} times its
 * values by these (the same contracts, M^{-1} B for A).  chunk (1..64): the
 * columns solved at once. */
op_mass *op_mass_alloc(const lth_source *M, const char *label, int chunk, int K, lth_error *err);
void op_mass_free(op_mass *ms);
size_t op_mass_bytes(const op_mass *ms);
/* M's jet at t: LTH_EDATA naming M and t if a derivative is nonzero (M must
 * be constant), factored again if its values changed (LTH_ESING, LTH_ECOND). */
lth_status op_mass_eval(op_mass *ms, double t, int K, lth_error *err);
/* Y <- M^{-1} Y, orders 0..Y->order (Y has M's rows). */
void op_mass_solve_jet(op_mass *ms, lth_jet *Y);
void op_mass_left_rows(double alpha, const op_csc *A, const lth_jet *X, const op_rows *xr,
                       lth_jet *Y, const int *ypos);
void op_mass_right_cols(double alpha, const lth_jet *X, const int *xpos, const op_csc *A,
                        lth_jet *Y, const int *ycols);
void op_mass_dense_map(const op_csc *A, const int *ypos, const int *ycols, lth_jet *Y);
/* ||M^{-1} B||_1 at t: exact up to 256 columns, else ||M^{-1}||_1 (KLU's
 * estimate) times ||B||_1. */
double op_mass_norm1(const op_csc *A);
int op_mass_available(void);

/* ---- sparse jet kernels (lib/decomp/op_sparse.c) ----
 * Truncated Cauchy products; Y's order becomes min(Y's, A's, X's). */
/* Y += alpha A X (A sparse rows x cols, X cols x k, Y rows x k). */
void op_csc_left(double alpha, const op_csc *A, const lth_jet *X, lth_jet *Y);
/* Y(ypos[row], :) += alpha A X(q, :) over the rows q of X, X's row q being
 * A's column xr->idx[q] (xr NULL: X has all of A's columns); rows with
 * ypos < 0 are skipped (NULL: the identity).  Orders as op_csc_left. */
void op_csc_left_rows(double alpha, const op_csc *A, const lth_jet *X, const op_rows *xr,
                      lth_jet *Y, const int *ypos);
/* Y(:, q) += alpha sum_p X(:, xpos[rowind p]) val_p over column q of Y,
 * A's column ycols[q] (q < Y->cols); entries with xpos < 0 are skipped. */
void op_csc_right_cols(double alpha, const lth_jet *X, const int *xpos, const op_csc *A, lth_jet *Y,
                       const int *ycols);
/* Y = A(ypos rows, ycols columns) (either NULL: all), order A's. */
void op_csc_dense_map(const op_csc *A, const int *ypos, const int *ycols, lth_jet *Y);
/* Y += alpha sum_p X(:, p) B(row p, :) (p < X->cols), row p = m2[m1[p]]
 * (m1 or m2 NULL: the identity), skipping rows < 0: a thin factor times the
 * rows of another that it meets.  Order min(X's, B's, Y's, Y's maxorder). */
void op_gather_mul(double alpha, const lth_jet *X, const int *m1, const int *m2, const lth_jet *B,
                   lth_jet *Y);
/* Y(rows[p], :) += alpha X(p, :) B (p < X->rows; rows NULL: the identity):
 * a row-compact factor's product into the full rows.  Order as
 * op_gather_mul.  With the identity maps both are lth_jet_gemm. */
void op_scatter_mul(double alpha, const lth_jet *X, const int *rows, const lth_jet *B, lth_jet *Y);
/* ||A_0||_1 (the value at t). */
double op_csc_norm1(const op_csc *A);

/* The block (i, j) of a point (1-based). */
static inline const op_csc *op_A(const lth_oppoint *pt, int i, int j) {
  return &pt->A[(i - 1) + pt->sys->r * (j - 1)];
}

/* The value jets of A and f at t into pt, orders 0..K (lib/decomp/op_sys.c);
 * work: the doubles lth_opsys_work_size(sys, K) says. */
lth_status op_eval(const lth_opsys *sys, double t, int K, lth_oppoint *pt, double *work,
                   lth_error *err);
size_t op_work_size(const lth_opsys *sys, int K);

/* The structure of the thin factors (lib/decomp/op_columns.c): act[w] = 1
 * for the columns of R_i (block i's part of [v | 1]) its pattern allows to
 * be nonzero, and ucol[0..*wc) the columns C_i, D_i can have nonzero
 * (ascending, the affine column m last).  Both malloc'd (the caller frees);
 * LTH_ENOMEM. */
lth_status op_structure(const lth_opsys *sys, char **act, int **ucol, int *wc);
/* The rows of L_i into lr[i-1], the columns act(R_i) (of R_i, S_i, T_i)
 * into sa[i-1] (i = 1..r-1), the rows of F_ij into fr[(i-1) + r (j-1)]
 * (j = i, and j > i where A_ij is set); every set keeps one entry at least.
 * LTH_ENOMEM (op_rows_release what was made). */
lth_status op_thin_sets(const lth_opsys *sys, op_rows *lr, op_rows *fr, op_rows *sa);
lth_status op_rows_from_mask(const char *mask, int u, op_rows *out);
void op_rows_release(op_rows *rs);

#endif
