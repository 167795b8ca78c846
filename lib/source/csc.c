/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Constant sparse matrices, compressed sparse column (lib/source/csc.h). */
#include "csc.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

lth_csc *lth_csc_alloc(int rows, int cols, int nnz, int pattern_only, lth_error *err) {
  if (rows < 0 || cols < 0 || nnz < 0) {
    lth_error_set(err, LTH_EINVAL, "invalid sparse matrix size %d x %d with %d entries", rows, cols,
                  nnz);
    return NULL;
  }
  lth_csc *m = calloc(1, sizeof *m);
  if (m) {
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    m->colptr = calloc((size_t)cols + 1, sizeof *m->colptr);
    m->rowind = malloc((nnz ? (size_t)nnz : 1) * sizeof *m->rowind);
    m->val = pattern_only ? NULL : calloc(nnz ? (size_t)nnz : 1, sizeof *m->val);
  }
  if (!m || !m->colptr || !m->rowind || (!pattern_only && !m->val)) {
    lth_csc_free(m);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a %d x %d sparse matrix (%d entries)",
                  rows, cols, nnz);
    return NULL;
  }
  return m;
}

lth_csc *lth_csc_identity(int rows, int cols, lth_error *err) {
  int d = rows < cols ? rows : cols;
  lth_csc *m = lth_csc_alloc(rows, cols, d > 0 ? d : 0, 0, err);
  for (int j = 0; m && j < cols; j++) {
    m->colptr[j + 1] = j < d ? j + 1 : d;
    if (j < d) {
      m->rowind[j] = j;
      m->val[j] = 1.0;
    }
  }
  return m;
}

double lth_csc_norm1(const int *colptr, const double *val, int cols) {
  double mx = 0.0;
  for (int j = 0; j < cols; j++) {
    double s = 0.0;
    for (int p = colptr[j]; p < colptr[j + 1]; p++) s += fabs(val[p]);
    mx = s > mx ? s : mx;
  }
  return mx;
}

void lth_csc_free(lth_csc *m) {
  if (m) {
    free(m->colptr);
    free(m->rowind);
    free(m->val);
    free(m);
  }
}

lth_status lth_csc_check(int rows, int cols, const int *colptr, const int *rowind, lth_error *err) {
  if (rows < 0 || cols < 0 || !colptr || (colptr[cols] > 0 && !rowind)) {
    return lth_error_set(err, LTH_EINVAL, "invalid sparse pattern (size %d x %d)", rows, cols);
  }
  if (colptr[0] != 0) {
    return lth_error_set(err, LTH_EINVAL, "sparse pattern: colptr[0] = %d, expected 0", colptr[0]);
  }
  for (int j = 0; j < cols; j++) {
    if (colptr[j + 1] < colptr[j]) {
      return lth_error_set(err, LTH_EINVAL,
                           "sparse pattern: colptr decreases at column %d (%d after %d)", j + 1,
                           colptr[j + 1], colptr[j]);
    }
    for (int p = colptr[j]; p < colptr[j + 1]; p++) {
      if (rowind[p] < 0 || rowind[p] >= rows) {
        return lth_error_set(err, LTH_EINVAL,
                             "sparse pattern: entry %d of column %d has row index %d, outside "
                             "0..%d",
                             p, j + 1, rowind[p], rows - 1);
      }
      if (p > colptr[j] && rowind[p] <= rowind[p - 1]) {
        return lth_error_set(err, LTH_EINVAL,
                             "sparse pattern: row indices of column %d are not strictly "
                             "increasing (%d after %d at entry %d)",
                             j + 1, rowind[p], rowind[p - 1], p);
      }
    }
  }
  return LTH_OK;
}

lth_csc *lth_csc_from_triplets(int rows, int cols, size_t n, const int *ri, const int *ci,
                               const double *v, lth_error *err) {
  if (n > (size_t)INT_MAX) {
    lth_error_set(err, LTH_EDIM, "more than %d entries in a sparse matrix", INT_MAX);
    return NULL;
  }
  /* counting sort by column, then by row within each column (stable: a
   * repeated entry keeps the order given, so the sum is taken in it) */
  lth_csc *t = lth_csc_alloc(cols, rows, (int)n, 0, err); /* by row first: the transpose */
  lth_csc *m = t ? lth_csc_alloc(rows, cols, (int)n, 0, err) : NULL;
  int *next = m ? malloc(((size_t)(rows > cols ? rows : cols) + 1) * sizeof *next) : NULL;
  if (!next) {
    lth_csc_free(t);
    lth_csc_free(m);
    if (m) {
      lth_error_set(err, LTH_ENOMEM, "out of memory sorting a sparse matrix");
    }
    return NULL;
  }
  /* rows of the triplets in order: t holds, per row, (column, value) */
  for (size_t k = 0; k < n; k++) {
    t->colptr[ri[k] + 1]++;
  }
  for (int i = 0; i < rows; i++) {
    t->colptr[i + 1] += t->colptr[i];
  }
  memcpy(next, t->colptr, (size_t)rows * sizeof *next);
  for (size_t k = 0; k < n; k++) {
    int p = next[ri[k]]++;
    t->rowind[p] = ci[k];
    t->val[p] = v[k];
  }
  /* then by column: visiting rows in increasing order leaves each column sorted */
  for (int i = 0; i < rows; i++) {
    for (int p = t->colptr[i]; p < t->colptr[i + 1]; p++) {
      m->colptr[t->rowind[p] + 1]++;
    }
  }
  for (int j = 0; j < cols; j++) {
    m->colptr[j + 1] += m->colptr[j];
  }
  memcpy(next, m->colptr, (size_t)cols * sizeof *next);
  for (int i = 0; i < rows; i++) {
    for (int p = t->colptr[i]; p < t->colptr[i + 1]; p++) {
      int q = next[t->rowind[p]]++;
      m->rowind[q] = i;
      m->val[q] = t->val[p];
    }
  }
  lth_csc_free(t);
  /* sum repeats in place (they are neighbours now) */
  int nz = 0;
  for (int j = 0; j < cols; j++) {
    int start = nz;
    for (int p = m->colptr[j]; p < m->colptr[j + 1]; p++) {
      if (nz > start && m->rowind[nz - 1] == m->rowind[p]) {
        m->val[nz - 1] += m->val[p];
      } else {
        m->rowind[nz] = m->rowind[p];
        m->val[nz++] = m->val[p];
      }
    }
    m->colptr[j] = start;
  }
  m->colptr[cols] = nz;
  m->nnz = nz;
  free(next);
  return m;
}

lth_csc *lth_csc_transpose(const lth_csc *a, lth_error *err) {
  lth_csc *t = lth_csc_alloc(a->cols, a->rows, a->nnz, a->val == NULL, err);
  int *next = t ? malloc(((size_t)a->rows + 1) * sizeof *next) : NULL;
  if (!next) {
    if (t) {
      lth_error_set(err, LTH_ENOMEM, "out of memory transposing a sparse matrix");
    }
    lth_csc_free(t);
    return NULL;
  }
  for (int p = 0; p < a->nnz; p++) {
    t->colptr[a->rowind[p] + 1]++;
  }
  for (int i = 0; i < a->rows; i++) {
    t->colptr[i + 1] += t->colptr[i];
  }
  memcpy(next, t->colptr, (size_t)a->rows * sizeof *next);
  for (int j = 0; j < a->cols; j++) {
    for (int p = a->colptr[j]; p < a->colptr[j + 1]; p++) {
      int q = next[a->rowind[p]]++;
      t->rowind[q] = j;
      if (a->val) {
        t->val[q] = a->val[p];
      }
    }
  }
  free(next);
  return t;
}

/* Union of sorted lists, column by column: a k-way merge with one cursor
 * per matrix (n is the number of terms of a block, a handful). */
lth_csc *lth_csc_union(const lth_csc *const *a, int n, int ***pos, lth_error *err) {
  *pos = NULL;
  int rows = a[0]->rows, cols = a[0]->cols;
  size_t total = 0;
  for (int k = 0; k < n; k++) {
    total += (size_t)a[k]->nnz;
  }
  if (total > (size_t)INT_MAX) {
    lth_error_set(err, LTH_EDIM, "more than %d entries in a sparse block", INT_MAX);
    return NULL;
  }
  lth_csc *u = lth_csc_alloc(rows, cols, (int)total, 1, err);
  int **ps = u ? calloc((size_t)n, sizeof *ps) : NULL;
  int *cur = ps ? malloc((size_t)n * sizeof *cur) : NULL;
  int ok = cur != NULL;
  for (int k = 0; ok && k < n; k++) {
    ok = (ps[k] = malloc((a[k]->nnz ? (size_t)a[k]->nnz : 1) * sizeof **ps)) != NULL;
  }
  if (!ok) {
    for (int k = 0; ps && k < n; k++) {
      free(ps[k]);
    }
    free(ps);
    free(cur);
    if (u) {
      lth_error_set(err, LTH_ENOMEM, "out of memory merging sparse patterns");
    }
    lth_csc_free(u);
    return NULL;
  }
  int nz = 0;
  for (int j = 0; j < cols; j++) {
    u->colptr[j] = nz;
    for (int k = 0; k < n; k++) {
      cur[k] = a[k]->colptr[j];
    }
    for (;;) {
      int row = rows; /* the smallest row index left in column j */
      for (int k = 0; k < n; k++) {
        if (cur[k] < a[k]->colptr[j + 1] && a[k]->rowind[cur[k]] < row) {
          row = a[k]->rowind[cur[k]];
        }
      }
      if (row == rows) {
        break;
      }
      for (int k = 0; k < n; k++) {
        if (cur[k] < a[k]->colptr[j + 1] && a[k]->rowind[cur[k]] == row) {
          ps[k][cur[k]++] = nz;
        }
      }
      u->rowind[nz++] = row;
    }
  }
  u->colptr[cols] = nz;
  u->nnz = nz;
  free(cur);
  *pos = ps;
  return u;
}
