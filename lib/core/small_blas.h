/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: matrix products of the small sizes a decomposition is made of
 * (lib/core/small_blas.c), routed around what a BLAS call costs there. */
#ifndef LTH_SMALL_BLAS_H
#define LTH_SMALL_BLAS_H

#include <cblas.h>

/* Products up to this many multiply-adds go through dgemv, column by column:
 * OpenBLAS 0.3.21 takes a process-wide lock for the packing buffer of every
 * dgemm call (with several threads computing small decompositions the lock,
 * not the arithmetic, dominated: 2 threads 3x slower than 1 on index-6 blocks
 * of size 6); dgemv works from a stack buffer and takes no lock. */
#define LTH_SMALL_PRODUCT 4096
/* Products up to this many multiply-adds are summed in C: for the 2 x 2 to
 * 6 x 6 blocks of typical systems a BLAS call costs more than its arithmetic
 * (cblas_dgemv and its kernel were a third of a small decomposition). */
#define LTH_TINY_PRODUCT 512

/* C = alpha op(A) op(B) + beta C (column-major, M x N, inner dimension Kd);
 * beta = 0 does not read C. */
void lth_small_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int Kd,
                    double alpha, const double *a, int lda, const double *b, int ldb, double beta,
                    double *c, int ldc);

#endif
