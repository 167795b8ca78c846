/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small matrix products (lib/core/small_blas.h): summed here up to
 * LTH_TINY_PRODUCT multiply-adds, by dgemv columns up to LTH_SMALL_PRODUCT,
 * by dgemm beyond. */
#include "small_blas.h"

#include <stddef.h>

/* C = beta C for the product's block (beta = 0: zeros, C not read). */
static void scale_block(int M, int N, double beta, double *c, int ldc) {
  if (beta == 1.0) return;
  for (int j = 0; j < N; j++) {
    double *cj = c + (size_t)j * ldc;
    for (int i = 0; i < M; i++) cj[i] = beta == 0.0 ? 0.0 : beta * cj[i];
  }
}

/* C += alpha op(A) op(B) by dot products: c_ij += alpha sum_l op(A)_il op(B)_lj. */
static void tiny_gemm(int ta, int tb, int M, int N, int Kd, double alpha, const double *a, int lda,
                      const double *b, int ldb, double *c, int ldc) {
  size_t ai = ta ? (size_t)lda : 1, al = ta ? 1 : (size_t)lda;
  size_t bl = tb ? (size_t)ldb : 1, bj = tb ? 1 : (size_t)ldb;
  for (int j = 0; j < N; j++) {
    for (int i = 0; i < M; i++) {
      double acc = 0.0;
      for (int l = 0; l < Kd; l++) acc += a[i * ai + l * al] * b[l * bl + j * bj];
      c[i + (size_t)j * ldc] += alpha * acc;
    }
  }
}

/* On a cache-line boundary: the products of small chains spend half their
 * time in this function's loops, whose speed otherwise changes with where
 * the linker happens to place it (docs/performance.md, "Code placement"). */
#if defined(__GNUC__)
__attribute__((aligned(64)))
#endif
void lth_small_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int M, int N, int Kd,
                    double alpha, const double *a, int lda, const double *b, int ldb, double beta,
                    double *c, int ldc) {
  long work = (long)M * N * Kd;
  if (work > LTH_SMALL_PRODUCT) {
    cblas_dgemm(CblasColMajor, ta, tb, M, N, Kd, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  scale_block(M, N, beta, c, ldc);
  if (work <= LTH_TINY_PRODUCT) {
    tiny_gemm(ta == CblasTrans, tb == CblasTrans, M, N, Kd, alpha, a, lda, b, ldb, c, ldc);
    return;
  }
  /* column j of op(B): column j of B, or row j of B (stride ldb) */
  for (int j = 0; j < N; j++) {
    const double *bj = tb == CblasNoTrans ? b + (size_t)j * ldb : b + j;
    int incb = tb == CblasNoTrans ? 1 : ldb;
    cblas_dgemv(CblasColMajor, ta, ta == CblasNoTrans ? M : Kd, ta == CblasNoTrans ? Kd : M, alpha,
                a, lda, bj, incb, 1.0, c + (size_t)j * ldc, 1);
  }
}
