/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The decomposition on a time grid, parallel over points (lth's own threads,
 * docs/library.md "Threads"), one workspace per thread and no allocation per
 * point.  Results are streamed to a consumer in time order (memory
 * independent of the grid size) or stored.  The parallel run gives bitwise
 * the same numbers as the serial one: each point is computed by the same code
 * on its own workspace.  BLAS's thread count is the caller's (one BLAS thread
 * is fastest for small systems).
 */
#ifndef LTH_GRID_H
#define LTH_GRID_H

#include <stddef.h>

#include "lth/decomp.h"
#include "lth/status.h"
#include "lth/system.h"
#include "lth/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_grid_opts {
  int threads;     /* threads; 0 = lth's default (LTH_NUM_THREADS, else the CPUs), 1 = serial */
  int out_order;   /* order of the result jets (default 0; --check needs 1) */
  double cond_max; /* chain condition above this is an error (0: LTH_DEFAULT_COND_MAX) */
  size_t batch;    /* results computed ahead of the consumer, at most (0: 16 per thread);
                      memory is O(batch), independent of n */
  int verify;      /* 1: run lth_verify_at at every point (forces out_order >= 1) */
  /* progress: called from the calling thread every `batch` delivered points and at the end */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} lth_grid_opts;

void lth_grid_opts_init(lth_grid_opts *opts);

/* Receives point k (times[k]) in increasing k; rep is NULL unless opts->verify.
 * pt->cond_interval is judged against the largest chain norm of the points up
 * to k (and of the system's interval, if it has one); after the last point
 * the largest ||Pi^-1|| of the grid is judged against the largest chain norm
 * of all of them, so a run that succeeds had every point within cond_max.
 * lth_grid_store updates the stored points' cond_interval to the whole grid.
 * Return 0 to continue, nonzero to stop (lth_grid_decompose then returns
 * LTH_ECALLBACK). */
typedef int (*lth_grid_consumer)(void *ctx, size_t k, const lth_point *pt,
                                 const lth_verify_report *rep);

/* Decompose at times[0..n-1] (any order, but a consumer usually wants them
 * increasing).  On a failure at some point, the points before it have been
 * delivered and the error names that point's t. */
lth_status lth_grid_decompose(const lth_system *sys, const double *times, size_t n,
                              const lth_grid_opts *opts, lth_grid_consumer consumer, void *ctx,
                              lth_error *err);

/* All results kept in memory. */
typedef struct lth_grid_result {
  size_t n;
  lth_point **points;        /* points[k] at times[k] */
  lth_verify_report *checks; /* NULL unless opts->verify */
} lth_grid_result;

lth_status lth_grid_store(const lth_system *sys, const double *times, size_t n,
                          const lth_grid_opts *opts, lth_grid_result **out, lth_error *err);
void lth_grid_result_free(lth_grid_result *res);

#ifdef __cplusplus
}
#endif
#endif
