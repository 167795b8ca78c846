/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Output error bars for sampled data (app_outerr.h). */
#include "app_outerr.h"

#include <string.h>

lth_status app_outerr_init(app_outerr *oe, const lth_problem *pb, const lth_system *sys,
                           double cond_max, lth_error *err) {
  memset(oe, 0, sizeof *oe);
  if (lth_problem_sampled_count(pb) == 0 || lth_system_sampled_blocks(sys) == 0) {
    return LTH_OK;
  }
  oe->de = lth_decomp_error_alloc(sys, err);
  if (!oe->de) {
    return err ? err->status : LTH_ENOMEM;
  }
  if (cond_max > 0) {
    lth_decomp_error_set_cond_max(oe->de, cond_max);
  }
  return LTH_OK;
}

lth_status app_outerr_at(app_outerr *oe, double t, lth_error *err) {
  if (!oe->de) {
    return LTH_OK;
  }
  lth_status st = lth_decomp_error_at(oe->de, t, &oe->cur, err);
  if (st != LTH_OK) {
    return st;
  }
  for (int k = 0; k < LTH_NOUT; k++) {
    if (oe->cur.abs[k] > oe->max_abs[k]) {
      oe->max_abs[k] = oe->cur.abs[k];
    }
  }
  if (oe->n++ == 0 || oe->cur.overall > oe->max_overall) {
    oe->max_overall = oe->cur.overall;
    oe->t_overall = t;
  }
  return LTH_OK;
}

static void put_outputs(app_json *j, const double *abs) {
  for (int k = 0; k < LTH_NOUT; k++) {
    app_json_put_number(j, lth_decomp_output_name(k), abs[k]);
  }
}

void app_outerr_json_point(const app_outerr *oe, app_json *j) {
  if (!oe->de) {
    return;
  }
  app_json_key(j, "error_estimate");
  app_json_begin_object(j);
  put_outputs(j, oe->cur.abs);
  app_json_put_number(j, "overall", oe->cur.overall);
  app_json_end_object(j);
}

void app_outerr_json_summary(const app_outerr *oe, app_json *j) {
  if (!oe->de || oe->n == 0) {
    return;
  }
  app_json_key(j, "error_estimate");
  app_json_begin_object(j);
  put_outputs(j, oe->max_abs);
  app_json_put_number(j, "overall", oe->max_overall);
  app_json_put_number(j, "t_overall", oe->t_overall);
  app_json_end_object(j);
}

void app_outerr_text(const app_outerr *oe, FILE *fp) {
  if (!oe->de || oe->n == 0) {
    return;
  }
  fprintf(fp, "error est.     %.2e relative (largest at t = %.6g), from the sampled data's fits;\n",
          oe->max_overall, oe->t_overall);
  fprintf(fp, "               absolute:");
  for (int k = 0; k < LTH_NOUT; k++) {
    fprintf(fp, " %s %.1e%s", lth_decomp_output_name(k), oe->max_abs[k],
            k + 1 < LTH_NOUT ? "," : "\n");
  }
}

void app_outerr_free(app_outerr *oe) {
  lth_decomp_error_free(oe->de);
  memset(oe, 0, sizeof *oe);
}
