/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Row-masked views of a source (source_rows.h).
 *
 * Only sources that carry an enclosure (or scaled views of dense ones that
 * do: lth_source_enclose_dense) are viewed: the view exists to be
 * enclosed (lth_enclose treats it as a piece of data of its own, whose
 * dropped rows are {0} at every order and so never decide a check).  A
 * sparse base keeps its pattern; entries in dropped rows stay in it with the
 * value 0, as a sparse source's entries may be. */
#include <stdlib.h>
#include <string.h>

#include "source_rows.h"

typedef struct {
  const lth_source *base;
  unsigned char *keep; /* rows */
  /* a sparse base: its pattern */
  int nnz;
  const int *colptr, *rowind;
} rows_state;

static void rows_destroy(void *state) {
  rows_state *rs = state;
  if (rs) {
    free(rs->keep);
    free(rs);
  }
}

static size_t rows_work_size(const void *state, int order) {
  return lth_source_work_size(((const rows_state *)state)->base, order);
}

static void rows_domain(const void *state, double *lo, double *hi) {
  lth_source_domain(((const rows_state *)state)->base, lo, hi);
}

static lth_status rows_fill(const void *state, double t, int order, lth_jet *out, double *work,
                            lth_error *err) {
  const rows_state *rs = state;
  lth_status st = lth_source_fill(rs->base, t, order, out, work, err);
  int rows = lth_source_rows(rs->base), cols = lth_source_cols(rs->base);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (int j = 0; j < cols; j++) {
      for (int i = 0; i < rows; i++) {
        if (!rs->keep[i]) LTH_JET_AT(out, m, i, j) = 0.0;
      }
    }
  }
  return st;
}

static int rows_pattern(const void *state, const int **colptr, const int **rowind) {
  const rows_state *rs = state;
  *colptr = rs->colptr;
  *rowind = rs->rowind;
  return rs->nnz;
}

static lth_status rows_fill_csc(const void *state, double t, int order, double *values,
                                size_t stride, double *work, lth_error *err) {
  const rows_state *rs = state;
  lth_status st = lth_source_fill_csc(rs->base, t, order, values, stride, work, err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (int p = 0; p < rs->nnz; p++) {
      if (!rs->keep[rs->rowind[p]]) values[(size_t)m * stride + (size_t)p] = 0.0;
    }
  }
  return st;
}

static size_t rows_enclose_work(const void *state, int order) {
  const rows_state *rs = state;
  if (lth_source_can_enclose_dense(rs->base)) {
    size_t w = lth_source_enclose_dense_work(rs->base, order);
    size_t c = rs->colptr ? lth_source_enclose_work_size(rs->base, order) : 0;
    return (w > c ? w : c) + 1;
  }
  /* a base enclosed only on its pattern: its enclosures, scattered */
  return lth_source_enclose_work_size(rs->base, order) + (size_t)rs->nnz * (size_t)(order + 1) + 1;
}

static lth_status rows_enclose_csc(const void *state, double a, double b, int order,
                                   lth_interval *coef, size_t stride, lth_interval *work,
                                   lth_error *err) {
  const rows_state *rs = state;
  lth_status st = lth_source_enclose_csc(rs->base, a, b, order, coef, stride, work, err);
  for (int m = 0; m <= order && st == LTH_OK; m++) {
    for (int p = 0; p < rs->nnz; p++) {
      if (!rs->keep[rs->rowind[p]]) coef[(size_t)m * stride + (size_t)p] = (lth_interval){0, 0};
    }
  }
  return st;
}

static lth_status rows_enclose(const void *state, double a, double b, int order, lth_interval *coef,
                               lth_interval *work, lth_error *err) {
  const rows_state *rs = state;
  int rows = lth_source_rows(rs->base), cols = lth_source_cols(rs->base);
  size_t sz = (size_t)rows * (size_t)cols;
  lth_status st = LTH_OK;
  if (lth_source_can_enclose_dense(rs->base)) {
    st = lth_source_enclose_dense(rs->base, a, b, order, coef, work, err);
    for (int m = 0; m <= order && st == LTH_OK; m++) {
      for (size_t e = 0; e < sz; e++) {
        if (!rs->keep[e % (size_t)rows]) coef[(size_t)m * sz + e] = (lth_interval){0, 0};
      }
    }
    return st;
  }
  /* enclosed on the pattern only: scatter, {0} outside it */
  size_t nz = rs->nnz > 0 ? (size_t)rs->nnz : 1;
  lth_interval *tmp = work + lth_source_enclose_work_size(rs->base, order);
  if ((st = rows_enclose_csc(state, a, b, order, tmp, nz, work, err)) != LTH_OK) return st;
  for (int m = 0; m <= order; m++) {
    lth_interval *c = coef + (size_t)m * sz;
    for (size_t e = 0; e < sz; e++) c[e] = (lth_interval){0, 0};
    for (int j = 0; j < cols; j++) {
      for (int p = rs->colptr[j]; p < rs->colptr[j + 1]; p++) {
        c[(size_t)rs->rowind[p] + (size_t)j * (size_t)rows] = tmp[(size_t)m * nz + (size_t)p];
      }
    }
  }
  return LTH_OK;
}

#define ROWS_TYPE(exact_, sparse_)                                                                 \
  {                                                                                                \
    .name = "rows", .fill = rows_fill, .work_size = rows_work_size, .domain = rows_domain,         \
    .destroy = rows_destroy, .exact = exact_, .enclose = rows_enclose,                             \
    .enclose_work_size = rows_enclose_work, .csc_pattern = sparse_ ? rows_pattern : NULL,          \
    .fill_csc = sparse_ ? rows_fill_csc : NULL, .enclose_csc = sparse_ ? rows_enclose_csc : NULL   \
  }

/* [exact][sparse with an enclosure on its pattern] */
static const lth_source_type rows_types[2][2] = {
    {ROWS_TYPE(0, 0), ROWS_TYPE(0, 1)},
    {ROWS_TYPE(1, 0), ROWS_TYPE(1, 1)},
};

lth_source *lth_source_rows_kept(const lth_source *base, const unsigned char *keep,
                                 lth_error *err) {
  int sparse = base && lth_source_can_enclose_csc(base);
  if (!keep || (!sparse && !lth_source_can_enclose_dense(base))) {
    lth_error_set(err, LTH_EINVAL,
                  "lth_source_rows_kept: a source that carries an enclosure, and the rows to keep");
    return NULL;
  }
  rows_state *rs = calloc(1, sizeof *rs);
  int rows = lth_source_rows(base);
  if (rs) rs->keep = malloc((size_t)rows + 1);
  if (!rs || !rs->keep) {
    rows_destroy(rs);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a view of a source");
    return NULL;
  }
  memcpy(rs->keep, keep, (size_t)rows);
  rs->base = base;
  if (sparse) lth_source_csc_pattern(base, &rs->nnz, &rs->colptr, &rs->rowind, NULL);
  const lth_source_type *type = &rows_types[lth_source_is_exact(base) ? 1 : 0][sparse];
  return lth_source_new(type, rs, rows, lth_source_cols(base), err);
}
