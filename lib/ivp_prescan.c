/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scan of Pi before an integration (lth_ivp_prescan), run on a second
 * thread while the integration starts (lib/ivp_impl.h).  The scan is 1025
 * evaluations of Pi and its condition (0.4 ms of a 3 ms index-3 solve, 0.6 ms
 * at index 5) and nothing the integration computes depends on it except the
 * guard's chain scale, which only points decomposed directly need (a table's
 * points carry no ||Pi^-1||): the guard waits for the scan at the first such
 * point.  Its verdict is the solve's verdict as before: a refusal by the scan
 * replaces whatever the integration returned, and stops the integration at
 * its next right-hand side. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

#include "blas_threads.h"
#include "ivp_impl.h"
#include "system_scale.h"

/* (No lth_blas_threads_push here: the count is process-wide and the calling
 * thread pushes and pops it meanwhile; Pi's factorisations are small.) */
static void *scan_main(void *vp) {
  lth_ivp_prescan_job *j = vp;
  j->st = lth_ivp_prescan_ex(j->sys, j->t0, j->t1, &j->opts, 0, &j->scale, &j->err);
  atomic_store(&j->done, 1);
  return NULL;
}

lth_status lth_ivp_prescan_start(lth_ivp_prescan_job *j, const lth_system *sys, double t0,
                                 double t1, const lth_ivp_opts *opts, lth_error *err) {
  memset(j, 0, sizeof *j);
  j->sys = sys;
  j->t0 = t0;
  j->t1 = t1;
  if (opts) {
    j->opts = *opts;
  } else {
    lth_ivp_opts_init(&j->opts);
  }
  lth_error_clear(&j->err);
  int concurrent = lth_threads_available(0) > 1 && j->opts.pi_scan >= 0 && t1 > t0;
#ifdef LTH_HAVE_OPENMP
  concurrent = concurrent && !omp_in_parallel(); /* inside a caller's parallel region: serial */
#endif
  if (concurrent) {
    /* forgotten here, before the integration's workspaces can cache it */
    lth_system_scale_store(sys, -1.0);
    if (pthread_create(&j->th, NULL, scan_main, j) == 0) {
      j->running = 1;
      return LTH_OK;
    }
  }
  j->st = lth_ivp_prescan(sys, t0, t1, &j->opts, &j->scale, &j->err);
  atomic_store(&j->done, 1);
  if (j->st != LTH_OK && err) *err = j->err;
  return j->st;
}

int lth_ivp_prescan_failed(const lth_ivp_prescan_job *j) {
  return atomic_load(&((lth_ivp_prescan_job *)j)->done) && j->st != LTH_OK;
}

lth_status lth_ivp_prescan_join(lth_ivp_prescan_job *j, double *scale, lth_error *err) {
  if (j->running) {
    pthread_join(j->th, NULL);
    j->running = 0;
  }
  if (scale) *scale = j->scale;
  if (j->st != LTH_OK && err) *err = j->err;
  return j->st;
}
