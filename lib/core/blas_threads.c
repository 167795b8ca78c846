/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Save/switch/restore OpenBLAS's thread count (lib/core/blas_threads.h), and a
 * lazy OpenBLAS thread pool. */
#include "blas_threads.h"

#include <cblas.h>

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

int lth_threads_available(int requested) {
#ifdef LTH_HAVE_OPENMP
  return requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  return 1;
#endif
}

extern int blas_cpu_number __attribute__((weak));
extern int blas_server_avail __attribute__((weak));

/* openblas_set_num_threads (even to 1) restarts a stopped pool
 * (goto_set_num_threads -> blas_thread_init), whose idle threads then poll
 * with sched_yield: measured as a second core 30 % busy during a collocation
 * run.  While the pool is stopped, the thread count OpenBLAS consults is set
 * directly instead (a negative return tells pop which way was taken). */
int lth_blas_threads_push(int serial) {
  if (!serial) {
    return 0;
  }
  if (&blas_cpu_number && &blas_server_avail && !blas_server_avail) {
    int saved = blas_cpu_number;
    if (saved <= 1) return 0;
    blas_cpu_number = 1;
    return -saved;
  }
  int saved = openblas_get_num_threads();
  if (saved > 1) {
    openblas_set_num_threads(1);
  }
  return saved;
}

void lth_blas_threads_pop(int saved) {
  if (saved < -1) {
    blas_cpu_number = -saved;
  } else if (saved > 1) {
    openblas_set_num_threads(saved);
  }
}

/* OpenBLAS (pthreads build) starts its thread pool when it is loaded, and an
 * idle pool thread polls (sched_yield) for a long while before it sleeps: in a
 * short run -- a tool on a small file, a sweep over thousands of them -- that
 * is a second core kept busy for nothing (measured: 61 sched_yield calls, a
 * few ms of CPU in a 10 ms lth-solve).  lth runs BLAS single-threaded for
 * small problems anyway (lth_blas_threads_push), so the pool is stopped right
 * after OpenBLAS's own initialisation, at load time when no BLAS call can be
 * running; OpenBLAS starts it again by itself at the first call that wants
 * more than one thread (blas_thread_init from exec_blas_async).  The symbols
 * are OpenBLAS-internal, hence weak: other BLAS builds (OpenMP, serial) lack
 * them and nothing happens.  In liblth.so this constructor runs after
 * OpenBLAS's (a library's dependencies are initialised first); a static link
 * may order it before, then the pool is not up yet and it does nothing (the
 * tools link lib/tools/blas_lazy.c last for that case). */
extern void blas_thread_shutdown_(void) __attribute__((weak));

void lth_blas_lazy_pool(void) {
  if (blas_thread_shutdown_ && &blas_server_avail && blas_server_avail) {
    blas_thread_shutdown_();
  }
}

__attribute__((constructor)) static void lazy_pool_at_load(void) { lth_blas_lazy_pool(); }
