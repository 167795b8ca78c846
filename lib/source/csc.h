/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Constant sparse matrices in compressed sparse column form (lib/source/csc.c),
 * the storage of the sparse sources (lib/source/source_sparse.c) and of what
 * the data-file reader reads from Matrix Market files (lib/reader/mtx.c).
 *
 * Column j holds entries colptr[j] .. colptr[j+1]-1: row indices rowind[p]
 * (0-based, strictly increasing within the column) and values val[p].  The
 * indices are int, as SuiteSparse's int32 interfaces (KLU, UMFPACK) take
 * them, so nnz < 2^31.  An entry in the pattern may hold the value 0.
 */
#ifndef LTH_CSC_H
#define LTH_CSC_H

#include <stddef.h>

#include "lth/status.h"

typedef struct lth_csc {
  int rows, cols, nnz;
  int *colptr; /* cols + 1 */
  int *rowind; /* nnz */
  double *val; /* nnz (NULL for a pattern only) */
} lth_csc;

/* rows x cols with room for nnz entries (colptr zeroed; val too unless
 * pattern_only). */
lth_csc *lth_csc_alloc(int rows, int cols, int nnz, int pattern_only, lth_error *err);
void lth_csc_free(lth_csc *m);

/* The rows x cols identity: ones on the main diagonal, min(rows, cols)
 * entries. */
lth_csc *lth_csc_identity(int rows, int cols, lth_error *err);

/* Check a pattern: colptr[0] = 0, nondecreasing, rows in [0, rows) and
 * strictly increasing within each column (LTH_EINVAL naming the entry). */
lth_status lth_csc_check(int rows, int cols, const int *colptr, const int *rowind, lth_error *err);

/* From n triplets (0-based ri[k], ci[k], v[k], in range): sorted by column
 * then row; entries given more than once are summed (in the order given). */
lth_csc *lth_csc_from_triplets(int rows, int cols, size_t n, const int *ri, const int *ci,
                               const double *v, lth_error *err);

/* ||A||_1 (the largest column sum of |values|) of compressed columns: cols
 * columns colptr[0..cols], values val. */
double lth_csc_norm1(const int *colptr, const double *val, int cols);

/* The transpose (pattern and values). */
lth_csc *lth_csc_transpose(const lth_csc *a, lth_error *err);

/* Union of the patterns of a[0..n-1] (all rows x cols) as a pattern-only
 * matrix; pos[k][p] (allocated here, one array per matrix) is where entry p
 * of a[k] sits in it. */
lth_csc *lth_csc_union(const lth_csc *const *a, int n, int ***pos, lth_error *err);

#endif
