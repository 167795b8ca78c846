/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jet sources: matrix functions of t that deliver their Taylor coefficients.
 *
 * Every block A_ij and f_i of a system is a source.  Kinds (a small table of
 * function pointers behind one interface, like GSL's ODE stepper types):
 *   constant matrices, expression matrices (Taylor-mode AD, lth/expr.h),
 *   C callbacks (the caller supplies the coefficients), sparse blocks (a
 *   fixed CSC pattern with values per Taylor order, from a callback or from
 *   Matrix Market files), and sampled data (lth/samples.h; the only kind
 *   with truncation error).
 */
#ifndef LTH_SOURCE_H
#define LTH_SOURCE_H

#include <stddef.h>

#include "lth/expr.h"
#include "lth/jet.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_source lth_source;

/* The interface a kind of source implements. */
typedef struct lth_source_type {
  const char *name;
  /* Fill out (rows x cols, out->maxorder >= order) with the coefficients
   * M_m = M^{(m)}(t)/m!, m = 0..order, and set out->order = order. */
  lth_status (*fill)(const void *state, double t, int order, lth_jet *out, double *work,
                     lth_error *err);
  /* Doubles of scratch fill needs at this order (NULL: none). */
  size_t (*work_size)(const void *state, int order);
  /* Interval where the source is defined (NULL: all t). */
  void (*domain)(const void *state, double *lo, double *hi);
  void (*destroy)(void *state);
  int exact; /* 1: coefficients exact to rounding; 0: estimated (sampled data) */
  /* Optional (NULL: the data carry no enclosure; include/lth/enclose.h).
   * Enclose coefficients 0..order of every entry over [a, b]: entry (i, j)
   * of order m at coef[m*rows*cols + i + j*rows]; work holds
   * enclose_work_size(state, order) intervals. */
  lth_status (*enclose)(const void *state, double a, double b, int order, lth_interval *coef,
                        lth_interval *work, lth_error *err);
  size_t (*enclose_work_size)(const void *state, int order);
  /* Optional: the sources this one is computed from (a mass-matrix solve:
   * M and X), at most 4, into parts; returns how many.  The data are
   * resolved where all parts are. */
  int (*parts)(const void *state, const lth_source **parts);
  /* Optional (NULL: a dense source): a sparse source's fixed pattern and
   * the values on it.  csc_pattern returns nnz and points colptr (cols + 1)
   * and rowind (nnz) at the pattern, compressed sparse column, 0-based, rows
   * strictly increasing within each column; it stays valid as long as the
   * source.  fill_csc writes coefficient m of entry p (in pattern order) to
   * values[m*stride + p], m = 0..order, stride >= nnz, with the scratch of
   * work_size; fill (the dense view) must agree with it: entries outside the
   * pattern are zero. */
  int (*csc_pattern)(const void *state, const int **colptr, const int **rowind);
  lth_status (*fill_csc)(const void *state, double t, int order, double *values, size_t stride,
                         double *work, lth_error *err);
  /* Optional (a sparse source whose data carry an enclosure): enclose
   * coefficients 0..order of the entries of the pattern over [a, b], entry p
   * of order m at coef[m*stride + p] (stride >= nnz), with
   * enclose_work_size(state, order) intervals of work.  The enclosure of
   * `enclose` on the pattern, without the rows x cols of it. */
  lth_status (*enclose_csc)(const void *state, double a, double b, int order, lth_interval *coef,
                            size_t stride, lth_interval *work, lth_error *err);
  /* Optional (a dense source whose entries are analytic functions of t,
   * include/lth/expr.h, lth_expr_ellipse_bound): M[k] >= |entry k| (k
   * column-major) over the closed region bounded by the Bernstein ellipse
   * E_rho of [a, b], the entry analytic there; INFINITY where that is not
   * proven; target (NULL: none), over and the value returned as
   * lth_expr_ellipse_bound's.  work: ellipse_work_size(state) intervals. */
  int (*ellipse)(const void *state, double a, double b, double rho, const double *target, double *M,
                 double *over, lth_interval *work);
  size_t (*ellipse_work_size)(const void *state);
  /* Optional: 1 if some entry may have poles at finite complex t
   * (lth_expr_has_poles): the ellipse's bound is then tried before the
   * interval Taylor bound. */
  int (*ellipse_first)(const void *state);
} lth_source_type;

/* A source of a given type over `state`: a kind of one's own is an
 * lth_source_type (static, outliving its sources) with at least `fill`.
 * Ownership of state passes to the source; type->destroy (if any) is called
 * on it by lth_source_free, also when this fails (LTH_EINVAL for a NULL type
 * or fill, or a negative size). */
lth_source *lth_source_new(const lth_source_type *type, void *state, int rows, int cols,
                           lth_error *err);
void lth_source_free(lth_source *src);

/* Constant matrix (column-major, leading dimension lda; copied). */
lth_source *lth_source_const(int rows, int cols, const double *a, int lda, lth_error *err);
/* Constant "eye": ones on the main diagonal (rows and cols may differ), a
 * sparse source (lth_source_is_sparse) of min(rows, cols) entries. */
lth_source *lth_source_identity(int rows, int cols, lth_error *err);

/* User callback: fill the Taylor coefficients M_m = M^{(m)}(t)/m! (NOT the
 * derivatives) for m = 0..order of a rows x cols matrix function; coefficient
 * m starts at coef + m*stride, column-major with leading dimension ld.  Entries
 * not written are zero.  Return 0 on success, nonzero on failure (reported as
 * LTH_ECALLBACK with t).  May be called concurrently from several threads
 * when grids run in parallel: it must be reentrant. */
typedef int (*lth_source_callback_fn)(void *ctx, double t, int order, double *coef, int ld,
                                      size_t stride);
lth_source *lth_source_callback(int rows, int cols, lth_source_callback_fn fn, void *ctx,
                                lth_error *err);

/* ---- sparse sources: a fixed pattern, values per Taylor order ----
 *
 * A sparse block is given in compressed sparse column form (CSC): column j
 * (0-based) holds the entries colptr[j] .. colptr[j+1]-1, with row indices
 * rowind[p] (0-based, strictly increasing within each column, so no entry
 * twice) and nnz = colptr[cols] entries; the pattern stays the same for all
 * t (an entry of the pattern may be 0 at some t).  Indices are int (nnz <
 * 2^31), as SuiteSparse's int32 interfaces take them.
 *
 * Values come from a callback: fill the Taylor coefficients V_m(p) =
 * v_p^{(m)}(t)/m! (NOT the derivatives) of entry p, m = 0..order, at
 * values[m*stride + p] (stride >= nnz; values not written are zero).  Return
 * 0 on success, nonzero on failure (LTH_ECALLBACK with t).  It must be
 * reentrant, as lth_source_callback's.
 *
 * Today's decomposition works on dense blocks: lth_source_fill expands the
 * values into the dense rows x cols jet (zero outside the pattern).  The
 * pattern stays available (lth_source_csc_pattern) with the values on it
 * (lth_source_fill_csc) for solvers that use the sparsity. */
typedef int (*lth_source_csc_fn)(void *ctx, double t, int order, double *values, size_t stride);
/* A rows x cols sparse source; colptr (cols + 1 entries) and rowind (nnz)
 * are copied and checked (LTH_EINVAL naming the first bad entry). */
lth_source *lth_source_csc_callback(int rows, int cols, const int *colptr, const int *rowind,
                                    lth_source_csc_fn fn, void *ctx, lth_error *err);
/* 1 if src has a fixed sparse pattern (a CSC callback, or a data file's
 * combination of mm("file.mtx") matrices, docs/format.md). */
int lth_source_is_sparse(const lth_source *src);
/* The pattern of a sparse source: *nnz entries, colptr (cols + 1) and
 * rowind (nnz), owned by the source; LTH_EINVAL for a dense source. */
lth_status lth_source_csc_pattern(const lth_source *src, int *nnz, const int **colptr,
                                  const int **rowind, lth_error *err);
/* Coefficients 0..order of the values on the pattern: entry p of order m at
 * values[m*stride + p] (stride >= nnz), with lth_source_work_size(src, order)
 * doubles of scratch.  Errors as lth_source_fill (domain, non-finite
 * values); LTH_EINVAL for a dense source. */
lth_status lth_source_fill_csc(const lth_source *src, double t, int order, double *values,
                               size_t stride, double *work, lth_error *err);
/* 1 if the sparse source src carries an enclosure on its pattern (a data
 * file's mm() combinations, the equation form's blocks of constants and
 * expressions); 0 for callbacks and dense sources. */
int lth_source_can_enclose_csc(const lth_source *src);
/* Enclosures over [a, b] of coefficients 0..order of the values on the
 * pattern: entry p of order m at coef[m*stride + p] (stride >= nnz), with
 * lth_source_enclose_work_size(src, order) intervals of work (include/lth/
 * enclose.h says what an enclosure is).  O(nnz) per order where the dense
 * lth_source_enclose takes rows x cols.  LTH_EINVAL when src carries none. */
lth_status lth_source_enclose_csc(const lth_source *src, double a, double b, int order,
                                  lth_interval *coef, size_t stride, lth_interval *work,
                                  lth_error *err);

/* Matrix of expressions; entries[i + j*rows] (column-major) is entry (i, j).
 * The source takes ownership of the rows*cols expressions (also on failure). */
lth_source *lth_source_expr(int rows, int cols, lth_expr **entries, lth_error *err);

/* alpha * base(t) or alpha * base(t)^T (transpose != 0), sharing base: base
 * must outlive the new source.  Used to build the LQR optimality DAE. */
lth_source *lth_source_scaled(const lth_source *base, double alpha, int transpose, lth_error *err);

/* M(t)^{-1} X(t) (lib/source/source_solve.c): M (n x n) is shared and must outlive
 * the new source; X (n x k) is owned (freed with it, also on failure).  Each
 * fill factors M_0 once and solves the jet recurrence, so the result is exact
 * to rounding (no differences).  mscale > 0 is the size of M on the interval
 * (max ||M(t)||_1, see lth_source_solve_scan); a t where mscale ||M(t)^-1||_1
 * exceeds cond_max (<= 0: LTH_SOURCE_SOLVE_COND_MAX) is LTH_ECOND, an exactly
 * singular M(t) LTH_ESING, both naming t, `label` and the condition. */
#define LTH_SOURCE_SOLVE_COND_MAX 1e12
lth_source *lth_source_solve(const lth_source *M, lth_source *X, double mscale, double cond_max,
                             const char *label, lth_error *err);
/* 1 if src is a solve M^{-1} X of lth_source_solve with an M that is not
 * diagonal (those fill densely), setting *M, *X and *label (the source's,
 * valid as long as it): lets the operator path keep M as a sparse
 * factorization and X as it is.  0 for any other source (a diagonal M's
 * solve is a sparse source of its own). */
int lth_source_solve_parts(const lth_source *src, const lth_source **M, const lth_source **X,
                           const char **label);
/* LTH_OK unless src is such a solve whose M would be filled densely beyond
 * LTH_DEFAULT_DENSE_MASS_MAX_ENTRIES (the refusal of its first fill, named
 * before anything n x n or s x s is allocated: the dense path's workspaces
 * ask it of every block). */
lth_status lth_source_solve_fits(const lth_source *src, lth_error *err);
/* Y <- M(t)^{-1} Y (n x k, leading dimension ld) for a sparse M, by a sparse
 * LU (SuiteSparse KLU) made for this call; *inv_norm = KLU's estimate of
 * ||M(t)^{-1}||_1.  LTH_ESING (naming t) for a singular M(t), LTH_EINVAL for
 * a dense M or in a library built without KLU.  For checks that need
 * M^{-1} X on a few columns (the equation form's check of Pi). */
lth_status lth_source_solve_sparse(const lth_source *M, double t, double *Y, int ld, int k,
                                   double *inv_norm, lth_error *err);
/* Check M at times[0..n-1]: *mscale = max ||M(t_k)||_1; then the relative
 * condition as above at every t_k, and a change of sign of det M between
 * neighbours (M singular in between) is LTH_ESING naming both times.  A
 * diagonal sparse M of more than 64 rows is checked and solved entry by
 * entry.  Any other sparse M of more than 64 rows is checked by a sparse LU
 * (SuiteSparse KLU, its condition estimate) in a library built with KLU.
 * The solve source fills any non-diagonal M densely (n x n per Taylor
 * order): one of more than 5e7 entries (n > 7071) is refused as LTH_ENOMEM
 * at its first fill, before anything n x n is allocated, naming `label`
 * (the operator path, include/lth/opdecomp.h, takes a constant sparse one
 * as a factorization instead: lth_source_solve_parts); a dense M of that
 * size, or a sparse one without KLU, is refused here already. */
lth_status lth_source_solve_scan(const lth_source *M, const double *times, size_t n,
                                 double cond_max, const char *label, double *mscale,
                                 lth_error *err);

int lth_source_rows(const lth_source *src);
int lth_source_cols(const lth_source *src);
/* The kind and the state the source was made with (lth_source_new): lets
 * code that knows a kind recognise its sources (compare the type pointer)
 * and read their state; the state stays owned by the source. */
const lth_source_type *lth_source_get_type(const lth_source *src);
const void *lth_source_state(const lth_source *src);
/* 1 if the coefficients are exact to rounding (everything but sampled data). */
int lth_source_is_exact(const lth_source *src);
/* Interval where the source is defined ([-inf, inf] if everywhere). */
void lth_source_domain(const lth_source *src, double *lo, double *hi);

/* Scratch (doubles) lth_source_fill needs at this order. */
size_t lth_source_work_size(const lth_source *src, int order);
/* Coefficients 0..order at t into out (rows x cols, maxorder >= order).
 * LTH_ERANGE (with t) outside the source's domain; a non-finite coefficient
 * is LTH_ENOTFINITE with t. */
lth_status lth_source_fill(const lth_source *src, double t, int order, lth_jet *out, double *work,
                           lth_error *err);

/* ---- enclosures of the data (docs/enclosures.md, include/lth/enclose.h) ---- */

/* 1 if the source carries an enclosure of its own (constants, expressions,
 * the equation form's blocks of those); 0 otherwise (callbacks, sampled
 * data, and sources that lth_enclose examines through their parts:
 * mass-matrix solves, and dense scaled or transposed views
 * (lth_source_scaled), whose enclosure is their base's; a sparse scaled
 * view carries one on its pattern, lth_source_can_enclose_csc). */
int lth_source_can_enclose(const lth_source *src);
/* Intervals of workspace for lth_source_enclose at this order. */
size_t lth_source_enclose_work_size(const lth_source *src, int order);
/* Enclosures of the Taylor coefficients of the rows x cols source over
 * [a, b], m = 0..order: entry (i, j) of order m at coef[m*rows*cols + i +
 * j*rows].  LTH_EINVAL when the source carries no enclosure. */
lth_status lth_source_enclose(const lth_source *src, double a, double b, int order,
                              lth_interval *coef, lth_interval *work, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
