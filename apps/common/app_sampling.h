/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled-data error report, shared by every tool that evaluates a data
 * file's samples(...) blocks over a set of times.
 *
 * A decomposition differentiates its inputs up to some order (r - 1 plus the
 * output order); for sampled blocks those derivatives come from local
 * polynomial fits whose error lth_samples_error_estimate estimates.  This
 * module keeps, per sampled block and derivative order d = 0..order (capped
 * by the block's fit degree, or in automatic mode by the highest order the
 * samples give), the largest estimate over the times seen and
 * where, and the largest |d-th derivative| of the block (the data's scale).
 *
 * "Relative to the data" = estimate / max(largest |d-th derivative|,
 * largest |value|) of the block over the times; tools warn when it exceeds
 * a tolerance (lth-decompose: --sample-tol, default 1e-6).
 *
 *   app_sampling smp;
 *   app_sampling_init(&smp, pb, r - 1 + out_order, &err);  // no-op without samples
 *   for each time t: app_sampling_update(&smp, t, &err);    // serial
 *   app_sampling_text(&smp, fp) / app_json_key(js, "sampling"), app_sampling_json(&smp, js);
 *   app_sampling_warn(&smp, tol);
 *   app_sampling_free(&smp);
 */
#ifndef LTH_APP_SAMPLING_H
#define LTH_APP_SAMPLING_H

#include <stddef.h>
#include <stdio.h>

#include "lth/jet.h"
#include "lth/problem.h"
#include "lth/source.h"
#include "lth/status.h"

#include "app_json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_sampled_block {
  const char *label; /* "A(2,1)", "f(1)", "B", ... */
  const lth_source *src;
  int degree;    /* of the local fits (0: chosen automatically) */
  int order;     /* derivative orders 0..order are tracked */
  double *err;   /* largest estimate per order */
  double *t_err; /* where */
  double *deriv; /* largest |derivative| per order */
  lth_jet coef;  /* scratch: Taylor coefficients at the current time */
  double *work;
} app_sampled_block;

typedef struct app_sampling {
  size_t n;  /* sampled blocks (0: nothing to do) */
  int order; /* derivative order the computation uses */
  app_sampled_block *b;
  double *est; /* scratch */
} app_sampling;

/* Set up for the problem's sampled blocks and derivative orders 0..order. */
lth_status app_sampling_init(app_sampling *ss, const lth_problem *pb, int order, lth_error *err);
void app_sampling_free(app_sampling *ss);
/* Init, then update at times t[0..n-1] (no-op without sampled blocks). */
lth_status app_sampling_over(app_sampling *ss, const lth_problem *pb, int order, const double *t,
                             size_t n, lth_error *err);
/* Fold in the estimates at t (allocates; call from one thread).  Errors are
 * prefixed with the block's label. */
lth_status app_sampling_update(app_sampling *ss, double t, lth_error *err);
/* Largest estimate of derivative d of block b relative to the data. */
double app_sampling_relative(const app_sampled_block *b, int d);
/* Report lines for a text report (nothing without sampled blocks). */
void app_sampling_text(const app_sampling *ss, FILE *fp);
/* JSON value: [{"block", "degree", "error": [per order], "t_error": [...],
 * "relative": [...]}, ...] (the caller writes the key). */
void app_sampling_json(const app_sampling *ss, app_json *j);
/* A warning on stderr for every block and order whose relative estimate
 * exceeds tol; returns the number of warnings. */
int app_sampling_warn(const app_sampling *ss, double tol);

#ifdef __cplusplus
}
#endif
#endif
