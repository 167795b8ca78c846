/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: JSON (dec.h; docs/format.md section 2).  The points are
 * streamed: the head before the grid, each point as it arrives, the summary
 * at the end. */
#include "app_table.h"
#include "dec.h"

void dec_json_begin(app_ctx *D, app_run *run) {
  app_json *j = &run->json;
  app_json_begin_object(j);
  app_json_put_int(j, "index", run->r);
  app_json_key(j, "blocks");
  app_json_begin_array(j);
  for (int i = 1; i <= run->r; i++) {
    app_json_int(j, lth_system_block_size(run->sys, i));
  }
  app_json_end_array(j);
  app_json_put_int(j, "p", run->p);
  app_json_put_string(j, "kind", app_problem_kind_name(run->pb));
  app_json_put_int(j, "s", run->s);
  app_json_put_string(j, "path", app_path_name(&D->path));
  if (lth_problem_ninputs(run->pb) > 0) { /* g and q are those of F = B u + f */
    app_json_key(j, "inputs");
    app_json_begin_array(j);
    for (int k = 0; k < lth_problem_ninputs(run->pb); k++) {
      app_json_string(j, lth_problem_input_name(run->pb, k));
    }
    app_json_end_array(j);
    app_json_key(j, "free_inputs"); /* taken as 0 in g and q */
    app_json_begin_array(j);
    for (int k = 0; k < lth_problem_ninputs(run->pb); k++) {
      if (run->free_in && run->free_in[k]) {
        app_json_string(j, lth_problem_input_name(run->pb, k));
      }
    }
    app_json_end_array(j);
  }
  /* the rows of Bhat, q and G: z's positions by name (and for an
   * equation-form file the unknowns in the file's order, as lth-solve) */
  app_json_names(j, "components", &run->names);
  app_json_key(j, "points");
  app_json_begin_array(j);
}

static void json_value(app_json *j, const dec_result *rr, const double *a, int ld) {
  if (rr->vector) {
    app_json_vector(j, a, (size_t)rr->J->rows, 1);
  } else {
    app_json_matrix(j, a, rr->J->rows, rr->J->cols, ld);
  }
}

static void json_derivatives(app_ctx *D, app_json *j, const dec_result rr[DEC_NRESULTS]) {
  app_json_key(j, "derivatives");
  app_json_begin_object(j);
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (!dec_wants(D, rr[k].field)) {
      continue;
    }
    app_json_key(j, dec_field_name(rr[k].field));
    app_json_begin_array(j);
    for (int d = 1; d <= D->print_order; d++) {
      json_value(j, &rr[k], dec_derivative(D, rr[k].J, d), rr[k].J->rows);
    }
    app_json_end_array(j);
  }
  app_json_end_object(j);
}

static void json_check(app_json *j, const lth_verify_report *rep) {
  app_json_key(j, "check");
  app_json_begin_object(j);
  for (size_t k = 0; k < DEC_NCHECK; k++) {
    app_json_key(j, dec_check_name(k));
    app_json_number(j, dec_check_value(rep, k));
  }
  app_json_put_bool(j, "rank_P_ok", rep->rank_P_ok);
  app_json_put_int(j, "rank_G", rep->rank_G);
  app_json_put_number(j, "sv_gap", rep->sv_gap);
  app_json_end_object(j);
}

static void json_scalar(app_ctx *D, app_json *j, dec_field f, double x) {
  if (dec_wants(D, f)) {
    app_json_key(j, dec_field_name(f));
    app_json_number(j, x);
  }
}

void dec_json_point(app_ctx *D, app_run *run, const lth_point *pt, const lth_verify_report *rep) {
  app_json *j = &run->json;
  dec_result rr[DEC_NRESULTS];
  dec_point_results(pt, rr);
  app_json_begin_object(j);
  app_json_put_number(j, "t", pt->t);
  json_scalar(D, j, DEC_COND_PI, pt->cond_pi);
  int matrices = 0;
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(D, rr[k].field)) {
      app_json_key(j, dec_field_name(rr[k].field));
      json_value(j, &rr[k], LTH_JET_COEF(rr[k].J, 0), rr[k].J->ld);
      matrices++;
    }
  }
  json_scalar(D, j, DEC_COND_CHAIN, pt->cond_chain);
  for (int k = 0; k < DEC_NRESULTS; k++) {
    dec_field nf = dec_norm_field(rr[k].field);
    if (dec_wants(D, nf)) {
      json_scalar(D, j, nf, dec_norm1(rr[k].J));
    }
  }
  if (D->print_order > 0 && matrices > 0) {
    json_derivatives(D, j, rr);
  }
  if (rep && dec_wants(D, DEC_CHECK)) {
    json_check(j, rep);
  }
  app_outerr_json_point(&D->oe, j);
  app_json_end_object(j);
}

static void json_peak(app_json *j, const char *key, const char *tkey, const dec_peak *pk) {
  app_json_put_number(j, key, pk->max);
  app_json_put_number(j, tkey, pk->t_max);
}

void dec_json_end(const app_ctx *D, app_run *run) {
  app_json *j = &run->json;
  app_json_end_array(j); /* points */
  if (D->smp.n > 0) {
    app_json_key(j, "sampling");
    app_sampling_json(&D->smp, j);
  }
  app_json_key(j, "summary");
  app_json_begin_object(j);
  app_json_put_int(j, "n_points", (long long)D->done);
  if (D->done > 0) {
    json_peak(j, "cond_pi_max", "t_cond_pi_max", &D->cond_pi);
    json_peak(j, "cond_chain_max", "t_cond_chain_max", &D->cond_chain);
  }
  if (D->check && D->done > 0) {
    json_peak(j, "check_worst", "t_check_worst", &D->chk.field[DEC_NCHECK - 1]);
    app_json_put_int(j, "rank_G_mismatches", (long long)D->chk.rank_G_bad);
  }
  app_outerr_json_summary(&D->oe, j);
  app_json_end_object(j);
  app_json_end_object(j);
}
