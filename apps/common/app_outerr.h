/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error bars on the decomposition's outputs when the data file has sampled
 * blocks (lth/sampling_error.h, docs/sampled-data.md "Error bars"): at every
 * time a tool decomposes, the estimated error of P, Ahat(I-P), g,
 * Bhat(I-P), q and G caused by the fits of the samples, and the largest over
 * the run.  Exact data: inactive, nothing is written.
 *
 *   app_outerr oe;
 *   app_outerr_init(&oe, run->pb, run->sys, cond_max, &err);   // inactive without samples
 *   for each time t (serially): app_outerr_at(&oe, t, &err);   // oe.cur: this t
 *   app_outerr_json_point(&oe, j) / app_outerr_json_summary(&oe, j) / app_outerr_text(&oe, fp);
 *   app_outerr_free(&oe);
 */
#ifndef LTH_APP_OUTERR_H
#define LTH_APP_OUTERR_H

#include <stdio.h>

#include "lth/sampling_error.h"
#include "lth/problem.h"

#include "app_json.h"

typedef struct app_outerr {
  lth_decomp_error *de;     /* NULL: inactive */
  lth_decomp_errest cur;    /* the last time */
  double max_abs[LTH_NOUT]; /* largest estimate over the times, per output */
  double max_overall, t_overall;
  size_t n;
} app_outerr;

lth_status app_outerr_init(app_outerr *oe, const lth_problem *pb, const lth_system *sys,
                           double cond_max, lth_error *err);
lth_status app_outerr_at(app_outerr *oe, double t, lth_error *err);
/* "error_estimate": {"P": ..., ..., "G": ..., "overall": relative} of the last time. */
void app_outerr_json_point(const app_outerr *oe, app_json *j);
/* "error_estimate": the largest per output, "overall" and "t_overall". */
void app_outerr_json_summary(const app_outerr *oe, app_json *j);
void app_outerr_text(const app_outerr *oe, FILE *fp);
void app_outerr_free(app_outerr *oe);

#endif
