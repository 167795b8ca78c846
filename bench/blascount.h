/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Instrumented FLOP count: the benchmark executable defines the BLAS and
 * LAPACKE entry points the library calls (cblas_dgemm, cblas_daxpy,
 * cblas_dscal, LAPACKE_dgetrf_work, LAPACKE_dgetrs_work, LAPACKE_dgecon_work).
 * lth_static is linked into the executable, so its calls bind to these
 * definitions; each one counts and forwards to the real routine found with
 * dlsym(RTLD_NEXT).  Counting is switched on only around single-threaded
 * measurement passes (bc_on), so the timed runs see one untaken branch and an
 * indirect call per BLAS call, nothing else.
 *
 * Counts: dgemm 2 M N K; dgetrs 2 n^2 nrhs; dgetrf 2/3 n^3 (square); daxpy
 * 2 n; dscal n; dgecon is only counted as calls (an O(n^2) estimator with a
 * data-dependent number of solves).  Level 1 is kept apart from level 3.
 *
 * Include this header from exactly one translation unit (it defines external
 * functions) and define _GNU_SOURCE before any system header.
 */
#ifndef LTH_BLASCOUNT_H
#define LTH_BLASCOUNT_H

#include <cblas.h>
#include <dlfcn.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct bc_counts {
  double l3;        /* dgemm + dgetrs + dgetrf flops */
  double l1;        /* daxpy + dscal flops */
  double gemm;      /* dgemm flops alone */
  double gemm_logn; /* sum over dgemm calls of flops * log((M N K)^(1/3)) */
  double gemm_mn;   /* sum over dgemm calls of 2 M N: the kernels' C += alpha AB update,
                       not in the 2 M N K convention (for cross-checks only) */
  long gemm_calls, gemv_calls, getrs_calls, getrf_calls, gecon_calls, l1_calls;
} bc_counts;

static int bc_on;
static bc_counts bc;

/* Resolve the next definition of a symbol (the real library routine). */
static void *bc_next(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "bench_decomp: cannot resolve %s behind the FLOP counter\n", name);
    abort();
  }
  return p;
}

typedef void (*bc_dgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint,
                            blasint, blasint, double, const double *, blasint, const double *,
                            blasint, double, double *, blasint);
typedef void (*bc_dgemv_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, blasint, blasint, double,
                            const double *, blasint, const double *, blasint, double, double *,
                            blasint);
typedef void (*bc_dtrsv_fn)(enum CBLAS_ORDER, enum CBLAS_UPLO, enum CBLAS_TRANSPOSE,
                            enum CBLAS_DIAG, blasint, const double *, blasint, double *, blasint);
typedef void (*bc_daxpy_fn)(blasint, double, const double *, blasint, double *, blasint);
typedef void (*bc_dscal_fn)(blasint, double, double *, blasint);
typedef lapack_int (*bc_getrf_fn)(int, lapack_int, lapack_int, double *, lapack_int, lapack_int *);
typedef lapack_int (*bc_getrs_fn)(int, char, lapack_int, lapack_int, const double *, lapack_int,
                                  const lapack_int *, double *, lapack_int);
typedef lapack_int (*bc_gecon_fn)(int, char, lapack_int, const double *, lapack_int, double,
                                  double *, double *, lapack_int *);

static bc_dgemm_fn bc_real_dgemm;
static bc_dgemv_fn bc_real_dgemv;
static bc_dtrsv_fn bc_real_dtrsv;
static bc_daxpy_fn bc_real_daxpy;
static bc_dscal_fn bc_real_dscal;
static bc_getrf_fn bc_real_getrf;
static bc_getrs_fn bc_real_getrs;
static bc_gecon_fn bc_real_gecon;

/* Called once from main before any thread starts: afterwards the pointers
 * are only read, so the wrappers are safe in the parallel grid. */
static void bc_init(void) {
  /* POSIX guarantees dlsym's void * converts to a function pointer. */
  bc_real_dgemm = (bc_dgemm_fn)bc_next("cblas_dgemm");
  bc_real_dgemv = (bc_dgemv_fn)bc_next("cblas_dgemv");
  bc_real_dtrsv = (bc_dtrsv_fn)bc_next("cblas_dtrsv");
  bc_real_daxpy = (bc_daxpy_fn)bc_next("cblas_daxpy");
  bc_real_dscal = (bc_dscal_fn)bc_next("cblas_dscal");
  bc_real_getrf = (bc_getrf_fn)bc_next("LAPACKE_dgetrf_work");
  bc_real_getrs = (bc_getrs_fn)bc_next("LAPACKE_dgetrs_work");
  bc_real_gecon = (bc_gecon_fn)bc_next("LAPACKE_dgecon_work");
}

static void bc_reset(void) {
  bc_counts zero = {0};
  bc = zero;
}

void cblas_dgemm(OPENBLAS_CONST enum CBLAS_ORDER Order, OPENBLAS_CONST enum CBLAS_TRANSPOSE TransA,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE TransB, OPENBLAS_CONST blasint M,
                 OPENBLAS_CONST blasint N, OPENBLAS_CONST blasint K, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *A, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *B,
                 OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *C,
                 OPENBLAS_CONST blasint ldc) {
  if (bc_on) {
    double f = 2.0 * (double)M * (double)N * (double)K;
    bc.gemm_calls++;
    bc.gemm += f;
    bc.l3 += f;
    if (f > 0) {
      bc.gemm_mn += 2.0 * (double)M * (double)N;
      bc.gemm_logn += f * log((double)M * (double)N * (double)K) / 3.0;
    }
  }
  bc_real_dgemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void cblas_daxpy(OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha, OPENBLAS_CONST double *x,
                 OPENBLAS_CONST blasint incx, double *y, OPENBLAS_CONST blasint incy) {
  if (bc_on) {
    bc.l1 += 2.0 * n;
    bc.l1_calls++;
  }
  bc_real_daxpy(n, alpha, x, incx, y, incy);
}

void cblas_dscal(OPENBLAS_CONST blasint N, OPENBLAS_CONST double alpha, double *X,
                 OPENBLAS_CONST blasint incX) {
  if (bc_on) {
    bc.l1 += (double)N;
    bc.l1_calls++;
  }
  bc_real_dscal(N, alpha, X, incX);
}

lapack_int LAPACKE_dgetrf_work(int matrix_layout, lapack_int m, lapack_int n, double *a,
                               lapack_int lda, lapack_int *ipiv) {
  if (bc_on) {
    double k = (double)(m < n ? m : n);
    bc.l3 += 2.0 * k * k * k / 3.0;
    bc.getrf_calls++;
  }
  return bc_real_getrf(matrix_layout, m, n, a, lda, ipiv);
}

lapack_int LAPACKE_dgetrs_work(int matrix_layout, char trans, lapack_int n, lapack_int nrhs,
                               const double *a, lapack_int lda, const lapack_int *ipiv, double *b,
                               lapack_int ldb) {
  if (bc_on) {
    bc.l3 += 2.0 * (double)n * (double)n * (double)nrhs;
    bc.getrs_calls++;
  }
  return bc_real_getrs(matrix_layout, trans, n, nrhs, a, lda, ipiv, b, ldb);
}

lapack_int LAPACKE_dgecon_work(int matrix_layout, char norm, lapack_int n, const double *a,
                               lapack_int lda, double anorm, double *rcond, double *work,
                               lapack_int *iwork) {
  if (bc_on) {
    bc.gecon_calls++;
  }
  return bc_real_gecon(matrix_layout, norm, n, a, lda, anorm, rcond, work, iwork);
}

/* lib/jet/jet.c computes small jet products column by column with dgemv (OpenBLAS
 * locks around every dgemm): count them as the products they are, 2 M N per
 * column, so the model's 2 M N K per product still adds up. */
void cblas_dgemv(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_TRANSPOSE trans,
                 OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *x,
                 OPENBLAS_CONST blasint incx, OPENBLAS_CONST double beta, double *y,
                 OPENBLAS_CONST blasint incy) {
  if (bc_on) {
    double f = 2.0 * (double)m * (double)n;
    bc.gemv_calls++;
    bc.gemm += f;
    bc.l3 += f;
  }
  bc_real_dgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

/* ... and small LU solves column by column with dtrsv: n^2 flops each, two per
 * column, i.e. dgetrs's 2 n^2 nrhs. */
void cblas_dtrsv(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_UPLO uplo,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE trans, OPENBLAS_CONST enum CBLAS_DIAG diag,
                 OPENBLAS_CONST blasint n, OPENBLAS_CONST double *a, OPENBLAS_CONST blasint lda,
                 double *x, OPENBLAS_CONST blasint incx) {
  if (bc_on) {
    bc.l3 += (double)n * (double)n;
  }
  bc_real_dtrsv(order, uplo, trans, diag, n, a, lda, x, incx);
}

#endif
