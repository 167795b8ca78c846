/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scaled and transposed views alpha * base or alpha * base^T
 * (lth_source_scaled, include/lth/source.h).
 *
 * A view of a sparse base is sparse itself: its pattern is the base's (or
 * the transposed pattern, made once with the permutation perm from its
 * entries to the base's), its values the base's on that pattern times alpha,
 * and its enclosures the base's times alpha (the optimality DAE of an LQR
 * problem, lib/lqr/lqr_system.c, takes A' and B' this way, so that the
 * operator form sees nnz entries, never nx x nx).  A dense base gives a
 * dense view, as before. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csc.h"
#include "lth/source.h"
#include "source_rebind.h"
#include "source_rows.h"

typedef struct {
  const lth_source *base;
  double alpha;
  int transpose;
  lth_source *own; /* base, when the view owns it (made by scaled_rebind) */
  /* a sparse base: the view's pattern (pat: the transpose's; NULL: the base's)
   * and perm[q], the base entry of the view's entry q */
  int nnz;
  lth_csc *pat;
  int *perm;
} scaled_state;

static void scaled_destroy(void *state) {
  scaled_state *ss = state;
  if (ss) {
    lth_source_free(ss->own);
    lth_csc_free(ss->pat);
    free(ss->perm);
    free(ss);
  }
}

static size_t scaled_work_size(const void *state, int order) {
  const scaled_state *ss = state;
  const lth_source *b = ss->base;
  /* a sparse transpose: the base's values and the view's (dense fill) */
  size_t tmp = ss->pat ? 2 * (size_t)ss->nnz : (size_t)lth_source_rows(b) * lth_source_cols(b);
  return lth_source_work_size(b, order) + (ss->transpose ? tmp * (size_t)(order + 1) : 0);
}

static void scaled_domain(const void *state, double *lo, double *hi) {
  lth_source_domain(((const scaled_state *)state)->base, lo, hi);
}

/* The sparse view's values: the base's on its pattern, permuted and scaled. */
static lth_status scaled_fill_csc(const void *state, double t, int order, double *values,
                                  size_t stride, double *work, lth_error *err) {
  const scaled_state *ss = state;
  if (!ss->transpose) {
    lth_status st = lth_source_fill_csc(ss->base, t, order, values, stride, work, err);
    for (int m = 0; m <= order && st == LTH_OK; m++) {
      for (int q = 0; q < ss->nnz; q++) values[(size_t)m * stride + q] *= ss->alpha;
    }
    return st;
  }
  size_t nz = (size_t)ss->nnz;
  lth_status st = lth_source_fill_csc(ss->base, t, order, work, nz ? nz : 1,
                                      work + nz * (size_t)(order + 1), err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (size_t q = 0; q < nz; q++) {
      values[(size_t)m * stride + q] = ss->alpha * work[(size_t)m * nz + (size_t)ss->perm[q]];
    }
  }
  return st;
}

static int scaled_pattern(const void *state, const int **colptr, const int **rowind) {
  const scaled_state *ss = state;
  if (ss->pat) {
    *colptr = ss->pat->colptr;
    *rowind = ss->pat->rowind;
    return ss->nnz;
  }
  int nnz = 0;
  lth_source_csc_pattern(ss->base, &nnz, colptr, rowind, NULL);
  return nnz;
}

static lth_status scaled_fill(const void *state, double t, int order, lth_jet *out, double *work,
                              lth_error *err) {
  const scaled_state *ss = state;
  const lth_source *b = ss->base;
  int rows = lth_source_rows(b), cols = lth_source_cols(b);
  if (!ss->transpose) {
    lth_status st = lth_source_fill(b, t, order, out, work, err);
    lth_jet_scale(out, ss->alpha);
    return st;
  }
  if (ss->pat) { /* sparse: the values on the pattern, scattered (no dense copy of base) */
    size_t nz = (size_t)ss->nnz;
    double *v = work + lth_source_work_size(b, order) + nz * (size_t)(order + 1);
    lth_status st = scaled_fill_csc(state, t, order, v, nz ? nz : 1, work, err);
    if (st != LTH_OK) return st;
    lth_jet_set_zero(out, order);
    for (int m = 0; m <= order; m++) {
      for (int j = 0; j < rows; j++) { /* the view has rows columns */
        for (int q = ss->pat->colptr[j]; q < ss->pat->colptr[j + 1]; q++) {
          LTH_JET_AT(out, m, ss->pat->rowind[q], j) = v[(size_t)m * nz + q];
        }
      }
    }
    return LTH_OK;
  }
  size_t sz = (size_t)rows * (size_t)cols;
  lth_jet tmp = lth_jet_wrap(work, rows, cols, rows > 0 ? rows : 1, sz, order);
  lth_status st = lth_source_fill(b, t, order, &tmp, work + sz * (size_t)(order + 1), err);
  if (st != LTH_OK) {
    return st;
  }
  for (int k = 0; k <= order; k++) {
    for (int j = 0; j < cols; j++) {
      for (int i = 0; i < rows; i++) {
        LTH_JET_AT(out, k, j, i) = ss->alpha * LTH_JET_AT(&tmp, k, i, j);
      }
    }
  }
  return LTH_OK;
}

/* alpha * [lo, hi], rounded outward (alpha = +-1 is exact). */
static lth_interval iv_scale(double alpha, lth_interval x) {
  double a = alpha * x.lo, b = alpha * x.hi;
  lth_interval r = {fmin(a, b), fmax(a, b)};
  if (fabs(alpha) != 1.0) {
    r.lo = nextafter(r.lo, -INFINITY);
    r.hi = nextafter(r.hi, INFINITY);
  }
  return r;
}

static size_t scaled_enclose_work(const void *state, int order) {
  const scaled_state *ss = state;
  return lth_source_enclose_work_size(ss->base, order) + (size_t)ss->nnz * (size_t)(order + 1) + 1;
}

static lth_status scaled_enclose_csc(const void *state, double a, double b, int order,
                                     lth_interval *coef, size_t stride, lth_interval *work,
                                     lth_error *err) {
  const scaled_state *ss = state;
  size_t nz = (size_t)ss->nnz;
  lth_interval *tmp = work + lth_source_enclose_work_size(ss->base, order);
  lth_status st = lth_source_enclose_csc(ss->base, a, b, order, tmp, nz ? nz : 1, work, err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (size_t q = 0; q < nz; q++) {
      size_t from = (size_t)m * nz + (ss->perm ? (size_t)ss->perm[q] : q);
      coef[(size_t)m * stride + q] = iv_scale(ss->alpha, tmp[from]);
    }
  }
  return st;
}

/* A view's data are resolved where its base's are. */
static int scaled_parts(const void *state, const lth_source **parts) {
  parts[0] = ((const scaled_state *)state)->base;
  return 1;
}

#define SCALED_TYPE(exact_, sparse_, enc_)                                                         \
  {                                                                                                \
    .name = "scaled", .fill = scaled_fill, .work_size = scaled_work_size, .domain = scaled_domain, \
    .destroy = scaled_destroy, .exact = exact_, .parts = scaled_parts,                             \
    .csc_pattern = sparse_ ? scaled_pattern : NULL, .fill_csc = sparse_ ? scaled_fill_csc : NULL,  \
    .enclose_csc = enc_ ? scaled_enclose_csc : NULL,                                               \
    .enclose_work_size = enc_ ? scaled_enclose_work : NULL                                         \
  }

/* [exact][sparse + enclosed] */
static lth_source_type scaled_types[2][3] = {
    {SCALED_TYPE(0, 0, 0), SCALED_TYPE(0, 1, 0), SCALED_TYPE(0, 1, 1)},
    {SCALED_TYPE(1, 0, 0), SCALED_TYPE(1, 1, 0), SCALED_TYPE(1, 1, 1)},
};

static lth_status scaled_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err);

/* The transposed pattern of a sparse base and the permutation to its
 * entries (perm[q] = base entry of entry q): the transpose of the matrix
 * whose values are the entry numbers. */
static lth_status transposed_pattern(const lth_source *base, scaled_state *ss, lth_error *err) {
  int nnz = 0;
  const int *cp, *ri;
  lth_status st = lth_source_csc_pattern(base, &nnz, &cp, &ri, err);
  if (st != LTH_OK) return st;
  lth_csc *num = lth_csc_alloc(lth_source_rows(base), lth_source_cols(base), nnz, 0, err);
  if (!num) return err ? err->status : LTH_ENOMEM;
  memcpy(num->colptr, cp, sizeof(int) * ((size_t)lth_source_cols(base) + 1));
  memcpy(num->rowind, ri, sizeof(int) * (size_t)nnz);
  for (int q = 0; q < nnz; q++) num->val[q] = q;
  ss->pat = lth_csc_transpose(num, err);
  lth_csc_free(num);
  ss->perm = ss->pat ? malloc(sizeof(int) * ((size_t)nnz + 1)) : NULL;
  if (!ss->perm) return ss->pat ? lth_error_set(err, LTH_ENOMEM, "out of memory") : LTH_ENOMEM;
  for (int q = 0; q < nnz; q++) ss->perm[q] = (int)ss->pat->val[q];
  ss->nnz = nnz;
  return LTH_OK;
}

/* The view of base; it owns `own` (NULL or base), also on failure. */
static lth_source *scaled_new(const lth_source *base, double alpha, int transpose, lth_source *own,
                              lth_error *err) {
  scaled_state *ss = calloc(1, sizeof *ss);
  if (!ss) {
    lth_source_free(own);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a scaled source");
    return NULL;
  }
  ss->base = base;
  ss->alpha = alpha;
  ss->transpose = transpose != 0;
  ss->own = own;
  int sparse = lth_source_is_sparse(base);
  if (sparse && ss->transpose && transposed_pattern(base, ss, err) != LTH_OK) {
    scaled_destroy(ss);
    return NULL;
  }
  if (sparse && !ss->transpose) {
    const int *cp, *ri;
    lth_source_csc_pattern(base, &ss->nnz, &cp, &ri, NULL);
  }
  /* inherit exactness from the base (sampled data stays "estimated") */
  int kind = !sparse ? 0 : lth_source_can_enclose_csc(base) ? 2 : 1;
  const lth_source_type *type = &scaled_types[lth_source_get_type(base)->exact ? 1 : 0][kind];
  int rows = lth_source_rows(base), cols = lth_source_cols(base);
  lth_source *src = lth_source_new(type, ss, transpose ? cols : rows, transpose ? rows : cols, err);
  lth_source_set_rebind(src, scaled_rebind);
  return src;
}

static lth_status scaled_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err) {
  const scaled_state *ss = state;
  const lth_source *use;
  lth_source *own;
  lth_status st = lth_source_rebind(ss->base, map, ctx, &use, &own, err);
  if (st != LTH_OK || use == ss->base) {
    return st;
  }
  *out = scaled_new(use, ss->alpha, ss->transpose, own, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

lth_source *lth_source_scaled(const lth_source *base, double alpha, int transpose, lth_error *err) {
  return scaled_new(base, alpha, transpose, NULL, err);
}

/* ---- dense enclosures through a view (source_rows.h) ---- */

/* src is a scaled view of a dense base that carries an enclosure. */
static const scaled_state *scaled_dense_enclosed(const lth_source *src) {
  const lth_source_type *ty = lth_source_get_type(src);
  if (ty->fill != scaled_fill || ty->csc_pattern) return NULL;
  const scaled_state *ss = lth_source_state(src);
  return lth_source_get_type(ss->base)->enclose ? ss : NULL;
}

int lth_source_can_enclose_dense(const lth_source *src) {
  return src && (lth_source_get_type(src)->enclose || scaled_dense_enclosed(src));
}

size_t lth_source_enclose_dense_work(const lth_source *src, int order) {
  const scaled_state *ss = lth_source_get_type(src)->enclose ? NULL : scaled_dense_enclosed(src);
  if (!ss) return lth_source_enclose_work_size(src, order);
  size_t sz = (size_t)lth_source_rows(src) * (size_t)lth_source_cols(src);
  return lth_source_enclose_work_size(ss->base, order) +
         (ss->transpose ? sz * (size_t)(order + 1) : 0) + 1;
}

lth_status lth_source_enclose_dense(const lth_source *src, double a, double b, int order,
                                    lth_interval *coef, lth_interval *work, lth_error *err) {
  const scaled_state *ss = lth_source_get_type(src)->enclose ? NULL : scaled_dense_enclosed(src);
  if (!ss) return lth_source_enclose(src, a, b, order, coef, work, err);
  const lth_source *B = ss->base;
  int rows = lth_source_rows(B), cols = lth_source_cols(B);
  size_t sz = (size_t)rows * (size_t)cols;
  lth_interval *tmp = ss->transpose ? work + lth_source_enclose_work_size(B, order) : coef;
  lth_status st = lth_source_enclose(B, a, b, order, tmp, work, err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (int j = 0; j < cols; j++) {
      for (int i = 0; i < rows; i++) {
        size_t from = (size_t)m * sz + (size_t)i + (size_t)j * (size_t)rows;
        size_t to = ss->transpose ? (size_t)m * sz + (size_t)j + (size_t)i * (size_t)cols : from;
        coef[to] = iv_scale(ss->alpha, tmp[from]);
      }
    }
  }
  return st;
}
