/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: CSV, one row per time (dec.h; docs/format.md section 2). */
#include <stdio.h>

#include "dec.h"

static void names_of(app_csv *c, const char *name, const dec_result *rr) {
  app_csv_matrix_names(c, name, rr->J->rows, rr->J->cols, rr->vector);
}

void dec_csv_header(app_ctx *D, app_run *run, const lth_point *pt) {
  app_csv *c = &run->csv;
  dec_result rr[DEC_NRESULTS];
  dec_point_results(pt, rr);
  app_csv_name(c, "t");
  if (dec_wants(D, DEC_COND_PI)) {
    app_csv_name(c, "cond_pi");
  }
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(D, rr[k].field)) {
      names_of(c, dec_field_name(rr[k].field), &rr[k]);
    }
  }
  if (dec_wants(D, DEC_COND_CHAIN)) {
    app_csv_name(c, "cond_chain");
  }
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(D, dec_norm_field(rr[k].field))) {
      app_csv_name(c, "%s", dec_field_name(dec_norm_field(rr[k].field)));
    }
  }
  for (int d = 1; d <= D->print_order; d++) {
    for (int k = 0; k < DEC_NRESULTS; k++) {
      char name[32];
      snprintf(name, sizeof name, "%s^(%d)", dec_field_name(rr[k].field), d);
      if (dec_wants(D, rr[k].field)) {
        names_of(c, name, &rr[k]);
      }
    }
  }
  if (D->check && dec_wants(D, DEC_CHECK)) {
    for (size_t k = 0; k < DEC_NCHECK; k++) {
      app_csv_name(c, "check_%s", dec_check_name(k));
    }
    app_csv_name(c, "check_rank_P_ok");
    app_csv_name(c, "check_rank_G");
    app_csv_name(c, "check_sv_gap");
  }
  app_csv_end_row(c);
}

void dec_csv_point(app_ctx *D, app_run *run, const lth_point *pt, const lth_verify_report *rep) {
  app_csv *c = &run->csv;
  dec_result rr[DEC_NRESULTS];
  dec_point_results(pt, rr);
  app_csv_number(c, pt->t);
  if (dec_wants(D, DEC_COND_PI)) {
    app_csv_number(c, pt->cond_pi);
  }
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(D, rr[k].field)) {
      app_csv_matrix(c, LTH_JET_COEF(rr[k].J, 0), rr[k].J->rows, rr[k].J->cols, rr[k].J->ld);
    }
  }
  if (dec_wants(D, DEC_COND_CHAIN)) {
    app_csv_number(c, pt->cond_chain);
  }
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(D, dec_norm_field(rr[k].field))) {
      app_csv_number(c, dec_norm1(rr[k].J));
    }
  }
  for (int d = 1; d <= D->print_order; d++) {
    for (int k = 0; k < DEC_NRESULTS; k++) {
      if (dec_wants(D, rr[k].field)) {
        app_csv_matrix(c, dec_derivative(D, rr[k].J, d), rr[k].J->rows, rr[k].J->cols,
                       rr[k].J->rows);
      }
    }
  }
  if (rep && dec_wants(D, DEC_CHECK)) {
    for (size_t k = 0; k < DEC_NCHECK; k++) {
      app_csv_number(c, dec_check_value(rep, k));
    }
    app_csv_int(c, rep->rank_P_ok);
    app_csv_int(c, rep->rank_G);
    app_csv_number(c, rep->sv_gap);
  }
  app_csv_end_row(c);
}
