/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ss: JSON (ss.h; docs/format.md section 2.7).  Every matrix is written
 * row-major as the other tools write them; a set of maps (B, D, Dz, the
 * change of state) is a list over the derivative order. */
#include <stdio.h>

#include "app_table.h"
#include "lth/problem.h"
#include "ss.h"

/* The names of the inputs (outputs): strings in the file's order. */
static void json_names(app_json *j, const char *key, const app_run *run, int outputs) {
  int n = outputs ? run->ny : lth_problem_ninputs(run->pb);
  app_json_key(j, key);
  app_json_begin_array(j);
  for (int k = 0; k < n; k++) {
    app_json_string(j, outputs ? run->ynames[k] : lth_problem_input_name(run->pb, k));
  }
  app_json_end_array(j);
}

/* What a member holds per time. */
typedef enum { SS_A, SS_C, SS_Q, SS_Z, SS_B, SS_D, SS_DZ, SS_K, SS_G, SS_YF, SS_ZF } ss_item;

/* One time's value of an item: a matrix, a list of maps, or a vector. */
static void json_item(app_json *j, const lth_ss_point *pt, ss_item what) {
  int p = pt->p, m = pt->m, s = pt->s, nu = pt->nu, ny = pt->ny;
  const double *maps = NULL;
  int rows = 0, count = 0;
  switch (what) {
  case SS_A:
    app_json_matrix(j, pt->A, p, p, p);
    return;
  case SS_C:
    app_json_matrix(j, pt->C, ny, p, ny);
    return;
  case SS_Q:
    app_json_matrix(j, pt->Q, m, p, m);
    return;
  case SS_Z:
    app_json_matrix(j, pt->Z, s, p, s);
    return;
  case SS_G:
    app_json_vector(j, pt->g, (size_t)p, 1);
    return;
  case SS_YF:
    app_json_vector(j, pt->yf, (size_t)ny, 1);
    return;
  case SS_ZF:
    app_json_vector(j, pt->zf, (size_t)s, 1);
    return;
  case SS_B:
    maps = pt->B, rows = p, count = pt->nb;
    break;
  case SS_D:
    maps = pt->D, rows = ny, count = pt->nd;
    break;
  case SS_DZ:
    maps = pt->Dz, rows = s, count = pt->nd;
    break;
  case SS_K:
    maps = pt->K, rows = m, count = pt->nk;
    break;
  }
  app_json_begin_array(j);
  for (int k = 0; k < count; k++) {
    app_json_matrix(j, maps ? ss_map(maps, rows, nu, k) : NULL, rows, nu, rows);
  }
  app_json_end_array(j);
}

/* key: [the item at every time]. */
static void json_per_time(app_json *j, const app_ctx *C, const char *key, ss_item what) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (size_t k = 0; k < C->n; k++) {
    json_item(j, C->pt[k], what);
  }
  app_json_end_array(j);
}

/* key: [a number per time]: the basis checks. */
static void json_check(app_json *j, const app_ctx *C, const char *key, int which) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (size_t k = 0; k < C->n; k++) {
    const lth_ss_point *pt = C->pt[k];
    app_json_number(j, which == 0 ? pt->orth_err : which == 1 ? pt->range_err : pt->amplification);
  }
  app_json_end_array(j);
}

void ss_write_json(const app_ctx *C, app_run *run) {
  app_json *j = &run->json;
  const lth_ss_point *sh = C->shape;
  app_json_begin_object(j);
  app_json_put_vector(j, "times", run->tm.t, run->tm.n);
  app_json_put_int(j, "p", sh->p);
  json_names(j, "inputs", run, 0);
  json_names(j, "outputs", run, 1);
  json_per_time(j, C, "A", SS_A);
  json_per_time(j, C, "B", SS_B);
  json_per_time(j, C, "C", SS_C);
  json_per_time(j, C, "D", SS_D);
  /* extensions */
  json_per_time(j, C, "g", SS_G);
  json_per_time(j, C, "y_f", SS_YF);
  app_json_put_bool(j, "raw", C->raw);
  app_json_put_int(j, "nb", sh->nb);
  app_json_put_int(j, "nd", sh->nd);
  app_json_put_int(j, "derivative_feedthrough", C->feed_y);
  app_json_put_int(j, "derivative_feedthrough_z", C->feed_z);
  app_json_put_int(j, "derivative_feedthrough_bound", sh->nd - 1);
  json_per_time(j, C, "Z", SS_Z);
  json_per_time(j, C, "Dz", SS_DZ);
  json_per_time(j, C, "z_f", SS_ZF);
  json_per_time(j, C, "Q", SS_Q);
  json_per_time(j, C, "state_change", SS_K);
  app_json_names(j, "components", &run->names);
  app_json_put_int(j, "index", run->r);
  app_json_put_int(j, "s", sh->s);
  app_json_put_int(j, "m", sh->m);
  app_json_put_int(j, "nu", sh->nu);
  app_json_put_int(j, "ny", sh->ny);
  app_json_put_number(j, "basis_start", C->t_start);
  app_json_put_number(j, "rtol", C->rtol);
  app_json_put_number(j, "atol", C->atol);
  json_check(j, C, "orth_err", 0);
  json_check(j, C, "range_err", 1);
  json_check(j, C, "amplification", 2);
  app_json_put_int(j, "steps", C->steps);
  app_json_put_int(j, "decomps", C->decomps);
  app_json_put_number(j, "elapsed", C->elapsed);
  if (C->smp.n > 0) {
    app_json_key(j, "sampling");
    app_sampling_json(&C->smp, j);
  }
  app_json_end_object(j);
}
