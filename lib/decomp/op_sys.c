/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sparse system of the operator form (include/lth/opdecomp.h): block
 * patterns, where their values come from, and their evaluation at t. */
#include "lth/opdecomp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/defaults.h"
#include "lth/enclose.h"
#include "op_data.h"
#include "op_impl.h"
#include "system/system_parts.h"

lth_opsys *lth_opsys_alloc(int r, const int *n, lth_error *err) {
  if (r < 2 || !n) {
    lth_error_set(err, LTH_EINVAL, "index %d: a Hessenberg system has index r >= 2", r);
    return NULL;
  }
  for (int i = 0; i < r; i++) {
    if (n[i] < 1 || n[i] < n[r - 1]) {
      lth_error_set(err, LTH_EDIM, "block %d has size %d: sizes must be >= 1 and >= n_r = %d",
                    i + 1, n[i], n[r - 1]);
      return NULL;
    }
  }
  lth_opsys *sys = calloc(1, sizeof *sys);
  if (sys) {
    sys->n = malloc((size_t)r * sizeof *sys->n);
    sys->off = malloc((size_t)(r + 1) * sizeof *sys->off);
    sys->A = calloc((size_t)r * (size_t)r, sizeof *sys->A);
    sys->f = calloc((size_t)r, sizeof *sys->f);
    sys->mass = calloc((size_t)r, sizeof *sys->mass);
    sys->mlabel = calloc((size_t)r, sizeof *sys->mlabel);
  }
  if (!sys || !sys->n || !sys->off || !sys->A || !sys->f || !sys->mass || !sys->mlabel) {
    lth_opsys_free(sys);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a sparse system");
    return NULL;
  }
  sys->r = r;
  for (int i = 0; i < r; i++) {
    sys->n[i] = n[i];
    sys->off[i] = sys->s;
    sys->s += n[i];
    sys->nmax = n[i] > sys->nmax ? n[i] : sys->nmax;
  }
  sys->off[r] = sys->s;
  sys->nr = n[r - 1];
  sys->m = sys->s - sys->nr;
  return sys;
}

void lth_opsys_free(lth_opsys *sys) {
  if (!sys) {
    return;
  }
  for (int k = 0; sys->A && k < sys->r * sys->r; k++) {
    free(sys->A[k].colptr);
    free(sys->A[k].rowind);
    free(sys->A[k].cval);
  }
  free(sys->A);
  free(sys->f);
  free(sys->mass);
  free(sys->mlabel);
  free(sys->n);
  free(sys->off);
  free(sys);
}

static lth_status check_block(const lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                              const int *rowind, lth_error *err) {
  if (!lth_system_in_pattern(sys->r, i, j)) {
    return lth_error_set(err, LTH_ESTRUCT, "A(%d,%d) is outside the Hessenberg pattern of index %d",
                         i, j, sys->r);
  }
  if (sys->A[(i - 1) + sys->r * (j - 1)].set) {
    return lth_error_set(err, LTH_EINVAL, "A(%d,%d) is set twice", i, j);
  }
  int rows = sys->n[i - 1], cols = sys->n[j - 1];
  if (nnz < 0 || !colptr || (nnz > 0 && !rowind) || colptr[0] != 0 || colptr[cols] != nnz) {
    return lth_error_set(err, LTH_EDIM,
                         "A(%d,%d): a %d x %d pattern needs colptr[0] = 0 and colptr[%d] = nnz "
                         "= %d",
                         i, j, rows, cols, cols, nnz);
  }
  for (int c = 0; c < cols; c++) {
    if (colptr[c + 1] < colptr[c]) {
      return lth_error_set(err, LTH_EDIM, "A(%d,%d): colptr decreases at column %d", i, j, c + 1);
    }
  }
  for (int p = 0; p < nnz; p++) {
    if (rowind[p] < 0 || rowind[p] >= rows) {
      return lth_error_set(err, LTH_EDIM, "A(%d,%d): row index %d of entry %d outside 0..%d", i, j,
                           rowind[p], p, rows - 1);
    }
  }
  return LTH_OK;
}

static lth_status add_block(lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                            const int *rowind, op_block *out, lth_error *err) {
  lth_status st = check_block(sys, i, j, nnz, colptr, rowind, err);
  if (st != LTH_OK) {
    return st;
  }
  int cols = sys->n[j - 1];
  out->colptr = malloc((size_t)(cols + 1) * sizeof(int));
  out->rowind = malloc(((size_t)nnz + 1) * sizeof(int));
  if (!out->colptr || !out->rowind) {
    free(out->colptr);
    free(out->rowind);
    return lth_error_set(err, LTH_ENOMEM, "out of memory copying the pattern of A(%d,%d)", i, j);
  }
  memcpy(out->colptr, colptr, (size_t)(cols + 1) * sizeof(int));
  if (nnz > 0) {
    memcpy(out->rowind, rowind, (size_t)nnz * sizeof(int));
  }
  out->rows = sys->n[i - 1];
  out->cols = cols;
  out->nnz = nnz;
  return LTH_OK;
}

lth_status lth_opsys_set_A(lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                           const int *rowind, lth_op_fill_fn fn, void *ctx, lth_error *err) {
  if (!fn) {
    return lth_error_set(err, LTH_EINVAL, "A(%d,%d): no value callback", i, j);
  }
  op_block b = {0};
  lth_status st = add_block(sys, i, j, nnz, colptr, rowind, &b, err);
  if (st == LTH_OK) {
    b.fn = fn;
    b.ctx = ctx;
    b.set = 1;
    sys->A[(i - 1) + sys->r * (j - 1)] = b;
    sys->origin = NULL;
  }
  return st;
}

lth_status lth_opsys_set_A_const(lth_opsys *sys, int i, int j, int nnz, const int *colptr,
                                 const int *rowind, const double *val, lth_error *err) {
  if (!val && nnz > 0) {
    return lth_error_set(err, LTH_EINVAL, "A(%d,%d): no values", i, j);
  }
  op_block b = {0};
  lth_status st = add_block(sys, i, j, nnz, colptr, rowind, &b, err);
  if (st != LTH_OK) {
    return st;
  }
  b.cval = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!b.cval) {
    free(b.colptr);
    free(b.rowind);
    return lth_error_set(err, LTH_ENOMEM, "out of memory copying the values of A(%d,%d)", i, j);
  }
  for (int p = 0; p < nnz; p++) {
    if (!isfinite(val[p])) {
      free(b.colptr);
      free(b.rowind);
      free(b.cval);
      return lth_error_set(err, LTH_ENOTFINITE, "A(%d,%d): value %d is not finite", i, j, p);
    }
    b.cval[p] = val[p];
  }
  b.set = 1;
  sys->A[(i - 1) + sys->r * (j - 1)] = b;
  sys->origin = NULL;
  return LTH_OK;
}

lth_status lth_opsys_set_f(lth_opsys *sys, int i, lth_op_fill_fn fn, void *ctx, lth_error *err) {
  if (i < 1 || i > sys->r || !fn) {
    return lth_error_set(err, LTH_EINVAL, "f_%d: block row outside 1..%d or no callback", i,
                         sys->r);
  }
  if (sys->f[i - 1].fn || sys->f[i - 1].src) {
    return lth_error_set(err, LTH_EINVAL, "f_%d is set twice", i);
  }
  sys->f[i - 1].fn = fn;
  sys->f[i - 1].ctx = ctx;
  sys->origin = NULL;
  return LTH_OK;
}

/* A full pattern (every entry stored, column by column). */
static lth_status full_block(lth_opsys *sys, int i, int j, const lth_source *src, lth_error *err) {
  int rows = sys->n[i - 1], cols = sys->n[j - 1];
  int nnz = rows * cols;
  int *cp = malloc((size_t)(cols + 1) * sizeof(int)), *ri = malloc(((size_t)nnz + 1) * sizeof(int));
  lth_status st = LTH_OK;
  if (!cp || !ri) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory building the pattern of A(%d,%d)", i, j);
  } else {
    for (int c = 0; c <= cols; c++) {
      cp[c] = c * rows;
    }
    for (int p = 0; p < nnz; p++) {
      ri[p] = p % rows;
    }
    op_block b = {0};
    st = add_block(sys, i, j, nnz, cp, ri, &b, err);
    if (st == LTH_OK) {
      b.src = src;
      b.set = 1;
      sys->A[(i - 1) + sys->r * (j - 1)] = b;
    }
  }
  free(cp);
  free(ri);
  return st;
}

/* A sparse source's own pattern (lth_source_csc_pattern): its values come
 * from lth_source_fill_csc, nothing rows x cols is stored or filled. */
static lth_status sparse_block(lth_opsys *sys, int i, int j, const lth_source *src,
                               lth_error *err) {
  int nnz = 0;
  const int *cp = NULL, *ri = NULL;
  lth_status st = lth_source_csc_pattern(src, &nnz, &cp, &ri, err);
  op_block b = {0};
  st = st == LTH_OK ? add_block(sys, i, j, nnz, cp, ri, &b, err) : st;
  if (st == LTH_OK) {
    b.src = src;
    b.src_sparse = 1;
    b.set = 1;
    sys->A[(i - 1) + sys->r * (j - 1)] = b;
  }
  return st;
}

/* ---- block rows with a mass matrix ---- */

/* 1 if the sparse source M is constant on the system's interval by its
 * enclosure (every first-order Taylor coefficient enclosed by [0, 0]); 0 if
 * it may not be, or carries no enclosure, or the system has no interval. */
static int constant_on(const lth_system *dense, const lth_source *M) {
  double t0, t1;
  int nnz = 0;
  const int *cp, *ri;
  if (!lth_system_interval(dense, &t0, &t1) || !lth_source_can_enclose_csc(M) ||
      lth_source_csc_pattern(M, &nnz, &cp, &ri, NULL) != LTH_OK) {
    return 0;
  }
  size_t nz = (size_t)nnz;
  lth_interval *coef = malloc((2 * nz + 1) * sizeof *coef);
  lth_interval *work = malloc((lth_source_enclose_work_size(M, 1) + 1) * sizeof *work);
  int constant =
      coef && work && lth_source_enclose_csc(M, t0, t1, 1, coef, nz, work, NULL) == LTH_OK;
  for (size_t p = 0; constant && p < nz; p++) {
    constant = coef[nz + p].lo == 0.0 && coef[nz + p].hi == 0.0;
  }
  free(coef);
  free(work);
  return constant;
}

/* The mass matrix M_i of block row i when the row can keep it as a sparse
 * factorization (op_mass.c): every block A_ij and f_i set is a solve
 * M_i^{-1} X (lth_source_solve_parts) with the same M_i, sparse, square,
 * not diagonal, in a library with KLU; else NULL (the blocks stay the dense
 * solves they are). */
static const lth_source *row_mass(const lth_system *dense, int i, const char **label) {
  int r = lth_system_index(dense);
  const lth_source *M = NULL;
  for (int j = 1; j <= r + 1; j++) {
    const lth_source *src = j <= r ? lth_system_A(dense, i, j) : lth_system_forcing(dense, i);
    const lth_source *Mj, *X;
    if (!src) {
      continue;
    }
    if (!lth_source_solve_parts(src, &Mj, &X, label) || (M && Mj != M)) {
      return NULL;
    }
    M = Mj;
  }
  if (!M || !op_mass_available() || !lth_source_is_sparse(M)) {
    return NULL;
  }
  /* M must be constant (op_mass.c refuses a point where it is not): one
   * that may change on the interval keeps the dense solve while that fits */
  int n = lth_source_rows(M);
  if (n <= LTH_DEFAULT_SPARSE_MASS_MIN_ROWS) {
    return NULL;
  }
  if ((double)n * (double)n <= LTH_DEFAULT_DENSE_MASS_MAX_ENTRIES && !constant_on(dense, M)) {
    return NULL;
  }
  return M;
}

/* A row that row_mass did not take keeps its solves dense: one whose M is
 * beyond the dense budget is refused here, naming M and what the sparse
 * form needs, before a full pattern of n_i x n_j is built. */
static lth_status dense_row_fits(const lth_system *dense, int i, lth_error *err) {
  int r = lth_system_index(dense);
  for (int j = 1; j <= r + 1; j++) {
    const lth_source *src = j <= r ? lth_system_A(dense, i, j) : lth_system_forcing(dense, i);
    const lth_source *M, *X;
    const char *label;
    if (src && lth_source_solve_fits(src, NULL) != LTH_OK &&
        lth_source_solve_parts(src, &M, &X, &label)) {
      int n = lth_source_rows(M);
      return lth_error_set(err, LTH_ENOMEM,
                           "the mass matrix %s (%d x %d) is not diagonal: the operator path "
                           "keeps it as a sparse LU when it is sparse, constant on the interval "
                           "and solves every block and the forcing of its row (no inputs "
                           "B(%d))%s; else it is solved densely, %.3g entries per Taylor order, "
                           "over the %.3g allowed",
                           label, n, n, i,
                           op_mass_available() ? "" : ", in a library built with SuiteSparse KLU",
                           (double)n * (double)n, LTH_DEFAULT_DENSE_MASS_MAX_ENTRIES);
    }
  }
  return LTH_OK;
}

/* Block row i's sources as M_i^{-1} times their X's. */
static lth_status mass_row(lth_opsys *sys, const lth_system *dense, int i, lth_error *err) {
  int r = sys->r;
  lth_status st = LTH_OK;
  for (int j = 1; j <= r && st == LTH_OK; j++) {
    const lth_source *src = lth_system_A(dense, i, j), *M, *X;
    const char *label;
    if (!src || !lth_source_solve_parts(src, &M, &X, &label)) {
      continue;
    }
    st = lth_source_is_sparse(X) ? sparse_block(sys, i, j, X, err) : full_block(sys, i, j, X, err);
    if (st == LTH_OK) sys->A[(i - 1) + r * (j - 1)].mass = 1;
  }
  const lth_source *f = lth_system_forcing(dense, i), *M, *X;
  const char *label;
  if (f && lth_source_solve_parts(f, &M, &X, &label)) {
    sys->f[i - 1].src = X;
    sys->f[i - 1].mass = 1;
  }
  return st;
}

lth_opsys *lth_opsys_from_system(const lth_system *dense, lth_error *err) {
  if (!dense) {
    lth_error_set(err, LTH_EINVAL, "lth_opsys_from_system: NULL system");
    return NULL;
  }
  if (lth_system_validate(dense, err) != LTH_OK) {
    return NULL;
  }
  int r = lth_system_index(dense);
  int n[64];
  if (r > 64) {
    lth_error_set(err, LTH_EINVAL, "index %d: the operator form takes r <= 64", r);
    return NULL;
  }
  for (int i = 1; i <= r; i++) {
    n[i - 1] = lth_system_block_size(dense, i);
  }
  lth_opsys *sys = lth_opsys_alloc(r, n, err);
  lth_status st = sys ? LTH_OK : LTH_ENOMEM;
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    const lth_source *M = i < r ? row_mass(dense, i, &sys->mlabel[i - 1]) : NULL;
    if (M) {
      sys->mass[i - 1] = M;
      sys->nmass++;
      st = mass_row(sys, dense, i, err);
      continue;
    }
    st = i < r ? dense_row_fits(dense, i, err) : LTH_OK;
    for (int j = 1; j <= r && st == LTH_OK; j++) {
      const lth_source *src = lth_system_A(dense, i, j);
      if (src) {
        st = lth_source_is_sparse(src) ? sparse_block(sys, i, j, src, err)
                                       : full_block(sys, i, j, src, err);
      }
    }
    sys->f[i - 1].src = lth_system_forcing(dense, i);
  }
  if (st != LTH_OK) {
    lth_opsys_free(sys);
    return NULL;
  }
  sys->has_src = 1;
  sys->origin = dense;
  return sys;
}

int lth_opsys_index(const lth_opsys *sys) { return sys->r; }
int lth_opsys_size(const lth_opsys *sys) { return sys->s; }
int lth_opsys_state_dim(const lth_opsys *sys) { return sys->m; }
int lth_opsys_block_size(const lth_opsys *sys, int i) {
  return i >= 1 && i <= sys->r ? sys->n[i - 1] : 0;
}
int lth_opsys_block_offset(const lth_opsys *sys, int i) {
  return i >= 1 && i <= sys->r ? sys->off[i - 1] : 0;
}
size_t lth_opsys_nnz(const lth_opsys *sys) {
  size_t nz = 0;
  for (int k = 0; k < sys->r * sys->r; k++) {
    nz += sys->A[k].set ? (size_t)sys->A[k].nnz : 0;
  }
  for (int i = 0; i < sys->r; i++) {
    int mnz = 0;
    const int *cp, *ri;
    if (sys->mass[i] && lth_source_csc_pattern(sys->mass[i], &mnz, &cp, &ri, NULL) == LTH_OK) {
      nz += (size_t)mnz;
    }
  }
  return nz;
}

int lth_opsys_mass_rows(const lth_opsys *sys) { return sys->nmass; }

/* ---- evaluation ---- */

/* Dense sources need a jet of the largest block and their scratch. */
size_t op_work_size(const lth_opsys *sys, int K) {
  if (!sys->has_src) {
    return 0;
  }
  size_t mx = 0, full = 0; /* full: the largest dense block's jet */
  for (int k = 0; k < sys->r * sys->r; k++) {
    const op_block *b = &sys->A[k];
    size_t w = b->src ? lth_source_work_size(b->src, K) : 0;
    mx = w > mx ? w : mx;
    if (b->src && !b->src_sparse) {
      size_t rc = (size_t)b->rows * (size_t)b->cols;
      full = rc > full ? rc : full;
    }
  }
  for (int i = 0; i < sys->r; i++) {
    size_t w = sys->f[i].src ? lth_source_work_size(sys->f[i].src, K) : 0;
    mx = w > mx ? w : mx;
  }
  return mx + full * (size_t)(K + 1);
}

static lth_status callback_error(lth_error *err, double t, const char *what, int i, int j) {
  if (j > 0) {
    return lth_error_set_t(err, LTH_ECALLBACK, t, "the values of %s(%d,%d) failed", what, i, j);
  }
  return lth_error_set_t(err, LTH_ECALLBACK, t, "the values of %s_%d failed", what, i);
}

/* 1 if v[0..count) are all finite: x * 0 is 0 for a finite x and NaN
 * otherwise (four independent sums, so that the additions need not wait on
 * each other). */
static int all_finite(const double *v, size_t count) {
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  size_t p = 0;
  for (; p + 4 <= count; p += 4) {
    for (int u = 0; u < 4; u++) acc[u] += v[p + (size_t)u] * 0.0;
  }
  for (; p < count; p++) acc[0] += v[p] * 0.0;
  return acc[0] + acc[1] + acc[2] + acc[3] == 0.0;
}

static lth_status check_finite(const double *v, size_t count, size_t stride, int K, double t,
                               const char *what, int i, int j, lth_error *err) {
  int ok = 1;
  for (int k = 0; k <= K && ok; k++) ok = all_finite(v + (size_t)k * stride, count);
  for (int k = 0; k <= K && !ok; k++) { /* name the first non-finite entry */
    for (size_t p = 0; p < count; p++) {
      if (!isfinite(v[p + (size_t)k * stride])) {
        return lth_error_set_t(err, LTH_ENOTFINITE, t,
                               "%s(%d,%d): entry %zu has a non-finite Taylor coefficient of "
                               "order %d",
                               what, i, j, p, k);
      }
    }
  }
  return LTH_OK;
}

/* A dense source's coefficients gathered into the full pattern (column by
 * column: entry p is (p mod rows, p div rows), the jet's own layout). */
static lth_status fill_src(const lth_source *src, double t, int K, double *val, size_t stride,
                           double *work, lth_error *err) {
  int rows = lth_source_rows(src), cols = lth_source_cols(src);
  double *buf = work;
  lth_jet J = lth_jet_wrap(buf, rows, cols, rows, (size_t)rows * (size_t)cols, K);
  J.maxorder = K;
  lth_status st = lth_source_fill(src, t, K, &J, work + (size_t)rows * cols * (size_t)(K + 1), err);
  for (int k = 0; st == LTH_OK && k <= K; k++) {
    memcpy(val + (size_t)k * stride, LTH_JET_COEF(&J, k), (size_t)rows * cols * sizeof(double));
  }
  return st;
}

static lth_status eval_block(const op_block *b, int i, int j, double t, int K, op_csc *A,
                             double *work, lth_error *err) {
  A->order = K;
  size_t nz = (size_t)b->nnz;
  if (b->cval && A->fixed) {
    return LTH_OK; /* the same values at every t: filled at the first */
  }
  memset(A->val, 0, nz * (size_t)(K + 1) * sizeof(double));
  if (b->cval) {
    memcpy(A->val, b->cval, nz * sizeof(double));
    A->fixed = 1;
    A->nrm = op_csc_norm1(A);
    return LTH_OK;
  }
  if (b->src && b->src_sparse) {
    return lth_source_fill_csc(b->src, t, K, A->val, A->stride, work, err);
  }
  if (b->src) {
    return fill_src(b->src, t, K, A->val, A->stride, work, err);
  }
  if (b->fn(b->ctx, t, K, A->val, A->stride) != 0) {
    return callback_error(err, t, "A", i, j);
  }
  return check_finite(A->val, nz, A->stride, K, t, "A", i, j, err);
}

lth_status op_eval(const lth_opsys *sys, double t, int K, lth_oppoint *pt, double *work,
                   lth_error *err) {
  int r = sys->r;
  lth_status st = LTH_OK;
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    for (int j = 1; j <= r && st == LTH_OK; j++) {
      const op_block *b = &sys->A[(i - 1) + r * (j - 1)];
      if (b->set) {
        st = eval_block(b, i, j, t, K, &pt->A[(i - 1) + r * (j - 1)], work, err);
      }
    }
  }
  for (int i = 1; i < r && st == LTH_OK; i++) { /* M_i factored, then the blocks' norms */
    if (pt->mass[i - 1]) {
      st = op_mass_eval(pt->mass[i - 1], t, K, err);
    }
    for (int j = 1; j <= r && st == LTH_OK && pt->mass[i - 1]; j++) {
      op_csc *a = &pt->A[(i - 1) + r * (j - 1)];
      if (a->val && a->mass) a->nrm = op_mass_norm1(a);
    }
  }
  lth_jet_set_zero(&pt->f, K);
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    const op_fblock *fb = &sys->f[i - 1];
    lth_jet fi = lth_jet_view(&pt->f, sys->off[i - 1], 0, sys->n[i - 1], 1);
    fi.order = K;
    if (fb->src) {
      st = lth_source_fill(fb->src, t, K, &fi, work, err);
      if (st == LTH_OK && fb->mass) op_mass_solve_jet(pt->mass[i - 1], &fi);
    } else if (fb->fn && fb->fn(fb->ctx, t, K, fi.c, fi.stride) != 0) {
      st = callback_error(err, t, "f", i, 0);
    } else if (fb->fn) {
      st = check_finite(fi.c, (size_t)sys->n[i - 1], fi.stride, K, t, "f", i, 1, err);
    }
  }
  pt->f.order = K;
  return st;
}

const lth_system *op_sys_origin(const lth_opsys *sys) { return sys ? sys->origin : NULL; }
