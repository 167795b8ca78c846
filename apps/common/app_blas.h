/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The BLAS threads of the tools and benchmarks (docs/library.md, "Threads";
 * docs/performance.md, "Start-up").
 *
 * liblth leaves BLAS as its host set it.  A tool is the host: it runs the
 * many small products of a typical system (5 x 5 to 128 x 128) on one BLAS
 * thread -- waking BLAS threads costs more than such a product, and lth's own
 * threads already share the cores (grid points, table nodes and stretches). */
#ifndef LTH_APP_BLAS_H
#define LTH_APP_BLAS_H

/* Systems up to this size run BLAS on one thread. */
#define APP_BLAS_SMALL 128

/* Call first in main: BLAS on one thread, and OpenBLAS's idle thread pool
 * stopped (OpenBLAS starts it again by itself at the first call that wants
 * threads). */
void app_blas_setup(void);
/* Once the system is known: a system of more than APP_BLAS_SMALL components
 * gets OpenBLAS's own thread count back where lth runs one thread itself
 * (--threads 1); with lth's threads on the cores BLAS keeps one. */
void app_blas_for_size(int s);

#endif
