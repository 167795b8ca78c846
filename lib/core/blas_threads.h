/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: OpenBLAS's thread count is process-wide.  Runs made of many small
 * BLAS calls (integrators, grids parallel over points) are faster with BLAS
 * single-threaded: waking BLAS threads for a 5 x 5 product costs more than
 * the product.  These save the setting, switch to one thread and restore it. */
#ifndef LTH_BLAS_THREADS_H
#define LTH_BLAS_THREADS_H

/* Switch BLAS to one thread if `serial`; returns what to pass to the pop. */
int lth_blas_threads_push(int serial);
void lth_blas_threads_pop(int saved);

/* Stop OpenBLAS's idle thread pool (restarted by OpenBLAS when a call needs
 * it); called at load time, see lib/core/blas_threads.c. */
void lth_blas_lazy_pool(void);

/* The threads lth may use: `requested` if > 0, else OpenMP's maximum
 * (OMP_NUM_THREADS); 1 without OpenMP. */
int lth_threads_available(int requested);
/* Matrices up to this order count as small for the integrators. */
#define LTH_BLAS_SMALL 128

#endif
