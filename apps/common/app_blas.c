/* SPDX-License-Identifier: GPL-3.0-or-later */
/* BLAS threads of the tools (app_blas.h). */
#include "app_blas.h"

#include <cblas.h>
#include <stdlib.h>

/* OpenBLAS (pthreads build) starts its thread pool when it is loaded, and an
 * idle pool thread polls (sched_yield) for a long while before it sleeps: in a
 * short run -- a tool on a small file, a sweep over thousands of them -- that
 * is a second core kept busy for nothing (measured: 61 sched_yield calls, a
 * few ms of CPU in a 10 ms lth-solve).  openblas_set_num_threads restarts a
 * stopped pool (whose threads then poll again: a second core 30 % busy during
 * a collocation run), so while the pool is stopped the count OpenBLAS
 * consults, blas_cpu_number, is set directly.  These symbols are
 * OpenBLAS-internal, hence weak: with another BLAS build they are absent and
 * the public call is used.  This runs in main, after every library's
 * load-time initialisation, whatever the link order. */
extern int blas_cpu_number __attribute__((weak));
extern int blas_server_avail __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

static int blas_default = 1; /* OpenBLAS's own thread count, before app_blas_setup */

static int internals(void) {
  return blas_thread_shutdown_ && &blas_server_avail && &blas_cpu_number;
}

void app_blas_setup(void) {
  if (internals()) {
    if (blas_server_avail) {
      blas_thread_shutdown_();
    }
    blas_default = blas_cpu_number;
    blas_cpu_number = 1;
  } else {
    blas_default = openblas_get_num_threads();
    openblas_set_num_threads(1);
  }
}

/* lth runs one thread of its own: --threads 1 (the driver passes it on as
 * LTH_NUM_THREADS) or LTH_NUM_THREADS=1. */
static int lth_one_thread(void) {
  const char *v = getenv("LTH_NUM_THREADS");
  return v && strtol(v, NULL, 10) == 1;
}

void app_blas_for_size(int s) {
  /* Where lth runs threads of its own (grid points, table nodes: all cores
   * by default) they already use the cores, and BLAS threads beside them
   * mostly poll: lth-decompose --grid 200 --threads 2 --fields cond_pi on the
   * chain of scripts/gen-chain.py 300 3 (s = 603) made 528637 sched_yield
   * calls and took 8.3 s of CPU, with one BLAS thread 0 and 6.1 s, in the
   * same wall time (docs/performance.md, "BLAS threads at size"). */
  if (s <= APP_BLAS_SMALL || blas_default <= 1 || !lth_one_thread()) {
    return;
  }
  if (internals()) {
    blas_cpu_number = blas_default;
  } else {
    openblas_set_num_threads(blas_default);
  }
}
