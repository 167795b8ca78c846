/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sparse jet sources (include/lth/source.h): a fixed CSC pattern with values
 * per Taylor order, from a user callback (lth_source_csc_callback) or as a
 * sum of constant sparse matrices times scalar functions of t
 * (lth_source_sparse_sum, lib/source/source_sparse.h), and the accessors of
 * the pattern and of the values on it.
 *
 * Jets of phi(t) M with M constant: the Taylor coefficients of the product
 * of a scalar function and a constant matrix are (phi M)_m = phi_m M, with
 * phi_m the scalar jet of phi (lth_expr_taylor), so each coefficient is exact
 * to the rounding of one product and the sum over the terms.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "source_sparse.h"

/* ---- the interface ---- */

int lth_source_is_sparse(const lth_source *src) {
  return src && lth_source_get_type(src)->csc_pattern && lth_source_get_type(src)->fill_csc;
}

lth_status lth_source_csc_pattern(const lth_source *src, int *nnz, const int **colptr,
                                  const int **rowind, lth_error *err) {
  if (!lth_source_is_sparse(src)) {
    return lth_error_set(err, LTH_EINVAL, "%s source has no sparse pattern",
                         src ? lth_source_get_type(src)->name : "a NULL");
  }
  *nnz = lth_source_get_type(src)->csc_pattern(lth_source_state(src), colptr, rowind);
  return LTH_OK;
}

/* Column of entry p of a pattern (for messages). */
static int column_of(const int *colptr, int cols, int p) {
  int j = 0;
  while (j < cols - 1 && colptr[j + 1] <= p) {
    j++;
  }
  return j;
}

lth_status lth_source_fill_csc(const lth_source *src, double t, int order, double *values,
                               size_t stride, double *work, lth_error *err) {
  int nnz;
  const int *colptr, *rowind;
  lth_status st = lth_source_csc_pattern(src, &nnz, &colptr, &rowind, err);
  if (st != LTH_OK) {
    return st;
  }
  if (order < 0 || stride < (size_t)nnz) {
    return lth_error_set(err, LTH_EDIM,
                         "sparse values of %d entries filled with stride %zu "
                         "(order %d)",
                         nnz, stride, order);
  }
  double lo, hi;
  lth_source_domain(src, &lo, &hi);
  if (!(t >= lo && t <= hi)) {
    return lth_error_set_t(err, LTH_ERANGE, t, "%s data defined on [%g, %g] only",
                           lth_source_get_type(src)->name, lo, hi);
  }
  const lth_source_type *ty = lth_source_get_type(src);
  if ((st = ty->fill_csc(lth_source_state(src), t, order, values, stride, work, err)) != LTH_OK) {
    return st;
  }
  for (int m = 0; m <= order; m++) {
    for (int p = 0; p < nnz; p++) {
      if (!isfinite(values[(size_t)m * stride + (size_t)p])) {
        int j = column_of(colptr, lth_source_cols(src), p);
        return lth_error_set_t(err, LTH_ENOTFINITE, t,
                               "%s entry (%d,%d) has a non-finite Taylor coefficient of order %d",
                               ty->name, rowind[p] + 1, j + 1, m);
      }
    }
  }
  return LTH_OK;
}

int lth_source_can_enclose_csc(const lth_source *src) {
  return lth_source_is_sparse(src) && lth_source_get_type(src)->enclose_csc != NULL;
}

lth_status lth_source_enclose_csc(const lth_source *src, double a, double b, int order,
                                  lth_interval *coef, size_t stride, lth_interval *work,
                                  lth_error *err) {
  if (!lth_source_can_enclose_csc(src) || !coef || order < 0 || !(a <= b)) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_source_enclose_csc: no enclosure on a pattern for %s data, or bad "
                         "arguments",
                         src ? lth_source_get_type(src)->name : "NULL");
  }
  const lth_source_type *ty = lth_source_get_type(src);
  const int *colptr, *rowind;
  int nnz = ty->csc_pattern(lth_source_state(src), &colptr, &rowind);
  if (stride < (size_t)nnz) {
    return lth_error_set(err, LTH_EDIM, "enclosures of %d entries with stride %zu", nnz, stride);
  }
  return ty->enclose_csc(lth_source_state(src), a, b, order, coef, stride, work, err);
}

/* values[m*stride + p] = 0 for the nnz entries of orders 0..order. */
static void zero_values(double *values, int nnz, size_t stride, int order) {
  for (int m = 0; m <= order; m++) {
    memset(values + (size_t)m * stride, 0, (size_t)nnz * sizeof *values);
  }
}

/* ---- values from a user callback ---- */

typedef struct {
  lth_csc *pat; /* pattern only */
  lth_source_csc_fn fn;
  void *ctx;
} cb_state;

static void cb_destroy(void *state) {
  cb_state *cs = state;
  if (cs) {
    lth_csc_free(cs->pat);
    free(cs);
  }
}

static int cb_pattern(const void *state, const int **colptr, const int **rowind) {
  const cb_state *cs = state;
  *colptr = cs->pat->colptr;
  *rowind = cs->pat->rowind;
  return cs->pat->nnz;
}

static size_t cb_work(const void *state, int order) {
  return (size_t)((const cb_state *)state)->pat->nnz * ((size_t)order + 1);
}

static lth_status cb_fill_csc(const void *state, double t, int order, double *values, size_t stride,
                              double *work, lth_error *err) {
  (void)work;
  const cb_state *cs = state;
  zero_values(values, cs->pat->nnz, stride, order);
  int rc = cs->fn(cs->ctx, t, order, values, stride);
  if (rc != 0) {
    return lth_error_set_t(err, LTH_ECALLBACK, t, "sparse user callback returned %d", rc);
  }
  return LTH_OK;
}

/* The dense view: the values on the pattern (in work), scattered. */
static lth_status cb_fill(const void *state, double t, int order, lth_jet *out, double *work,
                          lth_error *err) {
  const cb_state *cs = state;
  const lth_csc *pat = cs->pat;
  size_t nnz = (size_t)pat->nnz;
  lth_status st = cb_fill_csc(state, t, order, work, nnz, NULL, err);
  if (st != LTH_OK) {
    return st;
  }
  lth_jet_set_zero(out, order);
  for (int m = 0; m <= order; m++) {
    for (int j = 0; j < pat->cols; j++) {
      for (int p = pat->colptr[j]; p < pat->colptr[j + 1]; p++) {
        LTH_JET_AT(out, m, pat->rowind[p], j) = work[(size_t)m * nnz + (size_t)p];
      }
    }
  }
  return LTH_OK;
}

static const lth_source_type cb_type = {.name = "sparse callback",
                                        .fill = cb_fill,
                                        .work_size = cb_work,
                                        .destroy = cb_destroy,
                                        .exact = 1,
                                        .csc_pattern = cb_pattern,
                                        .fill_csc = cb_fill_csc};

lth_source *lth_source_csc_callback(int rows, int cols, const int *colptr, const int *rowind,
                                    lth_source_csc_fn fn, void *ctx, lth_error *err) {
  if (!fn) {
    lth_error_set(err, LTH_EINVAL, "sparse callback source without a function");
    return NULL;
  }
  if (rows < 0 || cols < 0) {
    lth_error_set(err, LTH_EINVAL, "invalid sparse source size %d x %d", rows, cols);
    return NULL;
  }
  if (lth_csc_check(rows, cols, colptr, rowind, err) != LTH_OK) {
    return NULL;
  }
  cb_state *cs = malloc(sizeof *cs);
  lth_csc *pat = cs ? lth_csc_alloc(rows, cols, colptr[cols], 1, err) : NULL;
  if (!pat) {
    if (!cs) {
      lth_error_set(err, LTH_ENOMEM, "out of memory allocating a sparse callback source");
    }
    free(cs);
    return NULL;
  }
  memcpy(pat->colptr, colptr, ((size_t)cols + 1) * sizeof *colptr);
  memcpy(pat->rowind, rowind, (size_t)pat->nnz * sizeof *rowind);
  *cs = (cb_state){.pat = pat, .fn = fn, .ctx = ctx};
  return lth_source_new(&cb_type, cs, rows, cols, err);
}

/* ---- sums of phi_k(t) M_k ---- */

lth_source *lth_source_identity(int rows, int cols, lth_error *err) {
  if (rows < 0 || cols < 0) {
    lth_error_set(err, LTH_EINVAL, "invalid identity size %d x %d", rows, cols);
    return NULL;
  }
  lth_expr *phi = NULL;
  double one = 1.0;
  lth_csc *eye = lth_csc_identity(rows, cols, err);
  return eye ? lth_source_sparse_sum(rows, cols, 1, &phi, &one, &eye, err) : NULL;
}

typedef struct {
  lth_expr *phi; /* NULL: the constant c */
  double c;
  lth_csc *m;
  int *pos; /* where entry p of m sits in the union pattern */
} sum_term;

typedef struct {
  int n;
  sum_term *t;
  lth_csc *pat; /* the union of the terms' patterns (pattern only) */
} sum_state;

static void sum_destroy(void *state) {
  sum_state *ss = state;
  if (!ss) {
    return;
  }
  for (int k = 0; k < ss->n; k++) {
    lth_expr_free(ss->t[k].phi);
    lth_csc_free(ss->t[k].m);
    free(ss->t[k].pos);
  }
  free(ss->t);
  lth_csc_free(ss->pat);
  free(ss);
}

static int sum_pattern(const void *state, const int **colptr, const int **rowind) {
  const sum_state *ss = state;
  *colptr = ss->pat->colptr;
  *rowind = ss->pat->rowind;
  return ss->pat->nnz;
}

static size_t sum_work(const void *state, int order) {
  const sum_state *ss = state;
  size_t mx = 0;
  for (int k = 0; k < ss->n; k++) {
    size_t w = ss->t[k].phi ? lth_expr_work_size(ss->t[k].phi, order) : 0;
    mx = w > mx ? w : mx;
  }
  return mx + (size_t)order + 1;
}

/* phi_k's Taylor coefficients 0..order into y (scratch after it). */
static lth_status term_jet(const sum_term *tm, double t, int order, double *y, double *scratch,
                           lth_error *err) {
  if (tm->phi) {
    return lth_expr_taylor(tm->phi, t, order, y, scratch, err);
  }
  for (int m = 0; m <= order; m++) {
    y[m] = m == 0 ? tm->c : 0.0;
  }
  return LTH_OK;
}

/* (sum_k phi_k M_k)_m = sum_k phi_{k,m} M_k on the union pattern. */
static lth_status sum_fill_csc(const void *state, double t, int order, double *values,
                               size_t stride, double *work, lth_error *err) {
  const sum_state *ss = state;
  double *y = work, *scratch = work + order + 1;
  zero_values(values, ss->pat->nnz, stride, order);
  for (int k = 0; k < ss->n; k++) {
    const sum_term *tm = &ss->t[k];
    lth_status st = term_jet(tm, t, order, y, scratch, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      if (y[m] == 0.0) {
        continue;
      }
      double *v = values + (size_t)m * stride;
      for (int p = 0; p < tm->m->nnz; p++) {
        v[tm->pos[p]] += y[m] * tm->m->val[p];
      }
    }
  }
  return LTH_OK;
}

/* The dense view: the same sums, term by term in the same order. */
static lth_status sum_fill(const void *state, double t, int order, lth_jet *out, double *work,
                           lth_error *err) {
  const sum_state *ss = state;
  double *y = work, *scratch = work + order + 1;
  lth_jet_set_zero(out, order);
  for (int k = 0; k < ss->n; k++) {
    const sum_term *tm = &ss->t[k];
    const lth_csc *M = tm->m;
    lth_status st = term_jet(tm, t, order, y, scratch, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      if (y[m] == 0.0) {
        continue;
      }
      for (int j = 0; j < M->cols; j++) {
        for (int p = M->colptr[j]; p < M->colptr[j + 1]; p++) {
          LTH_JET_AT(out, m, M->rowind[p], j) += y[m] * M->val[p];
        }
      }
    }
  }
  return LTH_OK;
}

/* ---- enclosures: Phi_{k,m}([a, b]) M_k summed in interval arithmetic ----
 * Outward rounding as lib/jet/expr_enclose.c does it: a correctly rounded
 * sum or product moved out by 2^-52 relative plus the smallest subnormal
 * encloses the exact value; exact zeros stay exact. */

static double iv_dn(double x) { return x - (fabs(x) * 0x1p-52 + DBL_TRUE_MIN); }
static double iv_up(double x) { return x + (fabs(x) * 0x1p-52 + DBL_TRUE_MIN); }

/* c y, exact when fma shows no rounding error (c = 1 times a constant, the
 * identity's ones): an exact product stays a point. */
static int iv_exact(double c, double y, double p) { return isfinite(p) && fma(c, y, -p) == 0.0; }

/* acc + c y, y an interval, c a double. */
static lth_interval iv_axpy(lth_interval acc, double c, lth_interval y) {
  if (c == 0.0 || (y.lo == 0.0 && y.hi == 0.0)) {
    return acc;
  }
  double p1 = c * y.lo, p2 = c * y.hi;
  lth_interval p = {fmin(p1, p2), fmax(p1, p2)};
  if (!(iv_exact(c, y.lo, p1) && iv_exact(c, y.hi, p2))) {
    p = (lth_interval){iv_dn(p.lo), iv_up(p.hi)};
  }
  if (isnan(p.lo) || isnan(p.hi)) { /* 0 * inf cannot happen (c, y.lo != 0): inf - inf */
    p = (lth_interval){-INFINITY, INFINITY};
  }
  lth_interval r = {acc.lo == 0.0 ? p.lo : iv_dn(acc.lo + p.lo),
                    acc.hi == 0.0 ? p.hi : iv_up(acc.hi + p.hi)};
  r.lo = isnan(r.lo) ? -INFINITY : r.lo;
  r.hi = isnan(r.hi) ? INFINITY : r.hi;
  return r;
}

static size_t sum_enclose_work(const void *state, int order) {
  const sum_state *ss = state;
  size_t mx = 0;
  for (int k = 0; k < ss->n; k++) {
    size_t w = ss->t[k].phi ? lth_expr_enclose_work_size(ss->t[k].phi, order) : 0;
    mx = w > mx ? w : mx;
  }
  return mx + (size_t)order + 1;
}

/* The enclosed Taylor series y[0..order] of term tm's scalar on [a, b]. */
static lth_status term_enclose(const sum_term *tm, double a, double b, int order, lth_interval *y,
                               lth_interval *scratch, lth_error *err) {
  if (tm->phi) {
    return lth_expr_enclose(tm->phi, a, b, order, y, scratch, err);
  }
  for (int m = 0; m <= order; m++) {
    y[m] = (lth_interval){m == 0 ? tm->c : 0.0, m == 0 ? tm->c : 0.0};
  }
  return LTH_OK;
}

static lth_status sum_enclose(const void *state, double a, double b, int order, lth_interval *coef,
                              lth_interval *work, lth_error *err) {
  const sum_state *ss = state;
  int rows = ss->pat->rows;
  size_t sz = (size_t)rows * (size_t)ss->pat->cols;
  lth_interval *y = work, *scratch = work + order + 1;
  for (size_t k = 0; k < sz * (size_t)(order + 1); k++) {
    coef[k] = (lth_interval){0.0, 0.0};
  }
  for (int k = 0; k < ss->n; k++) {
    const sum_term *tm = &ss->t[k];
    const lth_csc *M = tm->m;
    lth_status st = term_enclose(tm, a, b, order, y, scratch, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      for (int j = 0; j < M->cols; j++) {
        for (int p = M->colptr[j]; p < M->colptr[j + 1]; p++) {
          lth_interval *e = &coef[(size_t)m * sz + (size_t)M->rowind[p] + (size_t)j * rows];
          *e = iv_axpy(*e, M->val[p], y[m]);
        }
      }
    }
  }
  return LTH_OK;
}

/* The same sums on the union pattern: term k's entry p at pos[p]. */
static lth_status sum_enclose_csc(const void *state, double a, double b, int order,
                                  lth_interval *coef, size_t stride, lth_interval *work,
                                  lth_error *err) {
  const sum_state *ss = state;
  lth_interval *y = work, *scratch = work + order + 1;
  for (int m = 0; m <= order; m++) {
    for (int p = 0; p < ss->pat->nnz; p++) {
      coef[(size_t)m * stride + (size_t)p] = (lth_interval){0.0, 0.0};
    }
  }
  for (int k = 0; k < ss->n; k++) {
    const sum_term *tm = &ss->t[k];
    lth_status st = term_enclose(tm, a, b, order, y, scratch, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      lth_interval *cm = coef + (size_t)m * stride;
      for (int p = 0; p < tm->m->nnz; p++) {
        cm[tm->pos[p]] = iv_axpy(cm[tm->pos[p]], tm->m->val[p], y[m]);
      }
    }
  }
  return LTH_OK;
}

static const lth_source_type sum_type = {.name = "sparse matrix",
                                         .fill = sum_fill,
                                         .work_size = sum_work,
                                         .destroy = sum_destroy,
                                         .exact = 1,
                                         .enclose = sum_enclose,
                                         .enclose_work_size = sum_enclose_work,
                                         .enclose_csc = sum_enclose_csc,
                                         .csc_pattern = sum_pattern,
                                         .fill_csc = sum_fill_csc};

lth_source *lth_source_sparse_sum(int rows, int cols, int n, lth_expr **phi, const double *c,
                                  lth_csc **mats, lth_error *err) {
  sum_state *ss = calloc(1, sizeof *ss);
  lth_status st = LTH_OK;
  if (!ss || n < 1 || !(ss->t = calloc((size_t)n, sizeof *ss->t))) {
    st = n < 1 ? lth_error_set(err, LTH_EINVAL, "a sparse sum needs at least one term")
               : lth_error_set(err, LTH_ENOMEM, "out of memory allocating a sparse source");
  }
  for (int k = 0; k < n; k++) { /* ownership first: everything is freed with ss */
    if (ss && ss->t) {
      ss->t[k] = (sum_term){.phi = phi[k], .c = c[k], .m = mats[k]};
      ss->n = k + 1;
    } else {
      lth_expr_free(phi[k]);
      lth_csc_free(mats[k]);
    }
  }
  for (int k = 0; k < n && st == LTH_OK; k++) {
    if (mats[k]->rows != rows || mats[k]->cols != cols || !mats[k]->val) {
      st = lth_error_set(err, LTH_EDIM, "sparse term %d is %d x %d, the block %d x %d", k + 1,
                         mats[k]->rows, mats[k]->cols, rows, cols);
    }
  }
  int **pos = NULL;
  if (st == LTH_OK) {
    ss->pat = lth_csc_union((const lth_csc *const *)mats, n, &pos, err);
    st = ss->pat ? LTH_OK : LTH_ENOMEM;
  }
  if (st != LTH_OK) {
    sum_destroy(ss);
    return NULL;
  }
  for (int k = 0; k < n; k++) {
    ss->t[k].pos = pos[k];
  }
  free(pos);
  return lth_source_new(&sum_type, ss, rows, cols, err);
}
