/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A source kind of the library's own, for the data-file reader: a sum of
 * constant sparse matrices times scalar functions of t,
 *     M(t) = sum_k phi_k(t) M_k       (lib/source/source_sparse.c),
 * the value of `A(1,1) = -(1 + 0.1*sin(t)) * mm("K.mtx") - mm("D.mtx")`.
 * Its pattern is the union of the M_k's (lth_source_csc_pattern). */
#ifndef LTH_SOURCE_SPARSE_H
#define LTH_SOURCE_SPARSE_H

#include "csc.h"
#include "lth/expr.h"
#include "lth/source.h"

/* n >= 1 terms, each phi[k] (an expression, or NULL for the constant c[k])
 * times mats[k] (rows x cols, with values).  The source takes ownership of
 * the expressions and the matrices, also on failure. */
lth_source *lth_source_sparse_sum(int rows, int cols, int n, lth_expr **phi, const double *c,
                                  lth_csc **mats, lth_error *err);

#endif
