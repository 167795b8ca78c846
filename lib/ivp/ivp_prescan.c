/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scan of Pi before an integration (lth_ivp_prescan), run on a second
 * thread while the integration starts (lib/ivp/ivp_impl.h) when it is long.
 * Nothing the integration computes depends on it except the guard's chain
 * scale, which only points decomposed directly need (a table's points carry
 * no ||Pi^-1||): the guard waits for the scan at the first such point.  Its
 * verdict is the solve's verdict as before: a refusal by the scan replaces
 * whatever the integration returned, and stops the integration at its next
 * right-hand side.
 *
 * When it goes beside: a thread costs its start and join, and while the
 * integration decomposes at every right-hand side (direct coefficients) the
 * two threads contend for OpenBLAS's buffer lock (dgecon, dgetrf, in the scan
 * and in the decompositions).  Measured with lth-solve on the shipped
 * examples (scans of 0.06 .. 1.6 ms, direct or table): the concurrent scan
 * made no solve faster and the median 0.3 .. 0.6 ms slower; so a scan goes
 * beside only when, timed on its first points, the whole would take
 * lth_ivp_scan_beside_seconds (2 ms).  With a coefficient table the
 * integration decomposes little after the first panels, and in a loop of
 * solves (a library caller's parameter sweep, bench_ivp) the scan beside
 * was measured to save its whole time: index 3 at rtol 1e-8 1.83 -> 1.50 ms
 * (a 0.36 ms scan), rtol 1e-4 1.39 -> 1.03 ms, index 5 3.38 -> 2.90 ms; the
 * direct path lost 0.16 ms (4.70 -> 4.86 ms).  So with a table the threshold
 * is lth_ivp_scan_beside_table_seconds (0.2 ms). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "core/threads.h"
#include "ivp_coef.h"
#include "ivp_impl.h"
#include "lth/conditioning.h"

#define SCAN_PROBE_POINTS 17
double lth_ivp_scan_beside_seconds = 2e-3;
double lth_ivp_scan_beside_table_seconds = 2e-4;

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Would the scan take long enough to go beside?  Timed on a few points (also
 * loads the data's sources, as the full scan would). */
static int scan_is_long(const lth_system *sys, double t0, double t1, const lth_ivp_opts *o) {
  double limit = lth_coef_starts_table(sys, o, t0, t1) ? lth_ivp_scan_beside_table_seconds
                                                       : lth_ivp_scan_beside_seconds;
  lth_pi_scan sc;
  double start = seconds_now();
  if (lth_pi_scan_run(sys, t0, t1, SCAN_PROBE_POINTS, 0, &sc, NULL) != LTH_OK || sc.evals == 0) {
    return 0;
  }
  double per_eval = (seconds_now() - start) / (double)sc.evals;
  double points = o->pi_scan > 1 ? (double)o->pi_scan : (double)LTH_PI_SCAN_POINTS;
  return per_eval * points >= limit;
}

static void scan_task(void *vp) {
  lth_ivp_prescan_job *j = vp;
  j->st = lth_ivp_prescan(j->sys, j->t0, j->t1, &j->opts, &j->scale, &j->err);
  atomic_store(&j->done, 1);
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
  /* (on an lth thread or in a caller's parallel region: serial) */
  int concurrent =
      lth_threads_available(0) > 1 && !lth_threads_nested() && j->opts.pi_scan >= 0 && t1 > t0;
  concurrent = concurrent && scan_is_long(sys, t0, t1, &j->opts);
  if (concurrent) { /* a pool of one thread; a task no thread took runs at the join */
    j->pool = lth_pool_alloc(1);
    if (j->pool && lth_pool_submit(j->pool, scan_task, j) == 0) {
      return LTH_OK;
    }
    lth_pool_free(j->pool);
    j->pool = NULL;
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
  if (j->pool) {
    lth_pool_free(j->pool); /* waits for the scan */
    j->pool = NULL;
  }
  if (scale) *scale = j->scale;
  if (j->st != LTH_OK && err) *err = j->err;
  return j->st;
}
