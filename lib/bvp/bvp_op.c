/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation of a BVP on the operator path (include/lth/bvp.h,
 * lth_bvp_solve_op): nothing s x s, m x p or p x p is formed.
 *
 * Design.  The dense collocation (bvp_colloc.c) writes v in p local
 * coordinates per mesh interval and eliminates the stages with dense LU: its
 * blocks are p x p and m x p, hopeless when p ~ s ~ 10^3..10^5.  Here v keeps
 * its own m coordinates and the whole discretisation is one sparse system:
 *  - Ahat(t) = (the sparse blocks A_ik, i, k < r) + (a patch in the few
 *    columns where the thin factors C_i, D_i, S_i reach, at the rows of
 *    L_i, F_ij): lth_oppoint_thin_reach gives the columns and rows, the
 *    patch columns are Ahat applied to unit vectors (exact: Ahat e_c is
 *    column c of the sparse blocks at every other column).  G = [I; 0] + a
 *    patch the same way.
 *  - Unknowns per interval k: y_k (m) and the stage derivatives K_kj (m each,
 *    j < stages); rows: K_kj - Ahat(t_kj)(y_k + h sum_l a_jl K_kl) =
 *    g(t_kj), continuity y_{k+1} = y_k + h sum_j b_j K_kj, and at t0 the p
 *    boundary rows B0 G0 y_0 + B1 G1 y_N = beta - B0 q0 - B1 q1 with the
 *    m - p rows S(t0) y_0 = 0 (y_0 in range(I - P(t0)): P = L S, L of full
 *    column rank).  Square; KLU factors it (AMD ordering keeps the fill near
 *    the band the intervals make).
 *  - v is not held on range(I - P) inside the interval (the dense path's
 *    local coordinates do that): it leaves it by the discretisation error,
 *    which the mesh halving measures like any other; z = G v + q projects,
 *    and the drift max ||P v|| at the output times is reported.
 *  - The output times are mesh points (order 2 stages there, no extra
 *    step), and so are the ends of the data's pieces (a POINT piece's
 *    interval carries v across: K = 0); the mesh is otherwise uniform
 *    (bvp_op_mesh.c) and halved until two successive solutions agree to
 *    tol; the finer one is returned.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bvp_impl.h"
#include "bvp_op_impl.h"
#include "colloc/colloc.h"
#include "colloc/pieces.h"
#include "core/errors.h"
#include "decomp/op_data.h"
#include "ivp/opivp_proof.h"
#include "source/csc.h"
#include "lth/defaults.h"

#ifdef LTH_HAVE_KLU
#include <klu.h>
#endif

#ifdef LTH_HAVE_KLU
int lth_bvp_op_available(void) { return 1; }
#else
int lth_bvp_op_available(void) { return 0; }
#endif

static void result_free_partial(lth_bvp_result *res) { lth_bvp_result_free(res); }

#ifndef LTH_HAVE_KLU

lth_status lth_bvp_solve_op(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                            const double *times, size_t n, const lth_bvp_opts *opts,
                            lth_bvp_result **out, lth_error *err) {
  (void)sys, (void)t0, (void)t1, (void)bc, (void)times, (void)n, (void)opts;
  (void)result_free_partial;
  *out = NULL;
  return lth_error_set(err, LTH_EINVAL,
                       "collocation on the operator path needs SuiteSparse KLU, and this library "
                       "was built without it (CMake option LTH_SUITESPARSE)");
}

lth_status lth_bvp_solve_op_slack(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                                  int ne, const lth_bvp_csc *E, const double *times, size_t n,
                                  const lth_bvp_opts *opts, lth_bvp_result **out, double *slack,
                                  lth_error *err) {
  (void)ne, (void)E, (void)slack;
  return lth_bvp_solve_op(sys, t0, t1, bc, times, n, opts, out, err);
}

#else

/* ---- the global system in compressed columns ----
 *
 * Two passes: count_system bounds every column's entries from the patterns
 * alone (Ahat's, the boundary matrices', the thin factors' reach: assemble
 * later skips the values that are exactly zero), then assemble writes each
 * entry into its column in the order it makes them, and cols_finish sorts
 * each column by row, stably, and sums repeated entries in that order.
 * That is lth_csc_from_triplets' matrix entry for entry and bit for bit,
 * without the triplets it was built from (16 bytes an entry in a buffer
 * that doubled) and the two sorted copies (12 bytes an entry each) the
 * conversion held beside them: at nx = 2,000 (lth-lqr, 19.5 M entries)
 * those were the peak, above KLU's factors. */

typedef struct cols {
  lth_csc *A;   /* slots colptr[j] .. colptr[j+1]-1 of column j */
  size_t *next; /* the next free slot of each column */
} cols;

static int cols_add(cols *T, int i, int j, double v) {
  size_t p = T->next[j];
  if (p >= (size_t)T->A->colptr[j + 1]) return -1; /* beyond its count: never */
  T->next[j] = p + 1;
  T->A->rowind[p] = i;
  T->A->val[p] = v;
  return 0;
}

static void cols_release(cols *T) {
  lth_csc_free(T->A);
  free(T->next);
  memset(T, 0, sizeof *T);
}

typedef struct slot {
  int row;
  size_t at; /* the order made: the sort is stable by it */
  double v;
} slot;

static int cmp_slot(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->row != y->row) return (x->row > y->row) - (x->row < y->row);
  return (x->at > y->at) - (x->at < y->at);
}

/* Each column sorted by row (stably) and its repeats summed in the order
 * made, moved down over the slots left empty; LTH_ENOMEM. */
static lth_status cols_finish(cols *T, lth_error *err) {
  lth_csc *A = T->A;
  size_t nz = 0, cap = 0;
  slot *w = NULL;
  for (int j = 0; j < A->cols; j++) {
    size_t lo = (size_t)A->colptr[j], hi = T->next[j], start = nz;
    int sorted = 1;
    for (size_t p = lo + 1; p < hi && sorted; p++) sorted = A->rowind[p - 1] <= A->rowind[p];
    if (!sorted) {
      if (hi - lo > cap) {
        cap = 2 * (hi - lo);
        slot *nw = realloc(w, cap * sizeof *w);
        if (!nw) {
          free(w);
          return lth_error_set(err, LTH_ENOMEM, "out of memory assembling the collocation system");
        }
        w = nw;
      }
      for (size_t p = lo; p < hi; p++) w[p - lo] = (slot){A->rowind[p], p, A->val[p]};
      qsort(w, hi - lo, sizeof *w, cmp_slot);
      for (size_t p = lo; p < hi; p++) A->rowind[p] = w[p - lo].row, A->val[p] = w[p - lo].v;
    }
    for (size_t p = lo; p < hi; p++) {
      if (nz > start && A->rowind[nz - 1] == A->rowind[p]) {
        A->val[nz - 1] += A->val[p];
      } else {
        A->rowind[nz] = A->rowind[p];
        A->val[nz++] = A->val[p];
      }
    }
    A->colptr[j] = (int)start;
  }
  A->colptr[A->cols] = (int)nz;
  A->nnz = (int)nz;
  free(w);
  return LTH_OK;
}

/* Where the rows go: the boundary rows at 0..p-1, the m - p rows S(t0) y_0
 * = 0 at p..m-1, interval k's stage and continuity rows as their unknowns
 * (so that the diagonal is the natural pivot and KLU's ordering of A + A'
 * holds: rows shifted off the unknowns make its partial pivoting fill
 * beyond use); with slack, the boundary rows p..p+ne-1 after all that, at
 * the slack unknowns' rows nunk.. . */
typedef struct rowmap {
  int p;
  size_t nunk;
} rowmap;

static int bc_row(const rowmap *R, int i) {
  return i < R->p ? i : (int)(R->nunk + (size_t)(i - R->p));
}

/* The boundary rows: B G(t) at the columns of v (t0: unknowns from col0),
 * into T at rows bc_row(R, 0..rows-1); B q(t) subtracted from rhs. */
static lth_status bc_rows(opbvp *B, const lth_bvp_csc *Bc, double t, int col0, cols *T, double *rhs,
                          int with_S, const rowmap *R, lth_error *err) {
  int m = B->m, s = B->s;
  lth_status st = lth_bvpop_decompose(B, t, err);
  if (st == LTH_OK && B->nspc > 0) st = lth_oppoint_apply_G(B->pt, B->X, B->Z, err);
  if (st == LTH_OK) st = lth_oppoint_q(B->pt, B->qv, err);
  if (st == LTH_OK && with_S && B->nspc > 0) st = lth_oppoint_apply_S(B->pt, B->X, B->Sx, err);
  if (st != LTH_OK) return st;
  for (int c = 0; c < s; c++) { /* rhs -= B q */
    for (int e = Bc->colptr[c]; e < Bc->colptr[c + 1]; e++)
      rhs[bc_row(R, Bc->rowind[e])] -= Bc->val[e] * B->qv->c[c];
  }
  int fail = 0;
  for (int c = 0; c < m && !fail; c++) { /* G e_c = e_c off the reach */
    if (B->spos[c] >= 0) continue;
    for (int e = Bc->colptr[c]; e < Bc->colptr[c + 1]; e++) {
      fail |= cols_add(T, bc_row(R, Bc->rowind[e]), col0 + c, Bc->val[e]);
    }
  }
  for (int q = 0; q < B->nspc && !fail; q++) {
    const double *g = B->Z->c + (size_t)q * B->Z->ld;
    for (int k = 0; k < s && !fail; k++) {
      if (g[k] == 0.0) continue;
      for (int e = Bc->colptr[k]; e < Bc->colptr[k + 1]; e++) {
        fail |= cols_add(T, bc_row(R, Bc->rowind[e]), col0 + B->spc[q], Bc->val[e] * g[k]);
      }
    }
    if (with_S) {
      const double *sx = B->Sx->c + (size_t)q * B->Sx->ld;
      for (int a = 0; a < (B->r - 1) * B->nr && !fail; a++) {
        if (sx[a] != 0.0) fail |= cols_add(T, R->p + a, col0 + B->spc[q], sx[a]);
      }
    }
  }
  return fail ? lth_error_set(err, LTH_EINVAL,
                              "internal error: an entry of the collocation system beyond its "
                              "column's count")
              : LTH_OK;
}

/* The entries bc_rows may write, per column (into cnt, by col0 + c). */
static void count_bc(const opbvp *B, const lth_bvp_csc *Bc, size_t col0, int with_S, size_t *cnt) {
  for (int c = 0; c < B->m; c++) {
    if (B->spos[c] < 0) cnt[col0 + (size_t)c] += (size_t)(Bc->colptr[c + 1] - Bc->colptr[c]);
  }
  size_t patch = (size_t)Bc->colptr[B->s] + (with_S ? (size_t)(B->r - 1) * (size_t)B->nr : 0);
  for (int q = 0; q < B->nspc; q++) cnt[col0 + (size_t)B->spc[q]] += patch;
}

/* The entries assemble may write, per column, into cnt (nsys, zeroed). */
static void count_system(const opbvp *B, const omesh *M, const lth_bvp_sparse_bc *bc, size_t *cnt) {
  size_t m = (size_t)B->m, ns = (size_t)B->ns, blk = (1 + ns) * m, nunk = M->N * blk + m;
  count_bc(B, &bc->B0, 0, 1, cnt);
  for (size_t k = 0; k < M->N; k++) {
    size_t base = k * blk;
    for (size_t c = 0; c < m; c++) {
      size_t nc = (size_t)(B->ap[c + 1] - B->ap[c]);
      cnt[base + c] += ns * nc + 1; /* -Ahat y_k; continuity */
      for (size_t l = 0; l < ns; l++) {
        cnt[base + (1 + l) * m + c] += ns * nc + 2; /* -h a Ahat K; I; continuity */
      }
      cnt[base + blk + c] += 1; /* continuity: y_{k+1} */
    }
  }
  count_bc(B, &bc->B1, M->N * blk, 0, cnt);
  for (int k = 0; k < B->ne; k++) {
    cnt[nunk + (size_t)k] += (size_t)(B->E->colptr[k + 1] - B->E->colptr[k]);
  }
}

/* Assemble the collocation system on M: the matrix into T's counted
 * columns and the right-hand side. */
static lth_status assemble(opbvp *B, const omesh *M, const lth_bvp_sparse_bc *bc, cols *T,
                           double *rhs, lth_error *err) {
  int m = B->m, ns = B->ns;
  size_t blk = (size_t)(1 + ns) * m;
  size_t nunk = M->N * blk + m, nrows = nunk + (size_t)B->ne;
  rowmap R = {B->p, nunk};
  memset(rhs, 0, nrows * sizeof(double));
  for (int i = 0; i < bc->rows; i++) rhs[bc_row(&R, i)] = bc->beta[i];
  B->last_sign = 0;
  B->last_t = -INFINITY;
  lth_status st = bc_rows(B, &bc->B0, M->t[0], 0, T, rhs, 1, &R, err);
  int fail = 0;
  for (size_t k = 0; k < M->N && st == LTH_OK && !fail; k++) {
    double h = M->t[k + 1] - M->t[k];
    size_t base = k * blk;
    if (B->pc && lth_pieces_at_point(B->pc, M->t[k], M->t[k + 1])) {
      /* across a kink or jump of the data (a POINT piece, a few ulps
       * wide): K = 0, v carried over (the dense collocation's step_across) */
      for (int j = 0; j < ns && !fail; j++) {
        for (int a = 0; a < m && !fail; a++) {
          size_t row = base + (size_t)(1 + j) * m + (size_t)a;
          fail |= cols_add(T, (int)row, (int)row, 1.0);
        }
      }
    }
    for (int j = 0; j < ns && st == LTH_OK && !fail; j++) {
      if (B->pc && lth_pieces_at_point(B->pc, M->t[k], M->t[k + 1])) break;
      st = lth_bvpop_decompose(B, M->t[k] + B->tab.c[j] * h, err);
      if (st == LTH_OK) st = lth_bvpop_ahat_values(B, err);
      if (st != LTH_OK) break;
      size_t row = base + (size_t)(1 + j) * m;
      for (int a = 0; a < m; a++) {
        fail |= cols_add(T, (int)(row + a), (int)(row + a), 1.0);
        rhs[row + a] = B->gv->c[a];
      }
      for (int c = 0; c < m && !fail; c++) {
        for (int e = B->ap[c]; e < B->ap[c + 1] && !fail; e++) {
          double v = B->av[e];
          if (v == 0.0) continue;
          int a = B->ai[e];
          fail |= cols_add(T, (int)(row + a), (int)(base + c), -v);
          for (int l = 0; l < ns; l++) {
            double w = h * B->tab.A[j + (size_t)l * ns];
            fail |= cols_add(T, (int)(row + a), (int)(base + (size_t)(1 + l) * m + c), -w * v);
          }
        }
      }
    }
    /* continuity: y_{k+1} - y_k - h sum_j b_j K_kj = 0, in y_{k+1}'s rows */
    size_t nxt = base + blk, nr = nxt;
    for (int a = 0; a < m && !fail; a++) {
      fail |= cols_add(T, (int)(nr + a), (int)(nxt + a), 1.0);
      fail |= cols_add(T, (int)(nr + a), (int)(base + a), -1.0);
      for (int j = 0; j < ns; j++) {
        fail |= cols_add(T, (int)(nr + a), (int)(base + (size_t)(1 + j) * m + a), -h * B->tab.b[j]);
      }
    }
  }
  if (st == LTH_OK && !fail)
    st = bc_rows(B, &bc->B1, M->t[M->N], (int)(M->N * blk), T, rhs, 0, &R, err);
  for (int k = 0; k < B->ne && !fail; k++) { /* - E s in the boundary rows */
    for (int e = B->E->colptr[k]; e < B->E->colptr[k + 1]; e++) {
      fail |= cols_add(T, bc_row(&R, B->E->rowind[e]), (int)(nunk + (size_t)k), -B->E->val[e]);
    }
  }
  if (st == LTH_OK && fail) {
    st = lth_error_set(err, LTH_EINVAL,
                       "internal error: an entry of the collocation system beyond its column's "
                       "count");
  }
  return st;
}

/* The memory a mesh's system may take (lth_bvp_colloc_opts.max_bytes; 0: the
 * machine's physical memory, none known: no limit). */
static double memory_limit(size_t max_bytes) {
  if (max_bytes > 0) return (double)max_bytes;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : INFINITY;
}

/* Refuse a mesh whose system needs more than limit bytes (before it is
 * allocated: never an out-of-memory kill after minutes of assembly). */
static lth_status check_memory(const omesh *M, size_t nsys, double bytes, double limit,
                               const char *what, lth_error *err) {
  if (bytes <= limit) return LTH_OK;
  return lth_error_set(err, LTH_ENOMEM,
                       "collocation on the operator path: the sparse system on %zu intervals "
                       "(%zu unknowns) needs about %.3g GB %s, more than the %.3g GB allowed "
                       "(the machine's memory, or opts.colloc.max_bytes); fewer Gauss stages (a "
                       "looser tolerance) or fewer output times need less",
                       M->N, nsys, bytes / 1e9, what, limit / 1e9);
}

/* Solve on M: the mesh values y (M->N + 1 blocks of m) into *ysol, and the
 * slack unknowns (lth_bvp_solve_op_slack) into B->slack. */
static lth_status solve_mesh(opbvp *B, const omesh *M, const lth_bvp_sparse_bc *bc, double cmax,
                             double limit, double **ysol, double *cond, lth_error *err) {
  size_t blk = (size_t)(1 + B->ns) * B->m, nunk = M->N * blk + B->m;
  int slack = B->ne > 0;
  size_t nsys = nunk + (size_t)B->ne;
  if (nsys > (size_t)INT_MAX / 2) {
    return lth_error_set(err, LTH_ENOMEM,
                         "the collocation system on %zu intervals has %zu unknowns: too many for "
                         "KLU's int indices",
                         M->N, nsys);
  }
  double *rhs = calloc(nsys, sizeof(double));
  size_t *cnt = calloc(nsys + 1, sizeof(size_t));
  cols T = {0};
  lth_status st = rhs && cnt
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory for the collocation system");
  size_t bound = 0;
  if (st == LTH_OK) {
    count_system(B, M, bc, cnt + 1);
    for (size_t c = 0; c < nsys; c++) cnt[c + 1] += cnt[c];
    bound = cnt[nsys];
    if (bound > (size_t)INT_MAX) {
      st = lth_error_set(err, LTH_ENOMEM,
                         "the collocation system on %zu intervals has up to %zu entries: too "
                         "many for KLU's int indices",
                         M->N, bound);
    }
  }
  /* the matrix (an int and a double an entry), its column counts, the
   * right-hand side */
  double mbytes = 12.0 * (double)bound + 20.0 * (double)nsys;
  if (st == LTH_OK) st = check_memory(M, nsys, mbytes, limit, "for its matrix alone", err);
  if (st == LTH_OK) {
    T.A = lth_csc_alloc((int)nsys, (int)nsys, bound ? (int)bound : 1, 0, err);
    if (!T.A) st = lth_error_status(err);
  }
  if (st == LTH_OK) {
    for (size_t c = 0; c <= nsys; c++) T.A->colptr[c] = (int)cnt[c];
    T.next = cnt; /* the counts' prefix sums are each column's first free slot */
    cnt = NULL;
    st = assemble(B, M, bc, &T, rhs, err);
  }
  if (st == LTH_OK) st = cols_finish(&T, err);
  free(cnt);
  free(T.next);
  T.next = NULL;
  lth_csc *A = st == LTH_OK ? T.A : NULL;
  if (st != LTH_OK) cols_release(&T);
  int *ap = A ? A->colptr : NULL, *ai = A ? A->rowind : NULL;
  double *ax = A ? A->val : NULL;
  klu_common kc;
  klu_symbolic *ks = NULL;
  klu_numeric *kn = NULL;
  if (st == LTH_OK) {
    klu_defaults(&kc);
    /* partial pivoting: KLU's default threshold 0.001 lets the stage rows grow
     * their pivots enough to floor the error near 1e-9 on the chain of
     * scripts/gen-chain.py --bvp (n = 5: the error estimate stalled at 5e-10
     * up to 65,536 intervals; with 1.0, 1.2e-13 on 16) */
    kc.tol = 1.0;
    /* with slack the rows of v(t0)'s columns determined at t1 (lth-lqr's
     * lambda(t0)) have no entry on the diagonal: the maximum transversal of
     * the block triangular form gives a zero-free one, without which the
     * pivoting filled the factors superlinearly in the mesh (nx = 200, 16
     * intervals: 17.6 M entries and 25 s; with it 1.7 M and 0.2 s) */
    kc.btf = slack ? 1 : 0;
    ks = klu_analyze((int)nsys, ap, ai, &kc);
    /* KLU's estimate of its factors from the ordering (an int and a double
     * an entry; pages it reserves beyond those are not touched) beside the
     * matrix (against lth-lqr's peaks: docs/performance.md, "LQR at size") */
    double fbytes = ks ? 12.0 * (ks->lnz + ks->unz + (double)ks->nzoff) + 64.0 * (double)nsys : 0.0;
    if (ks) st = check_memory(M, nsys, mbytes + fbytes, limit, "with its LU factors", err);
    kn = ks && st == LTH_OK ? klu_factor(ap, ai, ax, ks, &kc) : NULL;
    if (st != LTH_OK) {
      /* (refused above: the factors would not fit) */
    } else if (kc.status == KLU_OUT_OF_MEMORY) {
      st =
          lth_error_set(err, LTH_ENOMEM,
                        "out of memory factoring the collocation system (%zu unknowns, KLU)", nsys);
    } else if ((!kn || kc.status == KLU_SINGULAR) && slack) {
      st = lth_bvp_not_unique_detail(INFINITY, "collocation system with slack",
                                     "dependent on the solution manifold and the slack "
                                     "directions: together they do not fix its p free constants "
                                     "and the slack",
                                     err);
    } else if (!kn || kc.status == KLU_SINGULAR) {
      st = lth_bvp_not_unique_detail(INFINITY, "collocation system",
                                     "dependent on the solution manifold: together they "
                                     "do not fix its p free constants",
                                     err);
    }
  }
  if (st == LTH_OK && klu_condest(ap, ax, ks, kn, &kc)) {
    *cond = kc.condest;
    if (!(kc.condest <= cmax)) {
      st = lth_bvp_not_unique(kc.condest,
                              slack ? "collocation system with slack" : "collocation system", err);
    }
  }
  if (st == LTH_OK && !klu_solve(ks, kn, (int)nsys, 1, rhs, &kc)) {
    st = lth_error_set(err, LTH_ENOMEM, "the collocation solve failed (KLU status %d)", kc.status);
  }
  if (kn) klu_free_numeric(&kn, &kc);
  if (ks) klu_free_symbolic(&ks, &kc);
  lth_csc_free(A);
  if (st == LTH_OK) {
    for (int k = 0; k < B->ne; k++) B->slack[k] = rhs[nunk + (size_t)k];
    for (size_t k = 0; k <= M->N; k++)
      memmove(rhs + k * B->m, rhs + k * blk, B->m * sizeof(double));
    *ysol = rhs;
  } else {
    free(rhs);
  }
  return st;
}

/* z = G(t) y + q(t) at the output times, and the drift max ||P y||. */
static lth_status outputs(opbvp *B, const omesh *M, const double *y, const double *times, size_t n,
                          double *z, double *drift, lth_error *err) {
  int m = B->m, s = B->s;
  lth_status st = LTH_OK;
  *drift = 0.0;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    size_t i = lth_bvpop_mesh_index(M, times[k]);
    B->last_sign = 0;
    st = lth_bvpop_decompose(B, M->t[i], err);
    memcpy(B->yv->c, y + i * m, m * sizeof(double));
    B->yv->order = 0;
    if (st == LTH_OK) st = lth_oppoint_apply_G(B->pt, B->yv, B->zv, err);
    if (st == LTH_OK) st = lth_oppoint_q(B->pt, B->qv, err);
    for (int a = 0; a < s && st == LTH_OK; a++) z[k * s + a] = B->zv->c[a] + B->qv->c[a];
    if (st == LTH_OK) st = lth_oppoint_apply_P(B->pt, 0, B->yv, B->gv, err);
    double d = 0.0;
    for (int a = 0; a < m && st == LTH_OK; a++) d += B->gv->c[a] * B->gv->c[a];
    *drift = fmax(*drift, sqrt(d));
  }
  return st;
}

/* ||B0 z(t0) + B1 z(t1) - beta||_2 with z at the ends of mesh M. */
static lth_status bc_residual(opbvp *B, const omesh *M, const double *y,
                              const lth_bvp_sparse_bc *bc, double *res, lth_error *err) {
  int s = B->s;
  double *z = malloc(2 * (size_t)s * sizeof(double)),
         *r = calloc((size_t)bc->rows + 1, sizeof(double));
  double ends[2] = {M->t[0], M->t[M->N]}, drift;
  lth_status st = z && r ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) st = outputs(B, M, y, ends, 2, z, &drift, err);
  for (int ec = 0; ec < 2 && st == LTH_OK; ec++) {
    const lth_bvp_csc *Bc = ec ? &bc->B1 : &bc->B0;
    for (int c = 0; c < s; c++) {
      for (int e = Bc->colptr[c]; e < Bc->colptr[c + 1]; e++) {
        r[Bc->rowind[e]] += Bc->val[e] * z[ec * s + c];
      }
    }
  }
  double acc = 0.0;
  for (int i = 0; i < bc->rows && st == LTH_OK; i++)
    acc += (r[i] - bc->beta[i]) * (r[i] - bc->beta[i]);
  *res = sqrt(acc);
  free(z);
  free(r);
  return st;
}

static lth_status check_bc(const lth_opsys *sys, const lth_bvp_sparse_bc *bc, int p, int ne,
                           lth_error *err) {
  int s = lth_opsys_size(sys);
  if (bc && ne > 0 && bc->rows != p + ne) {
    return lth_error_set(err, LTH_EBC,
                         "the boundary conditions have %d rows; with %d slack unknowns they need "
                         "p + %d = %d (p = %d, the dimension of the solution manifold)",
                         bc->rows, ne, ne, p + ne, p);
  }
  if (!bc || (ne == 0 && bc->rows != p)) {
    return lth_error_set(err, LTH_EBC,
                         "the boundary conditions have %d rows; the solution manifold has "
                         "dimension p = %d",
                         bc ? bc->rows : 0, p);
  }
  for (int w = 0; w < 2; w++) {
    const lth_bvp_csc *Bc = w ? &bc->B1 : &bc->B0;
    if (!Bc->colptr || Bc->colptr[0] != 0 || (Bc->colptr[s] > 0 && (!Bc->rowind || !Bc->val))) {
      return lth_error_set(err, LTH_EBC, "B%d: not a compressed sparse column matrix", w);
    }
    for (int c = 0; c < s; c++) {
      if (Bc->colptr[c + 1] < Bc->colptr[c]) {
        return lth_error_set(err, LTH_EBC, "B%d: colptr decreases at column %d", w, c + 1);
      }
      for (int e = Bc->colptr[c]; e < Bc->colptr[c + 1]; e++) {
        if (Bc->rowind[e] < 0 || Bc->rowind[e] >= bc->rows || !isfinite(Bc->val[e])) {
          return lth_error_set(err, LTH_EBC,
                               "B%d: entry %d of column %d is outside %d rows or "
                               "not finite",
                               w, e + 1, c + 1, bc->rows);
        }
      }
    }
  }
  for (int i = 0; i < bc->rows; i++) {
    if (!isfinite(bc->beta[i])) return lth_error_set(err, LTH_EBC, "beta[%d] is not finite", i + 1);
  }
  return LTH_OK;
}

/* The slack directions E (rows x ne, CSC) and the place for s. */
static lth_status check_slack(int rows, int ne, const lth_bvp_csc *E, const double *slack,
                              lth_error *err) {
  if (!E || !E->colptr || E->colptr[0] != 0 || !slack ||
      (E->colptr[ne] > 0 && (!E->rowind || !E->val))) {
    return lth_error_set(err, LTH_EBC, "E: not a compressed sparse column matrix, or no slack");
  }
  for (int c = 0; c < ne; c++) {
    for (int e = E->colptr[c]; e < E->colptr[c + 1]; e++) {
      if (E->colptr[c + 1] < E->colptr[c] || E->rowind[e] < 0 || E->rowind[e] >= rows ||
          !isfinite(E->val[e])) {
        return lth_error_set(err, LTH_EBC,
                             "E: entry %d of column %d is outside %d rows or "
                             "not finite",
                             e + 1, c + 1, rows);
      }
    }
  }
  return LTH_OK;
}

static void report(const lth_bvp_opts *o, double tol, double est, double zscale, int done) {
  if (!o->progress) return;
  double want = ceil(-log10(tol)), got = floor(log10(fmax(1.0, zscale) / est));
  size_t total = want < 1 ? 1 : (size_t)want;
  size_t k = done ? total : !(got > 0) ? 0 : (size_t)fmin(got, (double)total - 1);
  o->progress(o->progress_ctx, k, total);
}

/* Halve until two successive meshes agree (bvp.h). */
static lth_status adapt(opbvp *B, double t0, double t1, const lth_bvp_sparse_bc *bc,
                        const double *times, size_t n, const lth_bvp_opts *o, double tol,
                        lth_bvp_result *res, lth_error *err) {
  size_t maxN =
      o->colloc.max_intervals ? o->colloc.max_intervals : (size_t)LTH_DEFAULT_COLLOC_MAX_INTERVALS;
  /* the collocation matrix's condition is not the BVP's (it grows with the
   * mesh and mixes row scales): only cond_max judges it; rounding it
   * amplifies shows in the difference of the two meshes, which must be
   * below tol */
  double cmax = o->cond_max > 0 ? o->cond_max : LTH_DEFAULT_COND_MAX;
  int s = B->s;
  omesh M = {0}, H = {0};
  double *y = NULL, *yh = NULL, cond = NAN;
  double *zc = malloc((n * (size_t)s + 1) * sizeof(double));
  if (!zc || lth_bvpop_mesh_make(&M, LTH_DEFAULT_COLLOC_INITIAL, t0, t1, times, n, B->pc)) {
    free(zc);
    return lth_error_set(err, LTH_ENOMEM, "out of memory for the collocation mesh");
  }
  double drift = 0.0;
  double limit = memory_limit(o->colloc.max_bytes);
  lth_status st = solve_mesh(B, &M, bc, cmax, limit, &y, &cond, err);
  if (st == LTH_OK) st = outputs(B, &M, y, times, n, zc, &drift, err);
  while (st == LTH_OK) {
    if (lth_bvpop_mesh_halve(&M, &H)) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory for the collocation mesh");
      break;
    }
    st = solve_mesh(B, &H, bc, cmax, limit, &yh, &cond, err);
    if (st == LTH_OK) st = outputs(B, &H, yh, times, n, res->z, &drift, err);
    if (st != LTH_OK) break;
    double est = 0.0, zs = 1.0;
    for (size_t k = 0; k < n * (size_t)s; k++) {
      est = fmax(est, fabs(res->z[k] - zc[k]));
      zs = fmax(zs, fabs(res->z[k]));
    }
    if (!isfinite(est)) {
      st = lth_error_set(err, LTH_ENOTFINITE, "the collocation solution is not finite");
      break;
    }
    free(M.t);
    free(y);
    M = H;
    y = yh;
    H = (omesh){0};
    yh = NULL;
    if (est <= tol * zs) {
      report(o, tol, est, zs, 1);
      res->error_estimate = est;
      res->intervals = (int)M.N;
      res->cond_shooting = cond;
      res->drift = drift;
      st = bc_residual(B, &M, y, bc, &res->bc_residual, err);
      break;
    }
    report(o, tol, est, zs, 0);
    if (2 * M.N > maxN) {
      st = lth_error_set(err, LTH_ETOL,
                         "collocation on the operator path: the estimated error %.3g is above "
                         "the tolerance %.3g * max(1, |z|) = %.3g on %zu intervals, and halving "
                         "again exceeds --max-intervals %zu",
                         est, tol, tol * zs, M.N, maxN);
      break;
    }
    memcpy(zc, res->z, n * (size_t)s * sizeof(double));
  }
  free(M.t);
  free(H.t);
  free(y);
  free(yh);
  free(zc);
  return st;
}

/* Pi nonsingular and within cond_max between the points (bvp.h): proven
 * where the data carry enclosures, sampled and halved where the proof fails
 * (lib/ivp/opivp_proof.c), split at the output times as lth_opivp_solve
 * splits its proof; the mesh points' own decompositions and their signs of
 * det Pi (decompose) see only the points. */
static lth_status prove_pi(const lth_opsys *sys, double t0, double t1, const double *times,
                           size_t n, const lth_bvp_opts *o, lth_bvp_result *res, lth_error *err) {
  opivp_pi_proof pf;
  double cmax = o->cond_max > 0 ? o->cond_max : LTH_DEFAULT_COND_MAX;
  lth_status st = opivp_prove_interval(sys, t0, t1, times, n, cmax, &pf, err);
  if (st != LTH_OK) return st;
  res->pi_proven = pf.proven;
  res->pi_inv_bound = pf.pinv_bound;
  res->pi_proofs = pf.pieces;
  res->pi_proof_off = pf.off;
  return LTH_OK;
}

/* The pieces of [t0, t1] on which the data are resolved by degree
 * 2 stages - 1 to tol, and the points where they are not smooth, as the
 * dense collocation finds them (colloc_adapt.c, data_pieces): every mesh
 * keeps the pieces' ends, so that each interval lies in one piece and no
 * pulse, kink or jump hides between the Gauss points of both meshes (a pulse
 * of width 5e-6 did: y = 0 for 0.054, and a jump the constraint never
 * reaches was refused after 65,536 intervals).  pc->n = 0 when the data
 * carry no enclosure (a system set block by block: callbacks). */
static lth_status data_pieces(const lth_opsys *sys, double t0, double t1, int stages, double tol,
                              size_t max_pieces, lth_pieces *pc, lth_error *err) {
  memset(pc, 0, sizeof *pc);
  const lth_system *from = op_sys_origin(sys);
  if (!from) return LTH_OK;
  int K = 2 * stages - 1;
  lth_enclose *enc = lth_enclose_alloc(from, K, err);
  if (!enc) return lth_error_status(err);
  lth_status st = lth_enclose_known(enc)
                      ? lth_pieces_find(enc, t0, t1, K, tol, 0.0, max_pieces, pc, err)
                      : LTH_OK;
  lth_enclose_free(enc);
  return st;
}

static lth_status solve_op(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                           const double *times, size_t n, const lth_bvp_opts *opts, int ne,
                           const lth_bvp_csc *E, double *slack, lth_bvp_result **out,
                           lth_error *err) {
  *out = NULL;
  lth_bvp_opts o;
  if (opts)
    o = *opts;
  else
    lth_bvp_opts_init(&o);
  double tol = o.colloc.tol != 0.0 ? o.colloc.tol : LTH_DEFAULT_COLLOC_TOL;
  if (!(tol > 0.0 && tol < 1.0)) {
    return lth_error_set(err, LTH_EINVAL, "collocation tolerance %g: need 0 < tol < 1", tol);
  }
  int stages = o.colloc.stages ? o.colloc.stages : lth_colloc_default_stages(tol);
  if (stages < 1 || stages > LTH_COLLOC_MAX_STAGES) {
    return lth_error_set(err, LTH_EINVAL, "collocation stages %d: need 1 <= stages <= %d", stages,
                         LTH_COLLOC_MAX_STAGES);
  }
  if (!sys || !(t0 < t1) || (n > 0 && !times)) {
    return lth_error_set(err, LTH_EINVAL, "lth_bvp_solve_op: need a system and t0 < t1");
  }
  for (size_t k = 0; k < n; k++) {
    if (!(times[k] >= t0 && times[k] <= t1)) {
      return lth_error_set(err, LTH_EINVAL, "output time %.17g outside [%.17g, %.17g]", times[k],
                           t0, t1);
    }
  }
  opbvp B;
  lth_status st =
      lth_bvpop_init(&B, sys, t0, stages, o.cond_max > 0 ? o.cond_max : LTH_DEFAULT_COND_MAX, err);
  B.ne = 0;
  if (st == LTH_OK) st = check_bc(sys, bc, B.p, ne, err);
  if (st == LTH_OK && ne > 0) st = check_slack(bc->rows, ne, E, slack, err);
  if (st == LTH_OK) {
    B.ne = ne;
    B.E = E;
    B.slack = slack;
  }
  lth_bvp_result *res = st == LTH_OK ? calloc(1, sizeof *res) : NULL;
  if (st == LTH_OK && res) {
    res->n = n;
    res->s = B.s;
    res->p = B.p;
    res->method = LTH_BVP_COLLOCATION;
    res->fd_order = res->fd_error = res->fd_error_layer = res->cond_bvp = NAN;
    res->error_estimate = NAN;
    res->times = malloc((n + 1) * sizeof(double));
    res->z = malloc(((size_t)B.s * n + 1) * sizeof(double));
  }
  if (st == LTH_OK && (!res || !res->times || !res->z)) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory allocating a BVP solution");
  }
  if (st == LTH_OK) {
    memcpy(res->times, times, n * sizeof(double));
    st = prove_pi(sys, t0, t1, times, n, &o, res, err);
  }
  lth_pieces pc = {0};
  size_t maxN =
      o.colloc.max_intervals ? o.colloc.max_intervals : (size_t)LTH_DEFAULT_COLLOC_MAX_INTERVALS;
  if (st == LTH_OK) st = data_pieces(sys, t0, t1, stages, tol, maxN, &pc, err);
  B.pc = pc.n > 1 ? &pc : NULL;
  if (st == LTH_OK) st = adapt(&B, t0, t1, bc, times, n, &o, tol, res, err);
  lth_pieces_release(&pc);
  lth_bvpop_free(&B);
  if (st != LTH_OK) {
    result_free_partial(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}

lth_status lth_bvp_solve_op(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                            const double *times, size_t n, const lth_bvp_opts *opts,
                            lth_bvp_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  return solve_op(sys, t0, t1, bc, times, n, opts, 0, NULL, NULL, out, err);
}

lth_status lth_bvp_solve_op_slack(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                                  int ne, const lth_bvp_csc *E, const double *times, size_t n,
                                  const lth_bvp_opts *opts, lth_bvp_result **out, double *slack,
                                  lth_error *err) {
  LTH_ERROR_RECORD(err);
  if (ne < 1) {
    *out = NULL;
    return lth_error_set(err, LTH_EINVAL, "lth_bvp_solve_op_slack: need ne >= 1 slack unknowns");
  }
  return solve_op(sys, t0, t1, bc, times, n, opts, ne, E, slack, out, err);
}

#endif
